"""Cumulative reductions (`jnp.cumsum` family, `lax.cumsum` family) against JAX:
dtypes, axes, reverse, NaN and inf, gradients, and a million-element sum's accuracy."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import jaxwg
import jaxwg.numpy as jnp
from jaxwg import lax

from .helpers import jax, jax_numpy

DTYPES = ["float32", "int32", "bool", "uint32"]


def _values(rng, shape, dtype):
    if dtype == "bool":
        return rng.random(shape) > 0.5
    if dtype == "float32":
        return rng.standard_normal(shape).astype(np.float32)
    return rng.integers(0, 7, shape).astype(dtype)


def _check(got, want, dtype):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape
    # float sums in another order: a few ulp of the running magnitude
    np.testing.assert_allclose(got, want, rtol=1e-5 if dtype == "float32" else 0,
                               atol=1e-5 if dtype == "float32" else 0)


@settings(max_examples=15)
@given(shape=st.lists(st.integers(1, 9), min_size=1, max_size=3).map(tuple),
       dtype=st.sampled_from(DTYPES), data=st.data())
def test_numpy_functions_match_jax(platform, shape, dtype, data):
    x = _values(np.random.default_rng(len(shape)), shape, dtype)
    axis = data.draw(st.sampled_from([None] + list(range(-len(shape), len(shape)))), label="axis")
    for name in ("cumsum", "cumprod"):
        if name == "cumprod" and dtype != "float32":
            x = np.minimum(x, 2).astype(x.dtype) if dtype != "bool" else x
        _check(getattr(jnp, name)(jnp.asarray(x), axis=axis),
               getattr(jax_numpy, name)(x, axis=axis), dtype)


@pytest.mark.parametrize("name", ["cumsum", "cumprod", "cummax", "cummin", "cumlogsumexp"])
@pytest.mark.parametrize("reverse", [False, True])
def test_lax_functions_match_jax(platform, name, reverse):
    x = np.random.default_rng(1).standard_normal((4, 37)).astype(np.float32)
    x[1, 5], x[2, 9], x[3, 0] = np.nan, np.inf, -np.inf
    for axis in (0, 1):
        got = getattr(lax, name)(jnp.asarray(x), axis=axis, reverse=reverse)
        want = getattr(jax.lax, name)(x, axis=axis, reverse=reverse)
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=2e-6, atol=1e-6)


@pytest.mark.parametrize("name", ["cumsum", "cumprod", "cummax", "cummin", "cumlogsumexp"])
def test_lax_functions_reject_bool_as_jax(name):
    for shape in ((3,), (1,), (0,)):
        with pytest.raises(TypeError, match=f"{name} does not accept dtype bool. Accepted dtypes"):
            getattr(lax, name)(jnp.zeros(shape, bool))


def test_array_api_and_nan_variants_match_jax():
    x = np.array([[1.0, np.nan, 3.0], [np.nan, 2.0, 2.0]], np.float32)
    for name in ("nancumsum", "nancumprod"):
        _check(getattr(jnp, name)(jnp.asarray(x), axis=1), getattr(jax_numpy, name)(x, axis=1),
               "float32")
    for dtype in (np.int32, np.int8, np.uint16, np.bool_):  # sums promote small ints as JAX's
        v = np.arange(1, 5).astype(dtype)
        for name in ("cumulative_sum", "cumulative_prod"):
            for initial in (False, True):
                want = getattr(jax_numpy, name)(v, include_initial=initial)
                _check(getattr(jnp, name)(jnp.asarray(v), include_initial=initial), want,
                       str(want.dtype))
    for name, what in (("cumulative_sum", "sum"), ("cumulative_prod", "product")):
        with pytest.raises(ValueError, match=f"non-scalar to take a cumulative {what}"):
            getattr(jnp, name)(jnp.ones(()))


def test_gradients_vmap_and_jit_match_jax():
    x = np.random.default_rng(2).standard_normal((3, 6)).astype(np.float32)
    w = np.random.default_rng(3).standard_normal((3, 6)).astype(np.float32)
    for name in ("cumsum", "cumprod"):
        g = jaxwg.grad(lambda v: jnp.sum(getattr(jnp, name)(v, axis=1) * w))(jnp.asarray(x))
        gj = jax.grad(lambda v: (getattr(jax_numpy, name)(v, axis=1) * w).sum())(x)
        np.testing.assert_allclose(np.asarray(g), np.asarray(gj), rtol=1e-5, atol=1e-6)
    got = jaxwg.jit(jaxwg.vmap(lambda r: jnp.cumsum(r)))(jnp.asarray(x))
    np.testing.assert_allclose(np.asarray(got), np.cumsum(x, axis=1), rtol=1e-6, atol=1e-6)


def test_a_running_sum_of_a_million_values_stays_accurate():
    # log2(n) pairwise steps: each running sum rounds about log2(n) times, so the error
    # stays within ~20 ulp of the running magnitude, not n ulp as a serial loop's can.
    x = np.random.default_rng(4).uniform(0, 1, 1 << 20).astype(np.float32)
    got = np.asarray(jnp.cumsum(jnp.asarray(x)), np.float64)
    want = np.cumsum(x.astype(np.float64))
    assert np.max(np.abs(got - want) / want) < 20 * np.finfo(np.float32).eps


@pytest.mark.parametrize("n", [2, 40])  # a masked scan, and a blocked one
def test_weak_types_are_jaxs(n):
    """jnp's cumulative functions give strongly typed results, lax's keep the operand's
    weak type, as JAX's."""
    cases = [(jnp.cumsum, jax_numpy.cumsum), (jnp.cumprod, jax_numpy.cumprod),
             (jnp.nancumsum, jax_numpy.nancumsum), (lax.cumsum, jax.lax.cumsum),
             (lax.cummax, jax.lax.cummax), (lax.cumprod, jax.lax.cumprod),
             (lax.cumlogsumexp, jax.lax.cumlogsumexp)]
    for ours, theirs in cases:
        got = jaxwg.eval_shape(lambda v: ours(jnp.broadcast_to(v, (n,))), 1.0)  # noqa: B023
        want = jax.eval_shape(lambda v: theirs(jax_numpy.broadcast_to(v, (n,))), 1.0)  # noqa: B023
        assert (got.dtype, got.weak_type) == (want.dtype, want.weak_type), ours
