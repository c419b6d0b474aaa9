"""`mode`, `rankdata` and `sem`, as `jax.scipy.stats`'s.

>>> import jaxwg.numpy as jnp
>>> round(sem(jnp.array([1.0, 2.0, 3.0])).item(), 6)
0.57735
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from ... import lax
from ... import numpy as jnp
from ...numpy._util import canonicalize_axis, check_arraylike
from ._util import promote_args_inexact

__all__ = ["ModeResult", "mode", "rankdata", "sem"]


class ModeResult(NamedTuple):
    mode: object
    count: object


_NAN_POLICIES = ("propagate", "omit", "raise")


def _check_nan_policy(name, nan_policy):
    if nan_policy not in _NAN_POLICIES:
        raise ValueError(f"Illegal nan_policy value {nan_policy!r}; expected one of "
                         "{'propagate', 'omit', 'raise'}")
    if nan_policy == "omit":
        raise NotImplementedError(f"Logic for `nan_policy` of {nan_policy} is not implemented")
    if nan_policy == "raise":
        raise NotImplementedError(
            f"In order to best JIT compile `{name}`, we cannot know whether `x` contains nans. "
            f"Please check if nans exist in `x` outside of the `{name}` function.")


def _sorted_runs(x):
    """`x` sorted along axis 0, and for each element the length of its run of equal
    values so far (NaNs equal to each other, as `jnp.unique` counts them)."""
    s = jnp.sort(x, axis=0)
    same = (s[1:] == s[:-1]) | (jnp.isnan(s[1:]) & jnp.isnan(s[:-1]))
    first = jnp.concatenate([jnp.ones((1,) + s.shape[1:], bool), ~same], axis=0)
    index = lax.broadcasted_iota(np.int32, s.shape, 0)
    start = lax.cummax(jnp.where(first, index, 0), axis=0)
    return s, index - start + 1


def mode(a, axis=0, nan_policy="propagate", keepdims=False):
    """The most frequent value along `axis` (the smallest of those tied) and its count, as
    a `ModeResult`; NaN and count 0 where `axis` is empty.

    >>> from jaxwg.scipy.stats import mode
    >>> import jaxwg.numpy as jnp
    >>> [r.item() for r in mode(jnp.array([3, 1, 3, 1, 2]))]
    [1, 2]
    """
    check_arraylike("mode", a)
    x = jnp.atleast_1d(a)
    _check_nan_policy("mode", nan_policy)
    if axis is not None:
        axis = canonicalize_axis(axis, x.ndim)
    shape = x.shape
    if keepdims:
        out_shape = tuple(1 if axis is None or i == axis else s for i, s in enumerate(shape))
    else:
        out_shape = () if axis is None else tuple(s for i, s in enumerate(shape) if i != axis)
    if axis is None:
        x, axis = x.ravel(), 0
    x = jnp.moveaxis(x, axis, 0)
    x = x.reshape(x.shape[0], math.prod(x.shape[1:]))
    if x.shape[0] == 0:
        nan = jnp.full(out_shape, jnp.nan, dtype=float)
        return ModeResult(nan, jnp.zeros(out_shape, dtype=float))
    s, counts = _sorted_runs(x)
    best = jnp.argmax(counts, axis=0)
    vals = jnp.take_along_axis(s, best[None], axis=0)[0]
    return ModeResult(vals.reshape(out_shape), counts.max(axis=0).reshape(out_shape))


def _invert_permutation(i):
    return jnp.empty_like(i).at[i].set(jnp.arange(i.size, dtype=i.dtype))


def rankdata(a, method="average", *, axis=None, nan_policy="propagate"):
    """The ranks (from 1) of the elements of `a`, ties resolved by `method` ('average',
    'min', 'max', 'dense' or 'ordinal'); all NaN if `a` has a NaN. Over all elements
    (flattened) unless `axis` is given.

    >>> from jaxwg.scipy.stats import rankdata
    >>> import jaxwg.numpy as jnp
    >>> rankdata(jnp.array([3, 1, 3, 2])).tolist()
    [3.5, 1.0, 3.5, 2.0]
    """
    check_arraylike("rankdata", a)
    _check_nan_policy("rankdata", nan_policy)
    if method not in ("average", "min", "max", "dense", "ordinal"):
        raise ValueError(f"unknown method '{method}'")
    if axis is not None:
        return jnp.apply_along_axis(rankdata, axis, a, method)
    a = jnp.ravel(a)
    out_dtype = jnp.result_type(float)  # the default float dtype

    def ranks(a):
        arr, sorter = lax.sort_key_val(a, jnp.arange(a.size))
        inv = _invert_permutation(sorter)
        if method == "ordinal":
            return (inv + 1).astype(out_dtype)
        obs = jnp.concatenate([jnp.array([True]), arr[1:] != arr[:-1]])
        dense = obs.cumsum()[inv]
        if method == "dense":
            return dense.astype(out_dtype)
        count = jnp.nonzero(obs, size=arr.size + 1, fill_value=obs.size)[0].astype(out_dtype)
        if method == "max":
            return count[dense]
        if method == "min":
            return count[dense - 1] + 1
        return 0.5 * (count[dense] + count[dense - 1] + 1)

    return lax.cond(jnp.any(jnp.isnan(a)), lambda a: jnp.full_like(a, jnp.nan, out_dtype),
                    ranks, a)


def sem(a, axis=0, ddof=1, nan_policy="propagate", *, keepdims=False):
    """The standard error of the mean along `axis`: std(ddof) / sqrt(n); with
    nan_policy='omit', of the non-NaN elements.

    >>> from jaxwg.scipy.stats import sem
    >>> import jaxwg.numpy as jnp
    >>> sem(jnp.array([[1.0, 2.0], [3.0, 6.0]]), axis=1).tolist()
    [0.5, 1.5]
    """
    (b,) = promote_args_inexact("sem", a)
    if nan_policy == "propagate":
        size = b.size if axis is None else b.shape[axis]
        return b.std(axis, ddof=ddof, keepdims=keepdims) / jnp.sqrt(size).astype(b.dtype)
    if nan_policy == "omit":
        count = (~jnp.isnan(b)).sum(axis, keepdims=keepdims)
        return (jnp.nanstd(b, axis, ddof=ddof, keepdims=keepdims)
                / jnp.sqrt(count).astype(b.dtype))
    raise ValueError(f"{nan_policy} is not supported")
