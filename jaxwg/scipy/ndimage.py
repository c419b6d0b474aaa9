"""`jaxwg.scipy.ndimage`: `map_coordinates` (orders 0 and 1), as `jax.scipy.ndimage`.

>>> import jaxwg.numpy as jnp
>>> from jaxwg.scipy import ndimage
>>> ndimage.map_coordinates(jnp.array([0.0, 2.0, 4.0]), [jnp.array([0.25, 1.5])], order=1).tolist()
[0.5, 3.0]
"""

from __future__ import annotations

import functools
import itertools
import operator

import numpy as np

from .. import lax
from .. import numpy as jnp

__all__ = ["map_coordinates"]


def _mirror(index, size: int):
    """`index` reflected about the first and last samples: a triangle wave of period
    2 (size - 1) (SciPy's 'mirror')."""
    if size == 1:
        return jnp.zeros_like(index)
    s = size - 1
    return jnp.abs((index + s) % (2 * s) - s)


def _reflect(index, size: int):
    """`index` reflected about the outer edges of the first and last pixels ('reflect')."""
    return jnp.floor_divide(_mirror(2 * index + 1, 2 * size + 1) - 1, 2)


# mode -> the in-range index standing for an index (out of range for 'constant')
_INDEX_FIXERS = {
    "constant": lambda index, size: index,
    "nearest": lambda index, size: jnp.clip(index, 0, size - 1),
    "wrap": lambda index, size: index % size,
    "mirror": _mirror,
    "reflect": _reflect,
}


def _round_half_away_from_zero(a):
    return a if jnp.issubdtype(a.dtype, np.integer) else lax.round(a)


def _nearest(coordinate):
    """[(index, weight)]: the nearest sample, weight 1 (None: no multiplication)."""
    return [(_round_half_away_from_zero(coordinate).astype(np.int32), None)]


def _linear(coordinate):
    """[(index, weight)] of the samples on either side of `coordinate`."""
    lower = jnp.floor(coordinate)
    upper_weight = coordinate - lower
    index = lower.astype(np.int32)
    return [(index, 1 - upper_weight), (index + 1, upper_weight)]


def map_coordinates(input, coordinates, order, mode="constant", cval=0.0):
    """`input` interpolated at `coordinates` (one array per axis) by nearest-neighbour
    (`order=0`) or linear (`order=1`) interpolation, as `jax.scipy.ndimage`'s: `mode`
    'constant', 'nearest', 'wrap', 'mirror' or 'reflect' places the points outside, where
    JAX's 'constant' and 'wrap' are SciPy's 'grid-constant' and 'grid-wrap'. Integer
    inputs round half away from zero.

    >>> from jaxwg.scipy.ndimage import map_coordinates
    >>> import jaxwg.numpy as jnp
    >>> map_coordinates(jnp.arange(4.0), [jnp.array([-0.5, 3.5])], 1, mode="wrap").tolist()
    [1.5, 1.5]
    """
    input = jnp.asarray(input)
    coordinates = [jnp.asarray(c) for c in coordinates]
    cval = jnp.asarray(cval, input.dtype)
    if len(coordinates) != input.ndim:
        raise ValueError("coordinates must be a sequence of length input.ndim, but "
                         f"{len(coordinates)} != {input.ndim}")
    fix_index = _INDEX_FIXERS.get(mode)
    if fix_index is None:
        raise NotImplementedError(
            f"jax.scipy.ndimage.map_coordinates does not yet support mode {mode}. "
            f"Currently supported modes are {set(_INDEX_FIXERS)}.")
    if order == 0:
        nodes = _nearest
    elif order == 1:
        nodes = _linear
    else:
        raise NotImplementedError(
            "jax.scipy.ndimage.map_coordinates currently requires order<=1")
    # per axis: [(index in range, whether the index lies inside, weight)]
    per_axis = []
    for coordinate, size in zip(coordinates, input.shape):
        per_axis.append([(fix_index(index, size),
                          (index >= 0) & (index < size) if mode == "constant" else None,
                          weight)
                         for index, weight in nodes(coordinate)])
    terms = []
    for corner in itertools.product(*per_axis):
        indices, inside, weights = zip(*corner)
        value = input[indices]
        if mode == "constant":
            value = jnp.where(functools.reduce(operator.and_, inside), value, cval)
        if order == 1:
            value = functools.reduce(operator.mul, weights) * value
        terms.append(value)
    result = functools.reduce(operator.add, terms)
    if jnp.issubdtype(input.dtype, np.integer):
        result = _round_half_away_from_zero(result)
    return result.astype(input.dtype)
