"""Saving and loading arrays in NumPy's `.npy` and `.npz` formats, through host memory:
`save`, `savez` write an array's value as NumPy would; `load` reads a `.npy` file into a
jaxwg array (a `.npz` file gives NumPy's lazy `NpzFile`, as in JAX). Printing is NumPy's,
as in JAX: `array_repr`, `array_str`, `printoptions`, `get_printoptions`,
`set_printoptions` (arrays print through NumPy, so its print options apply), and
`iterable`.

>>> import io, jaxwg.numpy as jnp
>>> f = io.BytesIO()
>>> jnp.save(f, jnp.arange(3)); _ = f.seek(0)
>>> jnp.load(f)
Array([0, 1, 2], dtype=int32)
"""

from __future__ import annotations

import numpy as np

from .creation import asarray

__all__ = ["array_repr", "array_str", "get_printoptions", "iterable", "load", "printoptions",
           "save", "savez", "set_printoptions"]

# NumPy's own functions, as JAX's jnp has them: they read arrays through `__array__`.
array_repr = np.array_repr
array_str = np.array_str
iterable = np.iterable
printoptions = np.printoptions
get_printoptions = np.get_printoptions
set_printoptions = np.set_printoptions


def save(file, arr, allow_pickle=True):
    """Write `arr` to a `.npy` file (a path, to which `.npy` is appended, or a file object).

    >>> import io, jaxwg.numpy as jnp
    >>> f = io.BytesIO()
    >>> jnp.save(f, jnp.ones(2)); f.tell() > 0
    True
    """
    np.save(file, np.asarray(arr), allow_pickle=allow_pickle)


def savez(file, *args, allow_pickle=True, **kwds):
    """Write several arrays to an uncompressed `.npz` file: positional ones as `arr_0`,
    `arr_1`, ..., keyword ones under their names.

    >>> import io, jaxwg.numpy as jnp
    >>> f = io.BytesIO()
    >>> jnp.savez(f, jnp.arange(2), w=jnp.ones(3)); _ = f.seek(0)
    >>> sorted(jnp.load(f).files)
    ['arr_0', 'w']
    """
    np.savez(file, *[np.asarray(a) for a in args], allow_pickle=allow_pickle,
             **{name: np.asarray(a) for name, a in kwds.items()})


def load(file, *args, **kwargs):
    """Read a `.npy` file as a jaxwg array (`np.load`'s arguments); data of a dtype jaxwg
    does not have stays a NumPy array, and `.npz` files give NumPy's `NpzFile`.

    >>> import io, numpy as np, jaxwg.numpy as jnp
    >>> f = io.BytesIO()
    >>> np.save(f, np.float32([1.5, 2.5])); _ = f.seek(0)
    >>> jnp.load(f)
    Array([1.5, 2.5], dtype=float32)
    """
    out = np.load(file, *args, **kwargs)
    if isinstance(out, np.ndarray):
        try:
            return asarray(out)
        except TypeError:  # strings, objects, complex: no jaxwg dtype
            return out
    return out
