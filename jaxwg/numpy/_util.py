"""Shared helpers of `jaxwg.numpy`: argument conversion, promotion, broadcasting, axes.

>>> import jaxwg.numpy as jnp
>>> [a.dtype.name for a in promote(jnp.arange(2), 1.5)]
['float32', 'float32']
>>> broadcast_shapes((2, 1), (3,))
(2, 3)
"""

from __future__ import annotations

import operator

import numpy as np

from .. import lax
from ..frontend import aval as avals
from ..frontend import promotion
from ..frontend.array import ArrayImpl, asarray_for_bind, aval_of  # noqa: F401 - aval_of for numpy modules
from ..frontend.trace import Tracer
from ..errors import ConcretizationTypeError


def is_array(x) -> bool:
    return isinstance(x, (ArrayImpl, Tracer))


def to_array(x):
    """Arrays and tracers pass; scalars and NumPy/list data become arrays."""
    if is_array(x):
        return x
    if avals.is_python_scalar(x) or isinstance(x, (np.ndarray, np.generic)):
        return asarray_for_bind(x)
    from .creation import asarray

    return asarray(x)


def check_arraylike(name: str, *args) -> None:
    for position, a in enumerate(args):
        if not (is_array(a) or avals.is_python_scalar(a) or isinstance(a, (np.ndarray, np.generic))):
            raise TypeError(f"{name} requires ndarray or scalar arguments, got "
                            f"{type(a)} at position {position}.")


def ensure_arraylike(name: str, *args):
    """`args` checked with `check_arraylike` (JAX's TypeError for lists and tuples, which
    JAX does not read as arrays outside `jnp.array`) and made arrays: one array for one
    argument, else a list.

    >>> ensure_arraylike("sum", [1.0, 2.0])
    Traceback (most recent call last):
    TypeError: sum requires ndarray or scalar arguments, got <class 'list'> at position 0.
    """
    check_arraylike(name, *args)
    arrays = [to_array(a) for a in args]
    return arrays[0] if len(arrays) == 1 else arrays


def result_dtype(*args):
    """(kernel dtype, weak) that JAX's promotion gives `args`."""
    np_dtype, weak = promotion.result_type_and_weak(
        *[promotable(a) for a in args],
        x64=avals.x64_enabled())
    return avals.canonical_dtype(np_dtype), weak


class _Typed:
    __slots__ = ("dtype", "weak_type")

    def __init__(self, aval):
        self.dtype = aval.dtype.np
        self.weak_type = aval.weak_type


def promotable(x):
    """What `promotion.result_type` accepts for `x`: arrays as (dtype, weak_type) records."""
    if is_array(x):
        return _Typed(x.aval)
    return x


def promote(*args, to_inexact: bool = False):
    """`args` converted to their common dtype (floats if `to_inexact`), keeping weakness."""
    dtype, weak = result_dtype(*args)
    if to_inexact and not dtype.is_inexact:
        dtype = avals.canonical_dtype("float64")
    return [lax.convert_element_type(a, dtype, weak) for a in args]


def broadcast_shapes(*shapes) -> tuple[int, ...]:
    """NumPy's broadcast of `shapes` (a ValueError naming them if incompatible).

    >>> import jaxwg.numpy as jnp
    >>> jnp.broadcast_shapes((2, 1), (1, 3), ())
    (2, 3)
    """
    ndim = max((len(s) for s in shapes), default=0)
    result = []
    for k in range(ndim):
        sizes = {s[len(s) - ndim + k] for s in shapes if len(s) - ndim + k >= 0}
        sizes.discard(1)
        if len(sizes) > 1:
            raise ValueError("Incompatible shapes for broadcasting: shapes="
                             f"{[tuple(s) for s in shapes]}")
        result.append(sizes.pop() if sizes else 1)
    return tuple(result)


def broadcast_to_shape(x, shape):
    """`x` broadcast to `shape` (rank-0 operands of elementwise ops may stay rank 0)."""
    x_shape = aval_of(x).shape
    if x_shape == tuple(shape):
        return x
    nd = len(shape)
    if len(x_shape) > nd or any(a not in (1, b) for a, b in zip(x_shape[::-1], shape[::-1])):
        raise ValueError(f"Incompatible shapes for broadcasting: {x_shape} and requested shape "
                         f"{tuple(shape)}")
    return lax.broadcast_in_dim(x, shape, tuple(range(nd - len(x_shape), nd)))


def elementwise_operands(name: str, *args, to_inexact: bool = False, rank_only: bool = False):
    """Promote the operands of an elementwise function and broadcast them to one shape
    (rank 0 stays). With `rank_only`, for a function that binds one broadcasting
    primitive, only bring them to one rank, as JAX's `promote_shapes` does: leading axes
    of size 1, which the primitive broadcasts.

    >>> import jaxwg, jaxwg.numpy as jnp
    >>> print(jaxwg.make_jaxpr(jnp.add)(jnp.ones((2, 3)), jnp.ones(3)))
    { lambda ; a:f32[2,3] b:f32[3]. let
        c:f32[1,3] = broadcast_in_dim[broadcast_dimensions=(1,)] b
        d:f32[2,3] = add a c
      in (d,) }
    """
    check_arraylike(name, *args)
    args = promote(*[to_array(a) if not avals.is_python_scalar(a) else a for a in args],
                   to_inexact=to_inexact)
    shapes = [aval_of(a).shape for a in args]
    try:
        shape = broadcast_shapes(*shapes)
    except ValueError:
        raise TypeError(f"{name} got incompatible shapes for broadcasting: "
                        f"{', '.join(map(str, shapes))}.") from None
    if not rank_only:
        return [a if aval_of(a).shape == () else broadcast_to_shape(a, shape) for a in args]
    rank = len(shape)
    return [a if len(s) in (0, rank) else broadcast_to_shape(a, (1,) * (rank - len(s)) + tuple(s))
            for a, s in zip(args, shapes)]


def canonicalize_axis(axis, ndim: int, name: str = "axis") -> int:
    try:
        axis = operator.index(axis)
    except TypeError:
        raise TypeError(f"{name} must be an integer, got {axis!r}") from None
    if not -ndim <= axis < ndim:
        raise ValueError(f"axis {axis} is out of bounds for array of dimension {ndim}")
    return axis % ndim


def axis_index(axis, ndim: int) -> int:
    """`canonicalize_axis` raising NumPy's AxisError, a ValueError and an IndexError: among
    the shape functions JAX raises either (IndexError from `swapaxes` and `split`)."""
    try:
        return canonicalize_axis(axis, ndim)
    except ValueError:
        raise np.exceptions.AxisError(axis, ndim) from None


def canonicalize_axes(axis, ndim: int) -> tuple[int, ...]:
    """`axis` (None, int or sequence) as sorted non-negative axes; None means all."""
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, (tuple, list)):
        axes = tuple(canonicalize_axis(a, ndim) for a in axis)
        if len(set(axes)) != len(axes):
            raise ValueError(f"repeated axis in {axis}")
        return tuple(sorted(axes))
    return (canonicalize_axis(axis, ndim),)


def dtype_arg(dtype):
    """A user's dtype argument as a kernel dtype (None passes through)."""
    return None if dtype is None else avals.canonical_dtype(dtype)


def inexact_operands(name: str, *xs) -> list:
    """`xs` checked as array-likes for `name` and promoted to one inexact dtype, as JAX's
    promote_dtypes_inexact (the linalg functions' operands)."""
    check_arraylike(name, *xs)
    return promote(*xs, to_inexact=True)


def reject_out(name: str, out) -> None:
    """JAX's error for NumPy's `out=` argument: arrays are immutable, so there is nothing
    to write into (ignoring it would hand back a result the caller never looks at)."""
    if out is not None:
        raise NotImplementedError(f"The 'out' argument to jnp.{name} is not supported.")


def static_value(value, what: str) -> np.ndarray:
    """The host value of an argument that decides a result's shape; a traced one raises
    ConcretizationTypeError naming `what`."""
    items = value if isinstance(value, (list, tuple)) else (value,)
    if any(isinstance(v, Tracer) for v in items):
        raise ConcretizationTypeError(
            f"{what} must be concrete: its value decides the shape of the result, but it is "
            "traced (inside jit). Pass it as a static argument or a Python/NumPy value.")
    return np.asarray(value)


def concrete(value, message: str, error=ConcretizationTypeError):
    """`value` if it is known at trace time; a traced one raises `error` (JAX's type for
    the case) with `message`, which says what needed the value and what to do instead."""
    if isinstance(value, Tracer):
        raise error(f"Abstract tracer value encountered where concrete value is expected: "
                    f"{value.aval.str_short()}. {message}")
    return value


def concrete_or_error(value, context: str):
    """`value` if it is known at trace time, else JAX's ConcretizationTypeError (as JAX's
    `core.concrete_or_error`): `context` says what needed the value, and the message names
    the traced function and the arguments the value came from."""
    if isinstance(value, Tracer):
        raise value._concretization_error(context)
    return value


def static_int(value, what: str) -> int:
    """A static integer argument (`what` names it); a traced one raises
    ConcretizationTypeError, since it decides the shape of the result."""
    return operator.index(concrete(value, f"{what} must be a static integer: it decides "
                                          "the shape of the result."))


def slice_axis(x, start: int, stop: int, axis: int):
    """`x[..., start:stop, ...]` along `axis` (0 <= start <= stop <= size)."""
    if (start, stop) == (0, aval_of(x).shape[axis]):
        return x
    return lax.slice_in_dim(x, start, stop, axis=axis)
