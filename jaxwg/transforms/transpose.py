"""Transposition of linear jaxprs: the backward pass of reverse mode.

`backward_pass(jaxpr, consts, args, cts_out)` runs a jaxpr that is linear in the
arguments given as `UndefinedPrimal`s backwards: from the cotangents of its outputs it
accumulates the cotangent of every linear variable, equation by equation in reverse,
through each primitive's transpose rule (`primitives.transpose_rules`, filled by
`jaxwg.transforms.ad_rules`). A rule receives the output cotangent and the inputs, the
linear ones as `UndefinedPrimal`s, and returns one cotangent per input (None for the
non-linear ones). Equations with no linear input are evaluated forward first: they
are the residual computations of the linear function. Zero cotangents stay `Zero`.

>>> import jaxwg, jaxwg.numpy as jnp
>>> closed = jaxwg.make_jaxpr(lambda t: jnp.sum(t * 3.0))(jnp.ones(2))
>>> backward_pass(closed.jaxpr, closed.consts, [UndefinedPrimal(closed.in_avals[0])],
...               [jnp.array(1.0)])[0].tolist()
[3.0, 3.0]
"""

from __future__ import annotations

from ..frontend import primitives as P
from ..frontend.aval import ShapedArray
from ..frontend.jaxpr import Jaxpr, Literal
from .ad import Zero, add_tangents


class UndefinedPrimal:
    """A linear input of a transposed computation: only its aval is known."""

    __slots__ = ("aval",)

    def __init__(self, aval: ShapedArray):
        self.aval = aval

    def __repr__(self) -> str:
        return f"UndefinedPrimal({self.aval.str_short()})"


def is_undefined(x) -> bool:
    return isinstance(x, UndefinedPrimal)


def backward_pass(jaxpr: Jaxpr, consts, args, cts_out, seeds=None) -> list:
    """Cotangents of `args` (a `Zero` where none flows; None for defined args) given
    `cts_out`, one per output (a `Zero` or None for none). A linear arg's transpose
    rules see the aval of its `UndefinedPrimal`, not its binder's. `seeds` (one per
    arg, None for none) start an arg's cotangent: contributions are added to it as
    they come, as JAX's accumulators do in a transposed loop."""
    primal_env: dict[int, object] = {}
    linear: set[int] = set()
    arg_avals: dict[int, ShapedArray] = {}
    ct_env: dict[int, object] = {}
    for var, value in zip(jaxpr.constvars, consts):
        primal_env[id(var)] = value
    for var, value, seed in zip(jaxpr.invars, args, seeds or [None] * len(args)):
        if is_undefined(value):
            linear.add(id(var))
            arg_avals[id(var)] = value.aval
            if seed is not None:
                ct_env[id(var)] = seed
        else:
            primal_env[id(var)] = value

    def read(atom):
        return atom.as_array() if isinstance(atom, Literal) else primal_env[id(atom)]

    def is_linear(atom) -> bool:
        return not isinstance(atom, Literal) and id(atom) in linear

    linear_eqns = []
    for eqn in jaxpr.eqns:
        if any(is_linear(a) for a in eqn.inputs):
            linear.update(id(v) for v in eqn.out_binders)
            linear_eqns.append(eqn)
        else:  # a residual computed inside the linear function
            outs = eqn.primitive.bind(*[read(a) for a in eqn.inputs], **eqn.params)
            for var, value in zip(eqn.out_binders, outs if eqn.primitive.multiple_results else [outs]):
                primal_env[id(var)] = value

    def write_ct(atom, ct) -> None:
        if ct is None or isinstance(ct, Zero) or not is_linear(atom):
            return
        ct_env[id(atom)] = add_tangents(ct_env[id(atom)], ct) if id(atom) in ct_env else ct

    for var, ct in zip(jaxpr.outvars, cts_out):
        write_ct(var, ct)
    for eqn in reversed(linear_eqns):
        cts = [ct_env.pop(id(v), None) for v in eqn.out_binders]
        if all(ct is None for ct in cts):
            continue
        rule = P.transpose_rules.get(eqn.primitive)
        if rule is None:
            raise NotImplementedError(f"Transpose rule (for reverse-mode differentiation) for "
                                      f"'{eqn.primitive.name}' not implemented")
        invals = [UndefinedPrimal(arg_avals.get(id(a), a.aval)) if is_linear(a) else read(a)
                  for a in eqn.inputs]
        if eqn.primitive.multiple_results:
            ct_arg = [Zero(v.aval) if ct is None else ct for v, ct in zip(eqn.out_binders, cts)]
        else:
            ct_arg = cts[0]
        cts_in = rule(ct_arg, *invals, **eqn.params)
        for atom, ct in zip(eqn.inputs, cts_in):
            write_ct(atom, ct)
    return [ct_env.get(id(v), Zero(v.aval)) if is_undefined(a) else None
            for v, a in zip(jaxpr.invars, args)]
