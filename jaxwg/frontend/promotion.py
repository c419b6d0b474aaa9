"""JAX's dtype promotion: the lattice, weak types, `result_type`, `can_cast`, `finfo`, `iinfo`.

The result dtype of a binary operation is the *join* (least upper bound) of its operand
types on JAX's promotion lattice. Besides the NumPy dtypes the lattice has three *weak*
nodes, written ``i*``, ``f*`` and ``c*``: the types of Python ``int``, ``float`` and
``complex`` scalars (and of arrays made from them, which carry ``weak_type=True``). A weak
value takes the width of the strongly typed value it meets (``int8 + 2`` is ``int8``,
``float16 * 2.0`` is ``float16``); only a mix of kinds moves up (``int32 + 1.0`` is a weak
float). With ``jax_enable_x64`` off (``x64=False``, JAX's default) every 64-bit type is
canonicalized to its 32-bit counterpart, Python ints become int32 and floats float32.

Everything here is table-driven: `_KINDS` says what each node is and `_EDGES_X64` which nodes
sit directly above it; the join of every pair is precomputed from those two tables, so a
new dtype is one row in each. This module speaks NumPy dtypes (bfloat16 through the
optional ``ml_dtypes`` package); `jaxwg.core.dtypes.from_numpy` turns a result into the
jaxwg `DType` the kernels use.

>>> import numpy as np
>>> result_type(np.int8, 2)              # weak int keeps the int8 width
dtype('int8')
>>> result_type("int32", 1.0)            # kinds mix: the default float
dtype('float32')
>>> result_type("int32", 1.0, x64=True)
dtype('float64')
>>> result_type_and_weak(2, 3)           # all weak: the result is weak too
(dtype('int32'), True)
>>> promote_types("bfloat16", "float16")
dtype('float32')
"""

from __future__ import annotations

import numpy as np

from jaxwg.core.dtypes import ALL, COMPLEX, DType

__all__ = [
    "WEAK_TYPES",
    "can_cast",
    "canonicalize_dtype",
    "finfo",
    "iinfo",
    "join",
    "promote_types",
    "result_type",
    "result_type_and_weak",
]

# --- tables -------------------------------------------------------------------------------

# Every lattice node: (kind, itemsize). Kinds are NumPy's: b, i, u, f, c. The weak nodes
# have no size of their own.
_KINDS: dict[str, tuple[str, int]] = {
    "bool": ("b", 1),
    "int8": ("i", 1),
    "int16": ("i", 2),
    "int32": ("i", 4),
    "int64": ("i", 8),
    "uint8": ("u", 1),
    "uint16": ("u", 2),
    "uint32": ("u", 4),
    "uint64": ("u", 8),
    "bfloat16": ("f", 2),
    "float16": ("f", 2),
    "float32": ("f", 4),
    "float64": ("f", 8),
    "complex64": ("c", 8),
    "complex128": ("c", 16),
    "i*": ("i", 0),
    "f*": ("f", 0),
    "c*": ("c", 0),
}

#: The weak lattice nodes and the Python scalar types they stand for.
WEAK_TYPES: dict[type, str] = {int: "i*", float: "f*", complex: "c*"}
_WEAK_NODES = frozenset(WEAK_TYPES.values())
_STRONG = tuple(n for n in _KINDS if n not in _WEAK_NODES)

# The lattice as a DAG: each node and the nodes immediately above it (JAX's standard
# promotion, with jax_enable_x64 on).
_EDGES_X64: dict[str, tuple[str, ...]] = {
    "bool": ("i*",),
    "i*": ("uint8", "int8"),
    "uint8": ("uint16", "int16"),
    "uint16": ("uint32", "int32"),
    "uint32": ("uint64", "int64"),
    "uint64": ("f*",),
    "int8": ("int16",),
    "int16": ("int32",),
    "int32": ("int64",),
    "int64": ("f*",),
    "f*": ("bfloat16", "float16", "c*"),
    "bfloat16": ("float32",),
    "float16": ("float32",),
    "float32": ("float64", "complex64"),
    "float64": ("complex128",),
    "c*": ("complex64",),
    "complex64": ("complex128",),
    "complex128": (),
}
# With x64 off JAX never forms a 64-bit type from 32-bit inputs: the one place the lattice
# does (uint32 with a signed int -> int64) goes to int32 instead.
_EDGES_X32 = {**_EDGES_X64, "uint32": ("uint64", "int32")}

# 64-bit dtype -> the 32-bit dtype it becomes with x64 off.
_TO_32 = {"int64": "int32", "uint64": "uint32", "float64": "float32", "complex128": "complex64"}

# The dtype of a weak value (or of a Python scalar) of each kind: (x64 off, x64 on).
_DEFAULTS = {
    "b": ("bool", "bool"),
    "i": ("int32", "int64"),
    "u": ("uint32", "uint64"),
    "f": ("float32", "float64"),
    "c": ("complex64", "complex128"),
}

# Weak node of each kind (a weak bool is just bool).
_WEAK_OF_KIND = {"b": "bool", "i": "i*", "u": "i*", "f": "f*", "c": "c*"}

# Safe casts (numpy.can_cast(..., "safe")) as a DAG: each dtype and the dtypes it casts to
# safely in one step; the relation is the reflexive-transitive closure.
_SAFE_EDGES: dict[str, tuple[str, ...]] = {
    "bool": ("int8", "uint8"),
    "int8": ("int16", "float16", "bfloat16"),
    "int16": ("int32", "float32"),
    "int32": ("int64", "float64"),
    "int64": ("float64",),
    "uint8": ("uint16", "int16", "float16", "bfloat16"),
    "uint16": ("uint32", "int32", "float32"),
    "uint32": ("uint64", "int64", "float64"),
    "uint64": ("float64",),
    "bfloat16": ("float32",),
    "float16": ("float32",),
    "float32": ("float64", "complex64"),
    "float64": ("complex128",),
    "complex64": ("complex128",),
    "complex128": (),
}
# same_kind: a safe cast, or a cast that does not go down this order of kinds.
_KIND_RANK = {"b": 0, "u": 1, "i": 2, "f": 3, "c": 4}
_CASTINGS = ("no", "equiv", "safe", "same_kind", "unsafe")


def _closure(edges: dict[str, tuple[str, ...]]) -> dict[str, frozenset[str]]:
    """Each node's set of upper bounds (itself and everything reachable from it)."""
    out: dict[str, frozenset[str]] = {}

    def visit(node: str) -> frozenset[str]:
        if node not in out:
            out[node] = frozenset({node}).union(*(visit(m) for m in edges[node]))
        return out[node]

    for node in edges:
        visit(node)
    return out


def _join_table(edges: dict[str, tuple[str, ...]]) -> dict[tuple[str, str], str]:
    """The join of every pair of nodes; raises if the DAG is not a lattice."""
    ub = _closure(edges)
    table = {}
    for a in edges:
        for b in edges:
            common = ub[a] & ub[b]
            least = [c for c in common if common <= ub[c]]
            if len(least) != 1:
                raise RuntimeError(f"promotion lattice is malformed: join({a}, {b}) = {least}")
            table[a, b] = least[0]
    return table


_JOIN = {False: _join_table(_EDGES_X32), True: _join_table(_EDGES_X64)}
_SAFE = _closure(_SAFE_EDGES)

# --- dtype names ----------------------------------------------------------------------------

_NP_CACHE: dict[str, np.dtype] = {}


def _np(name: str) -> np.dtype:
    """The NumPy dtype of a strong node name (bfloat16 through ml_dtypes)."""
    dt = _NP_CACHE.get(name)
    if dt is None:
        if name == "bfloat16":
            try:
                import ml_dtypes
            except ImportError:  # pragma: no cover - depends on the environment
                raise TypeError("bfloat16 needs the ml_dtypes package, which is not installed") from None
            dt = np.dtype(ml_dtypes.bfloat16)
        else:
            dt = np.dtype(name)
        _NP_CACHE[name] = dt
    return dt


def _unsupported(x) -> TypeError:
    # The dtypes arrays can have (int64 and the like as names of their 32-bit kin): the
    # lattice also places bfloat16, which no array has.
    have = {d.name for d in ALL + COMPLEX}
    supported = ", ".join(n for n in _STRONG if _TO_32.get(n, n) in have)
    return TypeError(
        f"{x!r} is not a dtype jaxwg can promote; supported: {supported} "
        "and the Python scalar types int, float, complex, bool"
    )


def _dtype_name(x) -> str:
    """The node name of a dtype specifier: a name, np.dtype, scalar type or jaxwg DType.

    Python types follow NumPy here (``int`` -> int64); callers that want them weak check
    for them first.
    """
    if isinstance(x, str) and x in _KINDS and x not in _WEAK_NODES:
        return x
    if isinstance(x, DType):
        return x.name
    try:
        name = np.dtype(x).name
    except (TypeError, ValueError):
        if isinstance(x, str):  # NumPy's "data type 'foo' not understood", as JAX's
            raise
        raise _unsupported(x) from None
    if name not in _KINDS or name in _WEAK_NODES:
        raise _unsupported(x)
    return name


def _canon(name: str, x64: bool) -> str:
    return name if x64 else _TO_32.get(name, name)


def _name_and_weak(x, x64: bool) -> tuple[str, bool]:
    """The (canonical dtype name, weak) of one argument of `result_type`."""
    if x is None:  # as in JAX: None stands for the default float
        return _DEFAULTS["f"][x64], False
    t = type(x)
    if t is bool or x is bool:
        return "bool", False
    node = WEAK_TYPES.get(t) or (WEAK_TYPES.get(x) if t is type else None)
    if node is not None:
        return _DEFAULTS[_KINDS[node][0]][x64], True
    if isinstance(x, (str, np.dtype, DType, type)):
        return _canon(_dtype_name(x), x64), False
    dtype = getattr(x, "dtype", None)
    if dtype is None:
        raise _unsupported(x)
    return _canon(_dtype_name(dtype), x64), bool(getattr(x, "weak_type", False))


# --- public API -------------------------------------------------------------------------------


def join(*nodes: str, x64: bool = False) -> str:
    """The join of lattice nodes given by name (dtype names and ``'i*'``, ``'f*'``, ``'c*'``).

    This is the raw lattice: nothing is canonicalized and weak results stay weak nodes.
    ``x64`` picks JAX's lattice for ``jax_enable_x64`` on or off (they differ only in
    uint32 with a signed int).

    >>> join("uint8", "int8"), join("i*", "uint16"), join("int64", "uint64", x64=True)
    ('int16', 'uint16', 'f*')
    >>> join("uint32", "int32"), join("uint32", "int32", x64=True)
    ('int32', 'int64')
    """
    if not nodes:
        raise ValueError("join needs at least one node")
    table = _JOIN[bool(x64)]
    out = nodes[0]
    if out not in _KINDS:
        raise _unsupported(out)
    for node in nodes[1:]:
        if node not in _KINDS:
            raise _unsupported(node)
        out = table[out, node]
    return out


def canonicalize_dtype(dtype, *, x64: bool = False) -> np.dtype:
    """The NumPy dtype of a dtype specifier, narrowed to 32 bits when ``x64`` is off.

    >>> canonicalize_dtype("float64"), canonicalize_dtype("float64", x64=True)
    (dtype('float32'), dtype('float64'))
    >>> canonicalize_dtype(int)              # NumPy's reading of int: int64, narrowed
    dtype('int32')
    """
    return _np(_canon(_dtype_name(dtype), x64))


def promote_types(a, b, *, x64: bool = False) -> np.dtype:
    """The dtype to which a binary operation on types `a` and `b` casts, as `jnp.promote_types`.

    `a` and `b` are dtype specifiers (names, NumPy dtypes or scalar types, jaxwg DTypes);
    the Python types ``int``, ``float`` and ``complex`` are weak. Like JAX, this does not
    canonicalize: 64-bit inputs give 64-bit results even with ``x64`` off, and a weak result
    is the 64-bit dtype of its kind. `result_type` canonicalizes.

    >>> promote_types("int32", "float32"), promote_types("uint8", int)
    (dtype('float32'), dtype('uint8'))
    >>> promote_types("float16", float), promote_types("int8", "uint8")
    (dtype('float16'), dtype('int16'))
    >>> promote_types("uint32", "int32"), promote_types("uint32", "int32", x64=True)
    (dtype('int32'), dtype('int64'))
    """
    node = _JOIN[bool(x64)][_promote_node(a), _promote_node(b)]
    if node in _WEAK_NODES:
        node = _DEFAULTS[_KINDS[node][0]][True]
    return _np(node)


def _promote_node(x) -> str:
    if isinstance(x, type) and x in WEAK_TYPES:
        return WEAK_TYPES[x]
    return _dtype_name(x)


def result_type_and_weak(*args, x64: bool = False) -> tuple[np.dtype, bool]:
    """The promoted dtype of `args` and whether the result is weakly typed.

    Arguments may be dtype specifiers (strong), Python scalars or the types ``int``,
    ``float``, ``complex`` (weak; ``bool`` is strong), ``None`` (the default float), NumPy
    arrays and scalars (strong), and any object with a ``dtype`` and an optional
    ``weak_type`` attribute (jaxwg arrays and abstract values). With ``x64`` off every input
    is first narrowed to 32 bits. A weak result has the default dtype of its kind (int32,
    float32, complex64 with ``x64`` off); it is weak only when no strong input decided it.

    >>> result_type_and_weak(np.float16, 1.0)
    (dtype('float16'), False)
    >>> result_type_and_weak(1, 1.0)
    (dtype('float32'), True)
    >>> result_type_and_weak(np.int64, 1.0, x64=True)
    (dtype('float64'), True)
    >>> result_type_and_weak(True, 1)
    (dtype('int32'), True)
    """
    if not args:
        raise ValueError("at least one array or dtype is required")
    x64 = bool(x64)
    pairs = [_name_and_weak(a, x64) for a in args]
    if len(pairs) == 1:
        name, weak = pairs[0]
    elif not all(w for _, w in pairs):
        first = pairs[0][0]
        if all(n == first for n, _ in pairs):
            name, weak = first, False
        else:
            name = join(*(_WEAK_OF_KIND[_KINDS[n][0]] if w else n for n, w in pairs), x64=x64)
            weak = name in _WEAK_NODES
    else:
        # All weak: join the dtypes themselves and keep the result weak (JAX does the
        # same, so two weak int16 values stay integers rather than a weak int of no width).
        name, weak = join(*(n for n, _ in pairs), x64=x64), True
    if weak and name != "bool":
        return _np(_DEFAULTS[_KINDS[name][0]][x64]), True
    return _np(_canon(name, x64)), False


def result_type(*args, x64: bool = False) -> np.dtype:
    """The dtype JAX's promotion gives `args` (see `result_type_and_weak`), as `jnp.result_type`.

    >>> result_type("int32", "float32"), result_type(np.uint16, np.dtype("int32"))
    (dtype('float32'), dtype('int32'))
    >>> result_type("float64"), result_type(np.zeros(3, np.int8), 300)
    (dtype('float32'), dtype('int8'))
    """
    return result_type_and_weak(*args, x64=x64)[0]


def _cast_name(x) -> str:
    t = type(x)
    if t in WEAK_TYPES or t is bool:
        raise TypeError(
            "can_cast() does not support Python ints, floats, and complex "
            f"because the result would depend on the value (got {x!r})"
        )
    if not isinstance(x, (str, np.dtype, DType, type)) and hasattr(x, "dtype"):
        x = x.dtype
    return _dtype_name(x)


def can_cast(from_, to, casting: str = "safe") -> bool:
    """Whether a cast from `from_` to `to` is allowed under `casting`, as `jnp.can_cast`.

    `jnp.can_cast` is NumPy's: ``"no"``/``"equiv"`` allow only the same dtype, ``"safe"``
    casts that keep every value, ``"same_kind"`` also casts within a kind or up the order
    bool, unsigned, signed, float, complex (float64 to float16, not float to int), and
    ``"unsafe"`` anything. `from_` may be a dtype specifier or an array; Python scalar values
    are refused with TypeError as in NumPy 2. Byte order is not considered.

    >>> can_cast("int32", "float64"), can_cast("int32", "float32")
    (True, False)
    >>> can_cast("float64", "float16", "same_kind"), can_cast("float32", "int32", "same_kind")
    (True, False)
    """
    if casting not in _CASTINGS:
        raise ValueError("casting must be one of 'no', 'equiv', 'safe', 'same_kind', or 'unsafe'")
    a, b = _cast_name(from_), _cast_name(to)
    if casting == "unsafe" or a == b:
        return True
    if casting in ("no", "equiv"):
        return False
    if b in _SAFE[a]:
        return True
    return casting == "same_kind" and _KIND_RANK[_KINDS[a][0]] <= _KIND_RANK[_KINDS[b][0]]


def finfo(dtype):
    """Machine limits of a float or complex dtype: `numpy.finfo` (``ml_dtypes.finfo`` for bfloat16).

    Accepts dtype specifiers and objects with a ``dtype``. A complex dtype gives the limits of
    its real part. bfloat16 needs ``ml_dtypes`` (NumPy has no bfloat16); without it this
    raises TypeError. An integer or bool dtype raises ValueError as in NumPy.

    >>> from jaxwg.numpy import finfo
    >>> fi = finfo("float16")
    >>> fi.bits, float(fi.eps), float(fi.max)
    (16, 0.0009765625, 65504.0)
    """
    name = _cast_name(dtype)
    if _KINDS[name][0] not in "fc":
        raise ValueError(f"data type {name} not inexact")
    if name == "bfloat16":
        try:
            import ml_dtypes
        except ImportError:  # pragma: no cover - depends on the environment
            raise TypeError("finfo(bfloat16) needs the ml_dtypes package, which is not installed") from None
        return ml_dtypes.finfo(ml_dtypes.bfloat16)
    return np.finfo(_np(name))


def iinfo(dtype):
    """Machine limits of an integer dtype: `numpy.iinfo`. Bool and floats raise ValueError.

    >>> from jaxwg.numpy import iinfo
    >>> info = iinfo("int32")
    >>> info.bits, int(info.min), int(info.max)
    (32, -2147483648, 2147483647)
    """
    name = _cast_name(dtype)
    if _KINDS[name][0] not in "iu":
        raise ValueError(f"Invalid integer data type {name!r}.")
    return np.iinfo(_np(name))
