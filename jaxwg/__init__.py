"""jaxwg: JAX for WebGPU.

The kernel IR lives in `jaxwg.core`, the backends in `jaxwg.backend`; pytrees in
`jaxwg.tree_util` and `jaxwg.tree`; options in `jaxwg.config`.
"""

from . import tree, tree_util
from .config import config

__version__ = "0.1.0"
