"""Elementwise functions built from the primitives: `copysign`, `hypot`, `logaddexp`,
`logaddexp2`, `nan_to_num`, and the comparisons `isclose`, `allclose`, `array_equal`,
`array_equiv`, with JAX's dtypes and special values.

>>> import jaxwg.numpy as jnp
>>> jnp.hypot(3.0, 4.0).item(), jnp.copysign(2.0, -0.0).item()
(5.0, -2.0)
"""

from __future__ import annotations

import numpy as np

from .. import lax
from . import ufuncs
from ._util import elementwise_operands, to_array
from .reductions import all as _all

__all__ = ["allclose", "array_equal", "array_equiv", "copysign", "hypot", "isclose",
           "logaddexp", "logaddexp2", "modf", "nan_to_num"]


def copysign(x1, x2, /):
    """|x1| with the sign bit of x2 (-0.0 and NaN signs included).

    >>> import jaxwg.numpy as jnp
    >>> jnp.copysign(jnp.array([1.0, -2.0]), -1.0).tolist()
    [-1.0, -2.0]
    """
    a, b = elementwise_operands("copysign", x1, x2, to_inexact=True)
    return ufuncs.where(ufuncs.signbit(b), -ufuncs.abs(a), ufuncs.abs(a))


def hypot(x1, x2, /):
    """sqrt(x1^2 + x2^2) without overflow or underflow: max * sqrt(1 + (min/max)^2).

    >>> import jaxwg.numpy as jnp
    >>> jnp.hypot(jnp.array([3e30, 0.0]), jnp.array([4e30, 0.0])).tolist()
    [4.9999999241216036e+30, 0.0]
    """
    a, b = elementwise_operands("hypot", x1, x2, to_inexact=True)
    a, b = ufuncs.abs(a), ufuncs.abs(b)
    big, small = ufuncs.maximum(a, b), ufuncs.minimum(a, b)
    ratio = ufuncs.where(big == 0, 0, small / ufuncs.where(big == 0, 1, big))
    out = big * ufuncs.sqrt(1 + ratio * ratio)
    return ufuncs.where(ufuncs.isinf(a) | ufuncs.isinf(b), np.inf, out)


def _logaddexp(a, b, log1p_exp):
    # JAX's formula: where a - b is NaN (a NaN, or infinities of one sign), a + b.
    delta = a - b
    return ufuncs.where(ufuncs.isnan(delta), a + b,
                        ufuncs.maximum(a, b) + log1p_exp(-ufuncs.abs(delta)))


def logaddexp(x1, x2, /):
    """log(exp(x1) + exp(x2)) without overflow.

    >>> import jaxwg.numpy as jnp
    >>> round(jnp.logaddexp(1000.0, 1000.0).item(), 3)
    1000.693
    """
    a, b = elementwise_operands("logaddexp", x1, x2, to_inexact=True)
    return _logaddexp(a, b, lambda d: ufuncs.log1p(ufuncs.exp(d)))


def logaddexp2(x1, x2, /):
    """log2(2^x1 + 2^x2) without overflow.

    >>> import jaxwg.numpy as jnp
    >>> jnp.logaddexp2(3.0, 3.0).item()
    4.0
    """
    a, b = elementwise_operands("logaddexp2", x1, x2, to_inexact=True)
    return _logaddexp(a, b, lambda d: ufuncs.log1p(ufuncs.exp2(d)) / np.log(2))


def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    """NaN as `nan`, infinities as `posinf`/`neginf` (default: the dtype's extremes).

    >>> import jaxwg.numpy as jnp
    >>> jnp.nan_to_num(jnp.array([jnp.nan, jnp.inf, -1.0])).tolist()
    [0.0, 3.4028234663852886e+38, -1.0]
    """
    x = to_array(x)
    if not np.issubdtype(x.dtype, np.inexact):
        return x
    info = np.finfo(x.dtype)
    posinf = info.max if posinf is None else posinf
    neginf = info.min if neginf is None else neginf
    out = ufuncs.where(ufuncs.isnan(x), lax.full_like(x, nan), x)
    out = ufuncs.where(x == np.inf, lax.full_like(x, posinf), out)
    return ufuncs.where(x == -np.inf, lax.full_like(x, neginf), out)


def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """|a - b| <= atol + rtol |b| elementwise; equal infinities are close.

    >>> import jaxwg.numpy as jnp
    >>> jnp.isclose(jnp.array([1.0, jnp.nan]), jnp.array([1.0 + 1e-7, jnp.nan]), equal_nan=True).tolist()
    [True, True]
    """
    a, b = elementwise_operands("isclose", a, b)
    if not np.issubdtype(a.dtype, np.inexact):
        return a == b
    close = ufuncs.abs(a - b) <= atol + rtol * ufuncs.abs(b)
    finite = ufuncs.isfinite(a) & ufuncs.isfinite(b)
    out = ufuncs.where(finite, close, a == b)
    if equal_nan:
        out = out | (ufuncs.isnan(a) & ufuncs.isnan(b))
    return out


def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Whether every element is `isclose`.

    >>> import jaxwg.numpy as jnp
    >>> jnp.allclose(jnp.ones(3), jnp.ones(3) + 1e-9).item()
    True
    """
    return _all(isclose(a, b, rtol, atol, equal_nan))


def array_equal(a1, a2, equal_nan=False):
    """Whether the arrays have one shape and equal elements.

    >>> import jaxwg.numpy as jnp
    >>> jnp.array_equal(jnp.arange(3), jnp.arange(3)).item()
    True
    """
    a, b = to_array(a1), to_array(a2)
    if a.shape != b.shape:
        return to_array(False)
    eq = a == b
    if equal_nan and np.issubdtype(np.result_type(a.dtype, b.dtype), np.inexact):
        eq = eq | (ufuncs.isnan(a) & ufuncs.isnan(b))
    return _all(eq)


def array_equiv(a1, a2):
    """Whether the arrays broadcast to one shape with equal elements.

    >>> import jaxwg.numpy as jnp
    >>> jnp.array_equiv(jnp.ones((2, 3)), jnp.ones(3)).item()
    True
    """
    a, b = to_array(a1), to_array(a2)
    try:
        np.broadcast_shapes(a.shape, b.shape)
    except ValueError:
        return to_array(False)
    return _all(a == b)


def modf(x, /, out=None):
    """The fractional and whole parts of `x`, both with its sign (as JAX computes them:
    infinities give a NaN fraction).

    >>> import jaxwg.numpy as jnp
    >>> [a.tolist() for a in jnp.modf(jnp.array([2.5, -1.25]))]
    [[0.5, -0.25], [2.0, -1.0]]
    """
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.modf is not supported.")
    (x,) = elementwise_operands("modf", x, to_inexact=True)
    whole = ufuncs.where(x >= 0, ufuncs.floor(x), ufuncs.ceil(x))
    return x - whole, whole
