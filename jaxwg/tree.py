"""`jaxwg.tree`: the short pytree names of `jax.tree` (`map`, `flatten`, ...).

The same functions as `jaxwg.tree_util` under their newer names:
`tree.map is tree_util.tree_map`, and so on.

>>> from jaxwg import tree
>>> leaves, treedef = tree.flatten((1, {"a": 2}))
>>> leaves, treedef
([1, 2], PyTreeDef((*, {'a': *})))
>>> tree.unflatten(treedef, tree.map(lambda x: -x, leaves))
(-1, {'a': -2})
"""

from .tree_util import tree_flatten as flatten
from .tree_util import tree_leaves as leaves
from .tree_util import tree_map as map
from .tree_util import tree_structure as structure
from .tree_util import tree_unflatten as unflatten

__all__ = ["flatten", "leaves", "map", "structure", "unflatten"]
