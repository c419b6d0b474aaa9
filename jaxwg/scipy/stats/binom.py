"""The binomial distribution, as `jax.scipy.stats.binom`.

>>> from jaxwg.scipy.stats import binom
>>> round(binom.pmf(1.0, 2.0, 0.5).item(), 6)
0.5
"""

from __future__ import annotations

from ... import numpy as jnp
from ..special import gammaln, xlog1py, xlogy
from ._util import promote_args_inexact

__all__ = ["logpmf", "pmf"]


def logpmf(k, n, p, loc=0):
    """log of the binomial mass C(n, k) p^k (1 - p)^(n - k).

    >>> from jaxwg.scipy.stats.binom import logpmf
    >>> logpmf(0.0, 0.0, 0.5).item()
    0.0
    """
    k, n, p, loc = promote_args_inexact("binom.logpmf", k, n, p, loc)
    y = k - loc
    comb_term = gammaln(n + 1) - (gammaln(y + 1) + gammaln(n - y + 1))
    log_linear_term = xlogy(y, p) + xlog1py(n - y, -p)
    log_probs = comb_term + log_linear_term
    y_n_cond = ((y == 0) & (n == 0)) | (log_linear_term == 0)
    log_probs = jnp.where(y_n_cond, 0.0, log_probs)
    return jnp.where((k >= loc) & (k < loc + n + 1), log_probs, -jnp.inf)


def pmf(k, n, p, loc=0):
    """The binomial mass function.

    >>> from jaxwg.scipy.stats.binom import pmf
    >>> round(pmf(2.0, 2.0, 0.5).item(), 6)
    0.25
    """
    return jnp.exp(logpmf(k, n, p, loc))
