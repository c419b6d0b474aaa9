"""Reverse mode: `linearize`, `vjp`, `grad` and `value_and_grad`.

The JVP of the function is traced to a jaxpr over (primals, tangents), split by
partial evaluation (`partial_eval.py`) into the primal computation, which runs now
and also yields the residuals, and the linear map from tangents to output tangents.
`linearize` returns that map; `vjp` returns its transpose (`transpose.py`), run
backwards from output cotangents. Everything is bound in the calling trace, so
`jit(grad(f))` stages the whole backward pass into one program, and `grad(jit(f))`
keeps the jitted calls as `jit` equations.

>>> import jaxwg, jaxwg.numpy as jnp
>>> grad(lambda x: jnp.sum(x ** 2))(jnp.arange(3.0)).tolist()
[0.0, 2.0, 4.0]
"""

from __future__ import annotations

import operator

import numpy as np

from ..frontend import pytree
from ..frontend.jaxpr import eval_jaxpr, trace_to_jaxpr
from ..frontend.trace import describe_traced, wraps
from .ad import (
    Zero,
    _split_aux,
    _user_tangent,
    float0,
    instantiate,
    is_differentiable,
    jvp_flat,
    tangent_aval,
)
from .partial_eval import dce_jaxpr, partial_eval_jaxpr
from .transpose import UndefinedPrimal, backward_pass


class _Linearized:
    """A function's primal outputs and the linear map of its tangents, as data."""

    def __init__(self, fun, primals, debug_info: str):
        from ..frontend.array import aval_of

        self.in_avals = [aval_of(p) for p in primals]
        self.diff = [is_differentiable(a) for a in self.in_avals]
        tan_avals = [tangent_aval(a) for a, d in zip(self.in_avals, self.diff) if d]
        n = len(primals)
        out_avals = []

        def jvp_fun(*args):
            it = iter(args[n:])
            tangents = [next(it) if d else Zero(tangent_aval(a))
                        for a, d in zip(self.in_avals, self.diff)]
            p_out, t_out = jvp_flat(fun, args[:n], tangents, debug_info)
            out_avals.extend(aval_of(p) for p in p_out)
            return p_out + [instantiate(t, tangent_aval(a)) for t, a in zip(t_out, out_avals)]

        closed = trace_to_jaxpr(jvp_fun, self.in_avals + tan_avals, debug_info)
        self.out_avals = out_avals
        m = len(out_avals)
        known, self.linear, out_unknown, num_res = partial_eval_jaxpr(
            closed.jaxpr, [False] * n + [True] * len(tan_avals))
        if any(out_unknown[:m]):
            raise AssertionError("a primal output depends on tangents")
        self.linear = dce_jaxpr(self.linear)  # as JAX's linearize
        known_outs = eval_jaxpr(known, closed.consts, primals)
        num_known = len(known_outs) - num_res
        self.primals_out = known_outs[:m]
        self.residuals = known_outs[num_known:]
        self.tangent_unknown = out_unknown[m:]
        # Output tangents that do not depend on the inputs' (zeros), by output.
        self.known_tangents = known_outs[m:num_known]
        self.tan_avals = tan_avals

    def jvp(self, tangents: list) -> list:
        """Output tangents for input tangents (one per differentiable input)."""
        outs = iter(eval_jaxpr(self.linear, [], self.residuals + list(tangents)))
        known = iter(self.known_tangents)
        return [next(outs) if u else next(known) for u in self.tangent_unknown]

    def vjp(self, cts_out: list) -> list:
        """Input cotangents (zeros for a float input none reaches; float0 for the others)
        for output cotangents (Zero or None where there is none)."""
        cts = [ct for ct, u in zip(cts_out, self.tangent_unknown) if u]
        args = self.residuals + [UndefinedPrimal(a) for a in self.tan_avals]
        cts_in = iter(backward_pass(self.linear, [], args, cts)[len(self.residuals):])
        return [instantiate(next(cts_in), tangent_aval(a)) if d else np.zeros(a.shape, float0)
                for a, d in zip(self.in_avals, self.diff)]


def _flatten_fun(fun, in_tree, out_trees: list, has_aux: bool):
    """`fun` of pytrees as a function of flat leaves; the output tree (and how to
    rebuild aux, see `_split_aux`) land in `out_trees`."""
    def flat(*leaves):
        out = fun(*pytree.tree_unflatten(in_tree, leaves))
        if has_aux:
            out, aux_leaves, rebuild_aux = _split_aux(out)
            out_leaves, tree = pytree.tree_flatten(out)
            out_trees[:] = [tree, rebuild_aux, len(out_leaves)]
            return out_leaves + aux_leaves
        out_leaves, tree = pytree.tree_flatten(out)
        out_trees[:] = [tree, None, len(out_leaves)]
        return out_leaves

    return flat


def _linearize_tree(fun, primals: tuple, has_aux: bool, what: str):
    leaves, in_tree = pytree.tree_flatten(tuple(primals))
    trees: list = []
    lin = _Linearized(_flatten_fun(fun, in_tree, trees, has_aux), leaves,
                      describe_traced(fun, what))
    out_tree, rebuild_aux, n = trees
    aux = rebuild_aux(lin.primals_out[n:]) if has_aux else None
    return lin, in_tree, out_tree, n, aux


def linearize(fun, *primals, has_aux: bool = False):
    """`fun(*primals)` and the linear function of tangents that is its JVP there.

    >>> from jaxwg import linearize
    >>> import jaxwg.numpy as jnp
    >>> y, f_jvp = linearize(jnp.sin, jnp.array(0.0))
    >>> float(y), float(f_jvp(jnp.array(3.0)))
    (0.0, 3.0)
    """
    lin, in_tree, out_tree, n, aux = _linearize_tree(fun, primals, has_aux, "linearize")

    def f_jvp(*tangents):
        t_leaves, t_tree = pytree.tree_flatten(tuple(tangents))
        if t_tree != in_tree:
            raise TypeError(f"linearized function called on tangent values inconsistent with "
                            f"the original primal values: got tree {t_tree}, expected {in_tree}")
        t_in = [t for t, d in zip(t_leaves, lin.diff) if d]
        outs = lin.jvp(t_in)[:n]
        return pytree.tree_unflatten(out_tree, [_user_tangent(t, a)
                                                for t, a in zip(outs, lin.out_avals)])

    out = pytree.tree_unflatten(out_tree, lin.primals_out[:n])
    return (out, f_jvp, aux) if has_aux else (out, f_jvp)


def vjp(fun, *primals, has_aux: bool = False):
    """`fun(*primals)` and the function from output cotangents to input cotangents.

    >>> from jaxwg import vjp
    >>> import jaxwg.numpy as jnp
    >>> y, f_vjp = vjp(lambda x, y: x * y, jnp.array(2.0), jnp.array(5.0))
    >>> [float(c) for c in f_vjp(jnp.array(1.0))]
    [5.0, 2.0]
    """
    from ..frontend.array import aval_of

    lin, in_tree, out_tree, n, aux = _linearize_tree(fun, primals, has_aux, "vjp")

    def f_vjp(*cts):
        ct = cts[0] if len(cts) == 1 else cts
        ct_leaves, ct_tree = pytree.tree_flatten(ct)
        if ct_tree != out_tree:
            raise ValueError("unexpected tree structure.\n\nThe argument to a VJP function "
                             "returned by `jax.vjp` must match the pytree structure of the "
                             f"differentiated function {getattr(fun, '__name__', fun)}.\n\nBut "
                             f"the tree structures differ: got {ct_tree}, expected {out_tree}.")
        cts_out = []
        for leaf, aval in zip(ct_leaves, lin.out_avals):
            if not is_differentiable(aval):
                cts_out.append(None)
                continue
            got = aval_of(leaf)
            if got.shape != aval.shape or got.dtype is not aval.dtype:
                raise ValueError(f"unexpected JAX type (e.g. shape/dtype) for argument to vjp "
                                 f"function: got {got.str_short()}, but expected "
                                 f"{aval.str_short()} because the corresponding output of the "
                                 f"function had JAX type {aval.str_short()}")
            cts_out.append(leaf)
        return tuple(pytree.tree_unflatten(in_tree, lin.vjp(cts_out)))

    out = pytree.tree_unflatten(out_tree, lin.primals_out[:n])
    return (out, f_vjp, aux) if has_aux else (out, f_vjp)


def _argnums_tuple(argnums) -> tuple[int, ...]:
    if isinstance(argnums, (tuple, list)):
        return tuple(operator.index(i) for i in argnums)
    return (operator.index(argnums),)


def split_args(fun, args: tuple, argnums, what: str):
    """`fun` as a function of the arguments `argnums` names (the others fixed), and those."""
    nums = _argnums_tuple(argnums)
    for i in nums:
        # grad names missing arguments; the Jacobians only JAX's index check
        if i < -len(args) or (i >= len(args) and what != "grad"):
            raise ValueError("Positional argument indices, e.g. for `static_argnums`, must have "
                             "value greater than or equal to -len(args) and less than len(args), "
                             f"but got value {i} for len(args) == {len(args)}.")
        if i >= len(args):
            raise TypeError(f"differentiating with respect to argnums={argnums} requires at "
                            f"least {max(nums) + 1} positional arguments to be passed by the "
                            f"caller, but got only {len(args)} positional arguments.")
    nums = tuple(i % len(args) for i in nums)

    def partial(*dyn):
        full = list(args)
        for i, value in zip(nums, dyn):
            full[i] = value
        return fun(*full)

    partial.__name__ = getattr(fun, "__name__", what)
    return partial, tuple(args[i] for i in nums)


def _check_inputs(dyn_args, what: str, allow_int: bool, holomorphic: bool) -> None:
    from ..frontend.array import aval_of

    for leaf in pytree.tree_leaves(dyn_args):
        aval = aval_of(leaf)
        if holomorphic and not aval.dtype.is_complex:
            raise TypeError(f"{what} with holomorphic=True requires inputs with complex dtype, "
                            f"but got {aval.dtype.name}.")
        if not is_differentiable(aval) and not allow_int:
            raise TypeError(f"{what} requires real- or complex-valued inputs (input dtype that "
                            f"is a sub-dtype of np.inexact), but got {aval.dtype.name}. If you "
                            "want to use Boolean- or integer-valued inputs, use vjp or set "
                            "allow_int to True.")


def check_output(aval, what: str, holomorphic: bool) -> None:
    """JAX's check of an output of `grad` or `jacrev`: complex with `holomorphic`, else
    real floating point."""
    if holomorphic:
        if not aval.dtype.is_complex:
            raise TypeError(f"{what} with holomorphic=True requires outputs with complex "
                            f"dtype, but got {aval.dtype.name}.")
    elif aval.dtype.is_complex:
        raise TypeError(f"{what} requires real-valued outputs (output dtype that is a sub-dtype "
                        f"of np.floating), but got {aval.dtype.name}. For holomorphic "
                        "differentiation, pass holomorphic=True. For differentiation of "
                        "non-holomorphic functions involving complex outputs, use jax.vjp "
                        "directly.")
    elif not aval.dtype.is_float:
        raise TypeError(f"{what} requires real-valued outputs (output dtype that is a sub-dtype "
                        f"of np.floating), but got {aval.dtype.name}. For differentiation of "
                        "functions with integer outputs, use jax.vjp directly.")


# The docstrings of the functions `grad` and `value_and_grad` return (JAX's).
_GRAD_DOC = ("Gradient of {fun} with respect to positional argument(s) {argnums}. Takes the "
             "same arguments as {fun} but returns the gradient, which has the same shape as "
             "the arguments at positions {argnums}.")
_VALUE_AND_GRAD_DOC = (
    "Value and gradient of {fun} with respect to positional argument(s) {argnums}. Takes the "
    "same arguments as {fun} but returns a two-element tuple where the first element is the "
    "value of {fun} and the second element is the gradient, which has the same shape as the "
    "arguments at positions {argnums}.")


def value_and_grad(fun, argnums=0, has_aux: bool = False, holomorphic: bool = False,
                   allow_int: bool = False):
    """A function returning `fun`'s value and its gradient with respect to `argnums`.

    >>> from jaxwg import value_and_grad
    >>> import jaxwg.numpy as jnp
    >>> v, g = value_and_grad(lambda x: jnp.sum(x * x))(jnp.array([1.0, 2.0]))
    >>> float(v), g.tolist()
    (5.0, [2.0, 4.0])
    """
    from ..frontend.array import aval_of

    single = not isinstance(argnums, (tuple, list))

    @wraps(fun, _VALUE_AND_GRAD_DOC, argnums=argnums)
    def value_and_grad_f(*args, **kwargs):
        f = (lambda *a: fun(*a, **kwargs)) if kwargs else fun
        partial, dyn = split_args(f, args, argnums, "grad")
        _check_inputs(dyn, "grad", allow_int, holomorphic)
        out = vjp(partial, *dyn, has_aux=has_aux)
        y, f_vjp = out[0], out[1]
        y_aval = aval_of(y) if not isinstance(y, (tuple, list, dict)) else None
        if y_aval is None or y_aval.shape != ():
            shape = y_aval.shape if y_aval is not None else type(y).__name__
            raise TypeError(f"Gradient only defined for scalar-output functions. Output had "
                            f"shape: {shape}.")
        check_output(y_aval, "grad", holomorphic)
        from .. import lax

        grads = f_vjp(lax.convert_element_type(1, y_aval.dtype, weak_type=y_aval.weak_type))
        g = grads[0] if single else grads
        return ((y, out[2]), g) if has_aux else (y, g)

    return value_and_grad_f


def grad(fun, argnums=0, has_aux: bool = False, holomorphic: bool = False,
         allow_int: bool = False):
    """A function returning the gradient of scalar-valued `fun` with respect to `argnums`.

    >>> from jaxwg import grad
    >>> import jaxwg.numpy as jnp
    >>> grad(jnp.tanh)(0.0).item()
    1.0
    >>> [g.item() for g in grad(lambda x, y: x * y, argnums=(0, 1))(2.0, 3.0)]
    [3.0, 2.0]
    """
    vg = value_and_grad(fun, argnums, has_aux, holomorphic, allow_int)

    @wraps(fun, _GRAD_DOC, argnums=argnums)
    def grad_f(*args, **kwargs):
        value, g = vg(*args, **kwargs)
        return (g, value[1]) if has_aux else g

    return grad_f
