"""GPU time of each dispatch, from timestamp queries written inside the compute pass.

The profiler (`jaxwg.profiler`) turns this on while it traces. Each dispatch the queue
records gets a timestamp before and one after it, written into a query set with
`wgpuComputePassEncoderWriteTimestamp` (wgpu-native's "timestamp-query-inside-passes"
feature: WebGPU itself only stamps the start and end of whole passes, and jaxwg keeps
many dispatches in one pass). When the query set is full, and when the profiler asks
for the results, the queue resolves the stamps into a buffer as part of its next
submit, copies them to a mappable one, waits, and reads them: ticks times the queue's
timestamp period give nanoseconds on the GPU's clock.

Where the adapter lacks the feature, or wgpu-py is not a version `native` knows,
`KernelTimer.create` returns None and the profiler times each kernel on the CPU instead.

>>> from jaxwg.backend import get_backend
>>> backend = get_backend("webgpu")
>>> timer = KernelTimer.create(backend.device, backend.queue)
>>> timer is None or timer.capacity > 0
True
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import wgpu

from . import native

FEATURE = "timestamp-query-inside-passes"
# Dispatches timed between two read-backs: two stamps each, and WebGPU allows at most
# 4096 queries in a query set.
CAPACITY = 2048


@dataclass
class TimedDispatch:
    """One dispatch: the label the profiler gave it, and its GPU start and end (ns)."""

    label: object
    start_ns: float
    end_ns: float


class KernelTimer:
    """Stamps dispatches of one `DispatchQueue` (see the module doc)."""

    def __init__(self, device, queue, write_timestamp, capacity: int):
        self.capacity = capacity
        self.label = None  # what the next dispatches are labelled with (set by the profiler)
        self._device, self._queue = device, queue
        self._write = write_timestamp
        self._period = device.queue_timestamp_period()
        dev = device.device
        self._queries = dev.create_query_set(type=wgpu.QueryType.timestamp, count=2 * capacity)
        nbytes = 16 * capacity
        self._resolved = dev.create_buffer(size=nbytes, usage=wgpu.BufferUsage.QUERY_RESOLVE |
                                           wgpu.BufferUsage.COPY_SRC)
        self._readable = dev.create_buffer(size=nbytes, usage=wgpu.BufferUsage.MAP_READ |
                                           wgpu.BufferUsage.COPY_DST)
        self._labels: list = []  # one per stamped dispatch not read back yet
        self._done: list[TimedDispatch] = []

    @classmethod
    def create(cls, device, queue, capacity: int = CAPACITY) -> KernelTimer | None:
        """A timer for `queue` stamping up to `capacity` dispatches between read-backs,
        or None where the adapter cannot stamp inside passes."""
        write = native.timestamp_writer()
        if FEATURE not in device.features or write is None or not queue.records_natively:
            return None
        return cls(device, queue, write, capacity)

    def make_room(self) -> None:
        """Before the queue opens a pass for a dispatch: read the stamps back if the
        query set is full (this submits what is recorded)."""
        if len(self._labels) == self.capacity:
            self._queue.flush(self._resolve)
            self._read_back()

    def before(self, compute_pass) -> None:
        """Stamp the start of the dispatch about to be recorded."""
        self._write(compute_pass, self._queries, 2 * len(self._labels))
        self._labels.append(self.label)

    def after(self, compute_pass) -> None:
        self._write(compute_pass, self._queries, 2 * len(self._labels) - 1)

    def results(self) -> list[TimedDispatch]:
        """Every dispatch stamped so far, in recording order (waits for the GPU)."""
        if self._labels:
            self._queue.flush(self._resolve)
            self._read_back()
        done, self._done = self._done, []
        return done

    def _resolve(self, encoder) -> None:
        count = 2 * len(self._labels)
        encoder.resolve_query_set(self._queries, 0, count, self._resolved, 0)
        encoder.copy_buffer_to_buffer(self._resolved, 0, self._readable, 0, 8 * count)

    def _read_back(self) -> None:
        count = 2 * len(self._labels)
        raw = np.zeros(8 * count, np.uint8)
        self._device.read_mapped(self._readable, 8 * count, raw)
        ticks = raw.view(np.uint64).astype(np.float64) * self._period
        self._done += [TimedDispatch(label, ticks[2 * i], ticks[2 * i + 1])
                       for i, label in enumerate(self._labels)]
        self._labels = []
