"""WGSL helper functions, emitted into a shader only when its code uses them.

WGSL leaves several results to the implementation that jaxwg defines exactly (see
`jaxwg.core.alu`): NaN in comparisons and min/max, float-to-int conversion out of
range, float remainder. Each helper here implements one of those definitions for
one WGSL type; `WgslBuilder.need(name)` pulls it (and its dependencies) into the
preamble. Names are `<what>_<wgsl type>`, e.g. `isnan_f32`, `fmin_f16`.

NaN is detected from the bit pattern, not with `x != x`, which shader compilers
that assume finite math may fold to false. float16 and float64 have no same-width
unsigned type in WGSL, so their NaN test converts to float32 (f16; exact) or uses
the comparison (f64; Vulkan drivers keep it).

>>> print(HELPERS["isnan_f32"].code)
fn isnan_f32(x: f32) -> bool { return (bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u; }
"""

from __future__ import annotations

from dataclasses import dataclass

from ...core.alu_eval import THREEFRY_ROTATIONS
from .erf_coefficients import ERF_SMALL, ERFC_LARGE


@dataclass(frozen=True)
class Helper:
    code: str
    deps: tuple[str, ...] = ()


HELPERS: dict[str, Helper] = {}


def _register(name: str, code: str, *deps: str) -> None:
    HELPERS[name] = Helper(code.strip("\n"), deps)


_register("isnan_f32", "fn isnan_f32(x: f32) -> bool { return (bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u; }")
_register("isnan_f16", "fn isnan_f16(x: f16) -> bool { return isnan_f32(f32(x)); }", "isnan_f32")
_register("isnan_f64", "fn isnan_f64(x: f64) -> bool { return x != x; }")

for _t in ("f16", "f32", "f64"):
    # min/max that propagate NaN, like np.minimum (WGSL's min/max may drop it).
    for _fn in ("min", "max"):
        _register(f"f{_fn}_{_t}", f"""
fn f{_fn}_{_t}(a: {_t}, b: {_t}) -> {_t} {{
  return select({_fn}(a, b), a + b, isnan_{_t}(a) || isnan_{_t}(b));
}}""", f"isnan_{_t}")
    # a != b that is true when either side is NaN, whatever the compiler assumes.
    _register(f"fne_{_t}", f"""
fn fne_{_t}(a: {_t}, b: {_t}) -> bool {{ return a != b || isnan_{_t}(a) || isnan_{_t}(b); }}""",
              f"isnan_{_t}")

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
  return select(r, -r, a < 0.0f || (a == 0.0f && bitcast<u32>(a) != 0u));
}""", "isnan_f32")
_register("fmod_f16", "fn fmod_f16(a: f16, b: f16) -> f16 { return f16(fmod_f32(f32(a), f32(b))); }",
          "fmod_f32")
# float64 has no exponent extraction without 64-bit integers in WGSL; the textbook
# formula is exact while |a / b| < 2^53.
_register("fmod_f64", "fn fmod_f64(a: f64, b: f64) -> f64 { return a - b * trunc(a / b); }")

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


def _horner(coefficients: tuple[float, ...], var: str) -> str:
    """WGSL text evaluating sum(c[i] * var**i) by Horner's rule."""
    text = f"{coefficients[-1]!r}f"
    for c in reversed(coefficients[:-1]):
        text = f"fma({text}, {var}, {c!r}f)"
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
