"""AluExp to WGSL expression text.

`ExpCodegen` turns expression DAGs into WGSL text inside a template. Nodes used more
than once (counted over every expression the template will emit, with
`count_references`) become `let` temporaries, so shared subexpressions such as a
load feeding both branches of a select are computed once; everything else is
inlined. The per-op spelling lives in the `_RENDER` table; rules that WGSL does not
give us for free (NaN-propagating min/max, exact float remainder, saturating casts)
call helpers from `builtins`, which the builder includes on demand. So do float ops
that a shader compiler assuming finite math could fold (`ExpCodegen.fold_hazard`):
they keep NumPy's infinities, NaNs and signed zeros unless built with `fast_math=True`
(the `jaxwg_fast_math` config).

A `where` becomes `select`, which computes both values. Where the condition reads
no input (it tests indices, as concatenation and padding do) and a value reads one
that nothing else needs, the values are computed in the branches of an `if` instead
(`_lazy_branch_nodes`): each thread then reads only the input its element comes from (a
concatenation of six arrays read all six for every element: on lavapipe, 7 ms of a
61 ms training step).

>>> from jaxwg.core import alu, dtypes as dt
>>> from jaxwg.backend.webgpu.builder import WgslBuilder
>>> b = WgslBuilder()
>>> g = ExpCodegen(b, load=lambda arg, index: f"in{arg}[{index}]")
>>> x = alu.load(0, dt.float32, alu.gidx(4))
>>> e = alu.unary(alu.Op.RECIPROCAL, alu.unary(alu.Op.SQRT, x)) + x
>>> g.count_references(e)
>>> g.run(e)
'(inverseSqrt(alu0) + alu0)'
>>> b.lines
['let alu0: f32 = in0[gidx];']
"""

from __future__ import annotations

import math
import struct
from collections.abc import Callable

from ...core import dtypes as dt
from ...core.alu import AluExp, Op, cast
from .builder import WgslBuilder
from .builtins import HELPERS, NATIVE_VARIANTS

WGSL_TYPE = {dt.bool_: "bool", dt.int32: "i32", dt.uint32: "u32",
             dt.float16: "f16", dt.float32: "f32", dt.float64: "f64"}
# bool arrays are stored as 32-bit integers: WGSL has no 1-byte storage type.
STORAGE_TYPE = {**WGSL_TYPE, dt.bool_: "i32"}


class UnsupportedError(NotImplementedError):
    """An op or dtype the WebGPU code generator cannot express on this device."""


def wgsl_type(dtype: dt.DType) -> str:
    return WGSL_TYPE[dtype]


def literal(dtype: dt.DType, value) -> str:
    """A WGSL literal of `dtype` (NaN and infinities through bit patterns).

    >>> literal(dt.float32, 0.5), literal(dt.int32, -2**31), literal(dt.float16, math.inf)
    ('0.5f', 'i32(-2147483647 - 1)', 'f16(bitcast<f32>(0x7f800000u))')
    """
    if dtype.is_bool:
        return "true" if value else "false"
    if dtype is dt.int32:
        return "i32(-2147483647 - 1)" if value == -(2**31) else f"{value}i"
    if dtype is dt.uint32:
        return f"{value}u"
    if math.isnan(value) or math.isinf(value):
        bits = struct.unpack("<I", struct.pack("<f", value))[0]
        f32 = f"bitcast<f32>(0x{bits:08x}u)"
        return f32 if dtype is dt.float32 else f"{WGSL_TYPE[dtype]}({f32})"
    suffix = {dt.float16: "h", dt.float32: "f", dt.float64: "lf"}[dtype]
    return f"{value!r}{suffix}"


def strip_parens(text: str) -> str:
    """Drop one pair of parentheses around the whole text, if they match each other."""
    if not (text.startswith("(") and text.endswith(")")):
        return text
    depth = 0
    for i, ch in enumerate(text):
        depth += ch == "("
        depth -= ch == ")"
        if depth == 0 and i < len(text) - 1:
            return text
    return text[1:-1]


# -- per-op rendering --------------------------------------------------------------------
# Each renderer takes (codegen, node, operand texts) and returns the WGSL text.
Renderer = Callable[["ExpCodegen", AluExp, list[str]], str]


def _infix(symbol: str) -> Renderer:
    return lambda g, n, a: f"({a[0]} {symbol} {a[1]})"


def _call(name: str) -> Renderer:
    return lambda g, n, a: f"{name}({', '.join(strip_parens(x) for x in a)})"


def _math(name: str, native: Renderer | None = None) -> Renderer:
    """Float math by name: the helper `<name>_<type>` where builtins has one, else the
    WGSL builtin `<name>`; float16 computes in float32 (GPUs' half-precision math is
    too coarse: NVIDIA's f16 sin is off by 100 ulp). Non-float operands use `native`."""
    def render(g, n, a):
        t = n.src[0].dtype
        if not t.is_float:
            return native(g, n, a)
        args = [strip_parens(x) for x in a]
        if t is dt.float16:
            return _to_f16(g, _math_call(g, name, 'f32', [f'f32({x})' for x in args]))
        return _math_call(g, name, WGSL_TYPE[t], args)

    return render


def _to_f16(g, f32_text: str) -> str:
    """Round a float32 value to float16 (see `f16_from_f32` in builtins)."""
    g.builder.need("f16_from_f32")
    return f"f16_from_f32({strip_parens(f32_text)})"


def _math_call(g, name: str, ty: str, args: list[str]) -> str:
    helper = f"{name}_{ty}"
    # a variant the adapter computes as accurately (native_math.py), the first it has
    helper = next((v for v in NATIVE_VARIANTS.get(helper, ()) if v in g.native_math), helper)
    if helper in HELPERS:
        g.builder.need(helper)
        name = helper
    return f"{name}({', '.join(args)})"


# -- finite-math folds ---------------------------------------------------------------------
# Shader compilers may assume finite math (WGSL allows it) and fold x - x to 0, x * 0.0
# to 0, x + 0.0 to x, x / x to 1, x + 1 != x to true. Every such fold needs a zero
# constant operand or one value reaching both operands, so only float ops with one of
# those (`fold_hazard`) go through the guards of `builtins`; the others, and all integer
# ops, are emitted as written. float16 arithmetic arrives here as float32 (see
# `_F16_VIA_F32`); float64 has guards of its own (`<guard>_f64`).
SAME, ZERO, SHARED = "same", "zero", "shared"


def _zero_operand(n: AluExp) -> int | None:
    """The index of an operand that is a float constant +-0.0, if any."""
    return next((i for i, s in enumerate(n.src) if s.op is Op.CONST and s.arg == 0), None)


def _is_negative_zero(node: AluExp) -> bool:
    return math.copysign(1, node.arg) < 0


def _guard(g, guard: str, dtype: dt.DType, *args: str) -> str:
    """A call of builtins' `<guard>_f32` (float16 and float32 operands) or `<guard>_f64`."""
    helper = f"{guard}_{'f64' if dtype is dt.float64 else 'f32'}"
    g.builder.need(helper)
    return f"{helper}({', '.join(strip_parens(x) for x in args)})"


def _add(g, n, a):
    if n.dtype.is_bool:
        return f"({a[0]} | {a[1]})"
    hazard = g.fold_hazard(n)
    if hazard == ZERO:  # x + 0.0 keeps x but turns -0.0 into +0.0; x + -0.0 is x
        i = _zero_operand(n)
        return a[1 - i] if _is_negative_zero(n.src[i]) else _guard(g, "add_zero", n.dtype, a[1 - i])
    if hazard == SHARED:
        return _guard(g, "add_ieee", n.dtype, *a)
    return f"({a[0]} + {a[1]})"  # x + x is 2x, exact for every x


def _sub(g, n, a):
    hazard = g.fold_hazard(n)
    if hazard == SAME:  # x - x: NaN for inf and NaN
        return _guard(g, "sub_self", n.dtype, a[0])
    if hazard == ZERO and _zero_operand(n) == 1:  # x - 0.0 is x; x - -0.0 is x + 0.0
        return _guard(g, "add_zero", n.dtype, a[0]) if _is_negative_zero(n.src[1]) else a[0]
    if hazard is not None:  # 0.0 - x, or shared operands
        return _guard(g, "sub_ieee", n.dtype, *a)
    return f"({a[0]} - {a[1]})"


def _mul(g, n, a):
    if n.dtype.is_bool:
        return f"({a[0]} & {a[1]})"
    hazard = g.fold_hazard(n)
    if hazard == ZERO:  # x * 0.0: NaN for inf and NaN, signed zero otherwise
        i = _zero_operand(n)
        return _guard(g, "mul_zero", n.dtype, a[1 - i], str(_is_negative_zero(n.src[i])).lower())
    if hazard == SHARED:
        return _guard(g, "mul_ieee", n.dtype, *a)
    return f"({a[0]} * {a[1]})"  # x * x is exact for every x


def _needs_divisor_guard(n: AluExp) -> bool:
    """WGSL defines x / 0 = x and x % 0 = 0, but the OpenGL backend returns 0 for both,
    and INT_MIN / -1 traps on some hardware: divisors that may be 0 (or int32 -1) are
    guarded. A constant divisor other than those needs nothing."""
    divisor = n.src[1]
    return not (divisor.op is Op.CONST and divisor.arg not in (0, -1))


def _safe_divisor(n: AluExp, b: str) -> str:
    """The divisor `b` with 0 (and int32 -1) replaced by 1."""
    bad = f"{b} == {literal(n.dtype, 0)}" + (f" || {b} == -1i" if n.dtype is dt.int32 else "")
    return f"select({strip_parens(b)}, {literal(n.dtype, 1)}, {bad})"


def _int_idiv(g, n, a):
    if not _needs_divisor_guard(n):
        return f"({a[0]} / {a[1]})"
    x, y = g.name(n.src[0], a[0]), g.name(n.src[1], a[1])
    quotient = f"({x} / {_safe_divisor(n, y)})"
    if n.dtype is dt.int32:  # x / -1 = -x (wrapping), x / 0 = x
        quotient = f"select({quotient}, (0i - {x}), {y} == -1i)"
    return f"select({strip_parens(quotient)}, {x}, {y} == {literal(n.dtype, 0)})"


def _int_mod(g, n, a):
    x, divisor = n.src
    guard = _needs_divisor_guard(n)
    if n.dtype is dt.uint32 or (x.range[0] >= 0 and not guard and divisor.arg > 0):
        # x % 1 = 0 gives WGSL's x % 0 = 0 (and avoids INT_MIN % -1).
        return f"({a[0]} % {_safe_divisor(n, a[1]) if guard else a[1]})"
    # A possibly negative int32 dividend: OpenGL's % does not truncate, so spell it out.
    xs, ys = g.name(x, a[0]), g.name(divisor, a[1])
    d = g.name(divisor, _safe_divisor(n, ys)) if guard else ys
    return f"({xs} - ({xs} / {d}) * {d})"


def _in_float32(g, n: AluExp, a: list[str], render: Callable[[list[str]], str]) -> str:
    """`render` applied to the operands as float32, the result rounded back to float16
    if `n` is float16."""
    if n.src[0].dtype is not dt.float16:
        return render(a)
    text = render([f"f32({strip_parens(x)})" for x in a])
    return _to_f16(g, text) if n.dtype is dt.float16 else text


def _div(g, n, a):
    """Float division (`div_f32` guards huge divisors; see builtins); float64 native."""
    hazard = g.fold_hazard(n)
    if hazard is None:
        return f"({a[0]} / {a[1]})" if n.dtype is dt.float64 else _math("div")(g, n, a)
    # x / x is 1 or NaN; a zero constant or shared operands need the full guard
    return _in_float32(g, n, a, lambda x: _guard(g, "div_self", n.dtype, x[0]) if hazard == SAME
                       else _guard(g, "div_ieee", n.dtype, *x))


def _idiv(g, n, a):
    """Truncating division; floats through `div_trunc_f32`, exact for integer quotients."""
    if not n.dtype.is_float:
        return _int_idiv(g, n, a)
    if n.dtype is dt.float16:  # rounds the quotient to float16 before truncating
        return f"trunc({strip_parens(_div(g, n, a))})"
    hazard = g.fold_hazard(n)
    if hazard == SAME:
        return _guard(g, "div_self", n.dtype, a[0])
    if hazard:
        return _guard(g, "div_trunc_ieee", n.dtype, *a)
    if n.dtype is dt.float64:
        return _math_call(g, "trunc", "f64", [f"{a[0]} / {a[1]}"])
    return _math("div_trunc")(g, n, a)


def _minmax(name: str) -> Renderer:
    bool_op = "&" if name == "min" else "|"

    def render(g, n, a):
        if n.dtype.is_bool:
            return f"({a[0]} {bool_op} {a[1]})"
        return _math(f"f{name}", _call(name))(g, n, a)

    return render


def _xor(g, n, a):
    return f"({a[0]} != {a[1]})" if n.dtype.is_bool else f"({a[0]} ^ {a[1]})"


def _shift(symbol: str) -> Renderer:
    # WGSL wants a u32 shift amount below the bit width; jaxwg takes it modulo 32.
    return lambda g, n, a: f"({a[0]} {symbol} (u32({strip_parens(a[1])}) & 31u))"


def _cmplt(g, n, a):
    if n.src[0].dtype.is_bool:
        return f"(i32({strip_parens(a[0])}) < i32({strip_parens(a[1])}))"
    hazard = g.fold_hazard(n)
    if hazard == SAME:
        return "false"
    return _guard(g, "lt_ieee", n.src[0].dtype, *a) if hazard == SHARED else f"({a[0]} < {a[1]})"


def _neg(g, n, a):
    return f"(0u - {a[0]})" if n.dtype is dt.uint32 else f"(-{a[0]})"


def _not(g, n, a):
    return f"(!{a[0]})" if n.dtype.is_bool else f"(~{a[0]})"


def _abs(g, n, a):
    return a[0] if n.dtype is dt.uint32 else f"abs({strip_parens(a[0])})"


def _reciprocal(g, n, a):
    return f"({literal(n.dtype, 1.0)} / {a[0]})"


def _not_equal(g, dtype: dt.DType, a: str, b: str) -> str:
    """a != b, true when either float is NaN."""
    if not dtype.is_float:
        return f"({a} != {b})"
    name = f"fne_{WGSL_TYPE[dtype]}"
    g.builder.need(name)
    return f"{name}({strip_parens(a)}, {strip_parens(b)})"


def _cmpne(g, n, a):
    hazard = g.fold_hazard(n)
    if hazard == SAME:  # x != x is isnan(x)
        return _in_float32(g, n, a, lambda x: _guard(g, "isnan", n.src[0].dtype, x[0]))
    if hazard == SHARED:
        return _in_float32(g, n, a, lambda x: _guard(g, "ne_ieee", n.src[0].dtype, *x))
    return _not_equal(g, n.src[0].dtype, a[0], a[1])


def _cast(g, n, a):
    src, dst = n.src[0].dtype, n.dtype
    x = strip_parens(a[0])
    if dst.is_bool:
        return _not_equal(g, src, a[0], literal(src, 0))
    if dst is dt.float16 and src is not dt.float16:
        return _to_f16(g, x if src is dt.float32 else f"f32({x})")
    if src.is_float and dst.is_int:
        via = "f64" if src is dt.float64 else "f32"
        helper = f"{via}_to_{WGSL_TYPE[dst]}"
        g.builder.need(helper)
        return f"{helper}({x})" if src is not dt.float16 else f"{helper}(f32({x}))"
    return f"{WGSL_TYPE[dst]}({x})"


def _bitcast(g, n, a):
    src, dst, x = n.src[0].dtype, n.dtype, strip_parens(a[0])
    # float16 and a 32-bit integer's low half (alu.bitcast). Naga cannot bitcast vec2<f16>;
    # the pack builtins convert through float32, which is exact for every float16.
    if src is dt.float16 and dst is not dt.float16:
        bits = f"pack2x16float(vec2<f32>(f32({x}), 0.0f))"
        return bits if dst is dt.uint32 else f"bitcast<{WGSL_TYPE[dst]}>({bits})"
    if dst is dt.float16 and src is not dt.float16:
        word = x if src is dt.uint32 else f"bitcast<u32>({x})"
        return f"f16(unpack2x16float({word}).x)"
    return f"bitcast<{WGSL_TYPE[dst]}>({x})"


def _where(g, n, a):
    return f"select({strip_parens(a[2])}, {strip_parens(a[1])}, {strip_parens(a[0])})"


_RENDER: dict[Op, Renderer] = {
    Op.ADD: _add,
    Op.SUB: _sub,
    Op.MUL: _mul,
    Op.DIV: _div,
    Op.IDIV: _idiv,
    Op.MOD: _math("fmod", _int_mod),
    Op.MIN: _minmax("min"),
    Op.MAX: _minmax("max"),
    Op.ATAN2: _math("atan2"),
    Op.POW: _math("pow"),
    Op.AND: _infix("&"),
    Op.OR: _infix("|"),
    Op.XOR: _xor,
    Op.SHL: _shift("<<"),
    Op.SHR: _shift(">>"),
    Op.CMPLT: _cmplt,
    Op.CMPNE: _cmpne,
    Op.NEG: _neg,
    Op.NOT: _not,
    Op.ABS: _abs,
    Op.EXP: _math("exp"),
    Op.EXP2: _math("exp2"),
    Op.LOG: _math("log"),
    Op.LOG2: _math("log2"),
    Op.SIN: _math("sin"),
    Op.COS: _math("cos"),
    Op.TAN: _math("tan"),
    Op.ASIN: _math("asin"),
    Op.ACOS: _math("acos"),
    Op.ATAN: _math("atan"),
    Op.TANH: _math("tanh"),
    Op.SQRT: _math("sqrt"),
    Op.RECIPROCAL: _reciprocal,
    Op.FLOOR: _call("floor"),
    Op.CEIL: _call("ceil"),
    Op.ROUND: _math("round"),
    Op.TRUNC: _math("trunc"),
    Op.ERF: _math("erf"),
    Op.ERFC: _math("erfc"),
    Op.CAST: _cast,
    Op.BITCAST: _bitcast,
    Op.FMA: _math("fma"),
    Op.WHERE: _where,
}


# float16 arithmetic computed in float32 and rounded once, which gives the correctly
# rounded float16 result: lavapipe folds the float16 x - x to 0 (NaN for infinities).
_F16_VIA_F32 = frozenset({Op.ADD, Op.SUB, Op.MUL, Op.RECIPROCAL, Op.FLOOR, Op.CEIL, Op.ROUND,
                          Op.TRUNC, Op.CMPLT})

class _Algebra:
    """What a compiler's algebraic rewrites see of float expressions, to tell which ops a
    fold could reach. Reassociation linearizes a sum into terms (through +, -, negation)
    and a product into factors (through *, /, reciprocal, negation), and cancels or
    factors out what two of them have in common; selects distribute over operations, and
    float-to-float conversions are looked through. Every other node (a load, exp(x),
    min(x, y), a sum inside a product) is an atom. Constants in a sum are one atom
    together: compilers fold the constants of a chain into one, so (x + 1) - 1 becomes x
    and a compensated sum `(a + b) - a` with a constant `a` loses its error term; a
    constant factor is no term (x * 2 + 1 folds nothing); |x| and |-x| are one atom.
    `shape(node)` is (the atoms
    among the factors of its terms, the atoms among its factors, whether a division is
    among them), the atom sets as bit sets."""

    _CONSTANT = 1  # the bit of the constants' atom

    def __init__(self):
        self._shapes: dict[AluExp, tuple[int, int, bool]] = {}
        self._atoms: dict[AluExp, int] = {None: 0}  # None: the constants

    def shape(self, node: AluExp) -> tuple[int, int, bool]:
        got = self._shapes.get(node)
        if got is None:
            got = self._shapes[node] = self._shape(node)
        return got

    def _atom(self, node: AluExp) -> tuple[int, int, bool]:
        bit = 1 << self._atoms.setdefault(node, len(self._atoms))
        return bit, bit, False

    def _shape(self, node: AluExp) -> tuple[int, int, bool]:
        op, src = node.op, node.src
        if op is Op.CONST:
            return self._CONSTANT, 0, False
        if not node.dtype.is_float or (op is Op.CAST and not src[0].dtype.is_float):
            return self._atom(node)
        if op in (Op.NEG, Op.CAST):
            return self.shape(src[0])
        if op is Op.ABS:  # |-x| is |x| (and fabs(x) - fabs(-x) folds to 0): one atom
            inner = src[0]
            while inner.op is Op.NEG or (inner.op is Op.CAST and inner.src[0].dtype.is_float):
                inner = inner.src[0]
            return self._atom((Op.ABS, inner))
        if op is Op.WHERE:  # select(c, a, b) op y may become select(c, a op y, b op y)
            (ta, fa, da), (tb, fb, db) = self.shape(src[1]), self.shape(src[2])
            return ta | tb, fa | fb, da or db
        if op in (Op.ADD, Op.SUB):
            return self.shape(src[0])[0] | self.shape(src[1])[0], self._atom(node)[1], False
        if op in (Op.MUL, Op.DIV, Op.RECIPROCAL):
            factors = 0
            divides = op is not Op.MUL
            for s in src:
                _, f, d = self.shape(s)
                factors, divides = factors | f, divides or d
            return factors & ~self._CONSTANT, factors, divides
        return self._atom(node)


class ExpCodegen:
    """Renders AluExp nodes to WGSL inside one scope of a `WgslBuilder`.

    `load(arg, index_text)` spells a read of input `arg` (templates decide how inputs
    are bound); `names` maps special/variable names to WGSL text (default: the name).
    """

    def __init__(self, builder: WgslBuilder, load: Callable[[int, str], str],
                 names: dict[str, str] | None = None, fast_math: bool = False,
                 native_math: frozenset[str] = frozenset()):
        self.builder = builder
        self.native_math = native_math  # the NATIVE_VARIANTS to use where a helper has them
        self.load = load
        self.names = names or {}
        self._refs: dict[AluExp, int] = {}
        self._text: dict[AluExp, str] = {}
        self._threefry: dict[tuple, str] = {}
        self._algebra = _Algebra()
        self.fast_math = fast_math
        # nodes rendered inside a branch of a lazy `where`: node -> that where (innermost)
        self._owner: dict[AluExp, AluExp] = {}

    def count_references(self, exp: AluExp) -> None:
        """Count uses of each node; call once per root before rendering any."""
        self._refs[exp] = self._refs.get(exp, 0) + 1
        for node in exp.toposort():
            for s in node.src:
                self._refs[s] = self._refs.get(s, 0) + 1

    def reset(self) -> None:
        """Forget temporaries, e.g. when leaving the scope they were declared in."""
        self._refs.clear()
        self._text.clear()
        self._threefry.clear()
        self._owner.clear()

    def name(self, node: AluExp, text: str) -> str:
        """`text` as something safe to repeat: itself if a name or literal, else a new `let`."""
        if text.isidentifier() or node.op is Op.CONST:
            return text
        name = self.fresh()
        self.builder.emit(f"let {name}: {WGSL_TYPE[node.dtype]} = {strip_parens(text)};")
        return name

    def fold_hazard(self, node: AluExp) -> str | None:
        """How a compiler assuming finite math could fold the float op `node`: its
        operands are the SAME node, one is a ZERO constant, or a value reaches both in a way
        that algebra can cancel (SHARED: x - (x + 0.0), x * 2 + x * -2, x + 1 != x,
        (x * y) / x; see `_Algebra`). None when no fold applies, or under `jaxwg_fast_math`.

        >>> from jaxwg.core import alu
        >>> g = ExpCodegen(WgslBuilder(), load=lambda arg, index: f"in{arg}[{index}]")
        >>> x = alu.load(0, dt.float32, alu.gidx(4))
        >>> g.fold_hazard(x * 2.0 - x), g.fold_hazard(alu.unary(Op.EXP, x) - x), g.fold_hazard(x * 0.0)
        ('shared', None, 'zero')
        """
        if self.fast_math or not node.src[0].dtype.is_float:
            return None
        a, b = node.src
        if a is b:
            return SAME
        if _zero_operand(node) is not None:
            return ZERO
        (terms_a, factors_a, divides_a), (terms_b, factors_b, divides_b) = map(self._algebra.shape, (a, b))
        if node.op is Op.MUL:  # products only cancel through a division: x * (y / x)
            shared = factors_a & factors_b and (divides_a or divides_b)
        elif node.op in (Op.DIV, Op.IDIV):
            shared = factors_a & factors_b
        else:  # sums and comparisons
            shared = terms_a & terms_b
        return SHARED if shared else None

    def fresh(self, prefix: str = "alu") -> str:
        return self.builder.fresh(prefix)

    def run(self, exp: AluExp) -> str:
        """The WGSL text of `exp`; temporaries it needs are emitted into the builder."""
        order = exp.toposort()
        self._find_lazy_branches(order)
        for node in order:
            if node not in self._text and node not in self._owner:
                self._text[node] = self._render(node)
        return self._text[exp]

    # -- lazy where --------------------------------------------------------------------------
    def _find_lazy_branches(self, order: list[AluExp]) -> None:
        """Mark the nodes of every lazy `where` in `order` (see the module doc); a `where`
        inside another's branch comes first in `order`, so it owns its own branches."""
        for node in order:
            if node.op is Op.WHERE and node not in self._text:
                for n in self._lazy_branch_nodes(node):
                    self._owner.setdefault(n, node)

    def _lazy_branch_nodes(self, node: AluExp) -> set[AluExp]:
        """The nodes the `where` `node` computes in its branches, or none where it stays
        a select: its condition reads an input, no value reads one that nothing else
        needs, or a branch holds a Threefry pair (cached by key across scopes)."""
        cond = node.src[0]
        if any(n.op in (Op.LOAD, Op.THREEFRY2X32) for n in cond.toposort()):
            return set()
        inside = set().union(*(self._exclusive(b) for b in node.src[1:]))
        if not any(n.op is Op.LOAD for n in inside) or any(n.op is Op.THREEFRY2X32 for n in inside):
            return set()
        return inside

    def _exclusive(self, root: AluExp) -> set[AluExp]:
        """The nodes under `root` that only `root`'s subtree uses (none if `root` has
        other users, or was rendered already)."""
        if self._refs.get(root, 0) != 1 or root in self._text:
            return set()
        inside, uses = {root}, {}
        for node in reversed(root.toposort()):  # users before what they use
            if node is not root and uses.get(node, 0) == self._refs.get(node, 0) and node not in self._text:
                inside.add(node)
            if node in inside:
                for s in node.src:
                    uses[s] = uses.get(s, 0) + 1
        return inside

    def _render_branches(self, node: AluExp) -> str:
        """`node` (a lazy where) as a variable set in the branches of an `if`."""
        b = self.builder
        cond, *values = node.src
        name = self.fresh()
        b.emit(f"var {name}: {WGSL_TYPE[node.dtype]};")
        b.emit(f"if ({strip_parens(self._text[cond])}) {{")
        for i, value in enumerate(values):
            with b.indent():
                for n in value.toposort():
                    if n not in self._text and self._owner.get(n) is node:
                        self._text[n] = self._render(n)
                b.emit(f"{name} = {strip_parens(self._text[value])};")
            b.emit("} else {" if i == 0 else "}")
        return name

    def _render(self, node: AluExp) -> str:
        self._check_dtype(node.dtype)
        self._algebra.shape(node)  # in rendering order, so that the recursion stays shallow
        op = node.op
        if op is Op.CONST:
            return literal(node.dtype, node.arg)
        if op is Op.SPECIAL:
            return self.names.get(node.arg[0], node.arg[0])
        if op is Op.VARIABLE:
            return self.names.get(node.arg, node.arg)
        if op is Op.WHERE and any(self._owner.get(s) is node for s in node.src[1:]):
            return self._render_branches(node)
        text = self._render_op(node)
        if self._refs.get(node, 0) > 1:
            name = self.fresh()
            self.builder.emit(f"let {name}: {WGSL_TYPE[node.dtype]} = {strip_parens(text)};")
            return name
        return text

    def _render_op(self, node: AluExp) -> str:
        args = [self._text[s] for s in node.src]
        if node.op is Op.RECIPROCAL and node.src[0].op is Op.SQRT:
            return f"inverseSqrt({strip_parens(self.run(node.src[0].src[0]))})"
        if node.op is Op.LOAD:
            index = strip_parens(args[0])
            if node.src[0].op is Op.CONST and node.src[0].arg < 0:
                # A load that a condition guards may fold to a negative constant index
                # (padding read through a slice), which WGSL rejects even when the
                # branch never runs: it reads element 0 instead.
                index = "0i"
            text = self.load(node.arg, index)
            return f"({text} != 0)" if node.dtype.is_bool else text
        if node.op is Op.THREEFRY2X32:
            return f"{self._threefry_pair(node, args)}.{'xy'[node.arg]}"
        if node.op in _F16_VIA_F32 and node.src[0].dtype is dt.float16:
            return self._render_in_float32(node, args)
        try:
            render = _RENDER[node.op]
        except KeyError:
            raise UnsupportedError(f"no WGSL rendering for {node.op.value}") from None
        return render(self, node, args)

    def _render_in_float32(self, node: AluExp, args: list[str]) -> str:
        wide_dtype = dt.float32 if node.dtype is dt.float16 else node.dtype
        wide = AluExp(node.op, wide_dtype, tuple(cast(dt.float32, s).simplify() for s in node.src), node.arg)
        text = _RENDER[node.op](self, wide, [f"f32({strip_parens(a)})" for a in args])
        return _to_f16(self, text) if node.dtype is dt.float16 else text

    def _threefry_pair(self, node: AluExp, args: list[str]) -> str:
        """Both output words of one Threefry call come from a single `let`."""
        key = node.src
        if key not in self._threefry:
            self.builder.need("threefry2x32")
            name = self.fresh("tf")
            k0, k1, x0, x1 = (strip_parens(a) for a in args)
            self.builder.emit(f"let {name} = threefry2x32(vec2<u32>({k0}, {k1}), vec2<u32>({x0}, {x1}));")
            self._threefry[key] = name
        return self._threefry[key]

    def _check_dtype(self, dtype: dt.DType) -> None:
        if dtype is dt.float16:
            self.builder.enable("f16")
