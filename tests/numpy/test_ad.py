"""Differentiation (`jvp`, `linearize`, `vjp`, `grad`, `value_and_grad`) of every primitive
and of real programs, against finite differences, the transpose identity and JAX."""

import contextlib
import os

import numpy as np
import pytest
from hypothesis import given, strategies as st

import jaxwg
import jaxwg.numpy as jnp

from .helpers import jax, jax_numpy
from .transform_cases import CASES, FORWARD_ONLY, REVERSE_ONLY, inputs, ours, theirs


@pytest.fixture
def x64():
    jaxwg.config.update("jax_enable_x64", True)
    yield
    jaxwg.config.update("jax_enable_x64", False)


# Not against differences: a float16 conversion is a staircase at the step h (its
# derivative, 1, is checked against JAX and by the transpose identity), and
# stop_gradient's derivative is zero by definition.
NOT_NUMERIC = {"convert", "stop_gradient"}
# Piecewise functions: their tangents are scaled down so that x +- h t stays on one side
# of the kinks (ties, branch switches, a change of trip count).
KINKED = {"rem", "clamp", "select_n", "reduce_max", "reduce_min", "max", "min", "sort", "pmax",
          "pmin", "cond", "while"}
DIFFERENCED = sorted(set(CASES) - NOT_NUMERIC - REVERSE_ONLY)
BOTH_MODES = sorted(set(CASES) - FORWARD_ONLY - REVERSE_ONLY)
# JAX has no differentiation rules for these (jaxwg differentiates them as their
# reductions under the named axis): checked against differences only.
NOT_IN_JAX = {"pmax", "pmin"}


@contextlib.contextmanager
def _platform(name: str):
    old = os.environ.get("JAXWG_PLATFORMS")
    os.environ["JAXWG_PLATFORMS"] = name
    try:
        yield
    finally:
        if old is None:
            del os.environ["JAXWG_PLATFORMS"]
        else:
            os.environ["JAXWG_PLATFORMS"] = old


def _jvp_and_central_difference(case, seed, dtype, h):
    """The JVP of the case at a random point and tangent and the central difference
    (f(x + h t) - f(x - h t)) / 2h, as float64 arrays, and the largest |f(x)|."""
    xs = inputs(case, seed, dtype)
    ts = inputs(case, seed + 1, dtype)
    ts = [(t / max(1.0, np.abs(t).max())).astype(dtype) for t in ts]
    if case in KINKED:
        ts = [t * dtype(1e-3) for t in ts]
    f = ours(case)
    y, tangent = jaxwg.jvp(f, [jnp.asarray(x) for x in xs], [jnp.asarray(t) for t in ts])
    plus = np.asarray(f(*[jnp.asarray(x + dtype(h) * t) for x, t in zip(xs, ts)]), np.float64)
    minus = np.asarray(f(*[jnp.asarray(x - dtype(h) * t) for x, t in zip(xs, ts)]), np.float64)
    return np.asarray(tangent, np.float64), (plus - minus) / (2 * h), float(np.abs(np.asarray(y)).max())


@pytest.mark.parametrize("case", DIFFERENCED)
@given(seed=st.integers(0, 2 ** 16))
def test_jvp_matches_central_differences_in_float64(case, seed):
    """On the CPU backend in float64: (f(x + h t) - f(x - h t)) / 2h, error O(h^2)."""
    jaxwg.config.update("jax_enable_x64", True)
    try:
        with _platform("cpu"):
            tangent, difference, _ = _jvp_and_central_difference(case, seed, np.float64, 1e-6)
        np.testing.assert_allclose(tangent, difference, rtol=1e-6, atol=1e-6)
    finally:
        jaxwg.config.update("jax_enable_x64", False)


# float32 central differences: the rounding error of f (R ulps of the larger of |f| and 1,
# R = 64 being the largest bound tests/backend/test_ops.py allows a float32 op) divided
# by h, plus the truncation error h^2/6 |f'''|. The step h = eps^(1/3) makes both terms
# of order eps^(2/3); with |f'''| <= 6 R max(|f|, |f' t|, 1) on the sampled intervals
# (the cases keep to where their functions are tame) the error is at most
# 2 R eps^(2/3) max(|f|, |f' t|, 1), about 3e-3 of it.
_EPS32 = float(np.finfo(np.float32).eps)
_H32 = _EPS32 ** (1 / 3)
_ROUNDING_ULPS = 64
_TOL32 = 2 * _ROUNDING_ULPS * _EPS32 ** (2 / 3)


@pytest.mark.parametrize("case", DIFFERENCED)
@given(seed=st.integers(0, 2 ** 16))
def test_jvp_matches_central_differences_in_float32_on_webgpu(case, seed):
    """On the WebGPU device in float32, with the bound derived above."""
    try:
        _ = jaxwg.devices("webgpu")[0].backend
    except RuntimeError as e:  # no adapter on this machine
        pytest.skip(str(e))
    with _platform("webgpu"):
        tangent, difference, value = _jvp_and_central_difference(case, seed, np.float32, _H32)
    scale = max(1.0, value, float(np.abs(tangent).max()))
    np.testing.assert_allclose(tangent, difference, rtol=0, atol=_TOL32 * scale)


@pytest.mark.parametrize("case", sorted(set(CASES) - NOT_IN_JAX))
def test_jvp_and_vjp_match_jax(platform, case):
    xs = inputs(case, 7)
    if case not in REVERSE_ONLY:
        ts = inputs(case, 8)
        y, t = jaxwg.jvp(ours(case), [jnp.asarray(x) for x in xs], [jnp.asarray(t) for t in ts])
        # JAX's side jitted here and below: one XLA program, not one per primitive
        jy, jt = jax.jit(lambda xs, ts: jax.jvp(theirs(case), xs, ts))(xs, ts)
        np.testing.assert_allclose(np.asarray(y), np.asarray(jy), rtol=2e-5, atol=1e-6)
        np.testing.assert_allclose(np.asarray(t), np.asarray(jt), rtol=2e-5, atol=1e-5)
    if case in FORWARD_ONLY:
        return
    _, f_vjp = jaxwg.vjp(ours(case), *[jnp.asarray(x) for x in xs])
    u = np.random.default_rng(9).standard_normal(jax.eval_shape(theirs(case), *xs).shape).astype(np.float32)
    wants = jax.jit(lambda xs, u: jax.vjp(theirs(case), *xs)[1](u))(xs, u)
    for got, want in zip(f_vjp(jnp.asarray(u)), wants):
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=2e-5, atol=1e-5)


@pytest.mark.parametrize("case", BOTH_MODES)
@given(seed=st.integers(0, 2 ** 16))
def test_vjp_is_the_transpose_of_jvp(case, seed):
    """<u, J v> == <J^T u, v> for random u, v: the transpose rules match the JVP rules."""
    xs = [jnp.asarray(x) for x in inputs(case, seed)]
    vs = inputs(case, seed + 1)
    y, jv = jaxwg.jvp(ours(case), xs, [jnp.asarray(v) for v in vs])
    u = np.random.default_rng(seed + 2).standard_normal(np.shape(y)).astype(np.float32)
    _, f_vjp = jaxwg.vjp(ours(case), *xs)
    jtu = f_vjp(jnp.asarray(u))
    lhs = float(np.sum(u.astype(np.float64) * np.asarray(jv, np.float64)))
    rhs = sum(float(np.sum(np.asarray(a, np.float64) * v)) for a, v in zip(jtu, vs))
    scale = np.sum(np.abs(u)) * max(np.abs(np.asarray(jv)).max(), 1) + 1
    eps = 1e-3 if case == "convert" else 1e-5  # float16 rounds both ways: its epsilon
    assert abs(lhs - rhs) <= eps * scale, (lhs, rhs)


# -- real programs ------------------------------------------------------------------------


def _mlp_loss(N, nn_logsumexp):
    def loss(params, x, labels):
        (w1, b1), (w2, b2) = params
        h = N.maximum(x @ w1 + b1, 0.0)
        logits = h @ w2 + b2
        return -N.mean(N.sum(logits * labels, axis=1) - nn_logsumexp(logits))
    return loss


def _logsumexp(N):
    def lse(z):
        m = N.max(z, axis=1, keepdims=True)
        return N.log(N.sum(N.exp(z - m), axis=1)) + m[:, 0]
    return lse


def _mlp_params(rng, sizes):
    return [(rng.standard_normal((a, b)).astype(np.float32) / np.sqrt(a),
             rng.standard_normal(b).astype(np.float32) * 0.1) for a, b in zip(sizes, sizes[1:])]


def test_mlp_softmax_cross_entropy_gradient_matches_jax(platform, mode):
    rng = np.random.default_rng(0)
    params = _mlp_params(rng, [16, 32, 10])
    x = rng.standard_normal((8, 16)).astype(np.float32)
    labels = np.eye(10, dtype=np.float32)[rng.integers(0, 10, 8)]
    g = jaxwg.value_and_grad(_mlp_loss(jnp, _logsumexp(jnp)))
    if mode == "jit":
        g = jaxwg.jit(g)
    value, grads = g(jaxwg.tree_util.tree_map(jnp.asarray, params), jnp.asarray(x), jnp.asarray(labels))
    want_value, want = jax.value_and_grad(_mlp_loss(jax_numpy, _logsumexp(jax_numpy)))(params, x, labels)
    np.testing.assert_allclose(float(value), float(want_value), rtol=1e-5)
    for got, ref in zip(jaxwg.tree_util.tree_leaves(grads), jax.tree_util.tree_leaves(want)):
        np.testing.assert_allclose(np.asarray(got), np.asarray(ref), rtol=1e-4, atol=1e-5)


def test_grad_of_jit_keeps_the_call_and_jit_of_grad_is_one_program():
    f = jaxwg.jit(lambda x: jnp.sin(x) * x)
    loss = lambda x: jnp.sum(f(x))  # noqa: E731
    text = str(jaxwg.make_jaxpr(jaxwg.grad(loss))(jnp.ones(3)))
    assert text.count("name=<lambda>") == 2  # the JVP call and its transpose, as JAX names them
    x = np.linspace(-1, 1, 3).astype(np.float32)
    want = np.sin(x) + x * np.cos(x)
    np.testing.assert_allclose(np.asarray(jaxwg.grad(loss)(jnp.asarray(x))), want, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(jaxwg.jit(jaxwg.grad(loss))(jnp.asarray(x))), want,
                               rtol=1e-6)


def test_grad_of_a_matmul_holds_matmuls_not_a_broadcast_product():
    jaxpr = jaxwg.make_jaxpr(jaxwg.grad(lambda a, b: jnp.sum(a @ b), argnums=(0, 1)))(
        jnp.ones((64, 32)), jnp.ones((32, 16)))
    prims = [e.primitive.name for e in jaxpr.eqns]
    assert prims.count("dot_general") == 3
    for eqn in jaxpr.eqns:
        for v in eqn.out_binders:
            assert v.aval.size <= 64 * 32, f"{eqn.primitive} makes {v.aval.str_short()}"


def test_second_derivatives_and_nesting():
    f = lambda x: jnp.sin(x) * x ** 2  # noqa: E731
    x = 0.7
    d2 = jaxwg.grad(jaxwg.grad(f))(x)
    want = -np.sin(x) * x ** 2 + 4 * x * np.cos(x) + 2 * np.sin(x)
    np.testing.assert_allclose(float(d2), want, rtol=1e-5)
    # a Hessian-vector product: forward over reverse
    g = jaxwg.grad(lambda v: jnp.sum(jnp.tanh(v) ** 2))
    v = jnp.array([0.3, -0.2, 0.9])
    _, hvp = jaxwg.jvp(g, (v,), (jnp.array([1.0, 0.0, 2.0]),))
    jg = jax.grad(lambda v: jax_numpy.sum(jax_numpy.tanh(v) ** 2))
    _, want = jax.jvp(jg, (np.asarray(v),), (np.array([1.0, 0.0, 2.0], np.float32),))
    np.testing.assert_allclose(np.asarray(hvp), np.asarray(want), rtol=1e-5)


def test_closures_over_outer_tracers_differentiate_correctly():
    # d/dx of (d/dy of x*y*y) = d/dx (2xy) = 2y: the inner grad closes over the outer x.
    f = lambda x, y: jaxwg.grad(lambda y: x * y * y)(y)  # noqa: E731
    np.testing.assert_allclose(float(jaxwg.grad(f)(3.0, 5.0)), 10.0)


def test_pytrees_has_aux_argnums_and_integer_inputs():
    def f(p, n):
        return jnp.sum(p["w"] * p["b"]) * n, {"n": n}
    p = {"w": jnp.array([1.0, 2.0]), "b": jnp.array([3.0, 4.0])}
    g, aux = jaxwg.grad(f, has_aux=True)(p, 2)
    assert g["w"].tolist() == [6.0, 8.0] and g["b"].tolist() == [2.0, 4.0]
    assert int(aux["n"]) == 2
    (gw, gn) = jaxwg.vjp(lambda w, n: w * n, jnp.array(2.0), jnp.array(3))[1](jnp.array(1.0))
    assert float(gw) == 3.0 and gn.dtype == jaxwg.transforms.ad.float0


def test_errors_match_jax():
    with pytest.raises(TypeError, match="Gradient only defined for scalar-output functions"):
        jaxwg.grad(lambda x: x * 2)(jnp.ones(3))
    with pytest.raises(TypeError, match="grad requires real- or complex-valued inputs"):
        jaxwg.grad(lambda x: x * 2.0)(jnp.array(3))
    with pytest.raises(TypeError, match="requires at least 3 positional arguments"):
        jaxwg.grad(lambda x: x, argnums=2)(1.0)
    with pytest.raises(TypeError, match="grad requires real-valued outputs"):
        jaxwg.grad(lambda x: jnp.sum(x > 0).astype(jnp.int32), allow_int=True)(jnp.ones(2))
    with pytest.raises(ValueError, match="different primal and tangent shapes"):
        jaxwg.jvp(jnp.sin, (jnp.ones(3),), (jnp.ones(2),))
    with pytest.raises(TypeError, match="do not match; dtypes must be equal"):
        jaxwg.jvp(jnp.sin, (jnp.ones(3),), (jnp.ones(3, jnp.float16),))
    _, f_vjp = jaxwg.vjp(jnp.sin, jnp.ones(3))
    with pytest.raises(ValueError, match="unexpected JAX type"):
        f_vjp(jnp.ones(2))


@pytest.mark.parametrize("m", [jaxwg, jax], ids=lambda m: m.__name__)
def test_more_errors_match_jax(m):
    with pytest.raises(ValueError, match="must have value greater than or equal to -len\\(args\\)"):
        m.grad(lambda x: x * 2, argnums=-3)(1.0)
    for out in (lambda x: x > 0, lambda x: x.astype("int32")):
        with pytest.raises(TypeError, match="jacrev requires real-valued outputs"):
            m.jacrev(out)(np.ones(2, np.float32))
    for ct in ((1.0,), [1.0, 1.0], {"a": 1.0}):
        _, f_vjp = m.vjp(lambda x: (x * 2, x * 3), 1.0)
        with pytest.raises(ValueError, match="unexpected tree structure"):
            f_vjp(ct)


@pytest.mark.parametrize("m", [jaxwg, jax], ids=lambda m: m.__name__)
def test_jacobian_dtype_and_aux_errors_match_jax(m):
    z = np.array([1 + 1j, 2 - 1j], np.complex64)
    with pytest.raises(TypeError, match="jacfwd requires real-valued inputs"):
        m.jacfwd(lambda x: x * x)(z)  # complex (without holomorphic) and integer inputs
    with pytest.raises(TypeError, match="jacfwd requires real-valued inputs .* got int32"):
        m.hessian(lambda x: (x * x).sum())(np.arange(2, dtype=np.int32))
    with pytest.raises(TypeError, match="jacrev requires real-valued outputs .* got complex64"):
        m.jacrev(lambda x: x * 1j)(np.ones(2, np.float32))
    for jac in (m.jacfwd, m.jacrev):
        with pytest.raises(TypeError, match="holomorphic=True requires outputs with complex"):
            jac(lambda x: abs(x), holomorphic=True)(z)
    with pytest.raises(TypeError, match="integer outputs, use jax.vjp"):
        m.grad(lambda x: x * 2, allow_int=True)(3)
    for f in (lambda: m.grad(lambda x: (x * x).sum(), has_aux=True)(np.ones(2, np.float32)),
              lambda: m.vjp(lambda x: (x, x, x), 1.0, has_aux=True),
              lambda: m.linearize(lambda x: x, 1.0, has_aux=True)):
        with pytest.raises(TypeError, match="expected function with aux output to return a two"):
            f()


def test_tangents_passed_through_are_arrays_where_jaxs_are():
    x = np.ones(2, np.float32)
    for f, args in ((lambda w: w + 1, (2.0,)), (lambda w: w + 1.0, (x,)), (lambda w: w, (x,)),
                    (lambda w: w.reshape(2), (x,))):
        got, want = jaxwg.jvp(f, args, args)[1], jax.jvp(f, args, args)[1]
        assert isinstance(got, np.ndarray) == isinstance(want, np.ndarray)
        assert getattr(got, "weak_type", None) == getattr(want, "weak_type", None)


@pytest.mark.parametrize("m", [jaxwg, jax], ids=lambda m: m.__name__)
def test_argnums_out_of_range_errors_match_jax(m):
    x = np.ones(3, np.float32)
    with pytest.raises(TypeError, match="requires at least 4 positional arguments"):
        m.value_and_grad(lambda a: a.sum(), argnums=3)(x)
    for jac in (m.jacfwd, m.jacrev, m.hessian):
        with pytest.raises(ValueError, match="but got value 2 for len\\(args\\) == 1"):
            jac(lambda a: a.sum(), argnums=(0, 2))(x)


def test_jacrev_of_an_integer_input_with_allow_int_is_zeros_of_its_dtype_as_jax():
    x = np.array([0.5, -1.2, 2.0], np.float32)
    for n in (np.arange(3, dtype=np.int32), 2):
        got = jaxwg.jacrev(lambda a, b: a * b, argnums=(0, 1), allow_int=True)(x, n)
        want = jax.jacrev(lambda a, b: a * b, argnums=(0, 1), allow_int=True)(x, n)
        for g, w in zip(got, want):
            assert g.dtype == w.dtype and g.weak_type == w.weak_type
            np.testing.assert_array_equal(np.asarray(g), np.asarray(w))


def test_non_array_aux_leaves_pass_through_as_in_jax():
    def f(x):
        return x * 2.0, {"s": "hello", "i": 3, "n": None, "t": ("a", 1.5)}

    for transform in (lambda m: m.grad(f, has_aux=True)(1.0)[1],
                      lambda m: m.value_and_grad(f, has_aux=True)(1.0)[0][1],
                      lambda m: m.jacrev(f, has_aux=True)(1.0)[1],
                      lambda m: m.vjp(f, 1.0, has_aux=True)[2],
                      lambda m: m.jvp(f, (1.0,), (1.0,), has_aux=True)[2]):
        got, want = transform(jaxwg), transform(jax)
        assert got == want and type(got["i"]) is type(want["i"]) is int
    g, aux = jaxwg.grad(lambda x: (x * x, ("tag", x * 3.0)), has_aux=True)(2.0)
    assert float(g) == 4.0 and aux[0] == "tag" and float(aux[1]) == 6.0


def test_grad_of_integer_valued_and_constant_functions_is_zero():
    assert jaxwg.grad(lambda x: 3.0)(2.0).item() == 0.0
    assert jaxwg.grad(lambda x: jnp.floor(x) + jnp.round(x))(2.3).item() == 0.0
    assert jaxwg.grad(lambda x: jnp.argmax(jnp.stack([x, 1.0])).astype(jnp.float32) + x)(2.0).item() == 1.0


def test_linearize_evaluates_the_linear_map():
    y, f_jvp = jaxwg.linearize(lambda x: jnp.exp(x) * 2.0, jnp.array([0.0, 1.0]))
    np.testing.assert_allclose(np.asarray(f_jvp(jnp.array([1.0, 1.0]))), 2 * np.exp([0.0, 1.0]),
                               rtol=1e-6)
    np.testing.assert_allclose(np.asarray(y), 2 * np.exp([0.0, 1.0]), rtol=1e-6)


def test_gradient_of_a_sum_of_a_million_values_is_exact(platform):
    x = jnp.asarray(np.random.default_rng(0).standard_normal(1 << 20).astype(np.float32))
    g = jaxwg.jit(jaxwg.grad(lambda x: jnp.sum(x * 3.0)))(x)
    assert np.all(np.asarray(g) == 3.0)


def test_grad_of_a_weakly_typed_input_is_weak_as_jax():
    for x in (2.0, np.float32(2.0)):
        got, want = jaxwg.grad(jnp.sin)(x), jax.grad(jax_numpy.sin)(x)
        assert (got.dtype, got.weak_type) == (want.dtype, want.weak_type)


ZERO_TANGENTS = {  # zeros of a weakly typed input's (or output's) aval stay weak, as JAX's
    "unused_input": lambda m: m.grad(lambda a, b: a * 2.0, argnums=(0, 1))(1.0, 2.0),
    "constant_output": lambda m: m.jvp(lambda a: (a, 3.0), (2.0,), (1.0,))[1][1],
    "cond_closures": lambda m: m.grad(lambda a, b: m.lax.cond(
        a > 0, lambda: a * 2.0, lambda: b * 3.0), argnums=(0, 1))(1.3, 2.0),
    "scan_unused_const": lambda m: m.grad(lambda a, b: m.lax.scan(
        lambda c, x: (c * a, b), 1.0, None, length=2)[0], argnums=(0, 1))(1.3, 2.0),
    "jit_unused_input": lambda m: m.grad(m.jit(lambda a, b: a * 2.0), argnums=(0, 1))(1.3, 2.0),
}


WEAK_TYPES_THROUGH_TRANSPOSES = {  # JAX's strong constants: pad's zeros, pad's and clamp's
    # weak type only where every operand's is, a scan's ys cotangents typed as they come
    "slice": lambda m: m.grad(lambda a: m.numpy.stack([a, a, a])[::2].sum())(1.5),
    "index": lambda m: m.grad(lambda a: m.numpy.stack([a, a])[1])(1.5),
    "pad": lambda m: m.grad(lambda a: m.lax.pad(m.numpy.stack([a, a]), 0.0, [(1, 1, 1)])[1])(1.5),
    "scan_ys": lambda m: m.grad(lambda a: m.lax.scan(
        lambda c, x: (c, x * 2), 0.0, m.numpy.stack([a, a]))[1][0])(1.5),
    "clamp": lambda m: m.grad(lambda a: m.lax.clamp(np.float32(0), a, np.float32(2)))(1.5),
    "pad_strong_value": lambda m: m.lax.pad(m.numpy.stack([1.5, 2.5]), np.float32(0), [(1, 1, 0)]),
}


@pytest.mark.parametrize("name", sorted(ZERO_TANGENTS) + sorted(WEAK_TYPES_THROUGH_TRANSPOSES))
def test_weak_types_of_derivatives_match_jax(name):
    make = ZERO_TANGENTS.get(name) or WEAK_TYPES_THROUGH_TRANSPOSES[name]
    got, want = make(jaxwg), make(jax)
    for g, w in zip(jaxwg.tree.leaves(got), jax.tree.leaves(want)):
        assert (g.dtype, g.weak_type) == (w.dtype, w.weak_type)
        np.testing.assert_array_equal(np.asarray(g), np.asarray(w))


# Rules that combine a primal with a Python number (log1p's x + 1, square's x * 2, pow's
# y - 1): a Python scalar primal is an array there, as in JAX, not a second Python scalar.
PYTHON_SCALAR_PRIMALS = {
    "log1p": lambda m: m.jvp(m.lax.log1p, (0.4,), (1.0,)),
    "acosh": lambda m: m.jvp(m.lax.acosh, (1.5,), (1.0,)),
    "pow": lambda m: m.jvp(lambda x: m.lax.pow(x, 1.5), (0.4,), (1.0,)),
    "square_twice": lambda m: m.jacfwd(m.jacfwd(m.numpy.square))(0.4),
    "integer_pow_twice": lambda m: m.jacfwd(m.jacfwd(lambda x: x ** 3))(1.5),
}


@pytest.mark.parametrize("name", sorted(PYTHON_SCALAR_PRIMALS))
def test_rules_of_python_scalar_primals_match_jax(name):
    got, want = PYTHON_SCALAR_PRIMALS[name](jaxwg), PYTHON_SCALAR_PRIMALS[name](jax)
    for g, w in zip(jaxwg.tree.leaves(got), jax.tree.leaves(want)):
        assert (g.dtype, g.weak_type) == (w.dtype, w.weak_type)
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-6)


def _quotients_and_choices(m, a, b):
    """A loss through div, max, min and reduce_max/min, whose gradients round as the
    rules' formulas do."""
    q = a / b * a + m.maximum(a, b) * a + m.minimum(a, b) * b
    return m.sum(q) + m.sum(m.max(a * b, axis=1) ** 2) + m.sum(m.min(a, axis=0) * 1.7)


def test_div_max_min_gradients_round_as_jax(platform):
    """The JVP rules are JAX's formulas (div's -g x / y**2, the balanced select quotient
    of max/min), so float32 gradients are JAX's bit for bit, ties, zeros
    and signed zeros included."""
    rng = np.random.default_rng(3)
    a, b = rng.standard_normal((2, 4, 5)).astype(np.float32)
    a[0, :2] = 3.0            # a tie inside a row's maximum
    b[1, 1] = a[1, 1]         # a tie between maximum's operands
    a[2, 0], b[2, 1] = 0.0, -0.0
    loss = jaxwg.grad(lambda a, b: _quotients_and_choices(jnp, a, b), argnums=(0, 1))
    want = jax.grad(lambda a, b: _quotients_and_choices(jax_numpy, a, b), argnums=(0, 1))(a, b)
    for f in (loss, jaxwg.jit(loss)):
        for got, w in zip(f(jnp.asarray(a), jnp.asarray(b)), want):
            np.testing.assert_array_equal(np.asarray(got).view(np.int32), np.asarray(w).view(np.int32))
