"""`jaxwg.tree_util`: pytree utilities, as `jax.tree_util` (implemented in `jaxwg.frontend.pytree`).

A typed key array (`random.key`) is a leaf here, as in JAX; the transformations see
through it to its uint32 data (a pytree node inside jaxwg), which is how keys pass
through `jit`, `vmap` and `scan`.

>>> from jaxwg import tree_util
>>> tree_util.tree_map(lambda x: 2 * x, {"w": [1, 2], "b": 3})
{'b': 6, 'w': [2, 4]}
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .frontend import pytree as _pytree
from .frontend.pytree import PyTreeDef, register_pytree_node, register_pytree_node_class, tree_unflatten
from .lax.keys import KEY_ARRAYS

__all__ = _pytree.__all__


def _is_key(x) -> bool:
    return bool(KEY_ARRAYS) and isinstance(x, KEY_ARRAYS["class"])


def _keys_or(is_leaf: Callable[[Any], bool] | None) -> Callable[[Any], bool]:
    """`is_leaf` that also takes typed key arrays as leaves."""
    if is_leaf is None:
        return _is_key
    return lambda x: _is_key(x) or is_leaf(x)


def tree_flatten(tree: Any, is_leaf: Callable[[Any], bool] | None = None) -> tuple[list[Any], PyTreeDef]:
    """The leaves of `tree` in order and its structure; a typed key array is one leaf.

    >>> from jaxwg.tree_util import tree_flatten
    >>> from jaxwg import random
    >>> leaves, treedef = tree_flatten({"k": random.key(0), "n": 3})
    >>> leaves[0].shape, leaves[1], treedef
    ((), 3, PyTreeDef({'k': *, 'n': *}))
    """
    return _pytree.tree_flatten(tree, _keys_or(is_leaf))


def tree_leaves(tree: Any, is_leaf: Callable[[Any], bool] | None = None) -> list[Any]:
    """The leaves of `tree` in flattening order; a typed key array is one leaf.

    >>> from jaxwg.tree_util import tree_leaves
    >>> from jaxwg import random
    >>> [leaf.shape for leaf in tree_leaves([random.key(0), random.PRNGKey(1)])]
    [(), (2,)]
    """
    return _pytree.tree_leaves(tree, _keys_or(is_leaf))


def tree_structure(tree: Any, is_leaf: Callable[[Any], bool] | None = None) -> PyTreeDef:
    """The `PyTreeDef` of `tree`; a typed key array is one leaf.

    >>> from jaxwg.tree_util import tree_structure
    >>> from jaxwg import random
    >>> tree_structure((random.key(0), [1]))
    PyTreeDef((*, [*]))
    """
    return _pytree.tree_structure(tree, _keys_or(is_leaf))


def tree_map(f: Callable[..., Any], tree: Any, *rest: Any, is_leaf: Callable[[Any], bool] | None = None) -> Any:
    """Apply `f` leafwise (`f(leaf, *rest_leaves)`); a typed key array is one leaf.

    >>> from jaxwg.tree_util import tree_map
    >>> from jaxwg import random
    >>> tree_map(lambda x: x.shape, {"key": random.key(0), "x": random.normal(random.key(1), (3,))})
    {'key': (), 'x': (3,)}
    """
    return _pytree.tree_map(f, tree, *rest, is_leaf=_keys_or(is_leaf))
