"""Convolutions: `conv_general_dilated` and its wrappers (`conv`,
`conv_with_general_padding`, `conv_transpose`), as `jax.lax` defines them.

A convolution is one matrix product: the input's windows (`lax/windows.py`, a view of
the padded, dilated input with the window axes last) contract with the kernel over
(window position, input feature), with the feature or batch groups as a batch axis of
`dot_general`. The backend's matmul routine runs it, reading the windows through the
view's index expression, so no window copy is made. Gradients and batching come from
the pieces' rules.

>>> import jaxwg.numpy as jnp
>>> from jaxwg import lax
>>> lax.conv(jnp.ones((1, 1, 4, 4)), jnp.ones((1, 1, 3, 3)), (1, 1), "VALID").tolist()
[[[[9.0, 9.0], [9.0, 9.0]]]]
"""

from __future__ import annotations

import operator
from typing import NamedTuple

from ..frontend import aval as avals
from ..frontend.array import aval_of
from . import lax
from .windows import padtype_to_pads, positive_ints, windows

__all__ = ["ConvDimensionNumbers", "conv", "conv_dimension_numbers", "conv_general_dilated",
           "conv_transpose", "conv_with_general_padding"]


class ConvDimensionNumbers(NamedTuple):
    """The axes of a convolution's operands and result: `(batch, feature, spatial...)`
    for `lhs_spec` and `out_spec`, `(out feature, in feature, spatial...)` for
    `rhs_spec`, as `jax.lax.ConvDimensionNumbers`.

    >>> from jaxwg.lax import ConvDimensionNumbers
    >>> ConvDimensionNumbers((0, 3, 1, 2), (3, 2, 0, 1), (0, 3, 1, 2)).rhs_spec
    (3, 2, 0, 1)
    """

    lhs_spec: tuple
    rhs_spec: tuple
    out_spec: tuple


def _spec_permutation(spec: str, pair: str, rhs_spec: str) -> tuple[int, ...]:
    """The axes of one operand in the order (pair[0], pair[1], spatial...), spatial axes
    ordered as they appear in the kernel's spec."""
    spatial = [i for i, c in enumerate(spec) if c not in pair]
    if spec is not rhs_spec:
        spatial.sort(key=lambda i: rhs_spec.index(spec[i]))
    return (spec.index(pair[0]), spec.index(pair[1])) + tuple(spatial)


def _string_specs(specs) -> ConvDimensionNumbers:
    pairs = ("NC", "OI", "NC")
    for i, (spec, pair) in enumerate(zip(specs, pairs)):
        if not spec.count(pair[0]) == spec.count(pair[1]) == 1:
            raise TypeError(f"convolution dimension_numbers[{i}] must contain the characters "
                            f"'{pair[0]}' and '{pair[1]}' exactly once, got {spec}.")
        if len(spec) != len(set(spec)):
            raise TypeError(f"convolution dimension_numbers[{i}] cannot have duplicate "
                            f"characters, got {spec}.")
    lhs, rhs, out = specs
    if not set(lhs) - set("NC") == set(rhs) - set("OI") == set(out) - set("NC"):
        raise TypeError("convolution dimension_numbers elements must each have the same set "
                        f"of spatial characters, got {tuple(specs)}.")
    return ConvDimensionNumbers(*(_spec_permutation(s, p, rhs) for s, p in zip(specs, pairs)))


def conv_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers) -> ConvDimensionNumbers:
    """`dimension_numbers` (None, three spec strings such as `("NHWC", "HWIO", "NHWC")`,
    or a `ConvDimensionNumbers`) as a `ConvDimensionNumbers`.

    >>> from jaxwg import lax
    >>> lax.conv_dimension_numbers((1, 5, 5, 3), (3, 3, 3, 8), ("NHWC", "HWIO", "NHWC"))
    ConvDimensionNumbers(lhs_spec=(0, 3, 1, 2), rhs_spec=(3, 2, 0, 1), out_spec=(0, 3, 1, 2))
    """
    if isinstance(dimension_numbers, ConvDimensionNumbers):
        return dimension_numbers
    if len(lhs_shape) != len(rhs_shape):
        raise TypeError("convolution requires lhs and rhs ndim to be equal, got "
                        f"{len(lhs_shape)} and {len(rhs_shape)}.")
    if dimension_numbers is None:
        identity = tuple(range(len(lhs_shape)))
        return ConvDimensionNumbers(identity, identity, identity)
    if not isinstance(dimension_numbers, (list, tuple)):
        raise TypeError("convolution dimension_numbers must be tuple/list or None, got "
                        f"{type(dimension_numbers)}.")
    if len(dimension_numbers) != 3:
        raise TypeError("convolution dimension_numbers list/tuple must be length 3, got "
                        f"{len(dimension_numbers)}.")
    if not all(isinstance(s, str) for s in dimension_numbers):
        raise TypeError("convolution dimension_numbers elements must be strings, got "
                        f"{tuple(map(type, dimension_numbers))}.")
    for i, spec in enumerate(dimension_numbers):
        if len(spec) != len(lhs_shape):
            raise TypeError(f"convolution dimension_numbers[{i}] must have len equal to the "
                            f"ndim of lhs and rhs, got {len(spec)} for lhs and rhs shapes "
                            f"{tuple(lhs_shape)} and {tuple(rhs_shape)}.")
    return _string_specs(dimension_numbers)


def _check_groups(lhs, rhs, dn, feature_groups: int, batch_groups: int) -> None:
    """JAX's shape errors for the feature and batch groups."""
    name = "conv_general_dilated"
    features, in_features = lhs[dn.lhs_spec[1]], rhs[dn.rhs_spec[1]]
    out_features, batch = rhs[dn.rhs_spec[0]], lhs[dn.lhs_spec[0]]
    if feature_groups < 1:
        raise ValueError(f"{name} feature_group_count must be a positive integer, got "
                         f"{feature_groups}.")
    if features % feature_groups:
        raise ValueError(f"{name} feature_group_count must divide lhs feature dimension "
                         f"size, but {feature_groups} does not divide {features}.")
    if features // feature_groups != in_features:
        raise ValueError(f"{name} lhs feature dimension size divided by feature_group_count "
                         "must equal the rhs input feature dimension size, but "
                         f"{features} // {feature_groups} != {in_features}.")
    if batch_groups < 1:
        raise ValueError(f"{name} batch_group_count must be a positive integer, got "
                         f"{batch_groups}.")
    if batch_groups > 1 and batch % batch_groups:
        raise ValueError(f"{name} batch_group_count must divide lhs batch dimension size, "
                         f"but {batch_groups} does not divide {batch}.")
    for groups, what in ((feature_groups, "feature_group_count"),
                         (batch_groups, "batch_group_count")):
        if out_features % groups:
            raise ValueError(f"{name} rhs output feature dimension size must be a multiple "
                             f"of {what}, but {out_features} is not a multiple of {groups}.")
    if batch_groups > 1 and feature_groups > 1:
        raise ValueError("At most one of batch_group_count and feature_group_count may be "
                         f"> 1, got batch_group_count={batch_groups} and "
                         f"feature_group_count={feature_groups}")


def _explicit_padding(padding, lhs_spatial, window, strides, lhs_dilation):
    if isinstance(padding, str):
        if any(d != 1 for d in lhs_dilation):
            raise ValueError("String padding is not implemented for transposed convolution "
                             "using this op. Please either exactly specify the required "
                             "padding or use conv_transpose.")
        return tuple(padtype_to_pads(lhs_spatial, window, strides, padding))
    try:
        pads = tuple((operator.index(lo), operator.index(hi)) for lo, hi in padding)
    except (ValueError, TypeError) as e:
        raise ValueError("padding argument to conv_general_dilated should be a string or a "
                         f"sequence of (low, high) pairs, got {padding}") from e
    if len(pads) != len(lhs_spatial):
        raise TypeError("Wrong number of explicit pads for convolution: expected "
                        f"{len(lhs_spatial)}, got {len(pads)}.")
    return pads


def conv_general_dilated(lhs, rhs, window_strides, padding, lhs_dilation=None,
                         rhs_dilation=None, dimension_numbers=None, feature_group_count=1,
                         batch_group_count=1, precision=None, preferred_element_type=None):
    """General n-dimensional convolution with strides, padding ("VALID", "SAME",
    "SAME_LOWER" or `(low, high)` pairs), input (`lhs_dilation`) and kernel
    (`rhs_dilation`) dilation, feature and batch groups, as `jax.lax.conv_general_dilated`.

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg import lax
    >>> x = jnp.arange(5.0).reshape(1, 1, 5)
    >>> lax.conv_general_dilated(x, jnp.ones((1, 1, 2)), (2,), [(1, 0)]).tolist()
    [[[0.0, 3.0, 7.0]]]
    """
    lhs_aval, rhs_aval = aval_of(lhs), aval_of(rhs)
    dn = conv_dimension_numbers(lhs_aval.shape, rhs_aval.shape, dimension_numbers)
    if lhs_aval.ndim != rhs_aval.ndim:
        raise ValueError("conv_general_dilated lhs and rhs must have the same number of "
                         f"dimensions, but got {lhs_aval.shape} and {rhs_aval.shape}.")
    if lhs_aval.dtype != rhs_aval.dtype:
        raise TypeError("lax.conv_general_dilated requires arguments to have the same dtypes, "
                        f"got {lhs_aval.dtype.name}, {rhs_aval.dtype.name}.")
    if lhs_aval.dtype.is_bool:
        raise TypeError("conv_general_dilated does not accept dtype bool")
    feature_groups = operator.index(feature_group_count)
    batch_groups = operator.index(batch_group_count)
    _check_groups(lhs_aval.shape, rhs_aval.shape, dn, feature_groups, batch_groups)
    nspatial = lhs_aval.ndim - 2
    strides = tuple(operator.index(s) for s in window_strides)
    if len(strides) != nspatial:
        raise ValueError("conv_general_dilated window and window_strides must have the same "
                         f"number of dimensions, but got {nspatial} and {len(strides)}")
    name = "conv_general_dilated"
    strides = positive_ints(name, "window_strides", strides, nspatial)
    lhs_dil = positive_ints(name, "lhs_dilation", lhs_dilation, nspatial)
    rhs_dil = positive_ints(name, "rhs_dilation", rhs_dilation, nspatial)
    lhs_spatial = tuple(lhs_aval.shape[a] for a in dn.lhs_spec[2:])
    window = tuple(rhs_aval.shape[a] for a in dn.rhs_spec[2:])
    spans = tuple(d * (k - 1) + 1 if k else 0 for k, d in zip(window, rhs_dil))
    pads = _explicit_padding(padding, lhs_spatial, spans, strides, lhs_dil)
    dilated = [(n - 1) * d + 1 if n else 0 for n, d in zip(lhs_spatial, lhs_dil)]
    if any(n + lo + hi < 0 for n, (lo, hi) in zip(dilated, pads)):
        raise ValueError("Negative padding is larger than the size of the corresponding "
                         f"dimension: got padding={list(pads)} for lhs_shape[2:]={lhs_spatial}")
    out_dtype = lhs_aval.dtype if preferred_element_type is None else \
        avals.canonical_dtype(preferred_element_type)

    # lhs as (batch, spatial..., feature), dilated and padded; its windows (batch,
    # out spatial..., feature, window...); the kernel as (window..., in, out).
    x = lax.transpose(lhs, (dn.lhs_spec[0],) + dn.lhs_spec[2:] + (dn.lhs_spec[1],))
    config = [(0, 0, 0)] + [(lo, hi, d - 1) for (lo, hi), d in zip(pads, lhs_dil)] + [(0, 0, 0)]
    x = lax.pad(x, lax.full((), 0, lhs_aval.dtype), config)
    spatial_axes = tuple(range(1, nspatial + 1))
    patches = windows(x, spatial_axes, window, strides, rhs_dil)
    kernel = lax.transpose(rhs, dn.rhs_spec[2:] + (dn.rhs_spec[1], dn.rhs_spec[0]))
    out = _grouped_product(patches, kernel, nspatial, feature_groups, batch_groups,
                           precision, out_dtype)
    # out: (batch, out spatial..., out feature) -> out_spec
    canonical = (0, nspatial + 1) + spatial_axes
    return lax.transpose(out, tuple(canonical[dn.out_spec.index(i)] for i in range(nspatial + 2)))


def _grouped_product(patches, kernel, nspatial, feature_groups, batch_groups, precision,
                     out_dtype):
    """sum over window and input feature of patches * kernel, group by group:
    patches (batch, out..., feature, window...), kernel (window..., in, out features)
    -> (batch, out..., out features)."""
    shape = aval_of(patches).shape
    batch, features = shape[0], shape[1 + nspatial]
    groups = max(feature_groups, batch_groups)
    # patches as (group, batch', out..., window..., feature'): the group splits the
    # batch (batch groups) or the features (feature groups), group-major as in XLA
    if batch_groups > 1:
        patches = lax.reshape(patches, (groups, batch // groups) + shape[1:])
    else:
        patches = lax.reshape(patches, shape[:1 + nspatial] + (groups, features // groups) +
                              shape[2 + nspatial:])
        patches = lax.transpose(patches, (1 + nspatial,) + tuple(range(1 + nspatial)) +
                                tuple(range(2 + nspatial, 3 + 2 * nspatial)))
    out_spatial = tuple(range(2, 2 + nspatial))
    window = tuple(range(3 + nspatial, 3 + 2 * nspatial))
    patches = lax.transpose(patches, (0, 1) + out_spatial + window + (2 + nspatial,))
    # kernel as (group, window..., in, out features')
    kshape = aval_of(kernel).shape
    out_features = kshape[-1]
    kernel = lax.reshape(kernel, kshape[:-1] + (groups, out_features // groups))
    kernel = lax.transpose(kernel, (nspatial + 1,) + tuple(range(nspatial + 1)) + (nspatial + 2,))
    contract = (tuple(range(2 + nspatial, 3 + 2 * nspatial)), tuple(range(1, nspatial + 2)))
    out = lax.dot_general(patches, kernel, (contract, ((0,), (0,))), precision=precision,
                          preferred_element_type=out_dtype)
    # (group, batch', out..., out features') -> (batch', out..., group * out features')
    rank = nspatial + 3
    out = lax.transpose(out, tuple(range(1, rank - 1)) + (0, rank - 1))
    return lax.reshape(out, aval_of(out).shape[:-2] + (out_features,))


def conv_with_general_padding(lhs, rhs, window_strides, padding, lhs_dilation, rhs_dilation,
                              precision=None, preferred_element_type=None):
    """`conv_general_dilated` with the default (NC..., OI..., NC...) layout.

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg import lax
    >>> lax.conv_with_general_padding(jnp.ones((1, 1, 3)), jnp.ones((1, 1, 2)), (1,),
    ...                               [(1, 1)], None, None).tolist()
    [[[1.0, 2.0, 2.0, 1.0]]]
    """
    return conv_general_dilated(lhs, rhs, window_strides, padding, lhs_dilation, rhs_dilation,
                                precision=precision,
                                preferred_element_type=preferred_element_type)


def conv(lhs, rhs, window_strides, padding, precision=None, preferred_element_type=None):
    """`conv_general_dilated` with the default (NC..., OI..., NC...) layout and no
    dilation.

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg import lax
    >>> lax.conv(jnp.ones((1, 1, 3)), jnp.ones((1, 1, 2)), (1,), "SAME").tolist()
    [[[2.0, 2.0, 1.0]]]
    """
    return conv_general_dilated(lhs, rhs, window_strides, padding, precision=precision,
                                preferred_element_type=preferred_element_type)


def _transpose_padding(k: int, s: int, padding) -> tuple[int, int]:
    """(low, high) padding of the dilated input that makes `conv_transpose` the gradient
    of a forward convolution with `padding` ("SAME", "VALID" or a pair)."""
    if padding == "SAME":
        total = k + s - 2
        low = k - 1 if s > k - 1 else -(-total // 2)
    elif padding == "VALID":
        total = k + s - 2 + max(k - s, 0)
        low = k - 1
    elif isinstance(padding, tuple):
        low, high = (k - p - 1 for p in padding)
        total = low + high
    else:
        raise ValueError(f"Invalid padding mode: {padding}")
    return low, total - low


_TRANSPOSE_DEFAULTS = {2: ("NC", "IO", "NC"), 3: ("NHC", "HIO", "NHC"),
                       4: ("NHWC", "HWIO", "NHWC"), 5: ("NHWDC", "HWDIO", "NHWDC")}


def conv_transpose(lhs, rhs, strides, padding, rhs_dilation=None, dimension_numbers=None,
                   transpose_kernel=False, precision=None, preferred_element_type=None,
                   use_consistent_padding=False):
    """Transposed convolution ("deconvolution"): the input dilated by `strides`, then
    convolved, as `jax.lax.conv_transpose` (channels-last layouts by default).

    >>> import jaxwg.numpy as jnp
    >>> from jaxwg import lax
    >>> lax.conv_transpose(jnp.ones((1, 2, 1)), jnp.ones((2, 1, 1)), (2,), "VALID").tolist()
    [[[1.0], [1.0], [1.0], [1.0]]]
    """
    ndim = aval_of(lhs).ndim
    if dimension_numbers is None:
        if ndim not in _TRANSPOSE_DEFAULTS:
            raise ValueError("No 4+ dimensional dimension_number defaults.")
        dimension_numbers = _TRANSPOSE_DEFAULTS[ndim]
    dn = conv_dimension_numbers(aval_of(lhs).shape, aval_of(rhs).shape, dimension_numbers)
    window = [aval_of(rhs).shape[a] for a in dn.rhs_spec[2:]]
    rhs_dilation = (1,) * (ndim - 2) if rhs_dilation is None else tuple(rhs_dilation)
    if use_consistent_padding or padding in ("SAME", "VALID"):
        spans = [d * (k - 1) + 1 for k, d in zip(window, rhs_dilation)]
        per_axis = [padding] * len(strides) if isinstance(padding, str) else padding
        padding = [_transpose_padding(k, s, p) for k, s, p in zip(spans, strides, per_axis)]
    if transpose_kernel:
        rhs = lax.rev(rhs, dn.rhs_spec[2:])
        perm = list(range(ndim))
        perm[dn.rhs_spec[0]], perm[dn.rhs_spec[1]] = dn.rhs_spec[1], dn.rhs_spec[0]
        rhs = lax.transpose(rhs, perm)
    return conv_general_dilated(lhs, rhs, (1,) * (ndim - 2), padding, strides, rhs_dilation,
                                dn, precision=precision,
                                preferred_element_type=preferred_element_type)

