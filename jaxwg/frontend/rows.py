"""Row fusion: per-row values computed inside the kernel that reads them.

`fusion.schedule` plans softmax as three kernels, each reading the whole input: the row
maxima, the row sums of exp(x - max), and exp(x - max) / sum, which reads the maxima and
sums back through a broadcast. Layer norms (mean, variance, output) and logsumexp
look the same. `fuse_rows` merges such a chain into its last kernel as *row stages*
(`core.kernel`): the backends then compute a row's stages and its outputs together, a
group of threads (one thread, for short rows on software adapters) per row, so the input
is read from memory once and from cache after that.

A kernel K of `rows` outputs becomes a stage of a later kernel E when:

* E reads K's output only at its own row: at `gidx // row_length`, or at `gidx` when E
  has `rows` outputs (a reduction, such as logsumexp's sum);
* nothing else reads it: no other kernel but E's other stages (which read it at their
  own row, `gidx`), it is not a target, and no pending node outside the schedule uses it;
* K has `rows` outputs and reduces at most `MAX_ROW_LENGTH` terms; a stage without a
  reduction (a per-row elementwise value, such as logsumexp's guard on the maxima)
  comes along when its sources are stages or inputs;
* the rows are many (`MIN_ROWS`) or the work is small (`SMALL_WORK`): a few long rows
  are faster as split reductions, which spread one row over many workgroups;
* E's output fits one storage binding, and E reads no more buffers than the device
  binds; no value is a small integer (`core.widen` has no rule for stages).

>>> import jaxwg.numpy as jnp
>>> from jaxwg.frontend.fusion import schedule
>>> def softmax(x):  # `e` is not held when the result is scheduled (fusion rule 4)
...     e = jnp.exp(x - x.max(axis=1, keepdims=True))
...     return e / e.sum(axis=1, keepdims=True)
>>> [len(step.kernel.stages) for step in schedule([softmax(jnp.ones((256, 8))).node])]
[2]
"""

from __future__ import annotations

import heapq

from ..core import alu
from ..core import dtypes as dt
from ..core.alu import AluExp, Op
from ..core.kernel import Kernel, stage_value

# Terms a stage may reduce and outputs a row may have: at most one workgroup takes a
# whole row, so very long rows are left to the split reductions.
MAX_ROW_LENGTH = 16384
# Row fusion needs this many rows to keep a GPU's workgroups busy, unless the whole
# kernel is small enough that launching fewer kernels is what counts.
MIN_ROWS = 64
SMALL_WORK = 1 << 18
# Stages one kernel may take (softmax has two, a layer norm three): an eager loop that
# accumulates a scalar leaves a chain of hundreds of one-row kernels, and merging them
# all made one kernel per chain length, each compiled once and never reused.
MAX_STAGES = 8


def fuse_rows(steps: list, kept: set, max_inputs: int | None = None,
              max_output_bytes: int | None = None) -> list:
    """`steps` (fusion.Step, in dependency order) with row stages merged into the kernels
    that read them (see the module docstring). `kept` holds the ids of nodes that must
    keep their own buffer: targets, and nodes that pending work elsewhere reads.

    Later kernels are merged first, so that a chain of stages (mean, then variance)
    goes whole into its last reader."""
    producer = {id(s.output): s for s in steps}
    index = {id(s): i for i, s in enumerate(steps)}
    readers: dict[int, list] = {}
    for s in steps:
        for node in s.inputs:
            readers.setdefault(id(node), []).append(s)
    replaced: dict[int, object] = {}  # id(step) -> its merged step, or None if it became a stage
    reduces = _reduces_upstream(steps, producer)
    at_row: dict[int, bool] = {}  # id(step) -> _read_at_row of it by its readers (they do not change)
    for step in reversed(steps):
        if id(step) in replaced or not isinstance(step.kernel, Kernel) or not reduces[id(step)] \
                or any(d in dt.WIDENED for d in step.kernel.dtypes()):
            continue
        for rows in _row_counts(step, producer):
            stages = _stages_for(step, rows, steps, index, producer, readers, kept, at_row)
            fused = _merge(step, stages) if stages else None
            if fused is not None and _fits(fused, max_inputs, max_output_bytes):
                replaced[id(step)] = fused
                replaced.update((id(s), None) for s in stages)
                break
    return [replaced.get(id(s), s) for s in steps if replaced.get(id(s), s) is not None]


def _reduces_upstream(steps: list, producer: dict) -> dict[int, bool]:
    """id(step) -> whether a kernel `step` reads, directly or through others, reduces
    (without one it has no stage to take: long elementwise chains skip the search)."""
    reduces: dict[int, bool] = {}
    for s in steps:
        sources = [producer[id(n)] for n in s.inputs if id(n) in producer]
        reduces[id(s)] = any(isinstance(p.kernel, Kernel) and p.kernel.reduction is not None
                             or reduces[id(p)] for p in sources)
    return reduces


def _row_counts(step, producer: dict) -> list[int]:
    """The row counts of the kernels `step` reads that could be its stages, most rows first."""
    kernel = step.kernel
    sizes = {producer[id(n)].kernel.size for n in step.inputs
             if id(n) in producer and isinstance(producer[id(n)].kernel, Kernel)}
    return sorted((r for r in sizes if _rows_fit(kernel, r)), reverse=True)


def _rows_fit(kernel: Kernel, rows: int) -> bool:
    """Whether `kernel` can be computed in `rows` rows (see the module docstring)."""
    if rows == 0 or kernel.size == 0 or kernel.size % rows or (
            kernel.reduction is not None and kernel.size != rows):
        return False
    length = max(kernel.size // rows, kernel.reduction.size if kernel.reduction else 1)
    return length <= MAX_ROW_LENGTH and (rows >= MIN_ROWS or rows * length <= SMALL_WORK)


def _stages_for(step, rows: int, steps: list, index: dict, producer: dict, readers: dict,
                kept: set, at_row: dict) -> list:
    """The steps that can become row stages of `step` with `rows` rows, in dependency
    order ([] if none reduces: per-row elementwise values alone are not worth a row
    kernel). `index` maps id(step) to its place in `steps`; `at_row` remembers
    `_read_at_row` per candidate: a chain of n small kernels (an unrolled loop, an eager
    loop's pending steps) asks about the same candidates n times.

    A kernel is a stage when it may be one (`_may_be_stage`), and `step` and other stages are all its
    readers, reading it at their own row. That depends only on its readers, which come
    later in `steps`, so candidates are decided latest first and the search ends past
    `MAX_STAGES`: walking every candidate above each kernel of such a chain took time
    quadratic in its length."""
    found: list[int] = []  # places in `steps` of the stages, latest first
    taken: set[int] = {id(step)}  # ids of the stages and `step`
    heap = [-index[id(producer[id(n)])] for n in step.inputs if id(n) in producer]
    heapq.heapify(heap)  # places still to decide, negated: the latest comes first
    decided: set[int] = set()
    while heap:
        i = -heapq.heappop(heap)
        if i in decided:
            continue
        decided.add(i)
        c = steps[i]
        users = readers[id(c.output)]
        if not (_may_be_stage(c, rows, kept) and all(id(r) in taken for r in users)
                and _read_at_row_once(c, users, at_row)):
            continue
        if len(found) == MAX_STAGES:
            return []
        found.append(i)
        taken.add(id(c))
        for n in c.inputs:
            if id(n) in producer:
                heapq.heappush(heap, -index[id(producer[id(n)])])
    if not any(steps[i].kernel.reduction is not None for i in found):
        return []
    return [steps[i] for i in reversed(found)]


def _may_be_stage(candidate, rows: int, kept: set) -> bool:
    k = candidate.kernel
    if not isinstance(k, Kernel) or k.stages or k.size != rows or id(candidate.output) in kept:
        return False
    if k.reduction is not None and k.reduction.size > MAX_ROW_LENGTH:
        return False
    return not any(d in dt.WIDENED for d in k.dtypes())


def _read_at_row_once(candidate, steps: list, memo: dict) -> bool:
    found = memo.get(id(candidate))
    if found is None:
        found = memo[id(candidate)] = _read_at_row(candidate, steps)
    return found


def _read_at_row(candidate, steps: list) -> bool:
    """Whether every kernel among `steps` (its readers) reads `candidate`'s output at
    its own row."""
    rows = candidate.kernel.size
    for s in steps:
        args = [arg for arg, node in enumerate(s.inputs) if node is candidate.output]
        if not args:
            continue
        row = alu.gidx(s.kernel.size)
        if s.kernel.size != rows:
            row = row // (s.kernel.size // rows)
        row = row.simplify()
        if any(ld.arg in args and ld.src[0].simplify() is not row
               for e in s.kernel.expressions for ld in e.loads()):
            return False
    return True


def _merge(step, stages: list):
    """`step` with `stages` as its row stages, over the union of their inputs."""
    from .fusion import Step  # fusion imports this module

    stage_of = {id(s.output): j for j, s in enumerate(stages)}
    inputs: list = []
    for s in [step, *stages]:
        for node in s.inputs:
            if id(node) not in stage_of and not any(node is n for n in inputs):
                inputs.append(node)

    def relinked(s) -> Kernel:
        """The kernel of `s` reading `inputs`, and its stages' values as variables."""
        def relink(node: AluExp):
            if node.op is not Op.LOAD:
                return None
            source = s.inputs[node.arg]
            if id(source) in stage_of:
                return stage_value(stage_of[id(source)], node.dtype)
            arg = next(i for i, n in enumerate(inputs) if n is source)
            return alu.load(arg, node.dtype, node.src[0])

        return s.kernel.with_expressions([e.rewrite(relink) for e in s.kernel.expressions], len(inputs))

    own = relinked(step)
    kernel = Kernel(own.nargs, own.size, own.exp, own.reduction, tuple(relinked(s) for s in stages))
    return Step(kernel, inputs, step.output)


def _fits(step, max_inputs: int | None, max_output_bytes: int | None) -> bool:
    k = step.kernel
    itemsize = 4 if k.dtype.is_bool else k.dtype.itemsize
    return (max_inputs is None or len(step.inputs) <= max_inputs) and (
        max_output_bytes is None or k.size * itemsize <= max_output_bytes)
