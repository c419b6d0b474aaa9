"""Shape functions: reshape, transpose, squeeze, expand_dims, broadcast_to, and friends.

All of them are movement ops: views over the same buffer, composed into the index
arithmetic of whatever kernel finally reads them (no copies).

>>> import jaxwg.numpy as jnp
>>> x = jnp.arange(6)
>>> jnp.reshape(x, (2, -1)).shape, jnp.transpose(x.reshape(2, 3)).shape
((2, 3), (3, 2))
"""

from __future__ import annotations

import itertools
import math
import operator

import numpy as np

from .. import lax
from ..core import aval as avals
from ..core.trace import Tracer
from ..errors import ConcretizationTypeError
from ._util import (
    aval_of,
    broadcast_shapes,
    broadcast_to_shape,
    canonicalize_axis,
    is_array,
    promote,
    to_array,
)

__all__ = [
    "array_split",
    "astype",
    "atleast_1d",
    "atleast_2d",
    "atleast_3d",
    "broadcast_arrays",
    "broadcast_shapes",
    "broadcast_to",
    "column_stack",
    "concat",
    "concatenate",
    "dstack",
    "expand_dims",
    "flip",
    "fliplr",
    "flipud",
    "hstack",
    "matrix_transpose",
    "moveaxis",
    "ndim",
    "pad",
    "permute_dims",
    "ravel",
    "repeat",
    "reshape",
    "rot90",
    "shape",
    "size",
    "split",
    "squeeze",
    "stack",
    "swapaxes",
    "tile",
    "transpose",
    "vstack",
]


def _resolve_shape(name: str, shape, size: int) -> tuple[int, ...]:
    try:
        shape = (operator.index(shape),)
    except TypeError:
        shape = tuple(operator.index(n) for n in shape)
    unknown = [i for i, n in enumerate(shape) if n == -1]
    if len(unknown) > 1:
        raise ValueError(f"{name}: can only specify one unknown dimension, got {shape}")
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
    x = to_array(a)
    aval = aval_of(x)
    shape = newshape if shape is None else shape
    new = _resolve_shape("reshape", shape, aval.size)
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
    return reshape(a, (aval_of(to_array(a)).size,), order)


def transpose(a, axes=None):
    """`a` with its axes permuted (reversed by default).

    >>> import jaxwg.numpy as jnp
    >>> jnp.transpose(jnp.ones((2, 3, 4)), (1, 0, 2)).shape
    (3, 2, 4)
    """
    x = to_array(a)
    nd = aval_of(x).ndim
    if axes is None:
        perm = tuple(reversed(range(nd)))
    else:
        perm = tuple(canonicalize_axis(ax, nd) for ax in axes)
        if sorted(perm) != list(range(nd)):
            raise ValueError(f"axes {tuple(axes)} don't match array of dimension {nd}")
    return lax.transpose(x, perm)


def permute_dims(a, /, axes):
    """Array API name of `transpose`.

    >>> import jaxwg.numpy as jnp
    >>> jnp.permute_dims(jnp.ones((2, 3)), (1, 0)).shape
    (3, 2)
    """
    return transpose(a, axes)


def matrix_transpose(x, /):
    """Swap the last two axes.

    >>> import jaxwg.numpy as jnp
    >>> jnp.matrix_transpose(jnp.ones((5, 2, 3))).shape
    (5, 3, 2)
    """
    x = to_array(x)
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
    x = to_array(a)
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
    return lax.squeeze(x, tuple(sorted(set(axes))))


def expand_dims(a, axis):
    """`a` with size-1 axes inserted at `axis` (an int or a tuple).

    >>> import jaxwg.numpy as jnp
    >>> jnp.expand_dims(jnp.ones(3), (0, 2)).shape
    (1, 3, 1)
    """
    x = to_array(a)
    axes = axis if isinstance(axis, (tuple, list)) else (axis,)
    nd = aval_of(x).ndim + len(axes)
    axes = sorted(canonicalize_axis(ax, nd) for ax in axes)
    if len(set(axes)) != len(axes):
        raise ValueError(f"repeated axis in expand_dims: {axis}")
    return lax.expand_dims(x, axes)


def broadcast_to(array, shape):
    """`array` broadcast to `shape` (NumPy's rules).

    >>> import jaxwg.numpy as jnp
    >>> jnp.broadcast_to(jnp.arange(3), (2, 3)).shape
    (2, 3)
    """
    x = to_array(array)
    shape = (operator.index(shape),) if not hasattr(shape, "__iter__") else tuple(shape)
    return broadcast_to_shape(x, shape)


def broadcast_arrays(*args):
    """The arguments broadcast to their common shape.

    >>> import jaxwg.numpy as jnp
    >>> [a.shape for a in jnp.broadcast_arrays(jnp.ones((2, 1)), jnp.ones(3))]
    [(2, 3), (2, 3)]
    """
    arrays = [to_array(a) for a in args]
    shape = broadcast_shapes(*[aval_of(a).shape for a in arrays])
    return [broadcast_to_shape(a, shape) for a in arrays]


def astype(x, dtype, /, *, copy=False, device=None):
    """`x` converted to `dtype`.

    >>> import jaxwg.numpy as jnp
    >>> jnp.astype(jnp.array([1.7, -1.7]), jnp.int32)
    Array([ 1, -1], dtype=int32)
    """
    return lax.convert_element_type(to_array(x), avals.canonical_dtype(dtype))


def shape(a):
    """The shape of `a`.

    >>> import jaxwg.numpy as jnp
    >>> jnp.shape(jnp.ones((2, 3)))
    (2, 3)
    """
    return aval_of(a).shape if not isinstance(a, (list, tuple)) else to_array(a).shape


def ndim(a):
    """The number of axes of `a`.

    >>> import jaxwg.numpy as jnp
    >>> jnp.ndim(1.0)
    0
    """
    return len(shape(a))


def size(a, axis=None):
    """The number of elements of `a` (along `axis` if given).

    >>> import jaxwg.numpy as jnp
    >>> jnp.size(jnp.ones((2, 3)))
    6
    """
    s = shape(a)
    return math.prod(s) if axis is None else s[axis]


# -- helpers of the functions below ---------------------------------------------------------

_AxisError = np.exceptions.AxisError  # a ValueError and an IndexError, as NumPy raises


def _axis(axis, ndim: int) -> int:
    """`axis` in [0, ndim) (negative counts from the end); AxisError when out of range."""
    try:
        axis = operator.index(axis)
    except TypeError:
        raise TypeError(f"axis must be an integer, got {axis!r}") from None
    if not -ndim <= axis < ndim:
        raise _AxisError(axis, ndim)
    return axis % ndim


def _int_tuple(value) -> tuple[int, ...]:
    """An int, or a sequence of ints, as a tuple of ints."""
    try:
        return (operator.index(value),)
    except TypeError:
        return tuple(operator.index(v) for v in value)


def _check_arraylike(name: str, *args) -> None:
    for i, a in enumerate(args):
        if not (is_array(a) or avals.is_python_scalar(a) or isinstance(a, (np.ndarray, np.generic))):
            raise TypeError(f"{name} requires ndarray or scalar arguments, got "
                            f"{type(a).__name__} at position {i}.")


def _concrete(value, what: str) -> np.ndarray:
    """The host value of a static argument; a traced one is an error."""
    items = value if isinstance(value, (list, tuple)) else (value,)
    if any(isinstance(v, Tracer) for v in items):
        raise ConcretizationTypeError(
            f"{what} must be concrete: its value decides the shape of the result, but it is "
            "traced (inside jit). Pass it as a static argument or a Python/NumPy value.")
    return np.asarray(value)


def _is_sequence_or_array(a) -> bool:
    return is_array(a) or isinstance(a, np.ndarray)


def _slice_axis(x, start: int, stop: int, axis: int):
    """`x[..., start:stop, ...]` along `axis` (0 <= start <= stop <= size)."""
    shape = aval_of(x).shape
    if (start, stop) == (0, shape[axis]):
        return x
    starts = [0] * len(shape)
    limits = list(shape)
    starts[axis], limits[axis] = start, stop
    return lax.slice(x, starts, limits)


def _repeat_each(x, count: int, axis: int):
    """Every element of `x` along `axis` repeated `count` times in place (a broadcast view)."""
    if count == 1:
        return x
    shape = aval_of(x).shape
    wide = shape[:axis + 1] + (count,) + shape[axis + 1:]
    keep = tuple(d for d in range(len(wide)) if d != axis + 1)
    out = shape[:axis] + (shape[axis] * count,) + shape[axis + 1:]
    return lax.reshape(lax.broadcast_in_dim(x, wide, keep), out)


def _broadcast_axis(x, axis: int, size: int):
    """`x`, of size 1 along `axis`, broadcast to `size` there."""
    shape = list(aval_of(x).shape)
    shape[axis] = size
    return lax.broadcast_in_dim(x, shape, tuple(range(len(shape))))


def _join(parts, axis: int):
    """`lax.concatenate` without the empty pieces (keeping one if all are empty)."""
    kept = [p for p in parts if aval_of(p).shape[axis]] or parts[:1]
    return lax.concatenate(kept, axis)


# -- axes ------------------------------------------------------------------------------------


def moveaxis(a, source, destination):
    """`a` with axes `source` moved to positions `destination` (ints or sequences).

    >>> import jaxwg.numpy as jnp
    >>> jnp.moveaxis(jnp.ones((2, 3, 4)), 0, -1).shape
    (3, 4, 2)
    >>> jnp.moveaxis(jnp.ones((2, 3, 4)), (0, 1), (2, 0)).shape
    (3, 4, 2)
    """
    x = to_array(a)
    nd = aval_of(x).ndim
    src = tuple(_axis(s, nd) for s in _int_tuple(source))
    dst = tuple(_axis(d, nd) for d in _int_tuple(destination))
    if len(src) != len(dst):
        raise ValueError(f"Inconsistent number of elements: {len(src)} vs {len(dst)}")
    perm = [i for i in range(nd) if i not in src]
    for d, s in sorted(zip(dst, src)):
        perm.insert(d, s)
    return lax.transpose(x, perm)


def swapaxes(a, axis1, axis2):
    """`a` with axes `axis1` and `axis2` exchanged.

    >>> import jaxwg.numpy as jnp
    >>> jnp.swapaxes(jnp.ones((2, 3, 4)), 0, 2).shape
    (4, 3, 2)
    """
    x = to_array(a)
    nd = aval_of(x).ndim
    i, j = _axis(axis1, nd), _axis(axis2, nd)
    perm = list(range(nd))
    perm[i], perm[j] = perm[j], perm[i]
    return lax.transpose(x, perm)


def rot90(m, k=1, axes=(0, 1)):
    """`m` rotated by 90 degrees `k` times in the plane of `axes` (first towards second).

    >>> import jaxwg.numpy as jnp
    >>> jnp.rot90(jnp.array([[1, 2], [3, 4]])).tolist()
    [[2, 4], [1, 3]]
    """
    x = to_array(m)
    nd = aval_of(x).ndim
    if nd < 2:
        raise ValueError("rot90 requires its first argument to have ndim at least two, but "
                         f"got first argument of shape {aval_of(x).shape}, which has ndim {nd}")
    ax1, ax2 = (_axis(ax, nd) for ax in axes)
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


def flip(m, axis=None):
    """`m` with the order of elements reversed along `axis` (all axes if None).

    >>> import jaxwg.numpy as jnp
    >>> jnp.flip(jnp.arange(6).reshape(2, 3), 1).tolist()
    [[2, 1, 0], [5, 4, 3]]
    """
    x = to_array(m)
    nd = aval_of(x).ndim
    dims = tuple(range(nd)) if axis is None else tuple(_axis(a, nd) for a in _int_tuple(axis))
    return lax.rev(x, dims) if dims else x


def fliplr(m):
    """`m` reversed along axis 1 (left to right).

    >>> import jaxwg.numpy as jnp
    >>> jnp.fliplr(jnp.array([[1, 2], [3, 4]])).tolist()
    [[2, 1], [4, 3]]
    """
    return flip(m, 1)


def flipud(m):
    """`m` reversed along axis 0 (up to down).

    >>> import jaxwg.numpy as jnp
    >>> jnp.flipud(jnp.array([[1, 2], [3, 4]])).tolist()
    [[3, 4], [1, 2]]
    """
    return flip(m, 0)


# -- at least n dimensions -----------------------------------------------------------------

# Where `atleast_{1,2,3}d` insert size-1 axes into an array of 0, 1 or 2 dimensions.
_ATLEAST_DIMS = {1: {0: (0,)}, 2: {0: (0, 1), 1: (0,)}, 3: {0: (0, 1, 2), 1: (0, 2), 2: (2,)}}


def _atleast(n: int, arys):
    _check_arraylike(f"atleast_{n}d", *arys)
    out = []
    for a in arys:
        x = to_array(a)
        dims = _ATLEAST_DIMS[n].get(aval_of(x).ndim)
        out.append(lax.expand_dims(x, dims) if dims else x)
    return out[0] if len(out) == 1 else out


def atleast_1d(*arys):
    """Each argument with at least one axis (a list if more than one argument).

    >>> import jaxwg.numpy as jnp
    >>> jnp.atleast_1d(3.0).shape, [x.shape for x in jnp.atleast_1d(1, jnp.ones((2, 2)))]
    ((1,), [(1,), (2, 2)])
    """
    return _atleast(1, arys)


def atleast_2d(*arys):
    """Each argument with at least two axes: `(n,)` becomes `(1, n)`.

    >>> import jaxwg.numpy as jnp
    >>> jnp.atleast_2d(jnp.arange(3)).shape
    (1, 3)
    """
    return _atleast(2, arys)


def atleast_3d(*arys):
    """Each argument with at least three axes: `(n,)` becomes `(1, n, 1)`, `(m, n)`
    becomes `(m, n, 1)`.

    >>> import jaxwg.numpy as jnp
    >>> jnp.atleast_3d(jnp.arange(3)).shape, jnp.atleast_3d(jnp.ones((2, 3))).shape
    ((1, 3, 1), (2, 3, 1))
    """
    return _atleast(3, arys)


# -- joining ---------------------------------------------------------------------------------


def _convert(x, dtype):
    return x if dtype is None else lax.convert_element_type(x, avals.canonical_dtype(dtype))


def _concatenate_array(x, axis, dtype):
    """`concatenate` of the rows of one array: a transpose and a reshape."""
    x = _convert(to_array(x), dtype)
    shape = aval_of(x).shape
    if not shape or shape[0] == 0:
        raise ValueError("Need at least one array to concatenate.")
    if axis is None:
        return ravel(x)
    if len(shape) == 1:
        raise ValueError("Zero-dimensional arrays cannot be concatenated.")
    ax = _axis(axis, len(shape) - 1)
    x = moveaxis(x, 0, ax)
    return lax.reshape(x, shape[1:ax + 1] + (shape[0] * shape[ax + 1],) + shape[ax + 2:])


def concatenate(arrays, axis=0, dtype=None):
    """`arrays` joined along an existing `axis` (flattened first if `axis` is None), in
    their common dtype (JAX's promotion) or `dtype`.

    >>> import jaxwg.numpy as jnp
    >>> jnp.concatenate([jnp.array([1, 2]), jnp.array([3.5])])
    Array([1. , 2. , 3.5], dtype=float32)
    >>> jnp.concatenate([jnp.ones((2, 2)), jnp.zeros((2, 1))], axis=1).shape
    (2, 3)
    """
    if _is_sequence_or_array(arrays):
        return _concatenate_array(arrays, axis, dtype)
    arrays = list(arrays)
    _check_arraylike("concatenate", *arrays)
    if not arrays:
        raise ValueError("Need at least one array to concatenate.")
    xs = [to_array(a) for a in arrays]
    if axis is None:
        return concatenate([ravel(x) for x in xs], 0, dtype)
    shapes = [aval_of(x).shape for x in xs]
    nd = len(shapes[0])
    if nd == 0:
        raise ValueError("Zero-dimensional arrays cannot be concatenated.")
    ax = _axis(axis, nd)
    if any(len(s) != nd for s in shapes):
        raise TypeError("Cannot concatenate arrays with different numbers of dimensions: got "
                        f"{', '.join(map(str, shapes))}.")
    if any(s[:ax] + s[ax + 1:] != shapes[0][:ax] + shapes[0][ax + 1:] for s in shapes):
        raise TypeError("Cannot concatenate arrays with shapes that differ in dimensions other "
                        f"than the one being concatenated: concatenating along dimension {ax} "
                        f"for shapes {', '.join(map(str, shapes))}.")
    xs = promote(*xs) if dtype is None else [_convert(x, dtype) for x in xs]
    return lax.concatenate(xs, ax)


def concat(arrays, /, *, axis=0):
    """Array API name of `concatenate`.

    >>> import jaxwg.numpy as jnp
    >>> jnp.concat([jnp.zeros(2), jnp.ones(1)]).tolist()
    [0.0, 0.0, 1.0]
    """
    return concatenate(arrays, axis)


def stack(arrays, axis=0, out=None, dtype=None):
    """`arrays` (all of one shape) joined along a new `axis`.

    >>> import jaxwg.numpy as jnp
    >>> jnp.stack([jnp.arange(3), jnp.arange(3)], axis=1).shape
    (3, 2)
    """
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.stack is not supported.")
    if _is_sequence_or_array(arrays):
        x = _convert(to_array(arrays), dtype)
        shape = aval_of(x).shape
        if not shape or shape[0] == 0:
            raise ValueError("Need at least one array to stack.")
        return moveaxis(x, 0, _axis(axis, len(shape)))
    arrays = list(arrays)
    if not arrays:
        raise ValueError("Need at least one array to stack.")
    _check_arraylike("stack", *arrays)
    xs = [to_array(a) for a in arrays]
    shapes = [aval_of(x).shape for x in xs]
    if len(set(shapes)) > 1:
        raise ValueError("All input arrays must have the same shape. Got "
                         f"{', '.join(map(str, shapes))}.")
    ax = _axis(axis, len(shapes[0]) + 1)
    return concatenate([lax.expand_dims(x, (ax,)) for x in xs], ax, dtype)


def _stack_rows(name: str, tup, row_dims: dict, axis_of, dtype):
    """Shared by hstack/vstack/dstack/column_stack: reshape each operand (each row of an
    array) by inserting `row_dims[ndim]`, then concatenate along `axis_of(ndim)`."""
    if _is_sequence_or_array(tup):
        x = to_array(tup)
        shape = aval_of(x).shape
        if not shape or shape[0] == 0:
            raise ValueError("Need at least one array to concatenate.")
        dims = row_dims.get(len(shape) - 1, ())
        x = lax.expand_dims(x, tuple(d + 1 for d in dims)) if dims else x
        return _concatenate_array(x, axis_of(len(shape) - 1 + len(dims)), dtype)
    tup = list(tup)
    _check_arraylike(name, *tup)
    if not tup:
        raise ValueError("Need at least one array to concatenate.")
    xs = []
    for a in tup:
        x = to_array(a)
        dims = row_dims.get(aval_of(x).ndim, ())
        xs.append(lax.expand_dims(x, dims) if dims else x)
    return concatenate(xs, axis_of(aval_of(xs[0]).ndim), dtype)


def hstack(tup, dtype=None):
    """Operands joined along axis 1 (axis 0 for 1-d operands; scalars become 1-d).

    >>> import jaxwg.numpy as jnp
    >>> jnp.hstack([jnp.arange(2), jnp.arange(3)]).tolist()
    [0, 1, 0, 1, 2]
    """
    return _stack_rows("hstack", tup, _ATLEAST_DIMS[1], lambda nd: 0 if nd == 1 else 1, dtype)


def vstack(tup, dtype=None):
    """Operands (at least 2-d: `(n,)` becomes `(1, n)`) joined along axis 0.

    >>> import jaxwg.numpy as jnp
    >>> jnp.vstack([jnp.arange(3), jnp.arange(3)]).shape
    (2, 3)
    """
    return _stack_rows("vstack", tup, _ATLEAST_DIMS[2], lambda nd: 0, dtype)


def dstack(tup, dtype=None):
    """Operands (at least 3-d, as `atleast_3d`) joined along axis 2.

    >>> import jaxwg.numpy as jnp
    >>> jnp.dstack([jnp.ones((2, 3)), jnp.zeros((2, 3))]).shape
    (2, 3, 2)
    """
    return _stack_rows("dstack", tup, _ATLEAST_DIMS[3], lambda nd: 2, dtype)


def column_stack(tup):
    """Operands as columns: 1-d ones become `(n, 1)`, then joined along axis 1.

    >>> import jaxwg.numpy as jnp
    >>> jnp.column_stack([jnp.arange(3), jnp.arange(3)]).shape
    (3, 2)
    """
    return _stack_rows("column_stack", tup, {0: (0, 1), 1: (1,)}, lambda nd: 1, None)


# -- splitting -------------------------------------------------------------------------------


def _split(name: str, ary, indices_or_sections, axis):
    x = to_array(ary)
    shape = aval_of(x).shape
    ax = _axis(axis, len(shape))
    n = shape[ax]
    what = f"jaxwg.numpy.{name} argument indices_or_sections"
    sections = _concrete(indices_or_sections, what)
    if sections.ndim > 0 or isinstance(indices_or_sections, (list, tuple)):
        if sections.size and sections.dtype.kind not in "iu":
            raise TypeError(f"{name}: split indices must be integers, got {indices_or_sections!r}")
        # Python slice semantics between consecutive indices, as NumPy: negative indices
        # count from the end, indices past the end clip, and decreasing ones give empty pieces.
        bounds = [0, *(int(i) for i in sections.ravel()), n]
        ranges = []
        for lo, hi in itertools.pairwise(bounds):
            lo, hi, _ = slice(lo, hi).indices(n)
            ranges.append((lo, max(lo, hi)))
    else:
        if sections.dtype.kind not in "iu":
            raise TypeError(f"{name}: the number of sections must be an integer, got "
                            f"{indices_or_sections!r}")
        count = int(sections)
        if count <= 0:
            raise ValueError("number sections must be larger than 0.")
        each, extra = divmod(n, count)
        if extra and name == "split":
            raise ValueError(f"array split does not result in an equal division: rest is {extra}")
        sizes = [each + 1] * extra + [each] * (count - extra)
        starts = [sum(sizes[:k]) for k in range(count)]
        ranges = [(s, s + size) for s, size in zip(starts, sizes)]
    return [_slice_axis(x, lo, hi, ax) for lo, hi in ranges]


def split(ary, indices_or_sections, axis=0):
    """`ary` cut along `axis` into equal sections (an int, which must divide the axis) or
    at the given indices (a sequence).

    >>> import jaxwg.numpy as jnp
    >>> [p.tolist() for p in jnp.split(jnp.arange(6), 3)]
    [[0, 1], [2, 3], [4, 5]]
    >>> [p.tolist() for p in jnp.split(jnp.arange(6), [1, 4])]
    [[0], [1, 2, 3], [4, 5]]
    """
    return _split("split", ary, indices_or_sections, axis)


def array_split(ary, indices_or_sections, axis=0):
    """`split` that allows sections of unequal size: the first `size % n` are one longer.

    >>> import jaxwg.numpy as jnp
    >>> [p.tolist() for p in jnp.array_split(jnp.arange(5), 3)]
    [[0, 1], [2, 3], [4]]
    """
    return _split("array_split", ary, indices_or_sections, axis)


# -- padding ---------------------------------------------------------------------------------

_PAD_KWARGS = {"constant": ("constant_values",), "empty": (), "edge": (), "wrap": (),
               "reflect": ("reflect_type",), "symmetric": ("reflect_type",)}
_PAD_NOT_YET = ("linear_ramp", "maximum", "mean", "median", "minimum")


def _pad_pairs(pad_width, nd: int, name: str) -> tuple[tuple[int, int], ...]:
    """`pad_width` in any of NumPy's forms as one (before, after) pair per axis."""
    try:
        w = _concrete(pad_width, f"{name} argument of jnp.pad")
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
        host = _host_cast(_concrete(constant_values, "constant_values of jnp.pad"), aval.dtype)
        if host.size == 1 and host.ndim <= 1:
            return lax.pad(x, host.reshape(()), [(lo, hi, 0) for lo, hi in widths])
        if host.ndim > 2 or host.shape[-1] not in (1, 2):
            raise ValueError(f"jnp.pad: constant_values has unsupported shape {host.shape}. If "
                             "the shape is 1D or 2D, the last dimension must be of size 1 or 2.")
        try:
            host = np.broadcast_to(host, (nd, 2))
        except ValueError:
            raise ValueError(f"jnp.pad: constant_values of shape {host.shape} cannot be "
                             f"broadcast to {(nd, 2)}") from None
        if (host == host.flat[0]).all():
            return lax.pad(x, host.reshape(-1)[0:1].reshape(()), [(lo, hi, 0) for lo, hi in widths])
        pick = [[host[i, side:side + 1].reshape(()) for side in (0, 1)] for i in range(nd)]
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
            parts.insert(0, _broadcast_axis(_slice_axis(x, 0, 1, i), i, lo))
        if hi:
            parts.append(_broadcast_axis(_slice_axis(x, n - 1, n, i), i, hi))
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
            back = lax.rev(x if mode == "symmetric" else _slice_axis(x, 1, n - 1, i), (i,))
            if odd:
                last = broadcast_to_shape(_slice_axis(x, n - 1, n, i), aval_of(back).shape)
                back = lax.sub(lax.mul(last, 2), back)
            unit = _join([x, back], i)
        period = aval_of(unit).shape[i]
        first_tile = -(-lo // period)  # whole or partial periods before x[0]
        tiles = first_tile + -(-(n + hi) // period)
        wide = shape[:i] + (tiles, period) + shape[i + 1:]
        keep = tuple(d for d in range(len(wide)) if d != i)
        tiled = lax.broadcast_in_dim(unit, wide, keep)
        if odd:
            first, last = _slice_axis(x, 0, 1, i), _slice_axis(x, n - 1, n, i)
            step = lax.broadcast_in_dim(lax.mul(lax.sub(last, first), 2), wide, keep)
            drift = lax.mul(lax.broadcasted_iota(aval_of(x).dtype, wide, i), step)
            if first_tile:
                drift = lax.sub(drift, lax.mul(step, first_tile))
            tiled = lax.add(tiled, drift)
        flat = lax.reshape(tiled, shape[:i] + (tiles * period,) + shape[i + 1:])
        start = first_tile * period - lo
        x = _slice_axis(flat, start, start + lo + n + hi, i)
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
    x = to_array(array)
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
    if nd == 0:
        return x
    if any(lo < 0 or hi < 0 for lo, hi in widths):
        raise ValueError("index can't contain negative values")
    if mode == "constant":
        return _pad_constant(x, widths, kwargs.get("constant_values", 0))
    if mode == "empty":
        return _pad_constant(x, widths, 0)
    for n, pair in zip(aval_of(x).shape, widths):
        if n == 0:
            _check_no_padding(pair, mode)
    if mode == "edge":
        return _pad_edge(x, widths)
    reflect_type = kwargs.get("reflect_type", "even")
    if reflect_type not in ("even", "odd"):
        raise ValueError(f"jnp.pad: reflect_type must be 'even' or 'odd', got {reflect_type!r}")
    return _pad_periodic(x, widths, mode, reflect_type)


# -- repetition ------------------------------------------------------------------------------


def tile(A, reps):
    """`A` repeated `reps` times along each axis (`reps` aligned to the trailing axes).

    >>> import jaxwg.numpy as jnp
    >>> jnp.tile(jnp.array([1, 2]), (2, 2)).tolist()
    [[1, 2, 1, 2], [1, 2, 1, 2]]
    """
    x = to_array(A)
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
        return _slice_axis(x, 0, 0, axis)
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
        block = _slice_axis(x, int(values[k]), int(values[j - 1]) + 1, axis)
        parts.append(_repeat_each(block, int(counts[k]), axis))
        k = j
    return lax.concatenate(parts, axis)


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
    x = to_array(a)
    if axis is None:
        x, axis = ravel(x), 0
    reps = _concrete(repeats, "repeats of jnp.repeat (when jit-compiling, the number of "
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
    ax = _axis(axis, len(shape))
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
