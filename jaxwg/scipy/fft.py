"""`jaxwg.scipy.fft`: the discrete cosine transform of type 2 (`dct`, `dctn`) and its
inverse (`idct`, `idctn`), as `jax.scipy.fft`, with SciPy's unnormalized ("backward")
and orthonormal ("ortho") scalings. Like JAX, only type 2 is here.

Each transform is one complex FFT of the same length (Makhoul's method): the even
samples, then the odd ones reversed, transformed and turned by a quarter-sample phase.
The N-d forms transform one axis after another. Complex inputs transform their real and
imaginary parts apart.

>>> import jaxwg.numpy as jnp
>>> from jaxwg.scipy import fft
>>> fft.dct(jnp.array([1.0, 1.0, 1.0, 1.0])).tolist()
[8.0, 0.0, 0.0, 0.0]
"""

from __future__ import annotations

import operator

import numpy as np

from .. import lax
from .. import numpy as jnp
from ..numpy._util import canonicalize_axis, check_arraylike, promote, to_array

__all__ = ["dct", "dctn", "idct", "idctn"]


def _check(name: str, x, type, norm):
    """`x` as an array, after JAX's checks of `type` and `norm`."""
    check_arraylike(name, x)
    if type != 2:
        raise NotImplementedError("Only DCT type 2 is implemented.")
    if norm is not None and norm not in ("backward", "ortho"):
        raise ValueError(f"jax.scipy.fft.{name}: norm={norm!r} is not implemented")
    return to_array(x)


def _per_part(transform, x):
    """`transform` of `x`, of its real and imaginary parts apart for complex `x`."""
    if jnp.iscomplexobj(x):
        return lax.complex(transform(jnp.real(x)), transform(jnp.imag(x)))
    return transform(x)


def _resize(x, n: int | None, axis: int):
    """`x` cropped or zero-padded at the end of `axis` to `n` (None: as it is)."""
    if n is None:
        return x
    size = x.shape[axis]
    if n <= size:
        return lax.slice_in_dim(x, 0, n, axis=axis)
    return jnp.pad(x, [(0, n - size if a == axis else 0) for a in range(x.ndim)])


def _ortho_scale(n: int, dtype) -> np.ndarray:
    """The factors that make the DCT of length `n` orthonormal: 1/sqrt(4n) for the first
    term, 1/sqrt(2n) for the others."""
    scale = np.full(n, 1 / np.sqrt(2 * n))
    scale[:1] = 1 / np.sqrt(4 * n)
    return scale.astype(dtype)


def _quarter_phase(n: int, sign: int, dtype) -> np.ndarray:
    """exp(sign * i pi k / (2n)) for k = 0 .. n-1."""
    return np.exp(sign * 0.5j * np.pi * np.arange(n) / n).astype(dtype)


def _dct_last(x, norm):
    """The DCT of type 2 of real `x` along its last axis."""
    n = x.shape[-1]
    v = jnp.concatenate([x[..., ::2], jnp.flip(x[..., 1::2], -1)], axis=-1)
    spectrum = jnp.fft.fft(v, axis=-1)
    out = 2 * jnp.real(spectrum * _quarter_phase(n, -1, spectrum.dtype))
    return out * _ortho_scale(n, out.dtype) if norm == "ortho" else out


def _idct_last(x, norm):
    """The inverse of `_dct_last` along the last axis of real `x`."""
    n = x.shape[-1]
    (x,) = promote(x, to_inexact=True)
    scale = _ortho_scale(n, np.float64) * 2 * n
    if norm != "ortho":
        scale = scale * _ortho_scale(n, np.float64)
    complex_dtype = jnp.result_type(x.dtype, np.complex64)
    spectrum = x * (scale * _quarter_phase(n, 1, np.complex128)).astype(complex_dtype)
    v = jnp.real(jnp.fft.ifft(spectrum, axis=-1))
    # v holds the even samples, then the odd ones reversed
    half = (n + 1) // 2
    evens, odds = v[..., :half], jnp.flip(v[..., half:], -1)
    if n % 2:
        odds = jnp.pad(odds, [(0, 0)] * (x.ndim - 1) + [(0, 1)])
    pairs = jnp.stack([evens, odds], axis=-1)
    return jnp.reshape(pairs, (*x.shape[:-1], 2 * half))[..., :n]


def _along(transform, x, axis: int, norm):
    """`transform(x, norm)` (one of `_dct_last`, `_idct_last`) along `axis`."""
    x = jnp.moveaxis(x, axis, -1)
    return jnp.moveaxis(transform(x, norm), -1, axis)


def dct(x, type=2, n=None, axis=-1, norm=None):
    """The discrete cosine transform (type 2) of `x` along `axis`, cropped or
    zero-padded to `n`: y[k] = 2 sum_j x[j] cos(pi k (2j + 1) / (2n)) (`norm="ortho"`:
    scaled to be orthonormal).

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg.scipy import fft
    >>> fft.dct(jnp.array([1.0, 1.0, 1.0, 1.0]), norm="ortho").tolist()
    [2.0, 0.0, 0.0, 0.0]
    """
    x = _check("dct", x, type, norm)

    def transform(part):
        ax = canonicalize_axis(axis, part.ndim)
        (part,) = promote(_resize(part, n, ax), to_inexact=True)
        return _along(_dct_last, part, ax, norm)

    return _per_part(transform, x)


def idct(x, type=2, n=None, axis=-1, norm=None):
    """The inverse of `dct` (type 2; the DCT of type 3, scaled) along `axis`, with `x`
    cropped or zero-padded to `n` first.

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg.scipy import fft
    >>> fft.idct(jnp.array([8.0, 0.0, 0.0, 0.0])).tolist()
    [1.0, 1.0, 1.0, 1.0]
    """
    x = _check("idct", x, type, norm)

    def transform(part):
        ax = canonicalize_axis(axis, part.ndim)
        return _along(_idct_last, _resize(part, n, ax), ax, norm)

    return _per_part(transform, x)


def _axes_and_sizes(x, s, axes):
    """(the axes, {axis: size}) of an N-d transform from its `s` and `axes`: by default
    the last len(s) axes, or all."""
    if s is not None:
        try:
            s = list(s)
        except TypeError:
            s = [operator.index(s)]
        if len(s) > x.ndim:
            raise ValueError(f"s must have at most x.ndim ({x.ndim}) elements, got {len(s)}")
    if axes is None:
        axes = tuple(range(x.ndim - len(s), x.ndim)) if s is not None else tuple(range(x.ndim))
    else:
        axes = tuple(canonicalize_axis(a, x.ndim) for a in
                     (axes if isinstance(axes, (tuple, list)) else (axes,)))
        if len(set(axes)) != len(axes):
            raise ValueError(f"repeated axis: {axes}")
    return axes, dict(zip(axes, s)) if s is not None else {}


def _nd(name: str, one_axis, x, type, s, axes, norm):
    x = _check(name, x, type, norm)

    def transform(part):
        ax, sizes = _axes_and_sizes(part, s, axes)
        for a in ax:
            part = one_axis(part, n=sizes.get(a), axis=a, norm=norm)
        return part

    return _per_part(transform, x)


def dctn(x, type=2, s=None, axes=None, norm=None):
    """The N-d discrete cosine transform (type 2) of `x`: `dct` along each of `axes`
    (all by default, or the last len(s)), each cropped or zero-padded to `s`.

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg.scipy import fft
    >>> fft.dctn(jnp.ones((2, 2))).tolist()
    [[16.0, 0.0], [0.0, 0.0]]
    """
    return _nd("dctn", dct, x, type, s, axes, norm)


def idctn(x, type=2, s=None, axes=None, norm=None):
    """The inverse of `dctn`: `idct` along each of `axes` (`s` and `axes` as in `dctn`).

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg.scipy import fft
    >>> fft.idctn(jnp.array([[16.0, 0.0], [0.0, 0.0]])).tolist()
    [[1.0, 1.0], [1.0, 1.0]]
    """
    return _nd("idctn", idct, x, type, s, axes, norm)
