"""The Bernoulli distribution, as `jax.scipy.stats.bernoulli`.

>>> from jaxwg.scipy.stats import bernoulli
>>> bernoulli.pmf(1.0, 0.25).item()
0.25
"""

from __future__ import annotations

from ... import numpy as jnp
from ..special import xlog1py, xlogy
from ._util import promote_args_inexact

__all__ = ["cdf", "logpmf", "pmf", "ppf"]


def logpmf(k, p, loc=0):
    """log of the Bernoulli mass: log(p) at 1, log1p(-p) at 0, -inf outside [0, 1].

    >>> from jaxwg.scipy.stats.bernoulli import logpmf
    >>> logpmf(2.0, 0.5).item()
    -inf
    """
    k, p, loc = promote_args_inexact("bernoulli.logpmf", k, p, loc)
    x = k - loc
    log_probs = xlogy(x, p) + xlog1py(1 - x, -p)
    return jnp.where((x < 0) | (x > 1), -jnp.inf, log_probs)


def pmf(k, p, loc=0):
    """The Bernoulli mass function.

    >>> from jaxwg.scipy.stats.bernoulli import pmf
    >>> pmf(0.0, 0.25).item()
    0.75
    """
    return jnp.exp(logpmf(k, p, loc))


def cdf(k, p):
    """The Bernoulli distribution function (NaN for p outside [0, 1]).

    >>> from jaxwg.scipy.stats.bernoulli import cdf
    >>> cdf(0.0, 0.25).item()
    0.75
    """
    k, p = promote_args_inexact("bernoulli.cdf", k, p)
    conds = [jnp.isnan(k) | jnp.isnan(p) | (p < 0) | (p > 1), k < 0, (k >= 0) & (k < 1),
             k >= 1]
    zero, one = jnp.zeros_like(k), jnp.ones_like(k)
    return jnp.select(conds, [jnp.nan, zero, one - p, one])


def ppf(q, p):
    """The Bernoulli quantile function: 0 for q <= 1 - p, else 1 (NaN outside [0, 1]).

    >>> from jaxwg.scipy.stats.bernoulli import ppf
    >>> ppf(0.9, 0.25).item()
    1.0
    """
    q, p = promote_args_inexact("bernoulli.ppf", q, p)
    invalid = jnp.isnan(q) | jnp.isnan(p) | (p < 0) | (p > 1) | (q < 0) | (q > 1)
    return jnp.where(invalid, jnp.nan, jnp.where(q <= 1 - p, jnp.zeros_like(q), jnp.ones_like(q)))
