"""Frontend overheads, side by side with JAX: eager ops, cached jit calls, eager fusion.

    python3 benchmarks/frontend.py [--size N] [--json PATH] [--no-jax]

* eager op: building `x + 1.0` (a lazy node, no kernel) and running it
  (`block_until_ready` each time: one kernel, one submit, one wait), on 1000 float32;
  JAX: `x + 1.0` eagerly with `block_until_ready`.
* cached jit call of `sum(x * y + 1)`: dispatch only (no wait, averaged over many calls)
  and call + `block_until_ready`; JAX: the same jitted function.
* eager fusion on an 8-op elementwise chain over `--size` float32 (default 16M): fused
  (build the chain, then one `block_until_ready`: one kernel) vs unfused (realize after
  every op: eight kernels and eight round trips); JAX eager (one XLA call per op) and
  jitted, each call waited for, and pipelined (many calls, one wait: the device's speed).

Prints the adapter used and one row per measurement (microseconds or milliseconds).
"""

from __future__ import annotations

import argparse
import json
import os
import sys

import numpy as np

import jaxwg
import jaxwg.numpy as jnp

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from backend import best_time


def per_call(fn, sync=lambda: None, target_s: float = 0.3, reps: int = 5) -> float:
    """Best seconds per call of `fn` (backend.py's `best_time`, sync once per rep)."""
    return best_time(fn, sync, target_s, reps, max_iters=20000)[0]


def chain(m, x):
    """8 elementwise ops (the same as benchmarks/kernels.py's chain8)."""
    y = m.exp(x) * 2.0
    y = m.sin(y) + x
    y = m.sqrt(m.abs(y)) - 0.5
    return m.tanh(y) * 3.0


def _chain_unfused(x):
    steps = [lambda v: jnp.exp(v), lambda v: v * 2.0, lambda v: jnp.sin(v), lambda v: v + x,
             lambda v: jnp.abs(v), lambda v: jnp.sqrt(v), lambda v: v - 0.5,
             lambda v: jnp.tanh(v) * 3.0]
    y = x
    for step in steps:
        y = step(y).block_until_ready()
    return y


def bench_jaxwg(n: int) -> dict:
    small = jnp.asarray(np.linspace(-1, 1, 1000, dtype=np.float32)).block_until_ready()
    other = (small * 0.5).block_until_ready()
    rows = {}
    rows["eager op, build only (us)"] = per_call(lambda: small + 1.0) * 1e6
    rows["eager op, run + wait (us)"] = per_call(lambda: (small + 1.0).block_until_ready()) * 1e6
    f = jaxwg.jit(lambda x, y: jnp.sum(x * y + 1.0))
    backend = jaxwg.devices()[0].backend
    rows["jit call, dispatch only (us)"] = per_call(lambda: f(small, other),
                                                    backend.synchronize) * 1e6
    rows["jit call + wait (us)"] = per_call(lambda: f(small, other).block_until_ready()) * 1e6
    big = jnp.asarray(np.random.default_rng(0).uniform(-1, 1, n).astype(np.float32))
    big.block_until_ready()
    want = chain(np, np.asarray(big))
    got = np.asarray(chain(jnp, big))
    # sqrt near 0 amplifies the last-bit differences of sin: compare absolutely.
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=2e-3)
    rows["8-op chain, eager fused (ms)"] = per_call(
        lambda: chain(jnp, big).block_until_ready(), reps=3) * 1e3
    rows["8-op chain, eager unfused (ms)"] = per_call(lambda: _chain_unfused(big), reps=3) * 1e3
    g = jaxwg.jit(lambda x: chain(jnp, x))
    rows["8-op chain, jit + wait (ms)"] = per_call(lambda: g(big).block_until_ready(), reps=3) * 1e3
    rows["8-op chain, jit pipelined (ms)"] = per_call(lambda: g(big), backend.synchronize,
                                                      reps=3) * 1e3
    return rows


def bench_jax(n: int) -> dict:
    import jax
    import jax.numpy as xnp

    small = xnp.asarray(np.linspace(-1, 1, 1000, dtype=np.float32))
    other = small * 0.5
    rows = {}
    rows["eager op, run + wait (us)"] = per_call(lambda: (small + 1.0).block_until_ready()) * 1e6
    f = jax.jit(lambda x, y: xnp.sum(x * y + 1.0))
    rows["jit call, dispatch only (us)"] = per_call(
        lambda: f(small, other), lambda: f(small, other).block_until_ready()) * 1e6
    rows["jit call + wait (us)"] = per_call(lambda: f(small, other).block_until_ready()) * 1e6
    big = xnp.asarray(np.random.default_rng(0).uniform(-1, 1, n).astype(np.float32))
    rows["8-op chain, eager unfused (ms)"] = per_call(
        lambda: chain(xnp, big).block_until_ready(), reps=3) * 1e3
    g = jax.jit(lambda x: chain(xnp, x))
    rows["8-op chain, jit + wait (ms)"] = per_call(lambda: g(big).block_until_ready(), reps=3) * 1e3
    rows["8-op chain, jit pipelined (ms)"] = per_call(
        lambda: g(big), lambda: g(big).block_until_ready(), reps=3) * 1e3
    rows["device"] = str(jax.devices()[0])
    return rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", type=int, default=1 << 24)
    parser.add_argument("--json", default=None)
    parser.add_argument("--no-jax", action="store_true")
    args = parser.parse_args(argv)
    device = jaxwg.devices()[0]
    print(f"jaxwg on {device.platform}: {device.device_kind}")
    print(f"host: {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}")
    ours = bench_jaxwg(args.size)
    theirs = {}
    if not args.no_jax:
        try:
            theirs = bench_jax(args.size)
            print(f"JAX on {theirs.pop('device')}")
        except ImportError:
            print("JAX is not installed; jaxwg only")
    print(f"{'measurement':34} {'jaxwg':>12} {'JAX':>12}")
    for name, value in ours.items():
        other = theirs.get(name)
        other_text = f"{other:12.3f}" if other is not None else f"{'-':>12}"
        print(f"{name:34} {value:12.3f} {other_text}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"device": device.device_kind, "size": args.size, "jaxwg": ours,
                       "jax": theirs}, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
