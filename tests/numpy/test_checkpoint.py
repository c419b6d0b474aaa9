"""`checkpoint` / `remat`: gradients equal JAX's with every policy, and the backward pass
recomputes what the policy does not save."""

import numpy as np
import pytest

import jaxwg
import jaxwg.numpy as jnp

from .helpers import jax, jax_numpy


def _net(checkpoint, N, **kw):
    def layer(w, x):
        return N.tanh(x @ w)

    layer = checkpoint(layer, **kw)
    return lambda ws, x: N.sum(layer(ws[1], layer(ws[0], x)) ** 2)


def _inputs():
    rng = np.random.default_rng(1)
    return [rng.standard_normal((5, 5)).astype(np.float32) * 0.5 for _ in range(2)], \
        rng.standard_normal((3, 5)).astype(np.float32)


@pytest.mark.parametrize("policy", [None, "nothing_saveable", "everything_saveable",
                                    "dots_saveable", "dots_with_no_batch_dims_saveable"])
@pytest.mark.parametrize("wrap", ["plain", "jit", "vmap"])
def test_gradients_match_jax(platform, policy, wrap):
    ws, x = _inputs()
    kw = {} if policy is None else {"policy": getattr(jaxwg.checkpoint_policies, policy)}
    kw_jax = {} if policy is None else {"policy": getattr(jax.checkpoint_policies, policy)}
    ours = jaxwg.grad(_net(jaxwg.checkpoint, jnp, **kw))
    theirs = jax.grad(_net(jax.checkpoint, jax_numpy, **kw_jax))
    args = ([jnp.asarray(w) for w in ws], jnp.asarray(x))
    if wrap == "jit":
        ours = jaxwg.jit(ours)
    if wrap == "vmap":
        ours = jaxwg.vmap(ours, in_axes=(None, 0))
        theirs = jax.vmap(theirs, in_axes=(None, 0))
        args = (args[0], jnp.asarray(np.stack([x, -x])))
        x = np.stack([x, -x])
    for a, b in zip(ours(*args), theirs(ws, x)):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=2e-5, atol=1e-6)


def test_the_backward_pass_recomputes_what_is_not_saved():
    ws, x = _inputs()
    args = ([jnp.asarray(w) for w in ws], jnp.asarray(x))

    def saved_values(**kw):
        jaxpr = jaxwg.make_jaxpr(jaxwg.grad(_net(jaxwg.checkpoint, jnp, **kw)))(*args)
        first = next(e for e in jaxpr.eqns if e.primitive.name == "remat2")
        return len(first.out_binders) - 1  # beyond the layer's output

    assert saved_values() == 0
    assert saved_values(policy=jaxwg.checkpoint_policies.dots_saveable) == 1
    text = str(jaxwg.make_jaxpr(jaxwg.checkpoint(lambda v: jnp.sin(v)))(1.0))
    assert "remat2[" in text and "differentiated=False" in text and "prevent_cse=True" in text
