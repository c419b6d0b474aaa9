"""int8, uint8, int16 and uint16 end to end, against JAX (values and dtypes) and NumPy.

WebGPU stores and computes them as 32-bit integers (`jaxwg.core.widen`), the CPU backend
in NumPy's own narrow types; both must give JAX's results bit for bit. 8-bit operations
are checked on every pair of values (65536 elements per kernel), 16-bit ones on their
extremes plus hypothesis' values; hand-written cases pin the wrap-arounds (127/128,
255/256, -128 // -1, shifts past the width, float conversions). Integer division by
zero is the one documented difference from JAX (docs/frontend.md): it gives what int32
gives in jaxwg.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import jaxwg
import jaxwg.numpy as jnp
from jaxwg import lax, random
from jaxwg.core import alu
from jaxwg.core import dtypes as dt
from jaxwg.core.alu import Op
from jaxwg.core.alu_eval import evaluate
from jaxwg.core.kernel import Kernel, Reduction
from jaxwg.core.widen import widen, widen_kernel

from .backend.helpers import assert_equal_values, run_kernel, with_specials
from .numpy import conftest as api_fixtures
from .numpy.helpers import assert_array, exact_rtol, jax, jax_numpy

# The public-API tests' fixtures: `platform` (cpu, webgpu) and `run` (eager, jit).
platform, mode, run = api_fixtures.platform, api_fixtures.mode, api_fixtures.run

SMALL = (dt.int8, dt.uint8, dt.int16, dt.uint16)
SMALL_NP = [d.np for d in SMALL]
ALL_NP = [d.np for d in dt.ALL if d is not dt.float64]


def backend_supports(platform: str, dtype) -> bool:
    return jaxwg.devices(platform)[0].backend.supports(dt.from_numpy(dtype))


def operand_pairs(dtype: np.dtype, rng_seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Every pair of 8-bit values, or the extremes of a 16-bit type against each other
    and against random values: two flat arrays of equal length."""
    lo, hi = int(np.iinfo(dtype).min), int(np.iinfo(dtype).max)
    if dtype.itemsize == 1:
        values = np.arange(lo, hi + 1)
    else:
        rng = np.random.default_rng(rng_seed)
        special = [lo, lo + 1, hi, hi - 1, 0, 1, 2, 7, 8, 15, 16, 17, 255, 256] + ([-1, -2, -16] if lo else [])
        values = np.concatenate([special, rng.integers(lo, hi + 1, 200)])
    a, b = np.meshgrid(values, values)
    return a.reshape(-1).astype(dtype), b.reshape(-1).astype(dtype)


# -- the 32-bit rewrite, in NumPy ---------------------------------------------------------------

INT_BINARY = [Op.ADD, Op.SUB, Op.MUL, Op.IDIV, Op.MOD, Op.MIN, Op.MAX, Op.AND, Op.OR, Op.XOR,
              Op.SHL, Op.SHR]
INT_UNARY = [Op.NEG, Op.NOT, Op.ABS]


@given(data=st.data())
def test_widen_computes_what_the_narrow_types_compute(data):
    """op2(op1(a, b), c) rewritten into 32 bits (wraps left out where ranges allow) equals
    NumPy's narrow arithmetic; mixed with casts to and from other dtypes."""
    dtype = data.draw(st.sampled_from(SMALL))
    other = data.draw(st.sampled_from([d for d in dt.ALL if d is not dtype]))
    n = 40
    lo, hi = dt.bounds(dtype)
    a, b, c = (with_specials(data.draw(hnp.arrays(np.int64, n, elements=st.integers(lo, hi))), dtype)
               for _ in range(3))
    loads = [alu.load(i, dtype, alu.gidx(a.size)) for i in range(3)]
    inner = alu.binary(data.draw(st.sampled_from(INT_BINARY)), loads[0], loads[1])
    if data.draw(st.booleans()):
        inner = alu.unary(data.draw(st.sampled_from(INT_UNARY)), inner)
    if data.draw(st.booleans()):  # through another dtype and back
        inner = alu.cast(dtype, alu.cast(other, inner))
    const = alu.const(dtype, data.draw(st.integers(lo, hi)))
    exp = alu.binary(data.draw(st.sampled_from(INT_BINARY)), inner, data.draw(st.sampled_from([loads[2], const])))
    env = {"gidx": np.arange(a.size, dtype=np.int32)}
    want = evaluate(exp, env, [a, b, c])
    wide = [x.astype(dt.WIDENED[dtype].np) for x in (a, b, c)]
    got = evaluate(widen(exp), env, wide)
    assert_equal_values(got.astype(dtype.np), want, repr(exp))
    assert (got.astype(np.int64) == want.astype(np.int64)).all(), "a 32-bit result left the range"


def test_wraps_only_where_a_result_may_leave_the_range():
    x = alu.load(0, dt.uint8, alu.gidx(4))
    y = alu.load(1, dt.int8, alu.gidx(4))
    assert repr(widen(x + 1)) == "((in0[gidx] + 1u) & 255u)"
    assert repr(widen((x & 15) + 1)) == "((in0[gidx] & 15u) + 1u)"  # at most 16: no wrap
    assert repr(widen(x // 3)) == "(in0[gidx] // 3u)"  # unsigned quotients shrink
    assert repr(widen(y // 2)) == "(in1[gidx] // 2)"  # no -128 // -1
    assert repr(widen(y // y)) == "(((in1[gidx] // in1[gidx]) << 24) >> 24)"
    assert repr(widen(alu.binary(Op.MAX, y, y ^ -1))) == "max(in1[gidx], (in1[gidx] ^ -1))"
    assert repr(widen(alu.cast(dt.int16, x))) == "cast<int32>(in0[gidx])"  # uint8 fits int16


def test_kernels_without_small_ints_are_unchanged():
    k = Kernel(1, 4, alu.load(0, dt.int32, alu.gidx(4)) + 1)
    assert widen_kernel(k) is k


@pytest.mark.parametrize("dtype", SMALL, ids=str)
@pytest.mark.parametrize("op", [Op.ADD, Op.MUL, Op.MIN, Op.MAX], ids=lambda o: o.value)
@pytest.mark.parametrize("shape", [(3, 0), (1, 1), (2, 33), (3, 1000), (1, (1 << 17) + 3)], ids=str)
def test_reduction_kernels(backend, dtype, op, shape):
    """Sums and products wrap like NumPy's narrow ones (in 32 bits, wrapped once at the
    end; long rows split into partials on WebGPU); an empty row gives the dtype's own
    identity, not the 32-bit one."""
    n, m = shape
    rng = np.random.default_rng(m)
    lo, hi = dt.bounds(dtype)
    x = rng.integers(lo, hi + 1, (n, m)).astype(dtype.np)
    if op is Op.MUL:  # mostly odd factors, so that products are not all 0
        x = (x | 1).astype(dtype.np)
    terms = alu.load(0, dtype, alu.gidx(n) * m + alu.ridx(m))
    ufunc = {Op.ADD: np.add, Op.MUL: np.multiply, Op.MIN: np.minimum, Op.MAX: np.maximum}[op]
    identity = {Op.ADD: 0, Op.MUL: 1, Op.MIN: hi, Op.MAX: lo}[op]
    want = ufunc.reduce(x, axis=1, dtype=dtype.np, initial=identity)
    # read back as it is, and widened to int32 in the epilogue (where a result left out
    # of the range would show: reading back keeps only the low bits)
    for epilogue in (None, alu.cast(dt.int32, alu.variable(dtype, "acc"))):
        k = Kernel(1, n, terms, Reduction(op, dtype, m, epilogue))
        expected = want if epilogue is None else want.astype(np.int32)
        assert_equal_values(run_kernel(backend, k, [x.reshape(-1)]), expected, f"{op.value} {dtype} {shape}")


# -- transfers ------------------------------------------------------------------------------------


@pytest.mark.parametrize("shape", [(), (0,), (1,), (33,), (1000,), (4, 4, 3), (3, 0, 2)], ids=str)
@pytest.mark.parametrize("dtype", SMALL_NP, ids=str)
def test_upload_and_read_back(platform, dtype, shape):
    lo, hi = np.iinfo(dtype).min, np.iinfo(dtype).max
    host = np.random.default_rng(7).integers(lo, int(hi) + 1, shape).astype(dtype)
    if host.size:
        host.reshape(-1)[0], host.reshape(-1)[-1] = lo, hi
    x = jnp.asarray(host)
    assert x.dtype == dtype and x.shape == shape
    np.testing.assert_array_equal(np.asarray(x), host)
    assert x.tolist() == host.tolist()
    assert np.asarray(x + 0).dtype == dtype  # through a kernel and back


@pytest.mark.parametrize("dtype", SMALL_NP, ids=str)
def test_non_contiguous_views(run, dtype):
    host = np.arange(99, dtype=np.int64).reshape(9, 11).astype(dtype) * np.asarray(29, dtype)
    for view in (host[::2], host.T, host[1:, ::-3]):  # NumPy views uploaded as they are
        assert_array(jnp.asarray(view), view)
    x = jnp.asarray(host)
    got = run(lambda v: (v[::2] + 1, v.T * 3, v[1:, ::-3] - v[:8, :4], jnp.broadcast_to(v[:1], (3, 11))), x)
    want = jax.jit(lambda v: (v[::2] + 1, v.T * 3, v[1:, ::-3] - v[:8, :4], jax_numpy.broadcast_to(v[:1], (3, 11))))(host)
    for g, w in zip(got, want):
        assert_array(g, np.asarray(w))


# -- elementwise operations against JAX -------------------------------------------------------------

BINARY = {
    "add": lambda m, x, y: x + y,
    "subtract": lambda m, x, y: x - y,
    "multiply": lambda m, x, y: x * y,
    "floor_divide": lambda m, x, y: x // y,
    "remainder": lambda m, x, y: x % y,
    "lax.div": lambda m, x, y: m.lax.div(x, y),
    "lax.rem": lambda m, x, y: m.lax.rem(x, y),
    "bitwise_and": lambda m, x, y: x & y,
    "bitwise_or": lambda m, x, y: x | y,
    "bitwise_xor": lambda m, x, y: x ^ y,
    "left_shift": lambda m, x, y: x << y,
    "right_shift": lambda m, x, y: x >> y,
    "shift_right_logical": lambda m, x, y: m.lax.shift_right_logical(x, y),
    "shift_right_arithmetic": lambda m, x, y: m.lax.shift_right_arithmetic(x, y),
    "minimum": lambda m, x, y: m.numpy.minimum(x, y),
    "maximum": lambda m, x, y: m.numpy.maximum(x, y),
    "less": lambda m, x, y: x < y,
    "equal": lambda m, x, y: x == y,
    "greater_equal": lambda m, x, y: x >= y,
    "power": lambda m, x, y: m.numpy.power(x, m.numpy.abs(y) % 9),
}
DIVISIONS = ("floor_divide", "remainder", "lax.div", "lax.rem")


def observed(result):
    """`result`, and `result` widened to int32 in the same kernel: reading a small integer
    back keeps only its low bits, so a value computed out of its range shows only when
    something (a conversion, a comparison, a division) uses it."""
    return result, result.astype(np.int32)


@pytest.mark.parametrize("name", list(BINARY))
def test_binary_ops_match_jax(run, name):
    """On every pair of 8-bit values, and on 16-bit extremes and random values, for each
    small dtype; division by zero is left to `test_division_by_zero_is_int32s`."""
    fn = BINARY[name]
    for dtype in SMALL_NP:
        a, b = operand_pairs(dtype)
        if name in DIVISIONS:
            b = np.where(b == 0, np.asarray(1, dtype), b)
        got = run(lambda x, y: observed(fn(jaxwg, x, y)), jnp.asarray(a), jnp.asarray(b))
        want = observed(fn(jax, jax_numpy.asarray(a), jax_numpy.asarray(b)))
        for g, w in zip(got, want):
            assert_array(g, np.asarray(w))


@pytest.mark.parametrize("name", ["negative", "abs", "invert", "sign", "square", "positive"])
def test_unary_ops_match_jax(run, name):
    for dtype in SMALL_NP:
        a, _ = operand_pairs(dtype)
        x = a[: 1 << (8 * dtype.itemsize)] if dtype.itemsize == 1 else a
        got = run(lambda v: observed(getattr(jnp, name)(v)), jnp.asarray(x))
        want = observed(getattr(jax_numpy, name)(x))
        for g, w in zip(got, want):
            assert_array(g, np.asarray(w))


# (dtype, operation, operands, result): written by hand, not taken from JAX.
EDGES = [
    (np.int8, "add", (127, 1), -128), (np.int8, "subtract", (-128, 1), 127),
    (np.int8, "multiply", (64, 2), -128), (np.int8, "multiply", (-128, -1), -128),
    (np.int8, "floor_divide", (-128, -1), -128), (np.int8, "remainder", (-128, -1), 0),
    (np.int8, "negative", (-128,), -128), (np.int8, "abs", (-128,), -128),
    (np.int8, "left_shift", (1, 7), -128), (np.int8, "left_shift", (1, 8), 0),
    (np.int8, "right_shift", (-128, 7), -1), (np.int8, "right_shift", (-128, 8), -1),
    (np.int8, "right_shift", (64, 9), 0), (np.int8, "invert", (127,), -128),
    (np.uint8, "add", (255, 1), 0), (np.uint8, "subtract", (0, 1), 255),
    (np.uint8, "multiply", (16, 16), 0), (np.uint8, "negative", (1,), 255),
    (np.uint8, "left_shift", (255, 4), 240), (np.uint8, "left_shift", (1, 8), 0),
    (np.uint8, "right_shift", (255, 8), 0), (np.uint8, "invert", (0,), 255),
    (np.uint8, "floor_divide", (255, 2), 127),
    (np.int16, "add", (32767, 1), -32768), (np.int16, "floor_divide", (-32768, -1), -32768),
    (np.int16, "multiply", (300, 300), 24464), (np.int16, "left_shift", (1, 16), 0),
    (np.int16, "abs", (-32768,), -32768),
    (np.uint16, "add", (65535, 1), 0), (np.uint16, "subtract", (0, 2), 65534),
    (np.uint16, "multiply", (256, 256), 0), (np.uint16, "right_shift", (65535, 15), 1),
]


@pytest.mark.parametrize("dtype, name, operands, result", EDGES,
                         ids=[f"{np.dtype(e[0])}-{e[1]}{e[2]}" for e in EDGES])
def test_wrap_around_edges(run, dtype, name, operands, result):
    args = [jnp.asarray(np.array([v] * 33, dtype)) for v in operands]  # 33: an odd size
    got = run(getattr(jnp, name), *args)
    assert_array(got, np.full(33, result, dtype))


@pytest.mark.parametrize("dtype", SMALL_NP, ids=str)
def test_division_by_zero_is_int32s(run, dtype):
    """jaxwg's integer x // 0 and x % 0 are the kernel IR's (docs/frontend.md), for small
    integers as for their 32-bit type: the same values, converted."""
    a, _ = operand_pairs(dtype)
    zeros = np.zeros_like(a)
    wide = dt.WIDENED[dt.from_numpy(dtype)].np
    for name in DIVISIONS:
        fn = BINARY[name]
        got = run(lambda x, y: fn(jaxwg, x, y), jnp.asarray(a), jnp.asarray(zeros))
        want = run(lambda x, y: fn(jaxwg, x, y).astype(dtype), jnp.asarray(a.astype(wide)),
                   jnp.asarray(zeros.astype(wide)))
        assert_array(got, np.asarray(want))


FLOAT_SOURCES = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 0.5, -0.5, 0.99, -0.99, 1.5, -1.5,
                          126.9, 127.0, 127.5, 128.0, -128.0, -128.9, -129.0, 255.0, 255.9, 256.0,
                          -1.0, 32767.0, 32767.5, 32768.0, -32768.0, -32769.0, 65535.0, 65536.0,
                          70000.0, -70000.0, 1e10, -1e10, 3e38])


@pytest.mark.parametrize("source", ALL_NP, ids=str)
def test_astype_matches_jax(run, source):
    """Every conversion to and from a small integer: integers wrap, floats truncate and
    saturate (NaN to 0), as JAX on CPU; bool is != 0."""
    if not backend_supports(run.platform, source):
        pytest.skip(f"{run.platform} lacks {source}")
    if source.kind == "f":
        with np.errstate(over="ignore"):
            host = FLOAT_SOURCES.astype(source)
    elif source.kind == "b":
        host = np.array([True, False, True])
    else:
        host = operand_pairs(source)[0][:4096]
    targets = ALL_NP if source in SMALL_NP else SMALL_NP
    for target in targets:
        if not backend_supports(run.platform, target):
            continue
        got = run(lambda v: v.astype(target), jnp.asarray(host))
        assert_array(got, np.asarray(jax_numpy.asarray(host).astype(target)))


@pytest.mark.parametrize("pair", [(np.int8, np.uint8), (np.uint8, np.int8), (np.int16, np.uint16),
                                  (np.uint16, np.int16)], ids=str)
def test_bitcast_between_signed_and_unsigned(run, pair):
    source, target = pair
    host = operand_pairs(np.dtype(source))[0][:70000]
    got = run(lambda v: lax.bitcast_convert_type(v, target), jnp.asarray(host))
    assert_array(got, host.view(target))


def test_float16_bitcasts(platform):
    """float16 <-> int16/uint16 bitcasts, exact on both backends (WebGPU through the
    32-bit form, `alu.bitcast`; every bit pattern: tests/numpy/test_bitcast.py)."""
    if not backend_supports(platform, np.float16):
        pytest.skip("no float16 on this adapter")
    halves = np.array([1.5, -0.0, np.inf, 65504.0, 6e-8], np.float16)
    assert_array(lax.bitcast_convert_type(jnp.asarray(halves), np.int16), halves.view(np.int16))
    assert_array(lax.bitcast_convert_type(jnp.asarray(halves.view(np.uint16)), np.float16), halves)


@pytest.mark.parametrize("dtype", SMALL_NP, ids=str)
def test_bit_counts_match_jax(run, dtype):
    host = operand_pairs(dtype)[0][:70000]
    got = run(lambda v: (lax.population_count(v), lax.clz(v)), jnp.asarray(host))
    assert_array(got[0], np.asarray(jax.lax.population_count(host)))
    assert_array(got[1], np.asarray(jax.lax.clz(host)))


# -- promotion and scalars ----------------------------------------------------------------------------


def test_promotion_matches_jax():
    operands = ALL_NP + [int, float, bool]
    for a in SMALL_NP:
        for b in operands:
            assert jnp.result_type(a, b) == jax_numpy.result_type(a, b), (a, b)
            assert jnp.promote_types(a, b if isinstance(b, np.dtype) else np.dtype(b)) == \
                jax_numpy.promote_types(a, b if isinstance(b, np.dtype) else np.dtype(b)), (a, b)


@pytest.mark.slow_on_cpu
@given(data=st.data())
def test_mixed_operations_match_jax(platform, data):
    """Small integers with arrays of every dtype and with Python scalars: the promoted
    dtype (weak types included) and the values, shapes broadcast."""
    small = data.draw(st.sampled_from(SMALL_NP))
    other = data.draw(st.sampled_from([d for d in ALL_NP if backend_supports(platform, d)]))
    shapes = data.draw(hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=3, max_side=5))
    lo, hi = int(np.iinfo(small).min), int(np.iinfo(small).max)
    x = data.draw(hnp.arrays(small, shapes.input_shapes[0], elements=st.integers(lo, hi)))
    if other.kind == "f":
        y = data.draw(hnp.arrays(other, shapes.input_shapes[1], elements=st.integers(-300, 300).map(float)))
    else:
        y = data.draw(hnp.arrays(other, shapes.input_shapes[1]))
    scalar = data.draw(st.one_of(st.integers(-2 ** 31, 2 ** 31 - 1), st.sampled_from([2.5, -1.0, True])))
    op = data.draw(st.sampled_from(["add", "multiply", "maximum", "less", "subtract"]))
    for args in ((x, y), (x, scalar), (scalar, x)):
        got = getattr(jnp, op)(*[jnp.asarray(a) if isinstance(a, np.ndarray) else a for a in args])
        want = getattr(jax_numpy, op)(*[jax_numpy.asarray(a) if isinstance(a, np.ndarray) else a for a in args])
        assert got.weak_type == want.weak_type, args
        assert_array(got, np.asarray(want))


def test_scalars_and_python_ints(platform):
    assert jnp.int8 == np.int8 and jnp.uint8(7) == np.uint8(7)
    assert jnp.iinfo(jnp.int16).min == -32768 and jnp.iinfo(jnp.uint8).max == 255
    assert jnp.iinfo(jnp.uint16).bits == 16
    assert_array(jnp.asarray(jnp.int8(-3)), np.int8(-3))
    assert_array(jnp.asarray(jnp.uint8(250)) + 10, np.uint8(4))
    u = jnp.asarray(np.array([7, 0, 255], np.uint8))
    assert_array(u + 256, np.array([7, 0, 255], np.uint8))  # 256 wraps to 0, as in JAX
    assert_array(u - 1, np.array([6, 255, 254], np.uint8))
    assert_array(jnp.full(2, 300, jnp.uint8), np.array([44, 44], np.uint8))
    assert_array(jnp.full(2, 300.5, jnp.uint8), np.array([255, 255], np.uint8))
    with pytest.raises(OverflowError, match="uint8"):
        jnp.asarray(300, jnp.uint8)
    with pytest.raises(OverflowError, match="uint8"):
        jnp.array([1, -1], jnp.uint8)
    with pytest.raises(OverflowError):
        u + 2 ** 31
    with pytest.raises(OverflowError):
        jnp.uint8(256)


def test_binary_lax_ops_refuse_mixed_dtypes():
    x, y = jnp.zeros(3, jnp.uint8), jnp.zeros(3, jnp.int8)
    with pytest.raises(TypeError, match="uint8.*int8"):
        lax.add(x, y)
    with pytest.raises(TypeError, match="shift"):
        lax.shift_left(jnp.zeros(2, jnp.float32), jnp.zeros(2, jnp.float32))


# -- reductions, images, products ----------------------------------------------------------------------

REDUCTIONS = {
    "sum": lambda m, x, axis: m.sum(x, axis=axis),
    "sum_same_dtype": lambda m, x, axis: m.sum(x, axis=axis, dtype=x.dtype),
    "prod": lambda m, x, axis: m.prod(x | 1, axis=axis),
    "max": lambda m, x, axis: m.max(x, axis=axis),
    "min": lambda m, x, axis: m.min(x, axis=axis),
    "argmax": lambda m, x, axis: m.argmax(x, axis=axis),
    "argmin": lambda m, x, axis: m.argmin(x, axis=axis),
    "mean": lambda m, x, axis: m.mean(x, axis=axis),
    "cumsum": lambda m, x, axis: m.cumsum(x, axis=axis),
    "cumprod": lambda m, x, axis: m.cumprod(x | 1, axis=axis),
    "any": lambda m, x, axis: m.any(x, axis=axis),
}


@pytest.mark.slow_on_cpu
@given(data=st.data())
def test_reductions_match_jax(run, data):
    """Sums and products of small integers promote to int32/uint32 (JAX's
    promote_integers); with dtype=x.dtype, and for cumulative sums, they wrap."""
    dtype = data.draw(st.sampled_from(SMALL_NP))
    shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=2, min_side=1, max_side=40))
    x = data.draw(hnp.arrays(dtype, shape))
    name = data.draw(st.sampled_from(sorted(REDUCTIONS)))
    axis = data.draw(st.sampled_from([None, *range(len(shape))]))
    if name.startswith("cum") and axis is None:
        axis = 0
    got = run(lambda v: REDUCTIONS[name](jnp, v, axis), jnp.asarray(x))
    want = np.asarray(REDUCTIONS[name](jax_numpy, jax_numpy.asarray(x), axis))
    assert_array(got, want)


def test_large_sums_promote(run):
    x = np.full(100_000, 255, np.uint8)
    assert_array(run(jnp.sum, jnp.asarray(x)), np.uint32(25_500_000))
    assert_array(run(lambda v: jnp.sum(v, dtype=jnp.uint8), jnp.asarray(x)), np.uint8(25_500_000 % 256))
    y = np.full(1000, -128, np.int8)
    assert_array(run(jnp.sum, jnp.asarray(y)), np.int32(-128_000))


def test_image_pipeline(run):
    """The uint8 image of the issue: loaded, scaled to [0, 1], thresholded, summed."""
    img = (np.arange(4 * 4 * 3, dtype=np.int64).reshape(4, 4, 3) * 17 % 256).astype(np.uint8)

    def pipeline(m, v):
        scaled = v.astype(np.float32) / 255
        return (scaled, v + 1, v // 2, v > 128, m.numpy.maximum(v, 100), v.sum(), v >> 1, v & 0xF0,
                (v.astype(np.float32) * 0.5).astype(np.uint8), m.numpy.mean(v, axis=(0, 1)))

    got = run(lambda v: pipeline(jaxwg, v), jnp.asarray(img))
    want = jax.jit(lambda v: pipeline(jax, v))(img)
    # float32 division is correctly rounded here (NumPy), where XLA multiplies by 1 / 255
    assert_array(got[0], img.astype(np.float32) / np.float32(255), rtol=exact_rtol(0))
    for g, w in zip(got[1:], want[1:]):
        assert_array(g, np.asarray(w), rtol=exact_rtol(0))


@pytest.mark.parametrize("shapes", [((2, 3), (3, 2)), ((20, 30), (30, 20)), ((5,), (5,))], ids=str)
@pytest.mark.parametrize("dtype", SMALL_NP, ids=str)
def test_products_wrap_as_jax(run, dtype, shapes):
    """Matrix products keep the dtype and wrap (tiled products from 16 x 16 on)."""
    rng = np.random.default_rng(3)
    lo, hi = int(np.iinfo(dtype).min), int(np.iinfo(dtype).max)
    a, b = (rng.integers(lo, hi + 1, s).astype(dtype) for s in shapes)
    assert_array(run(jnp.matmul, jnp.asarray(a), jnp.asarray(b)), np.asarray(jax_numpy.matmul(a, b)))


@pytest.mark.parametrize("dtype", SMALL_NP, ids=str)
def test_sorting_and_selection_match_jax(run, dtype):
    lo, hi = int(np.iinfo(dtype).min), int(np.iinfo(dtype).max)
    x = np.random.default_rng(5).integers(lo, hi + 1, 37).astype(dtype)
    x[:4] = [lo, hi, lo, 0]
    fns = (lambda m, v: m.sort(v), lambda m, v: m.argsort(v, stable=True),
           lambda m, v: m.searchsorted(m.sort(v), v), lambda m, v: m.where(v > 3, v, 0))
    for fn in fns:
        assert_array(run(lambda v: fn(jnp, v), jnp.asarray(x)), np.asarray(fn(jax_numpy, x)))
    assert_array(jnp.unique(jnp.asarray(x)), np.asarray(jax_numpy.unique(x)))


# -- random ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", SMALL_NP, ids=str)
def test_randint_is_jaxs(platform, dtype):
    """Bit for bit JAX's samples, bounds clipped to the dtype (maxval one past its range
    reaches its largest value)."""
    lo, hi = int(np.iinfo(dtype).min), int(np.iinfo(dtype).max)
    key = random.PRNGKey(42)
    for minval, maxval in ((0, 10), (lo, hi), (lo, hi + 1), (lo - 5, 300), (7, 3), (-3, 5)):
        got = random.randint(key, (2, 17), minval, maxval, dtype)
        want = jax.random.randint(jax.random.PRNGKey(42), (2, 17), minval, maxval, dtype)
        assert_array(got, np.asarray(want))
    bounds = (np.array([[0], [5]], np.int32), np.array([20, 100, 255], np.int32))
    assert_array(random.randint(key, (2, 3), *bounds, dtype),
                 np.asarray(jax.random.randint(jax.random.PRNGKey(42), (2, 3), *bounds, dtype)))


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16], ids=str)
def test_random_bits_of_small_widths(platform, dtype):
    got = random.bits(random.PRNGKey(3), (5, 7), dtype)
    assert_array(got, np.asarray(jax.random.bits(jax.random.PRNGKey(3), (5, 7), dtype)))
    with pytest.raises(ValueError, match="`bits` must be an unsigned int dtype"):  # as JAX
        random.bits(random.PRNGKey(3), (2,), np.int8)


def test_randint_refuses_float_dtypes():
    with pytest.raises(TypeError, match="randint"):
        random.randint(random.PRNGKey(0), (2,), 0, 5, np.float32)


# -- transformations --------------------------------------------------------------------------------------


def test_jaxpr_names_small_ints_as_jax():
    def f(m, x, y, z):
        wide = m.lax.convert_element_type(y, np.int16)
        return m.lax.div(m.lax.add(x, x), x), m.lax.mul(wide, z), m.lax.shift_left(y, y)

    args = (np.zeros(3, np.uint8), np.zeros(2, np.int8), np.zeros(2, np.int16))
    assert str(jaxwg.make_jaxpr(lambda *a: f(jaxwg, *a))(*args)) == \
        str(jax.make_jaxpr(lambda *a: f(jax, *a))(*args))


def test_grad_with_integer_inputs(platform):
    """Integer inputs have float0 tangents; grad by them needs allow_int, as in JAX."""
    def f(x, n):
        return (x * n.astype(jnp.float32) + (n // 2).astype(jnp.float32)).sum()

    x, n = np.ones(3, np.float32), np.array([1, 200, 255], np.uint8)
    assert_array(jaxwg.grad(f)(jnp.asarray(x), jnp.asarray(n)), np.asarray(jax.grad(f)(x, n)))
    got = jaxwg.grad(f, argnums=(0, 1), allow_int=True)(jnp.asarray(x), jnp.asarray(n))
    want = jax.grad(f, argnums=(0, 1), allow_int=True)(x, n)
    assert got[1].dtype == want[1].dtype and got[1].shape == want[1].shape
    with pytest.raises(TypeError, match="uint8"):
        jaxwg.grad(f, argnums=1)(jnp.asarray(x), jnp.asarray(n))


def test_vmap_and_jit(run):
    x = (np.arange(60, dtype=np.int64).reshape(5, 12) * 37 % 256 - 128).astype(np.int8)

    def per_row(r):
        return r.max() - r.min(), jnp.sum(r * r), r[::-1] << 1

    got = run(lambda v: jaxwg.vmap(per_row)(v), jnp.asarray(x))
    want = jax.vmap(lambda r: (r.max() - r.min(), jax_numpy.sum(r * r), r[::-1] << 1))(x)
    for g, w in zip(got, want):
        assert_array(g, np.asarray(w))
