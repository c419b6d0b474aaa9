"""The structural and elementwise helpers of jaxwg.numpy (more_math.py, structure.py)
against JAX: special values, dtypes, axes."""

import numpy as np
import pytest

import jaxwg.numpy as jnp

from .helpers import jax_numpy

SPECIAL = np.array([0.0, -0.0, 1.5, -2.0, np.inf, -np.inf, np.nan, 1e30, -1e-30, 3.0],
                   np.float32)


def _same(got, want, rtol=2e-6):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, want.dtype,
                                                                  got.shape, want.shape)
    if got.dtype.kind == "f":
        np.testing.assert_allclose(got, want, rtol=rtol, atol=0, equal_nan=True)
        assert np.array_equal(np.signbit(got), np.signbit(want)) or np.isnan(want).any()
    else:
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("name", ["copysign", "hypot", "logaddexp", "logaddexp2"])
def test_binary_functions_match_jax(platform, name):
    a = SPECIAL[:, None]
    b = SPECIAL[None, :]
    _same(getattr(jnp, name)(jnp.asarray(a), jnp.asarray(b)), getattr(jax_numpy, name)(a, b))


def test_nan_to_num_and_closeness_match_jax(platform):
    _same(jnp.nan_to_num(jnp.asarray(SPECIAL)), jax_numpy.nan_to_num(SPECIAL))
    _same(jnp.nan_to_num(jnp.asarray(SPECIAL), nan=7.0, posinf=1.0, neginf=-1.0),
          jax_numpy.nan_to_num(SPECIAL, nan=7.0, posinf=1.0, neginf=-1.0))
    near = SPECIAL * np.float32(1 + 1e-7)
    for equal_nan in (False, True):
        _same(jnp.isclose(jnp.asarray(SPECIAL), jnp.asarray(near), equal_nan=equal_nan),
              jax_numpy.isclose(SPECIAL, near, equal_nan=equal_nan))
        _same(jnp.allclose(jnp.asarray(SPECIAL), jnp.asarray(near), equal_nan=equal_nan),
              jax_numpy.allclose(SPECIAL, near, equal_nan=equal_nan))
        _same(jnp.array_equal(jnp.asarray(SPECIAL), jnp.asarray(SPECIAL), equal_nan=equal_nan),
              jax_numpy.array_equal(SPECIAL, SPECIAL, equal_nan=equal_nan))
    _same(jnp.array_equal(jnp.ones(2), jnp.ones(3)), jax_numpy.array_equal(np.ones(2), np.ones(3)))
    _same(jnp.array_equiv(jnp.ones((2, 3)), jnp.ones(3)), jax_numpy.array_equiv(np.ones((2, 3)), np.ones(3)))


def test_structure_functions_match_jax(platform):
    x = np.arange(24, dtype=np.int32).reshape(2, 3, 4)
    m = np.arange(12, dtype=np.float32).reshape(3, 4)
    cases = [
        ("roll", (x, 5), {}), ("roll", (x, -2), {"axis": 2}), ("roll", (x, (1, 2)), {"axis": (0, 1)}),
        ("tril", (m,), {}), ("tril", (x, -1), {}), ("triu", (m, 1), {}), ("triu", (x,), {}),
        ("diag", (np.array([1, 2, 3]),), {}), ("diag", (np.array([1, 2]), 1), {}),
        ("diag", (np.array([1, 2]), -2), {}), ("diag", (m, -1), {}), ("diagflat", (m[:2, :2],), {}),
        ("kron", (np.array([[1, 2], [3, 4]]), np.array([[0, 1], [1, 0]])), {}),
        ("kron", (np.array([1, 2]), np.ones((2, 2), np.int32)), {}),
        ("cross", (np.array([[1.0, 2, 3], [4, 5, 6]]), np.array([[0.0, 1, 0], [1, 0, 0]])), {}),
        ("cross", (np.array([1.0, 2]), np.array([3.0, 4])), {}),
        ("diff", (x,), {}), ("diff", (x, 2), {"axis": 1}), ("diff", (m,), {"prepend": 0.0}),
        ("diff", (np.array([True, False, False]),), {}),
    ]
    for name, args, kw in cases:
        ours = getattr(jnp, name)(*[jnp.asarray(a) if isinstance(a, np.ndarray) else a for a in args], **kw)
        _same(ours, getattr(jax_numpy, name)(*args, **kw))
    for indexing in ("xy", "ij"):
        for sparse in (False, True):
            got = jnp.meshgrid(jnp.arange(2), jnp.arange(3), jnp.arange(4), indexing=indexing, sparse=sparse)
            want = jax_numpy.meshgrid(np.arange(2), np.arange(3), np.arange(4), indexing=indexing,
                                      sparse=sparse)
            for g, w in zip(got, want):
                _same(g, w)
    _same(jnp.indices((2, 3)), jax_numpy.indices((2, 3)))
    for g, w in zip(jnp.indices((2, 3), sparse=True), jax_numpy.indices((2, 3), sparse=True)):
        _same(g, w)


def test_ediff1d_vander_unstack_and_modf_match_jax(platform):
    x = np.array([[1, 4], [9, 16]], np.int32)
    _same(jnp.ediff1d(jnp.asarray(x)), jax_numpy.ediff1d(x))
    _same(jnp.ediff1d(jnp.asarray(x), to_end=jnp.array([100]), to_begin=0),
          jax_numpy.ediff1d(x, to_end=np.array([100]), to_begin=0))
    v = np.array([1.5, -2.0, 3.0], np.float32)
    for n in (None, 2, 4):
        for increasing in (False, True):
            _same(jnp.vander(jnp.asarray(v), n, increasing), jax_numpy.vander(v, n, increasing))
    _same(jnp.vander(jnp.array([1, 2, 3]), 3), jax_numpy.vander(np.array([1, 2, 3]), 3))
    m = np.arange(12, dtype=np.float32).reshape(3, 4)
    for axis in (0, 1, -1):
        for got, want in zip(jnp.unstack(jnp.asarray(m), axis=axis), jax_numpy.unstack(m, axis=axis)):
            _same(got, want)
    for got, want in zip(jnp.modf(jnp.asarray(SPECIAL)), jax_numpy.modf(SPECIAL)):
        _same(got, want)
