"""AluExp: the scalar expression IR that every jaxwg kernel is made of.

A kernel computes one output element per index `gidx` (and, for reductions, one
term per reduction index `ridx`). What it computes is an `AluExp`: a DAG of scalar
operations over constants, those special indices, named variables and loads from
input buffers. Nodes are immutable and hash-consed: building the same expression
twice gives the same object, so structural equality is identity, and expressions
serve as dictionary keys (pipeline caches, common-subexpression tables) for free.

The semantics of every op are fixed here and implemented once in NumPy
(`jaxwg.core.alu_eval`); the WGSL code generator must agree with them bit for bit
on integers and within a few ulp on float math. Where WGSL leaves a result
undefined we choose one and the code generator makes it so:

* `div` is IEEE float division, correctly rounded (integers use `idiv`);
* integer `idiv` truncates toward zero; `x idiv 0 = x`; `mod` takes the sign of the
  dividend and `x mod 0 = 0` (WGSL's rules). Float `idiv` is `trunc(a / b)`, float
  `mod` is C's `fmod`.
* integer arithmetic wraps at the dtype's width (two's complement), int8 and int16 as
  int32: `int8 127 + 1 = -128`, `int8 -128 idiv -1 = -128`, `abs(int8 -128) = -128`.
* `shl`/`shr` shift by the amount modulo the bit width; `shr` of a signed integer is
  arithmetic.
* `min`/`max` of floats propagate NaN (like `np.minimum`); the sign of a zero result
  from zeros of both signs is unspecified (WGSL leaves it open).
* `cast` from float to integer truncates, saturates at the type's bounds and maps
  NaN to 0; to bool it is `x != 0`.
* `cmpne` is true when either side is NaN, `cmplt` false.

>>> from jaxwg.core import alu, dtypes
>>> x = alu.load(0, dtypes.float32, alu.gidx(8))
>>> e = x * 2.0 + 1.0
>>> e is x * 2.0 + 1.0
True
>>> e
((in0[gidx] * 2.0) + 1.0)
"""

from __future__ import annotations

import enum
import math
import weakref
from collections.abc import Callable, Iterable

import numpy as np

from . import dtypes as dt
from .dtypes import DType


class Op(enum.Enum):
    """Every operation an AluExp node can hold. The groups below say how many sources."""

    # binary, result has the operands' dtype
    ADD = "add"
    SUB = "sub"
    MUL = "mul"
    DIV = "div"
    IDIV = "idiv"
    MOD = "mod"
    MIN = "min"
    MAX = "max"
    ATAN2 = "atan2"
    POW = "pow"  # x^y for finite x > 0, finite y, float64 (`lowering._pow` wraps the rest)
    AND = "and"
    OR = "or"
    XOR = "xor"
    SHL = "shl"
    SHR = "shr"
    # comparisons, result is bool
    CMPLT = "cmplt"
    CMPNE = "cmpne"
    # unary, result has the operand's dtype
    NEG = "neg"
    NOT = "not"
    ABS = "abs"
    EXP = "exp"
    EXP2 = "exp2"
    LOG = "log"
    LOG2 = "log2"
    SIN = "sin"
    COS = "cos"
    TAN = "tan"
    ASIN = "asin"
    ACOS = "acos"
    ATAN = "atan"
    TANH = "tanh"
    SQRT = "sqrt"
    RECIPROCAL = "reciprocal"
    FLOOR = "floor"
    CEIL = "ceil"
    ROUND = "round"
    TRUNC = "trunc"
    ERF = "erf"
    ERFC = "erfc"
    # conversions, result has the node's dtype
    CAST = "cast"
    BITCAST = "bitcast"
    # others
    FMA = "fma"
    WHERE = "where"
    THREEFRY2X32 = "threefry2x32"
    CONST = "const"
    SPECIAL = "special"
    VARIABLE = "variable"
    LOAD = "load"

    def __repr__(self) -> str:
        return self.value


BINARY = frozenset(
    {Op.ADD, Op.SUB, Op.MUL, Op.DIV, Op.IDIV, Op.MOD, Op.MIN, Op.MAX, Op.ATAN2, Op.POW,
     Op.AND, Op.OR, Op.XOR, Op.SHL, Op.SHR}
)
COMPARE = frozenset({Op.CMPLT, Op.CMPNE})
UNARY = frozenset(
    {Op.NEG, Op.NOT, Op.ABS, Op.EXP, Op.EXP2, Op.LOG, Op.LOG2, Op.SIN, Op.COS, Op.TAN,
     Op.ASIN, Op.ACOS, Op.ATAN, Op.TANH, Op.SQRT, Op.RECIPROCAL, Op.FLOOR, Op.CEIL,
     Op.ROUND, Op.TRUNC, Op.ERF, Op.ERFC}
)
# Ops defined only on floats (transcendentals and rounding).
FLOAT_ONLY = frozenset(
    {Op.DIV, Op.ATAN2, Op.POW, Op.EXP, Op.EXP2, Op.LOG, Op.LOG2, Op.SIN, Op.COS, Op.TAN, Op.ASIN,
     Op.ACOS, Op.ATAN, Op.TANH, Op.SQRT, Op.RECIPROCAL, Op.FLOOR, Op.CEIL, Op.ROUND,
     Op.TRUNC, Op.ERF, Op.ERFC}
)
# Ops defined only on integers and bool.
BITWISE = frozenset({Op.AND, Op.OR, Op.XOR, Op.SHL, Op.SHR, Op.NOT})
COMMUTATIVE = frozenset({Op.ADD, Op.MUL, Op.MIN, Op.MAX, Op.AND, Op.OR, Op.XOR, Op.CMPNE})


def _normalize_const(dtype: DType, value):
    """The Python value a constant of `dtype` holds (floats rounded to the dtype)."""
    if dtype.is_bool:
        return bool(value)
    if dtype.is_int:
        info = np.iinfo(dtype.np)
        value = int(value)
        if not info.min <= value <= info.max:
            raise OverflowError(f"constant {value} does not fit in {dtype}")
        return value
    with np.errstate(over="ignore"):  # out of range rounds to inf, as in NumPy and JAX
        return float(dtype.np.type(value))


def _arg_key(op: Op, dtype: DType, arg):
    """A hashable key for `arg` that tells -0.0 from 0.0 and NaN from itself."""
    if op is Op.CONST and dtype.is_float:
        return np.float64(arg).tobytes()
    return arg


_ALREADY_SIMPLE = object()


class AluExp:
    """One node of the scalar expression DAG: `op`, `dtype`, `src` (child nodes), `arg`.

    Construct nodes with the helper functions of this module (`const`, `load`,
    `gidx`, `where`, ...) or with Python operators on nodes, which turn Python
    numbers into constants of the node's dtype:

    >>> i = gidx(100)
    >>> (i // 10) % 10
    ((gidx // 10) % 10)
    """

    __slots__ = ("__weakref__", "_hash", "_range", "_simplified", "arg", "dtype", "op", "src")
    _interned: weakref.WeakValueDictionary[tuple, AluExp] = weakref.WeakValueDictionary()

    op: Op
    dtype: DType
    src: tuple[AluExp, ...]
    arg: object

    def __new__(cls, op: Op, dtype: DType, src: tuple = (), arg=None):
        key = (op, dtype, src, _arg_key(op, dtype, arg))
        node = cls._interned.get(key)
        if node is None:
            node = object.__new__(cls)
            object.__setattr__(node, "op", op)
            object.__setattr__(node, "dtype", dtype)
            object.__setattr__(node, "src", src)
            object.__setattr__(node, "arg", arg)
            object.__setattr__(node, "_hash", hash(key))
            object.__setattr__(node, "_range", None)
            object.__setattr__(node, "_simplified", None)
            cls._interned[key] = node
        return node

    def __setattr__(self, name, value):
        raise AttributeError("AluExp is immutable")

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other) -> bool:
        return self is other

    def __reduce__(self):
        return (AluExp, (self.op, self.dtype, self.src, self.arg))

    # -- Python operators build nodes; numbers become constants of our dtype ---------
    def _lift(self, other) -> AluExp:
        return other if isinstance(other, AluExp) else const(self.dtype, other)

    def __add__(self, other):
        return binary(Op.ADD, self, self._lift(other))

    def __radd__(self, other):
        return binary(Op.ADD, self._lift(other), self)

    def __sub__(self, other):
        return binary(Op.SUB, self, self._lift(other))

    def __rsub__(self, other):
        return binary(Op.SUB, self._lift(other), self)

    def __mul__(self, other):
        return binary(Op.MUL, self, self._lift(other))

    def __rmul__(self, other):
        return binary(Op.MUL, self._lift(other), self)

    def __truediv__(self, other):
        return binary(Op.DIV, self, self._lift(other))

    def __floordiv__(self, other):
        return binary(Op.IDIV, self, self._lift(other))

    def __mod__(self, other):
        return binary(Op.MOD, self, self._lift(other))

    def __neg__(self):
        return unary(Op.NEG, self)

    def __and__(self, other):
        return binary(Op.AND, self, self._lift(other))

    def __or__(self, other):
        return binary(Op.OR, self, self._lift(other))

    def __xor__(self, other):
        return binary(Op.XOR, self, self._lift(other))

    def __invert__(self):
        return unary(Op.NOT, self)

    def lt(self, other) -> AluExp:
        """self < other, as a bool node."""
        return compare(Op.CMPLT, self, self._lift(other))

    def ne(self, other) -> AluExp:
        """self != other, as a bool node."""
        return compare(Op.CMPNE, self, self._lift(other))

    def cast(self, dtype: DType) -> AluExp:
        return cast(dtype, self)

    # -- structure -----------------------------------------------------------------
    def toposort(self) -> list[AluExp]:
        """Distinct nodes reachable from here, every node after its sources."""
        order: list[AluExp] = []
        seen: set[int] = set()
        stack: list[tuple[AluExp, bool]] = [(self, False)]
        while stack:
            node, expanded = stack.pop()
            if expanded:
                order.append(node)
                continue
            if id(node) in seen:
                continue
            seen.add(id(node))
            stack.append((node, True))
            stack.extend((s, False) for s in reversed(node.src) if id(s) not in seen)
        return order

    def rewrite(self, fn: Callable[[AluExp], AluExp | None]) -> AluExp:
        """Rebuild bottom-up: each node (with rewritten sources) is replaced by
        `fn(node)` unless that returns None.

        >>> (gidx(4) + 1).rewrite(lambda e: const(e.dtype, 7) if e.op is Op.SPECIAL else None)
        (7 + 1)
        """
        done: dict[AluExp, AluExp] = {}
        for node in self.toposort():
            src = tuple(done[s] for s in node.src)
            rebuilt = node if src == node.src else AluExp(node.op, node.dtype, src, node.arg)
            replacement = fn(rebuilt)
            done[node] = rebuilt if replacement is None else replacement
        return done[self]

    def substitute(self, mapping: dict[str, AluExp]) -> AluExp:
        """Replace named variables and special indices (`gidx`, `ridx`, ...) by expressions.

        >>> (variable(dt.int32, "upcast") * 4).substitute({"upcast": const(dt.int32, 2)})
        (2 * 4)
        """
        def replace(node):
            if node.op in (Op.VARIABLE, Op.SPECIAL):
                name = node.arg if node.op is Op.VARIABLE else node.arg[0]
                return mapping.get(name)
            return None

        return self.rewrite(replace)

    def fold(self, fn: Callable, initial):
        """Reduce over the distinct nodes in dependency order: `acc = fn(acc, node)`."""
        acc = initial
        for node in self.toposort():
            acc = fn(acc, node)
        return acc

    def distinct_ops(self) -> dict[Op, set[DType]]:
        """Each op used, with the dtypes it is used at."""
        ops: dict[Op, set[DType]] = {}
        for node in self.toposort():
            ops.setdefault(node.op, set()).add(node.dtype)
        return ops

    def loads(self) -> list[AluExp]:
        """The LOAD nodes, in dependency order."""
        return [n for n in self.toposort() if n.op is Op.LOAD]

    def simplify(self) -> AluExp:
        """Constant folding, identities, range analysis and index arithmetic.

        >>> i = gidx(12)
        >>> ((i // 4) * 4 + i % 4).simplify()
        gidx

        The result is remembered on each node simplified on the way (`simplified`):
        kernels built again from the same expressions skip the work.
        """
        from .simplify import simplify

        return simplify(self)

    @property
    def simplified(self) -> AluExp | None:
        """This node's simplified form, if it was computed (None if not yet)."""
        found = self._simplified
        return self if found is _ALREADY_SIMPLE else found

    def remember_simplified(self, result: AluExp) -> None:
        """Record `result` as this node's simplified form (and as its own, being simple).
        A marker, not the node itself, stands for "already simple": no reference cycles."""
        object.__setattr__(self, "_simplified", _ALREADY_SIMPLE if result is self else result)
        if result._simplified is None:
            object.__setattr__(result, "_simplified", _ALREADY_SIMPLE)

    @property
    def range(self) -> tuple:
        """Inclusive (min, max) this node can take; (-inf, inf) when unknown."""
        if self._range is None:
            from .simplify import value_range

            object.__setattr__(self, "_range", value_range(self))
        return self._range

    def __repr__(self) -> str:
        return render(self)


# -- constructors ----------------------------------------------------------------------
def const(dtype: DType, value) -> AluExp:
    """A constant: `const(float32, 1.5)`."""
    return AluExp(Op.CONST, dtype, (), _normalize_const(dtype, value))


def gidx(size: int) -> AluExp:
    """The output index of a kernel with `size` outputs (int32, 0 <= gidx < size)."""
    return special("gidx", size)


def ridx(size: int) -> AluExp:
    """The reduction index of a reduction over `size` terms."""
    return special("ridx", size)


def special(name: str, size: int) -> AluExp:
    """A named int32 index known to lie in [0, size)."""
    return AluExp(Op.SPECIAL, dt.int32, (), (name, int(size)))


def variable(dtype: DType, name: str) -> AluExp:
    """A named value filled in later (by `substitute`) or by the code generator."""
    return AluExp(Op.VARIABLE, dtype, (), name)


def load(arg: int, dtype: DType, index: AluExp) -> AluExp:
    """Element `index` of input buffer number `arg`, which holds `dtype` elements."""
    if index.dtype is not dt.int32:
        raise TypeError(f"load index must be int32, got {index.dtype}")
    return AluExp(Op.LOAD, dtype, (index,), int(arg))


def binary(op: Op, a: AluExp, b: AluExp) -> AluExp:
    if op not in BINARY:
        raise ValueError(f"{op} is not a binary op")
    if a.dtype is not b.dtype:
        raise TypeError(f"{op.value}: operand dtypes differ: {a.dtype} and {b.dtype}")
    _check_kind(op, a.dtype)
    return AluExp(op, a.dtype, (a, b))


def unary(op: Op, a: AluExp) -> AluExp:
    if op not in UNARY:
        raise ValueError(f"{op} is not a unary op")
    _check_kind(op, a.dtype)
    return AluExp(op, a.dtype, (a,))


def compare(op: Op, a: AluExp, b: AluExp) -> AluExp:
    if a.dtype is not b.dtype:
        raise TypeError(f"{op.value}: operand dtypes differ: {a.dtype} and {b.dtype}")
    return AluExp(op, dt.bool_, (a, b))


def where(cond: AluExp, a: AluExp, b: AluExp) -> AluExp:
    """`a` where `cond` is true, else `b`."""
    if cond.dtype is not dt.bool_:
        raise TypeError(f"where: condition must be bool, got {cond.dtype}")
    if a.dtype is not b.dtype:
        raise TypeError(f"where: branch dtypes differ: {a.dtype} and {b.dtype}")
    return AluExp(Op.WHERE, a.dtype, (cond, a, b))


def cast(dtype: DType, a: AluExp) -> AluExp:
    """Value conversion (saturating float-to-int, NaN to 0, nonzero to True)."""
    return a if a.dtype is dtype else AluExp(Op.CAST, dtype, (a,))


def _half_word(a: DType, b: DType) -> bool:
    """Whether `a` is float16 and `b` a 32-bit integer."""
    return a is dt.float16 and b in (dt.int32, dt.uint32)


def bitcast(dtype: DType, a: AluExp) -> AluExp:
    """Reinterpret the bits of `a` as `dtype` (same width, not bool). One pair of widths
    differs: float16 and a 32-bit integer, whose low 16 bits are the float's (zero-extended
    from float16, the high bits dropped to it): the 32-bit form of bitcasts between float16
    and int16/uint16 on backends that hold those in 32 bits (`core/widen.py`)."""
    same = dtype.itemsize == a.dtype.itemsize or _half_word(dtype, a.dtype) or _half_word(a.dtype, dtype)
    if not same or dtype.is_bool or a.dtype.is_bool:
        raise TypeError(f"bitcast: cannot reinterpret {a.dtype} as {dtype}")
    return a if a.dtype is dtype else AluExp(Op.BITCAST, dtype, (a,))


def fma(a: AluExp, b: AluExp, c: AluExp) -> AluExp:
    """a * b + c rounded once (fused multiply-add), for floats of one dtype: what XLA
    contracts multiply-adds into, for the functions whose bits follow XLA's."""
    if not a.dtype is b.dtype is c.dtype or not a.dtype.is_float:
        raise TypeError(f"fma needs float operands of one dtype, got {a.dtype}, {b.dtype}, {c.dtype}")
    return AluExp(Op.FMA, a.dtype, (a, b, c))


def threefry2x32(k0: AluExp, k1: AluExp, x0: AluExp, x1: AluExp, word: int) -> AluExp:
    """Word `word` (0 or 1) of the Threefry-2x32 block cipher (20 rounds) of
    counter (x0, x1) under key (k0, k1); all uint32, as in JAX's PRNG."""
    for v in (k0, k1, x0, x1):
        if v.dtype is not dt.uint32:
            raise TypeError(f"threefry2x32: operands must be uint32, got {v.dtype}")
    if word not in (0, 1):
        raise ValueError(f"threefry2x32: word must be 0 or 1, got {word}")
    return AluExp(Op.THREEFRY2X32, dt.uint32, (k0, k1, x0, x1), word)


def _check_kind(op: Op, dtype: DType) -> None:
    if op in FLOAT_ONLY and not dtype.is_float:
        raise TypeError(f"{op.value} needs a float operand, got {dtype}")
    if op in BITWISE and dtype.is_float:
        raise TypeError(f"{op.value} needs an integer or bool operand, got {dtype}")
    if op in (Op.SHL, Op.SHR) and dtype.is_bool:
        raise TypeError(f"{op.value} needs an integer operand, got {dtype}")
    if op in (Op.NEG, Op.SUB, Op.IDIV, Op.MOD) and dtype.is_bool:
        raise TypeError(f"{op.value} is not defined on bool")


def all_of(conditions: Iterable[AluExp]) -> AluExp:
    """The conjunction of bool nodes (True when there are none)."""
    result = const(dt.bool_, True)
    for c in conditions:
        result = c if result.arg is True and result.op is Op.CONST else result & c
    return result


# -- rendering -------------------------------------------------------------------------
_INFIX = {Op.ADD: "+", Op.SUB: "-", Op.MUL: "*", Op.DIV: "/", Op.IDIV: "//", Op.MOD: "%",
          Op.AND: "&", Op.OR: "|", Op.XOR: "^", Op.SHL: "<<", Op.SHR: ">>",
          Op.CMPLT: "<", Op.CMPNE: "!="}


def _render_const(node: AluExp) -> str:
    v = node.arg
    if node.dtype.is_float:
        if math.isnan(v) or math.isinf(v):
            return repr(v)
        return repr(v) if node.dtype is dt.float32 else f"{v!r}:{node.dtype}"
    if node.dtype is dt.uint32:
        return f"{v}u"
    return f"{v}:{node.dtype}" if node.dtype in dt.WIDENED else repr(v)


def _render_node(node: AluExp, s: list[str]) -> str:
    """One node's text, given its sources' texts `s`."""
    op = node.op
    if op is Op.CONST:
        return _render_const(node)
    if op is Op.SPECIAL:
        return node.arg[0]
    if op is Op.VARIABLE:
        return node.arg
    if op is Op.LOAD:
        return f"in{node.arg}[{s[0]}]"
    if op in _INFIX:
        return f"({s[0]} {_INFIX[op]} {s[1]})"
    if op is Op.NEG:
        return f"-{s[0]}"
    if op in (Op.CAST, Op.BITCAST):
        return f"{op.value}<{node.dtype}>({s[0]})"
    if op is Op.THREEFRY2X32:
        return f"threefry2x32({', '.join(s)})[{node.arg}]"
    return f"{op.value}({', '.join(s)})"


# Shared nodes whose text is at most this long are repeated, not bound: `(gidx < 2)` reads
# better in place, and repeating a bounded text keeps the output linear in the DAG's size.
_INLINE_CHARS = 24


def render(exp: AluExp) -> str:
    """A readable one-line form, as long as the DAG is large (not as its paths are many).

    A node used more than once whose text is long is printed once, as a binding named
    where it is used (as JAX prints jaxprs); short ones are repeated:

    >>> x = load(0, dt.float32, gidx(4))
    >>> y = unary(Op.SIN, x * x + 1.0)
    >>> y * y + x
    let t0 = sin(((in0[gidx] * in0[gidx]) + 1.0)) in ((t0 * t0) + in0[gidx])
    """
    order = exp.toposort()
    uses: dict[AluExp, int] = {}
    for node in order:
        for s in node.src:
            uses[s] = uses.get(s, 0) + 1
    text: dict[AluExp, str] = {}
    bindings: list[str] = []
    for node in order:
        text[node] = _render_node(node, [text[x] for x in node.src])
        if node.src and uses.get(node, 0) > 1 and len(text[node]) > _INLINE_CHARS:
            name = f"t{len(bindings)}"
            bindings.append(f"{name} = {text[node]}")
            text[node] = name
    if not bindings:
        return text[exp]
    return f"let {'; '.join(bindings)} in {text[exp]}"
