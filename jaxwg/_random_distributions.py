"""The distributions of `jaxwg.random` that JAX builds from the basic ones: lognormal,
Maxwell, Pareto, Rayleigh, Weibull, triangular, Wald, F, geometric, binomial and
multinomial, with `key_dtype`.

The closed-form ones follow JAX's formulas and key splitting over `uniform`, `normal`,
`exponential` and `rademacher`, so they give JAX's values to a few ulp. `f` is a ratio of
chi-squares (gamma draws) and `binomial` (so `multinomial`) a rejection sampler: their
draws have the right law but are not JAX's bits. Public through `jaxwg.random`.
"""

from __future__ import annotations

import functools

import numpy as np

from . import lax
from . import numpy as jnp
from .frontend.aval import canonical_dtype
from .frontend.jit import staged_jit
from .numpy._util import check_arraylike, to_array
from .random import (_KEY_DTYPE, _broadcast_shapes, _check_impl, _count_draws_within, _float_dtype,
                     _float_samples, _rounds_until_accepted, _sample_shape, _shape, _takes_keys, chisquare,
                     exponential, normal, rademacher, split, uniform)

__all__ = ["binomial", "double_sided_maxwell", "f", "geometric", "key_dtype", "lognormal",
           "maxwell", "multinomial", "pareto", "rayleigh", "triangular", "wald", "weibull_min"]


def _as(x, dtype):
    return lax.convert_element_type(to_array(x), dtype)


def key_dtype(impl_spec=None):
    """The dtype of typed keys of the PRNG `impl_spec` (only threefry2x32 here).

    >>> from jaxwg import random
    >>> random.key_dtype() == random.key(0).dtype
    True
    """
    _check_impl(impl_spec)
    return _KEY_DTYPE


@_takes_keys
def lognormal(key, sigma=np.float32(1), shape=None, dtype=None):
    """Lognormal samples, exp(sigma z) for standard normal z, as JAX (float dtypes only:
    JAX also samples complex ones).

    >>> from jaxwg import random
    >>> bool((random.lognormal(random.PRNGKey(0), 0.5, (100,)) > 0).all())
    True
    """
    if dtype is not None and not np.issubdtype(np.dtype(dtype), np.inexact):
        raise ValueError(f"dtype argument to `lognormal` must be a float or complex dtype, "
                         f"got {np.dtype(dtype).name}")
    dtype, shape = _float_samples("lognormal", dtype, shape, sigma)
    return lax.exp(normal(key, shape, dtype) * _as(sigma, dtype))


@_takes_keys
def maxwell(key, shape=(), dtype=None):
    """One-sided Maxwell samples: the norm of 3 standard normals, as JAX.

    >>> from jaxwg import random
    >>> random.maxwell(random.PRNGKey(0), (2, 3)).shape
    (2, 3)
    """
    return _maxwell(key, _shape(shape), _float_dtype(dtype, "maxwell"), None)


@functools.partial(staged_jit, static_argnums=(1, 2, 3))
def _maxwell(key, shape, dtype, out_sharding):
    return jnp.linalg.norm(normal(key, (*shape, 3), dtype), axis=-1)


@_takes_keys
def double_sided_maxwell(key, loc, scale, shape=(), dtype=None):
    """Double-sided Maxwell samples, loc + scale * (random sign) * maxwell, as JAX: of
    shape `shape + broadcast(loc, scale).shape`, where an empty `shape` means that
    broadcast shape (so it appears twice, as in JAX).

    >>> from jaxwg import random
    >>> random.double_sided_maxwell(random.PRNGKey(0), 0.0, 1.0, (4,)).shape
    (4,)
    """
    dtype = _float_dtype(dtype, "double_sided_maxwell")
    return _double_sided_maxwell(key, loc, scale, _shape(shape), dtype)


@functools.partial(staged_jit, static_argnums=(3, 4))
def _double_sided_maxwell(key, loc, scale, shape, dtype):
    params_shape = _broadcast_shapes(jnp.shape(loc), jnp.shape(scale))
    shape = (shape or params_shape) + params_shape
    k_maxwell, k_sign = split(key)
    maxwell_rvs = maxwell(k_maxwell, shape, dtype)
    return rademacher(k_sign, shape, dtype) * maxwell_rvs * to_array(scale) + to_array(loc)


@_takes_keys
def weibull_min(key, scale, concentration, shape=(), dtype=None):
    """Weibull samples by the inverse CDF, scale (-log1p(-u))^(1/concentration), as JAX
    (the result broadcasts `shape` with the parameters' shapes).

    >>> from jaxwg import random
    >>> bool((random.weibull_min(random.PRNGKey(0), 2.0, 1.5, (100,)) >= 0).all())
    True
    """
    return _weibull_min(key, scale, concentration, _shape(shape), _float_dtype(dtype, "weibull_min"))


@functools.partial(staged_jit, static_argnums=(3, 4))
def _weibull_min(key, scale, concentration, shape, dtype):
    u = uniform(key, shape, dtype, 0, 1)
    return jnp.power(-jnp.log1p(-u), 1.0 / to_array(concentration)) * to_array(scale)


@_takes_keys
def pareto(key, b, shape=None, dtype=None):
    """Pareto samples on [1, inf), exp(e / b) for exponential e, as JAX.

    >>> from jaxwg import random
    >>> bool((random.pareto(random.PRNGKey(0), 3.0, (100,)) >= 1).all())
    True
    """
    dtype, shape = _float_samples("pareto", dtype, shape, b)
    return _pareto(key, b, shape, dtype)


@functools.partial(staged_jit, static_argnums=(2, 3))
def _pareto(key, b, shape, dtype):
    b = _as(b, dtype)
    return lax.exp(exponential(key, shape, dtype) / b)


@_takes_keys
def rayleigh(key, scale, shape=None, dtype=None):
    """Rayleigh samples, scale sqrt(-2 log u), as JAX.

    >>> from jaxwg import random
    >>> bool((random.rayleigh(random.PRNGKey(0), 2.0, (100,)) >= 0).all())
    True
    """
    dtype, shape = _float_samples("rayleigh", dtype, shape, scale)
    return _rayleigh(key, scale, shape, dtype)


@functools.partial(staged_jit, static_argnums=(2, 3))
def _rayleigh(key, scale, shape, dtype):
    u = uniform(key, shape, dtype)
    scale = jnp.broadcast_to(_as(scale, dtype), shape)
    return lax.mul(scale, lax.sqrt(lax.mul(lax.log(u), np.array(-2, dtype))))


def _fma(a, b, c):
    """a * b + c rounded once, as XLA's CPU backend contracts JAX's float32 formulas:
    Dekker's exact product and Knuth's exact sum, rounded at the end (correct but for
    rare double roundings; a * b + c where a split overflows). float16 goes through
    float32, where its product is exact."""
    if a.dtype == np.float16:
        return (a.astype(np.float32) * b.astype(np.float32) + c.astype(np.float32)).astype(a.dtype)
    p = a * b
    (a_hi, a_lo), (b_hi, b_lo) = _veltkamp_split(a), _veltkamp_split(b)
    product_error = ((a_hi * b_hi - p) + a_hi * b_lo + a_lo * b_hi) + a_lo * b_lo
    s = p + c
    c_part = s - p
    sum_error = (p - (s - c_part)) + (c - c_part)
    fused = s + (sum_error + product_error)
    return jnp.where(jnp.isfinite(fused), fused, s)


def _veltkamp_split(a):
    """float32 `a` as hi + lo, each with at most 12 significant bits."""
    big = a * 4097.0
    hi = big - (big - a)
    return hi, a - hi


@_takes_keys
def wald(key, mean, shape=None, dtype=None):
    """Wald (inverse Gaussian) samples with the given mean and scale 1, by Michael,
    Schucany and Haas's transformation of a normal and a uniform, as JAX, with the
    fused multiply-adds XLA's CPU backend makes of it (its cancellation magnifies them).

    >>> from jaxwg import random
    >>> bool((random.wald(random.PRNGKey(0), 2.0, (100,)) > 0).all())
    True
    """
    dtype, shape = _float_samples("wald", dtype, shape, mean)
    return _wald(key, mean, shape, dtype)


@functools.partial(staged_jit, static_argnums=(2, 3))
def _wald(key, mean, shape, dtype):
    k1, k2 = split(key)
    mean = jnp.broadcast_to(_as(mean, dtype), shape)
    v = normal(k1, shape, dtype)
    z = uniform(k2, shape, dtype)
    y = lax.integer_pow(v, 2)
    y_sq = lax.integer_pow(y, 2)
    mean_sq = lax.integer_pow(mean, 2)
    sqrt_term = lax.sqrt(_fma(4 * mean, y, mean_sq * y_sq))
    x = _fma(-(mean / 2), sqrt_term, mean + mean_sq * y / 2)
    return lax.select(lax.le(z, mean / (mean + x)), x, mean_sq / x)


@_takes_keys
def triangular(key, left, mode, right, shape=None, dtype=None):
    """Triangular samples on [left, right] peaking at `mode`, by the inverse CDF, as JAX.

    >>> from jaxwg import random
    >>> x = random.triangular(random.PRNGKey(0), -1.0, 0.0, 2.0, (100,))
    >>> bool((x >= -1).all() and (x <= 2).all())
    True
    """
    dtype, shape = _float_samples("triangular", dtype, shape, left, mode, right)
    left, mode, right = (jnp.broadcast_to(_as(v, dtype), shape) for v in (left, mode, right))
    fc = (mode - left) / (right - left)
    u = uniform(key, shape, dtype)
    out1 = left + lax.sqrt(u * (right - left) * (mode - left))
    out2 = right - lax.sqrt((1 - u) * (right - left) * (right - mode))
    return lax.select(u < fc, out1, out2)


@_takes_keys
def f(key, dfnum, dfden, shape=None, dtype=None):
    """F-distribution samples, (chi2(dfnum) / dfnum) / (chi2(dfden) / dfden), with JAX's
    key splitting (the chi-squares are rejection-sampled: not JAX's bits).

    >>> from jaxwg import random
    >>> bool((random.f(random.PRNGKey(0), 3.0, 5.0, (100,)) > 0).all())
    True
    """
    dtype, shape = _float_samples("f", dtype, shape, dfnum, dfden)
    return _f(key, dfnum, dfden, shape, dtype)


@functools.partial(staged_jit, static_argnums=(3, 4))
def _f(key, dfnum, dfden, shape, dtype):
    dfden, dfnum = lax.convert_element_type(dfden, dtype), lax.convert_element_type(dfnum, dtype)
    key_dfd, key_dfn = split(key)
    chi2_num = chisquare(key_dfn, dfnum, shape, dtype)
    chi2_den = chisquare(key_dfd, dfden, shape, dtype)
    return lax.div(lax.div(chi2_num, dfnum), lax.div(chi2_den, dfden))


@_takes_keys
def geometric(key, p, shape=None, dtype=None):
    """Geometric samples (trials up to the first success, from 1):
    floor(log u / log1p(-p)) + 1, as JAX; int32 by default (with x64 too: jaxwg's
    integers are 32-bit).

    >>> from jaxwg import random
    >>> x = random.geometric(random.PRNGKey(0), 0.5, (100,))
    >>> x.dtype, int(x.min()) >= 1
    (dtype('int32'), True)
    """
    dtype = np.dtype(np.int32 if dtype is None else dtype)
    if not np.issubdtype(dtype, np.integer):
        raise ValueError(f"dtype argument to `geometric` must be an int dtype, got {dtype.name}")
    dtype = canonical_dtype(dtype).np  # 32 bits unless x64
    shape = _sample_shape("geometric", shape, p)
    check_arraylike("geometric", p)
    return _geometric(key, p, shape, dtype, None)


@functools.partial(staged_jit, static_argnums=(2, 3, 4))
def _geometric(key, p, shape, dtype, out_sharding):
    p = to_array(p)
    if p.dtype not in (np.float16, np.float32):  # inexact as JAX's, and 32 bits at most
        p = p.astype(np.float32)
    u = uniform(key, shape, p.dtype)
    log_u = lax.log(jnp.where(u == 0, 1, u))  # as JAX: u = 0 counts as 1
    log_one_minus_p = jnp.broadcast_to(lax.log1p(-p), shape)
    return (lax.floor(lax.div(log_u, log_one_minus_p)) + 1).astype(dtype)


# -- binomial and multinomial (rejection sampling) -----------------------------------------

# log k! - Stirling's approximation (k + 1/2) log(k + 1) - (k + 1) + log(2 pi) / 2, k = 0..9
_STIRLING_TAIL = np.array([0.0810614667953272, 0.0413406959554092, 0.0276779256849983,
                           0.02079067210376509, 0.0166446911898211, 0.0138761288230707,
                           0.0118967099458917, 0.0104112652619720, 0.00925546218271273,
                           0.00833056343336287], np.float32)


def _stirling_tail(k):
    """log k! less Stirling's approximation, for float32 k >= 0: a table up to 9, the
    series above (as JAX and TensorFlow)."""
    kc = jnp.clip(k, 0.0, 9.0)
    kp1sq = (kc + 1) * (kc + 1)
    approx = (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (kc + 1)
    table = jnp.take(jnp.asarray(_STIRLING_TAIL), jnp.floor(kc).astype(np.int32))
    return jnp.where(k <= 9, table, approx)


def _binomial_inversion(key, count, q):
    """The number of geometric(q) draws whose running sum stays at most `count` (for
    count q <= 10: about count q + 1 rounds)."""
    log_1mq = jnp.log1p(-q)

    def geometric_draw(round_key, shape):
        return jnp.ceil(jnp.log(uniform(round_key, shape)) / log_1mq)

    return _count_draws_within(key, count, geometric_draw, ~(count >= 0)).astype(np.float32)


def _binomial_btrs(key, count, q):
    """Hoermann's transformed rejection with squeeze (BTRS, 1993) for count q > 10."""
    shape = jnp.shape(count)
    stddev = jnp.sqrt(count * q * (1 - q))
    b = 1.15 + 2.53 * stddev
    a = -0.0873 + 0.0248 * b + 0.01 * q
    c = count * q + 0.5
    v_r = 0.92 - 4.2 / b
    r = q / (1 - q)
    alpha = (2.83 + 5.1 / b) * stddev
    m = jnp.floor((count + 1) * q)
    m_terms = (m + 0.5) * jnp.log((m + 1) / (r * (count - m + 1))) \
        + _stirling_tail(m) + _stirling_tail(count - m)

    def propose(round_key, _):
        k_u, k_v = split(round_key)
        u = uniform(k_u, shape) - 0.5
        v = uniform(k_v, shape)
        us = 0.5 - jnp.abs(u)
        k = jnp.floor((2 * a / us + b) * u + c)
        squeeze = (us >= 0.07) & (v <= v_r)
        outside = (k < 0) | (k > count)
        log_v = jnp.log(v * alpha / (a / (us * us) + b))
        bound = m_terms + (count + 1) * jnp.log((count - m + 1) / (count - k + 1)) \
            + (k + 0.5) * jnp.log(r * (count - k + 1) / (k + 1)) \
            - _stirling_tail(k) - _stirling_tail(count - k)
        return squeeze | (~outside & (log_v <= bound)), k

    return _rounds_until_accepted(key, shape, propose, jnp.zeros(shape, np.float32))


@_takes_keys
def binomial(key, n, p, shape=None, dtype=None):
    """Binomial(n, p) samples as floats: inversion (counting geometric draws) where
    n min(p, 1-p) <= 10, BTRS rejection above, as JAX's algorithm (not its bits);
    NaN where n is negative or NaN or p is NaN or negative, inf where n is inf, as JAX.
    A float `n` is floored.

    >>> from jaxwg import random
    >>> x = random.binomial(random.PRNGKey(0), 10, 0.3, (1000,))
    >>> x.dtype, float(x.min()) >= 0, float(x.max()) <= 10
    (dtype('float32'), True, True)
    """
    check_arraylike("binomial", n, p)
    dtype = _float_dtype(dtype, "binomial")
    n, p = to_array(n), to_array(p)
    shape = _sample_shape("binomial", None if shape is None else _shape(shape), n, p)
    count = jnp.broadcast_to(n.astype(np.float32), shape)
    p = jnp.broadcast_to(p.astype(np.float32), shape)
    p_lt_half = p < 0.5
    q = jnp.where(p_lt_half, p, 1.0 - p)
    count_bad = jnp.isnan(count) | (count < 0)
    count_inf = jnp.isinf(count)
    q_bad = jnp.isnan(q) | (q < 0)
    q = jnp.where(q_bad, 0.01, q)
    count = jnp.floor(count)
    inversion = count_bad | (count * q <= 10.0)
    rejection = ~inversion & ~count_inf
    k_inversion, k_rejection = split(key)
    # Each method sees harmless stand-ins where the other one (or neither) applies
    counted = _binomial_inversion(k_inversion, jnp.where(inversion, count, 0.0), q)
    rejected = _binomial_btrs(k_rejection, jnp.where(rejection, count, 1e4),
                              jnp.where(rejection, q, 0.5))
    samples = jnp.where(inversion, counted, rejected)
    samples = jnp.where(p_lt_half, samples, count - samples)
    samples = jnp.where(count_inf, np.inf, samples)
    return jnp.where(q_bad | count_bad, np.nan, samples).astype(dtype)


@_takes_keys
def multinomial(key, n, p, *, shape=None, dtype=None, unroll=1):
    """Multinomial counts of `n` trials over the outcomes on `p`'s last axis: a binomial
    per outcome, of the trials left, with the outcome's share of the probability left
    (a `scan`, as JAX); `shape`, if given, is the full result shape.

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg import random
    >>> x = random.multinomial(random.PRNGKey(0), 10, jnp.array([0.2, 0.3, 0.5]))
    >>> x.shape, x.sum().item()
    ((3,), 10.0)
    """
    check_arraylike("multinomial", n, p)
    n, p = to_array(n), to_array(p)
    inexact = jnp.result_type(n, p, 1.0)
    n, p = n.astype(inexact), p.astype(inexact)
    shape = p.shape if shape is None else _shape(shape)
    n = jnp.broadcast_to(n, shape[:-1])
    p = jnp.moveaxis(jnp.broadcast_to(p, shape), -1, 0)
    remaining = jnp.flip(jnp.cumsum(jnp.flip(p, 0), 0), 0)
    ratios = p / jnp.where(remaining == 0, 1, remaining)

    def one_outcome(left, ratio_key):
        ratio, round_key = ratio_key
        count = binomial(round_key, left, jnp.clip(ratio, 0, 1), dtype=left.dtype)
        return left - count, count

    keys = split(key, ratios.shape[0])
    _, counts = lax.scan(one_outcome, n, (ratios, keys), unroll=unroll)
    return jnp.moveaxis(counts, 0, -1).astype(_float_dtype(dtype, "multinomial"))
