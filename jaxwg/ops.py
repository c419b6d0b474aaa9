"""Segment reductions, as `jax.ops`: `segment_sum`, `segment_prod`, `segment_max` and
`segment_min` reduce the rows of `data` that share a segment id, as scatters (`.at[]`)
into an array of each reduction's identity.

Ids outside `[0, num_segments)` are dropped (JAX's default mode, "fill or drop"), and
an empty segment keeps the identity (0, 1, -inf or the dtype's minimum, inf or its
maximum). `num_segments` decides the result's shape, so under `jit` it must be given
(as a static value).

>>> import jaxwg.numpy as jnp
>>> from jaxwg.ops import segment_sum
>>> segment_sum(jnp.arange(5.0), jnp.array([0, 0, 1, 2, 2]))
Array([1., 2., 7.], dtype=float32)
"""

from __future__ import annotations

import math

import numpy as np

from . import numpy as jnp
from .numpy._util import check_arraylike, concrete_or_error

__all__ = ["segment_max", "segment_min", "segment_prod", "segment_sum"]


def _identity(op: str, dtype):
    """The value an empty segment holds (JAX's `_get_identity`)."""
    if op in ("add", "multiply"):
        return 0 if op == "add" else 1
    if dtype == np.bool_:
        return op == "min"
    if jnp.issubdtype(dtype, np.integer):
        info = jnp.iinfo(dtype)
        return info.max if op == "min" else info.min
    return math.inf if op == "min" else -math.inf


def _segment_update(name: str, op: str, reducer, data, segment_ids, num_segments,
                    indices_are_sorted, unique_indices, bucket_size, mode):
    check_arraylike(name, data, segment_ids)
    data, segment_ids = jnp.asarray(data), jnp.asarray(segment_ids)
    if num_segments is None:
        num_segments = jnp.max(segment_ids) + 1
    # As JAX's, whose message names segment_sum for every reduction.
    num_segments = int(concrete_or_error(num_segments, "segment_sum() `num_segments` argument."))
    if num_segments < 0:
        raise ValueError("num_segments must be non-negative.")
    mode = "drop" if mode is None else mode
    # JAX does not wrap negative ids around as indices: they are out of bounds.
    if mode == "clip":
        segment_ids = jnp.clip(segment_ids, 0, num_segments - 1)
    else:
        segment_ids = jnp.where(segment_ids < 0, num_segments, segment_ids)
    kwargs = dict(indices_are_sorted=indices_are_sorted, unique_indices=unique_indices, mode=mode)
    fill = _identity(op, data.dtype)
    if bucket_size is None:
        out = jnp.full((num_segments,) + data.shape[1:], fill, dtype=data.dtype)
        return getattr(out.at[segment_ids], op)(data, **kwargs)
    # As JAX's: reduce within buckets of `bucket_size` ids, then across the buckets (sums
    # and products of many terms lose less to rounding).
    num_buckets = -(-segment_ids.size // bucket_size)
    out = jnp.full((num_buckets, num_segments) + data.shape[1:], fill, dtype=data.dtype)
    index = (jnp.arange(segment_ids.shape[0]) // bucket_size, segment_ids)
    return reducer(getattr(out.at[index], op)(data, **kwargs), axis=0).astype(data.dtype)


def segment_sum(data, segment_ids, num_segments=None, indices_are_sorted=False,
                unique_indices=False, bucket_size=None, mode=None, out_sharding=None):
    """The sum of the rows of `data` in each segment (`jax.ops.segment_sum`).

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg.ops import segment_sum
    >>> segment_sum(jnp.ones((4, 2)), jnp.array([0, 2, 2, 7]), num_segments=3).tolist()
    [[1.0, 1.0], [0.0, 0.0], [2.0, 2.0]]
    """
    _no_sharding(out_sharding)
    return _segment_update("segment_sum", "add", jnp.sum, data, segment_ids, num_segments,
                           indices_are_sorted, unique_indices, bucket_size, mode)


def segment_prod(data, segment_ids, num_segments=None, indices_are_sorted=False,
                 unique_indices=False, bucket_size=None, mode=None, out_sharding=None):
    """The product of the rows of `data` in each segment (`jax.ops.segment_prod`).

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg.ops import segment_prod
    >>> segment_prod(jnp.arange(1.0, 5.0), jnp.array([0, 0, 2, 2]))
    Array([ 2.,  1., 12.], dtype=float32)
    """
    _no_sharding(out_sharding)
    return _segment_update("segment_prod", "multiply", jnp.prod, data, segment_ids,
                           num_segments, indices_are_sorted, unique_indices, bucket_size, mode)


def segment_max(data, segment_ids, num_segments=None, indices_are_sorted=False,
                unique_indices=False, bucket_size=None, mode=None, out_sharding=None):
    """The maximum of the rows of `data` in each segment (`jax.ops.segment_max`); an
    empty segment holds -inf (or the integer dtype's minimum).

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg.ops import segment_max
    >>> segment_max(jnp.arange(4.0), jnp.array([0, 0, 2, 2]))
    Array([  1., -inf,   3.], dtype=float32)
    """
    _no_sharding(out_sharding)
    return _segment_update("segment_max", "max", jnp.max, data, segment_ids, num_segments,
                           indices_are_sorted, unique_indices, bucket_size, mode)


def segment_min(data, segment_ids, num_segments=None, indices_are_sorted=False,
                unique_indices=False, bucket_size=None, mode=None, out_sharding=None):
    """The minimum of the rows of `data` in each segment (`jax.ops.segment_min`); an
    empty segment holds inf (or the integer dtype's maximum).

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg.ops import segment_min
    >>> segment_min(jnp.arange(4), jnp.array([0, 0, 2, 2])).tolist()
    [0, 2147483647, 2]
    """
    _no_sharding(out_sharding)
    return _segment_update("segment_min", "min", jnp.min, data, segment_ids, num_segments,
                           indices_are_sorted, unique_indices, bucket_size, mode)


def _no_sharding(out_sharding) -> None:
    if out_sharding is not None:
        raise NotImplementedError("jaxwg.ops: out_sharding is not supported (one device, "
                                  "no shardings); pass None")
