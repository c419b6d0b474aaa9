"""`jaxwg.ad_checkpoint`: naming values for the policies of `checkpoint`, as
`jax.ad_checkpoint`.

>>> import jaxwg, jaxwg.numpy as jnp
>>> from jaxwg.ad_checkpoint import checkpoint_name, checkpoint_policies
>>> f = jaxwg.checkpoint(lambda x: jnp.sin(checkpoint_name(x * 2.0, "h")),
...                      policy=checkpoint_policies.save_only_these_names("h"))
>>> jaxwg.grad(f)(0.0).item()
2.0
"""

from .transforms.checkpoint import checkpoint_name, checkpoint_policies

__all__ = ["checkpoint_name", "checkpoint_policies"]
