"""Selecting and editing elements by index or condition, with JAX's semantics.

By index: `take`, `take_along_axis` and `choose` are one `lax.gather` each;
`put_along_axis` is an `.at[].set` (a scatter); `fill_diagonal` and `place` select
between the array and gathered values, so they need no scatter.

By condition: a result whose length is the number of true elements needs that number
at trace time. With `size=` it is static: a prefix sum of the condition (`lax.cumsum`)
ranks the true elements, and a binary search of that sum (`count_at_most`) finds the
k-th one for each output slot k, all on the device; slots past the last true element
hold `fill_value`. Without `size=`, the condition must be concrete (as in JAX: under
`jit` that is a ConcretizationTypeError) and its count is read back first. This is
the route of `nonzero`, `flatnonzero`, `argwhere`, `where(condition)`, `compress`,
`extract` and the triangle indices.

Elementwise choices: `select`, `piecewise`. Index arithmetic: `diag_indices`,
`tril_indices`, `triu_indices` (and their `_from` forms), `ravel_multi_index`,
`unravel_index`.

>>> import jaxwg.numpy as jnp
>>> x = jnp.array([[0, 3], [5, 0]])
>>> [i.tolist() for i in jnp.nonzero(x)], jnp.take(x, jnp.array([3, 0])).tolist()
([[0, 1], [1, 0]], [0, 0])
>>> jnp.compress(jnp.array([False, True]), x, axis=1, size=2, fill_value=-1).tolist()
[[3, -1], [0, -1]]
"""

from __future__ import annotations

import functools
import math
import operator

import numpy as np

from .. import lax
from ..core import dtypes as dt
from ..errors import TracerBoolConversionError
from ..frontend.gather import GatherScatterMode
from ..frontend.jit import staged_jit
from ..lax.sorting import lex_less
from . import ufuncs
from ..lax.keys import moves_keys
from ._util import (
    aval_of,
    broadcast_shapes,
    canonicalize_axis,
    check_arraylike,
    concrete,
    dtype_arg,
    promote,
    reject_out,
    result_dtype,
    static_int,
    to_array,
)
from .manipulation import broadcast_arrays, broadcast_to, moveaxis, ravel
from .vectorization import vectorize

__all__ = ["argwhere", "choose", "compress", "diag_indices", "diag_indices_from", "extract",
           "fill_diagonal", "flatnonzero", "nonzero", "piecewise", "place", "put_along_axis",
           "ravel_multi_index", "select", "take", "take_along_axis", "tril_indices",
           "tril_indices_from", "triu_indices", "triu_indices_from", "unravel_index"]


# -- shared helpers --------------------------------------------------------------------------


def _is_integer(x) -> bool:
    return aval_of(x).dtype.is_int  # signed or unsigned


def _wrap_negative(indices, size: int):
    """Negative indices counted from the end of an axis of `size` (NumPy's rule)."""
    if aval_of(indices).dtype.is_unsigned:
        return indices
    return lax.select(lax.lt(indices, 0), lax.add(indices, size), indices)


def _gather_along(x, indices, axis: int, mode, fill_value=None, unique_indices=False,
                  indices_are_sorted=False):
    """`x` indexed along `axis` by the integer array `indices` (whose axes replace it)."""
    shape = aval_of(x).shape
    index_ndim = aval_of(indices).ndim
    sizes = list(shape)
    sizes[axis] = 1
    dnums = lax.GatherDimensionNumbers(
        offset_dims=tuple(range(axis)) + tuple(range(axis + index_ndim, len(shape) + index_ndim - 1)),
        collapsed_slice_dims=(axis,), start_index_map=(axis,))
    return lax.gather(x, lax.expand_dims(indices, (index_ndim,)), dnums, sizes, mode=mode,
                      fill_value=fill_value, unique_indices=unique_indices,
                      indices_are_sorted=indices_are_sorted)


def count_at_most(sorted_ints, queries):
    """For each of `queries` (int32), how many entries of the nondecreasing int32 vector
    `sorted_ints` are <= it (`searchsorted(side="right")`)."""
    return count_before([sorted_ints], [queries], inclusive=True)


def count_before(sorted_keys: list, query_keys: list, inclusive: bool):
    """For each query, how many entries of the sorted 1-d vectors are before it:
    entries compare lexicographically by `sorted_keys` against `query_keys` (integer
    arrays, one pair per key), `inclusive` counting the equal ones too. A binary search
    on the device: one gather of the midpoints per halving, n.bit_length() in all, so
    n x m work becomes m log n."""
    n = aval_of(sorted_keys[0]).shape[0]
    shape = aval_of(query_keys[0]).shape
    lo = lax.full(shape, 0, dt.int32)
    hi = lax.full(shape, n, dt.int32)
    for _ in range(n.bit_length()):
        mid = lax.shift_right_logical(lax.add(lo, hi), lax.full(shape, 1, dt.int32))
        # mid = n reads the last entry (clipped), and cannot move lo
        at_mid = [_gather_along(k, mid, 0, GatherScatterMode.CLIP) for k in sorted_keys]
        before = ufuncs.logical_not(lex_less(query_keys, at_mid)) if inclusive else \
            lex_less(at_mid, query_keys)
        go_right = lax.bitwise_and(lax.lt(mid, hi), before)
        lo = lax.select(go_right, lax.add(mid, 1), lo)
        hi = lax.select(go_right, hi, mid)
    return lo


def _out_of_range(index, size: int) -> bool:
    """Whether any element of the concrete integer array `index` lies outside [0, size)
    (read back: the "raise" modes need it on the host, as in JAX)."""
    return bool(ufuncs.logical_or(ufuncs.less(index, 0), ufuncs.greater_equal(index, size)).any())


def _true_count(mask):
    return lax.reduce_sum(lax.convert_element_type(mask, dt.int32), tuple(range(aval_of(mask).ndim)))


def _true_positions(mask, size: int):
    """The flat positions of the first `size` true elements of the boolean `mask` (int32,
    in order); slots past the last true element hold mask.size."""
    ranks = lax.cumsum(lax.convert_element_type(ravel(mask), dt.int32))
    return count_at_most(ranks, lax.iota(dt.int32, size))


def _bool(x):
    """`x` as booleans (nonzero is true), as `astype(bool)`."""
    return ufuncs._to_bool(x)


# -- by index --------------------------------------------------------------------------------


@moves_keys(0)
def take(a, indices, axis=None, out=None, mode=None, unique_indices=False,
         indices_are_sorted=False, fill_value=None):
    """Elements of `a` at `indices` along `axis` (of the flattened `a` if None).

    Out-of-bounds indices follow `mode`: "fill" (the default) reads `fill_value` (NaN,
    the most negative signed or largest unsigned integer, or True by default), "clip"
    clamps, "wrap" counts modulo the axis size. Negative indices count from the end.

    >>> import jaxwg.numpy as jnp
    >>> x = jnp.array([[1., 2.], [3., 4.]])
    >>> jnp.take(x, jnp.array([1, -1, 5]), axis=1).tolist()
    [[2.0, 2.0, nan], [4.0, 4.0, nan]]
    >>> jnp.take(x, jnp.array([3, 4]), mode="wrap").tolist()
    [4.0, 1.0]
    """
    reject_out("take", out)
    check_arraylike("take", a, indices)
    return _take(a, indices, None if axis is None else operator.index(axis), mode,
                 unique_indices=unique_indices, indices_are_sorted=indices_are_sorted,
                 fill_value=fill_value)


@functools.partial(staged_jit, static_argnames=("axis", "mode", "unique_indices",
                                                "indices_are_sorted", "fill_value"))
def _take(a, indices, axis, mode, unique_indices, indices_are_sorted, fill_value):
    """`take` past its argument checks: one `jit` equation in a jaxpr, as JAX's `_take`."""
    x, indices = to_array(a), to_array(indices)
    if axis is None:
        x, axis = ravel(x), 0
    else:
        axis = canonicalize_axis(axis, aval_of(x).ndim)
    if not _is_integer(indices):
        raise ValueError(f"take: indices must have an integer type, got {aval_of(indices).dtype}")
    n = aval_of(x).shape[axis]
    if mode is None or mode == "fill":
        # Negative indices count from the end, through `where` as in JAX's `_take`.
        indices = ufuncs._where(ufuncs.less(indices, 0), ufuncs.add(indices, n), indices)
        gather_mode = GatherScatterMode.FILL_OR_DROP
    elif mode == "raise":  # JAX has no way to report an index error from a compiled program
        raise NotImplementedError("The 'raise' mode to jnp.take is not supported.")
    elif mode == "wrap":
        indices, gather_mode = ufuncs.mod(indices, n), GatherScatterMode.PROMISE_IN_BOUNDS
    elif mode == "clip":
        gather_mode = GatherScatterMode.CLIP
    else:
        raise ValueError(f"Invalid mode '{mode}' for np.take")
    index_shape = aval_of(indices).shape
    if n == 0:
        if math.prod(index_shape):
            raise IndexError("Cannot do a non-empty jnp.take() from an empty axis.")
        return x
    if math.prod(index_shape) == 0:
        shape = aval_of(x).shape
        return lax.full_like(x, 0, shape=shape[:axis] + index_shape + shape[axis + 1:])
    return _gather_along(x, indices, axis, gather_mode, fill_value, unique_indices,
                         indices_are_sorted)


@moves_keys(0)
@functools.partial(staged_jit, static_argnames=("axis", "mode", "fill_value", "wrap_negative_indices"))
def take_along_axis(arr, indices, axis=-1, mode=None, fill_value=None, *,
                    wrap_negative_indices=None):
    """Elements of `arr` at `indices` along `axis`, matching the other axes one to one
    (broadcast); `indices` has `arr`'s rank (1-d with `axis=None`: the flattened `arr`).
    `mode` and `fill_value` as in `take`. As JAX's: one `jit` equation in a jaxpr, one
    gather whose other axes are batching axes where `indices` spans them, and window
    axes where it has size 1.

    >>> import jaxwg.numpy as jnp
    >>> x = jnp.array([[10, 30, 20], [60, 40, 50]])
    >>> jnp.take_along_axis(x, jnp.argsort(x, axis=1), axis=1).tolist()
    [[10, 20, 30], [40, 50, 60]]
    """
    check_arraylike("take_along_axis", arr, indices)
    x, indices = to_array(arr), to_array(indices)
    if not _is_integer(indices):
        raise TypeError(f"take_along_axis indices must be of integer type, got {aval_of(indices).dtype}")
    if axis is None:
        if aval_of(indices).ndim != 1:
            raise ValueError(f"take_along_axis indices must be 1D if axis=None, got shape "
                             f"{aval_of(indices).shape}")
        x, axis = ravel(x), 0
    shape, index_shape = aval_of(x).shape, aval_of(indices).shape
    if len(shape) != len(index_shape):
        raise ValueError(f"indices and arr must have the same number of dimensions; "
                         f"{len(index_shape)} vs. {len(shape)}")
    axis = canonicalize_axis(axis, len(shape))
    out_shape = broadcast_shapes(index_shape, shape[:axis] + (1,) + shape[axis + 1:])
    if mode == "one_hot":
        raise NotImplementedError("take_along_axis: mode='one_hot' is not supported")
    if 0 in shape:  # nothing to gather from (a size-1 slice of an empty axis is invalid)
        return lax.full(out_shape, 0, aval_of(x).dtype)
    if wrap_negative_indices is None:  # JAX's current default
        wrap_negative_indices = mode != "promise_in_bounds"
    if wrap_negative_indices:
        indices = _wrap_negative(lax.convert_element_type(indices, dt.int32), shape[axis])
    # The index axes the gather reads: `axis`, and those `indices` spans (size 1 ones
    # broadcast, so the operand's axis there is a window of the gather).
    index_axes = [k for k, n in enumerate(index_shape) if k == axis or n != 1]
    indices = lax.reshape(indices, tuple(out_shape[k] for k in index_axes) + (1,))
    sizes, offset_dims, batching, index_batching, squeezed = [], [], [], [], []
    start_index_map = collapsed = ()
    kept = 0  # the axis of `x` after the squeeze
    for k, n in enumerate(shape):
        if k == axis:
            sizes.append(1)
            start_index_map = collapsed = (kept,)
        elif index_shape[k] == 1:
            offset_dims.append(k)
            sizes.append(n)
        elif n == 1:  # `indices` spans it and `x` does not: squeezed away
            squeezed.append(k)
            continue
        else:
            sizes.append(1)
            batching.append(kept)
            index_batching.append(index_axes.index(k))
        kept += 1
    if squeezed:
        x = lax.squeeze(x, tuple(squeezed))
    dnums = lax.GatherDimensionNumbers(offset_dims=tuple(offset_dims), collapsed_slice_dims=collapsed,
                                       start_index_map=start_index_map, operand_batching_dims=tuple(batching),
                                       start_indices_batching_dims=tuple(index_batching))
    return lax.gather(x, indices, dnums, tuple(sizes), mode="fill" if mode is None else mode,
                      fill_value=fill_value)


def _sparse_indices(shape, axis: int, indices) -> tuple:
    """An index tuple whose arrays broadcast to `indices`' shape: `indices` at `axis`,
    an arange shaped to its own axis elsewhere."""
    index = []
    for k, n in enumerate(shape):
        one_axis = tuple(n if j == k else 1 for j in range(len(shape)))
        index.append(indices if k == axis else lax.broadcasted_iota(dt.int32, one_axis, k))
    return tuple(index)


def put_along_axis(arr, indices, values, axis, inplace=True, *, mode=None):
    """A copy of `arr` with `values` written at `indices` along `axis` (the counterpart of
    `take_along_axis`); `inplace=False` is required, as in JAX, whose arrays are immutable.

    >>> import jaxwg.numpy as jnp
    >>> x = jnp.zeros((2, 3), int)
    >>> jnp.put_along_axis(x, jnp.array([[2], [0]]), 7, axis=1, inplace=False).tolist()
    [[0, 0, 7], [7, 0, 0]]
    """
    if inplace:
        raise ValueError("jax.numpy.put_along_axis cannot modify arrays in-place, because JAX "
                         "arrays are immutable. Pass inplace=False to instead return an updated array.")
    check_arraylike("put_along_axis", arr, indices, values)
    x, indices, values = to_array(arr), to_array(indices), to_array(values)
    original_shape = aval_of(x).shape
    if axis is None:
        x, axis = ravel(x), 0
    shape, index_shape = aval_of(x).shape, aval_of(indices).shape
    if len(shape) != len(index_shape):
        raise ValueError(f"put_along_axis arguments 'arr' and 'indices' must have same ndim. Got "
                         f"arr.ndim={len(shape)} and indices.ndim={len(index_shape)}.")
    try:
        values = broadcast_to(values, index_shape)
    except ValueError:
        raise ValueError(f"put_along_axis argument 'values' must be broadcastable to 'indices'. Got "
                         f"values.shape={aval_of(values).shape} and indices.shape={index_shape}.") from None
    axis = canonicalize_axis(axis, len(shape))
    out = x.at[_sparse_indices(shape, axis, indices)].set(values, mode=mode)
    return lax.reshape(out, original_shape)


def choose(a, choices, out=None, mode="raise"):
    """`choices[a]` elementwise: each element of the integer array `a` picks which of the
    `choices` (broadcast together) to read there. Out-of-range picks follow `mode`:
    "raise" (a ValueError; `a` must be concrete, so not under `jit`, as in JAX),
    "wrap" (modulo the number of choices) or "clip".

    >>> import jaxwg.numpy as jnp
    >>> jnp.choose(jnp.array([0, 1, 2, 1]), [jnp.arange(4), 10, jnp.full(4, -1)]).tolist()
    [0, 10, -1, 10]
    """
    reject_out("choose", out)
    choices = list(choices)
    check_arraylike("choose", a, *choices)
    which = to_array(a)
    if not _is_integer(which):
        raise ValueError("`a` array must be integer typed")
    count = len(choices)
    if mode == "raise":
        concrete(which, "The error occurred because jnp.choose was jit-compiled with mode='raise'. "
                  "Use mode='wrap' or mode='clip' instead.")
        if _out_of_range(which, count):
            raise ValueError("invalid entry in choice array")
    elif mode == "wrap":
        which = ufuncs.mod(which, count)
    elif mode == "clip":
        which = ufuncs.clip(which, 0, count - 1)
    else:
        raise ValueError(f"mode={mode!r} not understood. Must be 'raise', 'wrap', or 'clip'")
    dtype, _ = result_dtype(*choices)  # as JAX's `array(choices)`: never weakly typed
    which, *choices = broadcast_arrays(lax.convert_element_type(which, dt.int32),
                                       *[lax.convert_element_type(c, dtype) for c in choices])
    return lax.select_n(which, *choices)


def _tile_to(values, size: int, positions):
    """`values` (1-d, not empty) repeated as often as needed, read at `positions` < `size`."""
    count = aval_of(values).shape[0]
    if count < size:
        positions = lax.rem(positions, lax.full_like(positions, count))
    return _gather_along(values, positions, 0, GatherScatterMode.PROMISE_IN_BOUNDS)


def place(arr, mask, vals, *, inplace=True):
    """A copy of `arr` whose elements where `mask` is true take the values of `vals` in
    order (repeated if too few); `inplace=False` is required, as in JAX.

    >>> import jaxwg.numpy as jnp
    >>> x = jnp.arange(6)
    >>> jnp.place(x, x % 2 == 1, jnp.array([-1, -2]), inplace=False).tolist()
    [0, -1, 2, -2, 4, -1]
    """
    check_arraylike("place", arr, mask, vals)
    if inplace:
        raise ValueError("jax.numpy.place cannot modify arrays in-place, because JAX arrays are "
                         "immutable. Pass inplace=False to instead return an updated array.")
    x, mask, vals = to_array(arr), to_array(mask), ravel(vals)
    if aval_of(x).size != aval_of(mask).size:
        raise ValueError(f"place: arr and mask must be the same size, got shapes {aval_of(x).shape} "
                         f"and {aval_of(mask).shape}")
    if not aval_of(vals).size:
        raise ValueError("Cannot place values from an empty array")
    if not aval_of(x).size:
        return x
    flat_mask = _bool(ravel(mask))
    # the k-th true element (counting from 0) takes vals[k % len(vals)]
    ranks = lax.sub(lax.cumsum(lax.convert_element_type(flat_mask, dt.int32)), 1)
    ranks = lax.max(ranks, lax.full_like(ranks, 0))
    aval = aval_of(x)
    new = lax.convert_element_type(_tile_to(vals, aval.size, ranks), aval.dtype, aval.weak_type)
    return lax.reshape(lax.select(flat_mask, new, ravel(x)), aval.shape)


def fill_diagonal(a, val, wrap=False, *, inplace=True):
    """A copy of `a` with its main diagonal (where all indices are equal) set to `val`
    (a scalar, or values repeated along the diagonal); `inplace=False` is required.

    >>> import jaxwg.numpy as jnp
    >>> jnp.fill_diagonal(jnp.zeros((2, 3), int), jnp.array([4, 5]), inplace=False).tolist()
    [[4, 0, 0], [0, 5, 0]]
    """
    if inplace:
        raise NotImplementedError("JAX arrays are immutable, must use inplace=False")
    if wrap:
        raise NotImplementedError("wrap=True is not implemented, must use wrap=False")
    check_arraylike("fill_diagonal", a, val)
    x, val = to_array(a), to_array(val)
    aval = aval_of(x)
    if aval.ndim < 2:
        raise ValueError(f"fill_diagonal: array must be at least 2-d, got shape {aval.shape}")
    if aval.ndim > 2 and len(set(aval.shape)) > 1:
        raise ValueError(f"fill_diagonal: All dimensions of input must be of equal length, got "
                         f"shape {aval.shape}")
    row = lax.broadcasted_iota(dt.int32, aval.shape, 0)
    on_diagonal = lax.full(aval.shape, True, dt.bool_)
    for k in range(1, aval.ndim):
        on_diagonal = lax.bitwise_and(on_diagonal, lax.eq(row, lax.broadcasted_iota(dt.int32, aval.shape, k)))
    if aval_of(val).ndim:
        values = ravel(val)
        if not aval_of(values).size:
            raise ValueError("fill_diagonal: val must not be empty")
        val = _tile_to(values, min(aval.shape), lax.min(row, lax.full_like(row, min(aval.shape) - 1)))
    val = broadcast_to(lax.convert_element_type(val, aval.dtype, aval.weak_type), aval.shape)
    return lax.select(on_diagonal, val, x)


# -- by condition ----------------------------------------------------------------------------


def _nonzero_size(mask, size, name: str) -> int:
    """`size` as a static int; None means the number of true elements of `mask`, which
    must then be concrete."""
    if size is not None:
        return operator.index(size)
    count = _true_count(mask)
    concrete(count, f"The size argument of jnp.{name} must be statically specified to use "
              f"jnp.{name} within JAX transformations.")
    return int(count)


def nonzero(a, *, size=None, fill_value=None):
    """The indices of the nonzero elements of `a`, one int32 array per axis.

    With `size`, exactly `size` of them (the first ones; slots past the last nonzero
    element hold `fill_value`, 0 by default, or one value per axis in a tuple): this
    works under `jit`. Without it, `a` must be concrete.

    >>> import jaxwg.numpy as jnp
    >>> x = jnp.array([[1, 0], [0, 2]])
    >>> [i.tolist() for i in jnp.nonzero(x)]
    [[0, 1], [0, 1]]
    >>> [i.tolist() for i in jnp.nonzero(x, size=3, fill_value=-1)]
    [[0, 1, -1], [0, 1, -1]]
    """
    check_arraylike("nonzero", a)
    x = to_array(a)
    shape = aval_of(x).shape
    if not shape:
        raise ValueError("Calling nonzero on 0d arrays is not allowed. Use "
                         "jnp.atleast_1d(scalar).nonzero() instead.")
    mask = _bool(x)
    size = _nonzero_size(mask, size, "nonzero")
    if size == 0 or math.prod(shape) == 0:
        return tuple(lax.full((size,), 0, dt.int32) for _ in shape)
    flat = _true_positions(mask, size)
    # Row-major coordinates; the past-the-end position (no more true elements) gives 0s.
    strides = [math.prod(shape[k + 1:]) for k in range(len(shape))]
    out = tuple(lax.rem(lax.div(flat, stride), lax.full_like(flat, n))
                for stride, n in zip(strides, shape))
    if fill_value is None:
        return out
    fills = fill_value if isinstance(fill_value, tuple) else (fill_value,) * len(shape)
    if len(fills) != len(shape) or any(np.shape(f) != () for f in fills):
        raise ValueError(f"fill_value must be a scalar or a tuple of length {len(shape)}; "
                         f"got {fill_value}")
    past_end = lax.ge(lax.iota(dt.int32, size), _true_count(mask))
    return tuple(ufuncs.where(past_end, f, entry) for f, entry in zip(fills, out))


def flatnonzero(a, *, size=None, fill_value=None):
    """The indices of the nonzero elements of the flattened `a` (`size` and `fill_value`
    as in `nonzero`).

    >>> import jaxwg.numpy as jnp
    >>> jnp.flatnonzero(jnp.array([[0, 3], [5, 0]])).tolist()
    [1, 2]
    """
    check_arraylike("flatnonzero", a)
    return nonzero(ravel(a), size=size, fill_value=fill_value)[0]


def argwhere(a, *, size=None, fill_value=None):
    """The indices of the nonzero elements of `a`, one row each: shape (count, a.ndim)
    (`size` and `fill_value` as in `nonzero`).

    >>> import jaxwg.numpy as jnp
    >>> jnp.argwhere(jnp.array([[0, 3], [5, 0]])).tolist()
    [[0, 1], [1, 0]]
    """
    check_arraylike("argwhere", a)
    x = to_array(a)
    ndim = aval_of(x).ndim
    columns = nonzero(x if ndim else lax.reshape(x, (1,)), size=size, fill_value=fill_value)
    rows = aval_of(columns[0]).shape[0]
    if ndim == 0:  # a scalar has no axes to index: one empty row if it is nonzero
        return lax.full((rows, 0), 0, aval_of(columns[0]).dtype)
    return lax.concatenate([lax.reshape(c, (rows, 1)) for c in promote(*columns)], 1)


def compress(condition, a, axis=None, *, size=None, fill_value=0, out=None):
    """The slices of `a` along `axis` (of the flattened `a` if None) where the 1-d
    `condition` is true. With `size`, exactly `size` slices (the first ones, then
    `fill_value`): this works under `jit`; without it, `condition` must be concrete.

    >>> import jaxwg.numpy as jnp
    >>> x = jnp.array([[1, 2], [3, 4], [5, 6]])
    >>> jnp.compress(jnp.array([True, False, True]), x, axis=0).tolist()
    [[1, 2], [5, 6]]
    """
    check_arraylike("compress", condition, a, fill_value)
    reject_out("compress", out)
    condition = _bool(condition)
    if aval_of(condition).ndim != 1:
        raise ValueError(f"condition must be a 1D array, got shape {aval_of(condition).shape}")
    x = to_array(a)
    x = ravel(x) if axis is None else moveaxis(x, axis, 0)
    n = min(aval_of(x).shape[0], aval_of(condition).shape[0])
    extra = lax.slice(condition, (n,), aval_of(condition).shape)
    condition, x = lax.slice(condition, (0,), (n,)), lax.slice(x, (0,) * aval_of(x).ndim,
                                                                  (n,) + aval_of(x).shape[1:])
    if size is None:
        message = ("jnp.compress needs a concrete condition when size is not given (the "
                   "result's shape depends on it); pass size= to use it under jit.")
        # JAX tests the extra entries with Python's bool(): TracerBoolConversionError
        if bool(concrete(lax.reduce_or(extra, (0,)), message, TracerBoolConversionError)):
            raise ValueError("condition contains entries that are out of bounds")
        result = take(x, nonzero(condition)[0], axis=0, mode="clip")
    else:
        size = operator.index(size)
        if not 0 <= size <= aval_of(x).shape[0]:
            raise ValueError("size must be positive and not greater than the size of the array "
                             f"axis; got size={size} for a.shape[axis]={aval_of(x).shape[0]}")
        result = take(x, nonzero(condition, size=size)[0], axis=0, mode="clip")
        # slots past the last true element read fill_value, in a's dtype (as JAX)
        valid = lax.lt(lax.iota(dt.int32, size), _true_count(condition))
        valid = lax.broadcast_in_dim(valid, aval_of(result).shape, (0,))
        fill = lax.convert_element_type(to_array(fill_value), aval_of(x).dtype)
        result = ufuncs.where(valid, result, fill)
    return result if axis is None else moveaxis(result, 0, axis)


def extract(condition, arr, *, size=None, fill_value=0):
    """The elements of `arr` where `condition` is true, flattened (`size` and
    `fill_value` as in `compress`).

    >>> import jaxwg.numpy as jnp
    >>> x = jnp.arange(6).reshape(2, 3)
    >>> jnp.extract(x % 2 == 0, x, size=4, fill_value=-1).tolist()
    [0, 2, 4, -1]
    """
    check_arraylike("extract", condition, arr, fill_value)
    return compress(ravel(condition), ravel(arr), size=size, fill_value=fill_value)


# -- elementwise choices ---------------------------------------------------------------------


def select(condlist, choicelist, default=0):
    """Elementwise, the choice of the first true condition, else `default` (all broadcast
    together, in their common dtype).

    >>> import jaxwg.numpy as jnp
    >>> x = jnp.arange(5)
    >>> jnp.select([x < 2, x > 3], [x, -x], default=9).tolist()
    [0, 1, 9, 9, -4]
    """
    if len(condlist) != len(choicelist):
        raise ValueError(f"condlist must have length equal to choicelist ({len(condlist)} vs "
                         f"{len(choicelist)})")
    if not condlist:
        raise ValueError("condlist must be non-empty")
    check_arraylike("select", *condlist, *choicelist, default)
    conditions = [_bool(c) for c in condlist]
    default, *choices = [to_array(c) for c in promote(default, *choicelist)]
    shape = broadcast_shapes(*[aval_of(v).shape for v in conditions + choices + [default]])
    out = broadcast_to(default, shape)
    for condition, choice in reversed(list(zip(conditions, choices))):  # the first true one wins
        out = lax.select(broadcast_to(condition, shape), broadcast_to(choice, shape), out)
    return out


def piecewise(x, condlist, funclist, *args, **kw):
    """Elementwise, the function (or constant) of the last true condition of `condlist`;
    where none is true, the extra last entry of `funclist` if there is one, else 0.
    Functions get one element of `x` (through `vectorize`, as in JAX), `*args` and
    `**kw`; the result has `x`'s dtype.

    >>> import jaxwg.numpy as jnp
    >>> x = jnp.array([-2., 0., 3.])
    >>> jnp.piecewise(x, [x < 0, x > 0], [lambda v: -v, lambda v: v * 10, 7.]).tolist()
    [2.0, 7.0, 30.0]
    """
    check_arraylike("piecewise", x)
    x = to_array(x)
    conditions, functions = len(condlist), len(funclist)
    if functions == conditions + 1:
        funclist = [funclist[-1]] + list(funclist[:-1])
    elif functions == conditions:
        funclist = [0] + list(funclist)
    else:
        raise ValueError(f"with {conditions} condition(s), either {conditions} or {conditions + 1} "
                         f"functions are expected; got {functions}")
    dtype = aval_of(x).dtype
    def apply(f):
        return vectorize(lambda v: f(v, *args, **kw))(x) if callable(f) else f

    branches = [lax.convert_element_type(to_array(apply(f)), dtype) for f in funclist]
    conditions = [_bool(c) for c in condlist]
    shape = broadcast_shapes(*[aval_of(v).shape for v in [x] + branches + conditions])
    out = broadcast_to(branches[0], shape)
    for condition, branch in zip(conditions, branches[1:]):  # the last true one wins
        out = lax.select(broadcast_to(condition, shape), broadcast_to(branch, shape), out)
    return out


# -- index arithmetic ------------------------------------------------------------------------


def diag_indices(n, ndim=2):
    """The indices of the main diagonal of an `ndim`-d array of side `n`: `ndim` copies
    of `arange(n)`.

    >>> import jaxwg.numpy as jnp
    >>> [i.tolist() for i in jnp.diag_indices(3)]
    [[0, 1, 2], [0, 1, 2]]
    """
    n = static_int(n, "'n' argument of jnp.diag_indices()")
    ndim = static_int(ndim, "'ndim' argument of jnp.diag_indices()")
    if n < 0:
        raise ValueError(f"n argument to diag_indices must be nonnegative, got {n}")
    if ndim < 0:
        raise ValueError(f"ndim argument to diag_indices must be nonnegative, got {ndim}")
    return (lax.iota(dt.int32, n),) * ndim


def diag_indices_from(arr):
    """`diag_indices` for `arr`, which must be at least 2-d with all sides equal.

    >>> import jaxwg.numpy as jnp
    >>> len(jnp.diag_indices_from(jnp.zeros((2, 2, 2))))
    3
    """
    check_arraylike("diag_indices_from", arr)
    shape = aval_of(to_array(arr)).shape
    if len(shape) < 2:
        raise ValueError(f"input array must be at least 2-d, got shape {shape}")
    if len(set(shape)) != 1:
        raise ValueError(f"All dimensions of input must be of equal length, got shape {shape}")
    return diag_indices(shape[0], len(shape))


def _triangle_indices(name: str, n, k, m, upper: bool):
    """The (row, column) indices of the elements of an n x m matrix on or above (`upper`)
    or on or below diagonal `k`, row by row."""
    n = static_int(n, f"n argument of jnp.{name}")
    k = static_int(k, f"k argument of jnp.{name}")
    m = n if m is None else static_int(m, f"m argument of jnp.{name}")
    if n < 0 or m < 0:
        raise TypeError(f"{name}: the matrix sides must be nonnegative, got n={n} and m={m}")
    # row i holds columns j >= i + k (upper) or j <= i + k (lower)
    if upper:
        count = sum(m - min(max(i + k, 0), m) for i in range(n))
    else:
        count = sum(min(max(i + k + 1, 0), m) for i in range(n))
    offset = lax.sub(lax.broadcasted_iota(dt.int32, (n, m), 1), lax.broadcasted_iota(dt.int32, (n, m), 0))
    mask = lax.ge(offset, k) if upper else lax.le(offset, k)
    return nonzero(mask, size=count)


def triu_indices(n, k=0, m=None):
    """The indices of the upper triangle of an n x m matrix (m = n by default), on and
    above diagonal `k`.

    >>> import jaxwg.numpy as jnp
    >>> [i.tolist() for i in jnp.triu_indices(3, 1)]
    [[0, 0, 1], [1, 2, 2]]
    """
    return _triangle_indices("triu_indices", n, k, m, upper=True)


def tril_indices(n, k=0, m=None):
    """The indices of the lower triangle of an n x m matrix (m = n by default), on and
    below diagonal `k`.

    >>> import jaxwg.numpy as jnp
    >>> [i.tolist() for i in jnp.tril_indices(3, -1)]
    [[1, 2, 2], [0, 0, 1]]
    """
    return _triangle_indices("tril_indices", n, k, m, upper=False)


def _matrix_shape(name: str, arr):
    check_arraylike(name, arr)
    shape = arr.shape if hasattr(arr, "shape") else aval_of(to_array(arr)).shape
    if len(shape) != 2:
        raise ValueError(f"{name}: Only 2-D inputs are accepted, got shape {tuple(shape)}")
    return shape


def triu_indices_from(arr, k=0):
    """`triu_indices` for the shape of the 2-d `arr`.

    >>> import jaxwg.numpy as jnp
    >>> [i.tolist() for i in jnp.triu_indices_from(jnp.zeros((2, 3)), k=1)]
    [[0, 0, 1], [1, 2, 2]]
    """
    n, m = _matrix_shape("triu_indices_from", arr)
    return triu_indices(n, k=k, m=m)


def tril_indices_from(arr, k=0):
    """`tril_indices` for the shape of the 2-d `arr`.

    >>> import jaxwg.numpy as jnp
    >>> [i.tolist() for i in jnp.tril_indices_from(jnp.zeros((2, 3)))]
    [[0, 1, 1], [0, 0, 1]]
    """
    n, m = _matrix_shape("tril_indices_from", arr)
    return tril_indices(n, k=k, m=m)


def ravel_multi_index(multi_index, dims, mode="raise", order="C", *, dtype=None):
    """The flat indices, into an array of shape `dims`, of the coordinates `multi_index`
    (one integer array per axis, broadcast together). Out-of-range coordinates follow
    `mode`: "raise" (a ValueError; the coordinates must be concrete, so not under `jit`),
    "clip", "wrap" or "ignore". `order` "C" (row-major) or "F" (column-major).

    >>> import jaxwg.numpy as jnp
    >>> jnp.ravel_multi_index((jnp.array([0, 2]), jnp.array([3, 1])), (3, 4)).tolist()
    [3, 9]
    """
    if len(multi_index) != len(dims):
        raise ValueError(f"ravel_multi_index: len(multi_index)={len(multi_index)} != "
                         f"len(dims)={len(dims)}")
    dims = tuple(static_int(d, "in `dims` argument of ravel_multi_index()") for d in dims)
    check_arraylike("ravel_multi_index", *multi_index)
    indices = [to_array(i) for i in multi_index]
    kind = result_dtype(0, *indices)[0] if dtype is None else dtype_arg(dtype)
    if not kind.is_int:
        raise ValueError(f"dtype=dtype('{kind.np.name}') is not an integer type.")
    if math.prod(dims) - 1 > np.iinfo(kind.np).max:
        raise ValueError(f"jnp.ravel_multi_index: dtype=dtype('{kind.np.name}') not large enough to "
                         f"hold flattened index for dims={dims}. Use the dtype argument to pass a "
                         "suitable dtype (e.g. dtype=np.min_scalar_type(prod(dims))).")
    for index in indices:
        if mode == "raise":
            concrete(index, "The error occurred because ravel_multi_index was jit-compiled with "
                      "mode='raise'. Use mode='wrap' or mode='clip' instead.")
        if not _is_integer(index):
            raise TypeError(f"ravel_multi_index: only int indices permitted, got {aval_of(index).dtype}")
    if mode == "raise":
        if any(_out_of_range(i, d) for i, d in zip(indices, dims)):
            raise ValueError("invalid entry in coordinates array")
    elif mode == "clip":
        indices = [ufuncs.clip(i, 0, d - 1) for i, d in zip(indices, dims)]
    elif mode == "wrap":
        indices = [ufuncs.mod(i, d) for i, d in zip(indices, dims)]
    elif mode != "ignore":
        raise ValueError(f"invalid mode={mode!r}. Expected 'raise', 'wrap', 'clip', or 'ignore'.")
    if order == "C":
        strides = [math.prod(dims[k + 1:]) for k in range(len(dims))]
    elif order == "F":
        strides = [math.prod(dims[:k]) for k in range(len(dims))]
    else:
        raise ValueError(f"invalid order={order!r}. Expected 'C' or 'F'")
    result = lax.full((), 0, kind)
    for index, stride in zip(indices, strides):
        result = ufuncs.add(result, ufuncs.multiply(lax.convert_element_type(index, kind), stride))
    return result


def unravel_index(indices, shape):
    """The coordinates, in an array of `shape`, of the flat `indices`: one array per
    axis. Indices past the end clamp to the last element and those before -1 to the
    first (JAX's rule; -1 is the last element).

    >>> import jaxwg.numpy as jnp
    >>> [i.tolist() for i in jnp.unravel_index(jnp.array([5, 11, -1]), (3, 4))]
    [[1, 2, 2], [1, 3, 3]]
    """
    check_arraylike("unravel_index", indices)
    rest = to_array(indices)
    try:
        shape = list(shape)
    except TypeError:
        shape = [shape]
    if any(np.ndim(s) != 0 for s in shape):
        raise ValueError("unravel_index: shape should be a scalar or 1D sequence.")
    coords = [None] * len(shape)
    for k in reversed(range(len(shape))):
        rest, coords[k] = ufuncs.divmod(rest, shape[k])
    past_end = ufuncs.greater(rest, 0)
    before_start = ufuncs.less(rest, -1) if not aval_of(rest).dtype.is_unsigned else False
    return tuple(ufuncs.where(past_end, s - 1, ufuncs.where(before_start, 0, c))
                 for s, c in zip(shape, coords))
