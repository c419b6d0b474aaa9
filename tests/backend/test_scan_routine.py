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
from jaxwg.core import dtypes as dt
from jaxwg.core.routine import CumulativeSum

from .helpers import assert_equal_values, run_kernel


def run_scan(backend, x: np.ndarray, subgroups: bool | None = None) -> np.ndarray:
    """The routine on `x`'s rows; `subgroups` (WebGPU) forces the plan with or without
    subgroup operations, else the backend picks by its adapter."""
    rows, length = x.shape
    routine = CumulativeSum(dt.from_numpy(x.dtype), rows, length)
    exe = None
    if subgroups is not None:
        traits = dataclasses.replace(backend.traits, subgroups=subgroups)
        exe = compile_routine(backend.device, routine, scan.plan(routine, traits))
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
        assert_equal_values(run_scan(webgpu, x, subgroups), np.cumsum(x, axis=1, dtype=dtype))


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
