"""Sets: the `unique` family, `isin`, `intersect1d`, `union1d`, `setdiff1d`, `setxor1d`
(sorting on the device; `size=` for use under jit).
"""

__all__ = []
