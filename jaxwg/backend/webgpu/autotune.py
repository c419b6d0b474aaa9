"""Measured choice of matrix-product tiles, remembered on disk per adapter.

The tuner's heuristics pick a first tile (`tuner.matmul_tile`); which tile is fastest
depends on the adapter and on the product's shape (on the H200, 128 x 64 tiles beat
128 x 128 ones at 1024^2 by 25% and lose to them at 4096^2 by 10%). On the first product of a shape class (dtype, batched or not, and m, n, k
rounded up to powers of two) the backend times each of `tuner.tile_candidates` on
scratch inputs and keeps the fastest. The choice is stored in
`<cache dir>/jaxwg/tuning.json` under the adapter's description, so later processes
skip the measurement. Each choice also records which candidates it was chosen among
(`among`, a digest of the list): when a new release changes the list, the class is
measured again rather than kept on a tile that may no longer be the best (an H100 kept
the 128 x 256 x 8 tile chosen before the faster k = 16 one existed). The cache directory
is `JAXWG_CACHE_DIR`, else `XDG_CACHE_HOME`, else `~/.cache`.

Measuring is on by default on GPUs and off on software adapters (lavapipe, llvmpipe:
there the timing runs on the CPU the program itself needs, and the heuristics' tiles
were chosen by measuring on it); `JAXWG_AUTOTUNE=1` or `0` decides for every adapter.
Candidates are timed as products run in a program, several dispatches back to back:
timed one dispatch at a time, each followed by a wait, small tiles looked faster on
the H200 than they are (docs/performance.md). Where the adapter stamps times inside a
pass, the batch is timed on the GPU's clock, else by the wall clock with one wait.
`clear()` deletes the stored choices.

>>> cache = TuningCache(path=None)   # in memory only
>>> tiles = [Tile(64, 64, 16, 4, 4), Tile(32, 32, 16, 4, 4)]
>>> cache.get("adapter", "float32|1|1024x1024x1024", among(tiles)) is None
True
>>> cache.put("adapter", "float32|1|1024x1024x1024", Tile(64, 64, 16, 4, 4), among(tiles))
>>> cache.get("adapter", "float32|1|1024x1024x1024", among(tiles))
Tile(m=64, n=64, k=16, thread_m=4, thread_n=4, staged=True, buffers=1, slices=1)
>>> cache.get("adapter", "float32|1|1024x1024x1024", among(tiles[:1])) is None  # other candidates
True
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from dataclasses import astuple
from pathlib import Path

from ...core.contraction import Contraction
from ...core.dtypes import DType
from .device import env_switch
from .tuner import Tile

ENV_VAR = "JAXWG_AUTOTUNE"
# Stop measuring other candidates when the first one already takes this long: the
# search would cost more than it can save (a 4096^2 product on a software adapter).
MAX_TRIAL_SECONDS = 0.25
# Runs of a candidate timed as one batch: by the wall clock, each batch also pays a
# submit and a wait; on the GPU's clock (timestamps), only the runs themselves.
MAX_WALL_TIMED_RUNS = 10
MAX_GPU_TIMED_RUNS = 100


def enabled(is_software: bool) -> bool:
    """Whether to measure tiles: `JAXWG_AUTOTUNE` when set, else on GPUs only.

    >>> enabled(is_software=False) == (os.environ.get(ENV_VAR) not in ("0", "off"))
    True
    """
    return env_switch(ENV_VAR, not is_software)


def cache_path() -> Path:
    root = os.environ.get("JAXWG_CACHE_DIR") or os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(root) / "jaxwg" / "tuning.json"


def shape_class(c: Contraction, dtype: DType) -> str:
    """The key products share a tile under: dtype, batched or not, sizes to powers of two."""
    def bucket(n: int) -> int:
        return 1 << max(0, n - 1).bit_length()

    return f"{dtype.name}|{int(c.batch > 1)}|{bucket(c.m)}x{bucket(c.n)}x{bucket(c.k)}"


def among(candidates: list[Tile]) -> str:
    """A short digest of the candidate list a choice is made from (stored beside it)."""
    return hashlib.sha256(repr([astuple(t) for t in candidates]).encode()).hexdigest()[:16]


class TuningCache:
    """Tile choices by adapter and shape class, each with the digest of the candidates
    it was chosen among, kept in a JSON file (`path`, None for memory only). A missing
    or unreadable file is an empty cache; an entry chosen among other candidates, or
    in an older layout, is a missing one."""

    def __init__(self, path: Path | None):
        self.path = path
        self._entries: dict[str, dict[str, dict]] | None = None

    def get(self, adapter: str, key: str, candidates: str) -> Tile | None:
        found = self._load().get(adapter, {}).get(key)
        if not isinstance(found, dict) or found.get("among") != candidates:
            return None
        try:
            return Tile(*found["tile"])
        except (KeyError, TypeError):  # written by a release whose entries had other fields
            return None

    def put(self, adapter: str, key: str, tile: Tile, candidates: str) -> None:
        self._load().setdefault(adapter, {})[key] = {"tile": list(astuple(tile)), "among": candidates}
        if self.path is None:
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            scratch = self.path.with_suffix(f".{os.getpid()}.tmp")
            scratch.write_text(json.dumps(self._entries, indent=1, sort_keys=True))
            scratch.replace(self.path)  # atomic: readers never see half a file
        except OSError:
            pass  # a read-only cache directory: the choice lasts for this process

    def clear(self) -> None:
        self._entries = {}
        if self.path is not None and self.path.exists():
            self.path.unlink()

    def _load(self) -> dict:
        if self._entries is None:
            try:
                self._entries = json.loads(self.path.read_text()) if self.path is not None else {}
            except (OSError, ValueError):
                self._entries = {}
            if not isinstance(self._entries, dict):
                self._entries = {}
        return self._entries


def fastest(candidates: list[Tile], run, sync, rounds: int = 2, gpu_seconds=None) -> Tile:
    """The candidate whose `run(tile)` (record one dispatch) takes least time when
    products run back to back. Each is run once to compile and warm, once more (with
    `sync()`, the wait) to see how long a run takes, then timed as a batch of runs
    filling about 20 ms and one wait. The candidates take turns for `rounds` rounds
    and each keeps its best, so that a GPU still raising its clocks does not favour
    the later ones. Measuring stops after the first candidate when one of its runs
    costs more than MAX_TRIAL_SECONDS.

    `gpu_seconds(record)`, where the adapter has timestamps (`DispatchQueue.gpu_seconds`),
    times a batch on the GPU's own clock: up to MAX_GPU_TIMED_RUNS runs, without the
    wait and the host's share. Timed by the wall clock (at most MAX_WALL_TIMED_RUNS
    runs and a wait), the tiles of the MLP training step's products (10-20 µs each on
    an H100) came out in the wrong order: the choice was up to 1.2x slower than the
    best. If any batch cannot be timed on the GPU's clock (a submit split it), the
    whole search is done again by the wall clock, so that no two clocks are compared."""
    def on_gpu_clock(tile: Tile, count: int) -> float:
        seconds = gpu_seconds(lambda: [run(tile) for _ in range(count)])
        if seconds is None:
            raise _SplitBatch
        return seconds / count

    def on_wall_clock(tile: Tile, count: int) -> float:
        start = time.perf_counter()
        for _ in range(count):
            run(tile)
        sync()
        return (time.perf_counter() - start) / count

    if gpu_seconds is not None:
        try:
            return _search(candidates, run, sync, rounds, on_gpu_clock, MAX_GPU_TIMED_RUNS)
        except _SplitBatch:  # a batch was submitted in two parts: time them all the other way
            pass
    return _search(candidates, run, sync, rounds, on_wall_clock, MAX_WALL_TIMED_RUNS)


class _SplitBatch(Exception):
    """A batch of runs the GPU's clock could not time (`DispatchQueue.gpu_seconds`)."""


def _search(candidates: list[Tile], run, sync, rounds: int, seconds_per_run, most: int) -> Tile:
    """`fastest`, timing a batch of `count` runs of a tile with `seconds_per_run`."""
    reps = {}
    for tile in candidates:
        run(tile)
        sync()
        once = seconds_per_run(tile, 1)
        if once > MAX_TRIAL_SECONDS and tile is candidates[0]:
            return tile
        if once <= MAX_TRIAL_SECONDS:
            reps[tile] = max(1, min(most, int(0.02 / max(once, 1e-6))))
    best: dict[Tile, float] = {}
    for _ in range(rounds):
        for tile, count in reps.items():
            best[tile] = min(best.get(tile, float("inf")), seconds_per_run(tile, count))
    return min(best, key=best.get)


_caches: dict[Path, TuningCache] = {}


def default_cache() -> TuningCache:
    """The cache at `cache_path()`, one object per path in this process."""
    path = cache_path()
    if path not in _caches:
        _caches[path] = TuningCache(path)
    return _caches[path]


def clear() -> None:
    """Forget every stored tile choice (the file under the user cache directory).

    >>> import jaxwg.backend.webgpu.autotune as autotune
    >>> autotune.clear()  # the next product of each class is measured again  # doctest: +SKIP
    >>> autotune.cache_path().name
    'tuning.json'
    """
    default_cache().clear()
