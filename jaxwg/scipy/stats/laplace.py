"""The Laplace distribution, as `jax.scipy.stats.laplace`.

>>> from jaxwg.scipy.stats import laplace
>>> laplace.pdf(0.0).item()
0.5
"""

from __future__ import annotations

from ... import lax
from ... import numpy as jnp
from ._util import promote_args_inexact

__all__ = ["cdf", "logpdf", "pdf"]


def logpdf(x, loc=0, scale=1):
    """log of the Laplace density: -|x - loc| / scale - log(2 scale).

    >>> from jaxwg.scipy.stats.laplace import logpdf
    >>> round(logpdf(1.0).item(), 6)
    -1.693147
    """
    x, loc, scale = promote_args_inexact("laplace.logpdf", x, loc, scale)
    return -(jnp.abs(x - loc) / scale + jnp.log(2 * scale))


def pdf(x, loc=0, scale=1):
    """The Laplace density exp(-|x - loc| / scale) / (2 scale).

    >>> from jaxwg.scipy.stats.laplace import pdf
    >>> pdf(0.0, 0.0, 2.0).item()
    0.25
    """
    return jnp.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    """The Laplace distribution function.

    >>> from jaxwg.scipy.stats.laplace import cdf
    >>> cdf(0.0).item()
    0.5
    """
    x, loc, scale = promote_args_inexact("laplace.cdf", x, loc, scale)
    diff = (x - loc) / scale
    return lax.select(diff <= 0, 0.5 * jnp.exp(diff), 1 - 0.5 * jnp.exp(-diff))
