"""Fusion: turning a lazy graph into the fewest kernels that compute it.

`schedule(targets)` takes nodes to realize and returns `Step`s, one kernel each, in
dependency order. It is the one fusion mechanism: eager realization runs the steps at
once, `jit` records them into a replayable program.

First, a reduction read only through a transpose is computed in the transposed order
(`_reduce_in_read_order`): a weight gradient's SGD update then reads it at its own index,
as the product's epilogue (rule 5).

Which nodes get their own buffer (are *materialized*):

1. the targets;
2. every reduction, unless it fuses into its consumer as an epilogue (rule 5);
3. a computed node read through a broadcast inside a reduction's prologue, since it would
   otherwise be recomputed for every reduced element (*broadcast reuse*; `dot` of `exp(a)`),
   unless it is constants only, or a few cheap ops that would otherwise take a kernel
   of their own (`_Planner._repeatable`: a training step's `relu(h @ w + b)`, whose
   `h @ w` the backward pass reads too, is computed where the next layer's product
   loads it; a forward pass's is its product's epilogue, rule 5);
   and a movement read through another movement (they compose into one when they can);
4. a computed node whose value reaches more than one materialized node, or that a
   pending node outside this schedule still uses, unless it is a few cheap ops
   (`INLINE_COST`) that are cheaper to recompute than to write and read back, or one
   kernel of its shape and sums over its rows that only that kernel reads read it
   (`_Planner._read_by_row`: rule 9 then makes the sums that kernel's stages); and
   any computed node that a live Array holds (`LazyNode.arrays`): the program may use
   it again, and an eager loop such as `v = tanh(v); total += sum(v)` would otherwise
   recompute a chain of every `v` so far in each new kernel;
5. a reduction whose single consumer path is elementwise (and shape-preserving reshapes)
   of its own size up to one materialized node fuses into that node's kernel as the
   reduction epilogue: `sum(x) / n` is one kernel (`x - mean(x)` two: each element
   would otherwise sum all of x);
6. the costliest inlined source of a node whose kernel would inline more than
   `MAX_PENDING_COST` computing nodes (long traced chains);
7. the operand of a gather, which is read at positions computed from the indices
   (the indices themselves inline), unless reading it costs no arithmetic: a view of a
   buffer, an iota, or constants (`x.T[i]`, the zeros a scatter's transpose gathers
   from) are read through at those positions;
8. a routine and its sources: a routine is its own hand-written kernel reading
   contiguous buffers;
9. not a per-row value (a row's maximum, sum or mean) that only one later kernel reads,
   and only at its own row: that kernel computes it as a row stage (`rows.fuse_rows`;
   softmax and layer norms read their input once).

Everything else is inlined: element `i` of a node is an AluExp built from its sources'
elements (`_KernelBuilder.value`), movement ops map `i` through their ShapeTracker, and
realized buffers become loads. Kernels whose inputs would exceed the device's storage
binding limit materialize their largest inlined operands first.

>>> from jaxwg.core import dtypes as dt, alu
>>> from jaxwg.frontend.lazy import ELEMENTWISE, REDUCE, Elementwise, LazyNode, Reduce
>>> x = LazyNode.from_buffer(None, (4, 8), dt.float32)
>>> e = LazyNode(ELEMENTWISE, (4, 8), dt.float32, (x,), Elementwise(lambda a: alu.unary(alu.Op.EXP, a)))
>>> s = LazyNode(REDUCE, (4,), dt.float32, (e,), Reduce(alu.Op.ADD, (1,)))
>>> [step.kernel.reduction.op for step in schedule([s])]
[add]
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..core import alu
from ..core import dtypes as dt
from ..core.alu import AluExp
from ..core.kernel import Kernel, Reduction
from ..core.routine import Routine
from .gather import element_coordinates
from .rows import MAX_ROW_LENGTH, fuse_rows
from .lazy import (BUFFER, CONCAT, CONST, ELEMENTWISE, GATHER, IOTA, MAX_PENDING_COST, MOVE, OWN_KERNEL, REDUCE,
                   ROUTINE, LazyNode, Reduce)
from ..core.view import MultiIndex, ShapeTracker, check_index_size
from .lowering import view

# Pending nodes of at most this many ops are recomputed by each kernel that reads them.
INLINE_COST = 4
# Ops that cost about as much as the load they replace, on every device: a node built of
# them alone is recomputed for each term of a reduction rather than written and read
# back (rule 3). float64 is emulated on WebGPU (a few dozen instructions an op).
_CHEAP_OPS = frozenset({alu.Op.ADD, alu.Op.SUB, alu.Op.MUL, alu.Op.MIN, alu.Op.MAX, alu.Op.NEG,
                        alu.Op.ABS, alu.Op.NOT, alu.Op.AND, alu.Op.OR, alu.Op.CMPLT, alu.Op.CMPNE,
                        alu.Op.WHERE, alu.Op.CAST, alu.Op.CONST, alu.Op.VARIABLE})


@dataclass
class Step:
    """One kernel or routine: reads the realized `inputs` nodes, writes `output`."""

    kernel: Kernel | Routine
    inputs: list[LazyNode]
    output: LazyNode


def _pending_graph(targets) -> list[LazyNode]:
    """The unrealized nodes the targets depend on, sources before users."""
    order, seen = [], set()
    stack = [(t, False) for t in reversed(targets)]
    while stack:
        node, expanded = stack.pop()
        if expanded:
            order.append(node)
            continue
        if id(node) in seen or node.kind == BUFFER:
            continue
        seen.add(id(node))
        stack.append((node, True))
        stack.extend((s, False) for s in reversed(node.srcs))
    return order


def _is_computed(node: LazyNode) -> bool:
    """Whether inlining the node twice costs arithmetic (not just an index or a load)."""
    return node.kind in (ELEMENTWISE, REDUCE, CONCAT, GATHER, ROUTINE) or (
        node.kind == MOVE and _is_computed(node.srcs[0]))


def _worth_sharing(node: LazyNode) -> bool:
    """Whether a node read by several kernels should be written once rather than
    recomputed by each: recomputing a few cheap ops costs less than the extra write and
    read of a buffer."""
    return _is_computed(node) and node.cost > INLINE_COST


def _cheap_to_repeat(node: LazyNode) -> bool:
    """Whether an elementwise node is so cheap that recomputing it for every term of a
    reduction (rule 3) costs less than a kernel that writes it once: a few cheap ops,
    or any ops on constants only (the kernel folds them: `-1.0 / n` in a gradient)."""
    if node.kind != ELEMENTWISE:
        return False
    if _of_constants(node):
        return True
    if node.cost > INLINE_COST:
        return False
    dtypes = [node.dtype] + [s.dtype for s in node.srcs]
    if dt.float64 in dtypes:
        return False
    exp = node.arg.fn(*[alu.variable(s.dtype, f"x{i}") for i, s in enumerate(node.srcs)],
                      **dict(node.arg.params))
    return all(e.op in _CHEAP_OPS for e in exp.toposort())


def _of_constants(node: LazyNode) -> bool:
    """Whether a node reads nothing but constants, through elementwise ops and views."""
    stack, seen = [node], set()
    while stack:
        top = stack.pop()
        if id(top) in seen:
            continue
        seen.add(id(top))
        if top.kind not in (CONST, ELEMENTWISE, MOVE):
            return False
        stack.extend(top.srcs)
    return True


def _is_broadcast(node: LazyNode) -> bool:
    return node.kind == MOVE and node.arg.broadcast


def _reads_in_place(user: LazyNode, src: LazyNode) -> bool:
    """Whether `user` reads `src` at its own flat index: elementwise nodes and reshapes
    do, but an elementwise node reads a rank-0 source of a larger shape at every index
    (a sum fused there as the epilogue of `x - mean(x)` would be recomputed for each)."""
    if user.kind == ELEMENTWISE:
        return src.shape == user.shape
    return user.kind == MOVE and user.arg.tracker.is_contiguous and user.arg.fill is None


class _Planner:
    def __init__(self, targets):
        self.order = _pending_graph(targets)
        self.targets = {id(t) for t in targets}
        self.materialize = {id(t) for t in targets if t.kind != BUFFER}
        self.epilogue_of: dict[int, LazyNode] = {}  # id(root) -> reduction fused into it
        self.by_id = {id(n): n for n in self.order}
        self.users: dict[int, list[LazyNode]] = {id(n): [] for n in self.order}
        self.edges: dict[int, int] = dict.fromkeys(self.users, 0)  # reads, as node.users counts
        for node in self.order:
            for s in node.srcs:
                if id(s) in self.users:
                    self.edges[id(s)] += 1
                    if node not in self.users[id(s)]:
                        self.users[id(s)].append(node)

    def plan(self) -> list[LazyNode]:
        for node in self.order:
            if node.kind == MOVE and node.srcs[0].kind == MOVE:
                # Movements that did not compose into one tracker (lowering.view): index
                # expressions composed through many of them grow without bound.
                self.materialize.add(id(node.srcs[0]))
            if node.kind == REDUCE:
                self.materialize.add(id(node))
                self._mark_broadcast_reuse(node)
            if node.kind == GATHER and _is_computed(node.srcs[0]) and not _of_constants(node.srcs[0]):
                # Rule 7: a gather reads its operand at positions known only when it runs.
                self.materialize.add(id(node.srcs[0]))
            if node.kind == ROUTINE:  # rule 8
                self.materialize.add(id(node))
                self.materialize.update(id(s) for s in node.srcs if s.kind != BUFFER)
        self._bound_kernel_cost()
        self._mark_shared()
        return [n for n in self.order if id(n) in self.materialize]

    def _bound_kernel_cost(self) -> None:
        """Rule 6: no kernel inlines more than MAX_PENDING_COST computing nodes. Eager mode
        realizes values before they pass that bound (`LazyNode.too_big`); a traced
        program can hold chains of any length, so the costliest inlined source of a node
        that would pass it is materialized."""
        inlined: dict[int, int] = {}  # id(node) -> cost of computing it inline

        def cost_of(node: LazyNode) -> int:
            own = 1 if node.kind in (ELEMENTWISE, CONCAT, GATHER) else 0
            return own + sum(inlined.get(id(s), 0) for s in node.srcs
                             if id(s) not in self.materialize)

        for node in self.order:
            cost = cost_of(node)
            while cost > MAX_PENDING_COST:
                candidates = [s for s in node.srcs if id(s) not in self.materialize
                              and inlined.get(id(s), 0) > 0 and s.kind != REDUCE]
                if not candidates:
                    break
                self.materialize.add(id(max(candidates, key=lambda s: inlined[id(s)])))
                cost = cost_of(node)
            inlined[id(node)] = 0 if node.kind in OWN_KERNEL else cost

    def _mark_broadcast_reuse(self, root: LazyNode) -> None:
        """Rule 3 for the prologue of reduction `root`: walk its sources (with an explicit
        stack: chains can be long), noting whether a broadcast lies on the way."""
        stack, seen = [(root.srcs[0], False)], set()
        while stack:
            node, under_broadcast = stack.pop()
            if node.kind == BUFFER or id(node) in self.materialize or (id(node), under_broadcast) in seen:
                if (under_broadcast and node.kind != BUFFER and _is_computed(node)
                        and not self._repeatable(node)):
                    self.materialize.add(id(node))
                continue
            seen.add((id(node), under_broadcast))
            if under_broadcast and node.kind in (ELEMENTWISE, CONCAT, GATHER) and not self._repeatable(node):
                self.materialize.add(id(node))
                continue
            stack.extend((s, under_broadcast or _is_broadcast(node)) for s in node.srcs)

    def _repeatable(self, node: LazyNode) -> bool:
        """Rule 3's exception: a cheap node (`_cheap_to_repeat`) that no reduction reaches
        through nodes read only on the way to it. Such a reduction would fuse into the
        node's kernel as its epilogue (rule 5): the node then costs no kernel, and
        recomputing it in every product's tile would cost that product its vector loads."""
        if not _cheap_to_repeat(node):
            return False
        stack = [s for s in node.srcs if _reads_in_place(node, s)]
        while stack:
            src = stack.pop()
            if id(src) not in self.users or src.users != 1 or src.arrays:
                continue
            if src.kind == REDUCE:  # every reduction is materialized until rule 5 runs
                return False
            if id(src) not in self.materialize:
                stack.extend(s for s in src.srcs if _reads_in_place(src, s))
        return True

    def _mark_shared(self) -> None:
        """Rules 4 and 5: walk users before sources, tracking which roots read each node."""
        roots: dict[int, set] = {}
        reaches: dict[int, set] = {}  # id(node) -> the roots its own value reaches
        for node in reversed(self.order):
            mine = set()
            for user in self.users[id(node)]:
                mine |= {id(user)} if id(user) in self.materialize else roots[id(user)]
            if node.users > self.edges[id(node)] or node.arrays:
                mine.add("elsewhere")
            reaches[id(node)] = mine
            if node.kind == REDUCE and self._fuse_as_epilogue(node, mine):
                self.materialize.discard(id(node))
            elif id(node) not in self.materialize and (
                    (len(mine) > 1 and _worth_sharing(node) and not self._read_by_row(node, mine, reaches))
                    or (node.arrays and _is_computed(node))):
                self.materialize.add(id(node))
            roots[id(node)] = {id(node)} if id(node) in self.materialize else mine

    def _read_by_row(self, node: LazyNode, roots: set, reaches: dict) -> bool:
        """Rule 4's exception: `node` (rows along its last axis) is read by one kernel of
        its own shape and by reductions over its rows that only that kernel reads. Row
        fusion (rule 9) makes those reductions stages of that kernel, which then computes
        the node's row twice rather than reading it back: softmax cross-entropy's
        backward pass is one kernel. Reductions that other kernels read cannot be its
        stages: a scan's carry summed into each step's output (`ys`) would be recomputed
        from the first step in every later step's sum, a different kernel each."""
        if "elsewhere" in roots or not node.shape or node.shape[-1] > MAX_ROW_LENGTH:
            return False
        readers = [self.by_id[r] for r in roots]
        sums = [r for r in readers if r.kind == REDUCE]
        others = [r for r in readers if r.kind != REDUCE]
        return (len(others) == 1 and others[0].shape == node.shape
                and all(r.arg.axes == (len(node.shape) - 1,) and r.srcs[0].shape == node.shape
                        and reaches[id(r)] == {id(others[0])} for r in sums))

    def _fuse_as_epilogue(self, reduction: LazyNode, roots: set) -> bool:
        if len(roots) != 1 or id(reduction) in self.targets:
            return False
        (root_id,) = roots
        if root_id == "elsewhere" or root_id in self.epilogue_of:
            return False
        node = reduction
        while id(node) != root_id:  # the path must be a chain of users that read it in place
            users = self.users[id(node)]
            if len(users) != 1 or not _reads_in_place(users[0], node):
                return False
            node = users[0]
        if node.kind == REDUCE:
            return False
        self.epilogue_of[root_id] = reduction
        return True


class _KernelBuilder:
    """Builds the AluExp of one materialized node (see `schedule`).

    Element indices are `MultiIndex`es, so that a huge virtual array inside a kernel
    (the broadcast product of a matmul) never needs one flat index past 32 bits. The
    graph is walked with an explicit stack: user programs build chains of any length.
    """

    def __init__(self, root: LazyNode, fused_reduction: LazyNode | None, materialized: set):
        self.root = root
        self.fused = fused_reduction
        self.materialized = materialized
        self.inputs: list[LazyNode] = []
        self.memo: dict = {}  # (id(node), index) -> expression
        self.requests: dict = {}  # (id(node), index) -> (sources with their indices, extra)

    def _load(self, node: LazyNode, index: MultiIndex) -> AluExp:
        for arg, seen in enumerate(self.inputs):
            if seen is node:
                break
        else:
            arg = len(self.inputs)
            self.inputs.append(node)
        flat = index.flat_index() if node.size > 1 else alu.const(dt.int32, 0)
        return alu.load(arg, node.dtype, flat)

    def _is_leaf(self, node: LazyNode) -> bool:
        return node is self.fused or node.kind in (BUFFER, CONST, IOTA) or (
            node is not self.root and id(node) in self.materialized)

    def value(self, node: LazyNode, index: MultiIndex) -> AluExp:
        """The element of `node` at `index` as an expression."""
        stack = [(node, index)]
        while stack:
            top, top_index = stack[-1]
            key = (id(top), top_index)
            if key in self.memo:
                stack.pop()
                continue
            sources, extra = self._request(top, top_index)
            missing = [(s, i) for s, i in sources if (id(s), i) not in self.memo]
            if missing:
                stack.extend(missing)
                continue
            stack.pop()
            values = [self.memo[(id(s), i)] for s, i in sources]
            self.memo[key] = self._combine(top, top_index, values, extra)
        return self.memo[(id(node), index)]

    def _request(self, node: LazyNode, index: MultiIndex) -> tuple[list, object]:
        """The (source, index) pairs that element `index` of `node` is built from, and
        whatever else `_combine` needs (computed once per element)."""
        key = (id(node), index)
        found = self.requests.get(key)
        if found is None:
            found = self.requests[key] = self._sources(node, index)
        return found

    def _sources(self, node: LazyNode, index: MultiIndex) -> tuple[list, object]:
        if self._is_leaf(node):
            return [], None
        if node.kind == ELEMENTWISE:
            return [(s, index if s.shape == node.shape else _SCALAR) for s in node.srcs], None
        if node.kind == MOVE:
            src = node.srcs[0]
            flat, valid = node.arg.tracker.to_index(index)
            if src.kind != BUFFER:
                check_index_size(src.size, f"an array of shape {src.shape} read through a view")
            return [(src, MultiIndex.flat(flat, src.shape))], valid
        if node.kind == CONCAT:
            return self._concat_sources(node, index)
        if node.kind == GATHER:
            return self._gather_sources(node, index)
        raise AssertionError(f"reduction {node} must be materialized or fused")

    def _combine(self, node: LazyNode, index: MultiIndex, values: list, extra) -> AluExp:
        if node is self.fused:
            return alu.variable(node.dtype, "acc")
        if node.kind == BUFFER or (node is not self.root and id(node) in self.materialized):
            return self._load(node, index)
        if node.kind == CONST:
            return alu.const(node.dtype, node.arg)
        if node.kind == IOTA:
            axis = index.axis(node.arg.axis)
            return alu.cast(node.dtype, axis) if node.dtype is not dt.int32 else axis
        if node.kind == ELEMENTWISE:
            return node.arg.fn(*values, **dict(node.arg.params))
        if node.kind == MOVE:
            fill, valid = node.arg.fill, extra
            if valid is alu.const(dt.bool_, True):
                return values[0]
            # Without a fill value the padding is never read (strided slices pad, then
            # crop): any constant will do.
            return alu.where(valid, values[0], alu.const(node.dtype, 0 if fill is None else fill))
        if node.kind == GATHER:
            return self._gather(node, index, values, extra)
        return self._concat(node, values, extra)

    def _gather_sources(self, node: LazyNode, index: MultiIndex) -> tuple[list, object]:
        """Each entry of the index vector of the output element's batch position."""
        indices = node.srcs[1]
        dnums = node.arg.dimension_numbers
        batch = [index.axis(d) for d in range(len(node.shape)) if d not in dnums.offset_dims]
        entries = [MultiIndex(indices.shape, tuple((b, 1) for b in batch) + ((alu.const(dt.int32, j), 1),))
                   for j in range(indices.shape[-1])]
        return [(indices, e) for e in entries], batch

    def _gather(self, node: LazyNode, index: MultiIndex, starts: list, batch: list) -> AluExp:
        """The operand at the element's coordinates (`gather.element_coordinates`),
        or the fill value where the mode fills and the slice is out of bounds."""
        operand, arg = node.srcs[0], node.arg
        dnums = arg.dimension_numbers
        dropped = set(dnums.collapsed_slice_dims) | set(dnums.operand_batching_dims)
        window_axes = [a for a in range(len(operand.shape)) if a not in dropped]
        windows = {a: index.axis(d) for a, d in zip(window_axes, dnums.offset_dims)}
        batching = {a: batch[j] for a, j in zip(dnums.operand_batching_dims, dnums.start_indices_batching_dims)}
        coords, valid = element_coordinates(
            operand.shape, arg.slice_sizes, {a: alu.cast(dt.int32, v) for a, v in zip(dnums.start_index_map, starts)},
            windows, batching)
        value = self.value(operand, MultiIndex(tuple(operand.shape), tuple((c, 1) for c in coords)))
        if arg.fill is None:
            return value
        return alu.where(valid, value, alu.const(node.dtype, arg.fill))

    def _concat_sources(self, node: LazyNode, index: MultiIndex) -> tuple[list, object]:
        """Each non-empty piece at the position along the axis shifted by its start."""
        axis = node.arg.axis
        pos = index.axis(axis).simplify()
        sources, ends, start = [], [], 0
        for s in node.srcs:
            width = s.shape[axis]
            if width:
                local = (pos - start).simplify()
                sources.append((s, index.with_axis(axis, local, width)))
                ends.append(start + width)
            start += width
        return sources, (pos, ends)

    def _concat(self, node: LazyNode, values: list, extra) -> AluExp:
        """Nested selects on the position along the axis: `pos < end_k` picks piece k."""
        pos, ends = extra
        if not values:  # every piece is empty, and so is the result
            return alu.const(node.dtype, 0)
        result = values[-1]
        for end, value in zip(reversed(ends[:-1]), reversed(values[:-1])):
            result = alu.where(pos.lt(end), value, result)
        return result

    def kernel(self) -> Kernel:
        root = self.root
        out = alu.gidx(root.size)
        if root.kind == REDUCE:
            body, reduction = self._reduction(root, out)
            exp = body
        elif self.fused is not None:
            exp, reduction = self._reduction(self.fused, out)
            reduction = Reduction(reduction.op, reduction.dtype, reduction.size,
                                  self.value(root, MultiIndex.flat(out, root.shape)).simplify())
        else:
            exp, reduction = self.value(root, MultiIndex.flat(out, root.shape)), None
        return Kernel(len(self.inputs), root.size, exp.simplify(), reduction)

    def _reduction(self, node: LazyNode, out: AluExp) -> tuple[AluExp, Reduction]:
        """The reduced expression of `node` for output `out`: the source's index is built
        from the output index (over the kept axes) and `ridx` (over the reduced axes, in
        order), never from one flat index over both, which could pass 32 bits."""
        op, axes = node.arg.op, node.arg.axes
        src = node.srcs[0]
        reduced = sorted(axes)
        reduced_shape = [src.shape[a] for a in reduced]
        size = math.prod(reduced_shape)
        check_index_size(size, f"a reduction of shape {src.shape} over axes {tuple(reduced)}")
        kept = MultiIndex.flat(out, node.shape)
        terms = MultiIndex.flat(alu.ridx(size), reduced_shape)
        runs, start, done = [], 0, {True: 0, False: 0}
        while start < len(src.shape):  # runs of neighbouring axes, all reduced or all kept
            is_reduced = start in axes
            stop = start
            while stop < len(src.shape) and (stop in axes) == is_reduced:
                stop += 1
            count, first = stop - start, done[is_reduced]
            whole = terms if is_reduced else kept
            runs.append((whole.span(first, first + count), count))
            done[is_reduced] += count
            start = stop
        body = self.value(src, MultiIndex(tuple(src.shape), tuple(runs)))
        return body, Reduction(op, node.dtype, size)


_SCALAR = MultiIndex((), ())


def schedule(targets, max_inputs: int | None = None, max_output_bytes: int | None = None) -> list[Step]:
    """The kernels that realize `targets`, in dependency order (see module docstring),
    reading at most `max_inputs` buffers each; a kernel with row stages (rule 9) writes
    at most `max_output_bytes` (one storage binding)."""
    _reduce_in_read_order(targets)
    planner = _Planner(targets)
    roots = planner.plan()
    materialized = {id(n) for n in roots}
    steps: list[Step] = []
    for root in roots:
        _build(root, planner.epilogue_of.get(id(root)), materialized, max_inputs, steps)
    kept = planner.targets | {id(n) for n in planner.order if n.users > planner.edges[id(n)] or n.arrays}
    return fuse_rows(steps, kept, max_inputs, max_output_bytes)


def _reduce_in_read_order(targets) -> None:
    """A reduction read only through a transpose is computed in the transposed order,
    and the transpose becomes that reduction (in place): a weight gradient `x.T @ dy`
    reaches the graph as `(dy.T @ x).T`, and its SGD update `w - lr * g` would read it
    across rows, in a kernel of its own; computed in `w`'s order, the update is the
    product's epilogue (rule 5)."""
    wanted = {id(t) for t in targets}
    for node in _pending_graph(targets):
        if node.kind != MOVE or node.arg.fill is not None or node.srcs[0].kind != REDUCE:
            continue
        red = node.srcs[0]
        perm = _permutation(node.arg.tracker, red.shape)
        if perm is None or red.users != 1 or red.arrays or id(red) in wanted:
            continue
        src = red.srcs[0]
        kept = [a for a in range(len(src.shape)) if a not in red.arg.axes]
        order = [kept[a] for a in perm] + list(red.arg.axes)
        moved = view(src, lambda t: t.permute(order))
        node.recompute_as(REDUCE, (moved,), Reduce(red.arg.op, tuple(range(len(perm), len(order)))))


def _permutation(tracker: ShapeTracker, shape: tuple[int, ...]) -> tuple[int, ...] | None:
    """The axes `p` for which `tracker` reads an array of `shape` as its transpose `p`,
    or None when it reads it some other way."""
    (last, *below) = reversed(tracker.views)
    if below or len(last.shape) != len(shape) or sorted(last.shape) != sorted(shape):
        return None
    strides = ShapeTracker.from_shape(shape).views[0].strides
    ones = [a for a, n in enumerate(shape) if n == 1]  # size-1 axes may go anywhere
    perm = [ones.pop() if n == 1 else next((a for a in range(len(shape)) if (shape[a], strides[a]) == (n, s)), -1)
            for n, s in zip(last.shape, last.strides)]
    if sorted(perm) != list(range(len(shape))):
        return None
    return tuple(perm) if ShapeTracker.from_shape(shape).permute(perm) == tracker else None


def _build(root, fused, materialized: set, max_inputs, steps: list) -> None:
    """Append the kernel of `root`, first splitting off inlined operands while it reads
    more buffers than the device can bind."""
    if root.kind == ROUTINE:
        steps.append(Step(root.arg, list(root.srcs), root))
        return
    while True:
        builder = _KernelBuilder(root, fused, materialized)
        kernel = builder.kernel()
        if max_inputs is None or len(builder.inputs) <= max_inputs:
            steps.append(Step(kernel, builder.inputs, root))
            return
        part = _largest_inlined(root, materialized)
        if part is None:
            raise ValueError(
                f"a kernel for {root} reads {len(builder.inputs)} buffers, more than the "
                f"device's {max_inputs} storage bindings, and cannot be split")
        materialized.add(id(part))
        _build(part, None, materialized, max_inputs, steps)


def _largest_inlined(root: LazyNode, materialized: set) -> LazyNode | None:
    """The costliest computed node that `root`'s kernel computes inline."""
    best, stack, seen = None, list(root.srcs), set()
    while stack:
        node = stack.pop()
        if id(node) in seen or node.kind == BUFFER or id(node) in materialized:
            continue
        seen.add(id(node))
        if node.kind != REDUCE and _is_computed(node) and (best is None or node.cost > best.cost):
            best = node
        stack.extend(node.srcs)
    return best
