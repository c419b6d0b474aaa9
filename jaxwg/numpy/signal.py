"""Sequences: `convolve` and `correlate` (one `lax.conv_general_dilated`: the padded
signal's windows times the kernel), linear interpolation (`interp`), finite differences
(`gradient`), the trapezoidal rule (`trapezoid`), phase unwrapping (`unwrap`) and the
window functions (`bartlett`, `blackman`, `hamming`, `hanning`, `kaiser`), with JAX's
results.

>>> import jaxwg.numpy as jnp
>>> jnp.convolve(jnp.array([1.0, 2.0, 3.0]), jnp.array([0.0, 1.0, 0.5])).tolist()
[0.0, 1.0, 2.5, 4.0, 1.5]
"""

from __future__ import annotations

import numpy as np

from .. import lax
from ..frontend import aval as avals
from . import ufuncs
from ._util import (axis_index, canonicalize_axis, check_arraylike, concrete, promote, slice_axis,
                    to_array)
from .joining import concatenate
from .more_math import i0
from .reductions import cumsum, sum as _sum
from .manipulation import moveaxis
from .statistics import searchsorted
from .structure import diff

__all__ = ["bartlett", "blackman", "convolve", "correlate", "gradient", "hamming", "hanning",
           "interp", "kaiser", "trapezoid", "unwrap"]


def _padding(mode: str, width: int) -> tuple[int, int]:
    if mode == "valid":
        return 0, 0
    if mode == "same":
        return width // 2, width - width // 2 - 1
    if mode == "full":
        return width - 1, width - 1
    raise ValueError("mode must be one of ['full', 'same', 'valid']")


def _correlate(name: str, a, v, mode: str, precision, preferred_element_type):
    """out[k] = sum_j a[k + j - pad] * v[j] over the padded `a`, with the longer operand
    as the signal; `convolve` flips the kernel first, `correlate` reverses the result
    when it swapped the operands (the kernel slides the other way)."""
    check_arraylike(name, a, v)
    x, y = to_array(a), to_array(v)
    if x.ndim != 1 or y.ndim != 1:
        raise ValueError(f"{name}() only support 1-dimensional inputs.")
    # NumPy's default computes in floats; with preferred_element_type the inputs keep theirs
    x, y = promote(x, y, to_inexact=preferred_element_type is None)
    if x.shape[0] == 0 or y.shape[0] == 0:
        raise ValueError(f"{name}: inputs cannot be empty, got shapes {x.shape} and {y.shape}.")
    swapped = x.shape[0] < y.shape[0]
    if swapped:
        x, y = y, x
    if name == "convolve":
        y = lax.rev(y, (0,))
    out = lax.conv_general_dilated(x[None, None], y[None, None], (1,),
                                   [_padding(mode, y.shape[0])], precision=precision,
                                   preferred_element_type=preferred_element_type)[0, 0]
    return lax.rev(out, (0,)) if swapped and name == "correlate" else out


def convolve(a, v, mode="full", *, precision=None, preferred_element_type=None):
    """The discrete linear convolution of the 1-d `a` and `v` (`mode`: full, same
    (the length of the longer) or valid (where they overlap fully)).

    >>> import jaxwg.numpy as jnp
    >>> jnp.convolve(jnp.array([1, 2, 3]), jnp.array([1, 1]), mode="valid").tolist()
    [3.0, 5.0]
    """
    return _correlate("convolve", a, v, mode, precision, preferred_element_type)


def correlate(a, v, mode="valid", *, precision=None, preferred_element_type=None):
    """The cross-correlation of the 1-d `a` and `v`: out[k] = sum_n a[n + k] * v[n]
    (`mode` as in `convolve`).

    >>> import jaxwg.numpy as jnp
    >>> jnp.correlate(jnp.array([1.0, 2.0, 3.0]), jnp.array([0.0, 1.0]), mode="full").tolist()
    [1.0, 2.0, 3.0, 0.0]
    """
    return _correlate("correlate", a, v, mode, precision, preferred_element_type)


def _extrapolates(side: str, value) -> bool:
    """Whether `value`, the `left` or `right` argument of `interp`, asks for linear
    extrapolation (the string "extrapolate") rather than a fill value."""
    if not isinstance(value, str):
        return False
    if value != "extrapolate":
        raise ValueError(f"the only valid string value of `{side}` is 'extrapolate', but "
                         f"got: {value!r}")
    return True


def _periodic(x, xp, fp, period):
    """`x` and `xp` reduced modulo |period|, `xp` sorted (with `fp`) and extended by one
    point on each side from the neighbouring periods."""
    period = to_array(period)
    if period.ndim != 0:
        raise ValueError(f"period must be a scalar; got {period}")
    period = ufuncs.abs(period)
    x, xp = ufuncs.remainder(x, period), ufuncs.remainder(xp, period)
    xp, fp = lax.sort_key_val(xp, fp)
    n = xp.shape[0]
    xp = concatenate([slice_axis(xp, n - 1, n, 0) - period, xp, slice_axis(xp, 0, 1, 0) + period])
    fp = concatenate([slice_axis(fp, n - 1, n, 0), fp, slice_axis(fp, 0, 1, 0)])
    return x, xp, fp


def interp(x, xp, fp, left=None, right=None, period=None):
    """The piecewise-linear interpolant through (`xp`, `fp`) (`xp` increasing) at `x`;
    `left`/`right` below/above the range (the end values by default; "extrapolate"
    extends the end segments), or periodic with `period`.

    >>> import jaxwg.numpy as jnp
    >>> jnp.interp(jnp.array([0.5, 3.0]), jnp.array([0.0, 1.0, 2.0]), jnp.array([0.0, 2.0, 3.0])).tolist()
    [1.0, 3.0]
    """
    check_arraylike("interp", x, xp, fp)
    x, xp, fp = (to_array(v) for v in (x, xp, fp))
    if xp.shape != fp.shape or xp.ndim != 1:
        raise ValueError("xp and fp must be one-dimensional arrays of equal size")
    x, xp = promote(x, xp, to_inexact=True)
    (fp,) = promote(fp, to_inexact=True)
    extrapolate_left, extrapolate_right = _extrapolates("left", left), _extrapolates("right", right)
    if period is not None:
        x, xp, fp = _periodic(x, xp, fp, period)
    n = xp.shape[0]
    upper = ufuncs.clip(searchsorted(xp, x, side="right"), 1, n - 1)
    lower = upper - 1
    dx = xp[upper] - xp[lower]
    # a step narrower than this is a jump: take its left value (and a finite gradient)
    jump = ufuncs.abs(dx) <= np.spacing(np.finfo(dx.dtype).eps)
    # the fraction of the step first (as JAX): a slope df / dx can overflow
    fraction = (x - xp[lower]) / ufuncs.where(jump, 1, dx)
    f = ufuncs.where(jump, fp[lower], fp[lower] + fraction * (fp[upper] - fp[lower]))
    if period is None and not extrapolate_left:
        f = ufuncs.where(x < xp[0], fp[0] if left is None else left, f)
    if period is None and not extrapolate_right:
        f = ufuncs.where(x > xp[n - 1], fp[n - 1] if right is None else right, f)
    return f


def _gradient_along(f, h, axis: int):
    """Central differences of `f` along `axis` inside, one-sided ones at the two ends;
    `h` is the spacing (a scalar) or the coordinates (1-d) of the samples."""
    n = f.shape[axis]

    def part(x, start, stop):
        return slice_axis(x, start, stop, axis)

    first_step = part(f, 1, 2) - part(f, 0, 1)
    last_step = part(f, n - 1, n) - part(f, n - 2, n - 1)
    if h.ndim == 0:
        inner = (part(f, 2, n) - part(f, 0, n - 2)) * 0.5 / h
        return concatenate([first_step / h, inner, last_step / h], axis=axis)
    if h.ndim != 1:
        raise ValueError("Spacing arrays must be 1D arrays or scalars.")
    if h.shape[0] != n:
        raise ValueError("Spacing arrays must have the same length as the dimension along "
                         "which the gradient is calculated.")
    h = lax.broadcast_in_dim(h, tuple(n if d == axis else 1 for d in range(f.ndim)), (axis,))
    # second-order differences on the uneven grid: weights of the three neighbours
    dx1 = part(h, 1, n - 1) - part(h, 0, n - 2)
    dx2 = part(h, 2, n) - part(h, 1, n - 1)
    inner = (-dx2 / (dx1 * (dx1 + dx2)) * part(f, 0, n - 2)
             + (dx2 - dx1) / (dx1 * dx2) * part(f, 1, n - 1)
             + dx1 / (dx2 * (dx1 + dx2)) * part(f, 2, n))
    return concatenate([first_step / (part(h, 1, 2) - part(h, 0, 1)), inner,
                        last_step / (part(h, n - 1, n) - part(h, n - 2, n - 1))], axis=axis)


def gradient(f, *varargs, axis=None, edge_order=None):
    """The gradient of samples `f` by central differences (one-sided at the ends) along
    each of `axis` (all by default): a list of arrays, or one array for one axis.
    `varargs`: the spacing, one for all axes or one per axis, each a scalar or the 1-d
    coordinates of the samples.

    >>> import jaxwg.numpy as jnp
    >>> jnp.gradient(jnp.array([1.0, 2.0, 4.0, 7.0])).tolist()
    [1.0, 1.5, 2.5, 3.0]
    """
    if edge_order is not None:
        raise NotImplementedError("The 'edge_order' argument to jnp.gradient is not supported.")
    check_arraylike("gradient", f, *varargs)
    f, *spacing = promote(*(to_array(v) for v in (f, *varargs)), to_inexact=True)
    if axis is None:
        axes = tuple(range(f.ndim))
    else:
        axes = tuple(canonicalize_axis(ax, f.ndim)
                     for ax in (axis if isinstance(axis, (tuple, list)) else (axis,)))
    if not axes:
        return []
    if min(f.shape[ax] for ax in axes) < 2:
        raise ValueError("Shape of array too small to calculate a numerical gradient, at least "
                         "2 elements are required.")
    if not spacing:
        spacing = [to_array(1.0)] * len(axes)
    elif len(spacing) == 1:
        spacing = spacing * len(axes)
    elif len(spacing) != len(axes):
        raise TypeError(f"Invalid number of spacing arguments {len(spacing)} for {axis=}")
    grads = [_gradient_along(f, h, ax) for ax, h in zip(axes, spacing)]
    return grads[0] if len(axes) == 1 else grads


def trapezoid(y, x=None, dx=1.0, axis=-1):
    """The integral of samples `y` along `axis` by the trapezoidal rule, at coordinates
    `x` (1-d, or the shape of `y`) or evenly spaced by `dx`.

    >>> import jaxwg.numpy as jnp
    >>> jnp.trapezoid(jnp.array([1.0, 2.0, 3.0]), dx=0.5).item()
    2.0
    """
    if x is None:
        check_arraylike("trapezoid", y)
        (y,) = promote(to_array(y), to_inexact=True)
        steps = to_array(dx)
        if steps.ndim > 0:
            steps = lax.reshape(steps, (1,) * (y.ndim - steps.ndim) + steps.shape)
            steps = moveaxis(steps, axis, -1)
    else:
        check_arraylike("trapezoid", y, x)
        y, x = promote(to_array(y), to_array(x), to_inexact=True)
        steps = diff(x) if x.ndim == 1 else moveaxis(diff(x, axis=axis), axis, -1)
    y = moveaxis(y, axis, -1)
    n = y.shape[-1]
    if n == 0:  # JAX's error for its y[..., 0]
        raise IndexError(f"trapezoid: index is out of bounds for axis {axis} with size 0")
    ends = slice_axis(y, 0, 1, -1 % y.ndim) + slice_axis(y, n - 1, n, -1 % y.ndim)
    if steps.ndim == 0 or steps.shape[-1] == 1:
        # even steps: the sum, less half of each end
        step = steps if steps.ndim == 0 else steps[..., 0]
        return step * (_sum(y, axis=-1) - 0.5 * ends[..., 0])
    return 0.5 * _sum(steps * (y[..., 1:] + y[..., :-1]), axis=-1)


def unwrap(p, discont=None, axis: int = -1, period=2 * np.pi):
    """`p` with its jumps along `axis` larger than `discont` (default period / 2) taken
    back by multiples of `period`, so that the sequence changes smoothly.

    >>> import jaxwg.numpy as jnp
    >>> jnp.unwrap(jnp.array([0, 300, 700, 100]), period=360).tolist()
    [0, -60, -20, 100]
    """
    check_arraylike("unwrap", p)
    p, period = promote(to_array(p), period)
    if np.issubdtype(p.dtype, np.complexfloating):
        raise ValueError("jnp.unwrap does not support complex inputs.")
    if p.ndim == 0:
        raise IndexError("jnp.unwrap: a 0-d array has no axis to unwrap along")
    axis = axis_index(axis, p.ndim)
    n = p.shape[axis]
    if n == 0:
        return p
    if discont is None:
        discont = period / 2
    interval = period // 2 if np.issubdtype(p.dtype, np.integer) else period / 2
    step = diff(p, axis=axis)
    wrapped = ufuncs.remainder(step + interval, period) - interval
    # a step of exactly +interval stays +interval (it would wrap to -interval)
    wrapped = ufuncs.where((wrapped == -interval) & (step > 0), interval, wrapped)
    correction = ufuncs.where(ufuncs.abs(step) < discont, 0, wrapped - step)
    rest = slice_axis(p, 1, n, axis) + cumsum(correction, axis=axis)
    out = concatenate([slice_axis(p, 0, 1, axis), rest], axis=axis)
    # strongly typed, as JAX's (its cumsum drops the weak type of an integer p's promotion)
    return lax.convert_element_type(out, out.dtype, False)


# -- windows ----------------------------------------------------------------------------------


def _window(name: str, M, formula):
    """`formula(n, M)` at the sample indices n = 0..M-1 (the default float dtype) of a
    window of `M` points (a concrete integer); all ones for at most one point."""
    M = int(concrete(M, f"M argument of jnp.{name}"))
    dtype = avals.canonical_dtype("float64")
    if M < 0:
        raise TypeError(f"jnp.{name}: the window length M must be non-negative, got {M}.")
    if M <= 1:
        return lax.full((M,), 1, dtype)
    return formula(lax.iota(dtype, M), M)


def bartlett(M: int):
    """The Bartlett (triangular) window of `M` points: 1 - |2n + 1 - M| / (M - 1).

    >>> import jaxwg.numpy as jnp
    >>> jnp.bartlett(5).tolist()
    [0.0, 0.5, 1.0, 0.5, 0.0]
    """
    return _window("bartlett", M, lambda n, M: 1 - ufuncs.abs(2 * n + 1 - M) / (M - 1))


def _cosine_window(name: str, M, a0: float, a1: float, a2: float = 0.0):
    """The window a0 - a1 cos(2 pi n / (M - 1)) (+ a2 cos(4 pi n / (M - 1)))."""

    def formula(n, M):
        out = a0 - a1 * ufuncs.cos(2 * np.pi * n / (M - 1))
        return out + a2 * ufuncs.cos(4 * np.pi * n / (M - 1)) if a2 else out

    return _window(name, M, formula)


def blackman(M: int):
    """The Blackman window of `M` points: 0.42 - 0.5 cos(2 pi n / (M - 1)) +
    0.08 cos(4 pi n / (M - 1)).

    >>> import jaxwg.numpy as jnp
    >>> [round(v, 4) for v in jnp.blackman(3).tolist()]
    [-0.0, 1.0, -0.0]
    """
    return _cosine_window("blackman", M, 0.42, 0.5, 0.08)


def hamming(M: int):
    """The Hamming window of `M` points: 0.54 - 0.46 cos(2 pi n / (M - 1)).

    >>> import jaxwg.numpy as jnp
    >>> [round(v, 4) for v in jnp.hamming(3).tolist()]
    [0.08, 1.0, 0.08]
    """
    return _cosine_window("hamming", M, 0.54, 0.46)


def hanning(M: int):
    """The Hann window of `M` points: 0.5 - 0.5 cos(2 pi n / (M - 1)).

    >>> import jaxwg.numpy as jnp
    >>> jnp.hanning(3).tolist()
    [0.0, 1.0, 0.0]
    """
    return _cosine_window("hanning", M, 0.5, 0.5)


def kaiser(M: int, beta):
    """The Kaiser window of `M` points with shape parameter `beta`:
    i0(beta sqrt(1 - ((n - alpha) / alpha)^2)) / i0(beta), alpha = (M - 1) / 2.

    >>> import jaxwg.numpy as jnp
    >>> jnp.kaiser(3, 0.0).tolist()
    [1.0, 1.0, 1.0]
    """

    def formula(n, M):
        alpha = 0.5 * (M - 1)
        return i0(beta * ufuncs.sqrt(1 - ((n - alpha) / alpha) ** 2)) / i0(beta)

    return _window("kaiser", M, formula)
