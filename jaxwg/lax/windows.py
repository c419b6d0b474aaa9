"""Sliding windows: `reduce_window` and `reduce` with any computation, and the windowed
view that convolutions (`lax/convolution.py`) contract against their kernel.

A window over an axis of length `n` is a view, not a copy: the array is repeated
along a new axis, flattened, and cut into rows one `dilation` longer than `n`, so row
`k` starts `k * dilation` elements further into the data; every `stride`-th column of
the first `count` rows is then the window element `k` of output position `o`:
`windows[o, k] = x[o * stride + k * dilation]`. Kernels read it through one index
expression, and its transpose (pads, reshapes and one sum) needs no scatter.

>>> import jaxwg.numpy as jnp
>>> from jaxwg import lax
>>> lax.reduce_window(jnp.arange(6.0), -jnp.inf, lax.max, (3,), (2,), "VALID").tolist()
[2.0, 4.0]
>>> lax.reduce(jnp.arange(6.0).reshape(2, 3), 0.0, lax.add, (1,)).tolist()
[3.0, 12.0]
"""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence

import numpy as np

from ..core import dtypes as dt
from ..frontend.array import aval_of
from ..frontend.trace import Tracer
from ..frontend.pytree import tree_flatten, tree_unflatten
from . import lax

__all__ = ["padtype_to_pads", "reduce", "reduce_window"]


def padtype_to_pads(in_shape, window_shape, window_strides, padding) -> list[tuple[int, int]]:
    """`(low, high)` padding per spatial axis for "VALID", "SAME" (the odd element
    at the end) or "SAME_LOWER" (at the start), as `jax.lax.padtype_to_pads`.

    >>> from jaxwg import lax
    >>> lax.padtype_to_pads((5, 6), (3, 3), (2, 2), "SAME")
    [(1, 1), (0, 1)]
    """
    kind = str(padding).upper()
    if kind not in ("VALID", "SAME", "SAME_LOWER"):
        raise RuntimeError("Unrecognized padding type: expected 'VALID', 'SAME', or "
                           f"'SAME_LOWER', got {padding}.")
    if kind == "VALID":
        return [(0, 0)] * len(in_shape)
    pads = []
    for n, k, s in zip(in_shape, window_shape, window_strides):
        total = max((-(-n // s) - 1) * s + k - n, 0)
        small, large = total // 2, total - total // 2
        pads.append((small, large) if kind == "SAME" else (large, small))
    return pads


def window_count(length: int, size: int, stride: int, dilation: int = 1) -> int:
    """How many windows of `size` (spread by `dilation`) fit in `length` at `stride`."""
    span = dilation * (size - 1) + 1
    return max((length - span) // stride + 1, 0)


def _window_axis(x, axis: int, size: int, stride: int, dilation: int):
    """`x` with `axis` (length n) replaced by (count, size) axes:
    `out[..., o, k, ...] = x[..., o * stride + k * dilation, ...]`."""
    shape = aval_of(x).shape
    n = shape[axis]
    count = window_count(n, size, stride, dilation)
    before, after = shape[:axis], shape[axis + 1:]
    if count == 0 or size == 0:
        return lax.full(before + (count, size) + after, 0, aval_of(x).dtype)
    if size == 1:
        sliced = lax.slice_in_dim(x, 0, (count - 1) * stride + 1, stride, axis)
        return lax.expand_dims(sliced, (axis + 1,))
    # Rows must be at least count * stride long to take every stride-th column:
    # zeros appended to the data lengthen them (they are never read).
    length = max(n, count * stride - dilation)
    if length > n:
        config = [(0, 0, 0)] * len(shape)
        config[axis] = (0, length - n, 0)
        x = lax.pad(x, lax.full((), 0, aval_of(x).dtype), config)
    row = length + dilation
    repeats = -(-size * row // length)
    y = lax.broadcast_in_dim(x, before + (repeats, length) + after,
                             tuple(range(axis)) + tuple(range(axis + 1, len(shape) + 1)))
    y = lax.reshape(y, before + (repeats * length,) + after)
    y = lax.slice_in_dim(y, 0, size * row, axis=axis)
    y = lax.reshape(y, before + (size, row) + after)
    y = lax.slice_in_dim(y, 0, count * stride, axis=axis + 1)
    y = lax.reshape(y, before + (size, count, stride) + after)
    y = lax.slice_in_dim(y, 0, 1, axis=axis + 2)
    y = lax.reshape(y, before + (size, count) + after)
    perm = list(range(len(shape) + 1))
    perm[axis], perm[axis + 1] = axis + 1, axis
    return lax.transpose(y, perm)


def windows(x, axes: Sequence[int], sizes, strides, dilations):
    """The windows of `x` along `axes`: the result has `x`'s axes, with each of `axes`
    holding the output positions, followed by one axis per window dimension:
    `out[..., o0, ..., o1, ..., k0, k1] = x[..., o0*s0 + k0*d0, ..., o1*s1 + k1*d1, ...]`."""
    ndim = aval_of(x).ndim
    for done, (axis, size, stride, dilation) in enumerate(zip(axes, sizes, strides, dilations)):
        # earlier window axes sit right after their position axes until the end
        position = axis + sum(1 for a in axes[:done] if a < axis)
        x = _window_axis(x, position, size, stride, dilation)
    window_axes = [axis + 1 + sum(1 for a in axes if a < axis) for axis in axes]
    keep = [a for a in range(ndim + len(axes)) if a not in window_axes]
    return lax.transpose(x, keep + window_axes)


def positive_ints(name: str, what: str, values, count: int) -> tuple[int, ...]:
    """Strides or dilations: `count` positive ints, all 1 for None."""
    values = (1,) * count if values is None else tuple(operator.index(v) for v in values)
    if len(values) != count:
        raise ValueError(f"{name} {what} must have {count} entries (one per window axis), "
                         f"got {values}")
    if any(v < 1 for v in values):
        raise ValueError(f"{name} {what} must be positive, got {values}")
    return values


def monoid(computation, dtype):
    """The reduction primitive wrapper and neutral element for `computation` on
    `dtype`, or None when `computation` is not a known monoid there."""
    if dtype.is_complex and computation in (lax.max, lax.min):
        # No neutral element: XLA's lexicographic max(NaN, x) is x, so a fill would win
        # over a NaN operand (the callers combine pairwise instead).
        return None
    lowest, highest = dt.bounds(dtype)
    if dtype.is_bool:
        table = {lax.bitwise_and: (lax.reduce_and, True), lax.bitwise_or: (lax.reduce_or, False)}
    else:
        table = {lax.add: (lax.reduce_sum, 0), lax.mul: (lax.reduce_prod, 1),
                 lax.max: (lax.reduce_max, lowest), lax.min: (lax.reduce_min, highest)}
    return table.get(computation)


def _pairwise(computation, xs, axis: int):
    """`computation` folded over `axis` of every array in `xs` in log2(n) steps: the
    first half combines with the second, and the middle element of an odd length is
    carried to the next step as it is (padding with the init value would fold it in
    again at every odd length, which only an identity may be)."""
    while aval_of(xs[0]).shape[axis] > 1:
        n = aval_of(xs[0]).shape[axis]
        half = n // 2
        lows = [lax.slice_in_dim(x, 0, half, axis=axis) for x in xs]
        highs = [lax.slice_in_dim(x, n - half, n, axis=axis) for x in xs]
        combined = _flat_call(computation, lows, highs)
        if n % 2:
            combined = [lax.concatenate([c, lax.slice_in_dim(x, half, half + 1, axis=axis)], axis)
                        for c, x in zip(combined, xs)]
        xs = combined
    return [lax.squeeze(x, (axis,)) for x in xs]


def _flat_call(computation, lefts, rights):
    """`computation` on (tuples of) arrays, as lists; a single operand is passed bare."""
    if len(lefts) == 1:
        return [computation(lefts[0], rights[0])]
    out, _ = tree_flatten(computation(tuple(lefts), tuple(rights)))
    return out


def _as_scalars(name: str, inits, operands):
    """The init values as rank-0 arrays of their operands' dtypes (an Array init
    must have its operand's dtype already, as in JAX)."""
    out = []
    for init, x in zip(inits, operands):
        dtype, aval = aval_of(x).dtype, aval_of(init)
        if aval.ndim:
            raise TypeError(f"{name}: init values must be scalars, got shape {aval.shape}")
        if hasattr(init, "aval") and aval.dtype != dtype:
            raise TypeError(f"{name}: init value dtype {aval.dtype.name} does not match "
                            f"operand dtype {dtype.name}")
        out.append(lax.convert_element_type(init, dtype))
    return out


def _reduce_flat(operands, inits, computation, axes, valid=None):
    """The reduction of every operand over `axes` with `computation`, the init values
    folded in once, as XLA's reduce defines the result. `valid` (a bool array of the
    operands' shape, or None for all valid) marks the elements that take part: window
    padding and dilation holes do not."""
    known = monoid(computation, aval_of(operands[0]).dtype) if len(operands) == 1 else None
    if known is not None:
        primitive, neutral = known
        x = operands[0] if valid is None else \
            lax.select(valid, operands[0], lax.full_like(operands[0], neutral))
        return [computation(inits[0], primitive(x, axes) if axes else x)]
    shape = aval_of(operands[0]).shape
    keep = [a for a in range(len(shape)) if a not in axes]
    flat_shape = tuple(shape[a] for a in keep) + (math.prod(shape[a] for a in axes),)

    def flatten(x):
        return lax.reshape(lax.transpose(x, keep + list(axes)), flat_shape)

    full = [lax.broadcast_in_dim(init, flat_shape[:-1], ()) for init in inits]
    if flat_shape[-1] == 0:
        return full
    if valid is None:
        xs = _pairwise(computation, [flatten(x) for x in operands], len(keep))
        return _flat_call(computation, full, xs)
    # the mask rides along as one more operand: a combination takes the valid side
    # alone when the other is not valid
    *xs, seen = _pairwise(_masked(computation), [flatten(x) for x in operands + [valid]], len(keep))
    return [lax.select(seen, out, init)
            for out, init in zip(_flat_call(computation, full, xs), full)]


def _masked(computation):
    def combine(lefts, rights):
        *a, valid_a = lefts
        *b, valid_b = rights
        both = _flat_call(computation, a, b)
        out = [lax.select(lax.bitwise_and(valid_a, valid_b), ab, lax.select(valid_a, x, y))
               for ab, x, y in zip(both, a, b)]
        return tuple(out) + (lax.bitwise_or(valid_a, valid_b),)

    return combine


def _weak_as(outs, weak: bool):
    """`outs` with weak type `weak` (a no-op where they have it)."""
    return [lax.convert_element_type(o, aval_of(o).dtype, weak) for o in outs]


# The identity for which JAX's reduce_window hands a computation to a primitive of its own
# (reduce_window_sum, _max, _min), as a function of the init value's dtype.
_WINDOW_IDENTITIES = {lax.add: lambda dtype: 0, lax.max: lambda dtype: dt.bounds(dtype)[0],
                      lax.min: lambda dtype: dt.bounds(dtype)[1]}


def _window_weak_type(computation, inits, operands) -> bool:
    """The weak type of reduce_window's result, as JAX's: the operand's where JAX uses a
    primitive of its own (one operand; add, max or min; a concrete scalar init that is
    the identity in its own dtype), else strong (its generic reduce_window's rule)."""
    identity = _WINDOW_IDENTITIES.get(computation)
    if identity is None or len(inits) != 1 or isinstance(inits[0], Tracer):
        return False
    init = aval_of(inits[0])
    return (aval_of(operands[0]).weak_type and init.shape == ()
            and bool(np.asarray(inits[0]) == identity(init.dtype)))


def reduce(operands, init_values, computation, dimensions):
    """Reduce `operands` (an array or a pytree of arrays of one shape) over
    `dimensions` with `computation`, starting from `init_values`, as `jax.lax.reduce`.

    `lax.add`, `mul`, `max`, `min` (and `bitwise_and`/`or` on bools) become the
    reduction primitives; any other computation is folded pairwise in log2(n) steps.

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg import lax
    >>> lax.reduce(jnp.array([[1, 5], [4, 2]]), 0, lax.max, (0,)).tolist()
    [4, 5]
    """
    flat, tree = tree_flatten(operands)
    inits, init_tree = tree_flatten(init_values)
    if tree != init_tree:
        raise ValueError("reduce: operands and init_values must have the same tree "
                         f"structure, got {tree} and {init_tree}")
    shapes = {aval_of(x).shape for x in flat}
    if len(shapes) != 1:
        raise ValueError(f"reduce: operands must have the same shape, got {sorted(shapes)}")
    ndim = aval_of(flat[0]).ndim
    axes = sorted(operator.index(d) for d in dimensions)
    if len(set(axes)) != len(axes) or any(not 0 <= a < ndim for a in axes):
        raise ValueError(f"reduce: dimensions {tuple(dimensions)} are not distinct axes of "
                         f"an operand of rank {ndim}")
    out = _reduce_flat(flat, _as_scalars("reduce", inits, flat), computation, axes)
    # as JAX's: weakly typed where the operands and the init values all are
    weak = all(aval_of(x).weak_type for x in flat + inits)
    return tree_unflatten(tree, _weak_as(out, weak))


def reduce_window(operand, init_value, computation, window_dimensions, window_strides=None,
                  padding="VALID", base_dilation=None, window_dilation=None):
    """Reduce each window of `operand` (an array or a pytree of arrays) with
    `computation` from `init_value`, as `jax.lax.reduce_window`: padding and the
    holes of `base_dilation` hold the init value.

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg import lax
    >>> lax.reduce_window(jnp.arange(5.0), 0.0, lax.add, (2,), (1,), "SAME").tolist()
    [1.0, 3.0, 5.0, 7.0, 4.0]
    """
    flat, tree = tree_flatten(operand)
    inits, init_tree = tree_flatten(init_value)
    if tree != init_tree:
        raise ValueError("reduce_window: operand and init_value must have the same tree "
                         f"structure, got {tree} and {init_tree}")
    shape = aval_of(flat[0]).shape
    ndim = len(shape)
    name = "reduce_window"
    sizes = tuple(operator.index(d) for d in window_dimensions)
    if len(sizes) != ndim:
        raise TypeError(f"{name}: window_dimensions {sizes} must have one entry per axis "
                        f"of the operand of shape {shape}")
    strides = positive_ints(name, "window_strides", window_strides, ndim)
    base = positive_ints(name, "base_dilation", base_dilation, ndim)
    dilation = positive_ints(name, "window_dilation", window_dilation, ndim)
    spans = tuple(d * (k - 1) + 1 for k, d in zip(sizes, dilation))
    if isinstance(padding, str):
        padding = padtype_to_pads(shape, spans, strides, padding)
    padding = tuple((operator.index(lo), operator.index(hi)) for lo, hi in padding)
    if len(padding) != ndim:
        raise ValueError(f"{name}: padding {padding} must have one pair per axis of the "
                         f"operand of shape {shape}")
    weak = _window_weak_type(computation, inits, flat)
    inits = _as_scalars(name, inits, flat)
    config = [(lo, hi, b - 1) for (lo, hi), b in zip(padding, base)]
    axes = tuple(range(ndim))

    def patches(x, fill):
        return windows(lax.pad(x, fill, config), axes, sizes, strides, dilation)

    # padding and dilation holes do not take part (XLA skips them): they read False
    # in a mask with the operands' windows
    valid = patches(lax.full(shape, True, dt.bool_), lax.full((), False, dt.bool_))
    out = _reduce_flat([patches(x, init) for x, init in zip(flat, inits)], inits, computation,
                       list(range(ndim, 2 * ndim)), valid)
    return tree_unflatten(tree, _weak_as(out, weak))
