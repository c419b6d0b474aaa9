"""`jaxwg.scipy.special`: error functions, the logistic function and its inverse,
`xlogy`/`xlog1py`, and the softmax family, as `jax.scipy.special`.

>>> import jaxwg.numpy as jnp
>>> from jaxwg.scipy import special
>>> special.xlogy(jnp.array([0.0, 2.0]), jnp.array([0.0, 1.0])).tolist()
[0.0, 0.0]
"""

from __future__ import annotations

from .. import lax
from .. import numpy as jnp
from .. import nn
from ..nn import logsumexp

__all__ = ["erf", "erfc", "erfinv", "expit", "log_softmax", "logit", "logsumexp", "softmax",
           "xlog1py", "xlogy"]


def _inexact(*xs):
    dtype = jnp.result_type(*xs, jnp.float32)
    return [jnp.asarray(x, dtype=dtype) for x in xs]


def erf(x):
    """The error function.

    >>> round(erf(1.0).item(), 6)
    0.842701
    """
    return lax.erf(*_inexact(x))


def erfc(x):
    """1 - erf(x), accurate where erf(x) is near 1.

    >>> round(erfc(3.0).item(), 8)
    2.209e-05
    """
    return lax.erfc(*_inexact(x))


def erfinv(x):
    """The inverse error function (`lax.erf_inv`).

    >>> round(erfinv(0.5).item(), 6)
    0.476936
    """
    return lax.erf_inv(*_inexact(x))


def expit(x):
    """The logistic function 1 / (1 + exp(-x)).

    >>> expit(0.0).item()
    0.5
    """
    return lax.logistic(*_inexact(x))


def logit(x):
    """log(x / (1 - x)), the inverse of `expit`.

    >>> logit(0.5).item()
    0.0
    """
    (x,) = _inexact(x)
    return lax.log(lax.div(x, lax.sub(lax.full_like(x, 1), x)))


def xlogy(x, y):
    """x * log(y), and 0 where x is 0 (even where log(y) is not finite).

    >>> xlogy(2.0, 1.0).item()
    0.0
    """
    x, y = _inexact(x, y)
    return jnp.where(x != 0, x * jnp.log(y), jnp.zeros_like(x * y))


def xlog1py(x, y):
    """x * log1p(y), and 0 where x is 0.

    >>> xlog1py(0.0, -1.0).item()
    0.0
    """
    x, y = _inexact(x, y)
    return jnp.where(x != 0, x * jnp.log1p(y), jnp.zeros_like(x * y))


def _all_axes(x, axis):
    return tuple(range(jnp.ndim(x))) if axis is None else axis


def softmax(x, axis=None):
    """exp(x) / sum(exp(x)) over `axis` (all axes by default, unlike `jaxwg.nn.softmax`).

    >>> import jaxwg.numpy as jnp
    >>> softmax(jnp.zeros((2, 2))).tolist()
    [[0.25, 0.25], [0.25, 0.25]]
    """
    return nn.softmax(x, axis=_all_axes(x, axis))


def log_softmax(x, axis=None):
    """x - logsumexp(x) over `axis` (all axes by default).

    >>> import jaxwg.numpy as jnp
    >>> [round(v, 6) for v in log_softmax(jnp.zeros(2)).tolist()]
    [-0.693147, -0.693147]
    """
    return nn.log_softmax(x, axis=_all_axes(x, axis))

