"""WGSL helper functions, emitted into a shader only when its code uses them.

WGSL leaves several results to the implementation that jaxwg defines exactly (see
`jaxwg.core.alu`): NaN in comparisons and min/max, float-to-int conversion out of
range, float remainder. Each helper here implements one of those definitions for
one WGSL type; `WgslBuilder.need(name)` pulls it (and its dependencies) into the
preamble. Names are `<what>_<wgsl type>`, e.g. `isnan_f32`, `fmin_f16`.

NaN is detected from the bit pattern, not with `x != x`, which shader compilers
that assume finite math may fold to false. float16 has no same-width unsigned type in
WGSL, so its NaN test converts to float32 (exact); float64 uses u64, which is why jaxwg
needs "shader-int64" as well as "shader-f64" for float64.

Where the native function is too inaccurate on some adapter (measured on lavapipe:
atan off by ~900 ulp and NaN-blind, exp by 24 ulp at x = 29), a helper computes it
from accurate pieces: range reduction plus the native function on a small interval,
or a fitted polynomial (`polynomials.py`).

>>> print(HELPERS["isnan_f32"].code)
fn isnan_f32(x: f32) -> bool { return (bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u; }
"""

from __future__ import annotations

import math
import string
from dataclasses import dataclass

from ...core.alu_eval import THREEFRY_ROTATIONS
from . import constants
from .polynomials import ATAN_UNIT, COS_QUARTER, ERF_SMALL, ERFC_LARGE, SIN_QUARTER

# Taylor series (exact coefficients, lowest degree first) for small arguments:
# tanh(x) = x + x^3 * TANH_SERIES(x^2), to x^17; 2 atanh(s) = 2s * ATANH_SERIES(s^2), to s^13.
TANH_SERIES = (-1 / 3, 2 / 15, -17 / 315, 62 / 2835, -1382 / 155925, 21844 / 6081075,
               -929569 / 638512875, 6404582 / 10854718875)
ATANH_SERIES = (1.0, 1 / 3, 1 / 5, 1 / 7, 1 / 9, 1 / 11, 1 / 13)
# float64's: e^r = sum r^k / k! to r^13, 2 atanh(s) / (2s) to s^22, expm1(x) / x to x^16.
EXP_SERIES_F64 = tuple(1 / math.factorial(k) for k in range(14))
ATANH_SERIES_F64 = tuple(1 / (2 * k + 1) for k in range(12))
EXPM1_SERIES_F64 = tuple(1 / math.factorial(k + 1) for k in range(17))


@dataclass(frozen=True)
class Helper:
    code: str
    deps: tuple[str, ...] = ()


HELPERS: dict[str, Helper] = {}


def _register(name: str, code: str, *deps: str) -> None:
    HELPERS[name] = Helper(code.strip("\n"), deps)


# Bit patterns of the float types with an unsigned integer of the same width: float32, and
# float64 where the adapter has "shader-int64" (jaxwg asks for it along with "shader-f64").
# Helpers written once for both use $T (the float), $U and $I (its unsigned and signed
# integers) and these masks.
_FLOAT_BITS = {
    "f32": dict(T="f32", U="u32", I="i32", SIGN="0x80000000u", MAGNITUDE="0x7fffffffu",
                INF="0x7f800000u", NAN="0x7fc00000u", ZERO="0.0f", ONE="1.0f",
                LN2_HI="0.693359375f", LN2_LO="-0.00021219444170128554f", LOG2E="1.44269504f"),
    "f64": dict(T="f64", U="u64", I="i64", SIGN="0x8000000000000000lu",
                MAGNITUDE="0x7ffffffffffffffflu", INF="0x7ff0000000000000lu",
                NAN="0x7ff8000000000000lu", ZERO="0.0lf", ONE="1.0lf",
                LN2_HI="0.6931471803691238lf", LN2_LO="1.9082149292705877e-10lf",
                LOG2E="1.4426950408889634lf"),
}


def _register_float(name: str, code: str, *deps: str) -> None:
    """Register `name`_f32 and `name`_f64 from one template (see `_FLOAT_BITS`); `deps`
    are templates too."""
    for t, bits in _FLOAT_BITS.items():
        fill = string.Template(code.strip("\n")).substitute
        _register(f"{name}_{t}", fill(bits), *(string.Template(d).substitute(bits) for d in deps))


_register_float("isnan", "fn isnan_$T(x: $T) -> bool { return (bitcast<$U>(x) & $MAGNITUDE) > $INF; }")
_register("isnan_f16", "fn isnan_f16(x: f16) -> bool { return isnan_f32(f32(x)); }", "isnan_f32")
# float32 -> float16 through pack2x16float: NVIDIA's compiler drops a plain f16(x)
# whose result is widened again (f32(f16(-2049.0)) stayed -2049, not -2048), so the
# rounding is forced through an integer. Out of range rounds to infinity, as in NumPy.
_register("f16_from_f32", """
fn f16_from_f32(x: f32) -> f16 {
  if (isnan_f32(x)) { return f16(x); }
  if (abs(x) >= 65520.0f) { return select(f16(bitcast<f32>(0x7f800000u)), f16(bitcast<f32>(0xff800000u)), x < 0.0f); }
  return f16(unpack2x16float(pack2x16float(vec2<f32>(x, 0.0f))).x);
}""", "isnan_f32")
_register_float("isfinite", "fn isfinite_$T(x: $T) -> bool { return (bitcast<$U>(x) & $INF) != $INF; }")

# -- IEEE guards -------------------------------------------------------------------------
# WGSL lets shader compilers assume finite math, and Mesa (lavapipe, llvmpipe) and NVIDIA
# fold accordingly: x - x, x + (-x) and x * 0.0 to 0, x + 0.0 to x, x / x to 1, x + 1 != x
# to true (docs/ieee.md). The code generator sends the float32 and float64 ops such a
# fold can reach through these (see `fold_hazard` in codegen). The general guards compute
# the op as written, fold or not, then set the result for special operands (zeros,
# infinities, NaN) from their bit patterns, which no finite-math assumption touches;
# `<op>_fix_<type>(a, b, r)` takes the computed result `r`. One operand the same as the
# other, or a zero constant, gets a cheaper helper. They select rather than branch: on
# the H200 an early return for ordinary operands made a kernel 3x slower, not faster.
_register_float("sub_self", """
fn sub_self_$T(x: $T) -> $T { return select(bitcast<$T>($NAN), $ZERO, isfinite_$T(x)); }""",
                "isfinite_$T")
_register_float("div_self", """
fn div_self_$T(x: $T) -> $T {
  let m = bitcast<$U>(x) & $MAGNITUDE;
  return select(bitcast<$T>($NAN), $ONE, m != $U(0) && m < $INF);
}""")
_register_float("mul_zero", """
fn mul_zero_$T(x: $T, negative: bool) -> $T {
  let signed_zero = bitcast<$T>((bitcast<$U>(x) & $SIGN) ^ select($U(0), $SIGN, negative));
  return select(bitcast<$T>($NAN), signed_zero, isfinite_$T(x));
}""", "isfinite_$T")
# x + 0.0 is x, except that -0.0 + 0.0 is +0.0.
_register_float("add_zero",
                "fn add_zero_$T(x: $T) -> $T { return select(x, $ZERO, bitcast<$U>(x) == $SIGN); }")
_register_float("add_fix", """
fn add_fix_$T(a: $T, b: $T, r: $T) -> $T {
  let ua = bitcast<$U>(a);
  let ub = bitcast<$U>(b);
  let ma = ua & $MAGNITUDE;
  let mb = ub & $MAGNITUDE;
  // An exact zero sum is -0 only for -0 + -0: cancellation gives +0.
  let sum = select(r, bitcast<$T>(ua & ub & $SIGN), (bitcast<$U>(r) & $MAGNITUDE) == $U(0));
  // An infinite or NaN operand: NaN for NaN or infinities of opposite signs, else the infinity.
  let edge = select(select(b, a, ma >= mb), bitcast<$T>($NAN), ma == mb && ua != ub);
  return select(sum, edge, max(ma, mb) >= $INF);
}""")
# The guards for operands that share a value compute the op on an opaque copy of one
# operand: its bits XORed with a zero that only the run knows (`OPAQUE_ZERO`, which the
# templates set from the dispatch grid). Algebra cannot cancel the shared value through
# it, so (x + y) - x is the IEEE sum's error (0 for 1e30 + 1), not y as lavapipe folded
# it; compensated sums in user code keep working.
OPAQUE_ZERO = "jaxwg_opaque"
_register("opaque_zero", f"var<private> {OPAQUE_ZERO}: u32;")
_register_float("opaque", f"""
fn opaque_$T(x: $T) -> $T {{ return bitcast<$T>(bitcast<$U>(x) ^ $U({OPAQUE_ZERO})); }}""", "opaque_zero")
_register_float("add_ieee", """
fn add_ieee_$T(a: $T, b: $T) -> $T { return add_fix_$T(a, b, a + opaque_$T(b)); }""",
                "add_fix_$T", "opaque_$T")
_register_float("sub_ieee", """
fn sub_ieee_$T(a: $T, b: $T) -> $T { return add_fix_$T(a, -b, a - opaque_$T(b)); }""",
                "add_fix_$T", "opaque_$T")
_register_float("mul_ieee", """
fn mul_ieee_$T(a: $T, b: $T) -> $T {
  let ua = bitcast<$U>(a);
  let ub = bitcast<$U>(b);
  let hi = max(ua & $MAGNITUDE, ub & $MAGNITUDE);
  let lo = min(ua & $MAGNITUDE, ub & $MAGNITUDE);
  let sign = (ua ^ ub) & $SIGN;
  // A zero or infinite operand makes a signed zero or infinity; NaN and 0 * inf make NaN.
  let edge = bitcast<$T>(select(sign, sign | $INF, hi >= $INF));
  let nan = hi > $INF || (hi == $INF && lo == $U(0));
  return select(select(a * opaque_$T(b), edge, hi >= $INF || lo == $U(0)), bitcast<$T>($NAN), nan);
}""", "opaque_$T")
_register_float("div_fix", """
fn div_fix_$T(a: $T, b: $T, q: $T) -> $T {
  let ua = bitcast<$U>(a);
  let ub = bitcast<$U>(b);
  let ma = ua & $MAGNITUDE;
  let mb = ub & $MAGNITUDE;
  let sign = (ua ^ ub) & $SIGN;
  // inf / y and x / 0 are infinite, 0 / y and x / inf zero; inf / inf, 0 / 0 and NaN are NaN.
  let inf = ma == $INF || mb == $U(0);
  let zero = ma == $U(0) || mb == $INF;
  let edge = select(select(q, bitcast<$T>(sign), zero), bitcast<$T>(sign | $INF), inf);
  return select(edge, bitcast<$T>($NAN), (inf && zero) || max(ma, mb) > $INF);
}""")
# float32 divides through `div_f32`, which guards huge divisors; float64's `/` is exact.
_register("div_ieee_f32", """
fn div_ieee_f32(a: f32, b: f32) -> f32 { return div_fix_f32(a, b, div_f32(a, opaque_f32(b))); }""",
          "div_fix_f32", "div_f32", "opaque_f32")
_register("div_ieee_f64", """
fn div_ieee_f64(a: f64, b: f64) -> f64 { return div_fix_f64(a, b, a / opaque_f64(b)); }""",
          "div_fix_f64", "opaque_f64")
_register("div_trunc_ieee_f32", """
fn div_trunc_ieee_f32(a: f32, b: f32) -> f32 { return div_fix_f32(a, b, div_trunc_f32(a, b)); }""",
          "div_fix_f32", "div_trunc_f32")
_register("div_trunc_ieee_f64", """
fn div_trunc_ieee_f64(a: f64, b: f64) -> f64 { return div_fix_f64(a, b, trunc(a / opaque_f64(b))); }""",
          "div_fix_f64", "opaque_f64")
# Comparisons by integer keys in the order of the floats (-0 and +0 both 0), NaN apart:
# a compiler may rewrite a + b != a as b != 0, wrong for infinite a.
_register_float("order_key", """
fn order_key_$T(x: $T) -> $I {
  let u = bitcast<$U>(x);
  return select($I(u), -$I(u & $MAGNITUDE), u >= $SIGN);
}""")
_register_float("lt_ieee", """
fn lt_ieee_$T(a: $T, b: $T) -> bool {
  return !(isnan_$T(a) || isnan_$T(b)) && order_key_$T(a) < order_key_$T(b);
}""", "isnan_$T", "order_key_$T")
_register_float("ne_ieee", """
fn ne_ieee_$T(a: $T, b: $T) -> bool {
  return isnan_$T(a) || isnan_$T(b) || order_key_$T(a) != order_key_$T(b);
}""", "isnan_$T", "order_key_$T")

for _t in ("f16", "f32", "f64"):
    # a != b that is true when either side is NaN, whatever the compiler assumes.
    _register(f"fne_{_t}", f"""
fn fne_{_t}(a: {_t}, b: {_t}) -> bool {{ return a != b || isnan_{_t}(a) || isnan_{_t}(b); }}""",
              f"isnan_{_t}")
# min/max that propagate NaN, like np.minimum (WGSL's min/max may drop it); float16
# computes them in float32. The NaN is a constant: a + b would fold to 0 in max(x, -x).
# -0.0 is below +0.0, as in XLA (WGSL leaves the sign open): of equal values, max takes
# the AND of their bits and min the OR.
for _fn, _bits in (("min", "|"), ("max", "&")):
    _register_float(f"f{_fn}", f"""
fn f{_fn}_$T(a: $T, b: $T) -> $T {{
  let m = select({_fn}(a, b), bitcast<$T>(bitcast<$U>(a) {_bits} bitcast<$U>(b)), a == b);
  return select(m, bitcast<$T>($NAN), isnan_$T(a) || isnan_$T(b));
}}""", "isnan_$T")

# float64 round and trunc from floor and ceil: Mesa 22.3's lavapipe on an AMD EPYC host
# rounded 1.5 to 1.0 and -1.5 to -1.0 with its native round, and left some quotients
# untruncated in trunc(a / b) (138778705.996), while its floor and ceil were exact.
_register("trunc_f64", """
fn trunc_f64(x: f64) -> f64 { return select(ceil(x), floor(x), x >= 0.0lf); }""")
_register("round_f64", """
fn round_f64(x: f64) -> f64 {
  let r = floor(x);
  let d = x - r;  // in [0, 1], rounded only for x in (-1, 0), never across 0.5; NaN for infinities
  let odd = r - 2.0lf * floor(r * 0.5lf) != 0.0lf;
  let v = select(r, r + 1.0lf, d > 0.5lf || (d == 0.5lf && odd));  // halves to even
  return select(v, -v, v == 0.0lf && x < 0.0lf);  // -0.0 for negatives rounding to zero
}""")

# Exact C fmod for float32: subtract the largest b * 2^k <= r until r < |b|. Each
# subtraction is exact, so the result is the true remainder, unlike a - b*trunc(a/b),
# which loses everything once a/b is large. At most ~280 steps (the exponent range).
_register("fmod_f32", """
fn fmod_f32(a: f32, b: f32) -> f32 {
  let bx = abs(b);
  var r = abs(a);
  if (isnan_f32(a) || isnan_f32(b) || r == bitcast<f32>(0x7f800000u) || bx == 0.0f) {
    return bitcast<f32>(0x7fc00000u);
  }
  let eb = frexp(bx).exp;
  loop {
    if (r < bx) { break; }
    var t = ldexp(bx, frexp(r).exp - eb);
    if (t > r) { t = t * 0.5f; }
    r = r - t;
  }
  // r >= 0 takes the sign of a, set as a bit: folds may drop the sign of a negated zero.
  return bitcast<f32>(bitcast<u32>(r) | (bitcast<u32>(a) & 0x80000000u));
}""", "isnan_f32")
# float64 has no frexp without 64-bit integers in WGSL: find the largest |b| * 2^k <= |a|
# by doubling instead, then subtract downwards, each step exact as above.
_register("fmod_f64", """
fn fmod_f64(a: f64, b: f64) -> f64 {
  let bx = abs(b);
  var r = abs(a);
  if (isnan_f64(a) || isnan_f64(b) || r == f64(bitcast<f32>(0x7f800000u)) || bx == 0.0lf) {
    return f64(bitcast<f32>(0x7fc00000u));
  }
  if (r < bx) { return a; }
  var t = bx;
  loop { if (t > r * 0.5lf) { break; } t = t * 2.0lf; }
  loop {
    if (r < bx) { break; }
    if (t <= r) { r = r - t; }
    t = t * 0.5lf;
  }
  return select(r, -r, a < 0.0lf);
}""", "isnan_f64")

# Saturating float -> integer conversions (NaN -> 0). f16 goes through f32.
_INT_BOUNDS = {"i32": ("-2147483648.0", "2147483648.0", "i32(-2147483647 - 1)", "2147483647i"),
               "u32": ("0.0", "4294967296.0", "0u", "4294967295u")}
for _t in ("f32", "f64"):
    for _i, (_lo, _hi, _min, _max) in _INT_BOUNDS.items():
        _register(f"{_t}_to_{_i}", f"""
fn {_t}_to_{_i}(x: {_t}) -> {_i} {{
  if (isnan_{_t}(x)) {{ return {_i}(0); }}
  if (x >= {_t}({_hi})) {{ return {_max}; }}
  if (x <= {_t}({_lo})) {{ return {_min}; }}
  return {_i}(x);
}}""", f"isnan_{_t}")


def _horner(coefficients: tuple[float, ...], var: str, suffix: str = "f") -> str:
    """WGSL text evaluating sum(c[i] * var**i) by Horner's rule, with literals of
    `suffix` ("f" for f32, "lf" for f64)."""
    text = f"{coefficients[-1]!r}{suffix}"
    for c in reversed(coefficients[:-1]):
        text = f"fma({text}, {var}, {c!r}{suffix})"
    return text


# erf and erfc in float32 (see erf_coefficients.py for the fits): |x| < 1 uses
# erf(x) = x * P(x^2); beyond, erfc(x) = exp(-x^2) * Q(1 / (1 + x / 2)), so that
# erfc keeps its relative accuracy far into the tail.
_register("erfc_tail_f32", f"""
fn erfc_tail_f32(ax: f32) -> f32 {{
  let t = 1.0f / (1.0f + 0.5f * ax);
  return exp(-ax * ax) * {_horner(ERFC_LARGE, "t")};
}}""")
_register("erf_f32", f"""
fn erf_f32(x: f32) -> f32 {{
  let ax = abs(x);
  if (ax < 1.0f) {{
    let x2 = x * x;
    return x * {_horner(ERF_SMALL, "x2")};
  }}
  let y = 1.0f - erfc_tail_f32(ax);
  return select(y, -y, x < 0.0f);
}}""", "erfc_tail_f32")
_register("erfc_f32", """
fn erfc_f32(x: f32) -> f32 {
  let ax = abs(x);
  if (ax < 1.0f) { return 1.0f - erf_f32(x); }
  let y = erfc_tail_f32(ax);
  return select(y, 2.0f - y, x < 0.0f);
}""", "erf_f32", "erfc_tail_f32")


# y * 2^k for |k| <= 252, in two exact power-of-two steps (so 2^k itself never
# overflows, and a subnormal result rounds once), each power built from its exponent
# bits. ldexp did the same, but on the H200 two ldexp calls cost exp_f32 about 18% of
# its bandwidth (64M float32: 2.6-2.8 TB/s with ldexp, 3.1-3.4 with this).
_register("times_pow2_f32", """
fn times_pow2_f32(y: f32, k: i32) -> f32 {
  let h = k / 2;
  return y * bitcast<f32>(u32(h + 127) << 23u) * bitcast<f32>(u32(k - h + 127) << 23u);
}""")
# exp(x) = 2^n exp(r) with n = round(x / ln 2) and r = x - n ln 2: the native exp only
# sees |r| <= 0.35, where it is accurate. ln 2 is split into a 9-bit head, whose
# product with n is exact, and a tail, so r is accurate without relying on fma (the
# OpenGL and Vulkan software adapters do not fuse it). The head's difference passes
# through `opaque` so that a compiler cannot reassociate the two steps into one
# x - n (head + tail): NVIDIA's did for float64 inside larger kernels (sinh, cosh and
# 1 / (1 + exp(-x)) were 200 ulp off at |x| ~ 700 on an H100). NaN returns first:
# i32(NaN) is undefined.
_register("exp_f32", """
fn exp_f32(x: f32) -> f32 {
  if (isnan_f32(x)) { return x; }
  if (x > 88.8f) { return bitcast<f32>(0x7f800000u); }
  if (x < -104.0f) { return 0.0f; }
  let n = round(x * 1.44269504f);
  let r = opaque_f32(x - n * 0.693359375f) - n * -0.00021219444170128554f;
  return times_pow2_f32(exp(r), i32(n));
}""", "isnan_f32", "times_pow2_f32", "opaque_f32")
_register("exp2_f32", """
fn exp2_f32(x: f32) -> f32 {
  if (isnan_f32(x)) { return x; }
  if (x > 128.0f) { return bitcast<f32>(0x7f800000u); }
  if (x < -150.0f) { return 0.0f; }
  let n = round(x);
  return times_pow2_f32(exp2(x - n), i32(n));
}""", "isnan_f32", "times_pow2_f32")

# atan on [0, 1] as t * A(t^2); the rest by the identities atan(t) = pi/2 - atan(1/t),
# atan2's quadrants, asin(x) = atan2(x, sqrt(1 - x^2)), acos(x) = atan2(sqrt(1 - x^2), x).
_register("atan_unit_f32", f"""
fn atan_unit_f32(t: f32) -> f32 {{
  let s = t * t;
  return t * {_horner(ATAN_UNIT, "s")};
}}""")
_register("atan_f32", """
fn atan_f32(x: f32) -> f32 {
  if (isnan_f32(x)) { return x; }
  let t = abs(x);
  let r = select(1.57079633f - atan_unit_f32(1.0f / t), atan_unit_f32(t), t <= 1.0f);
  return select(r, -r, bitcast<u32>(x) >= 0x80000000u);  // the sign bit: atan(-0) = -0
}""", "isnan_f32", "atan_unit_f32")
_register("atan2_f32", """
fn atan2_f32(y: f32, x: f32) -> f32 {
  if (isnan_f32(x) || isnan_f32(y)) { return bitcast<f32>(0x7fc00000u); }
  let ax = abs(x);
  let ay = abs(y);
  var r = 0.0f;
  if (ax == ay && ax == bitcast<f32>(0x7f800000u)) { r = 0.785398163f; }
  else if (ay == 0.0f) { r = 0.0f; }
  else if (ay <= ax) { r = atan_unit_f32(div_f32(ay, ax)); }
  else { r = 1.57079633f - atan_unit_f32(div_f32(ax, ay)); }
  if (x < 0.0f || (x == 0.0f && bitcast<u32>(x) != 0u)) { r = 3.14159265f - r; }
  return select(r, -r, bitcast<u32>(y) >= 0x80000000u);
}""", "isnan_f32", "atan_unit_f32", "div_f32")
_register("asin_f32", "fn asin_f32(x: f32) -> f32 { return atan2_f32(x, sqrt((1.0f - x) * (1.0f + x))); }",
          "atan2_f32")
_register("acos_f32", "fn acos_f32(x: f32) -> f32 { return atan2_f32(sqrt((1.0f - x) * (1.0f + x)), x); }",
          "atan2_f32")

# sin and cos: x = k pi/2 + r with |r| <= pi/4, polynomials on r, and the quadrant
# k mod 4 choosing signs and swaps. Below 1e5, pi/2 is split into three parts of 8
# significant bits and a float32 tail (Cody and Waite): k times each of the first three
# is exact while |k| < 2^16, and each subtraction is exact or rounds a value the size
# of r. (Parts of 8 and 12 bits were exact only to |x| ~ 6400: cos(9800.198) =
# -4.0686e-05 came out -4.0567e-05 on lavapipe, which does not fuse k * part into the
# subtraction as NVIDIA's compiler did.) From 1e5 on, `reduce_pio2_large_f32`.
# Native sin/cos are only specified on [-pi, pi] and on NVIDIA lose digits inside it
# (tan(1.5): 34 ulp).
_register("sincos_f32", f"""
fn sincos_f32(x: f32) -> vec2<f32> {{
  let small = abs(x) < 0.785398163f;
  var k = select(round(x * 0.636619747f), 0.0f, small);
  // Inside [-pi/4, pi/4] r is x itself (the reduction would turn -0.0 into +0.0).
  var r = select((((x - k * 1.5703125f) - k * 0.000484466552734375f) - k * -6.407499313354492e-07f)
                 - k * 9.92093629470503e-10f, x, small);
  if (abs(x) > 1.0e5f) {{
    let large = reduce_pio2_large_f32(x);
    r = large.x;
    k = large.y;
  }}
  let z = r * r;
  // sin r = r to float32 below |r| = 1e-4; the fma would turn -0.0 into +0.0.
  let s = select(fma(r * z, {_horner(SIN_QUARTER, "z")}, r), r, abs(r) < 0.0001f);
  let c = fma(z * z, {_horner(COS_QUARTER, "z")}, fma(-0.5f, z, 1.0f));
  let q = u32(i32(k)) & 3u;
  if (q == 0u) {{ return vec2<f32>(s, c); }}
  if (q == 1u) {{ return vec2<f32>(c, -s); }}
  if (q == 2u) {{ return vec2<f32>(-s, -c); }}
  return vec2<f32>(-c, s);
}}""", "reduce_pio2_large_f32")
# The 64-bit product of two u32 as (low word, high word), from 16-bit halves.
_register("mul_wide_u32", """
fn mul_wide_u32(a: u32, b: u32) -> vec2<u32> {
  let al = a & 0xffffu;
  let ah = a >> 16u;
  let bl = b & 0xffffu;
  let bh = b >> 16u;
  let lh = al * bh;
  let hl = ah * bl;
  let ll = al * bl;
  let mid = (ll >> 16u) + (lh & 0xffffu) + (hl & 0xffffu);
  return vec2<u32>((ll & 0xffffu) | (mid << 16u), ah * bh + (lh >> 16u) + (hl >> 16u) + (mid >> 16u));
}""")
def _two_over_pi(n: int) -> str:
    """The first `n` words of 2/pi's binary fraction as WGSL u32 literals."""
    return ", ".join(f"{w:#010x}u" for w in constants.two_over_pi_words(n))


# (r, k mod 4) with |x| = k pi/2 + r for any finite |x| >= 1e5 (Payne and Hanek): |x| is
# m 2^s with m a 24-bit integer, and |x| 2/pi = m 2^s (w0 2^-32 + w1 2^-64 + ...) with
# the words of 2/pi's binary expansion. The words before w_j, j = (s - 2) / 32, add
# multiples of 4 (whole turns) and are skipped; m times the next four is a 152-bit
# integer whose bits at 32 (j + 4) - s and up are k, and the 64 bits below it the
# fraction, rounded to the nearest quadrant. The words after those change r by less
# than 2^-70. inf gives NaN.
_register("reduce_pio2_large_f32", """
fn reduce_pio2_large_f32(x: f32) -> vec2<f32> {
  let bits = bitcast<u32>(x) & 0x7fffffffu;
  if (bits >= 0x7f800000u) { return vec2<f32>(bitcast<f32>(0x7fc00000u), 0.0f); }
  let s = i32(bits >> 23u) - 150;
  let m = (bits & 0x7fffffu) | 0x800000u;
  let j = max(s - 2, 0) / 32;
  var w = array<u32, 7>({words});
  var p = array<u32, 6>(0u, 0u, 0u, 0u, 0u, 0u);  // m * w[j..j+3], least significant word first
  var carry = 0u;
  for (var i = 0; i < 4; i++) {
    let product = mul_wide_u32(m, w[j + 3 - i]);
    p[i] = product.x + carry;
    carry = product.y + select(0u, 1u, p[i] < carry);
  }
  p[4] = carry;
  let point = 32 * (j + 4) - s;  // the bit where the integer part starts, 95 to 135
  var words = vec3<u32>();  // the fraction's low and high word, then k's bits
  for (var i = 0; i < 3; i++) {
    let at = point - 64 + 32 * i;
    let off = u32(at % 32);
    let upper = select(0u, p[at / 32 + 1] << (32u - off), off != 0u);
    words[i] = (p[at / 32] >> off) | upper;
  }
  var k = words.z & 3u;
  var lo = words.x;
  var hi = words.y;
  var sign = 1.0f;
  if (hi >= 0x80000000u) {  // a fraction of 1/2 or more: the next quadrant, r negative
    k = k + 1u;
    lo = ~lo + 1u;
    hi = ~hi + select(0u, 1u, lo == 0u);
    sign = -1.0f;
  }
  let f = f32(hi) * bitcast<f32>(0x2f800000u) + f32(lo) * bitcast<f32>(0x1f800000u);  // 2^-32, 2^-64
  let r = sign * f * 1.57079633f;
  if (x < 0.0f) { return vec2<f32>(-r, f32((4u - k) & 3u)); }
  return vec2<f32>(r, f32(k & 3u));
}""".replace("{words}", _two_over_pi(7)), "mul_wide_u32")
_register("sin_f32", "fn sin_f32(x: f32) -> f32 { return sincos_f32(x).x; }", "sincos_f32")
_register("cos_f32", "fn cos_f32(x: f32) -> f32 { return sincos_f32(x).y; }", "sincos_f32")
_register("tan_f32", "fn tan_f32(x: f32) -> f32 { let v = sincos_f32(x); return v.x / v.y; }", "sincos_f32")

# a / b. NVIDIA divides as a * (1 / b) with subnormals flushed, so 1 / b vanishes for
# |b| > 2^126 and 1e38 / 3e38 would be 0: such operands are scaled by 1/4 first. The
# quotient is then within WGSL's 2.5 ulp (correctly rounded on the software adapters).
_register("div_f32", """
fn div_f32(a: f32, b: f32) -> f32 {
  let s = select(1.0f, 0.25f, abs(b) > 8.5e37f);
  return (a * s) / (b * s);
}""")
# Truncating division needs more: 6 / 3 must not come out as 1.9999999 and truncate to
# 1. One fma residual step corrects the quotient where fma is fused (NVIDIA); where it
# is not (the software adapters), the native quotient is already correctly rounded and
# the residual of an integer quotient is exact, so integer results stay exact there too.
_register("div_trunc_f32", """
fn div_trunc_f32(a0: f32, b0: f32) -> f32 {
  let s = select(1.0f, 0.25f, abs(b0) > 8.5e37f);
  let a = a0 * s;
  let b = b0 * s;
  let q = a / b;
  let c = q + fma(-q, b, a) / b;
  return trunc(select(q, c, isfinite_f32(q) && q != 0.0f && isfinite_f32(c)));
}""", "isfinite_f32")


# Fused multiply-add. WGSL's fma need not fuse (lavapipe computes a * b + c with two
# roundings), so the fused result is built from an exact product (Dekker, the factors
# split by clearing their low 12 significand bits) and an exact sum (Knuth), s + t + e
# = a * b + c, rounded as s + (t + e) with t + e rounded to odd (where it is inexact, its
# last bit is set, toward what was lost): the sum then never lands on a tie that the
# exact value is not on, so it rounds once. (Either the sum s is exact, t = 0 and
# t + e = e is exact, or |s| >= |a * b| / 2 and t + e has at least 22 more bits than s.)
# Opaque copies keep compilers from cancelling the error terms. Where
# the product or sum is huge or not finite, or the product so small that its halves'
# products are subnormal, the plain a * b + c is returned (a product beyond float32's
# range is infinite here, not fused with an addend that brings it back).
_register("fma_normal_f32", """
fn fma_normal_f32(a: f32, b: f32, c: f32) -> f32 {
  let p = a * b;
  let s = p + c;
  let ah = bitcast<f32>(bitcast<u32>(a) & 0xfffff000u);
  let bh = bitcast<f32>(bitcast<u32>(b) & 0xfffff000u);
  let al = a - ah;
  let bl = b - bh;
  let po = opaque_f32(p);
  let e = (((ah * bh - po) + ah * bl) + al * bh) + al * bl;
  let so = opaque_f32(s);
  let v = opaque_f32(so - po);
  let t = (po - (so - v)) + (c - v);
  let x = t + e;
  let xo = opaque_f32(x);
  let z = opaque_f32(xo - t);
  let lost = (t - (xo - z)) + (e - z);
  let xb = bitcast<u32>(x);
  let toward = select(xb - 1u, xb + 1u, (lost > 0.0f) == (x > 0.0f));
  let odd = select(x, bitcast<f32>(toward), lost != 0.0f && x != 0.0f && (xb & 1u) == 0u);
  let fused = so + odd;
  let plain = abs(p) > 1.0e37f || abs(s) > 1.0e37f || abs(p) < 1.0e-30f || !isfinite_f32(s);
  // an infinite or NaN addend to finite factors is the result (the product may overflow)
  let addend = !isfinite_f32(c) && isfinite_f32(a) && isfinite_f32(b);
  return select(select(fused, s, plain), c, addend);
}""", "opaque_f32", "isfinite_f32")
# A product below 1e-30 (whose halves' products would be subnormal, and flushed: lavapipe
# rounded 1.849e-33 * -1.75 + 1.849e-33 twice) is fused with its smaller factor and the
# addend scaled by 2^64, then scaled back: exact both ways unless the result is subnormal.
# An addend of 1e18 or more leaves such a product below half its ulp: the plain sum is
# the fused one.
_register("fma_f32", """
fn fma_f32(a: f32, b: f32, c: f32) -> f32 {
  if (abs(a * b) < 1.0e-30f && abs(c) < 1.0e18f) {
    let up = 18446744073709551616.0f;
    let a_smaller = abs(a) < abs(b);
    let scaled = fma_normal_f32(select(a, a * up, a_smaller), select(b * up, b, a_smaller), c * up);
    return scaled * 5.42101086242752217e-20f;
  }
  return fma_normal_f32(a, b, c);
}""", "fma_normal_f32")


# tanh: the OpenGL backend returns -1 for NaN, and implementations built on sinh/cosh
# overflow for large |x|; tanh(10) already rounds to 1 in float32. lavapipe computes
# (e^2x - 1) / (e^2x + 1), which cancels near 0 (tanh(1e-7) came out 1.19e-7): below
# |x| = 0.55 the Taylor series to x^17 is used instead (truncation < 1e-8 relative).
_register("tanh_f32", f"""
fn tanh_f32(x: f32) -> f32 {{
  if (isnan_f32(x) || abs(x) < 0.0002f) {{ return x; }}  // tanh x = x to float32 (and -0)
  if (abs(x) < 0.55f) {{
    let z = x * x;
    return fma(x * z, {_horner(TANH_SERIES, "z")}, x);
  }}
  return tanh(clamp(x, -10.0f, 10.0f));
}}""", "isnan_f32")
# The same guards around the adapter's own tanh, where it is as accurate (native_math.py).
_register("tanh_native_f32", """
fn tanh_native_f32(x: f32) -> f32 {
  return select(tanh(clamp(x, -10.0f, 10.0f)), x, isnan_f32(x) || abs(x) < 0.0002f);
}""", "isnan_f32")
# Variants that may replace a helper, in order of preference, each where the adapter
# computes it as accurately (native_math.py).
NATIVE_VARIANTS = {"tanh_f32": ("tanh_native_f32",), "fma_f32": ("fma_native_f32", "fma_wide_f32")}
# The adapter's fma, where it fuses.
_register("fma_native_f32", "fn fma_native_f32(a: f32, b: f32, c: f32) -> f32 { return fma(a, b, c); }")
# The fused result through float64, where the adapter has it and its fma does not fuse
# (lavapipe: about 10 float64 operations against fma_f32's 30-odd float32 ones and
# guards). a * b is exact in float64 (48 significant bits); the sum rounds to odd (its
# last bit set where it is inexact, the error found by TwoSum through opaque copies), so
# rounding it to float32 rounds the exact a * b + c once.
_register("fma_wide_f32", """
fn fma_wide_f32(a: f32, b: f32, c: f32) -> f32 {
  let p = f64(a) * f64(b);
  let w = f64(c);
  let s = p + w;
  let so = opaque_f64(s);
  let pw = so - opaque_f64(w);
  let lost = (p - pw) + (w - (so - pw));
  let sb = bitcast<u64>(s);
  let toward = select(sb - 1lu, sb + 1lu, (lost > 0.0lf) == (s > 0.0lf));
  let odd = select(s, bitcast<f64>(toward), lost != 0.0lf && (sb & 1lu) == 0lu && s != 0.0lf);
  return f32(select(odd, s, !isfinite_f64(s)));
}""", "opaque_f64", "isfinite_f64")

# log(x) = e ln 2 + log(m) with x = 2^e m, m in [sqrt(1/2), sqrt(2)), and
# log(m) = 2 atanh(s), s = (m - 1) / (m + 1), |s| < 0.172, by its series to s^13. Near
# x = 1 the native log of the software adapters is 10^4 ulp off (log(0.9999679)); here
# m - 1 is exact. ln 2 is split as in exp_f32. log2 adds e to log(m) / ln 2, so powers of
# two are exact.
_register("log_parts_f32", f"""
fn log_parts_f32(x: f32) -> vec2<f32> {{
  var bits = bitcast<u32>(x);
  var e = 0i;
  if (bits < 0x00800000u) {{ bits = bitcast<u32>(x * 8388608.0f); e = -23i; }}
  e = e + i32((bits >> 23u) & 0xffu) - 127i;
  var m = bitcast<f32>((bits & 0x007fffffu) | 0x3f800000u);
  if (m > 1.41421356f) {{ m = m * 0.5f; e = e + 1i; }}
  let f = m - 1.0f;
  let s = f / (2.0f + f);
  let z = s * s;
  return vec2<f32>(f32(e), 2.0f * s * {_horner(ATANH_SERIES, "z")});
}}""")
# Zeros, negative numbers, infinity and NaN, told apart by their bits: a finite-math
# compiler may turn !(x > 0) into x <= 0 (false for NaN) and x == inf into false.
_register_float("log_special", """
fn log_special_$T(x: $T) -> bool { return bitcast<$U>(x) - $U(1) >= $INF - $U(1); }""")
_register_float("log_edge", """
fn log_edge_$T(x: $T) -> $T {
  let u = bitcast<$U>(x);
  if ((u & $MAGNITUDE) == $U(0)) { return bitcast<$T>($SIGN | $INF); }
  if (u == $INF) { return x; }
  return bitcast<$T>($NAN);
}""")
_register_float("log", """
fn log_$T(x: $T) -> $T {
  if (log_special_$T(x)) { return log_edge_$T(x); }
  let p = log_parts_$T(x);
  return p.x * $LN2_HI + (p.y + p.x * $LN2_LO);
}""", "log_special_$T", "log_edge_$T", "log_parts_$T")
_register_float("log2", """
fn log2_$T(x: $T) -> $T {
  if (log_special_$T(x)) { return log_edge_$T(x); }
  let p = log_parts_$T(x);
  return p.x + p.y * $LOG2E;
}""", "log_special_$T", "log_edge_$T", "log_parts_$T")


# -- float64 exp and log: WGSL's (SPIR-V's GLSL.std.450) exp and log take 16- and 32-bit
# floats only, so float64 computes them from arithmetic and its bits (u64). exp as
# exp_f32 (n = round(x / ln 2), r = x - n ln 2 with ln 2 in a head of 32 bits, exact
# times n, and a tail, the steps kept apart by `opaque`), then e^r by its Taylor series
# to r^13 (|r| <= 0.347: 0.347^14 / 14! < 2^-60); log as log_f32, with the series to
# s^23 (|s| < 0.172: s^24 < 2^-61). 2^n scales in two exact halves, for subnormal results.
_register("times_pow2_f64", """
fn times_pow2_f64(y: f64, k: i32) -> f64 {
  let h = k / 2;
  return y * bitcast<f64>(u64(h + 1023) << 52u) * bitcast<f64>(u64(k - h + 1023) << 52u);
}""")
_register("exp_reduced_f64", f"""
fn exp_reduced_f64(r: f64) -> f64 {{ return {_horner(EXP_SERIES_F64, "r", "lf")}; }}""")
_register("exp_f64", """
fn exp_f64(x: f64) -> f64 {
  if (isnan_f64(x)) { return x; }
  if (x > 709.782712893384lf) { return bitcast<f64>(0x7ff0000000000000lu); }
  if (x < -745.1332191019412lf) { return 0.0lf; }
  let n = round(x * 1.4426950408889634lf);
  let r = opaque_f64(x - n * 0.6931471803691238lf) - n * 1.9082149292705877e-10lf;
  return times_pow2_f64(exp_reduced_f64(r), i32(n));
}""", "isnan_f64", "times_pow2_f64", "exp_reduced_f64", "opaque_f64")
_register("exp2_f64", """
fn exp2_f64(x: f64) -> f64 {
  if (isnan_f64(x)) { return x; }
  if (x > 1024.0lf) { return bitcast<f64>(0x7ff0000000000000lu); }
  if (x < -1075.0lf) { return 0.0lf; }
  let n = round(x);
  let f = x - n;
  return times_pow2_f64(exp_reduced_f64(fma(f, 0.6931471805599453lf, f * 2.3190468138462996e-17lf)), i32(n));
}""", "isnan_f64", "times_pow2_f64", "exp_reduced_f64")
# x = 2^e m with m in [sqrt(1/2), sqrt(2)), as (m, e), for finite x > 0 (subnormals
# scaled by 2^54 first): the split both float64 logs start from.
_register("log_split_f64", """
fn log_split_f64(x: f64) -> vec2<f64> {
  var bits = bitcast<u64>(x);
  var e = 0i;
  if (bits < 0x0010000000000000lu) { bits = bitcast<u64>(x * 18014398509481984.0lf); e = -54i; }
  e = e + i32((bits >> 52u) & 0x7fflu) - 1023i;
  var m = bitcast<f64>((bits & 0x000ffffffffffffflu) | 0x3ff0000000000000lu);
  if (m > 1.4142135623730951lf) { m = m * 0.5lf; e = e + 1i; }
  return vec2<f64>(m, f64(e));
}""")
_register("log_parts_f64", f"""
fn log_parts_f64(x: f64) -> vec2<f64> {{
  let split = log_split_f64(x);
  let f = split.x - 1.0lf;
  let s = f / (2.0lf + f);
  let z = s * s;
  return vec2<f64>(split.y, 2.0lf * s * {_horner(ATANH_SERIES_F64, "z", "lf")});
}}""", "log_split_f64")
# tanh x = e / (e + 2) with e = expm1(2|x|), the sign put back; expm1 below 0.5 by its
# Taylor series to x^17 (0.5^17 / 18! < 2^-68), above as exp - 1 (e > 1.7: no
# cancellation). tanh is +-1 to float64 beyond 19.1, where e would overflow first.
_register("expm1_f64", f"""
fn expm1_f64(x: f64) -> f64 {{
  if (abs(x) < 0.5lf) {{ return x * {_horner(EXPM1_SERIES_F64, "x", "lf")}; }}
  return exp_f64(x) - 1.0lf;
}}""", "exp_f64")
_register("tanh_f64", """
fn tanh_f64(x: f64) -> f64 {
  if (isnan_f64(x)) { return x; }
  let a = abs(x);
  var t = 1.0lf;
  if (a < 19.1lf) {
    let e = expm1_f64(2.0lf * a);
    t = e / (e + 2.0lf);
  }
  return select(t, -t, bitcast<u64>(x) >= 0x8000000000000000lu);  // tanh(-0) = -0
}""", "isnan_f64", "expm1_f64")

# -- float64 sin, cos, tan and their inverses, from arithmetic and u64 bits as exp_f64.
# Products that must be exact split their factors by clearing the low 27 significand bits
# (26 and 27 bits: Dekker's product, to about 2^-105; no Veltkamp split, which fma
# contraction breaks); `opaque` keeps the compiler from cancelling the error terms.
_register("two_prod_f64", """
fn two_prod_f64(a: f64, b: f64) -> vec2<f64> {
  let p = opaque_f64(a * b);
  let ah = bitcast<f64>(bitcast<u64>(a) & 0xfffffffff8000000lu);
  let bh = bitcast<f64>(bitcast<u64>(b) & 0xfffffffff8000000lu);
  let al = a - ah;
  let bl = b - bh;
  return vec2<f64>(p, (((ah * bh - p) + ah * bl) + al * bh) + al * bl);
}""", "opaque_f64")


def _wgsl_f64(value: float) -> str:
    return f"{value!r}lf"


# (r, r_lo, k mod 4) with |x| = k pi/2 + r + r_lo for any |x| >= pi/4 (Payne and Hanek,
# as reduce_pio2_large_f32): |x| = m 2^s with m a 53-bit integer, m times the seven words
# of 2/pi from w_j, j = (s - 2) / 32, is a 288-bit integer (the earlier words add whole
# turns) whose bits from 32 (j + 7) - s up are k and the 128 below it the fraction (at
# least 65 significant bits where |x| is nearest a multiple of pi/2: 2^-61 away), rounded
# to the nearest quadrant, then times pi/2 in two parts. inf and NaN give NaN.
_register("reduce_pio2_f64", f"""
fn reduce_pio2_f64(x: f64) -> vec3<f64> {{
  let bits = bitcast<u64>(x) & 0x7ffffffffffffffflu;
  if (bits >= 0x7ff0000000000000lu) {{ return vec3<f64>(f64(bitcast<f32>(0x7fc00000u)), 0.0lf, 0.0lf); }}
  let s = i32(bits >> 52u) - 1075;
  let m = (bits & 0x000ffffffffffffflu) | 0x0010000000000000lu;
  let m0 = m & 0xfffffffflu;
  let m1 = m >> 32u;
  let j = max(s - 2, 0) / 32;
  var w = array<u32, 37>({_two_over_pi(37)});
  var p = array<u32, 11>();  // m * w[j..j+6], least significant word first
  for (var i = 0; i < 7; i++) {{
    let wi = u64(w[j + 6 - i]);
    let low = m0 * wi + u64(p[i]);
    p[i] = u32(low & 0xfffffffflu);
    let high = m1 * wi + u64(p[i + 1]) + (low >> 32u);
    p[i + 1] = u32(high & 0xfffffffflu);
    p[i + 2] = u32(high >> 32u);
  }}
  let point = 32 * (j + 7) - s;  // the bit where the integer part starts, 191 to 277
  var words = array<u64, 3>();  // the fraction's low and high 64 bits, then k's bits
  for (var i = 0; i < 3; i++) {{
    let at = point - 128 + 64 * i;
    let off = u32(at % 32);
    let low = u64(p[at / 32]) | (u64(p[at / 32 + 1]) << 32u);
    words[i] = select(low, (low >> off) | (u64(p[at / 32 + 2]) << (64u - off)), off != 0u);
  }}
  var k = u32(words[2] & 3lu);
  var lo = words[0];
  var hi = words[1];
  var sign = 1.0lf;
  if (hi >= 0x8000000000000000lu) {{  // a fraction of 1/2 or more: the next quadrant, r negative
    k = k + 1u;
    lo = ~lo + 1lu;
    hi = ~hi + select(0lu, 1lu, lo == 0lu);
    sign = -1.0lf;
  }}
  // The fraction hi 2^-64 + lo 2^-128 as f + f_lo: a holds its top 53 bits, b the next 53
  // and c the last 22, each exact; a + (b + c) in two exact two-sums.
  let a = f64(hi >> 11u) * {_wgsl_f64(2.0 ** -53)};
  let b = f64(((hi & 0x7fflu) << 42u) | (lo >> 22u)) * {_wgsl_f64(2.0 ** -106)};
  let c = f64(lo & 0x3ffffflu) * {_wgsl_f64(2.0 ** -128)};
  let t = b + c;
  let t_lo = (b - opaque_f64(t)) + c;
  let f = a + t;
  let f_lo = ((a - opaque_f64(f)) + t) + t_lo;
  let product = two_prod_f64(f, {_wgsl_f64(constants.PIO2[0])});
  let tail = product.y + (f * {_wgsl_f64(constants.PIO2[1])} + f_lo * {_wgsl_f64(constants.PIO2[0])});
  let r = product.x + tail;
  let r_lo = (product.x - opaque_f64(r)) + tail;
  if (x < 0.0lf) {{ return vec3<f64>(-sign * r, -sign * r_lo, f64((4u - k) & 3u)); }}
  return vec3<f64>(sign * r, sign * r_lo, f64(k & 3u));
}}""", "opaque_f64", "two_prod_f64")
# sin and cos of r + r_lo, |r| <= pi/4, by their Taylor series (to r^21 and r^22:
# (pi/4)^23 / 23! < 2^-82), then the quadrant as sincos_f32. cos is w + ((1 - w) - r^2/2
# + ...) with w = 1 - r^2/2, which keeps w's rounding error. Below 2^-26, sin x = x
# (and keeps -0.0) and cos x = 1 to float64.
SIN_SERIES_F64 = tuple((-1) ** k / math.factorial(2 * k + 1) for k in range(1, 11))
COS_SERIES_F64 = tuple((-1) ** k / math.factorial(2 * k) for k in range(2, 12))
_register("sincos_f64", f"""
fn sincos_f64(x: f64) -> vec2<f64> {{
  let bits = bitcast<u64>(x) & 0x7ffffffffffffffflu;
  if (bits < 0x3e50000000000000lu) {{ return vec2<f64>(x, 1.0lf); }}  // |x| < 2^-26
  var r = x;
  var r_lo = 0.0lf;
  var k = 0u;
  if (bits > 0x3fe921fb54442d18lu) {{  // |x| > pi/4, inf and NaN
    let reduced = reduce_pio2_f64(x);
    r = reduced.x;
    r_lo = reduced.y;
    k = u32(reduced.z);
  }}
  let z = r * r;
  let s = r + (r * z * {_horner(SIN_SERIES_F64, "z", "lf")} + r_lo * (1.0lf - 0.5lf * z));
  let hz = 0.5lf * z;
  let w = 1.0lf - hz;
  let c = w + (((1.0lf - opaque_f64(w)) - hz) + (z * z * {_horner(COS_SERIES_F64, "z", "lf")} - r * r_lo));
  if (k == 0u) {{ return vec2<f64>(s, c); }}
  if (k == 1u) {{ return vec2<f64>(c, -s); }}
  if (k == 2u) {{ return vec2<f64>(-s, -c); }}
  return vec2<f64>(-c, s);
}}""", "reduce_pio2_f64", "opaque_f64")
_register("sin_f64", "fn sin_f64(x: f64) -> f64 { return sincos_f64(x).x; }", "sincos_f64")
_register("cos_f64", "fn cos_f64(x: f64) -> f64 { return sincos_f64(x).y; }", "sincos_f64")
_register("tan_f64", "fn tan_f64(x: f64) -> f64 { let v = sincos_f64(x); return v.x / v.y; }", "sincos_f64")
# atan on [0, 1]: atan t = atan(k/8) + atan u with k = round(8t) and
# u = (t - k/8) / (1 + t k/8), |u| <= 1/16, atan u by its Taylor series to u^17
# ((1/16)^19 / 19 < 2^-80); atan(k/8) in two parts (`constants.ATAN_EIGHTHS`).
ATAN_SERIES_F64 = tuple((-1) ** k / (2 * k + 1) for k in range(1, 9))
_ATAN_EIGHTHS_F64 = ", ".join(f"vec2<f64>({_wgsl_f64(hi)}, {_wgsl_f64(lo)})"
                              for hi, lo in constants.ATAN_EIGHTHS)
_PIO2_F64 = tuple(map(_wgsl_f64, constants.PIO2))
_PI_F64 = tuple(map(_wgsl_f64, constants.PI))
_register("atan_unit_f64", f"""
fn atan_unit_f64(t: f64) -> f64 {{
  let k = round(t * 8.0lf);
  let c = k * 0.125lf;
  let u = (t - c) / (1.0lf + t * c);
  let u2 = u * u;
  var eighths = array<vec2<f64>, 9>({_ATAN_EIGHTHS_F64});
  let a = eighths[i32(k)];
  return a.x + (a.y + (u + u * u2 * {_horner(ATAN_SERIES_F64, "u2", "lf")}));
}}""")
_register("atan_f64", f"""
fn atan_f64(x: f64) -> f64 {{
  if (isnan_f64(x)) {{ return x; }}
  let t = abs(x);
  let r = select({_PIO2_F64[0]} - (atan_unit_f64(1.0lf / t) - {_PIO2_F64[1]}), atan_unit_f64(t), t <= 1.0lf);
  return select(r, -r, bitcast<u64>(x) >= 0x8000000000000000lu);  // atan(-0) = -0
}}""", "isnan_f64", "atan_unit_f64")
_register("atan2_f64", f"""
fn atan2_f64(y: f64, x: f64) -> f64 {{
  if (isnan_f64(x) || isnan_f64(y)) {{ return f64(bitcast<f32>(0x7fc00000u)); }}
  let ax = abs(x);
  let ay = abs(y);
  var r = 0.0lf;
  if (bitcast<u64>(ax) == 0x7ff0000000000000lu && bitcast<u64>(ay) == 0x7ff0000000000000lu) {{
    r = {_wgsl_f64(math.pi / 4)};
  }} else if (bitcast<u64>(ay) == 0lu) {{ r = 0.0lf; }}
  else if (ay <= ax) {{ r = atan_unit_f64(ay / ax); }}
  else {{ r = {_PIO2_F64[0]} - (atan_unit_f64(ax / ay) - {_PIO2_F64[1]}); }}
  if (bitcast<u64>(x) >= 0x8000000000000000lu) {{ r = {_PI_F64[0]} - (r - {_PI_F64[1]}); }}  // x < 0 or -0
  return select(r, -r, bitcast<u64>(y) >= 0x8000000000000000lu);
}}""", "isnan_f64", "atan_unit_f64")
_register("asin_f64", "fn asin_f64(x: f64) -> f64 { return atan2_f64(x, sqrt((1.0lf - x) * (1.0lf + x))); }",
          "atan2_f64")
_register("acos_f64", "fn acos_f64(x: f64) -> f64 { return atan2_f64(sqrt((1.0lf - x) * (1.0lf + x)), x); }",
          "atan2_f64")


# float64 x^y for finite x > 0 and finite y (the lowering handles IEEE pow's other cases):
# 2^(y log2 x) with log2 x and its product with y carried in two parts, as the lowering's
# float32 `_pow_magnitude` (one float64 log2 loses |y log2 x| ulps: 180 at 2^300), with
# float64's exact products (two_prod_f64), longer series, and 2^n for
# |n| <= 2046 (beyond, the result is 0 or inf whatever the rest).
# Both the sum and s - a pass through `opaque`: with s - a visible, reassociation turns
# a - (s - (s - a)) into 0 and loses the error term.
_register("two_sum_f64", """
fn two_sum_f64(a: f64, b: f64) -> vec2<f64> {
  let s = opaque_f64(a + b);
  let bb = opaque_f64(s - a);
  return vec2<f64>(s, (a - (s - bb)) + (b - bb));
}""", "opaque_f64")
POW_ATANH_F64 = tuple(2 / k for k in range(5, 35, 2))  # 2/5 + 2s/7 + ... to s^14
POW_EXPM1_F64 = tuple(1 / math.factorial(k) for k in range(2, 19))  # (e^r - 1 - r) / r^2
_register("log2_parts_f64", f"""
fn log2_parts_f64(x: f64) -> vec2<f64> {{
  let split = log_split_f64(x);
  let m = split.x;
  let f = m - 1.0lf;
  let g = two_sum_f64(1.0lf, m);
  let u = f / g.x;
  let ug = two_prod_f64(u, g.x);
  // (f - u g) / g; f - u g_hi kept apart from its error term (NVIDIA's compiler turned
  // (f - p) - e into f - (p + e), which rounds e away: pow was 282 ulp off on an H100)
  let u_lo = ((opaque_f64(f - ug.x) - ug.y) - u * g.y) / g.x;
  let s = two_prod_f64(u, u);
  let series_lo = {_wgsl_f64(constants.TWO_THIRDS[1])} + s.x * {_horner(POW_ATANH_F64, "s.x", "lf")};
  let c = two_prod_f64(u, s.x);  // (u + u_lo)^3
  let c_lo = c.y + u * s.y + 3.0lf * s.x * u_lo;
  let t = two_prod_f64(c.x, {_wgsl_f64(constants.TWO_THIRDS[0])});
  let t_lo = t.y + c.x * series_lo + c_lo * {_wgsl_f64(constants.TWO_THIRDS[0])};
  let ln = two_sum_f64(2.0lf * u, t.x);
  let ln_lo = ln.y + (2.0lf * u_lo + t_lo);
  let l = two_prod_f64(ln.x, {_wgsl_f64(constants.LOG2E[0])});
  let l_lo = l.y + (ln_lo * {_wgsl_f64(constants.LOG2E[0])} + ln.x * {_wgsl_f64(constants.LOG2E[1])});
  let h = two_sum_f64(split.y, l.x);
  return two_sum_f64(h.x, h.y + l_lo);
}}""", "log_split_f64", "two_sum_f64", "two_prod_f64", "opaque_f64")
_register("pow_f64", f"""
fn pow_f64(x: f64, y: f64) -> f64 {{
  let l = log2_parts_f64(x);
  let product = two_prod_f64(y, l.x);
  if (abs(product.x) >= 2200.0lf) {{  // (or inf) 2^n beyond float64 whatever the rest
    return select(bitcast<f64>(0x7ff0000000000000lu), 0.0lf, product.x < 0.0lf);
  }}
  let p = two_sum_f64(product.x, product.y + y * l.y);
  let n = round(p.x);
  let f = p.x - n;  // exact
  let r = two_prod_f64(f, {_wgsl_f64(constants.LN2[0])});
  let r_lo = r.y + (f * {_wgsl_f64(constants.LN2[1])} + p.y * {_wgsl_f64(constants.LN2[0])});
  let small = r.x + (r.x * r.x) * {_horner(POW_EXPM1_F64, "r.x", "lf")};  // e^r - 1
  let two_f = 1.0lf + ((small + r_lo) + r_lo * small);
  return times_pow2_f64(two_f, i32(clamp(n, -2044.0lf, 2046.0lf)));
}}""", "log2_parts_f64", "two_prod_f64", "two_sum_f64", "times_pow2_f64")


# float64 erf and erfc. Below 1/2, erf x = x P(x^2) by its Taylor series (to x^27:
# 0.25^14 / (14! 29) < 2^-90) and erfc = 1 - erf. Above, erfc x = e^(-x^2) erfcx(x),
# e^(-x^2) with x^2 in two parts, and erfcx (= erfc e^(x^2), smooth) by its Taylor series
# at the nearest eighth up to 2.5 (the coefficients by erfcx' = 2x erfcx - 2/sqrt(pi),
# a(n+1) = (2c a(n) + 2 a(n-1)) / (n + 1), from erfcx(c) in two parts), beyond by its
# continued fraction 1 / sqrt(pi) / (x + (1/2) / (x + 1 / (x + (3/2) / ...))) to 40 terms
# (both within 1 ulp of mpmath on their intervals); erf = 1 - erfc there.
ERF_SERIES_F64 = tuple(2 / math.sqrt(math.pi) * (-1) ** n / (math.factorial(n) * (2 * n + 1))
                       for n in range(14))
_ERFCX_EIGHTHS_F64 = ", ".join(f"vec2<f64>({_wgsl_f64(hi)}, {_wgsl_f64(lo)})"
                               for hi, lo in constants.ERFCX_EIGHTHS)
_register("erfcx_f64", f"""
fn erfcx_f64(x: f64) -> f64 {{
  if (x < 2.5lf) {{
    let k = round((x - 0.5lf) * 8.0lf);
    let c = 0.5lf + k * 0.125lf;
    let d = x - c;
    var centers = array<vec2<f64>, 17>({_ERFCX_EIGHTHS_F64});
    let a0 = centers[i32(k)];
    var previous = a0.x;
    var a = 2.0lf * c * a0.x - {_wgsl_f64(2 * constants.RSQRT_PI[0])};
    var power = 1.0lf;
    var sum = a;
    for (var n = 1; n < 15; n++) {{
      let next = (2.0lf * c * a + 2.0lf * previous) / f64(n + 1);
      previous = a;
      a = next;
      power = power * d;
      sum = sum + a * power;
    }}
    return a0.x + (a0.y + sum * d);
  }}
  var fraction = 0.0lf;
  for (var n = 40; n > 0; n--) {{ fraction = f64(n) * 0.5lf / (x + fraction); }}
  return {_wgsl_f64(constants.RSQRT_PI[0])} / (x + fraction);
}}""")
_register("erfc_tail_f64", """
fn erfc_tail_f64(ax: f64) -> f64 {
  let square = two_prod_f64(ax, ax);
  return exp_f64(-square.x) * (1.0lf - square.y) * erfcx_f64(ax);
}""", "two_prod_f64", "exp_f64", "erfcx_f64")
_register("erf_small_f64", f"""
fn erf_small_f64(x: f64) -> f64 {{
  let x2 = x * x;
  return x * {_horner(ERF_SERIES_F64, "x2", "lf")};
}}""")
_register("erf_f64", """
fn erf_f64(x: f64) -> f64 {
  let ax = abs(x);
  if (isnan_f64(x) || ax < 0.5lf) { return erf_small_f64(x); }
  let y = select(1.0lf - erfc_tail_f64(ax), 1.0lf, ax > 6.0lf);  // erfc 6 < 2^-54
  return select(y, -y, x < 0.0lf);
}""", "isnan_f64", "erf_small_f64", "erfc_tail_f64")
_register("erfc_f64", """
fn erfc_f64(x: f64) -> f64 {
  if (isnan_f64(x)) { return x; }
  let ax = abs(x);
  if (ax < 0.5lf) { return 1.0lf - erf_small_f64(x); }
  if (x > 27.3lf) { return 0.0lf; }  // below the smallest subnormal
  if (x < -6.0lf) { return 2.0lf; }
  let y = erfc_tail_f64(ax);
  return select(y, 2.0lf - y, x < 0.0lf);
}""", "isnan_f64", "erf_small_f64", "erfc_tail_f64")


def _threefry_code() -> str:
    lines = ["fn threefry2x32(k: vec2<u32>, c: vec2<u32>) -> vec2<u32> {",
             "  let ks = array<u32, 3>(k.x, k.y, k.x ^ k.y ^ 0x1BD11BDAu);",
             "  var x0 = c.x + ks[0];",
             "  var x1 = c.y + ks[1];"]
    for block in range(5):
        for r in THREEFRY_ROTATIONS[block % 2]:
            lines.append(f"  x0 = x0 + x1; x1 = ((x1 << {r}u) | (x1 >> {32 - r}u)) ^ x0;")
        lines.append(f"  x0 = x0 + ks[{(block + 1) % 3}]; x1 = x1 + ks[{(block + 2) % 3}] + {block + 1}u;")
    lines += ["  return vec2<u32>(x0, x1);", "}"]
    return "\n".join(lines)


_register("threefry2x32", _threefry_code())
