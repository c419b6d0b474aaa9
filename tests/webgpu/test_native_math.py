"""Native WGSL math in place of the helpers where the adapter's builtin is accurate."""

import numpy as np

from jaxwg.backend.webgpu import native_math
from jaxwg.backend.webgpu.backend import WebGPUExecutable
from jaxwg.core import alu
from jaxwg.core import dtypes as dt
from jaxwg.core.alu import Op
from jaxwg.core.kernel import Kernel


def _tanh_of(x: np.ndarray, ulps_off: float) -> np.ndarray:
    """float32 tanh moved by `ulps_off` units of its spacing."""
    want = np.tanh(x.astype(np.float64))
    return (want + ulps_off * np.spacing(np.abs(want).astype(np.float32))).astype(np.float32)


def test_a_native_variant_is_taken_only_within_the_bound():
    def run_with(off):
        return lambda kernel, x, natives: _tanh_of(x, off)
    assert native_math.measure(run_with(1.0)) == {"tanh_native_f32"}
    assert native_math.measure(run_with(native_math.MAX_ULPS + 2)) == frozenset()


def test_the_adapters_choice_is_accurate(webgpu):
    """Each accepted variant holds on another sample; the software adapters' tanh,
    (e^2x - 1) / (e^2x + 1), is refused (thousands of ulp near 0), and so is their fma,
    which rounds twice (the float64 one is taken where there is float64)."""
    chosen = webgpu.native_math()
    if "llvmpipe" in webgpu.describe():
        assert not chosen & {"tanh_native_f32", "fma_native_f32"}
        assert ("fma_wide_f32" in chosen) == ("shader-f64" in webgpu.device.features)
    for c in native_math.CANDIDATES:
        if c.variant in chosen:
            x = c.samples(np.random.default_rng(1))
            got = webgpu._run_with_natives(c.kernel(x.size), x, frozenset({c.variant}))
            assert native_math.within_ulps(got, c.reference(x.astype(np.float64)), c.max_ulps)


def test_the_native_tanh_keeps_the_helpers_guards(webgpu):
    """tanh_native_f32 returns NaN, -0.0 and tiny arguments as they are and saturates
    at +-inf, on any adapter (its accuracy in between is the adapter's)."""
    x = np.float32([np.nan, -0.0, 1e-5, -1e-30, np.inf, -np.inf, 30.0])
    got = webgpu._run_with_natives(_kernel(Op.TANH, x.size), x, frozenset({"tanh_native_f32"}))
    np.testing.assert_array_equal(got[1:], np.float32([-0.0, 1e-5, -1e-30, 1.0, -1.0, 1.0]))
    assert np.isnan(got[0]) and np.signbit(got[1])
    exe = webgpu._plan_and_compile(_kernel(Op.TANH, 8), None, False, frozenset({"tanh_native_f32"}))
    assert isinstance(exe, WebGPUExecutable) and "tanh_native_f32(" in exe.shader_sources()[0]


def _kernel(op: Op, n: int) -> Kernel:
    return Kernel(1, n, alu.unary(op, alu.load(0, dt.float32, alu.gidx(n))))
