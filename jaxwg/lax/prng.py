"""The PRNG key primitives: typed keys (dtype `key<fry>`) in jaxprs, as JAX's.

A typed key array (`jaxwg.random.key`) is an array of dtype `dt.key_fry` whose aval has
the keys' shape; it is stored as each key's two uint32 words on a trailing axis
(`dt.PAIRED`, the way a complex array is stored), so movement and selection primitives
move keys word by word (`jaxwg.frontend.complex_lowering`). Six primitives, with JAX's
names, params, shape rules and batching (`random_fold_in` broadcasts; the others are
vectorized over the keys' axes, `random_wrap` with its batch axis first):

* `random_seed[impl]`: keys from integer seeds, (0, the seed as uint32) each;
* `random_wrap[impl]` / `random_unwrap`: keys over uint32 data of shape `(..., 2)` and
  back (each lowers to its operand: the data is the keys' storage);
* `random_bits[bit_width, shape]`: `shape` random bits under each key;
* `random_split[shape]`: `shape` new keys from each key;
* `random_fold_in`: a key from each key and a uint32 message.

They lower through jaxprs of `threefry2x32` on the keys' words (JAX's partitionable
Threefry: an element's counter is its flat index, as (high word, low word)), traced
once per signature and lowered in place, so their kernels fuse with their neighbours'. Keys have no tangents
(float0, as integers): each primitive's JVP is zero.

>>> import jaxwg
>>> print(jaxwg.make_jaxpr(lambda k: jaxwg.random.split(k))(jaxwg.random.key(0)))
{ lambda ; a:key<fry>[]. let
    b:key<fry>[2] = random_split[shape=(2,)] a
  in (b,) }
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

from ..core import dtypes as dt
from ..frontend import primitives as P
from ..frontend.aval import ShapedArray
from ..frontend.complex_lowering import STORAGE_RULES, pack, parts, storage
from ..frontend.jaxpr import trace_body
from ..frontend.jit import lower_jaxpr
from . import lax


@dataclass(frozen=True)
class PRNGImpl:
    """A PRNG implementation, as the `impl` param of `random_seed` and `random_wrap`:
    printed by its tag, as JAX prints it (`impl=fry`)."""

    name: str
    tag: str
    dtype: dt.KeyDType

    def __repr__(self) -> str:
        return self.tag


THREEFRY = PRNGImpl("threefry2x32", "fry", dt.key_fry)
# Random bits of these widths, as JAX's (its 64 needs 64-bit integers, which kernels lack).
BIT_WIDTHS = {8: dt.uint8, 16: dt.uint16, 32: dt.uint32}


def _check_keys(name: str, keys: ShapedArray) -> None:
    if not keys.dtype.is_key:
        raise TypeError(f"{name} takes a key array operand, got dtype {keys.dtype.name}")


# -- shape rules --------------------------------------------------------------------------


def _seed_abstract_eval(seeds, *, impl):
    if not seeds.dtype.is_int:
        raise TypeError(f"PRNG key seed must be an integer; got {seeds.str_short()}")
    return ShapedArray(seeds.shape, impl.dtype)


def _wrap_abstract_eval(data, *, impl):
    if data.shape[-1:] != (2,):
        raise TypeError("JAX encountered invalid PRNG key data: expected key_data.shape to end with "
                        f"(2,); got shape={data.shape} for impl={impl.name}")
    if data.dtype is not dt.uint32:
        raise TypeError("JAX encountered invalid PRNG key data: expected key_data.dtype = uint32; "
                        f"got dtype={data.dtype.name}")
    return ShapedArray(data.shape[:-1], impl.dtype)


def _unwrap_abstract_eval(keys):
    _check_keys("random_unwrap", keys)
    return ShapedArray(*storage(keys))


def _bits_abstract_eval(keys, *, bit_width, shape):
    _check_keys("random_bits", keys)
    if bit_width not in BIT_WIDTHS:
        raise TypeError(f"random_bits: bit_width must be 8, 16 or 32 in jaxwg, got {bit_width}")
    return ShapedArray((*keys.shape, *shape), BIT_WIDTHS[bit_width])


def _split_abstract_eval(keys, *, shape):
    _check_keys("random_split", keys)
    return ShapedArray((*keys.shape, *shape), keys.dtype)


def _fold_in_abstract_eval(keys, msgs):
    _check_keys("random_fold_in", keys)
    if msgs.dtype is not dt.uint32:
        raise TypeError(f"random_fold_in takes uint32 messages, got dtype {msgs.dtype.name}")
    return ShapedArray(P._broadcasting_shape("random_fold_in", [keys, msgs]), keys.dtype)


random_seed_p = P._declare("random_seed", _seed_abstract_eval)
random_wrap_p = P._declare("random_wrap", _wrap_abstract_eval)
random_unwrap_p = P._declare("random_unwrap", _unwrap_abstract_eval)
random_bits_p = P._declare("random_bits", _bits_abstract_eval)
random_split_p = P._declare("random_split", _split_abstract_eval)
random_fold_in_p = P._declare("random_fold_in", _fold_in_abstract_eval)
KEY_PRIMITIVES = (random_seed_p, random_wrap_p, random_unwrap_p, random_bits_p, random_split_p,
                  random_fold_in_p)


# -- Threefry on the keys' words ------------------------------------------------------------
# Each lowers a function of the keys' two words (of the keys' shape, uint32), which
# makes a key's words (or bits): a key operand's pending words are used as they are
# (`parts`), and keys made are a pair of words (`pack`), so that chains of splits and
# draws fuse as the words' elementwise Threefry would.


def _hash(k0, k1, shape: tuple):
    """Both Threefry words at every element of `shape` under each key (words `k0`,
    `k1`), of shape `keys + shape`: counter (0, the element's flat index)."""
    size = math.prod(shape)
    if size >= 2 ** 32:
        raise NotImplementedError("random values for 2**32 or more elements")
    keys = tuple(k0.shape)
    out = (*keys, *shape)
    zero = lax.full(out, 0, np.uint32)
    counts = zero
    if shape:
        counts = lax.reshape(lax.iota(np.uint32, size), shape)
        if keys:
            counts = lax.broadcast_in_dim(counts, out, tuple(range(len(keys), len(out))))
    if keys and shape:
        k0, k1 = (lax.broadcast_in_dim(k, out, tuple(range(len(keys)))) for k in (k0, k1))
    return lax.threefry2x32(k0, k1, zero, counts)


def _seed(seeds, *, impl):
    # The seed's 32 bits as the second word: seeds have no more bits in kernels.
    return [lax.full(seeds.shape, 0, np.uint32), lax.convert_element_type(seeds, np.uint32)]


def _bits(k0, k1, *, bit_width, shape):
    b0, b1 = _hash(k0, k1, shape)
    return [lax.convert_element_type(lax.bitwise_xor(b0, b1), BIT_WIDTHS[bit_width].np)]


def _split(k0, k1, *, shape):
    return list(_hash(k0, k1, shape))


def _fold_in(k0, k1, msgs):
    # Counter (0, msg) under each key; operands of another rank are rank 0 (they broadcast).
    shape = np.broadcast_shapes(k0.shape, msgs.shape)
    k0, k1, msgs = (x if x.shape in ((), shape) else lax.broadcast_in_dim(x, shape, tuple(range(len(shape))))
                    for x in (k0, k1, msgs))
    return list(lax.threefry2x32(k0, k1, lax.full((), 0, np.uint32), msgs))


@functools.lru_cache(maxsize=256)
def _traced(fn, avals: tuple, params: tuple):
    return trace_body(lambda *args: fn(*args, **dict(params)), avals, fn.__name__)


def _lowering(fn, takes_keys: bool):
    """The lowering of a key primitive: `fn` of the words of its key operand (the first,
    if `takes_keys`) and of its other operands, traced at their avals and lowered in
    place; keys it makes are its two results paired."""
    def lowering(out_aval, *nodes, **params):
        nodes = [*parts(nodes[0]), *nodes[1:]] if takes_keys else list(nodes)
        avals = tuple(ShapedArray(node.shape, node.dtype) for node in nodes)
        outs = lower_jaxpr(_traced(fn, avals, tuple(sorted(params.items()))), nodes)
        return pack(*outs) if out_aval.dtype.is_key else outs[0]

    return lowering


def _same_node(out_aval, node, **params):
    return node


P.lowering_rules[random_seed_p] = _lowering(_seed, takes_keys=False)
for _prim, _fn in ((random_bits_p, _bits), (random_split_p, _split), (random_fold_in_p, _fold_in)):
    P.lowering_rules[_prim] = _lowering(_fn, takes_keys=True)
P.lowering_rules[random_wrap_p] = P.lowering_rules[random_unwrap_p] = _same_node
STORAGE_RULES.update(KEY_PRIMITIVES)
