"""`ufunc` and `frompyfunc`: JAX's universal-function class, wrapping a scalar function.

Calling a ufunc maps its function over broadcast arguments (`vectorize`, compiled with
`jit`); `reduce`, `accumulate` and `at` loop over the elements with `fori_loop` and
`scan` as JAX's defaults do, and `outer` maps it over all pairs with `vmap`. As in JAX,
`at` returns a new array and needs `inplace=False`. The elementwise functions of
`jaxwg.numpy` (`jnp.add`, ...) are plain functions, not ufuncs.

>>> import jaxwg.numpy as jnp
>>> f = jnp.frompyfunc(lambda x, y: x * y + 1, nin=2, nout=1, identity=1)
>>> f(jnp.arange(3), 2).tolist(), f.reduce(jnp.arange(1, 4)).item()  # ((1*1+1)*2+1)*3+1
([1, 3, 5], 16)
"""

from __future__ import annotations

import math
import operator

import numpy as np

from .. import lax
from ..frontend.jit import jit
from ..frontend.shape_eval import eval_shape
from ..transforms.batching import vmap
from . import ufuncs
from ._util import aval_of, broadcast_shapes, canonicalize_axis, check_arraylike, to_array
from .creation import asarray
from .manipulation import broadcast_to, moveaxis, reshape
from .vectorization import vectorize

__all__ = ["frompyfunc", "ufunc"]

_AT_INPLACE_WARNING = """\
Because JAX arrays are immutable, jnp.ufunc.at() cannot operate inplace like
np.ufunc.at(). Instead, you can pass inplace=False and capture the result; e.g.
>>> arr = jnp.add.at(arr, ind, val, inplace=False)
"""


def _one(x):
    """A scalar 1 of `x`'s dtype and weak type: what the function's result dtype is read from."""
    aval = aval_of(to_array(x))
    return lax.convert_element_type(1, aval.dtype, aval.weak_type)


class ufunc:
    """A universal function from a scalar function of `nin` arguments and `nout` results,
    as JAX's `jnp.ufunc` (`call`, `reduce`, `accumulate`, `at` override the defaults).

    >>> import jaxwg.numpy as jnp
    >>> add = jnp.ufunc(lambda x, y: x + y, 2, 1, name="add", identity=0)
    >>> add.outer(jnp.arange(2), jnp.arange(3)).tolist(), add.accumulate(jnp.arange(4)).tolist()
    ([[0, 1, 2], [1, 2, 3]], [0, 1, 3, 6])
    """

    def __init__(self, func, /, nin, nout, *, name=None, nargs=None, identity=None, call=None,
                 reduce=None, accumulate=None, at=None, reduceat=None):
        self.__doc__ = func.__doc__
        self.__name__ = name or func.__name__
        self._props = {"func": func, "nin": operator.index(nin), "nout": operator.index(nout),
                       "nargs": operator.index(nargs or nin), "identity": identity, "call": call,
                       "reduce": reduce, "accumulate": accumulate, "at": at, "reduceat": reduceat}
        self._vectorized = jit(vectorize(func))

    _func = property(lambda self: self._props["func"])
    nin = property(lambda self: self._props["nin"])
    nout = property(lambda self: self._props["nout"])
    nargs = property(lambda self: self._props["nargs"])
    identity = property(lambda self: self._props["identity"])

    def _key(self):
        return self._func, self.__name__, self.identity, self.nin, self.nout, self.nargs

    def __hash__(self) -> int:
        return hash(self._key())

    def __eq__(self, other) -> bool:
        return isinstance(other, ufunc) and self._key() == other._key()

    def __repr__(self) -> str:
        return f"<jnp.ufunc '{self.__name__}'>"

    def _binary_only(self, method: str) -> None:
        if self.nin != 2:
            raise ValueError(f"{method} only supported for binary ufuncs")
        if self.nout != 1:
            raise ValueError(f"{method} only supported for functions returning a single value")

    def __call__(self, *args, out=None, where=None):
        check_arraylike(self.__name__, *args)
        if out is not None:
            raise NotImplementedError(f"out argument of {self}")
        if where is not None:
            raise NotImplementedError(f"where argument of {self}")
        return (self._props["call"] or self._vectorized)(*args)

    def reduce(self, a, axis=0, dtype=None, out=None, keepdims=False, initial=None, where=None):
        """`a` combined along `axis` (None: all axes) with the binary function, from
        `initial` (default: the identity, else the first element); `where` masks elements.

        >>> import jaxwg.numpy as jnp
        >>> jnp.frompyfunc(lambda x, y: x - y, 2, 1).reduce(jnp.array([10, 1, 2])).item()
        7
        """
        check_arraylike(f"{self.__name__}.reduce", a)
        self._binary_only("reduce")
        if out is not None:
            raise NotImplementedError(f"out argument of {self.__name__}.reduce()")
        if initial is not None:
            check_arraylike(f"{self.__name__}.reduce", initial)
        if where is not None:
            check_arraylike(f"{self.__name__}.reduce", where)
            if self.identity is None and initial is None:
                raise ValueError(f"reduction operation {self.__name__!r} does not have an identity, "
                                 "so to use a where mask one has to specify 'initial'.")
            where_dtype = aval_of(to_array(where)).dtype.np
            if where_dtype != np.bool_:
                raise ValueError(f"where argument must have dtype=bool; got dtype={where_dtype}")
        reduce = self._props["reduce"] or self._reduce_via_loop
        return reduce(a, axis=axis, dtype=dtype, keepdims=keepdims, initial=initial, where=where)

    def _reduce_via_loop(self, a, axis=0, dtype=None, keepdims=False, initial=None, where=None):
        arr = to_array(a)
        initial = self.identity if initial is None else initial
        dtype = eval_shape(self._func, _one(arr), _one(arr)).dtype if dtype is None else dtype
        shape = aval_of(arr).shape
        if where is not None:
            where = broadcast_to(where, shape)
        if isinstance(axis, tuple):
            raise NotImplementedError("tuple of axes")
        if axis is None:
            final_shape = (1,) * len(shape) if keepdims else ()
            arr = reshape(arr, (-1,))
            where = None if where is None else reshape(where, (-1,))
            axis = 0
        else:
            axis = canonicalize_axis(axis, len(shape))
            kept = (1,) if keepdims else ()
            final_shape = shape[:axis] + kept + shape[axis + 1:]
        arr = moveaxis(arr, axis, 0)
        where = None if where is None else moveaxis(where, axis, 0)
        n = aval_of(arr).shape[0]
        if n == 0:
            if initial is None:
                raise ValueError(f"zero-size array to reduction operation {self.__name__} which "
                                 "has no identity")
            return lax.full(final_shape, initial, dtype)

        def body(i, val):
            new = self(val, arr[i].astype(dtype))
            return new if where is None else ufuncs.where(where[i], new, val)

        start, first = (1, arr[0]) if initial is None else (0, initial)
        first = broadcast_to(asarray(first).astype(dtype), aval_of(arr).shape[1:])
        result = lax.fori_loop(start, n, body, first)
        return reshape(result, final_shape) if keepdims else result

    def accumulate(self, a, axis=0, dtype=None, out=None):
        """The running combination of `a` along `axis` with the binary function.

        >>> import jaxwg.numpy as jnp
        >>> jnp.frompyfunc(lambda x, y: x * y, 2, 1).accumulate(jnp.arange(1, 5)).tolist()
        [1, 2, 6, 24]
        """
        self._binary_only("accumulate")
        if out is not None:
            raise NotImplementedError(f"out argument of {self.__name__}.accumulate()")
        accumulate = self._props["accumulate"] or self._accumulate_via_scan
        return accumulate(a, axis=axis, dtype=dtype)

    def _accumulate_via_scan(self, a, axis=0, dtype=None):
        check_arraylike(f"{self.__name__}.accumulate", a)
        arr = to_array(a)
        dtype = eval_shape(self._func, _one(arr), _one(arr)).dtype if dtype is None else dtype
        if axis is None or isinstance(axis, tuple):
            raise ValueError("accumulate does not allow multiple axes")
        shape = aval_of(arr).shape
        axis = canonicalize_axis(axis, len(shape))
        if math.prod(shape) == 0:
            return lax.full(shape, 0, dtype)
        arr = moveaxis(arr, axis, 0)
        first = arr[0].astype(dtype)

        def step(carry, _):
            i, x = carry
            y = ufuncs.where(i == 0, first, self(x.astype(dtype), arr[i].astype(dtype)))
            return (i + 1, y), y

        _, result = lax.scan(step, (0, first), None, length=aval_of(arr).shape[0])
        return moveaxis(result, 0, axis)

    def at(self, a, indices, b=None, /, *, inplace=True):
        """`a` with the function applied at `indices` (with `b` as second argument),
        repeated indices applied again each time; a new array (`inplace=False`).

        >>> import jaxwg.numpy as jnp
        >>> f = jnp.frompyfunc(lambda x, y: x + y, 2, 1)
        >>> f.at(jnp.zeros(3), jnp.array([0, 0, 2]), 1.0, inplace=False).tolist()
        [2.0, 0.0, 1.0]
        """
        if inplace:
            raise NotImplementedError(_AT_INPLACE_WARNING)
        at = self._props["at"] or self._at_via_scan
        return at(a, indices) if b is None else at(a, indices, b)

    def _at_via_scan(self, a, indices, *args):
        check_arraylike(f"{self.__name__}.at", a, *args)
        dtype = eval_shape(self._func, _one(a), *(_one(arg) for arg in args)).dtype
        a = to_array(a).astype(dtype)
        args = tuple(asarray(arg).astype(dtype) for arg in args)
        indices = indices if isinstance(indices, tuple) else (indices,)
        if not indices:
            return a
        shapes = [np.shape(i) for i in indices if not isinstance(i, slice)]
        shape = broadcast_shapes(*shapes) if shapes else ()
        if not shape:
            return a.at[indices].set(self(a.at[indices].get(), *args))
        if args:
            rest = aval_of(args[0]).shape[len(shape):]
            args = (reshape(broadcast_to(args[0], shape + rest), (math.prod(shape),) + rest),)
        indices = [i if isinstance(i, slice) else reshape(broadcast_to(i, shape), (-1,))
                   for i in indices]

        def step(carry, _):
            i, x = carry
            index = tuple(ind if isinstance(ind, slice) else ind[i] for ind in indices)
            x = x.at[index].set(self(x.at[index].get(), *(arg[i] for arg in args)))
            return (i + 1, x), None

        (_, out), _ = lax.scan(step, (0, a), None, length=math.prod(shape))
        return out

    def outer(self, A, B, /):
        """The function at every pair of elements of `A` and `B`: shape `A.shape + B.shape`.

        >>> import jaxwg.numpy as jnp
        >>> jnp.frompyfunc(lambda x, y: x * y, 2, 1).outer(jnp.arange(1, 3), jnp.arange(3)).tolist()
        [[0, 1, 2], [0, 2, 4]]
        """
        self._binary_only("outer")
        check_arraylike(f"{self.__name__}.outer", A, B)
        a, b = to_array(A), to_array(B)
        result = vmap(vmap(self, (None, 0)), (0, None))(reshape(a, (-1,)), reshape(b, (-1,)))
        return reshape(result, aval_of(a).shape + aval_of(b).shape)


def frompyfunc(func, /, nin, nout, *, identity=None):
    """A `ufunc` from the scalar function `func` of `nin` arguments and `nout` results.

    >>> import jaxwg.numpy as jnp
    >>> jnp.frompyfunc(lambda x: x * 2, nin=1, nout=1)(jnp.arange(3)).tolist()
    [0, 2, 4]
    """
    return ufunc(func, nin, nout, identity=identity)
