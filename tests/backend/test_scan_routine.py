"""The cumulative-sum routine (core/routine.py, backend/webgpu/scan.py) against NumPy,
on both backends: rows of one block and of many (the totals and offsets passes), block
and chunk edges, integer wrap-around, float sums of millions of values held to a bound,
and more blocks than one grid dimension holds."""

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jaxwg.backend.webgpu import scan
from jaxwg.backend.webgpu.routines import compile_routine
from jaxwg.backend.webgpu.tuner import AdapterTraits
from jaxwg.core import dtypes as dt
from jaxwg.core.routine import CumulativeSum

from .helpers import assert_equal_values, run_kernel


def run_scan(backend, x: np.ndarray, **traits) -> np.ndarray:
    """The routine on `x`'s rows; `traits` (WebGPU: `subgroups`, `is_software`) force the
    plan for an adapter with or without them, else the backend picks by its adapter."""
    rows, length = x.shape
    routine = CumulativeSum(dt.from_numpy(x.dtype), rows, length)
    exe = None
    if traits:
        plan = scan.plan(routine, dataclasses.replace(backend.traits, **traits))
        exe = compile_routine(backend.device, routine, plan)
    return run_kernel(backend, routine, [x], executable=exe).reshape(rows, length)


@settings(max_examples=20)
@given(dtype=st.sampled_from(["int32", "uint32", "float32"]), rows=st.integers(1, 4),
       length=st.integers(1, 3 * scan.BLOCK + 5), seed=st.integers(0, 2 ** 31))
def test_matches_numpy(backend, dtype, rows, length, seed):
    rng = np.random.default_rng(seed)
    # small integers: float sums are exact in every order; ints wrap past 2^31
    x = (rng.integers(-8, 8, (rows, length)) if dtype == "float32"
         else rng.integers(0, 2 ** 32, (rows, length), dtype=np.uint64)).astype(dtype)
    assert_equal_values(run_scan(backend, x), np.cumsum(x, axis=1, dtype=dtype))


@pytest.mark.parametrize("length", [scan.BLOCK, scan.BLOCK + 1, scan.BLOCK * scan.BLOCK + 7])
def test_block_and_chunk_edges(backend, length):
    # past BLOCK * BLOCK elements the offsets pass scans its totals in two chunks
    x = (np.arange(length) % 5 - 2).astype(np.int32)[None]
    assert_equal_values(run_scan(backend, x), np.cumsum(x, axis=1, dtype=np.int32))


@pytest.mark.parametrize("subgroups", [False, True])
def test_sums_across_threads_with_and_without_subgroups(webgpu, subgroups):
    """Both ways of summing across a workgroup's threads (subgroup operations, or
    workgroup memory alone), on rows of one block, of many, and of more blocks than the
    offsets pass scans at once (two chunks)."""
    if subgroups and "subgroup" not in webgpu.device.features:
        pytest.skip(f"{webgpu.describe()} has no subgroup operations")
    rng = np.random.default_rng(7)
    for dtype, shape in (("int32", (3, 100)), ("float32", (3, 3 * scan.BLOCK + 5)),
                         ("uint32", (2, 2 * scan.BLOCK)), ("int32", (1, scan.BLOCK * scan.BLOCK + 7))):
        x = rng.integers(-8, 8, shape).astype(dtype)
        assert_equal_values(run_scan(webgpu, x, subgroups=subgroups, is_software=False), np.cumsum(x, axis=1, dtype=dtype))


def test_short_rows_take_a_thread_each_on_software_adapters():
    """Rows of at most BLOCK: one pass of a thread per row on software adapters, a
    workgroup per row on GPUs."""
    def shaders(rows, length, software):
        p = scan.plan(CumulativeSum(dt.float32, rows, length), AdapterTraits(software))
        return [(s.shader, s.workgroups) for s in p.steps]

    assert shaders(4096, 16, True) == [("rows", 64)]
    assert shaders(3, scan.BLOCK, True) == [("rows", 1)]
    assert shaders(4096, 16, False) == [("scan", 4096)]
    assert [s for s, _ in shaders(1, scan.BLOCK + 1, True)] == ["totals", "offsets", "scan"]


@pytest.mark.parametrize("software", [False, True])
def test_short_rows_on_both_plans(webgpu, software):
    """Rows of one block through either plan, on any adapter: floats with specials (a
    row that starts with -0.0 starts with 0.0, as JAX's: its scan adds to 0), integers
    that wrap, and more rows than a workgroup has threads."""
    rng = np.random.default_rng(3)
    x = rng.normal(size=(70, 33)).astype(np.float32)
    x[0, 0], x[1, 5], x[2, 7], x[3, 0], x[3, 1] = -0.0, np.nan, np.inf, -np.inf, np.inf
    want = np.cumsum(x.astype(np.float64), axis=1).astype(np.float32)
    got = run_scan(webgpu, x, is_software=software)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    assert not np.signbit(got[0, 0])
    ints = rng.integers(0, 2 ** 32, (5, scan.BLOCK), dtype=np.uint64).astype(np.uint32)
    assert_equal_values(run_scan(webgpu, ints, is_software=software), np.cumsum(ints, axis=1, dtype=np.uint32))


def test_float_sums_of_millions_stay_within_a_bound(backend):
    """4M standard normals: each prefix within 1e-6 of the largest |prefix| (a
    sequential float32 sum would drift by ~1e-4 of it)."""
    x = np.random.default_rng(0).standard_normal((1, 1 << 22)).astype(np.float32)
    got = run_scan(backend, x)[0].astype(np.float64)
    want = np.cumsum(x[0].astype(np.float64))
    assert np.abs(got - want).max() <= 1e-6 * np.abs(want).max() + 1e-3


@pytest.mark.slow
def test_more_than_65535_blocks(backend):
    rows = 65536 + 3  # one block a row: the grid folds into two dimensions
    x = np.random.default_rng(1).integers(-3, 3, (rows, 40)).astype(np.int32)
    assert_equal_values(run_scan(backend, x), np.cumsum(x, axis=1, dtype=np.int32))
