"""The rest of `jaxwg.scipy.special` (ndtr ... boxcox1p, dawsn, spence, bernoulli) and
`lax`'s bessel_i0e, bessel_i1e, betainc, zeta, polygamma against JAX (and SciPy in
float64 as the truth for accuracy).

Accuracy: each function's error in ulps (against SciPy in float64, in units of the
spacing of the true value, floored at 1 where noted) must be at most JAX's own worst
error over the same points plus the rounding that can differ between two evaluations of
the same formula: 4 ulps for straight-line formulas with a handful of roundings (entr,
the Bessel series, gammasgn, boxcox, ndtri, log_ndtr, erfcx, the rational functions of
dawsn and spence), 8 where a sum of ~10 terms
rounds more (zeta, poch, multigammaln), 32 for polygamma at negative x (terms of both
signs cancel), 64 for exp of gammaln sums (factorial, comb, beta: one ulp of a log up
to ~70 is 64 ulps of its exp) and for ndtr, whose lower tail magnifies the rounding of
x / sqrt(2) by erfc's condition number 2 w^2 (128 half-ulps at x = -11). betainc, whose
prefactor exp(a log x + b log1p(-x) - betaln) loses |log| eps, is held to JAX's error
plus 2e-6 absolute. Where SciPy or JAX is not finite (the edges each case also takes:
NaN, +-inf, +-0, poles), ours must be JAX's.
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


def _jax_jit(f):
    """`jax.jit(f)`, compiled without XLA's expensive backend optimizations: JAX's values
    are the same, and its compile (most of this file's time) takes half as long."""
    def call(*args):
        compiled = jax.jit(f).lower(*args).compile(
            compiler_options={"xla_backend_optimization_level": 0,
                              "xla_llvm_disable_expensive_passes": True})
        return compiled(*args)

    return call


def _wide(lo, hi, n=200):
    return RNG.uniform(lo, hi, n)


def _log_wide(lo, hi, n=200):
    return np.exp(RNG.uniform(np.log(lo), np.log(hi), n))


def _erfcx_reference(x):
    """SciPy's erfcx, with exp(x^2) in extended precision for x < 0 (SciPy's own there is
    ~x^2 / 2 ulps off: it rounds x * x)."""
    with np.errstate(invalid="ignore", over="ignore"):  # inf - inf at -inf (unused)
        negative = np.float64(2 * np.exp(np.longdouble(x) ** 2) - sc.erfcx(-x))
    return np.where(x < 0, negative, sc.erfcx(x))


EDGES = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 0.5, -2.0, 1e-30])
_V = np.array([np.nan, np.inf, 0.0, -0.0, 1.0, -1.0, 0.5, 2.0, -1.5, 3.0])
GRID = tuple(m.ravel() for m in np.meshgrid(_V, _V, indexing="ij"))


def _unary(points):
    return (np.concatenate([points, EDGES]),)


def _binary(p, q):
    return np.concatenate([p, GRID[0]]), np.concatenate([q, GRID[1]])


_B = np.array([1.0, 2.0, 0.0, np.inf])  # betainc's limits: a = 0, b = 0, infinities
_BETAINC_EDGES = tuple(m.ravel() for m in np.meshgrid(np.array([0.0, 2.0, np.inf, -1.0]), _B,
                                                      np.array([0.0, 0.3, 1.0, 1.5, -0.5, np.nan]),
                                                      indexing="ij"))
_N = np.array([0, 1, 1, 2, 3, 4, 1, 2, 1, 1, 1, 2], np.int32)
_NX = np.array([2.5, 0.3, 7.0, 0.5, 3.0, 12.0, -1.5, -2.5, 0.0, -1.0, np.inf, np.nan])

# name, args (float64 points, cast to the dtype under test), SciPy reference, slack ulps,
# floor (errors in ulps of max(|truth|, floor): 1 where the value crosses 0)
CASES = [
    ("ndtr", _unary(_wide(-12, 8)), sc.ndtr, 64, 0),
    ("ndtri", _unary(np.concatenate([_wide(0.001, 0.999), _log_wide(1e-30, 1e-3, 50)])),
     sc.ndtri, 4, 1),
    ("log_ndtr", _unary(_wide(-40, 12)), sc.log_ndtr, 4, 1),
    ("entr", _unary(_wide(0, 5)), sc.entr, 4, 1),
    ("i0", _unary(_wide(-20, 20)), sc.i0, 4, 0),
    ("i0e", _unary(_wide(-30, 30)), sc.i0e, 4, 0),
    ("i1", _unary(_wide(-20, 20)), sc.i1, 4, 1),
    ("i1e", _unary(_wide(-30, 30)), sc.i1e, 4, 1),
    ("gammasgn", _unary(_wide(-10, 10)), sc.gammasgn, 0, 0),
    ("loggamma", _unary(_log_wide(1e-3, 1e3)), sc.loggamma, 4, 1),
    ("erfcx", _unary(_wide(-9, 40)), _erfcx_reference, 4, 0),
    ("factorial", _unary(_wide(0, 30).round()), sc.factorial, 64, 0),
    ("multigammaln", (_wide(3, 30),), lambda a: sc.multigammaln(a, 4), 8, 1),  # SciPy: a > 3 / 2
    ("rel_entr", _binary(_wide(0, 4), _wide(0.01, 4)), sc.rel_entr, 4, 1),
    ("kl_div", _binary(_wide(0, 4), _wide(0.01, 4)), sc.kl_div, 4, 1),
    ("beta", _binary(_wide(0.1, 10), _wide(0.1, 10)), sc.beta, 64, 0),
    ("comb", _binary(_wide(0, 30).round(), _wide(0, 15).round()), sc.comb, 64, 1),
    ("poch", _binary(_wide(0.5, 10), _wide(-0.4, 5)), sc.poch, 8, 0),
    ("zeta", _binary(_wide(1.1, 30), _log_wide(0.05, 100)), sc.zeta, 8, 0),
    ("boxcox", _binary(_log_wide(0.01, 100), _wide(-2, 2)), sc.boxcox, 4, 1),
    ("boxcox1p", _binary(_log_wide(1e-6, 100), _wide(-2, 2)), sc.boxcox1p, 4, 1),
    ("polygamma", (_N, _NX), sc.polygamma, 32, 0),
    ("dawsn", _unary(_wide(-12, 12)), sc.dawsn, 4, 0),
    ("spence", _unary(np.concatenate([_wide(0, 3), _log_wide(3, 1e4, 50)])), sc.spence, 4, 1),
]
BETAINC = tuple(np.concatenate([v, e]) for v, e in
                zip((_log_wide(0.1, 50, 300), _log_wide(0.1, 50, 300), _wide(0, 1, 300)),
                    _BETAINC_EDGES))


def _ulps(got, want, dtype, floor):
    """|got - want| in units of the spacing of max(|want|, floor) in `dtype`."""
    scale = np.maximum(np.abs(want), max(floor, np.finfo(dtype).tiny)).astype(dtype)
    return np.abs(np.asarray(got, np.float64) - want) / np.spacing(scale).astype(np.float64)


def _call(name, module, args):
    if name == "multigammaln":
        return module.multigammaln(args[0], 4)
    return getattr(module, name)(*args)


def _cast(args, dtype):
    return tuple(a.astype(dtype) if a.dtype.kind == "f" else a for a in args)


def _check_all_as_accurate_as_jax(cases, dtype, transform):
    """Every case's errors within JAX's worst plus its slack, and JAX's values where
    either is not finite; ours eager or in one jit (`transform`), JAX's in one jit (one
    XLA compile for all, where eager JAX compiles each operation)."""
    cases = [(name, _cast(args, dtype), ref, slack, floor) for name, args, ref, slack, floor in cases]
    betainc = _cast(BETAINC, dtype)

    def everything(module, all_args, betainc):
        return [_call(c[0], module, a) for c, a in zip(cases, all_args)], module.betainc(*betainc)

    ours, ours_betainc = transform(lambda *a: everything(special, *a))(
        [tuple(map(jnp.asarray, c[1])) for c in cases], tuple(map(jnp.asarray, betainc)))
    theirs, theirs_betainc = _jax_jit(lambda *a: everything(jsp, *a))([c[1] for c in cases], betainc)
    for (name, args, reference, slack, floor), got, want_jax in zip(cases, ours, theirs):
        assert got.dtype == want_jax.dtype, name
        want = reference(*_cast(args, np.float64))
        got, want_jax = np.asarray(got), np.asarray(want_jax)
        finite = np.isfinite(want) & np.isfinite(want_jax)
        np.testing.assert_allclose(got[~finite], want_jax[~finite], rtol=1e-5, err_msg=name)
        errors = _ulps(got[finite], want[finite], dtype, floor)
        bound = _ulps(want_jax[finite], want[finite], dtype, floor).max() + slack
        assert errors.max() <= bound, (name, errors.max(), bound, args[0][finite][errors.argmax()])
    want = sc.betainc(*_cast(betainc, np.float64))
    got, want_jax = np.asarray(ours_betainc, np.float64), np.asarray(theirs_betainc, np.float64)
    finite = np.isfinite(want) & np.isfinite(want_jax)
    np.testing.assert_allclose(got[~finite], want_jax[~finite], rtol=1e-5)
    assert np.abs(got - want)[finite].max() <= np.abs(want_jax - want)[finite].max() + 2e-6


def test_float32_as_accurate_as_jax():
    _check_all_as_accurate_as_jax(CASES, np.float32, lambda f: f)  # eager


@pytest.fixture
def x64():
    jaxwg.config.update("jax_enable_x64", True)
    with jax.enable_x64(True):
        yield
    jaxwg.config.update("jax_enable_x64", False)


FLOAT64 = ("ndtr", "ndtri", "log_ndtr", "i1e", "erfcx", "zeta")


def test_float64_as_accurate_as_jax(x64):
    _check_all_as_accurate_as_jax([c for c in CASES if c[0] in FLOAT64], np.float64, jaxwg.jit)


def test_edges_on_the_gpu(platform):
    # NaN, +-inf and the poles in the same places on the GPU, for the functions of their
    # own tails (a compile each costs seconds on the software GPU), under jit
    if platform == "cpu":
        pytest.skip("the CPU's edges are in test_float32_as_accurate_as_jax")
    names = ["ndtr", "log_ndtr", "i1e", "erfcx"]
    x = EDGES.astype(np.float32)
    got = jaxwg.jit(lambda x: [getattr(special, name)(x) for name in names])(jnp.asarray(x))
    wants = _jax_jit(lambda x: [getattr(jsp, name)(x) for name in names])(x)
    for name, g, want in zip(names, got, wants):
        np.testing.assert_allclose(np.asarray(g), np.asarray(want), rtol=1e-5, atol=1e-30,
                                   err_msg=name)


GRAD_X = np.array([-3.0, -0.7, 0.3, 1.2, 4.5, 11.0], np.float32)
POSITIVE = np.abs(GRAD_X)
UNIT = np.array([0.01, 0.3, 0.5, 0.9, 0.999], np.float32)
GRADIENTS = [  # name, the function of one variable given the module, points: the custom
    # rules (i0's is exp(|x|) times i0e's)
    ("log_ndtr", lambda m, x: m.log_ndtr(x), np.array([-30.0, -12.0, -1.0, 3.0, 7.0], np.float32)),
    ("i0", lambda m, x: m.i0(x), GRAD_X),
    ("i1e", lambda m, x: m.i1e(x), np.array([0.0, -1e-9, 0.5, -3.0, 20.0], np.float32)),
    ("erfcx", lambda m, x: m.erfcx(x), np.array([-2.0, 0.5, 5.0, 12.0, 30.0], np.float32)),
    ("dawsn", lambda m, x: m.dawsn(x), GRAD_X), ("entr", lambda m, x: m.entr(x), POSITIVE),
    ("poch", lambda m, x: m.poch(x, 2.5), POSITIVE),
    ("betainc_x", lambda m, x: m.betainc(2.0, 3.5, x), UNIT),
]


def _all_gradients(jx, module, points, extra):
    grads = [jx.vmap(jx.grad(lambda v, f=f: f(module, v)))(x)
             for (_, f, _), x in zip(GRADIENTS, points)]
    return grads, extra(module)


def test_gradients_are_jaxs():
    # Custom rules and derivatives of formulas accurate to a few ulps: within 2e-5 of
    # JAX's. zeta's in q, polygamma's and ndtri's against closed forms on JAX's values
    # (JAX's own derivatives of its series take seconds to compile):
    # d/dq zeta(s, q) = -s zeta(s+1, q), psi1' = psi2, ndtri' = sqrt(2 pi) exp(ndtri^2 / 2)
    points = [x for _, _, x in GRADIENTS]

    def ours_extra(m):
        return (jaxwg.vmap(jaxwg.grad(lambda q: m.zeta(3.0, q)))(jnp.asarray(POSITIVE)),
                jaxwg.vmap(jaxwg.grad(lambda x: m.polygamma(1, x)))(jnp.asarray(POSITIVE)),
                jaxwg.vmap(jaxwg.grad(m.ndtri))(jnp.asarray(UNIT)))

    def theirs_extra(m):
        return (-3.0 * m.zeta(4.0, POSITIVE), m.polygamma(2, POSITIVE),
                np.sqrt(2 * np.pi) * jax.numpy.exp(m.ndtri(UNIT) ** 2 / 2))

    # ours eager (one jit over all of them traces and fuses slower than it runs)
    ours, ours_more = _all_gradients(jaxwg, special, [jnp.asarray(x) for x in points], ours_extra)
    theirs, theirs_more = _jax_jit(lambda p: _all_gradients(jax, jsp, p, theirs_extra))(points)
    names = [g[0] for g in GRADIENTS] + ["zeta_q", "polygamma", "ndtri"]
    for name, got, want in zip(names, ours + list(ours_more), theirs + list(theirs_more)):
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=2e-5, atol=1e-7,
                                   err_msg=name)


def _same_type(name, got, want):
    assert (got.dtype, got.shape, got.weak_type) == (want.dtype, want.shape, want.weak_type), name


def test_lax_functions_dtypes_and_errors():
    for name, args in [("bessel_i0e", (np.float16([0.5, 3.0]),)), ("bessel_i1e", (np.float32(2.0),)),
                       ("zeta", (np.float32([2.0, 3.0]), np.float32([1.0, 2.0]))),
                       ("polygamma", (2.0, np.float32([1.5]))),
                       ("betainc", (np.float32(2.0), 3.0, np.float32([0.2, 0.7])))]:
        _same_type(name, jaxwg.eval_shape(getattr(lax, name), *args),
                   jax.eval_shape(getattr(jax.lax, name), *args))
    half = np.float16([0.5, 3.0, -7.0])
    np.testing.assert_allclose(np.asarray(lax.bessel_i0e(jnp.asarray(half)), np.float32),
                               np.asarray(jax.lax.bessel_i0e(half), np.float32), rtol=1e-3)
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
             ("dawsn", (np.float16([1.0]),)), ("spence", (2.0,))]
    for name, args in cases:
        _same_type(name, jaxwg.eval_shape(getattr(special, name), *args),
                   jax.eval_shape(getattr(jsp, name), *args))
    # JAX's series (zeta(m) summed to k = 49: relative error below 50^(1-m) / (m - 1), 3e-6
    # at m = 4) against SciPy's exact numbers; JAX's own bernoulli(30) takes seconds eagerly
    np.testing.assert_allclose(np.asarray(special.bernoulli(30)), sc.bernoulli(30), rtol=3e-6)
    assert special.bernoulli(1).tolist() == [1.0, -0.5]
    _same_type("bernoulli", special.bernoulli(2), jsp.bernoulli(2))
    with pytest.raises(ValueError, match="n must be a non-negative integer"):
        special.bernoulli(-1)
    with pytest.raises(TypeError, match="x.dtype=int32 is not supported"):
        special.ndtr(jnp.arange(3))
    with pytest.raises(TypeError, match="spence: x.dtype=float16 is not supported"):
        special.spence(jnp.ones(2, jnp.float16))
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




def test_spence_derivative_at_its_exact_points_is_jaxs():
    # 0 and 1 take exact values; the branches not taken must not leak log(0)'s NaN
    x = np.array([0.0, 1.0, 0.3, 2.5], np.float32)
    got = jaxwg.vmap(jaxwg.grad(special.spence))(jnp.asarray(x))
    want = jax.vmap(jax.grad(jax.scipy.special.spence))(x)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-5)


@pytest.mark.parametrize("name", ["xlogy", "xlog1py"])
def test_x_log_edges_and_derivatives_are_jaxs(name):
    """0 where x is 0 unless y is NaN, and JAX's derivative rule (defined at x = 0)."""
    ours, theirs = getattr(special, name), getattr(jax.scipy.special, name)
    x = np.array([0, 0, 0, 0, 1, 2], np.float32)
    y = np.array([np.nan, 0, -1, np.inf, np.nan, 3], np.float32)
    np.testing.assert_array_equal(np.asarray(ours(jnp.asarray(x), jnp.asarray(y))),
                                  np.asarray(theirs(x, y)))
    for point in ((0.0, 0.0), (0.0, -1.0), (2.0, 3.0)):
        got = jaxwg.grad(ours, (0, 1))(*point)
        want = jax.grad(theirs, (0, 1))(*point)
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6)
