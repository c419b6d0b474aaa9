"""The sort routine's plan for long rows: a least-significant-digit radix sort.

`SortPermutation` sorts each of `rows` rows by `keys` uint32 key planes. A radix sort
sorts stably by one 8-bit digit at a time, from the last plane's lowest digit to key
0's highest: 4 digit passes per key. Each row is cut into blocks of BLOCK elements
(as the scan routine's rows are), one workgroup each, so rows never share a block and
every offset is its row's start plus a place in the row. A digit pass is three
dispatches (no workgroup waits on another, which WebGPU cannot promise to end):

1. **count**: each block's digit counts, into a table in (row, digit, block) order;
2. **scan**: one workgroup per group of digits whose counts fill at most a block
   (`_digits_per_scan`) turns their counts into exclusive offsets from the group's
   start, and writes the group's total;
3. **scatter**: each block sorts its elements by digit in workgroup memory (`rank`:
   two stable rounds of 4 bits) and writes them, in that order, to the row's start
   plus the totals of the groups before the digit's plus its count offset.

Digits are 8 bits because a pass over memory costs more than ranking in workgroup
memory: 4 passes per key instead of 4-bit digits' 8. Ranking 256 buckets at once
would take per-thread counters for each (256 KiB); two rounds of 16 take 16-bit
counters packed two to a word, 8 words per thread (8 KiB: `rank`).

The permutation (each element's column in its row) travels with the keys. The keys
ping-pong between two halves of the scratch buffer, the columns between the output
and the scratch: passes alternate, and there is an even number of them, so the last
writes the columns to the output (its keys are not needed). The pass that finishes a
key plane writes the next plane's key in place of the current one, read at the
element's column in the input. The scratch holds the keys twice, the columns once,
then the count table and the groups' totals.

Workgroup memory: the tile of BLOCK words and at most 3 * 256 more (11 KiB), whatever
the adapter's limit. Sums across a workgroup's threads (`scan_threads`) are the scan
routine's (`routines.thread_sums`): with subgroup operations where the adapter has
them. Indices are u32 throughout (no f32 arithmetic, exact past 2^24 elements).

>>> from jaxwg.core.routine import SortPermutation
>>> from jaxwg.backend.webgpu.tuner import AdapterTraits
>>> steps = plan(SortPermutation(rows=1, length=1 << 20, keys=1), AdapterTraits(False)).steps
>>> len(steps), [s.shader for s in steps[:3]]
(12, ['count', 'scan', 'scatter'])
"""

from __future__ import annotations

from ...core.routine import SortPermutation
from .routines import SWIZZLE, RoutinePlan, RoutineStep, entry_point, thread_sums
from .tuner import AdapterTraits

THREADS = 256
PER = 8  # elements a thread ranks, and counters it scans (8 words of two 16-bit halves)
BLOCK = THREADS * PER
RADIX = 256  # 8-bit digits, one a thread where a block takes all of them
DIGIT_PASSES = 4  # per 32-bit key plane
# A pass's flags, above its digit's shift in its first parameter: it reads the keys
# from the input (the first pass); it writes the next key plane's keys in place of its
# own (the last pass of a plane but key 0's), or no keys (the last pass); it reads the
# second copy of the keys, and the columns from the scratch (every other pass).
FIRST, NEXT_PLANE, LAST, SECOND = 1 << 8, 1 << 9, 1 << 10, 1 << 11


def scratch_words(routine: SortPermutation) -> int:
    """Two copies of the keys, one of the columns, the count table and the totals."""
    per_row = _blocks_per_row(routine.length)
    table = per_row * RADIX + RADIX // _digits_per_scan(per_row)
    return 3 * routine.rows * routine.length + routine.rows * table


def dispatches(routine: SortPermutation) -> int:
    return 3 * DIGIT_PASSES * routine.keys


def plan(routine: SortPermutation, traits: AdapterTraits) -> RoutinePlan:
    """Four digit passes per key plane, from the last plane to key 0, on an adapter with
    `traits` (its subgroup operations)."""
    per_row = _blocks_per_row(routine.length)
    blocks = routine.rows * per_row
    scans = routine.rows * RADIX // _digits_per_scan(per_row)
    steps = []
    for plane in reversed(range(routine.keys)):
        for digit in range(DIGIT_PASSES):
            flags = ((FIRST if not steps else 0) | (SECOND if digit % 2 else 0)
                     | (NEXT_PLANE if digit == DIGIT_PASSES - 1 else 0))
            if plane == 0 and digit == DIGIT_PASSES - 1:
                flags = LAST | SECOND
            params = (8 * digit | flags, plane, routine.rows, routine.length)
            steps += [RoutineStep("count", params, blocks), RoutineStep("scan", params, scans),
                      RoutineStep("scatter", params, blocks)]
    return RoutinePlan(_SHADERS[traits.subgroups], tuple(steps), 4 * scratch_words(routine))


def _blocks_per_row(length: int) -> int:
    return max(1, -(-length // BLOCK))


def _digits_per_scan(per_row: int) -> int:
    """The digits whose counts one scan workgroup takes, as the shaders' `digits_per_scan`:
    as many as fill a block, a power of two (a short row's all, 4 at 2^20 elements, one
    from BLOCK blocks a row)."""
    return min(RADIX, 1 << (max(1, BLOCK // per_row).bit_length() - 1))


def _common(subgroups: bool) -> str:
    """Bindings, the sizes and the scratch layout (from the parameters, so that every
    sort runs the same shaders), and what every pass's shader shares."""
    return f"""
struct Params {{ shift_flags: u32, plane: u32, rows: u32, length: u32 }}
@group(0) @binding(0) var<storage, read> keys_in: array<u32>;
@group(0) @binding(1) var<storage, read_write> work: array<u32>;
@group(0) @binding(2) var<storage, read_write> out: array<i32>;
@group(0) @binding(3) var<uniform> params: Params;
const THREADS = {THREADS}u;
const PER = {PER}u;
const BLOCK = {BLOCK}u;
const RADIX = {RADIX}u;
const FIRST = {FIRST}u;
const NEXT_PLANE = {NEXT_PLANE}u;
const LAST = {LAST}u;
const SECOND = {SECOND}u;
var<workgroup> tile: array<u32, BLOCK>;  // indexed through `slot`
{SWIZZLE}
fn flag(f: u32) -> bool {{ return (params.shift_flags & f) != 0u; }}
fn digit_of(key: u32) -> u32 {{ return (key >> (params.shift_flags & 31u)) & (RADIX - 1u); }}

fn elements() -> u32 {{ return params.rows * params.length; }}
fn blocks_per_row() -> u32 {{ return max(1u, (params.length + BLOCK - 1u) / BLOCK); }}
fn digits_per_scan() -> u32 {{ return min(RADIX, 1u << firstLeadingBit(max(1u, BLOCK / blocks_per_row()))); }}
// The scratch: the keys twice, the columns, the counts by (row, digit, block), the
// totals by (row, group of digits_per_scan digits).
fn keys_at(second: bool) -> u32 {{ return select(0u, elements(), second); }}
fn columns_at() -> u32 {{ return 2u * elements(); }}
fn counts_at() -> u32 {{ return 3u * elements(); }}
fn totals_at() -> u32 {{ return counts_at() + params.rows * blocks_per_row() * RADIX; }}
// Where the count of `digit` in block g (of every row's blocks) is.
fn count_at(g: u32, digit: u32) -> u32 {{
  let per_row = blocks_per_row();
  return counts_at() + ((g / per_row) * RADIX + digit) * per_row + g % per_row;
}}

{thread_sums("u32", subgroups)}
// The exclusive scan of `tile` in place, PER words a thread; returns the total.
fn scan_tile(t: u32) -> u32 {{
  var run = 0u;
  for (var i = 0u; i < PER; i++) {{ run += tile[slot(t * PER + i)]; }}
  let before = scan_threads(t, run);
  run = before.x;
  for (var i = 0u; i < PER; i++) {{
    let at = slot(t * PER + i);
    let count = tile[at];
    tile[at] = run;
    run += count;
  }}
  workgroupBarrier();
  return before.y;
}}

// The key the pass sorts by of element `i` (row * length + its place in the row).
fn key_at(i: u32) -> u32 {{
  if (flag(FIRST)) {{ return keys_in[params.plane * elements() + i]; }}
  return work[keys_at(flag(SECOND)) + i];
}}

// Workgroup g's block: its row, the column of its first element and its element count.
fn block_of(g: u32) -> vec3<u32> {{
  let row = g / blocks_per_row();
  let start = (g % blocks_per_row()) * BLOCK;
  return vec3<u32>(row, start, min(BLOCK, params.length - start));
}}
"""

# A pass is its own declarations and the body of its `main` (after `entry_point`'s `t`,
# the thread, and `g`, the workgroup). The passes with one workgroup per block (`g`)
# start with `at`, its row, first column and element count (`block_of`).
_BLOCK_START = """  if (g >= params.rows * blocks_per_row()) { return; }
  let at = block_of(g);
"""

# Each block's count of every digit, through workgroup atomics; a thread adds up its own
# elements' runs of one digit first (one atomic for a block of equal keys).
_COUNT = ("""
var<workgroup> histogram: array<atomic<u32>, RADIX>;
""", _BLOCK_START + """  for (var d = t; d < RADIX; d += THREADS) { atomicStore(&histogram[d], 0u); }
  workgroupBarrier();
  var digit = 0u;
  var run = 0u;
  for (var e = t; e < at.z; e += THREADS) {
    let next = digit_of(key_at(at.x * params.length + at.y + e));
    if (next != digit && run > 0u) {
      atomicAdd(&histogram[digit], run);
      run = 0u;
    }
    digit = next;
    run += 1u;
  }
  if (run > 0u) { atomicAdd(&histogram[digit], run); }
  workgroupBarrier();
  for (var d = t; d < RADIX; d += THREADS) {
    work[count_at(g, d)] = atomicLoad(&histogram[d]);
  }
}
""")

# One workgroup per (row, group of digits): the group's counts, in (digit, block) order and
# BLOCK at a time, become exclusive offsets from the group's start; their sum is its total.
_SCAN = ("", """  if (g >= params.rows * (RADIX / digits_per_scan())) { return; }
  let count = digits_per_scan() * blocks_per_row();
  let first = counts_at() + g * count;
  var carry = 0u;
  for (var chunk = 0u; chunk < count; chunk += BLOCK) {
    for (var i = 0u; i < PER; i++) {
      let e = i * THREADS + t;
      tile[slot(e)] = select(0u, work[first + min(chunk + e, count - 1u)], chunk + e < count);
    }
    workgroupBarrier();
    let total = scan_tile(t);
    for (var i = 0u; i < PER; i++) {
      let e = i * THREADS + t;
      if (chunk + e < count) { work[first + chunk + e] = carry + tile[slot(e)]; }
    }
    carry += total;
    workgroupBarrier();
  }
  if (t == 0u) { work[totals_at() + g] = carry; }
}
""")

def _rank() -> str:
    """A WGSL function `rank(t, bits)` sorting the words of `tile` stably by their 4 bits
    at `bits` (of the digit). Every thread counts the 16 values among its PER consecutive
    words in its own counters (16-bit halves: value v in word (v & 7) * THREADS + t, the
    high half for v >= 8); an exclusive scan of the counters in that order gives each
    (value, thread)'s first place among the values below 8, or among those from 8 (plus
    the count of those below 8, the low half's total). The thread's words, counters and
    places are named registers: arrays indexed in loops took 20% longer on an H100."""
    body = [f"let w{i} = tile[slot(t * PER + {i}u)];" for i in range(PER)]
    body += ["workgroupBarrier();", "for (var v = 0u; v < 8u; v++) { tile[slot(v * THREADS + t)] = 0u; }"]
    for i in range(PER):
        body += [f"let v{i} = (w{i} >> (16u + bits)) & 15u;",
                 f"let at{i} = slot((v{i} & 7u) * THREADS + t);",
                 f"let shift{i} = (v{i} >> 3u) * 16u;",
                 f"let own{i} = (tile[at{i}] >> shift{i}) & 0xFFFFu;  // the thread's words before",
                 f"tile[at{i}] += 1u << shift{i};"]
    body += ["workgroupBarrier();", "let below8 = scan_tile(t) & 0xFFFFu;"]
    body += [f"let place{i} = own{i} + ((tile[at{i}] >> shift{i}) & 0xFFFFu)"
             f" + select(0u, below8, v{i} >= 8u);" for i in range(PER)]
    body += ["workgroupBarrier();", *(f"tile[slot(place{i})] = w{i};" for i in range(PER))]
    body.append("workgroupBarrier();")
    return "fn rank(t: u32, bits: u32) {\n" + "\n".join("  " + line for line in body) + "\n}\n"


# Each block's elements in the order of their digits (stable), written to their places.
# `tile` holds a word per element, its digit << 16 | its index in the block; padding past
# the block's elements takes the largest digit, so it sorts after every element.
_SCATTER = (_rank() + """
var<workgroup> starts: array<u32, RADIX>;  // a digit's place in the row, less its place in the block
""", _BLOCK_START + """  let first = at.x * params.length + at.y;  // the block's first element
  for (var i = 0u; i < PER; i++) {
    let e = i * THREADS + t;
    var digit = RADIX - 1u;
    if (e < at.z) { digit = digit_of(key_at(first + e)); }
    tile[slot(e)] = (digit << 16u) | e;
  }
  workgroupBarrier();
  for (var bits = 0u; bits < 8u; bits += 4u) { rank(t, bits); }
  // Digit t's place in the row: the totals of the groups before its group (each counted at
  // its last digit), then its offset in its group.
  let scan_digits = digits_per_scan();
  let group_total = work[totals_at() + at.x * (RADIX / scan_digits) + t / scan_digits];
  let below = scan_threads(t, select(0u, group_total, t % scan_digits == scan_digits - 1u)).x;
  starts[t] = at.x * params.length + below + work[count_at(g, t)];
  workgroupBarrier();
  for (var i = 0u; i < PER; i++) {  // less the place in the block of each digit's first
    let p = i * THREADS + t;
    let digit = tile[slot(p)] >> 16u;
    if (p == 0u || (tile[slot(p - 1u)] >> 16u) != digit) { starts[digit] -= p; }
  }
  workgroupBarrier();
  for (var i = 0u; i < PER; i++) {
    let p = i * THREADS + t;
    if (p >= at.z) { continue; }
    let word = tile[slot(p)];
    let to_place = starts[word >> 16u] + p;
    let from_place = first + (word & 0xFFFFu);
    var column = at.y + (word & 0xFFFFu);  // the first pass's
    if (flag(SECOND)) {
      column = work[columns_at() + from_place];
      out[to_place] = i32(column);
    } else {
      if (!flag(FIRST)) { column = u32(out[from_place]); }
      work[columns_at() + to_place] = column;
    }
    if (flag(NEXT_PLANE)) {
      let next = (params.plane - 1u) * elements() + at.x * params.length + column;
      work[keys_at(!flag(SECOND)) + to_place] = keys_in[next];
    } else if (!flag(LAST)) {
      work[keys_at(!flag(SECOND)) + to_place] = key_at(from_place);
    }
  }
}
""")


def _shaders(subgroups: bool) -> dict[str, str]:
    """Every pass's shader, summing across threads with subgroup operations or without."""
    common = _common(subgroups)
    main = entry_point(subgroups)
    passes = {"count": _COUNT, "scan": _SCAN, "scatter": _SCATTER}
    return {name: common + declarations + main + body for name, (declarations, body) in passes.items()}


_SHADERS = {subgroups: _shaders(subgroups) for subgroups in (False, True)}
