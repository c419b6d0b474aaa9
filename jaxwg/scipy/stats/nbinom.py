"""The negative binomial distribution, as `jax.scipy.stats.nbinom`.

>>> from jaxwg.scipy.stats import nbinom
>>> round(nbinom.pmf(0.0, 1.0, 0.5).item(), 6)
0.5
"""

from __future__ import annotations

from ... import numpy as jnp
from ..special import gammaln, xlogy
from ._util import promote_args_inexact

__all__ = ["logpmf", "pmf"]


def logpmf(k, n, p, loc=0):
    """log of the negative binomial mass C(k + n - 1, k) p^n (1 - p)^k.

    >>> from jaxwg.scipy.stats.nbinom import logpmf
    >>> logpmf(-1.0, 1.0, 0.5).item()
    -inf
    """
    k, n, p, loc = promote_args_inexact("nbinom.logpmf", k, n, p, loc)
    y = k - loc
    comb_term = gammaln(y + n) - gammaln(n) - gammaln(y + 1)
    log_linear_term = xlogy(n, p) + xlogy(y, 1 - p)
    return jnp.where(k < loc, -jnp.inf, comb_term + log_linear_term)


def pmf(k, n, p, loc=0):
    """The negative binomial mass function.

    >>> from jaxwg.scipy.stats.nbinom import pmf
    >>> round(pmf(1.0, 1.0, 0.5).item(), 6)
    0.25
    """
    return jnp.exp(logpmf(k, n, p, loc))
