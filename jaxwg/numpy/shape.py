"""Shape functions: reshape, transpose, squeeze, expand_dims, broadcast_to, and friends.

All of them are movement ops: views over the same buffer, composed into the index
arithmetic of whatever kernel finally reads them (no copies).

>>> import jaxwg.numpy as jnp
>>> x = jnp.arange(6)
>>> jnp.reshape(x, (2, -1)).shape, jnp.transpose(x.reshape(2, 3)).shape
((2, 3), (3, 2))
"""

from __future__ import annotations

import math
import operator

from .. import lax
from ..core import aval as avals
from ._util import aval_of, broadcast_shapes, broadcast_to_shape, canonicalize_axis, to_array

__all__ = ["reshape", "ravel", "transpose", "permute_dims", "matrix_transpose", "squeeze",
           "expand_dims", "broadcast_to", "broadcast_arrays", "broadcast_shapes", "astype",
           "shape", "ndim", "size"]


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
