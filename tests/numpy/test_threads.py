"""Threads sharing jaxwg: eager work, jit calls and tracing side by side.

Each thread has its own trace stack (as in JAX), and each backend serializes its
bookkeeping and device queue, so concurrent threads get the results they would get
alone. The interpreter switches threads every microsecond here, so that the
interleavings that used to break (an eager op staged into another thread's trace,
a dispatch recorded into a pass another thread was ending) happen within a few calls.
"""

import sys
import threading

import numpy as np
import pytest

import jaxwg
import jaxwg.numpy as jnp
from jaxwg.errors import UnexpectedTracerError

N_THREADS = 4


@pytest.fixture(autouse=True)
def fast_switching():
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        yield
    finally:
        sys.setswitchinterval(old)


def run_threads(*workers):
    """Start `workers` (functions of no arguments) together; re-raise the first failure."""
    barrier = threading.Barrier(len(workers))
    failures = []

    def run(work):
        barrier.wait()
        try:
            work()
        except BaseException as e:  # noqa: BLE001 - reported in the main thread
            failures.append(e)

    threads = [threading.Thread(target=run, args=(w,)) for w in workers]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if failures:
        raise failures[0]


def eager_sums(seed, rounds=20):
    """Sums of a fresh array per round, each checked against NumPy."""
    def work():
        rng = np.random.default_rng(seed)
        for _ in range(rounds):
            x = rng.standard_normal(1000).astype(np.float32)
            got = float(jnp.sum(jnp.asarray(x) * 2.0 + 1.0))
            np.testing.assert_allclose(got, np.sum(x * 2.0 + 1.0), rtol=1e-4, atol=1e-3)
    return work


def _chain(m, v):
    """Too many ops to recompute per reader: realizing it writes a buffer."""
    return m.tanh(m.sin(m.exp(v) * 0.5 + 1.0) - 0.25)


def shared_views(shared, want, k, rounds=3):
    """Views of one unrealized array that other threads read too: the first thread to
    realize it rewrites its node in place while the others lower ops onto it."""
    def work():
        for _ in range(rounds):
            got = np.asarray((shared + k).reshape(-1)[::2])
            np.testing.assert_allclose(got, (want + k).reshape(-1)[::2], rtol=1e-5)
    return work


def jit_calls(f, seed, rounds=25):
    """Calls of the shared `f` (cached) and of a fresh jitted function (traced here)."""
    def work():
        rng = np.random.default_rng(seed)
        for _ in range(rounds):
            x = rng.standard_normal(500).astype(np.float32)
            g = jaxwg.jit(lambda a: jnp.max(a) - 1.0)
            got = float(f(jnp.asarray(x), jnp.asarray(x))), float(g(jnp.asarray(x)))
            want = np.sum(x * x + 1.0), np.max(x) - 1.0
            np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-3)
    return work


def jaxpr_traces(k, rounds=30):
    def work():
        for _ in range(rounds):
            jaxpr = jaxwg.make_jaxpr(lambda x: jnp.sin(x) * 2.0 + k)(jnp.ones(3))
            assert [e.primitive.name for e in jaxpr.eqns] == ["sin", "mul", "add"], str(jaxpr)
    return work


def test_eager_work_in_threads(platform):
    x = np.linspace(-1, 1, 64, dtype=np.float32).reshape(8, 8)
    # The CPU's races need more rounds to show; reads on software GPU adapters are slow.
    for _ in range(12 if platform == "cpu" else 5):
        shared = _chain(jnp, jnp.asarray(x)).T
        run_threads(*[eager_sums(seed, rounds=1) for seed in range(N_THREADS)],
                    *[shared_views(shared, _chain(np, x).T, k) for k in range(N_THREADS)])


def test_eager_work_beside_tracing_threads(platform):
    # The eager threads must not see the other threads' traces.
    run_threads(eager_sums(0), eager_sums(1), jaxpr_traces(1), jaxpr_traces(2))


def test_jit_calls_in_threads(platform):
    f = jaxwg.jit(lambda x, y: jnp.sum(x * y + 1.0))
    run_threads(*[jit_calls(f, seed) for seed in range(N_THREADS)])


def test_make_jaxpr_in_threads(platform):
    run_threads(*[jaxpr_traces(k) for k in range(N_THREADS)])


def test_tracer_from_another_thread_is_unexpected(platform):
    # A tracer handed to a thread that is not tracing its function is a leak there.
    inside, done = threading.Event(), threading.Event()
    box = []

    def trace():
        def f(x):
            box.append(x)
            inside.set()
            done.wait(5)
            return x
        jaxwg.make_jaxpr(f)(jnp.ones(2))

    tracer = threading.Thread(target=trace)
    tracer.start()
    try:
        assert inside.wait(5)
        with pytest.raises(UnexpectedTracerError):
            box[0] + 1
    finally:
        done.set()
        tracer.join()
