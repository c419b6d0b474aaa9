"""The scatter routine's shaders and plan: copy the operand, then combine each update
in at its position with an atomic operation.

`ScatterAdd` reads the operand, one int32 position per update and the updates. The
first pass copies the operand into the output, the second runs one thread per
update: int32 and uint32 add with `atomicAdd` (wrapping, as JAX's integers do),
bool ors with `atomicOr`, float32 adds in a compare-and-swap loop on the bits,
since WGSL has no float atomics, and int32 maxima take `atomicMax`. Updates at
positions outside the operand are dropped. Colliding float updates are summed in
whatever order the threads win.

>>> from jaxwg.core import dtypes as dt
>>> from jaxwg.core.routine import ScatterAdd
>>> from jaxwg.backend.webgpu.tuner import AdapterTraits
>>> [s.shader for s in plan(ScatterAdd(dt.float32, 10, 3), AdapterTraits(False)).steps]
['copy', 'add']
"""

from __future__ import annotations

from ...core import dtypes as dt
from ...core.routine import ScatterAdd
from .routines import RoutinePlan, RoutineStep
from .tuner import AdapterTraits

THREADS = 256

# How an update combines into the output word at `&out[t]` (WGSL), by combine and
# dtype; the output's atomic type is u32 unless the key's entry in _ATOMIC says otherwise.
_COMBINE = {
    ("add", dt.int32): "atomicAdd(&out[t], updates[i]);",
    ("add", dt.uint32): "atomicAdd(&out[t], updates[i]);",
    ("add", dt.bool_): "atomicOr(&out[t], updates[i]);",
    ("max", dt.int32): "atomicMax(&out[t], bitcast<i32>(updates[i]));",  # signed compare
    ("add", dt.float32): """\
let value = bitcast<f32>(updates[i]);
var old = atomicLoad(&out[t]);
loop {
  let swapped = atomicCompareExchangeWeak(&out[t], old, bitcast<u32>(bitcast<f32>(old) + value));
  if (swapped.exchanged) { break; }
  old = swapped.old_value;
}""",
}
_ATOMIC = {("max", dt.int32): "i32"}
assert set(_COMBINE) == {(c, d) for c, dtypes in ScatterAdd.COMBINE_DTYPES.items() for d in dtypes}


def plan(routine: ScatterAdd, traits: AdapterTraits) -> RoutinePlan:
    """A copy pass over the operand, then a pass over the updates that combines each in."""
    key = (routine.combine, routine.dtype)
    steps = (RoutineStep("copy", (), -(-routine.size // THREADS)),
             RoutineStep(routine.combine, (), -(-routine.updates // THREADS)))
    atomic = f"out: array<atomic<{_ATOMIC.get(key, 'u32')}>>"
    return RoutinePlan({"copy": _shader(routine, "out: array<u32>", "SIZE", "out[i] = operand[i];"),
                        routine.combine: _shader(routine, atomic, "UPDATES", _combine(key))},
                       steps, 0)


def _combine(key: tuple) -> str:
    body = "\n".join("  " + line for line in _COMBINE[key].split("\n"))
    return f"let t = targets[i];\nif (t >= 0 && t < i32(SIZE)) {{\n{body}\n}}"


def _shader(routine: ScatterAdd, output: str, count: str, body: str) -> str:
    """One thread per element of `count` (SIZE or UPDATES) running `body` for `i`."""
    indented = "\n".join("    " + line for line in body.split("\n"))
    return f"""\
@group(0) @binding(0) var<storage, read> operand: array<u32>;
@group(0) @binding(1) var<storage, read> targets: array<i32>;
@group(0) @binding(2) var<storage, read> updates: array<u32>;
@group(0) @binding(3) var<storage, read_write> scratch: array<u32>;
@group(0) @binding(4) var<storage, read_write> {output};
@group(0) @binding(5) var<uniform> params: vec4<u32>;
const SIZE = {routine.size}u;
const UPDATES = {routine.updates}u;

@compute @workgroup_size({THREADS})
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {{
  let i = gid.x + gid.y * groups.x * {THREADS}u;
  if (i < {count}) {{
{indented}
  }}
}}
"""
