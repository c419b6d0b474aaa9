"""Row kernels (kernels with row stages: softmax, layer norm) under each thread mapping.

    python3 benchmarks/rows.py [--rows 8192] [--length 8192] [--mappings 256/256 256/64 ...]

The kernel comes from the public API's fusion (`fusion.schedule` of a softmax and of a
layer norm over a rows x length float32 matrix); each mapping "workgroup/group" runs it
through the backend with that many threads per workgroup and per row, its steps unrolled
(each vec4 read once, kept for every stage; up to `templates.MAX_UNROLLED_STEPS` steps,
else it loops anyway) and looped (each stage reads the row again),
20 dispatches back to back and one wait, best of 5. Reported: GB/s of the bytes the
kernel must move (the input read once, the output written once), next to a plain copy
of the same bytes through the elementwise template (the floor). The results are checked
against NumPy first.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from dataclasses import replace

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import jaxwg.numpy as jnp  # noqa: E402
from jaxwg.backend import get_backend  # noqa: E402
from jaxwg.backend.webgpu import templates  # noqa: E402
from jaxwg.backend.webgpu.tuner import plan  # noqa: E402
from jaxwg.core import alu, dtypes as dt  # noqa: E402
from jaxwg.core.kernel import Kernel  # noqa: E402
from jaxwg.frontend.fusion import schedule  # noqa: E402


def softmax(m, x):
    e = m.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def layer_norm(m, x):
    mean = x.mean(axis=1, keepdims=True)
    return (x - mean) / m.sqrt(((x - mean) ** 2).mean(axis=1, keepdims=True) + 1e-5)


def seconds(be, exe, inputs, out, times: int = 20, reps: int = 5) -> float:
    best = float("inf")
    be.dispatch(exe, inputs, [out])
    be.synchronize()
    for _ in range(reps):
        start = time.perf_counter()
        for _ in range(times):
            be.dispatch(exe, inputs, [out])
        be.synchronize()
        best = min(best, (time.perf_counter() - start) / times)
    return best


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rows", type=int, default=8192)
    p.add_argument("--length", type=int, default=8192)
    p.add_argument("--mappings", nargs="*", default=["256/256", "256/128", "256/64", "128/128", "64/64"])
    args = p.parse_args()
    be = get_backend("webgpu")
    unroll_limit = templates.MAX_UNROLLED_STEPS
    print(f"adapter: {be.describe()}; {time.strftime('%Y-%m-%d')}", flush=True)
    x = np.random.default_rng(0).standard_normal((args.rows, args.length)).astype(np.float32)
    nbytes = 2 * x.nbytes
    slot = be.malloc(x.nbytes, x)
    out = be.malloc(x.nbytes)
    try:
        copy = Kernel(1, x.size, alu.load(0, dt.float32, alu.gidx(x.size)))
        print(f"copy: {nbytes / seconds(be, be.prepare(copy), [slot], out) / 1e9:.0f} GB/s", flush=True)
        for name, fn in [("softmax", softmax), ("layer norm", layer_norm)]:
            (step,) = schedule([fn(jnp, jnp.asarray(x)).node])
            kernel = step.kernel
            want = fn(np, x.astype(np.float64))
            (default,) = plan(kernel, be.traits)
            for mapping in args.mappings:
                wg, group = map(int, mapping.split("/"))
                tuning = replace(default.tuning, workgroup_size=wg, group=group)
                for unrolled in (True, False):
                    templates.MAX_UNROLLED_STEPS = unroll_limit if unrolled else 0
                    be._executables = type(be._executables)(64)  # compile under the new setting
                    exe = be.prepare(kernel, tuning)
                    rate = nbytes / seconds(be, exe, [slot], out) / 1e9
                    got = np.frombuffer(be.read(out, 0, x.nbytes), np.float32).reshape(x.shape)
                    err = float(np.max(np.abs(got - want)))
                    print(f"{name:10s} {mapping:>8s} {'unrolled' if unrolled else 'looped':8s} "
                          f"{rate:7.0f} GB/s  max error {err:.1e}", flush=True)
    finally:
        be.decref(slot)
        be.decref(out)


if __name__ == "__main__":
    main()
