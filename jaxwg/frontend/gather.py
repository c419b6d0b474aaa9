"""Gather and scatter: their parameters, shape rules and element rules, as JAX defines them.

`gather` reads, for each batch position of `indices` (every axis but the last), a
slice of `operand` starting at the index vector found there; `scatter` writes or
combines `updates` into `operand` at the same kind of positions. The dimension numbers
say which axes are which (JAX's `GatherDimensionNumbers` and `ScatterDimensionNumbers`;
the index vector is always the last axis of `indices`, as in JAX's jaxprs).

Out-of-bounds starts follow `mode` (`GatherScatterMode`): CLIP clamps each start so
the slice fits; FILL_OR_DROP makes a gather return `fill_value` for the whole slice and
a scatter drop the whole update window; PROMISE_IN_BOUNDS does what XLA's operations
do on CPU, which JAX's reach: a gather clamps, a scatter drops.

This module has no kernels: `element_coordinates` is what fusion (`fusion.py`) turns
into loads and stores, per output or update element.

>>> GatherScatterMode.from_any("clip"), GatherScatterMode.from_any(None)
(GatherScatterMode.CLIP, GatherScatterMode.FILL_OR_DROP)
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from ..core import alu
from ..core import dtypes as dt
from ..core.alu import AluExp
from .aval import ShapedArray


class GatherScatterMode(enum.Enum):
    """What an out-of-bounds start index does (see the module docstring)."""

    CLIP = 0
    FILL_OR_DROP = 1
    PROMISE_IN_BOUNDS = 2

    def __repr__(self) -> str:
        return f"GatherScatterMode.{self.name}"

    __str__ = __repr__

    @staticmethod
    def from_any(mode) -> GatherScatterMode:
        """A mode from a `GatherScatterMode`, its name ("clip", "fill", "drop",
        "promise_in_bounds") or None (FILL_OR_DROP, JAX's default)."""
        if isinstance(mode, GatherScatterMode):
            return mode
        if mode is None or mode in ("fill", "drop"):
            return GatherScatterMode.FILL_OR_DROP
        if mode == "clip":
            return GatherScatterMode.CLIP
        if mode == "promise_in_bounds":
            return GatherScatterMode.PROMISE_IN_BOUNDS
        raise ValueError(f"Unknown gather mode {mode!r}")


@dataclass(frozen=True)
class GatherDimensionNumbers:
    """Which output axes are slice (offset) axes; which operand axes the index vector
    starts (`start_index_map`), which slice axes of size 1 are dropped
    (`collapsed_slice_dims`), and which operand axes pair with `indices` axes
    one to one (`operand_batching_dims` with `start_indices_batching_dims`)."""

    offset_dims: tuple[int, ...]
    collapsed_slice_dims: tuple[int, ...]
    start_index_map: tuple[int, ...]
    operand_batching_dims: tuple[int, ...] = ()
    start_indices_batching_dims: tuple[int, ...] = ()


@dataclass(frozen=True)
class ScatterDimensionNumbers:
    """The scatter counterpart of `GatherDimensionNumbers`: `update_window_dims` are
    the updates' slice axes, `inserted_window_dims` the operand axes a window has size
    1 in (not present in the updates), `scatter_dims_to_operand_dims` the operand axes
    the index vector starts."""

    update_window_dims: tuple[int, ...]
    inserted_window_dims: tuple[int, ...]
    scatter_dims_to_operand_dims: tuple[int, ...]
    operand_batching_dims: tuple[int, ...] = ()
    scatter_indices_batching_dims: tuple[int, ...] = ()


def _sorted_unique(name: str, what: str, dims, rank: int) -> None:
    if tuple(sorted(set(dims))) != tuple(dims) or any(not 0 <= d < rank for d in dims):
        raise TypeError(f"{name} {what} must be sorted, unique and in [0, {rank}), got {tuple(dims)}")


def _check_indices(name: str, operand: ShapedArray, indices: ShapedArray, starts, batching,
                   index_batching) -> None:
    if not (indices.dtype.is_int or indices.dtype.is_unsigned) or indices.dtype.is_bool:
        raise TypeError(f"{name} indices must be of integer type, got {indices.dtype}")
    if indices.ndim < 1:
        raise TypeError(f"{name} indices must have at least one axis (the index vector), "
                        f"got shape {indices.shape}")
    if indices.shape[-1] != len(starts):
        raise TypeError(f"{name}: the index vector has {indices.shape[-1]} entries but "
                        f"{len(starts)} operand axes are indexed ({tuple(starts)})")
    if len(set(starts)) != len(starts) or any(not 0 <= d < operand.ndim for d in starts):
        raise TypeError(f"{name}: indexed operand axes {tuple(starts)} must be unique axes "
                        f"of an operand of shape {operand.shape}")
    if len(batching) != len(index_batching) or any(
            not 0 <= j < indices.ndim - 1 or operand.shape[i] != indices.shape[j]
            for i, j in zip(batching, index_batching)):
        raise TypeError(f"{name}: batching axes {tuple(batching)} of {operand.shape} and "
                        f"{tuple(index_batching)} of indices {indices.shape} must pair axes of equal size")


def gather_shape(operand: ShapedArray, indices: ShapedArray, dnums: GatherDimensionNumbers,
                 slice_sizes) -> tuple[int, ...]:
    """The output shape of a gather, or TypeError naming what is inconsistent."""
    _check_indices("gather", operand, indices, dnums.start_index_map, dnums.operand_batching_dims,
                   dnums.start_indices_batching_dims)
    if len(slice_sizes) != operand.ndim or any(
            not 0 <= s <= n for s, n in zip(slice_sizes, operand.shape)):
        raise TypeError(f"gather slice_sizes {tuple(slice_sizes)} must give one size in "
                        f"[0, n] per axis of the operand's shape {operand.shape}")
    dropped = set(dnums.collapsed_slice_dims) | set(dnums.operand_batching_dims)
    _sorted_unique("gather", "collapsed_slice_dims", dnums.collapsed_slice_dims, operand.ndim)
    if any(slice_sizes[d] != 1 for d in dropped):
        raise TypeError(f"gather: collapsed and batching axes {tuple(sorted(dropped))} need "
                        f"slice size 1, got slice_sizes {tuple(slice_sizes)}")
    window = [s for d, s in enumerate(slice_sizes) if d not in dropped]
    batch = list(indices.shape[:-1])
    rank = len(window) + len(batch)
    _sorted_unique("gather", "offset_dims", dnums.offset_dims, rank)
    if len(dnums.offset_dims) != len(window):
        raise TypeError(f"gather offset_dims {dnums.offset_dims} must name {len(window)} "
                        f"output axes, one per slice axis kept")
    window_it, batch_it = iter(window), iter(batch)
    return tuple(next(window_it) if d in dnums.offset_dims else next(batch_it) for d in range(rank))


def gather_abstract_eval(operand, indices, *, dimension_numbers, slice_sizes, mode,
                         fill_value, indices_are_sorted, unique_indices):
    shape = gather_shape(operand, indices, dimension_numbers, slice_sizes)
    return ShapedArray(shape, operand.dtype, operand.weak_type)


def scatter_abstract_eval(operand, indices, updates, *, dimension_numbers, mode,
                          indices_are_sorted, unique_indices, update_jaxpr=None, update_consts=()):
    d = dimension_numbers
    _check_indices("scatter", operand, indices, d.scatter_dims_to_operand_dims,
                   d.operand_batching_dims, d.scatter_indices_batching_dims)
    if updates.dtype is not operand.dtype:
        raise TypeError(f"scatter updates must have the operand's dtype {operand.dtype}, "
                        f"got {updates.dtype}")
    dropped = set(d.inserted_window_dims) | set(d.operand_batching_dims)
    window = [n for i, n in enumerate(operand.shape) if i not in dropped]
    _sorted_unique("scatter", "update_window_dims", d.update_window_dims, updates.ndim)
    batch = [n for i, n in enumerate(updates.shape) if i not in d.update_window_dims]
    if (len(d.update_window_dims) != len(window) or batch != list(indices.shape[:-1])
            or any(updates.shape[u] > w for u, w in zip(d.update_window_dims, window))):
        raise TypeError(f"scatter updates of shape {updates.shape} do not fit the operand "
                        f"{operand.shape} and indices {indices.shape} under {d}")
    return ShapedArray(operand.shape, operand.dtype, operand.weak_type)


def default_fill(dtype: dt.DType):
    """JAX's gather fill for FILL_OR_DROP: NaN, the most negative signed integer, the
    largest unsigned one, True."""
    if dtype.is_bool:
        return True
    if dtype.is_float:
        return float("nan")
    lo, hi = dt.bounds(dtype)
    return hi if dtype.is_unsigned else lo


def element_coordinates(operand_shape, slice_sizes, starts: dict, windows: dict,
                        batching: dict) -> tuple[list[AluExp], AluExp]:
    """The operand coordinates of one element, and whether its slice lies in bounds.

    `starts` maps indexed operand axes to start values (int32 expressions, as read
    from the indices), `windows` the operand axes of the window to the element's
    offset within it, `batching` the batching axes to their coordinate. Starts are
    clamped so that the slice fits, whatever the mode: loads and stores stay in bounds,
    and FILL_OR_DROP uses the in-bounds test to fill or drop."""
    coords, inside = [], []
    for axis, size in enumerate(operand_shape):
        if axis in batching:
            coords.append(batching[axis])
            continue
        start = alu.const(dt.int32, 0)
        if axis in starts:
            start, limit = starts[axis], max(size - slice_sizes[axis], 0)
            inside += [~start.lt(0), start.lt(limit + 1)]
            start = alu.binary(alu.Op.MIN, alu.binary(alu.Op.MAX, start, alu.const(dt.int32, 0)),
                               alu.const(dt.int32, limit))
        coords.append(start + windows[axis] if axis in windows else start)
    return coords, alu.all_of(inside)
