"""Side-by-side benchmarks through the public API: jaxwg next to NumPy and JAX.

    python3 benchmarks/run.py [--quick] [--scale S] [--only NAME ...] [--json PATH]
                              [--plot PATH] [--no-jax]

Each workload is one function written against a NumPy-like module `m` (jaxwg.numpy,
numpy or jax.numpy), jitted for jaxwg and JAX. Two columns per library:

* **latency**: one call, then wait for the result (`block_until_ready`), best of several;
* **throughput**: many calls back to back, one wait at the end, per call (pipelined:
  what the device sustains). NumPy has one column (it is synchronous).

Rates are GB/s of bytes read and written, or GFLOP/s for products; small-call
workloads report µs per call. `ratio` is JAX's time / jaxwg's (1.0: as fast). Every
jaxwg result is checked against NumPy in float64 before it is timed. Sizes follow the
adapter: the GPU sizes of issue 8 (64M elements, 8192^2 matrices) on a hardware
adapter, about 16x less on a software one; `--scale` multiplies element counts and
`--quick` (a smoke run, under 3 minutes on 2 cores) divides them by 16 and times less.
The training rows time a jitted `grad` + SGD step of a 784-512-512-10 MLP (batch 256),
with one-hot targets and with integer labels (whose gradient scatter-adds: a routine),
and per-example gradient norms through `vmap(grad)` (batch 128); NumPy's column is
backpropagation written by hand. `--plot` (matplotlib: `pip install .[plot]`) draws the ratios. JAX runs its float32
products at precision "highest" (no TF32), as jaxwg computes them.
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import platform
import sys
import time
from dataclasses import dataclass, field

import numpy as np

import jaxwg
import jaxwg.numpy as jnp
from jaxwg.backend import get_backend


# -- workloads -------------------------------------------------------------------------
@dataclass
class Workload:
    """`fn(m, *args)` over `inputs`; `work` is bytes moved or flops (per `unit`)."""

    name: str
    fn: object
    inputs: list
    work: float
    unit: str  # "GB/s", "GFLOP/s" or "us" (per call)
    rtol: float = 1e-4
    chained: int = 0  # small-call workloads: calls feeding each other, per timed run
    eager: bool = False  # jaxwg and JAX run the function op by op, without jit
    columns: tuple = ("latency", "throughput")
    notes: list = field(default_factory=list)


def chain8(m, v):
    """The 8-op chain of issue 8: tanh, exp, sqrt and a division among cheap ops."""
    a = v * 1.5 + 0.25
    b = m.tanh(a) * m.exp(-a * a)
    return m.sqrt(m.abs(b) + 1.0) / (1.0 + v * v)


def softmax(m, x):
    e = m.exp(x - m.max(x, axis=1, keepdims=True))
    return e / m.sum(e, axis=1, keepdims=True)


def mlp(m, x, w1, b1, w2, b2):
    h = m.maximum(x @ w1 + b1, 0.0)
    return h @ w2 + b2


# -- training: a jitted grad + SGD step, and per-example gradients ----------------------
def _grad(m):
    """The library's `grad` (jaxwg's or JAX's) for the module `m`."""
    if m is jnp:
        return jaxwg.grad
    import jax
    return jax.grad


def _vmap(m):
    if m is jnp:
        return jaxwg.vmap
    import jax
    return jax.vmap


def _mlp3_loss(m):
    def loss(params, x, y):
        w1, b1, w2, b2, w3, b3 = params
        h = m.maximum(x @ w1 + b1, 0.0)
        h = m.maximum(h @ w2 + b2, 0.0)
        z = h @ w3 + b3
        zmax = m.max(z, axis=-1, keepdims=True)
        lse = m.log(m.sum(m.exp(z - zmax), axis=-1)) + zmax[..., 0]
        # one-hot targets, or integer labels (the logit of each example's class: its
        # gradient scatter-adds, a routine on the GPU)
        picked = m.sum(z * y, axis=-1) if y.ndim == 2 else z[m.arange(z.shape[0]), y]
        return -m.mean(picked - lse)
    return loss


def _mlp3_backprop(params, x, y):
    """The gradients of `_mlp3_loss` by hand, in NumPy: the reference, and NumPy's time."""
    w1, b1, w2, b2, w3, b3 = params
    if y.ndim == 1:  # integer labels
        y = np.eye(w3.shape[1], dtype=x.dtype)[y.astype(np.int64)]
    h1 = np.maximum(x @ w1 + b1, 0.0)
    h2 = np.maximum(h1 @ w2 + b2, 0.0)
    z = h2 @ w3 + b3
    p = np.exp(z - z.max(axis=-1, keepdims=True))
    p /= p.sum(axis=-1, keepdims=True)
    dz = (p - y) / x.shape[0]
    dh2 = (dz @ w3.T) * (h2 > 0)
    dh1 = (dh2 @ w2.T) * (h1 > 0)
    return [x.T @ dh1, dh1.sum(0), h1.T @ dh2, dh2.sum(0), h2.T @ dz, dz.sum(0)], (x, dh1, h1, dh2, h2, dz)


def train_step(m, w1, b1, w2, b2, w3, b3, x, y):
    """One SGD step of a 784-512-512-10 MLP with softmax cross-entropy: the new parameters,
    a list as a training loop keeps them."""
    params = [w1, b1, w2, b2, w3, b3]
    grads = _mlp3_backprop(params, x, y)[0] if m is np else _grad(m)(_mlp3_loss(m))(params, x, y)
    return [p - 0.01 * g for p, g in zip(params, grads)]


def per_example_grad_norms(m, w1, b1, w2, b2, w3, b3, x, y):
    """The norm of each example's gradient (as DP-SGD clips them): `vmap(grad)` over the
    batch. NumPy: the norms from one backprop (an example's weight gradient is an
    outer product, whose norm is the product of the factors' norms)."""
    params = [w1, b1, w2, b2, w3, b3]
    if m is np:
        n = x.shape[0]
        _, (a1, d1, a2, d2, a3, d3) = _mlp3_backprop(params, x, y)
        sq = lambda v: (v * v).sum(-1)  # noqa: E731
        # the backprop averaged over the batch: one example's gradient is n times its share
        return n * np.sqrt(sum(sq(a) * sq(d) + sq(d) for a, d in ((a1, d1), (a2, d2), (a3, d3))))
    one = lambda params, x, y: _mlp3_loss(m)(params, x[None], y[None])  # noqa: E731
    grads = _vmap(m)(_grad(m)(one), in_axes=(None, 0, 0))(params, x, y)
    return m.sqrt(sum(m.sum(g.reshape(g.shape[0], -1) ** 2, axis=1) for g in grads))


def conv2d(m, x, w):
    """A 3x3 convolution, "SAME" padding, channels last (NHWC, HWIO)."""
    if m is np:  # NumPy has no convolution: windows as a view, then one tensordot
        padded = np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)))
        windows = np.lib.stride_tricks.sliding_window_view(padded, (3, 3), axis=(1, 2))
        return np.tensordot(windows, w, axes=([3, 4, 5], [2, 0, 1]))
    lax = sys.modules[m.__name__.replace("numpy", "lax")]
    return lax.conv_general_dilated(x, w, (1, 1), "SAME",
                                    dimension_numbers=("NHWC", "HWIO", "NHWC"))


def small10(m, x):
    """Ten elementwise ops on 64 elements: what a jitted call costs beyond its work."""
    for _ in range(5):
        x = m.sin(x) * 0.5 + 0.1
    return x


def workloads(software: bool, scale: float, rng) -> list[Workload]:
    def f32(*shape):
        return rng.standard_normal(shape, dtype=np.float32)

    n = int((1 << 22 if software else 1 << 26) * scale)  # elements of the vector workloads
    side = int(math.isqrt(n))  # square matrices of about n elements
    mm = [256, 1024] if software else [1024, 4096]
    batch, d_in, hidden = (256, 256, 1024) if software else (2048, 1024, 4096)
    v, x2 = f32(n), f32(side, side)
    sort_n = int((1 << 16 if software else 1 << 20) * scale)
    out = [
        Workload("v * 2 + 1", lambda m, v: v * 2.0 + 1.0, [v], 8 * n, "GB/s"),
        Workload("exp(v)", lambda m, v: m.exp(v), [v], 8 * n, "GB/s"),
        Workload("tanh(v)", lambda m, v: m.tanh(v), [v], 8 * n, "GB/s"),
        Workload("1 / (1 + v*v)", lambda m, v: 1.0 / (1.0 + v * v), [v], 8 * n, "GB/s"),
        Workload("8-op chain", chain8, [v], 8 * n, "GB/s"),
        Workload("row sum", lambda m, x: m.sum(x, axis=1), [x2], 4 * side * side, "GB/s"),
        Workload("column sum", lambda m, x: m.sum(x, axis=0), [x2], 4 * side * side, "GB/s"),
        Workload("full sum", lambda m, v: m.sum(v), [v], 4 * n, "GB/s", rtol=1e-3),
        Workload("softmax", softmax, [x2], 8 * side * side, "GB/s"),
        Workload("cumsum", lambda m, v: m.cumsum(v), [v[:n // 4]], 8 * (n // 4), "GB/s", rtol=1e-3),
        Workload(f"sort {sort_n}", lambda m, v: m.sort(v), [v[:sort_n]], 8 * sort_n, "GB/s"),
    ]
    for s in mm:
        out.append(Workload(f"matmul {s}^2", lambda m, a, b: a @ b, [f32(s, s), f32(s, s)], 2 * s ** 3, "GFLOP/s"))
    w = [f32(batch, d_in), f32(d_in, hidden) / 32, f32(hidden), f32(hidden, d_in) / 64, f32(d_in)]
    out.append(Workload(f"MLP {batch}x{d_in}->{hidden}->{d_in}", mlp, w, 4 * batch * d_in * hidden, "GFLOP/s"))
    images = 2 if software else 32
    out.append(Workload(f"conv2d 3x3 {images}x56x56x64->64", conv2d,
                        [f32(images, 56, 56, 64), f32(3, 3, 64, 64) / 24],
                        2 * images * 56 * 56 * 64 * 64 * 9, "GFLOP/s"))
    sizes = [(784, 512), (512,), (512, 512), (512,), (512, 10), (10,)]
    params = [f32(*shape) * (0.05 if len(shape) == 2 else 0.01) for shape in sizes]
    mlp_flops = 2 * sum(a * b for a, b in sizes[::2])  # per example, forward

    def batch(n):
        return [f32(n, 784), np.eye(10, dtype=np.float32)[rng.integers(0, 10, n)]]

    out.append(Workload("MLP train step 784-512-512-10 b256", train_step, params + batch(256),
                        3 * 256 * mlp_flops, "GFLOP/s"))
    x256, labels = f32(256, 784), rng.integers(0, 10, 256).astype(np.int32)
    out.append(Workload("MLP train step, int labels b256", train_step, params + [x256, labels],
                        3 * 256 * mlp_flops, "GFLOP/s"))
    out.append(Workload("per-example grads (vmap(grad)) b128", per_example_grad_norms,
                        params + batch(128), 3 * 128 * mlp_flops, "GFLOP/s"))
    out.append(Workload("small jit, 200 chained calls", small10, [f32(64)], 1, "us", chained=200,
                        columns=("latency",)))
    out.append(Workload("eager 8-op chain", chain8, [f32(n // 4)], 8 * (n // 4), "GB/s", eager=True,
                        columns=("latency",)))
    return out


# -- timing ----------------------------------------------------------------------------
def best_seconds(call, wait, target_s: float, reps: int, max_calls: int = 1000) -> float:
    """Seconds per call: each rep makes k calls then waits once; the best rep wins."""
    wait(call())  # compile, warm caches
    start = time.perf_counter()
    wait(call())
    once = time.perf_counter() - start
    k = max(1, min(max_calls, int(target_s / max(once, 1e-7))))
    best = math.inf
    for _ in range(reps):
        start = time.perf_counter()
        for _ in range(k):
            result = call()
        wait(result)
        best = min(best, (time.perf_counter() - start) / k)
    return best


def latency_seconds(call, wait, reps: int) -> float:
    wait(call())
    best = math.inf
    for _ in range(reps):
        start = time.perf_counter()
        wait(call())
        best = min(best, time.perf_counter() - start)
    return best


class Library:
    """How one library runs a workload: its array module, jit, transfer and wait."""

    def __init__(self, name, module, jit, put, wait):
        self.name, self.m, self.jit, self.put, self.wait = name, module, jit, put, wait

    def runner(self, w: Workload):
        fn = (lambda *a: w.fn(self.m, *a)) if w.eager or self.jit is None else self.jit(lambda *a: w.fn(self.m, *a))
        args = [self.put(x) for x in w.inputs]
        if not w.chained:
            return lambda: fn(*args)

        def chained():
            x = args[0]
            for _ in range(w.chained):
                x = fn(x)
            return x
        return chained


def libraries(use_jax: bool) -> list[Library]:
    found = [Library("jaxwg", jnp, jaxwg.jit, jnp.asarray, jaxwg.block_until_ready),
             Library("numpy", np, None, lambda x: x, lambda r: r)]
    if use_jax:
        try:
            import jax
            import jax.numpy as jjnp
            # float32 products in float32, as jaxwg computes them (GPUs default to TF32).
            jax.config.update("jax_default_matmul_precision", "highest")
            found.append(Library("jax", jjnp, jax.jit, jax.device_put, jax.block_until_ready))
        except ImportError:
            pass
    return found


def reference(w: Workload):
    """The workload in NumPy, float64 (its results raveled and joined)."""
    return _joined(w.fn(np, *[x.astype(np.float64) for x in w.inputs]) if not w.chained else
                   _repeat(w, np, w.inputs[0].astype(np.float64)))


def _joined(result) -> np.ndarray:
    """One float64 array of a result or a list of them (a training step's parameters)."""
    parts = result if isinstance(result, (list, tuple)) else [result]
    return np.concatenate([np.asarray(p, np.float64).ravel() for p in parts])


def _repeat(w, m, x):
    for _ in range(w.chained):
        x = w.fn(m, x)
    return x


def rate(w: Workload, seconds: float) -> float:
    if w.unit == "us":
        return seconds / max(w.chained, 1) * 1e6
    return w.work / seconds / 1e9


# -- running ---------------------------------------------------------------------------
def run(ws: list[Workload], libs: list[Library], quick: bool) -> list[dict]:
    target, reps = (0.05, 2) if quick else (0.3, 5)
    rows = []
    print(f"{'workload':<34} {'unit':<8}" + "".join(f"{lib.name + ' ' + c:>20}" for lib in libs
                                                     for c in _columns(lib)) + f"{'ratio':>14}", flush=True)
    for w in ws:
        row = {"workload": w.name, "unit": w.unit}
        want = reference(w)
        for lib in libs:
            call = lib.runner(w)
            if lib.name == "jaxwg":
                got = _joined(call())
                err = float(np.max(np.abs(got - want)) / max(np.max(np.abs(want)), 1e-30))
                row["check"] = {"ok": err <= w.rtol, "max_rel_err": err}
            for column in _columns(lib):
                if column not in w.columns and column != "time":
                    continue
                if column == "throughput":
                    seconds = best_seconds(call, lib.wait, target, reps)
                else:
                    seconds = latency_seconds(call, lib.wait, reps)
                row[f"{lib.name} {column}"] = rate(w, seconds)
        row["ratio"] = _ratio(row, w)
        rows.append(row)
        cells = "".join(f"{_fmt(row.get(f'{lib.name} {c}')):>20}" for lib in libs for c in _columns(lib))
        flag = "" if row["check"]["ok"] else f"  WRONG (rel err {row['check']['max_rel_err']:.2g})"
        print(f"{w.name:<34} {w.unit:<8}{cells}{_fmt_ratio(row['ratio']):>14}{flag}", flush=True)
    return rows


def _columns(lib: Library) -> tuple:
    return ("time",) if lib.name == "numpy" else ("latency", "throughput")


def _ratio(row: dict, w: Workload) -> dict:
    """JAX time / jaxwg time per column: from rates, jaxwg's over JAX's; from µs per call,
    JAX's over jaxwg's."""
    out = {}
    for column in w.columns:
        ours, theirs = row.get(f"jaxwg {column}"), row.get(f"jax {column}")
        if ours and theirs:
            out[column] = theirs / ours if w.unit == "us" else ours / theirs
    return out


def _fmt(v) -> str:
    if v is None:
        return "-"
    return f"{v:,.0f}" if abs(v) >= 100 else f"{v:.3g}"


def _fmt_ratio(r: dict) -> str:
    return " / ".join(f"{r[c]:.2f}" for c in ("latency", "throughput") if c in r) or "-"


def plot(rows: list[dict], path: str, title: str) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = [r["workload"] for r in rows]
    fig, ax = plt.subplots(figsize=(8, 0.35 * len(rows) + 1.5))
    for i, column in enumerate(("latency", "throughput")):
        values = [r["ratio"].get(column, 0.0) for r in rows]
        ax.barh([k + 0.4 * i for k in range(len(rows))], values, height=0.4, label=column)
    ax.axvline(1.0, color="k", lw=0.8)
    ax.set_yticks([k + 0.2 for k in range(len(rows))], names)
    ax.invert_yaxis()
    ax.set_xlabel("JAX time / jaxwg time (1 = as fast as JAX)")
    ax.set_title(title, fontsize=9)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="small sizes, short timing (smoke run)")
    p.add_argument("--scale", type=float, default=1.0, help="multiply element counts")
    p.add_argument("--only", nargs="*", help="workloads whose name contains one of these")
    p.add_argument("--json", help="write the results here")
    p.add_argument("--plot", help="draw the ratios into this image (needs matplotlib)")
    p.add_argument("--no-jax", action="store_true")
    args = p.parse_args()
    backend = get_backend("webgpu")
    adapter = backend.describe()
    software = backend.device.is_software
    scale = args.scale / (16 if args.quick else 1)
    libs = libraries(not args.no_jax)
    jax_device = None
    if any(lib.name == "jax" for lib in libs):
        import jax
        jax_device = str(jax.devices()[0])
    date = datetime.date.today().isoformat()
    print(f"jaxwg on {adapter}; JAX on {jax_device or '-'}; {platform.node()} {date}", flush=True)
    ws = workloads(software, scale, np.random.default_rng(0))
    if args.only:
        ws = [w for w in ws if any(s in w.name for s in args.only)]
    rows = run(ws, libs, args.quick)
    wrong = [r["workload"] for r in rows if not r["check"]["ok"]]
    meta = {"adapter": adapter, "jax_device": jax_device, "date": date, "scale": scale,
            "python": sys.version.split()[0], "host": platform.node()}
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"meta": meta, "rows": rows}, f, indent=1)
    if args.plot:
        plot(rows, args.plot, f"{adapter} vs JAX on {jax_device}, {date}")
    if wrong:
        sys.exit(f"wrong results: {', '.join(wrong)}")


if __name__ == "__main__":
    main()
