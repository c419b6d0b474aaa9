"""Primitives: the named operations every jaxwg program is made of, and their rule tables.

A `Primitive` is only a name. What it *does* lives in one table per concern, keyed by
the primitive (the autodidax design):

* `abstract_eval_rules`: input avals and static params -> output aval (shape, dtype,
  weak type) and the errors JAX raises for bad input. Declared here, next to the
  primitive.
* `lowering_rules` (`jaxwg.frontend.lowering`): the primitive as nodes of the lazy kernel
  graph, which fusion turns into kernels. Both eager mode and `jit` use it.
* `complex_rules` (`jaxwg.frontend.complex_lowering`): the same where an operand or the
  result is complex; an elementwise primitive without one rejects complex operands.
* `jvp_rules`, `transpose_rules`, `batch_rules`: filled by the transformations.

Array operands are positional; static parameters are keyword-only and hashable, so they
can be part of jaxprs and jit cache keys. `bind` (in `jaxwg.frontend.trace`) hands a
primitive to the innermost active trace, which reads its own table.

Elementwise primitives take operands of one shape and dtype, except that a rank-0
operand broadcasts (as in JAX's jaxprs: `mul b 2.0:f32[]`). Their declarations are
one line each, through `_unary` and `_binary`, which state the dtype kinds accepted.

>>> from jaxwg.core import dtypes as dt
>>> from jaxwg.frontend.aval import ShapedArray
>>> abstract_eval_rules[add_p](ShapedArray((3,), dt.float32), ShapedArray((), dt.float32))
ShapedArray(float32[3])
"""

from __future__ import annotations

import enum

from ..core import dtypes as dt
from .aval import ShapedArray
from ..core.routine import CumulativeSum, ScatterAdd
from .gather import gather_abstract_eval


class Primitive:
    """A named operation; `multiple_results` when it returns a tuple of arrays;
    `named_axes` when its `axes` param may hold axis names (psum's)."""

    __slots__ = ("multiple_results", "name", "named_axes")

    def __init__(self, name: str, multiple_results: bool = False):
        self.name = name
        self.multiple_results = multiple_results
        self.named_axes = False

    def __repr__(self) -> str:
        return self.name

    def bind(self, *args, **params):
        from .trace import bind

        return bind(self, *args, **params)


abstract_eval_rules: dict = {}
lowering_rules: dict = {}
complex_rules: dict = {}
jvp_rules: dict = {}
transpose_rules: dict = {}
batch_rules: dict = {}

ALL_PRIMITIVES: list[Primitive] = []


def _declare(name: str, abstract_eval, multiple_results: bool = False) -> Primitive:
    prim = Primitive(name, multiple_results)
    abstract_eval_rules[prim] = abstract_eval
    ALL_PRIMITIVES.append(prim)
    return prim


# -- dtype kinds -------------------------------------------------------------------------

# The kinds of dtype an operand may have, by JAX's names (NumPy's abstract scalar types,
# and the dtypes `complex` takes), which its error messages list.
_KINDS = {
    "integer": lambda d: d.is_int,
    "signedinteger": lambda d: d.is_int and not d.is_unsigned,
    "floating": lambda d: d.is_float,
    "complexfloating": lambda d: d.is_complex,
    "bool": lambda d: d.is_bool,
    "number": lambda d: not d.is_bool,
    "float32": lambda d: d is dt.float32,
    "float64": lambda d: d is dt.float64,
}
# JAX's sets of them (`lax._num` and so on), in the order its messages list them.
_NUM = ("integer", "floating", "complexfloating")
_FLOAT = ("floating",)
_INEXACT = ("floating", "complexfloating")
_INT = ("integer",)
_BOOL_OR_INT = ("integer", "bool")
_ORDERED = ("integer", "floating", "bool")
_ANY = ("integer", "bool", "floating", "complexfloating")


def _check_kinds(name: str, kinds, avals) -> None:
    """JAX's TypeError where an operand's dtype is none of `kinds` (a tuple for every
    operand, or a list of one per operand); n-ary primitives name the position.

    >>> _check_kinds("shift_left", _INT, [ShapedArray((), dt.int32), ShapedArray((), dt.bool_)])
    Traceback (most recent call last):
    TypeError: shift_left does not accept dtype bool at position 1. Accepted dtypes at position 1 are ...
    """
    for i, a in enumerate(avals):
        accepted = kinds[i] if isinstance(kinds, list) else kinds
        if not any(_KINDS[k](a.dtype) for k in accepted):
            at = f" at position {i}" if len(avals) > 1 else ""
            raise TypeError(f"{name} does not accept dtype {a.dtype.name}{at}. Accepted dtypes{at} are "
                            f"subtypes of {', '.join(accepted)}.")


def _broadcast_shape(name: str, avals) -> tuple[int, ...]:
    """The common shape of elementwise operands; rank-0 operands broadcast."""
    shapes = {a.shape for a in avals if a.shape != ()}
    if len(shapes) > 1:
        raise TypeError(f"{name} got incompatible shapes for broadcasting: "
                        f"{', '.join(str(a.shape) for a in avals)}.")
    return shapes.pop() if shapes else ()


def _broadcasting_shape(name: str, avals) -> tuple[int, ...]:
    """JAX's shape rule of elementwise primitives: rank-0 operands broadcast, the others
    have one rank, and each axis has one size or size 1 (which broadcasts).

    >>> a, b = ShapedArray((2, 1), dt.float32), ShapedArray((1, 3), dt.float32)
    >>> _broadcasting_shape("add", [a, b, ShapedArray((), dt.float32)])
    (2, 3)
    """
    shapes = [a.shape for a in avals if a.shape != ()]
    if not shapes:
        return ()
    ranks = {len(shape) for shape in shapes}
    if len(ranks) != 1:
        raise TypeError(f"{name}: arrays must have the same number of dimensions, got {ranks}")
    result = []
    for sizes in zip(*shapes):
        big = {d for d in sizes if d != 1}
        if len(big) > 1:
            raise TypeError(f"{name} got incompatible shapes for broadcasting: "
                            f"{', '.join(str(tuple(shape)) for shape in shapes)}.")
        result.append(big.pop() if big else 1)
    return tuple(result)


# The jax.numpy function that promotes, which JAX's same-dtype errors name (its
# `lax._JNP_FUNCTION_EQUIVALENTS`, for the primitives here).
_JNP_EQUIVALENTS = {"add": "add", "sub": "subtract", "mul": "multiply", "div": "divide", "max": "maximum",
                    "min": "minimum", "pow": "float_power", "atan2": "arctan2", "nextafter": "nextafter",
                    "eq": "equal", "ne": "not_equal", "shift_left": "left_shift",
                    "shift_right_logical": "right_shift", "shift_right_arithmetic": "right_shift",
                    "select": "where", "concatenate": "concatenate"}


def _same_dtypes(name: str, avals) -> None:
    """JAX's TypeError where the operands of lax.`name` differ in dtype."""
    if len({a.dtype for a in avals}) > 1:
        tip = _JNP_EQUIVALENTS.get(name)
        tip = f" (Tip: jnp.{tip} is a similar function that does automatic type promotion on inputs)." \
            if tip else ""
        raise TypeError(f"lax.{name} requires arguments to have the same dtypes, got "
                        f"{', '.join(a.dtype.name for a in avals)}.{tip}")


def _pow_dtypes(name: str, avals) -> None:
    """JAX's pow dtype rule: an integer exponent is allowed there (not yet in jaxwg), and
    two inexact dtypes must match."""
    x, y = avals
    if x.dtype is y.dtype:
        return
    if y.dtype.is_int:
        raise TypeError(f"pow of an integer exponent ({x.dtype.name} ** {y.dtype.name}) is not supported "
                        "in jaxwg; convert the exponent, or use lax.integer_pow for a constant one")
    raise TypeError("the first argument to pow must have an inexact dtype (float or complex), and the "
                    "second argument must have an inexact or integer dtype, and two inexact dtypes must "
                    f"match, but got {x.dtype.name} and {y.dtype.name} respectively.")


# Elementwise primitives whose result is real for a complex operand.
_REAL_RESULT = {"abs"}


def _elementwise(name: str, kinds, out_dtype=None, check_dtypes=_same_dtypes):
    """An elementwise primitive taking operands of JAX's `kinds` (see `_check_kinds`);
    its checks run in JAX's order: shapes, kinds, then `check_dtypes`."""
    def abstract_eval(*avals, **params):
        shape = _broadcasting_shape(name, avals)
        _check_kinds(name, kinds, avals)
        check_dtypes(name, avals)
        if any(a.dtype.is_complex for a in avals) and prim not in complex_rules:
            raise TypeError(f"{name} does not accept complex dtypes in jaxwg, got "
                            f"{', '.join(a.dtype.name for a in avals)}")
        # As in JAX, the result is weak when every operand is (comparisons included).
        weak = all(a.weak_type for a in avals)
        dtype = avals[0].dtype if out_dtype is None else out_dtype
        if name in _REAL_RESULT:
            dtype = dt.PART.get(dtype, dtype)
        return ShapedArray(shape, dtype, weak)

    prim = _declare(name, abstract_eval)
    return prim


def _unary(name: str, kinds=_INEXACT, out_dtype=None) -> Primitive:
    return _elementwise(name, kinds, out_dtype)


def _binary(name: str, kinds=_NUM, out_dtype=None) -> Primitive:
    return _elementwise(name, kinds, out_dtype)


# -- elementwise ---------------------------------------------------------------------------

neg_p = _unary("neg", _NUM)
sign_p = _unary("sign", _NUM)
abs_p = _unary("abs", ("floating", "complexfloating", "signedinteger"))
not_p = _unary("not", _BOOL_OR_INT)
floor_p = _unary("floor", _FLOAT)
ceil_p = _unary("ceil", _FLOAT)
round_p = _unary("round", _FLOAT)  # rounding_method: 0 away from zero, 1 to nearest even
is_finite_p = _unary("is_finite", _FLOAT, dt.bool_)
exp_p = _unary("exp")
exp2_p = _unary("exp2")
log_p = _unary("log")
log1p_p = _unary("log1p")
expm1_p = _unary("expm1")
tanh_p = _unary("tanh")
logistic_p = _unary("logistic")
sin_p = _unary("sin")
cos_p = _unary("cos")
tan_p = _unary("tan")
asin_p = _unary("asin")
acos_p = _unary("acos")
atan_p = _unary("atan")
sinh_p = _unary("sinh")
cosh_p = _unary("cosh")
asinh_p = _unary("asinh")
acosh_p = _unary("acosh")
atanh_p = _unary("atanh")
sqrt_p = _unary("sqrt")
rsqrt_p = _unary("rsqrt")
cbrt_p = _unary("cbrt", _FLOAT)
erf_p = _unary("erf", _FLOAT)
erfc_p = _unary("erfc", _FLOAT)
erf_inv_p = _unary("erf_inv", _FLOAT)
square_p = _unary("square", _NUM)
integer_pow_p = _unary("integer_pow", _NUM)  # y: int

add_p = _binary("add")
# The sum of two tangents or cotangents (what differentiation accumulates with), as JAX's.
add_any_p = _binary("add_any")
sub_p = _binary("sub")
mul_p = _binary("mul")
div_p = _binary("div")
rem_p = _binary("rem", ("integer", "floating"))
pow_p = _elementwise("pow", [_INEXACT, _NUM], check_dtypes=_pow_dtypes)
max_p = _binary("max", _ANY)
min_p = _binary("min", _ANY)
atan2_p = _binary("atan2", _INEXACT)
nextafter_p = _binary("nextafter", _FLOAT)
and_p = _binary("and", _BOOL_OR_INT)
or_p = _binary("or", _BOOL_OR_INT)
xor_p = _binary("xor", _BOOL_OR_INT)
shift_left_p = _binary("shift_left", _INT)
shift_right_arithmetic_p = _binary("shift_right_arithmetic", _INT)
shift_right_logical_p = _binary("shift_right_logical", _INT)
eq_p = _binary("eq", _ANY, dt.bool_)
ne_p = _binary("ne", _ANY, dt.bool_)
lt_p = _binary("lt", _ORDERED, dt.bool_)
le_p = _binary("le", _ORDERED, dt.bool_)
gt_p = _binary("gt", _ORDERED, dt.bool_)
ge_p = _binary("ge", _ORDERED, dt.bool_)
# a * b + c rounded once: XLA's CPU backend contracts multiply-adds into it, and the
# functions whose bits follow XLA's (lgamma) use it where XLA's does.
fma_p = _elementwise("fma", _FLOAT)


# -- complex numbers -------------------------------------------------------------------------


def _complex_abstract_eval(x, y):
    shape = _broadcasting_shape("complex", (x, y))
    _check_kinds("complex", ("float32", "float64"), (x, y))
    _same_dtypes("complex", (x, y))
    return ShapedArray(shape, dt.COMPLEX_OF[x.dtype],
                       x.weak_type and y.weak_type)


def _part_abstract_eval(name):
    def abstract_eval(x):
        if not x.dtype.is_complex:
            raise TypeError(f"{name} takes a complex operand, got {x.dtype.name}")
        return ShapedArray(x.shape, dt.PART[x.dtype], x.weak_type)

    return abstract_eval


def _conj_abstract_eval(x, *, input_dtype):
    if x.dtype.is_complex:
        return ShapedArray(x.shape, x.dtype, x.weak_type)
    if x.dtype not in dt.COMPLEX_OF:
        raise TypeError(f"conj does not accept dtype {x.dtype.name}")
    return ShapedArray(x.shape, dt.COMPLEX_OF[x.dtype], x.weak_type)


complex_p = _declare("complex", _complex_abstract_eval)
real_p = _declare("real", _part_abstract_eval("real"))
imag_p = _declare("imag", _part_abstract_eval("imag"))
conj_p = _declare("conj", _conj_abstract_eval)

UNARY_FLOAT = (floor_p, ceil_p, round_p, exp_p, exp2_p, log_p, log1p_p, expm1_p, tanh_p,
               logistic_p, sin_p, cos_p, tan_p, asin_p, acos_p, atan_p, sinh_p, cosh_p,
               asinh_p, acosh_p, atanh_p, sqrt_p, rsqrt_p, cbrt_p, erf_p, erfc_p, erf_inv_p)
COMPARISONS = (eq_p, ne_p, lt_p, le_p, gt_p, ge_p)


def _select_n_abstract_eval(which, *cases):
    if not cases:
        raise TypeError("select_n requires at least one case")
    if which.dtype is not dt.bool_ and which.dtype is not dt.int32:
        raise TypeError(f"select_n predicate must be bool or int32, got {which.dtype.name}")
    if which.dtype is dt.bool_ and len(cases) > 2:
        raise TypeError("select_n with a bool predicate takes at most two cases, "
                        f"got {len(cases)}")
    _same_dtypes("select", cases)
    shape = _broadcast_shape("select_n", (which, *cases))
    return ShapedArray(shape, cases[0].dtype, all(c.weak_type for c in cases))


select_n_p = _declare("select_n", _select_n_abstract_eval)


def _convert_abstract_eval(x, *, new_dtype, weak_type):
    return ShapedArray(x.shape, new_dtype, weak_type)


convert_element_type_p = _declare("convert_element_type", _convert_abstract_eval)


def _bitcast_abstract_eval(x, *, new_dtype):
    """JAX's shape rule: a narrower type adds a trailing axis of the width ratio, a wider
    one takes the last axis, which must hold exactly one wide element."""
    old, new = x.dtype, new_dtype
    if (old.is_bool or new.is_bool) and old is not new:
        raise TypeError("lax.bitcast_convert_type does not support bool or complex values unless the "
                        f"operand and destination types match. Got operand dtype={old.name}, "
                        f"new_dtype=dtype('{new.name}'). Consider using the arr.view() method instead.")
    old_bits, new_bits = old.itemsize * 8, new.itemsize * 8
    if old_bits > new_bits:
        return ShapedArray((*x.shape, old_bits // new_bits), new)
    if old_bits < new_bits:
        last = x.shape[-1] if x.shape else 1
        if last * old_bits != new_bits:
            raise ValueError(f"Attempting to convert array of shape {x.shape} from {old.name} of size "
                             f"{old_bits} bits to {new.name} of size {new_bits}, bits but "
                             f"{last} * {old_bits} != {new_bits}")
        return ShapedArray(x.shape[:-1], new)
    return ShapedArray(x.shape, new)


bitcast_convert_type_p = _declare("bitcast_convert_type", _bitcast_abstract_eval)


def _clamp_abstract_eval(lo, x, hi):
    _same_dtypes("clamp", (lo, x, hi))
    for bound in (lo, hi):
        if bound.shape not in ((), x.shape):
            raise TypeError(f"clamp bounds must be scalars or have the operand's shape "
                            f"{x.shape}, got {bound.shape}")
    return ShapedArray(x.shape, x.dtype, lo.weak_type and x.weak_type and hi.weak_type)  # JAX's


clamp_p = _declare("clamp", _clamp_abstract_eval)


# -- creation ------------------------------------------------------------------------------


def _iota_abstract_eval(*, dtype, shape, dimension):
    if not 0 <= dimension < len(shape):
        raise ValueError(f"iota dimension {dimension} is out of range for shape {shape}")
    return ShapedArray(shape, dtype)


iota_p = _declare("iota", _iota_abstract_eval)


# -- movement ------------------------------------------------------------------------------


def _broadcast_in_dim_abstract_eval(x, *, shape, broadcast_dimensions):
    if any(n < 0 for n in shape):
        raise TypeError(f"broadcast_in_dim shape must have every element be nonnegative, got {shape}.")
    if len(broadcast_dimensions) != x.ndim:
        raise TypeError(f"broadcast_in_dim broadcast_dimensions {broadcast_dimensions} must "
                        f"have one entry per operand axis of shape {x.shape}")
    for axis, d in zip(broadcast_dimensions, range(x.ndim)):
        if not 0 <= axis < len(shape) or x.shape[d] not in (1, shape[axis]):
            raise TypeError(f"broadcast_in_dim cannot broadcast operand shape {x.shape} to "
                            f"{shape} with broadcast_dimensions {broadcast_dimensions}")
    if list(broadcast_dimensions) != sorted(set(broadcast_dimensions)):
        raise TypeError("broadcast_in_dim broadcast_dimensions must be strictly increasing, "
                        f"got {broadcast_dimensions}")
    return ShapedArray(shape, x.dtype, x.weak_type)


broadcast_in_dim_p = _declare("broadcast_in_dim", _broadcast_in_dim_abstract_eval)


def _reshape_abstract_eval(x, *, new_sizes, dimensions):
    import math

    if math.prod(new_sizes) != x.size or any(n < 0 for n in new_sizes):
        raise TypeError(f"reshape total size must be unchanged, got new_sizes {new_sizes} "
                        f"for shape {x.shape}")
    return ShapedArray(new_sizes, x.dtype, x.weak_type)


reshape_p = _declare("reshape", _reshape_abstract_eval)


def _transpose_abstract_eval(x, *, permutation):
    if sorted(permutation) != list(range(x.ndim)):
        raise TypeError(f"transpose permutation {permutation} is not a permutation of the "
                        f"axes of shape {x.shape}")
    return ShapedArray(tuple(x.shape[p] for p in permutation), x.dtype, x.weak_type)


transpose_p = _declare("transpose", _transpose_abstract_eval)


def _rev_abstract_eval(x, *, dimensions):
    if any(not 0 <= d < x.ndim for d in dimensions) or len(set(dimensions)) != len(dimensions):
        raise TypeError(f"rev dimensions {dimensions} are invalid for shape {x.shape}")
    return x


rev_p = _declare("rev", _rev_abstract_eval)


def _pad_abstract_eval(x, padding_value, *, padding_config):
    if padding_value.shape != ():
        raise TypeError(f"pad padding_value must be a scalar, got shape {padding_value.shape}")
    if x.dtype is not padding_value.dtype:  # JAX's words
        raise TypeError(f"pad operand and padding_value must be same dtype: got {x.dtype.name} and "
                        f"{padding_value.dtype.name}.")
    if len(padding_config) != x.ndim:
        raise TypeError(f"pad padding_config {padding_config} needs one entry per axis of "
                        f"shape {x.shape}")
    shape = []
    for n, (lo, hi, interior) in zip(x.shape, padding_config):
        if interior < 0:
            raise ValueError(f"pad interior padding must be >= 0, got {padding_config}")
        size = lo + hi + n + max(n - 1, 0) * interior
        if size < 0:
            raise ValueError(f"pad gives a negative size for shape {x.shape} with "
                             f"{padding_config}")
        shape.append(size)
    return ShapedArray(shape, x.dtype, x.weak_type and padding_value.weak_type)  # JAX's


pad_p = _declare("pad", _pad_abstract_eval)


def _slice_abstract_eval(x, *, start_indices, limit_indices, strides):
    strides = strides or (1,) * x.ndim
    if not len(start_indices) == len(limit_indices) == len(strides) == x.ndim:
        raise TypeError(f"slice indices must have one entry per axis of shape {x.shape}")
    shape = []
    for n, lo, hi, st in zip(x.shape, start_indices, limit_indices, strides):
        if not 0 <= lo <= hi <= n or st < 1:
            raise TypeError(f"slice start {start_indices}, limit {limit_indices} and strides "
                            f"{strides} are invalid for shape {x.shape}")
        shape.append(-(-(hi - lo) // st))
    return ShapedArray(shape, x.dtype, x.weak_type)


slice_p = _declare("slice", _slice_abstract_eval)


def _squeeze_abstract_eval(x, *, dimensions):
    if len(set(dimensions)) != len(dimensions):
        raise ValueError(f"dimensions are not unique: {dimensions}")
    for d in dimensions:
        if not 0 <= d < x.ndim or x.shape[d] != 1:
            raise ValueError(f"cannot squeeze axis {d} of shape {x.shape}")
    return ShapedArray([n for i, n in enumerate(x.shape) if i not in dimensions], x.dtype,
                       x.weak_type)


squeeze_p = _declare("squeeze", _squeeze_abstract_eval)


def _concatenate_abstract_eval(*xs, dimension):
    if not xs:
        raise ValueError("concatenate needs at least one operand")
    _same_dtypes("concatenate", xs)
    ref = xs[0].shape
    if not 0 <= dimension < len(ref):
        raise ValueError(f"concatenate dimension {dimension} is out of range for {ref}")
    for x in xs:
        if len(x.shape) != len(ref) or any(a != b for i, (a, b) in enumerate(zip(x.shape, ref))
                                           if i != dimension):
            raise TypeError("concatenate operands must have equal shapes except along "
                            f"dimension {dimension}, got {', '.join(str(x.shape) for x in xs)}")
    shape = list(ref)
    shape[dimension] = sum(x.shape[dimension] for x in xs)
    return ShapedArray(shape, xs[0].dtype, all(x.weak_type for x in xs))


concatenate_p = _declare("concatenate", _concatenate_abstract_eval)


def _split_abstract_eval(x, *, sizes, axis):
    if not 0 <= axis < x.ndim:
        raise ValueError(f"axis {axis} is out of bounds for array of dimension {x.ndim}")
    if any(s < 0 for s in sizes):
        raise ValueError(f"Sizes passed to split must be nonnegative, got {list(sizes)}")
    if sum(sizes) != x.shape[axis]:
        raise ValueError(f"Sum of sizes {sum(sizes)} must be equal to dimension {axis} of the "
                         f"operand shape {list(x.shape)}")
    shape = tuple(x.shape)
    return [ShapedArray(shape[:axis] + (s,) + shape[axis + 1:], x.dtype, x.weak_type) for s in sizes]


split_p = _declare("split", _split_abstract_eval, multiple_results=True)


def _stack_abstract_eval(*xs, axis):
    if not xs:
        raise ValueError("stack expects at least one operand, got 0.")
    if len({x.ndim for x in xs}) != 1:
        raise ValueError("Cannot stack arrays with different numbers of dimensions: got "
                         f"{', '.join(str(x.shape) for x in xs)}.")
    if len({x.shape for x in xs}) != 1:
        raise ValueError(f"All input arrays must have the same shape. Got {', '.join(str(x.shape) for x in xs)}.")
    if len({x.dtype for x in xs}) > 1:
        raise TypeError(f"lax.stack requires arguments to have the same dtypes, got "
                        f"{', '.join(x.dtype.name for x in xs)}.")
    if not 0 <= axis <= xs[0].ndim:
        raise ValueError(f"stack axis {axis} is out of range for operands of shape {xs[0].shape}")
    shape = list(xs[0].shape)
    shape.insert(axis, len(xs))
    return ShapedArray(shape, xs[0].dtype, all(x.weak_type for x in xs))


def _unstack_abstract_eval(x, *, axis):
    if x.ndim == 0:
        raise ValueError("unstack requires arrays with rank > 0, however a scalar array of shape () "
                         "was passed.")
    if not 0 <= axis < x.ndim:
        raise ValueError(f"axis {axis} is out of bounds for array of dimension {x.ndim}")
    shape = x.shape[:axis] + x.shape[axis + 1:]
    return [ShapedArray(shape, x.dtype, x.weak_type)] * x.shape[axis]


# The operands (of one shape and dtype) joined along a new axis `axis`, and an array's
# slices along `axis`, as JAX's `stack_p` and `unstack_p` (each the other's transpose).
stack_p = _declare("stack", _stack_abstract_eval)
unstack_p = _declare("unstack", _unstack_abstract_eval, multiple_results=True)


# -- reductions ----------------------------------------------------------------------------


def _reduce(name: str, kinds):
    def abstract_eval(x, *, axes):
        if kinds is _BOOL_OR_INT and not (x.dtype.is_int or x.dtype.is_bool):  # JAX's words
            raise TypeError(f"logical reduction requires operand dtype bool or int, got {x.dtype.name}.")
        _check_kinds(name, kinds, (x,))
        if any(not 0 <= a < x.ndim for a in axes) or len(set(axes)) != len(axes):
            raise ValueError(f"{name} axes {axes} are invalid for shape {x.shape}")
        shape = [n for i, n in enumerate(x.shape) if i not in axes]
        return ShapedArray(shape, x.dtype, x.weak_type)

    return _declare(name, abstract_eval)


reduce_sum_p = _reduce("reduce_sum", ("number",))
reduce_prod_p = _reduce("reduce_prod", ("number",))
reduce_max_p = _reduce("reduce_max", _ANY)
reduce_min_p = _reduce("reduce_min", _ANY)
reduce_and_p = _reduce("reduce_and", _BOOL_OR_INT)
reduce_or_p = _reduce("reduce_or", _BOOL_OR_INT)


def _argreduce(name: str):
    def abstract_eval(x, *, axes, index_dtype):
        if len(axes) != 1 or not 0 <= axes[0] < x.ndim:
            raise ValueError(f"{name} takes one valid axis, got {axes} for shape {x.shape}")
        if x.shape[axes[0]] == 0:
            raise ValueError(f"{name} of an empty axis: shape {x.shape}, axis {axes[0]}")
        shape = [n for i, n in enumerate(x.shape) if i != axes[0]]
        return ShapedArray(shape, index_dtype)

    return _declare(name, abstract_eval)


argmax_p = _argreduce("argmax")
argmin_p = _argreduce("argmin")


def _dot_general_abstract_eval(a, b, *, dimension_numbers, preferred_element_type):
    (ca, cb), (ba, bb) = dimension_numbers
    if len(ca) != len(cb) or len(ba) != len(bb):
        raise TypeError(f"dot_general dimension_numbers {dimension_numbers} must pair "
                        "contracting and batch axes")
    for i, j in list(zip(ca, cb)) + list(zip(ba, bb)):
        if not (0 <= i < a.ndim and 0 <= j < b.ndim) or a.shape[i] != b.shape[j]:
            raise TypeError(f"dot_general requires contracting and batch dimensions of equal "
                            f"size, got shapes {a.shape} and {b.shape} with dimension_numbers "
                            f"{dimension_numbers}")
    _same_dtypes("dot_general", (a, b))
    free_a = [n for i, n in enumerate(a.shape) if i not in ca and i not in ba]
    free_b = [n for i, n in enumerate(b.shape) if i not in cb and i not in bb]
    shape = [a.shape[i] for i in ba] + free_a + free_b
    dtype = preferred_element_type or a.dtype
    return ShapedArray(shape, dtype, a.weak_type and b.weak_type)


dot_general_p = _declare("dot_general", _dot_general_abstract_eval)

copy_p = _declare("copy", lambda x: x)

def _sort_permutation_abstract_eval(*keys):
    shape = keys[0].shape if keys else None
    if not keys or any(k.dtype is not dt.uint32 or k.shape != shape for k in keys) or not shape:
        raise TypeError("sort_permutation takes one or more uint32 keys of one shape, of rank at "
                        "least 1; got " + ", ".join(f"{k.dtype.name}{list(k.shape)}" for k in keys))
    return ShapedArray(shape, dt.int32)


# The stable permutation that sorts each row (along the last axis) by uint32 keys compared
# lexicographically: the sort routine (`core.routine.SortPermutation`). `lax.sort` is
# built on it.
sort_permutation_p = _declare("sort_permutation", _sort_permutation_abstract_eval)

def _scatter_flat_abstract_eval(name: str, dtypes):
    def rule(operand, targets, updates):
        if targets.dtype is not dt.int32 or targets.ndim != 1 or updates.shape != targets.shape \
                or updates.dtype is not operand.dtype or operand.dtype not in dtypes:
            raise TypeError(
                f"{name} takes an operand of {', '.join(d.name for d in dtypes)}, int32 positions of "
                f"shape (n,) and n updates of the operand's dtype; got {operand.dtype.name}"
                f"{list(operand.shape)}, {targets.dtype.name}{list(targets.shape)}, "
                f"{updates.dtype.name}{list(updates.shape)}")
        return ShapedArray(operand.shape, operand.dtype, operand.weak_type)
    return rule


# The operand with each update added at its flat (row-major) position; positions outside
# the operand drop their update: the scatter routine (`core.routine.ScatterAdd`).
# `lax.scatter_add` lowers to it where the device adds the dtype atomically.
scatter_add_flat_p = _declare("scatter_add_flat", _scatter_flat_abstract_eval(
    "scatter_add_flat", ScatterAdd.COMBINE_DTYPES["add"]))
# The same keeping each position's largest value (int32): `lax.scatter` finds the last
# update to each position with it (the update's number), as JAX's scatter on CPU keeps.
scatter_max_flat_p = _declare("scatter_max_flat", _scatter_flat_abstract_eval(
    "scatter_max_flat", ScatterAdd.COMBINE_DTYPES["max"]))

def _cumsum_abstract_eval(x, *, axis, reverse):
    if not 0 <= axis < x.ndim:
        raise ValueError(f"cumsum: axis {axis} is out of bounds for shape {x.shape}")
    if x.dtype not in CumulativeSum.DTYPES:
        raise TypeError(f"the cumsum primitive takes {', '.join(d.name for d in CumulativeSum.DTYPES)}; "
                        f"got {x.dtype.name} (lax.cumsum scans other dtypes itself)")
    return x


# The running sum along `axis` (from the end with `reverse`): the scan routine
# (`core.routine.CumulativeSum`), for the dtypes every backend scans.
cumsum_p = _declare("cumsum", _cumsum_abstract_eval)

# Slices of an operand at positions read from an index array (`gather.py`: JAX's
# dimension numbers, slice sizes and out-of-bounds modes).
gather_p = _declare("gather", gather_abstract_eval)


def _threefry_abstract_eval(k0, k1, x0, x1):
    avals = (k0, k1, x0, x1)
    if any(a.dtype is not dt.uint32 for a in avals):
        raise TypeError("threefry2x32 requires uint32 arguments, got "
                        f"{[a.dtype.name for a in avals]}")
    shape = _broadcast_shape("threefry2x32", avals)
    return [ShapedArray(shape, dt.uint32)] * 2


# The Threefry-2x32 block cipher (20 rounds), elementwise: key (k0, k1), counters
# (x0, x1) -> the two output words, as JAX's `threefry2x32` primitive.
threefry2x32_p = _declare("threefry2x32", _threefry_abstract_eval, multiple_results=True)

def _reducing_collective_abstract_eval(x, *, axes, axis_index_groups):
    positional = {a for a in axes if isinstance(a, int)}
    return ShapedArray(tuple(n for i, n in enumerate(x.shape) if i not in positional), x.dtype)


# Collectives, as JAX's: the sum, max or min over `axes`, which name vmap axes (the
# result is the same for each of their members) or, where vmap has turned a name into
# the batch axis, are positions in `x`'s shape (reduced like `reduce_sum`'s axes)
# (`jaxwg.transforms.batch_rules`). `axis_index_groups` is always None.
psum_p = _declare("psum", _reducing_collective_abstract_eval)
pmax_p = _declare("pmax", _reducing_collective_abstract_eval)
pmin_p = _declare("pmin", _reducing_collective_abstract_eval)
REDUCING_COLLECTIVES = (psum_p, pmax_p, pmin_p)
for _p in REDUCING_COLLECTIVES:
    _p.named_axes = True


def _all_gather_abstract_eval(x, *, axis_name, axis_size, all_gather_dimension, tiled):
    shape = list(x.shape)
    if tiled:
        shape[all_gather_dimension] *= axis_size
    else:
        shape.insert(all_gather_dimension, axis_size)
    return ShapedArray(tuple(shape), x.dtype, x.weak_type)


# A member's index along the axis (an int32 scalar), and every member's `x` stacked
# (or, `tiled`, concatenated) along `all_gather_dimension`; the output shape needs the
# axis size, so it is a param, as in JAX.
axis_index_p = _declare("axis_index", lambda *, axis_name: ShapedArray((), dt.int32))
all_gather_p = _declare("all_gather", _all_gather_abstract_eval)
COLLECTIVES = (*REDUCING_COLLECTIVES, axis_index_p, all_gather_p)
def _reduce_precision_abstract_eval(x, *, exponent_bits, mantissa_bits):
    if not x.dtype.is_float:
        raise TypeError(f"reduce_precision does not accept dtype {x.dtype.name}. Accepted dtypes "
                        "are subtypes of floating.")
    if exponent_bits < 1:
        raise ValueError(f"reduce_precision: exponent_bits must be positive; got {exponent_bits}")
    if mantissa_bits < 0:
        raise ValueError(f"reduce_precision: mantissa_bits must be non-negative; got {mantissa_bits}")
    exponent, mantissa = dt.FLOAT_FIELDS[x.dtype]
    if x.dtype is dt.float64 and (exponent_bits < exponent or mantissa_bits < mantissa):
        raise NotImplementedError("reduce_precision of float64 to fewer bits: jaxwg has no 64-bit "
                                  "integers to round its bits with")
    return x


# `x` rounded to the float format of `exponent_bits` and `mantissa_bits`, kept in its
# dtype: to nearest even, magnitudes past the format's range to infinities, below its
# smallest normal to signed zeros, NaN kept (`lax.reduce_precision`).
reduce_precision_p = _declare("reduce_precision", _reduce_precision_abstract_eval)
class MemorySpace(enum.Enum):
    """Where a value lives (`empty_p`'s param, as JAX's): jaxwg has the device only."""

    Device = "device"

    def __repr__(self) -> str:
        return f"MemorySpace.{self.name}"


# A scalar of `dtype` whose value does not matter (JAX's `empty2`): what a cond branch
# returns in the residual slots of the other branches (`partial_eval._split_cond`).
empty_p = _declare("empty2", lambda *, dtype, memory_space: ShapedArray((), dtype))
# The identity whose derivative is zero (`lax.stop_gradient`).
stop_gradient_p = _declare("stop_gradient", lambda x: x)
# The identity that names a value (param `name`) for checkpoint policies
# (`jaxwg.ad_checkpoint.checkpoint_name`).
name_p = _declare("name", lambda x, *, name: x)


def _jit_abstract_eval(*avals, jaxpr, name):
    """A call of a closed jaxpr (what `jit` stages inside a trace): the arguments must
    have the avals it was traced for; the results are its outputs."""
    expected = jaxpr.in_avals
    if len(avals) != len(expected) or any(
            a.shape != e.shape or a.dtype is not e.dtype for a, e in zip(avals, expected)):
        raise TypeError(f"jit of {name} was traced for "
                        f"({', '.join(e.str_short() for e in expected)}) but called with "
                        f"({', '.join(a.str_short() for a in avals)})")
    return list(jaxpr.out_avals)


# JAX's `jit` (formerly `pjit`) primitive: params `jaxpr` (a ClosedJaxpr) and `name`.
jit_p = _declare("jit", _jit_abstract_eval, multiple_results=True)


def _call_abstract_eval(*avals, call_jaxpr, **params):
    return list(call_jaxpr.out_avals)


# Functions with their own derivative rules (`jaxwg.transforms.custom`): a call of the
# traced function (`call_jaxpr`, a ClosedJaxpr) that transformations treat through
# `jvp` (a function of primals and tangents) or `fwd`/`bwd`.
custom_jvp_call_p = _declare("custom_jvp_call", _call_abstract_eval, multiple_results=True)
custom_vjp_call_p = _declare("custom_vjp_call", _call_abstract_eval, multiple_results=True)
# The linear part of a custom_vjp function under differentiation: residuals and tangents
# in, output tangents out; only its transpose (`bwd`) is defined.
custom_lin_p = _declare("custom_lin", lambda *avals, out_avals, **params: list(out_avals),
                        multiple_results=True)

# `lax.custom_linear_solve`: x with matvec(x) = b, from the solver in `jaxprs` (a
# `LinearSolveJaxprs`: matvec, vecmat, solve, transpose_solve, each ClosedJaxpr taking its
# constants, then the vector; vecmat and transpose_solve may be None). Operands: each
# jaxpr's constants (`const_lengths` of them, in that order), then b's leaves; results:
# solve's (x's leaves, then its aux values with has_aux). Rules: transforms/solves.py.
custom_linear_solve_p = _declare(
    "custom_linear_solve",
    lambda *avals, const_lengths, jaxprs: list(jaxprs.solve.out_avals), multiple_results=True)

# -- control flow ----------------------------------------------------------------------------
#
# Bodies are ClosedJaxprs; values a body closes over from an enclosing trace are passed
# as leading operands (`num_consts`, `cond_nconsts`, `body_nconsts`), as in JAX.


def _cond_abstract_eval(index, *operands, branches):
    if index.shape != () or index.dtype is not dt.int32:
        raise TypeError(f"cond index must be an int32 scalar, got {index.str_short()}")
    outs = [list(b.out_avals) for b in branches]
    for other in outs[1:]:
        if [(a.shape, a.dtype) for a in other] != [(a.shape, a.dtype) for a in outs[0]]:
            raise TypeError("branches of cond must have the same output types, got "
                            + " and ".join(str([a.str_short() for a in o]) for o in outs))
    return outs[0]


# As in JAX, a loop's carries out have the body's output avals: a weakly typed init
# whose body makes it strong gives a strong result.
def _while_abstract_eval(*args, cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts):
    return list(body_jaxpr.out_avals)


def _scan_abstract_eval(*args, jaxpr, length, reverse, num_consts, num_carry, unroll):
    carry, ys = jaxpr.out_avals[:num_carry], jaxpr.out_avals[num_carry:]
    return list(carry) + [ShapedArray((length,) + y.shape, y.dtype, y.weak_type) for y in ys]


cond_p = _declare("cond", _cond_abstract_eval, multiple_results=True)
while_p = _declare("while", _while_abstract_eval, multiple_results=True)
scan_p = _declare("scan", _scan_abstract_eval, multiple_results=True)
# `jaxwg.debug.callback`: `callback(*operands)` called on the host with the operands'
# values where the program reaches it; no outputs (`callback` is hashed by identity).
debug_callback_p = _declare("debug_callback", lambda *avals, callback: [], multiple_results=True)
# What needs values while a program runs: control flow whose path depends on them, and
# host callbacks. A program holding one runs its jaxpr step by step
# (`jaxwg.frontend.control_flow`).
DATA_DEPENDENT = (cond_p, while_p, debug_callback_p)


def _remat_abstract_eval(*avals, jaxpr, prevent_cse, differentiated, policy):
    return list(jaxpr.out_avals)


# `checkpoint`/`remat` (JAX's `remat2`): a call whose intermediate values are recomputed
# in the backward pass instead of saved, except those `policy` saves.
remat_p = _declare("remat2", _remat_abstract_eval, multiple_results=True)

# Call primitives and the parameter holding the called jaxpr: programs lower the
# called jaxpr in place.
CALLED_JAXPR = {jit_p: "jaxpr", custom_jvp_call_p: "call_jaxpr", custom_vjp_call_p: "call_jaxpr",
                remat_p: "jaxpr"}
