"""Order statistics (`quantile`, `percentile`, `median`), `average` and `searchsorted`
against JAX."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import jaxwg.numpy as jnp

from .helpers import jax_numpy


def _close(got, want, atol=2e-7):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, want.dtype,
                                                                  got.shape, want.shape)
    # XLA fuses the interpolation's multiply-add: an ulp of the values apart at most
    np.testing.assert_allclose(got, want, rtol=2e-7, atol=atol, equal_nan=True)


def _interpolation_atol(x):
    """lo * (1 - w) + hi * w rounds twice at the scale of the samples, so where lo and
    hi cancel, two ways of rounding it are a few ulps of the largest sample apart."""
    largest = np.max(np.abs(x), where=~np.isnan(x), initial=0)
    return max(2e-7, 3 * float(np.spacing(largest)))


# "lower", "higher" and "midpoint" index the sorted values as "linear" and "nearest" do:
# they run in the slow job (the five methods on both backends took 19 s of the suite).
@pytest.mark.slow_on_cpu
@pytest.mark.parametrize("method", ["linear", "nearest", *(
    pytest.param(m, marks=pytest.mark.slow) for m in ("lower", "higher", "midpoint"))])
@settings(max_examples=4)
@given(shape=st.lists(st.integers(1, 7), min_size=1, max_size=3).map(tuple), data=st.data())
def test_quantiles_match_jax(platform, method, shape, data):
    x = np.random.default_rng(sum(shape)).standard_normal(shape).astype(np.float32)
    if data.draw(st.booleans(), label="nan") and x.size > 2:
        x.flat[1] = np.nan
    axis = data.draw(st.sampled_from([None] + list(range(len(shape)))), label="axis")
    keepdims = data.draw(st.booleans(), label="keepdims")
    for q in (0.3, np.float32([0.0, 0.5, 1.0])):
        _close(jnp.quantile(jnp.asarray(x), q, axis=axis, method=method, keepdims=keepdims),
               jax_numpy.quantile(x, np.asarray(q, np.float32), axis=axis, method=method,
                                  keepdims=keepdims), _interpolation_atol(x))
    # 37.3, not a round percentile: q / 100 * (n - 1) on a whole number is a sample
    # boundary, where XLA's last-bit rounding of the division decides the sample
    _close(jnp.percentile(jnp.asarray(x), 37.3, axis=axis, method=method),
           jax_numpy.percentile(x, 37.3, axis=axis, method=method), _interpolation_atol(x))
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


# -- NaN-ignoring order statistics, nanargmax/nanargmin, cov, corrcoef -----------------------

import jax  # noqa: E402
import jaxwg  # noqa: E402
from jaxwg.errors import ConcretizationTypeError  # noqa: E402,F401


def _with_nans(shape, seed, nan_rows: bool):
    """Normal samples with scattered NaNs (a -NaN too) and, if `nan_rows`, an all-NaN
    slice along the last axis."""
    x = np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
    mask = np.random.default_rng(seed + 1).uniform(size=shape) < 0.3
    x[mask] = np.nan
    if x.size:
        x.flat[0] = -np.nan
    if nan_rows and x.ndim > 1:
        x[(0,) * (x.ndim - 1)] = np.nan
    return x


@settings(max_examples=4, deadline=None)
@given(shape=st.lists(st.integers(1, 6), min_size=1, max_size=3).map(tuple), data=st.data())
def test_nan_quantiles_match_jax(run, shape, data):
    x = _with_nans(shape, sum(shape), data.draw(st.booleans(), label="nan_rows"))
    method = data.draw(st.sampled_from(["linear", "lower", "higher", "midpoint", "nearest"]),
                       label="method")
    axes = [None] + list(range(len(shape))) + ([(0, len(shape) - 1)] if len(shape) > 1 else [])
    axis = data.draw(st.sampled_from(axes), label="axis")
    keepdims = data.draw(st.booleans(), label="keepdims")
    kw = dict(axis=axis, method=method, keepdims=keepdims)
    q = np.float32([0.0, 0.3, 1.0])
    _close(run(jnp.nanquantile, jnp.asarray(x), q=q, **kw), jax_numpy.nanquantile(x, q, **kw),
           _interpolation_atol(x))
    _close(run(jnp.nanmedian, jnp.asarray(x), axis=axis, keepdims=keepdims),
           jax_numpy.nanmedian(x, axis=axis, keepdims=keepdims))


def test_nan_quantile_edge_cases(platform):
    all_nan = np.full((2, 3), np.nan, np.float32)
    _close(jnp.nanquantile(jnp.asarray(all_nan), np.float32([0.0, 1.0]), axis=1),
           jax_numpy.nanquantile(all_nan, np.float32([0.0, 1.0]), axis=1))
    one = np.array([np.nan, 2.5, np.nan], np.float32)  # a single sample left
    for method in ("linear", "nearest", "midpoint"):
        _close(jnp.nanquantile(jnp.asarray(one), 0.7, method=method),
               jax_numpy.nanquantile(one, 0.7, method=method))
    halves = np.array([np.nan, 2.0, -0.0, 7.0, np.inf, 1.0, 1.0], np.float16)  # ties, inf, -0
    for method in ("linear", "nearest"):  # float16 samples, float32 interpolation, as JAX
        _close(jnp.nanquantile(jnp.asarray(halves), np.float32([0.2, 0.5, 0.9]), method=method),
               jax_numpy.nanquantile(halves, np.float32([0.2, 0.5, 0.9]), method=method))
    ints = np.array([[4, 1, 3], [2, 2, 9]], np.int32)
    _close(jnp.nanmedian(jnp.asarray(ints), axis=0), jax_numpy.nanmedian(ints, axis=0))
    # a scalar q (100: XLA's vectorized q / 100 rounds below 1, its scalar path does not)
    _close(jnp.nanpercentile(jnp.asarray(one), 100), jax_numpy.nanpercentile(one, 100))
    # quantile and median take tuple axes and float16 as JAX now does
    x = np.random.default_rng(3).standard_normal((3, 4, 2)).astype(np.float16)
    _close(jnp.quantile(jnp.asarray(x), 0.3, axis=(2, 0), keepdims=True),
           jax_numpy.quantile(x, 0.3, axis=(2, 0), keepdims=True))
    _close(jnp.median(jnp.asarray(x), axis=(1,)), jax_numpy.median(x, axis=(1,)))
    no_rows = np.zeros((0, 3), np.float32)  # no slices: an empty result
    _close(jnp.nanquantile(jnp.asarray(no_rows), 0.5, axis=1),
           jax_numpy.nanquantile(no_rows, 0.5, axis=1))


@pytest.mark.parametrize("name", ["quantile", "nanquantile", "percentile", "nanpercentile"])
@pytest.mark.parametrize("method", ["linear", "lower", "higher", "midpoint", "nearest"])
def test_quantiles_of_traced_and_out_of_range_q_match_jax(run, name, method):
    """q may be traced (jit), and a q outside [0, 1] reads the nearest end sample: JAX
    clamps the positions, not the interpolation weight, and raises nothing."""
    x = np.array([[1.0, 5.0, np.nan, 8.0, 2.0], [3.0, -1.0, 0.5, 4.0, 9.0]], np.float32)
    scale = 100 if "percentile" in name else 1
    for q in (np.float32(0.3), np.float32([1.5, -0.5, 1.0, 0.37]), np.float32(1.5)):
        q = q * np.float32(scale)
        got = run(lambda a, q: getattr(jnp, name)(a, q, axis=1, method=method),
                  jnp.asarray(x), jnp.asarray(q))
        _close(got, getattr(jax_numpy, name)(x, q, axis=1, method=method), _interpolation_atol(x))
    _close(getattr(jnp, name)(jnp.asarray(x[1]), 1.5 * scale, method=method),
           getattr(jax_numpy, name)(x[1], 1.5 * scale, method=method))


def test_nan_quantile_errors():
    x = jnp.ones(3)
    with pytest.raises(ValueError, match="nanquantile does not support"):
        jnp.nanmedian(x, out=jnp.ones(()))
    with pytest.raises(ValueError, match="nanquantile does not support"):
        jnp.nanpercentile(x, 50, overwrite_input=True)
    with pytest.raises(ValueError, match="method"):
        jnp.nanquantile(x, 0.5, method="inverted")
    with pytest.raises(TypeError, match=r"no samples .* shape \(2, 0\)"):  # JAX: a TypeError
        jnp.nanquantile(jnp.ones((2, 0)), 0.5, axis=1)
    with pytest.raises(ValueError, match="repeated axis"):
        jnp.nanquantile(jnp.ones((2, 2)), 0.5, axis=(1, -1))
    with pytest.raises(ValueError, match="q must be"):
        jnp.nanquantile(x, np.ones((1, 1)))
    with pytest.raises(TypeError, match="nanquantile requires ndarray"):
        jnp.nanquantile([1.0, 2.0], 0.5)
    with pytest.raises(TypeError, match="quantile requires ndarray"):
        jnp.quantile(x, [0.5])


def test_nan_quantile_grad_and_vmap_match_jax(platform):
    x = _with_nans((3, 5), 7, nan_rows=False)

    def loss(np_):
        return lambda a: np_.nansum(np_.nanquantile(a, 0.3, axis=1) * np_.arange(1.0, 4.0))

    np.testing.assert_allclose(np.asarray(jaxwg.grad(loss(jnp))(jnp.asarray(x))),
                               np.asarray(jax.grad(loss(jax_numpy))(x)), rtol=1e-6)
    _close(jaxwg.vmap(jnp.nanmedian)(jnp.asarray(x)), jax.vmap(jax_numpy.nanmedian)(x))


@pytest.mark.parametrize("name", ["nanargmax", "nanargmin"])
def test_nanargmax_nanargmin_match_jax(run, name):
    x = _with_nans((4, 5), 11, nan_rows=True)  # the first row all NaN: -1 as in JAX
    x[1, 3] = x[1, 1] = np.inf if name == "nanargmax" else -np.inf  # ties: the first wins
    for axis in (None, 0, 1, -1):
        for keepdims in (None, True):
            got = run(getattr(jnp, name), jnp.asarray(x), axis=axis, keepdims=keepdims)
            want = getattr(jax_numpy, name)(x, axis=axis, keepdims=keepdims)
            assert got.dtype == want.dtype
            np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
    ints = np.array([[3, 9, 9], [1, 0, 1]], np.int32)
    np.testing.assert_array_equal(np.asarray(run(getattr(jnp, name), jnp.asarray(ints), axis=1)),
                                  np.asarray(getattr(jax_numpy, name)(ints, axis=1)))


def test_nanargmax_errors():
    with pytest.raises(NotImplementedError, match="nanargmax"):
        jnp.nanargmax(jnp.ones(2), out=jnp.ones(()))
    with pytest.raises(ValueError, match="empty"):
        jnp.nanargmin(jnp.ones((2, 0)), axis=1)


_FWEIGHTS = np.array([1, 2, 0, 3, -1, 1], np.int32)  # a negative one counts as its size
_AWEIGHTS = np.array([0.5, 1.0, 0.2, 0.9, 0.3, 1.0], np.float32)
_COV_ARGUMENTS = [{}, {"rowvar": False}, {"bias": True}, {"ddof": 2}, {"fweights": _FWEIGHTS},
                  {"aweights": _AWEIGHTS}, {"fweights": _FWEIGHTS, "aweights": _AWEIGHTS},
                  {"aweights": _AWEIGHTS, "bias": True}, {"dtype": np.float16}]


@pytest.mark.parametrize("kwargs", _COV_ARGUMENTS, ids=lambda kw: ",".join(kw) or "plain")
def test_cov_and_corrcoef_match_jax(run, kwargs):
    m = np.random.default_rng(2).standard_normal((3, 6)).astype(np.float32)
    y = np.random.default_rng(3).standard_normal(6).astype(np.float32)
    if kwargs.get("rowvar") is False:
        m, y = m.T, np.stack([y, -y], 1)
    rtol = 2e-3 if "dtype" in kwargs else 1e-5  # float32 sums in another order
    got = run(lambda a, b: jnp.cov(a, b, **kwargs), jnp.asarray(m), jnp.asarray(y))
    want = jax_numpy.cov(m, y, **kwargs)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=rtol, atol=rtol)
    if set(kwargs) <= {"rowvar", "dtype"}:
        got = run(lambda a, b: jnp.corrcoef(a, b, **kwargs), jnp.asarray(m), jnp.asarray(y))
        want = jax_numpy.corrcoef(m, y, **kwargs)
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=rtol, atol=rtol)


def test_cov_edge_cases(platform):
    cases = [np.arange(6, dtype=np.int32).reshape(2, 3),  # ints: float32
             np.array([1.0, 4.0, 2.0], np.float32),  # one variable: a scalar
             np.array([[1.0, 4.0, 2.0]], np.float32),
             np.zeros((0, 3), np.float32), np.zeros((2, 0), np.float32),
             np.zeros((1, 0), np.float32), np.array([[5.0]], np.float32)]  # one sample
    for m in cases:
        got, want = jnp.cov(jnp.asarray(m)), jax_numpy.cov(m)
        assert got.dtype == want.dtype and got.shape == want.shape, (m.shape, got.shape, want.shape)
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6, equal_nan=True)
    # rowvar=False transposes a 2-d m even with one row, but not a one-row y
    m, y = np.array([[1.0, 2.0, 5.0]], np.float32), np.array([[0.0, 3.0, 1.0]], np.float32)
    got, want = jnp.cov(jnp.asarray(m.T), jnp.asarray(y), rowvar=False), jax_numpy.cov(m.T, y, rowvar=False)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6)
    for x in (np.ones(4, np.float32), np.array([1.0, 2.0, np.inf], np.float32)):  # 0/0, inf/inf
        _close(jnp.corrcoef(jnp.asarray(x)), jax_numpy.corrcoef(x))


def test_cov_errors():
    m = jnp.ones((2, 3))
    with pytest.raises(ValueError, match="m has more than 2 dimensions"):
        jnp.cov(jnp.ones((2, 2, 2)))
    with pytest.raises(ValueError, match="y has more than 2 dimensions"):
        jnp.cov(m, jnp.ones((1, 1, 3)))
    with pytest.raises(TypeError, match="fweights must be integer"):
        jnp.cov(m, fweights=jnp.ones(3))
    with pytest.raises(RuntimeError, match="incompatible numbers of samples and aweights"):
        jnp.cov(m, aweights=jnp.ones(2))
    with pytest.raises(RuntimeError, match="multidimensional fweights"):
        jnp.cov(m, fweights=jnp.ones((3, 1), dtype=jnp.int32))
    with pytest.raises(ValueError, match="dtype must be a subclass of float"):
        jnp.corrcoef(m, dtype=jnp.int32)
    with pytest.raises(TypeError, match="cov requires ndarray"):
        jnp.cov([[1.0, 2.0]])


def test_cov_and_corrcoef_grad_match_jax(platform):
    m = np.random.default_rng(4).standard_normal((3, 5)).astype(np.float32)

    def loss(np_):
        return lambda a: np_.sum(np_.corrcoef(a) ** 2) + np_.sum(np_.cov(a, aweights=np_.arange(1.0, 6.0)))

    np.testing.assert_allclose(np.asarray(jaxwg.grad(loss(jnp))(jnp.asarray(m))),
                               np.asarray(jax.grad(loss(jax_numpy))(m)), rtol=1e-4, atol=1e-5)


@pytest.fixture
def x64():
    jaxwg.config.update("jax_enable_x64", True)
    jax.config.update("jax_enable_x64", True)
    yield
    jaxwg.config.update("jax_enable_x64", False)
    jax.config.update("jax_enable_x64", False)


def test_quantiles_in_float64_match_jax(platform, x64):
    """With x64, a Python q is float64 and so are the positions, as in JAX."""
    from jaxwg.core import dtypes

    if not jaxwg.devices()[0].backend.supports(dtypes.float64):
        pytest.skip("the adapter has no shader-f64")
    x = _with_nans((3, 7), 13, nan_rows=False).astype(np.float64)
    for fn, q in (("quantile", 0.3), ("nanquantile", 0.3), ("nanpercentile", 30),
                  ("nanquantile", np.float32(0.3))):
        got = getattr(jnp, fn)(jnp.asarray(x), q, axis=1)
        want = getattr(jax_numpy, fn)(x, q, axis=1)
        assert got.dtype == want.dtype == np.float64
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-15, equal_nan=True)
