"""Padding: `pad` in NumPy's modes "constant", "edge", "reflect", "symmetric", "wrap" and
"empty".

Every mode is built from views (`lax.pad`, slices, flips, broadcasts) and joins, so a
padded array costs index arithmetic in whatever kernel reads it; only
`reflect_type="odd"` computes values.

>>> import jaxwg.numpy as jnp
>>> jnp.pad(jnp.array([1, 2]), 1, mode="edge").tolist()
[1, 1, 2, 2]
"""

from __future__ import annotations

import functools

import numpy as np

from .. import lax
from ..core import dtypes as dt
from ..frontend.jit import staged_jit
from ._util import aval_of, broadcast_to_shape, ensure_arraylike, is_array, slice_axis, static_value
from .manipulation import broadcast_to

__all__ = ["pad"]


def _broadcast_axis(x, axis: int, size: int):
    """`x`, of size 1 along `axis`, broadcast to `size` there."""
    shape = list(aval_of(x).shape)
    shape[axis] = size
    return lax.broadcast_in_dim(x, shape, tuple(range(len(shape))))


def _join(parts, axis: int):
    """`lax.concatenate` without the empty pieces (keeping one if all are empty)."""
    kept = [p for p in parts if aval_of(p).shape[axis]] or parts[:1]
    return lax.concatenate(kept, axis)


_PAD_KWARGS = {"constant": ("constant_values",), "empty": (), "edge": (), "wrap": (),
               "reflect": ("reflect_type",), "symmetric": ("reflect_type",)}
_PAD_NOT_YET = ("linear_ramp", "maximum", "mean", "median", "minimum")


def _pad_pairs(pad_width, nd: int, name: str) -> tuple[tuple[int, int], ...]:
    """`pad_width` in any of NumPy's forms as one (before, after) pair per axis."""
    try:
        w = static_value(pad_width, f"{name} argument of jnp.pad")
    except ValueError:  # ragged
        raise TypeError(f"`{name}` entries must be the same shape: {pad_width}") from None
    if w.dtype == object:
        raise TypeError(f"`{name}` entries must be the same shape: {pad_width}")
    if w.size and w.dtype.kind not in "iu":
        raise TypeError(f"`{name}` must be of integral type.")
    w = w.astype(np.int64)
    if w.shape == (nd, 2):
        pairs = w
    elif w.shape in ((1, 2), (2,)):
        pairs = np.broadcast_to(w.reshape(1, 2), (nd, 2))
    elif w.shape in ((1,), ()):
        pairs = np.broadcast_to(w.reshape(1, 1), (nd, 2))
    else:
        raise ValueError(f"jnp.pad: {name} with nd={nd} has unsupported shape {w.shape}. "
                         f"Valid shapes are ({nd}, 2), (1, 2), (2,), (1,), or ().")
    return tuple((int(lo), int(hi)) for lo, hi in pairs)


def _host_cast(value: np.ndarray, dtype) -> np.ndarray:
    """A host value converted to `dtype` as `lax.convert_element_type` does (float to int
    truncates and saturates, NaN gives 0)."""
    target = np.dtype(dtype.np)
    if value.dtype.kind == "f" and target.kind in "iu":
        info = np.iinfo(target)
        value = np.nan_to_num(np.trunc(value), nan=0.0)
        return np.clip(value, info.min, info.max).astype(target)
    if target.kind == "b":
        return value != 0
    return value.astype(target)


def _pad_value(x, host):
    """A host pad value as a scalar of `x`'s dtype, weakly typed where `x` is, as JAX
    converts it (`pad` keeps a weak type only where both operands have one)."""
    return lax.full_like(x, host, shape=())


def _pad_constant(x, widths, constant_values):
    aval = aval_of(x)
    nd = aval.ndim
    if is_array(constant_values):
        values = lax.convert_element_type(constant_values, aval.dtype, aval.weak_type)
        cshape = aval_of(values).shape
        if len(cshape) == 1 and cshape[0] == 1:
            values, cshape = lax.reshape(values, ()), ()
        if cshape == ():
            return lax.pad(x, values, [(lo, hi, 0) for lo, hi in widths])
        if len(cshape) > 2 or cshape[-1] not in (1, 2):
            raise ValueError(f"jnp.pad: constant_values has unsupported shape {cshape}. If the "
                             "shape is 1D or 2D, the last dimension must be of size 1 or 2.")
        values = broadcast_to(values, (nd, 2))
        pick = [[values[i, side] for side in (0, 1)] for i in range(nd)]
    else:  # host values, as 0-d NumPy arrays of the array's dtype: constants of the kernel
        host = _host_cast(static_value(constant_values, "constant_values of jnp.pad"), aval.dtype)
        if host.size == 1 and host.ndim <= 1:
            return lax.pad(x, _pad_value(x, host.reshape(())), [(lo, hi, 0) for lo, hi in widths])
        if host.ndim > 2 or host.shape[-1] not in (1, 2):
            raise ValueError(f"jnp.pad: constant_values has unsupported shape {host.shape}. If "
                             "the shape is 1D or 2D, the last dimension must be of size 1 or 2.")
        try:
            host = np.broadcast_to(host, (nd, 2))
        except ValueError:
            raise ValueError(f"jnp.pad: constant_values of shape {host.shape} cannot be "
                             f"broadcast to {(nd, 2)}") from None
        if (host == host.flat[0]).all():
            return lax.pad(x, _pad_value(x, host.reshape(-1)[0:1].reshape(())),
                           [(lo, hi, 0) for lo, hi in widths])
        pick = [[_pad_value(x, host[i, side:side + 1].reshape(())) for side in (0, 1)] for i in range(nd)]
    # One axis and one side at a time: later axes pad over the corners of earlier ones.
    for i, (lo, hi) in enumerate(widths):
        for side, width in ((0, lo), (1, hi)):
            if width:
                config = [(0, 0, 0)] * nd
                config[i] = (width, 0, 0) if side == 0 else (0, width, 0)
                x = lax.pad(x, pick[i][side], config)
    return x


def _check_no_padding(pair, mode: str) -> None:
    if pair[0] > 0 or pair[1] > 0:
        raise ValueError(f"Cannot apply '{mode}' padding to empty axis")


def _pad_edge(x, widths):
    for i, (lo, hi) in enumerate(widths):
        n = aval_of(x).shape[i]
        if n == 0:  # not padded: pad() checked
            continue
        parts = [x]
        if lo:
            parts.insert(0, _broadcast_axis(slice_axis(x, 0, 1, i), i, lo))
        if hi:
            parts.append(_broadcast_axis(slice_axis(x, n - 1, n, i), i, hi))
        x = _join(parts, i)
    return x


def _pad_periodic(x, widths, mode: str, reflect_type: str):
    """"wrap", "reflect" and "symmetric": along each axis the padded array is periodic,
    one period (the *unit*) being `x` ("wrap"), or `x` then its mirror image without
    ("reflect") or with ("symmetric") the end elements. The unit is tiled by a broadcast
    and the padded range sliced out, so an axis costs a few views however wide the
    padding. With `reflect_type="odd"` the mirror image is `2 * x[-1] - x` and each
    period adds `2 * (x[-1] - x[0])`, as repeated odd reflections do."""
    for i, (lo, hi) in enumerate(widths):
        shape = aval_of(x).shape
        n = shape[i]
        if n == 0 or lo == hi == 0:  # empty axes are not padded: pad() checked
            continue
        if n == 1 and mode != "wrap":
            x = _pad_edge(x, [(lo, hi) if k == i else (0, 0) for k in range(len(shape))])
            continue
        odd = mode != "wrap" and reflect_type == "odd"
        unit = x
        if mode != "wrap":
            back = lax.rev(x if mode == "symmetric" else slice_axis(x, 1, n - 1, i), (i,))
            if odd:
                last = broadcast_to_shape(slice_axis(x, n - 1, n, i), aval_of(back).shape)
                back = lax.sub(lax.mul(last, 2), back)
            unit = _join([x, back], i)
        period = aval_of(unit).shape[i]
        first_tile = -(-lo // period)  # whole or partial periods before x[0]
        tiles = first_tile + -(-(n + hi) // period)
        wide = shape[:i] + (tiles, period) + shape[i + 1:]
        keep = tuple(d for d in range(len(wide)) if d != i)
        tiled = lax.broadcast_in_dim(unit, wide, keep)
        if odd:
            first, last = slice_axis(x, 0, 1, i), slice_axis(x, n - 1, n, i)
            step = lax.broadcast_in_dim(lax.mul(lax.sub(last, first), 2), wide, keep)
            drift = lax.mul(lax.broadcasted_iota(aval_of(x).dtype, wide, i), step)
            if first_tile:
                drift = lax.sub(drift, lax.mul(step, first_tile))
            tiled = lax.add(tiled, drift)
        flat = lax.reshape(tiled, shape[:i] + (tiles * period,) + shape[i + 1:])
        start = first_tile * period - lo
        x = slice_axis(flat, start, start + lo + n + hi, i)
    return x


def pad(array, pad_width, mode="constant", **kwargs):
    """`array` padded by `pad_width` (an int, a (before, after) pair, or one pair per axis).

    Modes: "constant" (`constant_values`: a scalar, a pair, or one pair per axis),
    "edge", "reflect", "symmetric" (`reflect_type` "even" or "odd"), "wrap", and
    "empty" (zeros). All are built from views (`lax.pad`, slices, flips, broadcasts)
    and joins; only `reflect_type="odd"` computes.

    >>> import jaxwg.numpy as jnp
    >>> x = jnp.array([1, 2, 3])
    >>> jnp.pad(x, (1, 2), constant_values=9).tolist(), jnp.pad(x, 2, mode="reflect").tolist()
    ([9, 1, 2, 3, 9, 9], [3, 2, 1, 2, 3, 2, 1])
    >>> jnp.pad(x, 2, mode="edge").tolist(), jnp.pad(x, 2, mode="wrap").tolist()
    ([1, 1, 1, 2, 3, 3, 3], [2, 3, 1, 2, 3, 1, 2])
    """
    x = ensure_arraylike("pad", array)
    nd = aval_of(x).ndim
    widths = _pad_pairs(pad_width, nd, "pad_width")
    if callable(mode) or mode in _PAD_NOT_YET:
        raise NotImplementedError(f"jaxwg.numpy.pad: mode {mode!r} is not supported yet; "
                                  f"supported modes are {', '.join(_PAD_KWARGS)}")
    if mode not in _PAD_KWARGS:
        raise NotImplementedError(f"Unimplemented padding mode '{mode}' for np.pad.")
    unsupported = set(kwargs) - set(_PAD_KWARGS[mode])
    if unsupported:
        raise ValueError(f"unsupported keyword arguments for mode '{mode}': {unsupported}")
    if any(lo < 0 or hi < 0 for lo, hi in widths):
        raise ValueError("index can't contain negative values")
    constant_values = kwargs.get("constant_values", 0)
    if isinstance(constant_values, (list, tuple)):  # one leaf, not a tree of scalars
        constant_values = np.asarray(constant_values)
    return _pad(x, widths, mode, constant_values, kwargs.get("reflect_type", "even"))


@functools.partial(staged_jit, static_argnums=(1, 2, 4))
def _pad(x, widths, mode: str, constant_values, reflect_type: str):
    """`pad` past its argument checks; one `jit` equation in a jaxpr, as JAX's `_pad`
    (`constant_values` is its argument, the rest static)."""
    if aval_of(x).ndim == 0:
        return x
    if mode == "constant":
        return _pad_constant(x, widths, constant_values)
    if mode == "empty":
        return _pad_constant(x, widths, 0)
    for n, pair in zip(aval_of(x).shape, widths):
        if n == 0:
            _check_no_padding(pair, mode)
    if mode == "edge":
        return _pad_edge(x, widths)
    if reflect_type not in ("even", "odd"):
        raise ValueError(f"jnp.pad: reflect_type must be 'even' or 'odd', got {reflect_type!r}")
    dtype = aval_of(x).dtype
    if reflect_type == "odd" and dtype is dt.float16:
        # The closed form's drift (period times 2 (x[-1] - x[0])) leaves float16's exact
        # integers where repeated reflections do not: it is summed in float32.
        wide = _pad_periodic(lax.convert_element_type(x, dt.float32), widths, mode, reflect_type)
        return lax.convert_element_type(wide, dt.float16)
    return _pad_periodic(x, widths, mode, reflect_type)
