"""Argument handling shared by the distributions of `jaxwg.scipy.stats`.

>>> [a.dtype.name for a in promote_args_inexact("norm.pdf", 1, 2.0)]
['float32', 'float32']
"""

from __future__ import annotations

from ... import numpy as jnp
from ...numpy._util import elementwise_operands


def promote_args_inexact(name: str, *args):
    """`args` checked, promoted to one inexact dtype (Python scalars stay weak) and
    brought to one rank, as JAX's `promote_args_inexact`; errors name `name`."""
    return elementwise_operands(name, *args, to_inexact=True, rank_only=True)


def clipped_standardized(x, loc, scale, high=float("inf")):
    """(x - loc) / scale clipped to [0, high] (the argument of the gamma and beta cdfs)."""
    return jnp.clip((x - loc) / scale, 0, high)

