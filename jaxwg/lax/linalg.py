"""`jaxwg.lax.linalg`: JAX's `lax.linalg` factorizations (`cholesky`, `eigh`, `lu`, `qr`,
`svd`) and solvers (`triangular_solve`, `tridiagonal_solve`), with JAX's result order
(`eigh` returns the eigenvectors first). They are the loops of `jaxwg.numpy.linalg`
(imported when first called: jaxwg.numpy builds on jaxwg.lax), each in a `jit`; leading
axes batch.

>>> import jaxwg.numpy as jnp
>>> from jaxwg.lax import linalg
>>> linalg.cholesky(jnp.array([[4.0, 2.0], [2.0, 5.0]])).tolist()
[[2.0, 0.0], [1.0, 2.0]]
"""

from __future__ import annotations

import functools

import numpy as np

from ..frontend.jit import jit
from . import control_flow

__all__ = ["cholesky", "eigh", "hessenberg", "householder_product", "lu", "lu_pivots_to_permutation", "qr",
           "schur", "svd", "triangular_solve", "tridiagonal_solve"]


def _modules():
    """(jaxwg.numpy, jaxwg.numpy.linalg), imported at call time (they import jaxwg.lax)."""
    from .. import numpy as jnp
    from ..numpy import linalg as np_linalg
    return jnp, np_linalg


def _inexact(name: str, *xs):
    from ..numpy._util import inexact_operands
    return inexact_operands(name, *xs)


def _floating(name: str, *xs, ranks=()):
    """`xs` as arrays of one float or complex dtype, as JAX's lax.linalg requires (a
    TypeError otherwise), each of at least the rank in `ranks`."""
    jnp, _ = _modules()
    from ..numpy._util import check_arraylike
    check_arraylike(name, *xs)
    xs = [jnp.asarray(x) for x in xs]
    for i, x in enumerate(xs):
        if not jnp.issubdtype(x.dtype, jnp.inexact):
            raise TypeError(f"{name} does not accept dtype {x.dtype} at position {i}. Accepted dtypes at "
                            f"position {i} are subtypes of floating, complexfloating.")
        if i < len(ranks) and x.ndim < ranks[i]:
            raise TypeError(f"Input {i} to {name} must have rank at least {ranks[i]}, but got "
                            f"shape={x.shape}")
    if len({x.dtype for x in xs}) > 1:
        raise TypeError(f"lax.{name} requires arguments to have the same dtypes, got "
                        f"{', '.join(str(x.dtype) for x in xs)}.")
    return xs


def _square(name: str, x, symmetrized: bool):
    """`x` promoted to inexact, (..., n, n): a TypeError where JAX symmetrizes first (its
    x + x^H fails), else a ValueError."""
    (x,) = _inexact(name, x)
    if x.ndim < 2 or x.shape[-1] != x.shape[-2]:
        error = TypeError if symmetrized else ValueError
        raise error(f"{name}: argument must have shape [..., n, n], got {x.shape}")
    return x


def cholesky(x, *, symmetrize_input: bool = True):
    """The lower Cholesky factor L (L @ L^H = x) of each Hermitian positive definite
    matrix in `x`, reading x's lower triangle where `symmetrize_input` is False; NaN on
    and below the diagonal where x is not positive definite, as JAX's.

    >>> from jaxwg.lax.linalg import cholesky
    >>> import jaxwg.numpy as jnp
    >>> cholesky(jnp.array([[9.0, 0.0], [3.0, 4.0]]), symmetrize_input=False).tolist()
    [[3.0, 0.0], [1.0, 1.7320507764816284]]
    """
    jnp, np_linalg = _modules()
    x = _square("cholesky", x, symmetrize_input)
    if symmetrize_input:
        x = np_linalg._symmetrized(x)
    return jnp.tril(np_linalg._cholesky_factor(x))  # JAX's failures are NaN below the diagonal only


def eigh(x, *, lower: bool = True, symmetrize_input: bool = True, sort_eigenvalues: bool = True,
         subset_by_index=None, implementation=None):
    """(v, w): the eigenvectors (columns) and eigenvalues (ascending) of each Hermitian
    matrix in `x`, in JAX's order (vectors first). Without `symmetrize_input` only the
    `lower` (else upper) triangle is read. `subset_by_index=(lo, hi)` keeps eigenvalues
    lo to hi - 1. The eigenvalues are always sorted (Jacobi rotations).

    >>> from jaxwg.lax.linalg import eigh
    >>> import jaxwg.numpy as jnp
    >>> v, w = eigh(jnp.array([[2.0, 0.0], [0.0, 1.0]]))
    >>> w.tolist(), v.tolist()
    ([1.0, 2.0], [[0.0, 1.0], [1.0, 0.0]])
    """
    _, np_linalg = _modules()
    x = _square("eigh", x, symmetrize_input)
    w, v = np_linalg.eigh(x, UPLO="L" if lower else "U", symmetrize_input=symmetrize_input)
    if subset_by_index is not None:
        lo, hi = subset_by_index
        w, v = w[..., lo:hi], v[..., lo:hi]
    return v, w


@jit
def _pivots(perm):
    """LAPACK's pivots (row k swapped with row pivots[k] at step k) of the permutation
    `perm` (row k of P a is row perm[k] of a) that LU's row swaps made."""
    jnp, _ = _modules()
    n = perm.shape[-1]
    rows = jnp.arange(n)

    def step(k, carry):
        current, pivots = carry
        # step k brought perm[k] to row k from where it stood after steps 0 .. k-1
        target = jnp.take(perm, k, axis=-1)[..., None]
        p = jnp.argmax(current == target, axis=-1)
        at_k = jnp.take(current, k, axis=-1)[..., None]
        current = jnp.where(rows == k, target, jnp.where(rows == p[..., None], at_k, current))
        return current, jnp.where(rows == k, p[..., None], pivots)

    start = (jnp.broadcast_to(rows, perm.shape), jnp.zeros(perm.shape, perm.dtype))
    return control_flow.fori_loop(0, n, step, start)[1] if n else start[1]


def lu(x):
    """(lu, pivots, permutation) of each (m, n) matrix in `x` (LU with partial
    pivoting): L (m x k, unit diagonal, k = min(m, n)) below lu's diagonal, U (k x n) on
    and above it, LAPACK's k pivots (int32) and the permutation (int32, m entries) with
    x[permutation] = L U.

    >>> from jaxwg.lax.linalg import lu
    >>> import jaxwg.numpy as jnp
    >>> lu_, pivots, perm = lu(jnp.array([[1.0, 2.0], [4.0, 4.0]]))
    >>> lu_.tolist(), pivots.tolist(), perm.tolist()
    ([[4.0, 4.0], [0.25, 1.0]], [1, 1], [1, 0])
    """
    jnp, np_linalg = _modules()
    (x,) = _floating("lu", x, ranks=(2,))
    factors, perm, _ = np_linalg._lu(x)
    perm = perm.astype(jnp.int32)
    return factors, _pivots(perm)[..., :min(x.shape[-2:])], perm


def lu_pivots_to_permutation(pivots, permutation_size: int):
    """The permutation (int32) that LAPACK's `pivots` (swap row k with row pivots[k],
    for k in order) make of range(permutation_size); leading axes batch.

    >>> from jaxwg.lax.linalg import lu_pivots_to_permutation
    >>> import jaxwg.numpy as jnp
    >>> lu_pivots_to_permutation(jnp.array([2, 2, 2], jnp.int32), 4).tolist()
    [2, 0, 1, 3]
    """
    jnp, _ = _modules()
    pivots = jnp.asarray(pivots)
    if not jnp.issubdtype(pivots.dtype, jnp.integer):
        raise TypeError(f"lu_pivots_to_permutation does not accept dtype {pivots.dtype} at position 0. "
                        "Accepted dtypes at position 0 are subtypes of integer.")
    if pivots.ndim < 1:
        raise TypeError(f"Input 0 to lu_pivots_to_permutation must have rank at least 1, but got "
                        f"shape={pivots.shape}")
    if pivots.shape[-1] > permutation_size:
        raise ValueError(f"Output permutation size {permutation_size} has to exceed the trailing dimension "
                         f"of the pivots. Got pivots size {pivots.shape[-1]}")
    return _permutation(pivots.astype(jnp.int32), permutation_size)


@functools.partial(jit, static_argnames="size")
def _permutation(pivots, size: int):
    jnp, _ = _modules()
    rows = jnp.arange(size, dtype=jnp.int32)

    def step(k, perm):
        p = jnp.take(pivots, k, axis=-1)[..., None]
        at_k = jnp.take(perm, k, axis=-1)[..., None]
        at_p = jnp.take_along_axis(perm, p, axis=-1)
        return jnp.where(rows == k, at_p, jnp.where(rows == p, at_k, perm))

    start = jnp.broadcast_to(rows, (*pivots.shape[:-1], size))
    k = pivots.shape[-1]
    return control_flow.fori_loop(0, k, step, start) if k else start


def qr(x, *, pivoting: bool = False, full_matrices: bool = True, use_magma=None):
    """(q, r) with q r = x, q unitary and r upper triangular (Householder, LAPACK's
    signs); `full_matrices=False` gives q of shape (m, k), k = min(m, n). With
    `pivoting`, (q, r, p): q r = x[..., p] with LAPACK's (geqp3's) column pivoting,
    p int32 (r's diagonal non-increasing in magnitude).

    >>> from jaxwg.lax.linalg import qr
    >>> import jaxwg.numpy as jnp
    >>> q, r = qr(jnp.array([[3.0], [4.0]]))
    >>> q.shape, r.tolist()
    ((2, 2), [[-5.0], [0.0]])
    """
    _, np_linalg = _modules()
    (x,) = _floating("qr", x, ranks=(2,))
    q, r, p = np_linalg._qr(x, "complete" if full_matrices else "reduced", pivoting)
    return (q, r, p) if pivoting else (q, r)


def svd(x, *, full_matrices: bool = True, compute_uv: bool = True, subset_by_index=None,
        algorithm=None):
    """(u, s, vh) with x = u diag(s) vh, s descending (one-sided Jacobi); `s` alone
    where `compute_uv` is False.

    >>> from jaxwg.lax.linalg import svd
    >>> import jaxwg.numpy as jnp
    >>> svd(jnp.array([[0.0, 2.0], [1.0, 0.0]]), compute_uv=False).tolist()
    [2.0, 1.0]
    """
    jnp, _ = _modules()
    (x,) = _floating("svd", x, ranks=(2,))
    result = jnp.linalg.svd(x, full_matrices=full_matrices, compute_uv=compute_uv)
    if subset_by_index is not None:
        lo, hi = subset_by_index
        if not compute_uv:
            return result[..., lo:hi]
        u, s, vh = result
        return u[..., lo:hi], s[..., lo:hi], vh[..., lo:hi, :]
    return result if not compute_uv else tuple(result)


def triangular_solve(a, b, *, left_side: bool = False, lower: bool = False, transpose_a: bool = False,
                     conjugate_a: bool = False, unit_diagonal: bool = False):
    """x with op(a) x = b (`left_side`) or x op(a) = b, op(a) being a, its transpose
    (`transpose_a`) and/or conjugate (`conjugate_a`), reading only the `lower` (else
    upper) triangle of `a` (and not its diagonal with `unit_diagonal`). `a` is (..., m, m)
    and `b` (..., m, n) (left) or (..., n, m).

    >>> from jaxwg.lax.linalg import triangular_solve
    >>> import jaxwg.numpy as jnp
    >>> a = jnp.array([[2.0, 0.0], [1.0, 1.0]])
    >>> triangular_solve(a, jnp.array([[2.0], [3.0]]), left_side=True, lower=True).tolist()
    [[1.0], [2.0]]
    """
    jnp, np_linalg = _modules()
    a, b = _floating("triangular_solve", a, b, ranks=(2, 1))
    m = a.shape[-1]
    if b.ndim == a.ndim - 1:  # a batch of vectors
        b = b[..., :, None] if left_side else b[..., None, :]
        x = triangular_solve(a, b, left_side=left_side, lower=lower, transpose_a=transpose_a,
                             conjugate_a=conjugate_a, unit_diagonal=unit_diagonal)
        return x[..., 0] if left_side else x[..., 0, :]
    if a.shape[-2] != m or b.ndim < 2 or b.shape[-2 if left_side else -1] != m:
        raise ValueError(f"Incompatible shapes for arguments to triangular_solve: {a.shape} and {b.shape}.")
    if conjugate_a:
        a = jnp.conj(a)
    # x a' = b is a'^T x^T = b^T: one more transpose of a, and of b and x
    if transpose_a != (not left_side):
        a, lower = np_linalg.matrix_transpose(a), not lower
    if not left_side:
        b = np_linalg.matrix_transpose(b)
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    a = jnp.broadcast_to(a, (*batch, m, m))
    b = jnp.broadcast_to(b, (*batch, *b.shape[-2:]))
    x = np_linalg._triangular_solve(a, b, lower=lower, unit_diagonal=unit_diagonal)
    return x if left_side else np_linalg.matrix_transpose(x)


def tridiagonal_solve(dl, d, du, b, *, perturb_singular: bool = False):
    """x with T x = b for the tridiagonal T of sub-diagonal `dl` (dl[0] unused), diagonal
    `d` and super-diagonal `du` (du[-1] unused), each (..., m), and b of shape
    (..., m, n). T is assembled and solved by LU with partial pivoting (`jnp.linalg`'s):
    O(m^3), where LAPACK's gtsv pivots within the band in O(m), but right for every
    nonsingular T. With `perturb_singular`, a singular T is solved by Thomas's
    algorithm with zero pivots replaced by eps max|d|, as JAX perturbs them.

    >>> from jaxwg.lax.linalg import tridiagonal_solve
    >>> import jaxwg.numpy as jnp
    >>> tridiagonal_solve(jnp.array([0.0, 1.0]), jnp.array([2.0, 2.0]), jnp.array([1.0, 0.0]),
    ...                   jnp.array([[3.0], [3.0]])).tolist()
    [[1.0], [1.0]]
    """
    dl, d, du, b = _floating("tridiagonal_solve", dl, d, du, b, ranks=(1, 1, 1, 2))
    if not dl.shape == d.shape == du.shape:
        raise TypeError("tridiagonal_solve requires that all diagonal arguments have the same shape.")
    if b.shape[:-1] != d.shape:
        raise TypeError("tridiagonal_solve requires that the leading ndim-1 dimensions of b equal the "
                        "dimensions of the diagonal arguments.")
    return _tridiagonal_solve(dl, d, du, b, perturb_singular)


@functools.partial(jit, static_argnames="perturb")
def _tridiagonal_solve(dl, d, du, b, perturb: bool):
    jnp, np_linalg = _modules()
    m = d.shape[-1]
    if m == 0:
        return b
    dense = (_diagonal_matrix(d, 0) + _diagonal_matrix(dl[..., 1:], -1)
             + _diagonal_matrix(du[..., :-1], 1))
    x = np_linalg.solve(dense, b)
    if not perturb:
        return x
    singular = ~jnp.all(jnp.isfinite(x), axis=(-2, -1), keepdims=True)
    return jnp.where(singular, _thomas(dl, d, du, b, True), x)


def _diagonal_matrix(v, k: int):
    """Matrices with `v` (..., m - |k|) on their k-th diagonal (batched `jnp.diag`)."""
    jnp, _ = _modules()
    n = v.shape[-1] + abs(k)
    rows, cols = jnp.arange(n)[:, None], jnp.arange(n)[None, :]
    picked = jnp.take(v, jnp.clip(jnp.minimum(rows, cols), 0, max(v.shape[-1] - 1, 0)), axis=-1)
    return jnp.where(cols - rows == k, picked, 0).astype(v.dtype)


def _thomas(dl, d, du, b, perturb: bool):
    jnp, _ = _modules()
    m = d.shape[-1]
    if m == 0:
        return b
    rows = jnp.arange(m)
    tiny = np.finfo(np.finfo(d.dtype).dtype).eps * jnp.max(jnp.abs(d), axis=-1, keepdims=True)

    def forward(i, carry):  # eliminate the sub-diagonal: c' and b' of each row
        c, x = carry
        c_prev = jnp.where(i > 0, jnp.take(c, jnp.maximum(i - 1, 0), axis=-1), 0)
        x_prev = jnp.where(i > 0, jnp.take(x, jnp.maximum(i - 1, 0), axis=-2), 0)
        a_i = jnp.take(dl, i, axis=-1)
        pivot = jnp.take(d, i, axis=-1) - a_i * c_prev
        if perturb:
            pivot = jnp.where(pivot == 0, tiny[..., 0], pivot)
        ci = jnp.take(du, i, axis=-1) / pivot
        xi = (jnp.take(x, i, axis=-2) - a_i[..., None] * x_prev) / pivot[..., None]
        return (jnp.where(rows == i, ci[..., None], c),
                jnp.where((rows == i)[:, None], xi[..., None, :], x))

    def backward(j, x):
        i = m - 2 - j
        xi = jnp.take(x, i, axis=-2) - jnp.take(c, i, axis=-1)[..., None] * jnp.take(x, i + 1, axis=-2)
        return jnp.where((rows == i)[:, None], xi[..., None, :], x)

    c, x = control_flow.fori_loop(0, m, forward, (jnp.zeros_like(d), b))
    return control_flow.fori_loop(0, m - 1, backward, x) if m > 1 else x


def householder_product(a, taus):
    """The first n columns of H_0 H_1 ... H_{k-1}, H_i = I - taus[i] v_i v_i^H, with v_i
    below a's diagonal in column i (v_i[i] = 1, zeros above): LAPACK's orgqr, the Q of
    a geqrf factorization.

    >>> from jaxwg.lax.linalg import householder_product
    >>> import jaxwg.numpy as jnp
    >>> householder_product(jnp.array([[0.0], [1.0]]), jnp.array([1.0])).tolist()
    [[0.0], [-1.0]]
    """
    jnp, np_linalg = _modules()
    a, taus = _floating("householder_product", a, taus)
    m, n = a.shape[-2:] if a.ndim >= 2 else (0, 1)
    k = taus.shape[-1] if taus.ndim else -1
    if a.ndim < 2 or m < n or not 0 <= k <= n or taus.shape[:-1] != a.shape[:-2]:
        raise ValueError(f"householder_product: a must be (..., m, n) with m >= n and taus (..., k) "
                         f"with k <= n, got {a.shape} and {taus.shape}")
    rows, cols = jnp.arange(m)[:, None], jnp.arange(k)[None, :]
    vs = jnp.where(rows > cols, a[..., :k], jnp.where(rows == cols, 1, 0).astype(a.dtype))
    return np_linalg._q_from_reflectors(vs, taus, n)


def schur(x, *, compute_schur_vectors: bool = True, sort_eig_vals: bool = False, select_callable=None):
    """(T, Q) with x = Q T Q^H for each square matrix in `x` (T alone without
    `compute_schur_vectors`): Q orthogonal (unitary), T upper triangular for complex x,
    quasi-upper-triangular for real x (2 x 2 diagonal blocks for complex eigenvalue
    pairs). Computed on the host (jaxwg.numpy.schur), as JAX runs LAPACK's gees on the
    CPU; not differentiable; NaNs for a matrix holding NaN or inf.

    >>> from jaxwg.lax.linalg import schur
    >>> import jaxwg.numpy as jnp
    >>> schur(jnp.array([[1.0, 2.0], [0.0, 3.0]]), compute_schur_vectors=False).tolist()
    [[1.0, 2.0], [0.0, 3.0]]
    """
    from ..numpy.schur import schur_factors
    if sort_eig_vals:
        raise NotImplementedError("The sort feature of LAPACK's gees routine is not implemented.")
    (x,) = _floating("schur", x, ranks=(2,))
    if x.shape[-1] != x.shape[-2]:
        raise ValueError(f"The input to schur must be a square matrix. Got shape {x.shape[-2:]}.")
    t, q = schur_factors(x)
    return (t, q) if compute_schur_vectors else t


def hessenberg(a):
    """(a_out, taus): LAPACK's gehrd of each square matrix in `a`, H = Q^H a Q with Q =
    H_0 ... H_{n-2}, H_i = I - taus[i] v_i v_i^H: the upper Hessenberg H on and above
    a_out's first subdiagonal, the reflectors v_i (v_i[i + 1] = 1) below it. Computed on
    the host (jaxwg.numpy.schur); not differentiable.

    >>> from jaxwg.lax.linalg import hessenberg
    >>> import jaxwg.numpy as jnp
    >>> a_out, taus = hessenberg(jnp.array([[1.0, 2.0], [3.0, 4.0]]))
    >>> a_out.tolist(), taus.tolist()
    ([[1.0, 2.0], [3.0, 4.0]], [0.0])
    """
    from ..numpy.schur import hessenberg_factors
    (a,) = _floating("hessenberg", a, ranks=(2,))
    if a.shape[-1] != a.shape[-2]:
        raise ValueError(f"Argument to Hessenberg reduction must have shape [..., n, n], got shape {a.shape}")
    if a.shape[-1] == 0:
        raise ValueError("hessenberg of an empty (0 x 0) matrix: LAPACK's gehrd needs n >= 1 (JAX fails too)")
    return hessenberg_factors(a)
