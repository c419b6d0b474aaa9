"""Functional updates: `x.at[index].set(v)`, `.add`, `.subtract`, `.multiply`, `.divide`,
`.power`, `.min`, `.max`, `.apply`, `.get`, as JAX's `Array.at`.

The index is any index `x[index]` takes. `get` is `x[index]` (`indexing.rewriting_take`,
with a `mode` and `fill_value`); the updates are one scatter each (`lax.scatter`,
`scatter_add`, `scatter_sub`, `scatter_mul`, `scatter_min`, `scatter_max`) of the
values, broadcast to the indexed shape, at the positions the gather of `x[index]` would
read (`_scatter_update`, JAX's: the gather's description, transposed), so jaxprs print
as JAX's. Out-of-bounds indices are dropped by updates (JAX's default `mode="drop"`)
and clamped by `get` unless `mode="fill"`; repeated indices all contribute to `add`,
`multiply`, `min`, `max`, `power` and `apply`, and the last one wins for `set`.

>>> import jaxwg.numpy as jnp
>>> x = jnp.zeros(5)
>>> x.at[1].set(2.0).tolist(), x.at[jnp.array([0, 0, 9])].add(1.0).tolist()
([0.0, 2.0, 0.0, 0.0, 0.0], [2.0, 0.0, 0.0, 0.0, 0.0])
"""

from __future__ import annotations

import warnings

from .. import lax
from ..core import dtypes as dt
from ._util import aval_of, promote, result_dtype, to_array
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
    """`x.at[index]`: the methods return updated copies of `x` (see the module docstring).
    Each takes JAX's keywords: `indices_are_sorted` and `unique_indices` (promises
    about the index), `mode` (what out-of-bounds indices do) and `wrap_negative_indices`
    (False: negative indices are out of bounds, not counted from the end)."""

    __slots__ = ("array", "index")

    def __init__(self, array, index):
        self.array, self.index = array, index

    def __repr__(self) -> str:
        return f"_IndexUpdateRef({self.array!r}, {self.index!r})"

    def get(self, *, indices_are_sorted=False, unique_indices=False, mode=None, fill_value=None,
            wrap_negative_indices=True):
        """`x[index]`; with `mode="fill"`, out-of-bounds indices read `fill_value`
        (NaN for floats by default) instead of clamping.

        >>> import jaxwg.numpy as jnp
        >>> jnp.arange(3.).at[jnp.array([1, 5])].get(mode="fill", fill_value=-1.0).tolist()
        [1.0, -1.0]
        """
        return indexing.rewriting_take(self.array, self.index, indices_are_sorted=indices_are_sorted,
                                       unique_indices=unique_indices, mode=mode, fill_value=fill_value,
                                       normalize_indices=wrap_negative_indices)

    def set(self, values, **kwargs):
        """Write `values` (the last of repeated indices wins).

        >>> import jaxwg.numpy as jnp
        >>> jnp.zeros((2, 3)).at[:, 1].set(7.0).tolist()
        [[0.0, 7.0, 0.0], [0.0, 7.0, 0.0]]
        """
        return _scatter_update(self.array, self.index, values, lax.scatter, **kwargs)

    def add(self, values, **kwargs):
        """Add `values` (repeated indices add up).

        >>> import jaxwg.numpy as jnp
        >>> jnp.zeros(3).at[jnp.array([2, 2])].add(1.0).tolist()
        [0.0, 0.0, 2.0]
        """
        return _scatter_update(self.array, self.index, values, lax.scatter_add, **kwargs)

    def subtract(self, values, **kwargs):
        """Subtract `values`.

        >>> import jaxwg.numpy as jnp
        >>> jnp.ones(2).at[0].subtract(3.0).tolist()
        [-2.0, 1.0]
        """
        return _scatter_update(self.array, self.index, values, lax.scatter_sub, **kwargs)

    def multiply(self, values, **kwargs):
        """Multiply by `values`.

        >>> import jaxwg.numpy as jnp
        >>> jnp.ones(2).at[1].multiply(5.0).tolist()
        [1.0, 5.0]
        """
        return _scatter_update(self.array, self.index, values, lax.scatter_mul, **kwargs)

    mul = multiply

    def divide(self, values, **kwargs):
        """Divide by `values`, as JAX: `x` divided by the values multiplied into an array
        of ones, so repeated indices divide repeatedly (and integers divide to floats).

        >>> import jaxwg.numpy as jnp
        >>> jnp.ones(2).at[1].divide(4.0).tolist()
        [1.0, 0.25]
        """
        from . import ufuncs
        from .creation import ones_like

        divisors = _scatter_update(ones_like(self.array), self.index, values, lax.scatter_mul, **kwargs)
        return ufuncs.divide(self.array, divisors)

    def power(self, values, **kwargs):
        """Raise to `values`; repeated indices raise repeatedly, as in JAX: the exponents
        multiply into an array of ones, and `x` is raised to it (`x ** 1` elsewhere).

        >>> import jaxwg.numpy as jnp
        >>> jnp.full(2, 3.0).at[jnp.array([0, 0])].power(2.0).tolist()
        [81.0, 3.0]
        """
        from . import ufuncs
        from .creation import ones_like

        exponents = _scatter_update(ones_like(self.array), self.index, values, lax.scatter_mul, **kwargs)
        return ufuncs.power(self.array, exponents)

    def min(self, values, **kwargs):
        """The minimum with `values`.

        >>> import jaxwg.numpy as jnp
        >>> jnp.ones(2).at[0].min(-1.0).tolist()
        [-1.0, 1.0]
        """
        return _scatter_update(self.array, self.index, values, lax.scatter_min, **kwargs)

    def max(self, values, **kwargs):
        """The maximum with `values`.

        >>> import jaxwg.numpy as jnp
        >>> jnp.ones(2).at[0].max(4.0).tolist()
        [4.0, 1.0]
        """
        return _scatter_update(self.array, self.index, values, lax.scatter_max, **kwargs)

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
        counts = _scatter_update(lax.full_like(x, 0, dt.int32), self.index, 1, lax.scatter_add, **kwargs)
        most = max_(counts, initial=0)

        def step(carry):
            k, y = carry
            applied = lax.convert_element_type(func(y), x_aval.dtype, x_aval.weak_type)
            return k + 1, lax.select(counts > k, applied, y)

        return lax.while_loop(lambda carry: carry[0] < most, step, (0, x))[1]


def _scatter_update(x, index, values, scatter, *, indices_are_sorted=False, unique_indices=False,
                    mode=None, wrap_negative_indices=True):
    """`x` with `values` scattered in by `scatter` at `index`, as JAX's `_scatter_update`:
    the values promoted with `x`, broadcast to the shape of `x[index]`, `None`'s axes
    dropped and negative steps' axes flipped; `x` with the scalar booleans' axes added;
    one scatter whose dimension numbers are the gather's of `x[index]`, transposed; the
    result in the dtype and weak type of `x`."""
    from .manipulation import broadcast_to

    x = to_array(x)
    aval = aval_of(x)
    if (isinstance(values, int) and aval.dtype.is_int and not aval.dtype.is_bool
            and dt.bounds(aval.dtype)[0] <= values <= dt.bounds(aval.dtype)[1]):
        values = lax.convert_element_type(values, aval.dtype)  # an integer kept exact
    values = to_array(values)
    if result_dtype(values, aval.dtype.np)[0] is not aval.dtype:
        warnings.warn("scatter inputs have incompatible types: cannot safely cast value from "
                      f"dtype={aval_of(values).dtype.name} to dtype={aval.dtype.name} with "
                      "jax_numpy_dtype_promotion=standard. In future JAX releases this will result in "
                      "an error.", FutureWarning, stacklevel=3)
    indexer = indexing.gather_indexer(index, aval.shape, wrap_negative_indices)
    if 0 in indexer.slice_shape:  # nothing to write: zeros(0).at[array([], int32)] needs no scatter
        return x
    x, values = promote(x, values)
    values = broadcast_to(values, indexer.slice_shape)
    if indexer.newaxis_dims:
        values = lax.squeeze(values, indexer.newaxis_dims)
    if indexer.reversed_y_dims:
        values = lax.rev(values, indexer.reversed_y_dims)
    if indexer.scalar_bool_dims:
        x = lax.expand_dims(x, indexer.scalar_bool_dims)
    d = indexer.dnums
    dnums = lax.ScatterDimensionNumbers(
        update_window_dims=d.offset_dims, inserted_window_dims=d.collapsed_slice_dims,
        scatter_dims_to_operand_dims=d.start_index_map, operand_batching_dims=d.operand_batching_dims,
        scatter_indices_batching_dims=d.start_indices_batching_dims)
    out = scatter(x, indexer.gather_indices, values, dnums,
                  indices_are_sorted=indexer.indices_are_sorted or indices_are_sorted,
                  unique_indices=indexer.unique_indices or unique_indices, mode=mode)
    if indexer.scalar_bool_dims:
        out = lax.squeeze(out, indexer.scalar_bool_dims)
    return lax.convert_element_type(out, aval.dtype, aval.weak_type)
