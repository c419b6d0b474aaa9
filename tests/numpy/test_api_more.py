"""More of JAX's API against JAX: the `jax.nn` activations identity ... logmeanexp, the
small `lax` helpers (reciprocal ... conv_general_dilated_patches), and top-level names
(custom_gradient, linear_transpose, pure_callback, the config context managers, ...)."""

import functools

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import jaxwg
import jaxwg.numpy as jnp
from jaxwg import lax, nn

from .helpers import jax, jax_numpy

X = np.array([-100.0, -6.5, -3.0, -1.0, -0.5, -1e-3, -0.0, 0.0, 1e-3, 0.5, 0.6931472, 1.0, 3.0,
              6.0, 100.0, np.inf, -np.inf, np.nan], np.float32)


def _same(got, want, rtol=2e-6, atol=0.0):
    """Same dtype, weak type, shape and values (NaN where NaN) as JAX's `want`."""
    assert isinstance(got, jaxwg.Array), type(got)
    if not hasattr(want, "weak_type"):
        want = jax_numpy.asarray(want)
    assert (got.dtype, got.weak_type, got.shape) == (want.dtype, want.weak_type, want.shape), \
        (got.dtype, got.weak_type, got.shape, want.dtype, want.weak_type, want.shape)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=rtol, atol=atol,
                               equal_nan=True)


def _same_tree(got, want, **kw):
    got_leaves, got_tree = jaxwg.tree_util.tree_flatten(got)
    want_leaves, want_tree = jax.tree_util.tree_flatten(want)
    assert len(got_leaves) == len(want_leaves), (got, want)
    for g, w in zip(got_leaves, want_leaves):
        if isinstance(g, jaxwg.ShapeDtypeStruct):  # eval_shape
            _same_aval(g, w)
        else:
            _same(g, w, **kw)


def _same_aval(got, want):
    assert (got.shape, str(got.dtype), got.weak_type) == (want.shape, str(want.dtype), want.weak_type)


def _raises_as_jax(ours, theirs, match):
    with pytest.raises(Exception) as want:
        theirs()
    with pytest.raises(want.type, match=match):
        ours()


# -- jax.nn ------------------------------------------------------------------------------------

ACTIVATIONS = ["identity", "tanh", "soft_sign", "squareplus", "sparse_plus", "sparse_sigmoid",
               "log1mexp"]


# XLA's CPU backend flushes subnormal results to zero (log1mexp(100) is -0.0 there).
FLUSH_ATOL = float(np.finfo(np.float32).tiny)


@functools.cache
def _jax_activations():
    """JAX's values and derivatives at X of every activation, in one compiled program
    (compiling one per function would cost seconds)."""
    def all_of(x):
        return {n: (getattr(jax.nn, n)(x), jax.vmap(jax.grad(getattr(jax.nn, n)))(x))
                for n in ACTIVATIONS}

    return jax.jit(all_of)(X)


@pytest.mark.parametrize("name", ACTIVATIONS)
def test_activations_and_gradients_match_jax(name):
    ours, theirs = getattr(nn, name), getattr(jax.nn, name)
    values, grads = _jax_activations()[name]
    _same(ours(jnp.asarray(X)), values, atol=FLUSH_ATOL)
    # tanh's derivative 1 - y^2 cancels near |x| = 6: a few float32 ulps of 1 apart.
    _same(jaxwg.vmap(jaxwg.grad(ours))(jnp.asarray(X)), grads, atol=5e-7)
    for scalar in (2, 0.5):  # the weak types of Python scalars, as JAX's
        _same_aval(jaxwg.eval_shape(lambda: ours(scalar)), jax.eval_shape(lambda: theirs(scalar)))
    if name != "sparse_sigmoid":  # JAX's sparse_sigmoid does not check (list + 1.0 fails)
        _raises_as_jax(lambda: ours([1.0]), lambda: theirs([1.0]), name)


def test_activations_under_jit_match_jax():
    got = jaxwg.jit(lambda x: {n: getattr(nn, n)(x) for n in ACTIVATIONS})(jnp.asarray(X))
    for name in ACTIVATIONS:
        _same(got[name], _jax_activations()[name][0], atol=FLUSH_ATOL)
    _raises_as_jax(lambda: nn.log1mexp(True), lambda: jax.nn.log1mexp(True), "accept dtype bool")


def _logmeanexp_cases(nn_, x, where):
    return [nn_.squareplus(x, 0.5)] + [
        nn_.logmeanexp(x, **kw) for kw in ({}, {"axis": 1}, {"axis": (0, 1), "keepdims": True},
                                           {"axis": 0, "where": where})]


def test_squareplus_b_and_logmeanexp_match_jax():
    x = np.array([[0.0, 1.0, -np.inf], [2.0, -3.0, 4.0]], np.float32)
    where = np.array([[True, False, True], [True, True, False]])
    want = jax.jit(functools.partial(_logmeanexp_cases, jax.nn))(x, where)
    _same_tree(_logmeanexp_cases(nn, jnp.asarray(x), jnp.asarray(where)), want)
    _same_tree(jaxwg.jit(functools.partial(_logmeanexp_cases, nn))(jnp.asarray(x), jnp.asarray(where)), want)
    x = x[:, :2]
    _same(jaxwg.grad(nn.logmeanexp)(jnp.asarray(x)), jax.jit(jax.grad(jax.nn.logmeanexp))(x))


# -- jax.lax ----------------------------------------------------------------------------------


MULHI_DTYPES = ("int8", "uint8", "int16", "uint16", "int32", "uint32")


def _mulhi_operands(dtype):
    info = np.iinfo(dtype)
    v = np.array([info.min, info.max, info.min // 2 + 1, 7, 0, 123, info.max // 3], dtype)
    return v[:, None] + np.zeros_like(v), v[None, :] + np.zeros_like(v)[:, None]


XOR_OPERANDS = (np.array([[5, 3, 1], [7, 0, 7]], np.uint8), np.array([[True, True, False]] * 2))


def _elementwise_cases(L, x, mulhi_operands, xor_operands):
    return {"reciprocal": L.reciprocal(x),
            "mulhi": [L.mulhi(a, b) for a, b in mulhi_operands],
            "reduce_xor": [L.reduce_xor(v, axes) for v in xor_operands
                           for axes in ((0,), (1,), (0, 1))]}


@pytest.mark.parametrize("mode", ["eager", "jit"])
def test_lax_elementwise_helpers_match_jax(mode):
    operands = (X, [_mulhi_operands(d) for d in MULHI_DTYPES], XOR_OPERANDS)
    want = jax.jit(functools.partial(_elementwise_cases, jax.lax))(*operands)
    ours = functools.partial(_elementwise_cases, lax)
    got = (ours if mode == "eager" else jaxwg.jit(ours))(*jaxwg.tree_util.tree_map(jnp.asarray, operands))
    _same_tree(got, want, rtol=0)
    _same_aval(jaxwg.eval_shape(lambda: lax.reciprocal(2.0)), jax.eval_shape(lambda: jax.lax.reciprocal(2.0)))


@settings(max_examples=15, deadline=None)
@given(st.lists(st.integers(-2 ** 31, 2 ** 31 - 1), min_size=4, max_size=4),
       st.lists(st.integers(-2 ** 31, 2 ** 31 - 1), min_size=4, max_size=4))
def test_mulhi_of_int32_and_uint32_matches_jax(xs, ys):
    a, b = np.array(xs, np.int32), np.array(ys, np.int32)
    _same(lax.mulhi(jnp.asarray(a), jnp.asarray(b)), jax.lax.mulhi(a, b))
    a, b = a.view(np.uint32), b.view(np.uint32)
    _same(lax.mulhi(jnp.asarray(a), jnp.asarray(b)), jax.lax.mulhi(a, b))


@pytest.mark.parametrize("call", [
    lambda L, x: L.reciprocal(np.int32(2)),
    lambda L, x: L.mulhi(np.float32(1), np.float32(2)),
    lambda L, x: L.mulhi(np.int32(1), np.int8(2)),
    lambda L, x: L.reduce_xor(x, (0,)),
    lambda L, x: L.tile(x.reshape(3, 1), (2,)),
    lambda L, x: L.collapse(x.reshape(1, 3, 1), 2, 1),
    lambda L, x: L.stack([x, x.astype(np.int32)]),
    lambda L, x: L.unstack(x[0]),
    lambda L, x: L.dynamic_slice_in_dim(x, -1, 2, allow_negative_indices=False),
    lambda L, x: L.broadcast_shapes((2, 1), (3, 4)),
    lambda L, x: L.conv_shape_tuple((1, 1, 4, 4), (1, 1, 2, 2), (1, 1), [(0, 0)]),
    lambda L, x: L.Precision("bogus"),
])
def test_lax_helper_errors_match_jax(call):
    x = np.ones(3, np.float32)
    with pytest.raises(Exception) as want:
        call(jax.lax, x)
    with pytest.raises(want.type) as got:
        call(lax, jnp.asarray(x) if "unstack" not in str(want.value) else x)
    first = str(want.value).split(". ")[0].split(":")[0]
    assert first in str(got.value), (str(got.value), str(want.value))


def _structural_cases(L, v):
    idx = (np.array([0, -1, 4], np.int32), np.array([2, -2, 7], np.int32))
    return [L.tile(v, (2, 1, 3)), L.collapse(v, 1), L.collapse(v, 0, 2), L.collapse(v, -2),
            L.broadcast_to_rank(v[0, 0], 3), L.broadcast_to_rank(v, 3),
            L.stack([v, v * 2], -1), L.unstack(v, 1), L.stack([v[0, 0, 0]] * 2),
            L.dynamic_slice_in_dim(v, -3, 2, axis=2),
            L.dynamic_slice_in_dim(v, 1, 2, 1, allow_negative_indices=False),
            L.dynamic_update_slice_in_dim(v, v[:, :1] * 0, -1, 1),
            L.dynamic_update_index_in_dim(v, v[:, 0] * 0, 1, 1),
            L.dynamic_update_index_in_dim(v, v[:1] * 0, 5, 0),
            L.index_take(v, idx, (1, 2)), L.optimization_barrier((v, 2.0))]


@pytest.mark.parametrize("mode", ["eager", "jit"])
def test_lax_structural_helpers_match_jax(mode):
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    want = jax.jit(functools.partial(_structural_cases, jax.lax))(x)
    ours = functools.partial(_structural_cases, lax)
    _same_tree((ours if mode == "eager" else jaxwg.jit(ours))(jnp.asarray(x)), want, rtol=0)
    if mode == "eager":
        for fn, args in [("optimization_barrier", ((1, 2.0),)), ("stack", ([1.0, 2.0],)),
                         ("broadcast_to_rank", (1.0, 2))]:
            _same_tree(jaxwg.eval_shape(lambda: getattr(lax, fn)(*args)),
                       jax.eval_shape(lambda: getattr(jax.lax, fn)(*args)))
    else:
        grad = jaxwg.jit(jaxwg.grad(lambda v: lax.dynamic_slice_in_dim(v, 1, 2).sum()))(jnp.ones(4))
        _same(grad, jax.jit(jax.grad(lambda v: jax.lax.dynamic_slice_in_dim(v, 1, 2).sum()))(np.ones(4, np.float32)))


def test_lax_shape_functions_match_jax():
    shape_cases = [
        ("broadcast_shapes", ((2, 1), (3,), ())),
        ("broadcast_shapes", ((1,), (5, 1, 1), (3,))),
        ("reduce_window_shape_tuple", ((5, 6), (2, 2), (1, 2), ((0, 0), (1, 1)))),
        ("reduce_window_shape_tuple", ((5, 6), (2, 3), (2, 1), ((1, 0), (0, 2)), (2, 1), (1, 2))),
        ("conv_shape_tuple", ((1, 3, 8, 8), (4, 3, 3, 3), (2, 2), "SAME")),
        ("conv_shape_tuple", ((4, 3, 7, 8), (4, 3, 3, 2), (2, 3), ((1, 1), (0, 2)), 2)),
        ("conv_general_shape_tuple", ((1, 8, 9, 3), (3, 2, 3, 4), (1, 2), "VALID", ("NHWC", "HWIO", "NHWC"))),
        ("conv_transpose_shape_tuple", ((1, 4, 4, 3), (3, 3, 3, 4), (2, 2), "SAME", ("NHWC", "HWIO", "NHWC"))),
        ("conv_transpose_shape_tuple", ((1, 4, 5, 3), (3, 2, 3, 4), (2, 3), "VALID", ("NHWC", "HWIO", "NCHW"))),
        ("conv_transpose_shape_tuple", ((1, 3, 5, 5), (4, 3, 3, 3), (1, 1), ((1, 2), (0, 0)), ("NCHW", "OIHW", "NCHW"))),
    ]
    for name, args in shape_cases:
        assert getattr(lax, name)(*args) == tuple(int(n) for n in getattr(jax.lax, name)(*args)), name
    assert lax.Precision("highest") is lax.Precision.HIGHEST and lax.Precision(None) is lax.Precision.DEFAULT
    assert [(p.name, p.value, repr(p), str(p)) for p in lax.Precision] == \
        [(p.name, p.value, repr(p), str(p)) for p in jax.lax.Precision]
    assert [(m.name, int(m)) for m in lax.RoundingMethod] == [(m.name, int(m)) for m in jax.lax.RoundingMethod]
    half = np.array([0.5, 1.5, 2.5, -0.5], np.float32)
    _same(lax.round(jnp.asarray(half), lax.RoundingMethod.TO_NEAREST_EVEN),
          jax.lax.round(half, jax.lax.RoundingMethod.TO_NEAREST_EVEN))
    assert lax.DotDimensionNumbers is not None and lax.ConvGeneralDilatedDimensionNumbers is not None


def test_conv_general_dilated_patches_matches_jax():
    x = np.arange(2 * 4 * 3, dtype=np.float32).reshape(1, 2, 4, 3)
    for args, kw in [(((2, 2), (1, 2), "SAME"), {"rhs_dilation": (2, 1)}),
                     (((3, 2), (1, 1), "VALID"), {"dimension_numbers": ("NHWC", "HWIO", "NHWC")})]:
        v = x.transpose(0, 2, 3, 1) if kw.get("dimension_numbers") else x
        want = jax.jit(lambda a: jax.lax.conv_general_dilated_patches(a, *args, **kw))(v)
        _same(lax.conv_general_dilated_patches(jnp.asarray(v), *args, **kw), want, rtol=0)


def test_axis_size_inside_vmap_matches_jax():
    def f(L):
        return lambda v: v * L.axis_size("i") + L.axis_size(("i", "j"))

    got = jaxwg.vmap(jaxwg.vmap(f(lax), axis_name="j"), axis_name="i")(jnp.ones((3, 2)))
    _same(got, jax.vmap(jax.vmap(f(jax.lax), axis_name="j"), axis_name="i")(np.ones((3, 2), np.float32)))
    _raises_as_jax(lambda: lax.axis_size("i"), lambda: jax.lax.axis_size("i"), "unbound axis name: i")


# -- top-level jax --------------------------------------------------------------------------


def _custom_gradient_fns(mod, np_):
    @mod.custom_gradient
    def scaled(x, y):
        return x * y, lambda g: (g * y, -g)

    @mod.custom_gradient
    def clip_grad(x):
        return np_.sin(x), lambda g: np_.clip(g, -0.5, 0.5) * 3.0

    return scaled, clip_grad


def _custom_gradient_results(mod, scaled, clip_grad, x, y, xs):
    return [mod.grad(scaled, (0, 1))(x, y), scaled(x, y),
            mod.vmap(mod.grad(lambda v: 4.0 * clip_grad(v)))(xs)]


def test_custom_gradient_matches_jax():
    args = (np.float32(3.0), np.float32(4.0), np.array([0.0, 1.0, -2.0], np.float32))
    want = jax.jit(functools.partial(_custom_gradient_results, jax,
                                     *_custom_gradient_fns(jax, jax_numpy)))(*args)
    ours = functools.partial(_custom_gradient_results, jaxwg, *_custom_gradient_fns(jaxwg, jnp))
    _same_tree(ours(*map(jnp.asarray, args)), want)
    _same_tree(jaxwg.jit(ours)(*map(jnp.asarray, args)), want)


def test_linear_transpose_matches_jax():
    run = lambda f, *a: jaxwg.jit(f)(*a)  # noqa: E731
    def fn(np_):
        return lambda x, y: (2.0 * x.sum() + y[0], np_.cumsum(x) * 3.0)

    x = np.zeros(3, np.float32)
    ours = jaxwg.linear_transpose(fn(jnp), jnp.asarray(x), jaxwg.ShapeDtypeStruct((2,), jnp.float32))
    theirs = jax.linear_transpose(fn(jax_numpy), x, jax.ShapeDtypeStruct((2,), np.float32))
    ct = (np.float32(1.5), np.array([1.0, 2.0, 3.0], np.float32))
    _same_tree(run(lambda a, b: ours((a, b)), jnp.asarray(ct[0]), jnp.asarray(ct[1])), jax.jit(theirs)(ct))
    _raises_as_jax(lambda: ours(1.0), lambda: theirs(1.0), "cotangent tree does not match")
    _raises_as_jax(lambda: jaxwg.linear_transpose(lambda v: v * 1.0, jnp.arange(2)),
                   lambda: jax.linear_transpose(lambda v: v * 1.0, np.arange(2)),
                   "linear_transpose only supports")
    for f in (lambda v: v + 1.0, lambda v: 2 * v):  # Python scalars: weak arrays come back
        (got,), (want,) = jaxwg.linear_transpose(f, 1.0)(1.0), jax.linear_transpose(f, 1.0)(1.0)
        assert (got.dtype, got.weak_type, float(got)) == (want.dtype, want.weak_type, float(want))


def test_top_level_helpers_match_jax():
    for value in (1.0, 2, True, np.ones((2, 3), np.float32), np.int8(1)):
        _same_aval(jaxwg.typeof(value), jax.typeof(value))
    _raises_as_jax(lambda: jaxwg.typeof("a"), lambda: jax.typeof("a"), "is not a valid JAX type")
    assert jaxwg.float0 == jax.float0
    assert jaxwg.local_device_count() == len(jaxwg.local_devices())
    inc = jaxwg.named_call(lambda v: v + 1, name="inc")
    _same(jaxwg.jit(inc)(jnp.float32(1)), jax.jit(jax.named_call(lambda v: v + 1, name="inc"))(np.float32(1)))
    with jaxwg.named_scope("block"):
        _same(jnp.ones(2) * 2, np.full(2, 2, np.float32))
    _raises_as_jax(lambda: jaxwg.named_scope(3).__enter__(), lambda: jax.named_scope(3),
                   "named_scope name argument must be a string")

    def compile_time(mod, np_):
        @mod.jit
        def f(v):
            with mod.ensure_compile_time_eval():
                n = int(np_.arange(4).sum())  # concrete inside jit
            return v * n
        return f

    _same(compile_time(jaxwg, jnp)(jnp.float32(2)), compile_time(jax, jax_numpy)(np.float32(2)))
    f = jaxwg.jit(lambda v: v * 3)
    f(jnp.ones(2))
    jaxwg.clear_caches()
    assert f._cache_info()["size"] == 0
    _same(f(jnp.ones(2)), jax.jit(lambda v: v * 3)(np.ones(2, np.float32)))


def test_config_context_managers_match_jax():
    with jaxwg.enable_x64(True), jax.enable_x64(True):
        _same(jnp.arange(3.0) + 1, jax_numpy.arange(3.0) + 1)
        assert jaxwg.enable_x64.value is True and jaxwg.config.jax_enable_x64
    assert jaxwg.enable_x64.value is False and jnp.ones(1).dtype == np.float32
    with jaxwg.debug_nans(True), jax.debug_nans(True):
        with pytest.raises(FloatingPointError):
            jax_numpy.log(-1.0).block_until_ready()
        with pytest.raises(FloatingPointError):
            jnp.log(jnp.float32(-1.0)).block_until_ready()
    assert not jaxwg.config.jax_debug_nans
    with jaxwg.debug_infs(True):
        assert jaxwg.config.jax_debug_infs
    honoured = [(jaxwg.default_matmul_precision, "highest"), (jaxwg.default_matmul_precision, None),
                (jaxwg.numpy_dtype_promotion, "standard"), (jaxwg.numpy_rank_promotion, "allow"),
                (jaxwg.log_compiles, False), (jaxwg.enable_checks, False),
                (jaxwg.default_prng_impl, "threefry2x32")]
    for manager, value in honoured:
        with manager(value):
            assert jaxwg.nn.relu(jnp.float32(1)).item() == 1.0
    for name, value in [("default_matmul_precision", "bfloat16"), ("numpy_rank_promotion", "raise"),
                        ("numpy_dtype_promotion", "strict"), ("log_compiles", True),
                        ("default_prng_impl", "rbg")]:
        with getattr(jax, name)(value):  # JAX takes it ...
            pass
        with pytest.raises(NotImplementedError, match=name):  # ... jaxwg does not honour it
            getattr(jaxwg, name)(value)
    for name, value in [("numpy_rank_promotion", "bogus"), ("default_prng_impl", "bogus")]:
        _raises_as_jax(lambda: getattr(jaxwg, name)(value).__enter__(),
                       lambda: getattr(jax, name)(value).__enter__(), "new enum value must be in")


@pytest.mark.parametrize("mode", ["eager", "jit"])
def test_pure_callback_matches_jax(mode):
    run = (lambda f, *a: f(*a)) if mode == "eager" else (lambda f, *a: jaxwg.jit(f)(*a))
    calls = []

    def sine(v):
        calls.append(type(v))
        return np.sin(v)

    def fn(mod, method=None):
        return lambda v: mod.pure_callback(sine, mod.ShapeDtypeStruct(v.shape, v.dtype), v,
                                           vmap_method=method) * 2

    x = np.array([0.0, 0.5, -1.0], np.float32)
    methods = ("sequential", "expand_dims", "broadcast_all")
    two = lambda a, b: (a + b, {"k": np.array([a, b], np.int32)})  # noqa: E731

    def results(mod, v):
        pair = (mod.ShapeDtypeStruct((), np.float32), {"k": mod.ShapeDtypeStruct((2,), np.int32)})
        return [fn(mod)(v), mod.pure_callback(two, pair, v[0], b=2.0)] + [
            mod.vmap(fn(mod, method))(v) for method in methods]

    want = jax.jit(functools.partial(results, jax))(x)
    calls.clear()
    _same_tree(run(functools.partial(results, jaxwg), jnp.asarray(x)), want)
    assert calls == [np.ndarray] * 6  # on host values: once, once per member (3), once, once
    _raises_as_jax(lambda: jaxwg.vmap(fn(jaxwg))(jnp.asarray(x)), lambda: jax.vmap(fn(jax))(x),
                   "vmap is only supported for the pure_callback primitive")
    _raises_as_jax(lambda: jaxwg.grad(fn(jaxwg))(1.0), lambda: jax.grad(fn(jax))(1.0),
                   "Pure callbacks do not support JVP")
    with pytest.raises(RuntimeError, match="Incorrect output shape for return value #0"):
        jaxwg.pure_callback(lambda v: np.ones(2), jaxwg.ShapeDtypeStruct((3,), np.float32), 1.0)
    with pytest.raises(ValueError, match="vmap_method must be"):
        jaxwg.pure_callback(sine, jaxwg.ShapeDtypeStruct((), np.float32), 1.0, vmap_method="bad")


def _solves(L, np_):
    def linear(a, b):  # a upper triangular 2x2, solved by back substitution
        def back_substitution(m, v):
            x1 = v[1] / m[1, 1]
            return np_.stack([(v[0] - m[0, 1] * x1) / m[0, 0], x1])

        def forward_substitution(m, v):  # m.T is lower triangular
            x0 = v[0] / m[0, 0]
            return np_.stack([x0, (v[1] - m[0, 1] * x0) / m[1, 1]])

        x = L.custom_linear_solve(lambda v: a @ v, b, lambda mv, v: back_substitution(a, v),
                                  lambda vm, v: forward_substitution(a, v))
        return (x * np_.array([1.0, 2.0])).sum()

    def newton(f, x):
        for _ in range(8):
            x = x - f(x) / (3 * x * x)
        return x

    def cube_root(a):
        return L.custom_root(lambda x: x ** 3 - a, a * 0 + 1.5, newton, lambda g, y: y / g(1.0))

    return linear, cube_root


def _solve_results(mod, linear, cube_root, a, b, xs):
    # forward mode solves again; jacfwd of grad and vmap compose the primitive's rules
    return {"linear": linear(a, b), "linear_grad": mod.grad(linear, (0, 1))(a, b),
            "linear_jvp": mod.jvp(linear, (a, b), (a * 0.5, b + 1.0)),
            "linear_hessian": mod.jacfwd(mod.grad(linear, 1), 0)(a, b),
            "linear_vmap": mod.vmap(linear, (None, 0))(a, mod.numpy.stack([b, 2 * b])),
            "roots": mod.vmap(cube_root)(xs), "root_grads": mod.vmap(mod.grad(cube_root))(xs),
            "root_jvp": mod.jvp(cube_root, (xs[1],), (xs[0],))}


def test_custom_linear_solve_and_custom_root_match_jax():
    (linear, cube_root), (j_linear, j_cube_root) = _solves(lax, jnp), _solves(jax.lax, jax_numpy)
    a = np.array([[2.0, 1.0], [0.0, 3.0]], np.float32)
    b = np.array([3.0, 4.0], np.float32)
    xs = np.array([1.0, 8.0, 27.0], np.float32)
    want = jax.jit(functools.partial(_solve_results, jax, j_linear, j_cube_root))(a, b, xs)
    ours = functools.partial(_solve_results, jaxwg, linear, cube_root)
    _same_tree(ours(jnp.asarray(a), jnp.asarray(b), jnp.asarray(xs)), want, rtol=1e-5)
    _same_tree(jaxwg.jit(ours)(jnp.asarray(a), jnp.asarray(b), jnp.asarray(xs)), want, rtol=1e-5)
    no_transpose = lambda L: lambda v: L.custom_linear_solve(  # noqa: E731
        lambda u: 2.0 * u, v, lambda mv, u: u / 2.0).sum()
    _raises_as_jax(lambda: jaxwg.grad(no_transpose(lax))(jnp.ones(2)),
                   lambda: jax.grad(no_transpose(jax.lax))(np.ones(2, np.float32)),
                   "transpose_solve required")
    mismatched = lambda L, v: L.custom_linear_solve(lambda u: u[:1], v, lambda mv, u: u)  # noqa: E731
    _raises_as_jax(lambda: mismatched(lax, jnp.ones(2)), lambda: mismatched(jax.lax, np.ones(2)),
                   r"matvec\(\) output shapes must match b, got \[\(1,\)\] and \[\(2,\)\]")


def test_pmap_on_one_device_matches_jax():
    """pmap over an axis of one element (jaxwg's one device): values, collectives, static
    and unmapped arguments, gradients; a longer axis is refused clearly."""
    x = np.arange(6, dtype=np.float32).reshape(1, 2, 3)
    cases = [
        (lambda J, L: J.pmap(lambda v: v / L.psum(v, "i"), axis_name="i"), (x,)),
        (lambda J, L: J.pmap(lambda v, n: v * n, static_broadcasted_argnums=1), (x, 3)),
        (lambda J, L: J.pmap(lambda v, w: v + w, in_axes=(0, None)), (x, x[0])),
        (lambda J, L: J.pmap(lambda v: v.sum(0), in_axes=2, out_axes=0), (x.reshape(2, 3, 1),)),
        (lambda J, L: J.grad(lambda v: J.pmap(lambda y: (y ** 2).sum())(v).sum()), (x,)),
    ]
    for make, args in cases:
        got = make(jaxwg, lax)(*[jnp.asarray(a) if isinstance(a, np.ndarray) else a for a in args])
        want = make(jax, jax.lax)(*args)
        _same(got, want)
    with pytest.raises(ValueError, match="pmap: the mapped axis has 2 elements"):
        jaxwg.pmap(lambda v: v)(jnp.ones((2, 3)))
