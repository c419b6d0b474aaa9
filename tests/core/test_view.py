"""ShapeTracker against NumPy: random chains of movement ops must read the same
elements as the same ops on a NumPy array, and the index code must stay lean."""

import math

import numpy as np
import pytest
from hypothesis import given, note, settings
from hypothesis import strategies as st

from jaxwg.core import alu
from jaxwg.core import dtypes as dt
from jaxwg.core.alu_eval import evaluate
from jaxwg.core.view import ShapeTracker, View


def read(tracker: ShapeTracker, buffer: np.ndarray) -> np.ndarray:
    """Every element of `tracker` as a kernel would read it from `buffer`, flattened."""
    exp = tracker.load(0, dt.int32, alu.gidx(tracker.size))
    env = {"gidx": np.arange(tracker.size, dtype=np.int32)}
    for ld in exp.loads():
        # The load index itself must stay in bounds, padding included.
        index = np.broadcast_to(evaluate(ld.src[0], env, [buffer]), (tracker.size,))
        assert ((0 <= index) & (index < buffer.size)).all(), (tracker, ld)
    return np.broadcast_to(evaluate(exp, env, [buffer]), (tracker.size,))


# -- random chains of movement ops, applied to a tracker and to a NumPy array ----------
shapes = st.lists(st.integers(1, 5) | st.just(1), min_size=1, max_size=4).map(tuple)
empty_shapes = st.builds(lambda shape, k: shape[:k] + (0,) + shape[k:], shapes,
                         st.integers(0, 4))
# Expands to 0 and empty slices come up now and then, not so often that empty arrays
# crowd out the rest (the chains over `empty_shapes` cover those).
rarely = st.integers(0, 99).map(lambda n: n < 3)


def _factor(draw, size: int) -> tuple[int, ...]:
    """A random shape with `size` elements (size-1 axes included)."""
    if size == 0:
        shape = draw(st.lists(st.integers(0, 4), min_size=1, max_size=3))
        shape[draw(st.integers(0, len(shape) - 1))] = 0
        return tuple(shape)
    primes = []
    rest = size
    for p in range(2, size + 1):
        while rest % p == 0:
            rest //= p
            primes.append(p)
    shape = list(draw(st.permutations(primes)))
    # Merge random neighbours and sprinkle in size-1 axes.
    while len(shape) > 1 and draw(st.booleans()):
        k = draw(st.integers(0, len(shape) - 2))
        shape[k:k + 2] = [shape[k] * shape[k + 1]]
    for _ in range(draw(st.integers(0, 2))):
        shape.insert(draw(st.integers(0, len(shape))), 1)
    return tuple(shape)


# Each movement op draws its arguments, notes them (hypothesis prints the notes of a
# failing example) and returns (new tracker, new array).
def reshape(draw, tracker, array):
    shape = _factor(draw, array.size)
    note(f"reshape {shape}")
    return tracker.reshape(shape), array.reshape(shape)


def permute(draw, tracker, array):
    axes = tuple(draw(st.permutations(range(array.ndim))))
    note(f"permute {axes}")
    return tracker.permute(axes), np.transpose(array, axes)


def expand(draw, tracker, array):
    shape = tuple(draw(st.integers(0 if draw(rarely) else 1, 4)) if n == 1 else n
                  for n in array.shape)
    note(f"expand {shape}")
    return tracker.expand(shape), np.broadcast_to(array, shape)


def shrink(draw, tracker, array):
    bounds = []
    for n in array.shape:
        start = draw(st.integers(0, max(n - 1, 0)))
        stop = draw(st.integers(start if draw(rarely) else min(start + 1, n), n))
        bounds.append((start, stop))
    note(f"shrink {bounds}")
    index = tuple(slice(start, stop) for start, stop in bounds)
    return tracker.shrink(bounds), array[index]


def pad(draw, tracker, array):
    widths = tuple((draw(st.integers(0, 2)), draw(st.integers(0, 2))) for _ in array.shape)
    note(f"pad {widths}")
    padded = np.pad(array, widths) if widths else array  # np.pad rejects 0-d arrays
    return tracker.pad(widths), padded


def flip(draw, tracker, array):
    axes = tuple(sorted(draw(st.sets(st.integers(0, max(array.ndim - 1, 0)),
                                     max_size=array.ndim))))
    note(f"flip {axes}")
    return tracker.flip(axes), np.flip(array, axes)


MOVEMENT_OPS = (reshape, permute, expand, shrink, pad, flip)


def _start(shape):
    buffer = np.arange(1, math.prod(shape) + 1, dtype=np.int32)  # 0 only from padding
    return ShapeTracker.from_shape(shape), buffer.reshape(shape), buffer


def _apply(draw, op, tracker, array):
    tracker, array = op(draw, tracker, array)
    assert tracker.shape == array.shape, op.__name__
    return tracker, array


@st.composite
def chains(draw, shapes=shapes):
    """(tracker, expected array, buffer) after 0-6 random movement ops."""
    tracker, array, buffer = _start(draw(shapes))
    for _ in range(draw(st.integers(0, 6))):
        tracker, array = _apply(draw, draw(st.sampled_from(MOVEMENT_OPS)), tracker, array)
    return tracker, array, buffer


@st.composite
def stacking_chains(draw):
    """Like `chains`, but every op is followed by a reshape, which often needs a new
    view (merging transposed or padded axes), so that views stack 2-4 deep."""
    tracker, array, buffer = _start(draw(st.lists(st.integers(2, 4), min_size=2, max_size=3)))
    for _ in range(draw(st.integers(1, 3))):
        op = draw(st.sampled_from((permute, pad, flip, shrink, expand)))
        tracker, array = _apply(draw, op, tracker, array)
        tracker, array = _apply(draw, reshape, tracker, array)
    return tracker, array, buffer


def check_chain(chain):
    tracker, expected, buffer = chain
    np.testing.assert_array_equal(read(tracker, buffer), expected.reshape(-1))


@settings(deadline=None, max_examples=400)
@given(chains())
def test_movement_chains_match_numpy(chain):
    check_chain(chain)


@settings(deadline=None, max_examples=200)
@given(stacking_chains())
def test_stacked_views_match_numpy(chain):
    check_chain(chain)


@settings(deadline=None, max_examples=50)
@given(chains(st.just(())))
def test_chains_over_0d_arrays_match_numpy(chain):
    check_chain(chain)


@settings(deadline=None, max_examples=50)
@given(chains(empty_shapes))
def test_chains_over_empty_arrays_match_numpy(chain):
    tracker = chain[0]
    assert tracker.size > 0 or tracker.is_contiguous  # padding makes elements from none
    check_chain(chain)


@settings(deadline=None, max_examples=100)
@given(chains())
def test_reshape_to_flat_and_back_adds_no_view(chain):
    tracker, expected, buffer = chain
    flat = tracker.reshape((tracker.size,))
    back = flat.reshape(tracker.shape)
    assert len(flat.views) <= len(tracker.views) + 1
    assert len(back.views) <= len(tracker.views)
    check_chain((back, expected, buffer))


# -- lean index code --------------------------------------------------------------------
def index_of(tracker: ShapeTracker) -> alu.AluExp:
    index, valid = tracker.to_index(alu.gidx(tracker.size))
    assert valid is alu.const(dt.bool_, True)
    return index


def test_contiguous_lowers_to_idx():
    i = alu.gidx(24)
    assert ShapeTracker.from_shape((2, 3, 4)).to_index(i) == (i, alu.const(dt.bool_, True))
    assert ShapeTracker.from_shape(()).to_index(alu.gidx(1)) == (
        alu.const(dt.int32, 0), alu.const(dt.bool_, True))


def test_reshape_of_contiguous_lowers_to_idx():
    tracker = ShapeTracker.from_shape((6, 4)).reshape((2, 3, 1, 4))
    assert tracker.views == (View.contiguous((2, 3, 1, 4)),)
    assert index_of(tracker) is alu.gidx(24)
    assert index_of(tracker.reshape((24,)).reshape((4, 6))) is alu.gidx(24)


def test_reshape_of_shrunk_rows_lowers_to_idx_plus_offset():
    tracker = ShapeTracker.from_shape((5, 4)).shrink(((1, 4), (0, 4))).reshape((2, 6))
    assert len(tracker.views) == 1
    assert index_of(tracker) is alu.gidx(12) + 4


def test_permute_and_inverse_lowers_to_idx():
    tracker = ShapeTracker.from_shape((2, 3, 4)).permute((2, 0, 1)).permute((1, 2, 0))
    assert tracker.is_contiguous
    assert index_of(tracker) is alu.gidx(24)


def test_broadcast_row_lowers_to_idx_mod_n():
    tracker = ShapeTracker.from_shape((5,)).reshape((1, 5)).expand((3, 5))
    assert index_of(tracker) is alu.gidx(15) % 5


def test_broadcast_column_lowers_to_idx_div_n():
    tracker = ShapeTracker.from_shape((3,)).reshape((3, 1)).expand((3, 5))
    assert index_of(tracker) is alu.gidx(15) // 5


def test_flip_lowers_to_one_subtraction():
    tracker = ShapeTracker.from_shape((2, 3)).flip((0, 1))
    assert index_of(tracker) is alu.const(dt.int32, 5) - alu.gidx(6)


def test_transpose_lowers_to_one_div_and_one_mod():
    i = alu.gidx(6)
    tracker = ShapeTracker.from_shape((2, 3)).permute((1, 0))
    assert index_of(tracker) is (i % 2) * 3 + i // 2


def test_padding_checks_only_the_padded_sides():
    i = alu.gidx(6)
    index, valid = ShapeTracker.from_shape((4,)).pad(((2, 0),)).to_index(i)
    assert index is i - 2
    assert valid is alu.const(dt.int32, 1).lt(i)


def test_padding_of_an_outer_axis_tests_the_flat_index():
    i = alu.gidx(35)
    index, valid = ShapeTracker.from_shape((3, 4)).pad(((1, 1), (2, 1))).to_index(i)
    assert index is (i % 7 + (i // 7) * 4) - 6
    assert valid is (alu.const(dt.int32, 6).lt(i) & i.lt(28)
                     & alu.const(dt.int32, 1).lt(i % 7) & (i % 7).lt(6))


def test_load_of_padding_only_is_zero():
    tracker = ShapeTracker.from_shape((3,)).pad(((1, 1),)).shrink(((0, 1),)).expand((4,))
    assert tracker.load(0, dt.float32, alu.gidx(4)) is alu.const(dt.float32, 0.0)


def test_reshape_of_a_prefix_of_stacked_views():
    # The last view is contiguous but reads only the first 4 of the 6 elements below.
    buffer = np.arange(1, 7, dtype=np.int32)
    tracker = ShapeTracker.from_shape((2, 3)).permute((1, 0)).reshape((6,)).shrink(((0, 4),))
    expected = buffer.reshape(2, 3).T.reshape(6)[:4].reshape(2, 2)
    np.testing.assert_array_equal(read(tracker.reshape((2, 2)), buffer), expected.reshape(-1))


def test_padding_reshaped_to_0d_stays_padding():
    # A 0-d view has no axis to mask, so the tracker keeps the padding view below it.
    tracker = ShapeTracker.from_shape((0,)).pad(((0, 1),)).reshape(())
    assert tracker.load(0, dt.int32, alu.gidx(1)) is alu.const(dt.int32, 0)


def test_empty_tracker_loads_zero_and_is_contiguous():
    tracker = ShapeTracker.from_shape((2, 3)).permute((1, 0)).shrink(((0, 0), (0, 2)))
    assert tracker.is_contiguous
    assert tracker.load(0, dt.int32, alu.gidx(0)) is alu.const(dt.int32, 0)


# -- views are merged, not stacked, when one view can express the result ----------------
@pytest.mark.parametrize("build, views", [
    (lambda s: s.reshape((6, 4)).reshape((2, 12)), 1),
    (lambda s: s.permute((1, 0, 2)).reshape((3, 2, 2, 2)), 1),  # split of the last axis
    (lambda s: s.reshape((2, 3, 1, 4)).expand((2, 3, 5, 4)).reshape((6, 5, 2, 2)), 1),
    (lambda s: s.flip((0, 1, 2)).reshape((24,)), 1),
    (lambda s: s.pad(((1, 1), (0, 0), (0, 0))).reshape((4, 12)), 1),  # mask on merged rows
    (lambda s: s.pad(((0, 0), (0, 0), (1, 0))).reshape((30,)), 2),
    (lambda s: s.permute((2, 1, 0)).reshape((24,)), 2),
    (lambda s: s.permute((2, 1, 0)).reshape((24,)).reshape((4, 3, 2)), 1),
])
def test_number_of_views(build, views):
    assert len(build(ShapeTracker.from_shape((2, 3, 4))).views) == views


def test_reshape_of_padded_view_is_correct():
    buffer = np.arange(1, 7, dtype=np.int32)
    tracker = ShapeTracker.from_shape((2, 3)).pad(((1, 0), (0, 1))).reshape((12,))
    expected = np.pad(buffer.reshape(2, 3), ((1, 0), (0, 1))).reshape(-1)
    np.testing.assert_array_equal(read(tracker, buffer), expected)


# -- argument errors name the op, the shapes and the bad argument -----------------------
@pytest.mark.parametrize("call, error, words", [
    (lambda s: s.reshape((4, 2)), ValueError, ["reshape", "(2, 3)", "(4, 2)"]),
    (lambda s: s.reshape((-2, -3)), ValueError, ["reshape", "negative", "(-2, -3)"]),
    (lambda s: s.reshape("ab"), TypeError, ["reshape", "'ab'"]),
    (lambda s: s.permute((0, 0)), ValueError, ["permute", "(0, 0)", "(2, 3)"]),
    (lambda s: s.permute((0, 1, 2)), ValueError, ["permute", "(0, 1, 2)"]),
    (lambda s: s.expand((4, 3)), ValueError, ["expand", "axis 0", "(2, 3)", "(4, 3)"]),
    (lambda s: s.expand((2, 3, 1)), ValueError, ["expand", "(2, 3, 1)"]),
    (lambda s: s.reshape((1, 2, 3)).expand((-1, 2, 3)), ValueError, ["expand", "negative"]),
    (lambda s: s.shrink(((0, 2), (1, 4))), ValueError, ["shrink", "(1, 4)", "(2, 3)"]),
    (lambda s: s.shrink(((1, 0), (0, 3))), ValueError, ["shrink", "(1, 0)"]),
    (lambda s: s.shrink(((0, 2),)), ValueError, ["shrink", "(2, 3)"]),
    (lambda s: s.shrink((0, 2)), TypeError, ["shrink", "pairs"]),
    (lambda s: s.pad(((0, -1), (0, 0))), ValueError, ["pad", "-1", "(2, 3)"]),
    (lambda s: s.pad(((0, 1.5), (0, 0))), TypeError, ["pad", "1.5"]),
    (lambda s: s.flip((2,)), ValueError, ["flip", "axis 2", "(2, 3)"]),
    (lambda s: s.flip((1, 1)), ValueError, ["flip", "(1, 1)"]),
])
def test_bad_arguments_raise_clear_errors(call, error, words):
    with pytest.raises(error) as info:
        call(ShapeTracker.from_shape((2, 3)))
    for word in words:
        assert word in str(info.value)


def test_view_rejects_inconsistent_fields():
    with pytest.raises(ValueError, match="one entry per axis"):
        View((2, 3), (1,))
    with pytest.raises(ValueError, match="does not fit"):
        View((2,), (1,), 0, ((0, 3),))
