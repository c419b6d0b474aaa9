"""Counting and binning: `bincount`, `histogram`, `histogram_bin_edges`, `histogram2d`,
`histogramdd`, `digitize`, with JAX's results.

A bin's count is the sum of the weights of the inputs that fall in it, for every bin
at once: one fused reduction over the (bins x inputs) comparison, which is never
stored. The work grows with the input times the number of bins (not with the input
squared), and each bin sums only its own weights, so no bin loses precision to the
others (as a difference of running sums would). Bin indices come from `searchsorted`
against the edges. The number of bins decides the shape of the result, so it must be
static: `bincount` without `length=` needs a concrete input (its largest value is read
back), as in JAX.

>>> import jaxwg.numpy as jnp
>>> jnp.bincount(jnp.array([0, 2, 2])).tolist()
[1, 0, 2]
>>> counts, edges = jnp.histogram(jnp.array([0.0, 0.5, 1.0, 3.0]), bins=3)
>>> counts.tolist(), edges.tolist()
([2.0, 1.0, 1.0], [0.0, 1.0, 2.0, 3.0])
"""

from __future__ import annotations

import builtins
import math

import numpy as np

from .. import lax
from ._util import aval_of, check_arraylike, concrete, promote, static_int, to_array
from .creation import asarray, linspace, ones_like, zeros
from .joining import stack
from .reductions import max as _max
from .reductions import min as _min
from .reductions import sum as _sum
from .manipulation import ravel, reshape
from .statistics import searchsorted
from .structure import diff
from .ufuncs import logical_and, maximum, where

__all__ = ["bincount", "digitize", "histogram", "histogram2d", "histogram_bin_edges",
           "histogramdd"]


# Up to this many bins, a reduction over (bins x values) beats a scatter-add whose
# atomic adds all contend for a few addresses.
_DENSE_BINS = 64


def _bin_sums(index, weights, length: int):
    """For each bin b in range(length), the sum of `weights` where `index` is b (1-d,
    int32; other indices count nowhere): `zeros(length).at[index].add(weights,
    mode="drop")`, for few bins as one reduction."""
    n = aval_of(index).shape[0]
    if length > _DENSE_BINS:
        dnums = lax.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,),
                                            scatter_dims_to_operand_dims=(0,))
        return lax.scatter_add(lax.full((length,), 0, aval_of(weights).dtype), lax.expand_dims(index, (1,)),
                               weights, dnums, mode=lax.GatherScatterMode.FILL_OR_DROP)
    grid = (length, n)
    hit = lax.eq(lax.broadcast_in_dim(index, grid, (1,)),
                 lax.broadcasted_iota(np.int32, grid, 0))
    terms = lax.broadcast_in_dim(weights, grid, (1,))
    zeros = lax.full(grid, 0, aval_of(weights).dtype)  # strongly typed, as the scatter's
    return lax.reduce_sum(lax.select(hit, terms, zeros), (1,))


def bincount(x, weights=None, minlength=0, *, length=None):
    """How often each value in range(length) occurs in the non-negative integers `x`
    (1-d), or the sum of `weights` at those places. Without `length` (static), it is
    max(`minlength`, largest value + 1) and `x` must be concrete. As in JAX, negative
    values count in bin 0 and values past `length` are dropped.

    >>> import jaxwg.numpy as jnp
    >>> jnp.bincount(jnp.array([1, 1, 3]), weights=jnp.array([0.5, 1.0, 2.0])).tolist()
    [0.0, 1.5, 0.0, 2.0]
    """
    check_arraylike("bincount", x)
    x = to_array(x)
    dtype = aval_of(x).dtype
    if dtype.is_bool:
        x = lax.convert_element_type(x, np.int32)
    elif dtype.is_float:
        raise TypeError(f"x argument to bincount must have an integer type; got {dtype.name}")
    if aval_of(x).ndim != 1:
        raise ValueError("only 1-dimensional input supported.")
    minlength = static_int(minlength, "the minlength argument of jnp.bincount")
    if length is None:
        concrete(x, "The error occurred because of argument 'x' of jnp.bincount. To avoid "
                    "this error, pass a static `length` argument.")
        largest = int(_max(x)) if aval_of(x).size else -1
        length = max(minlength, largest + 1)
    else:
        length = static_int(length, "the length argument of jnp.bincount")
    if weights is None:
        weights = lax.full(aval_of(x).shape, 1, np.int32)
    else:
        check_arraylike("bincount", x, weights)
        weights = to_array(weights)
        if aval_of(weights).shape != aval_of(x).shape:
            raise ValueError("type of weights must match type of x. Got typeof(x)="
                             f"{aval_of(x).str_short()} and typeof(weights)="
                             f"{aval_of(weights).str_short()}")
        if aval_of(weights).dtype.is_bool:
            raise TypeError("bincount: boolean weights cannot be summed (add does not accept "
                            "dtype bool); convert them to a number type")
    index = lax.convert_element_type(maximum(x, 0), np.int32)
    # JAX's counts have the weights' dtype, never weak (they start as zeros of it)
    return _bin_sums(index, lax.convert_element_type(weights, aval_of(weights).dtype), length)


def histogram_bin_edges(a, bins=10, range=None, weights=None):
    """The edges of `histogram`'s bins: `bins` itself if it is 1-d, else `bins` + 1 edges
    evenly from the smallest to the largest element of `a` (or `range`; an empty range
    widens by 0.5 each way), in `a`'s float dtype. `weights` is unused, as in NumPy.

    >>> import jaxwg.numpy as jnp
    >>> jnp.histogram_bin_edges(jnp.array([1, 2, 5]), bins=4).tolist()
    [1.0, 2.0, 3.0, 4.0, 5.0]
    """
    if isinstance(bins, str):
        raise NotImplementedError("string values for `bins` not implemented.")
    check_arraylike("histogram_bin_edges", a, bins)
    x = to_array(a)
    dtype = aval_of(promote(x, to_inexact=True)[0]).dtype
    if np.ndim(bins) == 1:
        return asarray(bins, dtype=dtype)
    count = static_int(bins, "the bins argument of jnp.histogram_bin_edges")
    if range is None:
        low, high = _min(x).astype(dtype), _max(x).astype(dtype)
    else:
        bounds = asarray(range, dtype=dtype)
        if aval_of(bounds).shape != (2,):
            raise ValueError(f"`range` must be either None or a sequence of scalars, got {range}")
        low, high = bounds[0], bounds[1]
    empty = low == high
    return linspace(where(empty, low - 0.5, low), where(empty, high + 0.5, high), count + 1,
                    dtype=dtype)


def _inexact(name: str, a, weights):
    """`a` and `weights` (if given) in their common float dtype."""
    check_arraylike(name, a, *(() if weights is None else (weights,)))
    if weights is None:
        return promote(to_array(a), to_inexact=True)[0], None
    x, w = promote(to_array(a), to_array(weights), to_inexact=True)
    return x, w


def _bin_index(x, edges):
    """1-based bins of the 1-d `x` among `edges` (the last bin holds its right edge); 0
    below the first edge, len(edges) above the last and for NaN."""
    index = searchsorted(edges, x, side="right")
    nbins = aval_of(edges).shape[0] - 1
    return where(x == edges[-1], nbins, index)


def histogram(a, bins=10, range=None, weights=None, density=None):
    """The histogram of `a` (flattened): for each bin [edge, next edge) (the last one
    closed), how many elements fall in it, or the sum of their `weights`; with
    `density`, divided by the total and the bin width. Returns (counts, edges); `bins`
    and `range` as in `histogram_bin_edges`.

    >>> import jaxwg.numpy as jnp
    >>> jnp.histogram(jnp.array([1, 2, 2, 5]), bins=jnp.array([0, 2, 6]))[0].tolist()
    [1.0, 3.0]
    """
    x, w = _inexact("histogram", a, weights)
    if w is not None and aval_of(w).shape != aval_of(x).shape:
        raise ValueError("weights should have the same shape as a.")
    w = ones_like(x) if w is None else w
    edges = histogram_bin_edges(x, bins, range)
    x = ravel(x)
    nbins = aval_of(edges).shape[0] - 1
    counts = _bin_sums(_bin_index(x, edges) - 1, ravel(w), nbins)
    if density:
        counts = counts / diff(edges) / _sum(counts)
    return counts, edges


def histogramdd(sample, bins=10, range=None, weights=None, density=None):
    """The D-dimensional histogram of the N points `sample` (N, D): per dimension,
    `bins` (one for all or one each) and `range` (None or one pair or None each) as in
    `histogram`. Returns (counts, list of edges); counts are int32 without `weights`
    (JAX's dtype), unless `density`.

    >>> import jaxwg.numpy as jnp
    >>> counts, edges = jnp.histogramdd(jnp.array([[0.0, 0.0], [1.0, 1.0], [1.0, 0.0]]), bins=2)
    >>> counts.tolist()
    [[1, 0], [1, 1]]
    """
    x, w = _inexact("histogramdd", sample, weights)
    if aval_of(x).ndim != 2:
        raise ValueError(f"histogramdd: sample must be 2-dimensional (N, D), got shape "
                         f"{aval_of(x).shape}")
    n, d = aval_of(x).shape
    if w is not None and aval_of(w).shape != (n,):
        raise ValueError("should have one weight for each sample.")
    if range is not None and (len(range) != d or
                              any(r is not None and np.shape(r)[0] != 2 for r in range)):
        raise ValueError(f"For sample.shape={(n, d)}, range must be a sequence of {d} pairs or "
                         f"Nones; got {range=}")
    try:
        bins_each = list(bins)
    except TypeError:
        bins_each = d * [bins]
    if len(bins_each) != d:
        raise ValueError("should be a bin for each dimension.")
    all_edges, flat, valid, shape = [], None, None, []
    for k, bins_k in enumerate(bins_each):
        column = x[:, k]
        edges = histogram_bin_edges(column, bins_k, None if range is None else range[k])
        index = _bin_index(column, edges)
        nbins = aval_of(edges).shape[0] - 1
        inside = logical_and(index >= 1, index <= nbins)
        flat = index - 1 if flat is None else flat * nbins + (index - 1)
        valid = inside if valid is None else logical_and(valid, inside)
        all_edges.append(edges)
        shape.append(nbins)
    counts = _bin_sums(where(valid, flat, -1),
                       lax.full((n,), 1, np.int32) if w is None else w, math.prod(shape))
    counts = reshape(counts, shape)
    if density:
        counts = counts.astype(aval_of(x).dtype)
        counts = counts / _sum(counts)
        for k, edges in enumerate(all_edges):
            counts = counts / reshape(diff(edges), [-1 if j == k else 1 for j in builtins.range(d)])
    return counts, all_edges


def histogram2d(x, y, bins=10, range=None, weights=None, density=None):
    """The 2-d histogram of the points (`x`, `y`): `histogramdd` of their pairs, where
    `bins` is one count or edges array for both, or one per axis. Returns (counts,
    x edges, y edges).

    >>> import jaxwg.numpy as jnp
    >>> counts, xe, ye = jnp.histogram2d(jnp.array([0.0, 1.0]), jnp.array([0.0, 1.0]), bins=2)
    >>> counts.tolist(), xe.tolist()
    ([[1, 0], [0, 1]], [0.0, 0.5, 1.0])
    """
    check_arraylike("histogram2d", x, y)
    try:
        per_axis = len(bins)
    except TypeError:
        per_axis = 1
    if per_axis not in (1, 2):  # one edges array for both axes
        bins = [asarray(bins), asarray(bins)]
    sample = stack(promote(to_array(x), to_array(y)), axis=1)
    counts, edges = histogramdd(sample, bins, range, weights, density)
    return counts, edges[0], edges[1]


_SEARCH_METHODS = ("compare_all", "scan", "scan_unrolled", "sort")


def digitize(x, bins, right=False, *, method=None):
    """For each element of `x`, the index of its bin among the monotonic 1-d `bins`
    (int32): i such that bins[i-1] <= x < bins[i] for increasing bins (< and <= swapped
    with `right`; mirrored for decreasing ones). `method` is accepted for JAX's API;
    every method searches the same way here.

    >>> import jaxwg.numpy as jnp
    >>> jnp.digitize(jnp.array([0.5, 1.0, 7.0]), jnp.array([1.0, 2.0, 4.0])).tolist()
    [0, 1, 3]
    """
    check_arraylike("digitize", x, bins)
    if method is not None and method not in _SEARCH_METHODS:
        raise ValueError(f"invalid argument {method=}, expected one of {list(_SEARCH_METHODS)}")
    x, edges = promote(to_array(x), to_array(bins))
    if aval_of(edges).ndim != 1:
        raise ValueError(f"digitize: bins must be a 1-dimensional array; got bins={bins!r}")
    n = aval_of(edges).shape[0]
    if n == 0:
        return zeros(aval_of(x).shape, np.int32)
    side = "left" if right else "right"
    increasing = searchsorted(edges, x, side=side)
    decreasing = n - searchsorted(lax.rev(edges, (0,)), x, side=side)
    return where(edges[-1] >= edges[0], increasing, decreasing)
