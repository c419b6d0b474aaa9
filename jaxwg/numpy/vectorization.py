"""Functions over axes: `vectorize`, `apply_along_axis`, `apply_over_axes`.

`vectorize` and `apply_along_axis` map a function with `jaxwg.vmap`, one `vmap` per
mapped axis, as JAX builds them: the function is traced once on whole batches, not
called per element. `vectorize` follows NumPy's generalized-ufunc signatures
("(m,n),(n)->(m)"): the named core axes go to the function, the leading axes of all
arguments broadcast against each other and are mapped.

>>> import jaxwg.numpy as jnp
>>> row_norm = jnp.vectorize(lambda v: jnp.sqrt(jnp.sum(v * v)), signature="(n)->()")
>>> row_norm(jnp.array([[3.0, 4.0], [6.0, 8.0]])).tolist()
[5.0, 10.0]
"""

from __future__ import annotations

import functools
import re

from ..transforms.batching import vmap
from ._util import aval_of, broadcast_shapes, canonicalize_axis, check_arraylike, to_array
from .manipulation import expand_dims, squeeze

__all__ = ["apply_along_axis", "apply_over_axes", "vectorize"]

_DIMENSION = r"\w+"
_ARGUMENT = rf"\((?:{_DIMENSION}(?:,{_DIMENSION})*)?\)"
_SIGNATURE = re.compile(rf"^{_ARGUMENT}(?:,{_ARGUMENT})*->{_ARGUMENT}(?:,{_ARGUMENT})*$")


def _parse_signature(signature: str):
    """The core dimension names of each input and each output of a gufunc signature."""
    if not _SIGNATURE.match(signature.replace(" ", "")):
        raise ValueError(f"not a valid gufunc signature: {signature}")
    inputs, outputs = signature.replace(" ", "").split("->")
    return ([tuple(re.findall(_DIMENSION, arg)) for arg in re.findall(_ARGUMENT, side)]
            for side in (inputs, outputs))


def _check_core_shape(sizes: dict, shape, core_dims, context: str, *, is_input: bool):
    """Record the sizes of `core_dims` (the trailing axes of `shape`) in `sizes`, raising
    NumPy's ValueError where an argument or result disagrees."""
    if is_input and len(shape) < len(core_dims):
        raise ValueError(f"input with shape {shape!r} does not have enough dimensions for all "
                         f"core dimensions {core_dims!r} {context}")
    if not is_input and len(shape) != len(core_dims):
        raise ValueError(f"output shape {shape!r} does not match core dimensions "
                         f"{core_dims!r} {context}")
    for name, size in zip(core_dims, shape[len(shape) - len(core_dims):]):
        if sizes.setdefault(name, size) != size:
            raise ValueError(f"inconsistent size for core dimension {name!r}: {size!r} vs "
                             f"{sizes[name]!r} {context}")


def _with_static_arguments(func, excluded, args, kwargs):
    """`func` with the excluded positional and keyword arguments bound, and the arguments
    left to vectorize. Keywords are passed through, never mapped, so an array keyword
    not in `excluded` is an error rather than a silent outer product (NumPy maps it; JAX
    drops it)."""
    for name, value in kwargs.items():
        if name not in excluded and aval_of(value).ndim:
            raise TypeError(f"vectorize maps positional arguments only: pass the array "
                            f"keyword argument {name!r} positionally, or name it in excluded")
    positions = sorted(e for e in excluded if isinstance(e, int) and e < len(args))
    static = [(i, args[i]) for i in positions]
    mapped = [a for i, a in enumerate(args) if i not in positions]

    def bound(*mapped_args):
        full = list(mapped_args)
        for i, value in static:
            full.insert(i, value)
        return func(*full, **kwargs)

    return bound, mapped


def _checking_outputs(func, sizes: dict, output_core_dims, context: str):
    def checked(*args):
        out = func(*args)
        if len(output_core_dims) > 1 and not isinstance(out, tuple):
            raise TypeError(f"output must be a tuple when multiple outputs are expected, got: "
                            f"{out!r}\n{context}")
        outs = out if isinstance(out, tuple) else (out,)
        if len(outs) != len(output_core_dims):
            raise TypeError(f"wrong number of output arguments: expected "
                            f"{len(output_core_dims)}, got {len(outs)} {context}")
        known = dict(sizes)
        for o, core_dims in zip(outs, output_core_dims):
            _check_core_shape(known, to_array(o).shape, core_dims, context, is_input=False)
        return out

    return checked


def vectorize(pyfunc, *, excluded=frozenset(), signature=None):
    """`pyfunc` applied across the broadcast leading axes of its arguments (scalars by
    default, the core axes of `signature` otherwise), through `vmap`. Arguments in
    `excluded` (positions or keyword names) are passed as they are.

    >>> import jaxwg.numpy as jnp
    >>> add = jnp.vectorize(lambda a, b: a + b)
    >>> add(jnp.arange(3), jnp.array([[10], [20]])).tolist()
    [[10, 11, 12], [20, 21, 22]]
    """
    if any(not isinstance(e, (str, int)) for e in excluded):
        raise TypeError("jax.numpy.vectorize can only exclude integer or string arguments, "
                        f"but excluded={excluded!r}")
    if any(isinstance(e, int) and e < 0 for e in excluded):
        raise ValueError(f"excluded={excluded!r} contains negative numbers")

    @functools.wraps(pyfunc)
    def wrapped(*args, **kwargs):
        context = f"on vectorized function with excluded={excluded!r} and signature={signature!r}"
        func, args = _with_static_arguments(pyfunc, excluded, args, kwargs)
        # None is passed as it is, as JAX and NumPy do (where the signature has no core axes).
        nones = {i for i, a in enumerate(args) if a is None}
        func, args = _with_static_arguments(func, nones, args, {})
        if signature is None:
            input_core_dims, output_core_dims = [()] * len(args), None
        else:
            input_core_dims, output_core_dims = _parse_signature(signature)
            if any(input_core_dims[i] for i in nones if i < len(input_core_dims)):
                raise ValueError(f"Cannot pass None at locations {nones} with {signature=}")
            input_core_dims = [d for i, d in enumerate(input_core_dims) if i not in nones]
        if len(args) != len(input_core_dims):
            raise TypeError(f"wrong number of positional arguments: expected "
                            f"{len(input_core_dims)}, got {len(args)} {context}")
        args = [to_array(a) for a in args]
        sizes: dict = {}
        loop_shapes = []
        for a, core_dims in zip(args, input_core_dims):
            _check_core_shape(sizes, a.shape, core_dims, context, is_input=True)
            loop_shapes.append(a.shape[:a.ndim - len(core_dims)])
        loop_shape = broadcast_shapes(*loop_shapes)
        if output_core_dims is not None:
            func = _checking_outputs(func, sizes, output_core_dims, context)
        return _map_loop_axes(func, args, loop_shapes, loop_shape)

    return wrapped


def _map_loop_axes(func, args, loop_shapes, loop_shape):
    """`func` mapped over the broadcast `loop_shape`: one `vmap` per loop axis over the
    arguments that have it with size > 1; axes no argument has are added at the end."""
    ndim = len(loop_shape)
    padded = [(1,) * (ndim - len(s)) + tuple(s) for s in loop_shapes]
    # Size-1 loop axes broadcast: they are dropped and the argument is not mapped there.
    args = [squeeze(a, tuple(i for i, n in enumerate(s) if n == 1)) for a, s in zip(args, loop_shapes)]
    unmapped_axes = []
    for axis in reversed(range(ndim)):  # innermost first: the outermost vmap is applied last
        in_axes = tuple(None if s[axis] == 1 else 0 for s in padded)
        if all(a is None for a in in_axes):
            unmapped_axes.append(axis)
        else:
            func = vmap(func, in_axes)
    out = func(*args)
    if not unmapped_axes:
        return out
    if isinstance(out, tuple):
        return tuple(expand_dims(o, tuple(unmapped_axes)) for o in out)
    return expand_dims(out, tuple(unmapped_axes))


def apply_along_axis(func1d, axis: int, arr, *args, **kwargs):
    """`func1d` applied to every 1-d slice of `arr` along `axis` (through `vmap`); its
    result's axes replace `axis`.

    >>> import jaxwg.numpy as jnp
    >>> jnp.apply_along_axis(jnp.sum, 1, jnp.arange(6).reshape(2, 3)).tolist()
    [3, 12]
    """
    check_arraylike("apply_along_axis", arr)
    x = to_array(arr)
    axis = canonicalize_axis(axis, x.ndim)

    def func(slice_):
        return func1d(slice_, *args, **kwargs)

    # Axes after `axis` are mapped first, their results put last in turn; those before it
    # lead, so the result's own axes sit where `axis` was.
    for i in range(1, x.ndim - axis):
        func = vmap(func, in_axes=i, out_axes=-1)
    for _ in range(axis):
        func = vmap(func, in_axes=0, out_axes=0)
    return func(x)


def apply_over_axes(func, a, axes):
    """`func(a, axis)` applied for each axis in turn, each result keeping `a`'s rank
    (a reduced axis is put back with size 1).

    >>> import jaxwg.numpy as jnp
    >>> jnp.apply_over_axes(jnp.sum, jnp.ones((2, 3, 4)), (0, 2)).shape
    (1, 3, 1)
    """
    check_arraylike("apply_over_axes", a)
    out = to_array(a)
    for axis in axes:
        result = to_array(func(out, axis))
        if result.ndim == out.ndim - 1:
            result = expand_dims(result, axis)
        elif result.ndim != out.ndim:
            raise ValueError("function is not returning an array of the correct shape")
        out = result
    return out
