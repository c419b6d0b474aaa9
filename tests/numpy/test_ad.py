"""Differentiation (`jvp`, `linearize`, `vjp`, `grad`, `value_and_grad`) of every primitive
and of real programs, against finite differences, the transpose identity and JAX."""

import numpy as np
import pytest
from hypothesis import given, strategies as st

import jaxwg
import jaxwg.numpy as jnp
from jaxwg import lax

from .helpers import jax, jax_numpy

# Each case: a function of (lax module, numpy module, *args), the shapes of its float
# arguments and the interval their values are drawn from (away from the points where
# the function is not differentiable).
CASES = {
    "neg": (lambda L, N, x: L.neg(x), [(5,)], (-2, 2)),
    "abs": (lambda L, N, x: L.abs(x), [(5,)], (0.5, 2)),
    "square": (lambda L, N, x: L.square(x), [(5,)], (-2, 2)),
    "exp": (lambda L, N, x: L.exp(x), [(5,)], (-2, 2)),
    "exp2": (lambda L, N, x: L.exp2(x), [(5,)], (-2, 2)),
    "log": (lambda L, N, x: L.log(x), [(5,)], (0.5, 3)),
    "log1p": (lambda L, N, x: L.log1p(x), [(5,)], (-0.5, 2)),
    "expm1": (lambda L, N, x: L.expm1(x), [(5,)], (-2, 2)),
    "tanh": (lambda L, N, x: L.tanh(x), [(5,)], (-2, 2)),
    "logistic": (lambda L, N, x: L.logistic(x), [(5,)], (-3, 3)),
    "sin": (lambda L, N, x: L.sin(x), [(5,)], (-3, 3)),
    "cos": (lambda L, N, x: L.cos(x), [(5,)], (-3, 3)),
    "tan": (lambda L, N, x: L.tan(x), [(5,)], (-1.2, 1.2)),
    "asin": (lambda L, N, x: L.asin(x), [(5,)], (-0.8, 0.8)),
    "acos": (lambda L, N, x: L.acos(x), [(5,)], (-0.8, 0.8)),
    "atan": (lambda L, N, x: L.atan(x), [(5,)], (-3, 3)),
    "sinh": (lambda L, N, x: L.sinh(x), [(5,)], (-2, 2)),
    "cosh": (lambda L, N, x: L.cosh(x), [(5,)], (-2, 2)),
    "asinh": (lambda L, N, x: L.asinh(x), [(5,)], (-2, 2)),
    "acosh": (lambda L, N, x: L.acosh(x), [(5,)], (1.2, 3)),
    "atanh": (lambda L, N, x: L.atanh(x), [(5,)], (-0.8, 0.8)),
    "sqrt": (lambda L, N, x: L.sqrt(x), [(5,)], (0.5, 3)),
    "rsqrt": (lambda L, N, x: L.rsqrt(x), [(5,)], (0.5, 3)),
    "cbrt": (lambda L, N, x: L.cbrt(x), [(5,)], (0.5, 3)),
    "erf": (lambda L, N, x: L.erf(x), [(5,)], (-2, 2)),
    "erfc": (lambda L, N, x: L.erfc(x), [(5,)], (-2, 2)),
    "integer_pow 3": (lambda L, N, x: L.integer_pow(x, 3), [(5,)], (-2, 2)),
    "integer_pow -2": (lambda L, N, x: L.integer_pow(x, -2), [(5,)], (0.5, 2)),
    "add": (lambda L, N, x, y: L.add(x, y), [(4,), (4,)], (-2, 2)),
    "add rank 0": (lambda L, N, x, y: L.add(x, y), [(4,), ()], (-2, 2)),
    "sub": (lambda L, N, x, y: L.sub(x, y), [(4,), (4,)], (-2, 2)),
    "mul": (lambda L, N, x, y: L.mul(x, y), [(4,), (4,)], (-2, 2)),
    "mul rank 0": (lambda L, N, x, y: L.mul(x, y), [(), (4,)], (-2, 2)),
    "div": (lambda L, N, x, y: L.div(x, y), [(4,), (4,)], (0.5, 2)),
    "rem": (lambda L, N, x, y: L.rem(x, y), [(4,), (4,)], (0.3, 0.45)),
    "pow": (lambda L, N, x, y: L.pow(x, y), [(4,), (4,)], (0.5, 2)),
    "max": (lambda L, N, x, y: L.max(x, y), [(4,), (4,)], (-2, 2)),
    "min": (lambda L, N, x, y: L.min(x, y), [(4,), (4,)], (-2, 2)),
    "atan2": (lambda L, N, x, y: L.atan2(x, y), [(4,), (4,)], (0.5, 2)),
    "clamp": (lambda L, N, x: L.clamp(-0.5, x, 0.5), [(6,)], (-1, 1)),
    "select_n": (lambda L, N, x, y: L.select_n(x > 0, x, y), [(6,), (6,)], (-1, 1)),
    "convert": (lambda L, N, x: L.convert_element_type(x, N.float16).astype(N.float32) * 1.0,
                [(4,)], (-1, 1)),
    "broadcast_in_dim": (lambda L, N, x: L.broadcast_in_dim(x, (2, 3, 4), (0, 2)),
                         [(2, 4)], (-1, 1)),
    "broadcast unit axis": (lambda L, N, x: L.broadcast_in_dim(x, (3, 4), (0, 1)),
                            [(1, 4)], (-1, 1)),
    "reshape": (lambda L, N, x: L.reshape(x, (3, 4)), [(2, 6)], (-1, 1)),
    "reshape permuted": (lambda L, N, x: L.reshape(x, (6, 2), (1, 0)), [(3, 4)], (-1, 1)),
    "transpose": (lambda L, N, x: L.transpose(x, (2, 0, 1)), [(2, 3, 4)], (-1, 1)),
    "rev": (lambda L, N, x: L.rev(x, (0, 1)), [(3, 4)], (-1, 1)),
    "pad": (lambda L, N, x, v: L.pad(x, v, [(1, -1, 2), (0, 2, 0)]), [(3, 4), ()], (-1, 1)),
    "slice": (lambda L, N, x: L.slice(x, (1, 0), (6, 4), (2, 3)), [(7, 5)], (-1, 1)),
    "squeeze": (lambda L, N, x: L.squeeze(x, (0, 2)), [(1, 4, 1)], (-1, 1)),
    "concatenate": (lambda L, N, x, y: L.concatenate([x, y, x], 1), [(2, 3), (2, 1)], (-1, 1)),
    "reduce_sum": (lambda L, N, x: N.sum(x, axis=(0, 2)), [(2, 3, 4)], (-1, 1)),
    "reduce_prod": (lambda L, N, x: N.prod(x, axis=1), [(3, 4)], (0.5, 1.5)),
    "reduce_max": (lambda L, N, x: N.max(x, axis=0), [(5, 3)], (-1, 1)),
    "reduce_min": (lambda L, N, x: N.min(x), [(5, 3)], (-1, 1)),
    "dot_general": (lambda L, N, x, y: L.dot_general(x, y, (((2,), (1,)), ((0,), (0,)))),
                    [(2, 3, 4), (2, 4, 5)], (-1, 1)),
    "dot_general contract 2": (lambda L, N, x, y: L.dot_general(x, y, (((0, 2), (2, 0)), ((), ()))),
                               [(3, 2, 4), (4, 5, 3)], (-1, 1)),
    "matmul": (lambda L, N, x, y: x @ y, [(3, 4), (4, 2)], (-1, 1)),
    "jit": (lambda L, N, x, y: _jitted(L)(x, y), [(4,), (4,)], (-1, 1)),
    "stop_gradient": (lambda L, N, x: x * L.stop_gradient(x), [(4,)], (-1, 1)),
}


def _jitted(L):
    j = jaxwg.jit if L is lax else jax.jit
    return j(lambda x, y: L.sin(x) * y + x)


def _inputs(case, seed, dtype=np.float32):
    _, shapes, (lo, hi) = CASES[case]
    rng = np.random.default_rng(seed)
    return [rng.uniform(lo, hi, s).astype(dtype) for s in shapes]


def _f(case):
    fn = CASES[case][0]
    return lambda *args: fn(lax, jnp, *args)


def _jax_f(case):
    fn = CASES[case][0]
    return lambda *args: fn(jax.lax, jax_numpy, *args)


@pytest.fixture
def x64():
    jaxwg.config.update("jax_enable_x64", True)
    yield
    jaxwg.config.update("jax_enable_x64", False)


# Not against differences: a float16 conversion is a staircase at the step h (its
# derivative, 1, is checked against JAX and by the transpose identity), and
# stop_gradient's derivative is zero by definition.
NOT_NUMERIC = {"convert", "stop_gradient"}


@pytest.mark.parametrize("case", sorted(set(CASES) - NOT_NUMERIC))
@given(seed=st.integers(0, 2 ** 16))
def test_jvp_matches_central_differences_in_float64(case, seed):
    """On the CPU backend in float64: (f(x + h t) - f(x - h t)) / 2h, error O(h^2)."""
    import os
    old = os.environ.get("JAXWG_PLATFORMS")
    os.environ["JAXWG_PLATFORMS"] = "cpu"
    jaxwg.config.update("jax_enable_x64", True)
    try:
        xs = _inputs(case, seed, np.float64)
        ts = _inputs(case, seed + 1, np.float64)
        ts = [t / max(1.0, np.abs(t).max()) for t in ts]
        if case in ("rem", "clamp", "select_n", "reduce_max", "reduce_min", "max", "min"):
            ts = [t * 1e-3 for t in ts]  # stay on one side of the kinks
        f = _f(case)
        args = [jnp.asarray(x) for x in xs]
        _, tangent = jaxwg.jvp(f, args, [jnp.asarray(t) for t in ts])
        h = 1e-6
        plus = np.asarray(f(*[jnp.asarray(x + h * t) for x, t in zip(xs, ts)]), np.float64)
        minus = np.asarray(f(*[jnp.asarray(x - h * t) for x, t in zip(xs, ts)]), np.float64)
        np.testing.assert_allclose(np.asarray(tangent), (plus - minus) / (2 * h), rtol=1e-6,
                                   atol=1e-6)
    finally:
        jaxwg.config.update("jax_enable_x64", False)
        if old is None:
            del os.environ["JAXWG_PLATFORMS"]
        else:
            os.environ["JAXWG_PLATFORMS"] = old


@pytest.mark.parametrize("case", sorted(CASES))
def test_jvp_and_vjp_match_jax(platform, case):
    xs = _inputs(case, 7)
    ts = _inputs(case, 8)
    y, t = jaxwg.jvp(_f(case), [jnp.asarray(x) for x in xs], [jnp.asarray(t) for t in ts])
    jy, jt = jax.jvp(_jax_f(case), xs, ts)
    np.testing.assert_allclose(np.asarray(y), np.asarray(jy), rtol=2e-5, atol=1e-6)
    np.testing.assert_allclose(np.asarray(t), np.asarray(jt), rtol=2e-5, atol=1e-5)
    u = np.random.default_rng(9).standard_normal(np.shape(jy)).astype(np.float32)
    _, f_vjp = jaxwg.vjp(_f(case), *[jnp.asarray(x) for x in xs])
    _, j_vjp = jax.vjp(_jax_f(case), *xs)
    for got, want in zip(f_vjp(jnp.asarray(u)), j_vjp(u)):
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=2e-5, atol=1e-5)


@pytest.mark.parametrize("case", sorted(CASES))
@given(seed=st.integers(0, 2 ** 16))
def test_vjp_is_the_transpose_of_jvp(case, seed):
    """<u, J v> == <J^T u, v> for random u, v: the transpose rules match the JVP rules."""
    xs = [jnp.asarray(x) for x in _inputs(case, seed)]
    vs = _inputs(case, seed + 1)
    y, jv = jaxwg.jvp(_f(case), xs, [jnp.asarray(v) for v in vs])
    u = np.random.default_rng(seed + 2).standard_normal(np.shape(y)).astype(np.float32)
    _, f_vjp = jaxwg.vjp(_f(case), *xs)
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
    assert "name=jvp(<lambda>)" in text and "name=transpose(jvp(<lambda>))" in text
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
    assert float(gw) == 3.0 and gn.dtype == jaxwg.frontend.ad.float0


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
