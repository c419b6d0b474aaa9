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
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import dtypes as dt


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
