"""Recording many dispatches into one command encoder and one compute pass.

Submitting a kernel to WebGPU takes a command encoder, a compute pass, the
dispatch, and a queue submit. The pass and the submit cost far more than the
dispatch (on an H200, 45 µs per small kernel with a pass each, 5.5 µs when many
share one pass), so the `DispatchQueue` records dispatches into a single open
compute pass and submits them together: when a result is read back, when
`flush` or `synchronize` is called, or when `max_pending` dispatches are waiting.
Chained kernels stay correct inside one pass because WebGPU makes every dispatch
its own synchronization scope: a dispatch sees the writes of the ones before it.

Recorded work refers to buffers that the GPU has not used yet, so the queue takes
a reference on every slot a dispatch uses and drops it only after the submit.
Until then the buffer cannot go back to the pool and be overwritten by an upload
for another slot (uploads run before any later submit; see `buffers`). The queue
also installs its `flush` as the slot table's `before_copy` hook, so reads and
in-place writes always come after the recorded work, and its `synchronize` as the
`finish_work` hook, so an allocation that ran out of memory can free what recorded
work held before it retries.

>>> queue = DispatchQueue(device, slots)  # doctest: +SKIP
>>> queue.record(pipeline, [(0, group, None)], (64, 1, 1), [x, y])  # doctest: +SKIP
>>> queue.pending, queue.submits  # doctest: +SKIP
(1, 0)
>>> queue.synchronize(); queue.pending, queue.submits  # doctest: +SKIP
(0, 1)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import wgpu

from jaxwg.backend.webgpu import native
from jaxwg.backend.webgpu.buffers import READ_STAGING_USAGE, SlotTable
from jaxwg.backend.webgpu.device import WebGPUDevice

# (group index, bind group, dynamic offsets or None)
BindGroupEntry = tuple[int, wgpu.GPUBindGroup, Sequence[int] | None]


# Slots held by recorded work cannot return to the pool until the submit. A loop that
# allocates and drops large arrays would otherwise pile up `max_pending` of them: past
# this many bytes of distinct slots held, the queue submits early. (Counted per slot,
# not per use: counting a 256 MiB input once per dispatch made every second kernel
# that read it submit, about 100 µs of CPU each on the H200, and its reductions ran at
# 0.3-0.4x JAX.) Each submit also leaves the GPU a gap: a jitted `v * 2 + 1` on 64M
# float32 called back to back (a 256 MiB input and output a call) ran at 0.92x JAX with
# 512 MiB (a submit per call), 0.98x with 1 GiB and 0.998x with 2 GiB (H200). Outputs
# dropped while held are lent to later outputs (`SlotTable._drop`), so what can pile
# up is mostly uploads and arrays that stay alive.
MAX_HELD_BYTES = 2048 * 1024 * 1024


class DispatchQueue:
    """Compute dispatches waiting in one open compute pass.

    >>> queue = DispatchQueue(get_device(), slots, max_pending=64)  # doctest: +SKIP
    >>> for _ in range(100):  # doctest: +SKIP
    ...     queue.record(pipeline, [(0, group, None)], (1, 1, 1), [x])
    >>> queue.flush(); queue.submits  # flushed at 64 and here  # doctest: +SKIP
    2
    """

    def __init__(self, device: WebGPUDevice, slots: SlotTable, max_pending: int = 256,
                 max_held_bytes: int = MAX_HELD_BYTES):
        if max_pending < 1:
            raise ValueError(f"max_pending must be at least 1, got {max_pending}")
        self._device = device
        self._slots = slots
        self.max_pending = max_pending
        self.max_held_bytes = max_held_bytes
        self._held_bytes = 0
        slots.before_copy = self.flush
        slots.finish_work = self.synchronize
        # The open encoder and compute pass, as `native.encoding` makes them.
        self._encoder = None
        self._pass = None
        self._pipeline: wgpu.GPUComputePipeline | None = None
        self._immediates: bytes | None = None  # what the open pass's pipeline last got
        self._held: list = []  # records of the slots recorded work uses (SlotTable.hold)
        self._kept: list = []  # objects owning buffers that recorded work uses (`hold`)
        self._pending = 0
        self.dispatches_recorded = 0
        self.submits = 0
        # A word copied into a mappable buffer: mapping it waits for all submitted work.
        self._fence_source = device.device.create_buffer(
            label="jaxwg-fence", size=4, usage=wgpu.BufferUsage.COPY_SRC
        )
        self._fence_target = device.device.create_buffer(
            label="jaxwg-fence-read", size=4, usage=READ_STAGING_USAGE
        )
        self._fence_word = np.zeros(4, np.uint8)
        self._encoding = native.encoding(device.device)
        self._record = self._encoding.recorder
        self.timer = None  # a timing.KernelTimer while the profiler traces

    @property
    def pending(self) -> int:
        """Dispatches recorded but not yet submitted."""
        return self._pending

    @property
    def records_natively(self) -> bool:
        """Whether passes are wgpu-native's own (native.NativeEncoding)."""
        return isinstance(self._encoding, native.NativeEncoding)

    def record(
        self,
        pipeline: wgpu.GPUComputePipeline,
        bind_groups: Sequence[BindGroupEntry],
        grid: tuple[int, int, int],
        slots_used: Sequence[int],
        immediates: bytes | None = None,
    ) -> None:
        """Queue one dispatch of `grid` workgroups of `pipeline`.

        `slots_used` are the slots its bind groups refer to; they stay alive until the
        dispatch is submitted. `immediates` (a multiple of 4 bytes) fill the pipeline's
        `var<immediate>` block from offset 0; the device needs the "immediates" feature.
        """
        self.check_grid(grid)
        compute_pass = self._pass_holding(slots_used)
        self._use_pipeline(compute_pass, pipeline)
        for index, bind_group, dynamic_offsets in bind_groups:
            self._record.set_bind_group(compute_pass, bind_group, index, dynamic_offsets or ())
        self._dispatch(compute_pass, grid, immediates)

    def hold(self, slots: Sequence[int], owner=None) -> None:
        """Keep `slots` and `owner` (an object whose buffers the next dispatches use) alive
        until the next submit: for dispatches recorded with no `slots_used` of their own.
        A submit releases them, so a caller recording after one holds them again."""
        self._hold(slots)
        if owner is not None:
            self._kept.append(owner)

    def record_checked(self, pipeline: wgpu.GPUComputePipeline, bind_group: wgpu.GPUBindGroup,
                       grid: tuple[int, int, int], slots_used: Sequence[int],
                       immediates: bytes | None) -> None:
        """`record` with one bind group (group 0, no dynamic offsets) and a grid already
        checked (`check_grid`): the path of every kernel dispatch."""
        compute_pass = self._pass_holding(slots_used)
        self._use_pipeline(compute_pass, pipeline)
        self._record.set_bind_group(compute_pass, bind_group)
        self._dispatch(compute_pass, grid, immediates)

    def can_record_many(self, count: int) -> bool:
        """Whether `record_many` takes `count` dispatches: they fit one submit, and no
        profiler times each dispatch."""
        return count <= self.max_pending and self.timer is None

    def record_many(self, work: Sequence[tuple], slots_used: Sequence[int], owner=None) -> None:
        """Record `work`, (pipeline, bind group, checked grid, immediates) per dispatch,
        back to back, all into one submit (`can_record_many`): the pending work is
        submitted first if they would not fit after it. `slots_used` and `owner` are
        held as by `hold`, once for all of them (a replayed jit program)."""
        if self._pending + len(work) > self.max_pending:
            self.flush()
        self.hold(slots_used, owner)
        compute_pass = self._pass or self._open_pass()
        self._pipeline, self._immediates = self._record.record_many(
            compute_pass, work, self._pipeline, self._immediates)
        self._pending += len(work)
        self.dispatches_recorded += len(work)
        if self._pending >= self.max_pending or self._held_bytes >= self.max_held_bytes:
            self.flush()

    def _pass_holding(self, slots_used: Sequence[int]):
        """The open pass (opened if need be) for a dispatch using `slots_used`, now held;
        a full query set of the timer is read back first (a submit)."""
        if self.timer is not None:
            self.timer.make_room()
        self._hold(slots_used)
        return self._pass or self._open_pass()

    def _use_pipeline(self, compute_pass, pipeline: wgpu.GPUComputePipeline) -> None:
        if pipeline is not self._pipeline:
            self._record.set_pipeline(compute_pass, pipeline)
            self._pipeline = pipeline
            self._immediates = None  # another layout: its immediates are unset

    def _dispatch(self, compute_pass, grid: tuple[int, int, int], immediates: bytes | None) -> None:
        if immediates is not None and immediates != self._immediates:
            # Immediates persist in the pass while the pipeline stays: a kernel run again
            # (a jitted function called in a loop) sets them once.
            self._record.set_immediates(compute_pass, immediates)
            self._immediates = immediates
        if self.timer is None:
            self._record.dispatch(compute_pass, *grid)
        else:
            self.timer.before(compute_pass)
            self._record.dispatch(compute_pass, *grid)
            self.timer.after(compute_pass)
        self._pending += 1
        self.dispatches_recorded += 1
        if self._pending >= self.max_pending or self._held_bytes >= self.max_held_bytes:
            self.flush()

    def flush(self, then: Callable[[wgpu.GPUCommandEncoder], None] | None = None) -> None:
        """Submit everything recorded, then release the slots it held (if any).

        `then(encoder)` records more commands (a read-back copy) after the compute pass
        into the same submit: one submit per read instead of two. After a submit the
        next encoder and pass are opened at once, while the GPU runs the work and the
        caller waits for it: the first dispatch after a wait does not pay for them
        (23 µs on the H200; docs/performance.md)."""
        if self._pending == 0:  # nothing recorded; a pass opened in advance stays open
            # Holds taken for no work (a replayed program of no dispatches) protect
            # nothing: release them now, not at a submit that may never come.
            held, self._held, self._kept, self._held_bytes = self._held, [], [], 0
            self._slots.release_holds(held)
            if then is not None:
                encoder = self._encoding.encoder()
                then(encoder)
                self._encoding.submit(encoder)
            return
        encoder, compute_pass = self._encoder, self._pass
        held, self._held = self._held, []
        kept, self._kept = self._kept, []
        self._encoder = self._pass = self._pipeline = self._immediates = None
        self._pending = 0
        self._held_bytes = 0
        try:
            self._encoding.end(compute_pass)
            if then is not None:
                then(encoder)
            self._encoding.submit(encoder)
            self.submits += 1
        finally:
            # After the submit, any later use of these buffers comes after this work.
            self._slots.release_holds(held)
            del kept  # owners may free their buffers now
        self._open_pass()

    def gpu_seconds(self, timer, record: Callable[[], None]) -> float | None:
        """The GPU time of the dispatches `record()` records: `timer` (a
        timing.KernelTimer of the caller's own) stamps the open pass before the first
        and after the last, with no submit in between. None when something in `record()`
        submitted anyway (a read-back), so the stamps are in two passes. The profiler's
        timer, if it is tracing, leaves these dispatches unstamped. Both stamps are
        written, submitted and read back even when `record()` raises."""
        self.flush()
        limits, profiling = (self.max_pending, self.max_held_bytes), self.timer
        self.max_pending, self.max_held_bytes = 1 << 62, 1 << 62  # one pass, however much
        self.timer = None
        try:
            compute_pass = self._stamp(timer.before)
            try:
                record()
            finally:
                same_pass = self._pass is compute_pass
                self._stamp(timer.after)
        finally:
            self.max_pending, self.max_held_bytes = limits
            self.timer = profiling
            (stamped,) = timer.results()  # submits the pass holding the stamps, if not yet
        return (stamped.end_ns - stamped.start_ns) * 1e-9 if same_pass else None

    def _stamp(self, write) -> object:
        """`write(pass)`: a timestamp into the open pass (opened if need be), counted as
        pending work so that the next flush submits the pass even if nothing else is in it."""
        compute_pass = self._pass or self._open_pass()
        write(compute_pass)
        self._pending += 1
        return compute_pass

    def synchronize(self) -> None:
        """Flush and wait until the GPU has finished all submitted work."""
        if self._device.wait_idle is not None:
            self.flush()
            self._device.wait_idle()
            return
        # Through wgpu-py's public API (queue.on_submitted_work_done_sync raises
        # TypeError in wgpu 0.32.0), mapping a buffer waits for the submit that last
        # used it, and submits finish in order: a 4-byte copy submitted with the pending
        # work is the fence.
        def fence(encoder: wgpu.GPUCommandEncoder) -> None:
            encoder.copy_buffer_to_buffer(self._fence_source, 0, self._fence_target, 0, 4)

        self.flush(fence)
        self._device.read_mapped(self._fence_target, 4, self._fence_word)

    def _hold(self, slots_used: Sequence[int]) -> None:
        # Referenced before anything is recorded, so an unknown slot (KeyError) leaves
        # neither a dispatch nor a stray reference behind. Bytes count once per slot
        # between submits.
        entries, first_bytes = self._slots.hold(slots_used)
        self._held_bytes += first_bytes
        self._held += entries

    def _open_pass(self):
        if self._pass is None:
            self._encoder = self._encoding.encoder()
            self._pass = self._encoding.begin_pass(self._encoder)
        return self._pass

    def check_grid(self, grid: tuple[int, int, int]) -> None:
        """ValueError unless `grid` is three workgroup counts within the device's limit
        (wgpu would only report a bad grid at the submit)."""
        limit = self._device.max_workgroups_per_dim
        if len(grid) != 3 or any(not 0 <= n <= limit for n in grid):
            raise ValueError(
                f"dispatch grid {tuple(grid)} must be 3 workgroup counts "
                f"of 0..{limit} each"
            )
