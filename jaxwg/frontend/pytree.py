"""Pytrees: nested containers of arrays, flattened to a list of leaves and a structure.

Every transformation takes and returns pytrees: `jit(f)(params, batch)` with `params`
a dict of lists of arrays works because the arguments are first *flattened* into a flat
list of leaves (what the tracer sees) and a `PyTreeDef` (the shape of the nesting),
and the outputs are *unflattened* from a list of leaves and a `PyTreeDef`. A node type
is a container that flattening looks into: tuple, list, dict, None (a node with no
children), namedtuples, `OrderedDict`, `defaultdict`, and any type given to
`register_pytree_node`. Everything else is a leaf. Dicts are flattened in sorted key
order, as in JAX, so two dicts with the same keys have the same structure whatever
order they were built in. A `PyTreeDef` is immutable, hashable and compares
structurally, so it can be part of a jit cache key; its repr is JAX's.

>>> leaves, treedef = tree_flatten({"b": (1, 2), "a": [3, None]})
>>> leaves, treedef
([3, 1, 2], PyTreeDef({'a': [*, None], 'b': (*, *)}))
>>> tree_unflatten(treedef, [x * 10 for x in leaves])
{'a': [30, None], 'b': (10, 20)}
"""

from __future__ import annotations

import collections
from collections.abc import Callable, Iterable
from typing import Any, NamedTuple

__all__ = [
    "PyTreeDef",
    "register_pytree_node",
    "register_pytree_node_class",
    "tree_flatten",
    "tree_leaves",
    "tree_map",
    "tree_structure",
    "tree_unflatten",
]


class _NodeKind(NamedTuple):
    """How to take a node type apart and put it back together, and how to print it.

    `flatten(node) -> (children, aux_data)`; `unflatten(node_type, aux_data, children)`;
    `show(node_type, aux_data, children_reprs) -> str`.
    """

    flatten: Callable[[Any], tuple[Iterable[Any], Any]]
    unflatten: Callable[[type, Any, tuple], Any]
    show: Callable[[type, Any, list[str]], str]


def _sorted_keys(d: dict) -> list:
    try:
        return sorted(d)
    except TypeError as e:
        raise ValueError("Comparator raised exception while sorting pytree dictionary keys.") from e


def _flatten_dict(d: dict) -> tuple[list, tuple]:
    keys = _sorted_keys(d)
    return [d[k] for k in keys], tuple(keys)


def _show_tuple(node_type, aux, children: list[str]) -> str:
    return f"({children[0]},)" if len(children) == 1 else f"({', '.join(children)})"


def _show_list(node_type, aux, children: list[str]) -> str:
    return f"[{', '.join(children)}]"


def _show_dict(node_type, keys, children: list[str]) -> str:
    return "{" + ", ".join(f"{k!r}: {c}" for k, c in zip(keys, children)) + "}"


def _show_custom(node_type, aux, children: list[str]) -> str:
    return f"CustomNode({node_type.__name__}[{aux}], [{', '.join(children)}])"


def _show_namedtuple(node_type, aux, children: list[str]) -> str:
    return f"CustomNode(namedtuple[{node_type.__name__}], [{', '.join(children)}])"


_REGISTRY: dict[type, _NodeKind] = {
    tuple: _NodeKind(lambda t: (t, None), lambda _, aux, ch: tuple(ch), _show_tuple),
    list: _NodeKind(lambda l: (l, None), lambda _, aux, ch: list(ch), _show_list),
    dict: _NodeKind(_flatten_dict, lambda _, keys, ch: dict(zip(keys, ch)), _show_dict),
    type(None): _NodeKind(lambda n: ((), None), lambda _, aux, ch: None, lambda _, aux, ch: "None"),
}
# Namedtuples are not registered one by one: a tuple subclass with `_fields` is one.
_NAMEDTUPLE = _NodeKind(lambda t: (t, None), lambda node_type, aux, ch: node_type(*ch), _show_namedtuple)


def _kind(node_type: type) -> _NodeKind | None:
    """The node kind of `node_type`, or None for a leaf type."""
    kind = _REGISTRY.get(node_type)
    if kind is None and node_type not in _LEAF_TYPES:
        if issubclass(node_type, tuple) and hasattr(node_type, "_fields"):
            return _NAMEDTUPLE
        _LEAF_TYPES.add(node_type)
    return kind


# Types seen to be leaves (registering a node type removes it from here).
_LEAF_TYPES: set = set()


def register_pytree_node(
    nodetype: type,
    flatten_func: Callable[[Any], tuple[Iterable[Any], Any]],
    unflatten_func: Callable[[Any, tuple], Any],
) -> None:
    """Make `nodetype` a pytree node instead of a leaf.

    `flatten_func(node)` returns `(children, aux_data)`: the children are flattened
    further, `aux_data` is kept in the `PyTreeDef`, compared with `==` and printed with
    `str`. It should be hashable, since `jit` caches on it; unhashable aux data is
    allowed, as in JAX, and is then left out of the structure's hash.
    `unflatten_func(aux_data, children)` rebuilds the node from a tuple of children.

    >>> from jaxwg.tree_util import register_pytree_node, tree_flatten
    >>> class Point:
    ...     def __init__(self, x, y, name):
    ...         self.x, self.y, self.name = x, y, name
    >>> register_pytree_node(Point, lambda p: ((p.x, p.y), p.name),
    ...                      lambda name, xy: Point(*xy, name))
    >>> tree_flatten([Point(1, 2, "p")])
    ([1, 2], PyTreeDef([CustomNode(Point[p], [*, *])]))
    """
    if nodetype in _REGISTRY:
        raise ValueError(f"Duplicate custom PyTreeDef type registration for {nodetype}.")

    def flatten(node: Any) -> tuple[Iterable[Any], Any]:
        flat = flatten_func(node)
        if not (isinstance(flat, tuple) and len(flat) == 2):
            raise ValueError(
                "The to_iterable function for a custom PyTree node should return a "
                f"(children, aux_data) tuple, got {flat!r}"
            )
        return flat

    def unflatten(node_type: type, aux_data: Any, children: tuple) -> Any:
        return unflatten_func(aux_data, children)

    _REGISTRY[nodetype] = _NodeKind(flatten, unflatten, _show_custom)
    _LEAF_TYPES.discard(nodetype)


def register_pytree_node_class(cls: type) -> type:
    """Class decorator: register `cls` by its `tree_flatten` method and `tree_unflatten` classmethod.

    >>> from jaxwg.tree_util import register_pytree_node_class, tree_structure
    >>> @register_pytree_node_class
    ... class Scaled:
    ...     def __init__(self, value, scale):
    ...         self.value, self.scale = value, scale
    ...     def tree_flatten(self):
    ...         return (self.value,), self.scale
    ...     @classmethod
    ...     def tree_unflatten(cls, scale, children):
    ...         return cls(children[0], scale)
    >>> tree_structure(Scaled(1.0, 2))
    PyTreeDef(CustomNode(Scaled[2], [*]))
    """
    register_pytree_node(cls, lambda node: node.tree_flatten(), cls.tree_unflatten)
    return cls


register_pytree_node(
    collections.OrderedDict,
    lambda d: (list(d.values()), tuple(d)),
    lambda keys, children: collections.OrderedDict(zip(keys, children)),
)


def _flatten_defaultdict(d: collections.defaultdict) -> tuple[list, tuple]:
    children, keys = _flatten_dict(d)
    return children, (d.default_factory, keys)


register_pytree_node(
    collections.defaultdict,
    _flatten_defaultdict,
    lambda aux, children: collections.defaultdict(aux[0], zip(aux[1], children)),
)


class PyTreeDef:
    """The structure of a pytree: its nodes (type and aux data) with the leaves left out.

    Immutable, hashable and compared structurally. A leaf is a `PyTreeDef` with
    `node_type` None and no children.

    >>> from jaxwg.tree_util import tree_structure
    >>> treedef = tree_structure({"a": (1, 2), "b": None})
    >>> treedef.num_leaves, treedef.num_nodes, treedef.children()
    (2, 5, [PyTreeDef((*, *)), PyTreeDef(None)])
    >>> treedef.unflatten([5, 6])
    {'a': (5, 6), 'b': None}
    >>> treedef == tree_structure({"b": None, "a": ("x", "y")})
    True
    """

    __slots__ = ("_children", "_hash", "aux_data", "node_type", "num_leaves", "num_nodes")

    def __init__(self, node_type: type | None, aux_data: Any, children: tuple[PyTreeDef, ...]):
        self.node_type = node_type
        self.aux_data = aux_data
        self._children = children
        num_leaves = 1 if node_type is None else 0
        num_nodes = 1
        for child in children:
            num_leaves += child.num_leaves
            num_nodes += child.num_nodes
        self.num_leaves = num_leaves
        self.num_nodes = num_nodes
        try:
            aux_hash = hash(aux_data)
        except TypeError:  # allowed, as in JAX: such nodes only compare with `==`
            aux_hash = 0
        self._hash = hash((node_type, aux_hash, children))

    def children(self) -> list[PyTreeDef]:
        """The structures of the node's children (none for a leaf).

        >>> tree_structure([1, (2, 3)]).children()
        [PyTreeDef(*), PyTreeDef((*, *))]
        """
        return list(self._children)

    def leaf_paths(self) -> list[str]:
        """Each leaf's key path as JAX's `keystr` writes it (dict keys, sequence indices).

        >>> tree_structure(({"a": 1, "b": [2, 3]}, 4)).leaf_paths()
        ["[0]['a']", "[0]['b'][0]", "[0]['b'][1]", '[1]']
        """
        if self.node_type is None:
            return [""]
        keys = self.aux_data if self.node_type is dict else range(len(self._children))
        return [f"[{key!r}]{path}" for key, child in zip(keys, self._children)
                for path in child.leaf_paths()]

    def node_data(self) -> tuple[type, Any] | None:
        """`(node_type, aux_data)` as in JAX (dict aux data is the list of keys); None for a leaf.

        >>> tree_structure({"b": 1, "a": 2}).node_data()
        (<class 'dict'>, ['a', 'b'])
        """
        if self.node_type is None:
            return None
        return self.node_type, list(self.aux_data) if self.node_type is dict else self.aux_data

    def unflatten(self, leaves: Iterable[Any]) -> Any:
        """Build the pytree of this structure with `leaves` in flattening order.

        >>> tree_structure((1, [2])).unflatten(["a", "b"])
        ('a', ['b'])
        """
        leaves = list(leaves)
        if len(leaves) != self.num_leaves:
            which = "few" if len(leaves) < self.num_leaves else "many"
            raise ValueError(
                f"Too {which} leaves for PyTreeDef; expected {self.num_leaves}, got {len(leaves)}."
            )
        return self._build(iter(leaves))

    def _build(self, leaves: Iterable[Any]) -> Any:
        if self.node_type is None:
            return next(leaves)
        children = tuple([c._build(leaves) for c in self._children])
        return _kind(self.node_type).unflatten(self.node_type, self.aux_data, children)

    def flatten_up_to(self, tree: Any) -> list[Any]:
        """Flatten `tree` down to this structure's leaves: each is a whole subtree of `tree`.

        `tree` must have this structure as a prefix, else a ValueError names both.

        >>> tree_structure((1, 2)).flatten_up_to(([1, 2], {"a": 3}))
        [[1, 2], {'a': 3}]
        """
        out: list[Any] = []
        try:
            self._flatten_up_to(tree, "", out)
        except _Mismatch as m:
            what, path, expected, got = m.args
            raise ValueError(
                f"pytree structure error: different {what} at key path tree{path}: "
                f"{expected} in the prefix, {got} in the full tree.\n"
                f"    prefix structure: {self}\n    full structure:   {_structure_or_error(tree)}"
            ) from None
        return out

    def _flatten_up_to(self, tree: Any, path: str, out: list) -> None:
        if self.node_type is None:
            out.append(tree)
            return
        if type(tree) is not self.node_type:
            raise _Mismatch("types", path, self.node_type, type(tree))
        children, aux = _kind(self.node_type).flatten(tree)
        children = list(children)
        if len(children) != len(self._children):
            raise _Mismatch("numbers of children", path, len(self._children), len(children))
        if aux != self.aux_data:
            raise _Mismatch("pytree metadata", path, self.aux_data, aux)
        keys = self.aux_data if self.node_type is dict else range(len(children))
        for key, child, subtree in zip(keys, self._children, children):
            child._flatten_up_to(subtree, f"{path}[{key!r}]", out)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, PyTreeDef):
            return NotImplemented
        return self is other or (
            self._hash == other._hash
            and self.node_type is other.node_type
            and self.aux_data == other.aux_data
            and self._children == other._children
        )

    def __hash__(self) -> int:
        return self._hash

    def __reduce__(self):
        return PyTreeDef, (self.node_type, self.aux_data, self._children)

    def _show(self) -> str:
        if self.node_type is None:
            return "*"
        children = [c._show() for c in self._children]
        return _kind(self.node_type).show(self.node_type, self.aux_data, children)

    def __repr__(self) -> str:
        return f"PyTreeDef({self._show()})"


_LEAF = PyTreeDef(None, None, ())


def _flatten(tree: Any, is_leaf: Callable[[Any], bool] | None, leaves: list) -> PyTreeDef:
    """Append the leaves of `tree` to `leaves` and return its structure."""
    kind = None if is_leaf is not None and is_leaf(tree) else _kind(type(tree))
    if kind is None:
        leaves.append(tree)
        return _LEAF
    children, aux_data = kind.flatten(tree)
    return PyTreeDef(type(tree), aux_data, tuple([_flatten(c, is_leaf, leaves) for c in children]))


def tree_flatten(tree: Any, is_leaf: Callable[[Any], bool] | None = None) -> tuple[list[Any], PyTreeDef]:
    """The leaves of `tree` in order and its structure.

    `is_leaf(subtree)`, when given, is asked about every subtree first; True makes the
    subtree a leaf even if its type is a node type.

    >>> tree_flatten([1, (2, 3), None])
    ([1, 2, 3], PyTreeDef([*, (*, *), None]))
    >>> tree_flatten([1, (2, 3)], is_leaf=lambda x: isinstance(x, tuple))
    ([1, (2, 3)], PyTreeDef([*, *]))
    """
    leaves: list[Any] = []
    treedef = _flatten(tree, is_leaf, leaves)
    return leaves, treedef


def tree_unflatten(treedef: PyTreeDef, leaves: Iterable[Any]) -> Any:
    """The pytree of structure `treedef` with `leaves`; ValueError on a wrong number of leaves.

    >>> from jaxwg.tree_util import tree_structure, tree_unflatten
    >>> tree_unflatten(tree_structure({"a": 0, "b": [0, 0]}), [1, 2, 3])
    {'a': 1, 'b': [2, 3]}
    """
    return treedef.unflatten(leaves)


def flatten_fun(fun: Callable, in_tree: PyTreeDef):
    """`fun(*args)` as a function of the leaves of the `args` tuple `in_tree` describes,
    returning the leaves of its result; and a function giving the result's tree (after
    a call): how tracing sees a function of pytrees.

    >>> flat, out_tree = flatten_fun(lambda a, b: {"s": a + b[0]}, tree_structure((1, (2,))))
    >>> flat(1, 2), out_tree()
    ([3], PyTreeDef({'s': *}))
    """
    trees = []

    def flat(*leaves):
        out_leaves, tree = tree_flatten(fun(*tree_unflatten(in_tree, leaves)))
        trees[:] = [tree]
        return out_leaves

    return flat, lambda: trees[0]


def tree_leaves(tree: Any, is_leaf: Callable[[Any], bool] | None = None) -> list[Any]:
    """The leaves of `tree` in flattening order (None is a node, not a leaf).

    >>> tree_leaves({"b": [3, None], "a": 1})
    [1, 3]
    """
    return tree_flatten(tree, is_leaf)[0]


def tree_structure(tree: Any, is_leaf: Callable[[Any], bool] | None = None) -> PyTreeDef:
    """The `PyTreeDef` of `tree`.

    >>> tree_structure({"x": 1.0, "y": (2, 3)})
    PyTreeDef({'x': *, 'y': (*, *)})
    """
    return tree_flatten(tree, is_leaf)[1]


def tree_map(
    f: Callable[..., Any], tree: Any, *rest: Any, is_leaf: Callable[[Any], bool] | None = None
) -> Any:
    """Apply `f` leafwise: a pytree of `tree`'s structure holding `f(leaf, *rest_leaves)`.

    Each of `rest` must have `tree`'s structure as a prefix: where `tree` has a leaf, the
    whole subtree of the other tree there is passed to `f` (as in JAX). Otherwise a
    ValueError names the two structures.

    >>> tree_map(lambda x: x + 1, {"a": 1, "b": (2, None)})
    {'a': 2, 'b': (3, None)}
    >>> tree_map(lambda x, y: x * y, [1, 2], [10, 20])
    [10, 40]
    """
    leaves, treedef = tree_flatten(tree, is_leaf)
    columns = [leaves]
    for i, other in enumerate(rest):
        try:
            columns.append(treedef.flatten_up_to(other))
        except ValueError as e:
            raise ValueError(f"tree_map: rest[{i}] does not match the structure of tree: {e}") from None
    return treedef.unflatten(f(*xs) for xs in zip(*columns))


class _Mismatch(Exception):
    """Internal: where and how a tree differs from a prefix structure."""


def _structure_or_error(tree: Any) -> str:
    try:
        return str(tree_structure(tree))
    except ValueError as e:
        return f"<not a pytree: {e}>"


def equality_errors(tree1: PyTreeDef, tree2: PyTreeDef, path: str = ""):
    """Where two structures differ, as JAX's `equality_errors_pytreedef`: (key path, what
    the first has, what the second has, why they differ), the first difference on each branch.

    >>> list(equality_errors(tree_structure((1, 2)), tree_structure([1, 2])))
    [('', "<class 'tuple'>", "<class 'list'>", 'their Python types differ')]
    >>> list(equality_errors(tree_structure({"a": (1,)}), tree_structure({"a": (1, 2)})))
    [("['a']", 'tuple of length 1', 'tuple of length 2', 'the lengths do not match')]
    """
    type1, type2 = tree1.node_type, tree2.node_type
    if type1 is None and type2 is None:
        return
    if type1 is not type2:
        yield path, _node_text(type1), _node_text(type2), "their Python types differ"
        return
    children1, children2 = tree1.children(), tree2.children()
    n1, n2 = len(children1), len(children2)
    if type1 in (list, tuple) and n1 != n2:
        name = type1.__name__
        yield path, f"{name} of length {n1}", f"{name} of length {n2}", "the lengths do not match"
        return
    if n1 != n2:
        why = "the numbers of children do not match"
        if type1 is dict:
            keys = set(tree1.aux_data).symmetric_difference(tree2.aux_data)
            why += f", with the symmetric difference of key sets: {{{' '.join(map(repr, keys))}}}"
        yield (path, f"{type1} with {n1} child{'ren' if n1 > 1 else ''}",
               f"{type2} with {n2} child{'ren' if n2 > 1 else ''}", why)
        return
    if tree1.aux_data != tree2.aux_data:
        yield (path, f"{type1} with pytree metadata {tree1.aux_data}",
               f"{type2} with pytree metadata {tree2.aux_data}",
               "the pytree node metadata does not match")
        return
    keys = tree1.aux_data if type1 is dict else range(n1)
    for key, child1, child2 in zip(keys, children1, children2):
        yield from equality_errors(child1, child2, f"{path}[{key!r}]")


def _node_text(node_type) -> str:
    return "pytree leaf" if node_type is None else str(node_type)
