"""dtypes in `jaxwg.numpy`: scalar types, `result_type`, `promote_types`, `finfo`, `iinfo`.

The scalar types are JAX's: classes with a `dtype` that compare and hash equal to NumPy's
(`jnp.float32 == np.float32`, `x.dtype == jnp.float32`, `np.dtype(jnp.float32)`), and whose
call makes a jaxwg array (`jnp.float32(2.5)` is a 0-d float32 Array). Promotion follows
JAX's lattice (`jaxwg.frontend.promotion`) and the `jax_enable_x64` option.

>>> import jaxwg.numpy as jnp
>>> jnp.result_type(jnp.int32, 1.0), jnp.promote_types(jnp.uint32, jnp.int32)
(dtype('float32'), dtype('int32'))
>>> jnp.float32(2.5), jnp.int64(3)        # int64 is int32 unless x64 is on
(Array(2.5, dtype=float32), Array(3, dtype=int32))
"""

from __future__ import annotations

import numpy as np

from .. import dtypes as _dtypes
from ..frontend import aval as avals
from ..frontend import promotion
from ._util import promotable

__all__ = [
    "ComplexWarning",
    "bool",
    "bool_",
    "can_cast",
    "cdouble",
    "character",
    "complex64",
    "complex128",
    "complex_",
    "complexfloating",
    "csingle",
    "double",
    "dtype",
    "finfo",
    "flexible",
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
    "object_",
    "promote_types",
    "result_type",
    "signedinteger",
    "single",
    "uint",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "unsignedinteger",
]


class _ScalarMeta(type):
    """The metaclass of JAX's scalar types: calling one converts to an array of its dtype.

    The type stands for `dtype` everywhere NumPy reads a dtype (`np.dtype` reads
    `__numpy_dtype__`, or `dtype` before NumPy 2.4), and equals and hashes as NumPy's
    scalar type, so tables keyed by `np.float32` still find `jnp.float32`.
    """

    dtype: np.dtype

    @property
    def __numpy_dtype__(cls) -> np.dtype:
        return cls.dtype

    def __hash__(cls) -> int:
        return hash(cls.dtype.type)

    def __eq__(cls, other) -> bool:
        return cls is other or cls.dtype.type == other

    def __ne__(cls, other) -> bool:
        return not cls == other

    def __call__(cls, x):
        from .creation import asarray  # creation builds on this module's neighbours

        return asarray(x, dtype=cls.dtype)

    def __instancecheck__(cls, instance) -> bool:
        return isinstance(instance, cls.dtype.type)


def _scalar_type(np_type: type) -> _ScalarMeta:
    dtype = np.dtype(np_type)
    doc = f"A jaxwg scalar constructor of type {dtype.name}: as in JAX, scalars are 0-d arrays."
    return _ScalarMeta(dtype.type.__name__, (object,),
                       {"dtype": dtype, "__module__": "jaxwg.numpy", "__doc__": doc})


bool_ = bool = _scalar_type(np.bool_)
int8, int16, int32, int64 = (_scalar_type(t) for t in (np.int8, np.int16, np.int32, np.int64))
uint8, uint16, uint32, uint64 = (_scalar_type(t) for t in (np.uint8, np.uint16, np.uint32, np.uint64))
float16, float32, float64 = (_scalar_type(t) for t in (np.float16, np.float32, np.float64))
complex64, complex128 = _scalar_type(np.complex64), _scalar_type(np.complex128)
float_, int_, complex_ = float64, int64, complex128
# NumPy's C-type aliases, as in JAX: `double(1)` is float32 unless x64 is on, as float64(1).
single, double, csingle, cdouble, uint = float32, float64, complex64, complex128, uint64
object_, character, flexible = np.object_, np.character, np.flexible  # NumPy's, as in JAX
ComplexWarning = np.exceptions.ComplexWarning
generic, number, inexact, floating = np.generic, np.number, np.inexact, np.floating
complexfloating = np.complexfloating
integer, signedinteger, unsignedinteger = np.integer, np.signedinteger, np.unsignedinteger
issubdtype = _dtypes.issubdtype  # NumPy's, knowing key dtypes (jaxwg.dtypes)


def dtype(obj) -> np.dtype:
    """The NumPy dtype of a specifier or an array's dtype.

    >>> import jaxwg.numpy as jnp
    >>> jnp.dtype("float32"), jnp.dtype(jnp.int8), jnp.dtype(jnp.zeros(2))
    (dtype('float32'), dtype('int8'), dtype('float32'))
    """
    return np.dtype(obj if isinstance(obj, type) else getattr(obj, "dtype", obj))


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
    return any(_is_kind(d, k) for k in kinds)


def _is_kind(d: np.dtype, kind) -> bool:
    """Whether `d` is in one kind of `isdtype`, with JAX's errors for what is not a kind."""
    if isinstance(kind, str) and kind in _KINDS:
        return d.kind in _KINDS[kind]
    try:
        return np.dtype(kind) == d
    except TypeError as e:
        if isinstance(kind, str):
            raise ValueError(f"Unrecognized kind={kind!r} expected one of {list(_KINDS)}, or a "
                             "compatible input for jnp.dtype()") from None
        raise TypeError(f"Expected kind to be a dtype, string, or tuple; got kind={kind!r}") from e


_KINDS = {"bool": "b", "signed integer": "i", "unsigned integer": "u", "integral": "iu",
          "real floating": "f", "complex floating": "c", "numeric": "iufc"}
