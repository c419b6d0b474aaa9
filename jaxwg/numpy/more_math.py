"""Elementwise functions built from the primitives: `copysign`, `hypot`, `logaddexp`,
`logaddexp2`, `nan_to_num`, and the comparisons `isclose`, `allclose`, `array_equal`,
`array_equiv`; floating-point bits, `sinc`, `i0`, complex parts, angle conversions,
`gcd`/`lcm` and bit counting and packing, with JAX's dtypes and special values.

>>> import jaxwg.numpy as jnp
>>> jnp.hypot(3.0, 4.0).item(), jnp.copysign(2.0, -0.0).item()
(5.0, -2.0)
"""

from __future__ import annotations

import functools
import math

import numpy as np

from .. import lax
from ..lax.lax import _const_like, _strong_full_like
from ..lax.special import _i0e
from ..transforms.ad import jvp
from ..transforms.custom import custom_jvp
from . import ufuncs
from .creation import _float_dtype, full_like, ones_like, zeros_like
from ._util import (aval_of, axis_index, broadcast_shapes, broadcast_to_shape, check_arraylike,
                    elementwise_operands, ensure_arraylike, slice_axis, static_int, to_array)
from .manipulation import moveaxis
from .reductions import all as _all, any as _any

__all__ = ["allclose", "angle", "array_equal", "array_equiv", "bitwise_count", "conj",
           "conjugate", "copysign", "deg2rad", "degrees", "fabs", "float_power", "frexp", "gcd",
           "hypot", "i0", "imag", "iscomplex", "iscomplexobj", "isclose", "isneginf", "isposinf",
           "isreal", "isrealobj", "lcm", "ldexp", "logaddexp", "logaddexp2", "modf",
           "nan_to_num", "nextafter", "packbits", "rad2deg", "radians", "real", "sinc",
           "sort_complex", "spacing", "unpackbits"]


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


def _replace_inf(x):
    """`x` with +inf (of its real part) read as 0, as in JAX's logaddexp derivative."""
    real = lax.real(x) if aval_of(x).dtype.is_complex else x
    return lax.select(lax.eq(real, np.array(np.inf, aval_of(real).dtype.np)), zeros_like(x), x)


def _real_logaddexp(name: str, exp, log_scale: float):
    """log_b(b^x1 + b^x2) of real floats for the base b whose `exp` is given (`log_scale`
    = 1 / ln b), as JAX's `lax.other.logaddexp`/`logaddexp2`: its operations in its
    order, and its custom JVP, each tangent times b^(x - out) with +inf read as 0, so the
    derivative is smooth where the formula's max and |x1 - x2| have kinks (x1 == x2)."""
    def log1p_exp(d):
        out = lax.log1p(exp(d))
        return out if log_scale == 1 else lax.mul(_const_like(out, log_scale), out)

    def primal(x1, x2):
        amax = lax.max(x1, x2)
        delta = lax.sub(x1, x2)
        return lax.select(lax.ne(delta, delta), lax.add(x1, x2),  # NaNs, or infinities of one sign
                          lax.add(amax, log1p_exp(lax.neg(lax.abs(delta)))))

    def jvp(primals, tangents):
        (x1, x2), (t1, t2) = primals, tangents
        out = f(x1, x2)
        return out, lax.add(lax.mul(t1, exp(lax.sub(_replace_inf(x1), _replace_inf(out)))),
                            lax.mul(t2, exp(lax.sub(_replace_inf(x2), _replace_inf(out)))))

    primal.__name__ = primal.__qualname__ = name  # as JAX's jaxprs name them
    jvp.__name__ = jvp.__qualname__ = f"_{name}_jvp"
    f = custom_jvp(primal)
    f.defjvp(jvp)
    return f


_real_logaddexp_e = _real_logaddexp("logaddexp", lax.exp, 1.0)
_real_logaddexp_2 = _real_logaddexp("logaddexp2", lax.exp2, 1 / np.log(2))


def logaddexp(x1, x2, /):
    """log(exp(x1) + exp(x2)) without overflow.

    >>> import jaxwg.numpy as jnp
    >>> round(jnp.logaddexp(1000.0, 1000.0).item(), 3)
    1000.693
    """
    a, b = elementwise_operands("logaddexp", x1, x2, to_inexact=True)
    if aval_of(a).dtype.is_complex:
        return _logaddexp(a, b, lambda d: ufuncs.log1p(ufuncs.exp(d)))
    return _real_logaddexp_e(a, b)


def logaddexp2(x1, x2, /):
    """log2(2^x1 + 2^x2) without overflow.

    >>> import jaxwg.numpy as jnp
    >>> jnp.logaddexp2(3.0, 3.0).item()
    4.0
    """
    a, b = elementwise_operands("logaddexp2", x1, x2, to_inexact=True)
    if aval_of(a).dtype.is_complex:
        return _logaddexp(a, b, lambda d: ufuncs.log1p(ufuncs.exp2(d)) / np.log(2))
    return _real_logaddexp_2(a, b)


def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    """NaN as `nan`, infinities as `posinf`/`neginf` (default: the dtype's extremes); for
    complex input, in the real and imaginary parts separately, as JAX's.

    >>> import jaxwg.numpy as jnp
    >>> jnp.nan_to_num(jnp.array([jnp.nan, jnp.inf, -1.0])).tolist()
    [0.0, 3.4028234663852886e+38, -1.0]
    >>> jnp.nan_to_num(jnp.array([complex(jnp.inf, jnp.nan)]), posinf=9.0).tolist()
    [(9+0j)]
    """
    x = ensure_arraylike("nan_to_num", x)
    if not np.issubdtype(x.dtype, np.inexact):
        return x
    if np.issubdtype(x.dtype, np.complexfloating):
        return lax.complex(*(nan_to_num(part, nan=nan, posinf=posinf, neginf=neginf)
                             for part in (lax.real(x), lax.imag(x))))
    info = np.finfo(x.dtype)
    posinf = info.max if posinf is None else posinf
    neginf = info.min if neginf is None else neginf
    # JAX's replacements are asarray(value, dtype=x.dtype): strongly typed, as the result
    out = ufuncs.where(ufuncs.isnan(x), _strong_full_like(x, nan), x)
    out = ufuncs.where(x == np.inf, _strong_full_like(x, posinf), out)
    return ufuncs.where(x == -np.inf, _strong_full_like(x, neginf), out)


def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """|a - b| <= atol + rtol |b| elementwise; equal infinities are close.

    >>> import jaxwg.numpy as jnp
    >>> jnp.isclose(jnp.array([1.0, jnp.nan]), jnp.array([1.0 + 1e-7, jnp.nan]), equal_nan=True).tolist()
    [True, True]
    """
    # As JAX: integers and bools compare as floats, so atol and rtol apply to them too.
    a, b = elementwise_operands("isclose", a, b, to_inexact=True)
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
    check_arraylike("allclose", a, b)
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

    Shapes that do not broadcast raise TypeError, as in JAX (NumPy returns False).

    >>> import jaxwg.numpy as jnp
    >>> jnp.array_equiv(jnp.ones((2, 3)), jnp.ones(3)).item()
    True
    """
    return _all(ufuncs.equal(to_array(a1), to_array(a2)))


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


# -- floating-point bits: frexp, ldexp, nextafter, spacing ------------------------------------
#
# float32 works on its bits (`lax.bitcast_convert_type` to int32), so results are exact,
# subnormals included, as JAX's algorithms give them in IEEE arithmetic (XLA's CPU backend
# flushes subnormals, NumPy and the WebGPU software adapter do not). float16 goes through
# float32, where its values (subnormals too) are normal and every step is exact: jaxwg has
# no 16-bit integer type to hold its bits. float64 would need 64-bit integers (nextafter
# and spacing are `lax.nextafter`'s, which steps float64 by arithmetic).

_F32_EXPONENT_BITS = 0x7F800000
_F32_MANTISSA_BITS = 23
_F32_SUBNORMAL_SCALE = 2.0 ** _F32_MANTISSA_BITS  # lifts a subnormal into the normal range


def _bits_operand(name: str, x):
    """`x` as float32, with the float dtype to return; float64 is refused clearly."""
    if x.dtype == np.float64:
        raise NotImplementedError(f"jnp.{name} for float64 works on 64-bit integer bits, "
                                  "which jaxwg does not have (float32 and float16 work).")
    return lax.convert_element_type(x, np.float32), x.dtype


def _f32_bits(x):
    return lax.bitcast_convert_type(x, np.int32)


def _f32_from_bits(bits):
    return lax.bitcast_convert_type(bits, np.float32)


def _frexp_f32(x):
    """(mantissa in [0.5, 1) with x's sign, int32 exponent); 0, inf, NaN give (x, 0)."""
    subnormal = (ufuncs.abs(x) < np.finfo(np.float32).tiny) & (x != 0)
    normal_x = ufuncs.where(subnormal, x * _F32_SUBNORMAL_SCALE, x)
    bits = _f32_bits(normal_x)
    biased = (bits & _F32_EXPONENT_BITS) >> _F32_MANTISSA_BITS
    exponent = biased - 126 - ufuncs.where(subnormal, _F32_MANTISSA_BITS, 0)
    mantissa = _f32_from_bits((bits & ~_F32_EXPONENT_BITS) | (126 << _F32_MANTISSA_BITS))
    special = (x == 0) | ~ufuncs.isfinite(x)
    return ufuncs.where(special, x, mantissa), ufuncs.where(special, 0, exponent)


def _pow2_f32(k):
    """2.0 ** k exactly for int32 `k`: subnormal down to 2^-149, 0 below, inf above 127."""
    normal = _f32_from_bits(ufuncs.clip(k + 127, 1, 254) << _F32_MANTISSA_BITS)
    subnormal = _f32_from_bits(1 << ufuncs.clip(k + 149, 0, 22))
    out = ufuncs.where(k >= -126, normal, ufuncs.where(k >= -149, subnormal, np.float32(0)))
    return ufuncs.where(k > 127, np.float32(np.inf), out)


def frexp(x, /):
    """The mantissa (in [0.5, 1), with x's sign) and int32 exponent of `x`:
    `x == mantissa * 2 ** exponent`; 0, inf and NaN give (x, 0).

    >>> import jaxwg.numpy as jnp
    >>> [a.tolist() for a in jnp.frexp(jnp.array([1.0, 3.0, -0.375, 0.0]))]
    [[0.5, 0.75, -0.75, 0.0], [1, 2, -1, 0]]
    """
    (x,) = elementwise_operands("frexp", x, to_inexact=True)
    x32, dtype = _bits_operand("frexp", x)
    _, exponent = _frexp_f32(x32)
    # the mantissa as x * 2^-exponent, so that its derivative is 2^-exponent (as JAX's)
    return lax.convert_element_type(_ldexp_f32(x32, -exponent), dtype), exponent


def ldexp(x1, x2, /):
    """`x1 * 2 ** x2` for an integer `x2`, rounded once (subnormal results included).

    >>> import jaxwg.numpy as jnp
    >>> jnp.ldexp(jnp.array([0.75, 1.0, -3.0]), jnp.array([2, -149, 200])).tolist()
    [3.0, 1.401298464324817e-45, -inf]
    """
    check_arraylike("ldexp", x1, x2)
    n = to_array(x2)
    if n.dtype.kind not in "biu":
        raise ValueError(f"ldexp not supported for input types {(to_array(x1).dtype, n.dtype)}")
    (x,) = elementwise_operands("ldexp", x1, to_inexact=True)
    broadcast_shapes(aval_of(x).shape, aval_of(n).shape)
    # Past +-400 every result is already 0 or inf: clipping keeps the int32 sum below exact.
    if n.dtype == np.uint32:
        n = ufuncs.minimum(n, np.uint32(400))
    n = ufuncs.clip(lax.convert_element_type(n, np.int32), -400, 400)
    x32, dtype = _bits_operand("ldexp", x)
    return lax.convert_element_type(_ldexp_f32(x32, n), dtype)


@custom_jvp
def _ldexp_f32(x, n):
    """x * 2^n rounded once, for float32 `x` and int32 `n` in [-400, 400]; built from
    the bits, so its derivative comes from the rule below."""
    mantissa, exponent = _frexp_f32(x)
    total = exponent + n
    # A mantissa in [1, 2) lets 2^127 * 1.x stay finite without forming 2^128.
    mantissa = ufuncs.where(total > 0, mantissa * 2, mantissa)
    total = ufuncs.where(total > 0, total - 1, total)
    return ufuncs.where(ufuncs.isinf(x) | (x == 0), x, mantissa * _pow2_f32(total))


@_ldexp_f32.defjvp
def _ldexp_f32_jvp(primals, tangents):
    # times 2^n (inf past 2^127, as JAX's): a product, so reverse mode transposes it;
    # the integer n has no tangent
    (x, n), (t, _) = primals, tangents
    return _ldexp_f32(x, n), t * _ldexp_f32(ones_like(x), n)


def nextafter(x, y, /):
    """The next representable value after `x` toward `y` (`y` where they are equal):
    `lax.nextafter` after promotion and broadcasting.

    >>> import jaxwg.numpy as jnp
    >>> jnp.nextafter(jnp.array([1.0, 0.0]), jnp.array([2.0, -1.0])).tolist()
    [1.0000001192092896, -1.401298464324817e-45]
    """
    return lax.nextafter(*elementwise_operands("nextafter", x, y, to_inexact=True, rank_only=True))


def spacing(x, /):
    """The distance from `x` to the next value away from zero (toward +inf for float16, as
    NumPy and JAX), with x's sign; NaN at inf and NaN.

    >>> import jaxwg.numpy as jnp
    >>> jnp.spacing(jnp.array([1.0, -0.0])).tolist()
    [1.1920928955078125e-07, -1.401298464324817e-45]
    """
    (x,) = elementwise_operands("spacing", x, to_inexact=True)
    if np.issubdtype(x.dtype, np.complexfloating):
        raise ValueError("jnp.spacing is not defined for complex inputs.")
    if x.dtype == np.float16:
        return nextafter(x, lax.full_like(x, np.inf)) - x
    away = copysign(lax.full_like(x, np.inf), x)
    out = nextafter(x, away) - x
    # A platform that flushes subnormals steps 0 to 0; JAX answers the smallest subnormal
    # (a NumPy scalar there, so the result is strongly typed).
    smallest = copysign(_strong_full_like(x, np.finfo(x.dtype).smallest_subnormal), x)
    return ufuncs.where(out == 0, smallest, out)


# -- sinc and i0 ------------------------------------------------------------------------------


@functools.partial(custom_jvp, nondiff_argnums=(0,))
def _sinc_taylor(k, x):
    """The k-th derivative of sin(t)/t at t = 0, shaped like `x`: its JVP gives the
    (k+1)-th, so every derivative of `sinc` at 0 is exact (as JAX's)."""
    value = 0.0 if k % 2 else (-1) ** (k // 2) / (k + 1)
    return x * 0 + value


@_sinc_taylor.defjvp
def _sinc_taylor_jvp(k, primals, tangents):
    (x,), (t,) = primals, tangents
    return _sinc_taylor(k, x), _sinc_taylor(k + 1, x) * t


def sinc(x, /):
    """The normalized sinc, sin(pi x) / (pi x), with its limit 1 at 0 (and its derivatives
    there, of every order).

    >>> import jaxwg.numpy as jnp
    >>> jnp.sinc(jnp.array([0.0, 0.5, 1.0])).round(4).tolist()
    [1.0, 0.6366000175476074, -0.0]
    """
    (x,) = elementwise_operands("sinc", x, to_inexact=True)
    at_zero = x == 0
    pi_x = x * np.pi
    safe_pi_x = ufuncs.where(at_zero, _const_like(x, 1), pi_x)  # JAX's constant
    return ufuncs.where(at_zero, _sinc_taylor(0, pi_x), ufuncs.sin(safe_pi_x) / safe_pi_x)


@custom_jvp
def _i0(x):
    z = ufuncs.abs(x)
    return ufuncs.exp(z) * _i0e(z)


@_i0.defjvp
def _i0_jvp(primals, tangents):
    # I0' = I1, odd: 0 at 0, where the derivative of |x| has no value.
    (x,), (t,) = primals, tangents
    out, derivative = jvp(_i0.fun, (x,), (t,))
    return out, ufuncs.where(x == 0, lax.full_like(derivative, 0), derivative)


def i0(x):
    """The modified Bessel function of the first kind, order 0 (XLA's Chebyshev series).

    >>> import jaxwg.numpy as jnp
    >>> jnp.i0(jnp.array([0.0, 1.0])).round(3).tolist()
    [1.0, 1.2660000324249268]
    """
    (x,) = elementwise_operands("i0", x, to_inexact=True)
    if x.dtype == np.float16:
        return lax.convert_element_type(_i0(lax.convert_element_type(x, np.float32)),
                                        np.float16, aval_of(x).weak_type)
    return _i0(x)


# -- complex parts ----------------------------------------------------------------------------


def iscomplexobj(x) -> bool:
    """Whether `x` has a complex dtype (Python complex scalars and NumPy data included).

    >>> import jaxwg.numpy as jnp
    >>> jnp.iscomplexobj(jnp.ones(2)), jnp.iscomplexobj(1j)
    (False, True)
    """
    if x is None:
        return False
    dtype = x.dtype if hasattr(x, "dtype") else np.asarray(x).dtype
    return np.issubdtype(dtype, np.complexfloating)


def isrealobj(x) -> bool:
    """Whether `x` has no complex dtype.

    >>> import jaxwg.numpy as jnp
    >>> jnp.isrealobj(jnp.arange(2))
    True
    """
    return not iscomplexobj(x)


def _operand(name: str, x):
    check_arraylike(name, x)
    return to_array(x)


def real(val, /):
    """The real part (a real array itself).

    >>> import jaxwg.numpy as jnp
    >>> jnp.real(jnp.array([1.5 - 1j, -2.0])).tolist()
    [1.5, -2.0]
    """
    x = _operand("real", val)
    return lax.real(x) if iscomplexobj(x) else x


def imag(val, /):
    """The imaginary part (zeros of a real array's dtype).

    >>> import jaxwg.numpy as jnp
    >>> jnp.imag(jnp.array([1, 2]))
    Array([0, 0], dtype=int32)
    >>> jnp.imag(jnp.array([1 + 2j])).tolist()
    [2.0]
    """
    x = _operand("imag", val)
    return lax.imag(x) if iscomplexobj(x) else zeros_like(x)


def conjugate(x, /):
    """The complex conjugate (a real array itself).

    >>> import jaxwg.numpy as jnp
    >>> jnp.conjugate(jnp.array([1 - 1j, 2 + 3j])).tolist()
    [(1+1j), (2-3j)]
    """
    x = _operand("conjugate", x)
    return lax.conj(x) if iscomplexobj(x) else x


def conj(x, /):
    """The complex conjugate (`conjugate`).

    >>> import jaxwg.numpy as jnp
    >>> jnp.conj(jnp.float32(2)).item()
    2.0
    """
    return conjugate(x)


def angle(z, deg=False):
    """The argument atan2(imag, real): 0 for non-negative reals, pi for negative ones
    (and -0.0), in degrees with `deg`.

    >>> import jaxwg.numpy as jnp
    >>> jnp.angle(jnp.array([2.0, -1.0]), deg=True).tolist()
    [0.0, 180.0]
    >>> round(jnp.angle(1j).item(), 6)
    1.570796
    """
    z = _operand("angle", z)
    re, im = real(z), imag(z)
    # as JAX's: integers, and real scalars (float16 too), in the default float dtype
    if not aval_of(re).dtype.is_inexact or (not iscomplexobj(z) and z.ndim == 0):
        re = lax.convert_element_type(re, _float_dtype())
        im = lax.convert_element_type(im, _float_dtype())
    out = lax.atan2(im, re)
    return degrees(out) if deg else out


def _imaginary_test(name: str, x, compare):
    """`compare(imag(x), 0)`, weakly typed where `x` is (as JAX's comparison of weak values)."""
    im = imag(_operand(name, x))
    out = compare(im, lax.full((), 0, im.dtype))
    return lax.convert_element_type(out, np.bool_, aval_of(im).weak_type)


def iscomplex(x):
    """Elementwise whether the imaginary part is nonzero: all False for real arrays.

    >>> import jaxwg.numpy as jnp
    >>> jnp.iscomplex(jnp.array([1.0, 2.0])).tolist()
    [False, False]
    """
    return _imaginary_test("iscomplex", x, lax.ne)


def isreal(x):
    """Elementwise whether the imaginary part is zero: all True for real arrays.

    >>> import jaxwg.numpy as jnp
    >>> jnp.isreal(jnp.array([1.0, 2.0])).tolist()
    [True, True]
    """
    return _imaginary_test("isreal", x, lax.eq)


def sort_complex(a):
    """`a` sorted along its last axis (complex values by real part, then imaginary part;
    NaNs last), as a complex array.

    >>> import jaxwg.numpy as jnp
    >>> jnp.sort_complex(jnp.array([1 + 2j, 1 - 1j, -3 + 0j])).tolist()
    [(-3+0j), (1-1j), (1+2j)]
    """
    x = _operand("sort_complex", a)
    if x.ndim == 0:
        raise ValueError("sort_complex: axis -1 is out of bounds for array of dimension 0")
    if iscomplexobj(x):
        complex_dtype = x.dtype
    else:
        complex_dtype = np.complex128 if x.dtype.itemsize == 8 else np.complex64
    return lax.convert_element_type(lax.sort(x), complex_dtype, False)


# -- angles, absolute values, powers and infinities --------------------------------------------


def deg2rad(x, /):
    """Degrees converted to radians: x * (pi / 180).

    >>> import jaxwg.numpy as jnp
    >>> jnp.deg2rad(jnp.array([0.0, 180.0])).tolist()
    [0.0, 3.1415927410125732]
    """
    (x,) = elementwise_operands("deg2rad", x, to_inexact=True)
    return x * (np.pi / 180)


def rad2deg(x, /):
    """Radians converted to degrees: x * (180 / pi).

    >>> import jaxwg.numpy as jnp
    >>> jnp.rad2deg(jnp.array([0.0, jnp.pi])).tolist()
    [0.0, 180.0]
    """
    (x,) = elementwise_operands("rad2deg", x, to_inexact=True)
    return x * _const_like(x, 180 / np.pi)  # JAX's constant


def radians(x, /):
    """Degrees converted to radians (`deg2rad`).

    >>> import jaxwg.numpy as jnp
    >>> jnp.radians(jnp.array([90.0])).tolist()
    [1.5707963705062866]
    """
    return deg2rad(x)


def degrees(x, /):
    """Radians converted to degrees (`rad2deg`).

    >>> import jaxwg.numpy as jnp
    >>> jnp.degrees(jnp.array([jnp.pi / 2])).tolist()
    [90.0]
    """
    return rad2deg(x)


def fabs(x, /):
    """|x| as a float (integers and bools are promoted; complex input is refused).

    >>> import jaxwg.numpy as jnp
    >>> jnp.fabs(jnp.array([-5, 2])).tolist()
    [5.0, 2.0]
    """
    if iscomplexobj(_operand("fabs", x)):
        raise TypeError("ufunc 'fabs' does not support complex dtypes")
    (x,) = elementwise_operands("fabs", x, to_inexact=True)
    return ufuncs.abs(x)


def float_power(x, y, /):
    """x ** y computed in floating point (integers are promoted first, so negative
    integer powers give fractions).

    >>> import jaxwg.numpy as jnp
    >>> jnp.float_power(jnp.array([2, 4]), jnp.array([-1, 2])).tolist()
    [0.5, 16.0]
    """
    a, b = elementwise_operands("float_power", x, y, to_inexact=True, rank_only=True)
    return lax.pow(a, b)


def _is_signed_inf(name: str, x, infinity: float, out):
    x = _operand(name, x)
    if out is not None:
        raise NotImplementedError("The 'out' argument to isneginf/isposinf is not supported.")
    if iscomplexobj(x):
        raise ValueError(f"{name}: isposinf/isneginf are not well defined for complex types")
    if not np.issubdtype(x.dtype, np.floating):
        return lax.full(x.shape, False, np.bool_)
    return lax.convert_element_type(lax.eq(x, lax.full_like(x, infinity)), np.bool_, False)


def isposinf(x, /, out=None):
    """Whether each element is +inf (all False for integers; complex input is refused).

    >>> import jaxwg.numpy as jnp
    >>> jnp.isposinf(jnp.array([jnp.inf, -jnp.inf, jnp.nan])).tolist()
    [True, False, False]
    """
    return _is_signed_inf("isposinf", x, np.inf, out)


def isneginf(x, /, out=None):
    """Whether each element is -inf (all False for integers; complex input is refused).

    >>> import jaxwg.numpy as jnp
    >>> jnp.isneginf(jnp.array([jnp.inf, -jnp.inf, jnp.nan])).tolist()
    [False, True, False]
    """
    return _is_signed_inf("isneginf", x, -np.inf, out)


# -- integers: gcd, lcm, bitwise_count ---------------------------------------------------------


def _integer_operands(name: str, x1, x2):
    """|x1| and |x2| for `gcd` or `lcm`, promoted and broadcast to one shape (integers
    only), as unsigned integers of their width, and the dtype and weak type to return.
    Unsigned, |INT_MIN| is 2^(bits - 1) and Euclid's steps end (JAX's loop never does:
    its abs leaves INT_MIN negative); the results' bits are JAX's wherever it ends."""
    a, b = elementwise_operands(name, x1, x2)
    if not np.issubdtype(a.dtype, np.integer):
        raise ValueError(f"Arguments to jax.numpy.{name} must be integers.")
    dtype, weak = a.dtype, aval_of(a).weak_type
    shape = broadcast_shapes(a.shape, b.shape)
    unsigned = np.dtype(f"uint{8 * dtype.itemsize}")
    a, b = (lax.convert_element_type(ufuncs.abs(broadcast_to_shape(v, shape)), unsigned)
            for v in (a, b))
    return a, b, dtype, weak


def _euclid_step(pair):
    """(a, b) -> (b, a rem b) where b is nonzero, then ordered larger first (JAX's step)."""
    a, b = pair
    nonzero = b != 0
    remainder = lax.rem(a, ufuncs.where(nonzero, b, full_like(b, 1)))
    a, b = ufuncs.where(nonzero, b, a), ufuncs.where(nonzero, remainder, zeros_like(b))
    return ufuncs.maximum(a, b), ufuncs.minimum(a, b)


def _gcd(a, b):
    """The gcd of unsigned integers by Euclid's steps, while any divisor is nonzero."""
    out, _ = lax.while_loop(lambda pair: _any(pair[1] != 0), _euclid_step, (a, b))
    return out


def gcd(x1, x2, /):
    """The greatest common divisor of |x1| and |x2| (integers; gcd(0, 0) is 0). Unlike
    JAX's, whose loop never ends there, gcd(INT_MIN, x) ends, with NumPy's value.

    >>> import jaxwg.numpy as jnp
    >>> jnp.gcd(jnp.array([12, 18, 0]), jnp.array([18, -4, 5])).tolist()
    [6, 2, 5]
    """
    a, b, dtype, weak = _integer_operands("gcd", x1, x2)
    return lax.convert_element_type(_gcd(a, b), dtype, weak)


def lcm(x1, x2, /):
    """The least common multiple of |x1| and |x2| (integers; 0 where either is 0;
    wraps around where it overflows the dtype).

    >>> import jaxwg.numpy as jnp
    >>> jnp.lcm(jnp.array([4, -6, 0]), jnp.array([6, 4, 5])).tolist()
    [12, 12, 0]
    """
    a, b, dtype, weak = _integer_operands("lcm", x1, x2)
    d = _gcd(a, b)
    zero = d == 0
    multiple = a * ufuncs.floor_divide(b, ufuncs.where(zero, full_like(d, 1), d))
    return lax.convert_element_type(ufuncs.where(zero, zeros_like(d), multiple), dtype, weak)


def bitwise_count(x, /):
    """The number of 1 bits in |x|, as uint8 (bools count as integers).

    >>> import jaxwg.numpy as jnp
    >>> jnp.bitwise_count(jnp.array([7, -1, 0])).tolist()
    [3, 1, 0]
    """
    (x,) = elementwise_operands("bitwise_count", x)
    if x.dtype == np.bool_:
        x = lax.convert_element_type(x, np.int32)
    if not np.issubdtype(x.dtype, np.integer):
        raise TypeError(f"bitwise_count does not accept dtype {x.dtype}. Accepted dtypes are "
                        "subtypes of integer.")
    return lax.convert_element_type(lax.population_count(ufuncs.abs(x)), np.uint8, False)


# -- bits: packbits, unpackbits ----------------------------------------------------------------


def _bit_weights(name: str, bitorder: str):
    """The value of each of a byte's 8 bits in order: 128 first for "big", 1 for "little"."""
    if bitorder not in ("little", "big"):
        raise ValueError(f"{name}: 'order' must be either 'little' or 'big'")
    weights = 1 << np.arange(8)
    return weights[::-1] if bitorder == "big" else weights


def _along_last(name: str, x, axis):
    """`x` with `axis` moved last (flattened when None), and the axis to move it back to."""
    if axis is None:
        return lax.reshape(x, (math.prod(x.shape),)), 0
    try:
        axis = axis_index(axis, x.ndim)
    except np.exceptions.AxisError:
        raise np.exceptions.AxisError(axis, x.ndim, msg_prefix=name) from None
    return moveaxis(x, axis, -1), axis


def packbits(a, axis=None, bitorder="big"):
    """Bits (nonzero elements are 1) packed 8 to a uint8 along `axis` (the flattened
    array when None), the last byte padded with zeros; `bitorder` "big" puts the first
    bit in the highest place.

    >>> import jaxwg.numpy as jnp
    >>> jnp.packbits(jnp.array([0, 0, 0, 0, 0, 1, 1, 1, 1])).tolist()
    [7, 128]
    """
    x = _operand("packbits", a)
    if not (np.issubdtype(x.dtype, np.integer) or x.dtype == np.bool_):
        raise TypeError("packbits: expected an input array of integer or boolean data type")
    weights = _bit_weights("packbits", bitorder)
    x, axis = _along_last("packbits", x, axis)
    bits = lax.convert_element_type(lax.ne(x, lax.full_like(x, 0)), np.int32, False)
    n = bits.shape[-1]
    bits = lax.pad(bits, lax.full((), 0, np.int32), [(0, 0, 0)] * (bits.ndim - 1)
                   + [(0, -n % 8, 0)])
    bytes_ = lax.reshape(bits, bits.shape[:-1] + ((n + 7) // 8, 8))
    packed = lax.reduce_sum(bytes_ * to_array(weights.astype(np.int32)), (bytes_.ndim - 1,))
    return moveaxis(lax.convert_element_type(packed, np.uint8), -1, axis)


def unpackbits(a, axis=None, count=None, bitorder="big"):
    """The bits of uint8 `a` unpacked along `axis` (the flattened array when None): 8
    per byte, or the first `count` (a negative one drops that many at the end; past the
    end, zeros).

    >>> import jaxwg.numpy as jnp
    >>> jnp.unpackbits(jnp.array([5], dtype=jnp.uint8)).tolist()
    [0, 0, 0, 0, 0, 1, 0, 1]
    """
    x = _operand("unpackbits", a)
    if x.dtype != np.uint8:
        raise TypeError("unpackbits: expected an input array of unsigned byte data type")
    weights = to_array(_bit_weights("unpackbits", bitorder).astype(np.uint8))
    x, axis = _along_last("unpackbits", x, axis)
    masked = lax.bitwise_and(lax.broadcast_in_dim(x, x.shape + (8,), tuple(range(x.ndim))),
                             lax.broadcast_in_dim(weights, x.shape + (8,), (x.ndim,)))
    bits = lax.convert_element_type(lax.ne(masked, lax.full_like(masked, 0)), np.uint8, False)
    bits = lax.reshape(bits, x.shape[:-1] + (8 * x.shape[-1],))
    if count is not None:
        count = static_int(count, "The 'count' argument of jnp.unpackbits")
        n = bits.shape[-1]
        if count > n:
            bits = lax.pad(bits, lax.full((), 0, np.uint8), [(0, 0, 0)] * (bits.ndim - 1)
                           + [(0, count - n, 0)])
        else:
            stop = len(range(n)[:count])
            bits = slice_axis(bits, 0, stop, bits.ndim - 1)
    return moveaxis(bits, -1, axis)
