"""Functions with their own derivatives: `custom_jvp` and `custom_vjp`.

A call of a decorated function binds one primitive holding the traced function
(`call_jaxpr`): evaluated, it runs that jaxpr; differentiated, the JVP trace calls the
user's rule instead. For `custom_jvp` that is the JVP rule itself. For `custom_vjp`
the JVP rule runs `fwd` (outputs and residuals) and emits `custom_lin`, linear in the
tangents, whose transpose is `bwd`: reverse mode works, forward mode of a custom_vjp
function is an error, as in JAX. Under `vmap` the call, the rule and `fwd`/`bwd` are
batched together.

>>> import jaxwg, jaxwg.numpy as jnp
>>> @custom_jvp
... def softplus(x):
...     return jnp.log1p(jnp.exp(x))
>>> @softplus.defjvp
... def _(primals, tangents):
...     (x,), (t,) = primals, tangents
...     return softplus(x), t / (1 + jnp.exp(-x))  # finite where exp(x) overflows
>>> jaxwg.grad(softplus)(100.0).item()
1.0
"""

from __future__ import annotations

import functools
import inspect

from ..frontend import primitives as P
from ..frontend import pytree
from ..frontend.jaxpr import eval_jaxpr, hoist_tracer_consts, trace_to_jaxpr
from ..frontend.trace import Tracer, describe_traced
from .ad import JVPTracer, Zero, float0, instantiate, is_differentiable, tangent_aval
from .batching import BatchTracer, batch_fun, batch_jaxpr, batch_size, batched_first


class _Nondiff:
    """The arguments `nondiff_argnums` names: passed to the rules first, never
    differentiated (closed over by the traced function)."""

    def __init__(self, nums, args):
        self.nums = {i % len(args) for i in nums} if args else set()
        self.static = [args[i] for i in sorted(self.nums)]
        self.args = args
        self.diff = tuple(a for i, a in enumerate(args) if i not in self.nums)

    def merge(self, diff) -> list:
        """All arguments, with `diff` in the differentiated places."""
        it = iter(diff)
        return [a if i in self.nums else next(it) for i, a in enumerate(self.args)]


def _positional(fun, args, kwargs, what: str) -> tuple:
    """The arguments of a call as positional ones, defaults included, bound through
    `fun`'s signature (as JAX does, so the rules see every argument in its place)."""
    signature = inspect.signature(
        (lambda *a, **k: None) if isinstance(fun, functools.partial) else fun)  # opaque, as JAX
    try:
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        passed = [k for k in bound.kwargs if k in kwargs]
        if passed:
            raise TypeError("The following keyword arguments could not be resolved to "
                            f"positions: {', '.join(passed)}")
    except TypeError as e:
        raise TypeError(f"The input arguments to the {what}-decorated function "
                        f"{getattr(fun, '__name__', fun)} could not be resolved to "
                        f"positional-only arguments. Binding failed with the error:\n{e}") from e
    return bound.args


def _trace_call(fun, nondiff_argnums, args, kwargs, what: str):
    """`fun(*args, **kwargs)` traced at the avals of its differentiated arguments'
    leaves: (the `_Nondiff` split, closed jaxpr, captured outer tracers, leaves, their
    tree, the output tree)."""
    from ..frontend.array import aval_of

    nd = _Nondiff(nondiff_argnums, _positional(fun, args, kwargs, what))
    leaves, in_tree = pytree.tree_flatten(nd.diff)
    flat, out_tree = pytree.flatten_fun(lambda *d: fun(*nd.merge(d)), in_tree)
    closed = trace_to_jaxpr(flat, [aval_of(x) for x in leaves], describe_traced(fun, what))
    closed, captured = hoist_tracer_consts(closed)
    return nd, closed, captured, leaves, in_tree, out_tree()


class SymbolicZero:
    """A zero tangent passed as itself to a `custom_jvp` rule defined with
    `symbolic_zeros=True` (as `jax.custom_derivatives.SymbolicZero`): the rule can tell
    an argument that is not differentiated from one whose tangent happens to be zero.
    The rule may return one for an output whose tangent is zero."""

    __slots__ = ("aval",)

    def __init__(self, aval):
        self.aval = aval

    shape = property(lambda self: self.aval.shape)
    dtype = property(lambda self: self.aval.dtype)

    def __repr__(self) -> str:
        return f"SymbolicZero({self.aval.str_short()})"


class custom_jvp:
    """`fun` with the derivative given by `defjvp` (or `defjvps`), as `jax.custom_jvp`.

    >>> from jaxwg import custom_jvp
    >>> import jaxwg, jaxwg.numpy as jnp
    >>> f = custom_jvp(lambda x: jnp.sin(x))
    >>> f.defjvps(lambda t, ans, x: 2.0 * t)  # a deliberately different derivative
    >>> jaxwg.grad(f)(0.0).item()
    2.0
    """

    def __init__(self, fun, nondiff_argnums=()):
        functools.update_wrapper(self, fun)
        self.fun = fun
        self.jvp = None
        self.symbolic_zeros = False
        self.nondiff_argnums = tuple(nondiff_argnums)

    def defjvp(self, jvp, symbolic_zeros: bool = False):
        """Set the rule `jvp(*nondiff_args, primals, tangents) -> (primal_out, tangent_out)`;
        with `symbolic_zeros`, tangents of arguments that are not differentiated arrive as
        `SymbolicZero`s instead of arrays of zeros."""
        self.jvp = jvp
        self.symbolic_zeros = symbolic_zeros
        return jvp

    def defjvps(self, *jvps):
        """Set the rule from one function per argument, `jvp_i(tangent, ans, *primals)`
        (None: no dependence), whose terms are summed."""
        def jvp(primals, tangents):
            ans = self(*primals)
            out = None
            for rule, t in zip(jvps, tangents):
                if rule is None:
                    continue
                term = rule(t, ans, *primals)
                out = term if out is None else pytree.tree_map(lambda a, b: a + b, out, term)
            return ans, out if out is not None else pytree.tree_map(lambda a: a * 0, ans)

        self.jvp = jvp
        self.symbolic_zeros = False

    def __call__(self, *args, **kwargs):
        if self.jvp is None:
            raise AttributeError(f"No JVP defined for custom_jvp function {self.__name__} "
                                 "using defjvp.")
        nd, closed, captured, leaves, in_tree, out_tree = _trace_call(
            self.fun, self.nondiff_argnums, args, kwargs, "custom_jvp")
        n_captured = len(captured)

        def jvp_flat(primals, tangents):
            # The user's rule sees the original pytrees; captured values are constants.
            p = pytree.tree_unflatten(in_tree, primals[n_captured:])
            t = pytree.tree_unflatten(in_tree, tangents[n_captured:])
            pair = self.jvp(*nd.static, tuple(p), tuple(t))
            names = (getattr(self.jvp, "__name__", "jvp"), self.__name__)
            return _checked_jvp_output(pair, names)

        jvp_flat.__name__ = getattr(self.jvp, "__name__", "jvp")
        jvp_flat.symbolic_zeros = self.symbolic_zeros
        outs = P.custom_jvp_call_p.bind(*captured, *leaves, call_jaxpr=closed, jvp=jvp_flat,
                                        name=self.__name__)
        return pytree.tree_unflatten(out_tree, outs)


def _type(aval, dtype_name: str | None = None) -> str:
    """`float32[3]`: an aval as JAX's custom rule errors name it (`dtype_name` in place
    of its dtype's: float0 tangents)."""
    return f"{dtype_name or aval.dtype.name}[{','.join(map(str, aval.shape))}]"


def _tangent_type(tangent) -> str:
    """A tangent's type as `_type` names it, float0 ones included."""
    from ..frontend.array import aval_of

    if isinstance(tangent, SymbolicZero):
        return _type(tangent.aval)
    if getattr(tangent, "dtype", None) == float0:
        return _type(tangent, "float0")
    return _type(aval_of(tangent))


def _checked_jvp_output(pair, names) -> tuple[list, list]:
    """A custom JVP rule's (primal out, tangent out) as leaves, checked as JAX checks
    them (TypeErrors): a pair, of one tree, whose tangents have the primals' tangent
    types (weak types aside; float0 for integer and boolean primals)."""
    from ..frontend.array import aval_of

    rule, fun = names
    if not isinstance(pair, (list, tuple)) or len(pair) != 2:
        raise TypeError(f"Custom JVP rule {rule} for function {fun} must produce a pair (list "
                        "or tuple of length two) representing primal and tangent outputs, but "
                        f"got {pair}.")
    primals, p_tree = pytree.tree_flatten(pair[0])
    tangents, t_tree = pytree.tree_flatten(pair[1])
    if p_tree != t_tree:
        raise TypeError(f"Custom JVP rule {rule} for function {fun} must produce primal and "
                        "tangent outputs with equal container (pytree) structures, but got "
                        f"{p_tree} and {t_tree} respectively.")
    p_avals = [aval_of(x) for x in primals]
    expected = [_type(a, None if is_differentiable(a) else "float0") for a in p_avals]
    wrong = [(_type(p), e, _tangent_type(t)) for p, e, t in zip(p_avals, expected, tangents)
             if e != _tangent_type(t) and not isinstance(t, SymbolicZero)]
    if len(expected) == 1 and wrong:
        (p, e, g), = wrong
        raise TypeError("Custom JVP rule must produce primal and tangent outputs with "
                        f"corresponding shapes and dtypes. Expected {e} (tangent type of {p}) "
                        f"but got {g}.")
    if wrong:
        raise TypeError("Custom JVP rule must produce primal and tangent outputs with "
                        "corresponding shapes and dtypes, but got:\n" + "\n".join(
                            f"  primal {p} with tangent {g}, expecting tangent {e}"
                            for p, e, g in wrong))
    return primals, tangents


def _check_cotangent_shapes(cts, avals, paths) -> None:
    """JAX's check of a custom VJP bwd rule's cotangents (a ValueError): the shapes of
    the arguments (their float dtypes may differ, as JAX lets them)."""
    from ..frontend.array import aval_of

    for ct, aval, path in zip(cts, avals, paths):
        if ct is None or not is_differentiable(aval) or aval_of(ct).shape == aval.shape:
            continue
        got = aval_of(ct)
        dtypes = ", so the dtypes do not match, and the shapes do not match"
        raise ValueError("Custom VJP bwd rule must produce an output with the same type as the "
                         f"args tuple of the primal function, but at output{path} the bwd rule "
                         f"produced an output of type {_type(got)} corresponding to an input of "
                         f"type {_type(aval)}" + (dtypes if got.dtype != aval.dtype else
                                                  ", so the shapes do not match"))


class custom_vjp:
    """`fun` whose reverse-mode derivative is given by `defvjp(fwd, bwd)`, as
    `jax.custom_vjp`: `fwd(*args) -> (out, residuals)`, `bwd(residuals, ct_out) ->`
    a tuple of cotangents, one per argument.

    >>> from jaxwg import custom_vjp
    >>> import jaxwg, jaxwg.numpy as jnp
    >>> @custom_vjp
    ... def clip_gradient(x):
    ...     return x
    >>> clip_gradient.defvjp(lambda x: (x, None), lambda res, g: (jnp.clip(g, -1.0, 1.0),))
    >>> jaxwg.grad(lambda x: 5.0 * clip_gradient(x))(2.0).item()
    1.0
    """

    def __init__(self, fun, nondiff_argnums=()):
        functools.update_wrapper(self, fun)
        self.fun = fun
        self.fwd = self.bwd = None
        self.nondiff_argnums = tuple(nondiff_argnums)

    def defvjp(self, fwd, bwd):
        """Set `fwd(*args) -> (out, residuals)` and `bwd(*nondiff_args, residuals, ct)
        -> cotangents of the other arguments`."""
        self.fwd, self.bwd = fwd, bwd

    def __call__(self, *args, **kwargs):
        if self.fwd is None:
            raise AttributeError(f"No VJP defined for custom_vjp function {self.__name__} "
                                 "using defvjp.")
        nd, closed, captured, leaves, in_tree, out_tree = _trace_call(
            self.fun, self.nondiff_argnums, args, kwargs, "custom_vjp")
        n_captured = len(captured)
        res_tree = []

        def fwd_flat(*primals):
            diff = pytree.tree_unflatten(in_tree, primals[n_captured:])
            out, res = self.fwd(*nd.merge(diff))
            res_leaves, tree = pytree.tree_flatten(res)
            res_tree[:] = [tree]
            return pytree.tree_leaves(out), res_leaves

        def bwd_flat(res_leaves, cts):
            """Cotangents of every input leaf, arrays (zeros for the captured values and
            for an argument whose cotangent `bwd` gives as None)."""
            res = pytree.tree_unflatten(res_tree[0], res_leaves)
            cts_in = self.bwd(*nd.static, res, pytree.tree_unflatten(out_tree, cts))
            if isinstance(cts_in, list) and len(cts_in) == len(nd.diff):
                cts_in = tuple(cts_in)  # as JAX takes it
            if not isinstance(cts_in, tuple) or len(cts_in) != len(nd.diff):
                raise TypeError("Custom VJP bwd rule must produce an output with the same "
                                "container (pytree) structure as the args tuple of the primal "
                                "function, and in particular must produce a tuple of length "
                                "equal to the number of arguments to the primal function, but "
                                f"got bwd output structure {pytree.tree_structure(cts_in)} for "
                                f"primal input structure {in_tree}.")
            out, paths = [], []
            for i, (arg, ct) in enumerate(zip(nd.diff, cts_in)):
                arg_leaves = pytree.tree_leaves(arg)
                out += ([None] * len(arg_leaves) if ct is None else pytree.tree_leaves(ct))
                paths += [f"[{i}]"] * len(arg_leaves)  # (JAX's key path: the argument's)
            avals = closed.in_avals
            _check_cotangent_shapes(out, avals[n_captured:], paths)
            return [instantiate(Zero(tangent_aval(a))) if c is None else c
                    for a, c in zip(avals, [None] * n_captured + out)]

        fwd_flat.__name__ = getattr(self.fwd, "__name__", "fwd")
        bwd_flat.__name__ = getattr(self.bwd, "__name__", "bwd")
        outs = P.custom_vjp_call_p.bind(*captured, *leaves, call_jaxpr=closed, fwd=fwd_flat,
                                        bwd=bwd_flat, name=self.__name__)
        return pytree.tree_unflatten(out_tree, outs)


# -- rules ----------------------------------------------------------------------------------


def _custom_jvp_call_jvp(primals, tangents, *, call_jaxpr, jvp, name):
    from ..frontend.array import aval_of

    avals = [tangent_aval(aval_of(p)) for p in primals]
    if jvp.symbolic_zeros:
        tangents = [SymbolicZero(a) if isinstance(t, Zero) else t for t, a in zip(tangents, avals)]
    else:
        tangents = [instantiate(t, a) for t, a in zip(tangents, avals)]
    out, t_out = jvp(list(primals), tangents)
    return out, [Zero(t.aval) if isinstance(t, SymbolicZero) else t for t in t_out]


def _custom_vjp_call_jvp(primals, tangents, *, call_jaxpr, fwd, bwd, name):
    from ..frontend.array import aval_of

    out, res = fwd(*primals)
    nonzero = tuple(not isinstance(t, Zero) for t in tangents)
    out_avals = tuple(tangent_aval(aval_of(o)) for o in out)
    t_out = P.custom_lin_p.bind(*res, *[t for t, nz in zip(tangents, nonzero) if nz],
                                num_res=len(res), nonzero=nonzero, bwd=bwd, out_avals=out_avals)
    return out, t_out


def _custom_lin_transpose(cts, *args, num_res, nonzero, bwd, out_avals):
    cts_out = [instantiate(c, a) for c, a in zip(cts, out_avals)]
    cts_in = [c for c, nz in zip(bwd(list(args[:num_res]), cts_out), nonzero) if nz]
    return [None] * num_res + cts_in


def _forward_mode_error(*args, **params):
    raise TypeError("can't apply forward-mode autodiff (jvp) to a custom_vjp function.")


def _batch_call(vals, dims, call_jaxpr, name):
    """The operands with their batch axis first, and the call's jaxpr batched so."""
    size = batch_size(vals, dims)
    moved, in_dims = batched_first(vals, dims, size)
    return moved, batch_jaxpr(call_jaxpr, size, in_dims, name), size, in_dims


def _custom_jvp_call_batch(vals, dims, *, call_jaxpr, jvp, name):
    moved, closed, size, in_dims = _batch_call(vals, dims, call_jaxpr, name)
    n = len(vals)

    def batched_jvp(primals, tangents):
        # symbolic zeros pass around the batched function: each member's is the same
        zeros = {i: SymbolicZero(_unbatched(t.aval, d)) for i, (t, d)
                 in enumerate(zip(tangents, in_dims)) if isinstance(t, SymbolicZero)}
        arrays = [t for i, t in enumerate(tangents) if i not in zeros]
        array_dims = [d for i, d in enumerate(in_dims) if i not in zeros]

        def both(*xs):
            given = iter(xs[n:])
            out, t_out = jvp(list(xs[:n]), [zeros.get(i) or next(given) for i in range(n)])
            return list(out) + [instantiate(Zero(t.aval)) if isinstance(t, SymbolicZero) else t
                                for t in t_out]

        outs = batch_fun(both, size, in_dims + array_dims)(*primals, *arrays)
        return outs[:len(outs) // 2], outs[len(outs) // 2:]

    batched_jvp.symbolic_zeros = jvp.symbolic_zeros

    outs = P.custom_jvp_call_p.bind(*moved, call_jaxpr=closed, jvp=batched_jvp, name=name)
    return outs, [0] * len(outs)


def _unbatched(aval, axis):
    """`aval` without its batch axis `axis` (None: not batched)."""
    from ..frontend.aval import ShapedArray

    if axis is None:
        return aval
    return ShapedArray(aval.shape[:axis] + aval.shape[axis + 1:], aval.dtype, aval.weak_type)


def _custom_vjp_call_batch(vals, dims, *, call_jaxpr, fwd, bwd, name):
    from .. import lax

    moved, closed, size, in_dims = _batch_call(vals, dims, call_jaxpr, name)
    num_out = len(call_jaxpr.out_avals)

    def batched_fwd(*primals):
        def joined(*xs):
            out, res = fwd(*xs)
            return [*out, *res]

        outs = batch_fun(joined, size, in_dims)(*primals)
        return outs[:num_out], outs[num_out:]

    def batched_bwd(res, cts):
        k = len(res)
        cts_in = batch_fun(lambda *xs: bwd(list(xs[:k]), list(xs[k:])), size,
                          [0] * (k + len(cts)))(*res, *cts)
        # An input shared by the whole batch gets the sum of the members' cotangents.
        return [c if d == 0 else lax.reduce_sum(c, (0,)) for c, d in zip(cts_in, in_dims)]

    outs = P.custom_vjp_call_p.bind(*moved, call_jaxpr=closed, fwd=batched_fwd, bwd=batched_bwd,
                                    name=name)
    return outs, [0] * len(outs)


P.jvp_rules[P.custom_jvp_call_p] = _custom_jvp_call_jvp
P.jvp_rules[P.custom_vjp_call_p] = _custom_vjp_call_jvp
P.jvp_rules[P.custom_lin_p] = _forward_mode_error
P.transpose_rules[P.custom_lin_p] = _custom_lin_transpose
P.lowering_rules[P.custom_lin_p] = _forward_mode_error
P.batch_rules[P.custom_jvp_call_p] = _custom_jvp_call_batch
P.batch_rules[P.custom_vjp_call_p] = _custom_vjp_call_batch


def _maybe_perturbed(x) -> bool:
    """JAX's test of a closed-over value for `closure_convert`: whether it may carry a
    tangent (an outer JVP tracer's nonzero one, or a traced float value that may be
    differentiated later). Concrete values, and what only vmap traces, may not."""
    from ..frontend.array import aval_of

    if isinstance(x, JVPTracer):
        return not isinstance(x.tangent, Zero) or _maybe_perturbed(x.primal)
    if isinstance(x, BatchTracer):
        return _maybe_perturbed(x.val)
    return isinstance(x, Tracer) and is_differentiable(aval_of(x))


def closure_convert(fun, *example_args):
    """`fun` with the values it closes over that may be differentiated (traced float
    values) made explicit: returns `(converted, consts)` with
    `converted(*args, *consts) == fun(*args)`, as `jax.closure_convert` (for custom rules
    that must differentiate closed-over values).

    >>> import jaxwg
    >>> from jaxwg import closure_convert
    >>> import jaxwg.numpy as jnp
    >>> def f(w):
    ...     converted, consts = closure_convert(lambda x: x * w, jnp.ones(2))
    ...     return converted(jnp.ones(2), *consts), len(consts)
    >>> jaxwg.grad(lambda w: f(w)[0].sum())(2.0).item(), f(jnp.array(2.0))[1]
    (2.0, 0)
    """
    from ..frontend.array import aval_of
    from ..frontend.jaxpr import ClosedJaxpr, Jaxpr

    leaves, in_tree = pytree.tree_flatten(example_args)
    flat, out_tree = pytree.flatten_fun(fun, in_tree)
    closed = trace_to_jaxpr(flat, [aval_of(x) for x in leaves], describe_traced(fun, "closure_convert"))
    jaxpr = closed.jaxpr
    hoist = [_maybe_perturbed(c) for c in closed.consts]
    kept = [(v, c) for v, c, h in zip(jaxpr.constvars, closed.consts, hoist) if not h]
    moved = [(v, c) for v, c, h in zip(jaxpr.constvars, closed.consts, hoist) if h]
    converted_jaxpr = ClosedJaxpr(Jaxpr([v for v, _ in kept], list(jaxpr.invars) + [v for v, _ in moved],
                                        jaxpr.eqns, jaxpr.outvars), [c for _, c in kept])

    def converted(*args):
        arg_leaves = pytree.tree_leaves(args[:len(example_args)])
        outs = eval_jaxpr(converted_jaxpr.jaxpr, converted_jaxpr.consts,
                          arg_leaves + list(args[len(example_args):]))
        return pytree.tree_unflatten(out_tree(), outs)

    return converted, [c for _, c in moved]
