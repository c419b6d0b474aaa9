"""Products: `matmul`, `dot`, `vdot`, `inner`, `outer`, `tensordot`, `einsum`, `vecdot`,
`matvec`, `vecmat`, `diagonal` and `trace`.

Every contraction is one `dot_general` (lowered as a broadcast multiply feeding a fused
sum), so producers and elementwise consumers fuse with it. Products without a summed
axis (outer products, scalar operands, einsum terms such as ``'i,i->i'``) are plain
broadcast multiplies. Operands are promoted as in JAX; a `preferred_element_type`
converts them before the product. bool products are logical (or of ands), integers
stay integers, float16 accumulates in float32 inside the kernels. `precision` is
accepted and ignored, as is einsum's `optimize` (contractions go left to right).

>>> import jaxwg.numpy as jnp
>>> a = jnp.arange(6).reshape(2, 3)
>>> a @ jnp.ones(3, dtype=jnp.int32), jnp.einsum("ij,ij->", a, a)
(Array([ 3, 12], dtype=int32), Array(55, dtype=int32))
"""

from __future__ import annotations

import operator

import numpy as np

from .. import lax
from ..frontend import aval as avals
from ._util import (
    aval_of,
    broadcast_shapes,
    canonicalize_axis,
    check_arraylike,
    is_array,
    reject_out,
    result_dtype,
    to_array,
)
from .reductions import sum as _jnp_sum

__all__ = ["diagonal", "dot", "einsum", "einsum_path", "inner", "matmul", "matvec", "outer",
           "tensordot", "trace", "vdot", "vecdot", "vecmat"]


# -- shared pieces -----------------------------------------------------------------------------


def _operands(name: str, args, preferred_element_type=None):
    """(arrays in their common dtype, result dtype, result weak_type), as JAX promotes.

    A `preferred_element_type` is the result dtype (never weak) and the operands are
    converted to it, which is what the kernels would do anyway.
    """
    check_arraylike(name, *args)
    args = [a if avals.is_python_scalar(a) else to_array(a) for a in args]
    dtype, weak = result_dtype(*args)
    if preferred_element_type is not None:
        dtype, weak = avals.canonical_dtype(preferred_element_type), False
    return [lax.convert_element_type(a, dtype, weak) for a in args], dtype, weak


def _finish(x, dtype, weak):
    return lax.convert_element_type(x, dtype, weak)


def _sum(x, axes):
    """Sum over `axes` (logical or for bool, as JAX's einsum)."""
    axes = tuple(axes)
    if not axes:
        return x
    return (lax.reduce_or if aval_of(x).dtype.is_bool else lax.reduce_sum)(x, axes)


def _multiply(x, y):
    return (lax.bitwise_and if aval_of(x).dtype.is_bool else lax.mul)(x, y)


def _dot_general(a, b, contract, batch):
    """`lax.dot_general` of same-dtype operands; without summed axes a broadcast multiply,
    and zeros without a kernel when an operand is empty (a sum over nothing is 0)."""
    (ca, cb), (ba, bb) = contract, batch
    sa, sb = aval_of(a).shape, aval_of(b).shape
    for what, ia, ib in (("contracting", ca, cb), ("batch", ba, bb)):
        if [sa[i] for i in ia] != [sb[j] for j in ib]:
            raise TypeError(f"dot_general requires {what} dimensions to have the same shape, "
                            f"got {tuple(sa[i] for i in ia)} and {tuple(sb[j] for j in ib)}.")
    free_a = [i for i in range(len(sa)) if i not in ca and i not in ba]
    free_b = [i for i in range(len(sb)) if i not in cb and i not in bb]
    nb, na, nfb = len(ba), len(free_a), len(free_b)
    shape = [sa[i] for i in ba] + [sa[i] for i in free_a] + [sb[i] for i in free_b]
    if 0 in sa or 0 in sb:
        return lax.full(shape, 0, aval_of(a).dtype)
    if ca:
        return lax.dot_general(a, b, ((tuple(ca), tuple(cb)), (tuple(ba), tuple(bb))))
    a = lax.broadcast_in_dim(lax.transpose(a, list(ba) + free_a), shape, range(nb + na))
    b = lax.broadcast_in_dim(lax.transpose(b, list(bb) + free_b), shape,
                             list(range(nb)) + list(range(nb + na, nb + na + nfb)))
    return _multiply(a, b)


def _type_str(x) -> str:
    aval = aval_of(x)
    return f"{aval.dtype.name}[{','.join(map(str, aval.shape))}]"


# -- matmul and friends ------------------------------------------------------------------------


def matmul(a, b, *, precision=None, preferred_element_type=None):
    """Matrix product with NumPy's rules (the `@` operator).

    1-D operands are promoted to matrices (a row for `a`, a column for `b`) and the
    added axis is removed from the result; leading axes broadcast as batch axes.

    >>> import jaxwg.numpy as jnp
    >>> jnp.matmul(jnp.ones((2, 1, 1, 3)), jnp.ones((4, 3, 5))).shape
    (2, 4, 1, 5)
    >>> jnp.arange(3) @ jnp.arange(3)
    Array(5, dtype=int32)
    """
    check_arraylike("matmul", a, b)
    for i, x in enumerate((a, b)):
        nd = aval_of(x).ndim
        if nd < 1:
            raise ValueError(f"matmul input operand {i} must have ndim at least 1, "
                             f"but it has ndim {nd}")
    (a, b), dtype, weak = _operands("matmul", (a, b), preferred_element_type)
    sa, sb = aval_of(a).shape, aval_of(b).shape
    a_is_mat, b_is_mat = len(sa) > 1, len(sb) > 1
    a_batch = sa[:-2] if a_is_mat else ()
    b_batch = sb[:-2] if b_is_mat else ()
    nbatch = max(len(a_batch), len(b_batch))
    a_batch = (None,) * (nbatch - len(a_batch)) + tuple(a_batch)
    b_batch = (None,) * (nbatch - len(b_batch)) + tuple(b_batch)

    # Each leading axis is a batch axis of dot_general (equal sizes), a free axis of one
    # operand (the other lacks it or has size 1 there: squeezed), or size 1 in both.
    a_squeeze, b_squeeze, both_squeeze = [], [], []
    a_bdims, b_bdims = [], []
    idx_batch, idx_a_other, idx_b_other = [], [], []
    for i, (na, nb) in enumerate(zip(a_batch, b_batch)):
        if na is None:
            idx_b_other.append(i)
        elif nb is None:
            idx_a_other.append(i)
        elif na == 1 and nb == 1:
            a_squeeze.append(len(idx_batch) + len(idx_a_other) + len(a_squeeze))
            b_squeeze.append(len(idx_batch) + len(idx_b_other) + len(b_squeeze))
            both_squeeze.append(i)
        elif na == 1:
            idx_b_other.append(i)
            a_squeeze.append(len(idx_batch) + len(idx_a_other) + len(a_squeeze))
        elif nb == 1:
            idx_a_other.append(i)
            b_squeeze.append(len(idx_batch) + len(idx_b_other) + len(b_squeeze))
        elif na == nb:
            a_bdims.append(len(idx_batch) + len(idx_a_other))
            b_bdims.append(len(idx_batch) + len(idx_b_other))
            idx_batch.append(i)
        else:
            raise ValueError(f"Incompatible types for matmul arguments: {_type_str(a)} and "
                             f"{_type_str(b)}")
    if a_is_mat:
        idx_a_other.append(nbatch)
    if b_is_mat:
        idx_b_other.append(nbatch + a_is_mat)
    perm = np.argsort(idx_batch + idx_a_other + idx_b_other)

    if a_squeeze:
        a = lax.squeeze(a, a_squeeze)
    if b_squeeze:
        b = lax.squeeze(b, b_squeeze)
    nda, ndb = aval_of(a).ndim, aval_of(b).ndim
    out = _dot_general(a, b, ((nda - 1,), (ndb - 1 - b_is_mat,)), (a_bdims, b_bdims))
    out = lax.transpose(out, perm)
    if both_squeeze:
        out = lax.expand_dims(out, both_squeeze)
    return _finish(out, dtype, weak)


def dot(a, b, *, precision=None, preferred_element_type=None):
    """NumPy's `dot`: scalars multiply, otherwise the last axis of `a` is contracted with
    the only axis of a 1-D `b` or the second-to-last axis of `b`.

    >>> import jaxwg.numpy as jnp
    >>> jnp.dot(jnp.ones((2, 3)), jnp.ones((4, 3, 5))).shape
    (2, 4, 5)
    >>> jnp.dot(2, jnp.arange(3))
    Array([0, 2, 4], dtype=int32)
    """
    (a, b), dtype, weak = _operands("dot", (a, b), preferred_element_type)
    nda, ndb = aval_of(a).ndim, aval_of(b).ndim
    if nda == 0 or ndb == 0:
        contract = ((), ())
    else:
        contract = ((nda - 1,), (0 if ndb == 1 else ndb - 2,))
    return _finish(_dot_general(a, b, contract, ((), ())), dtype, weak)


def vdot(a, b, *, precision=None, preferred_element_type=None):
    """The dot product of `a` and `b` flattened (sizes must match).

    >>> import jaxwg.numpy as jnp
    >>> jnp.vdot(jnp.ones((2, 3)), jnp.arange(6.0))
    Array(15., dtype=float32)
    """
    (a, b), dtype, weak = _operands("vdot", (a, b), preferred_element_type)
    if aval_of(a).dtype.is_complex:
        a = lax.conj(a)  # vdot conjugates its first argument
    a = lax.reshape(a, (aval_of(a).size,))
    b = lax.reshape(b, (aval_of(b).size,))
    return _finish(_dot_general(a, b, ((0,), (0,)), ((), ())), dtype, weak)


def inner(a, b, *, precision=None, preferred_element_type=None):
    """Contraction of the last axes of `a` and `b` (a product if either is a scalar).

    >>> import jaxwg.numpy as jnp
    >>> jnp.inner(jnp.ones((2, 3)), jnp.ones((4, 3))).shape
    (2, 4)
    """
    (a, b), dtype, weak = _operands("inner", (a, b), preferred_element_type)
    nda, ndb = aval_of(a).ndim, aval_of(b).ndim
    contract = ((), ()) if nda == 0 or ndb == 0 else ((nda - 1,), (ndb - 1,))
    return _finish(_dot_general(a, b, contract, ((), ())), dtype, weak)


def outer(a, b, out=None):
    """`a.ravel()[:, None] * b.ravel()[None, :]`.

    >>> import jaxwg.numpy as jnp
    >>> jnp.outer(jnp.arange(2), jnp.arange(3))
    Array([[0, 0, 0],
           [0, 1, 2]], dtype=int32)
    """
    reject_out("outer", out)
    (a, b), dtype, weak = _operands("outer", (a, b))
    a = lax.reshape(a, (aval_of(a).size,))
    b = lax.reshape(b, (aval_of(b).size,))
    return _finish(_dot_general(a, b, ((), ()), ((), ())), dtype, weak)


def _int_axes(axes) -> bool:
    return isinstance(axes, (int, np.integer)) and not isinstance(axes, bool)


def tensordot(a, b, axes=2, *, precision=None, preferred_element_type=None):
    """Sum over the last `axes` axes of `a` and the first of `b`, or over the axes
    paired by `axes = (axes_a, axes_b)`.

    >>> import jaxwg.numpy as jnp
    >>> jnp.tensordot(jnp.ones((2, 3, 4)), jnp.ones((3, 4, 5))).shape
    (2, 5)
    >>> jnp.tensordot(jnp.ones((2, 3)), jnp.ones((2, 5)), axes=(0, 0)).shape
    (3, 5)
    """
    (a, b), dtype, weak = _operands("tensordot", (a, b), preferred_element_type)
    sa, sb = aval_of(a).shape, aval_of(b).shape
    nda, ndb = len(sa), len(sb)
    if _int_axes(axes):
        axes = int(axes)
        if axes > min(nda, ndb):
            raise TypeError(f"Number of tensordot axes (axes {axes}) exceeds input ranks "
                            f"({sa} and {sb})")
        contract = tuple(range(nda - axes, nda)), tuple(range(axes))
    elif isinstance(axes, (tuple, list)) and len(axes) == 2:
        ax1, ax2 = axes
        if _int_axes(ax1) and _int_axes(ax2):
            contract = (canonicalize_axis(ax1, nda),), (canonicalize_axis(ax2, ndb),)
        elif isinstance(ax1, (tuple, list)) and isinstance(ax2, (tuple, list)):
            if len(ax1) != len(ax2):
                raise TypeError(f"tensordot requires axes lists to have equal length, got "
                                f"{ax1} and {ax2}.")
            contract = (tuple(canonicalize_axis(i, nda) for i in ax1),
                        tuple(canonicalize_axis(i, ndb) for i in ax2))
        else:
            raise TypeError(f"tensordot requires both axes lists to be either ints, tuples or "
                            f"lists, got {ax1} and {ax2}")
    else:
        raise TypeError("tensordot axes argument must be an int, a pair of ints, or a pair of "
                        "lists/tuples of ints.")
    return _finish(_dot_general(a, b, contract, ((), ())), dtype, weak)


def _move_last(x, axis: int):
    nd = aval_of(x).ndim
    return lax.transpose(x, [i for i in range(nd) if i != axis] + [axis])


def vecdot(x1, x2, /, *, axis: int = -1, precision=None, preferred_element_type=None):
    """Dot products of the vectors along `axis`; the other axes broadcast.

    >>> import jaxwg.numpy as jnp
    >>> jnp.vecdot(jnp.ones((2, 3)), jnp.arange(3.0))
    Array([3., 3.], dtype=float32)
    """
    (x1, x2), dtype, weak = _operands("vecdot", (x1, x2), preferred_element_type)
    if aval_of(x1).dtype.is_complex:
        x1 = lax.conj(x1)  # the Array API's vecdot conjugates its first argument, as JAX's
    s1, s2 = aval_of(x1).shape, aval_of(x2).shape
    try:
        ax1, ax2 = canonicalize_axis(axis, len(s1)), canonicalize_axis(axis, len(s2))
    except ValueError:
        raise ValueError(f"axis {axis} is out of bounds for shapes {s1} and {s2}") from None
    if s1[ax1] != s2[ax2]:
        raise ValueError(f"axes must match; got shapes {s1} and {s2} with axis={axis}")
    x1, x2 = _move_last(x1, ax1), _move_last(x2, ax2)
    batch = broadcast_shapes(s1[:ax1] + s1[ax1 + 1:], s2[:ax2] + s2[ax2 + 1:])
    out = matmul(lax.expand_dims(x1, (len(s1) - 1,)), lax.expand_dims(x2, (len(s2),)))
    return _finish(lax.reshape(out, batch), dtype, weak)


def matvec(x1, x2, /):
    """Matrix-vector products over the last axes, the leading axes broadcast.

    >>> import jaxwg.numpy as jnp
    >>> jnp.matvec(jnp.ones((2, 3)), jnp.arange(3.0))
    Array([3., 3.], dtype=float32)
    """
    check_arraylike("matvec", x1, x2)
    x1, x2 = to_array(x1), to_array(x2)
    s1, s2 = aval_of(x1).shape, aval_of(x2).shape
    if len(s1) < 2 or len(s2) < 1:
        raise ValueError(f"matvec requires a matrix and a vector, got shapes {s1} and {s2}")
    if s1[-1] != s2[-1]:
        raise ValueError(f"matvec: inconsistent size for core dimension 'm': {s2[-1]} vs {s1[-1]} "
                         f"(shapes {s1} and {s2})")
    out = matmul(x1, lax.expand_dims(x2, (len(s2),)))
    return lax.squeeze(out, (aval_of(out).ndim - 1,))


def vecmat(x1, x2, /):
    """Vector-matrix products over the last axes, the leading axes broadcast.

    >>> import jaxwg.numpy as jnp
    >>> jnp.vecmat(jnp.arange(2.0), jnp.ones((2, 3)))
    Array([1., 1., 1.], dtype=float32)
    """
    check_arraylike("vecmat", x1, x2)
    x1, x2 = to_array(x1), to_array(x2)
    s1, s2 = aval_of(x1).shape, aval_of(x2).shape
    if len(s1) < 1 or len(s2) < 2:
        raise ValueError(f"vecmat requires a vector and a matrix, got shapes {s1} and {s2}")
    if s1[-1] != s2[-2]:
        raise ValueError(f"vecmat: inconsistent size for core dimension 'n': {s2[-2]} vs {s1[-1]} "
                         f"(shapes {s1} and {s2})")
    out = matmul(lax.expand_dims(x1, (len(s1) - 1,)), x2)
    return lax.squeeze(out, (aval_of(out).ndim - 2,))


# -- diagonal and trace ------------------------------------------------------------------------


def _masked_diagonal(x, axis1: int, axis2: int, offset: int):
    """The square block of axes (`axis1`, `axis2`) that holds the `offset` diagonal, moved
    last, with everything off the diagonal zeroed (iota compare and select: one fused
    kernel with the sum that follows)."""
    shape = aval_of(x).shape
    n, m = shape[axis1], shape[axis2]
    rest = [i for i in range(len(shape)) if i not in (axis1, axis2)]
    lead = [shape[i] for i in rest]
    size = max(0, min(n + min(offset, 0), m - max(offset, 0)))
    nd = len(lead)
    x = lax.transpose(x, rest + [axis1, axis2])
    r0, c0 = min(max(-offset, 0), n), min(max(offset, 0), m)
    x = lax.slice(x, [0] * nd + [r0, c0], lead + [r0 + size, c0 + size])
    square = lead + [size, size]
    on_diagonal = lax.eq(lax.broadcasted_iota(np.int32, square, nd),
                         lax.broadcasted_iota(np.int32, square, nd + 1))
    return lax.select(on_diagonal, x, lax.full(square, 0, aval_of(x).dtype))


def _diagonal_last(x, axis1: int, axis2: int, offset: int = 0):
    """The `offset` diagonal of axes (`axis1`, `axis2`) as a new last axis."""
    masked = _masked_diagonal(x, axis1, axis2, offset)
    return _sum(masked, (aval_of(masked).ndim - 1,))


def diagonal(a, offset: int = 0, axis1: int = 0, axis2: int = 1):
    """The `offset` diagonal of the axes `axis1` and `axis2`, as the last axis.

    >>> import jaxwg.numpy as jnp
    >>> jnp.diagonal(jnp.arange(9).reshape(3, 3), 1)
    Array([1, 5], dtype=int32)
    """
    check_arraylike("diagonal", a)
    x = to_array(a)
    nd = aval_of(x).ndim
    if nd < 2:
        raise ValueError("diagonal requires an array of at least two dimensions.")
    offset = operator.index(offset)
    ax1, ax2 = canonicalize_axis(axis1, nd), canonicalize_axis(axis2, nd)
    if ax1 == ax2:
        raise TypeError(f"diagonal: axis1 and axis2 must differ, got axis1={axis1} and "
                        f"axis2={axis2} for shape {aval_of(x).shape}")
    return _diagonal_last(x, ax1, ax2, offset)


def trace(a, offset: int = 0, axis1: int = 0, axis2: int = 1, dtype=None, out=None):
    """Sum of the `offset` diagonal of axes `axis1` and `axis2` (bools sum as int32).

    >>> import jaxwg.numpy as jnp
    >>> jnp.trace(jnp.arange(9).reshape(3, 3))
    Array(12, dtype=int32)
    """
    reject_out("trace", out)
    check_arraylike("trace", a)
    x = to_array(a)
    nd = aval_of(x).ndim
    if nd < 2:
        raise ValueError("trace requires an array of at least two dimensions.")
    ax1, ax2 = canonicalize_axis(axis1, nd), canonicalize_axis(axis2, nd)
    if ax1 == ax2:
        raise ValueError(f"axis1 and axis2 can not be same. axis1={axis1} and axis2={axis2}")
    masked = _masked_diagonal(x, ax1, ax2, operator.index(offset))
    aval = aval_of(masked)
    if 0 in aval.shape[-2:]:  # an empty diagonal sums to 0: no kernel over nothing
        masked = lax.full(aval.shape[:-2] + (1, 1), 0, aval.dtype)
    return _jnp_sum(masked, axis=(-2, -1), dtype=dtype)


# -- einsum ------------------------------------------------------------------------------------

_LETTERS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")


def _ellipsis_label(k: int) -> str:
    """The label of the `k`-th ellipsis axis counted from the right (1-based)."""
    return chr(0x1000 + k)


def _sublist_term(sub) -> str:
    out = []
    for s in sub:
        if s is Ellipsis:
            out.append("...")
        else:
            k = operator.index(s)
            if not 0 <= k < 52:
                raise ValueError(f"einsum sublist entries must be in [0, 52), got {s}")
            out.append("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"[k])
    return "".join(out)


def _from_sublists(args):
    """`einsum(op0, sub0, op1, sub1, ..., [sub_out])` as a subscripts string and operands."""
    args = list(args)
    out = _sublist_term(args.pop()) if len(args) % 2 else None
    operands, terms = args[0::2], [_sublist_term(s) for s in args[1::2]]
    return ",".join(terms) + ("" if out is None else "->" + out), operands


def _check_term(term: str, where: str) -> None:
    if "." in term.replace("...", "", 1) or term.count("...") > 1:
        raise ValueError("Invalid Ellipses.")
    for c in term.replace("...", ""):
        if c not in _LETTERS:
            raise ValueError(f"Character {c!r} in {where} is not a valid einsum subscript "
                             "(use letters a-z and A-Z).")


def _parse(subscripts: str, shapes):
    """(labels per operand, output labels, size per label); ellipsis axes get own labels."""
    spec = subscripts.replace(" ", "")
    if spec.count("->") > 1:
        raise ValueError("Subscripts can only contain one '->'.")
    explicit = "->" in spec
    lhs, out = spec.split("->") if explicit else (spec, None)
    terms = lhs.split(",")
    if len(terms) != len(shapes):
        raise ValueError(f"Number of einsum subscripts, {len(terms)}, must be equal to the "
                         f"number of operands, {len(shapes)}.")
    labels, sizes, n_ellipsis = [], {}, 0
    for i, (term, shape) in enumerate(zip(terms, shapes)):
        _check_term(term, f"operand {i}'s subscripts {term!r}")
        if "..." in term:
            pre, post = term.split("...")
            n_ell = len(shape) - len(pre) - len(post)
            if n_ell < 0:
                raise ValueError(f"Einstein sum subscript {term!r} does not contain the correct "
                                 f"number of indices for operand {i}.")
            names = list(pre) + [_ellipsis_label(n_ell - k) for k in range(n_ell)] + list(post)
            n_ellipsis = max(n_ellipsis, n_ell)
        else:
            if len(term) != len(shape):
                raise ValueError(f"Einstein sum subscript {term!r} does not contain the correct "
                                 f"number of indices for operand {i}.")
            names = list(term)
        own = {}
        for name, n in zip(names, shape):
            if own.setdefault(name, n) != n:
                raise ValueError(f"einsum: repeated label {name!r} of operand {i} has sizes "
                                 f"{own[name]} and {n}")
            prev = sizes.get(name)
            if prev is not None and n != prev and 1 not in (n, prev):
                shown = "..." if name not in _LETTERS else name
                raise ValueError(f"Size of label {shown!r} for operand {i} ({n}) does not match "
                                 f"previous terms ({prev}).")
            sizes[name] = n if prev is None or prev == 1 else prev
        labels.append(names)
    ellipsis = [_ellipsis_label(k) for k in range(n_ellipsis, 0, -1)]
    if out is None:
        counts = {}
        for names in labels:
            for name in names:
                counts[name] = counts.get(name, 0) + 1
        output = ellipsis + sorted(c for c in counts if c in _LETTERS and counts[c] == 1)
    else:
        _check_term(out, "the output subscripts")
        pre, _, post = out.partition("...")
        output = list(pre) + (ellipsis if "..." in out else []) + list(post)
        seen = set()
        for c in output:
            if c in seen:
                raise ValueError(f"Output character {c!r} appeared more than once in the output.")
            seen.add(c)
            if c not in sizes:
                raise ValueError(f"Output character {c!r} did not appear in the input")
    return labels, output, sizes


def _reduce_own(x, names, keep):
    """Diagonals of repeated labels, then sums over the labels not in `keep`."""
    names = list(names)
    while len(set(names)) < len(names):
        name = next(n for n in names if names.count(n) > 1)
        i = names.index(name)
        j = names.index(name, i + 1)
        x = _diagonal_last(x, i, j)
        names = [n for k, n in enumerate(names) if k not in (i, j)] + [name]
    summed = [k for k, n in enumerate(names) if n not in keep]
    return _sum(x, summed), [n for n in names if n in keep]


def _drop_singletons(x, names, other_shape, other_names):
    """Squeeze size-1 axes whose label has a larger size in the other operand (broadcast)."""
    shape = aval_of(x).shape
    drop = [k for k, n in enumerate(names) if shape[k] == 1 and n in other_names
            and other_shape[other_names.index(n)] != 1]
    if not drop:
        return x, names
    return lax.squeeze(x, drop), [n for k, n in enumerate(names) if k not in drop]


def _contract(x, xn, y, yn, keep):
    """Contract two labelled operands, keeping the labels in `keep`."""
    x, xn = _drop_singletons(x, xn, aval_of(y).shape, yn)
    y, yn = _drop_singletons(y, yn, aval_of(x).shape, xn)
    x, xn = _reduce_own(x, xn, set(keep) | set(yn))
    y, yn = _reduce_own(y, yn, set(keep) | set(xn))
    shared = [n for n in xn if n in yn]
    batch = [n for n in shared if n in keep]
    summed = [n for n in shared if n not in keep]
    out = _dot_general(x, y, ([xn.index(n) for n in summed], [yn.index(n) for n in summed]),
                       ([xn.index(n) for n in batch], [yn.index(n) for n in batch]))
    names = batch + [n for n in xn if n not in shared] + [n for n in yn if n not in shared]
    return out, names


def einsum(subscripts, /, *operands, out=None, optimize="auto", precision=None,
           preferred_element_type=None):
    """Einstein summation, e.g. ``einsum("bij,bjk->bik", x, y)``.

    Subscripts take letters and one ``...`` per term; without ``->`` the output is the
    ellipsis axes then the labels that occur once, sorted. Labels absent from the output
    are summed; a label repeated in one operand takes its diagonal. Operands are
    contracted pairwise from left to right, each pair with one `dot_general`; size-1
    axes broadcast. The sublist form ``einsum(x, [0, 1], y, [1, 2])`` works too.
    `optimize` and `precision` are accepted and ignored.

    >>> import jaxwg.numpy as jnp
    >>> x = jnp.arange(6.0).reshape(2, 3)
    >>> jnp.einsum("ij,kj->ik", x, x)
    Array([[ 5., 14.],
           [14., 50.]], dtype=float32)
    >>> jnp.einsum("ii", jnp.arange(4).reshape(2, 2)), jnp.einsum("...j->...", x).shape
    (Array(3, dtype=int32), (2,))
    """
    reject_out("einsum", out)
    if not isinstance(subscripts, str):
        subscripts, operands = _from_sublists((subscripts,) + operands)
    if not operands:
        raise ValueError("einsum requires at least one operand")
    arrays, dtype, weak = _operands("einsum", operands, preferred_element_type)
    arrays = [to_array(a) for a in arrays]
    labels, output, _ = _parse(subscripts, [aval_of(a).shape for a in arrays])

    x, names = arrays[0], labels[0]
    for i in range(1, len(arrays)):
        keep = set(output).union(*labels[i + 1:])
        x, names = _contract(x, names, arrays[i], labels[i], keep)
    x, names = _reduce_own(x, names, set(output))
    x = lax.transpose(x, [names.index(n) for n in output])
    return _finish(x, dtype, weak)


def _label_str(names) -> str:
    return "".join("..." if n not in _LETTERS else n for n in dict.fromkeys(names))


def einsum_path(subscripts, /, *operands, optimize="auto"):
    """The contraction order of `einsum` for these operands, as (path, description).

    Unlike JAX, which returns opt_einsum's optimized path and its `PathInfo`, this is the
    order jaxwg's `einsum` uses: left to right (each step contracts the first remaining
    operand with the running result), in opt_einsum's format (each step lists the
    positions of the operands it takes from the current list, and appends the result),
    and the description is a string. An explicit path passed as `optimize` is returned.

    >>> import jaxwg.numpy as jnp
    >>> x = jnp.ones((2, 3))
    >>> jnp.einsum_path("ij,jk,kl->il", x, x.T, x)[0]
    [(0, 1), (0, 1)]
    """
    if not isinstance(subscripts, str):
        subscripts, operands = _from_sublists((subscripts,) + operands)
    if not operands:
        raise ValueError("einsum requires at least one operand")
    shapes = [aval_of(a).shape if is_array(a) else np.shape(a) for a in operands]
    labels, output, _ = _parse(subscripts, shapes)
    n = len(labels)
    if isinstance(optimize, (list, tuple)):
        path = [tuple(step) for step in optimize if not isinstance(step, str)]
    elif n == 1:
        path = [(0,)]
    else:  # after the first pair, the running result sits last
        path = [(0, 1)] + [(0, n - k) for k in range(2, n)]
    lines = [f"  Complete contraction:  {subscripts}", "  Contraction order: left to right "
             "(jaxwg's einsum)"]
    current = list(labels)
    for step in path:
        taken = [current[i] for i in step]
        current = [names for i, names in enumerate(current) if i not in step]
        keep = set(output).union(*current)
        result = [name for names in taken for name in dict.fromkeys(names) if name in keep]
        lines.append(f"  {','.join(_label_str(t) for t in taken)}->{_label_str(result)}")
        current.append(result)
    return path, "\n".join(lines)
