"""`lax.dynamic_slice` and `lax.dynamic_update_slice` (primitives, as JAX's) with their
`_in_dim` forms, and `lax.stack` / `lax.unstack`, against JAX: values over shapes,
dtypes and start dtypes, starts out of range, negative, static or traced; JVPs and
gradients; vmap of the operand, the update, the starts or all of them, against a loop
and JAX; the errors JAX raises; the kernels they take."""

import re

import numpy as np
import pytest
from hypothesis import given, strategies as st

import jaxwg
import jaxwg.numpy as jnp
from jaxwg import lax

from .helpers import jax, jax_numpy, kernels_for

OPERAND_DTYPES = ["float32", "int32", "bool", "float16", "uint8", "complex64"]
INDEX_DTYPES = ["int32", "int16", "int8", "uint8", "uint32"]


def _same(got, want, rtol=0.0):
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape and got.dtype == want.dtype, (got.shape, want.shape, got.dtype, want.dtype)
    np.testing.assert_allclose(got, want, rtol=rtol, atol=0, equal_nan=True)


def _sample(shape, dtype, seed):
    values = np.random.default_rng(seed).integers(-9, 9, shape)
    if dtype == "bool":
        return values > 0
    if dtype == "complex64":
        return (values + 1j * values[::-1]).astype(dtype) if shape else values.astype(dtype)
    return (np.abs(values) if dtype == "uint8" else values).astype(dtype)


@st.composite
def windows(draw):
    """An operand shape (sizes from 0), a window that fits it and starts anywhere
    around it, negative ones too."""
    shape = tuple(draw(st.lists(st.integers(0, 5), max_size=3)))
    sizes = tuple(draw(st.integers(0, n)) for n in shape)
    starts = tuple(draw(st.integers(-8, 8)) for _ in shape)
    return shape, sizes, starts


@given(case=windows(), dtype=st.sampled_from(OPERAND_DTYPES), index_dtype=st.sampled_from(INDEX_DTYPES),
       traced=st.booleans(), jit=st.booleans())
def test_dynamic_slice_and_update_match_jax(platform, case, dtype, index_dtype, traced, jit):
    """Starts clamp so the window fits (an unsigned start from a negative one is large);
    negative signed starts count from the end once."""
    shape, sizes, starts = case
    x, u = _sample(shape, dtype, 0), _sample(sizes, dtype, 1)
    starts = [np.asarray(s).astype(index_dtype)[()] for s in starts]  # NumPy scalars: static

    def f(lx, traced):
        def both(x, u, *i):
            i = i if traced else starts
            return lx.dynamic_slice(x, i, sizes), lx.dynamic_update_slice(x, u, i)
        return both

    ours = f(lax, traced)
    got = (jaxwg.jit(ours) if jit else ours)(*[jnp.asarray(a) for a in (x, u) + (tuple(starts) if traced else ())])
    # JAX's own static starts give the same, but where its jit reads a static unsigned
    # start as signed (uint8 255 as -1, clamped to 0).
    for g, w in zip(got, jax.jit(f(jax.lax, True))(x, u, *starts)):
        _same(g, w)


@pytest.mark.parametrize("index", [1, -1, -9, 7, np.int16(-2), np.uint8(250)], ids=repr)
def test_in_dim_forms_match_jax(index):
    x = _sample((4, 5), "float32", 2)

    def f(lx, i):
        return [lx.dynamic_slice_in_dim(x, i, 2, 1), lx.dynamic_slice_in_dim(x, i, 3, 0, allow_negative_indices=False),
                lx.dynamic_index_in_dim(x, i, 1, keepdims=False), lx.dynamic_index_in_dim(x, i),
                lx.dynamic_update_slice_in_dim(x, x[:2], i, 0),
                lx.dynamic_update_slice_in_dim(x, x[:, :1], i, 1, allow_negative_indices=False),
                lx.dynamic_update_index_in_dim(x, x[0] * 2, i, 0), lx.dynamic_update_index_in_dim(x, x[:1, :3], i, 0)]

    want = jax.jit(lambda i: f(jax.lax, i))(np.asarray(index))
    # Static starts give the same (JAX's jit of a static uint8 250 reads it as -6).
    static = [f(lax, index), jaxwg.jit(lambda: f(lax, index))()] if index >= 0 else []  # else raises
    for got in [jaxwg.jit(lambda i: f(lax, i))(jnp.asarray(index))] + static:
        for g, w in zip(got, want):
            _same(g, w)


def test_negative_static_starts_without_allow_negative_indices_raise():
    x = jnp.zeros((4, 5))
    for lx, y in ((lax, x), (jax.lax, np.zeros((4, 5)))):
        with pytest.raises(ValueError, match="Index -1 is out of bounds for dimension 4"):
            lx.dynamic_slice_in_dim(y, -1, 2, allow_negative_indices=False)
        with pytest.raises(ValueError, match="Index -1 is out of bounds for dimension 5"):
            lx.dynamic_slice(y, (0, -1), (1, 1), allow_negative_indices=(True, False))


def _loss(lx, m):
    w = np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3)

    def loss(x, u, i, j):
        return (m.sum(lx.dynamic_slice(x, (i, j), (2, 3)) * w)
                + m.sum(lx.dynamic_update_slice(x, m.sin(u), (j, i)) ** 2)
                + m.sum(x[i]) * m.sum(x[:, j]) + m.sum(lx.stack([x, x * u[0, 0]], 1)[i]))
    return loss


@pytest.mark.parametrize("starts", [(1, 2), (-1, 0), (7, -9), (3, 4)])
def test_derivatives_match_jax(starts):
    x = np.random.default_rng(3).standard_normal((4, 5)).astype(np.float32)
    u = np.random.default_rng(4).standard_normal((2, 3)).astype(np.float32)
    i, j = (np.int32(s) for s in starts)
    ours, theirs = _loss(lax, jnp), _loss(jax.lax, jax_numpy)
    args = [jnp.asarray(a) for a in (x, u, i, j)]
    for grad, jax_grad in ((jaxwg.grad(ours, argnums=(0, 1)), jax.grad(theirs, argnums=(0, 1))),
                           (jaxwg.jit(jaxwg.grad(ours, argnums=(0, 1))), jax.grad(theirs, argnums=(0, 1)))):
        for g, w in zip(grad(*args), jax_grad(x, u, i, j)):
            _same(g, w, rtol=1e-5)
    tangents = (np.cos(x), np.sin(u))
    got = jaxwg.jvp(lambda x, u: ours(x, u, args[2], args[3]), tuple(args[:2]),
                    tuple(jnp.asarray(t) for t in tangents))
    want = jax.jvp(lambda x, u: theirs(x, u, i, j), (x, u), tangents)
    for g, w in zip(got, want):
        _same(g, w, rtol=1e-5)


def _pieces(lx):
    def f(x, u, i):
        return (lx.dynamic_slice(x, (i, 1), (2, 3)), lx.dynamic_update_slice(x, u, (1, i)),
                lx.dynamic_index_in_dim(x, i, 1, False), x[i], x[i, 1:3], x[:, i], lx.stack([x, x * 2], 1),
                lx.unstack(x, 1)[2])
    return f


@pytest.mark.parametrize("in_axes", [(0, None, None), (None, 0, None), (None, None, 0), (0, 0, 0), (1, None, 0),
                                     (None, 0, 0), (2, 1, None)], ids=str)
def test_vmap_matches_a_loop_and_jax(platform, in_axes):
    """JAX batches a dynamic slice into a gather and an update into a scatter; batched
    starts may lie out of range."""
    rng = np.random.default_rng(5)
    n = 4
    xs = rng.standard_normal((n, 4, 5)).astype(np.float32)
    us = rng.standard_normal((n, 2, 3)).astype(np.float32)
    starts = np.array([0, -1, 9, 2], np.int32)
    args = [np.moveaxis(a, 0, ax) if ax is not None else a[0] for a, ax in zip((xs, us, starts), in_axes)]
    got = jaxwg.vmap(_pieces(lax), in_axes=in_axes)(*[jnp.asarray(a) for a in args])
    want = jax.vmap(_pieces(jax.lax), in_axes=in_axes)(*[jax_numpy.asarray(a) for a in args])
    for g, w in zip(got, want):
        _same(g, w)
    member = [[np.take(a, k, ax) if ax is not None else a for a, ax in zip(args, in_axes)] for k in range(n)]
    loop = [_pieces(lax)(*[jnp.asarray(a) for a in m]) for m in member]
    for k, piece in enumerate(got):
        _same(piece, np.stack([np.asarray(out[k]) for out in loop]))


@pytest.mark.parametrize("dtype", ["float32", "int32", "bool", "complex64"])
def test_stack_and_unstack_match_jax(run, dtype):
    x = _sample((2, 3), dtype, 6)

    def f(lx, m):
        def g(x):
            return ([lx.stack([x, x[::-1], x], axis) for axis in (-3, -1, 0, 1, 2)] + [m.stack([x, x], 1)]
                    + [list(lx.unstack(x, axis)) for axis in (-1, 0, 1)] + [list(m.unstack(x, axis=1))]
                    + [lx.stack([x[0, 0]] * 3), lx.unstack(x[:0], 1)])
        return g

    got = jaxwg.tree.leaves(run(f(lax, jnp), jnp.asarray(x)))
    want = jax.tree.leaves(f(jax.lax, jax_numpy)(x))
    assert len(got) == len(want)
    for g, w in zip(got, want):
        _same(g, w)


@pytest.mark.parametrize("call", [
    lambda L, x: L.dynamic_slice(x, (1,), (2, 2)),
    lambda L, x: L.dynamic_slice(x, (1, 1), (5, 2)),
    lambda L, x: L.dynamic_slice(x, (1, 1), (-1, 2)),
    lambda L, x: L.dynamic_slice(x, (np.ones(2, np.int32), 1), (2, 2)),
    lambda L, x: L.dynamic_slice(x, (np.float32(1), 1), (2, 2)),
    lambda L, x: L.dynamic_slice(x, (np.int16(1), 1), (2, 2)),
    lambda L, x: L.dynamic_slice(x, (np.bool_(True), 1), (2, 2)),
    lambda L, x: L.dynamic_update_slice(x, np.ones(2, np.float32), (1, 1)),
    lambda L, x: L.dynamic_update_slice(x, np.ones((5, 1), np.float32), (1, 1)),
    lambda L, x: L.dynamic_update_slice(x, np.ones((1, 1), np.int32), (1, 1)),
    lambda L, x: L.dynamic_update_slice(x, np.ones((1, 1), np.float32), (1,)),
    lambda L, x: L.dynamic_update_slice(x, np.ones((1, 1), np.float32), (np.int8(1), 1)),
    lambda L, x: L.stack([x, x[:, :2]]),
    lambda L, x: L.stack([x, x[0]]),
    lambda L, x: L.stack([x, x], 3),
    lambda L, x: L.unstack(x[0, 0]),
], ids=range(16))
def test_errors_match_jax(call):
    x = np.ones((4, 5), np.float32)
    with pytest.raises(Exception) as want:
        jax.make_jaxpr(lambda x: call(jax.lax, x))(x)
    with pytest.raises(want.type) as got:
        jaxwg.make_jaxpr(lambda x: call(lax, x))(jnp.asarray(x))
    first = re.split(r",\s+got|: ", str(want.value))[0]
    assert first in str(got.value), (str(got.value), str(want.value))


@pytest.mark.parametrize("fn, kernels", [
    # the window is read where its consumer runs
    (lambda x, i: lax.dynamic_slice(x, (i, 1), (2, 3)) * 2, 1),
    (lambda x, i: x[i] * 2 + x[:, i][3], 1),
    # an update that is an array already: one select over the operand
    (lambda x, i: lax.dynamic_update_slice(x, x[:2] * 1, (i, 0)) + 1, 2),
    (lambda x, i: lax.dynamic_update_slice(x, x, (i, i)), 1),
    (lambda x, i: jnp.stack([x, x * 2, x + i]), 1),
])
def test_kernels(platform, mode, fn, kernels):
    x = jnp.asarray(np.arange(30, dtype=np.float32).reshape(5, 6))
    count, _ = kernels_for(fn, x, jnp.int32(2), mode=mode)
    assert count == kernels
