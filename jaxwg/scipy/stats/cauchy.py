"""The Cauchy distribution, as `jax.scipy.stats.cauchy`.

>>> from jaxwg.scipy.stats import cauchy
>>> cauchy.cdf(0.0).item()
0.5
"""

from __future__ import annotations

import numpy as np

from ... import numpy as jnp
from ._util import promote_args_inexact

__all__ = ["cdf", "isf", "logcdf", "logpdf", "logsf", "pdf", "ppf", "sf"]


def logpdf(x, loc=0, scale=1):
    """log of the Cauchy density: -log(pi scale) - log1p(z^2), z = (x - loc) / scale.

    >>> from jaxwg.scipy.stats.cauchy import logpdf
    >>> round(logpdf(0.0).item(), 6)
    -1.14473
    """
    x, loc, scale = promote_args_inexact("cauchy.logpdf", x, loc, scale)
    scaled_x = (x - loc) / scale
    return -(jnp.log(np.pi * scale) + jnp.log1p(scaled_x * scaled_x))


def pdf(x, loc=0, scale=1):
    """The Cauchy density 1 / (pi scale (1 + z^2)).

    >>> from jaxwg.scipy.stats.cauchy import pdf
    >>> round(pdf(1.0).item(), 6)
    0.159155
    """
    return jnp.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    """The Cauchy distribution function 1/2 + arctan(z) / pi.

    >>> from jaxwg.scipy.stats.cauchy import cdf
    >>> cdf(1.0).item()
    0.75
    """
    x, loc, scale = promote_args_inexact("cauchy.cdf", x, loc, scale)
    scaled_x = (x - loc) / scale
    return 0.5 + (1.0 / np.pi) * jnp.arctan(scaled_x)


def logcdf(x, loc=0, scale=1):
    """log of the Cauchy distribution function.

    >>> from jaxwg.scipy.stats.cauchy import logcdf
    >>> round(logcdf(0.0).item(), 6)
    -0.693147
    """
    return jnp.log(cdf(x, loc, scale))


def sf(x, loc=0, scale=1):
    """The Cauchy survival function cdf(-x, -loc, scale).

    >>> from jaxwg.scipy.stats.cauchy import sf
    >>> sf(1.0).item()
    0.25
    """
    x, loc, scale = promote_args_inexact("cauchy.sf", x, loc, scale)
    return cdf(-x, -loc, scale)


def logsf(x, loc=0, scale=1):
    """log of the Cauchy survival function.

    >>> from jaxwg.scipy.stats.cauchy import logsf
    >>> round(logsf(0.0).item(), 6)
    -0.693147
    """
    x, loc, scale = promote_args_inexact("cauchy.logsf", x, loc, scale)
    return logcdf(-x, -loc, scale)


def isf(q, loc=0, scale=1):
    """The Cauchy inverse survival function loc + scale tan(pi/2 - pi q).

    >>> from jaxwg.scipy.stats.cauchy import isf
    >>> round(isf(0.25).item(), 5)
    1.0
    """
    q, loc, scale = promote_args_inexact("cauchy.isf", q, loc, scale)
    unscaled = jnp.tan(np.pi / 2 - np.pi * q)
    return unscaled * scale + loc


def ppf(q, loc=0, scale=1):
    """The Cauchy quantile function loc + scale tan(pi q - pi/2).

    >>> from jaxwg.scipy.stats.cauchy import ppf
    >>> round(ppf(0.75).item(), 5)
    1.0
    """
    q, loc, scale = promote_args_inexact("cauchy.ppf", q, loc, scale)
    unscaled = jnp.tan(np.pi * q - np.pi / 2)
    return unscaled * scale + loc
