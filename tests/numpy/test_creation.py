"""Array creation of `jaxwg.numpy` against JAX (dtypes, weak types, values) and NumPy.

`array`/`asarray` infer dtypes as JAX does (Python ints -> int32, floats -> float32, 64-bit
NumPy data narrowed, lists take the promotion of their elements with Python scalars weak,
arrays inside lists stacked); `zeros`/`ones`/`full`/`empty` and their `*_like` forms take
shapes and dtypes; `arange`, `linspace`, `eye` and `identity` compute what JAX computes
(`linspace` as `start * (1 - t) + stop * t`, floored for integers). Each case runs on both
platforms, eagerly and under `jit` (creation inside the traced function).
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import jaxwg
import jaxwg.numpy as jnp
from jaxwg.core import dtypes as kdt

from .helpers import assert_array, jax_numpy

BOOL, I32, U32, F16, F32 = (np.dtype(n) for n in ("bool", "int32", "uint32", "float16", "float32"))


def supports(platform: str, dtype) -> bool:
    return jaxwg.devices(platform)[0].backend.supports(kdt.from_numpy(np.dtype(dtype)))


def outcome(fn):
    """(dtype, weak_type, shape, values) of fn(), or the exception type's name."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = fn()
    except Exception as e:  # noqa: BLE001 - the exception type is what is compared
        return type(e).__name__
    outs = out if isinstance(out, tuple) else (out,)
    return tuple((np.dtype(o.dtype), bool(o.weak_type), tuple(o.shape), np.asarray(o))
                 for o in outs)


def same(ours, theirs, rtol=0.0) -> bool:
    if isinstance(ours, str) or isinstance(theirs, str):
        return ours == theirs
    if len(ours) != len(theirs):
        return False
    for (d1, w1, s1, v1), (d2, w2, s2, v2) in zip(ours, theirs):
        if (d1, w1, s1) != (d2, w2, s2):
            return False
        if d1.kind == "f":
            if not np.allclose(v1, v2, rtol=rtol, atol=0, equal_nan=True):
                return False
        elif not np.array_equal(v1, v2):
            return False
    return True


def describe(o):
    if isinstance(o, str):
        return o
    return [(d.name, f"weak={w}", s, v.tolist() if v.size < 12 else f"{v.size} values")
            for d, w, s, v in o]


# -- array / asarray --------------------------------------------------------------------------

# Each maker builds the argument from a module (jnp or jax.numpy), so that arrays inside
# lists are that module's arrays.
ARRAY_INPUTS = {
    "int": lambda m: 3,
    "float": lambda m: 2.5,
    "bool": lambda m: True,
    "int list": lambda m: [1, 2, 3],
    "float list": lambda m: [1, 2.5],
    "bool list": lambda m: [True, False],
    "bool-int list": lambda m: [True, 2],
    "nested": lambda m: [[1, 2], [3, 4], [5, 6]],
    "nested tuples": lambda m: ((1.5,), (2.0,)),
    "empty list": lambda m: [],
    "empty nested": lambda m: [[]],
    "np int64": lambda m: np.arange(4, dtype=np.int64),
    "np float64": lambda m: np.linspace(0, 1, 3),
    "np float16": lambda m: np.ones(2, np.float16),
    "np bool": lambda m: np.array([True, False]),
    "np empty": lambda m: np.zeros((2, 0, 3), np.float32),
    "np empty int": lambda m: np.zeros((0, 2), np.int64),
    "np 0-d": lambda m: np.array(7, np.int64),
    "np scalar f64": lambda m: np.float64(2.5),
    "np scalar i64": lambda m: np.int64(3),
    "np scalar bool": lambda m: np.bool_(True),
    "np f16 in list": lambda m: [np.float16(1.0), 2],
    "np f32 + float": lambda m: [np.float32(1.0), 2.5],
    "arrays in list": lambda m: [m.arange(2, dtype=m.uint32), [5, 6]],
    "weak array in list": lambda m: [m.asarray(2.0), 1],
    "f16 array + int": lambda m: [m.ones(2, m.float16), m.zeros(2, m.float16) + 3],
    "nested arrays": lambda m: [[m.zeros(2), m.ones(2)], [m.ones(2), m.zeros(2)]],
    "array": lambda m: m.arange(3),
    "weak array": lambda m: m.asarray(1.5),
    "big int": lambda m: 2 ** 40,
    "big int in list": lambda m: [1, 2 ** 31],
    "negative int in list": lambda m: [-2 ** 31, 5],
    "None in list": lambda m: [1, None],
    "ragged": lambda m: [[1, 2], [3]],
    "string": lambda m: "abc",
}
DTYPES = [None, np.float32, np.int32, np.uint32, np.float16, bool, float, int]


def _ids(v):
    return getattr(v, "__name__", str(v))


@pytest.mark.parametrize("fn", ["array", "asarray"])
@pytest.mark.parametrize("dtype", DTYPES, ids=_ids)
def test_array_matches_jax(platform, fn, dtype):
    mismatches = []
    for name, make in ARRAY_INPUTS.items():
        kw = {} if dtype is None else {"dtype": dtype}
        if dtype == np.float16 and not supports(platform, F16):
            continue
        ours = outcome(lambda make=make, kw=kw: getattr(jnp, fn)(make(jnp), **kw))
        theirs = outcome(lambda make=make, kw=kw: getattr(jax_numpy, fn)(make(jax_numpy), **kw))
        if not same(ours, theirs):
            mismatches.append(f"{fn}({name}, {kw}): {describe(ours)} != JAX {describe(theirs)}")
    assert not mismatches, "\n".join(mismatches)


def test_array_values_and_ndmin(run):
    got = run(lambda: (jnp.array([[1, 2], [3, 4]]), jnp.array(2.0, ndmin=2),
                       jnp.array([1, 2], ndmin=3), jnp.asarray([1.5, -0.0, np.inf]),
                       jnp.array([2 ** 31 - 1, -2 ** 31]), jnp.array([2 ** 32 - 1], jnp.uint32)))
    wants = (np.array([[1, 2], [3, 4]], np.int32), np.full((1, 1), 2.0, np.float32),
             np.array([[[1, 2]]], np.int32), np.array([1.5, -0.0, np.inf], np.float32),
             np.array([2 ** 31 - 1, -2 ** 31], np.int32), np.array([2 ** 32 - 1], np.uint32))
    for g, w in zip(got, wants):
        assert_array(g, w)
    assert np.signbit(np.asarray(got[3])[1])


def test_array_copies_and_asarray_passes_through(platform):
    x = jnp.arange(3)
    assert jnp.asarray(x) is x
    y = jnp.array(x)
    assert y is not x and np.array_equal(np.asarray(y), np.arange(3))
    z = jnp.asarray(x, dtype=jnp.float32)
    assert z.dtype == np.float32 and not z.weak_type
    host = np.arange(4, dtype=np.float32)
    a = jnp.asarray(host)
    host[0] = 99.0  # the array holds its own copy
    assert_array(a, np.arange(4, dtype=np.float32))


@pytest.mark.parametrize("value", [np.arange(6, dtype=np.float32).reshape(2, 3) - 2.5, np.array([-0.0, np.nan]),
                                   np.zeros((0, 2), np.int32), np.array(True), 3.5], ids=_ids)
def test_copy_matches_jax(run, value):
    ours, theirs = run(jnp.copy, value), jax_numpy.copy(value)
    assert ours is not value and ours.dtype == theirs.dtype and ours.weak_type == theirs.weak_type
    assert_array(ours, np.asarray(theirs))
    x = jnp.asarray(value)
    assert jnp.copy(x) is not x
    with pytest.raises(TypeError, match="copy requires ndarray or scalar arguments"):
        jnp.copy([1, 2.5])  # as JAX's


# -- zeros / ones / full / empty and *_like ---------------------------------------------------


SHAPES = [(), 3, (0,), (2, 3), (1, 0, 2), [2, 2], np.int64(2), (np.int32(2), 3)]


@pytest.mark.parametrize("name", ["zeros", "ones", "empty"])
@pytest.mark.parametrize("dtype", [None, np.int32, np.uint32, bool, np.float16, float],
                         ids=_ids)
def test_zeros_ones_empty(run, name, dtype):
    if dtype == np.float16 and not supports(run.platform, F16):
        pytest.skip("float16 is not supported by this adapter")
    fill = 1 if name == "ones" else 0
    outs = run(lambda: tuple(getattr(jnp, name)(s, dtype) for s in SHAPES))
    want_dtype = np.dtype(np.float32 if dtype in (None, float) else dtype)
    for s, g in zip(SHAPES, outs):
        shape = tuple(int(n) for n in (s if isinstance(s, (tuple, list)) else (s,)))
        assert_array(g, np.full(shape, fill, want_dtype), weak_type=False)


def test_full_and_likes_match_jax(platform):
    fills = [7, 2.5, True, np.float64(1.5), np.int64(4), np.float16(0.5), [1, 2]]
    mismatches = []
    for shape in [(), (2,), (3, 2), (0, 2)]:
        for fill in fills:
            for dtype in [None, np.float32, np.int32, bool]:
                def make(m, shape=shape, fill=fill, dtype=dtype):
                    f = m.asarray(fill) if isinstance(fill, list) and shape == (3, 2) else fill
                    return m.full(shape, f, dtype)
                ours, theirs = outcome(lambda: make(jnp)), outcome(lambda: make(jax_numpy))
                if not same(ours, theirs):
                    mismatches.append(f"full({shape}, {fill!r}, {dtype}): {describe(ours)} != "
                                      f"JAX {describe(theirs)}")
    sources = {"i32": lambda m: m.arange(3), "f16": lambda m: m.ones((2, 1), m.float16),
               "weak": lambda m: m.asarray(2.5), "int": lambda m: 3, "float": lambda m: 1.5,
               "bool": lambda m: m.array([True]), "np": lambda m: np.ones(2, np.uint32)}
    for name in ["zeros_like", "ones_like", "empty_like", "full_like"]:
        for src, make_src in sources.items():
            for kw in [{}, {"dtype": np.float32}, {"shape": (2, 2)}, {"dtype": bool, "shape": 3},
                       {"shape": ()}]:
                def make_like(m, name=name, make_src=make_src, kw=kw):
                    args = (make_src(m), 9) if name == "full_like" else (make_src(m),)
                    return getattr(m, name)(*args, **kw)
                ours = outcome(lambda: make_like(jnp))
                theirs = outcome(lambda: make_like(jax_numpy))
                if not same(ours, theirs):
                    mismatches.append(f"{name}({src}, {kw}): {describe(ours)} != "
                                      f"JAX {describe(theirs)}")
    assert not mismatches, "\n".join(mismatches)



# `lax.full_like`'s `x`: a Python scalar, a weakly typed array (`lax.full` of a Python
# scalar; of a bool, strong), a strongly typed array of a dtype, or NumPy data.
@st.composite
def full_like_cases(draw):
    kind = draw(st.sampled_from(["python", "weak", "strong", "numpy"]))
    value = draw(st.one_of(st.booleans(), st.integers(-3, 3), st.sampled_from([0.5, -0.0, 1j])))
    shape = draw(st.sampled_from([(), (2,), (0, 3)]))
    dtype = draw(st.sampled_from([np.bool_, np.int32, np.uint32, np.float16, np.float32]))
    make_x = {"python": lambda lax: value,
              "weak": lambda lax: lax.full(shape, value),
              "strong": lambda lax: lax.full(shape, 1, dtype),
              "numpy": lambda lax: np.full(shape, 1, dtype)}[kind]
    fill = draw(st.one_of(st.booleans(), st.integers(-3, 300),
                          st.sampled_from([2.5, -0.0, np.inf, np.float32(1.5), np.int32(7)])))
    like = draw(st.sampled_from([None, np.int32, np.uint32, np.float16, np.float32, bool]))
    new_shape = draw(st.sampled_from([None, (), (3,)]))
    return make_x, fill, like, new_shape


@given(full_like_cases())
def test_lax_full_like_weak_type_matches_jax(run, case):
    """Weakly typed exactly where JAX's is: `x` weak and no `dtype` given."""
    import jax

    make_x, fill, dtype, shape = case
    if dtype is not None and not supports(run.platform, dtype):
        return
    ours = outcome(lambda: run(lambda x: jaxwg.lax.full_like(x, fill, dtype, shape),
                               make_x(jaxwg.lax)))
    theirs = outcome(lambda: jax.lax.full_like(make_x(jax.lax), fill, dtype, shape))
    assert same(ours, theirs), f"{describe(ours)} != JAX {describe(theirs)}"


def test_full_values(run):
    got = run(lambda: (jnp.full((2, 3), 7), jnp.full(3, -0.0), jnp.full((2, 2), jnp.arange(2)),
                       jnp.full((), np.nan, jnp.float32), jnp.full((2,), 2 ** 32 - 1, jnp.uint32),
                       jnp.zeros_like(jnp.ones((2, 2), jnp.int32)),
                       jnp.ones_like(jnp.zeros(3), dtype=bool),
                       jnp.full_like(jnp.zeros((2, 1)), 3, shape=(1, 2))))
    wants = (np.full((2, 3), 7, np.int32), np.full(3, -0.0, np.float32),
             np.array([[0, 1], [0, 1]], np.int32), np.float32(np.nan),
             np.full(2, 2 ** 32 - 1, np.uint32), np.zeros((2, 2), np.int32),
             np.ones(3, bool), np.full((1, 2), 3.0, np.float32))
    for g, w in zip(got, wants):
        assert_array(g, w)
    assert got[0].weak_type and np.all(np.signbit(np.asarray(got[1])))


def test_shape_errors():
    with pytest.raises(ValueError):
        jnp.zeros((-1, 2))
    with pytest.raises(TypeError):
        jnp.ones((2.5,))
    with pytest.raises(TypeError):
        jnp.full((2,), [1, 2])
    with pytest.raises(ValueError):
        jnp.eye(-1)


def _error(fn):
    """(type name, message) of what `fn()` raises, JAX's links to its documentation cut."""
    with pytest.raises(Exception) as info:
        fn()
    lines = [line for line in str(info.value).splitlines()
             if line.strip() and not line.startswith("See https")]
    text = re.sub(r": https://\S+", ".", "\n".join(lines))
    return type(info.value).__name__, text.replace("JitTracer(~int32[])", "Traced<i32[]>")


def _traced_size(np_, L):  # np_: the numpy module under test, L: its jit library
    return [lambda: L.jit(lambda n: np_.arange(n))(3),
            lambda: L.jit(lambda n, m: np_.arange(1, n + m))(3, 4),
            lambda: L.jit(lambda x, n: np_.zeros(n))(np_.ones(3), 3),
            lambda: L.jit(lambda n: np_.ones((2, n)))(3),
            lambda: np_.array([np_.ones(2), np_.ones(3)]),
            lambda: np_.array([np_.ones((2, 2)), np_.ones(2)]),
            lambda: np_.array([np_.ones(2), [1.0, 2.0, 3.0]]),
            lambda: np_.array(["a"]),
            lambda: np_.ones(3).astype("nonsense"),
            lambda: np_.zeros(3).__setitem__(0, 1.0)]


@pytest.mark.parametrize("case", range(10))
def test_errors_as_jax(case):
    """Traced sizes (arange's ConcretizationTypeError, zeros' hint), ragged lists of arrays,
    strings, unknown dtype names and item assignment raise JAX's errors."""
    import jax

    want = _error(_traced_size(jax_numpy, jax)[case])
    got = _error(_traced_size(jnp, jaxwg)[case])
    assert got == want


def test_concrete_array_as_shape():
    assert jnp.zeros(jnp.array(3)).shape == (3,)


# -- arange --------------------------------------------------------------------------------

ARANGE_CASES = [
    (5,), (0,), (-3,), (2, 10), (2, 10, 3), (10, 2, -3), (10, 2), (-5, 5, 2), (5, -5, -2),
    (5.0,), (0.5, 3.0, 0.5), (3.0, 0.0, -0.7), (1, 2, 0.25), (0.0, 1.0, 0.1), (-1.5, 1.5),
    (-5, 5, 2.5), (1.5,), (np.int32(3),), (np.float32(2.5),), (0, 2 ** 30, 2 ** 28),
    (2 ** 31 - 10, 2 ** 31 - 1, 3), (100, -100, -7), (1e-3, 1e-2, 1e-3), (0, 1, 1e-1),
]
ARANGE_DTYPES = [None, np.int32, np.float32, np.uint32, np.float16]


@pytest.mark.parametrize("args", ARANGE_CASES, ids=str)
def test_arange(run, args):
    outs = run(lambda: tuple(jnp.arange(*args, dtype=d) for d in ARANGE_DTYPES
                             if d != np.float16 or supports(run.platform, F16)
                             if d != np.uint32 or min(np.arange(*args), default=0) >= 0))
    dtypes = [d for d in ARANGE_DTYPES if d != np.float16 or supports(run.platform, F16)
              if d != np.uint32 or min(np.arange(*args), default=0) >= 0]
    for d, g in zip(dtypes, outs):
        host = np.arange(*args)
        assert g.shape == (len(np.arange(*[float(a) for a in args])),) or g.shape == host.shape
        want = jax_numpy.arange(*args, dtype=d)
        assert (g.dtype, g.weak_type) == (want.dtype, want.weak_type), (d, g.dtype, want.dtype)
        want = np.asarray(want)
        tol = 2e-3 if g.dtype == F16 else 2.5e-7  # a fused multiply-add may round differently
        assert_array(g, want, rtol=tol)


def test_arange_errors():
    with pytest.raises(TypeError):
        jnp.arange(True)
    with pytest.raises(ValueError):
        jnp.arange(np.arange(3))
    with pytest.raises(TypeError):
        jaxwg.jit(lambda n: jnp.arange(n))(3)


@given(start=st.integers(-50, 50), stop=st.integers(-50, 50),
       step=st.integers(-7, 7).filter(bool))
def test_arange_integers_match_numpy(run, start, stop, step):
    got = run(lambda: jnp.arange(start, stop, step))
    assert_array(got, np.arange(start, stop, step).astype(np.int32))


# -- linspace ------------------------------------------------------------------------------

LINSPACE_CASES = [
    ((0, 1, 5), {}), ((0, 1, 5), {"endpoint": False}), ((0, 1), {}), ((2, 3, 1), {}),
    ((2, 3, 1), {"endpoint": False}), ((2, 3, 0), {}), ((0, 10, 4), {"dtype": np.int32}),
    ((10, -10, 6), {"dtype": np.int32}), ((1, 2, 3), {"dtype": np.uint32}),
    ((-1.5, 7.25, 7), {}), ((-1.5, 7.25, 7), {"dtype": np.float16}),
    ((0, 10, 4), {"retstep": True}), ((0, 10, 1), {"retstep": True}),
    ((0, 10, 0), {"retstep": True}), ((0, 10, 4), {"retstep": True, "dtype": np.int32}),
    ((1e-3, 1e3, 11), {}), ((5, 5, 3), {}), ((0, 1, 3), {"dtype": bool}),
    ((np.float32(0.5), np.int32(3), 4), {}), ((0.0, 1.0, 1000), {}),
]


@pytest.mark.parametrize("args,kwargs", LINSPACE_CASES, ids=str)
def test_linspace(run, args, kwargs):
    if kwargs.get("dtype") == np.float16 and not supports(run.platform, F16):
        pytest.skip("float16 is not supported by this adapter")
    got = run(lambda: jnp.linspace(*args, **kwargs))
    want = jax_numpy.linspace(*args, **kwargs)
    got, want = (got, want) if kwargs.get("retstep") else ((got,), (want,))
    for g, w in zip(got, want):
        assert (g.dtype, g.weak_type) == (w.dtype, w.weak_type)
        tol = 2e-3 if g.dtype == F16 else 1e-6
        # start * (1 - t) + stop * t cancels near zero: each product is rounded (or,
        # XLA on the CPU, kept in float32 for a float16 result), an error of a few ulp of
        # |start| + |stop| (-0.042 here and -0.04224 from JAX 0.10.2 at 1 / 6 of -1.5..7.25).
        atol = tol * (abs(float(args[0])) + abs(float(args[1]))) if g.dtype == F16 else tol * 1e-3
        assert_array(g, np.asarray(w).astype(g.dtype), rtol=tol, atol=atol)


def test_linspace_arrays_and_axis(run):
    start = np.array([0.0, 1.0, -2.0], np.float32)
    stop = np.array([[1.0], [3.0]], np.float32)
    got = run(lambda a, b: (jnp.linspace(a, b, 4), jnp.linspace(a, b, 4, axis=-1),
                            jnp.linspace(a, 5.0, 3, axis=1, endpoint=False)),
              jnp.asarray(start), jnp.asarray(stop))
    wants = (np.linspace(start, stop, 4), np.linspace(start, stop, 4, axis=-1),
             np.linspace(start, 5.0, 3, axis=1, endpoint=False))
    for g, w in zip(got, wants):
        assert_array(g, w.astype(np.float32), rtol=1e-6, atol=1e-7)
    with pytest.raises(ValueError):
        jnp.linspace(0, 1, -1)


# -- eye / identity -------------------------------------------------------------------------

EYE_CASES = [(3,), (2, 4), (4, 2), (0,), (3, 0), (1,), (5, 5)]


@pytest.mark.parametrize("args", EYE_CASES, ids=str)
def test_eye(run, args):
    ks = [0, 1, -1, 2, -3, 7, 2 ** 31, -2 ** 40]  # far diagonals: empty, and no int32 overflow
    dtypes = [None, np.int32, bool, np.uint32]
    got = run(lambda: tuple(jnp.eye(*args, k=k, dtype=d) for k in ks for d in dtypes))
    wants = [np.eye(*args, k=k, dtype=np.float32 if d is None else d) for k in ks for d in dtypes]
    for g, w in zip(got, wants):
        assert_array(g, w, weak_type=False)


def test_identity(run):
    got = run(lambda: (jnp.identity(3), jnp.identity(2, dtype=jnp.int32), jnp.identity(0),
                       jnp.identity(1, bool)))
    for g, w in zip(got, (np.identity(3, np.float32), np.identity(2, np.int32),
                          np.identity(0, np.float32), np.identity(1, bool))):
        assert_array(g, w, weak_type=False)


# -- creation is lazy: constants and ranges fuse into their consumers ------------------------


def test_constants_fuse_into_consumers(platform):
    from jaxwg.frontend.execute import counters

    x = jnp.asarray(np.arange(6, dtype=np.float32)).block_until_ready()
    before = counters["kernels"]
    out = (x * jnp.ones(6) + jnp.arange(6.0) + jnp.linspace(0, 1, 6) + jnp.full(6, 2.0)
           + jnp.eye(6)[2]).block_until_ready()
    assert counters["kernels"] - before == 1
    want = (np.arange(6) * 2.0 + np.linspace(0, 1, 6) + 2.0 + np.eye(6)[2]).astype(np.float32)
    assert_array(out, want, rtol=1e-6)
