"""The scatter routine (core/routine.py, backend/webgpu/scatter.py) against NumPy's
`add.at` and `maximum.at`, on both backends: every dtype it takes, positions outside
the operand (dropped), and heavy collisions, where the GPU's atomic adds race:
integer-valued floats keep every partial sum exact, so any lost update shows as a
wrong total."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jaxwg
import jaxwg.numpy as jnp
from jaxwg.core import dtypes as dt
from jaxwg.core.routine import ScatterAdd

from .helpers import assert_equal_values, run_kernel


def run_scatter(backend, operand: np.ndarray, targets: np.ndarray, updates: np.ndarray,
                combine: str = "add") -> np.ndarray:
    routine = ScatterAdd(dt.from_numpy(operand.dtype), operand.size, targets.size, combine)
    return run_kernel(backend, routine, [operand, targets.astype(np.int32), updates])


def expected(operand, targets, updates, combine: str = "add"):
    out = operand.copy()
    kept = (targets >= 0) & (targets < operand.size)
    ufunc = np.maximum if combine == "max" else np.logical_or if out.dtype == bool else np.add
    ufunc.at(out, targets[kept], updates[kept])
    return out


def _values(rng, dtype, n):
    if dtype == "bool":
        return rng.random(n) < 0.3
    if dtype == "float32":  # integers: every order of summing gives the same float
        return rng.integers(-50, 50, n).astype(np.float32)
    return rng.integers(0, 2 ** 32, n, dtype=np.uint64).astype(dtype)  # wraps, as JAX's ints do


@settings(max_examples=20)
@given(dtype=st.sampled_from(["float32", "int32", "uint32", "bool"]), size=st.integers(1, 2000),
       updates=st.integers(0, 3000), spread=st.sampled_from([1, 3, 10 ** 6]), seed=st.integers(0, 2 ** 31))
def test_matches_numpy_add_at(backend, dtype, size, updates, spread, seed):
    rng = np.random.default_rng(seed)
    operand = _values(rng, dtype, size)
    # positions from -2 to past the end; spread 1 and 3 pile every update on few elements
    targets = rng.integers(-2, min(size + 2, spread), updates).astype(np.int32)
    values = _values(rng, dtype, updates)
    assert_equal_values(run_scatter(backend, operand, targets, values), expected(operand, targets, values))


@settings(max_examples=20)
@given(size=st.integers(1, 2000), updates=st.integers(0, 3000), spread=st.sampled_from([1, 3, 10 ** 6]),
       seed=st.integers(0, 2 ** 31))
def test_int32_maxima_match_numpy_maximum_at(backend, size, updates, spread, seed):
    """Signed: negative updates lose to a larger operand, and the operand's minimum to them."""
    rng = np.random.default_rng(seed)
    operand = rng.integers(-2 ** 31, 2 ** 31, size, dtype=np.int64).astype(np.int32)
    targets = rng.integers(-2, min(size + 2, spread), updates).astype(np.int32)
    values = rng.integers(-2 ** 31, 2 ** 31, updates, dtype=np.int64).astype(np.int32)
    got = run_scatter(backend, operand, targets, values, "max")
    assert_equal_values(got, expected(operand, targets, values, "max"))


def test_a_million_colliding_int32_maxima(backend):
    """What `lax.scatter` asks of it: each position's last update number, a million racing."""
    rng = np.random.default_rng(1)
    targets = rng.integers(-1, 1000, 1_000_000).astype(np.int32)
    numbers = np.arange(1_000_000, dtype=np.int32)
    got = run_scatter(backend, np.full(1000, -1, np.int32), targets, numbers, "max")
    assert_equal_values(got, expected(np.full(1000, -1, np.int32), targets, numbers, "max"))


def test_a_million_colliding_float_adds_lose_none(backend):
    rng = np.random.default_rng(0)
    targets = rng.integers(0, 7, 1_000_000).astype(np.int32)
    values = rng.integers(0, 4, 1_000_000).astype(np.float32)  # bin sums stay below 2^24
    got = run_scatter(backend, np.full(7, 0.5, np.float32), targets, values)
    assert_equal_values(got, expected(np.full(7, 0.5, np.float32), targets, values))


def test_specials_add_as_ieee(backend):
    operand = np.array([0.0, -0.0, np.inf, 1.0], np.float32)
    targets = np.array([1, 2, 3, 3], np.int32)
    values = np.array([-0.0, -np.inf, np.nan, 2.0], np.float32)
    assert_equal_values(run_scatter(backend, operand, targets, values),
                        np.array([0.0, -0.0, np.nan, np.nan], np.float32))
    assert np.signbit(run_scatter(backend, operand, targets, values)[1])


@pytest.mark.slow
def test_more_than_65535_workgroups_of_updates(backend):
    n = 256 * 65535 + 1000  # the add pass's grid folds into two dimensions
    targets = (np.arange(n, dtype=np.int64) * 7919 % 1001).astype(np.int32)
    got = run_scatter(backend, np.zeros(1000, np.int32), targets, np.ones(n, np.int32))
    assert_equal_values(got, expected(np.zeros(1000, np.int32), targets, np.ones(n, np.int32)))


def test_gather_gradients_scatter_through_the_routine():
    """An embedding lookup's gradient is one scatter-add over the lookups, not a
    reduction over (table x lookups): 50,000 x 200,000 would not finish."""
    rng = np.random.default_rng(1)
    table = rng.standard_normal((50_000, 4)).astype(np.float32)
    ids = rng.integers(0, 50_000, 200_000).astype(np.int32)
    weights = rng.integers(-3, 4, (200_000, 4)).astype(np.float32)

    def loss(t):
        return jnp.sum(t[jnp.asarray(ids)] * jnp.asarray(weights))

    grad = jaxwg.jit(jaxwg.grad(loss))
    assert "scatter-add" in grad.lower(jnp.asarray(table)).as_text()
    want = np.zeros_like(table)
    np.add.at(want, ids, weights)
    assert_equal_values(np.asarray(grad(jnp.asarray(table))), want)
