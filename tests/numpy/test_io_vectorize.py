"""Saving and loading (`save`, `savez`, `load`) and the functions over axes (`vectorize`,
`apply_along_axis`, `apply_over_axes`) against JAX: values, dtypes, shapes, signatures and
their errors, eagerly and under jit, gradients through vectorize."""

import io

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import jaxwg
import jaxwg.numpy as jnp

from .helpers import jax, jax_numpy


def _same(got, want):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, want.dtype,
                                                                  got.shape, want.shape)
    np.testing.assert_allclose(got, want, rtol=2e-6, atol=1e-6)


# -- save, savez, load ----------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ["float32", "int32", "uint32", "bool", "float16"])
def test_save_and_load_round_trip_as_numpy_files(platform, dtype, tmp_path):
    host = (np.arange(6).reshape(3, 2) % 3).astype(dtype)
    f = io.BytesIO()
    jnp.save(f, jnp.asarray(host))
    f.seek(0)
    np.testing.assert_array_equal(np.load(f), host)  # NumPy reads what jaxwg writes
    f.seek(0)
    got = jnp.load(f)
    assert isinstance(got, jaxwg.Array) and got.dtype == host.dtype
    np.testing.assert_array_equal(np.asarray(got), host)
    jnp.save(tmp_path / "a", jnp.asarray(host))  # a path gets ".npy", as np.save
    f.seek(0)
    np.testing.assert_array_equal(np.asarray(jnp.load(tmp_path / "a.npy")),
                                  np.asarray(jax_numpy.load(f)))


def test_savez_and_what_load_leaves_to_numpy(tmp_path):
    path = tmp_path / "many.npz"
    jnp.savez(path, jnp.arange(3), w=jnp.ones((2, 2)))
    with jnp.load(path) as npz, np.load(path) as reference:
        assert sorted(npz.files) == sorted(reference.files) == ["arr_0", "w"]
        np.testing.assert_array_equal(npz["w"], np.ones((2, 2), np.float32))
    f = io.BytesIO()
    np.save(f, np.array(["a", "b"]))
    f.seek(0)
    strings = jnp.load(f)
    f.seek(0)
    assert type(strings) is type(jax_numpy.load(f)) is np.ndarray  # no jaxwg dtype for strings


# -- vectorize ------------------------------------------------------------------------------------

SIGNATURES = [
    ("(n)->()", lambda v: (v * v).sum(), [(4,)]),
    ("(m,n),(n)->(m)", lambda a, b: a @ b, [(2, 3), (3,)]),
    ("(n),(n)->(),(n)", lambda a, b: ((a * b).sum(), a - b), [(3,), (3,)]),
    ("()->(k)", lambda s: s * np.arange(1.0, 3.0, dtype=np.float32), [()]),
]


@settings(max_examples=6, deadline=None)
@given(case=st.sampled_from(range(len(SIGNATURES))),
       loops=st.lists(st.lists(st.sampled_from([1, 2, 3]), max_size=2), min_size=2, max_size=2),
       data=st.data())
def test_vectorize_with_signatures_matches_jax(case, loops, data):
    signature, fn, cores = SIGNATURES[case]
    rng = np.random.default_rng(case)
    # loop shapes that broadcast: each axis is 1 or the size drawn for the first argument
    first = tuple(loops[0])
    shapes = [first[len(first) - len(loops[1][:len(first)]):] if i else first for i in range(len(cores))]
    shapes = [tuple(data.draw(st.sampled_from([1, n]), label="axis") for n in s) for s in shapes]
    args = [rng.standard_normal(s + c).astype(np.float32) for s, c in zip(shapes, cores)]
    got = jnp.vectorize(fn, signature=signature)(*[jnp.asarray(a) for a in args])
    want = jax_numpy.vectorize(fn, signature=signature)(*args)
    for g, w in zip(got if isinstance(got, tuple) else (got,), want if isinstance(want, tuple) else (want,)):
        _same(g, w)


def test_vectorize_of_scalars_broadcasts_and_keeps_dtypes(run):
    f = jnp.vectorize(lambda a, b: jnp.where(a > b, a - b, b * 2))
    a, b = np.arange(6, dtype=np.int32).reshape(2, 3), np.array([[1], [4]], np.int32)
    want = jax_numpy.vectorize(lambda a, b: jax_numpy.where(a > b, a - b, b * 2))(a, b)
    _same(run(f, jnp.asarray(a), jnp.asarray(b)), want)
    _same(run(f, jnp.asarray(np.float32(3)), jnp.asarray(np.float32(1))),
          jax_numpy.vectorize(lambda a, b: jax_numpy.where(a > b, a - b, b * 2))(
              np.float32(3), np.float32(1)))
    _same(jnp.vectorize(lambda a: a + 1)(jnp.zeros((0, 2))), np.ones((0, 2), np.float32))


def test_vectorize_excluded_arguments_and_none():
    def f(a, scale, *, offset):
        return a * scale + offset

    v = jnp.vectorize(f, excluded={1, "offset"})
    x = np.arange(3.0, dtype=np.float32)
    _same(v(jnp.asarray(x), [1.0, 2.0, 3.0][1], offset=np.float32(1)),
          jax_numpy.vectorize(f, excluded={1, "offset"})(x, 2.0, offset=np.float32(1)))
    g = jnp.vectorize(lambda a, b: a if b is None else a + b)
    _same(g(jnp.asarray(x), None), x)
    with pytest.raises(TypeError, match="exclude"):
        jnp.vectorize(f, excluded={1.5})
    with pytest.raises(ValueError, match="negative"):
        jnp.vectorize(f, excluded={-1})


def test_vectorize_errors_match_jax():
    cases = [
        ("(n)->()", lambda v: v.sum(), [np.ones((2, 3)), np.ones(3)], TypeError),  # 2 args
        ("(n),(n)->()", lambda a, b: a @ b, [np.ones(3), np.ones(4)], ValueError),
        ("(m,n)->()", lambda a: a.sum(), [np.ones(3)], ValueError),
        ("(n)->()", lambda v: v, [np.ones((2, 3))], ValueError),  # output rank
        ("(n)->(),()", lambda v: v.sum(), [np.ones(3)], TypeError),  # not a tuple
        ("n->()", lambda v: v, [np.ones(3)], ValueError),  # not a signature
    ]
    for signature, fn, args, error in cases:
        with pytest.raises(error):
            jax_numpy.vectorize(fn, signature=signature)(*args)
        with pytest.raises(error):
            jnp.vectorize(fn, signature=signature)(*[jnp.asarray(a) for a in args])
    with pytest.raises(ValueError, match="broadcasting"):
        jnp.vectorize(lambda a, b: a + b)(jnp.ones(2), jnp.ones(3))


def test_gradients_through_vectorize_match_jax():
    x = np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32)
    norm = "(n)->()"

    def loss(v, numpy):
        return numpy.vectorize(lambda r: numpy.sqrt((r * r).sum()), signature=norm)(v).sum()

    _same(jaxwg.grad(lambda v: loss(v, jnp))(jnp.asarray(x)), jax.grad(lambda v: loss(v, jax_numpy))(x))


# -- apply_along_axis, apply_over_axes --------------------------------------------------------------


@pytest.mark.parametrize("axis", [0, 1, 2, -1])
def test_apply_along_axis_matches_jax(run, axis):
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    for numpy_fn, jaxwg_fn in [(lambda v: v.sum(), lambda v: v.sum()),
                               (lambda v: v[::-1] * 2, lambda v: v[::-1] * 2),
                               (lambda v: jax_numpy.outer(v, v), lambda v: jnp.outer(v, v))]:
        got = run(lambda a: jnp.apply_along_axis(jaxwg_fn, axis, a), jnp.asarray(x))
        _same(got, jax_numpy.apply_along_axis(numpy_fn, axis, x))
    _same(jnp.apply_along_axis(lambda v, k: v * k, 0, jnp.asarray(x), 3.0),
          jax_numpy.apply_along_axis(lambda v, k: v * k, 0, x, 3.0))
    with pytest.raises(ValueError):
        jnp.apply_along_axis(jnp.sum, 3, jnp.asarray(x))


def test_apply_over_axes_matches_jax(run):
    x = np.arange(24, dtype=np.int32).reshape(2, 3, 4)
    for axes in [(0,), (0, 2), (-1, 1), ()]:
        got = run(lambda a: jnp.apply_over_axes(jnp.sum, a, axes), jnp.asarray(x))
        _same(got, jax_numpy.apply_over_axes(jax_numpy.sum, x, axes))
    _same(jnp.apply_over_axes(lambda a, ax: jnp.cumsum(a, ax), jnp.asarray(x), [1]),
          jax_numpy.apply_over_axes(lambda a, ax: jax_numpy.cumsum(a, ax), x, [1]))
    with pytest.raises(ValueError, match="shape"):
        jnp.apply_over_axes(lambda a, ax: a.sum(), jnp.asarray(x), [0])


def test_vectorize_refuses_an_array_keyword_it_would_not_map():
    """NumPy maps it, JAX drops it; passing it through whole gave an outer sum."""
    add = jnp.vectorize(lambda a, b=1: a + b)
    assert add(jnp.arange(3), b=5).tolist() == [5, 6, 7]
    with pytest.raises(TypeError, match="positional arguments only"):
        add(jnp.arange(3), b=jnp.arange(3))
