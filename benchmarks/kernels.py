"""Kernel builders and run helpers shared by the benchmarks (`backend.py`, `test_bench_kernels.py`).

The tracing frontend does not exist yet, so every workload is written directly in
the kernel IR (`jaxwg.core.alu` expressions in a `Kernel`, optionally with a
`Reduction`). Each builder here returns a `Kernel`; each `np_*` function is the
NumPy reference of the same workload (what the result is checked against).

>>> import numpy as np
>>> from jaxwg.backend import get_backend
>>> be = get_backend("cpu")
>>> x = np.arange(8, dtype=np.float32).reshape(2, 4)
>>> run_once(be, row_sum(2, 4), [x])
array([ 6., 22.], dtype=float32)
>>> run_once(be, fill(3, 7.0), [])
array([7., 7., 7.], dtype=float32)
"""

from __future__ import annotations

import itertools
import os
import sys

import numpy as np

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if _ROOT not in sys.path:  # run as a script from anywhere: make `jaxwg` importable
    sys.path.insert(0, _ROOT)

from jaxwg.core import alu
from jaxwg.core import dtypes as dt
from jaxwg.core.alu import Op
from jaxwg.core.kernel import Kernel, Reduction

F32 = dt.float32


def _x(n: int, arg: int = 0) -> alu.AluExp:
    """Element `gidx` of float32 input `arg` of length `n`."""
    return alu.load(arg, F32, alu.gidx(n))


# -- elementwise -----------------------------------------------------------------------
def elementwise_exp2(n: int) -> Kernel:
    """exp(x) * 2 over `n` float32: one read and one write per element."""
    return Kernel(1, n, alu.unary(Op.EXP, _x(n)) * 2.0)


def np_exp2(x: np.ndarray) -> np.ndarray:
    return np.exp(x) * np.float32(2.0)


def chain8(n: int) -> Kernel:
    """An 8-op elementwise chain fused into one kernel, over `n` float32:
    exp(sqrt(max((x*1.5 + 0.25)**2 + x, 0.1)) * 0.5).

    The ops: mul, add, mul (square), add, max, sqrt, mul, exp -- mostly cheap
    arithmetic, so the fused kernel stays close to memory-bound. NumPy runs each op
    as a separate pass over memory; jaxwg and XLA run one fused kernel."""
    x = _x(n)
    a = x * 1.5 + 0.25
    t = alu.binary(Op.MAX, a * a + x, alu.const(F32, 0.1))
    return Kernel(1, n, alu.unary(Op.EXP, alu.unary(Op.SQRT, t) * 0.5))


def np_chain8(x: np.ndarray) -> np.ndarray:
    a = x * np.float32(1.5) + np.float32(0.25)
    return np.exp(np.sqrt(np.maximum(a * a + x, np.float32(0.1))) * np.float32(0.5))


def jnp_chain8(jnp, x):
    """The same chain in jax.numpy (`jnp` passed in, so this module needs no JAX)."""
    a = x * 1.5 + 0.25
    return jnp.exp(jnp.sqrt(jnp.maximum(a * a + x, 0.1)) * 0.5)


def tiny(n: int = 64) -> Kernel:
    """x + 1 over `n` float32: the dispatch-overhead kernel."""
    return Kernel(1, n, _x(n) + 1.0)


def fill(n: int, value: float) -> Kernel:
    """A nullary kernel: `n` float32 equal to `value` (constants are lifted into
    uniforms on WebGPU, so every value shares one pipeline)."""
    return Kernel(0, n, alu.const(F32, value))


# -- reductions ------------------------------------------------------------------------
def row_sum(rows: int, cols: int, epilogue_scale: float | None = None) -> Kernel:
    """Sum of a (rows, cols) float32 matrix over its last axis (Reduction ADD).

    `epilogue_scale`, when given, multiplies each sum by that constant in the
    reduction epilogue: a cheap way to make a kernel whose WGSL no cache has seen."""
    x = alu.load(0, F32, alu.gidx(rows) * cols + alu.ridx(cols))
    red = Reduction(Op.ADD, F32, cols)
    if epilogue_scale is not None:
        red = Reduction(Op.ADD, F32, cols, red.acc * float(epilogue_scale))
    return Kernel(1, rows, x, red)


def col_sum(rows: int, cols: int) -> Kernel:
    """Sum of a (rows, cols) float32 matrix over its first axis: `cols` outputs, each
    reducing a strided column (neighbouring outputs read neighbouring addresses)."""
    x = alu.load(0, F32, alu.ridx(rows) * cols + alu.gidx(cols))
    return Kernel(1, cols, x, Reduction(Op.ADD, F32, rows))


def full_sum(n: int) -> Kernel:
    """The sum of `n` float32 (one output; split into two passes on WebGPU)."""
    return Kernel(1, 1, alu.load(0, F32, alu.ridx(n)), Reduction(Op.ADD, F32, n))


# Random start: Mesa keeps an on-disk shader cache, so constants reused by an earlier
# process would hit it and hide the compile time.
_unique = itertools.count(1 + int.from_bytes(os.urandom(4), "little") % (1 << 22))


def unique_constant() -> float:
    """A float32 in [1, 1.5) that no earlier call (and very likely no earlier run) made."""
    return 1.0 + next(_unique) % (1 << 22) * 2.0 ** -23


def unique_kernel(n: int = 1024) -> Kernel:
    """An elementwise kernel over `n` float32 computing x * c + 1 with c from
    `unique_constant()`, so its WGSL text, and its pipeline, are new."""
    return Kernel(1, n, _x(n) * unique_constant() + 1.0)


def unique_reduction(rows: int = 64, cols: int = 256) -> Kernel:
    """A row sum with a never-seen constant in its epilogue (a pipeline cache miss)."""
    return row_sum(rows, cols, epilogue_scale=unique_constant())


# -- running ---------------------------------------------------------------------------
def run_once(backend, kernel: Kernel, inputs, exe=None) -> np.ndarray:
    """Upload `inputs` (NumPy arrays) or use them as slots (ints), run `kernel` once,
    and return its float32 output as a NumPy array. Slots made here are freed."""
    exe = exe if exe is not None else backend.prepare(kernel)
    owned, slots = [], []
    for a in inputs:
        if isinstance(a, (int, np.integer)):
            slots.append(int(a))
        else:
            s = backend.upload(np.ascontiguousarray(a, np.float32))
            owned.append(s)
            slots.append(s)
    out = backend.malloc(max(4, kernel.size * 4))
    try:
        backend.dispatch(exe, slots, [out])
        return backend.download(out, kernel.dtype, kernel.size)
    finally:
        backend.decref(out)
        for s in owned:
            backend.decref(s)


def dispatch_many(backend, exe, inputs, output, count: int) -> None:
    """Dispatch a prepared kernel `count` times into `output`, then one `synchronize()`."""
    for _ in range(count):
        backend.dispatch(exe, inputs, [output])
    backend.synchronize()


def dispatch_each_sync(backend, exe, inputs, output, count: int) -> None:
    """Dispatch a prepared kernel `count` times with a `synchronize()` after each."""
    for _ in range(count):
        backend.dispatch(exe, inputs, [output])
        backend.synchronize()


def random_input(shape, seed: int = 0, low: float = -1.0, high: float = 1.0) -> np.ndarray:
    """Uniform float32 test data (generated in float32, without a float64 temporary)."""
    rng = np.random.default_rng(seed)
    out = rng.random(shape, dtype=np.float32)
    out *= np.float32(high - low)
    out += np.float32(low)
    return out
