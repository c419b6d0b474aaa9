"""`jit`: trace once per argument signature, compile to kernels, replay on each call.

A call splits its arguments into static ones (`static_argnums`, `static_argnames`:
hashable Python values that become part of the cache key) and dynamic ones (pytrees
of arrays and scalars). The cache key is the dynamic tree structure, each leaf's aval
(shape, dtype, weak type), the static values and the config; a miss traces the
function to a jaxpr (`jaxwg.core.jaxpr`) and compiles it into a `Program`: the
jaxpr's primitives lowered into the lazy graph over placeholder inputs and scheduled
by the same fusion as eager mode, each kernel prepared once. A hit only replays the
program's dispatch list. Arrays the function closes over are captured as constants.

Called with tracers (inside another transformation), a jitted function is inlined.

>>> import jaxwg, jaxwg.numpy as jnp
>>> f = jaxwg.jit(lambda x, n: x * n + 1, static_argnums=1)
>>> f(jnp.arange(3.0), 2)
Array([1., 3., 5.], dtype=float32)
>>> f(jnp.arange(3.0), 2) is not None and f._cache_info()
{'hits': 1, 'misses': 1, 'size': 1}
"""

from __future__ import annotations

import functools
import inspect
from collections import OrderedDict

from ..config import config
from . import primitives as P
from . import pytree
from .array import Array, asarray_for_bind
from .execute import Program, counters, device_of, realize
from .jaxpr import ClosedJaxpr, Literal, abstractify, pp_jaxpr, trace_to_jaxpr
from .lazy import Buffer, LazyNode
from .trace import Tracer, _dynamic

CACHE_SIZE = 256


def _as_tuple(x) -> tuple:
    if x is None:
        return ()
    if isinstance(x, (int, str)):
        return (x,)
    return tuple(x)


class _Compiled:
    """One cache entry: the traced jaxpr, the output tree and the program."""

    def __init__(self, closed: ClosedJaxpr, out_tree, program: Program):
        self.closed = closed
        self.out_tree = out_tree
        self.program = program


def lower_to_program(closed: ClosedJaxpr, device) -> Program:
    """Lower a jaxpr's equations into lazy nodes over placeholders, then schedule them."""
    jaxpr = closed.jaxpr
    env: dict[int, LazyNode] = {}
    arg_nodes = []
    for var in jaxpr.invars:
        node = LazyNode.from_buffer(Buffer(None, None), var.aval.shape, var.aval.dtype, device)
        arg_nodes.append(node)
        env[id(var)] = node
    const_arrays = [c if isinstance(c, Array) else asarray_for_bind(c) for c in closed.consts]
    realize([c.node for c in const_arrays])
    const_nodes = [c.node for c in const_arrays]
    for var, node in zip(jaxpr.constvars, const_nodes):
        env[id(var)] = node

    def read(atom):
        if isinstance(atom, Literal):
            return LazyNode.const(atom.val, atom.aval.dtype)
        return env[id(atom)]

    for eqn in jaxpr.eqns:
        out_avals = [v.aval for v in eqn.out_binders]
        out_aval = out_avals if eqn.primitive.multiple_results else out_avals[0]
        nodes = P.lowering_rules[eqn.primitive](out_aval, *[read(a) for a in eqn.inputs],
                                                **eqn.params)
        nodes = nodes if eqn.primitive.multiple_results else [nodes]
        for var, node in zip(eqn.out_binders, nodes):
            env[id(var)] = node
    out_nodes = [read(v) for v in jaxpr.outvars]
    counters["compiled_programs"] += 1
    return Program(device, arg_nodes, const_nodes, out_nodes)


class Lowered:
    """What `jitted.lower(*args)` returns: the jaxpr and the kernels it compiles to."""

    def __init__(self, compiled: _Compiled):
        self._compiled = compiled

    @property
    def jaxpr(self) -> ClosedJaxpr:
        return self._compiled.closed

    @property
    def kernels(self) -> list:
        """The kernels one call dispatches, in order."""
        return [k.executable.kernel for k in self._compiled.program.kernels]

    def as_text(self) -> str:
        lines = [pp_jaxpr(self._compiled.closed.jaxpr), ""]
        for k, kernel in enumerate(self._compiled.program.kernels):
            exe = kernel.executable
            lines.append(f"kernel {k}: inputs {list(kernel.inputs)} -> r{kernel.output}: "
                         f"{exe.kernel}")
        return "\n".join(lines)

    def compile(self) -> Lowered:
        return self


class Jitted:
    """The callable `jit` returns (see the module docstring)."""

    def __init__(self, fun, static_argnums, static_argnames, donate_argnums):
        functools.update_wrapper(self, fun)
        self._fun = fun
        self._static_argnums = set(_as_tuple(static_argnums))
        self._static_argnames = set(_as_tuple(static_argnames))
        self._donate = set(_as_tuple(donate_argnums))
        try:
            params = list(inspect.signature(fun).parameters.values())
        except (TypeError, ValueError):
            params = []
        positional = [p.name for p in params
                      if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        for i in list(self._static_argnums):  # static_argnums imply their names and back
            if 0 <= i < len(positional):
                self._static_argnames.add(positional[i])
        for name in list(self._static_argnames):
            if name in positional:
                self._static_argnums.add(positional.index(name))
        self._cache: OrderedDict = OrderedDict()
        self._hits = 0
        self._misses = 0

    # -- argument handling ------------------------------------------------------------------
    def _split(self, args, kwargs):
        static = tuple((i, args[i]) for i in sorted(self._static_argnums) if i < len(args))
        static += tuple(sorted((k, v) for k, v in kwargs.items() if k in self._static_argnames))
        dynamic_args = [a for i, a in enumerate(args) if i not in self._static_argnums]
        dynamic_kwargs = {k: v for k, v in kwargs.items() if k not in self._static_argnames}
        for _, value in static:
            try:
                hash(value)
            except TypeError:
                raise ValueError(
                    f"Non-hashable static arguments are not supported. An error occurred "
                    f"while trying to hash an object of type {type(value)}, {value!r}. The "
                    "error was:\nTypeError: unhashable type") from None
        return static, dynamic_args, dynamic_kwargs

    @staticmethod
    def _merge(n_args: int, static, dyn_args) -> list:
        """The positional arguments with the static ones put back in place."""
        static_pos = dict(s for s in static if isinstance(s[0], int))
        it = iter(dyn_args)
        return [static_pos[i] if i in static_pos else next(it) for i in range(n_args)]

    def _compile(self, args, kwargs):
        static, dyn_args, dyn_kwargs = self._split(args, kwargs)
        leaves, in_tree = pytree.tree_flatten((dyn_args, dyn_kwargs))
        if len(_dynamic) > 1 or any(isinstance(x, Tracer) for x in leaves):
            return None, leaves  # inside a transformation: the caller inlines
        in_avals = tuple(abstractify(x) for x in leaves)
        key = (in_tree, in_avals, static, tuple(sorted(config.values().items())))
        entry = self._cache.get(key)
        if entry is not None:
            self._hits += 1
            self._cache.move_to_end(key)
            return entry, leaves
        self._misses += 1
        static_kwargs = {k: v for k, v in static if isinstance(k, str)}
        out_tree_box = []

        def flat_fn(*flat):
            d_args, d_kwargs = pytree.tree_unflatten(in_tree, flat)
            full_args = self._merge(len(args), static, d_args)
            out = self._fun(*full_args, **d_kwargs, **static_kwargs)
            out_leaves, out_tree = pytree.tree_flatten(out)
            out_tree_box.append(out_tree)
            return out_leaves

        closed = trace_to_jaxpr(flat_fn, in_avals)
        device = device_of([x.node for x in leaves if isinstance(x, Array)])
        entry = _Compiled(closed, out_tree_box[0], lower_to_program(closed, device))
        self._cache[key] = entry
        if len(self._cache) > CACHE_SIZE:
            self._cache.popitem(last=False)
        return entry, leaves

    # -- calling ------------------------------------------------------------------------------
    def __call__(self, *args, **kwargs):
        entry, leaves = self._compile(args, kwargs)
        if entry is None:
            return self._fun(*args, **kwargs)  # inside a transformation: inline
        arrays = [x if isinstance(x, Array) else asarray_for_bind(x) for x in leaves]
        nodes = [a.node for a in arrays]
        realize(nodes)
        program = entry.program
        outs = program.run([n.buffer.slot for n in nodes])
        results = [Array(LazyNode.from_buffer(buf, aval.shape, aval.dtype, program.device),
                         aval)
                   for buf, aval in zip(outs, entry.closed.out_avals)]
        self._donate_inputs(args)
        return pytree.tree_unflatten(entry.out_tree, results)

    def _donate_inputs(self, args) -> None:
        for i in self._donate:
            if i < len(args) and i not in self._static_argnums:
                for leaf in pytree.tree_leaves(args[i]):
                    if isinstance(leaf, Array):
                        leaf.delete()

    def lower(self, *args, **kwargs) -> Lowered:
        """Trace and compile for these arguments without running."""
        entry, _ = self._compile(args, kwargs)
        if entry is None:
            raise TypeError("lower() needs concrete arguments, not tracers")
        return Lowered(entry)

    def trace(self, *args, **kwargs) -> Lowered:
        return self.lower(*args, **kwargs)

    def _cache_info(self) -> dict:
        return {"hits": self._hits, "misses": self._misses, "size": len(self._cache)}

    def clear_cache(self) -> None:
        self._cache.clear()

    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        return functools.partial(self, obj)


def jit(fun=None, *, static_argnums=None, static_argnames=None, donate_argnums=None,
        **unsupported):
    """Compile `fun` into fused kernels, cached per argument signature (module docstring).

    >>> import jaxwg, jaxwg.numpy as jnp
    >>> @jaxwg.jit
    ... def f(x):
    ...     return jnp.sum(jnp.exp(x) * 2 + 1)
    >>> f(jnp.zeros(4))
    Array(12., dtype=float32)
    """
    if unsupported:
        raise TypeError(f"jit got unexpected keyword argument(s) {sorted(unsupported)}")
    if fun is None:
        return functools.partial(jit, static_argnums=static_argnums,
                                 static_argnames=static_argnames, donate_argnums=donate_argnums)
    if not callable(fun):
        raise TypeError(f"Expected a callable value, got {fun!r}")
    return Jitted(fun, static_argnums, static_argnames, donate_argnums)

