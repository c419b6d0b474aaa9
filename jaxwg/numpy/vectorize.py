"""Functions over axes: `vectorize`, `apply_along_axis`, `apply_over_axes` (through `vmap`).
"""

__all__ = []
