"""The generalized normal distribution, as `jax.scipy.stats.gennorm`.

>>> from jaxwg.scipy.stats import gennorm
>>> gennorm.cdf(0.0, 2.0).item()
0.5
"""

from __future__ import annotations

from ... import lax
from ... import numpy as jnp
from ..special import gammainc, gammaln
from ._util import promote_args_inexact

__all__ = ["cdf", "logpdf", "pdf"]


def logpdf(x, beta):
    """log of the generalized normal density beta / (2 Gamma(1 / beta)) exp(-|x|^beta).

    >>> from jaxwg.scipy.stats.gennorm import logpdf
    >>> round(logpdf(0.0, 1.0).item(), 5)
    -0.69315
    """
    x, beta = promote_args_inexact("gennorm.logpdf", x, beta)
    return jnp.log(0.5 * beta) - gammaln(1 / beta) - jnp.abs(x) ** beta


def cdf(x, beta):
    """The generalized normal distribution function (1 + sign(x) P(1 / beta, |x|^beta)) / 2.

    >>> from jaxwg.scipy.stats.gennorm import cdf
    >>> round(cdf(1.0, 1.0).item(), 6)
    0.81606
    """
    x, beta = promote_args_inexact("gennorm.cdf", x, beta)
    return 0.5 * (1 + lax.sign(x) * gammainc(1 / beta, jnp.abs(x) ** beta))


def pdf(x, beta):
    """The generalized normal density.

    >>> from jaxwg.scipy.stats.gennorm import pdf
    >>> round(pdf(0.0, 1.0).item(), 6)
    0.5
    """
    return jnp.exp(logpdf(x, beta))
