"""`jnp.fft`'s real-valued functions against JAX: sample frequencies for any size,
spacing and float dtype, and the shifts over any axes, eagerly and under `jit` on both
platforms; JAX's errors; the transforms, which need complex numbers, say that they are
not implemented."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import jaxwg.numpy as jnp
from jaxwg.errors import NotImplementedInJaxwg

from .helpers import jax, jax_numpy

SPACINGS = st.sampled_from([1.0, 0.5, 3, 0.1, 2.5e-3])


@given(n=st.integers(1, 70), d=SPACINGS, dtype=st.sampled_from([None, np.float32, np.float16]),
       real=st.booleans())
def test_frequencies_match_jax(run, n, d, dtype, real):
    name = "rfftfreq" if real else "fftfreq"
    expected = np.asarray(getattr(jax_numpy.fft, name)(n, d, dtype=dtype))
    actual = np.asarray(run(lambda: getattr(jnp.fft, name)(n, d, dtype=dtype)))
    assert actual.dtype == expected.dtype
    # XLA's CPU backend divides by the scalar d * n through its reciprocal (3 / 30 is
    # then 0.10000000894 in float32); jaxwg divides, which rounds once.
    np.testing.assert_array_max_ulp(actual, expected, 1)
    k = np.arange(len(actual)) if real else (np.arange(n) + n // 2) % n - n // 2
    np.testing.assert_array_equal(actual, k.astype(actual.dtype) / np.asarray(d * n, actual.dtype))


@given(x=hnp.arrays(np.int32, hnp.array_shapes(min_dims=1, max_dims=3, max_side=6)), data=st.data())
def test_shifts_match_jax(run, x, data):
    axes = data.draw(st.one_of(st.none(), st.integers(-x.ndim, x.ndim - 1),
                               st.lists(st.integers(0, x.ndim - 1), max_size=x.ndim, unique=True)))
    for name in ("fftshift", "ifftshift"):
        expected = np.asarray(getattr(jax_numpy.fft, name)(x, axes))
        actual = np.asarray(run(lambda v: getattr(jnp.fft, name)(v, axes), jnp.asarray(x)))
        np.testing.assert_array_equal(actual, expected)


@pytest.mark.parametrize("name", ["fftfreq", "rfftfreq"])
@pytest.mark.parametrize("n, d", [([4], 1.0), (4, [1.0, 2.0])], ids=["list n", "list d"])
def test_errors_match_jax(name, n, d):
    with pytest.raises(ValueError) as theirs:
        getattr(jax.numpy.fft, name)(n, d)
    with pytest.raises(ValueError) as ours:
        getattr(jnp.fft, name)(n, d)
    assert str(ours.value) == str(theirs.value)


def test_transforms_are_not_implemented():
    assert not hasattr(jnp.fft, "rfft")
    with pytest.raises(NotImplementedInJaxwg, match="jax.numpy.fft.fft is not implemented"):
        jnp.fft.fft(jnp.ones(4))
