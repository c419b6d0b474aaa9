"""Indexing: integers, slices (with steps, negative too), `None`, `...`, scalar booleans,
and integer and boolean arrays, with NumPy's result shapes and JAX's rules for the rest.

Basic indices become movement ops only: `slice` for the ranges, `rev` for negative steps,
`reshape` to drop integer-indexed axes and add `None` axes. Slices follow Python's rules
(bounds past the ends clip, empty ranges give empty axes). As in JAX, an out-of-bounds
integer index clamps to the nearest end instead of raising (`jnp.arange(3)[5]` is 2);
indexing an axis of size 0 with an integer is an IndexError. A scalar boolean adds an
axis of size 1 (`True`) or 0 (`False`), as NumPy does.

Array indices (and traced integer scalars) become one `lax.gather` after the slices:
the arrays broadcast together, negative entries count from the end, out-of-bounds ones
clamp, and their axes go where NumPy puts them (in place if they are adjacent, else in
front). Boolean arrays must be concrete (the result's shape depends on their values;
a traced one raises `NonConcreteBooleanIndexError`, as in JAX) and become the integer
arrays of their true positions. Beside array indices, `None` and scalar booleans add an
axis of size 1 first, which `None` slices whole and a boolean indexes with an array of
length 1 (True) or 0 (False), as NumPy reads them.

>>> import jaxwg.numpy as jnp
>>> x = jnp.arange(12).reshape(3, 4)
>>> x[1], x[:, ::-2].tolist(), x[None, ..., 0].shape
(Array([4, 5, 6, 7], dtype=int32), [[3, 1], [7, 5], [11, 9]], (1, 3))
>>> x[5, -9].tolist(), x[True].shape, x[1:1].shape, x[None, jnp.array([1, 0])].shape
(8, (1, 3, 4), (0, 4), (1, 2, 4))
"""

from __future__ import annotations

import operator

import numpy as np

from .. import lax
from ..errors import NonConcreteBooleanIndexError
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
        if item.aval.dtype.is_bool:
            raise _non_concrete(item)
        return _Array(item)
    if isinstance(item, (list, tuple)):
        if whole:
            raise TypeError("Using a non-tuple sequence for multidimensional indexing is not "
                            "allowed; use `arr[array(seq)]` instead of `arr[seq]`.")
        item = np.asarray(item)
    if isinstance(item, str):
        raise TypeError(f"jaxwg does not support string indexing; got idx={item!r}")
    dtype = getattr(item, "dtype", None)
    if dtype is not None:
        dtype = np.dtype(getattr(dtype, "np", dtype))
        if getattr(item, "ndim", 0) > 0:
            if dtype.kind not in "iub":
                raise TypeError("Indexer must have integer or boolean type, got indexer with "
                                f"type {dtype.name}")
            return _Array(item)
        if dtype.kind == "b":
            return _Bool(bool(item))
        if dtype.kind not in "iu":
            raise TypeError("Indexer must have integer or boolean type, got indexer with type "
                            f"{dtype.name}")
        if not isinstance(item, np.generic):  # a 0-d array, read where it runs (as JAX)
            return _Array(item)
    try:
        return operator.index(item)
    except TypeError:
        raise TypeError(f"Indexer must have integer or boolean type, got indexer with type "
                        f"{type(item).__name__}") from None


def _non_concrete(index: Tracer) -> NonConcreteBooleanIndexError:
    return NonConcreteBooleanIndexError(
        f"Array boolean indices must be concrete; got {index.aval.str_short()} (the result's "
        "shape would depend on its values); use jnp.where instead")


class _Array:
    """An integer or boolean array index (advanced indexing)."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value


def _advanced_position(items: tuple, dims_before: dict) -> int:
    """Where NumPy puts the axis of the advanced indices (ints and scalar booleans, when a
    boolean is present): where the first one is, if they stand next to each other in the
    index as written (`None` and `...` separate them), else in front."""
    positions = [k for k, item in enumerate(items) if isinstance(item, (int, _Bool))]
    adjacent = positions[-1] - positions[0] == len(positions) - 1
    return dims_before[positions[0]] if adjacent else 0


def getitem(a, index, fill_value=None):
    """`a[index]` (see the module docstring). With a `fill_value`, integer indices count
    as arrays and out-of-bounds ones read `fill_value` instead of clamping (`.at[].get`
    with `mode="fill"`, and the coordinates of `.at[]` updates).

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
    if fill_value is not None:
        items = tuple(_Array(np.int32(i)) if isinstance(i, int) else i for i in items)
    if any(isinstance(item, _Array) for item in items):
        sliced = None if fill_value is not None else _dynamic_slice(x, items)
        return _advanced(x, items, fill_value) if sliced is None else sliced
    used = sum(1 for item in items if isinstance(item, (int, slice)))
    if used > len(shape):
        raise IndexError(f"Too many indices: array is {len(shape)}-dimensional, but {used} "
                         "were indexed")
    rest = (slice(None),) * (len(shape) - used)
    if Ellipsis not in items:
        items += (Ellipsis,)

    starts, limits, strides, flips, squeezed, new_axes = [], [], [], [], [], []
    out_shape: list[int] = []
    dims_before: dict[int, int] = {}  # item position -> output axes before it
    axis = 0
    for k, item in enumerate(items):
        dims_before[k] = len(out_shape)
        for part in rest if item is Ellipsis else (item,):
            if part is None:
                new_axes.append(len(out_shape))
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
                squeezed.append(axis)
            axis += 1

    strided = any(s != 1 for s in strides)
    if strided or starts != [0] * len(shape) or limits != list(shape):
        x = lax.slice(x, starts, limits, strides if strided else None)
    if flips:
        x = lax.rev(x, tuple(flips))
    if not any(isinstance(item, _Bool) for item in items):  # as JAX's jaxprs show it
        x = lax.squeeze(x, squeezed) if squeezed else x
        return lax.expand_dims(x, new_axes) if new_axes else x
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


def _dynamic_slice(x, items: tuple):
    """`x[items]` where the only array indices are integer scalars (traced ones), as JAX
    rewrites it: one `lax.dynamic_slice` of the window (unit steps; a step of -1 flips
    it after), squeezed where integers index and expanded where `None` stands. None
    where JAX gathers instead (other steps, scalar booleans, an integer indexing an
    axis of size 0)."""
    shape = aval_of(x).shape
    if any(isinstance(item, _Bool) for item in items):
        return None
    items, _ = _expand_ellipsis(items, len(shape))
    items += [slice(None)] * (len(shape) - sum(_reads(item) for item in items))
    starts, sizes, flips, squeezed, new_axes = [], [], [], [], []
    for item in items:
        axis = len(starts)
        if item is None:  # where it stands among the axes kept
            new_axes.append(axis - len(squeezed) + len(new_axes))
        elif isinstance(item, slice):
            if item.step not in (None, 1, -1):
                return None
            start, stop, step = item.indices(shape[axis])
            lo = start if step > 0 else stop + 1
            starts.append(lo)
            sizes.append(max(0, stop - start if step > 0 else start + 1 - lo))
            if step < 0:
                flips.append(axis)
        else:
            if isinstance(item, _Array) and aval_of(item.value).ndim or shape[axis] == 0:
                return None
            starts.append(item.value if isinstance(item, _Array) else item)
            sizes.append(1)
            squeezed.append(axis)
    if len(starts) > 1:  # dynamic_slice takes starts of one dtype
        starts = [lax.convert_element_type(s, np.int32) for s in starts]
    x = lax.dynamic_slice(x, starts, sizes)
    if flips:
        x = lax.rev(x, tuple(flips))
    if squeezed:
        x = lax.squeeze(x, tuple(squeezed))
    return lax.expand_dims(x, tuple(new_axes)) if new_axes else x


def _reads(item) -> int:
    """How many axes of the operand an index item reads (a boolean array: its rank)."""
    if isinstance(item, _Array):
        aval = aval_of(item.value)
        return aval.ndim if aval.dtype.is_bool else 1
    return 0 if item is None or item is Ellipsis or isinstance(item, _Bool) else 1


def _expand_ellipsis(items: tuple, ndim: int) -> tuple[list, list]:
    """`items` with `...` (if any) replaced by the slices of the axes nothing else reads,
    and the position in `items` each came from (for errors)."""
    used = sum(_reads(item) for item in items)
    if used > ndim:
        raise IndexError(f"Too many indices: array is {ndim}-dimensional, but {used} were indexed")
    if Ellipsis not in items:
        return list(items), list(range(len(items)))
    k = items.index(Ellipsis)
    fill = ndim - used
    return (list(items[:k]) + [slice(None)] * fill + list(items[k + 1:]),
            list(range(k)) + [k] * fill + list(range(k + 1, len(items))))


def _expand_booleans(items: list, origins: list, shape) -> list:
    """Boolean array indices replaced by the integer arrays of their true positions (their
    values must be concrete: the result's shape depends on them), axis by axis."""
    out, axis = [], 0
    for position, item in zip(origins, items):
        if isinstance(item, _Array) and aval_of(item.value).dtype.is_bool:
            if isinstance(item.value, Tracer):
                raise _non_concrete(item.value)
            mask = np.asarray(item.value)
            expected = list(shape[axis:axis + mask.ndim])
            # As JAX: an empty mask axis selects nothing from an axis of any size.
            if not all(n in (0, m) for n, m in zip(mask.shape, expected)):
                raise IndexError("boolean index did not match shape of indexed array in index "
                                 f"{position}: got {mask.shape}, expected {expected}")
            out += [_Array(np.asarray(p, np.int32)) for p in np.nonzero(mask)]
            axis += mask.ndim
        else:
            out.append(item)
            axis += _reads(item)
    return out


def _new_axes(x, items: list):
    """`x` with an axis of size 1 where each `None` or scalar boolean stands, and the items
    that read it: a whole slice for `None` (a new axis in place), an integer array of
    length 1 or 0 for a boolean (an advanced index, as NumPy takes it)."""
    shape, out = list(aval_of(x).shape), []
    for axis, item in enumerate(items):
        if item is None or isinstance(item, _Bool):
            shape.insert(axis, 1)
            item = slice(None) if item is None else _Array(np.zeros(int(item.value), np.int32))
        out.append(item)
    return lax.reshape(x, tuple(shape)), out


def _advanced(x, items: tuple, fill_value=None):
    """`x[items]` with integer arrays among the items: the slices first, then one gather
    over the array-indexed axes (NumPy's rules for where their axes go). Integers count
    as 0-d arrays here, as in NumPy. Out-of-bounds indices clamp (JAX's default), unless
    `fill_value` is given: then they read it."""
    from .. import numpy as jnp  # this module is part of jaxwg.numpy

    shape = aval_of(x).shape
    items = _expand_booleans(*_expand_ellipsis(items, len(shape)), shape)
    items += [slice(None)] * (len(shape) - sum(_reads(item) for item in items))
    x, items = _new_axes(x, items)
    x = getitem(x, tuple(item if isinstance(item, slice) else slice(None) for item in items))
    shape = aval_of(x).shape
    advanced = [k for k, item in enumerate(items) if not isinstance(item, slice)]
    arrays = jnp.broadcast_arrays(*[jnp.asarray(items[k].value if isinstance(items[k], _Array)
                                                 else items[k]) for k in advanced])
    arrays = [jnp.where(i < 0, i + shape[k], i).astype("int32") for i, k in zip(arrays, advanced)]
    batch = aval_of(arrays[0]).shape
    rest = len(shape) - len(advanced)
    adjacent = advanced[-1] - advanced[0] == len(advanced) - 1
    first = advanced[0] if adjacent else 0
    offset_dims = tuple(range(first)) + tuple(range(first + len(batch), len(batch) + rest))
    dnums = lax.GatherDimensionNumbers(offset_dims=offset_dims, collapsed_slice_dims=tuple(advanced),
                                       start_index_map=tuple(advanced))
    kept = [n for k, n in enumerate(shape) if k not in advanced]
    out_shape = (*kept[:first], *batch, *kept[first:])
    if 0 in out_shape:  # nothing to read (empty masks, zero-size axes): as JAX does
        return lax.full(out_shape, 0, aval_of(x).dtype)
    sizes = tuple(1 if k in advanced else n for k, n in enumerate(shape))
    mode = "promise_in_bounds" if fill_value is None else "fill"
    return lax.gather(x, jnp.stack(arrays, axis=-1), dnums, sizes, mode=mode, fill_value=fill_value)
