"""NumPy's `out=` argument: every `jaxwg.numpy` function that accepts it raises JAX's
NotImplementedError when it is given (arrays are immutable; ignoring it silently would
leave the caller's `out` array unchanged), and works as usual with `out=None`."""

import inspect

import numpy as np
import pytest

import jaxwg.numpy as jnp

from .helpers import jax_numpy


def _takes_out(name: str) -> bool:
    fn = getattr(jnp, name)
    if not callable(fn) or isinstance(fn, type):
        return False
    try:
        return "out" in inspect.signature(fn).parameters
    except (TypeError, ValueError):  # builtins without a signature
        return False


WITH_OUT = sorted(n for n in dir(jnp) if not n.startswith("_") and _takes_out(n))

# Arguments before `out` where one array `x` is not what the function takes.
ARGS = {
    "choose": lambda m, x: (m.asarray([0, 1, 0]), [x[0], x[1]]),
    "compress": lambda m, x: (m.asarray([True, False]), x),
    "einsum": lambda m, x: ("ij->j", x),
    "nanpercentile": lambda m, x: (x, 50.0),
    "nanquantile": lambda m, x: (x, 0.5),
    "outer": lambda m, x: (x, x),
    "percentile": lambda m, x: (x, 50.0),
    "quantile": lambda m, x: (x, 0.5),
    "stack": lambda m, x: ([x, x],),
    "take": lambda m, x: (x, m.asarray([4, 0])),
}
# Functions whose JAX name in the message is another one's (aliases).
# The name JAX's message gives (isneginf and isposinf share one, without "jnp.")
JAX_NAME = {"amax": "jnp.max", "amin": "jnp.min", "around": "jnp.round",
            "isneginf": "isneginf/isposinf", "isposinf": "isneginf/isposinf"}


def _args(m, name):
    x = m.asarray(np.arange(1.0, 7.0, dtype=np.float32).reshape(2, 3))
    return ARGS.get(name, lambda m, x: (x,))(m, x)


def test_the_walk_finds_the_functions():
    assert {"sum", "mean", "argmax", "round", "einsum", "stack", "trace"} <= set(WITH_OUT)


# JAX's quantiles raise ValueError for out= (and overwrite_input=True).
VALUE_ERROR = {"median", "percentile", "quantile", "nanmedian", "nanpercentile", "nanquantile"}


@pytest.mark.parametrize("name", sorted(VALUE_ERROR))
def test_quantiles_reject_out_with_jaxs_value_error(name):
    for m in (jnp, jax_numpy):
        with pytest.raises(ValueError, match="does not support overwrite_input=True or out"):
            getattr(m, name)(*_args(m, name), out=m.zeros(3))


@pytest.mark.parametrize("name", sorted(set(WITH_OUT) - VALUE_ERROR))
def test_out_raises_as_in_jax(name):
    jax_name = JAX_NAME.get(name, f"jnp.{name}")
    with pytest.raises(NotImplementedError, match=f"'out' argument to {jax_name} is not"):
        getattr(jnp, name)(*_args(jnp, name), out=jnp.zeros(3))
    with pytest.raises(NotImplementedError):
        getattr(jax_numpy, name)(*_args(jax_numpy, name), out=jax_numpy.zeros(3))


@pytest.mark.parametrize("name", WITH_OUT)
def test_out_none_is_the_default(name):
    got = getattr(jnp, name)(*_args(jnp, name), out=None)
    want = getattr(jnp, name)(*_args(jnp, name))
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
