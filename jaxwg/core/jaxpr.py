"""Jaxprs: programs as plain data, the tracing that builds them, and their printing.

A `Jaxpr` is a list of equations (`JaxprEqn`: primitive, input atoms, params, output
variables) over typed variables (`Var`) and literals (`Literal`), with `constvars`
for arrays the traced function closed over. `make_jaxpr(f)(*args)` and `jit` build
one by running `f` on `JaxprTracer`s at a new, *dynamic* level of the trace stack:
every primitive applied inside, even to closed-over arrays, is recorded instead of
run. Concrete arrays that meet a tracer become constants; scalar constants become
literals. The printout follows JAX's:

>>> import jaxwg, jaxwg.numpy as jnp
>>> print(jaxwg.make_jaxpr(lambda x: jnp.sin(x) * 2.0)(jnp.ones(3)))
{ lambda ; a:f32[3]. let b:f32[3] = sin a; c:f32[3] = mul b 2.0:f32[] in (c,) }
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import numpy as np

from . import primitives as P
from . import pytree
from .array_methods import ArrayMethods
from .aval import ShapedArray
from .trace import Trace, Tracer, new_main


class Var:
    """A jaxpr variable: only its identity and its aval matter."""

    __slots__ = ("aval", "count")
    _counter = itertools.count()

    def __init__(self, aval: ShapedArray):
        self.aval = aval
        self.count = next(Var._counter)

    def __repr__(self):
        return f"Var({self.aval.str_short()})"


@dataclass(frozen=True)
class Literal:
    """A scalar constant inlined into an equation."""

    val: object
    aval: ShapedArray


@dataclass
class JaxprEqn:
    primitive: P.Primitive
    inputs: list
    params: dict
    out_binders: list


@dataclass
class Jaxpr:
    constvars: list
    invars: list
    eqns: list
    outvars: list

    def __str__(self):
        return pp_jaxpr(self)

    @property
    def in_avals(self):
        return [v.aval for v in self.invars]

    @property
    def out_avals(self):
        return [v.aval for v in self.outvars]


@dataclass
class ClosedJaxpr:
    """A jaxpr and the values of its constvars (`consts`)."""

    jaxpr: Jaxpr
    consts: list = field(default_factory=list)

    def __str__(self):
        return pp_jaxpr(self.jaxpr)

    __repr__ = __str__

    @property
    def eqns(self):
        return self.jaxpr.eqns

    @property
    def in_avals(self):
        return self.jaxpr.in_avals

    @property
    def out_avals(self):
        return self.jaxpr.out_avals


# -- tracing ----------------------------------------------------------------------------------


class JaxprTracer(Tracer, ArrayMethods):
    __slots__ = ("_aval",)

    def __init__(self, trace, aval: ShapedArray):
        self._trace = trace
        self._aval = aval

    @property
    def aval(self):
        return self._aval

    @property
    def shape(self):
        return self._aval.shape

    @property
    def dtype(self):
        return self._aval.dtype.np

    @property
    def weak_type(self):
        return self._aval.weak_type

    def __repr__(self):
        return f"Traced<{self._aval.str_short()}>"


class _Builder:
    """What one jaxpr trace has recorded: equations, constants, tracer-to-var map."""

    def __init__(self):
        self.eqns: list[JaxprEqn] = []
        self.tracer_to_var: dict[int, Var] = {}
        self.const_tracers: dict[int, JaxprTracer] = {}  # id(value) -> tracer
        self.constvals: dict[int, object] = {}  # id(var) -> value
        self.literals: dict[int, Literal] = {}  # id(tracer) -> literal
        self.tracers: list[JaxprTracer] = []

    def new_tracer(self, trace, aval) -> JaxprTracer:
        tracer = JaxprTracer(trace, aval)
        self.tracers.append(tracer)
        return tracer

    def add_var(self, tracer) -> Var:
        var = self.tracer_to_var[id(tracer)] = Var(tracer.aval)
        return var

    def getvar(self, tracer):
        if id(tracer) in self.literals:
            return self.literals[id(tracer)]
        return self.tracer_to_var[id(tracer)]

    def add_const(self, tracer, value) -> Var:
        var = self.add_var(tracer)
        self.constvals[id(var)] = (var, value)
        return var

    def build(self, in_tracers, out_tracers) -> ClosedJaxpr:
        invars = [self.getvar(t) for t in in_tracers]
        outvars = [self.getvar(t) for t in out_tracers]
        constvars = [var for var, _ in self.constvals.values()]
        consts = [value for _, value in self.constvals.values()]
        return ClosedJaxpr(Jaxpr(constvars, invars, list(self.eqns), outvars), consts)


class JaxprTrace(Trace):
    """Records primitives into the level's `_Builder` instead of running them."""

    @property
    def builder(self) -> _Builder:
        return self.main.global_data

    def new_arg(self, aval: ShapedArray) -> JaxprTracer:
        tracer = self.builder.new_tracer(self, aval)
        self.builder.add_var(tracer)
        return tracer

    def pure(self, value):
        from .array import Array, asarray_for_bind

        builder = self.builder
        if id(value) in builder.const_tracers and builder.const_tracers[id(value)][1] is value:
            return builder.const_tracers[id(value)][0]
        array = value if isinstance(value, Array) else asarray_for_bind(value)
        tracer = builder.new_tracer(self, array.aval)
        node = array.node
        if node.kind == "const" and not array.shape:
            builder.literals[id(tracer)] = Literal(node.arg, array.aval)
        else:
            builder.add_const(tracer, array)
        # Keep `value` alive with its tracer so the id stays unique during the trace.
        builder.const_tracers[id(value)] = (tracer, value)
        return tracer

    lift = pure

    def process_primitive(self, primitive, tracers, params):
        avals_in = [t.aval for t in tracers]
        out = P.abstract_eval_rules[primitive](*avals_in, **params)
        outs = out if primitive.multiple_results else [out]
        builder = self.builder
        out_tracers = [builder.new_tracer(self, a) for a in outs]
        inputs = [builder.getvar(t) for t in tracers]
        binders = [builder.add_var(t) for t in out_tracers]
        builder.eqns.append(JaxprEqn(primitive, inputs, params, binders))
        return out_tracers if primitive.multiple_results else out_tracers[0]


def trace_to_jaxpr(fn, in_avals) -> ClosedJaxpr:
    """Trace `fn(*flat_args) -> list of flat outputs` at avals `in_avals`."""
    builder = _Builder()
    with new_main(JaxprTrace, builder, dynamic=True) as main:
        trace = JaxprTrace(main)
        in_tracers = [trace.new_arg(a) for a in in_avals]
        outs = fn(*in_tracers)
        out_tracers = [trace.pure(o) if not (isinstance(o, JaxprTracer) and o._trace.main is main)
                       else o for o in outs]
        return builder.build(in_tracers, out_tracers)


def abstractify(value) -> ShapedArray:
    """The aval of a jit argument: arrays keep theirs; scalars are weak."""
    from .array import asarray_for_bind

    aval = getattr(value, "aval", None)
    if isinstance(aval, ShapedArray):
        return aval
    return asarray_for_bind(value).aval


def make_jaxpr(fun, static_argnums=()):
    """A function that traces `fun` at the given arguments and returns its `ClosedJaxpr`.

    >>> import jaxwg, jaxwg.numpy as jnp
    >>> print(jaxwg.make_jaxpr(lambda x, y: x + y)(jnp.ones(2), jnp.ones(())))
    { lambda ; a:f32[2] b:f32[]. let c:f32[2] = add a b in (c,) }
    """
    static = {static_argnums} if isinstance(static_argnums, int) else set(static_argnums)

    def traced(*args, **kwargs):
        dynamic = [a for i, a in enumerate(args) if i not in static]
        leaves, treedef = pytree.tree_flatten((dynamic, kwargs))
        in_avals = [abstractify(x) for x in leaves]

        def flat_fn(*flat):
            dyn, kw = pytree.tree_unflatten(treedef, flat)
            it = iter(dyn)
            full = [a if i in static else next(it) for i, a in enumerate(args)]
            return pytree.tree_leaves(fun(*full, **kw))

        return trace_to_jaxpr(flat_fn, in_avals)

    return traced


def eval_jaxpr(jaxpr: Jaxpr, consts, args):
    """Run a jaxpr by binding its primitives (in whatever trace is current)."""
    env: dict[int, object] = {}

    def read(atom):
        return atom.val if isinstance(atom, Literal) else env[id(atom)]

    for var, value in zip(jaxpr.constvars, consts):
        env[id(var)] = value
    for var, value in zip(jaxpr.invars, args):
        env[id(var)] = value
    for eqn in jaxpr.eqns:
        outs = eqn.primitive.bind(*[read(a) for a in eqn.inputs], **eqn.params)
        outs = outs if eqn.primitive.multiple_results else [outs]
        for var, value in zip(eqn.out_binders, outs):
            env[id(var)] = value
    return [read(v) for v in jaxpr.outvars]


# -- printing -------------------------------------------------------------------------------


def _names():
    for n in itertools.count(1):
        for letters in itertools.product("abcdefghijklmnopqrstuvwxyz", repeat=n):
            yield "".join(letters)


def _pp_param(value) -> str:
    if isinstance(value, np.dtype):
        return value.name
    if hasattr(value, "itemsize") and hasattr(value, "kind") and hasattr(value, "name"):
        return value.name  # a jaxwg DType
    return repr(value)


def _pp_literal(lit: Literal) -> str:
    value = lit.val
    if isinstance(value, bool):
        text = str(value)
    elif lit.aval.dtype.is_float:
        text = repr(float(value))
    else:
        text = str(int(value))
    return f"{text}:{lit.aval.str_short()}"


def pp_jaxpr(jaxpr: Jaxpr) -> str:
    """JAX's printout: `{ lambda consts ; args. let eqns in (outs,) }`."""
    names: dict[int, str] = {}
    fresh = _names()

    def name(v) -> str:
        if isinstance(v, Literal):
            return _pp_literal(v)
        if id(v) not in names:
            names[id(v)] = next(fresh)
        return names[id(v)]

    def binder(v) -> str:
        return f"{name(v)}:{v.aval.str_short()}"

    consts = " ".join(binder(v) for v in jaxpr.constvars)
    args = " ".join(binder(v) for v in jaxpr.invars)
    lines = []
    for eqn in jaxpr.eqns:
        outs = " ".join(binder(v) for v in eqn.out_binders)
        params = " ".join(f"{k}={_pp_param(v)}" for k, v in sorted(eqn.params.items()))
        params = f"[{params}]" if params else ""
        ins = " ".join(name(a) for a in eqn.inputs)
        lines.append(f"{outs} = {eqn.primitive.name}{params} {ins}".rstrip())
    out_names = [name(v) for v in jaxpr.outvars]
    outs = f"({out_names[0]},)" if len(out_names) == 1 else f"({', '.join(out_names)})"
    head = f"{{ lambda {consts}; {args}. let"
    one_line = f"{head} {'; '.join(lines)} in {outs} }}"
    if len(one_line) <= 80:
        return one_line
    body = "".join(f"\n    {line}" for line in lines)
    return f"{head}{body}\n  in {outs} }}"
