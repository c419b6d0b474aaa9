"""Pytrees against JAX: random nests of dict/list/tuple/None/namedtuple/custom nodes must
flatten to the same leaves and the same printed structure as `jax.tree_util`, round-trip
through unflatten, and fail the same way on mismatched structures."""

import collections
import pickle

import pytest
from hypothesis import given
from hypothesis import strategies as st
from jax import tree_util as jax_tree_util

from jaxwg import tree, tree_util
from jaxwg.frontend.pytree import (
    PyTreeDef,
    register_pytree_node,
    register_pytree_node_class,
    tree_flatten,
    tree_leaves,
    tree_map,
    tree_structure,
    tree_unflatten,
)

Pair = collections.namedtuple("Pair", "x y")
Single = collections.namedtuple("Single", "x")
Empty = collections.namedtuple("Empty", "")
NAMEDTUPLES = {0: Empty, 1: Single, 2: Pair}


class Box:
    """A custom node: any number of children and a hashable tag kept as aux data."""

    def __init__(self, children, tag):
        self.children, self.tag = list(children), tag

    def __eq__(self, other):
        return type(other) is Box and (self.children, self.tag) == (other.children, other.tag)

    def __repr__(self):
        return f"Box({self.children!r}, {self.tag!r})"


def _box_flatten(box):
    return box.children, box.tag


def _box_unflatten(tag, children):
    return Box(children, tag)


register_pytree_node(Box, _box_flatten, _box_unflatten)


@pytest.fixture(scope="module")
def jtu():
    """`jax.tree_util` with `Box` registered the same way (JAX is the oracle)."""
    try:
        jax_tree_util.register_pytree_node(Box, _box_flatten, _box_unflatten)
    except ValueError:  # already registered by an earlier module-scoped setup
        pass
    return jax_tree_util


# -- random pytrees --------------------------------------------------------------------
leaves = st.integers(0, 10**6)
keys = st.text(alphabet="abcde", min_size=1, max_size=2)


def _nodes(children):
    kids = st.lists(children, max_size=4)
    return st.one_of(
        kids.map(tuple),
        kids,
        st.dictionaries(keys, children, max_size=4),
        st.integers(0, 2).flatmap(
            lambda n: st.lists(children, min_size=n, max_size=n).map(lambda c: NAMEDTUPLES[n](*c))
        ),
        st.builds(Box, kids, st.sampled_from(["u", "v", ("w", 1)])),
    )


pytrees = st.recursive(leaves | st.none(), _nodes, max_leaves=16)


def _add(k):
    return lambda x: x + k


# -- agreement with JAX ----------------------------------------------------------------
@given(pytrees)
def test_flatten_matches_jax(jtu, x):
    leaves, treedef = tree_flatten(x)
    jleaves, jtreedef = jtu.tree_flatten(x)
    assert leaves == jleaves
    assert repr(treedef) == repr(jtreedef) == str(jtreedef)
    assert (treedef.num_leaves, treedef.num_nodes) == (jtreedef.num_leaves, jtreedef.num_nodes)
    assert [repr(c) for c in treedef.children()] == [repr(c) for c in jtreedef.children()]
    assert treedef.node_data() == jtreedef.node_data()
    assert tree_leaves(x) == jtu.tree_leaves(x)


@given(pytrees)
def test_is_leaf_matches_jax(jtu, x):
    def is_leaf(node):
        return isinstance(node, (list, Box)) or node is None

    leaves, treedef = tree_flatten(x, is_leaf=is_leaf)
    jleaves, jtreedef = jtu.tree_flatten(x, is_leaf=is_leaf)
    assert leaves == jleaves
    assert repr(treedef) == repr(jtreedef)


@given(pytrees)
def test_unflatten_round_trips(x):
    leaves, treedef = tree_flatten(x)
    assert tree_unflatten(treedef, leaves) == x
    assert tree_structure(tree_unflatten(treedef, leaves)) == treedef
    assert treedef.unflatten(iter(leaves)) == x
    assert pickle.loads(pickle.dumps(treedef)) == treedef


@given(pytrees, pytrees)
def test_equality_and_hash_match_jax(jtu, x, y):
    tx, ty = tree_structure(x), tree_structure(y)
    # Same structure, other leaves: equal, same hash.
    relabelled = tree_structure(tree_map(str, x))
    assert tx == relabelled and hash(tx) == hash(relabelled)
    assert (tx == ty) == (jtu.tree_structure(x) == jtu.tree_structure(y))
    if tx == ty:
        assert hash(tx) == hash(ty)
    assert tx != x and {tx: 1}[relabelled] == 1


@given(pytrees)
def test_tree_map_several_trees_matches_jax(jtu, x):
    def f(*xs):
        return xs

    others = [tree_map(_add(1), x), tree_map(_add(2), x)]
    assert tree_map(f, x, *others) == jtu.tree_map(f, x, *others)
    assert tree_map(_add(5), x) == jtu.tree_map(_add(5), x)


@given(pytrees)
def test_tree_map_prefix_matches_jax(jtu, x):
    """A leaf of the first tree takes the whole subtree of the others at its place."""

    def is_leaf(node):
        return isinstance(node, (tuple, Box))

    prefix_def = tree_structure(x, is_leaf=is_leaf)
    prefix = prefix_def.unflatten(range(prefix_def.num_leaves))
    assert tree_map(lambda a, b: (a, b), prefix, x) == jtu.tree_map(lambda a, b: (a, b), prefix, x)
    assert prefix_def.flatten_up_to(x) == jtu.tree_structure(x, is_leaf=is_leaf).flatten_up_to(x)


# -- representations and node types ------------------------------------------------------
@pytest.mark.parametrize(
    "x",
    [
        1,
        None,
        (),
        [],
        {},
        (1,),
        [1],
        {"b": (1, 2), "a": [3, None]},
        {1: "x", 3: ("y",)},
        {(1, 2): 0},
        Pair(1, (2, 3)),
        Empty(),
        Box([1, [2]], "aux"),
        Box([], {"unhashable": [1]}),
        collections.OrderedDict(b=1, a=(2, 3)),
        collections.defaultdict(list, {"b": 1, "a": 2}),
        [[1, 2], {"z": Single(None)}],
        "a string is a leaf",
    ],
    ids=repr,
)
def test_repr_and_unflatten_match_jax(jtu, x):
    leaves, treedef = tree_flatten(x)
    jleaves, jtreedef = jtu.tree_flatten(x)
    assert leaves == jleaves
    assert repr(treedef) == repr(jtreedef)
    assert repr(treedef.unflatten(leaves)) == repr(jtreedef.unflatten(leaves))


def test_container_subclasses_are_leaves(jtu):
    class MyList(list):
        pass

    x = [MyList([1, 2])]
    assert repr(tree_structure(x)) == repr(jtu.tree_structure(x)) == "PyTreeDef([*])"


def test_namedtuple_types_are_part_of_the_structure():
    Other = collections.namedtuple("Pair", "x y")
    assert tree_structure(Pair(1, 2)) != tree_structure(Other(1, 2))
    assert tree_structure(Pair(1, 2)) != tree_structure((1, 2))
    assert tree_unflatten(tree_structure(Pair(0, 0)), [3, 4]) == Pair(3, 4)


def test_unhashable_aux_data_is_allowed(jtu):
    """As in JAX: such structures are hashable (the aux data is left out of the hash) and
    compare their aux data with `==`."""
    a = tree_structure(Box([1], ["k"]))
    b = tree_structure(Box([2], ["k"]))
    c = tree_structure(Box([1], ["other"]))
    assert a == b and hash(a) == hash(b)
    assert a != c
    assert jtu.tree_structure(Box([1], ["k"])) == jtu.tree_structure(Box([2], ["k"]))


def test_register_pytree_node_class():
    @register_pytree_node_class
    class Scaled:
        def __init__(self, value, scale):
            self.value, self.scale = value, scale

        def tree_flatten(self):
            return (self.value,), self.scale

        @classmethod
        def tree_unflatten(cls, scale, children):
            return cls(children[0], scale)

    out = tree_map(lambda v: v + 1, Scaled((1, 2), 10))
    assert type(out) is Scaled and out.value == (2, 3) and out.scale == 10
    assert repr(tree_structure([Scaled(0, "s")])) == "PyTreeDef([CustomNode(Scaled[s], [*])])"


# -- errors ----------------------------------------------------------------------------
@pytest.mark.parametrize(
    "a, b",
    [
        ((1, 2), [1, 2]),  # different node types
        ((1, 2), (1, 2, 3)),  # different numbers of children
        ({"a": 1}, {"b": 1}),  # different dict keys
        ((1, (2, 3)), (1, 4)),  # a node where the other has a leaf
        ([1, None], [1, 2]),  # None is a node, not a leaf
        (Pair(1, 2), (1, 2)),  # a namedtuple is not a tuple
        (Box([1], "u"), Box([1], "v")),  # different aux data
    ],
    ids=repr,
)
def test_tree_map_structure_mismatch(jtu, a, b):
    with pytest.raises(ValueError) as ours:
        tree_map(lambda x, y: x, a, b)
    with pytest.raises(ValueError):
        jtu.tree_map(lambda x, y: x, a, b)
    message = str(ours.value)
    assert "pytree structure error" in message
    assert str(tree_structure(a)) in message and str(tree_structure(b)) in message


def test_unflatten_wrong_leaf_count():
    treedef = tree_structure({"a": (1, 2), "b": None})
    with pytest.raises(ValueError, match="Too few leaves for PyTreeDef; expected 2, got 1"):
        tree_unflatten(treedef, [1])
    with pytest.raises(ValueError, match="Too many leaves for PyTreeDef; expected 2, got 3"):
        tree_unflatten(treedef, [1, 2, 3])
    with pytest.raises(ValueError, match="expected 0, got 1"):
        tree_unflatten(tree_structure(None), [7])


def test_unsortable_dict_keys(jtu):
    x = {1: 2, "a": 3}
    with pytest.raises(ValueError, match="Comparator raised exception while sorting"):
        tree_flatten(x)
    with pytest.raises(ValueError, match="Comparator raised exception while sorting"):
        jtu.tree_flatten(x)


def test_duplicate_registration_and_bad_flatten():
    with pytest.raises(ValueError, match="Duplicate custom PyTreeDef type registration"):
        register_pytree_node(Box, _box_flatten, _box_unflatten)
    with pytest.raises(ValueError, match="Duplicate custom PyTreeDef type registration"):
        register_pytree_node(tuple, _box_flatten, _box_unflatten)

    class Bad:
        pass

    register_pytree_node(Bad, lambda node: [1, 2], lambda aux, children: Bad())
    with pytest.raises(ValueError, match=r"should return a \(children, aux_data\) tuple"):
        tree_flatten([Bad()])


def test_structures_do_not_order():
    with pytest.raises(TypeError):
        tree_structure([1]) < tree_structure([1])  # noqa: B015


# -- public namespaces -------------------------------------------------------------------
def test_public_namespaces():
    assert tree.map is tree_util.tree_map  # tree_util's take typed keys as leaves
    assert tree.flatten is tree_util.tree_flatten
    assert tree.unflatten is tree_util.tree_unflatten
    assert tree.leaves is tree_util.tree_leaves
    assert tree.structure is tree_util.tree_structure
    assert tree_util.PyTreeDef is PyTreeDef
    assert tree_util.register_pytree_node is register_pytree_node
    assert tree_util.register_pytree_node_class is register_pytree_node_class
