"""Lowering rules: each primitive as nodes of the lazy kernel graph.

`lowering_rules[prim](out_aval, *nodes, **params)` returns the `LazyNode` (or list of
nodes) for one primitive application. Elementwise primitives are one table entry each
in `ELEMENT_RULES`: a function from the operands' element expressions (AluExps) to the
result's, so a chain of them is one expression. Movement primitives are ShapeTracker
ops (`_move`), reductions are `REDUCE` nodes, and composite primitives (argmax,
dot_general, strided slices, interior padding) are written with the same pieces, so
fusion sees through them. Eager mode and `jit` share every rule.

Float functions that WGSL lacks or computes inaccurately near special points (log1p,
expm1, sinh, the inverse hyperbolics, cbrt) are written with the usual cancellation-
free identities; each comment names the identity.

>>> from jaxwg.core import dtypes as dt, alu
>>> from jaxwg.frontend.primitives import exp_p
>>> x = alu.load(0, dt.float32, alu.gidx(4))
>>> ELEMENT_RULES[exp_p](x)
exp(in0[gidx])
"""

from __future__ import annotations

import math

from ..core import alu
from ..core import dtypes as dt
from . import primitives as P
from ..core.alu import AluExp, Op
from ..core.routine import CumulativeSum, ScatterAdd, SortPermutation
from .aval import ShapedArray
from .gather import GatherScatterMode, default_fill
from .lazy import (CONCAT, ELEMENTWISE, GATHER, IOTA, MOVE, REDUCE, ROUTINE, Concat, Elementwise, Gather,
                   Iota, LazyNode, Move, Reduce)
from .primitives import lowering_rules
from ..core.view import ShapeTracker

# -- element expressions --------------------------------------------------------------------


def _c(x: AluExp, value) -> AluExp:
    return alu.const(x.dtype, value)


def _eq(a: AluExp, b: AluExp) -> AluExp:
    return ~a.ne(b)


def _le(a: AluExp, b: AluExp) -> AluExp:
    if a.dtype.is_float:
        return a.lt(b) | _eq(a, b)  # NaN compares false both ways
    return ~b.lt(a)


def _select(cond: AluExp, a: AluExp, b: AluExp) -> AluExp:
    return alu.where(cond, a, b)


def _sign(x: AluExp) -> AluExp:
    zero, one = _c(x, 0), _c(x, 1)
    if x.dtype.is_unsigned:
        return _select(zero.lt(x), one, zero)
    # Floats keep NaN and the sign of zero, as JAX does.
    rest = x if x.dtype.is_float else zero
    return _select(zero.lt(x), one, _select(x.lt(zero), _c(x, -1), rest))


def _round(x: AluExp, rounding_method: int = 0) -> AluExp:
    if rounding_method == 1:
        return alu.unary(Op.ROUND, x)  # to nearest even
    # Away from zero: truncate, then step out where the dropped part is at least half.
    t = alu.unary(Op.TRUNC, x)
    step = _select(_le(_c(x, 0.5), alu.unary(Op.ABS, x - t)), _sign(x), _c(x, 0))
    return t + step


def is_finite_value(x: AluExp) -> AluExp:
    # By the exponent bits (float16 widens exactly): compilers that assume finite math
    # may fold `abs(x) < inf` to true. float64 would overflow float32, so it compares.
    if x.dtype is dt.float64:
        return alu.unary(Op.ABS, x).lt(_c(x, math.inf))
    bits = alu.bitcast(dt.int32, alu.cast(dt.float32, x)) & alu.const(dt.int32, 0x7F800000)
    return bits.ne(alu.const(dt.int32, 0x7F800000))


def sign_bit(x: AluExp) -> AluExp:
    """Whether the sign bit of float `x` is set (-0.0 included), read from its bits.

    float16 and float64 go through float32, which keeps the sign of zeros and infinities."""
    wide = alu.cast(dt.float32, x)
    return alu.bitcast(dt.int32, wide).lt(alu.const(dt.int32, 0))


def _horner(x: AluExp, coefficients) -> AluExp:
    """sum(c[k] * x**k)."""
    out = _c(x, coefficients[-1])
    for c in reversed(coefficients[:-1]):
        out = out * x + _c(x, c)
    return out


# 2 atanh(s) / s = 2 (1 + s^2/3 + s^4/5 + ...): log1p(x) = 2 atanh(x / (2 + x)). The
# terms float32 needs (|s| <= 0.17: s^14 < 2^-35), and float64 (s^24 < 2^-61).
_LOG1P_SERIES = {n: tuple(2 / (2 * k + 1) for k in range(n)) for n in (7, 12)}
# expm1(x) / x = 1 + x/2! + x^2/3! + ... (|x| <= 0.5: 0.5^10 / 11! < 2^-35 for float32,
# 0.5^16 / 17! < 2^-64 for float64).
_EXPM1_SERIES = {n: tuple(1 / math.factorial(k + 1) for k in range(n)) for n in (10, 16)}


def _terms(x: AluExp, table: dict) -> tuple:
    """The series of `table` (by number of terms) that `x`'s precision needs: the longer
    one for float64 (the shorter one left float64's expm1 at 2e5 ulp)."""
    return table[max(table)] if x.dtype is dt.float64 else table[min(table)]


def _log1p(x: AluExp) -> AluExp:
    # Near 0: log1p(x) = 2 atanh(s), s = x / (2 + x), |s| <= 0.17 on the interval, by its
    # series; elsewhere log(1 + x) loses nothing. No cancellation identity (u - 1 with
    # u = 1 + x) is used: shader compilers that assume finite math fold it to x.
    s = x / (_c(x, 2) + x)
    z = s * s
    near = s * _horner(z, _terms(x, _LOG1P_SERIES))
    inside = _c(x, -0.29).lt(x) & x.lt(_c(x, 0.41))
    return _select(inside, near, alu.unary(Op.LOG, x + _c(x, 1)))


def _expm1(x: AluExp) -> AluExp:
    # Near 0 the Taylor series (|x| <= 0.5: ten terms reach float32's precision), else
    # exp(x) - 1, which loses at most a couple of ulp there.
    near = x * _horner(x, _terms(x, _EXPM1_SERIES))
    inside = alu.unary(Op.ABS, x).lt(_c(x, 0.5))
    return _select(inside, near, alu.unary(Op.EXP, x) - _c(x, 1))


def _logistic(x: AluExp) -> AluExp:
    return _c(x, 1) / (_c(x, 1) + alu.unary(Op.EXP, -x))


def _copysign_of(magnitude: AluExp, x: AluExp) -> AluExp:
    return _select(sign_bit(x), -magnitude, magnitude)


_LN2_HEAD = 0.693359375  # ln 2 to 9 bits: k * head is exact for the k that matter


def _sinh(x: AluExp) -> AluExp:
    # sinh|x| = (e + e / (e + 1)) / 2 with e = expm1|x|: no cancellation near 0. Where e
    # overflows (sinh itself may not: sinh(89) < 3.4e38), e^|x| / 2 = exp(|x| - ln 2),
    # written as exp(|x| - head) * exp(-tail) with ln 2 = head + tail and a 9-bit head, so
    # the subtraction is exact and nothing overflows before sinh does.
    a = alu.unary(Op.ABS, x)
    e = _expm1(a)
    small = _c(x, 0.5) * (e + e / (e + _c(x, 1)))
    large = alu.unary(Op.EXP, a - _c(x, _LN2_HEAD)) * _c(x, math.exp(_LN2_HEAD - math.log(2)))
    # Overflow tested by the exponent bits: NVIDIA folds `e == inf` to false.
    return _copysign_of(_select(is_finite_value(e), small, large), x)


def _cosh(x: AluExp) -> AluExp:
    # cosh x = (h / 2) h + 1 / (2 h^2) with h = exp(|x| / 2): exact halving, no overflow
    # before cosh itself overflows.
    h = alu.unary(Op.EXP, alu.unary(Op.ABS, x) * _c(x, 0.5))
    return (h * _c(x, 0.5)) * h + _c(x, 0.5) / (h * h)


def _hypot1(t: AluExp) -> AluExp:
    return alu.unary(Op.SQRT, t * t + _c(t, 1))


def _big(x: AluExp) -> AluExp:
    """Where x^2 might overflow, and log(2x) is already exact: 2^7 for float16 (whose
    squares overflow past 255), 2^30 for wider floats."""
    return _c(x, 2.0 ** (7 if x.dtype is dt.float16 else 30))


def _asinh(x: AluExp) -> AluExp:
    # asinh|x| = log1p(|x| + x^2 / (1 + sqrt(1 + x^2))); log(2|x|) once x^2 would overflow.
    a = alu.unary(Op.ABS, x)
    small = _log1p(a + a * a / (_c(x, 1) + _hypot1(a)))
    big = alu.unary(Op.LOG, a) + _c(x, math.log(2))
    return _copysign_of(_select(a.lt(_big(x)), small, big), x)


def _acosh(x: AluExp) -> AluExp:
    # acosh x = log1p(t + sqrt(t (t + 2))) with t = x - 1; log(2x) for large x; NaN below 1.
    t = x - _c(x, 1)
    small = _log1p(t + alu.unary(Op.SQRT, t * (t + _c(x, 2))))
    big = alu.unary(Op.LOG, x) + _c(x, math.log(2))
    return _select(x.lt(_c(x, 1)), _c(x, math.nan),
                   _select(x.lt(_big(x)), small, big))


def _atanh(x: AluExp) -> AluExp:
    # atanh|x| = log1p(2|x| / (1 - |x|)) / 2: on |x| the argument of log1p is >= 0, so
    # 1 + it does not cancel near x = -1 (which lost ~150 ulp).
    a = alu.unary(Op.ABS, x)
    return _copysign_of(_c(x, 0.5) * _log1p(_c(x, 2) * a / (_c(x, 1) - a)), x)


def _cbrt(x: AluExp) -> AluExp:
    # exp2(log2|a| / 3), then one Newton step y += (a / y^2 - y) / 3 (no y^3: it would
    # overflow near the top of the range); 0 and inf pass through, -0.0 keeps its sign.
    a = alu.unary(Op.ABS, x)
    y = alu.unary(Op.EXP2, alu.unary(Op.LOG2, a) * _c(x, 1 / 3))
    y = y + (a / (y * y) - y) * _c(x, 1 / 3)
    special = _eq(a, _c(x, 0)) | _eq(a, _c(x, math.inf))
    return _copysign_of(_select(special, a, y), x)


def _integer_pow(x: AluExp, y: int) -> AluExp:
    if y == 0:
        return _c(x, 1)
    result, base, n = None, x, abs(y)
    while n:  # square and multiply
        if n & 1:
            result = base if result is None else result * base
        n >>= 1
        if n:
            base = base * base
    if y > 0:
        return result
    return _c(x, 1) / result if x.dtype.is_float else _c(x, 1) // result


def _pow(x: AluExp, y: AluExp) -> AluExp:
    """IEEE pow (C99 Annex F) for floats.

    |x|^y = exp2(y log2|x|), with log2|x| and its product with y carried in two float32
    parts where x and y are finite (`_pow_magnitude`): one float32 log2 loses |y log2 x|
    ulps (10.0 ** 2.0 came out 99.99999). float64 does the same in one op (`Op.POW`:
    NumPy's power on the CPU backend, builtins' `pow_f64` on WebGPU; exp2(y log2 x) was
    180 ulp off at 2^300). The plain formula covers zeros and infinities of either
    operand. The sign is negative for a negative base (-0.0 and
    -inf included) and an odd integer y; a finite negative base with a finite non-integer
    y is NaN; x^0 = 1^y = (-1)^+-inf = 1."""
    ax = alu.unary(Op.ABS, x)
    magnitude = alu.unary(Op.EXP2, y * alu.unary(Op.LOG2, ax))
    if x.dtype in (dt.float32, dt.float64):
        ordinary = is_finite_value(y) & is_finite_value(ax) & _c(x, 0).lt(ax)
        exact = _pow_magnitude(ax, y) if x.dtype is dt.float32 else alu.binary(Op.POW, ax, y)
        magnitude = _select(ordinary, exact, magnitude)
    y_is_int = _eq(alu.unary(Op.TRUNC, y), y)  # true for +-inf
    half = y * _c(y, 0.5)
    y_is_odd = y_is_int & ~_eq(alu.unary(Op.TRUNC, half), half)
    result = _select(sign_bit(x) & y_is_odd, -magnitude, magnitude)
    finite_negative = x.lt(_c(x, 0)) & ax.lt(_c(x, math.inf))
    result = _select(finite_negative & ~y_is_int, _c(x, math.nan), result)
    unit = _eq(y, _c(y, 0)) | _eq(x, _c(x, 1)) | (_eq(ax, _c(x, 1)) & _eq(
        alu.unary(Op.ABS, y), _c(y, math.inf)))
    return _select(unit, _c(x, 1), result)


# -- float32 arithmetic in two parts (value = hi + lo), for pow ------------------------------
# Products are split by clearing the low 12 significand bits (not Veltkamp's c * a,
# which a compiler that contracts into fma would break); sums are Knuth's two-sum.


def _split(a: AluExp) -> tuple[AluExp, AluExp]:
    """a = hi + lo exactly, each with at most 12 significant bits."""
    bits = alu.bitcast(dt.uint32, a)
    hi = alu.bitcast(dt.float32, alu.binary(Op.AND, bits, alu.const(dt.uint32, 0xFFFFF000)))
    return hi, a - hi


def _two_product(a: AluExp, b: AluExp) -> tuple[AluExp, AluExp]:
    """a * b = p + e exactly (Dekker), p the rounded product."""
    p = a * b
    (ah, al), (bh, bl) = _split(a), _split(b)
    return p, (((ah * bh - p) + ah * bl) + al * bh) + al * bl


def _two_sum(a: AluExp, b: AluExp) -> tuple[AluExp, AluExp]:
    """a + b = s + e exactly (Knuth), s the rounded sum."""
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


# log m = 2 atanh(u) = 2u + u^3 (2/3 + u^2 R(u^2)) for |u| <= 0.1716 (m in
# [sqrt 1/2, sqrt 2)), R(s) = 2/5 + 2s/7 + ... to u^19; 2/3 and 1/ln 2 in two float32
# parts; e^r = 1 + r + r^2 (1/2 + r/6 + ...) for |r| <= ln 2 / 2, to r^10.
_ATANH_R = tuple(2.0 / k for k in range(5, 21, 2))
_TWO_THIRDS = (0.6666666865348816, -1.9868215517249155e-08)
_LOG2_E = (1.4426950216293335, 1.925963033500011e-08)
_LN_2 = (0.6931471824645996, -1.904654323148236e-09)


def _log2_parts(ax: AluExp) -> tuple[AluExp, AluExp]:
    """log2(ax) = hi + lo to about 2^-40, for finite ax > 0 (float32): ax = m 2^e,
    log m = 2 atanh(u), u = (m - 1) / (m + 1), with u and the series' leading terms
    in two parts."""
    tiny = ax.lt(_c(ax, 2.0 ** -126))  # subnormals: scale into the normal range
    ax = _select(tiny, ax * _c(ax, 2.0 ** 24), ax)
    bits = alu.bitcast(dt.uint32, ax)
    biased = alu.cast(dt.float32, alu.binary(Op.SHR, bits, alu.const(dt.uint32, 23)))
    exponent = biased - _select(tiny, _c(ax, 127 + 24), _c(ax, 127))
    m = alu.bitcast(dt.float32, alu.binary(Op.OR, alu.binary(Op.AND, bits, alu.const(
        dt.uint32, 0x7FFFFF)), alu.const(dt.uint32, 0x3F800000)))
    big = ~m.lt(_c(m, math.sqrt(2)))
    m = _select(big, m * _c(m, 0.5), m)
    exponent = _select(big, exponent + _c(m, 1), exponent)
    f = m - _c(m, 1)  # exact (Sterbenz)
    g_hi, g_lo = _two_sum(_c(m, 1), m)
    u = f / g_hi
    p, e = _two_product(u, g_hi)
    u_lo = (((f - p) - e) - u * g_lo) / g_hi  # (f - u g) / g: the quotient's remainder
    s_hi, s_lo = _two_product(u, u)
    series_lo = _c(u, _TWO_THIRDS[1]) + s_hi * _horner(s_hi, _ATANH_R)
    c_hi, c_err = _two_product(u, s_hi)  # (u + u_lo)^3
    c_lo = c_err + u * s_lo + _c(u, 3) * s_hi * u_lo
    t_hi, t_err = _two_product(c_hi, _c(u, _TWO_THIRDS[0]))
    t_lo = t_err + c_hi * series_lo + c_lo * _c(u, _TWO_THIRDS[0])
    ln_hi, ln_lo = _two_sum(u * _c(u, 2), t_hi)
    ln_lo = ln_lo + (u_lo * _c(u, 2) + t_lo)
    l_hi, l_err = _two_product(ln_hi, _c(u, _LOG2_E[0]))
    l_lo = l_err + (ln_lo * _c(u, _LOG2_E[0]) + ln_hi * _c(u, _LOG2_E[1]))
    hi, lo = _two_sum(exponent, l_hi)
    return _two_sum(hi, lo + l_lo)  # renormalized: lo below half an ulp of hi


def _pow2_int(k: AluExp) -> AluExp:
    """2^k for an integer-valued float32 k in [-126, 127], from its exponent bits."""
    biased = alu.cast(dt.uint32, k + _c(k, 127))
    return alu.bitcast(dt.float32, alu.binary(Op.SHL, biased, alu.const(dt.uint32, 23)))


def _pow_magnitude(ax: AluExp, y: AluExp) -> AluExp:
    """ax^y for finite ax > 0 and finite y (float32): 2^(y log2 ax) with the exponent
    in two parts, split into an integer n and f, |f| <= 1/2; 2^f = e^(f ln 2) by its
    series, and 2^n in two exact steps."""
    l_hi, l_lo = _log2_parts(ax)
    product, e = _two_product(y, l_hi)
    # beyond 2^+-300 the result is 0 or inf whatever f is (the product may be inf there)
    huge = ~alu.unary(Op.ABS, product).lt(_c(product, 300.0))
    p, e = _two_sum(product, e + y * l_lo)  # |e| <= ulp(p) / 2: e^(f_lo ln 2) = 1 + f_lo ln 2
    edge = _select(product.lt(_c(p, 0)), _c(p, -300.0), _c(p, 300.0))
    n = _select(huge, edge, alu.unary(Op.ROUND, p))
    f = _select(huge, _c(p, 0), p - n)  # exact
    f_lo = _select(huge, _c(p, 0), e)
    r, r_err = _two_product(f, _c(f, _LN_2[0]))
    r_lo = r_err + (f * _c(f, _LN_2[1]) + f_lo * _c(f, _LN_2[0]))
    small = r + (r * r) * _horner(r, _terms(r, _EXPM1_SERIES)[1:])  # e^r - 1
    # e^(r + r_lo) = 1 + small + r_lo e^r; no 1 + small of its own, which a compiler
    # would share and reassociate the outer sum through (1.25 came out 1.2500001)
    two_f = _c(r, 1) + ((small + r_lo) + r_lo * small)
    # n in [-300, 300]: 2^h 2^(n - h) with each half clamped to the normal exponents
    h = alu.binary(Op.MIN, alu.binary(Op.MAX, alu.unary(Op.TRUNC, n * _c(n, 0.5)),
                                      _c(n, -126)), _c(n, 127))
    rest = alu.binary(Op.MIN, alu.binary(Op.MAX, n - h, _c(n, -126)), _c(n, 127))
    return two_f * _pow2_int(h) * _pow2_int(rest)


# erf_inv as XLA computes it in float32 (Giles, "Approximating the erfinv function",
# 2010): w = -log1p(-x^2); a polynomial in w - 2.5 below 5, in sqrt(w) - 3 above.
_ERF_INV_CENTRAL = (2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06,
                    0.00021858087, -0.00125372503, -0.00417768164, 0.246640727, 1.50140941)
_ERF_INV_TAIL = (-0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844,
                 0.00573950773, -0.0076224613, 0.00943887047, 1.00167406, 2.83297682)


def _erf_inv(x: AluExp) -> AluExp:
    if x.dtype is dt.float32:
        return _erf_inv_xla_f32(x)
    if x.dtype is dt.float64:
        return _erf_inv_refined(x)
    return _erf_inv_giles(x)


def _erf_inv_refined(x: AluExp) -> AluExp:
    """float64: Giles' float32 approximation, then Newton steps on erf(y) = |x| below
    0.5 and on log erfc(y) = log(1 - |x|) above (1 - |x| is exact there, and the log
    keeps the steps quadratic in the tail, where the float32 approximation is far off:
    four steps reach 1 ulp of SciPy up to 1 - 2^-53, where erfc's own Newton steps
    needed dozens)."""
    a = alu.unary(Op.ABS, x)
    central = a.lt(_c(a, 0.5))
    log_tail = alu.unary(Op.LOG, _c(a, 1) - a)
    y = alu.unary(Op.ABS, _erf_inv_giles(x))
    for _ in range(4):
        slope = _c(y, math.sqrt(math.pi) / 2) * alu.unary(Op.EXP, y * y)  # 1 / erf'(y)
        tail = alu.unary(Op.ERFC, y)
        step = _select(central, (alu.unary(Op.ERF, y) - a) * slope,
                       (log_tail - alu.unary(Op.LOG, tail)) * tail * slope)
        y = y - step
    y = _select(_eq(a, _c(x, 1.0)), _c(x, float("inf")), y)
    return _copysign_of(y, x)


def _erf_inv_giles(x: AluExp) -> AluExp:
    """Giles' float32 approximation, in `x`'s dtype."""

    def poly(coefficients, t):
        p = _c(t, coefficients[0])
        for c in coefficients[1:]:
            p = p * t + _c(t, c)
        return p

    w = -_log1p(-(x * x))
    central = poly(_ERF_INV_CENTRAL, w - _c(w, 2.5))
    tail = poly(_ERF_INV_TAIL, alu.unary(Op.SQRT, w) - _c(w, 3.0))
    p = _select(w.lt(_c(w, 5.0)), central, tail)
    inf = _select(x.lt(_c(x, 0)), _c(x, float("-inf")), _c(x, float("inf")))
    return _select(_eq(alu.unary(Op.ABS, x), _c(x, 1.0)), inf, p * x)


# -- float32 erf_inv bit for bit as XLA's CPU backend --------------------------------------
# XLA contracts the multiply-adds of erf_inv's polynomial, of log1p's rational function
# and of its log (Cephes' logf) into fused multiply-adds (`alu.fma`; WebGPU builds the
# fused result where the adapter's fma does not fuse, see `fma_f32` in builtins). With
# every step as XLA's, random.normal is JAX's to the bit where division, sqrt and fma are
# correctly rounded (the CPU backend, lavapipe): it was up to 3 ulp apart.


_fma = alu.fma


def _fma_horner(t: AluExp, coefficients) -> AluExp:
    """sum(c[k] t^(n-k)) (highest degree first) with fused steps p = fma(p, t, c)."""
    p = coefficients[0] if isinstance(coefficients[0], AluExp) else _c(t, coefficients[0])
    for c in coefficients[1:]:
        p = _fma(p, t, c if isinstance(c, AluExp) else _c(t, c))
    return p


# Cephes' logf as XLA's CPU backend emits it (polynomial_approximations.cc).
_LOGF_P = (7.0376836292E-2, -1.1514610310E-1, 1.1676998740E-1, -1.2420140846E-1,
           1.4249322787E-1, -1.6668057665E-1, 2.0000714765E-1, -2.4999993993E-1,
           3.3333331174E-1)
_LOGF_Q1, _LOGF_Q2 = -2.12194440e-4, 0.693359375


def _xla_logf(y: AluExp) -> AluExp:
    """log(y) for finite normal y > 0 as XLA's CPU backend computes it: y = m 2^e with m
    in [sqrt(1/2), sqrt(2)), log(1 + (m - 1)) by Cephes' polynomial, e ln 2 in two parts."""
    bits = alu.bitcast(dt.uint32, y)
    e = alu.cast(dt.float32, alu.binary(Op.SHR, bits, alu.const(dt.uint32, 23))) - _c(y, 126)
    m = alu.bitcast(dt.float32, alu.binary(Op.OR, alu.binary(Op.AND, bits, alu.const(dt.uint32, 0x807FFFFF)),
                                            alu.const(dt.uint32, 0x3F000000)))  # in [0.5, 1)
    low = m.lt(_c(m, 0.707106781186547524))
    e = _select(low, e - _c(e, 1), e)
    m = _select(low, (m + m) - _c(m, 1), m - _c(m, 1))  # exact either way
    x2 = m * m
    x3 = x2 * m
    y0 = _fma_horner(m, _LOGF_P[0:3])
    y1 = _fma_horner(m, _LOGF_P[3:6])
    y2 = _fma_horner(m, _LOGF_P[6:9])
    y0 = _fma(_fma(y0, x3, y1), x3, y2)
    y0 = _fma(y0, x3, _c(e, _LOGF_Q1) * e)
    m = x2 * _c(m, -0.5) + m  # -x2 / 2 is exact: one rounding, as fused
    m = m + y0
    return e * _c(e, _LOGF_Q2) + m  # e * 0.693359375 is exact


# XLA's log1p below |a| = sqrt(2) - 1: a - a^2/2 + a^3 P(a)/Q(a) (Cephes' log1p).
_LOG1P_P = (4.5270000862445199635215E-5, 4.9854102823193375972212E-1, 6.5787325942061044846969E0,
            2.9911919328553073277375E1, 6.0949667980987787057556E1, 5.7112963590585538103336E1,
            2.0039553499201281259648E1)
_LOG1P_Q = (1., 1.5062909083469192043167E1, 8.3047565967967209469434E1, 2.2176239823732856465394E2,
            3.0909872225312059774938E2, 2.1642788614495947685003E2, 6.0118660497603843919306E1)


def _xla_log1p_of_negative(a: AluExp) -> AluExp:
    """log1p(a) for a in (-1, 0] as XLA computes it (float32)."""
    a2 = a * a
    ratio = _fma_horner(a, _LOG1P_P) / _fma_horner(a, _LOG1P_Q)
    small = a + (a2 * _c(a, -0.5) + (a * a2) * ratio)  # -a2 / 2 exact: fused as XLA's
    large = _xla_logf(a + _c(a, 1))
    return _select(alu.unary(Op.ABS, a).lt(_c(a, 0.41421356237309504880)), small, large)


def _erf_inv_xla_f32(x: AluExp) -> AluExp:
    """XLA's float32 erf_inv: one polynomial with coefficients chosen by w < 5."""
    ax = alu.unary(Op.ABS, x)
    inside = ax.lt(_c(x, 1.0))
    a = -(_select(inside, x, _c(x, 0)) * x)  # the log1p argument, kept in (-1, 0]
    w = -_xla_log1p_of_negative(_select(inside, a, _c(x, 0)))
    central = w.lt(_c(w, 5.0))
    t = _select(central, w - _c(w, 2.5), alu.unary(Op.SQRT, w) - _c(w, 3.0))
    coefficients = [_select(central, _c(x, c), _c(x, d)) for c, d in zip(_ERF_INV_CENTRAL, _ERF_INV_TAIL)]
    p = _fma_horner(t, coefficients)
    inf = _select(x.lt(_c(x, 0)), _c(x, float("-inf")), _c(x, float("inf")))
    edge = _select(_eq(ax, _c(x, 1.0)), inf, _c(x, math.nan))  # |x| = 1, |x| > 1 or NaN
    return _select(inside, p * x, edge)


def _in_float32(rule):
    """`rule` computed in float32 for float16 operands, rounded once at the end (as XLA
    does): the multi-step formulas above would otherwise round at every step."""
    def wrapped(*xs: AluExp) -> AluExp:
        if xs[0].dtype is not dt.float16:
            return rule(*xs)
        return alu.cast(dt.float16, rule(*(alu.cast(dt.float32, x) for x in xs)))

    return wrapped


def _div(x: AluExp, y: AluExp) -> AluExp:
    return alu.binary(Op.DIV if x.dtype.is_float else Op.IDIV, x, y)


def _shift_left(x: AluExp, y: AluExp) -> AluExp:
    in_range = alu.cast(dt.uint32, y).lt(alu.const(dt.uint32, x.dtype.bits))
    return _select(in_range, alu.binary(Op.SHL, x, y), _c(x, 0))


def _shift_right_arithmetic(x: AluExp, y: AluExp) -> AluExp:
    if x.dtype.is_unsigned:  # XLA copies the top bit in for unsigned operands too
        signed = dt.SIGNED[x.dtype]
        shifted = _shift_right_arithmetic(alu.bitcast(signed, x), alu.bitcast(signed, y))
        return alu.bitcast(x.dtype, shifted)
    bits = x.dtype.bits
    amount = _select(alu.cast(dt.uint32, y).lt(alu.const(dt.uint32, bits)), y, _c(y, bits - 1))
    return alu.binary(Op.SHR, x, amount)


def _shift_right_logical(x: AluExp, y: AluExp) -> AluExp:
    in_range = alu.cast(dt.uint32, y).lt(alu.const(dt.uint32, x.dtype.bits))
    unsigned = dt.UNSIGNED[x.dtype]  # shifts the bits in as zeros
    shifted = alu.binary(Op.SHR, alu.bitcast(unsigned, x), alu.bitcast(unsigned, y))
    return _select(in_range, alu.bitcast(x.dtype, shifted), _c(x, 0))


# -- nextafter ------------------------------------------------------------------------------
# float32 and float16 step their bits (float16's through a 32-bit word's low half), as
# XLA's NextAfter does: exact, subnormals included, on platforms that flush them too.
# float64 has no 64-bit integer here: its neighbours come from arithmetic (Rump, Zimmermann,
# Boldo and Melquiond, "Computing predecessor and successor in rounding to nearest", 2009),
# exact in IEEE arithmetic that keeps subnormals.


def _nextafter_bits(x: AluExp, y: AluExp) -> AluExp:
    """One step of x's bits toward y's: the magnitude shrinks where it is larger than
    y's or the signs differ; from zero, the smallest subnormal with y's sign."""
    top = 1 << (x.dtype.bits - 1)
    sign, rest = alu.const(dt.uint32, top), alu.const(dt.uint32, top - 1)
    one, zero = alu.const(dt.uint32, 1), alu.const(dt.uint32, 0)
    bx, by = alu.bitcast(dt.uint32, x), alu.bitcast(dt.uint32, y)
    x_sign, y_sign = alu.binary(Op.AND, bx, sign), alu.binary(Op.AND, by, sign)
    x_magnitude = alu.binary(Op.AND, bx, rest)
    shrinks = alu.binary(Op.AND, by, rest).lt(x_magnitude) | x_sign.ne(y_sign)
    stepped = _select(shrinks, bx - one, bx + one)
    from_zero = alu.binary(Op.OR, y_sign, one)
    return alu.bitcast(x.dtype, _select(_eq(x_magnitude, zero), from_zero, stepped))


def _successor_f64(c: AluExp) -> AluExp:
    """The next float64 above finite c: c + phi |c| (phi = u (1 + 2u), u = 2^-53) rounds
    to it where |c| >= 2^-969; below 2^-1021 it is c plus the smallest subnormal; between,
    c is scaled by 2^53 first (exactly), so phi |C| does not lose bits to underflow."""
    phi = _c(c, 2.0 ** -53 + 2.0 ** -105)
    a = alu.unary(Op.ABS, c)
    scaled = c * _c(c, 2.0 ** 53)
    middle = (scaled + phi * alu.unary(Op.ABS, scaled)) * _c(c, 2.0 ** -53)
    low = _select(a.lt(_c(c, 2.0 ** -1021)), c + _c(c, 2.0 ** -1074), middle)
    return _select(a.lt(_c(c, 2.0 ** -969)), low, c + phi * a)


def _nextafter_f64(x: AluExp, y: AluExp) -> AluExp:
    out = _select(x.lt(y), _successor_f64(x), -_successor_f64(-x))
    out = _select(is_finite_value(x), out, _copysign_of(_c(x, 1.7976931348623157e308), x))
    # a step to zero keeps x's sign, as a step of the bits does
    return _select(_eq(out, _c(x, 0)), _select(sign_bit(x), _c(x, -0.0), _c(x, 0.0)), out)


def _nextafter(x: AluExp, y: AluExp) -> AluExp:
    out = _nextafter_f64(x, y) if x.dtype is dt.float64 else _nextafter_bits(x, y)
    out = _select(_eq(x, y), y, out)
    return _select(x.ne(x) | y.ne(y), _c(x, math.nan), out)


def _logical(op: Op):
    def rule(x: AluExp, y: AluExp) -> AluExp:
        return alu.binary(op, x, y)

    return rule


def _unary(op: Op):
    def rule(x: AluExp) -> AluExp:
        return alu.unary(op, x)

    return rule


def _select_n(which: AluExp, *cases: AluExp) -> AluExp:
    if which.dtype is dt.bool_:
        return cases[0] if len(cases) == 1 else _select(which, cases[1], cases[0])
    result = cases[-1]
    for k in range(len(cases) - 2, -1, -1):
        result = _select(_eq(which, _c(which, k)), cases[k], result)
    return result


def _clamp(lo: AluExp, x: AluExp, hi: AluExp) -> AluExp:
    return alu.binary(Op.MIN, alu.binary(Op.MAX, x, lo), hi)


ELEMENT_RULES = {
    P.neg_p: lambda x: -x if not x.dtype.is_unsigned else _c(x, 0) - x,
    P.sign_p: _sign,
    P.abs_p: lambda x: x if x.dtype.is_unsigned else alu.unary(Op.ABS, x),
    P.not_p: lambda x: alu.unary(Op.NOT, x),
    P.floor_p: _unary(Op.FLOOR),
    P.ceil_p: _unary(Op.CEIL),
    P.round_p: _round,
    P.is_finite_p: is_finite_value,
    P.exp_p: _unary(Op.EXP),
    P.exp2_p: _unary(Op.EXP2),
    P.log_p: _unary(Op.LOG),
    P.log1p_p: _in_float32(_log1p),
    P.erf_inv_p: _in_float32(_erf_inv),
    P.expm1_p: _in_float32(_expm1),
    P.tanh_p: _unary(Op.TANH),
    P.logistic_p: _in_float32(_logistic),
    P.sin_p: _unary(Op.SIN),
    P.cos_p: _unary(Op.COS),
    P.tan_p: _unary(Op.TAN),
    P.asin_p: _unary(Op.ASIN),
    P.acos_p: _unary(Op.ACOS),
    P.atan_p: _unary(Op.ATAN),
    P.sinh_p: _in_float32(_sinh),
    P.cosh_p: _in_float32(_cosh),
    P.asinh_p: _in_float32(_asinh),
    P.acosh_p: _in_float32(_acosh),
    P.atanh_p: _in_float32(_atanh),
    P.sqrt_p: _unary(Op.SQRT),
    P.rsqrt_p: lambda x: _c(x, 1) / alu.unary(Op.SQRT, x),
    P.cbrt_p: _in_float32(_cbrt),
    P.erf_p: _unary(Op.ERF),
    P.erfc_p: _unary(Op.ERFC),
    P.square_p: lambda x: x * x,
    P.integer_pow_p: _integer_pow,
    P.add_p: lambda x, y: x + y,
    P.add_any_p: lambda x, y: x + y,
    P.sub_p: lambda x, y: x - y,
    P.mul_p: lambda x, y: x * y,
    P.div_p: _div,
    P.rem_p: lambda x, y: alu.binary(Op.MOD, x, y),
    P.pow_p: _in_float32(_pow),
    P.max_p: _logical(Op.MAX),
    P.min_p: _logical(Op.MIN),
    P.atan2_p: _logical(Op.ATAN2),
    P.nextafter_p: _nextafter,
    P.fma_p: alu.fma,
    P.and_p: _logical(Op.AND),
    P.or_p: _logical(Op.OR),
    P.xor_p: _logical(Op.XOR),
    P.shift_left_p: _shift_left,
    P.shift_right_arithmetic_p: _shift_right_arithmetic,
    P.shift_right_logical_p: _shift_right_logical,
    P.eq_p: _eq,
    P.ne_p: lambda x, y: x.ne(y),
    P.lt_p: lambda x, y: x.lt(y),
    P.le_p: _le,
    P.gt_p: lambda x, y: y.lt(x),
    P.ge_p: lambda x, y: _le(y, x),
    P.select_n_p: _select_n,
    P.clamp_p: _clamp,
    P.convert_element_type_p: lambda x, new_dtype, weak_type: alu.cast(new_dtype, x),
    P.bitcast_convert_type_p: lambda x, new_dtype: alu.bitcast(new_dtype, x),
    P.copy_p: lambda x: x,
}


def elementwise(fn, out_aval, *nodes: LazyNode, **params) -> LazyNode:
    """A node computing `fn(*element_exps, **params)` at each index of `out_aval`."""
    return LazyNode(ELEMENTWISE, out_aval.shape, out_aval.dtype, nodes,
                    Elementwise(fn, tuple(sorted(params.items()))))


def broadcast_operands(nodes, shape) -> list[LazyNode]:
    """Elementwise operands at `shape`: axes of size 1 broadcast (the primitives' shape
    rule); rank-0 operands stay."""
    return [view(n, lambda t: t.expand(shape)) if n.shape not in ((), shape) else n for n in nodes]


def _elementwise_rule(fn):
    def rule(out_aval, *nodes, **params):
        if fn is ELEMENT_RULES[P.convert_element_type_p] and nodes[0].dtype is out_aval.dtype:
            return nodes[0]
        return elementwise(fn, out_aval, *broadcast_operands(nodes, out_aval.shape), **params)

    return rule


for _prim, _fn in ELEMENT_RULES.items():
    lowering_rules[_prim] = _elementwise_rule(_fn)
lowering_rules[P.copy_p] = lambda aval, x: elementwise(ELEMENT_RULES[P.copy_p], aval, x)
lowering_rules[P.stop_gradient_p] = lambda aval, x: x
lowering_rules[P.name_p] = lambda aval, x, *, name: x


def _threefry_word(k0, k1, x0, x1, *, word):
    return alu.threefry2x32(k0, k1, x0, x1, word)


lowering_rules[P.threefry2x32_p] = lambda avals, *nodes: [
    elementwise(_threefry_word, aval, *nodes, word=w) for w, aval in enumerate(avals)]


def _unbound_collective(aval, *operands, axis_name, **params):
    raise NameError(f"unbound axis name: {axis_name}")


for _collective in P.COLLECTIVES:
    lowering_rules[_collective] = _unbound_collective


# -- movement -------------------------------------------------------------------------------


def move(node: LazyNode, tracker: ShapeTracker, fill=None) -> LazyNode:
    """`node` read through `tracker` (shape: the result's); padding reads `fill`."""
    if tracker.is_contiguous and tracker.shape == node.shape:
        return node
    broadcast = tracker.size > node.size
    return LazyNode(MOVE, tracker.shape, node.dtype, (node,), Move(tracker, fill, broadcast))


# A movement of a movement composes into one tracker while it has at most this many views
# (views stack when a reshape cannot merge, e.g. flattening a transpose).
MAX_VIEWS = 4


def view(x: LazyNode, build, fill=None) -> LazyNode:
    """`x` moved by `build` (a function of a ShapeTracker of `x`'s shape that applies the
    movement ops). A movement of a movement becomes one node: the ops are applied to the
    inner node's tracker, so chains of reshapes and transposes stay one index mapping."""
    if x.kind == MOVE:
        inner_fill = x.arg.fill
        if fill is None or inner_fill is None or fill == inner_fill:
            tracker = build(x.arg.tracker)
            if len(tracker.views) <= MAX_VIEWS:
                return move(x.srcs[0], tracker, inner_fill if fill is None else fill)
    return move(x, build(ShapeTracker.from_shape(x.shape)), fill)


def full(shape, value, dtype) -> LazyNode:
    """`value` at every index of `shape` (a constant, broadcast: no memory)."""
    scalar = LazyNode.const(value, dtype)
    if not shape:
        return scalar
    return move(scalar, ShapeTracker.from_shape(()).reshape([1] * len(shape)).expand(shape))


def _broadcast_in_dim(aval, x, *, shape, broadcast_dimensions):
    ones = [1] * len(shape)
    for d, axis in enumerate(broadcast_dimensions):
        ones[axis] = x.shape[d]
    return view(x, lambda t: t.reshape(ones).expand(shape))


def _reshape(aval, x, *, new_sizes, dimensions):
    if dimensions is not None:
        x = _transpose(None, x, permutation=dimensions)
    return view(x, lambda t: t.reshape(new_sizes))


def _transpose(aval, x, *, permutation):
    return view(x, lambda t: t.permute(permutation))


def _rev(aval, x, *, dimensions):
    return view(x, lambda t: t.flip(dimensions))


def _slice(aval, x, *, start_indices, limit_indices, strides):
    def build(tracker):
        tracker = tracker.shrink(list(zip(start_indices, limit_indices)))
        if strides and any(s != 1 for s in strides):
            tracker = _stride(tracker, strides)
        return tracker

    return view(x, build)


def _split_pieces(avals, x, *, sizes, axis):
    """`split`: each piece a slice of `x` along `axis` (a view, no kernel)."""
    out, start = [], 0
    for aval, size in zip(avals, sizes):
        lo = [0] * len(x.shape)
        hi = list(x.shape)
        lo[axis], hi[axis] = start, start + size
        out.append(_slice(aval, x, start_indices=lo, limit_indices=hi, strides=None))
        start += size
    return out


def _stack(aval, *xs, axis):
    """`stack`: each operand given an axis of size 1 at `axis` (a view), concatenated."""
    shape = list(aval.shape)
    shape[axis] = 1
    return _concatenate(aval, *[view(x, lambda t: t.reshape(shape)) for x in xs], dimension=axis)


def _unstack(avals, x, *, axis):
    """`unstack`: each slice along `axis` without it (views, no kernel)."""
    return [view(piece, lambda t, aval=aval: t.reshape(aval.shape))
            for aval, piece in zip(avals, _split_pieces(avals, x, sizes=[1] * len(avals), axis=axis))]


def _stride(tracker: ShapeTracker, strides) -> ShapeTracker:
    """Every `strides[k]`-th element along each axis: pad each axis to a multiple of its
    stride, split it into (n, stride), keep column 0 and merge back."""
    shape = tracker.shape
    counts = [-(-n // s) for n, s in zip(shape, strides)]
    tracker = tracker.pad([(0, c * s - n) for n, c, s in zip(shape, counts, strides)])
    split = [d for c, s in zip(counts, strides) for d in (c, s)]
    tracker = tracker.reshape(split)
    tracker = tracker.shrink([(0, d) if k % 2 == 0 else (0, 1) for k, d in enumerate(split)])
    return tracker.reshape(counts)


def _squeeze(aval, x, *, dimensions):
    return view(x, lambda t: t.reshape(aval.shape))


def _pad(aval, x, padding_value, *, padding_config):
    """Interior padding spreads elements apart; negative edges crop (lax.pad semantics)."""
    fill = padding_value.arg if padding_value.kind == "const" else None

    def build(tracker):
        interiors = [interior for _, _, interior in padding_config]
        if any(interiors):
            tracker = _interior(tracker, interiors)
        crop = [(max(-lo, 0), n - max(-hi, 0))
                for (lo, hi, _), n in zip(padding_config, tracker.shape)]
        edges = [(max(lo, 0), max(hi, 0)) for lo, hi, _ in padding_config]
        return tracker.shrink(crop).pad(edges)

    if fill is not None:
        return view(x, build, fill)
    # A traced padding value: select it wherever the tracker reads padding.
    inside = view(full(x.shape, True, dt.bool_), build, False)
    return elementwise(_select_n, aval, inside, padding_value, view(x, build, 0))


def _interior(tracker: ShapeTracker, interiors) -> ShapeTracker:
    """Insert `interiors[k]` zeros between neighbours along each axis."""
    shape = tracker.shape
    tracker = tracker.reshape([d for n in shape for d in (n, 1)])
    tracker = tracker.pad([(0, 0) if k % 2 == 0 else (0, interiors[k // 2])
                           for k in range(2 * len(shape))])
    widened = [n * (1 + i) for n, i in zip(shape, interiors)]
    tracker = tracker.reshape(widened)
    return tracker.shrink([(0, max(n + (n - 1) * i, 0)) for n, i in zip(shape, interiors)])


# Concatenations of more operands than this become a tree, so that no kernel needs to bind
# more buffers than a device allows (fusion splits kernels at computed nodes only).
CONCAT_FAN_IN = 6


def _concatenate(aval, *xs, dimension):
    while len(xs) > CONCAT_FAN_IN:
        groups = [xs[i:i + CONCAT_FAN_IN] for i in range(0, len(xs), CONCAT_FAN_IN)]
        xs = tuple(g[0] if len(g) == 1 else _concat_node(g, dimension) for g in groups)
    return _concat_node(xs, dimension)


def _concat_node(xs, dimension) -> LazyNode:
    shape = list(xs[0].shape)
    shape[dimension] = sum(x.shape[dimension] for x in xs)
    return LazyNode(CONCAT, shape, xs[0].dtype, xs, Concat(dimension))


def _iota(aval, *, dtype, shape, dimension):
    return LazyNode(IOTA, shape, dtype, (), Iota(dimension))


def _gather(aval, operand, indices, *, dimension_numbers, slice_sizes, mode, fill_value,
            indices_are_sorted, unique_indices):
    fill = None
    if GatherScatterMode.from_any(mode) is GatherScatterMode.FILL_OR_DROP:
        fill = default_fill(aval.dtype) if fill_value is None else fill_value
    return LazyNode(GATHER, aval.shape, aval.dtype, (operand, indices),
                    Gather(dimension_numbers, tuple(slice_sizes), fill))


def _sort_permutation(aval, *keys):
    """The sort routine on the keys as planes (one buffer: the routine's interface)."""
    planes = keys[0]
    if len(keys) > 1:
        planes = _concatenate(None, *[view(k, lambda t: t.reshape((1, *k.shape))) for k in keys],
                              dimension=0)
    routine = SortPermutation(math.prod(aval.shape[:-1]), aval.shape[-1], len(keys))
    return LazyNode(ROUTINE, aval.shape, aval.dtype, (planes,), routine)


def _scatter_flat(combine: str):
    def rule(aval, operand, targets, updates):
        routine = ScatterAdd(aval.dtype, operand.size, targets.size, combine)
        return LazyNode(ROUTINE, aval.shape, aval.dtype, (operand, targets, updates), routine)
    return rule


def _cumsum(aval, x, *, axis, reverse):
    """The scan routine on rows along the last axis: the axis moved there (and flipped
    for `reverse`) as a view, which fusion materializes for the routine, and back."""
    rank = len(aval.shape)
    to_last = [d for d in range(rank) if d != axis] + [axis]
    flip = [rank - 1] if reverse else []
    rows = view(x, lambda t: t.permute(to_last).flip(flip))
    routine = CumulativeSum(aval.dtype, math.prod(rows.shape[:-1]), rows.shape[-1])
    scanned = LazyNode(ROUTINE, rows.shape, aval.dtype, (rows,), routine)
    return view(scanned, lambda t: t.flip(flip).permute([to_last.index(d) for d in range(rank)]))


def _bits_word(x: AluExp) -> AluExp:
    """The bits of `x` (at most 32 of them) as the low bits of a uint32."""
    unsigned = dt.UNSIGNED.get(x.dtype, x.dtype)
    if x.dtype.is_float:
        unsigned = {2: dt.uint16, 4: dt.uint32}[x.dtype.itemsize]
    return alu.cast(dt.uint32, alu.bitcast(unsigned, x))


def _from_bits_word(word: AluExp, dtype: dt.DType) -> AluExp:
    """The low bits of the uint32 `word` as `dtype`."""
    unsigned = {1: dt.uint8, 2: dt.uint16, 4: dt.uint32}[dtype.itemsize]
    return alu.bitcast(dtype, alu.cast(unsigned, word))


def _reduce_precision(x: AluExp, *, exponent_bits, mantissa_bits) -> AluExp:
    """`x` rounded to the float format of `exponent_bits` and `mantissa_bits`, on its
    bits (float16 and float32): the mantissa to nearest even (a carry may step into the
    exponent), then exponents past the format's range to signed infinities and those
    at or below its smallest normal's to signed zeros; NaN stays `x`."""
    exponent, mantissa = dt.FLOAT_FIELDS[x.dtype]
    if exponent_bits >= exponent and mantissa_bits >= mantissa:
        return x

    def u32(value: int) -> AluExp:
        return alu.const(dt.uint32, value)

    word = _bits_word(x)
    if mantissa_bits < mantissa:
        drop = mantissa - mantissa_bits
        last_kept = alu.binary(Op.SHR, word, u32(drop)) & u32(1)
        word = (word + last_kept + u32((1 << (drop - 1)) - 1)) & u32(0xFFFFFFFF ^ ((1 << drop) - 1))
    if exponent_bits < exponent:
        field_mask, sign = ((1 << exponent) - 1) << mantissa, word & u32(1 << (exponent + mantissa))
        field = word & u32(field_mask)
        bias, reduced_bias = (1 << (exponent - 1)) - 1, (1 << (exponent_bits - 1)) - 1
        overflows = u32((bias + reduced_bias) << mantissa).lt(field)
        underflows = _le(field, u32((bias - reduced_bias) << mantissa))
        word = _select(overflows, sign | u32(field_mask), _select(underflows, sign, word))
    wide_bits = alu.bitcast(dt.int32, alu.cast(dt.float32, x)) & alu.const(dt.int32, 0x7FFFFFFF)
    is_nan = alu.const(dt.int32, 0x7F800000).lt(wide_bits)
    return _select(is_nan, x, _from_bits_word(word, x.dtype))


lowering_rules[P.reduce_precision_p] = _elementwise_rule(_reduce_precision)


def _bitcast_piece(wide: AluExp, part: AluExp, *, new_dtype) -> AluExp:
    """Piece `part` (from the least significant bits) of the wide element `wide`."""
    shift = part * alu.const(dt.uint32, new_dtype.itemsize * 8)
    return _from_bits_word(alu.binary(Op.SHR, _bits_word(wide), shift), new_dtype)


def _bitcast_shifted(narrow: AluExp, part: AluExp, *, bits) -> AluExp:
    return alu.binary(Op.SHL, _bits_word(narrow), part * alu.const(dt.uint32, bits))


def _bitcast_convert_type(aval, x, *, new_dtype):
    """Same widths: elementwise. Narrower: each wide element broadcast along a new last
    axis, piece k shifted down from bit 8*k*itemsize (little-endian, as XLA). Wider: the
    pieces along the last axis shifted up and summed (their bits are disjoint)."""
    old = x.dtype
    if old is new_dtype:
        return x
    if old.itemsize == new_dtype.itemsize:
        return elementwise(ELEMENT_RULES[P.bitcast_convert_type_p], aval, x, new_dtype=new_dtype)
    if max(old.itemsize, new_dtype.itemsize) > 4:
        raise NotImplementedError(f"bitcast_convert_type from {old.name} to {new_dtype.name}: jaxwg has "
                                  "no 64-bit integers to split or join 64-bit values with")
    pieces = aval.shape if old.itemsize > new_dtype.itemsize else x.shape  # pieces on the last axis
    part = LazyNode(IOTA, pieces, dt.uint32, (), Iota(len(pieces) - 1))
    if old.itemsize > new_dtype.itemsize:
        wide = view(x, lambda t: t.reshape((*x.shape, 1)).expand(aval.shape))
        return elementwise(_bitcast_piece, aval, wide, part, new_dtype=new_dtype)
    rank = len(x.shape)
    shifted = elementwise(_bitcast_shifted, ShapedArray(x.shape, dt.uint32), x, part, bits=old.itemsize * 8)
    word = reduce(Op.ADD, ShapedArray(aval.shape, dt.uint32), shifted, (rank - 1,))
    return elementwise(_from_bits_word, aval, word, dtype=new_dtype)


lowering_rules.update({
    P.bitcast_convert_type_p: _bitcast_convert_type,
    P.cumsum_p: _cumsum,
    P.sort_permutation_p: _sort_permutation,
    P.scatter_add_flat_p: _scatter_flat("add"),
    P.scatter_max_flat_p: _scatter_flat("max"),
    P.gather_p: _gather,
    P.broadcast_in_dim_p: _broadcast_in_dim,
    P.reshape_p: _reshape,
    P.transpose_p: _transpose,
    P.rev_p: _rev,
    P.slice_p: _slice,
    P.split_p: _split_pieces,
    P.stack_p: _stack,
    P.unstack_p: _unstack,
    P.squeeze_p: _squeeze,
    P.pad_p: _pad,
    P.concatenate_p: _concatenate,
    P.iota_p: _iota,
    P.empty_p: lambda aval, *, dtype, memory_space: full((), 0, dtype),
})


# -- reductions -----------------------------------------------------------------------------


def reduce(op: Op, aval, x: LazyNode, axes) -> LazyNode:
    # Over axes of size 1 (or none) a reduction is a reshape, as XLA simplifies it: one
    # term keeps its value, so a sum of one -0.0 stays -0.0 as in JAX.
    if aval.dtype is x.dtype and all(x.shape[a] == 1 for a in axes):
        return view(x, lambda t: t.reshape(aval.shape))
    return LazyNode(REDUCE, aval.shape, aval.dtype, (x,), Reduce(op, tuple(axes)))


def _reduce_rule(op: Op, bool_only: bool = False):
    def rule(aval, x, *, axes):
        if bool_only and not x.dtype.is_bool:
            raise NotImplementedError(f"bitwise reductions of {x.dtype.name} are not supported; "
                                      "reduce booleans")
        return reduce(op, aval, x, axes)

    return rule


def _argreduce(is_max: bool):
    def rule(aval, x, *, axes, index_dtype):
        (axis,) = axes
        kept = ShapedArray(aval.shape, x.dtype)
        best = reduce(Op.MAX if is_max else Op.MIN, kept, x, axes)
        keep_shape = list(x.shape)
        keep_shape[axis] = 1
        best = view(best, lambda t: t.reshape(keep_shape).expand(x.shape))
        full = ShapedArray(x.shape, dt.bool_)
        hit = elementwise(_eq, full, x, best)
        if x.dtype.is_float:  # the first NaN wins, as in JAX
            hit = elementwise(lambda h, v: h | v.ne(v), full, hit, x)
        n = x.shape[axis]
        position = LazyNode(IOTA, x.shape, index_dtype, (), Iota(axis))
        candidate = elementwise(lambda h, i: _select(h, i, _c(i, n)),
                                ShapedArray(x.shape, index_dtype), hit, position)
        return reduce(Op.MIN, aval, candidate, axes)

    return rule


def _dot_general(aval, a, b, *, dimension_numbers, preferred_element_type):
    """Broadcast both operands to (batch, free_a, free_b, contract), multiply, sum."""
    (ca, cb), (ba, bb) = dimension_numbers
    free_a = [i for i in range(len(a.shape)) if i not in ca and i not in ba]
    free_b = [i for i in range(len(b.shape)) if i not in cb and i not in bb]
    dtype = aval.dtype
    if a.dtype is not dtype:
        a = elementwise(ELEMENT_RULES[P.convert_element_type_p], ShapedArray(a.shape, dtype), a,
                        new_dtype=dtype, weak_type=False)
        b = elementwise(ELEMENT_RULES[P.convert_element_type_p], ShapedArray(b.shape, dtype), b,
                        new_dtype=dtype, weak_type=False)
    batch = [a.shape[i] for i in ba]
    fa, fb = [a.shape[i] for i in free_a], [b.shape[i] for i in free_b]
    k = math.prod(a.shape[i] for i in ca)
    nb, na, nfb = len(batch), len(fa), len(fb)
    full = batch + fa + fb + [k]
    a_view = view(a, lambda t: t.permute(list(ba) + free_a + list(ca)).reshape(
        batch + fa + [1] * nfb + [k]).expand(full))
    b_view = view(b, lambda t: t.permute(list(bb) + free_b + list(cb)).reshape(
        batch + [1] * na + fb + [k]).expand(full))
    prod_aval = ShapedArray(full, dtype)
    product = elementwise(lambda x, y: x * y if not dtype.is_bool else x & y, prod_aval,
                          a_view, b_view)
    op = Op.MAX if dtype.is_bool else Op.ADD
    return reduce(op, ShapedArray(batch + fa + fb, dtype), product, (nb + na + nfb,))


def _reducing_collective(op: Op):
    """psum, pmax, pmin over positional axes (vmap's): reductions. Named axes are
    unbound here: every vmap has replaced its own."""
    def rule(aval, x, *, axes, axis_index_groups):
        named = [a for a in axes if not isinstance(a, int)]
        if named:
            raise NameError(f"unbound axis name: {named[0]}")
        return reduce(op, aval, x, axes)

    return rule


lowering_rules.update({
    P.psum_p: _reducing_collective(Op.ADD),
    P.pmax_p: _reducing_collective(Op.MAX),
    P.pmin_p: _reducing_collective(Op.MIN),
    P.reduce_sum_p: _reduce_rule(Op.ADD),
    P.reduce_prod_p: _reduce_rule(Op.MUL),
    P.reduce_max_p: _reduce_rule(Op.MAX),
    P.reduce_min_p: _reduce_rule(Op.MIN),
    P.reduce_and_p: _reduce_rule(Op.MIN, bool_only=True),
    P.reduce_or_p: _reduce_rule(Op.MAX, bool_only=True),
    P.argmax_p: _argreduce(True),
    P.argmin_p: _argreduce(False),
    P.dot_general_p: _dot_general,
})
