"""Device memory: refcounted slots over a pool of reusable WebGPU buffers.

Arrays do not own WebGPU buffers directly. They hold a *slot*, a small integer
handle into a `SlotTable` that counts references to it: views of one array and
kernels waiting in the dispatch queue add references, and when the count falls to
zero the buffer goes back to a `BufferPool` rather than to the driver, because
creating a buffer costs far more than reusing one. The pool keeps free lists by
*size class*: a request is rounded up to 16 bytes (all storage is padded to whole
vec4s, so that an input bound as an array of vec4 reaches its last elements) and then
to the next of four steps per power of two (1024, 1280,
1536, 1792, 2048, ...; at least 256 bytes), so a freed buffer serves any request of
its class while wasting less than a quarter of it. Caps bound what the pool keeps:
per buffer (bigger buffers go straight back to the driver and are allocated at
their exact size), per class and in total.

Out of memory. When the device cannot create a buffer (wgpu reports it as an
out-of-memory error, or lavapipe as a validation error "Not enough memory left."), or
when the buffer would take the storage buffers past `memory_limit` (set by
`JAXWG_WEBGPU_MEMORY_LIMIT`, e.g. "512MiB"), the slot table finishes the recorded work,
destroys every pooled buffer and tries once more; if that fails too it raises
`ResourceExhaustedError`, JAX's "RESOURCE_EXHAUSTED: Out of memory while trying to
allocate N bytes", followed by the memory stats. Nothing is left allocated by the
failed request, so later allocations that fit succeed.

Host transfers go through pooled staging buffers. Uploads of more than
`SMALL_UPLOAD_BYTES` are written into a mapped MAP_WRITE buffer and copied on the
GPU, several times faster than `queue.write_buffer` for large arrays; small ones
use `queue.write_buffer`, which costs no round trip. Reads copy an aligned range
into a MAP_READ buffer, map it and copy the bytes out. Both move at most
`STAGING_CHUNK_BYTES` per staging buffer, so staging memory stays small.

Ordering. Work reaches the GPU in queue order: `queue.write_buffer` and each
`queue.submit` execute in the order they are called. Dispatches that the
`DispatchQueue` has *recorded but not yet submitted* are therefore executed after
any upload made meanwhile, and a read must not be issued before them. Two rules
keep this correct:

* The dispatch queue holds a reference to every slot its pending work uses and
  drops it only after submitting, so a buffer cannot return to the pool (and be
  refilled by an upload for a new slot) while unsubmitted work still refers to it.
  Uploads into a fresh slot (`malloc` with data) therefore never need a flush.
* `read` and `write`, which touch a live slot, first call the `before_copy` hook;
  `DispatchQueue` installs its `flush` there so pending work is submitted first.
  A read passes its copy command as `before_copy(then)`: the hook records it after
  the pending work and submits both together (one submit per read, not two).

>>> from jaxwg.backend.webgpu.device import get_device
>>> slots = SlotTable(get_device())  # doctest: +SKIP
>>> s = slots.malloc(3, b"abc")  # doctest: +SKIP
>>> bytes(slots.read(s, start=1))  # doctest: +SKIP
b'bc'
>>> slots.decref(s)  # doctest: +SKIP
"""

from __future__ import annotations

import itertools
import os
import re
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import wgpu

from jaxwg.backend.base import ResourceExhaustedError
from jaxwg.backend.webgpu.device import WebGPUDevice, wgpu_reason

MiB = 1 << 20

MEMORY_LIMIT_ENV_VAR = "JAXWG_WEBGPU_MEMORY_LIMIT"
_BYTE_UNITS = {"": 1, "B": 1, "KIB": 1 << 10, "MIB": 1 << 20, "GIB": 1 << 30,
               "KB": 10**3, "MB": 10**6, "GB": 10**9}

# Every slot table draws its handles from one count, so that a handle of one table (of
# a backend that was cleared after its device was lost) is never live in another.
_HANDLES = itertools.count(1)

STORAGE_USAGE = (
    wgpu.BufferUsage.STORAGE | wgpu.BufferUsage.COPY_SRC | wgpu.BufferUsage.COPY_DST
)
READ_STAGING_USAGE = wgpu.BufferUsage.MAP_READ | wgpu.BufferUsage.COPY_DST
WRITE_STAGING_USAGE = wgpu.BufferUsage.MAP_WRITE | wgpu.BufferUsage.COPY_SRC

MIN_CLASS_BYTES = 256
CLASS_STEPS_PER_OCTAVE = 4

# Below this size `queue.write_buffer` is faster than mapping a staging buffer (about
# 0.1 ms of round trip); above it the staging copy wins, by 3-15x at 1 MiB here.
SMALL_UPLOAD_BYTES = 256 * 1024

# Larger transfers go through staging buffers in chunks of this size (a multiple of
# 8), so that staging memory stays bounded and pooled whatever the array's size.
STAGING_CHUNK_BYTES = 32 * MiB


@dataclass(frozen=True)
class PoolConfig:
    """What a `BufferPool` may keep instead of destroying.

    >>> PoolConfig(max_total_pooled_bytes=64 * MiB).max_buffers_per_class
    64
    """

    # Large arrays are worth keeping: creating (and zeroing) a 256 MiB buffer costs ~10 ms on
    # the H200, 70x the kernel that fills it.
    max_pooled_bytes_per_buffer: int = 1024 * MiB
    max_buffers_per_class: int = 64
    max_total_pooled_bytes: int = 2048 * MiB
    # A class may keep more buffers while they add up to at most this: an eager loop
    # holds hundreds of small results until a submit returns them all at once, and
    # with 64 per class it created a new 256-byte buffer for nearly every op.
    max_bytes_per_class: int = 1 * MiB

    def buffers_per_class(self, size: int) -> int:
        """How many free buffers of `size` bytes the pool keeps."""
        return max(self.max_buffers_per_class, self.max_bytes_per_class // max(size, 1))


# Staging buffers are used one at a time (each transfer waits for its mapping), so
# a couple per class is enough; they are host memory, so keep few bytes.
STAGING_CONFIG = PoolConfig(max_buffers_per_class=2, max_total_pooled_bytes=128 * MiB, max_bytes_per_class=0)


def parse_bytes(text: str) -> int:
    """A byte count written as an integer with an optional unit (B, KiB, MiB, GiB, KB,
    MB, GB; any case).

    >>> parse_bytes("4096"), parse_bytes("512MiB"), parse_bytes("2 GB")
    (4096, 536870912, 2000000000)
    """
    match = re.fullmatch(r"\s*(\d+)\s*([a-zA-Z]*)\s*", text)
    unit = match and match.group(2).upper()
    if unit not in _BYTE_UNITS:
        raise ValueError(f"{text!r} is not a byte count (e.g. 1073741824, 512MiB, 2GB)")
    return int(match.group(1)) * _BYTE_UNITS[unit]


def memory_limit_from_env() -> int | None:
    """The byte budget of device buffers that `$JAXWG_WEBGPU_MEMORY_LIMIT` sets, or None
    (no budget: the device's own memory is the limit).

    >>> memory_limit_from_env() is None or memory_limit_from_env() > 0
    True
    """
    text = os.environ.get(MEMORY_LIMIT_ENV_VAR, "").strip()
    if not text:
        return None
    try:
        return parse_bytes(text)
    except ValueError as e:
        raise ValueError(f"{MEMORY_LIMIT_ENV_VAR}: {e}") from None


def is_out_of_memory(error: Exception) -> bool:
    """Whether a wgpu error says the device has no memory for a new resource: an
    out-of-memory error, or wgpu-core's "Not enough memory left." that lavapipe reports
    as a validation error.

    >>> is_out_of_memory(wgpu.GPUValidationError("Not enough memory left.")), is_out_of_memory(ValueError())
    (True, False)
    """
    if not isinstance(error, wgpu.GPUError):
        return False
    text = str(error).lower()
    return isinstance(error, wgpu.GPUOutOfMemoryError) or "not enough memory" in text or "out of memory" in text


def out_of_memory(nbytes: int, detail: str) -> ResourceExhaustedError:
    """JAX's out-of-memory error for a request of `nbytes` bytes, then `detail`.

    >>> print(out_of_memory(64, "on lavapipe: Not enough memory left."))
    RESOURCE_EXHAUSTED: Out of memory while trying to allocate 64 bytes on lavapipe: Not enough memory left.
    """
    return ResourceExhaustedError(
        f"RESOURCE_EXHAUSTED: Out of memory while trying to allocate {nbytes} bytes {detail}")


def align4(nbytes: int) -> int:
    """`nbytes` rounded up to a whole number of 32-bit words."""
    return (nbytes + 3) & ~3


def align16(nbytes: int) -> int:
    """`nbytes` rounded up to a whole number of vec4s: what storage buffers hold and
    what an input binding covers. Bound as `array<vec4<f32>>`, a binding of 33 floats
    has 8 vec4s, and the GPU reads the 9th as zeros (robust access)."""
    return (nbytes + 15) & ~15


def size_class(nbytes: int) -> int:
    """The pool's size class for a request: at least 256 bytes, else rounded up to a
    quarter of the largest power of two not above it.

    >>> [size_class(n) for n in (0, 300, 1024, 1025, 1700, 2047)]
    [256, 320, 1024, 1280, 1792, 2048]
    """
    nbytes = max(align4(nbytes), MIN_CLASS_BYTES)
    step = (1 << (nbytes.bit_length() - 1)) // CLASS_STEPS_PER_OCTAVE
    return -(-nbytes // step) * step


class BufferPool:
    """Free lists of WebGPU buffers of one usage, keyed by size class.

    >>> pool = BufferPool(get_device())  # doctest: +SKIP
    >>> buf, size = pool.acquire(1000)  # doctest: +SKIP
    >>> size, pool.misses  # doctest: +SKIP
    (1024, 1)
    >>> pool.release(buf); pool.acquire(900)[1], pool.hits  # doctest: +SKIP
    (1024, 1)

    `memory_limit` (bytes, or None) bounds `reserved_bytes`, the bytes of all buffers the
    pool has created and not destroyed (in use, lent or pooled): a buffer that would
    pass it is refused as the device refuses one it has no memory for.
    """

    def __init__(
        self,
        device: WebGPUDevice,
        config: PoolConfig | None = None,
        usage: int = STORAGE_USAGE,
        label: str = "jaxwg",
        memory_limit: int | None = None,
    ):
        self._device = device
        self._sizes: dict[int, int] = {}  # request -> buffer size (`buffer_size`)
        self._caps: dict[int, int] = {}  # buffer size -> free buffers kept (`release`)
        self.config = config if config is not None else PoolConfig()
        self.memory_limit = memory_limit
        self.reserved_bytes = 0
        self._usage = usage
        self._label = label
        self._free: dict[int, list[wgpu.GPUBuffer]] = {}
        # Buffers whose slots were dropped while recorded work still uses them: only
        # GPU-written allocations may take them before the submit (see SlotTable).
        self._lent: dict[int, dict[int, wgpu.GPUBuffer]] = {}
        self.hits = 0
        self.misses = 0
        self.pooled_bytes = 0
        self.buffers_created = 0

    @property
    def config(self) -> PoolConfig:
        return self._config

    @config.setter
    def config(self, config: PoolConfig) -> None:
        self._config = config
        self._sizes.clear()  # both computed from the old config
        self._caps.clear()

    def buffer_size(self, nbytes: int) -> int:
        """The size of buffer that serves a request: its size class when such a buffer
        may be pooled, else the request padded to 16 bytes (no point rounding up a
        buffer that will never be reused further). Remembered per request size: a jit
        program asks for the same few sizes on every call."""
        size = self._sizes.get(nbytes)
        if size is None:
            if len(self._sizes) > 4096:  # many shapes: forget, rather than grow
                self._sizes.clear()
            pooled_limit = min(self.config.max_pooled_bytes_per_buffer, self._device.max_buffer_bytes)
            cls = size_class(nbytes)
            size = self._sizes[nbytes] = cls if cls <= pooled_limit else align16(nbytes)
        return size

    def acquire(self, nbytes: int, in_flight_ok: bool = False) -> tuple[wgpu.GPUBuffer, int]:
        """A buffer of at least `nbytes` bytes and its size: a pooled one if its class
        has one free, else a new one. Its contents are unspecified. `in_flight_ok` also
        accepts buffers still used by unsubmitted work (`lend`). ResourceExhaustedError
        when a new buffer is needed and there is no memory for it (`_create`)."""
        size = self.buffer_size(nbytes)
        lent = self._lent.get(size) if in_flight_ok else None
        if lent:
            self.hits += 1
            return lent.popitem()[1], size
        free = self._free.get(size)
        if free:
            self.hits += 1
            self.pooled_bytes -= size
            return free.pop(), size
        self.misses += 1
        return self._create(nbytes, size), size

    def _create(self, nbytes: int, size: int) -> wgpu.GPUBuffer:
        """A new buffer of `size` bytes for a request of `nbytes`; ResourceExhaustedError
        when it would pass `memory_limit` or the device has no memory for it."""
        where = f"on {self._device.describe()}"
        if size != nbytes:
            where = f"(a buffer of {size} bytes) {where}"
        limit = self.memory_limit
        if limit is not None and self.reserved_bytes + size > limit:
            raise out_of_memory(nbytes, f"{where}: {self.reserved_bytes} bytes of buffers exist and "
                                        f"the memory limit is {limit} bytes ({MEMORY_LIMIT_ENV_VAR})")
        try:
            buffer = self._device.device.create_buffer(label=self._label, size=size, usage=self._usage)
        except wgpu.GPUError as e:
            if not is_out_of_memory(e):
                raise
            raise out_of_memory(nbytes, f"{where}: {wgpu_reason(e).rstrip('.')}") from e
        self.reserved_bytes += size
        self.buffers_created += 1
        return buffer

    def _destroy(self, buffer: wgpu.GPUBuffer) -> None:
        self.reserved_bytes -= buffer.size
        buffer.destroy()

    def release(self, buffer: wgpu.GPUBuffer) -> None:
        """Keep `buffer` (acquired from this pool) for reuse if the caps allow, else
        destroy it."""
        size = buffer.size
        config = self._config
        cap = self._caps.get(size)
        if cap is None:  # how many free buffers of this size the pool keeps
            if size > config.max_pooled_bytes_per_buffer:
                self._destroy(buffer)
                return
            cap = self._caps[size] = config.buffers_per_class(size)  # few sizes: classes
        free = self._free.get(size)
        if free is None:
            free = self._free[size] = []
        if len(free) < cap and self.pooled_bytes + size <= config.max_total_pooled_bytes:
            free.append(buffer)
            self.pooled_bytes += size
        else:
            self._destroy(buffer)

    def lend(self, buffer: wgpu.GPUBuffer) -> None:
        """Offer a buffer that unsubmitted work still uses to GPU-written allocations."""
        self._lent.setdefault(buffer.size, {})[id(buffer)] = buffer

    def settle(self, buffer: wgpu.GPUBuffer) -> None:
        """The work using a lent buffer was submitted: pool it, unless it was taken."""
        lent = self._lent.get(buffer.size)
        if lent is not None and lent.pop(id(buffer), None) is not None:
            self.release(buffer)

    def trim(self) -> None:
        """Destroy every pooled buffer."""
        free_lists, self._free = self._free, {}
        self.pooled_bytes = 0
        for free in free_lists.values():
            for buffer in free:
                self._destroy(buffer)

    def num_pooled(self, nbytes: int | None = None) -> int:
        """How many buffers are pooled, in all or in the class serving `nbytes`."""
        if nbytes is not None:
            return len(self._free.get(self.buffer_size(nbytes), ()))
        return sum(len(free) for free in self._free.values())


@dataclass(slots=True)
class _Slot:
    handle: int
    buffer: wgpu.GPUBuffer
    nbytes: int
    refcount: int
    held: int = 0  # references taken by recorded, unsubmitted work (`hold`)
    lent: bool = False  # its buffer was offered to GPU-written allocations


def _byte_view(data) -> memoryview:
    """A flat unsigned-byte view of a bytes-like object or NumPy array, copying only
    when a NumPy array is not contiguous."""
    if isinstance(data, np.ndarray):
        data = np.ascontiguousarray(data).reshape(-1).view(np.uint8)
    return memoryview(data).cast("B")


def _padded(data: memoryview) -> memoryview:
    """`data` padded with zero bytes to a multiple of 4 (a copy only when needed)."""
    pad = align4(data.nbytes) - data.nbytes
    return memoryview(bytes(data) + bytes(pad)) if pad else data


class SlotTable:
    """Refcounted slots, each a device buffer holding `nbytes` bytes.

    A new slot has one reference. Its contents are unspecified unless `data` was
    given (a buffer from the pool keeps its old bytes); kernels write every element
    of their outputs. Storage is padded to 4 bytes and the padding of uploads is zero.
    Zero-byte slots share one 4-byte buffer, so kernels can still bind them.

    >>> slots = SlotTable(get_device())  # doctest: +SKIP
    >>> s = slots.malloc(8, np.arange(2, dtype=np.int32))  # doctest: +SKIP
    >>> slots.incref(s); slots.decref(s); slots.live_slots  # doctest: +SKIP
    1
    >>> np.frombuffer(slots.read(s), np.int32)  # doctest: +SKIP
    array([0, 1], dtype=int32)
    >>> slots.decref(s); slots.memory_stats()["bytes_in_use"]  # doctest: +SKIP
    0
    """

    def __init__(
        self,
        device: WebGPUDevice,
        pool: BufferPool | None = None,
        *,
        before_copy: Callable[..., None] | None = None,
    ):
        self._device = device
        self.pool = pool if pool is not None else BufferPool(device)
        # Called before a transfer touches a live slot: flushes recorded dispatches.
        self.before_copy = before_copy
        # Called before an allocation that ran out of memory is retried: submits the
        # recorded work and waits for it, so that the buffers it holds can be freed (the
        # dispatch queue installs its `synchronize`).
        self.finish_work: Callable[[], None] | None = None
        self._read_staging = BufferPool(
            device, STAGING_CONFIG, READ_STAGING_USAGE, "jaxwg-read"
        )
        self._write_staging = BufferPool(
            device, STAGING_CONFIG, WRITE_STAGING_USAGE, "jaxwg-write"
        )
        self._slots: dict[int, _Slot] = {}
        self._empty_buffer: wgpu.GPUBuffer | None = None
        self._bytes_in_use = 0
        self._peak_bytes_in_use = 0
        # Requests up to this many bytes fit one buffer once padded to whole vec4s.
        self._largest_request = device.max_buffer_bytes // 16 * 16

    # --- lifetime ---------------------------------------------------------------

    def malloc(self, nbytes: int, data=None) -> int:
        """A new slot of `nbytes` bytes with one reference, filled with `data` (a
        bytes-like object or NumPy array of exactly `nbytes` bytes) if given."""
        view = None if data is None and nbytes > 0 else self._checked_data(nbytes, data)
        if nbytes == 0:
            buffer = self._shared_empty_buffer()
        else:
            if nbytes > self._largest_request:
                raise self._too_large(nbytes)
            buffer, _ = self._acquire(self.pool, nbytes, in_flight_ok=view is None)
            if view is not None:
                try:
                    self._upload(buffer, view)
                except BaseException:
                    self.pool.release(buffer)  # no slot took it
                    raise
        # Never reuse a handle, so a stale one is always reported instead of aliasing.
        handle = next(_HANDLES)
        self._slots[handle] = _Slot(handle, buffer, nbytes, 1)
        self._bytes_in_use += nbytes
        if self._bytes_in_use > self._peak_bytes_in_use:
            self._peak_bytes_in_use = self._bytes_in_use
        return handle

    def incref(self, slot: int) -> None:
        self._get(slot).refcount += 1

    def hold(self, slots) -> tuple[list[_Slot], int]:
        """A reference on each of `slots` for recorded work, taken only if all are live
        (else KeyError); `release_holds` drops them after the submit. Returns their
        records and the bytes of those held for the first time since the last release
        (what the dispatch queue counts against its bound). One call for a replayed
        program's arguments and results: per slot, it cost 0.8 µs of Python a call."""
        entries = self.entries(slots)
        first_bytes = 0
        for entry in entries:
            entry.refcount += 1
            entry.held += 1
            if entry.held == 1:
                first_bytes += entry.nbytes
        return entries, first_bytes

    def release_holds(self, entries: list[_Slot]) -> None:
        """Drop the references `hold` took (the records it returned), after the submit."""
        for entry in entries:
            entry.held -= 1
            self._drop(entry)

    def decref(self, slot: int) -> None:
        """Drop one reference; at zero the slot is freed and its buffer pooled."""
        self._drop(self._get(slot))

    def _drop(self, entry: _Slot) -> None:
        """`decref` of a record. When only recorded work still holds the slot, its
        buffer is lent to new slots that the GPU will write (`malloc` without data):
        dispatches in one pass run in order, so a later kernel may overwrite it. Uploads
        never get such a buffer, because they land before the recorded work runs."""
        entry.refcount -= 1
        if entry.refcount > 0:
            if entry.refcount == entry.held and not entry.lent and entry.nbytes > 0:
                entry.lent = True
                self.pool.lend(entry.buffer)
            return
        del self._slots[entry.handle]
        self._bytes_in_use -= entry.nbytes
        if entry.nbytes == 0:
            return
        if entry.lent:
            self.pool.settle(entry.buffer)
        else:
            self.pool.release(entry.buffer)

    def entries(self, slots) -> list[_Slot]:
        """The records of live `slots` (buffer, nbytes, references), looked up at once."""
        try:
            return [self._slots[s] for s in slots]
        except KeyError:
            for s in slots:
                self._get(s)  # names the slot that is not live
            raise

    def buffer(self, slot: int) -> wgpu.GPUBuffer:
        """The slot's buffer; it may be larger than `nbytes(slot)`."""
        return self._get(slot).buffer

    def nbytes(self, slot: int) -> int:
        return self._get(slot).nbytes

    @property
    def live_slots(self) -> int:
        return len(self._slots)

    def memory_stats(self) -> dict[str, int]:
        """Byte and buffer counts, in the spirit of JAX's `Device.memory_stats()`:
        `bytes_reserved` counts every storage buffer that exists (in use, pooled, or
        still used by recorded work), rounded up to its size class; `bytes_limit` is
        there when the pool has a `memory_limit`."""
        stats = {
            "bytes_in_use": self._bytes_in_use,
            "peak_bytes_in_use": self._peak_bytes_in_use,
            "bytes_pooled": self.pool.pooled_bytes,
            "bytes_reserved": self.pool.reserved_bytes,
            "live_slots": self.live_slots,
            "pool_hits": self.pool.hits,
            "pool_misses": self.pool.misses,
            "num_buffers_created": self.pool.buffers_created,
        }
        if self.pool.memory_limit is not None:
            stats["bytes_limit"] = self.pool.memory_limit
        return stats

    # --- transfers --------------------------------------------------------------

    def write(self, slot: int, data) -> None:
        """Overwrite the whole slot with `data` (exactly `nbytes(slot)` bytes), after
        any recorded work that may still use the old contents."""
        entry = self._get(slot)
        view = self._checked_data(entry.nbytes, data)
        if entry.nbytes == 0:
            return
        self._run_before_copy()
        self._upload(entry.buffer, view)

    def read(self, slot: int, start: int = 0, count: int | None = None) -> memoryview:
        """`count` bytes (default: to the end) from byte offset `start`, clipped to the
        slot, after any recorded work. The result is a writable copy in host memory.

        WebGPU copies move whole 4-byte words, so this reads the aligned range
        around the window, in chunks of at most `STAGING_CHUNK_BYTES`, and slices it."""
        entry = self._get(slot)
        if start < 0 or (count is not None and count < 0):
            raise ValueError(
                f"read window start={start}, count={count} must not be negative"
            )
        start = min(start, entry.nbytes)
        end = entry.nbytes if count is None else min(entry.nbytes, start + count)
        out = np.empty(end - start, np.uint8)
        if end == start:
            return out.data
        for lo in range(start & ~3, end, STAGING_CHUNK_BYTES):
            first, last = max(lo, start), min(lo + STAGING_CHUNK_BYTES, end)
            self._read_range(entry.buffer, first, out[first - start : last - start])
        return out.data

    def trim(self) -> None:
        """Destroy every pooled (free) buffer, staging buffers included."""
        for pool in (self.pool, self._read_staging, self._write_staging):
            pool.trim()

    def free_unused(self) -> None:
        """Give the device back every buffer no slot uses: finish the recorded work (the
        buffers it holds return to the pool), then destroy every pooled buffer."""
        if self.finish_work is not None:
            self.finish_work()
        self.trim()

    # --- helpers ----------------------------------------------------------------

    def _get(self, slot: int) -> _Slot:
        try:
            return self._slots[slot]
        except KeyError:
            raise KeyError(
                f"slot {slot} is not live (never allocated, already freed, or made by "
                "another backend, such as one cleared after its device was lost)"
            ) from None

    def _acquire(self, pool: BufferPool, nbytes: int,
                 in_flight_ok: bool = False) -> tuple[wgpu.GPUBuffer, int]:
        """`pool.acquire(nbytes)`, tried once more after `free_unused` when the device has
        no memory for it; the second failure's error ends with the memory stats."""
        try:
            return pool.acquire(nbytes, in_flight_ok)
        except ResourceExhaustedError:
            self.free_unused()
        try:
            return pool.acquire(nbytes, in_flight_ok)
        except ResourceExhaustedError as e:
            stats = ", ".join(f"{k}={v}" for k, v in self.memory_stats().items())
            raise ResourceExhaustedError(
                f"{e}. Every pooled buffer was freed and the allocation retried. "
                f"Memory stats: {stats}") from e

    def _checked_data(self, nbytes: int, data) -> memoryview | None:
        if nbytes < 0:
            raise ValueError(f"cannot allocate a negative number of bytes ({nbytes})")
        if data is None:
            return None
        view = _byte_view(data)
        if view.nbytes != nbytes:
            raise ValueError(
                f"data has {view.nbytes} bytes but the slot holds {nbytes} bytes"
            )
        return view

    def _too_large(self, nbytes: int) -> RuntimeError:
        return RuntimeError(f"cannot allocate {nbytes} bytes: the largest buffer on "
                            f"{self._device.describe()} is {self._device.max_buffer_bytes} bytes")

    def _shared_empty_buffer(self) -> wgpu.GPUBuffer:
        if self._empty_buffer is None:
            self._empty_buffer = self._device.device.create_buffer(
                label="jaxwg-empty", size=16, usage=STORAGE_USAGE
            )
        return self._empty_buffer

    def _run_before_copy(self) -> None:
        if self.before_copy is not None:
            self.before_copy()

    def _submit_after_recorded_work(self, record: Callable) -> None:
        """Submit the commands `record(encoder)` adds, after any recorded dispatches: in
        the same submit as those when the `before_copy` hook takes them (the queue's
        `flush` does)."""
        if self.before_copy is not None:
            self.before_copy(record)
            return
        encoder = self._device.device.create_command_encoder()
        record(encoder)
        self._device.queue.submit([encoder.finish()])

    def _read_range(self, buffer: wgpu.GPUBuffer, first: int, dest: np.ndarray) -> None:
        """Copy `dest.size` bytes of `buffer` from byte `first` into `dest`, through a
        staging copy of the whole words around them."""
        lo = first & ~3
        size = align4(first + dest.size) - lo
        staging, _ = self._acquire(self._read_staging, size)

        def copy(encoder: wgpu.GPUCommandEncoder) -> None:
            encoder.copy_buffer_to_buffer(buffer, lo, staging, 0, size)

        self._submit_after_recorded_work(copy)
        self._device.read_mapped(staging, size, dest, first - lo)
        self._read_staging.release(staging)

    def _upload(self, buffer: wgpu.GPUBuffer, data: memoryview) -> None:
        if data.nbytes <= SMALL_UPLOAD_BYTES:
            self._device.queue.write_buffer(buffer, 0, _padded(data))
            return
        for offset in range(0, data.nbytes, STAGING_CHUNK_BYTES):
            chunk = data[offset : offset + STAGING_CHUNK_BYTES]
            self._staged_upload(buffer, offset, chunk)

    def _staged_upload(
        self, buffer: wgpu.GPUBuffer, offset: int, data: memoryview
    ) -> None:
        """Copy `data` into `buffer` at `offset` (a multiple of 8) through a mapped
        staging buffer, zero-padding its end to whole words."""
        size = align4(data.nbytes)
        staging, _ = self._acquire(self._write_staging, size)
        # Mapping waits until the GPU has finished any earlier copy out of `staging`.
        staging.map_sync(wgpu.MapMode.WRITE, 0, size)
        try:
            # Mapped writes start at multiples of 8: write the bulk, then the last
            # (at most 8) bytes zero-padded to whole words.
            bulk = data.nbytes & ~7
            if bulk:
                staging.write_mapped(data[:bulk], 0)
            if bulk < data.nbytes:
                staging.write_mapped(_padded(data[bulk:]), bulk)
        finally:
            staging.unmap()
        encoder = self._device.device.create_command_encoder()
        encoder.copy_buffer_to_buffer(staging, 0, buffer, offset, size)
        self._device.queue.submit([encoder.finish()])
        self._write_staging.release(staging)
