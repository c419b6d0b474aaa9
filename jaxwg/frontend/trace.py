"""The trace stack and `bind`: how a primitive application finds its interpreter.

Every transformation is an *interpreter* of primitives, a `Trace`. Active traces form
a stack of `MainTrace` levels; the bottom one (level 0) is the `EvalTrace`, which runs
primitives eagerly on concrete `Array`s (building lazy kernel graphs, see
`jaxwg.frontend.lazy`). A transformation pushes a level (`new_main`), wraps its inputs
in its own `Tracer`s, runs the function, and reads the results off its tracers.

`bind(prim, *args, **params)` applies a primitive: it picks the trace of the highest
level among the arguments (and the *dynamic* trace, which `jit` and `make_jaxpr` set
so that operations on closed-over arrays are staged too), lifts every argument into
that trace and calls its `process_primitive`. This is autodidax's design; adding a
transformation is a new Trace/Tracer pair plus its rule table.

The stack is per thread, as JAX's: each thread starts at its own eval level, so
threads may trace (`jit`, `make_jaxpr`) and run eagerly side by side. A tracer used
after its transformation has finished, or in another thread, raises
`UnexpectedTracerError` naming the function that was being traced.

>>> from jaxwg.frontend import primitives as P
>>> import jaxwg.numpy as jnp
>>> bind(P.add_p, jnp.ones(2), jnp.ones(2))
Array([2., 2.], dtype=float32)
"""

from __future__ import annotations

import contextlib
import threading
from typing import Any

from .. import errors
from .basearray import Array


class MainTrace:
    """One level of the trace stack: the Trace class to use and data it shares.

    `debug_info` says what is traced, e.g. "f at model.py:3 traced for jit"
    (`describe_traced`); leak errors quote it.
    """

    __slots__ = ("debug_info", "global_data", "level", "trace_type")

    def __init__(self, level: int, trace_type: type, global_data: Any, debug_info=None):
        self.level = level
        self.trace_type = trace_type
        self.global_data = global_data
        self.debug_info = debug_info

    def __repr__(self):
        return f"MainTrace({self.level}, {self.trace_type.__name__})"


class Trace:
    """An interpreter of primitives at one level of the stack."""

    def __init__(self, main: MainTrace):
        self.main = main

    def pure(self, value):
        """A value of a lower level (or a Python/NumPy constant) as a tracer of this trace."""
        raise NotImplementedError

    lift = pure

    def process_primitive(self, primitive, tracers, params):
        raise NotImplementedError


@Array.register
class Tracer:
    """A value of a trace. Subclasses define `aval`; `jaxwg.numpy` attaches the Array methods."""

    __slots__ = ("_trace",)
    __array_priority__ = 1000

    @property
    def aval(self):
        raise NotImplementedError

    @property
    def shape(self):
        return self.aval.shape

    @property
    def dtype(self):
        return self.aval.dtype.np

    @property
    def weak_type(self):
        return self.aval.weak_type

    def full_lower(self):
        return self

    # Python needs concrete values for these; a tracer has none.
    def _concretization_error(self, what: str) -> errors.JAXTypeError:
        return errors.concretization_error(what, self.aval, self._trace.main.debug_info)

    def _tracing_context(self) -> str:
        """The lines of JAX's errors naming the traced function (and, in a jaxpr trace,
        the arguments this value came from); empty where unknown."""
        return errors.tracing_context(self._trace.main.debug_info)

    def __bool__(self):
        raise self._concretization_error("bool")

    def __int__(self):
        raise self._concretization_error("int")

    def __float__(self):
        raise self._concretization_error("float")

    def __complex__(self):
        raise self._concretization_error("complex")

    def __index__(self):
        raise self._concretization_error("index")

    def __array__(self, dtype=None, copy=None):
        raise self._concretization_error("array")

    def item(self):
        raise self._concretization_error("item")

    def tolist(self):
        raise self._concretization_error("tolist")


class EvalTrace(Trace):
    """Level 0: primitives run on concrete arrays (lazily, through the kernel graph)."""

    def pure(self, value):
        from .array import asarray_for_bind

        return asarray_for_bind(value)

    lift = pure

    def process_primitive(self, primitive, args, params):
        from .array import eager_apply

        return eager_apply(primitive, args, params)


class _ThreadState(threading.local):
    """The calling thread's trace stack; a thread starts with only its eval level."""

    def __init__(self):
        eval_main = MainTrace(0, EvalTrace, None)
        self.stack = [eval_main]  # every active level, innermost last
        self.dynamic = [eval_main]  # the levels that stage every operation


_state = _ThreadState()


class _DynamicView:
    """The calling thread's dynamic levels, read-only, for importers: `jit` asks
    `len(_dynamic) > 1` to tell whether it is called inside a trace."""

    __slots__ = ()

    def __len__(self) -> int:
        return len(_state.dynamic)

    def __getitem__(self, index) -> MainTrace:
        return _state.dynamic[index]


_dynamic = _DynamicView()


@contextlib.contextmanager
def new_main(trace_type: type, global_data=None, dynamic: bool = False, debug_info=None):
    """Push a level for `trace_type` on this thread's stack; with `dynamic`, stage
    every operation into it. `debug_info` names what is traced (see MainTrace)."""
    state = _state
    main = MainTrace(len(state.stack), trace_type, global_data, debug_info)
    state.stack.append(main)
    if dynamic:
        state.dynamic.append(main)
    try:
        yield main
    finally:
        if dynamic:
            state.dynamic.pop()
        state.stack.pop()


def _named_level(axis_name) -> MainTrace:
    """The innermost active level that binds the axis `axis_name`: levels that bind
    named axes (vmap's) keep `axis_name` and `size` in their `global_data`."""
    for main in reversed(_state.stack):
        if axis_name is not None and getattr(main.global_data, "axis_name", None) == axis_name:
            return main
    raise NameError(f"unbound axis name: {axis_name}")


def axis_size(axis_name) -> int:
    """The size of the innermost active axis named `axis_name`."""
    return _named_level(axis_name).global_data.size


def axis_env() -> tuple:
    """The active named axes as (name, size) pairs, outermost first: what a traced
    collective (`pmean`'s divisor, `all_gather`'s shape) depends on beyond its avals."""
    return tuple((main.global_data.axis_name, main.global_data.size) for main in _state.stack
                 if getattr(main.global_data, "axis_name", None) is not None)


def describe_traced(fun, purpose: str) -> str:
    """How leak errors name a traced function: its name, where it is defined, and
    the transformation.

    >>> def f(x):
    ...     return x
    >>> describe_traced(f, "jit").startswith("f at ") and describe_traced(f, "jit")[-14:]
    'traced for jit'
    """
    return f"{fun_sourceinfo(fun)} traced for {purpose}"


def fun_sourceinfo(fun) -> str:
    """A function's name and where it is defined, as JAX's error messages name it.

    >>> def f(x):
    ...     return x
    >>> fun_sourceinfo(f).startswith("f at ")
    True
    """
    name = getattr(fun, "__name__", None) or repr(fun)
    code = getattr(fun, "__code__", None)
    where = f" at {code.co_filename}:{code.co_firstlineno}" if code is not None else ""
    return f"{name}{where}"


def wraps(wrapped, docstr: str | None = None, **fields):
    """Decorator: the transformed function takes `wrapped`'s name, qualname, module,
    attributes and `__wrapped__`, and `docstr` formatted with `fun` (the name), `doc`
    (the wrapped docstring) and `fields` as its docstring (default: the wrapped one),
    as JAX's transformations do.

    >>> def f(x):
    ...     "Doubles."
    >>> @wraps(f, "Vectorized {fun}. {doc}")
    ... def g(x):
    ...     pass
    >>> g.__name__, g.__doc__
    ('f', 'Vectorized f. Doubles.')
    """
    def decorate(fun):
        name = getattr(wrapped, "__name__", None) or getattr(
            getattr(wrapped, "func", None), "__name__", "<unnamed function>")  # a partial
        doc = getattr(wrapped, "__doc__", "") or ""
        fun.__dict__.update(getattr(wrapped, "__dict__", {}))
        fun.__annotations__ = getattr(wrapped, "__annotations__", {})
        fun.__name__ = name
        fun.__qualname__ = getattr(wrapped, "__qualname__", name)
        fun.__module__ = getattr(wrapped, "__module__", "<unknown module>")
        fun.__doc__ = doc if docstr is None else docstr.format(fun=name, doc=doc, **fields)
        fun.__wrapped__ = wrapped
        return fun

    return decorate


def _check_alive(tracer) -> None:
    """Raise UnexpectedTracerError unless `tracer`'s level is on this thread's stack."""
    main = tracer._trace.main
    stack = _state.stack
    if main.level < len(stack) and stack[main.level] is main:
        return
    origin = (f"\nThe function being traced when the value leaked was {main.debug_info}."
              if main.debug_info else "")
    raise errors.UnexpectedTracerError(
        "Encountered an unexpected tracer. A function transformed by jaxwg had a side "
        "effect, allowing for a reference to an intermediate value with type "
        f"{tracer.aval.str_short()} wrapped in a {type(tracer).__name__} to escape the scope "
        "of the transformation (or to reach another thread).\nJAX transformations require "
        "that functions explicitly return their outputs, and disallow saving intermediate "
        f"values to global state.{origin}")


def find_top_trace(args, axis_names=()) -> Trace:
    """The trace of the highest level among `args`, the dynamic level and, for a
    collective, the levels binding `axis_names`: a collective of a value such a level
    does not see (a constant, an unbatched value) is still its to reduce, as in JAX."""
    top = _state.dynamic[-1]
    for name in axis_names:
        named = _named_level(name)
        if named.level > top.level:
            top = named
    leader = None
    for x in args:
        if isinstance(x, Tracer) and x._trace.main.level > top.level:
            top, leader = x._trace.main, x
    if leader is not None:  # a tracer's level, which may have ended (a leak)
        _check_alive(leader)
    return top.trace_type(top)


def full_raise(trace: Trace, value):
    """`value` as a tracer of `trace`, checking that a tracer did not escape its level."""
    if isinstance(value, Tracer):
        main = value._trace.main
        if main is trace.main:
            return value
        _check_alive(value)
        if main.level < trace.main.level:
            return trace.lift(value)
        raise errors.UnexpectedTracerError(
            f"Tracer of shape {value.aval.str_short()} belongs to a different trace at "
            f"level {main.level}")
    return trace.pure(value)


def full_lower(value):
    return value.full_lower() if isinstance(value, Tracer) else value


def _axis_names(primitive, params) -> tuple:
    """The named axes a collective binds: its `axis_name`, or the names among its
    `axes` (psum's, which may also hold positions)."""
    if "axis_name" in params:
        return (params["axis_name"],)
    if primitive.named_axes:
        return tuple(a for a in params["axes"] if not isinstance(a, int))
    return ()


def bind(primitive, *args, **params):
    """Apply `primitive` to `args` in the innermost relevant trace (see module doc)."""
    trace = find_top_trace(args, _axis_names(primitive, params))
    tracers = [full_raise(trace, a) for a in args]
    outs = trace.process_primitive(primitive, tracers, params)
    if primitive.multiple_results:
        return [full_lower(o) for o in outs]
    return full_lower(outs)

