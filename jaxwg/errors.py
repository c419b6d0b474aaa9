"""JAX's error types, raised where JAX raises them.

Tracer conversions (`bool(tracer)`, `int(tracer)`, `np.asarray(tracer)`) fail with
the `ConcretizationTypeError` family, all `TypeError`s as in JAX, so code that
catches JAX's errors catches these.

>>> issubclass(TracerBoolConversionError, ConcretizationTypeError)
True
"""

from __future__ import annotations


class JAXTypeError(TypeError):
    """Base of the tracing errors (a TypeError)."""


class ConcretizationTypeError(JAXTypeError):
    """A traced value was used where Python needs a concrete one."""


class TracerBoolConversionError(ConcretizationTypeError):
    """`bool()` of a traced value, e.g. `if x > 0:` inside `jit`."""


class TracerIntegerConversionError(JAXTypeError):
    """`int()` or `__index__` of a traced value."""


class TracerArrayConversionError(JAXTypeError):
    """`np.asarray()` of a traced value."""


class UnexpectedTracerError(JAXTypeError):
    """A tracer escaped the transformation that created it."""


class JAXIndexError(IndexError):
    """Base of the indexing errors (an IndexError)."""


class NonConcreteBooleanIndexError(JAXIndexError):
    """A boolean index whose values are not known while tracing: the shape of the result
    would depend on them (use `jnp.where` instead)."""


def concretization_message(what: str, aval) -> str:
    return (f"Attempted {what} of traced array with shape {aval.str_short()}.\n"
            "The value is not known while tracing (inside jit or make_jaxpr). Use "
            "static_argnums for values that decide Python control flow, or jnp.where / "
            "lax.cond for data-dependent choices.")
