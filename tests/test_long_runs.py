"""Long runs neither creep nor leak: 2,000 steps (10,000 in the slow job) of a jitted
training loop and of an eager loop leave the live slots, pooled bytes and buffers
created where they were after the first steps (the pool's numbers are in the failure
message)."""

import gc

import numpy as np
import pytest

import jaxwg
import jaxwg.numpy as jnp
from jaxwg.example_libraries import optimizers

STEPS = [2_000, pytest.param(10_000, marks=pytest.mark.slow)]
WARMUP = 100  # steps before the baseline: pools, programs and bind groups fill up first


# What must not grow: live buffers, their bytes, buffers ever created, and the bytes the
# backend holds (in use plus pooled). Within a full test run, what earlier tests left
# (a program an LRU cache evicts) may be freed during the loop: that moves bytes from
# in use to the pool and may only shrink the live counts.
FLAT = ("live_slots", "bytes_in_use", "num_buffers_created", "bytes_held")


def _settled_stats(backend) -> dict:
    backend.synchronize()
    gc.collect()
    stats = backend.memory_stats()
    stats["bytes_held"] = stats["bytes_in_use"] + stats["bytes_pooled"]
    return {k: stats[k] for k in FLAT}


def _assert_flat(before: dict, after: dict, what: str, steps: int) -> None:
    grown = {k: (before[k], after[k]) for k in FLAT if after[k] > before[k]}
    assert not grown, (f"{what}: grew {grown}; memory after {WARMUP} steps {before}, "
                       f"after {steps} {after}")


def _data(n=64, d=8, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, d)).astype(np.float32)
    w = rng.standard_normal(d).astype(np.float32)
    return x, (x @ w > 0).astype(np.float32)


@pytest.mark.parametrize("steps", STEPS)
@pytest.mark.parametrize("platform", ["webgpu"])
def test_a_jitted_training_loop_stays_flat(platform, steps):
    device = jaxwg.devices(platform)[0]
    x, y = (jaxwg.device_put(a, device) for a in _data())

    def loss(params, x, y):
        w, b = params
        p = jaxwg.nn.sigmoid(x @ w + b)
        return -jnp.mean(y * jnp.log(p + 1e-6) + (1 - y) * jnp.log(1 - p + 1e-6))

    init, update, get_params = optimizers.adam(0.01)
    state = init((jaxwg.device_put(np.zeros(8, np.float32), device), jaxwg.device_put(np.float32(0), device)))

    @jaxwg.jit
    def step(i, state, x, y):
        return update(i, jaxwg.grad(loss)(get_params(state), x, y), state)

    first_loss = float(loss(get_params(state), x, y))
    for i in range(steps):
        state = step(i, state, x, y)
        if i + 1 == WARMUP:
            before = _settled_stats(device.backend)
    after = _settled_stats(device.backend)
    _assert_flat(before, after, f"jit on {device}", steps)
    assert float(loss(get_params(state), x, y)) < 0.2 * first_loss  # it did train


@pytest.mark.parametrize("steps", STEPS)
@pytest.mark.parametrize("platform", ["webgpu"])
def test_an_eager_loop_stays_flat(platform, steps):
    device = jaxwg.devices(platform)[0]
    x, _ = _data()
    v = jaxwg.device_put(x[:, 0], device)
    total = jaxwg.device_put(np.float32(0), device)
    for i in range(steps):
        v = jnp.tanh(v * 0.9 + 0.1)
        total = total + jnp.sum(v)
        if i % 10 == 0:
            total.block_until_ready()  # an eager program reads a value now and then
        if i + 1 == WARMUP:
            before = _settled_stats(device.backend)
    after = _settled_stats(device.backend)
    _assert_flat(before, after, f"eager on {device}", steps)
    want_v = x[:, 0].astype(np.float64)
    want_total = 0.0
    for _ in range(steps):
        want_v = np.tanh(want_v * 0.9 + 0.1)
        want_total += want_v.sum()
    np.testing.assert_allclose(np.asarray(v), want_v, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(float(total), want_total, rtol=1e-4)


def test_exit_with_live_arrays_and_queued_work_is_quiet():
    """The interpreter exits at once with arrays alive and kernels queued, printing
    nothing to stderr (finalizers run while modules are torn down), even where
    XDG_RUNTIME_DIR is not set (Mesa's OpenGL driver complains then)."""
    import os
    import subprocess
    import sys

    code = ("import jaxwg.numpy as jnp\n"
            "keep = [jnp.ones(1000) * i + 1 for i in range(50)]\n"
            "keep[0].block_until_ready()\n"
            "more = [jnp.exp(k) for k in keep]\n"  # queued, never waited for
            "print(float(keep[3][0]))\n")
    env = {k: v for k, v in os.environ.items() if k != "XDG_RUNTIME_DIR"}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "4.0\n" and done.stderr == "", done.stderr
