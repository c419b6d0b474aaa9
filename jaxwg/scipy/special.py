"""`jaxwg.scipy.special`: error functions, the logistic function and its inverse,
`xlogy`/`xlog1py`, the softmax family, and the gamma family (`gamma`, `gammaln`,
`digamma`, `gammainc`, `gammaincc`, `betaln`), as `jax.scipy.special`.

>>> import jaxwg.numpy as jnp
>>> from jaxwg.scipy import special
>>> special.xlogy(jnp.array([0.0, 2.0]), jnp.array([0.0, 1.0])).tolist()
[0.0, 0.0]
"""

from __future__ import annotations

import functools
import math
import operator

import numpy as np

from .. import lax
from .. import numpy as jnp
from .. import nn
from ..nn import logsumexp
from ..numpy._util import promote
from ..transforms.custom import custom_jvp

__all__ = ["bernoulli", "bessel_jn", "beta", "betainc", "betaln", "boxcox", "boxcox1p", "comb",
           "dawsn", "digamma", "entr", "erf",
           "erfc", "erfcx", "erfinv", "exp1", "expi", "expit", "expn", "factorial", "fresnel",
           "gamma", "gammainc", "gammaincc", "gammaln", "gammasgn", "hyp1f1", "hyp2f1",
           "i0", "i0e", "i1", "i1e", "kl_div", "log_ndtr", "log_softmax",
           "loggamma", "logit", "logsumexp", "multigammaln", "ndtr", "ndtri", "owens_t", "poch",
           "polygamma",
           "rel_entr", "sici", "softmax", "spence", "sph_harm_y", "wofz", "xlog1py", "xlogy", "zeta"]


def _inexact(*xs):
    """`xs` promoted to one inexact dtype as JAX does (float16 stays float16, Python
    scalars stay weak)."""
    return promote(*xs, to_inexact=True)


def _real(name, *xs):
    """`xs` promoted as `_inexact`; complex operands raise JAX's ValueError."""
    xs = _inexact(*xs)
    if xs and jnp.iscomplexobj(xs[0]):
        raise ValueError(f"{name} does not support complex-valued inputs.")
    return xs


def _strong(x):
    """`x` without a weak type: JAX's erfcx and dawsn answer float32 for a Python float."""
    return lax.convert_element_type(x, x.dtype)


def _horner(coefficients, x):
    """The polynomial with `coefficients` (highest degree first) at `x`."""
    total = jnp.zeros_like(x) + coefficients[0]
    for c in coefficients[1:]:
        total = total * x + c
    return total


def _inexact_broadcast(*xs):
    """`xs` promoted to one inexact dtype and broadcast to one shape."""
    return jnp.broadcast_arrays(*_inexact(*xs))


def erf(x):
    """The error function.

    >>> from jaxwg.scipy.special import erf
    >>> round(erf(1.0).item(), 6)
    0.842701
    """
    return lax.erf(*_inexact(x))


def erfc(x):
    """1 - erf(x), accurate where erf(x) is near 1.

    >>> from jaxwg.scipy.special import erfc
    >>> round(erfc(3.0).item(), 8)
    2.209e-05
    """
    return lax.erfc(*_inexact(x))


def erfinv(x):
    """The inverse error function (`lax.erf_inv`).

    >>> from jaxwg.scipy.special import erfinv
    >>> round(erfinv(0.5).item(), 6)
    0.476936
    """
    return lax.erf_inv(*_inexact(x))


def expit(x):
    """The logistic function 1 / (1 + exp(-x)).

    >>> from jaxwg.scipy.special import expit
    >>> expit(0.0).item()
    0.5
    """
    return lax.logistic(*_inexact(x))


def logit(x):
    """log(x / (1 - x)), the inverse of `expit`.

    >>> from jaxwg.scipy.special import logit
    >>> logit(0.5).item()
    0.0
    """
    (x,) = _inexact(x)
    return _logit(x)


@custom_jvp
def _logit(x):
    return lax.log(lax.div(x, lax.sub(1.0, x)))  # a weak 1: x's weak type stays, as JAX's


@_logit.defjvp
def _logit_jvp(primals, tangents):
    # 1 / (x (1 - x)): inf at 0 and 1, where the chain rule through the log gives NaN
    (x,), (t,) = primals, tangents
    return _logit(x), lax.div(t, lax.mul(x, lax.sub(1.0, x)))


def _x_times(log_fn, x, y):
    """x * log_fn(y), 0 where x is 0 unless y is NaN (as SciPy and JAX)."""
    x, y = _inexact(x, y)
    return jnp.where((x != 0) | jnp.isnan(y), x * log_fn(y), jnp.zeros_like(x * y))


def _x_times_jvp(function, log_fn, dlog_fn):
    """JAX's rule: dx log_fn(y) + dy x log_fn'(y), well defined where x is 0."""
    def jvp(primals, tangents):
        (x, y), (dx, dy) = primals, tangents
        out = function(x, y)
        return out, (dx * log_fn(y) + dy * x * dlog_fn(y)).astype(out.dtype)

    return jvp


@custom_jvp
def xlogy(x, y):
    """x * log(y), and 0 where x is 0 (even where log(y) is not finite) unless y is NaN.

    >>> from jaxwg.scipy.special import xlogy
    >>> xlogy(2.0, 1.0).item()
    0.0
    """
    return _x_times(jnp.log, x, y)


@custom_jvp
def xlog1py(x, y):
    """x * log1p(y), and 0 where x is 0 unless y is NaN.

    >>> from jaxwg.scipy.special import xlog1py
    >>> xlog1py(0.0, -1.0).item()
    0.0
    """
    return _x_times(jnp.log1p, x, y)


xlogy.defjvp(_x_times_jvp(xlogy, jnp.log, lambda y: 1 / y))
xlog1py.defjvp(_x_times_jvp(xlog1py, jnp.log1p, lambda y: 1 / (1 + y)))


def _all_axes(x, axis):
    return tuple(range(jnp.ndim(x))) if axis is None else axis


def softmax(x, axis=None):
    """exp(x) / sum(exp(x)) over `axis` (all axes by default, unlike `jaxwg.nn.softmax`).

    >>> from jaxwg.scipy.special import softmax
    >>> import jaxwg.numpy as jnp
    >>> softmax(jnp.zeros((2, 2))).tolist()
    [[0.25, 0.25], [0.25, 0.25]]
    """
    return nn.softmax(x, axis=_all_axes(x, axis))


def log_softmax(x, axis=None):
    """x - logsumexp(x) over `axis` (all axes by default).

    >>> from jaxwg.scipy.special import log_softmax
    >>> import jaxwg.numpy as jnp
    >>> [round(v, 6) for v in log_softmax(jnp.zeros(2)).tolist()]
    [-0.693147, -0.693147]
    """
    return nn.log_softmax(x, axis=_all_axes(x, axis))



def gammaln(x):
    """log|Gamma(x)| (`lax.lgamma`).

    >>> from jaxwg.scipy.special import gammaln
    >>> round(gammaln(0.5).item(), 4)
    0.5724
    """
    return lax.lgamma(*_inexact(x))


def digamma(x):
    """The digamma function, the derivative of `gammaln` (`lax.digamma`).

    >>> from jaxwg.scipy.special import digamma
    >>> round(digamma(1.0).item(), 5)
    -0.57722
    """
    return lax.digamma(*_inexact(x))


def gamma(x):
    """The gamma function: exp(gammaln(x)) with the sign of Gamma(x), as SciPy (+-inf at
    +-0, NaN at the negative integers and at -inf).

    >>> from jaxwg.scipy.special import gamma
    >>> import jaxwg.numpy as jnp
    >>> [round(v, 4) for v in gamma(jnp.array([5.0, 0.5, -0.5])).tolist()]
    [24.0, 1.7725, -3.5449]
    """
    (x,) = _inexact(x)
    return gammasgn(x) * lax.exp(lax.lgamma(x))


def gammasgn(x):
    """The sign of the gamma function: -1 on (-1, 0), (-3, -2), ... and at -0.0, NaN at
    the poles 0 > x = floor(x), at -inf and for NaN, else 1.

    >>> from jaxwg.scipy.special import gammasgn
    >>> import jaxwg.numpy as jnp
    >>> gammasgn(jnp.array([2.5, -0.5, -1.5, -2.0])).tolist()
    [1.0, -1.0, 1.0, nan]
    """
    (x,) = _real("gammasgn", x)
    floor = jnp.floor(x)
    negative = ((x < 0) & (jnp.fmod(floor, 2) != 0)) | ((x == 0) & jnp.signbit(x))
    sign = jnp.where(negative, -1.0, 1.0).astype(x.dtype)
    return jnp.where(((x < 0) & (x == floor)) | jnp.isnan(x), jnp.nan, sign)


def gammainc(a, x):
    """The regularized lower incomplete gamma function P(a, x) (`lax.igamma`).

    >>> from jaxwg.scipy.special import gammainc
    >>> round(gammainc(1.0, 1.0).item(), 5)
    0.63212
    """
    return lax.igamma(*_inexact_broadcast(a, x))


def gammaincc(a, x):
    """The regularized upper incomplete gamma function Q(a, x) = 1 - P(a, x)
    (`lax.igammac`).

    >>> from jaxwg.scipy.special import gammaincc
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
    return _horner(_STIRLING[::-1], inverse * inverse) * inverse


def betaln(a, b):
    """log|B(a, b)| = gammaln(a) + gammaln(b) - gammaln(a + b), with the large terms of
    the last two cancelled analytically when the larger argument is 8 or more.

    >>> from jaxwg.scipy.special import betaln
    >>> round(betaln(2.0, 3.0).item(), 5)
    -2.48491
    """
    a, b = _inexact_broadcast(a, b)
    a, b = jnp.minimum(a, b), jnp.maximum(a, b)
    direct = gammaln(a) + (gammaln(b) - gammaln(a + b))
    # With Stirling's form of both: lgamma(b) - lgamma(a + b)
    #   = a - a log b - (a + b - 1/2) log1p(a / b) + delta(b) - delta(a + b)
    big_b = jnp.where(b < 8, 8.0, b)  # keeps the unused branch finite
    difference = (a - a * jnp.log(big_b) - (a + big_b - 0.5) * jnp.log1p(a / big_b)
                  + (_stirling_delta(big_b) - _stirling_delta(a + big_b)))
    return jnp.where(b < 8, direct, gammaln(a) + difference)


def loggamma(x):
    """The principal branch of log Gamma(x): `gammaln` for x > 0, NaN elsewhere (complex
    operands, which JAX takes, are not implemented).

    >>> from jaxwg.scipy.special import loggamma
    >>> import jaxwg.numpy as jnp
    >>> [round(v, 4) for v in loggamma(jnp.array([0.5, 3.0])).tolist()]
    [0.5724, 0.6931]
    """
    (x,) = _inexact(x)
    if jnp.iscomplexobj(x):
        raise NotImplementedError("loggamma of complex operands is not implemented in jaxwg")
    return jnp.where(x > 0, lax.lgamma(x), jnp.nan)


def beta(a, b):
    """The beta function B(a, b) = Gamma(a) Gamma(b) / Gamma(a + b), as the sign of the
    three gammas times exp(betaln(a, b)).

    >>> from jaxwg.scipy.special import beta
    >>> round(beta(2.0, 3.0).item(), 6)
    0.083333
    """
    a, b = _real("beta", a, b)
    return gammasgn(a) * gammasgn(b) * gammasgn(a + b) * lax.exp(betaln(a, b))


def betainc(a, b, x):
    """The regularized incomplete beta function I_x(a, b) (`lax.betainc`), differentiable
    in `x`.

    >>> from jaxwg.scipy.special import betainc
    >>> round(betainc(2.0, 3.0, 0.3).item(), 5)
    0.3483
    """
    return lax.betainc(*_inexact_broadcast(*_real("betainc", a, b, x)))


def factorial(n, exact=False):
    """n! = Gamma(n + 1) as a float (0 for n < 0); `exact=True` is not supported (as JAX).

    >>> from jaxwg.scipy.special import factorial
    >>> import jaxwg.numpy as jnp
    >>> [round(v, 3) for v in factorial(jnp.array([0, 4, -1])).tolist()]
    [1.0, 24.0, 0.0]
    """
    if exact:
        raise NotImplementedError("factorial with exact=True")
    (n,) = _inexact(n)
    return jnp.where(n < 0, 0, lax.exp(lax.lgamma(n + 1)))


def comb(N, k, *, repetition=False):
    """The binomial coefficient N choose k as a float, through `gammaln` (0 where N < 0,
    k < 0 or k > N); with `repetition`, N + k - 1 choose k.

    >>> from jaxwg.scipy.special import comb
    >>> round(comb(5, 2).item(), 3), round(comb(5, 2, repetition=True).item(), 3)
    (10.0, 15.0)
    """
    N, k = _inexact(N, k)
    if repetition:
        return jnp.where((k == 0) & (N >= 0), 1.0, comb(N + k - 1, k))
    valid = (k <= N) & (N >= 0) & (k >= 0)
    N, k = jnp.where(valid, N, 0.0), jnp.where(valid, k, 0.0)
    log = gammaln(N + 1) - gammaln(k + 1) - gammaln(N + 1 - k)
    return jnp.where(valid, lax.exp(log), 0.0)


@custom_jvp
def poch(z, m):
    """The Pochhammer symbol (rising factorial) Gamma(z + m) / Gamma(z), 1 where m = 0.

    >>> from jaxwg.scipy.special import poch
    >>> round(poch(3.0, 2.0).item(), 4)
    12.0
    """
    z, m = _real("poch", z, m)
    return jnp.where(m == 0.0, jnp.ones_like(z), gamma(z + m) / gamma(z))


poch.defjvps(lambda t, ans, z, m: (digamma(z + m) - digamma(z)) * ans * t,
             lambda t, ans, z, m: digamma(z + m) * ans * t)


def multigammaln(a, d):
    """log of the multivariate gamma function of dimension `d` (a concrete int):
    d (d - 1) / 4 log(pi) + sum_{i < d} gammaln(a - i / 2).

    >>> from jaxwg.scipy.special import multigammaln
    >>> round(multigammaln(3.0, 2).item(), 4)
    1.5502
    """
    d = int(d)
    (a,) = _inexact(a)
    total = sum((gammaln(a - i / 2) for i in range(1, d)), gammaln(a))
    return total + 0.25 * d * (d - 1) * math.log(math.pi)


@custom_jvp
def _xlogx(x):
    return xlogy(x, x)


_xlogx.defjvps(lambda t, ans, x: t * (lax.log(x) + 1))


def entr(x):
    """-x log(x) for x > 0, 0 at 0, -inf for x < 0.

    >>> from jaxwg.scipy.special import entr
    >>> import jaxwg.numpy as jnp
    >>> entr(jnp.array([0.0, 1.0, -1.0])).tolist()
    [-0.0, -0.0, -inf]
    """
    (x,) = _real("entr", x)
    return jnp.where(x < 0, -jnp.inf, -_xlogx(x))


def rel_entr(p, q):
    """p log(p / q) where both are positive, 0 where p = 0 <= q, inf elsewhere.

    >>> from jaxwg.scipy.special import rel_entr
    >>> import jaxwg.numpy as jnp
    >>> rel_entr(jnp.array([1.0, 0.0, 1.0]), jnp.array([1.0, 2.0, 0.0])).tolist()
    [0.0, 0.0, inf]
    """
    p, q = _real("rel_entr", p, q)
    positive = (p > 0) & (q > 0)
    safe_p, safe_q = jnp.where(positive, p, 1), jnp.where(positive, q, 1)
    value = _xlogx(safe_p) - xlogy(safe_p, safe_q)
    zero_or_inf = jnp.where((p == 0) & (q >= 0), jnp.zeros_like(value), jnp.full_like(value, jnp.inf))
    return jnp.where(positive, value, zero_or_inf)


def kl_div(p, q):
    """p log(p / q) - p + q (q where p = 0 <= q, inf where either is negative).

    >>> from jaxwg.scipy.special import kl_div
    >>> import jaxwg.numpy as jnp
    >>> kl_div(jnp.array([1.0, 0.0]), jnp.array([1.0, 2.0])).tolist()
    [0.0, 2.0]
    """
    p, q = _real("kl_div", p, q)
    return rel_entr(p, q) - p + q


def boxcox(x, lmbda):
    """The Box-Cox transform (x^lmbda - 1) / lmbda, log(x) where lmbda = 0.

    >>> from jaxwg.scipy.special import boxcox
    >>> round(boxcox(4.0, 0.5).item(), 5), round(boxcox(1.0, 0.0).item(), 5)
    (2.0, 0.0)
    """
    x, lmbda = _inexact(x, lmbda)
    return _boxcox_of_log(jnp.log(x), lmbda)


def boxcox1p(x, lmbda):
    """The Box-Cox transform of 1 + x, accurate for small x: ((1 + x)^lmbda - 1) / lmbda.

    >>> from jaxwg.scipy.special import boxcox1p
    >>> round(boxcox1p(3.0, 0.5).item(), 5)
    2.0
    """
    x, lmbda = _inexact(x, lmbda)
    return _boxcox_of_log(jnp.log1p(x), lmbda)


def _boxcox_of_log(log_x, lmbda):
    """expm1(lmbda log x) / lmbda, and log x where lmbda = 0."""
    zero = lmbda == 0
    safe = jnp.where(zero, jnp.ones_like(lmbda), lmbda)
    return jnp.where(zero, log_x, jnp.expm1(safe * log_x) / safe)


# -- the normal distribution ---------------------------------------------------------------


def _float32_or_64(name, x, message):
    """`x` as an array, which must be float32 or float64 (JAX's TypeError otherwise)."""
    x = jnp.asarray(x)
    if x.dtype not in (jnp.float32, jnp.float64):
        raise TypeError(f"{name}: " + message.format(x.dtype))
    # not weak: JAX's results are not (its constants are NumPy scalars of x's dtype)
    return lax.convert_element_type(x, x.dtype, weak_type=False)


def _ndtr(x):
    # erf near 0, erfc in the tails (where 1 +- erf would cancel), as JAX's
    w = x * float(np.sqrt(0.5))
    z = jnp.abs(w)
    y = jnp.where(z < float(np.sqrt(0.5)), 1.0 + lax.erf(w),
                  jnp.where(w > 0, 2.0 - lax.erfc(z), lax.erfc(z)))
    return 0.5 * y


def ndtr(x):
    """The standard normal CDF, (1 + erf(x / sqrt 2)) / 2 (float32 and float64 only).

    >>> from jaxwg.scipy.special import ndtr
    >>> ndtr(0.0).item()
    0.5
    """
    return _ndtr(_float32_or_64("ndtr", x, _UNSUPPORTED))


_UNSUPPORTED = "x.dtype={} is not supported, see docstring for supported types."

# Cephes' ndtri rational approximations (as JAX's): P0/Q0 for |p - 1/2| <= 1/2 - e^-2,
# P1/Q1 and P2/Q2 for the tails with z = sqrt(-2 log p) < 8 and >= 8.
_NDTRI_P0 = (-59.96335010141079, 98.00107541859997, -56.67628574690703, 13.931260938727968,
             -1.2391658386738125)
_NDTRI_Q0 = (1.0, 1.9544885833814176, 4.676279128988815, 86.36024213908905, -225.46268785411937,
             200.26021238006066, -82.03722561683334, 15.90562251262117, -1.1833162112133)
_NDTRI_P1 = (4.0554489230596245, 31.525109459989388, 57.16281922464213, 44.08050738932008,
             14.684956192885803, 2.1866330685079025, -0.1402560791713545, -0.03504246268278482,
             -0.0008574567851546854)
_NDTRI_Q1 = (1.0, 15.779988325646675, 45.39076351288792, 41.3172038254672, 15.04253856929075,
             2.504649462083094, -0.14218292285478779, -0.03808064076915783, -0.0009332594808954574)
_NDTRI_P2 = (3.2377489177694603, 6.915228890689842, 3.9388102529247444, 1.3330346081580755,
             0.20148538954917908, 0.012371663481782003, 0.00030158155350823543,
             2.6580697468673755e-06, 6.239745391849833e-09)
_NDTRI_Q2 = (1.0, 6.02427039364742, 3.6798356385616087, 1.3770209948908132, 0.21623699359449663,
             0.013420400608854318, 0.00032801446468212774, 2.8924786474538068e-06,
             6.790194080099813e-09)


def ndtri(p):
    """The inverse of `ndtr`, the standard normal quantile (-inf at 0, inf at 1, NaN
    outside [0, 1]; float32 and float64 only).

    >>> from jaxwg.scipy.special import ndtri
    >>> ndtri(0.5).item()
    0.0
    """
    p = _float32_or_64("ndtri", p, _UNSUPPORTED)
    # the smaller of p and 1 - p, kept away from 0 (its result is replaced below)
    small = jnp.where(p > float(-np.expm1(-2.0)), 1.0 - p, p)
    small = jnp.where(small == 0.0, jnp.full_like(p, 0.5), small)
    w = small - 0.5
    ww = w * w
    central = (w + w * ww * (_horner(_NDTRI_P0, ww) / _horner(_NDTRI_Q0, ww))) * -float(np.sqrt(2 * np.pi))
    z = jnp.sqrt(-2.0 * jnp.log(small))
    first = z - jnp.log(z) / z
    inverse = 1.0 / z
    tail = jnp.where(z >= 8.0, _horner(_NDTRI_P2, inverse) / _horner(_NDTRI_Q2, inverse),
                     _horner(_NDTRI_P1, inverse) / _horner(_NDTRI_Q1, inverse)) / z
    x = jnp.where(small > float(np.exp(-2.0)), central, first - tail)
    x = jnp.where(p > float(1.0 - np.exp(-2.0)), x, -x)
    return jnp.where(p == 0.0, -jnp.inf, jnp.where(p == 1.0, jnp.inf, x))


def _log_ndtr(x, series_order):
    # log(ndtr) between the bounds; -ndtr(-x) ~ log(1 - ndtr(-x)) above; below, the log
    # of the asymptotic series of the lower tail (its terms alternate: (2n-1)!! / x^2n)
    lower, upper = (-20.0, 8.0) if x.dtype == jnp.float64 else (-10.0, 5.0)
    above = x > upper
    y = _ndtr(jnp.where(above, -x, jnp.maximum(x, lower)))
    low = jnp.minimum(x, lower)
    square = low * low
    series, power = jnp.ones_like(low), square
    for n in range(1, series_order + 1):
        term = float(np.prod(np.arange(2 * n - 1, 1, -2))) / power
        series = series - term if n % 2 else series + term
        power = power * square
    log_tail = -0.5 * square - jnp.log(-low) - float(0.5 * np.log(2 * np.pi)) + jnp.log(series)
    return jnp.where(above, -y, jnp.where(x > lower, jnp.log(y), log_tail))


@functools.partial(custom_jvp, nondiff_argnums=(1,))
def _log_ndtr_jvp_wrapped(x, series_order):
    return _log_ndtr(x, series_order)


@_log_ndtr_jvp_wrapped.defjvp
def _log_ndtr_jvp(series_order, primals, tangents):
    # d/dx log ndtr(x) = pdf(x) / ndtr(x) = exp(log pdf(x) - log ndtr(x))
    (x,), (t,) = primals, tangents
    out = _log_ndtr_jvp_wrapped(x, series_order)
    return out, t * jnp.exp(-0.5 * x * x - float(np.log(np.sqrt(2 * np.pi))) - out)


def log_ndtr(x, series_order=3):
    """log(ndtr(x)), accurate far into both tails (float32 and float64 only).

    >>> from jaxwg.scipy.special import log_ndtr
    >>> round(log_ndtr(0.0).item(), 6), round(log_ndtr(-20.0).item(), 3)
    (-0.693147, -203.917)
    """
    if not isinstance(series_order, int):
        raise TypeError("log_ndtr: series_order must be a Python integer.")
    if series_order < 0:
        raise ValueError("log_ndtr: series_order must be non-negative.")
    if series_order > 30:
        raise ValueError("log_ndtr: series_order must be <= 30.")
    x = _float32_or_64("log_ndtr", x, "x.dtype={} is not supported.")
    return _log_ndtr_jvp_wrapped(x, series_order)


# -- Bessel functions, erfcx, zeta, polygamma -------------------------------------------------


def i0e(x):
    """exp(-|x|) I0(x), the exponentially scaled modified Bessel function of order 0.

    >>> from jaxwg.scipy.special import i0e
    >>> round(i0e(1.0).item(), 5)
    0.46576
    """
    return lax.bessel_i0e(*_real("i0e", x))


def i0(x):
    """I0(x), the modified Bessel function of the first kind of order 0.

    >>> from jaxwg.scipy.special import i0
    >>> round(i0(1.0).item(), 5)
    1.26607
    """
    (x,) = _real("i0", x)
    return lax.exp(lax.abs(x)) * lax.bessel_i0e(x)


def i1e(x):
    """exp(-|x|) I1(x), the exponentially scaled modified Bessel function of order 1.

    >>> from jaxwg.scipy.special import i1e
    >>> round(i1e(1.0).item(), 5)
    0.20791
    """
    return lax.bessel_i1e(*_real("i1e", x))


def i1(x):
    """I1(x), the modified Bessel function of the first kind of order 1.

    >>> from jaxwg.scipy.special import i1
    >>> round(i1(1.0).item(), 5)
    0.56516
    """
    (x,) = _real("i1", x)
    return lax.exp(lax.abs(x)) * lax.bessel_i1e(x)


# erfcx ~ P(1 / x^2) / (sqrt(pi) x) for large x, P's coefficients (-1)^k (2k-1)!! / 2^k
# (highest degree first); float32 takes the last 5 (first omitted term ~5e-9 at the switch,
# x = sqrt(log(max)) ~ 9.4), float64 all 9 (~1e-21 at x ~ 26.6), as JAX's.
_ERFCX_ASYMPTOTIC = (7918.06640625, -1055.7421875, 162.421875, -29.53125, 6.5625, -1.875, 0.75,
                     -0.5, 1.0)


@custom_jvp
def _erfcx(x):
    wide = x.dtype == jnp.float64
    terms = _ERFCX_ASYMPTOTIC if wide else _ERFCX_ASYMPTOTIC[-5:]
    threshold = float(np.sqrt(np.log(np.finfo(np.float64 if wide else np.float32).max)))
    large = x > threshold
    safe = jnp.where(large | (x == -jnp.inf), jnp.ones_like(x), x)  # finite for the split
    # exp(x^2) from x^2 as an exact sum high + low (Dekker's split of x into halves whose
    # products are exact): exp magnifies the rounding of x * x by x^2 (~500 ulps at 23)
    split = safe * float(2 ** (27 if wide else 12) + 1)
    high = split - (split - safe)
    low = safe - high
    square_high = high * high
    square_low = (high + high) * low + low * low
    direct = lax.exp(square_high) * lax.exp(square_low) * lax.erfc(safe)
    asymptotic = _horner(terms, 1.0 / (x * x)) / (x * float(np.sqrt(np.pi)))
    return jnp.where(large, asymptotic, jnp.where(x == -jnp.inf, jnp.inf, direct))


_erfcx.defjvps(lambda t, ans, x: t * (2 * x * ans - float(2 / np.sqrt(np.pi))))


def erfcx(x):
    """The scaled complementary error function exp(x^2) erfc(x), finite for large x
    (real operands only: JAX's complex form is not implemented).

    >>> from jaxwg.scipy.special import erfcx
    >>> round(erfcx(0.0).item(), 5), round(erfcx(30.0).item(), 5)
    (1.0, 0.0188)
    """
    (x,) = _inexact(x)
    if jnp.iscomplexobj(x):
        raise NotImplementedError("erfcx of complex operands is not implemented in jaxwg")
    if x.dtype == jnp.float16:
        return _erfcx(x.astype(jnp.float32)).astype(x.dtype)
    return _strong(_erfcx(x))


def zeta(x, q=None):
    """The Hurwitz zeta function sum_n (n + q)^-x (`lax.zeta`); q is required (JAX has
    no Riemann zeta).

    >>> from jaxwg.scipy.special import zeta
    >>> round(zeta(2.0, 1.0).item(), 5)
    1.64493
    """
    if q is None:
        raise NotImplementedError("Riemann zeta function not implemented; pass q != None to "
                                  "compute the Hurwitz Zeta function.")
    return lax.zeta(*_inexact_broadcast(*_real("zeta", x, q)))


def polygamma(n, x):
    """psi^(n)(x), the (n + 1)-th derivative of `gammaln`, for integer-typed `n`.

    >>> from jaxwg.scipy.special import polygamma
    >>> round(polygamma(1, 1.0).item(), 5)
    1.64493
    """
    dtype = jnp.asarray(n).dtype
    if not jnp.issubdtype(dtype, jnp.integer):
        raise ValueError(f"Argument `n` to polygamma must be of integer type. Got dtype {dtype}.")
    return lax.polygamma(*_inexact_broadcast(*_real("polygamma", n, x)))


# -- Dawson's integral, Spence's function, the Bernoulli numbers ------------------------------

# Cody, Paciorek and Thacher's rational approximations of Dawson's integral (as JAX's,
# highest degree first): x P(x^2) / Q(x^2) below 3.25, (1 + t P(t) / Q(t)) / (2 x) with
# t = 1 / x^2 on [3.25, 6.25) and above.
_DAWSN_AN = (1.13681498971755972054e-11, 8.49262267667473811108e-10, 1.94434204175553054283e-8,
             9.53151741254484363489e-7, 3.07828309874913200438e-6, 3.52513368520288738649e-4,
             -8.50149846724410912031e-4, 4.22618223005546594270e-2, -9.17480371773452345351e-2,
             9.99999999999999994612e-1)
_DAWSN_AD = (2.40372073066762605484e-11, 1.48864681368493396752e-9, 5.21265281010541664570e-8,
             1.27258478273186970203e-6, 2.32490249820789513991e-5, 3.25524741826057911661e-4,
             3.48805814657162590916e-3, 2.79448531198828973716e-2, 1.58874241960120565368e-1,
             5.74918629489320327824e-1, 1.00000000000000000539e0)
_DAWSN_BN = (5.08955156417900903354e-1, -2.44754418142697847934e-1, 9.41512335303534411857e-2,
             -2.18711255142039025206e-2, 3.66207612329569181322e-3, -4.23209114460388756528e-4,
             3.59641304793896631888e-5, -2.14640351719968974225e-6, 9.10010780076391431042e-8,
             -2.40274520828250956942e-9, 3.59233385440928410398e-11)
_DAWSN_BD = (1.00000000000000000000e0, -6.31839869873368190192e-1, 2.36706788228248691528e-1,
             -5.31806367003223277662e-2, 8.48041718586295374409e-3, -9.47996768486665330168e-4,
             7.81025592944552338085e-5, -4.55875153252442634831e-6, 1.89100358111421846170e-7,
             -4.91324691331920606875e-9, 7.18466403235734541950e-11)
_DAWSN_CN = (-5.90592860534773254987e-1, 6.29235242724368800674e-1, -1.72858975380388136411e-1,
             1.64837047825189632310e-2, -4.86827613020462700845e-4)
_DAWSN_CD = (1.00000000000000000000e0, -2.69820057197544900361e0, 1.73270799045947845857e0,
             -3.93708582281939493482e-1, 3.44278924041233391079e-2, -9.73655226040941223894e-4)


@custom_jvp
def _dawsn(x):
    if x.dtype == jnp.float16:
        return _dawsn(x.astype(jnp.float32)).astype(x.dtype)
    ax = jnp.abs(x)
    near, middle = ax < 3.25, ax < 6.25
    one = jnp.ones_like(ax)
    safe_near = jnp.where(near, ax, one)  # each region's operand 1 where it is not used
    square = safe_near * safe_near
    value_near = safe_near * _horner(_DAWSN_AN, square) / _horner(_DAWSN_AD, square)
    safe_far = jnp.where(near, one, ax)
    t = 1.0 / (safe_far * safe_far)
    ratio = jnp.where(middle, _horner(_DAWSN_BN, t) / _horner(_DAWSN_BD, t),
                      _horner(_DAWSN_CN, t) / _horner(_DAWSN_CD, t))
    value_far = 0.5 / safe_far * (1.0 + t * ratio)
    return jnp.sign(x) * jnp.where(near, value_near, value_far)


_dawsn.defjvps(lambda t, ans, x: t * (1.0 - 2.0 * x * ans))


def dawsn(x):
    """Dawson's integral exp(-x^2) int_0^x exp(t^2) dt.

    >>> from jaxwg.scipy.special import dawsn
    >>> round(dawsn(1.0).item(), 5)
    0.53808
    """
    return _strong(_dawsn(*_real("dawsn", x)))


# Cephes' rational approximation of Spence's function on [0.5, 1.5], in w = x - 1
_SPENCE_A = (4.65128586073990045278e-5, 7.31589045238094711071e-3, 1.33847639578309018650e-1,
             8.79691311754530315341e-1, 2.71149851196553469920e0, 4.25697156008121755724e0,
             3.29771340985225106936e0, 1.00000000000000000126e0)
_SPENCE_B = (6.90990488912553276999e-4, 2.54043763932544379113e-2, 2.82974860602568089943e-1,
             1.41172597751831069617e0, 3.63800533345137075418e0, 5.03278880143316990390e0,
             3.54771340985225096217e0, 9.99999999999999998740e-1)


def spence(x):
    """Spence's function (the dilogarithm) int_1^x log(t) / (1 - t) dt for x >= 0 (NaN
    below; float32 and float64 only).

    >>> from jaxwg.scipy.special import spence
    >>> round(spence(2.0).item(), 5)
    -0.82247
    """
    x = _float32_or_64("spence", x, _UNSUPPORTED)
    # x > 2 through 1 / x, then 1 / x - 1, -x or x - 1 into the approximation's range,
    # with the reflections log(x) log(1 - x) and log(x)^2 / 2, as Cephes
    # 0 and 1 have exact values: a safe operand there keeps log(0)'s infinities out of the
    # derivative of the branches not taken (0 * inf would be NaN)
    edge = (x == 0.0) | (x == 1.0)
    safe = jnp.where(edge, 1.5, x)
    inverted = safe > 2.0
    y = jnp.where(inverted, 1.0 / jnp.where(inverted, safe, 1.0), safe)
    above, below = y > 1.5, y < 0.5
    w = jnp.where(above, 1.0 / y - 1.0, jnp.where(below, -y, y - 1.0))
    value = -w * _horner(_SPENCE_A, w) / _horner(_SPENCE_B, w)
    value = jnp.where(below, float(np.pi ** 2 / 6) - jnp.log(y) * jnp.log1p(-y) - value, value)
    value = jnp.where(inverted | above, -0.5 * jnp.log(y) ** 2 - value, value)
    value = jnp.where(x == 0.0, float(np.pi ** 2 / 6), jnp.where(x == 1.0, 0.0, value))
    return jnp.where(x < 0.0, jnp.nan, value)


def bernoulli(n):
    """The Bernoulli numbers B_0 ... B_n (B_1 = -1/2) as an array, for a concrete n.

    >>> from jaxwg.scipy.special import bernoulli
    >>> bernoulli(4).tolist()[:3]
    [1.0, -0.5, 0.1666666716337204]
    """
    n = operator.index(n)
    if n < 0:
        raise ValueError("bernoulli: n must be a non-negative integer.")
    # B_m = -2 (-1)^(m/2) m! zeta(m) / (2 pi)^m for even m >= 4 (zeta(m) summed to k = 49,
    # as JAX's), in float64 on the host: n is concrete, the result a constant
    values = np.zeros(n + 1)
    values[:3] = (1.0, -0.5, 1 / 6)[:n + 1]
    m = np.arange(4, n + 1, 2, dtype=np.float64)
    scale = np.cumprod(-(m - 1) * m / 4 / np.pi ** 2) / np.pi ** 2
    values[4::2] = scale * (1 + np.sum(np.arange(2, 50.0)[:, None] ** -m[None, :], axis=0))
    return jnp.asarray(values)


# the families in modules of their own (they import this module's helpers)
from ._exponential_integrals import exp1, expi, expn, fresnel, sici  # noqa: E402
from ._hypergeometric import hyp1f1, hyp2f1  # noqa: E402
from ._bessel_owens import bessel_jn, owens_t, sph_harm_y, wofz  # noqa: E402
