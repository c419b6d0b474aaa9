"""Selecting elements by index or condition: `take`, `take_along_axis`, `put_along_axis`,
`nonzero`, `argwhere`, `compress`, `extract`, `select`, `choose` (through `lax.gather`
and `lax.scatter`).
"""

__all__ = []
