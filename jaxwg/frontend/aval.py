"""Abstract values: what tracing knows about an array without its data.

A `ShapedArray` is a shape, a kernel dtype (`jaxwg.core.dtypes.DType`) and a
`weak_type` flag. Weak types are how JAX keeps Python scalars from widening
arrays (`float16_array * 2.0` stays float16); see `jaxwg.frontend.promotion`.
Primitives compute their output avals from their input avals
(`primitives.abstract_eval_rules`), jaxprs annotate every variable with one, and
the jit cache keys on them.

>>> from jaxwg.core import dtypes as dt
>>> a = ShapedArray((2, 3), dt.float32)
>>> a.str_short(), a.size, a.ndim
('f32[2,3]', 6, 2)
>>> ShapedArray((), dt.int32, weak_type=True).str_short()
'i32[]'
"""

from __future__ import annotations

import math

import numpy as np

from ..config import config
from ..core import dtypes as dt
from . import promotion
from ..core.dtypes import DType

# Short dtype names in jaxpr printouts, as JAX writes them.
SHORT_NAMES = {
    dt.bool_: "bool",
    dt.int8: "i8",
    dt.uint8: "u8",
    dt.int16: "i16",
    dt.uint16: "u16",
    dt.int32: "i32",
    dt.uint32: "u32",
    dt.float16: "f16",
    dt.float32: "f32",
    dt.float64: "f64",
    dt.complex64: "c64",
    dt.complex128: "c128",
}


class ShapedArray:
    """The abstract value of an array: `shape`, `dtype` and `weak_type`."""

    __slots__ = ("dtype", "shape", "weak_type")

    def __init__(self, shape, dtype: DType, weak_type: bool = False):
        self.shape = tuple(shape)
        self.dtype = dtype
        self.weak_type = bool(weak_type)

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    def update(self, shape=None, dtype=None, weak_type=None) -> ShapedArray:
        """A copy with some fields replaced."""
        return ShapedArray(
            self.shape if shape is None else shape,
            self.dtype if dtype is None else dtype,
            self.weak_type if weak_type is None else weak_type,
        )

    def strip_weak_type(self) -> ShapedArray:
        return self.update(weak_type=False) if self.weak_type else self

    def str_short(self) -> str:
        name = SHORT_NAMES.get(self.dtype, self.dtype.name)  # key<fry> as it is
        return f"{name}[{','.join(map(str, self.shape))}]"

    def _key(self):
        return (self.shape, self.dtype, self.weak_type)

    def __eq__(self, other):
        return isinstance(other, ShapedArray) and self._key() == other._key()

    def __hash__(self):
        return hash(self._key())

    def __repr__(self):
        weak = ", weak_type=True" if self.weak_type else ""
        return f"ShapedArray({self.dtype.name}{list(self.shape)}{weak})"


def x64_enabled() -> bool:
    return config.jax_enable_x64


def canonical_dtype(dtype) -> DType:
    """The kernel dtype for a dtype specifier, narrowed to 32 bits unless x64 is on
    (integers always: kernels have no 64-bit integers).

    Raises TypeError naming the dtype when jaxwg has no kernel type for it.

    >>> canonical_dtype("float64"), canonical_dtype(float)
    (float32, float32)
    """
    x64 = x64_enabled()
    try:
        return _CANONICAL[dtype, x64]
    except (KeyError, TypeError):  # not seen yet, or unhashable
        pass
    result = _canonical_dtype(dtype, x64)
    try:
        _CANONICAL[dtype, x64] = result
    except TypeError:
        pass
    return result


_CANONICAL: dict = {}


def _canonical_dtype(dtype, x64: bool) -> DType:
    if isinstance(dtype, DType):
        dtype = dtype.name
    python_types = {int: "int64", float: "float64", bool: "bool"}
    if isinstance(dtype, type) and dtype in python_types:
        dtype = python_types[dtype]
    narrowed = promotion.canonicalize_dtype(dtype, x64=x64)
    # Kernels have no 64-bit integers (WGSL has none): with x64 on, integers stay 32-bit.
    narrowed = _INT32_FOR.get(narrowed.name, narrowed)
    return dt.from_numpy(narrowed)


_INT32_FOR = {"int64": np.dtype("int32"), "uint64": np.dtype("uint32")}


def dtype_of_python_scalar(value) -> DType:
    """The weak dtype JAX gives a Python scalar: bool, int32/int64, float32/float64 or
    complex64/complex128."""
    if isinstance(value, (bool, np.bool_)):
        return dt.bool_
    if isinstance(value, int):
        return canonical_dtype("int64")
    if isinstance(value, float):
        return canonical_dtype("float64")
    if isinstance(value, complex):
        return canonical_dtype("complex128")
    raise TypeError(f"{type(value).__name__} is not a supported Python scalar type")


def is_python_scalar(value) -> bool:
    return type(value) in (bool, int, float, complex)
