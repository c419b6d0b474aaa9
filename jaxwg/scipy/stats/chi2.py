"""The chi-squared distribution, as `jax.scipy.stats.chi2`.

>>> from jaxwg.scipy.stats import chi2
>>> round(chi2.pdf(1.0, 2.0).item(), 6)
0.303265
"""

from __future__ import annotations

import numpy as np

from ... import numpy as jnp
from ..special import gammainc, gammaincc, gammaln
from ._util import clipped_standardized, promote_args_inexact

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "sf"]


def logpdf(x, df, loc=0, scale=1):
    """log of the chi-squared density with `df` degrees of freedom.

    >>> from jaxwg.scipy.stats.chi2 import logpdf
    >>> round(logpdf(2.0, 2.0).item(), 5)
    -1.69315
    """
    x, df, loc, scale = promote_args_inexact("chi2.logpdf", x, df, loc, scale)
    y = (x - loc) / scale
    df_on_two = df / 2
    kernel = (df_on_two - 1) * jnp.log(y) - y / 2
    nrml_cnst = -(gammaln(df_on_two) + float(np.log(2)) * df / 2)
    log_probs = nrml_cnst - jnp.log(scale) + kernel
    return jnp.where(x < loc, -jnp.inf, log_probs)


def pdf(x, df, loc=0, scale=1):
    """The chi-squared density.

    >>> from jaxwg.scipy.stats.chi2 import pdf
    >>> round(pdf(2.0, 2.0).item(), 6)
    0.18394
    """
    return jnp.exp(logpdf(x, df, loc, scale))



def cdf(x, df, loc=0, scale=1):
    """The chi-squared distribution function P(df / 2, (x - loc) / (2 scale)).

    >>> from jaxwg.scipy.stats.chi2 import cdf
    >>> round(cdf(2.0, 2.0).item(), 5)
    0.63212
    """
    x, df, loc, scale = promote_args_inexact("chi2.cdf", x, df, loc, scale)
    return gammainc(df / 2, clipped_standardized(x, loc, scale * 2))


def logcdf(x, df, loc=0, scale=1):
    """log of the chi-squared distribution function.

    >>> from jaxwg.scipy.stats.chi2 import logcdf
    >>> round(logcdf(2.0, 2.0).item(), 5)
    -0.45868
    """
    return jnp.log(cdf(x, df, loc, scale))


def sf(x, df, loc=0, scale=1):
    """The chi-squared survival function Q(df / 2, (x - loc) / (2 scale)).

    >>> from jaxwg.scipy.stats.chi2 import sf
    >>> round(sf(2.0, 2.0).item(), 5)
    0.36788
    """
    x, df, loc, scale = promote_args_inexact("chi2.sf", x, df, loc, scale)
    return gammaincc(df / 2, clipped_standardized(x, loc, scale * 2))


def logsf(x, df, loc=0, scale=1):
    """log of the chi-squared survival function.

    >>> from jaxwg.scipy.stats.chi2 import logsf
    >>> round(logsf(2.0, 2.0).item(), 5)
    -1.0
    """
    return jnp.log(sf(x, df, loc, scale))
