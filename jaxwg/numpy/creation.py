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

import operator

import numpy as np

from .. import lax
from ..core import aval as avals
from ..core import dtypes as dt
from ..core.array import Array, from_numpy, scalar
from ..core.device import Device
from ..core.trace import Tracer
from ._util import aval_of, is_array


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


def asarray(a, dtype=None, order=None, *, copy=None, device: Device | None = None):
    """`a` as an array: arrays pass through (converted to `dtype`), data is uploaded.

    >>> import jaxwg.numpy as jnp
    >>> jnp.asarray([[1, 2], [3, 4]], dtype=jnp.float32).shape
    (2, 2)
    """
    kernel_dtype = None if dtype is None else avals.canonical_dtype(dtype)
    if is_array(a):
        out = a if kernel_dtype is None else lax.convert_element_type(a, kernel_dtype)
        return out if not copy else out.copy() if isinstance(out, Array) else out
    if avals.is_python_scalar(a):
        if kernel_dtype is None:
            return scalar(a)
        return scalar(a, kernel_dtype)
    if isinstance(a, (list, tuple)) and _contains_arrays(a):
        from .shape import stack

        return asarray(stack([asarray(x) for x in a]), dtype)
    if isinstance(a, (list, tuple)) and _all_python_scalars(a):
        host = np.asarray(a)
        inferred = _python_sequence_dtype(a) if kernel_dtype is None else kernel_dtype
        return from_numpy(host, device, dtype=inferred)
    host = np.asarray(a)
    if host.dtype == object:
        raise TypeError(f"jaxwg.numpy.asarray: cannot convert {type(a).__name__} with "
                        "irregular or non-numeric contents")
    if host.ndim == 0 and kernel_dtype is None and isinstance(a, np.generic):
        return scalar(host.item(), _host_dtype(host))
    return from_numpy(host, device, dtype=kernel_dtype or _host_dtype(host))


def _flat(seq):
    for x in seq:
        if isinstance(x, (list, tuple)):
            yield from _flat(x)
        else:
            yield x


def _all_python_scalars(seq) -> bool:
    return all(avals.is_python_scalar(x) for x in _flat(seq))


def _python_sequence_dtype(seq) -> dt.DType:
    kinds = {type(x) for x in _flat(seq)}
    if float in kinds:
        return _float_dtype()
    if int in kinds:
        return _int_dtype()
    return dt.bool_ if kinds else _float_dtype()


def array(object, dtype=None, copy=True, order="K", ndmin=0, *, device=None):
    """A new array from `object` (see `asarray`), with at least `ndmin` axes.

    >>> import jaxwg.numpy as jnp
    >>> jnp.array(2.0, ndmin=2).shape
    (1, 1)
    """
    out = asarray(object, dtype, device=device)
    if isinstance(out, Array) and out is object and copy:
        out = out.copy()
    nd = aval_of(out).ndim
    if ndmin > nd:
        out = lax.reshape(out, (1,) * (ndmin - nd) + aval_of(out).shape)
    return out


def _shape(shape) -> tuple[int, ...]:
    if isinstance(shape, (Array, Tracer)):
        raise TypeError("Shapes must be 1D sequences of concrete values of integer type, "
                        f"got {shape!r}.")
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
    shape = _shape(shape)
    value = asarray(fill_value, dtype)
    return lax.broadcast_in_dim(value, shape, tuple(range(len(shape) - aval_of(value).ndim,
                                                          len(shape))))


def zeros(shape, dtype=None, *, device=None):
    """Zeros of `shape` and `dtype` (default float32).

    >>> import jaxwg.numpy as jnp
    >>> jnp.zeros((2, 2), jnp.int32).tolist()
    [[0, 0], [0, 0]]
    """
    return full(shape, 0, dtype or _float_dtype())


def ones(shape, dtype=None, *, device=None):
    """Ones of `shape` and `dtype` (default float32).

    >>> import jaxwg.numpy as jnp
    >>> jnp.ones(3)
    Array([1., 1., 1.], dtype=float32)
    """
    return full(shape, 1, dtype or _float_dtype())


def empty(shape, dtype=None, *, device=None):
    """As JAX: zeros (arrays are never uninitialized).

    >>> import jaxwg.numpy as jnp
    >>> jnp.empty(2).tolist()
    [0.0, 0.0]
    """
    return zeros(shape, dtype)


def _like(name: str, value):
    def like(a, dtype=None, shape=None, *, device=None):
        ref = aval_of(a)
        target = ref.dtype if dtype is None else dtype
        out = full(ref.shape if shape is None else shape,
                   value if value is not None else 0, target)
        return lax.convert_element_type(out, avals.canonical_dtype(target), ref.weak_type
                                        and dtype is None)

    like.__name__ = name
    like.__doc__ = (f"An array like `a` (its shape and dtype unless given) filled with "
                    f"{value if value is not None else 0}.\n\n"
                    f"    >>> import jaxwg.numpy as jnp\n"
                    f"    >>> jnp.{name}(jnp.arange(2)).dtype\n    dtype('int32')\n")
    return like


zeros_like = _like("zeros_like", 0)
ones_like = _like("ones_like", 1)
empty_like = _like("empty_like", 0)


def full_like(a, fill_value, dtype=None, shape=None, *, device=None):
    """`fill_value` in an array like `a`.

    >>> import jaxwg.numpy as jnp
    >>> jnp.full_like(jnp.zeros(2), 3)
    Array([3., 3.], dtype=float32)
    """
    ref = aval_of(a)
    return full(ref.shape if shape is None else shape, fill_value,
                ref.dtype if dtype is None else dtype)


def arange(start, stop=None, step=None, dtype=None, *, device=None):
    """Evenly spaced values in `[start, stop)`, as NumPy (integers lower to a lazy iota).

    >>> import jaxwg.numpy as jnp
    >>> jnp.arange(5), jnp.arange(1.0, 2.0, 0.5)
    (Array([0, 1, 2, 3, 4], dtype=int32), Array([1. , 1.5], dtype=float32))
    """
    for v in (start, stop, step):
        if isinstance(v, (Array, Tracer)) and isinstance(v, Tracer):
            raise TypeError("jnp.arange: arguments must be concrete; got a traced value")
    values = [v.item() if isinstance(v, Array) else v for v in (start, stop, step)]
    start, stop, step = values
    if stop is None:
        start, stop = 0, start
    step = 1 if step is None else step
    host = np.arange(start, stop, step)
    if dtype is None:
        is_float = any(isinstance(v, float) for v in (start, stop, step)) or host.dtype.kind == "f"
        kernel_dtype = _float_dtype() if is_float else _int_dtype()
    else:
        kernel_dtype = avals.canonical_dtype(dtype)
    n = host.size
    if all(isinstance(v, (int, np.integer)) for v in (start, stop, step)):
        ramp = lax.iota(dt.int32, n)
        if step != 1:
            ramp = ramp * step
        if start != 0:
            ramp = ramp + start
        return lax.convert_element_type(ramp, kernel_dtype)
    return from_numpy(host.astype(kernel_dtype.np))


def linspace(start, stop, num: int = 50, endpoint: bool = True, retstep: bool = False,
             dtype=None, axis: int = 0, *, device=None):
    """`num` evenly spaced values from `start` to `stop`.

    >>> import jaxwg.numpy as jnp
    >>> jnp.linspace(0, 1, 5)
    Array([0.  , 0.25, 0.5 , 0.75, 1.  ], dtype=float32)
    """
    num = operator.index(num)
    if num < 0:
        raise ValueError(f"Number of samples, {num}, must be non-negative.")
    from ._util import result_dtype

    computation = _float_dtype()
    out_dtype = avals.canonical_dtype(dtype) if dtype is not None else \
        (lambda d: d if d.is_float else computation)(result_dtype(start, stop, 1.0)[0])
    start_a = lax.convert_element_type(asarray(start), computation)
    stop_a = lax.convert_element_type(asarray(stop), computation)
    div = (num - 1) if endpoint else num
    ramp = lax.convert_element_type(lax.iota(dt.int32, num), computation)
    delta = lax.sub(stop_a, start_a)
    step = lax.div(delta, lax.convert_element_type(max(div, 1), computation)) if div > 0 else \
        lax.mul(delta, float("nan"))
    values = lax.add(lax.mul(ramp, step) if aval_of(step).shape == () else ramp, start_a)
    if endpoint and num > 1:
        last = lax.eq(lax.iota(dt.int32, num), num - 1)
        values = lax.select(last, lax.broadcast_in_dim(stop_a, (num,), ()), values)
    out = lax.convert_element_type(values, out_dtype)
    if out_dtype.is_int:
        out = lax.convert_element_type(lax.floor(values), out_dtype)
    if axis != 0:
        raise NotImplementedError("linspace with axis != 0 is not supported yet")
    return (out, lax.convert_element_type(step, out_dtype)) if retstep else out


def eye(N: int, M: int | None = None, k: int = 0, dtype=None, *, device=None):
    """Ones on the `k`-th diagonal of an `N` x `M` matrix.

    >>> import jaxwg.numpy as jnp
    >>> jnp.eye(2, dtype=jnp.int32).tolist()
    [[1, 0], [0, 1]]
    """
    M = N if M is None else M
    N, M, k = operator.index(N), operator.index(M), operator.index(k)
    if N < 0 or M < 0:
        raise ValueError(f"negative dimensions are not allowed, got N={N}, M={M}")
    rows = lax.broadcasted_iota(dt.int32, (N, M), 0)
    cols = lax.broadcasted_iota(dt.int32, (N, M), 1)
    on_diagonal = lax.eq(lax.add(rows, k), cols)
    return lax.convert_element_type(on_diagonal, avals.canonical_dtype(dtype or _float_dtype()))


def identity(n: int, dtype=None):
    """The `n` x `n` identity matrix.

    >>> import jaxwg.numpy as jnp
    >>> jnp.identity(2).tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """
    return eye(n, dtype=dtype)
