"""Shape functions: reshape, transpose, squeeze, expand_dims, broadcast_to, axis moves,
flips, `atleast_nd`, and the repetitions `tile` and `repeat`.

All of them are movement ops: views over the same buffer, composed into the index
arithmetic of whatever kernel finally reads them (no copies); `repeat` with counts
that differ joins such views. Joining and splitting arrays is in `joining.py`, padding
in `padding.py`.

>>> import jaxwg.numpy as jnp
>>> x = jnp.arange(6)
>>> jnp.reshape(x, (2, -1)).shape, jnp.transpose(x.reshape(2, 3)).shape
((2, 3), (3, 2))
"""

from __future__ import annotations

import math
import operator
import warnings

import numpy as np

from .. import lax
from ..frontend import aval as avals
from ..frontend.array import ArrayImpl
from ..frontend.trace import Tracer
from ..lax.keys import key_data, moves_keys
from ._util import (
    aval_of,
    axis_index,
    broadcast_shapes,
    broadcast_to_shape,
    canonicalize_axis,
    canonicalize_axes,
    check_arraylike,
    concrete,
    ensure_arraylike,
    slice_axis,
    static_value,
    to_array,
)

__all__ = [
    "astype",
    "atleast_1d",
    "atleast_2d",
    "atleast_3d",
    "broadcast_arrays",
    "broadcast_shapes",
    "broadcast_to",
    "dsplit",
    "expand_dims",
    "isscalar",
    "flip",
    "fliplr",
    "flipud",
    "hsplit",
    "matrix_transpose",
    "moveaxis",
    "ndim",
    "permute_dims",
    "ravel",
    "repeat",
    "reshape",
    "resize",
    "rollaxis",
    "rot90",
    "shape",
    "size",
    "squeeze",
    "swapaxes",
    "tile",
    "transpose",
    "vsplit",
]


def _resolve_shape(shape, size: int) -> tuple[int, ...]:
    try:
        shape = (operator.index(shape),)
    except TypeError:
        shape = tuple(operator.index(n) for n in shape)
    unknown = [i for i, n in enumerate(shape) if n == -1]
    if len(unknown) > 1:
        raise TypeError(f"can only specify one unknown axis size with a `-1` value, got {shape}")
    if unknown:
        known = math.prod(n for n in shape if n != -1)
        if known == 0 or size % known:
            raise TypeError(f"cannot reshape array of size {size} into shape {shape}")
        shape = tuple(size // known if n == -1 else n for n in shape)
    if math.prod(shape) != size or any(n < 0 for n in shape):
        raise TypeError(f"cannot reshape array of size {size} into shape {shape}")
    return shape


def reshape(a, shape=None, order="C", *, newshape=None, copy=None):
    """`a` with a new shape (one axis may be -1); row-major unless `order="F"`.

    >>> import jaxwg.numpy as jnp
    >>> jnp.reshape(jnp.arange(6), (3, -1)).shape
    (3, 2)
    """
    shape = newshape if shape is None else shape
    if key_data("reshape", [a]) is not None:  # typed keys reshape their key axes
        return a.reshape(shape, order=order)
    x = ensure_arraylike("reshape", a)
    aval = aval_of(x)
    new = _resolve_shape(shape, aval.size)
    if order == "F":
        reversed_x = transpose(x)
        return transpose(lax.reshape(reversed_x, new[::-1]))
    if order not in ("C", "A"):
        raise ValueError(f"reshape: unknown order {order!r}")
    return lax.reshape(x, new)


def ravel(a, order="C"):
    """`a` flattened to one axis.

    >>> import jaxwg.numpy as jnp
    >>> jnp.ravel(jnp.ones((2, 3))).shape
    (6,)
    """
    if key_data("ravel", [a]) is not None:
        return a.ravel(order)
    x = ensure_arraylike("ravel", a)
    return reshape(x, (aval_of(x).size,), order)


def transpose(a, axes=None):
    """`a` with its axes permuted (reversed by default).

    >>> import jaxwg.numpy as jnp
    >>> jnp.transpose(jnp.ones((2, 3, 4)), (1, 0, 2)).shape
    (3, 2, 4)
    """
    if key_data("transpose", [a]) is not None:
        return a.transpose(axes)
    x = ensure_arraylike("transpose", a)
    nd = aval_of(x).ndim
    if axes is None:
        perm = tuple(reversed(range(nd)))
    else:
        perm = tuple(canonicalize_axis(ax, nd) for ax in axes)  # lax checks it permutes
    return lax.transpose(x, perm)


def permute_dims(a, /, axes):
    """Array API name of `transpose`.

    >>> import jaxwg.numpy as jnp
    >>> jnp.permute_dims(jnp.ones((2, 3)), (1, 0)).shape
    (3, 2)
    """
    check_arraylike("permute_dims", a)
    return transpose(a, axes)


def matrix_transpose(x, /):
    """Swap the last two axes.

    >>> import jaxwg.numpy as jnp
    >>> jnp.matrix_transpose(jnp.ones((5, 2, 3))).shape
    (5, 3, 2)
    """
    x = ensure_arraylike("matrix_transpose", x)
    nd = aval_of(x).ndim
    if nd < 2:
        raise ValueError(f"matrix_transpose requires at least 2 dimensions; got ndim={nd}")
    return lax.transpose(x, tuple(range(nd - 2)) + (nd - 1, nd - 2))


def squeeze(a, axis=None):
    """`a` without size-1 axes (all of them, or those in `axis`).

    >>> import jaxwg.numpy as jnp
    >>> jnp.squeeze(jnp.ones((1, 3, 1))).shape
    (3,)
    """
    if key_data("squeeze", [a]) is not None:
        return a.squeeze(axis)
    x = ensure_arraylike("squeeze", a)
    shape = aval_of(x).shape
    if axis is None:
        axes = tuple(i for i, n in enumerate(shape) if n == 1)
    else:
        axes = tuple(canonicalize_axis(ax, len(shape))
                     for ax in (axis if isinstance(axis, (tuple, list)) else (axis,)))
        for ax in axes:
            if shape[ax] != 1:
                raise ValueError("cannot select an axis to squeeze out which has size not "
                                 f"equal to one, got shape={shape} and dimensions={axes}")
    if not axes:
        return x
    return lax.squeeze(x, axes)


@moves_keys(0)
def expand_dims(a, axis):
    """`a` with size-1 axes inserted at `axis` (an int or a tuple).

    >>> import jaxwg.numpy as jnp
    >>> jnp.expand_dims(jnp.ones(3), (0, 2)).shape
    (1, 3, 1)
    """
    x = ensure_arraylike("expand_dims", a)
    axes = axis if isinstance(axis, (tuple, list)) else (axis,)
    nd = aval_of(x).ndim + len(axes)
    axes = sorted(canonicalize_axis(ax, nd) for ax in axes)
    if len(set(axes)) != len(axes):
        raise ValueError(f"repeated axis in expand_dims: {axis}")
    return lax.expand_dims(x, axes)


@moves_keys(0)
def broadcast_to(array, shape):
    """`array` broadcast to `shape` (NumPy's rules).

    >>> import jaxwg.numpy as jnp
    >>> jnp.broadcast_to(jnp.arange(3), (2, 3)).shape
    (2, 3)
    """
    x = ensure_arraylike("broadcast_to", array)
    shape = (operator.index(shape),) if not hasattr(shape, "__iter__") else tuple(shape)
    return broadcast_to_shape(x, shape)


@moves_keys(rest=0, each=True)
def broadcast_arrays(*args):
    """The arguments broadcast to their common shape.

    >>> import jaxwg.numpy as jnp
    >>> [a.shape for a in jnp.broadcast_arrays(jnp.ones((2, 1)), jnp.ones(3))]
    [(2, 3), (2, 3)]
    """
    check_arraylike("broadcast_arrays", *args)
    arrays = [to_array(a) for a in args]
    shape = broadcast_shapes(*[aval_of(a).shape for a in arrays])
    return [broadcast_to_shape(a, shape) for a in arrays]


def astype(x, dtype, /, *, copy=False, device=None):
    """`x` converted to `dtype`.

    >>> import jaxwg.numpy as jnp
    >>> jnp.astype(jnp.array([1.7, -1.7]), jnp.int32)
    Array([ 1, -1], dtype=int32)
    """
    return lax.convert_element_type(ensure_arraylike("astype", x), avals.canonical_dtype(dtype))


def _warn_unless_arraylike(name: str, a) -> None:
    """JAX's DeprecationWarning (naming the caller's line) when `shape`, `ndim` or `size`
    reads a list, tuple or other non-array, which they still do as NumPy does."""
    if np.isscalar(a):  # strings too: JAX's array-likes include NumPy's scalars
        return
    try:
        check_arraylike(name, a)
    except TypeError as e:
        warnings.warn(f"{e} In a future JAX release this will be an error.",
                      DeprecationWarning, stacklevel=3)


def shape(a):
    """The shape of `a` (its `shape` attribute, else NumPy's reading of it).

    >>> import jaxwg.numpy as jnp
    >>> jnp.shape(jnp.ones((2, 3)))
    (2, 3)
    """
    if hasattr(a, "shape"):
        return a.shape
    _warn_unless_arraylike("shape", a)
    return np.shape(a)


def ndim(a):
    """The number of axes of `a` (its `ndim` attribute, else NumPy's reading of it).

    >>> import jaxwg.numpy as jnp
    >>> jnp.ndim(1.0)
    0
    """
    if hasattr(a, "ndim"):
        return a.ndim
    _warn_unless_arraylike("ndim", a)
    return np.ndim(a)


def isscalar(element) -> bool:
    """Whether `element` is a scalar: a Python or NumPy scalar, or an array (NumPy's, jaxwg's
    or a traced one) with no axes. As JAX, unlike NumPy, rank-0 arrays count, so the answer
    is the same under `jit`, where scalars arrive as rank-0 arrays.

    >>> import numpy as np, jaxwg.numpy as jnp
    >>> jnp.isscalar(1.0), jnp.isscalar(np.array(2)), jnp.isscalar(jnp.ones(2)), jnp.isscalar([1])
    (True, True, False, False)
    """
    if np.isscalar(element):
        return True
    if isinstance(element, (np.ndarray, ArrayImpl, Tracer)):
        return element.ndim == 0
    return False


def size(a, axis=None):
    """The number of elements of `a` (along `axis`, an int or a sequence, if given).

    >>> import jaxwg.numpy as jnp
    >>> jnp.size(jnp.ones((2, 3))), jnp.size(jnp.ones((2, 3)), axis=(0, 1))
    (6, 6)
    """
    _warn_unless_arraylike("size", a)
    if axis is None and hasattr(a, "size"):
        return a.size
    s = shape(a)
    return math.prod(s[i] for i in canonicalize_axes(axis, len(s)))


def _int_tuple(value) -> tuple[int, ...]:
    """An int, or a sequence of ints, as a tuple of ints."""
    try:
        return (operator.index(value),)
    except TypeError:
        return tuple(operator.index(v) for v in value)


def _repeat_each(x, count: int, axis: int):
    """Every element of `x` along `axis` repeated `count` times in place (a broadcast view)."""
    if count == 1:
        return x
    shape = aval_of(x).shape
    wide = shape[:axis + 1] + (count,) + shape[axis + 1:]
    keep = tuple(d for d in range(len(wide)) if d != axis + 1)
    out = shape[:axis] + (shape[axis] * count,) + shape[axis + 1:]
    return lax.reshape(lax.broadcast_in_dim(x, wide, keep), out)


# -- axes ------------------------------------------------------------------------------------


@moves_keys(0)
def moveaxis(a, source, destination):
    """`a` with axes `source` moved to positions `destination` (ints or sequences).

    >>> import jaxwg.numpy as jnp
    >>> jnp.moveaxis(jnp.ones((2, 3, 4)), 0, -1).shape
    (3, 4, 2)
    >>> jnp.moveaxis(jnp.ones((2, 3, 4)), (0, 1), (2, 0)).shape
    (3, 4, 2)
    """
    x = ensure_arraylike("moveaxis", a)
    nd = aval_of(x).ndim
    src = tuple(axis_index(s, nd) for s in _int_tuple(source))
    dst = tuple(axis_index(d, nd) for d in _int_tuple(destination))
    if len(src) != len(dst):
        raise ValueError(f"Inconsistent number of elements: {len(src)} vs {len(dst)}")
    perm = [i for i in range(nd) if i not in src]
    for d, s in sorted(zip(dst, src)):
        perm.insert(d, s)
    return lax.transpose(x, perm)


@moves_keys(0)
def rollaxis(a, axis, start=0):
    """`a` with `axis` moved to sit before position `start` (NumPy's older `moveaxis`).

    >>> import jaxwg.numpy as jnp
    >>> jnp.rollaxis(jnp.ones((2, 3, 4, 5)), 3, 1).shape
    (2, 5, 3, 4)
    """
    check_arraylike("rollaxis", a)
    x = to_array(a)
    nd = aval_of(x).ndim
    start = operator.index(concrete(start, "The 'start' argument of jnp.rollaxis() must be "
                                           "static."))
    ax = axis_index(axis, nd)
    if not -nd <= start <= nd:
        raise ValueError(f"start={start} must satisfy {-nd}<=start<={nd}")
    start = start + nd if start < 0 else start
    return moveaxis(x, ax, start - 1 if start > ax else start)


@moves_keys(0)
def swapaxes(a, axis1, axis2):
    """`a` with axes `axis1` and `axis2` exchanged.

    >>> import jaxwg.numpy as jnp
    >>> jnp.swapaxes(jnp.ones((2, 3, 4)), 0, 2).shape
    (4, 3, 2)
    """
    x = ensure_arraylike("swapaxes", a)
    nd = aval_of(x).ndim
    i, j = axis_index(axis1, nd), axis_index(axis2, nd)
    perm = list(range(nd))
    perm[i], perm[j] = perm[j], perm[i]
    return lax.transpose(x, perm)


@moves_keys(0)
def rot90(m, k=1, axes=(0, 1)):
    """`m` rotated by 90 degrees `k` times in the plane of `axes` (first towards second).

    >>> import jaxwg.numpy as jnp
    >>> jnp.rot90(jnp.array([[1, 2], [3, 4]])).tolist()
    [[2, 4], [1, 3]]
    """
    x = ensure_arraylike("rot90", m)
    nd = aval_of(x).ndim
    if nd < 2:
        raise ValueError("rot90 requires its first argument to have ndim at least two, but "
                         f"got first argument of shape {aval_of(x).shape}, which has ndim {nd}")
    ax1, ax2 = (axis_index(ax, nd) for ax in axes)
    if ax1 == ax2:
        raise ValueError("Axes must be different")
    k = operator.index(k) % 4
    if k == 0:
        return x
    if k == 2:
        return lax.rev(x, (ax1, ax2))
    perm = list(range(nd))
    perm[ax1], perm[ax2] = perm[ax2], perm[ax1]
    if k == 1:
        return lax.transpose(lax.rev(x, (ax2,)), perm)
    return lax.rev(lax.transpose(x, perm), (ax2,))


@moves_keys(0)
def flip(m, axis=None):
    """`m` with the order of elements reversed along `axis` (all axes if None).

    >>> import jaxwg.numpy as jnp
    >>> jnp.flip(jnp.arange(6).reshape(2, 3), 1).tolist()
    [[2, 1, 0], [5, 4, 3]]
    """
    x = ensure_arraylike("flip", m)
    nd = aval_of(x).ndim
    dims = tuple(range(nd)) if axis is None else tuple(axis_index(a, nd) for a in _int_tuple(axis))
    return lax.rev(x, dims) if dims else x


@moves_keys(0)
def fliplr(m):
    """`m` reversed along axis 1 (left to right).

    >>> import jaxwg.numpy as jnp
    >>> jnp.fliplr(jnp.array([[1, 2], [3, 4]])).tolist()
    [[2, 1], [4, 3]]
    """
    check_arraylike("fliplr", m)
    return flip(m, 1)


@moves_keys(0)
def flipud(m):
    """`m` reversed along axis 0 (up to down).

    >>> import jaxwg.numpy as jnp
    >>> jnp.flipud(jnp.array([[1, 2], [3, 4]])).tolist()
    [[3, 4], [1, 2]]
    """
    check_arraylike("flipud", m)
    return flip(m, 0)


# -- splitting along a named axis ------------------------------------------------------------


def _split_along(name: str, ary, indices_or_sections, axis: int | None):
    """`split` of `ary` along `axis` (None: axis 1, or 0 of a 1-d array)."""
    from .joining import split  # joining imports this module

    check_arraylike(name, ary)
    x = to_array(ary)
    if axis is None:
        axis = 0 if aval_of(x).ndim == 1 else 1
    return split(x, indices_or_sections, axis)


def hsplit(ary, indices_or_sections):
    """`split` along axis 1 (axis 0 of a 1-d array).

    >>> import jaxwg.numpy as jnp
    >>> [p.shape for p in jnp.hsplit(jnp.ones((2, 4)), 2)]
    [(2, 2), (2, 2)]
    """
    return _split_along("hsplit", ary, indices_or_sections, None)


def vsplit(ary, indices_or_sections):
    """`split` along axis 0.

    >>> import jaxwg.numpy as jnp
    >>> [p.tolist() for p in jnp.vsplit(jnp.arange(4), [1])]
    [[0], [1, 2, 3]]
    """
    return _split_along("vsplit", ary, indices_or_sections, 0)


def dsplit(ary, indices_or_sections):
    """`split` along axis 2.

    >>> import jaxwg.numpy as jnp
    >>> [p.shape for p in jnp.dsplit(jnp.ones((1, 2, 6)), 3)]
    [(1, 2, 2), (1, 2, 2), (1, 2, 2)]
    """
    return _split_along("dsplit", ary, indices_or_sections, 2)


# -- at least n dimensions -----------------------------------------------------------------

# Where `atleast_{1,2,3}d` insert size-1 axes into an array of 0, 1 or 2 dimensions.
ATLEAST_DIMS = {1: {0: (0,)}, 2: {0: (0, 1), 1: (0,)}, 3: {0: (0, 1, 2), 1: (0, 2), 2: (2,)}}


def _atleast(n: int, arys):
    check_arraylike(f"atleast_{n}d", *arys)
    out = []
    for a in arys:
        x = to_array(a)
        dims = ATLEAST_DIMS[n].get(aval_of(x).ndim)
        out.append(lax.expand_dims(x, dims) if dims else x)
    return out[0] if len(out) == 1 else out


@moves_keys(rest=0, each=True)
def atleast_1d(*arys):
    """Each argument with at least one axis (a list if more than one argument).

    >>> import jaxwg.numpy as jnp
    >>> jnp.atleast_1d(3.0).shape, [x.shape for x in jnp.atleast_1d(1, jnp.ones((2, 2)))]
    ((1,), [(1,), (2, 2)])
    """
    return _atleast(1, arys)


@moves_keys(rest=0, each=True)
def atleast_2d(*arys):
    """Each argument with at least two axes: `(n,)` becomes `(1, n)`.

    >>> import jaxwg.numpy as jnp
    >>> jnp.atleast_2d(jnp.arange(3)).shape
    (1, 3)
    """
    return _atleast(2, arys)


@moves_keys(rest=0, each=True)
def atleast_3d(*arys):
    """Each argument with at least three axes: `(n,)` becomes `(1, n, 1)`, `(m, n)`
    becomes `(m, n, 1)`.

    >>> import jaxwg.numpy as jnp
    >>> jnp.atleast_3d(jnp.arange(3)).shape, jnp.atleast_3d(jnp.ones((2, 3))).shape
    ((1, 3, 1), (2, 3, 1))
    """
    return _atleast(3, arys)



# -- repetition ------------------------------------------------------------------------------


@moves_keys(0)
def tile(A, reps):
    """`A` repeated `reps` times along each axis (`reps` aligned to the trailing axes).

    >>> import jaxwg.numpy as jnp
    >>> jnp.tile(jnp.array([1, 2]), (2, 2)).tolist()
    [[1, 2, 1, 2], [1, 2, 1, 2]]
    """
    x = ensure_arraylike("tile", A)
    try:
        reps = tuple(reps)
    except TypeError:
        reps = (reps,)
    reps = tuple(operator.index(r) for r in reps)
    if any(r < 0 for r in reps):
        raise ValueError(f"tile: negative repetitions are not allowed, got reps={reps}")
    shape = aval_of(x).shape
    nd = max(len(shape), len(reps))
    reps = (1,) * (nd - len(reps)) + reps
    shape = (1,) * (nd - len(shape)) + shape
    x = lax.reshape(x, shape)
    if all(r == 1 for r in reps):
        return x
    wide = tuple(d for r, n in zip(reps, shape) for d in (r, n))
    x = lax.broadcast_in_dim(x, wide, tuple(range(1, 2 * nd, 2)))
    return lax.reshape(x, tuple(r * n for r, n in zip(reps, shape)))


def _take_static(x, idx: np.ndarray, axis: int):
    """`x` at the static indices `idx` along `axis`: runs of consecutive indices repeated
    the same number of times become one slice repeated in place, and the runs are joined."""
    if idx.size == 0:
        return slice_axis(x, 0, 0, axis)
    starts = np.flatnonzero(np.diff(idx)) + 1
    starts = np.concatenate([[0], starts])
    values = idx[starts]
    counts = np.diff(np.concatenate([starts, [idx.size]]))
    parts = []
    k = 0
    while k < len(values):
        j = k + 1
        while j < len(values) and values[j] == values[j - 1] + 1 and counts[j] == counts[k]:
            j += 1
        block = slice_axis(x, int(values[k]), int(values[j - 1]) + 1, axis)
        parts.append(_repeat_each(block, int(counts[k]), axis))
        k = j
    return lax.concatenate(parts, axis)


@moves_keys(0)
def repeat(a, repeats, axis=None, *, total_repeat_length=None):
    """Each element of `a` repeated `repeats` times along `axis` (of the flattened `a` if
    None). `repeats` is an int or a concrete array of counts (one per element along the
    axis); a traced `repeats` is an error, as the result's shape depends on it. With
    `total_repeat_length`, the result is cut or extended (with the last element) to it.

    >>> import jaxwg.numpy as jnp
    >>> jnp.repeat(jnp.array([1, 2]), 2).tolist()
    [1, 1, 2, 2]
    >>> jnp.repeat(jnp.array([[1, 2], [3, 4]]), jnp.array([1, 2]), axis=0).tolist()
    [[1, 2], [3, 4], [3, 4]]
    """
    check_arraylike("repeat", a, repeats)
    x = to_array(a)
    if axis is None:
        x, axis = ravel(x), 0
    reps = static_value(repeats, "repeats of jnp.repeat (when jit-compiling, the number of "
                              "repeats must be static)")
    if reps.size and reps.dtype.kind not in "iub":
        raise TypeError(f"repeat: repeats must be integers, got {repeats!r}")
    reps = reps.astype(np.int64)
    if (reps < 0).any():
        raise ValueError(f"repeat: negative repeats are not allowed, got {repeats!r}")
    total = None if total_repeat_length is None else operator.index(total_repeat_length)
    shape = aval_of(x).shape
    if not shape:
        if reps.size != 1:
            raise ValueError("`repeat` with a scalar parameter `a` is only implemented for "
                             "scalar values of the parameter `repeats`.")
        return lax.broadcast_in_dim(x, (int(reps.flat[0]) if total is None else total,), ())
    ax = axis_index(axis, len(shape))
    if reps.ndim == 0 and total is None:
        return _repeat_each(x, int(reps), ax)
    n = shape[ax]
    try:
        reps = np.broadcast_to(reps.ravel(), (n,))
    except ValueError:
        raise ValueError(f"repeat: repeats of shape {reps.shape} do not match axis {ax} of "
                         f"size {n}") from None
    idx = np.repeat(np.arange(n), reps)
    if total is not None:
        if n == 0 and total:
            return x
        idx = np.concatenate([idx[:total], np.full(max(total - idx.size, 0), n - 1)])
    return _take_static(x, idx.astype(np.int64), ax)


def resize(a, new_shape):
    """`a`'s elements (flattened, repeated as often as needed) in an array of `new_shape`;
    zeros when `a` is empty.

    >>> import jaxwg.numpy as jnp
    >>> jnp.resize(jnp.array([1, 2, 3]), (2, 4)).tolist()
    [[1, 2, 3, 1], [2, 3, 1, 2]]
    """
    check_arraylike("resize", a)
    new_shape = _int_tuple(new_shape)
    if any(n < 0 for n in new_shape):
        raise ValueError("all elements of `new_shape` must be non-negative")
    flat = ravel(a)
    size, new_size = aval_of(flat).size, math.prod(new_shape)
    if size == 0 or new_size == 0:
        from .creation import zeros_like  # creation imports this module

        return zeros_like(flat, shape=new_shape)
    repeated = tile(flat, -(-new_size // size))
    return reshape(slice_axis(repeated, 0, new_size, 0), new_shape)
