"""Products of `jaxwg.numpy` (matmul, dot, vdot, inner, outer, tensordot, einsum, vecdot,
matvec, vecmat, diagonal, trace) against NumPy, with dtypes and errors checked against JAX."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import jaxwg
import jaxwg.numpy as jnp
from jaxwg.core import dtypes as dt
from jaxwg.frontend.execute import counters

from .helpers import assert_array, jax_numpy

_rng = np.random.default_rng(1234)


def data(shape, dtype=np.float32, rng=_rng):
    """Small integers (exact products and sums) of `dtype`."""
    values = rng.integers(-3, 4, size=shape)
    return (values > 0) if np.dtype(dtype) == np.bool_ else values.astype(dtype)


def arr(x):
    """A jaxwg array of host data."""
    return jnp.asarray(np.asarray(x))


def check(out, expected, **kw):
    assert_array(out, np.asarray(expected), **kw)


# -- matmul ------------------------------------------------------------------------------------

MATMUL_SHAPES = [
    ((3,), (3,)),
    ((2, 3), (3,)),
    ((3,), (3, 4)),
    ((2, 3), (3, 4)),
    ((1, 1), (1, 1)),
    ((1,), (1, 5)),
    ((7, 13), (13, 5)),  # odd sizes
    ((2, 3, 4), (4,)),
    ((4,), (2, 4, 5)),
    ((2, 3, 4), (2, 4, 5)),
    ((2, 1, 3, 4), (5, 4, 2)),  # batch broadcasting
    ((3, 1, 2, 3), (1, 4, 3, 2)),
    ((1, 2, 3), (1, 3, 2)),
    ((5, 0), (0, 7)),  # empty contraction: zeros
    ((0, 3), (3, 4)),  # empty free axis
    ((2, 0, 3), (3,)),
    ((0,), (0,)),
]


@pytest.mark.parametrize("sa,sb", MATMUL_SHAPES, ids=str)
def test_matmul_shapes(run, sa, sb):
    a, b = data(sa), data(sb)
    check(run(jnp.matmul, arr(a), arr(b)), np.matmul(a, b))


@pytest.mark.parametrize("dtype", [np.int32, np.bool_])
@pytest.mark.parametrize("sa,sb", [((3,), (3,)), ((2, 5), (5, 3)), ((2, 1, 1, 3), (4, 3, 2)),
                                   ((4, 0), (0, 2))], ids=str)
def test_matmul_int_bool(run, sa, sb, dtype):
    a, b = data(sa, dtype), data(sb, dtype)
    check(run(lambda x, y: x @ y, arr(a), arr(b)), np.matmul(a, b))


@st.composite
def matmul_shapes(draw):
    """Broadcast-compatible batch shapes (with 1s and missing axes) and core sizes 0..5."""
    nbatch = draw(st.integers(0, 3))
    batch = [draw(st.integers(1, 3)) for _ in range(nbatch)]
    ba, bb = [], []
    for n in batch:
        kind = draw(st.sampled_from(["both", "a1", "b1"]))
        ba.append(1 if kind == "a1" else n)
        bb.append(1 if kind == "b1" else n)
    ba = ba[draw(st.integers(0, nbatch)):]
    bb = bb[draw(st.integers(0, nbatch)):]
    m, k, n = (draw(st.integers(0, 5)) for _ in range(3))
    a = tuple(ba) + (m, k) if draw(st.booleans()) or ba else (k,)
    b = tuple(bb) + (k, n) if draw(st.booleans()) or bb else (k,)
    return a, b


@given(matmul_shapes())
def test_matmul_hypothesis(run, shapes):
    sa, sb = shapes
    a, b = data(sa), data(sb)
    check(run(jnp.matmul, arr(a), arr(b)), np.matmul(a, b))


def test_matmul_noncontiguous(run):
    a = data((6, 4))
    b = data((3, 12))
    out = run(lambda x, y: x.T @ y[:, ::2].T, arr(a), arr(b))
    check(out, a.T @ b[:, ::2].T)
    out = run(lambda x, y: jnp.matmul(jnp.broadcast_to(x[1:, 0], (2, 3, 5)), y.T[1:11:2, ::-1]),
              arr(a), arr(b))
    check(out, np.matmul(np.broadcast_to(a[1:, 0], (2, 3, 5)), b.T[1:11:2, ::-1]))


def test_matmul_large(run):
    """Reductions longer than one workgroup and outputs over many workgroups."""
    rng = np.random.default_rng(0)
    a = rng.standard_normal((300, 200)).astype(np.float32)
    b = rng.standard_normal((200, 100)).astype(np.float32)
    check(run(jnp.matmul, arr(a), arr(b)), a.astype(np.float64) @ b, dtype=np.float32,
          rtol=1e-4, atol=1e-4)


def test_float16(run):
    if run.platform == "webgpu" and not jaxwg.devices("webgpu")[0].backend.supports(dt.float16):
        pytest.skip("the adapter lacks shader-f16")
    a = np.full((4, 3000), 0.1, np.float16)
    b = np.full((3000,), 0.1, np.float16)
    want = (a.astype(np.float32) @ b.astype(np.float32)).astype(np.float16)
    # A float16 accumulator would stall near 32 (the spacing there is 1/32).
    check(run(jnp.matmul, arr(a), arr(b)), want, rtol=2e-3)
    check(run(lambda x: jnp.einsum("ij,ij->", x, x), arr(a)),
          np.float16(np.sum(a.astype(np.float32) ** 2)), rtol=2e-3)


def test_preferred_element_type(run):
    a, b = data((2, 3), np.int32), data((3, 4), np.int32)
    out = run(jnp.matmul, arr(a), arr(b), preferred_element_type=np.float32)
    check(out, (a @ b).astype(np.float32))
    out = run(jnp.dot, arr(a > 0), arr(b > 0), preferred_element_type=np.int32)
    check(out, (a > 0).astype(np.int32) @ (b > 0).astype(np.int32))
    out = run(lambda x, y: jnp.einsum("ij,jk->ik", x, y, preferred_element_type=np.float32),
              arr(a), arr(b))
    check(out, (a @ b).astype(np.float32))


# -- dot, vdot, inner, outer, tensordot --------------------------------------------------------

DOT_SHAPES = [((), ()), ((), (3,)), ((2, 3), ()), ((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)),
              ((2, 3), (3, 4)), ((2, 3, 4), (5, 4, 6)), ((2, 3, 4), (4,)), ((0, 3), (3, 0)),
              ((2, 0), (0, 3))]


@pytest.mark.parametrize("sa,sb", DOT_SHAPES, ids=str)
def test_dot(run, sa, sb):
    a, b = data(sa), data(sb)
    check(run(jnp.dot, arr(a), arr(b)), np.dot(a, b))


def test_dot_method_and_scalars(run):
    a = data((2, 3), np.int32)
    b = data((3,), np.int32)
    check(run(lambda x, y: x.dot(y), arr(a), arr(b)), a.dot(b))
    check(run(lambda x: jnp.dot(x, 2), arr(a)), a * 2)
    check(run(lambda x: jnp.dot(1.5, x), arr(a)), (1.5 * a).astype(np.float32))


@pytest.mark.parametrize("sa,sb", [((3,), (3,)), ((2, 3), (3, 2)), ((), ()), ((0,), (0, 2))],
                         ids=str)
def test_vdot(run, sa, sb):
    a, b = data(sa), data(sb)
    check(run(jnp.vdot, arr(a), arr(b)), np.vdot(a, b))


@pytest.mark.parametrize("sa,sb", [((3,), (3,)), ((2, 3), (4, 5, 3)), ((), (2, 3)), ((2, 3), ()),
                                   ((2, 0), (3, 0))], ids=str)
def test_inner(run, sa, sb):
    a, b = data(sa, np.int32), data(sb, np.int32)
    check(run(jnp.inner, arr(a), arr(b)), np.inner(a, b))


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.bool_])
@pytest.mark.parametrize("sa,sb", [((3,), (4,)), ((2, 3), (4,)), ((), (2,)), ((0,), (3,))], ids=str)
def test_outer(run, sa, sb, dtype):
    a, b = data(sa, dtype), data(sb, dtype)
    want = np.logical_and.outer(a, b).reshape(a.size, b.size) if dtype == np.bool_ \
        else np.outer(a, b)
    check(run(jnp.outer, arr(a), arr(b)), want)


TENSORDOT_CASES = [
    ((2, 3, 4), (3, 4, 5), 2),
    ((2, 3), (4, 5), 0),
    ((2, 3), (3, 5), 1),
    ((3,), (3,), 1),
    ((2, 3, 4), (4, 3, 5), ([1, 2], [1, 0])),
    ((2, 3), (2, 5), (0, 0)),
    ((2, 3), (5, 3), (-1, -1)),
    ((2, 0), (0, 3), 1),
    ((2, 3), (4,), -1),  # as JAX (and NumPy): no axes, an outer product
]


@pytest.mark.parametrize("sa,sb,axes", TENSORDOT_CASES, ids=str)
def test_tensordot(run, sa, sb, axes):
    a, b = data(sa), data(sb)
    check(run(jnp.tensordot, arr(a), arr(b), axes=axes), np.tensordot(a, b, axes))


# -- vecdot, matvec, vecmat --------------------------------------------------------------------


@pytest.mark.parametrize("sa,sb,axis", [((3,), (3,), -1), ((2, 3), (3,), -1),
                                        ((2, 1, 3), (4, 3), -1), ((3, 2), (3, 1), 0),
                                        ((2, 0), (2, 0), 1)], ids=str)
def test_vecdot(run, sa, sb, axis):
    a, b = data(sa), data(sb)
    want = np.sum(np.moveaxis(a, axis, -1) * np.moveaxis(b, axis, -1), axis=-1)
    check(run(jnp.vecdot, arr(a), arr(b), axis=axis), want)


def test_matvec_vecmat(run):
    m, v = data((2, 3, 4)), data((5, 1, 4))
    check(run(jnp.matvec, arr(m), arr(v)), np.matmul(m, v[..., None])[..., 0])
    w = data((3,))
    check(run(jnp.vecmat, arr(w), arr(m)), np.matmul(w, m))


# -- diagonal and trace ------------------------------------------------------------------------

DIAGONAL_CASES = [((3, 3), 0, 0, 1), ((3, 4), 1, 0, 1), ((3, 4), -2, 0, 1), ((3, 4), 7, 0, 1),
                  ((3, 4, 2), -1, 2, 0), ((2, 3, 4), 0, -1, 1), ((1, 1), 0, 0, 1), ((0, 3), 0, 0, 1)]


@pytest.mark.parametrize("shape,offset,axis1,axis2", DIAGONAL_CASES, ids=str)
def test_diagonal_trace(run, shape, offset, axis1, axis2):
    a = data(shape, np.int32)
    kw = {"offset": offset, "axis1": axis1, "axis2": axis2}
    check(run(jnp.trace, arr(a), **kw), np.trace(a, **kw), dtype=np.int32)
    want = np.diagonal(a, **kw)
    check(run(jnp.diagonal, arr(a), **kw), want)


def test_trace_dtypes(run):
    b = data((3, 3), np.bool_)
    check(run(jnp.trace, arr(b)), np.trace(b), dtype=np.int32)
    f = data((3, 4))
    check(run(jnp.trace, arr(f), dtype=np.int32), np.trace(f).astype(np.int32))


# -- einsum ------------------------------------------------------------------------------------

EINSUM_CASES = [
    ("ij,jk->ik", [(2, 3), (3, 4)]),
    ("ij,jk", [(2, 3), (3, 4)]),
    ("ij,kj->ik", [(2, 3), (4, 3)]),
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("bij,bjk->kbi", [(2, 3, 4), (2, 4, 5)]),
    ("i,i->", [(5,), (5,)]),
    ("i,i", [(5,), (5,)]),
    ("i,i->i", [(5,), (5,)]),
    ("i,j->ij", [(3,), (4,)]),
    ("i,j", [(3,), (4,)]),
    ("ij->ji", [(2, 3)]),
    ("ij->", [(2, 3)]),
    ("ij->j", [(2, 3)]),
    ("ba", [(2, 3)]),
    ("ii", [(3, 3)]),
    ("ii->i", [(3, 3)]),
    ("iji->j", [(3, 2, 3)]),
    ("ii,jk->kij", [(3, 3), (2, 4)]),
    ("ijk,ikl,lm->jm", [(2, 3, 4), (2, 4, 5), (5, 2)]),
    ("ij,jk,kl", [(2, 3), (3, 4), (4, 5)]),
    ("ab,cd,ef->", [(2, 1), (3, 2), (1, 2)]),
    ("...ij,...jk", [(2, 1, 3, 4), (5, 4, 2)]),
    ("...ij,...jk->...ik", [(3, 4), (4, 2)]),
    ("i...->...", [(2, 3, 4)]),
    ("...i->i", [(2, 3)]),
    ("ij,jk->ik", [(2, 1), (3, 4)]),  # size-1 axes broadcast
    ("ij,jk->ik", [(2, 0), (0, 3)]),
    (",->", [(), ()]),
    ("i,->i", [(3,), ()]),
    ("Ab,bc->cA", [(2, 3), (3, 2)]),
]


def _einsum_fn(*ops, spec):
    return jnp.einsum(spec, *ops)


@pytest.mark.parametrize("dtype", [np.float32, np.int32])
@pytest.mark.parametrize("spec,shapes", EINSUM_CASES, ids=[c[0] for c in EINSUM_CASES])
def test_einsum(run, spec, shapes, dtype):
    ops = [data(s, dtype) for s in shapes]
    want = np.einsum(spec, *ops) if spec != "...i->i" else ops[0].sum(axis=0)
    check(run(_einsum_fn, *map(arr, ops), spec=spec), want, dtype=dtype)


def test_einsum_bool_and_jax(run):
    a, b = data((3, 4), np.bool_), data((4, 2), np.bool_)
    check(run(_einsum_fn, arr(a), arr(b), spec="ij,jk->ik"), np.matmul(a, b))
    check(run(_einsum_fn, arr(a), spec="ij->"), np.any(a))


@given(st.data())
def test_einsum_hypothesis(run, draw):
    """Random two-operand specs over labels a-e with sizes 1..3: contractions, batch axes,
    sums over labels of one operand, diagonals and transposed outputs."""
    d = draw.draw
    sizes = {c: d(st.integers(1, 3)) for c in "abcde"}
    ta = "".join(d(st.lists(st.sampled_from("abcde"), max_size=3)))
    tb = "".join(d(st.lists(st.sampled_from("abcde"), max_size=3)))
    present = sorted(set(ta + tb))
    out = "".join(d(st.permutations(present))[:d(st.integers(0, len(present)))])
    spec = f"{ta},{tb}->{out}"
    a = data([sizes[c] for c in ta])
    b = data([sizes[c] for c in tb])
    check(run(_einsum_fn, arr(a), arr(b), spec=spec), np.einsum(spec, a, b))


def test_einsum_sublists_and_ignored_keywords():
    a, b = data((2, 3)), data((3,))
    check(jnp.einsum(arr(a), [0, 1], arr(b), [1], [0]), a @ b)
    check(jnp.einsum(arr(a), [Ellipsis, 1], arr(b), [1]), a @ b)
    check(jnp.einsum("i j , j", arr(a), arr(b), optimize="greedy", precision="highest"), a @ b)


# -- fusion ------------------------------------------------------------------------------------


def _kernels(fn):
    before = counters["kernels"]
    fn().block_until_ready()
    return counters["kernels"] - before


def test_fusion(platform):
    a, b = arr(data((6, 5))), arr(data((5, 6)))
    np.asarray(a), np.asarray(b)  # materialized inputs
    assert _kernels(lambda: a.T @ b.T * 2 + 1) == 1  # views in, elementwise epilogue fused
    assert _kernels(lambda: jnp.einsum("ij,ij->", a, a)) == 1
    assert _kernels(lambda: jnp.trace(a) + 1) == 1
    assert _kernels(lambda: jnp.outer(a[0], b[0]) - 1) == 1  # no reduction at all
    # A chain of two contractions needs its intermediate: two kernels.
    assert _kernels(lambda: jnp.einsum("ij,jk,kl->il", a, b, a)) == 2


# -- dtypes, weak types and errors against JAX -------------------------------------------------

PROMOTION_OPERANDS = [
    (np.float32, np.float32), (np.int32, np.int32), (np.bool_, np.bool_), (np.int32, np.float32),
    (np.bool_, np.int32), (np.uint32, np.int32), (np.float16, np.float32), (np.float16, 2.0),
    (np.int32, 2), (np.int32, 2.5), (np.bool_, 1), (np.uint32, np.uint32),
]


def _operand(spec, shape, module):
    if isinstance(spec, (int, float)):
        return spec
    return module.asarray(data(shape, spec, rng=np.random.default_rng(len(shape))))


@pytest.mark.parametrize("ta,tb", PROMOTION_OPERANDS, ids=str)
@pytest.mark.parametrize("name", ["dot", "matmul", "einsum", "tensordot", "inner", "outer",
                                  "vdot"])
def test_dtypes_match_jax(ta, tb, name):
    if name == "matmul" and isinstance(tb, (int, float)):
        return  # a scalar operand is an error for matmul (tested below)
    calls = {
        "dot": lambda m, x, y: m.dot(x, y),
        "matmul": lambda m, x, y: m.matmul(x, y),
        "einsum": lambda m, x, y: m.einsum("ij,...->i", x, y),
        "tensordot": lambda m, x, y: m.tensordot(x, y, 0),
        "inner": lambda m, x, y: m.inner(x, y),
        "outer": lambda m, x, y: m.outer(x, y),
        "vdot": lambda m, x, y: m.vdot(x, y) if not isinstance(y, (int, float)) else m.dot(x, y),
    }
    shape_b = {"matmul": (3, 2), "dot": (3,), "inner": (3,), "vdot": (3, 2)}.get(name, (2,))
    want = calls[name](jax_numpy, _operand(ta, (2, 3), jax_numpy), _operand(tb, shape_b, jax_numpy))
    got = calls[name](jnp, _operand(ta, (2, 3), jnp), _operand(tb, shape_b, jnp))
    assert got.shape == want.shape
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.weak_type == want.weak_type
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


def test_weak_scalars_match_jax():
    for fn in ("dot", "inner", "vdot"):
        want = getattr(jax_numpy, fn)(2.0, 3.0)
        got = getattr(jnp, fn)(2.0, 3.0)
        assert (got.dtype, got.weak_type) == (want.dtype, want.weak_type), fn
    want, got = jax_numpy.einsum(",", 2, 3), jnp.einsum(",", 2, 3)
    assert (got.dtype, got.weak_type) == (want.dtype, want.weak_type)


ERROR_CASES = [
    ("matmul core mismatch", lambda m: m.matmul(m.ones((2, 3)), m.ones((4, 5)))),
    ("matmul batch mismatch", lambda m: m.matmul(m.ones((2, 2, 3)), m.ones((3, 3, 5)))),
    ("matmul 0-d", lambda m: m.matmul(1.0, m.ones((3,)))),
    ("matmul 0-d rhs", lambda m: m.matmul(m.ones((3,)), m.ones(()))),
    ("matmul list", lambda m: m.matmul([1.0], m.ones((1,)))),
    ("dot mismatch", lambda m: m.dot(m.ones((2, 3)), m.ones((2, 3)))),
    ("vdot sizes", lambda m: m.vdot(m.ones((2, 3)), m.ones((3, 3)))),
    ("inner mismatch", lambda m: m.inner(m.ones((2, 3)), m.ones((2,)))),
    ("tensordot too many", lambda m: m.tensordot(m.ones((3, 3)), m.ones((3, 2)), 3)),
    ("tensordot lengths", lambda m: m.tensordot(m.ones((3, 3)), m.ones((3, 2)), [[0, 1], [0]])),
    ("tensordot sizes", lambda m: m.tensordot(m.ones((3, 3)), m.ones((3, 2)), [[0], [1]])),
    ("tensordot bad axes", lambda m: m.tensordot(m.ones((3, 3)), m.ones((3, 2)), "x")),
    ("tensordot axis range", lambda m: m.tensordot(m.ones((3, 3)), m.ones((3, 2)), (0, 5))),
    ("vecdot axes", lambda m: m.vecdot(m.ones((3, 3)), m.ones((3, 2)))),
    ("matvec sizes", lambda m: m.matvec(m.ones((2, 3)), m.ones((4,)))),
    ("matvec ranks", lambda m: m.matvec(m.ones((3,)), m.ones((3,)))),
    ("vecmat sizes", lambda m: m.vecmat(m.ones((4,)), m.ones((3, 2)))),
    ("matvec batch", lambda m: m.matvec(m.ones((2, 2, 3)), m.ones((4, 3)))),
    ("vecdot broadcast", lambda m: m.vecdot(m.ones((2, 3)), m.ones((4, 3)))),
    ("diagonal 1-d", lambda m: m.diagonal(m.ones((3,)))),
    ("diagonal same axes", lambda m: m.diagonal(m.ones((3, 3)), 0, 1, 1)),
    ("trace same axes", lambda m: m.trace(m.ones((3, 3)), 0, 1, 1)),
    ("einsum size", lambda m: m.einsum("ij,jk", m.ones((2, 2)), m.ones((3, 4)))),
    ("einsum repeated output", lambda m: m.einsum("ij,jk->ii", m.ones((2, 2)), m.ones((2, 4)))),
    ("einsum unknown output", lambda m: m.einsum("ij,jk->l", m.ones((2, 2)), m.ones((2, 4)))),
    ("einsum operand count", lambda m: m.einsum("ij,jk", m.ones((2, 2)))),
    ("einsum rank", lambda m: m.einsum("ijk", m.ones((2, 2)))),
    ("einsum two arrows", lambda m: m.einsum("ij->i->j", m.ones((2, 3)))),
    ("einsum dots", lambda m: m.einsum("ij.", m.ones((2, 3)))),
    ("einsum diagonal size", lambda m: m.einsum("ii->i", m.ones((2, 3)))),
    ("einsum list", lambda m: m.einsum("i,i", [1.0, 2.0], [1.0, 2.0])),
]


@pytest.mark.parametrize("case", ERROR_CASES, ids=[c[0] for c in ERROR_CASES])
def test_errors_match_jax(case):
    _, fn = case
    with pytest.raises(Exception) as expected:
        fn(jax_numpy)
    with pytest.raises(Exception) as got:
        fn(jnp)
    assert got.type is expected.type, (got.value, expected.value)


def test_errors_under_jit():
    with pytest.raises(TypeError, match="dot_general"):
        jaxwg.jit(jnp.matmul)(jnp.ones((2, 3)), jnp.ones((4, 5)))
    with pytest.raises(ValueError, match="Incompatible types for matmul"):
        jaxwg.jit(jnp.matmul)(jnp.ones((2, 2, 3)), jnp.ones((3, 3, 5)))


# -- products take the tiled matrix-product template ----------------------------------------------

TILED_PRODUCTS = {
    "matmul": (lambda m, a, b: a @ b, [(64, 32), (32, 48)]),
    "transposed": (lambda m, a, b: a.T @ b.T, [(32, 64), (48, 32)]),
    "batched": (lambda m, a, b: m.einsum("bij,bjk->bik", a, b), [(3, 64, 32), (3, 32, 48)]),
    "shared rhs": (lambda m, a, b: m.einsum("bij,jk->bik", a, b), [(3, 64, 32), (32, 48)]),
    "shared lhs": (lambda m, a, b: m.einsum("ij,bjk->bik", a, b), [(64, 32), (3, 32, 48)]),
    "tensordot": (lambda m, a, b: m.tensordot(a, b, axes=([1, 2], [0, 1])), [(40, 4, 8), (4, 8, 24)]),
    "bias and relu": (lambda m, a, b: m.maximum(a @ b + 1.0, 0.0), [(64, 32), (32, 48)]),
    "float16": (lambda m, a, b: a.astype(m.float16) @ b.astype(m.float16), [(64, 32), (32, 48)]),
}


@pytest.mark.parametrize("name", TILED_PRODUCTS)
def test_products_take_the_tiled_template(name):
    """The kernels these lower to are recognized as matrix products, so the planner tiles
    them on GPUs and software adapters (a regression here is a 30x slowdown, not an error)."""
    from jaxwg.backend.webgpu.tuner import AdapterTraits, plan

    f, shapes = TILED_PRODUCTS[name]
    host = [data(s) for s in shapes]
    args = [arr(x) for x in host]
    jitted = jaxwg.jit(lambda *a: f(jnp, *a))
    kernels = [k for k in jitted.lower(*args).kernels if k.reduction is not None]
    for software in (False, True):
        assert [p.tuning.tile is not None for k in kernels for p in plan(k, AdapterTraits(software))] == [True]
    check(jitted(*args), f(np, *host))


# Products whose operands are views and prologues, not plain buffers: the tiled template
# evaluates each operand's expression where it loads it.
VIEW_PRODUCTS = {
    "strided slices": (lambda m, a, b: a[::2, 1::3] @ b[::3, ::2], [(70, 100), (99, 40)]),
    "padding": (lambda m, a, b: m.pad(a, ((1, 2), (3, 0))) @ b, [(30, 20), (23, 33)]),
    "flips": (lambda m, a, b: m.flip(a, 1) @ m.flip(b, 0), [(33, 21), (21, 47)]),
    "reshaped transpose": (lambda m, a, b: a.reshape(20, 8, 3).transpose(1, 0, 2).reshape(8, 60).T @ b,
                           [(20, 24), (8, 36)]),
    "prologue and epilogue": (lambda m, a, b: m.tanh((a * 0.5 + 1.0) @ m.abs(b) - 3.0), [(40, 24), (24, 36)]),
    "int32": (lambda m, a, b: a.astype(m.int32) @ b.astype(m.int32), [(48, 20), (20, 52)]),
    "broadcast batch": (lambda m, a, b: m.matmul(a[None], b[:, None]).sum(0), [(17, 16, 18), (3, 18, 20)]),
}


@pytest.mark.parametrize("name", VIEW_PRODUCTS)
def test_products_of_views_and_prologues(name):
    from jaxwg.backend.webgpu.tuner import AdapterTraits, plan

    f, shapes = VIEW_PRODUCTS[name]
    host = [data(s) for s in shapes]
    jitted = jaxwg.jit(lambda *a: f(jnp, *a))
    kernels = jitted.lower(*[arr(x) for x in host]).kernels
    assert any(p.tuning.tile is not None for k in kernels if k.reduction for p in plan(k, AdapterTraits(False)))
    check(jitted(*[arr(x) for x in host]), f(np, *host))
    check(f(jnp, *[arr(x) for x in host]), f(np, *host))  # eager too
