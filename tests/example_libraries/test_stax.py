"""`jaxwg.example_libraries.stax` against `jax.example_libraries.stax`: every layer is
built by one recipe from both modules; JAX initializes the parameters, they are
copied to jaxwg as NumPy arrays, and both apply functions must agree on the same
inputs. The init functions must give JAX's output shapes and parameter shapes."""

import jax
import jax.example_libraries.stax as jax_stax
import numpy as np
import pytest

import jaxwg
import jaxwg.numpy as jnp
from jaxwg import random
from jaxwg.example_libraries import stax
from jaxwg.tree_util import tree_leaves, tree_map, tree_structure

jax.config.update("jax_platforms", "cpu")

# Float32 sums (matrix products, convolutions, means) accumulated in another order.
RTOL, ATOL = 1e-5, 1e-6

# name -> (recipe over a stax module, input shape)
LAYERS = {
    "Dense": (lambda s: s.Dense(5), (4, 3)),
    "Relu": (lambda s: s.Relu, (3, 4)),
    "Tanh": (lambda s: s.Tanh, (3, 4)),
    "Sigmoid": (lambda s: s.Sigmoid, (3, 4)),
    "Softmax": (lambda s: s.Softmax, (3, 4)),
    "LogSoftmax": (lambda s: s.LogSoftmax, (3, 4)),
    "Gelu": (lambda s: s.Gelu, (3, 4)),
    "Elu": (lambda s: s.Elu, (3, 4)),
    "LeakyRelu": (lambda s: s.LeakyRelu, (3, 4)),
    "Softplus": (lambda s: s.Softplus, (3, 4)),
    "Selu": (lambda s: s.Selu, (3, 4)),
    "Exp": (lambda s: s.Exp, (3, 4)),
    "Identity": (lambda s: s.Identity, (3, 4)),
    "Flatten": (lambda s: s.Flatten, (2, 3, 4)),
    "Conv": (lambda s: s.Conv(4, (3, 3)), (2, 6, 6, 3)),
    "Conv-strided-same": (lambda s: s.Conv(4, (3, 3), (2, 2), "SAME"), (2, 7, 6, 3)),
    "GeneralConv-NCHW": (lambda s: s.GeneralConv(("NCHW", "OIHW", "NCHW"), 4, (3, 2), (1, 2), "SAME"),
                         (2, 3, 6, 5)),
    "GeneralConv-1d-pairs": (lambda s: s.GeneralConv(("NHC", "HIO", "NHC"), 2, (3,), None, [(1, 2)]),
                             (2, 7, 3)),
    "BatchNorm": (lambda s: s.BatchNorm(), (2, 4, 4, 3)),
    "BatchNorm-axis0": (lambda s: s.BatchNorm(axis=0), (5, 3)),
    "BatchNorm-no-center": (lambda s: s.BatchNorm(axis=(0, 1), center=False), (4, 2, 3)),
    "BatchNorm-no-scale": (lambda s: s.BatchNorm(axis=(0, 1), scale=False), (4, 2, 3)),
    "MaxPool": (lambda s: s.MaxPool((2, 2)), (2, 5, 5, 3)),
    "MaxPool-strided-same": (lambda s: s.MaxPool((3, 3), (2, 2), "SAME"), (2, 5, 6, 3)),
    "SumPool": (lambda s: s.SumPool((2, 3), (1, 2)), (2, 5, 7, 3)),
    "AvgPool": (lambda s: s.AvgPool((2, 2)), (2, 4, 4, 3)),
    "AvgPool-strided-same": (lambda s: s.AvgPool((3, 3), (2, 2), "SAME"), (2, 5, 6, 3)),
    "AvgPool-NCHW": (lambda s: s.AvgPool((2, 2), padding="SAME", spec="NCHW"), (2, 3, 5, 5)),
    "serial-mlp": (lambda s: s.serial(s.Dense(8), s.Relu, s.Dense(3), s.LogSoftmax), (4, 3)),
    "serial-cnn": (lambda s: s.serial(s.Conv(4, (3, 3), padding="SAME"), s.BatchNorm(), s.Relu,
                                      s.MaxPool((2, 2), (2, 2)), s.Flatten, s.Dense(2)),
                   (2, 6, 6, 1)),
    "residual": (lambda s: s.serial(s.FanOut(2), s.parallel(s.Dense(3), s.Identity), s.FanInSum),
                 (4, 3)),
    "concat": (lambda s: s.serial(s.FanOut(3), s.parallel(s.Dense(2), s.Identity, s.Tanh),
                                  s.FanInConcat(axis=1)), (4, 3)),
    "shape_dependent": (lambda s: s.shape_dependent(lambda shape: s.Dense(shape[-1] + 1)), (2, 3)),
}


def _as_tuples(shape):
    """An output shape with lists (FanOut's) made tuples, for comparing."""
    return tuple(map(_as_tuples, shape)) if isinstance(shape, (tuple, list)) else shape


def _copied(jax_params):
    """JAX's parameters as jaxwg arrays, through NumPy."""
    return tree_map(jnp.asarray, jax.tree.map(np.asarray, jax_params))


def _inputs(shape, seed=0):
    return np.random.default_rng(seed).normal(size=shape).astype(np.float32)


@pytest.mark.parametrize("name", sorted(LAYERS))
def test_apply_matches_jax_on_jax_parameters(name):
    recipe, shape = LAYERS[name]
    (_, ours_apply), (jax_init, jax_apply) = recipe(stax), recipe(jax_stax)
    _, jax_params = jax_init(jax.random.PRNGKey(0), shape)
    ours_params = _copied(jax_params)
    x = _inputs(shape)
    np.testing.assert_allclose(np.asarray(ours_apply(ours_params, jnp.asarray(x))),
                               np.asarray(jax.jit(jax_apply)(jax_params, x)), rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("name", sorted(LAYERS))
def test_init_shapes_match_jax(name):
    recipe, shape = LAYERS[name]
    (ours_init, _), (jax_init, _) = recipe(stax), recipe(jax_stax)
    ours_shape, ours_params = ours_init(random.PRNGKey(0), shape)
    jax_shape, jax_params = jax_init(jax.random.PRNGKey(0), shape)
    assert _as_tuples(ours_shape) == _as_tuples(jax_shape)
    assert str(tree_structure(ours_params)) == str(jax.tree.structure(jax_params))
    assert [p.shape for p in tree_leaves(ours_params)] == [p.shape for p in jax.tree.leaves(jax_params)]


def test_init_shapes_keep_an_unknown_batch_size():
    recipe, _ = LAYERS["serial-cnn"]
    ours_shape, _ = recipe(stax)[0](random.PRNGKey(0), (-1, 6, 6, 1))
    # JAX's pooling layers make the unknown batch size 0 (its window arithmetic on -1);
    # jaxwg keeps it -1 through every layer.
    assert ours_shape == (-1, 2)


@pytest.mark.parametrize("name", ["Dense", "Conv", "GeneralConv-NCHW", "serial-mlp"])
def test_init_draws_jax_parameters_from_the_same_key(name):
    recipe, shape = LAYERS[name]
    _, ours_params = recipe(stax)[0](random.PRNGKey(3), shape)
    _, jax_params = recipe(jax_stax)[0](jax.random.PRNGKey(3), shape)
    for a, b in zip(tree_leaves(ours_params), jax.tree.leaves(jax_params), strict=True):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-5, atol=1e-7)


def test_dropout_keeps_the_elements_jax_keeps():
    x = _inputs((4, 50))
    for recipe in (lambda s: s.Dropout(0.7), lambda s: s.serial(s.Dense(50), s.Dropout(0.3), s.Relu)):
        (ours_init, ours_apply), (jax_init, jax_apply) = recipe(stax), recipe(jax_stax)
        _, jax_params = jax_init(jax.random.PRNGKey(0), x.shape)
        ours_params = _copied(jax_params)
        ours = ours_apply(ours_params, jnp.asarray(x), rng=random.PRNGKey(5))
        theirs = jax_apply(jax_params, x, rng=jax.random.PRNGKey(5))
        np.testing.assert_allclose(np.asarray(ours), np.asarray(theirs), rtol=RTOL, atol=ATOL)


def test_dropout_needs_a_key_in_train_mode_only():
    with pytest.raises(ValueError, match="PRNG key"):
        stax.Dropout(0.5)[1]((), jnp.ones(3))
    assert stax.Dropout(0.5, mode="eval")[1]((), jnp.ones(3)).tolist() == [1.0, 1.0, 1.0]


def test_a_network_trains_under_jit_with_grad():
    init_fun, apply_fun = stax.serial(stax.Dense(16), stax.Tanh, stax.Dense(2), stax.LogSoftmax)
    _, params = init_fun(random.PRNGKey(0), (-1, 2))
    x = jnp.asarray(_inputs((32, 2)))
    labels = jaxwg.nn.one_hot((x[:, 0] + x[:, 1] > 0).astype(jnp.int32), 2)

    def loss(params):
        return -jnp.mean(jnp.sum(apply_fun(params, x) * labels, axis=1))

    @jaxwg.jit
    def step(params):
        grads = jaxwg.grad(loss)(params)
        return tree_map(lambda p, g: p - 0.5 * g, params, grads)

    start = float(loss(params))
    for _ in range(30):
        params = step(params)
    assert float(loss(params)) < 0.5 * start


def test_apply_under_jit_matches_eager():
    recipe, shape = LAYERS["serial-cnn"]
    init_fun, apply_fun = recipe(stax)
    _, params = init_fun(random.PRNGKey(1), shape)
    x = jnp.asarray(_inputs(shape))
    np.testing.assert_allclose(np.asarray(jaxwg.jit(apply_fun)(params, x)),
                               np.asarray(apply_fun(params, x)), rtol=RTOL, atol=ATOL)
