"""`jnp.fft` against JAX and NumPy: sample frequencies for any size, spacing and float
dtype, and the shifts over any axes; every transform with its lengths, axes and norms
(held to a bound on the float32 sums' error), at lengths that take each of
`lax.fft`'s paths (one product, four-step, Bluestein) up to a million points; their
gradients, `vmap` and jaxpr; JAX's errors. Eagerly and under `jit` on both platforms."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import jaxwg
import jaxwg.numpy as jnp
from jaxwg import lax

from .helpers import jax, jax_numpy

SPACINGS = st.sampled_from([1.0, 0.5, 3, 0.1, 2.5e-3])


@pytest.mark.slow_on_cpu
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


EPS = float(np.finfo(np.float32).eps)
COMPLEX_NAMES = ["fft", "ifft", "fft2", "ifft2", "fftn", "ifftn"]
REAL_NAMES = ["rfft", "rfft2", "rfftn", "ihfft"]
HERMITIAN_NAMES = ["irfft", "irfft2", "irfftn", "hfft"]
ONE_AXIS = {"fft", "ifft", "rfft", "irfft", "hfft", "ihfft"}


def assert_transform_close(actual, expected, x):
    """The transform's error within a bound on float32 sums: each output sums terms of
    at most |x| in modulus through a few stages of sums of at most 64 terms (whose
    rounding errors grow about as sqrt(terms)), so max |error| <= 64 eps sum|x| holds
    with room, where a wrong twiddle or index errs by about the output's whole size."""
    actual, expected = np.asarray(actual), np.asarray(expected)
    assert actual.shape == expected.shape
    scale = float(np.abs(np.asarray(x)).sum()) + 1e-30
    assert np.abs(actual - expected).max(initial=0) <= 64 * EPS * scale


def _values(shape, data, dtype):
    part = st.floats(-100, 100, width=32, allow_subnormal=False)
    if dtype is np.complex64:
        return data.draw(hnp.arrays(dtype, shape, elements=st.builds(complex, part, part)))
    return data.draw(hnp.arrays(dtype, shape, elements=part))


@pytest.mark.slow_on_cpu
@pytest.mark.parametrize("name", COMPLEX_NAMES + REAL_NAMES + HERMITIAN_NAMES)
@settings(max_examples=4)  # 14 functions on 2 platforms, eagerly and jitted: each shape compiles
@given(data=st.data())
def test_transforms_match_jax(run, name, data):
    shape = data.draw(hnp.array_shapes(min_dims=1 if name in ONE_AXIS else 2, max_dims=3, max_side=9))
    x = _values(shape, data, np.float32 if name in REAL_NAMES else np.complex64)
    norm = data.draw(st.sampled_from([None, "backward", "ortho", "forward"]))
    kwargs = {"norm": norm}
    if name in ONE_AXIS:
        kwargs["axis"] = data.draw(st.integers(-len(shape), len(shape) - 1))
        if data.draw(st.booleans()):
            kwargs["n"] = data.draw(st.integers(1, 12))
    else:
        k = 2 if name.endswith("2") else data.draw(st.integers(1, len(shape)))
        axes = data.draw(st.permutations(range(len(shape))))[:k]
        if name.endswith("2") or data.draw(st.booleans()):
            kwargs["axes"] = tuple(axes)
        if data.draw(st.booleans()):
            kwargs["s"] = tuple(data.draw(st.integers(1, 10)) for _ in range(k))
            kwargs.setdefault("axes", tuple(axes))
    # JAX's side jitted: one XLA program for each example, not one per primitive
    expected = jax.jit(lambda v: getattr(jax_numpy.fft, name)(v, **kwargs))(x)
    actual = run(lambda v: getattr(jnp.fft, name)(v, **kwargs), jnp.asarray(x))
    assert np.asarray(actual).dtype == expected.dtype
    # The result's scale: an inverse without "forward" divides by n, "ortho" by sqrt(n).
    assert_transform_close(actual, expected, np.abs(x).max(initial=0) * np.ones(np.asarray(expected).shape))


# Lengths for each path of lax.fft: one product (<= 64), a prime's own matrix (127),
# four-step splits (65 = 13 * 5, 4096, 2^20), Bluestein (1031 is prime, > 1024), and
# four-step around Bluestein (3 * 1031).
LENGTHS = [1, 2, 3, 63, 64, 65, 127, 4096, 1031, pytest.param(3 * 1031, marks=pytest.mark.slow)]  # 3093: 8 s


@pytest.mark.slow_on_cpu
@pytest.mark.parametrize("n", LENGTHS)
def test_lengths_match_numpy(platform, n):
    rng = np.random.default_rng(n)
    x = (rng.standard_normal((2, n)) + 1j * rng.standard_normal((2, n))).astype(np.complex64)
    exact = np.fft.fft(x.astype(np.complex128))
    for k in range(2):
        assert_transform_close(jnp.fft.fft(jnp.asarray(x))[k], exact[k], x[k])
        inverse = np.fft.ifft(x[k].astype(np.complex128))
        assert_transform_close(jnp.fft.ifft(jnp.asarray(x[k])), inverse, x[k] / n)
    real = x.real.copy()
    assert_transform_close(jnp.fft.rfft(jnp.asarray(real))[0], np.fft.rfft(real[0].astype(np.float64)), real[0])
    back = jnp.fft.irfft(jnp.fft.rfft(jnp.asarray(real)), n)
    np.testing.assert_allclose(np.asarray(back), real, rtol=0, atol=64 * EPS * np.abs(real).max())


@pytest.mark.slow  # about 30 s on a software adapter
def test_a_million_points_match_numpy(platform):
    n = 1 << 20
    rng = np.random.default_rng(0)
    x = (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(np.complex64)
    got = np.asarray(jaxwg.jit(jnp.fft.fft)(jnp.asarray(x)))
    exact = np.fft.fft(x.astype(np.complex128))
    # Random inputs: the relative L2 error of a float32 FFT is about eps sqrt(log2 n),
    # far inside 16 eps (a wrong twiddle anywhere gives an error of order 1).
    assert np.linalg.norm(got - exact) <= 16 * EPS * np.linalg.norm(exact)


@pytest.mark.parametrize("fft_type, lengths, dtype", [
    ("FFT", (8,), np.complex64), ("IFFT", (4, 6), np.complex64), ("RFFT", (10,), np.float32),
    ("RFFT", (3, 7), np.float32), ("IRFFT", (10,), np.complex64), ("IRFFT", (4, 7), np.complex64)])
def test_gradients_and_vmap_match_jax(fft_type, lengths, dtype):
    rng = np.random.default_rng(3)
    in_shape = list(lengths)
    if fft_type == "IRFFT":
        in_shape[-1] = lengths[-1] // 2 + 1
    shape = (2, *in_shape)
    x = rng.standard_normal(shape).astype(dtype)
    if dtype is np.complex64:
        x = x + 1j * rng.standard_normal(shape).astype(np.float32)

    def loss(m, L):
        return lambda v: m.sum(m.abs(L.fft(v, fft_type, lengths) + 0.5) ** 2)

    ours = jaxwg.grad(loss(jnp, lax))(jnp.asarray(x))
    theirs = jax.jit(jax.grad(loss(jax_numpy, jax.lax)))(x)  # jitted: one XLA program
    np.testing.assert_allclose(np.asarray(ours), np.asarray(theirs), rtol=1e-4, atol=1e-4 * np.abs(theirs).max())
    batched = jaxwg.vmap(lambda v: lax.fft(v, fft_type, lengths), in_axes=1)(jnp.asarray(np.moveaxis(x, 0, 1)))
    expected = jax.jit(jax.vmap(lambda v: jax.lax.fft(v, fft_type, lengths), in_axes=1))(np.moveaxis(x, 0, 1))
    assert_transform_close(batched, expected, np.abs(x).max() * np.ones(np.asarray(expected).shape))


def test_jaxpr_prints_as_jax():
    x = np.ones((2, 8), np.complex64)
    ours = jaxwg.make_jaxpr(lambda v: lax.fft(v, lax.FftType.FFT, (8,)))(x)
    theirs = jax.make_jaxpr(lambda v: jax.lax.fft(v, jax.lax.FftType.FFT, (8,)))(x)
    assert str(ours) == str(theirs)


@pytest.mark.parametrize("call", [
    lambda m: m.fft.fft(m.ones(4), norm="sideways"),
    lambda m: m.fft.fftn(m.ones((2, 2)), axes=(0, 0)),
    lambda m: m.fft.fftn(m.ones((2, 2)), s=(2, 0)),
    lambda m: m.fft.fftn(m.ones((2, 2)), s=(2,), axes=(0, 1)),
    lambda m: m.fft.rfft(m.ones(4, m.complex64)),
    lambda m: m.fft.fft2(m.ones((2, 2, 2)), axes=(0, 1, 2)),
    lambda m: m.fft.fft(m.ones(4), axis=(0,)),
], ids=["norm", "repeated axes", "zero length", "s and axes", "complex rfft", "fft2 axes", "axis tuple"])
def test_transform_errors_match_jax(call):
    with pytest.raises(Exception) as theirs:
        call(jax_numpy)
    with pytest.raises(type(theirs.value)) as ours:
        call(jnp)
    assert str(ours.value) == str(theirs.value)
