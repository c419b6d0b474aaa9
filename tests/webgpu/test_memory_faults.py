"""Out of device memory, buffers past the adapter's limit, and a lost device.

Running out of memory is made deterministic with a memory limit on a backend of the
test's own (`WebGPUBackend(memory_limit=...)`, or `JAXWG_WEBGPU_MEMORY_LIMIT` in a
subprocess); the real out-of-memory path is checked on the software adapter under an
address-space limit. Device loss is simulated with wgpu's `device.destroy()`, on a
device of the test's own or in a subprocess, so the shared backend is never touched.
"""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import wgpu

import jaxwg.numpy as jnp
from jaxwg.backend.base import DeviceLostError, ResourceExhaustedError
from jaxwg.backend.webgpu.backend import WebGPUBackend
from jaxwg.backend.webgpu.buffers import (
    MEMORY_LIMIT_ENV_VAR,
    is_out_of_memory,
    memory_limit_from_env,
    parse_bytes,
)
from jaxwg.backend.webgpu.device import WebGPUDevice, device_lost_cause, get_device
from jaxwg.core import alu, dtypes as dt
from jaxwg.core.kernel import Kernel

KiB = 1 << 10
MiB = 1 << 20
OOM = "RESOURCE_EXHAUSTED: Out of memory while trying to allocate"


def plus_one(n: int) -> Kernel:
    return Kernel(1, n, alu.load(0, dt.float32, alu.gidx(n)) + 1.0)


def assert_computes(backend: WebGPUBackend) -> None:
    """The backend still allocates, computes and reads back correct values."""
    x = backend.upload(np.arange(8, dtype=np.float32))
    out = backend.malloc(32)
    backend.dispatch(backend.prepare(plus_one(8)), [x], [out])
    np.testing.assert_array_equal(backend.download(out, dt.float32, 8), np.arange(1, 9))
    backend.decref(x)
    backend.decref(out)


def run_python(code: str, **env) -> subprocess.CompletedProcess:
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, timeout=300, env={**os.environ, **env})
    assert done.returncode == 0, done.stdout + done.stderr
    return done


# --- the memory limit ---------------------------------------------------------------


def test_parse_bytes_and_the_environment_variable(monkeypatch):
    assert parse_bytes("1024") == 1024
    assert parse_bytes(" 3 KiB ") == 3 * KiB
    assert parse_bytes("512mib") == 512 * MiB
    assert parse_bytes("2GB") == 2 * 10**9
    for bad in ("", "1.5GiB", "-4", "12 parsecs", "MiB"):
        with pytest.raises(ValueError, match="not a byte count"):
            parse_bytes(bad)
    monkeypatch.delenv(MEMORY_LIMIT_ENV_VAR, raising=False)
    assert memory_limit_from_env() is None
    monkeypatch.setenv(MEMORY_LIMIT_ENV_VAR, "64MiB")
    assert memory_limit_from_env() == 64 * MiB
    assert WebGPUBackend().memory_stats()["bytes_limit"] == 64 * MiB
    monkeypatch.setenv(MEMORY_LIMIT_ENV_VAR, "lots")
    with pytest.raises(ValueError, match=MEMORY_LIMIT_ENV_VAR):
        memory_limit_from_env()


def test_out_of_memory_frees_the_pool_and_retries():
    be = WebGPUBackend(memory_limit=1 * MiB)
    keep, *dropped = (be.malloc(256 * KiB) for _ in range(3))
    for slot in dropped:
        be.decref(slot)
    assert be.memory_stats()["bytes_pooled"] == 512 * KiB
    created = be.memory_stats()["num_buffers_created"]
    # 768 KiB of buffers exist; 640 KiB more fit only once the pooled 512 KiB are freed.
    data = np.arange(600 * KiB // 4, dtype=np.float32)
    big = be.malloc(data.nbytes, data)
    stats = be.memory_stats()
    assert stats["bytes_pooled"] == 0
    assert stats["bytes_reserved"] == 256 * KiB + 640 * KiB
    assert stats["num_buffers_created"] == created + 1
    np.testing.assert_array_equal(be.download(big, dt.float32, data.size), data)
    be.decref(keep)
    be.decref(big)


def test_out_of_memory_after_the_retry_names_the_size_and_the_stats():
    be = WebGPUBackend(memory_limit=1 * MiB)
    held = be.malloc(768 * KiB)
    before = be.memory_stats()
    with pytest.raises(ResourceExhaustedError) as info:
        be.malloc(300 * KiB)
    message = str(info.value)
    assert isinstance(info.value, RuntimeError)  # as JAX's XlaRuntimeError
    assert message.startswith(f"{OOM} {300 * KiB} bytes (a buffer of {320 * KiB} bytes) on "
                              f"{be.describe()}")
    assert f"the memory limit is {MiB} bytes ({MEMORY_LIMIT_ENV_VAR})" in message
    assert "Every pooled buffer was freed and the allocation retried" in message
    for key in ("bytes_in_use", "bytes_pooled", "bytes_reserved", "bytes_limit", "live_slots"):
        assert f"{key}={before[key]}" in message
    after = be.memory_stats()
    assert after["live_slots"] == before["live_slots"]
    assert after["bytes_reserved"] == before["bytes_reserved"]
    assert_computes(be)  # smaller allocations still fit
    assert be.memory_stats()["live_slots"] == before["live_slots"]
    be.decref(held)


def test_an_upload_that_does_not_fit_leaves_nothing_allocated():
    be = WebGPUBackend(memory_limit=1 * MiB)
    with pytest.raises(ResourceExhaustedError, match=f"{OOM} {2 * MiB} bytes"):
        be.upload(np.zeros(2 * MiB // 4, np.float32))
    stats = be.memory_stats()
    assert stats["live_slots"] == 0 and stats["bytes_reserved"] == 0
    assert_computes(be)


def test_the_retry_frees_buffers_that_recorded_work_held():
    be = WebGPUBackend(memory_limit=1 * MiB)
    n = 64 * KiB  # 256 KiB of float32
    x = be.upload(np.zeros(n, np.float32))
    out = be.malloc(4 * n)
    be.dispatch(be.prepare(plus_one(n)), [x], [out])
    be.decref(x)
    be.decref(out)  # both still held by the unsubmitted dispatch
    assert be.queue.pending == 1 and be.memory_stats()["bytes_reserved"] == 512 * KiB
    slot = be.malloc(700 * KiB)  # fits once the dispatch ran and its buffers were freed
    assert be.queue.pending == 0
    assert be.memory_stats()["bytes_reserved"] == 768 * KiB
    be.decref(slot)


def test_wgpu_out_of_memory_errors_are_recognised():
    lavapipe = wgpu.GPUValidationError("Validation Error\n\nCaused by:\n  In wgpuDeviceCreateBuffer\n"
                                       "    Not enough memory left.")
    assert is_out_of_memory(lavapipe)
    assert is_out_of_memory(wgpu.GPUOutOfMemoryError("Out of memory"))
    assert not is_out_of_memory(wgpu.GPUValidationError("Buffer size 3 is not aligned"))
    assert not is_out_of_memory(MemoryError())


def test_a_real_out_of_memory_error_takes_the_same_path():
    """Under an address-space limit lavapipe's buffers run out of host memory: wgpu raises
    "Not enough memory left." from create_buffer. Nothing is written to the buffers, so
    no memory is touched. Only on the software adapter, whose buffers are host memory."""
    if not get_device().is_software:
        pytest.skip("buffers of a GPU are not in the process's address space")
    done = run_python(f"""
        import resource
        from jaxwg.backend.base import ResourceExhaustedError
        from jaxwg.backend.webgpu.backend import WebGPUBackend
        MiB = 1 << 20
        be = WebGPUBackend()
        status = open("/proc/self/status").read()
        size = int(status.split("VmSize:")[1].split()[0]) * 1024
        resource.setrlimit(resource.RLIMIT_AS, (size + 1536 * MiB,) * 2)
        keep, dropped = be.malloc(512 * MiB), be.malloc(512 * MiB)
        be.decref(dropped)  # pooled: the next allocation fits only once it is freed
        big = be.malloc(768 * MiB)
        assert be.memory_stats()["bytes_pooled"] == 0
        try:
            be.malloc(1024 * MiB)
        except ResourceExhaustedError as e:
            print(e)
        be.decref(big)
        assert be.memory_stats()["live_slots"] == 1
    """)
    assert done.stdout.startswith(f"{OOM} {1024 * MiB} bytes on ")
    assert "Not enough memory left" in done.stdout and "bytes_in_use=" in done.stdout


def test_arrays_past_the_memory_limit_raise_and_jaxwg_goes_on():
    """Through jnp, with the limit from the environment: an array that cannot fit
    raises JAX's error and leaks nothing; one that fits once the pool is freed works."""
    done = run_python("""
        import numpy as np
        import jaxwg, jaxwg.numpy as jnp
        from jaxwg.errors import ResourceExhaustedError
        device = jaxwg.devices()[0]
        a = jnp.ones(10 << 20).block_until_ready()  # 40 MiB of 64
        live = device.memory_stats()["live_slots"]
        try:
            (a + 1).block_until_ready()
        except ResourceExhaustedError as e:
            print(str(e).splitlines()[0])
        assert device.memory_stats()["live_slots"] == live
        del a  # its buffer is pooled, then freed for 48 MiB
        print(device.memory_stats()["bytes_pooled"] >> 20)
        b = (jnp.arange(12 << 20, dtype=jnp.float32) * 2).block_until_ready()
        print(device.memory_stats()["bytes_pooled"] >> 20)
        assert float(b[-1]) == 2 * ((12 << 20) - 1)
    """, **{MEMORY_LIMIT_ENV_VAR: "64MiB", "JAXWG_PLATFORMS": "webgpu"})
    first, *pooled_mib = done.stdout.splitlines()
    assert first.startswith(f"{OOM} {40 * MiB} bytes on ")
    assert pooled_mib == ["40", "0"]


# --- buffers past the adapter's limit ------------------------------------------------


def test_arrays_past_the_largest_buffer_name_the_limit_and_the_adapter(webgpu):
    limit = webgpu.device.max_buffer_bytes
    if limit > 1 << 32:
        pytest.skip("the host array would be too large")
    n = limit // 4 + 16
    before = webgpu.memory_stats()["live_slots"]
    with pytest.raises(ValueError, match=rf"{4 * n} bytes exceeds the maximum buffer size {limit}") as info:
        jnp.zeros(n, jnp.float32).block_until_ready()
    assert webgpu.describe() in str(info.value)
    with pytest.raises(RuntimeError, match=rf"cannot allocate {4 * n} bytes.* is {limit} bytes") as info:
        jnp.asarray(np.zeros(n, np.float32))  # zeros from calloc: never touched
    assert webgpu.describe() in str(info.value)
    assert webgpu.memory_stats()["live_slots"] == before


# --- a lost device -------------------------------------------------------------------


def test_a_lost_device_raises_at_the_next_use():
    device = WebGPUDevice(get_device().adapter)
    be = WebGPUBackend(device)
    x = be.upload(np.arange(4, dtype=np.float32))
    exe = be.prepare(plus_one(4))
    device.device.destroy()
    with pytest.raises(DeviceLostError, match="was lost") as info:
        be.read(x)
    message = str(info.value)
    assert device.describe() in message and "clear_backends()" in message
    assert device_lost_cause(info.value) is not None  # wgpu's own error is the cause
    assert device.lost is not None
    # Known lost: every use fails at once, even those that would not reach the device.
    out = None
    with pytest.raises(DeviceLostError):
        out = be.malloc(16)
    with pytest.raises(DeviceLostError):
        be.dispatch(exe, [x], [x])
    with pytest.raises(DeviceLostError):
        be.synchronize()
    assert out is None
    be.decref(x)  # dropping what was on it is quiet
    assert be.memory_stats()["live_slots"] == 0


def test_clear_backends_opens_a_new_device_after_a_loss():
    done = run_python("""
        import numpy as np
        import jaxwg, jaxwg.numpy as jnp
        from jaxwg.errors import DeviceLostError
        x = jnp.arange(4.0)
        f = jaxwg.jit(lambda v: v * 2 + 1)
        assert f(x).tolist() == [1, 3, 5, 7]
        old = jaxwg.devices()[0]
        old.backend.device.device.destroy()
        for use in (lambda: np.asarray(x + 1), lambda: np.asarray(f(x)), lambda: jnp.ones(2).tolist()):
            try:
                use()
                print("no error")
            except DeviceLostError as e:
                print("lost", "clear_backends" in str(e))
        jaxwg.clear_backends()
        new = jaxwg.devices()[0]
        assert new is not old and new.backend is not old.backend
        y = jnp.arange(4.0)
        assert (y + 1).tolist() == [1, 2, 3, 4] and f(y).tolist() == [1, 3, 5, 7]
        try:
            x.tolist()  # made on the lost device
        except DeviceLostError:
            print("old array lost")
        print(new.memory_stats()["live_slots"])
    """, JAXWG_PLATFORMS="webgpu")
    assert done.stdout.splitlines() == ["lost True"] * 3 + ["old array lost", "1"]
