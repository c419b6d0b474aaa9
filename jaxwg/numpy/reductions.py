"""Reductions: `sum`, `prod`, `max`, `min`, `mean`, `var`, `std`, `argmax`, `argmin`, `any`, `all`.

Each takes `axis` (None, an int or a tuple), `keepdims`, and where JAX has them
`dtype`, `initial` and `where` (masked-out elements count as the identity). Sums of
bools and small integers accumulate in int32, float16 sums in float32 (the kernels
do that), and `mean`/`var` of integers are floats, as in JAX. A reduction fuses with
its elementwise producers and consumers: `jnp.sum(jnp.exp(x) * 2) / n` is one kernel.

>>> import jaxwg.numpy as jnp
>>> x = jnp.arange(6).reshape(2, 3)
>>> jnp.sum(x, axis=0), jnp.mean(x, axis=1, keepdims=True).shape
(Array([3, 5, 7], dtype=int32), (2, 1))
"""

from __future__ import annotations

import builtins
import functools
import math

import numpy as np

from ..core.alu_eval import cast_array

from .. import lax
from ..frontend import aval as avals
from ..frontend.jit import staged_jit
from ..lax.lax import _strong_full_like
from ..core import dtypes as dt
from ._util import (
    aval_of,
    broadcast_to_shape,
    canonicalize_axes,
    canonicalize_axis,
    check_arraylike,
    ensure_arraylike,
    reject_out,
)
from .ufuncs import greater, subtract
from .ufuncs import where as where_


def _keep(out, shape, axes, keepdims: bool):
    if keepdims:
        out = lax.expand_dims(out, sorted(axes))  # JAX's broadcast_in_dim
    return _constant_if_empty(out)


def _constant_if_empty(out):
    aval = aval_of(out)
    if aval.size == 0:  # nothing to compute: an empty constant (no kernel)
        from .creation import empty_constant

        out = empty_constant(aval.shape, aval.dtype, aval.weak_type)
    return out


def _identity(name: str, dtype: dt.DType):
    """The identity of reduction `name` as a NumPy scalar of `dtype` (so that uint32's
    4294967295 is not read as an int32 first)."""
    if name in ("sum", "or"):
        value = 0
    elif name in ("prod", "and"):
        value = 1
    else:
        lo, hi = dt.bounds(dtype)
        if dtype.is_bool:
            lo, hi = False, True
        value = lo if name == "max" else hi
    return np.asarray(value, dtype.np)[()]


_PRIMS = {"sum": lax.reduce_sum, "prod": lax.reduce_prod, "max": lax.reduce_max,
          "min": lax.reduce_min, "or": lax.reduce_or, "and": lax.reduce_and}
_COMBINE = {"sum": lax.add, "prod": lax.mul, "max": lax.max, "min": lax.min, "or": lax.bitwise_or,
            "and": lax.bitwise_and}
# With dtype=bool, sums are `or` and products `and` (as NumPy and JAX's `bool_op`).
_BOOL_NAME = {"sum": "or", "prod": "and", "max": "max", "min": "min"}


# The default integer of each kind (canonicalized: int32 and uint32).
_DEFAULT_INT = {"b": "int64", "i": "int64", "u": "uint64"}


def _sum_dtype(dtype: dt.DType, promote_integers: bool = False) -> dt.DType:
    """Sums and products of bool promote to the default int, and with `promote_integers`
    so do narrower integers (unsigned ones to the default unsigned int), as in JAX."""
    if dtype.is_bool or (promote_integers and dtype.is_int):
        return avals.canonical_dtype(_DEFAULT_INT[dtype.kind])
    return dtype


def _where(name: str, where):
    """A `where` mask checked as JAX's `check_where` does for `name`: an array-like of
    bools (None stays).

    >>> _where("sum", np.array([1, 0]))
    Traceback (most recent call last):
    ValueError: jnp.sum: where must be None or a boolean array; got where.dtype=dtype('int32').
    """
    if where is None:
        return None
    where = ensure_arraylike(name, where)
    dtype = aval_of(where).dtype
    if not dtype.is_bool:
        raise ValueError(f"jnp.{name}: where must be None or a boolean array; got "
                         f"where.dtype={dtype.np!r}.")
    return where


def _reduction(name: str, a, axis, dtype, keepdims, initial, where, promote_bool: bool,
               promote_integers: bool = False):
    x = ensure_arraylike(name, a)
    where = _where(name, where)
    aval = aval_of(x)
    axes = canonicalize_axes(axis, aval.ndim)
    out_dtype = avals.canonical_dtype(dtype) if dtype is not None else (
        _sum_dtype(aval.dtype, promote_integers) if promote_bool else aval.dtype)
    # float16 sums and products accumulate in float32 and round once, as in JAX
    # (`initial` included).
    compute = dt.float32 if out_dtype is dt.float16 and name in ("sum", "prod") else out_dtype
    if aval.dtype.is_bool and name in ("sum", "prod"):  # JAX's `_cast_to_numeric` first
        x = lax.convert_element_type(x, dt.int32)
        aval = aval_of(x)
    if compute is not aval.dtype or aval.weak_type:  # JAX converts before reducing
        x = lax.convert_element_type(x, compute)
    if name in ("max", "min") and initial is None and where is None and builtins.any(
            aval.shape[i] == 0 for i in axes):
        raise ValueError(f"zero-size array to reduction operation {name} which has no identity")
    if where is not None and name in ("max", "min") and initial is None:
        raise ValueError(f"reduction operation {name} does not have an identity, so to use a "
                         "where mask one has to specify 'initial'")
    op = _BOOL_NAME[name] if compute.is_bool else name
    if where is not None:  # JAX's `_where` (one jit equation) of the identity
        x = where_(where, x, _identity(op, compute))
    out = _PRIMS[op](x, axes)
    if initial is not None:  # combined initial first, as JAX's (jaxprs print this order)
        out = _COMBINE[op](lax.convert_element_type(_initial_value(initial, compute), compute),
                           out)
    out = lax.convert_element_type(out, out_dtype)
    return _keep(out, aval.shape, axes, keepdims)


def _initial_value(initial, dtype: dt.DType):
    """`initial` as a value of `dtype`: a Python int wraps into uint32 and a float
    truncates and saturates into an integer type (NaN to 0), as JAX's do."""
    if isinstance(initial, (int, float, bool, np.generic)) and not dtype.is_float:
        return cast_array(np.asarray(initial), dtype)[()]
    return initial


def sum(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None,
        promote_integers=True):
    """Sum over `axis` (bools sum as int32; with `promote_integers`, int8 and int16 as
    int32, uint8 and uint16 as uint32).

    >>> import jaxwg.numpy as jnp
    >>> jnp.sum(jnp.ones((2, 3)), axis=1)
    Array([3., 3.], dtype=float32)
    >>> jnp.sum(jnp.array([200, 100], jnp.uint8))
    Array(300, dtype=uint32)
    """
    reject_out("sum", out)
    return _reduction("sum", a, axis, dtype, keepdims, initial, where, True, promote_integers)


def prod(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None,
         promote_integers=True):
    """Product over `axis`.

    >>> import jaxwg.numpy as jnp
    >>> jnp.prod(jnp.arange(1, 5))
    Array(24, dtype=int32)
    """
    reject_out("prod", out)
    return _reduction("prod", a, axis, dtype, keepdims, initial, where, True, promote_integers)


def max(a, axis=None, out=None, keepdims=False, initial=None, where=None):
    """Largest element over `axis` (NaN if any element is NaN).

    >>> import jaxwg.numpy as jnp
    >>> jnp.max(jnp.array([[1, 5], [3, 2]]), axis=0)
    Array([3, 5], dtype=int32)
    """
    reject_out("max", out)
    return _reduction("max", a, axis, None, keepdims, initial, where, False)


def min(a, axis=None, out=None, keepdims=False, initial=None, where=None):
    """Smallest element over `axis` (NaN if any element is NaN).

    >>> import jaxwg.numpy as jnp
    >>> jnp.min(jnp.array([[1, 5], [3, 2]]), axis=1)
    Array([1, 2], dtype=int32)
    """
    reject_out("min", out)
    return _reduction("min", a, axis, None, keepdims, initial, where, False)


amax, amin = max, min


def _bool_reduction(name: str, a, axis, keepdims, where):
    x = ensure_arraylike(name, a)
    where = _where(name, where)
    aval = aval_of(x)
    x = lax.convert_element_type(x, np.bool_)  # as JAX's: strips a weak type
    axes = canonicalize_axes(axis, aval.ndim)
    if where is not None:
        x = where_(where, x, np.bool_(name == "all"))
    out = (lax.reduce_and if name == "all" else lax.reduce_or)(x, axes)
    return _keep(out, aval.shape, axes, keepdims)


def all(a, axis=None, out=None, keepdims=False, *, where=None):
    """Whether every element over `axis` is true (nonzero).

    >>> import jaxwg.numpy as jnp
    >>> jnp.all(jnp.array([[1, 0], [1, 1]]), axis=1).tolist()
    [False, True]
    """
    reject_out("all", out)
    return _bool_reduction("all", a, axis, keepdims, where)


def any(a, axis=None, out=None, keepdims=False, *, where=None):
    """Whether some element over `axis` is true (nonzero).

    >>> import jaxwg.numpy as jnp
    >>> jnp.any(jnp.array([[1, 0], [0, 0]]), axis=1).tolist()
    [True, False]
    """
    reject_out("any", out)
    return _bool_reduction("any", a, axis, keepdims, where)


def _count(aval, axes, where, dtype: dt.DType, keepdims: bool = False):
    """The number of elements reduced over `axes` (those in `where`, a sum of the mask as
    JAX's `_count`) as `dtype`, with the reduced axes kept where `keepdims`."""
    if where is None:
        return lax.convert_element_type(math.prod(aval.shape[i] for i in axes), dtype)
    return sum(broadcast_to_shape(where, aval.shape), axis=axes, dtype=dtype, keepdims=keepdims)


def _mean_dtype(aval_dtype: dt.DType, dtype):
    if dtype is not None:
        return avals.canonical_dtype(dtype)
    return aval_dtype if aval_dtype.is_inexact else avals.canonical_dtype("float64")


def mean(a, axis=None, dtype=None, out=None, keepdims=False, *, where=None):
    """Arithmetic mean over `axis` (a float; float16 accumulates in float32).

    >>> import jaxwg.numpy as jnp
    >>> jnp.mean(jnp.arange(4))
    Array(1.5, dtype=float32)
    """
    reject_out("mean", out)
    x = ensure_arraylike("mean", a)
    where = _where("mean", where)
    aval = aval_of(x)
    axes = canonicalize_axes(axis, aval.ndim)
    out_dtype = _mean_dtype(aval.dtype, dtype)
    compute = dt.float32 if out_dtype is dt.float16 else out_dtype
    # As JAX's: the count, then the sum with its axes kept (where `keepdims`) over it.
    count = _count(aval, axes, where, compute, keepdims)
    total = sum(x, axis=axes, dtype=compute, keepdims=keepdims, where=where)
    return _constant_if_empty(lax.convert_element_type(lax.div(total, count), out_dtype))


_COMPLEX_VAR_REAL_DTYPE = (
    "jax.numpy.var does not yet support real dtype parameters when computing the variance "
    "of an array of complex values. The semantics of numpy.var seem unclear in this case. "
    "Please comment on https://github.com/jax-ml/jax/issues/2283 if this behavior is "
    "important to you.")


def _var_dtypes(a_dtype: dt.DType, dtype) -> tuple[dt.DType, dt.DType]:
    """(computation, result) dtypes of a variance, as JAX's `_var_promote_types`: a given
    `dtype` is both (a real one is refused for complex input); else integers give the
    default float, and complex input computes in complex for a real result. float16
    computes in float32."""
    if dtype is not None:
        compute = result = avals.canonical_dtype(dtype)
        if a_dtype.is_complex and not result.is_complex:
            raise ValueError(_COMPLEX_VAR_REAL_DTYPE)
    elif a_dtype.is_inexact:
        compute, result = a_dtype, dt.PART.get(a_dtype, a_dtype)
    else:
        compute = result = avals.canonical_dtype("float64")
    return (dt.float32 if compute is dt.float16 else compute), result


def _ddof(ddof, correction):
    """The degrees of freedom from `ddof` or its Array API name `correction` (not both:
    JAX takes only a plain int 0 as an unset `ddof`)."""
    if correction is None:
        return ddof
    if not isinstance(ddof, int) or ddof != 0:
        raise ValueError("ddof and correction can't be provided simultaneously.")
    return correction


def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=None,
        mean=None, correction=None):
    """Variance over `axis`: mean of squared deviations, divided by `N - ddof`
    (`correction` is another name for `ddof`; `mean`, a precomputed mean that broadcasts
    against `a`, e.g. from `keepdims=True`).

    >>> import jaxwg.numpy as jnp
    >>> x = jnp.array([1.0, 2.0, 3.0, 4.0])
    >>> jnp.var(x), jnp.var(x, mean=jnp.mean(x, keepdims=True), correction=1)
    (Array(1.25, dtype=float32), Array(1.6666666, dtype=float32))
    """
    reject_out("var", out)
    correction = _ddof(ddof, correction)
    x = ensure_arraylike("var", a)
    axes = canonicalize_axes(axis, aval_of(x).ndim)
    return _var(x, axis=axes, dtype=dtype, correction=correction, keepdims=keepdims,
                where=_where("var", where), a_mean=mean)


@functools.partial(staged_jit, static_argnames=("axis", "dtype", "keepdims"))
def _var(a, *, axis, dtype, correction, keepdims, where, a_mean):
    """JAX's `_var`, one `jit` equation with the correction as an argument: the squares of
    `a - a_mean` summed, over N - correction, NaN where that is not positive."""
    compute, out_dtype = _var_dtypes(aval_of(a).dtype, dtype)
    a = lax.convert_element_type(a, compute)
    if a_mean is None:
        a_mean = mean(a, axis=axis, dtype=compute, keepdims=True, where=where)
    else:  # as JAX: lax.sub, so a mean of another rank is an error rather than broadcast
        a_mean = lax.convert_element_type(ensure_arraylike("var", a_mean), compute)
    centered = lax.sub(a, a_mean)
    if compute.is_complex:  # |z - mean|^2, real
        centered = lax.real(lax.mul(centered, lax.conj(centered)))
        compute = aval_of(centered).dtype
    else:
        centered = lax.square(centered)
    count = _count(aval_of(a), axis, where, compute, keepdims)
    normalizer = lax.sub(count, lax.convert_element_type(correction, compute))
    total = sum(centered, axis=axis, dtype=compute, keepdims=keepdims, where=where)
    result = lax.convert_element_type(lax.div(total, normalizer), out_dtype)
    return _constant_if_empty(where_(greater(normalizer, 0), result, np.nan))


def std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=None,
        mean=None, correction=None):
    """Standard deviation: `sqrt(var(...))`.

    >>> import jaxwg.numpy as jnp
    >>> jnp.std(jnp.array([1.0, 3.0]))
    Array(1., dtype=float32)
    """
    reject_out("std", out)
    correction = _ddof(ddof, correction)
    x = ensure_arraylike("std", a)
    where = _where("std", where)
    if dtype is not None and not avals.canonical_dtype(dtype).is_inexact:
        raise ValueError("dtype argument to jnp.std must be inexact; got "
                         f"{avals.canonical_dtype(dtype)}")
    axes = canonicalize_axes(axis, aval_of(x).ndim)
    return _std(x, axis=axes, dtype=dtype, correction=correction, keepdims=keepdims, where=where,
                mean=mean)


@functools.partial(staged_jit, static_argnames=("axis", "dtype", "keepdims"))
def _std(a, *, axis, dtype, correction, keepdims, where, mean):
    """JAX's `_std`: one `jit` equation around `_var`'s."""
    return lax.sqrt(var(a, axis, dtype, None, keepdims=keepdims, where=where, mean=mean,
                        correction=correction))


def _arg(name: str, a, axis, keepdims):
    x = ensure_arraylike(name, a)
    aval = aval_of(x)
    if axis is None:
        if aval.size == 0:
            raise ValueError(f"attempt to get {name} of an empty sequence")
        x = lax.reshape(x, (aval.size,))
        out = (lax.argmax if name == "argmax" else lax.argmin)(x, 0, dt.int32)
        return lax.reshape(out, (1,) * aval.ndim) if keepdims else out
    ax = canonicalize_axis(axis, aval.ndim)
    if aval.shape[ax] == 0:
        raise ValueError(f"attempt to get {name} of an empty sequence")
    out = (lax.argmax if name == "argmax" else lax.argmin)(x, ax, dt.int32)
    return _keep(out, aval.shape, (ax,), keepdims)


def argmax(a, axis=None, out=None, keepdims=None):
    """Index of the largest element (the first NaN if any; flat index when axis is None).

    >>> import jaxwg.numpy as jnp
    >>> jnp.argmax(jnp.array([1.0, 3.0, 2.0]))
    Array(1, dtype=int32)
    """
    reject_out("argmax", out)
    return _arg("argmax", a, axis, bool(keepdims))


def argmin(a, axis=None, out=None, keepdims=None):
    """Index of the smallest element (the first NaN if any; flat index when axis is None).

    >>> import jaxwg.numpy as jnp
    >>> jnp.argmin(jnp.array([[1, 0], [2, 3]]), axis=1).tolist()
    [1, 0]
    """
    reject_out("argmin", out)
    return _arg("argmin", a, axis, bool(keepdims))


def count_nonzero(a, axis=None, keepdims=False):
    """How many elements over `axis` are nonzero.

    >>> import jaxwg.numpy as jnp
    >>> jnp.count_nonzero(jnp.array([0, 1, 2]))
    Array(2, dtype=int32)
    """
    x = ensure_arraylike("count_nonzero", a)
    nonzero = lax.ne(x, lax.full_like(x, 0)) if not aval_of(x).dtype.is_bool else x
    return sum(nonzero, axis=axis, keepdims=keepdims)


def ptp(a, axis=None, out=None, keepdims=False):
    """max - min over `axis`.

    >>> import jaxwg.numpy as jnp
    >>> jnp.ptp(jnp.array([3, 1, 4]))
    Array(3, dtype=int32)
    """
    reject_out("ptp", out)
    check_arraylike("ptp", a)
    return lax.sub(max(a, axis, keepdims=keepdims), min(a, axis, keepdims=keepdims))


@functools.partial(staged_jit, static_argnames=("axis", "dtype", "keepdims"))  # as JAX's
def nansum(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
    """Sum treating NaN as zero.

    >>> import jaxwg.numpy as jnp
    >>> jnp.nansum(jnp.array([1.0, jnp.nan, 2.0]))
    Array(3., dtype=float32)
    """
    reject_out("nansum", out)
    return _nan_reduction("nansum", sum, a, axis, keepdims, 0, False, where, dtype=dtype,
                          initial=initial)


def _isnan(x):
    """NaN test of the nan* functions: `x != x`, as JAX's `lax._isnan` (for complex, true
    where either part is NaN)."""
    return lax.ne(x, x)


def _nan_reduction(name: str, reduce, a, axis, keepdims, identity, nan_if_all_nan: bool,
                   where, **kw):
    """JAX's `_nan_reduction`: `reduce` of `a` over `where` with NaNs (complex: a NaN
    part) replaced by `identity`; NaN where a slice is all NaN when `nan_if_all_nan`."""
    x = ensure_arraylike(name, a)
    kw["where"] = _where(name, where)
    if not aval_of(x).dtype.is_inexact:
        return reduce(x, axis, keepdims=keepdims, **kw)
    out = reduce(where_(_isnan(x), _strong_full_like(x, identity, ()), x), axis, keepdims=keepdims, **kw)
    if nan_if_all_nan:
        out = where_(all(_isnan(x), axis, keepdims=keepdims), _strong_full_like(x, math.nan, ()), out)
    return out


@functools.partial(staged_jit, static_argnames=("axis", "keepdims"))  # as JAX's
def nanmax(a, axis=None, out=None, keepdims=False, initial=None, where=None):
    """Largest element over `axis`, ignoring NaN (NaN where all are NaN and there is no
    `initial`).

    >>> import jaxwg.numpy as jnp
    >>> jnp.nanmax(jnp.array([1.0, jnp.nan, 3.0])).item()
    3.0
    """
    reject_out("nanmax", out)
    return _nan_reduction("nanmax", max, a, axis, keepdims, -math.inf, initial is None, where,
                          initial=initial)


@functools.partial(staged_jit, static_argnames=("axis", "keepdims"))  # as JAX's
def nanmin(a, axis=None, out=None, keepdims=False, initial=None, where=None):
    """Smallest element over `axis`, ignoring NaN (NaN where all are NaN and there is no
    `initial`).

    >>> import jaxwg.numpy as jnp
    >>> jnp.nanmin(jnp.array([1.0, jnp.nan, 3.0])).item()
    1.0
    """
    reject_out("nanmin", out)
    return _nan_reduction("nanmin", min, a, axis, keepdims, math.inf, initial is None, where,
                          initial=initial)


@functools.partial(staged_jit, static_argnames=("axis", "dtype", "keepdims"))  # as JAX's
def nanprod(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
    """Product over `axis`, NaN counted as one.

    >>> import jaxwg.numpy as jnp
    >>> jnp.nanprod(jnp.array([2.0, jnp.nan, 3.0])).item()
    6.0
    """
    reject_out("nanprod", out)
    return _nan_reduction("nanprod", prod, a, axis, keepdims, 1, False, where, dtype=dtype,
                          initial=initial)


@functools.partial(staged_jit, static_argnames=("axis", "dtype", "keepdims"))  # as JAX's
def nanmean(a, axis=None, dtype=None, out=None, keepdims=False, where=None):
    """Mean over `axis` of the elements that are not NaN (NaN where all are). As JAX's,
    the count of those elements is summed in the result dtype (float16 input counts in
    float16).

    >>> import jaxwg.numpy as jnp
    >>> jnp.nanmean(jnp.array([1.0, jnp.nan, 3.0])).item()
    2.0
    """
    reject_out("nanmean", out)
    x = ensure_arraylike("nanmean", a)
    where = _where("nanmean", where)
    a_dtype = aval_of(x).dtype
    if not a_dtype.is_inexact:
        return mean(x, axis, dtype, keepdims=keepdims, where=where)
    dtype = a_dtype if dtype is None else avals.canonical_dtype(dtype)
    count = sum(lax.bitwise_not(_isnan(x)), axis, dtype, keepdims=keepdims, where=where)
    return lax.div(nansum(x, axis, dtype, keepdims=keepdims, where=where), count)


@functools.partial(staged_jit, static_argnames=("axis", "dtype", "keepdims"))  # as JAX's
def nanvar(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, where=None,
           mean=None):
    """Variance over `axis` of the elements that are not NaN (`mean`: a precomputed mean,
    as in `var`); NaN where N - ddof is not positive.

    >>> import jaxwg.numpy as jnp
    >>> jnp.nanvar(jnp.array([1.0, jnp.nan, 3.0])).item()
    1.0
    """
    reject_out("nanvar", out)
    x = ensure_arraylike("nanvar", a)
    where = _where("nanvar", where)
    compute, out_dtype = _var_dtypes(aval_of(x).dtype, dtype)
    x = lax.convert_element_type(x, compute)
    if mean is None:
        a_mean = nanmean(x, axis, dtype=compute, keepdims=True, where=where)
    else:  # as JAX: lax.sub, so a mean of another rank is an error rather than broadcast
        a_mean = lax.convert_element_type(ensure_arraylike("nanvar", mean), compute)
    # NaNs deviate by 0, not NaN - mean: the double-where that keeps gradients finite
    centered = where_(_isnan(x), 0, lax.sub(x, a_mean))
    if compute.is_complex:  # |z - mean|^2, real
        squares = lax.real(lax.mul(centered, lax.conj(centered)))
    else:
        squares = lax.square(centered)
    count = subtract(sum(lax.bitwise_not(_isnan(x)), axis, keepdims=keepdims, where=where), ddof)
    too_few = lax.le(count, _strong_full_like(count, 0, ()))
    total = where_(too_few, np.nan, sum(squares, axis, keepdims=keepdims, where=where))
    divisor = where_(too_few, 1, count)
    result = lax.div(total, lax.convert_element_type(divisor, aval_of(total).dtype))
    return lax.convert_element_type(result, out_dtype)


@functools.partial(staged_jit, static_argnames=("axis", "dtype", "keepdims"))  # as JAX's
def nanstd(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, where=None,
           mean=None):
    """Standard deviation over `axis` of the elements that are not NaN.

    >>> import jaxwg.numpy as jnp
    >>> jnp.nanstd(jnp.array([1.0, jnp.nan, 3.0])).item()
    1.0
    """
    reject_out("nanstd", out)
    check_arraylike("nanstd", a)
    where = _where("nanstd", where)
    return lax.sqrt(nanvar(a, axis, dtype, None, ddof, keepdims, where, mean))


# -- cumulative ----------------------------------------------------------------------------


def _cumulative(name: str, x, axis, dtype, nan_identity=None, promote_integers=False):
    """The running `name` ("sum" or "prod") along `axis` (all elements, flattened, when
    None); bools accumulate in the default int, and with `promote_integers` so do small
    integers (unsigned ones in the default unsigned int), as in JAX; with `nan_identity`,
    NaNs count as it (the nancum* functions)."""
    from ..lax import cumulative

    if axis is None:
        x = lax.reshape(x, (aval_of(x).size,))
        axis = 0
    aval = aval_of(x)
    (axis,) = canonicalize_axes(axis, builtins.max(aval.ndim, 1)) if aval.ndim else (0,)
    out_dtype = (avals.canonical_dtype(dtype) if dtype is not None
                 else _sum_dtype(aval.dtype, promote_integers))
    if out_dtype is not aval.dtype or aval.weak_type:  # strongly typed, as JAX's
        x = lax.convert_element_type(x, out_dtype)
    if nan_identity is not None and out_dtype.is_inexact:
        x = lax.select(lax.ne(x, x), lax.full_like(x, nan_identity), x)
    return getattr(cumulative, "cum" + name)(x, axis)


@functools.partial(staged_jit, static_argnames=("axis", "dtype"))  # as JAX's
def cumsum(a, axis=None, dtype=None, out=None):
    """Running sum along `axis` (flattened when None).

    >>> import jaxwg.numpy as jnp
    >>> jnp.cumsum(jnp.array([[1, 2], [3, 4]])).tolist()
    [1, 3, 6, 10]
    """
    reject_out("cumsum", out)
    return _cumulative("sum", ensure_arraylike("cumsum", a), axis, dtype)


@functools.partial(staged_jit, static_argnames=("axis", "dtype"))  # as JAX's
def cumprod(a, axis=None, dtype=None, out=None):
    """Running product along `axis` (flattened when None).

    >>> import jaxwg.numpy as jnp
    >>> jnp.cumprod(jnp.array([1.0, 2.0, 3.0])).tolist()
    [1.0, 2.0, 6.0]
    """
    reject_out("cumprod", out)
    return _cumulative("prod", ensure_arraylike("cumprod", a), axis, dtype)


@functools.partial(staged_jit, static_argnames=("axis", "dtype"))  # as JAX's
def nancumsum(a, axis=None, dtype=None, out=None):
    """Running sum along `axis`, NaNs counted as zero.

    >>> import jaxwg.numpy as jnp
    >>> jnp.nancumsum(jnp.array([1.0, jnp.nan, 3.0])).tolist()
    [1.0, 1.0, 4.0]
    """
    reject_out("nancumsum", out)
    return _cumulative("sum", ensure_arraylike("nancumsum", a), axis, dtype, nan_identity=0)


@functools.partial(staged_jit, static_argnames=("axis", "dtype"))  # as JAX's
def nancumprod(a, axis=None, dtype=None, out=None):
    """Running product along `axis`, NaNs counted as one.

    >>> import jaxwg.numpy as jnp
    >>> jnp.nancumprod(jnp.array([2.0, jnp.nan, 3.0])).tolist()
    [2.0, 2.0, 6.0]
    """
    reject_out("nancumprod", out)
    return _cumulative("prod", ensure_arraylike("nancumprod", a), axis, dtype, nan_identity=1)


def _cumulative_with_initial(name: str, x, axis, dtype, include_initial: bool):
    x = ensure_arraylike(f"cumulative_{name}", x)
    ndim = aval_of(x).ndim
    if ndim == 0:
        what = "sum" if name == "sum" else "product"
        raise ValueError(f"The input must be non-scalar to take a cumulative {what}, however a "
                         "scalar value or scalar array was given.")
    if axis is None:
        if ndim > 1:
            raise ValueError(f"cumulative_{name}: axis must be specified for an array of "
                             f"dimension {ndim}")
        axis = 0
    # JAX's cumulative_sum promotes small integers as `sum` does; cumulative_prod does not.
    out = _cumulative(name, x, axis, dtype, promote_integers=name == "sum")
    if include_initial:
        axis = canonicalize_axes(axis, ndim)[0]
        shape = list(aval_of(out).shape)
        shape[axis] = 1
        first = lax.full(shape, 0 if name == "sum" else 1, aval_of(out).dtype)
        out = lax.concatenate([first, out], axis)
    return out


def cumulative_sum(x, /, *, axis=None, dtype=None, include_initial=False):
    """The Array API's running sum (`include_initial` prepends the zero).

    >>> import jaxwg.numpy as jnp
    >>> jnp.cumulative_sum(jnp.array([1, 2, 3]), include_initial=True).tolist()
    [0, 1, 3, 6]
    """
    return _cumulative_with_initial("sum", x, axis, dtype, include_initial)


def cumulative_prod(x, /, *, axis=None, dtype=None, include_initial=False):
    """The Array API's running product (`include_initial` prepends the one).

    >>> import jaxwg.numpy as jnp
    >>> jnp.cumulative_prod(jnp.array([1, 2, 3]), include_initial=True).tolist()
    [1, 1, 2, 6]
    """
    return _cumulative_with_initial("prod", x, axis, dtype, include_initial)
