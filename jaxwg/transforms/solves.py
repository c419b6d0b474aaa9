"""`lax.custom_linear_solve` and `lax.custom_root`: a solver's result differentiated
implicitly, not through the solver's iterations, as JAX's.

`custom_root`'s solution x* of f(x, θ) = 0 (θ: the values f closes over) has the
derivative dx* = -(∂f/∂x)^-1 ∂f/∂θ dθ, with `tangent_solve` applying the inverse: a
`custom_jvp`, so reverse mode transposes `tangent_solve` (which must be linear), as
JAX's does. `custom_linear_solve`'s x = A^-1 b (A: `matvec`, closing over θ) is a
primitive, as JAX's, holding its functions as jaxprs: its JVP solves again, dx = A^-1 (db
- ∂(A x)/∂θ dθ), linear in db, and its transpose solves the transposed system with
`transpose_solve` (A^-T ct), so forward and reverse mode both work and compose.

>>> import jaxwg, jaxwg.numpy as jnp
>>> from jaxwg import lax
>>> sqrt = lambda a: lax.custom_root(lambda x: x * x - a, 1.0, _newton, lambda g, y: y / g(1.0))
>>> def _newton(f, x):
...     for _ in range(20):
...         x = x - f(x) / (2 * x)
...     return x
>>> round(jaxwg.grad(sqrt)(4.0).item(), 6)  # d sqrt(a) / da = 1 / (2 sqrt(a))
0.25
"""

from __future__ import annotations

from typing import NamedTuple

from .. import lax
from ..frontend import primitives as P
from ..frontend import pytree
from ..frontend.array import aval_of
from ..frontend.jaxpr import (ClosedJaxpr, hoist_tracer_consts, jaxpr_as_fun, trace_body,
                              trace_to_jaxpr)
from .ad import Zero, instantiate, jvp, tangent_aval
from .batching import batch_jaxpr, batch_size, batched_first, move_axis
from .custom import closure_convert, custom_jvp
from .derivatives import linear_transpose
from .reverse import linearize
from .transpose import is_undefined

__all__ = ["custom_linear_solve", "custom_root"]


def _negated(tree):
    return pytree.tree_map(lambda t: -t, tree)


def _solution(out, has_aux: bool):
    return out[0] if has_aux else out


def custom_root(f, initial_guess, solve, tangent_solve, has_aux: bool = False):
    """`solve(f, initial_guess)`, a root of `f`, differentiated implicitly with
    `tangent_solve(g, y)` (the x with g(x) = y for the linear `g`), as `jax.lax.custom_root`.

    >>> import jaxwg
    >>> from jaxwg import lax
    >>> def cube_root(a):
    ...     bisect = lambda f, x: x * 0 + a ** (1 / 3)  # any solver
    ...     return lax.custom_root(lambda x: x ** 3 - a, 1.0, bisect, lambda g, y: y / g(1.0))
    >>> round(jaxwg.grad(cube_root)(8.0).item(), 6)  # 1 / (3 * 8^(2/3))
    0.083333
    """
    f_converted, consts = closure_convert(f, initial_guess)
    # The solver's own closed-over values are arguments too, not differentiated (JAX's).
    root_of, solve_consts = closure_convert(
        lambda guess, *c: solve(lambda x: f_converted(x, *c), guess), initial_guess, *consts)

    @custom_jvp
    def root(guess, consts, solve_consts):
        return root_of(guess, *consts, *solve_consts)

    @root.defjvp
    def root_jvp(primals, tangents):
        guess, consts, solve_consts = primals
        out = root_of(guess, *consts, *solve_consts)
        x = _solution(out, has_aux)
        _, rhs = jvp(lambda *c: f_converted(x, *c), tuple(consts), tuple(tangents[1]))
        _, g = linearize(lambda v: f_converted(v, *consts), x)
        x_dot = _negated(tangent_solve(g, rhs))
        if has_aux:
            return out, (x_dot, pytree.tree_map(lambda a: a * 0, out[1]))
        return out, x_dot

    return root(initial_guess, list(consts), list(solve_consts))


class LinearSolveJaxprs(NamedTuple):
    """The functions of a `custom_linear_solve` equation, each a ClosedJaxpr taking its
    constants, then the vector's leaves (vecmat and transpose_solve: None if not given)."""

    matvec: ClosedJaxpr
    vecmat: ClosedJaxpr | None
    solve: ClosedJaxpr
    transpose_solve: ClosedJaxpr | None


def _traced(fun, b_tree, b_avals, what: str) -> tuple[ClosedJaxpr, list, object]:
    """`fun` (vector pytree -> pytree) as a jaxpr over the vector's leaves, the values it
    closes over from enclosing traces hoisted to leading operands; (jaxpr, those values,
    the output tree)."""
    flat, out_tree = pytree.flatten_fun(lambda *leaves: fun(pytree.tree_unflatten(b_tree, leaves)),
                                        pytree.tree_structure(tuple(b_avals)))
    closed, consts = hoist_tracer_consts(trace_to_jaxpr(flat, list(b_avals), what))
    return closed, consts, out_tree()


def custom_linear_solve(matvec, b, solve, transpose_solve=None, symmetric: bool = False,
                        has_aux: bool = False):
    """`solve(matvec, b)`, the x with matvec(x) = b, differentiated implicitly, as
    `jax.lax.custom_linear_solve`: forward mode solves again for dx = A^-1 (db - dA x);
    reverse mode solves the transposed system with `transpose_solve(vecmat, ct)`
    (`symmetric`: it is `solve`).

    >>> import jaxwg, jaxwg.numpy as jnp
    >>> from jaxwg import lax
    >>> a = jnp.array([[2.0, 1.0], [1.0, 3.0]])
    >>> dense = lambda mv, b: jnp.linalg.solve(a, b)
    >>> x = lambda b: lax.custom_linear_solve(lambda v: a @ v, b, dense, symmetric=True)
    >>> [round(v, 6) for v in x(jnp.array([3.0, 4.0])).tolist()]
    [1.0, 1.0]
    >>> [round(v, 6) for v in jaxwg.grad(lambda b: x(b).sum())(jnp.array([3.0, 4.0])).tolist()]
    [0.4, 0.2]
    >>> [round(v, 6) for v in jaxwg.jvp(x, (jnp.array([3.0, 4.0]),), (jnp.array([1.0, 0.0]),))[1].tolist()]
    [0.6, -0.2]
    """
    if transpose_solve is None and symmetric:
        transpose_solve = solve
    b_leaves, b_tree = pytree.tree_flatten(b)
    b_avals = [aval_of(x) for x in b_leaves]
    matvec_jaxpr, matvec_consts, _ = _traced(matvec, b_tree, b_avals, "custom_linear_solve's matvec")
    _check_matvec(matvec_jaxpr, b_avals)

    def matvec_of(consts):
        return lambda v: pytree.tree_unflatten(b_tree, jaxpr_as_fun(matvec_jaxpr)(*consts, *pytree.tree_leaves(v)))

    solve_jaxpr, solve_consts, solve_tree = _traced(lambda v: solve(matvec_of(matvec_consts), v),
                                                    b_tree, b_avals, "custom_linear_solve's solve")
    vecmat_jaxpr = transpose_jaxpr = None
    vecmat_consts = transpose_consts = []
    if transpose_solve is not None:
        def vecmat(ct):
            return linear_transpose(matvec_of(matvec_consts), ct)(ct)[0]  # ct: b's shapes

        vecmat_jaxpr, vecmat_consts, _ = _traced(vecmat, b_tree, b_avals, "custom_linear_solve's vecmat")
        transpose_jaxpr, transpose_consts, _ = _traced(
            lambda ct: _solution(transpose_solve(vecmat, ct), has_aux), b_tree, b_avals,
            "custom_linear_solve's transpose_solve")
    jaxprs = LinearSolveJaxprs(matvec_jaxpr, vecmat_jaxpr, solve_jaxpr, transpose_jaxpr)
    consts = [matvec_consts, vecmat_consts, solve_consts, transpose_consts]
    outs = P.custom_linear_solve_p.bind(*[c for cs in consts for c in cs], *b_leaves,
                                        const_lengths=tuple(len(cs) for cs in consts),
                                        jaxprs=jaxprs)
    return pytree.tree_unflatten(solve_tree, outs)  # x, or (x, aux) with has_aux


def _check_matvec(matvec_jaxpr, b_avals) -> None:
    got, want = ([a.shape for a in avals] for avals in (matvec_jaxpr.out_avals, b_avals))
    if got != want:
        raise ValueError(f"matvec() output shapes must match b, got {got} and {want}")


def _split(values, const_lengths):
    """(matvec, vecmat, solve, transpose_solve constants; b's leaves) of the operands."""
    out, start = [], 0
    for n in const_lengths:
        out.append(list(values[start:start + n]))
        start += n
    return out, list(values[start:])


# -- rules ---------------------------------------------------------------------------------


def _solve_lowering(out_avals, *nodes, const_lengths, jaxprs):
    from ..frontend.jit import lower_jaxpr

    (_, _, solve_consts, _), b = _split(nodes, const_lengths)
    return lower_jaxpr(jaxprs.solve, solve_consts + b)


def _solve_jvp(primals, tangents, *, const_lengths, jaxprs):
    """x = A^-1 b, dx = A^-1 (db - dA x), dA x the tangent of matvec(x) in its constants
    (the solvers' constants are not differentiated, as JAX's)."""
    outs = P.custom_linear_solve_p.bind(*primals, const_lengths=const_lengths, jaxprs=jaxprs)
    (mv_consts, _, _, _), b = _split(primals, const_lengths)
    (mv_dots, _, _, _), b_dots = _split(tangents, const_lengths)
    x = outs[:len(b)]
    rhs = [instantiate(t, tangent_aval(aval_of(v))) for t, v in zip(b_dots, b)]
    if not all(isinstance(t, Zero) for t in mv_dots):
        dots = [instantiate(t, tangent_aval(aval_of(c))) for t, c in zip(mv_dots, mv_consts)]
        _, da_x = jvp(lambda *c: jaxpr_as_fun(jaxprs.matvec)(*c, *x), tuple(mv_consts), tuple(dots))
        rhs = [r - d for r, d in zip(rhs, da_x)]
    x_dot = P.custom_linear_solve_p.bind(*primals[:len(primals) - len(b)], *rhs,
                                         const_lengths=const_lengths, jaxprs=jaxprs)[:len(b)]
    aux = [Zero(tangent_aval(aval_of(a))) for a in outs[len(b):]]
    return outs, list(x_dot) + aux


def _solve_transpose(cts, *args, const_lengths, jaxprs):
    """The cotangent of b: the transposed system solved for the cotangent of x."""
    if jaxprs.transpose_solve is None:
        raise TypeError("transpose_solve required for backwards mode automatic "
                        "differentiation of custom_linear_solve")
    (mv, vm, solve, tsolve), b = _split(args, const_lengths)
    if any(is_undefined(c) for c in mv + vm + solve + tsolve):
        raise NotImplementedError("custom_linear_solve: transposition with respect to the "
                                  "constants of its functions")
    n = len(b)
    x_only = trace_body(lambda *a: jaxpr_as_fun(jaxprs.solve)(*a)[:n], jaxprs.solve.in_avals,
                        "custom_linear_solve's solve")
    swapped = LinearSolveJaxprs(jaxprs.vecmat, jaxprs.matvec, jaxprs.transpose_solve, x_only)
    ct_x = [instantiate(c, tangent_aval(v.aval)) for c, v in zip(cts[:n], b)]
    ct_b = P.custom_linear_solve_p.bind(*vm, *mv, *tsolve, *solve, *ct_x,
                                        const_lengths=(len(vm), len(mv), len(tsolve), len(solve)),
                                        jaxprs=swapped)
    return [None] * (len(args) - n) + list(ct_b)


def _solve_batch(vals, dims, *, const_lengths, jaxprs):
    """Every function batched over the batched constants and a batched vector (b is
    broadcast where only the constants are batched); all results batched."""
    size = batch_size(vals, dims)
    moved, in_dims = batched_first(vals, dims, size)
    (mv_d, vm_d, s_d, ts_d), b_d = _split(in_dims, const_lengths)
    (_, _, _, _), b = _split(moved, const_lengths)
    n = len(b)
    b = [x if d == 0 else move_axis(x, None, 0, size) for x, d in zip(b, b_d)]

    def batched(closed, const_dims, name):
        if closed is None:
            return None
        return batch_jaxpr(closed, size, const_dims + [0] * n, f"custom_linear_solve's {name}",
                           [0] * len(closed.out_avals))

    new = LinearSolveJaxprs(batched(jaxprs.matvec, mv_d, "matvec"), batched(jaxprs.vecmat, vm_d, "vecmat"),
                            batched(jaxprs.solve, s_d, "solve"),
                            batched(jaxprs.transpose_solve, ts_d, "transpose_solve"))
    outs = P.custom_linear_solve_p.bind(*moved[:len(moved) - n], *b, const_lengths=const_lengths,
                                        jaxprs=new)
    return outs, [0] * len(outs)


P.lowering_rules[P.custom_linear_solve_p] = _solve_lowering
P.jvp_rules[P.custom_linear_solve_p] = _solve_jvp
P.transpose_rules[P.custom_linear_solve_p] = _solve_transpose
P.batch_rules[P.custom_linear_solve_p] = _solve_batch


# `jax.lax` has them; they are built on the transformations above lax, so they join
# `jaxwg.lax` here (`jaxwg` imports this module, as it imports the rule tables).
lax.custom_linear_solve, lax.custom_root = custom_linear_solve, custom_root
lax.__all__ += ["custom_linear_solve", "custom_root"]
