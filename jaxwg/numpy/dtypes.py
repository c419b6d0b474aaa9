"""dtypes in `jaxwg.numpy`: scalar types, `result_type`, `promote_types`, `finfo`, `iinfo`.

The scalar types are NumPy's (`jnp.float32 is np.float32`), so `x.dtype == jnp.float32`
works as in JAX. Promotion follows JAX's lattice (`jaxwg.frontend.promotion`) and the
`jax_enable_x64` option.

>>> import jaxwg.numpy as jnp
>>> jnp.result_type(jnp.int32, 1.0), jnp.promote_types(jnp.uint32, jnp.int32)
(dtype('float32'), dtype('int32'))
"""

from __future__ import annotations

import numpy as np

from ..frontend import aval as avals
from ..frontend import promotion
from ._util import promotable

__all__ = [
    "bool",
    "bool_",
    "can_cast",
    "complex64",
    "dtype",
    "finfo",
    "float16",
    "float32",
    "float64",
    "float_",
    "floating",
    "generic",
    "iinfo",
    "inexact",
    "int8",
    "int16",
    "int32",
    "int64",
    "int_",
    "integer",
    "isdtype",
    "issubdtype",
    "number",
    "promote_types",
    "result_type",
    "signedinteger",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "unsignedinteger",
]

bool_ = np.bool_
bool = np.bool_
int8, int16, int32, int64 = np.int8, np.int16, np.int32, np.int64
uint8, uint16, uint32, uint64 = np.uint8, np.uint16, np.uint32, np.uint64
float16, float32, float64 = np.float16, np.float32, np.float64
complex64 = np.complex64
float_, int_ = np.float64, np.int64
generic, number, inexact, floating = np.generic, np.number, np.inexact, np.floating
integer, signedinteger, unsignedinteger = np.integer, np.signedinteger, np.unsignedinteger
issubdtype = np.issubdtype


def dtype(obj) -> np.dtype:
    """The NumPy dtype of a specifier or an array's dtype.

    >>> import jaxwg.numpy as jnp
    >>> jnp.dtype("float32")
    dtype('float32')
    """
    return np.dtype(getattr(obj, "dtype", obj))


def _x64() -> bool:
    return avals.x64_enabled()


def result_type(*args) -> np.dtype:
    """JAX's promoted dtype of arrays, dtypes and scalars (canonicalized to 32 bits unless x64).

    >>> import jaxwg.numpy as jnp
    >>> jnp.result_type(jnp.float16, 2.0)
    dtype('float16')
    """
    return promotion.result_type(*[promotable(a) for a in args], x64=_x64())


def promote_types(a, b) -> np.dtype:
    """The dtype both `a` and `b` convert to (weak types ignored).

    >>> import jaxwg.numpy as jnp
    >>> jnp.promote_types(jnp.int8, jnp.uint8)
    dtype('int16')
    """
    return promotion.promote_types(a, b, x64=_x64())


def can_cast(from_, to, casting="safe") -> bool:
    """Whether `from_` converts to `to` under NumPy's casting rule.

    >>> import jaxwg.numpy as jnp
    >>> jnp.can_cast(jnp.int32, jnp.float32), jnp.can_cast(jnp.float32, jnp.int32)
    (False, False)
    """
    aval = getattr(from_, "aval", None)
    return promotion.can_cast(aval.dtype.np if aval is not None else from_, to, casting)


finfo = promotion.finfo
iinfo = promotion.iinfo


def isdtype(dtype, kind) -> bool:
    """Array API dtype-kind test: kind is a dtype or 'bool', 'signed integer',
    'unsigned integer', 'integral', 'real floating', 'numeric' (or a tuple of them).

    >>> import jaxwg.numpy as jnp
    >>> jnp.isdtype(jnp.float32, "real floating")
    True
    """
    d = np.dtype(dtype)
    kinds = kind if isinstance(kind, tuple) else (kind,)
    table = {"bool": "b", "signed integer": "i", "unsigned integer": "u", "integral": "iu",
             "real floating": "f", "complex floating": "c", "numeric": "iufc"}
    for k in kinds:
        if isinstance(k, str):
            if d.kind in table[k]:
                return True
        elif np.dtype(k) == d:
            return True
    return False
