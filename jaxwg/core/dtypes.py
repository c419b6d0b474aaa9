"""The element types that jaxwg kernels compute with.

A `DType` is a small immutable record: its name, its size in bytes, its NumPy
counterpart and its kind (bool, signed or unsigned integer, float, complex). Everything
that depends on a dtype reads these records or a table keyed by them, never an if-chain
over names, so adding a dtype is one row here and one row in each table that needs it.

Kernels never see a complex dtype: a complex array is stored as pairs of its `PART`
float (real, imaginary: NumPy's layout), and the frontend lowers complex arithmetic to
arithmetic on the parts (`jaxwg/frontend/complex_lowering.py`). Nor do they see a key
dtype (`KeyDType`, JAX's extended dtype of typed PRNG keys): a key array is stored as
each key's two uint32 words, the same way (`PAIRED`).

>>> from jaxwg.core.dtypes import float32, from_numpy
>>> float32.itemsize, float32.np
(4, dtype('float32'))
>>> from_numpy("int32").name
'int32'
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class DType:
    """One element type: `name`, `itemsize` (bytes), `kind` ('b', 'i', 'u', 'f' or 'c')."""

    name: str
    itemsize: int
    kind: str

    @property
    def np(self) -> np.dtype:
        """The NumPy dtype with the same values and layout."""
        return np.dtype(self.name)

    @property
    def is_float(self) -> bool:
        return self.kind == "f"

    @property
    def is_complex(self) -> bool:
        return self.kind == "c"

    @property
    def is_inexact(self) -> bool:
        """True for floats and complex numbers (NumPy's `inexact`)."""
        return self.kind in "fc"

    @property
    def is_int(self) -> bool:
        """True for signed and unsigned integers (not bool)."""
        return self.kind in "iu"

    @property
    def is_unsigned(self) -> bool:
        return self.kind == "u"

    @property
    def is_bool(self) -> bool:
        return self.kind == "b"

    @property
    def is_key(self) -> bool:
        """True for the dtypes of typed PRNG keys (`KeyDType`)."""
        return self.kind == "K"

    @property
    def bits(self) -> int:
        return self.itemsize * 8

    def __repr__(self) -> str:
        return self.name


bool_ = DType("bool", 1, "b")
int8 = DType("int8", 1, "i")
uint8 = DType("uint8", 1, "u")
int16 = DType("int16", 2, "i")
uint16 = DType("uint16", 2, "u")
int32 = DType("int32", 4, "i")
uint32 = DType("uint32", 4, "u")
float16 = DType("float16", 2, "f")
float32 = DType("float32", 4, "f")
float64 = DType("float64", 8, "f")
complex64 = DType("complex64", 8, "c")
complex128 = DType("complex128", 16, "c")


@dataclass(frozen=True, repr=False)
class KeyDType(DType):
    """The dtype of typed PRNG key arrays of one implementation (`impl`), JAX's extended
    dtype: `key<fry>` for Threefry-2x32. It has no NumPy counterpart; `np` is itself.

    >>> from jaxwg.core.dtypes import key_fry
    >>> key_fry, key_fry.np, key_fry.is_key, key_fry.is_int
    (key<fry>, key<fry>, True, False)
    """

    impl: str = "threefry2x32"

    @property
    def np(self) -> KeyDType:
        return self


key_fry = KeyDType("key<fry>", 8, "K", "threefry2x32")

# The kernels' dtypes; arrays add the complex ones.
ALL = (bool_, int8, uint8, int16, uint16, int32, uint32, float16, float32, float64)
COMPLEX = (complex64, complex128)
FLOATS = (float16, float32, float64)
INTS = (int8, uint8, int16, uint16, int32, uint32)
# Each complex dtype and the float of its real and imaginary parts (how it is stored).
PART = {complex64: float32, complex128: float64}
COMPLEX_OF = {part: c for c, part in PART.items()}
# The dtypes stored as pairs on a trailing axis of 2, and the dtype of each half: a
# complex number's parts, a Threefry key's two words.
PAIRED = {**PART, key_fry: uint32}
# Each float's exponent and (stored) mantissa bits.
FLOAT_FIELDS = {float16: (5, 10), float32: (8, 23), float64: (11, 52)}
# Integers narrower than 32 bits and the 32-bit integer of the same signedness that
# holds and computes them where no narrower type exists (WGSL): see `core/widen.py`.
WIDENED = {int8: int32, uint8: uint32, int16: int32, uint16: uint32}
# Each integer and the unsigned integer of its width (logical shifts, bit counts).
UNSIGNED = {int8: uint8, uint8: uint8, int16: uint16, uint16: uint16, int32: uint32, uint32: uint32}
# Each integer and the signed integer of its width (arithmetic shifts).
SIGNED = {int8: int8, uint8: int8, int16: int16, uint16: int16, int32: int32, uint32: int32}
_BY_NAME = {d.name: d for d in ALL + COMPLEX}


def bounds(dtype: DType) -> tuple:
    """The smallest and largest value of `dtype` (bool as 0 and 1, floats as +-inf).

    >>> bounds(int32)
    (-2147483648, 2147483647)
    """
    if dtype.is_bool:
        return (0, 1)
    if dtype.is_int:
        info = np.iinfo(dtype.np)
        return (int(info.min), int(info.max))
    return (-float("inf"), float("inf"))


def from_numpy(dtype) -> DType:
    """The jaxwg dtype for a NumPy dtype (or anything `np.dtype` accepts).

    >>> from_numpy(np.float32)
    float32
    """
    name = np.dtype(dtype).name
    try:
        return _BY_NAME[name]
    except KeyError:
        supported = ", ".join(d.name for d in ALL + COMPLEX)
        raise TypeError(f"jaxwg does not support dtype {name}; supported: {supported}") from None

