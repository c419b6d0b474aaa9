"""jaxwg: JAX for WebGPU.

`jaxwg.numpy` and `jaxwg.lax` build programs from primitives; `jit` and
`make_jaxpr` trace them; eager code runs lazily and fuses (see `jaxwg.core`).
Pytrees are in `jaxwg.tree_util` and `jaxwg.tree`, options in `jaxwg.config`.

>>> import jaxwg, jaxwg.numpy as jnp
>>> jaxwg.jit(lambda x: x * 2)(jnp.arange(3))
Array([0, 2, 4], dtype=int32)
"""

# jaxwg.numpy attaches the operators and methods of Array and of tracers when imported.
from . import dtypes, lax, nn, numpy, random, scipy, tree, tree_util
from . import ad_checkpoint, custom_derivatives, debug, profiler
from . import image, ops, typing
from .config import config
from .placement import (
                      block_until_ready,
                      default_device_state as default_device,
                      process_count,
                      process_index,
                      clear_backends,
                      device_get,
                      default_backend,
                      device_count,
                      device_put,
                      devices,
                      live_arrays,
                      local_devices,
)
from .environment import print_environment_info
from .frontend.basearray import Array
from .frontend.device import Device
from .frontend.jaxpr import make_jaxpr
from .frontend.shape_eval import ShapeDtypeStruct, eval_shape
from .frontend.jit import disable_jit, jit
from .transforms import ad_rules as _ad_rules  # noqa: F401  (fills the JVP and transpose tables)
from .transforms import batch_rules as _batch_rules  # noqa: F401  (fills the batching table)
from .transforms import control_flow_rules as _control_flow_rules  # noqa: F401
from .transforms.ad import jvp
from .transforms.batching import vmap
from .transforms.checkpoint import checkpoint, checkpoint_policies, remat
from .transforms.custom import closure_convert, custom_jvp, custom_vjp
from .transforms.jacobians import hessian, jacfwd, jacobian, jacrev
from .transforms.reverse import grad, linearize, value_and_grad, vjp
from .transforms.ad import float0
from .transforms.pmap import pmap
from .transforms.api_extras import (clear_caches, ensure_compile_time_eval, local_device_count,
                                    named_call, named_scope, typeof)
from .transforms.derivatives import custom_gradient, linear_transpose
from .transforms.callback import pure_callback
from .transforms import solves as _solves  # noqa: F401  (lax.custom_linear_solve, lax.custom_root)
from .config import (debug_infs, debug_key_reuse, debug_nans, default_matmul_precision,
                     default_prng_impl, enable_checks, enable_x64, log_compiles,
                     numpy_dtype_promotion, numpy_rank_promotion)

__version__ = "0.1.0"

__all__ = ["Array", "Device", "ShapeDtypeStruct", "ad_checkpoint", "custom_derivatives", "profiler",
           "block_until_ready",
           "checkpoint", "checkpoint_policies", "clear_backends", "closure_convert", "config",
           "custom_jvp", "custom_vjp", "debug", "image", "default_backend", "device_count", "device_get",
           "device_put", "devices", "dtypes", "disable_jit", "eval_shape", "grad", "hessian", "jacfwd",
           "jacobian", "jacrev", "jit", "jvp", "lax", "linearize", "live_arrays", "local_devices",
           "make_jaxpr", "nn", "numpy", "print_environment_info", "random", "remat", "scipy", "tree",
           "tree_util", "value_and_grad", "vjp", "vmap"] + [
           "clear_caches", "custom_gradient", "debug_infs", "debug_key_reuse", "debug_nans",
           "default_matmul_precision",
           "default_prng_impl", "enable_checks", "enable_x64", "ensure_compile_time_eval", "float0",
           "linear_transpose", "local_device_count", "log_compiles", "named_call", "named_scope", "pmap",
           "numpy_dtype_promotion", "numpy_rank_promotion", "pure_callback", "typeof"] + [
           "default_device", "ops", "process_count", "process_index", "typing"]

import sys as _sys

from . import errors as _errors

# `import jaxwg.x` of a module JAX has and jaxwg lacks says it is not implemented yet.
if not any(isinstance(f, _errors.MissingModuleFinder) for f in _sys.meta_path):
    _sys.meta_path.append(_errors.MissingModuleFinder())

# A name JAX has and jaxwg lacks says it is not implemented yet (jaxwg.errors).
__getattr__ = _errors.module_getattr(__name__)
__dir__ = _errors.module_dir(__name__)  # the public names only, as JAX's
