"""The backend contract: nullary fast path, memory accounting, large arrays, bad input."""

import gc

import numpy as np
import pytest

from jaxwg.backend import UnsupportedDtypeError
from jaxwg.backend.webgpu.backend import WebGPUBackend
from jaxwg.backend.webgpu.buffers import PoolConfig
from jaxwg.core import alu
from jaxwg.core import dtypes as dt
from jaxwg.core.alu import Op
from jaxwg.core.kernel import Kernel, Reduction

from .helpers import assert_equal_values, run_kernel


def fill(n: int, dtype: dt.DType, value) -> Kernel:
    return Kernel(0, n, alu.const(dtype, value))


@pytest.mark.smoke
def test_fills_with_different_constants_share_one_pipeline(webgpu):
    run_kernel(webgpu, fill(777, dt.float32, 0.5), [])
    before = webgpu.pipelines_compiled
    for i in range(100):
        out = run_kernel(webgpu, fill(777, dt.float32, i + 0.25), [])
        assert_equal_values(out, np.full(777, i + 0.25, np.float32))
    assert webgpu.pipelines_compiled == before


@pytest.mark.parametrize("dtype", [dt.bool_, dt.int32, dt.uint32, dt.float16, dt.float32], ids=str)
def test_nullary_constants_of_every_dtype(backend, dtype):
    if not backend.supports(dtype):
        pytest.skip(f"no {dtype}")
    value = {dt.bool_: True, dt.int32: -7, dt.uint32: 4_000_000_000, dt.float16: 1.5, dt.float32: -0.0}[dtype]
    out = run_kernel(backend, fill(33, dtype, value), [])
    assert_equal_values(out, np.full(33, value, dtype.np))
    if dtype is dt.float32:
        assert np.signbit(out).all()  # -0.0 survives the trip through an immediate


def test_iota_and_eye(backend):
    n = 5
    i = alu.gidx(n * n)
    eye = alu.where((i // n).ne(i % n), alu.const(dt.float32, 0.0), alu.const(dt.float32, 1.0))
    assert_equal_values(run_kernel(backend, Kernel(0, n * n, eye), []), np.eye(n, dtype=np.float32).ravel())
    iota = run_kernel(backend, Kernel(0, 1000, alu.cast(dt.float32, alu.gidx(1000)) * 0.5), [])
    assert_equal_values(iota, np.arange(1000, dtype=np.float32) * 0.5)


def test_elementwise_beyond_65535_workgroups(webgpu):
    n = 65_536 * 256 + 5
    out = run_kernel(webgpu, Kernel(0, n, alu.gidx(n) * 3), [])
    assert out[-1] == (n - 1) * 3 and out[12345] == 12345 * 3
    assert_equal_values(out[::4099], (np.arange(n, dtype=np.int32) * 3)[::4099])


@pytest.mark.parametrize("nbytes", [0, 1, 3, 5])
def test_odd_and_zero_sizes(backend, nbytes):
    data = np.arange(nbytes, dtype=np.uint8)
    slot = backend.malloc(nbytes, data)
    assert backend.read(slot) == data.tobytes()
    backend.decref(slot)


def test_bool_inputs_and_outputs_with_odd_sizes(backend):
    x = np.array([True, False, True], bool)
    out = run_kernel(backend, Kernel(1, 3, ~alu.load(0, dt.bool_, alu.gidx(3))), [x])
    assert_equal_values(out, ~x)


def test_live_slots_return_to_baseline(backend):
    gc.collect()  # arrays of earlier tests, and the recorded work holding them, let go first
    backend.synchronize()
    before = backend.memory_stats()["live_slots"]
    x = np.random.default_rng(0).normal(size=4096).astype(np.float32)
    for _ in range(50):
        run_kernel(backend, Kernel(1, 4096, alu.load(0, dt.float32, alu.gidx(4096)) * 2.0), [x])
        run_kernel(backend, Kernel(1, 1, alu.load(0, dt.float32, alu.ridx(4096)),
                                   Reduction(Op.ADD, dt.float32, 4096)), [x])
    backend.synchronize()
    assert backend.memory_stats()["live_slots"] == before


def test_pool_reuses_buffers_and_respects_caps(webgpu):
    be = WebGPUBackend(webgpu.device, PoolConfig(max_buffers_per_class=2, max_total_pooled_bytes=1 << 20,
                                                max_bytes_per_class=0))
    x = np.ones(1000, np.float32)
    k = Kernel(1, 1000, alu.load(0, dt.float32, alu.gidx(1000)) + 1.0)
    run_kernel(be, k, [x])
    created = be.memory_stats()["num_buffers_created"]
    for _ in range(20):
        run_kernel(be, k, [x])
    stats = be.memory_stats()
    assert stats["num_buffers_created"] == created  # every later buffer came from the pool
    assert stats["pool_hits"] >= 40
    slots = [be.malloc(4000) for _ in range(5)]
    for s in slots:
        be.decref(s)
    be.synchronize()
    assert be.slots.pool.num_pooled(4000) <= 2
    assert be.memory_stats()["bytes_pooled"] <= 1 << 20


def test_arrays_larger_than_one_binding(webgpu):
    """Inputs and outputs past the storage-binding limit are windowed, not refused."""
    n = webgpu.window_bytes // 4 + 1000  # just past one binding of float32
    x = np.arange(n, dtype=np.float32)
    out = run_kernel(webgpu, Kernel(1, n, alu.load(0, dt.float32, alu.gidx(n)) * 2.0), [x])
    assert out[-1] == x[-1] * 2 and out[0] == 0.0
    assert_equal_values(out[::997], x[::997] * 2)
    last = run_kernel(webgpu, Kernel(1, 1, alu.load(0, dt.float32, alu.gidx(1) + (n - 1))), [x])
    assert last[0] == n - 1


def test_missing_input_is_a_clear_error():
    with pytest.raises(ValueError, match="reads input 1 but is given only 1"):
        Kernel(1, 4, alu.load(1, dt.float32, alu.gidx(4)))


def test_wrong_number_of_slots(backend):
    exe = backend.prepare(Kernel(1, 4, alu.load(0, dt.float32, alu.gidx(4))))
    out = backend.malloc(16)
    with pytest.raises(ValueError, match="takes 1 input"):
        backend.dispatch(exe, [], [out])
    small = backend.malloc(8)
    with pytest.raises(ValueError, match="output slot has 8 bytes"):
        backend.dispatch(exe, [out], [small])
    backend.decref(out)
    backend.decref(small)


def test_dtype_the_device_lacks_is_a_clear_error(webgpu, monkeypatch):
    monkeypatch.setattr(webgpu.device, "features", frozenset())
    with pytest.raises(UnsupportedDtypeError, match="float16.*shader-f16.*" + webgpu.describe()[:8]):
        webgpu.prepare(Kernel(1, 4, alu.load(0, dt.float16, alu.gidx(4))))
    with pytest.raises(UnsupportedDtypeError, match="float64"):
        webgpu.prepare(fill(4, dt.float64, 1.0))
    # float64's IEEE guards read its bits as u64: shader-f64 alone is not enough
    monkeypatch.setattr(webgpu.device, "features", frozenset({"shader-f64"}))
    assert not webgpu.supports(dt.float64)
    with pytest.raises(UnsupportedDtypeError, match="float64.*'shader-int64'"):
        webgpu.prepare(fill(4, dt.float64, 1.0))


def test_sizes_over_the_device_limits_are_clear_errors(webgpu):
    before = webgpu.memory_stats()["live_slots"]
    limit = webgpu.device.max_buffer_bytes
    with pytest.raises(ValueError, match="maximum buffer size"):
        webgpu.prepare(fill(limit // 4 + 1, dt.float32, 1.0))
    with pytest.raises(RuntimeError, match=str(limit)):
        webgpu.malloc(limit + 4)
    assert webgpu.memory_stats()["live_slots"] == before


@pytest.mark.parametrize("dtype", [dt.float16, dt.float32, dt.float64], ids=str)
def test_ieee_identities_survive_finite_math_compilers(backend, dtype):
    """Mesa's compilers fold x - x and x * 0.0 to 0; infinities and NaN must give NaN."""
    if not backend.supports(dtype):
        pytest.skip(f"no {dtype}")
    x = np.array([np.inf, -np.inf, np.nan, 0.0, -0.0, 1.5, -2.0, 7.0], dtype.np)
    v = alu.load(0, dtype, alu.gidx(x.size))
    with np.errstate(invalid="ignore"):
        cases = ((v - v, x - x), (v * 0.0, x * dtype.np.type(0.0)), (v * -0.0, x * dtype.np.type(-0.0)))
    for exp, want in cases:
        out = run_kernel(backend, Kernel(1, x.size, exp), [x])
        assert_equal_values(out, want.astype(dtype.np))
        assert (np.signbit(out) == np.signbit(want))[~np.isnan(want)].all()


@pytest.mark.smoke
@pytest.mark.parametrize("n", [4096, 4097, 4098, 4099])
def test_vectorized_elementwise_mixes_vec4_and_scalar_inputs(backend, n):
    """WebGPU computes four outputs per thread with vec4 access; past the last multiple
    of 4 a thread stores only the lanes below the size."""
    rng = np.random.default_rng(7)
    x = rng.normal(size=n).astype(np.float32)
    c = rng.random(n) < 0.5
    table = np.arange(7, dtype=np.int32)
    g = alu.gidx(n)
    exp = alu.where(alu.load(1, dt.bool_, g), alu.load(0, dt.float32, g) * 2.0,
                    alu.cast(dt.float32, alu.load(2, dt.int32, g % 7)))
    out = run_kernel(backend, Kernel(3, n, exp), [x, c, table])
    assert_equal_values(out, np.where(c, x * 2, table[np.arange(n) % 7].astype(np.float32)))
    mask = run_kernel(backend, Kernel(1, n, alu.load(0, dt.float32, g).lt(0.0)), [x])
    assert_equal_values(mask, x < 0)
    if backend.name == "webgpu":
        exe = backend.prepare(Kernel(3, n, exp))
        assert exe.passes[0].tuning.vector == 4
        # the output is bound in whole vec4s, so that the last store is in bounds
        (output,) = backend.launch_for(exe, 0, (x.nbytes, c.size * 4, table.nbytes)).outputs
        assert output[1] == -(-n // 4) * 16


def test_vectorized_elementwise_beyond_65535_workgroups(webgpu):
    n = 65_536 * 64 * 4 + 1024  # four outputs per thread, 64 threads per workgroup
    out = run_kernel(webgpu, Kernel(0, n, alu.gidx(n) * 3 + 1), [])
    assert out[-1] == (n - 1) * 3 + 1
    assert_equal_values(out[::4097], (np.arange(n, dtype=np.int32) * 3 + 1)[::4097])
