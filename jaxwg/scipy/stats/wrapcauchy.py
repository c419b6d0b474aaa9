"""The wrapped Cauchy distribution on [0, 2 pi], as `jax.scipy.stats.wrapcauchy`.

>>> from jaxwg.scipy.stats import wrapcauchy
>>> round(wrapcauchy.pdf(1.0, 0.0).item(), 6)
nan
"""

from __future__ import annotations

import numpy as np

from ... import numpy as jnp
from ._util import promote_args_inexact

__all__ = ["logpdf", "pdf"]


def logpdf(x, c):
    """log of the wrapped Cauchy density (1 - c^2) / (2 pi (1 + c^2 - 2 c cos x)); NaN
    unless 0 < c < 1, -inf outside [0, 2 pi].

    >>> from jaxwg.scipy.stats.wrapcauchy import logpdf
    >>> logpdf(-1.0, 0.5).item()
    -inf
    """
    x, c = promote_args_inexact("wrapcauchy.logpdf", x, c)
    inside = (x >= 0) & (x <= np.pi * 2)
    log_probs = (jnp.log(1 - c * c) - float(np.log(2 * np.pi))
                 - jnp.log(1 + c * c - 2 * c * jnp.cos(x)))
    return jnp.where((c > 0) & (c < 1), jnp.where(inside, log_probs, -jnp.inf), jnp.nan)


def pdf(x, c):
    """The wrapped Cauchy density.

    >>> import numpy as np
    >>> from jaxwg.scipy.stats.wrapcauchy import pdf
    >>> round(pdf(np.pi, 0.5).item(), 6)
    0.053052
    """
    return jnp.exp(logpdf(x, c))
