"""Devices: a JAX-style handle on one backend instance.

`devices()` lists what this process can run on, `default_device()` is where new
arrays go (the first entry of `JAXWG_PLATFORMS`, default `webgpu`), and each
`Device` hands out its backend lazily, so importing jaxwg touches no GPU.

>>> d = get_device("cpu")
>>> d.platform, d.id, repr(d)
('cpu', 0, 'CpuDevice(id=0)')
"""

from __future__ import annotations

import contextlib
import contextvars

from ..backend import base as backend_base

_NAMES = {"cpu": "CpuDevice", "webgpu": "WebGPUDevice"}


class Device:
    """One device: `platform` ("webgpu" or "cpu"), `id`, and its `backend`."""

    __slots__ = ("_backend", "id", "platform")

    def __init__(self, platform: str, id: int = 0):
        self.platform = platform
        self.id = id
        self._backend = None

    @property
    def backend(self):
        if self._backend is None:
            self._backend = backend_base.get_backend(self.platform)
        return self._backend

    @property
    def name(self) -> str:
        return f"{self.platform}:{self.id}"

    @property
    def device_kind(self) -> str:
        return self.backend.describe()

    def memory_stats(self) -> dict:
        """The backend's counters: bytes_in_use, peak_bytes_in_use, live_slots, ..."""
        return self.backend.memory_stats()

    def __repr__(self) -> str:
        return f"{_NAMES.get(self.platform, 'Device')}(id={self.id})"


_DEVICES: dict[str, Device] = {}


def get_device(platform: str) -> Device:
    if platform not in backend_base.backend_names():
        raise RuntimeError(f"Unknown backend {platform!r}; available: "
                           f"{', '.join(backend_base.backend_names())}")
    # setdefault: two threads meeting a platform first must still share one Device.
    return _DEVICES.get(platform) or _DEVICES.setdefault(platform, Device(platform))


def forget_devices() -> None:
    """Drop every `Device`, so that `get_device` makes new ones on the backends that
    `get_backend` hands out next (after `clear_backends`). Arrays keep their old
    Device, and through it the backend their memory belongs to.

    >>> old = get_device("cpu")  # doctest: +SKIP
    >>> forget_devices(); get_device("cpu") is old  # doctest: +SKIP
    False
    """
    _DEVICES.clear()


# A platform that new arrays go to instead of `JAXWG_PLATFORMS`'s, within `placed_on`.
_PLATFORM = contextvars.ContextVar("jaxwg_default_platform", default=None)


# The platform `config.update("jax_default_device", ...)` chose (None: JAXWG_PLATFORMS's).
configured_platform: list[str | None] = [None]


def default_platform() -> str:
    return _PLATFORM.get() or configured_platform[0] or backend_base.default_backend_name()


@contextlib.contextmanager
def placed_on(device: Device):
    """New arrays (constants made while tracing, above all) go to `device` within.

    >>> with placed_on(get_device("cpu")):
    ...     default_device().platform
    'cpu'
    """
    token = _PLATFORM.set(device.platform)
    try:
        yield
    finally:
        _PLATFORM.reset(token)


def default_device() -> Device:
    return get_device(default_platform())
