"""Basic indexing: integers, slices (with steps, negative too), `None` and `...`.

An index becomes movement ops only: `slice` for the ranges, `rev` for negative steps,
`reshape` to drop integer-indexed axes and add `None` axes. Integer indices must be
concrete (a traced index would need a dynamic slice, which is not a primitive yet).

>>> import jaxwg.numpy as jnp
>>> x = jnp.arange(12).reshape(3, 4)
>>> x[1], x[:, ::-2].tolist(), x[None, ..., 0].shape
(Array([4, 5, 6, 7], dtype=int32), [[3, 1], [7, 5], [11, 9]], (1, 3))
"""

from __future__ import annotations

import operator

from .. import lax
from ..core.trace import Tracer
from ._util import aval_of, to_array

__all__ = ["getitem"]


def _expand_ellipsis(index: tuple, ndim: int, name: str) -> tuple:
    ellipses = [i for i, item in enumerate(index) if item is Ellipsis]
    if len(ellipses) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    used = sum(1 for item in index if item is not None and item is not Ellipsis)
    if used > ndim:
        raise IndexError(f"Too many indices: {ndim}-dimensional array of shape {name} "
                         f"indexed with {used} indices")
    fill = (slice(None),) * (ndim - used)
    if ellipses:
        k = ellipses[0]
        return index[:k] + fill + index[k + 1:]
    return index + fill


def _as_int(item):
    if isinstance(item, Tracer):
        raise TypeError("jaxwg indexing with a traced integer is not supported yet "
                        "(needs dynamic_slice); use static indices")
    if hasattr(item, "shape") and getattr(item, "ndim", 0) > 0:
        raise NotImplementedError("advanced (integer array or boolean) indexing is not "
                                  "supported yet")
    if hasattr(item, "dtype") and item.dtype.kind == "b":
        raise NotImplementedError("boolean indexing is not supported yet")
    try:
        return operator.index(item)
    except TypeError:
        raise TypeError(f"Indexer must be an integer, slice, None or Ellipsis, got "
                        f"{item!r} of type {type(item).__name__}") from None


def getitem(a, index):
    """`a[index]` for basic indices (see the module docstring).

    >>> import jaxwg.numpy as jnp
    >>> jnp.arange(5)[-2:]
    Array([3, 4], dtype=int32)
    """
    x = to_array(a)
    shape = aval_of(x).shape
    if not isinstance(index, tuple):
        index = (index,)
    index = _expand_ellipsis(index, len(shape), str(shape))
    starts, limits, strides, flips, out_shape = [], [], [], [], []
    axis = 0
    for item in index:
        if item is None:
            out_shape.append(1)
            continue
        n = shape[axis]
        if isinstance(item, slice):
            start, stop, step = item.indices(n)
            if step > 0:
                count = max(0, -(-(stop - start) // step))
                lo = start
            else:
                count = max(0, -(-(start - stop) // -step))
                lo = start + (count - 1) * step if count else 0
                flips.append(axis)
            starts.append(lo if count else 0)
            limits.append(lo + (count - 1) * abs(step) + 1 if count else 0)
            strides.append(abs(step))
            out_shape.append(count)
        else:
            i = _as_int(item)
            if not -n <= i < n:
                raise IndexError(f"index {i} is out of bounds for axis {axis} with size {n}")
            i %= n
            starts.append(i)
            limits.append(i + 1)
            strides.append(1)
        axis += 1
    if starts and (any(s != 0 for s in starts) or list(limits) != list(shape)
                   or any(s != 1 for s in strides)):
        x = lax.slice(x, starts, limits, strides if any(s != 1 for s in strides) else None)
    if flips:
        x = lax.rev(x, tuple(flips))
    return lax.reshape(x, tuple(out_shape))
