"""Kernel and Reduction: the unit of work a backend runs.

A `Kernel` computes `size` output elements. Element `gidx` is `exp` evaluated with
the special index `gidx` bound to it; `exp` reads the kernel's `nargs` input
buffers through LOAD nodes. With a `Reduction`, `exp` also depends on `ridx`, and
the output element is the reduction of `exp` over `ridx in [0, reduction.size)`,
passed through the reduction's `epilogue` (an expression of the variable `acc`,
and of `gidx` and loads if it fuses more elementwise work).

Float16 sums and products accumulate in float32 (`Reduction.acc_dtype`), as JAX
does, and are rounded to float16 once, before the epilogue.

>>> from jaxwg.core import alu, dtypes as dt
>>> n, m = 3, 4   # row sums of a 3x4 float32 matrix
>>> x = alu.load(0, dt.float32, alu.gidx(n) * m + alu.ridx(m))
>>> k = Kernel(1, n, x, Reduction(alu.Op.ADD, dt.float32, m))
>>> k.dtype, k.reduction.identity
(float32, 0.0)
"""

from __future__ import annotations

from dataclasses import dataclass, field

from . import alu
from . import dtypes as dt
from .alu import AluExp, Op

REDUCE_OPS = (Op.ADD, Op.MUL, Op.MIN, Op.MAX)
ACC_NAME = "acc"


def identity_value(op: Op, dtype: dt.DType):
    """The neutral element of a reduction op on `dtype`, as a constant node."""
    if op in (Op.ADD, Op.MUL):
        return alu.const(dtype, op is Op.MUL)
    lo, hi = dt.bounds(dtype)
    return alu.const(dtype, hi if op is Op.MIN else lo)


@dataclass(frozen=True)
class Reduction:
    """Reduce with `op` (ADD, MUL, MIN or MAX) over `size` terms of `dtype`, then apply
    `epilogue` (an AluExp of `variable(dtype, "acc")`; default: `acc` itself)."""

    op: Op
    dtype: dt.DType
    size: int
    epilogue: AluExp = field(default=None)

    def __post_init__(self):
        if self.op not in REDUCE_OPS:
            raise ValueError(f"reduction op must be one of {REDUCE_OPS}, got {self.op}")
        if self.size < 0:
            raise ValueError(f"reduction size must be >= 0, got {self.size}")
        if self.epilogue is None:
            object.__setattr__(self, "epilogue", self.acc)

    @property
    def acc(self) -> AluExp:
        """The variable standing for the reduced value inside the epilogue."""
        return alu.variable(self.dtype, ACC_NAME)

    @property
    def acc_dtype(self) -> dt.DType:
        """The dtype accumulated in: float32 for float16 sums and products."""
        if self.dtype is dt.float16 and self.op in (Op.ADD, Op.MUL):
            return dt.float32
        return self.dtype

    @property
    def identity(self) -> AluExp:
        """The neutral element, as a constant of `acc_dtype`."""
        return identity_value(self.op, self.acc_dtype)


@dataclass(frozen=True)
class Kernel:
    """`size` outputs of `exp` over `nargs` inputs, optionally reduced (see module doc)."""

    nargs: int
    size: int
    exp: AluExp
    reduction: Reduction | None = None

    def __post_init__(self):
        if self.size < 0:
            raise ValueError(f"kernel size must be >= 0, got {self.size}")
        for node in self.expressions:
            for ld in node.loads():
                if ld.arg >= self.nargs:
                    raise ValueError(
                        f"kernel reads input {ld.arg} but is given only {self.nargs} "
                        f"input(s): {self.exp!r}")
        if self.reduction is not None and self.reduction.dtype is not self.exp.dtype:
            raise TypeError(
                f"reduction dtype {self.reduction.dtype} differs from the reduced "
                f"expression's dtype {self.exp.dtype}")

    @property
    def expressions(self) -> tuple[AluExp, ...]:
        """The expressions the kernel evaluates: the body, and the epilogue if any."""
        return (self.exp,) if self.reduction is None else (self.exp, self.reduction.epilogue)

    @property
    def dtype(self) -> dt.DType:
        """The dtype of the output buffer."""
        return self.exp.dtype if self.reduction is None else self.reduction.epilogue.dtype

    def input_dtypes(self) -> list[dt.DType | None]:
        """The element dtype each input is read as (None for an input never read)."""
        found: list[dt.DType | None] = [None] * self.nargs
        for node in self.expressions:
            for ld in node.loads():
                if found[ld.arg] not in (None, ld.dtype):
                    raise TypeError(f"input {ld.arg} is read as both {found[ld.arg]} and {ld.dtype}")
                found[ld.arg] = ld.dtype
        return found

    def dtypes(self) -> set[dt.DType]:
        """Every dtype any node of the kernel computes with."""
        found = set()
        for node in self.expressions:
            found |= {n.dtype for n in node.toposort()}
        if self.reduction is not None:
            found.add(self.reduction.acc_dtype)
        return found
