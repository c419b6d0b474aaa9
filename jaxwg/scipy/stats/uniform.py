"""The uniform distribution on [loc, loc + scale], as `jax.scipy.stats.uniform`.

>>> from jaxwg.scipy.stats import uniform
>>> uniform.pdf(0.5).item()
1.0
"""

from __future__ import annotations

from ... import numpy as jnp
from ._util import promote_args_inexact

__all__ = ["cdf", "logpdf", "pdf", "ppf"]


def logpdf(x, loc=0, scale=1):
    """log of the uniform density: -log(scale) on [loc, loc + scale], -inf elsewhere.

    >>> from jaxwg.scipy.stats.uniform import logpdf
    >>> logpdf(2.0).item()
    -inf
    """
    x, loc, scale = promote_args_inexact("uniform.logpdf", x, loc, scale)
    outside = (x > loc + scale) | (x < loc)
    return jnp.where(outside, -jnp.inf, -jnp.log(scale))


def pdf(x, loc=0, scale=1):
    """The uniform density: 1 / scale on [loc, loc + scale], 0 elsewhere.

    >>> from jaxwg.scipy.stats.uniform import pdf
    >>> pdf(0.5, 0.0, 2.0).item()
    0.5
    """
    return jnp.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    """The uniform distribution function: (x - loc) / scale clipped to [0, 1] (not weakly
    typed, as JAX's).

    >>> from jaxwg.scipy.stats.uniform import cdf
    >>> cdf(0.25).item()
    0.25
    """
    x, loc, scale = promote_args_inexact("uniform.cdf", x, loc, scale)
    zero, one = jnp.array(0, x.dtype), jnp.array(1, x.dtype)
    conds = [x < loc, x > loc + scale, (x >= loc) & (x <= loc + scale)]
    return jnp.select(conds, [zero, one, (x - loc) / scale])


def ppf(q, loc=0, scale=1):
    """The uniform quantile function loc + scale * q (NaN outside [0, 1]).

    >>> from jaxwg.scipy.stats.uniform import ppf
    >>> ppf(0.5, 1.0, 2.0).item()
    2.0
    """
    q, loc, scale = promote_args_inexact("uniform.ppf", q, loc, scale)
    return jnp.where(jnp.isnan(q) | (q < 0) | (q > 1), jnp.nan, loc + scale * q)
