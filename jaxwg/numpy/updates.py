"""Functional updates: `x.at[index].set(v)`, `.add`, `.subtract`, `.multiply`, `.divide`,
`.power`, `.min`, `.max`, `.apply`, `.get`, as JAX's `Array.at`.

The index is any index `x[index]` takes. Its element coordinates come from indexing
an iota of each axis the same way (so slices, `None`, `...`, integers and integer or
boolean arrays all work alike), and one scatter (`lax.scatter_*`) writes the values,
broadcast to the indexed shape. Out-of-bounds indices are dropped by updates (JAX's
default `mode="drop"`) and clamped by `get` unless `mode="fill"`; repeated indices
all contribute to `add`, `multiply`, `min`, `max`, `power` and `apply`, and the last one
wins for `set`.

>>> import jaxwg.numpy as jnp
>>> x = jnp.zeros(5)
>>> x.at[1].set(2.0).tolist(), x.at[jnp.array([0, 0, 9])].add(1.0).tolist()
([0.0, 2.0, 0.0, 0.0, 0.0], [2.0, 0.0, 0.0, 0.0, 0.0])
"""

from __future__ import annotations

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
        return self._scatter(lax.scatter_add, lax.neg(self._values(values)), **kwargs)

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
        values = self._values(values)
        return self._scatter(lax.scatter_mul, lax.div(lax.full_like(values, 1), values), **kwargs)

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

    def _values(self, values):
        """`values` in the array's dtype, broadcast to the indexed shape."""
        from .manipulation import broadcast_to

        target = aval_of(indexing.getitem(self.array, self.index)).shape
        return broadcast_to(to_array(values).astype(aval_of(self.array).dtype.np), target)

    def _scatter(self, scatter, values, *, indices_are_sorted=False, unique_indices=False, mode=None):
        if mode not in (None, "drop", "fill", "clip", "promise_in_bounds"):
            raise ValueError(f"at[]: unknown mode {mode!r}")
        x = to_array(self.array)
        values = self._values(values)
        coords, _ = _coordinates(x, self.index, clamp=mode in ("clip", "promise_in_bounds"))
        ndim = aval_of(x).ndim
        dnums = lax.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=tuple(range(ndim)),
                                            scatter_dims_to_operand_dims=tuple(range(ndim)))
        return scatter(x, coords, values, dnums, mode="clip" if mode in ("clip", "promise_in_bounds")
                       else "fill")


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
