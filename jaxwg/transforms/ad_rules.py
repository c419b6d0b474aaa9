"""JVP and transpose rules of every primitive (`primitives.jvp_rules`, `transpose_rules`).

A JVP rule maps `(primals, tangents, **params)` to `(primal_out, tangent_out)`; a
tangent may be a symbolic `Zero`. Most rules are declared through three shapes:

* `defjvp(prim, *fns)`: the output tangent is the sum over inputs with a nonzero
  tangent `g` of `fn(g, ans, *primals)` (None: that input has no derivative);
* `deflinear(prim)`: the primitive is linear in all its inputs, so it applies to the
  tangents themselves (and its transpose rule says how cotangents flow back);
* `defzero(prim)`: the output does not vary (integer results, rounding, stop_gradient).

Derivatives follow JAX's (`jax._src.lax.lax`): `max` splits ties evenly between its
operands, `pow`'s derivative in its exponent treats 0 ** y as having log 1, `abs`'s
tangent is `g` where x >= 0 and `-g` elsewhere. Most rules are written with JAX's
operations in JAX's order, so that jaxprs print and round as JAX's. Transpose rules `(ct, *inputs, **params)` return one
cotangent per input (None for inputs that are not linear, given as values; linear ones
are `UndefinedPrimal`s).

>>> import jaxwg, jaxwg.numpy as jnp
>>> jaxwg.grad(lambda x: jnp.max(jnp.array([x, x])))(1.0).item()  # a tie: half each
1.0
"""

from __future__ import annotations

import functools
import math

import numpy as np

from .. import lax
from ..core import dtypes as dt
from ..frontend import primitives as P
from ..frontend.array import aval_of
from ..frontend.jaxpr import call_staged, eval_jaxpr
from ..frontend.trace import bind
from ..lax import prng, slicing
from ..lax.fft import fft_p, fft_transpose
from ..lax.lax import _strong_full_like
from ..lax.sorting import (inverse_permutation_transpose, permutation_axis, permute, sort_p, take_along,
                           top_k_p)
from .ad import Zero, add_tangents, instantiate, is_differentiable, jvp_flat, tangent_aval
from .custom import custom_jvp
from .transpose import backward_pass, is_undefined

# -- declaring rules ---------------------------------------------------------------------


def _broadcast_to(t, aval):
    """A tangent term of a rank-0 operand, or of one with axes of size 1, broadcast to an
    elementwise output's shape (JAX's `_maybe_broadcast`)."""
    shape = aval_of(t).shape
    if shape == aval.shape:
        return t
    if not shape:
        return lax.broadcast_in_dim(t, aval.shape, ())
    kept = tuple(i for i, (a, b) in enumerate(zip(shape, aval.shape)) if a == b)
    return lax.broadcast_in_dim(lax.reshape(t, tuple(shape[i] for i in kept)), aval.shape, kept)


def defjvp(prim, *fns):
    def rule(primals, tangents, **params):
        ans = prim.bind(*primals, **params)
        out_aval = aval_of(ans)
        out = Zero(tangent_aval(out_aval))
        if not is_differentiable(out_aval):
            return ans, out
        for fn, t in zip(fns, tangents):
            if fn is not None and not isinstance(t, Zero):
                out = add_tangents(out, _broadcast_to(fn(t, ans, *primals, **params), out_aval))
        return ans, out

    P.jvp_rules[prim] = rule


def deflinear(prim, transpose=None):
    """`prim` applied to the tangents (zeros where an input has none)."""
    def rule(primals, tangents, **params):
        ans = prim.bind(*primals, **params)
        if all(isinstance(t, Zero) for t in tangents):
            return ans, Zero(tangent_aval(aval_of(ans)))
        ts = [instantiate(t, tangent_aval(aval_of(p))) for p, t in zip(primals, tangents)]
        return ans, prim.bind(*ts, **params)

    P.jvp_rules[prim] = rule
    if transpose is not None:
        P.transpose_rules[prim] = transpose


def defzero(prim):
    def rule(primals, tangents, **params):
        ans = prim.bind(*primals, **params)
        outs = ans if prim.multiple_results else [ans]
        zeros = [Zero(tangent_aval(aval_of(a))) for a in outs]
        return ans, zeros if prim.multiple_results else zeros[0]

    P.jvp_rules[prim] = rule


def _sum_to(ct, aval):
    """A cotangent of an elementwise output summed down to the shape of an operand that
    was broadcast: rank 0, or axes of size 1 (JAX's `_unbroadcast`)."""
    shape = aval_of(ct).shape
    if shape == aval.shape:
        return ct
    if not aval.shape:
        return lax.reduce_sum(ct, tuple(range(len(shape))))
    axes = tuple(i for i, (a, b) in enumerate(zip(shape, aval.shape)) if a != b)
    return lax.reshape(lax.reduce_sum(ct, axes), aval.shape)


def _like(x, value):
    """`value` as a rank-0 constant of `x`'s dtype (weakly typed)."""
    return lax.convert_element_type(value, aval_of(x).dtype, weak_type=True)


def _replace_zero(x):
    return lax.select(lax.eq(x, _like(x, 0)), lax.full_like(x, 1), x)


# -- elementwise ---------------------------------------------------------------------------

for _p in (P.sign_p, P.floor_p, P.ceil_p, P.round_p, P.is_finite_p, P.not_p, P.and_p, P.or_p,
           P.xor_p, P.shift_left_p, P.shift_right_arithmetic_p, P.shift_right_logical_p,
           P.bitcast_convert_type_p, P.stop_gradient_p, P.argmax_p, P.argmin_p, P.reduce_and_p,
           P.reduce_or_p, P.iota_p, P.empty_p, P.threefry2x32_p, P.sort_permutation_p, P.scatter_max_flat_p,
           *P.COMPARISONS, *prng.KEY_PRIMITIVES):
    defzero(_p)

defjvp(P.exp_p, lambda g, ans, x: lax.mul(g, ans))
defjvp(P.exp2_p, lambda g, ans, x: lax.mul(g, lax.mul(ans, math.log(2))))
defjvp(P.log_p, lambda g, ans, x: lax.div(g, x))
defjvp(P.log1p_p, lambda g, ans, x: lax.div(g, lax.add(x, 1)))
defjvp(P.expm1_p, lambda g, ans, x: lax.mul(g, lax.add(ans, 1)))
# g (1 + tanh) (1 - tanh), as JAX writes it: more accurate than 1 - tanh^2 near +-1.
defjvp(P.tanh_p, lambda g, ans, x: lax.mul(lax.add(g, lax.mul(g, ans)), lax.sub(1, ans)))
defjvp(P.logistic_p, lambda g, ans, x: lax.mul(g, lax.mul(ans, lax.sub(1, ans))))
defjvp(P.sin_p, lambda g, ans, x: lax.mul(g, lax.cos(x)))
defjvp(P.cos_p, lambda g, ans, x: lax.neg(lax.mul(g, lax.sin(x))))
defjvp(P.tan_p, lambda g, ans, x: lax.mul(g, lax.add(1, lax.mul(ans, ans))))
defjvp(P.asin_p, lambda g, ans, x: lax.mul(g, lax.rsqrt(lax.sub(1, lax.mul(x, x)))))
defjvp(P.acos_p, lambda g, ans, x: lax.neg(lax.mul(g, lax.rsqrt(lax.sub(1, lax.mul(x, x))))))
defjvp(P.atan_p, lambda g, ans, x: lax.div(g, lax.add(1, lax.mul(x, x))))
defjvp(P.sinh_p, lambda g, ans, x: lax.mul(g, lax.cosh(x)))
defjvp(P.cosh_p, lambda g, ans, x: lax.mul(g, lax.sinh(x)))
defjvp(P.asinh_p, lambda g, ans, x: lax.mul(g, lax.rsqrt(lax.add(lax.mul(x, x), 1))))
defjvp(P.acosh_p, lambda g, ans, x: lax.mul(g, lax.rsqrt(lax.mul(lax.sub(x, 1), lax.add(x, 1)))))
defjvp(P.atanh_p, lambda g, ans, x: lax.div(g, lax.sub(1, lax.mul(x, x))))
defjvp(P.sqrt_p, lambda g, ans, x: lax.div(g, lax.mul(ans, 2)))
defjvp(P.rsqrt_p, lambda g, ans, x: lax.mul(g, lax.mul(lax.div(ans, x), -0.5)))
defjvp(P.cbrt_p, lambda g, ans, x: lax.div(g, lax.mul(lax.mul(ans, ans), 3)))
_TWO_OVER_SQRT_PI = 2 / math.sqrt(math.pi)
defjvp(P.erf_p, lambda g, ans, x: lax.mul(g, lax.mul(lax.exp(lax.neg(lax.mul(x, x))),
                                                     _TWO_OVER_SQRT_PI)))
defjvp(P.erfc_p, lambda g, ans, x: lax.mul(g, lax.mul(lax.exp(lax.neg(lax.mul(x, x))),
                                                      -_TWO_OVER_SQRT_PI)))
defjvp(P.erf_inv_p, lambda g, ans, x: lax.mul(g, lax.mul(lax.exp(lax.mul(ans, ans)),
                                                         math.sqrt(math.pi) / 2)))
defjvp(P.square_p, lambda g, ans, x: lax.mul(g, lax.mul(x, 2)))


def _abs_jacobian(g, ans, x):
    if not aval_of(x).dtype.is_complex:  # JAX's: g where x >= 0 (so 1 at 0), else -g
        return lax.select(lax.ge(x, _like(x, 0)), g, lax.neg(g))
    # d|z| = re(conj(z) dz) / |z|, as JAX's (0 where z is 0).
    scale = _replace_zero(lax.convert_element_type(ans, aval_of(x).dtype))
    return lax.real(lax.mul(g, lax.div(lax.conj(x), scale)))


defjvp(P.abs_p, _abs_jacobian)


def _integer_pow_jacobian(g, ans, x, *, y):
    if y == 0:
        return lax.full_like(g, 0)
    if y == 1:
        return g
    return lax.mul(g, lax.mul(y, x if y == 2 else lax.integer_pow(x, y - 1)))


defjvp(P.integer_pow_p, _integer_pow_jacobian)



def _sum_jvp(prim, second):
    """The JVP of `add` or `sub` as JAX writes it: the primitive itself on two nonzero
    tangents (not `add_any`), `second` on the other operand's tangent alone."""
    def rule(primals, tangents):
        ans = prim.bind(*primals)
        out_aval = aval_of(ans)
        tx, ty = tangents
        if not is_differentiable(out_aval) or isinstance(tx, Zero) and isinstance(ty, Zero):
            return ans, Zero(tangent_aval(out_aval))
        if isinstance(ty, Zero):
            return ans, _broadcast_to(tx, out_aval)
        if isinstance(tx, Zero):
            return ans, _broadcast_to(second(ty), out_aval)
        return ans, prim.bind(_broadcast_to(tx, out_aval), _broadcast_to(ty, out_aval))

    P.jvp_rules[prim] = rule


_sum_jvp(P.add_p, lambda t: t)
_sum_jvp(P.sub_p, lax.neg)
defjvp(P.mul_p, lambda g, ans, x, y: lax.mul(g, y), lambda g, ans, x, y: lax.mul(x, g))
defjvp(P.div_p, lambda g, ans, x, y: lax.div(g, y),
       lambda g, ans, x, y: lax.mul(lax.mul(lax.neg(g), x), lax.integer_pow(y, -2)))
defjvp(P.rem_p, lambda g, ans, x, y: g,
       lambda g, ans, x, y: lax.neg(lax.mul(g, lax.mul(lax.sign(lax.div(x, y)),
                                                       lax.floor(lax.abs(lax.div(x, y)))))))


def _pow_jacobian_x(g, ans, x, y):
    # y * x ** (y - 1), and 0 where y == 0 (x ** 0 is 1 everywhere); strongly typed, as
    # JAX's rule converts y (and x) to their dtype first.
    y = lax.convert_element_type(y, aval_of(y).dtype)
    jac = lax.mul(_replace_zero(y), lax.pow(x, lax.sub(y, 1)))
    return lax.mul(g, lax.select(lax.eq(y, _like(y, 0)), lax.full_like(jac, 0), jac))


defjvp(P.pow_p, _pow_jacobian_x,
       lambda g, ans, x, y: lax.mul(g, lax.mul(lax.log(_replace_zero(x)), ans)))


def _balanced_eq(x, z, y):
    """1 where x == z != y, 1/2 where x == z == y (a tie), else 0; written as JAX's, a
    quotient of two selects, so that it prints and rounds as JAX's."""
    chosen = lax.select(lax.eq(x, z), lax.full_like(z, 1), lax.full_like(z, 0))
    return lax.div(chosen, lax.select(lax.eq(y, z), lax.full_like(z, 2), lax.full_like(z, 1)))


defjvp(P.max_p, lambda g, ans, x, y: lax.mul(g, _balanced_eq(x, ans, y)),
       lambda g, ans, x, y: lax.mul(g, _balanced_eq(y, ans, x)))
defjvp(P.min_p, lambda g, ans, x, y: lax.mul(g, _balanced_eq(x, ans, y)),
       lambda g, ans, x, y: lax.mul(g, _balanced_eq(y, ans, x)))
defjvp(P.atan2_p,
       lambda g, ans, x, y: lax.mul(g, lax.div(y, lax.add(lax.mul(x, x), lax.mul(y, y)))),
       lambda g, ans, x, y: lax.mul(g, lax.div(lax.neg(x), lax.add(lax.mul(x, x), lax.mul(y, y)))))
defjvp(P.fma_p, lambda g, ans, a, b, c: lax.mul(g, b), lambda g, ans, a, b, c: lax.mul(a, g),
       lambda g, ans, a, b, c: g)
defjvp(P.clamp_p,
       lambda g, ans, lo, x, hi: lax.select(lax.bitwise_and(lax.gt(lo, x), lax.lt(lo, hi)),
                                            _broadcast_to(g, aval_of(x)), lax.full_like(x, 0)),
       lambda g, ans, lo, x, hi: lax.select(lax.bitwise_and(lax.gt(x, lo), lax.lt(x, hi)),
                                            g, lax.full_like(x, 0)),
       lambda g, ans, lo, x, hi: lax.select(lax.lt(hi, x), _broadcast_to(g, aval_of(x)),
                                            lax.full_like(x, 0)))


def _convert_jvp(primals, tangents, *, new_dtype, weak_type):
    (x,), (g,) = primals, tangents
    ans = P.convert_element_type_p.bind(x, new_dtype=new_dtype, weak_type=weak_type)
    if isinstance(g, Zero) or not new_dtype.is_inexact:
        return ans, Zero(tangent_aval(aval_of(ans)))
    return ans, P.convert_element_type_p.bind(g, new_dtype=new_dtype, weak_type=weak_type)


P.jvp_rules[P.convert_element_type_p] = _convert_jvp
P.transpose_rules[P.convert_element_type_p] = lambda ct, x, *, new_dtype, weak_type: [
    lax.convert_element_type(ct, x.aval.dtype, x.aval.weak_type)]


def _select_n_jvp(primals, tangents):
    """The selection of the tangents, one array of zeros standing for every zero
    tangent (made, as in JAX, even when none is zero)."""
    which, *cases = primals
    ans = P.select_n_p.bind(which, *cases)
    nonzero = [t for t in tangents[1:] if not isinstance(t, Zero)]
    if not nonzero:
        return ans, Zero(tangent_aval(aval_of(ans)))
    zeros = lax.full_like(nonzero[0], 0)
    ts = [zeros if isinstance(t, Zero) else t for t in tangents[1:]]
    return ans, P.select_n_p.bind(which, *ts)


def _select_n_transpose(ct, which, *cases):
    """As JAX's: a case's cotangent is `ct` where it was selected and zeros elsewhere,
    selected by a boolean `which` itself and by `which == i` for an integer one."""
    if is_undefined(which):
        raise ValueError("select_n is not linear in its predicate")
    zeros = lax.full_like(ct, 0)
    boolean = aval_of(which).dtype.is_bool
    out = [None]
    for i, case in enumerate(cases):
        if not is_undefined(case):
            out.append(None)
            continue
        if boolean:
            picked = P.select_n_p.bind(which, *((ct, zeros) if i == 0 else (zeros, ct)))
        else:
            picked = P.select_n_p.bind(lax.eq(which, np.asarray(i, aval_of(which).dtype.np)), zeros, ct)
        out.append(_sum_to(picked, case.aval))
    return out


P.jvp_rules[P.select_n_p] = _select_n_jvp
P.transpose_rules[P.select_n_p] = _select_n_transpose


# -- transposes of the linear elementwise primitives ---------------------------------------


def _add_transpose(ct, x, y):
    return [_sum_to(ct, x.aval) if is_undefined(x) else None,
            _sum_to(ct, y.aval) if is_undefined(y) else None]


def _sub_transpose(ct, x, y):
    return [_sum_to(ct, x.aval) if is_undefined(x) else None,
            _sum_to(lax.neg(ct), y.aval) if is_undefined(y) else None]


def _mul_transpose(ct, x, y):
    if is_undefined(x) and is_undefined(y):
        raise ValueError("mul is not linear in both operands at once")
    if is_undefined(x):
        return [_sum_to(lax.mul(ct, y), x.aval), None]
    return [None, _sum_to(lax.mul(x, ct), y.aval)]


def _div_transpose(ct, x, y):
    if is_undefined(y):
        raise ValueError("div is not linear in its divisor")
    return [_sum_to(lax.div(ct, y), x.aval), None]


P.transpose_rules[P.add_p] = _add_transpose
deflinear(P.add_any_p, _add_transpose)
P.transpose_rules[P.sub_p] = _sub_transpose
P.transpose_rules[P.mul_p] = _mul_transpose
P.transpose_rules[P.div_p] = _div_transpose
deflinear(P.neg_p, lambda ct, x: [lax.neg(ct)])
# The complex parts' transposes, as JAX's (unconjugated: cotangents of complex values
# pair with tangents by the real bilinear form re(ct * t); its zero parts are NumPy
# zeros, strongly typed).
deflinear(P.real_p, lambda ct, x: [lax.complex(ct, _strong_full_like(ct, 0))])
deflinear(P.imag_p, lambda ct, x: [lax.complex(_strong_full_like(ct, 0), lax.neg(ct))])
deflinear(P.complex_p, lambda ct, x, y: [_sum_to(lax.real(ct), x.aval), _sum_to(lax.imag(lax.neg(ct)), y.aval)])
deflinear(P.conj_p, lambda ct, x, *, input_dtype: [
    lax.conj(ct) if input_dtype.is_complex else lax.real(ct)])
deflinear(P.copy_p, lambda ct, x: [ct])
deflinear(P.reduce_precision_p, lambda ct, x, **params: [P.reduce_precision_p.bind(ct, **params)])


# -- movement --------------------------------------------------------------------------------


def _broadcast_in_dim_transpose(ct, x, *, shape, broadcast_dimensions):
    kept = set(broadcast_dimensions)
    new_axes = [a for a in range(len(shape)) if a not in kept]
    unit_axes = [a for d, a in zip(x.aval.shape, broadcast_dimensions) if d == 1 and shape[a] != 1]
    summed = lax.reduce_sum(ct, tuple(sorted(new_axes + unit_axes)))
    return [lax.reshape(summed, x.aval.shape)]


def _reshape_transpose(ct, x, *, new_sizes, dimensions):
    if dimensions is None:
        return [lax.reshape(ct, x.aval.shape)]
    permuted = [x.aval.shape[d] for d in dimensions]
    return [lax.transpose(lax.reshape(ct, permuted), tuple(np.argsort(dimensions)))]


def _slice_transpose(ct, x, *, start_indices, limit_indices, strides):
    strides = strides or (1,) * x.aval.ndim
    config = []
    for n, lo, k, st in zip(x.aval.shape, start_indices, aval_of(ct).shape, strides):
        if k == 0:
            config.append((lo, n - lo, 0))
        else:
            config.append((lo, n - (lo + (k - 1) * st + 1), st - 1))
    return [lax.pad(ct, _strong_full_like(ct, 0, ()), config)]


def _unpad(ct, padding_config):
    """The elements of a padded array's cotangent that came from the operand."""
    unpadded = lax.pad(ct, _strong_full_like(ct, 0, ()), [(-lo, -hi, 0) for lo, hi, _ in padding_config])
    shape = aval_of(unpadded).shape
    return lax.slice(unpadded, (0,) * len(shape), shape, tuple(i + 1 for _, _, i in padding_config))


def _pad_transpose(ct, x, padding_value, *, padding_config):
    inner = _unpad(ct, padding_config)
    ct_v = None
    if is_undefined(padding_value):  # every element the operand did not fill
        every = tuple(range(aval_of(ct).ndim))
        ct_v = lax.sub(lax.reduce_sum(ct, every), lax.reduce_sum(inner, every))
    return [inner if is_undefined(x) else None, ct_v]


def _concatenate_transpose(ct, *xs, dimension):
    out, start = [], 0
    shape = aval_of(ct).shape
    for x in xs:
        size = (x.aval if is_undefined(x) else aval_of(x)).shape[dimension]
        if is_undefined(x):
            lo = [0] * len(shape)
            hi = list(shape)
            lo[dimension], hi[dimension] = start, start + size
            out.append(lax.slice(ct, lo, hi))
        else:
            out.append(None)
        start += size
    return out


def _gather_jvp(primals, tangents, **params):
    """Linear in the operand; the tangent's out-of-bounds slices are 0, not the fill
    (JAX's: the param is 0 where the mode fills, else None)."""
    operand, indices = primals
    ans = P.gather_p.bind(operand, indices, **params)
    if isinstance(tangents[0], Zero):
        return ans, Zero(tangent_aval(aval_of(ans)))
    fill = 0 if params["mode"] is lax.GatherScatterMode.FILL_OR_DROP else None
    return ans, P.gather_p.bind(tangents[0], indices, **{**params, "fill_value": fill})


def _gather_transpose(ct, operand, indices, *, dimension_numbers, slice_sizes, mode, fill_value,
                      indices_are_sorted, unique_indices):
    """JAX's: each slice's cotangent added back where the slice was read (`lax.scatter_add`,
    of the gather's mode: out-of-bounds starts that a gather clamps, a scatter drops, as
    XLA's do). A permutation (`sorting.permute`: a sort's outputs) goes back through the
    inverse permutation instead."""
    axis = permutation_axis(operand.aval.shape, aval_of(indices).shape, dimension_numbers, unique_indices)
    if axis is not None:
        return [inverse_permutation_transpose(ct, indices, axis), None]
    d = dimension_numbers
    dnums = lax.ScatterDimensionNumbers(
        update_window_dims=d.offset_dims, inserted_window_dims=d.collapsed_slice_dims,
        scatter_dims_to_operand_dims=d.start_index_map, operand_batching_dims=d.operand_batching_dims,
        scatter_indices_batching_dims=d.start_indices_batching_dims)
    zeros = lax.full(operand.aval.shape, 0, operand.aval.dtype)
    return [lax.scatter_add(zeros, indices, ct, dnums, indices_are_sorted=indices_are_sorted,
                            unique_indices=unique_indices, mode=mode), None]


def _dynamic_slice_jvp(primals, tangents, *, slice_sizes):
    """JAX's: linear in the operand (the tangent's slice first, as JAX binds it)."""
    operand, *starts = primals
    t = tangents[0]
    if not isinstance(t, Zero):
        t = slicing.dynamic_slice_p.bind(t, *starts, slice_sizes=slice_sizes)
    ans = slicing.dynamic_slice_p.bind(operand, *starts, slice_sizes=slice_sizes)
    return ans, Zero(tangent_aval(aval_of(ans))) if isinstance(t, Zero) else t


def _dynamic_slice_transpose(ct, operand, *starts, slice_sizes):
    """The window's cotangent written into zeros where the window was read."""
    zeros = lax.full(operand.aval.shape, 0, operand.aval.dtype)
    return [slicing.dynamic_update_slice_p.bind(zeros, ct, *starts)] + [None] * len(starts)


def _dynamic_update_slice_jvp(primals, tangents):
    """JAX's: linear in the operand and the update together."""
    operand, update, *starts = primals
    g_operand, g_update = tangents[:2]
    ans = slicing.dynamic_update_slice_p.bind(operand, update, *starts)
    if isinstance(g_operand, Zero) and isinstance(g_update, Zero):
        return ans, Zero(tangent_aval(aval_of(ans)))
    return ans, slicing.dynamic_update_slice_p.bind(instantiate(g_operand, tangent_aval(aval_of(operand))),
                                                    instantiate(g_update, tangent_aval(aval_of(update))),
                                                    *starts)


def _dynamic_update_slice_transpose(ct, operand, update, *starts):
    """JAX's: the operand's cotangent is `ct` with zeros where the update went, the
    update's `ct` read back there."""
    update_aval = update.aval if is_undefined(update) else aval_of(update)
    zeros = lax.full(update_aval.shape, 0, aval_of(ct).dtype)
    ct_operand = slicing.dynamic_update_slice_p.bind(ct, zeros, *starts) if is_undefined(operand) else None
    ct_update = (slicing.dynamic_slice_p.bind(ct, *starts, slice_sizes=update_aval.shape)
                 if is_undefined(update) else None)
    return [ct_operand, ct_update] + [None] * len(starts)


def _scatter_add_flat_jvp(primals, tangents):
    """Linear in the operand and the updates."""
    operand, targets, updates = primals
    ans = P.scatter_add_flat_p.bind(operand, targets, updates)
    t_operand, _, t_updates = tangents
    if isinstance(t_operand, Zero) and isinstance(t_updates, Zero):
        return ans, Zero(tangent_aval(aval_of(ans)))
    return ans, P.scatter_add_flat_p.bind(instantiate(t_operand, tangent_aval(aval_of(operand))), targets,
                                          instantiate(t_updates, tangent_aval(aval_of(updates))))


def _scatter_add_flat_transpose(ct, operand, targets, updates):
    """The operand's cotangent is `ct`; each update's is `ct` at its position (0 if dropped)."""
    ct_updates = None
    if is_undefined(updates):
        flat = lax.reshape(ct, (math.prod(aval_of(ct).shape),))
        take = lax.GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(0,), start_index_map=(0,))
        ct_updates = lax.gather(flat, lax.expand_dims(targets, (1,)), take, (1,),
                                mode=lax.GatherScatterMode.FILL_OR_DROP, fill_value=0)
    return [ct if is_undefined(operand) else None, None, ct_updates]


def _scatter_inverse_gather(x, indices, updates_shape, dimension_numbers, **params):
    """The gather that reads back, from `x`, what a scatter with these parameters wrote
    (JAX's transposes and JVPs of scatters take it)."""
    d = dimension_numbers
    take = lax.GatherDimensionNumbers(
        offset_dims=d.update_window_dims, collapsed_slice_dims=d.inserted_window_dims,
        start_index_map=d.scatter_dims_to_operand_dims, operand_batching_dims=d.operand_batching_dims,
        start_indices_batching_dims=d.scatter_indices_batching_dims)
    windows = iter(d.update_window_dims)
    sizes = [1 if a in d.inserted_window_dims or a in d.operand_batching_dims else updates_shape[next(windows)]
             for a in range(aval_of(x).ndim)]
    return lax.gather(x, indices, take, sizes, **params)


def _scatter_addsub_jvp(prim, primals, tangents, **params):
    """JAX's, for scatter-add and scatter-sub: linear in the operand and the updates."""
    operand, indices, updates = primals
    ans = prim.bind(operand, indices, updates, **params)
    g_operand, _, g_updates = tangents
    if isinstance(g_operand, Zero) and isinstance(g_updates, Zero):
        return ans, Zero(tangent_aval(aval_of(ans)))
    return ans, prim.bind(instantiate(g_operand, tangent_aval(aval_of(operand))), indices,
                          instantiate(g_updates, tangent_aval(aval_of(updates))), **params)


def _scatter_addsub_transpose(prim, ct, operand, indices, updates, *, dimension_numbers, mode, **params):
    """JAX's: the operand's cotangent is `ct`; each update's is `ct` where it landed (0
    where it was dropped), negated for scatter-sub."""
    ct_updates = None
    if is_undefined(updates):
        ct_updates = _scatter_inverse_gather(ct, indices, updates.aval.shape, dimension_numbers,
                                             mode=mode, fill_value=0)
        if prim is slicing.scatter_sub_p:
            ct_updates = lax.neg(ct_updates)
    return [ct if is_undefined(operand) else None, None, ct_updates]


def _scatter_jvp(primals, tangents, *, dimension_numbers, indices_are_sorted, unique_indices, mode,
                 update_jaxpr, update_consts):
    """JAX's: with unique indices, the tangents scattered alike. Otherwise the winning
    update of each position is found by scattering update numbers (from 1) and reading
    them back; the operand where nothing landed and the winning updates are then
    scatter-added, values and tangents alike (so no transpose of a set is needed)."""
    operand, indices, updates = primals
    g_operand, _, g_updates = tangents
    params = dict(dimension_numbers=dimension_numbers, indices_are_sorted=indices_are_sorted,
                  unique_indices=unique_indices, mode=mode)
    g_operand = instantiate(g_operand, tangent_aval(aval_of(operand)))
    g_updates = instantiate(g_updates, tangent_aval(aval_of(updates)))
    if unique_indices:
        return (slicing.scatter(operand, indices, updates, **params),
                slicing.scatter(g_operand, indices, g_updates, **params))
    shape = aval_of(updates).shape
    ids_shape = [1 if a in dimension_numbers.update_window_dims else n for a, n in enumerate(shape)]
    # One number per update, from 1 (the add broadcasts the window axes of size 1).
    ids = lax.reshape(lax.iota(np.uint32, math.prod(ids_shape)), ids_shape)
    ids = lax.add(ids, lax.full(shape, 1, np.uint32))
    scattered = slicing.scatter(lax.full(aval_of(operand).shape, 0, np.uint32), indices, ids, **params)
    gathered = _scatter_inverse_gather(scattered, indices, shape, dimension_numbers,
                                       mode=lax.GatherScatterMode.PROMISE_IN_BOUNDS)

    def untouched(x):  # where no update landed (in JAX's order of equations)
        return lax.select(lax.eq(scattered, lax.full_like(scattered, 0)), x, lax.full_like(x, 0))

    def won(x):  # the updates that landed last
        return lax.select(lax.eq(ids, gathered), x, lax.full_like(x, 0))

    masked = [untouched(operand), won(updates), untouched(g_operand), won(g_updates)]
    return (slicing.scatter_add(masked[0], indices, masked[1], **params),
            slicing.scatter_add(masked[2], indices, masked[3], **params))


def _scatter_transpose(ct, operand, indices, updates, *, dimension_numbers, indices_are_sorted,
                       unique_indices, mode, update_jaxpr, update_consts):
    """JAX's, for unique indices (the JVP's only set): zeros written into `ct` where the
    updates went for the operand, `ct` read back there for the updates."""
    if not unique_indices:
        raise NotImplementedError("scatter transpose is only implemented where unique_indices=True")
    ct_operand = ct_updates = None
    if is_undefined(operand):
        shape = (updates.aval if is_undefined(updates) else aval_of(updates)).shape
        ct_operand = slicing.scatter(ct, indices, lax.full(shape, 0, aval_of(ct).dtype), dimension_numbers,
                                     indices_are_sorted=indices_are_sorted, unique_indices=True, mode=mode)
    if is_undefined(updates):
        ct_updates = _scatter_inverse_gather(ct, indices, updates.aval.shape, dimension_numbers,
                                             mode=mode, fill_value=0)
    return [ct_operand, None, ct_updates]


def _scatter_mul_jacobian_updates(g, ans, x, indices, y, *, dimension_numbers, indices_are_sorted,
                                  unique_indices, mode, **_):
    """JAX's: `x` times the updates' tangents scattered into zeros. Only right where no
    two updates land on one element, so (as JAX) only `unique_indices=True` has it."""
    if not unique_indices:
        raise NotImplementedError("scatter_mul gradients are only implemented if `unique_indices=True`")
    return lax.mul(x, slicing.scatter_add(_strong_full_like(x, 0), indices, g, dimension_numbers,
                                          indices_are_sorted=indices_are_sorted,
                                          unique_indices=unique_indices, mode=mode))


def _scatter_mul_transpose(ct, operand, indices, updates, *, dimension_numbers, indices_are_sorted,
                           unique_indices, mode, update_jaxpr, update_consts):
    """JAX's: the operand's cotangent is `ct` times the updates where they landed (the
    JVP's first term); the updates' (unique indices only) is `ct` times the operand,
    read back where each landed."""
    ct_operand = ct_updates = None
    if is_undefined(operand):  # with a backward pass's own update_jaxpr (`_update_jaxpr`)
        ct_operand = slicing.scatter_mul_p.bind(
            ct, indices, updates, dimension_numbers=dimension_numbers, indices_are_sorted=indices_are_sorted,
            unique_indices=unique_indices, mode=mode, update_consts=(),
            update_jaxpr=slicing._update_jaxpr("mul", aval_of(ct).dtype, True))
    if is_undefined(updates):
        if not unique_indices:
            raise NotImplementedError("scatter_mul gradients are only implemented if `unique_indices=True`")
        ct_updates = _scatter_inverse_gather(lax.mul(ct, operand), indices, updates.aval.shape,
                                             dimension_numbers, mode=mode, fill_value=0)
    return [ct_operand, None, ct_updates]


def _scatter_composite_jvp(combine: str, primals, tangents, *, dimension_numbers, mode, **params):
    """The derivative of what the scatter computes (`slicing._scatter`): maxima and
    minima as JAX's."""
    aval = aval_of(primals[0])

    def scatter(*args):  # typed as the operand, weak or not, as the primitive's result
        out = slicing._scatter(combine, *args, dimension_numbers, mode)
        return [lax.convert_element_type(out, aval.dtype, aval.weak_type)]

    (ans,), (tangent,) = jvp_flat(scatter, primals, tangents)
    return ans, tangent


deflinear(P.cumsum_p, lambda ct, x, *, axis, reverse: [
    P.cumsum_p.bind(ct, axis=axis, reverse=not reverse)])
P.jvp_rules[P.scatter_add_flat_p] = _scatter_add_flat_jvp
P.transpose_rules[P.scatter_add_flat_p] = _scatter_add_flat_transpose
P.jvp_rules[P.gather_p] = _gather_jvp
for _p in (slicing.scatter_add_p, slicing.scatter_sub_p):
    P.jvp_rules[_p] = functools.partial(_scatter_addsub_jvp, _p)
    P.transpose_rules[_p] = functools.partial(_scatter_addsub_transpose, _p)
P.jvp_rules[slicing.scatter_p] = _scatter_jvp
P.transpose_rules[slicing.scatter_p] = _scatter_transpose
defjvp(slicing.scatter_mul_p, lambda g, ans, x, indices, y, **params: slicing.scatter_mul_p.bind(
    g, indices, y, **params), None, _scatter_mul_jacobian_updates)
P.transpose_rules[slicing.scatter_mul_p] = _scatter_mul_transpose
for _combine, _p in (("min", slicing.scatter_min_p), ("max", slicing.scatter_max_p)):
    P.jvp_rules[_p] = functools.partial(_scatter_composite_jvp, _combine)
P.transpose_rules[P.gather_p] = _gather_transpose
P.jvp_rules[slicing.dynamic_slice_p] = _dynamic_slice_jvp
P.transpose_rules[slicing.dynamic_slice_p] = _dynamic_slice_transpose
P.jvp_rules[slicing.dynamic_update_slice_p] = _dynamic_update_slice_jvp
P.transpose_rules[slicing.dynamic_update_slice_p] = _dynamic_update_slice_transpose
deflinear(P.broadcast_in_dim_p, _broadcast_in_dim_transpose)
deflinear(P.reshape_p, _reshape_transpose)
deflinear(P.transpose_p, lambda ct, x, *, permutation: [
    lax.transpose(ct, tuple(int(i) for i in np.argsort(permutation)))])
deflinear(P.rev_p, lambda ct, x, *, dimensions: [lax.rev(ct, dimensions)])
deflinear(P.slice_p, _slice_transpose)
deflinear(P.squeeze_p, lambda ct, x, *, dimensions: [lax.expand_dims(ct, dimensions)])
deflinear(P.pad_p, _pad_transpose)
deflinear(P.concatenate_p, _concatenate_transpose)


def _split_jvp(primals, tangents, *, sizes, axis):
    """Linear with several results: the tangent split as the operand is."""
    (x,), (t,) = primals, tangents
    outs = P.split_p.bind(x, sizes=sizes, axis=axis)
    if isinstance(t, Zero):
        return outs, [Zero(tangent_aval(aval_of(o))) for o in outs]
    return outs, P.split_p.bind(t, sizes=sizes, axis=axis)


P.jvp_rules[P.split_p] = _split_jvp
P.transpose_rules[P.split_p] = lambda cts, x, *, sizes, axis: [
    lax.concatenate([instantiate(ct) for ct in cts], axis)]


def _unstack_jvp(primals, tangents, *, axis):
    """JAX's: the tangent unstacked as the operand is."""
    (x,), (t,) = primals, tangents
    outs = P.unstack_p.bind(x, axis=axis)
    if isinstance(t, Zero):
        return outs, [Zero(tangent_aval(aval_of(o))) for o in outs]
    return outs, P.unstack_p.bind(t, axis=axis)


deflinear(P.stack_p, lambda ct, *xs, axis: P.unstack_p.bind(ct, axis=axis))
P.jvp_rules[P.unstack_p] = _unstack_jvp
P.transpose_rules[P.unstack_p] = lambda cts, x, *, axis: [
    P.stack_p.bind(*[instantiate(ct) for ct in cts], axis=axis)]


# -- reductions ------------------------------------------------------------------------------


def _kept_axes(ndim: int, axes) -> tuple:
    return tuple(a for a in range(ndim) if a not in axes)


def _reduce_sum_transpose(ct, x, *, axes):
    return [lax.broadcast_in_dim(ct, x.aval.shape, _kept_axes(x.aval.ndim, axes))]


deflinear(P.reduce_sum_p, _reduce_sum_transpose)


def _reduce_chooser_jvp(prim):
    """max/min: the tangent at the chosen elements, averaged over ties (as JAX). As JAX's,
    the answer is compared in its keepdims shape, through `eq`'s broadcasting of axes of
    size 1."""
    def rule(primals, tangents, *, axes):
        (x,), (g,) = primals, tangents
        ans = prim.bind(x, axes=axes)
        if isinstance(g, Zero) or not is_differentiable(aval_of(ans)):
            return ans, Zero(tangent_aval(aval_of(ans)))
        kept_shape = tuple(1 if a in axes else d for a, d in enumerate(aval_of(x).shape))
        location = lax.eq(x, lax.reshape(ans, kept_shape))
        weights = lax.convert_element_type(location, aval_of(g).dtype)
        counts = lax.reduce_sum(weights, axes)
        return ans, lax.div(lax.reduce_sum(lax.mul(g, weights), axes), counts)

    P.jvp_rules[prim] = rule


_reduce_chooser_jvp(P.reduce_max_p)
_reduce_chooser_jvp(P.reduce_min_p)


def _reduce_prod_jvp(primals, tangents, *, axes):
    """sum_i g_i * prod_{j != i} x_j, exact where some x_j are zero: the reduced axes
    are moved last and flattened, and row i of an (n, n) copy has x_i replaced by 1."""
    (x,), (g,) = primals, tangents
    ans = P.reduce_prod_p.bind(x, axes=axes)
    if isinstance(g, Zero):
        return ans, Zero(tangent_aval(aval_of(ans)))
    shape = aval_of(x).shape
    kept = _kept_axes(len(shape), axes)
    perm = kept + tuple(axes)
    outer = tuple(shape[a] for a in kept)
    n = math.prod(shape[a] for a in axes)
    xs = lax.reshape(lax.transpose(x, perm), outer + (n,))
    gs = lax.reshape(lax.transpose(g, perm), outer + (n,))
    square = lax.broadcast_in_dim(xs, outer + (n, n), tuple(range(len(outer))) + (len(outer) + 1,))
    eye = lax.eq(lax.broadcasted_iota(np.int32, (n, n), 0), lax.broadcasted_iota(np.int32, (n, n), 1))
    eye = lax.broadcast_in_dim(eye, outer + (n, n), (len(outer), len(outer) + 1))
    # strongly typed ones, as those JAX pads its product tree with (its tangent of a weak x
    # is strong unless no padding was needed)
    ones = _strong_full_like(square, 1)
    others = lax.reduce_prod(lax.select(eye, ones, square), (len(outer) + 1,))
    return ans, lax.reduce_sum(lax.mul(gs, others), (len(outer),))


P.jvp_rules[P.reduce_prod_p] = _reduce_prod_jvp


# -- products --------------------------------------------------------------------------------


def _ranges_like(*xs):
    start, out = 0, []
    for x in xs:
        out.append(list(range(start, start + len(x))))
        start += len(x)
    return out


def _dot_transpose_lhs(ct, x_aval, y, dimension_numbers, swap_ans=False):
    (x_contract, y_contract), (x_batch, y_batch) = dimension_numbers
    y_aval = y.aval if is_undefined(y) else aval_of(y)
    x_kept = [a for a in range(x_aval.ndim) if a not in x_contract and a not in x_batch]
    y_kept = [a for a in range(y_aval.ndim) if a not in y_contract and a not in y_batch]
    if swap_ans:
        ans_batch, ans_y, _ = _ranges_like(x_batch, y_kept, x_kept)
    else:
        ans_batch, _, ans_y = _ranges_like(x_batch, x_kept, y_kept)
    dims = ((tuple(ans_y), tuple(y_kept)), (tuple(ans_batch), tuple(y_batch)))
    x_contract_by_y = [x_contract[i] for i in np.argsort(y_contract)]
    out_axes = tuple(int(i) for i in np.argsort(list(x_batch) + x_kept + x_contract_by_y))
    if aval_of(ct).dtype is not y_aval.dtype:  # a preferred_element_type wider than the operands
        y = lax.convert_element_type(y, aval_of(ct).dtype)
    prod = lax.dot_general(ct, y, dims)
    return lax.convert_element_type(lax.transpose(prod, out_axes), x_aval.dtype, x_aval.weak_type)


def _dot_general_transpose(ct, x, y, *, dimension_numbers, preferred_element_type):
    if is_undefined(x) and is_undefined(y):
        raise ValueError("dot_general is not linear in both operands at once")
    if is_undefined(x):
        return [_dot_transpose_lhs(ct, x.aval, y, dimension_numbers), None]
    (xc, yc), (xb, yb) = dimension_numbers
    return [None, _dot_transpose_lhs(ct, y.aval, x, ((yc, xc), (yb, xb)), swap_ans=True)]


def _dot_general_jvp(primals, tangents, *, dimension_numbers, preferred_element_type):
    (a, b), (ga, gb) = primals, tangents
    params = {"dimension_numbers": dimension_numbers,
              "preferred_element_type": preferred_element_type}
    ans = P.dot_general_p.bind(a, b, **params)
    out = Zero(tangent_aval(aval_of(ans)))
    if not is_differentiable(aval_of(ans)):
        return ans, out
    if not isinstance(ga, Zero):
        out = add_tangents(out, P.dot_general_p.bind(ga, b, **params))
    if not isinstance(gb, Zero):
        out = add_tangents(out, P.dot_general_p.bind(a, gb, **params))
    return ans, out


P.jvp_rules[P.dot_general_p] = _dot_general_jvp
P.transpose_rules[P.dot_general_p] = _dot_general_transpose


# -- calls (jit, checkpoint) -------------------------------------------------------------


def _differentiated(params: dict) -> dict:
    """A call's params for its JVP or transpose: a checkpoint is marked differentiated;
    a jit keeps its name (as JAX 0.10's does)."""
    return params if "name" in params else {**params, "differentiated": True}


def _call_jvp(prim):
    def rule(primals, tangents, *, jaxpr, **params):
        nonzero = [not isinstance(t, Zero) for t in tangents]
        out_avals = jaxpr.out_avals
        differentiable = [is_differentiable(a) for a in out_avals]
        n = len(primals)

        def jvp_call(*args):
            it = iter(args[n:])
            ts = [next(it) if nz else Zero(tangent_aval(aval_of(p)))
                  for p, nz in zip(args[:n], nonzero)]
            p_out, t_out = jvp_flat(lambda *xs: eval_jaxpr(jaxpr.jaxpr, jaxpr.consts, xs),
                                    args[:n], ts)
            return p_out + [instantiate(t, tangent_aval(a))
                            for t, a, d in zip(t_out, out_avals, differentiable) if d]

        args = list(primals) + [t for t, nz in zip(tangents, nonzero) if nz]
        outs = call_staged(jvp_call, args, prim, **_differentiated(params))
        m = len(out_avals)
        it = iter(outs[m:])
        return outs[:m], [next(it) if d else Zero(tangent_aval(a))
                          for a, d in zip(out_avals, differentiable)]

    return rule


def _call_transpose(prim):
    def rule(cts, *invals, jaxpr, **params):
        undefined = [is_undefined(x) for x in invals]
        defined = [x for x in invals if not is_undefined(x)]
        k = len(defined)

        def transposed_call(*args):
            it = iter(args[:k])
            full = [x if u else next(it) for x, u in zip(invals, undefined)]
            cts_in = backward_pass(jaxpr.jaxpr, jaxpr.consts, full, list(args[k:]))
            return [instantiate(c, x.aval) for c, x, u in zip(cts_in, invals, undefined) if u]

        ct_values = [instantiate(ct) for ct in cts]
        outs = iter(call_staged(transposed_call, defined + ct_values, prim,
                                **_differentiated(params)))
        return [next(outs) if u else None for u in undefined]

    return rule


for _call in (P.jit_p, P.remat_p):
    P.jvp_rules[_call] = _call_jvp(_call)
    P.transpose_rules[_call] = _call_transpose(_call)


# The primal keeps its name; the tangent is not named (as in JAX), so policies see
# names on the primal side only.
P.jvp_rules[P.name_p] = lambda primals, tangents, *, name: (P.name_p.bind(primals[0], name=name),
                                                           tangents[0])


# -- collectives -----------------------------------------------------------------------------

def _psum_transpose(ct, x, *, axes, axis_index_groups):
    """As JAX's: positional axes broadcast back, then a psum over the named ones (a
    psum is a psum and a broadcast to every member: its transpose sums again), which
    is bound even when there are none."""
    positional = tuple(a for a in axes if isinstance(a, int))
    if positional:
        shape = x.aval.shape
        ct = lax.broadcast_in_dim(ct, shape, tuple(i for i in range(len(shape)) if i not in positional))
    named = tuple(a for a in axes if not isinstance(a, int))
    return [P.psum_p.bind(ct, axes=named, axis_index_groups=axis_index_groups)]


deflinear(P.psum_p, _psum_transpose)


def _chosen_member_jvp(prim):
    """pmax/pmin (JAX has no rule): the tangent of the chosen members, averaged over
    ties."""
    def rule(primals, tangents, *, axes, axis_index_groups):
        (x,), (g,) = primals, tangents
        params = {"axes": axes, "axis_index_groups": axis_index_groups}
        ans = prim.bind(x, **params)
        if isinstance(g, Zero):
            return ans, Zero(tangent_aval(aval_of(ans)))
        shape = aval_of(x).shape
        kept = tuple(i for i in range(len(shape)) if i not in axes)
        chosen = lax.convert_element_type(lax.eq(x, lax.broadcast_in_dim(ans, shape, kept)),
                                          aval_of(g).dtype)
        total = P.psum_p.bind(lax.mul(g, chosen), **params)
        return ans, lax.div(total, P.psum_p.bind(chosen, **params))

    P.jvp_rules[prim] = rule


_chosen_member_jvp(P.pmax_p)
_chosen_member_jvp(P.pmin_p)
defzero(P.axis_index_p)


def _all_gather_transpose(ct, x, *, axis_name, axis_size, all_gather_dimension, tiled):
    """Each member's cotangent is the sum over members of its own piece of theirs (JAX's
    psum_scatter): the piece at its axis index of the psum."""
    k = all_gather_dimension
    sizes = list(aval_of(ct).shape)
    sizes[k] = sizes[k] // axis_size if tiled else 1
    starts = [0] * len(sizes)
    starts[k] = lax.mul(P.axis_index_p.bind(axis_name=axis_name), sizes[k])
    total = P.psum_p.bind(ct, axes=(axis_name,), axis_index_groups=None)
    piece = lax.dynamic_slice(total, starts, sizes)
    return [piece if tiled else lax.squeeze(piece, (k,))]


deflinear(P.all_gather_p, _all_gather_transpose)


def _debug_callback_jvp(primals, tangents, **params):
    """The callback sees the primal values only (JAX's rule); it has no outputs."""
    return P.debug_callback_p.bind(*primals, **params), []


P.jvp_rules[P.debug_callback_p] = _debug_callback_jvp
# Its operands are never linear (its JVP passes primals): no cotangent flows back.
P.transpose_rules[P.debug_callback_p] = lambda ct, *args, **params: [None] * len(args)


# -- float32 scatter maxima and minima at scale -------------------------------------------
# `lax.scatter_max` / `scatter_min` of many float32 pairs go through the int32 scatter-max
# of order keys (lax/slicing.py), which has no derivative of its own: this custom JVP
# gives them JAX's.

def _float_extremum_jvp(combine: str, primals, tangents):
    """JAX's tangent of a scatter max or min: a position's tangent is the average of the
    tangents of the values that equal its result (the operand's and the updates'); over
    flat targets, with the scatter routine's adds."""
    operand, targets, updates = primals
    d_operand, _, d_updates = tangents
    out = _float_extremum(combine, operand, targets, updates)
    size = aval_of(operand).size
    zeros, ones = lax.full((size,), 0.0, dt.float32), lax.full_like(updates, 1.0)

    def counted(values):  # at each update's target, the sum of `values` landing there
        return slicing.at_targets(bind(P.scatter_add_flat_p, zeros, targets, values), targets)

    won = lax.eq(updates, slicing.at_targets(out, targets))
    kept = lax.eq(slicing.at_targets(operand, targets), slicing.at_targets(out, targets))
    winners = counted(lax.select(won, ones, lax.full_like(updates, 0.0)))
    share = lax.div(ones, lax.select(kept, lax.add(winners, ones), winners))
    update_coef = lax.select(won, share, lax.full_like(updates, 0.0))
    operand_coef = lax.div(lax.sub(lax.select(kept, share, lax.full_like(updates, 0.0)), ones), counted(ones))
    moved = lax.add(lax.mul(slicing.at_targets(d_operand, targets), operand_coef),
                    lax.mul(d_updates, update_coef))
    tangent = bind(P.scatter_add_flat_p, lax.reshape(d_operand, (size,)), targets, moved)
    return out, lax.reshape(tangent, aval_of(operand).shape)


_float_extremum = custom_jvp(slicing.extremum_by_keys, nondiff_argnums=(0,))
_float_extremum.defjvp(_float_extremum_jvp)
slicing.FLOAT_EXTREMUM["fn"] = _float_extremum


# -- Fourier transforms ------------------------------------------------------------------------


deflinear(fft_p, fft_transpose)


# -- sorting -----------------------------------------------------------------------------------


def _sort_jvp(primals, tangents, *, dimension, is_stable, num_keys):
    """JAX's: an iota sorted along with the operands says where each output came from,
    and each tangent is taken from there (a permutation: its transpose is the gather
    of the inverse permutation, not a scatter)."""
    shape = aval_of(primals[0]).shape
    *outs, perm = sort_p.bind(*primals, lax.broadcasted_iota(np.uint32, shape, dimension),
                              dimension=dimension, is_stable=is_stable, num_keys=num_keys)
    return outs, [t if isinstance(t, Zero) else permute(t, perm, dimension) for t in tangents]


P.jvp_rules[sort_p] = _sort_jvp


def _top_k_jvp(primals, tangents, *, k, axis):
    """JAX's: each tangent taken where its value came from."""
    values, indices = top_k_p.bind(*primals, k=k, axis=axis)
    (t,) = tangents
    shape = aval_of(indices).shape
    if isinstance(t, Zero):
        taken = Zero(tangent_aval(aval_of(values)))
    else:
        taken = lax.gather(t, lax.reshape(indices, (*shape, 1)), take_along(len(shape), axis),
                           (1,) * len(shape), mode=lax.GatherScatterMode.PROMISE_IN_BOUNDS)
    return [values, indices], [taken, Zero(tangent_aval(aval_of(indices)))]


P.jvp_rules[top_k_p] = _top_k_jvp
