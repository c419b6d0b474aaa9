"""Index tricks: `ix_`, the grid builders `mgrid` and `ogrid`, the concatenators `r_`
and `c_`, NumPy's `s_` and `index_exp`, `mask_indices`, and `put` (writes at flat
indices into a new array).

`mgrid`, `ogrid`, `r_` and `c_` are objects indexed with slices: `start:stop:step`
means `arange(start, stop, step)`, and an imaginary step `start:stop:nj` means
`linspace(start, stop, n)`, as in NumPy and JAX. Slice bounds decide the result's
shape, so they must be concrete.

>>> import jaxwg.numpy as jnp
>>> jnp.mgrid[0:2, 0:3].shape, jnp.r_[1:3, 7].tolist()
((2, 2, 3), [1, 2, 7])
"""

from __future__ import annotations

import numpy as np

from .. import lax
from ..frontend import aval as avals
from . import ufuncs
from ._util import aval_of, check_arraylike, concrete, promote, to_array
from .creation import arange, array, linspace, ones
from .joining import concatenate
from .manipulation import expand_dims, ravel, tile, transpose
from .selection import nonzero, unravel_index
from .structure import meshgrid

__all__ = ["c_", "index_exp", "ix_", "mask_indices", "mgrid", "ogrid", "put", "r_", "s_"]

s_ = np.s_  # NumPy's, as in JAX: they build index tuples and touch no array
index_exp = np.index_exp


def ix_(*args):
    """An open mesh from 1-d index sequences: argument `i` reshaped to length along axis
    `i` and 1 elsewhere, so that `x[ix_(rows, cols)]` picks a sub-grid.

    >>> import jaxwg.numpy as jnp
    >>> [a.shape for a in jnp.ix_(jnp.array([0, 1]), jnp.array([2, 3, 4]))]
    [(2, 1), (1, 3)]
    """
    check_arraylike("ix", *args)
    n = len(args)
    out = []
    for i, a in enumerate(args):
        x = to_array(a)
        aval = aval_of(x)
        if len(aval.shape) != 1:
            raise ValueError(f"Arguments to jax.numpy.ix_ must be 1-dimensional, got shape "
                             f"{aval.shape}")
        if aval.dtype.np == np.bool_:
            raise NotImplementedError("Boolean arguments to jax.numpy.ix_ are not implemented")
        shape = [1] * n
        shape[i] = aval.shape[0]
        if aval.size == 0:  # NumPy's integer index type for empty sequences
            out.append(lax.full(tuple(shape), 0, avals.canonical_dtype("int64")))
        else:
            out.append(lax.broadcast_in_dim(x, tuple(shape), (i,)))
    return tuple(out)


def _static_bound(value, what: str, op_name: str):
    return concrete(value, f"The {what} of jnp.{op_name} decides the shape of the result.")


def _grid_1d(s: slice, op_name: str):
    """`arange(start, stop, step)` for a slice, or `linspace(start, stop, n)` for a step
    `nj` (a complex number: its magnitude is the count)."""
    start = _static_bound(s.start, "slice start", op_name) or 0
    stop = _static_bound(s.stop, "slice stop", op_name)
    step = _static_bound(s.step, "slice step", op_name) or 1
    if np.iscomplex(step):
        return linspace(start, stop, int(abs(step)))
    return arange(start, stop, step)


def _grids(key, op_name: str):
    grids = [_grid_1d(k, op_name) for k in key]
    return promote(*grids) if grids else []


class _Mgrid:
    """`mgrid[s0, s1, ...]`: the dense grid of the 1-d ranges of slices, stacked on a new
    first axis (`meshgrid(..., indexing="ij")`)."""

    def __getitem__(self, key):
        if isinstance(key, slice):
            return _grid_1d(key, "mgrid")
        grids = meshgrid(*_grids(key, "mgrid"), indexing="ij")
        if not grids:
            return arange(0)
        return lax.concatenate([expand_dims(g, 0) for g in grids], 0)


class _Ogrid:
    """`ogrid[s0, s1, ...]`: the open (sparse) grid of the 1-d ranges of slices, a list."""

    def __getitem__(self, key):
        if isinstance(key, slice):
            return _grid_1d(key, "ogrid")
        return meshgrid(*_grids(key, "ogrid"), indexing="ij", sparse=True)


mgrid = _Mgrid()
ogrid = _Ogrid()


def _directive(directive: str, params: list[int]) -> list[int]:
    """(axis, ndmin, trans1d, matrix) from a string `"axis,ndmin,trans1d"` or 'r'/'c'."""
    if directive == "r":
        return params[:3] + [0]
    if directive == "c":
        return params[:3] + [1]
    fields = directive.split(",")
    fields = fields + params[len(fields):] if len(fields) < 4 else fields[:3] + [params[3]]
    try:
        return [int(f) for f in fields]
    except ValueError as err:
        raise ValueError(f"could not understand directive {directive!r}") from err


class _AxisConcat:
    """Concatenation by indexing: slices become 1-d ranges, other items arrays of at least
    `ndmin` axes (1-d items placed along axis `trans1d`); a leading string directive
    `"axis,ndmin,trans1d"` overrides the defaults, and 'r' or 'c' make a row or column
    matrix of a 1-d result."""

    axis: int
    ndmin: int
    trans1d: int
    op_name: str

    def __getitem__(self, key):
        items = key if isinstance(key, tuple) else (key,)
        params = [self.axis, self.ndmin, self.trans1d, -1]
        if items and isinstance(items[0], str):
            params = _directive(items[0], params)
            items = items[1:]
        axis, ndmin, trans1d, matrix = params
        pieces = []
        for item in items:
            if isinstance(item, slice):
                piece = _grid_1d(item, self.op_name)
                item_ndim = 0
            elif isinstance(item, str):
                raise ValueError("string directive must be placed at the beginning")
            else:
                piece = array(item, copy=False)
                item_ndim = piece.ndim
            piece = array(piece, copy=False, ndmin=ndmin)
            if trans1d != -1 and ndmin - item_ndim > 0:
                order = tuple(range(ndmin))
                shifts = ndmin - abs(ndmin + trans1d + 1) % ndmin
                piece = transpose(piece, order[shifts:] + order[:shifts])
            pieces.append(piece)
        out = concatenate(tuple(pieces), axis=axis)
        if matrix != -1 and out.ndim == 1:
            out = expand_dims(out, matrix)
        return out

    def __len__(self) -> int:
        return 0


class RClass(_AxisConcat):
    """`r_[...]`: concatenation along the first axis (see `_AxisConcat`).

    >>> import jaxwg.numpy as jnp
    >>> jnp.r_["0,2", [1, 2], [3, 4]].tolist()
    [[1, 2], [3, 4]]
    """

    axis, ndmin, trans1d, op_name = 0, 1, -1, "r_"


class CClass(_AxisConcat):
    """`c_[...]`: concatenation along the last axis, 1-d items as columns.

    >>> import jaxwg.numpy as jnp
    >>> jnp.c_[jnp.array([1, 2]), jnp.array([3, 4])].tolist()
    [[1, 3], [2, 4]]
    """

    axis, ndmin, trans1d, op_name = -1, 2, 0, "c_"


r_ = RClass()
c_ = CClass()


def mask_indices(n, mask_func, k=0, *, size=None):
    """The (row, column) indices where `mask_func(ones((n, n)), k)` is nonzero (`size` as
    in `nonzero`, for use under `jit`).

    >>> import jaxwg.numpy as jnp
    >>> [i.tolist() for i in jnp.mask_indices(3, jnp.triu, 1)]
    [[0, 0, 1], [1, 2, 2]]
    """
    i, j = nonzero(mask_func(ones((n, n)), k), size=size)
    return i, j


def _tile_to_size(x, size: int):
    """1-d `x` repeated to length `size` (cut short)."""
    n = aval_of(x).shape[0]
    if n < size:
        x = tile(x, -(-size // n))
    return x[:size] if aval_of(x).shape[0] > size else x


def put(a, ind, v, mode=None, *, inplace=True):
    """`a` with the values `v` (repeated as needed) written at the flat indices `ind`, as a
    new array: as in JAX, `inplace=False` must be passed, since arrays are immutable.
    Indices out of range are clipped ("clip"), wrapped ("wrap"), or by default wrapped
    once if negative and then clipped (`unravel_index`'s rule), as in JAX.

    >>> import jaxwg.numpy as jnp
    >>> jnp.put(jnp.zeros(4), jnp.array([0, 2]), jnp.array([5.0, 6.0]), inplace=False).tolist()
    [5.0, 0.0, 6.0, 0.0]
    """
    if inplace:
        raise ValueError("jax.numpy.put cannot modify arrays in-place, because JAX arrays are "
                         "immutable. Pass inplace=False to instead return an updated array.")
    check_arraylike("put", a, ind, v)
    x = to_array(a)
    index = ravel(to_array(ind))
    values = ravel(to_array(v))
    size = aval_of(x).size
    if not size or not aval_of(index).size or not aval_of(values).size:
        return x
    values = _tile_to_size(values, aval_of(index).shape[0])
    if mode == "clip":
        index = ufuncs.clip(index, 0, size - 1)
    elif mode == "wrap":
        index = ufuncs.remainder(index, size)
    elif mode is None:
        pass
    elif mode == "raise":
        raise NotImplementedError("The 'raise' mode to jnp.put is not supported.")
    else:
        raise ValueError(f"mode should be one of 'wrap' or 'clip'; got mode={mode!r}")
    coordinates = unravel_index(index, aval_of(x).shape)  # in bounds: it clips
    return x.at[coordinates].set(values, mode="promise_in_bounds")
