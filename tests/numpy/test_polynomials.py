"""Polynomials (`polyval`, `polyadd`, `polysub`, `polymul`, `polyder`, `polyint`, `poly`,
`trim_zeros`) against JAX."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import jaxwg
import jaxwg.numpy as jnp
from jaxwg.errors import ConcretizationTypeError

from .helpers import assert_close, jax, jax_numpy, normal_float32


@settings(max_examples=6, deadline=None)
@given(n1=st.integers(1, 6), n2=st.integers(1, 6), ints=st.booleans())
def test_polynomial_arithmetic_matches_jax(run, n1, n2, ints):
    a1, a2 = normal_float32(n1, n1), normal_float32(n2, 10 + n2)
    if ints:
        a1, a2 = (a1 * 4).astype(np.int32), (a2 * 4).astype(np.int32)
    for name in ("polyadd", "polysub", "polymul"):
        assert_close(run(getattr(jnp, name), jnp.asarray(a1), jnp.asarray(a2)),
                     getattr(jax_numpy, name)(a1, a2), rtol=1e-5)
    x = np.float32([-1.5, 0.0, 0.5, 2.0])
    assert_close(run(jnp.polyval, jnp.asarray(a1), jnp.asarray(x)), jax_numpy.polyval(a1, x),
                 rtol=1e-5)


def test_polyval_shapes_and_dtypes(run):
    p, x = normal_float32((4, 3), 1), normal_float32((2, 3), 2)  # one polynomial per column
    assert_close(run(jnp.polyval, jnp.asarray(p), jnp.asarray(x)), jax_numpy.polyval(p, x))
    ints = np.array([3, 0, 1], np.int32)
    assert_close(run(jnp.polyval, jnp.asarray(ints), jnp.asarray(ints)), jax_numpy.polyval(ints, ints))
    assert_close(jnp.polyval(jnp.asarray(p[:, 0]), 2.0), jax_numpy.polyval(p[:, 0], 2.0))
    assert_close(jnp.polyval(jnp.asarray(p[:, 0]), jnp.float32(np.inf)),
                 jax_numpy.polyval(p[:, 0], np.float32(np.inf)))


def test_polyadd_broadcasts_trailing_axes(platform):
    p, q = normal_float32((4, 3), 3), normal_float32((2, 1), 4)
    assert_close(jnp.polyadd(jnp.asarray(p), jnp.asarray(q)), jax_numpy.polyadd(p, q))
    assert_close(jnp.polysub(jnp.asarray(q), jnp.asarray(p)), jax_numpy.polysub(q, p))


def test_polymul_edge_cases(platform):
    a, b = np.float32([0.0, 0.0, 1.0, 2.0]), np.float32([0.0, 3.0])
    assert_close(jnp.polymul(jnp.asarray(a), jnp.asarray(b), trim_leading_zeros=True),
                 jax_numpy.polymul(a, b, trim_leading_zeros=True))
    assert_close(jnp.polymul(jnp.zeros(0), jnp.asarray(b)),
                 jax_numpy.polymul(np.zeros(0, np.float32), b))
    with pytest.raises(ConcretizationTypeError):
        jaxwg.jit(lambda a: jnp.polymul(a, a, trim_leading_zeros=True))(jnp.asarray(a))


@pytest.mark.parametrize("m", [0, 1, 2, 5, 7])
def test_polyder_polyint_match_jax(run, m):
    p = normal_float32(6, m)
    assert_close(run(jnp.polyder, jnp.asarray(p), m=m), jax_numpy.polyder(p, m))
    assert_close(run(jnp.polyint, jnp.asarray(p), m=m), jax_numpy.polyint(p, m))
    assert_close(run(jnp.polyint, jnp.asarray(p), m=m, k=2.5), jax_numpy.polyint(p, m, k=2.5))
    k = np.arange(m, dtype=np.float32) - 1
    assert_close(run(lambda p, k: jnp.polyint(p, m, k), jnp.asarray(p), jnp.asarray(k)),
                 jax_numpy.polyint(p, m, k))


def test_polyder_polyint_dtypes_and_large_orders(platform):
    ints = np.array([1, 1, 1, 1], np.int32)
    assert_close(jnp.polyder(jnp.asarray(ints), 2), jax_numpy.polyder(ints, 2))
    assert_close(jnp.polyint(jnp.asarray(ints)), jax_numpy.polyint(ints))
    ones = np.ones(15, np.float32)  # factorials past 2^24: float32 rounding of the products
    assert_close(jnp.polyder(jnp.asarray(ones), 6), jax_numpy.polyder(ones, 6))
    assert_close(jnp.polyint(jnp.asarray(ones), 6), jax_numpy.polyint(ones, 6))


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
    roots = normal_float32(6, 5)
    assert_close(run(jnp.poly, jnp.asarray(roots)), jax_numpy.poly(roots), rtol=1e-5, atol=1e-5)
    ints = np.array([1, 2, 3], np.int32)
    assert_close(run(jnp.poly, jnp.asarray(ints)), jax_numpy.poly(ints))
    assert_close(jnp.poly(3.0), jax_numpy.poly(3.0))
    assert_close(jnp.poly(jnp.zeros(0)), jax_numpy.poly(np.zeros(0, np.float32)))


def test_poly_errors():
    with pytest.raises(ValueError, match="input must be 1d or non-empty square 2d array"):
        jnp.poly(jnp.ones((2, 3)))


def test_polynomial_grads_and_vmap_match_jax(platform):
    p, x, roots = normal_float32(5, 6), normal_float32(4, 7), normal_float32(3, 8)

    def loss(np_, P):
        return lambda p, x, r: (np_.sum(P.polyval(P.polyder(p), x) ** 2)
                                + np_.sum(P.polyint(P.polymul(p, r)))
                                + np_.sum(P.poly(r) * np_.arange(4.0)))

    got = jaxwg.grad(loss(jnp, jnp), argnums=(0, 1, 2))(*map(jnp.asarray, (p, x, roots)))
    want = jax.grad(loss(jax_numpy, jax_numpy), argnums=(0, 1, 2))(p, x, roots)
    for g, w in zip(got, want):
        assert_close(g, w, rtol=1e-5, atol=1e-5)
    rows = normal_float32((3, 5), 9)
    assert_close(jaxwg.vmap(jnp.polyval, in_axes=(0, None))(jnp.asarray(rows), jnp.asarray(x)),
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
        assert_close(jnp.trim_zeros(jnp.asarray(square), trim, axis=axis),
                     jax_numpy.trim_zeros(square, trim, axis=axis))


def test_trim_zeros_edge_cases_and_errors(platform):
    for zeros in (np.zeros(3, np.float32), np.zeros((2, 3), np.float32), np.zeros(0, np.float32)):
        assert_close(jnp.trim_zeros(jnp.asarray(zeros)), jax_numpy.trim_zeros(zeros))
    nan = np.float32([0.0, np.nan, 0.0])  # NaN is not zero
    assert_close(jnp.trim_zeros(jnp.asarray(nan)), jax_numpy.trim_zeros(nan))
    with pytest.raises(ConcretizationTypeError, match="trim_zeros"):
        jaxwg.jit(jnp.trim_zeros)(jnp.ones(3))


def test_roots_and_characteristic_polynomials_match_jax():
    """roots are a companion matrix's eigenvalues (LAPACK on the host, as JAX's), compared
    as sorted sets; leading zeros stripped, or NaN roots with strip_zeros=False (jit)."""
    cases = [np.array([1.0, -6.0, 11.0, -6.0], np.float32), np.array([0, 0, 1, 2]),
             np.array([2.0, 0.0, 1.0], np.float32), np.array([3.0], np.float32)]
    for p in cases:
        got, want = np.asarray(jnp.roots(jnp.asarray(p))), np.asarray(jax_numpy.roots(p))
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_allclose(np.sort_complex(got), np.sort_complex(want), atol=2e-5)
    p = np.array([0.0, 0.0, 1.0, 2.0], np.float32)
    kept = jaxwg.jit(lambda q: jnp.roots(q, strip_zeros=False))(jnp.asarray(p))
    np.testing.assert_array_equal(np.asarray(kept), np.asarray(jax_numpy.roots(p, strip_zeros=False)))
    with pytest.raises(ConcretizationTypeError):
        jaxwg.jit(jnp.roots)(jnp.asarray(p))
    with pytest.raises(ValueError, match="rank-1"):
        jnp.roots(jnp.ones((2, 2)))
    m = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
    got, want = jnp.poly(jnp.asarray(m)), jax_numpy.poly(m)
    assert got.dtype == want.dtype
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), atol=4e-6)
