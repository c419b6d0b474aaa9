"""Cumulative reductions along an axis (`lax.cumsum`, `cumprod`, `cummax`, `cummin`,
`cumlogsumexp`) as parallel scans: `associative_scan`'s log2(n) steps, each one fused
kernel that combines every element with the one 2^k before it (no sequential loop).

>>> import jaxwg.numpy as jnp
>>> from jaxwg import lax
>>> lax.cumsum(jnp.arange(5)).tolist(), lax.cummax(jnp.array([1, 3, 2, 5]), reverse=True).tolist()
([0, 1, 3, 6, 10], [5, 5, 5, 5])
"""

from __future__ import annotations

from ..frontend.array import aval_of
from . import lax
from .control_flow import associative_scan


def _logaddexp(a, b):
    """log(exp(a) + exp(b)) without overflow; -inf + -inf is -inf."""
    top = lax.max(a, b)
    finite = lax.select(lax.is_finite(top), top, lax.full_like(top, 0))
    return lax.add(lax.log(lax.add(lax.exp(lax.sub(a, finite)), lax.exp(lax.sub(b, finite)))),
                   finite)


def _cumulative(name: str, combine, example: str):
    def fn(operand, axis: int = 0, reverse: bool = False):
        aval = aval_of(operand)
        if not -aval.ndim <= axis < max(aval.ndim, 1):
            raise ValueError(f"{name}: axis {axis} is out of bounds for shape {aval.shape}")
        if aval.ndim == 0 or aval.shape[axis % aval.ndim] <= 1:
            return operand
        return associative_scan(combine, operand, reverse=reverse, axis=axis % aval.ndim)

    fn.__name__ = name
    fn.__doc__ = (f"The running `{name[3:]}` along `axis` (from the end with `reverse`).\n\n"
                  "    >>> import jaxwg.numpy as jnp\n    >>> from jaxwg import lax\n"
                  f"    >>> lax.{name}(jnp.array([1.0, 2.0, 3.0])).tolist()\n    {example}\n")
    return fn


cumsum = _cumulative("cumsum", lax.add, "[1.0, 3.0, 6.0]")
cumprod = _cumulative("cumprod", lax.mul, "[1.0, 2.0, 6.0]")
cummax = _cumulative("cummax", lax.max, "[1.0, 2.0, 3.0]")
cummin = _cumulative("cummin", lax.min, "[1.0, 1.0, 1.0]")
cumlogsumexp = _cumulative("cumlogsumexp", _logaddexp,
                           "[1.0, 2.3132617473602295, 3.4076058864593506]")
