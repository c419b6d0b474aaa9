"""The sort routine's shaders and plan: a bitonic sorting network over rows, or a
radix sort (radix_sort.py) for rows of RADIX_FROM blocks or more.

`SortPermutation` sorts `rows` rows of `length` elements by `keys` uint32 keys. Each
row is padded to m, a power of two, with elements whose keys are all 0xFFFFFFFF; an
element's original position is one more key after the others, so no two elements
tie and the unstable network sorts stably (padding comes after real elements with
the largest keys, since its positions are larger). The work buffer holds `keys + 1`
planes of `rows * m` words.

The network merges sorted runs of k = 2, 4, ..., m elements; merging runs of k is
compare-exchange *levels* at distances j = k/2, k/4, ..., 1, each element against
the one j away, ascending where the element's position in its row has bit k clear
(so the last merge, k = m, is ascending everywhere). A thread runs up to `LEVELS`
levels at once on 2^levels elements held in registers (`_levels`): the elements
`span` apart whose positions differ only in those levels' bits. That cuts the
passes over memory, and the barriers in workgroup memory, by up to three.

* The **block** shader sorts, in workgroup memory, blocks of `block` elements:
  for every k from `k_lo` to `k_hi` it runs the levels with j below the block size.
  The first pass (`READ_INPUT`) loads the keys from the input and pads the rows;
  the last (`WRITE_OUTPUT`) writes the positions of the first `length` of each row.
* The **merge<L>** shaders run L levels with j at least the block size on the work
  buffer.

Rows of at most `block` elements take one pass; 2^20 elements with one key, 28.

Each pass reads and writes `keys + 1` planes. The radix sort (radix_sort.py) takes
12 dispatches a key, and moves about 20 planes a key (5 a digit: its count pass reads
the keys, its scatter reads the keys and the columns and writes both). Where a few
blocks make a row, each dispatch's fixed cost decides (about 18 µs on an H100, more
than the work below 2^16 elements); the radix sort takes a row where the network
would make RADIX_FROM times its dispatches or more: with one key from 2^17 elements
(16 passes), with two from 2^19 or 2^20 (by the block). On an H100, 2^16 elements
with one key took the network 208 µs and the radix sort 200, 2^20 425 and 254 (JAX:
111), 2^24 7520 and 1670; with two keys, 2^18 255 and 317, 2^20 539 and 416.

>>> from jaxwg.core.routine import SortPermutation
>>> from jaxwg.backend.webgpu.tuner import AdapterTraits
>>> [s.shader for s in plan(SortPermutation(rows=2, length=1000, keys=1), AdapterTraits(False)).steps]
['block']
>>> len(bitonic_plan(SortPermutation(rows=1, length=1 << 20, keys=1), 16384).steps)
28
>>> len(plan(SortPermutation(rows=1, length=1 << 20, keys=1), AdapterTraits(False)).steps)
12
"""

from __future__ import annotations

from ...core.routine import SortPermutation
from . import radix_sort
from .routines import SWIZZLE, RoutinePlan, RoutineStep
from .tuner import AdapterTraits

THREADS = 256
MAX_BLOCK = 2048  # 16 KiB of workgroup memory for one key (4096 measured slower on an H200)
LEVELS = 3  # network levels per pass over memory: 8 elements in registers per thread
READ_INPUT, WRITE_OUTPUT = 1, 2
RADIX_FROM = 1.1  # network passes per radix sort dispatch from which the radix sort sorts


def padded_length(routine: SortPermutation) -> int:
    return 1 << max(0, routine.length - 1).bit_length()


def block_size(routine: SortPermutation, workgroup_bytes: int) -> int:
    """The largest power of two from 2 * THREADS to MAX_BLOCK whose planes fit in the
    workgroup memory."""
    block = MAX_BLOCK
    while block > 2 * THREADS and block * (routine.keys + 1) * 4 > workgroup_bytes:
        block //= 2
    return block


def plan(routine: SortPermutation, traits: AdapterTraits) -> RoutinePlan:
    """The passes sorting `routine`'s rows on an adapter with `traits`: the radix sort's
    where the network would make RADIX_FROM times its dispatches or more, and its
    scratch (about 1.5 times the network's with one key) fits one of the adapter's
    bindings."""
    network = bitonic_plan(routine, traits.workgroup_bytes)
    long = len(network.steps) >= RADIX_FROM * radix_sort.dispatches(routine)
    if long and 4 * radix_sort.scratch_words(routine) <= traits.max_binding_bytes:
        return radix_sort.plan(routine, traits)
    return network


def bitonic_plan(routine: SortPermutation, workgroup_bytes: int) -> RoutinePlan:
    """The sorting network's passes."""
    m = padded_length(routine)
    total = routine.rows * m
    block = block_size(routine, workgroup_bytes)
    blocks = -(-total // block)
    steps = [RoutineStep("block", (2, min(m, block), READ_INPUT | (WRITE_OUTPUT if m <= block else 0)),
                         blocks)]
    k = 2 * block
    while k <= m:
        j = k // 2
        while j >= block:  # the levels from j down to the block size, LEVELS at a time
            levels = min(LEVELS, (j // block).bit_length())
            span = j >> (levels - 1)
            steps.append(RoutineStep(f"merge{levels}", (k, span), -(-total // (THREADS << levels))))
            j = span // 2
        steps.append(RoutineStep("block", (k, k, WRITE_OUTPUT if k == m else 0), blocks))
        k *= 2
    shaders = {"block": _block_shader(routine, m, block)}
    for step in steps:
        if step.shader not in shaders:
            shaders[step.shader] = _merge_shader(routine, m, int(step.shader[len("merge"):]))
    return RoutinePlan(shaders, tuple(steps), (routine.keys + 1) * total * 4)


def _levels(memory: str, plane_stride: str, planes: int, levels: int, swizzled: bool = False) -> str:
    """A WGSL function `levels<L>(q, span, k, base)` running L levels of the network on
    `memory` (planes `plane_stride` apart) for the thread's group q: the 2^L elements
    `first + i * span`, where `first` is q with L zero bits put in at `span`'s bit.
    They are read into registers `v<i>_<plane>`, compared as (keys, position) tuples
    (no two tie) and written back in order. `swizzled`: `memory` is indexed through
    `slot` (routines.SWIZZLE)."""
    count = 1 << levels
    at = [f"{p}u * {plane_stride} + " if p else "" for p in range(planes)]

    def word(p: int, i: int) -> str:  # element i's word of plane p
        index = f"{at[p]}e{i}"
        return f"{memory}[slot({index})]" if swizzled else f"{memory}[{index}]"

    body = ["let low = q & (span - 1u);",
            f"let first = ((q - low) << {levels}u) | low;",
            "let ascending = ((base + first) & (M - 1u) & k) == 0u;"]
    for i in range(count):
        body.append(f"let e{i} = first + {i}u * span;")
        body += [f"var v{i}_{p} = {word(p, i)};" for p in range(planes)]
    for level in reversed(range(levels)):
        for i in range(count):
            if i & (1 << level):
                continue
            a, b = i, i | (1 << level)
            b_first = f"v{b}_{planes - 1} < v{a}_{planes - 1}"
            for p in reversed(range(planes - 1)):
                b_first = f"v{b}_{p} < v{a}_{p} || (v{b}_{p} == v{a}_{p} && ({b_first}))"
            body.append(f"if (({b_first}) == ascending) {{")
            body += [f"  let t{p} = v{a}_{p}; v{a}_{p} = v{b}_{p}; v{b}_{p} = t{p};" for p in range(planes)]
            body.append("}")
    for i in range(count):
        body += [f"{word(p, i)} = v{i}_{p};" for p in range(planes)]
    return (f"fn levels{levels}(q: u32, span: u32, k: u32, base: u32) {{\n"
            + "\n".join("  " + line for line in body) + "\n}\n")


def _common(routine: SortPermutation, m: int) -> str:
    """Bindings, sizes and the parameters every pass reads."""
    return f"""\
struct Params {{ a: u32, b: u32, flags: u32, unused: u32 }}
@group(0) @binding(0) var<storage, read> keys_in: array<u32>;
@group(0) @binding(1) var<storage, read_write> work: array<u32>;
@group(0) @binding(2) var<storage, read_write> out: array<i32>;
@group(0) @binding(3) var<uniform> params: Params;
const KEYS = {routine.keys}u;
const LENGTH = {routine.length}u;
const M = {m}u;
const TOTAL = {routine.rows * m}u;
const ROW_ELEMENTS = {routine.rows * routine.length}u;
"""


def _block_shader(routine: SortPermutation, m: int, block: int) -> str:
    planes = routine.keys + 1
    functions = "".join(_levels("tile", "BLOCK", planes, n, swizzled=True) for n in range(1, LEVELS + 1))
    rounds = "\n".join(
        f"      {'if' if n == LEVELS else '} else if'} (levels == {n}u) {{\n"
        f"        for (var q = lid.x; q < (BLOCK >> {n}u); q += {THREADS}u) {{ levels{n}(q, span, k, base); }}"
        for n in range(LEVELS, 0, -1)) + "\n      }"
    return _common(routine, m) + f"""\
const BLOCK = {block}u;
var<workgroup> tile: array<u32, {block * planes}>;
{SWIZZLE}
{functions}
fn load(e: u32, g: u32) {{
  if ((params.flags & {READ_INPUT}u) == 0u) {{
    for (var p = 0u; p <= KEYS; p++) {{ tile[slot(p * BLOCK + e)] = work[p * TOTAL + g]; }}
    return;
  }}
  let column = g % M;
  let real = g < TOTAL && column < LENGTH;
  let source = min((g / M) * LENGTH + column, ROW_ELEMENTS - 1u);
  for (var p = 0u; p < KEYS; p++) {{
    tile[slot(p * BLOCK + e)] = select(0xFFFFFFFFu, keys_in[p * ROW_ELEMENTS + source], real);
  }}
  tile[slot(KEYS * BLOCK + e)] = select(0xFFFFFFFFu, column, g < TOTAL);
}}

fn store(e: u32, g: u32) {{
  if (g >= TOTAL) {{ return; }}
  if ((params.flags & {WRITE_OUTPUT}u) == 0u) {{
    for (var p = 0u; p <= KEYS; p++) {{ work[p * TOTAL + g] = tile[slot(p * BLOCK + e)]; }}
    return;
  }}
  let column = g % M;
  if (column < LENGTH) {{ out[(g / M) * LENGTH + column] = i32(tile[slot(KEYS * BLOCK + e)]); }}
}}

@compute @workgroup_size({THREADS})
fn main(@builtin(local_invocation_id) lid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) groups: vec3<u32>) {{
  let base = (wid.x + wid.y * groups.x) * BLOCK;
  if (base >= TOTAL) {{ return; }}
  for (var e = lid.x; e < BLOCK; e += {THREADS}u) {{ load(e, base + e); }}
  workgroupBarrier();
  for (var k = params.a; k <= params.b; k <<= 1u) {{
    var j = min(k, BLOCK) >> 1u;
    while (j > 0u) {{  // the levels from j down to 1, LEVELS at a time
      let levels = min({LEVELS}u, countTrailingZeros(j) + 1u);
      let span = j >> (levels - 1u);
{rounds}
      workgroupBarrier();
      j = span >> 1u;
    }}
  }}
  for (var e = lid.x; e < BLOCK; e += {THREADS}u) {{ store(e, base + e); }}
}}
"""


def _merge_shader(routine: SortPermutation, m: int, levels: int) -> str:
    return _common(routine, m) + _levels("work", "TOTAL", routine.keys + 1, levels) + f"""\
@compute @workgroup_size({THREADS})
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {{
  let q = gid.x + gid.y * groups.x * {THREADS}u;
  if (q < (TOTAL >> {levels}u)) {{ levels{levels}(q, params.b, params.a, 0u); }}
}}
"""
