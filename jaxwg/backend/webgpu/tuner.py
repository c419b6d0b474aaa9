"""How a kernel's work maps onto WebGPU threads, chosen per kernel and adapter.

The code generator can run a reduction four ways: one thread per output with
`upcast` outputs per thread (separate accumulators) and the loop `unroll`ed; a
*grouped* reduction where `group` threads of a workgroup share one output through
workgroup memory; a *split* into two kernels, the first reducing slices of each
row into partial results, the second reducing the partials (and running the
epilogue); or, for a matrix product (`core.contraction`), a `Tile` of outputs per
workgroup (matmul.py).

Which is fastest depends on the adapter. GPUs want tens of thousands of threads,
and neighbouring threads should read neighbouring elements, so a split gives each
workgroup a contiguous slice that its threads read together (a grouped first pass),
and a reduction over a leading axis keeps neighbouring outputs on neighbouring
threads (the "columns" layout). The software adapters run a
few dozen SIMD lanes per core; measured on lavapipe (16M float32 sum), contiguous
slices per thread ran at 6-12 GB/s and interleaved ones at 0.5-2, and the grouped
template's barriers cost more than they share (0.2-0.6 GB/s), so there a split with
contiguous slices replaces the grouped reduction. The numbers are in
docs/benchmarks.md; the heuristics are first guesses to be replaced by measured
autotuning.

>>> from jaxwg.core import alu, dtypes as dt
>>> from jaxwg.core.kernel import Kernel, Reduction
>>> x = alu.load(0, dt.float32, alu.ridx(1 << 20))
>>> passes = plan(Kernel(1, 1, x, Reduction(alu.Op.ADD, dt.float32, 1 << 20)), AdapterTraits(False))
>>> [(p.kernel.size, p.kernel.reduction.size, p.tuning.group) for p in passes]
[(256, 4096, 256), (1, 256, 16)]
>>> passes = plan(Kernel(1, 1, x, Reduction(alu.Op.ADD, dt.float32, 1 << 20)), AdapterTraits(True))
>>> [(p.kernel.size, p.kernel.reduction.size, p.tuning.group) for p in passes]
[(1024, 1024, 1), (1, 1024, 1)]
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ...core import alu
from ...core import dtypes as dt
from ...core.contraction import Contraction, as_contraction
from ...core.alu import AluExp
from ...core.kernel import Kernel, Reduction
from .codegen import STORAGE_TYPE


@dataclass(frozen=True)
class AdapterTraits:
    """What the heuristics need to know about an adapter."""

    is_software: bool
    max_binding_bytes: int = 1 << 27  # WebGPU's default maxStorageBufferBindingSize
    workgroup_bytes: int = 16384  # WebGPU's default maxComputeWorkgroupStorageSize
    subgroups: bool = False  # the "subgroup" feature: routines sum across threads with it

    @property
    def parallelism(self) -> int:
        """Threads needed to keep the adapter busy."""
        return 1024 if self.is_software else 262144  # H200: 132 SMs x 2048 threads

    @property
    def workgroup_size(self) -> int:
        return 64 if self.is_software else 256

    @property
    def grouped(self) -> bool:
        """Whether grouped reductions pay off (see the module docstring)."""
        return not self.is_software

    @property
    def max_parts(self) -> int:
        """Most partial results per output in a split (the second pass reduces them)."""
        return 16384 if self.is_software else 131072


@dataclass(frozen=True)
class Tile:
    """How a matrix product (`core.contraction`) is tiled: each workgroup computes an
    `m` x `n` block of outputs, each thread `thread_m` x `thread_n` of them, `k` terms
    per step. `staged` tiles copy each step's operands into workgroup memory first
    (GPUs: every operand is read from memory once per workgroup); unstaged ones read
    them straight from the inputs into registers (software adapters, where workgroup
    memory is ordinary memory and barriers cost). `buffers` = 2 stages alternate steps
    into two halves of workgroup memory: one barrier a step instead of two. `slices` > 1
    (staged only) gives the workgroup that many groups of threads, each summing `k` of
    every step's `slices * k` terms, whose sums are added through workgroup memory at
    the end: more threads for products with few outputs, without a second pass."""

    m: int
    n: int
    k: int
    thread_m: int
    thread_n: int
    staged: bool = True
    buffers: int = 1
    slices: int = 1

    @property
    def threads(self) -> int:
        return self.slices * self.threads_per_slice

    @property
    def threads_per_slice(self) -> int:
        return (self.m // self.thread_m) * (self.n // self.thread_n)

    @property
    def step(self) -> int:
        """Terms of k the workgroup takes a step (every slice's)."""
        return self.k * self.slices

    def staged_halves(self) -> tuple[int, int]:
        """How many halves (one step of the operand each) of workgroup memory a staged
        tile declares for lhs and for rhs: `buffers` each, and lhs enough to hold the
        other slices' sums at the end."""
        sums = -(-((self.slices - 1) * self.m * self.n) // (self.step * self.m))
        return max(self.buffers, sums), self.buffers

    def workgroup_bytes(self, itemsize: int) -> int:
        """Workgroup memory the tile's shader declares, for `itemsize`-byte values."""
        if not self.staged:
            return 0
        lhs, rhs = self.staged_halves()
        return (lhs * self.m + rhs * self.n) * self.step * itemsize


@dataclass(frozen=True)
class Tuning:
    """Thread mapping for one kernel: see the module docstring."""

    workgroup_size: int = 256
    upcast: int = 1
    unroll: int = 1
    group: int = 1
    vector: int = 1  # elementwise: outputs per thread through vec4 loads and stores
    tile: Tile | None = None  # matrix products: see `Tile`


@dataclass(frozen=True)
class Pass:
    """One dispatch of a plan. `inputs` name what each kernel argument reads: an int is
    the executable's input of that number, "scratch" the partials of the pass before."""

    kernel: Kernel
    tuning: Tuning
    inputs: tuple
    writes_scratch: bool = False


def plan(kernel: Kernel, traits: AdapterTraits, split: bool = True) -> list[Pass]:
    """The passes that compute `kernel`, each with its tuning (one pass unless `split`)."""
    direct = tuple(range(kernel.nargs))
    red = kernel.reduction
    if kernel.stages:
        return [Pass(kernel, row_tuning(kernel, traits), direct)]
    if red is None:
        vector = 4 if kernel.size >= 1024 and vector_inputs(kernel) is not None else 1
        wg = traits.workgroup_size if kernel.size >= traits.workgroup_size * vector else 64
        return [Pass(kernel, Tuning(workgroup_size=wg, vector=vector), direct)]
    tile = matmul_tile(kernel, traits)
    if tile is not None:
        return _tiled(kernel, tile, traits, split)
    outputs, length = kernel.size, red.size
    columns = _reads_columns(kernel)
    if traits.is_software and columns and outputs % 4 == 0:
        return _software_columns(kernel, traits, split)
    if traits.grouped and outputs >= traits.parallelism and length >= 32 and not columns:
        # Many short rows: a few threads per row read it together (coalesced), 256 / group
        # rows per workgroup, instead of one thread per row striding through memory.
        group = 16 if length < 256 else 32
        unroll = 4 if length >= 4 * group else 1
        return [Pass(kernel, Tuning(workgroup_size=256, group=group, unroll=unroll), direct)]
    long_rows = split and length > MAX_THREAD_TERMS
    if (outputs >= traits.parallelism and not long_rows) or length < 64 or (columns and not split):
        return [Pass(kernel, _per_thread(kernel, traits), direct)]
    group = traits.workgroup_size
    # Few short columns (a bias gradient: 512 columns of 256) have too few outputs for a
    # thread each to fill a GPU, and each such thread waits on its loads one by one: a
    # group of threads per column reads it together, uncoalesced (H200, µs: 512 x 256
    # 55-73 a thread per column, 19-24 grouped; 10 x 256 38-54, 17-19).
    few_columns = columns and length < 4 * 256 and outputs * 32 < traits.parallelism
    if traits.grouped and (not columns or few_columns) and (
            length <= 4 * 4096 or outputs * group >= traits.parallelism or not split):
        # At least 16 terms a thread, 256 / group outputs a workgroup. The MLP's 5120 x 256
        # weight gradient on the H200 (µs, two runs): a 256-wide tree per output 43-65,
        # 32 threads an output 34-49, 16 threads 24-33.
        while group > 16 and group * 16 > length:
            group //= 2
        unroll = 4 if length >= 4 * group else 1
        # Few columns: 64 threads, so that the 512 columns of a bias gradient spread over
        # 128 workgroups, and it joins the 32 x 32 tiles of the products beside it (64
        # threads: merge.py).
        size = 64 if few_columns else traits.workgroup_size
        return [Pass(kernel, Tuning(workgroup_size=size, group=group, unroll=unroll), direct)]
    if length < 4 * 256 or not split:
        return [Pass(kernel, _per_thread(kernel, traits), direct)]
    if traits.grouped and not columns:
        # Few long rows on a GPU: each workgroup reduces one contiguous slice of a row
        # (coalesced), about SPLIT_WORKGROUPS slices in all, then one grouped pass over
        # the partials. Measured on the H200 (64M float32 sum): 2.3-2.7 TB/s, against
        # 1.5-1.6 for one thread per interleaved slice, whose 131072 partials the
        # second pass's single workgroup read slowly.
        group = traits.workgroup_size
        parts = max(2, min(-(-SPLIT_WORKGROUPS // outputs), length // (16 * group)),
                    -(-length // (group * MAX_THREAD_TERMS)))
        parts = whole_step_parts(length, group * SPLIT_UNROLL, parts)
        first, second = split_reduction(kernel, parts, "contiguous")
        first_tuning = Tuning(workgroup_size=group, group=group, unroll=SPLIT_UNROLL)
    else:
        parts = max(2, min(-(-traits.parallelism // outputs), length // 256, traits.max_parts),
                    -(-length // MAX_THREAD_TERMS))
        first, second = split_reduction(kernel, parts, "columns" if columns else "contiguous")
        first_tuning = _per_thread(first, traits)
    (last,) = plan(second, traits, split=False)
    return [Pass(first, first_tuning, direct, writes_scratch=True),
            replace(last, inputs=direct + ("scratch",))]


def whole_step_parts(length: int, step: int, parts: int) -> int:
    """The count of slices nearest `parts` (at least `parts`, at most twice it) that
    cuts a row of `length` terms into slices of whole steps of `step` terms, else
    `parts`. A slice that ends inside a step masks every term of its steps with a
    compare and a select: the per-example norms' rows of 784 x 512 terms in 8 slices
    of 12.25 steps of 4096 (7 slices: 14 steps each).

    >>> whole_step_parts(784 * 512, 4096, 8), whole_step_parts(1 << 20, 4096, 8)
    (14, 8)
    """
    steps, rest = divmod(length, step)
    if rest:
        return parts
    whole = [p for p in range(parts, 2 * parts + 1) if steps % p == 0]
    return whole[0] if whole else parts


def resized(tuning: Tuning, workgroup_size: int) -> Tuning | None:
    """`tuning` with `workgroup_size` threads a workgroup, where the template takes any
    multiple of its group (every one but a tile's, whose threads are its blocks); None
    where it cannot. Joined dispatches (merge.py) share one size.

    >>> resized(Tuning(workgroup_size=256, group=16), 64)
    Tuning(workgroup_size=64, upcast=1, unroll=1, group=16, vector=1, tile=None)
    """
    if tuning.tile is not None or workgroup_size % tuning.group:
        return None
    return replace(tuning, workgroup_size=workgroup_size)


def _tiled(kernel: Kernel, tile: Tile, traits: AdapterTraits, split: bool) -> list[Pass]:
    """A matrix product through `tile`; on a GPU, a product whose tiles are too few to
    fill it and whose sums are long is split along k (each workgroup sums a slice of k
    into partials, one per slice, then a second pass adds them and applies the epilogue):
    the MLPs' 128 x 784 x 512 products had 64 workgroups of 32 x 32 for 132
    multiprocessors, 115 µs each on an H100."""
    direct = tuple(range(kernel.nargs))
    single = [Pass(kernel, Tuning(workgroup_size=tile.threads, tile=tile), direct)]
    if not split:
        return single
    if traits.is_software:
        parts = 1 if not _large_software_product(kernel) and kernel.reduction.epilogue is not kernel.reduction.acc else 0
    else:
        c = as_contraction(kernel)
        workgroups = c.batch * -(-c.m // tile.m) * -(-c.n // tile.n)
        # Slices divide k exactly: a masked last slice would multiply padding by what a
        # load past the operand's end finds (NaN * 0 is NaN).
        most = min(-(-SPLIT_K_WORKGROUPS // workgroups), c.k // SPLIT_K_MIN_TERMS)
        parts = max((p for p in range(1, most + 1) if c.k % p == 0), default=1)
        parts = parts if workgroups < SPLIT_K_BELOW and parts >= 2 else 0
    if not parts:
        return single
    # On a software adapter, one part: a large product with an epilogue runs as the plain
    # product in the large blocks, then the epilogue, rather than in the small blocks
    # that compile an epilogue quickly (`SOFTWARE_LARGE_PRODUCT_FLOPS`). lavapipe, the
    # training step's 784 x 256 x 512 weight product and its SGD update: 112 ms a call
    # in the small blocks, 72 ms the product alone in the large ones.
    first, second = split_reduction(kernel, parts, "columns")
    first_tile = matmul_tile(first, traits)
    if first_tile is None or (traits.is_software and not _large_software_product(first)):
        return single
    (last,) = plan(second, traits, split=False)
    return [Pass(first, Tuning(workgroup_size=first_tile.threads, tile=first_tile), direct,
                 writes_scratch=True),
            replace(last, inputs=direct + ("scratch",))]


def _software_columns(kernel: Kernel, traits: AdapterTraits, split: bool) -> list[Pass]:
    """A sum over a leading axis on a software adapter: each thread reduces 16 (or 4)
    neighbouring columns, read as vec4s, down a slice of the rows, and a second pass
    adds the slices. lavapipe loads one lane at a time and each row of a column is a
    new page: a thread a column read 2048^2 float32 at 2.0 GB/s; 16 columns a thread
    in 8 slices, 7.7 (a probe of raw WGSL: 4 columns 6.5, 32 columns 8.5, workgroups of
    8 to 32 threads within 5% of each other)."""
    direct = tuple(range(kernel.nargs))
    upcast = 16 if kernel.size % 16 == 0 else 4
    length = kernel.reduction.size
    parts = 1
    if split:
        parts = max(1, min(-(-traits.parallelism * upcast // kernel.size), length // 64),
                    -(-length // MAX_THREAD_TERMS))

    def tuning(k: Kernel) -> Tuning:
        return Tuning(workgroup_size=16, upcast=upcast, unroll=4 if k.reduction.size >= 16 else 1)

    if parts == 1:
        return [Pass(kernel, tuning(kernel), direct)]
    first, second = split_reduction(kernel, parts, "columns")
    return [Pass(first, tuning(first), direct, writes_scratch=True),
            Pass(second, tuning(second), direct + ("scratch",))]


# On software adapters rows shorter than this take one thread each, longer ones a group
# of threads as on GPUs. lavapipe, 2 cores, softmax / layer norm in µs (2026-12-08), a
# thread per row against a group: 1 x 16384 18,051 / 617 (a single thread read the row
# three times); 1024 x 1024 16,058 / 15,081; 2048 x 2048 61,233 / 50,452; 4096 x 64
# 4,024 / 2,350; but 32768 x 32 7,376 / 10,425 and 65536 x 16 7,201 / 14,238.
SOFTWARE_GROUPED_ROW = 64
# Terms of a row that a thread of a row kernel reads in unrolled steps on a software
# adapter, however many steps (templates.MAX_UNROLLED_STEPS) they take: the row is read
# once, for every stage, where rows not a multiple of 4 (a term a step) looped and each
# stage read the row again. Jitted softmax of 131,072 float32 on lavapipe, 2 cores, ms
# a call, two runs each, alternating, looped -> unrolled: rows of 29 2.7 / 5.3 -> 1.5 /
# 1.9, of 31 2.6 / 5.2 -> 2.0 / 1.8, 1023 (16 terms a thread) 3.9 / 7.4 -> 2.6 / 4.5,
# 2047 3.7 / 6.6 -> 1.9 / 2.9. 64 terms would unroll rows of 33 to 63 too (4.1-5.9 ->
# 1.3-2.4 ms) but lavapipe then compiles their shaders 0.1-1 s longer.
SOFTWARE_UNROLLED_TERMS = 32


def row_tuning(kernel: Kernel, traits: AdapterTraits) -> Tuning:
    """Threads per row of a kernel with row stages (templates.row_kernel): enough that
    each reads about 16 terms of the longest row (at most a workgroup); on software
    adapters one for rows shorter than `SOFTWARE_GROUPED_ROW` terms, which then reads
    its row without the barriers that sharing it takes. `unroll`: the terms a thread
    reads in unrolled steps however many (`SOFTWARE_UNROLLED_TERMS`)."""
    vector = 4 if (kernel.reduction is None and kernel.row_length % 4 == 0
                   and STORAGE_TYPE[kernel.dtype] in ("f32", "i32", "u32")) else 1
    longest = max([kernel.row_length] + [k.reduction.size for k in (*kernel.stages, kernel) if k.reduction])
    unroll = SOFTWARE_UNROLLED_TERMS if traits.is_software else 1
    if traits.is_software and longest < SOFTWARE_GROUPED_ROW:
        return Tuning(workgroup_size=traits.workgroup_size, group=1, vector=vector, unroll=unroll)
    group = 4
    while group < traits.workgroup_size and group * 16 < longest:
        group *= 2
    return Tuning(workgroup_size=traits.workgroup_size, group=group, vector=vector, unroll=unroll)


# A GPU product whose tiles make fewer workgroups than SPLIT_K_BELOW (one per
# multiprocessor of an H100 or H200) is split along k (`_tiled`) into about
# SPLIT_K_WORKGROUPS, each summing at least SPLIT_K_MIN_TERMS terms of k.
SPLIT_K_BELOW = 132
SPLIT_K_WORKGROUPS = 264
SPLIT_K_MIN_TERMS = 128

# Slices a GPU split reduces in its first pass (one workgroup each, its loop unrolled
# SPLIT_UNROLL times): the 132 multiprocessors of an H100 or H200, many workgroups each.
# 1024-4096 slices measured within 10% of each other on a 64M sum (H200). The
# per-example gradient norms (128 rows of 401,408) on an H100, GFLOP/s of the whole
# workload in five alternating runs: 1024 slices unrolled 16 times 5,273-5,323, 2048
# unrolled 8 times 4,972-5,041; the 64M sums, softmax and training steps moved within
# their noise (2026-12-06).
SPLIT_WORKGROUPS = 1024
SPLIT_UNROLL = 16


def matmul_tile(kernel: Kernel, traits: AdapterTraits) -> Tile | None:
    """The tile for a kernel that is a matrix product (`core.contraction`) big enough
    to gain from one, else None. On GPUs matrix-vector products stay reductions (they
    are bound by memory, not arithmetic); long sums do everywhere (`MAX_THREAD_TERMS`:
    each thread sums its terms in sequence)."""
    c = as_contraction(kernel)
    if (c is None or c.k > MAX_THREAD_TERMS
            or kernel.size * _stored_itemsize(kernel.dtype) > traits.max_binding_bytes):
        return None
    if traits.is_software:
        return _fitted(SOFTWARE_TILES[0] if _large_software_product(kernel) else SOFTWARE_SMALL_TILE, c)
    if min(c.m, c.n) < 16 or c.k < 8:
        return None
    for wide in WIDE_TILES:  # the first that fits the adapter's workgroup memory
        if (c.batch * -(-c.m // wide.m) * -(-c.n // wide.n) >= 128
                and wide.workgroup_bytes(_stored_itemsize(kernel.reduction.acc_dtype)) <= traits.workgroup_bytes):
            return wide
    if c.batch * -(-c.m // 128) * -(-c.n // 128) >= 128:
        return GPU_TILES[0]
    if c.batch * -(-c.m // 64) * -(-c.n // 64) >= 128:
        return GPU_TILES[3]
    return GPU_TILES[4]  # small products: four times the workgroups


# What autotuning chooses from (autotune.py), the heuristics' usual choice first.
# Measured on the H200 (4096^2 / 1024^2 float32, TFLOP/s with the wait): 128 x 128 x 16
# 33.2 / 2.9, 128 x 128 x 8 32.6 / 3.1, 128 x 64 x 8 29.7 / 3.9, 64 x 64 x 8 24.5 / 3.9.
# 64 x 64 x 16 is left out: timed alone after a synchronize it looked fastest at every
# size, and the autotuner chose it, but back to back at 4096^2 it ran at 9-29 TFLOP/s
# (benchmarks/matmul.py --tiles), and products through it were 0.57x JAX against 0.69x.
# The MLP training step's products (256 x 784 x 512, 256 x 512 x 512, 784 x 256 x 512 and
# their transposes; µs per product, 50 back to back): 32 x 32 x 16 took 25-43 where
# 64 x 64 x 8 took 30-62 (too few workgroups for 132 multiprocessors).
# lavapipe loads one lane at a time, about 3e9 floats a second on 2 cores (vec4 loads),
# and multiplies at up to 60 GFLOP/s: a thread's block of a x b outputs reads a + b
# values per 2ab flops, so bigger blocks win even though their accumulators spill
# (GFLOP/s, 10 back to back, 1024^2 / 256^2 / 784 x 512 x 512): 64 x 64 in 16 x 16
# blocks 24 / 23 / 23, 32 x 128 in 16 x 16 the same, 16 x 32 blocks 22 / 21 / 22,
# 16 x 8 19, 8 x 8 14 / 17 / - (the choice before 2026-12-05). But lavapipe compiles
# the 256 outputs of a 16 x 16 block slowly: 0.1-1.1 s for a plain float32 product
# (8 x 8: 0.05-0.5), 3.4 s with a bias and relu epilogue, 1.2 s in int32, 8.7 s in
# float16 with a bias. Only plain float32 products of SOFTWARE_LARGE_PRODUCT_FLOPS or
# more (about 10 ms a call) take them; such a product with an epilogue runs as the plain
# product, then the epilogue (`_tiled`).
# Two buffers of workgroup memory (one barrier a step) measured on an H100 (TFLOP/s, 10
# back to back, 4096^2 / 1024^2): 128 x 128 x 16 38.6 / 16.0 against 36.6 / 15.5 with one.
# Sliced tiles and the 32 x 64 ones (the last five) are for the autotuner to try on
# products with few outputs. The step's products timed on an H100's clock (µs, 200 back
# to back): 256 x 512 x 256 twice (split along k) 32 x 64 13.7, 32 x 32 16.2; 512 x 512 x
# 256 32 x 32 in two slices 10.7, 32 x 32 13.1; the other tiles slower, 128 x 128 three
# to four times. Left out: steps of k = 32, 4 x 8 outputs a thread, 32 x 128, one buffer
# (at best 5% faster on one of the step's products, slower on the others). With the nested
# workgroup tiles (matmul.py, 2026-12-06) sliced tiles gained most: 256 x 784 x 512 32 x 32
# in four slices 14.8, 256 x 512 x 512 9.6 (docs/performance.md). 128 x 256 x 16 in 8 x 16
# blocks through two buffers needs 48 KiB of workgroup memory (`tile_candidates` leaves it
# out where the adapter has less): 4096^3 on an H100 in 3322 µs against 128 x 128's 3379
# (2026-12-07); again 3347 / 3404, and 2048 x 1024 x 4096 (the MLP's first product) 441 /
# 445. Products with fewer than 128 of its workgroups take twice as long through it (2048 x
# 4096 x 1024 1678 / 852; 1024^3 215 / 111), so `matmul_tile` chooses the wide tile only
# above that. Also timed for 4096^3: 64 x 256 3394, 256 x 128 3609, 128 x 128 x 32 with one
# buffer 3637, 256 x 64 3761.
GPU_TILES = tuple(Tile(*shape, buffers=2, slices=slices) for *shape, slices in
                  ((128, 128, 16, 8, 8, 1), (128, 128, 8, 8, 8, 1), (128, 64, 8, 8, 4, 1), (64, 64, 8, 4, 4, 1),
                   (32, 32, 16, 4, 4, 1), (32, 32, 16, 4, 4, 4), (64, 64, 8, 4, 4, 2),
                   (32, 32, 16, 4, 4, 2), (32, 64, 16, 4, 4, 1), (32, 64, 16, 4, 4, 2),
                   (128, 256, 16, 8, 16, 1)))
# The large products' tiles: 128 x 256 in 8 x 16 blocks through one buffer, in steps of
# k = 16 (24 KiB) where the adapter has the workgroup memory, else of k = 8 (12 KiB, within
# WebGPU's default 16). 4096^3 on an H100's clock (µs, 5 back to back, 2026-12-07): k = 16
# 3212 / 3202, k = 8 3298 / 3286 (and 3286 / 3285 in an earlier run), two buffers of k = 16
# 3352 / 3347 / 3347, two of k = 8 3586 / 3581, k = 32 3621 / 3617, 256 x 128 in 16 x 8
# blocks 3397 (k = 8) and 3636 (k = 16), 128 x 128's 3404; 2048 x 1024 x 4096 424 with
# k = 16, 432 with k = 8. Grouping the workgroups by 4, 8 or 16 tile rows (for the L2
# cache) changed these by under 1%.
WIDE_TILES = (Tile(128, 256, 16, 8, 16, buffers=1), Tile(128, 256, 8, 8, 16, buffers=1))
GPU_TILES += WIDE_TILES
SOFTWARE_SMALL_TILE = Tile(64, 64, 4, 8, 8, staged=False)
SOFTWARE_TILES = (Tile(64, 64, 4, 16, 16, staged=False), Tile(32, 128, 4, 16, 16, staged=False),
                  SOFTWARE_SMALL_TILE)
SOFTWARE_LARGE_PRODUCT_FLOPS = 1 << 27


def _large_software_product(kernel: Kernel) -> bool:
    """Whether a software adapter gives the product its 16 x 16 blocks (see above)."""
    c, red = as_contraction(kernel), kernel.reduction
    return (2 * c.batch * c.m * c.n * c.k >= SOFTWARE_LARGE_PRODUCT_FLOPS and kernel.dtype is dt.float32
            and red.acc_dtype is dt.float32 and red.epilogue is red.acc)


def _fitted(tile: Tile, c: Contraction) -> Tile:
    """An unstaged `tile` narrowed to the product: m and n halved (down to 1 and 4)
    while half still covers it. The template computes a tile's rows and columns past
    the output from clamped indices, and lavapipe has no threads to spare for them;
    products narrower than 16 or with fewer than 8 terms were reductions, slower still.
    Jitted a @ b on lavapipe, 2 cores, ms a call, 64 x 64 tiles or a reduction before
    (two runs, alternating) -> fitted: 16 x 1024 x 1024 75.7 / 75.3 -> 19.6, 1024 x 1024
    x 16 72.0 / 71.8 -> 19.0, 15 x 1024 x 1024 105 / 100 -> 19.9, 1 x 1024 x 1024 10.8 /
    10.2 -> 5.5, 256 x 4 x 256 1.9 / 1.8 -> 0.8, 256 x 512 x 10 11.8 / 11.7 -> 2.9."""
    m, n = tile.m, tile.n
    while m > 1 and m // 2 >= c.m:
        m //= 2
    while n > 4 and n // 2 >= c.n:
        n //= 2
    return replace(tile, m=m, n=n, thread_m=min(tile.thread_m, m), thread_n=min(tile.thread_n, n))


def tile_candidates(kernel: Kernel, traits: AdapterTraits) -> list[Tile]:
    """The tiles worth timing for a product: the heuristics' choice first, then the
    others of the adapter's list that are not more than twice the product's size."""
    first = matmul_tile(kernel, traits)
    c = as_contraction(kernel)
    itemsize = _stored_itemsize(kernel.reduction.acc_dtype)
    others = [t for t in (SOFTWARE_TILES if traits.is_software else GPU_TILES)
              if t != first and t.m <= 2 * c.m and t.n <= 2 * c.n
              and t.workgroup_bytes(itemsize) <= traits.workgroup_bytes]
    return [first] + others


# Terms one thread reduces; longer rows are split into partial results. The reduction
# templates keep the rounding error of a float sum of this many terms within ~32 ulp
# (templates.CASCADE_FAN_IN ** CASCADE_LEVELS steps of 4 unrolled terms), and
# lavapipe silently stops any loop after 65535 iterations (a (1024, 2^19) row sum
# came out short).
MAX_THREAD_TERMS = 16384


def _per_thread(kernel: Kernel, traits: AdapterTraits) -> Tuning:
    length = kernel.reduction.size
    unroll = 4 if length >= 16 else 1
    upcast = 4 if kernel.size % 4 == 0 and kernel.size >= 4 * traits.parallelism else 1
    wg = traits.workgroup_size if kernel.size >= traits.workgroup_size * upcast else 64
    return Tuning(workgroup_size=wg, upcast=upcast, unroll=unroll)


def _reads_columns(kernel: Kernel) -> bool:
    """Whether neighbouring outputs read neighbouring elements while the reduction
    strides (a reduction over a leading axis): then threads must map to outputs for
    coalesced reads, and a split keeps outputs innermost."""
    gidx, ridx = alu.gidx(kernel.size), alu.ridx(kernel.reduction.size)
    loads = kernel.exp.loads()
    return bool(loads) and all(
        index_step(ld.src[0], gidx) == 1 and index_step(ld.src[0], ridx) not in (0, 1) for ld in loads)


def reads_quads(index: AluExp, axis: AluExp) -> bool:
    """Whether four consecutive values of the special index `axis` from each multiple of
    4 read one aligned vec4: `index` is a multiple of 4 there and moves by one element a
    step within the four. (Only within: the partials of a split over a leading axis,
    `(gidx % n) + (gidx // n) * stride`, jump between rows but not inside a quad.)"""
    name, extent = axis.arg
    if extent % 4:
        return False
    quad = alu.special("quad", extent // 4)
    first = index.substitute({name: quad * 4})
    if (first % 4).simplify() != alu.const(dt.int32, 0):
        return False
    return all((index.substitute({name: quad * 4 + lane}) - first).simplify() == alu.const(dt.int32, lane)
               for lane in (1, 2, 3))


def quad_inputs(kernel: Kernel, axis: AluExp, windows: tuple[int, ...]) -> frozenset[int]:
    """The inputs a template may bind as vec4 arrays and read four values of `axis` at a
    time: `vec4_bindable`, and read only by loads that `reads_quads`."""
    bindable = vec4_bindable(kernel, windows)
    ok: dict[int, bool] = {}
    for ld in (ld for e in kernel.expressions for ld in e.simplify().loads()):
        ok[ld.arg] = ok.get(ld.arg, True) and ld.arg in bindable and reads_quads(ld.src[0], axis)
    return frozenset(arg for arg, good in ok.items() if good)


def vec4_bindable(kernel: Kernel, windows: tuple[int, ...]) -> frozenset[int]:
    """The inputs that could be bound as vec4 arrays: of a 4-byte type (bool aside), in
    one binding window, and not read by the epilogue (which reads scalars at `gidx`)."""
    epilogue = {ld.arg for ld in kernel.reduction.epilogue.loads()} if kernel.reduction else set()
    return frozenset(ld.arg for e in kernel.expressions for ld in e.simplify().loads()
                     if STORAGE_TYPE[ld.dtype] in ("f32", "i32", "u32") and not ld.dtype.is_bool
                     and windows[ld.arg] == 1 and ld.arg not in epilogue)


def index_step(index: AluExp, special: AluExp) -> int | None:
    """How much `index` moves when `special` grows by one, if that is a constant."""
    delta = (index.substitute({special.arg[0]: special + 1}) - index).simplify()
    return delta.arg if delta.op is alu.Op.CONST else None


_LAYOUTS = ("contiguous", "columns")


def split_reduction(kernel: Kernel, parts: int, layout: str = "contiguous") -> tuple[Kernel, Kernel]:
    """Rewrite one reduction as two: `parts` partial reductions per output, then a
    reduction of the partials (reading them as input number `nargs`) that runs the
    epilogue. Partials keep the accumulation dtype (float32 for float16 sums).

    Each first-pass output reduces one contiguous slice of a row; `layout` says where
    its partial goes: "contiguous" (the partials of one output adjacent) or "columns"
    (the partials of neighbouring outputs adjacent, for reductions over a leading axis)."""
    if layout not in _LAYOUTS:
        raise ValueError(f"split layout must be one of {_LAYOUTS}, got {layout!r}")
    red = kernel.reduction
    acc_dtype = red.acc_dtype
    chunk = -(-red.size // parts)
    g1, r1 = alu.gidx(kernel.size * parts), alu.ridx(chunk)
    if layout == "columns":
        output, part = g1 % kernel.size, g1 // kernel.size
    else:
        output, part = g1 // parts, g1 % parts
    term = part * chunk + r1
    body = alu.cast(acc_dtype, kernel.exp).substitute({"gidx": output, "ridx": term})
    if chunk * parts != red.size:
        body = alu.where(term.lt(red.size), body, red.identity)
    first = Kernel(kernel.nargs, kernel.size * parts, body.simplify(),
                   Reduction(red.op, acc_dtype, chunk))
    g2, r2 = alu.gidx(kernel.size), alu.ridx(parts)
    where = r2 * kernel.size + g2 if layout == "columns" else g2 * parts + r2
    partial = alu.load(kernel.nargs, acc_dtype, where).simplify()
    acc2 = alu.variable(acc_dtype, "acc")
    epilogue = red.epilogue.substitute({"acc": alu.cast(red.dtype, acc2)})
    second = Kernel(kernel.nargs + 1, kernel.size, partial, Reduction(red.op, acc_dtype, parts, epilogue))
    return first, second


def vector_inputs(kernel: Kernel) -> frozenset[int] | None:
    """For an elementwise kernel that can run 4 outputs per thread with vec4 memory
    access: the inputs read only at `gidx` (read as vec4), else None. Needs 4-byte
    storage; a size that is not a multiple of 4 ends in lanes that read and write the
    bindings' padding (`templates.elementwise_vec4`)."""
    if kernel.reduction is not None or STORAGE_TYPE[kernel.dtype] in ("f16", "f64"):
        return None
    gidx = alu.gidx(kernel.size)
    plain: dict[int, bool] = {}
    for ld in kernel.exp.simplify().loads():
        plain[ld.arg] = plain.get(ld.arg, True) and ld.src[0] is gidx and ld.dtype.itemsize <= 4 \
            and ld.dtype is not dt.float16
    return frozenset(arg for arg, ok in plain.items() if ok)


def scratch_bytes(passes: list[Pass]) -> int:
    """Bytes of partials a plan needs between its passes (0 for a single pass), in the
    storage dtype: bool partials are stored as int32."""
    sizes = [p.kernel.size * _stored_itemsize(p.kernel.reduction.acc_dtype)
             for p in passes if p.writes_scratch]
    return max(sizes, default=0)


def _stored_itemsize(dtype: dt.DType) -> int:
    return 4 if dtype.is_bool else dtype.itemsize  # bool is stored as i32 (STORAGE_TYPE)

