"""Angle conversions, fabs, float_power, isposinf/isneginf, gcd/lcm, bitwise_count,
sort_complex, packbits/unpackbits (more_math.py), unwrap and the window functions
(signal.py), polydiv and polyfit (polynomials.py) against JAX: dtypes, weak types,
shapes, values, special values and errors.

JAX's result types (dtype, weak type, shape) and exceptions come from `jax.eval_shape`,
which traces JAX's function without compiling it; the values from NumPy's function of
the same name, whose formulas JAX implements (where they differ, as polydiv's trimmed
remainder, the case says how). Compiling JAX's functions (XLA on the CPU) for every case
would take most of a minute, beyond this file's share of the CI budget.
"""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import jaxwg
import jaxwg.numpy as jnp

from .helpers import jax, jax_numpy

SPECIAL = np.array([0.0, -0.0, 1.5, -2.0, np.inf, -np.inf, np.nan, 1e30, -1e-30, 180.0],
                   np.float32)


def _leaves(x):
    return list(x) if isinstance(x, (tuple, list)) else [x]


def _same(got, types, values, rtol=2e-6, atol=0.0):
    """`got` (one result or a tuple) has JAX's `types` (dtype, weak type, shape) and
    `values` (cast to those dtypes) within rtol and atol, signs of zeros included."""
    got, types, values = _leaves(got), _leaves(types), _leaves(values)
    assert len(got) == len(types) == len(values)
    for g, t, v in zip(got, types, values):
        assert (g.dtype, g.shape, g.weak_type) == (t.dtype, t.shape, t.weak_type), (
            (g.dtype, g.shape, g.weak_type), (t.dtype, t.shape, t.weak_type))
        with np.errstate(over="ignore"):  # float64 values past float32's range: inf
            g, v = np.asarray(g), np.asarray(v).astype(t.dtype)
        if g.dtype.kind not in "fc":
            np.testing.assert_array_equal(g, v)
            continue
        np.testing.assert_allclose(g, v, rtol=rtol, atol=atol, equal_nan=True)
        if g.dtype.kind == "f" and atol == 0:
            signed = ~np.isnan(v)
            assert np.array_equal(np.signbit(g[signed]), np.signbit(v[signed]))


def case(fn, *args, rtol=2e-6, atol=0.0):
    """fn(module, *args) checked against JAX's types and NumPy's values."""
    return fn, args, rtol, atol


def _converted(args):
    return [jnp.asarray(a) if isinstance(a, np.ndarray) else a for a in args]


def _jax_types(fn, args):
    return jax.eval_shape(lambda *a: fn(jax_numpy, *a), *args)


def check(cases, run=None, device_cases: int = 2):
    """Each case through jaxwg.numpy as JAX's: all of them eagerly on the CPU, the first
    `device_cases` jitted and on WebGPU (each new shape and dtype compiles kernels there,
    the most time of this file)."""
    jit = run is not None and run.mode == "jit"
    if run is not None and (jit or run.platform == "webgpu"):
        cases = cases[:device_cases]
    for fn, args, rtol, atol in cases:
        def ours(*a):
            return fn(jnp, *a)

        got = (jaxwg.jit(ours) if jit else ours)(*_converted(args))
        with np.errstate(all="ignore"):  # NumPy warns of the special values it computes
            want = fn(np, *args)
        _same(got, _jax_types(fn, args), want, rtol, atol)


INTS = np.array([-3, 0, 7, 2 ** 31 - 1, -2 ** 31], np.int32)
COMPLEX = np.array([180 + 90j, -1j, np.nan + 1j, -np.inf], np.complex64)

DEVICE_ELEMENTWISE = [
    case(lambda m, x: (m.deg2rad(x), m.rad2deg(x), m.fabs(x), m.isposinf(x), m.isneginf(x)),
         SPECIAL),
    case(lambda m, x, y: m.float_power(x, y), SPECIAL[:, None], SPECIAL[None, :], rtol=1e-5),
    case(lambda m, x: (m.bitwise_count(x), m.sort_complex(x)), INTS),
    case(lambda m, x: m.sort_complex(x), np.stack([COMPLEX, COMPLEX[::-1].conj()])),
]
ELEMENTWISE = DEVICE_ELEMENTWISE + [
    *(case(lambda m, x, name=name: getattr(m, name)(x), x)
      for name in ["deg2rad", "rad2deg", "radians", "degrees", "fabs", "isposinf", "isneginf"]
      for x in [SPECIAL, INTS[:3], 3, 2.5]),
    # NumPy converts bools to float16 (JAX to float32): its values round to float16's
    *(case(lambda m, x, name=name: getattr(m, name)(x), np.array([True, False]), rtol=1e-3)
      for name in ["deg2rad", "rad2deg", "fabs", "isposinf"]),
    case(lambda m, x: m.deg2rad(x), np.array([180, -0.0, np.inf], np.float16), rtol=1e-3),
    case(lambda m, x: m.fabs(x), np.array([-3, -0.0, np.nan], np.float16)),
    case(lambda m, x: m.isneginf(x), np.array([-np.inf, 1], np.float16)),
    # NumPy has no complex deg2rad: JAX's definition, a product with the constant
    case(lambda m, x: m.deg2rad(x) if m is not np else x * np.float32(np.pi / 180), COMPLEX),
    case(lambda m, x: m.rad2deg(x) if m is not np else x * np.float32(180 / np.pi), COMPLEX),
    case(lambda m, x, y: m.float_power(x, y), INTS[:3], np.float32(-1)),
    case(lambda m, x, y: m.float_power(x, y), 2, 3),
    case(lambda m, x: m.bitwise_count(x), np.array([-1, -128, 7, 0, 127], np.int8)),
    case(lambda m, x: m.bitwise_count(x), 5),
    case(lambda m, x: m.sort_complex(x), np.array([3, -1, 2], np.float16)),
    case(lambda m, x: m.sort_complex(x), np.array([True, False])),
]


def test_elementwise_functions_match_jax(run):
    check(ELEMENTWISE, run, device_cases=len(DEVICE_ELEMENTWISE))


# -2**31: JAX's loop never ends (abs leaves it negative); NumPy's value, JAX's type
GCD_A = np.array([-12, 2 ** 30, 0, -7, 1836311903, -2 ** 31, 255], np.int32)
GCD_B = np.array([[18], [-3 * 2 ** 29], [1134903170]], np.int32)  # Fibonacci: the most steps
INTEGERS = [
    case(lambda m, a, b: (m.gcd(a, b), m.lcm(a, b)), a, b)
    for a, b in [(GCD_A, GCD_B), (GCD_A.astype(np.uint8), GCD_A[::-1].astype(np.uint8)),
                 (np.array([4, 6, -8], np.int8), np.int8(6)), (12, 18)]
]


def test_gcd_and_lcm_match_jax(run):
    check(INTEGERS, run, device_cases=1)


@settings(max_examples=6, deadline=None)
@given(st.lists(st.integers(-10 ** 4, 10 ** 4), min_size=4, max_size=4),
       st.lists(st.integers(-10 ** 4, 10 ** 4), min_size=4, max_size=4))
def test_gcd_and_lcm_of_any_integers_match_jax(xs, ys):
    a, b = np.array(xs, np.int32), np.array(ys, np.int32)
    check([case(lambda m, a, b: (m.gcd(a, b), m.lcm(a, b)), a, b)])


BITS = np.random.default_rng(0).integers(0, 2, (3, 17, 2)).astype(np.int32)
BYTES = np.random.default_rng(0).integers(0, 256, (3, 2, 4)).astype(np.uint8)
PACKING = [
    case(lambda m, x: m.packbits(x), BITS),
    case(lambda m, x: m.packbits(x, axis=1), BITS),
    case(lambda m, x: m.packbits(x, axis=-1, bitorder="little"), BITS[0]),
    case(lambda m, x: m.packbits(x), np.array([True, False])),
    case(lambda m, x: m.packbits(x), np.array(1)),
    case(lambda m, x: m.packbits(x), np.zeros((0,), np.int32)),
    case(lambda m, x: m.packbits(x), np.array([2, -1, 0, 7], np.int8)),
    case(lambda m, x: m.unpackbits(x), BYTES),
    case(lambda m, x: m.unpackbits(x), np.uint8(5)),
    case(lambda m, x: m.unpackbits(x, axis=1, count=13), BYTES),
    case(lambda m, x: m.unpackbits(x, axis=0, count=-3, bitorder="little"), BYTES),
    case(lambda m, x: m.unpackbits(x, count=-20), BYTES[0, 0]),
    case(lambda m, x: m.unpackbits(x, count=0), BYTES[0, 0]),
    case(lambda m, x: m.unpackbits(x, axis=1), np.zeros((2, 0), np.uint8)),
]


def test_packbits_and_unpackbits_match_jax(run):
    check(PACKING, run)


PHASES = np.array([0.0, 3.0, 6.5, 1.0, -2.0, 9.0, 9.0, -9.0], np.float32)
SEQUENCES = [
    case(lambda m, p: (m.unwrap(p), m.kaiser(8, 14.0), m.hanning(8)), PHASES, rtol=1e-5,
         atol=1e-6),
    case(lambda m, p: m.unwrap(p, discont=1.0), PHASES),
    case(lambda m, p: m.unwrap(p, discont=10.0), PHASES),
    case(lambda m, p: m.unwrap(p, axis=0, period=4.0), PHASES.reshape(2, 4)),
    case(lambda m, p: m.unwrap(p, period=360), np.array([0, 300, 700, 100, 180, 0, -180])),
    case(lambda m, p: m.unwrap(p), np.array([0, 3, 7, 1], np.int32)),
    case(lambda m, p: m.unwrap(p), np.array([1.0, np.nan, 9.0, np.inf, 2.0], np.float32)),
    case(lambda m, p: m.unwrap(p), np.array([1.0, 9.0, -5.0], np.float16), rtol=1e-3),
    case(lambda m, p: m.unwrap(p), np.zeros((2, 0), np.float32)),
    case(lambda m, p: m.unwrap(p), np.array([2.5], np.float32)),
    # float32 cosines of arguments up to 2 pi are within an ulp or two of 1
    *(case(lambda m, name=name, M=M: getattr(m, name)(M), atol=1e-6)
      for name in ["bartlett", "blackman", "hamming", "hanning"] for M in [0, 1, 16]),
    *(case(lambda m, b, M=M: m.kaiser(M, b), beta, rtol=1e-5)
      for M, beta in [(1, 2.0), (4, 2), (6, np.float32(0.5))]),
]


def test_unwrap_and_windows_match_jax(run):
    check(SEQUENCES, run, device_cases=1)
    if run.mode == "eager":
        # JAX truncates M, as int() does (NumPy would make 6 points)
        check([case(lambda m: m.hanning(5.7) if m is not np else np.hanning(5))])


U = np.random.default_rng(1).standard_normal(9).astype(np.float32)


def _padded_polydiv(m, u, v):
    """polydiv's quotient and remainder, the remainder padded in front to u's length
    (NumPy drops its leading zeros)."""
    q, r = m.polydiv(u, v)
    return q, r if m is not np else np.pad(r, (len(u) - len(r), 0))


DIVISIONS = [
    case(_padded_polydiv, U, np.array([0.5, -1, 2], np.float32), rtol=1e-5, atol=1e-5),
    case(_padded_polydiv, np.array([1, 2, 3, 4]), np.array([2, 1])),
    case(_padded_polydiv, U[:2], U[:4]),
    case(_padded_polydiv, np.array([1j, 2], np.complex64), U[:2], rtol=1e-5),
    # v[0] == 0: infinite and NaN coefficients; -0.0 kept where nothing is subtracted
    case(_padded_polydiv, np.array([-0.0, 1, 2, 3], np.float32), np.array([0, 1], np.float32)),
    # deg u < deg v: a zero quotient and u (NumPy's can't take an empty u)
    case(lambda m, u, v: m.polydiv(u, v) if m is not np else (np.zeros(1), u), U[:0], U[:1]),
]


def _trimmed_polydiv(m, u, v):
    """polydiv with trim_leading_zeros: JAX drops the remainder's leading coefficients
    below sqrt(eps) (NumPy's near 0, but never the last one)."""
    if m is not np:
        return m.polydiv(u, v, trim_leading_zeros=True)
    q, r = np.polydiv(u, v)
    return q, r[:0] if abs(r).max() < np.sqrt(np.finfo(np.float32).eps) else r


def test_polydiv_matches_jax(run):
    check(DIVISIONS, run, device_cases=1)
    if run.mode == "eager":  # trimming needs concrete values (JAX's types: untrimmed ones)
        u = np.array([1.0, 3.0, 2.0], np.float32)
        for v in (U[:2], np.ones(2, np.float32)):
            want = _trimmed_polydiv(np, u, v)
            types = [jax.ShapeDtypeStruct(w.shape, t.dtype, weak_type=t.weak_type)
                     for w, t in zip(want, _jax_types(lambda m, u, v: m.polydiv(u, v), (u, v)))]
            _same(_trimmed_polydiv(jnp, jnp.asarray(u), jnp.asarray(v)), types, want, 1e-5)


X = np.linspace(0, 1, 6).astype(np.float32)
Y = (X ** 2 + 0.1 * np.sin(9 * X)).astype(np.float32)


@pytest.mark.slow
def test_polyfit_matches_jax():
    # NumPy fits in float64, jaxwg's SVD in float32: a few ulp times the condition number.
    # One lstsq shape, on the CPU only, in the slow job: jaxwg's SVD takes seconds to
    # trace and half a second a call (linalg's tests cover it on WebGPU).
    check([case(lambda m, x, y: m.polyfit(x, y, 2, full=True), X, Y, rtol=1e-4, atol=1e-5),
           case(lambda m, x, y, w: m.polyfit(x, y, 2, w=w, cov=True), X,
                np.stack([Y, 2 * Y], 1), X + 1, rtol=1e-4, atol=1e-5)])


def test_transforms_match_jax():
    # unwrap's correction is piecewise constant: d sum(unwrap(p)^2) = 2 unwrap(p)
    grad = jaxwg.grad(lambda p: (jnp.unwrap(p) ** 2).sum())(jnp.asarray(PHASES))
    _same(grad, _jax_types(lambda m, p: m.unwrap(p), (PHASES,)), 2 * np.unwrap(PHASES))
    h = 1e-4  # central differences of NumPy's float64 window
    slope = (np.kaiser(5, 2.0 + h) - np.kaiser(5, 2.0 - h)).sum() / (2 * h)
    _same(jaxwg.grad(lambda b: jnp.kaiser(5, b).sum())(np.float32(2)),
          jax.eval_shape(jax.grad(lambda b: jax_numpy.kaiser(5, b).sum()), np.float32(2)), slope,
          rtol=1e-4)
    x = np.float32(-3)  # (jaxwg.grad of a weakly typed input is strongly typed; JAX's weak)
    _same(jaxwg.grad(lambda x: jnp.deg2rad(x) * jnp.fabs(x))(x),
          jax.eval_shape(jax.grad(lambda x: jax_numpy.deg2rad(x) * jax_numpy.fabs(x)), x),
          np.float32(6 * np.pi / 180))
    a = np.array([[12, 7], [9, 0]], np.int32)
    _same(jaxwg.vmap(jnp.gcd)(jnp.asarray(a), jnp.asarray(a[::-1])),
          jax.eval_shape(jax.vmap(jax_numpy.gcd), a, a[::-1]), np.gcd(a, a[::-1]))


ERRORS = [
    ("fabs", lambda m: m.fabs(1j)), ("isposinf", lambda m: m.isposinf(1j)),
    ("isneginf", lambda m: m.isneginf([1.0])),
    ("isposinf", lambda m: m.isposinf(1.0, out=np.zeros(1))),
    ("deg2rad", lambda m: m.deg2rad([1.0])), ("gcd", lambda m: m.gcd(1.0, 2)),
    ("lcm", lambda m: m.lcm(True, True)), ("bitwise_count", lambda m: m.bitwise_count(1.0)),
    ("sort_complex", lambda m: m.sort_complex(1.0)),
    ("unwrap", lambda m: m.unwrap(m.array([1j]))), ("unwrap", lambda m: m.unwrap(1.0)),
    ("packbits", lambda m: m.packbits(m.array([1.0]))),
    ("packbits", lambda m: m.packbits(m.array([1]), bitorder="x")),
    ("packbits", lambda m: m.packbits(m.array(1), axis=0)),
    ("packbits", lambda m: m.packbits(m.zeros(2, np.int32), axis=1)),
    ("unpackbits", lambda m: m.unpackbits(m.array([5], np.int32))),
    ("unpackbits", lambda m: m.unpackbits(m.array([5], np.uint8), bitorder="q")),
    ("bartlett", lambda m: m.bartlett(-1)), ("polydiv", lambda m: m.polydiv(1.0, 2.0)),
    ("polydiv", lambda m: m.polydiv(m.ones((2, 2)), m.ones(2))),
    ("polyfit", lambda m: m.polyfit(m.arange(4), m.arange(4), 2)),
    ("polyfit", lambda m: m.polyfit(m.asarray(X), m.asarray(Y), -1)),
    ("polyfit", lambda m: m.polyfit(m.ones((2, 2)), m.asarray(Y), 1)),
    ("polyfit", lambda m: m.polyfit(m.asarray(X[:0]), m.asarray(Y[:0]), 1)),
    ("polyfit", lambda m: m.polyfit(m.asarray(X), m.ones((6, 1, 1)), 1)),
    ("polyfit", lambda m: m.polyfit(m.asarray(X), m.asarray(Y[:3]), 1)),
    ("polyfit", lambda m: m.polyfit(m.asarray(X), m.asarray(Y), 1, w=m.asarray(X[:2]))),
    ("polyfit", lambda m: m.polyfit(m.asarray(X), m.asarray(Y), 1, w=m.ones((6, 1)))),
    ("polyfit", lambda m: m.polyfit(m.asarray(X[:2]), m.asarray(Y[:2]), 1, cov=True)),
]


def test_errors_match_jax():
    for name, fn in ERRORS:
        with pytest.raises(Exception) as want:
            jax.eval_shape(lambda: fn(jax_numpy))
        with pytest.raises(want.type, match=name):
            fn(jnp)
    # values that decide shapes must be concrete, as in JAX
    for fn in (lambda m: jnp.hanning(m), lambda m: jnp.polydiv(jnp.ones(3) * m, jnp.ones(2),
                                                                trim_leading_zeros=True)):
        with pytest.raises(jaxwg.errors.ConcretizationTypeError):
            jaxwg.jit(fn)(3)
