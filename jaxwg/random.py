"""`jaxwg.random`: JAX's counter-based PRNG (Threefry-2x32), bit for bit.

A key is a uint32 array of shape (2,). Keys, `split`, `fold_in`, `bits`, `uniform` on
[0, 1), `randint`, `bernoulli` and `rademacher` give the same bits as JAX's defaults
(`jax_threefry_partitionable` on, as it is by default): `bits` hashes the element's
flat index (a 64-bit counter, high word first) with `lax.threefry2x32` and xors the
two words. The distributions follow JAX's formulas (`normal` is sqrt(2) erf_inv(u)
with `u` uniform on (-1, 1)) and differ from JAX only by rounding: XLA fuses the
multiply-adds (`uniform`'s scaling to [minval, maxval), erf_inv's polynomial) into
fmas and WGSL does not promise fused ones, so `uniform` on other ranges may differ by
an ulp of the bounds and `normal` by up to 3 ulp.

Unlike JAX, `key` makes the same raw uint32 key as `PRNGKey` (typed key arrays are not
modeled); `key_data` and `wrap_key_data` convert nothing.

>>> from jaxwg import random
>>> key = random.PRNGKey(0)
>>> key.tolist(), random.split(key).tolist()
([0, 0], [[1797259609, 2579123966], [928981903, 3453687069]])
>>> random.uniform(random.PRNGKey(42), (3,)).tolist()
[0.48870956897735596, 0.6797971725463867, 0.6162714958190918]
"""

from __future__ import annotations

import math

import numpy as np

from . import lax
from . import numpy as jnp
from .config import config
from .frontend.array import aval_of
from .frontend.trace import Tracer

__all__ = ["PRNGKey", "bernoulli", "bits", "categorical", "cauchy", "choice", "exponential",
           "fold_in", "gumbel", "key", "key_data", "laplace", "logistic", "normal", "permutation",
           "rademacher", "randint", "split", "truncated_normal", "uniform", "wrap_key_data"]

_MASK = 0xFFFFFFFF


def _shape(shape) -> tuple[int, ...]:
    return (int(shape),) if np.ndim(shape) == 0 else tuple(int(n) for n in shape)


def _check_key(key, what: str):
    aval = aval_of(key)
    if aval.shape != (2,) or aval.dtype.name != "uint32":
        raise TypeError(f"{what} requires a PRNG key: a uint32 array of shape (2,), got "
                        f"{aval.str_short()}")
    return key


def PRNGKey(seed):
    """A key from an integer seed: (high 32 bits, low 32 bits); the high word is 0
    unless `jax_enable_x64` is on, as in JAX.

    >>> from jaxwg import random
    >>> random.PRNGKey(-1).tolist()
    [0, 4294967295]
    """
    if isinstance(seed, Tracer) or hasattr(seed, "aval"):
        aval = aval_of(seed)
        if aval.shape or not aval.dtype.is_int:
            raise TypeError(f"PRNG key seed must be an integer scalar; got {aval.str_short()}")
        low = lax.convert_element_type(seed, np.uint32)
        return jnp.stack([jnp.zeros((), np.uint32), low])
    if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool):
        raise TypeError(f"PRNG key seed must be an integer; got {seed!r}")
    seed = int(seed)
    high = (seed >> 32) & _MASK if config.jax_enable_x64 else 0
    return jnp.asarray(np.array([high, seed & _MASK], np.uint32))


key = PRNGKey


def key_data(keys):
    """The uint32 data of `keys` (keys are raw here: the same array).

    >>> from jaxwg import random
    >>> random.key_data(random.key(3)).tolist()
    [0, 3]
    """
    return keys


def wrap_key_data(key_bits_array, *, impl=None):
    """`key_bits_array` as keys (keys are raw here: the same array).

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg import random
    >>> random.wrap_key_data(jnp.array([0, 3], jnp.uint32)).tolist()
    [0, 3]
    """
    if impl not in (None, "threefry2x32"):
        raise ValueError(f"only the threefry2x32 PRNG is implemented, got {impl!r}")
    return key_bits_array


def _hash(key, shape):
    """Both Threefry words for each element of `shape`, counter = its flat index."""
    key = _check_key(key, "random")
    k0, k1 = key[0], key[1]
    size = math.prod(shape)
    if size >= 2 ** 32:
        raise NotImplementedError("random values for 2**32 or more elements")
    zero = jnp.zeros(shape, np.uint32)
    counts = lax.reshape(lax.iota(np.uint32, size), shape) if shape else zero
    return lax.threefry2x32(k0, k1, zero, counts)


def split(key, num=2):
    """`num` new keys (an int or a shape), shape `(*num, 2)`.

    >>> from jaxwg import random
    >>> random.split(random.PRNGKey(1), 3).shape
    (3, 2)
    """
    shape = _shape(num)
    b0, b1 = _hash(key, shape)
    return jnp.stack([b0, b1], axis=len(shape))


def fold_in(key, data):
    """A new key from `key` and an integer `data`.

    >>> from jaxwg import random
    >>> random.fold_in(random.PRNGKey(0), 7).shape
    (2,)
    """
    key = _check_key(key, "fold_in")
    if isinstance(data, (int, np.integer)) and not 0 <= int(data) <= _MASK:
        raise OverflowError(f"Python integer {data} out of bounds for uint32")
    if isinstance(data, (int, np.integer)):
        data = jnp.asarray(np.uint32(data))
    data = lax.convert_element_type(data, np.uint32)
    b0, b1 = lax.threefry2x32(key[0], key[1], jnp.zeros((), np.uint32), data)
    return jnp.stack([b0, b1])


def bits(key, shape=(), dtype=None):
    """Uniform random uint32 bits of `shape`.

    >>> from jaxwg import random
    >>> random.bits(random.PRNGKey(0), (2,)).dtype
    dtype('uint32')
    """
    if dtype is not None and np.dtype(dtype) != np.uint32:
        raise TypeError(f"bits: only uint32 is supported, got {np.dtype(dtype)}")
    b0, b1 = _hash(key, _shape(shape))
    return lax.bitwise_xor(b0, b1)


def _float_dtype(dtype):
    dtype = np.dtype(np.float32 if dtype is None else dtype)
    if dtype not in (np.float32, np.float16):
        raise TypeError(f"random: only float32 and float16 samples are supported, got {dtype}")
    return dtype


def uniform(key, shape=(), dtype=None, minval=0.0, maxval=1.0):
    """Uniform samples on [minval, maxval): the top mantissa bits of `bits`, as JAX
    makes them.

    >>> from jaxwg import random
    >>> x = random.uniform(random.PRNGKey(0), (1000,), minval=-2.0, maxval=3.0)
    >>> bool((x >= -2.0).all() and (x < 3.0).all())
    True
    """
    dtype, shape = _float_dtype(dtype), _shape(shape)
    raw = bits(key, shape)
    nmant = np.finfo(dtype).nmant
    if dtype == np.float32:
        one = np.array(1.0, np.float32).view(np.uint32)
        mantissa = lax.bitwise_or(lax.shift_right_logical(raw, np.uint32(32 - nmant)), one)
        unit = lax.sub(lax.bitcast_convert_type(mantissa, np.float32), 1.0)
    else:  # float16 from 16 random bits (the low half of the xor), as JAX's uint16 draw
        top = lax.shift_right_logical(lax.bitwise_and(raw, np.uint32(0xFFFF)),
                                      np.uint32(16 - nmant))
        unit = lax.convert_element_type(
            lax.mul(lax.convert_element_type(top, np.float32), 2.0 ** -nmant), dtype)
    lo = jnp.asarray(minval).astype(dtype)
    hi = jnp.asarray(maxval).astype(dtype)
    return jnp.maximum(lo, unit * (hi - lo) + lo)


def normal(key, shape=(), dtype=None):
    """Standard normal samples: sqrt(2) erf_inv(u), u uniform on (-1, 1), as JAX.

    >>> from jaxwg import random
    >>> abs(float(random.normal(random.PRNGKey(0), (10000,)).mean())) < 0.05
    True
    """
    dtype = _float_dtype(dtype)
    lo = np.nextafter(np.array(-1.0, dtype), np.array(0.0, dtype))
    u = uniform(key, shape, dtype, lo, 1.0)
    return lax.mul(lax.erf_inv(u), float(np.sqrt(np.array(2.0, dtype))))


def _rem(a, span):
    """a mod span for uint32, with a mod 0 = a (XLA's remainder by zero)."""
    safe = lax.select(lax.eq(span, np.uint32(0)), lax.full_like(span, 1), span)
    return lax.select(lax.eq(span, np.uint32(0)), a, lax.rem(a, safe))


def randint(key, shape, minval, maxval, dtype=None):
    """Integers uniform on [minval, maxval), from 64 random bits per value, as JAX.

    >>> from jaxwg import random
    >>> x = random.randint(random.PRNGKey(0), (1000,), -3, 5)
    >>> int(x.min()), int(x.max())
    (-3, 4)
    """
    dtype = np.dtype(np.int32 if dtype is None else dtype)
    if dtype not in (np.int32, np.uint32):
        raise TypeError(f"randint: only int32 and uint32 are supported, got {dtype}")
    shape = _shape(shape)
    info = np.iinfo(dtype)
    for v, name in ((minval, "minval"), (maxval, "maxval")):
        if isinstance(v, int) and not info.min <= v <= info.max:
            raise OverflowError(f"randint {name} {v} does not fit {dtype.name}")
    lo, hi = (jnp.asarray(v).astype(dtype) for v in (minval, maxval))
    k1, k2 = split(key)
    higher, lower = bits(k1, shape), bits(k2, shape)
    span = lax.convert_element_type(jnp.broadcast_to(hi - lo, shape), np.uint32)
    span = jnp.where(jnp.broadcast_to(hi <= lo, shape), np.uint32(1), span)
    multiplier = _rem(jnp.full(shape, 1 << 16, np.uint32), span)
    multiplier = _rem(multiplier * multiplier, span)
    offset = _rem(_rem(higher, span) * multiplier + _rem(lower, span), span)
    return jnp.broadcast_to(lo, shape) + lax.convert_element_type(offset, dtype)


def bernoulli(key, p=0.5, shape=None):
    """True with probability `p`: uniform samples below `p`, as JAX.

    >>> from jaxwg import random
    >>> random.bernoulli(random.PRNGKey(0), 0.3, (4,)).dtype
    dtype('bool')
    """
    p = jnp.asarray(p)
    dtype = p.dtype if np.issubdtype(p.dtype, np.floating) else np.float32
    shape = p.shape if shape is None else _shape(shape)
    return lax.lt(uniform(key, shape, dtype), jnp.broadcast_to(p.astype(dtype), shape))


def rademacher(key, shape, dtype=None):
    """+1 or -1 with equal probability (2 bernoulli - 1), as JAX.

    >>> from jaxwg import random
    >>> sorted(set(random.rademacher(random.PRNGKey(0), (64,)).tolist()))
    [-1, 1]
    """
    dtype = np.dtype(np.int32 if dtype is None else dtype)
    b = bernoulli(key, 0.5, shape).astype(dtype)
    return 2 * b - 1


def exponential(key, shape=(), dtype=None):
    """Exponential samples, -log1p(-u), as JAX.

    >>> from jaxwg import random
    >>> bool((random.exponential(random.PRNGKey(0), (100,)) >= 0).all())
    True
    """
    return lax.neg(lax.log1p(lax.neg(uniform(key, shape, dtype))))


def laplace(key, shape=(), dtype=None):
    """Laplace samples, sign(u) log1p(-|u|) with u uniform on (-1, 1), as JAX.

    >>> from jaxwg import random
    >>> random.laplace(random.PRNGKey(0), (3,)).shape
    (3,)
    """
    dtype = _float_dtype(dtype)
    u = uniform(key, shape, dtype, -1.0 + float(np.finfo(dtype).epsneg), 1.0)
    return lax.mul(lax.sign(u), lax.log1p(lax.neg(lax.abs(u))))


def logistic(key, shape=(), dtype=None):
    """Logistic samples, log(u) - log1p(-u), as JAX.

    >>> from jaxwg import random
    >>> random.logistic(random.PRNGKey(0), (3,)).shape
    (3,)
    """
    dtype = _float_dtype(dtype)
    u = uniform(key, shape, dtype, float(np.finfo(dtype).tiny), 1.0)
    return lax.sub(lax.log(u), lax.log1p(lax.neg(u)))


def cauchy(key, shape=(), dtype=None):
    """Cauchy samples, tan(pi (u - 1/2)), as JAX.

    >>> from jaxwg import random
    >>> random.cauchy(random.PRNGKey(0), (3,)).shape
    (3,)
    """
    dtype = _float_dtype(dtype)
    u = uniform(key, shape, dtype, float(np.finfo(dtype).eps), 1.0)
    return lax.tan(lax.mul(lax.sub(u, 0.5), float(np.pi)))


def gumbel(key, shape=(), dtype=None):
    """Gumbel samples, -log(-log(u)), as JAX's default ("low") mode.

    >>> from jaxwg import random
    >>> random.gumbel(random.PRNGKey(0), (3,)).shape
    (3,)
    """
    dtype = _float_dtype(dtype)
    u = uniform(key, shape, dtype, float(np.finfo(dtype).tiny), 1.0)
    return lax.neg(lax.log(lax.neg(lax.log(u))))


def truncated_normal(key, lower, upper, shape=None, dtype=None):
    """Normal samples inside (lower, upper), by the inverse CDF, as JAX.

    >>> from jaxwg import random
    >>> x = random.truncated_normal(random.PRNGKey(0), -1.0, 2.0, (1000,))
    >>> bool((x > -1.0).all() and (x < 2.0).all())
    True
    """
    dtype = _float_dtype(dtype)
    lower = jnp.asarray(lower, dtype)
    upper = jnp.asarray(upper, dtype)
    shape = np.broadcast_shapes(lower.shape, upper.shape) if shape is None else _shape(shape)
    sqrt2 = float(np.sqrt(np.array(2.0, dtype)))
    a, b = lax.erf(lower / sqrt2), lax.erf(upper / sqrt2)
    out = lax.mul(lax.erf_inv(uniform(key, shape, dtype, a, b)), sqrt2)
    # The open interval: one step inside each bound.
    inside_lo = lax.bitcast_convert_type(_step_up(lax.bitcast_convert_type(lower, np.int32)), dtype) \
        if dtype == np.float32 else lower
    inside_hi = lax.bitcast_convert_type(_step_down(lax.bitcast_convert_type(upper, np.int32)), dtype) \
        if dtype == np.float32 else upper
    return jnp.clip(out, inside_lo, inside_hi)


def _step_up(i):
    """The float32 bits of the next value towards +inf (finite, not -0 or NaN)."""
    return jnp.where(i >= 0, i + 1, jnp.where(i == np.int32(-2 ** 31), 1, i - 1))


def _step_down(i):
    """The float32 bits of the next value towards -inf (finite)."""
    return jnp.where(i > 0, i - 1, jnp.where(i == 0, np.int32(-2 ** 31) + 1, i + 1))


def _shuffle(key, x, axis: int):
    """`x` shuffled along `axis` as JAX does: sorted by fresh random 32-bit keys, in as
    many rounds as make colliding keys unlikely (3 ln(size) / ln(2^32 - 1))."""
    rounds = int(np.ceil(3 * np.log(max(1, math.prod(jnp.shape(x)))) / np.log(_MASK)))
    for _ in range(rounds):
        key, subkey = split(key)
        _, x = lax.sort_key_val(bits(subkey, jnp.shape(x)), x, axis)
    return x


def permutation(key, x, axis: int = 0, independent: bool = False):
    """A random permutation of `range(x)` (an int), or of `x` along `axis` (with
    `independent`, each slice on its own), bit for bit as JAX's.

    >>> from jaxwg import random
    >>> sorted(random.permutation(random.PRNGKey(0), 5).tolist())
    [0, 1, 2, 3, 4]
    """
    _check_key(key, "permutation")
    if np.ndim(x) == 0 and not hasattr(x, "aval"):
        if not isinstance(x, (int, np.integer)):
            raise TypeError(f"x must be an integer or at least 1-dimensional, got {x!r}")
        return _shuffle(key, jnp.arange(int(x)), 0)
    x = jnp.asarray(x)
    axis = axis % x.ndim
    if independent or x.ndim == 1:
        return _shuffle(key, x, axis)
    order = _shuffle(key, jnp.arange(x.shape[axis]), 0)
    # x[order] along axis, without a gather: sort x's slices by where each one goes
    rank = jnp.argsort(order)
    keys = lax.broadcast_in_dim(rank, x.shape, (axis,))
    return lax.sort_key_val(keys, x, axis)[1]


def categorical(key, logits, axis: int = -1, shape=None, replace: bool = True):
    """Samples of category indices from unnormalized log-probabilities `logits`: the
    Gumbel-max trick with replacement, Gumbel-top-k without (as JAX).

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg import random
    >>> random.categorical(random.PRNGKey(0), jnp.log(jnp.array([0.0, 1.0, 0.0])), shape=(3,)).tolist()
    [1, 1, 1]
    """
    logits = jnp.asarray(logits)
    axis = axis % logits.ndim
    batch_shape = logits.shape[:axis] + logits.shape[axis + 1:]
    shape = batch_shape if shape is None else _shape(shape)
    if shape[len(shape) - len(batch_shape):] != batch_shape:
        raise ValueError(f"categorical: shape {shape} must end with the batch shape {batch_shape}")
    prefix = shape[:len(shape) - len(batch_shape)]
    if replace:
        logits_shape = list(batch_shape)
        logits_shape.insert(axis, logits.shape[axis])
        noise = gumbel(key, (*prefix, *logits_shape), logits.dtype)
        return jnp.argmax(noise + jnp.expand_dims(logits, tuple(range(len(prefix)))),
                          axis=axis + len(prefix))
    k = math.prod(prefix)
    if k > logits.shape[axis]:
        raise ValueError(f"Number of samples without replacement ({k}) cannot exceed number of "
                         f"categories ({logits.shape[axis]}).")
    noisy = logits + gumbel(key, logits.shape, logits.dtype)
    _, indices = lax.top_k(jnp.moveaxis(noisy, axis, -1), k)
    return lax.reshape(indices, shape, (indices.ndim - 1, *range(indices.ndim - 1)))


def choice(key, a, shape=(), replace: bool = True, p=None, axis: int = 0):
    """Random draws from `range(a)` (an int; drawing from an array's elements needs a
    gather, which jaxwg does not have yet), uniformly or with probabilities `p`, as JAX.

    >>> from jaxwg import random
    >>> x = random.choice(random.PRNGKey(0), 10, (4,), replace=False)
    >>> len(set(x.tolist()))
    4
    """
    if np.ndim(a) != 0 or hasattr(a, "aval"):
        raise NotImplementedError("choice from an array's elements needs a gather, which "
                                  "jaxwg does not have yet: draw indices with choice(key, n)")
    n, shape = int(a), _shape(shape)
    draws = math.prod(shape)
    if not replace and draws > n:
        raise ValueError(f"Cannot take a larger sample (size {draws}) than population (size {n}) "
                         "when 'replace=False'")
    if p is None:
        if replace:
            return randint(key, shape, 0, n)
        return lax.reshape(lax.slice(permutation(key, n), (0,), (draws,)), shape)
    p = jnp.asarray(p)
    if replace:
        cumulative = jnp.cumsum(p)
        r = cumulative[-1] * (1 - uniform(key, shape, p.dtype))
        return jnp.searchsorted(cumulative, r)
    noisy = gumbel(key, (n,), p.dtype) + jnp.log(p)
    return lax.reshape(lax.top_k(noisy, draws)[1], shape)
