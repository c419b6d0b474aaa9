"""jnp.linalg on complex64 (and complex128 with x64) matrices: values against NumPy's
complex128 LAPACK, result dtypes against JAX, and the eigh and svd JVP rules against
JAX's gradients.

Tolerances are backward-error bounds, not fitted: C n eps |A| (C = 10, n the size, eps
float32's, |A| the 2-norm) for what a stable algorithm computes to the precision of its
input (eigenvalues, singular values, reconstructions, orthonormality), times the
condition number for what is only as well determined as the matrix is conditioned
(solutions, Q and R, L). Eigenvectors and singular vectors are unique only up to a
phase per column, so they are checked by A v = v w and orthonormality, not against
NumPy's."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jaxwg
import jaxwg.numpy as jnp
from jaxwg.core import dtypes

from .helpers import jax, jax_dtype, jax_numpy

EPS = float(np.finfo(np.float32).eps)
C = 10  # the constant of the C n eps bounds

# Few shapes, so that hypothesis's examples share compiled programs: a Jacobi program
# (eigh, svd) takes seconds to compile for each shape, the more the larger n is (n = 2
# is one rotation a sweep). The file stays within a minute on 2 cores.
_SQUARE = st.sampled_from([((), 1), ((2,), 3), ((), 5)])
_HERMITIAN = st.sampled_from([((), 1), ((2,), 2), ((), 5)])  # 5: padded to 6 (odd n)
_RECTANGULAR = st.sampled_from([((), 1, 1), ((2,), 2, 3), ((), 5, 3)])  # square, wide, tall


def _complex(rng, shape, dtype=np.complex64):
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)


def _h(x):
    return np.conj(np.swapaxes(x, -1, -2))


def _hermitian(rng, shape):
    b = _complex(rng, shape).astype(np.complex128)
    return ((b + _h(b)) / 2).astype(np.complex64)


def _positive_definite(rng, shape):
    b = _complex(rng, shape).astype(np.complex128)
    return (b @ _h(b) + shape[-1] * np.eye(shape[-1])).astype(np.complex64)


def _well_conditioned(rng, shape):
    """Random matrices plus n on the diagonal: condition numbers near 1 to 10."""
    return (_complex(rng, shape) + shape[-1] * np.eye(shape[-1])).astype(np.complex64)


def _norm2(a):
    """The 2-norm of each matrix, shaped to broadcast against it."""
    return np.linalg.norm(np.asarray(a, np.complex128), 2, axis=(-2, -1))[..., None, None]


def _cond(a):
    return np.linalg.cond(np.asarray(a, np.complex128))[..., None, None]


def _assert_within(got, want, bound, what=""):
    """|got - want| <= bound elementwise (bound broadcasts)."""
    got, want = np.asarray(got, np.complex128), np.asarray(want, np.complex128)
    assert got.shape == want.shape, (what, got.shape, want.shape)
    error = np.abs(got - want)
    bound = np.broadcast_to(bound, error.shape)
    assert (error <= bound).all(), f"{what}: error {error.max()} > bound {bound[error > bound].min()}"


def _assert_unitary_columns(w, size: int, what=""):
    eye = np.broadcast_to(np.eye(w.shape[-1]), (*w.shape[:-2], w.shape[-1], w.shape[-1]))
    _assert_within(_h(w) @ w, eye, C * size * EPS, what)


def _assert_dtypes_as_jax(ours, theirs):
    """Our results have the dtypes and shapes of JAX's `theirs()`, traced (not run)."""
    ours, theirs = jax.tree_util.tree_leaves(ours), jax.tree_util.tree_leaves(jax.eval_shape(theirs))
    assert [(np.dtype(x.dtype), x.shape) for x in ours] == [(np.dtype(x.dtype), x.shape) for x in theirs]


@pytest.mark.slow  # 10 s; the real LU functions (test_linalg.py) run by default
@settings(max_examples=5, deadline=None)  # each example compiles its shapes' loops
@given(_SQUARE, st.integers(0, 2**31 - 1))
def test_lu_functions_match_numpy(shapes, seed):
    """solve, inv, det, slogdet, matrix_power and trace."""
    batch, n = shapes
    rng = np.random.default_rng(seed)
    a, b = _well_conditioned(rng, (*batch, n, n)), _complex(rng, (*batch, n, 2))
    a64, b64 = a.astype(np.complex128), b.astype(np.complex128)
    bound = C * n * EPS * _cond(a)
    x = jnp.linalg.solve(a, b)
    want = np.linalg.solve(a64, b64)
    _assert_within(x, want, bound * np.abs(want).max(axis=(-2, -1), keepdims=True), "solve")
    want = np.linalg.inv(a64)
    _assert_within(jnp.linalg.inv(a), want, bound * _norm2(want), "inv")
    want = np.linalg.det(a64)
    _assert_within(jnp.linalg.det(a), want, bound[..., 0, 0] * np.abs(want), "det")
    sign, logabsdet = jnp.linalg.slogdet(a)
    want_sign, want_logabsdet = np.linalg.slogdet(a64)
    _assert_within(sign, want_sign, bound[..., 0, 0], "slogdet sign")
    _assert_within(logabsdet, want_logabsdet, bound[..., 0, 0], "slogdet logabsdet")
    _assert_within(jnp.linalg.matrix_power(a, 3), np.linalg.matrix_power(a64, 3),
                   C * n * EPS * _norm2(a) ** 3, "matrix_power")
    diagonal = np.diagonal(a64, axis1=-2, axis2=-1)
    _assert_within(jnp.linalg.trace(a), diagonal.sum(-1), n * EPS * np.abs(diagonal).sum(-1), "trace")
    ours = [x, jnp.linalg.inv(a), jnp.linalg.det(a), sign, logabsdet]
    _assert_dtypes_as_jax(ours, lambda: [jax_numpy.linalg.solve(a, b), jax_numpy.linalg.inv(a),
                                         jax_numpy.linalg.det(a), *jax_numpy.linalg.slogdet(a)])


@settings(max_examples=10, deadline=None)
@given(_SQUARE, st.integers(0, 2**31 - 1))
def test_cholesky_matches_numpy(platform, shapes, seed):
    """L L^H = a with L lower triangular, its diagonal real and positive (unique, so
    against NumPy's); `upper` gives L^H. On both backends."""
    batch, n = shapes
    rng = np.random.default_rng(seed)
    a = _positive_definite(rng, (*batch, n, n))
    got = jnp.linalg.cholesky(a)
    assert got.dtype == jax_dtype(jax_numpy.linalg.cholesky, a)
    got = np.asarray(got, np.complex128)
    a64 = a.astype(np.complex128)
    _assert_within(got @ _h(got), a64, C * n * EPS * _norm2(a), "L L^H")
    _assert_within(got, np.linalg.cholesky(a64), C * n * EPS * _cond(a) * np.sqrt(_norm2(a)), "L")
    assert (np.diagonal(got, axis1=-2, axis2=-1).imag == 0).all()
    upper = np.asarray(jnp.linalg.cholesky(a, upper=True))
    np.testing.assert_array_equal(upper, _h(got).astype(np.complex64))


def test_cholesky_of_an_indefinite_hermitian_matrix_is_nan():
    a = np.array([[1.0, 2j], [-2j, 1.0]], np.complex64)  # eigenvalues -1 and 3
    got = np.asarray(jnp.linalg.cholesky(a))  # NaN + NaN j in the triangle, zeros above (JAX's)
    assert np.isnan(got[np.tril_indices(2)].real).all() and np.isnan(got[np.tril_indices(2)].imag).all()
    assert got[0, 1] == 0


def _check_eigh(a, w, v, what=""):
    """Real eigenvalues as NumPy's, ascending; A v = v w and v^H v = I."""
    n = a.shape[-1]
    a64 = a.astype(np.complex128)
    assert w.dtype == np.finfo(a.dtype).dtype and v.dtype == a.dtype
    w, v = np.asarray(w, np.float64), np.asarray(v, np.complex128)
    eps = float(np.finfo(a.dtype).eps)
    bound = C * n * eps * _norm2(a)
    _assert_within(w, np.linalg.eigvalsh(a64), bound[..., 0], f"{what} eigenvalues")
    assert (np.diff(w, axis=-1) >= 0).all()
    _assert_within(a64 @ v, v * w[..., None, :], bound, f"{what} A v = v w")
    eye = np.broadcast_to(np.eye(n), v.shape)
    _assert_within(_h(v) @ v, eye, C * n * eps, f"{what} v^H v = I")


@settings(max_examples=3, deadline=None)  # each example compiles its shapes' loops
@given(_HERMITIAN, st.integers(0, 2**31 - 1))
def test_eigh_matches_numpy(shapes, seed):
    batch, n = shapes
    a = _hermitian(np.random.default_rng(seed), (*batch, n, n))
    w, v = jnp.linalg.eigh(a)
    _assert_dtypes_as_jax((w, v), lambda: jax_numpy.linalg.eigh(a))
    _check_eigh(a, w, v)
    np.testing.assert_array_equal(np.asarray(jnp.linalg.eigvalsh(a)), np.asarray(w))


@pytest.mark.slow  # 7 s of the default run; test_linalg.py's eigh edges stay there
def test_eigh_repeated_eigenvalues_and_triangles():
    rng = np.random.default_rng(5)
    q, _ = np.linalg.qr(_complex(rng, (5, 5)).astype(np.complex128))  # n as test_eigh's
    a = ((q * np.array([1.0, 1.0, 1.0, -2.0, -2.0])) @ _h(q)).astype(np.complex64)
    _check_eigh(a, *jnp.linalg.eigh(a), "repeated")
    # without symmetrization one triangle is read, and the diagonal's real part (LAPACK)
    b = _complex(rng, (5, 5))
    for uplo in ("L", "U"):
        got = jnp.linalg.eigvalsh(b, uplo, symmetrize_input=False)
        want = np.linalg.eigvalsh(b.astype(np.complex128), uplo)
        _assert_within(got, want, C * 5 * EPS * np.abs(want).max(), uplo)
        assert got.dtype == jax_dtype(jax_numpy.linalg.eigvalsh, b, uplo, symmetrize_input=False)
    w, v = jnp.linalg.eigh(np.array([[2 + 1j]], np.complex64))  # symmetrized: the real part
    assert np.asarray(w).tolist() == [2.0] and np.asarray(v).tolist() == [[1.0]]


@settings(max_examples=3, deadline=None)  # each example compiles its shapes' loops
@given(_RECTANGULAR, st.integers(0, 2**31 - 1))
def test_qr_and_svd_match_numpy(shapes, seed):
    """Q and R as LAPACK's (its phases: R's diagonal real), Q unitary, Q R = a; singular
    values real and descending as NumPy's, U and V unitary (full and reduced) and
    U diag(s) V^H = a."""
    batch, m, n = shapes
    rng = np.random.default_rng(seed)
    a = _complex(rng, (*batch, m, n))
    a64 = a.astype(np.complex128)
    k, size = min(m, n), max(m, n)
    norm = _norm2(a)
    # Q's first k columns and R are determined by a's first k columns, to their condition
    cond = _cond(a[..., :, :k])
    for mode in ("reduced", "complete"):
        q, r = jnp.linalg.qr(a, mode)
        _assert_dtypes_as_jax((q, r), lambda: jax_numpy.linalg.qr(a, mode))
        q, r = np.asarray(q, np.complex128), np.asarray(r, np.complex128)
        want_q, want_r = np.linalg.qr(a64, mode)
        _assert_within(q[..., :, :k], want_q[..., :, :k], C * size * EPS * cond, f"{mode} Q")
        _assert_within(r, want_r, C * size * EPS * cond * norm, f"{mode} R")
        assert (np.diagonal(r, axis1=-2, axis2=-1).imag == 0).all()
        assert (np.tril(r, -1) == 0).all()
        _assert_unitary_columns(q, size, f"{mode} Q^H Q")
        _assert_within(q[..., :, :r.shape[-2]] @ r, a64, C * size * EPS * norm, f"{mode} Q R")
    _assert_within(jnp.linalg.qr(a, "r"), np.linalg.qr(a64, "r"), C * size * EPS * cond * norm, "r")
    want_s = np.linalg.svd(a64, compute_uv=False)
    for full in (True, False):
        u, s, vh = jnp.linalg.svd(a, full_matrices=full)
        _assert_dtypes_as_jax((u, s, vh), lambda: jax_numpy.linalg.svd(a, full_matrices=full))
        u, s, vh = (np.asarray(t, np.complex128) for t in (u, s, vh))
        _assert_within(s, want_s, C * size * EPS * norm[..., 0], "s")
        for w in (u, _h(vh)):
            _assert_unitary_columns(w, size, "U, V")
        _assert_within((u[..., :, :k] * s[..., None, :]) @ vh[..., :k, :], a64, C * size * EPS * norm,
                       "U s Vh")


def _rank_deficient(rng, m, n, rank):
    return (_complex(rng, (m, rank)).astype(np.complex128) @ _complex(rng, (rank, n))).astype(np.complex64)


@pytest.mark.parametrize("m,n,rank", [pytest.param(5, 3, 2, marks=pytest.mark.slow), (2, 3, 1)])  # 15 s
def test_rank_deficient_svd_pinv_rank_and_lstsq(m, n, rank):
    rng = np.random.default_rng(m * 10 + n)
    a = _rank_deficient(rng, m, n, rank)
    a64 = a.astype(np.complex128)
    size = max(m, n)
    want_s = np.linalg.svd(a64, compute_uv=False)
    # where s is 0, U is completed to a unitary matrix
    u, s, vh = (np.asarray(t, np.complex128) for t in jnp.linalg.svd(a))
    _assert_within(s, want_s, C * size * EPS * want_s[0], "s")
    _assert_unitary_columns(u, size, "U")
    _assert_unitary_columns(_h(vh), size, "V")
    _assert_within(jnp.linalg.svdvals(a), want_s, C * size * EPS * want_s[0], "svdvals")
    assert int(jnp.linalg.matrix_rank(a)) == rank
    assert int(jnp.linalg.matrix_rank(a, tol=2 * want_s[0])) == 0
    _assert_dtypes_as_jax([jnp.linalg.matrix_rank(a), jnp.linalg.pinv(a)],
                          lambda: [jax_numpy.linalg.matrix_rank(a), jax_numpy.linalg.pinv(a)])
    # the pseudo-inverse moves by |A+|^2 |dA| for a perturbation dA that keeps the rank;
    # NumPy's cutoffs are JAX's float32 ones (a's rounding to complex64 leaves singular
    # values near eps |A| that float64's cutoffs would keep)
    pinv_bound = C * size * EPS * want_s[0] / want_s[rank - 1] ** 2
    _assert_within(jnp.linalg.pinv(a), np.linalg.pinv(a64, 10 * size * EPS), pinv_bound, "pinv")
    b = _complex(rng, (m, 2))
    x, resid, got_rank, got_s = jnp.linalg.lstsq(a, b)
    _assert_dtypes_as_jax([x, resid, got_rank, got_s], lambda: jax_numpy.linalg.lstsq(a, b))
    want_x = np.linalg.lstsq(a64, b.astype(np.complex128), rcond=size * EPS)[0]
    _assert_within(x, want_x, pinv_bound * np.abs(b).max(), "lstsq x")
    want_resid = np.sum(np.abs(b - a64 @ want_x) ** 2, axis=0)
    _assert_within(resid, want_resid, C * size * EPS * np.sum(np.abs(b) ** 2, axis=0), "lstsq residuals")
    assert int(got_rank) == rank
    _assert_within(got_s, want_s, C * size * EPS * want_s[0], "lstsq s")


@pytest.mark.parametrize("dtype", [pytest.param(np.complex64, marks=pytest.mark.slow), np.float32])  # 6 s
def test_exact_outer_products_and_columns_of_mixed_scale(dtype):
    # An exact rank-1 matrix: the columns Jacobi leaves in its null space are tiny (1e-21
    # here), whose squared norms underflow float32; a QR of columns 1e21 apart alike.
    imag = 1j if dtype is np.complex64 else -1
    a = np.outer([1, imag, 2], [1, 2 * imag, -1]).astype(dtype)
    a64 = a.astype(np.complex128)
    u, s, vh = (np.asarray(t, np.complex128) for t in jnp.linalg.svd(a))
    _assert_unitary_columns(u, 3, "U")
    _assert_within(u[:, :1] * s[0] @ vh[:1], a64, C * 3 * EPS * s[0], "U s Vh")
    _assert_within(s, np.linalg.svd(a64, compute_uv=False), C * 3 * EPS * s[0], "s")
    # |A+| = 1 / s_0: a perturbation of |A| eps moves it by eps / s_0
    _assert_within(jnp.linalg.pinv(a), np.linalg.pinv(a64, 30 * EPS), C * 3 * EPS / s[0], "pinv")
    b = np.array([[1.0], [2.0], [3.0]], dtype)
    _assert_within(jnp.linalg.lstsq(a, b)[0], np.linalg.lstsq(a64, b, rcond=30 * EPS)[0],
                   C * 3 * EPS * np.abs(b).max() / s[0], "lstsq")
    mixed = np.array([[1, 0], [0, 1e-21 * imag], [0, 1e-21]], dtype)
    q, r = (np.asarray(t, np.complex128) for t in jnp.linalg.qr(mixed))
    want_q, want_r = np.linalg.qr(mixed.astype(np.complex128))
    _assert_within(r, want_r, C * EPS * np.abs(want_r), "R")
    _assert_within(q, want_q, C * EPS, "Q")


def test_qr_signs_follow_signed_zeros_as_jax():
    # LAPACK's alpha takes the sign bit of Re x_j: -0.0 counts as negative.
    for a in (np.diag([1j, -1j, 2j]).astype(np.complex64), np.array([[-0.0, 1], [1, 1]], np.float32),
              np.array([[complex(-0.0, 1), 1], [0, 1]], np.complex64)):
        for ours, theirs in zip(jnp.linalg.qr(a), jax_numpy.linalg.qr(a)):
            np.testing.assert_allclose(np.asarray(ours), np.asarray(theirs), rtol=0, atol=4 * EPS)


@pytest.mark.slow  # 13 s of the 15-minute default run; the real-valued ones stay there
def test_full_rank_lstsq_cond_and_norms():
    rng = np.random.default_rng(7)
    a, b = _complex(rng, (5, 3)), _complex(rng, (5,))
    a64, b64 = a.astype(np.complex128), b.astype(np.complex128)
    x, resid, rank, s = jnp.linalg.lstsq(a, b)
    want = np.linalg.lstsq(a64, b64, rcond=None)
    bound = C * 5 * EPS * np.linalg.cond(a64)
    _assert_within(x, want[0], bound * np.abs(want[0]).max(), "x")
    _assert_within(resid, want[1], bound * np.sum(np.abs(b64) ** 2), "residuals")
    assert int(rank) == 3 and resid.dtype == np.float32
    # square matrices: every axis order is one svdvals program
    stack = _well_conditioned(rng, (2, 3, 3))
    stack64 = stack.astype(np.complex128)
    for p in (None, 2, -2, 1, -1, np.inf, "fro", "nuc"):
        got = jnp.linalg.cond(stack, p)
        assert got.dtype == jax_dtype(jax_numpy.linalg.cond, stack, p)
        want = np.linalg.cond(stack64, p)
        _assert_within(got, want, C * 3 * EPS * np.linalg.cond(stack64) * want, f"cond {p}")
    for ord in (None, "fro", 1, -1, np.inf, -np.inf, 2, -2, "nuc"):
        for axis in [(1, 2), (2, 1)]:
            got = jnp.linalg.norm(stack, ord, axis=axis)
            assert got.dtype == jax_dtype(jax_numpy.linalg.norm, stack, ord, axis=axis)
            want = np.linalg.norm(stack64, ord, axis=axis)
            _assert_within(got, want, C * 3 * EPS * np.linalg.norm(stack64, "fro", axis=axis), f"norm {ord}")
    v = stack[0, 0]
    for ord in (None, 1, 2, np.inf, -np.inf, 0, 3):
        want = np.linalg.norm(v.astype(np.complex128), ord)
        _assert_within(jnp.linalg.norm(v, ord), want, C * 4 * EPS * want, f"vector norm {ord}")


@pytest.fixture
def x64():
    jaxwg.config.update("jax_enable_x64", True)
    try:
        if not jaxwg.devices()[0].backend.supports(dtypes.float64):
            pytest.skip("the adapter has no shader-f64")
        yield
    finally:
        jaxwg.config.update("jax_enable_x64", False)


def test_complex128_with_x64(x64):
    """complex128 in, complex128 and float64 out, to float64's precision."""
    rng = np.random.default_rng(8)
    eps = float(np.finfo(np.float64).eps)
    a = _complex(rng, (3, 3), np.complex128)
    h = a @ _h(a) + np.eye(3)
    _check_eigh(h[:2, :2], *jnp.linalg.eigh(h[:2, :2]), "complex128")
    tall = a[:, :2]
    u, s, vh = jnp.linalg.svd(tall, full_matrices=False)
    assert (u.dtype, s.dtype, vh.dtype) == (np.complex128, np.float64, np.complex128)
    _assert_within(s, np.linalg.svd(tall, compute_uv=False), C * 3 * eps * _norm2(tall)[..., 0], "s")
    _assert_within((np.asarray(u) * np.asarray(s)) @ np.asarray(vh), tall, C * 3 * eps * _norm2(tall),
                   "U s Vh")
    q, r = jnp.linalg.qr(a)
    want_q, want_r = np.linalg.qr(a)
    _assert_within(q, want_q, C * 3 * eps * _cond(a), "Q")
    _assert_within(r, want_r, C * 3 * eps * _cond(a) * _norm2(a), "R")
    got = jnp.linalg.cholesky(h)
    assert got.dtype == np.complex128
    _assert_within(got, np.linalg.cholesky(h), C * 3 * eps * _cond(h) * np.sqrt(_norm2(h)), "L")
    sign, logabsdet = jnp.linalg.slogdet(a)
    assert (sign.dtype, logabsdet.dtype) == (np.complex128, np.float64)
    want_sign, want_logabsdet = np.linalg.slogdet(a)
    _assert_within(sign, want_sign, C * 3 * eps * np.linalg.cond(a), "sign")
    _assert_within(logabsdet, want_logabsdet, C * 3 * eps * np.linalg.cond(a), "logabsdet")


def test_jit_and_vmap():
    rng = np.random.default_rng(9)
    h = _hermitian(rng, (3, 2, 2))
    w, v = jaxwg.jit(jnp.linalg.eigh)(h)
    _check_eigh(h, w, v, "jit")
    h = _positive_definite(rng, (3, 3))
    got = np.asarray(jaxwg.jit(jnp.linalg.cholesky)(h), np.complex128)
    _assert_within(got @ _h(got), h, C * 3 * EPS * _norm2(h), "jit cholesky")
    a = _complex(rng, (3, 4, 2))
    want = np.linalg.svd(a.astype(np.complex128), compute_uv=False)
    _assert_within(jaxwg.vmap(jnp.linalg.svdvals)(a), want, C * 4 * EPS * _norm2(a)[..., 0], "vmap svdvals")
    m, b = _well_conditioned(rng, (3, 4, 4)), _complex(rng, (3, 4))
    want = np.linalg.solve(m.astype(np.complex128), b.astype(np.complex128)[..., None])[..., 0]
    _assert_within(jaxwg.vmap(jnp.linalg.solve)(m, b), want,
                   C * 4 * EPS * _cond(m)[..., 0] * np.abs(want).max(-1, keepdims=True), "vmap solve")


def _eigh_function(m):
    def f(x):  # weighted eigenvalues and |entries| of the last eigenvector: phase-invariant
        w, v = m.linalg.eigh(x)
        return m.sum(w * m.arange(3.0)) + m.sum(m.abs(v[:, -1]))
    return f


def _svd_function(m):
    def f(x):  # singular values, |Vh[0]| of a wide and weighted |U[:, 0]|^2 of a tall matrix
        s = m.linalg.svd(x, compute_uv=False)
        vh = m.linalg.svd(x[:2], full_matrices=False)[2]
        u = m.linalg.svd(x[:, :2], full_matrices=False)[0]
        return m.sum(s * m.arange(3.0)) + m.sum(m.abs(vh[0])) + m.sum(m.abs(u[:, 0]) ** 2 * m.arange(3.0))
    return f


@pytest.mark.parametrize("name", ["eigh", pytest.param("svd", marks=pytest.mark.slow)])  # svd: 10 s
def test_eigh_and_svd_gradients_match_jax(name):
    """The complex JVP rules (conjugate transposes, real dw and ds) against JAX's, on
    functions that do not depend on the vectors' phases. Gradients are as well
    determined as the spectrum is separated: the bound scales with |A| / the least gap."""
    rng = np.random.default_rng(2)
    a = _positive_definite(rng, (3, 3))
    fn = {"eigh": _eigh_function, "svd": _svd_function}[name]
    got = np.asarray(jaxwg.grad(fn(jnp))(jnp.asarray(a)))
    want = np.asarray(jax.grad(fn(jax_numpy))(a))
    assert got.dtype == want.dtype == np.complex64
    a64 = a.astype(np.complex128)
    spectra = [np.linalg.eigvalsh(a64)] if name == "eigh" else [
        np.linalg.svd(a64[part], compute_uv=False) for part in (np.s_[:], np.s_[:2], np.s_[:, :2])]
    gap = min(np.diff(np.sort(w)).min() for w in spectra)
    _assert_within(got, want, C * 3 * EPS * _norm2(a) / gap * np.abs(want).max(), name)
