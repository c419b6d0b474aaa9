"""More `jax.nn` activations: `identity`, `tanh`, `soft_sign`, `squareplus`,
`sparse_plus`, `sparse_sigmoid`, `log1mexp` (JAX's custom derivative, 1 / expm1(x))
and `logmeanexp`, with `jax.nn`'s formulas, so their dtypes and derivatives are JAX's.

>>> import jaxwg.numpy as jnp
>>> from jaxwg import nn
>>> nn.soft_sign(jnp.array([-1.0, 3.0])).tolist()
[-0.5, 0.75]
"""

from __future__ import annotations

import numpy as np

from .. import numpy as jnp
from ..numpy._util import check_arraylike
from ..transforms.custom import custom_jvp

__all__ = ["identity", "log1mexp", "logmeanexp", "soft_sign", "sparse_plus", "sparse_sigmoid",
           "squareplus", "tanh"]

tanh = jnp.tanh  # jax.nn.tanh is jax.numpy.tanh


def identity(x):
    """`x` unchanged, as an array (a TypeError for non-arrays, as JAX).

    >>> from jaxwg.nn import identity
    >>> import jaxwg.numpy as jnp
    >>> identity(jnp.array([-2.0, 0.5])).tolist()
    [-2.0, 0.5]
    """
    check_arraylike("identity", x)
    return jnp.asarray(x)


def soft_sign(x):
    """x / (|x| + 1).

    >>> from jaxwg.nn import soft_sign
    >>> soft_sign(1.0).item()
    0.5
    """
    check_arraylike("soft_sign", x)
    x = jnp.asarray(x)
    return x / (jnp.abs(x) + 1)


def squareplus(x, b=4):
    """(x + sqrt(x^2 + b)) / 2, a smooth relu.

    >>> from jaxwg.nn import squareplus
    >>> squareplus(0.0).item()
    1.0
    """
    check_arraylike("squareplus", x, b)
    x, b = jnp.asarray(x), jnp.asarray(b)
    return (x + jnp.sqrt(jnp.square(x) + b)) / 2


def sparse_plus(x):
    """0 for x <= -1, x for x >= 1, (x + 1)^2 / 4 between.

    >>> from jaxwg.nn import sparse_plus
    >>> import jaxwg.numpy as jnp
    >>> sparse_plus(jnp.array([-2.0, 0.0, 2.0])).tolist()
    [0.0, 0.25, 2.0]
    """
    check_arraylike("sparse_plus", x)
    x = jnp.asarray(x)
    return jnp.where(x <= -1.0, 0.0, jnp.where(x >= 1.0, x, (x + 1.0) ** 2 / 4))


def sparse_sigmoid(x):
    """clip(x + 1, 0, 2) / 2, the derivative of `sparse_plus`.

    >>> from jaxwg.nn import sparse_sigmoid
    >>> import jaxwg.numpy as jnp
    >>> sparse_sigmoid(jnp.array([-2.0, 0.0, 2.0])).tolist()
    [0.0, 0.5, 1.0]
    """
    return 0.5 * jnp.clip(x + 1.0, 0.0, 2.0)


@custom_jvp
def log1mexp(x):
    """log(1 - exp(-x)), through expm1 below log 2 and log1p above (as JAX), with
    derivative 1 / expm1(x).

    >>> import numpy as np
    >>> from jaxwg.nn import log1mexp
    >>> import jaxwg
    >>> jaxwg.grad(log1mexp)(float(np.log(2.0))).item()
    1.0
    """
    check_arraylike("log1mexp", x)
    x = jnp.asarray(x)
    return jnp.where(x < jnp.log(2.0), jnp.log(-jnp.expm1(-x)), jnp.log1p(-jnp.exp(-x)))


log1mexp.defjvps(lambda g, ans, x: g / jnp.expm1(x))


def logmeanexp(x, axis=None, where=None, keepdims: bool = False):
    """log(mean(exp(x))) along `axis` over the elements `where` allows: `logsumexp`
    less the log of their count.

    >>> from jaxwg.nn import logmeanexp
    >>> import jaxwg.numpy as jnp
    >>> logmeanexp(jnp.array([0.0, 0.0])).item()
    0.0
    """
    from . import logsumexp

    check_arraylike("logmeanexp", x)
    lse = logsumexp(x, axis=axis, where=where, keepdims=keepdims)
    ones = jnp.ones(jnp.shape(x), lse.dtype)
    count = jnp.sum(ones, axis=axis, where=where, keepdims=keepdims)
    return lse - jnp.log(count)
