"""`checkpoint` (`remat`): trade memory for computation in reverse mode.

A checkpointed function is one `remat2` call (JAX's name). Differentiated, its
intermediate values are not kept for the backward pass: the backward pass recomputes
them from the call's inputs (`partial_eval._split_remat`), except the values `policy`
says to save. Policies are functions of an equation's primitive and params, as in
`jax.checkpoint_policies`.

>>> import jaxwg, jaxwg.numpy as jnp
>>> f = checkpoint(lambda x: jnp.sin(jnp.sin(x)))
>>> round(jaxwg.grad(f)(1.0).item(), 6)
0.360039
"""

from __future__ import annotations

from types import SimpleNamespace

from ..frontend import primitives as P
from ..frontend import pytree
from ..frontend.jaxpr import call_staged
from ..frontend.trace import wraps


def _dots(prim, **params) -> bool:
    return prim is P.dot_general_p


def _dots_without_batch(prim, **params) -> bool:
    return prim is P.dot_general_p and not params["dimension_numbers"][1][0]


def _named(prim, params, names) -> bool:
    """Whether the equation is a `checkpoint_name` with one of `names`."""
    return prim is P.name_p and params["name"] in names


def save_only_these_names(*names):
    """A policy that saves the values `checkpoint_name` gave one of `names`, and no others."""
    return lambda prim, *_, **params: _named(prim, params, names)


def save_any_names_but_these(*names):
    """A policy that saves the values `checkpoint_name` named, except those with `names`."""
    return lambda prim, *_, **params: prim is P.name_p and not _named(prim, params, names)


def save_anything_except_these_names(*names):
    """A policy that saves every value except those `checkpoint_name` gave one of `names`.
    (The named value's producer is saved anyway, so this saves as much as
    `everything_saveable`; JAX's version is `everything_saveable` outright.)"""
    return lambda prim, *_, **params: not _named(prim, params, names)


def save_from_both_policies(policy_1, policy_2):
    """A policy that saves what either policy saves."""
    def policy(prim, *args, **params):
        out1, out2 = policy_1(prim, *args, **params), policy_2(prim, *args, **params)
        if not (isinstance(out1, bool) and isinstance(out2, bool)):
            raise ValueError("The return value of the policies should be a boolean. Got: "
                             f"{out1} and {out2}. Please write a custom policy function "
                             "directly, rather than using this helper function.")
        return out1 or out2

    return policy


checkpoint_policies = SimpleNamespace(
    nothing_saveable=lambda prim, *_, **params: False,
    everything_saveable=lambda prim, *_, **params: True,
    dots_saveable=_dots,
    checkpoint_dots=_dots,
    dots_with_no_batch_dims_saveable=_dots_without_batch,
    checkpoint_dots_with_no_batch_dims=_dots_without_batch,
    save_only_these_names=save_only_these_names,
    save_any_names_but_these=save_any_names_but_these,
    save_anything_except_these_names=save_anything_except_these_names,
    save_from_both_policies=save_from_both_policies,
)


def checkpoint_name(x, name):
    """`x` (each leaf of the pytree) unchanged, named `name` for the policies of an
    enclosing `checkpoint` (`save_only_these_names`, ...).

    >>> import jaxwg, jaxwg.numpy as jnp
    >>> policy = checkpoint_policies.save_only_these_names("h")
    >>> f = checkpoint(lambda x: jnp.sin(checkpoint_name(jnp.sin(x), "h")), policy=policy)
    >>> round(jaxwg.grad(f)(1.0).item(), 6)
    0.360039
    """
    return pytree.tree_map(lambda leaf: P.name_p.bind(leaf, name=name), x)


def checkpoint(fun, *, prevent_cse: bool = True, policy=None, static_argnums=()):
    """`fun`, whose intermediates reverse mode recomputes instead of storing.

    >>> import jaxwg, jaxwg.numpy as jnp
    >>> g = jaxwg.grad(checkpoint(lambda x: jnp.sum(jnp.tanh(x) ** 2)))
    >>> round(g(jnp.array([0.5])).tolist()[0], 5)
    0.72686
    """
    static = {static_argnums} if isinstance(static_argnums, int) else set(static_argnums)

    @wraps(fun)
    def checkpointed(*args):
        dynamic = [a for i, a in enumerate(args) if i not in static]
        leaves, in_tree = pytree.tree_flatten(tuple(dynamic))
        out_tree = []

        def flat(*xs):
            it = iter(pytree.tree_unflatten(in_tree, xs))
            full = [a if i in static else next(it) for i, a in enumerate(args)]
            out_leaves, tree = pytree.tree_flatten(fun(*full))
            out_tree.append(tree)
            return out_leaves

        outs = call_staged(flat, leaves, P.remat_p, prevent_cse=bool(prevent_cse),
                           differentiated=False, policy=policy)
        return pytree.tree_unflatten(out_tree[0], outs)

    return checkpointed


remat = checkpoint
