"""Sets (`unique` and its Array API forms, `isin`, `intersect1d`, `union1d`, `setdiff1d`,
`setxor1d`) against JAX: dtypes, NaN (`equal_nan`), -0.0, ties, axes, `size` and
`fill_value` (cut and padded), eagerly and under jit, empty inputs, vmap, gradients
and errors."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import jaxwg
import jaxwg.numpy as jnp
from jaxwg.errors import ConcretizationTypeError

from .helpers import jax, jax_numpy


def _values(rng, shape, dtype):
    """Few distinct values (many ties), with NaN, -0.0 and inf among the floats."""
    if dtype == "bool":
        return rng.random(shape) < 0.5
    if dtype in ("float32", "float16"):
        pool = np.array([-np.inf, -1.5, -0.0, 0.0, 2.0, 7.0, np.inf, np.nan], dtype)
        return rng.choice(pool, shape)
    return rng.integers(0, 5, shape).astype(dtype)


def _same(got, want):
    """Same dtype, weak type, shape and values: bitwise, so -0.0 must be -0.0, except that
    a NaN matches any NaN (JAX's reductions make NaNs with the sign bit set)."""
    assert isinstance(got, jaxwg.Array)
    assert got.weak_type == want.weak_type, (got.weak_type, want.weak_type)
    got, want = np.asarray(got), np.asarray(want)
    assert (got.dtype, got.shape) == (want.dtype, want.shape), (got, want)
    if got.dtype.kind == "f":
        np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
        got, want = [np.where(np.isnan(v), 0, v).view(f"u{v.itemsize}") for v in (got, want)]
    np.testing.assert_array_equal(got, want)


def _all_same(got, want):
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
        # named tuples with JAX's field names where JAX returns them
        assert getattr(got, "_fields", None) == getattr(want, "_fields", None)
        for g, w in zip(got, want):
            _same(g, w)
    else:
        _same(got, want)


_DTYPES = ["float32", "int32", "uint32", "bool", "float16"]
# JAX compiles each new shape, dtype and static argument afresh (about a second each):
# the examples are derandomized, so that the run on the second platform reuses them.
_FEW = settings(max_examples=5, deadline=None, derandomize=True)


@pytest.mark.slow_on_cpu
@_FEW
@given(shape=st.sampled_from([(7,), (2, 3)]), dtype=st.sampled_from(_DTYPES), data=st.data())
def test_unique_matches_jax(platform, shape, dtype, data):
    x = _values(np.random.default_rng(data.draw(st.integers(0, 99), label="seed")), shape, dtype)
    axis = data.draw(st.sampled_from([None, 0, -1]), label="axis")
    size = data.draw(st.sampled_from([None, 2, 9]), label="size")
    kw = dict(return_index=True, return_inverse=True, return_counts=True, axis=axis,
              equal_nan=data.draw(st.booleans(), label="equal_nan"), size=size,
              fill_value=data.draw(st.sampled_from([None, 1]), label="fill") if size else None)
    _all_same(jnp.unique(jnp.asarray(x), **kw), jax_numpy.unique(x, **kw))


def test_unique_under_jit_with_size_and_vmap(run):
    x = np.array([3.0, np.nan, -0.0, 1.0, 0.0, np.nan, 3.0], np.float32)
    for size, fill in ((2, None), (9, -1.0)):
        kw = dict(return_index=True, return_inverse=True, return_counts=True, size=size,
                  fill_value=fill)
        _all_same(run(lambda v: jnp.unique(v, **kw), jnp.asarray(x)), jax_numpy.unique(x, **kw))
    rows = np.array([[1, 1, 2], [3, 4, 5], [0, 0, 0]], np.int32)
    _same(jaxwg.vmap(lambda r: jnp.unique(r, size=3, fill_value=-1))(jnp.asarray(rows)),
          jax.vmap(lambda r: jax_numpy.unique(r, size=3, fill_value=-1))(rows))


@pytest.mark.parametrize("name", ["unique_all", "unique_counts", "unique_inverse",
                                  "unique_values"])
def test_unique_array_api_forms_match_jax(platform, name):
    x = np.array([[2.0, np.nan, 1.0], [np.nan, 2.0, -0.0]], np.float32)
    _all_same(getattr(jnp, name)(jnp.asarray(x)), getattr(jax_numpy, name)(x))


def test_unique_edge_cases_match_jax():
    for x, kw in ((np.zeros((0, 3), np.int32), dict(axis=0)),
                  (np.zeros((3, 0), np.float32), dict(axis=0)),
                  (np.zeros(0, np.int32), dict(size=2, fill_value=4)),
                  (np.float32(2.5), {})):
        kw.update(return_index=True, return_inverse=True, return_counts=True)
        _all_same(jnp.unique(jnp.asarray(x), **kw), jax_numpy.unique(x, **kw))
    _same(jnp.unique(2.5), jax_numpy.unique(2.5))  # a Python scalar: weakly typed


def test_unique_errors():
    with pytest.raises(ConcretizationTypeError, match=r"jnp\.unique\(\).*size argument"):
        jaxwg.jit(jnp.unique)(jnp.arange(3))
    with pytest.raises(ValueError, match="fill_value must be specified"):
        jnp.unique(jnp.zeros(0), size=2)
    with pytest.raises(TypeError, match="unique requires ndarray or scalar arguments"):
        jnp.unique([1, 2])
    with pytest.raises(ValueError, match="out of bounds"):
        jnp.unique(jnp.ones((2, 2)), axis=2)


def _set_inputs(rng, dtype):
    return _values(rng, (6,), dtype), _values(rng, (4,), dtype)


@_FEW
@given(seed=st.integers(0, 2 ** 16), dtype=st.sampled_from(["float32", "int32", "uint32"]),
       invert=st.booleans())
def test_isin_matches_jax(platform, seed, dtype, invert):
    a, b = _set_inputs(np.random.default_rng(seed), dtype)
    a = a.reshape(2, 3)
    want = jax_numpy.isin(a, b, invert=invert)  # the same for every method
    for method in ("auto", "compare_all", "binary_search", "sort"):
        _same(jnp.isin(jnp.asarray(a), jnp.asarray(b), invert=invert, method=method), want)


@pytest.mark.slow_on_cpu
@_FEW
@given(seed=st.integers(0, 2 ** 16))
def test_set_operations_match_jax(platform, seed):
    # float32 for NaN, -0.0 and inf; integers in the promotion and assume_unique tests
    a, b = _set_inputs(np.random.default_rng(seed), "float32")
    # size= is tested below with fixed values: each size is a new compilation for JAX
    A, B = jnp.asarray(a), jnp.asarray(b)
    _all_same(jnp.intersect1d(A, B, return_indices=True),
              jax_numpy.intersect1d(a, b, return_indices=True))
    for name in ("union1d", "setdiff1d", "setxor1d"):
        _all_same(getattr(jnp, name)(A, B), getattr(jax_numpy, name)(a, b))


@pytest.mark.slow_on_cpu
def test_set_operations_with_size_match_jax(run):
    a = np.array([5.0, 1.0, np.nan, -0.0, 3.0, 1.0], np.float32)
    b = np.array([3.0, 0.0, 3.0, np.nan], np.float32)
    A, B = jnp.asarray(a), jnp.asarray(b)
    # padded with JAX's default fill; cut (the same code) eagerly only, to save compiling
    for size in (9, 2) if run.mode == "eager" else (9,):
        _all_same(run(lambda x, y: jnp.intersect1d(x, y, return_indices=True, size=size), A, B),
                  jax_numpy.intersect1d(a, b, return_indices=True, size=size))
        for name in ("union1d", "setdiff1d", "setxor1d"):
            _all_same(run(lambda x, y: getattr(jnp, name)(x, y, size=size), A, B),
                      getattr(jax_numpy, name)(a, b, size=size))
    _same(run(lambda x, y: jnp.isin(x, y, method="sort"), A, B), jax_numpy.isin(a, b))


def test_assume_unique_matches_jax():
    a = np.array([4, 1, 9, 3, 0, 7], np.int32)
    b = np.array([3, 8, 4, 5], np.int32)
    for size in (None, 9):
        _all_same(jnp.intersect1d(a, b, assume_unique=True, return_indices=True, size=size),
                  jax_numpy.intersect1d(a, b, assume_unique=True, return_indices=True, size=size))
        _all_same(jnp.setdiff1d(a, b, assume_unique=True, size=size),
                  jax_numpy.setdiff1d(a, b, assume_unique=True, size=size))
        _all_same(jnp.setxor1d(a, b, assume_unique=True, size=size),
                  jax_numpy.setxor1d(a, b, assume_unique=True, size=size))
    _same(jnp.isin(a, b, assume_unique=True), jax_numpy.isin(a, b, assume_unique=True))


def test_promotion_and_fill_dtypes_match_jax():
    a = np.array([1, 2, 5, 4, 2, 0], np.int32)
    b = np.array([2.5, 5.0, 0.0, 1.0], np.float32)
    for name in ("intersect1d", "union1d", "setxor1d", "setdiff1d"):
        _all_same(getattr(jnp, name)(a, b), getattr(jax_numpy, name)(a, b))
    # the fill value takes part in the promotion, but unique casts it to the values' dtype
    _all_same(jnp.intersect1d(a, a, size=9, fill_value=0.5),
              jax_numpy.intersect1d(a, a, size=9, fill_value=0.5))
    _all_same(jnp.unique(a, size=9, fill_value=0.5), jax_numpy.unique(a, size=9, fill_value=0.5))
    _all_same(jnp.setdiff1d(a, b, size=9, fill_value=-1.5),
              jax_numpy.setdiff1d(a, b, size=9, fill_value=-1.5))
    _same(jnp.isin(a, 2.0), jax_numpy.isin(a, 2.0))


def test_size_zero_gives_empty_results():
    # JAX fails here (a reduction or an index on the empty result): the first 0 values
    a, b = jnp.array([3, 1, 2]), jnp.array([2, 5])
    for name in ("intersect1d", "union1d", "setdiff1d", "setxor1d"):
        out = getattr(jnp, name)(a, b, size=0)
        assert (out.shape, out.dtype) == ((0,), np.int32)
    assert jnp.unique(a, size=0, return_counts=True)[1].shape == (0,)


def test_gradient_through_unique_with_size_matches_jax():
    x = np.array([3.0, 1.0, 3.0, 2.0], np.float32)
    w = np.array([1.0, 10.0, 100.0], np.float32)
    got = jaxwg.grad(lambda v: jnp.sum(jnp.unique(v, size=3) * w))(jnp.asarray(x))
    want = jax.grad(lambda v: (jax_numpy.unique(v, size=3) * w).sum())(x)
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


def test_set_operation_errors():
    a = jnp.arange(3)
    for name in ("intersect1d", "union1d", "setdiff1d", "setxor1d"):
        with pytest.raises(ConcretizationTypeError, match=rf"jnp\.{name}\(\)"):
            jaxwg.jit(getattr(jnp, name))(a, a)
        with pytest.raises(TypeError, match=f"{name} requires ndarray or scalar arguments"):
            getattr(jnp, name)(a, [1])
    with pytest.raises(ValueError, match="method='bogus' is not implemented"):
        jnp.isin(a, a, method="bogus")
    with pytest.raises(ConcretizationTypeError, match="size argument"):
        jaxwg.jit(lambda n: jnp.unique(a, size=n))(3)
