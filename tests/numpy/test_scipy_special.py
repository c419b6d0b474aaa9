"""`jaxwg.scipy.special` against `jax.scipy.special`: values and gradients."""

import numpy as np
import pytest
import scipy.special as sc

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


GAMMA_X = np.array([-2.5, -1.5, -0.5, -0.0, 0.0, -1.0, 0.3, 1.0, 2.5, 7.0, 30.0, np.inf, -np.inf,
                    np.nan], np.float32)


@pytest.mark.parametrize("name", ["gammaln", "digamma", "gamma"])
def test_gamma_functions_match_jax(platform, name):
    ours, theirs = getattr(special, name), getattr(jax.scipy.special, name)
    got = ours(jnp.asarray(GAMMA_X))
    want = theirs(GAMMA_X)
    assert got.dtype == want.dtype
    # inf, -inf and NaN (gamma's sign at +-0 and the poles) in the same places
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-5, atol=1e-6)
    # integers promote to float32, as JAX
    assert ours(jnp.arange(1, 4)).dtype == theirs(np.arange(1, 4)).dtype


def test_incomplete_gamma_and_betaln_match_jax(platform):
    a = np.array([0.5, 2.0, 10.0, 3.0], np.float32)
    x = np.array([[0.3], [2.5]], np.float32)  # broadcasts against a, as jnp does
    for name in ("gammainc", "gammaincc"):
        got = getattr(special, name)(jnp.asarray(a), jnp.asarray(x))
        np.testing.assert_allclose(np.asarray(got), np.asarray(getattr(jax.scipy.special, name)(a, x)),
                                   rtol=1e-5, atol=1e-7)
    assert special.gammainc(1, 2).dtype == jnp.float32
    # Q of a tiny a is P's series subtracted from 1: never below 0 (JAX's gives -4e-7)
    tiny = jnp.asarray(np.float32([1e-30, 1e-6]))
    q = np.asarray(special.gammaincc(tiny, jnp.asarray(np.float32([[1e-6], [0.5]]))))
    assert ((q >= 0) & (q <= 1)).all(), q
    # betaln cancels the large terms for b >= 8: within float32 rounding of the true value
    # (the naive sum of gammalns loses all digits at 1e6)
    a = np.array([0.5, 2.0, 10.0, 1e4, 1e6, 3.0, 1e-3], np.float32)
    b = np.array([3.0, 5.0, 20.0, 1e5, 2e6, 8.5, 1e7], np.float32)
    want = sc.betaln(a.astype(np.float64), b.astype(np.float64))
    np.testing.assert_allclose(np.asarray(special.betaln(jnp.asarray(a), jnp.asarray(b))), want,
                               rtol=2e-5)
    np.testing.assert_allclose(np.asarray(special.betaln(jnp.asarray(b), jnp.asarray(a))), want,
                               rtol=2e-5)


def test_dtypes_and_weak_types_are_jaxs():
    """float16 stays float16 and Python scalars stay weak (they became float32)."""
    import jax.scipy.special as jax_special

    cases = [("betaln", (np.float16([2, 10]), np.float16([3, 20]))), ("gammaln", (3.0,)),
             ("gammainc", (1.0, 2.0)), ("erf", (np.float16([0.5]),)), ("xlogy", (2, 3.0)),
             ("expit", (np.int32([1, 2]),)), ("digamma", (np.float16([2.5]),)), ("erfcx", (1.0,)),
             ("dawsn", (1.0,)), ("rel_entr", (1.0, 2.0)), ("kl_div", (1.0, 2.0)), ("logit", (0.25,))]
    for name, args in cases:
        got, want = getattr(special, name)(*args), getattr(jax_special, name)(*args)
        assert (got.dtype, got.weak_type) == (want.dtype, want.weak_type), name


def test_logit_gradient_is_jaxs_at_the_ends():
    """1 / (x (1 - x)): inf at 0 and 1 (the chain rule through the log gave NaN)."""
    x = np.float32([0.0, 1e-3, 0.5, 0.75, 1.0])
    got = jaxwg.vmap(jaxwg.grad(special.logit))(jnp.asarray(x))
    want = jax.vmap(jax.grad(jax.scipy.special.logit))(x)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6)
