"""Gathers, scatters and the slices whose start is an array: `gather`, `scatter`,
`scatter_add` (`_sub`, `_mul`, `_min`, `_max`), `dynamic_slice`, `dynamic_index_in_dim`,
`dynamic_update_slice`, as `jax.lax` defines them (semantics in `frontend/gather.py`).

`gather` is a primitive, fused into the kernels that read it. Each scatter is one
primitive too, as JAX's (`scatter-add`, `scatter-sub`, `scatter-mul`, `scatter-min`,
`scatter-max`, `scatter`, with JAX's params), lowered in place through what `_scatter`
builds (a subtraction as the sum of the negated updates), traced
once per signature (`_traced_scatter`); an eager call is one program per signature
(`bind_as_program`), so a repeated one only replays its kernels. `scatter_add` of the
dtypes the scatter routine adds (`core.routine.ScatterAdd.COMBINE_DTYPES`), on arrays that
any device binds whole (`binds_anywhere`), computes each
update element's flat position in the operand and runs the routine
(`scatter_add_flat`: atomic adds on GPUs; colliding float updates sum in no fixed
order, as on JAX's GPUs). `scatter` (set) on such arrays finds each position's last
update with an int32 scatter-max of the update numbers (`scatter_max_flat`) and
gathers it: colliding updates keep the last, as JAX's do on CPU; int32, uint32 and
float32 `scatter_max` and `scatter_min` map their values onto int32's order for the same
primitive (float32 differentiates as JAX's; narrower types widen to them); products, and
the sums, maxima and minima of other dtypes, sort their updates by position and combine
each position's run in a segmented scan (`_combine_runs`), as do complex products and
maxima and minima of any size (complex sums and sets scatter each part). Small ones
(`DENSE_SCATTER_TERMS`) and the other scatters are built from primitives: each operand
element reduces, over every index vector, the update element that lands on it
(masked where none does), so colliding indices
combine exactly as the op says and the result is the same on every device, but the
work is (operand size) x (number of index vectors).

`dynamic_slice` and `dynamic_update_slice` are primitives as well, as JAX's (the array,
then one scalar start per axis): each start is clamped so the window fits; they lower
to a gather of the one window, and to a select of the update where its window lies.

>>> import jaxwg.numpy as jnp
>>> from jaxwg import lax
>>> x = jnp.arange(10)
>>> lax.dynamic_slice(x, (jnp.int32(7),), (4,)).tolist()   # the start clamps so the slice fits
[6, 7, 8, 9]
"""

from __future__ import annotations

import functools
import math

import numpy as np

from ..core import dtypes as dt
from ..core.routine import ScatterAdd, binds_anywhere
from ..frontend import primitives as P
from ..frontend.array import aval_of
from ..frontend.aval import ShapedArray
from ..frontend.complex_lowering import STORAGE_RULES
from ..frontend.gather import (GatherDimensionNumbers, GatherScatterMode, ScatterDimensionNumbers,
                               default_fill, scatter_abstract_eval)
from ..frontend.jaxpr import trace_body, trace_to_jaxpr
from ..frontend.jit import bind_as_program, lower_jaxpr, staged_jit
from ..frontend.trace import bind
from . import lax
from .keys import moves_keys

__all__ = ["GatherDimensionNumbers", "GatherScatterMode", "ScatterDimensionNumbers",
           "dynamic_index_in_dim", "dynamic_slice", "dynamic_slice_in_dim", "dynamic_update_index_in_dim",
           "dynamic_update_slice", "dynamic_update_slice_in_dim", "gather", "index_take", "scatter",
           "scatter_add", "scatter_max", "scatter_min", "scatter_mul", "scatter_sub"]


@moves_keys(0)
def gather(operand, start_indices, dimension_numbers: GatherDimensionNumbers, slice_sizes, *,
           unique_indices: bool = False, indices_are_sorted: bool = False, mode=None,
           fill_value=None):
    """Slices of `operand` of `slice_sizes`, starting where `start_indices` says
    (XLA's gather; the index vector is the last axis of `start_indices`).

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg import lax
    >>> dnums = lax.GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,),
    ...                                    start_index_map=(0,))
    >>> lax.gather(jnp.arange(6.).reshape(3, 2), jnp.array([[2], [0]]), dnums, (1, 2)).tolist()
    [[4.0, 5.0], [0.0, 1.0]]
    """
    # As JAX's: no mode promises the indices in bounds; only FILL_OR_DROP fills, and its
    # param says with what.
    mode = GatherScatterMode.PROMISE_IN_BOUNDS if mode is None else GatherScatterMode.from_any(mode)
    if mode is not GatherScatterMode.FILL_OR_DROP:
        fill_value = None
    elif fill_value is None:
        dtype = aval_of(operand).dtype
        fill_value = float("nan") if dtype.is_inexact else default_fill(dtype)
    return bind(P.gather_p, operand, start_indices, dimension_numbers=dimension_numbers,
                slice_sizes=tuple(int(s) for s in slice_sizes), mode=mode,
                fill_value=fill_value, indices_are_sorted=bool(indices_are_sorted),
                unique_indices=bool(unique_indices))


def _unbatched(scatter_indices, d: ScatterDimensionNumbers):
    """The same scatter without batching dims: each operand batching axis becomes one
    more index column (its position along the paired indices axis) and an inserted
    window axis."""
    shape = aval_of(scatter_indices).shape
    indices = lax.convert_element_type(scatter_indices, dt.int32)
    columns = [lax.broadcasted_iota(dt.int32, shape[:-1] + (1,), axis)
               for axis in d.scatter_indices_batching_dims]
    indices = lax.concatenate([indices] + columns, len(shape) - 1)
    return indices, ScatterDimensionNumbers(
        update_window_dims=d.update_window_dims,
        inserted_window_dims=tuple(sorted(d.inserted_window_dims + d.operand_batching_dims)),
        scatter_dims_to_operand_dims=d.scatter_dims_to_operand_dims + d.operand_batching_dims)


# A `scatter` (set), `scatter_max` or `scatter_min` of at most this many
# (operand element, index vector) pairs is built from primitives, which fuse into the
# kernels around it (`x.at[i].set(v)` in a loop body); a larger one takes the scatter
# routine's passes.
DENSE_SCATTER_TERMS = 1 << 16


# The type whose scatter max and min (`_order_key`) compute those of a narrower one.
_WIDER_ORDER = {dt.float16: dt.float32, dt.int8: dt.int32, dt.int16: dt.int32, dt.uint8: dt.uint32,
                dt.uint16: dt.uint32, dt.bool_: dt.int32}


def _scatter(combine: str, operand, scatter_indices, updates, dimension_numbers, mode):
    """`operand` with `updates` combined in (see the module docstring); `combine` is
    "add", "mul", "min", "max" or "set" (the last update to land wins)."""
    d = dimension_numbers
    op_aval, idx_aval, upd_aval = aval_of(operand), aval_of(scatter_indices), aval_of(updates)
    scatter_abstract_eval(op_aval, idx_aval, upd_aval, dimension_numbers=d, mode=mode,
                          indices_are_sorted=False, unique_indices=False)
    if op_aval.dtype.is_complex and combine in ("add", "set"):
        # The parts scatter on their own (products and orderings mix them: `_combine_runs`).
        return lax.complex(*(_scatter(combine, part(operand), scatter_indices, part(updates), d, mode)
                             for part in (lax.real, lax.imag)))
    if d.operand_batching_dims:
        indices, unbatched = _unbatched(scatter_indices, d)
        return _scatter(combine, operand, indices, updates, unbatched, mode)
    if combine == "sub":
        return _scatter("add", operand, scatter_indices, lax.neg(updates), d, mode)
    mode = GatherScatterMode.from_any(mode)
    if mode is GatherScatterMode.PROMISE_IN_BOUNDS:  # XLA's scatter, which JAX's reaches, drops them
        mode = GatherScatterMode.FILL_OR_DROP
    shape, n = op_aval.shape, op_aval.ndim
    batch_shape, k = idx_aval.shape[:-1], idx_aval.shape[-1]
    count = 1
    for size in batch_shape:
        count *= size
    if count == 0 or op_aval.size == 0:
        return operand
    window_axes = [a for a in range(n) if a not in d.inserted_window_dims]
    window = [upd_aval.shape[u] for u in d.update_window_dims]
    batch_axes = [i for i in range(upd_aval.ndim) if i not in d.update_window_dims]
    flat_updates = lax.reshape(lax.transpose(updates, tuple(batch_axes) + tuple(d.update_window_dims)),
                               (count,) + tuple(window))
    flat_indices = lax.reshape(lax.convert_element_type(scatter_indices, dt.int32), (count, k))
    elements = count * math.prod(window)  # of the updates
    if elements == 0:
        return operand
    large = op_aval.size * count > DENSE_SCATTER_TERMS
    ordered = (dt.int32, dt.uint32, dt.float32)  # the dtypes `_order_key` maps
    wider = _WIDER_ORDER.get(op_aval.dtype)
    if large and combine in ("max", "min") and wider is not None:
        # Every value of these is one of the wider type's, in the same order.
        out = _scatter(combine, lax.convert_element_type(operand, wider), scatter_indices,
                       lax.convert_element_type(updates, wider), dimension_numbers, mode)
        return lax.convert_element_type(out, op_aval.dtype)
    atomic_add = combine == "add" and op_aval.dtype in ScatterAdd.COMBINE_DTYPES["add"]
    by_routine = (atomic_add or large and combine == "set" or op_aval.dtype.is_complex
                  or large and combine in _RUN_OPS)
    if by_routine and binds_anywhere(op_aval.size, elements):
        targets = lax.reshape(_flat_targets(flat_indices, d, shape, window, mode), (elements,))
        flat_updates = lax.reshape(flat_updates, (elements,))
        if atomic_add:
            return bind(P.scatter_add_flat_p, operand, targets, flat_updates)
        if combine == "set":
            return _set_flat(operand, targets, flat_updates)
        if combine in ("max", "min") and op_aval.dtype in ordered:
            return _extremum_flat(combine, operand, targets, flat_updates)
        return _combine_runs(combine, operand, targets, flat_updates)
    full = tuple(shape) + (count,)  # every operand element against every index vector
    which = lax.broadcasted_iota(dt.int32, full, n)
    valid, offsets = None, []
    for axis in range(n):
        size = window[window_axes.index(axis)] if axis in window_axes else 1
        start = None
        if axis in d.scatter_dims_to_operand_dims:
            column = lax.slice(flat_indices, (0, d.scatter_dims_to_operand_dims.index(axis)),
                               (count, d.scatter_dims_to_operand_dims.index(axis) + 1))
            start = lax.broadcast_in_dim(lax.reshape(column, (count,)), full, (n,))
            limit = lax.full(full, shape[axis] - size, dt.int32)
            if mode is GatherScatterMode.FILL_OR_DROP:
                valid = _and(valid, lax.bitwise_and(lax.ge(start, lax.full(full, 0, dt.int32)),
                                                    lax.le(start, limit)))
            else:
                start = lax.clamp(lax.full(full, 0, dt.int32), start, limit)
        position = lax.broadcasted_iota(dt.int32, full, axis)
        offset = position if start is None else lax.sub(position, start)
        if axis in window_axes:
            valid = _and(valid, lax.bitwise_and(lax.ge(offset, lax.full(full, 0, dt.int32)),
                                                lax.lt(offset, lax.full(full, size, dt.int32))))
            offsets.append(offset)
        else:
            valid = _and(valid, lax.eq(offset, lax.full(full, 0, dt.int32)))
    if valid is None:  # a rank-0 operand: every index vector lands on its one element
        valid = lax.full(full, True, dt.bool_)
    vector = lax.concatenate([lax.reshape(i, full + (1,)) for i in [which] + offsets], n + 1)
    picked = len(offsets) + 1
    term = gather(flat_updates, vector, GatherDimensionNumbers(
        offset_dims=(), collapsed_slice_dims=tuple(range(picked)), start_index_map=tuple(range(picked))),
        (1,) * picked, mode=GatherScatterMode.CLIP)
    return _COMBINE[combine](operand, term, valid, which, n)


def _set_flat(operand, targets, updates):
    """`operand` with `updates` written at flat `targets` (-1: dropped), the last update
    to a position winning, as JAX's scatter does on CPU: an int32 scatter-max finds each
    position's last update number, a gather reads those updates. Memory and work grow
    with the operand and the updates, not with their product."""
    shape = aval_of(operand).shape
    size, count = math.prod(shape), aval_of(targets).shape[0]
    last = bind(P.scatter_max_flat_p, lax.full((size,), -1, dt.int32), targets,
                lax.iota(dt.int32, count))
    picked = at_targets(updates, last)
    written = lax.select(lax.ge(last, lax.full_like(last, 0)), picked, lax.reshape(operand, (size,)))
    return lax.reshape(written, shape)


# How `_combine_runs` combines updates: every scatter but "set" has one.
_RUN_OPS = {"add": lax.add, "mul": lax.mul, "max": lax.max, "min": lax.min}


def _combine_runs(combine: str, operand, targets, updates):
    """`operand` with the `updates` at each flat position of `targets` (-1: dropped)
    combined in by `combine` (a key of `_RUN_OPS`): the updates sorted by target (stably:
    each position's in update order), a segmented scan combines each run, and each
    run's total, combined with the operand's value there, is set at its position
    (`_set_flat`). The work grows with the operand and n log n of the updates: the
    scatters the atomic routine does not do (products, and sums, maxima and minima of
    float16, float64 and 64-bit integers). A position's updates combine with each other
    before the operand (JAX's CPU takes them in one at a time): float sums and products
    can differ in the last bits, and an intermediate that overflows in one order may not
    in the other."""
    from .control_flow import associative_scan  # both import this module
    from .sorting import sort
    op = _RUN_OPS[combine]
    count = aval_of(targets).shape[0]
    t, u = sort((targets, updates), num_keys=1)
    changes = lax.ne(lax.slice(t, (1,), (count,)), lax.slice(t, (0,), (count - 1,)))
    edge = lax.full((1,), True, dt.bool_)
    starts, ends = lax.concatenate([edge, changes], 0), lax.concatenate([changes, edge], 0)

    def run_total(a, b):
        (starts_a, a), (starts_b, b) = a, b
        return lax.bitwise_or(starts_a, starts_b), lax.select(starts_b, b, op(a, b))

    _, totals = associative_scan(run_total, (starts, u))
    last = lax.select(ends, t, lax.full_like(t, -1))
    return _set_flat(operand, last, op(at_targets(operand, t), totals))


def _extremum_flat(combine: str, operand, targets, updates):
    """`operand` with each position's "max" or "min" of `updates` at flat `targets`,
    through the int32 scatter-max of order keys (`_order_key`); float32 through
    `FLOAT_EXTREMUM`, which differentiates as JAX's scatter max does."""
    if aval_of(operand).dtype is dt.float32:
        return FLOAT_EXTREMUM["fn"](combine, operand, targets, updates)
    return extremum_by_keys(combine, operand, targets, updates)


def extremum_by_keys(combine: str, operand, targets, updates):
    """`_extremum_flat` through the order keys, without a derivative."""
    dtype = aval_of(operand).dtype
    k = bind(P.scatter_max_flat_p, _order_key(operand, combine), targets, _order_key(updates, combine))
    return _from_order_key(k, dtype, combine)


# float32 scatter maxima and minima: `extremum_by_keys` with JAX's derivative, a custom
# JVP that the transformations (a layer above) set (`transforms.ad_rules`).
FLOAT_EXTREMUM: dict = {"fn": extremum_by_keys}

_TOP = 0x80000000  # uint32's order in int32: the top bit flipped
_MAGNITUDE = 0x7FFFFFFF  # float32's order in int32: negative values' other bits flipped


def _order_key(x, combine: str):
    """int32 keys in the order of `x` (int32, uint32 or float32), reversed by the
    complement for minima. A float's bits are in its order as int32 where it is positive,
    and reversed where it is negative, so flipping a negative float's magnitude bits
    orders them all (-0.0 below +0.0); NaN is made the key that wins (a positive NaN is
    above +inf, a negative one below -inf), as NaN wins XLA's max and min."""
    dtype = aval_of(x).dtype
    if dtype is dt.int32:
        k = x
    elif dtype is dt.uint32:
        k = lax.bitcast_convert_type(lax.bitwise_xor(x, lax.full((), _TOP, dt.uint32)), dt.int32)
    else:
        nan = lax.full_like(x, float("nan") if combine == "max" else -float("nan"))
        k = _flip_negatives(lax.bitcast_convert_type(lax.select(lax.ne(x, x), nan, x), dt.int32))
    return lax.bitwise_not(k) if combine == "min" else k


def _from_order_key(k, dtype, combine: str):
    k = lax.bitwise_not(k) if combine == "min" else k
    if dtype is dt.int32:
        return k
    if dtype is dt.uint32:
        return lax.bitwise_xor(lax.bitcast_convert_type(k, dt.uint32), lax.full((), _TOP, dt.uint32))
    return lax.bitcast_convert_type(_flip_negatives(k), dt.float32)


def _flip_negatives(bits):
    """The int32 `bits` with the other bits of negative ones flipped (its own inverse)."""
    sign = lax.shift_right_arithmetic(bits, lax.full_like(bits, 31))
    return lax.bitwise_xor(bits, lax.bitwise_and(sign, lax.full_like(bits, _MAGNITUDE)))


def at_targets(values, targets):
    """`values` (any shape, read flat) at flat `targets` (-1 reads the first element)."""
    flat = lax.reshape(values, (aval_of(values).size,))
    return gather(flat, lax.expand_dims(lax.max(targets, lax.full_like(targets, 0)), (1,)),
                  GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(0,), start_index_map=(0,)),
                  (1,), mode=GatherScatterMode.CLIP)


def _flat_targets(flat_indices, d: ScatterDimensionNumbers, shape, window, mode):
    """The row-major position in the operand of each element of the updates, as
    (index vectors,) + window; -1 for the windows FILL_OR_DROP drops."""
    count = aval_of(flat_indices).shape[0]
    full = (count,) + tuple(window)
    window_axes = [a for a in range(len(shape)) if a not in d.inserted_window_dims]
    flat, valid, stride = lax.full(full, 0, dt.int32), None, 1
    for axis in reversed(range(len(shape))):
        coordinate = None
        if axis in d.scatter_dims_to_operand_dims:
            column = d.scatter_dims_to_operand_dims.index(axis)
            start = lax.broadcast_in_dim(lax.reshape(lax.slice(flat_indices, (0, column), (count, column + 1)),
                                                     (count,)), full, (0,))
            limit = lax.full(full, shape[axis] - (window[window_axes.index(axis)] if axis in window_axes else 1),
                             dt.int32)
            if mode is GatherScatterMode.FILL_OR_DROP:
                valid = _and(valid, lax.bitwise_and(lax.ge(start, lax.full(full, 0, dt.int32)),
                                                    lax.le(start, limit)))
            else:
                start = lax.clamp(lax.full(full, 0, dt.int32), start, limit)
            coordinate = start
        if axis in window_axes:
            offset = lax.broadcasted_iota(dt.int32, full, 1 + window_axes.index(axis))
            coordinate = offset if coordinate is None else lax.add(coordinate, offset)
        if coordinate is not None:
            flat = lax.add(flat, lax.mul(coordinate, lax.full(full, stride, dt.int32)))
        stride *= shape[axis]
    return flat if valid is None else lax.select(valid, flat, lax.full(full, -1, dt.int32))


def _and(a, b):
    return b if a is None else lax.bitwise_and(a, b)


def _masked_reduce(term, valid, reducer, identity, axis):
    return reducer(lax.select(valid, term, lax.full_like(term, identity)), (axis,))


def _combine_add(operand, term, valid, which, axis):
    return lax.add(operand, _masked_reduce(term, valid, lax.reduce_sum, 0, axis))


def _combine_mul(operand, term, valid, which, axis):
    return lax.mul(operand, _masked_reduce(term, valid, lax.reduce_prod, 1, axis))


def _combine_min(operand, term, valid, which, axis):
    dtype = aval_of(operand).dtype
    return lax.min(operand, _masked_reduce(term, valid, lax.reduce_min, dt.bounds(dtype)[1], axis))


def _combine_max(operand, term, valid, which, axis):
    dtype = aval_of(operand).dtype
    return lax.max(operand, _masked_reduce(term, valid, lax.reduce_max, dt.bounds(dtype)[0], axis))


def _combine_set(operand, term, valid, which, axis):
    """The update of the last index vector that lands on each element (NumPy's rule
    for repeated indices; JAX leaves the order unspecified)."""
    last = _masked_reduce(which, valid, lax.reduce_max, -1, axis)
    chosen = lax.bitwise_and(valid, lax.eq(which, lax.broadcast_in_dim(last, aval_of(which).shape,
                                                                        tuple(range(axis)))))
    dtype = aval_of(operand).dtype
    value = _masked_reduce(term, chosen, lax.reduce_or if dtype.is_bool else lax.reduce_max,
                           False if dtype.is_bool else dt.bounds(dtype)[0], axis)
    return lax.select(lax.ge(last, lax.full_like(last, 0)), value, operand)


_COMBINE = {"add": _combine_add, "mul": _combine_mul, "min": _combine_min, "max": _combine_max,
            "set": _combine_set}


# Each scatter primitive's `combine` (how `_scatter` merges an update in) and JAX's name.
_SCATTERS = {"add": "scatter-add", "sub": "scatter-sub", "mul": "scatter-mul", "min": "scatter-min",
             "max": "scatter-max", "set": "scatter"}
# JAX's `update_jaxpr`: the scalar function that merges an update in (none for a set).
_UPDATE_FNS = {"add": lax.add, "sub": lax.sub, "mul": lax.mul, "min": lax.min, "max": lax.max}


@functools.lru_cache(maxsize=None)
def _update_jaxpr(combine: str, dtype: dt.DType, backward: bool = False):
    """JAX's `update_jaxpr` param: `combine` on two scalars of `dtype`, one jaxpr per
    pair (so repeated scatters share it, and print it once, as JAX's). `backward`: for
    a transpose rule's scatter; JAX's cache of these is keyed on the mesh context as
    well, which its backward pass sets, so those scatters share one of their own."""
    fn = _UPDATE_FNS[combine]
    scalar = ShapedArray((), dtype)
    return trace_to_jaxpr(lambda a, b: [fn(a, b)], [scalar, scalar], "update_jaxpr").jaxpr


def _scatter_fn(combine: str, verb: str):
    prim = P._declare(_SCATTERS[combine], scatter_abstract_eval)

    def fn(operand, scatter_indices, updates, dimension_numbers: ScatterDimensionNumbers, *,
           indices_are_sorted: bool = False, unique_indices: bool = False, mode=None):
        dtype = aval_of(operand).dtype
        return bind_as_program(prim, (operand, scatter_indices, updates), dict(
            dimension_numbers=dimension_numbers, indices_are_sorted=bool(indices_are_sorted),
            unique_indices=bool(unique_indices), mode=GatherScatterMode.from_any(mode),
            update_jaxpr=None if combine == "set" else _update_jaxpr(combine, dtype), update_consts=()))

    def lowering(out_aval, operand, indices, updates, *, dimension_numbers, mode, **_):
        # Lowered in place (as a called jaxpr), so its kernels fuse with their
        # neighbours; complex operands arrive as pairs of parts and the traced jaxpr
        # takes them so.
        update_shape = updates.shape[:-1] if out_aval.dtype.is_complex else updates.shape
        avals = (ShapedArray(out_aval.shape, out_aval.dtype), ShapedArray(indices.shape, indices.dtype),
                 ShapedArray(update_shape, out_aval.dtype))
        closed = _traced_scatter(combine, avals, dimension_numbers, mode, DENSE_SCATTER_TERMS)
        return lower_jaxpr(closed, [operand, indices, updates])[0]

    P.lowering_rules[prim] = lowering
    STORAGE_RULES.add(prim)
    fn.__name__ = fn.__qualname__ = prim.name.replace("-", "_")
    fn.primitive = prim
    fn.__doc__ = f"""`operand` with `updates` {verb} at the windows `scatter_indices` start
    (XLA's scatter; out-of-bounds windows are dropped unless `mode` is "clip"): one
    `{prim.name}` primitive, as JAX's.

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg import lax
    >>> dnums = lax.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,),
    ...                                     scatter_dims_to_operand_dims=(0,))
    >>> lax.{fn.__name__}(jnp.ones(4), jnp.array([[1], [1], [3]]), jnp.array([2., 3., 4.]), dnums).tolist()
    {{result}}
    """
    return fn


@functools.lru_cache(maxsize=256)
def _traced_scatter(combine: str, avals: tuple, dimension_numbers, mode, dense_terms: int):
    """`_scatter` traced once per signature (`dense_terms`: `DENSE_SCATTER_TERMS` when
    traced, which tests lower)."""
    return trace_body(lambda *args: [_scatter(combine, *args, dimension_numbers, mode)], avals,
                      _SCATTERS[combine])


scatter_add = _scatter_fn("add", "added")
scatter_sub = _scatter_fn("sub", "subtracted")
scatter_mul = _scatter_fn("mul", "multiplied in")
scatter_min = _scatter_fn("min", "combined by minimum")
scatter_max = _scatter_fn("max", "combined by maximum")
scatter = _scatter_fn("set", "written (the last of repeated indices wins)")
for _fn, _result in ((scatter_add, "[1.0, 6.0, 1.0, 5.0]"), (scatter_sub, "[1.0, -4.0, 1.0, -3.0]"),
                     (scatter_mul, "[1.0, 6.0, 1.0, 4.0]"), (scatter_min, "[1.0, 1.0, 1.0, 1.0]"),
                     (scatter_max, "[1.0, 3.0, 1.0, 4.0]"), (scatter, "[1.0, 3.0, 1.0, 4.0]")):
    _fn.__doc__ = _fn.__doc__.replace("{result}", _result)
# The primitives, as JAX's `scatter_add_p` and so on.
scatter_add_p, scatter_sub_p, scatter_mul_p, scatter_min_p, scatter_max_p, scatter_p = (
    f.primitive for f in (scatter_add, scatter_sub, scatter_mul, scatter_min, scatter_max, scatter))


# -- dynamic slices ---------------------------------------------------------------------
#
# `dynamic_slice` and `dynamic_update_slice` are primitives, as JAX's: their operands are
# the array (and the update), then one scalar start per axis, all of one integer dtype.
# The functions count negative starts from the end first (JAX's `_dynamic_slice_indices`);
# the primitives clamp each start so the window fits. Each lowers in place through what
# it computes (`_sliced`, `_updated`), traced once per signature as the scatters are.


def _check_starts(name: str, operand: ShapedArray, starts) -> None:
    """One scalar start per axis of the operand."""
    if len(starts) != operand.ndim:
        raise TypeError(f"{name} start_indices must have length equal to the rank of operand, got "
                        f"{len(starts)} indices for operand shape {operand.shape}.")
    if any(s.ndim != 0 for s in starts):
        raise TypeError(f"start_indices arguments to {name} must be scalars, got indices "
                        f"({', '.join(s.str_short() for s in starts)})")


def _check_start_dtypes(name: str, starts) -> None:
    if any(s.dtype is not starts[0].dtype or not s.dtype.is_int or s.dtype.is_bool for s in starts):
        raise TypeError(f"index arguments to {name} must be integers of the same type, got: "
                        f"{', '.join(s.dtype.name for s in starts)}")


def _dynamic_slice_abstract_eval(operand, *starts, slice_sizes):
    if len(slice_sizes) != operand.ndim:
        raise ValueError(f"dynamic_slice slice_sizes {slice_sizes} must have one entry per axis of "
                         f"the operand's shape {operand.shape}")
    if any(k > n for k, n in zip(slice_sizes, operand.shape)):
        raise TypeError(f"slice slice_sizes must be less than or equal to operand shape, got "
                        f"slice_sizes {slice_sizes} for operand shape {operand.shape}.")
    if any(k < 0 for k in slice_sizes):
        raise TypeError(f"slice slice_sizes must be greater than or equal to zero, got slice_sizes "
                        f"of {slice_sizes}.")
    _check_starts("dynamic_slice", operand, starts)
    _check_start_dtypes("dynamic_slice", starts)
    return ShapedArray(slice_sizes, operand.dtype, operand.weak_type)


def _dynamic_update_slice_abstract_eval(operand, update, *starts):
    if update.ndim != operand.ndim:
        raise TypeError(f"dynamic_update_slice update must have the same rank as operand, got update "
                        f"shape {update.shape} for operand shape {operand.shape}.")
    _check_starts("dynamic_update_slice", operand, starts)
    if any(k > n for k, n in zip(update.shape, operand.shape)):
        raise TypeError(f"dynamic_update_slice update shape must be smaller than operand shape, got "
                        f"update shape {update.shape} for operand shape {operand.shape}.")
    if update.dtype is not operand.dtype:
        raise TypeError(f"lax.dynamic_update_slice requires arguments to have the same dtypes, got "
                        f"{operand.dtype.name}, {update.dtype.name}.")
    _check_start_dtypes("dynamic_update_slice", starts)
    weak = operand.weak_type and update.weak_type and all(s.weak_type for s in starts)  # JAX's rule
    return ShapedArray(operand.shape, operand.dtype, weak)


# The window of `slice_sizes` at the starts, and the operand with the update written at
# them (JAX's `dynamic_slice_p`, `dynamic_update_slice_p`).
dynamic_slice_p = P._declare("dynamic_slice", _dynamic_slice_abstract_eval)
dynamic_update_slice_p = P._declare("dynamic_update_slice", _dynamic_update_slice_abstract_eval)


def _clamped_start(start, limit: int):
    """A start index as int32 in [0, `limit`] (a uint32 one clamped before int32 could
    wrap it)."""
    if aval_of(start).dtype is dt.uint32:
        start = lax.min(start, lax.full((), limit, dt.uint32))
    return lax.clamp(lax.full((), 0, dt.int32), lax.convert_element_type(start, dt.int32),
                     lax.full((), limit, dt.int32))


def _sliced(operand, *starts, slice_sizes):
    """What `dynamic_slice` computes: a gather of its one window."""
    shape = aval_of(operand).shape
    axes = tuple(range(len(shape)))
    vector = lax.concatenate([lax.reshape(_clamped_start(s, n - k), (1,))
                              for s, n, k in zip(starts, shape, slice_sizes)], 0) if starts else \
        lax.full((0,), 0, dt.int32)
    return gather(operand, vector, GatherDimensionNumbers(offset_dims=axes, collapsed_slice_dims=(),
                                                          start_index_map=axes),
                  slice_sizes, mode=GatherScatterMode.CLIP)


def _updated(operand, update, *starts):
    """What `dynamic_update_slice` computes: each element is the update's at its offset
    from the start where the update covers it, else the operand's own (one select, which
    fuses with its neighbours however large the operand)."""
    shape, sizes = aval_of(operand).shape, aval_of(update).shape
    if not shape:  # the update is all of a rank-0 operand
        return update
    if 0 in sizes:  # nothing to write
        return operand
    inside, offsets = None, []
    for axis, (start, n, k) in enumerate(zip(starts, shape, sizes)):
        offset = lax.broadcasted_iota(dt.int32, shape, axis)
        if k < n:  # a full-length axis starts at 0
            offset = lax.sub(offset, lax.broadcast_in_dim(_clamped_start(start, n - k), shape, ()))
            inside = _and(inside, lax.lt(offset, lax.full(shape, k, dt.int32)))
            inside = lax.bitwise_and(inside, lax.ge(offset, lax.full(shape, 0, dt.int32)))
        offsets.append(lax.reshape(offset, shape + (1,)))
    axes = tuple(range(len(shape)))
    picked = gather(update, lax.concatenate(offsets, len(shape)),
                    GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=axes, start_index_map=axes),
                    (1,) * len(shape), mode=GatherScatterMode.CLIP)
    return picked if inside is None else lax.select(inside, picked, operand)


def _lower_through(prim, arrays: int, composite):
    """Lower `prim` in place (as a called jaxpr, so its kernels fuse with their
    neighbours) through `composite`, traced once per signature. Its first `arrays`
    operands have the result's dtype (complex ones arrive as pairs of parts, and the
    traced jaxpr takes them so); the others are the scalar starts."""
    @functools.lru_cache(maxsize=256)
    def traced(avals: tuple, params: tuple):
        return trace_body(lambda *args: [composite(*args, **dict(params))], avals, prim.name)

    def lowering(out_aval, *nodes, **params):
        pairs = out_aval.dtype.is_complex
        avals = tuple(ShapedArray(n.shape[:-1] if pairs else n.shape, out_aval.dtype) if i < arrays
                      else ShapedArray(n.shape, n.dtype) for i, n in enumerate(nodes))
        return lower_jaxpr(traced(avals, tuple(sorted(params.items()))), list(nodes))[0]

    P.lowering_rules[prim] = lowering
    STORAGE_RULES.add(prim)


_lower_through(dynamic_slice_p, 1, _sliced)
_lower_through(dynamic_update_slice_p, 2, _updated)


def _dynamic_slice_indices(operand, start_indices, allow_negative_indices) -> list:
    """JAX's `_dynamic_slice_indices`: the starts, negative ones counted from the end of
    their axis where `allow_negative_indices` (a bool, or one per axis) says so: static
    ones while tracing (as constants of their dtype), traced ones by a select. Unsigned
    ones, and those of other dtypes (which the primitive rejects), are left as they are."""
    shape = aval_of(operand).shape
    if len(start_indices) != len(shape):
        raise ValueError(f"Length of slice indices must match number of operand dimensions "
                         f"({len(start_indices)} vs {shape})")
    if not isinstance(start_indices, (list, tuple)):
        if aval_of(start_indices).ndim != 1:
            raise ValueError(f"Slice indices must be a 1D sequence, got {aval_of(start_indices).shape}")
        start_indices = list(start_indices)
    if isinstance(allow_negative_indices, bool):
        allow_negative_indices = [allow_negative_indices] * len(shape)
    result = []
    for i, n, allow_negative in zip(start_indices, shape, allow_negative_indices):
        aval = aval_of(i)
        if aval.dtype.is_unsigned or not aval.dtype.is_int or aval.dtype.is_bool:
            result.append(i)
        elif isinstance(i, (int, np.integer)):
            if i < 0 and not allow_negative:
                raise ValueError(f"Index {i} is out of bounds for dimension {n} if "
                                 "allow_negative_indices=False")
            result.append(lax.convert_element_type(i + n if i < 0 else i, aval.dtype))
        elif allow_negative:
            negative = lax.lt(i, lax.full((), 0, aval.dtype))
            # As JAX's `i + n` promotes it: a weakly typed start is made strong first.
            strong = lax.convert_element_type(i, aval.dtype) if aval.weak_type else i
            result.append(lax.select(negative, lax.add(strong, lax.full((), n, aval.dtype)), i))
        else:
            result.append(i)
    return result


@moves_keys(0)
def dynamic_slice(operand, start_indices, slice_sizes, *, allow_negative_indices=True):
    """The window of `slice_sizes` at `start_indices` (scalars, traced or not; negative
    ones count from the end unless `allow_negative_indices` says otherwise), each start
    clamped so the window fits, as in JAX: one `dynamic_slice` primitive.

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg import lax
    >>> lax.dynamic_slice(jnp.arange(12).reshape(3, 4), (1, 2), (2, 2)).tolist()
    [[6, 7], [10, 11]]
    """
    starts = _dynamic_slice_indices(operand, start_indices, allow_negative_indices)
    return bind(dynamic_slice_p, operand, *starts, slice_sizes=tuple(int(k) for k in slice_sizes))


@moves_keys(0, 1)
def dynamic_update_slice(operand, update, start_indices, *, allow_negative_indices=True):
    """`operand` with `update` written at `start_indices` (each clamped so the update
    fits, as in JAX): one `dynamic_update_slice` primitive.

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg import lax
    >>> lax.dynamic_update_slice(jnp.zeros(5), jnp.ones(2), (jnp.int32(4),)).tolist()
    [0.0, 0.0, 0.0, 1.0, 1.0]
    """
    starts = _dynamic_slice_indices(operand, start_indices, allow_negative_indices)
    return bind(dynamic_update_slice_p, operand, update, *starts)


def _starts_in_dim(operand, start_index, axis: int):
    """Start indices that are 0 (of `start_index`'s dtype, as JAX's `_const`) but
    `start_index` along `axis`."""
    zero = 0 if isinstance(start_index, int) else np.zeros((), aval_of(start_index).dtype.np)
    starts = [zero] * aval_of(operand).ndim
    starts[axis] = start_index
    return starts


def _only_along(ndim: int, axis: int, allow_negative_indices: bool) -> list:
    allow = [False] * ndim
    allow[axis] = allow_negative_indices
    return allow


@moves_keys(0)
def dynamic_slice_in_dim(operand, start_index, slice_size: int, axis: int = 0, *,
                         allow_negative_indices: bool = True):
    """`slice_size` elements along `axis` from `start_index` (traced or not; clamped so
    the slice fits), all of the other axes.

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg import lax
    >>> lax.dynamic_slice_in_dim(jnp.arange(10), -3, 2).tolist()
    [7, 8]
    """
    axis = int(axis)
    sizes = list(aval_of(operand).shape)
    sizes[axis] = int(slice_size)
    return dynamic_slice(operand, _starts_in_dim(operand, start_index, axis), sizes,
                         allow_negative_indices=_only_along(len(sizes), axis, allow_negative_indices))


@moves_keys(0)
@functools.partial(staged_jit, static_argnames=("axis", "keepdims", "allow_negative_indices"))
def dynamic_index_in_dim(operand, index, axis: int = 0, keepdims: bool = True, *,
                         allow_negative_indices: bool = True):
    """Element `index` along `axis` (a traced index is fine), as a slice of size 1 that
    `keepdims` keeps (one `jit` equation in a jaxpr, as JAX's).

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg import lax
    >>> lax.dynamic_index_in_dim(jnp.arange(6).reshape(2, 3), 1, axis=1, keepdims=False).tolist()
    [1, 4]
    """
    out = dynamic_slice_in_dim(operand, index, 1, axis, allow_negative_indices=allow_negative_indices)
    return out if keepdims else lax.squeeze(out, (axis,))


@moves_keys(0, 1)
def dynamic_update_slice_in_dim(operand, update, start_index, axis: int, *,
                                allow_negative_indices: bool = True):
    """`operand` with `update` written from `start_index` along `axis` (clamped so it fits).

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg import lax
    >>> lax.dynamic_update_slice_in_dim(jnp.zeros(4), jnp.ones(2), 1, 0).tolist()
    [0.0, 1.0, 1.0, 0.0]
    """
    axis = int(axis)
    ndim = aval_of(operand).ndim
    return dynamic_update_slice(operand, update, _starts_in_dim(operand, start_index, axis),
                                allow_negative_indices=_only_along(ndim, axis, allow_negative_indices))


@moves_keys(0, 1)
@functools.partial(staged_jit, static_argnames=("axis", "allow_negative_indices"))
def dynamic_update_index_in_dim(operand, update, index, axis: int, *,
                                allow_negative_indices: bool = True):
    """`operand` with `update` written at `index` along `axis` (`update` may lack that
    axis; one `jit` equation in a jaxpr, as JAX's).

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg import lax
    >>> lax.dynamic_update_index_in_dim(jnp.zeros((2, 2)), jnp.ones(2), 1, 0).tolist()
    [[0.0, 0.0], [1.0, 1.0]]
    """
    axis = int(axis)
    if aval_of(update).ndim != aval_of(operand).ndim:
        update = lax.expand_dims(update, (axis,))
    return dynamic_update_slice_in_dim(operand, update, index, axis,
                                       allow_negative_indices=allow_negative_indices)


@moves_keys(0)
def index_take(src, idxs, axes):
    """`src` at the index arrays `idxs` (one per axis of `axes`, taken modulo the axis
    length), the remaining axes kept after the index axis.

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg import lax
    >>> lax.index_take(jnp.arange(12).reshape(3, 4), (jnp.array([0, -1]), jnp.array([5, 1])), (0, 1)).tolist()
    [1, 9]
    """
    shape = aval_of(src).shape
    indices = lax.concatenate([lax.expand_dims(i, (1,)) for i in idxs], 1)
    index_aval = aval_of(indices)
    sizes = lax.concatenate([lax.full((1,), shape[ax], index_aval.dtype) for ax in axes], 0)
    sizes = lax.broadcast_in_dim(sizes, index_aval.shape, (index_aval.ndim - 1,))
    indices = lax.rem(lax.add(lax.rem(indices, sizes), sizes), sizes)  # Python's modulo
    slice_sizes = [1 if a in axes else n for a, n in enumerate(shape)]
    dnums = GatherDimensionNumbers(offset_dims=tuple(range(1, len(shape) - len(axes) + 1)),
                                   collapsed_slice_dims=tuple(axes), start_index_map=tuple(axes))
    return gather(src, indices, dnums, slice_sizes)
