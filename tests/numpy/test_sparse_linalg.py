"""jaxwg.scipy.sparse.linalg (cg, bicgstab, gmres) against jax.scipy.sparse.linalg:
values (matrix or function A, pytree b, x0, preconditioner M, maxiter), dtypes and weak
types, complex systems, reverse-mode gradients, and JAX's errors."""

import functools

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import jaxwg
import jaxwg.numpy as jnp
from jaxwg.scipy.sparse import linalg

from .helpers import jax, jax_numpy

from jax.scipy.sparse import linalg as jax_linalg  # noqa: E402 - after helpers set JAX's platform

_RNG = np.random.default_rng(0)
_Q = _RNG.standard_normal((3, 3)).astype(np.float32)
SPD = (_Q @ _Q.T + 3 * np.eye(3)).astype(np.float32)  # symmetric positive definite
NONSYMMETRIC = (_Q + 3 * np.eye(3)).astype(np.float32)
B = _RNG.standard_normal(3).astype(np.float32)
X0 = _RNG.standard_normal(3).astype(np.float32)
DIAG = _RNG.uniform(1, 3, 1).astype(np.float32)

# name -> (solver, its matrix, keyword arguments). Incremental GMRES stalls at float32's
# tol=1e-5 (in JAX too) and then runs all 10 * n restarts: it is held to a looser tol.
CASES = {
    "cg": ("cg", SPD, {}),
    "bicgstab": ("bicgstab", NONSYMMETRIC, {}),
    "gmres": ("gmres", NONSYMMETRIC, {}),
    "gmres_incremental": ("gmres", NONSYMMETRIC, {"solve_method": "incremental", "tol": 1e-3}),
}


def _close(got, want, rtol=1e-4, atol=1e-5):
    got_leaves, want_leaves = jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want)
    assert jaxwg.tree_util.tree_structure(got) == jaxwg.tree_util.tree_structure(
        jax.tree_util.tree_map(np.asarray, want)), (got, want)
    for g, w in zip(got_leaves, want_leaves):
        assert g.dtype == w.dtype and g.shape == w.shape, (g.dtype, w.dtype, g.shape, w.shape)
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=rtol, atol=atol)


def _solves(module, numpy, name):
    """Two solves: A a matrix; A a function of a pytree (a dict of a 3-vector and a
    1-vector: A's block and a diagonal one), from x0, with a Jacobi preconditioner M."""
    solver, matrix, kwargs = CASES[name]
    solve = getattr(module, solver)

    def f(a, b, x0, diag):
        plain = solve(a, b, **kwargs)

        def matvec(t):
            return {"v": numpy.dot(a, t["v"]), "w": diag * t["w"]}

        def precondition(t):
            return {"v": t["v"] / numpy.diagonal(a), "w": t["w"] / diag}

        tree = solve(matvec, {"v": b, "w": b[:1]}, x0={"v": x0, "w": x0[:1]}, M=precondition,
                     **kwargs)
        return plain, tree

    return f, matrix


# A GMRES solve takes seconds here, in JAX (compiling) and in jaxwg (which lowers dozens
# of operations per Arnoldi step, anew each step): the slow job runs most of its cases.
SLOW = pytest.mark.slow


@functools.lru_cache
def _jax_solves(name):
    return _solves(jax_linalg, jax_numpy, name)[0](CASES[name][1], B, X0, DIAG)


@pytest.mark.parametrize("name", ["cg", "bicgstab", pytest.param("gmres", marks=SLOW),
                                  pytest.param("gmres_incremental", marks=SLOW)])
def test_solves_match_jax(platform, name):
    """Eagerly on the CPU backend, under jit on WebGPU (few kernels to compile)."""
    f, matrix = _solves(linalg, jnp, name)
    if platform == "webgpu":
        f = jaxwg.jit(f)
    got = f(*map(jnp.asarray, (matrix, B, X0, DIAG)))
    _close(got, _jax_solves(name))
    if CASES[name][0] != "gmres":
        assert got[0][1] is None and got[1][1] is None  # info, as JAX's


@pytest.mark.parametrize("platform", ["cpu"], indirect=True)
def test_weak_types_match_jax(platform):
    """A Python scalar b gives JAX's dtype and weak type."""
    for solver in ("cg", "bicgstab"):
        got = getattr(linalg, solver)(lambda v: 2.0 * v, 3.0)[0]
        want = getattr(jax_linalg, solver)(lambda v: 2.0 * v, 3.0)[0]
        _close(got, want)
        assert got.weak_type == want.weak_type


@SLOW
@pytest.mark.parametrize("platform", ["cpu"], indirect=True)
def test_gmres_restarts_and_info_match_jax(platform):
    """gmres stops after maxiter restarts where JAX's does; its info is JAX's int32 0,
    or -1 for a NaN solution."""
    a, b = jnp.asarray(NONSYMMETRIC), jnp.asarray(B)
    nan = np.array([np.nan, 0, 0], np.float32)

    def gmres(module, a, b):
        return module.gmres(a, b, maxiter=1, restart=2), module.gmres(a, b, x0=nan)[1]

    (got, info), nan_info = gmres(linalg, a, b)
    (want, want_info), want_nan_info = jax.jit(functools.partial(gmres, jax_linalg))(NONSYMMETRIC, B)
    _close(got, want)
    assert (info.dtype, info.weak_type, info.item()) == (want_info.dtype, want_info.weak_type, 0)
    assert nan_info.item() == want_nan_info.item() == -1


@pytest.mark.parametrize("platform", ["cpu"], indirect=True)
@pytest.mark.parametrize("solver", ["cg", pytest.param("bicgstab", marks=SLOW),
                                    pytest.param("gmres", marks=SLOW)])
def test_complex_systems_match_jax(platform, solver):
    q = (_Q + 1j * _Q[::-1]).astype(np.complex64)
    matrix = (q @ q.conj().T + 3 * np.eye(3) if solver == "cg" else q + 6 * np.eye(3)).astype(np.complex64)
    b = (B + 1j * X0).astype(np.complex64)
    got = getattr(linalg, solver)(jnp.asarray(matrix), jnp.asarray(b))[0]
    _close(got, getattr(jax_linalg, solver)(matrix, b)[0])


@pytest.mark.parametrize("platform", ["cpu"], indirect=True)
@pytest.mark.parametrize("solver", ["cg", pytest.param("bicgstab", marks=SLOW),
                                    pytest.param("gmres", marks=SLOW)])
def test_gradients_match_jax(platform, solver):
    """Gradients (under jit) through the implicit, transposed solve, w.r.t. A and b, and
    forward-mode derivatives (solving again), as JAX's."""
    matrix = SPD if solver == "cg" else NONSYMMETRIC
    weights = np.arange(1.0, 4.0, dtype=np.float32)

    def loss(module, numpy):
        return lambda a, b: numpy.sum(getattr(module, solver)(a, b, tol=1e-6)[0] * weights)

    want = jax.grad(loss(jax_linalg, jax_numpy), argnums=(0, 1))(matrix, B)
    got = jaxwg.jit(jaxwg.grad(loss(linalg, jnp), argnums=(0, 1)))(jnp.asarray(matrix), jnp.asarray(B))
    _close(got, want, rtol=1e-3, atol=1e-5)
    tangents = (0.1 * matrix, np.ones_like(B))
    want = jax.jvp(lambda a, b: getattr(jax_linalg, solver)(a, b, tol=1e-6)[0], (matrix, B), tangents)
    got = jaxwg.jvp(lambda a, b: getattr(linalg, solver)(a, b, tol=1e-6)[0],
                    (jnp.asarray(matrix), jnp.asarray(B)), tuple(jnp.asarray(t) for t in tangents))
    _close(got, want, rtol=1e-3, atol=1e-5)


@pytest.mark.parametrize("platform", ["cpu"], indirect=True)
def test_cg_under_vmap_matches_jax(platform):
    """A batch of right-hand sides: each member's loop stops on its own, as JAX's."""
    bs = np.stack([B, 10 * X0]).astype(np.float32)
    got = jaxwg.vmap(lambda b: linalg.cg(jnp.asarray(SPD), b, maxiter=2)[0])(jnp.asarray(bs))
    _close(got, jax.vmap(lambda b: jax_linalg.cg(SPD, b, maxiter=2)[0])(bs))


@pytest.mark.parametrize("platform", ["cpu"], indirect=True)
@settings(max_examples=6, deadline=None)
@given(st.integers(0, 2 ** 31 - 1), st.integers(1, 3), st.sampled_from([1e-5, 1e-2]))
def test_cg_and_bicgstab_iterations_match_jax(platform, seed, maxiter, tol):
    """Random well-conditioned systems, stopped after `maxiter` steps or at `tol`."""
    rng = np.random.default_rng(seed)
    q = rng.standard_normal((3, 3)).astype(np.float32)
    b = rng.standard_normal(3).astype(np.float32)
    # positive definite, and strictly diagonally dominant (Gershgorin: eigenvalues' real
    # parts at least 1): q + 3I had eigenvalues near 0 (seed 2388), where two float32
    # iterations in another order differ by 0.25%
    dominant = q + (np.abs(q).sum(axis=1).max() + 1) * np.eye(3)
    for solver, matrix in (("cg", q @ q.T + 3 * np.eye(3)), ("bicgstab", dominant)):
        matrix = matrix.astype(np.float32)
        got = getattr(linalg, solver)(jnp.asarray(matrix), jnp.asarray(b), maxiter=maxiter, tol=tol)[0]
        want = _jax_iterations(solver)(matrix, b, maxiter, np.float32(tol))
        _close(got, want, rtol=1e-3, atol=1e-4)


@functools.lru_cache
def _jax_iterations(solver):
    """JAX's solver, compiled once: maxiter and tol may be traced in its loop."""
    return jax.jit(lambda a, b, maxiter, tol: getattr(jax_linalg, solver)(a, b, maxiter=maxiter, tol=tol)[0])


def _errors(module, numpy):
    """(exception, solver, message, call) for bad inputs: ours also name the solver."""
    eye, ones = numpy.eye(2), numpy.ones(2)
    return [
        (ValueError, "cg", "square matrix", lambda: module.cg(numpy.ones((2, 3)), ones)),
        (ValueError, "gmres", "square matrix", lambda: module.gmres(eye, ones, M=numpy.ones((2, 1)))),
        (TypeError, "bicgstab", "either a function or ndarray",
         lambda: module.bicgstab([[1.0, 0.0], [0.0, 1.0]], ones)),
        (ValueError, "cg", "matching tree structure", lambda: module.cg(lambda t: t, {"a": ones}, x0=[ones])),
        (ValueError, "gmres", "matching tree structure",
         lambda: module.gmres(lambda t: t, {"a": ones}, x0=[ones])),
        (ValueError, "bicgstab", "matching shapes",
         lambda: module.bicgstab(lambda t: t, ones, x0=numpy.ones((2, 1)))),
        (ValueError, "gmres", "invalid solve_method", lambda: module.gmres(eye, ones, solve_method="qr")),
        (TypeError, "cg", None, lambda: module.cg(lambda v: 2 * v, numpy.array([1, 2]))),  # int carries
    ]


def test_errors_match_jax():
    pairs = zip(_errors(jax_linalg, jax_numpy), _errors(linalg, jnp))
    for (kind, solver, message, theirs), (*_, ours) in pairs:
        with pytest.raises(kind, match=message):
            theirs()
        with pytest.raises(kind, match=message and f"^{solver}: .*{message}"):
            ours()
