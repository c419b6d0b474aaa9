"""Choosing a WebGPU adapter and opening a device on it.

WebGPU separates the *adapter* (one physical or software implementation, reached
through one native API such as Vulkan or OpenGL) from the *device* (a logical
connection to an adapter, with the limits and optional features asked for when it
was opened) and its *queue* (where command buffers and buffer writes go). A machine
may offer several adapters, so jaxwg ranks them: a discrete GPU before an integrated
one before anything else (software rasterisers such as Mesa's lavapipe and llvmpipe
report the type "CPU"), and within one type Vulkan before Metal before D3D12 before
OpenGL, because Vulkan exposes the most compute features. The environment variable
`JAXWG_WEBGPU_ADAPTER` overrides the ranking with a substring of the adapter's
description. The device is opened with every limit at the adapter's maximum and
with each optional feature jaxwg can use that the adapter offers, so the code
generator can read what it may rely on from `WebGPUDevice.features` and `.limits`.

A device can be lost (a driver reset, a removed GPU, `destroy()`). wgpu-py 0.32 has no
`device.lost` promise (it only logs "The WGPU device was lost"), but every later call
fails with wgpu-core's "Parent device is lost": the backend's methods (`reports_loss`)
turn that into `DeviceLostError`, which says how to open a new device, and remember
it, so that every later call fails the same way at once.

>>> from jaxwg.backend.webgpu.device import get_device
>>> get_device().describe()  # doctest: +SKIP
'llvmpipe (LLVM 15.0.6, 256 bits) [Vulkan, CPU]'
"""

from __future__ import annotations

import functools
import os
import tempfile

import wgpu

from ..base import DeviceLostError
from . import native

ADAPTER_ENV_VAR = "JAXWG_WEBGPU_ADAPTER"


def env_switch(name: str, default: bool) -> bool:
    """An on/off choice from environment variable `name` ("1"/"on"/"true"/"yes" or
    "0"/"off"/"false"/"no"), else `default`.

    >>> env_switch("JAXWG_NO_SUCH_SWITCH", True)
    True
    """
    choice = os.environ.get(name, "").strip().lower()
    if choice in ("1", "true", "yes", "on"):
        return True
    if choice in ("0", "false", "no", "off"):
        return False
    return default


# The optional features jaxwg's kernels use, requested wherever the adapter has them.
# float64 needs "shader-int64" too: its IEEE guards read the bits as u64 (builtins.py).
# "immediates" backs `var<immediate>` scalars (DispatchQueue.record's `immediates`):
# without the feature naga rejects such a shader. The profiler stamps dispatches with
# "timestamp-query-inside-passes" (timing.py).
OPTIONAL_FEATURES = (
    "shader-f16",
    "shader-f64",
    "shader-int64",
    "timestamp-query",
    "timestamp-query-inside-passes",
    "subgroup",
    "immediates",
)

# How wgpu's messages say that the device is gone ("Parent device is lost", "Device is lost").
_LOST_MARKERS = ("device is lost", "device was lost", "device lost")

_ADAPTER_TYPE_RANK = {"DiscreteGPU": 0, "IntegratedGPU": 1}
_BACKEND_RANK = {"Vulkan": 0, "Metal": 1, "D3D12": 2, "OpenGL": 3}


def _rank_key(adapter) -> tuple[int, int]:
    info = adapter.info
    type_rank = _ADAPTER_TYPE_RANK.get(info["adapter_type"], len(_ADAPTER_TYPE_RANK))
    backend_rank = _BACKEND_RANK.get(info["backend_type"], len(_BACKEND_RANK))
    return type_rank, backend_rank


def rank_adapters(adapters) -> list:
    """Order adapters best first: discrete GPU, integrated GPU, then the rest; ties by
    backend, Vulkan > Metal > D3D12 > OpenGL. The sort is stable, so equal adapters keep
    the order the driver listed them in.

    >>> ranked = rank_adapters(wgpu.gpu.enumerate_adapters_sync())  # doctest: +SKIP
    >>> [a.info["backend_type"] for a in ranked]  # doctest: +SKIP
    ['Vulkan', 'OpenGL']
    """
    return sorted(adapters, key=_rank_key)


def adapter_label(adapter) -> str:
    """What `JAXWG_WEBGPU_ADAPTER` is matched against: "<device> <backend> <type>"."""
    info = adapter.info
    return f"{info['device']} {info['backend_type']} {info['adapter_type']}"


def select_adapter():
    """The best adapter, or the best one whose label contains `$JAXWG_WEBGPU_ADAPTER`
    (case-insensitive), e.g. `JAXWG_WEBGPU_ADAPTER=opengl`.

    Raises RuntimeError when there is no adapter at all, or when the variable matches
    none of them (the message lists the adapters there are).

    >>> select_adapter().info["backend_type"]  # doctest: +SKIP
    'Vulkan'
    """
    _give_mesa_a_runtime_dir()
    adapters = rank_adapters(wgpu.gpu.enumerate_adapters_sync())
    if not adapters:
        raise RuntimeError(
            "WebGPU found no adapter: no GPU driver and no software renderer is "
            "installed (on Linux, Mesa's lavapipe comes with mesa-vulkan-drivers)"
        )
    wanted = os.environ.get(ADAPTER_ENV_VAR, "").strip().lower()
    if not wanted:
        return adapters[0]
    for adapter in adapters:
        if wanted in adapter_label(adapter).lower():
            return adapter
    available = "; ".join(adapter_label(a) for a in adapters)
    raise RuntimeError(
        f"{ADAPTER_ENV_VAR}={wanted!r} matches no WebGPU adapter; "
        f"available: {available}"
    )


def _give_mesa_a_runtime_dir() -> None:
    """Mesa's OpenGL driver prints "error: XDG_RUNTIME_DIR is invalid or not set in the
    environment." four times when enumerating adapters without one (containers, CI,
    ssh sessions): point the variable at a private directory first."""
    current = os.environ.get("XDG_RUNTIME_DIR")
    if current and os.path.isdir(current) or not hasattr(os, "getuid"):
        return
    path = os.path.join(tempfile.gettempdir(), f"jaxwg-runtime-{os.getuid()}")
    os.makedirs(path, mode=0o700, exist_ok=True)
    os.environ["XDG_RUNTIME_DIR"] = path


class WebGPUDevice:
    """An adapter, the device opened on it with maximal limits, and its queue.

    >>> dev = WebGPUDevice()  # doctest: +SKIP
    >>> dev.is_software, dev.max_binding_bytes  # doctest: +SKIP
    (True, 134217728)
    """

    def __init__(self, adapter=None):
        self.adapter = adapter if adapter is not None else select_adapter()
        self.info = self.adapter.info
        self.features = frozenset(
            f for f in OPTIONAL_FEATURES if f in self.adapter.features
        )
        # The default limits are WebGPU's portable minimum (e.g. 128 MiB per binding
        # where the hardware allows 2 GiB); ask for all the adapter can do instead.
        self.device = self.adapter.request_device_sync(
            label="jaxwg",
            required_features=sorted(self.features),
            required_limits=dict(self.adapter.limits),
        )
        self.queue = self.device.queue
        self.limits = dict(self.device.limits)
        self.is_software = self.info["adapter_type"] == "CPU"
        waits = native.sync(self.device)
        # read_mapped(buffer, size, dest, skip): copy out of a MAP_READ buffer;
        # wait_idle(): wait for all submitted work, or None where only a mapping can wait.
        self.read_mapped, self.wait_idle = waits.read, waits.wait_idle
        self.lost: str | None = None  # why, once a wgpu error said the device is lost

    def lost_error(self) -> DeviceLostError:
        """The error every use of this device raises once it is lost."""
        return DeviceLostError(
            f"The WebGPU device {self.describe()} was lost ({self.lost}); the arrays and "
            "compiled programs on it are gone. Re-initialise jaxwg's backends with "
            "`jaxwg.clear_backends()` (the next "
            "operation opens a new device), then create the arrays again.")

    def queue_timestamp_period(self) -> float:
        """Nanoseconds per tick of this device's timestamp queries."""
        return native.timestamp_period(self.queue)

    @property
    def max_binding_bytes(self) -> int:
        """The largest range of a buffer one storage binding may cover."""
        return self.limits["max-storage-buffer-binding-size"]

    @property
    def max_buffer_bytes(self) -> int:
        return self.limits["max-buffer-size"]

    @property
    def max_workgroups_per_dim(self) -> int:
        return self.limits["max-compute-workgroups-per-dimension"]

    @property
    def max_storage_buffers(self) -> int:
        """Storage buffers one shader stage may bind."""
        return self.limits["max-storage-buffers-per-shader-stage"]

    @property
    def binding_alignment(self) -> int:
        """Storage binding offsets must be multiples of this many bytes."""
        return self.limits["min-storage-buffer-offset-alignment"]

    def describe(self) -> str:
        """E.g. "llvmpipe (LLVM 15.0.6, 256 bits) [Vulkan, CPU]"."""
        info = self.info
        return f"{info['device']} [{info['backend_type']}, {info['adapter_type']}]"

    def __repr__(self) -> str:
        return f"WebGPUDevice({self.describe()})"


def wgpu_reason(error: BaseException) -> str:
    """The last line of a wgpu error: what went wrong, without the "Caused by:" frames.

    >>> wgpu_reason(wgpu.GPUValidationError("Validation Error\\n\\nCaused by:\\n  In f\\n    Lost"))
    'Lost'
    """
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    return lines[-1] if lines else type(error).__name__


def device_lost_cause(error: BaseException | None) -> wgpu.GPUError | None:
    """The wgpu error saying the device is lost that `error` is, or was raised from
    (`__cause__`), else None.

    >>> device_lost_cause(RuntimeError("x")) is None
    True
    """
    while error is not None:
        if isinstance(error, wgpu.GPUError) and any(m in str(error).lower() for m in _LOST_MARKERS):
            return error
        error = error.__cause__
    return None


def reports_loss(method):
    """Decorate a method of an object whose `device` is a `WebGPUDevice`: once the device
    is known to be lost the method raises `DeviceLostError` at once, and a wgpu error
    saying that the device is lost becomes `DeviceLostError` (the device remembers it).

    >>> class Lost:
    ...     lost = "Parent device is lost"
    ...     def lost_error(self):
    ...         return DeviceLostError(f"lost ({self.lost})")
    >>> class User:
    ...     device = Lost()
    ...     @reports_loss
    ...     def run(self):
    ...         return 1
    >>> User().run()
    Traceback (most recent call last):
    jaxwg.backend.base.DeviceLostError: lost (Parent device is lost)
    """
    @functools.wraps(method)
    def checked(self, *args, **kwargs):
        device = self.device
        if device.lost is not None:
            raise device.lost_error()
        try:
            return method(self, *args, **kwargs)
        except DeviceLostError:
            raise
        except Exception as e:
            cause = device_lost_cause(e)
            if cause is None:
                raise
            device.lost = wgpu_reason(cause)
            raise device.lost_error() from e

    return checked


@functools.cache
def get_device() -> WebGPUDevice:
    """The process-wide default device, opened on first use.

    >>> get_device() is get_device()  # doctest: +SKIP
    True
    """
    return WebGPUDevice()
