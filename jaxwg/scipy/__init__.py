"""`jaxwg.scipy`: the parts of `jax.scipy` jaxwg has (`special`).

>>> from jaxwg.scipy import special
>>> special.expit(0.0).item()
0.5
"""

from . import cluster, interpolate, ndimage
from . import fft, integrate, signal
from . import linalg
from . import sparse
from . import special
from . import stats

__all__ = ["cluster", "interpolate", "ndimage", "linalg", "sparse", "special", "stats", "fft", "integrate", "signal"]
