"""The multinomial distribution, as `jax.scipy.stats.multinomial`.

>>> import jaxwg.numpy as jnp
>>> from jaxwg.scipy.stats import multinomial
>>> round(multinomial.pmf(jnp.array([1, 1]), 2, jnp.array([0.5, 0.5])).item(), 6)
0.5
"""

from __future__ import annotations

import numpy as np

from ... import numpy as jnp
from ...numpy._util import check_arraylike, promote, to_array
from ..special import gammaln, xlogy
from ._util import promote_args_inexact

__all__ = ["logpmf", "pmf"]


def logpmf(x, n, p):
    """log of the multinomial mass n! prod(p^x / x!) over the last axis (-inf unless
    sum(x) == n); `x` and `n` must be integers.

    >>> from jaxwg.scipy.stats.multinomial import logpmf
    >>> import jaxwg.numpy as jnp
    >>> round(logpmf(jnp.array([2, 0]), 2, jnp.array([1.0, 0.0])).item(), 6)
    -0.0
    """
    (p,) = promote_args_inexact("multinomial.logpmf", p)
    check_arraylike("multinomial.logpmf", x, n)
    x, n = promote(to_array(x), to_array(n))
    if not np.issubdtype(x.dtype, np.integer):
        raise ValueError(f"x and n must be of integer type; got x.dtype={x.dtype}, "
                         f"n.dtype={n.dtype}")
    x = x.astype(p.dtype)
    n = n.astype(p.dtype)
    logprobs = gammaln(n + 1) + jnp.sum(xlogy(x, p) - gammaln(x + 1), axis=-1)
    return jnp.where(jnp.equal(jnp.sum(x), n), logprobs, -jnp.inf)


def pmf(x, n, p):
    """The multinomial mass function.

    >>> from jaxwg.scipy.stats.multinomial import pmf
    >>> import jaxwg.numpy as jnp
    >>> round(pmf(jnp.array([0, 2]), 2, jnp.array([0.5, 0.5])).item(), 6)
    0.25
    """
    return jnp.exp(logpmf(x, n, p))
