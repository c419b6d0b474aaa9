"""jaxwg.scipy.signal, jaxwg.scipy.fft and jaxwg.scipy.integrate against JAX: values,
dtypes, weak types and errors.

JAX is slow as an oracle here: eagerly, each call compiles every operation for its
shapes (one `welch` takes seconds), and even one `jax.jit` per table of cases compiles
for seconds. So the tables take their dtypes, weak types and shapes from JAX
(`jax.eval_shape`, no compiling) and their values from SciPy, whose results JAX's
functions reproduce; one jit of JAX checks the values of a few cases of each family,
and those where JAX departs from SciPy (`istft`'s time axis). The CPU backend runs the
whole tables; WebGPU a few cases of each (each new shape compiles kernels there)."""

import functools
import warnings

import numpy as np
import pytest
import scipy.fft
import scipy.signal
from hypothesis import given, settings, strategies as st

import jaxwg
import jaxwg.numpy as jnp
from jaxwg.scipy import fft, integrate, signal

from .helpers import jax

import jax.scipy.fft as jax_fft  # noqa: E402 - after helpers, which sets JAX's platform
import jax.scipy.integrate as jax_integrate  # noqa: E402
import jax.scipy.signal as jax_signal  # noqa: E402

R = np.random.RandomState(0)
X1 = R.randn(7).astype(np.float32)
K4 = R.randn(4).astype(np.float32)
X2 = R.randn(5, 6).astype(np.float32)
K2 = R.randn(2, 3).astype(np.float32)
C1 = (R.randn(6) + 1j * R.randn(6)).astype(np.complex64)
CK = (R.randn(3) + 1j * R.randn(3)).astype(np.complex64)
I1 = np.arange(5, dtype=np.int32)
X3 = R.randn(3, 5, 4).astype(np.float32)
SIG = R.randn(2, 40).astype(np.float32)
Z = scipy.signal.stft(SIG, nperseg=8)[2].astype(np.complex64)

# (name, positional arguments, keyword arguments); NumPy arrays among the positional ones
# are the operands, the rest static.
CONVOLUTIONS = [
    *[(name, (a, b), dict(mode=mode, method=method))
      for mode in ("full", "same", "valid")
      for name, method, a, b in [("convolve", "direct", X1, K4), ("correlate", "auto", K4, X1),
                                 ("convolve", "fft", X2, K2), ("correlate", "fft", C1, CK),
                                 ("correlate", "direct", CK, C1)]],
    ("convolve", (I1, I1[:2]), {}),
    *[(name, (a, b), dict(mode=mode)) for name, mode, a, b in [
        ("convolve2d", "same", K2 + 0.5j, X2[:3] - 1j), ("correlate2d", "full", K2 + 0.5j, X2[:3]),
        ("correlate2d", "same", X2, K2), ("correlate2d", "valid", X2, K2 - 1j)]],
    ("fftconvolve", (X3, X3[:2, :, :3]), dict(axes=(0, -1), mode="same")),
    ("fftconvolve", (X3[:, :1, 0], X3[:1, :, 0]), {}),  # no axis to sum: an outer product
    ("convolve", (np.float32(2.0), np.float32(3.0)), {}),
]
SPECTRA = [
    ("stft", (SIG,), dict(nperseg=8, noverlap=2, nfft=10, fs=3.0)),
    ("stft", (SIG,), dict(nperseg=7, boundary="even", window="hamming")),
    ("stft", (SIG,), dict(nperseg=7, boundary="odd", padded=False)),
    ("stft", (SIG.T.copy(),), dict(nperseg=8, window=np.hanning(8).astype(np.float32), axis=0,
                                   boundary="constant", detrend="linear")),
    ("stft", (SIG[0] + 1j * SIG[1],), dict(nperseg=8, boundary=None)),  # complex: two-sided
    ("welch", (SIG,), dict(nperseg=8, average="median", return_onesided=False)),
    ("welch", (SIG[0],), {}),  # one segment
    ("istft", (Z[0][..., ::2],), dict(nperseg=8, noverlap=2, window="hamming")),
    ("istft", (Z[0].T.copy(),), dict(time_axis=0, freq_axis=1)),
    ("istft", (np.concatenate([Z[0], Z[0, 1:-1][::-1].conj()]),), dict(input_onesided=False)),
    ("welch", (SIG.T.copy(),), dict(nperseg=9, nfft=12, scaling="spectrum", axis=0)),
    ("csd", (SIG, SIG[::-1]), dict(nperseg=8, detrend="linear", noverlap=3)),
    ("csd", (SIG[0], SIG[1, :30]), dict(nperseg=8, average="median", detrend=False)),
    ("detrend", (X2,), dict(bp=[1, 4], axis=0)),
    ("detrend", (I1,), {}),
    ("detrend", (C1,), {}),
]
DCTS = [
    ("dct", (X2,), dict(norm="ortho")),
    ("dct", (I1,), dict(n=7)),
    ("dct", (C1,), {}),
    ("dct", (np.array([np.nan, 1.0, np.inf, -0.0], np.float32),), {}),
    ("idct", (X2,), dict(axis=0, n=3)),
    ("idct", (np.ones(1, np.float32),), {}),
    ("idct", (C1,), dict(norm="ortho")),
    ("dctn", (X3,), dict(norm="ortho")),
    ("dctn", (X3,), dict(axes=1)),
    ("idctn", (X3,), dict(s=(2, 6))),
]
# values from JAX itself: a few of each family, and where JAX departs from SciPy
JAX_VALUES = [
    (signal, "correlate", (C1, CK), dict(mode="same")),
    (signal, "correlate2d", (K2 + 0.5j, X2[:3] - 1j), dict(mode="valid")),
    (signal, "fftconvolve", (np.ones(0, np.float32), K4), {}),  # (SciPy: empty)
    (signal, "welch", (np.zeros((2, 0), np.float32),), {}),
    (signal, "istft", (Z,), dict(nperseg=8)),  # JAX's times count the batch axis
    (fft, "idctn", (X3,), dict(s=[2, 2], axes=[0])),  # (SciPy wants as many axes as sizes)
]
THEIRS = {signal: jax_signal, fft: jax_fft}
SCIPY = {signal: scipy.signal, fft: scipy.fft}


def _call(module, name, args, kwargs, operands):
    """`module.name` with the NumPy arrays of `args` replaced by `operands` in turn."""
    given = iter(operands)
    full = [next(given) if isinstance(a, np.ndarray) else a for a in args]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return getattr(module, name)(*full, **kwargs)


def _operands(args):
    return [a for a in args if isinstance(a, np.ndarray)]


def _ours(module, name, args, kwargs):
    return _call(module, name, args, kwargs, [jnp.asarray(a) for a in _operands(args)])


@functools.cache
def _jax_types(module, table: str):
    """JAX's result types (dtype, weak type, shape) for the cases of `table` (a name
    of this module), in one trace."""
    cases = globals()[table]
    return jax.eval_shape(lambda ops: [_call(module, n, a, k, o) for (n, a, k), o in
                                       zip(cases, ops)],
                          [_operands(args) for _, args, _ in cases])


def _same(got, want, rtol=2e-5, atol=2e-5):
    """`got` (jaxwg) is `want` (JAX's): dtype, weak type, shape and values."""
    if isinstance(want, (tuple, list)):
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want):
            _same(g, w, rtol, atol)
        return
    assert isinstance(got, jaxwg.Array), type(got)
    assert (got.dtype, got.weak_type, got.shape) == (want.dtype, want.weak_type, want.shape)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=rtol, atol=atol,
                               equal_nan=True)


def _typed_as(got, types, values, rtol, atol):
    """`got` has JAX's `types` and SciPy's `values` (tuples alike)."""
    got, types, values = ((v,) if not isinstance(v, (tuple, list)) else v
                          for v in (got, types, values))
    assert len(got) == len(types) == len(values)
    for g, t, v in zip(got, types, values):
        assert (g.dtype, g.weak_type, g.shape) == (t.dtype, t.weak_type, t.shape), (g, t)
        np.testing.assert_allclose(np.asarray(g), v, rtol=rtol, atol=atol, equal_nan=True)


def _check_table(platform, module, table: str, on_gpu, rtol=1e-4, atol=2e-5):
    """Our results for `table`: JAX's types, SciPy's values; all cases on the CPU,
    those at `on_gpu` on WebGPU."""
    cases = globals()[table]
    types = _jax_types(THEIRS[module], table)
    for i in range(len(cases)) if platform == "cpu" else on_gpu:
        name, args, kwargs = cases[i]
        values = _call(SCIPY[module], name, args, kwargs, _operands(args))
        _typed_as(_ours(module, name, args, kwargs), types[i], values, rtol, atol)


def test_convolutions_match_jax(platform):
    _check_table(platform, signal, "CONVOLUTIONS", [3, 16])
    two, three = jax.numpy.asarray(2.0), jax.numpy.asarray(3.0)
    _same(signal.convolve(2.0, 3.0), jax_signal.convolve(two, three))  # weakly typed


def test_spectra_and_detrend_match_jax(platform):
    _check_table(platform, signal, "SPECTRA", [8], atol=1e-5)
    inverse = signal.istft(signal.stft(jnp.asarray(SIG), nperseg=8)[2])[1]
    np.testing.assert_allclose(np.asarray(inverse), SIG, atol=1e-5)


def test_dct_matches_jax(platform):
    _check_table(platform, fft, "DCTS", [7])
    if platform == "cpu":
        x = jnp.asarray(X3)
        np.testing.assert_allclose(np.asarray(fft.idctn(fft.dctn(x))), X3, atol=1e-5)


@functools.cache
def _jax_values():
    return jax.jit(lambda ops: [_call(THEIRS[m], n, a, k, o)
                                for (m, n, a, k), o in zip(JAX_VALUES, ops)])(
        [_operands(args) for _, _, args, _ in JAX_VALUES])


def test_values_are_jaxs(platform):
    """A few cases against JAX's values (one jit of JAX for all)."""
    theirs = _jax_values()
    for i in range(len(JAX_VALUES)) if platform == "cpu" else [4]:
        module, name, args, kwargs = JAX_VALUES[i]
        _same(_ours(module, name, args, kwargs), theirs[i], rtol=1e-4, atol=1e-5)


def test_trapezoid_matches_jax(platform):
    y = np.array([1, 2, 3, 2, 3, 2, 1], np.int32)
    x = np.array([0, 2, 5, 7, 10, 15, 20], np.float32)
    _same(integrate.trapezoid(jnp.asarray(y)), jax_integrate.trapezoid(y))
    _same(integrate.trapezoid(jnp.asarray(y), jnp.asarray(x)), jax_integrate.trapezoid(y, x))
    _same(integrate.trapezoid(jnp.asarray(X2), dx=0.5, axis=0),
          jax_integrate.trapezoid(X2, dx=0.5, axis=0))
    with pytest.raises(TypeError, match="trapezoid"):
        integrate.trapezoid([1.0, 2.0])


def test_jit_grad_and_vmap():
    """Under jit against SciPy's values; grad and vmap against JAX's (one jit of JAX)."""
    got = jaxwg.jit(lambda a: (*signal.welch(a, nperseg=8), signal.stft(a, nperseg=8)[2],
                               signal.correlate2d(a, a[:, :3], mode="same")))(jnp.asarray(SIG))
    want = (*scipy.signal.welch(SIG, nperseg=8), scipy.signal.stft(SIG, nperseg=8)[2],
            scipy.signal.correlate2d(SIG, SIG[:, :3], "same"))
    for g, w in zip(got, want, strict=True):
        assert g.dtype == (np.complex64 if w.dtype.kind == "c" else np.float32)
        np.testing.assert_allclose(np.asarray(g), w, rtol=1e-4, atol=1e-5)
    x, k = jnp.asarray(X1), jnp.asarray(K4)
    ours = (jaxwg.grad(lambda a: signal.fftconvolve(a, k).sum() ** 2)(x),
            jaxwg.grad(lambda a: fft.dct(a, norm="ortho")[1])(x),
            jaxwg.vmap(lambda a: signal.correlate(a, k, mode="same"))(jnp.asarray(X2)))
    theirs = jax.jit(lambda a, b, c: (
        jax.grad(lambda a: jax_signal.fftconvolve(a, b).sum() ** 2)(a),
        jax.grad(lambda a: jax_fft.dct(a, norm="ortho")[1])(a),
        jax.vmap(lambda r: jax_signal.correlate(r, b, mode="same"))(c)))(X1, K4, X2)
    _same(ours, theirs, rtol=1e-4, atol=1e-5)


@settings(max_examples=12, deadline=None)
@given(st.integers(1, 6), st.integers(1, 6), st.sampled_from(["full", "same", "valid"]),
       st.sampled_from(["convolve", "correlate"]), st.sampled_from(["direct", "fft"]))
def test_1d_convolutions_of_any_lengths_match_scipy(n, m, mode, name, method):
    """Values against SciPy, whose semantics JAX's follow (JAX for each would compile)."""
    a = np.arange(1, n + 1, dtype=np.float32) * 0.5
    b = np.arange(m, 0, -1, dtype=np.float32) - 1.5
    got = getattr(signal, name)(jnp.asarray(a), jnp.asarray(b), mode=mode, method=method)
    want = getattr(scipy.signal, name)(a, b, mode=mode, method="direct")
    assert got.dtype == np.float32
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5, atol=1e-5)


# JAX's messages where JAX only fails after computing (a literal beats seconds of JAX)
COMPUTED_ERRORS = [
    (lambda s, j: s.welch(j.ones(16), nperseg=4, average="x"), ValueError,
     'average must be "median" or "mean", got x'),
]
ERRORS = [
    lambda s, j: s.convolve(j.ones(3), j.ones(2), mode="x"),
    lambda s, j: s.convolve(j.ones(3), j.ones(2), method="x"),
    lambda s, j: s.convolve(j.ones(3), j.ones((1, 2))),
    lambda s, j: s.convolve(j.ones((2, 3)), j.ones((3, 2))),
    lambda s, j: s.convolve(j.ones(0), j.ones(2)),
    lambda s, j: s.correlate(j.ones(3), j.ones(2), method="fft", mode="x"),
    lambda s, j: s.fftconvolve(j.ones(3), j.ones((2, 2))),
    lambda s, j: s.fftconvolve(j.ones((2, 3)), j.ones((3, 2)), mode="valid"),
    lambda s, j: s.fftconvolve(j.ones((2, 3)), j.ones((3, 2)), axes=1),
    lambda s, j: s.fftconvolve([1.0, 2.0], [1.0]),
    lambda s, j: (fft if s is signal else jax_fft).dct([1.0, 2.0]),
    lambda s, j: s.convolve2d(j.ones(3), j.ones(2)),
    lambda s, j: s.convolve2d(j.ones((3, 3)), j.ones((2, 2)), boundary="wrap"),
    lambda s, j: s.correlate2d(j.ones((3, 3)), j.ones((2, 2)), fillvalue=1),
    lambda s, j: s.detrend(j.ones(3), type="x"),
    lambda s, j: s.detrend(j.ones(5), bp=[7]),
    lambda s, j: s.detrend(j.ones(5), overwrite_data=True),
    lambda s, j: s.stft(j.ones(16), nperseg=0),
    lambda s, j: s.stft(j.ones(16), nperseg=8, boundary="x"),
    lambda s, j: s.stft(j.ones(16), nperseg=8, noverlap=8),
    lambda s, j: s.stft(j.ones(16), nperseg=8, nfft=4),
    lambda s, j: s.stft(j.ones(16), window=j.ones((2, 2))),
    lambda s, j: s.stft(j.ones(16), window=j.ones(4), nperseg=3),
    lambda s, j: s.stft(j.ones(3), window=j.ones(4)),
    lambda s, j: s.csd(j.ones((3, 16)), j.ones((2, 16)), nperseg=4),
    lambda s, j: s.istft(j.ones(4)),
    lambda s, j: s.istft(j.ones((3, 4)), time_axis=0, freq_axis=-2),
    lambda s, j: s.istft(j.ones((3, 4)), nperseg=4, nfft=3),
    lambda s, j: s.istft(j.ones((3, 4)), noverlap=4),
    lambda s, j: s.istft(j.ones((3, 4)), window=j.ones(3)),
]
# where JAX's words are not worth copying: its message that forgot to be an f-string
# ("({x.ndim} vs {y.ndim})")
ERRORS_OF_TYPE = [
    lambda s, j: s.csd(j.ones(16), j.ones((2, 16)), nperseg=4),
]
DCT_ERRORS = [(name, np.ones(4, np.float32), kwargs) for name in ("dct", "idct", "dctn", "idctn")
              for kwargs in (dict(type=3), dict(norm="forward"))]
DCT_ERRORS += [(name, np.float32(3.0), {}) for name in ("dct", "idct")]  # no axis -1
DCT_ERRORS += [(name, np.ones((2, 2), np.float32), kwargs) for name in ("dctn", "idctn")
               for kwargs in (dict(axes=(0, -2)), dict(axes=(0, 2)), dict(s=(1, 2, 3)))]


def test_errors_match_jax():
    for call in ERRORS:
        with pytest.raises(Exception) as theirs:
            call(jax_signal, np)
        with pytest.raises(type(theirs.value)) as ours:
            call(signal, np)
        assert str(ours.value) == str(theirs.value), call
    for call in ERRORS_OF_TYPE:
        with pytest.raises(Exception) as theirs:
            call(jax_signal, np)
        with pytest.raises(type(theirs.value)):
            call(signal, np)
    for call, error, message in COMPUTED_ERRORS:
        with pytest.raises(error) as ours:
            call(signal, np)
        assert str(ours.value) == message
    for name, x, kwargs in DCT_ERRORS:
        with pytest.raises(Exception) as theirs:
            getattr(jax_fft, name)(x, **kwargs)
        with pytest.raises(type(theirs.value)) as ours:
            getattr(fft, name)(jnp.asarray(x) if isinstance(x, np.ndarray) else x, **kwargs)
        assert str(ours.value) == str(theirs.value), (name, kwargs)
