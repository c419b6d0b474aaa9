"""Dispatches recorded into one compute pass, on every adapter kind present."""

from types import SimpleNamespace

import numpy as np
import pytest
import wgpu

from jaxwg.backend.webgpu.buffers import SlotTable, align4
from jaxwg.backend.webgpu.queue import DispatchQueue

from . import ADAPTER_KINDS, open_device

INCREMENT = """
@group(0) @binding(0) var<storage, read_write> x: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    if (id.x < arrayLength(&x)) { x[id.x] = x[id.x] + 1u; }
}
"""

# Not commutative with INCREMENT, so running dispatches out of order changes the result.
AFFINE = """
@group(0) @binding(0) var<storage, read_write> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    if (id.x < arrayLength(&dst)) { dst[id.x] = src[id.x] * 3u + 1u; }
}
"""

ADD_IMMEDIATE = """
var<immediate> k: u32;
@group(0) @binding(0) var<storage, read_write> x: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    if (id.x < arrayLength(&x)) { x[id.x] = x[id.x] + k; }
}
"""

N = 1000  # elements per test array
GRID = (-(-N // 64), 1, 1)


@pytest.fixture(scope="module", params=ADAPTER_KINDS)
def device(request):
    return open_device(request.param)


def make_kernel(device, source, num_buffers, *, dynamic=False, immediate_size=0):
    """A pipeline over `num_buffers` storage bindings, with its bind group layout."""
    entries = [
        {
            "binding": i,
            "visibility": wgpu.ShaderStage.COMPUTE,
            "buffer": {
                "type": wgpu.BufferBindingType.storage,
                "has_dynamic_offset": dynamic,
            },
        }
        for i in range(num_buffers)
    ]
    layout = device.device.create_bind_group_layout(entries=entries)
    pipeline = device.device.create_compute_pipeline(
        layout=device.device.create_pipeline_layout(
            bind_group_layouts=[layout], immediate_size=immediate_size
        ),
        compute={
            "module": device.device.create_shader_module(code=source),
            "entry_point": "main",
        },
    )
    return SimpleNamespace(pipeline=pipeline, layout=layout)


@pytest.fixture(scope="module")
def kernels(device):
    windowed = make_kernel(device, INCREMENT, 1, dynamic=True)
    immediate = None
    if "immediates" in device.features:
        immediate = make_kernel(device, ADD_IMMEDIATE, 1, immediate_size=4)
    return SimpleNamespace(
        increment=make_kernel(device, INCREMENT, 1),
        affine=make_kernel(device, AFFINE, 2),
        windowed_increment=windowed,
        add_immediate=immediate,
    )


@pytest.fixture
def slots(device):
    return SlotTable(device)


def bind(device, kernel, slots, *handles, size=None):
    entries = [
        {
            "binding": i,
            "resource": {
                "buffer": slots.buffer(h),
                "offset": 0,
                "size": size or align4(slots.nbytes(h)),
            },
        }
        for i, h in enumerate(handles)
    ]
    return device.device.create_bind_group(layout=kernel.layout, entries=entries)


def u32_slot(slots, values):
    return slots.malloc(4 * len(values), np.asarray(values, np.uint32))


def read_u32(slots, slot):
    return np.frombuffer(slots.read(slot), np.uint32)


def test_dependent_dispatches_share_one_pass(device, kernels, slots):
    queue = DispatchQueue(device, slots)
    x = u32_slot(slots, np.zeros(N))
    group = bind(device, kernels.increment, slots, x)
    for _ in range(100):
        queue.record(kernels.increment.pipeline, [(0, group, None)], GRID, [x])
    assert (queue.pending, queue.submits, queue.dispatches_recorded) == (100, 0, 100)
    np.testing.assert_array_equal(read_u32(slots, x), 100)  # the read flushes
    assert (queue.pending, queue.submits) == (0, 1)
    slots.decref(x)


def test_switching_pipelines_keeps_order(device, kernels, slots):
    queue = DispatchQueue(device, slots)
    a = u32_slot(slots, np.arange(N))
    b = u32_slot(slots, np.zeros(N))
    a_to_b = bind(device, kernels.affine, slots, a, b)
    b_to_a = bind(device, kernels.affine, slots, b, a)
    bump_b = bind(device, kernels.increment, slots, b)
    expected = np.arange(N, dtype=np.uint32)
    for _ in range(20):
        queue.record(kernels.affine.pipeline, [(0, a_to_b, None)], GRID, [a, b])
        queue.record(kernels.increment.pipeline, [(0, bump_b, None)], GRID, [b])
        queue.record(kernels.affine.pipeline, [(0, b_to_a, None)], GRID, [b, a])
        expected = (expected * 3 + 2) * 3 + 1  # wraps modulo 2**32 like the GPU
    queue.synchronize()
    assert queue.submits == 1
    np.testing.assert_array_equal(read_u32(slots, a), expected)
    slots.decref(a)
    slots.decref(b)


def test_dynamic_offsets_select_windows(device, kernels, slots):
    queue = DispatchQueue(device, slots)
    window = max(64, device.binding_alignment)  # bytes per window, a legal offset
    x = u32_slot(slots, np.zeros(2 * window // 4))
    group = bind(device, kernels.windowed_increment, slots, x, size=window)
    kernel = kernels.windowed_increment
    queue.record(kernel.pipeline, [(0, group, [0])], (1, 1, 1), [x])
    queue.record(kernel.pipeline, [(0, group, [window])], (1, 1, 1), [x])
    queue.record(kernel.pipeline, [(0, group, [window])], (1, 1, 1), [x])
    np.testing.assert_array_equal(
        read_u32(slots, x), [1] * (window // 4) + [2] * (window // 4)
    )
    slots.decref(x)


def test_max_pending_triggers_flush(device, kernels, slots):
    queue = DispatchQueue(device, slots, max_pending=10)
    x = u32_slot(slots, np.zeros(N))
    group = bind(device, kernels.increment, slots, x)
    for _ in range(25):
        queue.record(kernels.increment.pipeline, [(0, group, None)], GRID, [x])
    assert (queue.submits, queue.pending) == (2, 5)
    queue.flush()
    queue.flush()  # nothing left: no second submit
    assert (queue.submits, queue.pending) == (3, 0)
    np.testing.assert_array_equal(read_u32(slots, x), 25)
    slots.decref(x)


def test_held_slots_survive_decref_until_flush(device, kernels, slots):
    queue = DispatchQueue(device, slots)
    x = u32_slot(slots, np.zeros(N))
    buffer = slots.buffer(x)
    queue.record(
        kernels.increment.pipeline,
        [(0, bind(device, kernels.increment, slots, x), None)],
        GRID,
        [x],
    )
    slots.decref(x)  # the owner lets go while the dispatch is still unsubmitted
    assert slots.live_slots == 1
    assert slots.memory_stats()["bytes_pooled"] == 0
    y = u32_slot(slots, np.ones(N))  # same size class, yet it must not get x's buffer
    assert slots.buffer(y) is not buffer
    queue.flush()
    assert slots.live_slots == 1
    assert slots.memory_stats()["bytes_pooled"] == buffer.size
    np.testing.assert_array_equal(read_u32(slots, y), 1)
    slots.decref(y)


def test_buffers_of_dropped_held_slots_serve_gpu_written_slots(device, kernels, slots):
    """A buffer whose owner let go while a dispatch still uses it may back a new slot
    that a later dispatch writes (passes run in order), never an upload."""
    queue = DispatchQueue(device, slots)
    x = u32_slot(slots, np.zeros(N))
    buffer = slots.buffer(x)
    queue.record(kernels.increment.pipeline,
                 [(0, bind(device, kernels.increment, slots, x), None)], GRID, [x])
    slots.decref(x)
    upload = u32_slot(slots, np.full(N, 7))
    assert slots.buffer(upload) is not buffer
    y = slots.malloc(N * 4)  # no data: the GPU will write it
    assert slots.buffer(y) is buffer
    queue.record(kernels.increment.pipeline,
                 [(0, bind(device, kernels.increment, slots, y), None)], GRID, [y])
    queue.flush()
    # x's increment ran first, then y's on the same memory; the upload is untouched.
    np.testing.assert_array_equal(read_u32(slots, y), 2)
    np.testing.assert_array_equal(read_u32(slots, upload), 7)
    assert slots.live_slots == 2
    slots.decref(y)
    slots.decref(upload)
    assert slots.live_slots == 0 and slots.pool.num_pooled(N * 4) == 2


def test_write_waits_for_recorded_work(device, kernels, slots):
    """A write issued after a recorded dispatch lands after it (via a flush)."""
    queue = DispatchQueue(device, slots)
    x = u32_slot(slots, np.zeros(N))
    queue.record(
        kernels.increment.pipeline,
        [(0, bind(device, kernels.increment, slots, x), None)],
        GRID,
        [x],
    )
    slots.write(x, np.full(N, 10, np.uint32))
    np.testing.assert_array_equal(read_u32(slots, x), 10)
    slots.decref(x)


def test_immediates(device, kernels, slots):
    if kernels.add_immediate is None:
        pytest.skip(f"{device.describe()} lacks the immediates feature")
    queue = DispatchQueue(device, slots)
    x = u32_slot(slots, np.zeros(N))
    group = bind(device, kernels.add_immediate, slots, x)
    for k in range(1, 11):
        data = np.array([k], np.uint32).tobytes()
        queue.record(
            kernels.add_immediate.pipeline,
            [(0, group, None)],
            GRID,
            [x],
            immediates=data,
        )
    np.testing.assert_array_equal(read_u32(slots, x), 55)
    slots.decref(x)


def test_repeated_immediates_are_set_once_per_pipeline_run(device, kernels, slots, monkeypatch):
    """The same immediates on the same pipeline are not sent again; new values, another
    pipeline in between or a new pass send them (and every sum is still right)."""
    if kernels.add_immediate is None:
        pytest.skip(f"{device.describe()} lacks the immediates feature")
    queue = DispatchQueue(device, slots)
    x, y = u32_slot(slots, np.zeros(N)), u32_slot(slots, np.zeros(N))
    add_x = bind(device, kernels.add_immediate, slots, x)
    increment_y = bind(device, kernels.increment, slots, y)
    sent = []
    original = queue._record.set_immediates  # the recorder every dispatch goes through
    monkeypatch.setattr(queue._record, "set_immediates",
                        lambda compute_pass, data: (sent.append(data), original(compute_pass, data))[1])
    three, five = np.array([3], np.uint32).tobytes(), np.array([5], np.uint32).tobytes()
    plan = [(kernels.add_immediate, add_x, x, three), (kernels.add_immediate, add_x, x, three),
            (kernels.add_immediate, add_x, x, five), (kernels.increment, increment_y, y, None),
            (kernels.add_immediate, add_x, x, five)]
    for kernel, group, slot, data in plan:
        queue.record(kernel.pipeline, [(0, group, None)], GRID, [slot], immediates=data)
    queue.flush()
    queue.record(kernels.add_immediate.pipeline, [(0, add_x, None)], GRID, [x], immediates=five)
    np.testing.assert_array_equal(read_u32(slots, x), 3 + 3 + 5 + 5 + 5)
    np.testing.assert_array_equal(read_u32(slots, y), 1)
    assert sent == [three, five, five, five]
    slots.decref(x)
    slots.decref(y)


def test_unknown_slot_records_nothing(device, kernels, slots):
    queue = DispatchQueue(device, slots)
    x = u32_slot(slots, np.zeros(N))
    group = bind(device, kernels.increment, slots, x)
    with pytest.raises(KeyError, match="slot 99999"):
        queue.record(kernels.increment.pipeline, [(0, group, None)], GRID, [x, 99999])
    assert queue.pending == 0
    slots.decref(x)
    assert slots.live_slots == 0  # no stray reference was left on x


def test_grid_limits(device, kernels, slots):
    queue = DispatchQueue(device, slots)
    x = u32_slot(slots, np.zeros(N))
    group = bind(device, kernels.increment, slots, x)
    with pytest.raises(ValueError, match="grid"):
        queue.record(
            kernels.increment.pipeline,
            [(0, group, None)],
            (device.max_workgroups_per_dim + 1, 1, 1),
            [x],
        )
    queue.record(
        kernels.increment.pipeline, [(0, group, None)], (0, 1, 1), [x]
    )  # empty is fine
    queue.synchronize()
    np.testing.assert_array_equal(read_u32(slots, x), 0)
    slots.decref(x)


def test_synchronize_on_empty_queue(device, slots):
    queue = DispatchQueue(device, slots)
    queue.synchronize()
    assert queue.submits == 0


def test_held_bytes_count_each_slot_once(device, kernels, slots):
    """The early submit bounds the bytes of distinct slots held: dispatches that read
    the same slot again do not count it again; new slots each count."""
    bound = 3 * N * 4  # room for three of the test arrays
    queue = DispatchQueue(device, slots, max_held_bytes=bound)
    x = u32_slot(slots, np.zeros(N))
    group = bind(device, kernels.increment, slots, x)
    for _ in range(10):
        queue.record(kernels.increment.pipeline, [(0, group, None)], GRID, [x])
    assert (queue.submits, queue.pending) == (0, 10)
    others = [u32_slot(slots, np.zeros(N)) for _ in range(2)]
    for y in others:
        queue.record(kernels.increment.pipeline,
                     [(0, bind(device, kernels.increment, slots, y), None)], GRID, [y])
    assert (queue.submits, queue.pending) == (1, 0)  # x and two others: three arrays held
    queue.record(kernels.increment.pipeline, [(0, group, None)], GRID, [x])
    assert (queue.submits, queue.pending) == (1, 1)  # the count restarts after a submit
    queue.flush()
    np.testing.assert_array_equal(read_u32(slots, x), 11)
    for s in [x] + others:
        slots.decref(s)
