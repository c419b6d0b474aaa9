"""`jaxwg.numpy.linalg`: dense linear algebra on the device, written with jaxwg's own ops.

Each factorization is a loop of vectorized steps (`lax.fori_loop` with a static trip
count: recorded once, no read-back per step), over any leading batch axes:

* LU with partial pivoting, one column a step (`solve`, `inv`, `det`, `slogdet`);
* Cholesky, one column a step (a matrix-vector product each);
* symmetric eigenproblems by cyclic Jacobi rotations (`eigh`, `eigvalsh`): n/2 disjoint
  rotations at a time in a round-robin order, so a sweep of n - 1 steps meets every
  pair; sweeps repeat (a `while_loop`, one read-back each) until the off-diagonal part
  is below the dtype's precision. Jacobi's eigenvalues are accurate to the precision of
  the matrix entries, not only of its norm.

Integer inputs compute in the default float type, as in JAX. Gradients flow through
the loops (JAX differentiates with closed-form rules: the values agree to rounding, the
jaxprs differ); `eigh` has JAX's closed-form JVP, since its sweep count is data-dependent.

>>> import jaxwg.numpy as jnp
>>> a = jnp.array([[4.0, 1.0], [2.0, 3.0]])
>>> [round(x, 5) for x in jnp.linalg.solve(a, jnp.array([1.0, 2.0])).tolist()]
[0.1, 0.6]
>>> round(float(jnp.linalg.det(a)), 5)
10.0
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .. import lax
from .. import numpy as jnp  # this module is part of jaxwg.numpy, imported last
from ..transforms.custom import custom_jvp
from ._util import check_arraylike, promote

__all__ = ["cholesky", "det", "eigh", "eigvalsh", "inv", "matrix_norm", "matrix_transpose", "norm",
           "slogdet", "solve", "vector_norm"]


class EighResult(NamedTuple):
    eigenvalues: object
    eigenvectors: object


class SlogdetResult(NamedTuple):
    sign: object
    logabsdet: object


def _square(name: str, a, symmetrized: bool = False):
    """`a` as a batch of square float matrices (ints promoted as JAX does). JAX's error
    for one that is not square is a TypeError where it symmetrizes the input first (its
    a + a.T fails), else a ValueError."""
    check_arraylike(f"jnp.linalg.{name}", a)
    (a,) = promote(a, to_inexact=True)
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        error = TypeError if symmetrized else ValueError
        raise error(f"Argument to {name} must have shape [..., n, n], got {a.shape}.")
    return a


def matrix_transpose(x, /):
    """The transpose of the last two axes of `x`.

    >>> import jaxwg.numpy as jnp
    >>> jnp.linalg.matrix_transpose(jnp.ones((2, 3, 4))).shape
    (2, 4, 3)
    """
    check_arraylike("jnp.linalg.matrix_transpose", x)
    x = jnp.asarray(x)
    if x.ndim < 2:
        raise ValueError(f"matrix_transpose requires at least 2 dimensions; got ndim={x.ndim}")
    return jnp.swapaxes(x, -1, -2)


def _rows(n: int):
    return jnp.arange(n)


# -- LU ----------------------------------------------------------------------------------------


def _lu(a):
    """(lu, perm, odd) with a[perm] = L U: L (unit diagonal) below lu's diagonal, U on
    and above it, `odd` whether the permutation is odd. Step k moves the largest |entry|
    of column k at or below the diagonal into row k, then eliminates below it."""
    n = a.shape[-1]
    rows = _rows(n)
    below_k = lambda k: (rows > k)[:, None] & (rows == k)[None, :]  # noqa: E731

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
        multipliers = jnp.where(rows > k, column / jnp.take(column, k, axis=-1)[..., None], 0)
        pivot_row = jnp.where(rows > k, jnp.take(lu, k, axis=-2), 0)
        lu = lu - multipliers[..., :, None] * pivot_row[..., None, :]
        return jnp.where(below_k(k), multipliers[..., :, None], lu), perm, odd

    batch = a.shape[:-2]
    start = (a, jnp.broadcast_to(rows, (*batch, n)), jnp.zeros(batch, bool))
    return lax.fori_loop(0, n, step, start) if n else start


def _lu_solve(lu, perm, b):
    """x with (P^T L U) x = b, for b of shape (..., n, m) (batch axes as lu's)."""
    n = lu.shape[-1]
    rows = _rows(n)
    b = jnp.take_along_axis(b, jnp.broadcast_to(perm[..., :, None], b.shape), axis=-2)

    def forward(i, y):  # L y = P b, L with a unit diagonal
        below = jnp.where(rows > i, jnp.take(lu, i, axis=-1), 0)
        return y - below[..., :, None] * jnp.take(y, i, axis=-2)[..., None, :]

    def backward(j, x):  # U x = y, from the last row up
        i = n - 1 - j
        column = jnp.take(lu, i, axis=-1)
        xi = jnp.take(x, i, axis=-2) / jnp.take(column, i, axis=-1)[..., None]
        x = jnp.where((rows == i)[:, None], xi[..., None, :], x)
        return x - jnp.where(rows < i, column, 0)[..., :, None] * xi[..., None, :]

    return lax.fori_loop(0, n, backward, lax.fori_loop(0, n, forward, b)) if n else b


def solve(a, b):
    """The solution x of a @ x = b: `a` of shape (..., n, n), `b` of shape (n,) or
    (..., n, m) (batch axes broadcast). Singular `a` gives inf or NaN, as in JAX.

    >>> import jaxwg.numpy as jnp
    >>> jnp.linalg.solve(jnp.array([[2.0, 0.0], [0.0, 4.0]]), jnp.array([2.0, 2.0])).tolist()
    [1.0, 0.5]
    """
    a = _square("solve", a)
    check_arraylike("jnp.linalg.solve", b)
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
    """(sign, log|det|) of each square matrix in `a`: (0, -inf) where singular.

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
    lu, _, odd = _lu(a)
    product = jnp.prod(jnp.diagonal(lu, axis1=-2, axis2=-1), axis=-1)
    return jnp.where(odd, -product, product)


# -- Cholesky ----------------------------------------------------------------------------------


def _symmetrized(a):
    return (a + matrix_transpose(a)) / 2


def cholesky(a, *, upper: bool = False, symmetrize_input: bool = True):
    """L with L @ L.T = a (lower triangular; its transpose with `upper`), for symmetric
    positive definite `a`; all NaN where `a` is not positive definite, as in JAX.

    >>> import jaxwg.numpy as jnp
    >>> jnp.linalg.cholesky(jnp.array([[4.0, 2.0], [2.0, 5.0]])).tolist()
    [[2.0, 0.0], [1.0, 2.0]]
    """
    a = _square("cholesky", a, symmetrize_input)
    if symmetrize_input:
        a = _symmetrized(a)
    n = a.shape[-1]
    rows = _rows(n)

    def column(j, factor):
        # a[:, j] - L L[j, :]^T: the columns of L before j are final, the rest still 0
        row = jnp.take(factor, j, axis=-2)
        rest = jnp.take(a, j, axis=-1) - jnp.matmul(factor, row[..., :, None])[..., 0]
        pivot = jnp.sqrt(jnp.take(rest, j, axis=-1))[..., None]
        new = jnp.where(rows > j, rest / pivot, jnp.where(rows == j, pivot, 0))
        return jnp.where((rows == j)[None, :], new[..., :, None], factor)

    factor = lax.fori_loop(0, n, column, jnp.zeros_like(a)) if n else a
    failed = jnp.any(jnp.isnan(jnp.diagonal(factor, axis1=-2, axis2=-1)), axis=-1)[..., None, None]
    factor = jnp.where(failed, jnp.nan, factor)
    return matrix_transpose(factor) if upper else factor


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
    x by (c[i], s[i]): x_p <- c x_p - s x_q, x_q <- s x_p + c x_q."""
    xp, xq = jnp.take(x, first, axis=axis), jnp.take(x, second, axis=axis)
    c, s = (c[..., :, None], s[..., :, None]) if axis == -2 else (c[..., None, :], s[..., None, :])
    both = jnp.concatenate([c * xp - s * xq, s * xp + c * xq], axis=axis)
    return jnp.take(both, inverse, axis=axis)


def _jacobi_round(a, v, first, second, inverse):
    """One round of rotations, each zeroing a[p, q] for its pair (Golub and Van Loan's
    symmetric Schur decomposition: t = tan of the angle, the smaller root)."""
    d = jnp.diagonal(a, axis1=-2, axis2=-1)
    app, aqq = jnp.take(d, first, axis=-1), jnp.take(d, second, axis=-1)
    apq = jnp.take_along_axis(jnp.take(a, first, axis=-2),
                              jnp.broadcast_to(second[:, None], (*a.shape[:-2], len(second), 1)),
                              axis=-1)[..., 0]
    zero = apq == 0
    theta = (aqq - app) / jnp.where(zero, 1, 2 * apq)
    t = jnp.sign(theta) / (jnp.abs(theta) + jnp.sqrt(theta * theta + 1))
    t = jnp.where(zero, 0, jnp.where(theta == 0, 1, t))
    c = 1 / jnp.sqrt(t * t + 1)
    s = t * c
    a = _rotate(_rotate(a, c, s, first, second, inverse, -2), c, s, first, second, inverse, -1)
    return a, _rotate(v, c, s, first, second, inverse, -1)


def _off_diagonal(a):
    off = a * (1 - jnp.eye(a.shape[-1], dtype=a.dtype))
    return jnp.sum(off * off, axis=(-2, -1))


@custom_jvp
def _eigh(a):
    n = a.shape[-1]
    m = n + n % 2  # an odd size gets a zero row and column: an isolated eigenvalue 0
    if m != n:
        a = jnp.pad(a, [(0, 0)] * (a.ndim - 2) + [(0, 1), (0, 1)])
    firsts, seconds, inverses = (jnp.asarray(t) for t in _round_robin(max(m, 2)))
    eps = float(np.finfo(a.dtype).eps)
    scale = jnp.sum(a * a, axis=(-2, -1))

    def sweep(carry):
        a, v, count = carry

        def step(r, av):
            return _jacobi_round(*av, jnp.take(firsts, r, axis=0), jnp.take(seconds, r, axis=0),
                                 jnp.take(inverses, r, axis=0))
        a, v = lax.fori_loop(0, max(m - 1, 1), step, (a, v))
        return a, v, count + 1

    def unconverged(carry):
        a, _, count = carry
        return jnp.any(_off_diagonal(a) > (eps * eps) * scale) & (count < 30)

    v = jnp.broadcast_to(jnp.eye(m, dtype=a.dtype), a.shape)
    a, v, _ = lax.while_loop(unconverged, sweep, (a, v, 0)) if n > 1 else (a, v, 0)
    w = jnp.diagonal(a, axis1=-2, axis2=-1)[..., :n]
    v = v[..., :n, :n]
    order = jnp.argsort(w, axis=-1)
    w = jnp.take_along_axis(w, order, axis=-1)
    v = jnp.take_along_axis(v, jnp.broadcast_to(order[..., None, :], v.shape), axis=-1)
    return w, v


@_eigh.defjvp
def _eigh_jvp(primals, tangents):
    # JAX's rule: dw = diag(V^T dA V), dV = V (F * (V^T dA V)) with F = 1 / (w_j - w_i) off
    # the diagonal (inf for repeated eigenvalues, as in JAX).
    (a,), (da,) = primals, tangents
    w, v = _eigh(a)
    eye = jnp.eye(a.shape[-1], dtype=a.dtype)
    reciprocal = 1 / (eye + w[..., None, :] - w[..., :, None]) - eye
    projected = jnp.matmul(matrix_transpose(v), jnp.matmul(da, v))
    return (w, v), (jnp.diagonal(projected, axis1=-2, axis2=-1), jnp.matmul(v, reciprocal * projected))


def eigh(a, UPLO=None, symmetrize_input: bool = True):
    """Eigenvalues (ascending) and eigenvectors (columns) of each symmetric matrix in `a`,
    by cyclic Jacobi rotations. `UPLO` ("L" or "U") picks the triangle to read when
    `symmetrize_input` is False; by default `a` is symmetrized, (a + a.T) / 2, as in JAX.

    >>> import jaxwg.numpy as jnp
    >>> w, v = jnp.linalg.eigh(jnp.array([[2.0, 1.0], [1.0, 2.0]]))
    >>> [round(x, 5) for x in w.tolist()]
    [1.0, 3.0]
    """
    a = _square("eigh", a, symmetrize_input)
    if UPLO not in (None, "L", "U"):
        raise ValueError(f"UPLO must be 'L' or 'U', got {UPLO!r}")
    if symmetrize_input:
        a = _symmetrized(a)
    elif UPLO == "U":
        a = jnp.triu(a) + matrix_transpose(jnp.triu(a, 1))
    else:
        a = jnp.tril(a) + matrix_transpose(jnp.tril(a, -1))
    return EighResult(*_eigh(a))


def eigvalsh(a, UPLO=None, *, symmetrize_input: bool = True):
    """The eigenvalues (ascending) of each symmetric matrix in `a` (`eigh`'s first result).

    >>> import jaxwg.numpy as jnp
    >>> [round(x, 5) for x in jnp.linalg.eigvalsh(jnp.array([[2.0, 0.0], [0.0, 1.0]])).tolist()]
    [1.0, 2.0]
    """
    return eigh(a, UPLO, symmetrize_input).eigenvalues


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
    largest and smallest column sum of |x|), inf and -inf (row sums), 2 (the largest
    singular value, sqrt of A^T A's largest eigenvalue).

    >>> import jaxwg.numpy as jnp
    >>> float(jnp.linalg.matrix_norm(jnp.array([[1.0, -2.0], [3.0, 4.0]]), ord=1))
    6.0
    """
    return norm(x, ord=ord, axis=(-2, -1), keepdims=keepdims)


def _matrix_norm(x, ord, axes: tuple[int, int], keepdims: bool):
    rows, cols = axes
    ax = jnp.abs(x)
    if ord in (None, "fro"):
        out = jnp.sqrt(jnp.sum(ax * ax, axis=axes))
    elif ord in (1, -1):
        sums = jnp.sum(ax, axis=rows)
        out = (jnp.max if ord == 1 else jnp.min)(sums, axis=cols - (cols > rows))
    elif ord in (np.inf, -np.inf):
        sums = jnp.sum(ax, axis=cols)
        out = (jnp.max if ord == np.inf else jnp.min)(sums, axis=rows - (rows > cols))
    elif ord == 2:
        moved = jnp.moveaxis(x, axes, (-2, -1))
        gram = jnp.matmul(matrix_transpose(moved), moved)
        out = jnp.sqrt(jnp.maximum(eigvalsh(gram)[..., -1], 0))
    elif ord in (-2, "nuc"):
        raise NotImplementedError(f"norm with ord={ord!r} needs singular values, which jaxwg "
                                  "does not compute yet")
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



from .. import errors as _errors  # noqa: E402

# A name JAX has and jaxwg lacks says it is not implemented yet (jaxwg.errors).
__getattr__ = _errors.module_getattr(__name__)
