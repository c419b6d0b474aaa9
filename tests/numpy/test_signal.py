"""`convolve`, `correlate`, `interp`, `gradient` and `trapezoid` against JAX."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import jaxwg
import jaxwg.numpy as jnp

from .helpers import assert_close, jax, jax_numpy, normal_float32


@settings(max_examples=5, deadline=None)
@given(a_len=st.integers(1, 9), v_len=st.integers(1, 9),
       mode=st.sampled_from(["full", "same", "valid"]))
def test_convolve_correlate_match_jax(run, a_len, v_len, mode):
    a, v = normal_float32(a_len, a_len), normal_float32(v_len, 10 + v_len)
    for name in ("convolve", "correlate"):
        assert_close(run(getattr(jnp, name), jnp.asarray(a), jnp.asarray(v), mode=mode),
                     getattr(jax_numpy, name)(a, v, mode=mode), rtol=1e-5)


def test_convolve_dtypes_and_defaults(platform):
    a, v = np.arange(5, dtype=np.int32), np.array([1, -2, 3], np.int32)
    assert_close(jnp.convolve(jnp.asarray(a), jnp.asarray(v)), jax_numpy.convolve(a, v))  # float32
    assert_close(jnp.correlate(jnp.asarray(a), jnp.asarray(v)), jax_numpy.correlate(a, v))  # valid
    got = jnp.convolve(jnp.asarray(a), jnp.asarray(v), preferred_element_type=jnp.int32)
    assert_close(got, jax_numpy.convolve(a, v, preferred_element_type=np.int32))
    h = np.array([0.5, -1.0, 2.0], np.float16)
    assert_close(jnp.convolve(jnp.asarray(h), jnp.asarray(h), precision="highest"),
                 jax_numpy.convolve(h, h, precision="highest"))
    assert_close(jnp.convolve(jnp.array([1.0, np.inf]), jnp.array([1.0, 0.0])),
                 jax_numpy.convolve(np.float32([1.0, np.inf]), np.float32([1.0, 0.0])))


def test_convolve_long_signal(platform):
    """10^4 samples by a kernel of 10^2: one gather and a dot, not 10^2 passes."""
    a, v = normal_float32(10_000, 1), normal_float32(100, 2)
    assert_close(jnp.convolve(jnp.asarray(a), jnp.asarray(v), mode="same"),
                 jax_numpy.convolve(a, v, mode="same"), rtol=1e-4, atol=1e-4)


def test_convolve_errors():
    with pytest.raises(ValueError, match=r"convolve\(\) only support 1-dimensional"):
        jnp.convolve(jnp.ones((2, 2)), jnp.ones(2))
    with pytest.raises(ValueError, match=r"correlate: inputs cannot be empty, got shapes \(0,\)"):
        jnp.correlate(jnp.ones(0), jnp.ones(2))
    with pytest.raises(ValueError, match="mode must be one of"):
        jnp.convolve(jnp.ones(3), jnp.ones(2), mode="circular")
    with pytest.raises(TypeError, match="convolve requires ndarray"):
        jnp.convolve([1.0, 2.0], jnp.ones(2))


def test_convolve_grad_and_vmap_match_jax(platform):
    a, v = normal_float32(7, 3), normal_float32(3, 4)

    def loss(np_):
        return lambda x, k: np_.sum(np_.convolve(x, k, mode="same") ** 2)

    for got, want in zip(jaxwg.grad(loss(jnp), argnums=(0, 1))(jnp.asarray(a), jnp.asarray(v)),
                         jax.grad(loss(jax_numpy), argnums=(0, 1))(a, v)):
        assert_close(got, want, rtol=1e-5, atol=1e-5)
    rows = normal_float32((3, 7), 5)
    assert_close(jaxwg.vmap(jnp.correlate, in_axes=(0, None))(jnp.asarray(rows), jnp.asarray(v)),
                 jax.vmap(jax_numpy.correlate, in_axes=(0, None))(rows, v), rtol=1e-5)


_XP = np.float32([0.0, 0.5, 2.0, 2.0, 3.5, 7.0])  # a repeated point: a jump
_FP = np.float32([1.0, -1.0, 0.0, 4.0, 2.0, 3.0])
_X = np.float32([-3.0, 0.0, 0.25, 1.9, 2.0, 2.1, 5.0, 7.0, 9.0, np.nan, np.inf, -np.inf])


@pytest.mark.parametrize("kwargs", [{}, {"left": -5.0, "right": np.float32(7.0)},
                                    {"left": "extrapolate", "right": "extrapolate"},
                                    {"period": 3.0}, {"period": -4.0}],
                         ids=["ends", "fill", "extrapolate", "period", "negative-period"])
def test_interp_matches_jax(run, kwargs):
    got = run(lambda x, xp, fp: jnp.interp(x, xp, fp, **kwargs), jnp.asarray(_X),
              jnp.asarray(_XP), jnp.asarray(_FP))
    assert_close(got, jax_numpy.interp(_X, _XP, _FP, **kwargs))


def test_interp_dtypes_and_edge_cases(platform):
    assert_close(jnp.interp(jnp.arange(4), jnp.arange(3), jnp.arange(3) * 2),
                 jax_numpy.interp(np.arange(4), np.arange(3), np.arange(3) * 2))
    assert_close(jnp.interp(1.5, jnp.asarray(_XP), jnp.asarray(_FP)), jax_numpy.interp(1.5, _XP, _FP))
    one = np.float32([2.0])  # a single point: its value everywhere
    assert_close(jnp.interp(jnp.asarray(_X), jnp.asarray(one), jnp.asarray(one)),
                 jax_numpy.interp(_X, one, one))
    half = np.float16([0.0, 1.0, 3.0])
    assert_close(jnp.interp(jnp.asarray(half), jnp.asarray(half), jnp.asarray(half) * 2),
                 jax_numpy.interp(half, half, half * 2))


def test_interp_errors():
    with pytest.raises(ValueError, match="xp and fp must be one-dimensional arrays of equal size"):
        jnp.interp(jnp.ones(3), jnp.ones(3), jnp.ones(2))
    with pytest.raises(ValueError, match="the only valid string value of `right`"):
        jnp.interp(jnp.ones(3), jnp.arange(3.0), jnp.ones(3), right="clip")
    with pytest.raises(ValueError, match="period must be a scalar"):
        jnp.interp(jnp.ones(3), jnp.arange(3.0), jnp.ones(3), period=jnp.ones(2))


def test_interp_grad_matches_jax(platform):
    x = np.float32([0.3, 1.0, 2.0, 4.0, 8.0])

    def loss(np_):
        return lambda x, fp: np_.sum(np_.interp(x, _XP, fp) * np_.arange(5.0))

    for got, want in zip(jaxwg.grad(loss(jnp), argnums=(0, 1))(jnp.asarray(x), jnp.asarray(_FP)),
                         jax.grad(loss(jax_numpy), argnums=(0, 1))(x, _FP)):
        assert_close(got, want)


@settings(max_examples=5, deadline=None)
@given(shape=st.lists(st.integers(2, 5), min_size=1, max_size=3).map(tuple), data=st.data())
def test_gradient_matches_jax(run, shape, data):
    f = normal_float32(shape, sum(shape))
    axis = data.draw(st.sampled_from([None, -1, tuple(range(len(shape)))[::-1]]), label="axis")
    n_axes = len(shape) if axis is None or isinstance(axis, tuple) else 1
    spacing = data.draw(st.sampled_from(["none", "scalar", "per-axis"]), label="spacing")
    axes = range(len(shape)) if axis is None else np.atleast_1d(axis)
    coords = [np.cumsum(np.random.default_rng(i).uniform(0.2, 1.0, shape[ax])).astype(np.float32)
              for i, ax in enumerate(axes)]
    args = {"none": [], "scalar": [0.5], "per-axis": [c if i % 2 == 0 else 1.5
                                                      for i, c in enumerate(coords)]}[spacing]
    got = run(lambda f, *h: jnp.gradient(f, *h, axis=axis), jnp.asarray(f),
              *[jnp.asarray(h) for h in args])
    want = jax_numpy.gradient(f, *args, axis=axis)
    if n_axes == 1:
        got, want = [got], [want]
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert_close(g, w, rtol=1e-5, atol=1e-5)


def test_gradient_edge_cases(platform):
    assert_close(jnp.gradient(jnp.float32([1.0, 3.0])), jax_numpy.gradient(np.float32([1.0, 3.0])))
    squares = np.arange(5, dtype=np.int32) ** 2
    assert_close(jnp.gradient(jnp.asarray(squares)), jax_numpy.gradient(squares))
    assert jnp.gradient(jnp.ones(3), axis=()) == [] == jax_numpy.gradient(np.ones(3), axis=())


def test_gradient_errors():
    with pytest.raises(NotImplementedError, match="'edge_order' argument to jnp.gradient"):
        jnp.gradient(jnp.ones(3), edge_order=1)
    with pytest.raises(ValueError, match="at least 2 elements are required"):
        jnp.gradient(jnp.ones((3, 1)))
    with pytest.raises(TypeError, match="Invalid number of spacing arguments 3"):
        jnp.gradient(jnp.ones((3, 3)), 1.0, 2.0, 3.0)
    with pytest.raises(ValueError, match="Spacing arrays must have the same length"):
        jnp.gradient(jnp.ones(3), jnp.ones(2))
    with pytest.raises(ValueError, match="Spacing arrays must be 1D arrays or scalars"):
        jnp.gradient(jnp.ones(3), jnp.ones((3, 1)))


def test_gradient_grad_matches_jax(platform):
    f, x = normal_float32(6, 8), np.cumsum(np.linspace(0.5, 1.0, 6)).astype(np.float32)

    def loss(np_):
        return lambda f, x: np_.sum(np_.gradient(f, x) * np_.arange(6.0))

    for got, want in zip(jaxwg.grad(loss(jnp), argnums=(0, 1))(jnp.asarray(f), jnp.asarray(x)),
                         jax.grad(loss(jax_numpy), argnums=(0, 1))(f, x)):
        assert_close(got, want, rtol=1e-4, atol=1e-4)


_STEPS = np.float32([[0.5], [1.0], [2.0]])


@pytest.mark.parametrize("case", ["unit", "dx", "dx-array", "x-1d", "x-2d", "x-2d-axis0", "ints"])
def test_trapezoid_matches_jax(run, case):
    y = normal_float32((3, 6), 9)
    x2 = np.cumsum(np.random.default_rng(1).uniform(0.1, 1.0, (3, 6)), axis=1).astype(np.float32)
    args, kwargs = {
        "unit": ((y,), {}), "dx": ((y,), {"dx": 0.3, "axis": 0}),
        "dx-array": ((y,), {"dx": _STEPS}), "x-1d": ((y, x2[0]), {}),
        "x-2d": ((y, x2), {}), "x-2d-axis0": ((y, x2), {"axis": 0}),
        "ints": ((np.arange(5, dtype=np.int32),), {})}[case]
    got = run(lambda *a: jnp.trapezoid(*a, **kwargs), *[jnp.asarray(a) for a in args])
    assert_close(got, jax_numpy.trapezoid(*args, **kwargs), rtol=1e-5, atol=1e-5)


def test_trapezoid_edge_cases_and_errors(platform):
    assert_close(jnp.trapezoid(jnp.ones(1)), jax_numpy.trapezoid(np.ones(1, np.float32)))
    assert_close(jnp.trapezoid(jnp.float32([1.0, np.inf])), jax_numpy.trapezoid(np.float32([1.0, np.inf])))
    with pytest.raises(IndexError):
        jnp.trapezoid(jnp.ones(0))
    with pytest.raises(TypeError, match="incompatible shapes"):
        jnp.trapezoid(jnp.ones(3), jnp.ones(4))
    with pytest.raises(TypeError, match="trapezoid requires ndarray"):
        jnp.trapezoid([1.0, 2.0])


def test_trapezoid_grad_and_vmap_match_jax(platform):
    y, x = normal_float32(5, 10), np.cumsum(np.linspace(0.2, 1.0, 5)).astype(np.float32)
    for got, want in zip(jaxwg.grad(jnp.trapezoid, argnums=(0, 1))(jnp.asarray(y), jnp.asarray(x)),
                         jax.grad(jax_numpy.trapezoid, argnums=(0, 1))(y, x)):
        assert_close(got, want)
    rows = normal_float32((4, 5), 11)
    assert_close(jaxwg.vmap(jnp.trapezoid)(jnp.asarray(rows)), jax.vmap(jax_numpy.trapezoid)(rows))


def test_interp_forms_the_fraction_first_and_poly_keeps_a_leading_one(platform):
    """A slope df / dx overflowed where JAX's (x - xp) / dx * df does not; an inf or
    NaN root made poly's leading coefficient NaN."""
    x, xp, fp = np.float32([0.25]), np.float32([0.0, 0.5]), np.float32([0.0, 3e38])
    assert_close(jnp.interp(jnp.asarray(x), jnp.asarray(xp), jnp.asarray(fp)),
                 jax_numpy.interp(x, xp, fp))
    roots = np.float32([np.nan, 1.0])
    assert_close(jnp.poly(jnp.asarray(roots)), jax_numpy.poly(roots))
