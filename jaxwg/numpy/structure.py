"""Arrays made from the structure of others: `roll`, `tril`, `triu`, `diag`, `diagflat`,
`meshgrid`, `indices`, `kron`, `cross`, `diff`, as in JAX.

>>> import jaxwg.numpy as jnp
>>> jnp.roll(jnp.arange(5), 2).tolist(), jnp.diff(jnp.array([1, 4, 9])).tolist()
([3, 4, 0, 1, 2], [3, 5])
"""

from __future__ import annotations

import numpy as np

from .. import lax
from . import ufuncs
from ..frontend.trace import Tracer
from ..lax.keys import moves_keys
from .creation import array
from ._util import canonicalize_axis, check_arraylike, ensure_arraylike, to_array
from .joining import concatenate, stack
from .products import diagonal
from .manipulation import expand_dims, moveaxis, ravel, reshape

__all__ = ["cross", "diag", "diagflat", "diff", "ediff1d", "indices", "kron", "meshgrid", "roll",
           "tril", "triu", "unstack", "vander"]


@moves_keys(0)
def roll(a, shift, axis=None):
    """Elements shifted by `shift` along `axis` (flattened when None), wrapping around;
    `shift` may be traced (a window of the array written twice).

    >>> import jaxwg.numpy as jnp
    >>> jnp.roll(jnp.array([[1, 2], [3, 4]]), 1, axis=1).tolist()
    [[2, 1], [4, 3]]
    """
    x = ensure_arraylike("roll", a)
    if axis is None:
        return reshape(roll(ravel(x), shift, 0), x.shape)
    if isinstance(shift, Tracer):
        return _roll_traced(x, shift, axis)
    shifts, axes = np.broadcast_arrays(np.asarray(shift), np.asarray(axis))
    for s, ax in zip(shifts.ravel().tolist(), axes.ravel().tolist()):
        ax = canonicalize_axis(ax, x.ndim)
        n = x.shape[ax]
        if n == 0 or s % n == 0:
            continue
        cut = n - s % n
        lo, hi = [0] * x.ndim, list(x.shape)
        hi[ax] = cut
        head = lax.slice(x, lo, hi)
        lo[ax], hi[ax] = cut, n
        x = concatenate([lax.slice(x, lo, hi), head], axis=ax)
    return x


def _roll_traced(x, shift, axis):
    """`roll` by traced shifts: along each axis, the window of n elements of the array
    written twice that starts at (-shift) mod n."""
    axes = np.atleast_1d(np.asarray(axis))
    if shift.ndim > 1 or shift.shape not in ((), axes.shape):
        raise ValueError(f"roll: shift of shape {shift.shape} does not match axis {axis}")
    for i, ax in enumerate(axes.tolist()):
        ax = canonicalize_axis(ax, x.ndim)
        n = x.shape[ax]
        if n:
            start = ufuncs.remainder(-(shift[i] if shift.ndim else shift), n)
            x = lax.dynamic_slice_in_dim(concatenate([x, x], axis=ax), start, n, ax)
    return x


def _triangle(m, k: int, lower: bool):
    name = "tril" if lower else "triu"
    x = ensure_arraylike(name, m)
    if x.ndim < 2:
        raise ValueError(f"{name} requires an array of at least two "
                         f"dimensions, got shape {x.shape}")
    rows, cols = x.shape[-2:]
    r = lax.broadcasted_iota(np.int32, (rows, cols), 0)
    c = lax.broadcasted_iota(np.int32, (rows, cols), 1)
    keep = (c - r <= k) if lower else (c - r >= k)
    return ufuncs.where(keep, x, lax.full_like(x, 0))


def tril(m, k=0):
    """`m` with the elements above diagonal `k` zeroed (last two axes).

    >>> import jaxwg.numpy as jnp
    >>> jnp.tril(jnp.ones((2, 3), jnp.int32)).tolist()
    [[1, 0, 0], [1, 1, 0]]
    """
    return _triangle(m, k, True)


def triu(m, k=0):
    """`m` with the elements below diagonal `k` zeroed (last two axes).

    >>> import jaxwg.numpy as jnp
    >>> jnp.triu(jnp.ones((2, 3), jnp.int32), 1).tolist()
    [[0, 1, 1], [0, 0, 1]]
    """
    return _triangle(m, k, False)


def diag(v, k=0):
    """A 2-d array with `v` on diagonal `k` (1-d `v`), or diagonal `k` of 2-d `v`.

    >>> import jaxwg.numpy as jnp
    >>> jnp.diag(jnp.array([1, 2])).tolist(), jnp.diag(jnp.arange(9).reshape(3, 3), 1).tolist()
    ([[1, 0], [0, 2]], [1, 5])
    """
    x = ensure_arraylike("diag", v)
    if x.ndim == 2:
        return diagonal(x, offset=k)
    if x.ndim != 1:
        raise ValueError("diag input must be 1d or 2d")
    n = x.shape[0] + abs(k)
    r = lax.broadcasted_iota(np.int32, (n, n), 0)
    c = lax.broadcasted_iota(np.int32, (n, n), 1)
    # on diagonal k, element (r, r + k) is v[r] (k >= 0) or v[c] (k < 0)
    column = lax.pad(x, lax.full((), 0, x.dtype), [(0, abs(k), 0)]) if k else x
    spread = lax.broadcast_in_dim(column, (n, n), (0,) if k >= 0 else (1,))
    return ufuncs.where(c - r == k, spread, lax.full_like(spread, 0))


def diagflat(v, k=0):
    """`v` flattened onto diagonal `k` of a 2-d array.

    >>> import jaxwg.numpy as jnp
    >>> jnp.diagflat(jnp.array([[1, 2]])).tolist()
    [[1, 0], [0, 2]]
    """
    return diag(ravel(ensure_arraylike("diagflat", v)), k)


def meshgrid(*xi, copy=True, sparse=False, indexing="xy"):
    """Coordinate arrays from 1-d coordinate vectors (`indexing` "xy" or "ij").

    >>> import jaxwg.numpy as jnp
    >>> [g.tolist() for g in jnp.meshgrid(jnp.arange(2), jnp.arange(3))]
    [[[0, 1], [0, 1], [0, 1]], [[0, 0], [1, 1], [2, 2]]]
    """
    if indexing not in ("xy", "ij"):
        raise ValueError(f"Valid values for indexing are 'xy' and 'ij', got {indexing!r}")
    check_arraylike("meshgrid", *xi)
    arrays = [to_array(x) for x in xi]
    if any(a.ndim != 1 for a in arrays):  # NumPy flattens them; JAX refuses
        raise ValueError("Arguments to jax.numpy.meshgrid must be 1D, got shapes "
                         f"{[a.shape for a in arrays]}")
    shape = [a.shape[0] for a in arrays]
    if indexing == "xy" and len(arrays) >= 2:
        shape[0], shape[1] = shape[1], shape[0]
    out = []
    for i, a in enumerate(arrays):
        axis = {0: 1, 1: 0}.get(i, i) if indexing == "xy" and len(arrays) >= 2 else i
        if sparse:
            s = [1] * len(arrays)
            s[axis] = a.shape[0]
            out.append(reshape(a, s))
        else:
            out.append(lax.broadcast_in_dim(a, tuple(shape), (axis,)))
    return out


def indices(dimensions, dtype=None, sparse=False):
    """The index along each axis at every position of `dimensions` (stacked first).

    >>> import jaxwg.numpy as jnp
    >>> jnp.indices((2, 2)).tolist()
    [[[0, 0], [1, 1]], [[0, 1], [0, 1]]]
    """
    dims = tuple(int(d) for d in dimensions)
    dtype = np.int32 if dtype is None else dtype
    grids = [lax.broadcasted_iota(dtype, dims, i) for i in range(len(dims))]
    if sparse:
        return tuple(lax.broadcasted_iota(dtype, tuple(n if j == i else 1 for j, n in enumerate(dims)), i)
                     for i in range(len(dims)))
    return stack(grids) if grids else lax.full((0,), 0, dtype)


def kron(a, b):
    """The Kronecker product: every element of `a` times all of `b`, in blocks.

    >>> import jaxwg.numpy as jnp
    >>> jnp.kron(jnp.array([1, 2]), jnp.array([1, 10])).tolist()
    [1, 10, 2, 20]
    """
    a, b = ensure_arraylike("kron", a, b)
    nd = max(a.ndim, b.ndim)
    a = reshape(a, (1,) * (nd - a.ndim) + a.shape)
    b = reshape(b, (1,) * (nd - b.ndim) + b.shape)
    ea, eb = a, b
    for i in range(nd):
        ea = expand_dims(ea, 2 * i + 1)
        eb = expand_dims(eb, 2 * i)
    return reshape(ea * eb, tuple(x * y for x, y in zip(a.shape, b.shape)))


def cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """The cross product of 3-vectors (or 2-vectors: the z component) along the axes.

    >>> import jaxwg.numpy as jnp
    >>> jnp.cross(jnp.array([1, 0, 0]), jnp.array([0, 1, 0])).tolist()
    [0, 0, 1]
    """
    if axis is not None:
        axisa = axisb = axisc = axis
    a, b = ensure_arraylike("cross", a, b)
    a = moveaxis(a, axisa, -1)
    b = moveaxis(b, axisb, -1)
    if a.shape[-1] not in (2, 3) or b.shape[-1] not in (2, 3):
        raise ValueError("Dimension must be either 2 or 3 for cross product")

    def comp(x, i):
        return x[..., i] if i < x.shape[-1] else lax.full_like(x[..., 0], 0)

    if a.shape[-1] == 2 and b.shape[-1] == 2:
        return comp(a, 0) * comp(b, 1) - comp(a, 1) * comp(b, 0)
    # `array` of the components, as JAX's: strongly typed even where they are weak
    c = array([comp(a, 1) * comp(b, 2) - comp(a, 2) * comp(b, 1),
               comp(a, 2) * comp(b, 0) - comp(a, 0) * comp(b, 2),
               comp(a, 0) * comp(b, 1) - comp(a, 1) * comp(b, 0)])
    return moveaxis(c, 0, axisc)


def diff(a, n=1, axis=-1, prepend=None, append=None):
    """The `n`-th differences along `axis` (booleans: not-equal).

    >>> import jaxwg.numpy as jnp
    >>> jnp.diff(jnp.array([1, 4, 9, 16]), n=2).tolist()
    [2, 2]
    """
    x = ensure_arraylike("diff", a)
    axis = canonicalize_axis(axis, x.ndim)
    parts = [p for p in (prepend, x, append) if p is not None]
    if len(parts) > 1:
        shaped = []
        for p in parts:
            p = ensure_arraylike("diff", p)
            if p.ndim == 0:
                shape = list(x.shape)
                shape[axis] = 1
                p = lax.broadcast_in_dim(p, tuple(shape), ())
            shaped.append(p)
        x = concatenate(shaped, axis=axis)
    for _ in range(n):
        size = x.shape[axis]
        lo, hi = [0] * x.ndim, list(x.shape)
        lo[axis] = 1
        later = lax.slice(x, lo, hi)
        lo[axis], hi[axis] = 0, size - 1
        earlier = lax.slice(x, lo, hi)
        x = ufuncs.not_equal(later, earlier) if x.dtype == np.bool_ else later - earlier
    return x


def ediff1d(ary, to_end=None, to_begin=None):
    """The differences of the flattened `ary`, with `to_begin` and `to_end` around them.

    >>> import jaxwg.numpy as jnp
    >>> jnp.ediff1d(jnp.array([1, 2, 4]), to_begin=0).tolist()
    [0, 1, 2]
    """
    x = ravel(ensure_arraylike("ediff1d", ary))
    out = diff(x) if x.shape[0] else x
    parts = [ravel(ensure_arraylike("ediff1d", to_begin)).astype(out.dtype)] if to_begin is not None else []
    parts.append(out)
    if to_end is not None:
        parts.append(ravel(ensure_arraylike("ediff1d", to_end)).astype(out.dtype))
    return concatenate(parts) if len(parts) > 1 else out


def vander(x, N=None, increasing=False):
    """Columns of powers of `x`: x^(N-1), ..., x^0 (or increasing).

    >>> import jaxwg.numpy as jnp
    >>> jnp.vander(jnp.array([1, 2, 3]), 3).tolist()
    [[1, 1, 1], [4, 2, 1], [9, 3, 1]]
    """
    x = ensure_arraylike("vander", x)
    if x.ndim != 1:
        raise ValueError("x must be a one-dimensional array")
    n = x.shape[0] if N is None else int(N)
    if n < 0:
        raise ValueError("N must be nonnegative")
    powers = np.arange(n) if increasing else np.arange(n - 1, -1, -1)
    return ufuncs.power(expand_dims(x, 1), to_array(powers.astype(np.int32)))


def unstack(x, /, *, axis=0):
    """The slices of `x` along `axis`, as a tuple.

    >>> import jaxwg.numpy as jnp
    >>> [a.tolist() for a in jnp.unstack(jnp.arange(4).reshape(2, 2))]
    [[0, 1], [2, 3]]
    """
    return lax.unstack(ensure_arraylike("unstack", x), axis)
