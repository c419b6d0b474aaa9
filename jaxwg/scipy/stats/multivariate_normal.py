"""The multivariate normal distribution, as `jax.scipy.stats.multivariate_normal`.

>>> import jaxwg.numpy as jnp
>>> from jaxwg.scipy.stats import multivariate_normal
>>> round(multivariate_normal.pdf(jnp.zeros(2), jnp.zeros(2), jnp.eye(2)).item(), 6)
0.159155
"""

from __future__ import annotations

import numpy as np

from ... import lax
from ... import numpy as jnp
from ...numpy._util import promote

__all__ = ["logpdf", "pdf"]


def logpdf(x, mean, cov, allow_singular=None):
    """log of the multivariate normal density over the last axis; `cov` a scalar (the
    variance of each coordinate) or a (..., n, n) matrix, factored by Cholesky.

    >>> from jaxwg.scipy.stats.multivariate_normal import logpdf
    >>> import jaxwg.numpy as jnp
    >>> round(logpdf(jnp.zeros(2), jnp.zeros(2), 1.0).item(), 6)
    -1.837877
    """
    if allow_singular is not None:
        raise NotImplementedError("allow_singular argument of multivariate_normal.logpdf")
    x, mean, cov = promote(jnp.asarray(x), jnp.asarray(mean), jnp.asarray(cov),
                           to_inexact=True)
    if not mean.shape:
        return (-1 / 2 * jnp.square(x - mean) / cov
                - 1 / 2 * (jnp.log(2 * np.pi) + jnp.log(cov)))
    n = mean.shape[-1]
    y = x - mean
    if not cov.shape:
        return (-1 / 2 * jnp.einsum("...i,...i->...", y, y) / cov
                - n / 2 * (jnp.log(2 * np.pi) + jnp.log(cov)))
    if cov.ndim < 2 or cov.shape[-2:] != (n, n):
        raise ValueError("multivariate_normal.logpdf got incompatible shapes")
    factor = lax.linalg.cholesky(cov)
    # y L^T = x - mean, y as a row (jaxwg's triangular_solve takes no 1-d b yet)
    def solve(a, b):
        return lax.linalg.triangular_solve(a, b[None], lower=True, transpose_a=True)[0]

    y = jnp.vectorize(solve, signature="(n,n),(n)->(n)")(factor, y)
    return (-1 / 2 * jnp.einsum("...i,...i->...", y, y) - n / 2 * jnp.log(2 * np.pi)
            - jnp.log(factor.diagonal(axis1=-1, axis2=-2)).sum(-1))


def pdf(x, mean, cov):
    """The multivariate normal density.

    >>> from jaxwg.scipy.stats.multivariate_normal import pdf
    >>> import jaxwg.numpy as jnp
    >>> round(pdf(jnp.zeros(1), jnp.zeros(1), jnp.eye(1)).item(), 6)
    0.398942
    """
    return jnp.exp(logpdf(x, mean, cov))
