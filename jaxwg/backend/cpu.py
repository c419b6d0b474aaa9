"""The CPU backend: kernels interpreted with NumPy, the reference for the GPU.

Slots are NumPy byte arrays. A kernel runs by evaluating its expression with
`alu_eval.evaluate` for a block of output indices at once (vectorised); a
reduction evaluates a (outputs x terms) block, reduces it along the terms with the
op's NumPy ufunc, and runs the epilogue on the result; row stages run the same way
for a block of rows before the outputs of those rows. Blocks bound the temporary
memory of large reductions. This backend is not a speed target: it is the oracle
that the WebGPU code generator is tested against, and the home of float64.
Slot bookkeeping holds the backend's lock; kernels compute outside it (on arrays
whose slots the caller keeps alive).

>>> import numpy as np
>>> from jaxwg.core import alu, dtypes as dt
>>> from jaxwg.core.kernel import Kernel, Reduction
>>> be = CpuBackend()
>>> x = be.upload(np.arange(6, dtype=np.int32))
>>> row = alu.load(0, dt.int32, alu.gidx(2) * 3 + alu.ridx(3))
>>> out = be.malloc(8)
>>> be.dispatch(be.prepare(Kernel(1, 2, row, Reduction(alu.Op.ADD, dt.int32, 3))), [x], [out])
>>> be.download(out, dt.int32, 2)
array([ 3, 12], dtype=int32)
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..core import dtypes as dt
from ..core.alu import Op
from ..core.alu_eval import cast_array, evaluate
from ..core.kernel import ACC_NAME, Kernel
from ..core.routine import Routine
from .base import Backend

_UFUNC = {Op.ADD: np.add, Op.MUL: np.multiply, Op.MIN: np.minimum, Op.MAX: np.maximum}
_BOOL_UFUNC = {Op.ADD: np.logical_or, Op.MUL: np.logical_and, Op.MIN: np.logical_and,
               Op.MAX: np.logical_or}
# Elements evaluated per block: bounds the temporaries of big reductions.
_BLOCK_ELEMENTS = 1 << 22


@dataclass(frozen=True)
class CpuExecutable:
    kernel: Kernel | Routine


@dataclass
class _Slot:
    data: np.ndarray  # uint8
    refs: int = 1


class CpuBackend(Backend):
    """NumPy interpreter of kernels (see the module docstring)."""

    name = "cpu"

    def __init__(self):
        super().__init__()
        self._slots: dict[int, _Slot] = {}
        self._handles = itertools.count(1)
        self._bytes_in_use = 0
        self._peak = 0

    # -- memory ----------------------------------------------------------------------
    def malloc(self, nbytes: int, data=None) -> int:
        buf = np.zeros(nbytes, np.uint8)
        if data is not None:
            if isinstance(data, np.ndarray):  # memoryview.cast rejects zero-size shapes
                raw = np.ascontiguousarray(data).reshape(-1).view(np.uint8)
            else:
                raw = np.frombuffer(memoryview(data).cast("B"), np.uint8)
            if raw.size != nbytes:
                raise ValueError(f"malloc: data has {raw.size} bytes, expected {nbytes}")
            buf[:] = raw
        with self.lock:
            slot = next(self._handles)
            self._slots[slot] = _Slot(buf)
            self._bytes_in_use += nbytes
            self._peak = max(self._peak, self._bytes_in_use)
        return slot

    def _get(self, slot: int) -> _Slot:
        try:
            return self._slots[slot]
        except KeyError:
            raise KeyError(f"slot {slot} is not live on the cpu backend") from None

    def incref(self, slot: int) -> None:
        with self.lock:
            self._get(slot).refs += 1

    def decref(self, slot: int) -> None:
        with self.lock:
            entry = self._get(slot)
            entry.refs -= 1
            if entry.refs == 0:
                self._bytes_in_use -= entry.data.size
                del self._slots[slot]

    def read(self, slot: int, start: int = 0, count: int | None = None) -> bytes:
        with self.lock:
            data = self._get(slot).data
        stop = data.size if count is None else min(data.size, start + count)
        return data[start:stop].tobytes()

    def memory_stats(self) -> dict:
        with self.lock:
            return {"bytes_in_use": self._bytes_in_use, "peak_bytes_in_use": self._peak,
                    "live_slots": len(self._slots)}

    # -- kernels ---------------------------------------------------------------------
    def prepare(self, kernel: Kernel, *, fast_math: bool = False) -> CpuExecutable:
        return CpuExecutable(kernel)

    def dispatch(self, executable: CpuExecutable, inputs: Sequence[int], outputs: Sequence[int]) -> None:
        self.check_kernel_inputs(executable, inputs, outputs)
        kernel = executable.kernel
        with self.lock:
            out = self._get(outputs[0]).data
            arrays = self._input_arrays(kernel, inputs)
        needed = kernel.size * kernel.dtype.itemsize
        if out.size < needed:
            raise ValueError(f"output slot has {out.size} bytes, kernel writes {needed}")
        result = out[:needed].view(kernel.dtype.np)
        if isinstance(kernel, Routine):
            result[:] = kernel.reference(arrays)
            return
        if kernel.stages:
            self._run_rows(kernel, arrays, result)
            return
        block = max(1, _BLOCK_ELEMENTS // max(1, kernel.reduction.size if kernel.reduction else 1))
        for start in range(0, kernel.size, block):
            gidx = np.arange(start, min(kernel.size, start + block), dtype=np.int32)
            result[start:start + gidx.size] = self._run_block(kernel, gidx, arrays)

    def _run_rows(self, kernel: Kernel, arrays: list[np.ndarray], result: np.ndarray) -> None:
        """A kernel with row stages, a block of rows at a time: each stage's values for the
        rows, then the kernel's outputs of those rows reading them."""
        width = kernel.row_length
        longest = max([width] + [k.reduction.size for k in kernel.stages + (kernel,) if k.reduction])
        block = max(1, _BLOCK_ELEMENTS // max(1, longest))
        for start in range(0, kernel.rows, block):
            rows = np.arange(start, min(kernel.rows, start + block), dtype=np.int32)
            values: dict[str, np.ndarray] = {}
            for j, stage in enumerate(kernel.stages):
                values[f"stage{j}"] = self._run_block(stage, rows, arrays, values)
            gidx = np.arange(start * width, (start + rows.size) * width, dtype=np.int32)
            per_output = {name: np.repeat(v, width) for name, v in values.items()}
            result[gidx[0]:gidx[-1] + 1] = self._run_block(kernel, gidx, arrays, per_output)

    def _input_arrays(self, kernel: Kernel, inputs: Sequence[int]) -> list[np.ndarray]:
        arrays = []
        for slot, dtype in zip(inputs, kernel.input_dtypes()):
            data = self._get(slot).data
            dtype = dtype or dt.uint32  # an input that is never read
            usable = data.size - data.size % dtype.itemsize
            arrays.append(data[:usable].view(dtype.np))
        return arrays

    def _run_block(self, kernel: Kernel, gidx: np.ndarray, arrays: list[np.ndarray],
                   values: dict | None = None) -> np.ndarray:
        """Outputs `gidx` of `kernel`; `values` binds variables (row stages) per output."""
        values = values or {}
        red = kernel.reduction
        if red is None:
            return np.broadcast_to(evaluate(kernel.exp, {"gidx": gidx, **values}, arrays), gidx.shape)
        ridx = np.arange(red.size, dtype=np.int32)[None, :]
        per_term = {name: v[:, None] for name, v in values.items()}
        terms = evaluate(kernel.exp, {"gidx": gidx[:, None], "ridx": ridx, **per_term}, arrays)
        terms = cast_array(np.broadcast_to(terms, (gidx.size, red.size)), red.acc_dtype)
        ufunc = (_BOOL_UFUNC if red.dtype.is_bool else _UFUNC)[red.op]
        identity = np.array(red.identity.arg, red.acc_dtype.np)
        with np.errstate(all="ignore"):
            acc = ufunc.reduce(terms, axis=1, initial=identity, dtype=red.acc_dtype.np)
        if red.op in (Op.MAX, Op.MIN) and red.acc_dtype.is_float:
            acc = _zero_signs(np.asarray(acc), terms, red.op)
        acc = cast_array(np.asarray(acc), red.dtype)
        env = {"gidx": gidx, ACC_NAME: acc, **values}
        return np.broadcast_to(evaluate(red.epilogue, env, arrays), gidx.shape)

    def synchronize(self) -> None:
        pass


def _zero_signs(acc: np.ndarray, terms: np.ndarray, op: Op) -> np.ndarray:
    """A float max or min of rows `terms` with XLA's sign where it is zero (-0.0 is below
    +0.0; NumPy's reductions keep whichever zero they met first)."""
    zeros = acc == 0
    if not np.any(zeros):
        return acc
    if op is Op.MAX:  # -0.0 unless a +0.0 is among the terms
        negative = ~np.any((terms == 0) & ~np.signbit(terms), axis=1)
    else:
        negative = np.any((terms == 0) & np.signbit(terms), axis=1)
    return np.where(zeros, np.where(negative, -0.0, 0.0), acc).astype(acc.dtype, copy=False)
