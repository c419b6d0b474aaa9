"""`lax.custom_linear_solve` and `lax.custom_root`: a solver's result differentiated
implicitly, not through the solver's iterations, as JAX's.

`custom_root`'s solution x* of f(x, θ) = 0 (θ: the values f closes over) has the
derivative dx* = -(∂f/∂x)^-1 ∂f/∂θ dθ, with `tangent_solve` applying the inverse: a
`custom_jvp`, so reverse mode transposes `tangent_solve` (which must be linear), as
JAX's does. `custom_linear_solve`'s x = A^-1 b (A: `matvec`, closing over θ) has the
cotangents A^-T ct for b (by `transpose_solve`) and -(∂(A x)/∂θ)^T of that for θ: a
`custom_vjp`, so it has reverse-mode derivatives (grad, vjp, jacrev) but, unlike JAX's,
no forward-mode ones.

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

from .. import lax
from ..frontend import pytree
from .custom import closure_convert, custom_jvp, custom_vjp
from .derivatives import linear_transpose
from .reverse import linearize, vjp
from .ad import jvp

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


def custom_linear_solve(matvec, b, solve, transpose_solve=None, symmetric: bool = False,
                        has_aux: bool = False):
    """`solve(matvec, b)`, the x with matvec(x) = b, differentiated implicitly (reverse
    mode): `transpose_solve(vecmat, ct)` solves the transposed system (`symmetric`: it is
    `solve`), as `jax.lax.custom_linear_solve`.

    >>> import jaxwg, jaxwg.numpy as jnp
    >>> from jaxwg import lax
    >>> a = jnp.array([[2.0, 1.0], [1.0, 3.0]])
    >>> dense = lambda mv, b: jnp.linalg.solve(a, b)
    >>> x = lambda b: lax.custom_linear_solve(lambda v: a @ v, b, dense, symmetric=True)
    >>> [round(v, 6) for v in x(jnp.array([3.0, 4.0])).tolist()]
    [1.0, 1.0]
    >>> [round(v, 6) for v in jaxwg.grad(lambda b: x(b).sum())(jnp.array([3.0, 4.0])).tolist()]
    [0.4, 0.2]
    """
    if transpose_solve is None and symmetric:
        transpose_solve = solve
    matvec_converted, consts = closure_convert(matvec, b)
    # The solvers' own closed-over values are arguments too, not differentiated (JAX's).
    solve_converted, solve_consts = closure_convert(
        lambda b, *c: solve(lambda v: matvec_converted(v, *c), b), b, *consts)
    if transpose_solve is None:
        transpose_converted, transpose_consts = None, []
    else:
        def transposed_solve(ct, *c):
            vecmat = linear_transpose(lambda v: matvec_converted(v, *c), ct)
            return _solution(transpose_solve(lambda y: vecmat(y)[0], ct), has_aux)

        transpose_converted, transpose_consts = closure_convert(transposed_solve, b, *consts)

    def solved(b, consts, other_consts):
        return solve_converted(b, *consts, *other_consts[:len(solve_consts)])

    def fwd(b, consts, other_consts):
        out = solved(b, consts, other_consts)
        return out, (_solution(out, has_aux), consts, other_consts)

    def bwd(res, ct):
        if transpose_converted is None:
            raise TypeError("transpose_solve required for backwards mode automatic "
                            "differentiation of custom_linear_solve")
        x, consts, other_consts = res
        ct_b = transpose_converted(_solution(ct, has_aux), *consts,
                                   *other_consts[len(solve_consts):])
        _, matvec_vjp = vjp(lambda *c: matvec_converted(x, *c), *consts)
        return ct_b, list(_negated(matvec_vjp(ct_b))), [c * 0 for c in other_consts]

    linear_solve = custom_vjp(solved)
    linear_solve.defvjp(fwd, bwd)
    return linear_solve(b, list(consts), list(solve_consts) + list(transpose_consts))


# `jax.lax` has them; they are built on the transformations above lax, so they join
# `jaxwg.lax` here (`jaxwg` imports this module, as it imports the rule tables).
lax.custom_linear_solve, lax.custom_root = custom_linear_solve, custom_root
lax.__all__ += ["custom_linear_solve", "custom_root"]
