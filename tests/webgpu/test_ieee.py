"""IEEE special values survive shader compilers that assume finite math.

WGSL lets an implementation assume no infinities or NaNs and ignore the sign of
zero, and Mesa (lavapipe, llvmpipe) and NVIDIA do: they fold `x - x`, `x + (-x)`
and `x * 0.0` to 0, `x + 0.0` to `x`, `x / x` to 1 and `x + 1 != x` to true
(docs/ieee.md). Each case below is a shape such a compiler folds,
run through `jaxwg.numpy` on the WebGPU backend, eagerly and under `jit`, with the
constant written as a literal and coming from another array. Results must match
NumPy bit for bit, except for the sign and payload of NaN.

Run on every adapter: `JAXWG_WEBGPU_ADAPTER=opengl` selects llvmpipe here.
"""

import os

import numpy as np
import pytest

import jaxwg
import jaxwg.numpy as jnp
from jaxwg.backend.webgpu.tuner import MAX_THREAD_TERMS
from jaxwg.core import dtypes as kdt

SPECIALS = [np.inf, -np.inf, np.nan, -0.0, 0.0, -1.0, 1.0]

# name -> fn(m, x, c), with m the numpy module and c a namespace of constants (0, 1,
# 2, -0, inf) that are Python floats or arrays shaped like x.
CASES = {
    "x - x": lambda m, x, c: x - x,
    "x + (-x)": lambda m, x, c: x + (-x),
    "x - (x + 0)": lambda m, x, c: x - (x + c.zero),
    "(-x) + (x + 1)": lambda m, x, c: (-x) + (x + c.one),
    "x * 2 + x * -2": lambda m, x, c: x * c.two + x * -c.two,
    "x - x * 1": lambda m, x, c: x - x * c.one,
    "abs(x) - abs(-x)": lambda m, x, c: m.abs(x) - m.abs(-x),
    "x * 0": lambda m, x, c: x * c.zero,
    "0 * x": lambda m, x, c: c.zero * x,
    "x * -0": lambda m, x, c: x * c.neg_zero,
    "x + 0": lambda m, x, c: x + c.zero,
    "0 - x": lambda m, x, c: c.zero - x,
    "x / x": lambda m, x, c: x / x,
    "x / 0": lambda m, x, c: x / c.zero,
    "0 / x": lambda m, x, c: c.zero / x,
    "inf / x": lambda m, x, c: c.inf / x,
    "x // x": lambda m, x, c: x // x,
    "maximum(x, 1)": lambda m, x, c: m.maximum(x, c.one),
    "minimum(x, 1)": lambda m, x, c: m.minimum(x, c.one),
    "maximum(x, -x)": lambda m, x, c: m.maximum(x, -x),
    "minimum(x + 1, x)": lambda m, x, c: m.minimum(x + c.one, x),
    "x != x": lambda m, x, c: x != x,
    "x == x": lambda m, x, c: x == x,
    "x != 1": lambda m, x, c: x != c.one,
    "x + 1 != x": lambda m, x, c: x + c.one != x,
    "x + 1 == x": lambda m, x, c: x + c.one == x,
    "x + 1 < x": lambda m, x, c: x + c.one < x,
    "x + 1 >= x": lambda m, x, c: x + c.one >= x,
    "x - 1 <= x": lambda m, x, c: x - c.one <= x,
    "isnan(x)": lambda m, x, c: m.isnan(x),
    # inside reductions, whose constants stay literals
    "max(x - (x + 0))": lambda m, x, c: m.max((x - (x + c.zero))[:, None], axis=1),
    "max(x * 0)": lambda m, x, c: m.max((x * c.zero)[:, None], axis=1),
    "min(x / x)": lambda m, x, c: m.min((x / x)[:, None], axis=1),
}
# WGSL leaves the sign of min/max of zeros of both signs open (and NumPy's float16
# and float32 loops disagree on it): zeros compare by value there.
ZERO_SIGN_OPEN = {"maximum(x, -x)"}


class Constants:
    """The constants of a case as Python floats, or as arrays shaped like `x`."""

    def __init__(self, make):
        self.zero, self.one, self.two = make(0.0), make(1.0), make(2.0)
        self.neg_zero, self.inf = make(-0.0), make(np.inf)


@pytest.fixture(scope="module", autouse=True)
def webgpu_platform():
    old = os.environ.get("JAXWG_PLATFORMS")
    os.environ["JAXWG_PLATFORMS"] = "webgpu"
    try:
        jaxwg.devices("webgpu")
    except RuntimeError as e:  # no adapter on this machine
        pytest.skip(str(e))
    yield
    if old is None:
        del os.environ["JAXWG_PLATFORMS"]
    else:
        os.environ["JAXWG_PLATFORMS"] = old


def assert_same_values(got: np.ndarray, want: np.ndarray, name: str, zero_sign: bool = True):
    """Equal dtypes and values; floats bit for bit (any NaN matches any NaN)."""
    assert got.dtype == want.dtype, f"{name}: dtype {got.dtype} != {want.dtype}"
    if want.dtype.kind != "f":
        np.testing.assert_array_equal(got, want, err_msg=name)
        return
    nan = np.isnan(want)
    bits = np.dtype(f"u{want.dtype.itemsize}")
    same = np.where(nan, np.isnan(got), got.view(bits) == want.view(bits))
    if not zero_sign:
        same |= (got == 0) & (want == 0)
    assert same.all(), f"{name}: got {got.tolist()}, NumPy {want.tolist()} (inputs {SPECIALS})"


@pytest.fixture(params=[np.float32, np.float16, np.float64], ids=["f32", "f16", "f64"])
def float_dtype(request):
    """Each float dtype the adapter computes in (float64 with jax_enable_x64 on)."""
    dtype = request.param
    if not jaxwg.devices("webgpu")[0].backend.supports(kdt.from_numpy(np.dtype(dtype))):
        pytest.skip(f"the adapter does not compute in {np.dtype(dtype)}")
    jaxwg.config.update("jax_enable_x64", dtype == np.float64)
    try:
        yield dtype
    finally:
        jaxwg.config.update("jax_enable_x64", False)


@pytest.mark.parametrize("constants", ["literal", "array"])
@pytest.mark.parametrize("mode", ["eager", "jit"])
@pytest.mark.parametrize("name", list(CASES), ids=lambda name: name.replace(" ", ""))
def test_special_values_match_numpy(name, mode, constants, float_dtype):
    dtype = float_dtype
    fn = CASES[name]
    xs = np.array(SPECIALS, dtype)
    if constants == "literal":
        c, np_c = Constants(lambda v: v), Constants(lambda v: v)
    else:
        c = Constants(lambda v: jnp.asarray(np.full(xs.shape, v, dtype)))
        np_c = Constants(lambda v: np.full(xs.shape, v, dtype))
    run = (lambda x: fn(jnp, x, c)) if mode == "eager" else jaxwg.jit(lambda x: fn(jnp, x, c))
    got = np.asarray(run(jnp.asarray(xs)))
    with np.errstate(all="ignore"):
        want = np.asarray(fn(np, xs, np_c))
    assert_same_values(got, want, f"{name} ({mode}, {constants} constants)",
                       zero_sign=name not in ZERO_SIGN_OPEN)


# Finite values that algebra would cancel differently from IEEE rounding: the sum's
# rounding error of a compensated (Kahan, two-sum) algorithm, and products that overflow.
FINITE = {
    "(x + y) - x": lambda x, y: (x + y) - x,
    "x - (x + y)": lambda x, y: x - (x + y),
    "((x + y) - x) - y": lambda x, y: ((x + y) - x) - y,
    "(x * y) / x": lambda x, y: (x * y) / x,
    "(x + y) - y": lambda x, y: (x + y) - y,
    # constants in a sum chain fold together: (x + 1e8) - 1e8 to x
    "(x + 1e8) - 1e8": lambda x, y: (x + 1e8) - 1e8,
    "(y - 3) + 3": lambda x, y: (y - 3.0) + 3.0,
}


# x, y per dtype: sums that lose y, products that overflow
FINITE_OPERANDS = {
    np.float32: ([1e30, 3e38, 1.0, 1e8, -3e38, 0.1, 16777216.0],
                 [1.0, 1e31, 1e-8, 1.0, 5e37, 0.2, 1.0]),
    np.float64: ([1e300, 1.7e308, 1.0, 1e16, -1.7e308, 0.1, 2.0 ** 53],
                 [1.0, 1e301, 1e-17, 1.0, 1e308, 0.2, 1.0]),
}


@pytest.mark.parametrize("mode", ["eager", "jit"])
@pytest.mark.parametrize("name", list(FINITE), ids=lambda name: name.replace(" ", ""))
def test_finite_results_are_not_reassociated(name, mode, float_dtype):
    """lavapipe folded (x + y) - x to y: 1 for 1e30 + 1, where IEEE gives 0."""
    if float_dtype not in FINITE_OPERANDS:
        pytest.skip("float16 computes in float32")
    xs, ys = (np.array(v, float_dtype) for v in FINITE_OPERANDS[float_dtype])
    fn = FINITE[name]
    run = fn if mode == "eager" else jaxwg.jit(fn)
    got = np.asarray(run(jnp.asarray(xs), jnp.asarray(ys)))
    with np.errstate(all="ignore"):
        want = fn(xs, ys)
    assert_same_values(got, want, f"{name} ({mode})")


# Math functions at the special values themselves, where results are exact.
MATH = ["exp", "exp2", "expm1", "log", "log2", "log1p", "sqrt", "sin", "cos", "tan", "tanh",
        "arctan", "arcsinh", "sinh", "cosh", "floor", "ceil", "trunc", "abs"]


@pytest.mark.parametrize("mode", ["eager", "jit"])
@pytest.mark.parametrize("name", MATH)
def test_math_of_special_values(name, mode, float_dtype):
    if float_dtype == np.float16:
        pytest.skip("float32 and float64")
    xs = np.array([np.inf, -np.inf, np.nan, -np.nan, -0.0, 0.0], float_dtype)
    fn = getattr(jnp, name) if mode == "eager" else jaxwg.jit(getattr(jnp, name))
    with np.errstate(all="ignore"):
        want = getattr(np, name)(xs)
    assert_same_values(np.asarray(fn(jnp.asarray(xs))), want, f"{name} ({mode})")



def test_fast_math_takes_effect_at_the_next_call():
    """Executables are keyed on the setting and jit on the configuration: switching it
    changes the next kernel compiled, eagerly and under jit, and switching back restores
    the guards."""
    f = jaxwg.jit(lambda v: v - v)
    x = jnp.asarray(np.array([np.inf, 1.0], np.float32))
    guarded = f.lower(x).as_text(dialect="wgsl")
    jaxwg.config.update("jaxwg_fast_math", True)
    try:
        fast = f.lower(x).as_text(dialect="wgsl")
        np.asarray(x - x), np.asarray(f(x))  # runs, whatever the compiler folds
    finally:
        jaxwg.config.update("jaxwg_fast_math", False)
    assert "sub_self_f32" in guarded and "sub_self_f32" not in fast
    for got in (np.asarray(x - x), np.asarray(f(x))):
        assert_same_values(got, np.array([np.nan, 0.0], np.float32), "x - x")


@pytest.mark.parametrize("float_dtype", [np.float16, np.float32])
def test_a_product_with_a_contradicting_mask_keeps_nan_for_infinities(float_dtype):
    """`x * (b & ~b)` is `x * 0.0`: NaN for inf and NaN. Shader compilers fold `b & ~b` to
    false and then the product to 0; jaxwg folds it first, so the guard for a product with
    0.0 sees it (a random expression tree found it in float16 on lavapipe)."""
    x = np.array([np.inf, -np.inf, np.nan, 2.0, -0.0], float_dtype)
    b = np.array([True, False, True, False, True])
    got = jaxwg.jit(lambda x, b: x * (b & ~b).astype(x.dtype))(x, b)
    np.testing.assert_array_equal(np.asarray(got), x * np.zeros_like(x))


@pytest.mark.parametrize("float_dtype", [np.float16, np.float32])
@pytest.mark.parametrize("zero", ["b & (b ^ b)", "i ^ i", "i - i", "b & (b < b)", "i != i"])
def test_a_product_with_an_integer_zero_keeps_nan_for_infinities(float_dtype, zero):
    """`x ^ x`, integer `x - x`, `x < x` and integer `x != x` are 0 to a shader compiler,
    which then folds the product with their cast to 0; jaxwg folds them first (random
    expression trees drew `x * cast<float16>(b & (b ^ b))` and `x * cast<float16>(b & (b <
    b))` on lavapipe: 0.0 where inf * 0 is NaN)."""
    x = np.array([np.inf, -np.inf, np.nan, 2.0, -0.0], float_dtype)
    b = np.array([True, False, True, False, True])
    i = np.arange(5, dtype=np.int32) * 7
    zeros = {"b & (b ^ b)": lambda b, i: b & (b ^ b), "i ^ i": lambda b, i: i ^ i, "i - i": lambda b, i: i - i,
             "b & (b < b)": lambda b, i: b & (b < b), "i != i": lambda b, i: i != i}
    got = jaxwg.jit(lambda x, b, i: x * zeros[zero](b, i).astype(x.dtype))(x, b, i)
    np.testing.assert_array_equal(np.asarray(got), x * np.zeros_like(x))


@pytest.mark.parametrize("square", [True, False], ids=["sum of squares", "sum"])
def test_sums_of_outer_products_keep_ieee_terms(square):
    """Each example's sum over an outer product x_a * d_b (squared: a per-example gradient
    norm) has unrolled terms that share factors; they are added as opaque copies (of the
    term, or of a square's operand) rather than through guarded adds. Overflowing
    products, inf * 0 and NaN must still reach the sums as IEEE float32 terms give them.
    Rows of 160 x 128 terms: past MAX_THREAD_TERMS, so that every adapter sums them as a
    split reduction (software adapters tile shorter ones as products)."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((6, 160)).astype(np.float32)
    d = rng.standard_normal((6, 128)).astype(np.float32)
    assert 160 * 128 > MAX_THREAD_TERMS
    x[1, 5] = np.inf                     # an infinite term
    d[2, 7] = np.nan                     # a NaN term
    x[3, 0], d[3, 0] = 1e20, 1e20        # a product past float32's range
    x[4, 3], d[4, :] = 0.0, np.inf       # 0 * inf
    x[5] *= 1e-12                        # squares below float32's range
    d[5] *= 1e-12
    with np.errstate(all="ignore"):
        terms = x[:, :, None] * d[:, None, :]  # float32 terms, as the kernel's
        terms = terms ** 2 if square else terms
        want = terms.astype(np.float64).sum(axis=(1, 2))

    def f(x, d):
        t = x[:, :, None] * d[:, None, :]
        return jnp.sum(t ** 2 if square else t, axis=(1, 2))
    assert "opaque_f32(" in jaxwg.jit(f).lower(x, d).as_text(dialect="wgsl")
    got = np.asarray(jaxwg.jit(f)(x, d)).astype(np.float64)
    finite = np.isfinite(want)
    assert np.array_equal(np.isnan(got), np.isnan(want)), (got, want)
    assert np.array_equal(got[np.isinf(want)], want[np.isinf(want)]), (got, want)
    # float32 sums of 20,480 terms: a few ulp of the sum of their magnitudes
    scale = np.abs(terms).astype(np.float64).sum(axis=(1, 2))
    np.testing.assert_array_less(np.abs(got[finite] - want[finite]), 1e-5 * scale[finite] + 1e-45)
