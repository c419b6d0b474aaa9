"""JVP, transpose and batching rules of `cond`, `while` and `scan`.

Bodies are transformed as jaxprs and the primitive is bound again with the new bodies,
so a differentiated or batched loop is still one loop:

* JVP: the body's JVP as a jaxpr (`jvp_jaxpr`); loop carries of float dtype carry
  tangents (zeros where none came in), so every iteration has one structure.
* Transpose (reverse mode; partial evaluation is in `partial_eval.py`): a cond of the
  branches' transposes; a scan run the other way whose carry holds the cotangents of the
  carry and of the loop-invariant linear inputs. `while` has no transpose, as in JAX.
* Batching: a cond whose index is batched computes every branch and selects, per member;
  a while loop whose predicate is batched runs until no member's holds and leaves the
  finished members unchanged; a scan batches its body, and only the carries and ys
  that depend on the batch (xs keep the scanned axis first).

>>> import jaxwg, jaxwg.numpy as jnp
>>> from jaxwg import lax
>>> jaxwg.grad(lambda x: lax.fori_loop(0, 3, lambda i, v: v * x, 1.0))(2.0).item()
12.0
"""

from __future__ import annotations

import numpy as np

from .. import lax
from ..frontend import primitives as P
from ..frontend.array import aval_of
from ..frontend.aval import ShapedArray
from ..frontend.jaxpr import ClosedJaxpr, Jaxpr, eval_jaxpr, jaxpr_as_fun, trace_body
from .ad import Zero, instantiate, is_differentiable, jvp_flat, tangent_aval
from .batching import batch_jaxpr, batch_size, batched_first, batched_outputs, move_axis
from .transpose import UndefinedPrimal, backward_pass, is_undefined


def _permuted(closed: ClosedJaxpr, in_order, out_order) -> ClosedJaxpr:
    """`closed` with its invars and outvars reordered by index lists."""
    j = closed.jaxpr
    return ClosedJaxpr(Jaxpr(j.constvars, [j.invars[i] for i in in_order], j.eqns,
                             [j.outvars[i] for i in out_order]), closed.consts)


# -- JVP --------------------------------------------------------------------------------------


def jvp_jaxpr(closed: ClosedJaxpr, nonzero: list[bool], what: str):
    """`closed`'s JVP as a jaxpr of (primals, tangents of the `nonzero` inputs) returning
    (primal outputs, tangents of the float outputs); and which outputs have tangents."""
    avals = closed.in_avals
    n = len(avals)
    out_diff = [is_differentiable(a) for a in closed.out_avals]

    def fn(*args):
        it = iter(args[n:])
        ts = [next(it) if nz else Zero(tangent_aval(a)) for a, nz in zip(avals, nonzero)]
        p_out, t_out = jvp_flat(jaxpr_as_fun(closed), args[:n], ts)
        return p_out + [instantiate(t, tangent_aval(a))
                        for t, a, d in zip(t_out, closed.out_avals, out_diff) if d]

    t_avals = [tangent_aval(a) for a, nz in zip(avals, nonzero) if nz]
    return trace_body(fn, avals + t_avals, f"jvp of {what}"), out_diff


def _split_out(outs, avals, diff):
    """Primal outputs, then tangents: a `Zero` where an output has none."""
    m = len(avals)
    it = iter(outs[m:])
    return outs[:m], [next(it) if d else Zero(tangent_aval(a)) for a, d in zip(avals, diff)]


def _cond_jvp(primals, tangents, *, branches):
    index, *ops = primals
    nonzero = [not isinstance(t, Zero) for t in tangents[1:]]
    new = [jvp_jaxpr(b, nonzero, "cond") for b in branches]
    op_ts = [t for t, nz in zip(tangents[1:], nonzero) if nz]
    outs = P.cond_p.bind(index, *ops, *op_ts, branches=tuple(b for b, _ in new))
    return _split_out(outs, branches[0].out_avals, new[0][1])


def _carry_tangents(carry, tangents):
    """Tangents of the carries: instantiated for float carries, none for the others."""
    return [instantiate(t, tangent_aval(aval_of(c))) for c, t in zip(carry, tangents)
            if is_differentiable(aval_of(c))]


def _while_jvp(primals, tangents, *, cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts):
    nc, nb = cond_nconsts, body_nconsts
    cc, bc, carry = primals[:nc], primals[nc:nc + nb], primals[nc + nb:]
    bc_nz = [not isinstance(t, Zero) for t in tangents[nc:nc + nb]]
    carry_nz = [is_differentiable(aval_of(c)) for c in carry]
    body, _ = jvp_jaxpr(body_jaxpr, bc_nz + carry_nz, "while_loop")
    k, m, kt = len(bc), len(carry), sum(bc_nz)
    # invars (bc, carry, bc_t, carry_t) -> (bc, bc_t, carry, carry_t)
    order = (list(range(k)) + list(range(k + m, k + m + kt)) + list(range(k, k + m))
             + list(range(k + m + kt, k + m + kt + sum(carry_nz))))
    body = _permuted(body, order, range(len(body.jaxpr.outvars)))
    t_avals = [tangent_aval(aval_of(c)) for c, nz in zip(carry, carry_nz) if nz]
    cond = trace_body(lambda *xs: jaxpr_as_fun(cond_jaxpr)(*xs[:nc + m]), cond_jaxpr.in_avals + t_avals,
                  "jvp of while_loop's cond")
    bc_t = [t for t, nz in zip(tangents[nc:nc + nb], bc_nz) if nz]
    outs = P.while_p.bind(*cc, *bc, *bc_t, *carry, *_carry_tangents(carry, tangents[nc + nb:]),
                          cond_jaxpr=cond, body_jaxpr=body, cond_nconsts=nc, body_nconsts=k + kt)
    return _split_out(outs, [aval_of(c) for c in carry], carry_nz)


def _scan_jvp(primals, tangents, *, jaxpr, length, reverse, num_consts, num_carry, unroll):
    nc, ncar = num_consts, num_carry
    consts, carry, xs = primals[:nc], primals[nc:nc + ncar], primals[nc + ncar:]
    c_nz = [not isinstance(t, Zero) for t in tangents[:nc]]
    carry_nz = [is_differentiable(aval_of(c)) for c in carry]
    x_nz = [not isinstance(t, Zero) for t in tangents[nc + ncar:]]
    body, out_diff = jvp_jaxpr(jaxpr, c_nz + carry_nz + x_nz, "scan")
    nx, kc, kcar, kx = len(xs), sum(c_nz), sum(carry_nz), sum(x_nz)
    base = nc + ncar + nx
    order = (list(range(nc)) + list(range(base, base + kc))
             + list(range(nc, nc + ncar)) + list(range(base + kc, base + kc + kcar))
             + list(range(nc + ncar, base)) + list(range(base + kc + kcar, base + kc + kcar + kx)))
    ny = len(jaxpr.out_avals) - ncar
    y_diff = out_diff[ncar:]
    m = ncar + ny
    out_order = (list(range(ncar)) + list(range(m, m + kcar)) + list(range(ncar, m))
                 + list(range(m + kcar, m + kcar + sum(y_diff))))
    body = _permuted(body, order, out_order)
    outs = P.scan_p.bind(*consts, *[t for t, nz in zip(tangents[:nc], c_nz) if nz],
                         *carry, *_carry_tangents(carry, tangents[nc:nc + ncar]),
                         *xs, *[t for t, nz in zip(tangents[nc + ncar:], x_nz) if nz],
                         jaxpr=body, length=length, reverse=reverse, num_consts=nc + kc,
                         num_carry=ncar + kcar, unroll=unroll)
    carry_out, carry_t = outs[:ncar], outs[ncar:ncar + kcar]
    ys, ys_t = outs[ncar + kcar:ncar + kcar + ny], outs[ncar + kcar + ny:]
    it_c, it_y = iter(carry_t), iter(ys_t)
    y_avals = [aval_of(y) for y in ys]
    return (carry_out + ys,
            [next(it_c) if d else Zero(tangent_aval(aval_of(c))) for c, d in zip(carry_out, carry_nz)]
            + [next(it_y) if d else Zero(tangent_aval(a)) for a, d in zip(y_avals, y_diff)])


# -- transpose ---------------------------------------------------------------------------------


def _cond_transpose(cts, index, *ops, branches):
    undefined = [is_undefined(x) for x in ops]
    defined = [x for x in ops if not is_undefined(x)]
    out_avals = branches[0].out_avals
    ct_values = [instantiate(ct, a) for ct, a in zip(cts, out_avals)]
    k = len(defined)

    def transposed(branch):
        def fn(*args):
            it = iter(args[:k])
            full = [x if u else next(it) for x, u in zip(ops, undefined)]
            cts_in = backward_pass(branch.jaxpr, branch.consts, full, list(args[k:]))
            return [instantiate(c, x.aval) for c, x, u in zip(cts_in, ops, undefined) if u]

        return trace_body(fn, [aval_of(d) for d in defined] + list(out_avals), "transpose of cond")

    outs = iter(P.cond_p.bind(index, *defined, *ct_values,
                              branches=tuple(transposed(b) for b in branches)))
    return [None] + [next(outs) if u else None for u in undefined]


def _scan_transpose(cts, *args, jaxpr, length, reverse, num_consts, num_carry, unroll):
    """A scan the other way. As JAX's: its consts are the defined consts (residuals),
    its carries the cotangents of the linear consts (summed) and of the carries, its
    xs the cotangents of the ys (those not known to be zero), then the defined xs."""
    nc, ncar = num_consts, num_carry
    consts, carry, xs = args[:nc], args[nc:nc + ncar], args[nc + ncar:]
    # A carry given as a value starts from known zeros (a tangent that only the loop
    # makes nonzero): it is transposed as linear, and its cotangent dropped.
    res_consts = [c for c in consts if not is_undefined(c)]
    lin_consts = [c for c in consts if is_undefined(c)]
    res_xs = [x for x in xs if not is_undefined(x)]
    x_avals = jaxpr.in_avals[nc + ncar:]
    # The carries' cotangents have the avals of the carries out (strong where a weakly
    # typed init became strong), as in JAX.
    carry_avals = jaxpr.out_avals[:ncar]
    y_avals = jaxpr.out_avals[ncar:]
    ct_carry = [instantiate(c, a) for c, a in zip(cts[:ncar], carry_avals)]
    ct_ys = [c for c in cts[ncar:] if not isinstance(c, Zero)]
    y_nonzero = [not isinstance(c, Zero) for c in cts[ncar:]]
    # A step's slice of each ys cotangent, typed as the cotangent (a strong one stays
    # strong where the ys were weak), as in JAX.
    ct_y_avals = [ShapedArray(a.shape[1:], a.dtype, a.weak_type) for a in map(aval_of, ct_ys)]
    acc0 = [instantiate(Zero(c.aval)) for c in lin_consts]
    nr, nl, nct = len(res_consts), len(lin_consts), len(ct_ys)

    def body_t(*a):
        rc, acc, ctc = a[:nr], a[nr:nr + nl], a[nr + nl:nr + nl + ncar]
        cty, rx = iter(a[nr + nl + ncar:nr + nl + ncar + nct]), iter(a[nr + nl + ncar + nct:])
        it_rc = iter(rc)
        full = ([UndefinedPrimal(c.aval) if is_undefined(c) else next(it_rc) for c in consts]
                + [UndefinedPrimal(aval) for aval in carry_avals]
                + [UndefinedPrimal(xa) if is_undefined(x) else next(rx)
                   for x, xa in zip(xs, x_avals)])
        ct_out = [next(cty) if nz else Zero(ya) for nz, ya in zip(y_nonzero, y_avals)]
        it_acc = iter(acc)
        seeds = [next(it_acc) if is_undefined(c) else None for c in consts] + [None] * (ncar + len(xs))
        cts_in = backward_pass(jaxpr.jaxpr, jaxpr.consts, full, list(ctc) + ct_out, seeds)
        ct_c = [instantiate(c, x.aval) for c, x in zip(cts_in[:nc], consts) if is_undefined(x)]
        ct_car = [instantiate(c, aval) for c, aval in zip(cts_in[nc:nc + ncar], carry_avals)]
        ct_x = [instantiate(c, xa) for c, x, xa in zip(cts_in[nc + ncar:], xs, x_avals)
                if is_undefined(x)]
        return ct_c + ct_car + ct_x

    avals = ([aval_of(c) for c in res_consts] + [c.aval for c in lin_consts] + carry_avals
             + ct_y_avals
             + [xa for x, xa in zip(xs, x_avals) if not is_undefined(x)])
    body = trace_body(body_t, avals, "transpose of scan")
    outs = P.scan_p.bind(*res_consts, *acc0, *ct_carry, *ct_ys, *res_xs, jaxpr=body,
                         length=length, reverse=not reverse, num_consts=nr,
                         num_carry=nl + ncar, unroll=unroll)
    it_c, ct_init, it_x = iter(outs[:nl]), outs[nl:nl + ncar], iter(outs[nl + ncar:])
    return ([next(it_c) if is_undefined(c) else None for c in consts]
            + [ct if is_undefined(c) else None for ct, c in zip(ct_init, carry)]
            + [next(it_x) if is_undefined(x) else None for x in xs])


# -- batching ----------------------------------------------------------------------------------


def _cond_batch(vals, dims, *, branches):
    size = batch_size(vals, dims)
    index = vals[0]
    ops, op_dims = batched_first(vals[1:], dims[1:], size)
    if dims[0] is None:  # as JAX: only the outputs some branch makes batched are
        batched = [False] * len(branches[0].out_avals)
        for b in branches:
            batched = [x or y for x, y in zip(batched, batched_outputs(b, size, op_dims))]
        out_dims = [0 if b else None for b in batched]
        new = tuple(batch_jaxpr(b, size, op_dims, "cond", out_dims) for b in branches)
        return P.cond_p.bind(index, *ops, branches=new), out_dims
    # A per-member index: every branch runs, each member takes its branch's results. A
    # branch sees the operands of the members that take it, and stopped gradients of the
    # others (as JAX does): the untaken branch's derivative (sqrt's at -1: NaN) times a
    # zero cotangent would otherwise leak NaN into the gradient.
    index = move_axis(index, dims[0], 0, size)
    ops = [move_axis(x, d, 0, size) for x, d in zip(ops, op_dims)]
    results = []
    for i, branch in enumerate(branches):
        batched = batch_jaxpr(branch, size, [0] * len(ops), "cond")
        taken = lax.eq(index, np.array(i, index.dtype))
        results.append(eval_jaxpr(batched.jaxpr, batched.consts,
                                  [_select_members(taken, x, lax.stop_gradient(x)) for x in ops]))
    return [lax.select_n(_per_member(index, outs[0]), *outs) for outs in zip(*results)], [0] * len(results[0])


def _per_member(index, like):
    """`index` (one per member, axis 0) broadcast to `like`'s shape."""
    if index.ndim == like.ndim:
        return index
    return lax.broadcast_in_dim(index, like.shape, (0,))


def _select_members(pred, on_true, on_false):
    return lax.select_n(_per_member(pred, on_true), on_false, on_true)


def _while_batch(vals, dims, *, cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts):
    """JAX's rule. The carries the body makes batched are found by a fixed point; if the
    predicate then depends on the batch, every carry is batched (at axis 0) and the
    loop's predicate is one per member: `while_p` runs until none holds and keeps the
    carries of the members whose predicate failed (frontend/control_flow.py). Otherwise
    the batched carries put their batch axis after the predicate's own axes (those of
    a batched predicate already inside), so that it stays a prefix of their shapes."""
    size = batch_size(vals, dims)
    nc, nb = cond_nconsts, body_nconsts
    c_dims, b_dims, init_dims = dims[:nc], dims[nc:nc + nb], dims[nc + nb:]
    batched = [d is not None for d in init_dims]
    for _ in range(len(batched) + 1):
        out = batched_outputs(body_jaxpr, size, b_dims + [0 if b else None for b in batched])
        if all(o <= b for o, b in zip(out, batched)):
            break
        batched = [b or o for b, o in zip(batched, out)]
    (pred_batched,) = batched_outputs(cond_jaxpr, size, c_dims + [0 if b else None for b in batched])
    if pred_batched:
        carry_dims, pred_dims = [0] * len(batched), [0]
    else:
        rank = len(cond_jaxpr.out_avals[0].shape)
        carry_dims, pred_dims = [rank if b else None for b in batched], [None]
    body = batch_jaxpr(body_jaxpr, size, b_dims + carry_dims, "while_loop's body", carry_dims)
    cond = batch_jaxpr(cond_jaxpr, size, c_dims + carry_dims, "while_loop's cond", pred_dims)
    carry = [x if new is None else move_axis(x, d, new, size)
             for x, d, new in zip(vals[nc + nb:], init_dims, carry_dims)]
    outs = P.while_p.bind(*vals[:nc + nb], *carry, cond_jaxpr=cond, body_jaxpr=body,
                          cond_nconsts=nc, body_nconsts=nb)
    return outs, carry_dims


def _scan_batch(vals, dims, *, jaxpr, length, reverse, num_consts, num_carry, unroll):
    """JAX's rule: the carries the body makes batched are found by a fixed point, and
    only they and the ys the body makes batched get the batch axis (first in carries
    and consts, second in xs and ys, behind the scanned axis)."""
    size = batch_size(vals, dims)
    nc, ncar = num_consts, num_carry
    consts, const_dims = batched_first(vals[:nc], dims[:nc], size)
    x_dims = [None if d is None else 0 for d in dims[nc + ncar:]]
    batched = [d is not None for d in dims[nc:nc + ncar]]
    for _ in range(len(batched) + 1):
        out = batched_outputs(jaxpr, size, const_dims + [0 if b else None for b in batched] + x_dims)
        if all(o <= b for o, b in zip(out[:ncar], batched)):
            break
        batched = [b or o for b, o in zip(batched, out[:ncar])]
    carry_dims = [0 if b else None for b in batched]
    y_dims = [0 if b else None for b in out[ncar:]]
    body = batch_jaxpr(jaxpr, size, const_dims + carry_dims + x_dims, "scan", carry_dims + y_dims)
    carry = [v if new is None else move_axis(v, d, 0, size)
             for v, d, new in zip(vals[nc:nc + ncar], dims[nc:nc + ncar], carry_dims)]
    xs = [v if d is None else move_axis(v, d, 1, size) for v, d in zip(vals[nc + ncar:], dims[nc + ncar:])]
    outs = P.scan_p.bind(*consts, *carry, *xs, jaxpr=body, length=length, reverse=reverse,
                         num_consts=nc, num_carry=ncar, unroll=unroll)
    return outs, carry_dims + [None if d is None else 1 for d in y_dims]


P.jvp_rules[P.cond_p] = _cond_jvp
P.jvp_rules[P.while_p] = _while_jvp
P.jvp_rules[P.scan_p] = _scan_jvp
P.transpose_rules[P.cond_p] = _cond_transpose
P.transpose_rules[P.scan_p] = _scan_transpose
P.batch_rules[P.cond_p] = _cond_batch
P.batch_rules[P.while_p] = _while_batch
P.batch_rules[P.scan_p] = _scan_batch
