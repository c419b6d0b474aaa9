"""The backend alone, side by side with NumPy and JAX (jax.jit, default device): kernels
built in the IR and dispatched without the frontend, so the difference from
`run.py` (the same kinds of work through the public API) is what tracing, fusion and
the round trip cost.

    python3 benchmarks/backend.py [--size-scale S] [--json PATH] [--quick] [--no-jax]

Workloads (kernels from `kernels.py`, built directly in the kernel IR):

* pipeline compile: `prepare` of a kernel no cache has seen vs `prepare` of the same
  kernel again; first dispatch + synchronize vs the second (the software adapters
  compile shaders on first dispatch). JAX: first call of a new jitted function vs the
  second.
* small-kernel dispatch rate: N dispatches of a 64-element `x + 1` (a) batched: all
  dispatched, then one `synchronize()` (the queue submits every `max_pending`);
  (b) `synchronize()` after each; (c) `queue.flush()` (one submit) after each, one
  synchronize at the end. JAX: jitted calls with `block_until_ready` at the end / after each.
* elementwise exp(x)*2 and the fused 8-op chain over 16M float32 (x S): GB/s of bytes
  read + written, best of several reps of many dispatches then one synchronize.
* reductions: row sums of a square matrix, a full sum, and a few other shapes (short
  rows, few long rows, column sums): GB/s of bytes read.

Each jaxwg result is checked once against NumPy (allclose). The default run takes
about 40-80 s on the 2-core software adapters (~2.5 min with --size-scale 4);
`--quick` is a ~10-30 s smoke. On the
H200 use `--size-scale 4` (64M elements).
"""

from __future__ import annotations

import argparse
import datetime
import gc
import json
import math
import os
import platform
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kernels as K

from jaxwg.backend import get_backend

MB = 1 << 20


# -- timing ----------------------------------------------------------------------------
def best_time(fn, sync, target_s: float, reps: int, max_iters: int = 2000) -> tuple[float, int]:
    """Seconds per call of `fn`: each rep runs `fn` k times then `sync()` once; the
    best rep wins. k is chosen from one calibration call so a rep lasts ~target_s."""
    fn(); sync()  # warm (compile, caches)
    t0 = time.perf_counter(); fn(); sync(); t1 = time.perf_counter() - t0
    k = max(1, min(max_iters, int(target_s / max(t1, 1e-7))))
    best = math.inf
    for _ in range(reps):
        t0 = time.perf_counter()
        for _ in range(k):
            fn()
        sync()
        best = min(best, (time.perf_counter() - t0) / k)
    return best, k


def _noop():
    pass


def time_dispatch(be, exe, inputs, out, cfg) -> tuple[float, int]:
    """Seconds per dispatch of a prepared kernel (many dispatches, one synchronize)."""
    return best_time(lambda: be.dispatch(exe, inputs, [out]), be.synchronize, cfg["target_s"], cfg["reps"])


def time_numpy(fn, arg, cfg) -> float:
    """Seconds per call of a NumPy function."""
    return best_time(lambda: fn(arg), _noop, cfg["target_s"], cfg["reps"])[0]


class Jax:
    """jax.jit on the default device, or None columns when JAX is not importable."""

    def __init__(self, enabled: bool):
        self.jax = self.jnp = None
        self.error = None
        if not enabled:
            self.error = "disabled (--no-jax)"
            return
        try:
            import jax
            import jax.numpy as jnp
            self.jax, self.jnp = jax, jnp
            self.device = jax.devices()[0]
        except Exception as e:  # noqa: BLE001 - any failure means "no JAX columns"
            self.error = f"{type(e).__name__}: {e}"

    @property
    def ok(self) -> bool:
        return self.jax is not None

    def describe(self) -> dict | None:
        if not self.ok:
            return None
        return {"version": self.jax.__version__, "device": str(self.device),
                "platform": self.device.platform}

    def put(self, x):
        return self.jax.device_put(x, self.device)

    def time(self, f, x, target_s, reps, max_iters=2000):
        f = self.jax.jit(f)
        last = [None]

        def call():
            last[0] = f(x)

        def sync():
            last[0].block_until_ready()

        return best_time(call, sync, target_s, reps, max_iters)[0]


# -- reporting ---------------------------------------------------------------------------
class Report:
    def __init__(self):
        self.rows: list[dict] = []
        self.checks: list[dict] = []

    def add(self, section, workload, metric, unit, jaxwg=None, numpy=None, jax=None, **extra):
        row = {"section": section, "workload": workload, "metric": metric, "unit": unit,
               "jaxwg": jaxwg, "numpy": numpy, "jax": jax, **extra}
        self.rows.append(row)
        cols = "  ".join(f"{name} {_fmt(v):>9}" for name, v in
                         (("jaxwg", jaxwg), ("numpy", numpy), ("jax", jax)) if v is not None)
        note = f"  [{extra['note']}]" if extra.get("note") else ""
        print(f"  {workload:<34} {metric:<24} {unit:<11} {cols}{note}", flush=True)

    def check(self, workload, ok: bool, max_err: float):
        self.checks.append({"workload": workload, "allclose": bool(ok), "max_abs_err": max_err})
        print(f"  check {workload:<28} allclose={ok}  max|err|={max_err:.3g}", flush=True)


def _fmt(v) -> str:
    if v is None:
        return "-"
    if isinstance(v, str):
        return v
    if v == 0:
        return "0"
    if abs(v) >= 100:
        return f"{v:,.0f}"
    if abs(v) >= 1:
        return f"{v:.2f}"
    return f"{v:.3g}"


def section(title: str):
    print(f"\n== {title}", flush=True)


def plan_of(exe) -> list[str]:
    """The WebGPU plan of a prepared kernel, one string per pass (for the JSON)."""
    out = []
    for p in getattr(exe, "passes", []):
        k, t = p.kernel, p.tuning
        red = f" reduce {k.reduction.size}" if k.reduction is not None else ""
        out.append(f"{k.size} out{red}: wg={t.workgroup_size} upcast={t.upcast} "
                   f"unroll={t.unroll} group={t.group}")
    return out


def check(report, be, name, exe, kernel, slots, ref, rtol=1e-4, atol=1e-4):
    out = be.malloc(max(4, kernel.size * 4))
    be.dispatch(exe, slots, [out])
    got = be.download(out, kernel.dtype, kernel.size)
    be.decref(out)
    ref = np.asarray(ref, np.float32).reshape(-1)
    err = float(np.max(np.abs(got.astype(np.float64) - ref))) if ref.size else 0.0
    report.check(name, bool(np.allclose(got, ref, rtol=rtol, atol=atol)), err)


# -- sections ----------------------------------------------------------------------------
def bench_compile(report, be, jx, cfg):
    section("pipeline compile (cache miss vs hit)")
    samples = {k: [] for k in ("prep_new", "prep_again", "disp_first", "disp_second")}
    sec = "compile"
    for which in ("elementwise", "reduction"):
        for values in samples.values():
            values.clear()
        compiled = []
        for _ in range(cfg["compile_samples"]):
            kernel = K.unique_kernel(1024) if which == "elementwise" else K.unique_reduction(64, 256)
            nin = 1024 if which == "elementwise" else 64 * 256
            x = be.upload(np.ones(nin, np.float32))
            out = be.malloc(kernel.size * 4)
            before = be.pipelines_compiled
            t0 = time.perf_counter(); exe = be.prepare(kernel); t1 = time.perf_counter()
            compiled.append(be.pipelines_compiled - before)
            t2 = time.perf_counter(); be.prepare(kernel); t3 = time.perf_counter()
            be.synchronize()
            t4 = time.perf_counter(); be.dispatch(exe, [x], [out]); be.synchronize(); t5 = time.perf_counter()
            be.dispatch(exe, [x], [out]); be.synchronize(); t6 = time.perf_counter()
            samples["prep_new"].append(t1 - t0)
            samples["prep_again"].append(t3 - t2)
            samples["disp_first"].append(t5 - t4)
            samples["disp_second"].append(t6 - t5)
            be.decref(x); be.decref(out)
        med = {k: statistics.median(v) for k, v in samples.items()}
        note = f"median of {cfg['compile_samples']}; pipelines compiled per new kernel: {compiled}"
        report.add(sec, f"{which} (new kernel)", "prepare", "ms", med["prep_new"] * 1e3, note=note)
        report.add(sec, f"{which} (same kernel)", "prepare again", "ms", med["prep_again"] * 1e3)
        report.add(sec, f"{which} (new kernel)", "1st dispatch+sync", "ms", med["disp_first"] * 1e3)
        report.add(sec, f"{which} (new kernel)", "2nd dispatch+sync", "ms", med["disp_second"] * 1e3)
    if jx.ok:
        firsts, seconds = [], []
        x = jx.put(np.ones(1024, np.float32))
        for i in range(cfg["compile_samples"]):
            c = K.unique_constant()
            f = jx.jax.jit(lambda v, c=c: v * c + 1.0)
            t0 = time.perf_counter(); f(x).block_until_ready(); t1 = time.perf_counter()
            f(x).block_until_ready(); t2 = time.perf_counter()
            firsts.append(t1 - t0); seconds.append(t2 - t1)
        report.add(sec, "jax.jit x*c+1 (new function)", "1st call (trace+compile)", "ms",
                   jax=statistics.median(firsts) * 1e3)
        report.add(sec, "jax.jit x*c+1 (new function)", "2nd call", "ms",
                   jax=statistics.median(seconds) * 1e3)


def bench_dispatch(report, be, jx, cfg):
    n_disp = cfg["dispatches"]
    section(f"small-kernel dispatch rate ({n_disp} dispatches of a 64-element x+1)")
    kernel = K.tiny(64)
    exe = be.prepare(kernel)
    x = be.upload(np.zeros(64, np.float32))
    out = be.malloc(64 * 4)
    K.dispatch_many(be, exe, [x], out, 10)  # warm: compile on first dispatch
    q = be.queue
    runs = {}
    for mode in ("batched", "sync each", "flush each"):
        best, submits = math.inf, 0
        for _ in range(cfg["dispatch_reps"]):
            s0 = q.submits
            t0 = time.perf_counter()
            if mode == "batched":
                K.dispatch_many(be, exe, [x], out, n_disp)
            elif mode == "sync each":
                K.dispatch_each_sync(be, exe, [x], out, n_disp)
            else:
                for _ in range(n_disp):
                    be.dispatch(exe, [x], [out])
                    q.flush()
                be.synchronize()
            dt_ = time.perf_counter() - t0
            if dt_ < best:
                best, submits = dt_, q.submits - s0
        runs[mode] = (best, submits)
    check(report, be, "tiny x+1 (64)", exe, kernel, [x], np.ones(64, np.float32))
    be.decref(x); be.decref(out)

    jres = {}
    if jx.ok:
        f = jx.jax.jit(lambda v: v + 1.0)
        xj = jx.put(np.zeros(64, np.float32))
        f(xj).block_until_ready()
        for mode in ("batched", "sync each"):
            best = math.inf
            for _ in range(cfg["dispatch_reps"]):
                t0 = time.perf_counter()
                if mode == "batched":
                    r = None
                    for _ in range(n_disp):
                        r = f(xj)
                    r.block_until_ready()
                else:
                    for _ in range(n_disp):
                        f(xj).block_until_ready()
                best = min(best, time.perf_counter() - t0)
            jres[mode] = best
    labels = {"batched": "batched, one sync", "sync each": "synchronize each",
              "flush each": "submit each, one sync"}
    for mode, (t, submits) in runs.items():
        jt = jres.get(mode)
        report.add("dispatch", f"tiny: {labels[mode]}", "dispatches/s", "1/s", n_disp / t,
                   jax=(n_disp / jt) if jt else None, submits=submits, dispatches=n_disp)
        report.add("dispatch", f"tiny: {labels[mode]}", "per dispatch", "us", t / n_disp * 1e6,
                   jax=(jt / n_disp * 1e6) if jt else None, note=f"{submits} submits")


def bench_elementwise(report, be, jx, cfg):
    n = cfg["n"]
    section(f"elementwise, {n / MB:g}M float32 (GB/s of bytes read + written)")
    x_np = K.random_input(n, seed=1)
    x = be.upload(x_np)
    out = be.malloc(n * 4)
    xj = jx.put(x_np) if jx.ok else None
    for name, kernel, ref_fn, jfn in (
            ("exp(x)*2", K.elementwise_exp2(n), K.np_exp2, lambda v: jx.jnp.exp(v) * 2.0),
            ("8-op chain (fused)", K.chain8(n), K.np_chain8, lambda v: K.jnp_chain8(jx.jnp, v))):
        exe = be.prepare(kernel)
        nbytes = 2 * n * 4
        t, iters = time_dispatch(be, exe, [x], out, cfg)
        tn = time_numpy(ref_fn, x_np, cfg)
        tj = jx.time(jfn, xj, cfg["target_s"], cfg["reps"]) if jx.ok else None
        report.add("elementwise", f"{name} {n / MB:g}M", "bandwidth", "GB/s", nbytes / t / 1e9,
                   nbytes / tn / 1e9, nbytes / tj / 1e9 if tj else None,
                   plan=plan_of(exe), iters=iters)
        report.add("elementwise", f"{name} {n / MB:g}M", "time", "ms", t * 1e3, tn * 1e3,
                   tj * 1e3 if tj else None)
        check(report, be, f"{name} {n / MB:g}M", exe, kernel, [x], ref_fn(x_np), rtol=1e-5, atol=1e-5)
    be.decref(x); be.decref(out)
    del xj
    gc.collect()


def bench_reductions(report, be, jx, cfg):
    n = cfg["n"]
    side = max(64, math.isqrt(n) // 64 * 64)
    section("reductions (GB/s of bytes read), float32")
    shapes = [
        ("row sum", (side, side), lambda r, c: K.row_sum(r, c), 1),
        ("full sum", (1, n), lambda r, c: K.full_sum(c), None),
    ]
    if not cfg["quick"]:
        shapes += [
            ("row sum, short rows", (n // 64, 64), lambda r, c: K.row_sum(r, c), 1),
            ("row sum, few long rows", (64, n // 64), lambda r, c: K.row_sum(r, c), 1),
            ("column sum", (side, side), lambda r, c: K.col_sum(r, c), 0),
        ]
    for name, (rows, cols), build, axis in shapes:
        count = rows * cols
        x_np = K.random_input((rows, cols), seed=2, low=0.0, high=1.0)
        x = be.upload(x_np)
        kernel = build(rows, cols)
        out = be.malloc(max(4, kernel.size * 4))
        exe = be.prepare(kernel)
        label = f"{name} {rows}x{cols}" if rows > 1 else f"{name} {count / MB:g}M"
        t, iters = time_dispatch(be, exe, [x], out, cfg)
        ref_fn = (lambda a: a.sum()) if axis is None else (lambda a, ax=axis: a.sum(axis=ax))
        tn = time_numpy(ref_fn, x_np, cfg)
        tj = None
        if jx.ok:
            xj = jx.put(x_np)
            jfn = (lambda v: v.sum()) if axis is None else (lambda v, ax=axis: v.sum(axis=ax))
            tj = jx.time(jfn, xj, cfg["target_s"], cfg["reps"])
            del xj
        nbytes = count * 4
        report.add("reduction", label, "bandwidth", "GB/s", nbytes / t / 1e9, nbytes / tn / 1e9,
                   nbytes / tj / 1e9 if tj else None, plan=plan_of(exe), iters=iters)
        report.add("reduction", label, "time", "ms", t * 1e3, tn * 1e3, tj * 1e3 if tj else None,
                   note=" | ".join(plan_of(exe)))
        ref = x_np.astype(np.float64).sum() if axis is None else x_np.astype(np.float64).sum(axis=axis)
        check(report, be, label, exe, kernel, [x], ref, rtol=1e-4, atol=1e-3)
        be.decref(x); be.decref(out)
        gc.collect()


# -- main --------------------------------------------------------------------------------
def _git_state() -> dict | None:
    """The commit of the tree being measured, and whether it has local changes."""
    import subprocess

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], check=False, cwd=root, capture_output=True,
                              text=True, timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--", "jaxwg"], check=False, cwd=root,
                               capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return {"head": head or None, "jaxwg_modified": bool(dirty)} if head else None


def _loadavg() -> float | None:
    try:
        return os.getloadavg()[0]
    except (AttributeError, OSError):
        return None


def adapter_info(be) -> dict:
    dev = be.device
    info = dict(dev.info)
    limits = dev.limits
    return {
        "describe": be.describe(),
        "backend_type": info.get("backend_type"),
        "adapter_type": info.get("adapter_type"),
        "device": info.get("device"),
        "description": info.get("description"),
        "vendor": info.get("vendor"),
        "is_software": dev.is_software,
        "features": sorted(dev.features),
        "max_storage_binding_bytes": limits.get("max-storage-buffer-binding-size"),
        "max_buffer_bytes": limits.get("max-buffer-size"),
        "max_pending": be.queue.max_pending,
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size-scale", type=float, default=1.0,
                    help="multiply the 16M-element sizes (use 4 on the H200: 64M)")
    ap.add_argument("--json", metavar="PATH", help="also write the results as JSON")
    ap.add_argument("--quick", action="store_true", help="small sizes and few reps (~30 s smoke)")
    ap.add_argument("--no-jax", action="store_true", help="skip the JAX columns")
    ap.add_argument("--dispatches", type=int, help="small-kernel dispatch count (default 2000)")
    args = ap.parse_args(argv)

    base = (2 if args.quick else 16) * MB
    n = max(1024, int(base * args.size_scale) // 1024 * 1024)
    cfg = {
        "quick": args.quick,
        "n": n,
        "dispatches": args.dispatches or (300 if args.quick else 2000),
        "dispatch_reps": 2 if args.quick else 3,
        "reps": 2 if args.quick else 5,
        "target_s": 0.05 if args.quick else 0.25,
        "compile_samples": 3 if args.quick else 7,
    }

    t_start = time.perf_counter()
    be = get_backend("webgpu")
    t_backend = time.perf_counter() - t_start
    jx = Jax(not args.no_jax)
    adapter = adapter_info(be)
    print(f"jaxwg-webgpu adapter: {adapter['describe']}  (backend {adapter['backend_type']}, "
          f"type {adapter['adapter_type']}, {adapter['description']}); "
          f"backend start {t_backend:.2f} s")
    print(f"  features: {', '.join(adapter['features']) or '-'}; max binding "
          f"{adapter['max_storage_binding_bytes'] / MB:g} MiB; queue max_pending {adapter['max_pending']}")
    print(f"numpy {np.__version__}; "
          + (f"jax {jx.describe()['version']} on {jx.describe()['device']}" if jx.ok
             else f"jax: not used ({jx.error})"))
    load0 = _loadavg()
    if load0 is not None:
        busy = "  (machine busy: figures will be noisy)" if load0 > 0.75 * (os.cpu_count() or 1) else ""
        print(f"load average at start: {load0:.2f} on {os.cpu_count()} CPUs{busy}")
    print(f"sizes: n={n} ({n / MB:g}M float32), {cfg['dispatches']} dispatches, "
          f"best of {cfg['reps']} reps of ~{cfg['target_s']} s")

    report = Report()
    bench_compile(report, be, jx, cfg)
    bench_dispatch(report, be, jx, cfg)
    bench_elementwise(report, be, jx, cfg)
    bench_reductions(report, be, jx, cfg)

    elapsed = time.perf_counter() - t_start
    load1 = _loadavg()
    failed = [c["workload"] for c in report.checks if not c["allclose"]]
    print(f"\ncorrectness: {len(report.checks) - len(failed)}/{len(report.checks)} allclose"
          + (f"; FAILED: {', '.join(failed)}" if failed else ""))
    print(f"total {elapsed:.1f} s; queue submits {be.queue.submits}, dispatches recorded "
          f"{be.queue.dispatches_recorded}, pipelines compiled {be.pipelines_compiled}"
          + (f"; load average at end {load1:.2f}" if load1 is not None else ""))

    if args.json:
        doc = {
            "date": datetime.datetime.now().isoformat(timespec="seconds"),
            "host": {"python": platform.python_version(), "machine": platform.machine(),
                     "cpus": os.cpu_count(), "loadavg_start": load0, "loadavg_end": load1},
            "adapter": adapter,
            "git": _git_state(),
            "numpy": np.__version__,
            "jax": jx.describe() or {"error": jx.error},
            "config": cfg,
            "results": report.rows,
            "checks": report.checks,
            "memory_stats": be.memory_stats(),
            "elapsed_s": elapsed,
        }
        os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
        with open(args.json, "w") as f:
            json.dump(doc, f, indent=1, default=str)
        print(f"wrote {args.json}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
