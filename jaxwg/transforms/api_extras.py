"""Small top-level helpers of `jax`: `named_call` and `named_scope` (names for profilers;
jaxwg's jaxprs keep none, so both only check their arguments), `ensure_compile_time_eval`,
`clear_caches`, `typeof` and `local_device_count`.

>>> import jaxwg, jaxwg.numpy as jnp
>>> jaxwg.typeof(jnp.ones(2))
ShapedArray(float32[2])
"""

from __future__ import annotations

import contextlib
import functools

from ..frontend import trace
from ..frontend.array import aval_of

__all__ = ["clear_caches", "ensure_compile_time_eval", "local_device_count", "named_call",
           "named_scope", "typeof"]


def named_call(fun, *, name: str | None = None):
    """`fun` under the name `name` (its own by default) for profilers: jaxwg keeps no names
    in its programs, so this is `fun` itself, wrapped.

    >>> import jaxwg
    >>> jaxwg.named_call(lambda x: x + 1, name="inc")(1)
    2
    """
    name = fun.__name__ if name is None else name

    @functools.wraps(fun)
    def named(*args, **kwargs):
        with named_scope(name):
            return fun(*args, **kwargs)

    return named


@contextlib.contextmanager
def named_scope(name: str):
    """A context in which operations take the name `name` for profilers (jaxwg keeps none).

    >>> import jaxwg
    >>> with jaxwg.named_scope("layer1"):
    ...     pass
    """
    if not isinstance(name, str):
        raise TypeError("named_scope name argument must be a string.")
    yield


@contextlib.contextmanager
def ensure_compile_time_eval():
    """A context in which operations on values that are not traced run at once, even
    inside `jit` (where they would otherwise be staged into the program), as JAX's.

    >>> import jaxwg, jaxwg.numpy as jnp
    >>> @jaxwg.jit
    ... def f(x):
    ...     with jaxwg.ensure_compile_time_eval():
    ...         n = int(jnp.arange(4).sum())  # concrete: an int is fine
    ...     return x * n
    >>> f(1.0).item()
    6.0
    """
    state = trace._state
    state.dynamic.append(state.stack[0])  # the eval level, innermost for untraced values
    try:
        yield
    finally:
        state.dynamic.pop()


def clear_caches() -> None:
    """Empty the compiled-program and trace caches of every jitted function (and the
    programs of while loops' steps).

    >>> import jaxwg
    >>> jaxwg.clear_caches()
    """
    from ..frontend import control_flow, jit

    control_flow._STEP_PROGRAMS.clear()
    with jit._SHARED_CACHES_LOCK:
        for by_options in list(jit._SHARED_CACHES.values()):
            for caches in by_options.values():
                for cache in caches:
                    cache.clear()


def typeof(x):
    """The abstract value (`ShapedArray`: shape, dtype, weak type) of `x`, as `jax.typeof`.

    >>> import jaxwg
    >>> jaxwg.typeof(1.0)
    ShapedArray(float32[], weak_type=True)
    """
    try:
        return aval_of(x)
    except TypeError:
        raise TypeError(f"Argument '{x}' of type {type(x)} is not a valid JAX type") from None


def local_device_count(backend: str | None = None) -> int:
    """How many devices this process sees (of `backend`, default the default backend).

    >>> import jaxwg
    >>> jaxwg.local_device_count() >= 1
    True
    """
    from ..frontend.device import default_platform, get_device

    return len([get_device(backend or default_platform())])  # one per platform, as `devices`
