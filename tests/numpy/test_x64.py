"""jax_enable_x64: float64 where the device computes it; integers stay 32-bit."""

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
