"""Python lists and tuples as array arguments, against JAX: where a `jax.numpy` function
raises its TypeError ("<name> requires ndarray or scalar arguments, got <class 'list'> at
position k."), ours raises it too, and where JAX takes a list (`array`, `concatenate`,
shapes, axes, repetitions, ...) ours gives JAX's result. JAX runs live in every case, so
a case JAX starts to accept must then work here too.

The rejecting cases are those a survey of every public function of `jax.numpy`,
`jax.numpy.linalg` and `jax.numpy.fft` found jaxwg accepting (a list in each array slot,
and in optional array arguments such as `where=`, `weights=`, `prepend=`, `sorter=`).
"""

import re

import numpy as np
import pytest

import jaxwg.numpy as jnp

from .helpers import jax_numpy

VEC = [1.0, 2.0]
MAT = [[1.0, 2.0], [3.0, 4.0]]
ARR = np.array([1.0, 2.0], np.float32)
ARR_MAT = np.array(MAT, np.float32)
MASK = [True, False]

# Functions of one array, given a list of two numbers.
_ONE_VECTOR = """all amax amin any argmax argmin argsort broadcast_arrays clip count_nonzero cumprod
    cumsum cumulative_prod cumulative_sum diag diagflat diff ediff1d flip flipud max mean median
    meshgrid min nan_to_num nancumprod nancumsum nanmax nanmean nanmedian nanmin nanprod nanstd
    nansum nanvar prod ptp ravel rint sort squeeze std sum transpose unstack vander var
    fft.fftshift fft.ifftshift fft.hfft""".split()
# Functions of one matrix, given a nested list.
_ONE_MATRIX = """fliplr matrix_transpose rot90 tril triu tril_indices_from triu_indices_from
    linalg.diagonal linalg.eigvalsh linalg.matrix_norm linalg.matrix_transpose linalg.svdvals
    linalg.trace""".split()

REJECTED = [(name, (VEC,), {}) for name in _ONE_VECTOR] + [
    (name, (MAT,), {}) for name in _ONE_MATRIX] + [
    ("append", (VEC, VEC), {}),
    ("append", (ARR, VEC), {}),
    ("argpartition", (VEC, 0), {}),
    ("array_split", (VEC, 2), {}),
    ("astype", (VEC, "float32"), {}),
    ("average", (ARR,), {"weights": VEC}),
    ("broadcast_to", (VEC, (2, 2)), {}),
    ("cross", ([1.0, 0.0, 0.0], [0.0, 1.0, 0.0]), {}),
    ("diff", (ARR,), {"prepend": VEC}),
    ("divmod", (VEC, VEC), {}),
    ("ediff1d", (ARR,), {"to_begin": VEC}),
    ("expand_dims", (VEC, 0), {}),
    ("full", ((2,), VEC), {}),
    ("full_like", (ARR, VEC), {}),
    ("kron", (VEC, ARR), {}),
    ("kron", (ARR, VEC), {}),
    ("linspace", (VEC, 2.0), {}),
    ("mean", (ARR,), {"where": MASK}),
    ("moveaxis", (MAT, 0, 1), {}),
    ("nanpercentile", (VEC, 50.0), {}),
    ("pad", (VEC, 1), {}),
    ("partition", (VEC, 0), {}),
    ("percentile", (VEC, 50.0), {}),
    ("percentile", (ARR, [50.0]), {}),
    ("permute_dims", (MAT, (1, 0)), {}),
    ("repeat", (VEC, 2), {}),
    ("repeat", (ARR, [1, 2]), {}),
    ("reshape", (VEC, (2, 1)), {}),
    ("roll", (VEC, 1), {}),
    ("searchsorted", (VEC, ARR), {}),
    ("searchsorted", (ARR, VEC), {}),
    ("searchsorted", (ARR, ARR), {"sorter": [0, 1]}),
    ("split", (VEC, 2), {}),
    ("sum", (ARR,), {"where": MASK}),
    ("any", (ARR,), {"where": MASK}),
    ("swapaxes", (MAT, 0, 1), {}),
    ("tile", (VEC, 2), {}),
    ("where", (MASK, 1.0, 2.0), {}),
    ("where", (ARR > 1, VEC, 0.0), {}),
    ("where", (MASK,), {}),
    ("linalg.cross", ([1.0, 0.0, 0.0], [0.0, 1.0, 0.0]), {}),
    ("linalg.matmul", (MAT, ARR_MAT), {}),
    ("linalg.multi_dot", ([MAT, ARR_MAT],), {}),
    ("linalg.outer", (VEC, ARR), {}),
    ("linalg.solve", (ARR_MAT, VEC), {}),
    ("linalg.tensordot", (VEC, ARR), {"axes": 1}),
    ("linalg.tensorinv", (MAT,), {"ind": 1}),
    ("linalg.tensorsolve", (MAT, ARR), {}),
]

# Lists where JAX takes them: as the data of `array`, as sequences of arrays, and as
# shapes, axes, widths, shifts and counts.
ACCEPTED = [
    ("array", (VEC,), {}),
    ("asarray", (MAT,), {}),
    ("concatenate", ([ARR, ARR],), {}),
    ("stack", ([ARR, ARR],), {}),
    ("hstack", ([ARR, ARR],), {}),
    ("vstack", ((ARR, ARR),), {}),
    ("column_stack", ([ARR, ARR],), {}),
    ("block", ([ARR_MAT, ARR_MAT],), {}),
    ("meshgrid", (ARR, ARR), {}),
    ("broadcast_to", (ARR, [3, 2]), {}),
    ("reshape", (ARR, [2, 1]), {}),
    ("transpose", (ARR_MAT, [1, 0]), {}),
    ("moveaxis", (ARR_MAT, [0], [1]), {}),
    ("sum", (ARR_MAT,), {"axis": (0, 1)}),
    ("tile", (ARR, [2, 1]), {}),
    ("pad", (ARR, [(1, 2)]), {}),
    ("roll", (ARR, [1], [0]), {}),
    ("split", (ARR, [1]), {}),
    ("einsum", ("ij->i", ARR_MAT), {}),
    ("isscalar", (VEC,), {}),
    ("linalg.multi_dot", ([ARR_MAT, ARR_MAT],), {}),
]

_MESSAGE = r"requires ndarray or scalar arguments, got <class 'list'> at position \d+\."


def _function(module, name):
    for part in name.split("."):
        module = getattr(module, part)
    return module


def _case_id(case):
    name, args, kwargs = case
    return f"{name}-{len(args)}-{'-'.join(kwargs)}"


def _leaves(value):
    if isinstance(value, (list, tuple)):
        return [leaf for v in value for leaf in _leaves(v)]
    return [value]


def _jax_outcome(name, args, kwargs):
    """JAX's TypeError for the call, or None where it takes it."""
    try:
        _function(jax_numpy, name)(*args, **kwargs)
    except TypeError as e:
        return e
    return None


@pytest.mark.parametrize("case", REJECTED, ids=_case_id)
def test_lists_rejected_where_jax_rejects_them(case):
    name, args, kwargs = case
    want = _jax_outcome(name, args, kwargs)
    if want is None:  # JAX took it: so must we
        _function(jnp, name)(*args, **kwargs)
        return
    assert re.search(_MESSAGE, str(want)), want
    with pytest.raises(TypeError, match=_MESSAGE) as got:
        _function(jnp, name)(*args, **kwargs)
    # JAX's message, where JAX names the function (not a helper it calls, as append's
    # ravel); jnp.linalg.matrix_transpose is jnp.matrix_transpose here.
    short = name.rsplit(".", 1)[-1]
    jax_message = str(want).removeprefix("jnp.linalg.")
    if jax_message.startswith(f"{short} "):
        assert str(got.value).removeprefix("jnp.linalg.") == jax_message


@pytest.mark.parametrize("case", ACCEPTED, ids=_case_id)
def test_lists_accepted_where_jax_accepts_them(case):
    name, args, kwargs = case
    assert _jax_outcome(name, args, kwargs) is None
    want = _leaves(_function(jax_numpy, name)(*args, **kwargs))
    got = _leaves(_function(jnp, name)(*args, **kwargs))
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(np.asarray(g), np.asarray(w))
