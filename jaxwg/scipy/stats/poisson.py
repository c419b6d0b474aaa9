"""The Poisson distribution, as `jax.scipy.stats.poisson`.

>>> from jaxwg.scipy.stats import poisson
>>> round(poisson.pmf(0.0, 1.0).item(), 6)
0.367879
"""

from __future__ import annotations

import numpy as np

from ...frontend.jit import jit
from ... import numpy as jnp
from ...numpy._util import check_arraylike, promote, to_array
from ..special import entr, gammaincc, gammaln, xlogy
from ._util import promote_args_inexact

__all__ = ["cdf", "entropy", "logpmf", "pmf"]


def logpmf(k, mu, loc=0):
    """log of the Poisson mass mu^k e^-mu / k! (-inf where k - loc is negative or k is
    not an integer).

    >>> from jaxwg.scipy.stats.poisson import logpmf
    >>> round(logpmf(0.0, 2.0).item(), 6)
    -2.0
    """
    k, mu, loc = promote_args_inexact("poisson.logpmf", k, mu, loc)
    x = k - loc
    log_probs = xlogy(x, mu) - gammaln(x + 1) - mu
    return jnp.where((x < 0) | (jnp.round(k) != k), -jnp.inf, log_probs)


def pmf(k, mu, loc=0):
    """The Poisson mass function.

    >>> from jaxwg.scipy.stats.poisson import pmf
    >>> round(pmf(1.0, 1.0).item(), 6)
    0.367879
    """
    return jnp.exp(logpmf(k, mu, loc))


def cdf(k, mu, loc=0):
    """The Poisson distribution function Q(floor(k - loc) + 1, mu).

    >>> from jaxwg.scipy.stats.poisson import cdf
    >>> round(cdf(0.0, 1.0).item(), 5)
    0.36788
    """
    k, mu, loc = promote_args_inexact("poisson.logpmf", k, mu, loc)  # JAX's name
    x = k - loc
    p = gammaincc(jnp.floor(1 + x), mu)
    return jnp.where(x < 0, 0, p)


@jit
def entropy(mu, loc=0):
    """The entropy of the Poisson distribution: a sum over its mass for mu < 100, the
    asymptotic series above (0 at mu = 0).

    >>> from jaxwg.scipy.stats.poisson import entropy
    >>> round(entropy(1.0).item(), 5)
    1.30484
    """
    check_arraylike("poisson.entropy", mu, loc)
    mu, loc = promote(to_array(mu), to_array(loc), to_inexact=True)
    shape = jnp.broadcast_shapes(mu.shape, loc.shape)
    flat = jnp.ravel(mu)
    result = jnp.where(flat == 0, jnp.zeros_like(flat),
                       jnp.where(flat < 10, _entropy_sum(flat, 35, 0, 20),
                                 jnp.where(flat < 100, _entropy_sum(flat, 250, 10, 20),
                                           _entropy_large_mu(flat))))
    return jnp.broadcast_to(jnp.reshape(result, mu.shape), shape)


def _entropy_sum(mu, terms, spread, margin):
    """-sum p log p over the first `terms` k, masked to k < ceil(mu + spread sqrt(mu) + margin)."""
    k = jnp.arange(terms, dtype=mu.dtype)[:, None]
    probs = pmf(k, mu, 0)
    # no sqrt term where there is no spread: sqrt of a negative mu would hide its NaN
    reach = mu + spread * jnp.sqrt(mu) if spread else mu
    upper = jnp.ceil(reach + margin).astype(k.dtype)
    return jnp.sum(entr(jnp.where(k < upper[None, :], probs, 0.0)), axis=0)


def _entropy_large_mu(mu):
    return 0.5 * jnp.log(2 * np.pi * np.e * mu) - 1.0 / (12 * mu)
