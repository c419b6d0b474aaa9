"""`lax.gather`, the scatters, `dynamic_slice` and `dynamic_update_slice` against JAX:
random dimension numbers, every mode, out-of-bounds and negative starts, colliding
indices, NaN and -0.0 in updates, transformations (grad, vmap of operand, indices or
both), and an operand of more than 2^20 elements read at random positions."""

import re

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import jaxwg
import jaxwg.numpy as jnp
from jaxwg import lax
from jaxwg.lax import slicing
from jaxwg.errors import NonConcreteBooleanIndexError

from .helpers import jax

MODES = ["clip", "fill", "promise_in_bounds", None]  # None: JAX's promise_in_bounds


def _same(got, want):
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape and got.dtype == want.dtype, (got.shape, want.shape, got.dtype, want.dtype)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=0, equal_nan=True)


@st.composite
def gathers(draw):
    """An operand shape, gather dimension numbers over some of its axes, slice sizes,
    and indices with starts that may lie outside the operand."""
    ndim = draw(st.integers(1, 3))
    shape = tuple(draw(st.lists(st.integers(1, 5), min_size=ndim, max_size=ndim)))
    indexed = tuple(sorted(draw(st.sets(st.integers(0, ndim - 1), min_size=1))))
    sizes = tuple(draw(st.integers(1, n)) if a not in indexed else draw(st.integers(1, n))
                  for a, n in enumerate(shape))
    collapsed = tuple(a for a in indexed if sizes[a] == 1 and draw(st.booleans()))
    batch = tuple(draw(st.lists(st.integers(0, 3), max_size=2)))
    window = ndim - len(collapsed)
    rank = window + len(batch)
    offset_dims = tuple(sorted(draw(st.permutations(range(rank)))[:window]))
    start_map = tuple(draw(st.permutations(indexed)))
    indices = draw(st.lists(st.integers(-6, 8), min_size=int(np.prod(batch, dtype=int)) * len(indexed),
                            max_size=int(np.prod(batch, dtype=int)) * len(indexed)))
    return shape, (offset_dims, collapsed, start_map), sizes, np.array(indices, np.int32).reshape(batch + (len(indexed),))


@settings(max_examples=25, deadline=None)
@given(case=gathers(), mode=st.sampled_from(MODES))
def test_gather_matches_jax(platform, case, mode):
    shape, (offset_dims, collapsed, start_map), sizes, indices = case
    x = np.random.default_rng(len(shape)).standard_normal(shape).astype(np.float32)
    x.flat[0] = -0.0
    ours = lax.GatherDimensionNumbers(offset_dims, collapsed, start_map)
    theirs = jax.lax.GatherDimensionNumbers(offset_dims, collapsed, start_map)
    _same(lax.gather(jnp.asarray(x), jnp.asarray(indices), ours, sizes, mode=mode),
          jax.lax.gather(x, indices, theirs, sizes, mode=mode))


@pytest.mark.parametrize("name", ["scatter_add", "scatter_sub", "scatter_mul", "scatter_min", "scatter_max",
                                  "scatter"])
@pytest.mark.parametrize("mode", ["clip", "fill", "promise_in_bounds"])
@pytest.mark.parametrize("dtype", ["float32", "int32"])
def test_scatter_ops_match_jax(platform, name, mode, dtype):
    rng = np.random.default_rng(0)
    x = rng.integers(-5, 5, (5, 3, 4)).astype(dtype)
    # rows 1 and 3 collide; 7 and -1 lie outside; windows of 2 columns may overhang
    idx = np.array([[1, 0], [3, 2], [1, 0], [7, 1], [-1, 0], [3, 3]], np.int32)
    upd = rng.integers(-5, 5, (6, 3, 2)).astype(dtype)
    dn = dict(update_window_dims=(1, 2), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0, 2))
    got = getattr(lax, name)(jnp.asarray(x), jnp.asarray(idx), jnp.asarray(upd),
                             lax.ScatterDimensionNumbers(**dn), mode=mode)
    want = getattr(jax.lax, name)(x, idx, upd, jax.lax.ScatterDimensionNumbers(**dn), mode=mode)
    if name == "scatter":  # JAX leaves the winner of repeated indices open; ours is the last
        want = np.array(x)
        for i, u in zip(idx, upd):
            start = [i[0], 0, i[1]]
            if mode == "clip":
                start = [min(max(i[0], 0), 4), 0, min(max(i[1], 0), 2)]
            elif not (0 <= i[0] <= 4 and 0 <= i[1] <= 2):
                continue
            want[start[0], :, start[2]:start[2] + 2] = u
    _same(got, want)


def test_scatter_keeps_nan_and_negative_zero(platform):
    x = np.zeros(4, np.float32)
    dn = lax.ScatterDimensionNumbers((), (0,), (0,))
    out = np.asarray(lax.scatter(jnp.asarray(x), jnp.array([[0], [2]]), jnp.array([np.nan, -0.0], np.float32), dn))
    assert np.isnan(out[0]) and out[2] == 0 and np.signbit(out[2]) and not np.signbit(out[1])
    out = np.asarray(lax.scatter_max(jnp.asarray(x), jnp.array([[1]]), jnp.array([np.nan], np.float32), dn))
    assert np.isnan(out[1])


def test_dynamic_slice_and_update_with_traced_starts(platform):
    x = np.arange(30, dtype=np.float32).reshape(5, 6)

    def f(x, i, j):
        piece = lax.dynamic_slice(x, (i, j), (2, 3))
        return lax.dynamic_update_slice(x, piece * 10, (j, i)), lax.dynamic_index_in_dim(x, i, 1, False)

    for i, j in ((1, 2), (4, 5), (-3, 0), (-9, 1)):  # negative starts wrap once, then clamp
        got = jaxwg.jit(f)(jnp.asarray(x), jnp.int32(i), jnp.int32(j))
        want = jax.jit(lambda x, i, j: (
            jax.lax.dynamic_update_slice(x, jax.lax.dynamic_slice(x, (i, j), (2, 3)) * 10, (j, i)),
            jax.lax.dynamic_index_in_dim(x, i, 1, False)))(x, np.int32(i), np.int32(j))
        for g, w in zip(got, want):
            _same(g, w)


@pytest.mark.parametrize("mode", ["clip", "fill"])
def test_gather_transformations_match_jax(mode):
    x = np.random.default_rng(1).standard_normal((4, 6)).astype(np.float32)
    xs = np.stack([x, 2 * x])
    idx = np.array([[2], [0], [2], [5]], np.int32)
    idxs = np.stack([idx, idx[::-1]])

    def loss(lx):
        def f(x, i):
            d = lx.GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,))
            return (lx.gather(x, i, d, (1, 3), mode=mode) ** 2).sum()
        return f

    ours, theirs = loss(lax), loss(jax.lax)
    _same(jaxwg.grad(ours)(jnp.asarray(x), jnp.asarray(idx)), jax.grad(theirs)(x, idx))
    for axes, a, i in (((0, None), xs, idx), ((None, 0), x, idxs), ((0, 0), xs, idxs)):
        _same(jaxwg.vmap(ours, in_axes=axes)(jnp.asarray(a), jnp.asarray(i)),
              jax.vmap(theirs, in_axes=axes)(a, i))
    _same(jaxwg.jit(jaxwg.vmap(jaxwg.grad(ours)))(jnp.asarray(xs), jnp.asarray(idxs)),
          jax.vmap(jax.grad(theirs))(xs, idxs))


def test_gather_from_a_large_operand(platform):
    """Random reads across an operand of 2^21 + 3 elements (past one 2^20 block)."""
    n = (1 << 21) + 3
    x = np.arange(n, dtype=np.int32)
    idx = np.random.default_rng(2).integers(-10, n + 10, (4096, 1)).astype(np.int32)
    d = lax.GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(0,), start_index_map=(0,))
    got = np.asarray(lax.gather(jnp.asarray(x), jnp.asarray(idx), d, (1,), mode="clip"))
    np.testing.assert_array_equal(got, np.clip(idx[:, 0], 0, n - 1))


def test_set_at_many_indices_keeps_the_last_update_as_jax(platform):
    """`x.at[i].set(v)` with as many indices as elements (a permutation, then repeats)
    costs memory in their sum, not their product (400000 x 400000 would not fit any
    index), and a position written several times keeps its last update, as JAX's CPU."""
    rng = np.random.default_rng(4)
    n = 400_000
    x = rng.standard_normal(n).astype(np.float32)
    perm = rng.permutation(n).astype(np.int32)
    v = rng.standard_normal(n).astype(np.float32)
    want = x.copy()
    want[perm] = v
    np.testing.assert_array_equal(np.asarray(jnp.asarray(x).at[perm].set(v)), want)
    repeats = rng.integers(-n - 5, n + 5, 3 * n).astype(np.int32)  # negatives wrap, past the end drop
    w = rng.standard_normal(3 * n).astype(np.float32)
    ours = jaxwg.jit(lambda x, i, w: x.at[i].set(w))(x, repeats, w)
    np.testing.assert_array_equal(np.asarray(ours), np.asarray(jax.numpy.asarray(x).at[repeats].set(w)))


@pytest.mark.parametrize("dtype", [np.int32, np.uint32])
def test_integer_max_and_min_at_many_indices_match_jax(platform, dtype, monkeypatch):
    """Through the routine's int32 scatter-max (uint32 with its top bit flipped, minima
    complemented), across the whole range; under vmap with the routine forced."""
    rng = np.random.default_rng(5)
    n, info = 300_000, np.iinfo(dtype)
    x = rng.integers(info.min, info.max, n, dtype=np.int64, endpoint=True).astype(dtype)
    i = rng.integers(-n - 3, n + 3, 2 * n).astype(np.int32)
    v = rng.integers(info.min, info.max, 2 * n, dtype=np.int64, endpoint=True).astype(dtype)
    for op in ["max", "min"]:
        got = getattr(jnp.asarray(x).at[i], op)(v)
        np.testing.assert_array_equal(np.asarray(got), np.asarray(getattr(jax.numpy.asarray(x).at[i], op)(v)))
    monkeypatch.setattr(slicing, "DENSE_SCATTER_TERMS", 0)
    xs, small = x[:12].reshape(2, 6), np.array([1, 4, 1, -1, 9], np.int32)
    ours = jaxwg.vmap(lambda r: r.at[small].min(r[:5][::-1]))(xs)
    theirs = jax.vmap(lambda r: r.at[small].min(r[:5][::-1]))(xs)
    np.testing.assert_array_equal(np.asarray(ours), np.asarray(theirs))


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.uint16, np.float16, np.bool_])
def test_narrow_max_and_min_at_many_indices_match_jax(platform, dtype):
    """Narrower types widen to int32, uint32 or float32 for the routine (every value is
    one of the wider type's, in the same order): colliding, dropped and negative
    indices, the extremes, and float16's NaN and signed zeros."""
    rng = np.random.default_rng(9)
    n = 100_000
    if dtype == np.bool_:
        x, v = rng.integers(0, 2, n).astype(bool), rng.integers(0, 2, 2 * n).astype(bool)
    elif dtype == np.float16:
        x = np.round(rng.standard_normal(n), 1).astype(dtype)
        x[:4] = [0.0, -0.0, np.nan, np.inf]
        v = np.round(rng.standard_normal(2 * n), 1).astype(dtype)
        v[:6] = [-0.0, 0.0, 1.0, -np.inf, np.nan, 65504.0]
    else:
        info = np.iinfo(dtype)
        x = rng.integers(info.min, info.max, n, endpoint=True).astype(dtype)
        v = rng.integers(info.min, info.max, 2 * n, endpoint=True).astype(dtype)
    i = rng.integers(-n - 3, n + 3, 2 * n).astype(np.int32)
    i[:6] = [0, 1, 2, 3, 3, 4]
    for op in ["max", "min"]:
        got = np.asarray(getattr(jnp.asarray(x).at[i], op)(v))
        want = np.asarray(getattr(jax.numpy.asarray(x).at[i], op)(v))
        assert got.dtype == want.dtype
        if dtype == np.float16:
            _same_floats(got, want)
        else:
            np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("dtype", ["float64", "float16", "int8"])
def test_other_dtypes_combine_at_many_indices_as_numpy(platform, dtype):
    """Sums, maxima and minima the atomic routine does not do (float64 under x64, float16
    and int8 sums) take sorted runs: against NumPy's sequential `ufunc.at`. Integer sums
    wrap exactly; float sums add a position's updates before the operand, so they agree
    to the rounding of the few terms a position gets."""
    rng = np.random.default_rng(10)
    n, m = 100_000, 150_000
    jaxwg.config.update("jax_enable_x64", True)
    try:
        if dtype.startswith(("int", "uint")):
            info = np.iinfo(dtype)
            x = rng.integers(info.min, info.max, n, endpoint=True, dtype=dtype)
            v = rng.integers(info.min, info.max, m, endpoint=True, dtype=dtype)
        else:
            x = rng.standard_normal(n).astype(dtype)
            v = rng.standard_normal(m).astype(dtype)
            x[:2], v[:3] = [np.nan, -0.0], [np.inf, 1.0, -0.0]
        i = rng.integers(0, n + 5, m).astype(np.int32)  # some past the end: dropped
        i[:3] = [0, 1, 1]
        keep = i < n
        for op, ufunc in (("add", np.add), ("max", np.maximum), ("min", np.minimum)):
            if op != "add" and dtype in ("float16", "int8"):
                continue  # widened to the order-key routine: another test
            want = x.copy()
            ufunc.at(want, i[keep], v[keep])
            got = np.asarray(getattr(jnp.asarray(x).at[i], op)(v, mode="drop"))
            assert got.dtype == want.dtype
            if op == "add" and dtype.startswith("float"):
                tol = {"float64": 1e-13, "float16": 4e-3}[dtype]
                np.testing.assert_allclose(got, want, rtol=tol, atol=tol)
            else:
                np.testing.assert_array_equal(got, want)
    finally:
        jaxwg.config.update("jax_enable_x64", False)


def _same_floats(got, want):
    """Equal values, NaN where JAX has NaN (its sign is the CPU's), and the signs of zeros."""
    got, want = np.asarray(got), np.asarray(want)
    np.testing.assert_array_equal(got, want)
    zeros = want == 0
    np.testing.assert_array_equal(np.signbit(got[zeros]), np.signbit(want[zeros]))


def test_float_max_and_min_at_many_indices_match_jax(platform):
    """float32 through the routine's int32 scatter-max of order keys: -0.0 below +0.0,
    NaN winning, infinities, colliding and out-of-bounds indices, as JAX's."""
    rng = np.random.default_rng(6)
    n = 200_000
    x = np.round(rng.standard_normal(n), 1).astype(np.float32)  # many ties
    x[:6] = [0.0, -0.0, np.nan, np.inf, -np.inf, -0.0]
    i = rng.integers(-n - 3, n + 3, 2 * n).astype(np.int32)
    v = np.round(rng.standard_normal(2 * n), 1).astype(np.float32)
    v[:8] = [np.nan, -0.0, 0.0, -np.nan, np.inf, -np.inf, -0.0, 0.0]
    i[:8] = [7, 0, 1, 8, 9, 9, 5, 5]
    for op in ["max", "min"]:
        _same_floats(getattr(jnp.asarray(x).at[i], op)(v), getattr(jax.numpy.asarray(x).at[i], op)(v))


@pytest.mark.parametrize("op", [pytest.param("max", marks=pytest.mark.slow), "min"])  # max: 8 s
def test_float_max_and_min_through_the_routine_differentiate_as_jax(op, monkeypatch):
    """JAX's tangent: the average over the values equal to a position's result (operand
    and updates); under grad, jit and vmap, with the routine forced at this size."""
    monkeypatch.setattr(slicing, "DENSE_SCATTER_TERMS", 0)
    x = np.array([1.0, 2.0, -1.0, 0.5, 3.0, 0.0], np.float32)
    v = np.array([2.0, 2.0, -3.0, 0.5, 4.0, 1.0, 2.0], np.float32)  # ties with x and each other
    i = np.array([1, 1, 2, 3, 9, 0, 1], np.int32)

    def f(m):
        return lambda x, v: (m.tanh(getattr(m.asarray(x).at[i], op)(v * 1.0)) * m.arange(1.0, 7.0)).sum()

    ours, theirs = jaxwg.jit(jaxwg.grad(f(jnp), argnums=(0, 1))), jax.grad(f(jax.numpy), argnums=(0, 1))
    for g, w in zip(ours(x, v), theirs(x, v)):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-6, atol=1e-7)
    batched = np.stack([v, -v, np.round(v)])
    ours = jaxwg.vmap(jaxwg.grad(f(jnp), argnums=1), in_axes=(None, 0))(x, batched)
    theirs = jax.vmap(jax.grad(f(jax.numpy), argnums=1), in_axes=(None, 0))(x, batched)
    np.testing.assert_allclose(np.asarray(ours), np.asarray(theirs), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_multiply_at_many_indices_matches_jax(platform, dtype):
    """A scatter multiply of 200k updates into 300k elements (colliding, dropped past the
    end, wrapping below 0): sorted runs and a segmented scan, not (operand x updates)
    work. int32 products wrap exactly as JAX's; float32 ones multiply a position's
    updates before the operand (JAX: one at a time), so within a few ulps (a position
    takes at most ~8 updates here: relative error below 16 * 2^-24 each)."""
    rng = np.random.default_rng(7)
    n, m = 300_000, 200_000
    if dtype == np.float32:
        x = (rng.standard_normal(n) * 2).astype(dtype)
        x[:4] = [np.inf, -0.0, np.nan, 0.0]
        v = rng.uniform(0.5, 1.5, m).astype(dtype)
        v[:4] = [-1.0, 2.0, 3.0, np.inf]  # inf * -1, -0 * 2, nan * 3, 0 * inf
    else:
        x = rng.integers(-2**31, 2**31 - 1, n, dtype=np.int64).astype(dtype)
        v = rng.integers(-2**31, 2**31 - 1, m, dtype=np.int64).astype(dtype)
    i = rng.integers(-n - 5, n + 5, m).astype(np.int32)
    i[:4] = [0, 1, 2, 3]
    ours = np.asarray(jaxwg.jit(lambda x, i, v: x.at[i].multiply(v, mode="drop"))(x, i, v))
    theirs = np.asarray(jax.numpy.asarray(x).at[i].multiply(v, mode="drop"))
    if dtype == np.int32:
        np.testing.assert_array_equal(ours, theirs)
    else:
        np.testing.assert_allclose(ours, theirs, rtol=16 * 2.0 ** -24, atol=0)
        zeros = theirs == 0  # the signs of zeros and infinities (a NaN's sign is the device's)
        np.testing.assert_array_equal(np.signbit(ours[zeros]), np.signbit(theirs[zeros]))
        assert (ours != theirs).mean() < 0.2  # most positions take one update: exactly equal


def test_multiply_at_many_indices_differentiates(monkeypatch):
    """The sorted, scanned multiply under grad and vmap (forced at this size), with JAX's
    rules: the operand differentiates at repeated indices, the updates only with
    unique ones (JAX raises otherwise, and so does jaxwg)."""
    monkeypatch.setattr(slicing, "DENSE_SCATTER_TERMS", 0)
    x = np.array([1.0, 2.0, -1.0, 0.5, 3.0, 0.0], np.float32)
    v = np.array([2.0, 0.5, -3.0, 0.0, 4.0, 1.5, 2.0], np.float32)
    i = np.array([1, 1, 2, 3, 9, 0, 1], np.int32)  # 1 three times, 9 dropped
    weights = np.arange(1.0, 7.0, dtype=np.float32)

    def f(m, i, unique=False):
        return lambda x, v: (m.sin(m.asarray(x).at[i].multiply(v, mode="drop", unique_indices=unique))
                             * weights).sum()

    _same(jaxwg.jit(jaxwg.grad(f(jnp, i)))(x, v), jax.grad(f(jax.numpy, i))(x, v))
    for module, grad in ((jnp, jaxwg.grad), (jax.numpy, jax.grad)):
        with pytest.raises(NotImplementedError, match="only implemented if `unique_indices=True`"):
            grad(f(module, i), argnums=1)(x, v)
    unique = np.array([1, 4, 2, 3, 9, 0, 5], np.int32)
    for got, want in zip(jaxwg.jit(jaxwg.grad(f(jnp, unique, True), argnums=(0, 1)))(x, v),
                         jax.grad(f(jax.numpy, unique, True), argnums=(0, 1))(x, v)):
        _same(got, want)
    batched = np.stack([v, -v, np.round(v)])
    got = jaxwg.vmap(lambda v: jnp.asarray(x).at[i].multiply(v, mode="drop"))(batched)
    want = jax.vmap(lambda v: jax.numpy.asarray(x).at[i].multiply(v, mode="drop"))(batched)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6)


@pytest.mark.parametrize("path", ["routine", "primitives"])
def test_set_at_repeated_indices_under_transformations_matches_jax(path, monkeypatch):
    """Both ways `lax.scatter` sets: the scatter routine (monkeypatched down to these
    sizes) and, for small scatters, a composition of primitives."""
    if path == "routine":
        monkeypatch.setattr(slicing, "DENSE_SCATTER_TERMS", 0)
    x, v = np.arange(6, dtype=np.float32), np.linspace(-1, 1, 7).astype(np.float32)
    i = np.array([1, 4, 1, -1, 9, 4, 1], np.int32)

    def f(m):
        return lambda x, v: (m.sin(m.asarray(x).at[i].set(v * x[2])) * m.arange(6.0)).sum()

    ours, theirs = jaxwg.jit(jaxwg.grad(f(jnp), argnums=(0, 1))), jax.grad(f(jax.numpy), argnums=(0, 1))
    for g, w in zip(ours(x, v), theirs(x, v)):
        _same(g, w)
    batched = np.stack([v, -v, 2 * v])
    _same(jaxwg.vmap(jaxwg.grad(f(jnp), argnums=1), in_axes=(None, 0))(x, batched),
          jax.vmap(jax.grad(f(jax.numpy), argnums=1), in_axes=(None, 0))(x, batched))


def test_gather_errors_name_the_problem():
    d = lax.GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,))
    with pytest.raises(TypeError, match="integer"):
        lax.gather(jnp.ones((3, 2)), jnp.ones((2, 1)), d, (1, 2))
    with pytest.raises(TypeError, match="slice_sizes"):
        lax.gather(jnp.ones((3, 2)), jnp.zeros((2, 1), "int32"), d, (1, 5))
    with pytest.raises(TypeError, match="index vector"):
        lax.gather(jnp.ones((3, 2)), jnp.zeros((2, 2), "int32"), d, (1, 2))


INDICES = [
    (slice(None), np.array([0, 2]), np.array([1, 3])),
    (np.array([0, 1]), slice(None), np.array([1, 3])),  # separated arrays: their axis goes first
    (np.array([True, False]),),
    (np.array([[0, 1], [1, 0]]), 1),
    (Ellipsis, np.array([-1, 0])),
    (1, slice(0, 2), np.array([[3], [0]])),
    (np.array([5, -7]),),  # out of bounds: clamps on reads
    ([0, 1], [2, 2]),
    (np.array([[True, False, True], [False, False, True]]),),
    # None and scalar booleans beside array indices: a new axis, as NumPy and JAX
    (None, np.array([1, 0])),
    (np.array([1, 0]), None),
    (np.array([1, 0]), None, np.array([2, 0])),  # None separates the arrays: theirs goes first
    (slice(None), None, np.array([2, 0])),
    (Ellipsis, None, np.array([3, 0])),
    (np.array([1, 0]), Ellipsis, None),
    (True, np.array([1, 0])),
    (np.array([1, 0]), True, np.array([[0], [2]])),
    (True, 1, np.array([3, 1])),
    (Ellipsis, np.array([True, False, True, True])),
]


@pytest.mark.parametrize("index", INDICES, ids=str)
def test_array_indexing_matches_jax(run, index):
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    want = jax.numpy.asarray(x)[index]
    _same(run(lambda a: a[index], jnp.asarray(x)), want)


UPDATE_INDICES = [(1,), (10,), (-1,), (slice(None), 1), (np.array([0, 0, 1]),),
                  (np.array([1, 5, -1]), slice(1, 3)), (Ellipsis, np.array([3, 3])),
                  (0, slice(None), np.array([[1], [2]])), (np.array([[True, False, True], [False, True, True]]),),
                  (Ellipsis, None, np.array([3, 0])), (None, 0), (True, 1), (np.array([1, 0]), None, 2)]


@pytest.mark.parametrize("index", UPDATE_INDICES, ids=str)
@pytest.mark.parametrize("op", ["set", "add", "subtract", "multiply", "divide", "min", "max"])
def test_at_updates_match_jax(run, index, op):
    """Repeated indices combine (the last wins for set), out-of-bounds ones drop."""
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4) - 5
    got = run(lambda a, v: getattr(a.at[index], op)(v), jnp.asarray(x), jnp.float32(2.5))
    _same(got, getattr(jax.numpy.asarray(x).at[index], op)(2.5))


def test_at_updates_of_scalars_and_weak_arrays_match_jax(platform):
    """A rank-0 array's `.at[()]` (which crashed) and a weakly typed operand's updates
    (which came out strong) as JAX's: values, dtypes and weak types."""
    for x, index in ((2.0, ()), (np.float32(2.0), ()), (np.int32(3), ()), ((2.0, 3.0), 1)):
        ours = jnp.broadcast_to(x[0], (2,)) if isinstance(x, tuple) else jnp.asarray(x)
        theirs = jax.numpy.broadcast_to(x[0], (2,)) if isinstance(x, tuple) else jax.numpy.asarray(x)
        for op in ("set", "add", "multiply", "min", "max", "power", "apply"):
            arg = (lambda v: v * 2) if op == "apply" else 3
            got, want = getattr(ours.at[index], op)(arg), getattr(theirs.at[index], op)(arg)
            _same(got, want)
            assert got.weak_type == want.weak_type, (x, op)


def test_updates_of_integers_by_floats_promote_then_convert_back_as_jax(platform):
    """As JAX's `_scatter_update`: the operand and the values are promoted (int32 and a
    float: float32), scattered, and converted back, with JAX's warning that the cast is
    unsafe; so repeated halves add up before the truncation. `divide` divides by the
    values multiplied into ones: integers divide to floats, as in JAX."""
    x, i = np.arange(5, dtype=np.int32), np.array([1, 1, 3, -1])
    with pytest.warns(FutureWarning, match="cannot safely cast value from dtype=float32 to dtype=int32"):
        got = jnp.asarray(x).at[i].add(0.5)
    with pytest.warns(FutureWarning):
        want = jax.numpy.asarray(x).at[i].add(0.5)
    _same(got, want)
    _same(jnp.asarray(x).at[i].divide(2), jax.numpy.asarray(x).at[i].divide(2))
    _same(jnp.asarray(x).at[i].add(3), jax.numpy.asarray(x).at[i].add(3))  # an int stays exact
    _same(jnp.asarray(x, jnp.int8).at[i].add(3), jax.numpy.asarray(x, np.int8).at[i].add(3))


@pytest.mark.parametrize("position", range(len(UPDATE_INDICES)))
def test_at_get_fill_and_apply_match_jax(platform, position):
    index = UPDATE_INDICES[position]
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    _same(jnp.asarray(x).at[index].get(mode="fill", fill_value=-7.0),
          jax.numpy.asarray(x).at[index].get(mode="fill", fill_value=-7.0))
    # apply and power act once per occurrence where indices repeat (positions 4 to 6)
    _same(jnp.asarray(x).at[index].apply(jnp.sqrt), jax.numpy.asarray(x).at[index].apply(jax.numpy.sqrt))
    _same(jnp.asarray(x).at[index].power(2.0), jax.numpy.asarray(x).at[index].power(2.0))


@pytest.mark.parametrize("mode", [None, "clip"])
def test_at_power_and_apply_repeat_for_repeated_indices(run, mode):
    x = np.array([3.0, -1.0, 2.0, 0.5], np.float32)
    index = np.array([0, 0, 3, 1, 0, 7])
    exponents = np.array([2.0, 3.0, 2.0, 3.0, 0.5, 9.0], np.float32)
    jx = jax.numpy.asarray(x)
    _same(run(lambda a, i, e: a.at[i].power(e, mode=mode), jnp.asarray(x), jnp.asarray(index),
              jnp.asarray(exponents)), jx.at[index].power(exponents, mode=mode))
    _same(run(lambda a, i: a.at[i].apply(lambda v: v * 2 + 1, mode=mode), jnp.asarray(x),
              jnp.asarray(index)), jx.at[index].apply(lambda v: v * 2 + 1, mode=mode))
    ints = np.array([3, 1], np.int32)
    _same(run(lambda a: a.at[jnp.array([0, 0])].power(2), jnp.asarray(ints)),
          jax.numpy.asarray(ints).at[jax.numpy.array([0, 0])].power(2))
    assert jnp.array([3.0, 1.0]).at[jnp.array([0, 0])].power(2.0).tolist() == [81.0, 1.0]
    assert jnp.array([3.0, 1.0]).at[jnp.array([0, 0])].apply(lambda v: v + 1).tolist() == [5.0, 1.0]


def test_indexing_under_transformations_matches_jax():
    x = np.random.default_rng(3).standard_normal((5, 4)).astype(np.float32)
    i = np.array([0, 3, 3, 9], np.int32)

    def f(m):
        def loss(x, i):
            mask = np.array([True, False, True, True])
            terms = [m.sin(x[i, 1:]) ** 2, x.at[i, 0].add(x[i, 2]) ** 2, x[None, i, ::-2] * x[1:3, mask].sum(),
                     x.at[True, i[:2], -1].get(mode="fill"), x.at[::2, i].subtract(x[0, i]) ** 2,
                     m.take_along_axis(x, i[None] % 4, 0)]
            return sum(t.sum() for t in terms)
        return loss

    jx = jax.numpy.asarray(x)  # JAX's jitted, as its op-by-op calls take seconds here
    _same(jaxwg.jit(jaxwg.grad(f(jnp)))(jnp.asarray(x), jnp.asarray(i)),
          jax.jit(jax.grad(f(jax.numpy)))(jx, i))
    _same(jaxwg.vmap(f(jnp), in_axes=(None, 0))(jnp.asarray(x), jnp.asarray(np.stack([i, i[::-1]]))),
          jax.jit(jax.vmap(f(jax.numpy), in_axes=(None, 0)))(jx, np.stack([i, i[::-1]])))


def test_traced_scalar_index_reads_dynamically(platform):
    x = np.arange(16, dtype=np.float32).reshape(4, 4)
    f = jaxwg.jit(lambda a, i: a[i] + a[:, i])
    for i in (0, 2, -1):
        _same(f(jnp.asarray(x), jnp.int32(i)), x[i] + x[:, i])


@pytest.mark.parametrize("op", ["add", "subtract", "multiply", "divide", "power", "min", "max", "set"])
def test_boolean_updates_combine_or_raise_as_jax(op):
    """JAX's booleans have no sum or product: their updates raise JAX's TypeError
    (eagerly and when traced), while min, max and set combine them."""
    x, v = np.array([True, False, False]), np.array([True, True])
    index = np.array([0, 1])

    def update(a):
        return getattr(a.at[index], op)(v)

    try:
        want = update(jax.numpy.asarray(x))
    except TypeError as e:
        for fn in (update, jaxwg.jit(update)):
            with pytest.raises(TypeError, match=re.escape(str(e))):
                fn(jnp.asarray(x))
        return
    _same(update(jnp.asarray(x)), want)


def test_bad_array_indices_raise_like_jax():
    x = jnp.ones((2, 3))
    with pytest.raises(TypeError, match="integer or boolean"):
        x[jnp.array([0.5])]
    with pytest.raises(IndexError, match="boolean index"):
        x[np.array([True, False, True])]


@pytest.mark.parametrize("shape, index", [
    ((3,), (np.zeros(2, bool),)), ((2, 3), (slice(None), np.ones(2, bool))),
    ((2, 3, 4), (Ellipsis, np.ones(3, bool))), ((2, 3, 4), (None, Ellipsis, np.ones(3, bool))),
    # an empty mask axis selects nothing from an axis of any size, as in JAX and NumPy
    ((1,), (np.zeros(0, bool),)), ((2, 3), (np.zeros(0, bool),)), ((2, 3), (np.zeros((2, 0), bool),)),
    ((2, 3), (slice(None), np.zeros(0, bool))), ((0, 3), (np.zeros(0, bool),)),
], ids=str)
def test_boolean_index_shapes_as_jax(platform, shape, index):
    x = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
    try:
        want = np.asarray(jax.numpy.asarray(x)[index])
    except IndexError as e:
        with pytest.raises(IndexError) as ours:
            jnp.asarray(x)[index]
        assert str(ours.value) == str(e)
        return
    _same(jnp.asarray(x)[index], want)

def test_traced_boolean_indices_raise_non_concrete_boolean_index_error():
    x, mask = jnp.ones((2, 3)), jnp.array([True, False])
    for f in (lambda a, m: a[m], lambda a, m: a.at[m].set(0.0), lambda a, m: a[m[0]]):
        with pytest.raises(jax.errors.NonConcreteBooleanIndexError):
            jax.jit(f)(jax.numpy.asarray(x), jax.numpy.asarray(mask))
        with pytest.raises(NonConcreteBooleanIndexError, match="must be concrete"):
            jaxwg.jit(f)(x, mask)
    assert issubclass(NonConcreteBooleanIndexError, IndexError)


def test_none_and_boolean_beside_arrays_follow_numpy_where_jax_does_not():
    """JAX gathers `x[None, True, i]` along the wrong axis (0.10.2); NumPy is the spec."""
    x = np.arange(24).reshape(2, 3, 4)
    index = (None, True, np.array([1, 0]))
    np.testing.assert_array_equal(np.asarray(jnp.asarray(x)[index]), x[index])
    for index in ((False, np.array([1, 0])), (np.array([1, 0]), False, None)):
        with pytest.raises(ValueError):
            jax.numpy.asarray(x)[index]
        with pytest.raises(ValueError):
            jnp.asarray(x)[index]


def test_scatter_with_batching_dims_and_the_gradient_of_a_batched_gather_match_jax(run):
    """Operand batching dims become index columns (scatter) and so the transpose of a
    batched gather works."""
    x = np.arange(12.0, dtype=np.float32).reshape(2, 3, 2)
    idx = np.array([[[2], [2], [0]], [[0], [1], [1]]], np.int32)
    upd = np.arange(12.0, dtype=np.float32).reshape(2, 3, 2) + 1

    def scatter(lib, combine):
        dn = lib.lax.ScatterDimensionNumbers(
            update_window_dims=(2,), inserted_window_dims=(1,), scatter_dims_to_operand_dims=(1,),
            operand_batching_dims=(0,), scatter_indices_batching_dims=(0,))
        return lambda a, i, u: getattr(lib.lax, combine)(a, i, u, dn)

    for combine in ("scatter_add", "scatter_max", "scatter"):
        _same(run(scatter(jaxwg, combine), jnp.asarray(x), jnp.asarray(idx), jnp.asarray(upd)),
              scatter(jax, combine)(x, idx, upd))

    def gathered(lib):
        dn = lib.lax.GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(1,),
                                            start_index_map=(1,), operand_batching_dims=(0,),
                                            start_indices_batching_dims=(0,))
        return lambda a: (lib.lax.gather(a[:, :, 0], idx[:, 0, :], dn, (1, 1)) *
                          np.float32([3, 5])).sum()

    _same(jaxwg.grad(gathered(jaxwg))(jnp.asarray(x)), jax.grad(gathered(jax))(x))


def test_multiply_with_empty_update_windows_at_scale_returns_the_operand():
    """Index vectors but zero-size windows: nothing lands (JAX returns the operand)."""
    x = np.random.default_rng(8).standard_normal((70_000, 2)).astype(np.float32)
    dn = lax.ScatterDimensionNumbers(update_window_dims=(1,), inserted_window_dims=(0,),
                                     scatter_dims_to_operand_dims=(0,))
    out = lax.scatter_mul(jnp.asarray(x), jnp.zeros((40, 1), jnp.int32), jnp.zeros((40, 0), jnp.float32), dn)
    np.testing.assert_array_equal(np.asarray(out), x)


# Indices the `.at[]` updates turn into scatter operands as JAX does: a static integer,
# a NumPy array with repeats, negative and past the end, and a slice with a step.
_UPDATE_INDICES = {"int": -2, "array": np.array([3, -1, 3, 7]), "slice": slice(1, None, 2)}


@pytest.mark.parametrize("op, where", [("set", "int"), ("set", "array"), ("add", "array"), ("add", "slice"),
                                       ("subtract", "array"),
                                       ("multiply", "int"), ("multiply", "array"),
                                       ("min", "array"), ("max", "slice")])
def test_index_update_rules_match_jax(op, where):
    """The scatter primitives' JVP, transpose (grad) and batching rules, through `.at[]`
    updates, against JAX: values, JVPs and gradients of operand and updates (scatter_mul's
    updates at repeated indices raise, as JAX's), and vmap of each."""
    index = _UPDATE_INDICES[where]
    x = np.array([0.5, -1.0, 2.0, 0.25, 3.0], np.float32)
    v = np.linspace(-1.5, 2.0, {"int": 1, "array": 4, "slice": 2}[where]).astype(np.float32)
    v = v[0] if where == "int" else v

    def f(m):
        return lambda x, v: getattr(m.asarray(x).at[index], op)(m.sin(v))

    ours, theirs = f(jnp), f(jax.numpy)
    _same(ours(x, v), theirs(x, v))
    if op == "multiply" and where == "array":
        for jvp, fn in ((jaxwg.jvp, ours), (jax.jvp, theirs)):
            with pytest.raises(NotImplementedError, match="only implemented if `unique_indices=True`"):
                jvp(fn, (x, v), (x * 2, v))
        _same(jaxwg.grad(lambda x: jnp.sum(ours(x, v) ** 2))(x),
              jax.grad(lambda x: jax.numpy.sum(theirs(x, v) ** 2))(x))
    else:
        _same(jaxwg.jvp(ours, (x, v), (x * 2, v))[1], jax.jvp(theirs, (x, v), (x * 2, v))[1])
        for got, want in zip(jaxwg.grad(lambda x, v: jnp.sum(ours(x, v) ** 2), argnums=(0, 1))(x, v),
                             jax.grad(lambda x, v: jax.numpy.sum(theirs(x, v) ** 2), argnums=(0, 1))(x, v)):
            _same(got, want)
    xs, vs = np.stack([x, -x, x * 3]), np.stack([v, v * 2, -v])
    for axes, a, b in (((0, None), xs, v), ((None, 0), x, vs), ((0, 0), xs, vs)):
        _same(jaxwg.vmap(ours, in_axes=axes)(a, b), jax.vmap(theirs, in_axes=axes)(a, b))


def test_scatter_rules_with_batched_indices_match_jax():
    """vmap over the indices of `lax.scatter_add` and `lax.scatter` (batching dims), and
    the gradient of a gather (a scatter-add) under it."""
    x = np.arange(6, dtype=np.float32)
    idx = np.array([[[1], [4], [1]], [[0], [0], [5]]], np.int32)
    v = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], np.float32)
    for name in ("scatter_add", "scatter"):
        def f(lx, name=name):
            d = lx.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,),
                                           scatter_dims_to_operand_dims=(0,))
            return lambda x, i, v: getattr(lx, name)(x, i, v, d)
        _same(jaxwg.vmap(f(lax), in_axes=(None, 0, 0))(x, idx, v),
              jax.vmap(f(jax.lax), in_axes=(None, 0, 0))(x, idx, v))
    g = (lambda m: lambda x, i: m.sum(m.asarray(x)[i[:, 0]] ** 2))
    _same(jaxwg.vmap(jaxwg.grad(g(jnp)), in_axes=(None, 0))(x, idx),
          jax.vmap(jax.grad(g(jax.numpy)), in_axes=(None, 0))(x, idx))


def test_eager_scatters_compile_once_per_signature(platform, monkeypatch):
    """An eager scatter is one program per signature (as an eager sort): called again
    with arrays of the same shapes and dtypes it neither traces nor lowers its jaxpr
    again, only replays the program's kernels."""
    lowerings = []
    lower = slicing.lower_jaxpr
    monkeypatch.setattr(slicing, "lower_jaxpr", lambda *args: lowerings.append(1) or lower(*args))
    x = np.array([0.5, -1.0, 2.0, 0.25, 3.0], np.float32)
    i = np.array([[3], [0], [3], [9]], np.int32)
    dnums = lax.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,),
                                        scatter_dims_to_operand_dims=(0,))
    for name in ("scatter", "scatter_add", "scatter_mul", "scatter_min", "scatter_max"):
        for v in (np.array([1.5, -2.0, 4.0, 7.0], np.float32), np.array([-3.0, 0.0, 0.5, 1.0], np.float32)):
            programs, lowered = jaxwg.frontend.execute.counters["compiled_programs"], len(lowerings)
            got = getattr(lax, name)(jnp.asarray(x), jnp.asarray(i), jnp.asarray(v), dnums)
            _same(got, getattr(jax.lax, name)(x, i, v, dnums))
        assert jaxwg.frontend.execute.counters["compiled_programs"] == programs, name
        assert len(lowerings) == lowered, name


# -- indexing as JAX rewrites it: one gather (`x[index]`, `.at[].get`) or one scatter
# (`.at[]` updates) for every form of index


@st.composite
def gathered_indices(draw):
    """A shape and an index JAX reads through a gather: integer arrays (broadcasting
    together; static or traced; negative and out of bounds too) among integers, slices
    of any step, `None`, `...`, boolean masks and a leading scalar boolean (where JAX
    0.10 and NumPy agree on its axis). Returns the shape, the index, and which index
    arrays the function takes as arguments."""
    ndim = draw(st.integers(1, 3))
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=ndim, max_size=ndim)))
    batch = tuple(draw(st.lists(st.integers(1, 3), min_size=1, max_size=2)))
    items = [draw(st.booleans())] if draw(st.integers(0, 5)) == 0 else []
    axis = 0
    while axis < ndim:
        n = shape[axis]
        kind = draw(st.sampled_from(["array", "array", "int", "slice", "slice", "none", "mask"]))
        if kind == "none":
            items.append(None)
            continue
        if kind == "array":
            part = batch[draw(st.integers(0, len(batch) - 1)):]  # a trailing part broadcasts
            values = draw(st.lists(st.integers(-2 * n, 2 * n - 1), min_size=int(np.prod(part)),
                                   max_size=int(np.prod(part))))
            items.append(np.array(values, np.int32).reshape(part))
        elif kind == "int":
            items.append(draw(st.integers(-n, n - 1)))
        elif kind == "slice":
            bound = st.none() | st.integers(-n - 1, n + 1)
            items.append(slice(draw(bound), draw(bound), draw(st.sampled_from([None, 1, 2, -1, -2, 3]))))
        else:
            items.append(np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n))))
        axis += 1
    if draw(st.booleans()):  # `...` for some of the trailing axes
        kept = draw(st.integers(0, len(items)))
        items = items[:kept] + [Ellipsis] + [i for i in items[kept:] if i is None]
    traced = [k for k, i in enumerate(items) if isinstance(i, np.ndarray) and i.dtype != bool
              and draw(st.booleans())]
    return shape, tuple(items), traced


def _with_index(index, traced, fn):
    """`fn(x, index)` as a function of (x, *the traced index arrays)."""
    def f(x, *arrays):
        given = dict(zip(traced, arrays))
        return fn(x, tuple(given.get(k, item) for k, item in enumerate(index)))
    return f


def _matches_jax(run, make, x, *args):
    """`make(jaxwg, jaxwg.numpy)` through `run` against `make(jax, jax.numpy)`: values, or
    the same error type. JAX's result, or None where it raises."""
    try:
        want = make(jax, jax.numpy)(jax.numpy.asarray(x), *args)
    except (IndexError, TypeError, ValueError) as e:
        with pytest.raises(type(e)):
            run(make(jaxwg, jnp), jnp.asarray(x), *[jnp.asarray(a) for a in args])
        return None
    got = run(make(jaxwg, jnp), jnp.asarray(x), *[jnp.asarray(a) for a in args])
    for g, w in zip(got if isinstance(got, tuple) else (got,), want if isinstance(want, tuple) else (want,)):
        _same(g, w)
    return want


def _operand(shape):
    return np.arange(np.prod(shape), dtype=np.float32).reshape(shape) * 0.5 - 3


@settings(max_examples=6, deadline=None)  # each index drawn compiles programs of its own
@given(case=gathered_indices(), how=st.sampled_from(["index", "clip", "fill"]))
def test_gathered_indices_and_their_gradients_match_jax(run, case, how):
    """`x[index]` and `.at[index].get(mode=...)` (one gather, as JAX's), eager and jitted,
    and the gradient (a scatter-add) of a weighted sum of it."""
    shape, index, traced = case

    def take(x, index):
        if how == "index":
            return x[index]
        return x.at[index].get(mode=how, fill_value=-7.0 if how == "fill" else None)

    x, arrays = _operand(shape), [index[k] for k in traced]
    f = _with_index(index, traced, take)
    want = _matches_jax(run, lambda lib, m: f, x, *arrays)
    if want is not None:
        w = np.cos(np.arange(want.size, dtype=np.float32)).reshape(want.shape)
        _matches_jax(run, lambda lib, m: lib.grad(lambda x, *a: m.sum(f(x, *a) * w)), x, *arrays)


@settings(max_examples=6, deadline=None)
@given(case=gathered_indices(), op=st.sampled_from(["set", "add", "subtract", "multiply", "min", "max"]),
       mode=st.sampled_from([None, "clip", "promise_in_bounds"]))
def test_scattered_indices_and_their_gradients_match_jax(run, case, op, mode):
    """`.at[index]` updates (one scatter, as JAX's) of values of the indexed shape,
    eager and jitted, with the out-of-bounds modes (JAX's promise_in_bounds drops, as
    XLA's scatter does), and the gradients of set, add and subtract in the operand and
    the values (repeated indices: the last set wins, sums add up)."""
    shape, index, traced = case
    x, arrays = _operand(shape), [index[k] for k in traced]
    try:
        indexed = np.asarray(_with_index(index, traced, lambda x, i: x[i])(jax.numpy.asarray(x), *arrays))
    except (IndexError, TypeError, ValueError):
        return  # the reads cover these errors
    v = np.sin(np.arange(indexed.size, dtype=np.float32)).reshape(indexed.shape) * 4
    update = lambda v: _with_index(index, traced, lambda x, i: getattr(x.at[i], op)(v, mode=mode))
    _matches_jax(run, lambda lib, m: lambda x, v, *a: update(v)(x, *a), x, v, *arrays)
    if op in ("set", "add", "subtract"):
        w = np.cos(np.arange(x.size, dtype=np.float32)).reshape(x.shape)
        loss = lambda lib, m: lib.grad(lambda x, v, *a: m.sum(update(v)(x, *a) * w), argnums=(0, 1))
        _matches_jax(run, loss, x, v, *arrays)
