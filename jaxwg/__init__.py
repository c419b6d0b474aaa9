"""jaxwg: JAX for WebGPU.

The kernel IR lives in `jaxwg.core`, the backends in `jaxwg.backend`.
"""

__version__ = "0.1.0"
