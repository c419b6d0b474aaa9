"""jax_enable_x64: float64 where the device computes it; integers stay 32-bit."""

import math

import numpy as np
import pytest

import jaxwg
import jaxwg.numpy as jnp
from jaxwg.core import dtypes

from .helpers import assert_array


@pytest.fixture
def x64():
    jaxwg.config.update("jax_enable_x64", True)
    yield
    jaxwg.config.update("jax_enable_x64", False)


def test_x64_off_narrows_to_32_bits(platform):
    assert jnp.asarray(np.ones(2, np.float64)).dtype == np.float32
    assert jnp.asarray(1.5).dtype == np.float32
    assert jnp.asarray(np.arange(2, dtype=np.int64)).dtype == np.int32


def test_x64_on_enables_float64(platform, x64):
    if not jaxwg.devices()[0].backend.supports(dtypes.float64):
        pytest.skip("the adapter has no shader-f64")
    x = jnp.asarray(np.array([1.0, 2.0]) / 3)
    assert x.dtype == np.float64
    assert jnp.asarray(1.5).dtype == np.float64
    assert_array(x * 3 + 1e-12, np.array([1.0, 2.0]) + 1e-12, rtol=1e-15)
    assert_array(jnp.sum(x), np.float64(1.0), rtol=1e-15)
    assert (jnp.arange(3) * 1.0).dtype == np.float64


def test_x64_on_keeps_32_bit_integers(platform, x64):
    assert jnp.asarray(3).dtype == np.int32
    assert jnp.arange(3).dtype == np.int32
    assert jnp.asarray(np.arange(2, dtype=np.int64)).dtype == np.int32


def test_float64_sorts_searches_and_top_k_in_full_precision(platform, x64):
    """float64 order keys are three float32 pieces of the significand after the binade:
    values equal in float32 used to stay unsorted (1 + 1e-12 before 1.0)."""
    if not jaxwg.devices()[0].backend.supports(dtypes.float64):
        pytest.skip("the adapter has no shader-f64")
    rng = np.random.default_rng(5)
    z = rng.standard_normal(300) * 10.0 ** rng.integers(-300, 300, 300)
    specials = [1 + 1e-12, 1.0, 1 + 2e-12, -1 - 1e-15, -1.0, np.inf, -np.inf, np.nan, -0.0, 0.0,
                5e-324, -5e-324, 2.0 ** -1022, 3e38, 3.0000001e38, 1e300, -1e300]
    z = np.concatenate([z, z * (1 + 2e-16), specials])
    np.testing.assert_array_equal(np.asarray(jnp.argsort(jnp.asarray(z))),
                                  np.argsort(z, kind="stable"))
    ordered = np.sort(z)
    for side in ("left", "right"):
        np.testing.assert_array_equal(
            np.asarray(jnp.searchsorted(jnp.asarray(ordered), jnp.asarray(z), side=side)),
            np.searchsorted(ordered, z, side=side))
    _, top = jaxwg.lax.top_k(jnp.asarray(z), 10)
    # NaN first, then the largest (numpy's argsort puts the NaN last)
    np.testing.assert_array_equal(np.asarray(top), np.r_[np.flatnonzero(np.isnan(z)),
                                                         np.argsort(-np.nan_to_num(z, nan=-np.inf),
                                                                    kind="stable")[:9]])


# float64 functions, with the interval each is sampled on, against NumPy and SciPy. The
# lowering writes several as series or refinements whose float32 forms were used for
# float64 too: expm1 was 2e5 ulp off, log1p 7e3 (and through them sinh, asinh, acosh,
# atanh, logaddexp, xlog1py), erfinv 9e8 (float32's precision). WebGPU computes exp, exp2,
# log, log2 and tanh of float64 in builtins' helpers (SPIR-V has none).
FLOAT64_FUNCTIONS = {
    "exp": (jnp.exp, np.exp, (-745, 709)),
    "exp2": (jnp.exp2, np.exp2, (-1074, 1023)),
    "log": (lambda x: jnp.log(jnp.exp2(x)), lambda x: np.log(np.exp2(x)), (-1074, 1023)),
    "log2": (lambda x: jnp.log2(x * x), lambda x: np.log2(x * x), (1e-160, 1e150)),
    "power": (lambda x: jnp.power(x, 0.37), lambda x: np.power(x, 0.37), (0, 1e5)),
    # |y log2 x| up to 1000: one float64 exp2(y log2 x) was 180 ulp off there
    "power_of_base": (lambda x: jnp.power(1.0001, x), lambda x: np.power(1.0001, x), (-7e6, 7e6)),
    "power_large": (lambda x: jnp.power(x, 300.5), lambda x: np.power(x, 300.5), (0.1, 10)),
    "tanh": (jnp.tanh, np.tanh, (-25, 25)),
    "expm1": (jnp.expm1, np.expm1, (-3, 3)),
    "log1p": (jnp.log1p, np.log1p, (-0.9, 3)),
    "sinh": (jnp.sinh, np.sinh, (-5, 5)),
    # exp inside larger kernels, to where it nearly overflows: NVIDIA's compiler folded
    # exp's two-step reduction into one there (200 ulp at |x| ~ 700 on an H100).
    "sinh_wide": (jnp.sinh, np.sinh, (-710, 710)),
    "cosh": (jnp.cosh, np.cosh, (-710, 710)),
    "expit": (jaxwg.scipy.special.expit, lambda x: 1 / (1 + np.exp(-x)), (-700, 700)),
    "softplus": (jaxwg.nn.softplus, lambda x: np.logaddexp(x, 0), (-700, 700)),
    "arcsinh": (jnp.arcsinh, np.arcsinh, (-5, 5)),
    "arccosh": (jnp.arccosh, np.arccosh, (1, 5)),
    "arctanh": (jnp.arctanh, np.arctanh, (-0.99, 0.99)),
    "logaddexp": (lambda x: jnp.logaddexp(x, 0.5), lambda x: np.logaddexp(x, 0.5), (-10, 10)),
    "xlog1py": (lambda x: jaxwg.scipy.special.xlog1py(2.0, x), None, (-0.5, 3)),
    "erfinv": (jaxwg.scipy.special.erfinv, None, (-1, 1)),
    # WebGPU's float64 sin, cos and tan reduce by pi/2 in two parts below any argument
    # (Payne and Hanek), and atan by a table of atan(k/8): builtins' helpers.
    "sin": (jnp.sin, np.sin, (-10, 10)),
    "cos": (jnp.cos, np.cos, (-10, 10)),
    "tan": (jnp.tan, np.tan, (-1e6, 1e6)),
    "arcsin": (jnp.arcsin, np.arcsin, (-1, 1)),
    "arccos": (jnp.arccos, np.arccos, (-1, 1)),
    "arctan": (jnp.arctan, np.arctan, (-20, 20)),
    "arctan2": (lambda x: jnp.arctan2(x, -0.7), lambda x: np.arctan2(x, -0.7), (-3, 3)),
    # WebGPU's erf and erfc: erf's series below 1/2, erfc = e^(-x^2) erfcx(x) above
    "erf": (jaxwg.scipy.special.erf, np.vectorize(math.erf), (-7, 7)),
    "erfc": (jaxwg.scipy.special.erfc, np.vectorize(math.erfc), (-7, 27)),
}
# erfc against Python's math.erfc, itself up to 2 ulp from mpmath (SciPy's is 500 ulp off
# near x = 25); WebGPU's is within 3 ulp of mpmath.
FLOAT64_ULPS = {"erfc": 6}


@pytest.mark.parametrize("name", sorted(FLOAT64_FUNCTIONS))
def test_float64_functions_are_float64_accurate(platform, x64, name):
    """Within 4 ulp of NumPy / SciPy (JAX's CPU backend: within 4 ulp, but 4.6e5 for
    erfinv near 1), on random and evenly spaced points, including erfinv's tail up to
    1 - 2^-53 and exp's and log's subnormal results and arguments."""
    import scipy.special

    fn, ref, (lo, hi) = FLOAT64_FUNCTIONS[name]
    ref = ref or {"xlog1py": lambda x: scipy.special.xlog1py(2.0, x),
                  "erfinv": scipy.special.erfinv}[name]
    rng = np.random.default_rng(0)
    x = np.concatenate([rng.uniform(lo, hi, 2000), np.linspace(lo, hi, 101)[1:-1]])
    if name == "erfinv":
        x = np.concatenate([x, 1 - np.logspace(-16, -1, 100), [2.0 ** -53 - 1]])
    got = np.asarray(fn(jnp.asarray(x)))
    want = ref(x)
    assert got.dtype == np.float64
    ulps = np.abs(got - want) / np.spacing(np.abs(want))
    assert ulps.max() <= FLOAT64_ULPS.get(name, 4), f"{name}: {ulps.max()} ulp at x = {x[ulps.argmax()]!r}"


def test_float64_trigonometry_of_any_argument(platform, x64):
    """sin, cos and tan of float64 across the whole exponent range, within 4 ulp of NumPy,
    and on WebGPU at the double nearest a multiple of pi/2 (Muller's worst case for the
    reduction, 2^-61 from it), where NumPy's and JAX's cos are 8 ulp off: the value there
    is mpmath's at 3000 bits (-4.687165924254627611e-19). Special values as NumPy."""
    if not jaxwg.devices()[0].backend.supports(dtypes.float64):
        pytest.skip("the adapter has no shader-f64")
    rng = np.random.default_rng(3)
    x = rng.uniform(0.5, 1, 3000) * 2.0 ** rng.integers(-1, 1024, 3000)
    x = np.concatenate([x, -x, [1e22, 1e300, np.finfo(np.float64).max, np.pi / 2, 1e5]])
    for fn, ref in ((jnp.sin, np.sin), (jnp.cos, np.cos), (jnp.tan, np.tan)):
        got, want = np.asarray(fn(jnp.asarray(x))), ref(x)
        ulps = np.abs(got - want) / np.spacing(np.abs(want))
        assert ulps.max() <= 4, f"{ref.__name__}: {ulps.max()} ulp at x = {x[ulps.argmax()]!r}"
    hard = 6381956970095103 * 2.0 ** 797
    cosine = np.asarray(jnp.cos(jnp.asarray([hard, -hard])))
    if platform == "webgpu":
        np.testing.assert_allclose(cosine, -4.687165924254627611e-19, rtol=2 * 2.0 ** -52)
    else:  # NumPy's cos, 8 ulp off as JAX's CPU backend is
        np.testing.assert_array_equal(cosine, np.cos([hard, -hard]))
    specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 5e-324, -1e-300, np.pi / 4])
    for name in ("sin", "cos", "tan", "arcsin", "arccos", "arctan"):
        got = np.asarray(getattr(jnp, name)(jnp.asarray(specials)))
        with np.errstate(invalid="ignore"):
            want = getattr(np, name)(specials)
        np.testing.assert_allclose(got, want, rtol=4 * 2.0 ** -52, err_msg=name)
        number = ~np.isnan(want)  # (NumPy's NaN from sin(inf) has its sign bit set)
        assert np.array_equal(np.signbit(got[number]), np.signbit(want[number])), name
    y, z = np.meshgrid(specials, specials)
    got, want = np.asarray(jnp.arctan2(jnp.asarray(y), jnp.asarray(z))), np.arctan2(y, z)
    np.testing.assert_allclose(got, want, rtol=4 * 2.0 ** -52)
    assert np.array_equal(np.signbit(got[~np.isnan(want)]), np.signbit(want[~np.isnan(want)]))


@pytest.mark.parametrize("shape,axis", [((4, 3), 1), ((4, 3), 0), ((3, 1000), 1), ((1000, 3), 0),
                                        ((70_000,), 0)])
def test_float64_max_and_min_order_zeros_as_xla(platform, x64, shape, axis):
    """-0.0 is below +0.0 in float64 max and min too, elementwise and in every reduction
    layout (rows, columns, a split sum of 70,000): max is -0.0 only when all its zeros are,
    min when any is. (NumPy's sign follows the argument order, so the rule is the oracle.)"""
    if not jaxwg.devices()[0].backend.supports(dtypes.float64):
        pytest.skip("the adapter has no shader-f64")
    rng = np.random.default_rng(4)
    x = np.where(rng.random(shape) < 0.5, -0.0, 0.0)
    x.reshape(-1)[::7] = -0.0  # rows of -0.0 only, too, in the smaller shapes
    a = jnp.asarray(x)
    negative = np.signbit(x)
    np.testing.assert_array_equal(np.signbit(np.asarray(jnp.max(a, axis=axis))), negative.all(axis))
    np.testing.assert_array_equal(np.signbit(np.asarray(jnp.min(a, axis=axis))), negative.any(axis))
    y = np.roll(x, 1)
    both = np.signbit(x) & np.signbit(y)
    either = np.signbit(x) | np.signbit(y)
    np.testing.assert_array_equal(np.signbit(np.asarray(jnp.maximum(a, jnp.asarray(y)))), both)
    np.testing.assert_array_equal(np.signbit(np.asarray(jnp.minimum(jnp.asarray(y), a))), either)
