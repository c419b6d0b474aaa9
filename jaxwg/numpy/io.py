"""Saving and loading arrays: `save`, `load`, `savez` (NumPy's `.npy`/`.npz` formats, through host memory).
"""

__all__ = []
