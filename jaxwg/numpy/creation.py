"""Array creation: `array`, `asarray`, `zeros`, `ones`, `full`, `empty`, `arange`, `linspace`, `eye`.

Constants and ranges are lazy (a broadcast scalar, an iota): they cost no memory or
upload until something materializes them, and fuse into their consumers. Data from
Python and NumPy is uploaded with JAX's dtype inference: Python ints become int32 and
floats float32 (64-bit with `jax_enable_x64`), and Python scalars stay weakly typed.

>>> import jaxwg.numpy as jnp
>>> jnp.array([1, 2]).dtype, jnp.array([1, 2.5]).dtype, jnp.array(3).weak_type
(dtype('int32'), dtype('float32'), True)
>>> jnp.eye(2, 3, k=1)
Array([[0., 1., 0.],
       [0., 0., 1.]], dtype=float32)
"""

from __future__ import annotations

import functools
import operator
import warnings

import numpy as np

from .. import lax
from ..lax.lax import _diagonal_offsets, _eye
from ..frontend import aval as avals
from ..core import dtypes as dt
from ..frontend.array import ArrayImpl, from_numpy, scalar
from ..frontend.device import Device, get_device
from ..frontend.jit import staged_jit
from ..frontend.trace import Tracer
from . import ufuncs
from ..lax.keys import key_data
from ..transforms.batching import vmap
from ._util import aval_of, check_arraylike, concrete_or_error, is_array, result_dtype
from .manipulation import moveaxis


__all__ = ["arange", "array", "asarray", "copy", "empty", "empty_like", "eye", "frombuffer",
           "fromfile", "fromfunction", "fromiter", "fromstring", "full", "full_like", "geomspace",
           "identity", "linspace", "logspace", "ones", "ones_like", "tri", "zeros", "zeros_like"]

def _float_dtype():
    return avals.canonical_dtype("float64")


def _int_dtype():
    return avals.canonical_dtype("int64")


def _host_dtype(value: np.ndarray) -> dt.DType:
    return avals.canonical_dtype(value.dtype)


def _contains_arrays(obj) -> bool:
    if is_array(obj):
        return True
    if isinstance(obj, (list, tuple)):
        return any(_contains_arrays(o) for o in obj)
    return False


def _upload(host: np.ndarray, dtype: dt.DType, device):
    """`host` as a device array of `dtype`; empty data needs no upload."""
    if host.size == 0:
        return empty_constant(host.shape, dtype)
    return from_numpy(host, device, dtype=dtype)


def place(out, device: Device | str | None):
    """`out` on `device`: lazy values and uploads go to the default device, so another one
    gets a copy through host memory (as `jaxwg.device_put`); None and tracers stay."""
    if isinstance(device, str):
        device = get_device(device)
    if device is None or not isinstance(out, ArrayImpl) or out.device is device:
        return out
    return from_numpy(np.asarray(out), device, out.weak_type, out.aval.dtype)


def empty_constant(shape, dtype: dt.DType, weak_type: bool = False):
    """An array with no elements (some axis is 0): no memory, no upload.

    Built from an iota rather than a broadcast constant, whose realization with a zero-
    size shape fails in the view code for integer dtypes."""
    shape = tuple(shape)
    if not shape:
        raise ValueError("an empty array needs a zero-size axis")
    return lax.convert_element_type(lax.broadcasted_iota(dt.int32, shape, 0), dtype, weak_type)


def asarray(a, dtype=None, order=None, *, copy=None, device: Device | None = None):
    """`a` as an array: arrays pass through (converted to `dtype`), data is uploaded.

    Lists take JAX's dtype: the promotion of their elements, with Python scalars weak
    (`[np.float16(1), 2]` is float16) and never a weak result.

    >>> import jaxwg.numpy as jnp
    >>> jnp.asarray([[1, 2], [3, 4]], dtype=jnp.float32).shape
    (2, 2)
    >>> jnp.asarray([jnp.arange(2, dtype=jnp.uint32), [5, 6]])
    Array([[0, 1],
           [5, 6]], dtype=uint32)
    """
    return place(_asarray(a, dtype, copy, device), device)


def _asarray(a, dtype, copy, device):
    if key_data("asarray", [a]) is not None:  # typed keys stay keys, as JAX's do
        if dtype is not None and dtype != a.dtype:
            raise ValueError(f"Cannot convert_element_type from {a.dtype} to {np.dtype(dtype)}")
        return a.copy() if copy else a
    kernel_dtype = None if dtype is None else avals.canonical_dtype(dtype)
    if is_array(a):
        out = a if kernel_dtype is None else lax.convert_element_type(a, kernel_dtype)
        return out if not copy else out.copy() if isinstance(out, ArrayImpl) else out
    if avals.is_python_scalar(a):
        if kernel_dtype is None:
            return scalar(a)
        _check_python_ints([a], kernel_dtype)
        return scalar(a, kernel_dtype)
    if isinstance(a, (list, tuple)):
        leaves = list(_flat(a))
        for x in leaves:
            if x is None:
                raise ValueError("None is not a valid value for jnp.array")
        target = kernel_dtype or (_float_dtype() if not leaves else
                                  result_dtype(*[_leaf_for_promotion(x) for x in leaves])[0])
        if _contains_arrays(a):
            return _stack_nested(a, target)
        _check_python_ints(leaves, target)
        host = np.asarray(a) if target.is_bool or not leaves else np.asarray(a, target.np)
        if host.dtype == object:
            raise ValueError("setting an array element with a sequence: irregular nested "
                             "lists cannot become an array")
        return _upload(np.asarray(host, target.np), target, device)
    host = _numeric(a, np.asarray(a) if kernel_dtype is None else np.asarray(a, kernel_dtype.np))
    if host.ndim == 0 and kernel_dtype is None and isinstance(a, np.generic):
        return scalar(host.item(), _host_dtype(host))
    return _upload(host, kernel_dtype or _host_dtype(host), device)


def _leaf_for_promotion(x):
    """A list element as `result_dtype` reads it (NumPy arrays keep their dtype)."""
    return x if is_array(x) or avals.is_python_scalar(x) else _numeric(x, np.asarray(x))


def _numeric(value, host: np.ndarray) -> np.ndarray:
    """`host` (`value` on the host) if it has a numeric dtype, else JAX's TypeError."""
    if host.dtype == object or host.dtype.kind not in "biufc":
        raise TypeError(f"Value {value!r} with dtype {host.dtype} is not a valid JAX array "
                        "type. Only arrays of numeric types are supported by JAX.")
    return host


def _check_python_ints(leaves, target: dt.DType) -> None:
    if not target.is_int:
        return
    lo, hi = dt.bounds(target)
    for x in leaves:
        if type(x) is int and not lo <= x <= hi:
            raise OverflowError(f"Python integer {x} out of bounds for {target.name}")


def _stack_nested(seq, dtype: dt.DType):
    """A nested list with arrays in it, as one array: each level stacks along a new axis."""
    parts = [_stack_nested(x, dtype) if isinstance(x, (list, tuple)) else
             lax.convert_element_type(asarray(x), dtype) for x in seq]
    if not parts:
        return lax.full((0,), 0, dtype)
    # As JAX's: stacking concatenates the elements with a new leading axis, and says so.
    shapes = [(1,) + aval_of(p).shape for p in parts]
    listed = ", ".join(map(str, shapes))
    if any(len(s) != len(shapes[0]) for s in shapes):
        raise TypeError(f"Cannot concatenate arrays with different numbers of dimensions: got "
                        f"{listed}.")
    if any(s != shapes[0] for s in shapes):
        raise TypeError("Cannot concatenate arrays with shapes that differ in dimensions other "
                        f"than the one being concatenated: concatenating along dimension 0 "
                        f"for shapes {listed}.")
    return lax.concatenate([lax.reshape(p, s) for p, s in zip(parts, shapes)], 0)


def _flat(seq):
    for x in seq:
        if isinstance(x, (list, tuple)):
            yield from _flat(x)
        else:
            yield x


def array(object, dtype=None, copy=True, order="K", ndmin=0, *, device=None):
    """A new array from `object` (see `asarray`), with at least `ndmin` axes.

    >>> import jaxwg.numpy as jnp
    >>> jnp.array(2.0, ndmin=2).shape
    (1, 1)
    """
    out = asarray(object, dtype, device=device)
    if out is object and copy and (isinstance(out, ArrayImpl) or key_data("array", [out]) is not None):
        out = out.copy()
    if ndmin > out.ndim:  # arrays, tracers and typed keys reshape alike
        out = out.reshape((1,) * (ndmin - out.ndim) + out.shape)
    return out


def copy(a, order=None):
    """A copy of `a` (an array, NumPy data or typed keys).

    >>> import jaxwg.numpy as jnp
    >>> x = jnp.arange(3)
    >>> jnp.copy(x) is x, jnp.copy(x).tolist()
    (False, [0, 1, 2])
    """
    if key_data("copy", [a]) is None:
        check_arraylike("copy", a)
    return array(a, copy=True, order="K" if order is None else order)


def _shape(shape) -> tuple[int, ...]:
    dims = tuple(shape) if isinstance(shape, (tuple, list)) else (shape,)
    tracers = [d for d in dims if isinstance(d, Tracer)]
    if tracers:
        hint = tracers[0]._tracing_context()
        raise TypeError("Shapes must be 1D sequences of concrete values of integer type, "
                        f"got {dims!r}.\nIf using `jit`, try using `static_argnums` or "
                        f"applying `jit` to smaller subfunctions.{hint}")
    try:
        shape = (operator.index(shape),)
    except TypeError:
        shape = tuple(operator.index(n) for n in shape)
    if any(n < 0 for n in shape):
        raise ValueError(f"negative dimensions are not allowed, got shape {shape}")
    return shape


def full(shape, fill_value, dtype=None, *, device=None):
    """`fill_value` at every index of `shape` (lazy: no memory until used).

    >>> import jaxwg.numpy as jnp
    >>> jnp.full((2,), 7)
    Array([7, 7], dtype=int32, weak_type=True)
    """
    check_arraylike("full", fill_value)
    shape = _shape(shape)
    if dtype is not None and avals.is_python_scalar(fill_value):
        # as JAX's lax.full converts it: an int wraps (full(2, 300, uint8) is 44), a float
        # saturates; arrays convert as asarray converts them
        value = lax.convert_element_type(fill_value, dtype)
    else:
        value = asarray(fill_value, dtype)
    if 0 in shape:
        return place(empty_constant(shape, aval_of(value).dtype, aval_of(value).weak_type), device)
    return place(lax.broadcast_in_dim(value, shape, tuple(range(len(shape) - aval_of(value).ndim,
                                                                len(shape)))), device)


def zeros(shape, dtype=None, *, device=None):
    """Zeros of `shape` and `dtype` (default float32).

    >>> import jaxwg.numpy as jnp
    >>> jnp.zeros((2, 2), jnp.int32).tolist()
    [[0, 0], [0, 0]]
    """
    return full(shape, 0, dtype or _float_dtype(), device=device)


def ones(shape, dtype=None, *, device=None):
    """Ones of `shape` and `dtype` (default float32).

    >>> import jaxwg.numpy as jnp
    >>> jnp.ones(3)
    Array([1., 1., 1.], dtype=float32)
    """
    return full(shape, 1, dtype or _float_dtype(), device=device)


def empty(shape, dtype=None, *, device=None):
    """As JAX: zeros (arrays are never uninitialized).

    >>> import jaxwg.numpy as jnp
    >>> jnp.empty(2).tolist()
    [0.0, 0.0]
    """
    return zeros(shape, dtype, device=device)


def _like(name: str, value):
    def like(a, dtype=None, shape=None, *, device=None):
        return place(_full_like(name, a, value, dtype, shape), device)

    like.__name__ = like.__qualname__ = name
    like.__doc__ = (f"An array like `a` (its shape and dtype unless given) filled with "
                    f"{value}.\n\n"
                    f"    >>> import jaxwg.numpy as jnp\n"
                    f"    >>> jnp.{name}(jnp.arange(2)).dtype\n    dtype('int32')\n")
    return like


def _full_like(name: str, a, fill_value, dtype, shape):
    """JAX's `*_like`: `a`'s dtype and weak type unless `dtype` is given."""
    check_arraylike(name, a, fill_value)
    ref = aval_of(a)
    target = ref.dtype if dtype is None else avals.canonical_dtype(dtype)
    out = full(ref.shape if shape is None else shape, fill_value, target)
    return lax.convert_element_type(out, target, ref.weak_type and dtype is None)


zeros_like = _like("zeros_like", 0)
ones_like = _like("ones_like", 1)
empty_like = _like("empty_like", 0)


def full_like(a, fill_value, dtype=None, shape=None, *, device=None):
    """`fill_value` in an array like `a`.

    >>> import jaxwg.numpy as jnp
    >>> jnp.full_like(jnp.zeros(2), 3)
    Array([3., 3.], dtype=float32)
    """
    return place(_full_like("full_like", a, fill_value, dtype, shape), device)


def _concrete(name: str, v):
    concrete_or_error(v, f"It arose in the jnp.arange argument '{name}'")
    if v is not None and np.ndim(v) != 0:
        raise ValueError(f"jax.numpy.arange: arguments must be scalars; got {name}={v}")
    return v.item() if isinstance(v, ArrayImpl) else v


def arange(start, stop=None, step=None, dtype=None, *, device=None):
    """Evenly spaced values in `[start, stop)`, as JAX: `start + step * iota` (lazy).

    The dtype is the promotion of the arguments (Python ints give int32, floats float32);
    float16 computes in float32.

    >>> import jaxwg.numpy as jnp
    >>> jnp.arange(5), jnp.arange(1.0, 2.0, 0.5)
    (Array([0, 1, 2, 3, 4], dtype=int32), Array([1. , 1.5], dtype=float32))
    >>> jnp.arange(10, 2, -3)
    Array([10,  7,  4], dtype=int32)
    """
    start = _concrete("stop" if stop is None and step is None else "start", start)
    stop, step = _concrete("stop", stop), _concrete("step", step)
    if dtype is None:
        kernel_dtype = result_dtype(*[v for v in (start, stop, step) if v is not None])[0]
    else:
        kernel_dtype = avals.canonical_dtype(dtype)
    if kernel_dtype.is_bool:
        raise TypeError("arange does not accept dtype bool; iota needs an integer or "
                        "floating-point dtype")
    if stop is None:
        start, stop = 0, start
    if step is None:
        step = 1
        size = max(0, int(np.ceil(stop - start)))
    else:
        size = max(0, int(np.ceil((stop - start) / step)))
    working = dt.float32 if kernel_dtype is dt.float16 else kernel_dtype

    def constant(v):  # converted as JAX converts: a negative step wraps into uint32
        with np.errstate(over="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return np.asarray(v).astype(working.np)[()]

    ramp = lax.iota(working, size)
    if step != 1:
        ramp = lax.mul(lax.convert_element_type(constant(step), working), ramp)
    if start != 0:
        ramp = lax.add(lax.convert_element_type(constant(start), working), ramp)
    return place(lax.convert_element_type(ramp, kernel_dtype), device)


def linspace(start, stop, num: int = 50, endpoint: bool = True, retstep: bool = False,
             dtype=None, axis: int = 0, *, device=None):
    """`num` evenly spaced values from `start` to `stop`, computed as JAX does:
    `start * (1 - t) + stop * t` with `t = i / div` (integers are floored).

    `start` and `stop` may be arrays; the samples run along `axis`.

    >>> import jaxwg.numpy as jnp
    >>> jnp.linspace(0, 1, 5)
    Array([0.  , 0.25, 0.5 , 0.75, 1.  ], dtype=float32)
    >>> jnp.linspace(jnp.zeros(2), jnp.array([1.0, 2.0]), 3, axis=1).tolist()
    [[0.0, 0.5, 1.0], [0.0, 1.0, 2.0]]
    """
    num = operator.index(num)
    return _linspace(start, stop, num, endpoint, retstep, dtype, operator.index(axis),
                     device=device)


@functools.partial(staged_jit, static_argnames=("num", "endpoint", "retstep", "dtype", "axis",
                                                "device"))
def _linspace(start, stop, num: int, endpoint: bool, retstep: bool, dtype, axis: int, *,
              device):
    """`linspace` with `start` and `stop` as its only arguments: one `jit` equation in a
    jaxpr, as JAX's `_linspace`."""
    if num < 0:
        raise ValueError(f"Number of samples, {num}, must be non-negative.")
    check_arraylike("linspace", start, stop)
    if dtype is None:
        out_dtype = result_dtype(start, stop)[0]
        out_dtype = out_dtype if out_dtype.is_inexact else _float_dtype()
    else:
        out_dtype = avals.canonical_dtype(dtype)
    computation = out_dtype if out_dtype.is_inexact else _float_dtype()
    start_a = lax.convert_element_type(asarray(start), computation)
    stop_a = lax.convert_element_type(asarray(stop), computation)
    from ._util import broadcast_shapes, broadcast_to_shape, canonicalize_axis

    bounds = list(broadcast_shapes(aval_of(start_a).shape, aval_of(stop_a).shape))
    start_a, stop_a = broadcast_to_shape(start_a, bounds), broadcast_to_shape(stop_a, bounds)
    axis = canonicalize_axis(axis, len(bounds) + 1)
    out_shape = bounds[:axis] + [num] + bounds[axis:]
    bounds_1 = bounds[:axis] + [1] + bounds[axis:]
    div = (num - 1) if endpoint else num
    if num > 1:
        # As JAX's: t = i / div in the real dtype, then start (1 - t) + stop t with the
        # bounds reshaped to size 1 along `axis`.
        delta = lax.div(lax.sub(stop_a, start_a), lax.full((), div, computation))
        real = dt.PART.get(computation, computation)
        t_shape = [1] * len(bounds_1)
        t_shape[axis] = div
        t = lax.div(lax.reshape(lax.iota(real, div), t_shape), lax.full((), div, real))
        t = lax.convert_element_type(t, computation)
        start_1 = lax.reshape(start_a, bounds_1)
        out = lax.add(lax.mul(start_1, lax.sub(lax.full((), 1, computation), t)),
                      lax.mul(lax.reshape(stop_a, bounds_1), t))
        if endpoint:
            out = lax.concatenate([out, lax.expand_dims(stop_a, (axis,))], axis)
    elif num == 1:
        delta = lax.sub(stop_a, start_a) if not endpoint else lax.full(bounds, np.nan, computation)
        out = lax.reshape(start_a, bounds_1)
    else:
        delta = lax.full(bounds, np.nan, computation)
        out = lax.full(out_shape, 0, computation)
    if out_dtype.is_int:
        out = lax.floor(out)
    out = place(lax.convert_element_type(out, out_dtype), device)
    return (out, delta) if retstep else out


def eye(N: int, M: int | None = None, k: int = 0, dtype=None, *, device=None):
    """Ones on the `k`-th diagonal of an `N` x `M` matrix.

    >>> import jaxwg.numpy as jnp
    >>> jnp.eye(2, dtype=jnp.int32).tolist()
    [[1, 0], [0, 1]]
    """
    shape, k = _matrix(N, M, k)
    return place(_eye(avals.canonical_dtype(dtype or _float_dtype()), shape, k), device)


def _matrix(N, M, k) -> tuple[tuple[int, int], int]:
    """The (N, M) shape of a matrix function's result (M defaults to N) and its diagonal
    `k`, clamped where farther diagonals are all outside (so that it fits int32)."""
    M = N if M is None else M
    N, M, k = operator.index(N), operator.index(M), operator.index(k)
    if N < 0 or M < 0:
        raise ValueError(f"negative dimensions are not allowed, got N={N}, M={M}")
    return (N, M), max(-N, min(k, M))


def identity(n: int, dtype=None):
    """The `n` x `n` identity matrix.

    >>> import jaxwg.numpy as jnp
    >>> jnp.identity(2).tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """
    return eye(n, dtype=dtype)


def tri(N: int, M: int | None = None, k: int = 0, dtype=None):
    """Ones at and below the `k`-th diagonal of an `N` x `M` matrix, zeros above; float32
    unless `dtype` is given (as JAX, also with x64).

    >>> import jaxwg.numpy as jnp
    >>> jnp.tri(2, 3, k=1, dtype=jnp.int32).tolist()
    [[1, 1, 0], [1, 1, 1]]
    """
    rows, cols = _diagonal_offsets(*_matrix(N, M, k))
    return lax.convert_element_type(lax.ge(rows, cols), avals.canonical_dtype(dtype or np.float32))


def _inexact_dtypes(start, stop, dtype):
    """(result, computation) dtypes of a log or geometric range: the inexact promotion of
    the endpoints unless `dtype` is given; integer results are computed in floats."""
    if dtype is None:
        out = result_dtype(start, stop)[0]
        out = out if out.is_float else _float_dtype()
    else:
        out = avals.canonical_dtype(dtype)
    return out, (out if out.is_float else _float_dtype())


def logspace(start, stop, num: int = 50, endpoint: bool = True, base=10.0, dtype=None,
             axis: int = 0):
    """`base ** linspace(start, stop, num)`: `num` values spaced evenly on a log scale.

    >>> import jaxwg.numpy as jnp
    >>> jnp.logspace(0, 3, 4).round(3).tolist()
    [1.0, 10.0, 100.0, 1000.0]
    """
    out_dtype, computation = _inexact_dtypes(start, stop, dtype)
    exponents = linspace(lax.convert_element_type(asarray(start), computation),
                         lax.convert_element_type(asarray(stop), computation),
                         num, endpoint=endpoint, axis=axis)
    return lax.convert_element_type(ufuncs.power(base, exponents), out_dtype)


def geomspace(start, stop, num: int = 50, endpoint: bool = True, dtype=None, axis: int = 0):
    """`num` values from `start` to `stop` in a geometric progression (both of one sign).

    >>> import jaxwg.numpy as jnp
    >>> jnp.geomspace(1, 16, 5).round(3).tolist()
    [1.0, 2.0, 4.0, 8.0, 16.0]
    """
    out_dtype, computation = _inexact_dtypes(start, stop, dtype)
    start = lax.convert_element_type(asarray(start), computation)
    stop = lax.convert_element_type(asarray(stop), computation)
    sign = ufuncs.sign(start)
    magnitudes = logspace(ufuncs.log10(start / sign), ufuncs.log10(stop / sign), num,
                          endpoint=endpoint, dtype=computation, axis=0)
    out = sign * magnitudes
    return lax.convert_element_type(moveaxis(out, 0, axis), out_dtype)


# -- from functions, buffers and strings ------------------------------------------------------


def fromfunction(function, shape, *, dtype=float, **kwargs):
    """`function` of the indices at every position of `shape`: as in JAX, one call, mapped
    with `vmap` over each axis of the index arrays `arange(n, dtype=dtype)`.

    >>> import jaxwg.numpy as jnp
    >>> jnp.fromfunction(lambda i, j: i * 10 + j, (2, 3), dtype=int).tolist()
    [[0, 1, 2], [10, 11, 12]]
    """
    try:  # as JAX: a negative size gives an empty axis (`arange` of it)
        shape = tuple(operator.index(n) for n in shape)
    except TypeError:
        raise TypeError("Shapes must be 1D sequences of concrete values of integer type, got "
                        f"{shape!r}. shape argument of jnp.fromfunction().") from None
    for i in range(len(shape)):
        in_axes = [0 if i == j else None for j in range(len(shape))]
        function = vmap(function, in_axes=tuple(in_axes[::-1]))
    return function(*(arange(n, dtype=dtype) for n in shape), **kwargs)


def frombuffer(buffer, dtype=float, count=-1, offset=0):
    """A 1-d array of the bytes of `buffer` read as `dtype` (NumPy's `frombuffer`, then
    copied to the device).

    >>> import jaxwg.numpy as jnp
    >>> jnp.frombuffer(b"\\x01\\x02", dtype=jnp.uint8).tolist()
    [1, 2]
    """
    return asarray(np.frombuffer(buffer=buffer, dtype=dtype, count=count, offset=offset))


def fromstring(string, dtype=float, count=-1, *, sep):
    """A 1-d array of the numbers in text `string` separated by `sep` (NumPy's
    `fromstring`).

    >>> import jaxwg.numpy as jnp
    >>> jnp.fromstring("1 2 3", dtype=int, sep=" ").tolist()
    [1, 2, 3]
    """
    return asarray(np.fromstring(string=string, dtype=dtype, count=count, sep=sep))


def _impure(name: str, what: str):
    raise NotImplementedError(
        f"jnp.{name}() is not implemented because it may be non-pure and thus unsafe for use "
        f"with JIT and other JAX transformations. Consider using jnp.asarray(np.{name}(...)) "
        f"instead, although care should be taken if np.{name} is used within a jax "
        f"transformations because of its potential side-effect of consuming the {what}; for "
        "more information see "
        "https://docs.jax.dev/en/latest/notebooks/Common_Gotchas_in_JAX.html#pure-functions")


def fromiter(*args, **kwargs):
    """Not implemented, as in JAX (consuming an iterator is not pure): use
    `jnp.asarray(np.fromiter(...))`.

    >>> import jaxwg.numpy as jnp
    >>> jnp.fromiter(iter([1, 2]), int)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    NotImplementedError: jnp.fromiter() is not implemented ...
    """
    _impure("fromiter", "iterable object")


def fromfile(*args, **kwargs):
    """Not implemented, as in JAX (reading a file is not pure): use
    `jnp.asarray(np.fromfile(...))`.

    >>> import jaxwg.numpy as jnp
    >>> jnp.fromfile("x.bin")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    NotImplementedError: jnp.fromfile() is not implemented ...
    """
    _impure("fromfile", "file object")
