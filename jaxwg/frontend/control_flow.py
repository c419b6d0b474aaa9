"""Evaluating control flow: the lowering rules of `cond`, `while`, `scan` and host callbacks.

`scan` has a trip count known when it is traced, so it lowers by unrolling: each step's
body is lowered into the lazy graph over the previous step's carry, with no read-back;
a program (jit) holding a scan is still one dispatch list, and fusion may join steps.
`cond` and `while` choose their path from values: their rules read the branch index, or
the loop predicate, back from the device (one scalar each time) and lower the chosen
body. A loop whose predicate and body hold no such control flow themselves runs them as
programs compiled once (jit's), one dispatch list a step. `debug_callback` (`jaxwg.debug`)
reads its operands back and calls its function on the host. That needs values, so a
program holding them (`needs_values`) is run by evaluating its jaxpr equation by equation
(`jit` does so) instead of as a fixed list, which also keeps the callbacks in program
order and out of reach of dead-code removal.

>>> import jaxwg, jaxwg.numpy as jnp
>>> from jaxwg import lax
>>> lax.scan(lambda c, x: (c + x, c * x), 0.0, jnp.arange(4.0))[1].tolist()
[0.0, 0.0, 2.0, 9.0]
"""

from __future__ import annotations

import functools

import numpy as np

from ..backend.lru import LruCache
from ..core import dtypes as dt
from . import primitives as P
from .aval import ShapedArray
from .complex_lowering import lower, scalar_node, storage
from .execute import realize
from .lazy import CONST, LazyNode


def needs_values(jaxpr) -> bool:
    """Whether `jaxpr` (or a jaxpr it calls) holds a cond, a while loop or a callback."""
    from .jaxpr import called_jaxprs

    return any(eqn.primitive in P.DATA_DEPENDENT or any(needs_values(j) for j in called_jaxprs(eqn))
               for eqn in jaxpr.eqns)


def _read_scalar(node: LazyNode, dtype) -> object:
    """The value of a rank-0 node, computed and read back (eager evaluation only)."""
    from .array import ArrayImpl

    if node.kind == CONST:
        return node.arg
    return np.asarray(ArrayImpl(node, ShapedArray((), dtype))).item()


def _lower(closed, args):
    from .jit import lower_jaxpr

    return lower_jaxpr(closed, args)


def _cond_lowering(out_avals, index, *operands, branches):
    i = int(_read_scalar(index, dt.int32))
    return _lower(branches[min(max(i, 0), len(branches) - 1)], list(operands))


def _while_lowering(out_avals, *args, cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts):
    """Lower the body while the predicate holds, reading it back each step. A predicate
    with a shape is one per batch member (vmap, `_while_batch`), as in JAX: the loop runs
    while any member's holds, and members whose predicate fails keep their carries."""
    cond_consts = list(args[:cond_nconsts])
    body_consts = list(args[cond_nconsts:cond_nconsts + body_nconsts])
    carry = list(args[cond_nconsts + body_nconsts:])
    pred_aval = cond_jaxpr.out_avals[0]
    members = _member_steps(pred_aval, tuple(out_avals)) if pred_aval.shape else None
    step = _lower
    if not (needs_values(cond_jaxpr.jaxpr) or needs_values(body_jaxpr.jaxpr)):
        step = _compiled_step(next((a.device for a in args if a.device is not None), None))
    while True:
        (pred,) = step(cond_jaxpr, cond_consts + carry)
        realize(carry)  # keeps the graph one step deep
        running = pred if members is None else _lower(members[0], [pred])[0]
        if not _read_scalar(running, dt.bool_):
            return carry
        new = step(body_jaxpr, body_consts + carry)
        carry = new if members is None else _lower(members[1], [pred, *new, *carry])


# Loop bodies and predicates compiled to programs (jit's), by jaxpr and device: a while
# loop's steps then cost a program's dispatch each, where fusing the lowered body afresh
# took milliseconds a step (a 64 x 64 product and five elementwise ops: 13 ms).
_STEP_PROGRAMS = LruCache(64)


def _compiled_step(device):
    """`_lower`'s counterpart running a jaxpr through its program on `device` (default:
    the default device): the argument nodes are realized, the results are buffers."""
    from .device import default_device
    from .jit import lower_to_program, run_program

    device = device or default_device()

    def run(closed, args: list[LazyNode]) -> list[LazyNode]:
        program = _STEP_PROGRAMS.get((closed, device))
        if program is None:
            program = lower_to_program(closed, device, "while_loop step")
            _STEP_PROGRAMS.put((closed, device), program)
        return run_program(program, args, [storage(aval) for aval in closed.out_avals])

    return run


@functools.lru_cache(maxsize=64)
def _member_steps(pred_aval: ShapedArray, carry_avals: tuple):
    """For a loop with one predicate per batch member: a jaxpr for whether any member
    runs, and one choosing each member's new carries where its predicate holds and its
    old ones elsewhere (the predicate's shape is a prefix of every carry's)."""
    from .jaxpr import trace_body
    from .trace import bind

    axes = tuple(range(len(pred_aval.shape)))

    def any_running(pred):
        return [bind(P.reduce_or_p, pred, axes=axes)]

    def kept(pred, *carries):
        new, old = carries[:len(carry_avals)], carries[len(carry_avals):]
        return [bind(P.select_n_p, bind(P.broadcast_in_dim_p, pred, shape=a.shape, broadcast_dimensions=axes),
                     o, n) for n, o, a in zip(new, old, carry_avals)]

    return (trace_body(any_running, [pred_aval], "while_loop's predicate"),
            trace_body(kept, [pred_aval, *carry_avals, *carry_avals], "while_loop's carries"))


def _step(node: LazyNode, aval: ShapedArray, i: int) -> LazyNode:
    """Element `i` along the leading axis of a node of aval `aval`."""
    row = ShapedArray((1,) + aval.shape[1:], aval.dtype)
    start = (i,) + (0,) * (len(aval.shape) - 1)
    sliced = lower(P.slice_p, row, [aval], [node], dict(
        start_indices=start, limit_indices=(i + 1,) + aval.shape[1:], strides=None))
    item = ShapedArray(aval.shape[1:], aval.dtype)
    return lower(P.reshape_p, item, [row], [sliced], dict(new_sizes=item.shape, dimensions=None))


def _stack(nodes: list, aval: ShapedArray) -> LazyNode:
    """`nodes` (each of `aval`'s shape without its leading axis) stacked along it."""
    item = ShapedArray(aval.shape[1:], aval.dtype)
    row = ShapedArray((1,) + item.shape, aval.dtype)
    if not nodes:
        zero = scalar_node(0, aval.dtype)
        return lower(P.broadcast_in_dim_p, aval, [ShapedArray((), aval.dtype)], [zero],
                     dict(shape=aval.shape, broadcast_dimensions=()))
    rows = [lower(P.reshape_p, row, [item], [n], dict(new_sizes=row.shape, dimensions=None))
            for n in nodes]
    if len(rows) == 1:
        return rows[0]
    return lower(P.concatenate_p, aval, [row] * len(rows), rows, dict(dimension=0))


def _scan_lowering(out_avals, *args, jaxpr, length, reverse, num_consts, num_carry, unroll):
    consts = list(args[:num_consts])
    carry = list(args[num_consts:num_consts + num_carry])
    xs = list(args[num_consts + num_carry:])
    x_avals = jaxpr.in_avals[num_consts + num_carry:]
    xs_avals = [ShapedArray((length,) + a.shape, a.dtype) for a in x_avals]
    ys = []
    for i in (reversed(range(length)) if reverse else range(length)):
        outs = _lower(jaxpr, consts + carry + [_step(x, a, i) for x, a in zip(xs, xs_avals)])
        carry, y = outs[:num_carry], outs[num_carry:]
        ys.append(y)
    if reverse:
        ys.reverse()
    stacked = [_stack([y[k] for y in ys], a) for k, a in enumerate(out_avals[num_carry:])]
    return carry + stacked


def host_operands(in_avals, nodes) -> list:
    """A host callback's operands as arrays of their avals (complex ones from their
    stored pairs), computed when it reads them."""
    from .array import ArrayImpl

    return [ArrayImpl(node, aval) for aval, node in zip(in_avals, nodes)]


def with_node_avals(rule):
    """A callback's lowering rule, `rule(out_avals, in_avals, *nodes)`, for real operands:
    their avals are their nodes'. (Complex operands reach `rule` as a complex rule,
    which is given the avals.)"""
    def lowering(out_avals, *nodes, **params):
        return rule(out_avals, [ShapedArray(n.shape, n.dtype) for n in nodes], *nodes, **params)

    return lowering


def _debug_callback(out_avals, in_avals, *args, callback):
    """Call `callback` now with the operands as arrays."""
    callback(*host_operands(in_avals, args))
    return []


P.lowering_rules[P.cond_p] = _cond_lowering
P.lowering_rules[P.while_p] = _while_lowering
P.lowering_rules[P.scan_p] = _scan_lowering
P.lowering_rules[P.debug_callback_p] = with_node_avals(_debug_callback)
P.complex_rules[P.debug_callback_p] = _debug_callback
