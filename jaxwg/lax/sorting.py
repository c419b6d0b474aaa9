"""Sorting on the device: `lax.sort` (several operands, `num_keys`), `sort_key_val` and
`top_k`.

`lax.sort` binds one `sort` primitive (`sort_p`, with JAX's params `dimension`,
`is_stable` and `num_keys`), so jaxprs print as JAX's. Its lowering is a jaxpr of the
primitives the backend has (`_sorted_by_keys`), traced once per signature and lowered
in place: each key operand becomes one or more uint32 *order keys* (`order_keys`):
floats by JAX's order (-0 as 0, NaN last) as total-order integers, float64 as four
keys, complex numbers as their parts'. The `sort_permutation` primitive (the backend's
sort routine: a bitonic network in workgroup memory on WebGPU) finds the stable
permutation that sorts each row by them, and every operand is gathered through it
(`permute`). The JVP is JAX's: an iota sorted along, whose result gathers the tangents
(`permute`, whose transpose is the gather of the inverse permutation); batching moves
the sorted dimension past the batch axis. `lax.top_k` binds JAX's `top_k` primitive
likewise, lowered through a sort by descending total-order keys (`_largest`). Eager
calls of either run as one program per signature (`bind_as_program`).

>>> import jaxwg.numpy as jnp
>>> from jaxwg import lax
>>> lax.sort(jnp.array([3.0, jnp.nan, -1.0, 2.0])).tolist()
[-1.0, 2.0, 3.0, nan]
"""

from __future__ import annotations

import functools

import numpy as np

from ..core import dtypes as dt
from ..frontend import primitives as P
from ..frontend.array import aval_of
from ..frontend.aval import ShapedArray
from ..frontend.complex_lowering import STORAGE_RULES
from ..frontend.gather import GatherDimensionNumbers, GatherScatterMode
from ..frontend.jaxpr import trace_body
from ..frontend.jit import bind_as_program, lower_jaxpr
from ..frontend.lazy import IOTA
from ..frontend.trace import bind
from . import lax
from .slicing import gather


def order_keys(x, equal_zeros: bool = True) -> list:
    """Arrays that compare (as integers, lexicographically) in JAX's sort order of `x`:
    -0 equals 0 unless not `equal_zeros` (top_k's total order puts -0 first). One key,
    except for float64 (`_float64_keys`) and complex numbers (their parts' keys)."""
    dtype = aval_of(x).dtype
    if dtype.is_complex:  # by real part, then imaginary part, as JAX's sort
        return order_keys(lax.real(x), equal_zeros) + order_keys(lax.imag(x), equal_zeros)
    if dtype.is_bool:
        return [lax.convert_element_type(x, np.int32)]
    if dtype in dt.WIDENED:  # int8, int16, uint8, uint16: as their 32-bit integer, same order
        return [lax.convert_element_type(x, dt.WIDENED[dtype].np)]
    if not dtype.is_float:
        return [x]
    if dtype is dt.float64:
        return _float64_keys(x, equal_zeros)
    if dtype is not dt.float32:
        x = lax.convert_element_type(x, np.float32)  # exact for float16
    if equal_zeros:
        x = lax.select(lax.eq(x, lax.full_like(x, 0)), lax.full_like(x, 0), x)
    x = lax.select(lax.ne(x, x), lax.full_like(x, float("nan")), x)
    bits = lax.bitcast_convert_type(x, np.int32)
    # negative floats: flip the magnitude bits, so larger magnitudes compare smaller
    return [lax.select(lax.lt(bits, lax.full_like(bits, 0)),
                       lax.bitwise_xor(bits, lax.full_like(bits, 0x7FFFFFFF)), bits)]


# Class keys of float64 values outside the finite nonzero ones; finite nonzero values
# have (binade + 2000) times their sign, at least 925 in magnitude.
_NAN_CLASS, _INF_CLASS = 5000, 4000


def _float64_keys(x, equal_zeros: bool) -> list:
    """float64 in order without 64-bit integers: (sign * (binade + 2000), then the
    significand in [1, 2) as three float32 pieces m1 + m2 + m3 (53 bits in three times
    24), each signed). Rounding to float32 is monotonic, and each piece orders the values
    the ones before it tie."""
    def f64(v):
        return lax.full_like(x, v)

    magnitude = lax.abs(x)
    finite = lax.is_finite(x)
    nonzero = lax.ne(x, f64(0))
    ordinary = lax.bitwise_and(finite, nonzero)
    safe = lax.select(ordinary, magnitude, f64(1))
    significand, binade = _binade(safe)
    negative = lax.lt(x, f64(0))
    sign = lax.select(negative, f64(-1), f64(1))
    pieces, rest = [], significand
    for _ in range(3):
        piece = lax.convert_element_type(lax.convert_element_type(rest, np.float32), np.float64)
        pieces.append(piece)
        rest = rest - piece
    zero_class = f64(0) if equal_zeros else lax.select(_signbit64(x), f64(-1), f64(0))
    special = lax.select(lax.ne(x, x), f64(_NAN_CLASS),
                         lax.select(finite, zero_class, sign * _INF_CLASS))
    first = lax.select(ordinary, sign * (binade + 2000), special)
    keys = [lax.convert_element_type(first, np.int32)]
    for piece in pieces:
        signed = lax.select(ordinary, sign * piece, f64(0))
        keys.extend(order_keys(lax.convert_element_type(signed, np.float32)))
    return keys


def _binade(a):
    """(m, e) with a = m 2^e, m in [1, 2), for finite a > 0 (float64): scaled by constant
    powers of two, largest first (WGSL has no float64 log or exp2; each step is exact)."""
    binade = lax.full_like(a, 0)
    for k in (512, 256, 128, 64, 32, 16, 8, 4, 2, 1):
        big = lax.ge(a, lax.full_like(a, 2.0 ** k))
        a = lax.select(big, a * 2.0 ** -k, a)
        binade = lax.select(big, binade + k, binade)
    for k in (512, 512, 256, 128, 64, 32, 16, 8, 4, 2, 1):  # subnormals need 1074 in all
        small = lax.lt(a, lax.full_like(a, 2.0 ** (1 - k)))
        a = lax.select(small, a * 2.0 ** k, a)
        binade = lax.select(small, binade - k, binade)
    return a, binade


def _signbit64(x):
    """Whether float64 `x` has its sign bit set (-0.0 included): 1 / -0.0 is -inf."""
    return lax.lt(lax.select(lax.eq(x, lax.full_like(x, 0)), lax.div(lax.full_like(x, 1), x), x),
                  lax.full_like(x, 0))


def lex_less(a_keys, b_keys):
    """Whether the tuple `a_keys` sorts before `b_keys` (lexicographically)."""
    less = None
    for a, b in zip(reversed(a_keys), reversed(b_keys)):
        here = lax.lt(a, b)
        less = here if less is None else lax.bitwise_or(here, lax.bitwise_and(lax.eq(a, b), less))
    return less


def unsigned_key(key):
    """An int32 or uint32 order key as a uint32 in the same order (the sign bit flipped)."""
    if aval_of(key).dtype is dt.uint32:
        return key
    bits = lax.bitcast_convert_type(key, np.uint32)
    return lax.bitwise_xor(bits, lax.full_like(bits, 0x80000000))


def sort_permutation(*keys):
    """The stable permutation that sorts each last-axis row of the uint32 `keys` (same
    shape), compared lexicographically: the device's sort routine.

    >>> import numpy as np, jaxwg.numpy as jnp
    >>> sort_permutation(jnp.array([3, 1, 2, 1], np.uint32)).tolist()
    [1, 3, 2, 0]
    """
    return bind(P.sort_permutation_p, *keys)


def take_along(rank: int, axis: int) -> GatherDimensionNumbers:
    """A gather's dimension numbers that take one element along `axis` for each index,
    every other axis a batch axis (JAX's sort JVP takes its tangents so)."""
    batch = tuple(d for d in range(rank) if d != axis)
    return GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(axis,), start_index_map=(axis,),
                                  operand_batching_dims=batch, start_indices_batching_dims=batch)


def permute(x, perm, axis: int = -1):
    """`x` taken along `axis` at `perm`, a permutation of each row along `axis`: a gather
    that promises unique indices, so that its transpose is the gather of the inverse
    permutation (`inverse_permutation_transpose`), not a scatter.

    >>> import jaxwg.numpy as jnp
    >>> permute(jnp.array([10, 20, 30]), jnp.array([2, 0, 1])).tolist()
    [30, 10, 20]
    """
    rank = aval_of(x).ndim
    return gather(x, lax.expand_dims(perm, (rank,)), take_along(rank, axis % rank), (1,) * rank,
                  unique_indices=True, mode=GatherScatterMode.PROMISE_IN_BOUNDS)


def permutation_axis(operand_shape, indices_shape, dimension_numbers, unique_indices: bool):
    """The axis along which a gather with these parameters is `permute` (unique in-bounds
    indices taking every element of each row once), or None where it is not one."""
    rank = len(operand_shape)
    if not (unique_indices and rank > 0 and tuple(indices_shape) == tuple(operand_shape) + (1,)
            and len(dimension_numbers.collapsed_slice_dims) == 1):
        return None
    axis = dimension_numbers.collapsed_slice_dims[0]
    return axis if dimension_numbers == take_along(rank, axis) else None


def _along_last(x, axis: int, fn):
    """`fn` (of rows along the last axis) applied to the rows of `x` along `axis`."""
    rank = aval_of(x).ndim
    to_last = [d for d in range(rank) if d != axis] + [axis]
    return lax.transpose(fn(lax.transpose(x, to_last)), [int(i) for i in np.argsort(to_last)])


def inverse_permutation_transpose(ct, indices, axis: int):
    """The transpose of `permute(x, perm, axis)` at cotangent `ct`: `ct` permuted by the
    inverse of `perm` (which sorting `perm` gives)."""
    perm = lax.squeeze(indices, (aval_of(indices).ndim - 1,))
    inverse = _along_last(perm, axis, lambda rows: sort_permutation(unsigned_key(rows)))
    return permute(ct, inverse, axis)


def sort(operand, dimension: int = -1, is_stable: bool = True, num_keys: int = 1):
    """`operand` (an array, or a sequence sorted together by its first `num_keys`)
    sorted along `dimension`, NaNs last; always stable. One `sort` primitive, as JAX's.

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg import lax
    >>> keys, vals = lax.sort((jnp.array([2, 1, 2, 0]), jnp.arange(4)), num_keys=1)
    >>> keys.tolist(), vals.tolist()
    ([0, 1, 2, 2], [3, 1, 0, 2])
    """
    several = isinstance(operand, (tuple, list))
    operands = tuple(operand) if several else (operand,)
    if several and not operands:
        raise TypeError("Sort requires at least one operand")
    if several and not 1 <= num_keys <= len(operands):
        raise ValueError(f"num_keys={num_keys} must be between 1 and len(operand)={len(operands)}")
    if not several and num_keys != 1:
        raise ValueError(f"num_keys={num_keys} must equal 1 for a single operand.")
    params = {"dimension": _canonical_dimension(dimension, aval_of(operands[0]).ndim),
              "is_stable": is_stable, "num_keys": num_keys}
    outs = bind_as_program(sort_p, operands, params)
    return tuple(outs) if several else outs[0]


def _canonical_dimension(dimension: int, ndim: int) -> int:
    if not -ndim <= dimension < ndim:
        raise ValueError(f"axis {dimension} is out of bounds for array of dimension {ndim}")
    return int(dimension) % ndim


def _sort_abstract_eval(*avals, dimension, is_stable, num_keys):
    if any(a.shape != avals[0].shape for a in avals[1:]):
        shapes = " ".join(str(a.shape) for a in avals)
        raise TypeError(f"Arguments to sort must have equal shapes, got: {shapes}")
    return list(avals)


# The operands sorted along `dimension` by their first `num_keys` (lexicographically),
# as JAX's `sort_p`; lowered through `_sorted_by_keys`.
sort_p = P._declare("sort", _sort_abstract_eval, multiple_results=True)


def _sorted_by_keys(*operands, dimension: int, num_keys: int, iotas: tuple) -> list:
    """What `sort` computes, in primitives the backend has: with `dimension` moved last,
    the keys' order keys, the sort routine's permutation of their rows, and each operand
    gathered through it; an operand that `iotas` marks as an iota along `dimension` (an
    argsort's, the JVP's) sorts to the permutation itself."""
    rank = aval_of(operands[0]).ndim
    to_last = [d for d in range(rank) if d != dimension] + [dimension]
    moved = [lax.transpose(o, to_last) for o in operands]
    perm = sort_permutation(*[unsigned_key(k) for o in moved[:num_keys] for k in order_keys(o)])
    back = [int(i) for i in np.argsort(to_last)]
    permuted = [lax.convert_element_type(perm, aval_of(o).dtype) if iota else permute(o, perm)
               for o, iota in zip(moved, iotas)]
    return [lax.transpose(o, back) for o in permuted]


@functools.lru_cache(maxsize=256)
def _traced_sort(avals: tuple, dimension: int, num_keys: int, iotas: tuple):
    return trace_body(lambda *ops: _sorted_by_keys(*ops, dimension=dimension, num_keys=num_keys,
                                                   iotas=iotas), avals, "sort")


def _sort_lowering(out_avals, *nodes, dimension, is_stable, num_keys):
    # Lowered in place (as a called jaxpr), so its kernels fuse with their neighbours;
    # complex operands arrive as pairs of parts and the traced jaxpr takes them so.
    shape = out_avals[0].shape
    if shape[dimension] <= 1 or 0 in shape:  # already sorted
        return list(nodes)
    iotas = tuple(i >= num_keys and node.kind == IOTA and node.arg.axis == dimension
                  for i, node in enumerate(nodes))
    return lower_jaxpr(_traced_sort(tuple(out_avals), dimension, num_keys, iotas), list(nodes))


P.lowering_rules[sort_p] = _sort_lowering
STORAGE_RULES.add(sort_p)


def sort_key_val(keys, values, dimension: int = -1, is_stable: bool = True):
    """`keys` sorted along `dimension`, and `values` permuted the same way.

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg import lax
    >>> [a.tolist() for a in lax.sort_key_val(jnp.array([3, 1, 2]), jnp.array([30, 10, 20]))]
    [[1, 2, 3], [10, 20, 30]]
    """
    return sort((keys, values), dimension, is_stable, num_keys=1)


def top_k(operand, k: int, *, axis: int = -1) -> list:
    """The `k` largest entries along `axis`, largest first (in total order: NaN largest,
    0 before -0; ties by position), and their int32 indices: one `top_k` primitive, as
    JAX's.

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg import lax
    >>> values, indices = lax.top_k(jnp.array([1.0, 5.0, 3.0, 5.0]), 2)
    >>> values.tolist(), indices.tolist()
    ([5.0, 5.0], [1, 3])
    """
    k = int(k)
    if k < 0:
        raise ValueError(f"k argument to top_k must be nonnegative, got {k}")
    axis = _canonical_dimension(axis, aval_of(operand).ndim)
    return bind_as_program(top_k_p, (operand,), {"k": k, "axis": axis})


def _top_k_abstract_eval(operand, *, k, axis):
    if operand.dtype.is_complex:
        raise ValueError("top_k is not compatible with complex inputs.")
    if k < 0:
        raise ValueError(f"k argument to top_k must be nonnegative, got {k}")
    if not operand.shape:
        raise TypeError(f"top_k operand must have >= 1 dimension, got {operand.shape}")
    if not 0 <= axis < operand.ndim:
        raise ValueError(f"axis argument out of range: axis={axis} for operand.shape={operand.shape}")
    shape = list(operand.shape)
    if shape[axis] < k:
        raise ValueError("k argument to top_k must be no larger than size along axis; got "
                         f"k={k} with shape={shape} and axis={axis}")
    shape[axis] = k
    return [ShapedArray(shape, operand.dtype, operand.weak_type), ShapedArray(shape, dt.int32)]


# The `k` largest entries along `axis` and their indices, as JAX's `top_k_p`; lowered
# through `_largest`.
top_k_p = P._declare("top_k", _top_k_abstract_eval, multiple_results=True)


def _largest(operand, *, k: int, axis: int) -> list:
    """What `top_k` computes: a sort by the descending total order keys, carrying the
    operand and its positions, cut after `k`."""
    shape = aval_of(operand).shape
    index = lax.broadcasted_iota(np.int32, shape, axis)
    descending = [lax.bitwise_not(key) for key in order_keys(operand, equal_zeros=False)]
    *_, values, indices = sort((*descending, operand, index), axis, num_keys=len(descending))
    return [lax.slice_in_dim(values, 0, k, axis=axis), lax.slice_in_dim(indices, 0, k, axis=axis)]


@functools.lru_cache(maxsize=256)
def _traced_top_k(aval: ShapedArray, k: int, axis: int):
    return trace_body(lambda x: _largest(x, k=k, axis=axis), [aval], "top_k")


def _top_k_lowering(out_avals, x, *, k, axis):
    return lower_jaxpr(_traced_top_k(ShapedArray(x.shape, x.dtype), k, axis), [x])


P.lowering_rules[top_k_p] = _top_k_lowering
