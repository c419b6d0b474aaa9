"""`jaxwg.scipy.sparse`: the iterative linear solvers of `linalg`, as `jax.scipy.sparse`.

>>> import jaxwg.numpy as jnp
>>> from jaxwg.scipy.sparse import linalg
>>> linalg.cg(jnp.array([[2.0, 0.0], [0.0, 4.0]]), jnp.array([1.0, 1.0]))[0].tolist()
[0.5, 0.25]
"""

from . import linalg

__all__ = ["linalg"]
