"""The right-skewed Gumbel distribution, as `jax.scipy.stats.gumbel_r`.

>>> from jaxwg.scipy.stats import gumbel_r
>>> round(gumbel_r.cdf(0.0).item(), 6)
0.367879
"""

from __future__ import annotations

from ... import numpy as jnp
from ...nn import log1mexp
from ..special import xlogy
from ._util import promote_args_inexact

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "ppf", "sf"]


def logpdf(x, loc=0, scale=1):
    """log of the Gumbel density: -log(scale) - z - exp(-z), z = (x - loc) / scale (NaN
    unless scale > 0).

    >>> from jaxwg.scipy.stats.gumbel_r import logpdf
    >>> logpdf(0.0).item()
    -1.0
    """
    x, loc, scale = promote_args_inexact("gumbel_r.logpdf", x, loc, scale)
    z = (x - loc) / scale
    log_pdf = xlogy(-1, scale) - (z + jnp.exp(-z))
    return jnp.where(scale > 0, log_pdf, jnp.nan)


def pdf(x, loc=0, scale=1):
    """The Gumbel density.

    >>> from jaxwg.scipy.stats.gumbel_r import pdf
    >>> round(pdf(0.0).item(), 6)
    0.367879
    """
    return jnp.exp(logpdf(x, loc, scale))


def logcdf(x, loc=0, scale=1):
    """log of the Gumbel distribution function, -exp(-z).

    >>> from jaxwg.scipy.stats.gumbel_r import logcdf
    >>> logcdf(0.0).item()
    -1.0
    """
    x, loc, scale = promote_args_inexact("gumbel_r.logcdf", x, loc, scale)
    z = (x - loc) / scale
    return jnp.where(scale > 0, -jnp.exp(-z), jnp.nan)


def cdf(x, loc=0, scale=1):
    """The Gumbel distribution function exp(-exp(-z)).

    >>> from jaxwg.scipy.stats.gumbel_r import cdf
    >>> round(cdf(1.0, 1.0).item(), 6)
    0.367879
    """
    return jnp.exp(logcdf(x, loc, scale))


def ppf(p, loc=0, scale=1):
    """The Gumbel quantile function loc - scale log(-log p) (NaN outside (0, 1)).

    >>> from jaxwg.scipy.stats.gumbel_r import ppf
    >>> ppf(0.0).item()
    nan
    """
    p, loc, scale = promote_args_inexact("gumbel_r.ppf", p, loc, scale)
    quantile = loc - scale * jnp.log(xlogy(-1, p))
    return jnp.where((p > 0) & (p < 1), quantile, jnp.nan)


def sf(x, loc=0, scale=1):
    """The Gumbel survival function 1 - exp(-exp(-z)).

    >>> from jaxwg.scipy.stats.gumbel_r import sf
    >>> round(sf(0.0).item(), 6)
    0.632121
    """
    x, loc, scale = promote_args_inexact("gumbel_r.sf", x, loc, scale)
    neg_z = (loc - x) / scale
    return jnp.where(scale > 0, 1 - jnp.exp(-jnp.exp(neg_z)), jnp.nan)


def logsf(x, loc=0, scale=1):
    """log of the Gumbel survival function, log1mexp(exp(-z)).

    >>> from jaxwg.scipy.stats.gumbel_r import logsf
    >>> round(logsf(0.0).item(), 6)
    -0.458675
    """
    x, loc, scale = promote_args_inexact("gumbel_r.logsf", x, loc, scale)
    neg_z = (loc - x) / scale
    return jnp.where(scale > 0, log1mexp(jnp.exp(neg_z)), jnp.nan)
