"""`jaxwg.custom_derivatives`: functions with derivative rules of their own, as
`jax.custom_derivatives` (`SymbolicZero` marks the tangents of arguments that are not
differentiated, for rules defined with `symbolic_zeros=True`).

>>> import jaxwg
>>> from jaxwg.custom_derivatives import SymbolicZero, custom_jvp
>>> f = custom_jvp(lambda x, y: x * y)
>>> _ = f.defjvp(lambda p, t: (f(*p), sum(0.0 if isinstance(d, SymbolicZero) else d * 10.0
...                                         for d in t)), symbolic_zeros=True)
>>> jaxwg.grad(f)(2.0, 3.0).item()
10.0
"""

from .transforms.custom import SymbolicZero, closure_convert, custom_jvp, custom_vjp
from .transforms.derivatives import custom_gradient

__all__ = ["SymbolicZero", "closure_convert", "custom_gradient", "custom_jvp", "custom_vjp"]
