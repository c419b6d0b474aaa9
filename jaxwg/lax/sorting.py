"""Sorting on the device: `lax.sort` (several operands, `num_keys`), `sort_key_val` and
`top_k`.

Each key operand becomes one or more uint32 *order keys* (`order_keys`): floats by
JAX's order (-0 as 0, NaN last) as total-order integers, float64 as four keys. The
`sort_permutation` primitive (the backend's sort routine: a bitonic network in
workgroup memory on WebGPU) finds the stable permutation that sorts each row by them,
and every operand is gathered through it (`permute`). Differentiation goes through
the gather, whose transpose for a permutation is the gather of the inverse
permutation; batching moves the batch axis in front of the sorted one.

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
from ..frontend.gather import GatherDimensionNumbers, GatherScatterMode
from ..frontend.jit import jit
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


def _last_axis_take(rank: int) -> GatherDimensionNumbers:
    batch = tuple(range(rank - 1))
    return GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(rank - 1,),
                                  start_index_map=(rank - 1,), operand_batching_dims=batch,
                                  start_indices_batching_dims=batch)


def permute(x, perm):
    """`x[..., perm[..., i]]` for a permutation `perm` of each last-axis row: a gather
    that promises unique indices, so that its transpose is the gather of the inverse
    permutation (`inverse_permutation_transpose`), not a scatter.

    >>> import jaxwg.numpy as jnp
    >>> permute(jnp.array([10, 20, 30]), jnp.array([2, 0, 1])).tolist()
    [30, 10, 20]
    """
    rank = aval_of(x).ndim
    return gather(x, lax.expand_dims(perm, (rank,)), _last_axis_take(rank), (1,) * rank,
                  unique_indices=True, mode=GatherScatterMode.PROMISE_IN_BOUNDS)


def is_permutation(operand_shape, indices_shape, dimension_numbers, unique_indices: bool) -> bool:
    """Whether a gather with these parameters is `permute`: unique in-bounds indices
    taking every element of each last-axis row once."""
    rank = len(operand_shape)
    return (unique_indices and rank > 0 and tuple(indices_shape) == tuple(operand_shape) + (1,)
            and dimension_numbers == _last_axis_take(rank))


def inverse_permutation_transpose(ct, indices):
    """The transpose of `permute(x, perm)` at cotangent `ct`: `ct` permuted by the inverse
    of `perm` (which sorting `perm` gives)."""
    perm = lax.squeeze(indices, (aval_of(indices).ndim - 1,))
    return permute(ct, sort_permutation(unsigned_key(perm)))


def sort(operand, dimension: int = -1, is_stable: bool = True, num_keys: int = 1):
    """`operand` (an array, or a sequence sorted together by its first `num_keys`)
    sorted along `dimension`, NaNs last; always stable.

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg import lax
    >>> keys, vals = lax.sort((jnp.array([2, 1, 2, 0]), jnp.arange(4)), num_keys=1)
    >>> keys.tolist(), vals.tolist()
    ([0, 1, 2, 2], [3, 1, 0, 2])
    """
    single = not isinstance(operand, (tuple, list))
    operands = [operand] if single else list(operand)
    if not 1 <= num_keys <= len(operands):
        raise ValueError(f"sort: num_keys={num_keys} must be in [1, {len(operands)}]")
    shape = aval_of(operands[0]).shape
    if any(aval_of(o).shape != shape for o in operands):
        raise TypeError("sort: all operands must have the same shape, got "
                        + ", ".join(str(aval_of(o).shape) for o in operands))
    if not shape:
        raise TypeError("sort: operand must have at least one dimension")
    axis = dimension % len(shape)
    if any(aval_of(k).dtype.is_complex for k in operands[:num_keys]):
        # Complex keys order lexicographically: by real part, then imaginary part.
        keys = [part(k) for k in operands[:num_keys]
                for part in ((lax.real, lax.imag) if aval_of(k).dtype.is_complex else (lambda v: v,))]
        out = sort((*keys, *operands), dimension, is_stable, num_keys=len(keys))[len(keys):]
        return out[0] if single else tuple(out)
    if shape[axis] <= 1 or 0 in shape:  # already sorted
        return operands[0] if single else tuple(operands)
    # One traced program per signature: eager sorts replay it instead of growing the
    # lazy graph step by step.
    out = _sorted(*operands, axis=axis, num_keys=num_keys)
    return out[0] if single else tuple(out)


@functools.partial(jit, static_argnames=("axis", "num_keys"))
def _sorted(*operands, axis: int, num_keys: int):
    rank = aval_of(operands[0]).ndim
    to_last = [d for d in range(rank) if d != axis] + [axis]
    moved = [lax.transpose(o, to_last) for o in operands]
    keys = [unsigned_key(k) for o in moved[:num_keys] for k in order_keys(o)]
    perm = sort_permutation(*keys)
    back = [int(i) for i in np.argsort(to_last)]
    return [lax.transpose(permute(o, perm), back) for o in moved]


def sort_key_val(keys, values, dimension: int = -1, is_stable: bool = True):
    """`keys` sorted along `dimension`, and `values` permuted the same way.

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg import lax
    >>> [a.tolist() for a in lax.sort_key_val(jnp.array([3, 1, 2]), jnp.array([30, 10, 20]))]
    [[1, 2, 3], [10, 20, 30]]
    """
    return sort((keys, values), dimension, is_stable, num_keys=1)


def top_k(operand, k: int, *, axis: int = -1):
    """The `k` largest entries along `axis`, largest first (in total order: NaN largest,
    0 before -0; ties by position), and their int32 indices.

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg import lax
    >>> values, indices = lax.top_k(jnp.array([1.0, 5.0, 3.0, 5.0]), 2)
    >>> values.tolist(), indices.tolist()
    ([5.0, 5.0], [1, 3])
    """
    shape = aval_of(operand).shape
    if aval_of(operand).dtype.is_complex:
        raise ValueError("top_k is not compatible with complex inputs.")
    if not -len(shape) <= axis < len(shape):
        raise ValueError(f"axis {axis} is out of bounds for array of dimension {len(shape)}")
    axis = axis % len(shape)
    if not 0 <= k <= shape[axis]:
        raise ValueError(f"top_k: k={k} must be in [0, {shape[axis]}] for axis of size "
                         f"{shape[axis]}")
    index = lax.broadcasted_iota(np.int32, shape, axis)
    descending = [lax.bitwise_not(k) for k in order_keys(operand, equal_zeros=False)]
    *_, values, indices = sort((*descending, operand, index), axis, num_keys=len(descending))
    start, stop = [0] * len(shape), list(shape)
    stop[axis] = k
    return lax.slice(values, start, stop), lax.slice(indices, start, stop)
