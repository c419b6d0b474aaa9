"""`jaxwg.image`: image resampling as `jax.image`: `resize` and `scale_and_translate`
with the `ResizeMethod` kernels (nearest, linear, Keys cubic, PyTorch's cubic, Lanczos 3
and 5, area), antialiased when downsampling as JAX's.

Each resampled axis is a (input size, output size) weight matrix, computed from the
kernel at the distance between every input pixel centre and the sample point of every
output pixel, and contracted with the image by one `einsum`.

>>> import jaxwg.numpy as jnp
>>> from jaxwg import image
>>> image.resize(jnp.array([0.0, 4.0]), (4,), "linear").tolist()
[0.0, 1.0, 3.0, 4.0]
"""

from __future__ import annotations

import enum
import operator

import numpy as np

from . import lax
from . import numpy as jnp
from .frontend.array import aval_of
from .numpy._util import canonicalize_axis, check_arraylike, inexact_operands, result_dtype

__all__ = ["ResizeMethod", "resize", "scale_and_translate"]


class ResizeMethod(enum.Enum):
    """The resampling kernels of `resize` and `scale_and_translate`, as JAX's.

    >>> from jaxwg.image import ResizeMethod
    >>> ResizeMethod.from_string("bilinear")
    <ResizeMethod.LINEAR: 1>
    """

    NEAREST = 0
    LINEAR = 1
    LANCZOS3 = 2
    LANCZOS5 = 3
    CUBIC = 4
    CUBIC_PYTORCH = 5
    AREA = 6

    @staticmethod
    def from_string(s: str):
        """The method a name stands for (JAX's names and aliases).

        >>> ResizeMethod.from_string("lanczos3")
        <ResizeMethod.LANCZOS3: 2>
        """
        for method, names in _NAMES.items():
            if s in names:
                return method
        raise ValueError(f'Unknown resize method "{s}"')


_NAMES = {
    ResizeMethod.NEAREST: ("nearest",),
    ResizeMethod.LINEAR: ("linear", "bilinear", "trilinear", "triangle"),
    ResizeMethod.LANCZOS3: ("lanczos3",),
    ResizeMethod.LANCZOS5: ("lanczos5",),
    ResizeMethod.CUBIC: ("cubic", "bicubic", "tricubic"),
    ResizeMethod.CUBIC_PYTORCH: ("cubic-pytorch", "bicubic-pytorch"),
    ResizeMethod.AREA: ("area",),
}


def _lanczos(radius: float):
    def kernel(x):
        y = radius * jnp.sin(np.pi * x) * jnp.sin(np.pi * x / radius)
        # y / (pi x)^2, 1 near 0 (the limit)
        out = jnp.where(x > 1e-3, y / jnp.where(x != 0, np.pi ** 2 * x ** 2, 1), 1)
        return jnp.where(x > radius, 0.0, out)

    return kernel


def _cubic(a: float):
    """The cubic convolution kernel with parameter `a` (R. G. Keys, 1981): a = -0.5 is
    Keys' (Pillow, TensorFlow), a = -0.75 OpenCV's and PyTorch's without antialiasing."""
    def kernel(x):
        out = ((a + 2.0) * x - (a + 3.0)) * x * x + 1.0
        out = jnp.where(x >= 1.0, ((a * x - 5.0 * a) * x + 8.0 * a) * x - 4.0 * a, out)
        return jnp.where(x >= 2.0, 0.0, out)

    return kernel


def _triangle(x):
    return jnp.maximum(0, 1 - jnp.abs(x))


_AREA = object()  # the overlap of pixel intervals, not a function of distance

# method -> (radius, kernel)
_KERNELS = {
    ResizeMethod.LINEAR: (1, _triangle),
    ResizeMethod.LANCZOS3: (3, _lanczos(3.0)),
    ResizeMethod.LANCZOS5: (5, _lanczos(5.0)),
    ResizeMethod.CUBIC: (2, _cubic(-0.5)),
    ResizeMethod.CUBIC_PYTORCH: (2, _cubic(-0.75)),
    ResizeMethod.AREA: (1, _AREA),
}


def _normalized(weights):
    """`weights` divided by their sums over input pixels; zero where a sum is about 0."""
    axis_sums = jnp.sum(weights, axis=0, keepdims=True)
    return jnp.where(jnp.abs(axis_sums) > 1000.0 * float(np.finfo(np.float32).eps),
                     weights / jnp.where(axis_sums != 0, axis_sums, 1), 0)


def _weight_matrix(input_size: int, output_size: int, scale, translation, dtype, kernel,
                   antialias: bool, edge_padding: bool, radius: int):
    """The (input_size, output_size) weights of one axis: output pixel i samples the input
    at (i + 0.5 - translation) / scale - 0.5 (pixel centres at half-integers)."""
    inv_scale = 1.0 / scale
    # Downsampling widens the kernel (a low-pass filter) when antialiasing.
    kernel_scale = jnp.maximum(inv_scale, 1.0) if antialias else 1.0
    outputs = jnp.arange(output_size, dtype=dtype)
    sample = (outputs + 0.5) * inv_scale - translation * inv_scale - 0.5
    # With edge padding, `radius` pixels past each edge repeat the edge pixel.
    pad = radius if edge_padding else 0
    inputs = jnp.arange(-pad, input_size + pad, dtype=dtype)
    if kernel is _AREA:
        # the overlap of output pixel [left, left + inv_scale) with input pixel [j, j + 1)
        left = outputs * inv_scale - translation * inv_scale
        weights = jnp.maximum(0.0, jnp.minimum(left + inv_scale, inputs[:, None] + 1.0)
                              - jnp.maximum(left, inputs[:, None]))
    else:
        weights = kernel(jnp.abs(sample - inputs[:, None]) / kernel_scale)
    if edge_padding:
        # the weights of the pixels past an edge go to the edge pixel
        edges = jnp.clip(inputs.astype(np.int32), 0, input_size - 1)
        return _normalized(jnp.zeros((input_size, output_size), dtype).at[edges].add(weights))
    weights = _normalized(weights)
    # No weight where the sample point lies outside the input.
    inside = (sample >= -0.5) & (sample <= input_size - 0.5)
    return jnp.where(inside, weights, 0)


def _method(method) -> ResizeMethod:
    return ResizeMethod.from_string(method) if isinstance(method, str) else method


def _check_shape(image, shape) -> tuple[int, ...]:
    shape = tuple(operator.index(n) for n in shape)
    if len(shape) != image.ndim:
        raise ValueError("shape must have length equal to the number of dimensions of x; "
                         f" {shape} vs {image.shape}")
    return shape


def _resample(image, shape, spatial_dims, scales, translations, method: ResizeMethod,
              antialias: bool, precision, dtype):
    """`image` (inexact) resampled along `spatial_dims` by the kernel of `method`."""
    if not spatial_dims:
        return image
    if method == ResizeMethod.CUBIC_PYTORCH and antialias:
        method = ResizeMethod.CUBIC
    radius, kernel = _KERNELS[method]
    edge_padding = method == ResizeMethod.CUBIC_PYTORCH and not antialias
    operands = []
    out_axes = list(range(image.ndim))
    for i, d in enumerate(spatial_dims):
        d = canonicalize_axis(d, image.ndim)
        weights = _weight_matrix(image.shape[d], shape[d], scales[i], translations[i], dtype,
                                 kernel, antialias, edge_padding, radius)
        operands += [weights.astype(image.dtype), [d, image.ndim + i]]
        out_axes[d] = image.ndim + i
    return jnp.einsum(image, list(range(image.ndim)), *operands, out_axes,
                      precision=precision)


def scale_and_translate(image, shape, spatial_dims, scale, translation, method,
                        antialias: bool = True, precision=lax.Precision.HIGHEST):
    """`image` resampled to `shape`: along `spatial_dims`, an input point x maps to
    x * scale + translation (pixel centres at half-integers), with zeros where an output
    pixel samples outside the input, as `jax.image.scale_and_translate`. Nearest-neighbour
    is not supported (as in JAX).

    >>> from jaxwg.image import scale_and_translate
    >>> import jaxwg.numpy as jnp
    >>> scale_and_translate(jnp.array([0.0, 4.0]), (3,), (0,), jnp.array([1.0]),
    ...                     jnp.array([1.0]), "linear").tolist()
    [0.0, 0.0, 4.0]
    """
    check_arraylike("scale_and_translate", image, scale, translation)
    shape = _check_shape(image, shape)
    method = _method(method)
    if method == ResizeMethod.NEAREST:
        raise ValueError("Nearest neighbor resampling is not currently supported "
                         "for scale_and_translate.")
    image, = inexact_operands("scale_and_translate", image)
    scale, translation = inexact_operands("scale_and_translate", scale, translation)
    dtype = aval_of(scale).dtype.np
    spatial_dims = tuple(spatial_dims)
    return _resample(image, shape, spatial_dims, [scale[i] for i in range(len(spatial_dims))],
                     [translation[i] for i in range(len(spatial_dims))], method, antialias,
                     precision, dtype)


def _resize_nearest(image, shape):
    for d, (m, n) in enumerate(zip(image.shape, shape)):
        if m != n:
            # the input pixel whose interval holds each output pixel's centre (float32, as JAX)
            index = jnp.floor((jnp.arange(n, dtype=np.float32) + 0.5) * m / n).astype(np.int32)
            image = image[(slice(None),) * d + (index,)]
    return image


def resize(image, shape, method, antialias: bool = True, precision=lax.Precision.HIGHEST):
    """`image` resized to `shape` (every axis, batch and channel axes too: leave their
    sizes unchanged) with the `ResizeMethod` `method` or its name, as `jax.image.resize`.
    Nearest-neighbour keeps the dtype; the other methods give an inexact one.

    >>> from jaxwg.image import resize
    >>> import jaxwg.numpy as jnp
    >>> resize(jnp.array([[1, 2], [3, 4]]), (2, 4), "nearest").tolist()
    [[1, 1, 2, 2], [3, 3, 4, 4]]
    """
    check_arraylike("resize", image)
    image = jnp.asarray(image)
    shape = _check_shape(image, shape)
    method = _method(method)
    if method == ResizeMethod.NEAREST:
        return _resize_nearest(image, shape)
    image, = inexact_operands("resize", image)
    # Axes whose size stays are left alone (each kernel interpolates: identity in, out).
    spatial_dims = tuple(d for d in range(image.ndim) if image.shape[d] != shape[d])
    scales = [1.0 if shape[d] == 0 else shape[d] / image.shape[d] for d in spatial_dims]
    dtype = result_dtype(1.0)[0].np
    return _resample(image, shape, spatial_dims, scales, [0.0] * len(spatial_dims), method,
                     antialias, precision, dtype)
