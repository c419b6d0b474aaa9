"""Array lifetimes: deleting arrays that share a value, and tracers that outlive
their transformation. JAX's behaviour is the reference."""

import numpy as np
import pytest

import jaxwg
import jaxwg.numpy as jnp
from jaxwg.errors import UnexpectedTracerError

from .helpers import jax, jax_numpy


def _deleted_error(x):
    """The RuntimeError JAX raises for a deleted array like `x`."""
    y = jax_numpy.zeros(x.shape, x.dtype)
    y.delete()
    with pytest.raises(RuntimeError) as info:
        y + 1
    return str(info.value)


def test_delete_keeps_arrays_sharing_the_value(platform):
    a = jnp.arange(10.0).block_until_ready()
    b = jnp.sum(a, axis=())  # the same node (and buffer) as `a`
    a.delete()
    np.testing.assert_array_equal(np.asarray(b), np.arange(10.0, dtype=np.float32))
    assert not b.is_deleted()


def test_delete_releases_memory_with_the_last_user(platform):
    a = jnp.asarray(np.ones(1024, np.float32))
    b = jnp.sum(a, axis=())
    stats = a.device.memory_stats
    before = stats()["bytes_in_use"]
    a.delete()
    assert stats()["bytes_in_use"] == before  # `b` still uses the buffer
    b.delete()
    assert stats()["bytes_in_use"] == before - 4096


def test_deleted_array_raises_as_jax(platform):
    a = jnp.arange(10.0)
    a.delete()
    a.delete()  # deleting twice is allowed, as in JAX
    want = _deleted_error(a)
    assert want == "Array has been deleted with shape=float32[10]."
    for use in (lambda: a + 1, lambda: np.asarray(a), lambda: repr(a), lambda: a.device,
                lambda: a.devices(), lambda: a.block_until_ready(), lambda: jnp.sum(a),
                lambda: jaxwg.jit(lambda x: x)(a), lambda: a.copy()):
        with pytest.raises(RuntimeError) as info:
            use()
        assert str(info.value) == want
    assert a.is_deleted() and a.shape == (10,) and a.dtype == np.float32  # as in JAX


def test_donated_argument_keeps_aliases(platform):
    a = jnp.arange(4.0)
    alias = jnp.sum(a, axis=())
    jaxwg.jit(lambda x: x * 2, donate_argnums=0)(a)
    assert a.is_deleted()
    np.testing.assert_array_equal(np.asarray(alias), np.arange(4.0, dtype=np.float32))


def _leak(transform):
    leaked = []

    def f(x):
        leaked.append(x * 2)
        return x

    transform(f)(jnp.ones(3))
    return leaked[0]


def _jax_leak_error() -> type:
    leaked = []
    jax.jit(lambda x: leaked.append(x * 2) or x)(jax_numpy.ones(3))
    with pytest.raises(TypeError) as info:
        leaked[0] + 1
    return type(info.value)


@pytest.mark.parametrize("transform", [jaxwg.jit, jaxwg.make_jaxpr], ids=["jit", "make_jaxpr"])
def test_leaked_tracer_raises_at_first_use(transform):
    tracer = _leak(transform)
    with pytest.raises(UnexpectedTracerError, match="escape the scope") as info:
        tracer + 1
    assert type(info.value).__name__ == _jax_leak_error().__name__
    with pytest.raises(UnexpectedTracerError):
        jnp.sin(tracer)
    with pytest.raises(UnexpectedTracerError):  # and inside another trace
        jaxwg.jit(lambda y: y + tracer)(jnp.ones(3))
    assert tracer.shape == (3,)  # its aval stays readable, as in JAX


@pytest.mark.parametrize("transform, purpose", [(jaxwg.jit, "jit"), (jaxwg.make_jaxpr, "make_jaxpr")])
def test_leak_error_names_the_traced_function(transform, purpose):
    leaked = []

    def model(x):
        leaked.append(x)
        return x * 2

    transform(model)(jnp.ones(3))
    with pytest.raises(UnexpectedTracerError, match=rf"leaked was model at .*:\d+ traced for {purpose}"):
        leaked[0] + 1
