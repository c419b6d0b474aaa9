"""`jaxwg.scipy.special` against `jax.scipy.special`: values and gradients."""

import numpy as np
import pytest

import jaxwg
import jaxwg.numpy as jnp
from jaxwg.scipy import special

from .helpers import jax

X = np.array([-3.0, -0.5, 0.0, 0.25, 0.5, 0.9, 2.0], np.float32)
UNIT = np.array([1e-6, 0.1, 0.5, 0.9, 0.999], np.float32)


@pytest.mark.parametrize("name, x", [("erf", X), ("erfc", X), ("erfinv", np.clip(X, -0.99, 0.99)),
                                     ("expit", X), ("logit", UNIT)])
def test_unary_functions_match_jax(platform, name, x):
    ours, theirs = getattr(special, name), getattr(jax.scipy.special, name)
    np.testing.assert_allclose(np.asarray(ours(jnp.asarray(x))), np.asarray(theirs(x)), rtol=4e-6,
                               atol=1e-7)
    g = jaxwg.vmap(jaxwg.grad(ours))(jnp.asarray(x))
    np.testing.assert_allclose(np.asarray(g), np.asarray(jax.vmap(jax.grad(theirs))(x)), rtol=4e-6,
                               atol=1e-6)


@pytest.mark.parametrize("name", ["xlogy", "xlog1py"])
def test_xlogy_family_matches_jax(platform, name):
    x = np.array([0.0, 0.0, 1.5, 2.0, -1.0], np.float32)
    y = np.array([0.0, -1.0, 0.5, 3.0, 0.25], np.float32)
    ours, theirs = getattr(special, name), getattr(jax.scipy.special, name)
    np.testing.assert_allclose(np.asarray(ours(jnp.asarray(x), jnp.asarray(y))),
                               np.asarray(theirs(x, y)), rtol=2e-6, equal_nan=True)


def test_softmax_family_is_nns():
    x = np.random.default_rng(0).standard_normal((2, 5)).astype(np.float32)
    np.testing.assert_allclose(np.asarray(special.logsumexp(jnp.asarray(x), axis=1)),
                               np.asarray(jax.scipy.special.logsumexp(x, axis=1)), rtol=2e-6)
    np.testing.assert_allclose(np.asarray(special.softmax(jnp.asarray(x))),
                               np.asarray(jax.scipy.special.softmax(x)), rtol=2e-6)
