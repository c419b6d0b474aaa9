"""`jaxwg.scipy.special`: error functions, the logistic function and its inverse,
`xlogy`/`xlog1py`, the softmax family, and the gamma family (`gamma`, `gammaln`,
`digamma`, `gammainc`, `gammaincc`, `betaln`), as `jax.scipy.special`.

>>> import jaxwg.numpy as jnp
>>> from jaxwg.scipy import special
>>> special.xlogy(jnp.array([0.0, 2.0]), jnp.array([0.0, 1.0])).tolist()
[0.0, 0.0]
"""

from __future__ import annotations

from .. import lax
from .. import numpy as jnp
from .. import nn
from ..nn import logsumexp
from ..numpy._util import promote

__all__ = ["betaln", "digamma", "erf", "erfc", "erfinv", "expit", "gamma", "gammainc",
           "gammaincc", "gammaln", "log_softmax", "logit", "logsumexp", "softmax", "xlog1py",
           "xlogy"]


def _inexact(*xs):
    """`xs` promoted to one inexact dtype as JAX does (float16 stays float16, Python
    scalars stay weak)."""
    return promote(*xs, to_inexact=True)


def _inexact_broadcast(*xs):
    """`xs` promoted to one inexact dtype and broadcast to one shape."""
    return jnp.broadcast_arrays(*_inexact(*xs))


def erf(x):
    """The error function.

    >>> round(erf(1.0).item(), 6)
    0.842701
    """
    return lax.erf(*_inexact(x))


def erfc(x):
    """1 - erf(x), accurate where erf(x) is near 1.

    >>> round(erfc(3.0).item(), 8)
    2.209e-05
    """
    return lax.erfc(*_inexact(x))


def erfinv(x):
    """The inverse error function (`lax.erf_inv`).

    >>> round(erfinv(0.5).item(), 6)
    0.476936
    """
    return lax.erf_inv(*_inexact(x))


def expit(x):
    """The logistic function 1 / (1 + exp(-x)).

    >>> expit(0.0).item()
    0.5
    """
    return lax.logistic(*_inexact(x))


def logit(x):
    """log(x / (1 - x)), the inverse of `expit`.

    >>> logit(0.5).item()
    0.0
    """
    (x,) = _inexact(x)
    return lax.log(lax.div(x, lax.sub(lax.full_like(x, 1), x)))


def xlogy(x, y):
    """x * log(y), and 0 where x is 0 (even where log(y) is not finite).

    >>> xlogy(2.0, 1.0).item()
    0.0
    """
    x, y = _inexact(x, y)
    return jnp.where(x != 0, x * jnp.log(y), jnp.zeros_like(x * y))


def xlog1py(x, y):
    """x * log1p(y), and 0 where x is 0.

    >>> xlog1py(0.0, -1.0).item()
    0.0
    """
    x, y = _inexact(x, y)
    return jnp.where(x != 0, x * jnp.log1p(y), jnp.zeros_like(x * y))


def _all_axes(x, axis):
    return tuple(range(jnp.ndim(x))) if axis is None else axis


def softmax(x, axis=None):
    """exp(x) / sum(exp(x)) over `axis` (all axes by default, unlike `jaxwg.nn.softmax`).

    >>> import jaxwg.numpy as jnp
    >>> softmax(jnp.zeros((2, 2))).tolist()
    [[0.25, 0.25], [0.25, 0.25]]
    """
    return nn.softmax(x, axis=_all_axes(x, axis))


def log_softmax(x, axis=None):
    """x - logsumexp(x) over `axis` (all axes by default).

    >>> import jaxwg.numpy as jnp
    >>> [round(v, 6) for v in log_softmax(jnp.zeros(2)).tolist()]
    [-0.693147, -0.693147]
    """
    return nn.log_softmax(x, axis=_all_axes(x, axis))



def gammaln(x):
    """log|Gamma(x)| (`lax.lgamma`).

    >>> round(gammaln(0.5).item(), 4)
    0.5724
    """
    return lax.lgamma(*_inexact(x))


def digamma(x):
    """The digamma function, the derivative of `gammaln` (`lax.digamma`).

    >>> round(digamma(1.0).item(), 5)
    -0.57722
    """
    return lax.digamma(*_inexact(x))


def gamma(x):
    """The gamma function: exp(gammaln(x)) with the sign of Gamma(x), as SciPy (+-inf at
    +-0, NaN at the negative integers and at -inf).

    >>> import jaxwg.numpy as jnp
    >>> [round(v, 4) for v in gamma(jnp.array([5.0, 0.5, -0.5])).tolist()]
    [24.0, 1.7725, -3.5449]
    """
    (x,) = _inexact(x)
    # Gamma is negative on (-1, 0), (-3, -2), ...: where floor(x) is odd
    floor = jnp.floor(x)
    negative = (x < 0) & (jnp.fmod(floor, 2) != 0)
    sign = jnp.where(negative | ((x == 0) & jnp.signbit(x)), -1.0, 1.0).astype(x.dtype)
    sign = jnp.where((x < 0) & (x == floor), jnp.nan, sign)
    return sign * lax.exp(lax.lgamma(x))


def gammainc(a, x):
    """The regularized lower incomplete gamma function P(a, x) (`lax.igamma`).

    >>> round(gammainc(1.0, 1.0).item(), 5)
    0.63212
    """
    return lax.igamma(*_inexact_broadcast(a, x))


def gammaincc(a, x):
    """The regularized upper incomplete gamma function Q(a, x) = 1 - P(a, x)
    (`lax.igammac`).

    >>> round(gammaincc(1.0, 1.0).item(), 5)
    0.36788
    """
    return lax.igammac(*_inexact_broadcast(a, x))


# lgamma(x) = (x - 1/2) log x - x + log(2 pi) / 2 + delta(x), with delta's asymptotic
# series (the Stirling series): the coefficients B_2k / (2k (2k - 1)), accurate to
# float64 from x = 8 on.
_STIRLING = (1 / 12, -1 / 360, 1 / 1260, -1 / 1680, 1 / 1188)


def _stirling_delta(x):
    inverse = 1.0 / x
    square = inverse * inverse
    total = jnp.zeros_like(x)
    for c in reversed(_STIRLING):
        total = total * square + c
    return total * inverse


def betaln(a, b):
    """log|B(a, b)| = gammaln(a) + gammaln(b) - gammaln(a + b), with the large terms of
    the last two cancelled analytically when the larger argument is 8 or more.

    >>> round(betaln(2.0, 3.0).item(), 5)
    -2.48491
    """
    a, b = _inexact_broadcast(a, b)
    a, b = jnp.minimum(a, b), jnp.maximum(a, b)
    direct = gammaln(a) + (gammaln(b) - gammaln(a + b))
    # With Stirling's form of both: lgamma(b) - lgamma(a + b)
    #   = a - a log b - (a + b - 1/2) log1p(a / b) + delta(b) - delta(a + b)
    big_b = jnp.where(b < 8, 8.0, b).astype(b.dtype)  # keeps the unused branch finite
    difference = (a - a * jnp.log(big_b) - (a + big_b - 0.5) * jnp.log1p(a / big_b)
                  + (_stirling_delta(big_b) - _stirling_delta(a + big_b)))
    return jnp.where(b < 8, direct, gammaln(a) + difference)
