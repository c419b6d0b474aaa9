"""`jaxwg.numpy.fft`: discrete Fourier transforms, as JAX's `jnp.fft`.

The transforms (`fft`, `ifft`, `rfft`, `irfft`, `hfft`, `ihfft` and their 2-D and
N-D forms) crop or zero-pad each transformed axis to the requested length, move the
axes last and call `lax.fft` (at most three axes a call), then scale by `norm`
("backward": the inverse by 1/n; "ortho": both by 1/sqrt(n); "forward": the forward
one by 1/n). Sample frequencies (`fftfreq`, `rfftfreq`) and the shifts that put the
zero frequency in the middle (`fftshift`, `ifftshift`) are computed as JAX computes
them.

>>> import jaxwg.numpy as jnp
>>> jnp.fft.fftshift(jnp.fft.fftfreq(5)).tolist()
[-0.4000000059604645, -0.20000000298023224, 0.0, 0.20000000298023224, 0.4000000059604645]
"""

from __future__ import annotations

import math
import operator

from .. import errors as _errors
from .. import lax
from ..frontend.array import aval_of
from ..lax.fft import FftType
from . import creation, manipulation, more_math, padding, structure
from ._util import check_arraylike, ensure_arraylike, to_array

__all__ = ["fft", "fft2", "fftfreq", "fftn", "fftshift", "hfft", "ifft", "ifft2", "ifftn",
           "ifftshift", "ihfft", "irfft", "irfft2", "irfftn", "rfft", "rfft2", "rfftfreq", "rfftn"]

_NORMS = ("backward", "ortho", "forward")


def _transform(name: str, fft_type: FftType, a, s, axes, norm):
    """The N-D transform of `a` over `axes` at lengths `s` (JAX's `_fft_core`)."""
    check_arraylike(f"jax.numpy.fft.{name}", a)
    x = to_array(a)
    if norm is not None and norm not in _NORMS:
        raise ValueError(f'Invalid norm value {norm}; should be "backward","ortho" or "forward".')
    if s is not None:
        s = tuple(operator.index(n) for n in s)
        if any(n <= 0 for n in s):
            raise ValueError("Shape should be positive.")
        if axes is not None and len(s) != len(axes):
            raise ValueError("Shape and axes have different lengths.")
    ndim = aval_of(x).ndim
    given = axes
    if axes is None:
        axes = range(ndim) if s is None else range(ndim - len(s), ndim)
    axes = tuple(operator.index(a) for a in axes)
    if len(axes) != len(set(axes)):
        raise ValueError(f"jax.numpy.fft.{name} does not support repeated axes. Got axes {axes}.")
    last = tuple(range(ndim - len(axes), ndim))
    if given is not None:
        x = manipulation.moveaxis(x, axes, last)
    if s is None:
        shape = aval_of(x).shape
        s = [shape[k] for k in last]
        if fft_type is FftType.IRFFT and s:
            s[-1] = max(0, 2 * (s[-1] - 1))
    else:
        x = _fit(x, last, s, fft_type)
    out = _nd(x, fft_type, tuple(s))
    n = math.prod(s)
    if norm not in (None, "backward") and n:  # (no length: an empty result)
        inverse = name.startswith("i")
        scale = math.sqrt(n) if norm == "ortho" else n
        out = out * (scale if inverse else 1 / scale)
    return manipulation.moveaxis(out, last, axes) if given is not None else out


def _fit(x, axes, s, fft_type):
    """`x` cropped or zero-padded to the lengths `s` along `axes` (an inverse real
    transform's last axis to n // 2 + 1 terms)."""
    shape = list(aval_of(x).shape)
    want = list(shape)
    for axis, n in zip(axes, s):
        want[axis] = n
    if fft_type is FftType.IRFFT:
        want[axes[-1]] = want[axes[-1]] // 2 + 1
    x = x[tuple(slice(0, n) for n in want)]
    pads = [(0, n - min(n, m)) for n, m in zip(want, shape)]
    return padding.pad(x, pads) if any(p for _, p in pads) else x


def _nd(x, fft_type: FftType, s: tuple):
    """`lax.fft` over the trailing len(s) axes, three at a time (two and two for four)."""
    if len(s) <= 3:
        return lax.fft(x, fft_type, s)
    k = 2 if len(s) == 4 else 3
    ndim = aval_of(x).ndim
    rest = tuple(range(ndim - len(s), ndim - k))
    moved = tuple(range(ndim - len(s) + k, ndim))
    if fft_type in (FftType.FFT, FftType.RFFT):
        x = manipulation.moveaxis(lax.fft(x, fft_type, s[-k:]), rest, moved)
        return manipulation.moveaxis(_nd(x, FftType.FFT, s[:-k]), moved, rest)
    x = manipulation.moveaxis(_nd(manipulation.moveaxis(x, rest, moved), FftType.IFFT, s[:-k]),
                              moved, rest)
    return lax.fft(x, fft_type, s[-k:])


def _one_axis(name: str, axis) -> None:
    if isinstance(axis, (list, tuple)):
        raise ValueError(f"jax.numpy.fft.{name} does not support multiple axes. Please use "
                         f"jax.numpy.fft.{name}n. Got axis = {axis}.")


def fft(a, n=None, axis: int = -1, norm=None):
    """The 1-D discrete Fourier transform along `axis`, cropped or zero-padded to `n`.

    >>> import jaxwg.numpy as jnp
    >>> jnp.fft.fft(jnp.array([1.0, 2.0, 3.0, 4.0])).tolist()
    [(10+0j), (-2+2j), (-2+0j), (-2-2j)]
    """
    _one_axis("fft", axis)
    return _transform("fft", FftType.FFT, a, None if n is None else [n], [axis], norm)


def ifft(a, n=None, axis: int = -1, norm=None):
    """The 1-D inverse transform (scaled by 1 / n with the default `norm`).

    >>> import jaxwg.numpy as jnp
    >>> jnp.fft.ifft(jnp.array([4.0, 0.0, 0.0, 0.0])).tolist()
    [(1+0j), (1+0j), (1+0j), (1+0j)]
    """
    _one_axis("ifft", axis)
    return _transform("ifft", FftType.IFFT, a, None if n is None else [n], [axis], norm)


def rfft(a, n=None, axis: int = -1, norm=None):
    """The transform of real input: its n // 2 + 1 non-negative frequencies.

    >>> import jaxwg.numpy as jnp
    >>> jnp.fft.rfft(jnp.array([1.0, 2.0, 3.0, 4.0])).tolist()
    [(10+0j), (-2+2j), (-2+0j)]
    """
    _one_axis("rfft", axis)
    return _transform("rfft", FftType.RFFT, a, None if n is None else [n], [axis], norm)


def irfft(a, n=None, axis: int = -1, norm=None):
    """The real signal of length `n` (default 2 (m - 1)) whose `rfft` is `a`.

    >>> import jaxwg.numpy as jnp
    >>> jnp.fft.irfft(jnp.array([10.0, -2 + 2j, -2.0])).tolist()
    [1.0, 2.0, 3.0, 4.0]
    """
    _one_axis("irfft", axis)
    return _transform("irfft", FftType.IRFFT, a, None if n is None else [n], [axis], norm)


def hfft(a, n=None, axis: int = -1, norm=None):
    """The real spectrum of a signal with Hermitian symmetry, given by its first half.

    >>> import jaxwg.numpy as jnp
    >>> jnp.fft.hfft(jnp.array([1.0, 2.0, 3.0])).tolist()
    [8.0, -2.0, 0.0, -2.0]
    """
    _one_axis("hfft", axis)
    conj = more_math.conj(ensure_arraylike("hfft", a))
    length = 2 * (aval_of(conj).shape[axis] - 1) if n is None else n
    return _transform("hfft", FftType.IRFFT, conj, None if n is None else [n], [axis], norm) * length


def ihfft(a, n=None, axis: int = -1, norm=None):
    """The inverse of `hfft`: the first half of a real signal's inverse transform.

    >>> import jaxwg.numpy as jnp
    >>> jnp.fft.ihfft(jnp.array([8.0, -2.0, 0.0, -2.0])).tolist()
    [(1+0j), (2+0j), (3+0j)]
    """
    _one_axis("ihfft", axis)
    x = to_array(a)
    length = aval_of(x).shape[axis] if n is None else n
    out = _transform("ihfft", FftType.RFFT, x, None if n is None else [n], [axis], norm)
    return more_math.conj(out) * (1 / length)


def fftn(a, s=None, axes=None, norm=None):
    """The N-D transform over `axes` (all by default, or the last len(s)).

    >>> import jaxwg.numpy as jnp
    >>> jnp.fft.fftn(jnp.ones((2, 2))).tolist()
    [[(4+0j), 0j], [0j, 0j]]
    """
    return _transform("fftn", FftType.FFT, a, s, axes, norm)


def ifftn(a, s=None, axes=None, norm=None):
    """The N-D inverse transform.

    >>> import jaxwg.numpy as jnp
    >>> jnp.fft.ifftn(jnp.array([[4.0, 0.0], [0.0, 0.0]])).tolist()
    [[(1+0j), (1+0j)], [(1+0j), (1+0j)]]
    """
    return _transform("ifftn", FftType.IFFT, a, s, axes, norm)


def rfftn(a, s=None, axes=None, norm=None):
    """The N-D transform of real input (the last axis halved).

    >>> import jaxwg.numpy as jnp
    >>> jnp.fft.rfftn(jnp.ones((2, 2))).tolist()
    [[(4+0j), 0j], [0j, 0j]]
    """
    return _transform("rfftn", FftType.RFFT, a, s, axes, norm)


def irfftn(a, s=None, axes=None, norm=None):
    """The real N-D signal whose `rfftn` is `a`.

    >>> import jaxwg.numpy as jnp
    >>> jnp.fft.irfftn(jnp.array([[4.0, 0.0], [0.0, 0.0]])).tolist()
    [[1.0, 1.0], [1.0, 1.0]]
    """
    return _transform("irfftn", FftType.IRFFT, a, s, axes, norm)


def _two_axes(name: str, axes) -> tuple:
    if len(axes) != 2:
        raise ValueError(f"jax.numpy.fft.{name} only supports 2 axes. Got axes = {axes}.")
    return tuple(axes)


def fft2(a, s=None, axes=(-2, -1), norm=None):
    """The 2-D transform over `axes`.

    >>> import jaxwg.numpy as jnp
    >>> jnp.fft.fft2(jnp.ones((2, 2))).tolist()
    [[(4+0j), 0j], [0j, 0j]]
    """
    return _transform("fft2", FftType.FFT, a, s, _two_axes("fft2", axes), norm)


def ifft2(a, s=None, axes=(-2, -1), norm=None):
    """The 2-D inverse transform.

    >>> import jaxwg.numpy as jnp
    >>> jnp.fft.ifft2(jnp.array([[4.0, 0.0], [0.0, 0.0]])).tolist()
    [[(1+0j), (1+0j)], [(1+0j), (1+0j)]]
    """
    return _transform("ifft2", FftType.IFFT, a, s, _two_axes("ifft2", axes), norm)


def rfft2(a, s=None, axes=(-2, -1), norm=None):
    """The 2-D transform of real input.

    >>> import jaxwg.numpy as jnp
    >>> jnp.fft.rfft2(jnp.ones((2, 2))).tolist()
    [[(4+0j), 0j], [0j, 0j]]
    """
    return _transform("rfft2", FftType.RFFT, a, s, _two_axes("rfft2", axes), norm)


def irfft2(a, s=None, axes=(-2, -1), norm=None):
    """The real 2-D signal whose `rfft2` is `a`.

    >>> import jaxwg.numpy as jnp
    >>> jnp.fft.irfft2(jnp.array([[4.0, 0.0], [0.0, 0.0]])).tolist()
    [[1.0, 1.0], [1.0, 1.0]]
    """
    return _transform("irfft2", FftType.IRFFT, a, s, _two_axes("irfft2", axes), norm)


def _check_scalars(name: str, n, d) -> None:
    if isinstance(n, (list, tuple)):
        raise ValueError(f"The n argument of jax.numpy.fft.{name} only takes an int. Got n = {list(n)}.")
    if isinstance(d, (list, tuple)):
        raise ValueError(f"The d argument of jax.numpy.fft.{name} only takes a single value. "
                         f"Got d = {list(d)}.")


def fftfreq(n: int, d=1.0, *, dtype=None, device=None):
    """The frequencies of an `n`-point transform with sample spacing `d`: 0, 1, ...,
    then the negative ones, over `d * n`.

    >>> import jaxwg.numpy as jnp
    >>> jnp.fft.fftfreq(4, d=0.5).tolist()
    [0.0, 0.5, -1.0, -0.5]
    """
    _check_scalars("fftfreq", n, d)
    dtype = dtype or float
    i = creation.arange(n, dtype=dtype, device=device)
    k = (i + n // 2) % n - n // 2
    return k / creation.array(d * n, dtype=dtype, device=device)


def rfftfreq(n: int, d=1.0, *, dtype=None, device=None):
    """The non-negative frequencies of an `n`-point real transform: 0 .. n // 2, over
    `d * n`.

    >>> import jaxwg.numpy as jnp
    >>> jnp.fft.rfftfreq(5).tolist()
    [0.0, 0.20000000298023224, 0.4000000059604645]
    """
    _check_scalars("rfftfreq", n, d)
    dtype = dtype or float
    k = creation.arange(0, n // 2 + 1, dtype=dtype, device=device)
    return k / creation.array(d * n, dtype=dtype, device=device)


def _shifted(x, axes, sign: int):
    shape = aval_of(x).shape
    if axes is None:
        axes = tuple(range(len(shape)))
    shifts = (sign * (shape[axes] // 2) if isinstance(axes, int)
              else [sign * (shape[a] // 2) for a in axes])
    return structure.roll(x, shifts, axes)


def fftshift(x, axes=None):
    """`x` rolled by half of each of `axes` (all by default): the zero frequency moves to
    the middle.

    >>> import jaxwg.numpy as jnp
    >>> jnp.fft.fftshift(jnp.arange(5)).tolist()
    [3, 4, 0, 1, 2]
    """
    return _shifted(ensure_arraylike("fftshift", x), axes, 1)


def ifftshift(x, axes=None):
    """The inverse of `fftshift`.

    >>> import jaxwg.numpy as jnp
    >>> jnp.fft.ifftshift(jnp.array([3, 4, 0, 1, 2])).tolist()
    [0, 1, 2, 3, 4]
    """
    return _shifted(ensure_arraylike("ifftshift", x), axes, -1)


# A name JAX has and jaxwg lacks says it is not implemented yet (jaxwg.errors).
__getattr__ = _errors.module_getattr(__name__)
__dir__ = _errors.module_dir(__name__)  # the public names only, as JAX's
