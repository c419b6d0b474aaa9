"""Kernel index arithmetic never wraps: every int32 value a kernel computes lies in
int32's range as a mathematical integer, for any shape the device can hold, even where
the kernel reads through a virtual array of 2^31 elements or more (a matmul's
broadcast product). Ranges are computed here with unbounded Python integers, not with
`simplify.value_range` (which gives up on sums that may wrap).
"""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from jaxwg.core import alu
from jaxwg.core import dtypes as dt
from jaxwg.core.alu import Op
from jaxwg.core.alu_eval import evaluate
from jaxwg.frontend.fusion import schedule
from jaxwg.frontend.lazy import ELEMENTWISE, MOVE, REDUCE, Elementwise, LazyNode, Move, Reduce
from jaxwg.core.view import IndexLimitError, ShapeTracker

INT32 = (-(2**31), 2**31 - 1)


def math_range(node: alu.AluExp, memo: dict) -> tuple:
    """Inclusive range of an int32 node over unbounded integers (None: not index math)."""
    if node in memo:
        return memo[node]
    op, src = node.op, node.src
    ranges = [math_range(s, memo) for s in src]
    result = None
    if op is Op.CONST:
        result = (node.arg, node.arg)
    elif op is Op.SPECIAL:
        result = (0, node.arg[1] - 1)
    elif None in ranges or node.dtype is not dt.int32:
        result = None
    elif op in (Op.ADD, Op.SUB, Op.MUL):
        (a, b), (c, d) = ranges
        if op is Op.ADD:
            result = (a + c, b + d)
        elif op is Op.SUB:
            result = (a - d, b - c)
        else:
            products = [a * c, a * d, b * c, b * d]
            result = (min(products), max(products))
    elif op in (Op.IDIV, Op.MOD) and src[1].op is Op.CONST and src[1].arg > 0:
        (a, b), k = ranges[0], src[1].arg
        result = (int(a / k), int(b / k)) if op is Op.IDIV else (
            (0, min(b, k - 1)) if a >= 0 else (-(k - 1), k - 1))
    elif op is Op.WHERE:
        result = (min(ranges[1][0], ranges[2][0]), max(ranges[1][1], ranges[2][1]))
    memo[node] = result
    return result


def assert_no_wrap(exp: alu.AluExp) -> None:
    memo: dict = {}
    for node in exp.toposort():
        rng = math_range(node, memo)
        if rng is not None:
            assert INT32[0] <= rng[0] and rng[1] <= INT32[1], f"{node} ranges over {rng}"


def buffer(shape):
    return LazyNode.from_buffer(None, shape, dt.float32)


def elementwise(shape, *srcs):
    return LazyNode(ELEMENTWISE, shape, dt.float32, srcs, Elementwise(lambda *xs: math.prod(xs[1:], start=xs[0])))


def matmul_node(m, k, n, a=None, b=None):
    """The lowering of a (m, k) @ (k, n) product: both operands broadcast to (m, n, k),
    multiplied, summed over k."""
    a = buffer((m, k)) if a is None else a
    b = buffer((k, n)) if b is None else b
    full = (m, n, k)
    av = LazyNode(MOVE, full, dt.float32, (a,),
                  Move(ShapeTracker.from_shape((m, k)).reshape((m, 1, k)).expand(full), None, True))
    bv = LazyNode(MOVE, full, dt.float32, (b,),
                  Move(ShapeTracker.from_shape((k, n)).permute((1, 0)).reshape((1, n, k)).expand(full),
                       None, True))
    return LazyNode(REDUCE, (m, n), dt.float32, (elementwise(full, av, bv),), Reduce(Op.ADD, (2,)))


@pytest.mark.parametrize("m, k, n", [(1024, 1024, 4096), (4096, 4096, 4096), (1024, 1024, 2049),
                                     (512, 1024, 4096), (65536, 32768, 1)])
def test_matmul_indices_do_not_wrap(m, k, n):
    (step,) = schedule([matmul_node(m, k, n)])
    assert_no_wrap(step.kernel.exp)


def test_matmul_loads_the_right_elements():
    """The term for output (i, j) and reduction index k reads a[i, k] and b[k, j], at
    the last rows of the issue's (1024, 1024) @ (1024, 4096) product, where the old flat
    index `gidx * 1024 + ridx` wrapped."""
    m, k, n = 1024, 1024, 4096
    (step,) = schedule([matmul_node(m, k, n)])
    rng = np.random.default_rng(0)
    a, b = rng.integers(-8, 8, (m, k)).astype(np.float32), rng.integers(-8, 8, (k, n)).astype(np.float32)
    arrays = [a.ravel() if node.shape == (m, k) else b.ravel() for node in step.inputs]
    i = np.array([0, 511, 512, 1000, 1023], np.int32)[:, None]
    j = np.array([0, 1, 4095], np.int32)[None, :]
    kk = rng.integers(0, k, (5, 3)).astype(np.int32)
    terms = evaluate(step.kernel.exp, {"gidx": i * n + j, "ridx": kk}, arrays)
    np.testing.assert_array_equal(terms, a[i, kk] * b[kk, j])


@st.composite
def reductions(draw):
    """A reduction over some axes of a product of broadcast views of small buffers,
    with a virtual shape of up to 2^40 elements."""
    ndim = draw(st.integers(2, 4))
    shape = tuple(draw(st.lists(st.sampled_from([1, 3, 7, 64, 1000, 4096, 65536]),
                                min_size=ndim, max_size=ndim)))
    operands = []
    for _ in range(draw(st.integers(1, 3))):
        # Each operand is a real buffer over a subset of the axes (at most 2^24 elements),
        # broadcast to the full shape, possibly flipped.
        keep = [a for a in range(ndim) if draw(st.booleans())]
        while math.prod(shape[a] for a in keep) > 2**24:
            keep.pop()
        real = tuple(shape[a] if a in keep else 1 for a in range(ndim))
        tracker = ShapeTracker.from_shape(real)
        flips = [a for a in keep if draw(st.booleans())]
        if flips:
            tracker = tracker.flip(flips)
        operands.append(LazyNode(MOVE, shape, dt.float32, (buffer(real),),
                                 Move(tracker.expand(shape), None, True)))
    axes = tuple(sorted(draw(st.sets(st.integers(0, ndim - 1), min_size=1))))
    kept = tuple(n for a, n in enumerate(shape) if a not in axes)
    if math.prod(kept) > 2**28 or math.prod(shape[a] for a in axes) > 2**31:
        axes = tuple(range(ndim - 1)) if math.prod(shape[-1:]) <= 2**28 else tuple(range(1, ndim))
        kept = tuple(n for a, n in enumerate(shape) if a not in axes)
    product = elementwise(shape, *operands)
    return LazyNode(REDUCE, kept, dt.float32, (product,), Reduce(Op.ADD, axes))


@given(reductions())
def test_reduction_indices_stay_in_range(node):
    try:
        steps = schedule([node])
    except IndexLimitError:
        assert math.prod(node.srcs[0].shape) // max(node.size, 1) > 2**31 - 1
        return
    for step in steps:
        for exp in step.kernel.expressions:
            assert_no_wrap(exp)


def test_reduction_past_the_index_limit_is_a_clear_error():
    node = LazyNode(REDUCE, (), dt.float32, (LazyNode(
        MOVE, (2**31,), dt.float32, (buffer((1,)),),
        Move(ShapeTracker.from_shape((1,)).expand((2**31,)), None, True)),), Reduce(Op.ADD, (0,)))
    with pytest.raises(IndexLimitError, match="2147483648 elements.*32-bit"):
        schedule([node])
