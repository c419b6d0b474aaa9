"""Elementwise functions with NumPy's names and JAX's promotion.

Each function promotes its operands (`_util.elementwise_operands`: JAX's lattice, weak
Python scalars, integers to float where the math needs it), broadcasts them and binds
one or a few primitives. Python's sign conventions hold for `floor_divide`,
`remainder` and `%`.

>>> import jaxwg.numpy as jnp
>>> jnp.remainder(jnp.array([-7, 7]), 3), jnp.floor_divide(-7.0, 2)
(Array([2, 1], dtype=int32), Array(-4., dtype=float32, weak_type=True))
>>> jnp.exp(jnp.arange(2)).dtype
dtype('float32')
"""

from __future__ import annotations

import operator

import numpy as np

from .. import lax
from ..core import dtypes as dt
from ..frontend import aval as avals
from ..frontend.jit import staged_jit
from ..frontend.trace import Tracer
from ..lax.keys import moves_keys
from ..lax.lax import _const_like
from ._util import (aval_of, broadcast_shapes, check_arraylike, concrete, elementwise_operands,
                    ensure_arraylike, reject_out, to_array)
from ._util import broadcast_to_shape as _broadcast_to


def _kind(x):
    return aval_of(x).dtype


def _weak(x) -> bool:
    return aval_of(x).weak_type


def _weak_scalar(x) -> bool:
    """A weakly typed 0-d operand (JAX's `is_weakly_typed_scalar`). JAX writes the
    constants it combines with such an operand as Python scalars, which keeps results
    weak; beside any other operand they are strong arrays."""
    aval = aval_of(x)
    return aval.weak_type and aval.ndim == 0


def _bool_result(out, *operands):
    """A bool result, weakly typed when every (promoted) operand is, as JAX's are."""
    return lax.convert_element_type(out, dt.bool_, bool(operands) and all(_weak(o)
                                                                          for o in operands))


def _numeric_operands(name: str, *args):
    """`elementwise_operands` with bools promoted to the default int (JAX's
    `promote_args_numeric`), for arithmetic that has no bool form."""
    args = elementwise_operands(name, *args)
    if _kind(args[0]).is_bool:
        int_dtype = avals.canonical_dtype("int64")
        args = [lax.convert_element_type(a, int_dtype) for a in args]
    return args


def _signbit_float(x):
    """Whether the sign bit of float `x` is set, by its bits (true for -0.0 and -NaN).

    float16 and float64 convert to float32 first, which keeps the sign of zeros,
    infinities and NaNs."""
    wide = x if _kind(x) is dt.float32 else lax.convert_element_type(x, dt.float32)
    return lax.lt(lax.bitcast_convert_type(wide, dt.int32), 0)


# -- table-built functions --------------------------------------------------------------------


def _float_unary(name: str, fn):
    """Math on floats: integer and bool inputs are promoted to the default float."""

    def ufunc(x, /):
        (x,) = elementwise_operands(name, x, to_inexact=True)
        return fn(x)

    ufunc.__name__ = ufunc.__qualname__ = name
    ufunc.__doc__ = (f"Elementwise {name}; integers are promoted to float.\n\n"
                     f"    >>> import jaxwg.numpy as jnp\n"
                     f"    >>> jnp.{name}(jnp.zeros(2)).shape\n    (2,)\n")
    return ufunc


def _binary(name: str, fn, to_inexact: bool = False):
    def ufunc(x1, x2, /):
        a, b = elementwise_operands(name, x1, x2, to_inexact=to_inexact, rank_only=True)
        return fn(a, b)

    ufunc.__name__ = ufunc.__qualname__ = name
    ufunc.__doc__ = (f"Elementwise {name} with broadcasting and JAX's promotion.\n\n"
                     f"    >>> import jaxwg.numpy as jnp\n"
                     f"    >>> jnp.{name}(jnp.ones(2), jnp.ones(2)).shape\n    (2,)\n")
    return ufunc


exp = _float_unary("exp", lax.exp)
exp2 = _float_unary("exp2", lax.exp2)
expm1 = _float_unary("expm1", lax.expm1)
log = _float_unary("log", lax.log)
log1p = _float_unary("log1p", lax.log1p)
sin = _float_unary("sin", lax.sin)
cos = _float_unary("cos", lax.cos)
tan = _float_unary("tan", lax.tan)
arcsin = _float_unary("arcsin", lax.asin)
arccos = _float_unary("arccos", lax.acos)
arctan = _float_unary("arctan", lax.atan)
sinh = _float_unary("sinh", lax.sinh)
cosh = _float_unary("cosh", lax.cosh)
tanh = _float_unary("tanh", lax.tanh)
arcsinh = _float_unary("arcsinh", lax.asinh)
arccosh = _float_unary("arccosh", lax.acosh)
arctanh = _float_unary("arctanh", lax.atanh)
sqrt = _float_unary("sqrt", lax.sqrt)
cbrt = _float_unary("cbrt", lax.cbrt)
asin, acos, atan = arcsin, arccos, arctan
asinh, acosh, atanh = arcsinh, arccosh, arctanh


def log2(x, /):
    """Base-2 logarithm.

    >>> import jaxwg.numpy as jnp
    >>> jnp.log2(8.0)
    Array(3., dtype=float32)
    """
    (x,) = elementwise_operands("log2", x, to_inexact=True)
    return _log_base(x, 2.0)


def log10(x, /):
    """Base-10 logarithm.

    >>> import jaxwg.numpy as jnp
    >>> float(jnp.log10(100.0))
    2.0
    """
    (x,) = elementwise_operands("log10", x, to_inexact=True)
    return _log_base(x, 10.0)


def abs_squared(x):
    """|x|^2 elementwise: x * x, and re^2 + im^2 (real) for complex x, without abs's
    square root (the terms of variances and 2-norms).

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg.numpy.ufuncs import abs_squared
    >>> abs_squared(jnp.array([3 + 4j, 1j])).tolist()
    [25.0, 1.0]
    """
    if _kind(x).is_complex:
        re, im = lax.real(x), lax.imag(x)
        return lax.add(lax.mul(re, re), lax.mul(im, im))
    return lax.mul(x, x)


def _log_base(x, base: float):
    """log(x) / log(base); for complex x each part divided by the real log(base), so
    that log10(0j) is -inf + 0j and log10(inf j) is inf + 0.68j, not NaN (a complex
    quotient multiplies the infinite part by the divisor's zero imaginary part)."""
    log = lax.log(x)
    if not _kind(x).is_complex:
        return lax.div(log, lax.log(lax.full((), base, _kind(x))))
    divisor = lax.log(lax.full((), base, dt.PART[_kind(x)]))
    return lax.complex(lax.div(lax.real(log), divisor), lax.div(lax.imag(log), divisor))


def _rounding(name: str, fn):
    def ufunc(x, /):
        (x,) = elementwise_operands(name, x)
        if _kind(x).is_complex:
            raise TypeError(f"{name} does not accept dtype {_kind(x).name}. Accepted dtypes are "
                            "subtypes of floating.")
        return x if not _kind(x).is_float else fn(x)

    ufunc.__name__ = ufunc.__qualname__ = name
    ufunc.__doc__ = (f"Elementwise {name}; integers pass through unchanged.\n\n"
                     f"    >>> import jaxwg.numpy as jnp\n"
                     f"    >>> jnp.{name}(jnp.array([1.5, -1.5])).shape\n    (2,)\n")
    return ufunc


floor = _rounding("floor", lax.floor)
ceil = _rounding("ceil", lax.ceil)
trunc = _rounding("trunc", lambda x: lax.select(lax.lt(x, 0.0), lax.ceil(x), lax.floor(x)))
fix = trunc


def rint(x, /):
    """Round to the nearest integer, halves to even; integers become floats (as JAX).

    >>> import jaxwg.numpy as jnp
    >>> jnp.rint(jnp.array([0.5, 1.5, -2.5])).tolist(), jnp.rint(jnp.arange(2)).dtype
    ([0.0, 2.0, -2.0], dtype('float32'))
    """
    x = ensure_arraylike("rint", x)
    if not aval_of(x).dtype.is_float:  # as JAX: a strongly typed float, nothing to round
        return lax.convert_element_type(x, avals.canonical_dtype("float64"))
    (x,) = elementwise_operands("rint", x)
    return lax.round(x, 1)


def round(a, decimals: int = 0, out=None):
    """Round to `decimals` digits, halves to even (as NumPy); complex numbers part by part.
    As JAX: integers take no negative `decimals`, and a `decimals` beyond the dtype's
    range leaves floats as they are.

    >>> import jaxwg.numpy as jnp
    >>> jnp.round(jnp.array([0.5, 1.5, 2.5])).tolist(), jnp.round(jnp.array([2.25]), 1).tolist()
    ([0.0, 2.0, 2.0], [2.200000047683716])
    """
    decimals = operator.index(concrete(decimals, "The 'decimals' argument of jnp.round must "
                                                 "be static."))
    reject_out("round", out)
    (a,) = elementwise_operands("round", a)
    kind = _kind(a)
    if kind.is_bool:  # JAX meets NumPy's finfo(bool) error
        raise ValueError(f"data type {np.bool_} not inexact")
    if not kind.is_inexact:
        if decimals < 0:
            raise NotImplementedError("integer np.round not implemented for decimals < 0")
        return a
    if decimals > np.log10(np.finfo(kind.np).max):  # 10**decimals would overflow: a no-op
        return a
    if kind.is_complex:
        return lax.complex(_round_float(lax.real(a), decimals), _round_float(lax.imag(a), decimals))
    return _round_float(a, decimals)


def _round_float(a, decimals: int):
    """Real floats rounded to `decimals` digits as JAX does: scale, round half to even,
    unscale; float16 does it in float32."""
    kind = _kind(a)
    if decimals == 0:
        return lax.round(a, 1)
    x = lax.convert_element_type(a, dt.float32) if kind is dt.float16 else a
    factor = _const_like(x, 10.0 ** decimals)  # JAX's lax._const: weak beside a weak scalar
    rounded = lax.div(lax.round(lax.mul(x, factor), 1), factor)
    return lax.convert_element_type(rounded, kind, _weak(a)) if kind is dt.float16 else rounded


around = round


def absolute(x, /):
    """|x| (integers keep their dtype; bool and unsigned integers pass through, as JAX's:
    lax.abs takes neither).

    >>> import jaxwg.numpy as jnp
    >>> jnp.abs(jnp.array([-2, 3]))
    Array([2, 3], dtype=int32)
    """
    (x,) = elementwise_operands("absolute", x)
    return x if _kind(x).is_bool or _kind(x).is_unsigned else lax.abs(x)


abs = absolute


def negative(x, /):
    """-x.

    >>> import jaxwg.numpy as jnp
    >>> jnp.negative(jnp.array([1, -2]))
    Array([-1,  2], dtype=int32)
    """
    (x,) = elementwise_operands("negative", x)
    if _kind(x).is_bool:
        raise TypeError("negative does not accept dtype bool")
    return lax.neg(x)


def positive(x, /):
    """+x (a copy-free identity).

    >>> import jaxwg.numpy as jnp
    >>> jnp.positive(jnp.array([1, -2]))
    Array([ 1, -2], dtype=int32)
    """
    (x,) = elementwise_operands("positive", x)
    return x


def sign(x, /):
    """-1, 0 or 1 by the sign of x (NaN stays NaN, -0.0 stays -0.0).

    >>> import jaxwg.numpy as jnp
    >>> jnp.sign(jnp.array([-3.0, 0.0, 2.0]))
    Array([-1.,  0.,  1.], dtype=float32)
    """
    (x,) = elementwise_operands("sign", x)
    if _kind(x).is_bool:
        raise TypeError("sign does not accept dtype bool")
    return lax.sign(x)


def square(x, /):
    """x * x.

    >>> import jaxwg.numpy as jnp
    >>> jnp.square(jnp.array([2, 3]))
    Array([4, 9], dtype=int32)
    """
    (x,) = _numeric_operands("square", x)
    return lax.integer_pow(x, 2)


def reciprocal(x, /):
    """1 / x.

    >>> import jaxwg.numpy as jnp
    >>> jnp.reciprocal(jnp.array([2.0, 4.0]))
    Array([0.5 , 0.25], dtype=float32)
    """
    (x,) = elementwise_operands("reciprocal", x, to_inexact=True)
    return lax.integer_pow(x, -1)


def add(x1, x2, /):
    """x1 + x2 (logical or for bools).

    >>> import jaxwg.numpy as jnp
    >>> jnp.add(jnp.arange(3), 1.5)   # a Python float is weakly typed, as in JAX
    Array([1.5, 2.5, 3.5], dtype=float32, weak_type=True)
    """
    a, b = elementwise_operands("add", x1, x2, rank_only=True)
    return lax.bitwise_or(a, b) if _kind(a).is_bool else lax.add(a, b)


def subtract(x1, x2, /):
    """x1 - x2.

    >>> import jaxwg.numpy as jnp
    >>> jnp.subtract(jnp.arange(3), 1)
    Array([-1,  0,  1], dtype=int32)
    """
    a, b = elementwise_operands("subtract", x1, x2, rank_only=True)
    if _kind(a).is_bool:
        raise TypeError("subtract does not accept dtype bool; use logical_xor")
    return lax.sub(a, b)


def multiply(x1, x2, /):
    """x1 * x2 (logical and for bools).

    >>> import jaxwg.numpy as jnp
    >>> jnp.multiply(jnp.arange(3), 2)
    Array([0, 2, 4], dtype=int32)
    """
    a, b = elementwise_operands("multiply", x1, x2, rank_only=True)
    return lax.bitwise_and(a, b) if _kind(a).is_bool else lax.mul(a, b)


def true_divide(x1, x2, /):
    """x1 / x2 in floating point (integers are promoted first).

    >>> import jaxwg.numpy as jnp
    >>> jnp.true_divide(jnp.arange(3), 2)
    Array([0. , 0.5, 1. ], dtype=float32)
    """
    a, b = elementwise_operands("true_divide", x1, x2, to_inexact=True, rank_only=True)
    return lax.div(a, b)


divide = true_divide


def _int_floor_divide(a, b):
    q = lax.div(a, b)
    if _kind(a).is_unsigned:
        return q
    r = lax.rem(a, b)
    # Truncation rounded toward zero; step down where the signs differ and r != 0.
    fix = lax.bitwise_and(lax.ne(r, 0), lax.ne(lax.lt(a, 0), lax.lt(b, 0)))
    return lax.select(fix, lax.sub(q, 1), q)


def _float_divmod(a, b):
    """JAX's float floor division and modulus, with Python's signs."""
    mod = lax.rem(a, b)
    div = lax.div(lax.sub(a, mod), b)
    fix = lax.bitwise_and(lax.ne(mod, 0.0), lax.ne(lax.lt(b, 0.0), lax.lt(mod, 0.0)))
    mod = lax.select(fix, lax.add(mod, b), mod)
    div = lax.select(fix, lax.sub(div, 1.0), div)
    return lax.round(div, 1), mod


def floor_divide(x1, x2, /):
    """x1 // x2 rounded toward -inf, as Python.

    >>> import jaxwg.numpy as jnp
    >>> jnp.floor_divide(jnp.array([-7, 7]), 2)
    Array([-4,  3], dtype=int32)
    """
    a, b = _numeric_operands("floor_divide", x1, x2)
    kind = _kind(a)
    if kind.is_float:
        div, _ = _float_divmod(a, b)
        return lax.select(lax.eq(b, 0.0), lax.div(a, b), div)
    return _int_floor_divide(a, b)


def remainder(x1, x2, /):
    """x1 % x2 with the sign of x2, as Python.

    >>> import jaxwg.numpy as jnp
    >>> jnp.remainder(jnp.array([-7.0, 7.0]), 3.0)
    Array([2., 1.], dtype=float32)
    """
    a, b = _numeric_operands("remainder", x1, x2)
    kind = _kind(a)
    r = lax.rem(a, b)
    if kind.is_unsigned:
        return r
    zero = 0.0 if kind.is_float else 0
    fix = lax.bitwise_and(lax.ne(r, zero), lax.ne(lax.lt(r, zero), lax.lt(b, zero)))
    return lax.select(fix, lax.add(r, b), r)


mod = remainder


def fmod(x1, x2, /):
    """C's fmod: the remainder with the sign of x1.

    >>> import jaxwg.numpy as jnp
    >>> jnp.fmod(jnp.array([-7, 7]), 3)
    Array([-1,  1], dtype=int32)
    """
    a, b = _numeric_operands("fmod", x1, x2)
    return lax.rem(a, b)


def divmod(x1, x2, /):
    """(floor_divide(x1, x2), remainder(x1, x2)).

    >>> import jaxwg.numpy as jnp
    >>> [v.tolist() for v in jnp.divmod(jnp.array([-7]), 2)]
    [[-4], [1]]
    """
    check_arraylike("divmod", x1, x2)
    return floor_divide(x1, x2), remainder(x1, x2)


def power(x1, x2, /):
    """x1 ** x2, as JAX: a concrete integer exponent (a Python or NumPy integer, or a
    0-d integer array outside `jit`) uses repeated multiplication and keeps x1's dtype; integer
    bases with integer exponents use square-and-multiply (wrapping like the products).

    A float base with an integer-array exponent keeps the base's dtype, weakly typed only
    if both are. Integer `x ** -n` is `1 // x ** n` (0 except for bases 1 and -1).

    >>> import jaxwg.numpy as jnp
    >>> jnp.power(jnp.arange(4), 2), jnp.power(2.0, jnp.arange(3)).tolist()
    (Array([0, 1, 4, 9], dtype=int32), [1.0, 2.0, 4.0])
    >>> jnp.power(jnp.array([-8.0, -0.0]), 3.0).tolist()
    [-512.0, -0.0]
    """
    n = _concrete_integer(x2)
    if n is not None:
        (a,) = _numeric_operands("power", x1)
        if not _kind(a).is_float and n < 0:
            raise ValueError("Integers to negative integer powers are not allowed.")
        return lax.integer_pow(a, n)
    a, b = _numeric_operands("power", x1, x2)
    kind = _kind(a)
    if not kind.is_inexact:
        return _int_power(a, b)
    out = lax.pow(a, b)
    # JAX's lax.pow(float, int) keeps the exponent's strong type: weak only if both are.
    exponent = aval_of(to_array(x2))
    if _weak(out) and exponent.dtype.is_int and not exponent.weak_type:
        out = lax.convert_element_type(out, kind, weak_type=False)
    return out


def _concrete_integer(x) -> int | None:
    """The value of a concrete integer (or bool) scalar, as JAX reads `power`'s exponent:
    Python and NumPy scalars, 0-d arrays outside a trace (read from the device). None
    for anything else, tracers included."""
    if isinstance(x, Tracer):
        return None
    try:
        return operator.index(x)
    except TypeError:
        return None


def _int_power(base, exponent):
    """Integer powers by square-and-multiply over the 32 bits of the exponent.

    int32 bases multiply as uint32 (the same bits: products wrap alike); this also keeps
    the 32-deep product chain out of the int32 index simplifier, which grows
    exponentially with such chains under jit."""
    kind = _kind(base)
    acc = lax.bitcast_convert_type(base, dt.uint32) if kind is dt.int32 else base
    result = lax.full_like(acc, 1)
    e = exponent
    for _ in range(32):
        bit = lax.ne(lax.bitwise_and(e, 1), 0)
        result = lax.select(bit, lax.mul(result, acc), result)
        acc = lax.mul(acc, acc)
        e = lax.shift_right_logical(e, 1)
    if kind is dt.int32:
        result = lax.bitcast_convert_type(result, dt.int32)
    if _kind(exponent).is_unsigned:
        return result
    # x ** -n = 1 // x ** n: 1 for x == 1, +-1 for x == -1 (by the parity of n), else 0.
    odd = lax.ne(lax.bitwise_and(exponent, 1), 0)
    minus_one = lax.select(odd, lax.full_like(base, -1), lax.full_like(base, 1))
    negative = lax.select(lax.eq(base, 1), lax.full_like(base, 1),
                          lax.select(lax.eq(base, -1), minus_one, lax.full_like(base, 0)))
    return lax.select(lax.lt(exponent, 0), negative, result)


pow = power


def _compare(name: str, fn):
    def ufunc(x1, x2, /):
        a, b = elementwise_operands(name, x1, x2, rank_only=True)
        if fn not in (lax.eq, lax.ne) and _kind(a).is_complex:
            # NumPy's and JAX's order: by real part, then by imaginary part.
            out = lax.select(lax.eq(lax.real(a), lax.real(b)), fn(lax.imag(a), lax.imag(b)),
                             fn(lax.real(a), lax.real(b)))
        else:
            out = fn(a, b)
        return _bool_result(out, a, b)

    ufunc.__name__ = ufunc.__qualname__ = name
    ufunc.__doc__ = (f"Elementwise {name}, a bool array.\n\n"
                     f"    >>> import jaxwg.numpy as jnp\n"
                     f"    >>> jnp.{name}(jnp.arange(3), 1).dtype\n    dtype('bool')\n")
    return ufunc


equal = _compare("equal", lax.eq)
not_equal = _compare("not_equal", lax.ne)
less = _compare("less", lax.lt)
less_equal = _compare("less_equal", lax.le)
greater = _compare("greater", lax.gt)
greater_equal = _compare("greater_equal", lax.ge)


maximum = _binary("maximum", lax.max)
minimum = _binary("minimum", lax.min)
arctan2 = _binary("arctan2", lax.atan2, to_inexact=True)
atan2 = arctan2


def fmax(x1, x2, /):
    """Maximum ignoring NaN (NaN only if both are NaN).

    >>> import jaxwg.numpy as jnp
    >>> jnp.fmax(jnp.array([1.0, jnp.nan]), 0.0).tolist()
    [1.0, 0.0]
    """
    a, b = elementwise_operands("fmax", x1, x2)
    if not _kind(a).is_inexact:
        return lax.max(a, b)
    # JAX's rule: x2 unless x1 is larger (complex: lexicographically) or x2 is NaN (so
    # fmax(0.0, -0.0) is -0.0)
    return lax.select(lax.bitwise_or(greater(a, b), isnan(b)), a, b)


def fmin(x1, x2, /):
    """Minimum ignoring NaN (NaN only if both are NaN).

    >>> import jaxwg.numpy as jnp
    >>> jnp.fmin(jnp.array([1.0, jnp.nan]), 0.0).tolist()
    [0.0, 0.0]
    """
    a, b = elementwise_operands("fmin", x1, x2)
    if not _kind(a).is_inexact:
        return lax.min(a, b)
    return lax.select(lax.bitwise_or(less(a, b), isnan(b)), a, b)  # as fmax


def _bitwise(name: str, fn, numeric: bool = False):
    def ufunc(x1, x2, /):
        a, b = (_numeric_operands if numeric else elementwise_operands)(name, x1, x2)
        if _kind(a).is_float:
            raise TypeError(f"{name} does not accept dtype {_kind(a).name}; it takes integer "
                            "or boolean arguments")
        return fn(a, b)

    ufunc.__name__ = ufunc.__qualname__ = name
    ufunc.__doc__ = (f"Elementwise {name} of integers or bools.\n\n"
                     f"    >>> import jaxwg.numpy as jnp\n"
                     f"    >>> jnp.{name}(jnp.array([6]), 3).dtype\n    dtype('int32')\n")
    return ufunc


bitwise_and = _bitwise("bitwise_and", lax.bitwise_and)
bitwise_or = _bitwise("bitwise_or", lax.bitwise_or)
bitwise_xor = _bitwise("bitwise_xor", lax.bitwise_xor)
left_shift = _bitwise("left_shift", lax.shift_left, numeric=True)
right_shift = _bitwise("right_shift", lambda a, b: lax.shift_right_logical(a, b)
                       if _kind(a).is_unsigned else lax.shift_right_arithmetic(a, b),
                       numeric=True)
bitwise_left_shift, bitwise_right_shift = left_shift, right_shift


def invert(x, /):
    """Bitwise not (logical not for bools).

    >>> import jaxwg.numpy as jnp
    >>> jnp.invert(jnp.array([0, 1]))
    Array([-1, -2], dtype=int32)
    """
    (x,) = elementwise_operands("invert", x)
    if _kind(x).is_float:
        raise TypeError(f"invert does not accept dtype {_kind(x).name}")
    return lax.bitwise_not(x)


bitwise_not = bitwise_invert = invert


def _to_bool(x):
    x = to_array(x)
    return x if _kind(x).is_bool else lax.ne(x, lax.convert_element_type(0, _kind(x)))


def logical_not(x, /):
    """not x, elementwise (any nonzero value is true).

    >>> import jaxwg.numpy as jnp
    >>> jnp.logical_not(jnp.array([0, 2])).tolist()
    [True, False]
    """
    (x,) = elementwise_operands("logical_not", x)
    return lax.convert_element_type(lax.bitwise_not(_to_bool(x)), dt.bool_, _weak_scalar(x))


def _logical(name: str, fn):
    def ufunc(x1, x2, /):
        a, b = elementwise_operands(name, x1, x2, rank_only=True)
        out = fn(_to_bool(a), _to_bool(b))
        weak = _weak_scalar(a) and _weak_scalar(b)
        return lax.convert_element_type(out, dt.bool_, weak_type=weak)

    ufunc.__name__ = ufunc.__qualname__ = name
    ufunc.__doc__ = (f"Elementwise {name} of truth values.\n\n"
                     f"    >>> import jaxwg.numpy as jnp\n"
                     f"    >>> jnp.{name}(jnp.array([0, 1]), 1).dtype\n    dtype('bool')\n")
    return ufunc


logical_and = _logical("logical_and", lax.bitwise_and)
logical_or = _logical("logical_or", lax.bitwise_or)
logical_xor = _logical("logical_xor", lax.bitwise_xor)


def isnan(x, /):
    """Whether each element is NaN.

    >>> import jaxwg.numpy as jnp
    >>> jnp.isnan(jnp.array([1.0, jnp.nan])).tolist()
    [False, True]
    """
    (x,) = elementwise_operands("isnan", x)
    if _kind(x).is_complex:
        return lax.bitwise_or(isnan(lax.real(x)), isnan(lax.imag(x)))
    if not _kind(x).is_float:
        return _bool_result(lax.full(aval_of(x).shape, False, dt.bool_), x)
    return _bool_result(lax.ne(x, x), x)  # the backends test NaN by bits, not by x != x


def isinf(x, /):
    """Whether each element is +-inf.

    >>> import jaxwg.numpy as jnp
    >>> jnp.isinf(jnp.array([1.0, -jnp.inf])).tolist()
    [False, True]
    """
    (x,) = elementwise_operands("isinf", x)
    kind = _kind(x)
    if kind.is_complex:
        return lax.bitwise_or(isinf(lax.real(x)), isinf(lax.imag(x)))
    if not kind.is_float:
        return lax.full(aval_of(x).shape, False, dt.bool_)
    if kind is dt.float64:
        return _bool_result(lax.eq(lax.abs(x), float("inf")))  # never weak, as JAX
    # By bits (float16 widens exactly), which no finite-math compiler folds away.
    wide = x if kind is dt.float32 else lax.convert_element_type(x, dt.float32)
    bits = lax.bitwise_and(lax.bitcast_convert_type(wide, dt.int32), 0x7FFFFFFF)
    return _bool_result(lax.eq(bits, 0x7F800000))


def isfinite(x, /):
    """Whether each element is finite (not NaN or inf).

    >>> import jaxwg.numpy as jnp
    >>> jnp.isfinite(jnp.array([1.0, jnp.inf, jnp.nan])).tolist()
    [True, False, False]
    """
    (x,) = elementwise_operands("isfinite", x)
    if _kind(x).is_complex:
        return lax.bitwise_and(isfinite(lax.real(x)), isfinite(lax.imag(x)))
    if not _kind(x).is_float:
        return lax.full(aval_of(x).shape, True, dt.bool_)
    return _bool_result(lax.is_finite(x), x)


def signbit(x, /):
    """Whether the sign bit is set (true for -0.0).

    >>> import jaxwg.numpy as jnp
    >>> jnp.signbit(jnp.array([-0.0, 1.0])).tolist()
    [True, False]
    """
    (x,) = elementwise_operands("signbit", x)
    kind = _kind(x)
    if kind.is_unsigned or kind.is_bool:
        return lax.full(aval_of(x).shape, False, dt.bool_)
    if kind.is_int:
        return _bool_result(lax.lt(x, 0))  # never weak, as JAX
    return _signbit_float(x)


@moves_keys(1, 2)
def where(condition, x=None, y=None, /, *, size=None, fill_value=None):
    """`x` where `condition` else `y`, broadcast together; with `condition` alone,
    `nonzero(condition, size=size, fill_value=fill_value)`.

    >>> import jaxwg.numpy as jnp
    >>> jnp.where(jnp.arange(3) > 0, 1.0, -1.0)
    Array([-1.,  1.,  1.], dtype=float32, weak_type=True)
    >>> jnp.where(jnp.array([0, 2, 3]), size=3, fill_value=-1)[0].tolist()
    [1, 2, -1]
    """
    if x is None or y is None:
        if x is not None or y is not None:
            raise TypeError("where needs both x and y, or neither (then it is nonzero); got "
                            f"{'y' if x is None else 'x'} alone")
        from .selection import nonzero  # selection imports this module

        check_arraylike("where", condition)
        return nonzero(condition, size=size, fill_value=fill_value)
    if size is not None or fill_value is not None:
        raise ValueError("size and fill_value arguments cannot be used in three-term where "
                         "function.")
    check_arraylike("where", condition, x, y)
    return _where(condition, x, y)


@staged_jit
def _where(condition, x, y):
    """The three-term `where`, one `jit` equation in a jaxpr as JAX's `_where`."""
    cond = _to_bool(condition)
    a, b = elementwise_operands("where", x, y)
    shape = _broadcast(cond, a, b)
    if aval_of(cond).ndim:  # a scalar condition selects whole arrays, unbroadcast (as JAX)
        cond = _broadcast_to(cond, shape)
    return lax.select(cond, _broadcast_to(a, shape), _broadcast_to(b, shape))


def _broadcast(*xs):
    return broadcast_shapes(*[aval_of(x).shape for x in xs])


@staged_jit
def clip(arr=None, /, min=None, max=None):
    """`arr` limited to `[min, max]` (either bound may be None).

    >>> import jaxwg.numpy as jnp
    >>> jnp.clip(jnp.arange(5), 1, 3).tolist()
    [1, 1, 2, 3, 3]
    """
    if arr is None:
        raise ValueError("No input was provided to the clip function.")
    out = ensure_arraylike("clip", arr)
    if any(v is not None and _kind(to_array(v)).is_complex for v in (out, min, max)):
        raise ValueError("clip received a complex value either through the input or the min/max "
                         "keywords. Complex values have no ordering and cannot be clipped; take "
                         "the real or imaginary parts (jnp.real, jnp.imag) first.")
    # The bound first, as JAX's: jaxprs print its operands in this order.
    if min is not None:
        out = maximum(min, out)
    if max is not None:
        out = minimum(max, out)
    return out


def heaviside(x1, x2, /):
    """0 where x1 < 0, x2 where x1 == 0, 1 where x1 > 0.

    >>> import jaxwg.numpy as jnp
    >>> jnp.heaviside(jnp.array([-1.0, 0.0, 2.0]), 0.5).tolist()
    [0.0, 0.5, 1.0]
    """
    a, b = elementwise_operands("heaviside", x1, x2, to_inexact=True)
    a, b = [_broadcast_to(v, _broadcast(a, b)) for v in (a, b)]
    kind, weak = _kind(a), _weak(a)
    zero, one = (lax.convert_element_type(v, kind, weak) for v in (0.0, 1.0))
    step = lax.select(lax.lt(a, zero), zero, lax.select(lax.gt(a, zero), one, b))
    out = lax.select(lax.ne(a, a), a, step)  # NaN stays NaN
    # As JAX: its 0 and 1 are weak only beside a weakly typed scalar x1 (promoted).
    return lax.convert_element_type(out, kind, weak and np.ndim(x1) == 0)
