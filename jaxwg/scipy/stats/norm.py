"""The normal distribution, as `jax.scipy.stats.norm`.

>>> from jaxwg.scipy.stats import norm
>>> norm.cdf(0.0).item()
0.5
"""

from __future__ import annotations

import numpy as np

from ... import numpy as jnp
from ..special import log_ndtr, ndtr, ndtri
from ._util import promote_args_inexact

__all__ = ["cdf", "isf", "logcdf", "logpdf", "logsf", "pdf", "ppf", "sf"]


def logpdf(x, loc=0, scale=1):
    """log of the normal density: -((x - loc)^2 / scale^2 + log(2 pi scale^2)) / 2.

    >>> from jaxwg.scipy.stats.norm import logpdf
    >>> round(logpdf(0.0).item(), 6)
    -0.918939
    """
    x, loc, scale = promote_args_inexact("norm.logpdf", x, loc, scale)
    scale_sqrd = jnp.square(scale)
    log_normalizer = jnp.log(2 * np.pi * scale_sqrd)
    quadratic = jnp.square(x - loc) / scale_sqrd
    return (log_normalizer + quadratic) / -2


def pdf(x, loc=0, scale=1):
    """The normal density.

    >>> from jaxwg.scipy.stats.norm import pdf
    >>> round(pdf(0.0).item(), 6)
    0.398942
    """
    return jnp.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    """The normal distribution function ndtr((x - loc) / scale).

    >>> from jaxwg.scipy.stats.norm import cdf
    >>> cdf(1.0, 1.0).item()
    0.5
    """
    x, loc, scale = promote_args_inexact("norm.cdf", x, loc, scale)
    return ndtr((x - loc) / scale)


def logcdf(x, loc=0, scale=1):
    """log of the normal distribution function, log_ndtr((x - loc) / scale).

    >>> from jaxwg.scipy.stats.norm import logcdf
    >>> round(logcdf(0.0).item(), 6)
    -0.693147
    """
    x, loc, scale = promote_args_inexact("norm.logcdf", x, loc, scale)
    return log_ndtr((x - loc) / scale)


def ppf(q, loc=0, scale=1):
    """The normal quantile function loc + scale ndtri(q), in the default float dtype.

    >>> from jaxwg.scipy.stats.norm import ppf
    >>> ppf(0.5, 2.0).item()
    2.0
    """
    return jnp.asarray(ndtri(q) * scale + loc, float)


def logsf(x, loc=0, scale=1):
    """log of the normal survival function, logcdf(-x, -loc, scale).

    >>> from jaxwg.scipy.stats.norm import logsf
    >>> round(logsf(0.0).item(), 6)
    -0.693147
    """
    x, loc, scale = promote_args_inexact("norm.logsf", x, loc, scale)
    return logcdf(-x, -loc, scale)


def sf(x, loc=0, scale=1):
    """The normal survival function, cdf(-x, -loc, scale).

    >>> from jaxwg.scipy.stats.norm import sf
    >>> sf(0.0).item()
    0.5
    """
    x, loc, scale = promote_args_inexact("norm.sf", x, loc, scale)
    return cdf(-x, -loc, scale)


def isf(q, loc=0, scale=1):
    """The normal inverse survival function ppf(1 - q).

    >>> from jaxwg.scipy.stats.norm import isf
    >>> isf(0.5).item()
    0.0
    """
    return ppf(1 - jnp.asarray(q), loc, scale)
