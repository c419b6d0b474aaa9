"""The wrappers of `jaxwg.lax`, one per primitive (see the package docstring).

>>> import jaxwg.numpy as jnp
>>> from jaxwg import lax
>>> lax.mul(jnp.arange(3), 2)
Array([0, 2, 4], dtype=int32)
"""

from __future__ import annotations

import builtins
import enum
import math
import operator
import typing
from collections.abc import Sequence

import numpy as np

from ..frontend import aval as avals
from ..frontend import primitives as P
from ..frontend.array import asarray_for_bind as _asarray_for_bind
from ..frontend.array import aval_of as _aval_of
from ..frontend.array import scalar as _scalar
from ..frontend.trace import bind
from .keys import moves_keys


def _scalars_like(args):
    """Python scalars take the dtype of the first array operand (weakly) where their value
    fits its kind; one that does not (1.5 beside int32, -1 beside uint8, 1j beside float32,
    2 beside bool) keeps its own dtype, so that the primitive raises JAX's same-dtypes
    TypeError rather than rounding the value away."""
    ref = next((a for a in args if not avals.is_python_scalar(a)), None)
    if ref is None:
        return args
    dtype = _aval_of(ref).dtype
    return [_scalar_as(a, dtype) if avals.is_python_scalar(a) else a for a in args]


def _scalar_as(value, dtype):
    own = avals.dtype_of_python_scalar(value)
    fits = (dtype.is_complex or not own.is_complex) and (dtype.is_inexact or not own.is_inexact) \
        and (own.is_bool or not dtype.is_bool) and not (dtype.is_unsigned and value < 0)
    return convert_element_type(value, dtype if fits else own, weak_type=True)


# Example operands for the generated docstrings: integers for the bitwise primitives.
_INT_OPERANDS = {"not", "and", "or", "xor", "shift_left", "shift_right_arithmetic",
                 "shift_right_logical"}


def _example(name: str, arity: int) -> str:
    operand = "jnp.arange(2)" if name in _INT_OPERANDS else "jnp.ones(2)"
    public = _PUBLIC_NAMES.get(name, name)
    return ("    >>> import jaxwg.numpy as jnp\n    >>> from jaxwg import lax\n"
            f"    >>> lax.{public}({', '.join([operand] * arity)}).shape\n    (2,)\n")


_PUBLIC_NAMES = {"not": "bitwise_not", "and": "bitwise_and", "or": "bitwise_or",
                 "xor": "bitwise_xor"}


def _unary(prim):
    def fn(x):
        return bind(prim, x)

    fn.__name__ = fn.__qualname__ = _PUBLIC_NAMES.get(prim.name, prim.name)
    fn.__doc__ = f"Elementwise `{prim.name}` (the `{prim.name}` primitive).\n\n" + \
        _example(prim.name, 1)
    return fn


def _binary(prim):
    def fn(x, y):
        return bind(prim, *_scalars_like([x, y]))

    fn.__name__ = fn.__qualname__ = _PUBLIC_NAMES.get(prim.name, prim.name)
    fn.__doc__ = f"Elementwise `{prim.name}` of two operands of one dtype.\n\n" + \
        _example(prim.name, 2)
    return fn


neg = _unary(P.neg_p)
sign = _unary(P.sign_p)
abs = _unary(P.abs_p)
bitwise_not = _unary(P.not_p)
floor = _unary(P.floor_p)
ceil = _unary(P.ceil_p)
is_finite = _unary(P.is_finite_p)
exp = _unary(P.exp_p)
exp2 = _unary(P.exp2_p)
log = _unary(P.log_p)
log1p = _unary(P.log1p_p)
expm1 = _unary(P.expm1_p)
tanh = _unary(P.tanh_p)
logistic = _unary(P.logistic_p)
sin = _unary(P.sin_p)
cos = _unary(P.cos_p)
tan = _unary(P.tan_p)
asin = _unary(P.asin_p)
acos = _unary(P.acos_p)
atan = _unary(P.atan_p)
sinh = _unary(P.sinh_p)
cosh = _unary(P.cosh_p)
asinh = _unary(P.asinh_p)
acosh = _unary(P.acosh_p)
atanh = _unary(P.atanh_p)
sqrt = _unary(P.sqrt_p)
rsqrt = _unary(P.rsqrt_p)
cbrt = _unary(P.cbrt_p)
erf = _unary(P.erf_p)
erfc = _unary(P.erfc_p)
square = _unary(P.square_p)

add = _binary(P.add_p)
sub = _binary(P.sub_p)
mul = _binary(P.mul_p)
div = _binary(P.div_p)
rem = _binary(P.rem_p)
pow = _binary(P.pow_p)
max = _binary(P.max_p)
min = _binary(P.min_p)
atan2 = _binary(P.atan2_p)


def nextafter(x1, x2):
    """The next representable value after `x1` toward `x2` (`x2` where they are equal),
    elementwise. Like JAX's, it has no derivative rule.

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg import lax
    >>> lax.nextafter(jnp.float32(1), jnp.float32(2)).item()
    1.0000001192092896
    """
    return bind(P.nextafter_p, *_scalars_like([x1, x2]))


def complex(x, y):
    """The complex number `x + i y` (float32 parts make complex64, float64 complex128).

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg import lax
    >>> lax.complex(jnp.float32(1), jnp.float32(2)).item()
    (1+2j)
    """
    return bind(P.complex_p, *_scalars_like([x, y]))


def real(x):
    """The real part of a complex array (float32 for complex64).

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg import lax
    >>> lax.real(jnp.complex64(3 - 4j)).item()
    3.0
    """
    return bind(P.real_p, x)


def imag(x):
    """The imaginary part of a complex array.

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg import lax
    >>> lax.imag(jnp.complex64(3 - 4j)).item()
    -4.0
    """
    return bind(P.imag_p, x)


def conj(x):
    """The complex conjugate; a real operand becomes complex (as `jax.lax.conj`).

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg import lax
    >>> lax.conj(jnp.complex64(3 - 4j)).item()
    (3+4j)
    """
    return bind(P.conj_p, x, input_dtype=_aval_of(x).dtype)


bitwise_and = _binary(P.and_p)
bitwise_or = _binary(P.or_p)
bitwise_xor = _binary(P.xor_p)
shift_left = _binary(P.shift_left_p)
shift_right_arithmetic = _binary(P.shift_right_arithmetic_p)
shift_right_logical = _binary(P.shift_right_logical_p)
eq = _binary(P.eq_p)
ne = _binary(P.ne_p)
lt = _binary(P.lt_p)
le = _binary(P.le_p)
gt = _binary(P.gt_p)
ge = _binary(P.ge_p)


def round(x, rounding_method=0):
    """Round to an integer value: 0 away from zero (default), 1 to nearest even.

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg import lax
    >>> lax.round(jnp.array([0.5, 2.5])).tolist(), lax.round(jnp.array([0.5, 2.5]), 1).tolist()
    ([1.0, 3.0], [0.0, 2.0])
    """
    return bind(P.round_p, x, rounding_method=int(rounding_method))


def integer_pow(x, y: int):
    """`x ** y` for a static Python int `y`, by repeated multiplication.

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg import lax
    >>> lax.integer_pow(jnp.array([2.0, 3.0]), 3).tolist()
    [8.0, 27.0]
    """
    y = int(y)
    if y < 0 and not avals.is_python_scalar(x) and _aval_of(x).dtype.is_int:
        aval = _aval_of(x)
        raise TypeError(f"Integers cannot be raised to negative powers, got "
                        f"integer_pow({aval.dtype.name}[{','.join(map(str, aval.shape))}], {y})")
    return bind(P.integer_pow_p, x, y=y)


@moves_keys(rest=1)
def select_n(which, *cases):
    """`cases[which]` elementwise; `which` is bool (two cases) or int32.

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg import lax
    >>> lax.select_n(jnp.array([0, 2]), jnp.zeros(2), jnp.ones(2), jnp.full(2, 2.0)).tolist()
    [0.0, 2.0]
    """
    return bind(P.select_n_p, which, *cases)


def select(pred, on_true, on_false):
    """`on_true` where `pred` else `on_false`.

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg import lax
    >>> lax.select(jnp.array([True, False]), jnp.ones(2), jnp.zeros(2)).tolist()
    [1.0, 0.0]
    """
    return select_n(pred, on_false, on_true)


def clamp(min, x, max):
    """`x` limited to `[min, max]`.

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg import lax
    >>> lax.clamp(0.0, jnp.array([-1.0, 0.5, 2.0]), 1.0).tolist()
    [0.0, 0.5, 1.0]
    """
    return bind(P.clamp_p, *_scalars_like([min, x, max]))


def convert_element_type(operand, new_dtype, weak_type: bool = False):
    """`operand` converted to `new_dtype` (float to int truncates and saturates).

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg import lax
    >>> lax.convert_element_type(jnp.array([-1.7, 3e10]), jnp.int32).tolist()
    [-1, 2147483647]
    """
    new_dtype = avals.canonical_dtype(new_dtype)
    if avals.is_python_scalar(operand):
        return _scalar(operand, new_dtype, weak_type)
    aval = _aval_of(operand)
    if aval.dtype is new_dtype and aval.weak_type == weak_type:
        return operand
    return bind(P.convert_element_type_p, operand, new_dtype=new_dtype, weak_type=bool(weak_type))


def bitcast_convert_type(operand, new_dtype):
    """The bits of `operand` read as `new_dtype`. As in JAX, a narrower `new_dtype`
    adds a trailing axis of the width ratio (least significant piece first), and a
    wider one takes the last axis, whose pieces must make exactly one element.

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg import lax
    >>> lax.bitcast_convert_type(jnp.array([1.0]), jnp.int32).tolist()
    [1065353216]
    >>> lax.bitcast_convert_type(jnp.array([1.0]), jnp.uint8).tolist()
    [[0, 0, 128, 63]]
    >>> lax.bitcast_convert_type(jnp.array([0, 60], jnp.uint8), jnp.float16)
    Array(1., dtype=float16)
    """
    return bind(P.bitcast_convert_type_p, operand, new_dtype=avals.canonical_dtype(new_dtype))


def iota(dtype, size: int):
    """`[0, 1, ..., size-1]` as `dtype`.

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg import lax
    >>> lax.iota(jnp.float32, 3).tolist()
    [0.0, 1.0, 2.0]
    """
    return broadcasted_iota(dtype, (size,), 0)


def broadcasted_iota(dtype, shape, dimension: int):
    """The index along `dimension` at every position of `shape`.

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg import lax
    >>> lax.broadcasted_iota(jnp.int32, (2, 3), 1).tolist()
    [[0, 1, 2], [0, 1, 2]]
    """
    return bind(P.iota_p, dtype=avals.canonical_dtype(dtype), shape=tuple(int(n) for n in shape),
                dimension=int(dimension))


def _diagonal_offsets(shape, offset: int = 0):
    """(row + offset, column) at every position of a 2-d `shape`, int32: equal on the
    `offset`-th diagonal. Both iotas are bound before the add, as JAX's jaxprs show
    `jnp.eye`."""
    rows = broadcasted_iota(np.int32, shape, 0)
    cols = broadcasted_iota(np.int32, shape, 1)
    return add(rows, int(offset)), cols


def _eye(dtype, shape, offset: int = 0):
    """Ones on the `offset`-th diagonal of a 2-d `shape` (JAX's `lax_internal._eye`),
    for `jnp.eye` and the Jacobians' basis."""
    return convert_element_type(eq(*_diagonal_offsets(shape, offset)), dtype)


@moves_keys(0)
def broadcast_in_dim(operand, shape, broadcast_dimensions):
    """`operand` placed at axes `broadcast_dimensions` of `shape` and broadcast.

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg import lax
    >>> lax.broadcast_in_dim(jnp.arange(2), (2, 3), (0,)).tolist()
    [[0, 0, 0], [1, 1, 1]]
    """
    shape = tuple(int(n) for n in shape)
    dims = tuple(int(d) for d in broadcast_dimensions)
    if _aval_of(operand).shape == shape and dims == tuple(range(len(shape))):
        return operand
    return bind(P.broadcast_in_dim_p, operand, shape=shape, broadcast_dimensions=dims)


@moves_keys(0)
def broadcast(operand, sizes):
    """`operand` with leading axes of `sizes` added.

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg import lax
    >>> lax.broadcast(jnp.arange(2), (3,)).shape
    (3, 2)
    """
    nd = _aval_of(operand).ndim
    sizes = tuple(sizes)
    return broadcast_in_dim(operand, sizes + _aval_of(operand).shape,
                            tuple(range(len(sizes), len(sizes) + nd)))


@moves_keys(0)
def reshape(operand, new_sizes, dimensions=None):
    """`operand` with shape `new_sizes` (row-major; after permuting by `dimensions`).

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg import lax
    >>> lax.reshape(jnp.arange(6), (2, 3)).tolist()
    [[0, 1, 2], [3, 4, 5]]
    """
    new_sizes = tuple(int(n) for n in new_sizes)
    dims = None if dimensions is None else tuple(int(d) for d in dimensions)
    if _aval_of(operand).shape == new_sizes and dims is None:
        return operand
    return bind(P.reshape_p, operand, new_sizes=new_sizes, dimensions=dims)


@moves_keys(0)
def transpose(operand, permutation):
    """Axes of `operand` permuted.

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg import lax
    >>> lax.transpose(jnp.ones((2, 3, 4)), (2, 0, 1)).shape
    (4, 2, 3)
    """
    perm = tuple(int(p) for p in permutation)
    if perm == tuple(range(_aval_of(operand).ndim)):  # a shorter identity is an error
        return operand
    return bind(P.transpose_p, operand, permutation=perm)


@moves_keys(0)
def rev(operand, dimensions):
    """`operand` reversed along `dimensions`.

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg import lax
    >>> lax.rev(jnp.arange(3), (0,)).tolist()
    [2, 1, 0]
    """
    return bind(P.rev_p, operand, dimensions=tuple(int(d) for d in dimensions))


def pad(operand, padding_value, padding_config):
    """Pad with `(low, high, interior)` per axis; negative edges crop.

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg import lax
    >>> lax.pad(jnp.array([1, 2, 3]), 0, [(1, -1, 1)]).tolist()
    [0, 1, 0, 2, 0]
    """
    config = tuple((int(lo), int(hi), int(i)) for lo, hi, i in padding_config)
    operand, padding_value = _scalars_like([operand, padding_value])
    return bind(P.pad_p, operand, padding_value, padding_config=config)


@moves_keys(0)
def slice(operand, start_indices, limit_indices, strides=None):
    """The elements from `start_indices` up to `limit_indices`, every `strides`-th.

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg import lax
    >>> lax.slice(jnp.arange(10), (1,), (8,), (3,)).tolist()
    [1, 4, 7]
    """
    return bind(P.slice_p, operand, start_indices=tuple(int(i) for i in start_indices),
                limit_indices=tuple(int(i) for i in limit_indices),
                strides=None if strides is None else tuple(int(s) for s in strides))


@moves_keys(0)
def split(operand, sizes, axis: int = 0) -> list:
    """`operand` cut along `axis` into consecutive pieces of `sizes`, which sum to the
    axis' length.

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg import lax
    >>> [p.tolist() for p in lax.split(jnp.arange(5), (2, 3))]
    [[0, 1], [2, 3, 4]]
    """
    ndim = _aval_of(operand).ndim
    axis = int(axis)
    if not -ndim <= axis < ndim:
        raise ValueError(f"axis {axis} is out of bounds for array of dimension {ndim}")
    return bind(P.split_p, operand, sizes=tuple(int(s) for s in sizes), axis=axis % ndim)


@moves_keys(0)
def slice_in_dim(operand, start_index, limit_index, stride: int = 1, axis: int = 0):
    """`operand[start_index:limit_index:stride]` along `axis` (None: the axis' end).

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg import lax
    >>> lax.slice_in_dim(jnp.arange(12).reshape(3, 4), 1, 3, axis=1).tolist()
    [[1, 2], [5, 6], [9, 10]]
    """
    shape = _aval_of(operand).shape
    axis = int(axis) % len(shape)
    starts, limits, strides = [0] * len(shape), list(shape), [1] * len(shape)
    starts[axis] = 0 if start_index is None else int(start_index)
    limits[axis] = shape[axis] if limit_index is None else int(limit_index)
    strides[axis] = int(stride)
    return slice(operand, starts, limits, None if stride == 1 else strides)


@moves_keys(0)
def index_in_dim(operand, index: int, axis: int = 0, keepdims: bool = True):
    """Element `index` (negative: from the end) along `axis`, keeping that axis with
    size 1 unless `keepdims` is False; IndexError out of bounds, as JAX.

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg import lax
    >>> lax.index_in_dim(jnp.arange(6).reshape(2, 3), -1, axis=1, keepdims=False).tolist()
    [2, 5]
    """
    shape = _aval_of(operand).shape
    axis = int(axis)
    if not -len(shape) <= axis < len(shape):
        raise IndexError(f"axis {axis} is out of bounds for array of dimension {len(shape)}")
    axis %= len(shape)
    index, size = int(index), shape[axis]
    if not -size <= index < size:
        raise IndexError(f"index {index} is out of bounds for axis {axis} with size {size}")
    index %= size
    out = slice_in_dim(operand, index, index + 1, axis=axis)
    return out if keepdims else squeeze(out, (axis,))


@moves_keys(0)
def squeeze(array, dimensions):
    """`array` without the size-1 axes `dimensions`.

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg import lax
    >>> lax.squeeze(jnp.ones((1, 2, 1)), (0, 2)).shape
    (2,)
    """
    ndim = _aval_of(array).ndim
    for d in dimensions:
        if not -ndim <= d < ndim:
            raise ValueError(f"axis {d} is out of bounds for array of dimension {ndim}")
    return bind(P.squeeze_p, array, dimensions=tuple(sorted(int(d) % ndim for d in dimensions)))


@moves_keys(0)
def expand_dims(array, dimensions):
    """`array` with size-1 axes inserted at `dimensions`.

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg import lax
    >>> lax.expand_dims(jnp.ones(2), (0, 2)).shape
    (1, 2, 1)
    """
    shape = list(_aval_of(array).shape)
    for d in sorted(dimensions):
        shape.insert(d, 1)
    new = set(dimensions)
    return broadcast_in_dim(array, shape, tuple(d for d in range(len(shape)) if d not in new))


@moves_keys(0)
def concatenate(operands, dimension: int):
    """`operands` joined along `dimension`.

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg import lax
    >>> lax.concatenate([jnp.arange(2), jnp.arange(3)], 0).tolist()
    [0, 1, 0, 1, 2]
    """
    if len(operands) == 1:
        return operands[0]
    return bind(P.concatenate_p, *operands, dimension=int(dimension))


def _reducer(prim):
    def fn(operand, axes):
        return bind(prim, operand, axes=tuple(int(a) for a in axes))

    fn.__name__ = fn.__qualname__ = prim.name
    operand = "jnp.ones((2, 3), bool)" if prim.name in ("reduce_and", "reduce_or") else \
        "jnp.ones((2, 3))"
    fn.__doc__ = (f"`{prim.name}` of `operand` over `axes`.\n\n"
                  "    >>> import jaxwg.numpy as jnp\n    >>> from jaxwg import lax\n"
                  f"    >>> lax.{prim.name}({operand}, (1,)).shape\n    (2,)\n")
    return fn


reduce_sum = _reducer(P.reduce_sum_p)
reduce_prod = _reducer(P.reduce_prod_p)
reduce_max = _reducer(P.reduce_max_p)
reduce_min = _reducer(P.reduce_min_p)
reduce_and = _reducer(P.reduce_and_p)
reduce_or = _reducer(P.reduce_or_p)


def argmax(operand, axis: int, index_dtype):
    """Index of the largest element along `axis` (the first NaN if any).

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg import lax
    >>> lax.argmax(jnp.array([1.0, jnp.nan, 3.0]), 0, jnp.int32).item()
    1
    """
    return bind(P.argmax_p, operand, axes=(int(axis),),
                index_dtype=avals.canonical_dtype(index_dtype))


def argmin(operand, axis: int, index_dtype):
    """Index of the smallest element along `axis` (the first NaN if any).

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg import lax
    >>> lax.argmin(jnp.array([[3, 1], [0, 2]]), 1, jnp.int32).tolist()
    [1, 0]
    """
    return bind(P.argmin_p, operand, axes=(int(axis),),
                index_dtype=avals.canonical_dtype(index_dtype))


def dot_general(lhs, rhs, dimension_numbers, precision=None, preferred_element_type=None):
    """Contract `lhs` and `rhs`: `(((lhs_contract), (rhs_contract)), ((lhs_batch), (rhs_batch)))`.

    The result's axes are batch, then `lhs`'s free axes, then `rhs`'s.

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg import lax
    >>> lax.dot_general(jnp.ones((5, 2, 3)), jnp.ones((5, 3, 4)), (((2,), (1,)), ((0,), (0,)))).shape
    (5, 2, 4)
    """
    (ca, cb), (ba, bb) = dimension_numbers
    dn = ((tuple(ca), tuple(cb)), (tuple(ba), tuple(bb)))
    pref = None if preferred_element_type is None else avals.canonical_dtype(preferred_element_type)
    return bind(P.dot_general_p, lhs, rhs, dimension_numbers=dn, preferred_element_type=pref)


def dot(lhs, rhs, precision=None, preferred_element_type=None):
    """Vector/matrix product of rank-1 or rank-2 operands.

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg import lax
    >>> lax.dot(jnp.ones((2, 3)), jnp.ones(3)).tolist()
    [3.0, 3.0]
    """
    return dot_general(lhs, rhs, (((_aval_of(lhs).ndim - 1,), (0,)), ((), ())),
                       precision, preferred_element_type)


def full(shape, fill_value, dtype=None):
    """`fill_value` broadcast to `shape` (no memory until materialized).

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg import lax
    >>> lax.full((2,), 7, jnp.float32).tolist()
    [7.0, 7.0]
    """
    shape = (int(shape),) if np.ndim(shape) == 0 else tuple(int(n) for n in shape)
    value = fill_value if dtype is None else convert_element_type(fill_value, dtype)
    if avals.is_python_scalar(value) or isinstance(value, (np.ndarray, np.generic)):
        value = _asarray_for_bind(value)  # an Array even where no broadcast is bound, as JAX's
    return broadcast(value, shape)


def full_like(x, fill_value, dtype=None, shape=None):
    """`fill_value` in the shape and dtype of `x` (unless given); weakly typed, as JAX's,
    when `x` is and no `dtype` is given.

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg import lax
    >>> lax.full_like(jnp.arange(2), 5).tolist()
    [5, 5]
    >>> lax.full_like(1.0, 2), lax.full_like(1.0, 2, jnp.float32)
    (Array(2., dtype=float32, weak_type=True), Array(2., dtype=float32))
    """
    aval = _aval_of(x)
    weak_type = dtype is None and aval.weak_type
    value = convert_element_type(fill_value, aval.dtype if dtype is None else dtype, weak_type)
    return full(aval.shape if shape is None else shape, value)


def _strong_full_like(x, fill_value, shape=None):
    """`full_like(x, fill_value, shape=shape)`, strongly typed even where `x` is weakly
    typed: the constants JAX's own rules build from NumPy values (`np.zeros((), dtype)`,
    `asarray(v, dtype=dtype)`, `np.array(v, dtype)`), which keep a result that mixes them
    with a weakly typed `x` strongly typed."""
    return full_like(x, fill_value, _aval_of(x).dtype, shape)


def _const_like(x, fill_value):
    """`full_like(x, fill_value)` typed as JAX's internal constants (`lax._const`): weakly
    only where `x` is a weakly typed scalar, so that a weakly typed `x` of rank 1 or more
    gets a strongly typed result where JAX's rules mix the two."""
    aval = _aval_of(x)
    return full_like(x, fill_value, None if aval.ndim == 0 else aval.dtype)


def threefry2x32(k0, k1, x0, x1):
    """The Threefry-2x32 block cipher of counters (x0, x1) under key (k0, k1), uint32
    elementwise: the two output words.

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg import lax
    >>> zero = jnp.zeros((), jnp.uint32)
    >>> [hex(int(w)) for w in lax.threefry2x32(zero, zero, zero, zero)]
    ['0x6b200159', '0x99ba4efe']
    """
    return bind(P.threefry2x32_p, k0, k1, x0, x1)


def erf_inv(x):
    """The inverse of `erf` on (-1, 1), +-inf at +-1, NaN outside; derivative
    sqrt(pi)/2 exp(erf_inv(x)^2), as JAX's. float32 (and float16, through float32) is
    computed as XLA's CPU backend computes it, step for step with its fused
    multiply-adds: JAX's bits where division, sqrt and fma round correctly.

    >>> import numpy as np, jaxwg.numpy as jnp
    >>> from jaxwg import lax
    >>> np.round(np.asarray(lax.erf_inv(jnp.array([0.0, 0.5, -0.9])), float), 6).tolist()
    [0.0, 0.476936, -1.163087]
    """
    return bind(P.erf_inv_p, x)


def _axis_names(axis_name) -> tuple:
    """A collective's axis names: one name, or a tuple or list of names (reduced over
    all of them, as one axis of their combined members)."""
    return tuple(axis_name) if isinstance(axis_name, (tuple, list)) else (axis_name,)


def _bind_collective(prim, x, axis_name):
    """`prim` over the named axes, for every leaf of `x`; a sum of bools counts them in
    int32, as JAX's does."""
    from ..frontend import pytree

    def leaf_fn(leaf):
        if prim is P.psum_p and _aval_of(leaf).dtype.is_bool:
            leaf = convert_element_type(leaf, "int32")
        return bind(prim, leaf, axes=_axis_names(axis_name), axis_index_groups=None)

    return pytree.tree_map(leaf_fn, x)


def _collective(prim, what: str, example: str):
    def fn(x, axis_name):
        return _bind_collective(prim, x, axis_name)

    fn.__name__ = fn.__qualname__ = prim.name
    fn.__doc__ = (f"The {what} of `x` over the members of the vmap axis `axis_name` (a "
                  "name or a tuple of names; each member gets it).\n\n"
                  "    >>> import jaxwg, jaxwg.numpy as jnp\n    >>> from jaxwg import lax\n"
                  f"    >>> jaxwg.vmap(lambda v: lax.{prim.name}(v, 'i'), axis_name='i')"
                  f"(jnp.arange(3.0)).tolist()\n    {example}\n")
    return fn


psum = _collective(P.psum_p, "sum", "[3.0, 3.0, 3.0]")
pmax = _collective(P.pmax_p, "maximum", "[2.0, 2.0, 2.0]")
pmin = _collective(P.pmin_p, "minimum", "[0.0, 0.0, 0.0]")


def pmean(x, axis_name):
    """The mean of `x` over the members of the vmap axis `axis_name`; integers and
    bools average to floats (complex numbers stay complex), as JAX's true division gives.

    >>> import jaxwg, jaxwg.numpy as jnp
    >>> from jaxwg import lax
    >>> jaxwg.vmap(lambda v: lax.pmean(v, "i"), axis_name="i")(jnp.arange(4)).tolist()
    [1.5, 1.5, 1.5, 1.5]
    """
    from ..frontend import pytree
    from ..frontend.trace import axis_size

    size = math.prod(axis_size(name) for name in _axis_names(axis_name))

    def mean(total):
        aval = _aval_of(total)
        if not aval.dtype.is_inexact:
            total = convert_element_type(total, float, aval.weak_type)  # as JAX's `total / size`
        return div(total, size)

    return pytree.tree_map(mean, psum(x, axis_name))


def axis_index(axis_name):
    """This member's index (int32) along the vmap axis `axis_name`; with a tuple of
    names, the index into their members flattened, the last name varying fastest.

    >>> import jaxwg, jaxwg.numpy as jnp
    >>> from jaxwg import lax
    >>> jaxwg.vmap(lambda v: v + lax.axis_index("i"), axis_name="i")(jnp.zeros(3)).tolist()
    [0.0, 1.0, 2.0]
    """
    from ..frontend.trace import axis_size

    first, *rest = _axis_names(axis_name)
    index = bind(P.axis_index_p, axis_name=first)
    for name in rest:
        index = add(mul(index, axis_size(name)), bind(P.axis_index_p, axis_name=name))
    return index


def all_gather(x, axis_name, *, axis_index_groups=None, axis=0, tiled=False):
    """Every member's `x` (each leaf of the pytree), stacked along a new axis `axis`
    or, `tiled`, concatenated along the existing axis `axis`; each member gets it.

    >>> import jaxwg, jaxwg.numpy as jnp
    >>> from jaxwg import lax
    >>> jaxwg.vmap(lambda v: lax.all_gather(v, "i"), axis_name="i")(jnp.arange(2.0)).tolist()
    [[0.0, 1.0], [0.0, 1.0]]
    """
    from ..frontend import pytree
    from ..frontend.trace import axis_size

    if axis_index_groups is not None:
        raise NotImplementedError("all_gather with axis_index_groups")

    def gather(leaf):
        rank = _aval_of(leaf).ndim + (not tiled)  # the output's rank
        if not -rank <= axis < rank:
            raise ValueError(f"axis {axis} is out of bounds for array of dimension {rank}")
        return bind(P.all_gather_p, leaf, axis_name=axis_name, axis_size=axis_size(axis_name),
                    all_gather_dimension=axis % rank, tiled=tiled)

    return pytree.tree_map(gather, x)


def reduce_precision(operand, exponent_bits: int, mantissa_bits: int):
    """`operand` (floats) rounded to the float format of `exponent_bits` and
    `mantissa_bits` and kept in its dtype: to nearest even, past the format's range to
    infinities, below its smallest normal to signed zeros. float64 keeps all its bits.

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg import lax
    >>> lax.reduce_precision(jnp.array([1.0 + 2 ** -11, 1e5, 1e-6]), 5, 10).tolist()  # float16's
    [1.0, inf, 0.0]
    """
    return bind(P.reduce_precision_p, operand, exponent_bits=operator.index(exponent_bits),
                mantissa_bits=operator.index(mantissa_bits))


def stop_gradient(x):
    """`x`, every array leaf of the pytree, with a zero derivative.

    >>> import jaxwg
    >>> from jaxwg import lax
    >>> jaxwg.grad(lambda x: x * lax.stop_gradient(x))(3.0).item()
    3.0
    """
    from ..frontend import pytree

    def stop(leaf):
        if avals.is_python_scalar(leaf):
            return leaf
        return bind(P.stop_gradient_p, leaf) if _aval_of(leaf).dtype.is_float else leaf

    return pytree.tree_map(stop, x)



class Precision(enum.Enum):
    """The `precision` of dot products and convolutions, as `jax.lax.Precision` (also
    from the strings JAX accepts). jaxwg computes float32 products in float32 whatever it
    says.

    >>> from jaxwg import lax
    >>> lax.Precision("highest"), str(lax.Precision.HIGH)
    (Precision.HIGHEST, 'HIGH')
    """

    DEFAULT = 0
    HIGH = 1
    HIGHEST = 2

    @classmethod
    def _missing_(cls, value):
        return {"highest": cls.HIGHEST, "float32": cls.HIGHEST, "high": cls.HIGH,
                "bfloat16_3x": cls.HIGH, "tensorfloat32": cls.HIGH, "default": cls.DEFAULT,
                "bfloat16": cls.DEFAULT, "fastest": cls.DEFAULT, None: cls.DEFAULT}.get(value)

    def __repr__(self) -> str:
        return f"{type(self).__name__}.{self.name}"

    def __str__(self) -> str:
        return self.name


class RoundingMethod(enum.IntEnum):
    """How `round` rounds halfway values: away from zero (0) or to the nearest even (1).

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg import lax
    >>> lax.round(jnp.array([2.5]), lax.RoundingMethod.TO_NEAREST_EVEN).tolist()
    [2.0]
    """

    AWAY_FROM_ZERO = 0
    TO_NEAREST_EVEN = 1


# The dimension numbers of `dot_general`: ((lhs_contract, rhs_contract), (lhs_batch, rhs_batch)).
DotDimensionNumbers = tuple[tuple[Sequence[int], Sequence[int]], tuple[Sequence[int], Sequence[int]]]


def reciprocal(x):
    """1 / x, as `integer_pow(x, -1)` (so integers raise, as JAX's).

    >>> from jaxwg import lax
    >>> lax.reciprocal(4.0).item()
    0.25
    """
    return integer_pow(x, -1)


def _same_dtypes(name: str, *args) -> None:
    """JAX's TypeError where the operands of lax.`name` differ in dtype."""
    dtypes = [_aval_of(a).dtype for a in args if not avals.is_python_scalar(a)]
    if any(d != dtypes[0] for d in dtypes):
        raise TypeError(f"lax.{name} requires arguments to have the same dtypes, got "
                        f"{', '.join(d.name for d in dtypes)}.")


def _check_kind(name: str, x, kind: str, accepted: str) -> None:
    """JAX's TypeError where an operand of `name` is not of `accepted` (a dtype property)."""
    dtype = _aval_of(_scalars_like([x])[0] if avals.is_python_scalar(x) else x).dtype
    if not getattr(dtype, kind):
        raise TypeError(f"{name} does not accept dtype {dtype.name} at position 0. Accepted "
                        f"dtypes at position 0 are subtypes of {accepted}.")


@moves_keys(0)
def tile(operand, reps):
    """`operand` repeated `reps[i]` times along each axis i (one rep per axis).

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg import lax
    >>> lax.tile(jnp.array([1, 2]), (2,)).tolist()
    [1, 2, 1, 2]
    """
    shape = _aval_of(operand).shape
    reps = tuple(operator.index(r) for r in reps)
    if len(reps) != len(shape):
        raise TypeError(f"reps length must be equal to the ndim of x, got len(reps)={len(reps)} "
                        f"and x.ndim={len(shape)}.")
    wide = tuple(d for r, n in zip(reps, shape) for d in (r, n))
    out = broadcast_in_dim(operand, wide, tuple(range(1, 2 * len(shape), 2)))
    return reshape(out, tuple(r * n for r, n in zip(reps, shape)))


@moves_keys(0)
def collapse(operand, start_dimension: int, stop_dimension: int | None = None):
    """`operand` with the axes [start_dimension, stop_dimension) merged into one.

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg import lax
    >>> lax.collapse(jnp.ones((2, 3, 4)), 1).shape
    (2, 12)
    """
    shape = _aval_of(operand).shape
    lo, hi, _ = builtins.slice(start_dimension, stop_dimension).indices(len(shape))
    if hi < lo:
        raise ValueError(f"Invalid dimension range passed to collapse: {shape}"
                         f"[{start_dimension}:{stop_dimension}]")
    return reshape(operand, shape[:lo] + (math.prod(shape[lo:hi]),) + shape[hi:])


def broadcast_shapes(*shapes):
    """The shape that `shapes` broadcast to (a ValueError naming them if they do not).

    >>> from jaxwg import lax
    >>> lax.broadcast_shapes((2, 1), (3,))
    (2, 3)
    """
    shapes = [(int(s),) if np.ndim(s) == 0 else tuple(int(n) for n in s) for s in shapes]
    rank = builtins.max((len(s) for s in shapes), default=0)
    padded = [(1,) * (rank - len(s)) + s for s in shapes]
    out = []
    for sizes in zip(*padded):
        big = {n for n in sizes if n != 1}
        if len(big) > 1:
            raise ValueError(f"Incompatible shapes for broadcasting: shapes={shapes}")
        out.append(big.pop() if big else 1)
    return tuple(out)


def broadcast_to_rank(x, rank: int):
    """`x` with leading size-1 axes up to `rank`.

    >>> from jaxwg import lax
    >>> lax.broadcast_to_rank(1.0, 2).shape
    (1, 1)
    """
    x = _scalars_like([x])[0] if avals.is_python_scalar(x) else x
    if avals.is_python_scalar(x):
        x = _scalar(x)
    ndim = _aval_of(x).ndim
    return x if ndim == rank else broadcast(x, (1,) * (rank - ndim))


def reduce_xor(operand, axes):
    """The bitwise exclusive or of `operand` (bools or integers) over `axes`.

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg import lax
    >>> lax.reduce_xor(jnp.array([5, 3, 1]), (0,)).item()
    7
    """
    from .windows import reduce as _reduce

    dtype = _aval_of(operand).dtype
    if not (dtype.is_bool or dtype.is_int):
        raise TypeError(f"logical reduction requires operand dtype bool or int, got {dtype.name}.")
    return _reduce(operand, _scalar(False if dtype.is_bool else 0, dtype), bitwise_xor, tuple(axes))


def mulhi(x, y, /):
    """The high half of the bits of x * y for integers of one dtype (the full product
    is twice their width), as `jax.lax.mulhi`.

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg import lax
    >>> lax.mulhi(jnp.uint32(2 ** 31), jnp.uint32(6)).item()
    3
    """
    _same_dtypes("mulhi", x, y)
    x, y = _scalars_like([x, y])
    _check_kind("mulhi", x, "is_int", "integer")
    dtype = _aval_of(x).dtype
    bits = dtype.itemsize * 8
    if bits <= 16:  # the product fits the 32-bit type of the same signedness
        wide = "uint32" if dtype.is_unsigned else "int32"
        product = mul(convert_element_type(x, wide), convert_element_type(y, wide))
        return convert_element_type(shift_right_arithmetic(product, bits) if not dtype.is_unsigned
                                    else shift_right_logical(product, bits), dtype)
    unsigned = avals.canonical_dtype(f"uint{bits}")
    a, b = bitcast_convert_type(x, unsigned), bitcast_convert_type(y, unsigned)
    half, mask = bits // 2, (1 << (bits // 2)) - 1
    a_lo, a_hi = bitwise_and(a, mask), shift_right_logical(a, half)
    b_lo, b_hi = bitwise_and(b, mask), shift_right_logical(b, half)
    lo_lo, hi_lo, lo_hi = mul(a_lo, b_lo), mul(a_hi, b_lo), mul(a_lo, b_hi)
    cross = add(add(shift_right_logical(lo_lo, half), bitwise_and(hi_lo, mask)), lo_hi)
    high = add(add(shift_right_logical(hi_lo, half), shift_right_logical(cross, half)),
               mul(a_hi, b_hi))
    if not dtype.is_unsigned:  # the signed product's high half, modulo 2^bits
        zero = _scalar(0, unsigned)
        high = sub(high, select(lt(x, _scalar(0, dtype)), b, zero))
        high = sub(high, select(lt(y, _scalar(0, dtype)), a, zero))
    return bitcast_convert_type(high, dtype)


def optimization_barrier(operand, /):
    """`operand` (a pytree of arrays) unchanged: XLA's barrier against moving work
    across it; jaxwg's fusion needs none.

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg import lax
    >>> lax.optimization_barrier((jnp.ones(2), 3))[1].item()
    3
    """
    from ..frontend import pytree

    return pytree.tree_map(lambda a: _scalar(a) if avals.is_python_scalar(a) else a, operand)


def axis_size(axis_name) -> int:
    """The size of the vmap axis `axis_name` (the product of sizes for a tuple of names).

    >>> import jaxwg, jaxwg.numpy as jnp
    >>> from jaxwg import lax
    >>> jaxwg.vmap(lambda v: v * lax.axis_size("i"), axis_name="i")(jnp.ones(3)).tolist()
    [3.0, 3.0, 3.0]
    """
    from ..frontend.trace import axis_size as _size

    return math.prod(_size(name) for name in _axis_names(axis_name))


@moves_keys(0)
def stack(operands, axis: int = 0):
    """`operands` (of one shape and dtype) joined along a new axis `axis`.

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg import lax
    >>> lax.stack([jnp.arange(2), jnp.arange(2)], 1).tolist()
    [[0, 0], [1, 1]]
    """
    operands = [_scalar(a) if avals.is_python_scalar(a) else a for a in operands]
    if not operands:
        raise ValueError("stack expects at least one operand, got 0.")
    ndim = _aval_of(operands[0]).ndim
    if not -ndim - 1 <= axis <= ndim:
        raise ValueError(f"axis {axis} is out of bounds for array of dimension {ndim + 1}")
    return bind(P.stack_p, *operands, axis=axis % (ndim + 1))


@moves_keys(0)
def unstack(x, axis: int = 0) -> tuple:
    """The slices of `x` along `axis`, as a tuple.

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg import lax
    >>> [a.tolist() for a in lax.unstack(jnp.arange(4).reshape(2, 2), 1)]
    [[0, 2], [1, 3]]
    """
    x = _scalar(x) if avals.is_python_scalar(x) else x
    ndim = _aval_of(x).ndim
    if not -ndim <= axis < ndim:
        raise ValueError(f"axis {axis} is out of bounds for array of dimension {ndim}")
    return tuple(bind(P.unstack_p, x, axis=axis % ndim))


def reduce_window_shape_tuple(operand_shape, window_dimensions, window_strides, padding,
                              base_dilation=None, window_dilation=None):
    """The output shape of `reduce_window` with explicit (low, high) `padding`.

    >>> from jaxwg import lax
    >>> lax.reduce_window_shape_tuple((5, 6), (2, 2), (1, 2), ((0, 0), (1, 1)))
    (4, 4)
    """
    from .windows import window_count

    if base_dilation is not None:
        operand_shape = tuple(0 if d == 0 else 1 + r * (d - 1)
                              for d, r in zip(operand_shape, base_dilation))
    window_dilation = (1,) * len(operand_shape) if window_dilation is None else window_dilation
    return tuple(window_count(d + lo + hi, w, s, r) for d, (lo, hi), w, s, r in
                 zip(operand_shape, padding, window_dimensions, window_strides, window_dilation))


# The `dimension_numbers` that `conv_general_dilated` takes: three spec strings, a
# `ConvDimensionNumbers` or None.
ConvGeneralDilatedDimensionNumbers = typing.Union[tuple[str, str, str], "ConvDimensionNumbers", None]


def conv_shape_tuple(lhs_shape, rhs_shape, strides, pads, batch_group_count=1):
    """The output shape of a convolution of an NCHW... `lhs_shape` with an OIHW...
    `rhs_shape` (`pads` explicit pairs or a padding string).

    >>> from jaxwg import lax
    >>> lax.conv_shape_tuple((1, 3, 8, 8), (4, 3, 3, 3), (2, 2), "SAME")
    (1, 4, 4, 4)
    """
    from .windows import padtype_to_pads, window_count

    lhs_shape, rhs_shape = tuple(lhs_shape), tuple(rhs_shape)
    if isinstance(pads, str):
        pads = padtype_to_pads(lhs_shape[2:], rhs_shape[2:], strides, pads)
    if len(pads) != len(lhs_shape) - 2:
        raise TypeError(f"Wrong number of explicit pads for convolution: expected "
                        f"{len(lhs_shape) - 2}, got {len(pads)}.")
    padded = [int(d) + int(lo) + int(hi) for d, (lo, hi) in zip(lhs_shape[2:], pads)]
    if builtins.any(d < 0 for d in padded):
        raise ValueError("Negative padding is larger than the size of the corresponding "
                         f"dimension: got padding={pads} for lhs_shape[2:]={lhs_shape[2:]}")
    batch = lhs_shape[0] // batch_group_count
    return (int(batch), int(rhs_shape[0])) + tuple(
        window_count(d, int(k), int(s)) for d, k, s in zip(padded, rhs_shape[2:], strides))


def _conv_permuted(lhs_shape, rhs_shape, dimension_numbers):
    """The shapes in NCHW... / OIHW... order, and the output spec's permutation."""
    from .convolution import conv_dimension_numbers

    dn = conv_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers)
    return (tuple(lhs_shape[i] for i in dn.lhs_spec), tuple(rhs_shape[i] for i in dn.rhs_spec),
            dn.out_spec)


def _unpermute(shape, out_spec) -> tuple:
    out = [0] * len(shape)
    for size, axis in zip(shape, out_spec):
        out[axis] = int(size)
    return tuple(out)


def conv_general_shape_tuple(lhs_shape, rhs_shape, window_strides, padding, dimension_numbers):
    """The output shape of `conv_general_dilated` for these `dimension_numbers`.

    >>> from jaxwg import lax
    >>> lax.conv_general_shape_tuple((1, 8, 8, 3), (3, 3, 3, 4), (1, 1), "VALID",
    ...                              ("NHWC", "HWIO", "NHWC"))
    (1, 6, 6, 4)
    """
    lhs, rhs, out_spec = _conv_permuted(lhs_shape, rhs_shape, dimension_numbers)
    return _unpermute(conv_shape_tuple(lhs, rhs, window_strides, padding), out_spec)


def conv_transpose_shape_tuple(lhs_shape, rhs_shape, window_strides, padding, dimension_numbers):
    """The output shape of `conv_transpose` for these `dimension_numbers`.

    >>> from jaxwg import lax
    >>> lax.conv_transpose_shape_tuple((1, 4, 4, 3), (3, 3, 3, 4), (2, 2), "SAME",
    ...                                ("NHWC", "HWIO", "NHWC"))
    (1, 8, 8, 4)
    """
    from .convolution import _transpose_padding

    lhs, rhs, out_spec = _conv_permuted(lhs_shape, rhs_shape, dimension_numbers)
    if isinstance(padding, str):
        padding = [_transpose_padding(k, s, padding) for k, s in zip(rhs[2:], window_strides)]
    space = [(i - 1) * s - k + 2 + builtins.sum(p)
             for i, k, s, p in zip(lhs[2:], rhs[2:], window_strides, padding)]
    return _unpermute((lhs[0], rhs[0], *space), out_spec)


def conv_general_dilated_patches(lhs, filter_shape, window_strides, padding, lhs_dilation=None,
                                 rhs_dilation=None, dimension_numbers=None, precision=None,
                                 preferred_element_type=None):
    """The patches of `lhs` that a convolution with a `filter_shape` window sees, as
    channels (each input channel's patch elements in a row), by a grouped convolution with
    an identity kernel, as JAX's.

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg import lax
    >>> lax.conv_general_dilated_patches(jnp.arange(4.0).reshape(1, 1, 4), (2,), (1,), "VALID").tolist()
    [[[0.0, 1.0, 2.0], [1.0, 2.0, 3.0]]]
    """
    from .convolution import conv_dimension_numbers, conv_general_dilated

    if avals.is_python_scalar(lhs) or not hasattr(lhs, "shape"):
        lhs = _scalar(lhs)
    shape, filter_shape = _aval_of(lhs).shape, tuple(filter_shape)
    dn = conv_dimension_numbers(shape, (1, 1) + filter_shape, dimension_numbers)
    spatial, channels = math.prod(filter_shape), shape[dn.lhs_spec[1]]
    rhs = _eye(_aval_of(lhs).dtype, (spatial, spatial))
    rhs = broadcast_in_dim(rhs, (channels, spatial, spatial), (1, 2))
    rhs = reshape(rhs, (channels * spatial, 1, *filter_shape))
    rest = iter(range(2, len(filter_shape) + 2))  # rhs axes 0, 1 to the spec's O and I
    rhs = transpose(rhs, [0 if axis == dn.rhs_spec[0] else 1 if axis == dn.rhs_spec[1] else next(rest)
                          for axis in range(len(filter_shape) + 2)])
    return conv_general_dilated(lhs, rhs, window_strides, padding, lhs_dilation, rhs_dilation,
                                dn, feature_group_count=channels, precision=precision,
                                preferred_element_type=preferred_element_type)

__all__ = [name for name in dir() if not name.startswith("_") and name not in
           ("annotations", "math", "np", "avals", "P", "bind", "operator", "moves_keys",
            "builtins", "enum", "Sequence", "typing")]
