"""`jaxwg.scipy.interpolate`: `RegularGridInterpolator` (linear and nearest), as
`jax.scipy.interpolate`.

>>> import jaxwg.numpy as jnp
>>> from jaxwg.scipy.interpolate import RegularGridInterpolator
>>> f = RegularGridInterpolator((jnp.array([0.0, 1.0, 2.0]),), jnp.array([0.0, 10.0, 40.0]))
>>> f(jnp.array([0.5, 1.5, 3.0])).tolist()
[5.0, 25.0, nan]
"""

from __future__ import annotations

import itertools

import numpy as np

from .. import numpy as jnp
from ..frontend.pytree import register_pytree_node
from ..numpy._util import check_arraylike, inexact_operands

__all__ = ["RegularGridInterpolator"]

_METHODS = ("linear", "nearest")


def _check_method(method):
    if method not in _METHODS:
        raise ValueError(f"method {method!r} is not defined")


def _points_array(points, ndim: int):
    """`points` (an (..., ndim) array, or a tuple of one coordinate array per axis) as an
    (..., ndim) array; a 1-d array holds points of `ndim` coordinates each."""
    if isinstance(points, tuple) and len(points) == 1:
        points = points[0]
    if isinstance(points, tuple):
        # the default float dtype, as JAX's `empty(..., dtype=float)`
        return jnp.stack(jnp.broadcast_arrays(*points), axis=-1).astype(float)
    check_arraylike("_ndim_coords_from_arrays", points)
    points = jnp.asarray(points)
    return points.reshape(-1, ndim) if points.ndim == 1 else points


class RegularGridInterpolator:
    """Interpolation of `values` on the rectangular grid of `points` (one strictly
    increasing array per axis), linear or nearest, with `fill_value` (None: extrapolate)
    outside it, as `jax.scipy.interpolate.RegularGridInterpolator`. As in JAX,
    `bounds_error=True` raises NotImplementedError and a decreasing axis gives wrong
    results silently.

    >>> import jaxwg.numpy as jnp
    >>> grid = (jnp.array([0.0, 1.0]), jnp.array([0.0, 2.0]))
    >>> f = RegularGridInterpolator(grid, jnp.array([[0.0, 2.0], [4.0, 6.0]]))
    >>> f(jnp.array([[0.5, 1.0], [1.0, 2.0]])).tolist()
    [3.0, 6.0]
    """

    def __init__(self, points, values, method="linear", bounds_error=False,
                 fill_value=np.nan):
        _check_method(method)
        self.method = method
        self.bounds_error = bounds_error
        if bounds_error:
            raise NotImplementedError("`bounds_error` takes no effect under JIT")
        check_arraylike("RegularGridInterpolator", values)
        if len(points) > np.ndim(values):
            raise ValueError(f"there are {len(points)} point arrays, but values has "
                             f"{np.ndim(values)} dimensions")
        values, = inexact_operands("RegularGridInterpolator", values)
        if fill_value is not None:
            check_arraylike("RegularGridInterpolator", fill_value)
            fill_value = jnp.asarray(fill_value)
            if not jnp.can_cast(fill_value.dtype, values.dtype, casting="same_kind"):
                raise ValueError("fill_value must be either 'None' or of a type compatible "
                                 "with values")
        self.fill_value = fill_value
        check_arraylike("RegularGridInterpolator", *points)
        self.grid = tuple(jnp.asarray(p) for p in points)
        self.values = values

    def __call__(self, xi, method=None):
        """The interpolated values at the points `xi`.

        >>> import jaxwg.numpy as jnp
        >>> f = RegularGridInterpolator((jnp.array([0.0, 2.0]),), jnp.array([0.0, 1.0]))
        >>> f(jnp.array([0.4, 1.6]), method="nearest").tolist()
        [0.0, 1.0]
        """
        method = self.method if method is None else method
        _check_method(method)
        ndim = len(self.grid)
        xi = _points_array(xi, ndim)
        if xi.shape[-1] != ndim:
            raise ValueError(f"the requested sample points xi have dimension {xi.shape[1]}, "
                             f"but this RegularGridInterpolator has dimension {ndim}")
        shape = xi.shape
        indices, distances, outside = self._find_indices(xi.reshape(-1, shape[-1]).T)
        if method == "linear":
            result = self._evaluate_linear(indices, distances)
        else:
            result = self.values[tuple(jnp.where(t <= 0.5, i, i + 1)
                                       for i, t in zip(indices, distances))]
        if self.fill_value is not None:
            outside = outside.reshape(result.shape[:1] + (1,) * (result.ndim - 1))
            result = jnp.where(outside, self.fill_value, result)
        return result.reshape(shape[:-1] + self.values.shape[ndim:])

    def _find_indices(self, xi):
        """Per axis, the cell each point lies in (the last cell past the end, the first
        before the start) and the point's distance from the cell's start in cell widths;
        and whether each point lies outside the grid."""
        indices, distances = [], []
        outside = jnp.zeros((xi.shape[1],), dtype=bool)
        for x, g in zip(xi, self.grid):
            i = jnp.clip(jnp.searchsorted(g, x) - 1, 0, g.size - 2)
            indices.append(i)
            distances.append((x - g[i]) / (g[i + 1] - g[i]))
            outside = outside | (x < g[0]) | (x > g[-1])
        return indices, distances, outside

    def _evaluate_linear(self, indices, distances):
        """The sum over the cell's corners of value times the product of the per-axis
        weights (1 - t at the cell's start, t at its end)."""
        trailing = (slice(None),) + (None,) * (self.values.ndim - len(indices))
        result = jnp.asarray(0.0)
        for corner in itertools.product(*[(0, 1)] * len(indices)):
            weight = jnp.asarray(1.0)
            for upper, t in zip(corner, distances):
                weight = weight * (t if upper else 1 - t)
            result = result + self.values[tuple(i + 1 if upper else i for i, upper in
                                                zip(indices, corner))] * weight[trailing]
        return result


register_pytree_node(
    RegularGridInterpolator,
    lambda f: ((f.grid, f.values, f.fill_value), (f.method, f.bounds_error)),
    lambda aux, children: RegularGridInterpolator(*children[:2], *aux, *children[2:]),
)
