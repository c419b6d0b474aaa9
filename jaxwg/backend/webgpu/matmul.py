"""The matrix-product template: a `Contraction` computed in tiles.

Each workgroup computes a `tile.m` x `tile.n` block of one batch's outputs, each
thread `tile.thread_m` x `tile.thread_n` of them in named vec4 accumulators
(`acc<row>_<column group>`: dynamic indexing into a local array pushes it to memory,
16x slower on the H200, docs/webgpu-notes.md). The reduction runs in steps of
`tile.k` terms, every step fully unrolled.

* **Staged** tiles (GPUs): the workgroup's threads evaluate the step's `m x k` lhs
  and `k x n` rhs values, each once, into workgroup memory laid out as vec4s, then
  every thread reads four rows of lhs or four columns of rhs per vec4. The next
  step's values are read into registers while this step's are multiplied.
  Thread (tx, ty) owns rows `g * m / G + 4 * ty + r` and columns likewise, so that
  the threads of a warp read neighbouring vec4s. With two buffers, step s is stored
  into half s % 2 of workgroup memory while step s - 1 is multiplied from the other
  half, and one barrier per step separates them. Workgroup memory is a nested array
  indexed [half][slice][k term and group][thread] (`_tile_shape`): WebGPU clamps each
  dynamic index, and this way the clamps fold out of the inner loop (1.03-1.4x on an
  H100, docs/performance.md).
* **Unstaged** tiles (software adapters): each thread reads its own operands straight
  into registers; its outputs are one contiguous block. lavapipe loads memory one lane
  at a time, so what counts there is multiply-adds per load (docs/webgpu-notes.md).

An operand that is one plain 4-byte load, contiguous along its free axis or along k
with every other stride a multiple of 4, is read four elements per load from a vec4
binding (`_vector_axis`). Any other operand is the contraction's factor expression,
evaluated where it is loaded: whatever views, casts and elementwise prologues fusion
put into the kernel are kept, and the kernel's epilogue runs on each accumulator
before its store. float16 operands are multiplied and summed in float32. Terms past
`k` are zeros in both operands (a clamped read of a finite value times zero would be
NaN next to an inf); rows and columns past the output are computed from clamped
indices and not stored.

>>> from jaxwg.core import alu, dtypes as dt
>>> from jaxwg.core.kernel import Kernel, Reduction
>>> from jaxwg.backend.webgpu.shader import ShaderOptions
>>> from jaxwg.backend.webgpu.tuner import Tile, Tuning
>>> g, r = alu.gidx(64 * 64), alu.ridx(32)
>>> a = alu.load(0, dt.float32, (g // 64) * 32 + r)
>>> b = alu.load(1, dt.float32, r * 64 + g % 64)
>>> kernel = Kernel(2, 64 * 64, a * b, Reduction(alu.Op.ADD, dt.float32, 32))
>>> tile = Tile(64, 64, 8, 4, 4)
>>> spec = matrix_product(kernel, Tuning(workgroup_size=tile.threads, tile=tile), ShaderOptions((1, 1)))
>>> spec.workgroup_size, spec.grid, "in0: array<vec4<f32>>" in spec.code
(256, 1, True)
"""

from __future__ import annotations

from dataclasses import dataclass

from ...core import alu
from ...core import dtypes as dt
from ...core.alu import AluExp, Op
from ...core.contraction import Contraction, as_contraction
from ...core.kernel import Kernel
from .codegen import WGSL_TYPE, strip_parens
from .shader import GROUP_BUILTINS, Shader, ShaderOptions, ShaderSpec, UniformField, reduced_value
from .tuner import Tuning, index_step, reads_quads, vec4_bindable

_LANES = "xyzw"


def matrix_product(kernel: Kernel, tuning: Tuning, options: ShaderOptions,
                   uniforms: tuple[UniformField, ...] = ()) -> ShaderSpec:
    """The tiled shader of a kernel that `as_contraction` recognizes (see module doc)."""
    c, t = as_contraction(kernel), tuning.tile
    if (c is None or options.output_windowed or t.threads != tuning.workgroup_size
            or t.m % t.thread_m or t.n % t.thread_n or t.thread_n % 4 or t.k % 4
            or (t.staged and (t.thread_m % 4 or t.m * t.k % t.threads_per_slice
                              or t.n * t.k % t.threads_per_slice))
            or t.buffers not in (1, 2) or (t.buffers == 2 and not t.staged)
            or t.slices < 1 or (t.slices > 1 and not t.staged)):
        raise ValueError(f"tile {t} does not apply to kernel {kernel.exp!r}")
    return _MatrixProduct(kernel, c, tuning, options, uniforms).build()


@dataclass(frozen=True)
class _Operand:
    """One factor of the product as the template reads it."""

    prefix: str  # names of its values: "a" (lhs) or "b" (rhs)
    factor: AluExp
    free: str  # its output axis: "i" or "j"
    size: int  # extent of that axis (m or n)
    width: int  # extent in one tile
    origin: str  # WGSL name of the tile's first index on the free axis
    vector: str | None  # "free" or "k": the axis read four at a time, else None


class _MatrixProduct:
    def __init__(self, kernel: Kernel, c: Contraction, tuning: Tuning, options: ShaderOptions,
                 uniforms: tuple[UniformField, ...]):
        self.c, self.tile = c, tuning.tile
        self.step = self.tile.step
        self.acc_dtype = kernel.reduction.acc_dtype
        self.ty = WGSL_TYPE[self.acc_dtype]
        preferred = (None, None) if self.tile.staged else ("k", "free")  # see _direct_step
        self.lhs = self._operand("a", c.lhs, c.rhs, "i", c.m, self.tile.m, "m0", kernel, options, preferred[0])
        self.rhs = self._operand("b", c.rhs, c.lhs, "j", c.n, self.tile.n, "n0", kernel, options, preferred[1])
        vector_args = frozenset(op.factor.arg for op in (self.lhs, self.rhs) if op.vector)
        self.s = Shader(kernel, tuning, options, uniforms, vector_args)
        self.b = self.s.b
        self.tiles_m = -(-c.m // self.tile.m)
        self.tiles_n = -(-c.n // self.tile.n)
        self.grid = c.batch * self.tiles_m * self.tiles_n

    def _operand(self, prefix, factor, other, free, size, width, origin, kernel, options, only) -> _Operand:
        axis = _vector_axis(factor, other, free, kernel, options)
        if only is not None and axis != only:
            axis = None
        return _Operand(prefix, factor, free, size, width, origin, axis)

    def build(self) -> ShaderSpec:
        t, b = self.tile, self.b
        if t.staged:
            for i, (name, halves) in enumerate(zip(("lhs_tile", "rhs_tile"), t.staged_halves())):
                shape = (halves,) + self._tile_shape(name)
                b.lines.insert(i, f"var<workgroup> {name}: {_nested_array(f'vec4<{self.ty}>', shape)};")
        self.s.begin_main(GROUP_BUILTINS)
        with b.indent():
            self._locate_tile()
            for name in self._accumulators():
                b.emit(f"var {name} = vec4<{self.ty}>();")
            staged = self._prefetch_first_step() if t.staged else None
            if t.buffers == 2:
                self._stage_first_step(staged)
            b.emit(f"for (var k0 = 0i; k0 < {self.c.k}i; k0 += {self.step}i) {{")
            with b.indent():
                if t.buffers == 2:
                    self._double_buffered_step(staged)
                elif t.staged:
                    self._stage_step(staged)
                else:
                    self._direct_step()
            b.emit("}")
            if t.slices > 1:
                self._add_slices()
                b.emit("if (sl == 0i) {")
                with b.indent():
                    self._store_outputs()
                b.emit("}")
            else:
                self._store_outputs()
        return self.s.finish(t.m * t.n, self.grid)

    # -- where this workgroup and thread are ---------------------------------------
    def _locate_tile(self) -> None:
        b, t, c = self.b, self.tile, self.c
        b.emit("let wgi = i32(wid.x + wid.y * nwg.x);")
        b.emit(f"if (wgi >= {self.grid}i) {{ return; }}")  # the whole workgroup: before any barrier
        per_batch = self.tiles_m * self.tiles_n
        b.emit(f"let bb = wgi / {per_batch}i;" if c.batch > 1 else "let bb = 0i;")
        tile = f"wgi % {per_batch}i" if c.batch > 1 else "wgi"
        b.emit(f"let m0 = {tile} / {self.tiles_n}i * {t.m}i;", f"let n0 = {tile} % {self.tiles_n}i * {t.n}i;")
        across = t.n // t.thread_n
        lid = "lid"
        if t.slices > 1:
            b.emit(f"let sl = i32(lid / {t.threads_per_slice}u);", f"let li = lid % {t.threads_per_slice}u;")
            lid = "li"
        b.emit(f"let tx = i32({lid} % {across}u);", f"let ty = i32({lid} / {across}u);")

    def _accumulators(self) -> list[str]:
        return [f"acc{r}_{h}" for r in range(self.tile.thread_m) for h in range(self.tile.thread_n // 4)]

    def _rows(self) -> list[str]:
        """The tile-relative output rows of thread ty, in accumulator order."""
        return self._owned("ty", self.tile.thread_m, self.tile.m)

    def _columns(self) -> list[str]:
        """The tile-relative output columns of thread tx, lane by lane of each vec4."""
        return self._owned("tx", self.tile.thread_n, self.tile.n)

    def _owned(self, thread: str, count: int, width: int) -> list[str]:
        """The `count` indices along a tile axis of `width` that a thread owns: one block
        (unstaged), or groups of four spread `width / groups` apart (staged: neighbouring
        threads then read neighbouring vec4s of workgroup memory)."""
        if not self.tile.staged:
            return [f"{thread} * {count}i + {r}i" for r in range(count)]
        groups = count // 4
        return [f"{g * width // groups}i + {thread} * 4i + {r}i" for g in range(groups) for r in range(4)]

    # -- operands ----------------------------------------------------------------------
    def _emit_reads(self, reads: list[tuple[str, _Operand, str, str, bool]], assign: bool = False) -> None:
        """Bind operand values, each given as (name, operand, free index text, k text,
        whether it is a vec4 of the operand's vector axis), in one scope so that they
        share subexpressions: as new `let`s, or with `assign` to existing variables.
        Indices past the output are clamped; terms past k are zero."""
        b, c = self.b, self.c
        ragged_k = c.k % self.step != 0
        exps = []
        for name, op, free, k, vector in reads:
            step_free = 4 if vector and op.vector == "free" else 1
            step_k = 4 if vector and op.vector == "k" else 1
            exact = op.size % op.width == 0
            b.emit(f"let {name}_i = {free if exact else f'min({free}, {op.size - step_free}i)'};")
            b.emit(f"let {name}_k = {f'min({k}, {c.k - step_k}i)' if ragged_k else k};")
            bound = op.factor.substitute({"b": alu.variable(dt.int32, "bb"),
                                          op.free: alu.variable(dt.int32, f"{name}_i"),
                                          "k": alu.variable(dt.int32, f"{name}_k")})
            exps.append(bound.src[0].simplify() if vector else alu.cast(self.acc_dtype, bound).simplify())
        g = self.s.codegen()
        for e in exps:
            g.count_references(e)
        texts = [strip_parens(g.run(e)) for e in exps]
        for (name, op, _, k, vector), text in zip(reads, texts):
            zero = f"{self.ty}(0)"
            if vector:
                text = f"in{op.factor.arg}[u32({text}) >> 2u]"
                zero = f"vec4<{self.ty}>()"
            if ragged_k:
                text = f"select({zero}, {text}, {k} < {c.k}i)"
            b.emit(f"{name} = {text};" if assign else f"let {name} = {text};")

    # -- one step of k: staged -------------------------------------------------------------
    def _prefetch_first_step(self) -> list[tuple[str, _Operand, str, str, bool, list[str]]]:
        """Declare each thread's share of the staged operand tiles as variables holding
        the first step's values; the loop stores them into workgroup memory, then reads
        the next step's into them while it multiplies (loads in flight during math)."""
        placed = self._staged_reads(self.lhs) + self._staged_reads(self.rhs)
        for name, op, *_ in placed:
            self.b.emit(f"var {name}: {f'vec4<{self.ty}>' if op.vector else self.ty};")
        self._emit_staged_reads(placed, "0i")
        return placed

    def _emit_staged_reads(self, placed: list, k_origin: str) -> None:
        self.b.emit("{")
        with self.b.indent():
            self._emit_reads([(name, op, free, f"{k_origin} + {kl}", vector)
                              for name, op, free, kl, vector, _ in placed], assign=True)
        self.b.emit("}")

    def _half(self, prefix: str) -> int:
        """vec4s of workgroup memory one step of an operand tile takes."""
        return self.step * (self.tile.m if prefix == "a" else self.tile.n) // 4

    def _tile_shape(self, tile_name: str) -> tuple[int, int, int]:
        """One half of an operand tile as (slice, k term * group, thread) of vec4s: thread
        tx or ty reads element [sl][kk * groups + g][tx or ty]. Nested so that the index
        that varies between threads stands alone: WebGPU clamps every dynamic index into
        workgroup memory (naga's Restrict policy), and a clamp of `ty + constant` per read
        is an integer instruction beside every 16 multiply-adds, where the clamp of `ty`
        alone is computed once and the constants fold into the read's address."""
        t = self.tile
        thread, width = (t.thread_m, t.m) if tile_name == "lhs_tile" else (t.thread_n, t.n)
        return (t.slices, t.k * thread // 4, width // thread)

    def _tile_at(self, tile_name: str, half: str, kl: str, q: str) -> str:
        """Element `q` (vec4s along the free axis) of term `kl` of the step in half `half`."""
        _, kg, per = self._tile_shape(tile_name)
        groups = kg // self.tile.k
        return (f"{tile_name}[{half}][({kl}) / {self.tile.k}i][({kl}) % {self.tile.k}i * {groups}i + ({q}) / {per}i]"
                f"[({q}) % {per}i]")

    def _tile_flat(self, tile_name: str, flat: str) -> str:
        """vec4 `flat` of an operand tile's memory taken as one array (the slices' sums)."""
        shape = self._tile_shape(tile_name)
        index, inner = "", 1
        for extent in reversed(shape):
            index = (f"[({flat}) / {inner}i % {extent}i]" if inner > 1 else f"[({flat}) % {extent}i]") + index
            inner *= extent
        return f"{tile_name}[({flat}) / {inner}i]{index}"

    def _stage_step(self, placed: list) -> None:
        b = self.b
        b.emit("workgroupBarrier();")
        self._store_staged(placed, "0i")
        b.emit("workgroupBarrier();")
        self._prefetch(placed, f"k0 + {self.step}i")
        self._multiply_staged("0i")

    def _stage_first_step(self, placed: list) -> None:
        """Two buffers: step 0 into the first half, then step 1's values into registers."""
        self._store_staged(placed, "0i")
        self.b.emit("workgroupBarrier();")
        self._prefetch(placed, f"{self.step}i")

    def _double_buffered_step(self, placed: list) -> None:
        """Store the next step (in registers) into the other half, read the step after it,
        multiply this half; the barrier ends the step for every thread."""
        b = self.b
        b.emit(f"let half = (k0 / {self.step}i) % 2i;")
        b.emit(f"if (k0 + {self.step}i < {self.c.k}i) {{")
        with b.indent():
            self._store_staged(placed, "1i - half")
        b.emit("}")
        self._prefetch(placed, f"k0 + {2 * self.step}i")
        self._multiply_staged("half")
        b.emit("workgroupBarrier();")

    def _store_staged(self, placed: list, half: str) -> None:
        """The staged registers into half `half` of workgroup memory."""
        for *_, stores in placed:
            for store in stores:
                self.b.emit(store(half))

    def _prefetch(self, placed: list, k_origin: str) -> None:
        """Read the step from `k_origin` into the staged registers, if there is one."""
        self.b.emit(f"if ({k_origin} < {self.c.k}i) {{")
        with self.b.indent():
            self._emit_staged_reads(placed, k_origin)
        self.b.emit("}")

    def _multiply_staged(self, half: str) -> None:
        """This thread's block times its slice's `k` terms of the staged step."""
        b, t = self.b, self.tile
        rows, cols = t.thread_m // 4, t.thread_n // 4
        sl = "sl" if t.slices > 1 else "0i"
        for kk in range(t.k):
            b.emit("{")
            with b.indent():
                for g in range(rows):
                    b.emit(f"let a{g} = lhs_tile[{half}][{sl}][{kk * rows + g}][ty];")
                for h in range(cols):
                    b.emit(f"let b{h} = rhs_tile[{half}][{sl}][{kk * cols + h}][tx];")
                a_values = [f"a{g}.{_LANES[r]}" for g in range(rows) for r in range(4)]
                self._accumulate(a_values, [f"b{h}" for h in range(cols)])
            b.emit("}")

    def _staged_reads(self, op: _Operand) -> list[tuple[str, _Operand, str, str, bool, list[str]]]:
        """Each thread's share of one operand tile (`width` x `k`): per value its name,
        operand, free index and k offset (WGSL text), whether it is a vec4, and the
        stores that place it into workgroup memory. Element (or vec4) e = lid +
        threads * slot walks the operand's contiguous axis first, so that neighbouring
        threads read neighbouring addresses; threads past the end of a tile that does
        not divide evenly read the last element again and store nothing."""
        t = self.tile
        tile_name = "lhs_tile" if op.prefix == "a" else "rhs_tile"
        along_free = op.vector == "free" or (op.vector is None and _step_is_unit(op.factor, op.free))
        lanes = 4 if op.vector else 1
        count = op.width * self.step // lanes  # reads per tile
        free_n = op.width // lanes if op.vector == "free" else op.width
        k_n = self.step // lanes if op.vector == "k" else self.step
        out = []
        for slot in range(-(-count // t.threads)):
            name = f"{op.prefix}{slot}"
            e = f"min(i32(lid) + {t.threads * slot}i, {count - 1}i)"
            if along_free:
                free, kl = f"{e} % {free_n}i", f"{e} / {free_n}i"
            else:
                free, kl = f"{e} / {k_n}i", f"{e} % {k_n}i"
            free_scale = "4i * " if op.vector == "free" else ""
            k_scale = "4i * " if op.vector == "k" else ""
            self.b.emit(f"let {name}_f = {free_scale}({free});", f"let {name}_kl = {k_scale}({kl});")
            guard = (f"i32(lid) + {t.threads * slot}i < {count}i" if (slot + 1) * t.threads > count else None)
            if op.vector == "free":
                stores = [(f"{name}_kl", "", name)]
            elif op.vector == "k":
                stores = [(f"{name}_kl + {c}i", f"[{name}_f % 4i]", f"{name}.{_LANES[c]}") for c in range(4)]
            else:
                stores = [(f"{name}_kl", f"[{name}_f % 4i]", name)]
            out.append((name, op, f"{op.origin} + {name}_f", f"{name}_kl", op.vector is not None,
                        [self._store(tile_name, kl, lane, value, f"{name}_f / 4i", guard)
                         for kl, lane, value in stores]))
        return out

    def _store(self, tile_name: str, kl: str, lane: str, value: str, q: str, guard: str | None):
        """The WGSL that stores `value` as term `kl`, vec4 `q` (and `lane`) of a tile, as a
        function of the half it goes to."""
        def store(half: str) -> str:
            text = f"{self._tile_at(tile_name, half, kl, q)}{lane} = {value};"
            return f"if ({guard}) {{ {text} }}" if guard else text
        return store

    # -- one step of k: unstaged -----------------------------------------------------------
    def _direct_step(self) -> None:
        """Four terms at a time: lhs rows as vec4s along k and rhs rows as vec4s along
        the columns where `_vector_axis` allows, else scalar reads."""
        t, lhs, rhs = self.tile, self.lhs, self.rhs
        for q in range(0, t.k, 4):
            self.b.emit("{")
            with self.b.indent():
                reads = []
                for r, row in enumerate(self._rows()):
                    if lhs.vector:
                        reads.append((f"a{r}", lhs, f"m0 + {row}", f"k0 + {q}i", True))
                    else:
                        reads += [(f"a{r}_{kk}", lhs, f"m0 + {row}", f"k0 + {q + kk}i", False) for kk in range(4)]
                cols = self._columns()
                for kk in range(4):
                    if rhs.vector:
                        reads += [(f"b{kk}_{h}", rhs, f"n0 + {cols[4 * h]}", f"k0 + {q + kk}i", True)
                                  for h in range(t.thread_n // 4)]
                    else:
                        reads += [(f"b{kk}_{j}", rhs, f"n0 + {col}", f"k0 + {q + kk}i", False)
                                  for j, col in enumerate(cols)]
                self._emit_reads(reads)
                for kk in range(4):
                    a_values = [f"a{r}.{_LANES[kk]}" if lhs.vector else f"a{r}_{kk}" for r in range(t.thread_m)]
                    b_vectors = [f"b{kk}_{h}" if rhs.vector else
                                 f"vec4<{self.ty}>({', '.join(f'b{kk}_{j}' for j in range(4 * h, 4 * h + 4))})"
                                 for h in range(t.thread_n // 4)]
                    self._accumulate(a_values, b_vectors)
            self.b.emit("}")

    def _accumulate(self, a_values: list[str], b_vectors: list[str]) -> None:
        """acc<r>_<h> += a_values[r] * b_vectors[h] for the whole thread block."""
        vec = f"vec4<{self.ty}>"
        for r, a in enumerate(a_values):
            for h, bv in enumerate(b_vectors):
                acc = f"acc{r}_{h}"
                if self.acc_dtype.is_float:
                    self.b.emit(f"{acc} = fma({vec}({a}), {bv}, {acc});")
                else:
                    self.b.emit(f"{acc} = {acc} + {vec}({a}) * {bv};")

    # -- epilogue ----------------------------------------------------------------------------
    def _add_slices(self) -> None:
        """Slice 0's accumulators plus the other slices' (through lhs_tile, whose staged
        values every thread is done with after the first barrier)."""
        b, t = self.b, self.tile
        names = self._accumulators()
        at = f"((sl - 1i) * {t.threads_per_slice}i + i32(li)) * {len(names)}i"
        b.emit("workgroupBarrier();", "if (sl > 0i) {")
        with b.indent():
            for q, name in enumerate(names):
                b.emit(f"{self._tile_flat('lhs_tile', f'{at} + {q}i')} = {name};")
        b.emit("}", "workgroupBarrier();", "if (sl == 0i) {")
        with b.indent():
            for other in range(t.slices - 1):
                base = f"({other * t.threads_per_slice}i + i32(li)) * {len(names)}i"
                for q, name in enumerate(names):
                    b.emit(f"{name} = {name} + {self._tile_flat('lhs_tile', f'{base} + {q}i')};")
        b.emit("}")

    def _store_outputs(self) -> None:
        b, c, s = self.b, self.c, self.s
        red = s.kernel.reduction
        rows, cols = self._rows(), self._columns()
        for r, row in enumerate(rows):
            b.emit(f"let om{r} = m0 + {row};")
        for j, col in enumerate(cols):
            b.emit(f"let on{j} = n0 + {col};")
        bb = alu.variable(dt.int32, "bb")
        outputs = []
        for r in range(len(rows)):
            for j in range(len(cols)):
                acc = alu.variable(self.acc_dtype, f"acc{r}_{j // 4}.{_LANES[j % 4]}")
                index = c.output_index(bb, alu.variable(dt.int32, f"om{r}"), alu.variable(dt.int32, f"on{j}"))
                value = red.epilogue.substitute({"acc": reduced_value(red, acc), "gidx": index})
                outputs.append((r, j, index.simplify(), value.simplify()))
        g = s.codegen()
        for _, _, index, value in outputs:
            g.count_references(index)
            g.count_references(value)
        texts = [(r, j, strip_parens(g.run(index)), g.run(value)) for r, j, index, value in outputs]
        ragged_m, ragged_n = c.m % self.tile.m, c.n % self.tile.n
        for r, j, index, value in texts:
            checks = ([f"om{r} < {c.m}i"] if ragged_m else []) + ([f"on{j} < {c.n}i"] if ragged_n else [])
            if checks:
                b.emit(f"if ({' && '.join(checks)}) {{")
                with b.indent():
                    s.store(index, value, s.kernel.dtype)
                b.emit("}")
            else:
                s.store(index, value, s.kernel.dtype)


def _nested_array(element: str, shape: tuple[int, ...]) -> str:
    """The WGSL type of an array of `shape` (outermost first)."""
    for extent in reversed(shape):
        element = f"array<{element}, {extent}>"
    return element


def _vector_axis(factor: AluExp, other: AluExp, free: str, kernel: Kernel, options: ShaderOptions) -> str | None:
    """"free" or "k" if the factor can be read as vec4s along that axis, else None: it
    is the kernel's only load of a `vec4_bindable` input, not also inside the `other`
    factor (sum_k where(b[k] != 0, f(x[i, k]), c) * b[k], in logsumexp with `b`, reads
    b[k] on both sides), and `reads_quads` along the axis."""
    if (factor.op is not Op.LOAD or factor.arg not in vec4_bindable(kernel, options.windows)
            or any(ld.arg == factor.arg for ld in other.loads())):
        return None
    reads = {ld for e in kernel.expressions for ld in e.simplify().loads() if ld.arg == factor.arg}
    if len(reads) != 1:
        return None
    index = factor.src[0]
    for axis in (free, "k"):
        special = _special(index, axis)
        if special is not None and reads_quads(index, special):
            return "free" if axis == free else "k"
    return None


def _step_is_unit(factor: AluExp, axis: str) -> bool:
    """Whether every load of the factor moves by one element when `axis` grows by one."""
    loads = factor.loads()
    return bool(loads) and all(_special(ld.src[0], axis) is not None
                               and index_step(ld.src[0], _special(ld.src[0], axis)) == 1 for ld in loads)


def _special(index: AluExp, name: str) -> AluExp | None:
    """The special index called `name` that `index` depends on, if any."""
    return next((n for n in index.toposort() if n.op is Op.SPECIAL and n.arg[0] == name), None)
