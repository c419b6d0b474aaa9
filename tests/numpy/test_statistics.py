"""Order statistics (`quantile`, `percentile`, `median`), `average` and `searchsorted`
against JAX."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import jaxwg.numpy as jnp

from .helpers import jax_numpy


def _close(got, want):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, want.dtype,
                                                                  got.shape, want.shape)
    # XLA fuses the interpolation's multiply-add: an ulp of the values apart at most
    np.testing.assert_allclose(got, want, rtol=2e-7, atol=2e-7, equal_nan=True)


@pytest.mark.parametrize("method", ["linear", "lower", "higher", "midpoint", "nearest"])
@settings(max_examples=4)
@given(shape=st.lists(st.integers(1, 7), min_size=1, max_size=3).map(tuple), data=st.data())
def test_quantiles_match_jax(platform, method, shape, data):
    x = np.random.default_rng(sum(shape)).standard_normal(shape).astype(np.float32)
    if data.draw(st.booleans(), label="nan") and x.size > 2:
        x.flat[1] = np.nan
    axis = data.draw(st.sampled_from([None] + list(range(len(shape)))), label="axis")
    keepdims = data.draw(st.booleans(), label="keepdims")
    for q in (0.3, [0.0, 0.5, 1.0]):
        _close(jnp.quantile(jnp.asarray(x), q, axis=axis, method=method, keepdims=keepdims),
               jax_numpy.quantile(x, np.asarray(q, np.float32), axis=axis, method=method,
                                  keepdims=keepdims))
    _close(jnp.percentile(jnp.asarray(x), 40, axis=axis, method=method),
           jax_numpy.percentile(x, 40, axis=axis, method=method))
    _close(jnp.median(jnp.asarray(x), axis=axis, keepdims=keepdims),
           jax_numpy.median(x, axis=axis, keepdims=keepdims))


def test_average_matches_jax(platform):
    x = np.random.default_rng(1).standard_normal((3, 4)).astype(np.float32)
    w = np.random.default_rng(2).uniform(0.1, 1, (3, 4)).astype(np.float32)
    _close(jnp.average(jnp.asarray(x)), jax_numpy.average(x))
    _close(jnp.average(jnp.asarray(x), axis=1, weights=jnp.asarray(w)),
           jax_numpy.average(x, axis=1, weights=w))
    _close(jnp.average(jnp.asarray(x), axis=0, weights=jnp.asarray(w[:, 0])),
           jax_numpy.average(x, axis=0, weights=w[:, 0]))
    for got, want in zip(jnp.average(jnp.asarray(x), axis=1, weights=jnp.asarray(w), returned=True),
                         jax_numpy.average(x, axis=1, weights=w, returned=True)):
        _close(got, want)


@pytest.mark.parametrize("side", ["left", "right"])
def test_searchsorted_matches_jax(platform, side):
    a = np.sort(np.array([1.0, 2.0, 2.0, 2.0, 5.0, np.inf, np.nan], np.float32))
    v = np.array([[-np.inf, 2.0, 3.0], [5.0, np.inf, np.nan]], np.float32)
    got = jnp.searchsorted(jnp.asarray(a), jnp.asarray(v), side=side)
    want = jax_numpy.searchsorted(a, v, side=side)
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
    ints = np.array([0, 3, 3, 9], np.int32)
    np.testing.assert_array_equal(np.asarray(jnp.searchsorted(jnp.asarray(ints), 3, side=side)),
                                  np.asarray(jax_numpy.searchsorted(ints, 3, side=side)))


@pytest.mark.parametrize("name", ["nanmax", "nanmin", "nanprod", "nanmean", "nanvar", "nanstd",
                                  "nansum"])
def test_nan_reductions_match_jax(platform, name):
    x = np.random.default_rng(5).standard_normal((4, 5)).astype(np.float32)
    x[0, 1] = x[2, :2] = np.nan
    x[3, :] = np.nan  # an all-NaN row
    for axis in (None, 0, 1):
        for keepdims in (False, True):
            got = getattr(jnp, name)(jnp.asarray(x), axis=axis, keepdims=keepdims)
            want = getattr(jax_numpy, name)(x, axis=axis, keepdims=keepdims)
            _close(got, want)
    ints = np.arange(6, dtype=np.int32).reshape(2, 3)
    if name not in ("nanvar", "nanstd", "nanmean"):
        np.testing.assert_array_equal(np.asarray(getattr(jnp, name)(jnp.asarray(ints), axis=1)),
                                      np.asarray(getattr(jax_numpy, name)(ints, axis=1)))
