"""Counting and binning: `bincount`, `histogram`, `histogram_bin_edges`, `digitize`.
"""

__all__ = []
