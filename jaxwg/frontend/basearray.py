"""`jaxwg.Array`: the type of every jaxwg array value, as `jax.Array` is JAX's.

An abstract base class: `isinstance(x, jaxwg.Array)` holds for a concrete array
(`frontend.array.ArrayImpl`), for a tracer inside `jit`, `grad`, `vmap` or a loop
body (`frontend.trace.Tracer`), and for a typed key array (`jaxwg.random.key`), so
code that checks for arrays behaves the same under a transformation. `type(x)` is one
of those classes, never `Array` itself; `jaxwg.numpy.ndarray` is this class too.

The concrete classes register here rather than inherit, so that checks inside jaxwg
for one of them stay plain class checks. `jaxwg.numpy` attaches the operators and
methods (`x.sum()`, `x.at[...]`) to this class as well, where the API reference and
`help(jaxwg.Array)` find them; every array has `shape`, `dtype`, `ndim`, `size`,
`weak_type` and `device` besides.

>>> import jaxwg, jaxwg.numpy as jnp
>>> x = jnp.arange(3.0)
>>> isinstance(x, jaxwg.Array), type(x) is jaxwg.Array
(True, False)
>>> bool(jaxwg.jit(lambda v: isinstance(v, jaxwg.Array))(x))  # v is a tracer
True
"""

from __future__ import annotations

import abc


class Array(abc.ABC):
    """The type of every jaxwg array (module docstring): concrete arrays, tracers and
    typed key arrays are instances."""

    __slots__ = ()

    # Declared for the API reference; concrete arrays define them, as JAX's do.
    @abc.abstractmethod
    def block_until_ready(self):
        """Compute this array and wait for the device to finish it; returns the array."""

    @abc.abstractmethod
    def delete(self) -> None:
        """Drop this array's value (its memory goes back once nothing else uses it); any
        later use raises RuntimeError."""
