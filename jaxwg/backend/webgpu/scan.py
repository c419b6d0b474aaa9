"""The cumulative-sum routine's shaders and plan: a scan in blocks, in three passes.

`CumulativeSum` scans `rows` rows of `length` elements. Each row is cut into blocks
of BLOCK elements, one workgroup each:

1. **totals**: each block's sum, into the scratch buffer (coalesced reads);
2. **offsets**: one workgroup per row scans its blocks' totals, BLOCK at a time,
   into each block's *exclusive* prefix (the sum of the blocks before it);
3. **scan**: each block is loaded into workgroup memory and scanned there
   (`scan_tile`: every thread runs through PER contiguous elements, then a
   Hillis-Steele scan of the THREADS thread totals), plus its block's prefix.

A row of one block takes the third pass alone. The data is read twice and written
once; the totals are 1/BLOCK of it.

>>> from jaxwg.core import dtypes as dt
>>> from jaxwg.core.routine import CumulativeSum
>>> [s.shader for s in plan(CumulativeSum(dt.float32, 3, 5000), 16384).steps]
['totals', 'offsets', 'scan']
>>> [s.shader for s in plan(CumulativeSum(dt.int32, 8, 100), 16384).steps]
['scan']
"""

from __future__ import annotations

from ...core.routine import CumulativeSum
from .codegen import WGSL_TYPE
from .routines import SWIZZLE, RoutinePlan, RoutineStep

THREADS = 256
PER = 8  # contiguous elements a thread scans
BLOCK = THREADS * PER  # 8 KiB of float32 in workgroup memory


def plan(routine: CumulativeSum, workgroup_bytes: int) -> RoutinePlan:
    per_row = -(-routine.length // BLOCK)
    blocks = routine.rows * per_row
    code = _common(routine, per_row)
    scan = RoutineStep("scan", (), blocks)
    if per_row == 1:
        return RoutinePlan({"scan": code + _SCAN}, (scan,), 4)
    shaders = {"totals": code + _TOTALS, "offsets": code + _OFFSETS, "scan": code + _SCAN}
    steps = (RoutineStep("totals", (), blocks), RoutineStep("offsets", (), routine.rows), scan)
    return RoutinePlan(shaders, steps, blocks * routine.dtype.itemsize)


def _common(routine: CumulativeSum, per_row: int) -> str:
    """Bindings, sizes and `scan_tile`, which every pass's shader shares."""
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
var<workgroup> partial: array<T, THREADS>;
{SWIZZLE}
// The inclusive scan of `tile` in place; returns its total. Every thread calls it.
fn scan_tile(t: u32) -> T {{
  let first = t * PER;
  var run = tile[slot(first)];
  for (var i = 1u; i < PER; i++) {{
    run = run + tile[slot(first + i)];
    tile[slot(first + i)] = run;
  }}
  partial[t] = run;
  workgroupBarrier();
  for (var d = 1u; d < THREADS; d <<= 1u) {{
    var v = partial[t];
    if (t >= d) {{ v = partial[t - d] + v; }}
    workgroupBarrier();
    partial[t] = v;
    workgroupBarrier();
  }}
  let before = select(ZERO, partial[max(t, 1u) - 1u], t > 0u);
  for (var i = 0u; i < PER; i++) {{ tile[slot(first + i)] = before + tile[slot(first + i)]; }}
  let total = partial[THREADS - 1u];
  workgroupBarrier();
  return total;
}}

// The block of workgroup `wid`: its row and its first element's place in the row.
fn block_of(wid: vec3<u32>, groups: vec3<u32>) -> vec2<u32> {{
  let g = wid.x + wid.y * groups.x;
  return vec2<u32>(g / PER_ROW, (g % PER_ROW) * BLOCK);
}}
"""


# The start of the passes with one workgroup per block: `g` the block, `t` the thread,
# `at` the block's row and first column.
_BLOCK_ENTRY = """
@compute @workgroup_size(THREADS)
fn main(@builtin(local_invocation_id) lid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) groups: vec3<u32>) {
  let g = wid.x + wid.y * groups.x;
  if (g >= BLOCKS) { return; }
  let t = lid.x;
  let at = block_of(wid, groups);
"""

_TOTALS = _BLOCK_ENTRY + """  var sum = ZERO;
  for (var i = 0u; i < PER; i++) {
    let column = at.y + i * THREADS + t;
    if (column < LENGTH) { sum = sum + x[at.x * LENGTH + column]; }
  }
  partial[t] = sum;
  workgroupBarrier();
  for (var d = THREADS / 2u; d > 0u; d >>= 1u) {
    if (t < d) { partial[t] = partial[t] + partial[t + d]; }
    workgroupBarrier();
  }
  if (t == 0u) { sums[g] = partial[0]; }
}
"""

_OFFSETS = """
@compute @workgroup_size(THREADS)
fn main(@builtin(local_invocation_id) lid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) groups: vec3<u32>) {
  let row = wid.x + wid.y * groups.x;
  if (row * PER_ROW >= BLOCKS) { return; }
  let t = lid.x;
  let first = row * PER_ROW;
  var carry = ZERO;
  for (var chunk = 0u; chunk < PER_ROW; chunk += BLOCK) {
    for (var i = 0u; i < PER; i++) {
      let e = i * THREADS + t;
      tile[slot(e)] = select(ZERO, sums[first + min(chunk + e, PER_ROW - 1u)], chunk + e < PER_ROW);
    }
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
"""

_SCAN = _BLOCK_ENTRY + """  let start = at.x * LENGTH + at.y;
  let count = min(BLOCK, LENGTH - at.y);
  for (var i = 0u; i < PER; i++) {
    let e = i * THREADS + t;
    tile[slot(e)] = select(ZERO, x[start + min(e, count - 1u)], e < count);
  }
  workgroupBarrier();
  scan_tile(t);
  var offset = ZERO;
  if (PER_ROW > 1u) { offset = sums[g]; }
  for (var i = 0u; i < PER; i++) {
    let e = i * THREADS + t;
    if (e < count) { out[start + e] = offset + tile[slot(e)]; }
  }
}
"""
