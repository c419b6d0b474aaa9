"""What each accurate float32 math helper costs, and how accurate the adapter's native
WGSL builtin of the same name is.

    python3 benchmarks/helpers.py [--size N] [--ops exp tanh ...]

For each op, `y = op(x)` over N float32 (default 64M on a hardware adapter, 4M on a
software one) runs three ways through the backend: with jaxwg's helper (`exp_f32`,
`tanh_f32`, ...; builtins.py), with the WGSL builtin (the helper removed from the
table for that run), and `y = x` (a copy: the memory-bound floor). Reported: GB/s of
each, and the largest error in ulp against float64 NumPy of helper and builtin over
inputs spread across the op's domain (outside it, both are checked for the special
values separately by the tests). A builtin within the accuracy bound of
tests/backend/test_ops.py at no cost difference is where the helper could go; a
helper that costs nothing measurable should stay.
"""

from __future__ import annotations

import argparse
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from backend import best_time  # noqa: E402

from jaxwg.backend.webgpu import builtins  # noqa: E402
from jaxwg.backend.webgpu.backend import get_webgpu_backend  # noqa: E402
from jaxwg.core import alu  # noqa: E402
from jaxwg.core import dtypes as dt  # noqa: E402
from jaxwg.core.kernel import Kernel  # noqa: E402

# op: (Op, helper, NumPy function, input range for the accuracy sample); ops WGSL has a
# builtin for (erf has none).
OPS = {
    "exp": (alu.Op.EXP, "exp_f32", np.exp, (-87.0, 88.0)),
    "exp2": (alu.Op.EXP2, "exp2_f32", np.exp2, (-126.0, 127.0)),
    "log": (alu.Op.LOG, "log_f32", np.log, (1e-30, 1e30)),
    "log2": (alu.Op.LOG2, "log2_f32", np.log2, (1e-30, 1e30)),
    "sin": (alu.Op.SIN, "sin_f32", np.sin, (-1e4, 1e4)),
    "cos": (alu.Op.COS, "cos_f32", np.cos, (-1e4, 1e4)),
    "tan": (alu.Op.TAN, "tan_f32", np.tan, (-100.0, 100.0)),
    "tanh": (alu.Op.TANH, "tanh_f32", np.tanh, (-20.0, 20.0)),
    "atan": (alu.Op.ATAN, "atan_f32", np.arctan, (-1e4, 1e4)),
}


def ulps(got: np.ndarray, want: np.ndarray) -> float:
    """Largest distance in float32 ulps of the reference value (finite results only).
    Relative to the value: near a zero of the function (cos near pi/2) an error that is
    small against 1 counts many ulps."""
    want32 = want.astype(np.float32)
    spacing = np.spacing(np.abs(want32)).astype(np.float64)
    ok = np.isfinite(want32) & np.isfinite(got)
    return float(np.max(np.abs(got[ok].astype(np.float64) - want[ok]) / spacing[ok])) if ok.any() else math.nan


def sample(lo: float, hi: float, n: int, rng) -> np.ndarray:
    if lo > 0:  # spread over the exponents
        return np.exp(rng.uniform(np.log(lo), np.log(hi), n)).astype(np.float32)
    return rng.uniform(lo, hi, n).astype(np.float32)


def main() -> None:
    be = get_webgpu_backend()
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--size", type=int, default=(1 << 22) if be.device.is_software else (1 << 26))
    p.add_argument("--ops", nargs="*", default=list(OPS))
    args = p.parse_args()
    n = args.size
    print(f"adapter: {be.describe()}; {n} float32", flush=True)
    rng = np.random.default_rng(0)
    x = be.upload(rng.standard_normal(n, dtype=np.float32))
    out = be.malloc(4 * n)
    probe_n = 1 << 16
    probe_out = be.malloc(4 * probe_n)

    def gbps(kernel: Kernel) -> float:
        exe = be.prepare(kernel)
        seconds, _ = best_time(lambda: be.dispatch(exe, [x], [out]), be.synchronize, 0.3, 5)
        return 8 * n / seconds / 1e9

    copy = gbps(Kernel(1, n, alu.load(0, dt.float32, alu.gidx(n))))
    print(f"{'op':<6} {'helper GB/s':>12} {'builtin GB/s':>13} {'copy GB/s':>10} {'helper ulp':>11} {'builtin ulp':>12}")
    for name in args.ops:
        op, helper, reference, (lo, hi) = OPS[name]
        inputs = sample(lo, hi, probe_n, rng)
        want = reference(inputs.astype(np.float64))
        probe = be.upload(inputs)
        results = {}
        for variant in ("helper", "builtin"):
            saved = builtins.HELPERS.pop(helper) if variant == "builtin" else None
            try:
                be._executables.clear()  # the same kernel, compiled again without the helper
                speed = gbps(Kernel(1, n, alu.unary(op, alu.load(0, dt.float32, alu.gidx(n)))))
                kernel = Kernel(1, probe_n, alu.unary(op, alu.load(0, dt.float32, alu.gidx(probe_n))))
                be.dispatch(be.prepare(kernel), [probe], [probe_out])
                got = be.download(probe_out, dt.float32, probe_n)
                results[variant] = (speed, ulps(got, want))
            finally:
                if saved is not None:
                    builtins.HELPERS[helper] = saved
                be._executables.clear()
        be.decref(probe)
        (hs, hu), (bs, bu) = results["helper"], results["builtin"]
        print(f"{name:<6} {hs:12.0f} {bs:13.0f} {copy:10.0f} {hu:11.1f} {bu:12.1f}", flush=True)
    for slot in (x, out, probe_out):
        be.decref(slot)


if __name__ == "__main__":
    main()
