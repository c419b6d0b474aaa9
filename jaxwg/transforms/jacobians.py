"""Jacobians and Hessians: `jacfwd` (vmapped JVPs), `jacrev` (vmapped VJPs), `hessian`.

Both push a basis of one-hot vectors through the linear map in one batch (`vmap`),
so a Jacobian is one program, not a loop. The result is a pytree of the outputs'
structure whose leaves have the inputs' structure; each leaf's shape is the output
leaf's shape followed by the input leaf's.

>>> import jaxwg.numpy as jnp
>>> jacfwd(lambda x: x ** 2)(jnp.array([1.0, 2.0])).tolist()
[[2.0, 0.0], [0.0, 4.0]]
"""

from __future__ import annotations

import numpy as np

from ..frontend import pytree
from ..frontend.trace import wraps
from .ad import instantiate, is_differentiable, jvp_flat, tangent_aval
from .batching import move_axis, vmap_flat
from .reverse import _check_inputs, split_args, vjp


def _basis(avals) -> tuple[list, int]:
    """One-hot vectors over all elements of `avals`, one array (total, *shape) per aval."""
    from ..frontend.array import asarray_for_bind

    total = sum(a.size for a in avals)
    eye = np.eye(total, dtype=np.float32)
    out, start = [], 0
    for a in avals:
        block = eye[:, start:start + a.size].reshape((total,) + a.shape).astype(a.dtype.np)
        out.append(asarray_for_bind(block))
        start += a.size
    return out, total


def _nest(out_tree, in_tree, blocks) -> object:
    """`blocks[i][j]` (output leaf i, input leaf j) as the output tree of input trees."""
    return pytree.tree_unflatten(out_tree, [pytree.tree_unflatten(in_tree, row) for row in blocks])


def _target(argnums, dyn: tuple):
    """What is differentiated: the one argument (int argnums) or the tuple of them."""
    return dyn if isinstance(argnums, (tuple, list)) else dyn[0]


# The docstring of the functions `jacfwd` and `jacrev` return (JAX's).
_JACOBIAN_DOC = ("Jacobian of {fun} with respect to positional argument(s) {argnums}. Takes the "
                 "same arguments as {fun} but returns the jacobian of the output with respect "
                 "to the arguments at positions {argnums}.")


def jacfwd(fun, argnums=0, has_aux: bool = False, holomorphic: bool = False):
    """The Jacobian of `fun` with respect to `argnums`, by forward mode.

    >>> import jaxwg.numpy as jnp
    >>> jacfwd(lambda x, y: x * y, argnums=1)(2.0, jnp.ones(2)).tolist()
    [[2.0, 0.0], [0.0, 2.0]]
    """
    from ..frontend.array import aval_of

    @wraps(fun, _JACOBIAN_DOC, argnums=argnums)
    def jac(*args):
        partial, dyn = split_args(fun, args, argnums, "jacfwd")
        _check_inputs(dyn, "jacfwd", False, holomorphic)
        leaves, in_tree = pytree.tree_flatten(_target(argnums, dyn))
        in_avals = [aval_of(x) for x in leaves]
        basis, total = _basis(in_avals)
        trees = []

        def flat(*xs):
            target = pytree.tree_unflatten(in_tree, xs)
            out = partial(*target) if isinstance(argnums, (tuple, list)) else partial(target)
            if has_aux:
                out, aux = out
                trees.append(pytree.tree_structure(aux))
                aux_leaves = pytree.tree_leaves(aux)
            else:
                aux_leaves = []
            out_leaves, out_tree = pytree.tree_flatten(out)
            trees.insert(0, (out_tree, len(out_leaves)))
            return out_leaves + aux_leaves

        def push(*tangents):
            primals_out, tangents_out = jvp_flat(flat, leaves, list(tangents))
            return primals_out + [instantiate(t, tangent_aval(aval_of(p)))
                                  for p, t in zip(primals_out, tangents_out)]

        outs, dims = vmap_flat(push, total, basis, [0] * len(basis))
        (out_tree, n), m = trees[0], len(outs) // 2
        tangents = [move_axis(t, d, aval_of(t).ndim - (d is not None), total)
                    for t, d in zip(outs[m:m + n], dims[m:m + n])]
        blocks = [[_column(t, start, a) for start, a in _offsets(in_avals)] for t in tangents]
        result = _nest(out_tree, in_tree, blocks)
        if has_aux:
            return result, pytree.tree_unflatten(trees[1], outs[n:m])
        return result

    return jac


def _offsets(avals):
    start = 0
    for a in avals:
        yield start, a
        start += a.size


def _column(t, start: int, in_aval):
    """The columns of one input leaf in a Jacobian block (out..., total), shaped
    (out..., in...)."""
    from .. import lax
    from ..frontend.array import aval_of

    shape = aval_of(t).shape
    lo = (0,) * (len(shape) - 1) + (start,)
    hi = shape[:-1] + (start + in_aval.size,)
    return lax.reshape(lax.slice(t, lo, hi), shape[:-1] + in_aval.shape)


def _check_real_outputs(out_avals) -> None:
    for aval in out_avals:
        if not is_differentiable(aval):
            raise TypeError(f"jacrev requires real-valued outputs (output dtype that is a "
                            f"sub-dtype of np.floating), but got {aval.dtype.name}. For "
                            "differentiation of functions with integer outputs, use jax.vjp "
                            "directly.")


def jacrev(fun, argnums=0, has_aux: bool = False, holomorphic: bool = False,
           allow_int: bool = False):
    """The Jacobian of `fun` with respect to `argnums`, by reverse mode.

    >>> import jaxwg.numpy as jnp
    >>> jacrev(lambda x: jnp.sin(x) * 2)(jnp.zeros(2)).tolist()
    [[2.0, 0.0], [0.0, 2.0]]
    """
    from .. import lax
    from ..frontend.array import aval_of

    @wraps(fun, _JACOBIAN_DOC, argnums=argnums)
    def jac(*args):
        partial, dyn = split_args(fun, args, argnums, "jacrev")
        _check_inputs(dyn, "jacrev", allow_int, holomorphic)
        out = vjp(partial, *dyn, has_aux=has_aux)
        y, f_vjp = out[0], out[1]
        y_leaves, out_tree = pytree.tree_flatten(y)
        out_avals = [aval_of(v) for v in y_leaves]
        _check_real_outputs(out_avals)
        basis, total = _basis(out_avals)

        def pull(*cts):
            return pytree.tree_leaves(f_vjp(pytree.tree_unflatten(out_tree, list(cts))))

        cts, dims = vmap_flat(pull, total, basis, [0] * len(basis))
        in_leaves, in_tree = pytree.tree_flatten(_target(argnums, dyn))
        in_avals = [aval_of(x) for x in in_leaves]
        cts = [move_axis(c, d, 0, total) for c, d in zip(cts, dims)]
        blocks = []
        for start, a in _offsets(out_avals):
            row = []
            for c, in_aval in zip(cts, in_avals):
                rows = lax.slice(c, (start,) + (0,) * in_aval.ndim, (start + a.size,) + in_aval.shape)
                row.append(lax.reshape(rows, a.shape + in_aval.shape))
            blocks.append(row)
        result = _nest(out_tree, in_tree, blocks)
        return (result, out[2]) if has_aux else result

    return jac


def hessian(fun, argnums=0, has_aux: bool = False, holomorphic: bool = False):
    """The Hessian of scalar `fun`: `jacfwd(jacrev(fun))`.

    >>> import jaxwg.numpy as jnp
    >>> hessian(lambda x: jnp.sum(x ** 3))(jnp.array([1.0, 2.0])).tolist()
    [[6.0, 0.0], [0.0, 12.0]]
    """
    return jacfwd(jacrev(fun, argnums, has_aux, holomorphic), argnums, has_aux, holomorphic)


jacobian = jacrev
