"""jaxwg.profiler: every kernel in the trace, timed on the device where the backend
stamps dispatches (timing.py) and on the CPU otherwise, with what issued it."""

import json
import os

import numpy as np
import pytest

import jaxwg
import jaxwg.numpy as jnp
from jaxwg.backend.webgpu import timing
from jaxwg.frontend import execute


def _kernel_events(trace):
    return [e for e in trace["traceEvents"] if e["cat"] == "kernel"]


@pytest.mark.parametrize("platform", ["webgpu", "cpu"])
def test_every_kernel_is_in_the_trace_with_its_source(platform, tmp_path):
    device = jaxwg.devices(platform)[0]
    x = jaxwg.device_put(np.linspace(-1, 1, 4096, dtype=np.float32).reshape(64, 64), device)
    f = jaxwg.jit(lambda a: jnp.tanh(a) @ a.T + 1.0)
    want_f = np.tanh(np.asarray(x, np.float64)) @ np.asarray(x, np.float64).T + 1.0
    before = execute.counters["kernels"]
    jaxwg.profiler.start_trace(tmp_path)
    with jaxwg.profiler.TraceAnnotation("step", n=1):
        got_f = np.asarray(f(x))  # line A
        got_sum = float((x * 2.0).sum())  # line B
    path = jaxwg.profiler.stop_trace()
    dispatched = execute.counters["kernels"] - before
    np.testing.assert_allclose(got_f, want_f, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(got_sum, 2 * np.asarray(x, np.float64).sum(), atol=1e-3)
    with open(path) as file:
        trace = json.load(file)
    assert trace == jaxwg.profiler.last_trace() and os.path.dirname(path) == str(tmp_path)
    kernels = _kernel_events(trace)
    device_timed = platform == "webgpu" and timing.FEATURE in device.backend.device.features
    assert len(kernels) >= dispatched > 0  # a split reduction is two dispatches of one kernel
    assert {e["tid"] for e in kernels} == {"kernels (device clock)" if device_timed else "kernels (CPU-timed)"}
    assert all(e["dur"] >= 0 and e["pid"] == device.name for e in kernels)
    lines = {e["args"]["source"].rsplit(":", 1)[1] for e in kernels}
    here = open(__file__).read().splitlines()
    assert {here[int(n) - 1].split("# ")[-1] for n in lines} == {"line A", "line B"}
    assert {e["args"]["issued by"] for e in kernels} == {"jit <lambda>", "flush"}
    spans = [e for e in trace["traceEvents"] if e["cat"] == "annotation"]
    assert [(e["name"], e["args"]["n"]) for e in spans] == [("step", 1)]


def test_more_dispatches_than_the_query_set_holds(monkeypatch, tmp_path):
    backend = jaxwg.devices("webgpu")[0].backend
    if timing.FEATURE not in backend.device.features:
        pytest.skip(f"{backend.describe()} cannot stamp inside passes")
    monkeypatch.setattr(timing, "CAPACITY", 3)
    x = jnp.arange(16.0)
    with jaxwg.profiler.trace(tmp_path):
        outs = [(x + float(i)).block_until_ready() for i in range(8)]
    kernels = _kernel_events(jaxwg.profiler.last_trace())
    assert len(kernels) == 8
    starts = [e["ts"] for e in kernels]
    assert starts == sorted(starts) and starts[0] == 0
    assert [float(o[3]) for o in outs] == [3.0 + i for i in range(8)]
    assert backend.queue.timer is None  # timing stops with the trace


def test_one_trace_at_a_time(tmp_path):
    with pytest.raises(RuntimeError, match="No profile started"):
        jaxwg.profiler.stop_trace()
    jaxwg.profiler.start_trace(tmp_path)
    try:
        with pytest.raises(RuntimeError, match="already been started"):
            jaxwg.profiler.start_trace(tmp_path)
    finally:
        jaxwg.profiler.stop_trace()


def test_jit_programs_replay_again_after_a_trace(tmp_path):
    f = jaxwg.jit(lambda a: a * 3.0 + 1.0)
    x = jnp.ones(4)
    f(x).block_until_ready()
    program = f._compiled((x,), {}, *f._flatten((x,), {})).program
    calls = []
    real = program._replay.run
    program._replay.run = lambda slots: calls.append(1) or real(slots)
    with jaxwg.profiler.trace(tmp_path):
        f(x).block_until_ready()
    assert calls == []  # traced: kernel by kernel
    np.testing.assert_array_equal(np.asarray(f(x)), np.full(4, 4.0, np.float32))
    assert calls == [1]
