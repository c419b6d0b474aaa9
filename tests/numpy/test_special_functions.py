"""`jaxwg.lax` special functions against `jax.lax` (and SciPy in float64 for accuracy):
lgamma, digamma, igamma, igammac, igamma_grad_a, random_gamma_grad, population_count,
clz."""

import numpy as np
import pytest
import scipy.special as sc
from hypothesis import given, settings, strategies as st

import jaxwg
import jaxwg.numpy as jnp
from jaxwg import lax
from jaxwg.core import dtypes

from .helpers import assert_array, jax


def _points(seed=1):
    """float32 points over wide ranges: around the poles, the small roots 1 and 2, tiny
    and huge magnitudes (the poles themselves are checked separately)."""
    rng = np.random.default_rng(seed)
    x = np.concatenate([rng.uniform(-30, 30, 2000), rng.uniform(0.5, 3, 500),
                        np.exp(rng.uniform(-20, 80, 500)), -np.exp(rng.uniform(-20, 12, 500))])
    x = x.astype(np.float32)
    return x[np.floor(x) != x]


def _errors(got, want):
    """Absolute errors in ulps of max(|want|, 1) (relative where the value is large,
    absolute near the roots where a relative error means nothing)."""
    unit = np.spacing(np.maximum(np.abs(want), 1).astype(np.float32)).astype(np.float64)
    return np.abs(np.asarray(got, np.float64) - want) / unit


@pytest.mark.parametrize("name, reference", [("lgamma", sc.gammaln), ("digamma", sc.digamma)])
def test_lgamma_digamma_are_as_accurate_as_jaxs(platform, name, reference):
    # The bound is JAX's own worst error over the same points, per side of the
    # reflection, plus 4 ulp for rounding that differs between the two.
    x = _points()
    want = reference(x.astype(np.float64))
    ours = _errors(getattr(lax, name)(jnp.asarray(x)), want)
    theirs = _errors(getattr(jax.lax, name)(x), want)
    for side in (x >= 0.5, x < 0.5):
        assert ours[side].max() <= theirs[side].max() + 4, (ours[side].max(), theirs[side].max())


EDGES = np.array([0.0, -0.0, -1.0, -2.0, -1e10, np.inf, -np.inf, np.nan, 1e30, 3e38, 1.0, 2.0,
                  0.5, 1e-30, -1e-30, 7.3, -7.3, -2.5], np.float32)


@pytest.mark.parametrize("name", ["lgamma", "digamma"])
def test_lgamma_digamma_edges_are_jaxs(run, name):
    got = np.asarray(run(getattr(lax, name), jnp.asarray(EDGES)))
    want = np.asarray(getattr(jax.lax, name)(EDGES))
    np.testing.assert_allclose(got, want, rtol=2e-6, atol=1e-6)  # inf, nan in the same places


def test_lgamma_digamma_dtypes_and_errors():
    for dtype in (np.float16, np.float32):
        x = np.array([0.3, 2.5, -1.5, 9.0], dtype)
        for name in ("lgamma", "digamma"):
            got = getattr(lax, name)(jnp.asarray(x))
            want = getattr(jax.lax, name)(x)
            assert got.dtype == want.dtype
            np.testing.assert_allclose(np.asarray(got, np.float32), np.asarray(want, np.float32),
                                       rtol=1e-3 if dtype == np.float16 else 2e-6)
    assert lax.lgamma(2.5).weak_type
    with pytest.raises(TypeError, match="lgamma does not accept dtype int32"):
        lax.lgamma(jnp.arange(3))
    with pytest.raises(TypeError, match="digamma does not accept dtype bool"):
        lax.digamma(jnp.ones(2, bool))


X_GRAD = np.array([-2.5, -0.3, 0.2, 0.5, 1.4616, 2.0, 7.5, 40.0], np.float32)


def test_gradients_are_jaxs(platform):
    # grad(lgamma) is digamma and grad(digamma) is trigamma (JAX: polygamma(1, x))
    for name in ("lgamma", "digamma"):
        ours = jaxwg.vmap(jaxwg.grad(getattr(lax, name)))(jnp.asarray(X_GRAD))
        theirs = jax.vmap(jax.grad(getattr(jax.lax, name)))(X_GRAD)
        np.testing.assert_allclose(np.asarray(ours), np.asarray(theirs), rtol=2e-5, atol=2e-6)


def _gamma_points(n=600, seed=0):
    rng = np.random.default_rng(seed)
    a = np.exp(rng.uniform(-5, np.log(50), n)).astype(np.float32)
    x = (a * np.exp(rng.normal(0, 1, n))).astype(np.float32)
    return a, x


@pytest.mark.parametrize("name, reference", [("igamma", sc.gammainc), ("igammac", sc.gammaincc)])
def test_igamma_igammac_are_as_accurate_as_jax(run, name, reference):
    # For a <= 50 JAX's float32 values are within 1e-5 of the truth (its error grows
    # with a through log Gamma(a)); ours must be too.
    a, x = _gamma_points()
    want = reference(a.astype(np.float64), x.astype(np.float64))
    got = np.asarray(run(getattr(lax, name), jnp.asarray(a), jnp.asarray(x)), np.float64)
    assert np.max(np.abs(np.asarray(getattr(jax.lax, name)(a, x), np.float64) - want)) < 1e-5
    assert np.max(np.abs(got - want)) < 1e-5


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_incomplete_gamma_for_large_a_is_accurate(dtype):
    """For a > 200 with x near a, Temme's expansion (as SciPy's): the series and fraction
    would need ~sqrt(a) steps and their prefactor cancels (they gave Q(1e10, 1e10) = 1;
    JAX's float32 gives 0, its float64 0.93; the truth is 1/2). Against SciPy where it
    uses the expansion itself, |x - a| < 4.5 sqrt(a)."""
    wide = dtype == np.float64
    if wide and not jaxwg.devices()[0].backend.supports(dtypes.float64):
        pytest.skip("the adapter has no shader-f64")
    rng = np.random.default_rng(7)
    a = np.concatenate([10 ** rng.uniform(np.log10(201), 12, 60), [1e10, 2e10, 1e30]])
    x = a * (1 + rng.uniform(-1, 1, a.size) * 4.5 / np.sqrt(a))
    x[-3:] = a[-3:]
    a, x = a.astype(dtype), x.astype(dtype)
    rtol, atol = (1e-13, 1e-16) if wide else (1e-5, 2e-7)
    with jaxwg.enable_x64(wide):
        for name, reference in (("igamma", sc.gammainc), ("igammac", sc.gammaincc)):
            got = getattr(lax, name)(jnp.asarray(a), jnp.asarray(x))
            assert got.dtype == dtype
            np.testing.assert_allclose(np.asarray(got, np.float64),
                                       reference(a.astype(np.float64), x.astype(np.float64)),
                                       rtol=rtol, atol=atol)


@pytest.mark.slow  # 8 s; test_incomplete_gamma_gradients_are_jaxs runs by default
def test_derivatives_in_a_are_accurate(platform):
    # Against JAX in float64; JAX's float32 random_gamma_grad is far worse for small a.
    a, x = _gamma_points(300)
    with jax.enable_x64(True):
        grad_a = np.asarray(jax.lax.igamma_grad_a(a.astype(np.float64), x.astype(np.float64)))
        sample = np.asarray(jax.lax.random_gamma_grad(a.astype(np.float64), x.astype(np.float64)))
    np.testing.assert_allclose(np.asarray(lax.igamma_grad_a(jnp.asarray(a), jnp.asarray(x))),
                               grad_a, rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(np.asarray(lax.random_gamma_grad(jnp.asarray(a), jnp.asarray(x))),
                               sample, rtol=1e-4)


def test_incomplete_gamma_gradients_are_jaxs():
    """JAX's closed forms (the loops themselves cannot be reversed): dP/dx the Gamma(a)
    density, dP/da igamma_grad_a; Q's are their negatives."""
    a, x = _gamma_points(50, seed=1)

    def grads(jx):  # both arguments' gradients of both functions, in one program
        total = lambda *w: jx.lax.igamma(*w).sum() - 2.0 * jx.lax.igammac(*w).sum()  # noqa: E731
        return jx.jit(jx.grad(total, (0, 1)))

    ours = grads(jaxwg)(jnp.asarray(a), jnp.asarray(x))
    theirs = grads(jax)(a, x)
    for got, want in zip(ours, theirs):
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("dtype", [pytest.param(np.float32, marks=pytest.mark.slow), np.float64])  # 14 s
def test_incomplete_gamma_edges(dtype):
    # JAX's values everywhere, also at a = 0 and a = inf, where its expansions meet 0 * inf
    # or inf - inf: igamma(0, x) is NaN below x = 1 and 1 from it, igamma(inf, x) is 0
    # below 1 and NaN from there to inf, igammac(0, x > 0) is 0. The derivatives in
    # float32 only: each of JAX's functions takes seconds to compile for a dtype.
    wide = dtype == np.float64
    if wide and not jaxwg.devices()[0].backend.supports(dtypes.float64):
        pytest.skip("the adapter has no shader-f64")
    v = np.array([0.0, -0.0, 1e-3, 0.5, 1.0, 2.0, np.inf, np.nan, -1.0], dtype)
    a, x = (m.ravel() for m in np.meshgrid(v, v, indexing="ij"))
    names = ("igamma", "igammac") if wide else ("igamma", "igammac", "igamma_grad_a", "random_gamma_grad")
    rtol, atol = (1e-9, 1e-12) if wide else (2e-4, 1e-6)
    with jaxwg.enable_x64(wide), jax.enable_x64(wide):
        for name in names:
            got = getattr(lax, name)(jnp.asarray(a), jnp.asarray(x))
            want = getattr(jax.lax, name)(a, x)
            assert got.dtype == want.dtype
            np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=rtol, atol=atol)


def test_incomplete_gamma_under_jit_vmap_and_float16():
    a = np.array([[0.5, 2.0, 30.0], [1.0, 5.0, 0.1]], np.float32)
    x = np.array([[0.3, 3.0, 25.0], [2.0, 1.0, 4.0]], np.float32)
    want = np.asarray(jax.lax.igamma(a, x))
    np.testing.assert_allclose(np.asarray(jaxwg.jit(lax.igamma)(jnp.asarray(a), jnp.asarray(x))),
                               want, rtol=2e-6)
    np.testing.assert_allclose(np.asarray(jaxwg.vmap(lax.igammac)(jnp.asarray(a), jnp.asarray(x))),
                               np.asarray(jax.lax.igammac(a, x)), rtol=2e-6)
    half = lax.igamma(jnp.asarray(a, jnp.float16), jnp.asarray(x, jnp.float16))
    assert half.dtype == np.float16
    np.testing.assert_allclose(np.asarray(half, np.float32),
                               np.asarray(jax.lax.igamma(a.astype(np.float16), x.astype(np.float16)),
                                          np.float32), rtol=1e-3)
    # rank 0 broadcasts; a Python scalar takes the other's dtype
    np.testing.assert_allclose(np.asarray(lax.igamma(2.0, jnp.asarray(x))),
                               np.asarray(jax.lax.igamma(2.0, x)), rtol=2e-6)


def test_incomplete_gamma_errors():
    with pytest.raises(TypeError, match="requires arguments to have the same dtypes"):
        lax.igamma(jnp.ones(2), jnp.ones(2, jnp.float16))
    with pytest.raises(TypeError, match="igammac got incompatible shapes"):
        lax.igammac(jnp.ones(2), jnp.ones(3))
    with pytest.raises(TypeError, match="igamma does not accept dtype int32 at position 0"):
        lax.igamma(jnp.arange(2), jnp.arange(2))


INT32 = st.integers(-2 ** 31, 2 ** 31 - 1)


@settings(max_examples=8, deadline=None)
@given(values=st.lists(INT32, min_size=0, max_size=20), unsigned=st.booleans())
def test_bit_counts_are_jaxs(run, values, unsigned):
    x = np.array(values + [0, -1, 1, -2 ** 31], np.int32)
    if unsigned:
        x = x.view(np.uint32)
    for name in ("population_count", "clz"):
        got = run(getattr(lax, name), jnp.asarray(x))
        want = np.asarray(getattr(jax.lax, name)(x))
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(np.asarray(got), want)


def test_32_bit_shifts_are_jaxs(run):
    """Amounts past the width, and unsigned operands with the top bit set: an arithmetic
    shift copies that bit in for uint32 too (XLA's ShiftRightArithmetic)."""
    values = np.array([0, 1, 7, 2 ** 31 - 1, 2 ** 31, 2 ** 32 - 2, 2 ** 32 - 1], np.uint32)
    amounts = np.array([0, 1, 31, 32, 33, 2 ** 32 - 1], np.uint32)
    x, y = (a.ravel() for a in np.meshgrid(values, amounts))
    for x, y in ((x, y), (x.view(np.int32), y.view(np.int32))):
        for name in ("shift_left", "shift_right_arithmetic", "shift_right_logical"):
            got = run(getattr(lax, name), jnp.asarray(x), jnp.asarray(y))
            assert_array(got, np.asarray(getattr(jax.lax, name)(x, y)))


def test_bit_count_errors():
    with pytest.raises(TypeError, match="population_count does not accept dtype float32"):
        lax.population_count(jnp.ones(2))
    with pytest.raises(TypeError, match="clz does not accept dtype bool"):
        lax.clz(jnp.ones(2, bool))
