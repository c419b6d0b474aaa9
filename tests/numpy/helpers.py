"""Comparison helpers for the public-API tests."""

import os

import jax
import jax.numpy as jax_numpy  # noqa: F401 - the tests import JAX, their oracle, from here
import numpy as np

import jaxwg

jax.config.update("jax_platforms", "cpu")  # the `test` extra installs JAX for the CPU

# Default tolerances by dtype: exactly rounded ops are held tighter by passing rtol.
RTOL = {np.dtype("float16"): 2e-3, np.dtype("float32"): 2e-6, np.dtype("float64"): 1e-12}


# WGSL lets GPUs divide within 2.5 ulp (NVIDIA computes a * (1 / b)), and sqrt inherits
# that: results the CPU backend and the software adapters round correctly may be a few
# ulp off on a GPU, and subnormal intermediates flush to zero there.
GPU_ROUNDING_RTOL = 5e-7
GPU_FLUSH_ATOL = 4 * float(np.finfo(np.float32).tiny)


def jax_dtype(fn, *args, **kwargs) -> np.dtype:
    """The dtype of JAX's `fn(*args, **kwargs)`, from tracing alone: running it would
    compile an XLA program (40-120 ms each) only to read its dtype."""
    return np.dtype(jax.eval_shape(lambda: fn(*args, **kwargs)).dtype)


def rounds_correctly() -> bool:
    """Whether the current platform (`JAXWG_PLATFORMS`) rounds float division and sqrt
    correctly and keeps subnormals: the CPU backend and software adapters do."""
    if os.environ.get("JAXWG_PLATFORMS", "webgpu").split(",")[0] == "cpu":
        return True
    return jaxwg.devices("webgpu")[0].backend.device.is_software


def exact_rtol(rtol: float) -> float:
    """`rtol` for a result that is exact on a correctly rounding platform."""
    return rtol if rtol or rounds_correctly() else GPU_ROUNDING_RTOL


def flush_atol(atol: float) -> float:
    """`atol` widened to the subnormal range where the platform flushes subnormals."""
    return atol if rounds_correctly() else max(atol, GPU_FLUSH_ATOL)


def kernels_for(fn, *args, mode):
    """Kernels one evaluation of `fn` dispatches (for `mode="jit"`: a cached call), and
    its result. Arguments are realized first, so only `fn`'s own kernels count."""
    from jaxwg.frontend.execute import counters

    if mode == "jit":
        fn = jaxwg.jit(fn)
        jaxwg.block_until_ready(fn(*args))
    for a in args:
        a.block_until_ready()
    before = counters["kernels"]
    out = fn(*args)
    jaxwg.block_until_ready(out)
    return counters["kernels"] - before, out


def assert_array(actual, expected, *, dtype=None, rtol=None, atol=0.0, weak_type=None):
    """`actual` (a jaxwg Array) equals `expected` (NumPy): dtype, shape, values.

    NaNs must match NaNs, infinities must match in sign; floats are compared with `rtol`
    (default by dtype) and `atol`. `dtype` overrides the expected dtype.
    """
    assert isinstance(actual, jaxwg.Array), f"expected a jaxwg.Array, got {type(actual)}"
    expected = np.asarray(expected)
    want = np.dtype(dtype) if dtype is not None else expected.dtype
    assert actual.dtype == want, f"dtype {actual.dtype} != {want}"
    if weak_type is not None:
        assert actual.weak_type == weak_type, f"weak_type {actual.weak_type} != {weak_type}"
    got = np.asarray(actual)
    assert got.shape == expected.shape, f"shape {got.shape} != {expected.shape}"
    expected = expected.astype(want)
    if want.kind == "f":
        tol = RTOL[want] if rtol is None else rtol
        np.testing.assert_allclose(got, expected, rtol=tol, atol=atol, equal_nan=True)
    else:
        np.testing.assert_array_equal(got, expected)


def assert_close(got, want, rtol=1e-6, atol=1e-6):
    """Same dtype and shape; values within a few float32 roundings (sums of products
    and divisions in another order than XLA's)."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, want.dtype,
                                                                  got.shape, want.shape)
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, equal_nan=True)


def normal_float32(shape, seed):
    """Standard normal float32 samples, reproducible by `seed`."""
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
