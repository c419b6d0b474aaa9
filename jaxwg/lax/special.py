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
from ..frontend import primitives as P
from ..frontend.array import aval_of
from ..frontend.trace import bind
from . import lax
from ..transforms.custom import SymbolicZero, custom_jvp
from .control_flow import while_loop

__all__ = ["bessel_i0e", "bessel_i1e", "betainc", "clz", "digamma", "igamma", "igamma_grad_a",
           "igammac", "lgamma", "polygamma", "population_count", "random_gamma_grad", "zeta"]

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


def _float_operands(name: str, *xs):
    """`xs` as float arrays of one dtype and shape (rank 0 broadcasts), as lax's n-ary
    operations take them (a Python scalar takes the others' dtype)."""
    xs = lax._scalars_like(list(xs))
    for position, v in enumerate(xs):
        _check_kind(name, v, "floating", position)
    avals = [aval_of(v) for v in xs]
    if len({v.dtype for v in avals}) > 1:
        raise TypeError(f"lax.{name} requires arguments to have the same dtypes, got "
                        f"{', '.join(v.dtype.name for v in avals)}.")
    shapes = [v.shape for v in avals if v.shape]
    if len(set(shapes)) > 1:
        raise TypeError(f"{name} got incompatible shapes for broadcasting: "
                        f"{', '.join(str(s) for s in shapes)}.")
    shape = shapes[0] if shapes else ()
    return tuple(lax.broadcast(v, shape[len(a.shape):]) for v, a in zip(xs, avals))


def _in_float32_if_half(fn, *xs):
    """`fn(*xs)`, computed in float32 when the operands are float16 (as JAX does), with
    the operands' dtype and weak type."""
    aval = aval_of(xs[0])
    weak = all(aval_of(x).weak_type for x in xs)
    if aval.dtype is dt.float16:
        xs = [lax.convert_element_type(x, dt.float32) for x in xs]
    return lax.convert_element_type(fn(*xs), aval.dtype, weak_type=weak)


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


def _fma(a, b, c):
    """a * b + c rounded once."""
    return bind(P.fma_p, a, b, c)


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
    # log sqrt(2 pi) + (z + 1/2) log t - t + log A(z), the middle written so that it does
    # not overflow before the subtraction, and its product and first sum fused as XLA's
    # CPU backend contracts them (which makes lgamma(2) exactly 0, as JAX's)
    middle = lax.sub(lax.add(z, 0.5), lax.div(t, log_t))
    log_gamma = lax.add(_fma(middle, log_t, lax.full_like(z, 0.5 * math.log(2 * math.pi))),
                        lax.log(_lanczos_sum(z)))
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


# Temme's uniform asymptotic expansion (DLMF 8.12), for a > 200 and |x - a| < 0.3 a: there
# the series and the fraction need on the order of sqrt(a) steps, and their prefactor's
# log, a log x - x - lgamma(a), cancels to nothing (at a = x = 1e10 they gave Q = 1, where
# Q is 1/2; JAX gives 0 in float32). With eta^2 / 2 = s - log(1 + s), s = (x - a) / a and
# eta of s's sign,
#   Q = erfc(eta sqrt(a/2)) / 2 + R,  P = erfc(-eta sqrt(a/2)) / 2 - R,
#   R = e^(-a eta^2 / 2) / sqrt(2 pi a) sum_k c_k(eta) / a^k,  c_k(eta) = sum_n d[k][n] eta^n,
# with SciPy's coefficients d (its _precompute/gammainc_asy.py), the first 5 x 12 of them.
# SciPy takes it for |x - a| < 4.5 sqrt(a), with |eta| up to 0.35 at a = 200; |x - a| < 0.3 a
# keeps |eta| within that for every a, and there these coefficients are within 2e-15 of
# SciPy's values where it uses the expansion and 1e-12 elsewhere.
_TEMME_MIN_A = 200.0
_TEMME_WIDTH = 0.3
_TEMME_D = (
    (-0.33333333333333331, 0.083333333333333329, -0.014814814814814815, 0.0011574074074074073,
     0.00035273368606701942, -0.0001787551440329218, 3.9192631785224377e-05,
     -2.185448510679992e-06, -1.85406221071516e-06, 8.2967113409530865e-07,
     -1.7665952736826078e-07, 6.7078535434014984e-09),
    (-0.0018518518518518519, -0.003472222222222222, 0.0026455026455026454,
     -0.00099022633744855963, 0.00020576131687242798, -4.018775720164609e-07,
     -1.8098550334489977e-05, 7.6491609160811098e-06, -1.6120900894563446e-06,
     4.647127802807434e-09, 1.3786334469157209e-07, -5.7525456035177047e-08),
    (0.0041335978835978834, -0.0026813271604938273, 0.0007716049382716049,
     2.0093878600823047e-06, -0.0001073665322636516, 5.2923448829120125e-05,
     -1.2760635188618728e-05, 3.4235787340961378e-08, 1.3721957309062934e-06,
     -6.2989921383800548e-07, 1.4280614206064242e-07, -2.0477098421990866e-10),
    (0.00064943415637860077, 0.00022947209362139917, -0.0004691894943952557,
     0.00026772063206283885, -7.5618016718839766e-05, -2.3965051138672968e-07,
     1.1082654115347302e-05, -5.6749528269915965e-06, 1.4230900732435883e-06,
     -2.7861080291528143e-11, -1.6958404091930278e-07, 8.0994649053880827e-08),
    (-0.00086188829091671173, 0.00078403922172006662, -0.00029907248030319018,
     -1.4638452578843418e-06, 6.6414982154651219e-05, -3.9683650471794347e-05,
     1.1375726970678419e-05, 2.5074972262375329e-10, -1.6954149536558305e-06,
     8.9075075322053094e-07, -2.2929348340008049e-07, 2.9567941375440492e-11),
)


def _horner(coefficients, t):
    """sum_n coefficients[n] t^n."""
    total = lax.full_like(t, coefficients[-1])
    for c in reversed(coefficients[:-1]):
        total = lax.add(lax.mul(total, t), c)
    return total


def _uses_temme(a, x):
    """The elements Temme's expansion takes: a > 200 and |x - a| < 0.3 a."""
    near = lax.lt(lax.abs(lax.sub(x, a)), lax.mul(a, _TEMME_WIDTH))
    return lax.bitwise_and(lax.bitwise_and(lax.gt(a, _TEMME_MIN_A), lax.lt(a, math.inf)), near)


def _temme(a, x):
    """(P, Q) by Temme's expansion, right where `_uses_temme`."""
    s = lax.div(lax.sub(x, a), a)
    # eta^2 / 2 = s - log(1 + s) without cancellation: with u = s / (2 + s), log(1 + s) is
    # 2 atanh(u) and s is 2u / (1 - u), so it is 2u^2 / (1 - u) - 2 (u^3/3 + u^5/5 + ...),
    # whose series in u^2 (|u| < 0.18 here) ends below float64's eps by u^25
    u = lax.div(s, lax.add(s, 2.0))
    u2 = lax.square(u)
    tail = lax.mul(lax.mul(u, u2), _horner([2.0 / (2 * k + 3) for k in range(12)], u2))
    half_eta2 = lax.sub(lax.div(lax.mul(u2, 2.0), lax.sub(1.0, u)), tail)
    eta = lax.mul(lax.sign(s), lax.sqrt(lax.mul(half_eta2, 2.0)))
    inverse_a = lax.div(1.0, a)
    series = _horner(_TEMME_D[-1], eta)  # sum_k c_k(eta) / a^k, by Horner's rule in 1/a
    for row in reversed(_TEMME_D[:-1]):
        series = lax.add(lax.mul(series, inverse_a), _horner(row, eta))
    r = lax.div(lax.mul(lax.exp(lax.neg(lax.mul(a, half_eta2))), series),
                lax.sqrt(lax.mul(a, 2.0 * math.pi)))
    z = lax.mul(eta, lax.sqrt(lax.mul(a, 0.5)))
    return (lax.sub(lax.mul(lax.erfc(lax.neg(z)), 0.5), r),
            lax.add(lax.mul(lax.erfc(z), 0.5), r))


def _finite_positive(a, x):
    """The elements whose P and Q need a sum: a and x finite and positive."""
    return lax.bitwise_and(lax.bitwise_and(lax.gt(a, 0.0), lax.gt(x, 0.0)),
                           lax.bitwise_and(lax.lt(a, math.inf), lax.lt(x, math.inf)))


def _expansions(a, x, skip=None):
    """What P, Q and dP/da share: whether an element takes the continued fraction (else
    the series), L = log(x^a e^-x / Gamma(a)), (S, dS/da) and (F, dF/da); the elements
    in `skip` are left out of both loops (garbage there)."""
    live = _finite_positive(a, x)
    if skip is not None:
        live = lax.bitwise_and(live, lax.bitwise_not(skip))
    # Q from the fraction where it is small (x > a), so it does not cancel in 1 - P
    use_fraction = lax.bitwise_and(lax.gt(x, a), lax.ge(x, 1.0))
    log_prefactor = lax.sub(lax.sub(lax.mul(a, lax.log(x)), x), lgamma(a))
    series = _lower_series(a, x, lax.bitwise_and(live, lax.bitwise_not(use_fraction)))
    fraction = _upper_fraction(a, x, lax.bitwise_and(live, use_fraction))
    return use_fraction, log_prefactor, series, fraction


def _lower_and_upper(a, x):
    """(P, Q), right where `_finite_positive` (garbage elsewhere)."""
    temme = _uses_temme(a, x)
    use_fraction, log_prefactor, (series, _), (fraction, _) = _expansions(a, x, temme)
    prefactor = lax.exp(log_prefactor)
    p_series = lax.div(lax.mul(prefactor, series), a)
    q_fraction = lax.mul(prefactor, fraction)
    # A series sum rounded just above 1 (a tiny a) would make Q negative: clamp to [0, 1].
    p = lax.clamp(0.0, lax.select(use_fraction, lax.sub(1.0, q_fraction), p_series), 1.0)
    q = lax.clamp(0.0, lax.select(use_fraction, q_fraction, lax.sub(1.0, p_series)), 1.0)
    p_temme, q_temme = _temme(a, x)
    return lax.select(temme, p_temme, p), lax.select(temme, q_temme, q)


def _with_limits(a, x, value, lower: bool):
    """`value` (P if `lower`, else Q) with JAX's values off the finite positive quadrant,
    where its expansions meet 0 * inf or inf - inf: P = 0 at x = 0, P = 1 at x = inf; for
    a = 0, P = 1 where x >= 1 and NaN below (Q = 0 for any x > 0); for a = inf, P = 0
    where x < 1 and NaN for finite x >= 1; NaN for NaNs, negatives and a = x = 0."""
    p_is_0 = lax.bitwise_or(lax.eq(x, 0.0), lax.bitwise_and(lax.eq(a, math.inf), lax.lt(x, 1.0)))
    p_is_1 = lax.bitwise_or(lax.eq(x, math.inf), lax.bitwise_and(lax.eq(a, 0.0), lax.ge(x, 1.0)))
    if not lower:
        p_is_1 = lax.bitwise_or(p_is_1, lax.eq(a, 0.0))
    value = lax.select(p_is_0, lax.full_like(value, 0.0 if lower else 1.0), value)
    value = lax.select(p_is_1, lax.full_like(value, 1.0 if lower else 0.0), value)
    bad = lax.bitwise_or(lax.bitwise_or(lax.lt(a, 0.0), lax.lt(x, 0.0)),
                         lax.bitwise_or(lax.ne(a, a), lax.ne(x, x)))
    bad = lax.bitwise_or(bad, lax.bitwise_and(lax.eq(a, 0.0), lax.eq(x, 0.0)))
    no_limit = lax.bitwise_and(lax.eq(a, math.inf), lax.bitwise_and(lax.ge(x, 1.0), lax.lt(x, math.inf)))
    if lower:
        no_limit = lax.bitwise_or(no_limit, lax.bitwise_and(lax.eq(a, 0.0), lax.lt(x, 1.0)))
    return lax.select(lax.bitwise_or(bad, no_limit), lax.full_like(value, math.nan), value)


def igamma(a, x):
    """The regularized lower incomplete gamma function P(a, x) = gamma(a, x) / Gamma(a).

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg import lax
    >>> [round(v, 5) for v in lax.igamma(jnp.array([1.0, 3.0]), jnp.array([1.0, 2.0])).tolist()]
    [0.63212, 0.32332]
    """
    a, x = _float_operands("igamma", a, x)
    return _in_float32_if_half(_igamma, a, x)


def igammac(a, x):
    """The regularized upper incomplete gamma function Q(a, x) = 1 - P(a, x).

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg import lax
    >>> [round(v, 5) for v in lax.igammac(jnp.array([1.0, 3.0]), jnp.array([1.0, 2.0])).tolist()]
    [0.36788, 0.67668]
    """
    a, x = _float_operands("igammac", a, x)
    return _in_float32_if_half(_igammac, a, x)


# The series and fraction loop until converged (a while_loop, which reverse mode cannot
# differentiate): the derivatives are JAX's closed forms instead, dP/dx the Gamma(a)
# density and dP/da `igamma_grad_a`; Q = 1 - P has their negatives.
@custom_jvp
def _igamma(a, x):
    return _with_limits(a, x, _lower_and_upper(a, x)[0], lower=True)


@custom_jvp
def _igammac(a, x):
    return _with_limits(a, x, _lower_and_upper(a, x)[1], lower=False)


def _incomplete_gamma_jvp(function, sign: float):
    def jvp(primals, tangents):
        (a, x), (ta, tx) = primals, tangents
        density = lax.exp(lax.sub(lax.sub(lax.mul(lax.sub(a, 1.0), lax.log(x)), x), lgamma(a)))
        slope = lax.add(lax.mul(ta, igamma_grad_a(a, x)), lax.mul(tx, density))
        return function(a, x), lax.mul(slope, sign)

    return jvp


_igamma.defjvp(_incomplete_gamma_jvp(_igamma, 1.0))
_igammac.defjvp(_incomplete_gamma_jvp(_igammac, -1.0))


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

    a, x = _float_operands("igamma_grad_a", a, x)
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

    a, x = _float_operands("random_gamma_grad", a, x)
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


# -- modified Bessel functions I0 and I1, exponentially scaled -----------------------------------

# Cephes' Chebyshev coefficients for exp(-x) I1(x) / x on [0, 8] and for exp(-x) sqrt(x) I1(x)
# on (8, inf], as XLA's BesselI1e uses them: all for float64, the trailing 17 and 7 (the
# float32 precision) for float32.
_I1E_NEAR = (
    2.77791411276104639959e-18, -2.11142121435816608115e-17, 1.55363195773620046921e-16,
    -1.10559694773538630805e-15, 7.60068429473540693410e-15, -5.04218550472791168711e-14,
    3.22379336594557470981e-13, -1.98397439776494371520e-12, 1.17361862988909016308e-11,
    -6.66348972350202774223e-11, 3.62559028155211703701e-10, -1.88724975172282928790e-9,
    9.38153738649577178388e-9, -4.44505912879632808065e-8, 2.00329475355213526229e-7,
    -8.56872026469545474066e-7, 3.47025130813767847674e-6, -1.32731636560394358279e-5,
    4.78156510755005422638e-5, -1.61760815825896745588e-4, 5.12285956168575772895e-4,
    -1.51357245063125314899e-3, 4.15642294431288815669e-3, -1.05640848946261981558e-2,
    2.47264490306265168283e-2, -5.29459812080949914269e-2, 1.02643658689847095384e-1,
    -1.76416518357834055153e-1, 2.52587186443633654823e-1)
_I1E_FAR = (
    7.51729631084210481353e-18, 4.41434832307170791151e-18, -4.65030536848935832153e-17,
    -3.20952592199342395980e-17, 2.96262899764595013876e-16, 3.30820231092092828324e-16,
    -1.88035477551078244854e-15, -3.81440307243700780478e-15, 1.04202769841288027642e-14,
    4.27244001671195135429e-14, -2.10154184277266431302e-14, -4.08355111109219731823e-13,
    -7.19855177624590851209e-13, 2.03562854414708950722e-12, 1.41258074366137813316e-11,
    3.25260358301548823856e-11, -1.89749581235054123450e-11, -5.58974346219658380687e-10,
    -3.83538038596423702205e-9, -2.63146884688951950684e-8, -2.51223623787020892529e-7,
    -3.88256480887769039346e-6, -1.10588938762623716291e-4, -9.76109749136146840777e-3,
    7.78576235018280120474e-1)


# Cephes' Chebyshev coefficients for exp(-x) I0(x) on [0, 8] and for exp(-x) sqrt(x) I0(x)
# on (8, inf], as XLA's BesselI0e (and jnp.i0) use them: all for float64, the trailing 18 and 7 (the
# float32 precision) for float32.
_I0E_NEAR = (
    -4.41534164647933937950e-18, 3.33079451882223809783e-17, -2.43127984654795469359e-16,
    1.71539128555513303061e-15, -1.16853328779934516808e-14, 7.67618549860493561688e-14,
    -4.85644678311192946090e-13, 2.95505266312963983461e-12, -1.72682629144155570723e-11,
    9.67580903537323691224e-11, -5.18979560163526290666e-10, 2.65982372468238665035e-9,
    -1.30002500998624804212e-8, 6.04699502254191894932e-8, -2.67079385394061173391e-7,
    1.11738753912010371815e-6, -4.41673835845875056359e-6, 1.64484480707288970893e-5,
    -5.75419501008210370398e-5, 1.88502885095841655729e-4, -5.76375574538582365885e-4,
    1.63947561694133579842e-3, -4.32430999505057594430e-3, 1.05464603945949983183e-2,
    -2.37374148058994688156e-2, 4.93052842396707084878e-2, -9.49010970480476444210e-2,
    1.71620901522208775349e-1, -3.04682672343198398683e-1, 6.76795274409476084995e-1)
_I0E_FAR = (
    -7.23318048787475395456e-18, -4.83050448594418207126e-18, 4.46562142029675999901e-17,
    3.46122286769746109310e-17, -2.82762398051658348494e-16, -3.42548561967721913462e-16,
    1.77256013305652638360e-15, 3.81168066935262242075e-15, -9.55484669882830764870e-15,
    -4.15056934728722208663e-14, 1.54008621752140982691e-14, 3.85277838274214270114e-13,
    7.18012445138366623367e-13, -1.79417853150680611778e-12, -1.32158118404477131188e-11,
    -3.14991652796324136454e-11, 1.18891471078464383424e-11, 4.94060238822496958910e-10,
    3.39623202570838634515e-9, 2.26666899049817806459e-8, 2.04891858946906374183e-7,
    2.89137052083475648297e-6, 6.88975834691682398426e-5, 3.36911647825569408990e-3,
    8.04490411014108831608e-1)


def _chebyshev(t, coefficients):
    """Clenshaw's sum of a Chebyshev series (Cephes' `chbevl`: half the last difference)."""
    b0, b1, b2 = lax.full_like(t, coefficients[0]), lax.full_like(t, 0), lax.full_like(t, 0)
    for c in coefficients[1:]:
        b2, b1 = b1, b0
        b0 = lax.add(lax.sub(lax.mul(t, b1), b2), c)
    return lax.mul(lax.sub(b0, b2), 0.5)


def _scaled_bessel(x, near, far, float32_terms, times_z: bool):
    """exp(-|x|) I_n(|x|) from Cephes' two series: `near` at |x| / 2 - 2 on [0, 8] (times
    |x| for I1: `times_z`), `far` at 32 / |x| - 2 over sqrt(|x|) beyond; for float32 only
    the trailing `float32_terms` of each."""
    if aval_of(x).dtype is not dt.float64:
        near, far = near[-float32_terms[0]:], far[-float32_terms[1]:]
    z = lax.abs(x)
    safe_z = lax.select(lax.gt(z, 8.0), z, lax.full_like(z, 8.0))  # no 32 / 0 unused
    inside = _chebyshev(lax.sub(lax.mul(z, 0.5), 2.0), near)
    inside = lax.mul(inside, z) if times_z else inside
    return lax.select(lax.le(z, 8.0), inside,
                      lax.div(_chebyshev(lax.sub(lax.div(32.0, safe_z), 2.0), far), lax.sqrt(safe_z)))


def _i0e(x):
    """exp(-|x|) I0(x) (XLA's BesselI0e; jnp.i0's too)."""
    return _scaled_bessel(x, _I0E_NEAR, _I0E_FAR, (18, 7), times_z=False)


@custom_jvp
def _bessel_i0e(x):
    return lax.select(lax.ne(x, x), x, _i0e(x))  # its unused branch would hide a NaN


@custom_jvp
def _bessel_i1e(x):
    out = _scaled_bessel(x, _I1E_NEAR, _I1E_FAR, (17, 7), times_z=True)
    return lax.mul(out, lax.sign(x))  # odd, -0.0 at -0.0


@_bessel_i0e.defjvp
def _bessel_i0e_jvp(primals, tangents):
    # (e^-|x| I0)' = e^-|x| (I1 - sign(x) I0), as JAX's rule
    (x,), (t,) = primals, tangents
    y = _bessel_i0e(x)
    return y, lax.mul(t, lax.sub(_bessel_i1e(x), lax.mul(lax.sign(x), y)))


@_bessel_i1e.defjvp
def _bessel_i1e_jvp(primals, tangents):
    # (e^-|x| I1)' = e^-|x| (I0 - (sign(x) + 1/x) I1), 1/2 at 0 (within eps of it, as JAX)
    (x,), (t,) = primals, tangents
    y = _bessel_i1e(x)
    eps = _eps(x)
    not_tiny = lax.gt(lax.abs(x), eps)
    safe_x = lax.select(not_tiny, x, lax.full_like(x, eps))
    slope = lax.sub(_bessel_i0e(safe_x), lax.mul(y, lax.add(lax.sign(safe_x), lax.div(1.0, safe_x))))
    return y, lax.mul(t, lax.select(not_tiny, slope, lax.full_like(x, 0.5)))


def bessel_i0e(x):
    """exp(-|x|) I0(x), the exponentially scaled modified Bessel function of order 0.

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg import lax
    >>> [round(v, 5) for v in lax.bessel_i0e(jnp.array([0.0, 1.0, -10.0])).tolist()]
    [1.0, 0.46576, 0.12783]
    """
    _check_kind("bessel_i0e", x, "floating")
    return _in_float32_if_half(_bessel_i0e, x)


def bessel_i1e(x):
    """exp(-|x|) I1(x), the exponentially scaled modified Bessel function of order 1.

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg import lax
    >>> [round(v, 5) for v in lax.bessel_i1e(jnp.array([0.0, 1.0, -10.0])).tolist()]
    [0.0, 0.20791, -0.12126]
    """
    _check_kind("bessel_i1e", x, "floating")
    return _in_float32_if_half(_bessel_i1e, x)


# -- the regularized incomplete beta function ---------------------------------------------------


def _beta_fraction(a, b, x, active):
    """The continued fraction of I_x(a, b) (DLMF 8.17.22) by the modified Lentz method,
    two partial quotients a step (the odd d_2m+1 and even d_2m): it converges fast for
    x < (a + 1) / (a + b + 2), where it is used; it stops once a step changes it by less
    than eps."""
    eps = _eps(a)
    tiny = float(np.finfo(aval_of(a).dtype.np).tiny) / eps

    def guard(v):
        return lax.select(lax.lt(lax.abs(v), tiny), lax.full_like(v, tiny), v)

    def quotient(numerator, c, d):
        d = lax.div(1.0, guard(lax.add(1.0, lax.mul(numerator, d))))
        c = guard(lax.add(1.0, lax.div(numerator, c)))
        return c, d, lax.mul(c, d)

    def body(active, state):
        m, c, d, h = state
        m = lax.add(m, 1.0)
        two_m = lax.add(m, m)
        even = lax.div(lax.mul(lax.mul(m, lax.sub(b, m)), x),
                       lax.mul(lax.add(lax.sub(a, 1.0), two_m), lax.add(a, two_m)))
        c, d, delta = quotient(even, c, d)
        h = lax.mul(h, delta)
        odd = lax.neg(lax.div(lax.mul(lax.mul(lax.add(a, m), lax.add(lax.add(a, b), m)), x),
                              lax.mul(lax.add(a, two_m), lax.add(lax.add(a, 1.0), two_m))))
        c, d, delta = quotient(odd, c, d)
        h = lax.mul(h, delta)
        return lax.gt(lax.abs(lax.sub(delta, 1.0)), eps), (m, c, d, h)

    d = lax.div(1.0, guard(lax.sub(1.0, lax.div(lax.mul(lax.add(a, b), x), lax.add(a, 1.0)))))
    start = (lax.full_like(a, 0.0), lax.full_like(a, 1.0), d, d)
    return _loop_while_any(active, body, start)[3]


def _log_beta(a, b):
    from ..scipy.special import betaln  # accurate where both are large (scipy is built on lax)

    return betaln(a, b)


def _betainc(a, b, x):
    # I_x(a, b) = 1 - I_(1-x)(b, a): the fraction where it converges fast
    direct = lax.lt(x, lax.div(lax.add(a, 1.0), lax.add(lax.add(a, b), 2.0)))
    a_, b_ = lax.select(direct, a, b), lax.select(direct, b, a)
    x_ = lax.select(direct, x, lax.sub(1.0, x))
    zero_a = lax.bitwise_or(lax.eq(a, 0.0), lax.eq(b, math.inf))
    zero_b = lax.bitwise_or(lax.eq(b, 0.0), lax.eq(a, math.inf))
    inside = lax.bitwise_and(lax.gt(x, 0.0), lax.lt(x, 1.0))
    live = lax.bitwise_and(inside, lax.bitwise_not(lax.bitwise_or(zero_a, zero_b)))
    fraction = _beta_fraction(a_, b_, x_, live)
    # I = x^a (1 - x)^b / (a B(a, b)) times the fraction
    log_front = lax.sub(lax.add(lax.mul(a_, lax.log(x_)), lax.mul(b_, lax.log1p(lax.neg(x_)))),
                        _log_beta(a_, b_))
    value = lax.div(lax.mul(lax.exp(log_front), fraction), a_)
    value = lax.select(direct, value, lax.sub(1.0, value))
    # The limits, as XLA: a = 0 (or b = inf) puts all mass at 0, b = 0 (or a = inf) at 1;
    # I = 0 at x = 0 and 1 at x = 1
    is_zero = lax.bitwise_or(lax.bitwise_and(zero_b, lax.ne(x, 1.0)), lax.eq(x, 0.0))
    is_one = lax.bitwise_or(lax.bitwise_and(zero_a, lax.ne(x, 0.0)), lax.eq(x, 1.0))
    value = lax.select(is_zero, lax.full_like(value, 0.0), value)
    value = lax.select(is_one, lax.full_like(value, 1.0), value)
    bad = lax.bitwise_or(lax.bitwise_or(lax.lt(a, 0.0), lax.lt(b, 0.0)),
                         lax.bitwise_or(lax.lt(x, 0.0), lax.gt(x, 1.0)))
    bad = lax.bitwise_or(bad, lax.bitwise_and(zero_a, zero_b))
    bad = lax.bitwise_or(bad, lax.bitwise_or(lax.bitwise_or(lax.ne(a, a), lax.ne(b, b)), lax.ne(x, x)))
    return lax.select(bad, lax.full_like(value, math.nan), value)


@custom_jvp
def _betainc_x(a, b, x):
    return _betainc(a, b, x)


def _betainc_x_jvp(primals, tangents):
    # d/dx I_x(a, b) = x^(a-1) (1 - x)^(b-1) / B(a, b); JAX has no derivative in a or b
    (a, b, x), (ta, tb, t) = primals, tangents
    if not (isinstance(ta, SymbolicZero) and isinstance(tb, SymbolicZero)):
        raise ValueError("Betainc gradient with respect to a and b not supported.")
    density = lax.exp(lax.sub(lax.add(lax.mul(lax.sub(b, 1.0), lax.log1p(lax.neg(x))),
                                      lax.mul(lax.sub(a, 1.0), lax.log(x))), _log_beta(a, b)))
    return _betainc_x(a, b, x), lax.mul(t, density)


_betainc_x.defjvp(_betainc_x_jvp, symbolic_zeros=True)


def betainc(a, b, x):
    """The regularized incomplete beta function I_x(a, b); differentiable in `x` only
    (as JAX's: differentiating in `a` or `b` raises ValueError).

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg import lax
    >>> [round(v, 5) for v in lax.betainc(jnp.array([1.0, 2.0]), jnp.array([1.0, 3.0]),
    ...                                   jnp.array([0.5, 0.3])).tolist()]
    [0.5, 0.3483]
    """
    a, b, x = _float_operands("betainc", a, b, x)
    return _in_float32_if_half(_betainc_x, a, b, x)


# -- the Hurwitz zeta function and polygamma ----------------------------------------------------

# (2k)! / B_2k, the Euler-Maclaurin coefficients of Cephes' zeta (and XLA's)
_ZETA_EULER_MACLAURIN = (12.0, -720.0, 30240.0, -1209600.0, 47900160.0, -1.8924375803183791606e9,
                         7.47242496e10, -2.950130727918164224e12, 1.1646782814350067249e14,
                         -4.5979787224074726105e15, 1.8152105401943546773e17,
                         -7.1661652561756670113e18)


def _zeta(x, q):
    # sum_{n < 9} (q + n)^-x directly, the tail from w = q + 9 by Euler-Maclaurin:
    # w^(1-x) / (x - 1) + w^-x / 2 + sum_k B_2k / (2k)! x (x+1)...(x+2k-2) w^(-x-2k+1)
    # (in Cephes' order: the direct terms from n = 0, so that those of q < 0 around a pole,
    # (q + n)^-x of both signs, cancel before the small ones are added)
    w = lax.add(q, 9.0)
    term = lax.pow(w, lax.neg(x))
    tail, k = lax.full_like(q, 0.0), 0.0
    for coefficient in _ZETA_EULER_MACLAURIN:
        term = lax.div(lax.mul(term, lax.add(x, k)), w)  # x (x+1)...(x+2k-2) w^(-x-2k+1)
        tail = lax.add(tail, lax.div(term, coefficient))
        term = lax.div(lax.mul(term, lax.add(x, k + 1.0)), w)
        k += 2.0
    term = lax.pow(w, lax.neg(x))
    total = lax.pow(q, lax.neg(x))
    for n in range(1, 9):
        total = lax.add(total, lax.pow(lax.add(q, float(n)), lax.neg(x)))
    total = lax.add(total, lax.add(lax.div(lax.mul(term, w), lax.sub(x, 1.0)),
                                   lax.add(lax.mul(term, 0.5), tail)))
    # Outside the domain, as XLA: NaN for x < 1 (and x = inf, NaNs) and for q < 0 with x
    # not an integer; at the poles q = 0, -1, ... inf for even x (the term 0^-x), else NaN;
    # the harmonic series (x = 1) diverges
    nan, inf = lax.full_like(total, math.nan), lax.full_like(total, math.inf)
    bad = lax.bitwise_or(lax.bitwise_not(lax.ge(x, 1.0)), lax.eq(x, math.inf))
    bad = lax.bitwise_or(bad, lax.bitwise_and(lax.lt(q, 0.0), lax.ne(x, lax.floor(x))))
    total = lax.select(bad, nan, total)
    even = lax.eq(lax.rem(x, 2.0), 0.0)
    pole = lax.bitwise_and(lax.le(q, 0.0), lax.eq(q, lax.floor(q)))
    total = lax.select(pole, lax.select(even, inf, nan), total)
    return lax.select(lax.eq(x, 1.0), inf, total)


def zeta(x, q):
    """The Hurwitz zeta function zeta(x, q) = sum_n (n + q)^-x.

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg import lax
    >>> [round(v, 5) for v in lax.zeta(jnp.array([2.0, 3.0]), jnp.array([1.0, 2.0])).tolist()]
    [1.64493, 0.20206]
    """
    x, q = _float_operands("zeta", x, q)
    return _in_float32_if_half(_zeta, x, q)


def _factorial(m):
    """m! for natural m: a product (exact while it fits the mantissa) up to 34, beyond
    which float32 overflows, and exp(lgamma(m + 1)) past it (float64)."""
    product = lax.full_like(m, 1.0)
    for k in range(2, 35):
        product = lax.mul(product, lax.select(lax.le(float(k), m), lax.full_like(m, float(k)),
                                              lax.full_like(m, 1.0)))
    return lax.select(lax.gt(m, 34.0), lax.exp(_lgamma(lax.add(m, 1.0))), product)


def _polygamma(m, x):
    # psi^(m)(x) = (-1)^(m+1) m! zeta(m + 1, x) for m = 1, 2, ...; digamma for m = 0
    sign = lax.sub(lax.mul(lax.rem(m, 2.0), 2.0), 1.0)
    value = lax.mul(lax.mul(sign, _factorial(m)), _zeta(lax.add(m, 1.0), x))
    value = lax.select(lax.eq(m, 0.0), _digamma(x), value)
    bad = lax.bitwise_or(lax.ne(m, lax.floor(m)), lax.lt(m, 0.0))
    return lax.select(bad, lax.full_like(value, math.nan), value)


def polygamma(m, x):
    """The polygamma function psi^(m)(x), the (m+1)-th derivative of `lgamma` (NaN
    unless m is a natural number).

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg import lax
    >>> [round(v, 5) for v in lax.polygamma(jnp.array([0.0, 1.0]), jnp.array([1.0, 1.0])).tolist()]
    [-0.57722, 1.64493]
    """
    m, x = _float_operands("polygamma", m, x)
    return _in_float32_if_half(_polygamma, m, x)
