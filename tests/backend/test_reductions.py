"""Reductions: every op and dtype, every thread mapping the WebGPU templates offer.

Rows of an (n, m) matrix are reduced and compared with NumPy's ufunc reductions.
Integer, bool, min and max results are exact; float sums are checked against a
bound that holds for any summation order.
"""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from jaxwg.core import alu
from jaxwg.core import dtypes as dt
from jaxwg.core.alu import Op
from jaxwg.core.kernel import Kernel, Reduction, identity_value
from jaxwg.backend.webgpu.backend import WebGPUExecutable
from jaxwg.backend.webgpu.tuner import AdapterTraits, Tuning, plan, scratch_bytes, split_reduction

from .helpers import assert_equal_values, run_kernel

UFUNC = {Op.ADD: np.add, Op.MUL: np.multiply, Op.MIN: np.minimum, Op.MAX: np.maximum}
BOOL_UFUNC = {Op.ADD: np.logical_or, Op.MUL: np.logical_and, Op.MIN: np.logical_and, Op.MAX: np.logical_or}
VARIANTS = {
    "plain": Tuning(workgroup_size=64),
    "unroll4": Tuning(workgroup_size=64, unroll=4),
    "upcast4-unroll3": Tuning(workgroup_size=64, upcast=4, unroll=3),
    "grouped64": Tuning(workgroup_size=64, group=64),
    "grouped256": Tuning(workgroup_size=256, group=256),
    "grouped64-unroll4": Tuning(workgroup_size=64, group=64, unroll=4),
    "grouped256-unroll16": Tuning(workgroup_size=256, group=256, unroll=16),  # GPU splits
    "rows-of-16": Tuning(workgroup_size=64, group=16),  # 4 outputs per workgroup
    "rows-of-8-unroll2": Tuning(workgroup_size=256, group=8, unroll=2),
}


def row_kernel(op: Op, dtype: dt.DType, n: int, m: int, epilogue=None) -> Kernel:
    x = alu.load(0, dtype, alu.gidx(n) * m + alu.ridx(m))
    return Kernel(1, n, x, Reduction(op, dtype, m, epilogue))


def sample(dtype: dt.DType, op: Op, shape, rng) -> np.ndarray:
    if dtype.is_bool:
        return rng.random(shape) < (0.9 if op in (Op.MUL, Op.MIN) else 0.1)
    if dtype.is_float:
        if op is Op.MUL:  # products of values near 1 stay finite
            return rng.uniform(0.9, 1.1, shape).astype(dtype.np)
        return rng.normal(size=shape).astype(dtype.np)
    lo, hi = (-1000, 1000) if dtype is dt.int32 else (0, 2000)
    return rng.integers(lo, hi, shape).astype(dtype.np)


def expected(op: Op, dtype: dt.DType, x: np.ndarray) -> np.ndarray:
    ufunc = (BOOL_UFUNC if dtype.is_bool else UFUNC)[op]
    acc = np.float32 if dtype is dt.float16 and op in (Op.ADD, Op.MUL) else dtype.np
    initial = identity_value(op, dt.from_numpy(acc)).arg
    with np.errstate(all="ignore"):
        return ufunc.reduce(x.astype(acc), axis=1, initial=initial).astype(dtype.np)


def check(actual, want, op, dtype, x):
    if dtype.is_float and op in (Op.ADD, Op.MUL):
        # any order of n float additions is within n * eps * sum(|x|) of the exact sum
        eps = np.finfo(np.float32 if dtype is dt.float16 else dtype.np).eps
        scale = np.abs(x.astype(np.float64)).sum(axis=1) if op is Op.ADD else np.abs(want.astype(np.float64))
        bound = x.shape[1] * eps * scale + np.finfo(dtype.np).eps * np.abs(want.astype(np.float64))
        err = np.abs(actual.astype(np.float64) - want.astype(np.float64))
        nan = np.isnan(want)
        assert (np.isnan(actual) == nan).all(), (actual, want)
        assert (err[~nan] <= bound[~nan] + 1e-30).all(), (actual, want)
    else:
        assert_equal_values(actual, want, f"{op.value} {dtype}")


@pytest.mark.parametrize("variant", list(VARIANTS))
@pytest.mark.parametrize("dtype", dt.ALL, ids=str)
@pytest.mark.parametrize("op", [Op.ADD, Op.MUL, Op.MIN, Op.MAX], ids=lambda o: o.value)
@pytest.mark.parametrize("shape", [(1, 1), (3, 7), (8, 64), (5, 1000), (12, 33)], ids=str)
def test_row_reduction_variants(webgpu, cpu, shape, op, dtype, variant):
    if not webgpu.supports(dtype):
        pytest.skip(f"{webgpu.describe()} lacks {dtype}")
    n, m = shape
    tuning = VARIANTS[variant]
    if tuning.upcast > 1 and n % tuning.upcast:
        n = n * tuning.upcast
    x = sample(dtype, op, (n, m), np.random.default_rng(n * m))
    k = row_kernel(op, dtype, n, m)
    want = expected(op, dtype, x)
    check(run_kernel(webgpu, k, [x.reshape(-1)], tuning), want, op, dtype, x)
    check(run_kernel(cpu, k, [x.reshape(-1)]), want, op, dtype, x)


@pytest.mark.parametrize("op", [Op.ADD, Op.MIN, Op.MAX], ids=lambda o: o.value)
@given(n=st.integers(1, 6), m=st.integers(0, 3000), data=st.data())
def test_planned_reductions(backend, op, n, m, data):
    """Whatever plan the tuner picks (one pass, grouped, split) gives NumPy's answer."""
    seed = data.draw(st.integers(0, 2**32 - 1))
    x = sample(dt.float32, op, (n, m), np.random.default_rng(seed))
    with_nan = data.draw(st.booleans()) and m > 0
    if with_nan:
        x[0, data.draw(st.integers(0, m - 1))] = np.nan
    k = row_kernel(op, dt.float32, n, m)
    check(run_kernel(backend, k, [x.reshape(-1)]), expected(op, dt.float32, x), op, dt.float32, x)


@pytest.mark.parametrize("length", [1 << 16, (1 << 20) + 3])
def test_split_reduction_of_a_long_row(backend, length):
    x = np.random.default_rng(length).normal(size=(1, length)).astype(np.float32)
    k = row_kernel(Op.ADD, dt.float32, 1, length)
    check(run_kernel(backend, k, [x.reshape(-1)]), expected(Op.ADD, dt.float32, x), Op.ADD, dt.float32, x)
    if backend.name == "webgpu":
        assert len(backend.prepare(k).passes) == 2  # the plan split it


def test_float16_sums_accumulate_in_float32(backend):
    if not backend.supports(dt.float16):
        pytest.skip("no float16")
    x = np.ones((1, 3000), np.float16)  # float16 accumulation would stop at 2048
    out = run_kernel(backend, row_kernel(Op.ADD, dt.float16, 1, 3000), [x.reshape(-1)])
    assert out[0] == 3000


def test_epilogue_fuses_elementwise_work(backend):
    n, m = 37, 101
    x = np.random.default_rng(0).normal(size=(n, m)).astype(np.float32)
    bias = np.arange(n, dtype=np.float32)
    acc = alu.variable(dt.float32, "acc")
    epilogue = alu.unary(Op.EXP, acc * (1.0 / m)) + alu.load(1, dt.float32, alu.gidx(n))
    k = Kernel(2, n, alu.load(0, dt.float32, alu.gidx(n) * m + alu.ridx(m)),
               Reduction(Op.ADD, dt.float32, m, epilogue))
    out = run_kernel(backend, k, [x.reshape(-1), bias])
    np.testing.assert_allclose(out, np.exp(x.mean(axis=1)) + bias, rtol=1e-5)


def test_column_reduction_reads_strided(backend):
    n, m = 300, 17  # reduce over the first axis: ridx strides by m
    x = np.random.default_rng(1).normal(size=(n, m)).astype(np.float32)
    k = Kernel(1, m, alu.load(0, dt.float32, alu.ridx(n) * m + alu.gidx(m)), Reduction(Op.MAX, dt.float32, n))
    assert_equal_values(run_kernel(backend, k, [x.reshape(-1)]), x.max(axis=0))


def test_empty_reduction_gives_identity(backend):
    for op, value in ((Op.ADD, 0.0), (Op.MUL, 1.0), (Op.MIN, np.inf), (Op.MAX, -np.inf)):
        out = run_kernel(backend, row_kernel(op, dt.float32, 3, 0), [np.zeros(0, np.float32)])
        assert_equal_values(out, np.full(3, value, np.float32))


def test_empty_output(backend):
    assert run_kernel(backend, row_kernel(Op.ADD, dt.float32, 0, 5), [np.zeros(0, np.float32)]).size == 0


def test_more_than_65535_workgroups(webgpu):
    n = 70_001  # grouped: one workgroup per output, so the grid folds into 2-D
    x = np.arange(n * 3, dtype=np.int32)
    out = run_kernel(webgpu, row_kernel(Op.ADD, dt.int32, n, 3), [x], Tuning(workgroup_size=64, group=64))
    assert_equal_values(out, x.reshape(n, 3).sum(axis=1, dtype=np.int32))


@pytest.mark.smoke
def test_smoke_row_sum(backend):
    x = np.random.default_rng(3).normal(size=(64, 500)).astype(np.float32)
    check(run_kernel(backend, row_kernel(Op.ADD, dt.float32, 64, 500), [x.reshape(-1)]),
          expected(Op.ADD, dt.float32, x), Op.ADD, dt.float32, x)


@pytest.mark.parametrize("layout", ["contiguous", "columns"])
@pytest.mark.parametrize("axis", [0, 1])
def test_split_layouts(backend, layout, axis):
    """Every split layout, run pass by pass, gives NumPy's row or column sums."""
    rows, cols, parts = 37, 1000, 7  # 1000 terms do not divide into 7 parts: masked tail
    x = np.random.default_rng(axis).normal(size=(rows, cols)).astype(np.float32)
    n, m = (rows, cols) if axis == 1 else (cols, rows)
    index = alu.gidx(n) * m + alu.ridx(m) if axis == 1 else alu.ridx(m) * n + alu.gidx(n)
    acc = alu.variable(dt.float32, "acc")
    kernel = Kernel(1, n, alu.load(0, dt.float32, index), Reduction(Op.ADD, dt.float32, m, acc * 0.5))
    first, second = split_reduction(kernel, parts, layout)
    partials = run_kernel(backend, first, [x.reshape(-1)])
    out = run_kernel(backend, second, [x.reshape(-1), partials])
    want = x.sum(axis=axis) * 0.5
    check(out, want.astype(np.float32), Op.ADD, dt.float32, np.moveaxis(x, axis, 1) * 0.5)


@pytest.mark.parametrize("software", [False, True], ids=["gpu-plan", "software-plan"])
@pytest.mark.parametrize("outputs, length, axis", [
    (1, (1 << 20) + 3, 1), (3, 300_001, 1), (2000, 40, 1), (300, 5000, 1), (5000, 33, 0), (40, 20_000, 0),
    (512, 256, 0), (10, 256, 0), (7, 1000, 0)])
def test_each_adapter_kinds_plan_runs_here(webgpu, software, outputs, length, axis):
    """The plans the tuner makes for GPUs and for software adapters both give NumPy's
    sums on the adapter at hand (CI has no GPU, yet GPU plans must be tested)."""
    x = np.random.default_rng(length).normal(size=(outputs, length)).astype(np.float32)
    stored = x if axis == 1 else np.ascontiguousarray(x.T)
    index = (alu.gidx(outputs) * length + alu.ridx(length) if axis == 1
             else alu.ridx(length) * outputs + alu.gidx(outputs))
    kernel = Kernel(1, outputs, alu.load(0, dt.float32, index), Reduction(Op.ADD, dt.float32, length))
    out = run_plan(webgpu, kernel, AdapterTraits(software, webgpu.traits.max_binding_bytes), stored)
    check(out, expected(Op.ADD, dt.float32, x), Op.ADD, dt.float32, x)


def run_plan(webgpu, kernel: Kernel, traits: AdapterTraits, x: np.ndarray) -> np.ndarray:
    """`kernel` over the input `x`, computed by the passes the tuner plans for `traits`."""
    passes = plan(kernel, traits)
    return run_kernel(webgpu, kernel, [x.reshape(-1)], executable=WebGPUExecutable(kernel, passes, scratch_bytes(passes)))


@pytest.mark.parametrize("op, dtype", [(Op.ADD, dt.float32), (Op.MAX, dt.int32), (Op.MIN, dt.float32)])
@pytest.mark.parametrize("rows, cols, first_col, stride", [
    (2048, 256, 0, 256), (33, 20, 0, 20), (7, 64, 1, 68), (40_000, 16, 0, 16), (3, 4, 0, 4)])
def test_software_column_reductions_read_four_columns_per_load(webgpu, op, dtype, rows, cols, first_col, stride):
    """On software adapters a reduction over a leading axis gives each thread 16 (or 4)
    neighbouring columns, read as vec4s where four columns start on a multiple of 4
    (not in a view one column in), with the rows split into slices when there are few
    threads or more than a thread may sum; results are NumPy's."""
    stored = sample(dtype, op, (rows, stride), np.random.default_rng(rows + cols))
    index = alu.ridx(rows) * stride + alu.gidx(cols) + first_col
    kernel = Kernel(1, cols, alu.load(0, dtype, index), Reduction(op, dtype, rows))
    traits = AdapterTraits(True, webgpu.traits.max_binding_bytes)
    x = np.ascontiguousarray(stored[:, first_col:first_col + cols].T)
    check(run_plan(webgpu, kernel, traits, stored), expected(op, dtype, x), op, dtype, x)
    first = plan(kernel, traits)[0]
    assert first.tuning.upcast == (16 if cols % 16 == 0 else 4)
    vec4 = "array<vec4<" in webgpu.prepare(first.kernel, first.tuning).shader_sources()[0]
    assert vec4 == (first_col % 4 == 0)


def test_few_short_columns_take_a_workgroup_each_on_gpus():
    """A bias gradient's column sums (512 columns of 256) are too few outputs for a thread
    each: on a GPU a workgroup reads each column; many columns keep a thread each."""
    def first_pass(outputs, length):
        index = alu.ridx(length) * outputs + alu.gidx(outputs)
        kernel = Kernel(1, outputs, alu.load(0, dt.float32, index), Reduction(Op.ADD, dt.float32, length))
        return plan(kernel, AdapterTraits(False, 1 << 30))[0].tuning
    assert first_pass(512, 256).group == 16  # 16 terms a thread
    assert first_pass(100_000, 256).group == 1


@pytest.mark.parametrize("unroll", [4, 3])
def test_row_reductions_read_four_terms_per_load(webgpu, unroll):
    """Unrolled by 4, contiguous terms are read as one vec4 (the input bound as vec4s)."""
    x = sample(dt.float32, Op.ADD, (9, 64), np.random.default_rng(8))
    kernel = row_kernel(Op.ADD, dt.float32, 9, 64)
    tuning = Tuning(workgroup_size=64, unroll=unroll)
    check(run_kernel(webgpu, kernel, [x.reshape(-1)], tuning), expected(Op.ADD, dt.float32, x), Op.ADD, dt.float32, x)
    assert ("array<vec4<" in webgpu.prepare(kernel, tuning).shader_sources()[0]) == (unroll == 4)


def test_an_input_bound_as_vec4s_covers_its_last_partial_vec4(webgpu):
    """33 floats bound as `array<vec4<f32>>` must be 9 vec4s, not 8: on the H200 the
    9th read as zeros (robust access), and a row sum over a padded 2 x 32 view of them
    lost the 33rd value. Bindings and buffers are whole vec4s."""
    assert webgpu._window(33 * 4, 0) == (0, 9 * 16)
    slot = webgpu.upload(np.arange(33, dtype=np.float32))
    try:
        assert webgpu.slots.buffer(slot).size >= 9 * 16
    finally:
        webgpu.decref(slot)


@pytest.mark.parametrize("dtype, expected_subgroups", [(dt.float32, True), (dt.int32, True), (dt.float16, True),
                                                     (dt.float64, False)])
def test_grouped_reductions_combine_in_subgroups_where_the_adapter_has_them(webgpu, dtype, expected_subgroups):
    """Threads of a group first combine their partial results through subgroup shuffles
    when the adapter offers subgroups (lavapipe through Vulkan does; llvmpipe through
    OpenGL does not) and the accumulator is a 4-byte type (float16 sums accumulate in
    float32; float64 ones keep the tree); the results are NumPy's
    either way (the variants above run every op and dtype through both paths)."""
    if not webgpu.supports(dtype):
        pytest.skip(f"{webgpu.describe()} lacks {dtype}")
    kernel = row_kernel(Op.ADD, dtype, 5, 300)
    tuning = Tuning(workgroup_size=64, group=32, unroll=4)
    x = sample(dtype, Op.ADD, (5, 300), np.random.default_rng(11))
    check(run_kernel(webgpu, kernel, [x.reshape(-1)], tuning), expected(Op.ADD, dtype, x), Op.ADD, dtype, x)
    shader = webgpu.prepare(kernel, tuning).shader_sources()[0]
    has = "subgroup" in webgpu.device.features
    assert ("subgroupShuffleXor" in shader) == (has and expected_subgroups)
