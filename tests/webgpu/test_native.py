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
    read = native.reader(device)
    assert isinstance(read.__self__, native.MappedReader)  # wgpu 0.32 is the known version
    out = np.zeros(count, np.uint8)
    staging = staged(device, data)
    read(staging, size, out, skip)
    np.testing.assert_array_equal(out, data[skip:skip + count])
    again = np.zeros(count, np.uint8)
    native._public_read(staging, size, again, skip)  # the buffer is unmapped again: usable
    np.testing.assert_array_equal(again, out)


def test_an_unknown_wgpu_falls_back_to_the_public_api(device, monkeypatch):
    monkeypatch.setattr(wgpu, "__version__", "9.9.9")
    read = native.reader(device)
    assert read is native._public_read
    data = np.arange(16, dtype=np.uint8)
    out = np.zeros(8, np.uint8)
    read(staged(device, data), 16, out, 8)
    np.testing.assert_array_equal(out, data[8:])


@pytest.mark.parametrize("make", [native.recorder, native.PublicPassRecorder])
def test_dispatches_recorded_either_way_compute_the_same(make, monkeypatch):
    import jaxwg
    import jaxwg.numpy as jnp

    backend = jaxwg.devices("webgpu")[0].backend
    monkeypatch.setattr(backend.queue, "_record", make())
    x = np.linspace(-3, 3, 70007).astype(np.float32)
    f = jaxwg.jit(lambda v: jnp.sum(jnp.tanh(v) * 2.0 + v[::-1]) + v.reshape(7, 10001)[:, :5].T)
    out = np.asarray(f(jnp.asarray(x)))
    want = np.sum(np.tanh(x.astype(np.float64)) * 2 + x[::-1]) + x.reshape(7, 10001)[:, :5].T
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-3)


def test_the_known_wgpu_records_through_wgpu_native(monkeypatch):
    assert isinstance(native.recorder(), native.PassRecorder)
    monkeypatch.setattr(wgpu, "__version__", "9.9.9")
    assert isinstance(native.recorder(), native.PublicPassRecorder)
