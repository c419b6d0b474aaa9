"""Order statistics and weighted means: `quantile`, `percentile`, `median` (sorting on the
device, `q` known at trace time), `average`, and `searchsorted`, with JAX's results.

>>> import jaxwg.numpy as jnp
>>> jnp.median(jnp.array([3.0, 1.0, 2.0, 10.0])).item()
2.5
"""

from __future__ import annotations

import numpy as np

from .. import lax
from . import ufuncs
from ._util import canonicalize_axis, to_array
from .reductions import any as _any
from .reductions import sum as _sum
from .shape import expand_dims, ravel
from .sorting import sort

__all__ = ["average", "median", "percentile", "quantile", "searchsorted"]

_METHODS = ("linear", "lower", "higher", "midpoint", "nearest")


def _reject_out_and_overwrite(out, overwrite_input) -> None:
    # JAX's message names quantile for median and percentile too
    if out is not None or overwrite_input:
        raise ValueError("jax.numpy.quantile does not support overwrite_input=True or out != None")


def _take(x, i: int, axis: int):
    lo, hi = [0] * x.ndim, list(x.shape)
    lo[axis], hi[axis] = i, i + 1
    return lax.squeeze(lax.slice(x, lo, hi), (axis,))


def quantile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
             keepdims=False):
    """The `q`-th quantiles (in [0, 1], known at trace time) along `axis`; NaN where a
    slice holds a NaN. `method`: linear, lower, higher, midpoint or nearest.

    >>> import jaxwg.numpy as jnp
    >>> jnp.quantile(jnp.arange(5.0), jnp.array([0.25, 0.9])).tolist()
    [1.0, 3.5999999046325684]
    """
    _reject_out_and_overwrite(out, overwrite_input)
    if method not in _METHODS:
        raise ValueError(f"method can only be one of {_METHODS}, got {method!r}")
    x = to_array(a)
    if not np.issubdtype(x.dtype, np.inexact):
        x = x.astype(np.float32)
    qs = np.asarray(q, np.float32)  # as JAX: q in the result dtype (float32)
    if qs.ndim > 1:
        raise ValueError(f"q must be a scalar or 1d, got shape {qs.shape}")
    if np.any((qs < 0) | (qs > 1)):
        raise ValueError("Quantiles must be in the range [0, 1]")
    ndim = x.ndim
    kept_shape = None
    if axis is None:
        kept_shape = (1,) * ndim  # keepdims of a reduction over every axis
        x, axis = ravel(x), 0
    else:
        axis = canonicalize_axis(axis, ndim)
    n = x.shape[axis]
    x = ufuncs.where(_any(ufuncs.isnan(x), axis=axis, keepdims=True), np.nan, x)
    x = sort(x, axis=axis)
    results = []
    for qi in np.atleast_1d(qs):
        pos = np.float32(qi) * np.float32(n - 1)  # float32 arithmetic, as JAX's
        low, high = np.floor(pos), np.ceil(pos)
        high_weight = np.float32(pos - low)
        low_value, high_value = _take(x, int(low), axis), _take(x, int(high), axis)
        if method == "linear":
            r = low_value * np.float32(1 - high_weight) + high_value * high_weight
        elif method == "lower":
            r = low_value
        elif method == "higher":
            r = high_value
        elif method == "nearest":
            r = low_value if high_weight <= 0.5 else high_value
        else:
            r = (low_value + high_value) * 0.5
        if keepdims:
            r = lax.reshape(r, kept_shape) if kept_shape is not None else expand_dims(r, axis)
        results.append(r)
    if qs.ndim == 0:
        return results[0]
    return lax.concatenate([expand_dims(r, 0) for r in results], 0)


def percentile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
               keepdims=False):
    """`quantile` with `q` in percent (q * 0.01 in float32: JAX's compiled q / 100 is that
    product, so a percentile on a sample boundary picks the same sample).

    >>> import jaxwg.numpy as jnp
    >>> jnp.percentile(jnp.arange(5.0), 50).item()
    2.0
    """
    _reject_out_and_overwrite(out, overwrite_input)
    return quantile(a, np.asarray(q, np.float32) * np.float32(0.01), axis, None, overwrite_input,
                    method, keepdims)


def median(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """The 0.5 quantile along `axis`.

    >>> import jaxwg.numpy as jnp
    >>> jnp.median(jnp.array([[1.0, 5.0, 2.0]]), axis=1).tolist()
    [2.0]
    """
    _reject_out_and_overwrite(out, overwrite_input)
    return quantile(a, 0.5, axis=axis, keepdims=keepdims)


def average(a, axis=None, weights=None, returned=False, keepdims=False):
    """The mean of `a` along `axis`, weighted by `weights` (same shape, or 1-d along
    `axis`); with `returned`, also the sum of the weights.

    >>> import jaxwg.numpy as jnp
    >>> jnp.average(jnp.array([1.0, 2.0, 4.0]), weights=jnp.array([1.0, 1.0, 2.0])).item()
    2.75
    """
    x = to_array(a)
    if not np.issubdtype(x.dtype, np.inexact):
        x = x.astype(np.float32)
    if weights is None:
        total = _sum(x, axis=axis, keepdims=keepdims)
        count = x.size if axis is None else np.prod([x.shape[i] for i in np.atleast_1d(axis)])
        avg = total / np.float32(count)
        return (avg, lax.full_like(avg, float(count))) if returned else avg
    w = to_array(weights)
    if w.shape != x.shape:
        if axis is None or w.ndim != 1:
            raise ValueError("Axis must be specified when shapes of a and weights differ.")
        ax = canonicalize_axis(axis, x.ndim)
        w = lax.broadcast_in_dim(w, x.shape, (ax,))
    w = w.astype(x.dtype)
    scale = _sum(w, axis=axis, keepdims=keepdims)
    avg = _sum(x * w, axis=axis, keepdims=keepdims) / scale
    return (avg, scale) if returned else avg


def searchsorted(a, v, side="left", sorter=None, *, method=None):
    """Where `v`'s elements would go in the sorted 1-d `a` to keep it sorted (int32):
    the count of elements before (`left`: strictly less; `right`: not greater), NaN
    sorting last as in `sort`.

    >>> import jaxwg.numpy as jnp
    >>> jnp.searchsorted(jnp.array([1, 2, 2, 5]), jnp.array([2, 6]), side="right").tolist()
    [3, 4]
    """
    if side not in ("left", "right"):
        raise ValueError(f"{side!r} is an invalid value for keyword 'side'")
    if sorter is not None:
        raise NotImplementedError("searchsorted: sorter is not supported yet")
    a, v = to_array(a), to_array(v)
    if a.ndim != 1:
        raise ValueError("a should be 1-dimensional")
    from ..lax.sorting import _order_key

    dtype = np.result_type(a.dtype, v.dtype)
    keys_a, keys_v = _order_key(a.astype(dtype)), _order_key(v.astype(dtype))
    # compare every element of v with every element of a (fused: no n x m buffer)
    a_b = lax.broadcast_in_dim(keys_a, v.shape + a.shape, (v.ndim,))
    v_b = lax.broadcast_in_dim(keys_v, v.shape + a.shape, tuple(range(v.ndim)))
    before = lax.lt(a_b, v_b) if side == "left" else lax.le(a_b, v_b)
    return lax.reduce_sum(lax.convert_element_type(before, np.int32), (v.ndim,))
