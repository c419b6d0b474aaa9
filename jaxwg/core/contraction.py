"""Contraction: a reduction kernel recognized as a batched matrix product.

`dot_general` lowers to a broadcast multiply feeding a sum (frontend/lowering.py),
and fusion adds prologues to the operands and an epilogue to the sum. The kernel
that comes out computes output `gidx = (b * m + i) * n + j` as the sum over `k` of
`lhs(b, i, k) * rhs(b, k, j)`. Backends that have a tiled matrix-product routine
find that shape here, with each factor as an expression of the special indices
"b", "i", "k" (lhs) and "b", "k", "j" (rhs), so every view, prologue and epilogue
that fusion put into the kernel is kept.

>>> from jaxwg.core import alu, dtypes as dt
>>> from jaxwg.core.kernel import Kernel, Reduction
>>> g, r = alu.gidx(6 * 5), alu.ridx(4)   # (6, 4) @ (4, 5)
>>> a = alu.load(0, dt.float32, (g // 5) * 4 + r)
>>> b = alu.load(1, dt.float32, r * 5 + g % 5)
>>> c = as_contraction(Kernel(2, 30, a * b, Reduction(alu.Op.ADD, dt.float32, 4)))
>>> (c.batch, c.m, c.n, c.k), c.lhs, c.rhs
((1, 6, 5, 4), in0[((i * 4) + k)], in1[(j + (k * 5))])
"""

from __future__ import annotations

from dataclasses import dataclass

from . import alu
from .alu import AluExp, Op
from .kernel import Kernel


@dataclass(frozen=True)
class Contraction:
    """out[(b * m + i) * n + j] = epilogue(sum over k of lhs(b, i, k) * rhs(b, k, j))."""

    batch: int
    m: int
    n: int
    k: int
    lhs: AluExp
    rhs: AluExp

    def output_index(self, b: AluExp, i: AluExp, j: AluExp) -> AluExp:
        """The kernel's `gidx` of output (b, i, j)."""
        return (b * self.m + i) * self.n + j


def as_contraction(kernel: Kernel) -> Contraction | None:
    """The kernel as a `Contraction`, or None if it is not a sum of products of two
    factors that each leave out one output axis. The largest `m` wins: batches whose
    rhs is shared are folded into the rows."""
    red = kernel.reduction
    if red is None or red.op is not Op.ADD or kernel.size == 0 or kernel.stages:
        return None
    exp = kernel.exp.simplify()
    size = kernel.size
    divisors = sorted(_index_divisors(exp, size) | {1, size}, reverse=True)
    for factors in _factor_pairs(exp):
        for n in divisors:
            for mn in [d for d in divisors if d % n == 0]:
                found = _split(factors, size // mn, mn // n, n, red.size)
                if found is not None:
                    return found
    return None


def _factor_pairs(exp: AluExp) -> list[tuple[AluExp, AluExp]]:
    """The ways to read `exp` as a product of two factors. Simplification moves a
    padding mask out of a product (`where(valid, a * b, 0)`, as a convolution's padded
    input gives); the mask then belongs to one of the factors, whichever it fits."""
    if exp.op is Op.MUL:
        return [exp.src]
    if exp.op is Op.WHERE and exp.src[1].op is Op.MUL and _is_zero(exp.src[2]):
        valid, (a, b) = exp.src[0], exp.src[1].src
        zero = exp.src[2]
        return [(alu.where(valid, a, zero), b), (a, alu.where(valid, b, zero))]
    return []


def _is_zero(exp: AluExp) -> bool:
    return exp.op is Op.CONST and exp.arg == 0


def _index_divisors(exp: AluExp, size: int) -> set[int]:
    """Divisors and moduli of the output index in the loads: where output axes split."""
    gidx = alu.gidx(size)
    found = set()
    for ld in exp.loads():
        for node in ld.src[0].toposort():
            if (node.op in (Op.IDIV, Op.MOD) and node.src[1].op is Op.CONST
                    and 1 < node.src[1].arg < size and size % node.src[1].arg == 0
                    and gidx in node.src[0].toposort()):
                found.add(node.src[1].arg)
    return found


_LHS_AXES, _RHS_AXES = frozenset("bik"), frozenset("bkj")


def _split(factors, batch: int, m: int, n: int, k: int) -> Contraction | None:
    b, i, j, r = (alu.special(name, size) for name, size in (("b", batch), ("i", m), ("j", n), ("k", k)))
    mapping = {"gidx": (b * m + i) * n + j, "ridx": r}
    x, y = (factor.substitute(mapping).simplify() for factor in factors)
    ax, ay = _axes(x), _axes(y)
    if ax <= _LHS_AXES and ay <= _RHS_AXES:
        return Contraction(batch, m, n, k, x, y)
    if ay <= _LHS_AXES and ax <= _RHS_AXES:
        return Contraction(batch, m, n, k, y, x)
    return None


def _axes(exp: AluExp) -> frozenset[str]:
    return frozenset(node.arg[0] for node in exp.toposort() if node.op is Op.SPECIAL)
