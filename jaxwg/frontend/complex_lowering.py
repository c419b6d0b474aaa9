"""Complex arrays as pairs of real ones.

Kernels have no complex dtype. A complex64 (complex128) array is stored as NumPy
stores it, float32 (float64) pairs, real part first: its lazy node has the array's
shape plus a trailing axis of 2 and the part's dtype (`storage`). Its aval keeps the
complex dtype, so jaxprs, promotion and transformations see complex values.

`lower` is how every primitive application reaches the lowering rules. One with a
complex operand or result goes through `complex_rules` instead: the rule gets each
complex operand as its real and imaginary parts (`parts`: views of the pair axis, or
the parts themselves while the pair is still pending, so that chains of complex ops
fuse as real ones), computes the result's parts with real primitives' rules, and packs
them into a pair (`pack`). Three kinds of rules cover the primitives:

* movement, selection and linear ops (`reshape`, `slice`, `gather`, `add`,
  `reduce_sum`, ...) apply the real rule to each part (`_per_part`);
* elementwise math is written over the parts' element expressions (`PAIR_RULES`),
  from the real element rules (so `exp(z)` uses the same accurate `exp` and `sin`);
* `dot_general` is four real products;
* `reduce_prod`, `reduce_max` and `reduce_min` combine halves of the reduced elements
  until one is left (`_halving`): a kernel's reduction holds one float, not a pair.

Complex numbers order lexicographically (real part first), as XLA's `max` and `min`.

Typed PRNG keys (dtype `key<fry>`) are stored the same way, as each key's two uint32
words (`dt.PAIRED`), and the movement and selection ops move them by the same rules,
word by word; the key primitives (`jaxwg.lax.prng`) take the pairs as they are.

>>> import jaxwg.numpy as jnp
>>> z = jnp.array([1 + 2j, 3 - 1j], dtype=jnp.complex64)
>>> (z * z).tolist()
[(-3+4j), (8-6j)]
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from ..core import alu
from ..core import dtypes as dt
from ..core.alu import AluExp
from . import primitives as P
from .aval import ShapedArray
from .lazy import CONCAT, CONST, Concat, LazyNode
from .lowering import (ELEMENT_RULES, broadcast_operands, elementwise, full, is_finite_value, sign_bit,
                       view)
from .primitives import complex_rules, lowering_rules


def storage(aval: ShapedArray) -> tuple[tuple[int, ...], dt.DType]:
    """The shape and dtype of the node that holds an array of `aval`.

    >>> storage(ShapedArray((3,), dt.complex64)), storage(ShapedArray((), dt.key_fry))
    (((3, 2), float32), ((2,), uint32))
    """
    if aval.dtype in dt.PAIRED:
        return (*aval.shape, 2), dt.PAIRED[aval.dtype]
    return aval.shape, aval.dtype


def scalar_node(value, dtype: dt.DType) -> LazyNode:
    """A rank-0 constant's node (a pair of constants for a complex dtype)."""
    if not dtype.is_complex:
        return LazyNode.const(value, dtype)
    part = dt.PART[dtype]
    value = complex(value)
    return pack(LazyNode.const(value.real, part), LazyNode.const(value.imag, part))


def const_value(node: LazyNode):
    """The scalar a rank-0 constant's node holds (a Python complex for a pair of
    constants), or None if it is not one."""
    if node.kind == CONST and not node.shape:
        return node.arg
    if node.kind == CONCAT and isinstance(node.arg, Pack) and not node.arg.parts[0].shape:
        re, im = (const_value(p) for p in node.arg.parts)
        if re is not None and im is not None:
            return complex(re, im)
    return None


@dataclass(frozen=True)
class Pack(Concat):
    """The CONCAT that pairs a complex value's parts; `parts` lets later complex ops
    use them directly while the pair is pending."""

    parts: tuple = field(default=(), compare=False)


def pack(re: LazyNode, im: LazyNode) -> LazyNode:
    """The pair node of a complex value from its parts' nodes (one shape, one dtype)."""
    shape = re.shape
    halves = [view(p, lambda t: t.reshape((*shape, 1))) for p in (re, im)]
    return LazyNode(CONCAT, (*shape, 2), re.dtype, halves, Pack(len(shape), (re, im)))


def parts(node: LazyNode) -> tuple[LazyNode, LazyNode]:
    """The real and imaginary parts of a complex value's pair node."""
    if node.kind == CONCAT and isinstance(node.arg, Pack):
        return node.arg.parts
    shape = node.shape[:-1]
    ends = [tuple((0, d) for d in shape) + ((k, k + 1),) for k in (0, 1)]
    return tuple(view(node, lambda t, e=e: t.shrink(e).reshape(shape)) for e in ends)


def _real(aval: ShapedArray) -> ShapedArray:
    """The aval of a complex aval's parts, or of a key's words (others as they are)."""
    dtype = dt.PAIRED.get(aval.dtype, aval.dtype)
    return ShapedArray(aval.shape, dtype, aval.weak_type)


# -- dispatch --------------------------------------------------------------------------------

# Primitives whose own rules take pair nodes as they are: they lower jaxprs (whose
# equations come back through `lower`) or pass values through.
STORAGE_RULES = {P.cond_p, P.while_p, P.scan_p, P.stop_gradient_p, P.name_p,
                 P.custom_lin_p, P.custom_linear_solve_p, *P.CALLED_JAXPR}


def lower(prim, out_aval, in_avals, nodes, params):
    """The nodes of `prim` applied to `nodes` (of avals `in_avals`): its lowering rule,
    or its complex rule where an operand or result is complex."""
    out_avals = out_aval if prim.multiple_results else [out_aval]
    if prim in STORAGE_RULES or not any(a.dtype in dt.PAIRED for a in (*in_avals, *out_avals)):
        return lowering_rules[prim](out_aval, *nodes, **params)
    rule = complex_rules.get(prim)
    if rule is None:
        names = ", ".join(a.dtype.name for a in in_avals)
        what = "key arrays" if any(a.dtype.is_key for a in in_avals) else "complex numbers"
        raise TypeError(f"{prim.name} does not support {what} in jaxwg (operand dtypes: {names})")
    return rule(out_aval, in_avals, *nodes, **params)


def _operand_parts(in_avals, nodes) -> list:
    """Each operand as (re, im) nodes if complex (its two words if keys), else as its node."""
    return [parts(n) if a.dtype in dt.PAIRED else n for a, n in zip(in_avals, nodes)]


# -- rules that apply the real rule to each part ----------------------------------------------


def _per_part(prim):
    def rule(out_aval, in_avals, *nodes, **params):
        operands = _operand_parts(in_avals, nodes)
        outs = []
        for k in (0, 1):
            args = [o[k] if isinstance(o, tuple) else o for o in operands]
            if prim.multiple_results:
                outs.append(lowering_rules[prim]([_real(a) for a in out_aval], *args, **params))
            else:
                outs.append(lowering_rules[prim](_real(out_aval), *args, **params))
        if prim.multiple_results:
            return [pack(re, im) for re, im in zip(*outs)]
        return pack(*outs)

    return rule


for _prim in (P.reshape_p, P.broadcast_in_dim_p, P.transpose_p, P.squeeze_p, P.rev_p, P.slice_p,
              P.pad_p, P.concatenate_p, P.split_p, P.stack_p, P.unstack_p, P.select_n_p, P.gather_p,
              P.scatter_add_flat_p, P.reduce_sum_p, P.cumsum_p, P.copy_p, P.neg_p, P.add_p, P.add_any_p,
              P.sub_p, P.psum_p, P.all_gather_p, P.reduce_precision_p):
    complex_rules[_prim] = _per_part(_prim)


# -- elementwise math on the parts' expressions ----------------------------------------------

Pair = tuple  # (re, im) AluExps


def _f(prim):
    """The real element rule of `prim`."""
    return ELEMENT_RULES[prim]


def _c(x: AluExp, value) -> AluExp:
    return alu.const(x.dtype, value)


def _one(x: AluExp) -> Pair:
    return _c(x, 1), _c(x, 0)


def _mul(a: Pair, b: Pair) -> Pair:
    (ar, ai), (br, bi) = a, b
    return ar * br - ai * bi, ar * bi + ai * br


def _is_inf(x: AluExp) -> AluExp:
    return ~_f(P.abs_p)(x).ne(_c(x, math.inf))


def _is_nan(x: AluExp) -> AluExp:
    return ~is_finite_value(x) & ~_is_inf(x)


def _unit(x: AluExp) -> AluExp:
    """+-1 for an infinite part and +-0 for a finite one, with x's sign (C99's recovery
    of infinite quotients)."""
    one = alu.where(_is_inf(x), _c(x, 1), _c(x, 0))
    return alu.where(sign_bit(x), -one, one)


def _div(a: Pair, b: Pair) -> Pair:
    # Smith's algorithm: scale by the larger part of the divisor, so that |b|^2 neither
    # overflows nor underflows where the quotient is representable.
    (ar, ai), (br, bi) = a, b
    abs_ = _f(P.abs_p)
    wide = abs_(bi).lt(abs_(br)) | ~abs_(br).ne(abs_(bi))
    r = alu.where(wide, bi / br, br / bi)
    d = alu.where(wide, br + bi * r, bi + br * r)
    re = alu.where(wide, ar + ai * r, ar * r + ai) / d
    im = alu.where(wide, ai - ar * r, ai * r - ar) / d
    # Where that gives NaN in both parts for an infinite or zero operand, C99's
    # recovery (as XLA): a finite value over an infinite one is a signed zero, an
    # infinite one over a finite one infinite, and a zero divisor divides each part.
    lost = _is_nan(re) & _is_nan(im)
    finite = is_finite_value(ar) & is_finite_value(ai)
    divisor_finite = is_finite_value(br) & is_finite_value(bi)
    zero, inf = _c(br, 0), _c(br, math.inf)
    ur, ui = _unit(br), _unit(bi)
    vanish = lost & finite & _has_inf(b)
    re = alu.where(vanish, zero * (ar * ur + ai * ui), re)
    im = alu.where(vanish, zero * (ai * ur - ar * ui), im)
    sr, si = _unit(ar), _unit(ai)
    grow = lost & _has_inf(a) & divisor_finite
    re = alu.where(grow, inf * (sr * br + si * bi), re)
    im = alu.where(grow, inf * (si * br - sr * bi), im)
    by_zero = _is_zero(br) & _is_zero(bi)
    return alu.where(by_zero, ar / br, re), alu.where(by_zero, ai / br, im)


def _magnitudes(z: Pair) -> tuple[AluExp, AluExp]:
    """|z| as m and s / m, m and s the larger and smaller part magnitudes (s / m is 0
    where m is 0 or infinite): |z| = m sqrt(1 + (s / m)^2) with no overflow of squares."""
    re, im = (_f(P.abs_p)(p) for p in z)
    m, s = _f(P.max_p)(re, im), _f(P.min_p)(re, im)
    zero = _c(m, 0)
    return m, alu.where(m.ne(zero) & is_finite_value(m), s / m, zero)


def _log_abs(z: Pair) -> AluExp:
    # log |z| = log m + log1p((s / m)^2) / 2: no overflow of |z| either; inf where a
    # part is infinite, even beside a NaN (C99).
    m, ratio = _magnitudes(z)
    out = _f(P.log_p)(m) + _f(P.log1p_p)(ratio * ratio) * _c(m, 0.5)
    return alu.where(_has_inf(z), _c(m, math.inf), out)


def _abs(z: Pair) -> AluExp:
    # m = 0 gives 0, and an infinite part gives inf even beside a NaN.
    m, ratio = _magnitudes(z)
    out = m * _f(P.sqrt_p)(_c(m, 1) + ratio * ratio)
    return alu.where(_has_inf(z), _c(m, math.inf), out)


# -- C99's special values (Annex G, the Array API's): where a formula's products give
# NaN for an infinite or NaN part, the limits it has there.


def _has_inf(z: Pair) -> AluExp:
    return _is_inf(z[0]) | _is_inf(z[1])


def _is_zero(x: AluExp) -> AluExp:
    return ~x.ne(_c(x, 0))


def _infinite_beside_unbounded(z: Pair) -> AluExp:
    """re is +-inf and im is inf or NaN: where the exponential functions' products of
    exp(re) and a trigonometric function of im give NaN for C99's limits."""
    return _is_inf(z[0]) & ~is_finite_value(z[1])


def _where(cond: AluExp, value: Pair, out: Pair) -> Pair:
    return alu.where(cond, value[0], out[0]), alu.where(cond, value[1], out[1])


def _copysign(magnitude: float, x: AluExp) -> AluExp:
    return alu.where(sign_bit(x), _c(x, -magnitude), _c(x, magnitude))


def _times_exp(factor: AluExp, x: AluExp) -> AluExp:
    """factor * exp(x), finite wherever it is: where exp(x) overflows, as
    (factor * exp(x / 2)) * exp(x / 2) (exp(100 + 1e-30i) is 2.7e43 + 2.7e13i)."""
    full = _f(P.exp_p)(x)
    half = _f(P.exp_p)(x * _c(x, 0.5))
    return alu.where(_is_inf(full), factor * half * half, factor * full)


def _hyperbolic_times(value: AluExp, factor: AluExp, re: AluExp, odd: bool) -> AluExp:
    """value * factor for value = sinh(re) (`odd`) or cosh(re), finite wherever it is:
    where value overflows, as +-(factor / 2) exp(|re|) (`_times_exp`)."""
    half_factor = factor * _c(re, 0.5)
    if odd:
        half_factor = alu.where(sign_bit(re), -half_factor, half_factor)
    return alu.where(_is_inf(value), _times_exp(half_factor, _f(P.abs_p)(re)), value * factor)


def _exp(z: Pair) -> Pair:
    re, im = z
    # A real argument keeps a zero imaginary part (exp(inf) is inf + 0i, not inf * 0).
    real_arg = _is_zero(im)
    out = (alu.where(real_arg, _f(P.exp_p)(re), _times_exp(_f(P.cos_p)(im), re)),
           alu.where(real_arg, im, _times_exp(_f(P.sin_p)(im), re)))
    return _at_infinite_exponent(z, out, 0)


def _at_infinite_exponent(z: Pair, out: Pair, below: float) -> Pair:
    """`out` of exp (`below` = 0) or expm1 (-1), with C99's values where re is infinite
    and im is not finite: inf + NaN i for re = +inf, `below` + 0i for re = -inf."""
    re = z[0]
    negative = sign_bit(re)
    value = (alu.where(negative, _c(re, below), _c(re, math.inf)),
             alu.where(negative, _c(re, 0), _c(re, math.nan)))
    return _where(_infinite_beside_unbounded(z), value, out)


def _log(z: Pair) -> Pair:
    re, im = z
    return _log_abs(z), _f(P.atan2_p)(im, re)


def _sqrt(z: Pair) -> Pair:
    # Principal root: t = sqrt((|z| + |re|) / 2); for re >= 0 the root is (t, im / 2t),
    # else (|im| / 2t, copysign(t, im)). No cancellation in either branch.
    re, im = z
    zero = _c(re, 0)
    t = _f(P.sqrt_p)((_abs(z) + _f(P.abs_p)(re)) * _c(re, 0.5))
    half = alu.where(t.ne(zero), im / (t + t), zero)
    signed_t = alu.where(sign_bit(im), -t, t)  # sqrt(-1 - 0i) is -i
    positive = ~re.lt(zero)
    out = (alu.where(positive, t, _f(P.abs_p)(half)), alu.where(positive, half, signed_t))
    return _where(_is_inf(im), (_c(re, math.inf), im), out)  # inf + i im for any re (C99)


def _sin(z: Pair) -> Pair:
    return _over_i(_sinh(_times_i(z)))  # -i sinh(iz), with its special values


def _cos(z: Pair) -> Pair:
    return _cosh(_times_i(z))


def _tanh(z: Pair) -> Pair:
    # tanh(a + bi) = (T (1 + t^2) + i t sech^2 a) / (1 + T^2 t^2), T = tanh a, t = tan b:
    # no cancellation (the sinh 2a / (cosh 2a + cos 2b) form loses digits where
    # cos 2b is near -1), and sech^2 keeps the imaginary part where T^2 rounds to 1.
    re, im = z
    T, t = _f(P.tanh_p)(re), _f(P.tan_p)(im)
    one = _c(re, 1)
    sech = one / _f(P.cosh_p)(re)
    d = one + T * T * t * t
    out = (alu.where(_is_zero(re), re, T * (one + t * t) / d),  # tanh(iy) = i tan(y)
           alu.where(_is_zero(im), im, t * sech * sech / d))  # real on the real axis
    # +-1 + 0i at re = +-inf, whatever im is (tan(im) is NaN for an infinite one).
    return _where(_infinite_beside_unbounded(z), (_copysign(1, re), _c(im, 0)), out)


def _tan(z: Pair) -> Pair:
    # tan(z) = -i tanh(i z)
    re, im = z
    r, i = _tanh((-im, re))
    return i, -r


def _expm1(z: Pair) -> Pair:
    # exp(a) cos(b) - 1 = expm1(a) cos(b) - 2 sin^2(b / 2): no cancellation near 0.
    re, im = z
    s = _f(P.sin_p)(im * _c(im, 0.5))
    grown, cos = _f(P.expm1_p)(re), _f(P.cos_p)(im)
    # where expm1(a) overflows, exp(a) cos(b) may not (the -1 is lost there anyway)
    real = alu.where(_is_inf(grown), _times_exp(cos, re), grown * cos) - _c(re, 2) * s * s
    real_arg = _is_zero(im)
    out = (alu.where(real_arg & _is_zero(re), _c(re, 0), real),  # +0 at -0 + 0i, as exp(z) - 1
           alu.where(real_arg, im, _times_exp(_f(P.sin_p)(im), re)))
    return _at_infinite_exponent(z, out, -1)


def _log1p(z: Pair) -> Pair:
    # Near 0, |1 + z|^2 = 1 + (2a + a^2 + b^2) and log1p of the small part keeps its
    # digits; elsewhere (near -1 above all, where 1 + a is exact) log |1 + z| does.
    re, im = z
    one = _c(re, 1)
    shifted = (one + re, im)
    small = (re * re + im * im).lt(_c(re, 0.25))
    near_zero = _f(P.log1p_p)(re * (_c(re, 2) + re) + im * im) * _c(re, 0.5)
    return alu.where(small, near_zero, _log_abs(shifted)), _f(P.atan2_p)(im, one + re)


def _sinh(z: Pair) -> Pair:
    re, im = z
    sinh, cosh = _f(P.sinh_p)(re), _f(P.cosh_p)(re)
    out = (alu.where(_is_zero(re), re, _hyperbolic_times(sinh, _f(P.cos_p)(im), re, True)),  # sinh(iy) = i sin(y)
           alu.where(_is_zero(im), im, _hyperbolic_times(cosh, _f(P.sin_p)(im), re, False)))  # real on the real axis
    return _where(_infinite_beside_unbounded(z), (re, _c(im, math.nan)), out)


def _cosh(z: Pair) -> Pair:
    re, im = z
    zero = _c(re, 0)
    real = _hyperbolic_times(_f(P.cosh_p)(re), _f(P.cos_p)(im), re, False)
    # cosh(iy) = cos(y) and cosh(x) are real (the zero's sign: sinh(x) sin(y)'s).
    imag = alu.where(_is_zero(im), alu.where(sign_bit(re), -im, im),
                     alu.where(_is_zero(re) & ~is_finite_value(im), zero,
                               _hyperbolic_times(_f(P.sinh_p)(re), _f(P.sin_p)(im), re, True)))
    return _where(_infinite_beside_unbounded(z), (_c(re, math.inf), _c(im, math.nan)), (real, imag))


def _pow(z: Pair, w: Pair) -> Pair:
    # exp(w log z); 0 ** w is 1 for w = 0 and 0 for re(w) > 0 (NaN otherwise, as log 0).
    out = _exp(_mul(w, _log(z)))
    zero = _c(z[0], 0)
    z_zero = _is_zero(z[0]) & _is_zero(z[1])
    w_zero = _is_zero(w[0]) & _is_zero(w[1])
    vanish = z_zero & zero.lt(w[0])
    return (alu.where(w_zero, _c(zero, 1), alu.where(vanish, zero, out[0])),
            alu.where(w_zero | vanish, zero, out[1]))


# The inverse functions by Kahan's formulas ("Branch cuts for complex elementary
# functions", 1987): square roots of 1 -+ z, whose signed zeros pick the side of each
# branch cut, and no cancellation near the branch points.


def _one_minus_plus(z: Pair) -> tuple[Pair, Pair]:
    re, im = z
    one = _c(re, 1)
    return _sqrt((one - re, -im)), _sqrt((one + re, im))


# Where a part is infinite, each takes its limit there (C99's values: log 2z's
# argument and an infinite modulus), which the square roots' products lose.


def _asin(z: Pair) -> Pair:
    re, im = z
    (r1, i1), (r2, i2) = _one_minus_plus(z)
    out = (alu.where(_is_zero(re), re, _f(P.atan2_p)(re, r1 * r2 - i1 * i2)),  # asin(iy) = i asinh(y)
           _f(P.asinh_p)(r1 * i2 - i1 * r2))
    limit = (_f(P.atan2_p)(re, _f(P.abs_p)(im)), _copysign(math.inf, im))
    return _where(_has_inf(z), limit, out)


def _acos(z: Pair) -> Pair:
    re, im = z
    (r1, i1), (r2, i2) = _one_minus_plus(z)
    half_pi = _c(re, math.pi / 2)
    out = (alu.where(_is_zero(re), half_pi, _c(r1, 2) * _f(P.atan2_p)(r1, r2)),
           _f(P.asinh_p)(r2 * i1 - i2 * r1))
    limit = (_f(P.atan2_p)(_f(P.abs_p)(im), re), _copysign(-math.inf, im))
    return _where(_has_inf(z), limit, out)


def _acosh(z: Pair) -> Pair:
    re, im = z
    one = _c(re, 1)
    r1, i1 = _sqrt((re - one, im))
    r2, i2 = _sqrt((re + one, im))
    out = (_f(P.asinh_p)(r1 * r2 + i1 * i2),
           alu.where(_is_zero(re), _copysign(math.pi / 2, im), _c(re, 2) * _f(P.atan2_p)(i1, r2)))
    limit = (_c(re, math.inf), _f(P.atan2_p)(im, re))
    return _where(_has_inf(z), limit, out)


def _times_i(z: Pair) -> Pair:
    return -z[1], z[0]


def _over_i(z: Pair) -> Pair:
    return z[1], -z[0]


def _atanh(z: Pair) -> Pair:
    # (log1p(z) - log1p(-z)) / 2
    re, im = z
    a, b = _log1p(z), _log1p((-re, -im))
    half = _c(re, 0.5)
    out = alu.where(_is_zero(re), re, (a[0] - b[0]) * half), (a[1] - b[1]) * half  # atanh(iy) = i atan(y)
    limit = (_copysign(0, re), alu.where(_is_nan(im), im, _copysign(math.pi / 2, im)))
    return _where(_has_inf(z), limit, out)


def _eq(a: Pair, b: Pair) -> AluExp:
    return ~a[0].ne(b[0]) & ~a[1].ne(b[1])


def _above(a: Pair, b: Pair) -> AluExp:
    """a > b in lexicographic order (real parts first); false where a NaN decides."""
    return b[0].lt(a[0]) | (~a[0].ne(b[0]) & b[1].lt(a[1]))


def _max(a: Pair, b: Pair) -> Pair:
    # XLA's: a where it is above b, else b (so max(NaN, 1) is 1 and max(1, NaN) NaN).
    return _where(_above(a, b), a, b)


def _min(a: Pair, b: Pair) -> Pair:
    return _where(_above(b, a), a, b)


def _integer_pow(z: Pair, y: int) -> Pair:
    # Binary powers, as the real rule: exact for small y, as JAX's.
    result, base, n = None, z, abs(y)
    while n:
        if n & 1:
            result = base if result is None else _mul(result, base)
        n >>= 1
        if n:
            base = _mul(base, base)
    if result is None:
        return _one(z[0])
    return _div(_one(z[0]), result) if y < 0 else result


def _sign(z: Pair) -> Pair:
    m = _abs(z)
    zero = _c(m, 0)
    nonzero = m.ne(zero)
    return tuple(alu.where(nonzero, p / m, zero) for p in z)


def _as_pair(x, dtype: dt.DType) -> Pair:
    """A real operand as the complex value of `dtype` (imaginary part 0)."""
    if isinstance(x, tuple):
        return x
    part = dt.PART[dtype]
    return alu.cast(part, x), alu.const(part, 0)


def _convert(z, new_dtype, weak_type) -> Pair | AluExp:
    if new_dtype.is_complex:
        return tuple(alu.cast(dt.PART[new_dtype], p) for p in _as_pair(z, new_dtype))
    if new_dtype.is_bool:
        zero = _c(z[0], 0)
        return z[0].ne(zero) | z[1].ne(zero)
    return alu.cast(new_dtype, z[0])  # the real part, as NumPy and JAX


def _conj(z, input_dtype) -> Pair:
    re, im = _as_pair(z, dt.COMPLEX_OF.get(input_dtype, input_dtype))
    return re, -im


PAIR_RULES = {
    P.mul_p: _mul,
    P.div_p: _div,
    P.abs_p: _abs,
    P.sign_p: _sign,
    P.exp_p: _exp,
    P.log_p: _log,
    P.sqrt_p: _sqrt,
    P.sin_p: _sin,
    P.cos_p: _cos,
    P.tanh_p: _tanh,
    P.tan_p: _tan,
    P.sinh_p: _sinh,
    P.cosh_p: _cosh,
    P.expm1_p: _expm1,
    P.log1p_p: _log1p,
    P.pow_p: _pow,
    P.asin_p: _asin,
    P.acos_p: _acos,
    P.atan_p: lambda z: _over_i(_atanh(_times_i(z))),
    P.asinh_p: lambda z: _over_i(_asin(_times_i(z))),
    P.acosh_p: _acosh,
    P.atanh_p: _atanh,
    P.rsqrt_p: lambda z: _div(_one(z[0]), _sqrt(z)),
    P.square_p: lambda z: _mul(z, z),
    P.integer_pow_p: _integer_pow,
    P.eq_p: _eq,
    P.max_p: _max,
    P.min_p: _min,
    P.ne_p: lambda a, b: ~_eq(a, b),
    P.convert_element_type_p: _convert,
    P.real_p: lambda z: z[0],
    P.imag_p: lambda z: z[1],
    P.conj_p: _conj,
    P.complex_p: lambda re, im: (re, im),
}


def _pair_rule(fn):
    """A complex rule from `fn` over the operands' element pairs (real operands as
    expressions): a pair result is packed, a real one is one node."""

    def rule(out_aval, in_avals, *nodes, **params):
        flat, spans = [], []
        for aval, operand in zip(in_avals, _operand_parts(in_avals, nodes)):
            pieces = broadcast_operands(operand if isinstance(operand, tuple) else (operand,),
                                        out_aval.shape)
            spans.append((len(flat), len(pieces), aval.dtype.is_complex))
            flat.extend(pieces)

        def result(*exps, k):
            args = [tuple(exps[i:i + n]) if is_complex else exps[i] for i, n, is_complex in spans]
            out = fn(*args, **params)
            return out[k] if k is not None else out

        if out_aval.dtype.is_complex:
            real = _real(out_aval)
            return pack(*(elementwise(result, real, *flat, k=k) for k in (0, 1)))
        return elementwise(result, out_aval, *flat, k=None)

    return rule


for _prim, _fn in PAIR_RULES.items():
    complex_rules[_prim] = _pair_rule(_fn)


# -- products --------------------------------------------------------------------------------


def _dot_general(out_aval, in_avals, a, b, *, dimension_numbers, preferred_element_type):
    # (ar + i ai)(br + i bi): four real products, whose sums fuse as their epilogues.
    (ar, ai), (br, bi) = _operand_parts(in_avals, (a, b))
    real = _real(out_aval)

    def dot(x, y):
        return lowering_rules[P.dot_general_p](real, x, y, dimension_numbers=dimension_numbers,
                                               preferred_element_type=None)

    return pack(lowering_rules[P.sub_p](real, dot(ar, br), dot(ai, bi)),
                lowering_rules[P.add_p](real, dot(ar, bi), dot(ai, br)))


complex_rules[P.dot_general_p] = _dot_general


def _iota(out_aval, in_avals, *, dtype, **params):
    real = _real(out_aval)
    re = lowering_rules[P.iota_p](real, dtype=real.dtype, **params)
    return pack(re, full(real.shape, 0, real.dtype))


complex_rules[P.iota_p] = _iota


def _empty(out_aval, in_avals, *, dtype, memory_space):
    """JAX's `empty2` (a cond branch's unused residual) of a paired dtype: zero parts."""
    real = _real(out_aval)
    return pack(full((), 0, real.dtype), full((), 0, real.dtype))


complex_rules[P.empty_p] = _empty


# -- reductions that combine pairs -----------------------------------------------------------


def _halving(combine, empty):
    """The complex rule of a reduction by `combine` (a PAIR_RULES primitive): the reduced
    elements of each output as one trailing axis, whose halves are combined elementwise
    until one element is left (an odd one out is carried along): log2(n) kernels.
    `empty` is the result of an empty reduction, as XLA's."""

    def rule(out_aval, in_avals, x, *, axes):
        (aval,) = in_avals
        kept = tuple(a for a in range(aval.ndim) if a not in axes)
        m = math.prod(aval.shape[a] for a in axes)

        def rows(n):
            return ShapedArray((*out_aval.shape, n), aval.dtype)

        if m == 0:
            scalar = ShapedArray((), aval.dtype)
            return lower(P.broadcast_in_dim_p, out_aval, [scalar], [scalar_node(empty, aval.dtype)],
                         dict(shape=out_aval.shape, broadcast_dimensions=()))
        perm = (*kept, *axes)
        moved = ShapedArray(tuple(aval.shape[a] for a in perm), aval.dtype)
        x = lower(P.transpose_p, moved, [aval], [x], dict(permutation=perm))
        x = lower(P.reshape_p, rows(m), [moved], [x], dict(new_sizes=rows(m).shape, dimensions=None))
        while m > 1:
            half = m // 2

            def part(start, stop):
                return lower(P.slice_p, rows(stop - start), [rows(m)], [x],
                             dict(start_indices=(0,) * len(kept) + (start,),
                                  limit_indices=(*out_aval.shape, stop), strides=None))

            out = lower(combine, rows(half), [rows(half)] * 2, [part(0, half), part(half, 2 * half)], {})
            if m % 2:
                out = lower(P.concatenate_p, rows(half + 1), [rows(half), rows(1)],
                            [out, part(m - 1, m)], dict(dimension=len(kept)))
            x, m = out, half + m % 2
        return lower(P.reshape_p, out_aval, [rows(1)], [x], dict(new_sizes=out_aval.shape, dimensions=None))

    return rule


complex_rules[P.reduce_prod_p] = _halving(P.mul_p, 1)
complex_rules[P.reduce_max_p] = _halving(P.max_p, complex(-math.inf, 0))
complex_rules[P.reduce_min_p] = _halving(P.min_p, complex(math.inf, 0))
