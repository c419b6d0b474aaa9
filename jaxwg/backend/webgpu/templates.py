"""Kernel templates: a tuned kernel pass to a complete WGSL compute shader.

Four shapes of shader, on the scaffolding of `shader.Shader` (bindings, uniforms,
stores):

* **elementwise**: one thread per output element (four with vec4 loads and stores).
* **reduction**: one thread per `upcast` outputs, each with its own accumulator
  variable (`acc0`, `acc1`, ...), the loop over the reduction index unrolled
  `unroll` times with constant offsets, then the epilogue. Accumulators are plain
  named variables and the unrolled body uses constant indices: dynamic indexing into
  a local array pushes it to memory (16x slower on the H200, docs/webgpu-notes.md).
* **grouped reduction**: `group` threads of a workgroup stride through one long
  reduction, then combine their partial results in workgroup memory.
* **matrix product** (`matmul.py`): a reduction recognized as a batched matrix product,
  computed in tiles.

Kernels have their non-zero constants lifted into immediate data (`lift_constants`),
as long as they fit the device's immediate size, so that filling with 1.0 and with
2.0, eager `x * 0.5` and `x * 0.25`, or `sum(x * c)` for any `c`, share one pipeline.
Outputs larger than one storage binding are written in several dispatches, each
binding one window and offsetting `gidx` by a uniform `base`.

>>> from jaxwg.core import alu, dtypes as dt
>>> from jaxwg.core.kernel import Kernel
>>> from jaxwg.backend.webgpu.tuner import Tuning
>>> k = Kernel(1, 10, alu.unary(alu.Op.EXP, alu.load(0, dt.float32, alu.gidx(10))))
>>> spec = build_shader(k, Tuning(workgroup_size=64), ShaderOptions(windows=(1,)))
>>> print(spec.code.split("fn main")[1])
(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  jaxwg_opaque = nwg.z - 1u;  // grids are (x, y, 1)
  let tid = i32(gid.x + gid.y * nwg.x * 64u);
  if (tid >= 10i) { return; }
  let gidx = tid;
  result[gidx] = exp_f32(in0[gidx]);
}
"""

from __future__ import annotations

from dataclasses import replace

from ...core import alu
from ...core import dtypes as dt
from ...core.alu import AluExp, Op
from ...core.kernel import Kernel
from . import matmul
from .codegen import STORAGE_TYPE, WGSL_TYPE, strip_parens
from .shader import (GROUP_BUILTINS, THREAD_BUILTINS, Shader, ShaderOptions, ShaderSpec, UniformField,
                     lift_constants, output_limit, reduced_value)
from .tuner import Tuning, quad_inputs, reads_quads, vector_inputs


def elementwise(kernel: Kernel, tuning: Tuning, options: ShaderOptions,
                uniforms: tuple[UniformField, ...] = ()) -> ShaderSpec:
    s = Shader(kernel, tuning, options, uniforms)
    b, wg = s.b, tuning.workgroup_size
    s.begin_main(THREAD_BUILTINS)
    with b.indent():
        b.emit(f"let tid = i32(gid.x + gid.y * nwg.x * {wg}u);")
        b.emit(f"if ({s.output_index('tid')} >= {output_limit(s)}) {{ return; }}")
        b.emit(f"let gidx = {s.output_index('tid')};")
        # Simplified first: WGSL rejects constant expressions that divide by zero or
        # overflow, so no op on constants alone may reach the shader.
        exp = kernel.exp.simplify()
        g = s.codegen()
        g.count_references(exp)
        s.store("gidx", g.run(exp), kernel.dtype)
    return s.finish(wg)


_LANES = "xyzw"


def elementwise_vec4(kernel: Kernel, tuning: Tuning, options: ShaderOptions,
                     uniforms: tuple[UniformField, ...] = ()) -> ShaderSpec:
    """Four consecutive outputs per thread: inputs read at `gidx` load one vec4, the
    expression is computed per lane with scalar code (so every helper applies), and
    the four results are stored as one vec4. On the H200 vec4 access is what reaches
    memory bandwidth (docs/webgpu-notes.md). A size that is not a multiple of 4 ends in
    a thread whose last lanes compute from, and store to, the padding of the bindings
    (all are whole vec4s, `buffers.align16`), which no array's elements use. A jitted
    `random.uniform` of 1,048,577 values on lavapipe: 15.2 ms a scalar a thread, 5.7-6.0
    so (6.2 for 1,048,576)."""
    vector_args = vector_inputs(kernel)
    s = Shader(kernel, tuning, options, uniforms, vector_args)
    b, wg = s.b, tuning.workgroup_size
    threads = -(-kernel.size // 4)
    s.begin_main(THREAD_BUILTINS)
    with b.indent():
        b.emit(f"let t = i32(gid.x + gid.y * nwg.x * {wg}u);")
        b.emit(f"if (t >= {threads}i) {{ return; }}")
        t = alu.special("t", threads)
        body, reads = _read_quads(kernel.exp.simplify(), vector_args, "v")
        for name, arg, _ in reads:  # each vector input is read only at gidx, lane 0 of t
            b.emit(f"let {name} = in{arg}[t];")
        names = {name for name, _, _ in reads}
        lanes = [_lane_of(body, names, j).substitute({"gidx": t * 4 + j}).simplify() for j in range(4)]
        g = s.codegen()
        for lane in lanes:
            g.count_references(lane)
        texts = [strip_parens(g.run(lane)) for lane in lanes]
        out = STORAGE_TYPE[kernel.dtype]
        if kernel.dtype.is_bool:
            texts = [f"select(0i, 1i, {x})" for x in texts]
        b.emit(f"result[t] = vec4<{out}>({', '.join(texts)});")
    return s.finish(wg * 4)


def reduction(kernel: Kernel, tuning: Tuning, options: ShaderOptions,
              uniforms: tuple[UniformField, ...] = ()) -> ShaderSpec:
    red = kernel.reduction
    up, unroll, wg = tuning.upcast, tuning.unroll, tuning.workgroup_size
    # Unrolled by 4, inputs read at four contiguous terms are read one vec4 per step:
    # lavapipe loads lane by lane, so that doubled its row and full sums (3 to 5-7 GB/s).
    quads = quad_inputs(kernel, alu.ridx(red.size), options.windows) if unroll == 4 else frozenset()
    # With outputs upcast by a multiple of 4, inputs read at four neighbouring outputs
    # (a sum over a leading axis) are read one vec4 per four outputs: the tuner gives
    # lavapipe's column sums 16 outputs a thread, and 2048^2 ran at 2.0 -> 7 GB/s.
    output_quads = frozenset()
    if up % 4 == 0 and not options.output_windowed:
        output_quads = quad_inputs(kernel, alu.gidx(kernel.size), options.windows) - quads
    s = Shader(kernel, tuning, options, uniforms, quads | output_quads)
    b = s.b
    acc_dtype, acc_ty = red.acc_dtype, WGSL_TYPE[red.acc_dtype]
    s.begin_main(THREAD_BUILTINS)
    with b.indent():
        b.emit(f"let tid = i32(gid.x + gid.y * nwg.x * {wg}u);")
        gidxs = _thread_outputs(s, tuning)
        accs = [alu.variable(acc_dtype, f"acc{u}") for u in range(len(gidxs))]
        for acc in accs:
            b.emit(f"var {acc.arg}: {acc_ty} = {s.codegen().run(red.identity)};")
        body = alu.cast(acc_dtype, kernel.exp)
        steps, tail = divmod(red.size, unroll)

        def emit_terms(ridxs: list[AluExp], targets) -> None:
            reads, terms = _quad_terms(body, gidxs, ridxs, quads, output_quads)
            g = s.codegen()
            for name, arg, index in reads:
                b.emit(f"let {name} = in{arg}[u32({strip_parens(g.run(index))}) >> 2u];")
            _emit_accumulation(s, red.op, targets, terms)

        if steps:
            step = alu.special("r", steps)
            _emit_cascade(s, red.op, acc_dtype, red.identity, steps, [a.arg for a in accs],
                          lambda targets: emit_terms([step * unroll + k for k in range(unroll)], targets))
        if tail:
            b.emit(f"for (var rt: i32 = 0i; rt < {tail}i; rt++) {{")
            with b.indent():
                emit_terms([alu.special("rt", tail) + steps * unroll], accs)
            b.emit("}")
        _emit_epilogues(s, accs, gidxs)
    return s.finish(wg * up)


def _quad_terms(body: AluExp, gidxs: list[AluExp], ridxs: list[AluExp], quads: frozenset,
                output_quads: frozenset) -> tuple[list, list[list[AluExp]]]:
    """The terms `ridxs` of the outputs `gidxs` (terms[u][k]), with the inputs `quads`
    read as one vec4 per output whose lanes are the four terms, and the inputs
    `output_quads` as one vec4 per term and four outputs (`gidxs` come in fours from a
    multiple of 4) whose lanes are the outputs; also those reads, as (variable name,
    input, load index at the first term or output)."""
    reads, terms = [], []
    for u, g in enumerate(gidxs):
        quad_body, quad_reads = _read_quads(body, quads, f"quad{u}_")
        reads += [(name, arg, index.substitute({"gidx": g, "ridx": ridxs[0]}).simplify())
                  for name, arg, index in quad_reads]
        names = {name for name, _, _ in quad_reads}
        row = []
        for k, r in enumerate(ridxs):
            term, out_reads = _read_quads(quad_body, output_quads, f"out{u // 4}_{k}_")
            if u % 4 == 0:
                reads += [(name, arg, index.substitute({"gidx": g, "ridx": r}).simplify())
                          for name, arg, index in out_reads]
            term = _lane_of(_lane_of(term, names, k), {name for name, _, _ in out_reads}, u % 4)
            row.append(term.substitute({"gidx": g, "ridx": r}).simplify())
        terms.append(row)
    return reads, terms


def _read_quads(body: AluExp, quads: frozenset, prefix: str) -> tuple[AluExp, list[tuple[str, int, AluExp]]]:
    """`body` with each distinct load of a vec4 input replaced by a vec4 variable
    (`<prefix>0`, ...), and (name, input, load index) of each variable. The vec4s
    are read by the templates (elementwise_vec4, reduction), and `_lane_of` picks a lane."""
    reads: dict[AluExp, str] = {}

    def replace_load(node: AluExp):
        if node.op is Op.LOAD and node.arg in quads:
            reads.setdefault(node, f"{prefix}{len(reads)}")
            stored = dt.int32 if node.dtype.is_bool else node.dtype  # bool is stored as i32
            value = alu.variable(stored, reads[node])
            return value.ne(0) if node.dtype.is_bool else value
        return None

    return body.rewrite(replace_load), [(name, load.arg, load.src[0]) for load, name in reads.items()]


def _lane_of(body: AluExp, names: set[str], lane: int) -> AluExp:
    """The vec4 variables `names` of `_read_quads` as their component `lane`."""
    def pick(node: AluExp):
        if node.op is Op.VARIABLE and node.arg in names:
            return alu.variable(node.dtype, f"{node.arg}.{_LANES[lane]}")
        return None

    return body.rewrite(pick)


def _thread_outputs(s: Shader, tuning: Tuning) -> list[AluExp]:
    """The `upcast` consecutive output indices of thread `tid`, after returning threads
    past the end."""
    up = tuning.upcast
    tid = alu.special("tid", -(-s.kernel.size // up))
    first = s.output_index(f"tid * {up}i") if up > 1 else s.output_index("tid")
    s.b.emit(f"if ({first} >= {output_limit(s)}) {{ return; }}")
    gidxs = [tid * up + u if up > 1 else tid for u in range(up)]
    if s.options.output_windowed:
        base = alu.variable(dt.int32, "u.base")
        gidxs = [base + g for g in gidxs]
    return gidxs


# A float sum adds at most CASCADE_FAN_IN values into one accumulator in sequence, in
# up to CASCADE_LEVELS nested loops (see `_emit_cascade`): rounding errors grow with
# the logarithm of the length, as in a pairwise sum, not with the length. lavapipe
# miscompiles loops nested 8 deep; the tuner keeps per-thread loops within
# CASCADE_FAN_IN ** CASCADE_LEVELS steps where it can (`tuner.MAX_THREAD_TERMS`).
CASCADE_FAN_IN = 8
CASCADE_LEVELS = 4


def _cascade_levels(op: Op, acc_dtype: dt.DType, steps: int) -> int:
    """How many nested loops accumulate `steps` loop steps (1: a plain loop)."""
    if not (op is Op.ADD and acc_dtype.is_float):
        return 1  # exact (integers, min, max) or no better in any order (products)
    levels = 1
    while CASCADE_FAN_IN ** levels < steps and levels < CASCADE_LEVELS:
        levels += 1
    return levels


def _emit_cascade(s: Shader, op: Op, acc_dtype: dt.DType, identity: AluExp, steps: int,
                  accs: list[str], emit_step) -> None:
    """Loops over `r` in [0, steps), with `emit_step(targets)` emitting the body that adds
    one step's terms into the variables `targets`. A float sum runs nested loops: the
    innermost adds CASCADE_FAN_IN steps into fresh partial sums, each level above adds
    CASCADE_FAN_IN of those, the outermost adds into `accs`. The rounding error then
    grows with CASCADE_FAN_IN * log(steps) rather than with `steps`, and there is no
    compensation term (Kahan's) for a fast-math compiler to fold away."""
    b, levels = s.b, _cascade_levels(op, acc_dtype, steps)
    ty = WGSL_TYPE[acc_dtype]
    identity = s.codegen().run(identity)

    block = CASCADE_FAN_IN ** (levels - 1)  # steps per iteration of the outermost loop
    outer = -(-steps // block)

    def loop(level: int, targets: list[str], base: str) -> None:
        weight = CASCADE_FAN_IN ** level
        var = "r" if levels == 1 else f"r{level}"
        count = outer if level == levels - 1 else CASCADE_FAN_IN
        b.emit(f"for (var {var}: i32 = 0i; {var} < {count}i; {var}++) {{")
        with b.indent():
            here = f"{var} * {weight}i" if weight > 1 else var
            offset = here if base == "0i" else f"{base} + {here}"
            if level == 0:
                if levels > 1:
                    b.emit(f"let r = {offset};")
                if outer * block != steps:  # the last block is short
                    b.emit(f"if (r >= {steps}i) {{ break; }}")
                emit_step(targets)
            else:
                partials = [f"{name}_{level - 1}" for name in accs]
                b.emit(*(f"var {p}: {ty} = {identity};" for p in partials))
                loop(level - 1, partials, offset)
                b.emit(*(f"{t} = {t} + {p};" for t, p in zip(targets, partials)))
        b.emit("}")

    loop(levels - 1, accs, "0i")


def _emit_accumulation(s: Shader, op: Op, accs: list, terms: list[list[AluExp]],
                       names: dict | None = None) -> None:
    """acc_u = acc_u OP (tree of t_u0, t_u1, ...): the terms of one step are combined
    pairwise; shared subexpressions across all terms become lets. `names` spells
    special indices other than by their names."""
    g = s.codegen()
    g.names.update(names or {})
    if any(_tree_needs_guards(g, op, row) for row in terms):
        terms = _opaque_terms(s, g, terms)
    updates = []
    for acc, row in zip(accs, terms):
        acc = acc if isinstance(acc, AluExp) else alu.variable(row[0].dtype, acc)
        updates.append((acc.arg, alu.binary(op, acc, _tree(op, row))))
    for _, u in updates:
        g.count_references(u)
    texts = [(name, g.run(u)) for name, u in updates]
    for name, text in texts:
        s.b.emit(f"{name} = {strip_parens(text)};")


def _tree_needs_guards(g, op: Op, row: list[AluExp]) -> bool:
    """Whether adding the float32 or float64 terms of one step pairwise would take the IEEE guards
    (codegen's `fold_hazard`): terms that share a factor (x0 * d, x1 * d: one example's
    outer product, reduced) could be factored by a compiler assuming finite math."""
    if op is not Op.ADD or row[0].dtype not in (dt.float32, dt.float64):
        return False
    return any(g.fold_hazard(node) for node in _tree_nodes(op, row)[0])


def _opaque_terms(s: Shader, g, terms: list[list[AluExp]]) -> list[list[AluExp]]:
    """Each term as a `let` of its opaque copy (builtins' `opaque_<type>`: its bits XORed
    with a zero only the run knows), so that no algebra relates two terms and their sum
    needs no guards: one integer op a term instead of about fifteen an add. The
    per-example gradient norms' sums of squared outer products on an H100: 295 and 175
    µs with guarded adds. A square's operand is made opaque instead, and the term is
    its square: no algebra relates two such terms either, and a compiler may fuse the
    square into the add (one multiply-add a term of a sum of squares)."""
    for row in terms:
        for term in row:
            g.count_references(term)
    helper = f"opaque_{WGSL_TYPE[terms[0][0].dtype]}"
    g.builder.need(helper)
    opaque = []
    for row in terms:
        names = []
        for term in row:
            square = term.op is Op.MUL and term.src[0] is term.src[1]
            name = g.fresh("term")
            s.b.emit(f"let {name} = {helper}({strip_parens(g.run(term.src[0] if square else term))});")
            value = alu.variable(term.dtype, name)
            names.append(value * value if square else value)
        opaque.append(names)
    return opaque


def _tree_nodes(op: Op, terms: list[AluExp]) -> tuple[list[AluExp], AluExp]:
    """The nodes that combine t0 OP t1 OP ... as a balanced tree, level by level, and
    the root (the one term when there is one)."""
    nodes = []
    while len(terms) > 1:
        pairs = [alu.binary(op, a, b) for a, b in zip(terms[::2], terms[1::2])]
        nodes += pairs
        terms = pairs + ([terms[-1]] if len(terms) % 2 else [])
    return nodes, terms[0]


def _tree(op: Op, terms: list[AluExp]) -> AluExp:
    """t0 OP t1 OP ... combined as a balanced tree."""
    return _tree_nodes(op, terms)[1]


def _emit_epilogues(s: Shader, accs: list[AluExp], gidxs: list[AluExp]) -> None:
    red = s.kernel.reduction
    g = s.codegen()
    outs = []
    for acc, gidx in zip(accs, gidxs):
        value = reduced_value(red, acc)
        exp = red.epilogue.substitute({"acc": value, "gidx": gidx}).simplify()
        index = gidx.simplify()
        g.count_references(exp)
        g.count_references(index)
        outs.append((index, exp))
    for index, exp in outs:
        s.store(strip_parens(g.run(index)), g.run(exp), s.kernel.dtype)


def grouped_reduction(kernel: Kernel, tuning: Tuning, options: ShaderOptions,
                      uniforms: tuple[UniformField, ...] = ()) -> ShaderSpec:
    s = Shader(kernel, tuning, options, uniforms)
    b, red, group = s.b, kernel.reduction, tuning.group
    op, acc_dtype, identity, body = _workgroup_monoid(red, kernel.exp)
    acc_ty = WGSL_TYPE[acc_dtype]
    rows = tuning.workgroup_size // group  # outputs per workgroup, `group` threads each
    b.lines.insert(0, f"var<workgroup> partials: array<{acc_ty}, {tuning.workgroup_size}>;")
    s.begin_main(GROUP_BUILTINS)
    with b.indent():
        b.emit("let wgi = i32(wid.x + wid.y * nwg.x);")
        if rows == 1:  # the whole workgroup shares one output: it may return early together
            b.emit(f"if ({s.output_index('wgi')} >= {output_limit(s)}) {{ return; }}")
            b.emit("let lane = lid;", f"let gidx = {s.output_index('wgi')};")
        else:  # no early return before barriers: past the end, compute the last row, store nothing
            b.emit(f"let lane = lid % {group}u;")
            b.emit(f"let out = {s.output_index(f'wgi * {rows}i + i32(lid / {group}u)')};")
            b.emit(f"let gidx = min(out, {output_limit(s)} - 1i);")
        b.emit(f"var acc: {acc_ty} = {s.codegen().run(identity.simplify())};")
        # Each thread takes terms lid, lid + group, ...; `unroll` of them per iteration
        # so that several loads are in flight.
        unroll = tuning.unroll
        steps = -(-red.size // (group * unroll))
        terms = []
        for k in range(unroll):
            ridx = (alu.special("r", steps) * unroll + k) * group + alu.special("lane", group)
            term = body.substitute({"ridx": ridx})
            if steps * unroll * group != red.size:
                term = alu.where(ridx.lt(red.size), term, identity)
            terms.append(term.simplify())
        _emit_cascade(s, op, acc_dtype, identity, steps, ["acc"],
                      lambda targets: _emit_accumulation(s, op, targets, [terms], {"lane": "i32(lane)"}))
        _emit_tree(s, op, acc_dtype, group)
        b.emit("if (lane == 0u) {" if rows == 1 else f"if (lane == 0u && out < {output_limit(s)}) {{")
        with b.indent():
            total = alu.variable(acc_dtype, "partials[lid]")
            exp = red.epilogue.substitute({"acc": reduced_value(red, total)}).simplify()
            g = s.codegen()
            g.count_references(exp)
            s.store("gidx", g.run(exp), kernel.dtype)
        b.emit("}")
    return s.finish(rows)


def _workgroup_monoid(red, exp: AluExp) -> tuple[Op, dt.DType, AluExp, AluExp]:
    """(op, accumulation dtype, identity, term) of a reduction whose threads combine
    their results in workgroup memory: bool there miscomputes on NVIDIA, so 0/1 reduce
    as int32 (any = max, all = min)."""
    op, acc_dtype, identity, body = red.op, red.acc_dtype, red.identity, alu.cast(red.acc_dtype, exp)
    if acc_dtype.is_bool:
        op = Op.MAX if op in (Op.ADD, Op.MAX) else Op.MIN
        acc_dtype, identity, body = dt.int32, alu.cast(dt.int32, identity), alu.cast(dt.int32, body)
    return op, acc_dtype, identity, body


def _emit_tree(s: Shader, op: Op, acc_dtype: dt.DType, group: int, array: str = "partials",
               acc: str = "acc") -> None:
    """Combine each output's `group` partial results (`acc` of each of its threads)
    pairwise in the workgroup array `array`; its first thread's slot holds the result.
    With subgroup operations the threads of a subgroup first combine theirs by
    exchanging registers (`_emit_subgroup_butterfly`), and the tree in workgroup
    memory only takes the strides of a subgroup or more: on NVIDIA (32 lanes) 3 of the
    8 steps of a group of 256."""
    b = s.b
    butterfly = _emit_subgroup_butterfly(s, op, acc_dtype, group, acc)
    b.emit(f"{array}[lid] = {acc};", "workgroupBarrier();")
    width = group // 2
    a = alu.variable(acc_dtype, f"{array}[lid]")
    other = alu.variable(acc_dtype, f"{array}[lid + stride]")
    combined = s.codegen().run(alu.binary(op, a, other))
    last = "sg_size" if butterfly else "1u"
    b.emit(f"for (var stride = {width}u; stride >= {last}; stride = stride / 2u) {{")
    with b.indent():
        b.emit(f"if (lane < stride) {{ {array}[lid] = {strip_parens(combined)}; }}", "workgroupBarrier();")
    b.emit("}")


# Types the subgroup operations take (WGSL's subgroups: f16 needs a feature of its own).
_SUBGROUP_TYPES = (dt.float32, dt.int32, dt.uint32)


def _emit_subgroup_butterfly(s: Shader, op: Op, acc_dtype: dt.DType, group: int, acc: str) -> bool:
    """With subgroup operations (and a 4-byte accumulator): `acc` op= `acc` of the lane
    whose index differs in bit m, for m = 1, 2, 4, ... below min(group, subgroup size),
    so that every lane of a subgroup's block of `group` threads holds their total.
    Subgroups are runs of consecutive local indices (as on every adapter jaxwg has
    met); blocks of `group` (a power of 2) threads then never straddle two. Whether it
    emitted anything."""
    if not s.options.subgroups or acc_dtype not in _SUBGROUP_TYPES or group < 2:
        return False
    s.add_builtin("@builtin(subgroup_size) sg_size: u32")
    mine = alu.variable(acc_dtype, acc)
    theirs = alu.variable(acc_dtype, f"subgroupShuffleXor({acc}, mask)")
    s.b.emit(f"for (var mask = 1u; mask < min({group}u, sg_size); mask = mask * 2u) {{")
    with s.b.indent():  # the combination's temporaries, if any, belong inside the loop
        s.b.emit(f"{acc} = {strip_parens(s.codegen().run(alu.binary(op, mine, theirs)))};")
    s.b.emit("}")
    return True


# Steps of a row that a row kernel's threads unroll, keeping the vec4s they read in
# registers for every stage, so that the row is read from memory once (8 steps hold 32
# values of each input per thread); longer rows loop, and read again from cache. Rows
# of at most `tuning.unroll` terms a thread unroll too, however many steps they take
# (`tuner.row_tuning`: software adapters).
MAX_UNROLLED_STEPS = 8


def row_kernel(kernel: Kernel, tuning: Tuning, options: ShaderOptions,
               uniforms: tuple[UniformField, ...] = ()) -> ShaderSpec:
    """A kernel with row stages (`core.kernel`): `group` threads per row and
    `workgroup_size // group` rows per workgroup. For each stage in turn the row's
    threads reduce its terms (4 consecutive ones per thread and step where the length
    allows, read as one vec4 where the input does), combine their results in workgroup
    memory, and all take the stage's value; then the row's outputs: a reduction the
    same way, stored by the row's first thread, or the row's elements (vec4 stores
    with `tuning.vector` 4). Short rows unroll their steps (`_unrolled_row`), long
    ones loop (`_looped_row`)."""
    if options.output_windowed:
        raise ValueError("a kernel with row stages writes its whole output through one binding")
    group, per_workgroup = tuning.group, tuning.workgroup_size // tuning.group
    quads = _row_quads(kernel, options.windows)
    s = Shader(kernel, tuning, options, uniforms, quads)
    b, rows = s.b, kernel.rows
    lengths = [k.reduction.size for k in (*kernel.stages, kernel) if k.reduction is not None]
    widths, steps, _ = zip(*(_row_steps(n, group) for n in lengths + [0 if kernel.reduction else kernel.row_length]))
    unrolled = max(steps) <= MAX_UNROLLED_STEPS or max(w * n for w, n in zip(widths, steps)) <= tuning.unroll
    s.begin_main(GROUP_BUILTINS)
    with b.indent():
        b.emit("let wgi = i32(wid.x + wid.y * nwg.x);",
               f"let lane = lid % {group}u;", "let lanei = i32(lane);",
               f"let row = wgi * {per_workgroup}i + i32(lid / {group}u);",
               # no early return before barriers: past the end, compute the last row, store nothing
               f"let gidx = min(row, {rows - 1}i);")
        (_unrolled_row if unrolled else _looped_row)(s, _RowReads(s, quads, unrolled))
    return s.finish(per_workgroup * kernel.row_length)


def _row_steps(length: int, group: int) -> tuple[int, int, list[AluExp]]:
    """(terms per thread and step, steps, the row positions of step `r`'s terms) for a
    row of `length` shared by `group` threads."""
    width = 4 if length % 4 == 0 else 1
    steps = -(-length // (group * width))
    first = (alu.special("r", max(steps, 1)) * group + alu.special("lanei", group)) * width
    return width, steps, [first + k for k in range(width)]


class _RowReads:
    """The terms of a row kernel's steps, with the vec4 inputs read as vec4s.

    `unrolled`: every step of every stage is written out, and each vec4 is read once at
    function scope and kept for the stages after (the row is read from memory once);
    otherwise the steps loop and each stage reads its row again (from cache)."""

    def __init__(self, s: Shader, quads: frozenset, unrolled: bool):
        self.s, self.quads, self.unrolled = s, quads, unrolled
        self.names: dict = {}  # (input, index of the vec4's first element) -> its variable
        self.count = 0

    def at(self, ridxs: list[AluExp], r: int) -> list[AluExp]:
        """Step `r`'s positions (unrolled steps are constants)."""
        return [x.substitute({"r": alu.const(dt.int32, r)}).simplify() for x in ridxs]

    def terms(self, body: AluExp, ridxs: list[AluExp]) -> list[AluExp]:
        """`body` at the positions `ridxs` of one step; emits the vec4 reads it needs that
        are not in scope yet."""
        self.count += 1
        quads = self.quads if len(ridxs) == 4 else frozenset()
        quad_body, found = _read_quads(body, quads, f"q{self.count}_")
        renames = {}
        for name, arg, index in found:
            first = index.substitute({"ridx": ridxs[0]}).simplify()
            if (arg, first) in self.names:
                renames[name] = self.names[(arg, first)]
                continue
            self.s.b.emit(f"let {name} = in{arg}[u32({strip_parens(self.s.codegen().run(first))}) >> 2u];")
            if self.unrolled:
                self.names[(arg, first)] = name
        if renames:
            quad_body = quad_body.rewrite(lambda n: alu.variable(n.dtype, renames[n.arg])
                                          if n.op is Op.VARIABLE and n.arg in renames else None)
        names = {renames.get(name, name) for name, _, _ in found}
        return [_lane_of(quad_body, names, k).substitute({"ridx": r}).simplify()
                for k, r in enumerate(ridxs)]

    def reduction_terms(self, red, body: AluExp, identity: AluExp, ridxs: list[AluExp]) -> list[AluExp]:
        """One step's terms of the reduction `red`, those past the row's end `identity`."""
        terms = self.terms(body, ridxs)
        width, steps, _ = _row_steps(red.size, self.s.tuning.group)
        if steps * self.s.tuning.group * width == red.size:
            return terms
        return [alu.where(r.lt(red.size), t, identity).simplify() for r, t in zip(ridxs, terms)]


def _row_reductions(kernel: Kernel):
    """(name, kernel) of each row value: the stages (`stage<j>`), then a reduction's output."""
    named = [(f"stage{j}", stage) for j, stage in enumerate(kernel.stages)]
    return named + ([("out", kernel)] if kernel.reduction is not None else [])


def _combine_row(s: Shader, name: str, op: Op, acc_dtype: dt.DType) -> AluExp:
    """After each thread's `<name>_acc`: the row's total, combined in workgroup memory
    (`<name>_partials[lid - lane]`) when the row has several threads."""
    if s.tuning.group == 1:
        return alu.variable(acc_dtype, f"{name}_acc")
    array = f"{name}_partials"
    s.b.lines.insert(0, f"var<workgroup> {array}: array<{WGSL_TYPE[acc_dtype]}, {s.tuning.workgroup_size}>;")
    _emit_tree(s, op, acc_dtype, s.tuning.group, array, f"{name}_acc")
    return alu.variable(acc_dtype, f"{array}[lid - lane]")


def _element_positions(s: Shader) -> tuple[int, list[AluExp], AluExp]:
    """(steps, row positions of step `r`'s elements, the body at row `gidx`, position `ridx`)."""
    kernel = s.kernel
    rows, length = kernel.rows, kernel.row_length
    _, steps, cols = _row_steps(length, s.tuning.group)
    exp = kernel.exp.substitute({"gidx": alu.gidx(rows) * length + alu.ridx(length)}).simplify()
    return steps, cols, exp


def _store_row_elements(s: Shader, indices: list[str], texts: list[str]) -> None:
    """Store the values `texts` at the output positions `indices` (one vec4 with
    `tuning.vector` 4)."""
    kernel = s.kernel
    if s.vector_output:
        out = STORAGE_TYPE[kernel.dtype]
        if kernel.dtype.is_bool:
            texts = [f"select(0i, 1i, {x})" for x in texts]
        s.b.emit(f"result[u32({strip_parens(indices[0])}) >> 2u] = vec4<{out}>({', '.join(texts)});")
    else:
        for index, text in zip(indices, texts):
            s.store(strip_parens(index), text, kernel.dtype)


def _in_row(s: Shader, first: AluExp) -> str:
    """Whether the row position `first` is in a row of the output."""
    return f"row < {s.kernel.rows}i && {strip_parens(s.codegen().run(first))} < {s.kernel.row_length}i"


def _emit_row_value(s: Shader, name: str, text: str) -> None:
    """`let stage<j> = text`, or the store of a reduction's output by the row's first thread."""
    if name != "out":
        s.b.emit(f"let {name} = {text};")
        return
    s.b.emit(f"if (lane == 0u && row < {s.kernel.rows}i) {{")
    with s.b.indent():
        s.store("gidx", text, s.kernel.dtype)
    s.b.emit("}")


def _unrolled_row(s: Shader, reads: _RowReads) -> None:
    """Every step of every stage written out, all at function scope and in one codegen:
    each vec4 is read once, and a value two stages share (softmax's exp(x - max), layer
    norm's x - mean) or the outputs share (a row's 1 / sqrt(var + eps)) is computed once."""
    kernel, b, group = s.kernel, s.b, s.tuning.group
    top = s.codegen()
    plans = []  # (name, kernel, monoid, each step's terms, the value of its total `acc`)
    for name, k in _row_reductions(kernel):
        red = k.reduction
        if red is None:
            plans.append((name, k, None, [], k.exp.simplify()))
            continue
        monoid = _workgroup_monoid(red, k.exp)
        op, acc_dtype, identity, body = monoid
        _, steps, ridxs = _row_steps(red.size, group)
        step_terms = [reads.reduction_terms(red, body, identity, reads.at(ridxs, r)) for r in range(steps)]
        total = alu.variable(acc_dtype, f"{name}_acc" if group == 1 else f"{name}_partials[lid - lane]")
        plans.append((name, k, monoid, step_terms, red.epilogue.substitute({"acc": reduced_value(red, total)}).simplify()))
    elements = []  # (first position, indices, values) of each step
    if kernel.reduction is None:
        rows, length = kernel.rows, kernel.row_length
        steps, cols, exp = _element_positions(s)
        for r in range(steps):
            positions = reads.at(cols, r)
            values = reads.terms(exp, positions)  # reads past the row's end are discarded
            indices = [(alu.gidx(rows) * length + c).simplify() for c in positions]
            elements.append((positions[0], indices, values))
    for _, _, _, step_terms, value in plans:
        for t in (t for terms in step_terms for t in terms):
            top.count_references(t)
        top.count_references(value)
    for _, indices, values in elements:
        for e in values + indices:
            top.count_references(e)
    for name, k, monoid, step_terms, value in plans:
        if monoid is not None:
            op, acc_dtype, identity, _ = monoid
            acc = alu.variable(acc_dtype, f"{name}_acc")
            b.emit(f"var {acc.arg}: {WGSL_TYPE[acc_dtype]} = {top.run(identity)};")
            for terms in step_terms:
                b.emit(f"{acc.arg} = {strip_parens(top.run(alu.binary(op, acc, _tree(op, terms))))};")
            _combine_row(s, name, op, acc_dtype)
        _emit_row_value(s, name, strip_parens(top.run(value)))
    rendered = [(first, [top.run(i) for i in indices], [strip_parens(top.run(v)) for v in values])
                for first, indices, values in elements]
    for first, indices, texts in rendered:
        b.emit(f"if ({_in_row(s, first)}) {{")
        with b.indent():
            _store_row_elements(s, indices, texts)
        b.emit("}")


def _looped_row(s: Shader, reads: _RowReads) -> None:
    """Each stage's steps a loop (a cascade of partial sums for float sums), reading its
    row again; then the row's elements, a loop too."""
    kernel, b = s.kernel, s.b
    top = s.codegen()  # for the function's scope: its temporaries get distinct names
    for name, k in _row_reductions(kernel):
        red = k.reduction
        if red is None:
            exp = k.exp.simplify()
        else:
            op, acc_dtype, identity, body = _workgroup_monoid(red, k.exp)
            b.emit(f"var {name}_acc: {WGSL_TYPE[acc_dtype]} = {s.codegen().run(identity)};")
            _, steps, ridxs = _row_steps(red.size, s.tuning.group)
            _emit_cascade(s, op, acc_dtype, identity, steps, [f"{name}_acc"],
                          lambda targets: _emit_accumulation(
                              s, op, targets, [reads.reduction_terms(red, body, identity, ridxs)]))
            total = _combine_row(s, name, op, acc_dtype)
            exp = red.epilogue.substitute({"acc": reduced_value(red, total)}).simplify()
        top.reset()
        top.count_references(exp)
        _emit_row_value(s, name, strip_parens(top.run(exp)))
    if kernel.reduction is not None:
        return
    rows, length = kernel.rows, kernel.row_length
    steps, cols, exp = _element_positions(s)
    b.emit(f"for (var r: i32 = 0i; r < {steps}i; r++) {{")
    with b.indent():
        first = cols[0].simplify()
        b.emit(f"if (!({_in_row(s, first)})) {{ break; }}")
        values = reads.terms(exp, cols)
        indices = [(alu.gidx(rows) * length + c).simplify() for c in cols]
        g = s.codegen()
        for e in values + indices:
            g.count_references(e)
        texts = [strip_parens(g.run(v)) for v in values]
        _store_row_elements(s, [g.run(i) for i in indices], texts)
    b.emit("}")


def _row_quads(kernel: Kernel, windows: tuple[int, ...]) -> frozenset[int]:
    """The inputs a row kernel reads as vec4s: of a 4-byte type in one binding, and read
    only in the stepped loops (reductions, and the row's elements) of rows of a multiple
    of 4, at four aligned consecutive positions (`tuner.reads_quads`)."""
    rows, length = kernel.rows, kernel.row_length
    parts: list[tuple[AluExp, int]] = []  # (expression, its stepped row length; 0 if not stepped)
    for k in (*kernel.stages, kernel):
        if k.reduction is not None:
            parts += [(k.exp, k.reduction.size), (k.reduction.epilogue, 0)]
        elif k is kernel:
            parts.append((k.exp.substitute({"gidx": alu.gidx(rows) * length + alu.ridx(length)}), length))
        else:
            parts.append((k.exp, 0))
    ok: dict[int, bool] = {}
    for exp, n in parts:
        for ld in exp.simplify().loads():
            quad = n > 0 and n % 4 == 0 and reads_quads(ld.src[0], alu.ridx(n))
            ok[ld.arg] = ok.get(ld.arg, True) and quad and windows[ld.arg] == 1 \
                and not ld.dtype.is_bool and STORAGE_TYPE[ld.dtype] in ("f32", "i32", "u32")
    return frozenset(arg for arg, good in ok.items() if good)


def build_shader(kernel: Kernel, tuning: Tuning, options: ShaderOptions,
                 immediate_bytes: int = 128) -> ShaderSpec:
    """The shader for one pass, choosing the template from the kernel and tuning.
    A kernel's constants are lifted when they fit in `immediate_bytes` (0 keeps them
    literal: devices without immediates)."""
    red = kernel.reduction
    reduces = any(k.reduction is not None for k in (kernel, *kernel.stages))
    exps, lifted = lift_constants(tuple(e.simplify() for e in kernel.expressions), keep_indices=reduces)
    lifted_kernel = kernel.with_expressions(exps)
    uniforms: tuple[UniformField, ...] = ()
    # Each field takes at most 8 bytes, and a windowed output adds its base.
    if lifted and 8 * (len(lifted) + 1) <= immediate_bytes:
        kernel, uniforms = lifted_kernel, lifted
    if kernel.stages:
        return row_kernel(kernel, tuning, options, uniforms)
    if red is None:
        if tuning.vector == 4 and not options.output_windowed and max(options.windows, default=1) == 1:
            return elementwise_vec4(kernel, tuning, options, uniforms)
        return elementwise(kernel, replace(tuning, vector=1), options, uniforms)
    if tuning.tile is not None:
        return matmul.matrix_product(kernel, tuning, options, uniforms)
    if tuning.group > 1:
        return grouped_reduction(kernel, tuning, options, uniforms)
    return reduction(kernel, tuning, options, uniforms)
