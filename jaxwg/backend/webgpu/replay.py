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
  buffers it saw. A call recorded all at once (below) looks its work up once, by the
  buffers of its arguments and results, rather than once a dispatch: 12 of the 104 µs
  of host time a training-step call took on the 2-core test machine.
* Arguments are held once per call (again after a submit within the call), not per
  dispatch.

* A kernel of several passes (a split reduction, a product split along k) records
  each pass, with its scratch in the arena.
* A program whose every kernel records so, and whose per-call slots are its results
  only, records all its dispatches at once (`DispatchQueue.record_many`): one hold of
  the slots, one Python loop of three or four wgpu-native calls a dispatch. A jitted
  training step (20 dispatches) spent more time in Python than its kernels took on an
  H100.

* On GPUs, a program recorded at once joins the independent dispatches of each
  dependency level into one shader where it can (merge.py): a training step's 15
  dispatches became 10.

A routine (sort, scatter, scan) records its passes the same way, its scratch in the
arena and each pass's parameters bound as a constant. Outputs past one binding and
intermediates larger than `ARENA_BYTES` (whose kernels cost far more than their
recording) go the generic way, in the same order.

>>> import jaxwg, jaxwg.numpy as jnp
>>> f = jaxwg.jit(lambda x: jnp.sum(x * 2.0) + jnp.max(x))
>>> float(f(jnp.arange(4.0)))
15.0
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

import wgpu

from . import merge, tuner
from .codegen import UnsupportedError
from .routines import RoutineExecutable
from .device import reports_loss

# Intermediates up to this size stay allocated between calls (per program).
ARENA_BYTES = 4 << 20
# Bind groups a dispatch keeps for the arguments and results it has seen: a training
# loop alternates between a few sets of parameter buffers.
GROUPS_PER_STEP = 8


class _Origin(NamedTuple):
    """Pass `index` of `executable`, reading registers `reads` (one per argument of the
    pass's kernel) of `sizes` bytes and writing `target`."""

    executable: object
    index: int
    reads: tuple[int, ...]
    sizes: tuple[int, ...]
    target: int

    @property
    def tuning(self):
        return self.executable.passes[self.index].tuning

    @property
    def terms(self) -> int:
        """Outputs times reduction length: the pass's work."""
        kernel = self.executable.passes[self.index].kernel
        return kernel.size * (kernel.reduction.size if kernel.reduction else 1)


@dataclass
class _Dispatch:
    """One recorded dispatch: a pass of a kernel (one output window), or several joined
    (merge.py). `registers` are what it binds, in binding order (a pass: its inputs,
    then the one it writes), each at its (offset, size) in `windows`. Its bind group is
    made once when every register is fixed (`fixed_work`), else kept per set of buffers
    seen (`groups`)."""

    pipeline: object
    layout: object
    grid: tuple[int, int, int]
    immediates: bytes | None
    registers: tuple[int, ...]
    windows: tuple[tuple[int, int], ...]
    launch: object = None  # a pass's launch (what joining reads); None when joined
    origin: _Origin | None = None  # a pass's: what recompiling it at another size takes
    constants: tuple = ()  # (buffer, offset, size) bound after the registers (a routine's params)
    reads_output: bool = False  # a routine's pass: it reads what the pass before it wrote
    groups: dict = field(default_factory=dict)
    held: tuple[int, ...] = ()  # per-call registers it binds (held per dispatch)
    fixed_work: tuple | None = None  # `work(group)` of the group made once

    @classmethod
    def of_pass(cls, launch, origin: _Origin) -> _Dispatch:
        offset, size, immediates, grid = launch.outputs[0]
        return cls(launch.pipeline, launch.layout, grid, immediates,
                   tuple(origin.reads[arg] for arg, _, _ in launch.inputs) + (origin.target,),
                   tuple((o, n) for _, o, n in launch.inputs) + ((offset, size),), launch, origin)

    @property
    def dependence(self) -> tuple[tuple[int, ...], int]:
        """(the registers it reads, the one it writes), as `merge.levels` takes them."""
        return (self.registers if self.reads_output else self.registers[:-1]), self.registers[-1]

    def work(self, group: wgpu.GPUBindGroup) -> tuple:
        """What `DispatchQueue.record_many` takes: (pipeline, group, grid, immediates)."""
        return self.pipeline, group, self.grid, self.immediates


@dataclass
class _Step:
    executable: object
    inputs: tuple[int, ...]  # registers
    output: int
    nbytes: int
    frees: tuple[int, ...]  # per-call registers to free after this step
    allocate: bool  # the output is allocated per call (a result, or too large)
    dispatches: list[_Dispatch] | None = None  # None: dispatched generically


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
        register_bytes = list(register_bytes)  # scratch registers are added below
        per_call = set(outputs) | {k.output for k in kernels if k.nbytes > ARENA_BYTES}
        fixed = dict(enumerate(const_slots, n_args))
        for k in kernels:
            if k.output not in per_call:
                fixed[k.output] = self._arena.slots[k.output] = table.malloc(k.nbytes)
        self._steps = [_Step(k.executable, k.inputs, k.output, k.nbytes,
                             tuple(r for r in k.frees if r in per_call), k.output in per_call)
                       for k in kernels]
        for step in self._steps:
            step.dispatches = self._dispatches(step, register_bytes, fixed)
        self._slots = [fixed.get(r) for r in range(len(register_bytes))]
        self._buffers = [None if s is None else table.buffer(s) for s in self._slots]
        # All at once (`record_many`) when nothing is dispatched generically and nothing
        # per call is freed within the call: results are then the only slots to hold.
        self._at_once = all(s.dispatches is not None and not s.frees for s in self._steps)
        # What recording all at once records: the passes, or, where the backend joins
        # independent ones, fewer dispatches in dependency order (merge.py).
        passes = [d for s in self._steps for d in s.dispatches or ()]
        self._order = passes
        if self._at_once and backend.merges_dispatches:
            self._order = self._joined(self._order)
        for d in {id(d): d for d in self._order + passes}.values():
            d.held = tuple(r for r in d.registers if r in per_call)
            if all(r >= n_args and r in fixed for r in d.registers):
                d.fixed_work = d.work(self._make_group(d, [self._buffers[r] for r in d.registers]))
        self._dispatch_count = len(self._order)
        self._results = [(s.output, s.nbytes) for s in self._steps if s.allocate]
        # `_record_at_once`: every dispatch's work for each set of per-call buffers seen
        # (as `_Dispatch.groups`, one lookup a call instead of one a dispatch).
        self._works: dict = {}

    def _dispatches(self, step: _Step, register_bytes: list[int], fixed: dict) -> list[_Dispatch] | None:
        """The passes of `step` as recorded dispatches, a scratch register in the arena
        for a split plan or a routine; None for what records generically."""
        if isinstance(step.executable, RoutineExecutable):
            return self._routine_dispatches(step, register_bytes, fixed)
        exe = self._backend_executable(step)
        if exe is None:
            return None
        scratch = None
        if exe.scratch_bytes:
            scratch = len(register_bytes)
            register_bytes.append(exe.scratch_bytes)
        out = []
        for i, p in enumerate(exe.passes):
            reads = tuple(scratch if src == "scratch" else step.inputs[src] for src in p.inputs)
            sizes = tuple(register_bytes[r] for r in reads)
            launch = self._backend.launch_for(exe, i, sizes)
            if len(launch.outputs) != 1:
                return None
            target = scratch if p.writes_scratch else step.output
            out.append(_Dispatch.of_pass(launch, _Origin(exe, i, reads, sizes, target)))
        if scratch is not None:
            fixed[scratch] = self._arena.slots[scratch] = self._backend.slots.malloc(exe.scratch_bytes)
        return out

    def _routine_dispatches(self, step: _Step, register_bytes: list[int], fixed: dict) -> list[_Dispatch]:
        """A routine's passes (routines.py): its inputs, a scratch register in the arena
        and its output, then each pass's parameters."""
        exe, backend = step.executable, self._backend
        if exe.kernel.size == 0:
            return []
        scratch = len(register_bytes)
        register_bytes.append(exe.scratch_bytes)
        fixed[scratch] = self._arena.slots[scratch] = backend.slots.malloc(register_bytes[scratch])
        registers = (*step.inputs, scratch, step.output)
        windows = tuple(backend.binding_window(register_bytes[r]) for r in registers)
        out = []
        for pipeline, grid, params in exe.passes(backend):
            backend.queue.check_grid(grid)
            out.append(_Dispatch(pipeline, exe.layout, grid, None, registers, windows,
                                 constants=(params,), reads_output=True))
        return out

    def _joined(self, dispatches: list[_Dispatch]) -> list[_Dispatch]:
        """`dispatches` by dependency level, those of a level that can share a shader
        joined into one dispatch, at one workgroup size (merge.py)."""
        level_of = merge.levels([d.dependence for d in dispatches])
        # A routine's passes (no launch) join nothing.
        small = [d.launch is not None and d.origin.terms <= merge.SMALL_TERMS for d in dispatches]
        sizes = merge.shared_sizes(level_of, [d.launch.spec.workgroup_size if d.launch else 0
                                              for d in dispatches],
                                   [s and d.origin.tuning.tile is None for d, s in zip(dispatches, small)])
        dispatches = [self._resized(d, size) if d.launch else d for d, size in zip(dispatches, sizes)]
        kinds = [None if s else d.origin.tuning if d.launch else ("alone", i)
                 for i, (d, s) in enumerate(zip(dispatches, small))]
        out: list[_Dispatch] = []
        for members in merge.groups([d.launch.spec if d.launch else None for d in dispatches], level_of,
                                    self._backend.merge_limits, kinds):
            parts = [dispatches[i] for i in members]
            joined = self._backend.join_launches([d.launch for d in parts]) if len(parts) > 1 else None
            if joined is None:
                out += parts
                continue
            spec = joined.spec
            out.append(_Dispatch(joined.pipeline, joined.layout, self._backend.grid(spec.grid),
                                 spec.uniform_bytes() if spec.uniforms else None,
                                 sum((d.registers for d in parts), ()), sum((d.windows for d in parts), ())))
        return out

    def _resized(self, d: _Dispatch, size: int) -> _Dispatch:
        """The pass of `d` recompiled for workgroups of `size` threads (`tuner.resized`),
        or `d` where it has that size or cannot take it."""
        o = d.origin
        tuning = tuner.resized(o.tuning, size)
        if tuning is None or tuning == o.tuning:
            return d
        kernel = o.executable.passes[o.index].kernel
        try:
            alone = self._backend.prepare(kernel, tuning, fast_math=o.executable.fast_math)
            launch = self._backend.launch_for(alone, 0, o.sizes)
        except UnsupportedError:  # the adapter rejects it at this size: keep the pass as it is
            return d
        if len(launch.outputs) != 1:
            return d
        return _Dispatch.of_pass(launch, o._replace(executable=alone, index=0))

    @staticmethod
    def _backend_executable(step: _Step):
        """The step's planned kernel, unless it is a routine or writes nothing."""
        exe = step.executable
        return exe if hasattr(exe, "passes") and exe.kernel.size > 0 else None

    @reports_loss
    def run(self, arg_slots) -> list[int] | None:
        """Record the program on `arg_slots`; the output slots, or None (nothing
        recorded) when an argument's size differs from the one it was compiled for."""
        table = self._backend.slots
        entries = table.entries(arg_slots)
        if tuple([e.nbytes for e in entries]) != self._arg_bytes:
            return None
        slots = self._slots.copy()
        buffers = self._buffers.copy()
        slots[:self._n_args] = arg_slots
        buffers[:self._n_args] = [e.buffer for e in entries]
        queue = self._backend.queue
        if self._at_once and queue.can_record_many(self._dispatch_count):
            self._record_at_once(slots, buffers, queue)
        else:
            self._record_each(arg_slots, slots, buffers, queue)
        return [slots[r] for r in self._outputs]

    def _record_at_once(self, slots, buffers, queue) -> None:
        table = self._backend.slots
        for r, nbytes in self._results:
            slots[r] = table.malloc(nbytes)
            buffers[r] = table.buffer(slots[r])
        key = tuple(buffers[:self._n_args] + [buffers[r] for r, _ in self._results])
        work = self._works.get(key)  # the key keeps its buffers, so no id is reused
        if work is None:
            if len(self._works) >= GROUPS_PER_STEP:  # new buffers each call: forget
                self._works.clear()
            work = self._works[key] = [d.fixed_work or d.work(self._group(d, buffers)) for d in self._order]
        queue.record_many(work, slots[:self._n_args] + [slots[r] for r, _ in self._results], self._arena)

    def _record_each(self, arg_slots, slots, buffers, queue) -> None:
        """Step by step, holding what each dispatch binds; a submit within the call
        (the queue filled up) holds the arguments and the arena again."""
        backend, table = self._backend, self._backend.slots
        queue.hold(arg_slots, self._arena)
        submits = queue.submits
        for step in self._steps:
            if step.allocate:
                out = slots[step.output] = table.malloc(step.nbytes)
                buffers[step.output] = table.buffer(out)
            if step.dispatches is None:
                backend.dispatch(step.executable, [slots[r] for r in step.inputs], [slots[step.output]])
            else:
                for d in step.dispatches:
                    pipeline, group, grid, immediates = d.fixed_work or d.work(self._group(d, buffers))
                    queue.record_checked(pipeline, group, grid, [slots[r] for r in d.held], immediates)
            for r in step.frees:
                table.decref(slots[r])
            if queue.submits != submits:  # the submit let go of the arguments and arena
                queue.hold(arg_slots, self._arena)
                submits = queue.submits

    def _group(self, d: _Dispatch, buffers) -> wgpu.GPUBindGroup:
        key = tuple(map(buffers.__getitem__, d.registers))
        group = d.groups.get(key)  # the key keeps its buffers, so no id is reused
        if group is None:
            if len(d.groups) >= GROUPS_PER_STEP:  # new buffers each call: forget
                d.groups.clear()
            group = d.groups[key] = self._make_group(d, key)
        return group

    def _make_group(self, d: _Dispatch, buffers) -> wgpu.GPUBindGroup:
        bindings = [(b, o, n) for b, (o, n) in zip(buffers, d.windows)]
        return self._backend.create_bind_group(d.layout, bindings + list(d.constants))
