"""Sorting: `sort` and `argsort` (stable, `descending`), `lexsort` (several keys),
`partition` and `argpartition` (JAX's order), on the device (`lax.sort`).

>>> import jaxwg.numpy as jnp
>>> jnp.argsort(jnp.array([3, 1, 2])).tolist()
[1, 2, 0]
>>> jnp.partition(jnp.array([3.0, 1.0, 2.0, 0.0]), 2).tolist()
[0.0, 1.0, 2.0, 3.0]
"""

from __future__ import annotations

import functools

import numpy as np

from .. import lax
from ..frontend.jit import jit
from ..lax.sorting import order_keys
from ._util import aval_of, canonicalize_axis, check_arraylike, ensure_arraylike, slice_axis, to_array

__all__ = ["argpartition", "argsort", "lexsort", "partition", "sort"]


def _prepare(name, a, axis, kind, order):
    if kind is not None:
        raise TypeError(f"'kind' argument to {name} is not supported. Use stable=True or "
                        "stable=False to specify sort stability.")
    if order is not None:
        raise TypeError(f"'order' argument to {name} is not supported.")
    x = ensure_arraylike(name, a)
    if axis is None:
        x = lax.reshape(x, (x.size,))
        axis = 0
    return x, canonicalize_axis(axis, x.ndim)


@functools.partial(jit, static_argnames=("axis", "kind", "order", "stable", "descending"))
def sort(a, axis=-1, *, kind=None, order=None, stable=True, descending=False):
    """`a` sorted along `axis` (flattened when None), NaNs last; `descending` reverses.

    >>> import jaxwg.numpy as jnp
    >>> jnp.sort(jnp.array([[3, 1], [0, 2]]), axis=0).tolist()
    [[0, 1], [3, 2]]
    """
    x, axis = _prepare("sort", a, axis, kind, order)
    out = lax.sort(x, dimension=axis, is_stable=stable)
    return lax.rev(out, (axis,)) if descending else out


@functools.partial(jit, static_argnames=("axis", "kind", "order", "stable", "descending"))
def argsort(a, axis=-1, *, kind=None, order=None, stable=True, descending=False):
    """Indices that sort `a` along `axis` (int32); equal elements keep their order, also
    with `descending` (as JAX).

    >>> import jaxwg.numpy as jnp
    >>> jnp.argsort(jnp.array([2, 1, 2]), descending=True).tolist()
    [0, 2, 1]
    """
    x, axis = _prepare("argsort", a, axis, kind, order)
    index = lax.broadcasted_iota(np.int32, x.shape, axis)
    if descending:
        x, index = lax.rev(x, (axis,)), lax.rev(index, (axis,))
    _, out = lax.sort_key_val(x, index, dimension=axis, is_stable=stable)
    return lax.rev(out, (axis,)) if descending else out


@functools.partial(jit, static_argnames=("axis",))
def lexsort(keys, axis=-1):
    """Indices that sort by several keys (int32): by the last key, ties by the one
    before it, and so on; entries equal in every key keep their order. `keys` is a
    sequence of same-shaped arrays, or an array whose first axis runs over the keys.

    >>> import jaxwg.numpy as jnp
    >>> jnp.lexsort((jnp.array([3, 1, 2, 0]), jnp.array([1, 0, 1, 0]))).tolist()
    [3, 1, 2, 0]
    """
    keys = tuple(keys)
    if not keys:
        raise TypeError("need sequence of keys with len > 0 in lexsort")
    check_arraylike("lexsort", *keys)
    arrays = [to_array(k) for k in keys]
    shape = aval_of(arrays[0]).shape
    if any(aval_of(k).shape != shape for k in arrays):
        raise ValueError("all keys need to be the same shape")
    if not shape:
        return lax.full((), 0, np.int32)
    axis = canonicalize_axis(axis, len(shape))
    index = lax.broadcasted_iota(np.int32, shape, axis)
    return lax.sort((*arrays[::-1], index), dimension=axis, num_keys=len(arrays))[-1]


def _partition_order(name, a, kth, axis):
    """`a`, `axis` and `kth` checked, and the order keys JAX's partitions use: top_k's
    total order (NaN last, -0.0 before 0.0)."""
    x = ensure_arraylike(name, a)
    if aval_of(x).dtype.is_bool:
        raise TypeError(f"{name} does not accept dtype bool (as JAX: it negates the values)")
    axis = canonicalize_axis(axis, aval_of(x).ndim)
    kth = canonicalize_axis(kth, aval_of(x).shape[axis])
    return x, order_keys(x, equal_zeros=False), kth, axis


def _split_at(x, k: int, axis: int):
    n = aval_of(x).shape[axis]
    return slice_axis(x, 0, k, axis), slice_axis(x, k, n, axis)


def partition(a, kth, axis=-1):
    """`a` rearranged along `axis` so that its `kth` element is where sorting would put
    it, with JAX's order around it: the smaller elements before it sorted ascending,
    the larger ones after it sorted descending.

    >>> import jaxwg.numpy as jnp
    >>> jnp.partition(jnp.array([5, 1, 4, 2, 3]), 1).tolist()
    [1, 2, 5, 4, 3]
    """
    x, keys, kth, axis = _partition_order("partition", a, kth, axis)
    *_, ordered = lax.sort((*keys, x), dimension=axis, num_keys=len(keys))
    low, high = _split_at(ordered, kth + 1, axis)
    return lax.concatenate([low, lax.rev(high, (axis,))], axis)


def argpartition(a, kth, axis=-1):
    """Indices that partition `a` along `axis` at `kth` (int32), as JAX gives them: those
    of the `kth` + 1 smallest elements in ascending order of value (ties by index),
    then the others in ascending order of index.

    >>> import jaxwg.numpy as jnp
    >>> jnp.argpartition(jnp.array([5, 1, 4, 2, 3]), 1).tolist()
    [1, 3, 0, 2, 4]
    """
    x, keys, kth, axis = _partition_order("argpartition", a, kth, axis)
    index = lax.broadcasted_iota(np.int32, aval_of(x).shape, axis)
    *_, order = lax.sort((*keys, index), dimension=axis, num_keys=len(keys))
    low, high = _split_at(order, kth + 1, axis)
    return lax.concatenate([low, lax.sort(high, dimension=axis)], axis)
