"""The sort routine's shaders and plan: a bitonic sorting network over rows.

`SortPermutation` sorts `rows` rows of `length` elements by `keys` uint32 keys. Each
row is padded to m, a power of two, with elements whose keys are all 0xFFFFFFFF; an
element's original position is one more key after the others, so no two elements
tie and the unstable network sorts stably (padding comes after real elements with
the largest keys, since its positions are larger). The work buffer holds `keys + 1`
planes of `rows * m` words.

The network merges sorted runs of k = 2, 4, ..., m elements; merging runs of k is
compare-exchange steps at distances j = k/2, k/4, ..., 1, each element against the
one j away, ascending where the element's position in its row has bit k clear (so
the last merge, k = m, is ascending everywhere).

* The **block** shader sorts, in workgroup memory, blocks of `block` elements:
  for every k from `k_lo` to `k_hi` it runs the steps with j below the block size.
  The first pass (`READ_INPUT`) loads the keys from the input and pads the rows;
  the last (`WRITE_OUTPUT`) writes the positions of the first `length` of each row.
* The **merge** shader runs one step with j at least the block size on the work
  buffer, one thread per pair.

Rows of at most `block` elements take one pass; 2^20 elements with one key, 55.

>>> from jaxwg.core.routine import SortPermutation
>>> [s.shader for s in plan(SortPermutation(rows=2, length=1000, keys=1), 16384).steps]
['block']
>>> len(plan(SortPermutation(rows=1, length=1 << 20, keys=1), 16384).steps)
55
"""

from __future__ import annotations

from ...core.routine import SortPermutation
from .routines import RoutinePlan, RoutineStep

THREADS = 256
READ_INPUT, WRITE_OUTPUT = 1, 2


def padded_length(routine: SortPermutation) -> int:
    return 1 << max(0, routine.length - 1).bit_length()


def block_size(routine: SortPermutation, workgroup_bytes: int) -> int:
    """The largest power of two (at least 2 * THREADS, at most 4096) whose planes fit
    in the workgroup memory."""
    block = 4096
    while block > 2 * THREADS and block * (routine.keys + 1) * 4 > workgroup_bytes:
        block //= 2
    return block


def plan(routine: SortPermutation, workgroup_bytes: int) -> RoutinePlan:
    """The passes sorting `routine`'s rows, given the adapter's workgroup memory."""
    m = padded_length(routine)
    total = routine.rows * m
    block = block_size(routine, workgroup_bytes)
    blocks = -(-total // block)
    pairs = -(-total // (2 * THREADS))
    steps = [RoutineStep("block", (2, min(m, block), READ_INPUT | (WRITE_OUTPUT if m <= block else 0)),
                         blocks)]
    k = 2 * block
    while k <= m:
        j = k // 2
        while j >= block:
            steps.append(RoutineStep("merge", (k, j, 0), pairs))
            j //= 2
        steps.append(RoutineStep("block", (k, k, WRITE_OUTPUT if k == m else 0), blocks))
        k *= 2
    shaders = {"block": _block_shader(routine, m, block), "merge": _merge_shader(routine, m)}
    return RoutinePlan(shaders, tuple(steps), (routine.keys + 1) * total * 4)


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
    return _common(routine, m) + f"""\
const BLOCK = {block}u;
var<workgroup> tile: array<u32, {block * planes}>;

// Whether tile element a sorts before tile element b (keys, then position).
fn before(a: u32, b: u32) -> bool {{
  for (var p = 0u; p <= KEYS; p++) {{
    let x = tile[p * BLOCK + a];
    let y = tile[p * BLOCK + b];
    if (x != y) {{ return x < y; }}
  }}
  return false;
}}

fn load(e: u32, g: u32) {{
  if ((params.flags & {READ_INPUT}u) == 0u) {{
    for (var p = 0u; p <= KEYS; p++) {{ tile[p * BLOCK + e] = work[p * TOTAL + g]; }}
    return;
  }}
  let column = g % M;
  let real = g < TOTAL && column < LENGTH;
  let source = min((g / M) * LENGTH + column, ROW_ELEMENTS - 1u);
  for (var p = 0u; p < KEYS; p++) {{
    tile[p * BLOCK + e] = select(0xFFFFFFFFu, keys_in[p * ROW_ELEMENTS + source], real);
  }}
  tile[KEYS * BLOCK + e] = select(0xFFFFFFFFu, column, g < TOTAL);
}}

fn store(e: u32, g: u32) {{
  if (g >= TOTAL) {{ return; }}
  if ((params.flags & {WRITE_OUTPUT}u) == 0u) {{
    for (var p = 0u; p <= KEYS; p++) {{ work[p * TOTAL + g] = tile[p * BLOCK + e]; }}
    return;
  }}
  let column = g % M;
  if (column < LENGTH) {{ out[(g / M) * LENGTH + column] = i32(tile[KEYS * BLOCK + e]); }}
}}

@compute @workgroup_size({THREADS})
fn main(@builtin(local_invocation_id) lid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) groups: vec3<u32>) {{
  let base = (wid.x + wid.y * groups.x) * BLOCK;
  if (base >= TOTAL) {{ return; }}
  for (var e = lid.x; e < BLOCK; e += {THREADS}u) {{ load(e, base + e); }}
  workgroupBarrier();
  for (var k = params.a; k <= params.b; k <<= 1u) {{
    for (var j = min(k, BLOCK) >> 1u; j > 0u; j >>= 1u) {{
      for (var q = lid.x; q < BLOCK / 2u; q += {THREADS}u) {{
        let a = ((q & ~(j - 1u)) << 1u) | (q & (j - 1u));
        let b = a + j;
        let ascending = ((base + a) & (M - 1u) & k) == 0u;
        if (before(b, a) == ascending) {{  // no two elements tie
          for (var p = 0u; p <= KEYS; p++) {{
            let t = tile[p * BLOCK + a];
            tile[p * BLOCK + a] = tile[p * BLOCK + b];
            tile[p * BLOCK + b] = t;
          }}
        }}
      }}
      workgroupBarrier();
    }}
  }}
  for (var e = lid.x; e < BLOCK; e += {THREADS}u) {{ store(e, base + e); }}
}}
"""


def _merge_shader(routine: SortPermutation, m: int) -> str:
    return _common(routine, m) + f"""\
@compute @workgroup_size({THREADS})
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {{
  let q = gid.x + gid.y * groups.x * {THREADS}u;
  if (q >= TOTAL / 2u) {{ return; }}
  let k = params.a;
  let j = params.b;
  let a = ((q & ~(j - 1u)) << 1u) | (q & (j - 1u));
  let b = a + j;
  var swap = false;
  for (var p = 0u; p <= KEYS; p++) {{
    let x = work[p * TOTAL + a];
    let y = work[p * TOTAL + b];
    if (x != y) {{
      swap = (y < x) == ((a & (M - 1u) & k) == 0u);
      break;
    }}
  }}
  if (swap) {{
    for (var p = 0u; p <= KEYS; p++) {{
      let t = work[p * TOTAL + a];
      work[p * TOTAL + a] = work[p * TOTAL + b];
      work[p * TOTAL + b] = t;
    }}
  }}
}}
"""
