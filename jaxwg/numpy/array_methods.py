"""The operators, methods and properties of arrays, attached by `jaxwg.numpy` at import.

`jaxwg.core` defines `Array` and `Tracer` bare: core sits below `jaxwg.numpy` and must
not import it. `attach(cls)` gives a class everything here, each calling the
`jaxwg.numpy` function of the same meaning, so `x + 1`, `x.sum()` and `x[1:]` behave
the same eagerly and under any transformation; `jaxwg.numpy` attaches them to `Array`
and to `Tracer` (every tracer type). Reflected operators swap the operands.

Methods of `jax.Array` that `jaxwg.numpy` cannot back yet (`view`,
`byteswap`, ...) are absent, so that calling them raises an honest AttributeError;
`tests/numpy/test_array_methods.py` lists them.

>>> import jaxwg.numpy as jnp
>>> x = jnp.arange(6).reshape(2, 3)
>>> (1 - x).T.shape, x.mT.shape, len(x), x.sum(axis=0).tolist()
((3, 2), (3, 2), 2, [3, 5, 7])
"""

from __future__ import annotations

from ..frontend.basearray import Array
from . import (array_api, indexing, manipulation, more_math, products, reductions, selection,
               sorting, statistics, ufuncs, updates)


def _compress(self, condition, *args, **kwargs):
    return selection.compress(condition, self, *args, **kwargs)  # the array comes second


# Binary operators: `__op__(self, other)` is fn(self, other) and `__rop__` is fn(other, self).
_BINARY = {
    "add": ufuncs.add, "sub": ufuncs.subtract, "mul": ufuncs.multiply,
    "truediv": ufuncs.true_divide, "floordiv": ufuncs.floor_divide, "mod": ufuncs.remainder,
    "divmod": ufuncs.divmod, "pow": ufuncs.power, "matmul": products.matmul,
    "and": ufuncs.bitwise_and, "or": ufuncs.bitwise_or, "xor": ufuncs.bitwise_xor,
    "lshift": ufuncs.left_shift, "rshift": ufuncs.right_shift,
}
# Comparisons: Python reflects them itself (`1 < x` calls `x.__gt__(1)`).
_COMPARISONS = {
    "eq": ufuncs.equal, "ne": ufuncs.not_equal, "lt": ufuncs.less, "le": ufuncs.less_equal,
    "gt": ufuncs.greater, "ge": ufuncs.greater_equal,
}
_UNARY = {"neg": ufuncs.negative, "pos": ufuncs.positive, "abs": ufuncs.absolute,
          "invert": ufuncs.invert}
# Methods that are `fn(self, *args, **kwargs)`.
_FORWARDED = {
    "all": reductions.all, "any": reductions.any, "argmax": reductions.argmax,
    "argmin": reductions.argmin, "astype": manipulation.astype, "clip": ufuncs.clip,
    "argpartition": sorting.argpartition, "argsort": sorting.argsort,
    "cumprod": reductions.cumprod, "cumsum": reductions.cumsum,
    "diagonal": products.diagonal, "dot": products.dot, "flatten": manipulation.ravel,
    "max": reductions.max, "mean": reductions.mean, "min": reductions.min,
    "prod": reductions.prod, "ptp": reductions.ptp, "ravel": manipulation.ravel,
    "repeat": manipulation.repeat, "round": ufuncs.round, "sort": sorting.sort,
    "squeeze": manipulation.squeeze,
    "std": reductions.std, "sum": reductions.sum, "swapaxes": manipulation.swapaxes,
    "trace": products.trace, "var": reductions.var, "take": selection.take,
    "nonzero": selection.nonzero, "compress": _compress, "choose": selection.choose,
    "searchsorted": statistics.searchsorted, "conj": more_math.conj,
    "conjugate": more_math.conjugate,
}


def _binary(fn, reflected: bool):
    if reflected:
        return lambda self, other: fn(other, self)
    return lambda self, other: fn(self, other)


def _unary(fn):
    return lambda self: fn(self)


def _forward(fn):
    def method(self, *args, **kwargs):
        return fn(self, *args, **kwargs)

    method.__doc__ = f"Same as `jaxwg.numpy.{fn.__name__}(self, ...)`."
    return method


def _shape_args(args) -> tuple:
    """`x.reshape(2, 3)` and `x.reshape((2, 3))` alike: the axes as one argument."""
    if len(args) == 1 and (args[0] is None or not isinstance(args[0], int)):
        return args[0]
    return args


def _reshape(self, *shape_, order="C"):
    """`jaxwg.numpy.reshape(self, shape)`; the shape as one tuple or as several ints."""
    return manipulation.reshape(self, _shape_args(shape_), order=order)


def _transpose(self, *axes):
    """`jaxwg.numpy.transpose(self, axes)`; no axes reverses them all."""
    return manipulation.transpose(self, _shape_args(axes) or None)


def _len(self) -> int:
    if not self.aval.shape:
        raise TypeError("len() of unsized object")
    return self.aval.shape[0]


def _iter(self):
    if not self.aval.shape:
        raise TypeError("iteration over a 0-d array")
    return (self[i] for i in range(self.aval.shape[0]))


def _setitem(self, index, value):
    raise TypeError("JAX arrays are immutable and do not support in-place item assignment. "
                    "Instead of x[idx] = y, use x = x.at[idx].set(y) or another .at[] method.")


def _contains(self, value):
    """`value in x`, for a 1-d `x` and a scalar `value` (JAX's restriction: NumPy's rule
    for other shapes surprises more than it helps)."""
    if self.ndim != 1:
        raise ValueError("Array.__contains__: search array must be one-dimensional, "
                         f"got shape {self.shape}")
    if manipulation.ndim(value) != 0:
        raise ValueError("Array.__contains__: query value must be a scalar, got shape "
                         f"{manipulation.shape(value)}")
    return reductions.any(ufuncs.equal(self, value))


def _round(self, ndigits=None):
    """`round(x)` rounds to integers of the default int dtype, as `round` of a Python
    float gives an int; `round(x, n)` keeps the dtype."""
    out = ufuncs.round(self, ndigits or 0)
    return manipulation.astype(out, int) if ndigits is None else out


# Properties: name -> (getter, docstring).
_PROPERTIES = {
    "ndim": (lambda self: self.aval.ndim, "The number of axes."),
    "size": (lambda self: self.aval.size, "The number of elements."),
    "itemsize": (lambda self: self.aval.dtype.np.itemsize, "Bytes per element of the dtype."),
    "nbytes": (lambda self: self.aval.size * self.aval.dtype.np.itemsize,
               "Bytes of all elements (`size * itemsize`)."),
    "T": (lambda self: manipulation.transpose(self), "The axes reversed (`transpose()`)."),
    "mT": (lambda self: manipulation.matrix_transpose(self),
           "The last two axes swapped (`jnp.matrix_transpose`)."),
    "at": (lambda self: updates.IndexUpdateHelper(self),
           "Functional updates: `x.at[idx].set(v)`, `.add`, `.multiply`, `.min`, `.max`, `.get`, "
           "..., each returning a new array (see `jaxwg.numpy.updates`)."),
    "real": (lambda self: more_math.real(self), "The real part (the array itself: no complex "
             "dtypes yet)."),
    "imag": (lambda self: more_math.imag(self), "The imaginary part (zeros)."),
}


def _name_as_array_member(fn, name: str):
    """`fn`, named as the member `name` of `jaxwg.Array`, where it is documented."""
    fn.__name__, fn.__qualname__, fn.__module__ = name, f"Array.{name}", Array.__module__
    return fn


def _table() -> dict:
    """Every attribute `attach` sets, by name."""
    table = {}
    for name, fn in _BINARY.items():
        table[f"__{name}__"] = _binary(fn, False)
        table[f"__r{name}__"] = _binary(fn, True)
    for name, fn in _COMPARISONS.items():
        table[f"__{name}__"] = _binary(fn, False)
    for name, fn in _UNARY.items():
        table[f"__{name}__"] = _unary(fn)
    for name, fn in _FORWARDED.items():
        table[name] = _forward(fn)
    table.update(reshape=_reshape, transpose=_transpose, __len__=_len, __iter__=_iter,
                 __getitem__=_binary(indexing.getitem, False), __setitem__=_setitem,
                 __contains__=_contains, __round__=_round,
                 __array_namespace__=array_api.array_namespace, to_device=array_api.to_device,
                 __dlpack__=array_api.dlpack, __dlpack_device__=array_api.dlpack_device)
    # For tracebacks, help() and the API reference: `Array.sum`, not `method`.
    for name, fn in table.items():
        _name_as_array_member(fn, name)
    for name, (getter, doc) in _PROPERTIES.items():
        table[name] = property(_name_as_array_member(getter, name), doc=doc)
    # Defining __eq__ makes a value unhashable in Python's model (and in NumPy's and JAX's);
    # a class given __eq__ after its creation keeps its hash unless it is removed here.
    table["__hash__"] = None
    return table


METHODS = _table()


def attach(cls) -> None:
    """Give `cls` (whose instances have an `aval`) the operators and methods of arrays.

    >>> import jaxwg, jaxwg.numpy as jnp
    >>> jaxwg.Array.sum is METHODS["sum"], jnp.arange(4).sum().item()
    (True, 6)
    """
    for name, value in METHODS.items():
        setattr(cls, name, value)
