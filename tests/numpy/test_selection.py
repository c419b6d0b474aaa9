"""Element selection and editing (`take`, `take_along_axis`, `put_along_axis`, `nonzero`
and its forms, `compress`, `extract`, `select`, `choose`, `place`, `piecewise`,
`delete`, `insert`, `append`, `fill_diagonal`, the diagonal and triangle indices,
`ravel_multi_index`, `unravel_index`) against JAX: values, dtypes and weak types,
out-of-bounds modes, sizes under jit, edge cases, errors, gradients and vmap."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jaxwg
import jaxwg.numpy as jnp
from jaxwg.errors import ConcretizationTypeError

from .helpers import jax, jax_numpy

SPECIALS = np.array([np.nan, -0.0, 0.0, np.inf, -np.inf, 1.5, -2.0], np.float32)


def _values(rng, shape, dtype):
    """Values of `dtype` with zeros, ties, and for floats NaN, -0.0 and infinities."""
    if dtype == "bool":
        return rng.random(shape) < 0.5
    if dtype.startswith("float"):
        return rng.choice(SPECIALS, shape).astype(dtype)
    return rng.integers(0, 3, shape).astype(dtype)


def _same(got, want, weak=True):
    """Equal dtype, shape, weak type (if `weak`) and bits (-0.0 is not 0.0), NaNs equal
    whatever their payload (a GPU's float16 NaN is 0x7fff where XLA's is 0x7e00)."""
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want):
            _same(g, w, weak)
        return
    assert isinstance(got, jaxwg.Array), type(got)
    if weak:
        assert got.weak_type == want.weak_type, (got.weak_type, want.weak_type)
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, got.shape, want.dtype, want.shape)
    if want.dtype.kind == "f":
        np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
        got, want = (np.where(np.isnan(a), 0, a).view(f"u{a.itemsize}") for a in (got, want))
    np.testing.assert_array_equal(got, want)


_EXPECTED = {}


def _expected(fn, *args, **static):
    """`fn(jax_numpy, *args, **static)`, computed once per test session: jitted where JAX
    can (one compilation instead of one per primitive), else eagerly."""
    closure = tuple(repr(c.cell_contents) for c in fn.__closure__ or ())
    key = (fn.__code__, closure, repr(sorted(static.items())),
           tuple((a.dtype.str, a.shape, a.tobytes()) for a in map(np.asarray, args)))
    if key not in _EXPECTED:
        try:
            _EXPECTED[key] = jax.jit(lambda *a: fn(jax_numpy, *a, **static))(*args)
        except (TypeError, IndexError):  # JAX needs concrete values: size=None and the like
            _EXPECTED[key] = fn(jax_numpy, *args, **static)
    return _EXPECTED[key]


def _check(run, fn, *args, **static):
    """`fn(jnp, *args, **static)` (eagerly or under jit, on the platform) equals the same
    call with JAX's numpy on the NumPy arguments."""
    got = run(lambda *a, **k: fn(jnp, *a, **k), *[jnp.asarray(a) for a in args], **static)
    _same(got, _expected(fn, *args, **static))


_NEEDS_CONCRETE = (jax.errors.ConcretizationTypeError, jax.errors.NonConcreteBooleanIndexError,
                   jax.errors.TracerIntegerConversionError, jax.errors.TracerArrayConversionError)


def _raises_like_jax(call):
    """`call(jax_numpy)` raises; `call(jnp)` raises an error of the same type. JAX is
    traced first (an error while tracing compiles nothing), and run eagerly where its
    error needs concrete values."""
    with pytest.raises(Exception) as expected:
        try:
            jax.jit(lambda: call(jax_numpy))()
        except _NEEDS_CONCRETE:
            call(jax_numpy)
    with pytest.raises(type(expected.value)):
        call(jnp)


# -- take, take_along_axis, put_along_axis ---------------------------------------------------


@settings(max_examples=8, deadline=None, derandomize=True)
@given(shape=st.lists(st.integers(1, 4), min_size=1, max_size=3).map(tuple),
       index_shape=st.lists(st.integers(0, 3), max_size=2).map(tuple),
       dtype=st.sampled_from(["float32", "int32", "uint32", "bool", "float16"]),
       mode=st.sampled_from([None, "fill", "clip", "wrap"]), data=st.data())
def test_take_matches_jax(run, shape, index_shape, dtype, mode, data):
    rng = np.random.default_rng(sum(shape) + len(index_shape))
    x = _values(rng, shape, dtype)
    axis = data.draw(st.sampled_from([None] + list(range(-len(shape), len(shape)))), label="axis")
    n = x.size if axis is None else shape[axis]
    indices = rng.integers(-2 * n, 2 * n + 1, index_shape).astype(np.int32)
    _check(run, lambda np_, x, i, **k: np_.take(x, i, **k), x, indices, axis=axis, mode=mode)


def test_take_fill_values_index_dtypes_and_empty_arrays(run):
    def cases(np_, x, i):
        return (np_.take(x, i, axis=1, fill_value=-7.0),
                np_.take(np_.arange(3), np_.array([0, 5, -9]), fill_value=2.7),
                np_.take(np_.arange(3, dtype="uint32"), np_.array([0, 5, -1])),
                np_.take(np_.arange(4), np_.array([1, 3], np.uint32)),
                np_.take(np_.array([True, False]), np_.array([1, 2, -1])),
                np_.take(x, np_.array([1, 0]), axis=0, unique_indices=True, indices_are_sorted=True),
                np_.take(np_.asarray(2.5)[None], 0),  # weakly typed
                np_.take(np_.zeros((0, 3)), np_.zeros(0, np.int32), axis=0),
                np_.take(x, np_.zeros((2, 0), np.int32), axis=1))

    _check(run, cases, np.arange(6, dtype=np.float32).reshape(2, 3), np.array([[0, -1], [3, -4]], np.int32))


@settings(max_examples=6, deadline=None, derandomize=True)
@given(shape=st.lists(st.integers(1, 4), min_size=1, max_size=3).map(tuple),
       mode=st.sampled_from([None, "clip", "fill", "promise_in_bounds"]), data=st.data())
def test_take_along_axis_matches_jax(run, shape, mode, data):
    rng = np.random.default_rng(sum(shape))
    x = _values(rng, shape, "float32")
    axis = data.draw(st.integers(-len(shape), len(shape) - 1), label="axis")
    # indices broadcast against x: some axes of size 1, a longer axis along `axis`
    index_shape = tuple(data.draw(st.sampled_from([1, n]), label=f"size {k}") if k != axis % len(shape)
                        else data.draw(st.integers(0, 5), label="count") for k, n in enumerate(shape))
    lo = 0 if mode == "promise_in_bounds" else -2 * shape[axis]
    hi = shape[axis] if mode == "promise_in_bounds" else 2 * shape[axis]
    indices = rng.integers(lo, hi, index_shape).astype(np.int32)
    _check(run, lambda np_, x, i, **k: np_.take_along_axis(x, i, **k), x, indices, axis=axis, mode=mode)
    size_one = x.take([0], axis=axis)  # x broadcast along its axis of size 1
    _check(run, lambda np_, x, i, **k: np_.take_along_axis(x, i, **k), size_one,
           np.zeros(shape, np.int32), axis=axis)


def test_take_along_axis_flattened_fill_value_and_empty_axis(run):
    def cases(np_, x):
        return (np_.take_along_axis(x, np_.array([5, -1, 9]), None),
                np_.take_along_axis(x, np_.array([[0], [7]]), 1, mode="fill", fill_value=-5),
                np_.take_along_axis(x, np_.array([[-1], [2]]), 1, wrap_negative_indices=False, mode="clip"),
                np_.take_along_axis(np_.zeros((2, 0)), np_.zeros((2, 3), np.int32), 1),
                np_.take_along_axis(np_.zeros((0, 3)), np_.zeros((0, 1), np.int32), 1))

    _check(run, cases, np.arange(6, dtype=np.int32).reshape(2, 3))


def test_put_along_axis_matches_jax(run):
    def cases(np_, x, i, v):
        # repeated, negative and out-of-bounds indices; flattened; int array, float values
        return (np_.put_along_axis(x, i, v, 1, inplace=False),
                np_.put_along_axis(x, i, v, -1, inplace=False, mode="clip"),
                np_.put_along_axis(x, np_.array([0, 11, -2]), 9, None, inplace=False),
                np_.put_along_axis(x.astype(np.int32), np_.array([[0, 9, 1, -1]]), 9.5, 0, inplace=False))

    _check(run, cases, np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32),
           np.array([[0, 3], [2, 2], [-1, 7]], np.int32), np.array([[1.0, 2.0], [3.0, 3.0], [5.0, 6.0]], np.float32))


# -- nonzero and its forms -------------------------------------------------------------------


@settings(max_examples=6, deadline=None, derandomize=True)
@given(shape=st.lists(st.integers(1, 5), min_size=1, max_size=3).map(tuple),
       dtype=st.sampled_from(["float32", "int32", "bool", "float16"]),
       size=st.one_of(st.none(), st.integers(0, 12)), fill_value=st.sampled_from([None, -1, 2.5]))
def test_nonzero_matches_jax(platform, shape, dtype, size, fill_value):
    x = _values(np.random.default_rng(sum(shape)), shape, dtype)  # NaN counts, -0.0 does not
    want = _expected(lambda np_, v, **k: np_.nonzero(v, **k), x, size=size, fill_value=fill_value)
    _same(jnp.nonzero(jnp.asarray(x), size=size, fill_value=fill_value), want)
    if size is not None:
        jitted = jaxwg.jit(lambda v: jnp.nonzero(v, size=size, fill_value=fill_value))
        _same(jitted(jnp.asarray(x)), want)


def test_nonzero_forms_and_edge_cases(run):
    def sized(np_, x):
        return (np_.nonzero(x, size=4, fill_value=(7, 8)), np_.where(x, size=2),
                np_.nonzero(np_.zeros((0, 2)), size=2, fill_value=5), np_.argwhere(0, size=2),
                np_.argwhere(x, size=4, fill_value=(-1, -2)), np_.flatnonzero(x, size=2))

    def unsized(np_, x):
        return (np_.where(x > 0), np_.flatnonzero(x), np_.argwhere(x), np_.nonzero(np_.zeros((2, 0))),
                np_.nonzero(np_.zeros(5)), np_.argwhere(np_.asarray(3.0)))

    eye = np.eye(3, dtype=np.int32)
    _check(run, sized, eye)
    if run.mode == "eager":
        _check(run, unsized, eye)


def test_nonzero_of_a_long_mask_that_is_not_a_power_of_two():
    x = np.random.default_rng(3).random(20011) < 0.01
    _same(jnp.nonzero(jnp.asarray(x), size=250, fill_value=-1),
          _expected(lambda np_, v: np_.nonzero(v, size=250, fill_value=-1), x))


def test_compress_and_extract_match_jax(run):
    def sized(np_, x, c3, c5, c2):
        return (np_.compress(c3, x, axis=0, size=2, fill_value=-1.5),
                np_.compress(c5, x, axis=1, size=1),  # a condition longer than the axis
                np_.compress(c5, x, axis=1, size=4, fill_value=np_.nan),
                np_.compress(c2, x, size=0),
                np_.compress(c3 & False, x, axis=0, size=3),
                np_.extract(x > 0, x, size=5),
                np_.extract(x > 0, x.astype(np.int32), size=12, fill_value=-9.7))

    def unsized(np_, x, c3, c5, c2):
        return (np_.compress(c3, x, axis=0), np_.compress(c5[:4], x, axis=-1), np_.compress(c2, x),
                np_.compress(c3 & False, x, axis=0), np_.extract(x > 0, x), np_.compress(np_.array([1]), 2.0))

    args = (_values(np.random.default_rng(1), (3, 4), "float32"), np.array([True, False, True]),
            np.array([0.5, 0.0, np.nan, 1.0, 0.0], np.float32), np.array([0, 1], np.int32))
    _check(run, sized, *args)
    if run.mode == "eager":
        _check(run, unsized, *args)


# -- select, choose, piecewise, place, fill_diagonal -----------------------------------------


def test_select_choose_and_piecewise_match_jax(run):
    def cases(np_, x, c, i, u):
        return (np_.select([x > 0, np_.isnan(x), x < 1], [x, 7.0, -x], 3),
                np_.select([c], [i], 0.5), np_.select([c, ~c], [u, 2], 2),
                np_.select([i, i > 1], [1, 2], 3),  # weakly typed
                np_.choose(np_.array([[0, 4, 2], [-2, 1, 0]]), [x[0, :3], x[:2, 1:], np.float32(9)], mode="wrap"),
                np_.choose(np_.array([[0, 4, 2], [-2, 1, 0]]), [x[0, :3], x[:2, 1:], np.float32(9)], mode="clip"),
                np_.choose(u[None], [i, 2 * i, i * i], mode="clip"),
                np_.piecewise(x, [x < 0, x > 0.5], [lambda v: -v, lambda v: v * 10, 7]),
                np_.piecewise(x, [x < 4, x > 1], [1, 2]),  # the last true condition wins
                np_.piecewise(x, [x < 2], [lambda v, a, b=0: v + a + b, 0.5], 5, b=1),
                np_.piecewise(i, [i < 2], [lambda v: v / 2, 3.7]),
                np_.piecewise(2.0, [True], [lambda v: v + 1]))

    def eager_only(np_, x, c, i, u):
        return (np_.choose(np_.array([[0, 1, 2], [2, 1, 0]]), [x[0, :3], x[:2, 1:], np.float32(9)]),
                np_.choose(np_.array([0, 1]), [1, 2]))

    args = (_values(np.random.default_rng(2), (3, 4), "float32"), np.array([True, False]),
            np.array([1, 2], np.int32), np.array([1, 5], np.uint32))
    _check(run, cases, *args)
    if run.mode == "eager":
        _check(run, eager_only, *args)


def test_place_and_fill_diagonal_match_jax(run):
    def cases(np_, x, m, v):
        return (np_.place(x, x % 3 > 0, v, inplace=False),
                np_.place(x.astype(np.int32), m, 9.7, inplace=False),  # NaN in the mask counts
                np_.place(np_.arange(4, dtype=np.uint32), m[:2, :2], np_.arange(10), inplace=False),
                np_.place(np_.zeros(0), np_.zeros(0, bool), v, inplace=False),
                np_.fill_diagonal(x, v[:2], inplace=False), np_.fill_diagonal(x.T, 7.5, inplace=False),
                np_.fill_diagonal(np_.zeros((2, 2, 2)), 1, inplace=False),
                np_.fill_diagonal(x[:, :3], np_.array([[1, 2], [3, 4]]), inplace=False),
                np_.fill_diagonal(x.astype(np.int32), 1.7, inplace=False))

    _check(run, cases, np.arange(12, dtype=np.float32).reshape(3, 4),
           np.array([[1.0, 0, np.nan, 0]] * 3, np.float32), np.array([-1.0, -2.0, -3.0], np.float32))


# -- delete, insert, append ------------------------------------------------------------------


@pytest.mark.parametrize("obj", [1, -5, slice(1, None, 2), slice(None, None, -2), np.array([0, 0, -1]),
                                 np.array([True, False, True, False, False]), np.zeros(0, np.int32)])
def test_delete_matches_jax(platform, obj):
    x = np.arange(10, dtype=np.float32).reshape(2, 5)
    for axis in (None, 1, -1):
        if axis is None and isinstance(obj, np.ndarray) and obj.dtype == bool:
            continue
        _same(jnp.delete(jnp.asarray(x), obj, axis=axis),
              _expected(lambda np_, v, **k: np_.delete(v, obj, **k), x, axis=axis))


def test_delete_unique_indices_under_jit(run):
    x = np.arange(10, dtype=np.int32).reshape(2, 5)
    for obj in (np.array([3, 0, -1], np.int32), np.array([3, 7], np.int32), np.zeros(0, np.int32),
                np.arange(5, dtype=np.int32)):
        _check(run, lambda np_, x, o, **k: np_.delete(x, o, **k), x, obj, axis=1, assume_unique_indices=True)


def test_insert_and_append_match_jax(run):
    def cases(np_, a, x, i, v):
        return (np_.insert(a, i, v),  # repeated, negative and out-of-bounds indices
                np_.insert(a, i[:2], np_.array([7.9, 8])), np_.insert(x, 1, v[:2], axis=1),
                np_.insert(x, np_.array([1]), v[:2, None], axis=1), np_.insert(x, 1, v[:3], axis=0),
                np_.insert(x, slice(0, 4, 2), np.float32(-1), axis=-1), np_.insert(x, 2, 9),
                np_.insert(np_.zeros(0), i[:2], 1.0), np_.insert(a, np_.zeros(0, np.int32), 2),
                np_.insert(np_.asarray(1.0)[None], 0, 2),  # weakly typed
                np_.append(x, v[:2]), np_.append(x, x, axis=0), np_.append(1, 2.0))

    _check(run, cases, np.arange(5, dtype=np.int32), np.arange(6, dtype=np.float32).reshape(2, 3),
           np.array([1, 1, 5, -1, 9, -9], np.int32), np.array([10, 11, 12, 13, 14, 15], np.int32))


# -- index arithmetic ------------------------------------------------------------------------


def test_diagonal_and_triangle_indices_match_jax(run):
    def cases(np_):
        return (np_.diag_indices(3, 3), np_.diag_indices(0), np_.diag_indices_from(np_.zeros((2, 2))),
                np_.triu_indices(3, 1, 4), np_.tril_indices(3, -1, 2), np_.tril_indices(3, 10),
                np_.triu_indices(4, -2, 3), np_.triu_indices(2, 5), np_.tril_indices(0),
                np_.triu_indices_from(np_.zeros((2, 3)), k=1), np_.tril_indices_from(np.zeros((3, 2)), k=-1))

    _check(run, cases)


def test_ravel_multi_index_and_unravel_index_match_jax(run):
    def cases(np_, i, j, f):
        return (np_.ravel_multi_index((i, j), (3, 4), mode="clip"),
                np_.ravel_multi_index((i, j), (3, 4), mode="wrap", order="F"),
                np_.ravel_multi_index((i, j), (3, 4), mode="ignore"),
                np_.ravel_multi_index((i[:, None], j), (3, 4), mode="clip", dtype="uint32"),
                np_.unravel_index(f, (3, 4)), np_.unravel_index(f, 5),
                np_.unravel_index(f.astype(np.uint32) % 50, (2, 3, 2)),
                np_.unravel_index(f.astype(np.float32) / 2, (3, 4)), np_.unravel_index(7, (3, 4)))

    def eager_only(np_, i, j, f):
        return np_.ravel_multi_index((i[:3], j[:3]), (3, 4)), np_.ravel_multi_index((1, 2), (3, 4))

    args = (np.array([0, 1, 2, -1, 3], np.int32), np.array([3, 0, 1, 5, 0], np.int32),
            np.array([0, 5, 11, 12, -1, -12, -13, 100], np.int32))
    _check(run, cases, *args)
    if run.mode == "eager":
        _check(run, eager_only, *args)


# -- errors ----------------------------------------------------------------------------------


BAD_CALLS = {
    "take raise": lambda np_: np_.take(np_.arange(3), np_.array([0]), mode="raise"),
    "take mode": lambda np_: np_.take(np_.arange(3), np_.array([0]), mode="promise_in_bounds"),
    "take float indices": lambda np_: np_.take(np_.arange(3), np_.array([0.0])),
    "take empty axis": lambda np_: np_.take(np_.zeros((0, 3)), np_.array([0]), axis=0),
    "take axis": lambda np_: np_.take(np_.arange(3), np_.array([0]), axis=1),
    "take out": lambda np_: np_.take(np_.arange(3), 0, out=np_.arange(1)),
    "take list": lambda np_: np_.take([1, 2], np_.array([0])),
    "take_along_axis float": lambda np_: np_.take_along_axis(np_.ones((2, 2)), np_.ones((2, 2)), 1),
    "take_along_axis None 2d": lambda np_: np_.take_along_axis(np_.ones((2, 2)), np_.zeros((1, 1), int), None),
    "take_along_axis rank": lambda np_: np_.take_along_axis(np_.ones((2, 2)), np_.zeros(2, int), 1),
    "take_along_axis shapes": lambda np_: np_.take_along_axis(np_.ones((2, 2)), np_.zeros((3, 1), int), 1),
    "put_along_axis inplace": lambda np_: np_.put_along_axis(np_.ones((2, 2)), np_.zeros((2, 1), int), 1.0, 1),
    "put_along_axis rank": lambda np_: np_.put_along_axis(np_.ones((2, 2)), np_.zeros(2, int), 1.0, 1,
                                                          inplace=False),
    "put_along_axis values": lambda np_: np_.put_along_axis(np_.ones((2, 3)), np_.zeros((2, 1), int),
                                                            np_.ones(3), 1, inplace=False),
    "nonzero 0d": lambda np_: np_.nonzero(np_.asarray(3)),
    "nonzero fill shape": lambda np_: np_.nonzero(np_.ones((2, 2)), size=5, fill_value=np_.ones(2)),
    "nonzero fill length": lambda np_: np_.nonzero(np_.ones((2, 2)), size=5, fill_value=(1,)),
    "nonzero size float": lambda np_: np_.nonzero(np_.ones(3), size=2.0),
    "where one of x, y": lambda np_: np_.where(np_.ones(2), np_.ones(2)),
    "compress 2d": lambda np_: np_.compress(np_.ones((2, 2)), np_.ones(4)),
    "compress extra": lambda np_: np_.compress(np_.array([1, 0, 1, 0, 1]), np_.arange(3)),
    "compress size": lambda np_: np_.compress(np_.array([1, 0, 1]), np_.arange(3), size=4),
    "compress out": lambda np_: np_.compress(np_.array([1]), np_.arange(3), out=np_.arange(1)),
    "select lengths": lambda np_: np_.select([np_.ones(2, bool)], [np_.ones(2), np_.ones(2)]),
    "select empty": lambda np_: np_.select([], []),
    "select shapes": lambda np_: np_.select([np_.ones(3, bool)], [np_.ones(2)]),
    "choose out of range": lambda np_: np_.choose(np_.array([0, 3]), [1, 2, 3]),
    "choose float": lambda np_: np_.choose(np_.array([0.0]), [1, 2]),
    "choose bool": lambda np_: np_.choose(np_.array([True]), [1, 2]),
    "choose mode": lambda np_: np_.choose(np_.array([0]), [1, 2], mode="x"),
    "choose no choices": lambda np_: np_.choose(np_.array([0]), []),
    "choose out": lambda np_: np_.choose(np_.array([0]), [1, 2], out=np_.ones(1)),
    "place inplace": lambda np_: np_.place(np_.ones(2), np_.ones(2, bool), np_.ones(1)),
    "place sizes": lambda np_: np_.place(np_.ones(2), np_.ones(3, bool), np_.ones(1), inplace=False),
    "place no values": lambda np_: np_.place(np_.ones(2), np_.ones(2, bool), np_.ones(0), inplace=False),
    "piecewise functions": lambda np_: np_.piecewise(np_.ones(2), [np_.ones(2, bool)], [1, 2, 3]),
    "fill_diagonal inplace": lambda np_: np_.fill_diagonal(np_.ones((2, 2)), 1.0),
    "fill_diagonal wrap": lambda np_: np_.fill_diagonal(np_.ones((2, 2)), 1.0, wrap=True, inplace=False),
    "fill_diagonal 1d": lambda np_: np_.fill_diagonal(np_.ones(2), 1.0, inplace=False),
    "fill_diagonal sides": lambda np_: np_.fill_diagonal(np_.ones((2, 2, 3)), 1.0, inplace=False),
    "delete int": lambda np_: np_.delete(np_.arange(5), 5),
    "delete axis": lambda np_: np_.delete(np_.ones((2, 2)), 0, axis=2),
    "delete index": lambda np_: np_.delete(np_.arange(5), np_.array([0, 7])),
    "delete mask": lambda np_: np_.delete(np_.arange(5), np_.array([True, False])),
    "delete float": lambda np_: np_.delete(np_.arange(5), np_.array([1.0])),
    "delete list": lambda np_: np_.delete(np_.arange(5), [1, 2]),
    "insert 2d index": lambda np_: np_.insert(np_.arange(5), np_.array([[1]]), 2),
    "insert float index": lambda np_: np_.insert(np_.arange(5), np_.array([1.0]), 2),
    "insert counts": lambda np_: np_.insert(np_.arange(5), np_.array([0, 2]), np_.array([7, 8, 9])),
    "insert list": lambda np_: np_.insert(np_.arange(5), 1, [7, 8]),
    "insert values rank": lambda np_: np_.insert(np_.arange(5), 1, np_.ones((2, 2))),
    "append shapes": lambda np_: np_.append(np_.ones((2, 3)), np_.ones(2), axis=0),
    "diag_indices n": lambda np_: np_.diag_indices(-1),
    "diag_indices ndim": lambda np_: np_.diag_indices(2, -1),
    "diag_indices float": lambda np_: np_.diag_indices(2.0),
    "diag_indices_from 1d": lambda np_: np_.diag_indices_from(np_.ones(2)),
    "diag_indices_from sides": lambda np_: np_.diag_indices_from(np_.ones((2, 3))),
    "tril_indices n": lambda np_: np_.tril_indices(-3),
    "triu_indices float": lambda np_: np_.triu_indices(3.0),
    "triu_indices_from 1d": lambda np_: np_.triu_indices_from(np_.ones(3)),
    "ravel_multi_index mode": lambda np_: np_.ravel_multi_index((np_.array([1]),), (3,), mode="x"),
    "ravel_multi_index order": lambda np_: np_.ravel_multi_index((np_.array([1]),), (3,), order="x"),
    "ravel_multi_index range": lambda np_: np_.ravel_multi_index((np_.array([0, 3]),), (3,)),
    "ravel_multi_index float": lambda np_: np_.ravel_multi_index((np_.array([1.0]),), (3,)),
    "ravel_multi_index dtype": lambda np_: np_.ravel_multi_index((1,), (3,), dtype="float32"),
    "ravel_multi_index big": lambda np_: np_.ravel_multi_index((1, 2), (2 ** 16, 2 ** 16)),
    "ravel_multi_index bool": lambda np_: np_.ravel_multi_index((np_.array([True]),), (3,), mode="clip"),
    "unravel_index shape": lambda np_: np_.unravel_index(7, ((3, 4),)),
}


@pytest.mark.parametrize("name", sorted(BAD_CALLS))
def test_bad_arguments_raise_as_jax(name):
    _raises_like_jax(BAD_CALLS[name])


def test_errors_jax_raises_by_accident_are_value_errors():
    # JAX: an AssertionError and a ZeroDivisionError; NumPy raises ValueError for the first
    with pytest.raises(ValueError, match="len"):
        jnp.ravel_multi_index((jnp.array([1]),), (3, 4))
    with pytest.raises(ValueError, match="empty"):
        jnp.fill_diagonal(jnp.zeros((2, 2)), jnp.zeros(0), inplace=False)


@pytest.mark.parametrize("call", [
    lambda x: jnp.nonzero(x), lambda x: jnp.flatnonzero(x), lambda x: jnp.argwhere(x),
    lambda x: jnp.where(x), lambda x: jnp.compress(x > 0, x), lambda x: jnp.extract(x > 0, x),
    lambda x: jnp.choose(x.astype(int), [x, x]), lambda x: jnp.delete(x, x.astype(int)),
    lambda x: jnp.ravel_multi_index((x.astype(int),), (3,)), lambda x: jnp.tril_indices(x[0].astype(int)),
    lambda x: jnp.diag_indices(x[0].astype(int))])
def test_traced_values_that_decide_shapes_raise_concretization_errors(call):
    with pytest.raises(ConcretizationTypeError):
        jaxwg.jit(call)(jnp.array([1.0, 0.0]))


# -- gradients and vmap ----------------------------------------------------------------------


GRAD_CASES = {
    "take": lambda np_, x: np_.take(x, np_.array([[0, 5], [5, -1]]), axis=1, mode="clip"),
    "take fill": lambda np_, x: np_.take(x, np_.array([0, 4, 11, 20])),
    "take_along_axis": lambda np_, x: np_.take_along_axis(x, np_.array([[0, 0], [2, 1], [3, 3]]), 1),
    "put_along_axis": lambda np_, x: np_.put_along_axis(x, np_.array([[0], [2], [3]]), x[:, :1] * 2, 1,
                                                        inplace=False),
    "nonzero": lambda np_, x: x[np_.nonzero(x > 0.5, size=4)],
    "compress": lambda np_, x: np_.compress(np_.array([True, False, True]), x, axis=0, size=2),
    "extract": lambda np_, x: np_.extract(x > 0, x, size=5, fill_value=1.0),
    "select": lambda np_, x: np_.select([x > 0.5, x < -0.5], [x * x, np_.sin(x)], -x),
    "choose": lambda np_, x: np_.choose(np_.array([[0, 1, 2, 1]]), [x, 2 * x, x * x], mode="clip"),
    "piecewise": lambda np_, x: np_.piecewise(x, [x < 0], [lambda v: v * v, lambda v: 3 * v]),
    "place": lambda np_, x: np_.place(x, x > 0, x[0], inplace=False),
    "fill_diagonal": lambda np_, x: np_.fill_diagonal(x, x[0, :3] * 3, inplace=False),
    "delete": lambda np_, x: np_.delete(x, np_.array([3, 0]), axis=1, assume_unique_indices=True),
    "insert": lambda np_, x: np_.insert(x, np_.array([1, 0, 4]), x[:, 1:2] * 5, axis=1),
    "append": lambda np_, x: np_.append(x, x[0] * 2),
}


@pytest.mark.parametrize("name", sorted(GRAD_CASES))
def test_gradients_match_jax(name):
    fn = GRAD_CASES[name]
    x = np.random.default_rng(4).standard_normal((3, 4)).astype(np.float32)
    shape = np.shape(_expected(fn, x))
    w = np.arange(1, np.prod(shape) + 1, dtype=np.float32).reshape(shape)  # a different weight each
    got = jaxwg.grad(lambda v: jnp.sum(fn(jnp, v) * w))(jnp.asarray(x))
    want = jax.jit(jax.grad(lambda v: (fn(jax_numpy, v) * w).sum()))(x)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6)


def test_vmap_matches_jax():
    x = np.random.default_rng(5).standard_normal((3, 5)).astype(np.float32)
    i = np.array([[0, 4], [2, -1], [9, 1]], np.int32)
    cases = [(lambda np_: lambda r, k: np_.take(r, k, mode="clip"), (x, i)),
             (lambda np_: lambda r: np_.compress(r > 0, r, size=2), (x,)),
             (lambda np_: lambda r, k: np_.insert(r, k, 7.0), (x, i)),
             (lambda np_: lambda r, k: np_.delete(r, k[:1], assume_unique_indices=True), (x, i))]
    for make, args in cases:
        _same(jaxwg.vmap(make(jnp))(*map(jnp.asarray, args)), jax.jit(jax.vmap(make(jax_numpy)))(*args))
