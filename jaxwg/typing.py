"""Type annotations for jaxwg values, as `jax.typing`: `ArrayLike` (what functions
taking arrays accept) and `DTypeLike` (what `dtype=` arguments accept).

>>> import numpy as np
>>> from jaxwg.typing import ArrayLike
>>> def norm(x: ArrayLike) -> float:
...     return float(np.linalg.norm(np.asarray(x)))
>>> norm([3.0, 4.0])
5.0
"""

from __future__ import annotations

from typing import Any, Protocol, Union

import numpy as np

from .frontend.basearray import Array

__all__ = ["ArrayLike", "DTypeLike"]


class SupportsDType(Protocol):
    """Anything with a `dtype` attribute (an array, a ShapeDtypeStruct)."""

    @property
    def dtype(self) -> Any: ...


# As JAX's: arrays, NumPy arrays and scalars, and Python scalars.
ArrayLike = Union[Array, np.ndarray, np.bool_, np.number, bool, int, float, complex]
# As JAX's: a dtype name, a scalar type, a NumPy dtype, or a value with a dtype.
DTypeLike = Union[str, type[Any], np.dtype, SupportsDType]
