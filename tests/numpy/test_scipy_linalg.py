"""jaxwg.scipy.linalg and jaxwg.lax.linalg against JAX (dtypes, weak types, errors,
gradients, lax.linalg's values) and SciPy (the values JAX's LAPACK calls give). Each case
is written once over a module; shapes are shared so that each loop compiles once, on the
CPU backend (see `cpu`)."""

import numpy as np
import pytest
import scipy.linalg
from hypothesis import given, settings, strategies as st

import jaxwg
from jaxwg.lax import linalg as lax_linalg
from jaxwg.scipy import linalg

from .helpers import jax

jax_linalg = jax.scipy.linalg
scipy_linalg = scipy.linalg
jax_lax_linalg = jax.lax.linalg

_RNG = np.random.default_rng(0)
A = (_RNG.standard_normal((4, 4)) + 4 * np.eye(4)).astype(np.float32)
B = _RNG.standard_normal((4, 3)).astype(np.float32)
SPD = (A @ A.T).astype(np.float32)
C = (A + 1j * _RNG.standard_normal((4, 4))).astype(np.complex64)
CB = (B + 1j * _RNG.standard_normal((4, 3))).astype(np.complex64)


@pytest.fixture(autouse=True)
def cpu(monkeypatch):
    """The NumPy backend: compiling these loops for the software GPU would take several
    times this file's time budget (tests/numpy/test_linalg.py runs them on WebGPU)."""
    monkeypatch.setenv("JAXWG_PLATFORMS", "cpu")


def _leaves(x):
    return jax.tree_util.tree_leaves(x)


def _same(got, want, types=None, rtol=2e-5, atol=2e-5):
    """`got` (jaxwg's) has the dtypes, shapes and weak types of `types` (JAX's result or
    `jax.eval_shape` of it; default `want`) and the values of `want`."""
    got, want = _leaves(got), _leaves(want)
    types = want if types is None else _leaves(types)
    assert len(got) == len(want) == len(types)
    for g, w, t in zip(got, want, types):
        if isinstance(t, bool):
            assert g is t
            continue
        assert isinstance(g, jaxwg.Array), type(g)
        assert (g.dtype, g.shape) == (t.dtype, t.shape), (g.dtype, t.dtype, g.shape, t.shape)
        assert g.weak_type == getattr(t, "weak_type", False), (g.weak_type, t.weak_type)
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=rtol, atol=atol, equal_nan=True)


# Each case runs with jaxwg.scipy.linalg (checked), SciPy (the values: JAX's are LAPACK's,
# as SciPy's) and jax.scipy.linalg under `jax.eval_shape` (the dtypes and weak types:
# compiling JAX's functions would cost more than this file's time budget).
SCIPY_CASES = {
    "solve_triangular": lambda m: [m.solve_triangular(A, B, trans=t, lower=lower, unit_diagonal=unit)
                                   for t in (0, "T", 2) for lower in (True, False) for unit in (False, True)]
    + [m.solve_triangular(A, B[:, 0]), m.solve_triangular(C, CB, trans="C", lower=True),
       m.solve_triangular(np.zeros((0, 0), np.float32), np.zeros((0, 2), np.float32))],
    "cholesky": lambda m: [m.cholesky(SPD), m.cholesky(SPD, lower=True), m.cholesky(np.triu(SPD)),
                           m.cho_solve(m.cho_factor(SPD), B),
                           m.cho_solve(m.cho_factor(SPD, lower=True), B[:, 0])],
    "lu": lambda m: [m.lu(A), m.lu(A, permute_l=True), m.lu_factor(A), m.lu_factor(np.eye(4, dtype=np.int32))]
    + [m.lu_solve(m.lu_factor(A), B, trans=t) for t in (0, 1, 2)] + [m.lu_solve(m.lu_factor(A), B[:, 0])],
    "solve": lambda m: [m.solve(A, B), m.solve(SPD, B, assume_a="pos"),
                        m.solve(np.tril(SPD), B[:, 0], assume_a="pos", lower=True),
                        m.inv(A), m.det(A), m.det(np.array([[1, 2], [3, 4]]))],
    "qr": lambda m: [m.qr(A[:, :3], mode=mode) for mode in ("full", "economic", "r")]
    + [m.qr(np.eye(2, 3, dtype=np.int32), mode="r")],
    "special_matrices": lambda m: [
        m.block_diag(np.ones((2, 2), np.int32), 3, np.arange(3)),
        m.block_diag(np.ones((1, 2), np.float32), 2.0),
        m.block_diag(), m.block_diag(np.ones((0, 2), np.float32), np.ones((1, 1), np.float32)),
        m.toeplitz(np.array([1, 2, 3]), np.array([7.0, 5.0])), m.toeplitz(np.array([1, 2 + 1j, 3])),
        m.toeplitz(np.float32(2.0)), m.toeplitz(np.ones((2, 3), np.float32), np.arange(4)),
        m.toeplitz(np.zeros(0, np.float32), np.ones(2, np.float32)), m.hilbert(4), m.hilbert(1)],
    "eigh_tridiagonal": lambda m: [m.eigh_tridiagonal(A[0], A[1, :3], eigvals_only=True),
                                   m.eigh_tridiagonal(A[0, :1], A[1, :0], eigvals_only=True)],
    "expm": lambda m: [m.expm(A[:2, :2] * s) for s in (0.05, 0.3, 1.0)],
    "expm_frechet": lambda m: m.expm_frechet(A[:2, :2] / 2, B[:2, :2]),
}


@pytest.mark.parametrize("case", sorted(SCIPY_CASES))
def test_scipy_linalg_matches_scipy_with_jax_dtypes(case):
    fn = SCIPY_CASES[case]
    _same(fn(linalg), fn(scipy_linalg), jax.eval_shape(lambda: fn(jax_linalg)), rtol=1e-4, atol=1e-5)


def test_decompositions_reconstruct_as_jax():
    """Eigenvectors and singular vectors agree up to sign: compare what is unique (|v|,
    u diag(s) vh, the polar factors). One 2 x 2 shape: Jacobi loops compile slowly."""
    a = SPD[:2, :2]
    w, v = linalg.eigh(a)
    want_w, want_v = scipy_linalg.eigh(a)
    types = jax.eval_shape(lambda: jax_linalg.eigh(a))
    _same([w, abs(v)], [want_w, np.abs(want_v)], types, atol=1e-5)
    lax_v, lax_w = lax_linalg.eigh(a)  # JAX's lax order: vectors first
    _same([abs(lax_v), lax_w], [np.abs(want_v), want_w], jax.eval_shape(lambda: jax_lax_linalg.eigh(a)),
          atol=1e-5)
    _same(linalg.eigh(a, eigvals_only=True), want_w, atol=1e-5)
    w, v = linalg.eigh_tridiagonal(np.diag(a), a[1, :1])
    types = jax.eval_shape(lambda: jax_linalg.eigh_tridiagonal(np.diag(a), a[1, :1]))
    _same([w, abs(v)], [want_w, np.abs(want_v)], types, atol=1e-5)
    d, e = C[0, :2].real.astype(np.complex64), C[1, :1]  # Hermitian: e above the diagonal, as JAX's
    w, v = linalg.eigh_tridiagonal(d, e)
    t = np.diag(d) + np.diag(e, 1) + np.diag(e.conj(), -1)
    types = jax.eval_shape(lambda: jax_linalg.eigh_tridiagonal(d, e))
    _same([w, v, t @ v], [scipy_linalg.eigvalsh(t), v, np.asarray(v) * np.asarray(w)], [*types, types[1]],
          atol=1e-5)
    x = A[:2, :2]
    u, s, vh = linalg.svd(x, full_matrices=False)
    types = jax.eval_shape(lambda: jax_linalg.svd(x, full_matrices=False))
    _same([s, u * s @ vh], [scipy_linalg.svd(x)[1], x], [types[1], types[0]], atol=1e-5)
    _same(linalg.polar(x), scipy_linalg.polar(x), jax.eval_shape(lambda: jax_linalg.polar(x)), atol=1e-5)
    _same(linalg.polar(x, "left", method="svd"), scipy_linalg.polar(x, "left"),
          jax.eval_shape(lambda: jax_linalg.polar(x, "left", method="svd")), atol=1e-5)


def test_jax_specific_results_match_jax():
    """Where JAX differs from SciPy: NaN factors of a matrix that is not positive definite
    (SciPy raises), cho_factor's zero triangle and flag, expm's NaN past max_squarings."""
    indefinite = np.array([[1.0, 2.0], [2.0, 1.0]], np.float32)

    def f(m):
        return [m.cholesky(indefinite), m.cho_factor(SPD[:2, :2], lower=True)[0]]

    _same(f(linalg), jax.jit(lambda: f(jax_linalg))(), rtol=1e-5, atol=1e-5)
    assert linalg.cho_factor(SPD)[1] is False
    # JAX's expm is NaN where it would take more than max_squarings squarings (compiling it
    # costs a second: its types, and the NaN of its lax.cond)
    big = A[:2, :2] * 1e6
    _same(linalg.expm(big), np.full((2, 2), np.nan), jax.eval_shape(lambda: jax_linalg.expm(big)))


ZERO_PIVOT = tuple(np.array(v, np.float32) for v in
                   ([0, 1, 2, 1], [0, 5, 6, 4], [1, 1, 2, 0], [[1], [2], [3], [4]]))
LAX_CASES = {
    "triangular_solve": lambda m: [m.triangular_solve(A, b, left_side=left, lower=lower, transpose_a=t)
                                   for left, b in ((True, B), (False, B.T)) for lower in (True, False)
                                   for t in (False, True)]
    + [m.triangular_solve(A, B[:, 0], left_side=True), m.triangular_solve(A, B[:, 0], lower=True),
       m.triangular_solve(C, CB, left_side=True, conjugate_a=True, unit_diagonal=True),
       m.triangular_solve(C, CB.T, lower=True, transpose_a=True, conjugate_a=True)],
    "factorizations": lambda m: [m.cholesky(SPD), m.cholesky(np.tril(SPD), symmetrize_input=False), m.lu(A),
                                 m.qr(A[:, :3]), m.qr(A[:3], full_matrices=False),
                                 m.householder_product(A[:, :3], np.array([1.2, 0.5, 0.0], np.float32)),
                                 m.householder_product(A[:, :3], np.array([1.5], np.float32))],
    "solvers": lambda m: [m.lu_pivots_to_permutation(np.array([2, 2, 3], np.int32), 5),
                          m.lu_pivots_to_permutation(np.array([[1, 1], [0, 1]], np.int32), 2),
                          m.lu_pivots_to_permutation(np.zeros(0, np.int32), 2),
                          m.tridiagonal_solve(np.r_[0, A[1, :3]], A[0] + 5, np.r_[A[2, :3], 0], B),
                          # a zero first pivot: only a pivoting solve gets it right
                          *(m.tridiagonal_solve(*ZERO_PIVOT, perturb_singular=p) for p in (False, True))],
}


@pytest.mark.parametrize("case", sorted(LAX_CASES))
def test_lax_linalg_matches_jax(case):
    fn = LAX_CASES[case]
    _same(fn(lax_linalg), jax.jit(lambda: fn(jax_lax_linalg))())


def test_jit_and_vmap():
    _same(jaxwg.jit(lambda a, b: linalg.lu_solve(linalg.lu_factor(a), b, trans=1))(A, B),
          scipy_linalg.lu_solve(scipy_linalg.lu_factor(A), B, trans=1), rtol=1e-4,
          types=jax.ShapeDtypeStruct(B.shape, B.dtype))
    stack = np.stack([A, 2 * A])
    _same(jaxwg.vmap(lambda a: linalg.solve_triangular(a, B, lower=True))(stack),
          np.stack([scipy_linalg.solve_triangular(a, B, lower=True) for a in stack]), rtol=1e-4,
          types=jax.ShapeDtypeStruct((2, *B.shape), B.dtype))


def test_deprecated_batched_vectors_warn_as_jax():
    batch = np.stack([B[:, 0], B[:, 1]])
    with pytest.warns(FutureWarning):
        got = linalg.solve_triangular(np.stack([A, A]), batch)
    _same(got, np.stack([scipy_linalg.solve_triangular(A, v) for v in batch]),
          types=jax.ShapeDtypeStruct((2, 4), np.float32),
          rtol=1e-5)


def test_gradients_match_jax():
    """One gradient of a sum of terms: each term's gradient differs, so each must match."""

    def f(m, a, b):
        return (m.solve_triangular(a, b, lower=True).sum() + (m.solve_triangular(a, b, trans=1) * b).sum()
                + (m.cho_solve((m.cholesky(a @ a.T, lower=True), True), b) ** 2).sum() + m.det(a) * b[0, 0])

    got = jaxwg.grad(lambda a, b: f(linalg, a, b), argnums=(0, 1))(A, B)
    want = jax.jit(jax.grad(lambda a, b: f(jax_linalg, a, b), argnums=(0, 1)))(A, B)
    _same(got, want, rtol=2e-4, atol=2e-4)


def test_expm_gradient_is_the_frechet_adjoint():
    """d/dA sum(expm(A) * W) = L(A^T, W), SciPy's Frechet derivative (as JAX's gradient)."""
    a, w = A[:2, :2] / 4, B[:2, :2]
    got = jaxwg.grad(lambda a: (linalg.expm(a) * w).sum())(a)
    _same(got, scipy_linalg.expm_frechet(a.T, w, compute_expm=False), rtol=1e-4,
          types=jax.eval_shape(jax.grad(lambda a: (jax_linalg.expm(a) * w).sum()), a))


@settings(max_examples=4, deadline=None)
@given(st.integers(1, 4), st.booleans(), st.sampled_from([0, 1, 2]), st.integers(0, 2**31 - 1))
def test_solve_triangular_random(n, lower, trans, seed):
    rng = np.random.default_rng(seed)
    a = (rng.standard_normal((n, n)) + 3 * np.eye(n)).astype(np.float32)
    b = rng.standard_normal((n, 2)).astype(np.float32)
    _same(linalg.solve_triangular(a, b, trans=trans, lower=lower),
          scipy_linalg.solve_triangular(a, b, trans=trans, lower=lower), rtol=1e-4, atol=1e-5,
          types=jax.ShapeDtypeStruct(b.shape, b.dtype))


ERRORS = [
    (lambda m, l: m.solve_triangular(A, B, trans=3), ValueError),
    (lambda m, l: m.solve(A, B, assume_a="banded"), ValueError),
    (lambda m, l: m.qr(A, mode="raw"), ValueError),
    (lambda m, l: m.eigh(A, A), NotImplementedError),
    (lambda m, l: m.eigh(A, type=2), NotImplementedError),
    (lambda m, l: m.expm(B), ValueError),
    (lambda m, l: m.expm_frechet(A, B), ValueError),
    (lambda m, l: m.block_diag(np.ones((1, 1, 1))), ValueError),
    (lambda m, l: m.eigh_tridiagonal(A[0], A[1, :3].astype(np.int32), eigvals_only=True), TypeError),
    (lambda m, l: m.eigh_tridiagonal(A[0], A[1, :3], eigvals_only=True, select="v"), NotImplementedError),
    (lambda m, l: m.eigh_tridiagonal(A[0], A[1, :3], eigvals_only=True, select="i"), ValueError),
    (lambda m, l: m.eigh_tridiagonal(A[0], A[1, :3], eigvals_only=True, select="x"), ValueError),
    (lambda m, l: m.polar(A, side="up"), ValueError),
    (lambda m, l: m.polar(A[0]), ValueError),
    (lambda m, l: m.polar(B.T), NotImplementedError),
    (lambda m, l: m.polar(A, method="newton"), ValueError),
    (lambda m, l: m.lu_solve(m.lu_factor(A), B, trans=3), ValueError),
    (lambda m, l: m.toeplitz([1, 2]), TypeError),
    (lambda m, l: m.lu(np.ones(3, np.float32)), TypeError),
    (lambda m, l: m.eigh(B), TypeError),
    (lambda m, l: l.cholesky(B), TypeError),
    (lambda m, l: l.cholesky(B, symmetrize_input=False), ValueError),
    (lambda m, l: l.lu(np.eye(2, dtype=np.int32)), TypeError),
    (lambda m, l: l.qr(np.eye(2, dtype=np.int32)), TypeError),
    (lambda m, l: l.triangular_solve(A, B[:2], left_side=True), ValueError),
    (lambda m, l: l.triangular_solve(A, CB, left_side=True), TypeError),
    (lambda m, l: l.tridiagonal_solve(A[0], A[1], A[2, :3], B), TypeError),
    (lambda m, l: l.tridiagonal_solve(A[0], A[1], A[2], B[:3]), TypeError),
    (lambda m, l: l.lu_pivots_to_permutation(np.ones(3, np.float32), 3), TypeError),
    (lambda m, l: l.lu_pivots_to_permutation(np.ones(3, np.int32), 2), ValueError),
    (lambda m, l: l.householder_product(B.T, np.ones(1, np.float32)), ValueError),
]


@pytest.mark.parametrize("index", range(len(ERRORS)))
def test_errors_as_jax(index):
    fn, error = ERRORS[index]
    with pytest.raises(error):
        jax.eval_shape(lambda: fn(jax_linalg, jax_lax_linalg))
    with pytest.raises(error):
        fn(linalg, lax_linalg)


def test_expm_of_empty_matrices_is_empty():
    for shape in ((0, 0), (2, 0, 0)):
        assert linalg.expm(np.zeros(shape, np.float32)).shape == shape
