"""Every AluExp op on every dtype it accepts: WebGPU and CPU against NumPy's semantics.

Inputs come from hypothesis plus the special values of the dtype (NaN, infinities,
-0.0, integer extremes). Integer and bool results must match bit for bit; float
math within a per-op ulp bound (absolute bound near zero, where ulps mean little).
"""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from jaxwg.backend.webgpu.builder import WgslBuilder
from jaxwg.backend.webgpu.codegen import ExpCodegen
from jaxwg.core import alu
from jaxwg.core import dtypes as dt
from jaxwg.core.alu import Op
from jaxwg.core.kernel import Kernel

from .helpers import (
    FLOAT_SPECIALS,
    assert_close_ulps,
    assert_equal_values,
    reference,
    run_kernel,
    with_specials,
)

N = 48  # hypothesis values per example; a fixed size keeps one pipeline per test


def values(dtype: dt.DType, lo=None, hi=None):
    """Arrays of N values of `dtype`, optionally within [lo, hi]."""
    if dtype.is_float:
        width = dtype.bits
        kw = dict(allow_nan=lo is None, allow_infinity=lo is None, allow_subnormal=False, width=width)
        if lo is not None:  # bounds representable at this width, as hypothesis requires
            kw.update(min_value=float(dtype.np.type(lo)), max_value=float(dtype.np.type(hi)))
        return arrays(dtype.np, N, elements=st.floats(**kw))
    if dtype.is_bool:
        return arrays(dtype.np, N, elements=st.booleans())
    lo_, hi_ = dt.bounds(dtype)
    return arrays(dtype.np, N, elements=st.integers(lo if lo is not None else lo_, hi if hi is not None else hi_))


# op -> (domain (lo, hi) or None, ulps, atol) for float math; exact ops have ulps 0.
FLOAT_UNARY = {
    Op.NEG: (None, 0, 0), Op.ABS: (None, 0, 0), Op.FLOOR: (None, 0, 0), Op.CEIL: (None, 0, 0),
    Op.ROUND: (None, 0, 0), Op.TRUNC: (None, 0, 0),
    Op.SQRT: (None, 2, 0), Op.RECIPROCAL: (None, 2, 0),
    Op.EXP: ((-80, 80), 16, 0), Op.EXP2: ((-120, 120), 16, 0),
    Op.LOG: ((0, 1e30), 8, 1e-6), Op.LOG2: ((0, 1e30), 8, 1e-6),
    Op.SIN: ((-10, 10), 8, 2e-6), Op.COS: ((-10, 10), 8, 2e-6), Op.TAN: ((-1.5, 1.5), 16, 2e-6),
    Op.ASIN: ((-1.2, 1.2), 8, 1e-6), Op.ACOS: ((-1.2, 1.2), 8, 1e-6), Op.ATAN: (None, 8, 1e-6),
    Op.TANH: ((-20, 20), 8, 1e-6), Op.ERF: ((-6, 6), 8, 1e-7), Op.ERFC: ((-6, 6), 64, 1e-30),
}
FLOAT_BINARY = {
    Op.ADD: 0, Op.SUB: 0, Op.MUL: 0, Op.DIV: 2, Op.IDIV: 0, Op.MOD: 0, Op.MIN: 0, Op.MAX: 0, Op.ATAN2: 8,
}
INT_UNARY = [Op.NEG, Op.NOT, Op.ABS]
INT_BINARY = [Op.ADD, Op.SUB, Op.MUL, Op.IDIV, Op.MOD, Op.MIN, Op.MAX, Op.AND, Op.OR, Op.XOR, Op.SHL, Op.SHR]
BOOL_BINARY = [Op.ADD, Op.MUL, Op.MIN, Op.MAX, Op.AND, Op.OR, Op.XOR]
# float16 math on the GPU runs at half precision: bounds scale up.
F16_ULPS = 4
# WebGPU has no float64 transcendentals (SPIR-V's GLSL.std.450 set is 16/32-bit only).
F64_WEBGPU = {Op.NEG, Op.ABS, Op.FLOOR, Op.CEIL, Op.ROUND, Op.TRUNC, Op.SQRT, Op.RECIPROCAL,
              Op.ADD, Op.SUB, Op.MUL, Op.DIV, Op.IDIV, Op.MOD, Op.MIN, Op.MAX}


def load(arg, dtype, n):
    return alu.load(arg, dtype, alu.gidx(n))


def check(backend, kernel, inputs, ulps=0, atol=0.0, context=""):
    expected = reference(kernel, inputs)
    actual = run_kernel(backend, kernel, inputs)
    if kernel.dtype.is_float:
        assert_close_ulps(actual, expected, ulps, atol, context)
    else:
        assert_equal_values(actual, expected, context)


def skip_unsupported(backend, dtype, op=None):
    if not backend.supports(dtype):
        pytest.skip(f"{backend.describe()} lacks {dtype}")
    if backend.name == "webgpu" and dtype is dt.float64 and op is not None and op not in F64_WEBGPU:
        pytest.skip(f"{op.value} on float64 has no WebGPU implementation")


@pytest.mark.parametrize("dtype", dt.FLOATS, ids=str)
@pytest.mark.parametrize("op", list(FLOAT_UNARY), ids=lambda o: o.value)
@given(data=st.data())
def test_float_unary(backend, op, dtype, data):
    skip_unsupported(backend, dtype, op)
    domain, ulps, atol = FLOAT_UNARY[op]
    if dtype is dt.float16 and domain and domain[1] > 60000:
        domain = (domain[0], 60000)
    x = with_specials(data.draw(values(dtype, *(domain or (None, None)))), dtype, domain)
    k = Kernel(1, x.size, alu.unary(op, load(0, dtype, x.size)))
    ulps = ulps * (F16_ULPS if dtype is dt.float16 else 1)
    check(backend, k, [x], ulps, atol if dtype is not dt.float16 else max(atol, 1e-3), f"{op.value} {dtype}")


@pytest.mark.parametrize("dtype", dt.FLOATS, ids=str)
@pytest.mark.parametrize("op", list(FLOAT_BINARY), ids=lambda o: o.value)
@given(data=st.data())
def test_float_binary(backend, op, dtype, data):
    skip_unsupported(backend, dtype, op)
    a = with_specials(data.draw(values(dtype)), dtype)
    b = with_specials(data.draw(values(dtype)), dtype)[::-1].copy()
    k = Kernel(2, a.size, alu.binary(op, load(0, dtype, a.size), load(1, dtype, a.size)))
    if op is Op.IDIV:
        # Integer quotients must be exact (floor division builds on them); from 2^mantissa
        # on every float is an integer, so the ulp GPU division may be off by (WGSL
        # allows 2.5) shows in the truncated quotient: 3 / 2.7300987e-07 = 10988614.35
        # came out 10988613 on lavapipe.
        # A quotient within a few ulp below an integer may round up to it first (native
        # division is allowed 2.5 ulp, and a residual step rounded without fused fma, as
        # on lavapipe, can push a correct 2638780.75 to 2638781): there the truncation
        # may be one more. Exact integer quotients and all others must be exact.
        expected, actual = reference(k, [a, b]), run_kernel(backend, k, [a, b])
        big = np.abs(expected) >= 2.0 ** np.finfo(dtype.np).nmant
        with np.errstate(all="ignore"):
            exact = a.astype(np.float64) / b.astype(np.float64)
            gap = np.abs(np.trunc(exact) + np.sign(exact) - exact)  # to the next integer out
            near = gap <= 3 * np.spacing(np.abs(exact).astype(dtype.np)).astype(np.float64)
        loose = ~big & near & np.isfinite(exact)
        assert_close_ulps(actual[~big & ~loose], expected[~big & ~loose], 0, 0, "idiv exact range")
        assert np.all(np.abs(actual[loose].astype(np.float64) - expected[loose]) <= 1), "idiv near an integer"
        assert_close_ulps(actual[big], expected[big], 2, 0, "idiv beyond integers")
        return
    check(backend, k, [a, b], FLOAT_BINARY[op], 1e-6 if FLOAT_BINARY[op] else 0, f"{op.value} {dtype}")


# Operand shapes that a shader compiler assuming finite math folds (x - x = 0, x * 0 = 0,
# x + 0 = x, x / x = 1, x + 1 != x): the WebGPU code generator guards them (docs/ieee.md).
FOLDING_SHAPES = {
    "x, x": lambda x, c: (x, x),
    "x, 0": lambda x, c: (x, c(0.0)),
    "0, x": lambda x, c: (c(0.0), x),
    "x, -0": lambda x, c: (x, c(-0.0)),
    "-0, x": lambda x, c: (c(-0.0), x),
    "-x, x": lambda x, c: (-x, x),
    "x + 1, x": lambda x, c: (x + c(1.0), x),
    "x, x * 2": lambda x, c: (x, x * c(2.0)),
    "x, 1 / x": lambda x, c: (x, c(1.0) / x),
}


def assert_same_specials(actual, expected, ulps: int, context: str, zero_sign: bool = True) -> None:
    """Within `ulps` (exact for 0), with NaN, infinities and the sign of zeros as expected."""
    if expected.dtype.kind != "f":
        assert_equal_values(actual, expected, context)
        return
    assert_close_ulps(actual, expected, ulps, 0.0, context)
    zeros = (expected == 0) & (actual == 0)
    if zero_sign:
        flipped = zeros & (np.signbit(actual) != np.signbit(expected))
        assert not flipped.any(), f"{context}: zero signs differ at {np.flatnonzero(flipped).tolist()}"


@pytest.mark.parametrize("dtype", dt.FLOATS, ids=str)
@pytest.mark.parametrize("op", [*FLOAT_BINARY, Op.CMPLT, Op.CMPNE], ids=lambda o: o.value)
def test_float_binary_folding_shapes(backend, op, dtype):
    skip_unsupported(backend, dtype, op)
    if backend.name == "webgpu" and dtype is dt.float64:
        pytest.skip("float64 arithmetic is not guarded against finite-math folds")
    # No extremes: reassociation such as (x + 1) - x = 1 is a fold on finite values too,
    # which the guards do not undo (docs/ieee.md).
    x = np.array(FLOAT_SPECIALS, dtype.np)
    v = load(0, dtype, x.size)
    ulps = {Op.DIV: 2, Op.ATAN2: 8 * F16_ULPS}.get(op, 0)
    for name, shape in FOLDING_SHAPES.items():
        a, b = shape(v, lambda value: alu.const(dtype, value))
        k = Kernel(1, x.size, alu.compare(op, a, b) if op in alu.COMPARE else alu.binary(op, a, b))
        # WGSL leaves the sign of min/max of zeros of both signs open.
        check_signs = op not in (Op.MIN, Op.MAX)
        assert_same_specials(run_kernel(backend, k, [x]), reference(k, [x]), ulps,
                             f"{op.value}({name}) {dtype}", check_signs)


def _wgsl(exp, fast_math: bool = False) -> tuple[str, list[str]]:
    """The WGSL text of `exp` and the helpers it needs."""
    b = WgslBuilder()
    codegen = ExpCodegen(b, load=lambda arg, index: f"in{arg}[{index}]", fast_math=fast_math)
    return codegen.run(exp), b.helpers


def test_guards_only_where_a_fold_applies():
    x, y = load(0, dt.float32, 8), load(1, dt.float32, 8)
    a = x * 1.5 + 0.25
    # nothing shared, or shared where no algebra cancels it: emitted as written
    plain = [x * 2.0 + 1.0, x * y - (y + 1.0) * (x + 2.0), a * a + x, alu.unary(Op.SIN, x) + x, x * (x + 1.0)]
    for exp in plain:
        assert not [h for h in _wgsl(exp)[1] if "ieee" in h or "zero" in h or "self" in h], exp
    guarded = {x - (x + 0.0): "sub_ieee_f32", x * y - y: "sub_ieee_f32", x * 2.0 + x * -2.0: "add_ieee_f32",
               (x + 1.0).ne(x): "ne_ieee_f32", alu.binary(Op.DIV, x * y, x): "div_ieee_f32",
               x * (y / x): "mul_ieee_f32", x * 0.0: "mul_zero_f32", x + 0.0: "add_zero_f32",
               x - x: "sub_self_f32"}
    for exp, helper in guarded.items():
        assert _wgsl(exp)[0].startswith(helper), exp


def test_fast_math_emits_ops_as_written():
    x = load(0, dt.float32, 8)
    assert _wgsl(x - (x + 0.0), fast_math=True) == ("(in0[gidx] - (in0[gidx] + 0.0f))", [])


def test_fast_math_is_part_of_the_executable_cache_key(webgpu):
    """A guarded executable is never reused for fast math or the other way round."""
    x = load(0, dt.float32, 8)
    kernel = Kernel(1, 8, x - (x + 0.0))
    guarded, fast = webgpu.prepare(kernel), webgpu.prepare(kernel, fast_math=True)
    assert guarded is not fast and webgpu.prepare(kernel) is guarded
    assert (guarded.fast_math, fast.fast_math) == (False, True)


@pytest.mark.parametrize("dtype", dt.INTS, ids=str)
@pytest.mark.parametrize("op", INT_UNARY, ids=lambda o: o.value)
@given(data=st.data())
def test_int_unary(backend, op, dtype, data):
    x = with_specials(data.draw(values(dtype)), dtype)
    check(backend, Kernel(1, x.size, alu.unary(op, load(0, dtype, x.size))), [x], context=f"{op.value} {dtype}")


@pytest.mark.parametrize("dtype", dt.INTS, ids=str)
@pytest.mark.parametrize("op", INT_BINARY, ids=lambda o: o.value)
@given(data=st.data())
def test_int_binary(backend, op, dtype, data):
    a = with_specials(data.draw(values(dtype)), dtype)
    b = with_specials(data.draw(values(dtype)), dtype)[::-1].copy()
    if data.draw(st.booleans()):  # small divisors and shift amounts are the interesting ones
        b = (b % 40).astype(dtype.np) - (7 if dtype is dt.int32 else 0)
        b = b.astype(dtype.np)
    k = Kernel(2, a.size, alu.binary(op, load(0, dtype, a.size), load(1, dtype, a.size)))
    check(backend, k, [a, b], context=f"{op.value} {dtype}")


@pytest.mark.parametrize("op", BOOL_BINARY, ids=lambda o: o.value)
@given(a=values(dt.bool_), b=values(dt.bool_))
def test_bool_binary(backend, op, a, b):
    check(backend, Kernel(2, N, alu.binary(op, load(0, dt.bool_, N), load(1, dt.bool_, N))), [a, b])


@given(a=values(dt.bool_))
def test_bool_not(backend, a):
    check(backend, Kernel(1, N, ~load(0, dt.bool_, N)), [a])


@pytest.mark.parametrize("dtype", dt.ALL, ids=str)
@pytest.mark.parametrize("op", [Op.CMPLT, Op.CMPNE], ids=lambda o: o.value)
@given(data=st.data())
def test_compare(backend, op, dtype, data):
    skip_unsupported(backend, dtype)
    a = with_specials(data.draw(values(dtype)), dtype)
    b = a[::-1].copy() if data.draw(st.booleans()) else with_specials(data.draw(values(dtype)), dtype)
    check(backend, Kernel(2, a.size, alu.compare(op, load(0, dtype, a.size), load(1, dtype, a.size))), [a, b])


@pytest.mark.parametrize("target", dt.ALL, ids=str)
@pytest.mark.parametrize("source", dt.ALL, ids=str)
@given(data=st.data())
def test_cast(backend, source, target, data):
    skip_unsupported(backend, source)
    skip_unsupported(backend, target)
    x = with_specials(data.draw(values(source)), source)
    if source.is_float:  # values around the integer limits, where saturation starts
        limits = np.array([2.0**31, -(2.0**31), 2.0**32, 2.0**31 - 128, -1.5, 4e9])
        with np.errstate(over="ignore"):  # float16 has no such values: they become inf
            x = np.concatenate([x, limits.astype(source.np)])
    expected_exact = not (source.is_float and target.is_float and target.itemsize < source.itemsize)
    k = Kernel(1, x.size, alu.cast(target, load(0, source, x.size)))
    # narrowing float conversions may round either way on GPUs: allow 1 ulp there
    check(backend, k, [x], 0 if expected_exact else 1, 0, f"cast {source}->{target}")


@pytest.mark.parametrize("pair", [(dt.float32, dt.int32), (dt.float32, dt.uint32), (dt.int32, dt.uint32),
                                  (dt.uint32, dt.float32), (dt.int32, dt.float32), (dt.uint32, dt.int32)],
                         ids=str)
@given(data=st.data())
def test_bitcast(backend, pair, data):
    source, target = pair
    x = with_specials(data.draw(values(source)), source)
    out = run_kernel(backend, Kernel(1, x.size, alu.bitcast(target, load(0, source, x.size))), [x])
    assert out.tobytes() == x.view(target.np).tobytes() or np.isnan(out).any()
    if target.is_float:  # NaN payloads may be canonicalised: compare bit patterns of non-NaN
        keep = ~np.isnan(x.view(target.np))
        assert out[keep].tobytes() == x.view(target.np)[keep].tobytes()


@pytest.mark.parametrize("dtype", dt.ALL, ids=str)
@given(data=st.data())
def test_where(backend, dtype, data):
    skip_unsupported(backend, dtype)
    c = data.draw(values(dt.bool_))
    a, b = data.draw(values(dtype)), data.draw(values(dtype))
    k = Kernel(3, N, alu.where(load(0, dt.bool_, N), load(1, dtype, N), load(2, dtype, N)))
    check(backend, k, [c, a, b])


@given(k0=st.integers(0, 2**32 - 1), k1=st.integers(0, 2**32 - 1))
def test_threefry(backend, k0, k1):
    n = 256
    u = dt.uint32
    counter = alu.cast(u, alu.gidx(n))
    words = [alu.threefry2x32(alu.const(u, k0), alu.const(u, k1), counter, counter * 3 + 1, w) for w in (0, 1)]
    k = Kernel(0, n, words[0] ^ words[1])
    check(backend, k, [])


def test_threefry_known_answer(backend):
    # Random123's known-answer test for threefry2x32 with 20 rounds.
    u = dt.uint32
    c = [alu.const(u, v) for v in (0x13198A2E, 0x03707344, 0x243F6A88, 0x85A308D3)]
    for word, expected in ((0, 0xC4923A9C), (1, 0x483DF7A0)):
        out = run_kernel(backend, Kernel(0, 1, alu.threefry2x32(*c, word)), [])
        assert int(out[0]) == expected


def test_float64_pow_is_within_two_ulp(backend):
    """Op.POW (float64 only: finite x > 0, finite y), across the exponent range."""
    if not backend.supports(dt.float64):
        pytest.skip("no shader-f64")
    rng = np.random.default_rng(0)
    x = rng.uniform(0.5, 1, 4000) * 2.0 ** rng.integers(-1074, 1024, 4000)
    y = rng.uniform(-1, 1, 4000) * 10.0 ** rng.uniform(-3, 3, 4000)
    k = Kernel(2, x.size, alu.binary(Op.POW, load(0, dt.float64, x.size), load(1, dt.float64, x.size)))
    got = run_kernel(backend, k, [x, y])
    with np.errstate(over="ignore", under="ignore"):
        want = np.power(x, y)
    normal = np.isfinite(want) & (np.abs(want) >= 2.0 ** -1022)
    assert (np.abs(got[normal] - want[normal]) <= 2 * np.spacing(want[normal])).all()
    np.testing.assert_array_equal(got[~normal], want[~normal])  # inf, subnormals, 0


@pytest.mark.smoke
def test_smoke_fused_chain(backend):
    x = np.linspace(-3, 3, 1001, dtype=np.float32)
    v = load(0, dt.float32, x.size)
    e = alu.where(v.lt(0.0), alu.unary(Op.EXP, v) * 2.0 + 1.0, alu.unary(Op.SQRT, v) - v)
    out = run_kernel(backend, Kernel(1, x.size, e), [x])
    expected = np.where(x < 0, np.exp(x) * 2 + 1, np.sqrt(np.abs(x)) - x).astype(np.float32)
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-6)  # sqrt(x) - x cancels near 1


def test_codegens_of_one_shader_name_their_temporaries_apart():
    """Templates render parts of a shader (a vec4 read's index, the terms that use it)
    with separate codegens into one scope: their `let` temporaries must not clash (a row
    kernel reading two vec4s through a gathered index declared `alu0` twice)."""
    x = load(0, dt.float32, 8)
    b = WgslBuilder()
    for _ in range(2):
        g = ExpCodegen(b, load=lambda arg, index: f"in{arg}[{index}]")
        shared = x * x
        g.count_references(shared + shared)
        g.run(shared + shared)
    names = [line.split()[1].rstrip(":") for line in b.lines if line.startswith("let ")]
    assert len(names) == 4 and len(set(names)) == 4, b.lines


@pytest.mark.parametrize("op, exact", [(Op.SIN, np.sin), (Op.COS, np.cos)], ids=["sin", "cos"])
def test_sin_and_cos_over_the_float32_range(webgpu, op, exact):
    """Below 1e5 the Cody-Waite reduction is exact while |x| / (pi / 2) < 2^16: what is
    left is the polynomial's few ulp and, from the last part of pi / 2, an absolute error
    below 2^16 * (ulp(2^-30) / 2 + 5e-17) < 1e-11, which shows only next to the zeros.
    (Parts of 8 and 12 bits held only to |x| ~ 6400: cos(9800.198) was off by 3e4 ulp on
    lavapipe.) From 1e5 to the largest float32 the Payne-Hanek reduction leaves r within
    2^-70 and the polynomials' few ulp; inf and NaN give NaN."""
    rng = np.random.default_rng(7)
    moderate = rng.uniform(-1e5, 1e5, 1 << 16).astype(np.float32)
    near_zeros = (np.round(moderate / (np.pi / 2)) * (np.pi / 2)).astype(np.float32)
    large = np.exp(rng.uniform(np.log(1e5), np.log(3.4e38), 1 << 16)) * rng.choice([-1, 1], 1 << 16)
    edges = [9800.198, -9639.978, 7211.526, 1e5, 100000.01, -102943.0, 2.0 ** 24, 2.0 ** 127, 3.4028235e38]
    x = np.concatenate([moderate, near_zeros, large.astype(np.float32), np.float32(edges)])
    specials = np.float32([np.inf, -np.inf, np.nan])
    got = run_kernel(webgpu, Kernel(1, x.size + 3, alu.unary(op, load(0, dt.float32, x.size + 3))),
                     [np.concatenate([x, specials])])
    assert np.isnan(got[-3:]).all()
    want = exact(x.astype(np.float64))
    ulp = np.spacing(np.abs(want).astype(np.float32)).astype(np.float64)
    bound = 4 * ulp + np.where(np.abs(x) <= 1e5, 1e-11, 0.0)
    err = np.abs(got[:-3].astype(np.float64) - want)
    assert np.all(err <= bound), (x[err > bound][:5], got[:-3][err > bound][:5], want[err > bound][:5])


def test_where_on_indices_computes_only_the_taken_value():
    """A where whose condition tests indices and whose values read inputs nothing else
    reads becomes an `if`: the value of the other branch is not computed."""
    def wgsl(exp):
        b = WgslBuilder()
        codegen = ExpCodegen(b, load=lambda arg, index: f"in{arg}[{index}]")
        codegen.count_references(exp)
        return "\n".join(b.lines + [codegen.run(exp)])

    g = alu.gidx(8)
    x, y = alu.load(0, dt.float32, g), alu.load(1, dt.float32, g - 4)
    text = wgsl(alu.where(g.lt(4), alu.unary(Op.EXP, x), y * 2.0))
    assert "if (gidx < 4i)" in text and "select" not in text, text
    # a data-dependent condition, or values that are used elsewhere too, stay a select
    assert "select" in wgsl(alu.where(x.lt(0.0), alu.unary(Op.EXP, x), y))
    assert "select" in wgsl(alu.where(g.lt(4), x, y) + x * y)


@pytest.mark.parametrize("parts", [[5, 3], [1, 7, 2, 9, 4, 6], [64, 1, 1000]])
def test_concatenations_through_branches(webgpu, parts):
    """Nested wheres on index ranges (a concatenation), with values that share a node and
    specials in every part: each element comes from its own part."""
    total, starts = sum(parts), np.cumsum([0] + parts)
    g = alu.gidx(total)
    rng = np.random.default_rng(len(parts))
    inputs = [rng.standard_normal(n).astype(np.float32) for n in parts]
    for x, special in zip(inputs, [np.inf, np.nan, -np.inf, -0.0] * 2):
        x[-1] = special  # NaN or inf next door must not leak into another part
    exp = None
    for arg in reversed(range(len(parts))):
        v = alu.load(arg, dt.float32, g - int(starts[arg]))
        value = v * v - v  # a node used twice within the branch
        exp = value if exp is None else alu.where(g.lt(int(starts[arg + 1])), value, exp)
    kernel = Kernel(len(parts), total, exp)
    got = run_kernel(webgpu, kernel, inputs)
    with np.errstate(invalid="ignore", over="ignore"):
        want = np.concatenate([x * x - x for x in inputs])
    assert_equal_values(got, want, str(parts))
