"""The WebGPU backend: kernels compiled to WGSL and queued on a wgpu device.

`prepare` plans a kernel (`tuner.plan`: one pass, or two for a split reduction),
generates each pass's shader (`templates`) and compiles it, reusing pipelines by
WGSL text. `dispatch` binds buffers, caches bind groups by the buffers they bind,
and records the passes into the `DispatchQueue` (one encoder, one compute pass,
submitted when results are needed). Memory is the refcounted `SlotTable` over a
`BufferPool`. Executables, pipelines and bind groups are kept in bounded LRU caches.

Every public method holds the backend's re-entrant `lock`: the queue's open compute
pass, the slot table, the pools and the caches are shared by all threads.

Buffers larger than one storage binding (128 MiB on the software adapters) are
bound as several windows: inputs through a generated loader, outputs by one
dispatch per window with the window's first index in an immediate. A buffer larger
than the adapter's `max-buffer-size` is refused with an error naming both.

Faults: an allocation the device has no memory for is retried once after freeing
the pool, then raises `ResourceExhaustedError` (buffers.py); a lost device raises
`DeviceLostError` from every method that uses it (`device.reports_loss`), and
`reset_webgpu_backend` makes the next `get_webgpu_backend()` open a new device.

>>> import numpy as np
>>> from jaxwg.core import alu, dtypes as dt
>>> from jaxwg.core.kernel import Kernel
>>> be = get_webgpu_backend()
>>> x = be.upload(np.arange(4, dtype=np.float32))
>>> out = be.malloc(16)
>>> be.dispatch(be.prepare(Kernel(1, 4, alu.load(0, dt.float32, alu.gidx(4)) + 1.0)), [x], [out])
>>> be.download(out, dt.float32, 4)
array([1., 2., 3., 4.], dtype=float32)
>>> be.decref(x); be.decref(out)
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import numpy as np
import wgpu

from ...core import dtypes as dt
from ...core.contraction import as_contraction
from ...core.kernel import Kernel
from ...core.routine import CumulativeSum, Routine, ScatterAdd, SortPermutation
from ...core.widen import widen_kernel
from ..base import Backend, UnsupportedDtypeError
from ..lru import LruCache
from . import autotune
from .buffers import BufferPool, PoolConfig, SlotTable, align16, memory_limit_from_env
from .codegen import UnsupportedError
from .device import WebGPUDevice, get_device, reports_loss
from .native_math import measure as measure_native_math, uses_candidates
from .timing import KernelTimer
from . import merge, scan, scatter, sort
from .queue import DispatchQueue
from .replay import Replay
from .routines import RoutineExecutable, compile_routine, record_routine
from .templates import ShaderOptions, ShaderSpec, build_shader
from .tuner import AdapterTraits, Pass, Tile, Tuning, plan, scratch_bytes, tile_candidates

# The WebGPU features a dtype needs: float64's IEEE guards read its bits as u64.
_FEATURES_FOR = {dt.float16: ("shader-f16",), dt.float64: ("shader-f64", "shader-int64")}
# How each routine's passes are planned, given the adapter's workgroup memory in bytes.
_ROUTINE_PLANS = {SortPermutation: sort.plan, ScatterAdd: scatter.plan, CumulativeSum: scan.plan}
_BIND_GROUP_CACHE_SIZE = 4096
_EXECUTABLE_CACHE_SIZE = 1024
_PIPELINE_CACHE_SIZE = 1024


@dataclass
class _Pipeline:
    pipeline: wgpu.GPUComputePipeline
    layout: wgpu.GPUBindGroupLayout
    spec: ShaderSpec


@dataclass(frozen=True)
class _Launch:
    """What recording one pass needs besides the buffers, for given input sizes:
    the pipeline, each input binding's (argument, offset, size), and per output window
    its (byte offset, byte size, immediates, grid)."""

    pipeline: wgpu.GPUComputePipeline
    layout: wgpu.GPUBindGroupLayout
    inputs: tuple
    outputs: tuple
    spec: ShaderSpec


@dataclass
class WebGPUExecutable:
    """A planned kernel: its passes, and compiled pipelines per binding layout."""

    kernel: Kernel
    passes: list[Pass]
    scratch_bytes: int
    fast_math: bool = False
    native_math: frozenset = frozenset()  # variants replacing helpers (native_math.py)
    pipelines: dict = field(default_factory=dict)  # (pass index, input windows) -> (options, _Pipeline)
    launches: dict = field(default_factory=dict)  # (pass index, input sizes) -> _Launch
    is_direct: bool = field(init=False)  # one pass, reading the inputs in order, writing the output

    def __post_init__(self):
        p = self.passes[0]
        self.is_direct = len(self.passes) == 1 and not p.writes_scratch and \
            p.inputs == tuple(range(len(p.inputs)))

    def shader_sources(self) -> list[str]:
        """The WGSL of each distinct shader compiled so far, in pass order."""
        codes = [pipe.spec.code for _, (_, pipe) in sorted(self.pipelines.items())]
        return list(dict.fromkeys(codes))


# The limits that decide what runs and how (print_environment_info).
_REPORTED_LIMITS = ("max-buffer-size", "max-storage-buffer-binding-size",
                    "max-compute-workgroup-storage-size", "max-compute-invocations-per-workgroup",
                    "max-compute-workgroups-per-dimension")


class WebGPUBackend(Backend):
    """Kernels as WGSL compute shaders on one wgpu device (see the module docstring).

    `memory_limit` caps the bytes of storage buffers the backend holds at once (in use
    and pooled); None takes it from `$JAXWG_WEBGPU_MEMORY_LIMIT`, and without that the
    device's memory is the only limit.

    >>> be = WebGPUBackend(memory_limit=1 << 20)  # doctest: +SKIP
    >>> be.malloc(2 << 20)  # doctest: +SKIP
    Traceback (most recent call last):
    ResourceExhaustedError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 2097152 bytes ...
    """

    name = "webgpu"

    def __init__(self, device: WebGPUDevice | None = None, pool_config: PoolConfig | None = None,
                 max_pending: int = 256, memory_limit: int | None = None):
        super().__init__()
        self.device = device or get_device()
        if memory_limit is None:
            memory_limit = memory_limit_from_env()
        self.slots = SlotTable(self.device, BufferPool(self.device, pool_config, memory_limit=memory_limit))
        self.queue = DispatchQueue(self.device, self.slots, max_pending)
        # Pipelines by WGSL text: executables keep their own, so an evicted entry only
        # costs a compile when a new kernel has the same text.
        self._pipelines = LruCache(_PIPELINE_CACHE_SIZE)
        self._bind_groups = LruCache(_BIND_GROUP_CACHE_SIZE)
        self._executables = LruCache(_EXECUTABLE_CACHE_SIZE)
        self.pipelines_compiled = 0
        # Bytes per binding window: the binding limit, aligned for binding offsets.
        align = max(self.device.binding_alignment, 16)
        self.window_bytes = self.device.max_binding_bytes // align * align
        self.traits = AdapterTraits(self.device.is_software, self.window_bytes,
                                    self.device.limits["max-compute-workgroup-storage-size"],
                                    "subgroup" in self.device.features)
        self.autotune = autotune.enabled(self.device.is_software)  # measure product tiles (autotune.py)
        self.tuning_cache = autotune.default_cache()
        self.merges_dispatches = merge.enabled(self.device.is_software)  # in jit programs (merge.py)
        self.merge_limits = merge.Limits.of(self.device.limits)
        self._rejected_joins: set[str] = set()  # joined shaders the adapter did not compile
        self._native_math: frozenset[str] | None = None  # measured on first use

    def describe(self) -> str:
        return self.device.describe()

    def environment(self) -> dict[str, str]:
        limits = self.device.limits
        return {
            "device": self.describe(),
            "features": ", ".join(sorted(self.device.features)) or "none",
            "limits": ", ".join(f"{name} {limits[name]}" for name in _REPORTED_LIMITS),
        }

    # -- timing (timing.py) ------------------------------------------------------------
    @reports_loss
    def start_timing(self) -> bool:
        with self.lock:
            if self.queue.timer is None:
                self.queue.timer = KernelTimer.create(self.device, self.queue)
            return self.queue.timer is not None

    def timing_label(self, label) -> None:
        if self.queue.timer is not None:
            self.queue.timer.label = label

    def stop_timing(self) -> list:
        with self.lock:
            timer, self.queue.timer = self.queue.timer, None
            return [] if timer is None else timer.results()

    # -- memory ----------------------------------------------------------------------
    @reports_loss
    def malloc(self, nbytes: int, data=None) -> int:
        with self.lock:
            return self.slots.malloc(nbytes, data)

    def incref(self, slot: int) -> None:
        with self.lock:
            self.slots.incref(slot)

    def decref(self, slot: int) -> None:
        with self.lock:
            self.slots.decref(slot)

    @reports_loss
    def read(self, slot: int, start: int = 0, count: int | None = None) -> bytes:
        with self.lock:
            return bytes(self.slots.read(slot, start, count))

    def memory_stats(self) -> dict:
        with self.lock:
            return {**self.slots.memory_stats(), "pipelines": len(self._pipelines),
                    "bind_groups_cached": len(self._bind_groups)}

    def storage_dtype(self, dtype: dt.DType) -> np.dtype:
        # WGSL has no 8- or 16-bit integers: bool and the small integers take 32 bits.
        return np.dtype(np.int32) if dtype.is_bool else dt.WIDENED.get(dtype, dtype).np

    @functools.lru_cache(maxsize=None)  # noqa: B019 - one backend per device, few dtypes
    def _itemsize(self, dtype: dt.DType) -> int:
        return self.storage_dtype(dtype).itemsize

    def supports(self, dtype: dt.DType) -> bool:
        return not self._missing_features(dtype)

    def _missing_features(self, dtype: dt.DType) -> list[str]:
        return [f for f in _FEATURES_FOR.get(dtype, ()) if f not in self.device.features]

    @reports_loss
    def synchronize(self) -> None:
        with self.lock:
            self.queue.synchronize()

    # -- compilation -----------------------------------------------------------------
    @reports_loss
    def prepare(self, kernel: Kernel, tuning: Tuning | None = None, *,
                fast_math: bool = False) -> WebGPUExecutable:
        """Plan and compile `kernel`. A given `tuning` forces one pass with that thread
        mapping instead of the tuner's plan (tests use it to cover every template);
        `fast_math` emits float ops as written, without IEEE guards (docs/ieee.md).
        Executables are cached by kernel: kernels are hash-consed values."""
        key = (kernel, tuning, fast_math)
        with self.lock:
            exe = self._executables.get(key)
            if exe is None:
                exe = (self._prepare_routine(kernel) if isinstance(kernel, Routine)
                       else self._plan_and_compile(kernel, tuning, fast_math, self._natives_for(kernel)))
                self._executables.put(key, exe)
            return exe

    def _check_dtypes(self, kernel: Kernel | Routine) -> None:
        for dtype in kernel.dtypes():
            missing = self._missing_features(dtype)
            if missing:
                raise UnsupportedDtypeError(
                    f"{dtype} needs the WebGPU features {', '.join(map(repr, missing))}, which the "
                    f"adapter {self.describe()} does not have")

    def _prepare_routine(self, routine: Routine) -> RoutineExecutable:
        """A routine's passes (each routine module's `plan`), compiled; every buffer it
        binds must fit one binding."""
        self._check_dtypes(routine)
        plan = _ROUTINE_PLANS[type(routine)](routine, self.traits)
        sizes = [n * self._itemsize(d) for n, d in zip(routine.input_sizes(), routine.input_dtypes())]
        largest = max([plan.scratch_bytes, routine.size * self._itemsize(routine.dtype), *sizes])
        if largest > self.window_bytes:
            raise ValueError(f"{routine} needs a buffer of {largest} bytes, more than one storage "
                             f"binding ({self.window_bytes} bytes) of {self.describe()}")
        return compile_routine(self.device, routine, plan)

    def _natives_for(self, kernel: Kernel) -> frozenset[str]:
        return self.native_math() if uses_candidates(kernel) else frozenset()

    def native_math(self) -> frozenset[str]:
        """The helper variants accurate on this adapter (native_math.py),
        measured once, for the first kernel that could use one."""
        with self.lock:
            if self._native_math is None:
                self._native_math = frozenset()  # what the measuring kernels themselves use
                self._native_math = measure_native_math(self._run_with_natives)
            return self._native_math

    def _run_with_natives(self, kernel: Kernel, x: np.ndarray, natives: frozenset[str]) -> np.ndarray:
        """`kernel` on the input `x`, compiled with `natives` and not cached."""
        exe = self._plan_and_compile(kernel, None, False, natives)
        slot, out = self.upload(x), self.malloc(kernel.size * self._itemsize(kernel.dtype))
        try:
            self.dispatch(exe, [slot], [out])
            return self.download(out, kernel.dtype, kernel.size)
        finally:
            self.decref(slot)
            self.decref(out)

    def _plan_and_compile(self, kernel: Kernel, tuning: Tuning | None,
                          fast_math: bool, natives: frozenset[str] = frozenset()) -> WebGPUExecutable:
        kernel = widen_kernel(kernel)  # small integers compute in 32 bits (core/widen.py)
        self._check_dtypes(kernel)
        out_bytes = kernel.size * self._itemsize(kernel.dtype)
        if out_bytes > self.device.max_buffer_bytes:
            raise ValueError(
                f"kernel output of {out_bytes} bytes exceeds the maximum buffer size "
                f"{self.device.max_buffer_bytes} of {self.describe()}")
        if tuning is None:
            passes = plan(kernel, self.traits)
            if passes[0].tuning.tile is not None and self.autotune:
                first = passes[0]  # the product, or its first pass where it is split along k
                passes = [replace(first, tuning=self._measured_tile(first.kernel, fast_math)), *passes[1:]]
        else:
            passes = [Pass(kernel, tuning, tuple(range(kernel.nargs)))]
        exe = WebGPUExecutable(kernel, passes, scratch_bytes(passes), fast_math, natives)
        for i, p in enumerate(passes):  # compile the common case (every input one binding) now
            self._pipeline_for(exe, i, (1,) * p.kernel.nargs)
        return exe

    def _measured_tile(self, kernel: Kernel, fast_math: bool) -> Tuning:
        """The tile stored for the product's shape class on this adapter, or the fastest
        candidate timed on scratch buffers, then stored (autotune.py)."""
        key = autotune.shape_class(as_contraction(kernel), kernel.dtype)
        candidates = tile_candidates(kernel, self.traits)
        digest = autotune.among(candidates)
        tile = self.tuning_cache.get(self.describe(), key, digest)
        if tile is None:
            # Random values, not a new buffer's zeros: GPUs multiply zeros faster.
            rng = np.random.default_rng(0)
            inputs = [self.slots.malloc(n, rng.standard_normal(n // 4, dtype=np.float32).tobytes())
                      for n in self._input_bytes(kernel)]
            output = self.slots.malloc(kernel.size * self.storage_dtype(kernel.dtype).itemsize)
            prepared: dict[Tile, WebGPUExecutable] = {}

            def run(candidate: Tile) -> None:
                # Compiled once per candidate: only the dispatches are timed.
                if candidate not in prepared:
                    tuning = Tuning(workgroup_size=candidate.threads, tile=candidate)
                    prepared[candidate] = self.prepare(kernel, tuning, fast_math=fast_math)
                self._dispatch(prepared[candidate], inputs, [output])

            try:
                tile = autotune.fastest(candidates, run, self.queue.synchronize, gpu_seconds=self._gpu_seconds())
            finally:
                for slot in inputs + [output]:
                    self.slots.decref(slot)
            self.tuning_cache.put(self.describe(), key, tile, digest)
        return Tuning(workgroup_size=tile.threads, tile=tile)

    def _gpu_seconds(self):
        """`DispatchQueue.gpu_seconds` with the backend's own timer, where the adapter
        stamps times inside passes; else None."""
        timer = self._span_timer
        return None if timer is None else (lambda record: self.queue.gpu_seconds(timer, record))

    @functools.cached_property
    def _span_timer(self) -> KernelTimer | None:
        """`_gpu_seconds`' timer (one span: two stamps), made on first use."""
        return KernelTimer.create(self.device, self.queue, capacity=1)

    def _input_bytes(self, kernel: Kernel) -> list[int]:
        """Bytes each input needs for every index the kernel reads (4 if none)."""
        needed = [4] * kernel.nargs
        for exp in kernel.expressions:
            for ld in exp.simplify().loads():
                size = (ld.src[0].range[1] + 1) * self.storage_dtype(ld.dtype).itemsize
                needed[ld.arg] = max(needed[ld.arg], _align4(size))
        return needed

    def _options(self, exe: WebGPUExecutable, p: Pass, windows: tuple[int, ...]) -> ShaderOptions:
        kernel = p.kernel
        elements = tuple(self.window_bytes // self.storage_dtype(d or dt.uint32).itemsize
                         for d in kernel.input_dtypes())
        out_item = self.storage_dtype(kernel.dtype).itemsize
        output_window = 0
        if kernel.size * out_item > self.window_bytes:
            if "immediates" not in self.device.features:
                raise ValueError(f"output of {kernel.size * out_item} bytes exceeds one binding and "
                                 f"{self.describe()} has no 'immediates' feature to split it")
            quantum = p.tuning.workgroup_size * p.tuning.upcast
            output_window = self.window_bytes // out_item // quantum * quantum
        return ShaderOptions(tuple(windows), elements, output_window, exe.fast_math,
                             "subgroup" in self.device.features, exe.native_math)

    def _pipeline_for(self, exe: WebGPUExecutable, index: int,
                      windows: tuple[int, ...]) -> tuple[ShaderOptions, _Pipeline]:
        """Binding options and pipeline of pass `index` for inputs bound in `windows`
        windows each; cached on the executable, so a dispatch only looks them up."""
        key = (index, windows)
        if key not in exe.pipelines:
            p = exe.passes[index]
            options = self._options(exe, p, windows)
            # Without immediates, constants stay literal in the shader.
            immediates = self.device.limits.get("max-immediate-size", 0) \
                if "immediates" in self.device.features else 0
            spec = build_shader(p.kernel, p.tuning, options, immediates)
            exe.pipelines[key] = (options, self._compile(spec))
        return exe.pipelines[key]

    def _compile(self, spec: ShaderSpec) -> _Pipeline:
        cached = self._pipelines.get(spec.code)
        if cached is not None:
            return _Pipeline(cached.pipeline, cached.layout, spec)
        dev = self.device.device
        kinds = {False: wgpu.BufferBindingType.read_only_storage, True: wgpu.BufferBindingType.storage}
        entries = [{"binding": i, "visibility": wgpu.ShaderStage.COMPUTE, "buffer": {"type": kinds[w]}}
                   for i, w in enumerate(spec.binding_writes)]
        immediate_size = len(spec.uniform_bytes())
        try:
            layout = dev.create_bind_group_layout(entries=entries)
            pipeline_layout = dev.create_pipeline_layout(
                bind_group_layouts=[layout], **({"immediate_size": immediate_size} if immediate_size else {}))
            module = dev.create_shader_module(code=spec.code)
            pipeline = dev.create_compute_pipeline(
                layout=pipeline_layout, compute={"module": module, "entry_point": "main"})
        except Exception as e:
            raise UnsupportedError(f"WGSL rejected by {self.describe()}: {e}\n{spec.code}") from e
        self.pipelines_compiled += 1
        compiled = _Pipeline(pipeline, layout, spec)
        self._pipelines.put(spec.code, compiled)
        return compiled

    # -- dispatch --------------------------------------------------------------------
    @reports_loss
    def replay(self, kernels, register_bytes, n_args: int, const_slots, outputs) -> Replay:
        with self.lock:
            return Replay(self, kernels, register_bytes, n_args, const_slots, outputs)

    @reports_loss
    def dispatch(self, executable: WebGPUExecutable, inputs: Sequence[int], outputs: Sequence[int]) -> None:
        self.check_kernel_inputs(executable, inputs, outputs)
        with self.lock:
            self._dispatch(executable, inputs, outputs)

    def _dispatch(self, executable: WebGPUExecutable, inputs: Sequence[int], outputs: Sequence[int]) -> None:
        kernel = executable.kernel
        needed = kernel.size * self._itemsize(kernel.dtype)
        if self.slots.nbytes(outputs[0]) < needed:
            raise ValueError(f"output slot has {self.slots.nbytes(outputs[0])} bytes, kernel writes {needed}")
        if kernel.size == 0:
            return
        if isinstance(executable, RoutineExecutable):
            record_routine(self, executable, inputs, outputs[0])
        elif executable.is_direct:
            self._record_pass(executable, 0, list(inputs), outputs[0])
        else:
            self._record_passes(executable, inputs, outputs[0])

    def _record_passes(self, executable: WebGPUExecutable, inputs: Sequence[int], output: int) -> None:
        """A plan of several passes (a split reduction) with its scratch slot."""
        scratch = self.slots.malloc(executable.scratch_bytes) if executable.scratch_bytes else None
        try:
            for i, p in enumerate(executable.passes):
                slots = [scratch if src == "scratch" else inputs[src] for src in p.inputs]
                target = scratch if p.writes_scratch else output
                self._record_pass(executable, i, slots, target)
        finally:
            if scratch is not None:
                self.slots.decref(scratch)  # the queue holds it until the submit

    def _record_pass(self, exe: WebGPUExecutable, index: int, inputs: list[int], output: int) -> None:
        # The hot path of every dispatch (a jit program's replay runs it per kernel):
        # each slot is looked up once, and the bind group by the launch and buffers.
        entries = self.slots.entries(inputs)
        sizes = tuple(e.nbytes for e in entries)
        launch = self.launch_for(exe, index, sizes)
        buffers = tuple(entries[arg].buffer for arg, _, _ in launch.inputs)
        out_buffer = self.slots.buffer(output)
        used = inputs + [output]
        for window, (_, _, immediates, grid) in enumerate(launch.outputs):
            group = self.launch_group(launch, window, out_buffer, buffers)
            self.queue.record_checked(launch.pipeline, group, grid, used, immediates)

    def launch_group(self, launch: _Launch, window: int, out_buffer: wgpu.GPUBuffer,
                     buffers: tuple) -> wgpu.GPUBindGroup:
        """The bind group of output `window` of `launch` over these buffers (its inputs
        in binding order), cached by the launch and the buffers."""
        key = (id(launch), window, out_buffer, *buffers)  # the buffers kept alive by the key
        hit = self._bind_groups.get(key)
        if hit is None:
            hit = (self._make_launch_group(launch, window, out_buffer, buffers), launch)
            # the launch is kept with its group, so that no new launch takes its id
            self._bind_groups.put(key, hit)
        return hit[0]

    def _make_launch_group(self, launch: _Launch, window: int, out_buffer: wgpu.GPUBuffer,
                          buffers: tuple) -> wgpu.GPUBindGroup:
        """A new bind group of output `window` of `launch` (uncached)."""
        offset, size = launch.outputs[window][:2]
        bindings = [(b, o, n) for b, (_, o, n) in zip(buffers, launch.inputs)]
        return self.create_bind_group(launch.layout, bindings + [(out_buffer, offset, size)])

    def launch_for(self, exe: WebGPUExecutable, index: int, sizes: tuple[int, ...]) -> _Launch:
        """The pass's `_Launch` for inputs of `sizes` bytes (cached on the executable:
        a program's kernels look it up on every call)."""
        return exe.launches.get((index, sizes)) or self._new_launch(exe, index, sizes)

    def _new_launch(self, exe: WebGPUExecutable, index: int, sizes: tuple[int, ...]) -> _Launch:
        windows = tuple(max(1, -(-n // self.window_bytes)) for n in sizes)
        options, compiled = self._pipeline_for(exe, index, windows)
        spec, kernel = compiled.spec, exe.passes[index].kernel
        out_item = self.storage_dtype(kernel.dtype).itemsize
        inputs = tuple((arg,) + self._window(sizes[arg], w) for arg, w in spec.input_bindings)
        window = options.output_window or kernel.size
        outputs = []
        for base in range(0, kernel.size, window):
            count = min(window, kernel.size - base)
            # Whole vec4s, as every binding (a vec4 store's last lanes fall in the padding).
            outputs.append((base * out_item, align16(count * out_item),
                            spec.uniform_bytes(base) if spec.uniforms else None,
                            self.grid(spec.workgroups(count))))
        for *_, grid in outputs:
            self.queue.check_grid(grid)
        launch = exe.launches[(index, sizes)] = _Launch(compiled.pipeline, compiled.layout,
                                                        inputs, tuple(outputs), spec)
        return launch

    def join_launches(self, launches: Sequence[_Launch]) -> _Pipeline | None:
        """One pipeline running the single-window `launches` side by side (merge.py),
        its spec's `grid` the workgroups of all; None where they cannot be joined."""
        spec = merge.join([launch.spec for launch in launches], [launch.outputs[0][3] for launch in launches])
        if spec is None or spec.code in self._rejected_joins:
            return None
        try:
            return self._compile(spec)
        except UnsupportedError:  # a joined shader the adapter rejects: run the parts
            self._rejected_joins.add(spec.code)  # and do not compile it again for the next program
            return None

    def binding_window(self, nbytes: int) -> tuple[int, int]:
        """(offset, size) binding the whole of a buffer of `nbytes` bytes (which fits one
        binding)."""
        return self._window(nbytes, 0)

    def _window(self, nbytes: int, w: int) -> tuple[int, int]:
        """(offset, size) of window `w` of an input of `nbytes` bytes, in whole vec4s
        (`buffers.align16`: storage is padded so)."""
        offset = w * self.window_bytes
        return (offset, max(16, min(self.window_bytes, align16(nbytes) - offset)))

    def bind_group(self, layout, bindings: list[tuple]) -> wgpu.GPUBindGroup:
        # Keyed by object identities; the cached value keeps those objects alive, so
        # an id cannot be reused by another buffer while its entry exists.
        key = (id(layout),) + tuple((id(b), o, s) for b, o, s in bindings)
        hit = self._bind_groups.get(key)
        if hit is not None:
            return hit[0]
        group = self.create_bind_group(layout, bindings)
        self._bind_groups.put(key, (group, layout, [b for b, _, _ in bindings]))
        return group

    def create_bind_group(self, layout, bindings: list[tuple]) -> wgpu.GPUBindGroup:
        """A new bind group of `layout` binding (buffer, offset, size) in turn (uncached)."""
        entries = [{"binding": i, "resource": {"buffer": b, "offset": o, "size": s}}
                   for i, (b, o, s) in enumerate(bindings)]
        return self.device.device.create_bind_group(layout=layout, entries=entries)

    def grid(self, workgroups: int) -> tuple[int, int, int]:
        """Fold a 1-D count of workgroups into (x, y, 1) within the per-dimension limit."""
        limit = self.device.max_workgroups_per_dim
        if workgroups <= limit:
            return (workgroups, 1, 1)
        y = -(-workgroups // limit)
        x = -(-workgroups // y)
        return (x, y, 1)


def _align4(n: int) -> int:
    return max(4, (n + 3) // 4 * 4)


@functools.cache
def get_webgpu_backend() -> WebGPUBackend:
    """The process-wide WebGPU backend on the default device.

    >>> get_webgpu_backend() is get_webgpu_backend()
    True
    """
    return WebGPUBackend()


def reset_webgpu_backend() -> None:
    """Forget the process-wide backend and its device, so that the next
    `get_webgpu_backend()` opens a new device (after the old one was lost). The old
    backend lives on, unshared, while arrays and programs hold it.

    >>> old = get_webgpu_backend()  # doctest: +SKIP
    >>> reset_webgpu_backend()  # doctest: +SKIP
    >>> get_webgpu_backend().device is old.device  # doctest: +SKIP
    False
    """
    get_webgpu_backend.cache_clear()
    get_device.cache_clear()
