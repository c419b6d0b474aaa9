"""`jaxwg.example_libraries`: the small optimizer and neural-network libraries of
`jax.example_libraries`, on jaxwg.

`optimizers` gives `(init_fun, update_fun, get_params)` triples over pytrees of
parameters (plus `adamw`, which JAX's library lacks); `stax` gives layers as
`(init_fun, apply_fun)` pairs. Both follow JAX's interfaces, so code written against
`jax.example_libraries` runs with its import changed.

>>> from jaxwg.example_libraries import optimizers, stax
>>> init_fun, apply_fun = stax.serial(stax.Dense(3), stax.Relu)
>>> opt_init, opt_update, get_params = optimizers.sgd(0.1)
"""

from . import optimizers, stax

__all__ = ["optimizers", "stax"]
