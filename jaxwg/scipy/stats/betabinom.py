"""The beta-binomial distribution, as `jax.scipy.stats.betabinom`.

>>> from jaxwg.scipy.stats import betabinom
>>> round(betabinom.pmf(1.0, 2.0, 1.0, 1.0).item(), 6)
0.333333
"""

from __future__ import annotations

from ... import numpy as jnp
from ..special import betaln
from ._util import promote_args_inexact

__all__ = ["logpmf", "pmf"]


def logpmf(k, n, a, b, loc=0):
    """log of the beta-binomial mass C(n, k) B(k + a, n - k + b) / B(a, b), k floored.

    >>> from jaxwg.scipy.stats.betabinom import logpmf
    >>> logpmf(0.0, 0.0, 1.0, 1.0).item()
    0.0
    """
    k, n, a, b, loc = promote_args_inexact("betabinom.logpmf", k, n, a, b, loc)
    y = jnp.floor(k) - loc
    combiln = -(jnp.log1p(n) + betaln(n - y + 1, y + 1))
    beta_lns = betaln(y + a, n - y + b) - betaln(a, b)
    log_probs = jnp.where((y == 0) & (n == 0), 0.0, combiln + beta_lns)
    y_cond = (y < -loc) | (y > n) | (y + a <= 0)
    log_probs = jnp.where(y_cond, -jnp.inf, log_probs)
    return jnp.where((n < 0) | (a <= 0) | (b <= 0), jnp.nan, log_probs)


def pmf(k, n, a, b, loc=0):
    """The beta-binomial mass function.

    >>> from jaxwg.scipy.stats.betabinom import pmf
    >>> round(pmf(0.0, 1.0, 1.0, 1.0).item(), 6)
    0.5
    """
    return jnp.exp(logpmf(k, n, a, b, loc))
