"""Schur and Hessenberg decompositions (`lax.linalg.schur`, `hessenberg`,
`scipy.linalg.schur`, `rsf2csf`, `hessenberg`) and the matrix functions built on them
(`sqrtm`, `funm`, `solve_sylvester`), against JAX.

A Schur form is not unique (LAPACK's eigenvalue order on the diagonal depends on its
iteration), so `schur` is held to its defining properties: Z unitary and Z T Z^H = A
within 10 n eps ||A||, T upper triangular (complex) or quasi-triangular with 2 x 2 blocks
in LAPACK's standard form for complex pairs only (real), and T's eigenvalues those of
NumPy. Everything else is unique given its input and compared to JAX's values."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import scipy.linalg

import jaxwg
import jaxwg.numpy as jnp
from jaxwg.lax import linalg as lax_linalg
from jaxwg.scipy import linalg

from .helpers import jax, jax_numpy

import jax.lax.linalg as jax_lax_linalg  # noqa: E402 - after helpers configured JAX
import jax.scipy.linalg as jax_linalg  # noqa: E402

EPS32 = float(np.finfo(np.float32).eps)
RNG = np.random.default_rng(0)


def _jordan(n, value=2.0):
    return value * np.eye(n) + np.eye(n, k=1)


MATRICES = {
    "random": RNG.standard_normal((5, 5)),
    "symmetric": (lambda m: m + m.T)(RNG.standard_normal((4, 4))),
    "jordan": _jordan(4),
    "jordan_transposed": _jordan(4).T,
    "rotation": np.array([[0.0, -1.0], [1.0, 0.0]]),
    "zero": np.zeros((3, 3)),
    "one_by_one": np.array([[-3.0]]),
    "empty": np.zeros((0, 0)),
    "complex": RNG.standard_normal((4, 4)) + 1j * RNG.standard_normal((4, 4)),
}
# eigenvalues of a Jordan block of size k move by eps^(1/k) under rounding
DEFECTIVE = {"jordan", "jordan_transposed"}


def _eigenvalues_of_schur_form(t):
    """The eigenvalues of a quasi-triangular T: its 1 x 1 and 2 x 2 diagonal blocks'."""
    values, i, n = [], 0, t.shape[0]
    while i < n:
        if i + 1 < n and t[i + 1, i] != 0:
            values.extend(np.linalg.eigvals(t[i:i + 2, i:i + 2]))
            i += 2
        else:
            values.append(t[i, i])
            i += 1
    return np.array(values, complex)


def _check_schur(a, t, z, output, defective=False):
    a, t, z = np.asarray(a), np.asarray(t), np.asarray(z)
    n = a.shape[-1]
    complex_form = output == "complex" or np.iscomplexobj(a)
    assert t.dtype == z.dtype == (np.result_type(a.dtype, np.complex64) if complex_form else a.dtype)
    assert t.shape == z.shape == a.shape
    if n == 0:
        return
    t64, z64 = t.astype(np.complex128), z.astype(np.complex128)
    norm = max(np.abs(a).max(), 1.0)
    assert np.abs(z64.conj().T @ z64 - np.eye(n)).max() <= 10 * n * EPS32
    assert np.abs(z64 @ t64 @ z64.conj().T - a).max() <= 10 * n * EPS32 * norm
    if complex_form:
        assert not np.tril(t, -1).any()
    else:
        assert not np.tril(t, -2).any()
        sub = np.nonzero(np.diag(t, -1))[0]
        assert not np.any(np.diff(sub) == 1), "overlapping 2 x 2 blocks"
        for i in sub:  # LAPACK's standard form: equal diagonal, off-diagonal of opposite signs
            assert t[i, i] == t[i + 1, i + 1] and t[i, i + 1] * t[i + 1, i] < 0, t[i:i + 2, i:i + 2]
    ours = _eigenvalues_of_schur_form(t64)
    theirs = np.linalg.eigvals(a.astype(np.complex128))
    tol = (10 * EPS32) ** (1 / n) * 4 * norm if defective else 100 * n * EPS32 * norm
    distance = np.abs(ours[:, None] - theirs[None, :])
    assert distance.min(axis=0).max() <= tol and distance.min(axis=1).max() <= tol, (ours, theirs)


@pytest.mark.parametrize("output", ["real", "complex"])
def test_schur_properties(run, output):
    for name, a in MATRICES.items():
        a = a.astype(np.complex64 if np.iscomplexobj(a) else np.float32)
        t, z = run(linalg.schur, jnp.asarray(a), output=output)
        _check_schur(a, t, z, output, defective=name in DEFECTIVE)
    # the lax form, batched, and without vectors
    batch = np.random.default_rng(2).standard_normal((2, 3, 3)).astype(np.float32)
    t, z = run(lax_linalg.schur, jnp.asarray(batch))
    for k in range(2):
        _check_schur(batch[k], t[k], z[k], "real")
    only_t = run(lax_linalg.schur, jnp.asarray(batch), compute_schur_vectors=False)
    np.testing.assert_array_equal(np.asarray(only_t), np.asarray(t))


@settings(max_examples=12, deadline=None)
@given(st.integers(1, 6), st.booleans(), st.integers(0, 2 ** 32 - 1))
def test_schur_properties_random(n, complex_input, seed):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((n, n))
    if complex_input:
        a = a + 1j * rng.standard_normal((n, n))
    # some entries rounded, some rows repeated: ties and rank deficiency
    a = np.where(rng.random((n, n)) < 0.3, np.round(a), a)
    a[rng.integers(n)] = a[0]
    a = a.astype(np.complex64 if complex_input else np.float32)
    for output in ("real", "complex"):
        _check_schur(a, *linalg.schur(jnp.asarray(a), output=output), output)


def test_nonfinite_input():
    """schur: NaNs for that matrix of the batch (JAX's, where LAPACK fails); hessenberg:
    NaN and inf spread through the reflections, as in LAPACK's gehrd."""
    for bad in (np.nan, np.inf, -np.inf):
        a = np.array([[[1.0, bad], [3.0, 4.0]], [[1.0, 2.0], [3.0, 4.0]]], np.float32)
        t, z = linalg.schur(jnp.asarray(a))
        assert np.isnan(np.asarray(t[0])).all() and np.isnan(np.asarray(z[0])).all()
        _check_schur(a[1], t[1], z[1], "real")
        a = np.array([[1.0, bad, 0.0], [3.0, 4.0, 1.0], [1.0, 1.0, bad]], np.float32)
        with np.errstate(invalid="ignore"):
            want = scipy.linalg.hessenberg(a, calc_q=True, check_finite=False)
        for got, w in zip(linalg.hessenberg(jnp.asarray(a), calc_q=True), want):
            np.testing.assert_allclose(np.asarray(got), w, rtol=1e-5, atol=1e-6)


def test_hessenberg_matches_jax(run):
    rng = np.random.default_rng(3)
    a = rng.standard_normal((4, 4)).astype(np.float32)
    packed, taus = run(lax_linalg.hessenberg, jnp.asarray(a))
    want_packed, want_taus = jax_lax_linalg.hessenberg(a)  # LAPACK's gehrd, as stored
    np.testing.assert_allclose(np.asarray(packed), want_packed, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(np.asarray(taus), want_taus, rtol=1e-5, atol=1e-5)
    complex_batch = (rng.standard_normal((2, 3, 3))
                     + 1j * rng.standard_normal((2, 3, 3))).astype(np.complex64)
    # (each shape compiles Q's reflector loop: the others eagerly only)
    for x in (a,) if run.mode == "jit" else (a, complex_batch, np.array([[2.0]], np.float32)):
        each = [scipy.linalg.hessenberg(m, calc_q=True) for m in x.reshape(-1, *x.shape[-2:])]
        want = [np.stack(w).reshape(x.shape) for w in zip(*each)]
        _like_jax(run(linalg.hessenberg, jnp.asarray(x), calc_q=True),
                  lambda: jax_linalg.hessenberg(x, calc_q=True), want, rtol=1e-5)
        _like_jax(run(lax_linalg.hessenberg, jnp.asarray(x)), lambda: jax_lax_linalg.hessenberg(x), None)
    for dtype in (np.float32, np.int32):  # 0 x 0: zeros of the input's dtype
        for got, want in zip(linalg.hessenberg(jnp.zeros((0, 0), dtype), calc_q=True),
                             jax_linalg.hessenberg(np.zeros((0, 0), dtype), calc_q=True)):
            assert got.shape == want.shape and got.dtype == want.dtype


def _like_jax(got, jax_fn, want, rtol=2e-4, atol=2e-5):
    """`got` has the dtypes and shapes of JAX's result (`jax_fn`, traced by
    `jax.eval_shape`: JAX compiles these loops slowly) and the values `want` of SciPy,
    whose algorithms JAX's implement."""
    got, specs = jax.tree.leaves(got), jax.tree.leaves(jax.eval_shape(jax_fn))
    assert len(got) == len(specs)
    for g, spec in zip(got, specs):
        assert g.dtype == spec.dtype and g.shape == spec.shape and not g.weak_type, (g.dtype, spec, g.shape)
    for g, w in zip(got, [] if want is None else jax.tree.leaves(want)):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=rtol, atol=atol, equal_nan=True)


# no eigenvalue on the negative real axis (the principal square root exists), a complex
# pair in the leading 2 x 2 block and in the whole
SQUARE = np.array([[4.0, 1.0, 0.5], [-2.0, 3.0, 1.0], [0.5, 0.0, 2.0]], np.float32)
# its own Schur form, so that funm's error estimate is determined
UPPER = np.array([[1.0, 2.0, 3.0], [0.0, 2.0, -1.0], [0.0, 0.0, 0.5]], np.float32)
B = np.array([[1.0, 2.0], [0.5, 3.0]], np.float32)
C = RNG.standard_normal((3, 2)).astype(np.float32)


def _matrix_function_cases(n):
    """(name, our call, JAX's call, SciPy's values) for rsf2csf, sqrtm, funm and
    solve_sylvester on n x n float32 matrices."""
    a, upper, b, c = SQUARE[:n, :n], UPPER[:n, :n], B[:n - 1, :n - 1], C[:n, :n - 1]
    t, z = scipy.linalg.schur(a)
    return [
        ("rsf2csf", lambda: linalg.rsf2csf(jnp.asarray(t), jnp.asarray(z)), lambda: jax_linalg.rsf2csf(t, z),
         scipy.linalg.rsf2csf(t, z)),
        ("sqrtm", lambda: linalg.sqrtm(jnp.asarray(a)), lambda: jax_linalg.sqrtm(a),
         scipy.linalg.sqrtm(a.astype(np.float64))),
        ("funm", lambda: linalg.funm(jnp.asarray(a), jnp.exp), lambda: jax_linalg.funm(a, jax_numpy.exp),
         scipy.linalg.expm(a.astype(np.float64))),
        ("funm_error", lambda: linalg.funm(jnp.asarray(upper), jnp.sin, disp=False),
         lambda: jax_linalg.funm(upper, jax_numpy.sin, disp=False),
         scipy.linalg.funm(upper, np.sin, disp=False)),
        ("solve_sylvester", lambda: linalg.solve_sylvester(jnp.asarray(a), jnp.asarray(b), jnp.asarray(c)),
         lambda: jax_linalg.solve_sylvester(a, b, c), scipy.linalg.solve_sylvester(a, b, c)),
    ]


# The software GPU compiles each unrolled step's kernels, seconds per function: values
# are checked on the CPU backend (3 x 3, a complex pair), jit on both (2 x 2: one step)
@pytest.mark.parametrize("platform", ["cpu"], indirect=True)
def test_matrix_functions_match_jax(platform):
    for name, ours, theirs, want in _matrix_function_cases(3):
        _like_jax(ours(), theirs, want)


@pytest.mark.parametrize("mode", ["jit"], indirect=True)
def test_matrix_functions_under_jit(run):
    for name, ours, theirs, want in _matrix_function_cases(2):
        if name in (("funm", "solve_sylvester") if run.platform == "cpu" else ("sqrtm",)):
            _like_jax(run(ours), theirs, want)


@pytest.mark.parametrize("platform", ["cpu"], indirect=True)
def test_matrix_functions_match_jax_more(platform):
    """Integer, complex, batched and singular operands, the eigen method, and 1 x 1
    matrices (mostly of test_matrix_functions_match_jax's shapes: its programs again)."""
    a, b = np.array([[3, 1, 0], [-1, 2, 1], [0, 1, 4]]), np.array([[1, 2], [0, 3]])
    c = np.array([[1, 0], [2, -1], [0, 5]])
    want = scipy.linalg.solve_sylvester(*(x.astype(np.float64) for x in (a, b, c)))
    for method in ("schur", "eigen"):
        _like_jax(linalg.solve_sylvester(jnp.asarray(a), jnp.asarray(b), jnp.asarray(c), method=method),
                  lambda: jax_linalg.solve_sylvester(a, b, c, method=method), want)
    # eigenvalues of A and B summing to zero: NaNs (JAX's `tol`)
    got = linalg.solve_sylvester(jnp.asarray(np.diag([1, 2, 3])), -jnp.asarray(np.diag([2, 7])),
                                 jnp.asarray(c))
    assert got.dtype == np.float32 and np.isnan(np.asarray(got)).all()
    # a batch, and complex C with real A and B (SciPy 1.17 solves that one wrongly: the
    # defining equation instead)
    rng = np.random.default_rng(1)
    batch = np.stack([SQUARE, SQUARE.T])
    complex_c = (rng.standard_normal((3, 2)) + 1j * rng.standard_normal((3, 2))).astype(np.complex64)
    x = linalg.solve_sylvester(jnp.asarray(batch), jnp.asarray(B), jnp.asarray(complex_c))
    _like_jax(x, lambda: jax_linalg.solve_sylvester(batch, B, complex_c), None)
    np.testing.assert_allclose(batch @ np.asarray(x) + np.asarray(x) @ B, np.broadcast_to(complex_c, x.shape),
                               atol=1e-5)
    _like_jax(linalg.sqrtm(jnp.asarray(a)), lambda: jax_linalg.sqrtm(a),  # int: complex64
              scipy.linalg.sqrtm(a.astype(np.complex128)))
    complex_a = (SQUARE + 0.5j * SQUARE.T).astype(np.complex64)
    _like_jax(linalg.sqrtm(jnp.asarray(complex_a)), lambda: jax_linalg.sqrtm(complex_a),
              scipy.linalg.sqrtm(complex_a))
    _like_jax(linalg.funm(jnp.asarray(complex_a), jnp.exp), lambda: jax_linalg.funm(complex_a, jax_numpy.exp),
              scipy.linalg.expm(complex_a.astype(np.complex128)))
    one = np.array([[2.0]], np.float32)
    _like_jax(linalg.sqrtm(jnp.asarray(one)), lambda: jax_linalg.sqrtm(one), np.sqrt(one))
    _like_jax(linalg.rsf2csf(jnp.asarray(one), jnp.asarray(one)), lambda: jax_linalg.rsf2csf(one, one),
              (one, one))


def _raises_like_jax(ours, theirs):
    with pytest.raises(Exception) as want:
        theirs()
    with pytest.raises(want.type):
        ours()


def test_errors_match_jax():
    square, int_square = np.ones((2, 2), np.float32), np.ones((2, 2), np.int32)
    cases = [
        ("schur", (int_square,), {}), ("schur", (np.ones(3, np.float32),), {}),
        ("schur", (np.ones((2, 3), np.float32),), {}), ("schur", (square,), {"output": "x"}),
        ("schur", ([[1.0, 2.0], [3.0, 4.0]],), {}),
        ("hessenberg", (int_square,), {}), ("hessenberg", (np.ones((2, 3), np.float32),), {}),
        ("hessenberg", (np.ones(3, np.float32),), {}),
        ("rsf2csf", (np.ones((2, 3)), square), {}), ("rsf2csf", (square, np.ones((2, 3))), {}),
        ("rsf2csf", (square, np.ones((3, 3))), {}),
        ("sqrtm", (square,), {"blocksize": 2}), ("sqrtm", (np.ones((2, 2, 2)),), {}),
        ("sqrtm", (np.ones(3),), {}), ("sqrtm", (np.ones((2, 3)),), {}),
        ("funm", (np.ones((2, 2, 2)), None), {}), ("funm", (np.ones(3), None), {}),
        ("funm", (int_square, None), {}),
        ("solve_sylvester", (square, np.ones((3, 3)), square), {}),
        ("solve_sylvester", (square, square, square), {"method": "x"}),
    ]
    for name, args, kwargs in cases:
        ours_args = [jnp.asarray(x) if isinstance(x, np.ndarray) else x for x in args]
        _raises_like_jax(lambda: getattr(linalg, name)(*ours_args, **kwargs),
                         lambda: getattr(jax_linalg, name)(*args, **kwargs))
    for module, theirs in ((lax_linalg, jax_lax_linalg),):
        _raises_like_jax(lambda: module.schur(jnp.asarray(square), sort_eig_vals=True),
                         lambda: theirs.schur(square, sort_eig_vals=True))
        _raises_like_jax(lambda: module.schur(jnp.asarray(int_square)), lambda: theirs.schur(int_square))
        _raises_like_jax(lambda: module.hessenberg(jnp.asarray(np.ones((2, 3), np.float32))),
                         lambda: theirs.hessenberg(np.ones((2, 3), np.float32)))
    # no derivatives, as JAX's
    for name, fn in (("schur", lambda x: linalg.schur(x)[0]), ("hessenberg", linalg.hessenberg),
                     ("schur", lambda x: jnp.real(linalg.sqrtm(x)))):
        with pytest.raises(NotImplementedError, match=f"Differentiation rule for '{name}'"):
            jaxwg.grad(lambda x: jnp.sum(fn(x)))(jnp.asarray(square))


def test_schur_under_vmap():
    batch = np.random.default_rng(4).standard_normal((3, 3, 3)).astype(np.float32)
    t, z = jaxwg.vmap(linalg.schur)(jnp.asarray(batch))
    for k in range(3):
        _check_schur(batch[k], t[k], z[k], "real")
