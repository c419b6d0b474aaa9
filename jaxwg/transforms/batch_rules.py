"""Batching rules of every primitive (`primitives.batch_rules`).

A rule maps `(vals, dims, **params)` to `(out, out_dim)`: `dims[i]` is the batch axis of
`vals[i]` (None: not batched; at least one is). Most rules move the batch axis to the
front (`move_axis`) and shift the primitive's axis parameters by one; elementwise rules
bring every operand to one batched shape (an unbatched rank-0 operand stays rank 0, as
primitives broadcast it); `dot_general` turns the batch axis into a batch dimension of
the product when both operands have it, else into a free dimension, so batches of
products stay one product.

>>> import jaxwg, jaxwg.numpy as jnp
>>> print(jaxwg.make_jaxpr(jaxwg.vmap(lambda a, b: a @ b))(jnp.ones((5, 2, 3)), jnp.ones((5, 3, 4))))
{ lambda ; a:f32[5,2,3] b:f32[5,3,4]. let
    c:f32[5,2,4] = dot_general[
      dimension_numbers=(([2], [1]), ([0], [0]))
      preferred_element_type=float32
    ] a b
  in (c,) }
"""

from __future__ import annotations

import functools
import math

import numpy as np

from .. import lax
from ..lax import prng, slicing
from ..lax.fft import fft, fft_p
from ..lax.sorting import sort_p, top_k_p
from ..frontend import primitives as P
from ..frontend.array import aval_of
from ..frontend.aval import ShapedArray
from ..frontend.jaxpr import call_staged, eval_jaxpr
from .batching import (batch_fun, batch_size, batched_first, move_axis, own_axis_rules,
                       reducing_collective_rules)


def _rank(v, d) -> int:
    return aval_of(v).ndim - (d is not None)


def _unbatched_shape(v, d) -> tuple:
    shape = aval_of(v).shape
    return shape if d is None else shape[:d] + shape[d + 1:]


def _elementwise_same_shape(prim, scalars=None):
    """For primitives whose operands must share one shape (rank 0 apart): `select_n`,
    `clamp`, `add_any`, `threefry2x32`. Operands batched at the front; unbatched ones
    broadcast to the batch unless rank 0 in a position `scalars` lists (default: any;
    clamp's operand is broadcast where a bound is batched, its bounds need not be)."""
    def rule(vals, dims, **params):
        size = batch_size(vals, dims)
        shape = next((_unbatched_shape(v, d) for v, d in zip(vals, dims) if _rank(v, d) > 0), ())
        out = []
        for i, (v, d) in enumerate(zip(vals, dims)):
            if d is None and _rank(v, d) == 0 and (scalars is None or i in scalars):
                out.append(v)
            elif d is not None and _rank(v, d) == 0:  # a batched scalar meets arrays: broadcast
                out.append(lax.broadcast_in_dim(v, (size,) + shape, (0,)))
            else:
                out.append(move_axis(v, d, 0, size))
        result = prim.bind(*out, **params)
        return result, ([0] * len(result) if prim.multiple_results else 0)

    P.batch_rules[prim] = rule


def _batch_at_front_or_one(v, d):
    """`v` with its batch axis first; unbatched, with a leading axis of size 1 (rank 0
    stays rank 0)."""
    if d is not None:
        return move_axis(v, d, 0, None)
    return lax.expand_dims(v, (0,)) if aval_of(v).ndim else v


def _elementwise(prim):
    """JAX's `broadcast_batcher`: operands of one shape batched at one axis (and rank-0
    ones) bind as they are; otherwise the batch axes move to the front, unbatched
    operands get a leading axis of size 1 and batched scalars trailing ones, and the
    primitive broadcasts the axes of size 1."""
    def rule(vals, dims, **params):
        shape, dim = next((aval_of(v).shape, d) for v, d in zip(vals, dims) if d is not None)
        if all(aval_of(v).shape == shape and d == dim for v, d in zip(vals, dims) if aval_of(v).ndim):
            result = prim.bind(*vals, **params)
            return result, ([dim] * len(result) if prim.multiple_results else dim)
        fronts = [_batch_at_front_or_one(v, d) for v, d in zip(vals, dims)]
        ndim = max(aval_of(v).ndim for v in fronts)
        out = [lax.expand_dims(v, tuple(range(aval_of(v).ndim, ndim)))
               if d is not None and aval_of(v).ndim < ndim else v for v, d in zip(fronts, dims)]
        result = prim.bind(*out, **params)
        return result, ([0] * len(result) if prim.multiple_results else 0)

    P.batch_rules[prim] = rule


def _front(vals, dims):
    """Every operand batched at axis 0 (broadcast if unbatched), and the batch size."""
    size = batch_size(vals, dims)
    return [move_axis(v, d, 0, size) for v, d in zip(vals, dims)], size


def _unary_axes(prim, shift):
    """A one-operand primitive whose params name axes: batch first, params shifted."""
    def rule(vals, dims, **params):
        (x,), size = _front(vals, dims)
        return prim.bind(x, **shift(size, **params)), 0

    P.batch_rules[prim] = rule


def _in_place(prim, update):
    """A one-operand primitive whose params name axes, batched where it is (JAX's
    rules for reductions, cumulative sums, rev and slice): `update(d, shape, **params)`
    gives the params for an operand batched at `d` (of `shape`) and the result's batch
    axis."""
    def rule(vals, dims, **params):
        (x,), (d,) = vals, dims
        new_params, out_dim = update(d, aval_of(x).shape, **params)
        return prim.bind(x, **new_params), out_dim

    P.batch_rules[prim] = rule


def _past(d: int, axes) -> tuple:
    """Axes of an unbatched operand as axes of one batched at `d`."""
    return tuple(a + (a >= d) for a in axes)


def _reduced(d, shape, *, axes, **params):
    return {"axes": _past(d, axes), **params}, d - sum(a < d for a in axes)


def _sliced(d, shape, *, start_indices, limit_indices, strides):
    def at_d(values, value):
        return tuple(values[:d]) + (value,) + tuple(values[d:])

    return {"start_indices": at_d(start_indices, 0), "limit_indices": at_d(limit_indices, shape[d]),
            "strides": None if strides is None else at_d(strides, 1)}, d


def _sort_permutation_rule(vals, dims):
    """Rows along the last axis: the batch axis goes in front of the others."""
    keys, _ = _front(vals, dims)
    return P.sort_permutation_p.bind(*keys), 0


P.batch_rules[P.sort_permutation_p] = _sort_permutation_rule


def _sort_rule(vals, dims, *, dimension, **params):
    """JAX's: every operand batched where the first batched one is (unbatched ones
    broadcast there), the sorted dimension past it."""
    size = batch_size(vals, dims)
    bdim = next(d for d in dims if d is not None)
    moved = [move_axis(v, d, bdim, size) for v, d in zip(vals, dims)]
    outs = sort_p.bind(*moved, dimension=dimension + (bdim <= dimension), **params)
    return outs, [bdim] * len(outs)


P.batch_rules[sort_p] = _sort_rule


def _top_k_rule(vals, dims, *, k, axis):
    """JAX's: the batch axis stays where it is, `axis` past it."""
    (x,), (d,) = vals, dims
    return top_k_p.bind(x, k=k, axis=axis + (d <= axis)), [d, d]


P.batch_rules[top_k_p] = _top_k_rule


def _scatter_flat_rule(prim, vals, dims):
    """One scatter into the batch's operands side by side: each row's positions offset
    by the row's start, and positions outside a row dropped (not added to its neighbour)."""
    (operand, targets, updates), size = _front(vals, dims)
    shape = aval_of(operand).shape
    per_row = math.prod(shape[1:])
    start = lax.mul(lax.broadcasted_iota(np.int32, aval_of(targets).shape, 0),
                    lax.full_like(targets, per_row))
    inside = lax.bitwise_and(lax.ge(targets, lax.full_like(targets, 0)),
                             lax.lt(targets, lax.full_like(targets, per_row)))
    moved = lax.select(inside, lax.add(targets, start), lax.full_like(targets, -1))
    count = math.prod(aval_of(targets).shape)
    out = prim.bind(lax.reshape(operand, (size * per_row,)), lax.reshape(moved, (count,)),
                    lax.reshape(updates, (count,)))
    return lax.reshape(out, shape), 0


for _p in (P.scatter_add_flat_p, P.scatter_max_flat_p):
    P.batch_rules[_p] = functools.partial(_scatter_flat_rule, _p)


def _scatter_rule(prim, vals, dims, *, dimension_numbers, **params):
    """JAX's: the operand and the updates batched in front (broadcast if unbatched);
    unbatched indices make the batch one more window axis, batched ones a batching
    axis of the operand and the indices."""
    (operand, indices, updates), (do, di, du) = vals, dims
    size = batch_size(vals, dims)
    operand, updates = move_axis(operand, do, 0, size), move_axis(updates, du, 0, size)
    d = dimension_numbers
    shifted = dict(inserted_window_dims=_plus1(d.inserted_window_dims),
                   scatter_dims_to_operand_dims=_plus1(d.scatter_dims_to_operand_dims))
    if di is None:
        d = lax.ScatterDimensionNumbers(update_window_dims=(0,) + _plus1(d.update_window_dims),
                                        operand_batching_dims=_plus1(d.operand_batching_dims),
                                        scatter_indices_batching_dims=d.scatter_indices_batching_dims,
                                        **shifted)
    else:
        indices = move_axis(indices, di, 0, size)
        d = lax.ScatterDimensionNumbers(update_window_dims=_plus1(d.update_window_dims),
                                        operand_batching_dims=(0,) + _plus1(d.operand_batching_dims),
                                        scatter_indices_batching_dims=(0,) + _plus1(d.scatter_indices_batching_dims),
                                        **shifted)
    return prim.bind(operand, indices, updates, dimension_numbers=d, **params), 0


for _p in (slicing.scatter_add_p, slicing.scatter_sub_p, slicing.scatter_mul_p, slicing.scatter_min_p,
           slicing.scatter_max_p, slicing.scatter_p):
    P.batch_rules[_p] = functools.partial(_scatter_rule, _p)


def _plus1(axes) -> tuple:
    return tuple(a + 1 for a in axes)


_ELEMENTWISE = [p for p in P.ALL_PRIMITIVES if p in (
    *P.UNARY_FLOAT, *P.COMPARISONS, P.neg_p, P.sign_p, P.abs_p, P.not_p, P.is_finite_p,
    P.square_p, P.integer_pow_p, P.add_p, P.sub_p, P.mul_p, P.div_p, P.rem_p, P.pow_p, P.max_p,
    P.min_p, P.atan2_p, P.nextafter_p, P.fma_p, P.and_p, P.or_p, P.xor_p, P.shift_left_p,
    P.shift_right_arithmetic_p, P.shift_right_logical_p, P.convert_element_type_p, P.copy_p,
    P.stop_gradient_p, P.name_p, P.reduce_precision_p, P.real_p, P.imag_p, P.conj_p, P.complex_p)]
for _p in _ELEMENTWISE:
    _elementwise(_p)
for _p in (P.select_n_p, P.add_any_p, P.threefry2x32_p):
    _elementwise_same_shape(_p)
_elementwise_same_shape(P.clamp_p, scalars=(0, 2))

for _p in (P.reduce_sum_p, P.reduce_prod_p, P.reduce_max_p, P.reduce_min_p, P.reduce_and_p,
           P.reduce_or_p, P.argmax_p, P.argmin_p):
    _in_place(_p, _reduced)
_in_place(P.cumsum_p, lambda d, shape, *, axis, reverse: (
    {"axis": axis + (axis >= d), "reverse": reverse}, d))
_in_place(P.rev_p, lambda d, shape, *, dimensions: ({"dimensions": _past(d, dimensions)}, d))
_in_place(P.slice_p, _sliced)
# A transpose takes the batch axis first in the same permutation (JAX's rule).
_in_place(P.transpose_p, lambda d, shape, *, permutation: (
    {"permutation": (d,) + _past(d, permutation)}, 0))
_unary_axes(P.broadcast_in_dim_p, lambda size, *, shape, broadcast_dimensions: {
    "shape": (size,) + tuple(shape), "broadcast_dimensions": (0,) + _plus1(broadcast_dimensions)})
_unary_axes(P.squeeze_p, lambda size, *, dimensions: {"dimensions": _plus1(dimensions)})
# The key primitives, as JAX's: vectorized over the keys' axes (the batch axis stays
# where it is), `random_wrap` with the batch axis first (it may be the words' axis),
# `random_fold_in` broadcasting.
for _p in (prng.random_seed_p, prng.random_unwrap_p, prng.random_bits_p, prng.random_split_p):
    _in_place(_p, lambda d, _, **params: (params, d))
_unary_axes(prng.random_wrap_p, lambda size, **params: params)
_elementwise(prng.random_fold_in_p)


def _bitcast_rule(vals, dims, *, new_dtype):
    """Batch first: a bitcast between widths adds or takes the last axis, which must be
    the example's own (checked on the example's shape, as JAX's error names it)."""
    (x,), (d,) = vals, dims
    aval = aval_of(x)
    P.abstract_eval_rules[P.bitcast_convert_type_p](
        ShapedArray(_unbatched_shape(x, d), aval.dtype), new_dtype=new_dtype)
    (x,), _ = _front(vals, dims)
    return P.bitcast_convert_type_p.bind(x, new_dtype=new_dtype), 0


P.batch_rules[P.bitcast_convert_type_p] = _bitcast_rule


def _reshape_rule(vals, dims, *, new_sizes, dimensions):
    (x,), size = _front(vals, dims)
    if dimensions is not None:
        x = lax.transpose(x, (0,) + _plus1(dimensions))
    return lax.reshape(x, (size,) + tuple(new_sizes)), 0


def _pad_rule(vals, dims, *, padding_config):
    (x, value), (dx, dv) = vals, dims
    size = batch_size(vals, dims)
    x = move_axis(x, dx, 0, size)
    config = ((0, 0, 0),) + tuple(padding_config)
    if dv is None:
        return lax.pad(x, value, config), 0
    # A padding value per member: pad with zeros, then select it where nothing was.
    padded = lax.pad(x, lax.full((), 0, aval_of(x).dtype), config)
    filled = lax.pad(lax.full(aval_of(x).shape, True, bool), False, config)
    per_member = lax.broadcast_in_dim(move_axis(value, dv, 0, size), aval_of(padded).shape, (0,))
    return lax.select(filled, padded, per_member), 0


def _concatenate_rule(vals, dims, *, dimension):
    xs, _ = _front(vals, dims)
    return lax.concatenate(xs, dimension + 1), 0


def _stack_rule(vals, dims, *, axis):
    """JAX's: operands batched alike stay where they are (the new axis placed around
    the batch axis); otherwise the batch goes first."""
    d = dims[0]
    if d is not None and all(b == d for b in dims):
        return P.stack_p.bind(*vals, axis=axis + (axis > d)), d + (axis <= d)
    xs, _ = _front(vals, dims)
    return P.stack_p.bind(*xs, axis=axis + 1), 0


def _unstack_rule(vals, dims, *, axis):
    """JAX's: the batch axis stays where it is; the unstacked axis shifts past it."""
    (x,), (d,) = vals, dims
    outs = P.unstack_p.bind(x, axis=axis + (axis >= d))
    return outs, [d - (axis < d)] * len(outs)


def _gather_rule(vals, dims, *, dimension_numbers, slice_sizes, unique_indices, indices_are_sorted,
                 **params):
    """JAX's: a batched operand gains a leading window axis taken whole; batched indices
    a leading batch axis (and may then repeat or fall out of order); when both are
    batched, the batch is a batching axis of both."""
    (operand, indices), (do, di) = vals, dims
    d = dimension_numbers
    shifted = dict(collapsed_slice_dims=_plus1(d.collapsed_slice_dims),
                   start_index_map=_plus1(d.start_index_map),
                   operand_batching_dims=_plus1(d.operand_batching_dims))
    if di is None:  # the operand's batch is one more (whole) window axis, the output's first
        operand = move_axis(operand, do, 0, 0)
        d = lax.GatherDimensionNumbers(offset_dims=(0,) + _plus1(d.offset_dims),
                                       start_indices_batching_dims=d.start_indices_batching_dims, **shifted)
        sizes = (aval_of(operand).shape[0],) + tuple(slice_sizes)
        return lax.gather(operand, indices, d, sizes, unique_indices=unique_indices,
                          indices_are_sorted=indices_are_sorted, **params), 0
    indices = move_axis(indices, di, 0, 0)
    batching = _plus1(d.start_indices_batching_dims)
    if do is None:  # the indices' batch is the output's first batch axis
        d = lax.GatherDimensionNumbers(offset_dims=_plus1(d.offset_dims), collapsed_slice_dims=d.collapsed_slice_dims,
                                       start_index_map=d.start_index_map,
                                       operand_batching_dims=d.operand_batching_dims,
                                       start_indices_batching_dims=batching)
        return lax.gather(operand, indices, d, slice_sizes, **params), 0
    operand = move_axis(operand, do, 0, 0)
    d = lax.GatherDimensionNumbers(
        offset_dims=_plus1(d.offset_dims), collapsed_slice_dims=shifted["collapsed_slice_dims"],
        start_index_map=shifted["start_index_map"], operand_batching_dims=(0,) + shifted["operand_batching_dims"],
        start_indices_batching_dims=(0,) + batching)
    return lax.gather(operand, indices, d, (1,) + tuple(slice_sizes), unique_indices=unique_indices,
                      indices_are_sorted=indices_are_sorted, **params), 0


P.batch_rules[P.gather_p] = _gather_rule


def _start_vector(starts, dims, size: int):
    """JAX's `_batch_dynamic_slice_indices`: the scalar starts as one index vector,
    batched in front (a (size, n) array, unbatched starts broadcast) where any is."""
    if not starts:
        return lax.full((0,), 0, np.int32), None
    if all(d is None for d in dims):
        return lax.concatenate([lax.broadcast_in_dim(s, (1,), ()) for s in starts], 0), None
    return lax.concatenate([lax.broadcast_in_dim(s, (size, 1), () if d is None else (0,))
                            for s, d in zip(starts, dims)], 1), 0


def _dynamic_slice_rule(vals, dims, *, slice_sizes):
    """JAX's: the gather of the window (`_gather_rule` batches it)."""
    (operand, *starts), (do, *ds) = vals, dims
    index, di = _start_vector(starts, ds, batch_size(vals, dims))
    axes = tuple(range(len(slice_sizes)))
    dnums = lax.GatherDimensionNumbers(offset_dims=axes, collapsed_slice_dims=(), start_index_map=axes)
    return _gather_rule([operand, index], [do, di], dimension_numbers=dnums, slice_sizes=slice_sizes,
                        unique_indices=True, indices_are_sorted=True, mode=lax.GatherScatterMode.CLIP,
                        fill_value=None)


def _dynamic_update_slice_rule(vals, dims):
    """JAX's: the scatter of the update's window (`_scatter_rule` batches it)."""
    (operand, update, *starts), (do, du, *ds) = vals, dims
    index, di = _start_vector(starts, ds, batch_size(vals, dims))
    axes = tuple(range(len(starts)))
    dnums = lax.ScatterDimensionNumbers(update_window_dims=axes, inserted_window_dims=(),
                                        scatter_dims_to_operand_dims=axes)
    return _scatter_rule(slicing.scatter_p, [operand, index, update], [do, di, du], dimension_numbers=dnums,
                         indices_are_sorted=True, unique_indices=True, mode=lax.GatherScatterMode.CLIP,
                         update_jaxpr=None, update_consts=())


P.batch_rules[slicing.dynamic_slice_p] = _dynamic_slice_rule
P.batch_rules[slicing.dynamic_update_slice_p] = _dynamic_update_slice_rule


def _dot_general_rule(vals, dims, *, dimension_numbers, preferred_element_type):
    (a, b), (da, db) = vals, dims
    (ca, cb), (ba, bb) = dimension_numbers
    params = {"preferred_element_type": preferred_element_type}
    if da is not None and db is not None:  # the batch axis is a batch dimension of both
        a, b = move_axis(a, da, 0, 0), move_axis(b, db, 0, 0)
        dn = ((_plus1(ca), _plus1(cb)), ((0,) + _plus1(ba), (0,) + _plus1(bb)))
        return P.dot_general_p.bind(a, b, dimension_numbers=dn, **params), 0
    if da is not None:  # a free dimension of a: after the batch dims in the result
        a = move_axis(a, da, 0, 0)
        dn = ((_plus1(ca), cb), (_plus1(ba), bb))
        return P.dot_general_p.bind(a, b, dimension_numbers=dn, **params), len(ba)
    b = move_axis(b, db, 0, 0)  # a free dimension of b: after a's free dims
    dn = ((ca, _plus1(cb)), (ba, _plus1(bb)))
    free_a = aval_of(a).ndim - len(ca) - len(ba)
    return P.dot_general_p.bind(a, b, dimension_numbers=dn, **params), len(ba) + free_a


def _call_rule(prim):
    """A call (jit, checkpoint) of the batched jaxpr, every output batched at axis 0; a
    jit keeps its name (as JAX's does)."""
    def rule(vals, dims, *, jaxpr, **params):
        size = batch_size(vals, dims)
        moved, in_dims = batched_first(vals, dims, size)
        batched_call = batch_fun(lambda *xs: eval_jaxpr(jaxpr.jaxpr, jaxpr.consts, xs), size,
                                 in_dims)
        outs = call_staged(batched_call, moved, prim, **params)
        return outs, [0] * len(outs)

    P.batch_rules[prim] = rule


def _all_gather_rule(vals, dims, *, all_gather_dimension, **params):
    """An all_gather over another axis: the batch axis first, gathered behind it."""
    x = move_axis(vals[0], dims[0], 0, 0)
    return P.all_gather_p.bind(x, all_gather_dimension=all_gather_dimension + 1, **params), 0


# -- collectives over the level's own axis (`batching.own_axis_rules`) ----------------------


def _reducing_collective(prim):
    """psum, pmax, pmin at a vmap level, as JAX batches them: over this level's axis,
    the batch axis (moved first) takes the name's place among `axes`, and the result
    is the same for every member; an unbatched operand's psum is its size times it,
    its pmax and pmin itself. Other levels' names pass through, positional axes shift
    past the batch axis."""
    def rule(info, x, d, *, axes, axis_index_groups):
        own = info.axis_name is not None and info.axis_name in axes
        positional = any(isinstance(a, int) for a in axes)
        if d is None:
            rest = tuple(a for a in axes if a != info.axis_name) if own else axes
            if rest or not own:
                x = prim.bind(x, axes=rest, axis_index_groups=axis_index_groups)
            if own and prim is P.psum_p:
                x = lax.mul(lax.full_like(x, info.size), x)  # weak where `x` is, as JAX's
            return x, None
        if not own and not positional:
            return prim.bind(x, axes=axes, axis_index_groups=axis_index_groups), d
        x = move_axis(x, d, 0, 0)
        moved = tuple(0 if a == info.axis_name else a + 1 if isinstance(a, int) else a for a in axes)
        return prim.bind(x, axes=moved, axis_index_groups=axis_index_groups), None if own else 0

    reducing_collective_rules[prim] = rule


def _all_gather_own(size, vals, dims, *, axis_name, axis_size, all_gather_dimension, tiled):
    """The batch axis moved to the gathered position (an unbatched value broadcast),
    merged into the next axis when `tiled`; the result is the same in every member."""
    k = all_gather_dimension
    out = move_axis(vals[0], dims[0], k, size)
    if tiled:
        shape = aval_of(out).shape
        out = lax.reshape(out, shape[:k] + (shape[k] * shape[k + 1],) + shape[k + 2:])
    return out, None


P.batch_rules[P.reshape_p] = _reshape_rule
P.batch_rules[P.pad_p] = _pad_rule
P.batch_rules[P.concatenate_p] = _concatenate_rule
P.batch_rules[P.stack_p] = _stack_rule
P.batch_rules[P.unstack_p] = _unstack_rule
# As JAX batches split: the batch axis stays where it is; the split axis shifts past it.
P.batch_rules[P.split_p] = lambda vals, dims, *, sizes, axis: (
    P.split_p.bind(vals[0], sizes=sizes, axis=axis + (axis >= dims[0])), [dims[0]] * len(sizes))
P.batch_rules[P.dot_general_p] = _dot_general_rule
_call_rule(P.jit_p)
_call_rule(P.remat_p)
for _p in P.REDUCING_COLLECTIVES:
    _reducing_collective(_p)
P.batch_rules[P.all_gather_p] = _all_gather_rule
own_axis_rules[P.axis_index_p] = lambda size, vals, dims, *, axis_name: (
    lax.iota(np.int32, size), 0)
own_axis_rules[P.all_gather_p] = _all_gather_own


def _debug_callback_batch(vals, dims, **params):
    """One call per batch element, with that element's values (JAX's rule, unrolled)."""
    for i in range(batch_size(vals, dims)):
        P.debug_callback_p.bind(*[v if d is None else lax.index_in_dim(v, i, d, keepdims=False)
                                  for v, d in zip(vals, dims)], **params)
    return [], []


P.batch_rules[P.debug_callback_p] = _debug_callback_batch


def _fft_batch(vals, dims, *, fft_type, fft_lengths):
    # The transform reads only trailing axes: the batch axis goes first.
    (x,), _ = _front(vals, dims)
    return fft(x, fft_type, fft_lengths), 0


P.batch_rules[fft_p] = _fft_batch
