"""The gamma distribution, as `jax.scipy.stats.gamma`.

>>> from jaxwg.scipy.stats import gamma
>>> round(gamma.pdf(0.0, 1.0).item(), 5)
1.0
"""

from __future__ import annotations

from ... import numpy as jnp
from ..special import gammainc, gammaincc, gammaln, xlogy
from ._util import clipped_standardized, promote_args_inexact

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "sf"]


def logpdf(x, a, loc=0, scale=1):
    """log of the gamma density y^(a-1) e^-y / (Gamma(a) scale), y = (x - loc) / scale.

    >>> from jaxwg.scipy.stats.gamma import logpdf
    >>> round(logpdf(1.0, 1.0).item(), 6)
    -1.0
    """
    x, a, loc, scale = promote_args_inexact("gamma.logpdf", x, a, loc, scale)
    ok = x >= loc
    y = jnp.where(ok, (x - loc) / scale, 1)
    log_linear_term = xlogy(a - 1, y) - y
    shape_terms = gammaln(a) + jnp.log(scale)
    return jnp.where(ok, log_linear_term - shape_terms, -jnp.inf)


def pdf(x, a, loc=0, scale=1):
    """The gamma density.

    >>> from jaxwg.scipy.stats.gamma import pdf
    >>> round(pdf(1.0, 2.0).item(), 4)
    0.3679
    """
    return jnp.exp(logpdf(x, a, loc, scale))



def cdf(x, a, loc=0, scale=1):
    """The gamma distribution function P(a, (x - loc) / scale).

    >>> from jaxwg.scipy.stats.gamma import cdf
    >>> round(cdf(1.0, 1.0).item(), 5)
    0.63212
    """
    x, a, loc, scale = promote_args_inexact("gamma.cdf", x, a, loc, scale)
    return gammainc(a, clipped_standardized(x, loc, scale))


def logcdf(x, a, loc=0, scale=1):
    """log of the gamma distribution function.

    >>> from jaxwg.scipy.stats.gamma import logcdf
    >>> round(logcdf(1.0, 1.0).item(), 5)
    -0.45868
    """
    return jnp.log(cdf(x, a, loc, scale))


def sf(x, a, loc=0, scale=1):
    """The gamma survival function Q(a, (x - loc) / scale).

    >>> from jaxwg.scipy.stats.gamma import sf
    >>> round(sf(1.0, 1.0).item(), 5)
    0.36788
    """
    x, a, loc, scale = promote_args_inexact("gamma.sf", x, a, loc, scale)
    y = (x - loc) / scale
    return jnp.where(y < 0, 1, gammaincc(a, y))


def logsf(x, a, loc=0, scale=1):
    """log of the gamma survival function.

    >>> from jaxwg.scipy.stats.gamma import logsf
    >>> round(logsf(1.0, 1.0).item(), 5)
    -1.0
    """
    return jnp.log(sf(x, a, loc, scale))
