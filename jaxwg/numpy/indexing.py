"""Basic indexing: integers, slices (with steps, negative too), `None`, `...` and scalar
booleans, with NumPy's result shapes and JAX's rules for the rest.

An index becomes movement ops only: `slice` for the ranges, `rev` for negative steps,
`reshape` to drop integer-indexed axes and add `None` axes. Slices follow Python's rules
(bounds past the ends clip, empty ranges give empty axes). As in JAX, an out-of-bounds
integer index clamps to the nearest end instead of raising (`jnp.arange(3)[5]` is 2);
indexing an axis of size 0 with an integer is an IndexError. A scalar boolean adds an
axis of size 1 (`True`) or 0 (`False`), as NumPy does. Integer indices must be concrete
(a traced index would need a dynamic slice, which is not a primitive yet).

>>> import jaxwg.numpy as jnp
>>> x = jnp.arange(12).reshape(3, 4)
>>> x[1], x[:, ::-2].tolist(), x[None, ..., 0].shape
(Array([4, 5, 6, 7], dtype=int32), [[3, 1], [7, 5], [11, 9]], (1, 3))
>>> x[5, -9].tolist(), x[True].shape, x[1:1].shape
(8, (1, 3, 4), (0, 4))
"""

from __future__ import annotations

import operator

import numpy as np

from .. import lax
from ..frontend.trace import Tracer
from ._util import aval_of, to_array

__all__ = ["getitem"]


class _Bool:
    """A scalar boolean index: a new axis of size 1 (True) or 0 (False)."""

    __slots__ = ("value",)

    def __init__(self, value: bool):
        self.value = value


def _normalize(item, whole: bool):
    """One index item as None, Ellipsis, a slice, an int or a `_Bool`; TypeError or
    NotImplementedError for what basic indexing does not take."""
    if item is None or item is Ellipsis or isinstance(item, slice):
        return item
    if isinstance(item, (bool, np.bool_)):
        return _Bool(bool(item))
    if isinstance(item, Tracer) and item.aval.ndim == 0 and not item.aval.dtype.is_float:
        raise TypeError(
            "jaxwg does not support indexing with a traced scalar yet (it needs "
            "dynamic_slice); pass the index as a static argument (static_argnums) or "
            f"index with a Python int. Got a traced {item.aval.str_short()} index.")
    if isinstance(item, (list, tuple)):
        if whole:
            raise TypeError("Using a non-tuple sequence for multidimensional indexing is not "
                            "allowed; use `arr[array(seq)]` instead of `arr[seq]`.")
        raise NotImplementedError("advanced (integer array or boolean array) indexing is not "
                                  "supported yet")
    if isinstance(item, str):
        raise TypeError(f"jaxwg does not support string indexing; got idx={item!r}")
    dtype = getattr(item, "dtype", None)
    if dtype is not None:
        if getattr(item, "ndim", 0) > 0:
            raise NotImplementedError("advanced (integer array or boolean array) indexing is "
                                      "not supported yet")
        dtype = np.dtype(getattr(dtype, "np", dtype))
        if dtype.kind == "b":
            return _Bool(bool(item))
        if dtype.kind not in "iu":
            raise TypeError("Indexer must have integer or boolean type, got indexer with type "
                            f"{dtype.name}")
    try:
        return operator.index(item)
    except TypeError:
        raise TypeError(f"Indexer must have integer or boolean type, got indexer with type "
                        f"{type(item).__name__}") from None


def _advanced_position(items: tuple, dims_before: dict) -> int:
    """Where NumPy puts the axis of the advanced indices (ints and scalar booleans, when a
    boolean is present): where the first one is, if they stand next to each other in the
    index as written (`None` and `...` separate them), else in front."""
    positions = [k for k, item in enumerate(items) if isinstance(item, (int, _Bool))]
    adjacent = positions[-1] - positions[0] == len(positions) - 1
    return dims_before[positions[0]] if adjacent else 0


def getitem(a, index):
    """`a[index]` for basic indices (see the module docstring).

    >>> import jaxwg.numpy as jnp
    >>> jnp.arange(5)[-2:]
    Array([3, 4], dtype=int32)
    """
    x = to_array(a)
    shape = aval_of(x).shape
    whole = not isinstance(index, tuple)
    items = tuple(_normalize(item, whole) for item in ((index,) if whole else index))
    if sum(1 for item in items if item is Ellipsis) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    used = sum(1 for item in items if isinstance(item, (int, slice)))
    if used > len(shape):
        raise IndexError(f"Too many indices: array is {len(shape)}-dimensional, but {used} "
                         "were indexed")
    rest = (slice(None),) * (len(shape) - used)
    if Ellipsis not in items:
        items += (Ellipsis,)

    starts, limits, strides, flips = [], [], [], []
    out_shape: list[int] = []
    dims_before: dict[int, int] = {}  # item position -> output axes before it
    axis = 0
    for k, item in enumerate(items):
        dims_before[k] = len(out_shape)
        for part in rest if item is Ellipsis else (item,):
            if part is None:
                out_shape.append(1)
                continue
            if isinstance(part, _Bool):
                continue
            n = shape[axis]
            if isinstance(part, slice):
                start, stop, step = part.indices(n)
                count = len(range(start, stop, step))
                # The bounds JAX's jaxprs show: [start, stop) forwards; backwards, the
                # last element read up to `start`, then a flip.
                if count == 0:
                    lo = hi = 0
                elif step > 0:
                    lo, hi = start, stop
                else:
                    lo, hi = start + (count - 1) * step, start + 1
                    if count > 1:
                        flips.append(axis)
                starts.append(lo)
                limits.append(hi)
                strides.append(abs(step) if count else 1)
                out_shape.append(count)
            else:
                if n == 0:
                    raise IndexError(f"index is out of bounds for axis {axis} with size 0")
                i = part + n if part < 0 else part
                i = min(max(i, 0), n - 1)  # out-of-bounds integers clamp, as in JAX
                starts.append(i)
                limits.append(i + 1)
                strides.append(1)
            axis += 1

    strided = any(s != 1 for s in strides)
    if strided or starts != [0] * len(shape) or limits != list(shape):
        x = lax.slice(x, starts, limits, strides if strided else None)
    if flips:
        x = lax.rev(x, tuple(flips))
    if not any(isinstance(item, _Bool) for item in items):
        return lax.reshape(x, tuple(out_shape))
    # With a scalar boolean, NumPy treats the integers as advanced indices too: they and the
    # booleans give one axis, of size 0 if any boolean is False, else 1.
    position = _advanced_position(items, dims_before)
    out_shape.insert(position, 1)
    x = lax.reshape(x, tuple(out_shape))
    if any(isinstance(item, _Bool) and not item.value for item in items):
        limits = list(out_shape)
        limits[position] = 0
        x = lax.slice(x, [0] * len(out_shape), limits)
    return x
