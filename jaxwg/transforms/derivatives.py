"""`custom_gradient` and `linear_transpose`, as JAX's, built on `custom_vjp` and `vjp`.

`custom_gradient(f)`: `f` returns its value and the function from output cotangents to
input cotangents; the derivative rule is that function. JAX traces the rule while it
computes the value; here the backward pass calls `f` again on the saved arguments for
its rule (the value is computed twice when differentiated; the rule's results are the
same).

>>> import jaxwg
>>> @custom_gradient
... def double_grad(x):
...     return x, lambda g: (2 * g,)
>>> jaxwg.grad(double_grad)(1.0).item()
2.0
"""

from __future__ import annotations

import numpy as np

from .. import lax
from ..frontend import pytree
from ..frontend.array import aval_of
from ..frontend.shape_eval import ShapeDtypeStruct
from .custom import custom_vjp
from .reverse import vjp

__all__ = ["custom_gradient", "linear_transpose"]


def custom_gradient(fun):
    """`fun`, which returns `(value, vjp_rule)`, differentiated by `vjp_rule` (cotangent of
    the value -> a tuple of one cotangent per argument, or the one cotangent of a single
    argument), as `jax.custom_gradient`.

    >>> from jaxwg import custom_gradient
    >>> import jaxwg, jaxwg.numpy as jnp
    >>> @custom_gradient
    ... def f(x, y):
    ...     return x * y, lambda g: (g * y, -g)
    >>> [v.item() for v in jaxwg.grad(f, argnums=(0, 1))(3.0, 4.0)]
    [4.0, -1.0]
    """

    @custom_vjp
    def wrapped(*args):
        value, _ = fun(*args)
        return value

    def fwd(*args):
        value, _ = fun(*args)
        return value, args

    def bwd(args, ct):
        _, rule = fun(*args)
        cts = rule(ct)
        return cts if len(args) != 1 or isinstance(cts, tuple) and len(cts) == 1 else (cts,)

    wrapped.defvjp(fwd, bwd)
    return wrapped


def _zeros_like(x):
    """A zero array shaped like `x` (an array, a scalar or a `ShapeDtypeStruct`)."""
    if isinstance(x, ShapeDtypeStruct):
        return lax.full(x.shape, 0, x.dtype)
    aval = aval_of(x)
    return lax.full(aval.shape, lax.convert_element_type(0, aval.dtype, weak_type=aval.weak_type))


def linear_transpose(fun, *primals, reduce_axes=()):
    """The transpose of the linear function `fun` at arguments shaped like `primals`
    (arrays or `ShapeDtypeStruct`s): a function from an output cotangent to the tuple of
    input cotangents. Float (or complex) to float, or integer to integer, as JAX's.

    >>> from jaxwg import linear_transpose
    >>> import jaxwg, jaxwg.numpy as jnp
    >>> f_t = linear_transpose(lambda x: 2.0 * x.sum(), jnp.zeros(3))
    >>> f_t(1.0)[0].tolist()
    [2.0, 2.0, 2.0]
    """
    if reduce_axes:
        raise NotImplementedError("reduce_axes argument to transpose is deprecated")
    zeros = pytree.tree_map(_zeros_like, primals,
                            is_leaf=lambda x: isinstance(x, ShapeDtypeStruct))
    out, f_vjp = vjp(fun, *zeros)
    out_leaves, out_tree = pytree.tree_flatten(out)
    in_dtypes = [aval_of(x).dtype for x in pytree.tree_leaves(zeros)]
    out_dtypes = [aval_of(x).dtype for x in out_leaves]
    if not (all(d.is_inexact for d in in_dtypes + out_dtypes)
            or all(d.is_int for d in in_dtypes + out_dtypes)):
        raise TypeError("linear_transpose only supports [float or complex] -> [float or complex], "
                        "and integer -> integer functions, but got "
                        f"{[np.dtype(d.name) for d in in_dtypes]} -> "
                        f"{[np.dtype(d.name) for d in out_dtypes]}.")

    def transposed_fun(out_cotangent):
        ct_leaves, ct_tree = pytree.tree_flatten(out_cotangent)
        if ct_tree != out_tree:
            raise TypeError("cotangent tree does not match function output, "
                            f"expected {out_tree} but got {ct_tree}")
        for ct, want in zip(ct_leaves, out_leaves):
            got, exp = aval_of(ct), aval_of(want)
            if got.shape != exp.shape or got.dtype is not exp.dtype:
                raise TypeError("cotangent type does not match function output, expected "
                                f"{exp.str_short()} but got {got.str_short()}")
        # as arrays of the outputs' types (a Python scalar cotangent may pass straight through)
        ct_leaves = [lax.convert_element_type(ct, aval_of(want).dtype, weak_type=aval_of(want).weak_type)
                     for ct, want in zip(ct_leaves, out_leaves)]
        return f_vjp(pytree.tree_unflatten(out_tree, ct_leaves))

    return transposed_fun
