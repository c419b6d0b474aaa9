"""Order statistics and weighted means, with JAX's results: `quantile`, `percentile`,
`median` and their NaN-ignoring versions (sorting on the device; `q` may be traced),
`nanargmax`, `nanargmin`, `average`, `cov`, `corrcoef` and `searchsorted`.

>>> import jaxwg.numpy as jnp
>>> jnp.median(jnp.array([3.0, 1.0, 2.0, 10.0])).item()
2.5
"""

from __future__ import annotations

from functools import partial

import numpy as np

from .. import lax
from ..frontend.aval import canonical_dtype, is_python_scalar
from ..lax.sorting import order_keys
from . import ufuncs
from ._util import canonicalize_axis, check_arraylike, promote, reject_out, to_array
from .joining import concatenate
from .products import diagonal, dot
from .reductions import all as _all
from .reductions import any as _any
from .reductions import argmax as _argmax
from .reductions import argmin as _argmin
from .reductions import sum as _sum
from .manipulation import atleast_2d, expand_dims, ravel, squeeze
from .dtypes import result_type
from .selection import count_before, take, take_along_axis
from .sorting import sort

__all__ = ["average", "corrcoef", "cov", "median", "nanargmax", "nanargmin", "nanmedian",
           "nanpercentile", "nanquantile", "percentile", "quantile", "searchsorted"]

_METHODS = ("linear", "lower", "higher", "midpoint", "nearest")


def _reject_out_and_overwrite(name: str, out, overwrite_input) -> None:
    # JAX's message names quantile (nanquantile) for median and percentile too
    if out is not None or overwrite_input:
        raise ValueError(f"jax.numpy.{name} does not support overwrite_input=True or out != None")


def _take_per_slice(x, index, axis: int):
    """`x[..., index, ...]` along `axis`, where `index` (int32, the shape of `x` without
    `axis`) picks one element of each slice."""
    picked = take_along_axis(x, expand_dims(index, axis), axis, mode="promise_in_bounds")
    return squeeze(picked, axis)


def _reduced_layout(x, axis):
    """`x` with the axes to reduce (None: all; an int; a tuple) merged into one, that
    axis, and the shape `keepdims` gives the result."""
    ndim = x.ndim
    if axis is None:
        return ravel(x), 0, (1,) * ndim
    if not isinstance(axis, (tuple, list)):
        axis = canonicalize_axis(axis, ndim)
        return x, axis, x.shape[:axis] + (1,) + x.shape[axis + 1:]
    axes = [canonicalize_axis(ax, ndim) for ax in axis]
    if len(set(axes)) != len(axes):
        raise ValueError("repeated axis")
    kept = [d for d in range(ndim) if d not in axes]
    # the kept axes first, the reduced ones merged last
    x_moved = lax.transpose(x, kept + axes)
    merged = tuple(x.shape[d] for d in kept) + (int(np.prod([x.shape[d] for d in axes])),)
    kept_shape = tuple(1 if d in axes else x.shape[d] for d in range(ndim))
    return lax.reshape(x_moved, merged), len(kept), kept_shape


def _neighbours(x, count, axis: int, q):
    """The sorted samples around quantile `q` (0-d) of every slice of `x` whose first
    `count` samples are not NaN (NaNs sort last), and the weight of the upper one:
    positions per slice, on the device, so `q` may be traced. As in JAX the positions
    clamp to the samples and the weight does not: a `q` outside [0, 1] reads the first
    or last sample, and a slice of NaNs only its first sample, NaN."""
    pos = (count - 1) * q
    low, high = ufuncs.floor(pos), ufuncs.ceil(pos)

    def index(p):
        p = ufuncs.maximum(0, ufuncs.minimum(p, count - 1))
        return _take_per_slice(x, p.astype(np.int32), axis)

    return index(low), index(high), pos - low


def _interpolate(method: str, low_value, high_value, high_weight):
    if method == "lower":
        return low_value
    if method == "higher":
        return high_value
    if method == "nearest":
        return ufuncs.where(high_weight <= 0.5, low_value, high_value)
    if method == "midpoint":
        return (low_value + high_value) * 0.5
    # in q's dtype, as JAX: float16 samples interpolate in float32
    dtype = high_weight.dtype
    return low_value.astype(dtype) * (1 - high_weight) + high_value.astype(dtype) * high_weight


def _quantiles(q):
    """`q` as an array (it may be traced) in the dtype JAX computes the positions in: q's
    own if it is a float array, else the default float (float32 unless x64 is on)."""
    qs = to_array(q)
    if is_python_scalar(q) or not np.issubdtype(qs.dtype, np.inexact):
        qs = qs.astype(canonical_dtype(np.float64).np)
    return qs


def _quantile(name: str, a, q, axis, method, keepdims, ignore_nan: bool):
    check_arraylike(name, a, q)
    if method not in _METHODS:
        raise ValueError(f"method can only be one of {_METHODS}, got {method!r}")
    x = to_array(a)
    if np.issubdtype(x.dtype, np.complexfloating):
        raise ValueError("quantile does not support complex input, as the operation is poorly defined.")
    if not np.issubdtype(x.dtype, np.inexact):
        x = x.astype(np.float32)
    qs = _quantiles(q)
    if qs.ndim > 1:
        raise ValueError(f"q must be a scalar or 1d, got shape {qs.shape}")
    shape = x.shape
    x, axis, kept_shape = _reduced_layout(x, axis)
    if x.shape[axis] == 0:  # a TypeError, as JAX's (from its gather)
        raise TypeError(f"{name}: no samples to take quantiles of along the reduced axes of an "
                        f"array of shape {shape}")
    if ignore_nan:
        count = _sum(~ufuncs.isnan(x), axis=axis, dtype=qs.dtype)
    else:
        x = ufuncs.where(_any(ufuncs.isnan(x), axis=axis, keepdims=True), np.nan, x)
        count = lax.full(x.shape[:axis] + x.shape[axis + 1:], x.shape[axis], qs.dtype)
    neighbours = partial(_neighbours, sort(x, axis=axis), count, axis)
    results = []
    for qi in [qs] if qs.ndim == 0 else [qs[k] for k in range(qs.shape[0])]:
        r = _interpolate(method, *neighbours(qi)).astype(x.dtype)
        results.append(lax.reshape(r, kept_shape) if keepdims else r)
    if qs.ndim == 0:
        return results[0]
    return lax.concatenate([expand_dims(r, 0) for r in results], 0)


def quantile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
             keepdims=False):
    """The `q`-th quantiles (in [0, 1]; it may be traced) along `axis` (an int, a tuple,
    or None for all); NaN where a slice holds a NaN. `method`: linear, lower, higher,
    midpoint or nearest. As in JAX, a `q` outside [0, 1] reads the nearest end sample.

    >>> import jaxwg.numpy as jnp
    >>> jnp.quantile(jnp.arange(5.0), jnp.array([0.25, 0.9])).tolist()
    [1.0, 3.5999999046325684]
    """
    _reject_out_and_overwrite("quantile", out, overwrite_input)
    return _quantile("quantile", a, q, axis, method, keepdims, ignore_nan=False)


def nanquantile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
                keepdims=False):
    """`quantile` of the samples that are not NaN in each slice (NaN where all are).

    >>> import jaxwg.numpy as jnp
    >>> jnp.nanquantile(jnp.array([0.0, jnp.nan, 2.0, 3.0]), 0.5).item()
    2.0
    """
    _reject_out_and_overwrite("nanquantile", out, overwrite_input)
    return _quantile("nanquantile", a, q, axis, method, keepdims, ignore_nan=True)


def _percent(q):
    # q / 100, correctly rounded as JAX's source and NumPy say. XLA's CPU code rounds
    # it either way by a last bit (a reciprocal, fused products), so where q / 100 *
    # (n - 1) falls on a whole number, `lower` may pick the sample below JAX's there.
    qs = _quantiles(q)
    return qs / qs.dtype.type(100)


def percentile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
               keepdims=False):
    """`quantile` with `q` in percent.

    >>> import jaxwg.numpy as jnp
    >>> jnp.percentile(jnp.arange(5.0), 50).item()
    2.0
    """
    _reject_out_and_overwrite("quantile", out, overwrite_input)
    check_arraylike("percentile", a, q)
    return quantile(a, _percent(q), axis, method=method, keepdims=keepdims)


def nanpercentile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
                  keepdims=False):
    """`nanquantile` with `q` in percent.

    >>> import jaxwg.numpy as jnp
    >>> jnp.nanpercentile(jnp.array([jnp.nan, 1.0, 3.0]), 50).item()
    2.0
    """
    _reject_out_and_overwrite("nanquantile", out, overwrite_input)
    check_arraylike("nanpercentile", a, q)
    return nanquantile(a, _percent(q), axis, method=method, keepdims=keepdims)


def median(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """The middle of the sorted samples along `axis` (the midpoint of the two middle
    ones for an even count, as JAX).

    >>> import jaxwg.numpy as jnp
    >>> jnp.median(jnp.array([[1.0, 5.0, 2.0]]), axis=1).tolist()
    [2.0]
    """
    _reject_out_and_overwrite("quantile", out, overwrite_input)
    check_arraylike("median", a)
    return quantile(a, 0.5, axis=axis, method="midpoint", keepdims=keepdims)


def nanmedian(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """`median` of the samples that are not NaN in each slice (NaN where all are).

    >>> import jaxwg.numpy as jnp
    >>> jnp.nanmedian(jnp.array([[1.0, jnp.nan, 2.0], [jnp.nan, jnp.nan, 4.0]]), axis=1).tolist()
    [1.5, 4.0]
    """
    _reject_out_and_overwrite("nanquantile", out, overwrite_input)
    check_arraylike("nanmedian", a)
    return nanquantile(a, 0.5, axis=axis, method="midpoint", keepdims=keepdims)


def average(a, axis=None, weights=None, returned=False, keepdims=False):
    """The mean of `a` along `axis`, weighted by `weights` (the shape of `a`, or of the
    axes in `axis`); with `returned`, also the sum of the weights.

    >>> import jaxwg.numpy as jnp
    >>> jnp.average(jnp.array([1.0, 2.0, 4.0]), weights=jnp.array([1.0, 1.0, 2.0])).item()
    2.75
    """
    if weights is None:
        x = to_array(a)
        if not np.issubdtype(x.dtype, np.inexact):
            x = x.astype(np.float32)
        total = _sum(x, axis=axis, keepdims=keepdims)
        count = x.size if axis is None else np.prod([x.shape[i] for i in np.atleast_1d(axis)])
        avg = total / float(count)  # weakly typed: float16 stays float16, as JAX
        return (avg, lax.full_like(avg, float(count))) if returned else avg
    check_arraylike("average", a, weights)
    x, w = promote(to_array(a), to_array(weights), to_inexact=True)
    if w.shape != x.shape:
        w = _weights_along(w, x.shape, axis)
    scale = _sum(w, axis=axis, keepdims=keepdims)
    avg = _sum(x * w, axis=axis, keepdims=keepdims) / scale
    return (avg, scale) if returned else avg


def _weights_along(w, shape, axis):
    """Weights given along the reduced axes (in `axis`'s order) broadcast to `shape`,
    with JAX's ValueErrors for shapes that do not fit."""
    if axis is None:
        raise ValueError("Axis must be specified when shapes of a and weights differ.")
    axes = [canonicalize_axis(ax, len(shape)) for ax in np.atleast_1d(axis)]
    if w.shape != tuple(shape[ax] for ax in axes):
        raise ValueError("Shape of weights must be consistent with shape of a along specified axis.")
    order = tuple(int(k) for k in np.argsort(axes))
    return lax.broadcast_in_dim(lax.transpose(w, order), shape, tuple(sorted(axes)))


def searchsorted(a, v, side="left", sorter=None, *, method=None):
    """Where `v`'s elements would go in the sorted 1-d `a` to keep it sorted (int32):
    the count of elements before (`left`: strictly less; `right`: not greater), NaN
    sorting last as in `sort`; `sorter` gives the order of an unsorted `a`. Every
    `method` runs one binary search on the device (m log n work).

    >>> import jaxwg.numpy as jnp
    >>> jnp.searchsorted(jnp.array([1, 2, 2, 5]), jnp.array([2, 6]), side="right").tolist()
    [3, 4]
    """
    if side not in ("left", "right"):
        raise ValueError(f"{side!r} is an invalid value for keyword 'side'")
    if method not in (None, "scan", "scan_unrolled", "sort", "compare_all"):
        raise ValueError(f"{method!r} is an invalid value for keyword 'method'")
    check_arraylike("searchsorted", a, v, *([] if sorter is None else [sorter]))
    a, v = to_array(a), to_array(v)
    if a.ndim != 1:
        raise ValueError("a should be 1-dimensional")
    if sorter is not None:
        a = take(a, to_array(sorter), mode="clip")
    dtype = result_type(a, v)
    keys_a, keys_v = order_keys(a.astype(dtype)), order_keys(v.astype(dtype))
    return count_before(keys_a, keys_v, inclusive=side == "right")


def _nanarg(name: str, a, axis, keepdims):
    check_arraylike(name, a)
    x = to_array(a)
    arg = _argmax if name == "nanargmax" else _argmin
    if not np.issubdtype(x.dtype, np.inexact):
        return arg(x, axis=axis, keepdims=keepdims)
    nan = ufuncs.isnan(x)
    # NaNs can never win: -inf for argmax, +inf for argmin
    filler = -np.inf if name == "nanargmax" else np.inf
    out = arg(ufuncs.where(nan, filler, x), axis=axis, keepdims=keepdims)
    # -1 where a slice is all NaN, as JAX
    return ufuncs.where(_all(nan, axis=axis, keepdims=bool(keepdims)), -1, out)


def nanargmax(a, axis=None, out=None, keepdims=None):
    """Index of the largest element that is not NaN (flat index when `axis` is None);
    -1 where a slice is all NaN, as JAX (NumPy raises).

    >>> import jaxwg.numpy as jnp
    >>> jnp.nanargmax(jnp.array([[jnp.nan, 2.0, 1.0], [jnp.nan, jnp.nan, jnp.nan]]), axis=1).tolist()
    [1, -1]
    """
    reject_out("nanargmax", out)
    return _nanarg("nanargmax", a, axis, keepdims)


def nanargmin(a, axis=None, out=None, keepdims=None):
    """Index of the smallest element that is not NaN (flat index when `axis` is None);
    -1 where a slice is all NaN, as JAX (NumPy raises).

    >>> import jaxwg.numpy as jnp
    >>> jnp.nanargmin(jnp.array([jnp.nan, 2.0, 1.0])).item()
    2
    """
    reject_out("nanargmin", out)
    return _nanarg("nanargmin", a, axis, keepdims)


def _observation_weights(fweights, aweights, n: int):
    """The frequency and reliability weights of the `n` observations as their absolute
    values (as JAX: NumPy rejects negative ones): (their product or None, aweights)."""
    checked = []
    for name, weights in (("fweights", fweights), ("aweights", aweights)):
        if weights is not None:
            check_arraylike("cov", weights)
            weights = to_array(weights)
            if weights.ndim > 1:
                raise RuntimeError(f"cannot handle multidimensional {name}")
            if weights.shape[0] != n:
                raise RuntimeError(f"incompatible numbers of samples and {name}")
            if name == "fweights" and not np.issubdtype(weights.dtype, np.integer):
                raise TypeError("fweights must be integer.")
            weights = ufuncs.abs(weights)
        checked.append(weights)
    fw, aw = checked
    if fw is None or aw is None:
        return (aw if fw is None else fw), aw
    return fw * aw, aw


def _check_inexact_dtype(name: str, dtype) -> None:
    if dtype is not None and not np.issubdtype(np.dtype(dtype), np.inexact):
        raise ValueError(f"{name}: dtype must be a subclass of float or complex; got {dtype=}")


def cov(m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None,
        dtype=None):
    """The covariance matrix of the variables in the rows of `m` (columns if not
    `rowvar`) and of `y`, with optional frequency and reliability weights; a scalar for
    a single variable.

    >>> import jaxwg.numpy as jnp
    >>> jnp.cov(jnp.array([[0.0, 1.0, 2.0], [2.0, 1.0, 0.0]])).tolist()
    [[1.0, -1.0], [-1.0, 1.0]]
    """
    check_arraylike("cov", m, *([] if y is None else [y]))
    m, *ys = promote(*[to_array(v) for v in (m, y) if v is not None], to_inexact=True)
    if m.ndim > 2:
        raise ValueError("m has more than 2 dimensions")
    if ys and ys[0].ndim > 2:
        raise ValueError("y has more than 2 dimensions")
    _check_inexact_dtype("cov", dtype)
    x = atleast_2d(m)
    if not rowvar and m.ndim != 1:
        x = x.T
    if x.shape[0] == 0:
        return lax.full((0, 0), 0.0, canonical_dtype("float64"))
    if ys:
        y = atleast_2d(ys[0])
        # as JAX: a single row of y stays a row (m's transposes whenever m is 2-d)
        x = concatenate([x, y.T if not rowvar and y.shape[0] != 1 else y], axis=0)
    variables, n = x.shape
    if n == 0:
        return lax.full(() if variables == 1 else (variables, variables), np.nan, x.dtype)
    if ddof is None:
        ddof = 0 if bias else 1
    w, aweights = _observation_weights(fweights, aweights, n)
    if dtype is not None:
        x = x.astype(dtype)
        w = None if w is None else w.astype(dtype)
    mean, weight_sum = average(x, axis=1, weights=w, returned=True)
    weight_sum = weight_sum[0]
    # the normalization that makes the estimate unbiased for ddof=1 (NumPy's formula)
    if w is None:
        norm = n - ddof
    elif ddof == 0:
        norm = weight_sum
    elif aweights is None:
        norm = weight_sum - ddof
    else:
        norm = weight_sum - ddof * _sum(w * aweights) / weight_sum
    centered = x - expand_dims(mean, 1)
    weighted = centered if w is None else centered * w.astype(x.dtype)
    return squeeze(dot(centered, weighted.T) / norm)


def corrcoef(x, y=None, rowvar=True, dtype=None):
    """Pearson's correlation coefficients of the variables (`cov` normalized by the
    standard deviations, clipped to [-1, 1]).

    >>> import jaxwg.numpy as jnp
    >>> jnp.corrcoef(jnp.array([0.0, 1.0, 2.0]), jnp.array([2.0, 1.0, 0.0])).tolist()
    [[1.0, -1.0], [-1.0, 1.0]]
    """
    check_arraylike("corrcoef", x)
    _check_inexact_dtype("corrcoef", dtype)
    c = cov(x, y, rowvar, dtype=dtype)
    if c.ndim == 0:
        return c / c  # 1, or NaN for a constant (0/0), infinite or NaN variable
    stddev = ufuncs.sqrt(diagonal(c))
    c = c / expand_dims(stddev, 1) / expand_dims(stddev, 0)
    return ufuncs.clip(c, -1, 1)
