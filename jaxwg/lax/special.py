"""Special functions and bit counts: `lgamma`, `digamma`, `igamma`, `igammac`,
`igamma_grad_a`, `random_gamma_grad`, `population_count`, `clz`, built from primitives.

`lgamma` and `digamma` use the Lanczos approximation (g = 7, nine terms) for x >= 1/2
and Euler's reflection below, so they are straight-line code that fuses into one kernel;
`digamma` is the analytic derivative of that approximation, and differentiating the
composite `lgamma` gives the same formula, so `grad(lgamma)` is `digamma` up to rounding.
float16 is computed in float32, as JAX does.

The regularized incomplete gamma functions sum a power series (x <= a or x < 1) or evaluate a
continued fraction (modified Lentz) in a `while_loop` over the whole array that stops
when every element has converged. Their derivative in `a`, needed for the gradient of
gamma samples, is carried along the same recurrences. Loops cannot be differentiated in
reverse, so `grad` of `igamma`/`igammac` raises as for any `while_loop`; the derivatives
are available as `igamma_grad_a` and the closed form of the one in x.

>>> import jaxwg.numpy as jnp
>>> from jaxwg import lax
>>> [round(v, 4) for v in lax.lgamma(jnp.array([0.5, 3.0, -1.5])).tolist()]
[0.5724, 0.6931, 0.86]
>>> lax.population_count(jnp.array([7, -1])).tolist()
[3, 32]
"""

from __future__ import annotations

import math

import numpy as np

from ..core import dtypes as dt
from ..frontend.array import aval_of
from . import lax
from .control_flow import while_loop

__all__ = ["clz", "digamma", "igamma", "igamma_grad_a", "igammac", "lgamma", "population_count",
           "random_gamma_grad"]

# The Lanczos approximation with g = 7 and nine coefficients (as tabulated, e.g., by
# Godfrey and on Wikipedia): Gamma(z + 1) = sqrt(2 pi) t^(z + 1/2) e^-t A(z), with
# t = z + g + 1/2 and A(z) = c0 + sum_k c_k / (z + k); relative error ~1e-15.
_LANCZOS_G = 7.0
_LANCZOS_C0 = 0.99999999999980993
_LANCZOS_C = (676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
              12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6,
              1.5056327351493116e-7)

# A bound on the steps of the series and the continued fraction: finite inputs converge in
# far fewer, so it only ends a loop that something unforeseen keeps from converging.
_MAX_ITERATIONS = 10000


# -- operand checks ---------------------------------------------------------------------------


def _check_kind(name: str, x, kind: str, position=None):
    """`x`'s dtype is of `kind` ("floating" or "integer"), else JAX's TypeError."""
    dtype = aval_of(x).dtype
    ok = dtype.is_float if kind == "floating" else dtype.is_int
    if not ok:
        at = "" if position is None else f" at position {position}"
        raise TypeError(f"{name} does not accept dtype {dtype.name}{at}. Accepted dtypes{at} "
                        f"are subtypes of {kind}.")


def _float_pair(name: str, a, x):
    """`a` and `x` as float arrays of one dtype and shape (rank 0 broadcasts), as lax's
    binary operations take them (a Python scalar takes the other's dtype)."""
    a, x = lax._scalars_like([a, x])
    for position, v in enumerate((a, x)):
        _check_kind(name, v, "floating", position)
    a_aval, x_aval = aval_of(a), aval_of(x)
    if a_aval.dtype != x_aval.dtype:
        raise TypeError(f"lax.{name} requires arguments to have the same dtypes, got "
                        f"{a_aval.dtype.name}, {x_aval.dtype.name}.")
    if a_aval.shape != x_aval.shape and a_aval.shape and x_aval.shape:
        raise TypeError(f"{name} got incompatible shapes for broadcasting: {a_aval.shape}, "
                        f"{x_aval.shape}.")
    shape = a_aval.shape or x_aval.shape
    return lax.broadcast(a, shape[len(a_aval.shape):]), lax.broadcast(x, shape[len(x_aval.shape):])


def _in_float32_if_half(fn, *xs):
    """`fn(*xs)`, computed in float32 when the operands are float16 (as JAX does), with
    the operands' dtype and weak type."""
    aval = aval_of(xs[0])
    if aval.dtype is dt.float16:
        xs = [lax.convert_element_type(x, dt.float32) for x in xs]
    return lax.convert_element_type(fn(*xs), aval.dtype, weak_type=aval.weak_type)


def _eps(x) -> float:
    return float(np.finfo(aval_of(x).dtype.np).eps)


# -- lgamma and digamma -------------------------------------------------------------------------


def _reflected(x):
    """(x < 1/2, z, x_reflected): Lanczos' z = x - 1 for x >= 1/2, and z = -x (for
    1 - x) below; x_reflected is x where it reflects and 1/4 elsewhere, so that the
    unused reflection term is finite there (its derivative would be 0 * inf = NaN)."""
    reflect = lax.lt(x, 0.5)
    z = lax.select(reflect, lax.neg(x), lax.sub(x, 1.0))
    return reflect, z, lax.select(reflect, x, lax.full_like(x, 0.25))


def _lanczos_t(z):
    """t = z + g + 1/2 and log(t), the latter as log(g + 1/2) + log1p(z / (g + 1/2)),
    which is more accurate than log(t) where t rounds."""
    half_g = _LANCZOS_G + 0.5
    t = lax.add(z, half_g)
    return t, lax.add(lax.log1p(lax.div(z, half_g)), math.log(half_g))


def _lanczos_sum(z):
    """A(z) = c0 + sum_k c_k / (z + k)."""
    total = lax.full_like(z, _LANCZOS_C0)
    for k, c in enumerate(_LANCZOS_C, start=1):
        total = lax.add(total, lax.div(lax.full_like(z, c), lax.add(z, float(k))))
    return total


def _lanczos_sum_derivative(z):
    """A'(z) = -sum_k c_k / (z + k)^2."""
    total = lax.full_like(z, 0.0)
    for k, c in enumerate(_LANCZOS_C, start=1):
        total = lax.sub(total, lax.div(lax.full_like(z, c), lax.square(lax.add(z, float(k)))))
    return total


def _log_abs_sin_pi(x):
    """log|sin(pi x)|, exactly -inf at integers: sin's argument is pi times the distance
    from |x| to the nearest integer (at most pi / 2), so it neither grows nor loses the
    fraction to rounding."""
    ax = lax.abs(x)
    frac = lax.sub(ax, lax.floor(ax))
    dist = lax.min(frac, lax.sub(1.0, frac))
    return lax.log(lax.sin(lax.mul(dist, math.pi)))


def _lgamma(x):
    reflect, z, x_reflected = _reflected(x)
    t, log_t = _lanczos_t(z)
    # (z + 1/2) log t - t, written so that it does not overflow before the subtraction
    log_gamma = lax.add(lax.mul(lax.sub(lax.add(z, 0.5), lax.div(t, log_t)), log_t),
                        lax.add(lax.log(_lanczos_sum(z)), 0.5 * math.log(2 * math.pi)))
    # Gamma(x) Gamma(1 - x) = pi / sin(pi x); at the poles log|sin| is -inf and wins
    log_sin = _log_abs_sin_pi(x_reflected)
    reflection = lax.select(lax.is_finite(log_sin),
                            lax.sub(lax.sub(math.log(math.pi), log_sin), log_gamma),
                            lax.neg(log_sin))
    out = lax.select(reflect, reflection, log_gamma)
    return lax.select(lax.eq(lax.abs(x), math.inf), lax.full_like(x, math.inf), out)


def lgamma(x):
    """log|Gamma(x)| elementwise (+inf at the poles 0, -1, -2, ... and at +-inf).

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg import lax
    >>> [round(v, 4) for v in lax.lgamma(jnp.array([0.5, 10.0, -0.5])).tolist()]
    [0.5724, 12.8018, 1.2655]
    """
    _check_kind("lgamma", x, "floating")
    return _in_float32_if_half(_lgamma, x)


def _digamma(x):
    reflect, z, x_reflected = _reflected(x)
    t, log_t = _lanczos_t(z)
    psi = lax.sub(lax.add(log_t, lax.div(_lanczos_sum_derivative(z), _lanczos_sum(z))),
                  lax.div(lax.full_like(z, _LANCZOS_G), t))
    # psi(x) = psi(1 - x) - pi cot(pi x); cot has period 1, so x - round(x) keeps the
    # argument of tan within [-pi/2, pi/2] and exact
    near = lax.sub(x_reflected, lax.floor(lax.add(x_reflected, 0.5)))
    reflection = lax.sub(psi, lax.div(lax.full_like(x, math.pi), lax.tan(lax.mul(near, math.pi))))
    out = lax.select(reflect, reflection, psi)
    pole = lax.bitwise_and(lax.le(x, 0.0), lax.eq(x, lax.floor(x)))
    return lax.select(pole, lax.full_like(x, math.nan), out)


def digamma(x):
    """The digamma function psi(x) = d/dx log Gamma(x) (NaN at the poles 0, -1, ...).

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg import lax
    >>> [round(v, 5) for v in lax.digamma(jnp.array([1.0, 2.5, -0.5])).tolist()]
    [-0.57722, 0.70316, 0.03649]
    """
    _check_kind("digamma", x, "floating")
    return _in_float32_if_half(_digamma, x)


# -- the incomplete gamma functions -------------------------------------------------------------


def _any(mask):
    return lax.reduce_or(mask, tuple(range(aval_of(mask).ndim)))


def _loop_while_any(active, body, state):
    """`state = body(active, state)` until no element is `active` (or the iteration cap);
    `body` returns (still active, new state) and must leave inactive elements alone."""
    def cond(carry):
        i, active, _ = carry
        return lax.bitwise_and(lax.lt(i, _MAX_ITERATIONS), _any(active))

    def step(carry):
        i, active, state = carry
        still, new = body(active, state)
        new = tuple(lax.select(active, n, s) for n, s in zip(new, state))
        return lax.add(i, 1), lax.bitwise_and(active, still), new

    return while_loop(cond, step, (lax.full((), 0, dt.int32), active, tuple(state)))[2]


def _lower_series(a, x, active):
    """S = sum_n x^n / ((a+1)...(a+n)) and dS/da: P(a, x) = x^a e^-x S / Gamma(a + 1).
    Each term is the last times x / (a + n), so it converges for any x, fastest for
    x < a; it stops once a term is below eps of the sum (and so for the derivative)."""
    eps = _eps(a)
    one, zero = lax.full_like(a, 1.0), lax.full_like(a, 0.0)

    def body(active, state):
        a_n, term, total, dterm, dtotal = state
        a_n = lax.add(a_n, 1.0)
        ratio = lax.div(x, a_n)
        dterm = lax.mul(lax.sub(dterm, lax.div(term, a_n)), ratio)
        term = lax.mul(term, ratio)
        total, dtotal = lax.add(total, term), lax.add(dtotal, dterm)
        still = lax.bitwise_or(lax.gt(term, lax.mul(total, eps)),
                               lax.gt(lax.abs(dterm), lax.mul(lax.abs(dtotal), eps)))
        return still, (a_n, term, total, dterm, dtotal)

    _, _, total, _, dtotal = _loop_while_any(active, body, (a, one, one, zero, zero))
    return total, dtotal


def _upper_fraction(a, x, active):
    """F and dF/da with Q(a, x) = x^a e^-x F / Gamma(a): the continued fraction
    1 / (x + 1 - a - 1 (1 - a) / (x + 3 - a - 2 (2 - a) / (x + 5 - a - ...))) by the
    modified Lentz method, converging for x > a (fastest for x > a + 1)."""
    eps = _eps(a)
    tiny = float(np.finfo(aval_of(a).dtype.np).tiny) / eps

    def guard(v, dv):
        small = lax.lt(lax.abs(v), tiny)
        return lax.select(small, lax.full_like(v, tiny), v), lax.select(small, lax.full_like(dv, 0.0), dv)

    def body(active, state):
        i, b, c, dc, d, dd, h, dh = state
        i = lax.add(i, 1.0)
        an = lax.mul(i, lax.sub(a, i))  # -i (i - a); its derivative in a is i
        b = lax.add(b, 2.0)  # its derivative in a stays -1
        den, dden = guard(lax.add(lax.mul(an, d), b),
                          lax.sub(lax.add(lax.mul(i, d), lax.mul(an, dd)), 1.0))
        c, dc = guard(lax.add(b, lax.div(an, c)),
                      lax.sub(lax.sub(lax.div(i, c), lax.div(lax.div(lax.mul(an, dc), c), c)), 1.0))
        d = lax.div(1.0, den)
        dd = lax.neg(lax.mul(dden, lax.square(d)))
        delta, ddelta = lax.mul(d, c), lax.add(lax.mul(dd, c), lax.mul(d, dc))
        dh = lax.add(lax.mul(dh, delta), lax.mul(h, ddelta))
        h = lax.mul(h, delta)
        still = lax.bitwise_or(lax.gt(lax.abs(lax.sub(delta, 1.0)), eps),
                               lax.gt(lax.abs(lax.mul(h, ddelta)), lax.mul(lax.abs(dh), eps)))
        return still, (i, b, c, dc, d, dd, h, dh)

    b = lax.sub(lax.add(x, 1.0), a)
    d = lax.div(1.0, b)
    dd = lax.square(d)
    start = (lax.full_like(a, 0.0), b, lax.full_like(a, 1.0 / tiny), lax.full_like(a, 0.0), d, dd, d, dd)
    state = _loop_while_any(active, body, start)
    return state[6], state[7]


def _finite_positive(a, x):
    """The elements whose P and Q need a sum: a and x finite and positive."""
    return lax.bitwise_and(lax.bitwise_and(lax.gt(a, 0.0), lax.gt(x, 0.0)),
                           lax.bitwise_and(lax.lt(a, math.inf), lax.lt(x, math.inf)))


def _expansions(a, x):
    """What P, Q and dP/da share: whether an element takes the continued fraction (else
    the series), L = log(x^a e^-x / Gamma(a)), (S, dS/da) and (F, dF/da)."""
    live = _finite_positive(a, x)
    # Q from the fraction where it is small (x > a), so it does not cancel in 1 - P
    use_fraction = lax.bitwise_and(lax.gt(x, a), lax.ge(x, 1.0))
    log_prefactor = lax.sub(lax.sub(lax.mul(a, lax.log(x)), x), lgamma(a))
    series = _lower_series(a, x, lax.bitwise_and(live, lax.bitwise_not(use_fraction)))
    fraction = _upper_fraction(a, x, lax.bitwise_and(live, use_fraction))
    return use_fraction, log_prefactor, series, fraction


def _lower_and_upper(a, x):
    """(P, Q), right where `_finite_positive` (garbage elsewhere)."""
    use_fraction, log_prefactor, (series, _), (fraction, _) = _expansions(a, x)
    prefactor = lax.exp(log_prefactor)
    p_series = lax.div(lax.mul(prefactor, series), a)
    q_fraction = lax.mul(prefactor, fraction)
    p = lax.select(use_fraction, lax.sub(1.0, q_fraction), p_series)
    q = lax.select(use_fraction, q_fraction, lax.sub(1.0, p_series))
    return p, q


def _with_limits(a, x, value, where_p_is_0, where_p_is_1):
    """`value` (P or Q) with the limits filled in: P = 0 at x = 0 and for a = inf, P = 1
    at x = inf and for a = 0 (as SciPy; JAX's values there depend on which of its
    expansions a point falls in), NaN for NaNs, negatives and a = x = 0."""
    value = lax.select(lax.bitwise_or(lax.eq(x, 0.0), lax.eq(a, math.inf)),
                       lax.full_like(value, where_p_is_0), value)
    value = lax.select(lax.bitwise_or(lax.eq(x, math.inf), lax.eq(a, 0.0)),
                       lax.full_like(value, where_p_is_1), value)
    bad = lax.bitwise_or(lax.bitwise_or(lax.lt(a, 0.0), lax.lt(x, 0.0)),
                         lax.bitwise_or(lax.ne(a, a), lax.ne(x, x)))
    bad = lax.bitwise_or(bad, lax.bitwise_and(lax.eq(a, 0.0), lax.eq(x, 0.0)))
    return lax.select(bad, lax.full_like(value, math.nan), value)


def igamma(a, x):
    """The regularized lower incomplete gamma function P(a, x) = gamma(a, x) / Gamma(a).

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg import lax
    >>> [round(v, 5) for v in lax.igamma(jnp.array([1.0, 3.0]), jnp.array([1.0, 2.0])).tolist()]
    [0.63212, 0.32332]
    """
    a, x = _float_pair("igamma", a, x)
    return _in_float32_if_half(
        lambda a, x: _with_limits(a, x, _lower_and_upper(a, x)[0], 0.0, 1.0), a, x)


def igammac(a, x):
    """The regularized upper incomplete gamma function Q(a, x) = 1 - P(a, x).

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg import lax
    >>> [round(v, 5) for v in lax.igammac(jnp.array([1.0, 3.0]), jnp.array([1.0, 2.0])).tolist()]
    [0.36788, 0.67668]
    """
    a, x = _float_pair("igammac", a, x)
    return _in_float32_if_half(
        lambda a, x: _with_limits(a, x, _lower_and_upper(a, x)[1], 1.0, 0.0), a, x)


def _dlower_da_scaled(a, x):
    """(dP/da / e^L, L), right where `_finite_positive`. P's derivative without the
    prefactor e^L, which the density shares, so that a sample's derivative never rounds
    it (its log loses absolute precision for large a)."""
    use_fraction, log_prefactor, (s, ds), (f, df) = _expansions(a, x)
    log_x = lax.log(x)
    # P = e^L S / a with dL/da = log x - psi(a), and psi(a) + 1/a = psi(a + 1)
    from_series = lax.div(lax.add(lax.mul(s, lax.sub(log_x, digamma(lax.add(a, 1.0)))), ds), a)
    # P = 1 - e^L F
    from_fraction = lax.neg(lax.add(lax.mul(f, lax.sub(log_x, digamma(a))), df))
    return lax.select(use_fraction, from_fraction, from_series), log_prefactor


def _derivative_limits(a, x, value):
    """`value` (a derivative in a) as JAX gives it off the finite positive quadrant: 0
    where x = 0, NaN for a <= 0, x < 0, NaNs and infinities."""
    value = lax.select(lax.eq(x, 0.0), lax.full_like(value, 0.0), value)
    bad = lax.bitwise_or(lax.bitwise_or(lax.le(a, 0.0), lax.lt(x, 0.0)),
                         lax.bitwise_or(lax.ne(a, a), lax.ne(x, x)))
    infinite = lax.bitwise_or(lax.eq(x, math.inf), lax.bitwise_and(lax.eq(a, math.inf), lax.ne(x, 0.0)))
    return lax.select(lax.bitwise_or(bad, infinite), lax.full_like(value, math.nan), value)


def igamma_grad_a(a, x):
    """The derivative of `igamma(a, x)` with respect to `a`.

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg import lax
    >>> round(lax.igamma_grad_a(jnp.array(2.0), jnp.array(1.5)).item(), 5)
    -0.31349
    """
    def grad(a, x):
        scaled, log_prefactor = _dlower_da_scaled(a, x)
        return _derivative_limits(a, x, lax.mul(scaled, lax.exp(log_prefactor)))

    a, x = _float_pair("igamma_grad_a", a, x)
    return _in_float32_if_half(grad, a, x)


def random_gamma_grad(a, x):
    """The derivative of a Gamma(a, 1) sample `x` with respect to `a`, holding its
    quantile P(a, x) fixed: -(dP/da) / (dP/dx) (implicit reparameterization).

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg import lax
    >>> round(lax.random_gamma_grad(jnp.array(1.0), jnp.array(1.0)).item(), 5)
    1.17356
    """
    def grad(a, x):
        # dP/dx = x^(a-1) e^-x / Gamma(a) = e^L / x
        scaled, _ = _dlower_da_scaled(a, x)
        return _derivative_limits(a, x, lax.neg(lax.mul(scaled, x)))

    a, x = _float_pair("random_gamma_grad", a, x)
    return _in_float32_if_half(grad, a, x)


# -- bit counts ---------------------------------------------------------------------------------


def _as_uint32(name: str, x):
    """The two's complement bits of integer `x` as a uint32, zero-extended (int8 -1 is 255)."""
    _check_kind(name, x, "integer")
    bits = lax.bitcast_convert_type(x, dt.UNSIGNED[aval_of(x).dtype])
    return lax.convert_element_type(bits, dt.uint32)


def _popcount_uint32(u):
    """The set bits of each uint32, by summing adjacent bit fields in parallel (pairs,
    nibbles, bytes), then all four bytes at once with a multiply."""
    u = lax.sub(u, lax.bitwise_and(lax.shift_right_logical(u, 1), 0x55555555))
    u = lax.add(lax.bitwise_and(u, 0x33333333),
                lax.bitwise_and(lax.shift_right_logical(u, 2), 0x33333333))
    u = lax.bitwise_and(lax.add(u, lax.shift_right_logical(u, 4)), 0x0F0F0F0F)
    return lax.shift_right_logical(lax.mul(u, 0x01010101), 24)


def population_count(x):
    """The number of set bits of each integer (of its two's complement if signed).

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg import lax
    >>> lax.population_count(jnp.array([0, 5, -1])).tolist()
    [0, 2, 32]
    """
    dtype = aval_of(x).dtype
    count = _popcount_uint32(_as_uint32("population_count", x))
    return lax.convert_element_type(count, dtype, weak_type=aval_of(x).weak_type)


def clz(x):
    """The number of leading zero bits of each integer, at its width (32 for an int32 0,
    8 for an int8 0).

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg import lax
    >>> lax.clz(jnp.array([0, 1, -1, 65535])).tolist()
    [32, 31, 0, 16]
    >>> lax.clz(jnp.array([0, 1, -1], jnp.int8)).tolist()
    [8, 7, 0]
    """
    dtype = aval_of(x).dtype
    u = _as_uint32("clz", x)
    # Copy the highest set bit into every lower position: the zeros left are the leading ones
    for shift in (1, 2, 4, 8, 16):
        u = lax.bitwise_or(u, lax.shift_right_logical(u, shift))
    count = lax.sub(dtype.bits, _popcount_uint32(u))
    return lax.convert_element_type(count, dtype, weak_type=aval_of(x).weak_type)
