"""`jaxwg.nn.initializers`: functions `init(key, shape, dtype)` that make parameters, with
the formulas of `jax.nn.initializers` (so with equal keys they give JAX's values up to
the rounding `jaxwg.random` documents).

>>> from jaxwg import random
>>> from jaxwg.nn import initializers
>>> initializers.glorot_normal()(random.PRNGKey(0), (3, 4)).shape
(3, 4)
"""

from __future__ import annotations

import math


from .. import numpy as jnp
from .. import random

__all__ = ["constant", "glorot_normal", "glorot_uniform", "he_normal", "he_uniform",
           "kaiming_normal", "kaiming_uniform", "lecun_normal", "lecun_uniform", "normal",
           "ones", "orthogonal", "truncated_normal", "uniform", "variance_scaling", "xavier_normal",
           "xavier_uniform", "zeros"]


def zeros(key, shape, dtype=jnp.float32):
    """Zeros of `shape`.

    >>> from jaxwg.nn.initializers import zeros
    >>> from jaxwg import random
    >>> zeros(random.PRNGKey(0), (2,)).tolist()
    [0.0, 0.0]
    """
    return jnp.zeros(shape, dtype)


def ones(key, shape, dtype=jnp.float32):
    """Ones of `shape`.

    >>> from jaxwg.nn.initializers import ones
    >>> from jaxwg import random
    >>> ones(random.PRNGKey(0), (2,)).tolist()
    [1.0, 1.0]
    """
    return jnp.ones(shape, dtype)


def constant(value, dtype=jnp.float32):
    """An initializer filling with `value`.

    >>> from jaxwg.nn.initializers import constant
    >>> from jaxwg import random
    >>> constant(3.0)(random.PRNGKey(0), (2,)).tolist()
    [3.0, 3.0]
    """
    def init(key, shape, dtype=dtype):
        return jnp.full(shape, value, dtype)
    return init


def uniform(scale=1e-2, dtype=jnp.float32):
    """Uniform on [0, scale).

    >>> from jaxwg.nn.initializers import uniform
    >>> from jaxwg import random
    >>> bool((uniform(1.0)(random.PRNGKey(0), (100,)) < 1.0).all())
    True
    """
    def init(key, shape, dtype=dtype):
        return random.uniform(key, shape, dtype) * jnp.asarray(scale, dtype)
    return init


def normal(stddev=1e-2, dtype=jnp.float32):
    """Normal with standard deviation `stddev`.

    >>> from jaxwg.nn.initializers import normal
    >>> from jaxwg import random
    >>> normal()(random.PRNGKey(0), (2, 2)).shape
    (2, 2)
    """
    def init(key, shape, dtype=dtype):
        return random.normal(key, shape, dtype) * jnp.asarray(stddev, dtype)
    return init


def truncated_normal(stddev=1e-2, dtype=jnp.float32, lower=-2.0, upper=2.0):
    """A normal truncated to [lower, upper] standard deviations, scaled by `stddev`.

    >>> from jaxwg.nn.initializers import truncated_normal
    >>> from jaxwg import random
    >>> bool((abs(truncated_normal(1.0)(random.PRNGKey(0), (100,))) < 2).all())
    True
    """
    def init(key, shape, dtype=dtype):
        return random.truncated_normal(key, lower, upper, shape, dtype) * jnp.asarray(stddev, dtype)
    return init


def _fans(shape, in_axis, out_axis, batch_axis) -> tuple[float, float]:
    if isinstance(in_axis, int) and in_axis == -2 and len(shape) <= 1:
        raise ValueError(f"Can't compute input and output sizes of a {len(shape)}-dimensional "
                         "weights tensor with default in_axis. Must be at least 2D or specify "
                         "in_axis explicitly.")

    def size(axes):
        return shape[axes] if isinstance(axes, int) else math.prod(shape[i] for i in axes)

    receptive = math.prod(shape) / size(in_axis) / size(out_axis) / size(batch_axis)
    return size(in_axis) * receptive, size(out_axis) * receptive


def variance_scaling(scale, mode: str, distribution: str, in_axis=-2, out_axis=-1,
                     batch_axis=(), dtype=jnp.float32):
    """Samples whose variance is `scale` over the fan (`mode`: fan_in, fan_out, fan_avg,
    fan_geo_avg), from `distribution` (truncated_normal, normal, uniform).

    >>> from jaxwg.nn.initializers import variance_scaling
    >>> from jaxwg import random
    >>> variance_scaling(2.0, "fan_in", "normal")(random.PRNGKey(0), (64, 32)).shape
    (64, 32)
    """
    def init(key, shape, dtype=dtype):
        fan_in, fan_out = _fans(tuple(shape), in_axis, out_axis, batch_axis)
        denominator = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2,
                       "fan_geo_avg": (fan_in * fan_out) ** 0.5}.get(mode)
        if denominator is None:
            raise ValueError(f"invalid mode for variance scaling initializer: {mode}")
        variance = jnp.asarray(scale / denominator, dtype)
        if distribution == "truncated_normal":
            # the standard deviation of a standard normal truncated to (-2, 2)
            stddev = jnp.sqrt(variance) / jnp.asarray(.87962566103423978, dtype)
            return random.truncated_normal(key, -2, 2, shape, dtype) * stddev
        if distribution == "normal":
            return random.normal(key, shape, dtype) * jnp.sqrt(variance)
        if distribution == "uniform":
            return random.uniform(key, shape, dtype, -1) * jnp.sqrt(3 * variance)
        raise ValueError(f"invalid distribution for variance scaling initializer: {distribution}")
    return init


def _preset(scale, mode, distribution, name):
    def make(in_axis=-2, out_axis=-1, batch_axis=(), dtype=jnp.float32):
        return variance_scaling(scale, mode, distribution, in_axis, out_axis, batch_axis, dtype)

    make.__name__ = make.__qualname__ = name
    make.__doc__ = (f"`variance_scaling({scale}, {mode!r}, {distribution!r})`.\n\n"
                    "    >>> from jaxwg import random\n"
                    f"    >>> from jaxwg.nn.initializers import {name}\n"
                    f"    >>> {name}()(random.PRNGKey(0), (4, 3)).shape\n    (4, 3)\n")
    return make


glorot_uniform = xavier_uniform = _preset(1.0, "fan_avg", "uniform", "glorot_uniform")
glorot_normal = xavier_normal = _preset(1.0, "fan_avg", "truncated_normal", "glorot_normal")
lecun_uniform = _preset(1.0, "fan_in", "uniform", "lecun_uniform")
lecun_normal = _preset(1.0, "fan_in", "truncated_normal", "lecun_normal")
he_uniform = kaiming_uniform = _preset(2.0, "fan_in", "uniform", "he_uniform")
he_normal = kaiming_normal = _preset(2.0, "fan_in", "truncated_normal", "he_normal")


def orthogonal(scale=1.0, column_axis=-1, dtype=jnp.float32):
    """Uniformly distributed (Haar) orthogonal matrices times `scale`: the axes other than
    `column_axis` flatten into rows, and the rows or the columns (whichever are fewer)
    are orthonormal, as JAX's (the same matrices up to rounding for equal keys).

    >>> from jaxwg.nn.initializers import orthogonal
    >>> import jaxwg.numpy as jnp
    >>> from jaxwg import random
    >>> w = orthogonal()(random.PRNGKey(0), (3, 5))
    >>> bool(jnp.allclose(w @ w.T, jnp.eye(3), atol=1e-5))
    True
    """
    def init(key, shape, dtype=dtype):
        shape = tuple(shape)
        if len(shape) < 2:
            raise ValueError("orthogonal initializer requires at least a 2D shape")
        if 0 in shape:
            return jnp.zeros(shape, dtype)
        axis = column_axis % len(shape)
        n_cols = shape[axis]
        q = random.orthogonal(key, math.prod(shape) // n_cols, (), dtype, n_cols)
        q = jnp.reshape(q, shape[:axis] + shape[axis + 1:] + (n_cols,))
        return jnp.asarray(scale, dtype) * jnp.moveaxis(q, -1, axis)
    return init
