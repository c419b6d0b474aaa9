"""`jaxwg.scipy.cluster.vq`: vector quantization, as `jax.scipy.cluster.vq`.

>>> import jaxwg.numpy as jnp
>>> vq(jnp.array([[1.0, 1.0]]), jnp.array([[0.0, 0.0], [1.0, 2.0]]))[1].tolist()
[1.0]
"""

from __future__ import annotations

from ... import numpy as jnp
from ...numpy._util import inexact_operands

__all__ = ["vq"]


def vq(obs, code_book, check_finite: bool = True):
    """(code, dist): for each observation (a row of `obs`, or an entry of a 1-d `obs`),
    the index of the nearest code in `code_book` (Euclidean distance; the first of equal
    ones) and its distance, as `jax.scipy.cluster.vq.vq`. `check_finite` is ignored.

    >>> from jaxwg.scipy.cluster.vq import vq
    >>> import jaxwg.numpy as jnp
    >>> code, dist = vq(jnp.array([1.0, 5.0]), jnp.array([0.0, 3.0]))
    >>> code.tolist(), dist.tolist()
    ([0, 1], [1.0, 2.0])
    """
    del check_finite
    obs, code_book = inexact_operands("scipy.cluster.vq.vq", obs, code_book)
    if obs.ndim != code_book.ndim:
        raise ValueError("Observation and code_book should have the same rank")
    if obs.ndim == 1:
        obs, code_book = obs[:, None], code_book[:, None]
    if obs.ndim != 2:
        raise ValueError("ndim different than 1 or 2 are not supported")
    dist = jnp.linalg.norm(obs[:, None, :] - code_book[None, :, :], axis=-1)
    code = jnp.argmin(dist, axis=-1)
    return code, jnp.take_along_axis(dist, code[:, None], axis=-1)[:, 0]
