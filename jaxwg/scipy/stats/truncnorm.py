"""The normal distribution truncated to [a, b] (in standard units), as
`jax.scipy.stats.truncnorm`.

>>> from jaxwg.scipy.stats import truncnorm
>>> round(truncnorm.cdf(0.0, -1.0, 1.0).item(), 6)
0.5
"""

from __future__ import annotations

from ...frontend.jit import jit
from ... import numpy as jnp
from ..special import log_ndtr, logsumexp, ndtr
from . import norm
from ._util import promote_args_inexact

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "sf"]


def _log_diff(x, y):
    """log(exp(x) - exp(y))."""
    return logsumexp(jnp.array([x, y]), b=jnp.array([jnp.ones_like(x), -jnp.ones_like(y)]),
                     axis=0)


def _log_gauss_mass(a, b):
    """log of the standard normal mass of [a, b], from the nearer tail (as SciPy's)."""
    a, b = jnp.broadcast_arrays(jnp.array(a), jnp.array(b))
    case_left = b <= 0
    case_right = a > 0
    case_central = ~(case_left | case_right)
    a_tail = jnp.where(case_right, -b, a)
    b_tail = jnp.where(case_right, -a, b)
    mass_tail = _log_diff(log_ndtr(b_tail), log_ndtr(a_tail))
    mass_central = jnp.log1p(-ndtr(a) - ndtr(-b))
    return jnp.where(case_central, mass_central, mass_tail)


@jit
def logpdf(x, a, b, loc=0, scale=1):
    """log of the truncated normal density (-inf outside [a, b], NaN where a >= b).

    >>> from jaxwg.scipy.stats.truncnorm import logpdf
    >>> round(logpdf(0.0, -1.0, 1.0).item(), 6)
    -0.537223
    """
    x, a, b, loc, scale = promote_args_inexact("truncnorm.logpdf", x, a, b, loc, scale)
    val = norm.logpdf(x, loc, scale) - _log_gauss_mass(a, b)
    x_scaled = (x - loc) / scale
    val = jnp.where((x_scaled < a) | (x_scaled > b), -jnp.inf, val)
    return jnp.where(a >= b, jnp.nan, val)


def pdf(x, a, b, loc=0, scale=1):
    """The truncated normal density.

    >>> from jaxwg.scipy.stats.truncnorm import pdf
    >>> round(pdf(0.0, -1.0, 1.0).item(), 6)
    0.584369
    """
    return jnp.exp(logpdf(x, a, b, loc, scale))


@jit
def logsf(x, a, b, loc=0, scale=1):
    """log of the truncated normal survival function, logcdf(-x, -b, -a, -loc, scale).

    >>> from jaxwg.scipy.stats.truncnorm import logsf
    >>> round(logsf(0.0, -1.0, 1.0).item(), 6)
    -0.693147
    """
    x, a, b, loc, scale = promote_args_inexact("truncnorm.logsf", x, a, b, loc, scale)
    return logcdf(-x, -b, -a, -loc, scale)


@jit
def sf(x, a, b, loc=0, scale=1):
    """The truncated normal survival function.

    >>> from jaxwg.scipy.stats.truncnorm import sf
    >>> sf(1.0, -1.0, 1.0).item()
    0.0
    """
    return jnp.exp(logsf(x, a, b, loc, scale))


@jit
def logcdf(x, a, b, loc=0, scale=1):
    """log of the truncated normal distribution function (NaN where a >= b).

    >>> from jaxwg.scipy.stats.truncnorm import logcdf
    >>> logcdf(1.0, -1.0, 1.0).item()
    0.0
    """
    x, a, b, loc, scale = promote_args_inexact("truncnorm.logcdf", x, a, b, loc, scale)
    x, a, b = jnp.broadcast_arrays(x, a, b)
    x = (x - loc) / scale
    lgm_ab = _log_gauss_mass(a, b)
    logcdf = _log_gauss_mass(a, x) - lgm_ab
    logsf = _log_gauss_mass(x, b) - lgm_ab
    logcdf = jnp.select([x >= b, x <= a, logcdf > -0.1, x > a],
                        [0, -jnp.inf, jnp.log1p(-jnp.exp(logsf)), logcdf])
    return jnp.where(a >= b, jnp.nan, logcdf)


@jit
def cdf(x, a, b, loc=0, scale=1):
    """The truncated normal distribution function.

    >>> from jaxwg.scipy.stats.truncnorm import cdf
    >>> cdf(-1.0, -1.0, 1.0).item()
    0.0
    """
    return jnp.exp(logcdf(x, a, b, loc, scale))
