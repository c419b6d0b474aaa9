"""Typed PRNG key arrays (`random.key`, dtype key<fry>) against JAX's: their data, repr,
shapes under indexing, split/fold_in returning typed keys, samplers taking them as they
take legacy uint32[2] keys, jit/vmap/scan over them, and JAX's errors."""

from __future__ import annotations

import re

import numpy as np
import pytest

import jaxwg
import jaxwg.numpy as jnp
from jaxwg import lax, random

from .helpers import jax

jr = jax.random


def data(keys) -> np.ndarray:
    """The uint32 data of jaxwg or JAX keys, typed or legacy, as NumPy."""
    module = random if isinstance(keys, random.PRNGKeyArray) or isinstance(keys, jaxwg.Array) else jr
    return np.asarray(module.key_data(keys))


@pytest.mark.parametrize("seed", [0, 1, -1, 42, 2**31 - 1, 2**40 + 5])
def test_key_matches_jax(seed):
    ours, theirs = random.key(seed), jr.key(seed)
    assert ours.shape == theirs.shape == () and str(ours.dtype) == str(theirs.dtype) == "key<fry>"
    assert repr(ours) == repr(theirs)
    np.testing.assert_array_equal(data(ours), data(theirs))
    assert data(ours).dtype == np.uint32


def test_split_and_fold_in_keep_typed_keys(platform):
    k, kj = random.key(7), jr.key(7)
    ks, kjs = random.split(k, 4), jr.split(kj, 4)
    assert isinstance(ks, random.PRNGKeyArray) and ks.shape == (4,) and ks.dtype == k.dtype
    assert repr(ks) == repr(kjs)
    np.testing.assert_array_equal(data(random.split(k, (2, 3))), data(jr.split(kj, (2, 3))))
    np.testing.assert_array_equal(data(random.fold_in(k, 5)), data(jr.fold_in(kj, 5)))
    # legacy keys stay legacy
    assert random.split(random.PRNGKey(7)).shape == (2, 2)
    np.testing.assert_array_equal(np.asarray(random.split(random.PRNGKey(7), 4)), data(kjs))


def test_samplers_take_typed_keys(platform):
    k, legacy, kj = random.key(3), random.PRNGKey(3), jr.key(3)
    for fn, jfn in [(lambda k: random.bits(k, (5,)), lambda k: jr.bits(k, (5,))),
                    (lambda k: random.uniform(k, (5,)), lambda k: jr.uniform(k, (5,))),
                    (lambda k: random.randint(k, (5,), 0, 100), lambda k: jr.randint(k, (5,), 0, 100)),
                    (lambda k: random.permutation(k, 6), lambda k: jr.permutation(k, 6)),
                    (lambda k: random.bernoulli(k, 0.3, (5,)), lambda k: jr.bernoulli(k, 0.3, (5,)))]:
        typed = np.asarray(fn(k))
        np.testing.assert_array_equal(typed, np.asarray(fn(legacy)))
        np.testing.assert_array_equal(typed, np.asarray(jfn(kj)))
    np.testing.assert_allclose(np.asarray(random.normal(k, (5,))), np.asarray(jr.normal(kj, (5,))), rtol=1e-6)
    for sampler in (lambda k: random.gamma(k, 2.0, (3,)), lambda k: random.choice(k, 5, (2,)),
                    lambda k: random.categorical(k, jnp.zeros(4)), lambda k: random.orthogonal(k, 2)):
        np.testing.assert_array_equal(np.asarray(sampler(k)), np.asarray(sampler(legacy)))


def test_indexing_iteration_and_reshapes_follow_jax():
    ks, kjs = random.split(random.key(0), (2, 3)), jr.split(jr.key(0), (2, 3))
    for f in [lambda k: k[1], lambda k: k[:, 0], lambda k: k[..., 1:], lambda k: k[None], lambda k: k.T,
              lambda k: k.reshape(6), lambda k: k.reshape(3, -1), lambda k: k.ravel(), lambda k: k[0, 2],
              lambda k: k[np.array([1, 0])], lambda k: k.reshape(1, 6).squeeze(), lambda k: k.transpose(1, 0)]:
        ours, theirs = f(ks), f(kjs)
        assert ours.shape == theirs.shape
        np.testing.assert_array_equal(data(ours), data(theirs))
    # (JAX's order="F" reshape of keys fails from two axes: from one here)
    for f in [lambda m, k: m.reshape(k, (3, 2)), lambda m, k: m.reshape(k.ravel(), (3, -1), order="F"),
              lambda m, k: m.ravel(k), lambda m, k: m.transpose(k),
              lambda m, k: m.transpose(k[None], (2, 0, 1)), lambda m, k: m.squeeze(k[None, :, None]),
              lambda m, k: m.squeeze(k[:1], axis=0)]:
        ours, theirs = f(jnp, ks), f(jax.numpy, kjs)  # the jnp functions of the methods above
        assert ours.shape == theirs.shape
        np.testing.assert_array_equal(data(ours), data(theirs))
    assert len(ks) == 2 and [k.shape for k in ks] == [(3,), (3,)]
    first, second = random.split(random.key(0))
    np.testing.assert_array_equal(data(second), data(jr.split(jr.key(0))[1]))
    np.testing.assert_array_equal(np.asarray(ks == ks[0]), np.asarray(kjs == kjs[0]))


def test_stack_concatenate_and_where_of_keys_follow_jax(platform):
    ks, kjs = random.split(random.key(0), 4), jr.split(jr.key(0), 4)
    pick = np.array([True, False, True, False])
    for f in [lambda m, k: m.stack([k[0], k[1]]), lambda m, k: m.stack([k, k], axis=-1),
              lambda m, k: m.concatenate([k, k[:2]]), lambda m, k: m.concatenate([k, k], axis=None),
              lambda m, k: m.concatenate([k.reshape(2, 2), k.reshape(2, 2)], axis=-1),
              lambda m, k: m.where(pick, k, k[::-1]), lambda m, k: m.where(True, k[0], k[1])]:
        ours, theirs = f(jnp, ks), f(jax.numpy, kjs)
        assert isinstance(ours, random.PRNGKeyArray) and ours.shape == theirs.shape
        np.testing.assert_array_equal(data(ours), data(theirs))
    chosen = jaxwg.jit(lambda p, k: jnp.where(p, k, k[::-1]))(pick, ks)
    np.testing.assert_array_equal(data(chosen), data(jax.numpy.where(pick, kjs, kjs[::-1])))
    with pytest.raises(ValueError, match="Zero-dimensional"):
        jnp.concatenate([ks[0], ks[1]])
    with pytest.raises(ValueError, match="key<fry> is not a valid dtype"):
        jnp.concatenate([ks, jnp.zeros(4)])


_MOVES = {
    "expand_dims": lambda m, k: m.expand_dims(k, (0, -1)),
    "broadcast_to": lambda m, k: m.broadcast_to(k[:, :1], (4, 2, 3)),
    "broadcast_arrays": lambda m, k: m.broadcast_arrays(k[:1], k)[0],
    "moveaxis": lambda m, k: m.moveaxis(k, 0, -1),
    "swapaxes": lambda m, k: m.swapaxes(k, 0, 1),
    "rot90": lambda m, k: m.rot90(k, 3),
    "flip": lambda m, k: m.flip(k),
    "fliplr": lambda m, k: m.fliplr(k),
    "flipud": lambda m, k: m.flipud(k),
    "atleast_3d": lambda m, k: m.atleast_3d(k[0], k)[1],
    "tile": lambda m, k: m.tile(k, (2, 1)),
    "repeat": lambda m, k: m.repeat(k, np.array([1, 0, 2]), axis=1),
    "take": lambda m, k: m.take(k, np.array([5, 0, 7]), mode="clip"),
    "take_along_axis": lambda m, k: m.take_along_axis(k, np.array([[2, 0], [1, 1]]), axis=1),
    "split": lambda m, k: m.split(k, [1], axis=1)[1],
    "array_split": lambda m, k: m.array_split(k, 2, axis=1)[0],
    "roll": lambda m, k: m.roll(k, (1, -1), axis=(0, 1)),
    "copy": lambda m, k: m.copy(k),
    "at set": lambda m, k: k.at[1, ::2].set(k[0, 1]),
    "at get": lambda m, k: k.at[::-1, 1].get(),
    "lax.select_n": lambda m, k: _lax(m).select_n(m.array([[True, False, True]] * 2), k, k[::-1]),
    "lax.dynamic_slice": lambda m, k: _lax(m).dynamic_slice(k, (0, 1), (2, 2)),
    "lax.dynamic_update_slice": lambda m, k: _lax(m).dynamic_update_slice(k, k[:1, :1], (1, 1)),
    "lax.dynamic_index_in_dim": lambda m, k: _lax(m).dynamic_index_in_dim(k, 1, 1),
    "lax.rev": lambda m, k: _lax(m).rev(k, (0,)),
    "lax.slice": lambda m, k: _lax(m).slice(k, (0, 1), (2, 3)),
    "lax.slice_in_dim": lambda m, k: _lax(m).slice_in_dim(k, 1, 3, axis=1),
    "lax.index_in_dim": lambda m, k: _lax(m).index_in_dim(k, 1, 1),
    "lax.squeeze": lambda m, k: _lax(m).squeeze(k[:1], (0,)),
    "lax.expand_dims": lambda m, k: _lax(m).expand_dims(k, (0,)),
    "lax.broadcast_in_dim": lambda m, k: _lax(m).broadcast_in_dim(k[0], (4, 3), (1,)),
    "lax.broadcast": lambda m, k: _lax(m).broadcast(k, (2,)),
    "lax.reshape": lambda m, k: _lax(m).reshape(k, (3, 2)),
    "lax.transpose": lambda m, k: _lax(m).transpose(k, (1, 0)),
    "lax.concatenate": lambda m, k: _lax(m).concatenate([k, k[:, :1]], 1),
    "lax.split": lambda m, k: _lax(m).split(k, (2, 1), axis=1)[0],
    "take by name": lambda m, k: m.take(a=k, indices=np.array([5, 0])),
    "lax.dynamic_update_slice by name": lambda m, k: _lax(m).dynamic_update_slice(k, update=k[:1, :1],
                                                                                  start_indices=(1, 2)),
    "atleast_1d with an array": lambda m, k: m.atleast_1d(k[0, 0], m.zeros(()))[0],
    "broadcast_arrays with an array": lambda m, k: m.broadcast_arrays(m.zeros((4, 1, 1)), k)[1],
}


def _lax(m):
    return lax if m is jnp else jax.lax


@pytest.mark.parametrize("move", sorted(_MOVES))
@pytest.mark.parametrize("mode", ["eager", "jit"])
def test_functions_that_move_elements_take_keys_as_jax_does(platform, move, mode):
    """Each key's two words move together through JAX's `jnp` and `lax` movement
    functions: the same keys at the same places as JAX's, eagerly and under jit."""
    f = _MOVES[move]
    ours = (jaxwg.jit(lambda k: f(jnp, k)) if mode == "jit" else lambda k: f(jnp, k))(
        random.split(random.key(3), 6).reshape(2, 3))
    theirs = f(jax.numpy, jr.split(jr.key(3), 6).reshape(2, 3))
    assert isinstance(ours, random.PRNGKeyArray) and ours.shape == theirs.shape
    np.testing.assert_array_equal(data(ours), data(theirs))


def test_keys_beside_other_arrays_as_in_jax(platform):
    """Functions with a result per argument take keys beside other arrays; joining or
    updating keys with other values fails, as in JAX."""
    ks = random.split(random.key(0), 3)
    keys, zeros = jnp.broadcast_arrays(ks, jnp.zeros(3))
    theirs = jax.numpy.broadcast_arrays(jr.split(jr.key(0), 3), jax.numpy.zeros(3))
    np.testing.assert_array_equal(data(keys), data(theirs[0]))
    assert zeros.dtype == theirs[1].dtype and np.array_equal(np.asarray(zeros), np.asarray(theirs[1]))
    with pytest.raises(ValueError, match="key<fry> is not a valid dtype"):
        jnp.concatenate([ks, jnp.zeros(3)])
    with pytest.raises(TypeError, match="key"):
        ks.at[0].set(1)


def test_asarray_and_array_of_keys_follow_jax(platform):
    for m, k in [(jnp, random.split(random.key(0), 2)), (jax.numpy, jr.split(jr.key(0), 2))]:
        assert m.asarray(k) is k and m.asarray(k, dtype=k.dtype) is k
        copied = m.array(k, ndmin=3)
        assert copied is not k and copied.shape == (1, 1, 2) and copied.dtype == k.dtype
        np.testing.assert_array_equal(data(copied)[0, 0], data(k))
        with pytest.raises(ValueError, match="Cannot convert_element_type from key<fry> to uint32"):
            m.asarray(k, dtype=np.uint32)


def test_jit_vmap_and_scan_over_typed_keys(platform):
    k, kj = random.key(11), jr.key(11)
    split = jaxwg.jit(lambda k: random.split(k, 3))(k)
    assert isinstance(split, random.PRNGKeyArray) and split.shape == (3,)
    np.testing.assert_array_equal(data(split), data(jr.split(kj, 3)))
    draws = jaxwg.vmap(lambda k: random.uniform(k, (2,)))(random.split(k, 4))
    np.testing.assert_array_equal(np.asarray(draws), np.asarray(jax.vmap(lambda k: jr.uniform(k, (2,)))(jr.split(kj, 4))))
    folded = jaxwg.vmap(lambda k, i: random.fold_in(k, i))(random.split(k, 3), jnp.arange(3, dtype=jnp.uint32))
    assert folded.shape == (3,)
    np.testing.assert_array_equal(data(folded), data(jax.vmap(jr.fold_in)(jr.split(kj, 3), np.arange(3, dtype=np.uint32))))

    def body(key, _):
        key, sub = random.split(key)
        return key, random.bits(sub)

    def jbody(key, _):
        key, sub = jr.split(key)
        return key, jr.bits(sub)

    last, bits = lax.scan(body, k, None, length=4)
    jlast, jbits = jax.lax.scan(jbody, kj, None, length=4)
    np.testing.assert_array_equal(np.asarray(bits), np.asarray(jbits))
    np.testing.assert_array_equal(data(last), data(jlast))


def test_key_data_round_trip_and_dtype():
    raw = jnp.array([[0, 3], [4, 5]], jnp.uint32)
    keys = random.wrap_key_data(raw)
    assert keys.shape == (2,) and random.key_data(keys).tolist() == raw.tolist()
    assert repr(keys) == repr(jr.wrap_key_data(np.asarray(raw)))
    assert random.key_data(random.PRNGKey(3)).tolist() == [0, 3]  # legacy keys are their data
    assert jnp.issubdtype(keys.dtype, jaxwg.dtypes.prng_key)
    assert jnp.issubdtype(keys.dtype, jaxwg.dtypes.extended)
    assert not jnp.issubdtype(keys.dtype, jnp.integer) and not jnp.issubdtype(jnp.uint32, jaxwg.dtypes.prng_key)
    assert keys.dtype == random.key(0).dtype and hash(keys.dtype) == hash(random.key(1).dtype)
    assert random.key_impl(keys) == "threefry2x32"
    assert jaxwg.tree_util.tree_structure(keys) == jaxwg.tree_util.tree_structure(random.key(1))


@pytest.mark.parametrize("call", [
    lambda m, k: m.normal(m.split(k, 3), ()),
    lambda m, k: m.split(m.split(k, 3)),
    lambda m, k: m.fold_in(m.split(k, 3), 1),
    lambda m, k: m.wrap_key_data(np.zeros(3, np.uint32)),
    lambda m, k: m.wrap_key_data(np.zeros(2, np.int32)),
    lambda m, k: m.key(0, impl="foo"),
    lambda m, k: len(k),
    lambda m, k: list(k),
    lambda m, k: bool(k),
    lambda m, k: k[0],
    lambda m, k: m.split(k, 3)[0, 0],
    lambda m, k: k.reshape(2),
    lambda m, k: np.asarray(k),
], ids=range(13))
def test_key_errors_match_jax(call):
    with pytest.raises(Exception) as theirs:
        call(jr, jr.key(0))
    with pytest.raises(type(theirs.value)) as ours:
        call(random, random.key(0))
    message = str(theirs.value)
    if "impl=" in message:  # JAX prints its implementation object's fields
        message = message[:message.index("impl=")]
    assert str(ours.value).startswith(message)


def test_typed_keys_are_tree_util_leaves_as_in_jax():
    """`tree_util` and `tree` take a typed key array as one leaf (JAX's keys are arrays);
    legacy uint32 keys are plain arrays either way."""
    tree = {"key": random.split(random.key(0), 3), "legacy": random.PRNGKey(1), "n": [2.0]}
    theirs = {"key": jr.split(jr.key(0), 3), "legacy": jr.PRNGKey(1), "n": [2.0]}
    shapes = jaxwg.tree_util.tree_map(np.shape, tree)
    assert shapes == jax.tree_util.tree_map(np.shape, theirs) == {"key": (3,), "legacy": (2,), "n": [()]}
    leaves, treedef = jaxwg.tree_util.tree_flatten(tree)
    assert isinstance(leaves[0], random.PRNGKeyArray) and len(leaves) == 3
    assert str(treedef) == str(jax.tree_util.tree_structure(theirs))
    assert [np.shape(x) for x in jaxwg.tree.leaves(tree)] == [np.shape(x) for x in jax.tree.leaves(theirs)]
    rebuilt = jaxwg.tree_util.tree_unflatten(treedef, leaves)
    np.testing.assert_array_equal(data(rebuilt["key"]), data(tree["key"]))
    # with `is_leaf`, keys stay leaves; the transformations still see through them
    assert jaxwg.tree_util.tree_leaves(tree, is_leaf=lambda x: isinstance(x, list))[2] == [2.0]
    out = jaxwg.jit(lambda t: random.uniform(t["key"][1], (2,)))(tree)
    np.testing.assert_array_equal(np.asarray(out), np.asarray(jr.uniform(theirs["key"][1], (2,))))


# vmap of the key primitives over batched keys: the same keys as a Python loop over the
# batch, and as JAX's vmap; nested, over either axis of a 2-d batch of keys.
_BATCHED = {
    "split": (lambda m: lambda k: m.split(k, 3), 0),
    "split_out_axis_1": (lambda m: lambda k: m.split(k, (2, 2)), 1),
    "fold_in": (lambda m: lambda k: m.fold_in(k, 9), 0),
    "bits": (lambda m: lambda k: m.bits(k, (2, 3)), 0),
    "bits_uint16": (lambda m: lambda k: m.bits(k, (3,), np.uint16), 1),
    "uniform": (lambda m: lambda k: m.uniform(k, (2,)), 0),
    "randint": (lambda m: lambda k: m.randint(k, (3,), -4, 9), 0),
}


def _as_data(x) -> np.ndarray:
    return data(x) if isinstance(x, random.PRNGKeyArray) or "key" in str(x.dtype) else np.asarray(x)


@pytest.mark.parametrize("outer_axis", [None, 0, 1])
@pytest.mark.parametrize("name", sorted(_BATCHED))
def test_vmap_over_keys_is_a_loop_and_jaxs(platform, name, outer_axis):
    make, out_axis = _BATCHED[name]
    if outer_axis is None:  # one vmap over 4 keys
        keys, jkeys = random.split(random.key(5), 4), jr.split(jr.key(5), 4)
        ours = jaxwg.vmap(make(random), out_axes=out_axis)(keys)
        theirs = jax.vmap(make(jr), out_axes=out_axis)(jkeys)
        loop = np.stack([_as_data(make(random)(k)) for k in keys])
    else:  # a vmap over `outer_axis` of 3 x 2 keys, of a vmap over the other
        keys, jkeys = random.split(random.key(5), (3, 2)), jr.split(jr.key(5), (3, 2))
        ours = jaxwg.vmap(jaxwg.vmap(make(random), out_axes=out_axis), in_axes=outer_axis)(keys)
        theirs = jax.vmap(jax.vmap(make(jr), out_axes=out_axis), in_axes=outer_axis)(jkeys)
        rows = keys if outer_axis == 0 else keys.T
        loop = np.stack([np.stack([_as_data(make(random)(k)) for k in row]) for row in rows])
        loop = np.moveaxis(loop, 1, out_axis + 1)
    np.testing.assert_array_equal(_as_data(ours), _as_data(theirs))
    np.testing.assert_array_equal(_as_data(ours), loop if outer_axis is not None else np.moveaxis(loop, 0, out_axis))


def test_vmap_of_fold_in_over_keys_and_messages(platform):
    keys, jkeys = random.split(random.key(2), 4), jr.split(jr.key(2), 4)
    msgs = np.array([0, 1, 7, 2**32 - 1], np.uint32)
    for in_axes in [(0, 0), (None, 0), (0, None)]:
        k, jk = (keys[1], jkeys[1]) if in_axes[0] is None else (keys, jkeys)
        m = msgs[2] if in_axes[1] is None else msgs
        ours = jaxwg.vmap(random.fold_in, in_axes=in_axes)(k, m)
        theirs = jax.vmap(jr.fold_in, in_axes=in_axes)(jk, m)
        np.testing.assert_array_equal(data(ours), data(theirs))
        loop = [random.fold_in(k if in_axes[0] is None else k[i], m if in_axes[1] is None else m[i])
                for i in range(4)]
        np.testing.assert_array_equal(data(ours), np.stack([data(r) for r in loop]))
    # legacy keys batched at their last axis (the words are then the first)
    legacy = np.asarray(random.key_data(keys)).T
    ours = jaxwg.vmap(lambda k: random.split(k, 2), in_axes=1)(jnp.asarray(legacy))
    np.testing.assert_array_equal(np.asarray(ours), np.asarray(jax.vmap(lambda k: jr.split(k, 2), in_axes=1)(legacy)))


def test_gradients_through_sampling_are_jaxs(platform):
    """Keys are not differentiable (float0), as in JAX: grad through a sampler, grad with
    respect to a key (JAX's error), jvp and vjp of a function of a key."""
    def f(m):
        return lambda x, k: (x * m.normal(k, (3,)) + m.uniform(m.fold_in(k, 1), (3,))).sum()

    k, kj = random.key(4), jr.key(4)
    np.testing.assert_allclose(jaxwg.grad(f(random))(2.0, k), jax.grad(f(jr))(2.0, kj), rtol=1e-6)
    np.testing.assert_allclose(jaxwg.jit(jaxwg.grad(f(random)))(2.0, k), jax.grad(f(jr))(2.0, kj), rtol=1e-6)
    grads = jaxwg.vmap(jaxwg.grad(f(random)), in_axes=(None, 0))(2.0, random.split(k, 3))
    np.testing.assert_allclose(grads, jax.vmap(jax.grad(f(jr)), in_axes=(None, 0))(2.0, jr.split(kj, 3)),
                               rtol=1e-6)
    with pytest.raises(TypeError) as theirs:
        jax.grad(f(jr), argnums=1)(2.0, kj)
    with pytest.raises(TypeError, match=re.escape(str(theirs.value))):
        jaxwg.grad(f(random), argnums=1)(2.0, k)
    _, key_ct = jaxwg.vjp(f(random), 2.0, k)[1](1.0)
    assert key_ct.dtype == jaxwg.dtypes.float0 and key_ct.shape == ()
    primal, tangent = jaxwg.jvp(lambda x: f(random)(x, k), (2.0,), (1.0,))
    jprimal, jtangent = jax.jvp(lambda x: f(jr)(x, kj), (2.0,), (1.0,))
    np.testing.assert_allclose([primal, tangent], [jprimal, jtangent], rtol=1e-6)


@pytest.mark.parametrize("call", [
    lambda m: m.uniform(np.zeros(3, np.uint32)),  # legacy key of the wrong shape
    lambda m: m.normal(np.zeros(2, np.int32)),  # or dtype
    lambda m: m.split(np.zeros((3, 2), np.uint32)),  # a batch of legacy keys
    lambda m: m.bits(m.key(0), (2,), np.int32),
    lambda m: m.fold_in(m.key(0), 2**33),
    lambda m: m.fold_in(m.key(0), np.arange(3)),
    lambda m: m.key(np.arange(3)),
    lambda m: m.PRNGKey(np.arange(3)),
    lambda m: m.key_data(np.zeros(2, np.float32)),
    lambda m: m.bernoulli(m.key(0), np.int32(1)),
    lambda m: m.bernoulli(m.key(0), 0.5, mode="middle"),
], ids=range(11))
def test_key_argument_errors_match_jax(call):
    with pytest.raises(Exception) as theirs:
        call(jr)
    with pytest.raises(type(theirs.value)) as ours:
        call(random)
    message = str(theirs.value)
    if "impl=" in message:  # JAX prints its implementation object's fields
        message = message[:message.index("impl=")]
    assert str(ours.value).startswith(message)


def test_key_primitives_reject_what_jax_rejects():
    from jaxwg.lax import prng

    with pytest.raises(TypeError, match="PRNG key seed must be an integer"):
        jaxwg.jit(lambda s: random.key(s))(1.5)
    with pytest.raises(TypeError, match="random_bits takes a key array"):
        prng.random_bits_p.bind(jnp.zeros(2, jnp.uint32), bit_width=32, shape=())
    with pytest.raises(TypeError, match="random_fold_in got incompatible shapes"):
        prng.random_fold_in_p.bind(random.split(random.key(0), 2)._base, jnp.zeros(3, jnp.uint32))
    with pytest.raises(TypeError):  # keys do not add
        jaxwg.make_jaxpr(lambda k: lax.add(k._base, k._base))(random.key(0))
