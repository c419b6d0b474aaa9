"""Student's t distribution, as `jax.scipy.stats.t`.

>>> from jaxwg.scipy.stats import t
>>> round(t.pdf(0.0, 1.0).item(), 6)
0.31831
"""

from __future__ import annotations

import numpy as np

from ... import numpy as jnp
from ..special import gammaln
from ._util import promote_args_inexact

__all__ = ["logpdf", "pdf"]


def logpdf(x, df, loc=0, scale=1):
    """log of Student's t density with `df` degrees of freedom.

    >>> from jaxwg.scipy.stats.t import logpdf
    >>> round(logpdf(0.0, 1.0).item(), 5)
    -1.14473
    """
    x, df, loc, scale = promote_args_inexact("t.logpdf", x, df, loc, scale)
    scaled_x = (x - loc) / scale
    df_over_two = df / 2
    df_plus_one_over_two = df_over_two + 0.5
    normalize_term_tmp = jnp.log(scale * scale * np.pi * df) / 2
    normalize_term = gammaln(df_over_two) + normalize_term_tmp - gammaln(df_plus_one_over_two)
    quadratic = scaled_x * scaled_x / df
    return -(normalize_term + df_plus_one_over_two * jnp.log1p(quadratic))


def pdf(x, df, loc=0, scale=1):
    """Student's t density.

    >>> from jaxwg.scipy.stats.t import pdf
    >>> round(pdf(1.0, 1.0).item(), 6)
    0.159155
    """
    return jnp.exp(logpdf(x, df, loc, scale))
