"""Views: movement ops (reshape, transpose, broadcast, slice, pad, flip) without copies.

A buffer is a flat run of elements; an array is a way of reading it. A `View`
says how: element `(i0, i1, ...)` of an array of `shape` lives at buffer index
`offset + i0*strides[0] + i1*strides[1] + ...`. Transposing permutes the strides,
broadcasting gives an axis stride 0, flipping negates a stride and moves the offset
to the axis' far end, slicing moves the offset and shrinks the shape. Padding adds
a `mask`: per axis, the range `[lo, hi)` of indices that read the buffer; elements
outside it read as 0. Every one of these ops is a new View over the same buffer.

Reshape is the exception: splitting or merging axes whose strides do not line up
(merging the axes of a transposed array, say) has no single-View form. A
`ShapeTracker` then stacks a new View: the last View maps the user's index to a
flat index into the shape of the View before it, and so on down to the buffer.

Kernels need none of this structure at run time. `ShapeTracker.to_index` turns the
flat output index of a kernel into an `AluExp` for the buffer index (and one for
whether the element is real data or padding), and `simplify` reduces the `//`, `%`
and strides to the few operations the view really needs.

>>> from jaxwg.core import alu
>>> st = ShapeTracker.from_shape((2, 3)).permute((1, 0))
>>> st.shape, st.views[-1].strides
((3, 2), (1, 3))
>>> st.to_index(alu.gidx(st.size))
((((gidx % 2) * 3) + (gidx // 2)), True)
"""

from __future__ import annotations

import itertools
import math
import operator
from collections.abc import Sequence
from dataclasses import dataclass

from . import alu
from . import dtypes as dt
from .alu import AluExp

Range = tuple[int, int]


def _contiguous_strides(shape: tuple[int, ...]) -> tuple[int, ...]:
    """Row-major strides, 0 for size-1 axes (they are never stepped along)."""
    strides = []
    step = 1
    for n in reversed(shape):
        strides.append(0 if n == 1 else step)
        step *= n
    return tuple(reversed(strides))


def _canonical(shape, strides, offset, mask) -> tuple:
    """The one (shape, strides, offset, mask) among those reading the same elements."""
    strides = tuple(0 if n == 1 else s for n, s in zip(shape, strides))
    if math.prod(shape) == 0:
        return shape, _contiguous_strides(shape), 0, None
    if mask is not None and any(lo >= hi for lo, hi in mask):
        return shape, (0,) * len(shape), 0, ((0, 0),) * len(shape)
    if mask is not None and all(rng == (0, n) for rng, n in zip(mask, shape)):
        mask = None
    return shape, strides, offset, mask


@dataclass(frozen=True)
class View:
    """One strided, optionally masked, way of reading a flat buffer as an array.

    Element `i` (a tuple of axis indices) is `buffer[offset + sum(i[k] * strides[k])]`
    when every `mask[k][0] <= i[k] < mask[k][1]`, and 0 otherwise (`mask=None`: no
    padding). Views are canonical, so views that read the same elements compare
    equal: size-1 axes have stride 0, an all-valid mask is None, a view with no
    valid element is all padding (strides 0, offset 0, empty ranges) and a view with
    no element at all is contiguous.

    >>> View.contiguous((2, 1, 3))
    View(shape=(2, 1, 3), strides=(3, 0, 1), offset=0, mask=None)
    >>> View((4,), (1,), 0, ((0, 4),)).mask is None
    True
    """

    shape: tuple[int, ...]
    strides: tuple[int, ...]
    offset: int = 0
    mask: tuple[Range, ...] | None = None

    def __post_init__(self):
        shape = tuple(operator.index(n) for n in self.shape)
        strides = tuple(operator.index(s) for s in self.strides)
        mask = None if self.mask is None else tuple(
            (operator.index(lo), operator.index(hi)) for lo, hi in self.mask)
        if len(strides) != len(shape) or (mask is not None and len(mask) != len(shape)):
            raise ValueError(f"View: shape {shape}, strides {strides} and mask {mask} "
                             "must have one entry per axis")
        if any(n < 0 for n in shape):
            raise ValueError(f"View: negative dimension in shape {shape}")
        if mask is not None and any(not (0 <= lo and hi <= n) for (lo, hi), n in zip(mask, shape)):
            raise ValueError(f"View: mask {mask} does not fit shape {shape}")
        canonical = _canonical(shape, strides, operator.index(self.offset), mask)
        for name, value in zip(("shape", "strides", "offset", "mask"), canonical):
            object.__setattr__(self, name, value)

    @staticmethod
    def contiguous(shape: Sequence[int]) -> View:
        """The row-major view of a whole buffer of `shape`.

        >>> View.contiguous((3, 4)).strides
        (4, 1)
        """
        shape = tuple(shape)
        return View(shape, _contiguous_strides(shape), 0, None)

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    @property
    def ranges(self) -> tuple[Range, ...]:
        """The valid index range of every axis (the whole axis where unmasked).

        >>> View((2, 3), (3, 1), 0, ((0, 2), (1, 2))).ranges
        ((0, 2), (1, 2))
        """
        return self.mask if self.mask is not None else tuple((0, n) for n in self.shape)

    @property
    def is_padding(self) -> bool:
        """Whether no element of this view reads the buffer (everything is padding)."""
        return self.mask is not None and any(lo >= hi for lo, hi in self.mask)

    def to_index(self, idx: AluExp | MultiIndex) -> tuple[AluExp, AluExp]:
        """(buffer index, validity) for the element at `idx`: a flat row-major index, or
        a `MultiIndex` over this view's shape.

        The expressions are not simplified; `ShapeTracker.to_index` does that.

        >>> from jaxwg.core import alu
        >>> View((2, 4), (1, 2), 3, ((0, 2), (1, 4))).to_index(alu.gidx(8))
        ((((gidx // 4) + ((gidx % 4) * 2)) + 3), (0 < (gidx % 4)))
        """
        if self.is_padding:
            return alu.const(dt.int32, 0), alu.const(dt.bool_, False)
        if not isinstance(idx, MultiIndex):
            idx = MultiIndex.flat(idx, self.shape)
        terms, conditions = [], []
        for start, stop, axis in _lowering_axes(self):
            if axis.stride == 0 and axis.is_unmasked:
                continue  # a broadcast axis: its index is not needed
            axis_index = idx.span(start, stop)
            if axis.stride != 0:
                terms.append(axis_index if axis.stride == 1 else axis_index * axis.stride)
            if axis.lo > 0:
                conditions.append(alu.const(dt.int32, axis.lo - 1).lt(axis_index))  # lo <= i
            if axis.hi < axis.size:
                conditions.append(axis_index.lt(axis.hi))
        if self.offset or not terms:
            terms.append(alu.const(dt.int32, self.offset))
        index = terms[0]
        for term in terms[1:]:
            index = index + term
        return index, alu.all_of(conditions)


@dataclass(frozen=True)
class _Axis:
    """One axis as the lowering sees it: size, stride and valid range [lo, hi)."""

    size: int
    stride: int
    lo: int
    hi: int

    @property
    def is_unmasked(self) -> bool:
        return self.lo == 0 and self.hi == self.size


def _lowering_axes(view: View) -> list[tuple[int, int, _Axis]]:
    """The view's axes, outermost first, as (first axis, end axis, merged axis): size-1
    axes dropped and neighbours merged where one stride steps over the whole inner axis
    (outer stride = inner size * inner stride), the inner axis is unmasked and the merged
    size fits an int32 index. Fewer axes mean fewer `//` and `%`: a contiguous view
    becomes one axis, and its index is just `idx`."""
    merged: list[tuple[int, int, _Axis]] = []
    for k in reversed(range(len(view.shape))):
        n, stride, (lo, hi) = view.shape[k], view.strides[k], view.ranges[k]
        if n == 1:
            continue
        inner = merged[-1][2] if merged else None
        if (inner and inner.is_unmasked and stride == inner.size * inner.stride
                and n * inner.size <= INDEX_LIMIT):
            merged[-1] = (k, merged[-1][1],
                          _Axis(n * inner.size, inner.stride, lo * inner.size, hi * inner.size))
        else:
            merged.append((k, k + 1, _Axis(n, stride, lo, hi)))
    return merged[::-1]


# Kernel indices and sizes are int32 in WGSL.
INDEX_LIMIT = 2**31 - 1


class IndexLimitError(ValueError):
    """A kernel would need a flat index over 2^31 elements or more."""


def check_index_size(size: int, what: str) -> None:
    """Raise IndexLimitError if a flat index over `size` elements, or the size itself,
    does not fit int32."""
    if size > INDEX_LIMIT:
        raise IndexLimitError(
            f"{what} has {size} elements, but kernel indices are 32-bit: a flat index covers "
            f"at most 2^31 - 1 = {INDEX_LIMIT} elements; split the work into smaller arrays")


@dataclass(frozen=True)
class MultiIndex:
    """An element of an array of `shape`, as flat row-major indices over runs of
    consecutive axes: `runs[k] = (index, count)` covers the next `count` axes.

    A kernel's indices must stay within 32 bits even where it reads through a huge
    virtual array (the (M, N, K) broadcast product inside a matmul). One flat index
    over such a shape would wrap; a MultiIndex keeps the output's index and the
    reduction's index apart, and `span` rebuilds the flat index of just the axes a view
    needs, checking that it fits. A run that covers a whole group passes through
    untouched, so a contiguous read stays `in0[gidx]`.

    >>> from jaxwg.core import alu
    >>> mi = MultiIndex((6, 5, 4), ((alu.gidx(6), 1), (alu.ridx(20), 2)))
    >>> mi.span(1, 3), mi.span(2, 3), mi.span(0, 2)
    (ridx, (ridx % 4), ((gidx * 5) + (ridx // 4)))
    """

    shape: tuple[int, ...]
    runs: tuple[tuple[AluExp, int], ...]

    @staticmethod
    def flat(index: AluExp, shape: Sequence[int]) -> MultiIndex:
        """The element at flat row-major `index` (in [0, size)) of an array of `shape`."""
        shape = tuple(shape)
        return MultiIndex(shape, ((index, len(shape)),) if shape else ())

    def span(self, start: int, stop: int) -> AluExp:
        """The flat row-major index over axes [start, stop)."""
        pieces = []  # (index over the overlap with a run, the overlap's size)
        first = 0
        for index, count in self.runs:
            last = first + count
            lo, hi = max(first, start), min(last, stop)
            if lo < hi:
                below = math.prod(self.shape[hi:last])
                piece = index // below if below > 1 else index
                if math.prod(self.shape[first:lo]) > 1:
                    piece = piece % math.prod(self.shape[lo:hi])
                pieces.append((piece, math.prod(self.shape[lo:hi])))
            first = last
        if not pieces:
            return alu.const(dt.int32, 0)
        if len(pieces) > 1:
            check_index_size(math.prod(self.shape[start:stop]),
                             f"the index over axes {start}..{stop - 1} of shape {self.shape}")
        result = pieces[0][0]
        for piece, size in pieces[1:]:
            result = result * size + piece
        return result

    def axis(self, k: int) -> AluExp:
        """The index along axis `k`."""
        return self.span(k, k + 1)

    def with_axis(self, k: int, index: AluExp, size: int) -> MultiIndex:
        """This element with axis `k` replaced by `index`, along an axis of `size`."""
        ndim = len(self.shape)
        runs = ([(self.span(0, k), k)] if k else []) + [(index, 1)]
        if k + 1 < ndim:
            runs.append((self.span(k + 1, ndim), ndim - k - 1))
        return MultiIndex(self.shape[:k] + (size,) + self.shape[k + 1:], tuple(runs))

    def flat_index(self) -> AluExp:
        """The flat row-major index over the whole shape (which must fit int32)."""
        return self.span(0, len(self.shape))


def _reshape_view(view: View, shape: tuple[int, ...]) -> View | None:
    """`view` read with a new `shape` of the same size as a single View, or None.

    Leaving size-1 axes aside, the old and new shapes are cut into the shortest
    groups of axes with equal products (for (6, 4) -> (2, 3, 4): [6] ~ [2, 3] and
    [4] ~ [4]); each group must be expressible on its own (`_reshape_group`).
    """
    if view.size == 0:
        return View.contiguous(shape)
    if view.is_padding:
        # A mask has one range per axis, so a 0-d view cannot be padding.
        return View(shape, (0,) * len(shape), 0, ((0, 0),) * len(shape)) if shape else None
    old = [axis for axis in zip(view.shape, view.strides, view.ranges) if axis[0] != 1]
    new_axes = [k for k, n in enumerate(shape) if n != 1]
    strides = [0] * len(shape)
    mask = [(0, n) for n in shape]
    for old_run, new_run in _matching_runs([n for n, _, _ in old], [shape[k] for k in new_axes]):
        group = _reshape_group([old[o] for o in old_run], [shape[new_axes[j]] for j in new_run])
        if group is None:
            return None
        for j, stride, valid in zip(new_run, *group):
            strides[new_axes[j]], mask[new_axes[j]] = stride, valid
    return View(shape, tuple(strides), view.offset, tuple(mask))


def _matching_runs(old_sizes: list[int], new_sizes: list[int]):
    """Cut two lists of sizes (all above 1, equal products) into the shortest runs of
    equal products, as pairs of index ranges: [6, 4] and [2, 3, 4] give
    (range(0, 1), range(0, 2)) and (range(1, 2), range(2, 3))."""
    o = j = 0
    while o < len(old_sizes):
        o_end, j_end = o + 1, j + 1
        old_product, new_product = old_sizes[o], new_sizes[j]
        while old_product != new_product:
            if old_product < new_product:
                old_product *= old_sizes[o_end]
                o_end += 1
            else:
                new_product *= new_sizes[j_end]
                j_end += 1
        yield range(o, o_end), range(j, j_end)
        o, j = o_end, j_end


def _reshape_group(old: list[tuple[int, int, Range]], sizes: list[int]):
    """Strides and masks for new axes of `sizes` that read the old axes `old` (given
    as (size, stride, valid range)) in the same row-major order, or None.

    The old axes must step through the buffer as one: each stride is the next
    axis' size times its stride. A mask survives only on the outermost axis (the
    valid elements then form one flat interval) and only if the interval starts
    and ends on a multiple of the new inner axes' size.
    """
    for (_, outer_stride, _), (inner_n, inner_stride, _) in itertools.pairwise(old):
        if outer_stride != inner_n * inner_stride:
            return None
    if any(rng != (0, n) for n, _, rng in old[1:]):
        return None
    strides = [old[-1][1]]
    for n in reversed(sizes[1:]):
        strides.append(strides[-1] * n)
    strides.reverse()
    masks = [(0, n) for n in sizes]
    lo, hi = old[0][2]
    if (lo, hi) != (0, old[0][0]):
        old_inner = math.prod(n for n, _, _ in old[1:])
        new_inner = math.prod(sizes[1:])
        flat_lo, flat_hi = lo * old_inner, hi * old_inner
        if flat_lo % new_inner or flat_hi % new_inner:
            return None
        masks[0] = (flat_lo // new_inner, flat_hi // new_inner)
    return strides, masks


# -- argument checking: every movement op names itself and the shapes involved ---------
def _ints(op: str, what: str, values) -> tuple[int, ...]:
    try:
        return tuple(operator.index(v) for v in values)
    except TypeError:
        raise TypeError(f"{op}: {what} must be a sequence of integers, got {values!r}") from None


def _shape(op: str, shape) -> tuple[int, ...]:
    shape = _ints(op, "shape", shape)
    if any(n < 0 for n in shape):
        raise ValueError(f"{op}: negative dimension in shape {shape}")
    return shape


def _pairs(op: str, what: str, values, shape: tuple[int, ...]) -> tuple[Range, ...]:
    try:
        pairs = tuple((operator.index(a), operator.index(b)) for a, b in values)
    except (TypeError, ValueError):
        raise TypeError(f"{op}: {what} must be a sequence of (int, int) pairs, "
                        f"got {values!r}") from None
    if len(pairs) != len(shape):
        raise ValueError(f"{op}: {what} {pairs} must have one pair per axis of shape {shape}")
    return pairs


def _axes(op: str, axes, shape: tuple[int, ...]) -> tuple[int, ...]:
    axes = _ints(op, "axes", axes)
    for a in axes:
        if not 0 <= a < len(shape):
            raise ValueError(f"{op}: axis {a} is out of range for shape {shape}")
    return axes


@dataclass(frozen=True)
class ShapeTracker:
    """A stack of views; the last is the array the user sees, each earlier one reads
    the flat index of the view after it. Movement ops return new trackers and fold
    into the last view whenever one view can express the result.

    >>> st = ShapeTracker.from_shape((4, 6)).shrink(((1, 3), (0, 6))).reshape((2, 2, 3))
    >>> st.views
    (View(shape=(2, 2, 3), strides=(6, 3, 1), offset=6, mask=None),)
    >>> st.pad(((0, 0), (0, 0), (1, 0))).reshape((16,)).shape
    (16,)
    """

    views: tuple[View, ...]

    def __post_init__(self):
        if not self.views:
            raise ValueError("ShapeTracker needs at least one view")

    @staticmethod
    def from_shape(shape: Sequence[int]) -> ShapeTracker:
        """The tracker of a whole contiguous buffer of `shape`.

        >>> ShapeTracker.from_shape((2, 3)).is_contiguous
        True
        """
        shape = _shape("from_shape", shape)
        return ShapeTracker((View.contiguous(shape),))

    @property
    def shape(self) -> tuple[int, ...]:
        return self.views[-1].shape

    @property
    def size(self) -> int:
        return self.views[-1].size

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def is_contiguous(self) -> bool:
        """Whether this reads a whole buffer in row-major order (no copy needed).

        >>> ShapeTracker.from_shape((2, 3)).permute((1, 0)).is_contiguous
        False
        """
        return len(self.views) == 1 and self.views[0] == View.contiguous(self.shape)

    def _with_last(self, view: View) -> ShapeTracker:
        # An empty array reads nothing, so the views below it no longer matter.
        if view.size == 0:
            return ShapeTracker((view,))
        return ShapeTracker(self.views[:-1] + (view,))

    def _last_view_is_a_reshape(self) -> bool:
        """Whether the last view reads all of the view below it in order, only under
        another shape (a contiguous view can also be a prefix, after a shrink)."""
        return (len(self.views) > 1 and self.views[-1] == View.contiguous(self.shape)
                and self.views[-2].size == self.size)

    # -- movement ops ------------------------------------------------------------------
    def reshape(self, shape: Sequence[int]) -> ShapeTracker:
        """The same elements in row-major order, with a new shape of the same size.

        >>> ShapeTracker.from_shape((6,)).reshape((2, 3)).is_contiguous
        True
        >>> len(ShapeTracker.from_shape((2, 3)).permute((1, 0)).reshape((6,)).views)
        2
        """
        shape = _shape("reshape", shape)
        if math.prod(shape) != self.size:
            raise ValueError(f"reshape: cannot reshape shape {self.shape} (size {self.size}) "
                             f"into shape {shape} (size {math.prod(shape)})")
        if shape == self.shape:
            return self
        if self._last_view_is_a_reshape():
            # Reshape the view below instead, which may make the last one unnecessary.
            return ShapeTracker(self.views[:-1]).reshape(shape)
        merged = _reshape_view(self.views[-1], shape)
        if merged is not None:
            return self._with_last(merged)
        return ShapeTracker(self.views + (View.contiguous(shape),))

    def permute(self, axes: Sequence[int]) -> ShapeTracker:
        """Reorder the axes: axis k of the result is axis `axes[k]` of this one.

        >>> ShapeTracker.from_shape((2, 3, 4)).permute((2, 0, 1)).shape
        (4, 2, 3)
        """
        axes = _ints("permute", "axes", axes)
        if sorted(axes) != list(range(self.ndim)):
            raise ValueError(f"permute: axes {axes} are not a permutation of the "
                             f"{self.ndim} axes of shape {self.shape}")
        v = self.views[-1]
        mask = None if v.mask is None else tuple(v.mask[a] for a in axes)
        return self._with_last(View(tuple(v.shape[a] for a in axes),
                                    tuple(v.strides[a] for a in axes), v.offset, mask))

    def expand(self, shape: Sequence[int]) -> ShapeTracker:
        """Broadcast size-1 axes to `shape` (stride 0: every index reads the same element).

        >>> ShapeTracker.from_shape((1, 3)).expand((4, 3)).views[-1].strides
        (0, 1)
        """
        shape = _shape("expand", shape)
        if len(shape) != self.ndim:
            raise ValueError(f"expand: shape {shape} must have as many axes as shape {self.shape}")
        for k, (old, new) in enumerate(zip(self.shape, shape)):
            if old != new and old != 1:
                raise ValueError(f"expand: cannot expand axis {k} of shape {self.shape} from "
                                 f"{old} to {new} (shape {shape}); only size-1 axes grow")
        v = self.views[-1]
        # A size-1 axis is valid everywhere, or (in a view of all padding) nowhere.
        mask = None if v.mask is None else tuple(
            rng if old == new else (0, new if rng[0] < rng[1] else 0)
            for rng, old, new in zip(v.mask, self.shape, shape))
        return self._with_last(View(shape, v.strides, v.offset, mask))

    def shrink(self, bounds: Sequence[tuple[int, int]]) -> ShapeTracker:
        """Keep indices `start <= i < stop` of each axis (a slice with step 1).

        >>> ShapeTracker.from_shape((5,)).shrink(((1, 4),)).views[-1].offset
        1
        """
        bounds = _pairs("shrink", "bounds", bounds, self.shape)
        for k, ((start, stop), n) in enumerate(zip(bounds, self.shape)):
            if not 0 <= start <= stop <= n:
                raise ValueError(f"shrink: bounds {(start, stop)} of axis {k} are out of range "
                                 f"for shape {self.shape}; need 0 <= start <= stop <= {n}")
        v = self.views[-1]
        offset = v.offset + sum(start * s for (start, _), s in zip(bounds, v.strides))
        shape = tuple(stop - start for start, stop in bounds)
        mask = None if v.mask is None else tuple(
            (min(max(lo - start, 0), n), min(max(hi - start, 0), n))
            for (lo, hi), (start, _), n in zip(v.mask, bounds, shape))
        return self._with_last(View(shape, v.strides, offset, mask))

    def pad(self, widths: Sequence[tuple[int, int]]) -> ShapeTracker:
        """Add `before` zeros at the start and `after` at the end of each axis.

        >>> ShapeTracker.from_shape((3,)).pad(((1, 2),)).views[-1]
        View(shape=(6,), strides=(1,), offset=-1, mask=((1, 4),))
        """
        widths = _pairs("pad", "widths", widths, self.shape)
        if any(before < 0 or after < 0 for before, after in widths):
            raise ValueError(f"pad: widths {widths} for shape {self.shape} must not be negative")
        v = self.views[-1]
        offset = v.offset - sum(before * s for (before, _), s in zip(widths, v.strides))
        shape = tuple(n + before + after for n, (before, after) in zip(self.shape, widths))
        mask = tuple((lo + before, hi + before) for (lo, hi), (before, _) in zip(v.ranges, widths))
        return self._with_last(View(shape, v.strides, offset, mask))

    def flip(self, axes: Sequence[int]) -> ShapeTracker:
        """Reverse the order of the indices of the given axes.

        >>> ShapeTracker.from_shape((2, 3)).flip((1,)).views[-1]
        View(shape=(2, 3), strides=(3, -1), offset=2, mask=None)
        """
        axes = _axes("flip", axes, self.shape)
        if len(set(axes)) != len(axes):
            raise ValueError(f"flip: repeated axis in {axes} for shape {self.shape}")
        v = self.views[-1]
        strides, offset, ranges = list(v.strides), v.offset, list(v.ranges)
        for a in axes:
            n = v.shape[a]
            offset += (n - 1) * strides[a]
            strides[a] = -strides[a]
            ranges[a] = (n - ranges[a][1], n - ranges[a][0])
        return self._with_last(View(v.shape, tuple(strides), offset, tuple(ranges)))

    # -- lowering to index expressions ---------------------------------------------------
    def to_index(self, idx: AluExp | MultiIndex) -> tuple[AluExp, AluExp]:
        """(buffer index, validity) of the element at `idx` (a flat row-major int32
        expression in [0, size), or a `MultiIndex` over this shape), both simplified.
        Where the validity is false the index is meaningless.

        >>> from jaxwg.core import alu
        >>> ShapeTracker.from_shape((3,)).reshape((1, 3)).expand((4, 3)).to_index(alu.gidx(12))
        ((gidx % 3), True)
        >>> ShapeTracker.from_shape((3,)).pad(((1, 0),)).to_index(alu.gidx(4))
        ((gidx - 1), (0 < gidx))
        """
        if self.size == 0:
            return alu.const(dt.int32, 0), alu.const(dt.bool_, False)
        index, valid = self.views[-1].to_index(idx)
        for view in reversed(self.views[:-1]):
            # The index into this view's shape is the one the view above computed.
            check_index_size(view.size, f"a reshaped view of shape {view.shape}")
            index, inner_valid = view.to_index(index.simplify())
            valid = valid & inner_valid
        return index.simplify(), valid.simplify()

    def load(self, arg: int, dtype: dt.DType, idx: AluExp) -> AluExp:
        """Read input buffer `arg` (of `dtype`) through this tracker at flat index `idx`:
        padding reads 0. The load index is 0 where the element is padding, since GPUs
        evaluate both sides of a select and the raw index may be out of bounds there.

        >>> from jaxwg.core import alu, dtypes as dt
        >>> ShapeTracker.from_shape((4,)).flip((0,)).load(0, dt.float32, alu.gidx(4))
        in0[(3 - gidx)]
        >>> ShapeTracker.from_shape((2,)).pad(((0, 1),)).load(0, dt.float32, alu.gidx(3))
        where((gidx < 2), in0[where((gidx < 2), gidx, 0)], 0.0)
        """
        index, valid = self.to_index(idx)
        if valid is alu.const(dt.bool_, True):
            return alu.load(arg, dtype, index)
        safe_index = alu.where(valid, index, alu.const(dt.int32, 0))
        value = alu.where(valid, alu.load(arg, dtype, safe_index), alu.const(dtype, 0))
        return value.simplify()
