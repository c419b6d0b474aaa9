"""`pmap`: a function mapped over devices, one slice of the mapped axis per device.

jaxwg has one device per platform (`jaxwg.devices()`), so a mapped axis may have one
element (JAX on one device allows no more either); the function then runs as
`jit(vmap(fun))`, and collectives over `axis_name` (`lax.psum`, `pmean`, `pmax`, ...)
reduce over that axis as they do under `vmap`. Code written for several devices runs
unchanged on one: its per-device batch is the leading axis of size
`jaxwg.local_device_count()`.

>>> import jaxwg, jaxwg.numpy as jnp
>>> from jaxwg import lax
>>> jaxwg.pmap(lambda x: x / lax.psum(x, "i"), axis_name="i")(jnp.ones((1, 2))).tolist()
[[1.0, 1.0]]
"""

from __future__ import annotations

import functools

from ..frontend import pytree
from ..frontend.array import aval_of
from ..frontend.jit import _index_tuple, jit
from .api_extras import local_device_count
from .batching import _flat_axes, vmap

__all__ = ["pmap"]


def pmap(fun, axis_name=None, *, in_axes=0, out_axes=0, static_broadcasted_argnums=(),
         devices=None, backend=None, axis_size=None, donate_argnums=()):
    """`fun` mapped over an axis of its arguments, one slice per device (JAX's `pmap` on
    jaxwg's single device: the mapped axis may be at most `local_device_count()` long;
    see the module docstring). `static_broadcasted_argnums` are static and given to every
    slice whole; `donate_argnums` is accepted and ignored (as on JAX's CPU backend).

    >>> import jaxwg, jaxwg.numpy as jnp
    >>> jaxwg.pmap(lambda x, n: x * n, static_broadcasted_argnums=1)(jnp.ones((1, 2)), 3).tolist()
    [[3.0, 3.0]]
    """
    static = _index_tuple(static_broadcasted_argnums)
    available = len(devices) if devices is not None else local_device_count(backend)

    @functools.lru_cache(maxsize=None)
    def compiled(count: int):
        """jit(vmap(fun)) for `count` positional arguments: static ones unmapped."""
        dynamic = [i for i in range(count) if i not in static]
        if isinstance(in_axes, (int, type(None))):
            axes = [in_axes] * len(dynamic)
        elif len(in_axes) != len(dynamic):
            raise ValueError(f"pmap in_axes specification must be a tree prefix of the "
                             f"corresponding value, got specification {in_axes!r} for "
                             f"{len(dynamic)} positional arguments")
        else:
            axes = list(in_axes)
        full_axes = [None] * count
        for i, axis in zip(dynamic, axes):
            full_axes[i] = axis
        batched = vmap(fun, in_axes=tuple(full_axes), out_axes=out_axes,
                       axis_name=axis_name, axis_size=axis_size)
        return jit(batched, static_argnums=static), dynamic, tuple(axes)

    @functools.wraps(fun)
    def mapped(*args):
        run, dynamic, axes = compiled(len(args))
        leaves, tree = pytree.tree_flatten(tuple(args[i] for i in dynamic))
        shapes = [(aval_of(leaf).shape, axis) for leaf, axis in
                  zip(leaves, _flat_axes(axes, tree, "in_axes")) if axis is not None]
        # (an axis out of range is left to vmap's error)
        sizes = {shape[axis] for shape, axis in shapes if -len(shape) <= axis < len(shape)}
        size = axis_size if axis_size is not None else max(sizes, default=0)
        if size > available:  # (no size: vmap's error says what is wrong)
            raise ValueError(f"pmap: the mapped axis has {size} elements, but only "
                             f"{available} device{'s are' if available > 1 else ' is'} "
                             "available (jaxwg has one device per platform)")
        return run(*args)

    return mapped
