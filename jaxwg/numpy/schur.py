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

They compute in float64 (complex128) and round to the input's precision. For `schur`, a
matrix holding NaN or inf, or one on which the iteration fails to converge, gives NaNs
(JAX gives NaNs where LAPACK reports failure); in `hessenberg` they spread through the
reflections, as in LAPACK. Under `jit` the program stops at this point to
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
_TINY = np.finfo(np.float64).tiny


def _norm(x: np.ndarray) -> float:
    """The 2-norm of `x`, scaled so that tiny and huge entries neither underflow nor
    overflow when squared (as BLAS `nrm2`)."""
    scale = np.abs(x).max(initial=0.0)
    return scale * np.linalg.norm(x / scale) if scale else 0.0
_MAX_SWEEPS = 30  # per eigenvalue, as LAPACK's lahqr (ITMAX = 30 max(10, n))


# -- Householder reduction to Hessenberg form --------------------------------------------------

def _larfg(x: np.ndarray):
    """(v, tau, beta) with (I - tau v v^H)^H x = beta e_0, v[0] = 1 and beta real:
    LAPACK's `larfg` (tau = 0, v = e_0 where x is already a multiple of e_0)."""
    alpha = x[0]
    xnorm = _norm(x[1:])
    v = np.zeros_like(x)
    v[0] = 1
    if xnorm == 0 and np.imag(alpha) == 0:
        return v, x.dtype.type(0), alpha
    beta = -np.copysign(np.hypot(abs(alpha), xnorm), np.real(alpha))
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

def _negligible(h: np.ndarray, k: int) -> bool:
    """Whether the subdiagonal entry h[k, k - 1] is negligible: LAPACK's lahqr test (tiny
    in absolute terms, or next to its neighbours by Ahues and Kressner's criterion)."""
    n = h.shape[0]
    small = _TINY * (n / _EPS)
    sub, above = abs(h[k, k - 1]), abs(h[k - 1, k])
    if sub <= small:
        return True
    tst = abs(h[k - 1, k - 1]) + abs(h[k, k])
    if tst == 0:
        tst += (abs(h[k - 1, k - 2]) if k >= 2 else 0.0) + (abs(h[k + 1, k]) if k + 1 < n else 0.0)
    if sub > _EPS * tst:
        return False
    ab, ba = max(sub, above), min(sub, above)
    diff = abs(h[k - 1, k - 1] - h[k, k])
    aa, bb = max(abs(h[k, k]), diff), min(abs(h[k, k]), diff)
    return ba * (ab / (aa + ab)) <= max(small, _EPS * (bb * (aa / (aa + ab))))


def _active_start(h: np.ndarray, hi: int) -> int:
    """The first row of the unreduced block that ends at row `hi`, the negligible
    subdiagonal entry above it set to zero."""
    lo = hi
    while lo > 0 and not _negligible(h, lo):
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
    scale = np.abs(x).max()
    if scale == 0:
        return np.zeros_like(x)
    u = x / scale
    u[0] += np.copysign(np.linalg.norm(u), u[0])
    return u / np.linalg.norm(u)


def _reflect(h: np.ndarray, z: np.ndarray, u: np.ndarray, k: int, lo: int, hi: int):
    """H <- P H P and Z <- Z P for P = I - 2 u u^T acting on rows/columns k..k+len(u)-1
    of the active block lo..hi (H's rows beyond hi stay untouched: they are zero)."""
    rows = slice(k, k + len(u))
    h[rows, max(lo, k - 1):] -= 2 * np.outer(u, u @ h[rows, max(lo, k - 1):])
    last = min(k + len(u), hi) + 1
    h[:last, rows] -= 2 * np.outer(h[:last, rows] @ u, u)
    z[:, rows] -= 2 * np.outer(z[:, rows] @ u, u)


def _shifts(h11: float, h12: float, h21: float, h22: float):
    """(re1, im1, re2, im2): the shifts of a double step from the 2 x 2 block, as LAPACK's
    lahqr: its complex conjugate eigenvalues, or twice its real eigenvalue nearer h22."""
    s = abs(h11) + abs(h12) + abs(h21) + abs(h22)
    if s == 0:
        return 0.0, 0.0, 0.0, 0.0
    h11, h12, h21, h22 = h11 / s, h12 / s, h21 / s, h22 / s
    tr = (h11 + h22) / 2
    det = (h11 - tr) * (h22 - tr) - h12 * h21
    rtdisc = np.sqrt(abs(det))
    if det >= 0:
        return tr * s, rtdisc * s, tr * s, -rtdisc * s
    near = tr + rtdisc if abs(tr + rtdisc - h22) <= abs(tr - rtdisc - h22) else tr - rtdisc
    return near * s, 0.0, near * s, 0.0


def _first_column(h: np.ndarray, m: int, shifts) -> np.ndarray:
    """The direction of the first column of (H - s1)(H - s2) at row m, without
    cancellation (LAPACK's lahqr)."""
    re1, im1, re2, im2 = shifts
    (h00, h01), (h10, h11), (_, h21) = h[m:m + 3, m:m + 2]
    scale = abs(h00 - re2) + abs(im2) + abs(h10)
    h10s = h10 / scale
    v = np.array([h10s * h01 + (h00 - re1) * ((h00 - re2) / scale) - im1 * (im2 / scale),
                  h10s * (h00 + h11 - re1 - re2), h10s * h21])
    return v / np.abs(v).sum()


def _francis_sweep(h: np.ndarray, z: np.ndarray, lo: int, hi: int, sweep: int):
    """One implicit double-shift QR sweep on the active block lo..hi, as LAPACK's lahqr:
    the shifts from its trailing 2 x 2 block, or exceptional ones every 10th sweep; the
    bulge starts below two consecutive small subdiagonal entries where there are."""
    if sweep % 10 == 0:
        k = hi if sweep % 20 == 0 else lo  # from the bottom, then from the top
        s = abs(h[k, k - 1]) + abs(h[k - 1, k - 2]) if k == hi else abs(h[k + 1, k]) + abs(h[k + 2, k + 1])
        h11 = 0.75 * s + h[k, k]
        shifts = _shifts(h11, -0.4375 * s, s, h11)
    else:
        shifts = _shifts(h[hi - 1, hi - 1], h[hi - 1, hi], h[hi, hi - 1], h[hi, hi])
    for m in range(hi - 2, lo - 1, -1):
        v = _first_column(h, m, shifts)
        if m == lo:
            break
        tail = abs(h[m, m - 1]) * (abs(v[1]) + abs(v[2]))
        if tail <= _EPS * abs(v[0]) * (abs(h[m - 1, m - 1]) + abs(h[m, m]) + abs(h[m + 1, m + 1])):
            break
    x, y, w = v
    for k in range(m, hi - 1):
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
    block = h[hi - 1:hi + 1, hi - 1:hi + 1]
    scale = np.abs(block).max()
    if scale == 0:
        return h[hi, hi]
    (a, b), (c, d) = block / scale
    x = 0.5 * (a - d)
    y = np.sqrt(x * x + b * c)
    if (np.conj(x) * y).real < 0:
        y = -y
    return h[hi, hi] - scale * (b * c / (x + y)) if x + y != 0 else h[hi, hi]


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

def _each_matrix(a: np.ndarray, fn, shapes, finite_only: bool):
    """`fn` (one matrix -> arrays of `shapes`, or None where it fails) over the matrices
    of the batch `a`, in float64 or complex128, rounded back to a's dtype; NaNs where fn
    fails, or (`finite_only`) where the matrix is not finite."""
    wide = np.complex128 if a.dtype.kind == "c" else np.float64
    results = [np.full(a.shape[:-2] + s, np.nan, a.dtype) for s in shapes]
    for index in np.ndindex(a.shape[:-2]):
        matrix = a[index].astype(wide)
        out = fn(matrix) if not finite_only or np.isfinite(matrix).all() else None
        if out is not None:
            for result, value in zip(results, out):
                result[index] = value
    return tuple(results)


def _host_gehrd(a: np.ndarray):
    n = a.shape[-1]
    # NaN and inf spread through the reflections as through LAPACK's
    with np.errstate(invalid="ignore", over="ignore"):
        return _each_matrix(a, _gehrd, [(n, n), (n - 1,)], finite_only=False)


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
    return _each_matrix(a, _schur_matrix, [(n, n), (n, n)], finite_only=True)


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
