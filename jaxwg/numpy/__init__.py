"""`jaxwg.numpy`: the NumPy API on jaxwg arrays, with JAX's semantics.

>>> import jaxwg.numpy as jnp
>>> jnp.sum(jnp.exp(jnp.zeros(3)) * 2 + 1)
Array(9., dtype=float32)
"""

import numpy as _np

from ..frontend.array import ArrayImpl as _ArrayImpl
from ..frontend.basearray import Array as ndarray
from ..frontend.trace import Tracer as _Tracer
from . import array_methods as _array_methods
from .creation import *  # noqa: F403
from .array_api import *  # noqa: F403
from .dtypes import *  # noqa: F403
from .histograms import *  # noqa: F403
from .indexing import *  # noqa: F403
from .index_tricks import *  # noqa: F403
from .io import *  # noqa: F403
from .joining import *  # noqa: F403
from .padding import *  # noqa: F403
from .polynomials import *  # noqa: F403
from .products import *  # noqa: F403
from .reductions import (all, amax, amin, any, argmax, argmin, count_nonzero, cumprod, cumsum,
                         cumulative_prod, cumulative_sum, max, mean, min, nancumprod, nancumsum,
                         nanmax, nanmean, nanmin, nanprod, nanstd, nansum, nanvar, prod, ptp, std,
                         sum, var)
from .selection import *  # noqa: F403
from .setops import *  # noqa: F403
from .manipulation import *  # noqa: F403
from .signal import *  # noqa: F403
from .sorting import *  # noqa: F403
from .more_math import *  # noqa: F403
from .statistics import *  # noqa: F403
from .structure import *  # noqa: F403
from .vectorization import *  # noqa: F403
from .ufunc_class import *  # noqa: F403
from .ufuncs import (abs, absolute, acos, acosh, add, arccos, arccosh, arcsin, arcsinh, arctan,
                     arctan2, arctanh, around, asin, asinh, atan, atan2, atanh, bitwise_and,
                     bitwise_invert, bitwise_left_shift, bitwise_not, bitwise_or,
                     bitwise_right_shift, bitwise_xor, cbrt, ceil, clip, cos, cosh, divide,
                     divmod, equal, exp, exp2, expm1, fix, floor, floor_divide, fmax, fmin, fmod,
                     greater, greater_equal, heaviside, invert, isfinite, isinf, isnan,
                     left_shift, less, less_equal, log, log1p, log2, log10, logical_and,
                     logical_not, logical_or, logical_xor, maximum, minimum, mod, multiply,
                     negative, not_equal, positive, pow, power, reciprocal, remainder,
                     right_shift, rint, round, sign, signbit, sin, sinh, sqrt, square, subtract,
                     tan, tanh, true_divide, trunc, where)

pi = _np.pi
e = _np.e
inf = _np.inf
nan = _np.nan
euler_gamma = _np.euler_gamma
newaxis = None

# Arrays and tracers get their operators and methods here, not in core: they call the
# functions above, and core must not import jaxwg.numpy.
_array_methods.attach(ndarray)
_array_methods.attach(_ArrayImpl)
_array_methods.attach(_Tracer)

from . import fft, linalg  # noqa: E402  (use the functions above)
from .. import errors as _errors

# A name JAX has and jaxwg lacks says it is not implemented yet (jaxwg.errors).
__getattr__ = _errors.module_getattr(__name__)
__dir__ = _errors.module_dir(__name__)  # the public names only, as JAX's
