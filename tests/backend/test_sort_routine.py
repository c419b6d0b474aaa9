"""The sort routine (core/routine.py, backend/webgpu/sort.py) against NumPy's stable
lexsort, on both backends: rows shorter and longer than one workgroup block, lengths
that are not powers of two, several keys with many ties (stability), and the edges of
the key range (0 and 0xFFFFFFFF, which is also the padding's key). The radix sort
(radix_sort.py), which takes only long rows, is compiled and run on short ones too."""

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jaxwg.backend.webgpu import radix_sort, sort
from jaxwg.backend.webgpu.routines import compile_routine
from jaxwg.backend.webgpu.tuner import AdapterTraits
from jaxwg.core.routine import SortPermutation

from .helpers import assert_equal_values, run_kernel


def run_sort(backend, keys: np.ndarray) -> np.ndarray:
    """The routine's permutation of `keys` (keys, rows, length), as (rows, length)."""
    count, rows, length = keys.shape
    out = run_kernel(backend, SortPermutation(rows, length, count), [keys.astype(np.uint32).ravel()])
    return out.reshape(rows, length)


def run_radix_sort(webgpu, keys: np.ndarray, subgroups: bool | None = None) -> np.ndarray:
    """`run_sort` through the radix sort's plan, whatever the rows' length; `subgroups`
    forces its sums across threads with or without subgroup operations, else the
    adapter's traits pick."""
    count, rows, length = keys.shape
    routine = SortPermutation(rows, length, count)
    traits = webgpu.traits if subgroups is None else dataclasses.replace(webgpu.traits, subgroups=subgroups)
    exe = compile_routine(webgpu.device, routine, radix_sort.plan(routine, traits))
    return run_kernel(webgpu, routine, [keys.astype(np.uint32).ravel()], executable=exe).reshape(rows, length)


def expected(keys: np.ndarray) -> np.ndarray:
    return np.lexsort(keys[::-1], axis=-1).astype(np.int32)


@settings(max_examples=20)
@given(rows=st.integers(1, 5), length=st.integers(1, 3000), count=st.integers(1, 3),
       high=st.sampled_from([2, 50, 2 ** 32]), seed=st.integers(0, 2 ** 31))
def test_matches_a_stable_lexsort(backend, rows, length, count, high, seed):
    rng = np.random.default_rng(seed)
    keys = rng.integers(0, high, (count, rows, length), dtype=np.uint64).astype(np.uint32)
    assert_equal_values(run_sort(backend, keys), expected(keys), f"{count} keys, {rows}x{length}")


@pytest.mark.parametrize("rows,length", [
    (1, 4096), (1, 4097), (3, 8192 + 5), (1, 100_003),  # one block, just past it, merges
    (1000, 3), (2049, 2),  # many short rows packed into blocks, the last block partial
])
def test_block_edges_and_merges(backend, rows, length):
    rng = np.random.default_rng(rows * length)
    keys = rng.integers(0, 1000, (1, rows, length), dtype=np.uint32)
    assert_equal_values(run_sort(backend, keys), expected(keys), f"{rows}x{length}")


def test_extreme_keys_sort_before_the_padding(backend):
    keys = np.array([[[0xFFFFFFFF, 0, 0xFFFFFFFF, 7, 0xFFFFFFFE]]], np.uint32)
    assert run_sort(backend, keys).tolist() == [[1, 3, 4, 0, 2]]
    two = np.full((2, 1, 5000), 0xFFFFFFFF, np.uint32)  # every key the padding's
    assert_equal_values(run_sort(backend, two), expected(two))


def test_plan_counts_passes():
    # 2^20 elements, one key: blocks of 2048 (16 KiB: keys and positions); 9 merges of
    # 1..9 levels past the block, three levels a pass; a block pass each for the rest
    big = SortPermutation(1, 1 << 20, 1)
    assert sort.block_size(big, 32768) == 2048
    shaders = [s.shader for s in sort.bitonic_plan(big, 32768).steps]
    assert shaders.count("block") == 10
    levels = [c for past in range(1, 10) for c in [3] * (past // 3) + [past % 3] * (past % 3 > 0)]
    assert [s for s in shaders if s != "block"] == [f"merge{c}" for c in levels]
    assert sort.block_size(SortPermutation(1, 10, 7), 16384) == 512  # 8 planes
    assert len(sort.plan(SortPermutation(4, 2048, 1), AdapterTraits(False, workgroup_bytes=32768)).steps) == 1


def test_long_rows_take_the_radix_sort():
    # where the network makes RADIX_FROM times the radix sort's dispatches (three per
    # 8-bit digit) or more, and the radix sort's scratch fits one of the adapter's bindings
    def shaders(rows, length, keys=1, binding=1 << 27):
        traits = AdapterTraits(False, max_binding_bytes=binding)
        return [s.shader for s in sort.plan(SortPermutation(rows, length, keys), traits).steps]
    assert shaders(3, 1 << 17) == ["count", "scan", "scatter"] * 4
    assert len(sort.bitonic_plan(SortPermutation(3, 1 << 16, 1), 16384).steps) < sort.RADIX_FROM * 12
    assert "block" in shaders(3, 1 << 16)
    assert len(shaders(1, 1 << 19, 2)) == 24 and "block" in shaders(1, 1 << 18, 2)
    assert "block" in shaders(1, 1 << 24)  # 3 * 2^26 bytes of scratch
    assert "block" not in shaders(1, 1 << 24, binding=1 << 30)


@settings(max_examples=6)
@given(rows=st.integers(1, 3), length=st.integers(1, 5000), count=st.integers(1, 3),
       high=st.sampled_from([2, 300, 2 ** 32]), seed=st.integers(0, 2 ** 31))
def test_radix_sort_matches_a_stable_lexsort(webgpu, rows, length, count, high, seed):
    rng = np.random.default_rng(seed)
    keys = rng.integers(0, high, (count, rows, length), dtype=np.uint64).astype(np.uint32)
    assert_equal_values(run_radix_sort(webgpu, keys), expected(keys), f"{count} keys, {rows}x{length}")


def test_radix_sort_edges(webgpu):
    # every byte 0x00 or 0xFF (0 and 0xFFFFFFFF among them), ties in 3 keys over rows of
    # 2 blocks and a bit (not a multiple of the block), and equal keys (stability)
    rng = np.random.default_rng(7)
    patterns = np.array([sum(0xFF << (8 * b) for b in range(4) if i >> b & 1) for i in range(16)], np.uint32)
    keys = rng.choice(patterns, (3, 2, 2 * radix_sort.BLOCK + 3))
    assert_equal_values(run_radix_sort(webgpu, keys), expected(keys), "byte patterns")
    equal = np.full((2, 1, 3000), 0xFFFFFFFF, np.uint32)
    assert_equal_values(run_radix_sort(webgpu, equal), expected(equal), "equal keys")


@pytest.mark.parametrize("subgroups", [False, True])
def test_radix_sort_with_and_without_subgroups(webgpu, subgroups):
    """Both ways of summing across a workgroup's threads (subgroup operations, or
    workgroup memory alone), on odd lengths, rows of several blocks, two key planes (8
    digit passes) with many ties (stability), and rows of 9 blocks, whose digit offsets
    are scanned in two groups of 128 digits."""
    if subgroups and "subgroup" not in webgpu.device.features:
        pytest.skip(f"{webgpu.describe()} has no subgroup operations")
    rng = np.random.default_rng(11)
    for count, rows, length, high in ((1, 1, 5, 2 ** 32), (2, 3, 2 * radix_sort.BLOCK + 3, 300),
                                      (1, 2, 9 * radix_sort.BLOCK + 1, 2 ** 32)):
        keys = rng.integers(0, high, (count, rows, length), dtype=np.uint64).astype(np.uint32)
        assert_equal_values(run_radix_sort(webgpu, keys, subgroups), expected(keys),
                            f"{count} keys, {rows}x{length}")


@pytest.mark.slow
def test_radix_sort_of_a_million(webgpu):
    keys = np.random.default_rng(0).integers(0, 2 ** 32, (1, 1, 1 << 20), dtype=np.uint64).astype(np.uint32)
    assert sort.plan(SortPermutation(1, 1 << 20, 1), AdapterTraits(False)).steps[0].shader == "count"
    assert_equal_values(run_sort(webgpu, keys), expected(keys), "2^20 x 1")


def test_a_sort_past_one_binding_is_refused_by_name(webgpu):
    rows = webgpu.window_bytes // 8 + 1  # two planes of 4 bytes per element
    with pytest.raises(ValueError, match="more than one storage binding"):
        webgpu.prepare(SortPermutation(rows, 1, 1))
