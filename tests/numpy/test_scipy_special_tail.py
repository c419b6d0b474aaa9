"""`jaxwg.scipy.special`'s exponential, sine/cosine and Fresnel integrals (expi, exp1,
expn, sici, fresnel), hypergeometric functions (hyp1f1, hyp2f1), bessel_jn, owens_t,
wofz and sph_harm_y against JAX (and SciPy in float64 as the truth for accuracy).

Accuracy: each function's float32 error in ulps (against SciPy in float64, in units of
the spacing of max(|truth|, floor)) must be at most JAX's own worst error over the same
points plus the rounding that can differ between two evaluations of the same formula:
4 ulps for the rational functions of Cephes (expi, exp1, sici, fresnel) and for
owens_t's quadrature, bessel_jn's recurrence and wofz's rational function (the same
operations as JAX's; wofz's errors in ulps of max(|w|, 1)); 8 for
expn's series and continued fraction (~20 terms, and our harmonic sum and factorial
exact where JAX's are too); 16 for hyp1f1 and hyp2f1 (series of up to 250 terms of both
signs, whose roundings accumulate, and gamma ratios each a few ulps off).

JAX compiles expi, exp1, expn, hyp1f1 and hyp2f1 slowly (~12 s together, while loops
under vmap): the default test holds them to JAX's worst error on these points as
measured (`JAX_ULPS`); `test_stated_jax_errors_and_edges` (slow) measures JAX's again,
checks the stated numbers and compares the values at the edges with JAX's. Where
SciPy or JAX is not finite, ours must be JAX's, except E_n(0) = 1 / (n - 1) for n >= 2
(JAX's is 1 / n).
"""

import numpy as np
import pytest
import scipy.special as sc

import jaxwg
import jaxwg.numpy as jnp
from jaxwg.scipy import special

from .helpers import jax
from .test_scipy_special_more import _cpu_unless_parametrized, _jax_jit  # noqa: F401 (fixture)

jsp = jax.scipy.special
RNG = np.random.default_rng(0)
# SLOW_CASES' points come from a generator of their own: JAX_ULPS are measured on them
SLOW_RNG = np.random.default_rng(1)


def _u(lo, hi, n=60, rng=RNG):
    return rng.uniform(lo, hi, n)


def _log_u(lo, hi, n=60, rng=RNG):
    return np.exp(rng.uniform(np.log(lo), np.log(hi), n))


def _su(lo, hi, n=60):
    return _u(lo, hi, n, SLOW_RNG)


def _slog_u(lo, hi, n=60):
    return _log_u(lo, hi, n, SLOW_RNG)


def _first(f, i):
    return lambda *a: f(*a)[i]


def _jn(module, v):
    return lambda z: module.bessel_jn(z, v=v)[v]


def _near_one(n):
    """hyp2f1's points near x = 1 with c - a - b an integer (the expansion in 1 - x)."""
    a, b = _su(0.2, 2, n).round(1), _su(0.2, 2, n).round(1)
    return a, b, a + b + SLOW_RNG.integers(-1, 3, n), _su(0.9, 0.99, n)


_NEAR_ONE = _near_one(20)
_TERMINATING = (-SLOW_RNG.integers(0, 6, 20).astype(float), _su(0.1, 3, 20), _su(0.5, 4, 20),
                _su(-1, 1, 20))

_WOFZ_POINTS = (_u(-5, 5), _u(-1.5, 5))
# name, function of the module, args (float64 points, cast to float32), SciPy reference,
# slack ulps, floor (errors in ulps of max(|truth|, floor): 1 where the value crosses 0)
CASES = [
    ("si", lambda m: _first(m.sici, 0), (np.concatenate([_u(-30, 30), _log_u(1e-3, 1e4, 20)]),),
     lambda x: sc.sici(x)[0], 4, 0),
    ("ci", lambda m: _first(m.sici, 1), (np.concatenate([_u(0, 30), _log_u(1e-3, 1e4, 20)]),),
     lambda x: sc.sici(x)[1], 4, 1),
    ("fresnel_s", lambda m: _first(m.fresnel, 0),
     (np.concatenate([_u(-8, 8), _log_u(1e-3, 1e5, 20)]),),
     lambda x: sc.fresnel(x)[0], 4, 0),
    ("fresnel_c", lambda m: _first(m.fresnel, 1),
     (np.concatenate([_u(-8, 8), _log_u(1e-3, 1e5, 20)]),),
     lambda x: sc.fresnel(x)[1], 4, 0),
    ("owens_t", lambda m: m.owens_t, (_u(-4, 4, 80), _u(-5, 5, 80)), sc.owens_t, 4, 0),
    ("bessel_j2", lambda m: _jn(m, 2), (_u(8, 30),), lambda z: sc.jv(2, z), 4, 1),
    ("wofz_re", lambda m: lambda x, y: m.wofz(x + 1j * y).real, _WOFZ_POINTS,
     lambda x, y: sc.wofz(x + 1j * y).real, 4, 1),
    ("wofz_im", lambda m: lambda x, y: m.wofz(x + 1j * y).imag, _WOFZ_POINTS,
     lambda x, y: sc.wofz(x + 1j * y).imag, 4, 1),
]
SLOW_CASES = [
    ("expi", lambda m: m.expi, (np.concatenate([_su(-30, 80), _slog_u(1e-3, 2, 20)]),), sc.expi,
     4, 1),
    ("exp1", lambda m: m.exp1, (_slog_u(1e-3, 80),), sc.exp1, 4, 0),
    ("expn", lambda m: m.expn,
     (np.concatenate([SLOW_RNG.integers(0, 7, 80), [5000, 6000, 5500]]).astype(float),
      np.concatenate([_slog_u(1e-3, 40, 80), [0.5, 3.0, 20.0]])), sc.expn, 8, 0),
    ("hyp1f1", lambda m: m.hyp1f1, (_su(0.1, 5), _su(0.1, 5), _su(-3, 12)), sc.hyp1f1, 16, 0),
    ("hyp2f1", lambda m: m.hyp2f1,  # general points, near x = 1, terminating: one call
     tuple(np.concatenate(p) for p in zip((_su(0.1, 3), _su(0.1, 3), _su(0.5, 5), _su(-0.6, 0.6)),
                                          _NEAR_ONE, _TERMINATING)), sc.hyp2f1, 16, 1),
]
# JAX 0.10.2's worst float32 error in ulps on SLOW_CASES' points, as measured by
# test_stated_jax_errors_and_edges (which fails if JAX's is larger)
JAX_ULPS = {"expi": 2.8, "exp1": 2.7, "expn": 7.5, "hyp1f1": 196.9, "hyp2f1": 25.6}


inf, nan = np.inf, np.nan
# Edges of the slow cases and JAX 0.10.2's float32 values there (checked against JAX by
# test_stated_jax_errors_and_edges), except that E_2(0) = 1 and E_3(0) = 1 / 2 (JAX's
# 1 / n: 0.5 and 0.3333)
EDGES = {
    "expi": ([(x,) for x in [0.0, -0.0, inf, -inf, nan, 1e-30, -1e-30, 100.0, -100.0]],
             [nan, nan, nan, nan, nan, -68.50033, -68.50033, inf, -0.0]),
    "exp1": ([(x,) for x in [0.0, -0.0, inf, -inf, nan, -1.0, 1e-30, 100.0]],
             [inf, inf, nan, nan, nan, nan, 68.50033, 0.0]),
    "expn": ([(0, 0), (1, 0), (2, 0), (3, 0), (0, 1), (5000, 0), (3, -1), (-1, 2), (-1, 0.5),
              (1, nan), (2, inf), (6000, 0.5), (2.5, 2), (2.5, 0.5)],
             [inf, inf, 1.0, 0.5, 0.36787945, 2.0004001e-4, nan, 0.10150146, nan, nan, nan,
              1.0109687e-4, 0.033468764, nan]),
    "hyp1f1": ([(0, 0, 1), (0, 1, 2), (1, 1, 2), (1, 0, 2), (2, 0, 1), (1, 2, 0), (1, 2, nan),
                (nan, 1, 1), (1, 2, -1)],
               [1.0, 1.0, 7.389056, inf, inf, 1.0, nan, 1.0, 0.63212049]),
    "hyp2f1": ([(1, 1, 2, 0), (0, 1, 2, 0.5), (1, 1, 0, 0.5), (1, 1, -2, 0.5), (1, 1, 2, 1),
                (1, 1, 3, 1), (1, 1, 2, 1.5), (1, 2, 2, 0.5), (2, 1, 2, 0.5), (1, 1, 2, -0.5),
                (-2, 3, 2, 0.3), (1, 2, 2.5, 1.0), (0.5, 0.5, -1.5, 0.5), (3, 4, 2, 0.95)],
               [1.0, 1.0, inf, inf, inf, 2.0, inf, 2.0, 2.0, 0.81093025, 0.28, inf, 1.885618,
                6239993.0]),
}
_NOT_JAXS = {("expn", 2): 0.5, ("expn", 3): 1 / 3}  # JAX's values where ours differ


def _edge_args(points):
    return tuple(np.array(p, np.float32) for p in zip(*points))


def _ulps(got, want, floor):
    """|got - want| in units of the float32 spacing of max(|want|, floor)."""
    scale = np.maximum(np.abs(want), max(floor, np.finfo(np.float32).tiny)).astype(np.float32)
    return np.abs(np.asarray(got, np.float64) - want) / np.spacing(scale).astype(np.float64)


def _f32(args):
    return tuple(np.asarray(a, np.float32) for a in args)


def _errors(cases, values):
    """Each case's worst error in ulps (at the points where SciPy is finite)."""
    worst = {}
    for (name, _, args, reference, _, floor), got in zip(cases, values):
        want = reference(*[a.astype(np.float64) for a in _f32(args)])
        finite = np.isfinite(want)
        worst[name] = _ulps(np.asarray(got)[finite], want[finite], floor).max()
    return worst


def _ours(cases):
    return jaxwg.jit(lambda all_args: [f(special)(*a) for (_, f, *_), a in zip(cases, all_args)])(
        [_f32(c[2]) for c in cases])


def _theirs(cases):
    return _jax_jit(lambda all_args: [f(jsp)(*a) for (_, f, *_), a in zip(cases, all_args)])(
        [_f32(c[2]) for c in cases])


_V = np.array([nan, inf, -inf, 0.0, -0.0, 1.0, -1.0, 0.5, 3.0])
_EDGE_ARGS = {"si": (_V,), "ci": (_V,), "fresnel_s": (_V,), "fresnel_c": (_V,),
              "owens_t": tuple(m.ravel() for m in np.meshgrid(_V, _V)), "bessel_j2": (_V,),
              "wofz_re": (_V, _V[::-1]), "wofz_im": (_V, _V[::-1])}


def _with_edges(case, edges):
    name, f, args, *rest = case
    return (name, f, tuple(np.concatenate([a, e]) for a, e in zip(args, edges)), *rest)


def _split(values, cases):
    """Each case's values at its points and at the edges appended to them."""
    sizes = [len(c[2][0]) for c in cases]
    values = [np.asarray(v) for v in values]
    return [v[:n] for v, n in zip(values, sizes)], [v[n:] for v, n in zip(values, sizes)]


def test_float32_as_accurate_as_jax():
    """Errors within JAX's plus the slack; at the edges (NaN, +-inf, +-0, poles) JAX's
    values (those of the slow cases stated in EDGES)."""
    cases = [_with_edges(c, _EDGE_ARGS[c[0]]) for c in CASES]
    ours, ours_edges = _split(_ours(cases), CASES)
    theirs, theirs_edges = _split(_theirs(cases), CASES)
    ours_errors, theirs_errors = _errors(CASES, ours), _errors(CASES, theirs)
    for (name, _, _, _, slack, _), got, want in zip(CASES, ours_edges, theirs_edges):
        assert ours_errors[name] <= theirs_errors[name] + slack, (name, ours_errors[name],
                                                                  theirs_errors[name])
        np.testing.assert_allclose(got, want, rtol=1e-5, err_msg=name)
    cases = [_with_edges(c, _edge_args(EDGES[c[0]][0])) for c in SLOW_CASES]
    ours, ours_edges = _split(_ours(cases), SLOW_CASES)
    ours_errors = _errors(SLOW_CASES, ours)
    for (name, _, _, _, slack, _), got in zip(SLOW_CASES, ours_edges):
        assert ours_errors[name] <= JAX_ULPS[name] + slack, (name, ours_errors[name],
                                                             JAX_ULPS[name])
        np.testing.assert_allclose(got, np.float32(EDGES[name][1]), rtol=1e-5, err_msg=name)


@pytest.mark.slow
def test_stated_jax_errors_and_edges():
    theirs = _errors(SLOW_CASES, _theirs(SLOW_CASES))
    for name in JAX_ULPS:
        assert theirs[name] <= JAX_ULPS[name], (name, theirs[name], JAX_ULPS[name])
    for name, (points, want) in EDGES.items():  # one point a call (JAX's vectorized expn
        f = jax.jit(getattr(jsp, name))          # runs each loop on each point: some never end)
        got = [f(*np.float32(p)) for p in points]
        want = [_NOT_JAXS.get((name, p[0]), w) if name == "expn" and p[1] == 0 else w
                for p, w in zip(points, want)]
        np.testing.assert_allclose(np.float32(got), np.float32(want), rtol=1e-6, err_msg=name)


def _same_type(name, got, want):
    for g, w in zip(jax.tree.leaves(got), jax.tree.leaves(want)):
        assert (g.dtype, g.shape, g.weak_type) == (w.dtype, w.shape, w.weak_type), name


def test_dtypes_and_errors_are_jaxs():
    f32, f16, i32 = np.float32([1.0, 2.0]), np.float16([1.0, 2.0]), np.int32([1, 2])
    cases = [("expi", (1.0,)), ("exp1", (i32,)), ("expn", (i32, f32)), ("sici", (f16,)),
             ("fresnel", (f16,)), ("hyp1f1", (1.0, 2.0, 0.5)), ("hyp2f1", (1, 2, 3, f16)),
             ("owens_t", (f16, 0.5)), ("wofz", (f16,))]
    for name, args in cases:
        _same_type(name, jaxwg.eval_shape(getattr(special, name), *args),
                   jax.eval_shape(getattr(jsp, name), *args))
    for v, z in ((0, 2.0), (2, i32)):
        _same_type("bessel_jn", jaxwg.eval_shape(lambda z: special.bessel_jn(z, v=v), z),
                   jax.eval_shape(lambda z: jsp.bessel_jn(z, v=v), z))
    c = np.complex64(1.0)
    for name, args, error, message in [
            ("expi", (c,), ValueError, "expi does not support complex-valued inputs"),
            ("exp1", (c,), ValueError, "exp1 does not support complex-valued inputs"),
            ("expn", (1.0, c), ValueError, "expn does not support complex-valued inputs"),
            ("sici", (c,), ValueError, "Argument `x` to sici must be real-valued"),
            ("fresnel", (c,), NotImplementedError, "complex-valued inputs is not implemented"),
            ("hyp1f1", (1.0, 2.0, c), ValueError, "hyp1f1 does not support complex-valued"),
            ("hyp2f1", (1.0, 2.0, 3.0, c), (TypeError, ValueError), "complex")]:
        with pytest.raises(error, match=message):
            getattr(special, name)(*args)
        with pytest.raises(error):
            getattr(jsp, name)(*args)
    with pytest.raises(TypeError, match="complex"):
        special.bessel_jn(c, v=1)
    with pytest.raises(TypeError):
        special.bessel_jn(1.0, v=1.5)
    with pytest.raises(TypeError):
        jsp.bessel_jn(1.0, v=1.5)


_GX = np.array([0.3, 0.9, 2.5, 7.0], np.float32)
_X, _H = _GX.astype(np.float64), 1e-6

# the function of one variable, its derivative at _X: JAX's rules (custom_jvp: expi, exp1,
# expn, sici, fresnel, owens_t, hyp1f1, hyp2f1; autodiff of the recurrence: bessel_jn) in
# closed form in float64 SciPy, the parameter derivatives of 1F1 and 2F1 as central
# differences of SciPy's
GRADIENTS = [
    ("expi", special.expi, np.exp(_X) / _X),
    ("si", lambda v: special.sici(v)[0], np.sin(_X) / _X),
    ("ci", lambda v: special.sici(v)[1], np.cos(_X) / _X),
    ("fresnel_s", lambda v: special.fresnel(v)[0], np.sin(np.pi * _X * _X / 2)),
    ("fresnel_c", lambda v: special.fresnel(v)[1], np.cos(np.pi * _X * _X / 2)),
    ("owens_t_h", lambda v: special.owens_t(v, 0.7),
     -np.exp(-_X * _X / 2) * sc.erf(0.7 * _X / np.sqrt(2)) / (2 * np.sqrt(2 * np.pi))),
    ("owens_t_a", lambda v: special.owens_t(1.3, v),
     np.exp(-(1 + _X * _X) * 1.69 / 2) / (2 * np.pi * (1 + _X * _X))),
    ("wofz_im", lambda v: special.wofz(v).imag,  # w'(x) = -2 x w(x) + 2i / sqrt(pi)
     (-2 * _X * sc.wofz(_X) + 2j / np.sqrt(np.pi)).imag),
]
SLOW_GRADIENTS = [  # series and loops: seconds each under grad
    ("expn", lambda v: special.expn(3, v), -sc.expn(2, _X)),
    ("exp1", special.exp1, -np.exp(-_X) / _X),
    ("bessel_jn", lambda v: special.bessel_jn(v + 8.0, v=2)[2],
     (sc.jv(1, _X + 8) - sc.jv(3, _X + 8)) / 2),
    ("hyp1f1_x", lambda v: special.hyp1f1(1.5, 2.5, v), 1.5 / 2.5 * sc.hyp1f1(2.5, 3.5, _X)),
    ("hyp1f1_a", lambda v: special.hyp1f1(v, 2.5, 1.2),
     (sc.hyp1f1(_X + _H, 2.5, 1.2) - sc.hyp1f1(_X - _H, 2.5, 1.2)) / (2 * _H)),
    ("hyp2f1_x", lambda v: special.hyp2f1(1.5, 0.5, 2.5, v / 8),
     1.5 * 0.5 / 2.5 * sc.hyp2f1(2.5, 1.5, 3.5, _X / 8) / 8),
    ("hyp2f1_c", lambda v: special.hyp2f1(1.5, 0.5, v + 1, 0.4),
     (sc.hyp2f1(1.5, 0.5, _X + 1 + _H, 0.4) - sc.hyp2f1(1.5, 0.5, _X + 1 - _H, 0.4)) / (2 * _H)),
]


@pytest.mark.parametrize("cases", [GRADIENTS, pytest.param(SLOW_GRADIENTS, marks=pytest.mark.slow)],
                         ids=["formulas", "series"])
def test_gradients_are_jaxs_rules(cases):
    for name, f, want in cases:
        got = jaxwg.vmap(jaxwg.grad(f))(jnp.asarray(_GX))
        np.testing.assert_allclose(np.asarray(got), want, rtol=2e-5, atol=1e-6, err_msg=name)


def test_sph_harm_y_is_jaxs():
    """Values within 5e-7 of JAX's and SciPy's (the same recurrences as JAX's, ~2 n_max
    roundings of values below 1), |m| > n and n > n_max clipped as JAX's, JAX's type
    (a scalar theta too)."""
    n = np.array([0, 1, 2, 3, 2, 4, 5, 5, 3, 4])
    m = np.array([0, -1, 2, 1, -2, -3, 5, -4, 4, 1])
    theta = np.float32([0.3, 1.0, 2.0, 0.5, 1.5, 0.0, 3.1, 1.2, 0.7, np.pi / 2])
    phi = np.float32([0.1, 0.7, 2.0, 4.0, 5.5, 1.0, 2.0, 6.0, 0.2, 3.0])
    want = _jax_jit(lambda: jsp.sph_harm_y(n, m, theta, phi, n_max=5))()
    got = special.sph_harm_y(n, m, theta, phi, n_max=5)
    _same_type("sph_harm_y", got, want)
    _same_type("sph_harm_y", special.sph_harm_y(np.array([2]), np.array([1]), 0.3, 0.5), want[:1])
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), atol=5e-7)
    valid = np.abs(m) <= n
    np.testing.assert_allclose(np.asarray(got)[valid], sc.sph_harm_y(
        n, m, theta.astype(np.float64), phi.astype(np.float64))[valid], atol=5e-7)
    # n = 3 > n_max = 2: Y_2^1
    clipped = special.sph_harm_y(np.array([3]), np.array([1]), theta[:1], phi[:1], n_max=2)
    np.testing.assert_allclose(np.asarray(clipped), sc.sph_harm_y(2, 1, 0.3, 0.1), atol=5e-7)
    with pytest.raises(NotImplementedError, match="'diff_n' argument"):
        special.sph_harm_y(n, m, theta, phi, diff_n=1)
