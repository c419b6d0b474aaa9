"""`jaxwg.random`'s lognormal, maxwell, double_sided_maxwell, pareto, rayleigh,
weibull_min, triangular, wald, geometric (JAX's formulas and key splitting: JAX's values
within a few ulp), f, binomial and multinomial (rejection-sampled: their laws) and
key_dtype, against `jax.random`."""

import functools

import numpy as np
import pytest

import jaxwg
import jaxwg.numpy as jnp
from jaxwg import random

from .helpers import jax, jax_numpy

N = 1024
B = np.float32([[0.5], [1.0], [2.5], [4.0]])  # a parameter column: broadcasts against (4, N)

# name, positional arguments after the key (NumPy arrays are passed to both as arrays),
# keyword arguments, and the ulps allowed, of max(|x|, 1): 0 where the arithmetic rounds
# correctly (wald: with XLA's fused multiply-adds), a few where log, log1p, pow or a sum
# enter. exp(y) carries y's absolute error (a few ulp of max(|y|, 1)) into its relative
# one, and JAX's lognormal is 8 ulp from exp(sigma z) where jaxwg's is 2: for lognormal
# and pareto the bound is 3 ulp times 1 + |log x|.
CLOSED_FORM = [
    ("lognormal", (B, (4, N)), {}, "log"),
    ("maxwell", ((N,),), {}, 1),
    ("double_sided_maxwell", (1.0, 2.0, (N,)), {}, 2),
    ("weibull_min", (2.0, B, (4, N)), {}, 3),
    ("pareto", (B, (4, N)), {}, "log"),
    ("rayleigh", (B, (4, N)), {}, 3),
    ("wald", (B, (4, N)), {}, 0),
    ("triangular", (-1.0, B - 1, 4.0, (4, N)), {}, 0),
    ("geometric", (B / 5, (4, N)), {}, 0),
]
SMALL = [  # name, arguments after the key: for float16, x64, jit and vmap
    ("lognormal", (0.5, (7,))), ("maxwell", ((2, 3),)), ("double_sided_maxwell", (0.0, 1.0, (5,))),
    ("weibull_min", (1.0, 2.0, (5,))), ("pareto", (2.0, (5,))), ("rayleigh", (1.5, (5,))),
    ("wald", (1.0, (5,))), ("triangular", (0.0, 0.25, 1.0, (5,))), ("geometric", (0.3, (5,))),
]
FLOAT16 = ("rayleigh", "wald")
# binomial's edges: NaN for a negative or NaN n or a NaN or negative p, inf for an
# infinite n, 0 or n where p is 0 or 1, a float n floored, as JAX's (not n = inf with
# p = 0, where JAX's rejection loop never ends; jaxwg gives inf)
EDGE_N = np.float32([-1.0, np.nan, np.inf, 0.0, 5.0, 5.0, 5.0, 5.0, 3.7, 0.0, 2e3])
EDGE_P = np.float32([0.3, 0.3, 0.3, 0.3, 0.0, 1.0, np.nan, -0.1, 1.0, 1.0, 1.0])


def _args(args, lib):
    return tuple(lib.asarray(a) if isinstance(a, np.ndarray) else a for a in args)


@functools.cache
def _jax_samples():
    """JAX's samples for every comparison here, from one compiled program (XLA's
    compiles, one per function and shape, would take most of this file's time budget)."""
    def samples(key, typed_key, arrays):
        # the parameters as arguments, as in a call of each: XLA folds and reassociates
        # arithmetic on constants, which changes its rounding
        arrays, out = iter(arrays), {}
        for i, (name, args, kwargs, _) in enumerate(CLOSED_FORM):
            args = [a if isinstance(a, tuple) else next(arrays) for a in args]
            out[f"legacy {i}"] = getattr(jax.random, name)(key, *args, **kwargs)
            if name == "wald":
                out[f"typed {i}"] = getattr(jax.random, name)(typed_key, *args, **kwargs)
        for name, args in SMALL:
            if name in FLOAT16:
                out[f"float16 {name}"] = getattr(jax.random, name)(key, *args, dtype=np.float16)
        return out

    arrays = [a for _, args, _, _ in CLOSED_FORM for a in args if not isinstance(a, tuple)]
    out = jax.jit(samples)(jax.random.PRNGKey(3), jax.random.key(3), arrays)
    return {k: np.asarray(v) for k, v in out.items()}


def _assert_within_ulps(got, want, ulps):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, got.shape, want.dtype, want.shape)
    if want.dtype.kind != "f":
        np.testing.assert_array_equal(got, want)
        return
    assert np.array_equal(np.isnan(got), np.isnan(want))
    with np.errstate(invalid="ignore"):  # inf - inf
        err = np.abs(got.astype(np.float64) - want) / np.spacing(np.maximum(np.abs(want), want.dtype.type(1)))
    if ulps == "log":
        err, ulps = err / (1 + np.abs(np.log(np.abs(want.astype(np.float64))))), 3
    assert float(np.nanmax(err, initial=0)) <= ulps, float(np.nanmax(err))


def test_closed_form_samplers_are_jaxs(platform):
    """Same keys (legacy and typed: the same data), same draws, same formulas: JAX's
    values; parameters broadcast against `shape` as JAX's."""
    want = _jax_samples()
    for i, (name, args, kwargs, ulps) in enumerate(CLOSED_FORM):
        legacy = getattr(random, name)(random.PRNGKey(3), *_args(args, jnp), **kwargs)
        _assert_within_ulps(legacy, want[f"legacy {i}"], ulps)
        typed = getattr(random, name)(random.key(3), *_args(args, jnp), **kwargs)
        np.testing.assert_array_equal(np.asarray(typed), np.asarray(legacy))
        if f"typed {i}" in want:
            _assert_within_ulps(typed, want[f"typed {i}"], ulps)


cpu_only = pytest.mark.parametrize("platform", ["cpu"], indirect=True)


def _jax_shape(fn, *args, **kwargs):
    out = jax.eval_shape(lambda k: fn(k, *_args(args, jax_numpy), **kwargs), jax.random.PRNGKey(0))
    return out.shape, out.dtype, out.weak_type


@cpu_only
def test_dtypes_shapes_and_broadcasting_are_jaxs(platform):
    want = _jax_samples()
    key = random.PRNGKey(3)
    for name, args in SMALL:
        if name in FLOAT16:  # float16 draws with float32's arithmetic, as XLA's
            _assert_within_ulps(getattr(random, name)(key, *args, dtype=jnp.float16), want[f"float16 {name}"], 1)
    # JAX's binomial gives these by its rules, not by draws (its compile is left out here)
    floor_n = np.floor(EDGE_N)
    edges = np.where(np.isnan(EDGE_N) | (EDGE_N < 0) | np.isnan(EDGE_P) | (EDGE_P < 0), np.nan,
                     np.where(np.isinf(EDGE_N), np.inf, np.where(EDGE_P == 0, 0.0, floor_n)))
    _assert_within_ulps(random.binomial(key, jnp.asarray(EDGE_N), jnp.asarray(EDGE_P)), edges.astype(np.float32), 0)
    # shapes, dtypes and weak types (JAX's traced, not run), JAX's quirks included
    cases = [("lognormal", (np.ones((2, 1), np.float32),), {}),
             ("lognormal", (0.5,), {"dtype": jnp.float16}),
             ("rayleigh", (np.ones((3,), np.float32),), {}),
             ("pareto", (np.ones((2, 3), np.float32), (4, 2, 3)), {}),
             ("pareto", (2,), {"dtype": jnp.float16}),
             ("wald", (np.float32([1.0, 2.0]),), {"shape": (3, 2)}),
             ("geometric", (np.float32([0.1, 0.9]),), {}),
             ("geometric", (np.float16(0.25), (3,)), {"dtype": jnp.int16}),
             ("triangular", (np.zeros((2, 1), np.float32), 0.5, np.ones(3, np.float32)), {}),
             ("double_sided_maxwell", (np.zeros(2, np.float32), 1.0), {}),  # (2, 2), as JAX
             ("double_sided_maxwell", (np.zeros(2, np.float32), 1.0, (3,)), {}),
             ("weibull_min", (np.ones(2, np.float32), 1.0), {}),  # () broadcast with (2,)
             ("weibull_min", (np.ones(2, np.float32), np.float32(3), (3, 1)), {}),
             ("maxwell", ((2, 0),), {"dtype": jnp.float16}),
             ("f", (np.ones(2, np.float32), 3.0), {}),
             ("binomial", (np.float32([3, 4]), 0.5, (2, 2)), {}),
             ("binomial", (3, 0.5, (0,)), {"dtype": jnp.float16}),
             ("multinomial", (np.float32([5.0, 7.0]), np.float32([0.5, 0.5])), {"shape": (2, 2)}),
             ("multinomial", (3, np.float32([[0.1, 0.9], [1.0, 0.0]])), {"dtype": jnp.float16})]
    for name, args, kwargs in cases:
        got = getattr(random, name)(key, *_args(args, jnp), **kwargs)
        assert (got.shape, got.dtype, got.weak_type) == _jax_shape(getattr(jax.random, name), *args, **kwargs), name
    assert random.key_dtype() == random.key(0).dtype == random.key_dtype("threefry2x32")
    assert str(random.key_dtype()) == str(jax.random.key_dtype())


@cpu_only
def test_x64_keeps_float32_samples(platform):
    """With x64 on, jaxwg's samplers stay float32 by default and refuse float64 (the
    module's rule: JAX's give float64) and its integers 32-bit; the draws are those
    with x64 off."""
    key = random.PRNGKey(2)
    off = [getattr(random, name)(key, *args) for name, args in SMALL]
    jaxwg.config.update("jax_enable_x64", True)
    try:
        for (name, args), want in zip(SMALL, off):
            got = getattr(random, name)(key, *args)
            _assert_within_ulps(got, want, 0)
            if name != "geometric":
                with pytest.raises(TypeError, match="only float32 and float16"):
                    getattr(random, name)(key, *args, dtype=np.float64)
        assert random.binomial(key, 4, 0.5, (3,)).dtype == np.float32
    finally:
        jaxwg.config.update("jax_enable_x64", False)


def _raises_as_jax(call, error, match):
    with pytest.raises(error) as jax_error:
        call(jax.random, jax_numpy)
    with pytest.raises(error, match=match) as ours:
        call(random, jnp)
    return jax_error, ours


@cpu_only
def test_errors_are_jaxs(platform):
    key = {random: random.PRNGKey(0), jax.random: jax.random.PRNGKey(0)}
    for name, args in SMALL[:-1]:  # the dtype of floats (all but geometric)
        _raises_as_jax(lambda r, np_: getattr(r, name)(key[r], *args, dtype=np_.int32), ValueError,
                       f"dtype argument to `{name}` must be a float")
    _raises_as_jax(lambda r, np_: r.binomial(key[r], 3, 0.5, dtype=np_.int32), ValueError,
                   "dtype argument to `binomial` must be a float dtype, got int32")
    _raises_as_jax(lambda r, np_: r.lognormal(key[r], dtype=np_.int32), ValueError,
                   "`lognormal` must be a float or complex dtype")
    _raises_as_jax(lambda r, np_: r.f(key[r], 2.0, 3.0, dtype=np_.int32), ValueError, "`f` must be a float")
    _raises_as_jax(lambda r, np_: r.geometric(key[r], 0.5, dtype=np_.float32), ValueError,
                   "dtype argument to `geometric` must be an int dtype, got float32")
    # parameters that do not broadcast to `shape`, or not at all
    _raises_as_jax(lambda r, np_: r.pareto(key[r], np_.ones(2), (3,)), ValueError, "Incompatible shapes")
    _raises_as_jax(lambda r, np_: r.rayleigh(key[r], np_.ones((3, 1)), (3,)), ValueError,
                   r"rayleigh parameter shapes must be broadcast-compatible .* got result \(3, 3\) "
                   r"for shape argument \(3,\)")
    _raises_as_jax(lambda r, np_: r.triangular(key[r], np_.zeros(2), 0.5, np_.ones(3)), ValueError,
                   "Incompatible shapes")
    # a float32 parameter for float16 samples (JAX's TypePromotionError is a ValueError)
    _raises_as_jax(lambda r, np_: r.pareto(key[r], np_.float32(2), dtype=np_.float16), ValueError,
                   "In arguments to pareto, cannot safely cast argument of type float32 to float16")
    _raises_as_jax(lambda r, np_: r.wald(key[r], np_.ones(2), dtype=np_.float16), ValueError,
                   "In arguments to wald, cannot safely cast")
    _raises_as_jax(lambda r, np_: r.lognormal(key[r], dtype=np_.float16), ValueError,  # sigma's float32 1
                   "In arguments to lognormal, cannot safely cast argument of type float32 to float16")
    # keys: one key, not a batch
    batch = {random: random.split(random.key(0)), jax.random: jax.random.split(jax.random.key(0))}
    _raises_as_jax(lambda r, np_: r.maxwell(batch[r]), ValueError, "maxwell accepts a single key")
    _raises_as_jax(lambda r, np_: r.binomial(batch[r], 3, 0.5), ValueError, "binomial accepts a single key")
    _raises_as_jax(lambda r, np_: r.binomial(key[r], [3], 0.5), TypeError,
                   "binomial requires ndarray or scalar arguments")
    _raises_as_jax(lambda r, np_: r.key_dtype("nope"), ValueError, "unrecognized PRNG implementation")


@cpu_only
def test_under_jit_and_vmap_over_keys(platform):
    """jit and vmap over keys (legacy and typed) give each key's eager draws (which the
    tests above compare with JAX's)."""
    def draws(k):
        out = [getattr(random, name)(k, *args) for name, args in SMALL]
        return out + [random.binomial(k, jnp.array([4.0, 400.0]), 0.3)]

    keys = random.split(random.PRNGKey(8), 2)
    eager = [draws(k) for k in keys]
    for got, *want in zip(jaxwg.vmap(draws)(keys), *eager):
        np.testing.assert_allclose(np.asarray(got), np.stack(want), rtol=1e-6)
    for got, want in zip(jaxwg.jit(draws)(keys[1]), eager[1]):
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6)
    typed = random.wrap_key_data(keys)
    for got, want in zip(jaxwg.vmap(draws)(typed)[:3], zip(*eager)):
        np.testing.assert_allclose(np.asarray(got), np.stack(want), rtol=1e-6)


M = 100_000
Z = 6  # standard errors allowed: a false alarm has probability about 2e-9


@cpu_only
def test_binomial_has_the_binomial_law(platform):
    """Mean and variance of 1e5 draws per (n, p) within Z standard errors: inversion
    (n min(p, 1-p) <= 10), rejection (BTRS) and p > 1/2 (drawn for 1 - p); integers in
    [0, n]. The variance's standard error uses the fourth central moment."""
    n = np.float32([10.0, 1000.0, 50.0, 7.5])
    p = np.float32([0.3, 0.3, 0.9, 0.5])
    x = np.asarray(random.binomial(random.PRNGKey(5), jnp.asarray(n), jnp.asarray(p), (M // 4, 4)), np.float64)
    assert x.dtype == np.float64 and x.shape == (M // 4, 4)
    n = np.floor(n).astype(np.float64)
    assert np.all(x == np.floor(x)) and np.all(x >= 0) and np.all(x <= n)
    var = n * p * (1 - p)
    mu4 = var * (1 + 3 * (n - 2) * p * (1 - p))
    m = x.shape[0]
    np.testing.assert_array_less(np.abs(x.mean(0) - n * p), Z * np.sqrt(var / m))
    np.testing.assert_array_less(np.abs(x.var(0) - var), Z * np.sqrt((mu4 - var ** 2) / m))


@cpu_only
def test_f_and_multinomial_have_their_laws(platform):
    key = random.PRNGKey(6)
    x = np.sort(np.asarray(random.f(key, 5.0, 20.0, (M // 20,)), np.float64))
    assert np.all(x > 0)
    # the Kolmogorov-Smirnov statistic against F(5, 20)'s CDF, I_{5x/(5x+20)}(5/2, 10),
    # exceeds this with probability 1e-6 (Dvoretzky-Kiefer-Wolfowitz-Massart)
    cdf = np.asarray(jax.scipy.special.betainc(2.5, 10.0, 5 * x / (5 * x + 20)), np.float64)
    steps = np.arange(x.size + 1) / x.size
    ks = max(np.max(steps[1:] - cdf), np.max(cdf - steps[:-1]))
    assert ks < np.sqrt(np.log(2 / 1e-6) / (2 * x.size)), ks
    p = np.float32([0.1, 0.0, 0.6, 0.3])
    counts = np.asarray(random.multinomial(key, 50, jnp.asarray(p), shape=(M // 50, 4)), np.float64)
    assert counts.shape == (M // 50, 4) and np.all(counts.sum(-1) == 50) and np.all(counts[:, 1] == 0)
    var = 50 * p * (1 - p)
    np.testing.assert_array_less(np.abs(counts.mean(0) - 50 * p), Z * np.sqrt(var / counts.shape[0]) + 1e-9)
