"""`jaxwg.scipy.linalg`: SciPy's dense linear algebra as `jax.scipy.linalg`: triangular,
Cholesky and LU solves, the factorizations (`lu`, `qr`, `svd`, `eigh`,
`eigh_tridiagonal`), `expm` (Pade with scaling and squaring, as JAX) and its Frechet
derivative, `polar`, `qr_multiply`, and the special matrices (`toeplitz`, `hilbert`, ...:
see `jaxwg.scipy._special_matrices`). They build on `jaxwg.lax.linalg` and
`jaxwg.numpy.linalg`. SciPy's `overwrite_*` and `check_finite` arguments are accepted and
ignored, as in JAX.

The Schur and Hessenberg decompositions and the matrix functions built on them (`schur`,
`rsf2csf`, `hessenberg`, `sqrtm`, `funm`, `solve_sylvester`) are in `jaxwg.scipy._schur`.

>>> import jaxwg.numpy as jnp
>>> from jaxwg.scipy import linalg
>>> linalg.solve_triangular(jnp.array([[2.0, 1.0], [0.0, 4.0]]), jnp.array([4.0, 8.0])).tolist()
[1.0, 2.0]
"""

from __future__ import annotations

import functools
import warnings

import numpy as np

from .. import lax
from .. import numpy as jnp
from ..frontend.jit import jit
from ..lax import linalg as lax_linalg
from ..numpy import linalg as np_linalg
from ..numpy._util import inexact_operands, promote
from ..transforms.ad import jvp
from ._special_matrices import (  # re-exported
    block_diag, circulant, companion, convolution_matrix, dft, fiedler, fiedler_companion, hadamard, hankel,
    helmert, hilbert, invhilbert, invpascal, leslie, pascal, toeplitz)
from ._schur import funm, hessenberg, rsf2csf, schur, solve_sylvester, sqrtm  # noqa: F401

__all__ = ["block_diag", "cho_factor", "cho_solve", "cholesky", "circulant", "companion",
           "convolution_matrix", "det", "dft", "eigh", "eigh_tridiagonal", "expm", "expm_frechet", "fiedler",
           "fiedler_companion", "hadamard", "hankel", "helmert", "hilbert", "inv", "invhilbert", "invpascal",
           "leslie", "lu", "lu_factor", "lu_solve", "pascal", "polar", "qr", "qr_multiply", "solve",
           "solve_triangular", "svd", "toeplitz"]
__all__ += ["funm", "hessenberg", "rsf2csf", "schur", "solve_sylvester", "sqrtm"]


def _as_columns(name: str, a, b):
    """(b as (..., n, k), whether b was vectors) for a solve with (..., n, n) `a`, as JAX:
    a 1-D b is one vector; b of one axis fewer than `a` whose last axis is n is a batch
    of vectors (deprecated in JAX, with its FutureWarning); else b is (..., n, k)."""
    if b.ndim == 1:
        return b[:, None], True
    if a.ndim == b.ndim + 1 and a.shape[-1] == b.shape[-1]:
        warnings.warn(f"jax.scipy.linalg.{name}: batched 1D solves with b.ndim > 1 are deprecated, and in "
                      f"the future will be treated as a batched 2D solve. Use {name}(..., b[..., None])"
                      ".squeeze(-1) to avoid this warning.", category=FutureWarning, stacklevel=3)
        return b[..., None], True
    return b, False


def _solve_columns(name: str, a, b, solve_fn):
    a = np_linalg._square(name, a)
    b, vectors = _as_columns(name, a, b)
    if b.ndim < 2 or b.shape[-2] != a.shape[-1]:
        raise ValueError(f"{name}: b of shape {b.shape} does not match a of shape {a.shape}")
    x = solve_fn(a, b)
    return x[..., 0] if vectors else x


_TRANS = {0: (False, False), "N": (False, False), 1: (True, False), "T": (True, False),
          2: (True, True), "C": (True, True)}


def solve_triangular(a, b, trans=0, lower: bool = False, unit_diagonal: bool = False,
                     overwrite_b: bool = False, debug=None, check_finite: bool = True):
    """x with op(a) x = b for triangular `a`, op given by `trans` (0 or "N": a, 1 or
    "T": a^T, 2 or "C": a^H), reading only a's `lower` (else upper) triangle, and not
    its diagonal with `unit_diagonal`. b is (n,) or (..., n, k).

    >>> from jaxwg.scipy.linalg import solve_triangular
    >>> import jaxwg.numpy as jnp
    >>> solve_triangular(jnp.array([[2.0, 0.0], [1.0, 1.0]]), jnp.array([2.0, 3.0]), lower=True).tolist()
    [1.0, 2.0]
    """
    if trans not in _TRANS:
        raise ValueError(f"Invalid 'trans' value {trans}")
    transpose_a, conjugate_a = _TRANS[trans]
    a, b = inexact_operands("solve_triangular", a, b)
    solve_fn = functools.partial(lax_linalg.triangular_solve, left_side=True, lower=lower,
                                 transpose_a=transpose_a, conjugate_a=conjugate_a,
                                 unit_diagonal=unit_diagonal)
    return _solve_columns("solve_triangular", a, b, solve_fn)


def cholesky(a, lower: bool = False, overwrite_a: bool = False, check_finite: bool = True):
    """The Cholesky factor of Hermitian positive definite `a`: upper U with U^H U = a by
    default (as SciPy), lower L with L L^H = a with `lower`; only that triangle of `a`
    is read. NaN where `a` is not positive definite.

    >>> from jaxwg.scipy.linalg import cholesky
    >>> import jaxwg.numpy as jnp
    >>> cholesky(jnp.array([[4.0, 2.0], [2.0, 5.0]])).tolist()
    [[2.0, 1.0], [0.0, 2.0]]
    """
    (a,) = inexact_operands("cholesky", a)
    a = np_linalg._square("cholesky", a)
    factor = lax_linalg.cholesky(a if lower else np_linalg._h(a), symmetrize_input=False)
    return factor if lower else np_linalg._h(factor)


def cho_factor(a, lower: bool = False, overwrite_a: bool = False, check_finite: bool = True):
    """(c, lower): `cholesky(a, lower)` and the flag, for `cho_solve` (the other triangle
    of c is zero, unlike SciPy's).

    >>> from jaxwg.scipy.linalg import cho_factor
    >>> import jaxwg.numpy as jnp
    >>> c, lower = cho_factor(jnp.array([[4.0, 2.0], [2.0, 5.0]]), lower=True)
    >>> c.tolist(), lower
    ([[2.0, 0.0], [1.0, 2.0]], True)
    """
    return cholesky(a, lower=lower), lower


def cho_solve(c_and_lower, b, overwrite_b: bool = False, check_finite: bool = True):
    """x with a x = b, given `cho_factor(a)`'s (c, lower): two triangular solves.

    >>> from jaxwg.scipy.linalg import cho_factor, cho_solve
    >>> import jaxwg.numpy as jnp
    >>> factors = cho_factor(jnp.array([[4.0, 2.0], [2.0, 5.0]]))
    >>> [round(x, 5) for x in cho_solve(factors, jnp.array([6.0, 7.0])).tolist()]
    [1.0, 1.0]
    """
    c, lower = c_and_lower
    c, b = inexact_operands("cho_solve", c, b)

    def solve_fn(c, b):
        b = lax_linalg.triangular_solve(c, b, left_side=True, lower=lower, transpose_a=not lower,
                                        conjugate_a=not lower)
        return lax_linalg.triangular_solve(c, b, left_side=True, lower=lower, transpose_a=lower,
                                           conjugate_a=lower)

    return _solve_columns("cho_solve", c, b, solve_fn)


def lu(a, permute_l: bool = False, overwrite_a: bool = False, check_finite: bool = True):
    """(p, l, u) with a = p @ l @ u for an (m, n) matrix `a`: p an (m, m) permutation
    matrix, l (m, k) unit lower triangular and u (k, n) upper triangular, k = min(m, n);
    or (p @ l, u) with `permute_l`.

    >>> from jaxwg.scipy.linalg import lu
    >>> import jaxwg.numpy as jnp
    >>> p, l, u = lu(jnp.array([[1.0, 2.0], [4.0, 4.0]]))
    >>> p.tolist(), l.tolist(), u.tolist()
    ([[0.0, 1.0], [1.0, 0.0]], [[1.0, 0.0], [0.25, 1.0]], [[4.0, 4.0], [0.0, 1.0]])
    """
    (a,) = inexact_operands("lu", a)
    if a.ndim > 2:
        raise ValueError(f"lu: a must be a matrix, got shape {a.shape}")
    factors, _, permutation = lax_linalg.lu(a)
    m, n = a.shape
    p = (permutation[None, :] == jnp.arange(m, dtype=permutation.dtype)[:, None]).astype(a.dtype)
    k = min(m, n)
    lower = jnp.tril(factors, -1)[:, :k] + jnp.eye(m, k, dtype=a.dtype)
    upper = jnp.triu(factors)[:k, :]
    if permute_l:
        return jnp.matmul(p, lower), upper
    return p, lower, upper


def lu_factor(a, overwrite_a: bool = False, check_finite: bool = True):
    """(lu, piv): `lax.linalg.lu`'s factors and LAPACK's pivots, for `lu_solve`.

    >>> from jaxwg.scipy.linalg import lu_factor
    >>> import jaxwg.numpy as jnp
    >>> factors, piv = lu_factor(jnp.array([[1.0, 2.0], [4.0, 4.0]]))
    >>> factors.tolist(), piv.tolist()
    ([[4.0, 4.0], [0.25, 1.0]], [1, 1])
    """
    (a,) = inexact_operands("lu_factor", a)
    factors, pivots, _ = lax_linalg.lu(a)
    return factors, pivots


def lu_solve(lu_and_piv, b, trans: int = 0, overwrite_b: bool = False, check_finite: bool = True):
    """x with op(a) x = b given `lu_factor(a)`, op(a) = a (trans 0), a^T (1) or a^H (2).

    >>> from jaxwg.scipy.linalg import lu_factor, lu_solve
    >>> import jaxwg.numpy as jnp
    >>> factors = lu_factor(jnp.array([[1.0, 2.0], [4.0, 4.0]]))
    >>> lu_solve(factors, jnp.array([3.0, 8.0])).tolist()
    [1.0, 1.0]
    """
    if trans not in (0, 1, 2):
        raise ValueError(f"'trans' value must be 0, 1, or 2, got {trans}")
    factors, pivots = lu_and_piv
    factors, b = inexact_operands("lu_solve", factors, b)
    perm = lax_linalg.lu_pivots_to_permutation(pivots, factors.shape[-2])

    def solve_fn(factors, b):
        batch = np.broadcast_shapes(factors.shape[:-2], perm.shape[:-1], b.shape[:-2])
        n = factors.shape[-1]
        factors = jnp.broadcast_to(factors, (*batch, n, n))
        b = jnp.broadcast_to(b, (*batch, *b.shape[-2:]))
        order = jnp.broadcast_to(perm, (*batch, n))
        if trans == 0:
            return np_linalg._lu_solve(factors, order, b)
        conjugate = trans == 2
        x = lax_linalg.triangular_solve(factors, b, left_side=True, lower=False, transpose_a=True,
                                        conjugate_a=conjugate)
        x = lax_linalg.triangular_solve(factors, x, left_side=True, lower=True, unit_diagonal=True,
                                        transpose_a=True, conjugate_a=conjugate)
        inverse = jnp.argsort(order, axis=-1)
        return jnp.take_along_axis(x, jnp.broadcast_to(inverse[..., :, None], x.shape), axis=-2)

    return _solve_columns("lu_solve", factors, b, solve_fn)


def solve(a, b, lower: bool = False, overwrite_a: bool = False, overwrite_b: bool = False,
          debug: bool = False, check_finite: bool = True, assume_a: str = "gen"):
    """x with a x = b: by LU with partial pivoting (`assume_a` "gen", "sym" or "her"),
    or by Cholesky of a's `lower` (else upper) triangle for "pos".

    >>> from jaxwg.scipy.linalg import solve
    >>> import jaxwg.numpy as jnp
    >>> solve(jnp.array([[4.0, 2.0], [2.0, 5.0]]), jnp.array([6.0, 7.0]), assume_a="pos").tolist()
    [1.0, 1.0]
    """
    valid = ["gen", "sym", "her", "pos"]
    if assume_a not in valid:
        raise ValueError(f"Expected assume_a to be one of {valid}; got {assume_a!r}")
    if assume_a != "pos":
        return np_linalg.solve(a, b)
    a, b = inexact_operands("solve", a, b)
    factors = cho_factor(a, lower=lower)
    if a.ndim == b.ndim + 1:
        return cho_solve(factors, b[..., None])[..., 0]
    return cho_solve(factors, b)


def inv(a, overwrite_a: bool = False, check_finite: bool = True):
    """The inverse of each square matrix in `a` (`jnp.linalg.inv`).

    >>> from jaxwg.scipy.linalg import inv
    >>> import jaxwg.numpy as jnp
    >>> inv(jnp.array([[2.0, 0.0], [0.0, 4.0]])).tolist()
    [[0.5, 0.0], [0.0, 0.25]]
    """
    return np_linalg.inv(a)


def det(a, overwrite_a: bool = False, check_finite: bool = True):
    """The determinant of each square matrix in `a` (`jnp.linalg.det`).

    >>> from jaxwg.scipy.linalg import det
    >>> import jaxwg.numpy as jnp
    >>> det(jnp.array([[2.0, 0.0], [0.0, 4.0]])).item()
    8.0
    """
    return np_linalg.det(a)


def qr(a, overwrite_a: bool = False, lwork=None, mode: str = "full", pivoting: bool = False,
       check_finite: bool = True):
    """(q, r) with q r = a by Householder reflections (LAPACK's signs): `mode` "full" (q
    square), "economic" (q of shape (m, k), k = min(m, n)) or "r" (the tuple (r,), r of
    shape (m, n)). With `pivoting`, LAPACK's column pivoting (geqp3): q r = a[:, p], and
    p (int32) is appended: (q, r, p), or (r, p) for mode "r".

    >>> from jaxwg.scipy.linalg import qr
    >>> import jaxwg.numpy as jnp
    >>> qr(jnp.array([[3.0], [4.0]]), mode="r")[0].tolist()
    [[-5.0], [0.0]]
    >>> r, p = qr(jnp.array([[0.0, 3.0], [1.0, 4.0]]), mode="r", pivoting=True)
    >>> r[0, 0].item(), p.tolist()
    (-5.0, [1, 0])
    """
    if mode not in ("full", "r", "economic"):
        raise ValueError(f"Unsupported QR decomposition mode '{mode}'")
    (a,) = promote(jnp.asarray(a), to_inexact=True)
    q, r, *p = lax_linalg.qr(a, pivoting=pivoting, full_matrices=mode != "economic")
    return (r, *p) if mode == "r" else (q, r, *p)


def qr_multiply(a, c, mode: str = "right", pivoting: bool = False, conjugate: bool = False,
                overwrite_a: bool = False, overwrite_c: bool = False):
    """(Q c, R) (`mode` "left") or (c Q, R) ("right"), with Q (m, k) and R (k, n) the
    economic QR of `a` (k = min(m, n)); conj(Q) with `conjugate`; LAPACK's column
    pivoting with `pivoting` (P appended, as `qr`'s). A 1-D c is a column ("left") or
    a row ("right"), and the result is raveled. jaxwg forms Q, where JAX applies the
    reflectors (ormqr): equal up to rounding.

    >>> from jaxwg.scipy.linalg import qr_multiply
    >>> import jaxwg.numpy as jnp
    >>> cq, r = qr_multiply(jnp.array([[3.0], [4.0]]), jnp.array([3.0, 4.0]))
    >>> cq.round(4).tolist(), r.tolist()
    ([-5.0], [[-5.0]])
    """
    a, c = promote(jnp.asarray(a), jnp.asarray(c), to_inexact=True)
    if mode not in ("right", "left"):
        raise ValueError(f"mode must be 'right' or 'left', got {mode!r}")
    onedim = c.ndim == 1
    if onedim:
        c = c[:, None] if mode == "left" else c[None, :]
    m, n = a.shape[-2:]
    k = min(m, n)
    if mode == "left" and c.shape[-2] != k:
        raise ValueError(f"Array shapes are not compatible for Q @ c operation: a has shape {tuple(a.shape)} "
                         f"so Q has {k} columns, but c has {c.shape[-2]} rows (expected {k}).")
    if mode == "right" and c.shape[-1] != m:
        raise ValueError(f"Array shapes are not compatible for c @ Q operation: a has shape {tuple(a.shape)} "
                         f"so Q has {m} rows, but c has {c.shape[-1]} columns (expected {m}).")
    batch = np.broadcast_shapes(a.shape[:-2], c.shape[:-2])
    a, c = jnp.broadcast_to(a, (*batch, m, n)), jnp.broadcast_to(c, (*batch, *c.shape[-2:]))
    q, r, *p = lax_linalg.qr(a, pivoting=pivoting, full_matrices=False)
    if conjugate:
        q = jnp.conj(q)
    cq = jnp.matmul(q, c) if mode == "left" else jnp.matmul(c, q)
    return (jnp.ravel(cq) if onedim else cq, r, *p)


def svd(a, full_matrices: bool = True, compute_uv: bool = True, overwrite_a: bool = False,
        check_finite: bool = True, lapack_driver: str = "gesdd"):
    """(u, s, vh) with a = u diag(s) vh, s descending (`jnp.linalg.svd`); s alone where
    `compute_uv` is False.

    >>> from jaxwg.scipy.linalg import svd
    >>> import jaxwg.numpy as jnp
    >>> svd(jnp.array([[0.0, 2.0], [1.0, 0.0]]), compute_uv=False).tolist()
    [2.0, 1.0]
    """
    (a,) = inexact_operands("svd", a)
    return lax_linalg.svd(a, full_matrices=full_matrices, compute_uv=compute_uv)


def eigh(a, b=None, lower: bool = True, eigvals_only: bool = False, overwrite_a: bool = False,
         overwrite_b: bool = False, turbo: bool = True, eigvals=None, type: int = 1,
         check_finite: bool = True):
    """(w, v): the eigenvalues (ascending) and eigenvectors (columns) of each Hermitian
    matrix in `a` (symmetrized first, as JAX's), or w alone with `eigvals_only`. As in
    JAX, only the standard problem (b None, type 1, all eigenvalues).

    >>> from jaxwg.scipy.linalg import eigh
    >>> import jaxwg.numpy as jnp
    >>> eigh(jnp.array([[2.0, 0.0], [0.0, 1.0]]), eigvals_only=True).tolist()
    [1.0, 2.0]
    """
    if b is not None:
        raise NotImplementedError("Only the b=None case of eigh is implemented")
    if type != 1:
        raise NotImplementedError("Only the type=1 case of eigh is implemented.")
    if eigvals is not None:
        raise NotImplementedError("Only the eigvals=None case of eigh is implemented.")
    (a,) = inexact_operands("eigh", a)
    v, w = lax_linalg.eigh(a, lower=lower)
    return w if eigvals_only else (w, v)


def eigh_tridiagonal(d, e, *, eigvals_only: bool = False, select: str = "a", select_range=None,
                     tol=None, key=None):
    """The eigenvalues (ascending) of the symmetric (Hermitian) tridiagonal matrix of
    diagonal `d` and off-diagonal `e`, by bisection on Sturm sequences, as JAX's;
    `select="i"` with `select_range=(lo, hi)` gives eigenvalues lo to hi. The
    eigenvectors (without `eigvals_only`) are those of the dense matrix by `eigh`, where
    JAX uses inverse iteration from random vectors (`key`): equal up to sign.

    >>> from jaxwg.scipy.linalg import eigh_tridiagonal
    >>> import jaxwg.numpy as jnp
    >>> [round(x, 5) for x in eigh_tridiagonal(jnp.array([2.0, 2.0]), jnp.array([1.0]),
    ...                                        eigvals_only=True).tolist()]
    [1.0, 3.0]
    """
    alpha, beta = jnp.asarray(d), jnp.asarray(e)
    if alpha.dtype != beta.dtype:
        raise TypeError("diagonal and off-diagonal values must have same dtype, "
                        f"got {alpha.dtype} and {beta.dtype}")
    if alpha.dtype.name not in ("float32", "float64", "complex64", "complex128"):
        raise TypeError("Only float32 and float64 inputs are supported as inputs to "
                        f"jax.scipy.linalg.eigh_tridiagonal, got {alpha.dtype} and {beta.dtype}")
    n = alpha.shape[0]
    if n <= 1:
        return jnp.real(alpha) if eigvals_only else (jnp.real(alpha), jnp.eye(n, dtype=alpha.dtype))
    if select == "a":
        targets = np.arange(n, dtype=np.int32)
    elif select == "i":
        if select_range is None:
            raise ValueError("for select='i', select_range must be specified.")
        if select_range[0] > select_range[1]:
            raise ValueError("Got empty index range in select_range.")
        targets = np.arange(select_range[0], select_range[1] + 1, dtype=np.int32)
    elif select == "v":
        raise NotImplementedError("eigh_tridiagonal(..., select='v') is not implemented")
    else:
        raise ValueError("'select must have a value in {'a', 'i', 'v'}.")
    w = _bisection(alpha, beta, jnp.asarray(targets), tol)
    if eigvals_only:
        return w
    # the eigenvectors of the dense matrix (Jacobi), where JAX runs inverse iteration from
    # random vectors: the same up to sign (each column's sign is arbitrary in both)
    dense = jnp.diag(alpha) + jnp.diag(jnp.conj(beta), -1) + jnp.diag(beta, 1)  # JAX's: e above
    return w, np_linalg.eigh(dense).eigenvectors[:, targets]


@jit
def _bisection(alpha, beta, targets, tol):
    """JAX's bisection: all eigenvalues at once, each interval halved by the count of
    eigenvalues below its midpoint (the negative pivots of an LDL^T of T - x)."""
    if jnp.iscomplexobj(alpha):
        alpha, beta_sq = jnp.real(alpha), jnp.real(beta * jnp.conj(beta))
        beta_abs = jnp.sqrt(beta_sq)
    else:
        beta_abs, beta_sq = jnp.abs(beta), beta * beta
    n = alpha.shape[0]
    rows_sum = jnp.concatenate([beta_abs[:1], beta_abs[:-1] + beta_abs[1:], beta_abs[-1:]])
    top, bottom = jnp.max(alpha + rows_sum), jnp.min(alpha - rows_sum)
    t_norm = jnp.maximum(jnp.abs(bottom), jnp.abs(top))
    finfo = np.finfo(alpha.dtype)
    one = np.ones([], alpha.dtype)
    safemin = np.maximum(one / finfo.max, (one + finfo.eps) * finfo.tiny)
    pivmin = safemin * jnp.maximum(1, jnp.max(beta_sq))
    perturbation = jnp.square(finfo.eps * beta_abs[0])
    abs_tol = finfo.eps * t_norm
    if tol is not None:
        abs_tol = jnp.maximum(tol, abs_tol)
    fudge = 2.1
    slack = n * fudge * finfo.eps * t_norm
    lower = jnp.broadcast_to(bottom - slack - 2 * fudge * pivmin, targets.shape)
    upper = jnp.broadcast_to(top + slack + fudge * pivmin, targets.shape)

    def sturm(x):
        q = alpha[0] - x
        count = jnp.where(q < 0, 1, 0).astype(jnp.int32)
        q = jnp.where(alpha[0] == x, perturbation, q)

        def step(i, qc):
            q, count = qc
            q = jnp.take(alpha, i) - jnp.take(beta_sq, i - 1) / q - x
            negative = q <= pivmin
            return jnp.where(negative, jnp.minimum(q, -pivmin), q), jnp.where(negative, count + 1, count)

        return lax.fori_loop(1, n, step, (q, count))[1]

    def unconverged(state):
        i, lower, _, upper = state
        return (i < finfo.nmant + 1) & (abs_tol < jnp.max(upper - lower))

    def body(state):
        i, lower, mid, upper = state
        counts = sturm(mid)
        lower = jnp.where(counts <= targets, mid, lower)
        upper = jnp.where(counts > targets, mid, upper)
        return i + 1, lower, 0.5 * (lower + upper), upper

    start = (jnp.zeros((), jnp.int32), lower, 0.5 * (upper + lower), upper)
    return lax.while_loop(unconverged, body, start)[2]


# -- the matrix exponential ------------------------------------------------------------------

_PADE = {3: (120., 60., 12., 1.),
         5: (30240., 15120., 3360., 420., 30., 1.),
         7: (17297280., 8648640., 1995840., 277200., 25200., 1512., 56., 1.),
         9: (17643225600., 8821612800., 2075673600., 302702400., 30270240., 2162160., 110880., 3960.,
             90., 1.),
         13: (64764752532480000., 32382376266240000., 7771770303897600., 1187353796428800.,
              129060195264000., 10559470521600., 670442572800., 33522128640., 1323241920., 40840800.,
              960960., 16380., 182., 1.)}


# (the largest 1-norm without squaring, the 1-norms that pick each order, the orders) by
# precision: Higham's (2005) thetas, as JAX's
_PADE_CHOICE = {
    True: (5.371920351148152, [1.495585217958292e-002, 2.539398330063230e-001, 9.504178996162932e-001,
                               2.097847961257068e+000], (3, 5, 7, 9, 13)),
    False: (3.925724783138660, [4.258730016922831e-001, 1.880152677804762e+000], (3, 5, 7)),
}


def _pade(order: int):
    """(U, V) of the [order/order] Pade approximant of exp (numerator U + V, denominator
    V - U), in JAX's (Higham's) evaluation order."""
    b = _PADE[order]

    def pade(a):
        ident = jnp.eye(a.shape[0], dtype=a.dtype)
        a2 = jnp.matmul(a, a)
        powers = [ident, a2]  # A^0, A^2, A^4, ...: A^(2k) = A^(2k-2) A^2
        while len(powers) < (4 if order == 13 else order // 2 + 1):
            powers.append(jnp.matmul(powers[-1], a2))
        if order == 13:
            _, a2, a4, a6 = powers
            u = jnp.matmul(a, jnp.matmul(a6, b[13] * a6 + b[11] * a4 + b[9] * a2)
                           + b[7] * a6 + b[5] * a4 + b[3] * a2 + b[1] * ident)
            v = (jnp.matmul(a6, b[12] * a6 + b[10] * a4 + b[8] * a2) + b[6] * a6 + b[4] * a4 + b[2] * a2
                 + b[0] * ident)
            return u, v
        descending = list(enumerate(powers))[::-1]
        u = jnp.matmul(a, functools.reduce(jnp.add, [b[2 * k + 1] * p for k, p in descending]))
        v = functools.reduce(jnp.add, [b[2 * k] * p for k, p in descending])
        return u, v

    return pade


def _expm_2d(a, upper_triangular: bool, max_squarings: int):
    # the 1-norm picks the Pade order and the squarings: no derivative flows through it
    norm = lax.stop_gradient(jnp.max(jnp.sum(jnp.abs(a), axis=0)))
    maxnorm, conds, orders = _PADE_CHOICE[np.finfo(a.dtype).bits == 64]
    squarings = jnp.maximum(0, jnp.floor(jnp.log2(norm / maxnorm)))
    a = a / (2 ** squarings).astype(a.dtype)
    index = sum((norm >= c).astype(jnp.int32) for c in conds)  # digitize, without a constant array
    u, v = lax.switch(index, [_pade(k) for k in orders], a)
    p, q = u + v, v - u
    r = solve_triangular(q, p) if upper_triangular else np_linalg.solve(q, p)

    # squared `squarings` times: a loop of `max_squarings` steps, each kept where needed
    # (JAX's lax.cond inside a scan; a select differentiates through jaxwg's scan)
    r = lax.fori_loop(0, max_squarings, lambda i, x: jnp.where(i < squarings, jnp.matmul(x, x), x), r)
    return jnp.where(squarings > max_squarings, jnp.nan, r)


@functools.partial(jit, static_argnames=("upper_triangular", "max_squarings"))
def _expm(a, upper_triangular: bool, max_squarings: int):
    return jnp.vectorize(functools.partial(_expm_2d, upper_triangular=upper_triangular,
                                           max_squarings=max_squarings), signature="(n,n)->(n,n)")(a)


def expm(A, *, upper_triangular: bool = False, max_squarings: int = 16):
    """The matrix exponential of each square matrix in `A`: a Pade approximant of A /
    2^s, squared s times (Higham's scaling and squaring, as JAX's; NaN where s would
    exceed `max_squarings`). `upper_triangular` solves the Pade quotient by a
    triangular solve.

    >>> from jaxwg.scipy.linalg import expm
    >>> import jaxwg.numpy as jnp
    >>> expm(jnp.zeros((2, 2))).tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """
    (A,) = inexact_operands("expm", A)
    if A.ndim < 2 or A.shape[-1] != A.shape[-2]:
        raise ValueError(f"Expected A to be a (batched) square matrix, got A.shape={A.shape}.")
    if A.shape[-1] == 0:
        return A
    return _expm(A, upper_triangular, max_squarings)


def expm_frechet(A, E, *, method=None, compute_expm: bool = True):
    """(expm(A), L(A, E)): the matrix exponential and its Frechet derivative at A in the
    direction E (the JVP of `expm`, as JAX's); L alone without `compute_expm`.

    >>> from jaxwg.scipy.linalg import expm_frechet
    >>> import jaxwg.numpy as jnp
    >>> expm_frechet(jnp.zeros((1, 1)), jnp.ones((1, 1)), compute_expm=False).tolist()
    [[1.0]]
    """
    A, E = jnp.asarray(A), jnp.asarray(E)
    if A.ndim < 2 or A.shape[-2] != A.shape[-1]:
        raise ValueError(f"expected A to be a (batched) square matrix, got A.shape={A.shape}")
    if E.ndim < 2 or E.shape[-2] != E.shape[-1]:
        raise ValueError(f"expected E to be a (batched) square matrix, got E.shape={E.shape}")
    if A.shape != E.shape:
        raise ValueError(f"expected A and E to be the same shape, got A.shape={A.shape} E.shape={E.shape}")
    value, derivative = jvp(functools.partial(expm, upper_triangular=False, max_squarings=16), (A,), (E,))
    return (value, derivative) if compute_expm else derivative


def polar(a, side: str = "right", *, method: str = "qdwh", eps=None, max_iterations=None):
    """(u, p) with a = u p (`side` "right", p (n, n) Hermitian positive semidefinite) or
    a = p u ("left", p (m, m)), u with orthonormal columns (rows). jaxwg computes both
    methods ("qdwh", JAX's default, and "svd") from the SVD: u = U Vh.

    >>> from jaxwg.scipy.linalg import polar
    >>> import jaxwg.numpy as jnp
    >>> u, p = polar(jnp.array([[-2.0, 0.0], [0.0, 3.0]]))
    >>> u.tolist(), p.tolist()
    ([[-1.0, 0.0], [0.0, 1.0]], [[2.0, 0.0], [0.0, 3.0]])
    """
    a = jnp.asarray(a)
    if a.ndim < 2:
        raise ValueError("The input `a` must be at least a 2-D array.")
    if side not in ["right", "left"]:
        raise ValueError("The argument `side` must be either 'right' or 'left'.")
    m, n = a.shape[-2:]
    if method == "qdwh":
        if not ((m >= n and side == "right") or (m < n and side == "left")):
            raise NotImplementedError("method='qdwh' only supports mxn matrices where m < n where "
                                      "side='right' and m >= n side='left', got "
                                      f"{a.shape} with side='{side}'")
    elif method != "svd":
        raise ValueError(f"Unknown polar decomposition method {method}.")
    (a,) = inexact_operands("polar", a)
    u, s, vh = np_linalg.svd(a, full_matrices=False)
    s = s.astype(u.dtype)
    unitary = jnp.matmul(u, vh)
    if side == "right":
        return unitary, jnp.matmul(np_linalg._h(vh) * s[..., None, :], vh)
    return unitary, jnp.matmul(u * s[..., None, :], np_linalg._h(u))
