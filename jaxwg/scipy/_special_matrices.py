"""The special matrices of `jax.scipy.linalg` (re-exported by `jaxwg.scipy.linalg`).

Most are a gather: each entry is one element of a short vector built from the inputs
(the first column and row of a Toeplitz matrix, a polynomial's coefficients), picked by
an index table computed on the host from the shape alone, with one appended zero for
the entries that are zero. Leading axes of the vector arguments batch, as in JAX.
The matrices defined by a size alone (`hilbert`, `pascal`, `dft`, ...) are closed forms
of iotas, in JAX's dtypes (`pascal` is float32 even with x64, as JAX's).

>>> import jaxwg.numpy as jnp
>>> from jaxwg.scipy.linalg import circulant
>>> circulant(jnp.array([1, 2, 3])).tolist()
[[1, 3, 2], [2, 1, 3], [3, 2, 1]]
"""

from __future__ import annotations

import operator

import numpy as np

from .. import lax
from .. import numpy as jnp
from ..numpy._util import check_arraylike, dtype_arg, inexact_operands, promote
from . import special

__all__ = ["block_diag", "circulant", "companion", "convolution_matrix", "dft", "fiedler",
           "fiedler_companion", "hadamard", "hankel", "helmert", "hilbert", "invhilbert", "invpascal",
           "leslie", "pascal", "toeplitz"]


def _gather(elements, index: np.ndarray, zero: bool = False):
    """Matrices whose (i, j) entry is elements[..., index[i, j]] (`index` a host array);
    with `zero`, index elements.shape[-1] picks a zero appended to `elements`."""
    if zero:
        elements = jnp.pad(elements, [(0, 0)] * (elements.ndim - 1) + [(0, 1)])
    picked = jnp.take(elements, jnp.asarray(index.ravel().astype(np.int32)), axis=-1)
    return picked.reshape((*elements.shape[:-1], *index.shape))


def _broadcast_vectors(*vs):
    """Vectors (..., n_i) broadcast to their common leading axes."""
    batch = np.broadcast_shapes(*(v.shape[:-1] for v in vs))
    return [jnp.broadcast_to(v, (*batch, v.shape[-1])) for v in vs]


def _grid(m: int, n: int):
    """(rows, cols): host index columns and rows of an m x n matrix."""
    return np.arange(m)[:, None], np.arange(n)[None, :]


def block_diag(*arrs):
    """The block diagonal matrix of `arrs` (scalars and 1-D arrays are 1 x n blocks), in
    their promoted dtype.

    >>> from jaxwg.scipy.linalg import block_diag
    >>> import jaxwg.numpy as jnp
    >>> block_diag(jnp.array([[1, 2]]), 3).tolist()
    [[1, 2, 0], [0, 0, 3]]
    """
    if not arrs:
        arrs = (jnp.zeros((1, 0)),)
    check_arraylike("block_diag", *arrs)
    arrs = promote(*arrs)
    for i, a in enumerate(arrs):
        if a.ndim > 2:
            raise ValueError("Arguments to jax.scipy.linalg.block_diag must have at most 2 dimensions, "
                             f"got {a} at argument {i}.")
    blocks = [jnp.atleast_2d(a) for a in arrs]
    total = sum(b.shape[1] for b in blocks)
    padded, start = [], 0
    for b in blocks:
        padded.append(jnp.pad(b, [(0, 0), (start, total - start - b.shape[1])]))
        start += b.shape[1]
    return jnp.concatenate(padded, axis=0)


def toeplitz(c, r=None):
    """The Toeplitz matrix of first column `c` and first row `r` (default conj(c); r[0]
    is ignored); leading axes of c and r batch.

    >>> from jaxwg.scipy.linalg import toeplitz
    >>> import jaxwg.numpy as jnp
    >>> toeplitz(jnp.array([1, 2, 3]), jnp.array([1, 4])).tolist()
    [[1, 4], [2, 1], [3, 2]]
    """
    if r is None:
        check_arraylike("toeplitz", c)
        r = jnp.conjugate(jnp.asarray(c))
    else:
        check_arraylike("toeplitz", c, r)
    c, r = _broadcast_vectors(jnp.atleast_1d(jnp.asarray(c)), jnp.atleast_1d(jnp.asarray(r)))
    m, n = c.shape[-1], r.shape[-1]
    if m == 0 or n == 0:
        return jnp.empty((*c.shape[:-1], m, n), dtype=jnp.promote_types(c.dtype, r.dtype))
    rows, cols = _grid(m, n)
    return _gather(jnp.concatenate([jnp.flip(c, axis=-1), r[..., 1:]], axis=-1), (m - 1) - rows + cols)


def hankel(c, r=None):
    """The Hankel matrix of first column `c` and last row `r` (default zeros; r[0] is
    ignored): entry (i, j) is v[i + j], v = concatenate([c, r[1:]]); leading axes batch.

    >>> from jaxwg.scipy.linalg import hankel
    >>> import jaxwg.numpy as jnp
    >>> hankel(jnp.array([1, 2, 3]), jnp.array([9, 4])).tolist()
    [[1, 2], [2, 3], [3, 4]]
    """
    if r is None:
        check_arraylike("hankel", c)
        c = jnp.asarray(c)
        r = jnp.zeros_like(c)
    else:
        check_arraylike("hankel", c, r)
        c, r = jnp.asarray(c), jnp.asarray(r)
    if c.ndim == 0:
        raise ValueError("hankel: c must be at least 1-dimensional, got a scalar.")
    if r.ndim == 0:
        raise ValueError("hankel: r must be at least 1-dimensional, got a scalar.")
    c, r = _broadcast_vectors(c, r)
    m, n = c.shape[-1], r.shape[-1]
    if m == 0 or n == 0:
        return jnp.empty((*c.shape[:-1], m, n), dtype=jnp.result_type(c, r))
    rows, cols = _grid(m, n)
    return _gather(jnp.concatenate([c, r[..., 1:]], axis=-1), rows + cols)


def circulant(c):
    """The circulant matrix of first column `c`: entry (i, j) is c[(i - j) mod n];
    leading axes batch.

    >>> from jaxwg.scipy.linalg import circulant
    >>> import jaxwg.numpy as jnp
    >>> circulant(jnp.array([1, 2])).tolist()
    [[1, 2], [2, 1]]
    """
    check_arraylike("circulant", c)
    c = jnp.atleast_1d(jnp.asarray(c))
    rows, cols = _grid(c.shape[-1], c.shape[-1])
    return _gather(c, (rows - cols) % max(c.shape[-1], 1))


def leslie(f, s):
    """The Leslie matrix: fecundities `f` (..., n), n >= 2, as its first row and
    survivals `s` (..., n - 1) on its first sub-diagonal; leading axes batch.

    >>> from jaxwg.scipy.linalg import leslie
    >>> import jaxwg.numpy as jnp
    >>> leslie(jnp.array([1.0, 2.0]), jnp.array([0.5])).tolist()
    [[1.0, 2.0], [0.5, 0.0]]
    """
    check_arraylike("leslie", f, s)
    f, s = jnp.atleast_1d(f), jnp.atleast_1d(s)
    if f.shape[-1] < 2:
        raise ValueError(f"The length of f along the last axis must be at least 2; got shape {f.shape}.")
    if s.shape[-1] != f.shape[-1] - 1:
        raise ValueError("Incorrect lengths for f and s. The length of s along the last axis must be one "
                         f"less than the length of f; got f shape {f.shape} and s shape {s.shape}.")
    f, s = _broadcast_vectors(*promote(f, s))
    n = f.shape[-1]
    rows, cols = _grid(n, n)
    index = np.where(rows == 0, cols, np.where(rows == cols + 1, n + cols, 2 * n - 1))
    return _gather(jnp.concatenate([f, s], axis=-1), index, zero=True)


def _with_one(v):
    """`v` (..., k) with a 1 appended (at index k), in v's dtype (not weakly typed)."""
    return jnp.concatenate([v, jnp.ones((*v.shape[:-1], 1), v.dtype)], axis=-1)


def companion(a):
    """The companion matrix of the polynomial of coefficients `a` (..., n), n >= 2,
    highest degree first: first row -a[1:] / a[0], ones on the first sub-diagonal.
    a[0] = 0 gives inf or NaN (not an error, as in JAX).

    >>> from jaxwg.scipy.linalg import companion
    >>> import jaxwg.numpy as jnp
    >>> companion(jnp.array([1.0, -3.0, 2.0])).tolist()
    [[3.0, -2.0], [1.0, 0.0]]
    """
    (a,) = inexact_operands("companion", a)
    a = jnp.atleast_1d(a)
    if a.shape[-1] < 2:
        raise ValueError(f"The length of `a` along the last axis must be at least 2; got shape {a.shape}.")
    m = a.shape[-1] - 1
    rows, cols = _grid(m, m)
    index = np.where(rows == 0, cols, np.where(rows == cols + 1, m, m + 1))
    return _gather(_with_one(-a[..., 1:] / a[..., :1]), index, zero=True)


def fiedler(a):
    """The symmetric Fiedler matrix |a[i] - a[j]| of `a` (..., n); leading axes batch.

    >>> from jaxwg.scipy.linalg import fiedler
    >>> import jaxwg.numpy as jnp
    >>> fiedler(jnp.array([1, 4, 12])).tolist()
    [[0, 3, 11], [3, 0, 8], [11, 8, 0]]
    """
    check_arraylike("fiedler", a)
    a = jnp.atleast_1d(a)
    return jnp.abs(a[..., :, None] - a[..., None, :])


def fiedler_companion(a):
    """The Fiedler companion matrix of the polynomial of coefficients `a` (..., n),
    highest degree first: pentadiagonal, with the roots as its eigenvalues; (0, 0) for
    n = 1.

    >>> from jaxwg.scipy.linalg import fiedler_companion
    >>> import jaxwg.numpy as jnp
    >>> fiedler_companion(jnp.array([1.0, -3.0, 2.0])).tolist()
    [[3.0, -2.0], [1.0, 0.0]]
    """
    (a,) = inexact_operands("fiedler_companion", a)
    a = jnp.atleast_1d(a)
    if a.shape[-1] == 0:
        raise ValueError("fiedler_companion requires the last axis of 'a' to have nonzero length, but got "
                         f"an array of shape {a.shape}.")
    n = a.shape[-1] - 1
    i, j = _grid(n, n)
    even = i % 2 == 0
    one, zero = n + 1, n + 2  # indices of the appended 1 and 0; index k < one is -a[k] / a[0]
    index = np.select([(i == 0) & (j == 0), (i == 1) & (j == 0), (j == i + 1) & even, (j == i + 2) & even,
                       (j == i - 1) & even & (i >= 2), (j == i - 2) & ~even & (i >= 3)],
                      [1, one, i + 2, one, i + 1, one], default=zero)
    return _gather(_with_one(-(a / a[..., :1])), index, zero=True)


def convolution_matrix(a, n: int, mode: str = "full"):
    """The Toeplitz matrix A with n columns and A @ v = jnp.convolve(a, v, mode) for `a`
    (..., m): m + n - 1 rows ("full"), max(m, n) ("same") or max(m, n) - min(m, n) + 1
    ("valid"); leading axes batch.

    >>> from jaxwg.scipy.linalg import convolution_matrix
    >>> import jaxwg.numpy as jnp
    >>> convolution_matrix(jnp.array([1, 2]), 2).tolist()
    [[1, 0], [2, 1], [0, 2]]
    """
    n = operator.index(n)
    if n <= 0:
        raise ValueError(f"n must be a positive integer; got {n}.")
    check_arraylike("convolution_matrix", a)
    a = jnp.asarray(a)
    if a.ndim == 0:
        raise ValueError("convolution_matrix: a must be at least 1-dimensional, got a scalar.")
    m = a.shape[-1]
    if m < 1:
        raise ValueError(f"len(a) must be at least 1; got shape {a.shape}.")
    if mode not in ("full", "valid", "same"):
        raise ValueError(f"mode must be one of 'full', 'valid', 'same'; got {mode!r}.")
    trim = min(m, n) - 1
    start, end = {"full": (0, 0), "same": (trim // 2, trim - trim // 2), "valid": (trim, trim)}[mode]
    rows, cols = _grid(m + n - 1 - start - end, n)
    index = rows + start - cols  # A[i, j] = a[i + start - j], zero outside a
    return _gather(a, np.where((index >= 0) & (index < m), index, m), zero=True)


def hilbert(n: int):
    """The n x n Hilbert matrix, 1 / (i + j + 1), in the default float dtype.

    >>> from jaxwg.scipy.linalg import hilbert
    >>> hilbert(2).tolist()
    [[1.0, 0.5], [0.5, 0.3333333432674408]]
    """
    a = lax.broadcasted_iota(jnp.float64, (n, 1), 0)
    return 1 / (a + a.T + 1)


def invhilbert(n: int):
    """The inverse of the n x n Hilbert matrix, from its closed form in binomial
    coefficients (`scipy.special.comb`, in the default float dtype: no `exact`, as JAX).

    >>> from jaxwg.scipy.linalg import invhilbert
    >>> invhilbert(2).round(3).tolist()
    [[4.0, -6.0], [-6.0, 12.0]]
    """
    a = jnp.arange(n, dtype=float)
    i, j = a[:, None], a[None, :]
    s = i + j
    return (_sign(s) * (s + 1.0) * special.comb(n + i, n - j - 1) * special.comb(n + j, n - i - 1)
            * special.comb(s, i) ** 2)


def _sign(s):
    """(-1.0) ** s for integral float `s` (JAX's power of -1)."""
    return jnp.where(s % 2 == 0, 1.0, -1.0).astype(s.dtype)


def _binom(n, k):
    """n choose k as exp(lgamma) (JAX's approximation, and its 0 where k > n)."""
    return lax.exp(lax.lgamma(n + 1.0) - lax.lgamma(n - k + 1.0) - lax.lgamma(k + 1.0))


def _pascal_kind(kind):
    kind = "symmetric" if kind is None else kind
    return kind, ["symmetric", "lower", "upper"]


def pascal(n: int, kind: str | None = None):
    """The n x n Pascal matrix (binomial coefficients by exp(lgamma), so approximate, in
    float32 as JAX's): `kind` "symmetric" (default), "lower" or "upper".

    >>> from jaxwg.scipy.linalg import pascal
    >>> pascal(3, kind="lower").round(3).tolist()
    [[1.0, 0.0, 0.0], [1.0, 1.0, 0.0], [1.0, 2.0, 1.0]]
    """
    kind, valid = _pascal_kind(kind)
    if kind not in valid:
        raise ValueError(f"Expected kind to be on of: {valid}; got {kind}")
    a = jnp.arange(n, dtype=np.float32)
    lower = _binom(a[:, None], a[None, :])
    if kind == "lower":
        return lower
    if kind == "upper":
        return lower.T
    return jnp.matmul(lower, lower.T)


def invpascal(n: int, kind: str | None = None):
    """The inverse of `pascal(n, kind)`: (-1)^(i-j) binom(i, j) below the diagonal for
    "lower", its transpose for "upper", their product for "symmetric" (default float
    dtype, no `exact`).

    >>> from jaxwg.scipy.linalg import invpascal
    >>> invpascal(2, kind="lower").round(3).tolist()
    [[1.0, -0.0], [-1.0, 1.0]]
    """
    kind, valid = _pascal_kind(kind)
    if kind not in valid:
        raise ValueError(f"Expected kind to be one of: {valid}; got {kind}")
    a = jnp.arange(n, dtype=float)
    i, j = a[:, None], a[None, :]
    lower = _sign(i - j) * _binom(i, j)
    if kind == "lower":
        return lower
    if kind == "upper":
        return lower.T
    return jnp.matmul(lower.T, lower)


def helmert(n: int, full: bool = False):
    """The Helmert matrix: row k - 1 (k = 1 .. n - 1) is (1, ..., 1, -k, 0, ...) /
    sqrt(k (k + 1)) with k ones; `full` prepends the row 1 / sqrt(n) ((n, n), else
    (n - 1, n)), in the default float dtype.

    >>> from jaxwg.scipy.linalg import helmert
    >>> helmert(2).round(4).tolist()
    [[0.707099974155426, -0.707099974155426]]
    """
    if n < 1:
        raise ValueError(f"n must be a positive integer; got {n}.")
    i = lax.broadcasted_iota(jnp.float64, (n - 1, 1), 0)
    j = lax.broadcasted_iota(jnp.float64, (1, n), 1)
    k = i + 1
    denominator = jnp.sqrt(k * (k + 1))
    h = jnp.where(j <= i, 1.0 / denominator, jnp.where(j == k, -k / denominator, 0.0))
    if full:
        h = jnp.concatenate([jnp.full((1, n), 1.0 / jnp.sqrt(n), dtype=h.dtype), h], axis=0)
    return h


def hadamard(n: int, dtype=int):
    """The n x n Hadamard matrix of Sylvester's construction, n a power of 2: entry
    (i, j) is (-1) ** popcount(i & j), in `dtype`.

    >>> from jaxwg.scipy.linalg import hadamard
    >>> hadamard(2).tolist()
    [[1, 1], [1, -1]]
    """
    if n < 1 or n & (n - 1):
        raise ValueError(f"n must be a positive power of 2; got {n}.")
    rows, cols = _grid(n, n)
    odd = np.bitwise_count(rows & cols) % 2 == 1
    ones = jnp.ones((n, n), dtype=dtype)
    return jnp.where(odd, -ones, ones)


def dft(n: int, scale: str | None = None, *, dtype=None):
    """The n x n discrete Fourier transform matrix exp(-2 pi i j k / n), divided by
    sqrt(n) (`scale` "sqrtn") or n ("n"), in a complex `dtype` (default complex).

    >>> from jaxwg.scipy.linalg import dft
    >>> dft(2).real.round(4).tolist()
    [[1.0, 1.0], [1.0, -1.0]]
    """
    if scale is not None and scale not in ("sqrtn", "n"):
        raise ValueError(f"scale must be None, 'sqrtn', or 'n'; got {scale!r}.")
    dtype = dtype_arg(complex if dtype is None else dtype).np
    if not jnp.issubdtype(dtype, jnp.complexfloating):
        raise ValueError(f"dtype must be a complex floating-point type; got {dtype}.")
    a = jnp.arange(n, dtype=dtype)
    omegas = jnp.exp(-2j * np.pi * a[:, None] * a[None, :] / n)
    if scale == "sqrtn":
        return omegas / jnp.sqrt(n)
    return omegas / n if scale == "n" else omegas
