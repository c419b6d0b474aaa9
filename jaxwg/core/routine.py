"""Routines: hand-written kernels with a fixed interface, for work that is not one
expression per output element (DESIGN.md, "Kernel IR": sorting, scatters).

A routine is a frozen, hashable description of one call: what it reads, what it
writes, and the sizes it is specialised for. Backends `prepare` it as they prepare
a `Kernel` and `dispatch` it on input slots into one output slot; the fusion planner
gives it materialized inputs and a buffer of its own. `reference` computes the
result with NumPy: the CPU backend runs it, and tests hold the GPU's result to it.

>>> import numpy as np
>>> keys = np.array([[3, 1, 2, 1]], np.uint32)
>>> SortPermutation(rows=1, length=4, keys=1).reference([keys.ravel()]).tolist()
[1, 3, 2, 0]
>>> add = ScatterAdd(dt.float32, operand_size=3, updates=4)
>>> add.reference([np.zeros(3, np.float32), np.array([0, 2, 2, -1], np.int32), np.ones(4, np.float32)]).tolist()
[1.0, 0.0, 2.0]
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import dtypes as dt


# A routine binds each of its buffers whole, and every WebGPU device binds at least this
# many bytes at once (the default maxStorageBufferBindingSize). Work on larger arrays
# takes the routine only if nothing else can do it (see `binds_anywhere`).
PORTABLE_BINDING_BYTES = 128 << 20


def binds_anywhere(*element_counts: int) -> bool:
    """Whether buffers of these many 4-byte elements fit one binding on every device.

    >>> binds_anywhere(1000, 1 << 25), binds_anywhere((1 << 25) + 1)
    (True, False)
    """
    return all(4 * n <= PORTABLE_BINDING_BYTES for n in element_counts)


@dataclass(frozen=True)
class Routine:
    """What every routine tells the code that schedules, describes and checks kernels."""

    reduction = None  # never a reduction: code that describes kernels can ask

    @property
    def nargs(self) -> int:
        return len(self.input_dtypes())

    @property
    def size(self) -> int:
        """Elements of the output."""
        raise NotImplementedError

    @property
    def dtype(self) -> dt.DType:
        """The output's dtype."""
        raise NotImplementedError

    def input_dtypes(self) -> list[dt.DType]:
        raise NotImplementedError

    def input_sizes(self) -> list[int]:
        """Elements read from each input."""
        raise NotImplementedError

    def dtypes(self) -> set[dt.DType]:
        return {self.dtype, *self.input_dtypes()}

    def reference(self, inputs: list[np.ndarray]) -> np.ndarray:
        """The output, flat, from the flat inputs (which may hold padding at the end)."""
        raise NotImplementedError


@dataclass(frozen=True)
class SortPermutation(Routine):
    """The stable permutation that sorts each of `rows` rows of `length` elements by
    `keys` unsigned 32-bit keys, compared lexicographically (key 0 first).

    The input is the keys as planes, uint32 of shape (keys, rows, length); the output
    is int32 of shape (rows, length): element (r, i) is the position in row r of the
    row's i-th smallest element. Equal elements keep their order.
    """

    rows: int
    length: int
    keys: int

    @property
    def size(self) -> int:
        return self.rows * self.length

    @property
    def dtype(self) -> dt.DType:
        return dt.int32

    def input_dtypes(self) -> list[dt.DType]:
        return [dt.uint32]

    def input_sizes(self) -> list[int]:
        return [self.keys * self.size]

    def reference(self, inputs: list[np.ndarray]) -> np.ndarray:
        planes = inputs[0][:self.keys * self.size].reshape(self.keys, self.rows, self.length)
        # np.lexsort is stable and sorts by its last key first
        return np.lexsort(planes[::-1], axis=-1).astype(np.int32).ravel()

    def __str__(self) -> str:
        return (f"sort permutation of {self.rows} row(s) of {self.length} by "
                f"{self.keys} uint32 key(s)")


@dataclass(frozen=True)
class ScatterAdd(Routine):
    """The operand (`operand_size` elements of `element`) with `updates` values combined in
    at flat positions: input 0 is the operand, input 1 the int32 position of each update
    (outside [0, size): dropped), input 2 the updates. `combine` "add" adds (bool: logical
    or; colliding float updates are summed in no fixed order, atomically on GPUs); "max"
    keeps the largest (int32 only: `lax.scatter` finds the last update to each position
    with it)."""

    element: dt.DType
    operand_size: int
    updates: int
    combine: str = "add"

    # The dtypes every backend combines in, by `combine` (GPUs atomically): others
    # scatter as reductions.
    COMBINE_DTYPES = {"add": (dt.bool_, dt.int32, dt.uint32, dt.float32), "max": (dt.int32,)}

    @property
    def size(self) -> int:
        return self.operand_size

    @property
    def dtype(self) -> dt.DType:
        return self.element

    def input_dtypes(self) -> list[dt.DType]:
        return [self.dtype, dt.int32, self.dtype]

    def input_sizes(self) -> list[int]:
        return [self.size, self.updates, self.updates]

    def reference(self, inputs: list[np.ndarray]) -> np.ndarray:
        operand, targets, updates = (a[:n] for a, n in zip(inputs, self.input_sizes()))
        out = operand.copy()
        kept = (targets >= 0) & (targets < self.size)
        combine = np.maximum if self.combine == "max" else np.logical_or if self.dtype.is_bool else np.add
        with np.errstate(all="ignore"):  # inf - inf is NaN here as on the device
            combine.at(out, targets[kept], updates[kept])
        return out

    def __str__(self) -> str:
        return f"scatter-{self.combine} of {self.updates} {self.dtype.name} update(s) into {self.size}"


@dataclass(frozen=True)
class CumulativeSum(Routine):
    """The running sum along each of `rows` rows of `length` elements of `element`
    (input 0 and the output: (rows, length), row-major). Integers wrap; floats add in
    blocks (each element's sum is its block's partial sums plus the blocks before)."""

    element: dt.DType
    rows: int
    length: int

    DTYPES = (dt.int32, dt.uint32, dt.float32)

    @property
    def size(self) -> int:
        return self.rows * self.length

    @property
    def dtype(self) -> dt.DType:
        return self.element

    def input_dtypes(self) -> list[dt.DType]:
        return [self.element]

    def input_sizes(self) -> list[int]:
        return [self.size]

    def reference(self, inputs: list[np.ndarray]) -> np.ndarray:
        """Each prefix summed in 64 bits, then rounded (floats) or wrapped (integers)."""
        rows = inputs[0][:self.size].reshape(self.rows, self.length)
        wide = {"f": np.float64, "i": np.int64, "u": np.uint64}[self.element.kind]
        return np.cumsum(rows, axis=1, dtype=wide).astype(self.element.np).ravel()

    def __str__(self) -> str:
        return f"cumulative sum of {self.rows} row(s) of {self.length} {self.element.name}"
