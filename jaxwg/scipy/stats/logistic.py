"""The logistic distribution, as `jax.scipy.stats.logistic`.

>>> from jaxwg.scipy.stats import logistic
>>> logistic.cdf(0.0).item()
0.5
"""

from __future__ import annotations

from ... import numpy as jnp
from ..special import expit, logit
from ._util import promote_args_inexact

__all__ = ["cdf", "isf", "logpdf", "pdf", "ppf", "sf"]


def logpdf(x, loc=0, scale=1):
    """log of the logistic density: -2 logaddexp(z / 2, -z / 2) - log(scale), z = (x - loc) / scale.

    >>> from jaxwg.scipy.stats.logistic import logpdf
    >>> round(logpdf(0.0).item(), 6)
    -1.386294
    """
    x, loc, scale = promote_args_inexact("logistic.logpdf", x, loc, scale)
    x = (x - loc) / scale
    half_x = x / 2
    return -2 * jnp.logaddexp(half_x, -half_x) - jnp.log(scale)


def pdf(x, loc=0, scale=1):
    """The logistic density.

    >>> from jaxwg.scipy.stats.logistic import pdf
    >>> pdf(0.0).item()
    0.25
    """
    return jnp.exp(logpdf(x, loc, scale))


def ppf(x, loc=0, scale=1):
    """The logistic quantile function loc + scale * logit(x).

    >>> from jaxwg.scipy.stats.logistic import ppf
    >>> ppf(0.5).item()
    0.0
    """
    x, loc, scale = promote_args_inexact("logistic.ppf", x, loc, scale)
    return logit(x) * scale + loc


def sf(x, loc=0, scale=1):
    """The logistic survival function expit(-(x - loc) / scale).

    >>> from jaxwg.scipy.stats.logistic import sf
    >>> sf(0.0).item()
    0.5
    """
    x, loc, scale = promote_args_inexact("logistic.sf", x, loc, scale)
    return expit(-((x - loc) / scale))


def isf(x, loc=0, scale=1):
    """The logistic inverse survival function loc - scale * logit(x).

    >>> from jaxwg.scipy.stats.logistic import isf
    >>> isf(0.5, 1.0).item()
    1.0
    """
    x, loc, scale = promote_args_inexact("logistic.isf", x, loc, scale)
    return -logit(x) * scale + loc


def cdf(x, loc=0, scale=1):
    """The logistic distribution function expit((x - loc) / scale).

    >>> from jaxwg.scipy.stats.logistic import cdf
    >>> cdf(1.0, 1.0).item()
    0.5
    """
    x, loc, scale = promote_args_inexact("logistic.cdf", x, loc, scale)
    return expit((x - loc) / scale)
