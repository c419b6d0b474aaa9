"""Sequences: `convolve`, `correlate`, `interp`, `gradient`.
"""

__all__ = []
