"""The Array API standard's namespace pieces: `__array_api_version__`,
`__array_namespace_info__`, `from_dlpack`, and the array methods the standard adds
(`__array_namespace__`, `to_device`, `__dlpack__`, `__dlpack_device__`, attached by
`array_methods`).

DLPack goes through host
memory: an array exports a NumPy copy of its value (a CPU capsule), and `from_dlpack`
reads any producer through NumPy and uploads it.

>>> import numpy as np, jaxwg.numpy as jnp
>>> jnp.__array_api_version__, jnp.ones(2).__array_namespace__() is jnp
('2023.12', True)
>>> jnp.from_dlpack(np.arange(3, dtype=np.int32))
Array([0, 1, 2], dtype=int32)
"""

from __future__ import annotations

import sys

import numpy as np

from ..frontend import aval as avals
from ..errors import ConcretizationTypeError
from ..frontend.array import ArrayImpl
from ..frontend.trace import Tracer
from ..frontend.device import Device, default_device, get_device
from .creation import asarray, place

__all__ = ["__array_api_version__", "__array_namespace_info__", "from_dlpack"]

__array_api_version__ = "2023.12"

# The standard's dtypes jaxwg has (float16 is not one of the standard's), by kind.
_KINDS = {
    "bool": ("bool",),
    "signed integer": ("int8", "int16", "int32"),
    "unsigned integer": ("uint8", "uint16", "uint32"),
    "real floating": ("float32", "float64"),
    "complex floating": ("complex64", "complex128"),
}
_KINDS["integral"] = _KINDS["signed integer"] + _KINDS["unsigned integer"]
_KINDS["numeric"] = _KINDS["integral"] + _KINDS["real floating"] + _KINDS["complex floating"]
_X64_ONLY = ("float64", "complex128")


# jaxwg's platforms (`jaxwg.frontend.device` does not list them above the backends).
_PLATFORMS = ("webgpu", "cpu")


class ArrayNamespaceInfo:
    """What `jaxwg.numpy` supports, as the Array API's inspection functions report it."""

    def capabilities(self) -> dict:
        """Boolean masks and data-dependent shapes work on concrete arrays but not under
        `jit` (as in JAX), so both are reported unsupported."""
        return {"boolean indexing": False, "data-dependent shapes": False,
                "max dimensions": None}

    def default_device(self) -> Device:
        """The device new arrays go to (`JAXWG_PLATFORMS`)."""
        return default_device()

    def devices(self) -> list[Device]:
        """The devices whose backend starts on this machine."""
        found = []
        for platform in _PLATFORMS:
            try:
                device = get_device(platform)
                device.backend
            except RuntimeError:  # e.g. no WebGPU adapter
                continue
            found.append(device)
        return found

    def default_dtypes(self, *, device=None) -> dict:
        """The dtypes creation functions pick (64-bit floats with `jax_enable_x64`;
        integers stay 32-bit)."""
        floating = np.dtype(avals.canonical_dtype("float64").np)
        complex_ = np.dtype(avals.canonical_dtype("complex128").np)
        integral = np.dtype(avals.canonical_dtype("int64").np)
        return {"real floating": floating, "complex floating": complex_, "integral": integral,
                "indexing": integral}

    def dtypes(self, *, device=None, kind=None) -> dict:
        """The standard's dtypes of `kind` (a name, a tuple of names, or None for all)."""
        if kind is None:
            names = _KINDS["bool"] + _KINDS["numeric"]
        else:
            kinds = kind if isinstance(kind, tuple) else (kind,)
            unknown = [k for k in kinds if k not in _KINDS]
            if unknown:
                raise ValueError(f"unknown dtype kind {unknown[0]!r}; expected one of "
                                 f"{sorted(_KINDS)}")
            names = tuple(n for k in kinds for n in _KINDS[k])
        if not avals.x64_enabled():
            names = tuple(n for n in names if n not in _X64_ONLY)
        return {n: np.dtype(n) for n in dict.fromkeys(names)}


def __array_namespace_info__() -> ArrayNamespaceInfo:
    """The Array API's inspection namespace: capabilities, devices and dtypes.

    >>> import jaxwg.numpy as jnp
    >>> info = jnp.__array_namespace_info__()
    >>> list(info.dtypes(kind="signed integer"))
    ['int8', 'int16', 'int32']
    """
    return ArrayNamespaceInfo()


def array_namespace(self, /, *, api_version: str | None = None):
    """`Array.__array_namespace__`: the `jaxwg.numpy` module."""
    if api_version is not None and api_version != __array_api_version__:
        raise ValueError(f"api_version={api_version!r} is not available; available versions "
                         f"are: {[__array_api_version__]}")
    return sys.modules[__package__]


def to_device(self, device, /, *, stream=None):
    """`Array.to_device`: this array on `device` (through host memory between devices);
    a traced value stays as it is, as a traced computation runs on one device."""
    if stream is not None:
        raise NotImplementedError("stream argument of array.to_device()")
    return place(self, device)


def dlpack(self, /, *, stream=None, max_version=None, dl_device=None, copy=None):
    """`Array.__dlpack__`: the capsule of a NumPy copy of the value (on the CPU)."""
    if isinstance(self, Tracer):
        raise ConcretizationTypeError(f"__dlpack__ needs a concrete array, got the traced "
                                      f"{self.aval.str_short()} (inside jit or a transformation)")
    if copy is False:
        raise BufferError("jaxwg arrays live on their device: DLPack export copies them "
                          "to host memory, which copy=False forbids")
    host = np.array(self, copy=True)
    kwargs = {"max_version": max_version} if max_version is not None else {}
    if dl_device is not None:
        kwargs["dl_device"] = dl_device
    return host.__dlpack__(stream=stream, **kwargs)


def dlpack_device(self, /) -> tuple[int, int]:
    """`Array.__dlpack_device__`: (kDLCPU, 0), where `__dlpack__` puts the copy."""
    if isinstance(self, Tracer):  # as JAX's tracers, which lack the method
        raise AttributeError(f"{type(self).__name__} object has no attribute '__dlpack_device__'")
    return (1, 0)


def from_dlpack(x, /, *, device=None, copy=None):
    """An array with the data of `x`, any object with `__dlpack__` (a NumPy array, a
    CPU tensor of another library, a jaxwg array), read through NumPy and uploaded.

    >>> import numpy as np, jaxwg.numpy as jnp
    >>> jnp.from_dlpack(np.ones((2, 2), np.float32)).shape
    (2, 2)
    """
    if not hasattr(x, "__dlpack__"):
        raise TypeError(f"from_dlpack: {type(x).__name__} has no __dlpack__ method")
    if isinstance(x, ArrayImpl):  # one of ours: no trip through host memory on its own device
        out = place(x, device)
        if copy is False and out is not x:
            raise ValueError("from_dlpack: copy=False cannot be honoured across devices")
        return out.copy() if copy else out
    if copy is False:
        raise ValueError("from_dlpack: copy=False cannot be honoured, jaxwg copies the data "
                         "to its device")
    return asarray(np.from_dlpack(x), device=device)
