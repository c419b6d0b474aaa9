"""`jaxwg.scipy.stats`: probability distributions (one module each, with `logpdf`, `pdf`,
`cdf`, ... or `logpmf`, `pmf`, ... as JAX's) and `mode`, `rankdata`, `sem`, as
`jax.scipy.stats`.

>>> from jaxwg.scipy.stats import norm
>>> (norm.pdf(0.0, 0.0, 1.0) == norm.pdf(0.0)).item()
True
"""

from . import (bernoulli, beta, betabinom, binom, cauchy, chi2, dirichlet, expon, gamma,
               gennorm, geom, gumbel_l, gumbel_r, laplace, logistic, multinomial,
               multivariate_normal, nbinom, norm, pareto, poisson, t, truncnorm, uniform,
               vonmises, wrapcauchy)
from ._core import mode, rankdata, sem
from ._kde import gaussian_kde

__all__ = ["bernoulli", "beta", "betabinom", "binom", "cauchy", "chi2", "dirichlet", "expon",
           "gamma", "gaussian_kde", "gennorm", "geom", "gumbel_l", "gumbel_r", "laplace", "logistic", "mode",
           "multinomial", "multivariate_normal", "nbinom", "norm", "pareto", "poisson",
           "rankdata", "sem", "t", "truncnorm", "uniform", "vonmises", "wrapcauchy"]
