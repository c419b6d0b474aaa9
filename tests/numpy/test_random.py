"""`jaxwg.random` against `jax.random`: keys, split, fold_in, bits, uniform, randint,
bernoulli, rademacher and normal bit for bit; the other distributions within stated ulps."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import jaxwg
import jaxwg.numpy as jnp
from jaxwg import lax, random

from .helpers import jax, rounds_correctly

SHAPES = st.lists(st.integers(0, 6), min_size=0, max_size=3).map(tuple)
SEEDS = st.integers(-2 ** 31, 2 ** 32 - 1)


def _exact(got, want):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)


@pytest.mark.slow_on_cpu
@settings(max_examples=10)
@given(seed=SEEDS, shape=SHAPES, data=st.integers(0, 2 ** 32 - 1))
def test_keys_split_fold_in_and_bits_are_jaxs(platform, seed, shape, data):
    key, jkey = random.PRNGKey(seed), jax.random.PRNGKey(seed)
    _exact(key, jkey)
    _exact(random.split(key), jax.random.split(jkey))
    _exact(random.split(key, shape or 3), jax.random.split(jkey, shape or 3))
    _exact(random.fold_in(key, data), jax.random.fold_in(jkey, data))
    _exact(random.bits(key, shape), jax.random.bits(jkey, shape))


@pytest.mark.slow_on_cpu
@settings(max_examples=5)  # 20 s on lavapipe at 10
@given(seed=st.integers(0, 2 ** 31 - 1), shape=SHAPES)
def test_uniform_randint_bernoulli_rademacher_are_jaxs(platform, seed, shape):
    key, jkey = random.PRNGKey(seed), jax.random.PRNGKey(seed)
    _exact(random.uniform(key, shape), jax.random.uniform(jkey, shape))
    _exact(random.uniform(key, shape, jnp.float16), jax.random.uniform(jkey, shape, np.float16))
    for lo, hi in [(0, 10), (-3, 5), (-2 ** 31, 2 ** 31 - 1), (5, 5), (7, 3)]:
        _exact(random.randint(key, shape, lo, hi), jax.random.randint(jkey, shape, lo, hi))
    _exact(random.bernoulli(key, 0.3, shape), jax.random.bernoulli(jkey, 0.3, shape))
    _exact(random.rademacher(key, shape), jax.random.rademacher(jkey, shape))


def test_randint_takes_float_bounds_as_jax():
    # JAX converts non-integer bounds to its default integer (truncating) first.
    key, jkey = random.PRNGKey(4), jax.random.PRNGKey(4)
    for lo, hi in [(0.0, 5.0), (-2.7, 3.9), (np.float32(1.5), 9)]:
        _exact(random.randint(key, (7,), lo, hi), jax.random.randint(jkey, (7,), lo, hi))
        _exact(random.randint(key, (7,), lo, hi, "uint8"), jax.random.randint(jkey, (7,), lo, hi, np.uint8))


def test_bits_past_65535_workgroups_and_one_binding_stay_jaxs():
    key, jkey = random.PRNGKey(7), jax.random.PRNGKey(7)
    n = 70000 * 256 + 3  # more workgroups than one grid dimension holds
    _exact(random.bits(key, (n,)), jax.random.bits(jkey, (n,)))


def _ulps(got, want):
    got, want = np.asarray(got, np.float64), np.asarray(want)
    return np.abs(got - want) / np.spacing(np.abs(want).astype(want.dtype)).astype(np.float64)


# These follow JAX's formulas through jaxwg's own exp, log, tan and log1p: relative error
# of a few ulp, and an absolute error of a few ulp of 1 where the result is near zero
# (its cancellation makes the relative error meaningless there).
@pytest.mark.parametrize("name, ulps", [("exponential", 2), ("laplace", 2),
                                        ("cauchy", 3), ("logistic", 3), ("gumbel", 3)])
def test_distributions_are_jaxs_within_a_few_ulp(platform, name, ulps):
    key, jkey = random.PRNGKey(3), jax.random.PRNGKey(3)
    got = getattr(random, name)(key, (20000,))
    want = getattr(jax.random, name)(jkey, (20000,))
    err = np.abs(np.asarray(got, np.float64) - np.asarray(want, np.float64))
    bound = ulps * np.spacing(np.maximum(np.abs(np.asarray(want)), np.float32(1)))
    assert np.all(err <= bound), float(np.max(_ulps(got, want)))


def test_normal_is_jaxs_bit_for_bit(platform):
    """normal = sqrt(2) erf_inv(u) with erf_inv, its log1p and log as XLA's CPU backend
    computes them, fused multiply-adds included: JAX's bits where division, sqrt and fma
    round correctly (the CPU backend, software adapters), else within 2 ulp (of the value,
    or of 1 below 1: the H100 gave 99.9% of 4M samples exact, 2 ulp at most). A million
    samples on WebGPU (64k on the NumPy backend, which interprets each op)."""
    n = 1 << 20 if platform == "webgpu" else 1 << 16
    got = np.asarray(random.normal(random.key(3), (n,)))
    want = np.asarray(jax.random.normal(jax.random.key(3), (n,)))
    if rounds_correctly():
        np.testing.assert_array_equal(got, want)
    else:
        err = np.abs(got.astype(np.float64) - want) / np.spacing(np.maximum(np.abs(want), np.float32(1)))
        assert float(err.max()) <= 2


def test_erf_inv_is_jaxs_bit_for_bit(platform):
    """lax.erf_inv over [-1, 1] and its edges, float32 and float16, against JAX
    (subnormal arguments left out: XLA's CPU backend flushes them to zero)."""
    x = np.concatenate([np.linspace(-1, 1, 100001, dtype=np.float32),
                        np.float32([1.5, -1.5, np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-30, -2e-37,
                                    1 - 2 ** -24, -(1 - 2 ** -24), 0.5, -0.8])])
    for dtype in (np.float32, np.float16):
        got = np.asarray(lax.erf_inv(jnp.asarray(x.astype(dtype))))
        want = np.asarray(jax.lax.erf_inv(x.astype(dtype)))
        assert got.dtype == want.dtype
        if rounds_correctly():
            np.testing.assert_array_equal(got, want)
        else:
            np.testing.assert_allclose(got, want, rtol=4 * np.finfo(dtype).eps, atol=0)


def test_ranges_and_truncation_are_jaxs_within_an_ulp_of_the_bounds(platform):
    key, jkey = random.PRNGKey(5), jax.random.PRNGKey(5)
    got = random.uniform(key, (5000,), minval=-2.0, maxval=3.0)
    want = jax.random.uniform(jkey, (5000,), minval=-2.0, maxval=3.0)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=0, atol=np.spacing(np.float32(3)))
    got = random.truncated_normal(key, -1.0, 2.0, (5000,))
    want = jax.random.truncated_normal(jkey, -1.0, 2.0, (5000,))
    assert float(np.min(got)) > -1.0 and float(np.max(got)) < 2.0
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=4e-7, atol=4e-7)


def test_a_million_normals_have_the_normal_moments():
    x = np.asarray(random.normal(random.PRNGKey(11), (1 << 20,)), np.float64)
    n = x.size
    assert abs(x.mean()) < 5 / np.sqrt(n)
    assert abs(x.var() - 1) < 5 * np.sqrt(2 / n)
    assert abs(np.mean(x ** 3)) < 5 * np.sqrt(15 / n)


def test_random_under_jit_and_vmap_is_jaxs():
    keys = random.split(random.PRNGKey(9), 4)
    jkeys = jax.random.split(jax.random.PRNGKey(9), 4)
    _exact(jaxwg.jit(lambda k: random.uniform(k, (6,)))(keys[0]), jax.random.uniform(jkeys[0], (6,)))
    _exact(jaxwg.vmap(lambda k: random.bits(k, (5,)))(keys), jax.vmap(lambda k: jax.random.bits(k, (5,)))(jkeys))
    _exact(jaxwg.vmap(random.split)(keys), jax.vmap(jax.random.split)(jkeys))
    _exact(jaxwg.jit(lambda k, d: random.fold_in(k, d))(keys[1], jnp.array(12, jnp.uint32)),
           jax.random.fold_in(jkeys[1], 12))


def test_errors():
    with pytest.raises(TypeError, match="PRNG key seed must be an integer"):
        random.PRNGKey(1.5)
    with pytest.raises(TypeError, match="invalid PRNG key data"):
        random.uniform(jnp.zeros(3, jnp.uint32), (2,))
    with pytest.raises(OverflowError):
        random.fold_in(random.PRNGKey(0), -1)
    for name in ("uniform", "normal", "gumbel"):  # a ValueError, as JAX's
        with pytest.raises(ValueError, match=f"`{name}` must be a float dtype"):
            getattr(random, name)(random.PRNGKey(0), (2,), jnp.int32)
        with pytest.raises(ValueError):
            getattr(jax.random, name)(jax.random.PRNGKey(0), (2,), jnp.int32)
    with pytest.raises(ValueError, match="`gamma` must be a float dtype"):
        random.gamma(random.PRNGKey(0), 1.0, (2,), jnp.bool_)


@pytest.mark.slow  # 13 s; split, fold_in, bits and the samplers stay bit for bit JAX's by default
def test_permutation_categorical_and_choice_are_jaxs(platform):
    key, jkey = random.PRNGKey(3), jax.random.PRNGKey(3)
    x = np.arange(24).reshape(4, 6).astype(np.int32)
    _exact(random.permutation(key, 20), jax.random.permutation(jkey, 20))
    for axis in (0, 1):
        _exact(random.permutation(key, jnp.asarray(x), axis=axis), jax.random.permutation(jkey, x, axis=axis))
        _exact(random.permutation(key, jnp.asarray(x), axis=axis, independent=True),
               jax.random.permutation(jkey, x, axis=axis, independent=True))
    logits = np.random.default_rng(0).standard_normal((3, 7)).astype(np.float32)
    # argmax over Gumbel noise a few ulp from JAX's: equal unless two scores are that close
    _exact(random.categorical(key, jnp.asarray(logits)), jax.random.categorical(jkey, logits))
    _exact(random.categorical(key, jnp.asarray(logits), axis=0, shape=(5, 7)),
           jax.random.categorical(jkey, logits, axis=0, shape=(5, 7)))
    _exact(random.categorical(key, jnp.asarray(logits), shape=(2, 3), replace=False),
           jax.random.categorical(jkey, logits, shape=(2, 3), replace=False))
    p = np.array([0.1, 0.2, 0.3, 0.4], np.float32)
    _exact(random.choice(key, 10, (5,)), jax.random.choice(jkey, 10, (5,)))
    _exact(random.choice(key, 10, (2, 3), replace=False), jax.random.choice(jkey, 10, (2, 3), replace=False))
    _exact(random.choice(key, 4, (50,), p=jnp.asarray(p)), jax.random.choice(jkey, 4, (50,), p=p))
    _exact(random.choice(key, 4, (3,), replace=False, p=jnp.asarray(p)),
           jax.random.choice(jkey, 4, (3,), replace=False, p=p))
    with pytest.raises(ValueError, match="Cannot take a larger sample"):
        random.choice(key, 3, (4,), replace=False)


@pytest.mark.parametrize("axis", [0, 1, -1])
@pytest.mark.parametrize("replace", [True, False])
@pytest.mark.parametrize("weighted", [False, True])
def test_choice_from_an_array_is_jaxs(run, axis, replace, weighted):
    """Draws from a float array's slices along `axis`: indices drawn as from range(n),
    then a take, bit for bit as JAX."""
    key, jkey = random.PRNGKey(5), jax.random.PRNGKey(5)
    x = np.arange(24.0, dtype=np.float32).reshape(4, 6) / 4
    n = x.shape[axis]
    p = np.arange(1, n + 1, dtype=np.float32) / (n * (n + 1) / 2) if weighted else None
    shape = (3,) if not replace else (2, 5)
    got = run(lambda k, a: random.choice(k, a, shape, replace, None if p is None else jnp.asarray(p),
                                         axis), key, jnp.asarray(x))
    _exact(got, jax.random.choice(jkey, x, shape, replace, p, axis))


def test_choice_edge_cases_are_jaxs(platform):
    key, jkey = random.PRNGKey(1), jax.random.PRNGKey(1)
    x = np.float32([0.5, 1.5, 2.5])
    _exact(random.choice(key, jnp.asarray(x)), jax.random.choice(jkey, x))
    _exact(random.choice(key, jnp.asarray(x), (0,)), jax.random.choice(jkey, x, (0,)))
    _exact(random.choice(key, 5, (3,), p=jnp.array([1, 2, 3, 4, 5])),
           jax.random.choice(jkey, 5, (3,), p=np.array([1, 2, 3, 4, 5])))
    for bad in (dict(p=jnp.ones(2)), dict(a=jnp.zeros((0,)))):
        kw = dict(a=jnp.asarray(x), shape=(2,)) | bad
        jkw = {k: np.asarray(v) if hasattr(v, "shape") else v for k, v in kw.items()}
        with pytest.raises(ValueError):
            jax.random.choice(jkey, **jkw)
        with pytest.raises(ValueError):
            random.choice(key, **kw)


# -- rejection-sampled distributions: the right law, not JAX's bits --------------------------

N = 20000
# The Kolmogorov-Smirnov statistic of N samples of the true law exceeds this with
# probability 1e-6 (Dvoretzky-Kiefer-Wolfowitz-Massart: 2 exp(-2 N d^2)).
KS_BOUND = np.sqrt(np.log(2 / 1e-6) / (2 * N))


def _ks(samples, cdf):
    from scipy import stats

    return stats.kstest(np.asarray(samples, np.float64), cdf).statistic


@pytest.mark.parametrize("a", [0.3, 1.0, 4.5])
def test_gamma_has_the_gamma_law(platform, a):
    from scipy import stats

    assert _ks(random.gamma(random.PRNGKey(1), a, (N,)), stats.gamma(a).cdf) < KS_BOUND


def test_beta_t_chisquare_dirichlet_and_ball_have_their_laws():
    from scipy import stats

    key = random.PRNGKey(2)
    assert _ks(random.beta(key, 2.0, 5.0, (N,)), stats.beta(2, 5).cdf) < KS_BOUND
    assert _ks(random.t(key, 3.0, (N,)), stats.t(3).cdf) < KS_BOUND
    assert _ks(random.chisquare(key, 3.0, (N,)), stats.chi2(3).cdf) < KS_BOUND
    d = np.asarray(random.dirichlet(key, jnp.array([1.0, 2.0, 3.0]), (N,)))
    assert d.shape == (N, 3) and np.allclose(d.sum(-1), 1, atol=1e-6)
    assert _ks(d[:, 1], stats.beta(2, 4).cdf) < KS_BOUND  # a marginal is Beta(a_i, sum - a_i)
    # the radius of a uniform point in the 3-ball has P(r <= s) = s^3
    r = np.sqrt((np.asarray(random.ball(key, 3, shape=(N,)), np.float64) ** 2).sum(-1))
    assert _ks(r, lambda s: np.clip(s, 0, 1) ** 3) < KS_BOUND


@pytest.mark.parametrize("lam", [0.5, 4.0, 30.0, 500.0])
def test_poisson_has_the_poisson_law(platform, lam):
    from scipy import stats

    x = np.asarray(random.poisson(random.PRNGKey(3), lam, (N,)))
    assert x.dtype == np.int32
    # a discrete law: compare the CDFs at the integers (the KS bound still holds)
    k = np.arange(x.max() + 1)
    empirical = np.searchsorted(np.sort(x), k, side="right") / N
    assert np.max(np.abs(empirical - stats.poisson(lam).cdf(k))) < KS_BOUND


@pytest.mark.slow  # 8 s
def test_rejection_samplers_edges():
    key = random.PRNGKey(4)
    a = np.array([0.0, -1.0, np.nan, np.inf, 1e-30], np.float32)
    _exact(random.gamma(key, jnp.asarray(a)), jax.random.gamma(jax.random.PRNGKey(4), a))
    lam = np.array([-1.0, np.nan, 0.0, np.inf], np.float32)
    _exact(random.poisson(key, jnp.asarray(lam)), jax.random.poisson(jax.random.PRNGKey(4), lam))
    # infinite lam saturates in a batch that also takes the rejection method, as JAX's
    lam = np.array([np.inf, 50.0], np.float32)
    assert int(random.poisson(key, lam)[0]) == int(jax.random.poisson(jax.random.PRNGKey(4), lam)[0])
    assert float(random.loggamma(key, 1e-30)) < -1e29  # where the sample underflows to 0
    assert random.t(key, jnp.ones((2, 3))).shape == (2, 3)  # the shape of df by default


@pytest.mark.parametrize("dtype", [np.int32, np.uint32])
def test_poisson_edges_in_both_dtypes_are_jaxs(platform, dtype):
    # 0 at lam = 0, -1 in the dtype for negative or NaN lam, the largest value for inf and
    # for samples past it (uint32 holds those of 3e9, int32 saturates)
    lam = np.array([np.inf, -np.inf, -1.0, np.nan, 0.0, 5e9, 1e12, 1e-30], np.float32)
    key = random.PRNGKey(4)
    got = random.poisson(key, jnp.asarray(lam), dtype=dtype)
    want = jax.random.poisson(jax.random.PRNGKey(4), lam, dtype=dtype)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
    big = int(random.poisson(key, np.float32(3e9), dtype=dtype))
    assert (big == np.iinfo(np.int32).max) if dtype == np.int32 else (abs(big - 3e9) < 1e6)


# The samplers' while_loop bodies hold uint32 literals: replayed as bare Python ints they
# became weak int32s, and threefry rejected them under jit and vmap.
def test_rejection_samplers_under_jit_and_vmap():
    key = random.PRNGKey(4)
    np.testing.assert_allclose(np.asarray(jaxwg.jit(lambda k: random.gamma(k, 2.0, (4,)))(key)),
                               np.asarray(random.gamma(key, 2.0, (4,))), rtol=1e-6)
    keys = random.split(key, 3)
    batched = jaxwg.vmap(lambda k: random.gamma(k, 2.0, (4,)))(keys)
    for i in range(3):
        np.testing.assert_allclose(np.asarray(batched[i]), np.asarray(random.gamma(keys[i], 2.0, (4,))),
                                   rtol=1e-6)
    np.testing.assert_allclose(np.asarray(jaxwg.jit(lambda k: random.poisson(k, 20.0, (5,)))(key)),
                               np.asarray(random.poisson(key, 20.0, (5,))))


def test_gamma_gradient_is_the_implicit_reparameterization():
    # d sample / d a = random_gamma_grad(a, sample), as JAX's
    key, a = random.PRNGKey(5), np.array([0.4, 1.0, 3.0, 12.0], np.float32)
    samples = random.gamma(key, jnp.asarray(a))
    grads = jaxwg.grad(lambda a: random.gamma(key, a).sum())(jnp.asarray(a))
    with jax.enable_x64(True):
        want = jax.lax.random_gamma_grad(a.astype(np.float64), np.asarray(samples, np.float64))
    np.testing.assert_allclose(np.asarray(grads), np.asarray(want), rtol=1e-4)


def test_loggamma_gradient_is_the_gamma_one_over_the_sample():
    # d log x / d a = random_gamma_grad(a, x) / x, where x = exp(log x)
    key, a = random.key(6), np.array([0.01, 0.5, 2.0, 30.0], np.float32)
    log_x = np.asarray(random.loggamma(key, jnp.asarray(a)), np.float64)
    grads = jaxwg.grad(lambda a: random.loggamma(key, a).sum())(jnp.asarray(a))
    with jax.enable_x64(True):
        x = np.exp(log_x)
        want = np.asarray(jax.lax.random_gamma_grad(a.astype(np.float64), x)) / x
    np.testing.assert_allclose(np.asarray(grads), want, rtol=1e-4)


def test_random_gamma_batches_keys_and_parameters():
    """vmap over the parameter draws every example under the one key (JAX's rule
    broadcasts it), so equal parameters give equal rows; over keys, each row is its
    key's own draw; under both, the same as a loop."""
    key, keys = random.key(7), random.split(random.key(8), 3)
    a = np.array([[1.5, 4.0], [1.5, 4.0], [0.3, 9.0]], np.float32)
    over_a = jaxwg.vmap(lambda a: random.gamma(key, a))(a)
    np.testing.assert_array_equal(np.asarray(over_a[0]), np.asarray(over_a[1]))
    both = jaxwg.vmap(lambda k, a: random.gamma(k, a, (4, 2)))(keys, a)
    grads = jaxwg.vmap(jaxwg.grad(lambda a, k: random.gamma(k, a).sum()), (0, 0))(a, keys)
    for i in range(3):
        np.testing.assert_allclose(np.asarray(both[i]), np.asarray(random.gamma(keys[i], a[i], (4, 2))),
                                   rtol=1e-6)
        want = jaxwg.grad(lambda a: random.gamma(keys[i], a).sum())(a[i])
        np.testing.assert_allclose(np.asarray(grads[i]), np.asarray(want), rtol=1e-6)


def test_random_gamma_shape_rule():
    a = jnp.ones((3, 2))
    assert random.random_gamma_p.bind(random.split(random.key(0), 3)._base, a, log_space=False).shape == (3, 2)
    with pytest.raises(TypeError, match="must lead the shape"):
        random.random_gamma_p.bind(random.split(random.key(0), 2)._base, a, log_space=False)
    with pytest.raises(TypeError, match="floating-point"):
        random.random_gamma_p.bind(random.key(0)._base, jnp.ones(3, jnp.int32), log_space=False)


@pytest.mark.parametrize("n, m", [(2, 4), (4, 2), (3, 3), (0, 2)])
def test_orthogonal_rectangular_matches_jax(platform, n, m):
    """n x m with orthonormal rows or columns: JAX's matrices (the Q of the same normal
    draws, unique with R's diagonal positive) up to rounding."""
    got = random.orthogonal(random.PRNGKey(2), n, (3,), m=m)
    want = jax.random.orthogonal(jax.random.PRNGKey(2), n, (3,), m=m)
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=0, atol=1e-6)


def test_multivariate_normal_and_orthogonal():
    key = random.PRNGKey(6)
    mean = np.array([1.0, 2.0, 3.0], np.float32)
    cov = np.array([[2.0, 0.5, 0.1], [0.5, 1.0, 0.3], [0.1, 0.3, 1.5]], np.float32)
    for method in ("cholesky", "eigh", "svd"):
        x = np.asarray(random.multivariate_normal(key, jnp.asarray(mean), jnp.asarray(cov), (N,),
                                                  method=method), np.float64)
        assert x.shape == (N, 3)
        # each mean and covariance entry within 6 standard errors
        np.testing.assert_array_less(np.abs(x.mean(0) - mean), 6 * np.sqrt(np.diag(cov) / N))
        se = np.sqrt((cov ** 2 + np.outer(np.diag(cov), np.diag(cov))) / N)
        np.testing.assert_array_less(np.abs(np.cov(x.T) - cov), 6 * se)
    with pytest.raises(ValueError, match=r"method must be one of \{'svd', 'eigh', 'cholesky'\}"):
        random.multivariate_normal(key, jnp.asarray(mean), jnp.asarray(cov), method="qr")
    with pytest.raises(ValueError, match="mean.shape"):
        random.multivariate_normal(key, jnp.zeros(2), jnp.asarray(cov))
    q = np.asarray(random.orthogonal(key, 4, (500,)), np.float64)
    np.testing.assert_allclose(q @ np.swapaxes(q, -1, -2), np.broadcast_to(np.eye(4), q.shape), atol=1e-5)
    # Haar: an entry times sqrt(n) has mean 0 and variance 1 (R's diagonal made positive,
    # not the sign pattern of an unrandomized QR)
    entries = q[:, 0, 0] * 2
    assert abs(entries.mean()) < 6 / np.sqrt(500) and abs(entries.var() - 1) < 6 * np.sqrt(2 / 500)


def test_streams_equal_vectors_jax_produced(platform):
    """Streams of key 42 against literal vectors JAX 0.10 produced (CPU, default
    threefry_partitionable), so a change to both JAX and jaxwg cannot hide."""
    key = random.PRNGKey(42)
    assert [int(v) for v in np.asarray(random.bits(key, (4,)))] == [
        0x7D1C13A2, 0xAE0730D9, 0x9DC3F9F9, 0x8F9EC1D7]
    assert np.asarray(random.randint(key, (4,), 0, 100)).tolist() == [44, 14, 71, 69]
    assert [float(v) for v in np.asarray(random.uniform(key, (3,)))] == [
        float.fromhex(h) for h in ("0x1.f47048p-2", "0x1.5c0e6p-1", "0x1.3b87fp-1")]
    normal = np.asarray(random.normal(key, (3,)))
    want = np.array([float.fromhex(h) for h in ("-0x1.cfbe2ap-6", "0x1.de57d0p-2", "0x1.2eccc2p-2")],
                    np.float32)
    np.testing.assert_array_max_ulp(normal, want, maxulp=2)  # computed as JAX's, within 2 ulp
    assert [int(v) for v in np.asarray(random.key_data(random.split(random.key(42)))).ravel()] == [
        0x6D3E048F, 0x1022172D, 0x03D7B32D, 0xADD083F4]
