"""The cumulative-sum routine's shaders and plan: a scan in blocks, in three passes.

`CumulativeSum` scans `rows` rows of `length` elements. Each row is cut into blocks
of BLOCK elements, one workgroup each:

1. **totals**: each block's sum, into the scratch buffer (coalesced reads);
2. **offsets**: one workgroup per row scans its blocks' totals, BLOCK at a time,
   into each block's *exclusive* prefix (the sum of the blocks before it);
3. **scan**: each block is loaded into workgroup memory and scanned there
   (`scan_tile`: every thread runs through PER contiguous elements, then the
   THREADS thread totals are scanned), plus its block's prefix.

A row of one block takes the third pass alone. The data is read twice and written
once; the totals are 1/BLOCK of it. On a software adapter a row of one block takes a
thread instead (`_thread_rows`): a workgroup a row made 4096 rows of 16 take half a
second there.

Across threads, sums go through subgroup operations where the adapter has them
(`subgroups`): a subgroup's lanes scan or add their values in registers, and only
the THREADS / subgroup-size subgroup totals meet in workgroup memory, behind one
barrier. Without them, the thread totals take a Hillis-Steele scan or a tree in
workgroup memory (8 barriers each). Both ways are `routines.thread_sums`, which the
radix sort shares. What counted more on an H100 (16M float32, µs a call, back to
back): each thread's loads written out (`_unrolled`) instead of a loop, 175 -> 108;
subgroups then 105 (the totals pass 43 -> 24 µs, the scan pass 109 -> 56).

>>> from jaxwg.core import dtypes as dt
>>> from jaxwg.core.routine import CumulativeSum
>>> from jaxwg.backend.webgpu.tuner import AdapterTraits
>>> [s.shader for s in plan(CumulativeSum(dt.float32, 3, 5000), AdapterTraits(False)).steps]
['totals', 'offsets', 'scan']
>>> [s.shader for s in plan(CumulativeSum(dt.int32, 8, 100), AdapterTraits(False)).steps]
['scan']
"""

from __future__ import annotations

from ...core.routine import CumulativeSum
from .codegen import WGSL_TYPE
from .routines import SWIZZLE, RoutinePlan, RoutineStep, entry_point, thread_sums
from .tuner import AdapterTraits

THREADS = 256
PER = 8  # contiguous elements a thread scans
BLOCK = THREADS * PER  # 8 KiB of float32 in workgroup memory


def plan(routine: CumulativeSum, traits: AdapterTraits) -> RoutinePlan:
    """The passes of `routine` on an adapter with `traits`: with subgroup operations
    where it has them (they take every dtype of `CumulativeSum.DTYPES`); rows of at most
    BLOCK on a software adapter a thread each (`_thread_rows`)."""
    if traits.is_software and routine.length <= BLOCK:
        return _thread_rows(routine, traits)
    subgroups = traits.subgroups
    per_row = -(-routine.length // BLOCK)
    blocks = routine.rows * per_row
    code = _common(routine, per_row, subgroups)
    entry = entry_point(subgroups)
    scan = RoutineStep("scan", (), blocks)
    if per_row == 1:
        return RoutinePlan({"scan": code + entry + _scan()}, (scan,), 4)
    shaders = {name: code + entry + body() for name, body in
               (("totals", _totals), ("offsets", _offsets), ("scan", _scan))}
    steps = (RoutineStep("totals", (), blocks), RoutineStep("offsets", (), routine.rows), scan)
    return RoutinePlan(shaders, steps, blocks * routine.dtype.itemsize)


def _thread_rows(routine: CumulativeSum, traits: AdapterTraits) -> RoutinePlan:
    """One pass, a thread per row running through it in order (as NumPy does). On a
    software adapter a block's workgroup of THREADS threads costs 75 µs or more however
    short its row (its barriers dominate), and short rows made a block each: lavapipe,
    2 cores, busy, float32, jitted jnp.cumsum in ms a call, two alternating runs each:
    4096 x 16 along the rows 537 / 1113 -> 1.3 / 1.2, 1024 x 64 145 / 292 -> 0.8 / 1.2,
    64 x 1024 8.8 / 22 -> 1.1 / 1.1, 1 x 2048 0.40 / 0.46 -> 0.16 / 0.34, 16 x 4096 along
    the columns 542 / 1045 -> 5.0 / 2.9. A float row's sum rounds in sequence, as NumPy's
    (the blocks' is mostly a tree), so long rows keep the blocks."""
    element = WGSL_TYPE[routine.dtype]
    threads = traits.workgroup_size
    shader = f"""\
@group(0) @binding(0) var<storage, read> x: array<{element}>;
@group(0) @binding(1) var<storage, read_write> sums: array<{element}>;
@group(0) @binding(2) var<storage, read_write> out: array<{element}>;
@group(0) @binding(3) var<uniform> params: vec4<u32>;
alias T = {element};
const THREADS = {threads}u;
{entry_point(False)}  let row = g * THREADS + t;
  if (row >= {routine.rows}u) {{ return; }}
  let start = row * {routine.length}u;
  var run = T(0);  // 0 + -0.0 is 0.0: a row that starts with -0.0 starts with 0.0, as JAX's
  for (var i = start; i < start + {routine.length}u; i++) {{
    run = run + x[i];
    out[i] = run;
  }}
}}
"""
    workgroups = -(-routine.rows // threads)
    return RoutinePlan({"rows": shader}, (RoutineStep("rows", (), workgroups),), 4)


def _common(routine: CumulativeSum, per_row: int, subgroups: bool) -> str:
    """Bindings, sizes and the sums across threads (`routines.thread_sums`, `scan_tile`),
    which every pass's shader shares."""
    element = WGSL_TYPE[routine.dtype]
    return f"""\
@group(0) @binding(0) var<storage, read> x: array<{element}>;
@group(0) @binding(1) var<storage, read_write> sums: array<{element}>;
@group(0) @binding(2) var<storage, read_write> out: array<{element}>;
@group(0) @binding(3) var<uniform> params: vec4<u32>;
alias T = {element};
const ZERO = T(0);
const THREADS = {THREADS}u;
const PER = {PER}u;
const BLOCK = {BLOCK}u;
const LENGTH = {routine.length}u;
const PER_ROW = {per_row}u;
const BLOCKS = {routine.rows * per_row}u;
var<workgroup> tile: array<T, BLOCK>;  // indexed through `slot`
{SWIZZLE}
{thread_sums(element, subgroups, add=True)}
// The inclusive scan of `tile` in place; returns its total. Every thread calls it.
fn scan_tile(t: u32) -> T {{
  let first = t * PER;
  var run = tile[slot(first)];
  for (var i = 1u; i < PER; i++) {{
    run = run + tile[slot(first + i)];
    tile[slot(first + i)] = run;
  }}
  let scanned = scan_threads(t, run);
  let before = scanned.x;
  for (var i = 0u; i < PER; i++) {{ tile[slot(first + i)] = before + tile[slot(first + i)]; }}
  workgroupBarrier();
  return scanned.y;
}}

// The block of workgroup `wid`: its row and its first element's place in the row.
fn block_of(wid: vec3<u32>, groups: vec3<u32>) -> vec2<u32> {{
  let g = wid.x + wid.y * groups.x;
  return vec2<u32>(g / PER_ROW, (g % PER_ROW) * BLOCK);
}}
"""


def _unrolled(line: str) -> str:
    """`line` once for each of a thread's PER elements, `{i}` its number: written out,
    so that the thread's loads are all in flight at once rather than one loop trip's."""
    return "".join("  " + line.replace("{i}", str(i)) + "\n" for i in range(PER))


# The passes with one workgroup per block: `at` is the block's row and first column.
def _totals() -> str:
    return ("""  if (g >= BLOCKS) { return; }
  let at = block_of(wid, groups);
  let row = at.x * LENGTH;
  var sum = ZERO;
""" + _unrolled("let c{i} = at.y + {i}u * THREADS + t; "
                "sum = sum + select(ZERO, x[row + min(c{i}, LENGTH - 1u)], c{i} < LENGTH);") + """\
  let total = add_threads(t, sum);
  if (t == 0u) { sums[g] = total; }
}
""")


# One workgroup per row (`g`).
def _offsets() -> str:
    return ("""  if (g * PER_ROW >= BLOCKS) { return; }
  let first = g * PER_ROW;
  var carry = ZERO;
  for (var chunk = 0u; chunk < PER_ROW; chunk += BLOCK) {
""" + _unrolled("  let e{i} = {i}u * THREADS + t;")
            + _unrolled("  let v{i} = sums[first + min(chunk + e{i}, PER_ROW - 1u)];")
            + _unrolled("  tile[slot(e{i})] = select(ZERO, v{i}, chunk + e{i} < PER_ROW);")
            + """\
    workgroupBarrier();
    let total = scan_tile(t);
    for (var i = 0u; i < PER; i++) {
      let e = i * THREADS + t;
      if (chunk + e < PER_ROW) {
        sums[first + chunk + e] = carry + select(ZERO, tile[slot(max(e, 1u) - 1u)], e > 0u);
      }
    }
    carry = carry + total;
    workgroupBarrier();
  }
}
""")


def _scan() -> str:
    """The block's elements into registers (and its offset, read at the same time),
    then into workgroup memory."""
    return ("""  if (g >= BLOCKS) { return; }
  let at = block_of(wid, groups);
  let start = at.x * LENGTH + at.y;
  let count = min(BLOCK, LENGTH - at.y);
""" + _unrolled("let e{i} = {i}u * THREADS + t;")
            + _unrolled("let v{i} = x[start + min(e{i}, count - 1u)];") + """\
  var offset = ZERO;
  if (PER_ROW > 1u) { offset = sums[g]; }
""" + _unrolled("tile[slot(e{i})] = select(ZERO, v{i}, e{i} < count);") + """\
  workgroupBarrier();
  scan_tile(t);
""" + _unrolled("if (e{i} < count) { out[start + e{i}] = offset + tile[slot(e{i})]; }")
            + "}\n")
