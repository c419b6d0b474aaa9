"""Every method, property and operator of `jax.Array`, walked from JAX's class: each one
jaxwg's Array has gives JAX's result (dtype, weak type, values, or the exception type),
and each one it lacks is absent, so that calling it raises an honest AttributeError
rather than failing inside a forward to a function that does not exist. The methods
`jaxwg.numpy` attaches are also checked on tracers, against `jax.jit`."""

import copy

import numpy as np
import pytest

import jaxwg
import jaxwg.numpy as jnp
from jaxwg.frontend.trace import Tracer
from jaxwg.numpy.array_methods import METHODS

from .helpers import jax, jax_numpy

# Names of jax.Array that jaxwg does not have yet.
MISSING = {
    # bit views and byte order
    "view", "byteswap",
    # protocols and iterators
    "flat", "__numpy_dtype__",
    # sharding and transfers between devices
    "addressable_data", "addressable_shards", "committed", "copy_to_host_async",
    "global_shards", "is_fully_addressable", "is_fully_replicated", "sharding",
}
# Class plumbing and JAX internals (`_split`, `_multi_slice`), not array API.
_NOT_API = {"__module__", "__slots__", "__weakref__"}


def _jax_names() -> list[str]:
    names = set(dir(jax.Array)) - set(dir(object)) - _NOT_API
    return sorted(n for n in names if not n.startswith("_") or n.startswith("__"))


X = np.array([[-2.5, -1.0, 0.5], [1.5, 2.0, 3.0]], np.float32)
INTS = np.array([[-3, 0, 5], [7, 1, 2]], np.int32)
SHIFTS = np.array([[0, 1, 2], [3, 4, 5]], np.int32)


def _ints(m, x):
    return m.asarray(INTS)


def _shifts(m, x):
    return m.asarray(SHIFTS)


def _operator(name, other, operand=None):
    """`operand.<name>(other)`, the dunder called directly so that reflected ones run."""
    def call(m, x):
        a = x if operand is None else operand(m, x)
        b = other(m) if callable(other) else other
        return getattr(a, name)(b)
    return call


def _setitem(m, x):
    x[0, 0] = 1.0


# One call per name, made with jaxwg.numpy and with jax.numpy as `m` on `m.asarray(X)`.
CALLS = {
    "T": lambda m, x: x.T,
    "at": lambda m, x: x.at[1, ::2].add(3.0),
    "mT": lambda m, x: x[None].mT,
    "all": lambda m, x: x.all(axis=1),
    "any": lambda m, x: (x > 2).any(),
    "argmax": lambda m, x: x.argmax(axis=0),
    "argmin": lambda m, x: x.argmin(),
    "astype": lambda m, x: x.astype(m.int32),
    "clip": lambda m, x: x.clip(-1, 2),
    "argpartition": lambda m, x: x.argpartition(1) + x.argpartition(0, axis=0),
    "argsort": lambda m, x: x.argsort(axis=0),
    "copy": lambda m, x: x.copy(),
    "cumprod": lambda m, x: x.cumprod(axis=1),
    "cumsum": lambda m, x: x.cumsum(),
    "sort": lambda m, x: x.sort(axis=1),
    "device": lambda m, x: x.device is not None,
    "diagonal": lambda m, x: x.diagonal(1),
    "dot": lambda m, x: x.dot(x.T),
    "dtype": lambda m, x: x.dtype,
    "flatten": lambda m, x: x.flatten(),
    "item": lambda m, x: x[1, 2].item(),
    "itemsize": lambda m, x: (x.itemsize, (x > 0).itemsize),
    "max": lambda m, x: x.max(axis=1, keepdims=True),
    "mean": lambda m, x: x.mean(axis=0),
    "min": lambda m, x: x.min(),
    "nbytes": lambda m, x: (x.nbytes, (x > 0).nbytes),
    "ndim": lambda m, x: x.ndim,
    "prod": lambda m, x: x.prod(axis=1),
    "ptp": lambda m, x: x.ptp(axis=1),
    "ravel": lambda m, x: x.ravel(),
    "repeat": lambda m, x: x.repeat(2, axis=0),
    "reshape": lambda m, x: (x.reshape(3, 2), x.reshape((6,)), x.reshape(-1, 1)),
    "round": lambda m, x: x.round(),
    "shape": lambda m, x: x.shape,
    "size": lambda m, x: x.size,
    "squeeze": lambda m, x: x[None].squeeze(0),
    "std": lambda m, x: x.std(axis=1),
    "sum": lambda m, x: x.sum(axis=0),
    "swapaxes": lambda m, x: x.swapaxes(0, 1),
    "trace": lambda m, x: x.trace(),
    "take": lambda m, x: x.take(m.asarray([2, 0, 5, 7]), mode="clip"),
    "nonzero": lambda m, x: x.nonzero(size=4, fill_value=-1),
    "compress": lambda m, x: x.compress(m.asarray([True, False, True]), axis=1),
    "choose": lambda m, x: (x > 0).astype(m.int32).choose([x, -x], mode="clip"),
    "searchsorted": lambda m, x: x.ravel().sort().searchsorted(m.asarray([0.0, 2.0])),
    "conj": lambda m, x: x.conj(),
    "conjugate": lambda m, x: x.conjugate(),
    "real": lambda m, x: x.real,
    "imag": lambda m, x: x.imag,
    "__array_namespace__": lambda m, x: x.__array_namespace__().__name__.split(".")[-1],
    "to_device": lambda m, x: x.to_device(x.device).shape,
    "__dlpack__": lambda m, x: type(x.__dlpack__()).__name__,
    "__dlpack_device__": lambda m, x: x.__dlpack_device__()[0],
    "transpose": lambda m, x: (x.transpose(), x.transpose(1, 0), x.transpose((1, 0))),
    "var": lambda m, x: x.var(ddof=1),
    "__abs__": lambda m, x: abs(x),
    "__neg__": lambda m, x: -x,
    "__pos__": lambda m, x: +x,
    "__invert__": lambda m, x: ~_ints(m, x),
    "__contains__": lambda m, x: (2.0 in x.ravel(), 7 in x[0]),
    "__copy__": lambda m, x: copy.copy(x),
    "__deepcopy__": lambda m, x: copy.deepcopy(x),
    "__getitem__": lambda m, x: x[1:, ::-2],
    "__setitem__": _setitem,
    "__round__": lambda m, x: (round(x), round(x, 1)),
    "__len__": lambda m, x: len(x),
    "__iter__": lambda m, x: tuple(x),
    "__hash__": lambda m, x: hash(x),
    **{name: _operator(name, 1.5) for name in [
        "__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__",
        "__floordiv__", "__mod__", "__divmod__", "__eq__", "__ne__", "__lt__", "__le__",
        "__gt__", "__ge__"]},
    **{name: _operator(name, 7.0) for name in [
        "__rtruediv__", "__rfloordiv__", "__rmod__", "__rdivmod__", "__rpow__"]},
    "__pow__": _operator("__pow__", 2),
    "__matmul__": _operator("__matmul__", lambda m: m.ones((3, 2))),
    "__rmatmul__": _operator("__rmatmul__", lambda m: m.ones((4, 2))),
    **{name: _operator(name, 6, _ints) for name in [
        "__and__", "__rand__", "__or__", "__ror__", "__xor__", "__rxor__"]},
    **{name: _operator(name, 2, _shifts) for name in ["__lshift__", "__rshift__"]},
    "__rlshift__": _operator("__rlshift__", 1, _shifts),
    "__rrshift__": _operator("__rrshift__", 64, _shifts),
}


def _is_array(v) -> bool:
    return isinstance(v, (jaxwg.Array, jax.Array))


def _norm(v):
    """A comparable form: arrays as (dtype, weak type, shape, values)."""
    if _is_array(v):
        return (np.dtype(v.dtype).name, bool(v.weak_type), tuple(v.shape), np.asarray(v))
    if isinstance(v, (tuple, list)):
        return tuple(_norm(e) for e in v)
    return v


def _outcome(fn, *args):
    try:
        return _norm(fn(*args))
    except Exception as e:  # noqa: BLE001 - the exception type is what is compared
        return type(e).__name__


def _assert_same(ours, theirs, where):
    if isinstance(theirs, tuple) and theirs and isinstance(theirs[-1], np.ndarray):
        assert isinstance(ours, tuple) and ours[:3] == theirs[:3], (where, ours, theirs)
        np.testing.assert_allclose(ours[3], theirs[3], rtol=1e-6, err_msg=str(where))
    elif isinstance(theirs, tuple):
        assert isinstance(ours, tuple) and len(ours) == len(theirs), (where, ours, theirs)
        for k, (o, t) in enumerate(zip(ours, theirs)):
            _assert_same(o, t, (where, k))
    else:
        assert ours == theirs, (where, ours, theirs)


@pytest.mark.parametrize("name", _jax_names())
def test_jax_array_name(platform, name):
    if name in MISSING:
        assert not hasattr(jaxwg.Array, name), f"{name} is in MISSING but jaxwg has it"
        assert not hasattr(Tracer, name), f"{name} is in MISSING but jaxwg's tracers have it"
        return
    assert name in CALLS, f"jax.Array.{name}: add a call to CALLS, or the name to MISSING"
    ours = _outcome(CALLS[name], jnp, jnp.asarray(X))
    theirs = _outcome(CALLS[name], jax_numpy, jax_numpy.asarray(X))
    _assert_same(ours, theirs, name)


def test_attached_names_are_tested():
    """What jaxwg.numpy attaches is tested here; names JAX lacks too (`__len__`, ...)."""
    assert not set(METHODS) - set(CALLS)
    assert not set(METHODS) & MISSING


_ARRAY_TYPES = (jaxwg.Array, Tracer, jax.Array, jax.core.Tracer)


def _traced(jit, m, call):
    """`call` inside `jit`: array results come out of the function, other results
    (ints, shapes, errors) are taken while tracing."""
    side = {}

    def f(x):
        try:
            out = call(m, x)
        except Exception as e:  # noqa: BLE001 - the exception type is what is compared
            side["out"] = type(e).__name__
            return x
        if all(isinstance(v, _ARRAY_TYPES) for v in (out if isinstance(out, tuple) else (out,))):
            return out
        side["out"] = _norm(out)
        return x

    result = jit(f)(m.asarray(X))
    return side.get("out", _norm(result))


@pytest.mark.parametrize("name", sorted(set(METHODS) - {"__hash__", "__setitem__"}))
def test_attached_methods_on_tracers(name):
    ours = _traced(jaxwg.jit, jnp, CALLS[name])
    theirs = _traced(jax.jit, jax_numpy, CALLS[name])
    _assert_same(ours, theirs, name)


def test_tracers_are_unhashable_and_immutable():
    def f(x):
        with pytest.raises(TypeError):
            hash(x)
        with pytest.raises(TypeError, match="immutable"):
            _setitem(jnp, x)
        return x

    jaxwg.jit(f)(jnp.asarray(X))
