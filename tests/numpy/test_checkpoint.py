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


def _saved(jaxpr) -> list:
    """The residuals the forward pass saves for a layer's backward call: the inputs of
    the first `remat2[differentiated=True]` before the layer's own two and its cotangent
    (the forward pass itself is inlined, as in JAX)."""
    backward = next(e for e in jaxpr.eqns if e.primitive.name == "remat2" and e.params["differentiated"])
    return [v.aval.shape for v in backward.inputs[:-3]]


def test_the_backward_pass_recomputes_what_is_not_saved():
    ws, x = _inputs()
    args = ([jnp.asarray(w) for w in ws], jnp.asarray(x))

    def saved_values(**kw):
        return len(_saved(jaxwg.make_jaxpr(jaxwg.grad(_net(jaxwg.checkpoint, jnp, **kw)))(*args)))

    assert saved_values() == 0
    assert saved_values(policy=jaxwg.checkpoint_policies.dots_saveable) == 1
    text = str(jaxwg.make_jaxpr(jaxwg.checkpoint(lambda v: jnp.sin(v)))(1.0))
    assert "remat2[" in text and "differentiated=False" in text and "prevent_cse=True" in text


def _named_net(m, N, policy):
    name = m.ad_checkpoint.checkpoint_name

    def layer(w, x):
        return name(N.tanh(name(x @ w, "pre")), "act")

    layer = m.checkpoint(layer, policy=policy)
    return lambda ws, x: N.sum(layer(ws[1], layer(ws[0], x)) ** 2)


NAMED_POLICIES = {
    "save_only_these_names": lambda P: P.save_only_these_names("pre"),
    "save_any_names_but_these": lambda P: P.save_any_names_but_these("act"),
    "save_anything_except_these_names": lambda P: P.save_anything_except_these_names("pre"),
    "save_from_both_policies": lambda P: P.save_from_both_policies(
        P.nothing_saveable, P.save_only_these_names("pre")),
}


@pytest.mark.parametrize("policy", sorted(NAMED_POLICIES))
def test_named_policies_match_jax(platform, policy):
    import jax.ad_checkpoint  # noqa: F401 - JAX does not import it with jax

    ws, x = _inputs()
    make = NAMED_POLICIES[policy]
    ours = jaxwg.grad(_named_net(jaxwg, jnp, make(jaxwg.checkpoint_policies)))
    theirs = jax.grad(_named_net(jax, jax_numpy, make(jax.checkpoint_policies)))
    for a, b in zip(ours([jnp.asarray(w) for w in ws], jnp.asarray(x)), theirs(ws, x)):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=2e-5, atol=1e-6)


def test_named_values_are_what_the_policy_saves():
    import jax.ad_checkpoint  # noqa: F401

    ws, x = _inputs()
    args = ([jnp.asarray(w) for w in ws], jnp.asarray(x))
    policies = jaxwg.ad_checkpoint.checkpoint_policies
    assert policies is jaxwg.checkpoint_policies

    def saved_values(policy):
        return _saved(jaxwg.make_jaxpr(jaxwg.grad(_named_net(jaxwg, jnp, policy)))(*args))

    assert saved_values(policies.save_only_these_names("pre")) == [(3, 5)]
    assert saved_values(policies.save_only_these_names("other")) == []
    assert saved_values(policies.save_any_names_but_these("pre")) == []  # "act" is no residual
    with pytest.raises(ValueError, match="should be a boolean"):
        saved_values(policies.save_from_both_policies(lambda *a, **k: None, policies.dots_saveable))
    ours = str(jaxwg.make_jaxpr(lambda v: jaxwg.ad_checkpoint.checkpoint_name(v, "h"))(1.0))
    theirs = str(jax.make_jaxpr(lambda v: jax.ad_checkpoint.checkpoint_name(v, "h"))(1.0))
    assert ours == theirs
