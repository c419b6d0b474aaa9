"""jnp.linalg against NumPy (float64 references) and JAX (errors, gradients)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jaxwg
import jaxwg.numpy as jnp
from jaxwg.core import dtypes

try:
    import jax
    import jax.numpy as jax_numpy
except ImportError:  # pragma: no cover - JAX is in the test extra
    jax = jax_numpy = None

needs_jax = pytest.mark.skipif(jax is None, reason="JAX is not installed")


def _random(rng, shape, dtype=np.float32):
    return rng.standard_normal(shape).astype(dtype)


def _well_conditioned(rng, shape, dtype=np.float32):
    """Random matrices plus n on the diagonal: condition numbers near 1 to 10."""
    a = rng.standard_normal(shape) + shape[-1] * np.eye(shape[-1])
    return a.astype(dtype)


def _spd(rng, shape, dtype=np.float32):
    b = rng.standard_normal(shape)
    return (b @ np.swapaxes(b, -1, -2) + shape[-1] * np.eye(shape[-1])).astype(dtype)


_SHAPES = st.tuples(st.sampled_from([(), (1,), (3,), (2, 2)]), st.integers(1, 9))


@settings(max_examples=4, deadline=None)
@given(_SHAPES, st.integers(0, 2**31 - 1))
def test_solve_inv_det_slogdet_match_numpy(shapes, seed):
    batch, n = shapes
    rng = np.random.default_rng(seed)
    a = _well_conditioned(rng, (*batch, n, n))
    b = _random(rng, (*batch, n, 2))
    a64 = a.astype(np.float64)
    np.testing.assert_allclose(np.asarray(jnp.linalg.solve(a, b)), np.linalg.solve(a64, b), rtol=1e-4,
                               atol=1e-5)
    np.testing.assert_allclose(np.asarray(jnp.linalg.inv(a)), np.linalg.inv(a64), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(np.asarray(jnp.linalg.det(a)), np.linalg.det(a64), rtol=1e-4)
    sign, logdet = jnp.linalg.slogdet(a)
    want_sign, want_logdet = np.linalg.slogdet(a64)
    np.testing.assert_array_equal(np.asarray(sign), want_sign)
    np.testing.assert_allclose(np.asarray(logdet), want_logdet, rtol=1e-4, atol=1e-4)


def test_pivoting_and_singular_matrices():
    # a zero leading entry needs a row swap; exact results where the arithmetic is exact
    a = np.array([[0.0, 2.0, 1.0], [1.0, 1.0, 0.0], [2.0, 0.0, 4.0]], np.float32)
    np.testing.assert_allclose(np.asarray(jnp.linalg.solve(a, np.array([3.0, 2.0, 6.0], np.float32))),
                               np.linalg.solve(a.astype(np.float64), [3.0, 2.0, 6.0]), rtol=1e-6)
    assert float(jnp.linalg.det(a)) == pytest.approx(np.linalg.det(a.astype(np.float64)), rel=1e-6)
    singular = np.array([[1.0, 2.0], [2.0, 4.0]], np.float32)
    sign, logdet = jnp.linalg.slogdet(singular)
    assert float(sign) == 0.0 and float(logdet) == -np.inf
    # JAX's infinities from the zero pivot (not NaN), and +0 determinants
    singular4 = np.diag(np.float32([1, 2, 0, 3]))[[1, 0, 2, 3]]
    for m in (singular, singular4):
        b = np.arange(1, len(m) + 1, dtype=np.float32)
        for got, want in ((jnp.linalg.solve(m, b), jax_numpy.linalg.solve(m, b)),
                          (jnp.linalg.inv(m), jax_numpy.linalg.inv(m)),
                          (jnp.linalg.det(m), jax_numpy.linalg.det(m))):
            np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
            assert (np.signbit(np.asarray(got)) == np.signbit(np.asarray(want))).all()
    assert float(jnp.linalg.det(np.zeros((0, 0), np.float32))) == 1.0  # the empty product


def test_solve_shapes_as_jax():
    rng = np.random.default_rng(0)
    a = _well_conditioned(rng, (3, 4, 4))
    assert jnp.linalg.solve(a, np.ones(4, np.float32)).shape == (3, 4)
    assert jnp.linalg.solve(a[0], np.ones((2, 4, 1), np.float32)).shape == (2, 4, 1)
    assert jnp.linalg.inv(np.array([[1, 2], [3, 4]])).dtype == np.float32  # ints promoted


@needs_jax
def test_errors_match_jax():
    for name, args in [("inv", (np.ones((2, 3)),)), ("det", (np.ones(3),)), ("eigh", (np.ones((2, 3)),)),
                       ("cholesky", (np.ones((2, 3)),)), ("slogdet", (np.ones((3, 2)),))]:
        with pytest.raises((ValueError, TypeError)) as theirs:
            getattr(jax_numpy.linalg, name)(*args)
        with pytest.raises(type(theirs.value), match="must have shape"):
            getattr(jnp.linalg, name)(*args)
    for name in ("eigh", "cholesky"):
        with pytest.raises(ValueError, match="must have shape"):
            getattr(jnp.linalg, name)(np.ones((2, 3)), symmetrize_input=False)
    with pytest.raises(ValueError, match="must have shape"):
        jnp.linalg.inv(np.ones((2, 3), np.float32))
    with pytest.raises(ValueError, match="b must have shape"):
        jnp.linalg.solve(np.eye(3, dtype=np.float32), np.ones((2, 4, 3), np.float32))


@settings(max_examples=5, deadline=None)
@given(_SHAPES, st.integers(0, 2**31 - 1))
def test_cholesky_matches_numpy(shapes, seed):
    batch, n = shapes
    rng = np.random.default_rng(seed)
    a = _spd(rng, (*batch, n, n))
    got = np.asarray(jnp.linalg.cholesky(a))
    np.testing.assert_allclose(got, np.linalg.cholesky(a.astype(np.float64)), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(np.asarray(jnp.linalg.cholesky(a, upper=True)), np.swapaxes(got, -1, -2))


@needs_jax
def test_cholesky_of_an_indefinite_matrix_is_nan_as_jax():
    a = np.array([[[1.0, 2.0], [2.0, 1.0]], [[4.0, 0.0], [0.0, 1.0]]], np.float32)
    for upper in (False, True):
        np.testing.assert_array_equal(np.asarray(jnp.linalg.cholesky(a, upper=upper)),
                                      np.asarray(jax_numpy.linalg.cholesky(a, upper=upper)))


@settings(max_examples=4, deadline=None)
@given(st.tuples(st.sampled_from([(), (2,)]), st.integers(1, 6)), st.integers(0, 2**31 - 1))
def test_eigh_matches_numpy(shapes, seed):
    """Eigenvalues to float32 precision of the matrix's norm; eigenvectors orthonormal and
    reconstructing the matrix (their signs are arbitrary, as in LAPACK)."""
    batch, n = shapes
    rng = np.random.default_rng(seed)
    b = _random(rng, (*batch, n, n))
    a = (b + np.swapaxes(b, -1, -2)) / 2
    w, v = (np.asarray(t, np.float64) for t in jnp.linalg.eigh(a))
    scale = np.abs(a).max() + 1
    np.testing.assert_allclose(w, np.linalg.eigvalsh(a.astype(np.float64)), atol=2e-6 * n * scale)
    np.testing.assert_allclose(np.swapaxes(v, -1, -2) @ v, np.broadcast_to(np.eye(n), v.shape), atol=1e-5 * n)
    np.testing.assert_allclose((v * w[..., None, :]) @ np.swapaxes(v, -1, -2), a, atol=4e-6 * n * scale)
    assert (np.diff(w, axis=-1) >= 0).all()


def test_eigh_edges_and_float64_precision():
    # repeated eigenvalues, a diagonal matrix, 1x1, odd sizes, and Jacobi's relative
    # accuracy: eigenvalues 1e-10 and 1 of a graded matrix in float64
    np.testing.assert_allclose(np.asarray(jnp.linalg.eigvalsh(np.eye(5, dtype=np.float32) * 3)), [3.0] * 5)
    np.testing.assert_allclose(np.asarray(jnp.linalg.eigvalsh(np.diag([3.0, -1.0, 2.0]).astype(np.float32))),
                               [-1.0, 2.0, 3.0])
    assert np.asarray(jnp.linalg.eigh(np.array([[2.5]], np.float32)).eigenvectors).tolist() == [[1.0]]
    jaxwg.config.update("jax_enable_x64", True)
    try:
        if not jaxwg.devices()[0].backend.supports(dtypes.float64):
            pytest.skip("the adapter has no shader-f64")
        graded = np.array([[1e-10, 1e-15, 0.0], [1e-15, 1.0, 1e-8], [0.0, 1e-8, 2.0]])
        got = np.asarray(jnp.linalg.eigvalsh(graded))
        assert got.dtype == np.float64
        np.testing.assert_allclose(got, np.linalg.eigvalsh(graded), rtol=1e-13)
    finally:
        jaxwg.config.update("jax_enable_x64", False)


def test_eigh_triangle_options():
    a = np.array([[1.0, 5.0], [2.0, 1.0]], np.float32)
    lower = np.asarray(jnp.linalg.eigvalsh(a, "L", symmetrize_input=False))
    upper = np.asarray(jnp.linalg.eigvalsh(a, "U", symmetrize_input=False))
    np.testing.assert_allclose(lower, np.linalg.eigvalsh(a, "L"), rtol=1e-6)
    np.testing.assert_allclose(upper, np.linalg.eigvalsh(a, "U"), rtol=1e-6)


@pytest.mark.parametrize("ord", [None, 1, 2, -1, np.inf, -np.inf, 0, 3, 0.5])
def test_vector_norms(ord):
    x = np.array([[3.0, -4.0, 0.0], [1.0, 2.0, -2.0]], np.float32)
    np.testing.assert_allclose(np.asarray(jnp.linalg.norm(x, ord, axis=1)),
                               np.linalg.norm(x.astype(np.float64), ord, axis=1), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(jnp.linalg.norm(x[0], ord, keepdims=True)),
                               np.linalg.norm(x[0].astype(np.float64), ord, keepdims=True), rtol=1e-6)


@pytest.mark.parametrize("ord", [None, "fro", 1, -1, np.inf, -np.inf, 2, -2, "nuc"])
def test_matrix_norms(ord):
    x = _random(np.random.default_rng(1), (2, 4, 3))
    for axis in [(1, 2), (2, 1), (-1, -2)]:
        np.testing.assert_allclose(np.asarray(jnp.linalg.norm(x, ord, axis=axis)),
                                   np.linalg.norm(x.astype(np.float64), ord, axis=axis), rtol=2e-5)
    np.testing.assert_allclose(np.asarray(jnp.linalg.norm(x[0], ord, keepdims=True)),
                               np.linalg.norm(x[0].astype(np.float64), ord, keepdims=True), rtol=2e-5)
    np.testing.assert_allclose(np.asarray(jnp.linalg.norm(x)), np.linalg.norm(x.astype(np.float64)),
                               rtol=1e-6)


@needs_jax
@pytest.mark.parametrize("shape", [(0, 0), (0, 3), (3, 0), (2, 0, 0)])
@pytest.mark.parametrize("ord", [None, "fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf])
def test_matrix_norms_of_empty_matrices_as_jax(shape, ord):
    """JAX's maxima start from 0, so the largest-value norms of an empty matrix are 0;
    the smallest of no sums or singular values raises its ValueError."""
    x = np.zeros(shape, np.float32)
    try:
        want = jax_numpy.linalg.norm(x, ord, axis=(-2, -1))
    except ValueError:
        with pytest.raises(ValueError):
            jnp.linalg.norm(x, ord, axis=(-2, -1))
        return
    got = jnp.linalg.norm(x, ord, axis=(-2, -1))
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


@needs_jax
@pytest.mark.parametrize("name", ["det", "inv", "solve", "eigvalsh", "eigh_vectors", "cholesky",
                                  "slogdet", "svdvals", pytest.param("svd_vectors", marks=pytest.mark.slow),  # 8 s
                                  "pinv", "qr"])
def test_gradients_match_jax(name):
    rng = np.random.default_rng(2)
    a = _spd(rng, (4, 4))
    b = _random(rng, (4, 2))
    fns = {
        "det": lambda m: lambda x: m.linalg.det(x),
        "inv": lambda m: lambda x: m.sum(m.sin(m.linalg.inv(x))),
        "solve": lambda m: lambda x: m.sum(m.linalg.solve(x, b) ** 2),
        "eigvalsh": lambda m: lambda x: m.sum(m.linalg.eigvalsh(x) * m.arange(4.0)),
        "eigh_vectors": lambda m: lambda x: m.sum(m.abs(m.linalg.eigh(x)[1][:, -1])),
        "cholesky": lambda m: lambda x: m.sum(m.linalg.cholesky(x) ** 3),
        "slogdet": lambda m: lambda x: m.linalg.slogdet(x)[1],
        "svdvals": lambda m: lambda x: m.sum(m.linalg.svd(x[:, :3], compute_uv=False) * m.arange(3.0)),
        "svd_vectors": lambda m: lambda x: m.sum(m.abs(m.linalg.svd(x[:3], full_matrices=False)[2][0])),
        "pinv": lambda m: lambda x: m.sum(m.sin(m.linalg.pinv(x[:, 1:]))),
        "qr": lambda m: lambda x: m.sum(m.linalg.qr(x)[1] ** 2 * m.arange(4.0)),
    }
    got = jaxwg.grad(fns[name](jnp))(jnp.asarray(a))
    want = jax.jit(jax.grad(fns[name](jax_numpy)))(a)  # jitted: one XLA program, not one per primitive
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=2e-3, atol=2e-4)


def test_jit_and_vmap():
    rng = np.random.default_rng(3)
    a = _well_conditioned(rng, (3, 4, 4))
    b = _random(rng, (3, 4))
    want = np.linalg.solve(a.astype(np.float64), b[..., None])[..., 0]
    jitted = jaxwg.jit(jnp.linalg.solve)(a, b[..., None])
    np.testing.assert_allclose(np.asarray(jitted)[..., 0], want, rtol=1e-4)
    np.testing.assert_allclose(np.asarray(jaxwg.vmap(jnp.linalg.solve)(a, b)), want, rtol=1e-4)
    np.testing.assert_allclose(np.asarray(jaxwg.vmap(jnp.linalg.det)(a)), np.linalg.det(a.astype(np.float64)),
                               rtol=1e-4)
    s = _spd(rng, (2, 5, 5))
    np.testing.assert_allclose(np.asarray(jaxwg.jit(jnp.linalg.eigvalsh)(s)),
                               np.linalg.eigvalsh(s.astype(np.float64)), rtol=1e-5)


def _assert_orthonormal_columns(w, atol):
    eye = np.broadcast_to(np.eye(w.shape[-1]), (*w.shape[:-2], w.shape[-1], w.shape[-1]))
    np.testing.assert_allclose(np.swapaxes(w, -1, -2) @ w, eye, atol=atol)


@settings(max_examples=3, deadline=None)
@given(st.sampled_from([(), (2,)]), st.integers(1, 6), st.integers(1, 6), st.integers(0, 2**31 - 1))
def test_qr_and_svd_match_numpy(batch, m, n, seed):
    """QR with LAPACK's signs; singular values to float32 precision of the norm, U and V
    orthonormal (full and reduced) and reconstructing the matrix."""
    rng = np.random.default_rng(seed)
    a = _random(rng, (*batch, m, n))
    a64 = a.astype(np.float64)
    for mode in ("reduced", "complete"):
        q, r = (np.asarray(t) for t in jnp.linalg.qr(a, mode))
        want_q, want_r = np.linalg.qr(a64, mode)
        np.testing.assert_allclose(r, want_r, atol=1e-5 * (1 + np.abs(a).max()))
        np.testing.assert_allclose(q[..., :, :min(m, n)], want_q[..., :, :min(m, n)], atol=2e-5)
        _assert_orthonormal_columns(q, 1e-5)
    np.testing.assert_allclose(np.asarray(jnp.linalg.qr(a, "r")), np.linalg.qr(a64, "r"),
                               atol=1e-5 * (1 + np.abs(a).max()))
    k = min(m, n)
    scale = 1 + np.abs(a).max()
    for full in (True, False):
        u, s, vh = (np.asarray(t, np.float64) for t in jnp.linalg.svd(a, full_matrices=full))
        np.testing.assert_allclose(s, np.linalg.svd(a64, compute_uv=False), atol=2e-6 * scale * max(m, n))
        assert u.shape == (*batch, m, m if full else k) and vh.shape == (*batch, n if full else k, n)
        for w in (u, np.swapaxes(vh, -1, -2)):
            _assert_orthonormal_columns(w, 2e-5)
        np.testing.assert_allclose((u[..., :, :k] * s[..., None, :]) @ vh[..., :k, :], a,
                                   atol=2e-6 * scale * max(m, n))


def test_rank_deficient_svd_pinv_rank_and_cond():
    b = np.array([[1.0, 2.0], [2.0, 4.0], [3.0, 6.0]], np.float32)  # rank 1
    u, s, vh = (np.asarray(t) for t in jnp.linalg.svd(b))
    np.testing.assert_allclose(u.T @ u, np.eye(3), atol=1e-6)  # completed where s = 0
    np.testing.assert_allclose(s, np.linalg.svd(b.astype(np.float64), compute_uv=False), atol=1e-6)
    np.testing.assert_allclose(np.asarray(jnp.linalg.pinv(b)), np.linalg.pinv(b.astype(np.float64)),
                               rtol=1e-5, atol=1e-7)
    assert int(jnp.linalg.matrix_rank(b)) == 1
    assert int(jnp.linalg.matrix_rank(np.eye(3, dtype=np.float32))) == 3
    assert int(jnp.linalg.matrix_rank(b, tol=100.0)) == 0
    a = np.array([[2.0, 0.0], [0.0, 0.5]], np.float32)
    for p in (None, 2, -2, 1, np.inf, "fro"):
        want = np.linalg.cond(a.astype(np.float64), p)
        assert float(jnp.linalg.cond(a, p)) == pytest.approx(want, rel=1e-5)
    np.testing.assert_allclose(np.asarray(jnp.linalg.svdvals(b)),
                               np.linalg.svd(b.astype(np.float64), compute_uv=False), atol=1e-6)


@pytest.mark.slow  # 10 s on lavapipe
@needs_jax
def test_hermitian_svd_pinv_and_rank_match_jax():
    """hermitian=True goes through eigh, as JAX's: singular values |w| in JAX's order
    (ties of |w| too: +-2 and +-1 below), U and Vh equal to JAX's up to each column's
    sign, and a = U diag(s) Vh."""
    rng = np.random.default_rng(7)
    b = _random(rng, (4, 4)) + 1j * _random(rng, (4, 4))
    a = np.stack([np.diag([1.0, -1.0, 2.0, -2.0]).astype(np.complex64),
                  ((b + b.conj().T) / 2).astype(np.complex64)])
    eps = np.finfo(np.float32).eps
    for x in (a, a.real.copy()):
        u, s, vh = jnp.linalg.svd(x, hermitian=True)
        ju, js, jvh = jax_numpy.linalg.svd(x, hermitian=True)
        assert (u.dtype, s.dtype, vh.dtype) == (ju.dtype, js.dtype, jvh.dtype)
        np.testing.assert_allclose(np.asarray(s), np.asarray(js), rtol=0, atol=16 * eps * 4)
        np.testing.assert_allclose(np.asarray(jnp.linalg.svd(x, compute_uv=False, hermitian=True)),
                                   np.asarray(js), rtol=0, atol=16 * eps * 4)
        phase = np.sum(np.asarray(u).conj() * np.asarray(ju), axis=-2, keepdims=True)  # per column
        np.testing.assert_allclose(np.asarray(u) * phase, np.asarray(ju), atol=64 * eps)
        np.testing.assert_allclose(np.asarray(u) * np.asarray(s)[..., None, :] @ np.asarray(vh), x,
                                   atol=64 * eps * 4)
        np.testing.assert_allclose(np.asarray(jnp.linalg.pinv(x, hermitian=True)),
                                   np.asarray(jax_numpy.linalg.pinv(x, hermitian=True)), atol=1e-5)
        np.testing.assert_array_equal(np.asarray(jnp.linalg.matrix_rank(x, hermitian=True)),
                                      np.asarray(jax_numpy.linalg.matrix_rank(x, hermitian=True)))


@pytest.mark.parametrize("magnitude", [1e20, 1e-25])
def test_factorizations_of_huge_and_tiny_matrices(magnitude):
    # Their entries' squares overflow or underflow float32: the factorizations scale by
    # a power of two first. Each result within 64 eps of the matrix's norm.
    rng = np.random.default_rng(5)
    a = (_random(rng, (4, 3)) * magnitude).astype(np.float32)
    sym = (a.T @ a.astype(np.float64) / magnitude).astype(np.float32)
    norm = np.linalg.norm(a.astype(np.float64), 2)
    np.testing.assert_allclose(np.asarray(jnp.linalg.svdvals(a)), np.linalg.svd(a.astype(np.float64), compute_uv=False),
                               rtol=0, atol=64 * np.finfo(np.float32).eps * norm)
    np.testing.assert_allclose(np.asarray(jnp.linalg.qr(a, mode="r")), np.linalg.qr(a.astype(np.float64), mode="r"),
                               rtol=0, atol=64 * np.finfo(np.float32).eps * norm)
    sym_norm = np.linalg.norm(sym.astype(np.float64), 2)
    np.testing.assert_allclose(np.asarray(jnp.linalg.eigvalsh(sym)), np.linalg.eigvalsh(sym.astype(np.float64)),
                               rtol=0, atol=64 * np.finfo(np.float32).eps * sym_norm)


def test_lstsq_power_products_and_tensor_solves_match_numpy():
    rng = np.random.default_rng(4)
    a, b = _random(rng, (5, 3)), _random(rng, (5, 2))
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    x, resid, rank, s = jnp.linalg.lstsq(a, b)
    want = np.linalg.lstsq(a64, b64, rcond=None)
    for got, w in zip((x, resid, s), (want[0], want[1], want[3])):
        np.testing.assert_allclose(np.asarray(got), w, rtol=1e-4, atol=1e-5)
    assert int(rank) == want[2]
    assert jnp.linalg.lstsq(a, b[:, 0])[0].shape == (3,)
    assert jnp.linalg.lstsq(a[:2], b[:2], numpy_resid=True)[1].shape == (0,)
    m = _well_conditioned(rng, (2, 3, 3))
    for n in (0, 1, 2, 5, -1, -3):
        np.testing.assert_allclose(np.asarray(jnp.linalg.matrix_power(m, n)),
                                   np.linalg.matrix_power(m.astype(np.float64), n), rtol=2e-4, atol=1e-5)
    with pytest.raises(TypeError, match="exponent must be an integer"):
        jnp.linalg.matrix_power(m, 1.5)
    chain = [_random(rng, (4,)), _random(rng, (4, 3)), _random(rng, (3, 2))]
    np.testing.assert_allclose(np.asarray(jnp.linalg.multi_dot(chain)), np.linalg.multi_dot(chain), rtol=1e-5)
    t = _well_conditioned(rng, (6, 6)).reshape(6, 2, 3)
    np.testing.assert_allclose(np.asarray(jnp.linalg.tensorinv(t, ind=1)), np.linalg.tensorinv(t, ind=1),
                               rtol=1e-4, atol=1e-5)
    t2 = _well_conditioned(rng, (6, 6)).reshape(2, 3, 6)
    rhs = _random(rng, (2, 3))
    np.testing.assert_allclose(np.asarray(jnp.linalg.tensorsolve(t2, rhs)), np.linalg.tensorsolve(t2, rhs),
                               rtol=1e-4, atol=1e-5)
    x3, y3 = _random(rng, (2, 3)), _random(rng, (2, 3))
    np.testing.assert_allclose(np.asarray(jnp.linalg.cross(x3, y3)), np.cross(x3, y3), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(jnp.linalg.trace(m)), np.trace(m, axis1=-2, axis2=-1), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(jnp.linalg.diagonal(m, offset=1)),
                               np.diagonal(m, offset=1, axis1=-2, axis2=-1))
    np.testing.assert_allclose(np.asarray(jnp.linalg.vecdot(x3, y3)), np.sum(x3 * y3, axis=-1), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(jnp.linalg.outer(x3[0], y3[0])), np.outer(x3[0], y3[0]))
    with pytest.raises(ValueError, match="one-dimensional"):
        jnp.linalg.outer(x3, y3[0])


def _eig_check(a, w, v, want_w, rtol):
    """w equals JAX's eigenvalues (as sorted sets), A v = v diag(w), and each column of v
    has unit norm and a real largest component (LAPACK's normalization)."""
    w, v = np.asarray(w), np.asarray(v)
    scale = np.abs(a).max() * a.shape[-1]
    np.testing.assert_allclose(np.sort_complex(w), np.sort_complex(np.asarray(want_w)), rtol=0,
                               atol=rtol * scale)
    np.testing.assert_allclose(a @ v, v * w[..., None, :], rtol=0, atol=rtol * scale)
    np.testing.assert_allclose(np.linalg.norm(v, axis=-2), 1, atol=rtol * a.shape[-1])
    largest = np.take_along_axis(v, np.abs(v).argmax(axis=-2)[..., None, :], axis=-2)
    np.testing.assert_array_equal(largest.imag, 0)


@needs_jax
def test_general_eig_and_eigvals_match_jax():
    """eig runs LAPACK on the host, as JAX's CPU backend: values to rounding (eigenvectors
    up to sign: LAPACK builds differ), complex dtypes, NaN input, errors, grad, vmap."""
    rng = np.random.default_rng(8)
    real = _random(rng, (3, 5, 5))
    cplx = (real + 1j * _random(rng, (3, 5, 5))).astype(np.complex64)
    eps = np.finfo(np.float32).eps
    for a in (real, cplx, np.array([[0.0, -1.0], [1.0, 0.0]], np.float32)):
        w, v = jnp.linalg.eig(a)
        assert (w.dtype, v.dtype) == (np.complex64, np.complex64)
        _eig_check(a.astype(np.complex128), w, v, jax_numpy.linalg.eigvals(a), 16 * eps)
        np.testing.assert_array_equal(np.asarray(jnp.linalg.eigvals(a)), np.asarray(w))
    np.testing.assert_array_equal(np.asarray(jaxwg.vmap(jnp.linalg.eigvals)(real)),
                                  np.asarray(jnp.linalg.eigvals(real)))
    assert jnp.linalg.eigvals(np.eye(2, dtype=np.int32)).dtype == np.complex64
    nan = np.asarray(jnp.linalg.eig(np.array([[np.nan, 1.0], [0.0, 1.0]], np.float32))[1])
    assert np.isnan(nan.real).all() and np.isnan(nan.imag).all()
    assert jnp.linalg.eig(np.zeros((0, 0), np.float32))[1].shape == (0, 0)
    f = lambda m: jnp.sum(jnp.real(jnp.linalg.eigvals(m) ** 2))  # noqa: E731
    g = lambda m: jax_numpy.sum(jax_numpy.real(jax_numpy.linalg.eigvals(m) ** 2))  # noqa: E731
    np.testing.assert_allclose(np.asarray(jaxwg.jit(jaxwg.grad(f))(real[0])), jax.grad(g)(real[0]),
                               rtol=0, atol=64 * eps * 5)
    for bad in (np.ones((2, 3), np.float32), np.ones(3, np.float32)):
        with pytest.raises(type(_jax_error(jax_numpy.linalg.eig, bad))):
            jnp.linalg.eig(bad)
    with pytest.raises(NotImplementedError, match="non-symmetric eigenvectors"):
        jaxwg.grad(lambda m: jnp.real(jnp.linalg.eig(m)[0][0]))(real[0])


def _jax_error(fn, *args):
    try:
        fn(*args)
    except Exception as e:  # noqa: BLE001 - the oracle's exception, whatever its type
        return e
    raise AssertionError(f"JAX accepted {args}")
