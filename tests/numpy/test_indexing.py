"""Basic indexing (`x[...]`) against NumPy, and against JAX where the two differ.

Every test runs on both platforms, eagerly and under `jit` (the `run` fixture); the
index is static (closed over), the array is the argument.
"""


import jax
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import jaxwg
import jaxwg.numpy as jnp

from .helpers import assert_array, jax_numpy

DTYPES = ["bool", "int32", "uint32", "float32", "float16"]


def call(run, fn, *args, **static):
    """`run(fn, *args, **static)`, read back."""
    out = run(fn, *args, **static)
    for leaf in out if isinstance(out, (list, tuple)) else (out,):
        np.asarray(leaf)
    return out


def put(a: np.ndarray):
    """`a` on the current platform."""
    return jnp.asarray(a)


def sample(shape, dtype, seed=0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    values = rng.integers(-50, 50, size=shape)
    if dtype == "bool":
        return values > 0
    if dtype == "uint32":
        return np.abs(values).astype(np.uint32)
    return values.astype(dtype)


@st.composite
def array_and_index(draw, max_dims=4):
    shape = draw(hnp.array_shapes(min_dims=0, max_dims=max_dims, min_side=0, max_side=5))
    dtype = draw(st.sampled_from(DTYPES))
    index = draw(hnp.basic_indices(shape, min_dims=0, allow_newaxis=True, allow_ellipsis=True))
    return sample(shape, dtype, draw(st.integers(0, 3))), index


@given(array_and_index())
def test_basic_indices_match_numpy(run, case):
    a, index = case
    out = call(run, lambda x: x[index], put(a))
    assert_array(out, a[index])


@given(array_and_index(max_dims=3), st.data())
def test_index_of_index_matches_numpy(run, case, data):
    """Indexing a view that is itself strided, flipped or transposed."""
    a, index = case
    b = a[index].T
    second = data.draw(hnp.basic_indices(b.shape, allow_newaxis=True, allow_ellipsis=True))
    out = call(run, lambda x: x[index].T[second], put(a))
    assert_array(out, b[second])


@pytest.mark.parametrize("index", [
    (slice(None, None, -1),), (slice(-1, -5, -1),), (slice(5, -10, -1),), (slice(None, 0, -2),),
    (slice(-100, 100, 3),), (slice(1, None, 2), slice(None, None, -3)),
    (Ellipsis, slice(None, None, -2)), (1, None, slice(None, None, -2)), (None, Ellipsis, None),
    (Ellipsis, 1, 2), (1, Ellipsis, 2), (1, 2, Ellipsis), (), Ellipsis, (-1, -1, -1),
])
def test_listed_indices_match_numpy(run, index):
    a = sample((3, 4, 5), "float32")
    assert_array(run(lambda x: x[index], put(a)), a[index])


@pytest.mark.parametrize("index", [
    (slice(1, 1),), (slice(10, 20),), (slice(None), slice(None), slice(100, None)),
    (slice(3, 0),), (slice(0, 3, -1),), (False,), (Ellipsis, False), (1, False, slice(None)),
])
def test_empty_results(run, index):
    a = sample((2, 3, 4), "int32")
    assert_array(run(lambda x: x[index], put(a)), a[index])


def test_index_into_empty_array(run):
    a = np.zeros((0, 3), np.float32)
    assert_array(run(lambda x: x[:, 1:][::-1], put(a)), a[:, 1:][::-1])


@pytest.mark.parametrize("index", [
    True, (True,), (0, True), (True, 0), (slice(None), True), (None, True), (True, None),
    (0, slice(None), True), (True, Ellipsis, 0), (0, Ellipsis, True), (np.bool_(True), 1),
    (True, True), (1, None, True), (Ellipsis, True),
])
def test_scalar_bool_index_matches_numpy(run, index):
    """A scalar boolean is an axis of size 1 (True); with it, integers are advanced indices
    and their axis goes where the first of them is when they are adjacent, else in front."""
    a = sample((2, 3, 4), "int32")
    assert_array(run(lambda x: x[index], put(a)), a[index])


def test_bool_array_scalar_index(run):
    a = sample((2, 3), "float32")
    index = jnp.asarray(True)
    out = run(lambda x: x[index], put(a))
    assert_array(out, a[np.asarray(True)])


@pytest.mark.parametrize("index,expected", [
    (5, 2), (-4, 0), (-100, 0), ((1, 7), (1, 3)), ((-9, 0), (0, 0)), ((2, -9), (1, 0)),
    ((slice(None), 9), (slice(None), 3)),
])
def test_out_of_bounds_integers_clamp_like_jax(run, index, expected):
    a = sample((2, 4), "int32") if isinstance(index, tuple) else np.arange(3, dtype=np.int32)
    out = run(lambda x: x[index], put(a))
    assert_array(out, a[expected])
    np.testing.assert_array_equal(np.asarray(jax_numpy.asarray(a)[index]), np.asarray(out))


@pytest.mark.parametrize("index", [
    np.int64(1), np.int32(-1), np.uint32(2), np.array(1), np.array(-2, np.int64), np.intp(0),
])
def test_numpy_integer_scalars(run, index):
    a = sample((3, 4), "float32")
    assert_array(run(lambda x: x[index, ::index or 1], put(a)), a[index, ::index or 1])


def test_concrete_jaxwg_scalars_as_indices(platform):
    a = sample((3, 4), "int32")
    x = put(a)
    i = jnp.asarray(2)
    assert_array(x[i], a[2])
    assert_array(x[i:], a[2:])
    assert_array(x[:, ::i], a[:, ::2])


@pytest.mark.parametrize("dtype", DTYPES)
def test_dtypes_and_non_contiguous_views(run, dtype):
    a = sample((4, 5, 3), dtype)
    fn = lambda x: x.transpose(2, 0, 1)[::-1, 1:, ::2][..., None, 0]
    assert_array(run(fn, put(a)), a.transpose(2, 0, 1)[::-1, 1:, ::2][..., None, 0])


def test_zero_dimensional(run):
    for index in [(), Ellipsis, None, (None, None), (Ellipsis, None), True]:
        a = np.array(3.5, np.float32)
        assert_array(run(lambda x, index=index: x[index], put(a)), a[index])


def test_weak_type_is_kept(run):
    out = run(lambda x: (x * 2.0)[None, ..., ::-1], jnp.asarray(np.ones(3, np.float32)))
    assert_array(out, np.full((1, 3), 2.0, np.float32), weak_type=False)
    assert jnp.asarray(2.0)[None].weak_type


@pytest.mark.parametrize("index", [(slice(1, None), slice(None, None, -2), 0), (1,), (slice(None),), (1, 2)],
                         ids=str)
def test_index_is_views_only_as_jaxs_jaxpr(index):
    """Basic indexing binds slice, rev and squeeze, as JAX's jaxprs show it (no gather)."""
    def primitives(make_jaxpr, np_module):
        closed = make_jaxpr(lambda x: x[index])(np_module.ones((3, 4, 5)))
        return [str(e.primitive) for e in closed.jaxpr.eqns]

    ours = primitives(jaxwg.make_jaxpr, jnp)
    assert ours == primitives(jax.make_jaxpr, jax_numpy)
    assert set(ours) <= {"slice", "rev", "squeeze"}


@pytest.mark.parametrize("shape, index", [
    ((0,), np.zeros(0, bool)), ((0, 3), np.zeros(0, bool)), ((2, 0), np.zeros((2, 0), bool)),
    ((3, 2), np.zeros(3, bool)), ((0, 3), np.array([], np.int32)),
    ((2, 0, 4), (slice(None), np.array([], np.int32)))], ids=str)
def test_empty_masks_and_index_arrays_give_empty_results(platform, shape, index):
    """Nothing to gather (an empty or all-false mask, an empty index array, a zero-size
    axis): NumPy's empty result, without a gather (whose slices could not fit)."""
    x = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    ours = jnp.asarray(x)[index if not isinstance(index, np.ndarray) else jnp.asarray(index)]
    assert_array(ours, x[index])


# -- errors, with the exception types JAX raises --------------------------------------------


def _jax_raises(index, shape=(2, 3)):
    with pytest.raises(Exception) as info:
        jax_numpy.zeros(shape)[index]
    return info.type


@pytest.mark.parametrize("index,error", [
    ((0, 0, 0), IndexError), ((Ellipsis, Ellipsis), IndexError), (1.0, TypeError),
    ((0, 1.5), TypeError), ("a", TypeError), ([0, 1], TypeError),
    (slice(None, None, 0), ValueError), (slice(0.5, None), TypeError),
])
def test_bad_indices_raise_like_jax(platform, index, error):
    with pytest.raises(error):
        jnp.zeros((2, 3))[index]
    assert issubclass(_jax_raises(index), error)


def test_integer_index_into_empty_axis_raises(platform):
    with pytest.raises(IndexError):
        jnp.zeros((0, 3))[0]
    with pytest.raises(IndexError):
        jnp.zeros((2, 0))[:, -1]
    assert issubclass(_jax_raises((slice(None), -1), (2, 0)), IndexError)


def test_zero_dimensional_integer_index_raises(platform):
    with pytest.raises(IndexError, match="Too many indices"):
        jnp.asarray(1.0)[0]



class Traced:
    """An integer the index takes as a traced scalar."""

    def __init__(self, value):
        self.value = value


@st.composite
def traced_scalar_indices(draw):
    """A shape, an index dtype and an index of integers (`Traced` ones among them; any
    in range or out of it), slices of steps 1 and -1, `None` and `...`: what JAX reads
    as one `dynamic_slice`."""
    shape = draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=5))
    dtype = draw(st.sampled_from(["int32", "int16", "uint8"]))
    kinds = draw(st.lists(st.sampled_from(["traced", "int", "slice", "none"]), min_size=1,
                          max_size=len(shape)).filter(lambda kinds: "traced" in kinds))
    items, axis = [], 0
    for kind in kinds:
        n = shape[min(axis, len(shape) - 1)]
        if kind == "none":
            items.append(None)
            continue
        if kind == "slice":
            bound = st.integers(-n, n) | st.none()
            items.append(slice(draw(bound), draw(bound), draw(st.sampled_from([None, 1, -1]))))
        else:  # clamped where out of range, as JAX; unsigned ones are never negative
            value = draw(st.integers(-2 * n if dtype != "uint8" else 0, 2 * n))
            items.append(Traced(value) if kind == "traced" else value)
        axis += 1
    if axis < len(shape) and draw(st.booleans()):
        items.insert(draw(st.integers(0, len(items))), Ellipsis)
    return shape, tuple(items), dtype


@given(traced_scalar_indices())
def test_traced_scalar_indices_match_jax(platform, case):
    """Integers among slices of unit steps: JAX's `dynamic_slice` (clamped starts,
    negative ones counted from the end), then a flip, a squeeze and new axes."""
    shape, items, dtype = case
    a = sample(shape, "float32")
    values = [np.asarray(item.value).astype(dtype) for item in items if isinstance(item, Traced)]

    def f(x, *values):
        given = iter(values)
        return x[tuple(next(given) if isinstance(item, Traced) else item for item in items)]

    got = jaxwg.jit(f)(put(a), *[jnp.asarray(v) for v in values])
    assert_array(got, np.asarray(jax.jit(f)(a, *values)))
