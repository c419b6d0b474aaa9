"""What the IEEE guards cost: fused float32 elementwise kernels compiled with the guards
(the default) and without them (`jaxwg_fast_math`), timed side by side.

    python3 benchmarks/ieee_guards.py [--size N] [--rounds R]

The code generator guards the float ops that a finite-math shader compiler could fold:
a zero constant operand, or one value reaching both operands (docs/ieee.md). Kernels,
over `--size` float32 (default 16M):

* `v * 2 + 1`: nothing to guard (the control: both columns run the same shader);
* the 8-op chain of benchmarks/kernels.py, `exp(sqrt(max(a * a + v, 0.1)) * 0.5)` with
  `a = v * 1.5 + 0.25`, and the one of benchmarks/frontend.py,
  `tanh(sqrt(|sin(exp(v) * 2) + v|) - 0.5) * 3`: v reaches both sides of an add, but
  inside a product of sums or a sine, where no algebra cancels it: nothing to guard;
* `(v * 3 - v) + (v * 3) / (v * 0.5)`: the sub, the division and the add are guarded
  (v is a term or factor on both sides), 3 of 6 ops: a bad case.

Both variants are compiled on two backends that share the device, and dispatched in
alternation (`--rounds` times, each a batch of dispatches and one wait; the best batch
counts), so that a change in the host's load affects both. Prints the adapter used.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if _ROOT not in sys.path:  # run as a script from anywhere: make `jaxwg` importable
    sys.path.insert(0, _ROOT)

from jaxwg.backend.webgpu.backend import WebGPUBackend
from jaxwg.core import alu
from jaxwg.core import dtypes as dt
from jaxwg.core.alu import Op
from jaxwg.core.kernel import Kernel

U = alu.unary


def workloads(n: int) -> dict:
    """name -> (kernel over one float32 input of `n`, the NumPy reference)."""
    v = alu.load(0, dt.float32, alu.gidx(n))
    a = v * 1.5 + 0.25
    chain8 = U(Op.EXP, U(Op.SQRT, alu.binary(Op.MAX, a * a + v, alu.const(dt.float32, 0.1))) * 0.5)
    frontend = U(Op.TANH, U(Op.SQRT, U(Op.ABS, U(Op.SIN, U(Op.EXP, v) * 2.0) + v)) - 0.5) * 3.0
    worst = (v * 3.0 - v) + alu.binary(Op.DIV, v * 3.0, v * 0.5)
    f32 = np.float32
    return {
        "v * 2 + 1": (v * 2.0 + 1.0, lambda x: x * f32(2) + f32(1)),
        "8-op chain (kernels.py)": (chain8, lambda x: np.exp(np.sqrt(np.maximum(
            (x * f32(1.5) + f32(0.25)) ** 2 + x, f32(0.1))) * f32(0.5))),
        "8-op chain (frontend.py)": (frontend, lambda x: np.tanh(np.sqrt(np.abs(
            np.sin(np.exp(x) * f32(2)) + x)) - f32(0.5)) * f32(3)),
        "(v*3 - v) + (v*3) / (v*0.5)": (worst, lambda x: (x * f32(3) - x) + (x * f32(3)) / (x * f32(0.5))),
    }


def batch_seconds(backend, exe, inputs, output, count: int) -> float:
    """Seconds per dispatch over `count` dispatches and one wait."""
    t0 = time.perf_counter()
    for _ in range(count):
        backend.dispatch(exe, inputs, [output])
    backend.synchronize()
    return (time.perf_counter() - t0) / count


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", type=int, default=1 << 24)
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--target-s", type=float, default=0.2, help="seconds per batch")
    args = parser.parse_args(argv)
    backend = WebGPUBackend()
    x = np.random.default_rng(0).uniform(-1, 1, args.size).astype(np.float32)
    print(f"adapter: {backend.describe()}; {args.size} float32; "
          f"{os.cpu_count()} host cores, load {os.getloadavg()[0]:.1f}")
    print(f"{'kernel':28} {'guarded ms':>11} {'fast-math ms':>13} {'cost':>7}")
    for name, (exp, reference) in workloads(args.size).items():
        kernel = Kernel(1, args.size, exp)
        runs = []
        for fast_math in (False, True):
            exe = backend.prepare(kernel, fast_math=fast_math)
            inputs, output = [backend.upload(x)], backend.malloc(4 * args.size)
            backend.dispatch(exe, inputs, [output])
            got = backend.download(output, dt.float32, args.size)
            with np.errstate(all="ignore"):
                np.testing.assert_allclose(got, reference(x), rtol=1e-4, atol=2e-3, err_msg=name)
            count = max(1, int(args.target_s / batch_seconds(backend, exe, inputs, output, 1)))
            runs.append((backend, exe, inputs, output, count))
        best = [float("inf"), float("inf")]
        for _ in range(args.rounds):
            for i, run in enumerate(runs):
                best[i] = min(best[i], batch_seconds(*run))
        for _, _, inputs, output, _ in runs:
            for slot in inputs + [output]:
                backend.decref(slot)
        g, f = (t * 1e3 for t in best)
        print(f"{name:28} {g:11.3f} {f:13.3f} {100 * (g / f - 1):+6.1f}%")
    return 0


if __name__ == "__main__":
    sys.exit(main())
