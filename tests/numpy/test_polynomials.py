"""Polynomials (`polyval`, `polyadd`, `polysub`, `polymul`, `polyder`, `polyint`, `poly`,
`trim_zeros`) against JAX."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import jaxwg
import jaxwg.numpy as jnp
from jaxwg.errors import ConcretizationTypeError

from .helpers import jax, jax_numpy


def _close(got, want, rtol=1e-6, atol=1e-6):
    """Same dtype and shape; values a few float32 roundings apart (products summed in
    another order than XLA's)."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, want.dtype,
                                                                  got.shape, want.shape)
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, equal_nan=True)


def _normal(shape, seed):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


@settings(max_examples=6, deadline=None)
@given(n1=st.integers(1, 6), n2=st.integers(1, 6), ints=st.booleans())
def test_polynomial_arithmetic_matches_jax(run, n1, n2, ints):
    a1, a2 = _normal(n1, n1), _normal(n2, 10 + n2)
    if ints:
        a1, a2 = (a1 * 4).astype(np.int32), (a2 * 4).astype(np.int32)
    for name in ("polyadd", "polysub", "polymul"):
        _close(run(getattr(jnp, name), jnp.asarray(a1), jnp.asarray(a2)),
               getattr(jax_numpy, name)(a1, a2), rtol=1e-5)
    x = np.float32([-1.5, 0.0, 0.5, 2.0])
    _close(run(jnp.polyval, jnp.asarray(a1), jnp.asarray(x)), jax_numpy.polyval(a1, x),
           rtol=1e-5)


def test_polyval_shapes_and_dtypes(run):
    p, x = _normal((4, 3), 1), _normal((2, 3), 2)  # one polynomial per column
    _close(run(jnp.polyval, jnp.asarray(p), jnp.asarray(x)), jax_numpy.polyval(p, x))
    ints = np.array([3, 0, 1], np.int32)
    _close(run(jnp.polyval, jnp.asarray(ints), jnp.asarray(ints)), jax_numpy.polyval(ints, ints))
    _close(jnp.polyval(jnp.asarray(p[:, 0]), 2.0), jax_numpy.polyval(p[:, 0], 2.0))
    _close(jnp.polyval(jnp.asarray(p[:, 0]), jnp.float32(np.inf)),
           jax_numpy.polyval(p[:, 0], np.float32(np.inf)))


def test_polyadd_broadcasts_trailing_axes(platform):
    p, q = _normal((4, 3), 3), _normal((2, 1), 4)
    _close(jnp.polyadd(jnp.asarray(p), jnp.asarray(q)), jax_numpy.polyadd(p, q))
    _close(jnp.polysub(jnp.asarray(q), jnp.asarray(p)), jax_numpy.polysub(q, p))


def test_polymul_edge_cases(platform):
    a, b = np.float32([0.0, 0.0, 1.0, 2.0]), np.float32([0.0, 3.0])
    _close(jnp.polymul(jnp.asarray(a), jnp.asarray(b), trim_leading_zeros=True),
           jax_numpy.polymul(a, b, trim_leading_zeros=True))
    _close(jnp.polymul(jnp.zeros(0), jnp.asarray(b)),
           jax_numpy.polymul(np.zeros(0, np.float32), b))
    with pytest.raises(ConcretizationTypeError):
        jaxwg.jit(lambda a: jnp.polymul(a, a, trim_leading_zeros=True))(jnp.asarray(a))


@pytest.mark.parametrize("m", [0, 1, 2, 5, 7])
def test_polyder_polyint_match_jax(run, m):
    p = _normal(6, m)
    _close(run(jnp.polyder, jnp.asarray(p), m=m), jax_numpy.polyder(p, m))
    _close(run(jnp.polyint, jnp.asarray(p), m=m), jax_numpy.polyint(p, m))
    _close(run(jnp.polyint, jnp.asarray(p), m=m, k=2.5), jax_numpy.polyint(p, m, k=2.5))
    k = np.arange(m, dtype=np.float32) - 1
    _close(run(lambda p, k: jnp.polyint(p, m, k), jnp.asarray(p), jnp.asarray(k)),
           jax_numpy.polyint(p, m, k))


def test_polyder_polyint_dtypes_and_large_orders(platform):
    ints = np.array([1, 1, 1, 1], np.int32)
    _close(jnp.polyder(jnp.asarray(ints), 2), jax_numpy.polyder(ints, 2))
    _close(jnp.polyint(jnp.asarray(ints)), jax_numpy.polyint(ints))
    ones = np.ones(15, np.float32)  # factorials past 2^24: float32 rounding of the products
    _close(jnp.polyder(jnp.asarray(ones), 6), jax_numpy.polyder(ones, 6))
    _close(jnp.polyint(jnp.asarray(ones), 6), jax_numpy.polyint(ones, 6))


def test_polyder_polyint_errors():
    with pytest.raises(ValueError, match="Order of derivative must be positive"):
        jnp.polyder(jnp.ones(3), -1)
    with pytest.raises(ValueError, match=r"Order of integral must be positive \(see polyder\)"):
        jnp.polyint(jnp.ones(3), -1)
    with pytest.raises(ValueError, match="k must be a scalar or a rank-1 array of length 1 or m"):
        jnp.polyint(jnp.ones(3), 2, k=jnp.ones(3))
    with pytest.raises(TypeError):
        jnp.polyder(jnp.ones(3), 1.5)
    with pytest.raises(ConcretizationTypeError, match="'m' argument of jnp.polyder"):
        jaxwg.jit(jnp.polyder)(jnp.ones(3), 1)
    with pytest.raises(TypeError, match="polyval requires ndarray"):
        jnp.polyval([1.0, 2.0], 1.0)


def test_poly_matches_jax(run):
    roots = _normal(6, 5)
    _close(run(jnp.poly, jnp.asarray(roots)), jax_numpy.poly(roots), rtol=1e-5, atol=1e-5)
    ints = np.array([1, 2, 3], np.int32)
    _close(run(jnp.poly, jnp.asarray(ints)), jax_numpy.poly(ints))
    _close(jnp.poly(3.0), jax_numpy.poly(3.0))
    _close(jnp.poly(jnp.zeros(0)), jax_numpy.poly(np.zeros(0, np.float32)))


def test_poly_errors():
    with pytest.raises(ValueError, match="input must be 1d or non-empty square 2d array"):
        jnp.poly(jnp.ones((2, 3)))
    with pytest.raises(NotImplementedError, match="eigenvalues"):
        jnp.poly(jnp.eye(2))  # JAX: the characteristic polynomial, through eigvals


def test_polynomial_grads_and_vmap_match_jax(platform):
    p, x, roots = _normal(5, 6), _normal(4, 7), _normal(3, 8)

    def loss(np_, P):
        return lambda p, x, r: (np_.sum(P.polyval(P.polyder(p), x) ** 2)
                                + np_.sum(P.polyint(P.polymul(p, r)))
                                + np_.sum(P.poly(r) * np_.arange(4.0)))

    got = jaxwg.grad(loss(jnp, jnp), argnums=(0, 1, 2))(*map(jnp.asarray, (p, x, roots)))
    want = jax.grad(loss(jax_numpy, jax_numpy), argnums=(0, 1, 2))(p, x, roots)
    for g, w in zip(got, want):
        _close(g, w, rtol=1e-5, atol=1e-5)
    rows = _normal((3, 5), 9)
    _close(jaxwg.vmap(jnp.polyval, in_axes=(0, None))(jnp.asarray(rows), jnp.asarray(x)),
           jax.vmap(jax_numpy.polyval, in_axes=(0, None))(rows, x))


@pytest.mark.parametrize("trim", ["fb", "f", "b", "F", "neither"])
def test_trim_zeros_matches_jax(platform, trim):
    z = np.array([0, 0, 3, 0, 2, 0, 0], np.int32)
    got, want = jnp.trim_zeros(jnp.asarray(z), trim), jax_numpy.trim_zeros(z, trim)
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
    square = np.zeros((4, 5), np.float32)
    square[1:3, 1:4] = 1
    square[2, 1] = -0.0  # a zero still
    for axis in (None, 0, -1, (0, 1)):
        _close(jnp.trim_zeros(jnp.asarray(square), trim, axis=axis),
               jax_numpy.trim_zeros(square, trim, axis=axis))


def test_trim_zeros_edge_cases_and_errors(platform):
    for zeros in (np.zeros(3, np.float32), np.zeros((2, 3), np.float32), np.zeros(0, np.float32)):
        _close(jnp.trim_zeros(jnp.asarray(zeros)), jax_numpy.trim_zeros(zeros))
    nan = np.float32([0.0, np.nan, 0.0])  # NaN is not zero
    _close(jnp.trim_zeros(jnp.asarray(nan)), jax_numpy.trim_zeros(nan))
    with pytest.raises(ConcretizationTypeError, match="trim_zeros"):
        jaxwg.jit(jnp.trim_zeros)(jnp.ones(3))
