"""`jaxwg.debug`: print values, or call a Python function with them, from inside `jit`,
`vmap` and `grad`, as `jax.debug`.

Both bind one primitive, `debug_callback`, whose operands are the array arguments; the
other arguments (strings, None, ...) are held by the callback. It runs when the
computation runs, with the values: eagerly at once; in a jitted function each time the
program runs (such a program runs its jaxpr step by step, so callbacks come in program
order: `ordered=True` holds for all); under `vmap` once per batch element, and under
`grad` once, with the primal values, as in JAX.

>>> import jaxwg, jaxwg.numpy as jnp
>>> @jaxwg.jit
... def f(x):
...     jaxwg.debug.print("x = {x}, sum = {}", x.sum(), x=x)
...     return x * 2
>>> _ = f(jnp.arange(3.0))
x = [0. 1. 2.], sum = 3.0
"""

from __future__ import annotations

import string
import sys

import numpy as np

from .frontend import primitives as P
from .frontend import pytree
from .frontend.array import aval_of


def _is_array(leaf) -> bool:
    """Whether an argument travels as an operand (arrays, scalars), not held as it is."""
    try:
        aval_of(leaf)
    except TypeError:
        return False
    return True


def _bind(fn, args, kwargs) -> None:
    """Bind `debug_callback` with the array leaves of (args, kwargs) as operands; `fn` is
    called with the arguments rebuilt, the operands as arrays."""
    leaves, tree = pytree.tree_flatten((args, kwargs))
    dynamic = [_is_array(x) for x in leaves]

    def flat_callback(*operands):
        it = iter(operands)
        full = [next(it) if d else x for x, d in zip(leaves, dynamic)]
        c_args, c_kwargs = pytree.tree_unflatten(tree, full)
        fn(*c_args, **c_kwargs)

    P.debug_callback_p.bind(*[x for x, d in zip(leaves, dynamic) if d], callback=flat_callback)


def callback(callback=None, *args, ordered: bool = False, partitioned: bool = False, **kwargs):
    """Call `callback(*args, **kwargs)` where the computation runs, with the values of the
    array arguments (as concrete arrays); returns None. Without `callback`, the function
    that takes it and the arguments (JAX's two-call form, `callback(ordered=True)(f, x)`).

    >>> import jaxwg, jaxwg.numpy as jnp
    >>> seen = []
    >>> _ = jaxwg.vmap(lambda x: jaxwg.debug.callback(seen.append, x))(jnp.arange(2))
    >>> [v.item() for v in seen]  # once per element
    [0, 1]
    """
    def call(fn, *c_args, **c_kwargs):
        if not callable(fn):
            raise TypeError("first argument to jax.debug.callback must be callable, but got "
                            f"an object of type {type(fn)}")
        _bind(fn, c_args, c_kwargs)

    return _called_or_curried(call, callback, args, kwargs, "debug_callback")


class _FormatChecker(string.Formatter):
    """JAX's check of a format string against its arguments, formatting nothing."""

    def format_field(self, value, format_spec):
        return ""

    def check_unused_args(self, used_args, args, kwargs):
        unused_args = [arg for i, arg in enumerate(args) if i not in used_args]
        unused_kwargs = [k for k in kwargs if k not in used_args]
        if unused_args:
            raise ValueError(f"Unused positional arguments to `jax.debug.print`: {unused_args}")
        if unused_kwargs:
            raise ValueError(
                f"Unused keyword arguments to `jax.debug.print`: {unused_kwargs}. You may be "
                "passing an f-string (i.e, `f\"{x}\"`) into `jax.debug.print` and instead "
                "should pass in a regular string.")


def _has_placeholders(fmt: str) -> bool:
    return bool(fmt) and next(iter(string.Formatter().parse(fmt)))[1] is not None


def print(fmt: str | None = None, *args, ordered: bool = False, partitioned: bool = False,
          skip_format_check: bool = False, **kwargs):
    """Print `fmt.format(*args, **kwargs)` to stdout where the computation runs, with the
    arguments' values (NumPy's print options as they are at the call); a format without
    placeholders is followed by the arguments. Without `fmt`, the function that takes it
    and the arguments (JAX's two-call form). ValueError for unused arguments.

    >>> import jaxwg, jaxwg.numpy as jnp
    >>> jaxwg.grad(lambda x: jaxwg.debug.print("x is {}", x) or x * x)(3.0)
    x is 3.0
    Array(6., dtype=float32, weak_type=True)
    """
    def call(c_fmt: str, *c_args, **c_kwargs):
        if not skip_format_check:
            _FormatChecker().format(c_fmt, *c_args, **c_kwargs)
        placeholders = _has_placeholders(c_fmt)
        options = np.get_printoptions()

        def write(*values, **named):
            with np.printoptions(**options):
                text = (c_fmt.format(*values, **named) if placeholders
                        else " ".join((c_fmt, *map(str, values))))
            sys.stdout.write(text + "\n")

        _bind(write, c_args, c_kwargs)

    return _called_or_curried(call, fmt, args, kwargs, "debug_print")


def _called_or_curried(call, first, args, kwargs, name: str):
    """`call(first, *args, **kwargs)`; without `first`, `call` itself, for JAX's two-call
    form (`jax.debug.print(**opts)(fmt, *args)`), which takes no other arguments."""
    if first is not None:
        return call(first, *args, **kwargs)
    if args or kwargs:
        raise TypeError(f"{name} received unexpected arguments in the two-call form: "
                        f"args={args!r} kwargs={kwargs!r}")
    return call
