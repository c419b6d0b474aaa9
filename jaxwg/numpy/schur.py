"""The Hessenberg and Schur decompositions of square matrices, computed on the host.

JAX runs LAPACK's `gehrd` and `gees` for `lax.linalg.hessenberg` and `lax.linalg.schur`
(on its CPU backend only). NumPy has neither, so the algorithms are written here in
NumPy, and the matrices travel to the host and back through `pure_callback`, as
`jnp.linalg.eig` does (general_eig.py):

- `_gehrd`: Householder reduction to upper Hessenberg form, H = Q^H A Q, with LAPACK's
  reflectors (`larfg`: I - tau v v^H, v[0] = 1, beta = -sign(Re alpha) |x|) stored
  below the first subdiagonal, as `gehrd` stores them;
- `_real_schur`: Francis' implicit double-shift QR iteration on H (Wilkinson's
  exceptional shifts every 10 sweeps, deflation where a subdiagonal entry is below eps
  times its neighbours), then each 2 x 2 diagonal block in LAPACK's standard form
  (`lanv2`): equal diagonal entries and off-diagonal entries of opposite signs for a
  complex pair, triangular for real eigenvalues;
- `_complex_schur`: the implicit single-shift QR iteration with Givens rotations and
  Wilkinson's shift (LAPACK's `lahqr` for complex matrices).

They compute in float64 (complex128) and round to the input's precision. A matrix
holding NaN or inf, or one on which the iteration fails to converge, gives NaNs (JAX
gives NaNs where LAPACK reports failure). Under `jit` the program stops at this point to
read the matrices back, as at any host callback. Neither decomposition differentiates
(JAX's NotImplementedError).

>>> import jaxwg.numpy as jnp
>>> t, z = schur_factors(jnp.array([[0.0, 2.0], [-2.0, 0.0]]))
>>> t.tolist(), z.tolist()
([[0.0, 2.0], [-2.0, 0.0]], [[1.0, 0.0], [0.0, 1.0]])
"""

from __future__ import annotations

import numpy as np

from ..frontend.aval import ShapedArray
from ..frontend.jit import jit
from ..transforms.callback import pure_callback
from ..transforms.custom import custom_jvp

__all__ = ["hessenberg_factors", "schur_factors"]

_EPS = np.finfo(np.float64).eps
_MAX_SWEEPS = 30  # per eigenvalue, as LAPACK's lahqr (ITMAX = 30 max(10, n))


# -- Householder reduction to Hessenberg form --------------------------------------------------

def _larfg(x: np.ndarray):
    """(v, tau, beta) with (I - tau v v^H)^H x = beta e_0, v[0] = 1 and beta real:
    LAPACK's `larfg` (tau = 0, v = e_0 where x is already a multiple of e_0)."""
    alpha = x[0]
    xnorm = np.linalg.norm(x[1:])
    v = np.zeros_like(x)
    v[0] = 1
    if xnorm == 0 and np.imag(alpha) == 0:
        return v, x.dtype.type(0), alpha
    beta = -np.copysign(np.sqrt(abs(alpha) ** 2 + xnorm ** 2), np.real(alpha))
    v[1:] = x[1:] / (alpha - beta)
    return v, (beta - alpha) / beta, beta


def _gehrd(a: np.ndarray):
    """(packed, taus): LAPACK's `gehrd` of the square matrix `a`: the Hessenberg form on
    and above the first subdiagonal of `packed`, the reflectors below it."""
    a = a.copy()
    n = a.shape[0]
    taus = np.zeros(max(n - 1, 0), a.dtype)
    for i in range(n - 1):  # the last one makes a complex a[n-1, n-2] real
        v, tau, beta = _larfg(a[i + 1:, i])
        taus[i] = tau
        if tau == 0:
            continue
        a[:, i + 1:] -= tau * np.outer(a[:, i + 1:] @ v, v.conj())
        a[i + 1:, i + 1:] -= np.conj(tau) * np.outer(v, v.conj() @ a[i + 1:, i + 1:])
        a[i + 1, i] = beta
        a[i + 2:, i] = v[1:]
    return a, taus


def _hessenberg_q(packed: np.ndarray, taus: np.ndarray) -> np.ndarray:
    """Q = H_0 H_1 ... H_{n-2} of `gehrd`'s reflectors (LAPACK's `orghr`)."""
    n = packed.shape[0]
    q = np.eye(n, dtype=packed.dtype)
    for i in range(n - 1):
        v = np.concatenate([[1], packed[i + 2:, i]]).astype(packed.dtype)
        q[:, i + 1:] -= taus[i] * np.outer(q[:, i + 1:] @ v, v.conj())
    return q


# -- the real Schur form ------------------------------------------------------------------------

def _negligible(h: np.ndarray, k: int, lo: int, hi: int) -> bool:
    """Whether the subdiagonal entry h[k, k - 1] is negligible next to its neighbours
    (or, where they are zero, to the active block lo..hi)."""
    scale = abs(h[k - 1, k - 1]) + abs(h[k, k])
    if scale == 0:
        scale = np.abs(h[lo:hi + 1, lo:hi + 1]).sum()
    return abs(h[k, k - 1]) <= _EPS * scale


def _active_start(h: np.ndarray, hi: int) -> int:
    """The first row of the unreduced block that ends at row `hi`, the negligible
    subdiagonal entry above it set to zero."""
    lo = hi
    while lo > 0 and not _negligible(h, lo, 0, hi):
        lo -= 1
    if lo > 0:
        h[lo, lo - 1] = 0
    return lo


def _lanv2(a: float, b: float, c: float, d: float):
    """LAPACK's `lanv2`: the rotation (cs, sn) and the standard form (a, b, c, d) of the
    real 2 x 2 block [[a, b], [c, d]] = [[cs, -sn], [sn, cs]] [[a', b'], [c', d']]
    [[cs, sn], [-sn, cs]]: upper triangular for real eigenvalues, else a' = d' and b'
    and c' of opposite signs."""
    if c == 0:
        return 1.0, 0.0, (a, b, c, d)
    if b == 0:  # swap the rows and columns
        return 0.0, 1.0, (d, -c, 0.0, a)
    if a - d == 0 and np.sign(b) != np.sign(c):
        return 1.0, 0.0, (a, b, c, d)
    temp = a - d
    p = 0.5 * temp
    bcmax = max(abs(b), abs(c))
    bcmis = min(abs(b), abs(c)) * np.sign(b) * np.sign(c)
    scale = max(abs(p), bcmax)
    z = (p / scale) * p + (bcmax / scale) * bcmis
    if z >= 4 * _EPS:  # real eigenvalues
        z = p + np.copysign(np.sqrt(scale) * np.sqrt(z), p)
        tau = np.hypot(c, z)
        return z / tau, c / tau, (d + z, b - c, 0.0, d - (bcmax / z) * bcmis)
    # complex or almost equal real eigenvalues: make the diagonal entries equal
    sigma = b + c
    tau = np.hypot(sigma, temp)
    cs = np.sqrt(0.5 * (1 + abs(sigma) / tau))
    sn = -(p / (tau * cs)) * (1.0 if sigma >= 0 else -1.0)
    aa, bb = a * cs + b * sn, -a * sn + b * cs
    cc, dd = c * cs + d * sn, -c * sn + d * cs
    a, b = aa * cs + cc * sn, bb * cs + dd * sn
    c, d = -aa * sn + cc * cs, -bb * sn + dd * cs
    mid = 0.5 * (a + d)
    if c != 0:
        if b != 0:
            if np.sign(b) == np.sign(c):  # real eigenvalues: triangular
                sab, sac = np.sqrt(abs(b)), np.sqrt(abs(c))
                p = np.copysign(sab * sac, c)
                tau = 1 / np.sqrt(abs(b + c))
                cs1, sn1 = sab * tau, sac * tau
                cs, sn = cs * cs1 - sn * sn1, cs * sn1 + sn * cs1
                return cs, sn, (mid + p, b - c, 0.0, mid - p)
        else:
            return -sn, cs, (mid, -c, 0.0, mid)
    return cs, sn, (mid, b, c, mid)


def _rotate(x: np.ndarray, y: np.ndarray, cs, sn):
    """Plane rotation of the vectors x and y in place (BLAS `rot`)."""
    x[...], y[...] = cs * x + sn * y, cs * y - np.conj(sn) * x


def _standardize_block(h: np.ndarray, z: np.ndarray, i: int):
    """The 2 x 2 block at rows and columns i, i + 1 of `h` in `lanv2`'s standard form, the
    rotation applied to the rest of h and to the Schur vectors `z`."""
    cs, sn, block = _lanv2(h[i, i], h[i, i + 1], h[i + 1, i], h[i + 1, i + 1])
    _rotate(h[i, i + 2:], h[i + 1, i + 2:], cs, sn)
    _rotate(h[:i, i], h[:i, i + 1], cs, sn)
    _rotate(z[:, i], z[:, i + 1], cs, sn)
    h[i, i], h[i, i + 1], h[i + 1, i], h[i + 1, i + 1] = block


def _reflector(x: np.ndarray) -> np.ndarray:
    """The unit vector u with (I - 2 u u^T) x a multiple of e_0 (zero for x = 0)."""
    u = x.copy()
    u[0] += np.copysign(np.linalg.norm(x), x[0])
    norm = np.linalg.norm(u)
    return u / norm if norm else u


def _reflect(h: np.ndarray, z: np.ndarray, u: np.ndarray, k: int, lo: int, hi: int):
    """H <- P H P and Z <- Z P for P = I - 2 u u^T acting on rows/columns k..k+len(u)-1
    of the active block lo..hi (H's rows beyond hi stay untouched: they are zero)."""
    rows = slice(k, k + len(u))
    h[rows, max(lo, k - 1):] -= 2 * np.outer(u, u @ h[rows, max(lo, k - 1):])
    last = min(k + len(u), hi) + 1
    h[:last, rows] -= 2 * np.outer(h[:last, rows] @ u, u)
    z[:, rows] -= 2 * np.outer(z[:, rows] @ u, u)


def _francis_sweep(h: np.ndarray, z: np.ndarray, lo: int, hi: int, sweep: int):
    """One implicit double-shift QR sweep on the active block lo..hi: the shifts are the
    eigenvalues of its trailing 2 x 2 block, or Wilkinson's exceptional shifts on every
    10th sweep."""
    if sweep % 10 == 0:
        s = abs(h[hi, hi - 1]) + (abs(h[hi - 1, hi - 2]) if hi - 2 >= lo else 0.0)
        h11 = 0.75 * s + h[hi, hi]
        trace, det = 2 * h11, h11 * h11 + 0.4375 * s * s
    else:
        trace = h[hi - 1, hi - 1] + h[hi, hi]
        det = h[hi - 1, hi - 1] * h[hi, hi] - h[hi - 1, hi] * h[hi, hi - 1]
    # the first column of (H - s1)(H - s2)
    x = h[lo, lo] * h[lo, lo] + h[lo, lo + 1] * h[lo + 1, lo] - trace * h[lo, lo] + det
    y = h[lo + 1, lo] * (h[lo, lo] + h[lo + 1, lo + 1] - trace)
    w = h[lo + 1, lo] * h[lo + 2, lo + 1]
    for k in range(lo, hi - 1):
        _reflect(h, z, _reflector(np.array([x, y, w])), k, lo, hi)
        if k > lo:
            h[k + 1:k + 3, k - 1] = 0
        x, y = h[k + 1, k], h[k + 2, k]
        w = h[k + 3, k] if k < hi - 2 else 0.0
    _reflect(h, z, _reflector(np.array([x, y])), hi - 1, lo, hi)
    if hi - 2 >= lo:
        h[hi, hi - 2] = 0


def _real_schur(h: np.ndarray, z: np.ndarray) -> bool:
    """Reduce the real Hessenberg matrix `h` to real Schur form in place, accumulating the
    transformations into `z`; False where the iteration did not converge."""
    n = h.shape[0]
    hi, sweeps = n - 1, 0
    while hi > 0:
        lo = _active_start(h, hi)
        if lo == hi:  # a 1 x 1 block has split off
            hi, sweeps = hi - 1, 0
        elif lo == hi - 1:  # a 2 x 2 block
            _standardize_block(h, z, hi - 1)
            hi, sweeps = hi - 2, 0
        else:
            sweeps += 1
            if sweeps > _MAX_SWEEPS * max(10, n):
                return False
            _francis_sweep(h, z, lo, hi, sweeps)
    return True


# -- the complex Schur form ---------------------------------------------------------------------

def _wilkinson_shift(h: np.ndarray, hi: int) -> complex:
    """The eigenvalue of the trailing 2 x 2 block of `h` (rows hi - 1, hi) nearer to
    h[hi, hi] (LAPACK's `lahqr`)."""
    x = 0.5 * (h[hi - 1, hi - 1] - h[hi, hi])
    y = np.sqrt(x * x + h[hi - 1, hi] * h[hi, hi - 1])
    if (np.conj(x) * y).real < 0:
        y = -y
    return h[hi, hi] - h[hi - 1, hi] * h[hi, hi - 1] / (x + y) if x + y != 0 else h[hi, hi]


def _givens(x: complex, y: complex):
    """(c, s), c real, with [[c, s], [-conj(s), c]] [x, y] = [r, 0]."""
    r = np.hypot(abs(x), abs(y))
    if r == 0:
        return 1.0, 0j
    if x == 0:
        return 0.0, 1 + 0j
    return abs(x) / r, (x / abs(x)) * np.conj(y) / r


def _complex_schur(h: np.ndarray, z: np.ndarray) -> bool:
    """Reduce the complex Hessenberg matrix `h` to upper triangular form in place,
    accumulating the transformations into `z`; False where it did not converge."""
    n = h.shape[0]
    hi, sweeps = n - 1, 0
    while hi > 0:
        lo = _active_start(h, hi)
        if lo == hi:
            hi, sweeps = hi - 1, 0
            continue
        sweeps += 1
        if sweeps > _MAX_SWEEPS * max(10, n):
            return False
        if sweeps % 10 == 0:  # exceptional shift
            shift = h[hi, hi] + 0.75 * abs(h[hi, hi - 1].real)
        else:
            shift = _wilkinson_shift(h, hi)
        x, y = h[lo, lo] - shift, h[lo + 1, lo]
        for k in range(lo, hi):
            if k > lo:
                x, y = h[k, k - 1], h[k + 1, k - 1]
            c, s = _givens(x, y)
            _rotate(h[k, max(lo, k - 1):], h[k + 1, max(lo, k - 1):], c, s)
            last = min(k + 2, hi) + 1
            _rotate(h[:last, k], h[:last, k + 1], c, np.conj(s))
            _rotate(z[:, k], z[:, k + 1], c, np.conj(s))
            if k > lo:
                h[k + 1, k - 1] = 0
    return True


# -- on the host, per matrix of a batch --------------------------------------------------------

def _each_matrix(a: np.ndarray, fn, shapes):
    """`fn` (one matrix -> arrays of `shapes`, or None where it fails) over the matrices
    of the batch `a`, in float64 or complex128, rounded back to a's dtype; NaNs where fn
    fails or the matrix is not finite."""
    wide = np.complex128 if a.dtype.kind == "c" else np.float64
    results = [np.full(a.shape[:-2] + s, np.nan, a.dtype) for s in shapes]
    for index in np.ndindex(a.shape[:-2]):
        matrix = a[index].astype(wide)
        out = fn(matrix) if np.isfinite(matrix).all() else None
        if out is not None:
            for result, value in zip(results, out):
                result[index] = value
    return tuple(results)


def _host_gehrd(a: np.ndarray):
    n = a.shape[-1]
    return _each_matrix(a, _gehrd, [(n, n), (n - 1,)])


def _schur_matrix(a: np.ndarray):
    """(T, Z) of one float64 or complex128 matrix; None where it did not converge."""
    packed, taus = _gehrd(a)
    z = _hessenberg_q(packed, taus)
    h = np.triu(packed, -1)
    converged = (_complex_schur if a.dtype.kind == "c" else _real_schur)(h, z)
    if not converged:
        return None
    return np.triu(h, -1 if a.dtype.kind == "f" else 0), z


def _host_schur(a: np.ndarray):
    n = a.shape[-1]
    return _each_matrix(a, _schur_matrix, [(n, n), (n, n)])


# -- on the device ------------------------------------------------------------------------------

def _shapes(a, *shapes):
    dtype = np.dtype(a.dtype.name)
    return tuple(ShapedArray(s, dtype) for s in shapes)


@custom_jvp
def _hessenberg(a):
    return tuple(pure_callback(_host_gehrd, _shapes(a, a.shape, (*a.shape[:-2], a.shape[-1] - 1)), a,
                               vmap_method="broadcast_all"))


@_hessenberg.defjvp
def _hessenberg_jvp(primals, tangents):
    raise NotImplementedError("Differentiation rule for 'hessenberg' not implemented")


@custom_jvp
def _schur(a):
    return tuple(pure_callback(_host_schur, _shapes(a, a.shape, a.shape), a, vmap_method="broadcast_all"))


@_schur.defjvp
def _schur_jvp(primals, tangents):
    raise NotImplementedError("Differentiation rule for 'schur' not implemented")


_jitted_hessenberg = jit(_hessenberg)
_jitted_schur = jit(_schur)


def hessenberg_factors(a):
    """(packed, taus): LAPACK's `gehrd` of each square float or complex matrix of `a`
    (n >= 1), computed on the host: the Hessenberg form on and above the first
    subdiagonal of `packed`, the Householder reflectors below it, their scalar factors
    in `taus` (..., n - 1).

    >>> import jaxwg.numpy as jnp
    >>> packed, taus = hessenberg_factors(jnp.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [4.0, 0.0, 1.0]]))
    >>> packed.tolist(), taus.tolist()
    ([[1.0, 0.0, 0.0], [-4.0, 1.0, 0.0], [1.0, 0.0, 1.0]], [1.0, 0.0])
    """
    return _jitted_hessenberg(a)


def schur_factors(a):
    """(T, Z) with a = Z T Z^H for each square float or complex matrix of `a`, computed on
    the host: Z orthogonal (unitary), T quasi-upper-triangular (real input: 2 x 2
    diagonal blocks for complex eigenvalue pairs, in LAPACK's standard form) or upper
    triangular (complex input).

    >>> import jaxwg.numpy as jnp
    >>> t, z = schur_factors(jnp.array([[2.0, 0.0], [1.0, 2.0]]))
    >>> t.tolist(), z.tolist()
    ([[2.0, -1.0], [0.0, 2.0]], [[0.0, -1.0], [1.0, 0.0]])
    """
    return _jitted_schur(a)
