"""`jaxwg.random`: JAX's counter-based PRNG (Threefry-2x32), bit for bit.

Keys, `split`, `fold_in`, `bits`, `uniform` on [0, 1), `randint`, `bernoulli` and
`rademacher` give the same bits as JAX's defaults (`jax_threefry_partitionable` on, as
it is by default): `bits` hashes the element's flat index (a 64-bit counter, high word
first) with `lax.threefry2x32` and xors the two words. The distributions that JAX
computes in closed form follow its formulas. `normal`, sqrt(2) erf_inv(u) with `u`
uniform on (-1, 1), is JAX's bit for bit where division, sqrt and fma round correctly
(the CPU backend, software adapters; within 2 ulp elsewhere): `lax.erf_inv` computes
as XLA's CPU backend does, fused multiply-adds included. The others differ from JAX by
rounding: `uniform` on other ranges by an ulp of the bounds (XLA fuses its scaling),
those built on exp, log or tan by a few ulp.

The rejection samplers (`gamma` and what builds on it, `poisson`, `binomial` and
`multinomial`) run rounds of vectorized proposals in a `while_loop` until every element
is accepted (JAX loops per element): their draws have the right distribution but are not
JAX's bits. Gamma draws are JAX's `random_gamma` primitive in jaxprs (with JAX's rules:
the reparameterization JVP, keys batched with the parameter), staged in JAX's named
`jit` calls as the samplers built on them are (`_gamma`, `_beta`, `_dirichlet`, ...). jaxwg/_random_distributions.py holds the distributions JAX builds from these
(lognormal, Maxwell, Pareto, Rayleigh, Weibull, triangular, Wald, F, geometric,
binomial, multinomial).

Keys come in JAX's two kinds. `PRNGKey(seed)` makes a legacy key, a uint32 array of
shape (2,); `key(seed)` makes a typed key array (`PRNGKeyArray`) of shape () and dtype
`key<fry>`, over the same two words (`key_data`, `wrap_key_data`). Every function here
takes either kind; `split` and `fold_in` return keys of the kind they are given. Both
kinds go through JAX's key primitives (`jaxwg.lax.prng`: `random_seed`, `random_wrap`,
`random_bits`, `random_split`, `random_fold_in`, `random_unwrap`), a legacy key wrapped
on the way in and unwrapped on the way out, so jaxprs show `key<fry>` values as JAX's.
A typed key array is a leaf of `tree_util` (as JAX's) and, inside jaxwg, a pytree node
over an array of dtype `key<fry>` (its `_base`), so it passes through `jit`, `vmap`,
`scan` and the other transformations, and indexes, reshapes and iterates over its key
axes as JAX's does. It is a `jaxwg.Array`, and `jnp.asarray`, `array`, `reshape`,
`ravel`, `transpose`, `squeeze`, `stack`, `concatenate`, `where` and the other functions
`lax.keys.moves_keys` marks take it (through its uint32 data); other `jnp` functions do
not.

>>> from jaxwg import random
>>> key = random.PRNGKey(0)
>>> key.tolist(), random.split(key).tolist()
([0, 0], [[1797259609, 2579123966], [928981903, 3453687069]])
>>> k1, k2 = random.split(random.key(0))
>>> k1
Array((), dtype=key<fry>) overlaying:
[1797259609 2579123966]
>>> random.uniform(random.PRNGKey(42), (3,)).tolist()
[0.48870956897735596, 0.6797971725463867, 0.6162714958190918]
"""

from __future__ import annotations

import functools
import math

import numpy as np

from . import lax
from . import numpy as jnp
from .lax import keys as _typed_keys
from .lax import prng
from .config import config
from .core import dtypes as dt
from .dtypes import float0
from .frontend import primitives as P
from .frontend.array import aval_of
from .frontend.aval import ShapedArray, canonical_dtype
from .frontend.basearray import Array
from .frontend.complex_lowering import STORAGE_RULES
from .frontend.jaxpr import trace_body
from .frontend.jit import lower_jaxpr, staged_jit
from .frontend.pytree import register_pytree_node
from .frontend.trace import Tracer
from .numpy._util import canonicalize_axis
from .transforms.ad_rules import defjvp
from .transforms.batching import batch_size, move_axis, vmap

__all__ = ["PRNGKey", "PRNGKeyArray", "ball", "bernoulli", "beta", "binomial", "bits", "categorical",
           "cauchy", "chisquare", "choice", "clone", "dirichlet", "double_sided_maxwell",
           "exponential", "f", "fold_in", "gamma", "generalized_normal", "geometric", "gumbel",
           "key", "key_data", "key_dtype", "key_impl", "laplace", "loggamma", "logistic",
           "lognormal", "maxwell", "multinomial", "multivariate_normal", "normal", "orthogonal",
           "pareto", "permutation", "poisson", "rademacher", "randint", "rayleigh", "split", "t",
           "triangular", "truncated_normal", "uniform", "wald", "weibull_min", "wrap_key_data"]

_MASK = 0xFFFFFFFF


def _shape(shape) -> tuple[int, ...]:
    return (int(shape),) if np.ndim(shape) == 0 else tuple(int(n) for n in shape)


_IMPL = prng.THREEFRY.name
_KEY_DTYPE = dt.key_fry


@Array.register
class PRNGKeyArray:
    """A typed key array (`key`, `split` of one): keys of shape `shape`, dtype `key<fry>`,
    over uint32 data of shape `shape + (2,)` (`key_data`). A pytree node whose one child
    is an array of dtype `key<fry>` (`_base`), so transformations see keys as JAX's do."""

    __slots__ = ("_base",)
    __hash__ = None  # as arrays

    def __init__(self, base):
        self._base = base  # not checked: pytree code rebuilds nodes from placeholders

    dtype = _KEY_DTYPE

    @property
    def _data(self):
        return prng.random_unwrap_p.bind(self._base)

    @property
    def shape(self) -> tuple[int, ...]:
        return aval_of(self._base).shape

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    def __iter__(self):
        if not self.shape:
            raise TypeError("iteration over a 0-d key array")
        # Each key along the first axis, as JAX's iteration takes it (unit strides)
        ones, rest = (1,) * self.ndim, self.shape[1:]
        return (PRNGKeyArray(lax.squeeze(lax.slice(self._base, (i,) + (0,) * len(rest), (i + 1, *rest), ones),
                                         (0,)))
                for i in range(self.shape[0]))

    def __getitem__(self, index):
        if isinstance(index, (int, np.integer)) and self.shape and -self.shape[0] <= index < self.shape[0]:
            # Keys along the first axis, as JAX's indexing takes them: a slice and a squeeze
            return PRNGKeyArray(lax.index_in_dim(self._base, int(index) % self.shape[0], keepdims=False))
        index = index if isinstance(index, tuple) else (index,)
        if any(i is Ellipsis for i in index):
            return _from_data(self._data[(*index, slice(None))])
        used = sum(getattr(i, "ndim", 1) if getattr(i, "dtype", None) == np.bool_ else i is not None
                   for i in index)
        if used > self.ndim:
            raise IndexError(f"Too many indices: array is {self.ndim}-dimensional, but {used} were "
                             "indexed")
        return _from_data(self._data[(*index, Ellipsis)])

    def reshape(self, *shape, order="C"):
        shape = _shape(shape[0] if len(shape) == 1 else shape)
        if -1 not in shape and math.prod(shape) != self.size:
            raise TypeError(f"cannot reshape array of shape {self.shape} (size {self.size}) into "
                            f"shape {shape if len(shape) != 1 else shape[0]} (size {math.prod(shape)})")
        if order == "F":  # on the key axes only: each key's two words stay together
            return self.transpose().reshape(shape[::-1]).transpose()
        return _from_data(jnp.reshape(self._data, (*shape, 2), order=order))

    def ravel(self, order="C"):
        return self.reshape(-1, order=order)

    flatten = ravel

    def squeeze(self, axis=None):
        axes = range(self.ndim) if axis is None else np.atleast_1d(axis)
        axes = tuple(a for a in (int(a) % max(self.ndim, 1) for a in axes)
                     if axis is not None or self.shape[a] == 1)
        return _from_data(jnp.squeeze(self._data, axes))

    def transpose(self, *axes):
        axes = tuple(range(self.ndim))[::-1] if not axes or axes == (None,) else \
            tuple(axes[0] if len(axes) == 1 and not isinstance(axes[0], int) else axes)
        return _from_data(jnp.transpose(self._data, (*(a % self.ndim for a in axes), self.ndim)))

    @property
    def T(self):
        return self.transpose()

    def copy(self):
        return _from_data(jnp.array(self._data))

    def block_until_ready(self):
        self._base.block_until_ready()
        return self

    @property
    def at(self):
        """Updates of keys at an index, as `Array.at`: `keys.at[i].set(other_keys)`."""
        return _KeyIndexUpdates(self)

    def __eq__(self, other):
        if not isinstance(other, PRNGKeyArray):
            raise TypeError(f"equal does not accept dtypes key<fry>, {_dtype_name(other)}.")
        return jnp.all(self._data == other._data, axis=-1)

    def __ne__(self, other):
        return ~(self == other)

    def __bool__(self):
        raise TypeError("key array cannot be converted to boolean.")

    def __array__(self, dtype=None, copy=None):
        raise TypeError("JAX array with PRNGKey dtype cannot be converted to a NumPy array. Use "
                        "jax.random.key_data(arr) if you wish to extract the underlying integer array.")

    def __repr__(self) -> str:
        if isinstance(self._base, Tracer):
            return f"{type(self._base).__name__}(key<fry>[{','.join(map(str, self.shape))}])"
        return f"Array({self.shape}, dtype=key<fry>) overlaying:\n{np.asarray(self._data)}"

    __str__ = __repr__


def _unflatten_keys(_, children):
    # Keys' tangents and cotangents (float0 zeros) stand alone, as JAX's.
    (base,) = children
    return base if getattr(base, "dtype", None) == float0 else PRNGKeyArray(base)


register_pytree_node(PRNGKeyArray, lambda k: ((k._base,), None), _unflatten_keys)


def _from_data(data) -> PRNGKeyArray:
    """Typed keys over uint32 `data` of shape `(..., 2)` (checked by `random_wrap`)."""
    return PRNGKeyArray(prng.random_wrap_p.bind(data, impl=prng.THREEFRY))


class _KeyIndexUpdates:
    """`keys.at`: `keys.at[index]` is an update at `index`."""

    __slots__ = ("_keys",)

    def __init__(self, keys: PRNGKeyArray):
        self._keys = keys

    def __getitem__(self, index):
        return _KeyIndexUpdate(self._keys, index)


class _KeyIndexUpdate:
    """`keys.at[index]`: `set` and `get`, each key's two words updated alike."""

    __slots__ = ("_keys", "_index")

    def __init__(self, keys: PRNGKeyArray, index):
        self._keys, self._index = keys, index

    def get(self, **kwargs):
        return _get_at(self._keys, self._index, **kwargs)

    def set(self, values, **kwargs):
        if not isinstance(values, PRNGKeyArray):
            raise TypeError(f"scatter of key<fry> requires key values, got {_dtype_name(values)}")
        return _set_at(self._keys, self._index, values, **kwargs)


@_typed_keys.moves_keys(0)
def _get_at(keys, index, **kwargs):
    return keys.at[index].get(**kwargs)


@_typed_keys.moves_keys(0, 2)
def _set_at(keys, index, values, **kwargs):
    return keys.at[index].set(values, **kwargs)


def _dtype_name(x) -> str:
    dtype = getattr(x, "dtype", None)
    return str(dtype) if dtype is not None else type(x).__name__


def _check_key(key, what: str) -> PRNGKeyArray:
    """One key, typed or legacy, as a typed key (a legacy key's data wrapped, checked as
    JAX checks it)."""
    typed = key if isinstance(key, PRNGKeyArray) else _from_data(key)
    if typed.shape:  # named by the shape given, as JAX's
        raise ValueError(f"{what} accepts a single key, but was given a key array of shape "
                         f"{key.shape} != (). Use jax.vmap for batching.")
    return typed


def _takes_keys(fn):
    """`fn(key, ...)` given its key, typed or legacy, as a typed key (checked: one key)."""
    @functools.wraps(fn)
    def wrapper(key, *args, **kwargs):
        return fn(_check_key(key, fn.__name__), *args, **kwargs)

    return wrapper


def PRNGKey(seed):
    """A legacy key (uint32 data) from an integer seed: (high 32 bits, low 32 bits); the
    high word is 0 unless `jax_enable_x64` is on, as in JAX.

    >>> from jaxwg import random
    >>> random.PRNGKey(-1).tolist()
    [0, 4294967295]
    """
    return key_data(_seeded("PRNGKey", seed))


def _seeded(what: str, seed) -> PRNGKeyArray:
    """A typed key from a scalar integer seed: `random_seed` of it, as JAX's. A Python
    integer's high word is 0 unless x64 is on, as JAX's; one that is not made on the host."""
    shape = aval_of(seed).shape if isinstance(seed, Array) else np.shape(seed)
    if shape:
        raise TypeError(f"{what} accepts a scalar seed, but was given an array of shape "
                        f"{tuple(shape)} != (). Use jax.vmap for batching")
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer, Array)):
        raise TypeError(f"PRNG key seed must be an integer; got {seed!r}")
    if isinstance(seed, int):
        high = (seed >> 32) & _MASK if config.jax_enable_x64 else 0
        if high:  # kernels have no 64-bit seeds
            return _from_data(jnp.asarray(np.array([high, seed & _MASK], np.uint32)))
        seed = np.uint32(seed & _MASK).view(np.int32)  # int32, wrapped as JAX's (without x64)
    return PRNGKeyArray(prng.random_seed_p.bind(seed, impl=prng.THREEFRY))


_OTHER_IMPLS = ("philox2x32", "philox4x32", "rbg", "unsafe_rbg", "threefry4x32")


def _check_impl(impl) -> None:
    if impl is None or impl == _IMPL:
        return
    if impl in _OTHER_IMPLS:
        raise NotImplementedError(f"the {impl} PRNG is not implemented in jaxwg; only threefry2x32")
    names = ", ".join(f'"{n}"' for n in ("philox2x32", "philox4x32", _IMPL, "rbg", "unsafe_rbg",
                                          "threefry4x32"))
    raise ValueError(f'unrecognized PRNG implementation "{impl}". Did you mean one of: {names}?')


def key(seed, *, impl=None):
    """A typed key array of shape () and dtype `key<fry>` from an integer seed, over the
    data `PRNGKey(seed)` makes.

    >>> from jaxwg import random
    >>> k = random.key(3)
    >>> k.shape, k.dtype, random.key_data(k).tolist()
    ((), key<fry>, [0, 3])
    """
    _check_impl(impl)
    return _seeded("key", seed)


def key_data(keys):
    """The uint32 data of `keys`: shape `keys.shape + (2,)` for typed keys; legacy keys
    are their own data.

    >>> from jaxwg import random
    >>> random.key_data(random.split(random.key(3))).shape
    (2, 2)
    """
    if isinstance(keys, PRNGKeyArray):
        return keys._data
    _check_key_data(keys)
    return keys


def _check_key_data(data) -> None:
    """JAX's errors for data that holds no keys (those of `random_wrap`)."""
    P.abstract_eval_rules[prng.random_wrap_p](aval_of(data), impl=prng.THREEFRY)


def wrap_key_data(key_bits_array, *, impl=None):
    """Typed keys over `key_bits_array`, uint32 of shape `(..., 2)`: keys of shape `...`.

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg import random
    >>> random.wrap_key_data(jnp.array([0, 3], jnp.uint32))
    Array((), dtype=key<fry>) overlaying:
    [0 3]
    """
    _check_impl(impl)
    data = key_bits_array if isinstance(key_bits_array, Tracer) else jnp.asarray(key_bits_array)
    return _from_data(data)


# jnp.stack, concatenate and where take these keys (jaxwg.numpy cannot import this module).
_typed_keys.KEY_ARRAYS.update({"class": PRNGKeyArray, "data": key_data, "wrap": wrap_key_data})


def key_impl(keys) -> str:
    """The name of the PRNG implementation of `keys` (JAX returns an object that prints so).

    >>> from jaxwg import random
    >>> random.key_impl(random.key(0))
    'threefry2x32'
    """
    if not isinstance(keys, PRNGKeyArray):
        _check_key_data(keys)
    return _IMPL


def clone(key):
    """`key` itself: keys are immutable values here, as in JAX without key reuse checks.

    >>> from jaxwg import random
    >>> random.clone(random.key(0)).shape
    ()
    """
    return key


def _same_kind(key, typed: PRNGKeyArray):
    """Keys `typed` as the kind `key` is: typed keys, or a legacy key's data."""
    return typed if isinstance(key, PRNGKeyArray) else typed._data


def split(key, num=2):
    """`num` new keys (an int or a shape): typed keys of shape `num` from a typed key,
    uint32 data of shape `(*num, 2)` from a legacy one.

    >>> from jaxwg import random
    >>> random.split(random.PRNGKey(1), 3).shape, random.split(random.key(1), 3).shape
    ((3, 2), (3,))
    """
    typed = _check_key(key, "split")
    return _same_kind(key, PRNGKeyArray(prng.random_split_p.bind(typed._base, shape=_shape(num))))


def fold_in(key, data):
    """A new key from `key` and an integer `data`.

    >>> from jaxwg import random
    >>> random.fold_in(random.PRNGKey(0), 7).shape, random.fold_in(random.key(0), 7).shape
    ((2,), ())
    """
    typed = _check_key(key, "fold_in")
    if isinstance(data, (int, np.integer)):
        if not 0 <= int(data) <= _MASK:
            raise OverflowError(f"Python integer {data} out of bounds for uint32")
        data = np.uint32(data)
    elif np.ndim(data):
        raise TypeError(f"fold_in accepts a scalar, but was given an array of"  # sic, as JAX's
                        f"shape {tuple(np.shape(data))} != (). Use jax.vmap for batching.")
    else:
        data = lax.convert_element_type(data, np.uint32)
    return _same_kind(key, PRNGKeyArray(prng.random_fold_in_p.bind(typed._base, data)))


_BITS_DTYPES = (np.dtype(np.uint8), np.dtype(np.uint16), np.dtype(np.uint32))


@_takes_keys
def bits(key, shape=(), dtype=None):
    """Uniform random bits of `shape`: uint32 (default), uint16 or uint8, the low bits of
    the 32 Threefry makes per element, as JAX's partitionable Threefry.

    >>> from jaxwg import random
    >>> random.bits(random.PRNGKey(0), (2,)).dtype, random.bits(random.PRNGKey(0), (2,), "uint8").dtype
    (dtype('uint32'), dtype('uint8'))
    """
    dtype = np.dtype(np.uint32 if dtype is None else dtype)
    if dtype.kind != "u":
        raise ValueError(f"dtype argument to `bits` must be an unsigned int dtype, got {dtype.name}")
    if dtype not in _BITS_DTYPES:
        raise TypeError(f"bits: dtype must be uint8, uint16 or uint32, got {dtype}")
    return prng.random_bits_p.bind(key._base, bit_width=dtype.itemsize * 8, shape=_shape(shape))


def _float_dtype(dtype, what: str):
    """The dtype of `what`'s samples: float32 by default, float64 narrowed unless x64 is
    on (as JAX); JAX's ValueError for a dtype that is not a float."""
    dtype = np.dtype(np.float32) if dtype is None else canonical_dtype(dtype).np
    if dtype.kind != "f":
        raise ValueError(f"dtype argument to `{what}` must be a float dtype, got {dtype.name}")
    if dtype not in (np.float32, np.float16):
        raise TypeError(f"random: only float32 and float16 samples are supported, got {dtype}")
    return dtype


def _optional_shape(shape):
    return None if shape is None else _shape(shape)


def _broadcast_shapes(*shapes) -> tuple[int, ...]:
    try:
        return tuple(np.broadcast_shapes(*shapes))
    except ValueError:
        raise ValueError(f"Incompatible shapes for broadcasting: shapes={list(shapes)}") from None


def _check_shape(what: str, shape: tuple, *param_shapes) -> None:
    """JAX's check that the parameters' shapes broadcast to exactly `shape`."""
    if param_shapes:
        result = _broadcast_shapes(shape, *param_shapes)
        if result != shape:
            raise ValueError(f"{what} parameter shapes must be broadcast-compatible with shape "
                             "argument, and the result of broadcasting the shapes must equal the "
                             f"shape argument, but got result {result} for shape argument {shape}.")


def _sample_shape(what: str, shape, *params) -> tuple[int, ...]:
    """The shape of `what`'s samples: `shape`, which the parameters must broadcast to,
    or by default theirs broadcast (JAX's `_check_broadcast_shapes`)."""
    param_shapes = [tuple(jnp.shape(p)) for p in params]
    if shape is None:
        return _broadcast_shapes(*param_shapes) if param_shapes else ()
    shape = _shape(shape)
    _check_shape(what, shape, *param_shapes)
    return shape


def _check_safe_casts(what: str, dtype, *params) -> None:
    """JAX's error (its TypePromotionError is a ValueError) for a parameter whose dtype
    does not promote to the samples' `dtype`."""
    for p in params:
        if jnp.result_type(p, dtype) != dtype:
            raise ValueError(f"In arguments to {what}, cannot safely cast argument of type "
                             f"{jnp.result_type(p)} to {dtype}")


def _float_samples(what: str, dtype, shape, *params):
    """The dtype and shape of `what`'s float samples, checked as JAX checks them: a
    float dtype, parameters that broadcast to `shape` and cast safely to the dtype."""
    dtype = _float_dtype(dtype, what)
    shape = _sample_shape(what, shape, *params)
    _check_safe_casts(what, dtype, *params)
    return dtype, shape


@_takes_keys
def uniform(key, shape=(), dtype=None, minval=0.0, maxval=1.0):
    """Uniform samples on [minval, maxval): the top mantissa bits of `bits`, as JAX
    makes them (one `_uniform` call, as JAX stages it).

    >>> from jaxwg import random
    >>> x = random.uniform(random.PRNGKey(0), (1000,), minval=-2.0, maxval=3.0)
    >>> bool((x >= -2.0).all() and (x < 3.0).all())
    True
    """
    return _uniform(key, minval, maxval, _shape(shape), _float_dtype(dtype, "uniform"))


@functools.partial(staged_jit, static_argnums=(3, 4))
def _uniform(key, minval, maxval, shape, dtype):
    minval = lax.convert_element_type(minval, dtype)
    maxval = lax.convert_element_type(maxval, dtype)
    minval = lax.broadcast_to_rank(minval, len(shape))
    maxval = lax.broadcast_to_rank(maxval, len(shape))
    nmant = np.finfo(dtype).nmant
    raw = prng.random_bits_p.bind(key._base, bit_width=dtype.itemsize * 8, shape=shape)
    top = lax.shift_right_logical(raw, np.array(dtype.itemsize * 8 - nmant, raw.dtype))
    # JAX's bitcast(mantissa | bits of 1.0) - 1, made without the subtraction (the same
    # values): a compiler that folds constants (NVIDIA's) joined its -1 with minval's.
    unit = lax.mul(lax.convert_element_type(top, np.float32), 2.0 ** -nmant)
    floats = lax.convert_element_type(unit, dtype)  # exact: nmant + 1 bits
    return lax.max(minval, lax.reshape(floats * (maxval - minval) + minval, shape))


@_takes_keys
def normal(key, shape=(), dtype=None):
    """Standard normal samples: sqrt(2) erf_inv(u), u uniform on (-1, 1), as JAX.

    >>> from jaxwg import random
    >>> abs(float(random.normal(random.PRNGKey(0), (10000,)).mean())) < 0.05
    True
    """
    return _normal(key, _shape(shape), _float_dtype(dtype, "normal"))


@functools.partial(staged_jit, static_argnums=(1, 2))
def _normal(key, shape, dtype):
    return _normal_real(key, shape, dtype)


@functools.partial(staged_jit, static_argnums=(1, 2))
def _normal_real(key, shape, dtype):
    lo = np.nextafter(np.array(-1.0, dtype), np.array(0.0, dtype))
    u = uniform(key, shape, dtype, lo, np.array(1.0, dtype))
    return lax.mul(np.array(np.sqrt(2), dtype), lax.erf_inv(u))


@_takes_keys
def randint(key, shape, minval, maxval, dtype=None):
    """Integers uniform on [minval, maxval), from 64 random bits per value, as JAX. int8,
    uint8, int16 and uint16 are sampled as int32 and converted, as JAX does (the bounds
    clipped to the dtype's range: `maxval=256` for uint8 includes 255).

    >>> from jaxwg import random
    >>> x = random.randint(random.PRNGKey(0), (1000,), -3, 5)
    >>> int(x.min()), int(x.max())
    (-3, 4)
    >>> random.randint(random.PRNGKey(0), (3,), 0, 256, "uint8").dtype
    dtype('uint8')
    """
    dtype = np.dtype(np.int32 if dtype is None else dtype)
    if dtype.kind not in "iu" or dtype.itemsize > 4:
        raise TypeError(f"randint: dtype must be an integer of at most 32 bits, got {dtype}")
    shape = _shape(shape)
    info = np.iinfo(dtype)
    if info.bits < 32:
        minval, maxval = (jnp.asarray(v).astype(np.int32) for v in (minval, maxval))
        minval = jnp.clip(minval, int(info.min), int(info.max))
        maxval = jnp.clip(maxval, int(info.min), int(info.max) + 1)
        return _randint(key, minval, maxval, shape, np.dtype(np.int32)).astype(dtype)
    for v, name in ((minval, "minval"), (maxval, "maxval")):
        if isinstance(v, int) and not info.min <= v <= info.max:
            raise OverflowError(f"randint {name} {v} does not fit {dtype.name}")
    return _randint(key, minval, maxval, shape, dtype)


@functools.partial(staged_jit, static_argnums=(3, 4))
def _randint(key, minval, maxval, shape, dtype):
    # JAX's, op for op: 64 random bits reduced modulo the span, (2^32 mod span) folded in
    # as ((2^16 mod span)^2 mod span).
    # Float bounds convert to the default integer first, as JAX's.
    minval, maxval = (v if jnp.issubdtype(v.dtype, np.integer) else v.astype(np.int32)
                      for v in (jnp.asarray(minval), jnp.asarray(maxval)))
    # A maxval past the dtype's range makes the span one larger (2^32 wraps to 0, as
    # JAX's). It can only come in a wider dtype: the check is left out otherwise, as its
    # ops would make the span costly enough to be a kernel of its own.
    maxval_out_of_range = None
    if np.iinfo(maxval.dtype).max > np.iinfo(dtype).max:
        top = _convert_and_clip_integer(jnp.array(np.iinfo(dtype).max, dtype), maxval.dtype)
        maxval_out_of_range = lax.gt(maxval, top)
    minval = _convert_and_clip_integer(minval, dtype)
    maxval = _convert_and_clip_integer(maxval, dtype)
    minval = lax.broadcast_to_rank(minval, len(shape))
    maxval = lax.broadcast_to_rank(maxval, len(shape))
    k1, k2 = split(key)
    higher, lower = (prng.random_bits_p.bind(k._base, bit_width=32, shape=shape) for k in (k1, k2))
    span = lax.convert_element_type(maxval - minval, np.uint32)
    span = lax.select(maxval <= minval, lax.full_like(span, 1), span)
    if maxval_out_of_range is not None:
        span = lax.select(maxval_out_of_range & (maxval > minval), lax.add(span, np.uint32(1)), span)
    multiplier = lax.rem(np.uint32(1 << 16), span)
    multiplier = lax.rem(lax.mul(multiplier, multiplier), span)
    offset = lax.add(lax.mul(lax.rem(higher, span), multiplier), lax.rem(lower, span))
    offset = lax.rem(offset, span)
    return lax.add(minval, lax.convert_element_type(offset, dtype))


def _convert_and_clip_integer(val, dtype):
    """Integer `val` as `dtype`, clipped to its range rather than wrapped (JAX's)."""
    lo = max(np.iinfo(dtype).min, np.iinfo(val.dtype).min)
    hi = min(np.iinfo(dtype).max, np.iinfo(val.dtype).max)
    return jnp.clip(val, np.array(lo, val.dtype), np.array(hi, val.dtype)).astype(dtype)


@_takes_keys
def bernoulli(key, p=0.5, shape=None, mode: str = "low"):
    """True with probability `p`: uniform samples below `p`, as JAX (`mode="high"`: two
    uniforms for resolution below 2^-23, as JAX's).

    >>> from jaxwg import random
    >>> random.bernoulli(random.PRNGKey(0), 0.3, (4,)).dtype
    dtype('bool')
    """
    if mode not in ("high", "low"):
        raise ValueError(f"got {mode=}, expected 'high' or 'low'")
    p = jnp.asarray(p)
    if not jnp.issubdtype(p.dtype, np.floating):
        raise TypeError(f"bernoulli probability `p` must have a floating dtype, got {p.dtype}.")
    # float32 with x64 too: samples are float32 or float16
    p = lax.convert_element_type(p, np.float16 if p.dtype == np.float16 else np.float32)
    return _bernoulli(key, p, shape=None if shape is None else _shape(shape), mode=mode)


@functools.partial(staged_jit, static_argnames=("shape", "mode"))
def _bernoulli(key, p, shape, mode):
    shape = p.shape if shape is None else shape
    if mode == "high":
        u1, u2 = uniform(key, (2, *shape), p.dtype)
        u2 = u2 * 2.0 ** -np.finfo(p.dtype).nmant
        return u2 < p - u1
    return uniform(key, shape, p.dtype) < p


@_takes_keys
def rademacher(key, shape, dtype=None):
    """+1 or -1 with equal probability (2 bernoulli - 1), as JAX.

    >>> from jaxwg import random
    >>> sorted(set(random.rademacher(random.PRNGKey(0), (64,)).tolist()))
    [-1, 1]
    """
    dtype = np.dtype(np.int32 if dtype is None else dtype)
    return _rademacher(key, _shape(shape), dtype, None)


@functools.partial(staged_jit, static_argnums=(1, 2, 3))
def _rademacher(key, shape, dtype, out_sharding):
    samples = bernoulli(key, 0.5, shape).astype(dtype)
    return (2 * samples - 1).astype(dtype)


@_takes_keys
def exponential(key, shape=(), dtype=None):
    """Exponential samples, -log1p(-u), as JAX.

    >>> from jaxwg import random
    >>> bool((random.exponential(random.PRNGKey(0), (100,)) >= 0).all())
    True
    """
    return _exponential(key, _shape(shape), _float_dtype(dtype, "exponential"))


@functools.partial(staged_jit, static_argnums=(1, 2))
def _exponential(key, shape, dtype):
    return lax.neg(lax.log1p(lax.neg(uniform(key, shape, dtype))))


@_takes_keys
def laplace(key, shape=(), dtype=None):
    """Laplace samples, sign(u) log1p(-|u|) with u uniform on (-1, 1), as JAX.

    >>> from jaxwg import random
    >>> random.laplace(random.PRNGKey(0), (3,)).shape
    (3,)
    """
    return _laplace(key, _shape(shape), _float_dtype(dtype, "laplace"))


@functools.partial(staged_jit, static_argnums=(1, 2))
def _laplace(key, shape, dtype):
    u = uniform(key, shape, dtype, -1.0 + np.finfo(dtype).epsneg, 1.0)
    return lax.mul(lax.sign(u), lax.log1p(lax.neg(lax.abs(u))))


@_takes_keys
def logistic(key, shape=(), dtype=None):
    """Logistic samples, log(u) - log1p(-u), as JAX.

    >>> from jaxwg import random
    >>> random.logistic(random.PRNGKey(0), (3,)).shape
    (3,)
    """
    return _logistic(key, _shape(shape), _float_dtype(dtype, "logistic"))


@functools.partial(staged_jit, static_argnums=(1, 2))
def _logistic(key, shape, dtype):
    u = uniform(key, shape, dtype, np.finfo(dtype).tiny, 1.0)
    return lax.sub(lax.log(u), lax.log1p(lax.neg(u)))


@_takes_keys
def cauchy(key, shape=(), dtype=None):
    """Cauchy samples, tan(pi (u - 1/2)), as JAX.

    >>> from jaxwg import random
    >>> random.cauchy(random.PRNGKey(0), (3,)).shape
    (3,)
    """
    return _cauchy(key, _shape(shape), _float_dtype(dtype, "cauchy"))


@functools.partial(staged_jit, static_argnums=(1, 2))
def _cauchy(key, shape, dtype):
    u = uniform(key, shape, dtype, np.finfo(dtype).eps, 1.0)
    return lax.tan(lax.mul(np.array(np.pi, dtype), lax.sub(u, np.array(0.5, dtype))))


@_takes_keys
def gumbel(key, shape=(), dtype=None):
    """Gumbel samples, -log(-log(u)), as JAX's default ("low") mode.

    >>> from jaxwg import random
    >>> random.gumbel(random.PRNGKey(0), (3,)).shape
    (3,)
    """
    return _gumbel(key, _shape(shape), _float_dtype(dtype, "gumbel"), "low")


@functools.partial(staged_jit, static_argnums=(1, 2, 3))
def _gumbel(key, shape, dtype, mode):
    u = _uniform(key, minval=np.finfo(dtype).tiny, maxval=1.0, shape=shape, dtype=dtype)
    return -jnp.log(-jnp.log(u))


@_takes_keys
def truncated_normal(key, lower, upper, shape=None, dtype=None):
    """Normal samples inside (lower, upper), by the inverse CDF, as JAX.

    >>> from jaxwg import random
    >>> x = random.truncated_normal(random.PRNGKey(0), -1.0, 2.0, (1000,))
    >>> bool((x > -1.0).all() and (x < 2.0).all())
    True
    """
    dtype = _float_dtype(dtype, "truncated_normal")
    return _truncated_normal(key, lower, upper, None if shape is None else _shape(shape), dtype)


@functools.partial(staged_jit, static_argnums=(3, 4))
def _truncated_normal(key, lower, upper, shape, dtype):
    if shape is None:
        shape = np.broadcast_shapes(np.shape(lower), np.shape(upper))
    sqrt2 = np.array(np.sqrt(2), dtype)
    lower = lax.convert_element_type(lower, dtype)
    upper = lax.convert_element_type(upper, dtype)
    a = lax.erf(lower / sqrt2)
    b = lax.erf(upper / sqrt2)
    out = sqrt2 * lax.erf_inv(uniform(key, shape, dtype, minval=a, maxval=b))
    # The open interval: one step inside each bound.
    return jnp.clip(out, lax.nextafter(lax.stop_gradient(lower), np.array(np.inf, dtype)),
                    lax.nextafter(lax.stop_gradient(upper), np.array(-np.inf, dtype)))


@functools.partial(staged_jit, static_argnums=(2,))
def _shuffle(key, x, axis):
    # JAX's: sorted by fresh random 32-bit keys, in as many rounds as make colliding keys
    # unlikely (3 ln(size) / ln(2^32 - 1))
    rounds = int(np.ceil(3 * np.log(max(1, math.prod(jnp.shape(x)))) / np.log(_MASK)))
    for _ in range(rounds):
        key, subkey = split(key)
        _, x = lax.sort_key_val(prng.random_bits_p.bind(subkey._base, bit_width=32, shape=jnp.shape(x)), x, axis)
    return x


@_takes_keys
def permutation(key, x, axis: int = 0, independent: bool = False):
    """A random permutation of `range(x)` (an int), or of `x` along `axis` (with
    `independent`, each slice on its own), bit for bit as JAX's.

    >>> from jaxwg import random
    >>> sorted(random.permutation(random.PRNGKey(0), 5).tolist())
    [0, 1, 2, 3, 4]
    """
    if np.ndim(x) == 0:  # a count, as a Python, NumPy or jaxwg integer
        integer = (np.issubdtype(x.dtype, np.integer) if hasattr(x, "dtype")
                   else isinstance(x, int) and not isinstance(x, bool))
        if not integer:
            raise TypeError(f"x must be an integer or at least 1-dimensional, got {x!r}")
        return _shuffle(key, jnp.arange(int(x)), axis)
    x = jnp.asarray(x)
    axis = axis % x.ndim
    if independent or x.ndim == 1:
        return _shuffle(key, x, axis)
    order = _shuffle(key, jnp.arange(x.shape[axis]), 0)
    return jnp.take(x, order, axis, unique_indices=True)


@_takes_keys
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


@_takes_keys
def choice(key, a, shape=(), replace: bool = True, p=None, axis: int = 0):
    """Random draws from `range(a)` (an int) or from the slices of array `a` along `axis`,
    uniformly or with probabilities `p`, with or without replacement, bit for bit as JAX
    (draws of indices, then a `take` from `a`).

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg import random
    >>> x = random.choice(random.PRNGKey(0), 10, (4,), replace=False)
    >>> len(set(x.tolist()))
    4
    >>> random.choice(random.PRNGKey(0), jnp.array([0.5, 1.5, 2.5]), (2,)).dtype
    dtype('float32')
    """
    arr, shape = jnp.asarray(a), _shape(shape)
    if arr.ndim == 0:
        n = int(a)
    else:
        axis = canonicalize_axis(axis, arr.ndim)
        n = arr.shape[axis]
    draws = math.prod(shape)
    if draws == 0:
        return jnp.zeros(shape, arr.dtype)
    if n <= 0:
        raise ValueError("a must be greater than 0 unless no samples are taken")
    if not replace and draws > n:
        raise ValueError(f"Cannot take a larger sample (size {draws}) than population (size {n}) "
                         "when 'replace=False'")
    if p is None and not replace:
        result = lax.slice_in_dim(permutation(key, n if arr.ndim == 0 else arr, axis), 0, draws,
                                  axis=0 if arr.ndim == 0 else axis)
    else:
        index = _choice_indices(key, n, shape, replace, p)
        result = index if arr.ndim == 0 else jnp.take(arr, index, axis)
    return lax.reshape(result, shape if arr.ndim == 0 else arr.shape[:axis] + shape + arr.shape[axis + 1:])


def _choice_indices(key, n: int, shape, replace: bool, p):
    """Indices into `range(n)` for `choice`: uniform with replacement, or weighted by `p`
    (inverse CDF with replacement, Gumbel top-k without), as JAX draws them."""
    if p is None:
        return randint(key, shape, 0, n)
    p = jnp.asarray(p)
    if not jnp.issubdtype(p.dtype, np.inexact):
        p = p.astype(canonical_dtype(float).np)
    if p.shape != (n,):
        raise ValueError("p must be None or a 1D vector with the same size as a.shape[axis]. "
                         f"p has shape {p.shape} and a.shape[axis] is {n}.")
    if replace:
        cumulative = jnp.cumsum(p)
        r = cumulative[-1] * (1 - uniform(key, shape, p.dtype))
        return jnp.searchsorted(cumulative, r)
    noisy = gumbel(key, (n,), p.dtype) + jnp.log(p)
    return lax.top_k(noisy, math.prod(shape))[1]


# -- rejection samplers ------------------------------------------------------------------------


def _rounds_until_accepted(key, shape, propose, init):
    """Rejection sampling in vectorized rounds: round i draws proposals for the whole of
    `shape` from `fold_in(key, i)` with `propose(key, i) -> (accepted, value)`, and every
    element keeps the first value it accepts; the loop ends once all are accepted."""
    def unfinished(carry):
        _, done, _ = carry
        return jnp.any(~done)

    def round_(carry):
        i, done, value = carry
        accepted, proposal = propose(fold_in(key, lax.convert_element_type(i, np.uint32)), i)
        value = jnp.where(done, value, proposal)
        return i + 1, done | accepted, value

    start = (jnp.zeros((), np.int32), jnp.zeros(shape, bool), init)
    return lax.while_loop(unfinished, round_, start)[2]


def _log_gamma_draws(key, a):
    """log of Gamma(a, 1) samples, one per element of float32 `a`: Marsaglia and Tsang's
    method (d v for a normal x with v = (1 + x / sqrt(9 d))^3, d = a - 1/3, accepted with
    probability exp(x^2/2 + d - d v + d log v), at least 0.95 for a >= 1); a < 1 samples
    a + 1 and multiplies by u^(1/a) (added in logs, so tiny a does not underflow)."""
    shape = jnp.shape(a)
    boosted = jnp.where(a < 1, a + 1, a)
    d = boosted - 1.0 / 3.0
    c = lax.rsqrt(9.0 * d)

    def propose(round_key, _):
        k_normal, k_uniform = split(round_key)
        x = normal(k_normal, shape)
        v = (1.0 + c * x) ** 3
        log_u = jnp.log(uniform(k_uniform, shape))
        positive = v > 0
        log_v = jnp.log(jnp.where(positive, v, 1.0))
        accepted = positive & (log_u < 0.5 * x * x + d - d * v + d * log_v)
        return accepted, jnp.log(d) + log_v

    boost_key, key = split(key)
    log_sample = _rounds_until_accepted(key, shape, propose, jnp.zeros(shape, np.float32))
    log_u = jnp.log(uniform(boost_key, shape, minval=float(np.finfo(np.float32).tiny)))
    return log_sample + jnp.where(a < 1, log_u / a, 0.0)


def _loggamma_values(key, a):
    """log of Gamma(a, 1) samples of float32 `a` under one key, with the limits where
    `a` is not positive and finite: the sampler sees a = 1 there (a NaN would never be
    accepted), and those get log 0 at a = 0, +inf at a = +inf, NaN otherwise."""
    usable = (a > 0) & (a < np.inf)
    log_x = _log_gamma_draws(key, jnp.where(usable, a, 1.0))
    limit = jnp.where(a == 0, -np.inf, jnp.where(a == np.inf, np.inf, np.nan))
    return jnp.where(usable, log_x, limit)


# `random_gamma[log_space]`, JAX's primitive: Gamma(a, 1) samples (their logs with
# `log_space`) of `a`'s shape and float dtype, under keys whose shape leads `a`'s. It
# lowers through a traced jaxpr of the sampler above, in place (as the key primitives
# do); one key draws all of its elements (JAX splits one per element), and batched keys
# are mapped with vmap. The JVP is the implicit reparameterization gradient,
# `random_gamma_grad`.


def _gamma_abstract_eval(keys, a, *, log_space):
    if not keys.dtype.is_key:
        raise TypeError(f"random_gamma takes a key array operand, got dtype {keys.dtype.name}")
    if not a.dtype.is_float:
        raise TypeError(f"random_gamma takes a floating-point a, got dtype {a.dtype.name}")
    if tuple(a.shape[:len(keys.shape)]) != tuple(keys.shape):
        raise TypeError(f"random_gamma: the keys' shape {tuple(keys.shape)} must lead the shape "
                        f"of a, {tuple(a.shape)}")
    return ShapedArray(a.shape, a.dtype)


random_gamma_p = P._declare("random_gamma", _gamma_abstract_eval)


def _gamma_values(keys, a, *, log_space):
    """What `random_gamma` computes (as a list of one array), traced for its lowering:
    `_loggamma_values` in float32, mapped over the keys' axes."""
    def sample(base, a):
        return _loggamma_values(PRNGKeyArray(base), a)

    for _ in range(aval_of(keys).ndim):
        sample = vmap(sample)
    log_x = sample(keys, lax.convert_element_type(a, np.float32))
    return [lax.convert_element_type(log_x if log_space else lax.exp(log_x), aval_of(a).dtype)]


@functools.lru_cache(maxsize=64)
def _traced_gamma(avals: tuple, log_space: bool):
    return trace_body(functools.partial(_gamma_values, log_space=log_space), avals, "random_gamma")


def _gamma_lowering(out_aval, keys, a, *, log_space):
    # `keys` comes as its words' node (a storage rule): shape keys + (2,)
    avals = (ShapedArray(keys.shape[:-1], _KEY_DTYPE), ShapedArray(a.shape, a.dtype))
    return lower_jaxpr(_traced_gamma(avals, log_space), [keys, a])[0]


def _gamma_grad(sample, a, *, log_space):
    """d sample / d a along the sample's fixed quantile: `random_gamma_grad`, over the
    sample itself in log space (a sample that underflows counts as the smallest normal)."""
    if not log_space:
        return lax.random_gamma_grad(a, sample)
    x = lax.exp(sample)
    x = lax.select(lax.eq(x, lax.full_like(x, 0)), lax.full_like(x, np.finfo(x.dtype).tiny), x)
    return lax.div(lax.random_gamma_grad(a, x), x)


def _gamma_batch_rule(vals, dims, *, log_space):
    """JAX's: both operands batched first, an unbatched one broadcast (each example then
    draws under its own keys)."""
    size = batch_size(vals, dims)
    keys, a = (move_axis(v, d, 0, size) for v, d in zip(vals, dims))
    return random_gamma_p.bind(keys, a, log_space=log_space), 0


P.lowering_rules[random_gamma_p] = _gamma_lowering
STORAGE_RULES.add(random_gamma_p)
# Its lowering runs a while loop, which reads its predicate back: programs holding it
# evaluate equation by equation, as those holding the loop itself.
P.DATA_DEPENDENT = P.DATA_DEPENDENT + (random_gamma_p,)
defjvp(random_gamma_p, None,
       lambda g, ans, keys, a, *, log_space: lax.mul(g, _gamma_grad(ans, a, log_space=log_space)))
P.batch_rules[random_gamma_p] = _gamma_batch_rule


@functools.partial(staged_jit, static_argnames=("shape", "dtype", "log_space"))
def _gamma(key, a, shape, dtype, log_space=False):
    """JAX's `_gamma`: `a` in the samples' dtype, broadcast to `shape` (by default its
    own), and one `random_gamma`."""
    a_shape = tuple(jnp.shape(a))
    if shape is None:
        shape = a_shape
    else:
        _check_shape("gamma", shape, a_shape)
    a = lax.convert_element_type(a, dtype)
    if a_shape != shape:
        a = jnp.broadcast_to(a, shape)
    return random_gamma_p.bind(key._base, a, log_space=log_space)


def _gamma_parameter(a, shape, dtype, what: str):
    """`a` as float32 broadcast to `shape` (default its own), and the output dtype."""
    dtype = _float_dtype(dtype, what)
    a = jnp.asarray(a)
    shape = a.shape if shape is None else _shape(shape)
    if np.broadcast_shapes(a.shape, shape) != shape:
        raise ValueError(f"{what}: parameter shape {a.shape} does not broadcast to the shape "
                         f"{shape} asked for")
    return jnp.broadcast_to(a.astype(np.float32), shape), dtype


@_takes_keys
def loggamma(key, a, shape=None, dtype=None):
    """log of Gamma(a, 1) samples, accurate where the samples themselves underflow
    (small a); differentiable in `a` as JAX's.

    >>> from jaxwg import random
    >>> x = random.loggamma(random.PRNGKey(0), 0.01, (1000,))
    >>> bool((x < 0).mean() > 0.9)
    True
    """
    return _gamma(key, a, shape=_optional_shape(shape), dtype=_float_dtype(dtype, "loggamma"),
                  log_space=True)


@_takes_keys
def gamma(key, a, shape=None, dtype=None):
    """Gamma(a, 1) samples (Marsaglia-Tsang rejection), differentiable in `a` through
    implicit reparameterization (`lax.random_gamma_grad`), as JAX's.

    >>> from jaxwg import random
    >>> x = random.gamma(random.PRNGKey(0), 3.0, (20000,))
    >>> bool(abs(float(x.mean()) - 3.0) < 0.1)
    True
    """
    return _gamma(key, a, shape=_optional_shape(shape), dtype=_float_dtype(dtype, "gamma"))


@_takes_keys
def chisquare(key, df, shape=None, dtype=None):
    """Chi-square samples with `df` degrees of freedom: 2 Gamma(df / 2).

    >>> from jaxwg import random
    >>> x = random.chisquare(random.PRNGKey(0), 4.0, (20000,))
    >>> bool(abs(float(x.mean()) - 4.0) < 0.15)
    True
    """
    dtype, shape = _float_samples("chisquare", dtype, shape, df)
    return _chisquare(key, df, shape, dtype)


@functools.partial(staged_jit, static_argnums=(2, 3))
def _chisquare(key, df, shape, dtype):
    two = np.array(2, dtype)
    half = lax.div(lax.convert_element_type(df, dtype), two)
    return lax.mul(jnp.exp(loggamma(key, half, shape, dtype)), two)


@_takes_keys
def t(key, df, shape=None, dtype=None):
    """Student's t samples with `df` degrees of freedom: a normal over
    sqrt(chi-square / df); `shape` defaults to `df`'s.

    >>> from jaxwg import random
    >>> random.t(random.PRNGKey(0), 5.0, (3,)).shape
    (3,)
    """
    dtype, shape = _float_samples("t", dtype, shape, df)
    return _t(key, df, shape, dtype)


@functools.partial(staged_jit, static_argnums=(2, 3))
def _t(key, df, shape, dtype):
    df = lax.convert_element_type(df, dtype)
    key_n, key_g = split(key)
    n = normal(key_n, shape, dtype)
    half = lax.div(df, np.array(2, dtype))
    return n * jnp.sqrt(half / gamma(key_g, half, shape, dtype))


@_takes_keys
def beta(key, a, b, shape=None, dtype=None):
    """Beta(a, b) samples: G_a / (G_a + G_b) for gamma samples, formed from their logs
    so that it holds where both underflow.

    >>> from jaxwg import random
    >>> x = random.beta(random.PRNGKey(0), 2.0, 6.0, (20000,))
    >>> bool(abs(float(x.mean()) - 0.25) < 0.01)
    True
    """
    dtype, shape = _float_samples("beta", dtype, shape, a, b)
    return _beta(key, a, b, shape, dtype)


@functools.partial(staged_jit, static_argnums=(3, 4))
def _beta(key, a, b, shape, dtype):
    a, b = lax.convert_element_type(a, dtype), lax.convert_element_type(b, dtype)
    key_a, key_b = split(key)
    a, b = jnp.broadcast_to(a, shape), jnp.broadcast_to(b, shape)
    log_a, log_b = loggamma(key_a, a, shape, dtype), loggamma(key_b, b, shape, dtype)
    top = lax.max(log_a, log_b)
    ga, gb = jnp.exp(log_a - top), jnp.exp(log_b - top)
    return ga / (ga + gb)


@_takes_keys
def dirichlet(key, alpha, shape=None, dtype=None):
    """Dirichlet(alpha) samples over the last axis of `alpha`: normalized gamma
    samples (a softmax of their logs), of shape `shape + alpha.shape[-1:]`.

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg import random
    >>> x = random.dirichlet(random.PRNGKey(0), jnp.array([1.0, 2.0, 3.0]), (4,))
    >>> x.shape, bool(jnp.allclose(x.sum(-1), 1.0))
    ((4, 3), True)
    """
    return _dirichlet(key, alpha, _optional_shape(shape), _float_dtype(dtype, "dirichlet"))


@functools.partial(staged_jit, static_argnums=(2, 3))
def _dirichlet(key, alpha, shape, dtype):
    from .nn import softmax  # a layer above this module

    alpha_shape = tuple(jnp.shape(alpha))
    if not alpha_shape:
        raise ValueError("dirichlet requires alpha.ndim >= 1, got alpha.ndim == 0")
    if shape is None:
        shape = alpha_shape[:-1]
    else:
        _check_shape("dirichlet", shape, alpha_shape[:-1])
    alpha = lax.convert_element_type(alpha, dtype)
    return softmax(loggamma(key, alpha, shape + alpha_shape[-1:], dtype), -1)


@_takes_keys
def generalized_normal(key, p, shape=(), dtype=None):
    """Samples with density proportional to exp(-|x|^p): a random sign times
    Gamma(1/p)^(1/p).

    >>> from jaxwg import random
    >>> random.generalized_normal(random.PRNGKey(0), 3.0, (4,)).shape
    (4,)
    """
    return _generalized_normal(key, p, _shape(shape), _float_dtype(dtype, "generalized_normal"))


@functools.partial(staged_jit, static_argnums=(2, 3))
def _generalized_normal(key, p, shape, dtype):
    keys = split(key)
    g = gamma(keys[0], 1 / p, shape, dtype)
    return rademacher(keys[1], shape, dtype) * g ** (1 / p)


@_takes_keys
def ball(key, d: int, p: float = 2, shape=(), dtype=None):
    """Points uniform in the d-dimensional unit p-norm ball (Barthe et al.: generalized
    normals over the p-norm of them and an exponential), of shape `shape + (d,)`.

    >>> from jaxwg import random
    >>> x = random.ball(random.PRNGKey(0), 3, shape=(100,))
    >>> x.shape, bool(((x * x).sum(-1) <= 1).all())
    ((100, 3), True)
    """
    if not isinstance(d, (int, np.integer)) or d < 1:
        raise ValueError(f"ball: the dimension d must be a positive integer, got {d!r}")
    return _ball(key, p, int(d), _shape(shape), _float_dtype(dtype, "ball"))


@functools.partial(staged_jit, static_argnums=(2, 3, 4))
def _ball(key, p, d, shape, dtype):
    k_g, k_e = split(key)
    g = generalized_normal(k_g, p, (*shape, d), dtype)
    e = exponential(k_e, shape, dtype)
    return g / (((jnp.abs(g) ** p).sum(-1) + e) ** (1 / p))[..., None]


def _count_draws_within(key, limit, draw, done):
    """How many positive draws' running sum stays at most `limit` (float32), per element
    where not `done`: round i adds `draw(fold_in(key, i), shape)` everywhere, in a
    `while_loop` until every sum has passed its limit (Knuth's Poisson, the binomial's
    inversion by geometric draws)."""
    shape = jnp.shape(limit)

    def unfinished(carry):
        return jnp.any(~carry[1])

    def round_(carry):
        i, done, total, count = carry
        total = total + draw(fold_in(key, lax.convert_element_type(i, np.uint32)), shape)
        stop = total > limit
        return i + 1, done | stop, total, jnp.where(done | stop, count, count + 1)

    start = (jnp.zeros((), np.int32), done, jnp.zeros(shape, np.float32),
             jnp.zeros(shape, np.int32))
    return lax.while_loop(unfinished, round_, start)[3]


def _poisson_knuth(key, lam):
    """Knuth's method for small lam: the number of uniforms whose running product stays
    above exp(-lam), counted in vectorized rounds (in logs: a sum of exponentials)."""
    return _count_draws_within(key, lam, exponential, lam <= 0)


def _poisson_rejection(key, lam):
    """Hoermann's transformed rejection with squeeze (PTRS, 1993) for lam >= 10: a
    proposal k from a transformed uniform, accepted by a squeeze or by comparing
    log densities; about 1.1 rounds per element."""
    shape = jnp.shape(lam)
    log_lam = jnp.log(lam)
    b = 0.931 + 2.53 * jnp.sqrt(lam)
    a = -0.059 + 0.02483 * b
    inv_alpha = 1.1239 + 1.1328 / (b - 3.4)
    v_r = 0.9277 - 3.6224 / (b - 2)

    def propose(round_key, _):
        k_u, k_v = split(round_key)
        u = uniform(k_u, shape, minval=-0.5, maxval=0.5)
        v = uniform(k_v, shape)
        u_s = 0.5 - jnp.abs(u)
        k = jnp.floor((2 * a / u_s + b) * u + lam + 0.43)
        squeeze = (u_s >= 0.07) & (v <= v_r)
        hopeless = (k < 0) | ((u_s < 0.013) & (v > u_s))
        log_ratio = jnp.log(v * inv_alpha / (a / (u_s * u_s) + b))
        log_target = -lam + k * log_lam - lax.lgamma(k + 1)
        accepted = squeeze | (~hopeless & (log_ratio <= log_target))
        return accepted, k

    return _rounds_until_accepted(key, shape, propose, jnp.zeros(shape, np.float32))


@_takes_keys
def poisson(key, lam, shape=None, dtype=None):
    """Poisson(lam) samples: Knuth's counting method for lam < 10, transformed rejection
    (PTRS) above, as JAX's algorithm; as JAX's, 0 where lam is 0, -1 (in the dtype) where
    it is negative or NaN, and the dtype's largest value where it is infinite or the
    sample is past it.

    >>> from jaxwg import random
    >>> x = random.poisson(random.PRNGKey(0), 3.0, (20000,))
    >>> x.dtype, bool(abs(float(x.mean()) - 3.0) < 0.1)
    (dtype('int32'), True)
    """
    dtype = np.dtype(np.int32 if dtype is None else dtype)
    if dtype not in (np.int32, np.uint32):
        raise TypeError(f"poisson: only int32 and uint32 samples are supported, got {dtype}")
    lam, _ = _gamma_parameter(lam, shape, None, "poisson")
    k_small, k_large = split(key)
    small, large = lam < 10, lam >= 10
    # Each method sees harmless stand-ins elsewhere, so that no NaN keeps a loop going
    counted = _poisson_knuth(k_small, jnp.where(small, lam, 0.0))
    rejected = _poisson_rejection(k_large, jnp.where(large & (lam < np.inf), lam, 1e4))
    # float to integer saturates, so huge samples are the dtype's largest value
    out = jnp.where(small, counted.astype(dtype), rejected.astype(dtype))
    out = jnp.where(lam >= 0, out, jnp.asarray(-1).astype(dtype))
    return jnp.where(lam == np.inf, np.iinfo(dtype).max, out)


@_takes_keys
def multivariate_normal(key, mean, cov, shape=None, dtype=None, method: str = "cholesky"):
    """Samples of N(mean, cov): mean + F z for a factor F F^T = cov: the Cholesky factor
    (`method="cholesky"`), V sqrt(w) from cov's eigendecomposition ("eigh") or U sqrt(s)
    from its singular value decomposition ("svd"), as JAX computes them.

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg import random
    >>> cov = jnp.array([[2.0, 0.5], [0.5, 1.0]])
    >>> random.multivariate_normal(random.PRNGKey(0), jnp.zeros(2), cov, (5,)).shape
    (5, 2)
    """
    if method not in ("svd", "eigh", "cholesky"):
        raise ValueError(f"method must be one of {{'svd', 'eigh', 'cholesky'}}, got {method!r}")
    dtype = _float_dtype(dtype, "multivariate_normal")
    mean, cov = jnp.asarray(mean, dtype), jnp.asarray(cov, dtype)
    if mean.ndim < 1 or cov.ndim < 2 or cov.shape[-2:] != mean.shape[-1:] * 2:
        raise ValueError(f"multivariate_normal requires mean.shape[-1] == cov.shape[-2] == "
                         f"cov.shape[-1], got mean {mean.shape} and cov {cov.shape}")
    batch = np.broadcast_shapes(mean.shape[:-1], cov.shape[:-2])
    shape = batch if shape is None else _shape(shape)
    if np.broadcast_shapes(shape, batch) != shape:
        raise ValueError(f"multivariate_normal: shape {shape} must be broadcast-compatible "
                         f"with mean.shape[:-1] and cov.shape[:-2], {batch}")
    z = normal(key, (*shape, mean.shape[-1]), dtype)
    if method == "eigh":
        w, v = jnp.linalg.eigh(cov)
        factor = v * jnp.sqrt(w[..., None, :])
    elif method == "svd":
        u, s, _ = jnp.linalg.svd(cov)
        factor = u * jnp.sqrt(s[..., None, :])
    else:
        factor = jnp.linalg.cholesky(cov)
    return mean + jnp.sum(factor * z[..., None, :], axis=-1)


@_takes_keys
def orthogonal(key, n: int, shape=(), dtype=None, m=None):
    """Random n x m matrices (m = n by default) with orthonormal columns (n >= m) or rows,
    uniform (Haar): the Q of a Gaussian matrix's QR decomposition (`jnp.linalg.qr`) with
    R's diagonal made positive, as JAX computes it.

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg import random
    >>> q = random.orthogonal(random.PRNGKey(0), 3)
    >>> bool(jnp.allclose(q @ q.T, jnp.eye(3), atol=1e-5))
    True
    >>> random.orthogonal(random.PRNGKey(0), 2, m=4).shape
    (2, 4)
    """
    m = n if m is None else m
    for size in (n, m):
        if not isinstance(size, (int, np.integer)) or size < 0:
            raise ValueError(f"orthogonal: n and m must be non-negative integers, got {size!r}")
    z = normal(key, (*_shape(shape), int(max(n, m)), int(min(n, m))), dtype)
    if min(n, m):
        q, r = jnp.linalg.qr(z)
        signs = jnp.where(jnp.diagonal(r, axis1=-2, axis2=-1) < 0, -1, 1).astype(q.dtype)
        z = q * signs[..., None, :]
    return z if n >= m else jnp.swapaxes(z, -1, -2)

from ._random_distributions import (binomial, double_sided_maxwell, f, geometric, key_dtype,  # noqa: E402
                                   lognormal, maxwell, multinomial, pareto, rayleigh, triangular,
                                   wald, weibull_min)
from . import errors as _errors

# A name JAX has and jaxwg lacks says it is not implemented yet (jaxwg.errors).
__getattr__ = _errors.module_getattr(__name__)
__dir__ = _errors.module_dir(__name__)  # the public names only, as JAX's
