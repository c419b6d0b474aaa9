"""Slots, the buffer pool and host transfers, on every adapter kind present."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jaxwg.backend.webgpu import buffers
from jaxwg.backend.webgpu.buffers import (
    MIN_CLASS_BYTES,
    SMALL_UPLOAD_BYTES,
    BufferPool,
    PoolConfig,
    SlotTable,
    align4,
    size_class,
)

from . import ADAPTER_KINDS, is_destroyed, open_device

# Sizes that hit every alignment case, both upload paths and several size classes.
ROUND_TRIP_SIZES = (0, 1, 3, 4, 5, 1023, (1 << 20) + 3)

# The device round trips take a few ms each; GPU latency varies too much for deadlines.
gpu_settings = settings(max_examples=25, deadline=None)


@pytest.fixture(scope="module", params=ADAPTER_KINDS)
def device(request):
    return open_device(request.param)


@pytest.fixture(scope="module")
def slots(device):
    """One table shared by the module's tests, as a backend shares it between arrays."""
    return SlotTable(device)


@pytest.fixture
def fresh_slots(device):
    """A table of its own, for tests that check absolute counters."""
    return SlotTable(device)


def random_bytes(nbytes: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, 256, nbytes, dtype=np.uint8)


# --- size classes (no device) ----------------------------------------------------


@given(st.integers(0, 1 << 31))
def test_size_class_bounds_waste(nbytes):
    cls = size_class(nbytes)
    floor = max(align4(nbytes), MIN_CLASS_BYTES)
    assert cls % 4 == 0
    assert floor <= cls and 4 * cls < 5 * floor
    assert size_class(cls) == cls


def test_size_class_steps():
    assert [size_class(n) for n in (1, 256, 257, 1024, 1025, 1281, 2047, 2049)] == [
        256,
        256,
        320,
        1024,
        1280,
        1536,
        2048,
        2560,
    ]


# --- round trips -----------------------------------------------------------------


@pytest.mark.parametrize("nbytes", ROUND_TRIP_SIZES)
@gpu_settings
@given(seed=st.integers(0, 2**32 - 1))
def test_round_trip(slots, nbytes, seed):
    data = random_bytes(nbytes, seed)
    slot = slots.malloc(nbytes, data)
    assert slots.nbytes(slot) == nbytes
    assert bytes(slots.read(slot)) == data.tobytes()
    slots.decref(slot)


@gpu_settings
@given(data=st.binary(max_size=600))
def test_round_trip_any_bytes(slots, data):
    slot = slots.malloc(len(data), data)
    assert bytes(slots.read(slot)) == data
    slots.decref(slot)


def test_round_trip_numpy_arrays(slots):
    for array in (
        np.arange(12, dtype=np.float32).reshape(3, 4),
        np.arange(24, dtype=np.int32).reshape(4, 6)[:, ::2],  # not contiguous
        np.array([True, False, True]),
    ):
        slot = slots.malloc(array.nbytes, array)
        got = np.frombuffer(slots.read(slot), array.dtype).reshape(array.shape)
        np.testing.assert_array_equal(got, array)
        slots.decref(slot)


@pytest.mark.parametrize(
    "nbytes", [5, 1023, SMALL_UPLOAD_BYTES + 3, SMALL_UPLOAD_BYTES + 7]
)
def test_upload_pads_with_zeros(device, fresh_slots, nbytes):
    """The padding holds zeros, even in a reused buffer that held other bytes there."""
    padded = align4(nbytes)
    fresh_slots.decref(fresh_slots.malloc(padded, np.full(padded, 0xFF, np.uint8)))
    slot = fresh_slots.malloc(nbytes, np.full(nbytes, 7, np.uint8))
    assert fresh_slots.memory_stats()["pool_hits"] == 1
    stored = device.queue.read_buffer(fresh_slots.buffer(slot), 0, padded)
    assert bytes(stored) == bytes([7]) * nbytes + bytes(padded - nbytes)
    fresh_slots.decref(slot)


@pytest.mark.parametrize("nbytes", [5, 1023, (1 << 20) + 3])
@gpu_settings
@given(data=st.data())
def test_read_window(slots, nbytes, data):
    content = random_bytes(nbytes, nbytes)
    slot = slots.malloc(nbytes, content)
    start = data.draw(st.integers(0, nbytes + 2), label="start")
    count = data.draw(st.none() | st.integers(0, nbytes + 2), label="count")
    end = None if count is None else start + count
    assert bytes(slots.read(slot, start, count)) == content[start:end].tobytes()
    slots.decref(slot)


def test_chunked_transfers(monkeypatch, slots):
    """Transfers larger than a staging chunk are split; windows cross chunk edges."""
    monkeypatch.setattr(buffers, "STAGING_CHUNK_BYTES", 40_008)
    nbytes = SMALL_UPLOAD_BYTES + 100_003
    data = random_bytes(nbytes, 3)
    slot = slots.malloc(nbytes, data)
    assert bytes(slots.read(slot)) == data.tobytes()
    for start, count in [
        (1, 40_008),
        (39_999, 80_017),
        (nbytes - 5, 10),
        (123_457, None),
    ]:
        end = None if count is None else start + count
        assert bytes(slots.read(slot, start, count)) == data[start:end].tobytes()
    slots.decref(slot)


def test_read_result_is_writable_host_copy(slots):
    slot = slots.malloc(8, np.arange(2, dtype=np.int32))
    view = np.frombuffer(slots.read(slot), np.int32)
    view[0] = 5
    np.testing.assert_array_equal(np.frombuffer(slots.read(slot), np.int32), [0, 1])
    slots.decref(slot)


def test_read_rejects_negative_window(slots):
    slot = slots.malloc(8, bytes(8))
    with pytest.raises(ValueError, match="negative"):
        slots.read(slot, -1)
    slots.decref(slot)


@pytest.mark.parametrize("nbytes", [3, 1024, SMALL_UPLOAD_BYTES * 2 + 1])
def test_write_overwrites(slots, nbytes):
    slot = slots.malloc(nbytes, random_bytes(nbytes, 1))
    new = random_bytes(nbytes, 2)
    slots.write(slot, new)
    assert bytes(slots.read(slot)) == new.tobytes()
    slots.decref(slot)


def test_before_copy_hook_runs_before_reads_and_writes(device):
    calls = []

    def hook(then=None):
        """Like DispatchQueue.flush: a read passes its copy to submit with the flush."""
        calls.append(then is not None)
        if then is not None:
            encoder = device.device.create_command_encoder()
            then(encoder)
            device.queue.submit([encoder.finish()])

    slots = SlotTable(device, before_copy=hook)
    slot = slots.malloc(4, b"abcd")
    assert calls == []  # an upload into a fresh slot needs no flush
    slots.write(slot, b"wxyz")
    assert bytes(slots.read(slot)) == b"wxyz"
    assert calls == [False, True]
    slots.decref(slot)


# --- errors ----------------------------------------------------------------------


def test_data_size_mismatch_names_both_sizes(slots):
    with pytest.raises(ValueError, match="5 bytes.*8 bytes"):
        slots.malloc(8, b"12345")
    slot = slots.malloc(4)
    with pytest.raises(ValueError, match="3 bytes.*4 bytes"):
        slots.write(slot, b"123")
    slots.decref(slot)


def test_decref_of_freed_slot_raises(slots):
    slot = slots.malloc(16)
    slots.decref(slot)
    with pytest.raises(KeyError, match=f"slot {slot}"):
        slots.decref(slot)
    with pytest.raises(KeyError, match=f"slot {slot}"):
        slots.incref(slot)
    with pytest.raises(KeyError, match="slot 123456"):
        slots.read(123456)


def test_too_large_buffer_names_size_limit_and_adapter(device, fresh_slots):
    nbytes = device.max_buffer_bytes + 1
    with pytest.raises(
        RuntimeError, match=rf"{nbytes}.*{device.max_buffer_bytes}"
    ) as info:
        fresh_slots.malloc(nbytes)
    assert device.describe() in str(info.value)
    assert fresh_slots.live_slots == 0


# --- lifetime and pooling ----------------------------------------------------------


def test_refcount(fresh_slots):
    slot = fresh_slots.malloc(64)
    fresh_slots.incref(slot)
    fresh_slots.decref(slot)
    assert fresh_slots.live_slots == 1
    fresh_slots.decref(slot)
    assert fresh_slots.live_slots == 0


def test_zero_size_slots_share_a_buffer_and_skip_the_pool(fresh_slots):
    a, b = fresh_slots.malloc(0), fresh_slots.malloc(0, b"")
    assert fresh_slots.buffer(a) is fresh_slots.buffer(b)
    assert bytes(fresh_slots.read(a)) == b""
    stats = fresh_slots.memory_stats()
    assert (stats["pool_hits"], stats["pool_misses"], stats["live_slots"]) == (0, 0, 2)
    fresh_slots.decref(a)
    fresh_slots.decref(b)
    assert fresh_slots.memory_stats()["bytes_pooled"] == 0


def test_buffers_are_reused(fresh_slots):
    fresh_slots.decref(fresh_slots.malloc(1000))
    created = fresh_slots.memory_stats()["num_buffers_created"]
    for nbytes in [1000] * 20 + [900, 1024]:  # 900 and 1024 share 1000's class
        slot = fresh_slots.malloc(nbytes)
        assert fresh_slots.buffer(slot).size == 1024
        fresh_slots.decref(slot)
    stats = fresh_slots.memory_stats()
    assert stats["num_buffers_created"] == created
    assert stats["pool_hits"] == 22
    assert stats["bytes_pooled"] == 1024


@pytest.mark.parametrize("count, class_bytes, kept", [(3, 0, 3), (3, 4096, 4), (5, 4096, 5)])
def test_per_class_cap(device, count, class_bytes, kept):
    """A class keeps `max_buffers_per_class` buffers, or as many as fit
    `max_bytes_per_class` if that is more (here 1024-byte buffers)."""
    config = PoolConfig(max_buffers_per_class=count, max_bytes_per_class=class_bytes)
    slots = SlotTable(device, BufferPool(device, config))
    live = [slots.malloc(1000) for _ in range(6)]
    buffers = [slots.buffer(s) for s in live]
    for slot in live:
        slots.decref(slot)
    assert slots.pool.num_pooled(1000) == kept
    assert slots.memory_stats()["bytes_pooled"] == kept * 1024
    assert [is_destroyed(device, b) for b in buffers] == [False] * kept + [True] * (6 - kept)


def test_a_new_config_applies_to_the_next_release(device):
    """Per-size caps are remembered, but a replaced config (as tests and tools do) counts."""
    slots = SlotTable(device, BufferPool(device, PoolConfig(max_buffers_per_class=3, max_bytes_per_class=0)))
    for _ in range(2):
        slots.decref(slots.malloc(1000))
    assert slots.pool.num_pooled(1000) == 1  # one buffer, reused
    slots.pool.config = PoolConfig(max_buffers_per_class=1, max_bytes_per_class=0,
                                   max_pooled_bytes_per_buffer=512)
    live = [slots.malloc(1000) for _ in range(3)]
    assert slots.buffer(live[1]).size == 1008  # past 512: an exact, unpooled buffer
    for slot in live:
        slots.decref(slot)
    assert slots.pool.num_pooled(1000) == 0 and slots.pool.num_pooled() == 1


def test_total_cap(device):
    slots = SlotTable(
        device, BufferPool(device, PoolConfig(max_total_pooled_bytes=5000))
    )
    live = [slots.malloc(n) for n in (1024, 1024, 2048, 2048, 512)]
    for slot in live:
        slots.decref(slot)
    # 1024 + 1024 + 2048 fit; the second 2048 would pass 5000; 512 fits again.
    assert slots.memory_stats()["bytes_pooled"] == 1024 + 1024 + 2048 + 512
    assert slots.pool.num_pooled() == 4


def test_large_buffers_are_exact_and_destroyed(device):
    pool = BufferPool(device, PoolConfig(max_pooled_bytes_per_buffer=4096))
    slots = SlotTable(device, pool)
    slot = slots.malloc(5001)
    buffer = slots.buffer(slot)
    assert buffer.size == 5008  # padded to whole vec4s, not rounded up to its class (5120)
    slots.decref(slot)
    assert is_destroyed(device, buffer)
    assert pool.pooled_bytes == 0
    slots.decref(slots.malloc(5001))
    assert slots.memory_stats()["num_buffers_created"] == 2


def test_trim_destroys_pooled_buffers(device, fresh_slots):
    slot = fresh_slots.malloc(100)
    buffer = fresh_slots.buffer(slot)
    fresh_slots.decref(slot)
    fresh_slots.trim()
    assert fresh_slots.memory_stats()["bytes_pooled"] == 0
    assert is_destroyed(device, buffer)


@gpu_settings
@given(
    ops=st.lists(
        st.tuples(
            st.sampled_from(["malloc", "incref", "decref"]),
            st.integers(0, 5000),
            st.integers(0, 99),
        )
    )
)
def test_workload_returns_to_baseline(slots, ops):
    """Any interleaving of malloc/incref/decref leaves no slot and no byte behind."""
    baseline = slots.memory_stats()
    refs: list[int] = []  # one entry per reference held
    for op, nbytes, pick in ops:
        if op == "malloc" or not refs:
            refs.append(slots.malloc(nbytes))
        elif op == "incref":
            slot = refs[pick % len(refs)]
            slots.incref(slot)
            refs.append(slot)
        else:
            slots.decref(refs.pop(pick % len(refs)))
    assert slots.live_slots == len(set(refs)) + baseline["live_slots"]
    assert slots.memory_stats()["bytes_in_use"] == (
        sum(slots.nbytes(s) for s in set(refs)) + baseline["bytes_in_use"]
    )
    for slot in refs:
        slots.decref(slot)
    stats = slots.memory_stats()
    assert stats["live_slots"] == baseline["live_slots"]
    assert stats["bytes_in_use"] == baseline["bytes_in_use"]


def test_memory_stats(fresh_slots):
    a = fresh_slots.malloc(100)
    b = fresh_slots.malloc(3000)
    fresh_slots.decref(a)
    c = fresh_slots.malloc(10)
    stats = fresh_slots.memory_stats()
    assert stats["bytes_in_use"] == 3010
    assert stats["peak_bytes_in_use"] == 3100
    assert stats["live_slots"] == 2
    assert set(stats) == {
        "bytes_in_use",
        "peak_bytes_in_use",
        "bytes_pooled",
        "bytes_reserved",
        "live_slots",
        "pool_hits",
        "pool_misses",
        "num_buffers_created",
    }
    fresh_slots.decref(b)
    fresh_slots.decref(c)
