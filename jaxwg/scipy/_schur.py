"""`jax.scipy.linalg`'s Schur-based functions: `schur`, `rsf2csf`, `hessenberg`, and the
matrix functions built on the complex Schur form A = Z T Z^H: `sqrtm`
(Bjorck-Hammarling), `funm` (Schur-Parlett) and `solve_sylvester` (Bartels-Stewart).

The decompositions run on the host (`jaxwg.lax.linalg.schur` and `hessenberg`, as JAX
runs LAPACK on its CPU); the rest runs on the device. The triangular recurrences that
JAX runs entry by entry are run here a diagonal at a time (entries of one superdiagonal,
or one anti-diagonal for Sylvester's equation, depend only on the earlier ones), with
the same arithmetic per entry. None of them differentiates through the decomposition
(JAX's NotImplementedError); `rsf2csf` is plain array arithmetic.

>>> import jaxwg.numpy as jnp
>>> sqrtm(jnp.array([[4.0, 0.0], [0.0, 9.0]])).tolist()
[[(2+0j), 0j], [0j, (3+0j)]]
"""

from __future__ import annotations

import functools

import numpy as np

from .. import lax
from .. import numpy as jnp
from ..frontend.jit import jit
from ..lax import linalg as lax_linalg
from ..numpy import linalg as np_linalg
from ..numpy._util import check_arraylike, promote

__all__ = ["funm", "hessenberg", "rsf2csf", "schur", "solve_sylvester", "sqrtm"]


def _complex_dtype(dtype) -> np.dtype:
    return np.result_type(np.dtype(dtype.name), np.complex64)


def schur(a, output: str = "real"):
    """(T, Z) with a = Z T Z^H for each square matrix in `a`: Z orthogonal (unitary), T
    quasi-upper-triangular (`output` "real", for real a: 2 x 2 diagonal blocks for
    complex eigenvalue pairs) or upper triangular ("complex": a is made complex first).
    Computed on the host, as JAX's (LAPACK on its CPU); the order of the eigenvalues on
    T's diagonal may differ from LAPACK's.

    >>> from jaxwg.scipy.linalg import schur
    >>> import jaxwg.numpy as jnp
    >>> t, z = schur(jnp.array([[1.0, 2.0], [0.0, 3.0]]))
    >>> t.tolist(), z.tolist()
    ([[1.0, 2.0], [0.0, 3.0]], [[1.0, 0.0], [0.0, 1.0]])
    """
    if output not in ("real", "complex"):
        raise ValueError(f"Expected 'output' to be either 'real' or 'complex', got {output=}.")
    check_arraylike("schur", a)
    a = jnp.asarray(a)
    if output == "complex":
        (a,) = promote(a, to_inexact=True)
        a = a.astype(_complex_dtype(a.dtype))
    return lax_linalg.schur(a)


def hessenberg(a, *, calc_q: bool = False, overwrite_a: bool = False, check_finite: bool = True):
    """The upper Hessenberg form H = Q^H a Q of each square matrix in `a` (zero below the
    first subdiagonal), by Householder reflections computed on the host (LAPACK's
    gehrd); (H, Q) with `calc_q`.

    >>> from jaxwg.scipy.linalg import hessenberg
    >>> import jaxwg.numpy as jnp
    >>> h, q = hessenberg(jnp.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [4.0, 0.0, 1.0]]), calc_q=True)
    >>> h.tolist()
    [[1.0, 0.0, 0.0], [-4.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
    >>> q.tolist()
    [[1.0, 0.0, 0.0], [0.0, 0.0, -1.0], [0.0, -1.0, 0.0]]
    """
    check_arraylike("hessenberg", a)
    a = jnp.asarray(a)
    if a.ndim >= 2 and a.shape[-1] == 0:
        return (jnp.zeros_like(a), jnp.zeros_like(a)) if calc_q else jnp.zeros_like(a)
    packed, taus = lax_linalg.hessenberg(a)
    h = jnp.triu(packed, -1)
    if not calc_q:
        return h
    n = a.shape[-1]
    q = lax_linalg.householder_product(packed[..., 1:, :-1], taus)
    # Q = diag(1, q): the reflectors act on rows and columns 1..n-1
    q = jnp.pad(q, [(0, 0)] * (q.ndim - 2) + [(1, 0), (1, 0)])
    return h, q + jnp.eye(n, dtype=q.dtype) * (jnp.arange(n) == 0)


def _rotate_columns(x, m: int, cs, sn, where):
    """x with its columns m - 1 and m multiplied by G^H = [[cs, -conj(sn)], [conj(sn),
    conj(cs)]] where `where` holds."""
    j = np.arange(x.shape[-1])
    left, right = x[:, m - 1:m], x[:, m:m + 1]
    rotated = jnp.where(j == m - 1, cs * left + jnp.conj(sn) * right, jnp.conj(cs) * right - sn * left)
    return jnp.where(where & ((j == m - 1) | (j == m)), rotated, x)


def _rsf2csf_2d(t, z):
    """rsf2csf of one matrix: from the last row up, the 2 x 2 block at m - 1, m rotated
    by G = [[conj(c), s], [-s, c]] (rows m - 1, m from column m - 1 on; columns m - 1, m
    above row m + 1; Z's columns) where its subdiagonal entry is not negligible."""
    n = t.shape[0]
    eps = np.finfo(t.dtype).eps
    i, j = np.arange(n)[:, None], np.arange(n)[None, :]
    for m in range(n - 1, 0, -1):
        a, b = t[m - 1, m - 1], t[m - 1, m]
        c, d = t[m, m - 1], t[m, m]
        # mu: the eigenvalue of the block farther from d, minus d: (a + d) / 2 + y - d,
        # y^2 = x^2 + b c with y pointing as x = (a - d) / 2 (LAPACK's eigenvalue order)
        x = 0.5 * (a - d)
        y = jnp.sqrt(x * x + b * c)
        y = jnp.where(jnp.real(jnp.conj(x) * y) < 0, -y, y)
        mu = x + y
        r = jnp.sqrt(jnp.abs(mu) ** 2 + jnp.abs(c) ** 2).astype(t.dtype)
        cs, sn = mu / r, c / r
        split = jnp.abs(c) > eps * (jnp.abs(a) + jnp.abs(d))
        # rows m - 1 and m rotated by G, then columns m - 1 and m by G^H (each entry of
        # the pair from the pair alone: no 0 * inf from elsewhere)
        top, bottom = t[m - 1], t[m]
        rotated = jnp.where(i == m - 1, jnp.conj(cs) * top + sn * bottom, cs * bottom - sn * top)
        t = jnp.where(split & ((i == m - 1) | (i == m)) & (j >= m - 1), rotated, t)
        t = _rotate_columns(t, m, cs, sn, split & (i <= m))
        z = _rotate_columns(z, m, cs, sn, split)
        t = jnp.where((i == m) & (j == m - 1), 0, t)
    return t, z


_rsf2csf = jit(jnp.vectorize(_rsf2csf_2d, signature="(n,n),(n,n)->(n,n),(n,n)"))


def rsf2csf(T, Z, check_finite: bool = True):
    """(T, Z) in complex Schur form from the real Schur form `T` and its Schur vectors
    `Z`: each 2 x 2 diagonal block of T with a nonzero subdiagonal entry is made upper
    triangular by a complex Givens rotation (as SciPy's and JAX's); leading axes batch.

    >>> from jaxwg.scipy.linalg import rsf2csf
    >>> import jaxwg.numpy as jnp
    >>> t, z = rsf2csf(jnp.array([[1.0, 1.0], [-1.0, 1.0]]), jnp.eye(2))
    >>> [round(v.imag, 5) for v in jnp.diag(t).tolist()]
    [1.0, -1.0]
    """
    check_arraylike("rsf2csf", T, Z)
    T, Z = jnp.asarray(T), jnp.asarray(Z)
    if T.ndim < 2 or T.shape[-1] != T.shape[-2]:
        raise ValueError("Input 'T' must be square.")
    if Z.ndim < 2 or Z.shape[-1] != Z.shape[-2]:
        raise ValueError("Input 'Z' must be square.")
    if T.shape[-1] != Z.shape[-1]:
        raise ValueError(f"Input array shapes must match: Z: {Z.shape} vs. T: {T.shape}")
    T, Z = promote(T, Z, to_inexact=True)
    dtype = _complex_dtype(T.dtype)
    T, Z = T.astype(dtype), Z.astype(dtype)
    if T.shape[-1] <= 1:
        batch = np.broadcast_shapes(T.shape[:-2], Z.shape[:-2])
        return (jnp.broadcast_to(T, (*batch, *T.shape[-2:])), jnp.broadcast_to(Z, (*batch, *Z.shape[-2:])))
    return _rsf2csf(T, Z)


def _sqrtm_triu(t):
    """The upper triangular square root of the upper triangular `t` (Bjorck-Hammarling):
    u_ij = (t_ij - sum_{i<k<j} u_ik u_kj) / (u_ii + u_jj), a superdiagonal at a time."""
    n = t.shape[-1]
    diag = jnp.sqrt(jnp.diagonal(t))
    above = jnp.arange(n)[None, :] - jnp.arange(n)[:, None]

    def step(d, u):
        strict = jnp.triu(u, 1)
        s = jnp.matmul(strict, strict)
        value = jnp.where(t == s, 0, (t - s) / (diag[:, None] + diag[None, :]))
        return jnp.where(above == d, value, u)

    return lax.fori_loop(1, n, step, jnp.diag(diag))


def sqrtm(A, blocksize: int = 1):
    """The principal square root of the square matrix `A` (complex), from its complex
    Schur form T = Z^H A Z: Z sqrt(T) Z^H, sqrt(T) by Bjorck and Hammarling's recurrence
    (JAX's method; `blocksize` > 1 is not implemented, as in JAX).

    >>> from jaxwg.scipy.linalg import sqrtm
    >>> import jaxwg.numpy as jnp
    >>> sqrtm(jnp.array([[1.0, 2.0], [0.0, 1.0]])).tolist()
    [[(1+0j), (1+0j)], [0j, (1+0j)]]
    """
    if blocksize > 1:
        raise NotImplementedError("Blocked version is not implemented yet.")
    check_arraylike("sqrtm", A)
    A = jnp.asarray(A)
    if A.ndim > 2:
        raise ValueError(f"sqrtm: expected a matrix, got shape {A.shape}")
    T, Z = schur(A, output="complex")
    if A.shape[0] == 0:
        return T
    return _sqrtm_from_schur(T, Z)


@jit
def _sqrtm_from_schur(T, Z):
    return jnp.matmul(jnp.matmul(Z, _sqrtm_triu(T)), np_linalg._h(Z))


def _parlett(f, t):
    """Schur-Parlett (Golub and Van Loan's Algorithm 11.1.1, as JAX's): the upper
    triangular F = f(T) from its diagonal, a superdiagonal at a time, and the smallest
    |t_ii| and |t_jj - t_ii| (i < j) it divides by."""
    n = t.shape[-1]
    above = jnp.arange(n)[None, :] - jnp.arange(n)[:, None]
    t_diag = jnp.diagonal(t)
    den = t_diag[None, :] - t_diag[:, None]  # t_jj - t_ii
    strict_t = jnp.triu(t, 1)

    def step(d, f):
        f_diag = jnp.diagonal(f)
        strict_f = jnp.triu(f, 1)
        s = (t * (f_diag[None, :] - f_diag[:, None]) + jnp.matmul(strict_t, strict_f)
             - jnp.matmul(strict_f, strict_t))
        value = jnp.where(den != 0, s / jnp.where(den != 0, den, 1), s)
        return jnp.where(above == d, value, f)

    minden = jnp.minimum(jnp.abs(t[0, 0]), jnp.min(jnp.where(above > 0, jnp.abs(den), jnp.inf)))
    return lax.fori_loop(1, n, step, f), minden


def funm(A, func, disp: bool = True):
    """f(A) for the square matrix `A` and the scalar function `func` (applied to A's
    eigenvalues), by the Schur-Parlett method as JAX's: complex (SciPy's may be real);
    with `disp=False`, (f(A), an estimate of its relative error).

    >>> from jaxwg.scipy.linalg import funm
    >>> import jaxwg.numpy as jnp
    >>> funm(jnp.array([[1.0, 0.0], [0.0, 2.0]]), lambda x: x * x).tolist()
    [[(1+0j), 0j], [0j, (4+0j)]]
    """
    check_arraylike("funm", A)
    A = jnp.asarray(A)
    if A.ndim != 2 or A.shape[0] != A.shape[1]:
        raise ValueError(f"funm: expected square array_like input, got shape {A.shape}")
    if not jnp.issubdtype(A.dtype, jnp.inexact):
        schur(A)  # JAX's TypeError
    # the complex Schur form directly, where JAX converts the real one by rsf2csf: the
    # same f(A), whose error estimate depends on the Schur form anyway
    T, Z = schur(A, output="complex")
    if A.shape[0] == 0:
        return T if disp else (T, jnp.zeros((), jnp.real(T).dtype))
    return _funm_from_schur(T, Z, func, disp)


@functools.partial(jit, static_argnames=("func", "disp"))
def _funm_from_schur(T, Z, func, disp: bool):
    F = jnp.diag(func(jnp.diagonal(T))).astype(T.dtype)
    F, minden = _parlett(F, T)
    F = jnp.matmul(jnp.matmul(Z, F), np_linalg._h(Z))
    if disp:
        return F
    tol = np.finfo(np.float32 if F.dtype == np.complex64 else np.float64).eps
    minden = jnp.where(minden == 0, tol, minden)
    norm = jnp.max(jnp.sum(jnp.abs(jnp.triu(T, 1)), axis=0))
    err = jnp.where(jnp.any(jnp.isinf(F)), np.inf, jnp.minimum(1, jnp.maximum(tol, (tol / minden) * norm)))
    return F, err.astype(minden.dtype)


def _sylvester_triangular(r, l, f):
    """Y with R Y + Y L = F for upper triangular R (m, m) and lower triangular L (n, n):
    y_ij = (f_ij - sum_{k>i} r_ik y_kj - sum_{k>j} y_ik l_kj) / (r_ii + l_jj), an
    anti-diagonal at a time from the bottom right corner (JAX's order)."""
    m, n = f.shape
    level = (m - 1 - jnp.arange(m))[:, None] + (n - 1 - jnp.arange(n))[None, :]
    strict_r, strict_l = jnp.triu(r, 1), jnp.tril(l, -1)
    den = jnp.diagonal(r)[:, None] + jnp.diagonal(l)[None, :]

    def step(d, y):
        value = (f - jnp.matmul(strict_r, y) - jnp.matmul(y, strict_l)) / den
        return jnp.where(level == d, value, y)

    return lax.fori_loop(0, m + n - 1, step, jnp.zeros_like(f))


@jit
def _sylvester_schur(R, U, S, V, C, tol):
    return _solution(*_bartels_stewart(R, U, S, V, C), C, tol)


@jit
def _sylvester_eigen(eig_a, UA, eig_b, UB, C, tol):
    return _solution(_by_eigenvectors(eig_a, UA, eig_b, UB, C), eig_a, eig_b, C, tol)


def _solution(X, eig_a, eig_b, C, tol):
    """X, real where C is, and NaN where some eigenvalues of A and B sum to below tol."""
    if not jnp.iscomplexobj(C):
        X = jnp.real(X)
    singular = jnp.any(jnp.abs(eig_a[..., :, None] + eig_b[..., None, :]) < tol, axis=(-2, -1))
    return jnp.where(singular[..., None, None], np.nan, X).astype(X.dtype)


@functools.partial(jnp.vectorize, signature="(m,m),(m,m),(n,n),(n,n),(m,n)->(m,n),(m),(n)")
def _bartels_stewart(R, U, S, V, C):
    """X with A X + X B = C from A = U R U^H and B^H = V S V^H, and the eigenvalues of A
    and B."""
    F = jnp.matmul(jnp.matmul(np_linalg._h(U), C.astype(R.dtype)), V)
    Y = _sylvester_triangular(R, np_linalg._h(S), F)
    return jnp.matmul(jnp.matmul(U, Y), np_linalg._h(V)), jnp.diagonal(R), jnp.conj(jnp.diagonal(S))


@functools.partial(jnp.vectorize, signature="(m),(m,m),(n),(n,n),(m,n)->(m,n)")
def _by_eigenvectors(eig_a, UA, eig_b, UB, C):
    F = np_linalg.solve(UA, jnp.matmul(C.astype(eig_a.dtype), UB))
    Y = F / (eig_a[:, None] + eig_b[None, :])
    return jnp.matmul(jnp.matmul(UA, Y), np_linalg.inv(UB))


def solve_sylvester(A, B, C, *, method: str = "schur", tol: float = 1e-8):
    """X with A X + X B = C (Bartels-Stewart on the complex Schur forms of A and B^H,
    `method` "schur", or through the eigendecompositions of A and B, "eigen"); NaNs
    where some eigenvalues of A and B sum to less than `tol` in magnitude. Leading axes
    batch.

    >>> from jaxwg.scipy.linalg import solve_sylvester
    >>> import jaxwg.numpy as jnp
    >>> solve_sylvester(jnp.array([[1.0]]), jnp.array([[3.0]]), jnp.array([[8.0]])).tolist()
    [[2.0]]
    """
    if method not in ("schur", "eigen"):
        raise ValueError(f'Unrecognized method {method}. The two valid methods are either "schur" or '
                         '"eigen".')
    check_arraylike("solve_sylvester", A, B, C)
    A, B, C = promote(jnp.asarray(A), jnp.asarray(B), jnp.asarray(C), to_inexact=True)
    m, n = C.shape[-2:]
    if A.shape[-2:] != (m, m) or B.shape[-2:] != (n, n):
        raise ValueError(f"Incompatible shapes for Sylvester equation:\nA: {A.shape}\nB: {B.shape}\n"
                         f"C: {C.shape}")
    if m == 0 or n == 0:
        return jnp.zeros(np.broadcast_shapes(A.shape[:-2], B.shape[:-2], C.shape[:-2]) + (m, n), C.dtype)
    batch = np.broadcast_shapes(A.shape[:-2], B.shape[:-2], C.shape[:-2])
    A, B, C = (jnp.broadcast_to(x, (*batch, *x.shape[-2:])) for x in (A, B, C))
    if method == "schur":
        R, U = schur(A, output="complex")
        S, V = schur(np_linalg._h(B), output="complex")
        return _sylvester_schur(R, U, S, V, C, tol)
    eig_a, UA = np_linalg.eig(A)
    eig_b, UB = np_linalg.eig(B)
    return _sylvester_eigen(eig_a, UA, eig_b, UB, C, tol)
