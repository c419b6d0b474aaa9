"""JAX's error types, raised where JAX raises them.

Tracer conversions (`bool(tracer)`, `int(tracer)`, `np.asarray(tracer)`) fail with
the `ConcretizationTypeError` family, all `TypeError`s as in JAX, so code that
catches JAX's errors catches these.

>>> issubclass(TracerBoolConversionError, ConcretizationTypeError)
True

Device faults are RuntimeErrors, as JAX's XlaRuntimeError is: `ResourceExhaustedError`
when the device has no memory for an allocation (its message starts as JAX's,
"RESOURCE_EXHAUSTED: Out of memory while trying to allocate N bytes"), and
`DeviceLostError` when the WebGPU device was lost (`jaxwg.clear_backends()`
opens a new one).

>>> issubclass(ResourceExhaustedError, RuntimeError), issubclass(DeviceLostError, RuntimeError)
(True, True)
"""

from __future__ import annotations

# Raised by the backends, which cannot import this module (tests/test_layout.py).
from .backend.base import DeviceLostError, ResourceExhaustedError  # noqa: F401


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


class NotImplementedInJaxwg(AttributeError, NotImplementedError):
    """A name JAX has and jaxwg does not implement yet: an AttributeError, so `hasattr`
    stays False and `getattr(module, name, default)` works, and a NotImplementedError,
    which says what it is."""


class ModuleNotImplementedInJaxwg(ModuleNotFoundError, NotImplementedError):
    """`import jaxwg.x` of a module JAX has (`jax.x`) and jaxwg does not implement yet: a
    ModuleNotFoundError (so `except ImportError` works) that says what it is."""


class MissingModuleFinder:
    """Last on `sys.meta_path` (once jaxwg is imported): a `jaxwg.<...>.x` module no other
    finder found, whose JAX counterpart exists (`jaxwg._jax_names`), raises
    `ModuleNotImplementedInJaxwg` instead of a bare ModuleNotFoundError.

    >>> import importlib
    >>> try:
    ...     importlib.import_module("jaxwg.experimental")
    ... except ModuleNotImplementedInJaxwg as e:
    ...     print(e)
    jax.experimental is not implemented in jaxwg yet (No module named 'jaxwg.experimental')
    """

    def find_spec(self, fullname: str, path=None, target=None):
        from ._jax_names import JAX_NAMES

        parent, _, name = fullname.rpartition(".")
        if name in JAX_NAMES.get(parent, ()):
            jax_module = "jax" + fullname[len("jaxwg"):]
            raise ModuleNotImplementedInJaxwg(
                f"{jax_module} is not implemented in jaxwg yet (No module named {fullname!r})",
                name=fullname)
        return None


def missing_attribute(module: str, name: str, jax_names) -> AttributeError:
    """The error for `module.name` that does not exist: NotImplementedInJaxwg when JAX's
    module has `name` (`jax_names`), else Python's plain AttributeError.

    >>> missing_attribute("jaxwg.numpy", "fft", {"fft"})
    NotImplementedInJaxwg("jax.numpy.fft is not implemented in jaxwg yet (module 'jaxwg.numpy' has no attribute 'fft')")
    >>> missing_attribute("jaxwg.numpy", "nope", {"fft"})
    AttributeError("module 'jaxwg.numpy' has no attribute 'nope'")
    """
    plain = f"module {module!r} has no attribute {name!r}"
    if name in jax_names:
        jax_module = "jax" + module[len("jaxwg"):]
        return NotImplementedInJaxwg(f"{jax_module}.{name} is not implemented in jaxwg yet ({plain})")
    return AttributeError(plain)


def module_getattr(module: str):
    """The module-level `__getattr__` of `module` (called for names it lacks): the error of
    `missing_attribute`, against the names of JAX's module (`jaxwg._jax_names`).

    >>> import jaxwg.numpy as jnp
    >>> hasattr(jnp, "nope"), isinstance(AttributeError(), NotImplementedInJaxwg)
    (False, False)
    """
    from ._jax_names import JAX_NAMES

    jax_names = JAX_NAMES[module]

    def __getattr__(name: str):
        raise missing_attribute(module, name, jax_names)

    return __getattr__


def module_dir(module: str):
    """The module-level `__dir__` of `module`, as clean as JAX's: its `__all__`, the names
    it has that JAX's module has (`jaxwg._jax_names`) and its dunder names, not the helpers
    and modules its code imports.

    >>> import jaxwg.nn
    >>> "relu" in dir(jaxwg.nn), "custom_jvp" in dir(jaxwg.nn), hasattr(jaxwg.nn, "custom_jvp")
    (True, False, True)
    """
    import sys

    from ._jax_names import JAX_NAMES

    namespace = vars(sys.modules[module])
    jax_names = JAX_NAMES[module]

    def __dir__():
        return sorted(set(namespace.get("__all__", ())) | {
            name for name in namespace if name in jax_names or name.startswith("__")})

    return __dir__


def _shape(aval) -> str:
    return f"{aval.dtype.name}[{','.join(map(str, aval.shape))}]"


def tracing_context(debug_info: str | None, arg_names=()) -> str:
    """JAX's lines naming the traced function, from a trace's `debug_info` ("f at
    file.py:3 traced for jit", see `jaxwg.frontend.trace.describe_traced`), and the
    arguments the value depends on."""
    if not debug_info:
        return ""
    function, _, purpose = debug_info.rpartition(" traced for ")
    text = f"\nThe error occurred while tracing the function {function} for {purpose}."
    if arg_names:
        plural = "s" if len(arg_names) > 1 else ""
        text += (" This concrete value was not available in Python because it depends on "
                 f"the value{plural} of {_arguments_phrase(arg_names)}.")
    return text


def _arguments_phrase(names) -> str:
    """ "the argument x", "the arguments x and y", "the arguments x, y, and z"."""
    *rest, last = names
    if not rest:
        return f"the argument {last}"
    if len(rest) == 1:
        return f"the arguments {rest[0]} and {last}"
    return f"the arguments {', '.join(rest)}, and {last}"


def _abstract_value(aval) -> str:
    return ("Abstract tracer value encountered where concrete value is expected: traced "
            f"array with shape {_shape(aval)}\n")


def concretization_error(what: str, aval, debug_info: str | None = None,
                         arg_names=()) -> JAXTypeError:
    """The error JAX raises when Python needs the value of a traced array: `what` is
    "bool", "int", "float", "complex", "index", "array", "item" or "tolist", or a sentence
    saying what needed it (JAX's `concrete_or_error` context: "It arose in the jnp.arange
    argument 'stop'"); the message is JAX's, ending with the traced function (`debug_info`)
    where it is known and the arguments the value was computed from (`arg_names`).

    >>> from jaxwg.frontend.aval import ShapedArray
    >>> from jaxwg.core import dtypes as dt
    >>> e = concretization_error("bool", ShapedArray((), dt.bool_), "f at m.py:3 traced for jit",
    ...                          ["x"])
    >>> print(type(e).__name__, e)
    TracerBoolConversionError Attempted boolean conversion of traced array with shape bool[].
    The error occurred while tracing the function f at m.py:3 for jit. This concrete value was not available in Python because it depends on the value of the argument x.
    """
    shape, context = _shape(aval), tracing_context(debug_info, arg_names)
    if what == "bool":
        return TracerBoolConversionError(
            f"Attempted boolean conversion of traced array with shape {shape}.{context}")
    if what == "index":
        return TracerIntegerConversionError(
            f"The __index__() method was called on traced array with shape {shape}{context}")
    if what == "array":
        return TracerArrayConversionError("The numpy.ndarray conversion method __array__() was "
                                          f"called on traced array with shape {shape}{context}")
    if what == "item":
        return ConcretizationTypeError(f"{_abstract_value(aval)}This occurred in the item() "
                                       f"method of jaxwg.Array{context}")
    if what == "tolist":
        return ConcretizationTypeError(f"{_abstract_value(aval)}The tolist() method was called "
                                       f"on traced array with shape {shape}.{context}")
    if what not in ("int", "float", "complex"):
        return ConcretizationTypeError(f"{_abstract_value(aval)}{what}{context}")
    return ConcretizationTypeError(
        f"{_abstract_value(aval)}The problem arose with the `{what}` function. If trying to "
        f"convert the data type of a value, try using `x.astype({what})` or "
        f"`jnp.array(x, {what})` instead.{context}")
