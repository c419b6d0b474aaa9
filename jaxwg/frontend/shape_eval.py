"""`eval_shape` and `ShapeDtypeStruct`: what a function returns, traced, with nothing computed.

The function is traced to a jaxpr (as `make_jaxpr` traces it) at the avals of its
arguments, which may be arrays, scalars or any object with `shape` and `dtype` (a
`ShapeDtypeStruct`); the results' avals come back as `ShapeDtypeStruct`s in the
function's output tree.

>>> import jaxwg, jaxwg.numpy as jnp
>>> jaxwg.eval_shape(lambda x: {"t": x.T}, jaxwg.ShapeDtypeStruct((2, 3), jnp.int8))
{'t': ShapeDtypeStruct(shape=(3, 2), dtype=int8)}
"""

from __future__ import annotations

import numpy as np

from . import aval as avals
from . import pytree
from .array import aval_of
from .jaxpr import trace_to_jaxpr
from .trace import describe_traced


class ShapeDtypeStruct:
    """A shape, a dtype and a weak type, standing for an array (JAX's class; `sharding`
    is accepted for JAX's signature and kept, there is one device).

    >>> from jaxwg import ShapeDtypeStruct
    >>> import numpy as np
    >>> ShapeDtypeStruct([2, 3], np.float32)
    ShapeDtypeStruct(shape=(2, 3), dtype=float32)
    >>> ShapeDtypeStruct((), "float32", weak_type=True).size
    1
    """

    __slots__ = ("dtype", "sharding", "shape", "weak_type")

    def __init__(self, shape, dtype, *, sharding=None, weak_type: bool = False):
        if dtype is None:
            raise ValueError("ShapeDtypeStruct: dtype must be specified.")
        self.shape = tuple(shape)
        self.dtype = np.dtype(dtype)
        self.sharding = sharding
        self.weak_type = weak_type

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))

    def _key(self) -> tuple:
        return (self.shape, self.dtype, self.sharding, self.weak_type)

    def __eq__(self, other):
        return isinstance(other, ShapeDtypeStruct) and self._key() == other._key()

    def __hash__(self):
        return hash(self._key())

    def __repr__(self) -> str:
        weak = ", weak_type=True" if self.weak_type else ""
        return f"ShapeDtypeStruct(shape={self.shape}, dtype={self.dtype.name}{weak})"


def _aval(leaf) -> avals.ShapedArray:
    """The aval of an argument: arrays and tracers keep theirs, objects with `shape` and
    `dtype` (NumPy arrays, ShapeDtypeStructs) give theirs, scalars are weakly typed."""
    if hasattr(leaf, "aval") or not (hasattr(leaf, "shape") and hasattr(leaf, "dtype")):
        return aval_of(leaf)
    return avals.ShapedArray(tuple(leaf.shape), avals.canonical_dtype(leaf.dtype),
                             bool(getattr(leaf, "weak_type", False)))


def eval_shape(fun, *args, **kwargs):
    """The shapes and dtypes `fun(*args, **kwargs)` would return, as `ShapeDtypeStruct`s,
    found by tracing: nothing runs on a device.

    >>> import jaxwg, jaxwg.numpy as jnp
    >>> jaxwg.eval_shape(lambda x, y: x @ y, jnp.ones((2, 3)), jnp.ones((3, 4)))
    ShapeDtypeStruct(shape=(2, 4), dtype=float32)
    """
    leaves, in_tree = pytree.tree_flatten((args, kwargs))
    flat_fun, out_tree = pytree.flatten_fun(lambda f_args, f_kwargs: fun(*f_args, **f_kwargs), in_tree)
    closed = trace_to_jaxpr(flat_fun, [_aval(x) for x in leaves],
                            describe_traced(fun, "eval_shape"))
    structs = [ShapeDtypeStruct(a.shape, a.dtype.np, weak_type=a.weak_type)
               for a in closed.out_avals]
    return pytree.tree_unflatten(out_tree(), structs)
