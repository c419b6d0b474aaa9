"""`jaxwg.scipy.special`'s confluent and Gauss hypergeometric functions `hyp1f1` and
`hyp2f1`, by the methods of Pearson, Olver and Porter (2014, arXiv:1407.7786) that JAX's
use: Taylor series, the asymptotic series of 1F1 and the transformations of 2F1 near
x = 1 (Abramowitz and Stegun 15.3.3-15.3.12)."""

from __future__ import annotations

from .. import lax
from .. import numpy as jnp
from ..frontend.jit import jit
from ..transforms.custom import custom_jvp
from ._loops import while_each
from .special import _inexact, digamma, gamma

_TERMS = 250  # the most terms of any series, as JAX's


def _series(first, ratio, total, weight=None):
    """total + sum_{k >= 1} weight(k) term_k, where term_1 = `first` and term_{k+1} =
    term_k ratio(k), while k < 250 and |term_k| > eps |the sum so far| (JAX's stopping
    rule)."""
    eps = float(jnp.finfo(first.dtype).eps)

    def body(s):
        k, total, term = s
        total = total + (term if weight is None else term * weight(k))
        return k + 1.0, total, term * ratio(k)

    state = (jnp.ones_like(first), total + jnp.zeros_like(first), first)
    return while_each(lambda s: (s[0] < _TERMS) & (jnp.abs(s[2]) / jnp.abs(s[1]) > eps),
                      body, state)[1]


def _strong(name, *xs):
    xs = _inexact(*xs)
    if jnp.iscomplexobj(xs[0]):
        raise ValueError(f"{name} does not support complex-valued inputs.")
    return jnp.broadcast_arrays(*[lax.convert_element_type(x, x.dtype, weak_type=False)
                                  for x in xs])


# -- 1F1 ------------------------------------------------------------------------------------


def _hyp1f1_taylor(a, b, x, weight=None, total=1.0):
    return _series(a / b * x, lambda k: (a + k) / (b + k) * x / (k + 1.0), total, weight)


def _hyp1f1_asymptotic(a, b, x):
    """Gamma(b) / Gamma(a) exp(x) x^(a - b) sum_k (b - a)_k (1 - a)_k / (k! x^k), for
    large x."""
    total = _series((b - a) * (1.0 - a) / x, lambda k: (b - a + k) * (1.0 - a + k) / (k + 1.0) / x,
                    1.0)
    return gamma(b) / gamma(a) * jnp.exp(x) * x ** (a - b) * total


@custom_jvp
def _hyp1f1(a, b, x):
    near = jnp.abs(x) < 100
    # each series on operands of its own range elsewhere (its value is not used there)
    value = jnp.where(near, _hyp1f1_taylor(a, b, jnp.where(near, x, 0.0)),
                      _hyp1f1_asymptotic(a, b, jnp.where(near, 100.0, x)))
    value = jnp.where(a == 0, 1.0, value)
    value = jnp.where((a == b) & (a != 0), jnp.exp(x), value)
    return jnp.where((b == 0) & (a != 0), jnp.inf, value)


_hyp1f1.defjvps(
    # d/da sum_k (a)_k / (b)_k x^k / k! weighs term k by digamma(a + k) - digamma(a), d/db
    # by digamma(b) - digamma(b + k); d/dx = a / b 1F1(a + 1; b + 1; x)
    lambda t, ans, a, b, x: _hyp1f1_taylor(a, b, x, lambda k: digamma(a + k) - digamma(a), 0.0) * t,
    lambda t, ans, a, b, x: _hyp1f1_taylor(a, b, x, lambda k: digamma(b) - digamma(b + k), 0.0) * t,
    lambda t, ans, a, b, x: a / b * _hyp1f1(a + 1.0, b + 1.0, x) * t)


_jitted_hyp1f1 = jit(_hyp1f1)  # one program: eagerly each step of each loop is a dispatch


def hyp1f1(a, b, x):
    """The confluent hypergeometric function 1F1(a; b; x) = sum_k (a)_k / (b)_k x^k / k!
    (its Taylor series for |x| < 100, its asymptotic series above, as JAX's: real
    operands; 1 where a = b = 0, unlike SciPy).

    >>> from jaxwg.scipy.special import hyp1f1
    >>> round(hyp1f1(1.0, 2.0, 1.0).item(), 5)
    1.71828
    """
    return _jitted_hyp1f1(*_strong("hyp1f1", a, b, x))


# -- 2F1 ------------------------------------------------------------------------------------


def _hyp2f1_taylor(a, b, c, x):
    return _series(jnp.ones_like(x),
                   lambda k: (a + k - 1.0) * (b + k - 1.0) / (c + k - 1.0) / k * x, 0.0)


def _hyp2f1_terminating(a, b, c, x):
    """The Taylor series' finite sum where a (or b, the larger in magnitude that keeps
    clear of a non-positive integer c) is a non-positive integer."""
    eps = float(jnp.finfo(x.dtype).eps) * 50
    swap = (b < a) & (jnp.abs(b - jnp.round(b)) < eps) & ~(
        (jnp.remainder(c, 1.0) == 0) & (c <= 0) & (c > b))
    a, b = jnp.abs(jnp.where(swap, b, a)), jnp.where(swap, a, b)

    def body(s):
        i, total, term = s
        term = term * -(a - i + 1.0) / (c + i - 1.0) * (b + i - 1.0) / i * x
        return i + 1.0, total + term, term

    one = jnp.ones_like(x)
    return while_each(lambda s: s[0] < a + 1.0, body, (one, one, one))[1]


def _hyp2f1_near_one(a, b, c, x):
    """2F1 near x = 1 where d = c - a - b is (nearly) an integer: the series in 1 - x of
    Abramowitz and Stegun 15.3.10-15.3.12 (digamma terms)."""
    eps = float(jnp.finfo(x.dtype).eps)
    d = c - a - b
    s = 1.0 - x
    rd = jnp.round(d)
    positive = rd >= 0
    e = jnp.where(positive, d, -d)
    d1 = jnp.where(positive, d, 0.0)
    d2 = jnp.where(positive, 0.0, d)
    ard = jnp.abs(rd)
    log_s = jnp.log(s)
    y = (digamma(jnp.ones_like(x)) + digamma(1.0 + e) - digamma(a + d1) - digamma(b + d1)
         - log_s) / gamma(e + 1.0)
    p = (a + d1) * (b + d1) * s / gamma(e + 2.0)

    def body(st):
        # the digammas at 1 + t, 1 + t + e, a + t + d1, b + t + d1 step on by
        # psi(z + 1) = psi(z) + 1 / z (JAX's evaluates each anew: ~4 times the work)
        t, y, q, p, psi = st
        q = p * (psi - log_s)
        p = p * (s * (a + t + d1) / (t + 1.0)) * ((b + t + d1) / (t + 1.0 + e))
        psi = psi + 1.0 / (1.0 + t) + 1.0 / (1.0 + t + e) - 1.0 / (a + t + d1) - 1.0 / (b + t + d1)
        return t + 1.0, y + q, q, p, psi

    one = jnp.ones_like(x)
    psi = digamma(2.0 * one) + digamma(2.0 + e) - digamma(a + 1.0 + d1) - digamma(b + 1.0 + d1)
    y = while_each(lambda st: (st[0] < _TERMS) & (jnp.abs(st[2]) >= eps * jnp.abs(st[1])),
                   body, (one, y, y, p, psi))[1]

    def finite_body(st):  # the finite sum of 15.3.11/15.3.12, ard - 1 terms
        i, t, p, total = st
        p = p * (s * (a + t + d2) * (b + t + d2) / (1.0 - e + t)) / (t + 1.0)
        return i + 1.0, t + 1.0, p, total + p

    finite = while_each(lambda st: st[0] < ard, finite_body, (one, 0.0 * one, one, one))[3]
    gamma_c = gamma(c)
    finite = finite * (gamma(e) * gamma_c / (gamma(a + d1) * gamma(b + d1)))
    y_scaled = y * (gamma_c / (gamma(a + d2) * gamma(b + d2)))
    y_scaled = jnp.where(jnp.remainder(ard, 2.0) != 0, -y_scaled, y_scaled)
    q = s ** rd
    summed = jnp.where(rd > 0, y_scaled * q + finite, y_scaled + finite * q)
    return jnp.where(rd == 0, y * gamma_c / (gamma(a) * gamma(b)), summed)


def _hyp2f1_series(a, b, c, x):
    """The terminating sum, the Taylor series or (for x > 0.9 and an integer c - a - b)
    the expansion in 1 - x, as JAX's; each on operands of its own case elsewhere."""
    eps = float(jnp.finfo(x.dtype).eps) * 50
    d = c - a - b
    terminating = (((a <= 0) & (jnp.abs(a - jnp.round(a)) < eps))
                   | ((b <= 0) & (jnp.abs(b - jnp.round(b)) < eps)))
    near_one = (x > 0.9) & ~terminating & (jnp.abs(d - jnp.round(d)) < eps)
    taylor = ~terminating & ~near_one

    def on(case, f, safe):  # f where `case` holds, on operands `safe` (quick) elsewhere
        return f(*[jnp.where(case, v, w) for v, w in zip((a, b, c, x), safe)])

    return jnp.where(terminating, on(terminating, _hyp2f1_terminating, (0.0, 0.0, 1.0, 0.0)),
                     jnp.where(near_one, on(near_one, _hyp2f1_near_one, (1.0, 1.0, 2.0, 0.95)),
                               on(taylor, _hyp2f1_taylor, (0.0, 0.0, 1.0, 0.0))))


@custom_jvp
def _hyp2f1(a, b, c, x):
    eps = float(jnp.finfo(x.dtype).eps) * 50
    d, s, ca, cb = c - a - b, 1.0 - x, c - a, c - b
    one, inf = jnp.ones_like(x), jnp.full_like(x, jnp.inf)
    # JAX's cases, the first that holds winning
    euler = (d <= -1) & ~((jnp.abs(d - jnp.round(d)) >= eps) & (s < 0))
    cases = [
        ((x == 0) | (((a == 0) | (b == 0)) & (c != 0)), one),
        ((c == 0) | ((c < 0) & (jnp.remainder(c, 1.0) == 0)), inf),
        (euler, None),  # Euler's transformation: s^d 2F1(c - a, c - b; c; x)
        ((d <= 0) & (x == 1), inf),
        ((x < 1) & (b == c), s ** -a),
        ((x < 1) & (a == c), s ** -b),
        (x > 1, inf),
        (x == 1, gamma(c) * gamma(d) / (gamma(ca) * gamma(cb))),  # Gauss's theorem
    ]
    taken = jnp.zeros(x.shape, bool)
    masks = []
    for condition, _ in cases:
        masks.append(condition & ~taken)
        taken = taken | condition
    # one series for the general case and Euler's (each element takes at most one; the
    # others get a = b = x = 0, one term)
    general, euler = ~taken, masks[2]
    zero = jnp.zeros_like(x)
    series = _hyp2f1_series(jnp.where(general, a, jnp.where(euler, ca, zero)),
                            jnp.where(general, b, jnp.where(euler, cb, zero)),
                            jnp.where(general | euler, c, one), jnp.where(general | euler, x, zero))
    out = series
    for mask, (_, value) in zip(masks, cases):
        out = jnp.where(mask, s ** d * series if value is None else value, out)
    return out


def _hyp2f1_parameter_derivative(a, b, c, x, weight):
    return _series(a * b / c * x, lambda k: (a + k) * (b + k) / (c + k) / (k + 1.0) * x, 0.0,
                   weight)


_hyp2f1.defjvps(
    # term k of the Taylor series weighed by the derivative of log (a)_k (b)_k / (c)_k
    lambda t, ans, a, b, c, x: _hyp2f1_parameter_derivative(
        a, b, c, x, lambda k: digamma(a + k) - digamma(a)) * t,
    lambda t, ans, a, b, c, x: _hyp2f1_parameter_derivative(
        a, b, c, x, lambda k: digamma(b + k) - digamma(b)) * t,
    lambda t, ans, a, b, c, x: _hyp2f1_parameter_derivative(
        a, b, c, x, lambda k: digamma(c) - digamma(c + k)) * t,
    lambda t, ans, a, b, c, x: a * b / c * _hyp2f1(a + 1.0, b + 1.0, c + 1.0, x) * t)


_jitted_hyp2f1 = jit(_hyp2f1)


def hyp2f1(a, b, c, x):
    """The Gauss hypergeometric function 2F1(a, b; c; x) = sum_k (a)_k (b)_k / (c)_k
    x^k / k! for real operands and x <= 1 (inf for x > 1, as JAX's).

    >>> from jaxwg.scipy.special import hyp2f1
    >>> round(hyp2f1(1.0, 1.0, 2.0, 0.5).item(), 5)
    1.38629
    """
    return _jitted_hyp2f1(*_strong("hyp2f1", a, b, c, x))
