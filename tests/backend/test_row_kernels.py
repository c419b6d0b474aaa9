"""Kernels with row stages (core.kernel, templates.row_kernel) against the CPU backend.

Every thread mapping the row template offers runs on the WebGPU backend and is held to
the CPU backend's NumPy interpretation of the same kernel: one thread per row (short
rows on software adapters), a few threads per row with several rows per workgroup, a whole workgroup per
row (GPUs); rows whose length is or is not a multiple of 4 (vec4 reads and stores or
scalar ones), bool and int32 stages through workgroup memory, a final reduction, and
a grid past 65535 workgroups.
"""

import math
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from jaxwg.core import alu
from jaxwg.core import dtypes as dt
from jaxwg.core.alu import Op
from jaxwg.core.kernel import Kernel, Reduction, stage_value
from jaxwg.backend.webgpu.templates import CASCADE_FAN_IN, MAX_UNROLLED_STEPS
from jaxwg.backend.webgpu.tuner import SOFTWARE_UNROLLED_TERMS, AdapterTraits, row_tuning

from .helpers import assert_close_ulps, assert_equal_values, run_kernel

# (workgroup size, threads per row)
MAPPINGS = [(64, 1), (64, 4), (64, 16), (256, 256), (32, 32)]


def softmax_kernel(rows: int, length: int) -> Kernel:
    """exp(x - max) / sum(exp(x - max)) over rows of `length`, as fusion builds it."""
    x = alu.load(0, dt.float32, alu.gidx(rows) * length + alu.ridx(length))
    top = Kernel(1, rows, x, Reduction(Op.MAX, dt.float32, length))
    e = alu.unary(Op.EXP, x - stage_value(0, dt.float32))
    total = Kernel(1, rows, e, Reduction(Op.ADD, dt.float32, length))
    out = alu.load(0, dt.float32, alu.gidx(rows * length))
    body = alu.unary(Op.EXP, out - stage_value(0, dt.float32)) / stage_value(1, dt.float32)
    return Kernel(1, rows * length, body, stages=(top, total))


def mixed_kernel(rows: int, length: int) -> Kernel:
    """An int32 row sum, a bool 'all positive' stage, an elementwise stage of both, and
    a final float reduction that reads all three."""
    g, r = alu.gidx(rows), alu.ridx(length)
    counts = alu.load(0, dt.int32, g * length + r)
    total = Kernel(2, rows, counts, Reduction(Op.ADD, dt.int32, length))
    positive = Kernel(2, rows, alu.const(dt.int32, -1).lt(counts), Reduction(Op.MIN, dt.bool_, length))
    scale = Kernel(2, rows, alu.where(stage_value(1, dt.bool_), alu.cast(dt.float32, stage_value(0, dt.int32)),
                                      alu.const(dt.float32, -1.0)))
    y = alu.load(1, dt.float32, g * length + r)
    red = Reduction(Op.ADD, dt.float32, length, alu.variable(dt.float32, "acc") * stage_value(2, dt.float32))
    return Kernel(2, rows, y * alu.cast(dt.float32, counts), red, stages=(total, positive, scale))


def run_on(backend, kernel, inputs, mapping=None):
    tuning = None
    if mapping is not None:
        wg, group = mapping
        tuning = replace(row_tuning(kernel, AdapterTraits(False)), workgroup_size=wg, group=group)
    return run_kernel(backend, kernel, inputs, tuning)


@pytest.mark.parametrize("mapping", MAPPINGS)
@given(rows=st.integers(1, 80), length=st.integers(1, 300), seed=st.integers(0, 2**16))
def test_softmax_kernel(cpu, webgpu, mapping, rows, length, seed):
    x = np.random.default_rng(seed).normal(0, 4, rows * length).astype(np.float32)
    kernel = softmax_kernel(rows, length)
    want = run_kernel(cpu, kernel, [x])
    ulps = softmax_ulps(length, mapping[1])
    assert_close_ulps(run_on(webgpu, kernel, [x], mapping), want, ulps, atol=1e-7, context=f"{mapping}")


@pytest.mark.parametrize("length", [9, 31, 33, 1023])
def test_software_mapping_unrolls_rows_of_single_terms(cpu, webgpu, length):
    """A software adapter's tuning unrolls rows of up to SOFTWARE_UNROLLED_TERMS terms a
    thread however many steps they take (rows not a multiple of 4: a term a step); rows
    of 33 single terms loop. Either way, run on any adapter, the CPU backend's values."""
    kernel = softmax_kernel(70, length)
    tuning = row_tuning(kernel, AdapterTraits(True))
    assert tuning.unroll == SOFTWARE_UNROLLED_TERMS and row_tuning(kernel, AdapterTraits(False)).unroll == 1
    x = np.random.default_rng(length).normal(0, 4, 70 * length).astype(np.float32)
    x[3], x[length + 1], x[2 * length] = np.nan, np.inf, -0.0
    ulps = softmax_ulps(length, tuning.group, tuning.unroll)
    assert_close_ulps(run_kernel(webgpu, kernel, [x], tuning), run_kernel(cpu, kernel, [x]), ulps, atol=1e-7)


def softmax_ulps(length: int, group: int, unroll: int = 1) -> int:
    """How far apart two float32 softmaxes of a row may be, in ulp: on each side exp within
    2 ulp, the division within 0.5, and the sum of the row's positive terms within 1 ulp
    per level of its summation tree: each thread adds its steps in sequence (loops in
    cascades of `CASCADE_FAN_IN` steps; rows of up to `unroll` terms a thread and of
    MAX_UNROLLED_STEPS steps are unrolled), a step's up to 4 terms pairwise, the row's
    threads pairwise in workgroup memory. The errors of the two sides add."""
    width = 4 if length % 4 == 0 else 1
    steps = -(-length // (group * width))
    unrolled = steps <= MAX_UNROLLED_STEPS or steps * width <= unroll
    sequential = steps if unrolled else CASCADE_FAN_IN * math.ceil(math.log(steps, CASCADE_FAN_IN))
    depth = sequential + (width // 2) + math.ceil(math.log2(group)) + 1
    return 2 * (2 + depth) + 1


@pytest.mark.parametrize("mapping", MAPPINGS)
@given(rows=st.integers(1, 60), length=st.integers(1, 100), seed=st.integers(0, 2**16))
def test_mixed_stage_dtypes(cpu, webgpu, mapping, rows, length, seed):
    rng = np.random.default_rng(seed)
    counts = rng.integers(-1 if seed % 2 else 0, 5, rows * length).astype(np.int32)
    y = rng.integers(-8, 8, rows * length).astype(np.float32)  # exact sums in any order
    kernel = mixed_kernel(rows, length)
    want = run_kernel(cpu, kernel, [counts, y])
    expect = (y * counts).reshape(rows, length).sum(1) * np.where(
        (counts >= 0).reshape(rows, length).all(1), counts.reshape(rows, length).sum(1), -1)
    assert_equal_values(want, expect.astype(np.float32), "cpu")
    assert_equal_values(run_on(webgpu, kernel, [counts, y], mapping), want, f"{mapping}")


def test_default_mapping_and_specials(cpu, webgpu):
    x = np.random.default_rng(1).normal(size=(6, 8)).astype(np.float32)
    x[1, 3], x[2, :], x[3, 0], x[4, 5] = np.nan, -np.inf, np.inf, -0.0
    kernel = softmax_kernel(6, 8)
    assert_close_ulps(run_on(webgpu, kernel, [x.ravel()]), run_kernel(cpu, kernel, [x.ravel()]), 8, atol=1e-7)


@pytest.mark.parametrize("rows, length", [(1, 16384), (3, 5001), (40, 64)])
def test_default_mapping_of_long_rows(cpu, webgpu, rows, length):
    """Rows long enough for a group of threads on every adapter (`row_tuning`)."""
    x = np.random.default_rng(length).normal(0, 4, rows * length).astype(np.float32)
    kernel = softmax_kernel(rows, length)
    tuning = row_tuning(kernel, webgpu.traits)
    assert_close_ulps(run_on(webgpu, kernel, [x]), run_kernel(cpu, kernel, [x]),
                      softmax_ulps(length, tuning.group, tuning.unroll), atol=1e-7)


@pytest.mark.parametrize("length, software, gpu", [(16, 1, 4), (63, 1, 4), (64, 4, 4), (300, 32, 32),
                                                   (16384, 64, 256)])
def test_threads_per_row(length, software, gpu):
    """On software adapters rows shorter than SOFTWARE_GROUPED_ROW take one thread; the
    others, and every row on GPUs, about 16 terms a thread, at most a workgroup."""
    kernel = softmax_kernel(8, length)
    assert row_tuning(kernel, AdapterTraits(True)).group == software
    assert row_tuning(kernel, AdapterTraits(False)).group == gpu


def test_grid_past_65535_workgroups(cpu, webgpu):
    """One workgroup per row, 70000 rows: the grid folds into two dimensions."""
    rows, length = 70_000, 8
    x = np.random.default_rng(2).normal(size=rows * length).astype(np.float32)
    kernel = softmax_kernel(rows, length)
    got = run_on(webgpu, kernel, [x], (4, 4))
    assert_close_ulps(got, run_kernel(cpu, kernel, [x]), 8, atol=1e-7)


def test_stages_are_checked():
    x = alu.load(0, dt.float32, alu.gidx(4) * 3 + alu.ridx(3))
    stage = Kernel(1, 4, x, Reduction(Op.ADD, dt.float32, 3))
    with pytest.raises(ValueError, match="cannot hold rows"):
        Kernel(1, 10, alu.const(dt.float32, 0), stages=(stage,))
    with pytest.raises(ValueError, match="plain kernels"):
        Kernel(2, 12, alu.const(dt.float32, 0), stages=(stage,))
