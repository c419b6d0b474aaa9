"""The iteration shared by `jaxwg.scipy.special`'s series and continued fractions: a
while loop run elementwise, as JAX's `vectorize`d `lax.while_loop`s are."""

from __future__ import annotations

from .. import lax
from .. import numpy as jnp


def while_each(cond, body, state, max_steps=None):
    """`state = body(state)` (a tuple of arrays) for each element while its
    `cond(state)` holds (at most `max_steps` times): the arrays of `state`, broadcast to
    one shape, update only where the condition holds, so each element stops where JAX's
    scalar loop would (once stopped, it stays). Works under jit and vmap (one
    `lax.while_loop` whose predicate is that any element goes on).

    >>> import jaxwg.numpy as jnp
    >>> start = (jnp.array([1.0, 7.0, 20.0]),)
    >>> while_each(lambda s: s[0] < 10, lambda s: (s[0] * 2,), start)[0].tolist()
    [16.0, 14.0, 20.0]
    """
    state = tuple(jnp.broadcast_arrays(*state))

    def going(step, s, holding):
        holds = holding & cond(s)
        return holds if max_steps is None else holds & (step < max_steps)

    def loop_body(carry):
        step, holds, s = carry
        new = body(s)
        s = tuple(jnp.where(holds, n, o).astype(o.dtype) for n, o in zip(new, s))
        return step + 1, going(step + 1, s, holds), s

    holds = going(0, state, True)
    return lax.while_loop(lambda carry: jnp.any(carry[1]), loop_body, (0, holds, state))[2]
