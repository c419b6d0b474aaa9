"""Jit programs replayed on WebGPU (`backend/webgpu/replay.py`): intermediates reused
across calls, bind groups made once, arguments held once per call. Each test checks
results against NumPy under the conditions that would expose a wrong reuse: calls
queued back to back, programs dropped and arguments deleted while their work is
pending, and submits inside a call."""

import gc
import weakref

import numpy as np
import pytest

import jaxwg
import jaxwg.numpy as jnp
from jaxwg.backend.webgpu import replay as replay_module


@pytest.fixture
def device():
    try:
        return jaxwg.devices("webgpu")[0]
    except RuntimeError as e:  # no adapter on this machine
        pytest.skip(str(e))


def _layer(x, w):
    """A few kernels with intermediates: two products, a row max and a row sum."""
    h = jnp.tanh(x @ w)
    return jnp.sum(h @ w.T, axis=1) + jnp.max(h, axis=1)


def _reference(x, w):
    h = np.tanh(x.astype(np.float64) @ w)
    return (h @ w.T).sum(axis=1) + h.max(axis=1)


def _inputs(rng, n=24, k=40):
    return (rng.standard_normal((n, k)).astype(np.float32),
            rng.standard_normal((k, 33)).astype(np.float32) * 0.2)


def _replay_of(jitted, *args):
    return jitted.lower(*args)._compiled.program._replay


def _scribble(device, shapes, rng):
    """Upload arrays of these shapes: freed pool buffers of those sizes get new bytes
    before any pending submit runs."""
    return [jaxwg.device_put(rng.standard_normal(s).astype(np.float32), device)
            for s in shapes for _ in range(4)]


def test_calls_back_to_back_share_the_arena(device):
    rng = np.random.default_rng(0)
    x, w = _inputs(rng)
    f = jaxwg.jit(_layer)
    w_dev = jaxwg.device_put(w, device)
    xs = [x + i for i in range(40)]
    outs = [f(jaxwg.device_put(xi, device), w_dev) for xi in xs]  # no wait in between
    replay = _replay_of(f, jaxwg.device_put(x, device), w_dev)
    assert replay._arena.slots  # the intermediates live in the arena
    for xi, out in zip(xs, outs):
        np.testing.assert_allclose(np.asarray(out), _reference(xi, w), rtol=2e-4, atol=2e-4)


def test_dropped_program_keeps_its_pending_work(device, monkeypatch):
    # A pool that keeps nothing destroys a freed buffer at once: the arena of a program
    # dropped before its work is submitted must outlive that submit.
    from jaxwg.backend.webgpu.buffers import PoolConfig
    monkeypatch.setattr(device.backend.slots.pool, "config", PoolConfig(max_total_pooled_bytes=0))
    rng = np.random.default_rng(1)
    x, w = _inputs(rng)
    f = jaxwg.jit(lambda x, w: _layer(x, w) * 1.0)
    args = [jaxwg.device_put(a, device) for a in (x, w)]
    device.backend.synchronize()
    out = f(*args)
    program = weakref.ref(f.lower(*args)._compiled.program)
    del f
    gc.collect()
    assert program() is None  # its arena is held by the pending work only
    np.testing.assert_allclose(np.asarray(out), _reference(x, w), rtol=2e-4, atol=2e-4)


def test_arguments_deleted_during_pending_work(device):
    rng = np.random.default_rng(2)
    x, w = _inputs(rng)
    f = jaxwg.jit(_layer, donate_argnums=0)
    w_dev = jaxwg.device_put(w, device)
    f(jaxwg.device_put(x, device), w_dev).block_until_ready()  # compiled
    outs = []
    for i in range(5):
        x_dev = jaxwg.device_put(x + i, device)
        outs.append(f(x_dev, w_dev))  # x_dev is deleted by the donation
        _scribble(device, [x.shape], rng)
    for i, out in enumerate(outs):
        np.testing.assert_allclose(np.asarray(out), _reference(x + i, w), rtol=2e-4, atol=2e-4)


def test_submits_inside_a_call_hold_the_arguments_again(device):
    rng = np.random.default_rng(3)
    x, w = _inputs(rng)
    f = jaxwg.jit(lambda x, w: _layer(x, w) + x[:, 0], donate_argnums=0)  # the last kernel reads x
    w_dev = jaxwg.device_put(w, device)
    queue = device.backend.queue
    n = len(f.lower(jaxwg.device_put(x, device), w_dev).kernels)
    assert n >= 3
    f(jaxwg.device_put(x, device), w_dev).block_until_ready()
    old = queue.max_pending
    queue.max_pending = n - 1  # a submit before the last kernel, which stays pending
    try:
        x_dev = jaxwg.device_put(x, device)
        device.backend.synchronize()
        before = queue.submits
        out = f(x_dev, w_dev)  # deletes x_dev: only the call's hold keeps its buffer
        assert queue.submits == before + 1 and queue.pending == 1
        _scribble(device, [x.shape], rng)
        np.testing.assert_allclose(np.asarray(out), _reference(x, w) + x[:, 0], rtol=2e-4, atol=2e-4)
    finally:
        queue.max_pending = old


def test_split_kernels_record_each_pass_with_scratch_in_the_arena(device):
    """A full sum of 2^20 values takes two passes (partials in scratch, then their sum):
    both are recorded, and calls back to back reuse one scratch slot of the arena."""
    rng = np.random.default_rng(8)
    xs = [rng.standard_normal(1 << 20).astype(np.float32) for _ in range(6)]
    f = jaxwg.jit(lambda x: jnp.sum(x * 2.0) + x[:3])
    args = [jaxwg.device_put(x, device) for x in xs]
    replay = _replay_of(f, args[0])
    split = [s for s in replay._steps if s.dispatches and len(s.dispatches) > 1]
    assert split and all(s.dispatches is not None for s in replay._steps)
    scratch = split[0].dispatches[0].registers[-1]
    assert scratch in replay._arena.slots
    outs = [f(a) for a in args]  # no wait in between
    _scribble(device, [(1 << 20,)], rng)
    for x, out in zip(xs, outs):
        np.testing.assert_allclose(np.asarray(out), 2 * x.astype(np.float64).sum() + x[:3], rtol=1e-5, atol=0.05)


def test_programs_record_at_once_into_one_submit(device):
    """`record_many` records a whole call (one hold of its slots); when the dispatches
    would not fit after the pending ones, those are submitted first, so that a call's
    dispatches never straddle a submit."""
    rng = np.random.default_rng(9)
    x, w = _inputs(rng)
    f = jaxwg.jit(lambda x, w: _layer(x, w) * 2.0)
    args = [jaxwg.device_put(a, device) for a in (x, w)]
    replay = _replay_of(f, *args)
    assert replay._at_once
    n = replay._dispatch_count
    queue = device.backend.queue
    old = queue.max_pending
    queue.max_pending = n + 1  # room for one call, not two
    try:
        device.backend.synchronize()
        before, recorded = queue.submits, queue.dispatches_recorded
        first = f(*args)
        assert queue.pending == n and queue.submits == before
        second = f(*args)  # submits the first call's work, then records its own
        assert queue.pending == n and queue.submits == before + 1
        assert queue.dispatches_recorded == recorded + 2 * n
        del args
        _scribble(device, [x.shape, w.shape], rng)
        for out in (first, second):
            np.testing.assert_allclose(np.asarray(out), 2 * _reference(x, w), rtol=2e-4, atol=2e-4)
    finally:
        queue.max_pending = old


def test_large_intermediates_are_allocated_per_call(device, monkeypatch):
    monkeypatch.setattr(replay_module, "ARENA_BYTES", 0)
    rng = np.random.default_rng(4)
    x, w = _inputs(rng)
    f = jaxwg.jit(lambda x, w: _layer(x, w) - 1.0)  # a new function: compiled here
    args = [jaxwg.device_put(a, device) for a in (x, w)]
    f(*args).block_until_ready()
    assert not _replay_of(f, *args)._arena.slots
    gc.collect()
    live = device.memory_stats()["live_slots"]
    outs = [f(*args) for _ in range(20)]
    for out in outs:
        np.testing.assert_allclose(np.asarray(out), _reference(x, w) - 1, rtol=2e-4, atol=2e-4)
    del outs, out
    gc.collect()
    device.backend.synchronize()
    assert device.memory_stats()["live_slots"] == live


def test_arena_is_freed_with_its_program(device):
    rng = np.random.default_rng(5)
    x, w = _inputs(rng)
    args = [jaxwg.device_put(a, device) for a in (x, w)]
    gc.collect()
    device.backend.synchronize()
    live = device.memory_stats()["live_slots"]
    f = jaxwg.jit(lambda x, w: _layer(x, w) + 0.0)
    for _ in range(50):
        f(*args)
    device.backend.synchronize()
    arena = len(_replay_of(f, *args)._arena.slots)
    assert arena > 0
    assert device.memory_stats()["live_slots"] == live + arena
    del f
    gc.collect()
    device.backend.synchronize()
    assert device.memory_stats()["live_slots"] == live


def test_arguments_of_another_size_record_nothing(device):
    x, w = _inputs(np.random.default_rng(6))
    f = jaxwg.jit(_layer)
    args = [jaxwg.device_put(a, device) for a in (x, w)]
    replay = _replay_of(f, *args)
    other = jaxwg.device_put(np.ones((2, 40), np.float32), device)
    recorded = device.backend.queue.dispatches_recorded
    slots = [other._node.buffer.slot, args[1]._node.buffer.slot]
    assert replay.run(slots) is None
    assert device.backend.queue.dispatches_recorded == recorded


def test_recorded_work_is_kept_per_set_of_call_buffers(device, monkeypatch):
    """A call records every dispatch's (pipeline, bind group, grid) from one lookup of its
    arguments' and results' buffers; new buffers (a loop feeding each result back) make
    new entries, at most `GROUPS_PER_STEP`, and every result stays right."""
    rng = np.random.default_rng(3)
    x, w = _inputs(rng)
    f = jaxwg.jit(lambda x, w: x * 0.5 + _layer(x, w)[:, None] * 0.01)
    x_dev, w_dev = (jaxwg.device_put(a, device) for a in (x, w))
    replay = _replay_of(f, x_dev, w_dev)
    assert replay._at_once
    looked_up = []
    make_group = replay_module.Replay._group
    monkeypatch.setattr(replay_module.Replay, "_group",
                        lambda self, d, b: looked_up.append(d) or make_group(self, d, b))
    for _ in range(3):  # the same buffers each call once the first result is dropped
        np.asarray(f(x_dev, w_dev))
    first = len(looked_up)
    for _ in range(3):
        np.asarray(f(x_dev, w_dev))
    assert len(looked_up) == first  # no dispatch looked its group up again
    want, got = x.astype(np.float64), x_dev
    for _ in range(20):  # each result is the next argument: new buffers, no wait
        got = f(got, w_dev)
        want = want * 0.5 + _reference(want, w)[:, None] * 0.01
    np.testing.assert_allclose(np.asarray(got), want, rtol=2e-4, atol=2e-4)
    assert 0 < len(replay._works) <= replay_module.GROUPS_PER_STEP


def test_programs_with_routines_record_at_once(device):
    """Sort, scatter-add and cumsum routines record with a program's other dispatches,
    all at once (their scratch in the arena, each pass's parameters bound as a
    constant); calls queued back to back with new arguments, and with joining on."""
    backend = device.backend
    rng = np.random.default_rng(11)
    idx = rng.integers(0, 50, 300).astype(np.int32)

    def program(x, v):
        return jnp.sort(x * 2.0), jnp.zeros(50).at[idx].add(v) + 1.0, jnp.cumsum(x), jnp.sum(x)

    xs = [rng.standard_normal(3000).astype(np.float32) for _ in range(3)]
    vs = [rng.standard_normal(300).astype(np.float32) for _ in range(3)]
    before = backend.merges_dispatches
    try:
        for joined in (False, True):
            backend.merges_dispatches = joined
            f = jaxwg.jit(lambda x, v: program(x, v))  # a new function: a new replay
            outs = [f(jaxwg.device_put(x, device), jaxwg.device_put(v, device)) for x, v in zip(xs, vs)]
            replay = _replay_of(f, jaxwg.device_put(xs[0], device), jaxwg.device_put(vs[0], device))
            assert replay._at_once
            for (s, scattered, c, total), x, v in zip(outs, xs, vs):
                np.testing.assert_array_equal(np.asarray(s), np.sort(x * 2.0))
                want = np.ones(50, np.float64)
                np.add.at(want, idx, v)
                np.testing.assert_allclose(np.asarray(scattered), want, rtol=1e-5, atol=1e-5)
                np.testing.assert_allclose(np.asarray(c), np.cumsum(x, dtype=np.float64), rtol=1e-4, atol=1e-3)
                np.testing.assert_allclose(float(total), x.sum(dtype=np.float64), rtol=1e-4, atol=1e-3)
    finally:
        backend.merges_dispatches = before


def test_programs_of_no_dispatches_hold_nothing_past_the_call(device):
    """A program that dispatches nothing (its outputs are its arguments: an identity, a
    sort of an empty array) still holds its arguments for the call; with no submit to
    come, a synchronize lets them go. Each call used to keep its uploaded argument."""
    backend = device.backend
    passthrough = jaxwg.jit(lambda x, y: (x, y))
    args = (np.ones(3, np.float32), np.array([], np.float32))

    def live_after(calls):
        for _ in range(calls):
            jaxwg.block_until_ready(passthrough(*args))
            jaxwg.block_until_ready(jnp.sort(args[1]))
        gc.collect()
        backend.synchronize()
        return backend.memory_stats()["live_slots"]

    before = live_after(2)
    assert live_after(20) == before
