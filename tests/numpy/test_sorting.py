"""Sorting (`jnp.sort`, `argsort`, `lax.sort`, `sort_key_val`, `top_k`) against JAX:
dtypes, NaN, -0.0 and inf, ties (stability), descending, axes, several operands,
the sort and top_k primitives' JVP, transpose and batching rules, and a length that
is not a power of two past 100000."""

import re
import types

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import jaxwg
import jaxwg.numpy as jnp
from jaxwg import lax
from jaxwg.frontend.execute import counters

from .helpers import jax, jax_numpy

# lax.sort with the array constructors beside it, for one error check against both
_Lax = types.SimpleNamespace(sort=lax.sort, ones=jnp.ones, float32=jnp.float32)
_JaxLax = types.SimpleNamespace(sort=jax.lax.sort, ones=jax_numpy.ones, float32=jax_numpy.float32)


def _values(rng, shape, dtype):
    if dtype == "float32":
        x = rng.choice(np.array([-np.inf, -2.5, -0.0, 0.0, 1.0, 1.0, 3.5, np.inf, np.nan],
                                np.float32), shape)
        return np.where(rng.random(shape) < 0.5, rng.standard_normal(shape), x).astype(np.float32)
    if dtype == "bool":
        return rng.random(shape) < 0.5
    return rng.integers(0, 4, shape).astype(dtype)  # many ties


def _same(got, want):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape
    # bitwise: -0.0 and 0.0 keep their places, NaNs compare equal
    np.testing.assert_array_equal(got.view(np.uint8) if got.dtype.kind == "f" else got,
                                  want.view(np.uint8) if want.dtype.kind == "f" else want)


@settings(max_examples=12)
@given(shape=st.lists(st.integers(1, 9), min_size=1, max_size=3).map(tuple),
       dtype=st.sampled_from(["float32", "int32", "uint32", "bool", "float16"]),
       descending=st.booleans(), data=st.data())
def test_sort_and_argsort_match_jax(platform, shape, dtype, descending, data):
    x = _values(np.random.default_rng(sum(shape)), shape, "float32" if dtype == "float16" else dtype)
    x = x.astype(dtype)
    axis = data.draw(st.sampled_from([None] + list(range(-len(shape), len(shape)))), label="axis")
    _same(jnp.sort(jnp.asarray(x), axis=axis, descending=descending),
          jax_numpy.sort(x, axis=axis, descending=descending))
    _same(jnp.argsort(jnp.asarray(x), axis=axis, descending=descending),
          jax_numpy.argsort(x, axis=axis, descending=descending))


def test_multi_operand_sort_sort_key_val_and_top_k_match_jax(platform):
    rng = np.random.default_rng(1)
    a, b = rng.integers(0, 3, (4, 10)).astype(np.int32), rng.integers(0, 3, (4, 10)).astype(np.int32)
    c = rng.standard_normal((4, 10)).astype(np.float32)
    for num_keys in (1, 2):
        for got, want in zip(lax.sort((jnp.asarray(a), jnp.asarray(b), jnp.asarray(c)), 1, True,
                                      num_keys),
                             jax.lax.sort((a, b, c), dimension=1, num_keys=num_keys)):
            _same(got, want)
    for got, want in zip(lax.sort_key_val(jnp.asarray(a), jnp.asarray(c), 0),
                         jax.lax.sort_key_val(a, c, 0)):
        _same(got, want)
    x = _values(rng, (3, 17), "float32")
    for k in (1, 5, 17):
        for got, want in zip(lax.top_k(jnp.asarray(x), k), jax.lax.top_k(x, k)):
            _same(got, want)


def test_gradients_and_vmap_match_jax():
    x = np.random.default_rng(2).standard_normal((3, 7)).astype(np.float32)
    w = np.arange(7, dtype=np.float32)
    g = jaxwg.grad(lambda v: jnp.sum(jnp.sort(v, axis=1) * w))(jnp.asarray(x))
    gj = jax.grad(lambda v: (jax_numpy.sort(v, axis=1) * w).sum())(x)
    np.testing.assert_allclose(np.asarray(g), np.asarray(gj))
    _same(jaxwg.vmap(jnp.argsort)(jnp.asarray(x)), jax.vmap(jax_numpy.argsort)(x))
    _same(jaxwg.vmap(lambda r: lax.top_k(r, 3)[1], in_axes=1)(jnp.asarray(x)),
          jax.vmap(lambda r: jax.lax.top_k(r, 3)[1], in_axes=1)(x))


def test_a_long_sort_that_is_not_a_power_of_two():
    x = np.random.default_rng(3).integers(-1000, 1000, 100003).astype(np.int32)
    _same(jnp.argsort(jnp.asarray(x)), np.argsort(x, kind="stable").astype(np.int32))


def test_errors():
    with pytest.raises(TypeError, match="'kind' argument to sort is not supported"):
        jnp.sort(jnp.ones(3), kind="quicksort")
    with pytest.raises(ValueError, match="k argument to top_k must be no larger than size along axis"):
        lax.top_k(jnp.ones(3), 4)
    # lax.sort's errors are JAX's
    for bad in (lambda m: m.sort((m.ones(3), m.ones(4))), lambda m: m.sort(()),
                lambda m: m.sort(m.ones(3), num_keys=2), lambda m: m.sort((m.ones(3),), num_keys=2),
                lambda m: m.sort(m.ones(3), dimension=1), lambda m: m.sort(m.float32(1))):
        with pytest.raises(Exception) as want:
            bad(_JaxLax)
        with pytest.raises(want.type, match=re.escape(str(want.value))):
            bad(_Lax)


@settings(max_examples=5, deadline=None, derandomize=True)  # the same examples on both platforms
@given(shape=st.sampled_from([(7,), (3, 5)]), dtype=st.sampled_from(["float32", "int32", "uint32",
                                                                     "float16"]),
       data=st.data())
def test_partition_and_argpartition_match_jax(platform, shape, dtype, data):
    x = _values(np.random.default_rng(sum(shape)), shape, "float32" if dtype == "float16" else dtype)
    x = x.astype(dtype)
    axis = data.draw(st.sampled_from(range(-len(shape), len(shape))), label="axis")
    kth = data.draw(st.integers(-shape[axis], shape[axis] - 1), label="kth")
    _same(jnp.partition(jnp.asarray(x), kth, axis=axis), jax_numpy.partition(x, kth, axis=axis))
    _same(jnp.argpartition(jnp.asarray(x), kth, axis=axis),
          jax_numpy.argpartition(x, kth, axis=axis))


def test_lexsort_matches_jax(run):
    rng = np.random.default_rng(4)
    a = _values(rng, (3, 8), "float32")  # NaN, -0.0 and ties
    b = rng.integers(0, 2, (3, 8)).astype(np.int32)
    c = rng.random((3, 8)) < 0.5
    for keys, axis in (((a, b), -1), ((b, c, a), 0)):
        _same(run(lambda *k: jnp.lexsort(k, axis=axis), *map(jnp.asarray, keys)),
              jax_numpy.lexsort(keys, axis=axis))
    _same(jnp.lexsort(jnp.asarray(b)), jax_numpy.lexsort(b))  # an array: its rows are the keys
    _same(jnp.lexsort([jnp.int32(3)]), jax_numpy.lexsort([np.int32(3)]))


def test_partition_gradient_and_vmap_match_jax():
    x = np.random.default_rng(5).standard_normal((3, 6)).astype(np.float32)
    w = np.arange(6, dtype=np.float32)
    g = jaxwg.grad(lambda v: jnp.sum(jnp.partition(v, 2) * w))(jnp.asarray(x))
    gj = jax.grad(lambda v: (jax_numpy.partition(v, 2) * w).sum())(x)
    np.testing.assert_array_equal(np.asarray(g), np.asarray(gj))
    _same(jaxwg.vmap(lambda r: jnp.argpartition(r, 1), in_axes=1)(jnp.asarray(x)),
          jax.vmap(lambda r: jax_numpy.argpartition(r, 1), in_axes=1)(x))


def test_lexsort_and_partition_errors():
    with pytest.raises(TypeError, match="need sequence of keys with len > 0"):
        jnp.lexsort([])
    with pytest.raises(ValueError, match="all keys need to be the same shape"):
        jnp.lexsort([jnp.ones(2), jnp.ones(3)])
    with pytest.raises(ValueError, match="out of bounds"):
        jnp.partition(jnp.ones(3), 3)
    with pytest.raises(TypeError, match="partition does not accept dtype bool"):
        jnp.partition(jnp.array([True, False]), 0)


def test_sort_and_top_k_rules_match_jax():
    """The sort primitive's JVP (several operands, a dimension that is not the last),
    its transpose (grad), its batching (an unbatched operand, a batch axis past the
    sorted one), and top_k's."""
    rng = np.random.default_rng(6)
    x = rng.standard_normal((3, 5)).astype(np.float32)
    x[0, :2] = x[1, :2] = 1.0  # ties
    y = rng.integers(0, 3, (3, 5)).astype(np.float32)
    w = np.arange(15, dtype=np.float32).reshape(3, 5)
    cases = [
        lambda j, L: j.jvp(lambda a, b: L.sort((b, a), dimension=0, num_keys=1), (x, y), (w, x)),
        lambda j, L: j.grad(lambda a: (L.sort(a, dimension=0) * w).sum())(x),
        lambda j, L: j.vmap(lambda k, v: L.sort_key_val(k, v), in_axes=(1, None))(x, y[:, 0]),
        lambda j, L: j.grad(lambda a: (L.top_k(a, 3)[0] * w[:, :3]).sum())(x),
        lambda j, L: j.vmap(lambda a: L.top_k(a, 2), in_axes=1)(x),
    ]
    for case in cases:
        got, want = case(jaxwg, lax), case(jax, jax.lax)
        for g, v in zip(jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want)):
            _same(g, v)


def test_argsort_sorts_its_iota_to_the_permutation(platform):
    """A sort carrying an iota along the sorted axis (argsort's, lexsort's) gives the
    sort routine's permutation as it is: order keys, then the routine, no gather. An
    eager lax.sort is one program, compiled once per signature."""
    x = jnp.asarray(np.random.default_rng(7).standard_normal((4, 30)).astype(np.float32))
    for f in (jnp.argsort, lambda v: jnp.lexsort((v, v))):
        assert len(jaxwg.jit(f).lower(x).kernels) == 2
    lax.sort(x)
    programs, kernels = counters["compiled_programs"], counters["kernels"]
    lax.sort(x)
    assert counters["compiled_programs"] == programs
    assert counters["kernels"] - kernels == len(jaxwg.jit(lax.sort).lower(x).kernels)
