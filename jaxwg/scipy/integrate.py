"""`jaxwg.scipy.integrate`: integration of sampled functions (`trapezoid`), as
`jax.scipy.integrate`.

>>> import jaxwg.numpy as jnp
>>> from jaxwg.scipy import integrate
>>> integrate.trapezoid(jnp.array([1.0, 2.0, 3.0])).item()
4.0
"""

from __future__ import annotations

from ..numpy import signal as _numpy_signal

__all__ = ["trapezoid"]


def trapezoid(y, x=None, dx=1.0, axis=-1):
    """The integral of samples `y` along `axis` by the trapezoidal rule, at coordinates
    `x` or evenly spaced by `dx`: `jnp.trapezoid`.

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg.scipy import integrate
    >>> integrate.trapezoid(jnp.array([1, 2, 3, 2, 3, 2, 1]), jnp.array([0, 2, 5, 7, 10, 15, 20])).item()
    43.0
    """
    return _numpy_signal.trapezoid(y, x, dx, axis)
