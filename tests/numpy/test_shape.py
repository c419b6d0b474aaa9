"""Shape functions of `jaxwg.numpy` against NumPy (values, shapes) and JAX (dtypes of mixed
operands, exception types), on both platforms, eagerly and under `jit`.

Array operands are arguments of the function under test (traced under jit); axes, widths,
repeats and the like are static.
"""

import math
import warnings

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import jaxwg
import jaxwg.numpy as jnp
from jaxwg import lax
from jaxwg.errors import ConcretizationTypeError

from .helpers import assert_array, jax, jax_dtype, jax_numpy
from .test_indexing import DTYPES, call, put, sample

dtypes = st.sampled_from(DTYPES)


def shapes(min_dims=0, max_dims=3, max_side=4):
    return hnp.array_shapes(min_dims=min_dims, max_dims=max_dims, min_side=0, max_side=max_side)


def axes_of(nd):
    return st.integers(-nd, nd - 1)


def assert_arrays(out, expected):
    assert isinstance(out, list) and len(out) == len(expected), (type(out), len(out))
    for o, e in zip(out, expected):
        assert_array(o, e)


# -- axes --------------------------------------------------------------------------------------


@given(shapes(min_dims=1, max_dims=4), dtypes, st.data())
def test_moveaxis_and_swapaxes_match_numpy(run, shape, dtype, data):
    nd = len(shape)
    k = data.draw(st.integers(1, nd))
    src = data.draw(st.lists(st.integers(0, nd - 1), min_size=k, max_size=k, unique=True))
    dst = data.draw(st.lists(st.integers(0, nd - 1), min_size=k, max_size=k, unique=True))
    src = [s - nd if data.draw(st.booleans()) else s for s in src]
    if k == 1 and data.draw(st.booleans()):
        src, dst = src[0], dst[0]
    i, j = data.draw(axes_of(nd)), data.draw(axes_of(nd))
    a = sample(shape, dtype)
    out = call(run, lambda x: (jnp.moveaxis(x, src, dst), jnp.swapaxes(x, i, j)), put(a))
    assert_array(out[0], np.moveaxis(a, src, dst))
    assert_array(out[1], np.swapaxes(a, i, j))


@given(shapes(min_dims=0, max_dims=4), dtypes, st.data())
def test_flip_matches_numpy(run, shape, dtype, data):
    nd = len(shape)
    axis = data.draw(st.none() | (axes_of(nd) if nd else st.none())
                     | st.lists(st.integers(0, max(nd - 1, 0)), max_size=nd, unique=True)
                     .map(tuple))
    a = sample(shape, dtype)
    assert_array(call(run, lambda x: jnp.flip(x, axis), put(a)), np.flip(a, axis))


@given(shapes(min_dims=2, max_dims=4), st.integers(-5, 5), st.data())
def test_rot90_fliplr_flipud_match_numpy(run, shape, k, data):
    nd = len(shape)
    ax1 = data.draw(axes_of(nd))
    ax2 = data.draw(axes_of(nd).filter(lambda b: b % nd != ax1 % nd))
    a = sample(shape, "float32")
    out = call(run, lambda x: (jnp.rot90(x, k, (ax1, ax2)), jnp.fliplr(x), jnp.flipud(x)), put(a))
    assert_array(out[0], np.rot90(a, k, (ax1, ax2)))
    assert_array(out[1], np.fliplr(a))
    assert_array(out[2], np.flipud(a))


@pytest.mark.parametrize("n", [1, 2, 3])
def test_atleast_nd_match_numpy(run, n):
    ours = getattr(jnp, f"atleast_{n}d")
    theirs = getattr(np, f"atleast_{n}d")
    arrays = [sample(s, "int32") for s in [(), (3,), (2, 3), (2, 1, 3), (1, 2, 1, 2)]]
    for a in arrays:
        assert_array(run(ours, put(a)), theirs(a))
    out = run(lambda *xs: ours(*xs), *[put(a) for a in arrays])
    assert_arrays(out, theirs(*arrays))
    assert ours(2.0).weak_type and ours(2.0).shape == (1,) * n
    assert ours() == []


# -- joining -----------------------------------------------------------------------------------


@st.composite
def concat_operands(draw, min_dims=1):
    shape = list(draw(shapes(min_dims=min_dims, max_dims=3)))
    nd = len(shape)
    axis = draw(axes_of(nd))
    count = draw(st.integers(1, 4))
    arrays = []
    for k in range(count):
        shape[axis] = draw(st.integers(0, 3))
        arrays.append(sample(tuple(shape), draw(dtypes), seed=k))
    return arrays, axis


def _jax_dtype(fn, arrays, **kw):
    return jax_dtype(fn, [jax_numpy.asarray(a) for a in arrays], **kw)


@given(concat_operands(), st.booleans())
def test_concatenate_matches_numpy_with_jax_promotion(run, case, flat):
    arrays, axis = case
    axis = None if flat else axis
    out = call(run, lambda *xs: jnp.concatenate(xs, axis), *[put(a) for a in arrays])
    dtype = _jax_dtype(jax_numpy.concatenate, arrays, axis=axis)
    assert_array(out, np.concatenate(arrays, axis), dtype=dtype)


def test_concatenate_dtype_argument_and_weak_types(run):
    a, b = sample((2, 3), "int32"), sample((1, 3), "bool")
    out = run(lambda x, y: jnp.concatenate([x, y], dtype="float32"), put(a), put(b))
    assert_array(out, np.concatenate([a, b]).astype(np.float32), weak_type=False)
    out = run(lambda x, y: jnp.concat([x, y], axis=None), jnp.asarray(2.0)[None], put(a))
    assert_array(out, np.concatenate([[2.0], a.ravel()]).astype(np.float32))
    assert jnp.concatenate([jnp.asarray(2.0)[None], jnp.asarray(3.0)[None]]).weak_type


def test_concatenate_non_contiguous_operands(run):
    a = sample((4, 6), "float32")
    fn = lambda x: jnp.concatenate([x.T[::2], x[::-1, 1::2].T, x.T[1::2]], axis=1)
    assert_array(run(fn, put(a)), np.concatenate([a.T[::2], a[::-1, 1::2].T, a.T[1::2]], axis=1))


def test_concatenate_empty_pieces(run):
    out = run(lambda x: jnp.concatenate([x, x[:, ::-1]], axis=1), put(np.zeros((2, 0), np.int32)))
    assert_array(out, np.zeros((2, 0), np.int32))


def test_concatenate_many_operands(run):
    arrays = [sample((2, k % 3 + 1), "int32", seed=k) for k in range(20)]
    out = run(lambda *xs: jnp.concatenate(xs, axis=-1), *[put(a) for a in arrays])
    assert_array(out, np.concatenate(arrays, axis=-1))


BLOCK_CASES = {
    "2x2": (lambda a, b, c: [[a, b], [c]], [(2, 2), (2, 1), (1, 3)]),
    "flat": (lambda a, b, c: [a, b, c], [(3,), (2,), ()]),
    "promoted": (lambda a, b, c: [[a], [b, c]], [(2,), (), ()]),
    "deep": (lambda a, b, c: [[[a, b]], [[c]]], [(1, 2, 1), (1, 2, 2), (2, 3)]),
}


@pytest.mark.parametrize("case", sorted(BLOCK_CASES))
def test_block_matches_jax(run, case):
    nest, shapes_ = BLOCK_CASES[case]
    arrays = [sample(s, d, seed=k) for k, (s, d) in enumerate(zip(shapes_, ["float32", "int32", "int8"]))]
    want = jax_numpy.block(nest(*[jax_numpy.asarray(a) for a in arrays]))
    out = run(lambda *xs: jnp.block(nest(*xs)), *[put(a) for a in arrays])
    assert_array(out, np.asarray(want), dtype=want.dtype)


def test_block_of_python_scalars_and_errors():
    for arg in (1, [1, 2.0], [[1], [2]]):
        want = jax_numpy.block(arg)
        assert_array(jnp.block(arg), np.asarray(want), dtype=want.dtype, weak_type=want.weak_type)
    for bad in ([[1, 2], 3], ([1, 2],), [[]], []):
        with pytest.raises(ValueError):
            jax_numpy.block(bad)
        with pytest.raises(ValueError):
            jnp.block(bad)


@pytest.mark.parametrize("shape", [(2, 3), (3,), (2, 1, 2)])
def test_concatenate_and_stack_of_one_array(run, shape):
    """An array operand is the sequence of its rows."""
    a = sample((3,) + shape, "float32")
    for axis in [0, -1, None]:
        assert_array(run(lambda x, axis=axis: jnp.concatenate(x, axis), put(a)),
                     np.concatenate(a, axis))
    for axis in [0, -1, 1]:
        assert_array(run(lambda x, axis=axis: jnp.stack(x, axis), put(a)), np.stack(a, axis))


@given(shapes(min_dims=0, max_dims=3), dtypes, st.integers(1, 3), st.data())
def test_stack_matches_numpy(run, shape, dtype, count, data):
    axis = data.draw(axes_of(len(shape) + 1))
    arrays = [sample(shape, dtype, seed=k) for k in range(count)]
    out = call(run, lambda *xs: jnp.stack(xs, axis), *[put(a) for a in arrays])
    assert_array(out, np.stack(arrays, axis))


@pytest.mark.parametrize("name", ["hstack", "vstack", "dstack", "column_stack"])
@pytest.mark.parametrize("shape", [(), (3,), (2, 3), (2, 3, 2)])
def test_hstack_vstack_dstack_column_stack_match_numpy(run, name, shape):
    ours, theirs = getattr(jnp, name), getattr(np, name)
    arrays = [sample(shape, "int32", seed=k) for k in range(3)]
    assert_array(run(lambda *xs: ours(xs), *[put(a) for a in arrays]), theirs(arrays))
    stacked = np.stack(arrays)
    assert_array(run(ours, put(stacked)), theirs(stacked))  # an array: its rows


def test_hstack_dtype(run):
    out = run(lambda x: jnp.hstack([x, x], dtype="float32"), put(sample((2,), "int32")))
    assert out.dtype == np.float32


# -- splitting ---------------------------------------------------------------------------------


@st.composite
def split_cases(draw):
    shape = draw(shapes(min_dims=1, max_dims=3, max_side=6))
    axis = draw(axes_of(len(shape)))
    n = shape[axis]
    if draw(st.booleans()):
        divisors = [d for d in range(1, n + 1) if n % d == 0] or [1, 2, 3]
        return shape, axis, draw(st.sampled_from(divisors)), True
    indices = draw(st.lists(st.integers(-n - 2, n + 2), max_size=4))
    if draw(st.booleans()):
        indices = sorted(indices)
    return shape, axis, indices, False


@given(split_cases(), dtypes)
def test_split_and_array_split_match_numpy(run, case, dtype):
    shape, axis, sections, equal = case
    a = sample(shape, dtype)
    out = call(run, lambda x: jnp.split(x, sections, axis), put(a))
    assert_arrays(out, np.split(a, sections, axis))
    if equal:
        for count in (sections, sections + 1, 4):
            out = call(run, lambda x, c=count: jnp.array_split(x, c, axis), put(a))
            assert_arrays(out, np.array_split(a, count, axis))


def test_split_with_array_indices(run):
    a = sample((7, 2), "float32")
    out = run(lambda x: jnp.split(x, np.array([2, 5])), put(a))
    assert_arrays(out, np.split(a, [2, 5]))
    out = run(lambda x: jnp.array_split(x, jnp.asarray([1, 3]), axis=0), put(a))
    assert_arrays(out, np.array_split(a, [1, 3]))


def test_split_errors(platform, monkeypatch):
    with pytest.raises(ValueError, match="equal division"):
        jnp.split(jnp.zeros(5), 2)
    with pytest.raises(ValueError):
        jax_numpy.split(jax_numpy.zeros(5), 2)
    with pytest.raises(ValueError, match="larger than 0"):
        jnp.array_split(jnp.zeros(5), 0)
    with pytest.raises(TypeError):
        jnp.split(jnp.zeros(5), 2.0)
    with pytest.raises(ConcretizationTypeError):
        jaxwg.jit(lambda x, i: jnp.split(x, [i]))(jnp.zeros(5), 2)
    # 2**31 sections of an empty axis would be 2**31 empty arrays (NumPy and JAX run out
    # of memory building them; the fuzz test drew it): refused, while many is fine
    from jaxwg.numpy import joining
    monkeypatch.setattr(joining, "MAX_EMPTY_PIECES", 50)  # the bound, at a size that runs fast
    for fn in (jnp.split, jnp.array_split):
        with pytest.raises(ValueError, match="2147483648 empty arrays"):
            fn(jnp.zeros((0, 2)), 2**31)
        with pytest.raises(ValueError, match="51 empty arrays"):
            fn(jnp.zeros((0, 2)), 51)
        pieces = fn(jnp.zeros((0, 2)), joining.MAX_EMPTY_PIECES)
        assert len(pieces) == joining.MAX_EMPTY_PIECES and pieces[-1].shape == (0, 2)
    assert len(jnp.array_split(jnp.zeros(3), joining.MAX_EMPTY_PIECES + 3)) == joining.MAX_EMPTY_PIECES + 3



@given(st.lists(st.integers(0, 4), min_size=1, max_size=4), st.integers(0, 1))
def test_lax_split_matches_numpy(run, sizes, axis):
    shape = [3, 3]
    shape[axis] = sum(sizes)
    a = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
    out = call(run, lambda x: lax.split(x, sizes, axis), put(a))
    assert_arrays(out, np.split(a, np.cumsum(sizes)[:-1], axis))


def test_lax_split_errors_match_jax(platform):
    for sizes, axis in [((1, 2), 0), ((1, 3), 1), ((-1, 5), 0), ((4,), -2)]:
        with pytest.raises(ValueError) as ours:
            lax.split(jnp.ones(4), sizes, axis)
        with pytest.raises(ValueError) as theirs:
            jax.lax.split(jax_numpy.ones(4), sizes, axis)
        assert str(ours.value) == str(theirs.value)


# -- padding -----------------------------------------------------------------------------------

PAD_MODES = ["constant", "edge", "reflect", "symmetric", "wrap"]


@st.composite
def pad_cases(draw):
    shape = draw(shapes(min_dims=1, max_dims=3, max_side=4))
    nd = len(shape)
    width = st.integers(0, 6)
    form = draw(st.sampled_from(["int", "1", "pair", "1pair", "each"]))
    pad_width = {
        "int": lambda: draw(width),
        "1": lambda: (draw(width),),
        "pair": lambda: (draw(width), draw(width)),
        "1pair": lambda: ((draw(width), draw(width)),),
        "each": lambda: [(draw(width), draw(width)) for _ in range(nd)],
    }[form]()
    mode = draw(st.sampled_from(PAD_MODES))
    kwargs = {}
    if mode == "constant" and draw(st.booleans()):
        kwargs["constant_values"] = draw(st.sampled_from(
            [7, -3, 2.5, (1, 2), ((4, 5),), [(k, -k) for k in range(nd)]]))
    if mode in ("reflect", "symmetric"):
        kwargs["reflect_type"] = draw(st.sampled_from(["even", "odd"]))
    return shape, pad_width, mode, kwargs


@given(pad_cases(), dtypes)
def test_pad_matches_numpy(run, case, dtype):
    shape, pad_width, mode, kwargs = case
    if kwargs.get("reflect_type") == "odd":
        assume(dtype not in ("bool", "uint32"))  # 2 * edge - x: arithmetic
    a = sample(shape, dtype)
    np_kwargs = dict(kwargs)
    if "constant_values" in kwargs:  # converted to the array's dtype as JAX does (wrapping)
        np_kwargs["constant_values"] = np.asarray(kwargs["constant_values"]).astype(dtype)
    # Odd reflections of float16 (2 * edge - x, reflected again for wide pads) grow past
    # float16's exact integers; NumPy and JAX round after every pass (and disagree, by up
    # to 56 at 2000), jaxwg computes exactly and rounds once: the reference is NumPy's in
    # float64, rounded once.
    exact = dtype == "float16" and kwargs.get("reflect_type") == "odd"
    try:
        expected = np.pad(a.astype(np.float64) if exact else a, pad_width, mode, **np_kwargs).astype(a.dtype)
    except ValueError:  # padding an empty axis by copying from it
        with pytest.raises(ValueError, match="empty axis"):
            jnp.pad(put(a), pad_width, mode, **kwargs)
        return
    out = call(run, lambda x: jnp.pad(x, pad_width, mode, **kwargs), put(a))
    assert_array(out, expected)


@pytest.mark.parametrize("shape, pad_width", [((3, 2, 4), [(0, 2), (5, 0), (2, 0)]), ((2, 2, 3), 4),
                                              ((2, 2, 3), 6)])
def test_pad_odd_reflections_of_float16_round_once(run, shape, pad_width):
    """Reflections of a 2-long axis: the values reach past float16's exact integers, and
    each is the exact value rounded once (NumPy's float16 arithmetic, which rounds after
    every pass, gives 1024 where the exact value rounds to 1029)."""
    a = sample(shape, "float16")
    out = call(run, lambda x: jnp.pad(x, pad_width, "reflect", reflect_type="odd"), put(a))
    exact = np.pad(a.astype(np.float64), pad_width, "reflect", reflect_type="odd")
    np.testing.assert_array_equal(np.asarray(out), exact.astype(np.float16))


def test_pad_traced_constant_values(run):
    a = sample((2, 3), "float32")
    out = run(lambda x, c: jnp.pad(x, ((1, 0), (2, 1)), constant_values=c), put(a),
              jnp.asarray(np.float32(-1.5)))
    assert_array(out, np.pad(a, ((1, 0), (2, 1)), constant_values=-1.5))
    out = run(lambda x, c: jnp.pad(x, 1, constant_values=c), put(a), put(np.array([[1, 2], [3, 4]],
                                                                                  np.float32)))
    assert_array(out, np.pad(a, 1, constant_values=[[1, 2], [3, 4]]))


def test_pad_constant_values_take_the_array_dtype(run):
    a = sample((3,), "int32")
    out = run(lambda x: jnp.pad(x, 1, constant_values=2.7), put(a))
    assert_array(out, np.pad(a, 1, constant_values=2))
    out = run(lambda x: jnp.pad(x, 1, mode="empty"), put(a))
    assert_array(out, np.pad(a, 1))
    assert jnp.pad(jnp.asarray(1.0)[None], 1).weak_type


def test_pad_non_contiguous_and_zero_dimensional(run):
    a = sample((4, 5), "float32")
    fn = lambda x: jnp.pad(x.T[::-2], ((2, 3), (4, 1)), mode="reflect")
    assert_array(run(fn, put(a)), np.pad(a.T[::-2], ((2, 3), (4, 1)), mode="reflect"))
    assert_array(run(lambda x: jnp.pad(x, 3), put(np.float32(2.0))), np.float32(2.0))


def test_pad_is_views_and_joins_only():
    for mode in PAD_MODES:
        jaxpr = jaxwg.make_jaxpr(lambda x, mode=mode: jnp.pad(x, 2, mode))(jnp.ones((3, 4)))
        (call,) = jaxpr.jaxpr.eqns  # one `jit` equation, as JAX's `_pad`
        eqns = call.params["jaxpr"].jaxpr.eqns
        names = {str(e.primitive) for e in eqns}
        assert names <= {"pad", "slice", "rev", "concatenate", "broadcast_in_dim", "reshape",
                         "convert_element_type"}, (mode, names)
        # the only cast is the fill value's (`constant_values`, an argument of the call)
        assert all(e.out_binders[0].aval.shape == () for e in eqns
                   if str(e.primitive) == "convert_element_type"), mode


@pytest.mark.parametrize("kwargs,error", [
    ({"pad_width": -1}, ValueError), ({"pad_width": 1.5}, TypeError),
    ({"pad_width": ((1, 2, 3),)}, ValueError), ({"pad_width": 1, "mode": "nope"}, NotImplementedError),
    ({"pad_width": 1, "mode": "edge", "constant_values": 3}, ValueError),
    ({"pad_width": 1, "constant_values": (1, 2, 3)}, ValueError),
])
def test_pad_errors_like_jax(platform, kwargs, error):
    with pytest.raises(error):
        jnp.pad(jnp.zeros((2, 3)), **kwargs)
    with pytest.raises(error):
        jax_numpy.pad(jax_numpy.zeros((2, 3)), **kwargs)


# -- repetition --------------------------------------------------------------------------------


@given(shapes(min_dims=0, max_dims=3), st.lists(st.integers(0, 3), max_size=4), dtypes)
def test_tile_matches_numpy(run, shape, reps, dtype):
    a = sample(shape, dtype)
    reps = reps[0] if len(reps) == 1 else tuple(reps)
    assert_array(call(run, lambda x: jnp.tile(x, reps), put(a)), np.tile(a, reps))


@given(shapes(min_dims=0, max_dims=3), dtypes, st.data())
def test_repeat_matches_numpy(run, shape, dtype, data):
    nd = len(shape)
    axis = data.draw(st.none() | axes_of(nd)) if nd else None
    n = math.prod(shape) if axis is None else shape[axis]
    repeats = data.draw(st.integers(0, 3) | st.lists(st.integers(0, 3), min_size=n, max_size=n)
                        | st.just([2]))
    repeats = np.asarray(repeats, np.int32)  # JAX takes no list of repeats
    a = sample(shape, dtype)
    assert_array(call(run, lambda x: jnp.repeat(x, repeats, axis), put(a)),
                 np.repeat(a, repeats, axis))


@pytest.mark.parametrize("repeats", [2, [1, 0, 3], [0, 0, 0]])
@pytest.mark.parametrize("total", [0, 2, 4, 9])
def test_repeat_total_repeat_length_like_jax(run, repeats, total):
    a = sample((3, 2), "float32")
    out = run(lambda x: jnp.repeat(x, np.asarray(repeats), 0, total_repeat_length=total), put(a))
    assert_array(out, np.asarray(jax_numpy.repeat(a, np.asarray(repeats), 0,
                                                  total_repeat_length=total)))


def test_repeat_non_contiguous_and_concrete_array_repeats(run):
    a = sample((3, 4), "int32")
    fn = lambda x: jnp.repeat(x.T[::-1], jnp.asarray([1, 2, 0]), axis=1)
    assert_array(run(fn, put(a)), np.repeat(a.T[::-1], [1, 2, 0], axis=1))
    assert_array(run(lambda x: jnp.repeat(x, 3, axis=0), put(np.float32(1.5))),
                 np.repeat(np.float32(1.5), 3))


def test_repeat_errors(platform):
    x = jnp.zeros((2, 3))
    with pytest.raises(ValueError):
        jnp.repeat(x, -1)
    with pytest.raises(TypeError):
        jnp.repeat(x, 2.0)
    with pytest.raises(ValueError):
        jnp.repeat(x, np.array([1, 2, 3]), axis=0)
    with pytest.raises(ConcretizationTypeError, match="static"):
        jaxwg.jit(lambda x, r: jnp.repeat(x, r, axis=0))(x, jnp.asarray([1, 2]))
    with pytest.raises(ValueError):
        jnp.tile(x, -1)


# -- empty arrays ------------------------------------------------------------------------------


def test_empty_arrays(run):
    e = np.zeros((0, 3), np.float32)
    a = sample((2, 3), "float32")
    checks = [
        (lambda x, y: jnp.concatenate([x, y, x]), np.concatenate([e, a, e])),
        (lambda x, y: jnp.stack([x, x], axis=1), np.stack([e, e], axis=1)),
        (lambda x, y: jnp.pad(x, ((0, 0), (1, 2)), constant_values=1), np.pad(e, ((0, 0), (1, 2)),
                                                                           constant_values=1)),
        (lambda x, y: jnp.flip(jnp.tile(y, (0, 2))), np.flip(np.tile(a, (0, 2)))),
        (lambda x, y: jnp.repeat(y, 0, axis=1), np.repeat(a, 0, axis=1)),
        (lambda x, y: jnp.moveaxis(x, 0, 1)[::-1], np.moveaxis(e, 0, 1)[::-1]),
        (lambda x, y: jnp.split(y, [1, 1], axis=0)[1], np.split(a, [1, 1], axis=0)[1]),
    ]
    for fn, expected in checks:
        assert_array(run(fn, put(e), put(a)), expected)


# -- chains of movement ops --------------------------------------------------------------------


def _reshape_op(draw, shape):
    """Merge two neighbouring axes, or split one into two factors."""
    if len(shape) >= 2 and draw(st.booleans()):
        k = draw(st.integers(0, len(shape) - 2))
        return shape[:k] + (shape[k] * shape[k + 1],) + shape[k + 2:]
    k = draw(st.integers(0, len(shape) - 1)) if shape else 0
    n = shape[k] if shape else 1
    d = draw(st.sampled_from([d for d in range(1, n + 1) if n % d == 0] or [1]))
    return shape[:k] + (d, n // d) + shape[k + 1:]


@st.composite
def movement_chains(draw):
    """(start shape, [(name, numpy fn, jaxwg fn)]): a random chain of movement ops."""
    shape = start = draw(shapes(min_dims=1, max_dims=3, max_side=5))
    ops = []
    for _ in range(draw(st.integers(1, 6))):
        nd = len(shape)
        kinds = ["transpose", "slice", "reshape", "flip", "pad", "expand", "moveaxis"]
        if math.prod(shape) <= 60:
            kinds += ["concat", "tile", "repeat", "edge"]
        if nd >= 2:
            kinds.append("rot90")
        if 1 in shape:
            kinds.append("squeeze")
        if nd == 0:
            kinds = ["expand", "reshape", "flip", "tile"]
        kind = draw(st.sampled_from(kinds))
        if kind == "transpose":
            perm = tuple(draw(st.permutations(range(nd))))
            op = ("transpose", lambda m, p=perm: m.transpose(p),
                  lambda m, p=perm: jnp.transpose(m, p))
        elif kind == "slice":
            index = tuple(draw(st.slices(n)) for n in shape)
            op = ("slice", lambda m, i=index: m[i], lambda m, i=index: m[i])
        elif kind == "reshape":
            new = _reshape_op(draw, shape)
            op = ("reshape", lambda m, s=new: m.reshape(s), lambda m, s=new: jnp.reshape(m, s))
        elif kind == "flip":
            axis = draw(st.none() | axes_of(nd)) if nd else None
            op = ("flip", lambda m, a=axis: np.flip(m, a), lambda m, a=axis: jnp.flip(m, a))
        elif kind == "pad":
            w = [(draw(st.integers(0, 2)), draw(st.integers(0, 2))) for _ in range(nd)]
            op = ("pad", lambda m, w=w: np.pad(m, w), lambda m, w=w: jnp.pad(m, w))
        elif kind == "edge":
            w = [(draw(st.integers(0, 2)), draw(st.integers(0, 2))) for _ in range(nd)]
            mode = draw(st.sampled_from(["edge", "wrap", "symmetric"]))
            if 0 in shape:
                mode = "constant"
            op = ("pad " + mode, lambda m, w=w, md=mode: np.pad(m, w, md),
                  lambda m, w=w, md=mode: jnp.pad(m, w, md))
        elif kind == "expand":
            axis = draw(st.integers(-nd - 1, nd))
            op = ("expand_dims", lambda m, a=axis: np.expand_dims(m, a),
                  lambda m, a=axis: jnp.expand_dims(m, a))
        elif kind == "squeeze":
            op = ("squeeze", np.squeeze, jnp.squeeze)
        elif kind == "moveaxis":
            s, d = draw(axes_of(nd)), draw(axes_of(nd))
            op = ("moveaxis", lambda m, s=s, d=d: np.moveaxis(m, s, d),
                  lambda m, s=s, d=d: jnp.moveaxis(m, s, d))
        elif kind == "rot90":
            k = draw(st.integers(1, 3))
            op = ("rot90", lambda m, k=k: np.rot90(m, k), lambda m, k=k: jnp.rot90(m, k))
        elif kind == "concat":
            axis = draw(axes_of(nd))
            op = ("concat", lambda m, a=axis: np.concatenate([m, np.flip(m, a)], a),
                  lambda m, a=axis: jnp.concatenate([m, jnp.flip(m, a)], a))
        elif kind == "tile":
            reps = tuple(draw(st.integers(1, 2)) for _ in range(draw(st.integers(1, nd + 1))))
            op = ("tile", lambda m, r=reps: np.tile(m, r), lambda m, r=reps: jnp.tile(m, r))
        else:
            axis = draw(axes_of(nd))
            op = ("repeat", lambda m, a=axis: np.repeat(m, 2, a),
                  lambda m, a=axis: jnp.repeat(m, 2, a))
        ops.append(op)
        shape = op[1](np.zeros(shape)).shape
    return start, ops


@settings(max_examples=40)
@given(movement_chains(), dtypes)
def test_movement_chains_match_numpy(run, chain, dtype):
    shape, ops = chain
    a = sample(shape, dtype)
    expected = a
    for _, np_fn, _ in ops:
        expected = np_fn(expected)

    def fn(x):
        for _, _, jnp_fn in ops:
            x = jnp_fn(x)
        return x

    assert_array(call(run, fn, put(a)), expected)


# -- bad axes and operands: the exception types JAX raises --------------------------------------

BAD = [
    ("moveaxis", lambda m: m.moveaxis(m.zeros((2, 3)), 2, 0), ValueError),
    ("moveaxis", lambda m: m.moveaxis(m.zeros((2, 3)), (0, 1), 0), ValueError),
    ("moveaxis", lambda m: m.moveaxis(m.zeros((2, 3)), (0, 0), (0, 1)), TypeError),
    ("swapaxes", lambda m: m.swapaxes(m.zeros((2, 3)), 2, 0), IndexError),
    ("swapaxes", lambda m: m.swapaxes(m.zeros((2, 3)), 0, -3), IndexError),
    ("concatenate", lambda m: m.concatenate([m.zeros((2, 3))] * 2, axis=2), ValueError),
    ("concatenate", lambda m: m.concatenate([m.zeros(()), m.zeros(())]), ValueError),
    ("concatenate", lambda m: m.concatenate([m.zeros((2, 3)), m.zeros((3, 2))]), TypeError),
    ("concatenate", lambda m: m.concatenate([m.zeros((2, 3)), m.zeros(3)]), TypeError),
    ("concatenate", lambda m: m.concatenate([]), ValueError),
    ("concatenate", lambda m: m.concatenate([[1, 2], [3]]), TypeError),
    ("stack", lambda m: m.stack([m.zeros((2, 3)), m.zeros((3, 2))]), ValueError),
    ("stack", lambda m: m.stack([m.zeros((2, 3))] * 2, axis=3), ValueError),
    ("stack", lambda m: m.stack([]), ValueError),
    ("split", lambda m: m.split(m.zeros((2, 3)), 2, axis=2), IndexError),
    ("flip", lambda m: m.flip(m.zeros((2, 3)), 2), ValueError),
    ("flip", lambda m: m.flip(m.zeros((2, 3)), (0, 0)), TypeError),
    ("fliplr", lambda m: m.fliplr(m.zeros(3)), ValueError),
    ("flipud", lambda m: m.flipud(m.zeros(())), ValueError),
    ("rot90", lambda m: m.rot90(m.zeros(3)), ValueError),
    ("rot90", lambda m: m.rot90(m.zeros((2, 3)), axes=(1, -1)), ValueError),
    ("repeat", lambda m: m.repeat(m.zeros((2, 3)), 2, axis=2), ValueError),
    ("atleast_1d", lambda m: m.atleast_1d(1, [1, 2]), TypeError),
    ("reshape", lambda m: m.reshape(m.zeros(6), (-1, -1)), TypeError),
    ("transpose", lambda m: m.transpose(m.zeros((2, 3, 4)), (0, 1, 1)), TypeError),
    ("transpose", lambda m: m.zeros((2, 3, 4)).transpose(0, 1), TypeError),  # a short identity
    ("squeeze", lambda m: m.squeeze(m.zeros((1, 2)), (0, 0)), ValueError),
    ("squeeze", lambda m: m.squeeze(m.zeros((1, 2)), (0, -2)), ValueError),
    ("broadcast_to", lambda m: m.broadcast_to(m.zeros(3), (-1, 3)), TypeError),
    ("meshgrid", lambda m: m.meshgrid(m.zeros((2, 2)), m.zeros(2)), ValueError),
    ("meshgrid", lambda m: m.meshgrid(m.zeros(()), m.zeros(2)), ValueError),
]


@pytest.mark.parametrize("name,fn,error", BAD, ids=[f"{b[0]}-{k}" for k, b in enumerate(BAD)])
def test_bad_input_raises_like_jax(platform, name, fn, error):
    with pytest.raises(error):
        fn(jnp)
    with pytest.raises(error):
        fn(jax_numpy)


def test_lax_squeeze_and_transpose_check_their_axes_as_jax():
    """lax.squeeze takes negative dimensions in any order (sorted, as JAX's params) and
    refuses repeated ones; lax.transpose refuses a permutation shorter than the rank."""
    x = np.zeros((1, 2, 1), np.float32)
    ours = jaxwg.make_jaxpr(lambda a: lax.squeeze(a, (-1, 0)))(x)
    theirs = jax.make_jaxpr(lambda a: jax.lax.squeeze(a, (-1, 0)))(x)
    assert str(ours) == str(theirs)
    for module, array in ((lax, jnp.asarray(x)), (jax.lax, x)):
        with pytest.raises(ValueError, match="not unique"):
            module.squeeze(array, (0, -3))
        with pytest.raises(TypeError, match="permutation"):
            module.transpose(array, (0, 1))


def _shape_outcome(mod, name, a, **kw):
    """(result or error, warnings as (category, message)) of `mod.name(a, **kw)`."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            out = getattr(mod, name)(a, **kw)
        except Exception as e:  # noqa: BLE001 - the exception is compared
            out = (type(e).__name__, str(e))
    return out, [(w.category, str(w.message)) for w in caught]


@pytest.mark.parametrize("name", ["shape", "ndim", "size"])
def test_shape_ndim_size_of_lists_warn_as_jax(name):
    """JAX reads lists, tuples and None as NumPy does, with a DeprecationWarning (size's
    from size and then shape); arrays and scalars, strings included, read silently."""
    inputs = [[1, 2, 3], (1, 2), [[1, 2], [3, 4]], [], None, [np.ones(2), np.ones(2)],
              [1, [2, 3]], 3, 2.5, "ab", np.ones((2, 3)), np.float32(1)]
    for a in inputs:
        for kw in ({}, {"axis": 0}, {"axis": (-1,)}) if name == "size" else ({},):
            ours, theirs = _shape_outcome(jnp, name, a, **kw), _shape_outcome(jax_numpy, name, a,
                                                                              **kw)
            assert ours == theirs, (a, kw)
    assert jnp.shape(jnp.ones((2, 3))) == (2, 3) and jnp.size(jnp.ones((2, 3)), axis=[1]) == 3
    with pytest.raises(ValueError):  # JAX: "repeated axis: (0, 0)"
        jnp.size(jnp.ones(3), axis=(0, -1))
