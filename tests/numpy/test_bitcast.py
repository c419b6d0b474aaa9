"""`lax.bitcast_convert_type` against JAX bit for bit: same widths, narrower types (a new
trailing axis of the width ratio, least significant piece first) and wider ones (the last
axis taken), eagerly and under `jit`, on both platforms; float16 through the 32-bit forms
WebGPU computes small integers in (every one of the 65536 bit patterns); vmap; JAX's
errors for bool and for a last axis that does not make one wide element."""

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

DTYPES = [np.dtype(t) for t in (np.int8, np.uint8, np.int16, np.uint16, np.float16, np.int32,
                                 np.uint32, np.float32)]


def _supported(platform: str, *dtypes) -> bool:
    return all(jaxwg.devices(platform)[0].backend.supports(dt.from_numpy(d)) for d in dtypes)


def _same_bits(actual: np.ndarray, expected: np.ndarray, platform: str) -> None:
    assert actual.dtype == expected.dtype and actual.shape == expected.shape
    if actual.tobytes() == expected.tobytes():
        return
    # A GPU may canonicalise NaN payloads where floats pass through registers (the
    # software adapter keeps them): only lanes where both are NaN may differ there.
    assert platform == "webgpu" and expected.dtype.kind == "f", (actual, expected)
    differ = actual.view(np.uint8).reshape(actual.size, -1) != expected.view(np.uint8).reshape(expected.size, -1)
    lanes = differ.any(axis=1).reshape(actual.shape)
    assert np.isnan(actual[lanes]).all() and np.isnan(expected[lanes]).all()


@given(data=st.data())
def test_bitcast_matches_jax(run, data):
    source, target = data.draw(st.sampled_from(DTYPES)), data.draw(st.sampled_from(DTYPES))
    if not _supported(run.platform, source, target):
        pytest.skip("no float16 on this adapter")
    shape = data.draw(hnp.array_shapes(min_dims=0, max_dims=2, max_side=5))
    if target.itemsize > source.itemsize:
        shape = (*shape, target.itemsize // source.itemsize)
    count = int(np.prod(shape)) * source.itemsize
    raw = data.draw(hnp.arrays(np.uint8, count))
    host = raw.view(source).reshape(shape)
    expected = np.asarray(jax.lax.bitcast_convert_type(host, target))
    actual = np.asarray(run(lambda v: lax.bitcast_convert_type(v, target), jnp.asarray(host)))
    _same_bits(actual, expected, run.platform)


@pytest.mark.parametrize("target", [np.int16, np.uint16, np.uint8, np.int8], ids=str)
def test_every_float16_bit_pattern(run, target):
    """float16 to int16/uint16/int8/uint8 and back: every pattern, NaNs and subnormals."""
    if not _supported(run.platform, np.float16):
        pytest.skip("no float16 on this adapter")
    halves = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16).view(np.float16)
    expected = np.asarray(jax.lax.bitcast_convert_type(halves, target))
    bits = run(lambda v: lax.bitcast_convert_type(v, target), jnp.asarray(halves))
    _same_bits(np.asarray(bits), expected, run.platform)
    back = run(lambda v: lax.bitcast_convert_type(v, np.float16), jnp.asarray(expected))
    _same_bits(np.asarray(back), halves, run.platform)


def test_bitcast_of_computed_values_fuses(run):
    """Pieces and joins inside larger expressions: the operand is computed, the result used."""
    x = np.array([[1.5, -2.0, 3e-30], [np.inf, 0.25, -0.0]], np.float32)

    def f(v):
        pieces = lax.bitcast_convert_type(v * 2, jnp.uint8)
        return lax.bitcast_convert_type(pieces + 0, jnp.float32) + 1, pieces

    joined, pieces = run(f, jnp.asarray(x))
    expected = jax.jit(lambda v: jax.lax.bitcast_convert_type(v * 2, np.uint8))(x)
    assert np.asarray(pieces).tobytes() == np.asarray(expected).tobytes()
    np.testing.assert_array_equal(np.asarray(joined), x * 2 + 1)


def test_bitcast_shapes_and_jaxpr():
    x = jnp.ones((2, 3))
    assert lax.bitcast_convert_type(x, jnp.uint8).shape == (2, 3, 4)
    assert lax.bitcast_convert_type(x, jnp.float16).shape == (2, 3, 2)
    assert lax.bitcast_convert_type(jnp.ones((2, 4), jnp.uint8), jnp.float32).shape == (2,)
    assert lax.bitcast_convert_type(jnp.ones(2, jnp.int8), jnp.int16).shape == ()
    ours = jaxwg.make_jaxpr(lambda v: lax.bitcast_convert_type(v, jnp.uint8))(jnp.ones(3))
    theirs = jax.make_jaxpr(lambda v: jax.lax.bitcast_convert_type(v, np.uint8))(np.ones(3, np.float32))
    assert str(ours) == str(theirs)
    assert lax.bitcast_convert_type(jnp.array([True]), jnp.bool_).tolist() == [True]


def test_vmap_bitcast_over_any_axis():
    x = np.arange(24, dtype=np.uint8).reshape(2, 3, 4)
    f = lambda v: lax.bitcast_convert_type(v, jnp.float32)
    expected = np.asarray(jax.vmap(lambda v: jax.lax.bitcast_convert_type(v, np.float32))(x))
    assert np.asarray(jaxwg.vmap(f)(jnp.asarray(x))).tobytes() == expected.tobytes()
    moved = jaxwg.vmap(f, in_axes=2)(jnp.asarray(np.moveaxis(x, 0, 2)))
    assert np.asarray(moved).tobytes() == expected.tobytes()
    g = lambda v: lax.bitcast_convert_type(v, jnp.uint16)
    assert jaxwg.vmap(g, in_axes=1, out_axes=1)(jnp.ones((3, 2))).shape == (3, 2, 2)


@pytest.mark.parametrize("operand, target", [
    (np.ones((2, 3), np.uint8), np.float32),
    (np.ones((), np.uint8), np.float32),
    (np.ones((3, 2), np.uint8), np.float32),
    (np.ones((3, 4), np.int16), np.int32),
    (np.ones(3, np.float32), np.bool_),
    (np.ones(3, np.bool_), np.uint8),
    (np.ones(3, np.int8), np.bool_),
], ids=str)
def test_bitcast_errors_match_jax(operand, target):
    with pytest.raises(Exception) as expected:
        jax.lax.bitcast_convert_type(operand, target)
    with pytest.raises(type(expected.value)) as got:
        lax.bitcast_convert_type(jnp.asarray(operand), target)
    assert str(got.value) == str(expected.value)


def test_vmap_checks_the_example_shape():
    with pytest.raises(ValueError, match=r"shape \(\) from uint8 .* 1 \* 8 != 16"):
        jaxwg.vmap(lambda v: lax.bitcast_convert_type(v, jnp.uint16))(jnp.ones(2, jnp.uint8))


def test_python_scalars_bitcast_as_jax_does():
    for value, target in [(3, np.float32), (3.0, np.int32), (1.0, np.uint8)]:
        got = lax.bitcast_convert_type(value, target)
        expected = jax.lax.bitcast_convert_type(value, target)
        assert np.asarray(got).tobytes() == np.asarray(expected).tobytes()
        assert got.dtype == expected.dtype and got.shape == expected.shape
