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

import enum
import itertools
import re
from dataclasses import dataclass, field

import numpy as np

from .. import errors
from ..core.alu_eval import cast_array
from . import primitives as P
from . import pytree
from .array import scalar
from .aval import ShapedArray
from .complex_lowering import const_value
from .trace import Trace, Tracer, describe_traced, new_main


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

    def as_array(self):
        """The constant with its dtype and weak type (the bare `val` of a uint32 or
        float16 literal would bind as a weak int32 or float32)."""
        return scalar(self.val, self.aval.dtype, self.aval.weak_type)


@dataclass
class JaxprEqn:
    primitive: P.Primitive
    inputs: list
    params: dict
    out_binders: list


@dataclass(eq=False)  # compared and hashed by identity: printing and caches key on it
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


@dataclass(eq=False)
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


class JaxprTracer(Tracer):
    __slots__ = ("_aval",)

    def __init__(self, trace, aval: ShapedArray):
        self._trace = trace
        self._aval = aval

    @property
    def aval(self):
        return self._aval

    def __repr__(self):
        return f"Traced<{self._aval.str_short()}>"

    def _concretization_error(self, what: str):
        return errors.concretization_error(what, self.aval, self._trace.main.debug_info,
                                           self._arguments_behind())

    def _tracing_context(self) -> str:
        return errors.tracing_context(self._trace.main.debug_info, self._arguments_behind())

    def _arguments_behind(self) -> list[str]:
        builder = self._trace.builder
        names = builder.arg_names
        return [names[i] for i in builder.arguments_behind(self)] if names else []


class _Builder:
    """What one jaxpr trace has recorded: equations, constants, tracer-to-var map."""

    def __init__(self, arg_names: list[str] | None = None):
        self.arg_names = arg_names  # one per argument, for errors (JAX's debug info)
        self.invars: list[Var] = []
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

    def arguments_behind(self, tracer) -> list[int]:
        """The positions of the arguments `tracer`'s value was computed from."""
        var = self.tracer_to_var.get(id(tracer))
        needed = {id(var)} if var is not None else set()
        for eqn in reversed(self.eqns):
            if any(id(v) in needed for v in eqn.out_binders):
                needed.update(id(v) for v in eqn.inputs if isinstance(v, Var))
        return [i for i, v in enumerate(self.invars) if id(v) in needed]

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
        self.builder.invars.append(self.builder.add_var(tracer))
        return tracer

    def pure(self, value):
        from .array import ArrayImpl, asarray_for_bind

        builder = self.builder
        if id(value) in builder.const_tracers and builder.const_tracers[id(value)][1] is value:
            return builder.const_tracers[id(value)][0]
        if isinstance(value, Tracer):  # of an enclosing trace: a constant to it, for now
            tracer = builder.new_tracer(self, value.aval)
            builder.add_const(tracer, value)
            builder.const_tracers[id(value)] = (tracer, value)
            return tracer
        array = value if isinstance(value, ArrayImpl) else asarray_for_bind(value)
        tracer = builder.new_tracer(self, array.aval)
        known = const_value(array.node)
        if known is not None:
            builder.literals[id(tracer)] = Literal(known, array.aval)
        else:
            builder.add_const(tracer, array)
        # Keep `value` alive with its tracer so the id stays unique during the trace.
        # (Keyed by the value lifted, not its constant: a uint32 array holding 0 must
        # not answer for the Python int 0, a weak int32.)
        builder.const_tracers[id(value)] = (tracer, value)
        return tracer

    lift = pure

    def _folded_convert(self, tracer, *, new_dtype, weak_type):
        """A strong conversion of a literal is a literal of the new type, as JAX folds
        it (its constant-folding rule for `convert_element_type`): `jnp.sum(2.0)` sums
        `2.0:f32[]`. Non-finite floats to integers stay conversions, as in JAX."""
        literal = self.builder.literals.get(id(tracer))
        if literal is None or weak_type:
            return None
        value = np.asarray(literal.val)
        if new_dtype.is_int and value.dtype.kind in "fc" and not np.isfinite(value):
            return None
        if value.dtype.kind == "c" and not new_dtype.is_complex:
            value = value.real
        return self.pure(scalar(cast_array(value, new_dtype).item(), new_dtype, False))

    def process_primitive(self, primitive, tracers, params):
        if primitive is P.convert_element_type_p:
            folded = self._folded_convert(tracers[0], **params)
            if folded is not None:
                return folded
        avals_in = [t.aval for t in tracers]
        out = P.abstract_eval_rules[primitive](*avals_in, **params)
        outs = out if primitive.multiple_results else [out]
        builder = self.builder
        out_tracers = [builder.new_tracer(self, a) for a in outs]
        inputs = [builder.getvar(t) for t in tracers]
        binders = [builder.add_var(t) for t in out_tracers]
        builder.eqns.append(JaxprEqn(primitive, inputs, params, binders))
        return out_tracers if primitive.multiple_results else out_tracers[0]


def trace_to_jaxpr(fn, in_avals, debug_info: str | None = None,
                   arg_names: list[str] | None = None) -> ClosedJaxpr:
    """Trace `fn(*flat_args) -> list of flat outputs` at avals `in_avals`; `debug_info`
    names what is traced and `arg_names` each flat argument, for errors (a tracer that
    leaks out, a traced value Python needs: "it depends on the value of the argument x")."""
    builder = _Builder(arg_names)
    with new_main(JaxprTrace, builder, dynamic=True, debug_info=debug_info) as main:
        trace = JaxprTrace(main)
        in_tracers = [trace.new_arg(a) for a in in_avals]
        outs = fn(*in_tracers)
        out_tracers = [trace.pure(o) if not (isinstance(o, JaxprTracer) and o._trace.main is main)
                       else o for o in outs]
        return builder.build(in_tracers, out_tracers)


def hoist_tracer_consts(closed: ClosedJaxpr) -> tuple[ClosedJaxpr, list]:
    """Closure conversion: constants that are tracers of an enclosing trace (a function
    closing over a traced value) become leading arguments, returned to be passed in."""
    jaxpr = closed.jaxpr
    pairs = list(zip(jaxpr.constvars, closed.consts))
    moved = [(v, c) for v, c in pairs if isinstance(c, Tracer)]
    if not moved:
        return closed, []
    kept = [(v, c) for v, c in pairs if not isinstance(c, Tracer)]
    converted = Jaxpr([v for v, _ in kept], [v for v, _ in moved] + list(jaxpr.invars),
                      jaxpr.eqns, jaxpr.outvars)
    return ClosedJaxpr(converted, [c for _, c in kept]), [c for _, c in moved]


def live_eqns(eqns: list, outvars: list) -> list:
    """The equations that `outvars` depend on, and those with effects (debug callbacks),
    in order: dead code removed, as JAX's `dce_jaxpr` does."""
    live = {id(v) for v in outvars if isinstance(v, Var)}
    kept = []
    for e in reversed(eqns):
        if any(id(v) in live for v in e.out_binders) or has_effects(e):
            kept.append(e)
            live.update(id(a) for a in e.inputs if isinstance(a, Var))
    kept.reverse()
    return kept


def has_effects(eqn: JaxprEqn) -> bool:
    """Whether `eqn` calls back to the host, itself or in a jaxpr it calls."""
    if eqn.primitive is P.debug_callback_p:
        return True
    values = [x for v in eqn.params.values() for x in (v if isinstance(v, tuple) else (v,))]
    return any(has_effects(e) for c in values if isinstance(c, ClosedJaxpr) for e in c.jaxpr.eqns)


def trace_body(fn, avals, what: str) -> ClosedJaxpr:
    """`fn` traced at `avals` into a jaxpr for a transformed body, which closes over
    concrete values only (values of enclosing traces are its operands already)."""
    closed, captured = hoist_tracer_consts(trace_to_jaxpr(fn, list(avals), what))
    if captured:
        raise AssertionError(f"{what}: a transformed body captured a tracer")
    return closed


def call_staged(fn, args, primitive=None, **params) -> list:
    """`fn(*args) -> list of arrays`, traced at the avals of `args` and bound as one call
    of `primitive` (default: `jit`) with `params`: how transformations of a call (a
    `jit`, a `checkpoint`) stay a call."""
    from .array import aval_of

    primitive = primitive or P.jit_p
    what = f"{params.get('name', primitive.name)} traced for a call"
    closed = trace_to_jaxpr(fn, [aval_of(a) for a in args], what)
    closed, captured = hoist_tracer_consts(closed)
    return primitive.bind(*captured, *args, jaxpr=closed, **params)


def make_jaxpr(fun, static_argnums=()):
    """A function that traces `fun` at the given arguments and returns its `ClosedJaxpr`.

    >>> import jaxwg, jaxwg.numpy as jnp
    >>> print(jaxwg.make_jaxpr(lambda x, y: x + y)(jnp.ones(2), jnp.ones(())))
    { lambda ; a:f32[2] b:f32[]. let c:f32[2] = add a b in (c,) }
    """
    static = {static_argnums} if isinstance(static_argnums, int) else set(static_argnums)

    def traced(*args, **kwargs):
        from .array import aval_of  # array imports this module

        dynamic = [a for i, a in enumerate(args) if i not in static]
        leaves, treedef = pytree.tree_flatten((dynamic, kwargs))
        in_avals = [aval_of(x) for x in leaves]

        def flat_fn(*flat):
            dyn, kw = pytree.tree_unflatten(treedef, flat)
            it = iter(dyn)
            full = [a if i in static else next(it) for i, a in enumerate(args)]
            return pytree.tree_leaves(fun(*full, **kw))

        return trace_to_jaxpr(flat_fn, in_avals, describe_traced(fun, "make_jaxpr"))

    return traced


def jaxpr_as_fun(closed: ClosedJaxpr):
    """`closed` as a function of its invars' values, evaluated by `eval_jaxpr`."""
    return lambda *args: eval_jaxpr(closed.jaxpr, closed.consts, args)


def eval_jaxpr(jaxpr: Jaxpr, consts, args):
    """Run a jaxpr by binding its primitives (in whatever trace is current)."""
    env: dict[int, object] = {}

    def read(atom):
        return atom.as_array() if isinstance(atom, Literal) else env[id(atom)]

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
#
# The layout is JAX's: a document of texts, breaks, nests (indentation) and groups, and a
# group is printed on one line when all of it fits in what is left of the line (80
# columns), else its own breaks become newlines and its inner groups decide again.

_TEXT, _BREAK, _CONCAT, _NEST, _GROUP = range(5)
_WIDTH = 80


def _text(s: str) -> tuple:
    return (_TEXT, s)


def _brk(s: str = " ") -> tuple:
    """A break: `s` in a group printed flat, a newline at the indentation otherwise."""
    return (_BREAK, s)


def _concat(*docs) -> tuple:
    return (_CONCAT, docs)


def _nest(n: int, doc) -> tuple:
    return (_NEST, doc, n)


def _group(doc) -> tuple:
    return (_GROUP, doc)


def _join(sep, docs) -> tuple:
    out = []
    for i, doc in enumerate(docs):
        out += [sep, doc] if i else [doc]
    return (_CONCAT, tuple(out))


def _fits(doc, width: int) -> bool:
    """Whether `doc` printed flat takes at most `width` columns."""
    stack = [doc]
    while stack and width >= 0:
        kind, child = stack.pop()[:2]
        if kind in (_TEXT, _BREAK):
            width -= len(child)
        elif kind == _CONCAT:
            stack.extend(reversed(child))
        else:
            stack.append(child)
    return width >= 0


def _layout(doc) -> str:
    out: list[str] = []
    column = 0
    stack = [(0, False, doc)]  # (indentation, flat, document); the top level breaks
    while stack:
        indent, flat, (kind, child, *rest) = stack.pop()
        if kind == _TEXT or (kind == _BREAK and flat):
            out.append(child)
            column += len(child)
        elif kind == _BREAK:
            out.append("\n" + " " * indent)
            column = indent
        elif kind == _CONCAT:
            stack.extend((indent, flat, d) for d in reversed(child))
        elif kind == _NEST:
            stack.append((indent + rest[0], flat, child))
        else:
            stack.append((indent, _fits(child, _WIDTH - column), child))
    return "".join(out)


def _alphabetic(n: int) -> str:
    """JAX's variable names: a..z, then ba, bb, ... (base 26 with a as zero)."""
    s = ""
    while not s or n:
        n, digit = divmod(n, 26)
        s = chr(97 + digit) + s
    return s


def _dropped(jaxpr: Jaxpr) -> list:
    """The binders of `jaxpr`'s equations that nothing reads: they print as `_` (JAX's
    rule, for the printed jaxpr only; those of the jaxprs it calls keep their names)."""
    used = {id(a) for e in jaxpr.eqns for a in e.inputs} | {id(v) for v in jaxpr.outvars}
    return [v for e in jaxpr.eqns for v in e.out_binders if id(v) not in used]


class _Names:
    """Names of variables, unique across nested jaxprs, and the shared jaxprs' names;
    the `dropped` variables are all named `_`."""

    def __init__(self, shared: dict, dropped: list):
        self.shared = shared  # Jaxpr -> the name it is printed under
        self.names: dict[int, str] = {id(v): "_" for v in dropped}
        self._fresh = (s for s in map(_alphabetic, itertools.count())
                       if s not in shared.values())

    def __call__(self, atom) -> str:
        if isinstance(atom, Literal):
            return _pp_literal(atom)
        name = self.names.get(id(atom))
        if name is None:
            name = self.names[id(atom)] = next(self._fresh)
        return name

    def suggest(self, inner_vars, outer_atoms) -> None:
        """Name the variables of a called jaxpr after the caller's (each outer one once)."""
        used = set()
        for inner, outer in zip(inner_vars, outer_atoms):
            if isinstance(outer, Var) and id(outer) not in used and id(inner) not in self.names:
                used.add(id(outer))
                self.names[id(inner)] = self(outer)


def _pp_param(value) -> str:
    if isinstance(value, np.dtype):
        return value.name
    if hasattr(value, "itemsize") and hasattr(value, "kind") and hasattr(value, "name"):
        return value.name  # a jaxwg DType
    if isinstance(value, str):
        return value
    if isinstance(value, enum.IntEnum):
        return str(int(value))  # lax.FftType.FFT as JAX prints it: 0
    # Functions and other objects as JAX prints them: their text with the address hidden.
    return re.sub(r" at 0x([0-9a-fA-F]+)", lambda m: " at 0x" + "X" * len(m.group(1)), repr(value))


def _pp_literal(lit: Literal) -> str:
    value = lit.val
    if isinstance(value, bool):
        text = str(value)
    elif lit.aval.dtype.is_float:
        text = repr(float(value))
    elif lit.aval.dtype.is_complex:
        text = repr(complex(value))
    else:
        text = str(int(value))
    return f"{text}:{lit.aval.str_short()}"


def _pp_vars(atoms, names: _Names, sep: str = "", binders: bool = False) -> tuple:
    """Variables (`binders`: with their types)."""
    docs = [_text(f"{names(v)}:{v.aval.str_short()}" if binders else names(v)) for v in atoms]
    return _nest(2, _group(_join(_concat(_text(sep), _group(_brk())), docs)))


def _is_jaxpr(value) -> bool:
    return isinstance(value, (Jaxpr, ClosedJaxpr))


def _pp_value(value, names: _Names) -> tuple:
    """A parameter's value: jaxprs nest (or name a shared one), a tuple of jaxprs (a
    cond's branches) one per line when they do not fit on one, the rest are text."""
    if isinstance(value, ClosedJaxpr):
        value = value.jaxpr
    if isinstance(value, Jaxpr):
        return _pp_jaxpr_doc(value, names)
    if isinstance(value, tuple) and value and all(map(_is_jaxpr, value)):
        docs = [_pp_value(v, names) for v in value]
        return _group(_concat(_nest(2, _concat(_text("("), _brk(""), _join(_brk(), docs))),
                              _brk(""), _text(")")))
    return _text(_pp_param(value))


# -- the parameters each primitive prints ------------------------------------------------------
#
# By default an equation prints all its params, sorted by name. These rules print what
# JAX's own pretty-printing rules (its `pp_eqn_rules`) print for the same primitive:
# `eqn -> [(name, value)]`, in printing order.


def _sorted_params(eqn: JaxprEqn, **extra) -> list:
    """The params and `extra` ones, sorted by name."""
    return sorted({**eqn.params, **extra}.items())


def _with_params(**extra):
    """Params JAX's primitive has and jaxwg's lacks, at the only value they take in jaxwg
    (which has no shardings): `reduce_sum[axes=(0,) out_sharding=None]`."""
    return lambda eqn: _sorted_params(eqn, **extra)


def _name_first(**extra):
    """A call's `name` first (easier to scan), the rest sorted, as JAX prints calls; a
    custom rule (a function) by its name."""
    def params(eqn: JaxprEqn) -> list:
        rest = [(k, v.__name__ if callable(v) and hasattr(v, "__name__") else v)
                for k, v in _sorted_params(eqn, **extra) if k != "name"]
        return [("name", eqn.params["name"])] + rest
    return params


def _broadcast_in_dim_params(eqn: JaxprEqn) -> list:
    """No `shape` (the binder's type says it), and no empty `broadcast_dimensions`."""
    dims = eqn.params["broadcast_dimensions"]
    return [("broadcast_dimensions", dims)] if dims else []


def _dot_general_params(eqn: JaxprEqn) -> list:
    """Dimension numbers as lists (JAX's shorter form), and the preferred element type
    JAX fills in when none is asked for: the result's dtype."""
    (lhs_contract, rhs_contract), (lhs_batch, rhs_batch) = eqn.params["dimension_numbers"]
    numbers = ((list(lhs_contract), list(rhs_contract)), (list(lhs_batch), list(rhs_batch)))
    preferred = eqn.params["preferred_element_type"] or eqn.out_binders[0].aval.dtype
    return [("dimension_numbers", numbers), ("preferred_element_type", preferred)]


_PRINTED_PARAMS = {
    P.broadcast_in_dim_p: _broadcast_in_dim_params,
    P.dot_general_p: _dot_general_params,
    P.reduce_sum_p: _with_params(out_sharding=None),
    P.reshape_p: _with_params(sharding=None),
    P.iota_p: _with_params(sharding=None),
    P.jit_p: _name_first(),
    # whether the rule sees zero tangents as SymbolicZero (`custom_jvp.defjvp`'s flag)
    P.custom_jvp_call_p: lambda eqn: _name_first(
        symbolic_zeros=getattr(eqn.params["jvp"], "symbolic_zeros", False))(eqn),
    P.custom_vjp_call_p: _name_first(symbolic_zeros=False),  # custom_vjp's are instantiated
}


def _pp_eqn(eqn: JaxprEqn, names: _Names) -> tuple:
    if eqn.primitive is P.jit_p:  # the called jaxpr's variables take the caller's names
        inner = eqn.params["jaxpr"].jaxpr
        if inner not in names.shared:
            names.suggest(inner.invars, eqn.inputs)
            names.suggest(inner.outvars, eqn.out_binders)
    params = _PRINTED_PARAMS.get(eqn.primitive, _sorted_params)(eqn)
    lhs = _pp_vars(eqn.out_binders, names, binders=True)
    rhs = [_text(eqn.primitive.name)]
    if params:
        pairs = [_concat(_text(f"{k}="), _pp_value(v, names)) for k, v in params]
        rhs.append(_group(_concat(_nest(2, _concat(_text("["), _brk(""), _join(_brk(), pairs))),
                                  _brk(""), _text("]"))))
    rhs.append(_concat(_text(" "), _pp_vars(eqn.inputs, names)))
    return _concat(lhs, _text(" = "), *rhs) if eqn.out_binders else _concat(*rhs)


def _pp_jaxpr_doc(jaxpr: Jaxpr, names: _Names, by_name: bool = True) -> tuple:
    if by_name and jaxpr in names.shared:
        return _text(names.shared[jaxpr])
    consts = _pp_vars(jaxpr.constvars, names, binders=True)
    args = _pp_vars(jaxpr.invars, names, binders=True)
    eqns = _join(_brk("; "), [_pp_eqn(e, names) for e in jaxpr.eqns])
    outs = _concat(_text("("), _pp_vars(jaxpr.outvars, names, sep=","),
                   _text(",)" if len(jaxpr.outvars) == 1 else ")"))
    # The closing brace is inside the group: a jaxpr printed on one line fits with it.
    return _group(_concat(_nest(2, _concat(
        _text("{ lambda "), consts, _text("; "), args, _text(". let"),
        _nest(2, _concat(_brk(), eqns)), _brk(), _text("in "), outs)), _text(" }")))


def called_jaxprs(eqn: JaxprEqn) -> list:
    """The jaxprs an equation calls (a jit's, a scan's body, a cond's branches...)."""
    found = []
    for value in eqn.params.values():
        for v in (value if isinstance(value, tuple) else (value,)):
            if isinstance(v, (Jaxpr, ClosedJaxpr)):
                found.append(v.jaxpr if isinstance(v, ClosedJaxpr) else v)
    return found


def _shared_jaxprs(top: Jaxpr) -> dict:
    """Called jaxprs printed once, before the top one, and named where called: those
    called more than once and those of more than 10 equations (JAX's rule)."""
    counts: dict = {}
    labels: dict = {}
    queue = [top]
    for jaxpr in queue:  # breadth first; a jaxpr called twice is walked twice
        counts[jaxpr] = counts.get(jaxpr, 0) + 1 + (jaxpr is not top and len(jaxpr.eqns) > 10)
        for eqn in jaxpr.eqns:
            called = called_jaxprs(eqn)
            queue += called
            if "name" in eqn.params:
                for sub in called:
                    labels.setdefault(sub, eqn.params["name"].strip("<>"))
    shared: dict = {}
    taken: dict[str, int] = {}
    for jaxpr, count in counts.items():
        if count > 1:
            label = labels.get(jaxpr, "jaxpr")
            seen = taken.get(label, 0)
            taken[label] = seen + 1
            if seen:
                label += str(seen)
                taken[label] = taken.get(label, 0) + 1
            shared[jaxpr] = label
    return shared


def pp_jaxpr(jaxpr: Jaxpr) -> str:
    """JAX's printout: `{ lambda consts ; args. let eqns in (outs,) }`, one line when it
    fits in 80 columns; called jaxprs (`jit`) print nested, or shared ones first, as
    `let name = { lambda ... } in`."""
    shared = _shared_jaxprs(jaxpr)
    names = _Names(shared, _dropped(jaxpr))
    docs = [_concat(_text(f"let {label} = "), _pp_jaxpr_doc(sub, names, by_name=False), _text(" in"),
                    _brk()) for sub, label in shared.items()]
    return _layout(_concat(*docs, _pp_jaxpr_doc(jaxpr, names)))
