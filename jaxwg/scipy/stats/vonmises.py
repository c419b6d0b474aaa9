"""The von Mises distribution, as `jax.scipy.stats.vonmises`.

>>> from jaxwg.scipy.stats import vonmises
>>> round(vonmises.pdf(0.0, 1.0).item(), 5)
0.34171
"""

from __future__ import annotations

import numpy as np

from ... import numpy as jnp
from ..special import i0e
from ._util import promote_args_inexact

__all__ = ["logpdf", "pdf"]


def logpdf(x, kappa):
    """log of the von Mises density exp(kappa cos x) / (2 pi I0(kappa)) (NaN unless
    kappa > 0).

    >>> from jaxwg.scipy.stats.vonmises import logpdf
    >>> logpdf(0.0, 0.0).item()
    nan
    """
    x, kappa = promote_args_inexact("vonmises.logpdf", x, kappa)
    log_probs = kappa * (jnp.cos(x) - 1) - jnp.log(2 * np.pi * i0e(kappa))
    return jnp.where(kappa > 0, log_probs, jnp.nan)


def pdf(x, kappa):
    """The von Mises density.

    >>> import numpy as np
    >>> from jaxwg.scipy.stats.vonmises import pdf
    >>> round(pdf(np.pi, 1.0).item(), 6)
    0.046245
    """
    return jnp.exp(logpdf(x, kappa))
