"""Indexing: integers, slices (with steps, negative too), `None`, `...`, booleans, and
integer and boolean arrays, with NumPy's result shapes and JAX's rules for the rest,
rewritten into primitives as JAX's `rewriting_take` rewrites them (so jaxprs print as
JAX's).

An index is first parsed (`_parse`, JAX's `NDIndexer`): each item gets a kind and the
operand axes it reads. Then the first of three ways that takes it computes `x[index]`:

1. `_static_slice`: static integers and slices, `None` and `...` become `slice`, `rev`,
   `squeeze` and `expand_dims`. As in JAX, an out-of-bounds integer index clamps to the
   nearest end instead of raising (`jnp.arange(3)[5]` is 2; JAX reads that one through
   `dynamic_slice`, as the next way does).
2. `_dynamic_slice`: integer scalars (traced ones too) among slices of steps 1 and -1
   become one `dynamic_slice` (each start clamped so the window fits), then `rev`,
   `squeeze` and `expand_dims`.
3. `_gather`: anything else (integer arrays, boolean arrays, scalar booleans, other
   steps beside traced integers, `.at[].get(mode="fill")`) becomes one `gather`
   (`_index_to_gather`, JAX's `_index_to_gather`): the index arrays broadcast together
   and count negative entries from the end (a `select_n`), and their axes go where
   NumPy puts them (in place if they are adjacent, else in front); slices become
   windows of the gather (or, with steps, index arrays of their own). Out-of-bounds
   entries clamp, or read `fill_value` under `mode="fill"`. Boolean arrays must be
   concrete (the result's shape depends on their values; a traced one raises
   `NonConcreteBooleanIndexError`, as in JAX) and become the integer arrays of their
   true positions; a scalar boolean adds an axis of size 1 that an index array of
   length 1 (True) or 0 (False) reads. `.at[]` updates scatter through the same
   gather description (`updates.py`).

Where a scalar boolean stands after `None`, or beside integers that it separates, JAX
0.10 reads the wrong axes; here NumPy's rules hold (the boolean counts as an advanced
index, and its axis is inserted among the operand's axes).

>>> import jaxwg.numpy as jnp
>>> x = jnp.arange(12).reshape(3, 4)
>>> x[1], x[:, ::-2].tolist(), x[None, ..., 0].shape
(Array([4, 5, 6, 7], dtype=int32), [[3, 1], [7, 5], [11, 9]], (1, 3))
>>> x[5, -9].tolist(), x[True].shape, x[1:1].shape, x[None, jnp.array([1, 0])].shape
(8, (1, 3, 4), (0, 4), (1, 2, 4))
"""

from __future__ import annotations

import enum
import operator
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from .. import lax
from ..core import dtypes as dt
from ..errors import ConcretizationTypeError, NonConcreteBooleanIndexError
from ..frontend.gather import GatherScatterMode
from ..frontend.trace import Tracer
from . import ufuncs
from ._util import aval_of, broadcast_shapes, broadcast_to_shape, is_array, to_array

__all__ = ["getitem"]


# -- parsing: JAX's NDIndexer ----------------------------------------------------------------


class _Kind(enum.Enum):
    """What an index item is (JAX's `IndexType`)."""

    NONE = "none"
    SLICE = "slice"
    ELLIPSIS = "ellipsis"
    INTEGER = "integer"  # a static Python or NumPy integer
    BOOLEAN = "boolean"  # a boolean scalar or array
    ARRAY = "array"  # an integer array (a 0-d or traced scalar too)


class _Item(NamedTuple):
    """One parsed index item: the index, its kind and the operand axes it reads."""

    index: object
    kind: _Kind
    axes: tuple[int, ...]


def _dtype(item) -> np.dtype | None:
    """The NumPy dtype of an array-like index item, None for others."""
    dtype = getattr(item, "dtype", None)
    return None if dtype is None else np.dtype(getattr(dtype, "np", dtype))


def _kind(item) -> _Kind:
    """JAX's `IndexType.from_index`, with its TypeErrors and IndexErrors."""
    if item is None:
        return _Kind.NONE
    if item is Ellipsis:
        return _Kind.ELLIPSIS
    if isinstance(item, slice):
        return _Kind.SLICE
    if isinstance(item, (bool, np.bool_)):
        return _Kind.BOOLEAN
    if isinstance(item, (int, np.integer)):
        return _Kind.INTEGER
    if is_array(item) or isinstance(item, np.ndarray):
        dtype = _dtype(item)
        if dtype.kind == "b":
            return _Kind.BOOLEAN
        if dtype.kind in "iu":
            return _Kind.ARRAY
        raise TypeError(f"Indexer must have integer or boolean type, got indexer with type {dtype.name}")
    if isinstance(item, str):
        raise TypeError(f"jaxwg does not support string indexing; got idx={item!r}")
    if isinstance(item, Sequence):  # static: `_parse` made the others arrays
        return _kind(np.asarray(item)) if item else _Kind.ARRAY  # an empty one: integers
    if isinstance(item, (float, complex, np.generic)):
        raise TypeError("Indexer must have integer or boolean type, got indexer with type "
                        f"{np.dtype(type(item)).name}")
    raise IndexError("only integers, slices (`:`), ellipsis (`...`), newaxis (`None`) and integer "
                     f"or boolean arrays are valid indices. Got {item}")


def _static(sequence) -> bool:
    """Whether a (nested) sequence holds only Python and NumPy scalars and arrays."""
    return all(_static(e) if isinstance(e, (list, tuple)) else not is_array(e) for e in sequence)


def _ndim(item) -> int:
    return aval_of(item).ndim if is_array(item) else np.ndim(item)


def _sequence_message(index) -> str:
    """JAX's TypeError for a list (or other non-tuple sequence) as the whole index."""
    unpack = any((is_array(i) or isinstance(i, np.ndarray)) and _ndim(i) != 0
                 or isinstance(i, (Sequence, slice)) or i is Ellipsis or i is None for i in index)
    use = "arr[tuple(seq)]" if unpack else "arr[array(seq)]"
    return ("Using a non-tuple sequence for multidimensional indexing is not allowed; use "
            f"`{use}` instead of `arr[seq]`. See https://github.com/jax-ml/jax/issues/4564 "
            "for more information.")


def _parse(index, shape) -> list[_Item]:
    """`index` as items of `shape`'s axes (JAX's `NDIndexer.from_raw_indices`): one item
    per entry, each reading one axis (a boolean array: its rank; `None`, `...`'s share
    aside: none)."""
    if not isinstance(index, tuple):
        if isinstance(index, Sequence) and not isinstance(index, str):
            raise TypeError(_sequence_message(index))
        index = (index,)
    index = tuple(to_array(i) if isinstance(i, list | tuple) and not _static(i) else i for i in index)
    kinds = [_kind(item) for item in index]
    reads = [_ndim(item) if kind is _Kind.BOOLEAN else 0 if kind in (_Kind.NONE, _Kind.ELLIPSIS) else 1
             for item, kind in zip(index, kinds)]
    if kinds.count(_Kind.ELLIPSIS) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    if sum(reads) > len(shape):
        raise IndexError(f"Too many indices: array is {len(shape)}-dimensional, but {sum(reads)} "
                         "were indexed")
    if _Kind.ELLIPSIS in kinds:
        reads[kinds.index(_Kind.ELLIPSIS)] = len(shape) - sum(reads)
    items, axis = [], 0
    for item, kind, n in zip(index, kinds, reads):
        items.append(_Item(item, kind, tuple(range(axis, axis + n))))
        axis += n
    return items


def _expand_ellipsis(items: list[_Item], ndim: int) -> list[_Item]:
    """`items` with `...` and the implicit trailing axes as whole slices, one per axis."""
    out = []
    for item in items:
        if item.kind is _Kind.ELLIPSIS:
            out += [_Item(slice(None), _Kind.SLICE, (axis,)) for axis in item.axes]
        else:
            out.append(item)
    read = sum(len(item.axes) for item in items)
    return out + [_Item(slice(None), _Kind.SLICE, (axis,)) for axis in range(read, ndim)]


def _check_slices(items: list[_Item]) -> None:
    """Slice bounds and steps must be static (JAX's `validate_slices`)."""
    for position, item in enumerate(items):
        if item.kind is _Kind.SLICE and any(isinstance(v, Tracer) for v in
                                           (item.index.start, item.index.stop, item.index.step)):
            raise IndexError(f"Slice entries must be static integers. Got {item.index} at position "
                             f"{position}")


def _size_zero(axis: int) -> IndexError:
    return IndexError(f"index is out of bounds for axis {axis} with size 0")


# -- the three ways: JAX's rewriting_take ----------------------------------------------------


def getitem(a, index):
    """`a[index]` (see the module docstring).

    >>> import jaxwg.numpy as jnp
    >>> jnp.arange(5)[-2:]
    Array([3, 4], dtype=int32)
    """
    return rewriting_take(a, index)


def rewriting_take(a, index, *, indices_are_sorted=False, unique_indices=False, mode=None,
                   fill_value=None, normalize_indices=True):
    """`a[index]` as JAX's `rewriting_take` computes it: a static slice, else a dynamic
    slice, else a gather (see the module docstring). `mode` says what out-of-bounds
    indices do ("promise_in_bounds", the default, and "clip" clamp them; "fill" reads
    `fill_value`); `normalize_indices=False` takes negative indices as they are (out of
    bounds). `.at[index].get(...)` passes its arguments here.

    >>> import jaxwg.numpy as jnp
    >>> jnp.arange(3.0).at[jnp.array([2, 5])].get(mode="fill", fill_value=-1.0).tolist()
    [2.0, -1.0]
    """
    x = to_array(a)
    items = _parse(index, aval_of(x).shape)
    _check_slices(items)
    out = _static_slice(x, items, mode, normalize_indices)
    if out is None:
        out = _dynamic_slice(x, items, mode, normalize_indices)
    if out is None:
        out = _gather(x, _expand_bool_indices(items, aval_of(x).shape), mode=mode, fill_value=fill_value,
                      indices_are_sorted=indices_are_sorted, unique_indices=unique_indices,
                      normalize_indices=normalize_indices)
    return out


def _slice_mode(mode) -> GatherScatterMode | None:
    """The mode for the slicing ways (PROMISE_IN_BOUNDS for None), or None where they
    do not apply (a mode that fills)."""
    mode = GatherScatterMode.PROMISE_IN_BOUNDS if mode is None else GatherScatterMode.from_any(mode)
    return mode if mode is not GatherScatterMode.FILL_OR_DROP else None


def _in_bounds(items: list[_Item], shape, normalize_indices: bool) -> bool:
    """Whether every static integer lies in its axis (JAX's `validate_static_indices`)."""
    for item in items:
        if item.kind is _Kind.INTEGER:
            i, n = operator.index(item.index), shape[item.axes[0]]
            if not 0 <= (i + n if normalize_indices and i < 0 else i) < n:
                return False
    return True


def _static_slice(x, items: list[_Item], mode, normalize_indices: bool):
    """`x[items]` where they are static integers, slices, `None` and `...` (JAX's
    `to_static_slice` and `_static_slice`), else None. Without `mode="clip"` an
    out-of-bounds integer leaves this to `_dynamic_slice`."""
    shape = aval_of(x).shape
    mode = _slice_mode(mode)
    static = (_Kind.INTEGER, _Kind.ELLIPSIS, _Kind.SLICE, _Kind.NONE)
    if mode is None or any(item.kind not in static for item in items):
        return None
    if mode is GatherScatterMode.PROMISE_IN_BOUNDS and not _in_bounds(items, shape, normalize_indices):
        return None
    starts, limits, strides, flips, squeezed, new_axes = [], [], [], [], [], []
    for item in _expand_ellipsis(items, len(shape)):
        if item.kind is _Kind.NONE:  # where it stands among the axes kept so far
            new_axes.append(len(starts) - len(squeezed) + len(new_axes))
            continue
        (axis,), n = item.axes, shape[item.axes[0]]
        if item.kind is _Kind.INTEGER:
            if n == 0:
                raise _size_zero(axis)
            i = int(item.index)
            i = i + n if normalize_indices and i < 0 else i
            i = min(max(i, 0), n - 1)  # out-of-bounds integers clamp, as in JAX
            starts.append(i)
            limits.append(i + 1)
            strides.append(1)
            squeezed.append(axis)
            continue
        start, stop, step = item.index.indices(n)
        if step < 0:  # the elements read, upwards, then a flip
            lo = min(n, stop + 1 + abs(start - stop - 1) % -step)
            starts.append(lo)
            limits.append(max(lo, start + 1))
            flips.append(axis)
        else:
            starts.append(start)
            limits.append(max(start, stop))
        strides.append(abs(step))
    strided = any(s != 1 for s in strides)
    if strided or starts != [0] * len(shape) or limits != list(shape):
        x = lax.slice(x, starts, limits, strides if strided else None)
    if flips:
        x = lax.rev(x, tuple(flips))
    if squeezed:
        x = lax.squeeze(x, tuple(squeezed))
    return lax.expand_dims(x, tuple(new_axes)) if new_axes else x


def _dynamic_slice(x, items: list[_Item], mode, normalize_indices: bool):
    """`x[items]` where the only arrays are integer scalars (traced ones) among slices of
    steps 1 and -1 (JAX's `to_dynamic_slice` and `_dynamic_slice`), else None: one
    `lax.dynamic_slice` of the window (a step of -1 flips it after), squeezed where
    integers index and expanded where `None` stands."""
    shape = aval_of(x).shape
    if _slice_mode(mode) is None:
        return None
    for item in items:
        if (item.kind is _Kind.BOOLEAN or item.kind is _Kind.SLICE and item.index.step not in (None, 1, -1)
                or item.kind is _Kind.ARRAY and (isinstance(item.index, Sequence) or _ndim(item.index))):
            return None
    starts, sizes, flips, squeezed, new_axes = [], [], [], [], []
    trivial = True
    for item in _expand_ellipsis(items, len(shape)):
        if item.kind is _Kind.NONE:
            new_axes.append(len(starts) - len(squeezed) + len(new_axes))
            continue
        (axis,), n = item.axes, shape[item.axes[0]]
        if item.kind in (_Kind.INTEGER, _Kind.ARRAY):
            trivial = False
            if n == 0:
                raise _size_zero(axis)
            starts.append(to_array(item.index))
            sizes.append(1)
            squeezed.append(axis)
            continue
        trivial = trivial and item.index == slice(None)
        start, stop, step = item.index.indices(n)
        lo = start if step > 0 else stop + 1
        starts.append(lo)
        sizes.append(max(0, stop - start if step > 0 else start + 1 - lo))
        if step < 0:
            flips.append(axis)
    if len(starts) > 1:  # dynamic_slice takes starts of one dtype
        starts = [lax.convert_element_type(s, dt.int32) for s in starts]
    if not trivial:
        x = lax.dynamic_slice(x, starts, sizes, allow_negative_indices=normalize_indices)
    if flips:
        x = lax.rev(x, tuple(flips))
    if squeezed:
        x = lax.squeeze(x, tuple(squeezed))
    return lax.expand_dims(x, tuple(new_axes)) if new_axes else x


# -- the gather: JAX's _index_to_gather ------------------------------------------------------


def _expand_bool_indices(items: list[_Item], shape) -> list[_Item]:
    """Boolean arrays replaced by the integer arrays of their true positions (they must
    be concrete: the result's shape depends on them); scalar booleans stay (JAX's
    `expand_bool_indices`)."""
    out = []
    for position, item in enumerate(items):
        if item.kind is not _Kind.BOOLEAN:
            out.append(item)
            continue
        if isinstance(item.index, Tracer):
            aval = item.index.aval
            raise NonConcreteBooleanIndexError(
                f"Array boolean indices must be concrete; got {aval.str_short()} (the result's "
                "shape would depend on its values); use jnp.where instead")
        mask = np.asarray(item.index)
        if mask.ndim == 0:
            out.append(_Item(bool(mask), _Kind.BOOLEAN, ()))
            continue
        expected = [shape[axis] for axis in item.axes]
        # As JAX: an empty mask axis selects nothing from an axis of any size.
        if not all(n in (0, m) for n, m in zip(mask.shape, expected)):
            raise IndexError("boolean index did not match shape of indexed array in index "
                             f"{position}: got {mask.shape}, expected {expected}")
        out += [_Item(positions.astype(np.int32), _Kind.ARRAY, (axis,))
                for positions, axis in zip(np.nonzero(mask), item.axes)]
    return out


class GatherIndexer(NamedTuple):
    """How a gather (or, transposed, a scatter) computes `x[index]` (JAX's `_GatherIndexer`)."""

    slice_shape: tuple  # the shape of `x[index]`
    gather_slice_shape: tuple  # the gather's slice_sizes
    gather_indices: object  # its start indices (int32, the index vector last)
    dnums: lax.GatherDimensionNumbers
    unique_indices: bool  # true without index arrays (which may repeat entries)
    indices_are_sorted: bool
    reversed_y_dims: tuple  # axes of the gathered result to flip (negative steps)
    newaxis_dims: tuple  # axes of `x[index]` that `None` adds (the gather does not)
    scalar_bool_dims: tuple  # axes of size 1 added to `x` first, which scalar booleans read


def _expand_scalar_bools(items: list[_Item], shape) -> tuple[list[_Item], tuple, tuple]:
    """Each scalar boolean as an axis of size 1 inserted among the operand's axes, read
    by an index array of length 1 (True) or 0 (False): (items, new shape, new axes)."""
    shape, out, inserted, axis = list(shape), [], [], 0
    for item in items:
        if item.kind is _Kind.BOOLEAN:
            shape.insert(axis, 1)
            inserted.append(axis)
            item = _Item(np.arange(int(item.index), dtype=np.int32), _Kind.ARRAY, (axis,))
        else:
            item = item._replace(axes=tuple(range(axis, axis + len(item.axes))))
        out.append(item)
        axis += len(item.axes)
    return out, tuple(shape), tuple(inserted)


def _normalize_indices(items: list[_Item], shape) -> list[_Item]:
    """Negative integers and signed index arrays counted from the end of their axis
    (JAX's `normalize_indices`: static integers while tracing, arrays by a select)."""
    out = []
    for item in items:
        index = item.index
        if item.kind is _Kind.INTEGER and not isinstance(index, np.unsignedinteger):
            index = index + shape[item.axes[0]] if index < 0 else index
        elif item.kind is _Kind.ARRAY and _dtype(index).kind != "u":
            size = np.asarray(shape[item.axes[0]], _dtype(index))
            index = lax.select(index < 0, lax.add(index, size), index)
        out.append(item._replace(index=index))
    return out


def _index_to_gather(items: list[_Item], shape, normalize_indices: bool = True) -> GatherIndexer:
    """The gather that computes `x[items]` for `x` of `shape` (JAX's `_index_to_gather`;
    boolean arrays already expanded)."""
    items = [item._replace(index=to_array(item.index)) if isinstance(item.index, Sequence)
             and item.kind is _Kind.ARRAY else item for item in items]
    # NumPy's rule (JAX leaves scalar booleans out, which moves their axis): the advanced
    # indices' axes stand in place if they are adjacent in the index as written.
    written = [k for k, item in enumerate(items) if item.kind in (_Kind.ARRAY, _Kind.INTEGER, _Kind.BOOLEAN)]
    contiguous = all(b - a == 1 for a, b in zip(written, written[1:]))
    items, shape, scalar_bool_dims = _expand_scalar_bools(_expand_ellipsis(items, len(shape)), shape)
    if normalize_indices:
        items = _normalize_indices(items, shape)

    advanced, advanced_positions, advanced_axes = [], [], []
    if any(item.kind is _Kind.ARRAY and aval_of(item.index).ndim > 0 for item in items):
        for position, item in enumerate(items):
            if item.kind in (_Kind.ARRAY, _Kind.INTEGER):
                advanced.append(to_array(item.index))
                advanced_positions.append(position)
                advanced_axes.append(item.axes[0])

    x_axis = y_axis = collapsed_y_axis = 0  # in x; in y before and after collapsing
    offset_dims, collapsed_slice_dims, start_index_map = [], [], []
    # (array, first axis) pairs, broadcast into gather_indices_shape and concatenated.
    gather_indices, gather_indices_shape = [], []
    slice_shape, newaxis_dims, reversed_y_dims, gather_slice_shape = [], [], [], []
    for position, item in enumerate(items):
        if advanced and position == (advanced_positions[0] if contiguous else 0):
            arrays = _broadcast_arrays(advanced)
            batch = aval_of(arrays[0]).shape
            first = len(gather_indices_shape)
            gather_indices += [(lax.convert_element_type(a, dt.int32), first) for a in arrays]
            gather_indices_shape += batch
            start_index_map += advanced_axes
            collapsed_slice_dims += advanced_axes
            slice_shape += batch
            y_axis += len(batch)
            collapsed_y_axis += len(batch)
        if position in advanced_positions:
            x_axis += 1
            gather_slice_shape.append(1)
            continue
        if item.kind in (_Kind.INTEGER, _Kind.ARRAY):  # an integer scalar, without index arrays
            if shape[x_axis] == 0:
                raise _size_zero(x_axis)
            gather_indices.append((lax.convert_element_type(item.index, dt.int32), len(gather_indices_shape)))
            collapsed_slice_dims.append(x_axis)
            gather_slice_shape.append(1)
            start_index_map.append(x_axis)
            x_axis += 1
        elif item.kind is _Kind.NONE:
            slice_shape.append(1)
            newaxis_dims.append(y_axis)
            y_axis += 1
        else:
            start, stop, step = item.index.indices(shape[x_axis])
            size = len(range(start, stop, step))
            slice_shape.append(size)
            if step == 1:  # a window of the gather (none where it is the whole axis)
                if size != shape[x_axis]:
                    start = lax.convert_element_type(start, dt.int32)
                    gather_indices.append((start, len(gather_indices_shape)))
                    start_index_map.append(x_axis)
                gather_slice_shape.append(size)
                offset_dims.append(collapsed_y_axis)
            else:  # an index array of its own
                indices = lax.iota(dt.int32, size)
                indices = ufuncs.add(np.int32(start), ufuncs.multiply(np.int32(step), indices))
                if step < 0:
                    reversed_y_dims.append(collapsed_y_axis)
                    indices = lax.rev(indices, (0,))
                gather_slice_shape.append(1)
                gather_indices.append((indices, len(gather_indices_shape)))
                start_index_map.append(x_axis)
                gather_indices_shape.append(size)
                collapsed_slice_dims.append(x_axis)
            collapsed_y_axis += 1
            y_axis += 1
            x_axis += 1

    if not gather_indices:
        indices = np.zeros((0,), np.int32)
    elif len(gather_indices) == 1:
        g, _ = gather_indices[0]
        indices = lax.expand_dims(g, (aval_of(g).ndim,))
    else:
        full = (*gather_indices_shape, 1)
        indices = lax.concatenate([lax.broadcast_in_dim(g, full, tuple(range(i, i + aval_of(g).ndim)))
                                   for g, i in gather_indices], len(gather_indices_shape))
    dnums = lax.GatherDimensionNumbers(offset_dims=tuple(offset_dims),
                                       collapsed_slice_dims=tuple(sorted(collapsed_slice_dims)),
                                       start_index_map=tuple(start_index_map))
    return GatherIndexer(tuple(slice_shape), tuple(gather_slice_shape), indices, dnums,
                         unique_indices=not advanced, indices_are_sorted=not advanced,
                         reversed_y_dims=tuple(reversed_y_dims), newaxis_dims=tuple(newaxis_dims),
                         scalar_bool_dims=scalar_bool_dims)


def _broadcast_arrays(arrays: list) -> list:
    """The index arrays broadcast to one shape (one `broadcast_in_dim` each that needs it)."""
    shape = broadcast_shapes(*[aval_of(a).shape for a in arrays])
    return [broadcast_to_shape(a, shape) for a in arrays]


def gather_indexer(index, shape, normalize_indices: bool = True) -> GatherIndexer:
    """The gather that computes `x[index]` for `x` of `shape`, which `.at[]` updates
    transpose into their scatter (`updates.py`)."""
    items = _parse(index, shape)
    _check_slices(items)
    return _index_to_gather(_expand_bool_indices(items, shape), shape, normalize_indices)


def _gather(x, items: list[_Item], *, mode, fill_value, indices_are_sorted, unique_indices,
            normalize_indices):
    """`x[items]` by one gather (JAX's `_gather`): the scalar booleans' axes added to `x`,
    the gather (none where nothing is read, or where every axis is read whole), the
    flips of negative steps, and `None`'s axes."""
    indexer = _index_to_gather(items, aval_of(x).shape, normalize_indices)
    if fill_value is not None:
        if isinstance(fill_value, Tracer):
            raise ConcretizationTypeError("Abstract tracer value encountered where concrete value is "
                                          "expected: fill_value argument to indexed get()")
        if np.ndim(fill_value) != 0:
            raise ValueError("fill_value argument to indexed get() must be a scalar")
        if isinstance(fill_value, np.ndarray):
            fill_value = fill_value.item()
    y = x
    if indexer.scalar_bool_dims:
        y = lax.expand_dims(y, indexer.scalar_bool_dims)
    if 0 in indexer.slice_shape:  # nothing to read: zeros(0)[array([], int32)] needs no gather
        return lax.full_like(y, 0, shape=indexer.slice_shape)
    if 0 not in aval_of(indexer.gather_indices).shape:
        y = lax.gather(y, indexer.gather_indices, indexer.dnums, indexer.gather_slice_shape,
                       unique_indices=unique_indices or indexer.unique_indices,
                       indices_are_sorted=indices_are_sorted or indexer.indices_are_sorted,
                       mode=mode, fill_value=fill_value)
    if indexer.reversed_y_dims:
        y = lax.rev(y, indexer.reversed_y_dims)
    return lax.expand_dims(y, indexer.newaxis_dims)
