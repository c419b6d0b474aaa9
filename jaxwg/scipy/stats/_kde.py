"""Gaussian kernel density estimation, as `jax.scipy.stats.gaussian_kde`.

>>> import jaxwg.numpy as jnp
>>> from jaxwg.scipy.stats import gaussian_kde
>>> kde = gaussian_kde(jnp.array([-1.0, 1.0]), bw_method=1.0)
>>> round(kde.integrate_box_1d(-jnp.inf, 0.0).item(), 6)
0.5
"""

from __future__ import annotations

import dataclasses
import functools

import numpy as np

from ... import numpy as jnp
from ... import random
from ...frontend.jit import jit
from ...frontend.pytree import register_pytree_node_class
from ...numpy._util import check_arraylike, inexact_operands
from ...transforms.batching import vmap
from .. import linalg
from ..special import logsumexp, ndtr

__all__ = ["gaussian_kde"]


@register_pytree_node_class
@dataclasses.dataclass(frozen=True, init=False, slots=True)
class gaussian_kde:
    """The Gaussian kernel density estimate of `dataset` (shape (n,), or (d, n): n points
    of d dimensions), with the optional `weights` of the points and the bandwidth of
    `bw_method` ("scott", the default, "silverman", a scalar factor, or a function of the
    estimator), as `jax.scipy.stats.gaussian_kde`. As in JAX, `integrate_box` and
    `set_bandwidth` raise NotImplementedError.

    >>> from jaxwg.scipy.stats import gaussian_kde
    >>> import jaxwg.numpy as jnp
    >>> kde = gaussian_kde(jnp.array([0.0, 2.0]), bw_method=0.5)
    >>> kde.covariance.tolist(), kde.d, kde.n
    ([[0.5]], 1, 2)
    """

    neff: object
    dataset: object
    weights: object
    covariance: object
    inv_cov: object

    def __init__(self, dataset, bw_method=None, weights=None):
        check_arraylike("gaussian_kde", dataset)
        dataset = jnp.atleast_2d(dataset)
        if jnp.issubdtype(dataset.dtype, np.complexfloating):
            raise NotImplementedError("gaussian_kde does not support complex data")
        if not dataset.size > 1:
            raise ValueError("`dataset` input should have multiple elements.")
        d, n = dataset.shape
        if weights is not None:
            dataset, weights = inexact_operands("gaussian_kde", dataset, weights)
            weights = jnp.atleast_1d(weights)
            weights = weights / jnp.sum(weights)
            if weights.ndim != 1:
                raise ValueError("`weights` input should be one-dimensional.")
            if len(weights) != n:
                raise ValueError("`weights` input should be of length n")
        else:
            dataset, = inexact_operands("gaussian_kde", dataset)
            weights = jnp.full(n, 1.0 / n, dtype=dataset.dtype)
        self._set("dataset", dataset)
        self._set("weights", weights)
        neff = self._set("neff", 1 / jnp.sum(weights ** 2))
        if bw_method is None or isinstance(bw_method, str) and bw_method == "scott":
            factor = jnp.power(neff, -1.0 / (d + 4))
        elif isinstance(bw_method, str) and bw_method == "silverman":
            factor = jnp.power(neff * (d + 2) / 4.0, -1.0 / (d + 4))
        elif jnp.isscalar(bw_method) and not isinstance(bw_method, str):
            factor = bw_method
        elif callable(bw_method):
            factor = bw_method(self)
        else:
            raise ValueError(
                "`bw_method` should be 'scott', 'silverman', a scalar, or a callable.")
        covariance = jnp.atleast_2d(jnp.cov(dataset, rowvar=1, bias=False, aweights=weights))
        self._set("covariance", covariance * factor ** 2)
        self._set("inv_cov", jnp.linalg.inv(covariance) / factor ** 2)

    def _set(self, name, value):
        object.__setattr__(self, name, value)  # the fields are frozen
        return value

    def tree_flatten(self):
        return (self.neff, self.dataset, self.weights, self.covariance, self.inv_cov), None

    @classmethod
    def tree_unflatten(cls, aux_data, children):
        kde = cls.__new__(cls)
        for field, value in zip(("neff", "dataset", "weights", "covariance", "inv_cov"),
                                children):
            kde._set(field, value)
        return kde

    @property
    def d(self):
        return self.dataset.shape[0]

    @property
    def n(self):
        return self.dataset.shape[1]

    def evaluate(self, points):
        """The estimated density at `points` ((d, m), or m points when d is 1).

        >>> import jaxwg.numpy as jnp
        >>> kde = gaussian_kde(jnp.array([-1.0, 1.0]), bw_method=1.0)
        >>> kde.evaluate(jnp.array([0.0])).tolist() == kde.pdf(0.0).tolist()
        True
        """
        check_arraylike("evaluate", points)
        return _kernel_sum(False, self.dataset.T, self.weights, self._points(points).T,
                           self.inv_cov)

    def __call__(self, points):
        return self.evaluate(points)

    def pdf(self, x):
        """The estimated density at `x` (`evaluate`).

        >>> import jaxwg.numpy as jnp
        >>> kde = gaussian_kde(jnp.array([[0.0, 1.0], [0.0, 1.0]]))
        >>> kde.pdf(jnp.array([0.5, 0.5])).shape
        (1,)
        """
        return self.evaluate(x)

    def logpdf(self, x):
        """log of the estimated density at `x`, summed in log space (logsumexp).

        >>> import jaxwg.numpy as jnp
        >>> kde = gaussian_kde(jnp.array([-1.0, 1.0]), bw_method=1.0)
        >>> bool(jnp.isfinite(kde.logpdf(jnp.array([1e3])))[0])
        True
        """
        check_arraylike("logpdf", x)
        return _kernel_sum(True, self.dataset.T, self.weights, self._points(x).T,
                           self.inv_cov)

    def integrate_gaussian(self, mean, cov):
        """The integral of the density times the normal density of `mean` and `cov`.

        >>> import jaxwg.numpy as jnp
        >>> kde = gaussian_kde(jnp.array([-1.0, 1.0]), bw_method=1.0)
        >>> round(kde.integrate_gaussian(0.0, 1.0).item(), 6)
        0.19497
        """
        mean = jnp.atleast_1d(jnp.squeeze(mean))
        cov = jnp.atleast_2d(cov)
        if mean.shape != (self.d,):
            raise ValueError(f"mean does not have dimension {self.d}")
        if cov.shape != (self.d, self.d):
            raise ValueError(f"covariance does not have dimension {self.d}")
        factor, norm = _factor_and_norm(self.covariance + cov)
        return _convolve(factor, norm, self.dataset, self.weights, mean)

    def integrate_box_1d(self, low, high):
        """The integral of a 1-d density from `low` to `high` (scalars).

        >>> import jaxwg.numpy as jnp
        >>> kde = gaussian_kde(jnp.array([-1.0, 1.0]))
        >>> kde.integrate_box_1d(-jnp.inf, jnp.inf).item()
        1.0
        """
        if self.d != 1:
            raise ValueError("integrate_box_1d() only handles 1D pdfs")
        if np.ndim(low) != 0 or np.ndim(high) != 0:
            raise ValueError("the limits of integration in integrate_box_1d must be scalars")
        sigma = jnp.squeeze(jnp.sqrt(self.covariance))
        low = jnp.squeeze((low - self.dataset) / sigma)
        high = jnp.squeeze((high - self.dataset) / sigma)
        return jnp.sum(self.weights * (ndtr(high) - ndtr(low)))

    def integrate_kde(self, other):
        """The integral of the product of this density and `other`'s.

        >>> import jaxwg.numpy as jnp
        >>> kde = gaussian_kde(jnp.array([-1.0, 1.0]), bw_method=1.0)
        >>> round(kde.integrate_kde(kde).item(), 6)
        0.160228
        """
        if other.d != self.d:
            raise ValueError("KDEs are not the same dimensionality")
        factor, norm = _factor_and_norm(self.covariance + other.covariance)
        small, large = (self, other) if self.n < other.n else (other, self)
        convolve = functools.partial(_convolve, factor, norm, large.dataset, large.weights)
        return jnp.sum(vmap(convolve, in_axes=1)(small.dataset) * small.weights)

    def resample(self, key, shape=()):
        """Points drawn from the estimate: (d, *shape), JAX's draws for the same key (a
        dataset point chosen by weight, plus a normal sample of the kernel's covariance).

        >>> import jaxwg, jaxwg.numpy as jnp
        >>> kde = gaussian_kde(jnp.array([0.0, 2.0]), bw_method=0.5)
        >>> kde.resample(jaxwg.random.key(0), (3,)).shape
        (1, 3)
        """
        return _resample(self, key, shape=tuple(shape) if np.ndim(shape) else (shape,))

    def integrate_box(self, low_bounds, high_bounds, maxpts=None):
        """Not in JAX (NotImplementedError): only `integrate_box_1d` is.

        >>> import jaxwg.numpy as jnp
        >>> gaussian_kde(jnp.array([0.0, 1.0])).integrate_box(0.0, 1.0)
        Traceback (most recent call last):
        NotImplementedError: only 1D box integrations are supported; use `integrate_box_1d`
        """
        raise NotImplementedError(
            "only 1D box integrations are supported; use `integrate_box_1d`")

    def set_bandwidth(self, bw_method=None):
        """Not in JAX (NotImplementedError): the bandwidth is fixed at construction.

        >>> import jaxwg.numpy as jnp
        >>> gaussian_kde(jnp.array([0.0, 1.0])).set_bandwidth("scott")
        Traceback (most recent call last):
        NotImplementedError: dynamically changing the bandwidth method is not supported
        """
        raise NotImplementedError("dynamically changing the bandwidth method is not supported")

    def _points(self, points):
        """`points` as (d, m)."""
        if jnp.issubdtype(jnp.result_type(points), np.complexfloating):
            raise NotImplementedError("gaussian_kde does not support complex coordinates")
        points = jnp.atleast_2d(points)
        d, m = points.shape
        if d != self.d:
            if d == 1 and m == self.d:
                return jnp.reshape(points, (self.d, 1))
            raise ValueError(f"points have dimension {d}, dataset has dimension {self.d}")
        return points


@functools.partial(jit, static_argnames=("shape",))
def _resample(kde, key, shape):
    index_key, noise_key = random.split(key)
    index = random.choice(index_key, kde.n, shape=shape, p=kde.weights)
    noise = random.multivariate_normal(noise_key, jnp.zeros(kde.d, kde.covariance.dtype),
                                       kde.covariance, shape=shape, dtype=kde.dataset.dtype)
    return kde.dataset[:, index] + noise.T


def _factor_and_norm(cov):
    """(Cholesky factor of `cov` as `cho_factor` gives it, 1 / the normal density's
    normalization (2 pi)^(d/2) sqrt(det cov))."""
    factor = linalg.cho_factor(cov)
    norm = jnp.sqrt(2 * np.pi) ** cov.shape[0] * jnp.prod(jnp.diag(factor[0]))
    return factor, 1.0 / norm


def _convolve(factor, norm, target, weights, mean):
    """The weighted sum over the columns t of `target` of the normal density of
    t - `mean` with the covariance `factor` factors (`norm` its normalization)."""
    diff = target - mean[:, None]
    arg = 0.5 * jnp.sum(diff * linalg.cho_solve(factor, diff), axis=0)
    return norm * jnp.sum(jnp.exp(-arg) * weights)


def _kernel_sum(in_log: bool, points, values, xi, precision):
    """For each row of `xi`, the sum over the rows of `points` of `values` times the
    normal density whose inverse covariance is `precision` (its log, summed by
    logsumexp, if `in_log`)."""
    points, values, xi, precision = inexact_operands("gaussian_kde", points, values, xi,
                                                     precision)
    d = points.shape[1]
    if xi.shape[1] != d:
        raise ValueError("points and xi must have same trailing dim")
    if precision.shape != (d, d):
        raise ValueError("precision matrix must match data dims")
    whitening = linalg.cholesky(precision, lower=True)
    points = jnp.dot(points, whitening)
    xi = jnp.dot(xi, whitening)
    log_norm = jnp.sum(jnp.log(jnp.diag(whitening))) - 0.5 * d * jnp.log(2 * np.pi)
    arg = log_norm - 0.5 * jnp.sum(jnp.square(points[None, :, :] - xi[:, None, :]), axis=-1)
    if in_log:
        return logsumexp(jnp.log(values) + arg, axis=1)
    return jnp.sum(values * jnp.exp(arg), axis=1)
