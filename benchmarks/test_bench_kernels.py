"""pytest-benchmark suite: the `backend.py` workloads at modest sizes (1M float32).

    python3 -m pytest benchmarks -q -n 0                 # timings table at the end
    python3 -m pytest benchmarks -q -n 0 --benchmark-disable  # correctness only

Not part of the default test run (pyproject's testpaths are tests/ and jaxwg/).
Every row of `WORKLOADS` is timed by `test_jaxwg`, `test_numpy` and `test_jax` (when
JAX is importable and the row has a JAX version) under the row's benchmark group, so
the three appear side by side. No timing is asserted; each jaxwg result is checked
against NumPy. A jaxwg round is its dispatches + `synchronize()`, so it includes at
least one queue round trip (~0.1-0.3 ms on the software adapters).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

import kernels as K
import numpy as np
import pytest

N = 1 << 20
ROWS = COLS = 1024
TINY = 64
TINY_BATCH = 100

try:
    import jax
    import jax.numpy as jnp
except Exception:  # noqa: BLE001 - JAX benchmarks are skipped
    jax = jnp = None

needs_jax = pytest.mark.skipif(jax is None, reason="jax is not importable")


@dataclass(frozen=True)
class Workload:
    name: str  # test id
    group: str  # benchmark group shared by the jaxwg, NumPy and JAX timings
    kernel: Callable[[], K.Kernel]
    inputs: tuple[np.ndarray, ...]
    numpy: Callable[..., np.ndarray]  # timed, and (in float64) the reference for jaxwg
    jax: Callable | None  # jitted; None: no JAX timing
    nbytes: int  # memory traffic of one call, for the GB/s column
    rtol: float = 1e-5
    atol: float = 1e-5
    calls: int = 1  # calls per timed round
    sync_each: bool = False  # wait after every call, not once per round


def _tiny_batch(name: str, label: str, sync_each: bool) -> Workload:
    """Dispatch overhead: `TINY_BATCH` calls of x + 1 on `TINY` floats per round."""
    return Workload(f"tiny_{name}", f"dispatch: {TINY_BATCH} tiny kernels, {label}", partial(K.tiny, TINY),
                    (np.zeros(TINY, np.float32),), numpy=lambda v: v + 1.0, jax=lambda v: v + 1.0,
                    nbytes=2 * TINY * 4, calls=TINY_BATCH, sync_each=sync_each)


X = K.random_input(N, seed=1)
M = K.random_input((ROWS, COLS), seed=2, low=0.0, high=1.0)

WORKLOADS = [
    Workload("exp2", "elementwise exp(x)*2, 1M", partial(K.elementwise_exp2, N), (X,),
             numpy=K.np_exp2, jax=lambda v: jnp.exp(v) * 2.0, nbytes=2 * N * 4),
    Workload("chain8", "elementwise 8-op chain, 1M", partial(K.chain8, N), (X,),
             numpy=K.np_chain8, jax=lambda v: K.jnp_chain8(jnp, v), nbytes=2 * N * 4),
    Workload("fill", "fill, 1M", partial(K.fill, N, 3.5), (),
             numpy=partial(np.full, N, 3.5, np.float32), jax=None, nbytes=N * 4),
    Workload("row_sum", f"row sum {ROWS}x{COLS}", partial(K.row_sum, ROWS, COLS), (M,),
             numpy=partial(np.sum, axis=1), jax=lambda v: v.sum(axis=1), nbytes=ROWS * COLS * 4,
             rtol=1e-4, atol=1e-3),
    Workload("full_sum", "full sum 1M", partial(K.full_sum, N), (M.reshape(-1),),
             numpy=np.sum, jax=lambda v: v.sum(), nbytes=N * 4, rtol=1e-4, atol=1e-3),
    _tiny_batch("batched", "one sync", sync_each=False),
    _tiny_batch("sync_each", "sync each", sync_each=True),
]


@pytest.fixture(scope="module")
def be():
    from jaxwg.backend import get_backend

    try:
        return get_backend("webgpu")
    except RuntimeError as e:  # no adapter at all
        pytest.skip(f"no WebGPU adapter: {e}")


def _start(benchmark, w: Workload) -> None:
    benchmark.group = w.group
    benchmark.extra_info["calls_per_round"] = w.calls


def _record_bandwidth(benchmark, w: Workload) -> None:
    nbytes = w.nbytes * w.calls
    benchmark.extra_info["bytes"] = nbytes
    stats = getattr(benchmark, "stats", None)
    if stats is not None and getattr(stats, "stats", None) is not None and stats.stats.min > 0:
        benchmark.extra_info["GB/s (best)"] = round(nbytes / stats.stats.min / 1e9, 3)


@pytest.mark.parametrize("w", WORKLOADS, ids=lambda w: w.name)
def test_jaxwg(benchmark, be, w):
    _start(benchmark, w)
    kernel = w.kernel()
    exe = be.prepare(kernel)
    slots = [be.upload(a) for a in w.inputs]
    out = be.malloc(max(4, kernel.size * 4))
    run = K.dispatch_each_sync if w.sync_each else K.dispatch_many
    try:
        benchmark(run, be, exe, slots, out, w.calls)
        _record_bandwidth(benchmark, w)
        benchmark.extra_info["submits"] = be.queue.submits
        got = be.download(out, kernel.dtype, kernel.size)
        # float64 reference: the exact answer, not NumPy's float32 rounding of it
        ref = w.numpy(*(a.astype(np.float64) for a in w.inputs))
        np.testing.assert_allclose(got, np.reshape(ref, -1), rtol=w.rtol, atol=w.atol)
    finally:
        be.decref(out)
        for s in slots:
            be.decref(s)


@pytest.mark.parametrize("w", WORKLOADS, ids=lambda w: w.name)
def test_numpy(benchmark, w):
    _start(benchmark, w)

    def run():
        for _ in range(w.calls):
            w.numpy(*w.inputs)

    benchmark(run)
    _record_bandwidth(benchmark, w)


@needs_jax
@pytest.mark.parametrize("w", [w for w in WORKLOADS if w.jax is not None], ids=lambda w: w.name)
def test_jax(benchmark, w):
    _start(benchmark, w)
    f = jax.jit(w.jax)
    args = [jax.device_put(a) for a in w.inputs]
    f(*args).block_until_ready()  # compile outside the timing

    def run():
        for _ in range(w.calls):
            r = f(*args)
            if w.sync_each:
                r.block_until_ready()
        r.block_until_ready()

    benchmark(run)
    _record_bandwidth(benchmark, w)


# -- compile: not a jaxwg / NumPy / JAX comparison of one workload ---------------------
@pytest.mark.benchmark(group="compile: prepare new kernel")
@pytest.mark.parametrize("new_kernel", [K.unique_kernel, K.unique_reduction], ids=["elementwise", "reduction"])
def test_prepare_new(benchmark, be, new_kernel):
    before = be.pipelines_compiled
    benchmark.pedantic(be.prepare, setup=lambda: ((new_kernel(),), {}), rounds=10)
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
