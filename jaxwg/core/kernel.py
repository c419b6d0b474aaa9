"""Kernel and Reduction: the unit of work a backend runs.

A `Kernel` computes `size` output elements. Element `gidx` is `exp` evaluated with
the special index `gidx` bound to it; `exp` reads the kernel's `nargs` input
buffers through LOAD nodes. With a `Reduction`, `exp` also depends on `ridx`, and
the output element is the reduction of `exp` over `ridx in [0, reduction.size)`,
passed through the reduction's `epilogue` (an expression of the variable `acc`,
and of `gidx` and loads if it fuses more elementwise work).

Float16 sums and products accumulate in float32 (`Reduction.acc_dtype`), as JAX
does, and are rounded to float16 once, before the epilogue.

A kernel may also have *row stages* (`stages`): kernels of `rows` outputs each, computed
per row before the kernel's own expression, which reads stage `j`'s value for its row
as the variable `stage<j>` (`stage_value`); later stages read earlier ones the same way.
Without a reduction the kernel's `size` is `rows` times its row length and element
`gidx` lies in row `gidx // row_length`; with one, output `gidx` is row `gidx`. This is
how softmax, layer norms and logsumexp read their input once (frontend/rows.py): a
workgroup holds a row while it reduces it several times.

>>> from jaxwg.core import alu, dtypes as dt
>>> n, m = 3, 4   # row sums of a 3x4 float32 matrix
>>> x = alu.load(0, dt.float32, alu.gidx(n) * m + alu.ridx(m))
>>> k = Kernel(1, n, x, Reduction(alu.Op.ADD, dt.float32, m))
>>> k.dtype, k.reduction.identity
(float32, 0.0)
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from . import alu
from . import dtypes as dt
from .alu import AluExp, Op

REDUCE_OPS = (Op.ADD, Op.MUL, Op.MIN, Op.MAX)
ACC_NAME = "acc"


def stage_value(j: int, dtype: dt.DType) -> AluExp:
    """The variable standing for row stage `j`'s value in later stages and the kernel."""
    return alu.variable(dtype, f"stage{j}")


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
    stages: tuple[Kernel, ...] = ()

    def __post_init__(self):
        if self.size < 0:
            raise ValueError(f"kernel size must be >= 0, got {self.size}")
        if self.stages:
            self._check_stages()
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

    def _check_stages(self) -> None:
        rows = self.rows
        for stage in self.stages:
            if stage.size != rows or stage.stages or stage.nargs != self.nargs:
                raise ValueError(f"row stages must be plain kernels of {rows} outputs over the "
                                 f"kernel's {self.nargs} inputs, got {stage!r}")
        if rows == 0 or self.size % rows or (self.reduction is not None and self.size != rows):
            raise ValueError(f"a kernel of {self.size} outputs cannot hold rows of {rows}")

    @property
    def rows(self) -> int:
        """Rows of a kernel with row stages (the outputs of each stage)."""
        return self.stages[0].size

    @property
    def row_length(self) -> int:
        """Outputs per row of a kernel with row stages (1 with a reduction)."""
        return self.size // self.rows

    @property
    def own_expressions(self) -> tuple[AluExp, ...]:
        """The body, and the epilogue if any (not the stages')."""
        return (self.exp,) if self.reduction is None else (self.exp, self.reduction.epilogue)

    @property
    def expressions(self) -> tuple[AluExp, ...]:
        """Every expression the kernel evaluates: its stages', its body, its epilogue."""
        return tuple(e for stage in self.stages for e in stage.expressions) + self.own_expressions

    @property
    def dtype(self) -> dt.DType:
        """The dtype of the output buffer."""
        return self.exp.dtype if self.reduction is None else self.reduction.epilogue.dtype

    def with_expressions(self, exps, nargs: int | None = None) -> Kernel:
        """The kernel with `exps` in place of `expressions`, in that order, reading `nargs`
        inputs (default: as many as now). Rewrites such as constant lifting or input
        renumbering apply to every expression at once."""
        nargs = self.nargs if nargs is None else nargs
        exps = list(exps)
        stages = []
        for stage in self.stages:
            count = len(stage.expressions)
            stages.append(stage.with_expressions(exps[:count], nargs))
            del exps[:count]
        red = None if self.reduction is None else replace(self.reduction, epilogue=exps[1])
        return Kernel(nargs, self.size, exps[0], red, tuple(stages))

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
        for kernel in self.stages + (self,):
            if kernel.reduction is not None:
                found.add(kernel.reduction.acc_dtype)
        return found
