"""A tour of what runs today: kernels written in the IR, run on the default backend.

`python -m jaxwg.demo` builds three kernels directly from `AluExp` expressions
(the tracing frontend, `jaxwg.numpy` and `jit`, will produce kernels like these),
runs them on the default backend (WebGPU; `JAXWG_PLATFORMS=cpu` picks the NumPy
reference backend) and compares each result with NumPy:

* a fused elementwise chain, `exp(x) * 2 + 1` over 1M float32: one kernel, one
  pass over memory, no intermediate arrays;
* a reduction with an epilogue: the mean of each row of a 1000x1000 matrix, as a
  row sum whose result is scaled by 1/1000 inside the same kernel;
* nullary fills (no inputs): on WebGPU the fill value is passed at dispatch time,
  so filling with 3.5 and with -1 share one compiled pipeline.

It prints the device, one line per kernel ("ok" or "MISMATCH" with the largest
error, and wall times), and exits with status 1 if any result differs from NumPy.
`JAXWG_WEBGPU_ADAPTER=opengl` (or `vulkan`, or any part of an adapter's name)
chooses the WebGPU adapter.
"""

from __future__ import annotations

import os
import sys
import time

import numpy as np


def _quiet_mesa() -> None:
    """Mesa's OpenGL driver complains on stderr when XDG_RUNTIME_DIR is unset; give it one."""
    if os.environ.get("XDG_RUNTIME_DIR"):
        return
    path = f"/tmp/xdg-{os.getuid()}" if hasattr(os, "getuid") else None
    if path is None:
        return
    try:
        os.makedirs(path, mode=0o700, exist_ok=True)
        os.environ["XDG_RUNTIME_DIR"] = path
    except OSError:
        pass


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:8.2f} ms"


def run_kernel(be, kernel, inputs: list[np.ndarray], expected: np.ndarray, label: str,
               repeats: int = 3) -> bool:
    """Prepare and run `kernel` on `be`, compare with `expected`, print one line."""
    slots = [be.upload(a) for a in inputs]
    out = be.malloc(kernel.size * be.storage_dtype(kernel.dtype).itemsize)
    t0 = time.perf_counter()
    exe = be.prepare(kernel)
    t_prepare = time.perf_counter() - t0

    times = []
    for _ in range(repeats):  # dispatch + read back; the first run includes driver warm-up
        t0 = time.perf_counter()
        be.dispatch(exe, slots, [out])
        result = be.download(out, kernel.dtype, kernel.size)
        times.append(time.perf_counter() - t0)
    for s in [*slots, out]:
        be.decref(s)

    ok = result.dtype == expected.dtype and np.allclose(result, expected, rtol=1e-5, atol=1e-6)
    err = float(np.max(np.abs(result.astype(np.float64) - expected.astype(np.float64)), initial=0.0))
    status = "ok" if ok else "MISMATCH"
    print(f"  {label:<34} {status:<8} max err {err:.1e}   prepare {_ms(t_prepare)}"
          f"   first run {_ms(times[0])}   best run {_ms(min(times))}")
    return ok


def main() -> int:
    _quiet_mesa()
    from jaxwg.backend import get_backend
    from jaxwg.core import alu
    from jaxwg.core import dtypes as dt
    from jaxwg.core.kernel import Kernel, Reduction

    try:
        be = get_backend()
    except RuntimeError as e:  # no WebGPU adapter at all
        print(f"jaxwg demo: {e}\nTry JAXWG_PLATFORMS=cpu for the NumPy reference backend.")
        return 2
    kind = "NumPy reference" if be.name == "cpu" else "WebGPU adapter"
    print(f"backend: {be.name}   {kind}: {be.describe()}")
    print("(prepare: plan and compile; run: dispatch and read the result back into NumPy)")
    rng = np.random.default_rng(0)
    f32 = dt.float32
    results = []

    # 1. exp(x) * 2 + 1 over 1M float32: three ops fused into one kernel.
    n = 1 << 20
    x = rng.standard_normal(n, dtype=np.float32)
    xi = alu.load(0, f32, alu.gidx(n))  # input 0, element gidx
    chain = Kernel(1, n, alu.unary(alu.Op.EXP, xi) * 2.0 + 1.0)
    results.append(run_kernel(be, chain, [x], np.exp(x) * 2 + 1, "exp(x) * 2 + 1, 1M float32"))

    # 2. Row means of a 1000x1000 matrix: sum over ridx, then the epilogue scales `acc`.
    #    AluExp has no float division; JAX-style a / b lowers to a * reciprocal(b).
    rows = cols = 1000
    m = rng.standard_normal((rows, cols), dtype=np.float32)
    term = alu.load(0, f32, alu.gidx(rows) * cols + alu.ridx(cols))
    acc = alu.variable(f32, "acc")
    mean = Reduction(alu.Op.ADD, f32, cols, epilogue=acc * alu.unary(alu.Op.RECIPROCAL, alu.const(f32, cols)))
    row_mean = Kernel(1, rows, term, mean)
    results.append(run_kernel(be, row_mean, [m], m.mean(axis=1), "row mean, 1000x1000 float32"))

    # 3. Fills: kernels with no inputs. On WebGPU their constants are lifted into
    #    per-dispatch data, so the second fill reuses the first one's pipeline.
    before = getattr(be, "pipelines_compiled", None)
    for value in (3.5, -1.0):
        fill = Kernel(0, n, alu.const(f32, value))
        results.append(run_kernel(be, fill, [], np.full(n, value, np.float32), f"fill({value}), 1M float32"))
    if before is not None:
        print(f"  pipelines compiled for the two fills: {be.pipelines_compiled - before}")

    if all(results):
        print("all results match NumPy")
        return 0
    print("some results differ from NumPy")
    return 1


if __name__ == "__main__":
    sys.exit(main())
