"""Running scheduled kernels: eager realization, and jit programs that replay.

`realize(nodes)` schedules pending lazy nodes (`jaxwg.frontend.fusion`) and dispatches the
kernels at once; each computed node becomes a realized BUFFER. `Program` is what `jit`
compiles a jaxpr into: the same schedule, recorded with *registers* instead of
buffers, each kernel prepared once. A call replays it: allocate each kernel's output,
dispatch (the backend queues every dispatch into one command encoder and compute
pass), and free intermediates right after their last reader; or, where the backend
offers one (`backend.replay`: WebGPU's keeps intermediates between calls and makes
bind groups once), through that.

Threads: `realize` holds the graph lock (`lazy.GRAPH_LOCK`), since it rewrites nodes
that other threads may read; a program's replay holds its backend's lock, so its
dispatches and frees are one step for the device queue.

`counters["kernels"]` counts dispatched kernels (tests use it to check fusion).

>>> import jaxwg.numpy as jnp
>>> before = counters["kernels"]
>>> x = jnp.sum(jnp.exp(jnp.arange(4.0)) * 2 + 1)
>>> _ = x.block_until_ready(); counters["kernels"] - before
1
"""

from __future__ import annotations

from dataclasses import dataclass

from ..config import config
from . import debug
from .device import Device, default_device
from .fusion import schedule
from .lazy import BUFFER, GRAPH_LOCK, Buffer, LazyNode

counters = {"kernels": 0, "compiled_programs": 0}


def nbytes(backend, node: LazyNode) -> int:
    return node.size * backend.storage_dtype(node.dtype).itemsize


def max_inputs(backend) -> int | None:
    device = getattr(backend, "device", None)
    limit = getattr(device, "max_storage_buffers", None)
    return None if limit is None else limit - 1


def schedule_for(backend, targets) -> list:
    """`fusion.schedule` within the backend's limits: buffers a kernel binds, and bytes
    one binding holds (a kernel with row stages binds its output whole)."""
    return schedule(targets, max_inputs(backend), getattr(backend, "window_bytes", None))


def device_of(nodes) -> Device:
    for n in nodes:
        if n.device is not None:
            return n.device
    return default_device()


def realize(nodes) -> None:
    """Compute every pending node in `nodes` into a buffer (dispatched, not awaited)."""
    with GRAPH_LOCK:
        pending = [n for n in nodes if n.kind != BUFFER]
        if pending:
            _dispatch_schedule(pending)


def moved_to(node: LazyNode, device: Device) -> LazyNode:
    """`node`'s value on `device`: the node itself if it is there, a constant made there
    if it is a pending constant, else a copy through the host."""
    if node.device is device:
        return node
    if node.device is None and node.kind == "const":
        return LazyNode.const(node.arg, node.dtype, device=device)
    realize([node])
    host = node.device.backend.download(node.buffer.slot, node.dtype, node.size)
    backend = device.backend
    return LazyNode.from_buffer(Buffer(backend, backend.upload(host)), node.shape, node.dtype, device)


def _dispatch_schedule(pending) -> None:
    device = device_of(pending)
    backend = device.backend
    dispatch = debug.dispatcher(device, "flush")  # backend.dispatch unless jaxwg_debug is on
    for step in schedule_for(backend, pending):
        exe = backend.prepare(step.kernel, fast_math=config.jaxwg_fast_math)
        out = backend.malloc(nbytes(backend, step.output))
        try:
            dispatch(exe, [n.buffer.slot for n in step.inputs], [out])
        except BaseException:
            backend.decref(out)
            raise
        counters["kernels"] += 1
        step.output.set_buffer(Buffer(backend, out))
        step.output.device = device


@dataclass
class _Kernel:
    executable: object
    inputs: tuple[int, ...]
    output: int
    nbytes: int
    frees: tuple[int, ...]


class Program:
    """A jaxpr lowered to kernels over registers (see the module docstring).

    Registers `0..n_args-1` are the arguments, then the constants (held here), then
    one per kernel output. `outputs` names the register of each result.
    """

    def __init__(self, device: Device, arg_nodes, const_nodes, out_nodes, name: str = "program"):
        backend = device.backend
        self.device = device
        self.label = f"jit {name}"  # names each run in the debug view
        self.n_args = len(arg_nodes)
        registers = {id(n): r for r, n in enumerate(list(arg_nodes) + list(const_nodes))}
        self.consts = [n.buffer for n in const_nodes]
        self.first_temp = self.n_args + len(self.consts)  # the first kernel-made register
        steps = schedule_for(backend, list(out_nodes))
        kernels = []
        for step in steps:
            registers[id(step.output)] = len(registers)
            kernels.append([backend.prepare(step.kernel, fast_math=config.jaxwg_fast_math),
                            tuple(registers[id(n)] for n in step.inputs),
                            registers[id(step.output)], nbytes(backend, step.output)])
        self.n_registers = len(registers)
        self.outputs = [registers[id(n)] for n in out_nodes]
        # Arguments, constants and repeated outputs are shared: a result takes a reference.
        self._shared = [r < self.first_temp or r in self.outputs[:i] for i, r in enumerate(self.outputs)]
        self.kernels = self._with_frees(kernels)
        register_bytes = [nbytes(backend, n) for n in list(arg_nodes) + list(const_nodes)]
        register_bytes += [k.nbytes for k in self.kernels]
        self._replay = backend.replay(self.kernels, register_bytes, self.n_args,
                                      [b.slot for b in self.consts], self.outputs)

    def _with_frees(self, kernels) -> list[_Kernel]:
        """Free each kernel-made register after its last reader (outputs are kept)."""
        last_use = {}
        for k, (_, inputs, _, _) in enumerate(kernels):
            for r in inputs:
                last_use[r] = k
        kept = set(self.outputs)
        frees: list[list[int]] = [[] for _ in kernels]
        for k, (_, _, output, _) in enumerate(kernels):
            if output not in kept:
                frees[last_use.get(output, k)].append(output)
        return [_Kernel(exe, inputs, output, size,
                        tuple(r for r in frees[k] if r >= self.first_temp))
                for k, (exe, inputs, output, size) in enumerate(kernels)]

    def run(self, arg_slots: list[int]) -> list[Buffer]:
        """Dispatch the program on argument slots; one new Buffer per output."""
        backend = self.device.backend
        results = []
        with backend.lock:  # one acquisition; the calls below re-enter it
            outputs = None
            if self._replay is not None and not debug.watching():
                outputs = self._replay.run(arg_slots)
            if outputs is None:
                outputs = self._dispatch_each(arg_slots)
            for slot, shared in zip(outputs, self._shared):
                if shared:
                    backend.incref(slot)
                results.append(Buffer(backend, slot))
        counters["kernels"] += len(self.kernels)
        return results

    def _dispatch_each(self, arg_slots: list[int]) -> list[int]:
        """Allocate, dispatch and free kernel by kernel (through the debug view when it
        is on); the slot of each output register."""
        backend = self.device.backend
        slots = list(arg_slots) + [b.slot for b in self.consts]
        slots += [None] * (self.n_registers - len(slots))
        dispatch = debug.dispatcher(self.device, self.label)
        for k in self.kernels:
            out = slots[k.output] = backend.malloc(k.nbytes)
            dispatch(k.executable, [slots[r] for r in k.inputs], [out])
            for r in k.frees:
                backend.decref(slots[r])
        return [slots[r] for r in self.outputs]

    def __len__(self) -> int:
        return len(self.kernels)
