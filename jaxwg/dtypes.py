"""`jaxwg.dtypes`: the dtypes JAX adds to NumPy's, as far as jaxwg has them.

`extended` and `prng_key` are the scalar classes of JAX's extended dtypes, and
`KeyDType` (`jaxwg.core.dtypes`) the dtype of typed PRNG key arrays
(`jaxwg.random.key`), printed `key<fry>` as JAX prints Threefry keys' dtype.
`issubdtype` is NumPy's, knowing those.

>>> from jaxwg import dtypes, random
>>> k = random.key(0)
>>> k.dtype, dtypes.issubdtype(k.dtype, dtypes.prng_key), dtypes.issubdtype(k.dtype, float)
(key<fry>, True, False)
"""

from __future__ import annotations

import numpy as np

from .core.dtypes import KeyDType
from .errors import missing_attribute

__all__ = ["KeyDType", "extended", "float0", "issubdtype", "prng_key"]


class extended(np.generic):
    """The scalar type of dtypes NumPy does not have (JAX's `jax.dtypes.extended`)."""


class prng_key(extended):
    """The scalar type of PRNG key dtypes (JAX's `jax.dtypes.prng_key`)."""


# The dtype of cotangents of integer and boolean values, as JAX's.
float0 = np.dtype([("float0", np.void, 0)])


def issubdtype(arg1, arg2) -> bool:
    """`np.issubdtype`, where a key dtype stands for its scalar type (`prng_key`).

    >>> import numpy as np
    >>> from jaxwg.core.dtypes import key_fry
    >>> from jaxwg.dtypes import extended, issubdtype
    >>> issubdtype(np.float32, np.floating), issubdtype(key_fry, extended)
    (True, True)
    """
    arg1 = prng_key if isinstance(arg1, KeyDType) else arg1
    arg2 = prng_key if isinstance(arg2, KeyDType) else arg2
    return bool(np.issubdtype(arg1, arg2))


# The rest of jax.dtypes (JAX 0.10.2) says it is not implemented yet.
_JAX_NAMES = frozenset({"TypePromotionError", "bfloat16", "canonicalize_dtype", "extended", "finfo",
                        "float0", "iinfo", "issubdtype", "itemsize_bits", "prng_key", "result_type",
                        "scalar_type_of"})


def __getattr__(name: str):
    raise missing_attribute(__name__, name, _JAX_NAMES)
