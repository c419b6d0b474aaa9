"""Partial evaluation of a jaxpr: splitting it into what known inputs determine and the rest.

Reverse mode traces a function's JVP to a jaxpr over (primals, tangents) and splits
it with `partial_eval_jaxpr`, the tangents unknown: the *known* jaxpr computes the
primal outputs and the *residuals* (the primal values that tangent equations use),
and the *unknown* jaxpr, linear in the tangents, takes the residuals and the tangents.
An equation goes to the unknown side when any of its inputs is unknown; a `jit` call
with some unknown inputs is split the same way inside, into a known and an unknown
call, so the staged calls stay calls (`grad(jit(f))` holds `jit` equations).

>>> import jaxwg, jaxwg.numpy as jnp
>>> closed = jaxwg.make_jaxpr(lambda x, t: (jnp.sin(x), jnp.cos(x) * t))(1.0, 1.0)
>>> known, unknown, out_unknown, n_res = partial_eval_jaxpr(closed.jaxpr, [False, True])
>>> print(known)
{ lambda ; a:f32[]. let b:f32[] = sin a; c:f32[] = cos a in (b, c) }
>>> print(unknown)
{ lambda ; a:f32[] b:f32[]. let c:f32[] = mul a b in (c,) }
>>> out_unknown, n_res
([False, True], 1)
"""

from __future__ import annotations

from ..frontend import primitives as P
from ..frontend.jaxpr import ClosedJaxpr, Jaxpr, JaxprEqn, Literal, Var


def partial_eval_jaxpr(jaxpr: Jaxpr, unknown_in: list[bool]):
    """Split `jaxpr` given which invars are unknown (constvars are known).

    Returns `(known, unknown, out_unknown, num_res)`: `known` takes the constvars and
    the known invars and returns the known outputs, then `num_res` residuals;
    `unknown` takes the residuals, then the unknown invars, and returns the unknown
    outputs; `out_unknown[i]` says on which side output `i` is."""
    unknown_vars = {id(v) for v, u in zip(jaxpr.invars, unknown_in) if u}
    known_eqns, unknown_eqns = [], []
    for eqn in jaxpr.eqns:
        flags = [_is_unknown(a, unknown_vars) for a in eqn.inputs]
        if not any(flags):
            known_eqns.append(eqn)
        elif eqn.primitive is P.jit_p:
            k_eqn, u_eqn = _split_call(eqn, flags, unknown_vars)
            if k_eqn is not None:
                known_eqns.append(k_eqn)
            unknown_eqns.append(u_eqn)
        else:
            unknown_eqns.append(eqn)
            unknown_vars.update(id(v) for v in eqn.out_binders)
    out_unknown = [_is_unknown(v, unknown_vars) for v in jaxpr.outvars]
    residuals = _residuals(unknown_eqns, [v for v, u in zip(jaxpr.outvars, out_unknown) if u],
                           unknown_vars)
    known = Jaxpr(list(jaxpr.constvars), [v for v, u in zip(jaxpr.invars, unknown_in) if not u],
                  known_eqns,
                  [v for v, u in zip(jaxpr.outvars, out_unknown) if not u] + residuals)
    unknown = Jaxpr([], residuals + [v for v, u in zip(jaxpr.invars, unknown_in) if u],
                    unknown_eqns, [v for v, u in zip(jaxpr.outvars, out_unknown) if u])
    return known, unknown, out_unknown, len(residuals)


def _is_unknown(atom, unknown_vars: set) -> bool:
    return not isinstance(atom, Literal) and id(atom) in unknown_vars


def _residuals(unknown_eqns, unknown_outs, unknown_vars: set) -> list:
    """The known variables the unknown side reads, each once, in order of first use."""
    seen, out = set(), []
    atoms = [a for eqn in unknown_eqns for a in eqn.inputs] + list(unknown_outs)
    for a in atoms:
        if isinstance(a, Var) and id(a) not in unknown_vars and id(a) not in seen:
            seen.add(id(a))
            out.append(a)
    return out


def _split_call(eqn: JaxprEqn, flags: list[bool], unknown_vars: set):
    """A `jit` equation with some unknown inputs as a known call (None if it has no
    known outputs or residuals) and an unknown call."""
    closed: ClosedJaxpr = eqn.params["jaxpr"]
    name = eqn.params["name"]
    known, unknown, out_unknown, num_res = partial_eval_jaxpr(closed.jaxpr, flags)
    known_outs = [v for v, u in zip(eqn.out_binders, out_unknown) if not u]
    residuals = [Var(v.aval) for v in known.outvars[len(known.outvars) - num_res:]]
    k_eqn = None
    if known_outs or residuals:
        k_eqn = JaxprEqn(P.jit_p, [a for a, f in zip(eqn.inputs, flags) if not f],
                         {"jaxpr": ClosedJaxpr(known, list(closed.consts)), "name": name},
                         known_outs + residuals)
    u_outs = [v for v, u in zip(eqn.out_binders, out_unknown) if u]
    u_eqn = JaxprEqn(P.jit_p, residuals + [a for a, f in zip(eqn.inputs, flags) if f],
                     {"jaxpr": ClosedJaxpr(unknown, []), "name": name}, u_outs)
    unknown_vars.update(id(v) for v in u_outs)
    return k_eqn, u_eqn
