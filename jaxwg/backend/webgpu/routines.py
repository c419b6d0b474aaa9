"""Running routines (`jaxwg.core.routine`) on the device: their passes, bindings and
per-pass parameters.

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
