"""Read-back through wgpu-native (backend/webgpu/native.py) against wgpu-py's public
mapping, and the fallback to it."""

import numpy as np
import pytest
import wgpu

from jaxwg.backend.webgpu import native


@pytest.fixture(scope="module")
def device():
    from jaxwg.backend.webgpu.device import get_device
    return get_device().device


def staged(device, data: np.ndarray):
    src = device.create_buffer_with_data(data=data, usage="COPY_SRC")
    staging = device.create_buffer(size=data.nbytes, usage="MAP_READ|COPY_DST")
    encoder = device.create_command_encoder()
    encoder.copy_buffer_to_buffer(src, 0, staging, 0, data.nbytes)
    device.queue.submit([encoder.finish()])
    return staging


@pytest.mark.parametrize("size, skip, count", [(4, 0, 4), (64, 3, 50), (1 << 20, 12345, 500000)])
def test_native_reads_match_the_public_api(device, size, skip, count):
    data = np.random.default_rng(size).integers(0, 256, size, dtype=np.uint8)
    waits = native.sync(device)
    assert isinstance(waits, native.NativeSync)  # wgpu 0.32 is the known version
    out = np.zeros(count, np.uint8)
    staging = staged(device, data)
    waits.read(staging, size, out, skip)
    np.testing.assert_array_equal(out, data[skip:skip + count])
    again = np.zeros(count, np.uint8)
    native.PublicSync.read(staging, size, again, skip)  # the buffer is unmapped again: usable
    np.testing.assert_array_equal(again, out)


def test_an_unknown_wgpu_falls_back_to_the_public_api(device, monkeypatch):
    monkeypatch.setattr(wgpu, "__version__", "9.9.9")
    waits = native.sync(device)
    assert isinstance(waits, native.PublicSync) and waits.wait_idle is None
    data = np.arange(16, dtype=np.uint8)
    out = np.zeros(8, np.uint8)
    waits.read(staged(device, data), 16, out, 8)
    np.testing.assert_array_equal(out, data[8:])


@pytest.mark.parametrize("make", [native.encoding, native.PublicEncoding])
def test_dispatches_recorded_either_way_compute_the_same(make, monkeypatch):
    import jaxwg
    import jaxwg.numpy as jnp

    backend = jaxwg.devices("webgpu")[0].backend
    queue = backend.queue
    queue.flush()
    encoding = make(backend.device.device)
    monkeypatch.setattr(queue, "_encoding", encoding)
    monkeypatch.setattr(queue, "_record", encoding.recorder)
    monkeypatch.setattr(queue, "_encoder", None)  # the pass opened in advance is the old kind
    monkeypatch.setattr(queue, "_pass", None)
    x = np.linspace(-3, 3, 70007).astype(np.float32)
    f = jaxwg.jit(lambda v: jnp.sum(jnp.tanh(v) * 2.0 + v[::-1]) + v.reshape(7, 10001)[:, :5].T)
    out = np.asarray(f(jnp.asarray(x)))
    want = np.sum(np.tanh(x.astype(np.float64)) * 2 + x[::-1]) + x.reshape(7, 10001)[:, :5].T
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-3)


def test_the_known_wgpu_encodes_through_wgpu_native(device, monkeypatch):
    encoding = native.encoding(device)
    assert isinstance(encoding, native.NativeEncoding) and isinstance(encoding.recorder, native.PassRecorder)
    monkeypatch.setattr(wgpu, "__version__", "9.9.9")
    encoding = native.encoding(device)
    assert isinstance(encoding, native.PublicEncoding) and isinstance(encoding.recorder, native.PublicPassRecorder)


def test_native_encoding_raises_what_wgpu_native_reports(device):
    """A copy past a buffer's end is a validation error at the finish: raised, not logged."""
    encoding = native.encoding(device)
    small = device.create_buffer(size=16, usage="COPY_SRC|COPY_DST")
    encoder = encoding.encoder()
    encoder.copy_buffer_to_buffer(small, 0, small, 8, 16)
    with pytest.raises(wgpu.GPUValidationError):
        encoding.submit(encoder)
    encoder = encoding.encoder()  # and the encoding still works
    encoding.end(encoding.begin_pass(encoder))
    encoding.submit(encoder)
    native.sync(device).wait_idle()


def test_wait_idle_returns_after_the_submitted_work(device):
    """After `wait_idle`, a mapping of what the work wrote completes in one poll that
    does not block (a 64 MiB copy takes milliseconds on the software adapters)."""
    from wgpu.backends.wgpu_native import ffi, lib

    waits = native.sync(device)
    data = np.random.default_rng(0).integers(0, 256, 64 << 20, dtype=np.uint8)
    for _ in range(3):
        staging = staged(device, data)
        waits.wait_idle()
        status = []
        info = ffi.new("WGPUBufferMapCallbackInfo *")
        info.mode = lib.WGPUCallbackMode_AllowProcessEvents
        info.callback = callback = ffi.callback(
            "void(WGPUMapAsyncStatus, WGPUStringView, void *, void *)", lambda s, *_: status.append(s))
        lib.wgpuBufferMapAsync(staging._internal, lib.WGPUMapMode_Read, 0, data.nbytes, info[0])
        lib.wgpuDevicePoll(device._internal, False, ffi.NULL)
        assert status == [lib.WGPUMapAsyncStatus_Success], status
        lib.wgpuBufferUnmap(staging._internal)
        del callback


@pytest.mark.parametrize("native_wait", [True, False])
def test_synchronize_waits_either_way(native_wait, monkeypatch):
    import jaxwg
    import jaxwg.numpy as jnp

    backend = jaxwg.devices("webgpu")[0].backend
    if not native_wait:
        monkeypatch.setattr(backend.device, "wait_idle", None)
    x = jnp.asarray(np.arange(1 << 20, dtype=np.float32))
    y = (x * 2.0 + 1.0).block_until_ready()
    backend.synchronize()
    np.testing.assert_array_equal(np.asarray(y), np.arange(1 << 20, dtype=np.float32) * 2 + 1)
