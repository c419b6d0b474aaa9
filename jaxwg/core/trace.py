"""The trace stack and `bind`: how a primitive application finds its interpreter.

Every transformation is an *interpreter* of primitives, a `Trace`. Active traces form
a stack of `MainTrace` levels; the bottom one (level 0) is the `EvalTrace`, which runs
primitives eagerly on concrete `Array`s (building lazy kernel graphs, see
`jaxwg.core.lazy`). A transformation pushes a level (`new_main`), wraps its inputs
in its own `Tracer`s, runs the function, and reads the results off its tracers.

`bind(prim, *args, **params)` applies a primitive: it picks the trace of the highest
level among the arguments (and the *dynamic* trace, which `jit` and `make_jaxpr` set
so that operations on closed-over arrays are staged too), lifts every argument into
that trace and calls its `process_primitive`. This is autodidax's design; adding a
transformation is a new Trace/Tracer pair plus its rule table.

>>> from jaxwg.core import primitives as P
>>> import jaxwg.numpy as jnp
>>> bind(P.add_p, jnp.ones(2), jnp.ones(2))
Array([2., 2.], dtype=float32)
"""

from __future__ import annotations

import contextlib
from typing import Any

from .. import errors


class MainTrace:
    """One level of the trace stack: the Trace class to use and data it shares."""

    __slots__ = ("global_data", "level", "trace_type")

    def __init__(self, level: int, trace_type: type, global_data: Any):
        self.level = level
        self.trace_type = trace_type
        self.global_data = global_data

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


class Tracer:
    """A value of a trace. Subclasses define `aval`; Array methods come from the mixin."""

    __slots__ = ("_trace",)
    __array_priority__ = 1000

    @property
    def aval(self):
        raise NotImplementedError

    def full_lower(self):
        return self

    # Python needs concrete values for these; a tracer has none.
    def __bool__(self):
        raise errors.TracerBoolConversionError(
            errors.concretization_message("boolean conversion", self.aval))

    def __int__(self):
        raise errors.ConcretizationTypeError(
            errors.concretization_message("integer conversion", self.aval))

    def __float__(self):
        raise errors.ConcretizationTypeError(
            errors.concretization_message("float conversion", self.aval))

    def __complex__(self):
        raise errors.ConcretizationTypeError(
            errors.concretization_message("complex conversion", self.aval))

    def __index__(self):
        raise errors.TracerIntegerConversionError(
            errors.concretization_message("__index__ conversion", self.aval))

    def __array__(self, dtype=None, copy=None):
        raise errors.TracerArrayConversionError(
            errors.concretization_message("conversion to a NumPy array", self.aval))

    def item(self):
        raise errors.ConcretizationTypeError(
            errors.concretization_message("item()", self.aval))

    def tolist(self):
        raise errors.ConcretizationTypeError(
            errors.concretization_message("tolist()", self.aval))


class EvalTrace(Trace):
    """Level 0: primitives run on concrete arrays (lazily, through the kernel graph)."""

    def pure(self, value):
        from .array import asarray_for_bind

        return asarray_for_bind(value)

    lift = pure

    def process_primitive(self, primitive, args, params):
        from .array import eager_apply

        return eager_apply(primitive, args, params)


trace_stack: list[MainTrace] = [MainTrace(0, EvalTrace, None)]
_dynamic: list[MainTrace] = [trace_stack[0]]


@contextlib.contextmanager
def new_main(trace_type: type, global_data=None, dynamic: bool = False):
    """Push a level for `trace_type`; with `dynamic`, stage every operation into it."""
    main = MainTrace(len(trace_stack), trace_type, global_data)
    trace_stack.append(main)
    if dynamic:
        _dynamic.append(main)
    try:
        yield main
    finally:
        if dynamic:
            _dynamic.pop()
        trace_stack.pop()


def find_top_trace(args) -> Trace:
    top = _dynamic[-1]
    for x in args:
        if isinstance(x, Tracer) and x._trace.main.level > top.level:
            top = x._trace.main
    return top.trace_type(top)


def full_raise(trace: Trace, value):
    """`value` as a tracer of `trace`, checking that a tracer did not escape its level."""
    if isinstance(value, Tracer):
        level = value._trace.main.level
        if value._trace.main is trace.main:
            return value
        if level < trace.main.level:
            return trace.lift(value)
        if level > trace.main.level or value._trace.main not in trace_stack:
            raise errors.UnexpectedTracerError(
                f"Encountered an unexpected tracer of shape {value.aval.str_short()}: a value "
                "from a transformation that has finished (e.g. stored in a global or a "
                "closure inside jit) was used outside of it.")
        raise errors.UnexpectedTracerError(
            f"Tracer of shape {value.aval.str_short()} belongs to a different trace at "
            f"level {level}")
    return trace.pure(value)


def full_lower(value):
    return value.full_lower() if isinstance(value, Tracer) else value


def bind(primitive, *args, **params):
    """Apply `primitive` to `args` in the innermost relevant trace (see module doc)."""
    trace = find_top_trace(args)
    tracers = [full_raise(trace, a) for a in args]
    outs = trace.process_primitive(primitive, tracers, params)
    if primitive.multiple_results:
        return [full_lower(o) for o in outs]
    return full_lower(outs)

