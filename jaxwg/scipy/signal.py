"""`jaxwg.scipy.signal`: N-dimensional convolution and cross-correlation (direct, one
`lax.conv_general_dilated`, or by FFT), detrending, and the windowed-FFT spectral
estimates (`stft` and its inverse `istft`, `csd`, `welch`), as `jax.scipy.signal`.

As in JAX, `method="auto"` always convolves directly, `convolve2d`/`correlate2d` take
only `boundary="fill"` with `fillvalue=0`, and a window other than "hann" (or an array)
is made by SciPy's `get_window`, so it needs SciPy installed.

>>> import jaxwg.numpy as jnp
>>> from jaxwg.scipy import signal
>>> signal.convolve(jnp.array([1.0, 2.0, 3.0]), jnp.array([1.0, 1.0])).tolist()
[1.0, 3.0, 5.0, 3.0]
"""

from __future__ import annotations

import operator
import warnings

import numpy as np

from .. import lax
from .. import numpy as jnp
from ..transforms.batching import vmap
from ..numpy._util import (canonicalize_axis, check_arraylike, concrete, inexact_operands,
                           promote, slice_axis, to_array)

__all__ = ["convolve", "convolve2d", "correlate", "correlate2d", "csd", "detrend", "fftconvolve",
           "istft", "stft", "welch"]

_MODES = ("full", "same", "valid")


# -- convolution ------------------------------------------------------------------------------


def _one_within_the_other(shape1, shape2) -> tuple[bool, bool]:
    """(whether `shape1` is at least `shape2` in every axis, whether at most)."""
    return (all(a >= b for a, b in zip(shape1, shape2)),
            all(a <= b for a, b in zip(shape1, shape2)))


def _convolve_direct(name: str, in1, in2, mode: str, precision):
    """The N-d convolution of `in1` and `in2` by one `lax.conv_general_dilated`: the
    smaller operand, flipped, slides over the larger; "same" keeps `in1`'s shape."""
    check_arraylike(name, in1, in2)
    in1, in2 = to_array(in1), to_array(in2)
    if mode not in _MODES:
        raise ValueError("mode must be one of ['full', 'same', 'valid']")
    if in1.ndim != in2.ndim:
        raise ValueError("in1 and in2 must have the same number of dimensions")
    if in1.size == 0 or in2.size == 0:
        raise ValueError("zero-size arrays not supported in convolutions, got shapes "
                         f"{in1.shape} and {in2.shape}.")
    in1, in2 = promote(in1, in2, to_inexact=True)
    larger, smaller = _one_within_the_other(in1.shape, in2.shape)
    if not (larger or smaller):
        raise ValueError("One input must be smaller than the other in every dimension.")
    if in1.ndim == 0:
        return in1 * in2
    original = in2.shape
    if smaller:
        in1, in2 = in2, in1
    kernel = in2.shape
    if mode == "valid":
        padding = [(0, 0)] * len(kernel)
    elif mode == "same":  # centred on in1 (which may now be the kernel)
        padding = [(k - 1 - (o - 1) // 2, k - o + (o - 1) // 2) for k, o in zip(kernel, original)]
    else:
        padding = [(k - 1, k - 1) for k in kernel]
    out = lax.conv_general_dilated(in1[None, None], jnp.flip(in2)[None, None], (1,) * in1.ndim,
                                   padding, precision=precision)
    return out[0, 0]


def _fftconvolve_one(in1, in2, mode: str):
    """`fftconvolve` over every axis of `in1` and `in2` (of one rank): the product of
    their transforms at the full output's size, cropped to `mode`'s centred part."""
    full = tuple(a + b - 1 for a, b in zip(in1.shape, in2.shape))
    if mode == "valid":
        larger, smaller = _one_within_the_other(in1.shape, in2.shape)
        if not (larger or smaller):
            raise ValueError("For 'valid' mode, One input must be at least as large as the "
                             "other in every dimension.")
        if smaller:
            in1, in2 = in2, in1
    if all(a == 1 or b == 1 for a, b in zip(in1.shape, in2.shape)):
        conv = in1 * in2  # no axis to sum along: an outer product
    elif jnp.iscomplexobj(in1):
        conv = jnp.fft.ifftn(jnp.fft.fftn(in1, full) * jnp.fft.fftn(in2, full), full)
    else:
        conv = jnp.fft.irfftn(jnp.fft.rfftn(in1, full) * jnp.fft.rfftn(in2, full), full)
    if mode == "full":
        shape = full
    elif mode == "same":
        shape = in1.shape
    else:
        shape = tuple(a - b + 1 for a, b in zip(in1.shape, in2.shape))
    starts = [(f - s) // 2 for f, s in zip(full, shape)]
    return conv[tuple(slice(b, b + s) for b, s in zip(starts, shape))]


def fftconvolve(in1, in2, mode="full", axes=None):
    """The N-d convolution of `in1` and `in2` by FFT, over `axes` (all by default; the
    other axes must match and are batch axes).

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg.scipy import signal
    >>> out = signal.fftconvolve(jnp.array([1.0, 2.0, 3.0]), jnp.array([0.0, 1.0, 0.5]))
    >>> [round(v, 4) for v in out.tolist()]
    [0.0, 1.0, 2.5, 4.0, 1.5]
    """
    in1, in2 = inexact_operands("fftconvolve", in1, in2)
    if in1.ndim != in2.ndim:
        raise ValueError("in1 and in2 should have the same dimensionality")
    if mode not in _MODES:
        raise ValueError("mode must be one of ['same', 'full', 'valid']")

    def convolve_axes(a, b):
        return _fftconvolve_one(a, b, mode)

    if axes is None:
        return convolve_axes(in1, in2)
    axes = (axes,) if not isinstance(axes, (tuple, list)) else axes
    axes = {canonicalize_axis(ax, in1.ndim) for ax in axes}
    batch = sorted(set(range(in1.ndim)) - axes)
    if any(in1.shape[ax] != in2.shape[ax] for ax in batch):
        raise ValueError(f"mapped axes must have same shape; got in1.shape={in1.shape} "
                         f"in2.shape={in2.shape} axes={tuple(sorted(axes))}")
    for ax in batch:  # innermost first, as the axes of the mapped function count
        convolve_axes = vmap(convolve_axes, in_axes=ax, out_axes=ax)
    return convolve_axes(in1, in2)


def _check_method(method: str) -> None:
    if method not in ("auto", "direct", "fft"):
        raise ValueError(f"Got method={method!r}; expected 'auto', 'fft', or 'direct'.")


def convolve(in1, in2, mode="full", method="auto", precision=None):
    """The N-d convolution of `in1` and `in2` (`mode`: full, same (`in1`'s shape) or
    valid); `method` "auto" and "direct" use `lax.conv_general_dilated`, "fft" is
    `fftconvolve`. Integers convolve in floats.

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg.scipy import signal
    >>> signal.convolve(jnp.array([1, 2, 3, 2, 1]), jnp.array([1, 1, 1]), mode="same").tolist()
    [3.0, 6.0, 7.0, 6.0, 3.0]
    """
    _check_method(method)
    if method == "fft":
        return fftconvolve(in1, in2, mode=mode)
    return _convolve_direct("convolve", in1, in2, mode, precision)


def correlate(in1, in2, mode="full", method="auto", precision=None):
    """The N-d cross-correlation of `in1` and `in2`: the convolution of `in1` with
    `in2` conjugated and flipped (`mode` and `method` as in `convolve`).

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg.scipy import signal
    >>> signal.correlate(jnp.array([1, 2, 3, 2, 1]), jnp.array([1, 3, 2]), mode="valid").tolist()
    [13.0, 15.0, 11.0]
    """
    check_arraylike("correlate", in1, in2)
    return convolve(in1, jnp.flip(jnp.conj(to_array(in2))), mode, method=method,
                    precision=precision)


def _check_2d(name: str, in1, in2, boundary, fillvalue):
    if boundary != "fill" or fillvalue != 0:
        raise NotImplementedError(f"{name}() only supports boundary='fill', fillvalue=0")
    check_arraylike(name, in1, in2)
    in1, in2 = to_array(in1), to_array(in2)
    if in1.ndim != 2 or in2.ndim != 2:
        raise ValueError(f"{name}() only supports 2-dimensional inputs.")
    return in1, in2


def convolve2d(in1, in2, mode="full", boundary="fill", fillvalue=0, precision=None):
    """The 2-d convolution of `in1` and `in2` (`mode` as in `convolve`; only
    `boundary="fill"` with `fillvalue=0`, as in JAX).

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg.scipy import signal
    >>> signal.convolve2d(jnp.array([[1, 2], [3, 4]]), jnp.array([[1, 1]])).tolist()
    [[1.0, 3.0, 2.0], [3.0, 7.0, 4.0]]
    """
    in1, in2 = _check_2d("convolve2d", in1, in2, boundary, fillvalue)
    return _convolve_direct("convolve2d", in1, in2, mode, precision)


def correlate2d(in1, in2, mode="full", boundary="fill", fillvalue=0, precision=None):
    """The 2-d cross-correlation of `in1` and `in2`, as SciPy's: "same" is centred as
    SciPy centres it (which differs from `correlate` for kernels of even size), and
    "valid" with the smaller `in1` correlates `in2` against conj(`in1`).

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg.scipy import signal
    >>> signal.correlate2d(jnp.array([[1, 2], [3, 4]]), jnp.array([[1, 1]])).tolist()
    [[1.0, 3.0, 2.0], [3.0, 7.0, 4.0]]
    """
    in1, in2 = _check_2d("correlate2d", in1, in2, boundary, fillvalue)
    swap = all(a <= b for a, b in zip(in1.shape, in2.shape))
    same_shape = in1.shape == in2.shape

    def conv(a, b):
        return _convolve_direct("correlate2d", a, b, mode, precision)

    if swap and (mode == "full" or (mode == "valid" and not same_shape)):
        out = conv(jnp.flip(in2), jnp.conj(in1))
        return jnp.conj(out) if mode == "full" else out
    return jnp.flip(conv(jnp.flip(in1), jnp.conj(in2)))


# -- detrending -------------------------------------------------------------------------------


def _remove_line(d):
    """`d` less its least-squares line along the last axis."""
    n = d.shape[-1]
    centred = d - jnp.mean(d, axis=-1, keepdims=True)
    if n == 1:
        return centred
    t = np.arange(n) - (n - 1) / 2  # centred sample times: the line's two terms are orthogonal
    t = lax.convert_element_type(t, jnp.real(d).dtype)
    slope = jnp.sum(t * d, axis=-1, keepdims=True) / float(np.sum(t * t))
    return centred - t * slope


def detrend(data, axis=-1, type="linear", bp=0, overwrite_data=None):
    """`data` less its mean (`type="constant"`) or its least-squares line (`"linear"`,
    one line per piece between the breakpoints `bp`) along `axis`.

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg.scipy import signal
    >>> signal.detrend(jnp.array([1.0, 2.0, 3.0, 5.0]), type="constant").tolist()
    [-1.75, -0.75, 0.25, 2.25]
    """
    if overwrite_data is not None:
        raise NotImplementedError("overwrite_data argument not implemented.")
    if type not in ("constant", "linear"):
        raise ValueError("Trend type must be 'linear' or 'constant'.")
    check_arraylike("detrend", data)
    (x,) = promote(jnp.asarray(data), to_inexact=True)
    if type == "constant":
        return x - jnp.mean(x, axis, keepdims=True)
    axis = canonicalize_axis(axis, x.ndim)
    n = x.shape[axis]
    breaks = np.unique(np.r_[0, np.asarray(concrete(bp, "detrend's bp must be concrete.")), n])
    if breaks[0] < 0 or breaks[-1] > n:
        raise ValueError("Breakpoints must be non-negative and less than length of data along "
                         "given axis.")
    if n == 0:  # (JAX divides by zero here)
        return x
    x = jnp.moveaxis(x, axis, -1)
    pieces = [_remove_line(slice_axis(x, int(lo), int(hi), x.ndim - 1))
              for lo, hi in zip(breaks[:-1], breaks[1:])]
    out = pieces[0] if len(pieces) == 1 else jnp.concatenate(pieces, axis=-1)
    return jnp.moveaxis(out, -1, axis)


# -- windowed FFTs ----------------------------------------------------------------------------


def _named_window(window, n: int, dtype):
    """The periodic window `window` (a name or a (name, parameter) tuple) of `n` points:
    "hann" here, the others from SciPy's `get_window`, as JAX."""
    if isinstance(window, str) and window == "hann":
        if n == 1:
            return jnp.ones(1, dtype)
        return (jnp.sin(jnp.linspace(0, np.pi, n, endpoint=False)) ** 2).astype(dtype)
    try:
        from scipy.signal import get_window
    except ImportError as err:
        raise ImportError(f"scipy must be available to use window={window!r}") from err
    return jnp.asarray(get_window(window, n), dtype=dtype)


def _segments(window, nperseg, length: int, dtype):
    """(the window, the segment length) from `stft`'s `window` and `nperseg` arguments
    (SciPy's `_triage_segments`)."""
    if isinstance(window, (str, tuple)):
        n = length if nperseg is None else int(nperseg)
        if n > length:
            warnings.warn(f"nperseg={n} is greater than input_length={length}, using "
                          f"nperseg={length}")
            n = length
        return _named_window(window, n, dtype), n
    win = jnp.asarray(window, dtype=dtype)
    n = win.size if nperseg is None else int(nperseg)
    if win.ndim != 1:
        raise ValueError("window must be 1-D")
    if length < win.size:
        raise ValueError("window is longer than input signal")
    if n != win.size:
        raise ValueError("value specified for nperseg is different from length of window")
    return win, n


def _odd_extension(x, n: int):
    """`x` extended by `n` points at each end of its last axis, point-reflected through
    the end values."""
    if n > x.shape[-1] - 1:
        raise ValueError(f"The extension length n ({n}) is too big. It must not exceed "
                         f"x.shape[axis]-1, which is {x.shape[-1] - 1}.")
    return jnp.pad(x, [(0, 0)] * (x.ndim - 1) + [(n, n)], mode="reflect", reflect_type="odd")


def _extend(x, n: int, boundary):
    """`x` extended by `n` points at each end of its last axis as `boundary` says."""
    widths = [(0, 0)] * (x.ndim - 1) + [(n, n)]
    if boundary is None or n < 1:
        return x
    if boundary == "odd":
        return _odd_extension(x, n)
    mode = {"even": "reflect", "constant": "edge", "zeros": "constant"}[boundary]
    return jnp.pad(x, widths, mode=mode)


def _pad_last(x, length: int):
    """`x` zero-padded at the end of its last axis to `length`."""
    extra = length - x.shape[-1]
    return jnp.pad(x, [(0, 0)] * (x.ndim - 1) + [(0, extra)]) if extra > 0 else x


def _detrender(detrend_type, axis: int):
    """The function that detrends the segments (along the last axis) for `detrend_type`:
    a `type` of `detrend`, a function of the segments, or none (falsy)."""
    if isinstance(detrend_type, str):
        return lambda d: detrend(d, type=detrend_type, axis=-1)
    if callable(detrend_type):
        # (as JAX: `axis`, never -1 here, moved last in the segments' array)
        return lambda d: jnp.moveaxis(detrend_type(jnp.moveaxis(d, axis, -1)), -1, axis)
    if not detrend_type:
        return lambda d: d
    raise ValueError(f"Unsupported detrend type: {detrend_type}")


def _frames_spectrum(x, win, detrend_func, nperseg: int, noverlap: int, nfft: int, sides: str):
    """The FFT of the windowed, detrended segments of `x` along its last axis:
    (..., segments, frequencies)."""
    step = nperseg - noverlap
    starts = np.arange(0, x.shape[-1] - nperseg + 1, step)
    frames = x[..., starts[:, None] + np.arange(nperseg)]
    frames = detrend_func(frames)
    if jnp.iscomplexobj(win):
        frames = frames.astype(jnp.result_type(frames.dtype, np.complex64))
    frames = win * frames
    if sides == "twosided":
        return jnp.fft.fft(frames, n=nfft)
    return jnp.fft.rfft(jnp.real(frames), n=nfft)


def _spectral_helper(x, y, fs, window, nperseg, noverlap, nfft, detrend_type, return_onesided,
                     scaling, axis, mode, boundary=None, padded=False):
    """(frequencies, segment times, spectra) of the segments of `x` (with `y`: the cross
    spectra conj(X) Y), SciPy's `_spectral_helper` as JAX computes it."""
    name = "stft" if mode == "stft" else "csd"
    if boundary not in (None, "even", "odd", "constant", "zeros"):
        raise ValueError(f"Unknown boundary option '{boundary}', must be one of: "
                         "['even', 'odd', 'constant', 'zeros', None]")
    check_arraylike(name, x)
    axis = canonicalize_axis(operator.index(concrete(axis, "axis of windowed-FFT")),
                             to_array(x).ndim)
    if y is None:
        (x,) = inexact_operands(name, x)
        outer = x.shape[:axis] + x.shape[axis + 1:]
    else:
        x, y = inexact_operands(name, x, y)
        if x.ndim != y.ndim:
            raise ValueError(f"two-arguments must have the same rank ({x.ndim} vs {y.ndim}).")
        try:
            outer = jnp.broadcast_shapes(x.shape[:axis] + x.shape[axis + 1:],
                                         y.shape[:axis] + y.shape[axis + 1:])
        except ValueError as err:
            raise ValueError("x and y cannot be broadcast together.") from err
    result_dtype = jnp.result_type(x.dtype, np.complex64)
    freq_dtype = np.finfo(result_dtype).dtype
    if nperseg is not None:
        nperseg = int(concrete(nperseg, "nperseg of windowed-FFT"))
        if nperseg < 1:
            raise ValueError("nperseg must be a positive integer")
    win, nperseg = _segments(window, nperseg, x.shape[axis], x.dtype)
    noverlap = nperseg // 2 if noverlap is None else int(concrete(noverlap, "noverlap of windowed-FFT"))
    nfft = nperseg if nfft is None else int(concrete(nfft, "nfft of windowed-FFT"))
    if x.size == 0 or (y is not None and y.size == 0):
        length = x.shape[axis] if y is None else min(x.shape[axis], y.shape[axis])
        shape = x.shape if y is None else outer[:axis] + (length,) + outer[axis:]
        return (jnp.zeros(shape, freq_dtype), jnp.zeros(shape, freq_dtype),
                jnp.zeros(shape, result_dtype))
    x = jnp.moveaxis(x, axis, -1)
    if y is not None:
        y = jnp.moveaxis(y, axis, -1)
        length = max(x.shape[-1], y.shape[-1])
        x, y = _pad_last(x, length), _pad_last(y, length)
    if nfft < nperseg:
        raise ValueError("nfft must be greater than or equal to nperseg.")
    if noverlap >= nperseg:
        raise ValueError("noverlap must be less than nperseg.")
    step = nperseg - noverlap
    signals = [x] if y is None else [x, y]
    signals = [_extend(s, nperseg // 2, boundary) for s in signals]
    if padded:
        length = signals[0].shape[-1]
        signals = [_pad_last(s, length + (-(length - nperseg) % step) % nperseg)
                   for s in signals]
    detrend_func = _detrender(detrend_type, axis)
    if scaling == "density":
        scale = 1.0 / (fs * jnp.sum(win * win))
    elif scaling == "spectrum":
        scale = 1.0 / jnp.sum(win) ** 2
    else:
        raise ValueError(f"Unknown scaling: {scaling}")
    if mode == "stft":
        scale = jnp.sqrt(scale)
    sides = "onesided" if return_onesided else "twosided"
    if return_onesided and any(jnp.iscomplexobj(s) for s in signals):
        sides = "twosided"
        warnings.warn("Input data is complex, switching to return_onesided=False")
    freqs = (jnp.fft.fftfreq if sides == "twosided" else jnp.fft.rfftfreq)(
        nfft, 1 / fs, dtype=freq_dtype)
    spectra = [_frames_spectrum(s, win, detrend_func, nperseg, noverlap, nfft, sides)
               for s in signals]
    if y is not None:
        result = jnp.conj(spectra[0]) * spectra[1]
    elif mode == "psd":
        result = jnp.conj(spectra[0]) * spectra[0]
    else:
        result = spectra[0]
    result = result * scale.astype(jnp.result_type(scale.dtype, np.complex64))
    if sides == "onesided" and mode == "psd":  # the negative frequencies' share
        doubled = np.full(result.shape[-1], 2.0)
        doubled[0] = 1.0
        if nfft % 2 == 0:  # the Nyquist frequency has no negative twin
            doubled[-1] = 1.0
        result = result * doubled.astype(freq_dtype)
    length = signals[0].shape[-1]
    time = jnp.arange(nperseg / 2, length - nperseg / 2 + 1, step, dtype=freq_dtype) / fs
    if boundary is not None:
        time = time - (nperseg / 2) / fs
    result = result.astype(result_dtype)
    if y is None and mode != "stft":
        result = jnp.real(result)
    return freqs, time, jnp.moveaxis(result, -1, axis)


def stft(x, fs=1.0, window="hann", nperseg=256, noverlap=None, nfft=None, detrend=False,
         return_onesided=True, boundary="zeros", padded=True, axis=-1):
    """The short-time Fourier transform of `x` along `axis`: (frequencies, segment
    times, the spectra of the windowed segments as (..., frequencies, segments)).

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg.scipy import signal
    >>> f, t, Z = signal.stft(jnp.ones(8), nperseg=4)
    >>> f.tolist(), t.tolist(), Z.shape
    ([0.0, 0.25, 0.5], [0.0, 2.0, 4.0, 6.0, 8.0], (3, 5))
    """
    return _spectral_helper(x, None, fs, window, nperseg, noverlap, nfft, detrend,
                            return_onesided, "spectrum", axis, "stft", boundary, padded)


def csd(x, y, fs=1.0, window="hann", nperseg=None, noverlap=None, nfft=None,
        detrend="constant", return_onesided=True, scaling="density", axis=-1, average="mean"):
    """The cross power spectral density of `x` and `y` by Welch's method: (frequencies,
    the mean or median over the segments of conj(X) Y).

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg.scipy import signal
    >>> x = jnp.array([1.0, -1.0, 1.0, -1.0, 1.0, -1.0, 1.0, -1.0])
    >>> f, p = signal.csd(x, x, window=jnp.ones(4))
    >>> f.tolist(), p.tolist()
    ([0.0, 0.25, 0.5], [0j, 0j, (4+0j)])
    """
    freqs, _, pxy = _spectral_helper(x, y, fs, window, nperseg, noverlap, nfft, detrend,
                                     return_onesided, scaling, axis, "psd")
    if y is not None:
        pxy = pxy + 0j  # complex even where x is y
    if pxy.ndim >= 2 and pxy.size > 0:
        if pxy.shape[-1] > 1:
            if average == "median":
                segments = pxy.shape[-1]
                bias = 1 + sum(1 / (k + 1) - 1 / k for k in range(2, segments, 2))
                if jnp.iscomplexobj(pxy):
                    pxy = lax.complex(jnp.median(jnp.real(pxy), axis=-1),
                                      jnp.median(jnp.imag(pxy), axis=-1))
                else:
                    pxy = jnp.median(pxy, axis=-1)
                pxy = pxy / np.asarray(bias, pxy.dtype)
            elif average == "mean":
                pxy = jnp.mean(pxy, axis=-1)
            else:
                raise ValueError(f'average must be "median" or "mean", got {average}')
        else:
            pxy = jnp.reshape(pxy, pxy.shape[:-1])
    return freqs, pxy


def welch(x, fs=1.0, window="hann", nperseg=None, noverlap=None, nfft=None, detrend="constant",
          return_onesided=True, scaling="density", axis=-1, average="mean"):
    """The power spectral density of `x` by Welch's method: (frequencies, the mean or
    median of the segments' periodograms).

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg.scipy import signal
    >>> x = jnp.array([1.0, -1.0, 1.0, -1.0, 1.0, -1.0, 1.0, -1.0])
    >>> f, p = signal.welch(x, window=jnp.ones(4))
    >>> f.tolist(), p.tolist()
    ([0.0, 0.25, 0.5], [0.0, 0.0, 4.0])
    """
    freqs, pxx = csd(x, None, fs=fs, window=window, nperseg=nperseg, noverlap=noverlap,
                     nfft=nfft, detrend=detrend, return_onesided=return_onesided,
                     scaling=scaling, axis=axis, average=average)
    return freqs, jnp.real(pxx)


def _overlap_add(frames, step: int):
    """The sum of `frames` (..., n, length), frame i placed at i * step of one signal of
    step * (n - 1) + length samples: each frame cut into blocks of `step`, block p of
    every frame shifted p blocks on."""
    *batch, n, length = frames.shape
    blocks = -(-length // step)
    frames = _pad_last(frames, blocks * step)
    frames = jnp.reshape(frames, (*batch, n, blocks, step))
    total = None
    for p in range(blocks):
        part = frames[..., p, :]
        widths = [(0, 0)] * len(batch) + [(p, blocks - 1 - p), (0, 0)]
        part = jnp.pad(part, widths)
        total = part if total is None else total + part
    signal = jnp.reshape(total, (*batch, (n + blocks - 1) * step))
    return signal[..., :step * (n - 1) + length]


def istft(Zxx, fs=1.0, window="hann", nperseg=None, noverlap=None, nfft=None,
          input_onesided=True, boundary=True, time_axis=-1, freq_axis=-2):
    """The inverse of `stft`: the segments' inverse FFTs, windowed and overlap-added
    (divided by the summed squared window): (sample times, the signal).

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg.scipy import signal
    >>> _, _, Z = signal.stft(jnp.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0]), nperseg=4)
    >>> [round(v, 4) for v in signal.istft(Z, nperseg=4)[1].tolist()]
    [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
    """
    check_arraylike("istft", Zxx)
    z = to_array(Zxx)
    if z.ndim < 2:
        raise ValueError("Input stft must be at least 2d!")
    freq_axis = canonicalize_axis(freq_axis, z.ndim)
    time_axis = canonicalize_axis(time_axis, z.ndim)
    if freq_axis == time_axis:
        raise ValueError("Must specify differing time and frequency axes!")
    z = z.astype(jnp.result_type(z.dtype, np.complex64))
    n_default = 2 * (z.shape[freq_axis] - 1) if input_onesided else z.shape[freq_axis]
    nperseg = int(concrete(nperseg or n_default, "nperseg: segment length of STFT"))
    if nperseg < 1:
        raise ValueError("nperseg must be a positive integer")
    if nfft is None:
        nfft_int = n_default + (1 if input_onesided and nperseg == n_default + 1 else 0)
    else:
        nfft_int = int(concrete(nfft, "nfft of STFT"))
    if nfft_int < nperseg:
        raise ValueError(f"FFT length ({nfft_int}) must be longer than nperseg ({nperseg}).")
    noverlap = int(concrete(noverlap or nperseg // 2, "noverlap of STFT"))
    if noverlap >= nperseg:
        raise ValueError("noverlap must be less than nperseg.")
    outer = tuple(a for a in range(z.ndim) if a not in (time_axis, freq_axis))
    z = jnp.transpose(z, outer + (freq_axis, time_axis))
    inverse = jnp.fft.irfft if input_onesided else jnp.fft.ifft
    # (JAX's length: `nfft` as given, so n_default when None)
    segments = inverse(z, axis=-2, n=nfft)[..., :nperseg, :]
    if isinstance(window, (str, tuple)):
        win = _named_window(window, nperseg, segments.dtype)
    else:
        win = jnp.asarray(window)
        if win.ndim != 1:
            raise ValueError("window must be 1-D")
        if win.shape[0] != nperseg:
            raise ValueError(f"window must have length of {nperseg}")
    segments = segments * jnp.sum(win)  # undoes stft's 'spectrum' scaling
    win = win[:, None]
    x = _overlap_add(jnp.swapaxes(segments * win, -2, -1), nperseg - noverlap)
    squares = jnp.broadcast_to(win * win, (nperseg, segments.shape[-1]))
    norm = _overlap_add(jnp.swapaxes(squares, -2, -1), nperseg - noverlap)
    if boundary:
        half = nperseg // 2
        x = x[..., half:x.shape[-1] - half]
        norm = norm[..., half:norm.shape[-1] - half]
    x = x / jnp.where(norm > 1e-10, norm, 1.0)
    if x.ndim > 1 and time_axis != z.ndim - 1:
        x = jnp.moveaxis(x, -1, time_axis - 1 if freq_axis < time_axis else time_axis)
    time = jnp.arange(x.shape[0], dtype=np.finfo(x.dtype).dtype) / fs
    return time, x
