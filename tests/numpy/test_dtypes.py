"""The scalar types and dtype functions of jaxwg.numpy (dtypes.py) against JAX: calling a
scalar type makes an array (eagerly and under jit), and the types still stand for
their dtypes wherever NumPy or jaxwg reads one."""

import numpy as np
import pytest

import jaxwg
import jaxwg.numpy as jnp

from .helpers import assert_array, jax, jax_numpy

SCALAR_TYPES = ["bool_", "int8", "uint8", "int16", "uint16", "int32", "uint32", "float16",
                "float32", "float64", "int64"]
VALUES = [2.5, [1.5, 2.0, 0.0], [[0, 1], [7, 100]], True, np.float32([3.75, 1.25])]  # fit every type


@pytest.mark.filterwarnings("ignore:Explicitly requested dtype")  # JAX on 64-bit types
@pytest.mark.parametrize("name", SCALAR_TYPES)
def test_scalar_types_make_arrays_as_jax(run, name):
    """`jnp.float32(x)` is `jnp.asarray(x, jnp.float32)`: an Array, 64-bit types narrowed
    to 32 bits with x64 off; under jit it casts the traced argument."""
    for value in VALUES:
        want = getattr(jax_numpy, name)(value)
        got = getattr(jnp, name)(value)
        assert isinstance(got, jaxwg.Array)
        assert_array(got, np.asarray(want), dtype=want.dtype, weak_type=False)
        x = np.asarray(value, np.float32)
        want = jax.jit(lambda a: getattr(jax_numpy, name)(a))(x)
        assert_array(run(lambda a: getattr(jnp, name)(a), jnp.asarray(x)), np.asarray(want),
                     dtype=want.dtype)


def test_scalar_types_stand_for_their_dtypes():
    for name in SCALAR_TYPES + ["bool", "uint64", "float_", "int_", "complex64"]:
        t, jt = getattr(jnp, name), getattr(jax_numpy, name)
        assert np.dtype(t) == np.dtype(jt) == jnp.dtype(t) == t.dtype, name
        assert t == np.dtype(jt).type and np.dtype(jt).type == t and hash(t) == hash(np.dtype(jt).type)
        assert t.__name__ == jt.__name__, name
    assert jnp.bool is jnp.bool_ and jnp.float_ is jnp.float64
    assert jnp.zeros(2, jnp.float32).dtype == jnp.float32
    assert jnp.ones(2, dtype=jnp.uint8).dtype == np.uint8
    assert {np.float32: "f"}[jnp.float32] == "f"
    assert jnp.issubdtype(jnp.float32, jnp.floating) and jnp.issubdtype(np.int8, jnp.int8)
    assert not jnp.issubdtype(jnp.int32, jnp.floating)
    assert jnp.result_type(jnp.int8, jnp.uint8) == np.int16
    assert jnp.iinfo(jnp.int16).min == -32768 and jnp.finfo(jnp.float16).bits == 16
    assert jnp.can_cast(jnp.int8, jnp.int32)
    assert jaxwg.lax.convert_element_type(jnp.arange(2), jnp.float16).dtype == np.float16


def test_isinstance_against_scalar_types_as_jax():
    for value in (np.float32(1), jnp.float32(1), 1.0, np.int32(2)):
        for name in ("float32", "int32", "float64"):
            want = isinstance(jax_numpy.asarray(value) if isinstance(value, jaxwg.Array) else value,
                              getattr(jax_numpy, name))
            assert isinstance(value, getattr(jnp, name)) == want, (value, name)


def test_dtype_of_types_arrays_and_names():
    assert jnp.dtype(jnp.float32) == np.float32 and jnp.dtype(np.int8) == np.int8
    assert jnp.dtype("uint16") == np.uint16 and jnp.dtype(jnp.zeros(2, jnp.int8)) == np.int8
    assert jnp.dtype(float) == np.dtype(float)


def test_scalar_type_overflow_raises_as_jax():
    with pytest.raises(OverflowError):
        jax_numpy.uint8(300)
    with pytest.raises(OverflowError):
        jnp.uint8(300)


@pytest.mark.parametrize("kind", ["floaty", ("bool", "floaty"), 3, None, "float32",
                                  "real floating", ("bool", np.float32)])
def test_isdtype_kinds_and_errors_match_jax(kind):
    try:
        want = jax_numpy.isdtype(jax_numpy.float32, kind)
    except (TypeError, ValueError) as e:
        with pytest.raises(type(e)):
            jnp.isdtype(jnp.float32, kind)
    else:
        assert jnp.isdtype(jnp.float32, kind) == want
