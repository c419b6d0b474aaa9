"""`vmap` of every primitive against a Python loop, compositions with grad and jit,
named-axis collectives, Jacobians, and JAX's errors."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import jaxwg
import jaxwg.numpy as jnp
from jaxwg import lax

from .helpers import jax, jax_numpy
from .transform_cases import CASES, INT_CASES, inputs, int_inputs, ours

BATCH = 3


def _batched(args_for_member, axes):
    """Per-member argument lists stacked along each argument's axis (None: member 0's)."""
    out = []
    for i, axis in enumerate(axes):
        if axis is None:
            out.append(args_for_member[0][i])
        else:
            out.append(np.stack([m[i] for m in args_for_member], axis=axis))
    return out


def _check_vmap(fn, members, data):
    n = len(members[0])
    axes = data.draw(st.lists(st.sampled_from([0, -1, None]), min_size=n, max_size=n)
                     .filter(lambda a: any(x is not None for x in a)), label="in_axes")
    out_axis = data.draw(st.sampled_from([0, -1]), label="out_axes")
    # An unmapped argument is the same for every member.
    members = [[m[i] if axes[i] is not None else members[0][i] for i in range(n)] for m in members]
    want = np.stack([np.asarray(fn(*[jnp.asarray(a) for a in m])) for m in members], axis=out_axis)
    batched = [jnp.asarray(a) for a in _batched(members, axes)]
    got = jaxwg.vmap(fn, in_axes=tuple(axes), out_axes=out_axis)(*batched)
    assert got.dtype == want.dtype
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("case", sorted(CASES))
@settings(max_examples=6)
@given(data=st.data())
def test_vmap_of_each_primitive_matches_a_loop(case, data):
    seed = data.draw(st.integers(0, 2 ** 16), label="seed")
    _check_vmap(ours(case), [inputs(case, seed + k) for k in range(BATCH)], data)


@pytest.mark.parametrize("case", sorted(INT_CASES))
@settings(max_examples=6)
@given(data=st.data())
def test_vmap_of_integer_primitives_matches_a_loop(case, data):
    seed = data.draw(st.integers(0, 2 ** 16), label="seed")
    fn = INT_CASES[case][0]
    _check_vmap(lambda *a: fn(lax, jnp, *a), [int_inputs(case, seed + k) for k in range(BATCH)], data)


def test_vmap_of_a_product_is_one_batched_product():
    jaxpr = jaxwg.make_jaxpr(jaxwg.vmap(lambda a, b: a @ b, in_axes=(0, None)))(
        jnp.ones((5, 2, 3)), jnp.ones((3, 4)))
    assert [e.primitive.name for e in jaxpr.eqns] == ["dot_general"]


def test_pad_with_a_batched_padding_value():
    x = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    got = jaxwg.vmap(lambda x, v: lax.pad(x, v, [(1, 1, 1)]))(jnp.asarray(x), jnp.array([7.0, 9.0]))
    want = [np.asarray(lax.pad(jnp.asarray(x[i]), v, [(1, 1, 1)])) for i, v in enumerate([7.0, 9.0])]
    np.testing.assert_array_equal(np.asarray(got), np.stack(want))


def test_clamp_with_batched_bounds_of_an_unbatched_scalar_matches_a_loop():
    """The scalar operand is broadcast to the batch (JAX's rule does that for a batched
    lower bound and fails for an upper one)."""
    bounds = np.array([0.5, 1.2, 2.0], np.float32)
    for f in (lambda b: lax.clamp(b, 1.0, 2.0), lambda b: lax.clamp(0.0, 1.0, b)):
        got = jaxwg.vmap(f)(jnp.asarray(bounds))
        np.testing.assert_array_equal(np.asarray(got), [np.asarray(f(b)) for b in bounds])


def test_per_example_gradients_match_jax(platform):
    rng = np.random.default_rng(0)
    w = rng.standard_normal((6, 3)).astype(np.float32)
    xs = rng.standard_normal((5, 6)).astype(np.float32)
    ys = rng.standard_normal((5, 3)).astype(np.float32)

    def loss(N):
        return lambda w, x, y: N.sum((N.tanh(x @ w) - y) ** 2)

    got = jaxwg.jit(jaxwg.vmap(jaxwg.grad(loss(jnp)), in_axes=(None, 0, 0)))(
        jnp.asarray(w), jnp.asarray(xs), jnp.asarray(ys))
    want = jax.vmap(jax.grad(loss(jax_numpy)), in_axes=(None, 0, 0))(w, xs, ys)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-5, atol=1e-6)


def test_compositions():
    x = jnp.asarray(np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4))
    f = lambda v: jnp.sum(jnp.sin(v) * v)  # noqa: E731
    np.testing.assert_allclose(np.asarray(jaxwg.grad(lambda x: jnp.sum(jaxwg.vmap(f)(x)))(x)),
                               np.asarray(jaxwg.vmap(jaxwg.grad(f))(x)), rtol=1e-6)
    inner = jaxwg.jit(lambda v: v * 2.0 + 1.0)
    np.testing.assert_allclose(np.asarray(jaxwg.jit(jaxwg.vmap(inner))(x)), np.asarray(x) * 2 + 1)
    outer = jaxwg.vmap(jaxwg.vmap(lambda a, b: a * b), in_axes=(0, None))
    np.testing.assert_allclose(np.asarray(outer(x, x[0])), np.asarray(x) * np.asarray(x[0]))
    tree = jaxwg.vmap(lambda d: {"s": d["a"] + d["b"]}, in_axes=({"a": 0, "b": None},))(
        {"a": x, "b": x[0]})
    np.testing.assert_allclose(np.asarray(tree["s"]), np.asarray(x) + np.asarray(x[0]))
    made = jaxwg.vmap(lambda: jnp.ones(2), axis_size=4)()
    assert made.shape == (4, 2)


def test_unmapped_arguments_reach_static_arguments_of_jit():
    x = np.arange(3.0, dtype=np.float32)
    for static in ({"static_argnums": 1}, {"static_argnames": "n"}):
        got = jaxwg.vmap(jaxwg.jit(lambda x, n: x**n, **static), in_axes=(0, None))(jnp.asarray(x), 2)
        want = jax.vmap(jax.jit(lambda x, n: x**n, **static), in_axes=(0, None))(x, 2)
        np.testing.assert_allclose(np.asarray(got), np.asarray(want))


def test_named_axis_collectives_match_jax():
    x = np.arange(12.0, dtype=np.float32).reshape(3, 4)

    def f(L):
        return lambda v: (L.psum(v, "i") - L.pmean(v, "i"), L.pmax(v, "i"), L.pmin(v, "i"))

    got = jaxwg.vmap(f(lax), axis_name="i")(jnp.asarray(x))
    want = jax.vmap(f(jax.lax), axis_name="i")(x)
    for a, b in zip(got, want):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-6)
    # an outer axis seen from inside an inner vmap
    got = jaxwg.vmap(jaxwg.vmap(lambda v: lax.psum(v, "outer")), axis_name="outer")(jnp.asarray(x))
    want = jax.vmap(jax.vmap(lambda v: jax.lax.psum(v, "outer")), axis_name="outer")(x)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want))
    # gradients through collectives (JAX has no rule for pmax's: the same function
    # written with max over the mapped axis is the oracle)
    g = jaxwg.grad(lambda x: jnp.sum(jaxwg.vmap(lambda v: v * lax.pmax(v, "i"), axis_name="i")(x)))
    gj = jax.grad(lambda x: jax_numpy.sum(x * jax_numpy.max(x, axis=0)))
    np.testing.assert_allclose(np.asarray(g(jnp.asarray(x))), np.asarray(gj(x)), rtol=1e-6)
    g = jaxwg.grad(lambda x: jnp.sum(jaxwg.vmap(lambda v: v * lax.psum(v, "i"), axis_name="i")(x)))
    gj = jax.grad(lambda x: jax_numpy.sum(jax.vmap(lambda v: v * jax.lax.psum(v, "i"), axis_name="i")(x)))
    np.testing.assert_allclose(np.asarray(g(jnp.asarray(x))), np.asarray(gj(x)), rtol=1e-6)
    with pytest.raises(NameError, match="unbound axis name: j"):
        lax.psum(jnp.ones(2), "j")


def _same_as_jax(make):
    """`make(vmap-module, lax-module, numpy-module)` run with jaxwg and with JAX."""
    got = make(jaxwg, lax, jnp)
    want = make(jax, jax.lax, jax_numpy)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6)
    assert np.asarray(got).dtype == np.asarray(want).dtype
    assert got.weak_type == want.weak_type


M = np.arange(6.0, dtype=np.float32).reshape(3, 2)
W = np.arange(18.0, dtype=np.float32).reshape(3, 3, 2)

NESTED_COLLECTIVES = {
    "jit": lambda m, L, n: m.vmap(m.jit(lambda v: L.psum(v, "i")), axis_name="i")(M),
    "jit_pmean": lambda m, L, n: m.vmap(m.jit(lambda v: L.pmean(v, "i")), axis_name="i")(M),
    "scan": lambda m, L, n: m.vmap(
        lambda v: L.scan(lambda c, x: (c + L.psum(x, "i"), c), 0.0, v)[0], axis_name="i")(M),
    "cond": lambda m, L, n: m.vmap(
        lambda v: L.cond(v[0] > 1, lambda v: L.psum(v, "i"), lambda v: -v, v), axis_name="i")(M),
    "jit_unbatched": lambda m, L, n: m.vmap(m.jit(lambda a, c: L.psum(c, "i") + a),
                                            in_axes=(0, None), axis_name="i")(M, M[0]),
}


@pytest.mark.parametrize("name", sorted(NESTED_COLLECTIVES))
def test_collectives_inside_nested_traces_match_jax(name):
    _same_as_jax(NESTED_COLLECTIVES[name])


UNBATCHED_COLLECTIVES = {
    "closed_over": lambda m, L, n: m.vmap(lambda a, c: L.psum(c * 2.0, "i"), in_axes=(0, None),
                                          axis_name="i")(n.ones(3), n.ones(2)),
    "python_scalar": lambda m, L, n: m.vmap(lambda x: L.psum(1, "i") * x, axis_name="i")(n.ones(3)),
    "pmean_of_constant": lambda m, L, n: m.vmap(lambda x: L.pmean(2.0, "i") * x,
                                                axis_name="i")(n.ones(3)),
    "pmax_of_constant": lambda m, L, n: m.vmap(lambda x: L.pmax(2.0, "i") * x,
                                               axis_name="i")(n.ones(3)),
    # weakly typed values stay weak: JAX multiplies by the axis size, a Python int
    "weak_psum": lambda m, L, n: m.vmap(lambda x: L.psum(1.5, "i"), axis_name="i")(n.ones(3)),
    "weak_pmean_of_int": lambda m, L, n: m.vmap(lambda x: L.pmean(2, "i"), axis_name="i")(
        n.ones(3)),
}


@pytest.mark.parametrize("name", sorted(UNBATCHED_COLLECTIVES))
def test_collectives_of_unbatched_values_match_jax(name):
    _same_as_jax(UNBATCHED_COLLECTIVES[name])


def _nested(m, f):
    return m.vmap(m.vmap(f, axis_name="j"), axis_name="i")


AXIS_COLLECTIVES = {
    "psum_two_axes": lambda m, L, n: _nested(m, lambda v: L.psum(v, ("i", "j")))(M),
    "pmean_two_axes": lambda m, L, n: _nested(m, lambda v: L.pmean(v, ["j", "i"]))(M),
    "pmax_two_axes": lambda m, L, n: _nested(m, lambda v: L.pmax(v, ("i", "j")))(M),
    "axis_index": lambda m, L, n: m.vmap(lambda v: v + L.axis_index("i"), axis_name="i")(M),
    "axis_index_in_jit": lambda m, L, n: m.vmap(m.jit(lambda v: L.axis_index("i")),
                                                axis_name="i")(M),
    "axis_index_two_axes": lambda m, L, n: _nested(m, lambda v: L.axis_index(("i", "j")))(M),
    "all_gather": lambda m, L, n: m.vmap(lambda v: L.all_gather(v, "i"), axis_name="i")(M),
    "all_gather_axis_1": lambda m, L, n: m.vmap(lambda v: L.all_gather(v, "i", axis=-1),
                                                axis_name="i")(M),
    "all_gather_tiled": lambda m, L, n: m.vmap(m.jit(lambda v: L.all_gather(v, "i", tiled=True)),
                                               axis_name="i")(M),
    "all_gather_unbatched": lambda m, L, n: m.vmap(lambda v, c: L.all_gather(c, "i"),
                                                   in_axes=(0, None), axis_name="i")(M, M[0]),
    "all_gather_outer_axis": lambda m, L, n: _nested(m, lambda v: L.all_gather(v, "i"))(M),
    "all_gather_grad": lambda m, L, n: m.vmap(
        m.grad(lambda v, w: (L.all_gather(v, "i") * w).sum()), axis_name="i")(M, W),
    "all_gather_tiled_grad": lambda m, L, n: m.vmap(
        m.grad(lambda v, w: (L.all_gather(v, "i", tiled=True) * w.reshape(6)).sum()),
        axis_name="i")(M, W),
    "all_gather_grad_outside": lambda m, L, n: m.grad(lambda x: m.vmap(
        lambda v, w: (L.all_gather(v, "i") * w).sum(), axis_name="i")(x, W).sum())(M),
    "all_gather_jvp": lambda m, L, n: m.jvp(
        m.vmap(lambda v: L.all_gather(v, "i", axis=1), axis_name="i"), (M,), (M * 2,))[1],
    "pmean_of_ints": lambda m, L, n: m.vmap(lambda v: L.pmean(v, "i"), axis_name="i")(
        n.array([1, 2, 3, 4])),
    "pmean_of_bools": lambda m, L, n: m.vmap(lambda v: L.pmean(v, "i"), axis_name="i")(
        n.array([True, False, True, True])),
    "psum_of_bools": lambda m, L, n: m.vmap(lambda v: L.psum(v, "i"), axis_name="i")(
        n.array([True, False, True])),
    "pmean_of_complex": lambda m, L, n: m.vmap(lambda v: L.pmean(v, "i"), axis_name="i")(
        n.array([1 + 2j, 3 - 1j], n.complex64)),
}


@pytest.mark.parametrize("name", sorted(AXIS_COLLECTIVES))
def test_axis_collectives_match_jax(name):
    _same_as_jax(AXIS_COLLECTIVES[name])


def test_collective_errors_match_jax():
    with pytest.raises(NameError, match="unbound axis name: j"):
        jaxwg.vmap(lambda v: lax.psum(v, ("i", "j")), axis_name="i")(jnp.ones(3))
    with pytest.raises(NameError, match="unbound axis name: i"):
        lax.axis_index("i")
    with pytest.raises(ValueError, match="axis 2 is out of bounds for array of dimension 2"):
        jaxwg.vmap(lambda v: lax.all_gather(v, "i", axis=2), axis_name="i")(jnp.ones((3, 2)))


@pytest.mark.parametrize("name", ["jacfwd", "jacrev"])
def test_jacobians_of_pytrees_match_jax(name):
    def f(N):
        return lambda p, s: ({"u": N.sin(p["w"]) * s, "v": N.sum(p["w"] ** 2)}, s * 2.0)

    p = {"w": np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3)}
    got = getattr(jaxwg, name)(f(jnp), argnums=(0, 1), has_aux=False)(
        {"w": jnp.asarray(p["w"])}, jnp.array(1.5))
    want = getattr(jax, name)(f(jax_numpy), argnums=(0, 1))(p, np.float32(1.5))
    got_leaves, got_tree = jaxwg.tree_util.tree_flatten(got)
    want_leaves = jax.tree_util.tree_leaves(want)
    assert len(got_leaves) == len(want_leaves)
    for a, b in zip(got_leaves, want_leaves):
        assert a.shape == b.shape
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-6, atol=1e-7)


def test_hessian_matches_jax():
    f = lambda N: lambda x: N.sum(N.tanh(x) ** 3 * x[::-1])  # noqa: E731
    x = np.linspace(-1, 1, 5, dtype=np.float32)
    np.testing.assert_allclose(np.asarray(jaxwg.hessian(f(jnp))(jnp.asarray(x))),
                               np.asarray(jax.hessian(f(jax_numpy))(x)), rtol=1e-5, atol=1e-6)


def test_errors_match_jax():
    with pytest.raises(ValueError, match="inconsistent sizes for array axes to be mapped"):
        jaxwg.vmap(lambda a, b: a + b)(jnp.ones(3), jnp.ones(4))
    with pytest.raises(ValueError, match="map its argument along axis 2"):
        jaxwg.vmap(lambda a: a, in_axes=2)(jnp.ones(3))
    with pytest.raises(ValueError, match="at least one non-None value in in_axes"):
        jaxwg.vmap(lambda a: a, in_axes=None)(jnp.ones(3))
    with pytest.raises(ValueError, match="mapped output but out_axes is None"):
        jaxwg.vmap(lambda a: a, out_axes=None)(jnp.ones(3))
    with pytest.raises(ValueError, match="len\\(in_axes\\)=2, len\\(args\\)=1"):
        jaxwg.vmap(lambda a: a, in_axes=(0, 0))(jnp.ones(3))
    for out_axes in (3, -4, (0, 5)):
        for m, n in ((jaxwg, jnp), (jax, jax_numpy)):
            with pytest.raises(ValueError, match="is out of bounds for array of dimension 3"):
                m.vmap(lambda a: (a, a), out_axes=out_axes)(n.ones((3, 2, 2)))
    with pytest.raises(ValueError, match="axis 1 is out of bounds for array of dimension 1"):
        jaxwg.vmap(lambda a: 1.0, out_axes=1)(jnp.ones(3))


@pytest.mark.parametrize("axes", [{"in_axes": 0.0}, {"in_axes": {"a": 0}}, {"in_axes": True},
                                  {"in_axes": (np.int64(0),)}, {"out_axes": (0, "x")},
                                  {"out_axes": np.int32(0)}], ids=str)
def test_axis_specs_of_other_types_are_jaxs_type_error(axes):
    with pytest.raises(TypeError) as want:
        jax.vmap(lambda a: a, **axes)
    with pytest.raises(TypeError) as got:
        jaxwg.vmap(lambda a: a, **axes)
    assert str(got.value) == str(want.value)
