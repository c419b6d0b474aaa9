"""Functional updates: `x.at[index].set(v)`, `.add`, `.subtract`, `.multiply`, `.divide`,
`.power`, `.min`, `.max`, `.apply`, `.get`, as JAX's `Array.at`.

The index is any index `x[index]` takes, and one scatter (`lax.scatter_*`) writes the
values, broadcast to the indexed shape. Static integers among whole slices, or one
signed integer array among them, become JAX's scatter operands (`_folded`: integers as
constants, the slices as window axes), so jaxprs print as JAX's; for any other index
the element coordinates come from indexing an iota of each axis the same way (so
slices, `None`, `...`, integers and integer or boolean arrays all work alike). Out-of-bounds indices are dropped by updates (JAX's
default `mode="drop"`) and clamped by `get` unless `mode="fill"`; repeated indices
all contribute to `add`, `multiply`, `min`, `max`, `power` and `apply`, and the last one
wins for `set`.

>>> import jaxwg.numpy as jnp
>>> x = jnp.zeros(5)
>>> x.at[1].set(2.0).tolist(), x.at[jnp.array([0, 0, 9])].add(1.0).tolist()
([0.0, 2.0, 0.0, 0.0, 0.0], [2.0, 0.0, 0.0, 0.0, 0.0])
"""

from __future__ import annotations

import numpy as np

from .. import lax
from ..core import dtypes as dt
from ..frontend.gather import default_fill
from ._util import aval_of, to_array
from . import indexing


class IndexUpdateHelper:
    """`x.at`: indexing it gives an `IndexUpdateRef`."""

    __slots__ = ("array",)

    def __init__(self, array):
        self.array = array

    def __getitem__(self, index) -> IndexUpdateRef:
        return IndexUpdateRef(self.array, index)

    def __repr__(self) -> str:
        return f"_IndexUpdateHelper({self.array!r})"


class IndexUpdateRef:
    """`x.at[index]`: the methods return updated copies of `x` (see the module docstring)."""

    __slots__ = ("array", "index")

    def __init__(self, array, index):
        self.array, self.index = array, index

    def get(self, *, mode=None, fill_value=None, indices_are_sorted=False, unique_indices=False):
        """`x[index]`; with `mode="fill"`, out-of-bounds indices read `fill_value`
        (NaN for floats by default) instead of clamping.

        >>> import jaxwg.numpy as jnp
        >>> jnp.arange(3.).at[jnp.array([1, 5])].get(mode="fill", fill_value=-1.0).tolist()
        [1.0, -1.0]
        """
        if mode in (None, "clip", "promise_in_bounds"):
            return indexing.getitem(self.array, self.index)
        if mode not in ("fill", "drop"):
            raise ValueError(f"at[].get: unknown mode {mode!r}")
        coords, valid = _coordinates(self.array, self.index)
        value = _gather_elements(self.array, coords)
        dtype = aval_of(value).dtype
        if fill_value is None:
            fill_value = default_fill(dtype)
        return lax.select(valid, value, lax.full_like(value, fill_value))

    def set(self, values, **kwargs):
        """Write `values` (the last of repeated indices wins).

        >>> import jaxwg.numpy as jnp
        >>> jnp.zeros((2, 3)).at[:, 1].set(7.0).tolist()
        [[0.0, 7.0, 0.0], [0.0, 7.0, 0.0]]
        """
        return self._scatter(lax.scatter, values, **kwargs)

    def add(self, values, **kwargs):
        """Add `values` (repeated indices add up).

        >>> import jaxwg.numpy as jnp
        >>> jnp.zeros(3).at[jnp.array([2, 2])].add(1.0).tolist()
        [0.0, 0.0, 2.0]
        """
        return self._scatter(lax.scatter_add, values, **kwargs)

    def subtract(self, values, **kwargs):
        """Subtract `values`.

        >>> import jaxwg.numpy as jnp
        >>> jnp.ones(2).at[0].subtract(3.0).tolist()
        [-2.0, 1.0]
        """
        return self._scatter(lax.scatter_add, values, lax.neg, **kwargs)

    def multiply(self, values, **kwargs):
        """Multiply by `values`.

        >>> import jaxwg.numpy as jnp
        >>> jnp.ones(2).at[1].multiply(5.0).tolist()
        [1.0, 5.0]
        """
        return self._scatter(lax.scatter_mul, values, **kwargs)

    mul = multiply

    def divide(self, values, **kwargs):
        """Divide by `values`: a multiply by their reciprocals, so repeated indices divide
        repeatedly (JAX's rule; float and complex arrays only).

        >>> import jaxwg.numpy as jnp
        >>> jnp.ones(2).at[1].divide(4.0).tolist()
        [1.0, 0.25]
        """
        if not aval_of(self.array).dtype.is_inexact:
            raise TypeError(f"at[].divide needs a float or complex array, got {aval_of(self.array).dtype}")
        return self._scatter(lax.scatter_mul, values, lambda v: lax.div(lax.full_like(v, 1), v), **kwargs)

    def power(self, values, **kwargs):
        """Raise to `values`; repeated indices raise repeatedly, as in JAX: the exponents
        multiply into an array of ones, and `x` is raised to it (`x ** 1` elsewhere).

        >>> import jaxwg.numpy as jnp
        >>> jnp.full(2, 3.0).at[jnp.array([0, 0])].power(2.0).tolist()
        [81.0, 3.0]
        """
        from . import ufuncs
        from .creation import ones_like

        x = to_array(self.array)
        exponents = IndexUpdateRef(ones_like(x), self.index).multiply(values, **kwargs)  # x's weak type
        return ufuncs.power(x, exponents)

    def min(self, values, **kwargs):
        """The minimum with `values`.

        >>> import jaxwg.numpy as jnp
        >>> jnp.ones(2).at[0].min(-1.0).tolist()
        [-1.0, 1.0]
        """
        return self._scatter(lax.scatter_min, values, **kwargs)

    def max(self, values, **kwargs):
        """The maximum with `values`.

        >>> import jaxwg.numpy as jnp
        >>> jnp.ones(2).at[0].max(4.0).tolist()
        [4.0, 1.0]
        """
        return self._scatter(lax.scatter_max, values, **kwargs)

    def apply(self, func, **kwargs):
        """`func` (elementwise) applied to the indexed elements, once per occurrence of an
        index, as in JAX: a loop applies it where an element's count is not yet reached.

        >>> import jaxwg.numpy as jnp
        >>> jnp.arange(3.).at[1:].apply(lambda v: v * 10).tolist()
        [0.0, 10.0, 20.0]
        >>> jnp.array([3.0, 1.0]).at[jnp.array([0, 0])].apply(lambda v: v + 1).tolist()
        [5.0, 1.0]
        """
        from .reductions import max as max_

        x = to_array(self.array)
        x_aval = aval_of(x)
        counts = IndexUpdateRef(lax.full_like(x, 0, dt.int32), self.index).add(1, **kwargs)
        most = max_(counts, initial=0)

        def step(carry):
            k, y = carry
            applied = lax.convert_element_type(func(y), x_aval.dtype, x_aval.weak_type)
            return k + 1, lax.select(counts > k, applied, y)

        return lax.while_loop(lambda carry: carry[0] < most, step, (0, x))[1]

    def _scatter(self, scatter, values, prepare=None, *, indices_are_sorted=False, unique_indices=False,
                 mode=None):
        """`scatter` of `values` (in the array's dtype, broadcast to the indexed shape,
        then `prepare`d) at the index: JAX's operands where `_folded` finds them, else
        every element's coordinates (`_coordinates`)."""
        from .manipulation import broadcast_to

        if mode not in (None, "drop", "fill", "clip", "promise_in_bounds"):
            raise ValueError(f"at[]: unknown mode {mode!r}")
        x = to_array(self.array)
        folded = _folded(x, self.index)
        if folded is None:
            clamp = mode in ("clip", "promise_in_bounds")
            indices, _ = _coordinates(x, self.index, clamp=clamp)
            ndim = aval_of(x).ndim
            dnums = lax.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=tuple(range(ndim)),
                                                scatter_dims_to_operand_dims=tuple(range(ndim)))
            shape, static, mode = aval_of(indices).shape[:-1], False, "clip" if clamp else "fill"
        else:
            indices, dnums, shape, static = folded
        values = broadcast_to(to_array(values).astype(aval_of(x).dtype.np), shape)
        values = values if prepare is None else prepare(values)
        return scatter(x, indices, values, dnums, indices_are_sorted=static or indices_are_sorted,
                       unique_indices=static or unique_indices, mode=mode)


def _folded(x, index):
    """JAX's scatter operands for the indices it folds (`jax.numpy`'s index_to_gather):
    static integers among whole slices (each integer normalized and put in the index
    vector as a constant; unique and sorted), or one signed integer array among whole
    slices (its negative entries counted from the end). (indices, dimension numbers,
    shape of the updates, whether the indices are static), or None for other indices."""
    shape = aval_of(x).shape
    items = list(index) if isinstance(index, tuple) else [index]
    ellipses = [k for k, item in enumerate(items) if item is Ellipsis]
    if len(ellipses) > 1:
        return None
    if ellipses:
        items[ellipses[0]:ellipses[0] + 1] = [slice(None)] * (len(shape) - len(items) + 1)
    if len(items) > len(shape) or 0 in shape:
        return None
    items += [slice(None)] * (len(shape) - len(items))
    whole = [isinstance(i, slice) and i == slice(None) for i in items]
    ints = [_static_int(i) for i in items]
    arrays = [k for k, i in enumerate(items) if not whole[k] and ints[k] is None]
    window = [k for k in range(len(shape)) if whole[k]]
    if not arrays and len(window) < len(shape):
        positions = [k for k in range(len(shape)) if not whole[k]]
        parts = [lax.full((1,), ints[k] + shape[k] if ints[k] < 0 else ints[k], dt.int32) for k in positions]
        indices = parts[0] if len(parts) == 1 else lax.concatenate(parts, 0)
        dnums = lax.ScatterDimensionNumbers(update_window_dims=tuple(range(len(window))),
                                            inserted_window_dims=tuple(positions),
                                            scatter_dims_to_operand_dims=tuple(positions))
        return indices, dnums, tuple(shape[k] for k in window), True
    if len(arrays) != 1 or len(window) != len(shape) - 1:
        return None
    (p,) = arrays
    array = _signed_int32(items[p])
    if array is None:
        return None
    size = np.int32(shape[p])
    negative = array < 0 if isinstance(array, np.ndarray) else lax.lt(array, np.int32(0))
    array = lax.select(negative, lax.add(array, size), array)
    batch = aval_of(array).shape
    indices = lax.broadcast_in_dim(array, batch + (1,), tuple(range(len(batch))))
    dnums = lax.ScatterDimensionNumbers(
        update_window_dims=tuple(range(p)) + tuple(range(p + len(batch), len(batch) + len(window))),
        inserted_window_dims=(p,), scatter_dims_to_operand_dims=(p,))
    return indices, dnums, shape[:p] + batch + shape[p + 1:], False


def _static_int(item):
    """`item` as a Python int if it is a static integer index (not a boolean), else None."""
    if isinstance(item, (bool, np.bool_)) or not isinstance(item, (int, np.integer)):
        return None
    return int(item)


def _signed_int32(item):
    """An index array of rank 1 or more as int32 (a NumPy array stays one: JAX
    normalizes its entries while tracing), or None if it is not one of signed integers."""
    if isinstance(item, (list, tuple)) or not hasattr(item, "dtype") or not np.ndim(item):
        return None
    dtype = np.dtype(getattr(item.dtype, "np", item.dtype))
    if dtype.kind != "i":
        return None
    if isinstance(item, np.ndarray):
        return item.astype(np.int32)
    return item if dtype == np.int32 else None


def _coordinates(x, index, clamp: bool = False):
    """The operand coordinates of every element of `x[index]`, stacked on a last axis
    (int32), and whether each lies in bounds. Each axis's coordinates are an iota of
    that axis indexed the same way; out of bounds they are -1 (which the scatter drops
    and `get` fills), unless `clamp`."""
    from .joining import stack
    from .reductions import all as all_

    shape = aval_of(x).shape
    coords = [indexing.getitem(lax.broadcasted_iota(dt.int32, shape, axis), index,
                               fill_value=None if clamp else -1) for axis in range(len(shape))]
    stacked = stack(coords, axis=-1) if coords else \
        lax.full(aval_of(indexing.getitem(x, index)).shape + (0,), 0, dt.int32)
    return stacked, all_(stacked >= 0, axis=-1)


def _gather_elements(x, coords):
    ndim = aval_of(x).ndim
    dnums = lax.GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=tuple(range(ndim)),
                                       start_index_map=tuple(range(ndim)))
    return lax.gather(x, coords, dnums, (1,) * ndim, mode="clip")
