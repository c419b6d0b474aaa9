"""The exponential distribution, as `jax.scipy.stats.expon`.

>>> from jaxwg.scipy.stats import expon
>>> expon.pdf(0.0).item()
1.0
"""

from __future__ import annotations

from ... import numpy as jnp
from ._util import promote_args_inexact

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "ppf", "sf"]


def logpdf(x, loc=0, scale=1):
    """log of the exponential density: -(x - loc) / scale - log(scale) for x >= loc.

    >>> from jaxwg.scipy.stats.expon import logpdf
    >>> logpdf(-1.0).item()
    -inf
    """
    x, loc, scale = promote_args_inexact("expon.logpdf", x, loc, scale)
    log_probs = -((x - loc) / scale + jnp.log(scale))
    return jnp.where(x < loc, -jnp.inf, log_probs)


def pdf(x, loc=0, scale=1):
    """The exponential density exp(-(x - loc) / scale) / scale for x >= loc.

    >>> from jaxwg.scipy.stats.expon import pdf
    >>> pdf(0.0, 0.0, 2.0).item()
    0.5
    """
    return jnp.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    """The exponential distribution function -expm1(-(x - loc) / scale).

    >>> from jaxwg.scipy.stats.expon import cdf
    >>> round(cdf(1.0).item(), 6)
    0.632121
    """
    x, loc, scale = promote_args_inexact("expon.cdf", x, loc, scale)
    neg_scaled_x = (loc - x) / scale
    return jnp.where(x < loc, jnp.zeros_like(neg_scaled_x), -jnp.expm1(neg_scaled_x))


def logcdf(x, loc=0, scale=1):
    """log of the exponential distribution function, log1p(-sf).

    >>> from jaxwg.scipy.stats.expon import logcdf
    >>> round(logcdf(1.0).item(), 6)
    -0.458675
    """
    return jnp.log1p(-sf(x, loc, scale))


def logsf(x, loc=0, scale=1):
    """log of the exponential survival function, -(x - loc) / scale (0 below loc).

    >>> from jaxwg.scipy.stats.expon import logsf
    >>> logsf(2.0).item()
    -2.0
    """
    x, loc, scale = promote_args_inexact("expon.sf", x, loc, scale)
    neg_scaled_x = (loc - x) / scale
    return jnp.where(x < loc, jnp.zeros_like(neg_scaled_x), neg_scaled_x)


def sf(x, loc=0, scale=1):
    """The exponential survival function exp(-(x - loc) / scale).

    >>> from jaxwg.scipy.stats.expon import sf
    >>> sf(0.0).item()
    1.0
    """
    return jnp.exp(logsf(x, loc, scale))


def ppf(q, loc=0, scale=1):
    """The exponential quantile function loc - scale * log1p(-q) (NaN outside [0, 1]).

    >>> from jaxwg.scipy.stats.expon import ppf
    >>> ppf(0.0).item()
    0.0
    """
    q, loc, scale = promote_args_inexact("expon.ppf", q, loc, scale)
    return jnp.where(jnp.isnan(q) | (q < 0) | (q > 1), jnp.nan,
                     loc - scale * jnp.log1p(-q))
