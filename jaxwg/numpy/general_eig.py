"""`jnp.linalg.eig` and `eigvals`: eigenproblems of general (non-Hermitian) matrices.

They run on the host, through `pure_callback`: the matrices are read back and LAPACK's
`geev` (NumPy's `linalg.eig`) computes in their precision, as JAX does on its CPU
backend (its GPU backends also run `geev` on the host for all but large matrices). The
results come back as arrays on the device: eigenvalues always complex (complex64 for
float32 and complex64 input, complex128 with x64), eigenvectors as unit-norm columns
with their largest component real, LAPACK's normalization: results equal JAX's to
rounding, except that a column may have the opposite sign (LAPACK builds differ). A matrix holding NaN or inf gives NaNs, as JAX's. Under `jit` the program
stops at this point to read the matrices back, as at any host callback.

Derivatives are JAX's: `eigvals` differentiates (dw = diag(V^-1 dA V)); `eig` raises
JAX's NotImplementedError, since eigenvectors of non-symmetric matrices have derivatives
only under assumptions that cannot be checked.

>>> import jaxwg.numpy as jnp
>>> jnp.linalg.eigvals(jnp.array([[0.0, -1.0], [1.0, 0.0]])).tolist()
[1j, -1j]
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .. import numpy as jnp  # imported by jaxwg.numpy.linalg, after the functions it uses
from ..frontend.aval import ShapedArray
from ..frontend.jit import jit
from ..transforms.callback import pure_callback
from ..transforms.custom import custom_jvp
from ._util import check_arraylike, promote

__all__ = ["EigResult", "eig", "eigvals"]


class EigResult(NamedTuple):
    eigenvalues: object
    eigenvectors: object


def _general_square(name: str, a):
    """`a` as a batch of square float or complex matrices, with JAX's errors."""
    check_arraylike(f"jnp.linalg.{name}", a)
    (a,) = promote(a, to_inexact=True)
    if a.ndim < 2:
        raise TypeError(f"Input 0 to eig must have rank at least 2, but got shape={a.shape}")
    if a.shape[-1] != a.shape[-2]:
        raise ValueError(f"The input to eig must be a square matrix. Got shape {a.shape}.")
    return a


def _lapack_eig(a: np.ndarray, complex_dtype: np.dtype):
    """NumPy's (LAPACK's) eigenvalues and right eigenvectors of each matrix of `a`; NaNs
    for a matrix that is not finite (where NumPy raises)."""
    w = np.full(a.shape[:-1], complex(np.nan, np.nan), complex_dtype)
    v = np.full(a.shape, complex(np.nan, np.nan), complex_dtype)
    finite = np.isfinite(a).all(axis=(-2, -1))
    if a.shape[-1] and finite.any():
        w[finite], v[finite] = np.linalg.eig(a[finite])
    return w, v


def _host_eig(a):
    """(w, v) of each matrix of `a`, computed on the host."""
    complex_dtype = np.result_type(np.dtype(a.dtype.name), np.complex64)
    shapes = (ShapedArray(a.shape[:-1], complex_dtype), ShapedArray(a.shape, complex_dtype))
    return pure_callback(lambda x: _lapack_eig(x, complex_dtype), shapes, a,
                         vmap_method="broadcast_all")


@custom_jvp
def _eigenvalues(a):
    return _host_eig(a)[0]


@_eigenvalues.defjvp
def _eigenvalues_jvp(primals, tangents):
    (a,), (da,) = primals, tangents
    w, v = _host_eig(a)
    # dw_j = (V^-1 dA V)_jj: the row j of V^-1 dA dotted with the column j of V
    return w, jnp.sum(jnp.linalg.solve(v, da.astype(v.dtype)) * jnp.matrix_transpose(v), axis=-1)


@custom_jvp
def _eig(a):
    return _host_eig(a)


@_eig.defjvp
def _eig_jvp(primals, tangents):
    raise NotImplementedError(
        "Derivatives of non-symmetric eigenvectors are only valid under assumptions on the "
        "input that JAX cannot check. See https://github.com/jax-ml/jax/issues/2748 for "
        "discussion.")


_jitted_eig = jit(_eig)
_jitted_eigenvalues = jit(_eigenvalues)


def eig(a):
    """Eigenvalues and right eigenvectors (columns of unit norm) of each square matrix in
    `a`, complex, computed on the host by LAPACK as JAX's; not differentiable (as JAX's).

    >>> import jaxwg.numpy as jnp
    >>> w, v = jnp.linalg.eig(jnp.array([[2.0, 0.0], [0.0, 3.0]]))
    >>> w.tolist(), v.tolist()
    ([(2+0j), (3+0j)], [[(1+0j), 0j], [0j, (1+0j)]])
    """
    return EigResult(*_jitted_eig(_general_square("eig", a)))


def eigvals(a):
    """The eigenvalues of each square matrix in `a`, complex (`eig`'s first result),
    differentiable as JAX's.

    >>> import jaxwg.numpy as jnp
    >>> jnp.linalg.eigvals(jnp.array([[1.0, 2.0], [0.0, 3.0]])).tolist()
    [(1+0j), (3+0j)]
    """
    return _jitted_eigenvalues(_general_square("eigvals", a))
