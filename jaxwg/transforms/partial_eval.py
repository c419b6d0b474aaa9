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

from ..core.dtypes import FLOAT_FIELDS
from ..frontend import primitives as P
from ..frontend.jaxpr import (
    ClosedJaxpr,
    Jaxpr,
    JaxprEqn,
    Literal,
    Var,
    eval_jaxpr,
    has_effects,
    live_eqns,
    trace_body,
)


def partial_eval_jaxpr(jaxpr: Jaxpr, unknown_in: list[bool], instantiate=None):
    """Split `jaxpr` given which invars are unknown (constvars are known).

    Returns `(known, unknown, out_unknown, num_res)`: `known` takes the constvars and
    the known invars and returns the known outputs, then `num_res` residuals;
    `unknown` takes the residuals, then the unknown invars, and returns the unknown
    outputs; `out_unknown[i]` says on which side output `i` is. Outputs marked in
    `instantiate` go to the unknown side even when known (the unknown jaxpr returns
    them from residuals): loops and branches need one split for every path."""
    unknown_vars = {id(v) for v, u in zip(jaxpr.invars, unknown_in) if u}
    known_eqns, unknown_eqns = [], []
    for eqn in jaxpr.eqns:
        flags = [_is_unknown(a, unknown_vars) for a in eqn.inputs]
        if not any(flags):
            known_eqns.append(eqn)
        elif eqn.primitive in SPLIT_RULES:
            k_eqns, u_eqn = SPLIT_RULES[eqn.primitive](eqn, flags)
            known_eqns.extend(k_eqns)
            unknown_eqns.append(u_eqn)
            unknown_vars.update(id(v) for v in u_eqn.out_binders)
        else:
            unknown_eqns.append(eqn)
            unknown_vars.update(id(v) for v in eqn.out_binders)
    out_unknown = [_is_unknown(v, unknown_vars) or bool(instantiate and instantiate[i])
                   for i, v in enumerate(jaxpr.outvars)]
    residuals = _residuals(unknown_eqns, [v for v, u in zip(jaxpr.outvars, out_unknown) if u],
                           unknown_vars)
    known = Jaxpr(list(jaxpr.constvars), [v for v, u in zip(jaxpr.invars, unknown_in) if not u],
                  known_eqns,
                  [v for v, u in zip(jaxpr.outvars, out_unknown) if not u] + residuals)
    # The unknown side binds the residuals to variables of its own, as JAX's does: the
    # two jaxprs may be printed (or called) side by side.
    binders = {id(r): Var(r.aval) for r in residuals}
    unknown = Jaxpr([], list(binders.values()) + [v for v, u in zip(jaxpr.invars, unknown_in) if u],
                    [_renamed(e, binders) for e in unknown_eqns],
                    [binders.get(id(v), v) for v, u in zip(jaxpr.outvars, out_unknown) if u])
    return known, unknown, out_unknown, len(residuals)


def _renamed(eqn: JaxprEqn, binders: dict) -> JaxprEqn:
    """`eqn` reading `binders[id(v)]` for the variables `v` that `binders` renames."""
    if not any(id(a) in binders for a in eqn.inputs):
        return eqn
    return JaxprEqn(eqn.primitive, [binders.get(id(a), a) for a in eqn.inputs], eqn.params,
                    eqn.out_binders)


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


def _split_call(eqn: JaxprEqn, flags: list[bool]):
    """A `jit` equation with some unknown inputs as a known call (None if it has no
    known outputs or residuals) and an unknown call."""
    closed: ClosedJaxpr = eqn.params["jaxpr"]
    name = eqn.params["name"]
    known, unknown, out_unknown, num_res = partial_eval_jaxpr(closed.jaxpr, flags)
    known_outs = [v for v, u in zip(eqn.out_binders, out_unknown) if not u]
    known_inputs = [a for a, f in zip(eqn.inputs, flags) if not f]
    # A residual that is one of the known call's inputs is passed to the unknown call
    # from outside, not returned by the known one (JAX forwards them too).
    outer = {id(v): a for v, a in zip(known.invars, known_inputs)}
    res_vars = known.outvars[len(known.outvars) - num_res:]
    residuals = [outer.get(id(v)) or Var(v.aval) for v in res_vars]
    returned = [r for v, r in zip(res_vars, residuals) if id(v) not in outer]
    outvars = known.outvars[:len(known.outvars) - num_res] + [v for v in res_vars if id(v) not in outer]
    known = dce_jaxpr(Jaxpr(known.constvars, known.invars, known.eqns, outvars))
    k_eqns = []
    if known_outs or returned:
        k_eqns.append(JaxprEqn(P.jit_p, known_inputs,
                               {"jaxpr": ClosedJaxpr(known, list(closed.consts)), "name": name},
                               known_outs + returned))
    u_outs = [v for v, u in zip(eqn.out_binders, out_unknown) if u]
    u_eqn = JaxprEqn(P.jit_p, residuals + [a for a, f in zip(eqn.inputs, flags) if f],
                     {"jaxpr": ClosedJaxpr(unknown, []), "name": name}, u_outs)
    return k_eqns, u_eqn


def dce_jaxpr(jaxpr: Jaxpr) -> Jaxpr:
    """`jaxpr` without the equations its outputs do not need (debug callbacks stay),
    and, as JAX's DCE rules do, without the dead equations of cond branches or the scan
    carries, ys and inputs nothing needs."""
    return Jaxpr(jaxpr.constvars, jaxpr.invars, _dce(jaxpr.eqns, jaxpr.outvars), jaxpr.outvars)


def _dce(eqns: list, outvars: list) -> list:
    live = {id(v) for v in outvars if isinstance(v, Var)}
    kept = []
    for e in reversed(eqns):
        used = [id(v) in live for v in e.out_binders]
        if not any(used) and not has_effects(e):
            continue
        if e.primitive is P.cond_p:
            e = JaxprEqn(e.primitive, e.inputs, {**e.params, "branches": tuple(
                ClosedJaxpr(dce_jaxpr(b.jaxpr), b.consts) for b in e.params["branches"])}, e.out_binders)
        elif e.primitive is P.scan_p and not has_effects(e):
            e = _dce_scan(e, used)
        kept.append(e)
        live.update(id(a) for a in e.inputs if isinstance(a, Var))
    kept.reverse()
    return kept


def _dce_scan(eqn: JaxprEqn, used: list) -> JaxprEqn:
    """A scan keeping the carries that a used output needs (a fixed point: a carry
    feeds the next step), the used ys, and the inputs those read."""
    p = eqn.params
    body, nc, ncar = p["jaxpr"], p["num_consts"], p["num_carry"]
    j = body.jaxpr
    carry_used, ys_used = list(used[:ncar]), used[ncar:]
    while True:
        outs = [v for v, u in zip(j.outvars, carry_used + ys_used) if u]
        eqns = _dce(j.eqns, outs)
        read = {id(a) for e in eqns for a in e.inputs} | {id(v) for v in outs}
        needed = [u or id(v) in read for v, u in zip(j.invars[nc:nc + ncar], carry_used)]
        if needed == carry_used:
            break
        carry_used = needed
    keep_in = ([id(v) in read for v in j.invars[:nc]] + carry_used
               + [id(v) in read for v in j.invars[nc + ncar:]])
    new_body = ClosedJaxpr(Jaxpr(j.constvars, [v for v, k in zip(j.invars, keep_in) if k], eqns, outs),
                           body.consts)
    return JaxprEqn(P.scan_p, [a for a, k in zip(eqn.inputs, keep_in) if k],
                    {**p, "jaxpr": new_body, "num_consts": sum(keep_in[:nc]), "num_carry": sum(carry_used)},
                    [v for v, u in zip(eqn.out_binders, carry_used + ys_used) if u])


def _split_cond(eqn: JaxprEqn, flags: list[bool]):
    """A cond with unknown operands: a known cond computing the known outputs and the
    residuals, and an unknown cond of the branches' unknown parts, which reads the
    index and the residuals. As in JAX, branches share residual slots of one aval (the
    k-th residual of an aval in each branch takes the same slot), and a branch returns
    an empty value (`empty_p`) in the slots it does not fill. A cond whose index is
    unknown is unknown whole (an integer has no tangent, so only `_hoist_invariants`
    meets one: a branch chosen by a loop's xs stays in the loop)."""
    from .. import lax

    if flags[0]:
        return [], eqn
    branches = eqn.params["branches"]
    op_flags = flags[1:]
    out_unknown = [False] * len(eqn.out_binders)
    for b in branches:
        out_unknown = [a or b for a, b in
                       zip(out_unknown, partial_eval_jaxpr(b.jaxpr, op_flags)[2])]
    splits = [partial_eval_jaxpr(b.jaxpr, op_flags, out_unknown) for b in branches]
    slots, all_res = {}, []
    branch_slots = []
    for known, _, _, n in splits:
        seen: dict = {}
        own = []
        for v in known.outvars[len(known.outvars) - n:]:
            key = (v.aval.shape, v.aval.dtype, v.aval.weak_type)
            tag = (key, seen.setdefault(key, 0))
            seen[key] += 1
            if tag not in slots:
                slots[tag] = len(all_res)
                all_res.append(v.aval)
            own.append(slots[tag])
        branch_slots.append(own)
    known_ops = [a for a, f in zip(eqn.inputs[1:], op_flags) if not f]
    unknown_ops = [a for a, f in zip(eqn.inputs[1:], op_flags) if f]
    n_known_out = out_unknown.count(False)

    def empty(aval):
        value = P.empty_p.bind(dtype=aval.dtype, memory_space=P.MemorySpace.Device)
        return lax.broadcast_in_dim(value, aval.shape, ()) if aval.shape else value

    known_branches, unknown_branches = [], []
    for b, (known, unknown, _, n), own in zip(branches, splits, branch_slots):
        def known_fn(*ops, known=known, b=b, own=own):
            outs = eval_jaxpr(known, b.consts, ops)
            res = [empty(a) for a in all_res]
            for i, value in zip(own, outs[n_known_out:]):
                res[i] = value
            return outs[:n_known_out] + res

        def unknown_fn(*args, unknown=unknown, own=own):
            res, ops = args[:len(all_res)], args[len(all_res):]
            return eval_jaxpr(unknown, [], [res[i] for i in own] + list(ops))

        known_branches.append(trace_body(known_fn, [a.aval for a in known_ops], "a known branch"))
        unknown_branches.append(trace_body(unknown_fn, all_res + [a.aval for a in unknown_ops],
                                           "an unknown branch"))
    residuals = [Var(a) for a in all_res]
    index = eqn.inputs[0]
    k_eqn = JaxprEqn(P.cond_p, [index] + known_ops, {"branches": tuple(known_branches)},
                     [v for v, u in zip(eqn.out_binders, out_unknown) if not u] + residuals)
    u_eqn = JaxprEqn(P.cond_p, [index] + residuals + unknown_ops,
                     {"branches": tuple(unknown_branches)},
                     [v for v, u in zip(eqn.out_binders, out_unknown) if u])
    return [k_eqn], u_eqn


def _split_scan(eqn: JaxprEqn, flags: list[bool]):
    """A scan with unknown inputs: a known scan computing the known carries and ys and,
    as extra ys, the residuals of each step; and an unknown scan reading them. As in
    JAX: residuals that do not change across steps (known consts, the body's
    constants, values computed from known consts only, which are computed once
    before the loop) are passed once, not stacked; those that are known xs are passed
    from outside, not stacked again; and the per-step residuals follow the unknown
    scan's own xs."""
    p = eqn.params
    body, nc, ncar = p["jaxpr"], p["num_consts"], p["num_carry"]
    c_unk, carry_unk, x_unk = flags[:nc], flags[nc:nc + ncar], flags[nc + ncar:]
    while True:  # a carry is unknown if it is unknown on the way in or on the way out
        out = partial_eval_jaxpr(body.jaxpr, c_unk + carry_unk + x_unk)[2][:ncar]
        grown = [a or b for a, b in zip(carry_unk, out)]
        if grown == carry_unk:
            break
        carry_unk = grown
    ny = len(body.out_avals) - ncar
    known, unknown, out_unknown, n_res = partial_eval_jaxpr(
        body.jaxpr, c_unk + carry_unk + x_unk, carry_unk + [False] * ny)
    n_known_out = len(known.outvars) - n_res
    residuals = known.outvars[n_known_out:]
    const_values = {id(v): c for v, c in zip(body.jaxpr.constvars, body.consts)}
    binders = body.jaxpr.invars
    known_inputs = [a for a, f in zip(eqn.inputs, flags[:nc] + carry_unk + x_unk) if not f]
    n_kc = c_unk.count(False)
    consts_of = {id(v): a for v, a in zip(known.invars[:n_kc], known_inputs[:n_kc])}
    xs_of = {id(v): a for v, a, u in zip(binders[nc + ncar:], eqn.inputs[nc + ncar:], x_unk) if not u}
    body_consts = [r for r in residuals if id(r) in const_values]
    candidates = [r for r in residuals if id(r) not in const_values and id(r) not in consts_of
                  and id(r) not in xs_of]
    before, known, const_inputs, hoisted = _hoist_invariants(
        known, known_inputs[:n_kc], known.outvars[:n_known_out], candidates)
    consts_of.update(hoisted)
    invariant = [r for r in residuals if id(r) in consts_of]
    per_step = [r for r in residuals if id(r) not in const_values and id(r) not in consts_of]
    stacked = [r for r in per_step if id(r) not in xs_of]
    length = p["length"]
    # the known scan: its consts, known carries and xs; known carries, ys, stacked residuals
    known_body = ClosedJaxpr(Jaxpr(known.constvars, known.invars, known.eqns,
                                   known.outvars[:n_known_out] + stacked), body.consts)
    stacked_outer = {id(r): Var(r.aval.update(shape=(length,) + r.aval.shape)) for r in stacked}
    k_eqn = JaxprEqn(P.scan_p, const_inputs + known_inputs[n_kc:],
                     {**p, "jaxpr": known_body, "num_consts": len(const_inputs),
                      "num_carry": carry_unk.count(False)},
                     [v for v, u in zip(eqn.out_binders, out_unknown) if not u]
                     + [stacked_outer[id(r)] for r in stacked])
    # the unknown scan: consts (invariant residuals, unknown consts), unknown carries, xs
    # (unknown xs, per-step residuals); the body's constants stay its constants
    res_in = unknown.invars[:n_res]
    by_residual = {id(r): v for r, v in zip(residuals, res_in)}
    invars = ([by_residual[id(r)] for r in invariant] + unknown.invars[n_res:]
              + [by_residual[id(r)] for r in per_step])
    unknown_body = ClosedJaxpr(Jaxpr([by_residual[id(r)] for r in body_consts], invars,
                                     unknown.eqns, unknown.outvars),
                               [const_values[id(r)] for r in body_consts])
    unknown_inputs = ([consts_of[id(r)] for r in invariant]
                      + [a for a, f in zip(eqn.inputs, flags[:nc] + carry_unk + x_unk) if f]
                      + [xs_of[id(r)] if id(r) in xs_of else stacked_outer[id(r)] for r in per_step])
    u_eqn = JaxprEqn(P.scan_p, unknown_inputs,
                     {**p, "jaxpr": unknown_body, "num_consts": len(invariant) + sum(c_unk),
                      "num_carry": sum(carry_unk)},
                     [v for v, u in zip(eqn.out_binders, out_unknown) if u])
    return before + [k_eqn], u_eqn


def _hoist_invariants(body: Jaxpr, const_inputs: list, outs: list, residuals: list):
    """Move the equations of a scan body that read its consts only (not its constants,
    carries or xs) before the loop, as JAX's known scans do. `body` takes the consts
    (whose values are `const_inputs`), then carries and xs, and returns `outs` then
    `residuals`. Returns the equations to run before the loop, the body left (taking
    as consts the values those equations pass it, then the carries and xs, and
    returning `outs`), those values, and where each residual now computed before the
    loop is found."""
    n = len(const_inputs)
    if any(has_effects(e) for e in body.eqns):  # a callback runs once per step
        return [], body, const_inputs, {}
    lifted = Jaxpr([], body.constvars + body.invars, body.eqns, outs + residuals)
    unknown_in = [True] * len(body.constvars) + [False] * n + [True] * (len(body.invars) - n)
    before, inside, out_unknown, n_res = partial_eval_jaxpr(
        lifted, unknown_in, [True] * len(outs) + [False] * len(residuals))
    hoisted = [r for r, u in zip(residuals, out_unknown[len(outs):]) if not u]
    passed = before.outvars[len(before.outvars) - n_res:]
    env = {id(v): a for v, a in zip(before.invars, const_inputs)}
    made = list({id(v): v for v in passed + hoisted if id(v) not in env}.values())
    fresh = [Var(v.aval) for v in made]
    eqns = _inlined(ClosedJaxpr(Jaxpr([], before.invars, live_eqns(before.eqns, made), made), []),
                    const_inputs, fresh)
    env.update((id(v), f) for v, f in zip(made, fresh))
    inside = Jaxpr(body.constvars, inside.invars[:n_res] + inside.invars[n_res + len(body.constvars):],
                   inside.eqns, inside.outvars)
    return eqns, inside, [env[id(v)] for v in passed], {id(r): env[id(r)] for r in hoisted}


def _split_remat(eqn: JaxprEqn, flags: list[bool]):
    """A checkpointed call with unknown inputs: the known side computes the known outputs
    and only the residuals its `policy` saves, as plain equations (JAX inlines it); the
    unknown call takes the known inputs too and recomputes every other residual. Both
    keep only the equations their outputs need (and debug callbacks)."""
    p = eqn.params
    closed = p["jaxpr"]
    inner = closed.jaxpr
    known, unknown, out_unknown, n_res = partial_eval_jaxpr(inner, flags)
    # Save what the policy allows among the values the residuals are computed from
    # (walking back from the residuals, a saved value ends the walk).
    needed = {id(r) for r in known.outvars[len(known.outvars) - n_res:]}
    policy = p["policy"]
    saved = []
    for e in reversed(known.eqns):
        if not any(id(v) in needed for v in e.out_binders):
            continue
        if policy is not None and policy(e.primitive, **e.params):
            saved += [v for v in e.out_binders if id(v) in needed]
            continue
        needed.update(id(a) for a in e.inputs if isinstance(a, Var))
    saved.reverse()
    saved_ids = {id(v) for v in saved}
    n_known_out = len(known.outvars) - n_res
    k_outvars = known.outvars[:n_known_out] + saved
    k_closed = ClosedJaxpr(Jaxpr(known.constvars, known.invars,
                                 _rounded_where_reused(live_eqns(known.eqns, k_outvars), saved),
                                 k_outvars), closed.consts)
    saved_outer = [Var(v.aval) for v in saved]
    k_inputs = [a for a, f in zip(eqn.inputs, flags) if not f]
    k_binders = [v for v, u in zip(eqn.out_binders, out_unknown) if not u] + saved_outer
    k_eqns = _inlined(k_closed, k_inputs, k_binders)
    if k_eqns is None:
        k_eqns = [JaxprEqn(P.remat_p, k_inputs, {**p, "jaxpr": k_closed}, k_binders)]
    # The unknown call takes the saved values, then the inputs (known or not) that it
    # reads, in their order.
    recompute = [e for e in known.eqns if not all(id(v) in saved_ids for v in e.out_binders)]
    # the unknown equations read the residuals where the known ones compute them
    computed = {id(b): r for b, r in zip(unknown.invars, known.outvars[n_known_out:])}
    u_outvars = [computed.get(id(v), v) for v in unknown.outvars]
    u_eqns = live_eqns(recompute + [_renamed(e, computed) for e in unknown.eqns], u_outvars)
    read = {id(a) for e in u_eqns for a in e.inputs} | {id(v) for v in u_outvars}
    used = [id(v) in read for v in inner.invars]
    u_inner = Jaxpr(inner.constvars, saved + [v for v, u in zip(inner.invars, used) if u],
                    u_eqns, u_outvars)
    u_eqn = JaxprEqn(P.remat_p, saved_outer + [a for a, u in zip(eqn.inputs, used) if u],
                     {**p, "jaxpr": ClosedJaxpr(u_inner, closed.consts), "differentiated": True},
                     [v for v, u in zip(eqn.out_binders, out_unknown) if u])
    return k_eqns, u_eqn


def _rounded_where_reused(eqns: list, saved: list) -> list:
    """`eqns` with each saved float value that they also read passed through a
    `reduce_precision` to its own dtype's precision, as JAX's checkpoint does: a
    compiler may keep such a value wider than its dtype where the forward pass uses
    it, but not in the saved copy, and the two passes would see different values."""
    saved_ids = {id(v) for v in saved if v.aval.dtype.is_float}
    reread = {id(a) for e in eqns for a in e.inputs} & saved_ids
    out = []
    for e in eqns:
        if not any(id(v) in reread for v in e.out_binders):
            out.append(e)
            continue
        produced = [Var(v.aval) if id(v) in reread else v for v in e.out_binders]
        out.append(JaxprEqn(e.primitive, e.inputs, e.params, produced))
        for v, w in zip(e.out_binders, produced):
            if w is not v:
                exponent_bits, mantissa_bits = FLOAT_FIELDS[v.aval.dtype]
                out.append(JaxprEqn(P.reduce_precision_p, [w], {
                    "exponent_bits": exponent_bits, "mantissa_bits": mantissa_bits}, [v]))
    return out


def _inlined(closed: ClosedJaxpr, inputs: list, binders: list) -> list | None:
    """The equations of `closed`, reading `inputs` for its invars and binding its outvars
    to `binders` (fresh variables for the rest); None where plain equations cannot say
    it: it has constants, or an outvar is an input, a literal or returned twice."""
    jaxpr = closed.jaxpr
    made = {id(v) for e in jaxpr.eqns for v in e.out_binders}
    outs = [id(v) for v in jaxpr.outvars if isinstance(v, Var)]
    if closed.consts or len(outs) != len(jaxpr.outvars) or len(set(outs)) != len(outs) \
            or not made.issuperset(outs):
        return None
    env = {id(v): a for v, a in zip(jaxpr.invars, inputs)}
    env.update((id(v), b) for v, b in zip(jaxpr.outvars, binders))
    eqns = []
    for e in jaxpr.eqns:
        ins = [a if isinstance(a, Literal) else env[id(a)] for a in e.inputs]
        for v in e.out_binders:
            if id(v) not in env:
                env[id(v)] = Var(v.aval)
        eqns.append(JaxprEqn(e.primitive, ins, e.params, [env[id(v)] for v in e.out_binders]))
    return eqns


def _split_while(eqn: JaxprEqn, flags: list[bool]):
    raise ValueError("Reverse-mode differentiation does not work for lax.while_loop or "
                     "lax.fori_loop with dynamic start/stop values. Try using lax.scan, or "
                     "using fori_loop with static start/stop.")


SPLIT_RULES = {P.jit_p: _split_call, P.cond_p: _split_cond, P.scan_p: _split_scan,
               P.while_p: _split_while, P.remat_p: _split_remat}
