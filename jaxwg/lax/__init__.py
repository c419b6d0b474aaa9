"""`jaxwg.lax`: thin, strict wrappers that bind primitives, as `jax.lax`.

No NumPy conveniences here: operands of binary ops must have equal dtypes (a Python
scalar takes the other operand's dtype, weakly) and equal shapes (or rank 0), axes are
explicit. `jaxwg.numpy` does promotion and broadcasting on top.

>>> import jaxwg.numpy as jnp
>>> from jaxwg import lax
>>> lax.add(jnp.ones(2), 2.0)
Array([3., 3.], dtype=float32)
>>> lax.broadcast_in_dim(jnp.arange(2), (3, 2), (1,)).shape
(3, 2)
"""

from .convolution import (ConvDimensionNumbers, conv, conv_dimension_numbers, conv_general_dilated,
                          conv_transpose, conv_with_general_padding)
from .control_flow import associative_scan, cond, fori_loop, map, scan, switch, while_loop
from .cumulative import cumlogsumexp, cummax, cummin, cumprod, cumsum
from .slicing import (GatherDimensionNumbers, GatherScatterMode, ScatterDimensionNumbers, dynamic_index_in_dim,
                      dynamic_slice, dynamic_update_slice, gather, scatter, scatter_add, scatter_max,
                      scatter_min, scatter_mul, scatter_sub)
from .slicing import dynamic_slice_in_dim, dynamic_update_index_in_dim, dynamic_update_slice_in_dim, index_take
from .fft import FftType, fft
from .sorting import sort, sort_key_val, top_k
from .special import *  # noqa: F403
from .windows import padtype_to_pads, reduce, reduce_window
from . import linalg  # noqa: F401  (jaxwg.lax.linalg, as jax.lax.linalg)
from .special import __all__ as _special_all
from .lax import *
from .lax import __all__ as _lax_all

__all__ = _lax_all + _special_all + ["GatherDimensionNumbers", "GatherScatterMode", "ScatterDimensionNumbers",
                      "dynamic_update_slice", "scatter", "scatter_add", "scatter_max", "scatter_min",
                      "scatter_mul", "scatter_sub", "associative_scan", "cond",
                      "cumlogsumexp", "cummax", "cummin", "cumprod", "cumsum", "dynamic_index_in_dim",
                      "dynamic_slice", "fori_loop", "gather", "map", "scan", "sort", "sort_key_val", "switch",
                      "top_k", "while_loop", "padtype_to_pads", "reduce", "reduce_window",
                      "ConvDimensionNumbers", "conv", "conv_dimension_numbers", "conv_general_dilated",
                      "conv_transpose", "conv_with_general_padding", "FftType", "fft"] + [
                      "dynamic_slice_in_dim", "dynamic_update_index_in_dim", "dynamic_update_slice_in_dim", "index_take"]

from .. import errors as _errors

# A name JAX has and jaxwg lacks says it is not implemented yet (jaxwg.errors).
__getattr__ = _errors.module_getattr(__name__)
__dir__ = _errors.module_dir(__name__)  # the public names only, as JAX's
