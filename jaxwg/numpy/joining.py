"""Joining and splitting: `concatenate`, `stack` and its row-wise forms (`hstack`,
`vstack`, `dstack`, `column_stack`), `block`, `append`, `split` and `array_split`; `insert` and
`delete`.

A join is one `concatenate` primitive (lazily a CONCAT node, which fuses into the kernel
that reads it); a split is one slice (a view) per piece.
Operands are promoted to their common dtype as in JAX, or converted to `dtype`.
`insert` and `delete` with index arrays are gathers along the axis (positions found by
a binary search on the device), so they work under `jit` where JAX's do.

>>> import jaxwg.numpy as jnp
>>> jnp.stack([jnp.arange(2), jnp.arange(2)]).shape, len(jnp.split(jnp.arange(6), 3))
((2, 2), 3)
"""

from __future__ import annotations

import itertools
import operator

import numpy as np

from .. import lax
from ..core import dtypes as dt
from ..errors import ConcretizationTypeError
from ..frontend import aval as avals
from ..frontend.trace import Tracer
from ..lax.keys import moves_keys
from ._util import (
    aval_of,
    axis_index,
    broadcast_shapes,
    canonicalize_axis,
    check_arraylike,
    ensure_arraylike,
    is_array,
    promote,
    reject_out,
    slice_axis,
    static_value,
    to_array,
)
from .selection import count_at_most, take
from .manipulation import ATLEAST_DIMS, broadcast_to, moveaxis, ravel

__all__ = [
    "append",
    "array_split",
    "block",
    "column_stack",
    "concat",
    "concatenate",
    "delete",
    "dstack",
    "hstack",
    "insert",
    "split",
    "stack",
    "vstack",
]


def _is_sequence_or_array(a) -> bool:
    return is_array(a) or isinstance(a, np.ndarray)


def _convert(x, dtype):
    return x if dtype is None else lax.convert_element_type(x, avals.canonical_dtype(dtype))


def _concatenate_array(x, axis, dtype):
    """`concatenate` of the rows of one array: a transpose and a reshape."""
    x = _convert(to_array(x), dtype)
    shape = aval_of(x).shape
    if not shape or shape[0] == 0:
        raise ValueError("Need at least one array to concatenate.")
    if axis is None:
        return ravel(x)
    if len(shape) == 1:
        raise ValueError("Zero-dimensional arrays cannot be concatenated.")
    ax = axis_index(axis, len(shape) - 1)
    x = moveaxis(x, 0, ax)
    return lax.reshape(x, shape[1:ax + 1] + (shape[0] * shape[ax + 1],) + shape[ax + 2:])


@moves_keys(0)
def concatenate(arrays, axis=0, dtype=None):
    """`arrays` joined along an existing `axis` (flattened first if `axis` is None), in
    their common dtype (JAX's promotion) or `dtype`.

    >>> import jaxwg.numpy as jnp
    >>> jnp.concatenate([jnp.array([1, 2]), jnp.array([3.5])])
    Array([1. , 2. , 3.5], dtype=float32)
    >>> jnp.concatenate([jnp.ones((2, 2)), jnp.zeros((2, 1))], axis=1).shape
    (2, 3)
    """
    if _is_sequence_or_array(arrays):
        return _concatenate_array(arrays, axis, dtype)
    arrays = list(arrays)
    check_arraylike("concatenate", *arrays)
    if not arrays:
        raise ValueError("Need at least one array to concatenate.")
    xs = [to_array(a) for a in arrays]
    if axis is None:
        return concatenate([ravel(x) for x in xs], 0, dtype)
    shapes = [aval_of(x).shape for x in xs]
    nd = len(shapes[0])
    if nd == 0:
        raise ValueError("Zero-dimensional arrays cannot be concatenated.")
    ax = axis_index(axis, nd)
    if any(len(s) != nd for s in shapes):
        raise TypeError("Cannot concatenate arrays with different numbers of dimensions: got "
                        f"{', '.join(map(str, shapes))}.")
    if any(s[:ax] + s[ax + 1:] != shapes[0][:ax] + shapes[0][ax + 1:] for s in shapes):
        raise TypeError("Cannot concatenate arrays with shapes that differ in dimensions other "
                        f"than the one being concatenated: concatenating along dimension {ax} "
                        f"for shapes {', '.join(map(str, shapes))}.")
    xs = promote(*xs) if dtype is None else [_convert(x, dtype) for x in xs]
    return lax.concatenate(xs, ax)


def concat(arrays, /, *, axis=0):
    """Array API name of `concatenate`.

    >>> import jaxwg.numpy as jnp
    >>> jnp.concat([jnp.zeros(2), jnp.ones(1)]).tolist()
    [0.0, 0.0, 1.0]
    """
    return concatenate(arrays, axis)


@moves_keys(0)
def stack(arrays, axis=0, out=None, dtype=None):
    """`arrays` (all of one shape) joined along a new `axis`.

    >>> import jaxwg.numpy as jnp
    >>> jnp.stack([jnp.arange(3), jnp.arange(3)], axis=1).shape
    (3, 2)
    """
    reject_out("stack", out)
    if _is_sequence_or_array(arrays):
        x = _convert(to_array(arrays), dtype)
        shape = aval_of(x).shape
        if not shape or shape[0] == 0:
            raise ValueError("Need at least one array to stack.")
        return moveaxis(x, 0, axis_index(axis, len(shape)))
    arrays = list(arrays)
    if not arrays:
        raise ValueError("Need at least one array to stack.")
    check_arraylike("stack", *arrays)
    xs = [to_array(a) for a in arrays]
    shapes = [aval_of(x).shape for x in xs]
    if len(set(shapes)) > 1:
        raise ValueError("All input arrays must have the same shape. Got "
                         f"{', '.join(map(str, shapes))}.")
    xs = promote(*xs) if dtype is None else [_convert(x, dtype) for x in xs]
    return lax.stack(xs, axis_index(axis, len(shapes[0]) + 1))


def _stack_rows(name: str, tup, row_dims: dict, axis_of, dtype):
    """Shared by hstack/vstack/dstack/column_stack: reshape each operand (each row of an
    array) by inserting `row_dims[ndim]`, then concatenate along `axis_of(ndim)`."""
    if _is_sequence_or_array(tup):
        x = to_array(tup)
        shape = aval_of(x).shape
        if not shape or shape[0] == 0:
            raise ValueError("Need at least one array to concatenate.")
        dims = row_dims.get(len(shape) - 1, ())
        x = lax.expand_dims(x, tuple(d + 1 for d in dims)) if dims else x
        return _concatenate_array(x, axis_of(len(shape) - 1 + len(dims)), dtype)
    tup = list(tup)
    check_arraylike(name, *tup)
    if not tup:
        raise ValueError("Need at least one array to concatenate.")
    xs = []
    for a in tup:
        x = to_array(a)
        dims = row_dims.get(aval_of(x).ndim, ())
        xs.append(lax.expand_dims(x, dims) if dims else x)
    return concatenate(xs, axis_of(aval_of(xs[0]).ndim), dtype)


def hstack(tup, dtype=None):
    """Operands joined along axis 1 (axis 0 for 1-d operands; scalars become 1-d).

    >>> import jaxwg.numpy as jnp
    >>> jnp.hstack([jnp.arange(2), jnp.arange(3)]).tolist()
    [0, 1, 0, 1, 2]
    """
    return _stack_rows("hstack", tup, ATLEAST_DIMS[1], lambda nd: 0 if nd == 1 else 1, dtype)


def vstack(tup, dtype=None):
    """Operands (at least 2-d: `(n,)` becomes `(1, n)`) joined along axis 0.

    >>> import jaxwg.numpy as jnp
    >>> jnp.vstack([jnp.arange(3), jnp.arange(3)]).shape
    (2, 3)
    """
    return _stack_rows("vstack", tup, ATLEAST_DIMS[2], lambda nd: 0, dtype)


def dstack(tup, dtype=None):
    """Operands (at least 3-d, as `atleast_3d`) joined along axis 2.

    >>> import jaxwg.numpy as jnp
    >>> jnp.dstack([jnp.ones((2, 3)), jnp.zeros((2, 3))]).shape
    (2, 3, 2)
    """
    return _stack_rows("dstack", tup, ATLEAST_DIMS[3], lambda nd: 2, dtype)


def column_stack(tup):
    """Operands as columns: 1-d ones become `(n, 1)`, then joined along axis 1.

    >>> import jaxwg.numpy as jnp
    >>> jnp.column_stack([jnp.arange(3), jnp.arange(3)]).shape
    (3, 2)
    """
    return _stack_rows("column_stack", tup, {0: (0, 1), 1: (1,)}, lambda nd: 1, None)


def block(arrays):
    """An array assembled from nested lists of blocks: the innermost lists join along the
    last axis, the next ones out along the one before, and so on (blocks gain leading
    axes of size 1 to the depth of nesting or the largest rank).

    >>> import jaxwg.numpy as jnp
    >>> jnp.block([[jnp.ones((2, 2)), jnp.zeros((2, 1))], [jnp.full((1, 3), 2.0)]])
    Array([[1., 1., 0.],
           [1., 1., 0.],
           [2., 2., 2.]], dtype=float32)
    """
    return _block(arrays)[0]


def _block(xs):
    """`block` of `xs` and the depth of its list nesting (1 for a leaf), as JAX's."""
    if isinstance(xs, tuple):
        raise ValueError(f"jax.numpy.block does not allow tuples, got {xs}")
    if not isinstance(xs, list):
        return to_array(xs), 1
    if not xs:
        raise ValueError("jax.numpy.block does not allow empty list arguments")
    parts, depths = zip(*[_block(x) for x in xs])
    if any(d != depths[0] for d in depths[1:]):
        raise ValueError("Mismatched list depths in jax.numpy.block")
    rank = max(depths[0], *(aval_of(p).ndim for p in parts))
    parts = [lax.reshape(p, (1,) * (rank - aval_of(p).ndim) + aval_of(p).shape) for p in parts]
    return concatenate(parts, axis=-depths[0]), depths[0] + 1


# -- splitting -------------------------------------------------------------------------------


# Sections past an axis's length are empty arrays: a list of more than this many (say
# 2**31, which NumPy and JAX try to build until memory runs out) is refused.
MAX_EMPTY_PIECES = 1 << 16


def _split(name: str, ary, indices_or_sections, axis):
    x = ensure_arraylike(name, ary)
    shape = aval_of(x).shape
    ax = axis_index(axis, len(shape))
    n = shape[ax]
    what = f"jaxwg.numpy.{name} argument indices_or_sections"
    sections = static_value(indices_or_sections, what)
    if sections.ndim > 0 or isinstance(indices_or_sections, (list, tuple)):
        if sections.size and sections.dtype.kind not in "iu":
            raise TypeError(f"{name}: split indices must be integers, got {indices_or_sections!r}")
        # Python slice semantics between consecutive indices, as NumPy: negative indices
        # count from the end, indices past the end clip, and decreasing ones give empty pieces.
        bounds = [0, *(int(i) for i in sections.ravel()), n]
        ranges = []
        for lo, hi in itertools.pairwise(bounds):
            lo, hi, _ = slice(lo, hi).indices(n)
            ranges.append((lo, max(lo, hi)))
    else:
        if sections.dtype.kind not in "iu":
            raise TypeError(f"{name}: the number of sections must be an integer, got "
                            f"{indices_or_sections!r}")
        count = int(sections)
        if count <= 0:
            raise ValueError("number sections must be larger than 0.")
        each, extra = divmod(n, count)
        if extra and name == "split":
            raise ValueError(f"array split does not result in an equal division: rest is {extra}")
        if count - n > MAX_EMPTY_PIECES:
            raise ValueError(f"{name}: {count} sections of an axis of size {n} would make {count - n} "
                             f"empty arrays; jaxwg makes at most {MAX_EMPTY_PIECES}")
        sizes = [each + 1] * extra + [each] * (count - extra)
        starts = itertools.accumulate(sizes, initial=0)
        ranges = [(s, s + size) for s, size in zip(starts, sizes)]
    if all(a[1] == b[0] for a, b in itertools.pairwise([(0, 0), *ranges, (n, n)])):
        return lax.split(x, [hi - lo for lo, hi in ranges], ax)  # pieces that tile the axis, as JAX
    return [slice_axis(x, lo, hi, ax) for lo, hi in ranges]


@moves_keys(0)
def split(ary, indices_or_sections, axis=0):
    """`ary` cut along `axis` into equal sections (an int, which must divide the axis) or
    at the given indices (a sequence).

    >>> import jaxwg.numpy as jnp
    >>> [p.tolist() for p in jnp.split(jnp.arange(6), 3)]
    [[0, 1], [2, 3], [4, 5]]
    >>> [p.tolist() for p in jnp.split(jnp.arange(6), [1, 4])]
    [[0], [1, 2, 3], [4, 5]]
    """
    return _split("split", ary, indices_or_sections, axis)


@moves_keys(0)
def array_split(ary, indices_or_sections, axis=0):
    """`split` that allows sections of unequal size: the first `size % n` are one longer.

    >>> import jaxwg.numpy as jnp
    >>> [p.tolist() for p in jnp.array_split(jnp.arange(5), 3)]
    [[0, 1], [2, 3], [4]]
    """
    return _split("array_split", ary, indices_or_sections, axis)


# -- inserting and deleting ------------------------------------------------------------------


def append(arr, values, axis=None):
    """`values` joined to the end of `arr` along `axis` (both flattened if None).

    >>> import jaxwg.numpy as jnp
    >>> jnp.append(jnp.array([[1, 2]]), jnp.array([3])).tolist()
    [1, 2, 3]
    """
    check_arraylike("append", arr, values)
    if axis is None:
        return concatenate([ravel(arr), ravel(values)], 0)
    return concatenate([arr, values], axis=axis)


def delete(arr, obj, axis=None, *, assume_unique_indices=False):
    """`arr` without the entries `obj` along `axis` (of the flattened `arr` if None):
    an integer, a slice, a boolean mask or an array of indices. An index array must be
    concrete (repeats count once), unless `assume_unique_indices` promises it has no
    repeats: then it may be traced.

    >>> import jaxwg.numpy as jnp
    >>> x = jnp.arange(6).reshape(2, 3)
    >>> jnp.delete(x, 1, axis=1).tolist(), jnp.delete(x, slice(None, None, 2)).tolist()
    ([[0, 2], [3, 5]], [1, 3, 5])
    """
    check_arraylike("delete", arr)
    x = to_array(arr)
    if axis is None:
        x, axis = ravel(x), 0
    axis = canonicalize_axis(axis, aval_of(x).ndim)
    n = aval_of(x).shape[axis]
    try:
        index = operator.index(obj)
    except TypeError:
        pass
    else:
        index = canonicalize_axis(index, n)
        return concatenate([slice_axis(x, 0, index, axis), slice_axis(x, index + 1, n, axis)], axis)
    if not isinstance(obj, slice):
        check_arraylike("delete", x, obj)
        if assume_unique_indices and aval_of(to_array(obj)).dtype.is_int:
            return take(x, _kept_positions(ravel(obj), n), axis=axis, mode="clip")
        if isinstance(obj, Tracer):
            raise ConcretizationTypeError(
                "jnp.delete: the 'obj' array argument must be concrete (the result's shape depends "
                "on its values) unless assume_unique_indices=True.")
    kept = np.ones(n, bool)
    if isinstance(obj, slice):
        kept[obj] = False
    else:
        obj = np.asarray(obj)
        if obj.dtype.kind in "iu":
            kept[obj] = False
        elif obj.dtype == bool:
            if obj.shape != (n,):
                raise ValueError("np.delete(arr, obj): for boolean indices, obj must be "
                                 "one-dimensional with length matching specified axis.")
            kept = ~obj
        else:
            raise ValueError(f"np.delete(arr, obj): got obj.dtype={obj.dtype}; must be integer or bool.")
    return take(x, np.flatnonzero(kept).astype(np.int32), axis=axis)


def _kept_positions(deleted, n: int):
    """The positions, in order, of the entries of an axis of `n` that the distinct
    indices `deleted` do not name (negative ones counting from the end)."""
    deleted = lax.convert_element_type(deleted, dt.int32)
    deleted = lax.select(lax.lt(deleted, 0), lax.add(deleted, n), deleted)
    deleted = lax.sort(lax.clamp(0, deleted, n))
    count = aval_of(deleted).shape[0]
    # Output slot i holds entry i + (deletions before it): with d_j the sorted deletions,
    # that is i + #{j : d_j - j <= i}, and d_j - j is nondecreasing.
    shifted = lax.sub(deleted, lax.iota(dt.int32, count))
    slots = lax.iota(dt.int32, max(n - count, 0))
    return lax.add(slots, count_at_most(shifted, slots))


def insert(arr, obj, values, axis=None):
    """`arr` with `values` inserted before the entries `obj` along `axis` (of the
    flattened `arr` if None): an integer, a slice or a 1-d index array (traced is fine).
    Indices count in the original `arr`, negative ones from the end; values at equal
    indices keep their order.

    >>> import jaxwg.numpy as jnp
    >>> jnp.insert(jnp.arange(4), jnp.array([1, 3, 1]), jnp.array([7, 8, 9])).tolist()
    [0, 7, 9, 1, 2, 8, 3]
    >>> jnp.insert(jnp.zeros((2, 2), int), 1, jnp.array([5, 6]), axis=1).tolist()
    [[0, 5, 0], [0, 6, 0]]
    """
    check_arraylike("insert", arr, 0 if isinstance(obj, slice) else obj, values)
    x = to_array(arr)
    if axis is None:
        x, axis = ravel(x), 0
    aval = aval_of(x)
    axis = canonicalize_axis(axis, aval.ndim)
    n = aval.shape[axis]
    indices = np.arange(*obj.indices(n), dtype=np.int32) if isinstance(obj, slice) else obj
    indices = to_array(indices)
    if aval_of(indices).ndim > 1:
        raise ValueError("jnp.insert(): obj must be a slice, a one-dimensional array, or a "
                         f"scalar; got {obj}")
    if not aval_of(indices).dtype.is_int:
        if aval_of(indices).size or is_array(obj):
            raise ValueError(f"jnp.insert(): index array must be integer typed; got {obj}")
        indices = lax.convert_element_type(indices, dt.int32)
    values = lax.convert_element_type(to_array(values), aval.dtype, aval.weak_type)
    if aval_of(values).ndim < aval.ndim:  # NumPy's ndmin: new axes in front
        values = lax.reshape(values, (1,) * (aval.ndim - aval_of(values).ndim) + aval_of(values).shape)
    if aval_of(indices).size == 1:
        # one index: all values go there (a scalar index's values run along `axis`'s place)
        if aval_of(indices).ndim == 0:
            values = moveaxis(values, 0, axis)
        indices = lax.broadcast_in_dim(lax.reshape(indices, ()), (aval_of(values).shape[axis],), ())
    count = broadcast_shapes(aval_of(indices).shape, (aval_of(values).shape[axis],))[0]
    if count == 0:
        return x
    indices = lax.convert_element_type(broadcast_to(indices, (count,)), dt.int32)
    indices = lax.clamp(0, lax.select(lax.lt(indices, 0), lax.add(indices, n), indices), n)
    values = broadcast_to(values, aval.shape[:axis] + (count,) + aval.shape[axis + 1:])
    return _merge(x, values, indices, axis)


def _merge(x, values, indices, axis: int):
    """`x` with the slices of `values` along `axis` inserted before the entries `indices`
    (in [0, n]; equal ones keep their order)."""
    n, count = aval_of(x).shape[axis], aval_of(indices).shape[0]
    sorted_indices, order = lax.sort_key_val(indices, lax.iota(dt.int32, count), 0, is_stable=True)
    # the r-th inserted slice (in sorted order) lands at its index plus r: increasing slots
    slots = lax.add(sorted_indices, lax.iota(dt.int32, count))
    out = lax.iota(dt.int32, n + count)
    inserted_before = count_at_most(slots, lax.sub(out, 1))
    from_values = take(values, take(order, inserted_before, mode="clip"), axis=axis, mode="clip")
    if n == 0:
        return from_values
    is_new = lax.eq(take(slots, inserted_before, mode="clip"), out)
    from_x = take(x, lax.sub(out, inserted_before), axis=axis, mode="clip")
    shape = aval_of(from_x).shape
    return lax.select(lax.broadcast_in_dim(is_new, shape, (axis,)), from_values, from_x)
