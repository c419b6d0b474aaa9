"""Cumulative reductions along an axis (`lax.cumsum`, `cumprod`, `cummax`, `cummin`,
`cumlogsumexp`) as parallel scans, with no sequential loop.

Sums of int32, uint32 and float32 arrays that any device binds whole
(`core.routine.binds_anywhere`) are the `cumsum` primitive: the backend's scan
routine (`core.routine.CumulativeSum`), linear, so its transpose is the sum from the
other end. Other sums, products, maxima and minima scan in blocks of `BLOCK`: element
i of a block is one reduction kernel's masked reduction over the block's elements up
to i (the block is read from cache, B times), combined in its epilogue with the scan of
the blocks' totals before it, itself a blocked scan of n / B elements. That is two
passes over the data plus a recursion on 1/B of it, against log2(n) full passes for
`associative_scan` (each combining every element with the one 2^k before it), which
the other scans use.

>>> import jaxwg.numpy as jnp
>>> from jaxwg import lax
>>> lax.cumsum(jnp.arange(5)).tolist(), lax.cummax(jnp.array([1, 3, 2, 5]), reverse=True).tolist()
([0, 1, 3, 6, 10], [5, 5, 5, 5])
"""

from __future__ import annotations

from ..core import dtypes as dt
from ..core.routine import CumulativeSum, binds_anywhere
from ..frontend import primitives as P
from ..frontend.array import aval_of
from ..frontend.trace import bind
from . import lax
from .control_flow import associative_scan
from .windows import monoid


def _logaddexp(a, b):
    """log(exp(a) + exp(b)) without overflow; -inf + -inf is -inf."""
    top = lax.max(a, b)
    finite = lax.select(lax.is_finite(top), top, _neutral(top, 0, aval_of(top).shape))
    return lax.add(lax.log(lax.add(lax.exp(lax.sub(a, finite)), lax.exp(lax.sub(b, finite)))),
                   finite)


BLOCK = 32


def _blocked_scan(x, combine, reduce, neutral):
    """The inclusive scan of `x` along its last axis (see the module docstring)."""
    shape = aval_of(x).shape
    n = shape[-1]
    if n <= BLOCK:
        return _masked_scan(x, reduce, neutral)
    blocks = -(-n // BLOCK)
    padded = lax.pad(x, _neutral(x, neutral, ()),
                     [(0, 0, 0)] * (len(shape) - 1) + [(0, blocks * BLOCK - n, 0)])
    y = lax.reshape(padded, shape[:-1] + (blocks, BLOCK))
    totals = reduce(y, (len(shape),))
    # the blocks before each one: the scan of the totals, shifted by one block
    before = _blocked_scan(totals, combine, reduce, neutral)
    before = lax.pad(lax.slice(before, (0,) * len(shape), shape[:-1] + (blocks - 1,)),
                     _neutral(x, neutral, ()),
                     [(0, 0, 0)] * (len(shape) - 1) + [(1, 0, 0)])
    local = _masked_scan(y, reduce, neutral)
    out = combine(lax.broadcast_in_dim(before, aval_of(local).shape, tuple(range(len(shape)))),
                  local)
    out = lax.reshape(out, shape[:-1] + (blocks * BLOCK,))
    return lax.slice(out, (0,) * len(shape), shape)


def _neutral(x, neutral, shape):
    """The constant `neutral` in `shape`, with x's dtype and weak type (lax's scans keep
    a weakly typed operand's weak type, as JAX's)."""
    aval = aval_of(x)
    return lax.full(shape, lax.convert_element_type(neutral, aval.dtype, weak_type=aval.weak_type))


def _masked_scan(x, reduce, neutral):
    """out[..., i] = reduce(x[..., :i + 1]), as one reduction over x[..., j] masked to
    j <= i (the neutral element elsewhere)."""
    shape = aval_of(x).shape
    n, rank = shape[-1], len(shape)
    full = shape + (n,)  # (..., i, j)
    spread = lax.broadcast_in_dim(x, full, tuple(range(rank - 1)) + (rank,))
    take = lax.le(lax.broadcasted_iota(dt.int32, full, rank), lax.broadcasted_iota(dt.int32, full, rank - 1))
    return reduce(lax.select(take, spread, _neutral(x, neutral, full)), (rank,))


def _cumulative(name: str, combine, example: str):
    def fn(operand, axis: int = 0, reverse: bool = False):
        aval = aval_of(operand)
        if not -aval.ndim <= axis < max(aval.ndim, 1):
            raise ValueError(f"{name}: axis {axis} is out of bounds for shape {aval.shape}")
        if aval.dtype.is_bool:  # JAX's scan primitives take numbers only
            raise TypeError(f"{name} does not accept dtype bool. Accepted dtypes are subtypes of "
                            "number.")
        if aval.ndim == 0 or aval.shape[axis % aval.ndim] <= 1:
            return operand
        axis = axis % aval.ndim
        if combine is lax.add and aval.dtype in CumulativeSum.DTYPES and binds_anywhere(aval.size):
            return bind(P.cumsum_p, operand, axis=axis, reverse=bool(reverse))
        known = monoid(combine, aval.dtype)
        if known is None:
            return associative_scan(combine, operand, reverse=reverse, axis=axis)
        perm = tuple(d for d in range(aval.ndim) if d != axis) + (axis,)
        x = lax.transpose(operand, perm)
        x = lax.rev(x, (aval.ndim - 1,)) if reverse else x
        out = _blocked_scan(x, combine, *known)
        out = lax.rev(out, (aval.ndim - 1,)) if reverse else out
        inverse = tuple(perm.index(d) for d in range(aval.ndim))
        return lax.transpose(out, inverse)

    fn.__name__ = fn.__qualname__ = name
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
