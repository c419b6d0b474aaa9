"""Replaying a jit program's kernels with few Python steps per dispatch.

A jitted function runs the same kernels on the same shapes at every call. Dispatching
them one by one (`backend.dispatch`) allocates each intermediate, looks up its launch
and bind group, and takes and drops a reference on every slot a dispatch binds: about
100 Python calls and 16 µs a kernel on the 2-core test machine, while the dispatch
itself is three calls into wgpu-native. A `Replay` does that work once, when the
program is compiled:

* Intermediates of at most `ARENA_BYTES` each live in buffers the replay owns (its
  arena) and every call reuses. That is safe because all work runs in recording order
  on one queue: a call's write to an intermediate comes after every read of it by the
  call before. The queue keeps the arena alive until the submit of the work that
  used it, so a program dropped while its work is pending frees nothing early.
* A kernel that binds only constants and arena buffers records with a bind group made
  once; one that binds arguments or results keeps the groups of the last few sets of
  buffers it saw.
* Arguments are held once per call (again after a submit within the call), not per
  dispatch.

Kernels that are not one pass writing one binding (split reductions, routines,
outputs past one binding) and intermediates larger than `ARENA_BYTES` (whose kernels
cost far more than their recording) go the generic way, in the same order.

>>> import jaxwg, jaxwg.numpy as jnp
>>> f = jaxwg.jit(lambda x: jnp.sum(x * 2.0) + jnp.max(x))
>>> float(f(jnp.arange(4.0)))
15.0
"""

from __future__ import annotations

from dataclasses import dataclass, field

import wgpu

from .device import reports_loss

# Intermediates up to this size stay allocated between calls (per program).
ARENA_BYTES = 4 << 20
# Bind groups a kernel keeps for the arguments and results it has seen: a training loop
# alternates between a few sets of parameter buffers.
GROUPS_PER_STEP = 8


@dataclass
class _Step:
    executable: object
    inputs: tuple[int, ...]  # registers
    output: int
    nbytes: int
    frees: tuple[int, ...]  # per-call registers to free after this step
    allocate: bool  # the output is allocated per call (a result, or too large)
    # The recorded form, for one-pass kernels (else None: dispatched generically):
    launch: object = None
    bound: tuple[int, ...] = ()  # input registers in binding order
    group: wgpu.GPUBindGroup | None = None  # when every bound register is fixed
    held: tuple[int, ...] = ()  # per-call intermediates it binds (held per dispatch)
    # Otherwise its groups by the buffers bound (input buffers, then the output's):
    groups: dict = field(default_factory=dict)


class _Arena:
    """Slots owned by one replay; freed when the last of the replay and the queue's
    pending work lets go."""

    def __init__(self, table):
        self._table = table
        self.slots: dict[int, int] = {}  # register -> slot

    def __del__(self):
        for slot in self.slots.values():
            try:
                self._table.decref(slot)
            except Exception:  # never raise from a finalizer
                pass


class Replay:
    """A jit program's kernel list, prepared for the WebGPU backend (module doc).

    `kernels` are the program's steps (executable, input registers, output register,
    output bytes, registers freed after it); registers `0..n_args-1` are the
    arguments, then the constants `const_slots`, then one per kernel output.
    `register_bytes` gives every register's size. `run(arg_slots)` returns the slot
    of each register in `outputs` (results are new slots; arguments and constants are
    returned as they are, without a new reference).
    """

    def __init__(self, backend, kernels, register_bytes, n_args: int, const_slots, outputs):
        self._backend = backend
        self.device = backend.device  # what `reports_loss` checks
        self._n_args = n_args
        self._arg_bytes = tuple(register_bytes[:n_args])
        self._outputs = tuple(outputs)
        table = backend.slots
        self._arena = _Arena(table)
        first_temp = n_args + len(const_slots)
        per_call = set(outputs) | {k.output for k in kernels if k.nbytes > ARENA_BYTES}
        fixed = dict(enumerate(const_slots, n_args))
        for k in kernels:
            if k.output not in per_call:
                fixed[k.output] = self._arena.slots[k.output] = table.malloc(k.nbytes)
        self._slots = [fixed.get(r) for r in range(len(register_bytes))]
        self._buffers = [None if s is None else table.buffer(s) for s in self._slots]
        self._steps = [self._step(k, register_bytes, per_call, first_temp) for k in kernels]

    def _step(self, k, register_bytes, per_call: set, first_temp: int) -> _Step:
        frees = tuple(r for r in k.frees if r in per_call)
        step = _Step(k.executable, k.inputs, k.output, k.nbytes, frees, k.output in per_call)
        exe = k.executable
        if not getattr(exe, "is_direct", False) or exe.kernel.size == 0:
            return step
        sizes = tuple(register_bytes[r] for r in k.inputs)
        launch = self._backend.launch_for(exe, 0, sizes)
        if len(launch.outputs) != 1:
            return step
        step.launch = launch
        step.bound = tuple(k.inputs[arg] for arg, _, _ in launch.inputs)
        registers = step.bound + (k.output,)
        step.held = tuple(r for r in registers if r in per_call)
        if all(r >= self._n_args and r not in per_call for r in registers):
            step.group = self._backend.make_launch_group(
                launch, 0, self._buffers[k.output], tuple(self._buffers[r] for r in step.bound))
        return step

    @reports_loss
    def run(self, arg_slots) -> list[int] | None:
        """Record the program on `arg_slots`; the output slots, or None (nothing
        recorded) when an argument's size differs from the one it was compiled for."""
        backend = self._backend
        table, queue = backend.slots, backend.queue
        entries = table.entries(arg_slots)
        if tuple(e.nbytes for e in entries) != self._arg_bytes:
            return None
        slots = self._slots.copy()
        buffers = self._buffers.copy()
        slots[:self._n_args] = arg_slots
        buffers[:self._n_args] = [e.buffer for e in entries]
        queue.hold(arg_slots, self._arena)
        submits = queue.submits
        for step in self._steps:
            if step.allocate:
                out = slots[step.output] = table.malloc(step.nbytes)
                buffers[step.output] = table.buffer(out)
            if step.launch is None:
                backend.dispatch(step.executable, [slots[r] for r in step.inputs], [slots[step.output]])
            else:
                self._record(step, slots, buffers, queue)
            for r in step.frees:
                table.decref(slots[r])
            if queue.submits != submits:  # the submit let go of the arguments and arena
                queue.hold(arg_slots, self._arena)
                submits = queue.submits
        return [slots[r] for r in self._outputs]

    def _record(self, step: _Step, slots, buffers, queue) -> None:
        launch = step.launch
        group = step.group or self._group(step, buffers)
        _, _, immediates, grid = launch.outputs[0]
        queue.record_checked(launch.pipeline, group, grid, [slots[r] for r in step.held], immediates)

    def _group(self, step: _Step, buffers) -> wgpu.GPUBindGroup:
        key = tuple(buffers[r] for r in step.bound) + (buffers[step.output],)
        group = step.groups.get(key)  # the key keeps its buffers, so no id is reused
        if group is None:
            if len(step.groups) >= GROUPS_PER_STEP:  # new buffers each call: forget
                step.groups.clear()
            group = step.groups[key] = self._backend.make_launch_group(
                step.launch, 0, key[-1], key[:-1])
        return group
