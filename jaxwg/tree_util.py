"""`jaxwg.tree_util`: pytree utilities, as `jax.tree_util` (implemented in `jaxwg.frontend.pytree`).

>>> from jaxwg import tree_util
>>> tree_util.tree_map(lambda x: 2 * x, {"w": [1, 2], "b": 3})
{'b': 6, 'w': [2, 4]}
"""

from .frontend import pytree as _pytree
from .frontend.pytree import (
    PyTreeDef,
    register_pytree_node,
    register_pytree_node_class,
    tree_flatten,
    tree_leaves,
    tree_map,
    tree_structure,
    tree_unflatten,
)

__all__ = _pytree.__all__
