"""jaxwg.Array: properties, conversions, operators, methods, and tracer errors."""

import copy
import operator
import pickle

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import jaxwg
import jaxwg.numpy as jnp
from jaxwg import errors

from .helpers import assert_array, jax, jax_numpy


def _seen_as_arrays(lib, m, random):
    """`isinstance(value, lib.Array)` for values a user meets eagerly and inside each
    transformation, written once for jaxwg and for JAX."""
    seen = {}

    def note(name, v):
        seen[name] = isinstance(v, lib.Array)
        return v

    x = m.arange(3.0)
    note("array", x)
    note("key", random.key(0))
    note("raw key", random.PRNGKey(0))
    for name, numpy_value in [("numpy", np.ones(2)), ("python float", 1.0), ("list", [1.0])]:
        note(name, numpy_value)
    lib.jit(lambda v: note("jit", v) * 2)(x)
    lib.grad(lambda v: note("grad", v) * 2)(1.0)
    lib.vmap(lambda v: note("vmap", v) * 2)(x)
    lib.jit(lambda k: [note("key in jit", k)][:0])(random.key(0))
    lib.lax.scan(lambda c, v: (note("scan carry", c) + v, v), 0.0, x)
    return seen


def test_every_array_value_is_an_instance_of_array_as_in_jax(platform):
    assert _seen_as_arrays(jaxwg, jnp, jaxwg.random) == _seen_as_arrays(jax, jax_numpy, jax.random)
    assert jnp.ndarray is jaxwg.Array and type(jnp.ones(2)) is not jaxwg.Array
    assert issubclass(type(jnp.ones(2)), jaxwg.Array) and not issubclass(np.ndarray, jaxwg.Array)
    assert jaxwg.Array.sum is type(jnp.ones(2)).sum  # where help() and the API reference find them


def test_properties(platform):
    x = jnp.arange(6.0).reshape(2, 3)
    assert x.shape == (2, 3) and x.ndim == 2 and x.size == 6
    assert x.dtype == np.float32 and x.dtype == jnp.float32
    assert x.T.shape == (3, 2) and x.mT.shape == (3, 2)
    assert x.device.platform == platform
    assert x.devices() == {x.device}
    assert len(x) == 2
    assert [r.tolist() for r in x] == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    np.testing.assert_array_equal(np.asarray(x), np.arange(6.0).reshape(2, 3))
    assert np.asarray(x, dtype=np.int32).dtype == np.int32


def test_repr_matches_jax_format(platform):
    assert repr(jnp.array([1.0, 2.0])) == "Array([1., 2.], dtype=float32)"
    assert repr(jnp.array([1, 2])) == "Array([1, 2], dtype=int32)"
    assert repr(jnp.array(True)) == "Array(True, dtype=bool)"
    assert repr(jnp.array(3) + 2) == "Array(5, dtype=int32, weak_type=True)"
    assert repr(jnp.zeros((0, 3))) == "Array([], shape=(0, 3), dtype=float32)"
    assert repr(jnp.ones((2, 2))) == "Array([[1., 1.],\n       [1., 1.]], dtype=float32)"
    assert str(jnp.arange(3)) == "[0 1 2]"
    assert f"{jnp.array(1.5):.2f}" == "1.50"


def test_scalar_conversions(platform):
    assert float(jnp.array(2.5)) == 2.5 and int(jnp.array(7)) == 7
    assert bool(jnp.array(1)) is True and bool(jnp.array([0])) is False
    assert jnp.array(2.5).item() == 2.5 and jnp.arange(3).tolist() == [0, 1, 2]
    assert [10, 20, 30][jnp.array(1)] == 20  # __index__
    assert complex(jnp.array(1.0)) == 1 + 0j
    with pytest.raises(TypeError, match="Only scalar arrays"):
        float(jnp.ones(2))
    with pytest.raises(TypeError, match="Only scalar arrays"):
        int(jnp.ones(2))
    with pytest.raises(ValueError, match="ambiguous"):
        bool(jnp.ones(2))
    with pytest.raises(TypeError):
        operator.index(jnp.array(1.0))
    with pytest.raises(TypeError, match="unsized"):
        len(jnp.array(1.0))
    with pytest.raises(TypeError):
        iter(jnp.array(1.0))


def test_unhashable_and_immutable(platform):
    x = jnp.ones(2)
    with pytest.raises(TypeError, match="unhashable"):
        hash(x)
    with pytest.raises(TypeError, match="immutable"):
        x[0] = 1.0


def test_copy_delete_block(platform):
    x = jnp.arange(3.0)
    y = x.copy()
    assert_array(y, np.arange(3.0, dtype=np.float32))
    assert_array(copy.deepcopy(x), np.arange(3.0, dtype=np.float32))
    assert_array(pickle.loads(pickle.dumps(x)), np.arange(3.0, dtype=np.float32))
    assert x.block_until_ready() is x
    x.delete()
    assert x.is_deleted()
    with pytest.raises(RuntimeError, match="deleted"):
        x + 1
    assert_array(y, np.arange(3.0, dtype=np.float32))  # the copy is independent


def test_delete_of_pending_producer_keeps_consumers(platform):
    x = jnp.arange(4.0)
    x.block_until_ready()
    y = x * 2
    x.delete()
    assert_array(y, np.arange(4.0, dtype=np.float32) * 2)


_BINARY = [operator.add, operator.sub, operator.mul, operator.truediv, operator.floordiv,
           operator.mod, operator.pow, operator.lt, operator.le, operator.gt, operator.ge,
           operator.eq, operator.ne]
_BITWISE = [operator.and_, operator.or_, operator.xor, operator.lshift, operator.rshift]


@pytest.mark.parametrize("op", _BINARY, ids=lambda f: f.__name__)
@given(a=hnp.arrays(np.int32, 4, elements=st.integers(1, 9)),
       b=hnp.arrays(np.int32, 4, elements=st.integers(1, 4)))
def test_operators_and_reflected_forms(platform, op, a, b):
    x, y = jnp.asarray(a), jnp.asarray(b)
    want = op(a, b)
    if op is operator.truediv:
        want = want.astype(np.float32)
    assert_array(op(x, y), want, rtol=1e-6)
    assert_array(op(x, 3), op(a, np.int32(3)).astype(want.dtype), rtol=1e-6)
    assert_array(op(3, y), op(np.int32(3), b).astype(want.dtype), rtol=1e-6)


@pytest.mark.parametrize("op", _BITWISE, ids=lambda f: f.__name__)
def test_bitwise_operators(platform, op):
    a = np.array([0, 1, 5, -8], np.int32)
    b = np.array([3, 2, 1, 1], np.int32)
    assert_array(op(jnp.asarray(a), jnp.asarray(b)), op(a, b))
    assert_array(op(2, jnp.asarray(b)), op(np.int32(2), b))


def test_unary_operators(platform):
    a = np.array([-2.0, 0.0, 3.5], np.float32)
    x = jnp.asarray(a)
    assert_array(-x, -a)
    assert_array(+x, a)
    assert_array(abs(x), np.abs(a))
    assert_array(~jnp.array([True, False]), np.array([False, True]))
    assert_array(~jnp.array([0, 5]), ~np.array([0, 5], np.int32))
    assert_array(round(x), np.round(a).astype(np.int32))  # as round() of a float: an int
    assert_array(round(x, 1), np.round(a, 1))
    q, r = divmod(jnp.array([-7, 7]), 3)
    assert q.tolist() == [-3, 2] and r.tolist() == [2, 1]


def test_matmul_operator(platform):
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    assert_array(jnp.asarray(a) @ jnp.asarray(a.T), a @ a.T)


@pytest.mark.parametrize("scalar", [2, 2.5, True])
@pytest.mark.parametrize("dtype", ["bool", "int32", "uint32", "float32"])
def test_python_scalar_promotion_matches_jax(platform, scalar, dtype):
    a = np.ones(3, dtype)
    for op in (operator.add, operator.mul):
        if dtype == "bool" and isinstance(scalar, bool) is False and op is operator.add:
            pass
        got = op(jnp.asarray(a), scalar)
        want = op(jax_numpy.asarray(a), scalar)
        assert got.dtype == want.dtype, (op, dtype, scalar)
        assert got.weak_type == want.weak_type, (op, dtype, scalar)


def test_methods(platform):
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    x = jnp.asarray(a)
    assert_array(x.sum(), a.sum())
    assert_array(x.sum(axis=0), a.sum(axis=0))
    assert_array(x.mean(axis=1, keepdims=True), a.mean(axis=1, keepdims=True))
    assert_array(x.max(), a.max())
    assert_array(x.min(axis=0), a.min(axis=0))
    assert_array(x.prod(axis=1), a.prod(axis=1), rtol=1e-6)
    assert_array(x.argmax(axis=1), a.argmax(axis=1).astype(np.int32))
    assert_array(x.argmin(), np.int32(a.argmin()))
    assert_array(x.var(), a.var(), rtol=1e-6)
    assert_array(x.std(axis=0), a.std(axis=0), rtol=1e-6)
    assert_array(x.reshape(4, 3), a.reshape(4, 3))
    assert_array(x.reshape((2, -1)), a.reshape(2, -1))
    assert_array(x.transpose(), a.T)
    assert_array(x.transpose(1, 0), a.T)
    assert_array(x.ravel(), a.ravel())
    assert_array(x.flatten(), a.ravel())
    assert_array(x[None].squeeze(), a)
    assert_array(x.astype(jnp.int32), a.astype(np.int32))
    assert_array(x.clip(2, 5), a.clip(2, 5))
    assert_array(x.round(), a.round())
    assert_array(x.any(), np.bool_(True))
    assert_array(x.all(axis=0), a.all(axis=0))
    assert_array(x.swapaxes(0, 1), a.swapaxes(0, 1))


def _traced(fn):
    return lambda: jaxwg.jit(fn)(jnp.array(1.0))


@pytest.mark.parametrize("fn, error", [
    (lambda x: bool(x), errors.TracerBoolConversionError),
    (lambda x: float(x), errors.ConcretizationTypeError),
    (lambda x: int(x), errors.ConcretizationTypeError),
    (lambda x: x.item(), errors.ConcretizationTypeError),
    (lambda x: np.asarray(x), errors.TracerArrayConversionError),
    (lambda x: range(x), errors.TracerIntegerConversionError),
    (lambda x: 1 if x > 0 else 0, errors.TracerBoolConversionError),
])
def test_tracer_conversions_raise_jax_errors(platform, fn, error):
    with pytest.raises(error, match="traced array with shape"):
        _traced(fn)()
    assert issubclass(error, TypeError)


def test_tracer_leak_is_reported(platform):
    leaked = []
    jaxwg.jit(lambda x: leaked.append(x) or x)(jnp.ones(2))
    with pytest.raises(errors.UnexpectedTracerError):
        jaxwg.jit(lambda y: y + leaked[0])(jnp.ones(2))
