"""Vectorization: the batching trace and `vmap`.

A `BatchTracer` is a value with one extra axis, `batch_dim` (None: the value is the
same for every member of the batch). Applying a primitive to batch tracers applies its
batching rule (`primitives.batch_rules`, filled by `jaxwg.transforms.batch_rules`), which
binds the primitive once on whole batches: an elementwise op on the batched operands,
a reduction over shifted axes, a `dot_general` with one more batch dimension (so a
batch of products is one tiled product, not a loop). Collectives over a named axis
(`lax.psum`, `pmean`, `pmax`, `pmin`) become, at the level with that name, the same
collective over the batch dimension's position, and pass through the others, as in
JAX (`reducing_collective_rules`); `axis_index` and `all_gather` are read off the same
batch dimension (`own_axis_rules`).

>>> import jaxwg.numpy as jnp
>>> vmap(lambda row: jnp.sum(row * row))(jnp.arange(6.0).reshape(2, 3)).tolist()
[5.0, 50.0]
"""

from __future__ import annotations

import contextvars

from ..frontend import pytree
from ..frontend.aval import ShapedArray
from ..frontend.trace import Trace, Tracer, describe_traced, full_raise, new_main, wraps


class BatchInfo:
    """What a vmap level shares: the batch size and the axis name (or None)."""

    __slots__ = ("axis_name", "size")

    def __init__(self, size: int, axis_name):
        self.size = size
        self.axis_name = axis_name


# The level whose batching rule is running: a rule that batches a body (`batch_fun`:
# jit, scan, cond, ...) gives the body's level the same axis name, so that collectives
# inside the body reduce over it, as they would outside.
_running_axis = contextvars.ContextVar("running_batch_axis", default=None)


# Collectives over a level's own axis (`lax.axis_index(name)` inside `vmap(...,
# axis_name=name)`), filled by `batch_rules`: (axis size, operands, their batch dims,
# **params) -> (result, its batch dim). Collectives over other axes use `batch_rules`.
own_axis_rules: dict = {}
# Reductions over named axes (`lax.psum`, `pmax`, `pmin`), filled by `batch_rules`, run
# at every level whether or not it batches the operand: (the level's `BatchInfo`, the
# operand, its batch dim, **params) -> (result, its batch dim).
reducing_collective_rules: dict = {}


class BatchTracer(Tracer):
    __slots__ = ("batch_dim", "val")

    def __init__(self, trace, val, batch_dim: int | None):
        self._trace = trace
        self.val = val
        self.batch_dim = batch_dim

    @property
    def aval(self):
        from ..frontend.array import aval_of

        aval = aval_of(self.val)
        if self.batch_dim is None:
            return aval
        shape = aval.shape[:self.batch_dim] + aval.shape[self.batch_dim + 1:]
        return ShapedArray(shape, aval.dtype, aval.weak_type)

    def full_lower(self):
        return self.val if self.batch_dim is None else self

    def __repr__(self):
        return f"BatchTracer<{self.aval.str_short()}, batch_dim={self.batch_dim}>"


class BatchTrace(Trace):
    def pure(self, value):
        return BatchTracer(self, value, None)

    lift = pure

    def process_primitive(self, primitive, tracers, params):
        from ..frontend import primitives as P

        vals = [t.val for t in tracers]
        dims = [t.batch_dim for t in tracers]
        info = self.main.global_data
        if primitive in reducing_collective_rules:
            out, out_dim = reducing_collective_rules[primitive](info, vals[0], dims[0], **params)
            return BatchTracer(self, out, out_dim)
        if primitive in P.COLLECTIVES and params["axis_name"] == info.axis_name:
            out, out_dim = own_axis_rules[primitive](info.size, vals, dims, **params)
            return BatchTracer(self, out, out_dim)
        if all(d is None for d in dims):
            outs = primitive.bind(*vals, **params)
            out_list = outs if primitive.multiple_results else [outs]
            wrapped = [BatchTracer(self, o, None) for o in out_list]
            return wrapped if primitive.multiple_results else wrapped[0]
        rule = P.batch_rules.get(primitive)
        if rule is None:
            raise NotImplementedError(f"Batching rule for '{primitive.name}' not implemented")
        running = _running_axis.set(info)
        try:
            out, out_dim = rule(vals, dims, **params)
        finally:
            _running_axis.reset(running)
        if primitive.multiple_results:
            return [BatchTracer(self, o, d) for o, d in zip(out, out_dim)]
        return BatchTracer(self, out, out_dim)


def move_axis(x, src: int | None, dst: int, size: int):
    """`x` with its batch axis `src` at `dst`; an unbatched `x` (None) is broadcast."""
    from .. import lax
    from ..frontend.array import aval_of

    shape = aval_of(x).shape
    if src is None:
        out_shape = shape[:dst] + (size,) + shape[dst:]
        dims = tuple(i if i < dst else i + 1 for i in range(len(shape)))
        return lax.broadcast_in_dim(x, out_shape, dims)
    if src == dst:
        return x
    perm = [i for i in range(len(shape)) if i != src]
    perm.insert(dst, src)
    return lax.transpose(x, tuple(perm))


def batch_size(vals, dims) -> int:
    """The batch size of a rule's operands (at least one is batched)."""
    from ..frontend.array import aval_of

    return next(aval_of(v).shape[d] for v, d in zip(vals, dims) if d is not None)


def batched_first(vals, dims, size: int) -> tuple[list, list]:
    """The operands with their batch axis first (unbatched ones as they are), and their
    new batch dims (0 or None)."""
    moved = [v if d is None else move_axis(v, d, 0, size) for v, d in zip(vals, dims)]
    return moved, [None if d is None else 0 for d in dims]


def batch_fun(fun, size: int, in_dims, out_dims=None):
    """`fun(*xs) -> list` over batches: the arguments batched at `in_dims` (None:
    unbatched), each output moved to its axis in `out_dims` (default 0; broadcast if
    `fun` leaves it unbatched; None: it must come out unbatched)."""
    def batched(*xs):
        outs, got = vmap_flat(fun, size, xs, in_dims, _running_axis_name())
        wanted = [0] * len(outs) if out_dims is None else out_dims
        if any(w is None and d is not None for w, d in zip(wanted, got)):
            raise AssertionError("batch_fun: an output meant to be unbatched came out batched")
        return [o if w is None else move_axis(o, d, w, size) for o, d, w in zip(outs, got, wanted)]

    return batched


def batch_jaxpr(closed, size: int, in_dims, what: str, out_dims=None):
    """`closed` over batches as a closed jaxpr (see `batch_fun`); it closes over concrete
    values only."""
    from ..frontend.jaxpr import jaxpr_as_fun, trace_body

    fun = batch_fun(jaxpr_as_fun(closed), size, in_dims, out_dims)
    return trace_body(fun, _batched_avals(closed.in_avals, in_dims, size), f"vmap of {what}")


def batched_outputs(closed, size: int, in_dims) -> list[bool]:
    """Which outputs of `closed` depend on the batch when its inputs at `in_dims` are
    batched (traced for their batch dims only; nothing is computed)."""
    from ..frontend.jaxpr import jaxpr_as_fun, trace_to_jaxpr

    dims = []

    def outputs(*xs):
        outs, got = vmap_flat(jaxpr_as_fun(closed), size, xs, in_dims,
                              _running_axis_name())
        dims.extend(got)
        return outs

    trace_to_jaxpr(outputs, _batched_avals(closed.in_avals, in_dims, size))
    return [d is not None for d in dims]


def _running_axis_name():
    """The axis name of the level whose rule batches a body: the body's level takes it."""
    running = _running_axis.get()
    return running.axis_name if running is not None else None


def _batched_avals(avals, dims, size: int) -> list:
    return [a if d is None else a.update(shape=a.shape[:d] + (size,) + a.shape[d:])
            for a, d in zip(avals, dims)]


def vmap_flat(fun, size: int, args, in_dims, axis_name=None, debug_info=None):
    """`fun(*args) -> list` on batches: (outputs, their batch dims or None). Unmapped
    arguments are passed as they are (as JAX does), so they may be static arguments
    of a `jit` inside."""
    with new_main(BatchTrace, BatchInfo(size, axis_name), debug_info=debug_info) as main:
        trace = BatchTrace(main)
        outs = fun(*[a if d is None else BatchTracer(trace, a, d) for a, d in zip(args, in_dims)])
        tracers = [full_raise(trace, o) for o in outs]
        return [t.val for t in tracers], [t.batch_dim for t in tracers]


def _flat_axes(axes, tree, what: str) -> list:
    """`in_axes`/`out_axes` (an int, None, or a pytree prefix) for each leaf of `tree`."""
    if axes is None or isinstance(axes, int):
        return [axes] * tree.num_leaves
    spec_leaves, spec_tree = pytree.tree_flatten(axes, is_leaf=lambda a: a is None)
    out = [None] * tree.num_leaves
    try:
        # Each spec leaf covers the leaves of the value's subtree at its place.
        subtrees = spec_tree.flatten_up_to(tree.unflatten(range(tree.num_leaves)))
        for axis, sub in zip(spec_leaves, subtrees):
            if axis is not None and not isinstance(axis, int):
                raise ValueError(f"vmap {what} entries must be ints or None, got {axis!r}")
            for index in pytree.tree_leaves(sub):
                out[index] = axis
        return out
    except (ValueError, TypeError) as e:
        raise ValueError(f"vmap {what} specification must be a tree prefix of the "
                         f"corresponding value, got specification {axes!r} for value tree "
                         f"{tree}.") from e


def _axis_size(leaves, axes, axis_size) -> int:
    from ..frontend.array import aval_of

    sizes = {}
    for leaf, axis in zip(leaves, axes):
        if axis is None:
            continue
        shape = aval_of(leaf).shape
        if not -len(shape) <= axis < len(shape):
            raise ValueError(f"vmap was requested to map its argument along axis {axis}, which "
                             f"implies that its rank should be at least {max(axis, -axis - 1) + 1}, "
                             f"but is only {len(shape)} (its shape is {shape})")
        sizes.setdefault(shape[axis], []).append(shape)
    if axis_size is not None:
        sizes.setdefault(int(axis_size), [])
    if not sizes:
        raise ValueError("vmap must have at least one non-None value in in_axes")
    if len(sizes) > 1:
        detail = "\n".join(f"  axis size {n}: shapes {s}" for n, s in sizes.items())
        raise ValueError(f"vmap got inconsistent sizes for array axes to be mapped:\n{detail}")
    return next(iter(sizes))


def vmap(fun, in_axes=0, out_axes=0, axis_name=None, axis_size=None):
    """`fun` mapped over an axis of its arguments, computed on whole batches.

    `in_axes` (an int, None or a pytree prefix of the arguments tuple) says which axis
    of each argument is mapped (None: not mapped); `out_axes` where the mapped axis
    goes in the outputs. `axis_name` names the axis for `lax.psum` and friends;
    `axis_size` gives the size when no argument is mapped.

    >>> from jaxwg import vmap
    >>> import jaxwg.numpy as jnp
    >>> vmap(jnp.dot, in_axes=(0, None))(jnp.ones((4, 3)), jnp.arange(3.0)).tolist()
    [3.0, 3.0, 3.0, 3.0]
    """
    from ..frontend.array import aval_of

    if isinstance(in_axes, list):
        in_axes = tuple(in_axes)  # JAX reads a list in_axes as the tuple of arguments
    if not (in_axes is None or type(in_axes) in (int, tuple)):
        raise TypeError("vmap in_axes must be an int, None, or a tuple of entries corresponding "
                        f"to the positional arguments passed to the function, but got {in_axes}.")
    for name, spec in (("in_axes", in_axes), ("out_axes", out_axes)):
        if not all(type(leaf) is int for leaf in pytree.tree_leaves(spec)):  # as JAX checks
            raise TypeError(f"vmap {name} must be an int, None, or (nested) container with "
                            f"those types as leaves, but got {spec}.")

    doc = ("Vectorized version of {fun}. Takes similar arguments as {fun} but with additional "
           "array axes over which {fun} is mapped.")
    if getattr(fun, "__doc__", None):
        doc += "\n\nOriginal documentation:\n\n{doc}"

    @wraps(fun, doc)
    def vmapped(*args, **kwargs):
        leaves, in_tree = pytree.tree_flatten((args, kwargs))
        spec = (in_axes, {k: 0 for k in kwargs}) if isinstance(in_axes, tuple) else in_axes
        if isinstance(in_axes, tuple) and len(in_axes) != len(args):
            raise ValueError(f"vmap in_axes must be an int, None, or a tuple of entries "
                             f"corresponding to the positional arguments passed to the function, "
                             f"but got len(in_axes)={len(in_axes)}, len(args)={len(args)}")
        axes = _flat_axes(spec, in_tree, "in_axes")
        size = _axis_size(leaves, axes, axis_size)
        axes = [None if a is None else a % aval_of(x).ndim for x, a in zip(leaves, axes)]
        out_trees = []

        def flat(*xs):
            a, kw = pytree.tree_unflatten(in_tree, xs)
            out_leaves, out_tree = pytree.tree_flatten(fun(*a, **kw))
            out_trees.append(out_tree)
            return out_leaves

        outs, dims = vmap_flat(flat, size, leaves, axes, axis_name, describe_traced(fun, "vmap"))
        out_tree = out_trees[0]
        placed = []
        for out, dim, want in zip(outs, dims, _flat_axes(out_axes, out_tree, "out_axes")):
            if want is None:
                if dim is not None:
                    raise ValueError("vmap has mapped output but out_axes is None")
                placed.append(out)
                continue
            rank = aval_of(out).ndim + (dim is None)  # with the mapped axis
            if not -rank <= want < rank:
                raise ValueError(f"axis {want} is out of bounds for array of dimension {rank}")
            placed.append(move_axis(out, dim, want % rank, size))
        return pytree.tree_unflatten(out_tree, placed)

    return vmapped
