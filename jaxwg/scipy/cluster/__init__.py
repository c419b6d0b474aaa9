"""`jaxwg.scipy.cluster`: `vq`, as `jax.scipy.cluster`.

>>> import jaxwg.numpy as jnp
>>> from jaxwg.scipy.cluster import vq
>>> vq.vq(jnp.array([0.5, 2.5]), jnp.array([0.0, 3.0]))[0].tolist()
[0, 1]
"""

from . import vq

__all__ = ["vq"]
