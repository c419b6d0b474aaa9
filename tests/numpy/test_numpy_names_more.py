"""More jaxwg.numpy names against JAX: rollaxis, hsplit/vsplit/dsplit, put, mask_indices,
the index tricks (ix_, r_, c_, s_, index_exp, mgrid, ogrid), fromfunction and the other
from* constructors, einsum_path, printing, NumPy's dtype aliases, and ufunc/frompyfunc."""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import jaxwg
import jaxwg.numpy as jnp

from .helpers import jax, jax_numpy


def _same(got, want):
    """Same dtype, weak type, shape and values (NaN where NaN)."""
    want_weak = getattr(want, "weak_type", False)
    got, want = jnp.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, want.dtype,
                                                                  got.shape, want.shape)
    assert got.weak_type == want_weak, (got.weak_type, want_weak)
    np.testing.assert_array_equal(np.asarray(got), want)


def _same_all(got, want):
    if isinstance(want, (list, tuple)):
        assert type(got) is type(want), (type(got), type(want))
        assert len(got) == len(want)
        for g, w in zip(got, want):
            _same(g, w)
    else:
        _same(got, want)


def _raises_as_jax(fn_ours, fn_jax, match=None):
    with pytest.raises(Exception) as theirs:
        fn_jax()
    with pytest.raises(theirs.type, match=match):
        fn_ours()


X = np.arange(24, dtype=np.float32).reshape(2, 3, 4)

SHAPE_CASES = [
    ("rollaxis", (X, 2), {}),
    ("rollaxis", (X, 0, 3), {}),
    ("rollaxis", (X, -1, -3), {}),
    ("rollaxis", (X, 1, 1), {}),
    ("hsplit", (X, 3), {}),
    ("hsplit", (X[0, 0], [1, 3]), {}),
    ("vsplit", (X, [1]), {}),
    ("vsplit", (X[0], 3), {}),
    ("dsplit", (X, [1, 3]), {}),
    ("dsplit", (X, 2), {}),
]


def _same_as_traced(got, want, values):
    """`got` has the shapes, dtypes and weak types of JAX's `want` (`jax.eval_shape`: JAX
    compiles each case for a second or more here) and the `values` NumPy gives."""
    if isinstance(want, (list, tuple)):
        assert type(got) is type(want) and len(got) == len(want) == len(values)
    else:
        got, want, values = [got], [want], [values]
    for g, w, v in zip(got, want, values):
        assert (g.shape, g.dtype, g.weak_type) == (w.shape, w.dtype, w.weak_type), (g, w)
        np.testing.assert_array_equal(np.asarray(g), v)


def test_shape_functions_match_jax(run):
    for name, args, kwargs in SHAPE_CASES:
        rest = args[1:]
        got = run(lambda a: getattr(jnp, name)(a, *rest, **kwargs), jnp.asarray(args[0]))
        want = jax.eval_shape(lambda a: getattr(jax_numpy, name)(a, *rest, **kwargs), args[0])
        _same_as_traced(got, want, getattr(np, name)(*args, **kwargs))


def test_shape_function_errors_match_jax():
    x = np.ones((2, 3), np.float32)
    for name, args in [("rollaxis", (x, 2)), ("rollaxis", (x, 0, 3)), ("rollaxis", (x, 0, -3)),
                       ("hsplit", (x, 2)), ("vsplit", (x, 4)), ("dsplit", (x, 2)),
                       ("hsplit", ([1, 2], 2)), ("rollaxis", ([1.0], 0))]:
        _raises_as_jax(lambda: getattr(jnp, name)(*args), lambda: getattr(jax_numpy, name)(*args))
    with pytest.raises(jaxwg.errors.ConcretizationTypeError):
        jaxwg.jit(jnp.rollaxis, static_argnums=1)(jnp.ones((2, 3)), 0, 1)


NAN_ROWS = np.array([[np.nan, -0.0, np.inf], [1.0, 2.0, -np.inf]], np.float32)
PUT_INDICES = np.array([-1, 2, 7, 0], np.int32)
PUT_VALUES = np.array([-0.0, np.nan], np.float32)


@pytest.mark.parametrize("mode", [None, "clip", "wrap"])
def test_put_matches_jax(run, mode):
    # One shape for every mode (and the hypothesis test below): JAX compiles each once.
    got = run(lambda *xs: jnp.put(*xs, mode=mode, inplace=False), jnp.asarray(NAN_ROWS),
              jnp.asarray(PUT_INDICES), jnp.asarray(PUT_VALUES))
    _same(got, jax_numpy.put(NAN_ROWS, PUT_INDICES, PUT_VALUES, mode=mode, inplace=False))
    if run.mode == "eager":  # nothing to write: the array itself, as JAX
        for a, ind, v in [(NAN_ROWS, PUT_INDICES[:0], PUT_VALUES), (NAN_ROWS[:0], PUT_INDICES, 1.0),
                          (NAN_ROWS, PUT_INDICES, PUT_VALUES[:0])]:
            _same(jnp.put(jnp.asarray(a), ind, v, mode=mode, inplace=False),
                  jax_numpy.put(a, ind, v, mode=mode, inplace=False))


def test_put_errors_match_jax():
    a, ind = np.zeros(3, np.float32), np.array([0])
    for kwargs in [{}, {"inplace": True}, {"mode": "raise", "inplace": False},
                   {"mode": "nearest", "inplace": False}]:
        _raises_as_jax(lambda: jnp.put(jnp.asarray(a), ind, 1.0, **kwargs),
                       lambda: jax_numpy.put(a, ind, 1.0, **kwargs))
    _raises_as_jax(lambda: jnp.put(a, [0], 1.0, inplace=False),
                   lambda: jax_numpy.put(a, [0], 1.0, inplace=False), match="put")


@settings(max_examples=8, deadline=None)
@given(st.lists(st.integers(-9, 9), min_size=4, max_size=4),
       st.lists(st.floats(-4, 4, width=32), min_size=2, max_size=2),
       st.sampled_from([None, "clip", "wrap"]))
def test_put_of_any_indices_matches_jax(ind, v, mode):
    ind, v = np.array(ind, np.int32), np.array(v, np.float32)
    _same(jnp.put(jnp.asarray(NAN_ROWS), jnp.asarray(ind), jnp.asarray(v), mode=mode,
                  inplace=False),
          jax_numpy.put(NAN_ROWS, ind, v, mode=mode, inplace=False))


def test_mask_indices_match_numpy_as_jax(platform):
    """NumPy is the oracle here (JAX's is nonzero of the mask, as NumPy's; its CPU
    compile takes seconds), with JAX's int32 indices and `size` padding with 0."""
    for n, func, k, size in [(3, "triu", 1, None), (4, "tril", 0, None), (3, "tril", -1, 5),
                             (1, "triu", 0, None)]:
        want = [w.astype(np.int32) for w in np.mask_indices(n, getattr(np, func), k)]
        if size is not None:
            want = [np.pad(w, (0, size - len(w))) for w in want]
        _same_all(jnp.mask_indices(n, getattr(jnp, func), k, size=size), tuple(want))
    fn = jaxwg.jit(lambda k: jnp.mask_indices(3, jnp.triu, k, size=4))
    _same_all(fn(1), tuple(np.pad(w.astype(np.int32), (0, 1)) for w in np.triu_indices(3, 1)))


def _index_trick_cases(m):
    """Expressions over `m` (jnp, jax_numpy or NumPy): each gives an array or a list."""
    return [
        lambda: m.ix_(m.array([0, 1]), m.array([2.5, 3, 4])),
        lambda: m.ix_(m.array([], dtype=m.float32), m.array([1])),
        lambda: m.ix_(),
        lambda: m.r_[1:3, 5, m.array([7, 8])],
        lambda: m.r_[0:1:5j, 2.5],
        lambda: m.r_[-1:-3:-1],
        lambda: m.r_["0,2", [1, 2], [3, 4]],
        lambda: m.r_["1,3,-2", [1, 2], [3, 4]],
        lambda: m.r_["r", [1, 2], [3]],
        lambda: m.r_["c", [1, 2]],
        lambda: m.r_[m.array([True]), 2.0],
        lambda: m.c_[m.ones((2, 2)), [5, 6], 0:2],
        lambda: m.c_["0", [1], [2]],
        lambda: m.mgrid[0:2, 0:3],
        lambda: m.mgrid[0:1:3j, 0:2],
        lambda: m.mgrid[-1:1:0.5, 3:0:-1],
        lambda: m.mgrid[0:3],
        lambda: m.ogrid[0:2, 0:1:3j],
        lambda: m.ogrid[3:0:-1],
        lambda: m.ogrid[()],
    ]


@pytest.mark.filterwarnings("ignore::PendingDeprecationWarning")  # NumPy's r_["r", ...]: matrix
def test_index_tricks_match_jax(platform):
    """Shapes, dtypes and weak types from JAX, values from NumPy (JAX's follow NumPy's)."""
    for ours, theirs, numpy_case in zip(_index_trick_cases(jnp), _index_trick_cases(jax_numpy),
                                        _index_trick_cases(np)):
        _same_as_traced(ours(), jax.eval_shape(theirs), numpy_case())


def test_index_tricks_errors_and_expressions_match_jax():
    assert jnp.s_[1:2, ..., None] == jax_numpy.s_[1:2, ..., None]
    assert jnp.index_exp[3] == jax_numpy.index_exp[3]
    assert len(jnp.r_) == len(jax_numpy.r_) == 0
    for expr in [lambda m: m.r_["x,y", [1]], lambda m: m.r_[[1], "0"],
                 lambda m: m.r_[np.ones((2, 2)), [1]],
                 lambda m: m.ix_(m.ones((2, 2))), lambda m: m.ix_(m.array([True])),
                 lambda m: m.ix_([1, 2])]:
        _raises_as_jax(lambda: expr(jnp), lambda: expr(jax_numpy))
    x = jnp.arange(12).reshape(3, 4)
    _same(x[jnp.ix_(jnp.array([0, 2]), jnp.array([1, 3]))],
          np.arange(12).reshape(3, 4)[np.ix_([0, 2], [1, 3])].astype(np.int32))
    with pytest.raises(jaxwg.errors.ConcretizationTypeError):
        jaxwg.jit(lambda n: jnp.mgrid[0:n])(3)


def test_from_constructors_match_jax(platform):
    for shape, dtype, fn in [((2, 3), float, lambda i, j: i * 10 + j),
                             ((3,), int, lambda i: i * i),
                             ((2, 2), jnp.int32, lambda i, j: i == j),
                             ((0, 2), float, lambda i, j: i + j)]:
        jdtype = jax_numpy.int32 if dtype is jnp.int32 else dtype
        want = jax.eval_shape(lambda: jax_numpy.fromfunction(fn, shape, dtype=jdtype))
        values = np.fromfunction(fn, shape, dtype=np.dtype(jdtype))
        _same_as_traced(jnp.fromfunction(fn, shape, dtype=dtype), want, values)
    _same(jnp.fromfunction(lambda i: i, (-1,)), jax_numpy.fromfunction(lambda i: i, (-1,)))
    data = np.array([1.5, -0.0, np.inf, np.nan], np.float32).tobytes()
    for kwargs in [{"dtype": np.float32}, {"dtype": np.float32, "count": 2, "offset": 4},
                   {"dtype": np.uint8, "count": 3}, {"dtype": np.int16}]:
        _same(jnp.frombuffer(data, **kwargs), jax_numpy.frombuffer(data, **kwargs))
    for text, kwargs in [("1 2 3", {"dtype": int, "sep": " "}), ("1.5,2.5", {"sep": ","}),
                         ("1 2 3", {"dtype": np.float32, "count": 2, "sep": " "})]:
        _same(jnp.fromstring(text, **kwargs), jax_numpy.fromstring(text, **kwargs))


def test_from_constructor_errors_match_jax():
    for name, args in [("fromiter", (iter([1, 2]), int)), ("fromfile", ("missing.bin",)),
                       ("frombuffer", (b"abc", np.float32))]:
        _raises_as_jax(lambda: getattr(jnp, name)(*args), lambda: getattr(jax_numpy, name)(*args))
    with pytest.raises(NotImplementedError, match="jnp.fromiter"):
        jnp.fromiter([1], int)
    for shape in [(2.5,), 2.5]:
        _raises_as_jax(lambda: jnp.fromfunction(lambda i: i, shape),
                       lambda: jax_numpy.fromfunction(lambda i: i, shape))
    _raises_as_jax(lambda: jnp.fromfunction(lambda i, c: i * c, (2,), c=3.0),
                   lambda: jax_numpy.fromfunction(lambda i, c: i * c, (2,), c=3.0))


def _follow_path(subscripts, operands, path):
    """`einsum` evaluated pairwise in the order of `path` (NumPy), as opt_einsum would."""
    lhs, out = subscripts.split("->")
    terms, ops = lhs.split(","), list(operands)
    for step in path:
        taken = [terms[i] for i in step]
        xs = [ops[i] for i in step]
        terms = [t for i, t in enumerate(terms) if i not in step]
        ops = [o for i, o in enumerate(ops) if i not in step]
        keep = set(out).union(*terms)
        result = "".join(dict.fromkeys(c for t in taken for c in t if c in keep))
        ops.append(np.einsum(",".join(taken) + "->" + result, *xs))
        terms.append(result)
    return np.einsum(terms[0] + "->" + out, ops[0])


@pytest.mark.parametrize("subscripts,shapes", [
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)]),
    ("ij,jk,kl,lm->im", [(2, 3), (3, 4), (4, 5), (5, 2)]),
    ("ab,bc,cd,de,ea->", [(2, 3), (3, 2), (2, 4), (4, 2), (2, 2)]),
    ("ii->i", [(3, 3)]),
    ("i,i->", [(3,), (3,)]),
])
def test_einsum_path_is_a_valid_order(subscripts, shapes):
    rng = np.random.default_rng(0)
    operands = [rng.integers(-3, 4, s).astype(np.float64) for s in shapes]
    path, info = jnp.einsum_path(subscripts, *[jnp.asarray(o) for o in operands])
    jax_path, _ = jax_numpy.einsum_path(subscripts, *operands, optimize=False)
    assert isinstance(path, list) and all(isinstance(p, tuple) for p in path)
    assert len(path) == len(jax_path) and isinstance(info, str) and subscripts in info
    np.testing.assert_allclose(_follow_path(subscripts, operands, path),
                               np.einsum(subscripts, *operands))  # JAX's einsum is NumPy's
    explicit = [(1, 0)] + [(0, 1)] * (len(shapes) - 2) if len(shapes) > 1 else [(0,)]
    assert jnp.einsum_path(subscripts, *operands, optimize=explicit)[0] == \
        jax_numpy.einsum_path(subscripts, *operands, optimize=explicit)[0]


def test_einsum_path_errors_match_jax():
    a, b = np.ones((2, 3)), np.ones((4, 4))
    for args in [("ij,jk->ik", a, b), ("ij,jk->ik", a), ("ij->q", a)]:
        _raises_as_jax(lambda: jnp.einsum_path(*args), lambda: jax_numpy.einsum_path(*args))
    assert jnp.einsum_path(a, [0, 1], a.T, [1, 2])[0] == \
        jax_numpy.einsum_path(a, [0, 1], a.T, [1, 2])[0]


def test_printing_matches_jax():
    x = np.array([[1.0, -0.0, np.nan], [np.inf, 1e-8, 123456.0]], np.float32)
    ours, theirs = jnp.asarray(x), jax_numpy.asarray(x)
    for kwargs in [{}, {"precision": 2}, {"suppress_small": True}, {"max_line_width": 20}]:
        assert jnp.array_repr(ours, **kwargs) == jax_numpy.array_repr(theirs, **kwargs)
        assert jnp.array_str(ours, **kwargs) == jax_numpy.array_str(theirs, **kwargs)
    assert jnp.get_printoptions() == jax_numpy.get_printoptions()
    with jnp.printoptions(precision=1):
        assert str(ours) == str(theirs)
        assert jnp.get_printoptions()["precision"] == 1
    old = jnp.get_printoptions()
    try:
        jnp.set_printoptions(threshold=3)
        assert str(jnp.arange(10)) == str(jax_numpy.arange(10))
    finally:
        jnp.set_printoptions(**old)
    for value in [ours, jnp.float32(2), [1], 3, "ab", None]:
        theirs_value = theirs if value is ours else (jax_numpy.float32(2) if value is not None and
                                                     getattr(value, "shape", None) == () else value)
        assert jnp.iterable(value) == jax_numpy.iterable(theirs_value)


DTYPE_NAMES = ["double", "single", "csingle", "cdouble", "uint", "object_", "character",
               "flexible", "ComplexWarning"]


@pytest.mark.parametrize("x64", [False, True])
def test_dtype_names_match_jax(x64):
    jaxwg.config.update("jax_enable_x64", x64)
    jax.config.update("jax_enable_x64", x64)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for name in DTYPE_NAMES:
                ours, theirs = getattr(jnp, name), getattr(jax_numpy, name)
                assert ours == theirs and np.dtype(ours) == np.dtype(theirs) if name not in (
                    "ComplexWarning", "character", "flexible") else ours is theirs, name
                if name in ("double", "single", "csingle", "cdouble") or (name == "uint" and not x64):
                    # jaxwg keeps integers 32-bit under x64 (tests/numpy/test_x64.py)
                    _same(ours(1.5 if name != "uint" else 3), theirs(1.5 if name != "uint" else 3))
            assert isinstance(np.float64(1), jnp.double) and issubclass(jnp.ComplexWarning, Warning)
    finally:
        jaxwg.config.update("jax_enable_x64", False)
        jax.config.update("jax_enable_x64", False)


def _ufunc_cases(m):
    """ufunc methods over `m` (jnp or jax_numpy)."""
    f = m.frompyfunc(lambda x, y: x * y + 1, nin=2, nout=1, identity=1)
    sub = m.frompyfunc(lambda x, y: x - y, 2, 1)
    pair = m.frompyfunc(lambda x: (x, x * 2.5), 1, 2)
    x = m.array([[1.0, -0.0, 2.0], [np.inf, 0.5, -1.0]], dtype=m.float32)
    return [
        lambda: f(m.arange(3), 2),
        lambda: pair(m.arange(3)),
        lambda: f.reduce(m.arange(1, 4)),
        lambda: f.reduce(x, axis=1, keepdims=True),
        lambda: f.reduce(x, axis=None, initial=2.0),
        lambda: f.reduce(x[0], where=m.array([True, False, True])),
        lambda: f.reduce(m.zeros((0, 2)), axis=0),
        lambda: f.accumulate(x, axis=1),
        lambda: f.outer(m.arange(2), x[0]),
        lambda: f.at(m.zeros(3), m.array([0, 0, 2]), 1.5, inplace=False),
        lambda: sub.at(x, (m.array([0, 1, 0]), m.array([2, 0, 2])), m.array([1.0, 2.0, 3.0]),
                       inplace=False),
        lambda: f.at(m.zeros(3), 1, 5.0, inplace=False),
    ]


def test_ufunc_methods_match_jax():
    for ours, theirs in zip(_ufunc_cases(jnp), _ufunc_cases(jax_numpy)):
        _same_all(ours(), theirs())
    f, g = jnp.frompyfunc(abs, 1, 1), jax_numpy.frompyfunc(abs, 1, 1)
    assert repr(f) == repr(g) and (f.nin, f.nout, f.nargs, f.identity) == (g.nin, g.nout, g.nargs, g.identity)
    assert f == jnp.frompyfunc(abs, 1, 1) and hash(f) == hash(jnp.frompyfunc(abs, 1, 1))
    assert f != jnp.frompyfunc(abs, 1, 1, identity=0)
    add = jnp.ufunc(lambda x, y: x + y, 2, 1, name="plus")
    assert add.__name__ == "plus" and repr(add) == "<jnp.ufunc 'plus'>"
    _same(jaxwg.jit(lambda a: add.reduce(a))(jnp.arange(4.0)), np.float32(6.0))
    for expr in [lambda m: m.frompyfunc(abs, 1, 1).reduce(m.ones(2)),
                 lambda m: m.frompyfunc(abs, 1, 1).outer(m.ones(2), m.ones(2)),
                 lambda m: m.frompyfunc(lambda x, y: x, 2, 1).reduce(m.ones(2), where=m.ones(2, bool)),
                 lambda m: m.frompyfunc(lambda x, y: x, 2, 1, identity=0).reduce(m.ones(2), where=m.ones(2)),
                 lambda m: m.frompyfunc(lambda x, y: x, 2, 1).reduce(m.ones(0)),
                 lambda m: m.frompyfunc(lambda x, y: x, 2, 1).at(m.ones(2), 0, 1.0),
                 lambda m: m.frompyfunc(abs, 1, 1)(m.ones(2), out=m.ones(2)),
                 lambda m: m.frompyfunc(abs, 1, 1)([1.0])]:
        _raises_as_jax(lambda: expr(jnp), lambda: expr(jax_numpy))
