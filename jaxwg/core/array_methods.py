"""The operators and methods of arrays, shared by `Array` and every tracer.

Each one calls the `jaxwg.numpy` function of the same meaning, so `x + 1`, `x.sum()`
and `x[1:]` behave the same eagerly and under any transformation. Reflected operators
swap the operands; Python scalars take part as weakly typed values.

>>> import jaxwg.numpy as jnp
>>> x = jnp.arange(6).reshape(2, 3)
>>> (1 - x).T.shape, x.mT.shape, len(x)
((3, 2), (3, 2), 2)
"""

from __future__ import annotations


def _jnp():
    from .. import numpy as jnp

    return jnp


def _binary(name: str, reflected: bool = False):
    def method(self, other):
        fn = getattr(_jnp(), name)
        return fn(other, self) if reflected else fn(self, other)

    method.__name__ = name
    return method


def _unary(name: str):
    def method(self):
        return getattr(_jnp(), name)(self)

    method.__name__ = name
    return method


def _forward(name: str):
    def method(self, *args, **kwargs):
        return getattr(_jnp(), name)(self, *args, **kwargs)

    method.__name__ = name
    method.__doc__ = f"Same as `jaxwg.numpy.{name}(self, ...)`."
    return method


class ArrayMethods:
    """Operators and methods for anything with an `aval` (see the module docstring)."""

    __slots__ = ()
    __hash__ = None  # arrays are mutable-looking values in NumPy's model: unhashable

    @property
    def ndim(self) -> int:
        return len(self.aval.shape)

    @property
    def size(self) -> int:
        return self.aval.size

    @property
    def T(self):
        return _jnp().transpose(self)

    @property
    def mT(self):
        return _jnp().matrix_transpose(self)

    def __len__(self) -> int:
        if not self.aval.shape:
            raise TypeError("len() of unsized object")
        return self.aval.shape[0]

    def __iter__(self):
        if not self.aval.shape:
            raise TypeError("iteration over a 0-d array")
        return (self[i] for i in range(self.aval.shape[0]))

    def __getitem__(self, index):
        return _jnp().getitem(self, index)

    def __setitem__(self, index, value):
        raise TypeError("jaxwg arrays are immutable; use functional updates instead of "
                        f"item assignment (x[{index!r}] = ...)")

    __add__ = _binary("add")
    __radd__ = _binary("add", True)
    __sub__ = _binary("subtract")
    __rsub__ = _binary("subtract", True)
    __mul__ = _binary("multiply")
    __rmul__ = _binary("multiply", True)
    __truediv__ = _binary("true_divide")
    __rtruediv__ = _binary("true_divide", True)
    __floordiv__ = _binary("floor_divide")
    __rfloordiv__ = _binary("floor_divide", True)
    __mod__ = _binary("remainder")
    __rmod__ = _binary("remainder", True)
    __pow__ = _binary("power")
    __rpow__ = _binary("power", True)
    __matmul__ = _binary("matmul")
    __rmatmul__ = _binary("matmul", True)
    __and__ = _binary("bitwise_and")
    __rand__ = _binary("bitwise_and", True)
    __or__ = _binary("bitwise_or")
    __ror__ = _binary("bitwise_or", True)
    __xor__ = _binary("bitwise_xor")
    __rxor__ = _binary("bitwise_xor", True)
    __lshift__ = _binary("left_shift")
    __rlshift__ = _binary("left_shift", True)
    __rshift__ = _binary("right_shift")
    __rrshift__ = _binary("right_shift", True)
    __eq__ = _binary("equal")
    __ne__ = _binary("not_equal")
    __lt__ = _binary("less")
    __le__ = _binary("less_equal")
    __gt__ = _binary("greater")
    __ge__ = _binary("greater_equal")
    __neg__ = _unary("negative")
    __pos__ = _unary("positive")
    __abs__ = _unary("absolute")
    __invert__ = _unary("invert")

    def __divmod__(self, other):
        return _jnp().divmod(self, other)

    def __rdivmod__(self, other):
        return _jnp().divmod(other, self)

    def __round__(self, ndigits=None):
        return _jnp().round(self, ndigits or 0)

    all = _forward("all")
    any = _forward("any")
    argmax = _forward("argmax")
    argmin = _forward("argmin")
    astype = _forward("astype")
    clip = _forward("clip")
    cumsum = _forward("cumsum")
    dot = _forward("dot")
    flatten = _forward("ravel")
    max = _forward("max")
    mean = _forward("mean")
    min = _forward("min")
    prod = _forward("prod")
    ravel = _forward("ravel")
    repeat = _forward("repeat")
    round = _forward("round")
    squeeze = _forward("squeeze")
    std = _forward("std")
    sum = _forward("sum")
    swapaxes = _forward("swapaxes")
    var = _forward("var")

    def reshape(self, *shape, order="C"):
        if len(shape) == 1 and not isinstance(shape[0], int):
            shape = shape[0]
        return _jnp().reshape(self, shape, order=order)

    def transpose(self, *axes):
        if len(axes) == 1 and (axes[0] is None or not isinstance(axes[0], int)):
            axes = axes[0]
        return _jnp().transpose(self, axes or None)
