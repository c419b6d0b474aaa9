"""The beta distribution, as `jax.scipy.stats.beta`.

>>> from jaxwg.scipy.stats import beta
>>> round(beta.pdf(0.5, 1.0, 1.0).item(), 5)
1.0
"""

from __future__ import annotations

from ... import numpy as jnp
from ..special import betainc, betaln, xlog1py, xlogy
from ._util import clipped_standardized, promote_args_inexact

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "sf"]


def logpdf(x, a, b, loc=0, scale=1):
    """log of the beta density y^(a-1) (1-y)^(b-1) / (B(a, b) scale), y = (x - loc) / scale
    (-inf outside [loc, loc + scale]; NaN unless a, b and scale are positive).

    >>> from jaxwg.scipy.stats.beta import logpdf
    >>> round(logpdf(0.5, 1.0, 1.0).item(), 5)
    -0.0
    """
    x, a, b, loc, scale = promote_args_inexact("beta.logpdf", x, a, b, loc, scale)
    shape_term = -betaln(a, b)
    y = (x - loc) / scale
    log_linear_term = xlogy(a - 1, y) + xlog1py(b - 1, -y)
    log_probs = shape_term + log_linear_term - jnp.log(scale)
    result = jnp.where((x > loc + scale) | (x < loc), -jnp.inf, log_probs)
    return jnp.where((a <= 0) | (b <= 0) | (scale <= 0), jnp.nan, result)


def pdf(x, a, b, loc=0, scale=1):
    """The beta density.

    >>> from jaxwg.scipy.stats.beta import pdf
    >>> round(pdf(0.5, 2.0, 2.0).item(), 5)
    1.5
    """
    return jnp.exp(logpdf(x, a, b, loc, scale))


def cdf(x, a, b, loc=0, scale=1):
    """The beta distribution function I_y(a, b) (`betainc`).

    >>> from jaxwg.scipy.stats.beta import cdf
    >>> round(cdf(0.5, 2.0, 2.0).item(), 5)
    0.5
    """
    x, a, b, loc, scale = promote_args_inexact("beta.cdf", x, a, b, loc, scale)
    return betainc(a, b, clipped_standardized(x, loc, scale, 1))


def logcdf(x, a, b, loc=0, scale=1):
    """log of the beta distribution function.

    >>> from jaxwg.scipy.stats.beta import logcdf
    >>> round(logcdf(0.5, 1.0, 1.0).item(), 5)
    -0.69315
    """
    return jnp.log(cdf(x, a, b, loc, scale))


def sf(x, a, b, loc=0, scale=1):
    """The beta survival function I_(1-y)(b, a).

    >>> from jaxwg.scipy.stats.beta import sf
    >>> round(sf(0.25, 1.0, 1.0).item(), 6)
    0.75
    """
    x, a, b, loc, scale = promote_args_inexact("beta.sf", x, a, b, loc, scale)
    return betainc(b, a, 1 - clipped_standardized(x, loc, scale, 1))


def logsf(x, a, b, loc=0, scale=1):
    """log of the beta survival function.

    >>> from jaxwg.scipy.stats.beta import logsf
    >>> round(logsf(0.5, 1.0, 1.0).item(), 5)
    -0.69315
    """
    return jnp.log(sf(x, a, b, loc, scale))
