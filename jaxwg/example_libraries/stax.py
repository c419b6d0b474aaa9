"""`jaxwg.example_libraries.stax`: neural-network layers as `(init_fun, apply_fun)`
pairs, with the interface and initializers of `jax.example_libraries.stax`.

`init_fun(rng, input_shape)` returns `(output_shape, params)`, so a network's shapes
are worked out (and its parameters made) before any data is seen; `input_shape` may
hold -1 for a batch size not yet known, which stays -1 through every layer (JAX's
pooling layers turn it into 0). `apply_fun(params, inputs, **kwargs)` runs
the layer; `rng=key` reaches the layers that draw random numbers (`Dropout`).
Combinators (`serial`, `parallel`) make a layer out of layers, and `FanOut`,
`FanInSum` and `FanInConcat` split and join branches, for residual blocks.
Layers without parameters are pairs already: `Relu`, `Tanh`, `Sigmoid`, `Softmax`,
`LogSoftmax`, `Gelu`, `Elu`, `LeakyRelu`, `Selu`, `Softplus`, `Exp`, `Flatten`,
`Identity`, `FanInSum`. With the same key, `init_fun` draws JAX's numbers (up to the
rounding `jaxwg.random` documents), as it splits keys the same way.

>>> import jaxwg.numpy as jnp
>>> from jaxwg import random
>>> init_fun, apply_fun = serial(Dense(16), Relu, Dense(3), LogSoftmax)
>>> out_shape, params = init_fun(random.PRNGKey(0), (-1, 8))
>>> out_shape, [w.shape for w, b in params[::2]]
((-1, 3), [(8, 16), (16, 3)])
>>> apply_fun(params, jnp.ones((5, 8))).shape
(5, 3)
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from .. import lax, random
from .. import numpy as jnp
from ..nn import elu, gelu, leaky_relu, log_softmax, relu, selu, sigmoid, softmax, softplus, standardize
from ..nn.initializers import glorot_normal, normal, ones, zeros

__all__ = ["AvgPool", "BatchNorm", "Conv", "Dense", "Dropout", "Elu", "Exp", "FanInConcat",
           "FanInSum", "FanOut", "Flatten", "Gelu", "GeneralConv", "Identity", "LeakyRelu",
           "LogSoftmax", "MaxPool", "Relu", "Selu", "Sigmoid", "Softmax", "Softplus", "SumPool",
           "Tanh", "elementwise", "parallel", "serial", "shape_dependent"]

# JAX's stax re-exports these under its own names too.
glorot = glorot_normal
randn = normal
logsoftmax = log_softmax


def Dense(out_dim, W_init=glorot_normal(), b_init=normal()):
    """A fully connected layer, inputs @ W + b, with W of shape (in, out_dim).

    >>> from jaxwg.example_libraries.stax import Dense
    >>> import jaxwg.numpy as jnp
    >>> from jaxwg import random
    >>> init_fun, apply_fun = Dense(4)
    >>> out_shape, (W, b) = init_fun(random.PRNGKey(0), (2, 3))
    >>> out_shape, W.shape, b.shape, apply_fun((W, b), jnp.ones((2, 3))).shape
    ((2, 4), (3, 4), (4,), (2, 4))
    """
    def init_fun(rng, input_shape):
        k1, k2 = random.split(rng)
        params = W_init(k1, (input_shape[-1], out_dim)), b_init(k2, (out_dim,))
        return tuple(input_shape[:-1]) + (out_dim,), params

    def apply_fun(params, inputs, **kwargs):
        W, b = params
        return jnp.dot(inputs, W) + b
    return init_fun, apply_fun


def _window_count(size, window, stride, pads) -> int:
    """How many windows of `window` elements, `stride` apart, fit in `size` elements
    padded by `pads` = (low, high); -1 (an unknown batch size) stays -1."""
    if size == -1:
        return -1
    return max(0, (size + pads[0] + pads[1] - window) // stride + 1)


def _conv_output_shape(input_shape, kernel_shape, strides, padding, dimension_numbers):
    """The shape of `lax.conv_general_dilated(inputs, kernel, strides, padding,
    dimension_numbers=...)` without computing it."""
    dn = lax.conv_dimension_numbers(input_shape, kernel_shape, dimension_numbers)
    in_spatial = [input_shape[d] for d in dn.lhs_spec[2:]]
    kernel_spatial = [kernel_shape[d] for d in dn.rhs_spec[2:]]
    if isinstance(padding, str):
        padding = lax.padtype_to_pads(in_spatial, kernel_spatial, strides, padding)
    sizes = [input_shape[dn.lhs_spec[0]], kernel_shape[dn.rhs_spec[0]]]
    sizes += [_window_count(*args) for args in zip(in_spatial, kernel_spatial, strides, padding)]
    out = [0] * len(sizes)
    for axis, size in zip(dn.out_spec, sizes):
        out[axis] = size
    return tuple(out)


def GeneralConv(dimension_numbers, out_chan, filter_shape, strides=None, padding="VALID",
                W_init=None, b_init=normal(1e-6)):
    """A convolution layer with the layouts of `dimension_numbers` (three spec strings,
    e.g. `("NCHW", "OIHW", "NCHW")`), through `lax.conv_general_dilated`, plus a bias
    per output channel. W is initialized `glorot_normal` over its I and O axes.

    >>> from jaxwg.example_libraries.stax import GeneralConv
    >>> import jaxwg.numpy as jnp
    >>> from jaxwg import random
    >>> init_fun, apply_fun = GeneralConv(("NCHW", "OIHW", "NCHW"), 4, (3, 3), padding="SAME")
    >>> out_shape, (W, b) = init_fun(random.PRNGKey(0), (1, 2, 5, 5))
    >>> out_shape, W.shape, b.shape, apply_fun((W, b), jnp.ones((1, 2, 5, 5))).shape
    ((1, 4, 5, 5), (4, 2, 3, 3), (1, 4, 1, 1), (1, 4, 5, 5))
    """
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    strides = tuple(strides) if strides else (1,) * len(filter_shape)
    W_init = W_init or glorot_normal(rhs_spec.index("I"), rhs_spec.index("O"))

    def init_fun(rng, input_shape):
        spatial = iter(filter_shape)
        in_chan = input_shape[lhs_spec.index("C")]
        kernel_shape = tuple(out_chan if c == "O" else in_chan if c == "I" else next(spatial)
                             for c in rhs_spec)
        output_shape = _conv_output_shape(input_shape, kernel_shape, strides, padding,
                                          dimension_numbers)
        bias_shape = tuple(out_chan if c == "C" else 1 for c in out_spec)
        k1, k2 = random.split(rng)
        return output_shape, (W_init(k1, kernel_shape), b_init(k2, bias_shape))

    def apply_fun(params, inputs, **kwargs):
        W, b = params
        return lax.conv_general_dilated(inputs, W, strides, padding,
                                        dimension_numbers=dimension_numbers) + b
    return init_fun, apply_fun


def Conv(out_chan, filter_shape, strides=None, padding="VALID", W_init=None, b_init=normal(1e-6)):
    """`GeneralConv` on NHWC images with HWIO kernels (channels last, as JAX's `Conv`).

    >>> from jaxwg.example_libraries.stax import Conv
    >>> from jaxwg import random
    >>> init_fun, apply_fun = Conv(8, (3, 3), strides=(2, 2))
    >>> init_fun(random.PRNGKey(0), (-1, 9, 9, 3))[0]
    (-1, 4, 4, 8)
    """
    return GeneralConv(("NHWC", "HWIO", "NHWC"), out_chan, filter_shape, strides, padding,
                       W_init, b_init)


def BatchNorm(axis=(0, 1, 2), epsilon=1e-5, center=True, scale=True, beta_init=zeros,
              gamma_init=ones):
    """Normalize over the axes `axis` (the statistics of the batch in hand: no
    running averages), then scale by gamma and shift by beta, which have the shape of
    the remaining axes. Without `center` (`scale`) there is no beta (gamma): its
    parameter is `()`.

    >>> from jaxwg.example_libraries.stax import BatchNorm
    >>> import jaxwg.numpy as jnp
    >>> from jaxwg import random
    >>> init_fun, apply_fun = BatchNorm(axis=0)
    >>> out_shape, (beta, gamma) = init_fun(random.PRNGKey(0), (4, 3))
    >>> y = apply_fun((beta, gamma), jnp.arange(12.0).reshape(4, 3))
    >>> [round(v, 3) for v in y[:, 0].tolist()]
    [-1.342, -0.447, 0.447, 1.342]
    """
    axis = (axis,) if np.isscalar(axis) else tuple(axis)

    def init_fun(rng, input_shape):
        shape = tuple(d for i, d in enumerate(input_shape) if i not in axis)
        k1, k2 = random.split(rng)
        beta = beta_init(k1, shape) if center else ()
        gamma = gamma_init(k2, shape) if scale else ()
        return input_shape, (beta, gamma)

    def apply_fun(params, x, **kwargs):
        beta, gamma = params
        # beta and gamma lack the normalized axes: give them back as 1s to broadcast.
        kept = tuple(1 if i in axis else d for i, d in enumerate(x.shape))
        z = standardize(x, axis, epsilon=epsilon)
        if scale:
            z = gamma.reshape(kept) * z
        if center:
            z = z + beta.reshape(kept)
        return z
    return init_fun, apply_fun


def elementwise(fun, **fun_kwargs):
    """A layer without parameters that applies `fun(inputs, **fun_kwargs)`.

    >>> from jaxwg.example_libraries.stax import elementwise
    >>> import jaxwg.numpy as jnp
    >>> from jaxwg import nn
    >>> init_fun, apply_fun = elementwise(nn.leaky_relu, negative_slope=0.5)
    >>> apply_fun((), jnp.array([-2.0, 1.0])).tolist()
    [-1.0, 1.0]
    """
    def init_fun(rng, input_shape):
        return input_shape, ()

    def apply_fun(params, inputs, **kwargs):
        return fun(inputs, **fun_kwargs)
    return init_fun, apply_fun


Tanh = elementwise(jnp.tanh)
Relu = elementwise(relu)
Exp = elementwise(jnp.exp)
LogSoftmax = elementwise(log_softmax, axis=-1)
Softmax = elementwise(softmax, axis=-1)
Softplus = elementwise(softplus)
Sigmoid = elementwise(sigmoid)
Elu = elementwise(elu)
LeakyRelu = elementwise(leaky_relu)
Selu = elementwise(selu)
Gelu = elementwise(gelu)


def _insert_ones(sizes, axes) -> tuple:
    """`sizes` (one per spatial axis) with a 1 inserted at each of the non-spatial `axes`."""
    sizes = tuple(sizes)
    for axis in sorted(axes):
        sizes = sizes[:axis] + (1,) + sizes[axis:]
    return sizes


def _pool(reducer, init_value, window_shape, strides, padding, spec, average=False):
    """A pooling layer: `lax.reduce_window` over the spatial axes of inputs laid out as
    `spec` (default NHWC: batch first, channels last), divided by the number of
    in-bounds elements of each window when `average`."""
    spatial_strides = tuple(strides) if strides else (1,) * len(window_shape)
    non_spatial = (0, len(window_shape) + 1) if spec is None else (spec.index("N"), spec.index("C"))
    dims = _insert_ones(window_shape, non_spatial)
    all_strides = _insert_ones(spatial_strides, non_spatial)

    def init_fun(rng, input_shape):
        pads = (lax.padtype_to_pads(input_shape, dims, all_strides, padding)
                if isinstance(padding, str) else padding)
        return tuple(_window_count(*args) for args in zip(input_shape, dims, all_strides, pads)), ()

    def window_sizes(inputs):
        """The number of elements each window covers that are not padding."""
        spatial_shape = tuple(n for i, n in enumerate(inputs.shape) if i not in non_spatial)
        counts = lax.reduce_window(jnp.ones(spatial_shape, inputs.dtype), 0.0, lax.add,
                                   tuple(window_shape), spatial_strides, padding)
        return counts.reshape(_insert_ones(counts.shape, non_spatial))

    def apply_fun(params, inputs, **kwargs):
        out = lax.reduce_window(inputs, init_value, reducer, dims, all_strides, padding)
        return out / window_sizes(inputs) if average else out
    return init_fun, apply_fun


def MaxPool(window_shape, strides=None, padding="VALID", spec=None):
    """The maximum over each window of the spatial axes (layout `spec`, default NHWC).

    >>> from jaxwg.example_libraries.stax import MaxPool
    >>> import jaxwg.numpy as jnp
    >>> init_fun, apply_fun = MaxPool((2, 2), strides=(2, 2))
    >>> x = jnp.arange(16.0).reshape(1, 4, 4, 1)
    >>> apply_fun((), x)[0, :, :, 0].tolist()
    [[5.0, 7.0], [13.0, 15.0]]
    """
    return _pool(lax.max, -jnp.inf, window_shape, strides, padding, spec)


def SumPool(window_shape, strides=None, padding="VALID", spec=None):
    """The sum over each window of the spatial axes (layout `spec`, default NHWC).

    >>> from jaxwg.example_libraries.stax import SumPool
    >>> import jaxwg.numpy as jnp
    >>> init_fun, apply_fun = SumPool((2, 2), strides=(2, 2))
    >>> apply_fun((), jnp.ones((1, 4, 4, 1)))[0, :, :, 0].tolist()
    [[4.0, 4.0], [4.0, 4.0]]
    """
    return _pool(lax.add, 0.0, window_shape, strides, padding, spec)


def AvgPool(window_shape, strides=None, padding="VALID", spec=None):
    """The mean over each window of the spatial axes (layout `spec`, default NHWC);
    with "SAME" padding an edge window averages only its elements inside the input.

    >>> from jaxwg.example_libraries.stax import AvgPool
    >>> import jaxwg.numpy as jnp
    >>> init_fun, apply_fun = AvgPool((2,), padding="SAME")
    >>> apply_fun((), jnp.array([[[1.0], [3.0], [8.0]]]))[0, :, 0].tolist()
    [2.0, 5.5, 8.0]
    """
    return _pool(lax.add, 0.0, window_shape, strides, padding, spec, average=True)


def _flatten_init(rng, input_shape):
    return (input_shape[0], math.prod(input_shape[1:])), ()


def _flatten_apply(params, inputs, **kwargs):
    return jnp.reshape(inputs, (inputs.shape[0], -1))


Flatten = (_flatten_init, _flatten_apply)
Identity = elementwise(lambda x: x)


def _fan_in_sum_init(rng, input_shape):
    return input_shape[0], ()


def _fan_in_sum_apply(params, inputs, **kwargs):
    return sum(inputs[1:], inputs[0])


FanInSum = (_fan_in_sum_init, _fan_in_sum_apply)


def FanOut(num: int):
    """A layer whose output is `num` copies of its input (a list), for `parallel` branches.

    >>> from jaxwg.example_libraries.stax import FanOut
    >>> from jaxwg import random
    >>> init_fun, apply_fun = FanOut(2)
    >>> init_fun(random.PRNGKey(0), (3,))
    ([(3,), (3,)], ())
    """
    def init_fun(rng, input_shape):
        return [input_shape] * num, ()

    def apply_fun(params, inputs, **kwargs):
        return [inputs] * num
    return init_fun, apply_fun


def FanInConcat(axis=-1):
    """A layer joining a list of inputs by concatenating them along `axis`.

    >>> from jaxwg.example_libraries.stax import FanInConcat
    >>> import jaxwg.numpy as jnp
    >>> from jaxwg import random
    >>> init_fun, apply_fun = FanInConcat()
    >>> init_fun(random.PRNGKey(0), [(2, 3), (2, 1)])[0]
    (2, 4)
    >>> apply_fun((), [jnp.zeros((2, 3)), jnp.ones((2, 1))]).shape
    (2, 4)
    """
    def init_fun(rng, input_shape):
        first = tuple(input_shape[0])
        ax = axis % len(first)
        return first[:ax] + (sum(shape[ax] for shape in input_shape),) + first[ax + 1:], ()

    def apply_fun(params, inputs, **kwargs):
        return jnp.concatenate(inputs, axis)
    return init_fun, apply_fun


def Dropout(rate, mode="train"):
    """Dropout as JAX's stax has it: in "train" mode each input is *kept* with
    probability `rate` (not dropped: JAX's convention) and divided by `rate`;
    `apply_fun` then needs `rng=key`. In any other mode it is the identity.

    >>> from jaxwg.example_libraries.stax import Dropout
    >>> import jaxwg.numpy as jnp
    >>> from jaxwg import random
    >>> init_fun, apply_fun = Dropout(0.5)
    >>> sorted(set(apply_fun((), jnp.ones(100), rng=random.PRNGKey(0)).tolist()))
    [0.0, 2.0]
    >>> Dropout(0.5, mode="test")[1]((), jnp.ones(2)).tolist()
    [1.0, 1.0]
    """
    def init_fun(rng, input_shape):
        return input_shape, ()

    def apply_fun(params, inputs, **kwargs):
        if mode != "train":
            return inputs
        rng = kwargs.get("rng")
        if rng is None:
            raise ValueError("Dropout layer requires apply_fun to be called with a PRNG key "
                             "argument. That is, instead of `apply_fun(params, inputs)`, call "
                             "it like `apply_fun(params, inputs, rng)` where `rng` is a PRNG "
                             "key (e.g. from `jaxwg.random.PRNGKey`).")
        keep = random.bernoulli(rng, rate, inputs.shape)
        return jnp.where(keep, inputs / rate, 0)
    return init_fun, apply_fun


def _layer_keys(rng, count: int) -> list:
    """One key per layer from `rng` (the same split as JAX's), or Nones without one."""
    return list(random.split(rng, count)) if rng is not None else [None] * count


def serial(*layers):
    """The layers one after another: each layer's output is the next one's input.
    `init_fun` gives each layer a key split from the last; `apply_fun(..., rng=key)`
    splits `key` into one per layer.

    >>> from jaxwg.example_libraries.stax import Dense, Tanh, serial
    >>> import jaxwg.numpy as jnp
    >>> from jaxwg import random
    >>> init_fun, apply_fun = serial(Dense(2), Tanh, Dense(1))
    >>> out_shape, params = init_fun(random.PRNGKey(0), (4, 3))
    >>> out_shape, len(params), apply_fun(params, jnp.ones((4, 3))).shape
    ((4, 1), 3, (4, 1))
    """
    init_funs, apply_funs = zip(*layers)

    def init_fun(rng, input_shape):
        params = []
        for layer_init in init_funs:
            rng, layer_rng = random.split(rng)
            input_shape, layer_params = layer_init(layer_rng, input_shape)
            params.append(layer_params)
        return input_shape, params

    def apply_fun(params, inputs, **kwargs):
        rngs = _layer_keys(kwargs.pop("rng", None), len(layers))
        for layer_apply, layer_params, rng in zip(apply_funs, params, rngs):
            inputs = layer_apply(layer_params, inputs, rng=rng, **kwargs)
        return inputs
    return init_fun, apply_fun


def parallel(*layers):
    """The layers side by side: the input is a sequence with one entry per layer, and
    so is the output (use with `FanOut` and `FanInSum`/`FanInConcat`).

    >>> from jaxwg.example_libraries.stax import Dense, FanInConcat, FanOut, Identity, parallel, serial
    >>> import jaxwg.numpy as jnp
    >>> from jaxwg import random
    >>> init_fun, apply_fun = serial(FanOut(2), parallel(Dense(3), Identity), FanInConcat())
    >>> out_shape, params = init_fun(random.PRNGKey(0), (1, 2))
    >>> out_shape, apply_fun(params, jnp.ones((1, 2))).shape
    ((1, 5), (1, 5))
    """
    init_funs, apply_funs = zip(*layers)

    def init_fun(rng, input_shape):
        rngs = random.split(rng, len(layers))
        results = [init(key, shape) for init, key, shape in zip(init_funs, rngs, input_shape)]
        return tuple(shape for shape, _ in results), tuple(params for _, params in results)

    def apply_fun(params, inputs, **kwargs):
        rngs = _layer_keys(kwargs.pop("rng", None), len(layers))
        return [f(p, x, rng=r, **kwargs) for f, p, x, r in zip(apply_funs, params, inputs, rngs)]
    return init_fun, apply_fun


def shape_dependent(make_layer: Callable):
    """A layer built by `make_layer(input_shape)` once the input's shape is known.

    >>> from jaxwg.example_libraries.stax import Dense, shape_dependent
    >>> import jaxwg.numpy as jnp
    >>> from jaxwg import random
    >>> init_fun, apply_fun = shape_dependent(lambda shape: Dense(shape[-1] * 2))
    >>> out_shape, params = init_fun(random.PRNGKey(0), (1, 3))
    >>> out_shape, apply_fun(params, jnp.ones((1, 3))).shape
    ((1, 6), (1, 6))
    """
    def init_fun(rng, input_shape):
        return make_layer(input_shape)[0](rng, input_shape)

    def apply_fun(params, inputs, **kwargs):
        return make_layer(inputs.shape)[1](params, inputs, **kwargs)
    return init_fun, apply_fun
