"""`jaxwg.nn`: activation functions, softmax and friends, one-hot encoding, attention,
and `jaxwg.nn.initializers`, with the formulas and the derivatives of `jax.nn`.

`relu` and `relu6` have JAX's derivative at their kinks (zero: custom JVPs). The
functions JAX wraps in `jit` (`relu`, `log_softmax`, `one_hot`'s `_one_hot`, ...) are
one `jit` equation in a jaxpr, as JAX's (`jaxwg.frontend.jit.staged_jit`).

>>> import jaxwg.numpy as jnp
>>> from jaxwg import nn
>>> nn.relu(jnp.array([-1.0, 0.0, 2.0])).tolist()
[0.0, 0.0, 2.0]
"""

from __future__ import annotations

import functools
import operator

import numpy as np

from .. import lax
from .. import numpy as jnp
from ..frontend import aval as avals
from ..frontend.jit import staged_jit
from ..numpy._util import canonicalize_axes, canonicalize_axis, promote
from ..transforms.custom import custom_jvp
from . import initializers
from .more_activations import (identity, log1mexp, logmeanexp, soft_sign, sparse_plus,
                               sparse_sigmoid, squareplus, tanh)

__all__ = ["celu", "dot_product_attention", "elu", "gelu", "glu", "hard_sigmoid", "hard_silu",
           "hard_swish", "hard_tanh", "initializers", "leaky_relu", "log_sigmoid", "log_softmax",
           "logsumexp", "mish", "one_hot", "relu", "relu6", "selu", "sigmoid", "silu", "softmax",
           "softplus", "standardize", "swish", "identity", "log1mexp", "logmeanexp", "soft_sign",
           "sparse_plus", "sparse_sigmoid", "squareplus", "tanh"]


@custom_jvp
@staged_jit
def relu(x):
    """max(x, 0), with derivative 0 at 0 (as JAX).

    >>> from jaxwg.nn import relu
    >>> import jaxwg, jaxwg.numpy as jnp
    >>> jaxwg.grad(relu)(0.0).item()
    0.0
    """
    return jnp.maximum(x, 0)


relu.defjvps(lambda g, ans, x: lax.select(x > 0, g, lax.full_like(g, 0)))


@custom_jvp
def relu6(x):
    """min(max(x, 0), 6), with derivative 0 at both kinks (as JAX).

    >>> from jaxwg.nn import relu6
    >>> import jaxwg.numpy as jnp
    >>> relu6(jnp.array([-1.0, 3.0, 9.0])).tolist()
    [0.0, 3.0, 6.0]
    """
    return jnp.minimum(jnp.maximum(x, 0), 6.0)


relu6.defjvps(lambda g, ans, x: lax.select((x > 0) & (x < 6), g, lax.full_like(g, 0)))


def sigmoid(x):
    """1 / (1 + exp(-x)) (`lax.logistic`): floats only, as JAX (integers raise TypeError).

    >>> from jaxwg.nn import sigmoid
    >>> sigmoid(0.0).item()
    0.5
    """
    return lax.logistic(x)


@staged_jit
def softplus(x):
    """log(1 + exp(x)), as JAX's: `logaddexp(x, 0)` (and its derivative, the sigmoid).

    >>> from jaxwg.nn import softplus
    >>> round(softplus(0.0).item(), 6)
    0.693147
    """
    return jnp.logaddexp(x, 0)


def log_sigmoid(x):
    """log(sigmoid(x)) = -softplus(-x).

    >>> from jaxwg.nn import log_sigmoid
    >>> round(log_sigmoid(0.0).item(), 6)
    -0.693147
    """
    return -softplus(-jnp.asarray(x))


def silu(x):
    """x * sigmoid(x).

    >>> from jaxwg.nn import silu
    >>> silu(0.0).item()
    0.0
    """
    return x * sigmoid(x)


swish = silu


def mish(x):
    """x * tanh(softplus(x)).

    >>> from jaxwg.nn import mish
    >>> mish(0.0).item()
    0.0
    """
    return x * jnp.tanh(softplus(x))


def gelu(x, approximate: bool = True):
    """The Gaussian error linear unit: with `approximate`, JAX's tanh formula; else
    x erfc(-x / sqrt 2) / 2.

    >>> from jaxwg.nn import gelu
    >>> import jaxwg.numpy as jnp
    >>> [round(v, 5) for v in gelu(jnp.array([-1.0, 1.0]), approximate=False).tolist()]
    [-0.15866, 0.84134]
    """
    x = jnp.asarray(x, dtype=jnp.result_type(x, jnp.float32))
    if approximate:
        c = float(np.sqrt(2 / np.pi).astype(np.float32))
        return x * (0.5 * (1.0 + jnp.tanh(c * (x + 0.044715 * (x ** 3)))))
    return x * (lax.erfc(-x * float(np.sqrt(0.5))) / 2)


def elu(x, alpha=1.0):
    """x where x > 0, else alpha (exp(x) - 1).

    >>> from jaxwg.nn import elu
    >>> import jaxwg.numpy as jnp
    >>> elu(jnp.array([1.0, 0.0])).tolist()
    [1.0, 0.0]
    """
    x = jnp.asarray(x)
    return jnp.where(x > 0, x, alpha * jnp.expm1(jnp.where(x > 0, 0.0, x)))


def celu(x, alpha=1.0):
    """max(x, 0) + alpha expm1(min(x, 0) / alpha).

    >>> from jaxwg.nn import celu
    >>> celu(1.0).item()
    1.0
    """
    return jnp.maximum(x, 0.0) + alpha * jnp.expm1(jnp.minimum(x, 0.0) / alpha)


def selu(x):
    """scale * elu(x, alpha) with JAX's constants.

    >>> from jaxwg.nn import selu
    >>> selu(0.0).item()
    0.0
    """
    return 1.0507009873554804934193349852946 * elu(x, 1.6732632423543772848170429916717)


def leaky_relu(x, negative_slope=1e-2):
    """x where x >= 0, else negative_slope * x.

    >>> from jaxwg.nn import leaky_relu
    >>> import jaxwg.numpy as jnp
    >>> leaky_relu(jnp.array([-1.0, 2.0])).tolist()
    [-0.009999999776482582, 2.0]
    """
    x = jnp.asarray(x)
    return jnp.where(x >= 0, x, negative_slope * x)


def hard_tanh(x):
    """x clipped to [-1, 1].

    >>> from jaxwg.nn import hard_tanh
    >>> import jaxwg.numpy as jnp
    >>> hard_tanh(jnp.array([-3.0, 0.5, 3.0])).tolist()
    [-1.0, 0.5, 1.0]
    """
    x = jnp.asarray(x)
    return jnp.where(x > 1, 1, jnp.where(x < -1, -1, x))


def hard_sigmoid(x):
    """relu6(x + 3) / 6.

    >>> from jaxwg.nn import hard_sigmoid
    >>> hard_sigmoid(0.0).item()
    0.5
    """
    return relu6(x + 3.0) / 6.0


def hard_silu(x):
    """x * hard_sigmoid(x).

    >>> from jaxwg.nn import hard_silu
    >>> hard_silu(3.0).item()
    3.0
    """
    return x * hard_sigmoid(x)


hard_swish = hard_silu


def glu(x, axis: int = -1):
    """The gated linear unit: the first half of `axis` times sigmoid of the second.

    >>> from jaxwg.nn import glu
    >>> import jaxwg.numpy as jnp
    >>> glu(jnp.array([2.0, 0.0])).tolist()
    [1.0]
    """
    size = jnp.shape(x)[axis]
    if size % 2:
        raise ValueError(f"axis size must be divisible by 2 for glu, got {size}")
    a, b = jnp.split(x, 2, axis)
    return a * sigmoid(b)


def logsumexp(a, axis=None, b=None, keepdims: bool = False, return_sign: bool = False, where=None):
    """log(sum(b exp(a))) along `axis` over the elements `where` allows, shifted by the
    (non-differentiated) maximum, as JAX's. With `return_sign`, the log of the sum's
    magnitude and its sign; else a negative sum gives NaN, as JAX.

    >>> from jaxwg.nn import logsumexp
    >>> import jaxwg.numpy as jnp
    >>> round(logsumexp(jnp.array([0.0, 0.0])).item(), 6)
    0.693147
    >>> [v.item() for v in logsumexp(jnp.array([0.0, 0.0]), b=jnp.array([1.0, -3.0]), return_sign=True)]
    [0.6931471824645996, -1.0]
    """
    if where is not None:
        a = jnp.where(where, a, 0)
    if b is not None:
        a, b = promote(a, b, to_inexact=True)
        rank = max(jnp.ndim(a), jnp.ndim(b))  # as JAX promotes: ranks too
        a, b = lax.broadcast_to_rank(a, rank), lax.broadcast_to_rank(b, rank)
        a = jnp.where(b != 0, a, -np.inf)
    else:
        (a,) = promote(a, to_inexact=True)
    dims = canonicalize_axes(axis, jnp.ndim(a))
    is_complex = jnp.iscomplexobj(a)
    amax = jnp.max(jnp.real(a) if is_complex else a, axis=dims, keepdims=keepdims, where=where,
                   initial=-np.inf)
    amax = lax.stop_gradient(lax.select(jnp.isfinite(amax), amax, lax.full_like(amax, 0)))
    amax_with_dims = amax if keepdims else lax.expand_dims(amax, dims)
    exp_a = lax.exp(lax.sub(a, amax_with_dims.astype(a.dtype)))
    if b is not None:
        exp_a = lax.mul(exp_a, b)
    total = jnp.sum(exp_a, axis=dims, keepdims=keepdims, where=where)
    sign = lax.sign(total)
    if return_sign or not is_complex:
        total = jnp.abs(total)
    out = lax.add(lax.log(total), amax.astype(total.dtype))
    if return_sign:
        return out, sign
    if b is not None and not is_complex:
        out = jnp.where(sign < 0, jnp.array(np.nan, dtype=out.dtype), out)
    return out


def softmax(x, axis=-1, where=None):
    """exp(x) / sum(exp(x)) along `axis` over the elements `where` allows (0 elsewhere),
    the maximum subtracted first and not differentiated: JAX's default
    (`jax_softmax_custom_jvp` off).

    >>> from jaxwg.nn import softmax
    >>> import jaxwg.numpy as jnp
    >>> softmax(jnp.array([0.0, 0.0])).tolist()
    [0.5, 0.5]
    >>> softmax(jnp.array([0.0, 0.0, 5.0]), where=jnp.array([True, True, False])).tolist()
    [0.5, 0.5, 0.0]
    """
    x_max = jnp.max(x, axis, where=where, initial=-np.inf, keepdims=True)
    x_safe = x if where is None else jnp.where(where, x, -np.inf)
    unnormalized = jnp.exp(x_safe - lax.stop_gradient(x_max))
    result = unnormalized / jnp.sum(unnormalized, axis, where=where, keepdims=True)
    return result if where is None else jnp.where(where, result, 0)


@functools.partial(staged_jit, static_argnames=("axis",))
def log_softmax(x, axis=-1, where=None):
    """x - logsumexp(x) along `axis` (the maximum not differentiated) over the elements
    `where` allows (-inf elsewhere), as JAX.

    >>> from jaxwg.nn import log_softmax
    >>> import jaxwg.numpy as jnp
    >>> [round(v, 6) for v in log_softmax(jnp.array([0.0, 0.0])).tolist()]
    [-0.693147, -0.693147]
    """
    x = jnp.asarray(x)
    x_max = jnp.max(x, axis, where=where, initial=-np.inf, keepdims=True)
    x_safe = x if where is None else jnp.where(where, x, -np.inf)
    shifted = x_safe - lax.stop_gradient(x_max)
    result = shifted - jnp.log(jnp.sum(jnp.exp(shifted), axis, where=where, keepdims=True))
    return result if where is None else jnp.where(where, result, -np.inf)


def standardize(x, axis=-1, mean=None, variance=None, epsilon=1e-5):
    """(x - mean) / sqrt(variance + epsilon), the moments along `axis` by default.

    >>> from jaxwg.nn import standardize
    >>> import jaxwg.numpy as jnp
    >>> [round(v, 3) for v in standardize(jnp.array([1.0, 3.0])).tolist()]
    [-1.0, 1.0]
    """
    x = jnp.asarray(x)
    if mean is None:
        mean = jnp.mean(x, axis, keepdims=True)
    if variance is None:
        variance = jnp.clip(jnp.mean(jnp.square(x), axis, keepdims=True) - jnp.square(mean), 0)
    return (x - mean) * lax.rsqrt(variance + epsilon)


def one_hot(x, num_classes: int, *, dtype=None, axis=-1):
    """`x` (integers) as one-hot vectors of `num_classes` along `axis`, in `dtype`
    (default: the default float).

    >>> from jaxwg.nn import one_hot
    >>> import jaxwg.numpy as jnp
    >>> one_hot(jnp.array([0, 2]), 3).tolist()
    [[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]
    """
    dtype = avals.canonical_dtype("float64") if dtype is None else dtype
    return _one_hot(jnp.asarray(x), operator.index(num_classes), dtype=dtype, axis=axis)


@functools.partial(staged_jit, static_argnames=("num_classes", "dtype", "axis"))
def _one_hot(x, num_classes: int, *, dtype, axis):
    """`one_hot` of an array: one `jit` equation in a jaxpr, as JAX's `_one_hot`."""
    axis = canonicalize_axis(axis, x.ndim + 1)
    x_1 = lax.expand_dims(x, (axis,))
    shape = [1] * x.ndim
    shape.insert(axis, num_classes)
    return (x_1 == lax.broadcasted_iota(x.dtype, shape, axis)).astype(dtype)


def _ensure_4d(t):
    t = jnp.asarray(t)
    return jnp.expand_dims(t, tuple(range(4 - t.ndim))) if t.ndim < 4 else t


def _check_shape_and_dtype(t, shape, dtype, name: str) -> None:
    """JAX's checks of an attention operand: rank, dtype, and the sizes not -1."""
    if t is None:
        return
    if t.ndim != len(shape):
        raise ValueError(f"{name} ndim should be {len(shape)}, but got {t.ndim}")
    if dtype is not None and t.dtype != dtype:
        raise ValueError(f"{name} dtype should be {np.dtype(dtype).name}, but got {t.dtype}")
    if any(n != -1 and m != n for m, n in zip(t.shape, shape)):
        raise ValueError(f"{name} shape should be {list(shape)}: but got {t.shape}")


def dot_product_attention(query, key, value, bias=None, mask=None, *, scale=None,
                          is_causal: bool = False, query_seq_lengths=None, key_value_seq_lengths=None,
                          local_window_size=None, implementation=None, return_residual: bool = False):
    """softmax(q k^T * scale + bias, masked) v for (batch, length, heads, head_dim)
    inputs (rank 3 without batch), as `jax.nn.dot_product_attention`'s XLA path:
    grouped-query attention where the key/value heads divide the query heads; the mask
    combines `mask`, `is_causal`, `local_window_size` (left, right) and the padding that
    `query_seq_lengths` and `key_value_seq_lengths` (int32, one per batch row) leave,
    and the outputs of padding queries are zero. Logits and the softmax are float32 at
    least; `return_residual` adds the logsumexp of the logits, (batch, length, heads).

    >>> from jaxwg.nn import dot_product_attention
    >>> import jaxwg.numpy as jnp
    >>> q = jnp.ones((1, 2, 1, 4))
    >>> dot_product_attention(q, q, q).shape
    (1, 2, 1, 4)
    >>> out = dot_product_attention(q, q, q, query_seq_lengths=jnp.array([1], jnp.int32))
    >>> out[0, :, 0, 0].tolist()
    [1.0, 0.0]
    """
    output_shape = jnp.shape(query)
    q, k, v = _ensure_4d(query), _ensure_4d(key), _ensure_4d(value)
    bias = None if bias is None else _ensure_4d(bias)
    mask = None if mask is None else _ensure_4d(mask)
    q_len = None if query_seq_lengths is None else jnp.asarray(query_seq_lengths)
    kv_len = None if key_value_seq_lengths is None else jnp.asarray(key_value_seq_lengths)
    if isinstance(local_window_size, (int, np.integer)):
        local_window_size = (int(local_window_size), int(local_window_size))

    B, S, K, H = k.shape
    _check_shape_and_dtype(v, [B, S, K, H], k.dtype, "value")
    _check_shape_and_dtype(q, [B, -1, -1, H], k.dtype, "query")
    _check_shape_and_dtype(mask, [-1] * 4, np.bool_, "mask")
    _check_shape_and_dtype(bias, [-1] * 4, None, "bias")
    _check_shape_and_dtype(q_len, [B], np.int32, "query_seq_lengths")
    _check_shape_and_dtype(kv_len, [B], np.int32, "key_value_seq_lengths")
    if q.shape[-2] % K != 0:
        raise ValueError(f"The number of query heads must be a multiple of key/value heads, but got "
                         f"{q.shape[-2]} vs {K}")
    if implementation == "cudnn":
        raise RuntimeError("cuDNN is not detected.")
    if implementation not in (None, "xla"):
        raise ValueError(f"Unsupported implementation option: {implementation}")
    scale = 1.0 / float(np.sqrt(H)) if scale is None else scale

    _, T, N, _ = q.shape
    G = N // K
    q = jnp.reshape(q, (B, T, K, G, H))

    def grouped(t):  # (tB, tN, tT, tS) -> (tB, K or 1, G, tT, tS), as the logits
        if t is None:
            return None
        tB, tN, tT, tS = t.shape
        if tN == 1:
            return jnp.broadcast_to(t[:, :, None], (tB, 1, G, tT, tS))
        return jnp.reshape(t, (tB, K, G, tT, tS))

    logits_dtype = jnp.promote_types(q.dtype, np.float32)
    logits = jnp.einsum("BTKGH,BSKH->BKGTS", q, k, preferred_element_type=logits_dtype)
    logits = logits * jnp.asarray(scale, logits_dtype)
    if bias is not None:
        logits = (logits + grouped(bias)).astype(logits_dtype)
    padded = _attention_masks(logits, grouped(mask), is_causal, q_len, kv_len, local_window_size)
    padded = padded.astype(np.float32)
    probs = softmax(padded, axis=-1).astype(k.dtype)
    encoded = jnp.einsum("BKGTS,BSKH->BTKGH", probs, v)
    if q_len is not None:
        inside = jnp.arange(T)[None, :] < q_len[:, None]
        encoded = encoded * inside[:, :, None, None, None].astype(encoded.dtype)
    encoded = jnp.reshape(encoded, output_shape)
    if not return_residual:
        return encoded
    residual = logsumexp(padded, axis=-1).astype(k.dtype)  # (B, K, G, T)
    residual = jnp.reshape(jnp.moveaxis(residual, -1, 1), output_shape[:-1])
    return encoded, lax.stop_gradient(residual)


def _attention_masks(logits, mask, is_causal, q_len, kv_len, window):
    """`logits` (B, K, G, T, S) with a large negative number wherever a mask says no."""
    if mask is None and not is_causal and q_len is None and kv_len is None and window is None:
        return logits
    T, S = logits.shape[-2:]
    keep = jnp.ones(logits.shape, bool)
    if mask is not None:
        keep = keep & mask
    query_pos, key_pos = jnp.arange(T)[:, None], jnp.arange(S)[None, :]
    if is_causal:
        keep = keep & (query_pos >= key_pos)
    if window is not None:
        left, right = window
        keep = keep & (query_pos <= key_pos + left) & (query_pos >= key_pos - right)
    if q_len is not None:
        keep = keep & (jnp.arange(T)[None, :, None] < q_len[:, None, None])[:, None, None]
    if kv_len is not None:
        keep = keep & (jnp.arange(S)[None, None, :] < kv_len[:, None, None])[:, None, None]
    big = min(float(np.finfo(logits.dtype).max), float(np.finfo(np.float32).max))
    return jnp.where(keep, logits, jnp.asarray(-0.7 * big, logits.dtype))


from .. import errors as _errors

# A name JAX has and jaxwg lacks says it is not implemented yet (jaxwg.errors).
__getattr__ = _errors.module_getattr(__name__)
__dir__ = _errors.module_dir(__name__)  # the public names only, as JAX's
