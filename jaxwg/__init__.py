"""jaxwg: JAX for WebGPU.

The kernel IR lives in `jaxwg.core`, the backends in `jaxwg.backend`; pytrees in
`jaxwg.tree_util` and `jaxwg.tree`.
"""

from . import tree, tree_util

__version__ = "0.1.0"
