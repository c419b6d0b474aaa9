"""The geometric distribution on 1, 2, ..., as `jax.scipy.stats.geom`.

>>> from jaxwg.scipy.stats import geom
>>> geom.pmf(1.0, 0.25).item()
0.25
"""

from __future__ import annotations

from ... import numpy as jnp
from ..special import xlog1py
from ._util import promote_args_inexact

__all__ = ["logpmf", "pmf"]


def logpmf(k, p, loc=0):
    """log of the geometric mass (1 - p)^(k - 1) p (-inf for k - loc <= 0).

    >>> from jaxwg.scipy.stats.geom import logpmf
    >>> logpmf(0.0, 0.5).item()
    -inf
    """
    k, p, loc = promote_args_inexact("geom.logpmf", k, p, loc)
    x = k - loc
    log_probs = xlog1py(x - 1, -p) + jnp.log(p)
    return jnp.where(x <= 0, -jnp.inf, log_probs)


def pmf(k, p, loc=0):
    """The geometric mass function.

    >>> from jaxwg.scipy.stats.geom import pmf
    >>> pmf(2.0, 0.5).item()
    0.25
    """
    return jnp.exp(logpmf(k, p, loc))
