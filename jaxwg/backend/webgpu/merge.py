"""Independent dispatches of a jit program joined into one dispatch.

Every dispatch costs a fixed amount besides its work: four native calls on the host,
and on the GPU the barrier that separates it from the dispatch before, which drains
the device. A jitted training step on an H100 through Vulkan spent 3-5 µs on each
of its small kernels (bias gradients, the loss gradient) whatever their size, while
many of them do not depend on each other: a layer's bias gradient and its weight
gradient both read the same `dy`, and nothing else.

`levels` orders a program's dispatches by dependency; `shared_sizes` gives the
small dispatches of a level whose templates take any workgroup size (all but
product tiles: `tuner.resized`) the size of the others, and `groups` gathers the dispatches
of one level that can share a shader (same workgroup size, within the adapter's
limits on bindings, workgroup memory and immediates). `join` writes that
shader: each part's `main` becomes a function `p<k>_main`, called by the workgroups
of its range of the joint grid with the workgroup id and grid it would have had
alone; each part's bindings follow the previous part's, and its module-scope names
(bindings, workgroup arrays, window loaders, uniform fields) take the prefix
`p<k>_`. Helpers are shared. The parts run side by side, so they must not write
what another part reads: `levels` only puts dispatches with no path between them in
one level.

>>> levels([((0,), 2), ((2,), 3), ((0,), 4), ((3, 4), 5)])
[0, 1, 0, 2]
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from .builder import assemble
from .device import env_switch
from .shader import ShaderSpec, UniformField, uniform_block

ENV_VAR = "JAXWG_MERGE_DISPATCHES"
# A dispatch of at most this many terms (outputs times reduction length) is small: it
# takes a few µs on a GPU, about its fixed cost, so it joins any other and takes any
# workgroup size. Larger ones join only their own kind (`groups`) at their own size.
SMALL_TERMS = 1 << 22
# Parts of one shader at most: its compile time grows with them.
MAX_PARTS = 16
_BINDING = re.compile(r"^@group\(0\) @binding\((\d+)\) (var<storage, \w+> (\w+):.*)$")
_WORKGROUP = re.compile(r"^var<workgroup> (\w+): array<(.+), (\d+)>;$")
_FUNCTION = re.compile(r"^fn (\w+)\(")
_BUILTIN = re.compile(r"@builtin\((\w+)\) (\w+): ([\w<>]+)")
_SCALAR_BYTES = {"f16": 2, "f32": 4, "i32": 4, "u32": 4, "f64": 8, "i64": 8, "u64": 8}
_VECTOR = re.compile(r"^vec([234])<(\w+)>$")


def enabled(is_software: bool) -> bool:
    """Whether jit programs join independent dispatches: `JAXWG_MERGE_DISPATCHES` when
    set, else on GPUs only (a joined shader is one more compile, seconds for a product
    on a software adapter, where a dispatch's fixed cost is small beside its work)."""
    return env_switch(ENV_VAR, not is_software)


def levels(dispatches: Sequence[tuple[Sequence[int], int]]) -> list[int]:
    """The dependency level of each dispatch, given as (registers it reads, register
    it writes) in recording order: one more than the highest level of a dispatch that
    wrote what it reads (0 when none did). A program writes each register once, but
    for a routine's passes, which write their output in turn and read it (a chain)."""
    written: dict[int, int] = {}
    out = []
    for reads, write in dispatches:
        level = max((written[r] + 1 for r in reads if r in written), default=0)
        written[write] = level
        out.append(level)
    return out


def shared_sizes(level_of: Sequence[int], sizes: Sequence[int], resizable: Sequence[bool]) -> list[int]:
    """The workgroup size for each dispatch, so that more of a level's can join: a
    resizable one takes the size most of its level's fixed ones have (most of the
    level's where none is fixed); a fixed one keeps its own.

    >>> shared_sizes([0, 0, 0, 1], [64, 256, 256, 256], [False, True, True, True])
    [64, 64, 64, 256]
    """
    out = list(sizes)
    for level in set(level_of):
        members = [i for i, l in enumerate(level_of) if l == level]
        fixed = [sizes[i] for i in members if not resizable[i]] or [sizes[i] for i in members]
        target = Counter(fixed).most_common(1)[0][0]
        for i in members:
            if resizable[i]:
                out[i] = target
    return out


@dataclass(frozen=True)
class Limits:
    """What one shader may use on the adapter."""

    storage_buffers: int
    workgroup_bytes: int
    immediate_bytes: int

    @classmethod
    def of(cls, limits: dict) -> Limits:
        bindings = min(limits["max-storage-buffers-per-shader-stage"],
                       limits.get("max-bindings-per-bind-group", 1000))
        return cls(bindings, limits["max-compute-workgroup-storage-size"], limits.get("max-immediate-size", 0))


def groups(specs: Sequence[ShaderSpec | None], level_of: Sequence[int], limits: Limits,
           kinds: Sequence[object] | None = None) -> list[list[int]]:
    """The dispatches (indices into `specs`; None: one that joins nothing) in the order
    to record them: by level, and within a level those with one workgroup size
    together, as groups of at most what `limits` allows in one shader (a group of one
    is recorded alone). `kinds`
    keeps large dispatches of different kinds apart (None: small, joins any): a
    joined shader takes the registers its largest part needs, and a memory-bound
    reduction beside a product tile ran at the tile's occupancy (H100: a per-example
    gradient step 121 -> 139 µs a call)."""
    kinds = kinds or [None] * len(specs)
    out: list[list[int]] = []
    for level in sorted(set(level_of)):
        by_size: dict[int, list[int]] = {}
        for i, spec in enumerate(specs):
            if level_of[i] == level:
                by_size.setdefault(spec.workgroup_size if spec is not None and spec.lines else -i - 1,
                                   []).append(i)
        for members in by_size.values():
            # Large dispatches first, by kind, each kind starting a group; small ones fill in.
            first = {}
            for i in members:
                first.setdefault(kinds[i], i)
            members.sort(key=lambda i: (kinds[i] is None, first[kinds[i]]))
            current: list[int] = []
            for i in members:
                kind = next((kinds[j] for j in current if kinds[j] is not None), None)
                clash = kinds[i] is not None and kind is not None and kinds[i] != kind
                if current and (clash or not _fits([specs[j] for j in current + [i]], limits)):
                    out.append(current)
                    current = []
                current.append(i)
            out.append(current)
    return out


def _fits(specs: Sequence[ShaderSpec], limits: Limits) -> bool:
    sizes = [_workgroup_bytes(s) for s in specs]
    if None in sizes:
        return False
    joined_uniforms = tuple(f for k, s in enumerate(specs) for f in _prefixed(s.uniforms, k))
    return (len(specs) <= MAX_PARTS and sum(len(s.binding_writes) for s in specs) <= limits.storage_buffers
            and sum(sizes) <= limits.workgroup_bytes
            and len(_pack(joined_uniforms)) <= limits.immediate_bytes)


def _workgroup_bytes(spec: ShaderSpec) -> int | None:
    """Bytes of the shader's workgroup arrays; None if a type is not known here."""
    total = 0
    for line in spec.lines:
        m = _WORKGROUP.match(line)
        if m:
            item = _type_bytes(m.group(2))
            if item is None:
                return None
            total += -(-item * int(m.group(3)) // 16) * 16  # WebGPU counts each in 16-byte units
    return total


def _type_bytes(ty: str) -> int | None:
    m = _VECTOR.match(ty)
    if m:
        scalar = _SCALAR_BYTES.get(m.group(2))
        count = int(m.group(1))
        return None if scalar is None else scalar * (4 if count == 3 else count)
    return _SCALAR_BYTES.get(ty)


def _prefixed(uniforms: tuple[UniformField, ...], k: int) -> tuple[UniformField, ...]:
    return tuple(UniformField(f"p{k}_{f.name}", f.dtype, f.value) for f in uniforms)


def _pack(uniforms: tuple[UniformField, ...]) -> bytes:
    return ShaderSpec("", (), uniforms, 1, 1).uniform_bytes()


# How a part's entry-point parameter is computed from its workgroup index `w` in its
# grid of `x` by `y`, for each builtin the templates use.
_PART_BUILTINS = {
    "workgroup_id": "vec3<u32>(w % {x}u, w / {x}u, 0u)",
    "num_workgroups": "vec3<u32>({x}u, {y}u, nwg.z)",  # z: 1, but not to the compiler (OPAQUE_ZERO)
    "local_invocation_index": "lid",
    "global_invocation_id": "vec3<u32>((w % {x}u) * {size}u + lid, w / {x}u, 0u)",
    "subgroup_size": "sg_size",
}


def join(specs: Sequence[ShaderSpec], grids: Sequence[tuple[int, int, int]]) -> ShaderSpec | None:
    """One shader running `specs[k]` on the workgroups of its `grids[k]` (see the module
    doc); its bindings are each part's in turn. None when a part uses something this
    does not translate (an entry-point builtin it does not know)."""
    size = specs[0].workgroup_size
    assert all(s.workgroup_size == size for s in specs), "parts of one shader share a workgroup size"
    enables = sorted({e for s in specs for e in s.enables})
    helpers = list(dict.fromkeys(h for s in specs for h in s.helpers))
    lines: list[str] = []
    calls: list[str] = []
    used: set[str] = set()  # the builtins the parts take
    binding = 0
    start = 0
    for k, (spec, (x, y, _)) in enumerate(zip(specs, grids)):
        part = _part(spec, k, binding)
        if part is None:
            return None
        part_lines, params = part
        lines += part_lines
        used.update(params)
        binding += len(spec.binding_writes)
        args = ", ".join(_PART_BUILTINS[b].format(x=x, y=y, size=size) for b in params)
        calls += [f"if (g >= {start}u && g < {start + x * y}u) {{",
                  f"  let w = g - {start}u;", f"  p{k}_main({args});", "}"]
        start += x * y
    uniforms = tuple(f for k, s in enumerate(specs) for f in _prefixed(s.uniforms, k))
    lines += uniform_block(uniforms)
    group_builtins = ["@builtin(workgroup_id) wid: vec3<u32>", "@builtin(num_workgroups) nwg: vec3<u32>",
                      "@builtin(local_invocation_index) lid: u32"]
    if "subgroup_size" in used:
        group_builtins.append("@builtin(subgroup_size) sg_size: u32")
    lines += [f"@compute @workgroup_size({size})", f"fn main({', '.join(group_builtins)}) {{",
              "  let g = wid.x + wid.y * nwg.x;", *("  " + c for c in calls), "}"]
    return ShaderSpec(assemble(enables, helpers, lines), (), uniforms, size, 1, start, tuple(enables),
                      tuple(helpers), tuple(lines), tuple(w for s in specs for w in s.binding_writes))


def _part(spec: ShaderSpec, k: int, first_binding: int) -> tuple[list[str], list[str]] | None:
    """Part `k`'s lines, renamed and renumbered, with its `main` as `p<k>_main`; and the
    builtins its main took, in order."""
    names = set()
    for line in spec.lines:
        for pattern, group in ((_BINDING, 3), (_WORKGROUP, 1), (_FUNCTION, 1)):
            m = pattern.match(line)
            if m:
                names.add(m.group(group))
    rename = re.compile(r"\b(" + "|".join(sorted(names)) + r")\b") if names else None
    out, params, in_struct = [], None, False
    for line in spec.lines:
        if in_struct:
            in_struct = line != "}"
            continue
        if line == "struct Uniforms {":
            in_struct = True
            continue
        if line.startswith("var<immediate> u:") or line.startswith("@compute"):
            continue
        m = _BINDING.match(line)
        if m:
            line = f"@group(0) @binding({first_binding + int(m.group(1))}) {m.group(2)}"
        if line.startswith("fn main("):
            params = _BUILTIN.findall(line)
            if any(b not in _PART_BUILTINS for b, _, _ in params):
                return None
            line = "fn main(" + ", ".join(f"{name}: {ty}" for _, name, ty in params) + ") {"
        if rename is not None:
            line = rename.sub(lambda m: f"p{k}_{m.group(1)}", line)
        out.append(re.sub(r"\bu\.(\w+)", lambda m: f"u.p{k}_{m.group(1)}", line))
    if params is None:
        return None
    return out, [b for b, _, _ in params]

