"""`jaxwg.nn`: activation functions, softmax and friends, one-hot encoding, attention,
and `jaxwg.nn.initializers`, with the formulas and the derivatives of `jax.nn`.

`relu` and `relu6` have JAX's derivative at their kinks (zero: custom JVPs), and
`softmax`'s derivative is JAX's custom rule, y (g - <y, g>).

>>> import jaxwg.numpy as jnp
>>> from jaxwg import nn
>>> nn.relu(jnp.array([-1.0, 0.0, 2.0])).tolist()
[0.0, 0.0, 2.0]
"""

from __future__ import annotations

import numpy as np

from .. import lax
from .. import numpy as jnp
from ..numpy._util import promote
from ..transforms.custom import custom_jvp
from . import initializers

__all__ = ["celu", "dot_product_attention", "elu", "gelu", "glu", "hard_sigmoid", "hard_silu",
           "hard_swish", "hard_tanh", "initializers", "leaky_relu", "log_sigmoid", "log_softmax",
           "logsumexp", "mish", "one_hot", "relu", "relu6", "selu", "sigmoid", "silu", "softmax",
           "softplus", "standardize", "swish"]


@custom_jvp
def relu(x):
    """max(x, 0), with derivative 0 at 0 (as JAX).

    >>> import jaxwg, jaxwg.numpy as jnp
    >>> jaxwg.grad(relu)(0.0).item()
    0.0
    """
    return jnp.maximum(x, 0)


relu.defjvps(lambda g, ans, x: lax.select(x > 0, g, lax.full_like(g, 0)))


@custom_jvp
def relu6(x):
    """min(max(x, 0), 6), with derivative 0 at both kinks (as JAX).

    >>> import jaxwg.numpy as jnp
    >>> relu6(jnp.array([-1.0, 3.0, 9.0])).tolist()
    [0.0, 3.0, 6.0]
    """
    return jnp.minimum(jnp.maximum(x, 0), 6.0)


relu6.defjvps(lambda g, ans, x: lax.select((x > 0) & (x < 6), g, lax.full_like(g, 0)))


def sigmoid(x):
    """1 / (1 + exp(-x)) (`lax.logistic`): floats only, as JAX (integers raise TypeError).

    >>> sigmoid(0.0).item()
    0.5
    """
    return lax.logistic(x)


def softplus(x):
    """log(1 + exp(x)), computed as max(x, 0) + log1p(exp(-|x|)).

    >>> round(softplus(0.0).item(), 6)
    0.693147
    """
    x = jnp.asarray(x, dtype=jnp.result_type(x, jnp.float32))
    return jnp.maximum(x, 0) + jnp.log1p(jnp.exp(-jnp.abs(x)))


def log_sigmoid(x):
    """log(sigmoid(x)) = -softplus(-x).

    >>> round(log_sigmoid(0.0).item(), 6)
    -0.693147
    """
    return -softplus(-jnp.asarray(x))


def silu(x):
    """x * sigmoid(x).

    >>> silu(0.0).item()
    0.0
    """
    return x * sigmoid(x)


swish = silu


def mish(x):
    """x * tanh(softplus(x)).

    >>> mish(0.0).item()
    0.0
    """
    return x * jnp.tanh(softplus(x))


def gelu(x, approximate: bool = True):
    """The Gaussian error linear unit: with `approximate`, JAX's tanh formula; else
    x erfc(-x / sqrt 2) / 2.

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

    >>> import jaxwg.numpy as jnp
    >>> elu(jnp.array([1.0, 0.0])).tolist()
    [1.0, 0.0]
    """
    x = jnp.asarray(x)
    return jnp.where(x > 0, x, alpha * jnp.expm1(jnp.where(x > 0, 0.0, x)))


def celu(x, alpha=1.0):
    """max(x, 0) + alpha expm1(min(x, 0) / alpha).

    >>> celu(1.0).item()
    1.0
    """
    return jnp.maximum(x, 0.0) + alpha * jnp.expm1(jnp.minimum(x, 0.0) / alpha)


def selu(x):
    """scale * elu(x, alpha) with JAX's constants.

    >>> selu(0.0).item()
    0.0
    """
    return 1.0507009873554804934193349852946 * elu(x, 1.6732632423543772848170429916717)


def leaky_relu(x, negative_slope=1e-2):
    """x where x >= 0, else negative_slope * x.

    >>> import jaxwg.numpy as jnp
    >>> leaky_relu(jnp.array([-1.0, 2.0])).tolist()
    [-0.009999999776482582, 2.0]
    """
    x = jnp.asarray(x)
    return jnp.where(x >= 0, x, negative_slope * x)


def hard_tanh(x):
    """x clipped to [-1, 1].

    >>> import jaxwg.numpy as jnp
    >>> hard_tanh(jnp.array([-3.0, 0.5, 3.0])).tolist()
    [-1.0, 0.5, 1.0]
    """
    x = jnp.asarray(x)
    return jnp.where(x > 1, 1, jnp.where(x < -1, -1, x))


def hard_sigmoid(x):
    """relu6(x + 3) / 6.

    >>> hard_sigmoid(0.0).item()
    0.5
    """
    return relu6(x + 3.0) / 6.0


def hard_silu(x):
    """x * hard_sigmoid(x).

    >>> hard_silu(3.0).item()
    3.0
    """
    return x * hard_sigmoid(x)


hard_swish = hard_silu


def glu(x, axis: int = -1):
    """The gated linear unit: the first half of `axis` times sigmoid of the second.

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
    (non-differentiated) maximum. With `return_sign`, the log of the sum's magnitude and
    its sign; else a negative sum gives NaN, as JAX.

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
        a = jnp.where(b != 0, a, -np.inf)
    else:
        (a,) = promote(a, to_inexact=True)
    amax = jnp.max(a, axis=axis, keepdims=True, where=where, initial=-np.inf)
    amax = lax.stop_gradient(jnp.where(jnp.isfinite(amax), amax, 0))
    exp_a = jnp.exp(a - amax)
    if b is not None:
        exp_a = exp_a * b
    total = jnp.sum(exp_a, axis=axis, keepdims=True, where=where)
    out, sign = jnp.log(jnp.abs(total)) + amax, jnp.sign(total)
    if not keepdims:
        out, sign = jnp.squeeze(out, axis=axis), jnp.squeeze(sign, axis=axis)
    if return_sign:
        return out, sign
    return out if b is None else jnp.where(sign < 0, np.nan, out)


def _softmax_plain(x, axis, where):
    x_max = jnp.max(x, axis, where=where, initial=-np.inf, keepdims=True)
    x_safe = x if where is None else jnp.where(where, x, -np.inf)
    unnormalized = jnp.exp(x_safe - x_max)
    result = unnormalized / jnp.sum(unnormalized, axis, where=where, keepdims=True)
    return result if where is None else jnp.where(where, result, 0)


def _softmax_rule(axis, where):
    @custom_jvp
    def softmax_of(x):
        return _softmax_plain(x, axis, where)

    @softmax_of.defjvp
    def softmax_jvp(primals, tangents):
        (x,), (t,) = primals, tangents
        y = _softmax_plain(x, axis, where)
        return y, y * (t - jnp.sum(y * t, axis, where=where, keepdims=True))

    return softmax_of


def softmax(x, axis=-1, where=None):
    """exp(x) / sum(exp(x)) along `axis` over the elements `where` allows (0 elsewhere),
    with JAX's derivative rule.

    >>> import jaxwg.numpy as jnp
    >>> softmax(jnp.array([0.0, 0.0])).tolist()
    [0.5, 0.5]
    >>> softmax(jnp.array([0.0, 0.0, 5.0]), where=jnp.array([True, True, False])).tolist()
    [0.5, 0.5, 0.0]
    """
    axis = tuple(axis) if isinstance(axis, (tuple, list)) else axis
    return _softmax_rule(axis, where)(jnp.asarray(x))


def log_softmax(x, axis=-1, where=None):
    """x - logsumexp(x) along `axis` (the maximum not differentiated) over the elements
    `where` allows (-inf elsewhere), as JAX.

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


def one_hot(x, num_classes: int, *, dtype=jnp.float32, axis=-1):
    """`x` (integers) as one-hot vectors of `num_classes` along `axis`.

    >>> import jaxwg.numpy as jnp
    >>> one_hot(jnp.array([0, 2]), 3).tolist()
    [[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]
    """
    x = jnp.asarray(x)
    axis = axis % (x.ndim + 1)
    classes = lax.broadcasted_iota(x.dtype, x.shape[:axis] + (num_classes,) + x.shape[axis:], axis)
    return (jnp.expand_dims(x, axis) == classes).astype(dtype)


def dot_product_attention(query, key, value, bias=None, mask=None, *, scale=None,
                          is_causal: bool = False):
    """softmax(q k^T * scale + bias, masked) v for (batch, length, heads, head_dim)
    inputs (rank 3 without batch), as `jax.nn.dot_product_attention`'s XLA path.

    >>> import jaxwg.numpy as jnp
    >>> q = jnp.ones((1, 2, 1, 4))
    >>> dot_product_attention(q, q, q).shape
    (1, 2, 1, 4)
    """
    q, k, v = (jnp.asarray(t) for t in (query, key, value))
    batched = q.ndim == 4
    if not batched:
        q, k, v = q[None], k[None], v[None]
    scale = 1.0 / float(np.sqrt(q.shape[-1])) if scale is None else scale
    logits = jnp.einsum("BTNH,BSNH->BNTS", q, k) * scale
    if bias is not None:
        logits = logits + (jnp.asarray(bias) if batched else jnp.asarray(bias)[None])
    large_negative = float(-0.7 * np.finfo(np.float32).max)
    if mask is not None:
        mask = jnp.asarray(mask) if batched else jnp.asarray(mask)[None]
        logits = jnp.where(mask, logits, large_negative)
    if is_causal:
        t, s = logits.shape[-2], logits.shape[-1]
        causal = lax.broadcasted_iota(jnp.int32, (t, s), 0) >= lax.broadcasted_iota(jnp.int32, (t, s), 1)
        logits = jnp.where(causal, logits, large_negative)
    out = jnp.einsum("BNTS,BSNH->BTNH", softmax(logits, axis=-1), v)
    return out if batched else out[0]

from .. import errors as _errors

# A name JAX has and jaxwg lacks says it is not implemented yet (jaxwg.errors).
__getattr__ = _errors.module_getattr(__name__)
