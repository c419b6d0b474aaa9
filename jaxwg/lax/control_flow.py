"""Control flow as primitives: `cond`, `switch`, `while_loop`, `fori_loop`, `scan`, `map`,
and `associative_scan`, as in `jax.lax`.

Each body is traced once to a jaxpr (so its operations fuse inside it), and values it
closes over from an enclosing trace become leading operands. Evaluation is in
`jaxwg.frontend.control_flow`; differentiation and batching rules are in
`jaxwg.transforms.control_flow_rules`. `fori_loop` with bounds known at trace time
is a `scan` (so it can be differentiated in reverse), otherwise a `while_loop`.

>>> import jaxwg.numpy as jnp
>>> from jaxwg import lax
>>> lax.fori_loop(0, 5, lambda i, acc: acc + i, 0)
Array(10, dtype=int32, weak_type=True)
"""

from __future__ import annotations

import inspect

import numpy as np

from ..core import dtypes as dt
from ..frontend import aval as avals
from ..frontend import primitives as P
from ..frontend import promotion
from ..frontend import pytree
from ..frontend.array import aval_of
from ..frontend.jaxpr import ClosedJaxpr, Jaxpr, Var, hoist_tracer_consts, live_eqns, trace_to_jaxpr
from ..frontend.trace import Tracer, bind, describe_traced, fun_sourceinfo
from . import lax


def _trace(fun, in_tree, in_avals, what: str):
    """`fun(*args)` traced at flat `in_avals`, `in_tree` the tree of the `args` tuple:
    (closed jaxpr, captured values, out tree)."""
    flat, out_tree = pytree.flatten_fun(fun, in_tree)
    closed = trace_to_jaxpr(flat, list(in_avals), describe_traced(fun, what))
    closed, captured = hoist_tracer_consts(closed)
    return closed, captured, out_tree()


# -- cond and switch -----------------------------------------------------------------------


def switch(index, branches, *operands):
    """`branches[index](*operands)`, the index clamped to the branches' range.

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg import lax
    >>> lax.switch(5, [lambda x: x + 1, lambda x: x * 10], jnp.array(2.0)).item()
    20.0
    """
    index_aval = aval_of(index)
    if index_aval.shape != ():
        raise TypeError(f"Branch index must be scalar, got {index} of shape {index_aval.shape}.")
    if not index_aval.dtype.is_int:
        raise TypeError(f"Index type must be an integer, got {index} as {index_aval.dtype.name}")
    if not branches:
        raise ValueError("Empty branch sequence")
    if len(branches) == 1:  # called, not staged, as JAX does
        return branches[0](*operands)
    index = lax.clamp(0, lax.convert_element_type(index, dt.int32), len(branches) - 1)
    return _bind_cond(index, branches, operands, "switch")


def cond(pred, true_fun, false_fun, *operands):
    """`true_fun(*operands)` if `pred` else `false_fun(*operands)`; both are traced.

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg import lax
    >>> lax.cond(jnp.array(3) > 2, lambda x: x * 2, lambda x: x - 1, jnp.array(5.0)).item()
    10.0
    """
    pred_aval = aval_of(pred)
    if pred_aval.shape != ():
        raise TypeError(f"Pred must be a scalar, got {pred} of shape {pred_aval.shape}.")
    if pred_aval.dtype is not dt.bool_ and not (pred_aval.dtype.is_int or pred_aval.dtype.is_float):
        raise TypeError(f"Pred type must be either boolean or number, got {pred_aval.dtype.name}.")
    if pred_aval.dtype is not dt.bool_:  # a number: true when nonzero
        pred = lax.ne(pred, lax.full_like(pred, 0))
    index = lax.convert_element_type(pred, dt.int32)
    return _bind_cond(index, (false_fun, true_fun), operands, "cond")


def _bind_cond(index, branches, operands, what: str):
    leaves, in_tree = pytree.tree_flatten(tuple(operands))
    in_avals = [aval_of(x) for x in leaves]
    traced = [_trace(b, in_tree, in_avals, what) for b in branches]
    # JAX's names (spaced as JAX spaces them); it checks true_fun against false_fun (cond's
    # branches are (false_fun, true_fun)) and branch 0 against each other branch.
    if what == "cond":
        named = [("true_fun", branches[1], traced[1]), ("false_fun", branches[0], traced[0])]
    else:
        named = [(f"branch{i}" if i else "branch 0", b, t)
                 for i, (b, t) in enumerate(zip(branches, traced))]
    for other in named[1:]:
        _check_branch_outputs(what, named[0], other)
    # Every branch takes every branch's captured values (ignoring the others').
    captured = [c for t in traced for c in t[1]]
    cap_avals = [aval_of(c) for c in captured]
    joined, start = [], 0
    for closed, caps, _ in traced:
        own = len(caps)
        before, after = cap_avals[:start], cap_avals[start + own:]
        jaxpr = closed.jaxpr
        invars = ([Var(a) for a in before] + jaxpr.invars[:own] + [Var(a) for a in after]
                  + jaxpr.invars[own:])
        joined.append(ClosedJaxpr(Jaxpr(jaxpr.constvars, invars, jaxpr.eqns, jaxpr.outvars),
                                  closed.consts))
        start += own
    out = bind(P.cond_p, index, *captured, *leaves, branches=tuple(joined))
    return pytree.tree_unflatten(traced[0][2], out)


def _check_branch_outputs(what: str, first, second):
    """JAX's TypeError when two branches' outputs differ in pytree structure or in types
    (shape, dtype; weak types join); `first` and `second` are (name, function, traced)."""
    (name1, fun1, (closed1, _, tree1)), (name2, fun2, (closed2, _, tree2)) = first, second
    header = f"{name1} is {fun_sourceinfo(fun1)}\n{name2} is {fun_sourceinfo(fun2)}\n\n"
    if tree1 != tree2:
        diffs = [f"{name1} output{_at_path(p)} is a {thing1} but {name2} output{_at_path(p)} "
                 f"is a {thing2}, so {why}"
                 for p, thing1, thing2, why in pytree.equality_errors(tree1, tree2)]
        raise TypeError(f"{what} branch outputs must have the same pytree structure, but they "
                        f"differ:\n\n{header}{_listed(diffs, capitalize=False)}\nRevise {name1} and/or "
                        f"{name2} so that they have the same pytree structure.")
    pairs = zip(tree1.leaf_paths(), closed1.out_avals, closed2.out_avals)
    diffs = [f"the output of {name1}{_at_path(p)} has type {_full_type(a)} but the corresponding "
             f"output of {name2} has type {_full_type(b)}, so {_mismatch(a, b)}"
             for p, a, b in pairs if (a.shape, a.dtype) != (b.shape, b.dtype)]
    if diffs:
        raise TypeError(f"{what} branches must have equal output types but they differ.\n\n"
                        f"{header}{_listed(diffs)}\nRevise {name1} and/or {name2} so that "
                        "all output types match.")


def _at_path(path: str) -> str:
    return f" at path {path}" if path else ""


def _full_type(aval) -> str:
    return f"{aval.dtype.name}[{','.join(str(d) for d in aval.shape)}]"  # (`map` is lax.map here)


def _mismatch(a, b) -> str:
    """"the dtypes do not match", "the shapes do not match" or both, as JAX says it."""
    what = [w for w, differ in (("dtypes", a.dtype != b.dtype), ("shapes", a.shape != b.shape))
            if differ]
    return ", and ".join(f"the {w} do not match" for w in what)


def _listed(diffs: list[str], capitalize: bool = True) -> str:
    """One difference as a sentence (capitalized where JAX does), several as JAX's list."""
    if len(diffs) == 1:
        first = diffs[0][0].upper() if capitalize else diffs[0][0]
        return f"{first}{diffs[0][1:]}.\n"
    return "".join(f"  * {d};\n" for d in diffs[:-1]) + f"  * {diffs[-1]}.\n"


# -- loops ----------------------------------------------------------------------------------


def _check_carry(name: str, body_fun, in_tree, out_tree, in_avals, out_avals):
    """JAX's TypeError when a loop body's carry output differs from its carry input in
    pytree structure or in types (shape, dtype; weak types join), naming each differing
    component by the body's carry parameter and key path."""
    carry = _first_parameter(body_fun)

    def component(path: str) -> str:
        if carry:
            return f"the input carry component {carry}{path}" if path else f"the input carry {carry}"
        return f"the input carry at path {path}" if path else "the input carry"

    if in_tree != out_tree:
        diffs = [f"{component(p)} is a {thing1} but the corresponding component of the carry "
                 f"output is a {thing2}, so {why}"
                 for p, thing1, thing2, why in pytree.equality_errors(in_tree, out_tree)]
        raise TypeError(f"{name} function carry input and carry output must have the same "
                        f"pytree structure, but they differ:\n\n{_listed(diffs)}\nRevise the "
                        "function so that the carry output has the same pytree structure as "
                        "the carry input.")
    diffs = [f"{component(p)} has type {_full_type(a)} but the corresponding output carry "
             f"component has type {_full_type(b)}, so {_mismatch(a, b)}"
             for p, a, b in zip(in_tree.leaf_paths(), in_avals, out_avals)
             if (a.shape, a.dtype) != (b.shape, b.dtype)]
    if diffs:
        raise TypeError(f"{name} function carry input and carry output must have equal types, "
                        f"but they differ:\n\n{_listed(diffs)}\nRevise the function so that all "
                        "output types match the corresponding input types.")


def _first_parameter(fun) -> str | None:
    try:
        return next(iter(inspect.signature(fun).parameters), None)
    except (TypeError, ValueError):
        return None


def _promoted_weak(leaves, in_avals, out_avals):
    """As JAX's loops: a weakly typed init (a Python scalar) whose carry comes out of
    the body with another type is converted to the promoted type, and the body traced
    again; None when no init needs it."""
    changed = [a.weak_type and (a.shape, a.dtype) != (b.shape, b.dtype)
               for a, b in zip(in_avals, out_avals)]
    if len(in_avals) != len(out_avals) or not any(changed):
        return None
    x64 = avals.x64_enabled()
    return [lax.convert_element_type(x, promotion.result_type(a, b, x64=x64)) if c else x
            for x, a, b, c in zip(leaves, in_avals, out_avals, changed)]


def while_loop(cond_fun, body_fun, init_val):
    """Apply `body_fun` to the carry while `cond_fun(carry)` holds; reads back only the
    predicate each step.

    >>> from jaxwg import lax
    >>> lax.while_loop(lambda c: c < 100, lambda c: c * 3, 1)
    Array(243, dtype=int32, weak_type=True)
    """
    leaves, in_tree = pytree.tree_flatten(init_val)
    in_avals = [aval_of(x) for x in leaves]
    args_tree = pytree.tree_structure((init_val,))
    body_closed, body_caps, body_tree = _trace(body_fun, args_tree, in_avals, "while_loop")
    if in_tree == body_tree:
        promoted = _promoted_weak(leaves, in_avals, body_closed.out_avals)
        if promoted is not None:
            return while_loop(cond_fun, body_fun, pytree.tree_unflatten(in_tree, promoted))
    cond_closed, cond_caps, _ = _trace(cond_fun, args_tree, in_avals, "while_loop")
    pred = cond_closed.out_avals
    if len(pred) != 1 or pred[0].shape != () or pred[0].dtype is not dt.bool_:
        raise TypeError(f"cond_fun must return a boolean scalar, but got output type(s) "
                        f"{pred}.")
    _check_carry("while_loop body", body_fun, in_tree, body_tree, in_avals, body_closed.out_avals)
    fixed = _invariant_carries(cond_closed, len(cond_caps), body_closed, len(body_caps))
    if any(fixed):
        cond_closed, body_closed = _carries_as_consts(cond_closed, len(cond_caps), body_closed,
                                                      len(body_caps), fixed)
        body_caps = [x for x, f in zip(leaves, fixed) if f] + list(body_caps)
    carry = [x for x, f in zip(leaves, fixed) if not f]
    out = iter(bind(P.while_p, *cond_caps, *body_caps, *carry, cond_jaxpr=cond_closed,
                    body_jaxpr=body_closed, cond_nconsts=len(cond_caps), body_nconsts=len(body_caps)))
    return pytree.tree_unflatten(in_tree, [x if f else next(out) for x, f in zip(leaves, fixed)])


def _invariant_carries(cond: ClosedJaxpr, cond_nconsts: int, body: ClosedJaxpr, body_nconsts: int) -> list:
    """Which carries the body returns unchanged and the predicate does not read. JAX
    makes them body constants: they stay out of the carry (and unbatched under a vmap
    whose predicate is batched)."""
    read = {id(a) for e in live_eqns(cond.eqns, cond.jaxpr.outvars) for a in e.inputs}
    read.update(id(v) for v in cond.jaxpr.outvars)
    carries = body.jaxpr.invars[body_nconsts:]
    return [out is v and id(c) not in read
            for out, v, c in zip(body.jaxpr.outvars, carries, cond.jaxpr.invars[cond_nconsts:])]


def _carries_as_consts(cond: ClosedJaxpr, cond_nconsts: int, body: ClosedJaxpr, body_nconsts: int,
                       fixed: list) -> tuple[ClosedJaxpr, ClosedJaxpr]:
    """The loop's jaxprs with the `fixed` carries moved out: dropped from the predicate
    (and its dead equations with them) and made the body's first constants."""
    cj, bj = cond.jaxpr, body.jaxpr
    keep = [True] * cond_nconsts + [not f for f in fixed]
    cond = ClosedJaxpr(Jaxpr(cj.constvars, [v for v, k in zip(cj.invars, keep) if k],
                             live_eqns(cj.eqns, cj.outvars), cj.outvars), cond.consts)
    carries = bj.invars[body_nconsts:]
    invars = ([v for v, f in zip(carries, fixed) if f] + bj.invars[:body_nconsts]
              + [v for v, f in zip(carries, fixed) if not f])
    outvars = [v for v, f in zip(bj.outvars, fixed) if not f]
    return cond, ClosedJaxpr(Jaxpr(bj.constvars, invars, bj.eqns, outvars), body.consts)


def _concrete_int(x):
    """`x` as a Python int when known at trace time, else None."""
    if isinstance(x, Tracer):
        return None
    try:
        return int(np.asarray(x))
    except (TypeError, ValueError):
        return None


def _bounds_dtype(lower, upper):
    """JAX's rule for fori_loop's bounds: one dtype, except that a weakly typed signed
    integer (a Python int) goes with a strongly typed one, whose dtype is the loop's."""
    lo, hi = aval_of(lower), aval_of(upper)
    if lo.dtype is hi.dtype:
        return lo.dtype
    if lo.dtype.kind == hi.dtype.kind == "i" and lo.weak_type != hi.weak_type:
        return hi.dtype if lo.weak_type else lo.dtype
    raise TypeError("lower and upper arguments to fori_loop must have equal types, got "
                    f"{lo.dtype.name} and {hi.dtype.name}")


def fori_loop(lower, upper, body_fun, init_val, *, unroll=None):
    """`body_fun(i, val)` for i in [lower, upper): a `scan` when the bounds are known at
    trace time (differentiable in reverse), else a `while_loop`.

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg import lax
    >>> lax.fori_loop(0, 3, lambda i, x: x * 2.0, jnp.ones(2)).tolist()
    [8.0, 8.0]
    """
    dtype = _bounds_dtype(lower, upper)
    lo, hi = _concrete_int(lower), _concrete_int(upper)
    if lo is not None and hi is not None:
        def step(loop_carry, _):  # JAX's name, which its carry type errors show
            i, val = loop_carry
            return (lax.add(i, 1), body_fun(i, val)), None

        # As JAX's, the index starts from a Python int: weakly typed int32.
        (_, out), _ = scan(step, (lo, init_val), None, length=max(hi - lo, 0), unroll=unroll or 1)
        return out

    def cond_fun(carry):
        return lax.lt(carry[0], carry[1])

    def body(loop_carry):
        i, stop, val = loop_carry
        return lax.add(i, 1), stop, body_fun(i, val)

    def bound(x):
        return x if aval_of(x).dtype is dtype else lax.convert_element_type(x, dtype)

    return while_loop(cond_fun, body, (bound(lower), bound(upper), init_val))[2]


def scan(f, init, xs=None, length=None, reverse: bool = False, unroll=1):
    """Loop `f(carry, x) -> (carry, y)` over the leading axis of `xs`, stacking the ys.

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg import lax
    >>> carry, ys = lax.scan(lambda c, x: (c + x, c), 0.0, jnp.arange(3.0))
    >>> carry.item(), ys.tolist()
    (3.0, [0.0, 0.0, 1.0])
    """
    x_leaves, x_tree = pytree.tree_flatten(xs)
    lengths = {aval_of(x).shape[0] if aval_of(x).shape else None for x in x_leaves}
    if None in lengths:
        raise ValueError("scan got value with no leading axis to scan over: "
                         + ", ".join(aval_of(x).str_short() for x in x_leaves))
    if length is not None:
        lengths.add(int(length))
    if len(lengths) > 1:
        raise ValueError(f"scan got inconsistent lengths for the scanned axis: {sorted(lengths)}")
    if not lengths:
        raise ValueError("scan got no values to scan over and `length` not provided.")
    n = lengths.pop()
    c_leaves, c_tree = pytree.tree_flatten(init)
    c_avals = [aval_of(c) for c in c_leaves]
    x_avals = [aval_of(x) for x in x_leaves]
    x_avals = [a.update(shape=a.shape[1:]) for a in x_avals]
    in_tree = pytree.tree_structure((init, xs))
    pair_trees = []

    def body(carry, x):
        out = f(carry, x)
        if not (isinstance(out, tuple) and len(out) == 2):
            raise TypeError("scan body output must be a pair, got "
                            f"{type(out).__name__}")
        pair_trees.append((pytree.tree_structure(out[0]), pytree.tree_structure(out[1])))
        return out

    closed, captured, out_tree = _trace(body, in_tree, c_avals + x_avals, "scan")
    carry_tree, y_tree = pair_trees[0]
    n_carry = len(c_leaves)
    if carry_tree == c_tree:
        promoted = _promoted_weak(c_leaves, c_avals, closed.out_avals[:n_carry])
        if promoted is not None:
            return scan(f, pytree.tree_unflatten(c_tree, promoted), xs, length, reverse, unroll)
    _check_carry("scan body", f, c_tree, carry_tree, c_avals, closed.out_avals[:n_carry])
    outs = bind(P.scan_p, *captured, *c_leaves, *x_leaves, jaxpr=closed, length=n, reverse=bool(reverse),
                num_consts=len(captured), num_carry=n_carry, unroll=int(unroll) if unroll is not True else n)
    return (pytree.tree_unflatten(c_tree, outs[:n_carry]),
            pytree.tree_unflatten(y_tree, outs[n_carry:]))


def map(f, xs, *, batch_size: int | None = None):
    """`f` applied to each slice of `xs` along its leading axis, stacked (a scan).
    `batch_size` only changes how the work is run, never the result: JAX maps each
    batch with `vmap`; jaxwg unrolls that many steps of the scan into one body.

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg import lax
    >>> lax.map(lambda x: x * x, jnp.arange(3.0)).tolist()
    [0.0, 1.0, 4.0]
    >>> lax.map(lambda x: x + 1, jnp.arange(5), batch_size=2).tolist()
    [1, 2, 3, 4, 5]
    """
    if batch_size is not None and (isinstance(batch_size, bool) or not isinstance(batch_size, int)):
        raise TypeError(f"lax.map batch_size must be an int, got {batch_size!r}")
    if batch_size is not None and batch_size < 0:
        raise TypeError(f"lax.map batch_size must be positive, got {batch_size}")
    return scan(lambda _, x: ((), f(x)), (), xs, unroll=batch_size or 1)[1]


def associative_scan(fn, elems, reverse: bool = False, axis: int = 0):
    """Inclusive scan of the associative `fn` along `axis`, in log2(n) parallel steps
    (each combines every element with the one 2^k before it).

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg import lax
    >>> lax.associative_scan(lambda a, b: a + b, jnp.arange(5)).tolist()
    [0, 1, 3, 6, 10]
    """
    leaves, tree = pytree.tree_flatten(elems)
    if not leaves:
        return elems
    ndim = aval_of(leaves[0]).ndim
    axis = axis % ndim
    n = aval_of(leaves[0]).shape[axis]
    if any(aval_of(x).shape[axis] != n for x in leaves):
        raise ValueError("associative_scan: all elements must have the same size along axis")

    def part(x, lo, hi):
        shape = aval_of(x).shape
        return lax.slice(x, tuple(lo if d == axis else 0 for d in range(ndim)),
                         tuple(hi if d == axis else s for d, s in enumerate(shape)))

    if reverse:
        leaves = [lax.rev(x, (axis,)) for x in leaves]
    shift = 1
    while shift < n:
        earlier = pytree.tree_unflatten(tree, [part(x, 0, n - shift) for x in leaves])
        later = pytree.tree_unflatten(tree, [part(x, shift, n) for x in leaves])
        combined = pytree.tree_leaves(fn(earlier, later) if not reverse else fn(later, earlier))
        leaves = [lax.concatenate([part(x, 0, shift), c], axis) for x, c in zip(leaves, combined)]
        shift *= 2
    if reverse:
        leaves = [lax.rev(x, (axis,)) for x in leaves]
    return pytree.tree_unflatten(tree, leaves)
