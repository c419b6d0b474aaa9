"""The Dirichlet distribution, as `jax.scipy.stats.dirichlet`.

>>> import jaxwg.numpy as jnp
>>> from jaxwg.scipy.stats import dirichlet
>>> round(dirichlet.pdf(jnp.array([0.25, 0.75]), jnp.array([1.0, 1.0])).item(), 5)
1.0
"""

from __future__ import annotations

from ... import numpy as jnp
from ...numpy._util import promote
from ..special import gammaln, xlogy

__all__ = ["logpdf", "pdf"]


def _is_simplex(x):
    x_sum = jnp.sum(x, axis=0)
    return jnp.all(x > 0, axis=0) & (abs(x_sum - 1) < 1e-6)


def logpdf(x, alpha):
    """log of the Dirichlet density over axis 0 of `x` (which may omit the last entry);
    -inf off the simplex.

    >>> from jaxwg.scipy.stats.dirichlet import logpdf
    >>> import jaxwg.numpy as jnp
    >>> round(logpdf(jnp.array([0.5, 0.5]), jnp.array([1.0, 1.0])).item(), 5)
    -0.0
    """
    x, alpha = promote(jnp.asarray(x), jnp.asarray(alpha), to_inexact=True)
    if alpha.ndim != 1:
        raise ValueError(f"`alpha` must be one-dimensional; got alpha.shape={alpha.shape}")
    if x.shape[0] not in (alpha.shape[0], alpha.shape[0] - 1):
        raise ValueError("`x` must have either the same number of entries as `alpha` or one "
                         f"entry fewer; got x.shape={x.shape}, alpha.shape={alpha.shape}")
    if x.shape[0] != alpha.shape[0]:
        x = jnp.concatenate([x, 1 - x.sum(0, keepdims=True)], axis=0)
    normalize_term = jnp.sum(gammaln(alpha)) - gammaln(jnp.sum(alpha))
    if x.ndim > 1:
        alpha = alpha.reshape(alpha.shape + (1,) * (x.ndim - 1))
    log_probs = jnp.sum(xlogy(alpha - 1, x), axis=0) - normalize_term
    return jnp.where(_is_simplex(x), log_probs, -jnp.inf)


def pdf(x, alpha):
    """The Dirichlet density.

    >>> from jaxwg.scipy.stats.dirichlet import pdf
    >>> import jaxwg.numpy as jnp
    >>> round(pdf(jnp.array([0.5]), jnp.array([2.0, 2.0])).item(), 5)
    1.5
    """
    return jnp.exp(logpdf(x, alpha))
