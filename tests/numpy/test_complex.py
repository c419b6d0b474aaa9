"""complex64 arrays against JAX: arithmetic and the complex elementwise functions (held
to a bound relative to each result's modulus), their special values, promotion,
movement, reductions and products, the lexicographic order (`maximum`, `less`, `max`,
`cummax`, scatter maxima), `.at[]` updates, gradients and `vmap`, the jaxpr printout,
and JAX's errors for operations without complex numbers."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import jaxwg
import jaxwg.numpy as jnp
from jaxwg import lax

from .helpers import jax, jax_dtype, jax_numpy

EPS = float(np.finfo(np.float32).eps)


def complex_arrays(max_magnitude=1e3, max_side=5):
    # No subnormal parts: XLA's CPU backend (the oracle) and GPUs flush them to zero.
    parts = st.floats(-max_magnitude, max_magnitude, width=32, allow_subnormal=False)
    values = st.builds(complex, parts, parts)
    return hnp.arrays(np.complex64, hnp.array_shapes(min_dims=0, max_dims=3, max_side=max_side), elements=values)


def assert_close(actual, expected, rtol):
    """|actual - expected| <= rtol * |expected| elementwise (the modulus: a part that is
    tiny next to the other is held to the value's scale), NaNs in the same places."""
    actual, expected = np.asarray(actual), np.asarray(expected)
    assert actual.dtype == expected.dtype and actual.shape == expected.shape
    nan = np.isnan(expected)
    np.testing.assert_array_equal(np.isnan(actual), nan)
    a, e = actual[~nan].astype(np.complex128), expected[~nan].astype(np.complex128)
    scale = np.abs(e) + 2 * float(np.finfo(np.float32).tiny)
    np.testing.assert_array_less(np.abs(a - e), rtol * scale + 1e-37)


# Arithmetic rounds a few times (Smith's division: about 6 operations a part); the
# transcendental ones compose two real functions of a few ulp each and a product.
ARITHMETIC = {"add": 2 * EPS, "subtract": 2 * EPS, "multiply": 4 * EPS, "divide": 16 * EPS}
TRANSCENDENTAL = ["exp", "expm1", "log", "log1p", "sqrt", "sin", "cos", "tan", "sinh", "cosh",
                  "tanh", "reciprocal", "square", "sign", "arcsin", "arccos", "arctan", "arcsinh",
                  "arccosh", "arctanh"]
# Where each function has a pole or a logarithmic branch point: inputs stay 1e-2 away.
SINGULAR = {"log": [0], "reciprocal": [0], "sign": [0], "log1p": [-1], "arctanh": [1, -1],
            "arctan": [1j, -1j]}


@pytest.mark.parametrize("name", sorted(ARITHMETIC))
@given(data=st.data())
def test_arithmetic_matches_jax(run, name, data):
    x = data.draw(complex_arrays())
    part = st.floats(-1e3, 1e3, width=32, allow_subnormal=False)
    y = data.draw(hnp.arrays(np.complex64, x.shape, elements=st.builds(complex, part, part)))
    if name == "divide":
        y = np.where(np.abs(y) < 1e-3, np.complex64(1 + 1j), y)
    expected = getattr(jax_numpy, name)(x, y)
    actual = run(lambda a, b: getattr(jnp, name)(a, b), jnp.asarray(x), jnp.asarray(y))
    # Sums cancel: their error is relative to the operands, not to the result.
    rtol = ARITHMETIC[name]
    if name in ("add", "subtract"):
        np.testing.assert_allclose(np.asarray(actual), np.asarray(expected), rtol=0,
                                   atol=rtol * max(1.0, float(np.abs(x).max(initial=0) + np.abs(y).max(initial=0))))
    else:
        assert_close(actual, expected, rtol)


@pytest.mark.slow_on_cpu
@pytest.mark.parametrize("name", TRANSCENDENTAL)
@settings(max_examples=12)  # 20 functions, eagerly and jitted: 60 s of the suite at 25
@given(x=complex_arrays(max_magnitude=4))
def test_functions_match_numpy(run, name, x):
    for point in SINGULAR.get(name, []):
        x = np.where(np.abs(x - point) < 1e-2, np.complex64(0.5 + 0.5j), x)
    actual = run(getattr(jnp, name), jnp.asarray(x))
    assert np.asarray(actual).dtype == jax_dtype(getattr(jax_numpy, name), x)
    # Against NumPy in complex128: JAX's own sinh loses digits near 0 (exp(z) - exp(-z)).
    # The real functions underneath are held to about 4 ulp on every adapter
    # (test_elementwise); three of them and their products make 32 eps of the modulus.
    expected = _reference(name, x.astype(np.complex128)).astype(np.complex64)
    assert_close(actual, expected, 32 * EPS)


def _reference(name: str, z: np.ndarray) -> np.ndarray:
    """`name` in complex128; NumPy's complex log1p is log(1 + z), which loses the
    digits of a small z, so it is taken from |1 + z|^2 = 1 + (2a + a^2 + b^2)."""
    if name != "log1p":
        return getattr(np, name)(z)
    a, b = z.real, z.imag
    return 0.5 * np.log1p(a * (2 + a) + b * b) + 1j * np.arctan2(b, 1 + a)


@given(x=complex_arrays())
def test_parts_match_jax(run, x):
    for name in ("real", "imag", "conj", "abs", "angle"):
        expected = np.asarray(getattr(jax_numpy, name)(x))
        actual = np.asarray(run(getattr(jnp, name), jnp.asarray(x)))
        assert actual.dtype == expected.dtype
        np.testing.assert_allclose(actual, expected, rtol=4 * EPS, atol=1e-37)


SPECIALS = np.array([0j, -0.0 + 0j, 1 + 4j, 1 + 0j, complex(math.inf, 0), complex(-math.inf, 1),
                     complex(math.inf, math.inf), complex(1, math.nan), complex(math.nan, 0),
                     complex(0, math.inf), complex(3e38, 3e38), complex(1e-30, 1e-30)], np.complex64)
# Products whose parts overflow to inf - inf are NaN, or -inf where XLA's CPU backend
# contracts a * b - c * d into one FMA: neither answer holds, so they are left out.
OVERFLOWING = np.abs(SPECIALS.real) > 1e37


@pytest.mark.parametrize("name", ["multiply", "divide", "abs", "exp", "log", "sign", "isnan", "isinf",
                                  "isfinite", "equal"])
def test_special_values_match_jax(platform, name):
    fn = getattr(jnp, name)
    theirs = getattr(jax_numpy, name)
    if name in ("multiply", "divide", "equal"):
        x, y = np.meshgrid(SPECIALS, SPECIALS)
        if name == "multiply":
            keep = ~(OVERFLOWING[None, :] & OVERFLOWING[:, None])
            x, y = x[keep], y[keep]
        expected, actual = theirs(x, y), fn(jnp.asarray(x), jnp.asarray(y))
    else:
        expected, actual = theirs(SPECIALS), fn(jnp.asarray(SPECIALS))
    expected, actual = np.asarray(expected), np.asarray(actual)
    assert actual.dtype == expected.dtype
    np.testing.assert_allclose(actual, expected, rtol=16 * EPS)


# Every pair of these parts: C99's special values (Annex G, which the Array API takes).
C99_PARTS = [0.0, -0.0, 1.0, -2.0, 0.5, math.inf, -math.inf, math.nan]
C99_GRID = np.array([complex(a, b) for a in C99_PARTS for b in C99_PARTS], np.complex64)


@pytest.mark.parametrize("name", [n for n in TRANSCENDENTAL if n not in ("reciprocal", "square", "sign")])
def test_special_values_follow_c99(platform, name):
    # NumPy's complex128 functions follow C99 here (JAX's differ at a few points, e.g.
    # exp(-inf + inf i) is NaN + NaN i there, 0 in C99), except expm1, whose special
    # values the Array API defines as exp(z) - 1's.
    z = C99_GRID.astype(np.complex128)
    with np.errstate(all="ignore"):
        expected = np.exp(z) - 1 if name == "expm1" else getattr(np, name)(z)
    expected = expected.astype(np.complex64)
    actual = np.asarray(getattr(jnp, name)(jnp.asarray(C99_GRID)))
    # NaNs and infinities where C99 puts them (the sign of an infinity beside a NaN is
    # unspecified); finite parts within 32 eps of the modulus (test_functions_match_numpy's
    # bound).
    for part, other in (("real", "imag"), ("imag", "real")):
        a, e = getattr(actual, part), getattr(expected, part)
        np.testing.assert_array_equal(np.isnan(a), np.isnan(e), err_msg=f"{name} {part}")
        signed = np.isinf(e) & ~np.isnan(getattr(expected, other))
        np.testing.assert_array_equal(np.isinf(a), np.isinf(e), err_msg=f"{name} {part}")
        np.testing.assert_array_equal(a[signed], e[signed], err_msg=f"{name} {part}")
        finite = np.isfinite(e)
        scale = np.hypot(*(np.nan_to_num(p.astype(np.float64), posinf=0, neginf=0)
                           for p in (expected.real, expected.imag)))
        bound = 32 * EPS * (scale[finite] + 1)
        np.testing.assert_array_less(np.abs(a[finite] - e[finite]), bound, err_msg=f"{name} {part}")


@pytest.mark.parametrize("name", ["exp", "expm1", "sinh", "cosh", "sin", "cos"])
def test_products_with_an_overflowing_exponential_stay_finite(platform, name):
    # exp(a) overflows float32 past a = 88.7, exp(a) cos(b) need not: each part within
    # 32 eps of NumPy's complex128 (rounded to complex64) where finite, inf where inf.
    z = np.array([complex(a, b) for a in (100, -80, 88.5, 89.5, 95) for b in (1e-30, 1.5707964, 0.5, 3.0)],
                 np.complex64)
    if name in ("sin", "cos"):  # their large imaginary parts
        z = (z * 1j).astype(np.complex64)
    with np.errstate(all="ignore"):
        wide = z.astype(np.complex128)
        expected = (np.exp(wide) - 1 if name == "expm1" else getattr(np, name)(wide)).astype(np.complex64)
    actual = np.asarray(getattr(jnp, name)(jnp.asarray(z)))
    for part in ("real", "imag"):
        a, e = getattr(actual, part), getattr(expected, part)
        np.testing.assert_array_equal(np.isinf(a), np.isinf(e), err_msg=f"{name} {part}")
        finite = np.isfinite(e)
        np.testing.assert_allclose(a[finite], e[finite], rtol=32 * EPS, err_msg=f"{name} {part}")


def test_logarithms_to_other_bases_match_jax(platform):
    z = np.array([0j, complex(0, math.inf), 1 + 2j, -3 + 0j, complex(-math.inf, 1)], np.complex64)
    for name in ("log10", "log2"):
        np.testing.assert_allclose(np.asarray(getattr(jnp, name)(jnp.asarray(z))),
                                   np.asarray(getattr(jax_numpy, name)(z)), rtol=4 * EPS)


def test_promotion_matches_jax():
    cases = [(jnp.ones(2, jnp.float32), 1j), (jnp.ones(2, jnp.int32), 2j), (jnp.ones(2, jnp.float16), 1j),
             (jnp.ones(2, jnp.complex64), 2.0), (jnp.ones(2, jnp.complex64), jnp.ones(2, jnp.float32))]
    for a, b in cases:
        ours = a * b
        theirs = jax_numpy.asarray(np.asarray(a)) * (np.asarray(b) if hasattr(b, "shape") else b)
        assert ours.dtype == theirs.dtype and ours.weak_type == theirs.weak_type
    assert (1j * jnp.ones(2)).dtype == np.complex64
    assert jnp.asarray(1 + 2j).weak_type and jnp.complex64(1).dtype == np.complex64


@given(x=complex_arrays(max_side=4))
def test_movement_and_reductions_match_numpy(run, x):
    if x.ndim == 0:
        x = x.reshape(1)

    def program(m, v):
        t = m.swapaxes(v, 0, -1)[::-1]
        stacked = m.concatenate([t, m.conj(t)], axis=0)
        return m.sum(stacked, axis=0), m.mean(v), m.cumsum(v, axis=0), m.where(m.real(v) > 0, v, 2j)

    expected = program(np, x)
    actual = run(lambda v: program(jnp, v), jnp.asarray(x))
    scale = float(np.abs(x).sum()) + 1
    for a, e in zip(actual, expected):
        np.testing.assert_allclose(np.asarray(a), np.asarray(e).astype(np.complex64), rtol=0, atol=8 * EPS * scale)


@given(x=complex_arrays(max_magnitude=2, max_side=6))
def test_products_over_axes_match_numpy(run, x):
    axis = None if x.ndim == 0 else -1
    expected = np.prod(x.astype(np.complex128), axis=axis)
    actual = run(lambda v: jnp.prod(v, axis=axis), jnp.asarray(x))
    # n - 1 complex products, each within 4 eps of its modulus.
    n = x.shape[-1] if x.ndim else 1
    assert_close(actual, expected.astype(np.complex64), 4 * EPS * n + 2 * EPS)


def test_large_sum_is_accurate(platform):
    # 2^22 values of modulus about 1: a float32 tree sum's error is about
    # sqrt(log2 n) eps relative to the sum of magnitudes; 64 eps is well above that.
    rng = np.random.default_rng(0)
    x = (rng.standard_normal(1 << 22) + 1j * rng.standard_normal(1 << 22)).astype(np.complex64)
    total = complex(jnp.sum(jnp.asarray(x)))
    exact = complex(x.astype(np.complex128).sum())
    assert abs(total - exact) <= 64 * EPS * float(np.abs(x).sum())


@pytest.mark.parametrize("shape", [((3, 4), (4, 5)), ((2, 30, 17), (2, 17, 9)), ((257,), (257, 3))])
def test_products_match_numpy(run, shape):
    rng = np.random.default_rng(1)
    a, b = ((rng.standard_normal(s) + 1j * rng.standard_normal(s)).astype(np.complex64) for s in shape)
    expected = np.matmul(a.astype(np.complex128), b)
    actual = np.asarray(run(jnp.matmul, jnp.asarray(a), jnp.asarray(b)))
    assert actual.dtype == np.complex64
    bound = 8 * EPS * np.matmul(np.abs(a), np.abs(b))  # the sum of |a_ik b_kj|
    assert np.all(np.abs(actual - expected) <= bound + 1e-30)
    x, y = a.reshape(-1)[:6], np.flip(a.reshape(-1)[:6])
    for name in ("vdot", "vecdot"):  # both conjugate their first argument
        ours, theirs = getattr(jnp, name)(x, y), getattr(jax_numpy, name)(x, y)
        np.testing.assert_allclose(np.asarray(ours), np.asarray(theirs), rtol=1e-5)


def test_updates_match_numpy(run):
    x = (np.arange(6) + 1j * np.arange(6)[::-1]).astype(np.complex64)
    idx = np.array([1, 4, 1])
    expected = x.copy()
    np.add.at(expected, idx, np.complex64(2 - 1j))
    actual = run(lambda v: v.at[idx].add(2 - 1j), jnp.asarray(x))
    np.testing.assert_array_equal(np.asarray(actual), expected)
    expected = x.copy()
    expected[idx] = [1j, 2j, 3j]
    actual = run(lambda v: v.at[idx].set(jnp.array([1j, 2j, 3j])), jnp.asarray(x))
    np.testing.assert_array_equal(np.asarray(actual), expected)


def test_gradients_match_jax():
    z = np.array([1 + 2j, 3 - 1j, -0.5 + 0.25j], np.complex64)

    def programs(m, grad):
        return [
            grad(lambda v: m.sum(m.abs(v * v + 1j) ** 2)),
            grad(lambda v: m.real(m.sum(m.exp(v) * m.conj(v)))),
            grad(lambda v: m.sum(m.sin(v) * v), holomorphic=True),
            grad(lambda v: m.angle(m.sum(v / (v + 2)))),
            grad(lambda v: m.real(m.max(v) * m.prod(v))),
            grad(lambda v: m.sum(m.imag(m.minimum(v, m.flip(v))))),
        ]

    for ours, theirs in zip(programs(jnp, jaxwg.grad), programs(jax_numpy, jax.grad)):
        np.testing.assert_allclose(np.asarray(ours(jnp.asarray(z))), np.asarray(theirs(z)), rtol=1e-5)
    ours = jaxwg.vmap(lambda v: v * jnp.conj(v))(jnp.asarray(z))
    np.testing.assert_allclose(np.asarray(ours), np.asarray(jax.vmap(lambda v: v * jax_numpy.conj(v))(z)))
    _, t = jaxwg.jvp(jnp.exp, (jnp.asarray(z),), (jnp.ones(3, jnp.complex64),))
    _, t_jax = jax.jvp(jax_numpy.exp, (z,), (np.ones(3, np.complex64),))
    np.testing.assert_allclose(np.asarray(t), np.asarray(t_jax), rtol=1e-5)


def test_jaxpr_prints_as_jax():
    z = np.ones(2, np.complex64)
    cases = [lambda m, l, v: v * 2j, lambda m, l, v: l.real(v) + l.imag(v) * 2,
             lambda m, l, v: m.abs(v * (1.5 - 2j)), lambda m, l, v: l.conj(l.complex(l.imag(v), 1.0)),
             lambda m, l, v: m.less(v, l.rev(v, (0,))), lambda m, l, v: m.maximum(v, l.rev(v, (0,))),
             lambda m, l, v: (m.prod(v), m.min(v))]
    for fn in cases:
        ours = str(jaxwg.make_jaxpr(lambda v: fn(jnp, lax, v))(z))
        theirs = str(jax.make_jaxpr(lambda v: fn(jax_numpy, jax.lax, v))(z))
        assert ours == theirs


def test_sort_orders_lexicographically_as_jax(run):
    x = np.array([1 + 2j, 1 + 1j, 0 + 5j, -1 - 1j, 1 + 1j, complex(math.nan, 0)], np.complex64)
    np.testing.assert_array_equal(np.asarray(run(jnp.sort, jnp.asarray(x))), np.asarray(jax_numpy.sort(x)))
    np.testing.assert_array_equal(np.asarray(run(jnp.argsort, jnp.asarray(x))), np.asarray(jax_numpy.argsort(x)))


# Parts that tie, and the special values whose order XLA's lexicographic max settles.
TIED_PARTS = st.sampled_from([-1.0, 0.0, 2.5, math.inf, -math.inf, math.nan])


@pytest.mark.slow_on_cpu
@given(data=st.data())
def test_orderings_match_jax(run, data):
    shape = data.draw(hnp.array_shapes(min_dims=0, max_dims=2, max_side=6))
    x, y = (data.draw(hnp.arrays(np.complex64, shape, elements=st.builds(complex, TIED_PARTS, TIED_PARTS)))
            for _ in range(2))
    # JAX's comparisons differ from NumPy's where a NaN is not the part that decides:
    # (-1 - 1j) < nanj is true in JAX, false in NumPy.
    for name in ("maximum", "minimum", "less", "less_equal", "greater", "greater_equal"):
        actual = run(getattr(jnp, name), jnp.asarray(x), jnp.asarray(y))
        np.testing.assert_array_equal(np.asarray(actual), np.asarray(getattr(jax_numpy, name)(x, y)))


@pytest.mark.slow_on_cpu
@settings(max_examples=10)  # each example compiles up to 8 reductions: 23 s at 25
@given(x=hnp.arrays(np.complex64, hnp.array_shapes(min_dims=0, max_dims=3, max_side=6),
                   elements=st.builds(complex, st.sampled_from([-1.0, 0.0, 2.5]),
                                      st.floats(-1e3, 1e3, width=32, allow_subnormal=False))))
def test_ordered_reductions_match_jax(run, x):
    # Real parts from three values, so that most comparisons are ties decided by the
    # imaginary parts. No NaN: where one is reduced, which element wins depends on the
    # order of the combination (XLA's max(NaN, 1) is 1 and max(1, NaN) NaN). No -inf
    # real part either: JAX's max starts from -inf + 0j, which wins over -inf - 1j.
    axes = [None] + list(range(x.ndim))
    for axis in axes:
        for name in ("max", "min"):
            actual = run(lambda v: getattr(jnp, name)(v, axis=axis), jnp.asarray(x))
            np.testing.assert_array_equal(np.asarray(actual), np.asarray(getattr(jax_numpy, name)(x, axis=axis)))


@pytest.mark.parametrize("n", [5, 33, 200])  # within one block, two, and a recursion
def test_cumulative_products_and_extrema_match_jax(run, n):
    rng = np.random.default_rng(n)
    # Moduli near 1, so that a product of 200 stays far from overflow and underflow.
    x = np.exp(1j * rng.uniform(-3, 3, (2, n)) + 0.05 * rng.standard_normal((2, n))).astype(np.complex64)
    actual = run(lambda v: jnp.cumprod(v, axis=1), jnp.asarray(x))
    expected = np.cumprod(x.astype(np.complex128), axis=1).astype(np.complex64)
    assert_close(actual, expected, 4 * EPS * n)
    for name in ("cummax", "cummin"):
        for reverse in (False, True):
            actual = run(lambda v: getattr(lax, name)(v, axis=1, reverse=reverse), jnp.asarray(x))
            theirs = getattr(jax.lax, name)(x, axis=1, reverse=reverse)
            np.testing.assert_array_equal(np.asarray(actual), np.asarray(theirs))


def _running_lexicographic(x, better):
    """The running best of 1-d `x` by `better(a, b)` (a beats b), in Python."""
    out, best = [], None
    for v in x:
        best = v if best is None or better(v, best) else best
        out.append(best)
    return np.array(out, x.dtype)


def test_cumulative_extrema_with_ties_and_infinities(run):
    # Ties in real parts at -inf and inf decided by the imaginary parts; no fill value
    # of the scan may show (XLA's lexicographic max has no neutral element).
    x = np.array([complex(-math.inf, -1), complex(-math.inf, -2), complex(-math.inf, -3), 1 - 1j, 1 + 2j,
                  complex(math.inf, -5), complex(math.inf, -6), -4j], np.complex64)

    def above(a, b):
        return (a.real, a.imag) > (b.real, b.imag)

    expected = {"cummax": _running_lexicographic(x, above),
                "cummin": _running_lexicographic(x, lambda a, b: above(b, a))}
    for name, want in expected.items():
        np.testing.assert_array_equal(np.asarray(run(getattr(lax, name), jnp.asarray(x))), want)


def test_nan_aware_functions_skip_complex_nans_as_jax(run):
    nan = math.nan
    x = np.array([5 - 1j, complex(nan, 1), 1 + 3j, complex(2, nan), 5 + 1j], np.complex64)
    for name in ("nanmax", "nanmin", "nansum", "nanprod", "nanmean", "nancumsum", "nancumprod"):
        actual = run(getattr(jnp, name), jnp.asarray(x))
        np.testing.assert_allclose(np.asarray(actual), np.asarray(getattr(jax_numpy, name)(x)), rtol=4 * EPS)
    for name in ("fmax", "fmin"):
        actual = run(getattr(jnp, name), jnp.asarray(x), jnp.asarray(x[::-1]))
        np.testing.assert_array_equal(np.asarray(actual), np.asarray(getattr(jax_numpy, name)(x, x[::-1])))
    all_nan = np.array([complex(nan, 0), complex(0, nan)], np.complex64)
    assert np.isnan(complex(run(jnp.nanmax, jnp.asarray(all_nan))))


def test_scatter_products_and_extrema_match_jax(run):
    x = (np.arange(6) - 2j * np.arange(6)[::-1] + 0.5).astype(np.complex64)
    idx = np.array([1, 4, 1, 1, 7, 0])  # collisions, and one out of bounds (dropped)
    u = np.array([2j, 1 - 1j, 3 + 3j, -1j, 5, 0.5 + 2.5j], np.complex64)
    for name in ("multiply", "divide", "max", "min", "power"):
        values = np.float32(2) if name == "power" else u
        actual = run(lambda v: getattr(v.at[idx], name)(values, mode="drop"), jnp.asarray(x))
        expected = np.asarray(getattr(jax_numpy.asarray(x).at[idx], name)(values, mode="drop"))
        if name in ("max", "min"):  # a choice among the values: exact
            np.testing.assert_array_equal(np.asarray(actual), expected)
        else:
            # At most four products into an element, each within 4 eps of its modulus;
            # the quotients within 16 eps (Smith's division).
            assert_close(actual, expected, 32 * EPS)


def test_searchsorted_orders_lexicographically_as_jax(run):
    a = np.sort(np.array([1 + 2j, 3 - 1j, 0.5j, complex(math.nan, 0), 1 + 1j, 1 + 2j], np.complex64))
    v = np.array([1 + 2j, 1 + 0j, 0j, 5j, 3 - 1j, complex(math.nan, 1)], np.complex64)
    for side in ("left", "right"):
        actual = run(lambda x, y: jnp.searchsorted(x, y, side=side), jnp.asarray(a), jnp.asarray(v))
        np.testing.assert_array_equal(np.asarray(actual), np.asarray(jax_numpy.searchsorted(a, v, side=side)))


def test_unsupported_operations_raise_as_jax():
    z = jnp.ones(3, jnp.complex64)
    for fn in (jnp.median, lambda v: jnp.quantile(v, 0.5), lambda v: lax.top_k(v, 2)):
        with pytest.raises(ValueError, match="complex"):
            fn(z)
    for fn in (jnp.floor, lambda v: lax.lt(v, v), jnp.argmax):
        with pytest.raises(TypeError, match="complex"):
            jaxwg.block_until_ready(fn(z))
    with pytest.raises(ValueError, match="complex"):
        jnp.clip(z, 0, 1)
    with pytest.raises(ValueError, match="complex"):
        jnp.clip(jnp.ones(3), 0j, 1)
