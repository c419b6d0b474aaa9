"""Forward-mode differentiation: the JVP trace, symbolic zero tangents, and `jvp`.

A `JVPTracer` carries a primal value and its tangent. Applying a primitive to JVP
tracers applies it to the primals and the primitive's JVP rule
(`primitives.jvp_rules`, filled by `jaxwg.transforms.ad_rules`) to the tangents. A
tangent that is known to be zero is a `Zero` (only its aval), not an array: inputs
that are not differentiated, integer values and constants cost nothing, and a rule
skips their terms. Zeros become arrays only where a result needs one (`instantiate`).

Reverse mode (`jaxwg.transforms.reverse`) is built on this: the JVP of a function
traced to a jaxpr, split into its primal and its linear part, and the linear part
transposed.

>>> import jaxwg.numpy as jnp
>>> primal, tangent = jvp(jnp.sin, (jnp.array(0.0),), (jnp.array(2.0),))
>>> float(primal), float(tangent)
(0.0, 2.0)
"""

from __future__ import annotations

import numpy as np

from ..frontend import primitives as P
from ..frontend import pytree
from ..frontend.array import asarray_for_bind
from ..frontend.aval import ShapedArray, is_python_scalar
from ..frontend.trace import Trace, Tracer, describe_traced, full_raise, new_main

# JAX's dtype of the tangents of integer and boolean values: zero bytes per element.
float0 = np.dtype([("float0", np.void, 0)])


class Zero:
    """A tangent (or cotangent) known to be zero, of aval `aval`."""

    __slots__ = ("aval",)

    def __init__(self, aval: ShapedArray):
        self.aval = aval

    def __repr__(self) -> str:
        return f"Zero({self.aval.str_short()})"


def is_differentiable(aval: ShapedArray) -> bool:
    """Whether values of `aval` have tangents (float and complex dtypes); others' are float0."""
    return aval.dtype.is_inexact


def tangent_aval(aval: ShapedArray) -> ShapedArray:
    """The aval of a tangent of a value of `aval`: the same shape, dtype and weak type
    (as JAX's: a weakly typed primal has a weakly typed tangent)."""
    return ShapedArray(aval.shape, aval.dtype, aval.weak_type)


def zeros(aval: ShapedArray):
    """An array of zeros of `aval` (a broadcast constant: no memory until used), weakly
    typed where `aval` is, as JAX's; keys' are float0 zeros, as JAX's (keys have no
    tangent space)."""
    from .. import lax

    if aval.dtype.is_key:
        return np.zeros(aval.shape, float0)
    return lax.full(aval.shape, lax.convert_element_type(0, aval.dtype, aval.weak_type))


def instantiate(tangent, aval: ShapedArray | None = None):
    """`tangent` as an array: a `Zero` becomes zeros of its aval (or of `aval`)."""
    if isinstance(tangent, Zero):
        return zeros(aval or tangent.aval)
    return tangent


def add_tangents(x, y):
    """The sum of two tangents of one aval, either of which may be a `Zero`."""
    if isinstance(x, Zero):
        return y
    if isinstance(y, Zero):
        return x
    return P.add_any_p.bind(x, y)


class JVPTracer(Tracer):
    __slots__ = ("primal", "tangent")

    def __init__(self, trace, primal, tangent):
        self._trace = trace
        self.primal = primal
        self.tangent = tangent

    @property
    def aval(self):
        from ..frontend.array import aval_of

        return aval_of(self.primal)

    def __repr__(self):
        return f"JVPTracer<{self.aval.str_short()}>"


class JVPTrace(Trace):
    def pure(self, value):
        from ..frontend.array import aval_of

        return JVPTracer(self, value, Zero(tangent_aval(aval_of(value))))

    lift = pure

    def process_primitive(self, primitive, tracers, params):
        primals = [t.primal for t in tracers]
        tangents = [t.tangent for t in tracers]
        if all(isinstance(t, Zero) for t in tangents):
            outs = primitive.bind(*primals, **params)
            out_list = outs if primitive.multiple_results else [outs]
            tracers_out = [self.pure(o) for o in out_list]
            return tracers_out if primitive.multiple_results else tracers_out[0]
        rule = P.jvp_rules.get(primitive)
        if rule is None:
            raise NotImplementedError(f"Differentiation rule for '{primitive.name}' not implemented")
        # Python scalars as weakly typed arrays: a rule's `lax.add(x, 1)` then has x's dtype
        # (two Python scalars of different kinds would be a dtype error).
        primals = [asarray_for_bind(p) if is_python_scalar(p) else p for p in primals]
        primal_out, tangent_out = rule(primals, tangents, **params)
        if primitive.multiple_results:
            return [JVPTracer(self, p, t) for p, t in zip(primal_out, tangent_out)]
        return JVPTracer(self, primal_out, tangent_out)


def jvp_flat(fun, primals, tangents, debug_info: str | None = None):
    """Run `fun(*primals) -> list` on JVP tracers: (primal outputs, tangent outputs);
    tangents in and out may be `Zero`s."""
    with new_main(JVPTrace, debug_info=debug_info) as main:
        trace = JVPTrace(main)
        outs = fun(*[JVPTracer(trace, p, t) for p, t in zip(primals, tangents)])
        out_tracers = [full_raise(trace, o) for o in outs]
        return [t.primal for t in out_tracers], [t.tangent for t in out_tracers]


def _user_tangent(tangent, aval: ShapedArray):
    """A tangent handed back to the user: zeros for a float value, float0 otherwise."""
    if is_differentiable(aval):
        return instantiate(tangent, tangent_aval(aval))
    return np.zeros(aval.shape, float0)


def _is_raw(x) -> bool:
    """Whether `x` is a NumPy or Python value rather than an Array or tracer."""
    return isinstance(x, (np.ndarray, np.generic)) or is_python_scalar(x)


def _check_tangent(primal_aval: ShapedArray, tangent, what: str) -> None:
    from ..frontend.array import aval_of

    if not is_differentiable(primal_aval):
        if getattr(tangent, "dtype", None) != float0:
            raise TypeError(f"{what}: the tangent of an integer or boolean primal of dtype "
                            f"{primal_aval.dtype.name} must have dtype float0, got "
                            f"{getattr(tangent, 'dtype', type(tangent).__name__)}")
        return
    t_aval = aval_of(tangent)
    if t_aval.shape != primal_aval.shape:
        raise ValueError(f"{what} called with different primal and tangent shapes; got primal "
                         f"shape {primal_aval.shape} and tangent shape {t_aval.shape}")
    if t_aval.dtype is not primal_aval.dtype:
        raise TypeError(f"primal and tangent arguments to {what} do not match; dtypes must be "
                        f"equal, got primal dtype {primal_aval.dtype.name} and tangent dtype "
                        f"{t_aval.dtype.name}")


def jvp(fun, primals, tangents, has_aux: bool = False):
    """The value of `fun(*primals)` and its directional derivative along `tangents`.

    `primals` and `tangents` are tuples (or lists) of pytrees of one structure; the
    tangent of an integer or boolean primal has dtype `float0`.

    >>> from jaxwg import jvp
    >>> import jaxwg.numpy as jnp
    >>> y, dy = jvp(lambda x: x ** 3, (jnp.array(2.0),), (jnp.array(1.0),))
    >>> float(y), float(dy)
    (8.0, 12.0)
    """
    from ..frontend.array import aval_of

    if not isinstance(primals, (tuple, list)) or not isinstance(tangents, (tuple, list)):
        raise TypeError("primal and tangent arguments to jax.jvp must be tuples or lists; found "
                        f"{type(primals).__name__} and {type(tangents).__name__}.")
    p_leaves, p_tree = pytree.tree_flatten(tuple(primals))
    t_leaves, t_tree = pytree.tree_flatten(tuple(tangents))
    if p_tree != t_tree:
        raise TypeError("primal and tangent arguments to jax.jvp must have the same tree "
                        f"structure; primals have tree structure {p_tree} whereas tangents have "
                        f"tree structure {t_tree}.")
    p_avals = [aval_of(p) for p in p_leaves]
    for aval, t in zip(p_avals, t_leaves):
        _check_tangent(aval, t, "jvp")
    tangents_in = [t if is_differentiable(a) else Zero(tangent_aval(a))
                   for a, t in zip(p_avals, t_leaves)]
    out_tree = []

    def flat(*xs):
        out = fun(*pytree.tree_unflatten(p_tree, xs))
        if has_aux:
            out, aux_leaves, rebuild_aux = _split_aux(out)
            out_tree.append(rebuild_aux)
            out_leaves, tree = pytree.tree_flatten(out)
            out_tree.insert(0, tree)
            return out_leaves + aux_leaves
        out_leaves, tree = pytree.tree_flatten(out)
        out_tree.append(tree)
        return out_leaves

    p_out, t_out = jvp_flat(flat, p_leaves, tangents_in, describe_traced(fun, "jvp"))
    n = out_tree[0].num_leaves
    t_user = [_user_tangent(t, aval_of(p)) for p, t in zip(p_out[:n], t_out[:n])]
    # A tangent passed through untouched (x + c) is the caller's value: an array where
    # the primal out is one, as JAX's (an output that is an input stays as it came).
    t_user = [asarray_for_bind(t) if _is_raw(t) and not _is_raw(p) and
              getattr(t, "dtype", None) != float0 else t for p, t in zip(p_out[:n], t_user)]
    result = (pytree.tree_unflatten(out_tree[0], p_out[:n]), pytree.tree_unflatten(out_tree[0], t_user))
    if has_aux:
        return (*result, out_tree[1](p_out[n:]))
    return result


def aux_pair(out) -> tuple:
    """A has_aux function's (output, aux), checked as JAX checks it (a TypeError)."""
    if not (isinstance(out, (tuple, list)) and len(out) == 2):
        raise TypeError("expected function with aux output to return a two-element tuple, "
                        f"but got type {type(out)} with value {out!r}")
    return tuple(out)


def _split_aux(out):
    """A has_aux function's (output, aux) pair as the output, aux's traced leaves and
    how to rebuild aux from their values: its other leaves (strings, Python numbers,
    concrete arrays) pass through as they are, as in JAX."""
    out, aux = aux_pair(out)
    leaves, tree = pytree.tree_flatten(aux)
    traced = [isinstance(leaf, Tracer) for leaf in leaves]
    kept = [None if t else leaf for leaf, t in zip(leaves, traced)]

    def rebuild(values):
        it = iter(values)
        return pytree.tree_unflatten(tree, [next(it) if t else k for t, k in zip(traced, kept)])

    return out, [leaf for leaf, t in zip(leaves, traced) if t], rebuild
