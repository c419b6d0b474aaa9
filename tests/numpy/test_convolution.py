"""Convolutions and windowed reductions (`lax.conv_general_dilated` and its wrappers,
`lax.reduce_window`, `lax.reduce`) against JAX: layouts, strides, padding modes,
dilations, feature and batch groups, empty outputs, gradients, vmap, and JAX's errors."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import jaxwg
import jaxwg.numpy as jnp
from jaxwg import lax

from .helpers import jax

# float32 sums of up to a few hundred products, each rounded once: the order of the
# terms differs from XLA's, so results agree to a few ulp of the sum of magnitudes.
TOL = dict(rtol=1e-5, atol=1e-5)


def _conv_pair(rng, lhs_shape, rhs_shape, **kw):
    x = rng.standard_normal(lhs_shape).astype(np.float32)
    w = rng.standard_normal(rhs_shape).astype(np.float32)
    want = jax.lax.conv_general_dilated(x, w, precision="highest", **kw)
    return x, w, np.asarray(want)


CONV_CASES = [
    dict(lhs=(2, 3, 9, 8), rhs=(4, 3, 3, 2), window_strides=(1, 1), padding="VALID"),
    dict(lhs=(2, 3, 9, 8), rhs=(4, 3, 3, 2), window_strides=(2, 3), padding="SAME"),
    dict(lhs=(2, 3, 9, 8), rhs=(4, 3, 3, 2), window_strides=(2, 1), padding=((1, 2), (-1, 0)),
         lhs_dilation=(2, 1), rhs_dilation=(1, 2)),
    dict(lhs=(2, 9, 8, 4), rhs=(3, 2, 4, 6), window_strides=(1, 2), padding="SAME_LOWER",
         dimension_numbers=("NHWC", "HWIO", "NHWC")),
    dict(lhs=(9, 2, 4, 8), rhs=(2, 6, 3, 4), window_strides=(1, 1), padding="SAME",
         dimension_numbers=("HNCW", "WOHI", "CWHN")),
    dict(lhs=(2, 6, 9, 8), rhs=(4, 3, 3, 2), window_strides=(1, 1), padding="SAME",
         feature_group_count=2),
    dict(lhs=(2, 6, 7, 5), rhs=(6, 1, 3, 3), window_strides=(1, 1), padding="SAME",
         feature_group_count=6),
    dict(lhs=(4, 3, 9, 8), rhs=(6, 3, 3, 2), window_strides=(1, 1), padding="VALID",
         batch_group_count=2),
    dict(lhs=(2, 3, 11), rhs=(4, 3, 3), window_strides=(3,), padding="VALID", rhs_dilation=(2,)),
    dict(lhs=(2, 3, 5, 5, 4), rhs=(4, 3, 2, 3, 2), window_strides=(1, 2, 1), padding="SAME"),
    dict(lhs=(2, 3, 4, 4), rhs=(4, 3, 5, 5), window_strides=(1, 1), padding="VALID"),  # empty
    dict(lhs=(2, 3, 4, 4), rhs=(4, 3, 1, 1), window_strides=(3, 3), padding="VALID"),
    dict(lhs=(1, 1, 7), rhs=(1, 1, 1), window_strides=(5,), padding=((0, 3),)),
]


@pytest.mark.parametrize("case", range(len(CONV_CASES)))
def test_conv_general_dilated_matches_jax(run, case):
    kw = dict(CONV_CASES[case])
    x, w, want = _conv_pair(np.random.default_rng(case), kw.pop("lhs"), kw.pop("rhs"), **kw)
    got = run(lambda a, b: lax.conv_general_dilated(a, b, **kw), jnp.asarray(x), jnp.asarray(w))
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_allclose(np.asarray(got), want, **TOL)


@settings(max_examples=10, deadline=None)
@given(n=st.integers(1, 2), c=st.integers(1, 3), o=st.integers(1, 3),
       spatial=st.lists(st.integers(1, 7), min_size=1, max_size=2), data=st.data())
def test_conv_with_random_geometry_matches_jax(n, c, o, spatial, data):
    window = [data.draw(st.integers(1, s + 1), label="window") for s in spatial]
    kw = dict(window_strides=[data.draw(st.integers(1, 3), label="stride") for _ in spatial],
              padding=data.draw(st.sampled_from(["VALID", "SAME", "SAME_LOWER"]), label="pad"),
              rhs_dilation=[data.draw(st.integers(1, 2), label="dil") for _ in spatial])
    x, w, want = _conv_pair(np.random.default_rng(0), (n, c, *spatial), (o, c, *window), **kw)
    got = lax.conv_general_dilated(jnp.asarray(x), jnp.asarray(w), **kw)
    assert got.shape == want.shape
    np.testing.assert_allclose(np.asarray(got), want, **TOL)


def test_conv_wrappers_and_conv_transpose_match_jax(platform):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 3, 7, 6)).astype(np.float32)
    w = rng.standard_normal((4, 3, 3, 2)).astype(np.float32)
    np.testing.assert_allclose(np.asarray(lax.conv(jnp.asarray(x), jnp.asarray(w), (2, 1), "SAME")),
                               jax.lax.conv(x, w, (2, 1), "SAME", precision="highest"), **TOL)
    np.testing.assert_allclose(
        np.asarray(lax.conv_with_general_padding(jnp.asarray(x), jnp.asarray(w), (1, 2),
                                                 [(1, 0), (2, 2)], (2, 1), (1, 2))),
        jax.lax.conv_with_general_padding(x, w, (1, 2), [(1, 0), (2, 2)], (2, 1), (1, 2),
                                          precision="highest"), **TOL)
    xt = rng.standard_normal((2, 5, 4, 3)).astype(np.float32)
    for pad in ("SAME", "VALID", [(1, 2), (0, 1)]):
        for transpose_kernel, wt in ((False, rng.standard_normal((3, 3, 3, 4))),
                                     (True, rng.standard_normal((3, 2, 4, 3)))):
            wt = wt.astype(np.float32)
            got = lax.conv_transpose(jnp.asarray(xt), jnp.asarray(wt), (2, 3), pad,
                                     transpose_kernel=transpose_kernel)
            want = jax.lax.conv_transpose(xt, wt, (2, 3), pad, transpose_kernel=transpose_kernel,
                                          precision="highest")
            assert got.shape == want.shape
            np.testing.assert_allclose(np.asarray(got), want, **TOL)


def test_conv_gradients_and_vmap_match_jax():
    rng = np.random.default_rng(2)
    x = rng.standard_normal((2, 4, 7, 6)).astype(np.float32)
    w = rng.standard_normal((4, 2, 3, 3)).astype(np.float32)

    def loss(lib, **precision):
        def f(a, b):
            y = lib.lax.conv_general_dilated(a, b, (2, 1), "SAME", rhs_dilation=(1, 2),
                                             feature_group_count=2, **precision)
            return (y * y).sum()
        return f

    got = jaxwg.grad(loss(jaxwg), (0, 1))(jnp.asarray(x), jnp.asarray(w))
    want = jax.grad(loss(jax, precision="highest"), (0, 1))(x, w)
    for g, e in zip(got, want):
        np.testing.assert_allclose(np.asarray(g), np.asarray(e), rtol=1e-4, atol=1e-4)
    xs, w4 = x.reshape(2, 1, 4, 7, 6), rng.standard_normal((3, 4, 2, 2)).astype(np.float32)
    got = jaxwg.vmap(lambda a, b: lax.conv(a, b, (1, 1), "VALID"), (0, None))(jnp.asarray(xs),
                                                                            jnp.asarray(w4))
    want = jax.vmap(lambda a, b: jax.lax.conv(a, b, (1, 1), "VALID", precision="highest"),
                    (0, None))(xs, w4)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), **TOL)


def test_conv_errors_match_jax():
    x, w = jnp.ones((1, 4, 5, 5)), jnp.ones((2, 4, 3, 3))
    with pytest.raises(TypeError, match="ndim to be equal"):
        lax.conv(x, jnp.ones((2, 4, 3)), (1, 1), "SAME")
    with pytest.raises(ValueError, match="feature_group_count must divide"):
        lax.conv_general_dilated(x, w, (1, 1), "SAME", feature_group_count=3)
    with pytest.raises(ValueError, match="must equal the rhs input feature"):
        lax.conv_general_dilated(x, jnp.ones((2, 3, 3, 3)), (1, 1), "SAME")
    with pytest.raises(ValueError, match="At most one of"):
        lax.conv_general_dilated(jnp.ones((2, 4, 5, 5)), jnp.ones((4, 2, 3, 3)), (1, 1), "SAME",
                                 feature_group_count=2, batch_group_count=2)
    with pytest.raises(TypeError, match="same dtypes"):
        lax.conv(x, jnp.ones((2, 4, 3, 3), jnp.float16), (1, 1), "SAME")
    with pytest.raises(ValueError, match="String padding is not implemented"):
        lax.conv_general_dilated(x, w, (1, 1), "SAME", lhs_dilation=(2, 2))
    with pytest.raises(RuntimeError, match="Unrecognized padding type"):
        lax.conv(x, w, (1, 1), "FULL")
    with pytest.raises(TypeError, match="must contain the characters"):
        lax.conv_general_dilated(x, w, (1, 1), "SAME", dimension_numbers=("NHWX", "OIHW", "NCHW"))
    with pytest.raises(TypeError, match="Wrong number of explicit pads"):
        lax.conv(x, w, (1, 1), [(1, 1)])


REDUCERS = [(lax.max, "max", -np.inf), (lax.add, "add", 0.0), (lax.add, "add", 1.5),
            (lax.mul, "mul", 1.0), (lax.min, "min", np.inf)]


@pytest.mark.parametrize("which", range(len(REDUCERS)))
@pytest.mark.parametrize("padding", ["VALID", "SAME", "SAME_LOWER", ((1, 0), (2, 1), (0, 3))])
def test_reduce_window_matches_jax(platform, which, padding):
    computation, name, init = REDUCERS[which]
    x = np.random.default_rng(3).standard_normal((2, 7, 9)).astype(np.float32)
    for window, strides, base, dilation in (((1, 3, 2), (1, 2, 1), None, None),
                                            ((2, 2, 3), (1, 1, 2), (1, 2, 1), (1, 1, 2)),
                                            ((1, 4, 1), (1, 3, 5), None, (1, 2, 1))):
        got = lax.reduce_window(jnp.asarray(x), init, computation, window, strides, padding,
                                base, dilation)
        want = jax.lax.reduce_window(x, np.float32(init), getattr(jax.lax, name), window,
                                     strides, padding, base, dilation)
        assert got.shape == want.shape
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-5)


def test_reduce_window_with_a_custom_computation_skips_padding_as_jax(run):
    x = np.random.default_rng(4).standard_normal((7, 9)).astype(np.float32)

    def both(a, b):
        return (a[0] + b[0], lax.max(a[1], b[1]))

    got = run(lambda v: lax.reduce_window((v, v), (1.5, -np.inf), both, (3, 2), (2, 1), "SAME",
                                          (1, 2)), jnp.asarray(x))
    want = jax.lax.reduce_window((x, x), (np.float32(1.5), np.float32(-np.inf)),
                                 lambda a, b: (a[0] + b[0], jax.lax.max(a[1], b[1])), (3, 2),
                                 (2, 1), "SAME", (1, 2))
    for g, e in zip(got, want):
        np.testing.assert_allclose(np.asarray(g), np.asarray(e), rtol=1e-5, atol=1e-6)


def test_max_pool_gradient_and_integer_pooling_match_jax():
    x = np.random.default_rng(5).standard_normal((2, 6, 6, 3)).astype(np.float32)

    def pool(lib):
        return lambda v: lib.lax.reduce_window(v, -np.inf, lib.lax.max, (1, 2, 2, 1),
                                               (1, 2, 2, 1), "VALID").sum()

    np.testing.assert_allclose(np.asarray(jaxwg.grad(pool(jaxwg))(jnp.asarray(x))),
                               np.asarray(jax.grad(pool(jax))(x)))
    xi = np.arange(30, dtype=np.int32).reshape(5, 6) % 7
    got = lax.reduce_window(jnp.asarray(xi), np.int32(0), lax.add, (2, 3), (1, 1), "SAME")
    want = jax.lax.reduce_window(xi, np.int32(0), jax.lax.add, (2, 3), (1, 1), "SAME")
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


@pytest.mark.parametrize("name", ["add", "mul", "max", "min", "custom"])
def test_reduce_and_reduce_window_weak_types_match_jax(name):
    """JAX's reduce is weak where the operand and the init are; its reduce_window only
    where it uses a primitive of its own (add, max, min from a concrete identity), which
    keeps the operand's weak type (its generic reduce_window's result is strong)."""
    for init in (0.0, 1.0, -np.inf, np.inf, np.float32(0), 0):
        outcomes = []
        for lib in (jaxwg, jax):
            computation = (lambda a, b: a + b) if name == "custom" else getattr(lib.lax, name)

            def both(s, lib=lib, computation=computation, init=init):
                x = lib.numpy.broadcast_to(s, (5,))  # weakly typed
                return (lib.lax.reduce(x, init, computation, (0,)),
                        lib.lax.reduce_window(x, init, computation, (2,), (1,), "SAME"))

            try:
                outs = lib.jit(both)(2.0)
                outcomes.append([(str(o.dtype), o.weak_type) for o in outs])
            except TypeError:  # JAX's init dtype check (an int init): ours converts
                outcomes.append(None)
        if outcomes[1] is not None:
            assert outcomes[0] == outcomes[1], (name, init)


def test_reduce_with_custom_and_variadic_computations_matches_jax(run):
    x = np.random.default_rng(6).standard_normal((3, 5, 4)).astype(np.float32)
    got = run(lambda v: lax.reduce(v, 0.0, lambda a, b: a + b, (0, 2)), jnp.asarray(x))
    np.testing.assert_allclose(np.asarray(got), x.sum((0, 2)), rtol=1e-5)
    i = np.broadcast_to(np.arange(5, dtype=np.int32)[None, :, None], x.shape)

    def argmax(a, b):  # (value, index) pairs: the larger value, the first index on ties
        take_a = (a[0] > b[0]) | ((a[0] == b[0]) & (a[1] < b[1]))
        return (jnp.where(take_a, a[0], b[0]), jnp.where(take_a, a[1], b[1]))

    values, index = run(lambda v, k: lax.reduce((v, k), (-np.inf, 0), argmax, (1,)),
                        jnp.asarray(x), jnp.asarray(i))
    np.testing.assert_array_equal(np.asarray(index), x.argmax(1))
    np.testing.assert_allclose(np.asarray(values), x.max(1))
    assert lax.reduce(jnp.ones((0, 3)), 2.0, lambda a, b: a * b, (0,)).tolist() == [2.0] * 3
    with pytest.raises(ValueError, match="not distinct axes"):
        lax.reduce(jnp.ones(3), 0.0, lax.add, (1,))


@pytest.mark.parametrize("computation", ["add", "mul"])
def test_reduce_folds_a_non_identity_init_in_once_as_jax(run, computation):
    """An init value that is not the computation's identity counts once, whatever the
    length (the pairwise fold padded odd lengths with it: sum(1..3) with init 1 was 8).
    JAX's (XLA's) reduce of one element leaves the init value out; jaxwg folds it in."""
    # lambdas: lax.add and lax.mul would reduce through their primitives, not the fold
    fns = {"add": (lambda a, b: a + b, 1.0), "mul": (lambda a, b: a * b, 2.0)}
    fn, init = fns[computation]
    for n in (0, 3, 6, 7, 13):
        x = np.linspace(0.5, 1.5, n, dtype=np.float32)
        got = run(lambda v: lax.reduce(v, np.float32(init), fn, (0,)), jnp.asarray(x))
        np.testing.assert_allclose(np.asarray(got), jax.lax.reduce(x, np.float32(init), fn, (0,)), rtol=1e-6)
    x = np.linspace(-1, 1, 2 * 3 * 5, dtype=np.float32).reshape(2, 3, 5)
    for axes in ((1,), (0, 2)):
        got = run(lambda v: lax.reduce(v, np.float32(init), fn, axes), jnp.asarray(x))
        np.testing.assert_allclose(np.asarray(got), jax.lax.reduce(x, np.float32(init), fn, axes),
                                   rtol=1e-6, atol=1e-7)
    assert float(lax.reduce(jnp.array([3.0]), np.float32(init), fn, (0,))) == fn(3.0, init)
