"""`jaxwg.Array`: a concrete array on a device, computed lazily.

An Array is an abstract value (`aval`: shape, dtype, weak type) and a node of the lazy
kernel graph (`jaxwg.frontend.lazy`). Eager operations (`eager_apply`, the EvalTrace's
interpreter) only build nodes; values are computed when something needs them (a
read, `block_until_ready`, an expression grown past a size bound) by `realize`, which
fuses every pending producer into as few kernels as it can.

Memory follows Python's reference counting: a realized node holds a `Buffer` that
returns its device memory when collected. Several arrays may share a node (`x.sum(
axis=())` is `x`); `delete()` drops only this array's reference, so the memory goes
back as soon as no other array or pending computation uses it. Any later use of a
deleted array raises RuntimeError, as in JAX.

Eager graph building and realization run under `GRAPH_LOCK`, so threads may share
arrays (realizing a node rewrites it in place).

The operators and methods (`x + y`, `x.sum()`, `x.T`, ...) are attached by
`jaxwg.numpy` at import (`jaxwg/numpy/array_methods.py`), to tracers too, and call
`jaxwg.numpy`, so they mean the same thing eagerly and under `jit`.

>>> import jaxwg.numpy as jnp
>>> x = jnp.arange(3.0)
>>> x * 2 + 1
Array([1., 3., 5.], dtype=float32)
>>> x.shape, x.dtype, x.sum().item()
((3,), dtype('float32'), 3.0)
"""

from __future__ import annotations

import numpy as np

from ..core import dtypes as dt
from ..core.alu_eval import cast_array
from . import aval as avals
from . import lowering  # noqa: F401 - registers the lowering rules
from .complex_lowering import scalar_node, lower, storage
from . import nan_checks
from . import primitives as P
from .aval import ShapedArray
from .basearray import Array
from .device import Device, default_device
from .execute import realize
from .lazy import CONST, GRAPH_LOCK, Buffer, LazyNode


@Array.register
class ArrayImpl:
    """A concrete jaxwg array (see the module docstring); an instance of `jaxwg.Array`."""

    __slots__ = ("__weakref__", "_deleted", "_node", "aval")
    __array_priority__ = 100

    def __init__(self, node: LazyNode, aval: ShapedArray):
        node.arrays += 1  # a pending node that arrays hold is kept when a user is realized
        self._node = node
        self.aval = aval
        self._deleted = False

    def __del__(self):
        self._release_node()

    def _release_node(self) -> None:
        node, self._node = getattr(self, "_node", None), None
        if node is not None:
            node.arrays -= 1

    # -- basic properties ------------------------------------------------------------------
    @property
    def shape(self) -> tuple[int, ...]:
        return self.aval.shape

    @property
    def dtype(self) -> np.dtype:
        return self.aval.dtype.np

    @property
    def weak_type(self) -> bool:
        return self.aval.weak_type

    @property
    def device(self) -> Device:
        return self.node.device or default_device()

    def devices(self) -> set:
        return {self.device}

    @property
    def node(self) -> LazyNode:
        if self._deleted:
            shape = ",".join(map(str, self.shape))
            raise RuntimeError(f"Array has been deleted with shape={self.dtype.name}[{shape}].")
        return self._node

    def is_deleted(self) -> bool:
        return self._deleted

    # -- materialization -------------------------------------------------------------------
    def block_until_ready(self) -> ArrayImpl:
        """Compute this array and wait for the device to finish it."""
        node = self.node
        realize([node])
        node.device.backend.synchronize() if node.device else None
        return self

    def _value(self) -> np.ndarray:
        node = self.node
        realize([node])
        device = node.device or default_device()
        if node.kind == CONST:  # a never-materialized scalar constant
            return np.asarray(node.arg, self.aval.dtype.np)
        flat = device.backend.download(node.buffer.slot, node.dtype, node.size)
        return flat.view(self.aval.dtype.np).reshape(self.shape)

    def __array__(self, dtype=None, copy=None):
        value = self._value()
        return value if dtype is None else value.astype(dtype)

    def item(self, *args):
        return self._value().item(*args)

    def tolist(self):
        return self._value().tolist()

    def __bool__(self):
        if self.size != 1:
            raise ValueError("The truth value of an array with more than one element is "
                             "ambiguous. Use a.any() or a.all()")
        return bool(self._value())

    def _scalar_value(self):
        if self.ndim:
            raise TypeError("Only scalar arrays can be converted to Python scalars; "
                            f"got arr.ndim={self.ndim}")
        return self._value()

    def __int__(self):
        return int(self._scalar_value())

    def __float__(self):
        return float(self._scalar_value())

    def __complex__(self):
        return complex(self._scalar_value())

    def __index__(self):
        if self.aval.dtype.is_float or self.ndim:
            raise TypeError("only integer scalar arrays can be converted to a scalar index")
        return int(self._value())

    def __repr__(self) -> str:
        body = np.array2string(self._value(), separator=", ", prefix="Array(")
        shape = f", shape={self.shape}" if self.size == 0 else ""
        extra = ", weak_type=True" if self.weak_type else ""
        return f"Array({body}{shape}, dtype={self.dtype.name}{extra})"

    def __str__(self) -> str:
        return str(self._value())

    def __format__(self, spec):
        return format(self._value(), spec) if self.ndim == 0 else str(self)

    def delete(self) -> None:
        """Drop this array's value: its memory goes back now unless another array or a
        pending computation still uses it, and any later use raises RuntimeError.

        >>> import jaxwg.numpy as jnp
        >>> x = jnp.arange(3.0)
        >>> y = x.sum(axis=())  # the same value as x
        >>> x.delete(); x.is_deleted(), y.tolist()
        (True, [0.0, 1.0, 2.0])
        """
        self._deleted = True
        self._release_node()

    def copy(self) -> ArrayImpl:
        return eager_apply(P.copy_p, [self], {})

    def __deepcopy__(self, memo):
        return self.copy()

    def __copy__(self):
        return self.copy()

    def __reduce__(self):
        return (_rebuild, (self._value(), self.weak_type))


def _rebuild(value, weak_type):
    return from_numpy(value, weak_type=weak_type)


# -- creating arrays --------------------------------------------------------------------------


def from_numpy(value: np.ndarray, device: Device | None = None, weak_type: bool = False,
               dtype=None) -> ArrayImpl:
    """Upload a NumPy array (converted to `dtype` or its canonical dtype)."""
    kernel_dtype = avals.canonical_dtype(dtype if dtype is not None else value.dtype)
    device = device or default_device()
    backend = device.backend
    host = np.asarray(value, kernel_dtype.np, order="C")  # ascontiguousarray makes 0-d 1-d
    aval = ShapedArray(host.shape, kernel_dtype, weak_type)
    shape, dtype = storage(aval)
    buffer = Buffer(backend, backend.upload(host.reshape(-1).view(dtype.np).reshape(shape)))
    return ArrayImpl(LazyNode.from_buffer(buffer, shape, dtype, device=device), aval)


def scalar(value, dtype=None, weak_type: bool | None = None) -> ArrayImpl:
    """A rank-0 constant (no device memory until something materializes it)."""
    if dtype is None:
        kernel_dtype = avals.dtype_of_python_scalar(value)
        weak = not isinstance(value, (bool, np.bool_)) if weak_type is None else weak_type
    else:
        kernel_dtype = avals.canonical_dtype(dtype)
        weak = bool(weak_type)
    if kernel_dtype.is_int and not isinstance(value, float):
        # As JAX: an int fits int32 or the dtype, and wraps into the dtype (uint32's
        # -1 is 4294967295, uint8's 256 is 0).
        lo = -(2 ** 31)
        hi = max(2 ** 31 - 1, dt.bounds(kernel_dtype)[1])
        if not lo <= int(value) <= hi:
            raise OverflowError(f"Python int {value} too large to convert to {kernel_dtype.name}")
        value = int(value) % 2 ** 32 if kernel_dtype.is_unsigned else int(value)
    value = cast_array(np.asarray(value), kernel_dtype).item()  # floats saturate, as on a device
    return ArrayImpl(scalar_node(value, kernel_dtype), ShapedArray((), kernel_dtype, weak))


def aval_of(value) -> ShapedArray:
    """The aval of an array, a tracer or an array-like: arrays and tracers keep theirs,
    Python scalars are weakly typed, NumPy values take their (canonical) dtype.

    >>> aval_of(2.0).str_short(), aval_of(np.ones(3, np.int32)).str_short()
    ('f32[]', 'i32[3]')
    """
    if type(value) is ArrayImpl:  # the common case first: jit keys each call's arguments
        return value.aval
    aval = getattr(value, "aval", None)
    if isinstance(aval, ShapedArray):
        return aval
    return asarray_for_bind(value).aval


def asarray_for_bind(value) -> ArrayImpl:
    """Arguments of eager primitives: Arrays pass, scalars become weak constants."""
    if isinstance(value, ArrayImpl):
        return value
    if avals.is_python_scalar(value):
        return scalar(value)
    if isinstance(value, (np.ndarray, np.generic)):
        if value.ndim == 0:
            return scalar(value.item(), value.dtype)
        return from_numpy(value)
    raise TypeError(f"Value {value!r} of type {type(value).__name__} is not a valid JAX type")


# -- eager primitive application --------------------------------------------------------------


def eager_apply(primitive, args, params):
    """The EvalTrace's interpreter: output avals, then lazy nodes from the lowering rule."""
    in_avals = [a.aval for a in args]
    out_aval = P.abstract_eval_rules[primitive](*in_avals, **params)
    with GRAPH_LOCK:  # lowering reads its input nodes, which another thread may realize
        nodes = lower(primitive, out_aval, in_avals, [a.node for a in args], params)
        if primitive.multiple_results:
            outs = [_wrap(n, a) for n, a in zip(nodes, out_aval)]
        else:
            outs = [_wrap(nodes, out_aval)]
    nan_checks.check(primitive.name, outs)  # jax_debug_nans / jax_debug_infs
    return outs if primitive.multiple_results else outs[0]


def _wrap(node: LazyNode, aval: ShapedArray) -> ArrayImpl:
    if node.too_big:
        realize([node])
    return ArrayImpl(node, aval)
