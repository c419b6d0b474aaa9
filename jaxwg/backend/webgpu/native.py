"""Waiting for the GPU, reading mapped buffers and recording dispatches through
wgpu-native directly: the one place jaxwg uses wgpu-py's private handles
(`obj._internal`, the cffi `lib` and `ffi`).

wgpu-py 0.32's `map_sync(READ)` submits an empty command buffer first (its
workaround for wgpu-native issue 305) and waits through a promise that its polling
thread resolves: measured on the H200, a 4-byte read-back took 258 µs that way and
101-109 µs calling wgpu-native's `wgpuBufferMapAsync`, `wgpuDevicePoll(wait)`,
`wgpuBufferGetMappedRange` and `wgpuBufferUnmap` on the calling thread (lavapipe: 382
and 219 µs). `NativeSync.read` does the latter. wgpu-py never learns of the mapping,
which is undone before `read` returns, so its own view of the buffer (unmapped)
stays true. `NativeSync.wait_idle` waits for all submitted work with the same polls,
where the public API can only map a buffer that a fence copy wrote (a small jit call
+ wait on lavapipe: 214 µs with the fence copy and its mapping, 158 without). The
polls do not block for the first 200 µs (`_SPIN_S`): a blocking poll wakes up late.

Recording a dispatch into an open compute pass (`PassRecorder`) calls
`wgpuComputePassEncoderSetPipeline`, `...SetBindGroup`, `...SetImmediates` and
`...DispatchWorkgroups` directly: wgpu-py wraps each call in an error-capturing proxy
and copies the dynamic offsets, several µs a call, three or four calls per dispatch. Recording errors are deferred by
WebGPU to the end of the pass in any case. The pass keeps what it references alive
(wgpu-native counts the references).

Opening, ending, finishing and submitting the encoder (`encoding()`) go through
wgpu-native too: wgpu-py builds descriptor structs and a Python object for each, about
20 µs of a small call's round trip on lavapipe. The errors wgpu-native reports during
those calls are captured through wgpu-py's error handler and raised as wgpu-py would.

The private names are checked once: `sync(device)` and `encoding(device)` return the
public API's equivalents unless wgpu is a version this module was written against and
every name they call exists.

>>> import numpy as np, wgpu
>>> from jaxwg.backend.webgpu.device import get_device
>>> dev = get_device().device
>>> src = dev.create_buffer_with_data(data=np.arange(4, dtype=np.float32), usage="COPY_SRC")
>>> staging = dev.create_buffer(size=16, usage="MAP_READ|COPY_DST")
>>> encoder = dev.create_command_encoder(); encoder.copy_buffer_to_buffer(src, 0, staging, 0, 16)
>>> dev.queue.submit([encoder.finish()])
>>> out = np.zeros(8, np.uint8)
>>> sync(dev).read(staging, 16, out, skip=4)   # bytes 4..12: the floats 1.0 and 2.0
>>> out.view(np.float32)
array([1., 2.], dtype=float32)
"""

from __future__ import annotations

import time

import numpy as np
import wgpu

# wgpu-py releases this module was written and tested against.
_KNOWN_VERSIONS = ("0.32.",)
_NAMES = ("wgpuBufferMapAsync", "wgpuDevicePoll", "wgpuBufferGetMappedRange", "wgpuBufferUnmap",
          "WGPUMapMode_Read", "WGPUCallbackMode_AllowProcessEvents", "WGPUMapAsyncStatus_Success")
# A map that has not completed after this long means a lost callback: an error, not a hang.
_ENCODE_NAMES = ("wgpuComputePassEncoderSetPipeline", "wgpuComputePassEncoderSetBindGroup",
                 "wgpuComputePassEncoderSetImmediates", "wgpuComputePassEncoderDispatchWorkgroups",
                 "wgpuDeviceCreateCommandEncoder", "wgpuCommandEncoderBeginComputePass",
                 "wgpuComputePassEncoderEnd", "wgpuComputePassEncoderRelease",
                 "wgpuCommandEncoderCopyBufferToBuffer", "wgpuCommandEncoderResolveQuerySet",
                 "wgpuCommandEncoderFinish",
                 "wgpuCommandEncoderRelease", "wgpuQueueSubmit", "wgpuCommandBufferRelease")
_TIMEOUT_S = 120.0
# How long a wait polls without blocking before it blocks. On the H100 through Vulkan a
# blocking poll returned 35 µs after the work was done: a jit call + wait of a small
# function took 138-149 µs blocking at once and 104-109 spinning first (medians of
# 3000, three alternating rounds; a poll takes about 1 µs). Longer work then blocks,
# so a software adapter's threads keep the CPU.
_SPIN_S = 200e-6


class NativeSync:
    """Waits for one device's GPU on the calling thread: maps MAP_READ buffers and
    copies bytes out, or waits for all submitted work (see the module doc). One wait
    at a time: the backend's lock serializes them."""

    def __init__(self, device: wgpu.GPUDevice, ffi, lib):
        self._ffi, self._lib = ffi, lib
        self._device = device  # keeps the handle below alive
        self._handle = device._internal
        self._status = [0]

        @ffi.callback("void(WGPUMapAsyncStatus, WGPUStringView, void *, void *)")
        def mapped(status, message, userdata1, userdata2):
            # Runs inside a poll, on this thread or on wgpu-py's polling thread.
            self._status[0] = 1 if status == lib.WGPUMapAsyncStatus_Success else -max(1, int(status))

        self._callback = mapped  # created once and kept: cffi frees callbacks it no longer sees
        self._info = ffi.new("WGPUBufferMapCallbackInfo *")
        self._info.mode = lib.WGPUCallbackMode_AllowProcessEvents
        self._info.callback = mapped

    def _poll_until(self, done, what: str) -> None:
        """Poll (which runs callbacks) until `done(queue_empty)`: without blocking for
        the first `_SPIN_S`, then blocking. A poll's return value says whether the queue
        is empty; only its low byte is meaningful."""
        poll, handle, null = self._lib.wgpuDevicePoll, self._handle, self._ffi.NULL
        spin_until = time.perf_counter() + _SPIN_S
        while not done(poll(handle, False, null) & 0xFF):
            if time.perf_counter() > spin_until:
                break
        else:
            return
        deadline = time.monotonic() + _TIMEOUT_S
        while not done(poll(handle, True, null) & 0xFF):
            if time.monotonic() > deadline:
                raise RuntimeError(f"{what} did not complete")

    def wait_idle(self) -> None:
        """Return once the GPU has finished all work submitted so far."""
        self._poll_until(lambda empty: empty, "waiting for the GPU")

    def read(self, buffer: wgpu.GPUBuffer, size: int, dest: np.ndarray, skip: int = 0) -> None:
        """Copy `dest.size` bytes from byte `skip` of the first `size` bytes (a multiple
        of 4) of `buffer` into the uint8 array `dest`, once the GPU is done with it."""
        lib, ffi = self._lib, self._ffi
        handle = buffer._internal
        self._status[0] = 0
        lib.wgpuBufferMapAsync(handle, lib.WGPUMapMode_Read, 0, size, self._info[0])
        self._poll_until(lambda _: self._status[0] != 0, f"mapping a {size}-byte buffer for reading")
        if self._status[0] != 1:
            raise RuntimeError(f"mapping a {size}-byte buffer for reading failed (status {-self._status[0]})")
        try:
            mapped = ffi.buffer(lib.wgpuBufferGetMappedRange(handle, 0, size), size)
            dest[:] = np.frombuffer(mapped, np.uint8, dest.size, skip)
        finally:
            lib.wgpuBufferUnmap(handle)


class PublicSync:
    """The same through wgpu-py's public API, which cannot wait for the GPU without a
    buffer to map: `wait_idle` is None (the dispatch queue maps a fence word instead)."""

    wait_idle = None

    @staticmethod
    def read(buffer: wgpu.GPUBuffer, size: int, dest: np.ndarray, skip: int = 0) -> None:
        buffer.map_sync(wgpu.MapMode.READ, 0, size)
        try:
            dest[:] = np.frombuffer(buffer.read_mapped(0, size, copy=False), np.uint8, dest.size, skip)
        finally:
            buffer.unmap()


class _RecordMany:
    def record_many(self, compute_pass, work, pipeline, immediates) -> tuple:
        """Record `work`, (pipeline, bind group 0, grid, immediates or None) per
        dispatch, into `compute_pass`, whose current pipeline and immediates are
        `pipeline` and `immediates`; returns them as the last dispatch left them."""
        for pipe, group, grid, data in work:
            if pipe is not pipeline:
                self.set_pipeline(compute_pass, pipe)
                pipeline, immediates = pipe, None
            self.set_bind_group(compute_pass, group)
            if data is not None and data != immediates:
                self.set_immediates(compute_pass, data)
                immediates = data
            self.dispatch(compute_pass, *grid)
        return pipeline, immediates


class PassRecorder(_RecordMany):
    """Pipeline, bind groups, immediates and dispatch on an open compute pass, through
    wgpu-native (see the module doc)."""

    def __init__(self, ffi, lib):
        self._ffi = ffi
        self._set_pipeline = lib.wgpuComputePassEncoderSetPipeline
        self._set_bind_group = lib.wgpuComputePassEncoderSetBindGroup
        self._set_immediates = lib.wgpuComputePassEncoderSetImmediates
        self._dispatch = lib.wgpuComputePassEncoderDispatchWorkgroups
        self._null = ffi.NULL

    def set_pipeline(self, compute_pass, pipeline) -> None:
        self._set_pipeline(compute_pass._internal, pipeline._internal)

    def set_bind_group(self, compute_pass, group, index: int = 0, dynamic_offsets=()) -> None:
        offsets = self._ffi.new("uint32_t[]", list(dynamic_offsets)) if dynamic_offsets else self._null
        self._set_bind_group(compute_pass._internal, index, group._internal, len(dynamic_offsets), offsets)

    def set_immediates(self, compute_pass, data: bytes) -> None:
        """`data` (a multiple of 4 bytes) into the pipeline's immediates from offset 0."""
        self._set_immediates(compute_pass._internal, 0, self._ffi.from_buffer(data), len(data))

    def dispatch(self, compute_pass, x: int, y: int, z: int) -> None:
        self._dispatch(compute_pass._internal, x, y, z)

    def record_many(self, compute_pass, work, pipeline, immediates) -> tuple:
        """`_RecordMany.record_many` with the wgpu-native calls made in the loop itself:
        the hot loop of a replayed jit program, which no longer pays three Python calls
        a dispatch for the methods above."""
        target, null = compute_pass._internal, self._null
        set_pipeline, set_bind_group, dispatch = self._set_pipeline, self._set_bind_group, self._dispatch
        for pipe, group, (x, y, z), data in work:
            if pipe is not pipeline:
                set_pipeline(target, pipe._internal)
                pipeline, immediates = pipe, None
            set_bind_group(target, 0, group._internal, 0, null)
            if data is not None and data != immediates:
                self.set_immediates(compute_pass, data)
                immediates = data
            dispatch(target, x, y, z)
        return pipeline, immediates


class PublicPassRecorder(_RecordMany):
    """The same through wgpu-py's public API."""

    def set_pipeline(self, compute_pass, pipeline) -> None:
        compute_pass.set_pipeline(pipeline)

    def set_bind_group(self, compute_pass, group, index: int = 0, dynamic_offsets=()) -> None:
        compute_pass.set_bind_group(index, group, dynamic_offsets)

    def set_immediates(self, compute_pass, data: bytes) -> None:
        # wgpu 0.32.0's set_immediates fails unless data_size is given explicitly.
        compute_pass.set_immediates(0, data, 0, len(data))

    def dispatch(self, compute_pass, x: int, y: int, z: int) -> None:
        compute_pass.dispatch_workgroups(x, y, z)


class _Raw:
    """A wgpu-native handle (`_internal`, as wgpu-py's objects have) released when it is
    dropped unless something took it."""

    __slots__ = ("_internal", "_release")

    def __init__(self, handle, release):
        self._internal, self._release = handle, release

    def take(self):
        handle, self._internal = self._internal, None
        return handle

    def __del__(self):
        if self._internal is not None:
            self._release(self.take())


class _RawEncoder(_Raw):
    """A command encoder opened through wgpu-native, with the commands jaxwg records
    outside compute passes."""

    __slots__ = ("_lib",)

    def __init__(self, handle, lib):
        super().__init__(handle, lib.wgpuCommandEncoderRelease)
        self._lib = lib

    def copy_buffer_to_buffer(self, source: wgpu.GPUBuffer, source_offset: int,
                              destination: wgpu.GPUBuffer, destination_offset: int, size: int) -> None:
        self._lib.wgpuCommandEncoderCopyBufferToBuffer(
            self._internal, source._internal, source_offset, destination._internal, destination_offset, size)

    def resolve_query_set(self, query_set: wgpu.GPUQuerySet, first_query: int, query_count: int,
                          destination: wgpu.GPUBuffer, destination_offset: int) -> None:
        self._lib.wgpuCommandEncoderResolveQuerySet(
            self._internal, query_set._internal, first_query, query_count, destination._internal,
            destination_offset)


class NativeEncoding:
    """Opens an encoder with a compute pass, and ends, finishes and submits it, through
    wgpu-native (see the module doc); `recorder` records dispatches into its passes."""

    def __init__(self, device: wgpu.GPUDevice, ffi, lib, errors, error_types):
        self.recorder = PassRecorder(ffi, lib)
        self._lib, self._errors, self._error_types = lib, errors, error_types
        self._device = device  # keeps the handles below alive
        self._handle, self._queue = device._internal, device.queue._internal
        self._encoder_desc = ffi.new("WGPUCommandEncoderDescriptor *")
        self._pass_desc = ffi.new("WGPUComputePassDescriptor *")
        self._finish_desc = ffi.new("WGPUCommandBufferDescriptor *")
        self._buffers = ffi.new("WGPUCommandBuffer[1]")

    def encoder(self) -> _RawEncoder:
        lib = self._lib
        handle = self._call("opening a command encoder", lib.wgpuDeviceCreateCommandEncoder,
                            self._handle, self._encoder_desc)
        return _RawEncoder(handle, lib)

    def begin_pass(self, encoder: _RawEncoder) -> _Raw:
        lib = self._lib
        handle = self._call("beginning a compute pass", lib.wgpuCommandEncoderBeginComputePass,
                            encoder._internal, self._pass_desc)
        return _Raw(handle, lib.wgpuComputePassEncoderRelease)

    def end(self, compute_pass: _Raw) -> None:
        lib = self._lib
        handle = compute_pass.take()
        try:
            self._call("ending a compute pass", lib.wgpuComputePassEncoderEnd, handle)
        finally:
            lib.wgpuComputePassEncoderRelease(handle)

    def submit(self, encoder: _RawEncoder) -> None:
        """Finish `encoder` and submit its commands. Each in its own capture: submitting
        a command buffer whose finish failed aborts the process in wgpu-native."""
        lib, buffers = self._lib, self._buffers
        handle = encoder.take()
        try:
            buffers[0] = self._call("finishing a command encoder", lib.wgpuCommandEncoderFinish,
                                    handle, self._finish_desc)
        finally:
            lib.wgpuCommandEncoderRelease(handle)
        try:
            self._call("submitting commands", lib.wgpuQueueSubmit, self._queue, 1, buffers)
        finally:
            lib.wgpuCommandBufferRelease(buffers[0])

    def _call(self, what: str, fn, *args):
        """fn(*args), raising what wgpu-native reports meanwhile as wgpu-py raises it. A
        plain call, not a context manager: five of these run per submit and reopened pass,
        and contextlib's machinery cost about as much as the C calls (H100 host)."""
        errors = self._errors
        errors.capture(what)
        try:
            result = fn(*args)
        finally:
            error = errors.release(what)
        if error is not None:
            kind, message = error
            raise self._error_types.get(kind, wgpu.GPUError)(message)
        return result


class PublicEncoding:
    """The same through wgpu-py's public API."""

    def __init__(self, device: wgpu.GPUDevice):
        self.recorder = PublicPassRecorder()
        self._device = device

    def encoder(self) -> wgpu.GPUCommandEncoder:
        return self._device.create_command_encoder(label="jaxwg-dispatch")

    @staticmethod
    def begin_pass(encoder: wgpu.GPUCommandEncoder) -> wgpu.GPUComputePassEncoder:
        return encoder.begin_compute_pass(label="jaxwg-dispatch")

    @staticmethod
    def end(compute_pass: wgpu.GPUComputePassEncoder) -> None:
        compute_pass.end()

    def submit(self, encoder: wgpu.GPUCommandEncoder) -> None:
        self._device.queue.submit([encoder.finish()])


def _native():
    """wgpu-native's cffi `(ffi, lib)` when this wgpu is a known version, else None."""
    if not wgpu.__version__.startswith(_KNOWN_VERSIONS):
        return None
    try:
        from wgpu.backends.wgpu_native import ffi, lib
    except ImportError:
        return None
    return ffi, lib


def sync(device: wgpu.GPUDevice):
    """A `NativeSync` for `device` where this wgpu allows it, else a `PublicSync`."""
    found = _native()
    if found is None or not hasattr(device, "_internal") or \
            not all(hasattr(found[1], name) for name in _NAMES):
        return PublicSync()
    ffi, lib = found
    return NativeSync(device, ffi, lib)


def encoding(device: wgpu.GPUDevice):
    """A `NativeEncoding` for `device` where this wgpu allows it, else a `PublicEncoding`.

    >>> from jaxwg.backend.webgpu.device import get_device
    >>> enc = encoding(get_device().device)
    >>> encoder = enc.encoder(); enc.end(enc.begin_pass(encoder)); enc.submit(encoder)
    """
    found = _native()
    if found is None or not hasattr(device, "_internal") or \
            not all(hasattr(found[1], name) for name in _ENCODE_NAMES):
        return PublicEncoding(device)
    try:
        from wgpu.backends.wgpu_native._api import error_handler
        from wgpu.backends.wgpu_native._helpers import ERROR_TYPES
    except ImportError:
        return PublicEncoding(device)
    return NativeEncoding(device, *found, error_handler, ERROR_TYPES)


def timestamp_writer():
    """`write(compute_pass, query_set, index)`: a timestamp inside a pass of a
    `NativeEncoding` (wgpu-py has no public call for it), or None where this wgpu
    is not a known version."""
    found = _native()
    if found is None or not hasattr(found[1], "wgpuComputePassEncoderWriteTimestamp"):
        return None
    write = found[1].wgpuComputePassEncoderWriteTimestamp
    return lambda compute_pass, query_set, index: write(compute_pass._internal, query_set._internal, index)


def timestamp_period(queue: wgpu.GPUQueue) -> float:
    """Nanoseconds per timestamp tick (1.0 where wgpu-native cannot say)."""
    found = _native()
    if found is None or not hasattr(found[1], "wgpuQueueGetTimestampPeriod") or not hasattr(queue, "_internal"):
        return 1.0
    return float(found[1].wgpuQueueGetTimestampPeriod(queue._internal))
