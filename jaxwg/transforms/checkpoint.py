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

import functools
from types import SimpleNamespace

from ..frontend import primitives as P
from ..frontend import pytree
from ..frontend.jaxpr import call_staged


def _dots(prim, **params) -> bool:
    return prim is P.dot_general_p


def _dots_without_batch(prim, **params) -> bool:
    return prim is P.dot_general_p and not params["dimension_numbers"][1][0]


checkpoint_policies = SimpleNamespace(
    nothing_saveable=lambda prim, **params: False,
    everything_saveable=lambda prim, **params: True,
    dots_saveable=_dots,
    checkpoint_dots=_dots,
    dots_with_no_batch_dims_saveable=_dots_without_batch,
    checkpoint_dots_with_no_batch_dims=_dots_without_batch,
)


def checkpoint(fun, *, prevent_cse: bool = True, policy=None, static_argnums=()):
    """`fun`, whose intermediates reverse mode recomputes instead of storing.

    >>> import jaxwg, jaxwg.numpy as jnp
    >>> g = jaxwg.grad(checkpoint(lambda x: jnp.sum(jnp.tanh(x) ** 2)))
    >>> round(g(jnp.array([0.5])).tolist()[0], 5)
    0.72686
    """
    static = {static_argnums} if isinstance(static_argnums, int) else set(static_argnums)

    @functools.wraps(fun)
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
