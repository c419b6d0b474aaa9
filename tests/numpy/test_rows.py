"""Row fusion (frontend/rows.py): softmax, layer norms and logsumexp in one kernel.

Each program is compared with NumPy in float64 (or JAX, for gradients) and its kernel
count is checked: one kernel where the per-row values fuse as row stages, and the
unfused count where they must not (read at another row, needed as an output, a few
very long rows).
"""

import numpy as np
import pytest
from hypothesis import given, strategies as st

import jaxwg
import jaxwg.nn as nn
import jaxwg.numpy as jnp

from .helpers import assert_array, jax, jax_numpy, kernels_for


def softmax(m, x):
    e = m.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def layer_norm(m, x, gamma, beta):
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) / m.sqrt(var + 1e-5) * gamma + beta


def logsumexp(m, x):
    top = x.max(axis=-1, keepdims=True)
    return (m.log(m.exp(x - top).sum(axis=-1, keepdims=True)) + top)[..., 0]


def log_softmax(m, x):
    return x - logsumexp(m, x)[..., None]


def normal(shape, seed=0, dtype=np.float32):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


PROGRAMS = {
    "softmax": (lambda x: softmax(jnp, x), lambda x: softmax(np, x)),
    "log_softmax": (lambda x: log_softmax(jnp, x), lambda x: log_softmax(np, x)),
    "logsumexp": (lambda x: logsumexp(jnp, x), lambda x: logsumexp(np, x)),
    "nn.softmax": (nn.softmax, lambda x: softmax(np, x)),
    "nn.logsumexp": (lambda x: nn.logsumexp(x, axis=-1), lambda x: logsumexp(np, x)),
    "normalize": (lambda x: x / jnp.abs(x).sum(axis=1, keepdims=True),
                  lambda x: x / np.abs(x).sum(axis=1, keepdims=True)),
}


@pytest.mark.parametrize("name", PROGRAMS)
@pytest.mark.parametrize("shape", [(300, 37), (64, 1024), (1, 5), (130, 4), (7, 1)])
def test_row_programs_are_one_kernel(platform, mode, name, shape):
    fn, reference = PROGRAMS[name]
    x = normal(shape)
    count, out = kernels_for(fn, jnp.asarray(x), mode=mode)
    assert_array(out, reference(x.astype(np.float64)).astype(np.float32), rtol=2e-5, atol=1e-6)
    assert count == 1


def test_layer_norm_is_one_kernel(platform, mode):
    x, gamma, beta = normal((200, 48)), normal(48, 1), normal(48, 2)
    args = [jnp.asarray(a) for a in (x, gamma, beta)]
    count, out = kernels_for(lambda *a: layer_norm(jnp, *a), *args, mode=mode)
    want = layer_norm(np, x.astype(np.float64), gamma, beta)
    assert_array(out, want.astype(np.float32), rtol=2e-5, atol=1e-5)
    assert count == 1


@given(rows=st.integers(1, 200), length=st.integers(1, 70), seed=st.integers(0, 2**16),
       scale=st.sampled_from([1e-3, 1.0, 30.0]))
def test_softmax_matches_numpy(platform, rows, length, seed, scale):
    x = normal((rows, length), seed) * np.float32(scale)
    out = jaxwg.jit(lambda v: softmax(jnp, v))(jnp.asarray(x))
    assert_array(out, softmax(np, x.astype(np.float64)).astype(np.float32), rtol=2e-5, atol=1e-7)


@given(rows=st.integers(1, 100), length=st.integers(1, 40), seed=st.integers(0, 2**16))
def test_row_stages_of_other_dtypes(platform, rows, length, seed):
    """An int32 row sum and a bool `all` as stages of a float kernel, and a row stage
    feeding an output of another width."""
    rng = np.random.default_rng(seed)
    counts = rng.integers(-5, 6, (rows, length)).astype(np.int32)
    y = normal((rows, 3), seed)

    def fn(c, v):
        total = c.sum(axis=1, keepdims=True)
        positive = (c > -5).all(axis=1, keepdims=True)
        return jnp.where(positive, v * total, -v)

    out = jaxwg.jit(fn)(jnp.asarray(counts), jnp.asarray(y))
    want = np.where((counts > -5).all(1, keepdims=True), y * counts.sum(1, keepdims=True), -y)
    assert_array(out, want.astype(np.float32), rtol=1e-6)


def test_ieee_rows(platform):
    """NaN, infinite and all -inf rows: as NumPy (an all -inf row is NaN)."""
    x = np.array([[1.0, np.nan, 2.0, 0.0], [np.inf, 1.0, 2.0, 3.0], [-np.inf] * 4,
                  [-0.0, 0.0, -np.inf, 1.0], [1e30, 1e30, -1e30, 0.0]], np.float32)
    with np.errstate(all="ignore"):
        want = softmax(np, x.astype(np.float64)).astype(np.float32)
    assert_array(jaxwg.jit(lambda v: softmax(jnp, v))(jnp.asarray(x)), want, rtol=1e-6)


def test_values_read_elsewhere_keep_their_kernels(platform, mode):
    """A row maximum that is also an output, and a column maximum (read at other rows),
    are not stages; the sum that only the division reads still is."""
    x = normal((70, 9))

    def fn(v):
        top = v.max(axis=1)
        e = jnp.exp(v - top[:, None])
        return e / e.sum(axis=1, keepdims=True), top

    count, (out, top) = kernels_for(fn, jnp.asarray(x), mode=mode)
    assert_array(out, softmax(np, x.astype(np.float64)).astype(np.float32), rtol=2e-5)
    assert_array(top, x.max(axis=1))
    assert count == 2

    count, out = kernels_for(lambda v: v - v.max(axis=0, keepdims=True), jnp.asarray(x), mode=mode)
    assert_array(out, x - x.max(axis=0, keepdims=True))
    assert count == 2


def test_few_long_rows_stay_split(platform):
    """Two rows of 20000 (past MAX_ROW_LENGTH) keep their own reductions, which split
    each row over many workgroups."""
    x = normal((2, 20000))
    count, out = kernels_for(lambda v: softmax(jnp, v), jnp.asarray(x), mode="jit")
    assert_array(out, softmax(np, x.astype(np.float64)).astype(np.float32), rtol=2e-5, atol=1e-9)
    assert count > 1


def test_empty_rows(platform, mode):
    for shape in [(5, 0), (0, 5)]:
        x = np.zeros(shape, np.float32)
        count, out = kernels_for(lambda v: jnp.exp(v) / jnp.exp(v).sum(axis=1, keepdims=True),
                                 jnp.asarray(x), mode=mode)
        assert np.asarray(out).shape == shape
        assert count <= 1
    out = jaxwg.jit(lambda v: jnp.log(jnp.exp(v).sum(axis=1)) + v.sum(axis=1))(jnp.zeros((3, 0)))
    assert_array(out, np.full(3, -np.inf, np.float32))


def test_long_row_sums_are_accurate(platform):
    """256 rows of 16384 positive values (4M in all): each row's sum, the divisor of
    its row, within 4e-6 of the float64 sum (about 32 float32 ulps)."""
    x = np.random.default_rng(3).uniform(0.5, 1.5, (256, 16384)).astype(np.float32)
    count, out = kernels_for(lambda v: v / v.sum(axis=1, keepdims=True), jnp.asarray(x), mode="jit")
    assert count == 1
    want = x / x.astype(np.float64).sum(axis=1, keepdims=True)
    np.testing.assert_allclose(np.asarray(out), want, rtol=4e-6)


def test_softmax_gradients_match_jax(platform):
    """The gradient of a softmax cross-entropy fuses its row sums too, and matches JAX's."""
    x, labels = normal((128, 10)), np.random.default_rng(1).integers(0, 10, 128)
    onehot = np.eye(10, dtype=np.float32)[labels]

    def loss(m, nn_module, v):
        return -(nn_module.log_softmax(v) * onehot).sum() / v.shape[0]

    got = jaxwg.jit(jaxwg.grad(lambda v: loss(jnp, nn, v)))(jnp.asarray(x))
    want = jax.grad(lambda v: loss(jax_numpy, jax.nn, v))(x)
    assert_array(got, np.asarray(want), rtol=1e-5, atol=1e-7)
