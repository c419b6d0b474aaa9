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
