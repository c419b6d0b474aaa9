"""`jaxwg.numpy.fft`: the functions of JAX's `jnp.fft` that need no complex numbers.

Sample frequencies (`fftfreq`, `rfftfreq`) and the shifts that put the zero frequency
in the middle (`fftshift`, `ifftshift`), computed as JAX computes them. The transforms
themselves (`fft`, `rfft`, ...) return complex arrays, which jaxwg does not have: they
raise `NotImplementedInJaxwg`.

>>> import jaxwg.numpy as jnp
>>> jnp.fft.fftshift(jnp.fft.fftfreq(5)).tolist()
[-0.4000000059604645, -0.20000000298023224, 0.0, 0.20000000298023224, 0.4000000059604645]
"""

from __future__ import annotations

from .. import errors as _errors
from ..frontend.array import aval_of
from . import creation, structure
from ._util import to_array

__all__ = ["fftfreq", "fftshift", "ifftshift", "rfftfreq"]


def _check_scalars(name: str, n, d) -> None:
    if isinstance(n, (list, tuple)):
        raise ValueError(f"The n argument of jax.numpy.fft.{name} only takes an int. Got n = {list(n)}.")
    if isinstance(d, (list, tuple)):
        raise ValueError(f"The d argument of jax.numpy.fft.{name} only takes a single value. "
                         f"Got d = {list(d)}.")


def fftfreq(n: int, d=1.0, *, dtype=None, device=None):
    """The frequencies of an `n`-point transform with sample spacing `d`: 0, 1, ...,
    then the negative ones, over `d * n`.

    >>> import jaxwg.numpy as jnp
    >>> jnp.fft.fftfreq(4, d=0.5).tolist()
    [0.0, 0.5, -1.0, -0.5]
    """
    _check_scalars("fftfreq", n, d)
    dtype = dtype or float
    i = creation.arange(n, dtype=dtype, device=device)
    k = (i + n // 2) % n - n // 2
    return k / creation.array(d * n, dtype=dtype, device=device)


def rfftfreq(n: int, d=1.0, *, dtype=None, device=None):
    """The non-negative frequencies of an `n`-point real transform: 0 .. n // 2, over
    `d * n`.

    >>> import jaxwg.numpy as jnp
    >>> jnp.fft.rfftfreq(5).tolist()
    [0.0, 0.20000000298023224, 0.4000000059604645]
    """
    _check_scalars("rfftfreq", n, d)
    dtype = dtype or float
    k = creation.arange(0, n // 2 + 1, dtype=dtype, device=device)
    return k / creation.array(d * n, dtype=dtype, device=device)


def _shifted(x, axes, sign: int):
    x = to_array(x)
    shape = aval_of(x).shape
    if axes is None:
        axes = tuple(range(len(shape)))
    shifts = (sign * (shape[axes] // 2) if isinstance(axes, int)
              else [sign * (shape[a] // 2) for a in axes])
    return structure.roll(x, shifts, axes)


def fftshift(x, axes=None):
    """`x` rolled by half of each of `axes` (all by default): the zero frequency moves to
    the middle.

    >>> import jaxwg.numpy as jnp
    >>> jnp.fft.fftshift(jnp.arange(5)).tolist()
    [3, 4, 0, 1, 2]
    """
    return _shifted(x, axes, 1)


def ifftshift(x, axes=None):
    """The inverse of `fftshift`.

    >>> import jaxwg.numpy as jnp
    >>> jnp.fft.ifftshift(jnp.array([3, 4, 0, 1, 2])).tolist()
    [0, 1, 2, 3, 4]
    """
    return _shifted(x, axes, -1)


# A name JAX has and jaxwg lacks says it is not implemented yet (jaxwg.errors).
__getattr__ = _errors.module_getattr(__name__)
