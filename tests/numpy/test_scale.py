"""Right answers at scale: long reductions, many-element bool reductions, huge virtual
kernels and long traced chains, through the public API on both platforms.

Float32 sums are held to 2e-6 relative to the float64 sum of the same float32 values
for same-signed data: NumPy's pairwise sum and JAX meet that bound, and a sequential
sum of 10M values does not (1e-4).
"""

import numpy as np
import pytest

import jaxwg
import jaxwg.numpy as jnp

SUM_RTOL = 2e-6


def relative_error(actual, values: np.ndarray) -> float:
    want = values.astype(np.float64).sum()
    return abs(float(actual) - want) / abs(want)


@pytest.mark.parametrize("n", [10_000_000, 1_000_003])
def test_float32_sum_of_millions_is_accurate(platform, n):
    constant = np.full(n, 0.1, np.float32)
    uniform = np.random.default_rng(n).random(n, dtype=np.float32)
    for values in (constant, uniform):
        assert relative_error(jnp.sum(jnp.asarray(values)), values) < SUM_RTOL


def test_float32_row_and_column_sums_are_accurate(platform):
    values = np.random.default_rng(1).random((64, 300_000), dtype=np.float32) + 1
    x = jnp.asarray(values)
    rows = np.asarray(jnp.sum(x, axis=1), np.float64)
    np.testing.assert_allclose(rows, values.astype(np.float64).sum(axis=1), rtol=SUM_RTOL)
    cols = np.asarray(jnp.sum(x.T, axis=0), np.float64)
    np.testing.assert_allclose(cols, values.astype(np.float64).sum(axis=1), rtol=SUM_RTOL)


def test_std_of_values_with_a_large_mean(platform):
    values = (1e4 + 0.01 * np.random.default_rng(2).standard_normal(100_000)).astype(np.float32)
    want = np.std(values.astype(np.float64))
    # The float32 mean is within half an ulp of 1e4 (4.9e-4) of the true mean, which
    # can raise the deviation by a relative sqrt(1 + (4.9e-4 / 0.01)^2) - 1 = 1.2e-3.
    np.testing.assert_allclose(float(jnp.std(jnp.asarray(values))), want, rtol=2e-3)


@pytest.mark.parametrize("n", [16_641, 100_000, 1_000_000])
def test_bool_reductions_of_many_elements(platform, n):
    values = np.zeros(n, bool)
    values[n // 2] = True
    x = jnp.asarray(values)
    assert bool(jnp.any(x)) and not bool(jnp.all(x))
    assert bool(jnp.any(jnp.ones(n) > 0))
    assert bool(jnp.max(x)) and not bool(jnp.min(x))
    assert int(jnp.argmax(x)) == n // 2 and int(jnp.argmin(~x)) == n // 2
    assert bool(jnp.sum(x, dtype=bool))
    assert int(jnp.sum(x)) == 1


def test_long_jitted_chain(platform):
    """400 steps compile (no RecursionError) into kernels of bounded size."""
    def chain(x):
        for k in range(400):
            x = jnp.sin(x) * 0.5 + x * (0.4 + 0.1 * (k % 3))
        return x

    x = np.linspace(-1, 1, 64, dtype=np.float32)
    want = x.astype(np.float64)
    for k in range(400):
        want = np.sin(want) * 0.5 + want * (0.4 + 0.1 * (k % 3))
    got = np.asarray(jaxwg.jit(chain)(jnp.asarray(x)))
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-6)


def test_long_jitted_chain_with_shared_values(platform):
    """x = sin(x) + x doubles the inlined cost every step: kernels stay bounded."""
    def chain(x):
        for _ in range(60):
            x = jnp.sin(x) * 0.25 + x * 0.75
        return x

    x = np.linspace(-1, 1, 16, dtype=np.float32)
    want = x.astype(np.float64)
    for _ in range(60):
        want = np.sin(want) * 0.25 + want * 0.75
    np.testing.assert_allclose(np.asarray(jaxwg.jit(chain)(jnp.asarray(x))), want, rtol=1e-5, atol=1e-6)


def test_sum_past_the_index_limit_is_a_clear_error(platform):
    with pytest.raises(ValueError, match="2147483648 elements.*32-bit"):
        float(jnp.ones(2**31).sum())


@pytest.mark.slow
def test_matmul_with_a_huge_virtual_product():
    """(64, 2^19) @ (2^19, 64): the product the kernel reduces has 2^31 elements, read
    from two small vectors broadcast (the flat index over it used to wrap)."""
    k = 2**19
    u = np.random.default_rng(3).integers(0, 4, k).astype(np.float32)
    w = np.random.default_rng(4).integers(0, 4, k).astype(np.float32)
    a = jnp.broadcast_to(jnp.asarray(u), (64, k))
    b = jnp.broadcast_to(jnp.asarray(w)[:, None], (k, 64))
    np.testing.assert_array_equal(np.asarray(a @ b), np.full((64, 64), u @ w, np.float32))


@pytest.mark.slow
@pytest.mark.parametrize("m, k, n", [(1024, 1024, 4096), (1024, 1024, 2049)])
def test_matmul_past_2_31_multiply_adds(m, k, n):
    """The issue's shapes: wrong from row 512 on, or ending in zeros, before."""
    rng = np.random.default_rng(5)
    a = rng.integers(-2, 3, (m, k)).astype(np.float32)
    b = rng.integers(-2, 3, (k, n)).astype(np.float32)
    np.testing.assert_array_equal(np.asarray(jnp.asarray(a) @ jnp.asarray(b)), a @ b)


@pytest.mark.slow
def test_matmul_4096_squared_on_a_gpu(webgpu):
    """4096^2 @ 4096^2 (2^36 multiply-adds: wrong from row 128 on before). Minutes on
    a software adapter, so it runs where the adapter is a hardware GPU (the H200 run)."""
    if webgpu.device.is_software:
        pytest.skip(f"2^36 multiply-adds on the software adapter {webgpu.describe()}")
    rng = np.random.default_rng(7)
    a = rng.integers(-2, 3, (4096, 4096)).astype(np.float32)
    b = rng.integers(-2, 3, (4096, 4096)).astype(np.float32)
    np.testing.assert_array_equal(np.asarray(jnp.asarray(a) @ jnp.asarray(b)), a @ b)


@pytest.mark.slow
def test_float32_sum_of_2_26_values():
    """2^26 values (256 MiB: past one storage binding on the software adapters)."""
    for values in (np.full(2**26, 0.1, np.float32),
                   np.random.default_rng(6).random(2**26, dtype=np.float32)):
        assert relative_error(jnp.sum(jnp.asarray(values)), values) < SUM_RTOL


@pytest.mark.slow
def test_scatter_add_and_cumsum_past_one_portable_binding():
    """Past 128 MiB (the binding every WebGPU device has) scatter-adds and cumulative
    sums leave their routines, which bind buffers whole, for the kernels that bind in
    windows: still right on lavapipe, whose bindings stop at 128 MiB."""
    n = (1 << 25) + 5
    x = np.zeros(n, np.float32)
    got = jnp.asarray(x).at[jnp.array([0, n - 1, n - 1])].add(jnp.array([1.0, 2.0, 3.0]))
    assert np.asarray(got)[[0, n - 2, n - 1]].tolist() == [1.0, 0.0, 5.0]
    ones = np.ones(n, np.int32)
    total = np.asarray(jnp.cumsum(jnp.asarray(ones)))
    assert total[[0, 1 << 24, n - 1]].tolist() == [1, (1 << 24) + 1, n]
