"""`jaxwg.scipy.sparse.linalg`: iterative solvers of A x = b (`cg`, `bicgstab`, `gmres`),
as `jax.scipy.sparse.linalg`.

A is a square matrix, anything with `@`, or a function computing A(x) for x of b's
pytree structure; b and x0 are pytrees of arrays of any shape. Each solver is a
`lax.while_loop` inside `lax.custom_linear_solve`, as JAX's, so its derivatives come
from a second solve (of the transposed system), not from the iterations: jaxwg's
`custom_linear_solve` has reverse mode only, so these solvers have `grad`, `vjp` and
`jacrev` but, unlike JAX's, no `jvp`. Tolerances are SciPy's "non-legacy" ones: stop
when norm(residual) <= max(tol * norm(b), atol).

>>> import jaxwg.numpy as jnp
>>> from jaxwg.scipy.sparse import linalg
>>> x, info = linalg.gmres(lambda v: jnp.array([2.0, 4.0]) * v, jnp.array([1.0, 1.0]))
>>> [round(v, 5) for v in x.tolist()], info.item()
([0.5, 0.25], 0)
"""

from __future__ import annotations

import functools
import operator

import numpy as np

from ... import lax
from ... import numpy as jnp
from ...frontend import pytree
from ...frontend.basearray import Array
from ...numpy._util import result_dtype
from .. import linalg as scipy_linalg

__all__ = ["bicgstab", "cg", "gmres"]


# Vector algebra on pytrees of arrays (b's structure).

def _vdot_real_part(x, y):
    """The real part of vdot(x, y), without the imaginary cross terms: real even for
    complex x and y (the solvers take it of z^H M z, real for Hermitian M)."""
    result = jnp.vdot(jnp.real(x), jnp.real(y))
    if jnp.iscomplexobj(x) or jnp.iscomplexobj(y):
        result = result + jnp.vdot(jnp.imag(x), jnp.imag(y))
    return result


def _vdot_real_tree(x, y):
    return sum(pytree.tree_leaves(pytree.tree_map(_vdot_real_part, x, y)))


def _vdot_tree(x, y):
    return sum(pytree.tree_leaves(pytree.tree_map(jnp.vdot, x, y)))


def _norm(x):
    return jnp.sqrt(_vdot_real_tree(x, x))


def _mul(scalar, tree):
    return pytree.tree_map(lambda leaf: scalar * leaf, tree)


def _add(x, y):
    return pytree.tree_map(operator.add, x, y)


def _sub(x, y):
    return pytree.tree_map(operator.sub, x, y)


def _select(pred, x, y):
    return pytree.tree_map(functools.partial(jnp.where, pred), x, y)


def _identity(x):
    return x


def _matvec(name: str, f):
    """`f` (a function, a square matrix, or anything with `@`) as a function x -> A x."""
    if callable(f):
        return f
    if isinstance(f, (np.ndarray, Array)):
        if f.ndim != 2 or f.shape[0] != f.shape[1]:
            raise ValueError(f"{name}: linear operator must be a square matrix, but has shape: "
                             f"{f.shape}")
        return functools.partial(jnp.dot, f)
    if hasattr(f, "__matmul__"):
        if hasattr(f, "shape") and (len(f.shape) != 2 or f.shape[0] != f.shape[1]):
            raise ValueError(f"{name}: linear operator must be a square matrix, but has shape: "
                             f"{f.shape}")
        return functools.partial(operator.matmul, f)
    raise TypeError(f"{name}: linear operator must be either a function or ndarray: {f}")


def _operands(name: str, A, b, x0, maxiter, M):
    """(A, b, x0, maxiter, M) as the solvers use them: A and M functions (M the identity
    by default), b and x0 pytrees of arrays of matching structure (x0 zeros by default),
    maxiter 10 times b's size by default (SciPy's)."""
    if x0 is None:
        x0 = pytree.tree_map(jnp.zeros_like, b)
    b, x0 = pytree.tree_map(jnp.asarray, (b, x0))
    if maxiter is None:
        maxiter = 10 * sum(leaf.size for leaf in pytree.tree_leaves(b))
    A = _matvec(name, A)
    M = _identity if M is None else _matvec(name, M)
    if pytree.tree_structure(x0) != pytree.tree_structure(b):
        raise ValueError(f"{name}: x0 and b must have matching tree structure: "
                         f"{pytree.tree_structure(x0)} vs {pytree.tree_structure(b)}")
    return A, b, x0, maxiter, M


def _shapes(tree):
    return [np.shape(leaf) for leaf in pytree.tree_leaves(tree)]


# Conjugate gradients and BiCGSTAB.

def _cg_solve(A, b, x0, *, maxiter, tol, atol, M):
    """Preconditioned conjugate gradients from x0, until |r|^2 (r^H M r without a
    preconditioner) is at most max(tol^2 |b|^2, atol^2) or after maxiter steps."""
    atol2 = jnp.maximum(jnp.square(tol) * _vdot_real_tree(b, b), jnp.square(atol))
    r0 = _sub(b, A(x0))
    p0 = M(r0)
    dtype = jnp.result_type(*pytree.tree_leaves(p0))
    gamma0 = _vdot_real_tree(r0, p0).astype(dtype)

    def cond_fun(value):
        _, r, gamma, _, k = value
        rs = jnp.real(gamma) if M is _identity else _vdot_real_tree(r, r)
        return (rs > atol2) & (k < maxiter)

    def body_fun(value):
        x, r, gamma, p, k = value
        Ap = A(p)
        alpha = gamma / _vdot_real_tree(p, Ap).astype(dtype)
        x = _add(x, _mul(alpha, p))
        r = _sub(r, _mul(alpha, Ap))
        z = M(r)
        gamma_next = _vdot_real_tree(r, z).astype(dtype)
        p = _add(z, _mul(gamma_next / gamma, p))
        return x, r, gamma_next, p, k + 1

    return lax.while_loop(cond_fun, body_fun, (x0, r0, gamma0, p0, 0))[0]


def _bicgstab_solve(A, b, x0, *, maxiter, tol, atol, M):
    """Preconditioned BiCGSTAB from x0, until |r|^2 <= max(tol^2 |b|^2, atol^2), after
    maxiter steps, or on a breakdown (rho or omega or alpha zero: the step count goes
    negative, as JAX's)."""
    atol2 = jnp.maximum(jnp.square(tol) * _vdot_real_tree(b, b), jnp.square(atol))

    def cond_fun(value):
        _, r, *_, k = value
        return (_vdot_real_tree(r, r) > atol2) & (k < maxiter) & (k >= 0)

    def body_fun(value):
        x, r, rhat, alpha, omega, rho, p, q, k = value
        rho_next = _vdot_tree(rhat, r)
        beta = rho_next / rho * alpha / omega
        p = _add(r, _mul(beta, _sub(p, _mul(omega, q))))
        phat = M(p)
        q = A(phat)
        alpha = rho_next / _vdot_tree(rhat, q)
        s = _sub(r, _mul(alpha, q))
        exit_early = _vdot_real_tree(s, s) < atol2
        shat = M(s)
        t = A(shat)
        omega = _vdot_tree(t, s) / _vdot_tree(t, t)
        x_half = _add(x, _mul(alpha, phat))
        x = _select(exit_early, x_half, _add(x_half, _mul(omega, shat)))
        r = _select(exit_early, s, _sub(s, _mul(omega, t)))
        k = jnp.where((omega == 0) | (alpha == 0), -11, k + 1)
        k = jnp.where(rho_next == 0, -10, k)
        return x, r, rhat, alpha, omega, rho_next, p, q, k

    r0 = _sub(b, A(x0))
    one = lax.convert_element_type(1, *result_dtype(*pytree.tree_leaves(b)))
    return lax.while_loop(cond_fun, body_fun, (x0, r0, r0, one, one, one, r0, r0, 0))[0]


def _isolve(name: str, solve, A, b, x0, *, tol, atol, maxiter, M, check_symmetric=False):
    A, b, x0, maxiter, M = _operands(name, A, b, x0, maxiter, M)
    if _shapes(x0) != _shapes(b):
        raise ValueError(f"{name}: arrays in x0 and b must have matching shapes: "
                         f"{_shapes(x0)} vs {_shapes(b)}")
    solve = functools.partial(solve, x0=x0, tol=tol, atol=atol, maxiter=maxiter, M=M)
    # A real positive definite operator is symmetric (a complex one is Hermitian only).
    symmetric = check_symmetric and not any(jnp.iscomplexobj(leaf) for leaf in pytree.tree_leaves(b))
    x = lax.custom_linear_solve(A, b, solve=solve, transpose_solve=solve, symmetric=symmetric)
    return x, None


def cg(A, b, x0=None, *, tol=1e-5, atol=0.0, maxiter=None, M=None):
    """(x, None): x solving A x = b for Hermitian positive definite A by (preconditioned,
    M ~ A^-1) conjugate gradients, as `jax.scipy.sparse.linalg.cg`; derivatives by a
    second cg solve (reverse mode only in jaxwg).

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg.scipy.sparse.linalg import cg
    >>> x, info = cg(jnp.array([[4.0, 1.0], [1.0, 3.0]]), jnp.array([1.0, 2.0]))
    >>> [round(v, 5) for v in x.tolist()], info
    ([0.09091, 0.63636], None)
    """
    return _isolve("cg", _cg_solve, A, b, x0, tol=tol, atol=atol, maxiter=maxiter, M=M,
                   check_symmetric=True)


def bicgstab(A, b, x0=None, *, tol=1e-5, atol=0.0, maxiter=None, M=None):
    """(x, None): x solving A x = b for a general A by (preconditioned, M ~ A^-1)
    BiCGSTAB, as `jax.scipy.sparse.linalg.bicgstab`; derivatives by a second solve
    (reverse mode only in jaxwg).

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg.scipy.sparse.linalg import bicgstab
    >>> x, info = bicgstab(jnp.array([[3.0, 1.0], [-1.0, 2.0]]), jnp.array([4.0, 1.0]))
    >>> [round(v, 5) for v in x.tolist()], info
    ([1.0, 1.0], None)
    """
    return _isolve("bicgstab", _bicgstab_solve, A, b, x0, tol=tol, atol=atol, maxiter=maxiter, M=M)


# GMRES.

def _safe_normalize(x, thresh=None):
    """(x / |x|, |x|), or zeros and 0 where |x| <= thresh (default: the dtype's eps)."""
    norm = _norm(x)
    dtype, weak = result_dtype(*pytree.tree_leaves(x))
    if thresh is None:
        thresh = jnp.finfo(norm.dtype).eps
    use_norm = norm > thresh
    norm_cast = lax.convert_element_type(norm, dtype, weak)
    normalized = pytree.tree_map(lambda y: jnp.where(use_norm, y / norm_cast, 0.0), x)
    return normalized, jnp.where(use_norm, norm, 0.0)


def _orthogonalize(Q, x):
    """(q, h): x less its projections h = Q^H x onto Q's orthonormal columns (the last
    axis of each leaf), by one classical Gram-Schmidt pass. JAX's repeats the pass
    ("twice is enough") only while a step counter that its first pass already exhausts
    allows: one pass, as here."""
    h = functools.reduce(operator.add, pytree.tree_leaves(pytree.tree_map(
        lambda X, y: jnp.einsum("...n,...->n", jnp.conj(X), y), Q, x)))
    return _sub(x, pytree.tree_map(lambda X: jnp.dot(X, h), Q)), h


def _get(x, i, axis=0):
    """x[i] along `axis` (negative: from the end) for a traced index i."""
    return lax.dynamic_index_in_dim(x, i, axis % x.ndim, keepdims=False)


def _set(x, i, value, axis=0):
    """x with x[i] along `axis` (negative: from the end) set to `value`, i traced."""
    return lax.dynamic_update_index_in_dim(x, jnp.asarray(value, x.dtype), i, axis % x.ndim)


def _arnoldi_step(k, A, M, V, H):
    """The k-th Arnoldi step: V[..., k + 1] the unit M A V[..., k] orthogonalized against
    V (zeros on a breakdown: its norm within eps of the unreduced one), H[k] its
    coordinates. Returns (V, H, breakdown)."""
    dtype, _ = result_dtype(*pytree.tree_leaves(V))
    eps = jnp.finfo(dtype).eps
    v = M(A(pytree.tree_map(lambda X: _get(X, k, -1), V)))
    _, v_norm_0 = _safe_normalize(v)
    v, h = _orthogonalize(V, v)
    unit_v, v_norm_1 = _safe_normalize(v, thresh=eps * v_norm_0)
    V = pytree.tree_map(lambda X, y: _set(X, k + 1, y, -1), V, unit_v)
    h = _set(h, k + 1, v_norm_1)
    return V, _set(H, k, h), v_norm_1 == 0.0


def _rotate(H, i, cs, sn):
    """Rows (elements) i and i + 1 of H rotated by the Givens rotation (cs, sn)."""
    x, y = _get(H, i), _get(H, i + 1)
    H = _set(H, i, jnp.conj(cs) * x - jnp.conj(sn) * y)
    return _set(H, i + 1, sn * x + cs * y)


def _givens(a, b):
    """(cs, sn) of the Givens rotation that zeroes b against a."""
    b_zero = jnp.abs(b) == 0
    a_lt_b = jnp.abs(a) < jnp.abs(b)
    t = -jnp.where(a_lt_b, a, b) / jnp.where(a_lt_b, b, a)
    r = lax.rsqrt(1 + jnp.abs(t) ** 2).astype(t.dtype)
    cs = jnp.where(b_zero, 1, jnp.where(a_lt_b, r * t, r))
    sn = jnp.where(b_zero, 0, jnp.where(a_lt_b, r, r * t))
    return cs, sn


def _gmres_incremental(A, b, x0, unit_residual, residual_norm, ptol, restart, M):
    """One restart of GMRES: a QR factorization of the Krylov basis kept by Givens
    rotations as it grows, stopping early once the residual estimate is at most ptol.
    JAX's applies the earlier rotations to each new row one by one (an inner loop); here
    their product is kept as a matrix, one product per step (the same rotations)."""
    V = pytree.tree_map(lambda x: jnp.pad(x[..., None], ((0, 0),) * x.ndim + ((0, restart),)),
                        unit_residual)
    dtype = jnp.result_type(*pytree.tree_leaves(b))
    R = jnp.eye(restart, restart + 1, dtype=dtype)  # not singular if the loop stops early
    rotations = jnp.eye(restart + 1, dtype=dtype)
    beta_vec = jnp.zeros(restart + 1, dtype=dtype).at[0].set(residual_norm.astype(dtype))

    def loop_cond(carry):
        k, err, *_ = carry
        return (k < restart) & (err > ptol)

    def arnoldi_qr_step(carry):
        k, _, V, R, beta_vec, rotations = carry
        V, H, _ = _arnoldi_step(k, A, M, V, R)
        row = jnp.dot(rotations, _get(H, k))
        cs, sn = _givens(_get(row, k), _get(row, k + 1))
        R = _set(R, k, _rotate(row, k, cs, sn))
        beta_vec = _rotate(beta_vec, k, cs, sn)
        return k + 1, jnp.abs(_get(beta_vec, k + 1)), V, R, beta_vec, _rotate(rotations, k, cs, sn)

    _, _, V, R, beta_vec, _ = lax.while_loop(
        loop_cond, arnoldi_qr_step, (0, residual_norm, V, R, beta_vec, rotations))
    y = scipy_linalg.solve_triangular(R[:, :-1].T, beta_vec[:-1])
    return _restarted(A, b, x0, V, y, M)


def _gmres_batched(A, b, x0, unit_residual, residual_norm, ptol, restart, M):
    """One restart of GMRES: the whole Krylov basis (unless it breaks down), then the
    least-squares problem solved by its normal equations."""
    del ptol  # no early stop
    V = pytree.tree_map(lambda x: jnp.pad(x[..., None], ((0, 0),) * x.ndim + ((0, restart),)),
                        unit_residual)
    dtype, weak = result_dtype(*pytree.tree_leaves(b))
    H = lax.convert_element_type(jnp.eye(restart, restart + 1, dtype=dtype), dtype, weak)

    def loop_cond(carry):
        _, _, breakdown, k = carry
        return (k < restart) & jnp.logical_not(breakdown)

    def arnoldi(carry):
        V, H, _, k = carry
        V, H, breakdown = _arnoldi_step(k, A, M, V, H)
        return V, H, breakdown, k + 1

    V, H, _, _ = lax.while_loop(loop_cond, arnoldi, (V, H, False, 0))
    beta_vec = jnp.zeros_like(H, shape=(restart + 1,)).at[0].set(residual_norm.astype(dtype))
    Ht = H.T
    normal = jnp.dot(jnp.conj(Ht).T, Ht)
    y = scipy_linalg.solve(normal, jnp.dot(jnp.conj(Ht).T, beta_vec), assume_a="pos")
    return _restarted(A, b, x0, V, y, M)


def _restarted(A, b, x0, V, y, M):
    """(x, unit residual, residual norm) for x = x0 + V[..., :-1] y, the residual M (b - A x)."""
    x = _add(x0, pytree.tree_map(lambda X: jnp.dot(X[..., :-1], y), V))
    unit_residual, residual_norm = _safe_normalize(M(_sub(b, A(x))))
    return x, unit_residual, residual_norm


def _gmres_solve(A, b, x0, atol, ptol, restart, maxiter, M, restart_once):
    """Restarts of GMRES (`restart_once`) from x0 until |M (b - A x)| <= atol or maxiter."""
    unit_residual, residual_norm = _safe_normalize(M(_sub(b, A(x0))))

    def cond_fun(value):
        _, k, _, residual_norm = value
        return (k < maxiter) & (residual_norm > atol)

    def body_fun(value):
        x, k, unit_residual, residual_norm = value
        x, unit_residual, residual_norm = restart_once(A, b, x, unit_residual, residual_norm,
                                                       ptol, restart, M)
        return x, k + 1, unit_residual, residual_norm

    return lax.while_loop(cond_fun, body_fun, (x0, 0, unit_residual, residual_norm))[0]


_GMRES_METHODS = {"incremental": _gmres_incremental, "batched": _gmres_batched}


def gmres(A, b, x0=None, *, tol=1e-5, atol=0.0, restart=20, maxiter=None, M=None,
          solve_method="batched"):
    """(x, info): x solving A x = b for a general A by restarted GMRES (Krylov spaces of
    dimension `restart`, at most `maxiter` restarts; `solve_method` "batched" solves each
    restart's least squares at its end, "incremental" by Givens rotations as it goes),
    info -1 where x has a NaN else 0, as `jax.scipy.sparse.linalg.gmres`; derivatives by
    a second solve (reverse mode only in jaxwg).

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg.scipy.sparse.linalg import gmres
    >>> x, info = gmres(jnp.array([[3.0, 1.0], [-1.0, 2.0]]), jnp.array([4.0, 1.0]))
    >>> [round(v, 5) for v in x.tolist()], info.item()
    ([1.0, 1.0], 0)
    """
    A, b, x0, maxiter, M = _operands("gmres", A, b, x0, maxiter, M)
    restart = min(restart, sum(leaf.size for leaf in pytree.tree_leaves(b)))
    b_norm = _norm(b)
    atol = jnp.maximum(tol * b_norm, atol)
    ptol = _norm(M(b)) * jnp.minimum(1.0, atol / b_norm)
    if solve_method not in _GMRES_METHODS:
        raise ValueError(f"gmres: invalid solve_method {solve_method}, must be either "
                         "'incremental' or 'batched'")
    restart_once = _GMRES_METHODS[solve_method]

    def solve(A, b):
        return _gmres_solve(A, b, x0, atol, ptol, restart, maxiter, M, restart_once)

    x = lax.custom_linear_solve(A, b, solve=solve, transpose_solve=solve)
    return x, jnp.where(jnp.isnan(_norm(x)), -1, 0)
