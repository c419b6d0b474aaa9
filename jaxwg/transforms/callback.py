"""`pure_callback`: a Python function of NumPy values inside jaxwg programs, as
`jax.pure_callback`.

It binds `pure_callback`, a primitive whose operands are the array arguments and whose
results have the shapes and dtypes the caller declares. Where it runs (eagerly, or in a
jitted program, which then runs its jaxpr step by step as it does for `debug.callback`)
the operands are read back to the host, the function is called on them as NumPy arrays,
and its results become arrays again. Under `vmap`, `vmap_method` says how: "sequential"
calls it once per batch member, "expand_dims" and "broadcast_all" once with the batch
axis leading (unbatched operands with a size-1 axis there, or broadcast). It has no
derivative (JAX's error): wrap it in `custom_jvp` or `custom_vjp`.

>>> import numpy as np, jaxwg, jaxwg.numpy as jnp
>>> f = jaxwg.jit(lambda x: jaxwg.pure_callback(np.sin, jaxwg.ShapeDtypeStruct((), jnp.float32), x))
>>> f(jnp.float32(0.0)).item()
0.0
"""

from __future__ import annotations

import numpy as np

from .. import lax
from ..frontend import primitives as P
from ..frontend import pytree
from ..frontend.array import asarray_for_bind
from ..frontend.aval import ShapedArray, canonical_dtype
from ..frontend.control_flow import host_operands, with_node_avals
from .batching import batch_size, move_axis

__all__ = ["pure_callback"]

_VMAP_METHODS = ("sequential", "sequential_unrolled", "expand_dims", "broadcast_all",
                 "legacy_vectorized")

# `callback(*operands) -> result leaves` (NumPy arrays of `result_avals`), hashed by identity.
pure_callback_p = P._declare("pure_callback", lambda *avals, callback, result_avals, vmap_method:
                             list(result_avals), multiple_results=True)
# Its results are known only by running it: programs that hold one run step by step.
P.DATA_DEPENDENT = P.DATA_DEPENDENT + (pure_callback_p,)


def pure_callback(callback, result_shape_dtypes, *args, sharding=None, vmap_method=None,
                  **kwargs):
    """`callback(*args, **kwargs)` called on the host with the array arguments as NumPy
    arrays; its results (a pytree like `result_shape_dtypes`, whose leaves have `.shape`
    and `.dtype`) come back as arrays. Works eagerly, under `jit` (the program reads the
    arguments back), and under `vmap` with a `vmap_method`; not differentiable.

    >>> import numpy as np, jaxwg, jaxwg.numpy as jnp
    >>> jaxwg.pure_callback(lambda x: x * 2, jaxwg.ShapeDtypeStruct((2,), jnp.float32),
    ...                     jnp.ones(2)).tolist()
    [2.0, 2.0]
    """
    if vmap_method not in _VMAP_METHODS + (None,):
        raise ValueError(f"vmap_method must be on of the allowed methods "
                         f"{list(_VMAP_METHODS + (None,))}, but got: {vmap_method}")
    leaves, in_tree = pytree.tree_flatten((args, kwargs))
    result_leaves, out_tree = pytree.tree_flatten(result_shape_dtypes)
    result_avals = tuple(ShapedArray(tuple(r.shape), canonical_dtype(r.dtype)) for r in result_leaves)

    def flat_callback(*operands):
        c_args, c_kwargs = pytree.tree_unflatten(in_tree, list(operands))
        return pytree.tree_leaves(callback(*c_args, **c_kwargs))

    outs = pure_callback_p.bind(*leaves, callback=flat_callback, result_avals=result_avals,
                                vmap_method=vmap_method)
    return pytree.tree_unflatten(out_tree, outs)


def _lowering(out_avals, in_avals, *args, callback, result_avals, vmap_method):
    """Read the operands back, call, check the results and give their nodes."""
    out = callback(*[np.asarray(x) for x in host_operands(in_avals, args)])
    if len(out) != len(result_avals):
        raise RuntimeError(f"pure_callback: the callback returned {len(out)} values, "
                           f"expected {len(result_avals)}")
    nodes = []
    for i, (value, aval) in enumerate(zip(out, result_avals)):
        value = np.asarray(value)
        if value.shape != aval.shape:
            raise RuntimeError(f"Incorrect output shape for return value #{i}: Expected: "
                               f"{aval.shape}, Actual: {value.shape}")
        if canonical_dtype(value.dtype) != aval.dtype:  # float64 is float32 without x64
            raise RuntimeError(f"Incorrect output dtype for return value #{i}: Expected: "
                               f"{aval.dtype.name}, Actual: {value.dtype.name}")
        nodes.append(asarray_for_bind(value.astype(np.dtype(aval.dtype.name), copy=False)).node)
    return nodes


def _jvp(primals, tangents, **params):
    raise ValueError("Pure callbacks do not support JVP. Please use `jax.custom_jvp` to use "
                     "callbacks while taking gradients.")


def _transpose(ct, *args, **params):
    raise ValueError("Pure callbacks do not support transpose. Please use `jax.custom_vjp` "
                     "to use callbacks while taking gradients.")


def _batch(vals, dims, *, callback, result_avals, vmap_method):
    """One call per batch member ("sequential"), or one call with the batch axis first."""
    size = batch_size(vals, dims)
    if vmap_method is None:
        raise NotImplementedError(
            "vmap is only supported for the pure_callback primitive when vmap_method is one of "
            "'sequential', 'sequential_unrolled', 'expand_dims', 'broadcast_all', or "
            f"'legacy_vectorized'. Got vmap_method={vmap_method}.")
    if vmap_method.startswith("sequential"):
        members = [pure_callback_p.bind(*[v if d is None else lax.index_in_dim(v, i, d, False)
                                          for v, d in zip(vals, dims)],
                                        callback=callback, result_avals=result_avals,
                                        vmap_method=vmap_method) for i in range(size)]
        return [lax.stack([m[k] for m in members]) for k in range(len(result_avals))], \
            [0] * len(result_avals)
    front = [lax.expand_dims(v, (0,)) if d is None and vmap_method != "broadcast_all"
             else move_axis(v, d, 0, size) for v, d in zip(vals, dims)]
    batched = tuple(ShapedArray((size,) + a.shape, a.dtype) for a in result_avals)
    outs = pure_callback_p.bind(*front, callback=callback, result_avals=batched,
                                vmap_method=vmap_method)
    return outs, [0] * len(outs)


P.lowering_rules[pure_callback_p] = with_node_avals(_lowering)
P.complex_rules[pure_callback_p] = _lowering
P.jvp_rules[pure_callback_p] = _jvp
P.transpose_rules[pure_callback_p] = _transpose
P.batch_rules[pure_callback_p] = _batch
