"""Sorting: `sort` and `argsort` (stable, `descending`), on the device (`lax.sort`).

>>> import jaxwg.numpy as jnp
>>> jnp.argsort(jnp.array([3, 1, 2])).tolist()
[1, 2, 0]
"""

from __future__ import annotations

import numpy as np

from .. import lax
from ._util import canonicalize_axis, to_array

__all__ = ["argsort", "sort"]


def _prepare(name, a, axis, kind, order):
    if kind is not None:
        raise TypeError(f"'kind' argument to {name} is not supported. Use stable=True or "
                        "stable=False to specify sort stability.")
    if order is not None:
        raise TypeError(f"'order' argument to {name} is not supported.")
    x = to_array(a)
    if axis is None:
        x = lax.reshape(x, (x.size,))
        axis = 0
    return x, canonicalize_axis(axis, x.ndim)


def sort(a, axis=-1, *, kind=None, order=None, stable=True, descending=False):
    """`a` sorted along `axis` (flattened when None), NaNs last; `descending` reverses.

    >>> import jaxwg.numpy as jnp
    >>> jnp.sort(jnp.array([[3, 1], [0, 2]]), axis=0).tolist()
    [[0, 1], [3, 2]]
    """
    x, axis = _prepare("sort", a, axis, kind, order)
    out = lax.sort(x, dimension=axis, is_stable=stable)
    return lax.rev(out, (axis,)) if descending else out


def argsort(a, axis=-1, *, kind=None, order=None, stable=True, descending=False):
    """Indices that sort `a` along `axis` (int32); equal elements keep their order, also
    with `descending` (as JAX).

    >>> import jaxwg.numpy as jnp
    >>> jnp.argsort(jnp.array([2, 1, 2]), descending=True).tolist()
    [0, 2, 1]
    """
    x, axis = _prepare("argsort", a, axis, kind, order)
    index = lax.broadcasted_iota(np.int32, x.shape, axis)
    if descending:
        x, index = lax.rev(x, (axis,)), lax.rev(index, (axis,))
    _, out = lax.sort_key_val(x, index, dimension=axis, is_stable=stable)
    return lax.rev(out, (axis,)) if descending else out
