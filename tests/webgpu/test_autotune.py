"""Autotuning of matrix-product tiles (backend/webgpu/autotune.py): the on-disk cache,
the choice of the fastest candidate, and the backend measuring once per shape class."""

import time

import numpy as np
import pytest

from jaxwg.backend.webgpu import autotune
from jaxwg.backend.webgpu.autotune import TuningCache, among, fastest, shape_class
from jaxwg.backend.webgpu.tuner import AdapterTraits, Tile, tile_candidates
from jaxwg.core import dtypes as dt
from jaxwg.core.contraction import as_contraction

from ..backend.helpers import assert_equal_values, run_kernel
from ..backend.test_matmul import operands, product_kernel


TILES = [Tile(64, 64, 8, 4, 4), Tile(32, 64, 4, 4, 8, staged=False)]
AMONG = among(TILES)


def test_cache_round_trips_through_its_file(tmp_path):
    path = tmp_path / "jaxwg" / "tuning.json"
    TuningCache(path).put("gpu A", "float32|0|64x64x64", TILES[0], AMONG)
    TuningCache(path).put("gpu A", "float32|0|128x128x128", TILES[1], AMONG)
    again = TuningCache(path)
    assert again.get("gpu A", "float32|0|64x64x64", AMONG) == TILES[0]
    assert again.get("gpu A", "float32|0|128x128x128", AMONG) == TILES[1]
    assert again.get("gpu B", "float32|0|64x64x64", AMONG) is None
    again.clear()
    assert not path.exists() and TuningCache(path).get("gpu A", "float32|0|64x64x64", AMONG) is None


def test_a_choice_among_other_candidates_is_measured_again(tmp_path):
    """A release that adds or changes candidate tiles must not keep an older choice."""
    path = tmp_path / "tuning.json"
    TuningCache(path).put("gpu", "float32|0|64x64x64", TILES[0], among(TILES[:1]))
    assert TuningCache(path).get("gpu", "float32|0|64x64x64", AMONG) is None
    assert among(TILES) != among(TILES[::-1]) != among(TILES[:1])


@pytest.mark.parametrize("entry", ['[64, 64, 8, 4, 4, true, 1, 1]',  # the layout before `among`
                                   '{"tile": [64, 64], "among": "%s"}' % AMONG,  # a Tile of other fields
                                   '{"among": "%s"}' % AMONG])
def test_entries_in_other_layouts_are_missing(tmp_path, entry):
    path = tmp_path / "tuning.json"
    path.write_text('{"gpu": {"float32|0|64x64x64": %s}}' % entry)
    assert TuningCache(path).get("gpu", "float32|0|64x64x64", AMONG) is None


@pytest.mark.parametrize("text", ["{not json", "[1, 2]", ""])
def test_an_unreadable_cache_is_empty(tmp_path, text):
    path = tmp_path / "tuning.json"
    path.write_text(text)
    cache = TuningCache(path)
    assert cache.get("gpu", "key", AMONG) is None
    cache.put("gpu", "key", TILES[0], AMONG)  # and is replaced on the next choice
    assert TuningCache(path).get("gpu", "key", AMONG) == TILES[0]


def test_an_unwritable_cache_keeps_choices_in_memory(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    cache = TuningCache(blocker / "jaxwg" / "tuning.json")  # its parent is a file
    cache.put("gpu", "key", TILES[0], AMONG)
    assert cache.get("gpu", "key", AMONG) == TILES[0]


def test_shape_classes_round_sizes_up_to_powers_of_two():
    c = as_contraction(product_kernel(dt.float32, 3, 100, 33, 64))
    assert shape_class(c, dt.float32) == "float32|1|128x64x64"
    c = as_contraction(product_kernel(dt.float16, 1, 1, 1, 1))
    assert shape_class(c, dt.float16) == "float16|0|1x1x1"


@pytest.mark.parametrize("setting, gpu, software", [(None, True, False), ("1", True, True),
                                                   ("0", False, False), ("off", False, False)])
def test_measuring_is_on_for_gpus_unless_the_variable_says(monkeypatch, setting, gpu, software):
    if setting is None:
        monkeypatch.delenv(autotune.ENV_VAR, raising=False)
    else:
        monkeypatch.setenv(autotune.ENV_VAR, setting)
    assert (autotune.enabled(is_software=False), autotune.enabled(is_software=True)) == (gpu, software)


def test_candidates_fit_the_adapters_workgroup_memory():
    """A tile whose workgroup arrays exceed the adapter's limit is never timed: WebGPU
    need not reject its shader (lavapipe ran one, wrongly), so a broken tile could win.
    The 128 x 256 tile's two buffers take 48 KiB: in on an NVIDIA GPU's 48 KiB, out on
    Apple's 32."""
    kernel = product_kernel(dt.float32, 1, 4096, 4096, 4096)
    wide = Tile(128, 256, 16, 8, 16, buffers=2)
    assert wide.workgroup_bytes(4) == 49152
    for limit, expected in ((49152, True), (32768, False)):
        candidates = tile_candidates(kernel, AdapterTraits(False, 1 << 30, limit))
        assert (wide in candidates) is expected
        assert all(t.workgroup_bytes(4) <= limit for t in candidates)


def test_the_fastest_candidate_wins():
    tiles = [Tile(64, 64, 8, 4, 4), Tile(128, 128, 8, 8, 8), Tile(32, 32, 8, 4, 4)]
    delay = {tiles[0]: 0.004, tiles[1]: 0.0005, tiles[2]: 0.003}
    assert fastest(tiles, lambda t: time.sleep(delay[t]), lambda: None) == tiles[1]


def test_runs_are_timed_back_to_back_with_one_wait():
    # A run records work and the wait pays for all of it: the candidate whose runs
    # cost least together wins, whatever one run plus a wait costs.
    tiles = [Tile(64, 64, 8, 4, 4), Tile(128, 128, 8, 8, 8)]
    per_run, per_wait = {tiles[0]: 0.002, tiles[1]: 0.0004}, {tiles[0]: 0.0, tiles[1]: 0.003}
    queued = []

    def sync():
        time.sleep(sum(per_run[t] for t in queued) + max((per_wait[t] for t in queued), default=0))
        queued.clear()

    assert fastest(tiles, queued.append, sync) == tiles[1]


def test_a_slow_first_candidate_ends_the_search(monkeypatch):
    monkeypatch.setattr(autotune, "MAX_TRIAL_SECONDS", 0.001)
    tried = []
    tiles = [Tile(64, 64, 8, 4, 4), Tile(128, 128, 8, 8, 8)]
    assert fastest(tiles, lambda t: (tried.append(t), time.sleep(0.002)), lambda: None) == tiles[0]
    assert tried == [tiles[0], tiles[0]]  # warm, then one timed run


def test_runs_are_timed_on_the_gpu_clock_where_given():
    # The wall clock favours tiles[0]; the GPU's clock, which sees only the runs, tiles[1].
    tiles = [Tile(64, 64, 8, 4, 4), Tile(128, 128, 8, 8, 8)]
    gpu_per_run = {tiles[0]: 2e-5, tiles[1]: 1e-5}
    recorded = []

    def gpu_seconds(record):
        record()
        seconds = sum(gpu_per_run[t] for t in recorded)
        recorded.clear()
        return seconds

    def run(tile):
        recorded.append(tile)
        time.sleep(0.0002 if tile is tiles[1] else 0.0)

    assert fastest(tiles, run, recorded.clear, gpu_seconds=gpu_seconds) == tiles[1]
    # A batch the clock cannot time (None: a submit split it) sends the whole search to the
    # wall clock, with its own bound on runs a batch.
    batches = []

    def split_once(record):
        batches.append(len(recorded))
        return None if len(batches) == 3 else gpu_seconds(record)

    counted = []
    assert fastest(tiles, lambda t: (counted.append(t), run(t)), recorded.clear,
                   gpu_seconds=split_once) == tiles[0]
    assert len(batches) == 3  # the third batch was split; no GPU clock after it
    assert counted.count(tiles[0]) <= 3 + 2 * (1 + autotune.MAX_WALL_TIMED_RUNS) + 2


def test_the_queue_times_recorded_work_on_the_gpu_clock(webgpu):
    from jaxwg.backend.webgpu.timing import KernelTimer
    timer = KernelTimer.create(webgpu.device, webgpu.queue)
    if timer is None:
        pytest.skip("the adapter does not stamp times inside passes")
    rng = np.random.default_rng(2)
    lhs, rhs, inputs = operands(dt.float32, 1, 64, 32, 48, False, False, rng)
    kernel = product_kernel(dt.float32, 1, 64, 32, 48)
    slots = [webgpu.upload(x) for x in inputs]
    out = webgpu.malloc(64 * 48 * 4)
    exe = webgpu.prepare(kernel)
    try:
        seconds = webgpu.queue.gpu_seconds(timer, lambda: [webgpu.dispatch(exe, slots, [out]) for _ in range(5)])
        assert seconds is not None and 0 < seconds < 10
        assert_equal_values(webgpu.download(out, dt.float32, 64 * 48), (lhs @ rhs).reshape(-1))
        # Work that submits in the middle is in two passes: no time for it.
        assert webgpu.queue.gpu_seconds(timer, lambda: (webgpu.dispatch(exe, slots, [out]),
                                                         webgpu.queue.flush())) is None
        # Nothing recorded: no time, not the last measurement's.
        assert webgpu.queue.gpu_seconds(timer, lambda: None) < seconds
        # A failing record leaves the queue and the timer as they were.
        limits = webgpu.queue.max_pending, webgpu.queue.max_held_bytes

        def failing():
            webgpu.dispatch(exe, slots, [out])
            raise RuntimeError("while recording")

        with pytest.raises(RuntimeError, match="while recording"):
            webgpu.queue.gpu_seconds(timer, failing)
        assert (webgpu.queue.max_pending, webgpu.queue.max_held_bytes) == limits
        again = webgpu.queue.gpu_seconds(timer, lambda: webgpu.dispatch(exe, slots, [out]))
        assert again is not None and 0 < again < 10
    finally:
        for slot in slots + [out]:
            webgpu.decref(slot)


def test_the_backend_measures_once_per_shape_class(webgpu, tmp_path, monkeypatch):
    monkeypatch.setattr(webgpu, "autotune", True)
    monkeypatch.setattr(webgpu, "tuning_cache", TuningCache(tmp_path / "tuning.json"))
    runs = []
    real = autotune.fastest
    monkeypatch.setattr(autotune, "fastest", lambda tiles, run, sync, **kw: runs.append(tiles) or real(tiles, run, sync, **kw))
    rng = np.random.default_rng(5)
    # one shape class, 128 x 128 x 32, with several candidate tiles on GPUs and software
    # adapters alike (a 64 x 64 class has only the 64 x 64 tile on a GPU)
    for m, k, n in [(100, 24, 90), (70, 20, 120)]:
        lhs, rhs, inputs = operands(dt.float32, 1, m, k, n, False, False, rng)
        got = run_kernel(webgpu, product_kernel(dt.float32, 1, m, k, n), inputs)
        assert_equal_values(got, (lhs @ rhs).reshape(-1))
    assert len(runs) == 1 and len(runs[0]) >= 2
    stored = TuningCache(tmp_path / "tuning.json").get(webgpu.describe(), "float32|0|128x128x32", among(runs[0]))
    assert stored in runs[0]
