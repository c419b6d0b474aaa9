"""Devices and where arrays live: `devices`, `default_backend`, `device_put`,
`device_get`, `live_arrays`, `block_until_ready`, `clear_backends`.

>>> import jaxwg
>>> jaxwg.devices("cpu")
[CpuDevice(id=0)]
>>> import numpy as np
>>> x = jaxwg.device_put(np.ones(2), jaxwg.devices("cpu")[0])
>>> x.device
CpuDevice(id=0)
"""

from __future__ import annotations

import contextlib
import contextvars
import gc

import numpy as np

from .backend import base as backend_base
from .config import _CONFIG_HOLDERS
from .frontend.array import ArrayImpl
from .frontend.device import (Device, configured_platform, default_device, default_platform,
                               forget_devices, get_device, placed_on)
from .frontend.execute import device_of, moved_to, realize


def devices(backend: str | None = None) -> list[Device]:
    """The devices of `backend` (default: the default platform).

    >>> import jaxwg
    >>> jaxwg.devices("cpu")[0].platform
    'cpu'
    """
    return [get_device(backend or default_platform())]


def local_devices(backend: str | None = None) -> list[Device]:
    """The devices of this process (all of them: there is one host).

    >>> import jaxwg
    >>> jaxwg.local_devices("cpu")
    [CpuDevice(id=0)]
    """
    return devices(backend)


def default_backend() -> str:
    """The platform name new arrays go to: "webgpu" or "cpu" (`JAXWG_PLATFORMS`).

    >>> import jaxwg
    >>> jaxwg.default_backend() in ("webgpu", "cpu")
    True
    """
    return default_platform()


def device_count(backend: str | None = None) -> int:
    """How many devices `backend` has.

    >>> import jaxwg
    >>> jaxwg.device_count("cpu")
    1
    """
    return len(devices(backend))


def process_index(backend: str | None = None) -> int:
    """This process's index among the processes of a multi-host run: 0 (one host).

    >>> import jaxwg
    >>> jaxwg.process_index()
    0
    """
    return 0


def process_count(backend: str | None = None) -> int:
    """How many processes a multi-host run has: 1.

    >>> import jaxwg
    >>> jaxwg.process_count()
    1
    """
    return 1


class _DefaultDevice:
    """`jaxwg.default_device(device)`, as JAX's: within the block, new arrays go to `device`
    (a Device or a platform name; None leaves the default); `.value` is what was passed.
    `config.update("jax_default_device", device)` sets it outside any block.

    >>> import jaxwg, jaxwg.numpy as jnp
    >>> with jaxwg.default_device("cpu"):
    ...     jnp.ones(2).device, jaxwg.default_device.value
    (CpuDevice(id=0), 'cpu')
    >>> jaxwg.default_device.value is None
    True
    """

    _value = contextvars.ContextVar("jaxwg_default_device")
    _configured = None

    @property
    def value(self):
        return self._value.get(self._configured)

    def __call__(self, device):
        self._check(device)
        return self._within(device)

    def set_global(self, device) -> None:
        """`config.update("jax_default_device", device)`."""
        self._check(device)
        type(self)._configured = device
        configured_platform[0] = getattr(device, "platform", device)

    @staticmethod
    def _check(device) -> None:
        if device is not None and not isinstance(device, (Device, str)):
            raise ValueError("jax.default_device must be passed either a Device object (e.g. "
                             "`jax.devices('cpu')[0]`) or a platform name string like 'cpu' or "
                             f"'gpu', got: {device!r}")

    @contextlib.contextmanager
    def _within(self, device):
        token = self._value.set(device)
        try:
            if device is None:
                yield
            else:
                with placed_on(get_device(device) if isinstance(device, str) else device):
                    yield
        finally:
            self._value.reset(token)


default_device_state = _DefaultDevice()
_CONFIG_HOLDERS["jax_default_device"] = default_device_state


def _copy_to(array: ArrayImpl, device: Device) -> ArrayImpl:
    node = moved_to(array.node, device)
    return array if node is array.node else ArrayImpl(node, array.aval)


def device_put(x, device: Device | None = None, *, donate: bool = False):
    """`x` (a pytree of arrays or array-likes) placed on `device` (default device if None).

    >>> import jaxwg
    >>> jaxwg.device_put(1.0).shape
    ()
    """
    from . import numpy as jnp
    from .frontend import pytree

    target = device or default_device()
    if isinstance(target, str):
        target = get_device(target)

    def put(leaf):
        array = leaf if isinstance(leaf, ArrayImpl) else jnp.asarray(leaf, device=target)
        return _copy_to(array, target)

    return pytree.tree_map(put, x)


def live_arrays(platform: str | None = None) -> list[ArrayImpl]:
    """Every live `Array` (optionally only those on `platform`).

    >>> import jaxwg, jaxwg.numpy as jnp
    >>> x = jnp.ones(2)
    >>> any(a is x for a in jaxwg.live_arrays())
    True
    """
    found = [o for o in gc.get_objects() if isinstance(o, ArrayImpl) and not o.is_deleted()]
    if platform is None:
        return found
    return [a for a in found if a.device.platform == platform]


def clear_backends() -> None:
    """Re-initialise jaxwg's backends, as `jax.extend.backend.clear_backends()` does: the
    next operation opens a new WebGPU device and `devices()` lists new Device objects.
    This is how to go on after a `DeviceLostError`. Arrays made before keep the old
    device: using one on a lost device raises `DeviceLostError` again.

    >>> import jaxwg
    >>> jaxwg.clear_backends()  # doctest: +SKIP
    >>> import jaxwg.numpy as jnp; (jnp.ones(2) + 1).tolist()  # doctest: +SKIP
    [2.0, 2.0]
    """
    backend_base.clear_backends()
    forget_devices()


def device_get(x):
    """`x` (a pytree) with each array copied to the host as a NumPy array; other leaves
    are returned as they are.

    >>> import jaxwg, jaxwg.numpy as jnp
    >>> jaxwg.device_get({"a": jnp.arange(2), "b": [3]})
    {'a': array([0, 1], dtype=int32), 'b': [3]}
    """
    from .frontend import pytree

    block_until_ready(x)  # every array of a device computed by one schedule
    return pytree.tree_map(lambda leaf: np.asarray(leaf) if isinstance(leaf, ArrayImpl) else leaf, x)


def block_until_ready(x):
    """Wait for every array in the pytree `x`; returns `x`.

    >>> import jaxwg, jaxwg.numpy as jnp
    >>> jaxwg.block_until_ready({"a": jnp.ones(2) * 2})["a"].tolist()
    [2.0, 2.0]
    """
    from .frontend import pytree

    by_device: dict = {}  # the arrays of each device are realized by one schedule, sharing work
    for leaf in pytree.tree_leaves(x):
        if isinstance(leaf, ArrayImpl):
            by_device.setdefault(id(device_of([leaf.node])), []).append(leaf.node)
    for nodes in by_device.values():
        realize(nodes)
    for nodes in by_device.values():
        device_of(nodes).backend.synchronize()
    return x

