"""Running routines (`jaxwg.core.routine`) on the device: their passes, bindings and
per-pass parameters, and the WGSL pieces that several routines' shaders share
(`SWIZZLE`, `entry_point`, `thread_sums`).

A routine's plan (`RoutinePlan`, made by its module's `plan(routine, traits)`, e.g.
`sort.plan`, for an adapter's `tuner.AdapterTraits`: its workgroup memory, binding size
and subgroup operations) names its shaders and the passes that run them, in order. Every shader of a routine has one layout:
the inputs (read-only storage), a scratch buffer and the output (read-write), and a
`params` uniform of four u32 words. All passes' parameters sit in one uniform
buffer made at `prepare`, one per alignment stride (`params_window`), each pass's
bind group binding its own; a jit program's replay records them with its other
dispatches (replay.py).

>>> plan = RoutinePlan({"main": "..."}, (RoutineStep("main", (1, 2, 3), 8),), 64)
>>> plan.steps[0].params
(1, 2, 3)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from string import Template

import numpy as np
import wgpu

from ...core.routine import Routine
from .codegen import UnsupportedError

PARAM_WORDS = 4

# A WGSL `slot(i)`: where word `i` of a block sits in a routine's workgroup memory. Each
# run of 32 words is permuted by the run's number, so that the 32 threads of a warp that
# each take 8 neighbouring words (the sort network's lowest levels, the scan's per-thread
# runs) read 32 different banks instead of 8-way conflicting ones. The layout keeps the
# array's size.
SWIZZLE = """
fn slot(i: u32) -> u32 { return i ^ ((i >> 5u) & 31u); }
"""


def entry_point(subgroups: bool) -> str:
    """The start of a routine shader's `main`, THREADS threads a workgroup (a constant the
    shader declares): `t` is the thread, `g` the workgroup's number (the grid folds into
    two dimensions past 65535 workgroups), and with `subgroups` it sets the subgroup size
    that `thread_sums` reads."""
    size = ", @builtin(subgroup_size) size: u32" if subgroups else ""
    return f"""
@compute @workgroup_size(THREADS)
fn main(@builtin(local_invocation_id) lid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) groups: vec3<u32>{size}) {{
""" + ("  sg_size = size;\n" if subgroups else "") + """\
  let t = lid.x;
  let g = wid.x + wid.y * groups.x;
"""


def thread_sums(element: str, subgroups: bool, add: bool = False) -> str:
    """WGSL summing one value of WGSL type `element` a thread across a workgroup of
    THREADS threads: `scan_threads(t, v)`, (the sum of v over the threads before t, the
    sum over all), and with `add` `add_threads(t, v)`, the sum over all. Every thread
    calls them, in uniform control flow (they wait at barriers); they keep their
    partial sums in a workgroup array `partial` of their own. With `subgroups` (and
    `entry_point(True)`'s `sg_size`) a subgroup's lanes scan or add in registers and
    only the subgroups' totals meet in workgroup memory, behind one barrier; without,
    the threads take a Hillis-Steele scan or a tree (a barrier a step, 8 at 256 threads).

    >>> "fn scan_threads(t: u32, v: u32) -> vec2<u32>" in thread_sums("u32", False)
    True
    """
    scan, add_threads = _SUBGROUP_SUMS if subgroups else _WORKGROUP_SUMS
    return Template(scan + (add_threads if add else "")).substitute(T=element)


# Subgroups are runs of consecutive local indices (as on every adapter jaxwg has met).
_SUBGROUP_SUMS = ("""\
var<workgroup> partial: array<$T, THREADS>;  // the subgroups' totals
var<private> sg_size: u32;  // set by the entry point
// Each subgroup's `total` (as its last lane holds it) into `partial`; their count.
fn subgroup_totals(t: u32, total: $T) -> u32 {
  if (t % sg_size == sg_size - 1u) { partial[t / sg_size] = total; }
  workgroupBarrier();
  return THREADS / sg_size;
}
fn scan_threads(t: u32, v: $T) -> vec2<$T> {
  let before_lane = subgroupExclusiveAdd(v);
  let count = subgroup_totals(t, before_lane + v);
  var before = $T(0);
  var all = $T(0);
  for (var s = 0u; s < count; s++) {
    let p = partial[s];
    if (s == t / sg_size) { before = all; }
    all = all + p;
  }
  workgroupBarrier();
  return vec2<$T>(before + before_lane, all);
}
""", """\
fn add_threads(t: u32, v: $T) -> $T {
  let count = subgroup_totals(t, subgroupAdd(v));
  var all = $T(0);
  for (var s = 0u; s < count; s++) { all = all + partial[s]; }
  workgroupBarrier();
  return all;
}
""")

# The scan reads `before` from the thread before's inclusive sum rather than subtracting
# v from its own: float sums do not undo exactly.
_WORKGROUP_SUMS = ("""\
var<workgroup> partial: array<$T, 2 * THREADS>;  // two halves: each scan step reads one, writes the other
fn scan_threads(t: u32, v: $T) -> vec2<$T> {
  var read = 0u;
  partial[t] = v;
  for (var d = 1u; d < THREADS; d <<= 1u) {
    workgroupBarrier();
    var w = partial[read + t];
    if (t >= d) { w = partial[read + t - d] + w; }
    read = THREADS - read;
    partial[read + t] = w;
  }
  workgroupBarrier();
  let before = select($T(0), partial[read + max(t, 1u) - 1u], t > 0u);
  let all = partial[read + THREADS - 1u];
  workgroupBarrier();
  return vec2<$T>(before, all);
}
""", """\
fn add_threads(t: u32, v: $T) -> $T {
  partial[t] = v;
  workgroupBarrier();
  for (var d = THREADS / 2u; d > 0u; d >>= 1u) {
    if (t < d) { partial[t] = partial[t] + partial[t + d]; }
    workgroupBarrier();
  }
  let all = partial[0];
  workgroupBarrier();
  return all;
}
""")


@dataclass(frozen=True)
class RoutineStep:
    """One dispatch: `workgroups` workgroups of `shader`, with `params` (at most
    PARAM_WORDS u32 words) in its `params` uniform."""

    shader: str
    params: tuple[int, ...]
    workgroups: int


@dataclass(frozen=True)
class RoutinePlan:
    """A routine's shaders by name, its passes, and the scratch bytes they share."""

    shaders: dict
    steps: tuple[RoutineStep, ...]
    scratch_bytes: int


@dataclass
class RoutineExecutable:
    """A prepared routine: `kernel` is the routine (as on a kernel's executable)."""

    kernel: Routine
    plan: RoutinePlan
    layout: object
    pipelines: dict
    params: object  # the uniform buffer of every step's parameters
    stride: int  # bytes between two steps' parameters
    fast_math: bool = False

    def shader_sources(self) -> list[str]:
        return list(self.plan.shaders.values())

    def params_window(self, step: int) -> tuple:
        """The binding of pass `step`'s parameters: (buffer, offset, size)."""
        return self.params, step * self.stride, PARAM_WORDS * 4

    @property
    def scratch_bytes(self) -> int:
        """Bytes of the scratch buffer its passes share (at least a binding's minimum)."""
        return max(16, self.plan.scratch_bytes)

    def passes(self, backend) -> list[tuple]:
        """Each pass as (pipeline, grid, parameter window), in order. Every pass binds the
        routine's inputs, its scratch buffer and its output, then its parameters."""
        return [(self.pipelines[step.shader], backend.grid(step.workgroups), self.params_window(i))
                for i, step in enumerate(self.plan.steps)]


def compile_routine(device, routine: Routine, plan: RoutinePlan) -> RoutineExecutable:
    """Pipelines for every shader of `plan`, and its parameters uniform."""
    dev = device.device
    storage = [wgpu.BufferBindingType.read_only_storage] * routine.nargs + [wgpu.BufferBindingType.storage] * 2
    entries = [{"binding": i, "visibility": wgpu.ShaderStage.COMPUTE, "buffer": {"type": t}}
               for i, t in enumerate(storage)]
    entries.append({"binding": len(entries), "visibility": wgpu.ShaderStage.COMPUTE,
                    "buffer": {"type": wgpu.BufferBindingType.uniform}})
    layout = dev.create_bind_group_layout(entries=entries)
    pipeline_layout = dev.create_pipeline_layout(bind_group_layouts=[layout])
    pipelines = {}
    for name, code in plan.shaders.items():
        try:
            module = dev.create_shader_module(code=code)
            pipelines[name] = dev.create_compute_pipeline(
                layout=pipeline_layout, compute={"module": module, "entry_point": "main"})
        except Exception as e:
            raise UnsupportedError(f"WGSL of {routine} rejected by {device.describe()}: {e}\n{code}") from e
    stride = max(256, device.limits.get("min-uniform-buffer-offset-alignment", 256))
    words = np.zeros((max(1, len(plan.steps)), stride // 4), np.uint32)
    for i, step in enumerate(plan.steps):
        words[i, :len(step.params)] = step.params
    params = dev.create_buffer_with_data(data=words.tobytes(), usage=wgpu.BufferUsage.UNIFORM)
    return RoutineExecutable(routine, plan, layout, pipelines, params, stride)


def record_routine(backend, exe: RoutineExecutable, inputs: Sequence[int], output: int) -> None:
    """Queue every pass of `exe` on `inputs` into `output` (the backend's lock held)."""
    slots = backend.slots
    scratch = slots.malloc(exe.scratch_bytes)
    try:
        used = [*inputs, scratch, output]
        bindings = [(slots.buffer(s), *backend.binding_window(slots.nbytes(s))) for s in used]
        for pipeline, grid, params in exe.passes(backend):
            group = backend.bind_group(exe.layout, bindings + [params])
            backend.queue.record(pipeline, [(0, group, None)], grid, used)
    finally:
        slots.decref(scratch)  # the queue holds it until the submit
