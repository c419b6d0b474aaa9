"""The left-skewed Gumbel distribution, as `jax.scipy.stats.gumbel_l`.

>>> from jaxwg.scipy.stats import gumbel_l
>>> round(gumbel_l.sf(0.0).item(), 6)
0.367879
"""

from __future__ import annotations

from ... import numpy as jnp
from ..special import xlog1py, xlogy
from ._util import promote_args_inexact

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "ppf", "sf"]


def logpdf(x, loc=0, scale=1):
    """log of the left Gumbel density: -log(scale) + z - exp(z), z = (x - loc) / scale
    (NaN unless scale > 0).

    >>> from jaxwg.scipy.stats.gumbel_l import logpdf
    >>> logpdf(0.0).item()
    -1.0
    """
    x, loc, scale = promote_args_inexact("gumbel_l.logpdf", x, loc, scale)
    z = (x - loc) / scale
    log_pdf = xlogy(-1, scale) + (z - jnp.exp(z))
    return jnp.where(scale > 0, log_pdf, jnp.nan)


def pdf(x, loc=0, scale=1):
    """The left Gumbel density.

    >>> from jaxwg.scipy.stats.gumbel_l import pdf
    >>> round(pdf(0.0).item(), 6)
    0.367879
    """
    return jnp.exp(logpdf(x, loc, scale))


def logcdf(x, loc=0, scale=1):
    """log of the left Gumbel distribution function, log(-expm1(-exp(z))).

    >>> from jaxwg.scipy.stats.gumbel_l import logcdf
    >>> round(logcdf(0.0).item(), 6)
    -0.458675
    """
    x, loc, scale = promote_args_inexact("gumbel_l.logcdf", x, loc, scale)
    z = (x - loc) / scale
    return jnp.where(scale > 0, jnp.log(-jnp.expm1(-jnp.exp(z))), jnp.nan)


def cdf(x, loc=0, scale=1):
    """The left Gumbel distribution function 1 - exp(-exp(z)).

    >>> from jaxwg.scipy.stats.gumbel_l import cdf
    >>> round(cdf(0.0).item(), 6)
    0.632121
    """
    return jnp.exp(logcdf(x, loc, scale))


def ppf(p, loc=0, scale=1):
    """The left Gumbel quantile function loc + scale log(-log1p(-p)) (NaN outside (0, 1)).

    >>> from jaxwg.scipy.stats.gumbel_l import ppf
    >>> ppf(1.0).item()
    nan
    """
    p, loc, scale = promote_args_inexact("gumbel_l.ppf", p, loc, scale)
    quantile = loc + scale * jnp.log(xlog1py(-1, -p))
    return jnp.where((p > 0) & (p < 1), quantile, jnp.nan)


def sf(x, loc=0, scale=1):
    """The left Gumbel survival function exp(-exp(z)).

    >>> from jaxwg.scipy.stats.gumbel_l import sf
    >>> round(sf(1.0, 1.0).item(), 6)
    0.367879
    """
    return jnp.exp(logsf(x, loc, scale))


def logsf(x, loc=0, scale=1):
    """log of the left Gumbel survival function, -exp(z).

    >>> from jaxwg.scipy.stats.gumbel_l import logsf
    >>> logsf(0.0).item()
    -1.0
    """
    x, loc, scale = promote_args_inexact("gumbel_l.logsf", x, loc, scale)
    z = (x - loc) / scale
    return jnp.where(scale > 0, -jnp.exp(z), jnp.nan)
