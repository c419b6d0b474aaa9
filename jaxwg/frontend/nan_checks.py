"""`jax_debug_nans` and `jax_debug_infs`: a FloatingPointError where a value turns NaN or
infinite, naming the primitive that made it, as JAX raises it.

While either option is on, every eager primitive computes its float outputs at once and
reads them back to check them (so eager code runs op by op, unfused). A jitted function
checks its outputs; where one is bad, it prints JAX's notice and runs the function again
op by op (`jax_disable_jit`), so that the eager check names the primitive; if that run
is clean (fusion changed the arithmetic, or a NaN constant is returned), the error says
so, in JAX's words.

>>> import jaxwg, jaxwg.numpy as jnp
>>> jaxwg.config.update("jax_debug_nans", True)
>>> try:
...     jnp.log(-1.0)
... except FloatingPointError as e:
...     print(e)
invalid value (nan) encountered in log
>>> jaxwg.config.update("jax_debug_nans", False)
"""

from __future__ import annotations

import numpy as np

from ..config import config


def enabled() -> bool:
    """Whether outputs are checked (either option is on)."""
    return config.jax_debug_nans or config.jax_debug_infs


def special_kind(arrays) -> str | None:
    """"nan" or "inf" for the first checked kind of invalid value among the float arrays
    `arrays` (NaNs first, as JAX checks them), None when all are valid.

    >>> import jaxwg, jaxwg.numpy as jnp
    >>> with jaxwg.config.override("jax_debug_infs", True):
    ...     special_kind([jnp.ones(2), jnp.array([1.0, jnp.inf])])
    'inf'
    """
    values = [np.asarray(a) for a in arrays if a.aval.dtype.is_float]
    if config.jax_debug_nans and any(np.isnan(v).any() for v in values):
        return "nan"
    if config.jax_debug_infs and any(np.isinf(v).any() for v in values):
        return "inf"
    return None


def check(name: str, arrays) -> None:
    """Raise JAX's FloatingPointError if the outputs `arrays` of `name` hold an invalid value.

    >>> import jaxwg.numpy as jnp
    >>> check("add", [jnp.ones(2)])  # both options are off: nothing is read
    """
    if not enabled():
        return
    kind = special_kind(arrays)
    if kind is not None:
        raise FloatingPointError(f"invalid value ({kind}) encountered in {name}")


def check_jitted(name: str, outputs, run_op_by_op) -> None:
    """A jitted function's check: where `outputs` hold an invalid value, `run_op_by_op()`
    (the function run again without jit) raises the eager error naming the primitive; if
    it does not, JAX's error for a de-optimized run that stays clean.

    >>> import jaxwg.numpy as jnp
    >>> check_jitted("f", [jnp.ones(2)], None)  # the options are off
    """
    if not enabled():
        return
    kind = special_kind(outputs)
    if kind is None:
        return
    print("Invalid nan value encountered in the output of a jax.jit function. Calling the "
          "de-optimized version.")  # JAX prints this notice (to stdout) before the run
    with config.override("jax_disable_jit", True):
        run_op_by_op()
    raise FloatingPointError(
        f"invalid value ({kind}) encountered in jit({name}). Because config.jax_debug_nans "
        "and/or config.jax_debug_infs is set, the de-optimized function (i.e., the function "
        "as if the `jit` decorator were removed) was called in an attempt to get a more "
        "precise error message. However, the de-optimized function did not produce invalid "
        "values during its execution. This behavior can result from `jit` optimizations "
        "causing the invalid value to be produced. It may also arise from having nan/inf "
        "literals as inputs or outputs, like `jax.jit(lambda ...: jax.numpy.nan)(...)`.")
