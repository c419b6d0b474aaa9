"""Matrix products through the public API, beside NumPy and JAX (when importable).

    python3 benchmarks/matmul.py [--sizes 1024 4096 256x784x512] [--mlp] [--tiles "Tile(128,128,8,8,8)" ...]

For each size S (or M x K x N): a jitted float32 `a @ b` of two S x S matrices (an M x K
by a K x N one; JAX with precision="highest", so both compute in float32), one call then
block, best of several; TFLOP/s and the ratio JAX time / jaxwg time. `--mlp` adds the
forward pass of a 2048 x 1024 -> 4096 -> 1024 MLP with bias and relu (the epilogues fuse
into the products). `--tiles` times the given tiles on each product instead of the
tuner's choice (a tool for choosing the heuristics), each run alone (one dispatch and
a wait) and ten back to back (one wait). Results are checked against NumPy in float64.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import jaxwg
import jaxwg.numpy as jnp
from jaxwg.backend import get_backend


def best_seconds(fn, reps: int = 5) -> float:
    fn()
    best = float("inf")
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def jax_seconds(fn, *args) -> float | None:
    try:
        import jax
    except ImportError:
        return None
    f = jax.jit(fn)
    dev = [jax.device_put(a) for a in args]
    return best_seconds(lambda: f(*dev).block_until_ready())


def check(got, want, what: str) -> None:
    err = np.abs(np.asarray(got, np.float64) - want).max() / max(np.abs(want).max(), 1e-30)
    if err > 1e-4:
        raise AssertionError(f"{what}: relative error {err:.2e}")


def report(what: str, flops: float, ours: float, theirs: float | None) -> None:
    line = f"{what:<34} jaxwg {ours * 1e3:9.3f} ms {flops / ours / 1e12:7.3f} TFLOP/s"
    if theirs is not None:
        line += f" | jax {theirs * 1e3:9.3f} ms {flops / theirs / 1e12:7.3f} TFLOP/s | ratio {theirs / ours:.3f}"
    print(line, flush=True)


def product(m: int, k: int, n: int, rng) -> None:
    a, b = rng.random((m, k), dtype=np.float32), rng.random((k, n), dtype=np.float32)
    f = jaxwg.jit(lambda x, y: x @ y)
    x, y = jnp.asarray(a), jnp.asarray(b)
    check(f(x, y), a.astype(np.float64) @ b, f"matmul {m}x{k}x{n}")
    ours = best_seconds(lambda: f(x, y).block_until_ready())
    theirs = jax_seconds(lambda p, q: __import__("jax").numpy.matmul(p, q, precision="highest"), a, b)
    report(f"matmul f32 {m}x{k}x{n}", 2 * m * k * n, ours, theirs)


def mlp(rng) -> None:
    batch, d_in, hidden = 2048, 1024, 4096
    x = rng.standard_normal((batch, d_in), dtype=np.float32)
    w1 = rng.standard_normal((d_in, hidden), dtype=np.float32) / 32
    b1 = rng.standard_normal(hidden, dtype=np.float32)
    w2 = rng.standard_normal((hidden, d_in), dtype=np.float32) / 64
    b2 = rng.standard_normal(d_in, dtype=np.float32)

    def forward(np_like, x, w1, b1, w2, b2, **kw):
        h = np_like.maximum(np_like.matmul(x, w1, **kw) + b1, 0)
        return np_like.matmul(h, w2, **kw) + b2

    args = [jnp.asarray(v) for v in (x, w1, b1, w2, b2)]
    f = jaxwg.jit(lambda *a: forward(jnp, *a))
    check(f(*args), forward(np, *(v.astype(np.float64) for v in (x, w1, b1, w2, b2))), "mlp")
    ours = best_seconds(lambda: f(*args).block_until_ready())
    try:
        import jax.numpy as jjnp
        theirs = jax_seconds(lambda *a: forward(jjnp, *a, precision="highest"), x, w1, b1, w2, b2)
    except ImportError:
        theirs = None
    report("mlp 2048x1024->4096->1024", 2 * batch * d_in * hidden * 2, ours, theirs)


def tiles(m: int, k: int, n: int, specs: list[str], rng) -> None:
    from jaxwg.backend.webgpu.tuner import Tile, Tuning
    from jaxwg.core import alu, dtypes as dt
    from jaxwg.core.kernel import Kernel, Reduction

    be = get_backend("webgpu")
    g, r = alu.gidx(m * n), alu.ridx(k)
    kernel = Kernel(2, m * n, alu.load(0, dt.float32, (g // n) * k + r) * alu.load(1, dt.float32, r * n + g % n),
                    Reduction(alu.Op.ADD, dt.float32, k))
    a, b = rng.random((m, k), dtype=np.float32), rng.random((k, n), dtype=np.float32)
    slots = [be.malloc(a.nbytes, a), be.malloc(b.nbytes, b)]
    out = be.malloc(m * n * 4)
    for spec in specs:
        tile = eval(spec, {"Tile": Tile})
        exe = be.prepare(kernel, Tuning(workgroup_size=tile.threads, tile=tile))

        def run(times: int = 1):
            for _ in range(times):
                be.dispatch(exe, slots, [out])
            be.synchronize()

        seconds = best_seconds(run)
        got = np.frombuffer(be.read(out), np.float32)[:m * n].reshape(m, n)
        check(got, a.astype(np.float64) @ b, spec)
        report(f"{m}x{k}x{n} {spec}, one + wait", 2 * m * k * n, seconds, None)
        report(f"{m}x{k}x{n} {spec}, 10 back to back", 2 * m * k * n, best_seconds(lambda: run(10)) / 10, None)
    for slot in slots + [out]:
        be.decref(slot)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--sizes", nargs="*", default=["256", "1024", "4096"], help="S or MxKxN")
    p.add_argument("--mlp", action="store_true")
    p.add_argument("--tiles", nargs="*", default=[])
    args = p.parse_args()
    print(f"adapter: {get_backend('webgpu').describe()}; {time.strftime('%Y-%m-%d')}", flush=True)
    rng = np.random.default_rng(0)
    for size in args.sizes:
        m, k, n = map(int, size.split("x")) if "x" in size else (int(size),) * 3
        if args.tiles:
            tiles(m, k, n, args.tiles, rng)
        else:
            product(m, k, n, rng)
    if args.mlp:
        mlp(rng)


if __name__ == "__main__":
    main()
