"""The structural and elementwise helpers of jaxwg.numpy (more_math.py, structure.py)
against JAX: special values, dtypes, axes."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import jaxwg
import jaxwg.numpy as jnp

from .helpers import jax, jax_numpy, rounds_correctly

SPECIAL = np.array([0.0, -0.0, 1.5, -2.0, np.inf, -np.inf, np.nan, 1e30, -1e-30, 3.0],
                   np.float32)


def _same(got, want, rtol=2e-6):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, want.dtype,
                                                                  got.shape, want.shape)
    if got.dtype.kind == "f":
        np.testing.assert_allclose(got, want, rtol=rtol, atol=0, equal_nan=True)
        assert np.array_equal(np.signbit(got), np.signbit(want)) or np.isnan(want).any()
    else:
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("name", ["copysign", "hypot", "logaddexp", "logaddexp2"])
def test_binary_functions_match_jax(platform, name):
    a = SPECIAL[:, None]
    b = SPECIAL[None, :]
    _same(getattr(jnp, name)(jnp.asarray(a), jnp.asarray(b)), getattr(jax_numpy, name)(a, b))


def test_nan_to_num_and_closeness_match_jax(platform):
    _same(jnp.nan_to_num(jnp.asarray(SPECIAL)), jax_numpy.nan_to_num(SPECIAL))
    _same(jnp.nan_to_num(jnp.asarray(SPECIAL), nan=7.0, posinf=1.0, neginf=-1.0),
          jax_numpy.nan_to_num(SPECIAL, nan=7.0, posinf=1.0, neginf=-1.0))
    # complex: each part on its own (an inf real part beside a NaN imaginary one, too)
    z = (SPECIAL[:, None] + 1j * SPECIAL[None, ::3]).astype(np.complex64)
    for kw in ({}, {"nan": 7.0, "posinf": 1.0, "neginf": -1.0}):
        got, want = jnp.nan_to_num(jnp.asarray(z), **kw), jax_numpy.nan_to_num(z, **kw)
        assert got.dtype == want.dtype
        _same(jnp.real(got), jax_numpy.real(want))
        _same(jnp.imag(got), jax_numpy.imag(want))
    near = SPECIAL * np.float32(1 + 1e-7)
    for equal_nan in (False, True):
        _same(jnp.isclose(jnp.asarray(SPECIAL), jnp.asarray(near), equal_nan=equal_nan),
              jax_numpy.isclose(SPECIAL, near, equal_nan=equal_nan))
        _same(jnp.allclose(jnp.asarray(SPECIAL), jnp.asarray(near), equal_nan=equal_nan),
              jax_numpy.allclose(SPECIAL, near, equal_nan=equal_nan))
        _same(jnp.array_equal(jnp.asarray(SPECIAL), jnp.asarray(SPECIAL), equal_nan=equal_nan),
              jax_numpy.array_equal(SPECIAL, SPECIAL, equal_nan=equal_nan))
    _same(jnp.array_equal(jnp.ones(2), jnp.ones(3)), jax_numpy.array_equal(np.ones(2), np.ones(3)))
    _same(jnp.array_equiv(jnp.ones((2, 3)), jnp.ones(3)), jax_numpy.array_equiv(np.ones((2, 3)), np.ones(3)))


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(["int8", "uint8", "int32", "bool"]), st.sampled_from(["int32", "float32"]),
       st.lists(st.integers(-128, 127), min_size=4, max_size=4),
       st.lists(st.integers(-128, 127), min_size=4, max_size=4),
       st.sampled_from([0.0, 1.0, 2.5]), st.sampled_from([0.0, 0.05, 1e-5]))
def test_isclose_of_integers_honours_tolerances(da, db, xs, ys, atol, rtol):
    """Integers and bools compare as floats, as in JAX, so atol and rtol apply."""
    a = np.array(xs).astype(da)
    b = np.array(ys).astype(db)
    _same(jnp.isclose(jnp.asarray(a), jnp.asarray(b), rtol, atol),
          jax_numpy.isclose(a, b, rtol, atol))
    _same(jnp.allclose(jnp.asarray(a), jnp.asarray(b), rtol, atol),
          jax_numpy.allclose(a, b, rtol, atol))


def test_isclose_integer_edge_cases(platform):
    ints = np.array([2 ** 31 - 1, -2 ** 31, 100, 7], np.int32)
    other = np.array([-2 ** 31, 2 ** 31 - 1, -100, 8], np.int32)
    _same(jnp.isclose(jnp.asarray(ints), jnp.asarray(other), atol=1),
          jax_numpy.isclose(ints, other, atol=1))
    _same(jnp.isclose(jnp.array([1, 2]), jnp.array([2, 2]), atol=1), np.array([True, True]))
    _same(jnp.isclose(3, 4, atol=1), jax_numpy.isclose(3, 4, atol=1))


def test_array_equiv_of_shapes_that_do_not_broadcast_raises_as_jax():
    with pytest.raises(TypeError):
        jax_numpy.array_equiv(np.zeros(2), np.zeros(3))
    with pytest.raises(TypeError, match="broadcast"):
        jnp.array_equiv(jnp.zeros(2), jnp.zeros(3))
    _same(jnp.array_equiv(jnp.zeros((1,)), jnp.zeros((2, 3))),
          jax_numpy.array_equiv(np.zeros((1,)), np.zeros((2, 3))))


@pytest.mark.slow_on_cpu
def test_structure_functions_match_jax(platform):
    x = np.arange(24, dtype=np.int32).reshape(2, 3, 4)
    m = np.arange(12, dtype=np.float32).reshape(3, 4)
    cases = [
        ("roll", (x, 5), {}), ("roll", (x, -2), {"axis": 2}), ("roll", (x, (1, 2)), {"axis": (0, 1)}),
        ("tril", (m,), {}), ("tril", (x, -1), {}), ("triu", (m, 1), {}), ("triu", (x,), {}),
        ("diag", (np.array([1, 2, 3]),), {}), ("diag", (np.array([1, 2]), 1), {}),
        ("diag", (np.array([1, 2]), -2), {}), ("diag", (m, -1), {}), ("diagflat", (m[:2, :2],), {}),
        ("kron", (np.array([[1, 2], [3, 4]]), np.array([[0, 1], [1, 0]])), {}),
        ("kron", (np.array([1, 2]), np.ones((2, 2), np.int32)), {}),
        ("cross", (np.array([[1.0, 2, 3], [4, 5, 6]]), np.array([[0.0, 1, 0], [1, 0, 0]])), {}),
        ("cross", (np.array([1.0, 2]), np.array([3.0, 4])), {}),
        ("diff", (x,), {}), ("diff", (x, 2), {"axis": 1}), ("diff", (m,), {"prepend": 0.0}),
        ("diff", (np.array([True, False, False]),), {}),
    ]
    for name, args, kw in cases:
        ours = getattr(jnp, name)(*[jnp.asarray(a) if isinstance(a, np.ndarray) else a for a in args], **kw)
        _same(ours, getattr(jax_numpy, name)(*args, **kw))
    for indexing in ("xy", "ij"):
        for sparse in (False, True):
            got = jnp.meshgrid(jnp.arange(2), jnp.arange(3), jnp.arange(4), indexing=indexing, sparse=sparse)
            want = jax_numpy.meshgrid(np.arange(2), np.arange(3), np.arange(4), indexing=indexing,
                                      sparse=sparse)
            for g, w in zip(got, want):
                _same(g, w)
    _same(jnp.indices((2, 3)), jax_numpy.indices((2, 3)))
    for g, w in zip(jnp.indices((2, 3), sparse=True), jax_numpy.indices((2, 3), sparse=True)):
        _same(g, w)


def test_roll_by_traced_shifts_matches_jax():
    x = np.arange(24, dtype=np.int32).reshape(2, 3, 4)
    for shift, axis in [(5, None), (-7, 2), (np.array([1, -2]), (0, 1)), (np.array(4), 1)]:
        roll = jaxwg.jit(lambda v, s: jnp.roll(v, s, axis))  # noqa: B023
        _same(roll(jnp.asarray(x), jnp.asarray(shift)), jax_numpy.roll(x, shift, axis))


def test_ediff1d_vander_unstack_and_modf_match_jax(platform):
    x = np.array([[1, 4], [9, 16]], np.int32)
    _same(jnp.ediff1d(jnp.asarray(x)), jax_numpy.ediff1d(x))
    _same(jnp.ediff1d(jnp.asarray(x), to_end=jnp.array([100]), to_begin=0),
          jax_numpy.ediff1d(x, to_end=np.array([100]), to_begin=0))
    v = np.array([1.5, -2.0, 3.0], np.float32)
    for n in (None, 2, 4):
        for increasing in (False, True):
            _same(jnp.vander(jnp.asarray(v), n, increasing), jax_numpy.vander(v, n, increasing))
    _same(jnp.vander(jnp.array([1, 2, 3]), 3), jax_numpy.vander(np.array([1, 2, 3]), 3))
    m = np.arange(12, dtype=np.float32).reshape(3, 4)
    for axis in (0, 1, -1):
        for got, want in zip(jnp.unstack(jnp.asarray(m), axis=axis), jax_numpy.unstack(m, axis=axis)):
            _same(got, want)
    for got, want in zip(jnp.modf(jnp.asarray(SPECIAL)), jax_numpy.modf(SPECIAL)):
        _same(got, want)


# -- frexp, ldexp, nextafter, spacing: bit for bit -----------------------------------------------
#
# The oracle is JAX, except where an input or the exact answer is subnormal: XLA's CPU backend
# flushes subnormals to zero there (jnp.frexp(1e-40) is (0.5, -149)), while NumPy, jaxwg's CPU
# backend and the WebGPU software adapter keep them, and NumPy's IEEE answer is what JAX's
# algorithms give without flushing. Platforms that flush leave the subnormal cases out.

BITS_SPECIAL = np.array([0.0, -0.0, 1e-45, -1e-45, 1e-40, -3e-39, 1.1754942e-38, 1.1754944e-38,
                         0.5, 1.0, -1.0, 1.5, 3.0, 3.4028235e38, -3.4028235e38, np.inf, -np.inf,
                         np.nan, 1e30, -7e-20], np.float32)


def _subnormal(a):
    a = np.abs(np.asarray(a, np.float32))
    return (a < np.finfo(np.float32).tiny) & (a != 0)


def _bits_oracle(x, jax_result, numpy_result, y=0.0):
    """JAX's answer, NumPy's where x, y or NumPy's answer (for x != 0) is subnormal, and a
    mask of the elements this platform is held to."""
    ieee = _subnormal(x) | _subnormal(y) | (_subnormal(numpy_result) & (x != 0))
    want = np.where(ieee, numpy_result, np.asarray(jax_result))
    held = np.ones(want.shape, bool) if rounds_correctly() else ~ieee & ~_subnormal(want)
    return want, held


def _same_bits(got, want, held):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, want.dtype)
    got, want = got[held], want[held]
    nan = np.isnan(want)
    assert np.array_equal(np.isnan(got), nan)
    bits = {2: np.uint16, 4: np.uint32}[got.dtype.itemsize]
    np.testing.assert_array_equal(got[~nan].view(bits), want[~nan].view(bits))


def _floats32(n):
    return st.lists(st.integers(0, 2**32 - 1), min_size=n, max_size=n).map(
        lambda b: np.array(b, np.uint32).view(np.float32))


@settings(max_examples=5, deadline=None)
@given(x=_floats32(24), y=_floats32(24))
def test_frexp_nextafter_spacing_match_jax_bit_for_bit(platform, x, y):
    x = np.concatenate([x, BITS_SPECIAL, BITS_SPECIAL])
    y = np.concatenate([y, BITS_SPECIAL, BITS_SPECIAL[::-1]])
    mantissa, exponent = jnp.frexp(jnp.asarray(x))
    want_m, held = _bits_oracle(x, jax_numpy.frexp(x)[0], np.frexp(x)[0])
    _same_bits(mantissa, want_m, held)
    want_e = np.where(_subnormal(x), np.frexp(x)[1], np.asarray(jax_numpy.frexp(x)[1]))
    np.testing.assert_array_equal(np.asarray(exponent)[held], want_e[held])
    assert exponent.dtype == np.int32
    with np.errstate(all="ignore"):
        _same_bits(jnp.nextafter(jnp.asarray(x), jnp.asarray(y)),
                   *_bits_oracle(x, jax_numpy.nextafter(x, y), np.nextafter(x, y), y))
        _same_bits(jnp.spacing(jnp.asarray(x)),
                   *_bits_oracle(x, jax_numpy.spacing(x), np.spacing(x)))


@settings(max_examples=5, deadline=None)
@given(x=_floats32(24), n=st.lists(st.integers(-330, 330), min_size=24, max_size=24))
def test_ldexp_matches_jax_bit_for_bit(platform, x, n):
    x = np.concatenate([x, BITS_SPECIAL])
    n = np.concatenate([np.array(n, np.int32), np.arange(-150, 150, 15, dtype=np.int32)])
    with np.errstate(all="ignore"):
        want, held = _bits_oracle(x, jax_numpy.ldexp(x, n), np.ldexp(x, n))
    _same_bits(jnp.ldexp(jnp.asarray(x), jnp.asarray(n)), want, held)


def test_bit_functions_of_float16_and_of_python_scalars_match_jax(platform):
    h = np.array([0.0, -0.0, 6e-8, -6e-8, 6.1e-5, 6.104e-5, 65504, -65504, np.inf, -np.inf,
                  np.nan, 1, 2, 0.5, 1e-5, -3e-6, 0.1], np.float16)
    for y in (np.float16(0), np.float16(np.inf), np.float16(-np.inf), h[::-1].copy()):
        _same_bits(jnp.nextafter(jnp.asarray(h), jnp.asarray(y)), jax_numpy.nextafter(h, y),
                   np.ones(h.shape, bool))
    for got, want in zip(jnp.frexp(jnp.asarray(h)), jax_numpy.frexp(h)):
        _same_bits(got, want, np.ones(h.shape, bool)) if got.dtype.kind == "f" else \
            np.testing.assert_array_equal(got, want)
    _same_bits(jnp.spacing(jnp.asarray(h)), jax_numpy.spacing(h), np.ones(h.shape, bool))
    n = np.resize(np.arange(-12, 12, 3, dtype=np.int32), h.size)
    _same_bits(jnp.ldexp(jnp.asarray(h), jnp.asarray(n)), jax_numpy.ldexp(h, n),
               np.ones(h.shape, bool))
    # dtypes and weak types of Python and integer operands
    for got, want in [(jnp.nextafter(2, 3), jax_numpy.nextafter(2, 3)),
                      (jnp.frexp(3)[0], jax_numpy.frexp(3)[0]),
                      (jnp.ldexp(2.0, 3), jax_numpy.ldexp(2.0, 3)),
                      (jnp.spacing(1.0), jax_numpy.spacing(1.0)),
                      (jnp.ldexp(jnp.arange(3), 2), jax_numpy.ldexp(np.arange(3, dtype=np.int32), 2))]:
        assert (got.dtype, got.weak_type) == (want.dtype, want.weak_type)
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


def test_bit_functions_reject_what_jax_rejects():
    with pytest.raises(ValueError, match="ldexp"):
        jnp.ldexp(jnp.ones(2), jnp.ones(2))
    with pytest.raises(TypeError):
        jnp.ldexp(jnp.ones(2), [1, 2])
    with pytest.raises(TypeError, match="nextafter"):
        jnp.nextafter(jnp.ones(2), jnp.ones(3))
    for z in (1j, np.complex64(1 + 2j), np.array([1 + 2j])):  # JAX's ValueError, word for word
        with pytest.raises(ValueError) as ours:
            jnp.spacing(z)
        with pytest.raises(ValueError) as theirs:
            jax_numpy.spacing(z)
        assert str(ours.value) == str(theirs.value)


def test_bit_functions_run_under_jit_and_vmap(platform):
    x = np.array([[1.0, -2.5, 3e-39], [0.0, np.inf, 7.0]], np.float32)
    for fn, ref in [(jnp.spacing, np.spacing), (lambda v: jnp.frexp(v)[0], lambda v: np.frexp(v)[0])]:
        got = jaxwg.jit(jaxwg.vmap(fn))(jnp.asarray(x))
        _same_bits(got, ref(x), np.ones(x.shape, bool) if rounds_correctly() else ~_subnormal(x))


# -- sinc, i0 and the complex parts of real arrays ----------------------------------------------

@settings(max_examples=5, deadline=None)
@given(x=st.lists(st.floats(-30, 30, width=32), min_size=1, max_size=12))
def test_sinc_and_i0_match_jax(platform, x):
    x = np.concatenate([np.array(x, np.float32), np.array([0.0, -0.0, 8.0, -8.0, 0.5, 100.0,
                                                           -100.0, np.inf, np.nan], np.float32)])
    _same(jnp.sinc(jnp.asarray(x)), jax_numpy.sinc(x), rtol=2e-6 if rounds_correctly() else 1e-5)
    # XLA's and jaxwg's Chebyshev sums differ in rounding order and exp: a few ulp
    _same(jnp.i0(jnp.asarray(x)), jax_numpy.i0(x), rtol=1e-5)
    # JAX's float16 i0 is inf past |x| = 11.09, where its float16 exp(|x|) overflows though
    # I0(x) is finite up to 12.4: jaxwg takes exp in float32, so only the rest is compared.
    h = x[~(np.abs(x) > 11.09)].astype(np.float16)
    _same(jnp.i0(jnp.asarray(h)), jax_numpy.i0(h), rtol=2e-3)


def test_sinc_and_i0_gradients_and_vmap_match_jax():
    x = np.array([0.0, 0.3, -1.7, 9.0, -12.5], np.float32)
    for name in ("sinc", "i0"):
        f, g = getattr(jnp, name), getattr(jax_numpy, name)
        _same(jaxwg.vmap(jaxwg.grad(f))(jnp.asarray(x)), jax.vmap(jax.grad(g))(x), rtol=1e-5)
    # the second and fourth derivatives of sinc at 0 (JAX's Taylor rule)
    d2 = jaxwg.grad(jaxwg.grad(jnp.sinc))(0.0)
    d4 = jaxwg.grad(jaxwg.grad(jaxwg.grad(jaxwg.grad(jnp.sinc))))(0.0)
    np.testing.assert_allclose([float(d2), float(d4)], [-np.pi**2 / 3, np.pi**4 / 5], rtol=1e-6)


def test_complex_parts_of_real_arrays_match_jax(platform):
    for x in (np.array([1.5, -2.0, -0.0, np.nan], np.float32), np.array([3, -1], np.int32),
              np.array([True, False]), 2.5, 3):
        for name in ("real", "imag", "conj", "conjugate", "angle", "iscomplex", "isreal"):
            got, want = getattr(jnp, name)(x), getattr(jax_numpy, name)(x)
            _same(got, want)
            assert got.weak_type == want.weak_type, name
        _same(jnp.angle(x, deg=True), jax_numpy.angle(x, deg=True))
        assert jnp.iscomplexobj(x) is False and jnp.isrealobj(x) is True
    assert jnp.iscomplexobj(1j) and jnp.iscomplexobj(np.ones(2, np.complex64))
    assert not jnp.iscomplexobj(None) and not jnp.isrealobj(np.ones(1, np.complex64))
    with pytest.raises(TypeError):
        jnp.real([1.0])


# -- tri, logspace, geomspace, resize -------------------------------------------------------------


def test_tri_matches_jax(platform):
    for args in [(3,), (2, 4), (4, 2, -1), (3, 3, 5), (0, 2), (3, None, 1)]:
        for dtype in (None, jnp.int32, jnp.bool_):
            _same(jnp.tri(*args, dtype=dtype), jax_numpy.tri(*args, dtype=dtype))
    with pytest.raises(ValueError):
        jnp.tri(-1)


@pytest.mark.parametrize("name", ["logspace", "geomspace"])
def test_logspace_and_geomspace_match_jax(run, name):
    cases = [((0, 3, 4), {}), ((1, 2, 5), {"endpoint": False}), ((2, -1, 7), {}),
             ((np.float32([1, 2]), np.float32([3, -1]), 3), {"axis": 1}),
             ((1, 2, 1), {}), ((1, 2, 0), {}), ((0.5, 3.5, 4), {"dtype": jnp.int32})]
    if name == "logspace":
        cases.append(((0, 2, 3), {"base": 2.0}))
    else:
        cases += [((-1, -1000, 4), {}), ((1, 1000, 4), {"endpoint": False})]
    for args, kwargs in cases:
        start, stop, num = args
        got = run(lambda a, b: getattr(jnp, name)(a, b, num, **kwargs), jnp.asarray(start),
                  jnp.asarray(stop))
        _same(got, getattr(jax_numpy, name)(start, stop, num, **kwargs),
              rtol=2e-6 if rounds_correctly() else 2e-5)


def test_logspace_to_integers_at_exact_powers(platform):  # 10.0 ** 2.0 was 99.99999
    _same(jnp.logspace(1, 4, 4, dtype=jnp.int32), jax_numpy.logspace(1, 4, 4, dtype=jnp.int32))


def test_resize_matches_jax(platform):
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    for shape in [(3, 4), 7, (2, 3), (1,), (0,), (2, 0), ()]:
        _same(jnp.resize(jnp.asarray(a), shape), jax_numpy.resize(a, shape))
    _same(jnp.resize(jnp.zeros((0,), jnp.int32), (2, 2)),
          jax_numpy.resize(np.zeros(0, np.int32), (2, 2)))
    with pytest.raises(ValueError, match="non-negative"):
        jnp.resize(jnp.asarray(a), (-1, 2))


def test_frexp_and_ldexp_gradients_match_jax(platform):
    """Both work on the bits; their derivatives come from a custom JVP (they were 0)."""
    x = np.float32([3.0, 0.0, 1.0, -3.0, 0.375])
    n = np.int32([3, -2, 0, 1, 5])
    np.testing.assert_array_equal(
        np.asarray(jaxwg.grad(lambda r: jnp.frexp(r)[0].sum())(jnp.asarray(x))),
        np.asarray(jax.grad(lambda r: jax_numpy.frexp(r)[0].sum())(x)))
    got = jaxwg.jit(jaxwg.grad(lambda r: (jnp.ldexp(r, jnp.asarray(n)) * r).sum()))(jnp.asarray(x))
    want = jax.grad(lambda r: (jax_numpy.ldexp(r, n) * r).sum())(x)
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
    _, tangent = jaxwg.jvp(lambda r: jnp.ldexp(r, jnp.asarray(n)), (jnp.asarray(x),),
                           (jnp.ones(5),))
    np.testing.assert_array_equal(np.asarray(tangent), np.ldexp(np.float32(1), n))
