"""Shader scaffolding shared by every template: bindings, uniforms, entry point, stores.

`Shader` declares a kernel's input bindings (several windows of one buffer when an
input is larger than one storage binding allows, read through a generated
`load_inN`), the output binding and the uniform struct of lifted constants
(`lift_constants`), and spells loads and stores. A template emits its body between
`begin_main` and `finish`, which returns the `ShaderSpec` the backend compiles.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

from ...core import alu
from ...core import dtypes as dt
from ...core.alu import AluExp, Op
from ...core.kernel import Kernel, Reduction
from . import builtins
from .builder import WgslBuilder
from .codegen import STORAGE_TYPE, WGSL_TYPE, ExpCodegen, strip_parens
from .tuner import Tuning

# Constants that are divisors, moduli or shift amounts stay literal when lifting:
# division by a known constant compiles to a multiply, and they are rarely the
# "value" of a fill.
_KEEP_LITERAL_OPERAND = (Op.IDIV, Op.MOD, Op.SHL, Op.SHR)


@dataclass(frozen=True)
class UniformField:
    """One field of the per-dispatch uniform struct: a lifted constant, or `base`."""

    name: str
    dtype: dt.DType  # as stored in the uniform (f16 widens to f32, bool to i32)
    value: object = None  # None for `base`, the output window's first index


@dataclass(frozen=True)
class ShaderOptions:
    """How buffers are bound: `windows[arg]` bindings per input (0 when unused) of
    `window_elements[arg]` elements each, and `output_window`, the elements one
    dispatch writes when the output is split (0 when it is not); `fast_math` drops
    the IEEE guards (see `ExpCodegen`); `subgroups`: the adapter has subgroup
    operations, which combine threads' partial results without workgroup memory;
    `native_math`: the variants of helpers (`builtins.NATIVE_VARIANTS`) the adapter
    computes as accurately (native_math.py)."""

    windows: tuple[int, ...]
    window_elements: tuple[int, ...] = ()
    output_window: int = 0
    fast_math: bool = False
    subgroups: bool = False
    native_math: frozenset[str] = frozenset()

    @property
    def output_windowed(self) -> bool:
        return self.output_window > 0


@dataclass(frozen=True)
class ShaderSpec:
    """A generated shader and what dispatching it needs."""

    code: str
    input_bindings: tuple[tuple[int, int], ...]  # (arg, window) per read-only binding
    uniforms: tuple[UniformField, ...]
    workgroup_size: int
    outputs_per_workgroup: int
    grid: int = 0  # workgroups of every dispatch, when not set by the outputs (tiles)
    # The builder's pieces, for joining shaders (merge.py): enables, helper names, lines.
    enables: tuple[str, ...] = ()
    helpers: tuple[str, ...] = ()
    lines: tuple[str, ...] = ()
    # Whether each binding is written (read_write); default: the inputs, then one output.
    writes: tuple[bool, ...] = ()
    _packed: dict = field(default_factory=dict, compare=False, repr=False)  # base -> bytes

    def uniform_bytes(self, base: int = 0) -> bytes:
        """The immediate data: the uniform struct's fields, each aligned to its size
        (packed once per base: every dispatch of a cached kernel sends the same)."""
        data = self._packed.get(base)
        if data is None:
            data = self._packed[base] = self._pack(base)
        return data

    def _pack(self, base: int) -> bytes:
        out = bytearray()
        for f in self.uniforms:
            align = f.dtype.itemsize
            out += bytes(-len(out) % align)
            value = base if f.value is None else f.value
            out += struct.pack("<" + {"int32": "i", "uint32": "I", "float32": "f", "float64": "d"}[f.dtype.name], value)
        out += bytes(-len(out) % max((f.dtype.itemsize for f in self.uniforms), default=1))
        return bytes(out)

    @property
    def binding_writes(self) -> tuple[bool, ...]:
        """Per binding, whether the shader writes it."""
        return self.writes or (False,) * len(self.input_bindings) + (True,)

    def workgroups(self, outputs: int) -> int:
        return self.grid or -(-outputs // self.outputs_per_workgroup)


def uniform_block(uniforms: tuple[UniformField, ...]) -> list[str]:
    """The WGSL declaring `uniforms` as the immediates `u` (none when there are none)."""
    if not uniforms:
        return []
    return ["struct Uniforms {", *(f"  {f.name}: {WGSL_TYPE[f.dtype]}," for f in uniforms), "}",
            "var<immediate> u: Uniforms;"]


def lift_constants(exps: tuple[AluExp, ...], keep_indices: bool = False
                   ) -> tuple[tuple[AluExp, ...], tuple[UniformField, ...]]:
    """Replace the non-zero constants of `exps` by uniform fields `u.c0`, `u.c1`, ...,
    numbered across all of them (see module doc). Divisors, moduli and shift amounts
    stay literal; with `keep_indices` so does every constant of a load's index, since
    the reduction templates simplify their indices again after substituting their
    loop indices, and a literal stride compiles to a shift."""
    nodes = [n for exp in exps for n in exp.toposort()]
    literal = {n.src[1] for n in nodes if n.op in _KEEP_LITERAL_OPERAND}
    if keep_indices:
        for n in nodes:
            if n.op is Op.LOAD:
                literal.update(n.src[0].toposort())
    fields: list[UniformField] = []
    lifted: dict[AluExp, AluExp] = {}

    def lift(node: AluExp):
        if node.op is not Op.CONST or node.arg == 0 or node in literal:
            return None
        if node not in lifted:
            stored = {dt.float16: dt.float32, dt.bool_: dt.int32}.get(node.dtype, node.dtype)
            name = f"c{len(fields)}"
            fields.append(UniformField(name, stored, int(node.arg) if stored.is_int else node.arg))
            var = alu.variable(stored, f"u.{name}")
            lifted[node] = var.ne(0) if node.dtype.is_bool else alu.cast(node.dtype, var)
        return lifted[node]

    return tuple(exp.rewrite(lift) for exp in exps), tuple(fields)


class Shader:
    """Shared scaffolding: bindings, uniform struct, entry point and stores."""

    def __init__(self, kernel: Kernel, tuning: Tuning, options: ShaderOptions,
                 uniforms: tuple[UniformField, ...] = (), vector_args: frozenset = frozenset()):
        self.kernel, self.tuning, self.options = kernel, tuning, options
        # Inputs (and, when any vectorising is done, the output) bound as vec4 arrays.
        self.vector_args = vector_args
        self.vector_output = tuning.vector > 1
        if options.output_windowed:
            uniforms = (UniformField("base", dt.int32),) + uniforms
        self.uniforms = uniforms
        self.b = WgslBuilder()
        self.input_bindings: list[tuple[int, int]] = []
        self._declare_bindings()

    def _declare_bindings(self) -> None:
        b, kernel = self.b, self.kernel
        dtypes = kernel.input_dtypes()
        binding = 0
        for arg, count in enumerate(self.options.windows):
            if count == 0 or dtypes[arg] is None:
                continue
            ty = STORAGE_TYPE[dtypes[arg]]
            if arg in self.vector_args:
                ty = f"vec4<{ty}>"
            names = [f"in{arg}"] if count == 1 else [f"in{arg}_{w}" for w in range(count)]
            for w, name in enumerate(names):
                b.emit(f"@group(0) @binding({binding}) var<storage, read> {name}: array<{ty}>;")
                self.input_bindings.append((arg, w))
                binding += 1
            if count > 1:
                self._emit_window_loader(arg, ty, count)
        if kernel.dtype is dt.float16 or dt.float16 in dtypes:
            b.enable("f16")
        out_ty = STORAGE_TYPE[kernel.dtype]
        if self.vector_output:
            out_ty = f"vec4<{out_ty}>"
        b.emit(f"@group(0) @binding({binding}) var<storage, read_write> result: array<{out_ty}>;")
        b.emit(*uniform_block(self.uniforms), "")

    def _emit_window_loader(self, arg: int, ty: str, count: int) -> None:
        size = self.options.window_elements[arg]
        self.b.emit(f"fn load_in{arg}(i: i32) -> {ty} {{")
        with self.b.indent():
            self.b.emit(f"let w = i / {size}i;")
            for w in range(count - 1):
                self.b.emit(f"if (w == {w}i) {{ return in{arg}_{w}[i - {w * size}i]; }}")
            self.b.emit(f"return in{arg}_{count - 1}[i - {(count - 1) * size}i];")
        self.b.emit("}")

    def load_text(self, arg: int, index: str) -> str:
        return f"in{arg}[{index}]" if self.options.windows[arg] == 1 else f"load_in{arg}({index})"

    def codegen(self) -> ExpCodegen:
        return ExpCodegen(self.b, self.load_text, fast_math=self.options.fast_math,
                          native_math=self.options.native_math)

    def begin_main(self, signature: str) -> None:
        self.b.emit(f"@compute @workgroup_size({self.tuning.workgroup_size})",
                    f"fn main({signature}) {{")

    def add_builtin(self, parameter: str) -> None:
        """Add `parameter` (`@builtin(...) name: type`) to the entry point, once."""
        main = next(i for i, line in enumerate(self.b.lines) if line.startswith("fn main("))
        if parameter not in self.b.lines[main]:
            self.b.lines[main] = self.b.lines[main].replace(") {", f", {parameter}) {{", 1)

    def output_index(self, offset: str) -> str:
        """The WGSL expression of the global output index `offset` past this dispatch's base."""
        return f"u.base + {offset}" if self.options.output_windowed else offset

    def store(self, gidx: str, value: str, dtype: dt.DType) -> None:
        index = f"{gidx} - u.base" if self.options.output_windowed else gidx
        if dtype.is_bool:
            value = f"select(0i, 1i, {strip_parens(value)})"
        self.b.emit(f"result[{index}] = {strip_parens(value)};")

    def finish(self, outputs_per_workgroup: int, grid: int = 0) -> ShaderSpec:
        self.b.emit("}")
        if "opaque_zero" in self.b.helpers:  # main sets the zero the guards hide values with
            main = next(i for i, line in enumerate(self.b.lines) if line.startswith("fn main("))
            self.b.lines.insert(main + 1, f"  {builtins.OPAQUE_ZERO} = nwg.z - 1u;  // grids are (x, y, 1)")
        b = self.b
        return ShaderSpec(b.source(), tuple(self.input_bindings), self.uniforms,
                          self.tuning.workgroup_size, outputs_per_workgroup, grid,
                          tuple(sorted(b.enables)), tuple(b.helpers), tuple(b.lines))


THREAD_BUILTINS = "@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>"
GROUP_BUILTINS = ("@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, "
                   "@builtin(local_invocation_index) lid: u32")


def output_limit(shader: Shader) -> str:
    """The WGSL bound on the output index for this dispatch."""
    size, window = shader.kernel.size, shader.options.output_window
    return f"min(u.base + {window}i, {size}i)" if window else f"{size}i"


def reduced_value(red: Reduction, acc: AluExp) -> AluExp:
    """The accumulator as the reduction's value. A float sum of two or more terms is
    +0.0 when they are all -0.0 (0.0 + -0.0, as in JAX and NumPy), but a compiler that
    ignores the sign of zero drops the identity 0.0 it starts from; adding 0.0 again
    at the end, which the code generator guards, restores it. One term keeps its sign,
    as JAX does."""
    if red.op is Op.ADD and red.acc_dtype.is_float and red.size > 1:
        acc = acc + 0.0
    return alu.cast(red.dtype, acc)
