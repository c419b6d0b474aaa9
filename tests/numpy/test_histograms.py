"""Counting and binning (`bincount`, `histogram`, `histogram_bin_edges`, `histogram2d`,
`histogramdd`, `digitize`) against JAX: weights, `minlength` and `length`, values
below, above and on the edges, NaN, int and float bins, `range`, `density`, decreasing
bins, eagerly and under jit, gradients, vmap and errors."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import jaxwg
import jaxwg.numpy as jnp
from jaxwg.errors import ConcretizationTypeError

from .helpers import RTOL, jax, jax_numpy

# JAX compiles each new shape and static argument afresh: derandomized examples, so
# that the run on the second platform reuses them.
_FEW = settings(max_examples=5, deadline=None, derandomize=True)


def _close(got, want):
    """Same dtype, weak type and shape; integers equal, floats within the dtype's
    rounding (sums of weights may add in another order than JAX's scatter)."""
    assert isinstance(got, jaxwg.Array)
    assert got.weak_type == want.weak_type, (got.weak_type, want.weak_type)
    got, want = np.asarray(got), np.asarray(want)
    assert (got.dtype, got.shape) == (want.dtype, want.shape), (got, want)
    if got.dtype.kind == "f":
        np.testing.assert_allclose(got, want, rtol=RTOL[got.dtype], equal_nan=True)
    else:
        np.testing.assert_array_equal(got, want)


@_FEW
@given(seed=st.integers(0, 99), weighted=st.booleans(), minlength=st.sampled_from([0, 3, 12]))
def test_bincount_matches_jax(run, seed, weighted, minlength):
    rng = np.random.default_rng(seed)
    x = rng.integers(-2, 9, 20).astype(np.int32)  # negatives count in bin 0, as in JAX
    w = rng.standard_normal(20).astype(np.float32) if weighted else None
    args = (x,) if w is None else (x, w)
    # under jit the length must be static: 7 drops the largest values
    length = None if run.mode == "eager" else 7
    got = run(lambda *a: jnp.bincount(*a, minlength=minlength, length=length),
              *map(jnp.asarray, args))
    _close(got, jax_numpy.bincount(*args, minlength=minlength, length=length))


def test_bincount_edge_cases_match_jax(platform):
    for x, kw in ((np.zeros(0, np.int32), {}), (np.zeros(0, np.int32), dict(minlength=2)),
                  (np.array([True, False, True]), {}),
                  (np.array([3, 0, 3], np.uint32), dict(weights=np.array([1, 2, 3], np.int32))),
                  (np.array([1, 4], np.int32), dict(length=3))):
        kw_jaxwg = {k: jnp.asarray(v) if isinstance(v, np.ndarray) else v for k, v in kw.items()}
        _close(jnp.bincount(jnp.asarray(x), **kw_jaxwg), jax_numpy.bincount(x, **kw))


@_FEW
@given(seed=st.integers(0, 99), bins=st.sampled_from([1, 4, "edges"]),
       use_range=st.booleans(), weighted=st.booleans(), density=st.booleans())
def test_histogram_matches_jax(platform, seed, bins, use_range, weighted, density):
    rng = np.random.default_rng(seed)
    a = rng.choice(np.array([-1.0, 0.0, 0.25, 1.0, 2.5, 3.0, np.nan], np.float32), (3, 4))
    if bins == "edges":
        bins = np.array([-0.5, 0.0, 1.0, 2.5], np.float32)
    w = rng.uniform(0, 2, (3, 4)).astype(np.float32) if weighted else None
    kw = dict(bins=bins, range=(0.0, 2.5) if use_range else None, density=density)
    a_finite = np.nan_to_num(a) if kw["range"] is None and np.ndim(bins) == 0 else a
    got = jnp.histogram(jnp.asarray(a_finite), weights=None if w is None else jnp.asarray(w), **kw)
    want = jax_numpy.histogram(a_finite, weights=w, **kw)
    for g, v in zip(got, want):
        _close(g, v)
    _close(jnp.histogram_bin_edges(jnp.asarray(a_finite), bins, kw["range"]),
           jax_numpy.histogram_bin_edges(a_finite, bins, kw["range"]))


def test_histogram_under_jit_with_integers_and_an_empty_range(run):
    for a, bins in ((np.array([3, 1, 4, 1, 5], np.int32), 3), (np.full(4, 2.0, np.float32), 2)):
        got = run(lambda v: jnp.histogram(v, bins=bins), jnp.asarray(a))
        for g, w in zip(got, jax_numpy.histogram(a, bins=bins)):
            _close(g, w)


@pytest.mark.slow  # 12 s; test_histogram_matches_jax runs by default
def test_histogram2d_and_histogramdd_match_jax(platform):
    rng = np.random.default_rng(0)
    x, y = rng.uniform(0, 1, 15).astype(np.float32), rng.uniform(-1, 1, 15).astype(np.float32)
    x[:2] = (1.0, 0.0)  # on the outer edges
    w = rng.uniform(0, 1, 15).astype(np.float32)
    edges = np.array([0.0, 0.5, 0.75], np.float32)
    for kw in (dict(bins=3), dict(bins=[2, 3], range=[(0, 1), None], weights=w),
               dict(bins=edges, weights=w, density=True)):
        kw_jaxwg = {k: jnp.asarray(v) if isinstance(v, np.ndarray) else v for k, v in kw.items()}
        for g, v in zip(jnp.histogram2d(jnp.asarray(x), jnp.asarray(y), **kw_jaxwg),
                        jax_numpy.histogram2d(x, y, **kw)):
            _close(g, v)
    sample = rng.uniform(0, 1, (10, 3)).astype(np.float32)
    got_counts, got_edges = jnp.histogramdd(jnp.asarray(sample), bins=(2, 3, 1))
    want_counts, want_edges = jax_numpy.histogramdd(sample, bins=(2, 3, 1))
    _close(got_counts, want_counts)
    for g, v in zip(got_edges, want_edges):
        _close(g, v)


@pytest.mark.parametrize("right", [False, True])
def test_digitize_matches_jax(run, right):
    x = np.array([[-1.0, 0.0, 0.5], [1.0, 2.0, np.nan]], np.float32)
    for bins in (np.array([0.0, 1.0, 1.0, 2.0], np.float32), np.array([2.0, 1.0, 0.0], np.float32),
                 np.array([1], np.int32), np.zeros(0, np.float32)):
        _close(run(lambda v, b: jnp.digitize(v, b, right=right), jnp.asarray(x), jnp.asarray(bins)),
               jax_numpy.digitize(x, bins, right=right))
    _close(jnp.digitize(jnp.array([1, 5]), jnp.array([0.5, 4.5]), method="sort"),
           jax_numpy.digitize(np.array([1, 5]), np.array([0.5, 4.5]), method="sort"))


def test_gradients_and_vmap_match_jax():
    rng = np.random.default_rng(1)
    a = rng.uniform(0, 4, 12).astype(np.float32)
    w = rng.uniform(0, 1, 12).astype(np.float32)
    c = np.arange(1, 5, dtype=np.float32)
    got = jaxwg.grad(lambda v: jnp.sum(jnp.histogram(a, bins=4, weights=v)[0] * c))(jnp.asarray(w))
    want = jax.grad(lambda v: (jax_numpy.histogram(a, bins=4, weights=v)[0] * c).sum())(w)
    _close(got, want)
    x = rng.integers(0, 4, (3, 6)).astype(np.int32)
    _close(jaxwg.vmap(lambda r: jnp.bincount(r, length=4))(jnp.asarray(x)),
           jax.vmap(lambda r: jax_numpy.bincount(r, length=4))(x))


def test_errors():
    with pytest.raises(TypeError, match="x argument to bincount must have an integer type"):
        jnp.bincount(jnp.ones(3))
    with pytest.raises(ValueError, match="only 1-dimensional input supported"):
        jnp.bincount(jnp.ones((2, 2), np.int32))
    with pytest.raises(ValueError, match="type of weights must match type of x"):
        jnp.bincount(jnp.arange(3), weights=jnp.ones(2))
    with pytest.raises(ConcretizationTypeError, match="pass a static `length`"):
        jaxwg.jit(jnp.bincount)(jnp.arange(3))
    with pytest.raises(ValueError, match="weights should have the same shape as a"):
        jnp.histogram(jnp.arange(3), weights=jnp.ones(2))
    with pytest.raises(NotImplementedError, match="string values for `bins`"):
        jnp.histogram(jnp.arange(3), bins="auto")
    with pytest.raises(ValueError, match="`range` must be either None or a sequence"):
        jnp.histogram(jnp.arange(3), range=(0, 1, 2))
    with pytest.raises(ValueError, match="should be a bin for each dimension"):
        jnp.histogramdd(jnp.ones((4, 2)), bins=[2, 2, 2])
    with pytest.raises(ValueError, match="bins must be a 1-dimensional array"):
        jnp.digitize(jnp.arange(3), jnp.ones((2, 2)))
    with pytest.raises(ValueError, match="invalid argument method='bogus'"):
        jnp.digitize(jnp.arange(3), jnp.arange(2), method="bogus")


@pytest.mark.parametrize("weighted", [False, True])
def test_many_bins_scatter_into_them(platform, weighted):
    """Past `_DENSE_BINS` bins the counts are a scatter-add (atomic on GPUs), not a
    reduction over bins x values; integer-valued weights keep float sums exact."""
    rng = np.random.default_rng(5)
    x = rng.integers(-5, 3000, 100_000).astype(np.int32)
    w = rng.integers(-4, 5, x.size).astype(np.float32) if weighted else None
    args = (x,) if w is None else (x, w)
    _close(jnp.bincount(*[jnp.asarray(a) for a in args], length=2500),
           jax_numpy.bincount(*args, length=2500))
    a = rng.standard_normal(50_000).astype(np.float32)
    _close(jnp.histogram(jnp.asarray(a), bins=300)[0], jax_numpy.histogram(a, bins=300)[0])
