"""`custom_jvp` and `custom_vjp` against JAX: the rules are used under grad, jvp, vmap
and jit, and evaluation runs the function itself."""

import functools

import numpy as np
import pytest

import jaxwg
import jaxwg.numpy as jnp

from .helpers import jax, jax_numpy


def _softplus(custom_jvp, N):
    @custom_jvp
    def softplus(x):
        return N.log1p(N.exp(x))

    @softplus.defjvp
    def softplus_jvp(primals, tangents):
        (x,), (t,) = primals, tangents
        return softplus(x), t / (1 + N.exp(-x))

    return softplus


def _clip_gradient(custom_vjp, N):
    @custom_vjp
    def clip(x, scale):
        return x * scale

    def fwd(x, scale):
        return x * scale, (scale,)

    def bwd(res, g):
        return (N.clip(g * res[0], -1.0, 1.0), None)

    clip.defvjp(fwd, bwd)
    return clip


X = np.array([-3.0, 0.0, 2.0, 100.0], np.float32)


@pytest.mark.parametrize("transform", ["grad", "vmap_grad", "jit_grad", "grad_vmap"])
def test_custom_jvp_matches_jax(platform, transform):
    ours, theirs = _softplus(jaxwg.custom_jvp, jnp), _softplus(jax.custom_jvp, jax_numpy)

    def apply(lib, f, N):
        scalar_grad = lib.grad(f)
        return {"grad": lambda x: lib.grad(lambda v: N.sum(f(v)))(x),
                "vmap_grad": lambda x: lib.vmap(scalar_grad)(x),
                "jit_grad": lambda x: lib.jit(lib.vmap(scalar_grad))(x),
                "grad_vmap": lambda x: lib.grad(lambda v: N.sum(lib.vmap(f)(v)))(x)}[transform]

    got = apply(jaxwg, ours, jnp)(jnp.asarray(X))
    want = apply(jax, theirs, jax_numpy)(X)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6)
    assert np.all(np.isfinite(np.asarray(got)))  # the rule, not exp(100) / (1 + exp(100))
    np.testing.assert_allclose(np.asarray(ours(jnp.asarray(X))), np.asarray(theirs(X)), rtol=1e-6)


def test_custom_jvp_forward_mode_and_defjvps():
    ours = _softplus(jaxwg.custom_jvp, jnp)
    _, t = jaxwg.jvp(ours, (jnp.asarray(X),), (jnp.ones(4),))
    _, want = jax.jvp(_softplus(jax.custom_jvp, jax_numpy), (X,), (np.ones(4, np.float32),))
    np.testing.assert_allclose(np.asarray(t), np.asarray(want), rtol=1e-6)
    f = jaxwg.custom_jvp(lambda x, y: x * y)
    f.defjvps(lambda t, ans, x, y: t * 10.0, None)  # a made-up derivative in x only
    assert jaxwg.grad(f, argnums=(0, 1))(2.0, 3.0)[0].item() == 10.0
    assert jaxwg.grad(f, argnums=(0, 1))(2.0, 3.0)[1].item() == 0.0


def _seen_zeros(custom_jvp, symbolic_zero):
    """A product whose rule records which tangents arrive as symbolic zeros."""
    seen = []

    def rule(primals, tangents):
        x, y = primals
        zero = [isinstance(t, symbolic_zero) for t in tangents]
        seen.append(zero)
        tx, ty = (0.0 if z else t for z, t in zip(zero, tangents))
        return x * y, tx * y + x * ty

    f = custom_jvp(lambda x, y: x * y)
    f.defjvp(rule, symbolic_zeros=True)
    return f, seen


@pytest.mark.parametrize("transform", ["grad", "jit_grad", "grad_jit", "vmap_grad"])
def test_custom_jvp_symbolic_zeros_match_jax(transform):
    """With symbolic_zeros the rule sees which arguments are differentiated, under every
    composition (a jit inside grad included), as JAX's; the derivative is the rule's."""
    from jax.custom_derivatives import SymbolicZero as JaxZero

    from jaxwg.transforms.custom import SymbolicZero

    results = []
    for jx, zero, x in ((jaxwg, SymbolicZero, jnp.asarray(X)), (jax, JaxZero, X)):
        f, seen = _seen_zeros(jx.custom_jvp, zero)
        g = {"grad": lambda: jx.grad(lambda a: f(a, 3.0).sum()),
             "jit_grad": lambda: jx.jit(jx.grad(lambda a: f(a, 3.0).sum())),
             "grad_jit": lambda: jx.grad(lambda a: jx.jit(f)(a, 3.0).sum()),
             "vmap_grad": lambda: jx.vmap(jx.grad(lambda a: f(a, 3.0)))}[transform]()
        results.append((np.asarray(g(x)), seen[-1]))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-6)
    assert results[0][1] == results[1][1] == [False, True]


def test_betainc_raises_for_derivatives_in_a_and_b_under_jit_too():
    from jaxwg import lax

    for g in (jaxwg.grad(lax.betainc, 0), jaxwg.grad(jaxwg.jit(lax.betainc), 1),
              jaxwg.jit(jaxwg.grad(lax.betainc, 0))):
        with pytest.raises(ValueError, match="Betainc gradient with respect to a and b"):
            g(2.0, 3.0, 0.3)
    want = jax.grad(jax.jit(jax.lax.betainc), 2)(2.0, 3.0, 0.3)
    np.testing.assert_allclose(np.asarray(jaxwg.grad(jaxwg.jit(lax.betainc), 2)(2.0, 3.0, 0.3)),
                               np.asarray(want), rtol=1e-5)


@pytest.mark.parametrize("transform", ["grad", "vmap_grad", "jit_grad", "grad_vmap"])
def test_custom_vjp_matches_jax(platform, transform):
    ours, theirs = _clip_gradient(jaxwg.custom_vjp, jnp), _clip_gradient(jax.custom_vjp, jax_numpy)
    scale = np.float32(0.3)

    def apply(lib, f, N):
        loss = lambda x: 10.0 * f(x, scale)  # noqa: E731
        return {"grad": lambda x: lib.grad(lambda v: N.sum(loss(v)))(x),
                "vmap_grad": lambda x: lib.vmap(lib.grad(loss))(x),
                "jit_grad": lambda x: lib.jit(lib.grad(lambda v: N.sum(loss(v))))(x),
                "grad_vmap": lambda x: lib.grad(lambda v: N.sum(lib.vmap(loss)(v)))(x)}[transform]

    got = apply(jaxwg, ours, jnp)(jnp.asarray(X))
    want = apply(jax, theirs, jax_numpy)(X)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(ours(jnp.asarray(X), scale)), X * scale, rtol=1e-6)


def test_custom_vjp_errors():
    f = _clip_gradient(jaxwg.custom_vjp, jnp)
    with pytest.raises(TypeError, match="can't apply forward-mode autodiff"):
        jaxwg.jvp(lambda x: f(x, 2.0), (jnp.array(1.0),), (jnp.array(1.0),))
    bad = jaxwg.custom_vjp(lambda x: x)
    bad.defvjp(lambda x: (x, None), lambda res, g: g)  # not a tuple
    with pytest.raises(TypeError, match="must produce a tuple"):
        jaxwg.grad(bad)(1.0)
    undefined = jaxwg.custom_jvp(lambda x: x)
    with pytest.raises(AttributeError, match="No JVP defined"):
        undefined(1.0)


def _custom_jvp_returning(m, rule):
    f = m.custom_jvp(lambda x: (x * 2, x.sum()))
    f.defjvp(lambda p, t: rule(f, p[0], t[0]))
    return f


BAD_JVP_RULES = {
    "tangent_tree": lambda f, x, t: (f(x), [t * 2, t.sum()]),
    "tangent_dtype": lambda f, x, t: (f(x), (t * 2, t.sum().astype(np.float16))),
    "tangent_shape": lambda f, x, t: (f(x), (t[:2], t.sum())),
    "python_int_tangent": lambda f, x, t: (f(x), (t * 2, 0)),
    "one_output": lambda f, x, t: f(x),  # the function's pair read as (primal, tangent)
}


@pytest.mark.parametrize("name", sorted(BAD_JVP_RULES))
def test_custom_jvp_rule_output_errors_match_jax(name):
    x = np.array([0.5, -1.2, 2.0], np.float32)
    with pytest.raises(TypeError) as want:
        jax.jvp(_custom_jvp_returning(jax, BAD_JVP_RULES[name]), (x,), (x,))
    with pytest.raises(TypeError) as got:
        jaxwg.jvp(_custom_jvp_returning(jaxwg, BAD_JVP_RULES[name]), (x,), (x,))
    assert str(got.value) == str(want.value)
    # a weakly typed tangent of a float output and float0 of an integer one are fine
    f = jaxwg.custom_jvp(lambda x: (x * 2, jnp.argmax(x)))
    f.defjvp(lambda p, t: (f(p[0]), (0.0 * t[0], np.zeros((), jaxwg.float0))))
    assert jaxwg.jvp(f, (x,), (x,))[1][0].tolist() == [0.0, 0.0, 0.0]


BAD_VJP_RULES = {
    "shape": lambda r, g: (g[:2], {"a": g}),
    "shape_and_dtype": lambda r, g: (g[:2].astype(np.float16), None),
    "too_many": lambda r, g: (g, None, None),
}


@pytest.mark.parametrize("name", sorted(BAD_VJP_RULES))
def test_custom_vjp_bwd_output_errors_match_jax(name):
    def loss(m):
        f = m.custom_vjp(lambda x, d: x * d["a"])
        f.defvjp(lambda x, d: (f(x, d), None), BAD_VJP_RULES[name])
        return lambda x: f(x, {"a": x}).sum()

    x = np.array([0.5, -1.2, 2.0], np.float32)
    with pytest.raises((TypeError, ValueError)) as want:
        jax.grad(loss(jax))(x)
    with pytest.raises(want.type) as got:
        jaxwg.grad(loss(jaxwg))(x)
    assert str(got.value) == str(want.value)


def test_custom_vjp_bwd_may_return_a_list_and_other_float_dtypes_as_in_jax():
    def grads(m, bwd):
        f = m.custom_vjp(lambda x, y: x * y)
        f.defvjp(lambda x, y: (x * y, y), bwd)
        return m.grad(lambda x, y: f(x, y).sum(), argnums=(0, 1))(np.ones(2, np.float32), 2.0)

    for bwd in (lambda y, g: [g * y, None], lambda y, g: ((g * y).astype(np.float16), None)):
        for a, b in zip(grads(jaxwg, bwd), grads(jax, bwd)):
            assert a.dtype == b.dtype and np.asarray(a).tolist() == np.asarray(b).tolist()


def test_custom_jvp_prints_as_a_call():
    text = str(jaxwg.make_jaxpr(_softplus(jaxwg.custom_jvp, jnp))(1.0))
    assert "custom_jvp_call[" in text and "name=softplus" in text and "jvp=softplus_jvp" in text


def test_closure_convert_makes_closed_over_values_arguments():
    w = jnp.array([2.0, 3.0])
    n = jnp.array([1, 2])

    def f(x):
        return x * w + n

    converted, consts = jaxwg.closure_convert(f, jnp.ones(2))
    assert consts == []  # concrete values stay constants, as in JAX
    np.testing.assert_allclose(np.asarray(converted(jnp.ones(2)), float), [3.0, 5.0])

    def outer(m, v):
        converted, consts = m.closure_convert(lambda x: x * v + n.size, np.ones(2, np.float32))
        return m.numpy.sum(converted(np.ones(2, np.float32), *consts)) * len(consts)

    # hoisted: traced float values (under grad, jit); not: integers, values only vmap traces
    for m in (jaxwg, jax):
        assert m.grad(lambda v: outer(m, v))(2.0).item() == 2.0
        assert m.jit(lambda v: outer(m, v))(2.0).item() == 8.0
        assert m.jit(lambda v: outer(m, v))(np.int32(2)).item() == 0
        assert m.vmap(lambda v: outer(m, v))(np.ones(2, np.float32)).tolist() == [0.0, 0.0]


def test_nondiff_argnums_match_jax():
    def make(custom_jvp, custom_vjp, N):
        @functools.partial(custom_jvp, nondiff_argnums=(0,))
        def scaled(k, x):
            return N.sin(x) * k

        @scaled.defjvp
        def scaled_jvp(k, primals, tangents):
            (x,), (t,) = primals, tangents
            return scaled(k, x), N.cos(x) * t * k * 10.0  # deliberately 10x

        @functools.partial(custom_vjp, nondiff_argnums=(1,))
        def power(x, n):
            return x ** n

        power.defvjp(lambda x, n: (x ** n, x), lambda n, x, g: (g * n * x ** (n - 1) * 2.0,))
        return lambda x: scaled(3.0, x) + power(x, 3)

    x = np.float32(0.7)
    got = jaxwg.grad(make(jaxwg.custom_jvp, jaxwg.custom_vjp, jnp))(x)
    want = jax.grad(make(jax.custom_jvp, jax.custom_vjp, jax_numpy))(x)
    np.testing.assert_allclose(float(got), float(want), rtol=1e-6)


def _with_defaults(m, N):
    @m.custom_jvp
    def f(x, y=2.0, *, z=1.0):
        return N.sin(x) * y * z

    @f.defjvp
    def f_jvp(primals, tangents):  # the default y arrives as a positional argument
        (x, y), (tx, ty) = primals, tangents
        return f(x, y), 3.0 * tx * y + ty

    @m.custom_vjp
    def g(x, y=2.0):
        return x * y

    g.defvjp(lambda x, y: (x * y, (x, y)), lambda r, c: (c * r[1] * 10, c * r[0]))
    return f, g


KEYWORD_CALLS = {
    "jvp_keyword": lambda m, f, g: m.grad(f)(1.0, y=2.0),
    "jvp_all_keywords": lambda m, f, g: m.grad(lambda x: f(y=3.0, x=x))(1.0),
    "jvp_default": lambda m, f, g: m.grad(f)(1.0),
    "jvp_forward": lambda m, f, g: m.jvp(lambda x, y: f(y=y, x=x), (1.0, 2.0), (1.0, 1.0))[1],
    "vjp_keyword": lambda m, f, g: m.grad(lambda x: g(y=3.0, x=x))(1.0),
    "vjp_default": lambda m, f, g: m.grad(g, argnums=0)(1.0),
}


@pytest.mark.parametrize("name", sorted(KEYWORD_CALLS))
def test_keyword_arguments_resolve_to_positions_as_in_jax(name):
    got = KEYWORD_CALLS[name](jaxwg, *_with_defaults(jaxwg, jnp))
    want = KEYWORD_CALLS[name](jax, *_with_defaults(jax, jax_numpy))
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6)


@pytest.mark.parametrize("m", [jaxwg, jax], ids=lambda m: m.__name__)
def test_keyword_only_arguments_are_an_error_as_in_jax(m):
    f, _ = _with_defaults(m, jnp if m is jaxwg else jax_numpy)
    with pytest.raises(TypeError, match="could not be resolved to positions: z"):
        f(1.0, z=3.0)
