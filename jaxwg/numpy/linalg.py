"""`jaxwg.numpy.linalg`: dense linear algebra on the device, written with jaxwg's own ops.

Each factorization is a loop of vectorized steps (`lax.fori_loop` with a static trip
count) in a `jit` of its own, as in JAX: unrolled into one program, compiled on the first
call for a shape, with no read-back per step. Leading axes batch:

* LU with partial pivoting, one column a step (`solve`, `inv`, `det`, `slogdet`);
* Cholesky, one column a step (a matrix-vector product each);
* symmetric (Hermitian) eigenproblems by cyclic Jacobi rotations (`eigh`, `eigvalsh`):
  n/2 disjoint rotations at a time in a round-robin order, so a sweep of n - 1 steps
  meets every pair, and log2(n) + 5 sweeps (Jacobi converges quadratically: two sweeps
  to spare).
  Jacobi's eigenvalues are accurate to the precision of the matrix entries, not only of
  its norm;
* singular values by one-sided Jacobi (Hestenes: the same rotations on pairs of
  columns until all are orthogonal), U from a Householder QR of the result (`svd`,
  `svdvals`, `pinv`, `matrix_rank`, `cond`, the 2, -2 and nuclear norms);
* QR by Householder reflections, one column a step, with LAPACK's signs (`qr`).

Complex inputs (complex64; complex128 with x64) take the same paths, with conjugate
transposes where a real matrix has transposes (a conj of a real array is the array):
`cholesky` and `eigh` take Hermitian matrices, Jacobi's rotations are unitary (the real
rotation of |a_pq| times a_pq's phase) and the Householder reflections are LAPACK's
(R's diagonal real). Eigenvalues, singular values, norms and `slogdet`'s logabsdet are
real, as in JAX. Integer inputs compute in the default float type, as in JAX. Gradients
flow through the loops (JAX differentiates with closed-form rules: the values agree to
rounding, the jaxprs differ); `eigh` and `svd` have JAX's closed-form JVPs, complex ones
included.

>>> import jaxwg.numpy as jnp
>>> a = jnp.array([[4.0, 1.0], [2.0, 3.0]])
>>> [round(x, 5) for x in jnp.linalg.solve(a, jnp.array([1.0, 2.0])).tolist()]
[0.1, 0.6]
>>> round(float(jnp.linalg.det(a)), 5)
10.0
>>> complex(jnp.linalg.det(jnp.array([[1j, 0.0], [0.0, 2.0]])))
2j
"""

from __future__ import annotations

import functools
import math
from typing import NamedTuple

import numpy as np

from .. import lax
from .. import numpy as jnp  # this module is part of jaxwg.numpy, imported last
from ..frontend.jit import jit
from ..transforms.custom import custom_jvp
from ._util import check_arraylike, ensure_arraylike, promote
from .manipulation import matrix_transpose  # noqa: F401  (also jnp.linalg's)
from .products import vecdot  # noqa: F401  (the same in both namespaces, as in JAX)
from .ufuncs import abs_squared

__all__ = ["cholesky", "cond", "cross", "det", "diagonal", "eig", "eigh", "eigvals", "eigvalsh", "inv",
           "lstsq", "matmul", "matrix_norm", "matrix_power", "matrix_rank", "matrix_transpose",
           "multi_dot", "norm", "outer", "pinv", "qr", "slogdet", "solve", "svd", "svdvals",
           "tensordot", "tensorinv", "tensorsolve", "trace", "vecdot", "vector_norm"]


class EighResult(NamedTuple):
    eigenvalues: object
    eigenvectors: object


class SlogdetResult(NamedTuple):
    sign: object
    logabsdet: object


def _square(name: str, a, symmetrized: bool = False):
    """`a` as a batch of square float or complex matrices (ints promoted as JAX does).
    JAX's error for one that is not square is a TypeError where it symmetrizes the input
    first (its a + a.T fails), else a ValueError."""
    check_arraylike(f"jnp.linalg.{name}", a)
    (a,) = promote(a, to_inexact=True)
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        error = TypeError if symmetrized else ValueError
        raise error(f"Argument to {name} must have shape [..., n, n], got {a.shape}.")
    return a


def _rows(n: int):
    return jnp.arange(n)


def _h(a):
    """The conjugate transpose of each matrix in `a` (the transpose of a real one)."""
    return jnp.conj(matrix_transpose(a))


def _balanced(a):
    """(a / 2^e, 2^e) for each matrix of `a`, 2^e within a factor of two of its largest
    |entry| (1 for a zero or non-finite matrix): the factorizations sum squares of
    entries, which overflow float32 beyond about 1e19 and underflow below 1e-19; a power
    of two divides exactly. (float64 has no `frexp` on the device: exp2 of log2.)"""
    top = jnp.max(jnp.abs(a), axis=(-2, -1), keepdims=True, initial=0)
    scale = jnp.exp2(jnp.floor(jnp.log2(jnp.where(jnp.isfinite(top) & (top > 0), top, 1))))
    # each part times the reciprocal (exact): a complex product or quotient would turn
    # -0 - 1j into +0 - 1j, and R's signs follow the signs of zeros, as LAPACK's
    inverse = 1 / scale
    if jnp.iscomplexobj(a):
        return lax.complex(jnp.real(a) * inverse, jnp.imag(a) * inverse), scale
    return a * inverse, scale


def _real_dtype(a):
    """The real dtype of `a`'s precision (float32 for complex64 and float32): that of
    eigenvalues, singular values, norms and tolerances."""
    return np.finfo(a.dtype).dtype


# -- LU ----------------------------------------------------------------------------------------


@jit
def _lu(a):
    """(lu, perm, odd) with a[perm] = L U for (..., m, n) `a`: L (m x k, unit diagonal,
    k = min(m, n)) below lu's diagonal, U (k x n) on and above it, `odd` whether the
    permutation is odd. Step k moves the largest |entry| of column k at or below the
    diagonal into row k, then eliminates below it."""
    m, n = a.shape[-2:]
    rows, cols = _rows(m), _rows(n)
    below_k = lambda k: (rows > k)[:, None] & (cols == k)[None, :]  # noqa: E731

    def step(k, carry):
        lu, perm, odd = carry
        column = jnp.take(lu, k, axis=-1)
        p = jnp.argmax(jnp.where(rows >= k, jnp.abs(column), -1), axis=-1)  # (...)
        p_ = p[..., None]
        order = jnp.where(rows == k, p_, jnp.where(rows == p_, k, rows))  # swaps rows k and p
        lu = jnp.take_along_axis(lu, jnp.broadcast_to(order[..., :, None], lu.shape), axis=-2)
        perm = jnp.take_along_axis(perm, order, axis=-1)
        odd = odd ^ (p != k)
        column = jnp.take(lu, k, axis=-1)
        pivot = jnp.take(column, k, axis=-1)[..., None]
        # a zero pivot (a column of zeros) leaves the column unscaled, as LAPACK's getrf
        multipliers = jnp.where(rows > k, column / jnp.where(pivot == 0, 1, pivot), 0)
        pivot_row = jnp.where(cols > k, jnp.take(lu, k, axis=-2), 0)
        lu = lu - multipliers[..., :, None] * pivot_row[..., None, :]
        return jnp.where(below_k(k), multipliers[..., :, None], lu), perm, odd

    batch = a.shape[:-2]
    start = (a, jnp.broadcast_to(rows, (*batch, m)), jnp.zeros(batch, bool))
    return lax.fori_loop(0, min(m, n), step, start) if min(m, n) else start


@jit
def _lu_solve(lu, perm, b):
    """x with (P^T L U) x = b, for b of shape (..., n, m) (batch axes as lu's)."""
    b = jnp.take_along_axis(b, jnp.broadcast_to(perm[..., :, None], b.shape), axis=-2)
    y = _triangular_solve(lu, b, lower=True, unit_diagonal=True)  # L y = P b
    return _triangular_solve(lu, y, lower=False, unit_diagonal=False)  # U x = y


def solve(a, b):
    """The solution x of a @ x = b: `a` of shape (..., n, n), `b` of shape (n,) or
    (..., n, m) (batch axes broadcast). Singular `a` gives inf or NaN, as in JAX.

    >>> import jaxwg.numpy as jnp
    >>> jnp.linalg.solve(jnp.array([[2.0, 0.0], [0.0, 4.0]]), jnp.array([2.0, 2.0])).tolist()
    [1.0, 0.5]
    """
    check_arraylike("jnp.linalg.solve", a, b)
    a = _square("solve", a)
    a, b = promote(a, b, to_inexact=True)
    n = a.shape[-1]
    if b.ndim == 1:
        if b.shape[0] != n:
            raise ValueError(f"solve: b of shape {b.shape} does not match a of shape {a.shape}")
        return solve(a, b[:, None])[..., 0]
    if b.ndim < 2 or b.shape[-2] != n:
        raise ValueError(f"solve: b must have shape (n,) or (..., n, m) for a of shape {a.shape}, "
                         f"got {b.shape}")
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    a = jnp.broadcast_to(a, (*batch, n, n))
    b = jnp.broadcast_to(b, (*batch, *b.shape[-2:]))
    lu, perm, _ = _lu(a)
    return _lu_solve(lu, perm, b)


def inv(a):
    """The inverse of each square matrix in `a` (inf or NaN where singular).

    >>> import jaxwg.numpy as jnp
    >>> jnp.linalg.inv(jnp.array([[2.0, 0.0], [0.0, 4.0]])).tolist()
    [[0.5, 0.0], [0.0, 0.25]]
    """
    a = _square("inv", a)
    return solve(a, jnp.broadcast_to(jnp.eye(a.shape[-1], dtype=a.dtype), a.shape))


def slogdet(a, *, method=None):
    """(sign, log|det|) of each square matrix in `a`: (0, -inf) where singular; the sign
    is det / |det|, complex for complex `a`.

    >>> import jaxwg.numpy as jnp
    >>> sign, logdet = jnp.linalg.slogdet(jnp.array([[0.0, 2.0], [3.0, 0.0]]))
    >>> float(sign), round(float(logdet), 4)
    (-1.0, 1.7918)
    """
    if method not in (None, "lu"):
        raise ValueError(f"slogdet: unknown method {method!r}; jaxwg has 'lu'")
    a = _square("slogdet", a)
    lu, _, odd = _lu(a)
    diagonal = jnp.diagonal(lu, axis1=-2, axis2=-1)
    sign = jnp.prod(jnp.sign(diagonal), axis=-1) * jnp.where(odd, -1, 1).astype(a.dtype)
    return SlogdetResult(sign, jnp.sum(jnp.log(jnp.abs(diagonal)), axis=-1))


def det(a):
    """The determinant of each square matrix in `a`.

    >>> import jaxwg.numpy as jnp
    >>> round(float(jnp.linalg.det(jnp.array([[1.0, 2.0], [3.0, 4.0]]))), 5)
    -2.0
    """
    a = _square("det", a)
    if a.shape[-1] in (2, 3):  # the products of permutations, as JAX's (its rounding)
        return _small_det(a)
    lu, _, odd = _lu(a)
    product = jnp.prod(jnp.diagonal(lu, axis1=-2, axis2=-1), axis=-1)
    # a singular matrix's determinant is +0, as JAX's sign * exp(log|det|)
    return jnp.where(product == 0, jnp.zeros_like(product), jnp.where(odd, -product, product))


def _small_det(a):
    """The determinant of 2 x 2 or 3 x 3 matrices as the signed sum of products over the
    permutations (Leibniz's formula)."""
    e = lambda i, j: a[..., i, j]  # noqa: E731
    if a.shape[-1] == 2:
        return e(0, 0) * e(1, 1) - e(0, 1) * e(1, 0)
    return (e(0, 0) * e(1, 1) * e(2, 2) + e(0, 1) * e(1, 2) * e(2, 0) + e(0, 2) * e(1, 0) * e(2, 1)
            - e(0, 2) * e(1, 1) * e(2, 0) - e(0, 0) * e(1, 2) * e(2, 1) - e(0, 1) * e(1, 0) * e(2, 2))


# -- Cholesky ----------------------------------------------------------------------------------


def _symmetrized(a):
    """(a + a^H) / 2: JAX's symmetrize_input, Hermitian for complex `a`."""
    return (a + _h(a)) / 2


def cholesky(a, *, upper: bool = False, symmetrize_input: bool = True):
    """L with L @ L^H = a (lower triangular; its conjugate transpose with `upper`), for
    Hermitian (real: symmetric) positive definite `a`; NaN in the triangle where `a` is
    not positive definite, as in JAX.

    >>> import jaxwg.numpy as jnp
    >>> jnp.linalg.cholesky(jnp.array([[4.0, 2.0], [2.0, 5.0]])).tolist()
    [[2.0, 0.0], [1.0, 2.0]]
    >>> jnp.linalg.cholesky(jnp.array([[4.0, 2j], [-2j, 5.0]])).tolist()
    [[(2+0j), 0j], [-1j, (2+0j)]]
    """
    a = _square("cholesky", a, symmetrize_input)
    if symmetrize_input:
        a = _symmetrized(a)
    factor = _cholesky_factor(a)
    return _h(factor) if upper else factor


@jit
def _cholesky_factor(a):
    n = a.shape[-1]
    rows = _rows(n)

    def column(j, factor):
        # a[:, j] - L L[j, :]^H: the columns of L before j are final, the rest still 0
        row = jnp.conj(jnp.take(factor, j, axis=-2))
        rest = jnp.take(a, j, axis=-1) - jnp.matmul(factor, row[..., :, None])[..., 0]
        # the real part's root: NaN where a is not positive definite (a complex root of
        # a negative number would not be), and a real diagonal as LAPACK's
        pivot = jnp.sqrt(jnp.real(jnp.take(rest, j, axis=-1)))[..., None]
        new = jnp.where(rows > j, rest / pivot, jnp.where(rows == j, pivot, 0))
        return jnp.where((rows == j)[None, :], new[..., :, None], factor)

    factor = lax.fori_loop(0, n, column, jnp.zeros_like(a)) if n else a
    failed = jnp.any(jnp.isnan(jnp.diagonal(factor, axis1=-2, axis2=-1)), axis=-1)[..., None, None]
    nan = complex(np.nan, np.nan) if jnp.iscomplexobj(a) else np.nan
    return jnp.where(failed & (rows[:, None] >= rows), nan, factor)  # NaN L, zeros above, as JAX


# -- symmetric eigenproblems (Jacobi) ------------------------------------------------------


def _round_robin(m: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For m (even) indices, m - 1 rounds of m/2 disjoint pairs meeting every pair once
    (the circle method): (first of each pair, second, the inverse of their concatenation)."""
    others = list(range(1, m))
    firsts, seconds, inverses = [], [], []
    for r in range(m - 1):
        order = [0] + others[r:] + others[:r]
        first, second = order[:m // 2], order[::-1][:m // 2]
        firsts.append(first)
        seconds.append(second)
        inverses.append(np.argsort(first + second))
    return np.array(firsts), np.array(seconds), np.array(inverses)


def _rotate(x, c, s, first, second, inverse, axis: int):
    """Rotate the pairs (first[i], second[i]) of rows (axis -2) or columns (axis -1) of
    x by (c[i], s[i]), c real: x_p <- c x_p - conj(s) x_q, x_q <- s x_p + c x_q. On
    columns that is x J with the unitary J = [[c, s], [-conj(s), c]]; on rows, with s
    conjugated, J^H x."""
    xp, xq = jnp.take(x, first, axis=axis), jnp.take(x, second, axis=axis)
    c, s = (c[..., :, None], s[..., :, None]) if axis == -2 else (c[..., None, :], s[..., None, :])
    both = jnp.concatenate([c * xp - jnp.conj(s) * xq, s * xp + c * xq], axis=axis)
    return jnp.take(both, inverse, axis=axis)


def _rotation(app, aqq, apq):
    """(c, s) of the rotation J (`_rotate`'s) with J^H [[app, apq], [conj(apq), aqq]] J
    diagonal (Golub and Van Loan's symmetric Schur decomposition: t = tan of the angle,
    the smaller root). For complex apq = |apq| e^(i phi), the real rotation of |apq| with
    s times e^(i phi): the (p, q) entry of J^H A J is then e^(i phi) times the real one."""
    if jnp.iscomplexobj(apq):
        magnitude = jnp.abs(apq)
        c, s = _rotation(jnp.real(app), jnp.real(aqq), magnitude)
        return c, s * (apq / jnp.where(magnitude == 0, 1, magnitude))
    zero = apq == 0
    theta = (aqq - app) / jnp.where(zero, 1, 2 * apq)
    t = jnp.sign(theta) / (jnp.abs(theta) + jnp.sqrt(theta * theta + 1))
    t = jnp.where(zero, 0, jnp.where(theta == 0, 1, t))
    c = 1 / jnp.sqrt(t * t + 1)
    return c, t * c


def _jacobi_round(a, v, first, second, inverse):
    """One round of rotations, each zeroing a[p, q] for its pair."""
    d = jnp.diagonal(a, axis1=-2, axis2=-1)
    apq = jnp.take_along_axis(jnp.take(a, first, axis=-2),
                              jnp.broadcast_to(second[:, None], (*a.shape[:-2], len(second), 1)),
                              axis=-1)[..., 0]
    c, s = _rotation(jnp.take(d, first, axis=-1), jnp.take(d, second, axis=-1), apq)
    a = _rotate(_rotate(a, c, jnp.conj(s), first, second, inverse, -2), c, s, first, second, inverse, -1)
    return a, _rotate(v, c, s, first, second, inverse, -1)


def _one_sided_round(g, v, first, second, inverse):
    """One round of Hestenes' one-sided Jacobi: each pair of columns of g rotated to be
    orthogonal (the rotation that diagonalizes their 2x2 Gram matrix), v alike."""
    gp, gq = jnp.take(g, first, axis=-1), jnp.take(g, second, axis=-1)
    c, s = _rotation(jnp.sum(abs_squared(gp), axis=-2), jnp.sum(abs_squared(gq), axis=-2),
                     jnp.sum(jnp.conj(gp) * gq, axis=-2))
    return (_rotate(g, c, s, first, second, inverse, -1), _rotate(v, c, s, first, second, inverse, -1))


def _sweep_count(size: int) -> int:
    """Jacobi sweeps for `size` indices: cyclic Jacobi converges quadratically, in about
    log2(n) + 2 sweeps to float32 precision and + 3 to float64's (measured on random
    symmetric matrices up to n = 256); this allows two more."""
    return max(6, math.ceil(math.log2(max(size, 2))) + 5)


def _sweeps(round_fn, x, v, size: int):
    """`_sweep_count` sweeps of `round_fn` over the pairs of `size` (even) indices: one
    fori_loop of sweeps times rounds steps, recorded once (a while_loop until converged
    re-scheduled its body every sweep: 10 s for eigvalsh of 16 x 16 on lavapipe)."""
    firsts, seconds, inverses = (jnp.asarray(t) for t in _round_robin(max(size, 2)))
    rounds = max(size - 1, 1)

    def step(i, xv):
        r = i % rounds
        return round_fn(*xv, jnp.take(firsts, r, axis=0), jnp.take(seconds, r, axis=0),
                        jnp.take(inverses, r, axis=0))

    return lax.fori_loop(0, _sweep_count(size) * rounds, step, (x, v))


@custom_jvp
def _eigh(a):
    a, scale = _balanced(a)
    n = a.shape[-1]
    m = n + n % 2  # an odd size gets a zero row and column: an isolated eigenvalue 0
    if m != n:
        a = jnp.pad(a, [(0, 0)] * (a.ndim - 2) + [(0, 1), (0, 1)])
    v = jnp.broadcast_to(jnp.eye(m, dtype=a.dtype), a.shape)
    if n > 1:
        a, v = _sweeps(_jacobi_round, a, v, m)
    w = jnp.real(jnp.diagonal(a, axis1=-2, axis2=-1)[..., :n])  # a Hermitian diagonal is real
    v = v[..., :n, :n]
    order = jnp.argsort(w, axis=-1)
    w = jnp.take_along_axis(w, order, axis=-1) * scale[..., 0]
    v = jnp.take_along_axis(v, jnp.broadcast_to(order[..., None, :], v.shape), axis=-1)
    return w, v


@_eigh.defjvp
def _eigh_jvp(primals, tangents):
    # JAX's rule: dw = Re diag(V^H dA V), dV = V (F * (V^H dA V)) with F = 1 / (w_j - w_i)
    # off the diagonal (inf for repeated eigenvalues, as in JAX).
    (a,), (da,) = primals, tangents
    w, v = _eigh(a)
    eye = jnp.eye(a.shape[-1], dtype=w.dtype)
    reciprocal = 1 / (eye + w[..., None, :] - w[..., :, None]) - eye
    projected = jnp.matmul(_h(v), jnp.matmul(da, v))
    dw = jnp.real(jnp.diagonal(projected, axis1=-2, axis2=-1))
    return (w, v), (dw, jnp.matmul(v, reciprocal * projected))


# jit outside the custom JVP: evaluated eagerly, a custom_jvp function runs its traced
# body op by op (a jit inside it is inlined), which took seconds for a small Jacobi loop.
_jitted_eigh = jit(_eigh)


def eigh(a, UPLO=None, symmetrize_input: bool = True):
    """Eigenvalues (ascending, real) and eigenvectors (columns) of each Hermitian (real:
    symmetric) matrix in `a`, by cyclic Jacobi rotations. `UPLO` ("L" or "U") picks the
    triangle to read when `symmetrize_input` is False (and the real part of the
    diagonal, as LAPACK); by default `a` is symmetrized, (a + a^H) / 2, as in JAX.

    >>> import jaxwg.numpy as jnp
    >>> w, v = jnp.linalg.eigh(jnp.array([[2.0, 1.0], [1.0, 2.0]]))
    >>> [round(x, 5) for x in w.tolist()]
    [1.0, 3.0]
    >>> [round(x, 5) for x in jnp.linalg.eigh(jnp.array([[2.0, 1j], [-1j, 2.0]]))[0].tolist()]
    [1.0, 3.0]
    """
    a = _square("eigh", a, symmetrize_input)
    if UPLO not in (None, "L", "U"):
        raise ValueError(f"UPLO must be 'L' or 'U', got {UPLO!r}")
    if symmetrize_input:
        a = _symmetrized(a)
    else:
        strict = jnp.triu(a, 1) if UPLO == "U" else jnp.tril(a, -1)
        a = jnp.where(jnp.eye(a.shape[-1], dtype=bool), jnp.real(a), strict + _h(strict))
    return EighResult(*_jitted_eigh(a))


def eigvalsh(a, UPLO=None, *, symmetrize_input: bool = True):
    """The eigenvalues (ascending, real) of each Hermitian matrix in `a` (`eigh`'s first
    result).

    >>> import jaxwg.numpy as jnp
    >>> [round(x, 5) for x in jnp.linalg.eigvalsh(jnp.array([[2.0, 0.0], [0.0, 1.0]])).tolist()]
    [1.0, 2.0]
    """
    check_arraylike("jnp.linalg.eigvalsh", a)
    return eigh(a, UPLO, symmetrize_input).eigenvalues


# -- QR and SVD --------------------------------------------------------------------------------


class QRResult(NamedTuple):
    Q: object
    R: object


class SVDResult(NamedTuple):
    U: object
    S: object
    Vh: object


def _norms(x, axis: int):
    """The 2-norms of `x` along `axis`, through x / max|x| (no squares overflow or
    underflow, as LAPACK's nrm2)."""
    top = jnp.max(jnp.abs(x), axis=axis, keepdims=True, initial=0)
    scaled = x / jnp.where(top > 0, top, 1)
    return jnp.squeeze(top, axis) * jnp.sqrt(jnp.sum(abs_squared(scaled), axis=axis))


def _reflect(j, r, vs, betas):
    """Step j of `_householder`: column j of r (from the diagonal down) reflected onto
    alpha e_j, the reflector kept in column j of vs and betas."""
    m, n = r.shape[-2:]
    rows = _rows(m)
    x = jnp.where(rows >= j, jnp.take(r, j, axis=-1), 0)
    xj = jnp.take(x, j, axis=-1)
    norm = _norms(x, axis=-1)
    alpha = jnp.where(jnp.signbit(jnp.real(xj)), norm, -norm)
    keep = (jnp.max(jnp.where(rows > j, jnp.abs(x), 0), axis=-1) == 0) & (jnp.imag(xj) == 0)
    v = jnp.where(rows == j, 1, x / jnp.where(keep, 1, xj - alpha)[..., None])
    beta = jnp.where(keep, 0, (alpha - xj) / jnp.where(keep, 1, alpha))
    update = (jnp.conj(beta)[..., None] * v)[..., :, None] * jnp.matmul(jnp.conj(v)[..., None, :], r)
    # rows where v is 0 stay as they are (exactly: -0.0 keeps its sign for the next
    # column's alpha, as in LAPACK)
    r = jnp.where((v != 0)[..., :, None], r - update, r)
    # column j is now alpha e_j up to rounding: set it exactly, so that R's diagonal is
    # real (as LAPACK's) and `svd`'s signs of it are well defined
    pivot = jnp.where(rows == j, jnp.where(keep, xj, alpha)[..., None], 0)
    r = jnp.where((_rows(n) == j)[None, :] & (rows >= j)[:, None], pivot[..., :, None], r)
    vs = jnp.where((_rows(vs.shape[-1]) == j)[None, :], v[..., :, None], vs)
    betas = jnp.where(_rows(betas.shape[-1]) == j, beta[..., None], betas)
    return r, vs, betas


def _reflectors_start(a):
    k = min(a.shape[-2:])
    return a, jnp.zeros((*a.shape[:-1], k), a.dtype), jnp.zeros((*a.shape[:-2], k), a.dtype)


@jit
def _householder(a):
    """(r, vs, betas): Householder QR of (..., m, n) a as LAPACK's geqrf: step j reflects
    column x (from the diagonal down) onto alpha e_j, alpha = -sign(Re x_j) |x| (real, so
    R's diagonal is real, as LAPACK's for complex; the sign bit's sign, as LAPACK's SIGN),
    by H^H with H = I - beta v v^H, v = (x - alpha e_j) / (x_j - alpha) (v_j = 1, zero
    above row j, kept as column j of vs) and beta = (alpha - x_j) / alpha: LAPACK's zlarfg,
    whose ratios neither overflow nor underflow where |x|^2 would (the tiny columns of a
    rank-deficient matrix's null space in `svd`), so Q = H_0 H_1 ... is LAPACK's too.
    Where nothing below the diagonal is nonzero and x_j is real, H = I (beta 0)."""
    k = min(a.shape[-2:])
    start = _reflectors_start(a)
    return lax.fori_loop(0, k, lambda j, carry: _reflect(j, *carry), start) if k else start


@jit
def _householder_pivoted(a):
    """(r, vs, betas, perm): `_householder` with LAPACK's column pivoting (geqp3's
    unblocked laqp2), r = QR of a[..., perm]: step j first swaps column j with the later
    column of largest remaining norm (rows j and below; the first on ties), norms kept by
    LAPACK's downdating, |c|^2 - r_jc^2, recomputed where that cancels (below
    sqrt(eps / 2) of the last computed norm), so that ties break as LAPACK's."""
    m, n = a.shape[-2:]
    rows, cols = _rows(m), _rows(n)
    tolerance = math.sqrt(np.finfo(a.dtype).eps / 2)

    def step(j, carry):
        r, vs, betas, perm, norms, computed = carry
        p = jnp.argmax(jnp.where(cols >= j, norms, -1), axis=-1)[..., None]
        order = jnp.where(cols == j, p, jnp.where(cols == p, j, cols))  # swaps columns j and p
        r = jnp.take_along_axis(r, jnp.broadcast_to(order[..., None, :], r.shape), axis=-1)
        perm, norms, computed = (jnp.take_along_axis(x, order, axis=-1) for x in (perm, norms, computed))
        r, vs, betas = _reflect(j, r, vs, betas)
        chosen = lax.stop_gradient(r)  # the norms only choose the pivots
        ratio = jnp.abs(jnp.take(chosen, j, axis=-2)) / jnp.where(norms != 0, norms, 1)
        remaining = jnp.maximum(1 - ratio * ratio, 0)
        fresh = _norms(jnp.where((rows > j)[:, None], chosen, 0), axis=-2)
        recompute = remaining * jnp.square(norms / jnp.where(computed != 0, computed, 1)) <= tolerance
        update = (cols > j) & (norms != 0)
        norms = jnp.where(update, jnp.where(recompute, fresh, norms * jnp.sqrt(remaining)), norms)
        computed = jnp.where(update & recompute, fresh, computed)
        return r, vs, betas, perm, norms, computed

    norms = _norms(lax.stop_gradient(a), axis=-2)
    perm = jnp.broadcast_to(cols.astype(jnp.int32), (*a.shape[:-2], n))
    start = (*_reflectors_start(a), perm, norms, norms)
    k = min(m, n)
    return (lax.fori_loop(0, k, step, start) if k else start)[:4]


@functools.partial(jit, static_argnames="columns")
def _q_from_reflectors(vs, betas, columns: int):
    """The first `columns` columns of H_0 H_1 ... H_{k-1}."""
    m, k = vs.shape[-2:]
    q = jnp.broadcast_to(jnp.eye(m, columns, dtype=vs.dtype), (*vs.shape[:-2], m, columns))

    def step(i, q):
        j = k - 1 - i
        v = jnp.take(vs, j, axis=-1)
        beta = jnp.take(betas, j, axis=-1)
        return q - (beta[..., None] * v)[..., :, None] * jnp.matmul(jnp.conj(v)[..., None, :], q)

    return lax.fori_loop(0, k, step, q) if k else q


def qr(a, mode: str = "reduced"):
    """Q R = a with orthonormal (complex: unitary) Q and upper triangular R, by Householder
    reflections with LAPACK's signs (R's diagonal is real and may be negative): `mode`
    "reduced" (Q of shape (m, k), k = min(m, n)), "complete" (Q square) or "r" (R alone).

    >>> import jaxwg.numpy as jnp
    >>> q, r = jnp.linalg.qr(jnp.array([[3.0, 1.0], [4.0, 2.0]]))
    >>> [round(x, 5) for x in r[0].tolist()]
    [-5.0, -2.2]
    """
    check_arraylike("jnp.linalg.qr", a)
    (a,) = promote(a, to_inexact=True)
    if a.ndim < 2:
        raise ValueError(f"qr requires ndim >= 2, got shape {a.shape}")
    if mode not in ("reduced", "complete", "r"):
        raise ValueError(f"Unsupported QR decomposition mode '{mode}'")
    q, r, _ = _qr(a, mode)
    return r if mode == "r" else QRResult(q, r)


def _qr(a, mode: str, pivoting: bool = False):
    """(q, r, perm) of `qr` (q None for mode "r"), with column pivoting (a[..., perm] =
    q r, perm int32) or perm None."""
    m, n = a.shape[-2:]
    a, scale = _balanced(a)
    if pivoting:
        r, vs, betas, perm = _householder_pivoted(a)
    else:
        (r, vs, betas), perm = _householder(a), None
    rows = m if mode == "complete" else min(m, n)
    r = jnp.triu(r[..., :rows, :]) * scale.astype(r.dtype)
    return (None if mode == "r" else _q_from_reflectors(vs, betas, rows)), r, perm


@functools.partial(jit, static_argnames=("full_matrices", "compute_uv"))
def _svd_tall(a, full_matrices: bool, compute_uv: bool):
    """SVD of (..., m, n) a with m >= n by one-sided Jacobi: rotate column pairs until
    all are orthogonal (a V = G, V unitary), then s = the column norms, sorted, and U from
    the QR of G (its Q, with the signs of R's real diagonal: orthonormal even where some
    s are 0)."""
    m, n = a.shape[-2:]
    a, scale = _balanced(a)
    size = n + n % 2
    g = jnp.pad(a, [(0, 0)] * (a.ndim - 1) + [(0, size - n)]) if size != n else a
    v = jnp.broadcast_to(jnp.eye(size, dtype=a.dtype), (*a.shape[:-2], size, size))
    if n > 1:
        g, v = _sweeps(_one_sided_round, g, v, size)
    g, v = g[..., :n], v[..., :n, :n]
    s = jnp.sqrt(jnp.sum(abs_squared(g), axis=-2))
    order = jnp.argsort(-s, axis=-1)
    s = jnp.take_along_axis(s, order, axis=-1) * scale[..., 0]
    if not compute_uv:
        return s
    g = jnp.take_along_axis(g, jnp.broadcast_to(order[..., None, :], g.shape), axis=-1)
    v = jnp.take_along_axis(v, jnp.broadcast_to(order[..., None, :], v.shape), axis=-1)
    r, vs, betas = _householder(g)
    u = _q_from_reflectors(vs, betas, m if full_matrices else n)
    signs = jnp.where(jnp.real(jnp.diagonal(r, axis1=-2, axis2=-1)) < 0, -1, 1).astype(a.dtype)
    signs = jnp.concatenate([signs, jnp.ones((*signs.shape[:-1], u.shape[-1] - n), a.dtype)], axis=-1)
    u = u * signs[..., None, :]
    return SVDResult(u, s, _h(v))


def svd(a, full_matrices: bool = True, compute_uv: bool = True, hermitian: bool = False,
        subset_by_index=None):
    """U, s, Vh with a = U diag(s) Vh, s real and descending, U and Vh unitary, by
    one-sided Jacobi rotations (accurate to the precision of a's columns);
    `full_matrices` makes U and Vh square, `compute_uv=False` returns s alone.
    `hermitian=True` takes `a` as Hermitian and computes through `eigh` (of a
    symmetrized, as in JAX): s = |w| sorted descending, U the eigenvectors in that order
    and Vh = (U sign(w))^H.

    >>> import jaxwg.numpy as jnp
    >>> [round(x, 4) for x in jnp.linalg.svd(jnp.array([[3.0, 0.0], [0.0, -4.0]]))[1].tolist()]
    [4.0, 3.0]
    """
    check_arraylike("jnp.linalg.svd", a)
    (a,) = promote(a, to_inexact=True)
    if a.ndim < 2:
        raise ValueError(f"svd requires ndim >= 2, got shape {a.shape}")
    if subset_by_index is not None:
        raise NotImplementedError("svd with subset_by_index is not implemented in jaxwg yet")
    if hermitian:
        return _hermitian_svd(a, compute_uv)
    if not compute_uv:
        return _jitted_singular_values(a)
    if not full_matrices:
        return SVDResult(*_jitted_svd_reduced(a))
    return SVDResult(*_svd(a, True, True))  # no derivative, as in JAX


def _hermitian_svd(a, compute_uv: bool):
    """`svd` of Hermitian matrices from their eigendecomposition, as JAX's."""
    w, v = eigh(a)
    order = jnp.flip(jnp.argsort(jnp.abs(w), axis=-1, stable=True), axis=-1)  # JAX's tie order
    s = jnp.take_along_axis(jnp.abs(w), order, axis=-1)
    if not compute_uv:
        return s
    u = jnp.take_along_axis(v, order[..., None, :], axis=-1)
    sign = jnp.take_along_axis(jnp.sign(w), order, axis=-1).astype(u.dtype)
    return SVDResult(u, s, _h(u * sign[..., None, :]))


def _svd(a, full_matrices: bool, compute_uv: bool):
    if a.shape[-2] >= a.shape[-1]:
        return _svd_tall(a, full_matrices, compute_uv)
    result = _svd_tall(_h(a), full_matrices, compute_uv)  # a^H = U s Vh: a = Vh^H s U^H
    if not compute_uv:
        return result
    return _h(result.Vh), result.S, _h(result.U)


@custom_jvp
def _singular_values(a):
    return _svd(a, False, False)


@custom_jvp
def _svd_reduced(a):
    return tuple(_svd(a, False, True))


@_singular_values.defjvp
def _singular_values_jvp(primals, tangents):
    (a,), (da,) = primals, tangents
    u, s, vh = _svd_reduced(a)
    return s, jnp.real(jnp.diagonal(jnp.matmul(_h(u), jnp.matmul(da, _h(vh))), axis1=-2, axis2=-1))


@_svd_reduced.defjvp
def _svd_reduced_jvp(primals, tangents):
    # JAX's rule (jax._src.lax.linalg's svd JVP), conjugate transposes for complex
    (a,), (da,) = primals, tangents
    u, s, vh = _svd_reduced(a)
    ut, v = _h(u), _h(vh)
    s_row = s[..., None, :]
    ds_matrix = jnp.matmul(ut, jnp.matmul(da, v))
    ds = jnp.real(jnp.diagonal(ds_matrix, axis1=-2, axis2=-1))
    differences = (s_row + matrix_transpose(s_row)) * (s_row - matrix_transpose(s_row))
    same = (differences == 0).astype(s.dtype)
    f = 1 / (differences + same) - same
    dss, sds = s_row * ds_matrix, matrix_transpose(s_row) * ds_matrix
    zero = (s == 0).astype(s.dtype)
    s_inv = 1 / (s + zero) - zero
    diagonal_part = 0.5 * (ds_matrix - _h(ds_matrix)) * (jnp.eye(s.shape[-1], dtype=s.dtype)
                                                         * s_inv[..., None, :])
    du = jnp.matmul(u, f * (dss + _h(dss)) + diagonal_part)
    dv = jnp.matmul(v, f * (sds + _h(sds)))
    m, n = a.shape[-2:]
    if m > n:
        dav = jnp.matmul(da, v)
        du = du + (dav - jnp.matmul(u, jnp.matmul(ut, dav))) / s_row
    if n > m:
        dau = jnp.matmul(_h(da), u)
        dv = dv + (dau - jnp.matmul(v, jnp.matmul(vh, dau))) / s_row
    return (u, s, vh), (du, ds, _h(dv))


_jitted_singular_values = jit(_singular_values)
_jitted_svd_reduced = jit(_svd_reduced)


def svdvals(x, /):
    """The singular values of each matrix in `x`, descending.

    >>> import jaxwg.numpy as jnp
    >>> [round(v, 4) for v in jnp.linalg.svdvals(jnp.array([[0.0, 2.0], [1.0, 0.0]])).tolist()]
    [2.0, 1.0]
    """
    check_arraylike("jnp.linalg.svdvals", x)
    return svd(x, compute_uv=False)


def _default_rtol(a):
    return 10.0 * max(a.shape[-2:]) * float(np.finfo(a.dtype).eps)


def pinv(a, rtol=None, hermitian: bool = False, *, rcond=None):
    """The Moore-Penrose pseudo-inverse of each matrix in `a`: singular values below
    `rtol` times the largest (JAX's default: 10 max(m, n) eps) count as zero;
    `hermitian=True` takes them from `eigh` (`svd`'s).

    >>> import jaxwg.numpy as jnp
    >>> [round(x, 4) for x in jnp.linalg.pinv(jnp.array([[2.0, 0.0], [0.0, 0.0]])).ravel().tolist()]
    [0.5, 0.0, 0.0, 0.0]
    """
    if rcond is not None:
        if rtol is not None:
            raise ValueError("pinv: only one of rtol and rcond may be specified.")
        rtol = rcond
    check_arraylike("jnp.linalg.pinv", a)
    (a,) = promote(a, to_inexact=True)
    u, s, vh = svd(a, full_matrices=False, hermitian=hermitian)
    rtol = _default_rtol(a) if rtol is None else jnp.asarray(rtol, _real_dtype(a))[..., None]
    cutoff = rtol * s[..., :1]
    s_inv = jnp.where(s > cutoff, 1 / jnp.where(s > cutoff, s, 1), 0)
    return jnp.matmul(_h(vh) * s_inv[..., None, :], _h(u))


def matrix_rank(M, rtol=None, *, hermitian: bool = False, tol=None):
    """The number of singular values of each matrix above `tol` (absolute) or `rtol`
    times the largest (default: max(m, n) eps, as JAX).

    >>> import jaxwg.numpy as jnp
    >>> int(jnp.linalg.matrix_rank(jnp.array([[1.0, 2.0], [2.0, 4.0]])))
    1
    """
    check_arraylike("jnp.linalg.matrix_rank", M)
    (M,) = promote(M, to_inexact=True)
    if M.ndim < 2:
        return jnp.any(M != 0).astype(np.int32)
    s = svd(M, compute_uv=False, hermitian=hermitian)
    if tol is None:
        rtol = max(M.shape[-2:]) * float(np.finfo(M.dtype).eps) if rtol is None else rtol
        tol = jnp.asarray(rtol, _real_dtype(M))[..., None] * s[..., :1]
    else:
        tol = jnp.asarray(tol, _real_dtype(M))[..., None]
    return jnp.sum(s > tol, axis=-1).astype(np.int32)


def cond(x, p=None):
    """The condition number of each matrix in `x` in the `p`-norm: the ratio of its
    largest and smallest singular values (p None, 2 or -2 inverts it), else
    norm(x, p) norm(inv(x), p).

    >>> import jaxwg.numpy as jnp
    >>> round(float(jnp.linalg.cond(jnp.array([[2.0, 0.0], [0.0, 0.5]]))), 4)
    4.0
    """
    check_arraylike("jnp.linalg.cond", x)
    (x,) = promote(x, to_inexact=True)
    if p in (None, 2, -2):
        s = svdvals(x)
        return s[..., 0] / s[..., -1] if p != -2 else s[..., -1] / s[..., 0]
    return norm(x, p, axis=(-2, -1)) * norm(inv(x), p, axis=(-2, -1))


def lstsq(a, b, rcond=None, *, numpy_resid: bool = False):
    """(x, residuals, rank, s): the least-squares solution of a @ x = b (`a` of shape
    (m, n), `b` (m,) or (m, k)) through the SVD of `a`, singular values below `rcond`
    times the largest dropped (default: eps max(m, n)); residuals are |b - a x|^2 per
    column (always, unless `numpy_resid` asks for NumPy's empty ones where a is rank
    deficient or m <= n), as in JAX.

    >>> import jaxwg.numpy as jnp
    >>> x, resid, rank, s = jnp.linalg.lstsq(jnp.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]),
    ...                                      jnp.array([1.0, 1.0, 1.0]))
    >>> [round(v, 4) for v in x.tolist()], int(rank)
    ([0.6667, 0.6667], 2)
    """
    check_arraylike("jnp.linalg.lstsq", a, b)
    a, b = promote(a, b, to_inexact=True)
    if a.ndim != 2:
        raise TypeError(f"{a.ndim}-dimensional array given. Array must be two-dimensional")
    if b.ndim not in (1, 2):
        raise TypeError(f"{b.ndim}-dimensional array given. Array must be one or two-dimensional")
    m, n = a.shape
    if b.shape[0] != m:
        raise ValueError(f"Leading dimensions of input arrays must match: a {a.shape}, b {b.shape}")
    eps = float(np.finfo(a.dtype).eps)
    rcond = eps * max(m, n) if rcond is None or rcond < 0 else rcond
    vector = b.ndim == 1
    b2 = b[:, None] if vector else b
    u, s, vh = svd(a, full_matrices=False)
    keep = s >= rcond * s[:1] if s.shape[0] else s > 0
    rank = jnp.sum(keep).astype(np.int32)
    s_inv = jnp.where(keep, 1 / jnp.where(keep, s, 1), 0)[:, None]
    x = jnp.matmul(_h(vh), s_inv * jnp.matmul(_h(u), b2))
    if numpy_resid and (int(rank) < n or m <= n):
        resid = jnp.zeros((0,), _real_dtype(a))
    else:
        resid = jnp.sum(abs_squared(b2 - jnp.matmul(a, x)), axis=0)
    return (x[:, 0] if vector else x), resid, rank, s


def matrix_power(a, n: int):
    """`a` multiplied by itself `n` times (n >= 0, by squaring), or the inverse's
    power for n < 0; the identity for n = 0.

    >>> import jaxwg.numpy as jnp
    >>> jnp.linalg.matrix_power(jnp.array([[1.0, 1.0], [0.0, 1.0]]), 3).tolist()
    [[1.0, 3.0], [0.0, 1.0]]
    """
    check_arraylike("jnp.linalg.matrix_power", a)
    a = jnp.asarray(a)
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise TypeError(f"matrix_power requires a square matrix, got shape {a.shape}")
    if isinstance(n, (bool, np.bool_)) or not isinstance(n, (int, np.integer)):
        raise TypeError(f"exponent must be an integer, got {n}")
    if n == 0:
        return jnp.broadcast_to(jnp.eye(a.shape[-1], dtype=a.dtype), a.shape)
    if n < 0:
        a, n = inv(a), -n
    result, power = None, a
    while n:  # square and multiply
        if n & 1:
            result = power if result is None else jnp.matmul(result, power)
        n >>= 1
        if n:
            power = jnp.matmul(power, power)
    return result


def multi_dot(arrays, *, precision=None):
    """The product of a sequence of matrices (the first and last may be vectors), left
    to right.

    >>> import jaxwg.numpy as jnp
    >>> jnp.linalg.multi_dot([jnp.ones(2), jnp.ones((2, 3)), jnp.ones(3)]).tolist()
    6.0
    """
    check_arraylike("jnp.linalg.multi_dot", *arrays)
    arrays = [jnp.asarray(x) for x in arrays]
    if len(arrays) < 2:
        raise ValueError(f"multi_dot requires at least two arrays, got {len(arrays)}")
    out = arrays[0]
    for x in arrays[1:]:
        out = jnp.matmul(out, x)
    return out


def tensorinv(a, ind: int = 2):
    """The inverse of `a` read as a matrix of its first `ind` axes by the rest, in
    tensordot's sense: tensordot(tensorinv(a), a, ind) is the identity.

    >>> import jaxwg.numpy as jnp
    >>> jnp.linalg.tensorinv(2 * jnp.eye(4).reshape(4, 2, 2), ind=1).shape
    (2, 2, 4)
    """
    a = ensure_arraylike("tensorinv", a)
    if ind <= 0:
        raise ValueError(f"ind must be a positive integer, got {ind}")
    rows, cols = a.shape[:ind], a.shape[ind:]
    flat = int(np.prod(rows))
    if flat != int(np.prod(cols)):
        raise ValueError(f"tensorinv: product of first {ind} dimensions {rows} must equal product of the "
                         f"remaining dimensions {cols}")
    return jnp.reshape(inv(jnp.reshape(a, (flat, flat))), (*cols, *rows))


def tensorsolve(a, b, axes=None):
    """x with tensordot(a, x, x.ndim) = b: `a` read as a matrix of b's axes by the rest
    (`axes` of `a` moved last first).

    >>> import jaxwg.numpy as jnp
    >>> jnp.linalg.tensorsolve(2 * jnp.eye(4).reshape(2, 2, 4), jnp.ones((2, 2))).tolist()
    [0.5, 0.5, 0.5, 0.5]
    """
    a, b = ensure_arraylike("tensorsolve", a, b)
    if axes is not None:
        a = jnp.moveaxis(a, axes, tuple(range(a.ndim - len(axes), a.ndim)))
    out_shape = a.shape[b.ndim:]
    flat = int(np.prod(out_shape))
    if int(np.prod(a.shape[:b.ndim])) != flat:
        raise ValueError(f"tensorsolve: a of shape {a.shape} is not square for b of shape {b.shape}")
    return jnp.reshape(solve(jnp.reshape(a, (flat, flat)), jnp.ravel(b)), out_shape)


@functools.partial(jit, static_argnames=("lower", "unit_diagonal"))
def _triangular_solve(a, b, lower: bool, unit_diagonal: bool):
    """x with a x = b for triangular (..., n, n) `a` and (..., n, m) `b` (batch axes as
    a's), reading only a's `lower` (else upper) triangle, and not its diagonal with
    `unit_diagonal`: substitution one row of x a step, from the first row down (lower)
    or the last up, as `_lu_solve`'s."""
    n = a.shape[-1]
    rows = _rows(n)

    def step(j, x):
        i = j if lower else n - 1 - j
        column = jnp.take(a, i, axis=-1)
        xi = jnp.take(x, i, axis=-2)
        if not unit_diagonal:
            xi = xi / jnp.take(column, i, axis=-1)[..., None]
        rest = (rows > i) if lower else (rows < i)
        # only the rows still to solve change: an inf in x_i (a zero pivot) makes inf
        # there, as JAX's, not NaN from 0 * inf everywhere
        x = jnp.where(rest[:, None], x - column[..., :, None] * xi[..., None, :], x)
        return jnp.where((rows == i)[:, None], xi[..., None, :], x)

    return lax.fori_loop(0, n, step, b) if n else b


# The Array API's linalg names for functions of the main namespace, with its signatures
# (matrix_transpose and vecdot, imported above, have them already).


def matmul(x1, x2, /, *, precision=None, preferred_element_type=None):
    """`jnp.matmul`.

    >>> import jaxwg.numpy as jnp
    >>> jnp.linalg.matmul(jnp.ones((2, 3)), jnp.ones(3)).tolist()
    [3.0, 3.0]
    """
    check_arraylike("jnp.linalg.matmul", x1, x2)
    return jnp.matmul(x1, x2, precision=precision, preferred_element_type=preferred_element_type)


def tensordot(x1, x2, /, *, axes=2, precision=None, preferred_element_type=None):
    """`jnp.tensordot`.

    >>> import jaxwg.numpy as jnp
    >>> float(jnp.linalg.tensordot(jnp.ones((2, 3)), jnp.ones((2, 3))))
    6.0
    """
    check_arraylike("jnp.linalg.tensordot", x1, x2)
    return jnp.tensordot(x1, x2, axes=axes, precision=precision,
                         preferred_element_type=preferred_element_type)


def outer(x1, x2, /):
    """The outer product of two vectors.

    >>> import jaxwg.numpy as jnp
    >>> jnp.linalg.outer(jnp.array([1.0, 2.0]), jnp.array([3.0, 4.0])).tolist()
    [[3.0, 4.0], [6.0, 8.0]]
    """
    x1, x2 = ensure_arraylike("jnp.linalg.outer", x1, x2)
    if x1.ndim != 1 or x2.ndim != 1:
        raise ValueError(f"Input arrays must be one-dimensional, but they are x1.ndim={x1.ndim} "
                         f"x2.ndim={x2.ndim}")
    return jnp.outer(x1, x2)


def cross(x1, x2, /, *, axis: int = -1):
    """The cross product of 3-vectors along `axis`.

    >>> import jaxwg.numpy as jnp
    >>> jnp.linalg.cross(jnp.array([1.0, 0.0, 0.0]), jnp.array([0.0, 1.0, 0.0])).tolist()
    [0.0, 0.0, 1.0]
    """
    x1, x2 = ensure_arraylike("jnp.linalg.cross", x1, x2)
    if x1.shape[axis] != 3 or x2.shape[axis] != 3:
        raise ValueError(f"Both input arrays must be (arrays of) 3-dimensional vectors, but they have "
                         f"x1.shape[{axis}]={x1.shape[axis]} and x2.shape[{axis}]={x2.shape[axis]}")
    return jnp.cross(x1, x2, axis=axis)


def diagonal(x, /, *, offset: int = 0):
    """The diagonal of each matrix in `x` (its last two axes).

    >>> import jaxwg.numpy as jnp
    >>> jnp.linalg.diagonal(jnp.arange(4.0).reshape(2, 2)).tolist()
    [0.0, 3.0]
    """
    check_arraylike("jnp.linalg.diagonal", x)
    return jnp.diagonal(x, offset=offset, axis1=-2, axis2=-1)


def trace(x, /, *, offset: int = 0, dtype=None):
    """The trace of each matrix in `x` (its last two axes).

    >>> import jaxwg.numpy as jnp
    >>> float(jnp.linalg.trace(jnp.arange(4.0).reshape(2, 2)))
    3.0
    """
    check_arraylike("jnp.linalg.trace", x)
    return jnp.trace(x, offset=offset, axis1=-2, axis2=-1, dtype=dtype)


# -- norms -------------------------------------------------------------------------------------


def vector_norm(x, /, *, axis=None, keepdims: bool = False, ord=2):
    """The `ord`-norm of `x` over `axis` (all axes by default): 2 (Euclidean), 1, inf,
    -inf, 0 (the count of nonzeros) or any other p (sum |x|^p)^(1/p).

    >>> import jaxwg.numpy as jnp
    >>> float(jnp.linalg.vector_norm(jnp.array([3.0, 4.0])))
    5.0
    """
    check_arraylike("jnp.linalg.vector_norm", x)
    (x,) = promote(x, to_inexact=True)
    if axis is None and not keepdims:
        x, axis = jnp.ravel(x), 0
    elif axis is None:
        axis = tuple(range(x.ndim))
    ax = jnp.abs(x)
    if ord is None or ord == 2:
        return jnp.sqrt(jnp.sum(ax * ax, axis=axis, keepdims=keepdims))
    if ord == np.inf:
        return jnp.max(ax, axis=axis, keepdims=keepdims, initial=0)
    if ord == -np.inf:
        return jnp.min(ax, axis=axis, keepdims=keepdims)
    if ord == 0:
        return jnp.sum(ax != 0, axis=axis, keepdims=keepdims).astype(ax.dtype)
    if ord == 1:
        return jnp.sum(ax, axis=axis, keepdims=keepdims)
    if isinstance(ord, str):
        raise ValueError(f"Invalid order '{ord}' for vector norm.")
    return jnp.sum(ax ** ord, axis=axis, keepdims=keepdims) ** (1 / ord)


def matrix_norm(x, /, *, keepdims: bool = False, ord="fro"):
    """The `ord`-norm of each matrix in `x` (its last two axes): "fro", 1 and -1 (the
    largest and smallest column sum of |x|), inf and -inf (row sums), 2 and -2 (the
    largest and smallest singular value), "nuc" (their sum).

    >>> import jaxwg.numpy as jnp
    >>> float(jnp.linalg.matrix_norm(jnp.array([[1.0, -2.0], [3.0, 4.0]]), ord=1))
    6.0
    """
    check_arraylike("jnp.linalg.matrix_norm", x)
    return norm(x, ord=ord, axis=(-2, -1), keepdims=keepdims)


def _extreme(largest: bool, x, axis: int):
    """The largest of `x` along `axis`, from 0 as JAX's (an empty matrix's norm is 0), or
    the smallest (of no elements: JAX's ValueError)."""
    return jnp.max(x, axis=axis, initial=0) if largest else jnp.min(x, axis=axis)


def _matrix_norm(x, ord, axes: tuple[int, int], keepdims: bool):
    rows, cols = axes
    ax = jnp.abs(x)
    if ord in (None, "fro"):
        out = jnp.sqrt(jnp.sum(ax * ax, axis=axes))
    elif ord in (1, -1):
        sums = jnp.sum(ax, axis=rows)
        out = _extreme(ord > 0, sums, cols - (cols > rows))
    elif ord in (np.inf, -np.inf):
        sums = jnp.sum(ax, axis=cols)
        out = _extreme(ord > 0, sums, rows - (rows > cols))
    elif ord in (2, -2, "nuc"):
        s = svdvals(jnp.moveaxis(x, axes, (-2, -1)))
        out = jnp.sum(s, axis=-1) if ord == "nuc" else _extreme(ord > 0, s, -1)
    else:
        raise ValueError(f"Invalid order '{ord}' for matrix norm.")
    if keepdims:
        out = jnp.expand_dims(out, tuple(sorted(axes)))
    return out


def norm(x, ord=None, axis=None, keepdims: bool = False):
    """A vector norm (`axis` an int, or `x` 1-d) or matrix norm (`axis` a pair, or `x`
    2-d) as NumPy's: see `vector_norm` and `matrix_norm` for the orders. With no `axis`
    and no `ord`, the 2-norm of all of `x`.

    >>> import jaxwg.numpy as jnp
    >>> float(jnp.linalg.norm(jnp.array([[3.0, 0.0], [0.0, 4.0]])))
    5.0
    """
    check_arraylike("jnp.linalg.norm", x)
    (x,) = promote(x, to_inexact=True)
    if axis is None:
        if ord is None:
            out = vector_norm(x)
            return jnp.reshape(out, (1,) * x.ndim) if keepdims else out
        axis = tuple(range(x.ndim))
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    axes = tuple(a % x.ndim if -x.ndim <= a < x.ndim else _axis_error(a, x.ndim) for a in axes)
    if len(axes) == 1:
        return vector_norm(x, axis=axes[0], keepdims=keepdims, ord=2 if ord is None else ord)
    if len(axes) == 2:
        return _matrix_norm(x, ord, axes, keepdims)
    raise ValueError(f"Improper number of axes for norm: axis={axis}. Pass one axis to compute "
                     "a vector-norm, or two axes to compute a matrix-norm.")


def _axis_error(axis: int, ndim: int):
    raise ValueError(f"axis {axis} is out of bounds for array of dimension {ndim}")



from .general_eig import EigResult, eig, eigvals  # noqa: E402, F401  (on the host: see there)
from .. import errors as _errors  # noqa: E402

# A name JAX has and jaxwg lacks says it is not implemented yet (jaxwg.errors).
__getattr__ = _errors.module_getattr(__name__)
__dir__ = _errors.module_dir(__name__)  # the public names only, as JAX's
