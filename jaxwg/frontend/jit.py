"""`jit`: trace once per argument signature, compile to kernels, replay on each call.

A call splits its arguments into static ones (`static_argnums`, `static_argnames`:
hashable Python values that become part of the cache key) and dynamic ones (pytrees
of arrays and scalars). As in JAX, `static_argnums` and `static_argnames` are checked
against the function's signature, each implies the other when only one is given, and
negative numbers count from the end of a call's positional arguments. The cache key is
the dynamic tree structure, each leaf's aval (shape, dtype, weak type), the static
values, the arguments' device (a program's kernels are prepared for one backend;
arguments on two devices are an error) and the config. As in JAX, the caches belong to
the function: every `jit(f)` with the same static and donated arguments shares them, so
`jit(f)(x)` in a loop traces once. A miss traces the
function to a jaxpr (`jaxwg.frontend.jaxpr`) and compiles it into a `Program`: the
jaxpr's primitives lowered into the lazy graph over placeholder inputs and scheduled
by the same fusion as eager mode, each kernel prepared once. A hit only replays the
program's dispatch list. Arrays the function closes over are captured as constants.

Called inside another trace (`make_jaxpr`, an enclosing `jit`), a jitted function is
staged as one `jit` equation, JAX's primitive for a call of a closed jaxpr
(`jaxwg.frontend.primitives.jit_p`): transformations see the call, and the jaxpr prints as
JAX prints it. Values it closes over from the enclosing trace become leading arguments.
Programs lower called jaxprs in place, so a nested `jit` fuses with its caller. Traces
are cached by signature apart from programs, so one trace serves every device and
every enclosing trace.

>>> import jaxwg, jaxwg.numpy as jnp
>>> f = jaxwg.jit(lambda x, n: x * n + 1, static_argnums=1)
>>> f(jnp.arange(3.0), 2)
Array([1., 3., 5.], dtype=float32)
>>> f(jnp.arange(3.0), 2) is not None and f._cache_info()
{'hits': 1, 'misses': 1, 'size': 1}
"""

from __future__ import annotations

import contextvars

import contextlib
import functools
import inspect
import operator
import threading
import weakref

from ..backend.lru import LruCache
from ..config import config
from . import debug, nan_checks, pytree
from . import primitives as P
from .array import ArrayImpl, asarray_for_bind, aval_of
from .complex_lowering import lower, scalar_node, storage
from .control_flow import needs_values
from .device import Device, default_device, default_platform
from .execute import Program, counters, moved_to, realize
from .jaxpr import ClosedJaxpr, Literal, eval_jaxpr, hoist_tracer_consts, pp_jaxpr, trace_to_jaxpr
from .lazy import GRAPH_LOCK, Buffer, LazyNode
from .trace import Tracer, _dynamic, axis_env, bind, describe_traced, wraps

CACHE_SIZE = 256


def _index_tuple(x) -> tuple[int, ...]:
    """`static_argnums`/`donate_argnums` as a tuple: an int or an iterable of ints (as JAX)."""
    if x is None:
        return ()
    try:
        return (operator.index(x),)
    except TypeError:
        return tuple(operator.index(i) for i in x)


def _name_tuple(x) -> tuple[str, ...]:
    """`static_argnames` as a tuple: a string or an iterable of strings (as JAX)."""
    if x is None:
        return ()
    if isinstance(x, str):
        return (x,)
    names = tuple(x)
    for name in names:
        if not isinstance(name, str):
            raise TypeError(f"argument is not a string: {name}")
    return names


def _signature(fun) -> inspect.Signature | None:
    try:
        return inspect.signature(fun)
    except (TypeError, ValueError):  # builtins without one
        return None


def _check_argnums(sig: inspect.Signature, argnums: tuple, what: str) -> None:
    """Argument numbers must name positional parameters (any number with `*args`)."""
    kinds = [p.kind for p in sig.parameters.values()]
    if inspect.Parameter.VAR_POSITIONAL in kinds:
        return
    n = sum(k in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
            for k in kinds)
    if argnums and (-min(argnums) > n or max(argnums) >= n):
        raise ValueError(f"Jitted function has {what}={argnums}, but only accepts {n} "
                         "positional arguments.")


def _check_argnames(sig: inspect.Signature, argnames: tuple, what: str) -> None:
    """Argument names must be parameters that can be passed by keyword."""
    kinds = {name: p.kind for name, p in sig.parameters.items()}
    positional_only = {n for n in argnames if kinds.get(n) is inspect.Parameter.POSITIONAL_ONLY}
    if positional_only:
        raise ValueError(f"Jitted function has invalid argnames {positional_only} in {what}. "
                         "These are positional-only")
    if inspect.Parameter.VAR_KEYWORD in kinds.values():
        return
    by_keyword = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    unknown = {n for n in argnames if kinds.get(n) not in by_keyword}
    if unknown:
        raise ValueError(f"Jitted function has invalid argnames {unknown} in {what}. "
                         "Function does not take these args.")


def _keyword_positions(sig: inspect.Signature | None) -> list[tuple[int, str]]:
    """(position, name) of each parameter passable either way: through these, JAX infers
    static names from static numbers and back."""
    if sig is None:
        return []
    return [(i, name) for i, (name, p) in enumerate(sig.parameters.items())
            if p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD]


@functools.lru_cache(maxsize=64)
@functools.cache
def _arrays_tree(n: int):
    """The tree `_flatten` finds for `n` positional arrays: ([*, ...], {})."""
    return pytree.tree_structure(([0] * n, {}))


def _same_call(last: tuple, key: tuple) -> bool:
    """Whether two jit cache keys are equal, by identity where a loop's calls share
    objects (the tree, the avals of the last outputs, the device, the program key;
    tuples compare their items by identity first)."""
    (tree, avals, static, device, program), (tree2, avals2, static2, device2, program2) = last, key
    return (device is device2 and program is program2 and avals == avals2
            and (tree is tree2 or tree == tree2) and static == static2)


def _typed(static: tuple) -> tuple:
    """Static arguments as cache keys: with their types, as JAX keys them, since 1, 1.0
    and True are equal but trace differently."""
    return tuple((name, type(value), value) for name, value in static)


def _resolve(argnums: frozenset, n_args: int) -> frozenset:
    """Negative argument numbers count from the end of this call's positional arguments."""
    if all(i >= 0 for i in argnums):
        return argnums
    return frozenset(i + n_args if i < 0 else i for i in argnums)


class _Compiled:
    """One cache entry: the traced jaxpr, the output tree and the program, with what
    each call wraps its results in (their avals, and the shape and dtype of the nodes
    that hold them), worked out once."""

    def __init__(self, closed: ClosedJaxpr, out_tree, program: Program):
        self.closed = closed
        self.out_tree = out_tree
        self.program = program
        self.out_avals = closed.out_avals
        self.out_storage = [storage(aval) for aval in self.out_avals]


def _as_node(value) -> LazyNode:
    return (value if isinstance(value, ArrayImpl) else asarray_for_bind(value)).node


# How the program being lowered makes a constant's node (`lower_to_program` registers
# each with the program); lowering rules that lower bodies of their own (a scan's,
# unrolled) reach it through here.
_CONST_NODE: contextvars.ContextVar = contextvars.ContextVar("const_node", default=_as_node)


def lower_jaxpr(closed: ClosedJaxpr, args, const_node=None) -> list[LazyNode]:
    """The jaxpr's outputs as lazy nodes over the nodes `args`, through the lowering
    rules; `const_node(value)` gives each constant's node (by default, the program's
    being lowered). Called jaxprs (a nested `jit`) are lowered in place, so their
    kernels fuse with the caller's."""
    const_node = const_node or _CONST_NODE.get()
    jaxpr = closed.jaxpr
    env: dict[int, LazyNode] = {id(v): n for v, n in zip(jaxpr.invars, args)}
    for var, value in zip(jaxpr.constvars, closed.consts):
        env[id(var)] = const_node(value)

    def read(atom):
        if isinstance(atom, Literal):
            return scalar_node(atom.val, atom.aval.dtype)
        return env[id(atom)]

    for eqn in jaxpr.eqns:
        inputs = [read(a) for a in eqn.inputs]
        if eqn.primitive in P.CALLED_JAXPR:
            nodes = lower_jaxpr(eqn.params[P.CALLED_JAXPR[eqn.primitive]], inputs, const_node)
        else:
            out_avals = [v.aval for v in eqn.out_binders]
            out_aval = out_avals if eqn.primitive.multiple_results else out_avals[0]
            nodes = lower(eqn.primitive, out_aval, [a.aval for a in eqn.inputs], inputs, eqn.params)
            nodes = nodes if eqn.primitive.multiple_results else [nodes]
        for var, node in zip(eqn.out_binders, nodes):
            env[id(var)] = node
    return [read(v) for v in jaxpr.outvars]


def _call_lowering(prim):
    """A call outside a program (eager evaluation of a jaxpr that holds one): inlined."""
    def lowering(out_avals, *args, **params):
        return lower_jaxpr(params[P.CALLED_JAXPR[prim]], args)

    return lowering


for _prim in P.CALLED_JAXPR:
    P.lowering_rules[_prim] = _call_lowering(_prim)


class StepwiseProgram:
    """A program whose path depends on values (a cond, a while loop): each run evaluates
    its jaxpr equation by equation, eagerly (lazily fused), reading back only the
    branch indices and loop predicates (`jaxwg.frontend.control_flow`)."""

    kernels = ()  # no fixed list: what runs depends on the values

    def __init__(self, closed: ClosedJaxpr, device, name: str):
        consts = [ArrayImpl(moved_to(_as_node(c), device), aval_of(c)) for c in closed.consts]
        self.closed = ClosedJaxpr(closed.jaxpr, consts)  # on this device, as `lower_to_program`'s
        self.device = device
        self.label = f"jit {name}"

    def run(self, arg_slots: list[int]) -> list[Buffer]:
        backend = self.device.backend
        args = []
        for slot, var in zip(arg_slots, self.closed.jaxpr.invars):
            backend.incref(slot)  # the caller's arrays keep theirs
            node = LazyNode.from_buffer(Buffer(backend, slot), *storage(var.aval), self.device)
            args.append(ArrayImpl(node, var.aval))
        outs = [_as_node(o) for o in eval_jaxpr(self.closed.jaxpr, self.closed.consts, args)]
        with GRAPH_LOCK:
            for node in outs:
                node.device = node.device or self.device
            realize(outs)
        return [node.buffer for node in outs]

    def __len__(self) -> int:
        return 0


def lower_to_program(closed: ClosedJaxpr, device, name: str = "program"):
    """Lower a jaxpr's equations into lazy nodes over placeholders, then schedule them.
    Constants (of called jaxprs too) are realized on `device` and held by the program.
    A jaxpr whose path depends on values becomes a `StepwiseProgram`."""
    if needs_values(closed.jaxpr):
        return StepwiseProgram(closed, device, name)
    arg_nodes = [LazyNode.from_buffer(Buffer(None, None), *storage(v.aval), device)
                 for v in closed.jaxpr.invars]
    consts: dict[int, LazyNode] = {}  # each distinct constant once, in first-use order

    def const_node(value) -> LazyNode:
        node = _as_node(value)
        if node.device is None:  # a pending constant goes where the program runs
            node.device = device
        # A trace serves every device's program: a constant made while tracing for
        # another device (an index table, say) is copied to this one.
        node = moved_to(node, device)
        realize([node])
        return consts.setdefault(id(node), node)

    token = _CONST_NODE.set(const_node)
    try:
        with GRAPH_LOCK:  # lowering links new nodes to constants that other threads may use
            out_nodes = lower_jaxpr(closed, arg_nodes)
    finally:
        _CONST_NODE.reset(token)
    counters["compiled_programs"] += 1
    return Program(device, arg_nodes, list(consts.values()), out_nodes, name)


def run_program(program, nodes: list[LazyNode], out_storage) -> list[LazyNode]:
    """`program` run on `nodes`, realized first (scalars and pending constants go where it
    runs): a node over each output's new buffer, of the shape and dtype in `out_storage`
    (`complex_lowering.storage` of each output's aval)."""
    device = program.device
    with GRAPH_LOCK:
        for node in nodes:
            if node.device is None:
                node.device = device
        realize(nodes)
    buffers = program.run([node.buffer.slot for node in nodes])
    return [LazyNode.from_buffer(buffer, shape, dtype, device)
            for buffer, (shape, dtype) in zip(buffers, out_storage)]


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

    def as_text(self, dialect: str | None = None) -> str:
        """The jaxpr and the kernels (the default), or with `dialect="wgsl"` the shader
        of each kernel (webgpu programs only).

        >>> import jaxwg, jaxwg.numpy as jnp
        >>> print(jaxwg.jit(jnp.sin).lower(jnp.ones(2)).as_text().splitlines()[0])
        { lambda ; a:f32[2]. let b:f32[2] = sin a in (b,) }
        """
        if dialect == "wgsl":
            return self._shaders()
        if dialect is not None:
            raise ValueError(f"Unknown dialect {dialect!r}: as_text() prints the jaxpr and "
                             "kernels, as_text(dialect='wgsl') their shaders")
        lines = [pp_jaxpr(self._compiled.closed.jaxpr), ""]
        for k, kernel in enumerate(self._compiled.program.kernels):
            lines.append(f"{self._kernel_header(k)}: {kernel.executable.kernel}")
        return "\n".join(lines)

    def _kernel_header(self, k: int) -> str:
        kernel = self._compiled.program.kernels[k]
        return f"kernel {k}: inputs {list(kernel.inputs)} -> r{kernel.output}"

    def _shaders(self) -> str:
        program = self._compiled.program
        if program.device.platform != "webgpu":
            raise ValueError(f"as_text(dialect='wgsl') needs a webgpu program; this one runs on "
                             f"{program.device.name}, which interprets kernels without shaders")
        blocks = []
        for k, kernel in enumerate(program.kernels):
            for code in debug.shader_sources(kernel.executable):
                blocks.append(f"// {self._kernel_header(k)}\n{code.rstrip()}")
        return "\n\n".join(blocks)

    def compile(self) -> Lowered:
        return self


# Caches of each function, shared by all its `jit` wrappers with the same static and
# donated arguments (as JAX shares them): `jit(f)(x)` in a loop traces once. Weak in
# the function, so a function's programs go with it.
_SHARED_CACHES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_SHARED_CACHES_LOCK = threading.Lock()


def _caches_for(fun, options: tuple) -> tuple[LruCache, LruCache]:
    """The program and trace caches of `fun` under `options`; private ones when `fun`
    cannot be weakly referenced (some builtins)."""
    with _SHARED_CACHES_LOCK:
        try:
            by_options = _SHARED_CACHES.setdefault(fun, {})
        except TypeError:
            by_options = {}
        if options not in by_options:
            by_options[options] = (LruCache(CACHE_SIZE), LruCache(CACHE_SIZE))
        return by_options[options]


class Jitted:
    """The callable `jit` returns (see the module docstring)."""

    def __init__(self, fun, static_argnums, static_argnames, donate_argnums):
        wraps(fun)(self)
        self._fun = fun
        nums, names = _index_tuple(static_argnums), _name_tuple(static_argnames)
        donate = _index_tuple(donate_argnums)
        sig = self._signature = _signature(fun)
        if sig is not None:
            _check_argnums(sig, nums, "static_argnums")
            _check_argnums(sig, donate, "donate_argnums")
            _check_argnames(sig, names, "static_argnames")
        # As in JAX, numbers imply names (and back) only when one of the two is given.
        either_way = _keyword_positions(sig)
        if static_argnames is None:
            names = tuple(name for i, name in either_way if i in nums)
        elif static_argnums is None:
            nums = tuple(i for i, name in either_way if name in names)
        both = set(names) & {name for i, name in either_way if i in donate}
        if both:
            raise ValueError("static_argnames and donate_argnames cannot intersect. Argument "
                             f"names {both} appear in both static_argnames and donate_argnames")
        self._static_argnums = frozenset(nums)
        self._static_argnames = frozenset(names)
        self._donate = frozenset(donate)
        # programs by signature and device, jaxprs by signature
        self._cache, self._traces = _caches_for(
            fun, (self._static_argnums, self._static_argnames, self._donate))
        self._hits = 0
        self._misses = 0
        # The last call's (tree, avals, typed static, device, program key) and entry: a
        # loop calls with the same aval objects (its own outputs) and skips the lookup.
        self._last: tuple | None = None
        name = getattr(fun, "__name__", None)
        self._name = repr(fun) if name is None else name


    # -- argument handling ------------------------------------------------------------------
    def _split(self, args, kwargs):
        nums = _resolve(self._static_argnums, len(args))
        static = tuple((i, args[i]) for i in sorted(nums) if 0 <= i < len(args))
        static += tuple(sorted((k, v) for k, v in kwargs.items() if k in self._static_argnames))
        dynamic_args = [a for i, a in enumerate(args) if i not in nums]
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

    def _device(self, leaves, args, kwargs) -> Device:
        """The one device of the array arguments (the default device if none has one)."""
        found = None
        for x in leaves:
            if isinstance(x, ArrayImpl):
                device = x.node.device
                if device is not None and device is not found:
                    if found is not None:
                        raise self._incompatible_devices(args, kwargs)
                    found = device
        return found or default_device()

    def _incompatible_devices(self, args, kwargs) -> ValueError:
        """JAX's error for arguments on two devices, naming the first two that differ."""
        params = list(self._signature.parameters) if self._signature is not None else []
        nums = _resolve(self._static_argnums, len(args))
        named = [(params[i] if i < len(params) else f"args[{i}]", a)
                 for i, a in enumerate(args) if i not in nums]
        named += [(k, v) for k, v in kwargs.items() if k not in self._static_argnames]
        placed = [(name, leaf) for name, value in named for leaf in pytree.tree_leaves(value)
                  if isinstance(leaf, ArrayImpl) and leaf.node.device is not None]
        first = placed[0]
        other = next(p for p in placed if p[1].node.device is not first[1].node.device)
        fname = self._name

        def describe(name, leaf):
            shape = ",".join(map(str, leaf.shape))
            return (f"argument {name} of {fname} with shape {leaf.aval.dtype.name}[{shape}] "
                    f"on device {leaf.node.device.name}")

        return ValueError("Received incompatible devices for jitted computation. Got "
                          f"{describe(*first)} and {describe(*other)}")

    @staticmethod
    def _merge(n_args: int, static, dyn_args) -> list:
        """The positional arguments with the static ones put back in place."""
        static_pos = dict(s for s in static if isinstance(s[0], int))
        it = iter(dyn_args)
        return [static_pos[i] if i in static_pos else next(it) for i in range(n_args)]

    def _flatten(self, args, kwargs):
        """The static arguments, the dynamic ones' leaves and their tree."""
        if not kwargs and not self._static_argnums and all([type(a) is ArrayImpl for a in args]):
            return (), list(args), _arrays_tree(len(args))  # the common call, without a walk
        static, dyn_args, dyn_kwargs = self._split(args, kwargs)
        leaves, in_tree = pytree.tree_flatten((dyn_args, dyn_kwargs))
        return static, leaves, in_tree

    def _trace(self, n_args: int, static, in_tree, in_avals) -> tuple[ClosedJaxpr, object]:
        """The function's jaxpr at these avals and its output tree, cached: programs
        for each device, and calls staged inside other traces, share one trace."""
        key = (in_tree, in_avals, _typed(static), axis_env(), config.program_key())
        found = self._traces.get(key)
        if found is not None:
            return found
        static_kwargs = {k: v for k, v in static if isinstance(k, str)}
        out_tree_box = []

        def flat_fn(*flat):
            d_args, d_kwargs = pytree.tree_unflatten(in_tree, flat)
            full_args = self._merge(n_args, static, d_args)
            out = self._fun(*full_args, **d_kwargs, **static_kwargs)
            out_leaves, out_tree = pytree.tree_flatten(out)
            out_tree_box.append(out_tree)
            return out_leaves

        closed = trace_to_jaxpr(flat_fn, in_avals, describe_traced(self._fun, "jit"),
                                self._argument_names(n_args, static, in_tree))
        if debug.level() >= 2:
            debug.emit(f"jaxwg: jit {self._name} traced for "
                       f"({', '.join(a.str_short() for a in in_avals)}):\n{closed}")
        found = (closed, out_tree_box[0])
        if not any(isinstance(c, Tracer) for c in closed.consts):  # else it closes over a trace
            self._traces.put(key, found)
        return found

    def _argument_names(self, n_args: int, static, in_tree) -> list[str]:
        """Each flat argument's name as JAX's debug info gives it, for errors: the
        parameter, then the leaf's key path in its pytree (`params['w'][0]`)."""
        args_tree, kwargs_tree = in_tree.children()
        static_positions = {i for i, _ in static if isinstance(i, int)}
        positions = [i for i in range(n_args) if i not in static_positions]
        names = [self._parameter_name(i) + path
                 for i, subtree in zip(positions, args_tree.children())
                 for path in subtree.leaf_paths()]
        names += [key + path for key, subtree in zip(kwargs_tree.aux_data, kwargs_tree.children())
                  for path in subtree.leaf_paths()]
        return names

    def _parameter_name(self, position: int) -> str:
        """The name of the parameter that takes positional argument `position`."""
        params = list(self._signature.parameters.values()) if self._signature is not None else []
        positional = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        if position < len(positional):
            return positional[position]
        var = next((p.name for p in params if p.kind is p.VAR_POSITIONAL), "args")
        return f"{var}[{position - len(positional)}]"

    def _compiled(self, args, kwargs, static, leaves, in_tree) -> _Compiled:
        """The cache entry for concrete arguments, compiled on a miss."""
        in_avals = tuple([aval_of(x) for x in leaves])
        device = self._device(leaves, args, kwargs)
        key = (in_tree, in_avals, _typed(static), device, config.program_key())
        last = self._last
        if last is not None and _same_call(last[0], key):
            self._hits += 1  # the counters are approximate under threads
            return last[1]
        entry = self._cache.get(key)
        if entry is not None:
            self._hits += 1
            self._last = (key, entry)
            return entry
        self._misses += 1
        closed, out_tree = self._trace(len(args), static, in_tree, in_avals)
        entry = _Compiled(closed, out_tree, lower_to_program(closed, device, self._name))
        self._cache.put(key, entry)
        self._last = (key, entry)
        return entry

    def _stage(self, n_args: int, static, leaves, in_tree):
        """Inside another trace: one `jit` equation calling the traced jaxpr (as JAX
        does), which transformations see and programs lower in place."""
        in_avals = tuple(aval_of(x) for x in leaves)
        closed, out_tree = self._trace(n_args, static, in_tree, in_avals)
        closed, captured = hoist_tracer_consts(closed)
        outs = P.jit_p.bind(*captured, *leaves, jaxpr=closed, name=self._name)
        return pytree.tree_unflatten(out_tree, outs)

    # -- calling ------------------------------------------------------------------------------
    def __call__(self, *args, **kwargs):
        if config.jax_disable_jit:
            return self._fun(*args, **kwargs)
        static, leaves, in_tree = self._flatten(args, kwargs)
        if len(_dynamic) > 1 or any([isinstance(x, Tracer) for x in leaves]):
            return self._stage(len(args), static, leaves, in_tree)
        entry = self._compiled(args, kwargs, static, leaves, in_tree)
        outs = run_program(entry.program, [_as_node(x) for x in leaves], entry.out_storage)
        results = [ArrayImpl(node, aval) for node, aval in zip(outs, entry.out_avals)]
        nan_checks.check_jitted(self._name, results, lambda: self._fun(*args, **kwargs))
        self._donate_inputs(args)
        return pytree.tree_unflatten(entry.out_tree, results)

    def _donate_inputs(self, args) -> None:
        if not self._donate:
            return
        static = _resolve(self._static_argnums, len(args))
        for i in _resolve(self._donate, len(args)):
            if 0 <= i < len(args) and i not in static:
                for leaf in pytree.tree_leaves(args[i]):
                    if isinstance(leaf, ArrayImpl):
                        leaf.delete()

    def lower(self, *args, **kwargs) -> Lowered:
        """Trace and compile for these arguments without running."""
        static, leaves, in_tree = self._flatten(args, kwargs)
        if any(isinstance(x, Tracer) for x in leaves):
            raise TypeError("lower() needs concrete arguments, not tracers")
        return Lowered(self._compiled(args, kwargs, static, leaves, in_tree))

    def trace(self, *args, **kwargs) -> Lowered:
        return self.lower(*args, **kwargs)

    def _cache_info(self) -> dict:
        return {"hits": self._hits, "misses": self._misses, "size": len(self._cache)}

    def clear_cache(self) -> None:
        self._cache.clear()
        self._traces.clear()
        self._last = None

    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        return functools.partial(self, obj)


class _StagedOnly(Jitted):
    """What `staged_jit` returns: a `Jitted` that compiles no program of its own."""

    def __call__(self, *args, **kwargs):
        if len(_dynamic) == 1 or config.jax_disable_jit:
            return self._fun(*args, **kwargs)
        static, leaves, in_tree = self._flatten(args, kwargs)
        return self._stage(len(args), static, leaves, in_tree)


def staged_jit(fun=None, *, static_argnums=None, static_argnames=None):
    """`jit` for library functions that JAX wraps in one (`jnp.where`'s `_where`,
    `jnp.clip`, `nn.relu`, ...): inside a trace (`make_jaxpr`, an enclosing `jit`, a
    transformation that traces to a jaxpr) a call is one `jit` equation named after the
    function, with JAX's static arguments, so jaxprs print as JAX's. An eager call runs
    the function op by op, as without the wrapper: its lazy nodes fuse with the
    caller's instead of running as a program of their own. Programs lower called
    jaxprs in place, so inside `jit` the kernels are the same as without it.

    >>> import jaxwg, jaxwg.numpy as jnp
    >>> double = staged_jit(lambda x: x * 2)
    >>> double(jnp.ones(2))
    Array([2., 2.], dtype=float32)
    >>> print(jaxwg.make_jaxpr(double)(jnp.ones(2)))  # doctest: +NORMALIZE_WHITESPACE
    { lambda ; a:f32[2]. let
        b:f32[2] = jit[
          name=<lambda>
          jaxpr={ lambda ; a:f32[2]. let b:f32[2] = mul a 2.0:f32[] in (b,) }
        ] a
      in (b,) }
    """
    if fun is None:
        return functools.partial(staged_jit, static_argnums=static_argnums,
                                 static_argnames=static_argnames)
    return _StagedOnly(fun, static_argnums, static_argnames, None)


@contextlib.contextmanager
def disable_jit(disable: bool = True):
    """Within the block, jitted functions run op by op in this thread, as plain Python
    (`print` inside them sees values); the `jax_disable_jit` option, for one thread.

    >>> import jaxwg, jaxwg.numpy as jnp
    >>> with jaxwg.disable_jit():
    ...     jaxwg.jit(lambda x: print(x.tolist()) or x)(jnp.arange(2))
    [0, 1]
    Array([0, 1], dtype=int32)
    """
    with config.override("jax_disable_jit", disable):
        yield


def jit(fun=None, *, static_argnums=None, static_argnames=None, donate_argnums=None,
        in_shardings=None, out_shardings=None, keep_unused=False, device=None, backend=None,
        inline=False, **unsupported):
    """Compile `fun` into fused kernels, cached per argument signature (module docstring).

    JAX's other options are accepted as far as they mean something here: `keep_unused`
    and `inline` change no result (unused arguments are never read; a nested jit's
    kernels fuse into the enclosing program either way); shardings must be None (one
    device); `device` and `backend` must name the default device (a jitted function
    runs where its arguments are: choose it with `device_put` or `default_device`).

    >>> import jaxwg, jaxwg.numpy as jnp
    >>> @jaxwg.jit
    ... def f(x):
    ...     return jnp.sum(jnp.exp(x) * 2 + 1)
    >>> f(jnp.zeros(4))
    Array(12., dtype=float32)
    """
    if unsupported:
        raise TypeError(f"jit got unexpected keyword argument(s) {sorted(unsupported)}")
    _check_options(in_shardings, out_shardings, device, backend)
    if fun is None:
        return functools.partial(jit, static_argnums=static_argnums,
                                 static_argnames=static_argnames, donate_argnums=donate_argnums)
    if not callable(fun):
        raise TypeError(f"Expected a callable value, got {fun!r}")
    return Jitted(fun, static_argnums, static_argnames, donate_argnums)


def _check_options(in_shardings, out_shardings, device, backend) -> None:
    """A clear error for the values of JAX's `jit` options jaxwg cannot honour."""
    from ..errors import NotImplementedInJaxwg

    for name, value in (("in_shardings", in_shardings), ("out_shardings", out_shardings)):
        if value is not None:
            raise NotImplementedInJaxwg(f"jit({name}={value!r}): jaxwg has one device and no "
                                        "shardings; pass None")
    platform = getattr(device, "platform", None) or backend
    if platform is not None and platform != default_platform():
        raise NotImplementedInJaxwg(
            f"jit({'device' if device is not None else 'backend'}={device or backend!r}): a "
            f"jitted function runs on its arguments' device (here {default_platform()!r}); "
            "put them on another with jaxwg.device_put or jaxwg.default_device")


def bind_as_program(prim, operands, params: dict):
    """`prim` bound to `operands`. Eagerly, as one program per signature whose kernels
    replay: a primitive lowered through a traced jaxpr of many (a sort, a scatter) is
    then not lowered afresh into the lazy graph at each call. Traced, the primitive
    itself, as JAX's. `params` must be hashable (they key the program).

    >>> import jaxwg.numpy as jnp
    >>> bind_as_program(P.neg_p, [jnp.ones(2)], {})
    Array([-1., -1.], dtype=float32)
    """
    if len(_dynamic) == 1 and not any(isinstance(o, Tracer) for o in operands):
        return _primitive_program(*operands, prim=prim, params=tuple(sorted(params.items())))
    return bind(prim, *operands, **params)


@functools.partial(jit, static_argnames=("prim", "params"))
def _primitive_program(*operands, prim, params):
    return bind(prim, *operands, **dict(params))
