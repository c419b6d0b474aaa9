"""Edges of `lax.nextafter` and `lax.lgamma` against JAX, run live: bits and dtypes where
JAX's own algorithms decide them (the incomplete gamma functions' limits are in
test_special_functions.py, Poisson's in test_random.py)."""

import itertools

import numpy as np
import pytest

import jaxwg
import jaxwg.numpy as jnp
from jaxwg import lax
from jaxwg.core import dtypes

from .helpers import jax, rounds_correctly

_UNSIGNED = {2: np.uint16, 4: np.uint32, 8: np.uint64}


def _same_bits(got, want, held=None):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, want.dtype)
    if held is not None:
        got, want = got[held], want[held]
    nan = np.isnan(want)
    assert np.array_equal(np.isnan(got), nan)
    bits = _UNSIGNED[got.dtype.itemsize]
    np.testing.assert_array_equal(got[~nan].view(bits), want[~nan].view(bits))


# -- lax.nextafter -----------------------------------------------------------------------------


def _bit_edges(dtype):
    info = np.finfo(dtype)
    edges = np.array([0.0, -0.0, info.smallest_subnormal, -info.smallest_subnormal, info.tiny,
                      -info.tiny, info.max, -info.max, np.inf, -np.inf, np.nan, 1.0, -1.0, 0.5,
                      3.0, 1e-3], dtype)
    rng = np.random.default_rng(0)
    n = np.dtype(dtype).itemsize * 8
    random_bits = rng.integers(0, 2 ** n, 200, dtype=np.uint64).astype(_UNSIGNED[n // 8])
    x, y = (np.array(v, dtype) for v in zip(*itertools.product(edges, edges)))
    return (np.concatenate([x, random_bits.view(dtype)]),
            np.concatenate([y, rng.permutation(random_bits).view(dtype)]))


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_nextafter_matches_jax_bit_for_bit(platform, dtype):
    # JAX's answer, except where x or y is subnormal: XLA's CPU backend flushes them
    # there (nextafter(1e-45, -1e-45) is -1e-45), and NumPy's IEEE answer is what its
    # algorithm gives without flushing; platforms that flush are held to the rest.
    wide = dtype == np.float64
    if wide and not jaxwg.devices()[0].backend.supports(dtypes.float64):
        pytest.skip("the adapter has no shader-f64")
    with jaxwg.enable_x64(wide), jax.enable_x64(wide):
        x, y = _bit_edges(dtype)
        got = lax.nextafter(jnp.asarray(x), jnp.asarray(y))
        info = np.finfo(dtype)
        subnormal = ((np.abs(x) < info.tiny) & (x != 0)) | ((np.abs(y) < info.tiny) & (y != 0))
        with np.errstate(all="ignore"):
            want = np.where(subnormal, np.nextafter(x, y), np.asarray(jax.lax.nextafter(x, y)))
        _same_bits(got, want, None if rounds_correctly() else ~subnormal)
        _same_bits(jaxwg.jit(jnp.nextafter)(jnp.asarray(x), jnp.asarray(y)), want,
                   None if rounds_correctly() else ~subnormal)


def test_nextafter_types_transformations_and_errors():
    for args in [(1.0, 2.0), (np.float16(1), np.float16(-1)), (np.ones(3, np.float32), 2.0)]:
        got = lax.nextafter(*(jnp.asarray(v) if isinstance(v, np.ndarray) else v for v in args))
        want = jax.lax.nextafter(*args)
        assert (got.dtype, got.weak_type) == (want.dtype, want.weak_type)
        _same_bits(got, want)
    x, y = np.float32([1, -2, 0]), np.float32([0, 5, -1])
    _same_bits(jaxwg.vmap(lax.nextafter)(jnp.asarray(x), jnp.asarray(y)), jax.vmap(jax.lax.nextafter)(x, y))
    _same_bits(jaxwg.vmap(lax.nextafter, (0, None))(jnp.asarray(x), 1.0), jax.lax.nextafter(x, 1.0))
    assert "nextafter" in str(jaxwg.make_jaxpr(lax.nextafter)(1.0, 2.0))
    # no derivative rule, as JAX's
    for differentiate in (lambda f: jaxwg.grad(f)(1.0, 2.0), lambda f: jaxwg.jvp(f, (1.0, 2.0), (1.0, 0.0))):
        with pytest.raises(NotImplementedError, match="Differentiation rule for 'nextafter' not implemented"):
            differentiate(lax.nextafter)
    with pytest.raises(TypeError, match="nextafter requires arguments to have the same dtypes"):
        lax.nextafter(jnp.float32(1), jnp.float16(2))
    with pytest.raises(TypeError, match="nextafter does not accept dtype int32"):
        lax.nextafter(jnp.int32(1), jnp.int32(2))
    with pytest.raises(TypeError, match="nextafter got incompatible shapes"):
        lax.nextafter(jnp.ones(3), jnp.ones(2))


# -- lax.lgamma ----------------------------------------------------------------------------------


def test_lgamma_at_small_integers_is_jaxs(platform):
    # XLA's Lanczos sum with its product and first sum fused: lgamma(2) is exactly 0 and
    # lgamma(1) JAX's 4.8e-7 (float32), and gamma(3) = exp(lgamma(3)) JAX's 2.0000005
    for dtype in (np.float16, np.float32):
        x = np.arange(1, 6, dtype=dtype)
        _same_bits(lax.lgamma(jnp.asarray(x)), jax.lax.lgamma(x))
    assert lax.lgamma(jnp.float32(2)).item() == 0.0
    _same_bits(jnp.exp(lax.lgamma(jnp.float32(3))), jax.numpy.exp(jax.lax.lgamma(np.float32(3))))


def test_lgamma_stays_within_a_few_ulp_of_jaxs(platform):
    # Over both sides of the reflection, the poles' neighbourhoods and large x, in units of
    # max(|lgamma|, 1)'s ulp: 8 at most for x >= 1/2 and 16 below (the reflection's log sin
    # amplifies log's rounding near the poles), as measured on the CPU and lavapipe.
    rng = np.random.default_rng(1)
    x = np.concatenate([rng.uniform(-30, 30, 2000), rng.uniform(0.5, 3, 500),
                        np.exp(rng.uniform(-20, 80, 500)), -np.exp(rng.uniform(-20, 12, 500)),
                        np.arange(-20, 20) + 1e-3, np.arange(-20, 20) - 1e-3]).astype(np.float32)
    x = x[(np.floor(x) != x) | (x > 0)]
    want = np.asarray(jax.lax.lgamma(x), np.float64)
    unit = np.spacing(np.maximum(np.abs(want), 1).astype(np.float32)).astype(np.float64)
    errors = np.abs(np.asarray(lax.lgamma(jnp.asarray(x)), np.float64) - want) / unit
    assert errors[x >= 0.5].max() <= 8 and errors[x < 0.5].max() <= 16
