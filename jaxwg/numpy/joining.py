"""Joining and splitting: `concatenate`, `stack` and its row-wise forms (`hstack`,
`vstack`, `dstack`, `column_stack`), `split` and `array_split`.

A join is one `concatenate` primitive (lazily a CONCAT node, which fuses into the kernel
that reads it); a split is one slice (a view) per piece.
Operands are promoted to their common dtype as in JAX, or converted to `dtype`.

>>> import jaxwg.numpy as jnp
>>> jnp.stack([jnp.arange(2), jnp.arange(2)]).shape, len(jnp.split(jnp.arange(6), 3))
((2, 2), 3)
"""

from __future__ import annotations

import itertools

import numpy as np

from .. import lax
from ..frontend import aval as avals
from ._util import (
    aval_of,
    axis_index,
    check_arraylike,
    is_array,
    promote,
    reject_out,
    slice_axis,
    static_value,
    to_array,
)
from .shape import ATLEAST_DIMS, moveaxis, ravel

__all__ = [
    "array_split",
    "column_stack",
    "concat",
    "concatenate",
    "dstack",
    "hstack",
    "split",
    "stack",
    "vstack",
]


def _is_sequence_or_array(a) -> bool:
    return is_array(a) or isinstance(a, np.ndarray)


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
    ax = axis_index(axis, len(shape) - 1)
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
    check_arraylike("concatenate", *arrays)
    if not arrays:
        raise ValueError("Need at least one array to concatenate.")
    xs = [to_array(a) for a in arrays]
    if axis is None:
        return concatenate([ravel(x) for x in xs], 0, dtype)
    shapes = [aval_of(x).shape for x in xs]
    nd = len(shapes[0])
    if nd == 0:
        raise ValueError("Zero-dimensional arrays cannot be concatenated.")
    ax = axis_index(axis, nd)
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
    reject_out("stack", out)
    if _is_sequence_or_array(arrays):
        x = _convert(to_array(arrays), dtype)
        shape = aval_of(x).shape
        if not shape or shape[0] == 0:
            raise ValueError("Need at least one array to stack.")
        return moveaxis(x, 0, axis_index(axis, len(shape)))
    arrays = list(arrays)
    if not arrays:
        raise ValueError("Need at least one array to stack.")
    check_arraylike("stack", *arrays)
    xs = [to_array(a) for a in arrays]
    shapes = [aval_of(x).shape for x in xs]
    if len(set(shapes)) > 1:
        raise ValueError("All input arrays must have the same shape. Got "
                         f"{', '.join(map(str, shapes))}.")
    ax = axis_index(axis, len(shapes[0]) + 1)
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
    check_arraylike(name, *tup)
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
    return _stack_rows("hstack", tup, ATLEAST_DIMS[1], lambda nd: 0 if nd == 1 else 1, dtype)


def vstack(tup, dtype=None):
    """Operands (at least 2-d: `(n,)` becomes `(1, n)`) joined along axis 0.

    >>> import jaxwg.numpy as jnp
    >>> jnp.vstack([jnp.arange(3), jnp.arange(3)]).shape
    (2, 3)
    """
    return _stack_rows("vstack", tup, ATLEAST_DIMS[2], lambda nd: 0, dtype)


def dstack(tup, dtype=None):
    """Operands (at least 3-d, as `atleast_3d`) joined along axis 2.

    >>> import jaxwg.numpy as jnp
    >>> jnp.dstack([jnp.ones((2, 3)), jnp.zeros((2, 3))]).shape
    (2, 3, 2)
    """
    return _stack_rows("dstack", tup, ATLEAST_DIMS[3], lambda nd: 2, dtype)


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
    ax = axis_index(axis, len(shape))
    n = shape[ax]
    what = f"jaxwg.numpy.{name} argument indices_or_sections"
    sections = static_value(indices_or_sections, what)
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
    return [slice_axis(x, lo, hi, ax) for lo, hi in ranges]


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
