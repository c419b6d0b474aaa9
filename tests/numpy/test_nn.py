"""`jaxwg.nn` against `jax.nn`: activations and their gradients (JAX's at the kinks),
softmax family, one_hot, standardize, attention, and the initializers."""

import numpy as np
import pytest

import jaxwg
import jaxwg.scipy.special
import jaxwg.numpy as jnp
from jaxwg import nn, random

from .helpers import jax

X = np.array([-100.0, -6.5, -3.0, -1.0, -0.5, -1e-3, 0.0, 1e-3, 0.5, 1.0, 3.0, 6.0, 6.5, 100.0],
             np.float32)
ACTIVATIONS = ["relu", "relu6", "sigmoid", "softplus", "log_sigmoid", "silu", "swish", "mish",
               "elu", "celu", "selu", "leaky_relu", "hard_tanh", "hard_sigmoid", "hard_silu"]


@pytest.mark.parametrize("name", ACTIVATIONS + ["gelu", "gelu exact"])
def test_activations_and_gradients_match_jax(platform, name):
    kw = {"approximate": False} if name == "gelu exact" else {}
    fn = name.split()[0]
    ours, theirs = (lambda x: getattr(nn, fn)(x, **kw)), (lambda x: getattr(jax.nn, fn)(x, **kw))
    np.testing.assert_allclose(np.asarray(ours(jnp.asarray(X))), np.asarray(theirs(X)),
                               rtol=2e-6, atol=1e-7)
    grad = jaxwg.vmap(jaxwg.grad(lambda v: ours(v)))(jnp.asarray(X))
    want = jax.vmap(jax.grad(lambda v: theirs(v)))(X)
    np.testing.assert_allclose(np.asarray(grad), np.asarray(want), rtol=2e-6, atol=1e-7)


@pytest.mark.slow_on_cpu
def test_softmax_family_and_glu_match_jax(platform):
    x = np.random.default_rng(0).standard_normal((4, 6)).astype(np.float32) * 5
    for fn in ("softmax", "log_softmax"):
        for axis in (-1, 0):
            np.testing.assert_allclose(np.asarray(getattr(nn, fn)(jnp.asarray(x), axis=axis)),
                                       np.asarray(getattr(jax.nn, fn)(x, axis=axis)), rtol=2e-6,
                                       atol=1e-7)
    np.testing.assert_allclose(np.asarray(nn.logsumexp(jnp.asarray(x), axis=1)),
                               np.asarray(jax.nn.logsumexp(x, axis=1)), rtol=2e-6)
    np.testing.assert_allclose(np.asarray(nn.glu(jnp.asarray(x))), np.asarray(jax.nn.glu(x)),
                               rtol=2e-6)
    w = np.random.default_rng(1).standard_normal((4, 6)).astype(np.float32)
    g = jaxwg.grad(lambda v: jnp.sum(nn.softmax(v) * w))(jnp.asarray(x))
    gj = jax.grad(lambda v: (jax.nn.softmax(v) * w).sum())(x)
    np.testing.assert_allclose(np.asarray(g), np.asarray(gj), rtol=1e-5, atol=1e-7)
    # JAX's default softmax (jax_softmax_custom_jvp off): the maximum under stop_gradient
    assert "stop_gradient" in str(jaxwg.make_jaxpr(nn.softmax)(jnp.asarray(x)))


def test_one_hot_and_standardize_match_jax():
    labels = np.array([[0, 3], [2, 1]])
    for axis in (-1, 0, 1):
        np.testing.assert_array_equal(np.asarray(nn.one_hot(jnp.asarray(labels), 4, axis=axis)),
                                      np.asarray(jax.nn.one_hot(labels, 4, axis=axis)))
    x = np.random.default_rng(2).standard_normal((3, 5)).astype(np.float32)
    np.testing.assert_allclose(np.asarray(nn.standardize(jnp.asarray(x))),
                               np.asarray(jax.nn.standardize(x)), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("case", ["plain", "mask", "bias", "causal", "unbatched"])
def test_dot_product_attention_matches_jax(platform, case):
    rng = np.random.default_rng(3)
    q, k, v = (rng.standard_normal((2, 5, 3, 8)).astype(np.float32) for _ in range(3))
    kw = {}
    if case == "mask":
        kw["mask"] = rng.random((2, 3, 5, 5)) > 0.3
    if case == "bias":
        kw["bias"] = rng.standard_normal((2, 3, 5, 5)).astype(np.float32)
    if case == "causal":
        kw["is_causal"] = True
    if case == "unbatched":
        q, k, v = q[0], k[0], v[0]
    got = nn.dot_product_attention(jnp.asarray(q), jnp.asarray(k), jnp.asarray(v),
                                   **{k_: (jnp.asarray(v_) if k_ != "is_causal" else v_)
                                      for k_, v_ in kw.items()})
    want = jax.nn.dot_product_attention(q, k, v, **kw)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=2e-5, atol=2e-6)


ATTENTION_CASES = {
    "q_lengths": dict(query_seq_lengths=np.array([3, 5], np.int32)),
    "kv_lengths": dict(key_value_seq_lengths=np.array([2, 4], np.int32)),
    "both_lengths_causal": dict(query_seq_lengths=np.array([4, 1], np.int32),
                                key_value_seq_lengths=np.array([5, 3], np.int32), is_causal=True),
    "window": dict(local_window_size=1),
    "window_pair_causal": dict(local_window_size=(2, 0), is_causal=True),
    "zero_lengths": dict(query_seq_lengths=np.array([0, 5], np.int32),
                         key_value_seq_lengths=np.array([0, 2], np.int32)),
    "gqa": dict(kv_heads=1),
    "gqa_mask_bias": dict(kv_heads=3, heads=6, mask=(2, 1, 5, 4), bias=(1, 6, 5, 4),
                          key_value_seq_lengths=np.array([3, 4], np.int32)),
    "residual": dict(return_residual=True, query_seq_lengths=np.array([2, 5], np.int32)),
    "unbatched_window": dict(unbatched=True, local_window_size=(0, 1)),
    "implementation_xla": dict(implementation="xla", key_value_seq_lengths=np.array([1, 4], np.int32)),
}


@pytest.mark.parametrize("case", list(ATTENTION_CASES))
def test_dot_product_attention_masks_and_groups_match_jax(platform, mode, case):
    """Sequence lengths, local windows, grouped-query heads and the residual, against
    JAX, eagerly and under jit."""
    kw = dict(ATTENTION_CASES[case])
    rng = np.random.default_rng(5)
    heads, kv_heads = kw.pop("heads", 3), kw.pop("kv_heads", 3)
    s_len = 4 if "mask" in kw else 5
    q = rng.standard_normal((2, 5, heads, 8)).astype(np.float32)
    k, v = (rng.standard_normal((2, s_len, kv_heads, 8)).astype(np.float32) for _ in range(2))
    if "mask" in kw:
        kw["mask"] = rng.random(kw["mask"]) > 0.3
    if "bias" in kw:
        kw["bias"] = rng.standard_normal(kw["bias"]).astype(np.float32)
    if kw.pop("unbatched", False):
        q, k, v = q[0], k[0], v[0]
    arrays = {n: x for n, x in kw.items() if isinstance(x, np.ndarray)}
    static = {n: x for n, x in kw.items() if n not in arrays}

    def ours(q, k, v, arrays):
        return nn.dot_product_attention(q, k, v, **arrays, **static)

    call = jaxwg.jit(ours) if mode == "jit" else ours
    got = call(jnp.asarray(q), jnp.asarray(k), jnp.asarray(v), {n: jnp.asarray(x) for n, x in arrays.items()})
    want = jax.nn.dot_product_attention(q, k, v, **kw)
    got, want = (got, want) if static.get("return_residual") else ((got,), (want,))
    for g, w in zip(got, want):
        assert g.shape == w.shape and g.dtype == w.dtype
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=2e-5, atol=2e-6)


def test_dot_product_attention_gradients_with_lengths_match_jax():
    rng = np.random.default_rng(6)
    q, k, v = (rng.standard_normal((2, 4, 2, 4)).astype(np.float32) for _ in range(3))
    lengths = np.array([2, 4], np.int32)

    def loss(nn_, q, k, v):
        return (nn_.dot_product_attention(q, k, v, key_value_seq_lengths=lengths, query_seq_lengths=lengths,
                                          local_window_size=(1, 1)) ** 2).sum()

    got = jaxwg.jit(jaxwg.grad(lambda *a: loss(nn, *a), argnums=(0, 1, 2)))(*map(jnp.asarray, (q, k, v)))
    want = jax.jit(jax.grad(lambda *a: loss(jax.nn, *a), argnums=(0, 1, 2)))(q, k, v)
    for g, w in zip(got, want):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("call", [
    lambda m, q: m.dot_product_attention(q, q, q, query_seq_lengths=np.array([1, 2], np.int32)),
    lambda m, q: m.dot_product_attention(q, q, q, key_value_seq_lengths=np.array([[1]], np.int32)),
    lambda m, q: m.dot_product_attention(q, q, q, query_seq_lengths=np.array([1.0], np.float32)),
    lambda m, q: m.dot_product_attention(q, q, q.astype(np.float16)),
    lambda m, q: m.dot_product_attention(q, q, q, mask=np.ones((1, 1, 2, 2), np.float32)),
    lambda m, q: m.dot_product_attention(np.ones((1, 2, 3, 4), np.float32), np.ones((1, 2, 2, 4), np.float32),
                                         np.ones((1, 2, 2, 4), np.float32)),
    lambda m, q: m.dot_product_attention(q, q, q, implementation="foo"),
], ids=range(7))
def test_dot_product_attention_errors_match_jax(call):
    q = np.ones((1, 2, 1, 4), np.float32)
    with pytest.raises(Exception) as theirs:
        call(jax.nn, q)
    with pytest.raises(type(theirs.value), match=None) as ours:
        call(nn, jnp.asarray(q))
    assert str(ours.value) == str(theirs.value)
    # JAX without CUDA says this for implementation="cudnn"; jaxwg never has cuDNN
    with pytest.raises(RuntimeError, match="cuDNN is not detected."):
        nn.dot_product_attention(jnp.asarray(q), jnp.asarray(q), jnp.asarray(q), implementation="cudnn")


@pytest.mark.parametrize("name", ["glorot_normal", "glorot_uniform", "lecun_normal",
                                  "lecun_uniform", "he_normal", "he_uniform"])
def test_initializers_match_jax(name):
    shape = (64, 32)
    got = getattr(nn.initializers, name)()(random.PRNGKey(4), shape)
    want = getattr(jax.nn.initializers, name)()(jax.random.PRNGKey(4), shape)
    # a few ulp (see jaxwg.random): relative, and absolute where values are near zero
    scale = float(np.max(np.abs(np.asarray(want))))
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=4e-7, atol=4e-7 * scale)


@pytest.mark.parametrize("kw", [{}, {"scale": 2.0}, {"column_axis": 0}, {"column_axis": 1}])
@pytest.mark.parametrize("shape", [(3, 5), (5, 3), (4, 4), (2, 3, 4), (3, 0)])
def test_orthogonal_initializer_matches_jax(shape, kw):
    """The same matrices as JAX's (its Householder Q, ours Gram-Schmidt: unique up to rounding)."""
    got = nn.initializers.orthogonal(**kw)(random.PRNGKey(4), shape)
    want = jax.nn.initializers.orthogonal(**kw)(jax.random.PRNGKey(4), shape, jax.numpy.float32)
    assert got.dtype == want.dtype
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=0, atol=1e-6 * kw.get("scale", 1))
    with pytest.raises(ValueError, match="2D"):
        nn.initializers.orthogonal()(random.PRNGKey(4), (3,))


WHERE = np.array([[True, False, True, True], [False, False, False, False], [True, True, True, False]])


@pytest.mark.parametrize("axis", [-1, 0, None])
def test_softmax_family_with_where_matches_jax(run, axis):
    """Masked-out elements give 0 (softmax) or -inf (log_softmax); a row masked out
    entirely gives those too, as JAX; the gradient follows JAX's rule."""
    x = np.random.default_rng(3).standard_normal(WHERE.shape).astype(np.float32) * 3
    for fn in ("softmax", "log_softmax"):
        got = run(lambda v, w: getattr(nn, fn)(v, axis=axis, where=w), jnp.asarray(x), jnp.asarray(WHERE))
        want = getattr(jax.nn, fn)(x, axis=axis, where=WHERE)
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=2e-6, atol=1e-7)
    g = jaxwg.grad(lambda v: jnp.sum(nn.softmax(v, axis, jnp.asarray(WHERE)) * x))(jnp.asarray(x))
    gj = jax.grad(lambda v: (jax.nn.softmax(v, axis, WHERE) * x).sum())(x)
    # y (t - <y, t>) cancels at the scale of the cotangent t = x: a few of its ulps
    np.testing.assert_allclose(np.asarray(g), np.asarray(gj), rtol=1e-5,
                               atol=4 * float(np.spacing(np.abs(x).max())))


@pytest.mark.parametrize("logsumexp", [nn.logsumexp, jaxwg.scipy.special.logsumexp], ids=["nn", "scipy"])
@pytest.mark.parametrize("axis", [1, None, (0, 1)])
def test_logsumexp_with_b_return_sign_and_where_matches_jax(run, logsumexp, axis):
    x = np.random.default_rng(5).standard_normal(WHERE.shape).astype(np.float32) * 3
    b = np.array([1.0, -2.0, 0.0, 0.5], np.float32)
    cases = [dict(b=b), dict(b=b, return_sign=True), dict(b=b, keepdims=True, return_sign=True),
             dict(where=WHERE), dict(b=-b, where=WHERE, return_sign=True), dict(b=np.float32(0))]
    for kw in cases:
        names = [k for k, v in kw.items() if isinstance(v, np.ndarray)]  # arguments; the rest closed over
        static = {k: v for k, v in kw.items() if k not in names}
        got = run(lambda v, *a: logsumexp(v, axis, **dict(zip(names, a)), **static), jnp.asarray(x),
                  *[jnp.asarray(kw[k]) for k in names])
        want = jax.nn.logsumexp(x, axis, **kw)
        for g, w in zip(got if isinstance(got, tuple) else [got], want if isinstance(want, tuple) else [want]):
            assert g.shape == w.shape and g.dtype == w.dtype, kw
            np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=2e-6, atol=1e-7, err_msg=str(kw))
    ints = np.array([1, 2, 3], np.int32)  # integers promote to float, as JAX
    got, want = nn.logsumexp(jnp.asarray(ints)), jax.nn.logsumexp(ints)
    assert got.dtype == want.dtype
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=2e-6)


def test_sigmoid_of_integers_raises_as_jax():
    for x in (np.array([1, 2], np.int32), 0, np.array([True])):
        with pytest.raises(TypeError):
            jax.nn.sigmoid(x)
        with pytest.raises(TypeError, match="logistic"):
            nn.sigmoid(jnp.asarray(x))
    assert nn.sigmoid(0.0).item() == 0.5
