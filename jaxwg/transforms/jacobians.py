"""Jacobians and Hessians: `jacfwd` (vmapped JVPs), `jacrev` (vmapped VJPs), `hessian`.

Both push a basis of one-hot vectors through the linear map in one batch (`vmap`),
so a Jacobian is one program, not a loop. The result is a pytree of the outputs'
structure whose leaves have the inputs' structure; each leaf's shape is the output
leaf's shape followed by the input leaf's. The basis and the unravelling of the
batched result are built as JAX builds them (an identity from iotas, `split`, reshape
and conversions), so that jaxprs of Jacobians print as JAX's.

>>> import jaxwg.numpy as jnp
>>> jacfwd(lambda x: x ** 2)(jnp.array([1.0, 2.0])).tolist()
[[2.0, 0.0], [0.0, 4.0]]
"""

from __future__ import annotations

import numpy as np

from ..frontend import pytree
from ..frontend.trace import wraps
from .ad import aux_pair, instantiate, is_differentiable, jvp_flat, tangent_aval
from .batching import move_axis, vmap_flat
from .reverse import _check_inputs, check_output, split_args, vjp


def _basis(avals) -> tuple[list, int]:
    """One-hot vectors over all elements of `avals`, one array (total, *shape) per aval:
    JAX's `_std_basis`, the columns of `jnp.eye` unravelled, each converted to its
    aval's dtype (a conversion JAX's jaxprs always show there)."""
    from ..frontend import primitives as P
    from ..frontend.promotion import result_type
    from ..lax.lax import _eye

    total = sum(a.size for a in avals)
    eye = _eye(result_type(*[a.dtype.np for a in avals]), (total, total))
    return _unravel(eye, 1, avals, lambda x, a: P.convert_element_type_p.bind(
        x, new_dtype=a.dtype, weak_type=a.weak_type)), total


def _unravel(arr, axis: int, avals, convert) -> list:
    """JAX's `_unravel_array_into_pytree`: `arr` split along `axis` into one piece per
    aval, the axis reshaped into the aval's shape, then `convert(piece, aval)`."""
    from .. import lax
    from ..frontend.array import aval_of

    shape = aval_of(arr).shape
    pieces = lax.split(arr, [a.size for a in avals], axis)
    return [convert(lax.reshape(x, shape[:axis] + a.shape + shape[axis + 1:]), a)
            for x, a in zip(pieces, avals)]


def _like(example):
    """A `convert` for `_unravel`: to the dtype and weak type of the aval `example`."""
    from .. import lax

    return lambda x, _: lax.convert_element_type(x, example.dtype, example.weak_type)


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


def _check_jacfwd_inputs(dyn, holomorphic: bool) -> None:
    """JAX's check of `jacfwd`'s inputs: complex with `holomorphic`, else real floating
    point (complex and integer inputs need `jvp`)."""
    from ..frontend.array import aval_of

    _check_inputs(dyn, "jacfwd", True, holomorphic)
    for leaf in pytree.tree_leaves(dyn):
        dtype = aval_of(leaf).dtype
        if not holomorphic and not dtype.is_float:
            raise TypeError(f"jacfwd requires real-valued inputs (input dtype that is a sub-dtype "
                            f"of np.floating), but got {dtype.name}. For holomorphic "
                            "differentiation, pass holomorphic=True. For differentiation of "
                            "non-holomorphic functions involving complex inputs or integer "
                            "inputs, use jax.jvp directly.")


def jacfwd(fun, argnums=0, has_aux: bool = False, holomorphic: bool = False):
    """The Jacobian of `fun` with respect to `argnums`, by forward mode.

    >>> from jaxwg import jacfwd
    >>> import jaxwg.numpy as jnp
    >>> jacfwd(lambda x, y: x * y, argnums=1)(2.0, jnp.ones(2)).tolist()
    [[2.0, 0.0], [0.0, 2.0]]
    """
    from ..frontend.array import aval_of

    @wraps(fun, _JACOBIAN_DOC, argnums=argnums)
    def jac(*args):
        partial, dyn = split_args(fun, args, argnums, "jacfwd")
        _check_jacfwd_inputs(dyn, holomorphic)
        leaves, in_tree = pytree.tree_flatten(_target(argnums, dyn))
        in_avals = [aval_of(x) for x in leaves]
        basis, total = _basis(in_avals)
        trees = []

        def flat(*xs):
            target = pytree.tree_unflatten(in_tree, xs)
            out = partial(*target) if isinstance(argnums, (tuple, list)) else partial(target)
            if has_aux:
                out, aux = aux_pair(out)
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
        if holomorphic:  # real outputs are fine without it
            for p in outs[:n]:
                check_output(aval_of(p), "jacfwd", holomorphic)
        tangents = [move_axis(t, d, aval_of(t).ndim - (d is not None), total)
                    for t, d in zip(outs[m:m + n], dims[m:m + n])]
        blocks = [_unravel(t, aval_of(t).ndim - 1, in_avals, _like(aval_of(p)))
                  for t, p in zip(tangents, outs[:n])]
        result = _nest(out_tree, in_tree, blocks)
        if has_aux:
            return result, pytree.tree_unflatten(trees[1], outs[n:m])
        return result

    return jac


def jacrev(fun, argnums=0, has_aux: bool = False, holomorphic: bool = False,
           allow_int: bool = False):
    """The Jacobian of `fun` with respect to `argnums`, by reverse mode.

    >>> from jaxwg import jacrev
    >>> import jaxwg.numpy as jnp
    >>> jacrev(lambda x: jnp.sin(x) * 2)(jnp.zeros(2)).tolist()
    [[2.0, 0.0], [0.0, 2.0]]
    """
    from ..frontend.array import aval_of

    @wraps(fun, _JACOBIAN_DOC, argnums=argnums)
    def jac(*args):
        partial, dyn = split_args(fun, args, argnums, "jacrev")
        _check_inputs(dyn, "jacrev", allow_int, holomorphic)
        out = vjp(partial, *dyn, has_aux=has_aux)
        y, f_vjp = out[0], out[1]
        y_leaves, out_tree = pytree.tree_flatten(y)
        out_avals = [aval_of(v) for v in y_leaves]
        for aval in out_avals:
            check_output(aval, "jacrev", holomorphic)
        basis, total = _basis(out_avals)
        in_leaves, in_tree = pytree.tree_flatten(_target(argnums, dyn))
        in_avals = [aval_of(x) for x in in_leaves]

        def pull(*cts):
            grads = pytree.tree_leaves(f_vjp(pytree.tree_unflatten(out_tree, list(cts))))
            # an integer input's float0 cotangent: zeros of its dtype, as JAX's conversion
            return [g if is_differentiable(a) else np.zeros(a.shape, a.dtype.np)
                    for g, a in zip(grads, in_avals)]

        cts, dims = vmap_flat(pull, total, basis, [0] * len(basis))
        cts = [move_axis(c, d, 0, total) for c, d in zip(cts, dims)]
        columns = [_unravel(c, 0, out_avals, _like(in_aval)) for c, in_aval in zip(cts, in_avals)]
        blocks = [list(row) for row in zip(*columns)]  # by output leaf, then input leaf
        result = _nest(out_tree, in_tree, blocks)
        return (result, out[2]) if has_aux else result

    return jac


def hessian(fun, argnums=0, has_aux: bool = False, holomorphic: bool = False):
    """The Hessian of scalar `fun`: `jacfwd(jacrev(fun))`.

    >>> from jaxwg import hessian
    >>> import jaxwg.numpy as jnp
    >>> hessian(lambda x: jnp.sum(x ** 3))(jnp.array([1.0, 2.0])).tolist()
    [[6.0, 0.0], [0.0, 12.0]]
    """
    return jacfwd(jacrev(fun, argnums, has_aux, holomorphic), argnums, has_aux, holomorphic)


jacobian = jacrev
