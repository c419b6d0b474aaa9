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

from dataclasses import dataclass
from types import SimpleNamespace

from ..frontend import primitives as P
from ..frontend import pytree
from ..frontend.jaxpr import call_staged
from ..frontend.trace import wraps


def everything_saveable(*_, **__) -> bool:
    """Save every value (as if the function were not checkpointed)."""
    return True


def nothing_saveable(*_, **__) -> bool:
    """Save no value: recompute them all (`checkpoint`'s default)."""
    return False


# Policies with parameters are frozen dataclasses, as JAX's: equal policies compare
# equal (a checkpointed call's cache key holds its policy) and print alike in jaxprs.
@dataclass(frozen=True)
class DotsSaveable:
    """Save the results of matrix products (`dot_general`, which convolutions become);
    `only_if_no_batch_dims`: only those without batch dimensions."""

    only_if_no_batch_dims: bool

    def __call__(self, prim, *_, **params) -> bool:
        if prim is not P.dot_general_p:
            return False
        return not (self.only_if_no_batch_dims and params["dimension_numbers"][1][0])


dots_saveable = DotsSaveable(False)
dots_with_no_batch_dims_saveable = DotsSaveable(True)


@dataclass(frozen=True)
class SaveOnlyTheseNames:
    """Save the values `checkpoint_name` gave one of `saveable_names`, and no others."""

    saveable_names: frozenset

    def __call__(self, prim, *_, **params) -> bool:
        return prim is P.name_p and params["name"] in self.saveable_names


@dataclass(frozen=True)
class SaveAnyNamesButThese:
    """Save the values `checkpoint_name` named, except those with `names`."""

    names: frozenset

    def __call__(self, prim, *_, **params) -> bool:
        return prim is P.name_p and params["name"] not in self.names


def save_only_these_names(*names):
    """A policy that saves the values `checkpoint_name` gave one of `names`, and no others."""
    return SaveOnlyTheseNames(frozenset(names))


def save_any_names_but_these(*names):
    """A policy that saves the values `checkpoint_name` named, except those with `names`."""
    return SaveAnyNamesButThese(frozenset(names))


def save_anything_except_these_names(*names):
    """A policy that saves every value: as JAX's, which does not exclude `names` (the
    named value's producer would be saved anyway)."""
    return everything_saveable


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
    everything_saveable=everything_saveable,
    nothing_saveable=nothing_saveable,
    dots_saveable=dots_saveable,
    checkpoint_dots=dots_saveable,
    dots_with_no_batch_dims_saveable=dots_with_no_batch_dims_saveable,
    checkpoint_dots_with_no_batch_dims=dots_with_no_batch_dims_saveable,
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

    >>> from jaxwg import checkpoint
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
