"""Small integers computed in 32 bits, for devices whose shaders have no narrower ones.

WGSL has no 8- or 16-bit integers. A backend without them stores each int8, uint8, int16
or uint16 element in the 32-bit integer of the same signedness (`dtypes.WIDENED`), holding
the element's value (sign- or zero-extended), and runs kernels rewritten by
`widen_kernel`: every node of a small dtype becomes the same op on the 32-bit type, and
where the 32-bit result may leave the small type's range it is wrapped back to it (the
low bits kept, then sign- or zero-extended: `(x << 24) >> 24` for int8, `x & 255` for
uint8). Wrapping commutes with `+`, `-`, `*` and left shifts, so the results are the
small type's own, bit for bit, as `alu_eval` computes them in NumPy's narrow types.

A wrap is left out where the result cannot leave the range: ops that map in-range
operands to in-range results (`min`, `max`, bitwise ops, `%`, right shifts, selects),
unsigned division, signed division by a divisor that cannot be -1, and any node whose
32-bit range (`AluExp.range`) fits the small type.

>>> from jaxwg.core import alu, dtypes as dt
>>> x = alu.load(0, dt.uint8, alu.gidx(4))
>>> widen(x + 1)
((in0[gidx] + 1u) & 255u)
>>> widen(x // 2)
(in0[gidx] // 2u)
"""

from __future__ import annotations

from . import alu
from . import dtypes as dt
from .alu import AluExp, Op
from .kernel import ACC_NAME, Kernel, Reduction

# Ops whose result lies in the small type's range whenever their operands do: bitwise ops
# of sign-extended values are sign-extended, and so on.
_CLOSED = frozenset({Op.MIN, Op.MAX, Op.AND, Op.OR, Op.XOR, Op.MOD, Op.SHR, Op.WHERE})


def wrap(x: AluExp, dtype: dt.DType) -> AluExp:
    """The 32-bit integer `x` wrapped into the range of the small integer `dtype`: its
    low `dtype.bits` bits, sign-extended for signed types.

    >>> wrap(alu.load(0, dt.int32, alu.gidx(4)), dt.int8)
    ((in0[gidx] << 24) >> 24)
    """
    if dtype.is_unsigned:
        return x & alu.const(x.dtype, (1 << dtype.bits) - 1)
    shift = alu.const(x.dtype, 32 - dtype.bits)
    return alu.binary(Op.SHR, alu.binary(Op.SHL, x, shift), shift)


def _fits(node: AluExp, dtype: dt.DType) -> bool:
    lo, hi = dt.bounds(dtype)
    return lo <= node.range[0] and node.range[1] <= hi


def _stays_in_range(op: Op, dtype: dt.DType, wide: AluExp) -> bool:
    """Whether the 32-bit `wide` (op `op` on in-range operands) is in `dtype`'s range."""
    if op in _CLOSED or _fits(wide, dtype):
        return True
    if op is Op.IDIV:  # |x // y| <= |x|, except min // -1 = -min
        lo, hi = wide.src[1].range
        return dtype.is_unsigned or not lo <= -1 <= hi
    return False


def _wrapped(op: Op, dtype: dt.DType, wide: AluExp) -> AluExp:
    return wide if _stays_in_range(op, dtype, wide) else wrap(wide, dtype)


def _clamp(x: AluExp, dtype: dt.DType) -> AluExp:
    """The 32-bit integer `x` saturated to the bounds of the small integer `dtype`."""
    lo, hi = dt.bounds(dtype)
    if lo > dt.bounds(x.dtype)[0]:
        x = alu.binary(Op.MAX, x, alu.const(x.dtype, lo))
    return alu.binary(Op.MIN, x, alu.const(x.dtype, hi))


def _from_float(x: AluExp, dtype: dt.DType) -> AluExp:
    """Float to a small integer: truncated and saturated to `dtype`'s bounds (NaN to 0).
    The 32-bit conversion saturates at the 32-bit bounds, then the integer is clamped:
    float16 cannot hold the bound 32767 exactly, so clamping the float could overshoot."""
    return _clamp(alu.cast(dt.WIDENED[dtype], x), dtype)


def _cast_to_small(node: AluExp, x: AluExp) -> AluExp:
    """`node` (a cast to a small integer) of the widened operand `x`."""
    source, dtype = node.src[0].dtype, node.dtype
    if source.is_float:
        return _from_float(x, dtype)
    wide = alu.cast(dt.WIDENED[dtype], x)
    slo, shi = dt.bounds(source)
    lo, hi = dt.bounds(dtype)
    return wide if lo <= slo and shi <= hi else wrap(wide, dtype)


def _bitcast_to_small(node: AluExp, x: AluExp) -> AluExp:
    """`node` (a bitcast to a small integer) of the widened operand `x`: the float16 bits
    of `x` zero-extended (`alu.bitcast` of float16 to a 32-bit integer) or the 32-bit
    integer's bits, wrapped to the small type (sign-extended for int16)."""
    wide = alu.bitcast(dt.WIDENED[node.dtype], x)
    if node.dtype is dt.uint16 and x.dtype is dt.float16:
        return wide  # zero-extended already
    return wrap(wide, node.dtype)


def _widen_small(node: AluExp, src: tuple[AluExp, ...]) -> AluExp:
    """The 32-bit form of `node`, a node of a small dtype, given its sources' forms."""
    op, dtype = node.op, node.dtype
    wide_dtype = dt.WIDENED[dtype]
    if op is Op.CONST:
        return alu.const(wide_dtype, node.arg)
    if op is Op.LOAD:
        return alu.load(node.arg, wide_dtype, src[0])
    if op is Op.VARIABLE:
        return alu.variable(wide_dtype, node.arg)
    if op is Op.CAST:
        return _cast_to_small(node, src[0])
    if op is Op.BITCAST:
        return _bitcast_to_small(node, src[0])
    if op is Op.WHERE:
        return alu.where(*src)
    if op in (Op.SHL, Op.SHR):  # the amount is taken modulo the small width, not 32
        amount = src[1] & alu.const(wide_dtype, dtype.bits - 1)
        return _wrapped(op, dtype, alu.binary(op, src[0], amount))
    if op in alu.BINARY:
        return _wrapped(op, dtype, alu.binary(op, *src))
    if op in alu.UNARY:
        return _wrapped(op, dtype, alu.unary(op, src[0]))
    raise NotImplementedError(f"{op.value} of {dtype} has no 32-bit form")


def _rebuild(node: AluExp, src: tuple[AluExp, ...]) -> AluExp:
    """A node of another dtype over widened sources: comparisons, conversions."""
    if node.op in alu.COMPARE:
        return alu.compare(node.op, *src)
    if node.op is Op.CAST:
        return alu.cast(node.dtype, src[0])  # the 32-bit value is the small one
    if node.op is Op.BITCAST:  # int16/uint16 to float16: the low 16 bits
        return alu.bitcast(node.dtype, src[0])
    return AluExp(node.op, node.dtype, src, node.arg)


def widen(exp: AluExp, bound: dict[AluExp, AluExp] | None = None) -> AluExp:
    """`exp` with every small-integer node computed in 32 bits (see the module doc);
    `bound` replaces given (original) variables by expressions of the result.

    >>> x = alu.load(0, dt.int8, alu.gidx(4))
    >>> widen(alu.cast(dt.float32, x * x))
    cast<float32>((((in0[gidx] * in0[gidx]) << 24) >> 24))
    """
    done: dict[AluExp, AluExp] = {}
    for node in exp.toposort():
        if bound and node in bound:
            done[node] = bound[node]
            continue
        src = tuple(done[s] for s in node.src)
        if node.dtype in dt.WIDENED:
            done[node] = _widen_small(node, src)
        elif src != node.src:
            done[node] = _rebuild(node, src)
        else:
            done[node] = node
    return done[exp]


def _finish_reduction(red: Reduction, acc: AluExp) -> AluExp:
    """The reduced 32-bit `acc` in the small type's range: sums and products wrap once at
    the end (wrapping commutes with them); a min or max of in-range terms is in range
    unless the row was empty, where the 32-bit identity is clamped to the small one."""
    return wrap(acc, red.dtype) if red.op in (Op.ADD, Op.MUL) else _clamp(acc, red.dtype)


def widen_kernel(kernel: Kernel) -> Kernel:
    """`kernel` computing its small integers in 32 bits (itself if it has none); its
    inputs and output hold small integers as their 32-bit values.

    >>> x = alu.load(0, dt.uint8, alu.gidx(2) * 3 + alu.ridx(3))
    >>> k = widen_kernel(Kernel(1, 2, x, Reduction(Op.ADD, dt.uint8, 3)))
    >>> k.dtype, k.reduction.epilogue
    (uint32, (acc & 255u))
    """
    if not any(d in dt.WIDENED for d in kernel.dtypes()):
        return kernel
    if kernel.stages:  # frontend/rows.py leaves small integers out of row stages
        raise NotImplementedError("widen_kernel: kernels with row stages of small integers")
    exp = widen(kernel.exp)
    red = kernel.reduction
    if red is None:
        return Kernel(kernel.nargs, kernel.size, exp)
    acc = alu.variable(exp.dtype, ACC_NAME)
    if red.dtype in dt.WIDENED:
        acc = _finish_reduction(red, acc)
    epilogue = widen(red.epilogue, {red.acc: acc})
    return Kernel(kernel.nargs, kernel.size, exp, Reduction(red.op, exp.dtype, red.size, epilogue))
