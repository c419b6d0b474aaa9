"""Fuzzing the public API: each function below is called with random arguments (arrays
of small random shapes and dtypes, Python scalars with out-of-range and special values,
axes and shapes that may not fit, random keyword arguments, and now and then a wrong
type in place of an argument). Whatever the arguments, a call returns or raises one of
the documented exception types; it neither hangs (every array is at most 3x3x3) nor
leaks device memory (the default device's live slots are the same before and after a
call whose result is dropped, or that raised; the call is made once before, to fill the
caches of compiled kernels).

The default run draws EXAMPLES = 8 examples for each of the 48 functions: 384 calls
(`HYPOTHESIS_PROFILE` does not change it; edit EXAMPLES to search longer).
"""

import gc

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import jaxwg
import jaxwg.numpy as jnp
from jaxwg import errors, lax, nn, random

EXAMPLES = 8  # a function
# What a bad argument may raise: Python's argument errors (JAX raises the same), an
# integer out of its dtype's range (OverflowError, as JAX), what jaxwg does not do yet,
# and jaxwg's errors (all subclasses of these).
DOCUMENTED = (TypeError, ValueError, IndexError, OverflowError, NotImplementedError,
              errors.JAXTypeError, errors.JAXIndexError)
# More, for one function, as NumPy and JAX raise them.
ALSO = {"jnp.arange": (ZeroDivisionError,)}  # a step of 0

DTYPES = [np.float32, np.int32, np.bool_, np.uint8, np.int16, np.float16]
SHAPES = hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=3)
INTS = st.sampled_from([-4, -1, 0, 1, 2, 3, 2**31, -2**40])


@st.composite
def arrays(draw):
    """A small NumPy array of a random dtype, as a jaxwg array or (sometimes) as it is."""
    value = draw(hnp.arrays(st.sampled_from(DTYPES), SHAPES))
    return value if draw(st.integers(0, 3)) == 0 else jnp.asarray(value)


ARRAY = arrays()
SCALAR = st.sampled_from([0, 2, -1, 0.5, -0.0, float("nan"), float("inf"), True, 2**31])
AXIS = st.one_of(st.none(), INTS, st.tuples(INTS), st.tuples(INTS, INTS))
SHAPE = st.one_of(st.lists(st.integers(-1, 3), max_size=3).map(tuple), INTS)
DTYPE = st.sampled_from([None, np.float32, np.int8, np.uint32, np.bool_, "float16", "nope", 3])
KEY = st.integers(0, 3).map(random.key)
ARRAYS = st.lists(ARRAY, max_size=3)
BOOL = st.booleans()
# A wrong argument, put in place of a random one.
JUNK = st.sampled_from([None, "a", object(), [[1], [2, 3]], 1j, (1.5,), {}])

# name: (function, its positional arguments, the keyword arguments it may get)
FUNCTIONS = {
    "jnp.sum": (jnp.sum, [ARRAY], {"axis": AXIS, "keepdims": BOOL, "dtype": DTYPE}),
    "jnp.mean": (jnp.mean, [ARRAY], {"axis": AXIS, "keepdims": BOOL}),
    "jnp.max": (jnp.max, [ARRAY], {"axis": AXIS, "initial": SCALAR}),
    "jnp.argmax": (jnp.argmax, [ARRAY], {"axis": AXIS, "keepdims": BOOL}),
    "jnp.cumsum": (jnp.cumsum, [ARRAY], {"axis": AXIS, "dtype": DTYPE}),
    "jnp.sort": (jnp.sort, [ARRAY], {"axis": AXIS, "descending": BOOL}),
    "jnp.argsort": (jnp.argsort, [ARRAY], {"axis": AXIS, "stable": BOOL}),
    "jnp.reshape": (jnp.reshape, [ARRAY, SHAPE], {"order": st.sampled_from(["C", "F", "K"])}),
    "jnp.transpose": (jnp.transpose, [ARRAY], {"axes": AXIS}),
    "jnp.concatenate": (jnp.concatenate, [ARRAYS], {"axis": AXIS, "dtype": DTYPE}),
    "jnp.stack": (jnp.stack, [ARRAYS], {"axis": AXIS}),
    "jnp.squeeze": (jnp.squeeze, [ARRAY], {"axis": AXIS}),
    "jnp.expand_dims": (jnp.expand_dims, [ARRAY, AXIS], {}),
    "jnp.take": (jnp.take, [ARRAY, ARRAY], {"axis": AXIS, "mode": st.sampled_from(
        [None, "clip", "wrap", "fill", "raise", "bad"])}),
    "jnp.where": (jnp.where, [ARRAY, ARRAY, ARRAY], {}),
    "jnp.clip": (jnp.clip, [ARRAY, SCALAR, SCALAR], {}),
    "jnp.matmul": (jnp.matmul, [ARRAY, ARRAY], {}),
    "jnp.exp": (jnp.exp, [ARRAY], {}),
    "jnp.divide": (jnp.divide, [ARRAY, st.one_of(ARRAY, SCALAR)], {}),
    "jnp.power": (jnp.power, [ARRAY, st.one_of(ARRAY, SCALAR)], {}),
    "jnp.arange": (jnp.arange, [SCALAR, SCALAR], {"step": SCALAR, "dtype": DTYPE}),
    "jnp.zeros": (jnp.zeros, [SHAPE], {"dtype": DTYPE}),
    "jnp.full": (jnp.full, [SHAPE, st.one_of(SCALAR, ARRAY)], {"dtype": DTYPE}),
    "jnp.pad": (jnp.pad, [ARRAY, st.one_of(INTS, st.tuples(INTS, INTS))],
                {"mode": st.sampled_from(["constant", "edge", "reflect", "wrap", "median", "x"])}),
    "jnp.roll": (jnp.roll, [ARRAY, st.one_of(INTS, st.tuples(INTS))], {"axis": AXIS}),
    "jnp.tile": (jnp.tile, [ARRAY, SHAPE], {}),
    "jnp.split": (jnp.split, [ARRAY, st.one_of(INTS, st.lists(INTS, max_size=2))], {"axis": AXIS}),
    "jnp.moveaxis": (jnp.moveaxis, [ARRAY, AXIS, AXIS], {}),
    "jnp.astype": (jnp.astype, [ARRAY, DTYPE], {}),
    "lax.add": (lax.add, [ARRAY, st.one_of(ARRAY, SCALAR)], {}),
    "lax.reshape": (lax.reshape, [ARRAY, SHAPE], {"dimensions": AXIS}),
    "lax.transpose": (lax.transpose, [ARRAY, st.one_of(SHAPE, AXIS)], {}),
    "lax.slice": (lax.slice, [ARRAY, SHAPE, SHAPE], {"strides": SHAPE}),
    "lax.dynamic_slice": (lax.dynamic_slice, [ARRAY, SHAPE, SHAPE], {}),
    "lax.broadcast_in_dim": (lax.broadcast_in_dim, [ARRAY, SHAPE, SHAPE], {}),
    "lax.convert_element_type": (lax.convert_element_type, [ARRAY, DTYPE], {}),
    "lax.index_in_dim": (lax.index_in_dim, [ARRAY, INTS], {"axis": INTS, "keepdims": BOOL}),
    "lax.top_k": (lax.top_k, [ARRAY, INTS], {}),
    "random.normal": (random.normal, [KEY, SHAPE], {"dtype": DTYPE}),
    "random.uniform": (random.uniform, [KEY, SHAPE], {"minval": SCALAR, "maxval": SCALAR}),
    "random.randint": (random.randint, [KEY, SHAPE, SCALAR, SCALAR], {"dtype": DTYPE}),
    "random.permutation": (random.permutation, [KEY, st.one_of(ARRAY, INTS)], {"axis": INTS}),
    "random.split": (random.split, [KEY], {"num": st.one_of(INTS, SHAPE)}),
    "random.bernoulli": (random.bernoulli, [KEY, st.one_of(SCALAR, ARRAY)], {"shape": SHAPE}),
    "nn.relu": (nn.relu, [ARRAY], {}),
    "nn.softmax": (nn.softmax, [ARRAY], {"axis": AXIS}),
    "nn.one_hot": (nn.one_hot, [ARRAY, INTS], {"dtype": DTYPE, "axis": INTS}),
    "nn.logsumexp": (nn.logsumexp, [ARRAY], {"axis": AXIS, "b": ARRAY, "keepdims": BOOL}),
}


@st.composite
def calls(draw, positional, keywords):
    """Arguments for a function: its positional ones, some of its keywords, and now and
    then a wrong value in place of one of them."""
    args = [draw(s) for s in positional]
    kwargs = {k: draw(s) for k, s in keywords.items() if draw(BOOL)}
    if args and draw(st.integers(0, 3)) == 0:
        args[draw(st.integers(0, len(args) - 1))] = draw(JUNK)
    return args, kwargs


def _live_slots(full: bool = False) -> int:
    # The young generations hold what one call left in reference cycles; a full
    # collection is only for a count that differs (it takes seconds late in a suite run,
    # with the heap that thousands of tests leave behind). Recorded work holds the slots
    # it uses until its submit: a call that failed after dispatching has not submitted.
    gc.collect() if full else gc.collect(1)
    backend = jaxwg.devices()[0].backend
    backend.synchronize()
    return backend.memory_stats()["live_slots"]


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_random_arguments_raise_only_documented_errors_and_leak_nothing(name):
    fn, positional, keywords = FUNCTIONS[name]
    documented = DOCUMENTED + ALSO.get(name, ())

    @settings(max_examples=EXAMPLES, deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
    @given(calls(positional, keywords))
    def call(arguments):
        args, kwargs = arguments

        def run():
            try:
                jaxwg.block_until_ready(fn(*args, **kwargs))  # the result is dropped
            except documented:
                pass

        run()  # fills the caches: a compiled routine keeps its scratch buffers
        before = _live_slots()
        run()
        if _live_slots() != before:
            before = _live_slots(full=True)
            run()
            assert _live_slots(full=True) == before, "a call (or its error) leaked device memory"

    call()
