"""Native WGSL math where the adapter's builtin is as accurate as jaxwg's helper.

jaxwg computes float32 math through accurate helpers (`builtins.py`) because native
WGSL builtins vary by adapter: lavapipe's `tanh` is 683-4088 ulp off near 0, NVIDIA's
`exp` 61 ulp. Where an adapter's builtin is already within the helper's accuracy it is
cheaper: on the H200, `tanh` through the native builtin ran at 3991 GB/s against the
helper's 3771, and the 8-op chain of docs/performance.md at 3098 against 2631 (JAX
3697), at 1.7 ulp against the helper's 1.6. So each backend measures, once, each
candidate's native variant (`builtins.NATIVE_VARIANTS`, which keep the helper's
guards for NaN and tiny arguments) on a fixed sample against NumPy in float64, and
uses the variants within `MAX_ULPS`, measuring on the first kernel that could use one.

The fused multiply-add is a candidate too, held to 0 ulp: the WGSL builtin replaces
the helper that builds the fused result only where it fuses (NVIDIA's does, lavapipe's
rounds twice), and where it does not, a variant through float64 does where the adapter
has float64 (lavapipe, this 2-core machine: `random.normal` of 2^20 values, whose
erf_inv takes 25 fused steps, 47.2-47.6 -> 37.6-37.8 ms; JAX on the same CPU 5.2).
Variants are measured in `builtins.NATIVE_VARIANTS`' order of preference, and one
whose helper already has an accepted variant is not measured.

>>> sorted(c.variant for c in CANDIDATES)
['fma_native_f32', 'fma_wide_f32', 'tanh_native_f32']
>>> within_ulps(np.float32([1.0, 0.5]), np.float64([1.0, 0.5 + 2 ** -24]), 1.0)
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from ...core import alu
from ...core import dtypes as dt
from ...core.alu import Op
from ...core.alu_eval import fma_array
from ...core.kernel import Kernel
from .builtins import NATIVE_VARIANTS
from .codegen import UnsupportedError

# The helpers' own error on the adapters measured (tanh_f32: 1.6 ulp on the H200, 2.4
# on lavapipe, relative to the value): a native builtin within it may replace them.
MAX_ULPS = 2.5


def _tanh_samples(rng: np.random.Generator) -> np.ndarray:
    """Uniform over [-20, 20], and magnitudes log-spaced over [2e-4, 10] of either
    sign, where a builtin computed as (e^2x - 1) / (e^2x + 1) cancels (below 2e-4 the
    variant returns x, as the helper does)."""
    uniform = rng.uniform(-20, 20, 4096)
    small = np.exp(rng.uniform(np.log(2e-4), np.log(10), 4096)) * rng.choice([-1, 1], 4096)
    return np.concatenate([uniform, small]).astype(np.float32)


# fma(x, _FMA_B, -1) for x = 1 + k 2^-12: the product needs up to 33 bits, so rounding it
# before the sum (an fma that does not fuse) moves the small result by many ulp.
_FMA_B = 1.0 + 2.0 ** -12 + 2.0 ** -21


def _fma_samples(rng: np.random.Generator) -> np.ndarray:
    k = rng.integers(1, 1 << 12, 4096)
    return np.concatenate([1.0 + k * 2.0 ** -12, -(1.0 + k * 2.0 ** -11)]).astype(np.float32)


def _fma_reference(x: np.ndarray) -> np.ndarray:
    b, c = np.float32(_FMA_B), np.float32(-1.0)
    return fma_array(x.astype(np.float32), b, c, dt.float32).astype(np.float64)


@dataclass(frozen=True)
class Candidate:
    variant: str  # a variant that may replace a helper (in builtins.NATIVE_VARIANTS)
    op: Op
    reference: Callable[[np.ndarray], np.ndarray]  # NumPy, on float64
    samples: Callable[[np.random.Generator], np.ndarray]
    build: Callable[[alu.AluExp], alu.AluExp] | None = None  # the op of one input (default unary)
    max_ulps: float = MAX_ULPS

    def kernel(self, n: int) -> Kernel:
        """The one-input kernel measured: the op of each of `n` float32 inputs."""
        x = alu.load(0, dt.float32, alu.gidx(n))
        return Kernel(1, n, self.build(x) if self.build else alu.unary(self.op, x))


def _fma_of(x: alu.AluExp) -> alu.AluExp:
    return alu.fma(x, alu.const(dt.float32, _FMA_B), alu.const(dt.float32, -1.0))


# Each variant's helper's variants (`builtins.NATIVE_VARIANTS`).
_ALTERNATIVES = {v: variants for variants in NATIVE_VARIANTS.values() for v in variants}

CANDIDATES = (
    Candidate("tanh_native_f32", Op.TANH, np.tanh, _tanh_samples),
    Candidate("fma_native_f32", Op.FMA, _fma_reference, _fma_samples, _fma_of, 0.0),
    Candidate("fma_wide_f32", Op.FMA, _fma_reference, _fma_samples, _fma_of, 0.0),
)


def uses_candidates(kernel: Kernel) -> bool:
    """Whether `kernel` computes an op a native variant may serve: only then is the
    measurement worth its compile (a process that never calls tanh skips it)."""
    ops = {c.op for c in CANDIDATES}
    return any(node.op in ops for exp in kernel.expressions for node in exp.toposort())


def within_ulps(got: np.ndarray, want: np.ndarray, ulps: float) -> bool:
    """Whether every float32 result is within `ulps` of the float64 reference, in units
    of the reference's float32 spacing (NaN where NaN is expected)."""
    spacing = np.spacing(np.abs(want).astype(np.float32)).astype(np.float64)
    with np.errstate(invalid="ignore"):
        error = np.abs(got.astype(np.float64) - want) / spacing
    return bool(np.all((error <= ulps) | (np.isnan(got) & np.isnan(want))))


def measure(run: Callable[[Kernel, np.ndarray, frozenset], np.ndarray]) -> frozenset[str]:
    """The variants that are accurate on the adapter that `run(kernel, inputs,
    native_math)` computes a one-input kernel on (one it cannot compile, such as float64
    on an adapter without it, is not)."""
    rng = np.random.default_rng(0)
    accepted = set()
    for c in CANDIDATES:
        x = c.samples(rng)  # drawn for every candidate: each one's sample stays the same
        if accepted & set(_ALTERNATIVES[c.variant]):  # a preferred variant serves its helper
            continue
        try:
            got = run(c.kernel(x.size), x, frozenset({c.variant}))
        except UnsupportedError:
            continue
        if within_ulps(got, c.reference(x.astype(np.float64)), c.max_ulps):
            accepted.add(c.variant)
    return frozenset(accepted)
