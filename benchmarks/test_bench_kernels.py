"""pytest-benchmark suite: the `run.py` workloads at modest sizes (1M float32).

    python3 -m pytest benchmarks -q                      # timings table at the end
    python3 -m pytest benchmarks -q --benchmark-disable  # correctness only, fast

Not part of the default test run (pyproject's testpaths are tests/ and jaxwg/).
Benchmarks are grouped by workload so jaxwg, NumPy and JAX (when importable) appear
side by side. No timing is asserted; each jaxwg result is checked against NumPy.
Elementwise and reduction timings are one dispatch + `synchronize()` per round, so
they include one queue round trip (~0.1-0.3 ms on the software adapters).
"""

from __future__ import annotations

import kernels as K
import numpy as np
import pytest

N = 1 << 20
ROWS = COLS = 1024
TINY_BATCH = 100

try:
    import jax
    import jax.numpy as jnp
except Exception:  # noqa: BLE001 - JAX benchmarks are skipped
    jax = jnp = None

needs_jax = pytest.mark.skipif(jax is None, reason="jax is not importable")


@pytest.fixture(scope="module")
def be():
    from jaxwg.backend import get_backend

    try:
        return get_backend("webgpu")
    except RuntimeError as e:  # no adapter at all
        pytest.skip(f"no WebGPU adapter: {e}")


@pytest.fixture(scope="module")
def x_np():
    return K.random_input(N, seed=1)


@pytest.fixture(scope="module")
def m_np():
    return K.random_input((ROWS, COLS), seed=2, low=0.0, high=1.0)


def _record_bandwidth(benchmark, nbytes: int) -> None:
    benchmark.extra_info["bytes"] = nbytes
    stats = getattr(benchmark, "stats", None)
    if stats is not None and getattr(stats, "stats", None) is not None and stats.stats.min > 0:
        benchmark.extra_info["GB/s (best)"] = round(nbytes / stats.stats.min / 1e9, 3)


def _bench_kernel(benchmark, be, kernel, host_inputs, ref, nbytes, rtol=1e-5, atol=1e-5):
    """Time one dispatch + synchronize of `kernel`, then check its output against `ref`."""
    exe = be.prepare(kernel)
    slots = [be.upload(a) for a in host_inputs]
    out = be.malloc(max(4, kernel.size * 4))
    try:
        def step():
            be.dispatch(exe, slots, [out])
            be.synchronize()

        benchmark(step)
        _record_bandwidth(benchmark, nbytes)
        benchmark.extra_info["submits"] = be.queue.submits
        got = be.download(out, kernel.dtype, kernel.size)
        np.testing.assert_allclose(got, np.asarray(ref, np.float32).reshape(-1), rtol=rtol, atol=atol)
    finally:
        be.decref(out)
        for s in slots:
            be.decref(s)


def _bench_jax(benchmark, f, *args):
    f = jax.jit(f)
    args = [jax.device_put(a) for a in args]
    f(*args).block_until_ready()
    return benchmark(lambda: f(*args).block_until_ready())


# -- compile ---------------------------------------------------------------------------
@pytest.mark.benchmark(group="compile: prepare new kernel")
def test_prepare_new_elementwise(benchmark, be):
    before = be.pipelines_compiled
    benchmark.pedantic(be.prepare, setup=lambda: ((K.unique_kernel(1024),), {}), rounds=10)
    assert be.pipelines_compiled > before  # every prepared kernel was new (one round with --benchmark-disable)


@pytest.mark.benchmark(group="compile: prepare new kernel")
def test_prepare_new_reduction(benchmark, be):
    before = be.pipelines_compiled
    benchmark.pedantic(be.prepare, setup=lambda: ((K.unique_reduction(64, 256),), {}), rounds=10)
    assert be.pipelines_compiled > before  # every prepared kernel was new (one round with --benchmark-disable)


@pytest.mark.benchmark(group="compile: prepare cached kernel")
def test_prepare_cached(benchmark, be):
    kernel = K.row_sum(64, 256)
    be.prepare(kernel)
    before = be.pipelines_compiled
    benchmark(be.prepare, kernel)
    assert be.pipelines_compiled == before


@pytest.mark.benchmark(group="compile: first dispatch of new kernel")
def test_first_dispatch_new_kernel(benchmark, be):
    x = be.upload(np.ones(1024, np.float32))
    out = be.malloc(1024 * 4)

    def setup():
        return (be.prepare(K.unique_kernel(1024)),), {}

    def first(exe):
        be.dispatch(exe, [x], [out])
        be.synchronize()

    benchmark.pedantic(first, setup=setup, rounds=10)
    got = be.download(out, K.F32, 1024)
    assert np.all(got >= 2.0) and np.all(got < 2.5)
    be.decref(x); be.decref(out)


@needs_jax
@pytest.mark.benchmark(group="compile: first dispatch of new kernel")
def test_jax_first_call_new_function(benchmark):
    x = jax.device_put(np.ones(1024, np.float32))
    def setup():
        c = K.unique_constant()
        return (jax.jit(lambda v: v * c + 1.0),), {}

    benchmark.pedantic(lambda f: f(x).block_until_ready(), setup=setup, rounds=10)


# -- dispatch overhead ---------------------------------------------------------------------
@pytest.mark.benchmark(group=f"dispatch: {TINY_BATCH} tiny kernels, one sync")
def test_tiny_batched(benchmark, be):
    kernel = K.tiny(64)
    exe = be.prepare(kernel)
    x = be.upload(np.zeros(64, np.float32))
    out = be.malloc(64 * 4)
    benchmark(K.dispatch_many, be, exe, [x], out, TINY_BATCH)
    benchmark.extra_info["dispatches_per_round"] = TINY_BATCH
    np.testing.assert_array_equal(be.download(out, K.F32, 64), np.ones(64, np.float32))
    be.decref(x); be.decref(out)


@pytest.mark.benchmark(group=f"dispatch: {TINY_BATCH} tiny kernels, sync each")
def test_tiny_sync_each(benchmark, be):
    kernel = K.tiny(64)
    exe = be.prepare(kernel)
    x = be.upload(np.zeros(64, np.float32))
    out = be.malloc(64 * 4)
    benchmark(K.dispatch_each_sync, be, exe, [x], out, TINY_BATCH)
    benchmark.extra_info["dispatches_per_round"] = TINY_BATCH
    np.testing.assert_array_equal(be.download(out, K.F32, 64), np.ones(64, np.float32))
    be.decref(x); be.decref(out)


@needs_jax
@pytest.mark.benchmark(group=f"dispatch: {TINY_BATCH} tiny kernels, one sync")
def test_jax_tiny_batched(benchmark):
    f = jax.jit(lambda v: v + 1.0)
    x = jax.device_put(np.zeros(64, np.float32))
    f(x).block_until_ready()

    def run():
        r = None
        for _ in range(TINY_BATCH):
            r = f(x)
        r.block_until_ready()

    benchmark(run)


@needs_jax
@pytest.mark.benchmark(group=f"dispatch: {TINY_BATCH} tiny kernels, sync each")
def test_jax_tiny_sync_each(benchmark):
    f = jax.jit(lambda v: v + 1.0)
    x = jax.device_put(np.zeros(64, np.float32))
    f(x).block_until_ready()

    def run():
        for _ in range(TINY_BATCH):
            f(x).block_until_ready()

    benchmark(run)


# -- elementwise ---------------------------------------------------------------------------
@pytest.mark.benchmark(group="elementwise exp(x)*2, 1M")
def test_exp2(benchmark, be, x_np):
    _bench_kernel(benchmark, be, K.elementwise_exp2(N), [x_np], K.np_exp2(x_np), 2 * N * 4)


@pytest.mark.benchmark(group="elementwise exp(x)*2, 1M")
def test_numpy_exp2(benchmark, x_np):
    benchmark(K.np_exp2, x_np)
    _record_bandwidth(benchmark, 2 * N * 4)


@needs_jax
@pytest.mark.benchmark(group="elementwise exp(x)*2, 1M")
def test_jax_exp2(benchmark, x_np):
    _bench_jax(benchmark, lambda v: jnp.exp(v) * 2.0, x_np)
    _record_bandwidth(benchmark, 2 * N * 4)


@pytest.mark.benchmark(group="elementwise 8-op chain, 1M")
def test_chain8(benchmark, be, x_np):
    _bench_kernel(benchmark, be, K.chain8(N), [x_np], K.np_chain8(x_np), 2 * N * 4)


@pytest.mark.benchmark(group="elementwise 8-op chain, 1M")
def test_numpy_chain8(benchmark, x_np):
    benchmark(K.np_chain8, x_np)
    _record_bandwidth(benchmark, 2 * N * 4)


@needs_jax
@pytest.mark.benchmark(group="elementwise 8-op chain, 1M")
def test_jax_chain8(benchmark, x_np):
    _bench_jax(benchmark, lambda v: K.jnp_chain8(jnp, v), x_np)
    _record_bandwidth(benchmark, 2 * N * 4)


@pytest.mark.benchmark(group="fill, 1M")
def test_fill(benchmark, be):
    _bench_kernel(benchmark, be, K.fill(N, 3.5), [], np.full(N, 3.5, np.float32), N * 4)


@pytest.mark.benchmark(group="fill, 1M")
def test_numpy_fill(benchmark):
    benchmark(np.full, N, 3.5, np.float32)
    _record_bandwidth(benchmark, N * 4)


# -- reductions ----------------------------------------------------------------------------
@pytest.mark.benchmark(group="row sum 1024x1024")
def test_row_sum(benchmark, be, m_np):
    ref = m_np.astype(np.float64).sum(axis=1)
    _bench_kernel(benchmark, be, K.row_sum(ROWS, COLS), [m_np], ref, ROWS * COLS * 4, rtol=1e-4, atol=1e-3)


@pytest.mark.benchmark(group="row sum 1024x1024")
def test_numpy_row_sum(benchmark, m_np):
    benchmark(m_np.sum, axis=1)
    _record_bandwidth(benchmark, ROWS * COLS * 4)


@needs_jax
@pytest.mark.benchmark(group="row sum 1024x1024")
def test_jax_row_sum(benchmark, m_np):
    _bench_jax(benchmark, lambda v: v.sum(axis=1), m_np)
    _record_bandwidth(benchmark, ROWS * COLS * 4)


@pytest.mark.benchmark(group="full sum 1M")
def test_full_sum(benchmark, be, m_np):
    flat = m_np.reshape(-1)
    ref = [flat.astype(np.float64).sum()]
    _bench_kernel(benchmark, be, K.full_sum(N), [flat], ref, N * 4, rtol=1e-4, atol=1e-3)


@pytest.mark.benchmark(group="full sum 1M")
def test_numpy_full_sum(benchmark, m_np):
    benchmark(m_np.sum)
    _record_bandwidth(benchmark, N * 4)


@needs_jax
@pytest.mark.benchmark(group="full sum 1M")
def test_jax_full_sum(benchmark, m_np):
    _bench_jax(benchmark, lambda v: v.sum(), m_np.reshape(-1))
    _record_bandwidth(benchmark, N * 4)
