"""Polynomials as coefficient arrays, highest power first (NumPy's `poly1d` order):
`polyval` (Horner's rule in a `lax.scan`), `polyadd`, `polysub`, `polymul`
(a convolution), `polydiv` (long division in a `lax.scan`), `polyfit` (least squares),
`polyder`, `polyint`, `poly` (from roots or a matrix's eigenvalues), `roots` (a
companion matrix's eigenvalues) and `trim_zeros`, with JAX's results.

>>> import jaxwg.numpy as jnp
>>> from jaxwg.numpy.polynomials import polyval, polyder
>>> p = jnp.array([1.0, 0.0, -2.0])   # x^2 - 2
>>> polyval(p, jnp.array([0.0, 2.0])).tolist(), polyder(p).tolist()
([-2.0, 2.0], [2.0, 0.0])
"""

from __future__ import annotations

import operator

import numpy as np

from .. import lax
from ..frontend import aval as avals
from . import ufuncs
from ._util import (broadcast_shapes, broadcast_to_shape, canonicalize_axes, check_arraylike,
                    concrete, promote, static_value, to_array)
from .creation import arange, ones
from .general_eig import eigvals
from .joining import concatenate
from .manipulation import atleast_1d
from .products import dot, outer
from .reductions import all as _all
from .reductions import sum as _sum
from .signal import convolve
from .sorting import argsort
from .structure import diag, roll, vander

__all__ = ["poly", "polyadd", "polyder", "polydiv", "polyfit", "polyint", "polymul", "polysub",
           "polyval", "roots", "trim_zeros"]


def _order(m, name: str) -> int:
    """The order `m` of a derivative or integral: an integer known at trace time (a
    traced one raises ConcretizationTypeError, as JAX)."""
    return operator.index(static_value(m, f"The 'm' argument of jnp.{name}"))


def polyval(p, x, *, unroll=16):
    """The polynomial with coefficients `p` (along its first axis) at `x`, by Horner's
    rule; the result broadcasts `p.shape[1:]` with `x.shape`.

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg.numpy.polynomials import polyval
    >>> polyval(jnp.array([3, 0, 1]), jnp.array([1, 2])).tolist()
    [4, 13]
    """
    check_arraylike("polyval", p, x)
    p, x = promote(to_array(p), to_array(x))
    shape = broadcast_shapes(p.shape[1:], x.shape)
    start = lax.full(shape, 0, x.dtype)
    value, _ = lax.scan(lambda y, coefficient: (y * x + coefficient, None), start, p,
                        unroll=unroll)
    return value


def polyadd(a1, a2):
    """The sum of two polynomials (the shorter one aligned with the end of the longer).

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg.numpy.polynomials import polyadd
    >>> polyadd(jnp.array([1, 2, 3]), jnp.array([10, 20])).tolist()
    [1, 12, 23]
    """
    check_arraylike("polyadd", a1, a2)
    a1, a2 = promote(to_array(a1), to_array(a2))
    longer, shorter = (a1, a2) if a2.shape[0] <= a1.shape[0] else (a2, a1)
    # the shorter one, broadcast to the longer's trailing axes, with leading zeros
    shorter = broadcast_to_shape(shorter, shorter.shape[:1] + longer.shape[1:])
    missing = longer.shape[0] - shorter.shape[0]
    padding = [(missing, 0, 0)] + [(0, 0, 0)] * (longer.ndim - 1)
    return longer + lax.pad(shorter, lax.full((), 0, shorter.dtype), padding)


def polysub(a1, a2):
    """The difference of two polynomials (aligned at the end, as `polyadd`).

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg.numpy.polynomials import polysub
    >>> polysub(jnp.array([1.0, 2.0]), jnp.array([3.0, 4.0, 5.0])).tolist()
    [-3.0, -3.0, -3.0]
    """
    check_arraylike("polysub", a1, a2)
    a1, a2 = promote(to_array(a1), to_array(a2))
    return polyadd(a1, -a2)


def polymul(a1, a2, *, trim_leading_zeros=False):
    """The product of two 1-d polynomials (their full convolution; an empty one is 0).
    `trim_leading_zeros` drops leading zero coefficients first (concrete inputs only).

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg.numpy.polynomials import polymul
    >>> polymul(jnp.array([1.0, 1.0]), jnp.array([1.0, -1.0])).tolist()
    [1.0, 0.0, -1.0]
    """
    check_arraylike("polymul", a1, a2)
    a1, a2 = promote(to_array(a1), to_array(a2), to_inexact=True)
    if trim_leading_zeros and (a1.shape[0] > 1 or a2.shape[0] > 1):
        a1, a2 = trim_zeros(a1, trim="f"), trim_zeros(a2, trim="f")
    if a1.shape[0] == 0:
        a1 = lax.full((1,), 0, a2.dtype)
    if a2.shape[0] == 0:
        a2 = lax.full((1,), 0, a1.dtype)
    return convolve(a1, a2, mode="full")


def _falling_factorials(top: np.ndarray, m: int) -> np.ndarray:
    """top * (top - 1) * ... * (top - m + 1), each factor at least 1 (float64 on the
    host: the shapes, not the data, decide these constants)."""
    factors = np.maximum(1, top[None, :] - np.arange(m, dtype=np.float64)[:, None])
    return factors.prod(axis=0)


def polyder(p, m=1):
    """The `m`-th derivative of the polynomial `p`.

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg.numpy.polynomials import polyder
    >>> polyder(jnp.array([1, 1, 1, 1]), m=2).tolist()
    [6.0, 2.0]
    """
    check_arraylike("polyder", p)
    m = _order(m, "polyder")
    (p,) = promote(to_array(p), to_inexact=True)
    if m < 0:
        raise ValueError("Order of derivative must be positive")
    if m == 0:
        return p
    n = p.shape[0]
    powers = np.arange(n - 1, m - 1, -1, dtype=np.float64)  # of the coefficients kept
    coefficients = to_array(_falling_factorials(powers, m).astype(p.dtype))
    return p[:max(n - m, 0)] * coefficients


def polyint(p, m=1, k=None):
    """The `m`-th antiderivative of the polynomial `p`, with integration constants `k`
    (a scalar for all, or `m` of them; 0 by default).

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg.numpy.polynomials import polyint
    >>> polyint(jnp.array([3.0, 2.0, 1.0]), k=5.0).tolist()
    [1.0, 1.0, 1.0, 5.0]
    """
    m = _order(m, "polyint")
    k = 0 if k is None else k
    check_arraylike("polyint", p, k)
    p, k = promote(to_array(p), to_array(k), to_inexact=True)
    if m < 0:
        raise ValueError("Order of integral must be positive (see polyder)")
    k = atleast_1d(k)
    if k.shape == (1,):
        k = lax.broadcast_in_dim(lax.reshape(k, ()), (m,), ())
    if k.shape != (m,):
        raise ValueError("k must be a scalar or a rank-1 array of length 1 or m.")
    if m == 0:
        return p
    # the coefficient of x^j (j from n + m - 1 down to 0) is divided by j! / (j - m)!
    powers = np.arange(p.shape[0] + m - 1, -1, -1, dtype=np.float64)
    divisors = to_array(_falling_factorials(powers, m).astype(p.dtype))
    return concatenate([p, k]) / divisors


def poly(seq_of_zeros):
    """The monic polynomial whose roots are `seq_of_zeros` (1-d; a square matrix gives
    its characteristic polynomial, from its eigenvalues): the product of the factors
    (x - r), one factor per step of a `lax.scan`.

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg.numpy.polynomials import poly
    >>> poly(jnp.array([1.0, 2.0])).tolist()
    [1.0, -3.0, 2.0]
    """
    check_arraylike("poly", seq_of_zeros)
    (zeros,) = promote(to_array(seq_of_zeros), to_inexact=True)
    zeros = atleast_1d(zeros)
    if zeros.ndim == 2 and zeros.shape[0] == zeros.shape[1] and zeros.shape[0] != 0:
        zeros = eigvals(zeros)  # the characteristic polynomial, complex as JAX's
    if zeros.ndim != 1:
        raise ValueError("input must be 1d or non-empty square 2d array.")
    n = zeros.shape[0]
    one = lax.full((1,), 1, zeros.dtype)
    if n == 0:
        return lax.reshape(one, ())

    def times_factor(a, root):  # a(x) * (x - root): shift by one power, less root * a
        # the leading coefficient has nothing to subtract (inf or NaN roots times a 0)
        rest = lax.slice(a, (1,), (n + 1,)) - root * lax.slice(a, (0,), (n,))
        return lax.concatenate([lax.slice(a, (0,), (1,)), rest], 0), None

    start = lax.pad(one, lax.full((), 0, one.dtype), [(0, n, 0)])
    coefficients, _ = lax.scan(times_factor, start, zeros)
    return coefficients


def roots(p, *, strip_zeros: bool = True):
    """The roots of the polynomial `p` (1-d, highest power first), complex: the
    eigenvalues of its companion matrix (`linalg.eigvals`, on the host). Leading zeros
    are stripped (concrete `p` only); with `strip_zeros=False`, as under jit, each leading
    zero gives a NaN root at the end instead, as JAX's.

    >>> import jaxwg.numpy as jnp
    >>> jnp.roots(jnp.array([1.0, -3.0, 2.0])).tolist()
    [(2+0j), (1+0j)]
    """
    check_arraylike("roots", p)
    (p,) = promote(atleast_1d(to_array(p)), to_inexact=True)
    if p.ndim != 1:
        raise ValueError("Input must be a rank-1 array.")
    complex_dtype = np.result_type(np.dtype(p.dtype.name), np.complex64)
    if p.shape[0] < 2:
        return lax.full((0,), 0, complex_dtype)
    zero = p == 0
    leading = ufuncs.where(_all(zero), p.shape[0], lax.argmin(zero, 0, np.int32))
    if strip_zeros:
        leading = int(concrete(leading, "The error occurred in the jnp.roots() function. To use "
                               "this within a JIT-compiled context, pass strip_zeros=False, but "
                               "be aware that leading zeros will result in some returned roots "
                               "being set to NaN."))
        return _companion_roots(p[leading:], complex_dtype)
    p = ufuncs.where(leading == p.shape[0], 1, p)  # all zeros: no eigenproblem of NaNs
    found = _companion_roots(roll(p, -leading), complex_dtype)
    found = found[argsort(found == 0, stable=True)]  # the rolled-in zeros' roots last
    return ufuncs.where(arange(found.shape[0]) < found.shape[0] - leading, found,
                        complex(np.nan, np.nan))


def _companion_roots(p, complex_dtype):
    """The eigenvalues of the companion matrix of `p` (no leading zero)."""
    if p.shape[0] < 2:
        return lax.full((0,), 0, complex_dtype)
    companion = diag(ones((p.shape[0] - 2,), p.dtype), -1).at[0, :].set(-p[1:] / p[0])
    return eigvals(companion)


def trim_zeros(filt, trim="fb", axis=None):
    """`filt` without its leading (`trim` has "f") and trailing ("b") zeros along
    `axis` (every axis when None): a slice that keeps every nonzero element. The
    result's shape depends on the values, so `filt` must be concrete (not traced).

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg.numpy.polynomials import trim_zeros
    >>> trim_zeros(jnp.array([0, 0, 3, 0, 2, 0])).tolist()
    [3, 0, 2]
    """
    check_arraylike("trim_zeros", filt)
    values = static_value(filt, "The `filt` argument of trim_zeros()")
    filt = to_array(filt)
    axes = canonicalize_axes(axis, filt.ndim)
    trim = trim.lower()
    if not axes or ("f" not in trim and "b" not in trim):
        return filt
    index = [slice(None)] * filt.ndim
    for ax in axes:
        nonzero = np.flatnonzero(values.any(axis=tuple(d for d in range(filt.ndim) if d != ax)))
        if nonzero.size == 0:
            index[ax] = slice(0, 0)
            continue
        index[ax] = slice(nonzero[0] if "f" in trim else None,
                          nonzero[-1] + 1 if "b" in trim else None)
    return filt[tuple(index)]


def polydiv(u, v, *, trim_leading_zeros=False):
    """The quotient and remainder of the 1-d polynomials u / v, by long division (one
    step per quotient coefficient in a `lax.scan`). The remainder keeps u's length
    unless `trim_leading_zeros` drops its leading coefficients below sqrt(eps)
    (concrete inputs only).

    >>> import jaxwg.numpy as jnp
    >>> q, r = jnp.polydiv(jnp.array([1.0, 3.0, 3.0]), jnp.array([1.0, 1.0]))
    >>> q.tolist(), r.tolist()
    ([1.0, 2.0], [0.0, 0.0, 1.0])
    """
    check_arraylike("polydiv", u, v)
    u, v = promote(to_array(u), to_array(v), to_inexact=True)
    if u.ndim == 0 or v.ndim == 0:
        raise TypeError("polydiv: u and v must be 1-d coefficient arrays, not scalars")
    if u.ndim != 1 or v.ndim != 1:
        raise ValueError(f"polydiv: u and v must be 1-d coefficient arrays, got shapes "
                         f"{u.shape} and {v.shape}")
    if v.shape[0] == 0:
        raise IndexError("polydiv: the divisor v has no coefficients")
    m, n = u.shape[0] - 1, v.shape[0] - 1
    steps = m - n + 1
    if steps <= 0:
        quotient, remainder = lax.full((1,), 0, u.dtype), u
    else:
        scale = 1.0 / v[0]
        positions = lax.iota(np.int32, m + 1)
        zeros = lax.full((m + 1,), 0, u.dtype)

        def divide_step(rest, k):
            # the k-th quotient coefficient, and rest[k:k + n + 1] less it times v
            d = scale * lax.dynamic_index_in_dim(rest, k, keepdims=False)
            shifted_v = lax.dynamic_update_slice(zeros, v, (k,))
            window = (positions >= k) & (positions <= k + n)
            return ufuncs.where(window, rest + -d * shifted_v, rest), d

        remainder, quotient = lax.scan(divide_step, u, lax.iota(np.int32, steps))
    if trim_leading_zeros:
        values = np.abs(static_value(remainder, "The remainder of polydiv (trim_leading_zeros)"))
        small = values < np.sqrt(np.finfo(values.dtype).eps)
        start = int(np.argmin(small)) if not small.all() else remainder.shape[0]
        remainder = remainder[start:]
    return quotient, remainder


def polyfit(x, y, deg, rcond=None, full=False, w=None, cov=False):
    """The least-squares polynomial of degree `deg` through (x, y) (`y` 1-d or one fit
    per column), by `linalg.lstsq` on the Vandermonde matrix with scaled columns and
    optional weights `w`. `full` also returns the residuals, rank, singular values and
    `rcond`; `cov` the covariance of the coefficients (scaled by the residuals unless
    "unscaled").

    >>> import jaxwg.numpy as jnp
    >>> [round(c, 4) for c in jnp.polyfit(jnp.array([0.0, 1.0, 2.0]), jnp.array([1.0, 3.0, 5.0]), 1).tolist()]
    [2.0, 1.0]
    """
    from .linalg import inv, lstsq  # linalg is imported after this module

    check_arraylike("polyfit", x, y, *(() if w is None else (w,)))
    x, y = to_array(x), to_array(y)
    deg = int(concrete(deg, "deg must be int"))
    order = deg + 1
    if deg < 0:
        raise ValueError("polyfit: expected deg >= 0")
    if x.ndim != 1:
        raise TypeError("polyfit: expected 1D vector for x")
    if x.shape[0] == 0:
        raise TypeError("polyfit: expected non-empty vector for x")
    if y.ndim < 1 or y.ndim > 2:
        raise TypeError("polyfit: expected 1D or 2D array for y")
    if x.shape[0] != y.shape[0]:
        raise TypeError("polyfit: expected x and y to have same length")
    if rcond is None:
        if not np.issubdtype(x.dtype, np.inexact):
            raise ValueError(f"polyfit: data type {x.dtype} of x not inexact (pass floats or "
                             "rcond)")
        rcond = x.shape[0] * float(np.finfo(x.dtype).eps)
    rcond = float(concrete(rcond, "rcond must be float"))
    if cov and cov != "unscaled" and x.shape[0] <= order:  # (JAX finds out after the fit)
        raise ValueError("polyfit: the number of data points must exceed order to scale "
                         "the covariance matrix")
    lhs, rhs = vander(x, order), y
    if w is not None:
        (w,) = promote(to_array(w), to_inexact=True)
        if w.ndim != 1:
            raise TypeError("polyfit: expected a 1-d array for weights")
        if w.shape[0] != y.shape[0]:
            raise TypeError("polyfit: expected w and y to have the same length")
        lhs = lhs * w[:, None]
        rhs = rhs * (w[:, None] if rhs.ndim == 2 else w)
    # columns scaled to unit norm: a better conditioned system
    scale = ufuncs.sqrt(_sum(lhs * lhs, axis=0))
    lhs = lhs / scale[None, :]
    c, residuals, rank, s = lstsq(lhs, rhs, rcond)
    c = c / (scale[:, None] if c.ndim > 1 else scale)
    if full:
        return c, residuals, rank, s, to_array(rcond)
    if not cov:
        return c
    v_base = inv(dot(lhs.T, lhs)) / outer(scale, scale)
    if cov == "unscaled":
        factor = lax.full((1,), 1, avals.canonical_dtype("float64"))
    else:
        factor = atleast_1d(residuals / (x.shape[0] - order))
    if y.ndim == 1:
        return c, v_base * factor[None]
    return c, v_base[:, :, None] * factor[None, None, :]
