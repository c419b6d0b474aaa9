"""`jaxwg.scipy.stats` against `jax.scipy.stats`: values (NaN, infinities, the edges of
each support), dtypes and weak types, gradients, errors; `mode`, `rankdata`, `sem`.

JAX compiles each function with XLA, which costs seconds for the incomplete gamma and
beta functions and `log_ndtr`: JAX's values come from one `jax.jit` of the other
functions, computed once; the cdfs built on `gammainc`, `betainc` and `log_ndtr` (thin
wrappers of special functions that tests/numpy/test_scipy_special.py holds to JAX) are
compared with `scipy.stats`, as JAX's own tests do, on valid parameters. The dtype and
weak type of every function come from `jax.eval_shape`, which compiles nothing.
"""

import functools

import numpy as np
import pytest
import scipy.stats as sps
from hypothesis import given, settings, strategies as st

import jaxwg
import jaxwg.numpy as jnp
from jaxwg.scipy import stats

from .helpers import jax

F32 = np.float32
# Where each distribution is evaluated: the first argument holds NaN, +-inf and the edges
# of the supports (shape (8, 1)); the parameters (shape (3,)) broadcast against it and
# include invalid values where JAX gives them a meaning.
X = np.array([np.nan, -np.inf, -1.5, -0.0, 0.5, 1.0, 2.0, np.inf], F32)[:, None]
UNIT = np.array([np.nan, -0.5, 0.0, 1e-6, 0.25, 0.5, 1.0, 1.5], F32)[:, None]
COUNT = np.array([np.nan, -1.0, 0.0, 1.0, 2.0, 2.5, 3.0, 7.0], F32)[:, None]
LOC = np.array([0.0, -1.0, 0.5], F32)
SCALE = np.array([1.0, 2.0, 0.5], F32)
SHAPE = np.array([0.5, 1.0, 3.0], F32)
PROB = np.array([0.25, 0.5, 1.0], F32)
LOCATION_SCALE = (X, LOC, SCALE)
QUANTILE = (UNIT, LOC, SCALE)

ARGS = {
    "norm": {"ppf": QUANTILE, "isf": QUANTILE, None: LOCATION_SCALE},
    "uniform": {"ppf": QUANTILE, None: LOCATION_SCALE},
    "expon": {"ppf": QUANTILE, None: LOCATION_SCALE},
    "laplace": {None: LOCATION_SCALE},
    "logistic": {"ppf": QUANTILE, "isf": QUANTILE, None: LOCATION_SCALE},
    "cauchy": {"ppf": QUANTILE, "isf": QUANTILE, None: LOCATION_SCALE},
    "pareto": {"ppf": (UNIT, SHAPE, LOC, SCALE), None: (X, SHAPE, LOC, SCALE)},
    "t": {None: (X, SHAPE, LOC, SCALE)},
    "gamma": {None: (X, SHAPE, LOC, SCALE)},
    "chi2": {None: (X, np.array([1.0, 2.0, 5.0], F32), LOC, SCALE)},
    "beta": {None: (UNIT, SHAPE, np.array([2.0, 0.5, 1.0], F32), LOC, SCALE)},
    "poisson": {"entropy": (np.array([0.0, 0.5, 9.0, 10.0, 50.0, 150.0], F32),),
                None: (COUNT, SHAPE, np.array([0.0, 1.0, 0.0], F32))},
    "bernoulli": {"cdf": (COUNT, PROB), "ppf": (UNIT, PROB),
                  None: (COUNT, PROB, np.array([0.0, 1.0, 0.0], F32))},
    "binom": {None: (COUNT, np.array([3.0, 0.0, 5.0], F32), PROB, LOC)},
    "geom": {None: (COUNT, PROB, LOC)},
    "nbinom": {None: (COUNT, np.array([3.0, 1.0, 5.0], F32), PROB, LOC)},
    "betabinom": {None: (COUNT, np.array([3.0, 0.0, 5.0], F32), SHAPE,
                         np.array([2.0, 0.5, -1.0], F32), np.array([0.0, 1.0, 0.0], F32))},
    "gennorm": {None: (X, np.array([1.0, 2.0, 0.5], F32))},
    "vonmises": {None: (X, np.array([1.0, 0.0, 4.0], F32))},
    "wrapcauchy": {None: (X, np.array([0.5, 0.0, 0.9], F32))},
    "gumbel_r": {"ppf": QUANTILE, None: (X, LOC, np.array([1.0, 2.0, -1.0], F32))},
    "gumbel_l": {"ppf": QUANTILE, None: (X, LOC, np.array([1.0, 2.0, -1.0], F32))},
    "truncnorm": {None: (X, np.array([-1.0, 0.5, -np.inf], F32), np.array([1.0, 3.0, 0.5], F32),
                         LOC, SCALE)},
}

# Compared with scipy.stats (SciPy's name, how its arguments map from JAX's).
SCIPY = {("gamma", "cdf"), ("gamma", "sf"), ("chi2", "cdf"), ("chi2", "sf"), ("beta", "cdf"),
         ("beta", "sf"), ("poisson", "cdf"), ("gennorm", "cdf"), ("truncnorm", "logpdf"),
         ("truncnorm", "cdf"), ("truncnorm", "logcdf"), ("truncnorm", "sf"), ("truncnorm", "logsf")}
# log(cdf), log(sf) and exp(logpdf) of the above: each costs a compile of its own, for
# one log or exp (their doctests and the dtype test below cover them).
THIN_WRAPPERS = {("gamma", "logcdf"), ("gamma", "logsf"), ("chi2", "logcdf"), ("chi2", "logsf"),
                 ("beta", "logcdf"), ("beta", "logsf"), ("truncnorm", "pdf")}
# exp(logpdf) and exp(logpmf) in JAX: compared with the exponential of JAX's log value,
# which saves compiling them again.
EXP_OF = {"pdf": "logpdf", "pmf": "logpmf"}
# JAX's values of each function cost 0.1-0.8 s of XLA compile, and the file has 12 s in
# the default run: these families run there, the others with --runslow (the slow job).
FAST = {"norm", "expon", "gamma", "t", "binom"}
# The families also run on WebGPU (under jit): one of each kind of kernel.
WEBGPU = {"norm", "binom", "t", "vonmises"}


def _functions(family):
    module = getattr(jax.scipy.stats, family)
    return sorted(n for n in dir(module) if not n.startswith("_")
                  and getattr(getattr(module, n), "__module__", "").startswith("jax._src.scipy.stats")
                  and callable(getattr(module, n)))


CASES = [(family, name) for family in ARGS for name in _functions(family)]


def _args(family, name):
    return ARGS[family].get(name, ARGS[family][None])


def _ours(family, name):
    return getattr(getattr(stats, family), name)


def _theirs(family, name):
    return getattr(getattr(jax.scipy.stats, family), name)


@functools.lru_cache(None)
def _jax_values(slow):
    """JAX's value of each function outside SCIPY, THIN_WRAPPERS and EXP_OF, of the
    families in FAST or of the others, from one jit."""
    cases = [c for c in CASES if c not in SCIPY and c not in THIN_WRAPPERS
             and c[1] not in EXP_OF and (c[0] not in FAST) == slow]

    def evaluate(*flat):
        out, i = {}, 0
        for family, name in cases:
            n = len(_args(family, name))
            out[f"{family}.{name}"] = _theirs(family, name)(*flat[i:i + n])
            i += n
        return out

    flat = [a for c in cases for a in _args(*c)]
    jax.config.update("jax_disable_most_optimizations", True)  # a quicker XLA compile
    try:
        return jax.device_get(jax.jit(evaluate)(*flat))
    finally:
        jax.config.update("jax_disable_most_optimizations", False)


def _scipy_value(family, name, args):
    """scipy.stats' value: its truncnorm takes a and b first; logpdf and logcdf keep names."""
    if family == "truncnorm":
        x, a, b, loc, scale = args
        return getattr(sps.truncnorm, name)(x, a, b, loc, scale)
    return getattr(getattr(sps, family), name)(*args)


def _same(got, want, rtol=2e-5, atol=1e-6):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, want.dtype,
                                                                  got.shape, want.shape)
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, equal_nan=True)


def test_names_are_jaxs():
    assert set(stats.__all__) <= {n for n in dir(jax.scipy.stats) if not n.startswith("_")}
    for family in ARGS:
        assert sorted(getattr(stats, family).__all__) == _functions(family)


@pytest.mark.parametrize("family", [f if f in FAST else pytest.param(f, marks=pytest.mark.slow)
                                    for f in sorted(ARGS)])
def test_distributions_match_jax(platform, family):
    """Every function of the family on the grid: eagerly on the CPU backend, and under jit
    on WebGPU for the families in WEBGPU."""
    if platform == "webgpu" and family not in WEBGPU:
        pytest.skip("one family per kind of kernel runs on WebGPU")
    names = [n for n in _functions(family) if (family, n) not in THIN_WRAPPERS]
    if platform == "webgpu":
        outs = jaxwg.jit(lambda *a: {n: _ours(family, n)(*a[i]) for i, n in enumerate(names)})(
            *[tuple(map(jnp.asarray, _args(family, n))) for n in names])
    else:
        outs = {n: _ours(family, n)(*map(jnp.asarray, _args(family, n))) for n in names}
    atol = 2e-5 if platform == "webgpu" else 1e-6
    for name in names:
        args = _args(family, name)
        got = outs[name]
        if (family, name) in SCIPY:
            want = _scipy_value(family, name, [a.astype(np.float64) for a in args]).astype(F32)
            if family == "truncnorm":  # JAX's truncnorm cdfs give NaN x the value of 0
                got, want = np.asarray(got)[1:], want[1:]
            _same(got, want, rtol=1e-4, atol=max(atol, 1e-6))
        else:
            values = _jax_values(family not in FAST)
            if name in EXP_OF:
                want = np.exp(values[f"{family}.{EXP_OF[name]}"])
            else:
                want = values[f"{family}.{name}"]
            if family == "cauchy" and name in ("logcdf", "logsf"):
                # XLA fuses 0.5 + atan(-inf) / pi into one FMA: log(6e-9), not -inf
                got, want = np.asarray(got)[2:-1], want[2:-1]
            _same(got, want, rtol=2e-5, atol=atol)


@pytest.mark.parametrize("family, name", CASES)
def test_dtypes_and_weak_types_match_jax(family, name):
    """Python scalars, integers and float16 promote as JAX's (abstract evaluation only)."""
    args = _args(family, name)
    scalars = [float(np.ravel(a)[4 if i == 0 else 1]) for i, a in enumerate(args)]
    for case in (scalars, [np.int32(1)] + scalars[1:], [np.float16(s) for s in scalars]):
        try:
            want = jax.eval_shape(_theirs(family, name), *case)
        except TypeError as e:  # float16 in ndtri, ...
            with pytest.raises(TypeError, match=str(e).split(":")[-1].strip()[:20]):
                jaxwg.eval_shape(_ours(family, name), *case)
            continue
        got = jaxwg.eval_shape(_ours(family, name), *case)
        assert (got.shape, got.dtype, got.weak_type) == (want.shape, want.dtype, want.weak_type)


def test_gradients_match_jax():
    cases = [("norm", "logpdf", (0.3, -0.2, 1.5)), ("norm", "cdf", (0.3, -0.2, 1.5)),
             ("gamma", "logpdf", (1.5, 2.5, 0.1, 2.0)), ("t", "logpdf", (0.7, 3.0, 0.2, 1.5))]

    def grads(grad, module):
        return [grad(getattr(getattr(module, f), n), argnums=tuple(range(len(a))))(*map(F32, a))
                for f, n, a in cases]

    want = jax.jit(lambda: grads(jax.grad, jax.scipy.stats))()
    got = grads(jaxwg.grad, stats)
    for g, w in zip(got, want):
        for gi, wi in zip(g, w):
            _same(gi, wi, rtol=1e-5)


def test_gradient_of_the_gamma_cdf_matches_jax():
    want = jax.grad(jax.scipy.stats.gamma.cdf)(F32(1.5), F32(2.5))
    got = jaxwg.grad(stats.gamma.cdf)(jnp.asarray(F32(1.5)), jnp.asarray(F32(2.5)))
    _same(got, want, rtol=1e-5)


_WIDE = [("norm", "logpdf"), ("norm", "logcdf"), ("norm", "sf"), ("t", "logpdf"),
         ("logistic", "logpdf"), ("laplace", "cdf"), ("cauchy", "logsf")]


@functools.lru_cache(None)
def _jax_wide():
    return jax.jit(lambda x, loc, scale, df: [
        _theirs(f, n)(*((x, df, loc, scale) if f == "t" else (x, loc, scale))) for f, n in _WIDE])


@pytest.mark.slow
@settings(max_examples=12, deadline=None)
@given(st.floats(-30, 30, width=32), st.floats(-5, 5, width=32), st.floats(0.125, 10, width=32),
       st.floats(0.25, 20, width=32))
def test_densities_over_wide_ranges_match_jax(x, loc, scale, df):
    want = _jax_wide()(F32(x), F32(loc), F32(scale), F32(df))
    for (family, name), w in zip(_WIDE, want):
        args = (x, df, loc, scale) if family == "t" else (x, loc, scale)
        _same(_ours(family, name)(*map(F32, args)), w, rtol=1e-4, atol=1e-5)


def test_errors_name_the_function():
    with pytest.raises(TypeError, match="norm.logpdf"):
        stats.norm.logpdf([0.0, 1.0])
    with pytest.raises(TypeError, match="gamma.cdf"):
        stats.gamma.cdf(1.0, [1.0])
    with pytest.raises(TypeError, match="incompatible shapes"):
        stats.expon.pdf(jnp.zeros(2), jnp.zeros(3))
    with pytest.raises(ValueError, match="one-dimensional"):
        stats.dirichlet.logpdf(jnp.ones((2, 2)), jnp.ones((2, 2)))
    with pytest.raises(ValueError, match="one entry fewer"):
        stats.dirichlet.logpdf(jnp.ones(4), jnp.ones(2))
    with pytest.raises(ValueError, match="integer type"):
        stats.multinomial.logpmf(jnp.ones(2), 2, jnp.ones(2) / 2)
    with pytest.raises(NotImplementedError, match="allow_singular"):
        stats.multivariate_normal.logpdf(jnp.zeros(2), jnp.zeros(2), jnp.eye(2),
                                         allow_singular=True)
    with pytest.raises(ValueError, match="incompatible shapes"):
        stats.multivariate_normal.logpdf(jnp.zeros(2), jnp.zeros(2), jnp.eye(3))
    for fn in (stats.mode, stats.rankdata):
        with pytest.raises(ValueError, match="Illegal nan_policy"):
            fn(jnp.ones(3), nan_policy="skip")
        with pytest.raises(NotImplementedError):
            fn(jnp.ones(3), nan_policy="omit")
    with pytest.raises(ValueError, match="unknown method"):
        stats.rankdata(jnp.ones(3), method="mean")
    with pytest.raises(ValueError, match="not supported"):
        stats.sem(jnp.ones(3), nan_policy="raise")


@pytest.mark.slow
def test_dirichlet_and_multinomial_match_jax():
    alpha = np.array([0.5, 2.0, 3.0], F32)
    simplex = np.array([[0.2, 0.3, 0.5], [0.5, 0.5, 0.0], [0.3, 0.3, 0.3], [0.1, 0.1, 0.8]], F32).T
    points = (simplex, simplex[:2], simplex[:, 0])
    counts = np.array([[1, 2, 0], [0, 3, 1], [3, 0, 0]], np.int32)
    p = np.array([0.2, 0.5, 0.3], F32)
    want = jax.jit(lambda: ([jax.scipy.stats.dirichlet.logpdf(s, alpha) for s in points],
                            [jax.scipy.stats.multinomial.logpmf(counts, n, p) for n in (3, 4)]))()
    for s, w in zip(points, want[0]):
        _same(stats.dirichlet.logpdf(jnp.asarray(s), jnp.asarray(alpha)), w, rtol=1e-5)
    for n, w in zip((3, 4), want[1]):
        _same(stats.multinomial.logpmf(jnp.asarray(counts), n, jnp.asarray(p)), w, rtol=1e-5)
        _same(stats.multinomial.pmf(jnp.asarray(counts), n, jnp.asarray(p)), np.exp(w), rtol=1e-5)


def test_multivariate_normal_matches_jax():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((4, 3)).astype(F32)
    mean = rng.standard_normal(3).astype(F32)
    m = rng.standard_normal((2, 3, 3)).astype(F32)
    covs = (m @ m.transpose(0, 2, 1) + 3 * np.eye(3, dtype=F32)).astype(F32)
    cases = [(x, mean, covs[0]), (x[:2, None], mean, covs), (x, mean, F32(2.0)),
             (x[0, 0], F32(0.5), F32(2.0))]
    want = jax.jit(lambda: [jax.scipy.stats.multivariate_normal.logpdf(*c) for c in cases])()
    for args, w in zip(cases, want):
        _same(stats.multivariate_normal.logpdf(*map(jnp.asarray, args)), w, rtol=1e-5)
        _same(stats.multivariate_normal.pdf(*map(jnp.asarray, args)), np.exp(w), rtol=1e-5)


def test_mode_rankdata_sem_match_jax(platform, request):
    """Eagerly on the CPU backend, under jit on WebGPU (in the slow job)."""
    if platform == "webgpu" and not request.config.getoption("--runslow"):
        pytest.skip("slow: run with --runslow")
    def run(fn, x, **kwargs):
        return fn(x, **kwargs) if platform == "cpu" else jaxwg.jit(lambda x: fn(x, **kwargs))(x)

    a = np.array([[3, 1, 3, 2], [2, 2, 1, 1], [5, 5, 5, 0]], np.int32)
    f = np.array([[np.nan, np.nan, 1.0, 2.0], [0.5, -0.0, 0.0, 0.5], [1.0, 2.0, 3.0, 4.0]], F32)
    empty = np.zeros((0, 2), F32)
    mode_cases = [(a, dict(axis=0)), (f, dict(axis=1, keepdims=True)), (f, dict(axis=None)),
                  (empty, {})]
    rank_cases = [dict(method=m) for m in ("average", "max", "dense", "ordinal")]
    sem_cases = [dict(axis=1, ddof=0), dict(axis=None, keepdims=True),
                 dict(axis=1, nan_policy="omit")]
    want = jax.jit(lambda: (
        [jax.scipy.stats.mode(x, **k) for x, k in mode_cases],
        [jax.scipy.stats.rankdata(a, **k) for k in rank_cases],
        jax.scipy.stats.rankdata(a, method="min", axis=1), jax.scipy.stats.rankdata(f),
        [jax.scipy.stats.sem(f, **k) for k in sem_cases]))()
    for (x, kwargs), w in zip(mode_cases, want[0]):
        got = run(stats.mode, jnp.asarray(x), **kwargs)
        _same(got.mode, w.mode)
        _same(got.count, w.count)
    for kwargs, w in zip(rank_cases, want[1]):
        _same(run(stats.rankdata, jnp.asarray(a), **kwargs), w)
    _same(run(stats.rankdata, jnp.asarray(a), method="min", axis=1), want[2])
    _same(run(stats.rankdata, jnp.asarray(f)), want[3])
    for kwargs, w in zip(sem_cases, want[4]):
        _same(run(stats.sem, jnp.asarray(f), **kwargs), w)


def test_poisson_entropy_outside_the_support_is_jaxs():
    mu = np.array([-1.5, -0.0, np.nan, np.inf, 0.5, 15.0, 200.0], np.float32)
    np.testing.assert_allclose(np.asarray(stats.poisson.entropy(jnp.asarray(mu))),
                               np.asarray(jax.scipy.stats.poisson.entropy(mu)), rtol=2e-6)
