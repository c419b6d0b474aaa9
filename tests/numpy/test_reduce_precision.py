"""`lax.reduce_precision` against JAX bit for bit: float32 bit patterns of every kind
(NaN, infinities, subnormals, values that round into the next binade or past the
format's range) to formats from 1 exponent bit and 0 mantissa bits up to float32's
own, every float16 bit pattern, eagerly and under `jit` on both platforms; its
derivative (itself), vmap, and JAX's errors."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import jaxwg
import jaxwg.numpy as jnp
from jaxwg import lax
from jaxwg.core import dtypes as dt

from .helpers import jax

# Where rounding and the range checks have their edges: ties, carries into the
# exponent, float16's largest value and the halfway point past it, its smallest
# normal, float32's largest value.
EDGES = np.float32([0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, 1.0 + 2 ** -11, 1.0 + 3 * 2 ** -11,
                    2.0 - 2 ** -23, 65504.0, 65519.99, 65520.0, -65520.0, 2 ** -14, 2 ** -14 * (1 - 2 ** -11),
                    6.0e-8, 3.4028235e38, -3.4028235e38, 1e-45])


def _same(actual: np.ndarray, expected: np.ndarray) -> None:
    """Equal bits, except NaN payloads (a GPU may canonicalise them)."""
    uint = {2: np.uint16, 4: np.uint32}[expected.dtype.itemsize]
    differ = actual.view(uint) != expected.view(uint)
    assert (np.isnan(actual[differ]) & np.isnan(expected[differ])).all(), (
        actual[differ][:5], expected[differ][:5])


@given(bits=hnp.arrays(np.uint32, st.integers(1, 64)), exponent_bits=st.integers(1, 9),
       mantissa_bits=st.integers(0, 24))
def test_float32_matches_jax(run, bits, exponent_bits, mantissa_bits):
    x = np.concatenate([bits.view(np.float32), EDGES])
    expected = np.asarray(jax.lax.reduce_precision(x, exponent_bits, mantissa_bits))
    actual = run(lambda v: lax.reduce_precision(v, exponent_bits, mantissa_bits), jnp.asarray(x))
    assert actual.dtype == jnp.float32
    _same(np.asarray(actual), expected)


@pytest.mark.parametrize("exponent_bits, mantissa_bits", [(5, 10), (4, 3), (5, 2), (3, 7), (1, 0)])
def test_every_float16_bit_pattern(run, exponent_bits, mantissa_bits):
    if not jaxwg.devices(run.platform)[0].backend.supports(dt.float16):
        pytest.skip("no float16 on this adapter")
    halves = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16).view(np.float16)
    expected = np.asarray(jax.lax.reduce_precision(halves, exponent_bits, mantissa_bits))
    actual = run(lambda v: lax.reduce_precision(v, exponent_bits, mantissa_bits), jnp.asarray(halves))
    _same(np.asarray(actual), expected)


def test_derivative_vmap_and_jaxpr_as_jax():
    x = np.float32([1.0 + 2 ** -9, 3.0, -70000.0])
    f = lambda lax_, v: lax_.reduce_precision(v * 3.0, 5, 10)  # noqa: E731
    grad = jaxwg.grad(lambda v: jnp.sum(f(lax, v)))(jnp.asarray(x))
    want = jax.grad(lambda v: jax.numpy.sum(f(jax.lax, v)))(x)
    np.testing.assert_array_equal(np.asarray(grad), np.asarray(want))
    batched = jaxwg.vmap(lambda v: f(lax, v))(jnp.asarray(x.reshape(3, 1)))
    np.testing.assert_array_equal(np.asarray(batched), np.asarray(f(jax.lax, x.reshape(3, 1))))
    assert str(jaxwg.make_jaxpr(lambda v: lax.reduce_precision(v, 8, 7))(jnp.asarray(x))) == \
        str(jax.make_jaxpr(lambda v: jax.lax.reduce_precision(v, 8, 7))(x))


@pytest.mark.parametrize("operand, exponent_bits, mantissa_bits, error", [
    (np.int32([1]), 5, 10, TypeError), (np.float32([1]), 0, 10, ValueError),
    (np.float32([1]), 5, -1, ValueError)], ids=["int", "no exponent", "negative mantissa"])
def test_errors_match_jax(operand, exponent_bits, mantissa_bits, error):
    with pytest.raises(error) as theirs:
        jax.lax.reduce_precision(operand, exponent_bits, mantissa_bits)
    with pytest.raises(error) as ours:
        lax.reduce_precision(jnp.asarray(operand), exponent_bits, mantissa_bits)
    assert str(ours.value) == str(theirs.value)
