"""The backend interface, and the registry that hands out backend instances.

A backend owns device memory and runs kernels. Memory is a set of refcounted
*slots* (small integer handles): `malloc` makes one with a single reference,
`incref`/`decref` move the count, and at zero the memory is released (to a pool,
on WebGPU). `prepare` compiles a `Kernel` into an executable once; `dispatch` runs
it on input slots into output slots, possibly queued; `read` returns bytes after
all queued work that writes them; `synchronize` waits for everything.

Slots hold raw bytes in the backend's *storage dtype* (`storage_dtype`): WebGPU
stores bool as 32-bit integers, the CPU backend as NumPy does. `upload` and
`download` convert NumPy arrays to and from that layout.

Threads may share a backend: each holds one re-entrant `lock` around its slot
bookkeeping and its device work, and callers may hold it across several calls to
make them one step (a jit program's replay does).

>>> import numpy as np
>>> from jaxwg.core import alu, dtypes as dt
>>> from jaxwg.core.kernel import Kernel
>>> be = get_backend("cpu")
>>> x = be.upload(np.arange(4, dtype=np.float32))
>>> out = be.malloc(16)
>>> k = Kernel(1, 4, alu.load(0, dt.float32, alu.gidx(4)) * 2.0)
>>> be.dispatch(be.prepare(k), [x], [out])
>>> be.download(out, dt.float32, 4)
array([0., 2., 4., 6.], dtype=float32)
>>> be.decref(x); be.decref(out)
"""

from __future__ import annotations

import abc
import os
import threading
from collections.abc import Sequence

import numpy as np

from ..core import dtypes as dt
from ..core.kernel import Kernel


class UnsupportedDtypeError(TypeError):
    """A dtype the device cannot compute with (e.g. float16 without `shader-f16`)."""


class ResourceExhaustedError(RuntimeError):
    """The device has no memory left for an allocation. JAX raises its XlaRuntimeError (a
    RuntimeError) with a message that starts the same way, so code catching either
    catches this.

    >>> issubclass(ResourceExhaustedError, RuntimeError)
    True
    """


class DeviceLostError(RuntimeError):
    """The device a backend runs on was lost (driver reset, GPU removed, or destroyed):
    nothing on it can be used again; `jaxwg.clear_backends()` opens a new one.

    >>> issubclass(DeviceLostError, RuntimeError)
    True
    """


class Backend(abc.ABC):
    """What every backend provides; see the module docstring."""

    name: str

    def __init__(self):
        self.lock = threading.RLock()

    @abc.abstractmethod
    def malloc(self, nbytes: int, data=None) -> int:
        """A new slot of `nbytes` bytes, one reference, filled with `data` if given."""

    @abc.abstractmethod
    def incref(self, slot: int) -> None: ...

    @abc.abstractmethod
    def decref(self, slot: int) -> None: ...

    @abc.abstractmethod
    def read(self, slot: int, start: int = 0, count: int | None = None) -> bytes:
        """`count` bytes of the slot from byte `start` (default: to the end)."""

    @abc.abstractmethod
    def prepare(self, kernel: Kernel, *, fast_math: bool = False):
        """Compile `kernel`; the result is passed to `dispatch`. `fast_math` lets a
        backend drop the guards that keep IEEE specials (inf, NaN, -0.0) exact."""

    @abc.abstractmethod
    def dispatch(self, executable, inputs: Sequence[int], outputs: Sequence[int]) -> None:
        """Run a prepared kernel reading `inputs` and writing `outputs` (one slot)."""

    @abc.abstractmethod
    def synchronize(self) -> None:
        """Wait until all dispatched work has finished."""

    @abc.abstractmethod
    def memory_stats(self) -> dict:
        """Counters: bytes_in_use, peak_bytes_in_use, live_slots, and backend extras."""

    def replay(self, kernels, register_bytes, n_args: int, const_slots, outputs):
        """A faster way to run a jit program's fixed kernel list, or None where the
        backend has none (the program then dispatches its kernels one by one).

        `kernels` are the program's steps (`executable`, `inputs` and `output`
        registers, output `nbytes`, registers it `frees`); registers are the
        arguments, then `const_slots`, then one per kernel; `register_bytes` sizes
        them. The result's `run(arg_slots)` records the kernels and returns the slot
        of each register in `outputs` (results are new slots; arguments and
        constants come back without a new reference), or None, having recorded
        nothing, when the arguments' sizes differ from those it was made for."""
        return None

    def describe(self) -> str:
        """A one-line description of the device this backend runs on."""
        return self.name

    def environment(self) -> dict[str, str]:
        """What a bug report needs to know of the device: its description, and where the
        backend has them its optional features and limits (`print_environment_info`)."""
        return {"device": self.describe()}

    # -- timing, for the profiler -----------------------------------------------------------
    def start_timing(self) -> bool:
        """Time every dispatch on the device from now on; False where the backend
        cannot (the profiler then times each kernel on the CPU, waiting for it)."""
        return False

    def timing_label(self, label) -> None:
        """Label the dispatches that follow (what `stop_timing` reports them with)."""

    def stop_timing(self) -> list:
        """The dispatches timed since `start_timing`, in order, as objects with `label`,
        `start_ns` and `end_ns` (device clock); timing stops."""
        return []

    def supports(self, dtype: dt.DType) -> bool:
        return True

    def storage_dtype(self, dtype: dt.DType) -> np.dtype:
        """The NumPy dtype whose bytes a slot of `dtype` elements holds."""
        return dtype.np

    def check_kernel_inputs(self, executable, inputs: Sequence[int], outputs: Sequence[int]) -> None:
        kernel = executable.kernel
        if len(inputs) != kernel.nargs:
            raise ValueError(f"kernel takes {kernel.nargs} input(s), got {len(inputs)}")
        if len(outputs) != 1:
            raise ValueError(f"kernel writes one output, got {len(outputs)}")

    def upload(self, array: np.ndarray) -> int:
        """A new slot holding `array` (converted to the storage dtype)."""
        array = np.ascontiguousarray(array)
        storage = np.ascontiguousarray(array, self.storage_dtype(dt.from_numpy(array.dtype)))
        return self.malloc(storage.nbytes, storage)

    def download(self, slot: int, dtype: dt.DType, count: int) -> np.ndarray:
        """The first `count` elements of a slot of `dtype` as a NumPy array."""
        storage = self.storage_dtype(dtype)
        raw = self.read(slot, 0, count * storage.itemsize)
        return np.frombuffer(raw, storage, count).astype(dtype.np)


_FACTORIES = {}
_RESETS = {}  # name -> what forgets the caches its factory reads (register_backend's `reset`)
_INSTANCES: dict[str, Backend] = {}
_INSTANCES_LOCK = threading.Lock()  # two threads' first calls must share one instance


def register_backend(name: str, factory, reset=None) -> None:
    """Make `get_backend(name)` create a backend with `factory()` on first use.
    `reset()`, if given, is called by `clear_backends` so that the next `factory()`
    makes a new instance (e.g. on a newly opened device) instead of a cached one."""
    _FACTORIES[name] = factory
    if reset is not None:
        _RESETS[name] = reset


def backend_names() -> list[str]:
    return sorted(_FACTORIES)


def default_backend_name() -> str:
    """The backend new arrays go to: the first entry of the environment variable
    `JAXWG_PLATFORMS` (e.g. `JAXWG_PLATFORMS=cpu`), "webgpu" without one."""
    return os.environ.get("JAXWG_PLATFORMS", "webgpu").split(",")[0].strip() or "webgpu"


def get_backend(name: str | None = None) -> Backend:
    """The shared instance of a backend: "webgpu" (the default) or "cpu"
    (`default_backend_name`)."""
    if name is None:
        name = default_backend_name()
    if name not in _FACTORIES:
        raise ValueError(f"unknown backend {name!r}; available: {', '.join(backend_names())}")
    with _INSTANCES_LOCK:
        if name not in _INSTANCES:
            _INSTANCES[name] = _FACTORIES[name]()
        return _INSTANCES[name]


def clear_backends() -> None:
    """Forget every backend instance: the next `get_backend(name)` creates a new one (the
    WebGPU backend opens a new device). Instances in use stay alive, unshared, until
    what holds them (arrays, programs) lets go.

    >>> old = get_backend("cpu")  # doctest: +SKIP
    >>> clear_backends()  # doctest: +SKIP
    >>> get_backend("cpu") is old  # doctest: +SKIP
    False
    """
    with _INSTANCES_LOCK:
        for name in list(_INSTANCES):
            del _INSTANCES[name]
            if name in _RESETS:
                _RESETS[name]()
