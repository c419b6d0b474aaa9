"""The rest of `jaxwg.scipy.special` and `lax`'s bessel_i0e, bessel_i1e, betainc, zeta,
polygamma against JAX (and SciPy in float64 as the truth for accuracy).

Accuracy: each function's error in ulps (relative to SciPy in float64, in units of the
spacing of the true value, floored at 1 where noted) must be at most JAX's own worst
error over the same points plus a few ulps of rounding that differs between two
evaluations of the same formula: 4 ulps for straight-line formulas with a handful of
roundings (entr, the Bessel series, gammasgn, boxcox), 8 where a sum of ~10 terms rounds
more (zeta, poch), 32 for polygamma at negative x (terms of both signs cancel), 64 for
exp(gammaln sums) (factorial, comb, beta: one ulp of a log up to ~70 is 64 ulps of its
exp), 64 for ndtr, whose lower tail amplifies the rounding of x / sqrt(2) by erfc's
condition number 2 w^2 (128 half-ulps at x = -11; JAX's errors there happen to be
smaller); betainc's
continued fraction (~|log prefactor| eps) is held to JAX's error plus 2e-6 absolute.
"""

import numpy as np
import pytest
import scipy.special as sc

import jaxwg
import jaxwg.numpy as jnp
from jaxwg import lax
from jaxwg.scipy import special

from .helpers import jax

jsp = jax.scipy.special
RNG = np.random.default_rng(0)


@pytest.fixture(autouse=True)
def _cpu_unless_parametrized(request, monkeypatch):
    """The CPU backend, except where a test takes `platform` (each kernel compiled for the
    software GPU costs seconds): the formulas are the same on both."""
    if "platform" not in request.fixturenames:
        monkeypatch.setenv("JAXWG_PLATFORMS", "cpu")


def _wide(lo, hi, n=200):
    return RNG.uniform(lo, hi, n)


def _log_wide(lo, hi, n=200):
    return np.exp(RNG.uniform(np.log(lo), np.log(hi), n))


def _erfcx_reference(x):
    """SciPy's erfcx, with exp(x^2) in extended precision for x < 0 (SciPy's own there is
    ~x^2 / 2 ulps off: it rounds x * x)."""
    square = np.longdouble(x) ** 2
    return np.where(x < 0, np.float64(2 * np.exp(square) - sc.erfcx(-x)), sc.erfcx(x))


# name, args (float64 points, cast to the dtype under test), SciPy reference, slack ulps,
# floor (errors in ulps of max(|truth|, floor): 1 where the value crosses 0)
CASES = [
    ("ndtr", (_wide(-12, 8),), sc.ndtr, 64, 0),
    ("ndtri", (np.concatenate([_wide(0.001, 0.999), _log_wide(1e-30, 1e-3, 50)]),), sc.ndtri, 4, 1),
    ("log_ndtr", (np.concatenate([_wide(-40, 12)]),), sc.log_ndtr, 4, 1),
    ("entr", (_wide(0, 5),), sc.entr, 4, 1),
    ("i0", (_wide(-20, 20),), sc.i0, 4, 0),
    ("i0e", (_wide(-30, 30),), sc.i0e, 4, 0),
    ("i1", (_wide(-20, 20),), sc.i1, 4, 1),
    ("i1e", (_wide(-30, 30),), sc.i1e, 4, 1),
    ("gammasgn", (_wide(-10, 10),), sc.gammasgn, 0, 0),
    ("loggamma", (_log_wide(1e-3, 1e3),), sc.loggamma, 4, 1),
    ("erfcx", (_wide(-9, 40),), lambda x: _erfcx_reference(x), 4, 0),
    ("factorial", (_wide(0, 30).round(),), sc.factorial, 64, 0),
    ("rel_entr", (_wide(0, 4), _wide(0.01, 4)), sc.rel_entr, 4, 1),
    ("kl_div", (_wide(0, 4), _wide(0.01, 4)), sc.kl_div, 4, 1),
    ("beta", (_wide(0.1, 10), _wide(0.1, 10)), sc.beta, 64, 0),
    ("comb", (_wide(0, 30).round(), _wide(0, 15).round()), sc.comb, 64, 1),
    ("poch", (_wide(0.5, 10), _wide(-0.4, 5)), sc.poch, 8, 0),
    ("zeta", (_wide(1.1, 30), _log_wide(0.05, 100)), sc.zeta, 8, 0),
    ("boxcox", (_log_wide(0.01, 100), _wide(-2, 2)), sc.boxcox, 4, 1),
    ("boxcox1p", (_log_wide(1e-6, 100), _wide(-2, 2)), sc.boxcox1p, 4, 1),
    ("multigammaln", (_wide(3, 30),), lambda a: sc.multigammaln(a, 4), 8, 1),
]


def _ulps(got, want, dtype, floor):
    """|got - want| in units of the spacing of max(|want|, floor) in `dtype`."""
    got = np.asarray(got, np.float64)
    scale = np.maximum(np.abs(want), max(floor, np.finfo(dtype).tiny)).astype(dtype)
    err = np.abs(got - want) / np.spacing(scale).astype(np.float64)
    return np.where(np.isnan(want) & np.isnan(got), 0, err)


def _call(name, module, args):
    if name == "multigammaln":
        return module.multigammaln(args[0], 4)
    return getattr(module, name)(*args)


def _check_as_accurate_as_jax(name, args, reference, slack, floor, dtype):
    args = tuple(a.astype(dtype) for a in args)
    want = reference(*(a.astype(np.float64) for a in args))
    ours = _call(name, special, tuple(jnp.asarray(a) for a in args))
    theirs = _call(name, jsp, args)
    assert ours.dtype == theirs.dtype, name
    errors = _ulps(ours, want, dtype, floor)
    bound = _ulps(theirs, want, dtype, floor).max() + slack
    assert errors.max() <= bound, (name, errors.max(), bound, args[0][errors.argmax()])


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_float32_as_accurate_as_jax(case):
    name, args, reference, slack, floor = case
    _check_as_accurate_as_jax(name, args, reference, slack, floor, np.float32)


@pytest.fixture
def x64():
    jaxwg.config.update("jax_enable_x64", True)
    with jax.enable_x64(True):
        yield
    jaxwg.config.update("jax_enable_x64", False)


def test_float64_as_accurate_as_jax(x64):
    if jnp.asarray(1.0).dtype != np.float64:
        pytest.skip("the default device has no float64")
    for case in [c for c in CASES if c[0] in ("ndtr", "ndtri", "i1e", "erfcx", "zeta", "beta")]:
        name, args, reference, slack, floor = case
        _check_as_accurate_as_jax(name, args, reference, slack, floor, np.float64)


def test_polygamma_and_betainc_as_accurate_as_jax():
    n = np.array([0, 1, 1, 2, 3, 4, 1, 2], np.int32)
    x = np.array([2.5, 0.3, 7.0, 0.5, 3.0, 12.0, -1.5, -2.5], np.float32)
    want = sc.polygamma(n, x.astype(np.float64))
    errors = _ulps(special.polygamma(jnp.asarray(n), jnp.asarray(x)), want, np.float32, 0)
    assert errors.max() <= _ulps(jsp.polygamma(n, x), want, np.float32, 0).max() + 32
    a, b = _log_wide(0.1, 50, 300).astype(np.float32), _log_wide(0.1, 50, 300).astype(np.float32)
    x = _wide(0, 1, 300).astype(np.float32)
    want = sc.betainc(a.astype(np.float64), b.astype(np.float64), x.astype(np.float64))
    ours = np.abs(np.asarray(special.betainc(jnp.asarray(a), jnp.asarray(b), jnp.asarray(x))) - want)
    theirs = np.abs(np.asarray(jsp.betainc(a, b, x), np.float64) - want)
    assert ours.max() <= theirs.max() + 2e-6, (ours.max(), theirs.max())


EDGES = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 0.5, -2.0, 1e-30], np.float32)
UNARY = ["ndtr", "ndtri", "log_ndtr", "entr", "i0", "i0e", "i1", "i1e", "gammasgn", "loggamma",
         "erfcx", "factorial"]


def test_unary_edges_are_jaxs(run):
    # NaN, +-inf and the poles in the same places, under jit too, on both platforms
    def all_unary(x):
        return [getattr(special, name)(x) for name in UNARY]

    got = run(all_unary, jnp.asarray(EDGES))
    for name, g in zip(UNARY, got):
        want = np.asarray(getattr(jsp, name)(EDGES))
        np.testing.assert_allclose(np.asarray(g), want, rtol=1e-5, atol=1e-30, err_msg=name)


def test_binary_edges_are_jaxs():
    v = np.array([np.nan, np.inf, 0.0, -0.0, 1.0, -1.0, 0.5, 2.0, -1.5, 3.0], np.float32)
    p, q = (m.ravel() for m in np.meshgrid(v, v, indexing="ij"))
    for name in ("rel_entr", "kl_div", "beta", "comb", "poch", "zeta", "boxcox", "boxcox1p"):
        got = np.asarray(getattr(special, name)(jnp.asarray(p), jnp.asarray(q)))
        np.testing.assert_allclose(got, np.asarray(getattr(jsp, name)(p, q)), rtol=2e-5,
                                   atol=1e-30, err_msg=name)
    b = np.array([[1.0], [2.0], [0.0], [np.inf]], np.float32)  # a, b, x grid with the limits
    x = np.array([0.0, 0.3, 1.0, 1.5, -0.5, np.nan], np.float32)
    for a in (np.float32(0.0), np.float32(2.0), np.float32(np.inf), np.float32(-1.0)):
        got = np.asarray(special.betainc(a, jnp.asarray(b), jnp.asarray(x)))
        np.testing.assert_allclose(got, np.asarray(jsp.betainc(a, b, x)), rtol=1e-5)
    m = np.array([0.0, 1.0, 2.0, 1.5, -1.0, 1.0, 1.0], np.float32)
    xs = np.array([2.0, 0.0, -1.0, 2.0, 2.0, np.inf, np.nan], np.float32)
    np.testing.assert_allclose(np.asarray(lax.polygamma(jnp.asarray(m), jnp.asarray(xs))),
                               np.asarray(jax.lax.polygamma(m, xs)), rtol=1e-5)


GRAD_X = np.array([-3.0, -0.7, 0.3, 1.2, 4.5, 11.0], np.float32)


@pytest.mark.parametrize("name, fn, x", [
    ("ndtr", lambda m, x: m.ndtr(x), GRAD_X),
    ("ndtri", lambda m, x: m.ndtri(x), np.array([0.01, 0.3, 0.5, 0.9, 0.999], np.float32)),
    ("log_ndtr", lambda m, x: m.log_ndtr(x), np.array([-30.0, -12.0, -1.0, 3.0, 7.0], np.float32)),
    ("i0", lambda m, x: m.i0(x), GRAD_X), ("i0e", lambda m, x: m.i0e(x), GRAD_X),
    ("i1", lambda m, x: m.i1(x), GRAD_X), ("i1e", lambda m, x: m.i1e(x), GRAD_X),
    ("erfcx", lambda m, x: m.erfcx(x), np.array([-2.0, 0.5, 5.0, 12.0, 30.0], np.float32)),
    ("entr", lambda m, x: m.entr(x), np.abs(GRAD_X)),
    ("poch", lambda m, x: m.poch(x, 2.5), np.abs(GRAD_X)),
    ("zeta_q", lambda m, x: m.zeta(3.0, x), np.abs(GRAD_X)),
    ("polygamma", lambda m, x: m.polygamma(1, x), np.abs(GRAD_X)),
    ("betainc_x", lambda m, x: m.betainc(2.0, 3.5, x), np.array([0.1, 0.4, 0.8], np.float32)),
    ("boxcox", lambda m, x: m.boxcox(x, 0.5), np.abs(GRAD_X)),
])
def test_gradients_are_jaxs(name, fn, x):
    # derivatives of formulas accurate to a few ulps: within 1e-5 relative of JAX's
    ours = jaxwg.vmap(jaxwg.grad(lambda v: fn(special, v)))(jnp.asarray(x))
    theirs = jax.vmap(jax.grad(lambda v: fn(jsp, v)))(x)
    np.testing.assert_allclose(np.asarray(ours), np.asarray(theirs), rtol=2e-5, atol=1e-7)


def test_lax_functions_dtypes_and_errors():
    for name, args in [("bessel_i0e", (np.float16([0.5, 3.0]),)), ("bessel_i1e", (np.float32(2.0),)),
                       ("zeta", (np.float32([2.0, 3.0]), np.float32([1.0, 2.0]))),
                       ("polygamma", (2.0, np.float32([1.5]))),
                       ("betainc", (np.float32(2.0), 3.0, np.float32([0.2, 0.7])))]:
        got = getattr(lax, name)(*[jnp.asarray(a) if isinstance(a, np.ndarray) else a for a in args])
        want = getattr(jax.lax, name)(*args)
        assert (got.dtype, got.shape, got.weak_type) == (want.dtype, want.shape, want.weak_type), name
        np.testing.assert_allclose(np.asarray(got, np.float32), np.asarray(want, np.float32),
                                   rtol=2e-3 if got.dtype == np.float16 else 2e-6)
    with pytest.raises(TypeError, match="bessel_i0e does not accept dtype int32"):
        lax.bessel_i0e(jnp.arange(2))
    with pytest.raises(TypeError, match="zeta got incompatible shapes"):
        lax.zeta(jnp.ones(2), jnp.ones(3))
    with pytest.raises(TypeError, match="lax.betainc requires arguments to have the same dtypes"):
        lax.betainc(jnp.ones(2), jnp.ones(2), jnp.ones(2, jnp.float16))
    with pytest.raises(ValueError, match="Betainc gradient with respect to a and b"):
        jaxwg.grad(lambda a: lax.betainc(a, 2.0, 0.5))(1.5)


def test_scipy_dtypes_and_errors():
    cases = [("ndtr", (1.5,)), ("i0e", (np.int32([1, 2]),)), ("erfcx", (np.float16([0.5]),)),
             ("beta", (2, 3.0)), ("comb", (5, 2)), ("factorial", (np.int32([3]),)),
             ("entr", (np.float16([0.5]),)), ("zeta", (2.0, np.float32([1.0]))),
             ("polygamma", (1, 2.0)), ("poch", (2.0, 3.0)), ("loggamma", (np.float32([2.0]),)),
             ]
    for name, args in cases:
        got = getattr(special, name)(*[jnp.asarray(a) if isinstance(a, np.ndarray) else a
                                       for a in args])
        want = getattr(jsp, name)(*args)
        assert (got.dtype, got.weak_type) == (want.dtype, want.weak_type), name
    with pytest.raises(TypeError, match="x.dtype=int32 is not supported"):
        special.ndtr(jnp.arange(3))
    with pytest.raises(TypeError, match="log_ndtr: x.dtype=float16 is not supported"):
        special.log_ndtr(jnp.ones(2, jnp.float16))
    with pytest.raises(ValueError, match="series_order must be non-negative"):
        special.log_ndtr(1.0, series_order=-1)
    with pytest.raises(ValueError, match="Argument `n` to polygamma must be of integer type"):
        special.polygamma(1.0, 2.0)
    with pytest.raises(NotImplementedError, match="Riemann zeta"):
        special.zeta(2.0)
    with pytest.raises(NotImplementedError, match="factorial with exact=True"):
        special.factorial(3, exact=True)
    with pytest.raises(ValueError, match="beta does not support complex"):
        special.beta(jnp.ones(2, jnp.complex64), 1.0)


