"""Backends run kernels: "webgpu" (default) and "cpu" (the NumPy reference)."""

from .base import Backend, UnsupportedDtypeError, backend_names, get_backend, register_backend
from .cpu import CpuBackend


def _webgpu():
    from .webgpu.backend import get_webgpu_backend

    return get_webgpu_backend()


def _reset_webgpu():
    from .webgpu.backend import reset_webgpu_backend

    reset_webgpu_backend()


register_backend("cpu", CpuBackend)
register_backend("webgpu", _webgpu, _reset_webgpu)

__all__ = ["Backend", "CpuBackend", "UnsupportedDtypeError", "backend_names", "get_backend",
           "register_backend"]
