"""`lax.fft`: discrete Fourier transforms over an array's trailing axes.

One primitive, `fft` (`fft_type`, `fft_lengths`), as JAX's. Its lowering is a
composite of other primitives (`_transform`), traced once per shape and lowered in
place, so its kernels fuse with their neighbours:

* a length of at most `DIRECT` points, or one with no factor that small but at most
  `DIRECT_MAX` points, is one product with the transform's matrix (a complex
  `dot_general`, so the matmul routine does the work);
* a longer composite length n = n1 * n2 takes the four-step Cooley-Tukey split:
  n2 transforms of n1 points (one product), a twiddle multiply, then n1 transforms
  of n2 points (recursively), read out transposed;
* a longer length with a large prime factor becomes Bluestein's convolution with a
  chirp, done with transforms of a power of two.

Matrices, twiddles and chirps are computed on the host in float64 and rounded once,
so the error is that of the float32 sums: about log(n) products of at most `DIRECT`
terms.

>>> import jaxwg.numpy as jnp
>>> from jaxwg import lax
>>> x = jnp.array([1.0, 2.0, 3.0, 4.0], dtype=jnp.complex64)
>>> lax.fft(x, lax.FftType.FFT, (4,)).tolist()
[(10+0j), (-2+2j), (-2+0j), (-2-2j)]
"""

from __future__ import annotations

import enum
import functools
import math

import numpy as np

from ..core import dtypes as dt
from ..frontend import primitives as P
from ..frontend.array import aval_of
from ..frontend.aval import ShapedArray
from ..frontend.device import default_device, placed_on
from ..frontend.complex_lowering import STORAGE_RULES
from ..frontend.jaxpr import trace_body
from ..frontend.jit import jit, lower_jaxpr
from ..frontend.trace import bind
from . import lax

__all__ = ["FftType", "fft"]

# Lengths up to DIRECT points are one product with their matrix; so are lengths up to
# DIRECT_MAX without a factor of at most DIRECT (a prime's matrix is n x n).
DIRECT = 64
DIRECT_MAX = 1024


class FftType(enum.IntEnum):
    """The kind of transform: complex forward and inverse, real to Hermitian and back."""

    FFT = 0
    IFFT = 1
    RFFT = 2
    IRFFT = 3


def _fft_abstract_eval(x, *, fft_type, fft_lengths):
    name = "fft"
    k = len(fft_lengths)
    if not 1 <= k <= 3 or x.ndim < k:
        raise ValueError(f"{name}: fft_lengths {fft_lengths} must name 1 to 3 trailing axes of an "
                         f"operand of shape {x.shape}")
    fft_type = FftType(fft_type)
    if fft_type is FftType.RFFT:
        if x.dtype not in dt.COMPLEX_OF:
            raise TypeError(f"{name}: RFFT takes float32 or float64, got {x.dtype.name}")
        if x.shape[-k:] != tuple(fft_lengths):
            raise ValueError(f"{name}: RFFT lengths {fft_lengths} must match the operand's trailing "
                             f"axes {x.shape[-k:]}")
        shape = (*x.shape[:-1], fft_lengths[-1] // 2 + 1)
        return ShapedArray(shape, dt.COMPLEX_OF[x.dtype], x.weak_type)
    if not x.dtype.is_complex:
        raise TypeError(f"{name}: {fft_type.name} takes a complex operand, got {x.dtype.name}")
    if fft_type is FftType.IRFFT:
        want = (*fft_lengths[:-1], fft_lengths[-1] // 2 + 1)
        if x.shape[-k:] != want:
            raise ValueError(f"{name}: IRFFT of lengths {fft_lengths} takes trailing axes {want}, "
                             f"got {x.shape[-k:]}")
        return ShapedArray((*x.shape[:-1], fft_lengths[-1]), dt.PART[x.dtype], x.weak_type)
    if x.shape[-k:] != tuple(fft_lengths):
        raise ValueError(f"{name}: lengths {fft_lengths} must match the operand's trailing axes "
                         f"{x.shape[-k:]}")
    return ShapedArray(x.shape, x.dtype, x.weak_type)


fft_p = P._declare("fft", _fft_abstract_eval)


@functools.partial(jit, static_argnums=(1, 2))
def fft(x, fft_type, fft_lengths):
    """The discrete Fourier transform of `x` over its `len(fft_lengths)` trailing axes
    (1 to 3): `FFT` and `IFFT` (scaled by 1 / n) of complex input, `RFFT` of real input
    (the n // 2 + 1 non-negative frequencies of the last axis), `IRFFT` back to real.

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg import lax
    >>> lax.fft(jnp.array([1.0, 0.0, -1.0, 0.0]), lax.FftType.RFFT, (4,)).tolist()
    [0j, (2+0j), 0j]
    """
    fft_type = FftType[fft_type.upper()] if isinstance(fft_type, str) else FftType(fft_type)
    dtype = aval_of(x).dtype
    if fft_type is FftType.RFFT:
        if dtype.is_complex:
            raise ValueError("only real valued inputs supported for rfft")
        x = lax.convert_element_type(x, dt.float64 if dtype is dt.float64 else dt.float32)
    elif not dtype.is_complex:
        x = lax.convert_element_type(x, dt.complex128 if dtype is dt.float64 else dt.complex64)
    return bind(fft_p, x, fft_type=fft_type, fft_lengths=tuple(int(n) for n in fft_lengths))


# -- the composite -----------------------------------------------------------------------------


def _sign(inverse: bool) -> int:
    return 1 if inverse else -1


def _roots(jk: np.ndarray, n: int, inverse: bool, dtype: str) -> np.ndarray:
    """exp(-+2 pi i jk / n) for integer jk, exact at the quarter turns (where float64's
    cos(pi / 2) would leave 6e-17)."""
    jk = jk % n
    out = np.exp(_sign(inverse) * 2j * np.pi * jk / n)
    quarter = (4 * jk) % n == 0
    turns = (4 * jk[quarter]) // n
    axis_points = np.array([complex(1, 0), complex(0, -1), complex(-1, 0), complex(0, 1)])
    out[quarter] = (np.conj(axis_points) if inverse else axis_points)[turns]
    return out.astype(dtype)


@functools.lru_cache(maxsize=64)
def _matrix(n: int, inverse: bool, dtype: str) -> np.ndarray:
    """The n x n transform matrix exp(-+2 pi i jk / n)."""
    return _roots(np.outer(np.arange(n), np.arange(n)), n, inverse, dtype)


@functools.lru_cache(maxsize=64)
def _twiddles(n1: int, n2: int, inverse: bool, dtype: str) -> np.ndarray:
    """exp(-+2 pi i j2 k1 / n) at [j2, k1], n = n1 * n2."""
    return _roots(np.outer(np.arange(n2), np.arange(n1)), n1 * n2, inverse, dtype)


def _small_factor(n: int) -> int | None:
    """The largest factor of n in [2, DIRECT] (None if there is none)."""
    return next((f for f in range(min(DIRECT, n - 1), 1, -1) if n % f == 0), None)


def _last_axis(x, inverse: bool):
    """The unscaled transform of complex `x` along its last axis."""
    n = aval_of(x).shape[-1]
    dtype = aval_of(x).dtype.name
    if n <= 1:
        return x
    factor = _small_factor(n)
    if n <= DIRECT or (factor is None and n <= DIRECT_MAX):
        return _times_matrix(x, _matrix(n, inverse, dtype))
    if factor is None:
        return _bluestein(x, inverse)
    return _four_step(x, factor, n // factor, inverse)


def _times_matrix(x, m: np.ndarray):
    """x @ m over x's last axis."""
    nd = aval_of(x).ndim
    return lax.dot_general(x, lax.convert_element_type(m, m.dtype), (((nd - 1,), (0,)), ((), ())))


def _times_table(x, table: np.ndarray):
    """x times a host table over x's trailing axes (broadcast over the leading ones)."""
    shape, nd = aval_of(x).shape, aval_of(x).ndim
    t = lax.convert_element_type(table, aval_of(x).dtype)
    t = lax.broadcast_in_dim(t, shape, tuple(range(nd - table.ndim, nd)))
    return lax.mul(x, t)


def _swap_last(x):
    nd = aval_of(x).ndim
    return lax.transpose(x, (*range(nd - 2), nd - 1, nd - 2))


def _four_step(x, n1: int, n2: int, inverse: bool):
    # x[j1 n2 + j2] -> X[k1 + n1 k2] = sum_j2 w_n2^(j2 k2) w_n^(j2 k1) sum_j1 w_n1^(j1 k1) x[..]
    lead = aval_of(x).shape[:-1]
    dtype = aval_of(x).dtype.name
    y = _swap_last(lax.reshape(x, (*lead, n1, n2)))                 # [j2, j1]
    y = _times_matrix(y, _matrix(n1, inverse, dtype))               # [j2, k1]
    y = _times_table(y, _twiddles(n1, n2, inverse, dtype))
    y = _last_axis(_swap_last(y), inverse)                          # [k1, k2]
    return lax.reshape(_swap_last(y), (*lead, n1 * n2))             # [k2, k1] -> k


@functools.lru_cache(maxsize=16)
def _chirp(n: int, inverse: bool, dtype: str) -> tuple[np.ndarray, np.ndarray]:
    """Bluestein's chirp exp(-+pi i j^2 / n) (j^2 reduced mod 2n) and the transform of
    its conjugate, wrapped around a power-of-two length m >= 2n - 1."""
    j = np.arange(n)
    chirp = _roots(j * j, 2 * n, inverse, complex)
    m = 1 << (2 * n - 2).bit_length()
    wrapped = np.zeros(m, complex)
    wrapped[:n] = np.conj(chirp)
    wrapped[m - n + 1:] = np.conj(chirp[1:][::-1])
    return chirp.astype(dtype), np.fft.fft(wrapped).astype(dtype)


def _bluestein(x, inverse: bool):
    # X_k = c_k sum_j (x_j c_j) conj(c_(k-j)): a convolution, by transforms of length m.
    shape = aval_of(x).shape
    n, dtype = shape[-1], aval_of(x).dtype.name
    chirp, kernel = _chirp(n, inverse, dtype)
    m = kernel.shape[0]
    a = _times_table(x, chirp)
    a = lax.pad(a, lax.convert_element_type(0, dtype), [(0, 0, 0)] * (len(shape) - 1) + [(0, m - n, 0)])
    spectrum = _times_table(_last_axis(a, False), kernel)
    conv = _last_axis(spectrum, True)  # m times the inverse transform
    conv = lax.slice_in_dim(conv, 0, n, axis=len(shape) - 1)
    return _times_table(conv, chirp / m)


def _along(x, axis: int, fn):
    """`fn` applied along `axis` of x (moved last and back)."""
    nd = aval_of(x).ndim
    if axis == nd - 1:
        return fn(x)
    perm = [a for a in range(nd) if a != axis] + [axis]
    back = list(np.argsort(perm))
    return lax.transpose(fn(lax.transpose(x, tuple(perm))), tuple(back))


def _complex_transform(x, axes, inverse: bool):
    for axis in axes:
        x = _along(x, axis, lambda v: _last_axis(v, inverse))
    if inverse:
        scale = 1 / math.prod(aval_of(x).shape[a] for a in axes)
        x = lax.mul(x, lax.convert_element_type(scale, aval_of(x).dtype))
    return x


def _hermitian_full(x, n: int):
    """The full spectrum of length n along the last axis from its first n // 2 + 1
    terms: X[n - k] = conj(X[k])."""
    nd = aval_of(x).ndim
    tail = lax.rev(lax.conj(lax.slice_in_dim(x, 1, n - n // 2, axis=nd - 1)), (nd - 1,))
    return lax.concatenate([x, tail], nd - 1)


def _transform(x, *, fft_type, fft_lengths):
    if 0 in fft_lengths or 0 in aval_of(x).shape:  # nothing to sum: an empty result or zeros
        out = _fft_abstract_eval(aval_of(x), fft_type=fft_type, fft_lengths=fft_lengths)
        return lax.full(out.shape, 0, out.dtype)
    nd = aval_of(x).ndim
    axes = list(range(nd - len(fft_lengths), nd))
    if fft_type is FftType.FFT:
        return _complex_transform(x, axes, False)
    if fft_type is FftType.IFFT:
        return _complex_transform(x, axes, True)
    if fft_type is FftType.RFFT:
        complex_dtype = dt.COMPLEX_OF[aval_of(x).dtype]
        out = _complex_transform(lax.convert_element_type(x, complex_dtype), axes, False)
        return lax.slice_in_dim(out, 0, fft_lengths[-1] // 2 + 1, axis=nd - 1)
    x = _complex_transform(x, axes[:-1], True)
    full = _hermitian_full(x, fft_lengths[-1])
    return lax.real(_complex_transform(full, axes[-1:], True))


@functools.lru_cache(maxsize=256)
def _traced(aval: ShapedArray, fft_type, fft_lengths, platform: str):
    # Per platform: the matrices and twiddles are constants on the device that runs it.
    return trace_body(lambda x: [_transform(x, fft_type=fft_type, fft_lengths=fft_lengths)], [aval],
                      f"fft {fft_type.name}")


def _lowering(out_aval, x, *, fft_type, fft_lengths):
    device = x.device or default_device()
    with placed_on(device):
        closed = _traced(_operand_aval(x, fft_type), fft_type, fft_lengths, device.platform)
    return lower_jaxpr(closed, [x])[0]


def _operand_aval(x, fft_type) -> ShapedArray:
    """The operand's aval from its node (which holds a complex value's parts as a
    trailing pair)."""
    if fft_type is FftType.RFFT:
        return ShapedArray(x.shape, x.dtype)
    complex_dtype = dt.COMPLEX_OF[x.dtype]
    return ShapedArray(x.shape[:-1], complex_dtype)


P.lowering_rules[fft_p] = _lowering
STORAGE_RULES.add(fft_p)


# -- transposition ----------------------------------------------------------------------------


def fft_transpose(ct, x, *, fft_type, fft_lengths):
    """The transpose of `fft` (a linear map of its operand), as JAX's."""
    # The transform matrices are symmetric, so FFT and IFFT are their own transposes;
    # RFFT's and IRFFT's follow JAX's (unconjugated cotangents).
    if fft_type in (FftType.FFT, FftType.IFFT):
        return [fft(ct, fft_type, fft_lengths)]
    nd = aval_of(ct).ndim
    if fft_type is FftType.RFFT:
        n = fft_lengths[-1]
        width = aval_of(ct).shape[-1]
        padded = lax.pad(ct, lax.convert_element_type(0, aval_of(ct).dtype),
                         [(0, 0, 0)] * (nd - 1) + [(0, n - width, 0)])
        return [lax.real(fft(padded, FftType.FFT, fft_lengths))]
    y = fft(ct, FftType.RFFT, fft_lengths)
    width, odd = aval_of(y).shape[-1], fft_lengths[-1] % 2
    mask = np.concatenate([[1.0], np.full(width - 2 + odd, 2.0), np.ones(1 - odd)])
    scale = mask / math.prod(fft_lengths)
    return [lax.conj(_times_table(y, scale))]
