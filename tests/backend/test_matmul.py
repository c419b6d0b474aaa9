"""The matrix-product template (backend/webgpu/matmul.py) against NumPy.

Kernels are built as the frontend lowers `dot_general`: a sum over k of products of
two loads, here with batches, transposed operands, ragged tile edges and an epilogue
that reads a bias. Integer-valued data makes float results exact, so every tile and
dtype is compared for equality; random floats are held to the error bound of any
summation order.
"""

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jaxwg.core import alu
from jaxwg.core import dtypes as dt
from jaxwg.core.alu import Op
from jaxwg.core.contraction import as_contraction
from jaxwg.core.kernel import Kernel, Reduction
from jaxwg.backend.webgpu.backend import WebGPUExecutable
from jaxwg.backend.webgpu.matmul import matrix_product
from jaxwg.backend.webgpu.shader import ShaderOptions
from jaxwg.backend.webgpu.tuner import (GPU_TILES, MAX_THREAD_TERMS, SOFTWARE_SMALL_TILE, SOFTWARE_TILES, WIDE_TILES, AdapterTraits, Tile,
                                         Tuning, plan, scratch_bytes)

from .helpers import assert_equal_values, run_kernel

TILES = {
    "staged-64": Tile(64, 64, 8, 4, 4),
    "staged-32x16": Tile(32, 16, 8, 4, 4),
    "staged-32-k16": Tile(32, 32, 16, 4, 4),
    "staged-128": Tile(128, 128, 8, 8, 8),
    "double-128-k16": Tile(128, 128, 16, 8, 8, buffers=2),
    "double-32x16": Tile(32, 16, 8, 4, 4, buffers=2),
    "sliced-32-by-4": Tile(32, 32, 16, 4, 4, buffers=2, slices=4),
    "sliced-32-by-2": Tile(32, 32, 16, 4, 4, buffers=2, slices=2),
    "double-32x64-k16": Tile(32, 64, 16, 4, 4, buffers=2),
    "double-128x256": Tile(128, 256, 16, 8, 16, buffers=2),  # 8 x 16 outputs a thread, 48 KiB
    "wide": WIDE_TILES[0],  # the heuristics' choice for large products on GPUs
    "wide-k8": WIDE_TILES[1],  # theirs where the adapter has 16 KiB of workgroup memory
    "sliced-32x64-by-2": Tile(32, 64, 16, 4, 4, buffers=2, slices=2),
    "sliced-32x16-by-2": Tile(32, 16, 8, 4, 4, slices=2),
    "unstaged-64": Tile(64, 64, 4, 8, 8, staged=False),
    "unstaged-8x16": Tile(8, 16, 8, 2, 4, staged=False),
    "unstaged-1x4": Tile(1, 4, 4, 1, 4, staged=False),  # the narrowest a software adapter fits
}


def product_kernel(dtype, batch, m, k, n, lhs_transposed=False, rhs_transposed=False, bias=False):
    """out[b, i, j] = sum_r lhs[b, i, r] * rhs[b, r, j] (* 2 + bias[j]) over row-major
    buffers holding lhs as (batch, m, k) or (batch, k, m), rhs as (batch, k, n) or (batch, n, k)."""
    g, r = alu.gidx(batch * m * n), alu.ridx(k)
    b, i, j = g // (m * n), (g // n) % m, g % n
    a = alu.load(0, dtype, b * m * k + (r * m + i if lhs_transposed else i * k + r))
    c = alu.load(1, dtype, b * k * n + (j * k + r if rhs_transposed else r * n + j))
    epilogue = None
    if bias:
        epilogue = alu.variable(dtype, "acc") * alu.const(dtype, 2) + alu.load(2, dtype, g % n)
    return Kernel(3 if bias else 2, batch * m * n, a * c, Reduction(Op.ADD, dtype, k, epilogue))


def operands(dtype, batch, m, k, n, lhs_transposed, rhs_transposed, rng, low=-3, high=4):
    lhs = rng.integers(low, high, (batch, m, k)).astype(dtype.np)
    rhs = rng.integers(low, high, (batch, k, n)).astype(dtype.np)
    stored = [lhs.transpose(0, 2, 1) if lhs_transposed else lhs, rhs.transpose(0, 2, 1) if rhs_transposed else rhs]
    return lhs, rhs, [np.ascontiguousarray(x).reshape(-1) for x in stored]


# The 128 x 256 tiles' 8 x 16 blocks compile slowly on lavapipe: 19 s. The
# single-buffered 128 x 128 tile (no heuristic picks it; its 8 x 8 blocks are
# double-128-k16's) and a third two-slice tile (sliced-32x64-by-2 and sliced-32x16-by-2
# cover slices) took 13 and 10 s of a suite at its 15-minute budget.
SLOW_TILES = {"double-128x256", "wide", "wide-k8", "staged-128", "sliced-32-by-2"}
# Every tile in float32 (but SLOW_TILES); int32 and float16 through a GPU and a software tile by default,
# through every tile in the slow job (each example compiles a pipeline: float16 through
# the 128 x 128 tiles took 8 s of a 15-minute suite).
_TILE_CASES = [pytest.param(tile, dtype, id=f"{dtype}-{name}",
                            marks=() if dtype is dt.float32 and name not in SLOW_TILES
                            or name in ("staged-32x16", "unstaged-8x16") else pytest.mark.slow)
               for dtype in (dt.float32, dt.int32, dt.float16) for name, tile in TILES.items()]


@pytest.mark.parametrize("tile, dtype", _TILE_CASES)
@settings(max_examples=6)
@given(batch=st.integers(1, 3), m=st.integers(1, 70), k=st.integers(1, 40), n=st.integers(1, 70),
       lhs_transposed=st.booleans(), rhs_transposed=st.booleans(), bias=st.booleans())
def test_tiles_compute_every_output(webgpu, tile, dtype, batch, m, k, n, lhs_transposed, rhs_transposed, bias):
    if not webgpu.supports(dtype):
        pytest.skip(f"{dtype} is not supported by {webgpu.describe()}")
    rng = np.random.default_rng(batch * m * k * n)
    lhs, rhs, inputs = operands(dtype, batch, m, k, n, lhs_transposed, rhs_transposed, rng)
    want = (lhs.astype(np.float64) @ rhs.astype(np.float64))
    if bias:
        shift = rng.integers(-3, 4, n).astype(dtype.np)
        inputs.append(shift)
        want = want * 2 + shift
    kernel = product_kernel(dtype, batch, m, k, n, lhs_transposed, rhs_transposed, bias)
    got = run_kernel(webgpu, kernel, inputs, Tuning(workgroup_size=tile.threads, tile=tile))
    assert_equal_values(got, want.astype(dtype.np).reshape(-1), f"{batch} x ({m}, {k}) @ ({k}, {n}) {tile}")


@pytest.mark.parametrize("tile", TILES.values(), ids=TILES.keys())
def test_float_sums_within_the_bound_of_any_order(webgpu, tile):
    """Random floats: |error| <= k * eps * sum |lhs * rhs| (accumulation in any order)."""
    m, k, n = 67, 300, 45
    rng = np.random.default_rng(0)
    lhs = rng.normal(size=(1, m, k)).astype(np.float32)
    rhs = rng.normal(size=(1, k, n)).astype(np.float32)
    got = run_kernel(webgpu, product_kernel(dt.float32, 1, m, k, n), [lhs.reshape(-1), rhs.reshape(-1)],
                     Tuning(workgroup_size=tile.threads, tile=tile))
    exact = lhs[0].astype(np.float64) @ rhs[0].astype(np.float64)
    bound = k * np.finfo(np.float32).eps * (np.abs(lhs[0]).astype(np.float64) @ np.abs(rhs[0]))
    assert np.all(np.abs(got.reshape(m, n) - exact) <= bound)


@pytest.mark.parametrize("tile", TILES.values(), ids=TILES.keys())
def test_special_values_and_padded_terms(webgpu, tile):
    """inf and NaN propagate as in NumPy; the zero terms past a ragged k add nothing, even
    next to an inf (a padded 0 times a clamped inf would be NaN)."""
    m, k, n = 20, 13, 18
    lhs = np.ones((1, m, k), np.float32)
    rhs = np.ones((1, k, n), np.float32)
    rhs[0, k - 1, 3] = np.inf
    lhs[0, 5, 2] = np.nan
    lhs[0, 7, k - 1] = 0.0  # 0 * inf = NaN in row 7, column 3
    got = run_kernel(webgpu, product_kernel(dt.float32, 1, m, k, n), [lhs.reshape(-1), rhs.reshape(-1)],
                     Tuning(workgroup_size=tile.threads, tile=tile))
    with np.errstate(invalid="ignore"):
        want = lhs @ rhs
    assert_equal_values(got, want.reshape(-1), str(tile))


def test_grids_past_65535_workgroups(webgpu):
    """66000 batches of one 8 x 8 tile each: the grid folds into two dimensions."""
    batch, m, k, n = 66000, 8, 4, 8
    tile = Tile(8, 8, 4, 4, 4)
    lhs, rhs, inputs = operands(dt.float32, batch, m, k, n, False, False, np.random.default_rng(1))
    got = run_kernel(webgpu, product_kernel(dt.float32, batch, m, k, n), inputs,
                     Tuning(workgroup_size=tile.threads, tile=tile))
    assert_equal_values(got, (lhs @ rhs).reshape(-1))


@pytest.mark.parametrize("dtype", [dt.float32, dt.int32], ids=str)
@pytest.mark.parametrize("batch, m, k, n, lhs_transposed, bias", [
    (1, 128, 784, 512, False, False), (1, 128, 1000, 64, True, True), (2, 40, 700, 48, False, True),
    (1, 20, 258, 30, True, False)])
def test_gpu_products_split_along_k(webgpu, dtype, batch, m, k, n, lhs_transposed, bias):
    """A GPU plan for a product with too few tiles to fill the GPU sums slices of k in
    one tiled pass and adds the slices in a second (with the epilogue); run here, results
    exact on integer-valued data. A prime k is not split (slices divide k)."""
    rng = np.random.default_rng(m * k + n)
    lhs, rhs, inputs = operands(dtype, batch, m, k, n, lhs_transposed, False, rng, low=-2, high=3)
    want = lhs.astype(np.float64) @ rhs.astype(np.float64)
    if bias:
        shift = rng.integers(-3, 4, n).astype(dtype.np)
        inputs.append(shift)
        want = want * 2 + shift
    kernel = product_kernel(dtype, batch, m, k, n, lhs_transposed, False, bias)
    passes = plan(kernel, AdapterTraits(False, webgpu.traits.max_binding_bytes))
    assert len(passes) == 2 and passes[0].tuning.tile is not None and passes[0].writes_scratch
    exe = WebGPUExecutable(kernel, passes, scratch_bytes(passes))
    got = run_kernel(webgpu, kernel, inputs, executable=exe)
    assert_equal_values(got, want.astype(dtype.np).reshape(-1), f"{batch} x ({m}, {k}) @ ({k}, {n})")
    assert len(plan(product_kernel(dtype, batch, m, 257, n), AdapterTraits(False))) == 1


def test_a_tile_that_does_not_apply_is_an_error(webgpu):
    row_sum = Kernel(1, 8, alu.load(0, dt.float32, alu.gidx(8) * 4 + alu.ridx(4)), Reduction(Op.ADD, dt.float32, 4))
    tile = Tile(64, 64, 8, 4, 4)
    with pytest.raises(ValueError, match="does not apply"):
        run_kernel(webgpu, row_sum, [np.ones(32, np.float32)], Tuning(workgroup_size=tile.threads, tile=tile))
    uneven = Tile(64, 64, 6, 4, 4)  # k not a multiple of 4
    with pytest.raises(ValueError, match="does not apply"):
        run_kernel(webgpu, product_kernel(dt.float32, 1, 8, 8, 8), [np.ones(64, np.float32)] * 2,
                   Tuning(workgroup_size=uneven.threads, tile=uneven))


@pytest.mark.parametrize("tile", [pytest.param(t, id=name) for name, t in TILES.items() if t.staged])
def test_staged_reads_index_workgroup_memory_by_thread_alone(tile):
    # WebGPU clamps each dynamic index into workgroup memory; the multiply's reads keep
    # their only varying index (tx, ty) alone, so that its clamp leaves the inner loop
    # (matmul.py: 1.03-1.4x on an H100)
    kernel = product_kernel(dt.float32, 2, 70, 40, 70)
    code = matrix_product(kernel, Tuning(workgroup_size=tile.threads, tile=tile), ShaderOptions((1, 1))).code
    reads = re.findall(r"let [ab]\d+ = ((?:lhs|rhs)_tile\[[^;]*);", code)
    assert len(reads) == tile.k * (tile.thread_m + tile.thread_n) // 4
    for read in reads:
        assert re.fullmatch(r"(lhs_tile\[(half|0i)\]\[(sl|0i)\]\[\d+\]\[ty\]|rhs_tile\[(half|0i)\]\[(sl|0i)\]\[\d+\]\[tx\])",
                            read), read


def test_contractions_are_recognized_with_their_axes():
    c = as_contraction(product_kernel(dt.float32, 3, 10, 7, 5, lhs_transposed=True, bias=True))
    assert (c.batch, c.m, c.n, c.k) == (3, 10, 5, 7)
    assert {ld.arg for ld in c.lhs.loads()} == {0} and {ld.arg for ld in c.rhs.loads()} == {1}
    # a row sum and a max of products are not matrix products
    x = alu.load(0, dt.float32, alu.gidx(8) * 4 + alu.ridx(4))
    assert as_contraction(Kernel(1, 8, x, Reduction(Op.ADD, dt.float32, 4))) is None
    squares = as_contraction(Kernel(1, 8, x * x, Reduction(Op.ADD, dt.float32, 4)))
    assert (squares.batch, squares.m, squares.n) == (8, 1, 1)  # a batch of dot products
    kernel = product_kernel(dt.float32, 1, 16, 16, 16)
    assert as_contraction(Kernel(2, kernel.size, kernel.exp, Reduction(Op.MAX, dt.float32, 16))) is None


def test_a_padding_mask_outside_the_product_goes_with_its_factor():
    # where(valid, a * b, 0), as simplification leaves a convolution over padded input:
    # the mask depends on the lhs's row and k only, so it joins the lhs
    g, r = alu.gidx(6 * 5), alu.ridx(4)
    row = g // 5
    valid = (row + r).lt(7)
    a = alu.load(0, dt.float32, row * 4 + r)
    b = alu.load(1, dt.float32, r * 5 + g % 5)
    c = as_contraction(Kernel(2, 30, alu.where(valid, a * b, alu.const(dt.float32, 0)),
                              Reduction(Op.ADD, dt.float32, 4)))
    assert (c.batch, c.m, c.n, c.k) == (1, 6, 5, 4)
    assert c.lhs.op is Op.WHERE and {ld.arg for ld in c.rhs.loads()} == {1}


@pytest.mark.parametrize("software", [False, True])
def test_planner_tiles_products_only(software):
    traits = AdapterTraits(software)
    (p,) = plan(product_kernel(dt.float32, 1, 256, 64, 256), traits)
    assert p.tuning.tile is not None and p.tuning.tile.staged is not software
    matvec = product_kernel(dt.float32, 1, 256, 64, 1)
    assert all((p.tuning.tile is None) is not software for p in plan(matvec, traits))
    long_sums = product_kernel(dt.float32, 1, 32, MAX_THREAD_TERMS + 4, 32)
    assert all(p.tuning.tile is None for p in plan(long_sums, traits))
    too_big = AdapterTraits(software, max_binding_bytes=256 * 255 * 4)
    assert all(p.tuning.tile is None for p in plan(product_kernel(dt.float32, 1, 256, 64, 256), too_big))


def test_gpus_take_the_wide_tile_for_products_with_enough_of_its_workgroups():
    """128 x 256 outputs a workgroup where the product fills 128 such workgroups, in steps
    of k = 16 where the adapter has the 24 KiB of workgroup memory, of k = 8 (12 KiB) where
    it has WebGPU's default 16; otherwise 128 x 128 (too few workgroups: 2048 x 1024
    outputs make only 64, or too little memory)."""
    square, (wide, narrow) = GPU_TILES[0], WIDE_TILES
    assert [(t.m, t.n, t.k, t.workgroup_bytes(4)) for t in WIDE_TILES] == [(128, 256, 16, 24 * 1024),
                                                                             (128, 256, 8, 12 * 1024)]
    for memory, chosen in [(48 * 1024, wide), (16 * 1024, narrow)]:
        gpu = AdapterTraits(False, workgroup_bytes=memory)
        assert plan(product_kernel(dt.float32, 1, 4096, 64, 4096), gpu)[0].tuning.tile == chosen
        assert plan(product_kernel(dt.float32, 1, 2048, 64, 1024), gpu)[0].tuning.tile == square
        assert plan(product_kernel(dt.float32, 2, 2048, 64, 1024), gpu)[0].tuning.tile == chosen
    too_little = AdapterTraits(False, workgroup_bytes=8 * 1024)
    assert plan(product_kernel(dt.float32, 1, 4096, 64, 4096), too_little)[0].tuning.tile not in WIDE_TILES


def test_software_adapters_take_16_x_16_blocks_for_large_products(webgpu):
    """Software adapters give large float32 products (SOFTWARE_LARGE_PRODUCT_FLOPS) 16 x 16
    outputs a thread, a product with an epilogue as the plain product then the epilogue
    (an epilogue in the large blocks takes seconds to compile); small ones and other
    dtypes keep 8 x 8. The large tile computes a ragged, transposed, batched product with
    a bias epilogue exactly, and so do the two passes."""
    traits = AdapterTraits(True)
    assert plan(product_kernel(dt.float32, 1, 512, 512, 512), traits)[0].tuning.tile == SOFTWARE_TILES[0]
    for small in (product_kernel(dt.float32, 1, 64, 64, 64), product_kernel(dt.int32, 1, 512, 512, 512)):
        assert [p.tuning.tile for p in plan(small, traits)] == [SOFTWARE_SMALL_TILE]
    with_bias = product_kernel(dt.float32, 1, 512, 512, 512, bias=True)
    passes = plan(with_bias, traits)
    assert [p.tuning.tile for p in passes] == [SOFTWARE_TILES[0], None] and passes[0].writes_scratch
    tile = SOFTWARE_TILES[0]
    assert (tile.thread_m, tile.thread_n) == (16, 16)
    batch, m, k, n = 2, 70, 37, 66
    rng = np.random.default_rng(5)
    lhs, rhs, inputs = operands(dt.float32, batch, m, k, n, True, False, rng)
    shift = rng.integers(-3, 4, n).astype(np.float32)
    kernel = product_kernel(dt.float32, batch, m, k, n, lhs_transposed=True, bias=True)
    got = run_kernel(webgpu, kernel, inputs + [shift], Tuning(workgroup_size=tile.threads, tile=tile))
    want = (lhs.astype(np.float64) @ rhs) * 2 + shift
    assert_equal_values(got, want.astype(np.float32).reshape(-1), str(tile))


@pytest.mark.parametrize("name", ["unstaged-64", "staged-32x16"])
def test_an_input_read_by_both_factors_is_not_bound_as_vec4s(webgpu, name):
    """sum_k where(b[k] != 0, a[i, k], 0) * b[k] (logsumexp with `b`): b is one factor,
    contiguous along k, and inside the other too, which reads it as scalars; the shader
    must not bind it as vec4s (WGSL rejected the scalar read)."""
    m, k, n = 20, 12, 1
    g, r = alu.gidx(m * n), alu.ridx(k)
    a = alu.load(0, dt.float32, g * k + r)
    b = alu.load(1, dt.float32, r)
    kernel = Kernel(2, m * n, alu.where(b.ne(0.0), a, alu.const(dt.float32, 0.0)) * b,
                    Reduction(Op.ADD, dt.float32, k))
    assert as_contraction(kernel) is not None
    rng = np.random.default_rng(8)
    lhs = rng.integers(-3, 4, (m, k)).astype(np.float32)
    rhs = rng.integers(-2, 3, (k, n)).astype(np.float32)
    tile = TILES[name]
    got = run_kernel(webgpu, kernel, [lhs.reshape(-1), rhs.reshape(-1)], Tuning(workgroup_size=tile.threads, tile=tile))
    assert_equal_values(got, (lhs @ rhs).reshape(-1), name)  # where b is 0 the term is 0 either way


def test_software_tiles_fit_narrow_products(webgpu):
    """On software adapters a product narrower than its tile takes a tile halved to fit
    (m to 1, n to 4): matrix-vector products, few rows or columns, and few terms are
    tiled too. The plan's tiles compute them exactly."""
    software = AdapterTraits(True)

    def tile(m, k, n, dtype=dt.float32):
        (p,) = plan(product_kernel(dtype, 1, m, k, n), software)
        t = p.tuning.tile
        return t and (t.m, t.n, t.thread_m, t.thread_n, t.staged)

    assert tile(16, 1024, 1024) == (16, 64, 8, 8, False)
    assert tile(1024, 1024, 16) == (64, 16, 8, 8, False)
    assert tile(1, 1024, 1024) == (1, 64, 1, 8, False)
    assert tile(1024, 1024, 1) == (1, 64, 1, 8, False)  # the contraction's m is its one long axis
    assert tile(1024, 1024, 3) == (64, 4, 8, 4, False)
    assert tile(20, 2048, 20) == (32, 32, 8, 8, False)
    assert tile(20, 4096, 1024) == (32, 64, 16, 16, False)  # a large product: 16 x 16 blocks
    assert tile(256, 3, 256, dt.int32) == (64, 64, 8, 8, False)
    rng = np.random.default_rng(6)
    for batch, m, k, n in [(1, 1, 37, 70), (2, 3, 5, 1), (1, 70, 2, 6), (1, 15, 300, 17)]:
        lhs, rhs, inputs = operands(dt.float32, batch, m, k, n, False, False, rng)
        want = (lhs.astype(np.float64) @ rhs).astype(np.float32).reshape(-1)
        assert_equal_values(run_kernel(webgpu, product_kernel(dt.float32, batch, m, k, n), inputs), want,
                            f"{batch} x ({m}, {k}) @ ({k}, {n})")


@pytest.mark.slow  # 15-25 s on lavapipe: a 512^3 product in the 16 x 16 blocks
def test_a_large_product_with_an_epilogue_runs_in_two_passes_on_software_adapters(webgpu):
    """The plan of the test above, run: the plain product in the large blocks, then the
    epilogue."""
    if not webgpu.traits.is_software:
        pytest.skip("the two-pass plan is a software adapter's")
    with_bias = product_kernel(dt.float32, 1, 512, 512, 512, bias=True)
    rng = np.random.default_rng(4)
    lhs, rhs, inputs = operands(dt.float32, 1, 512, 512, 512, False, False, rng)
    shift = rng.integers(-3, 4, 512).astype(np.float32)
    want = (lhs[0].astype(np.float64) @ rhs[0]) * 2 + shift
    assert_equal_values(run_kernel(webgpu, with_bias, inputs + [shift]), want.astype(np.float32).reshape(-1),
                        "plain product, then its epilogue")
