"""The Pareto distribution, as `jax.scipy.stats.pareto`.

>>> from jaxwg.scipy.stats import pareto
>>> pareto.pdf(1.0, 2.0).item()
2.0
"""

from __future__ import annotations

from ... import numpy as jnp
from ._util import promote_args_inexact

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "ppf", "sf"]


def logpdf(x, b, loc=0, scale=1):
    """log of the Pareto density b / z^(b + 1) / scale, z = (x - loc) / scale >= 1.

    >>> from jaxwg.scipy.stats.pareto import logpdf
    >>> logpdf(0.5, 2.0).item()
    -inf
    """
    x, b, loc, scale = promote_args_inexact("pareto.logpdf", x, b, loc, scale)
    scaled_x = (x - loc) / scale
    normalize_term = jnp.log(scale / b)
    log_probs = -(normalize_term + (b + 1) * jnp.log(scaled_x))
    return jnp.where(x < loc + scale, -jnp.inf, log_probs)


def pdf(x, b, loc=0, scale=1):
    """The Pareto density.

    >>> from jaxwg.scipy.stats.pareto import pdf
    >>> pdf(2.0, 1.0).item()
    0.25
    """
    return jnp.exp(logpdf(x, b, loc, scale))


def cdf(x, b, loc=0, scale=1):
    """The Pareto distribution function 1 - z^-b.

    >>> from jaxwg.scipy.stats.pareto import cdf
    >>> cdf(2.0, 1.0).item()
    0.5
    """
    x, b, loc, scale = promote_args_inexact("pareto.cdf", x, b, loc, scale)
    scaled_x = (x - loc) / scale
    return jnp.where(x < loc + scale, jnp.zeros_like(scaled_x), 1 - scaled_x ** -b)


def logcdf(x, b, loc=0, scale=1):
    """log of the Pareto distribution function, log1p(-z^-b).

    >>> from jaxwg.scipy.stats.pareto import logcdf
    >>> round(logcdf(2.0, 1.0).item(), 6)
    -0.693147
    """
    x, b, loc, scale = promote_args_inexact("pareto.logcdf", x, b, loc, scale)
    scaled_x = (x - loc) / scale
    return jnp.where(x < loc + scale, -jnp.inf, jnp.log1p(-(scaled_x ** -b)))


def logsf(x, b, loc=0, scale=1):
    """log of the Pareto survival function, -b log(z).

    >>> from jaxwg.scipy.stats.pareto import logsf
    >>> round(logsf(2.0, 1.0).item(), 6)
    -0.693147
    """
    x, b, loc, scale = promote_args_inexact("pareto.logsf", x, b, loc, scale)
    scaled_x = (x - loc) / scale
    return jnp.where(x < loc + scale, jnp.zeros_like(scaled_x), -(b * jnp.log(scaled_x)))


def sf(x, b, loc=0, scale=1):
    """The Pareto survival function z^-b.

    >>> from jaxwg.scipy.stats.pareto import sf
    >>> sf(2.0, 1.0).item()
    0.5
    """
    return jnp.exp(logsf(x, b, loc, scale))


def ppf(q, b, loc=0, scale=1):
    """The Pareto quantile function loc + scale (1 - q)^(-1/b) (NaN outside [0, 1]).

    >>> from jaxwg.scipy.stats.pareto import ppf
    >>> ppf(0.5, 1.0).item()
    2.0
    """
    q, b, loc, scale = promote_args_inexact("pareto.ppf", q, b, loc, scale)
    ppf_val = loc + scale * (1 - q) ** -(1 / b)
    return jnp.where(jnp.isnan(q) | (q < 0) | (q > 1), jnp.nan, ppf_val)
