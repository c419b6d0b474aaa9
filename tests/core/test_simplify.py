"""simplify() must never change a value: random expressions are evaluated before and
after simplification over every index value, and must agree exactly (NaN matches
NaN, -0.0 does not match 0.0). Hand-written cases pin down the rules index code
depends on."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jaxwg.core import alu
from jaxwg.core import dtypes as dt
from jaxwg.core.alu import Op
from jaxwg.core.alu_eval import evaluate

INT_INPUT = np.array([0, 1, -1, 7, -7, 2**31 - 1, -2**31, 3, 100000, -100000, 12, 5, -3],
                     np.int32)
FLOAT_INPUT = np.array([0.0, -0.0, 1.5, -2.5, np.inf, -np.inf, np.nan, 3.0, 1e-40, -7.0,
                        0.5, 65504.0, -1e30], np.float32)

# -- random expressions -----------------------------------------------------------------
# One recursive strategy builds expressions of any dtype; an op that needs a given
# dtype casts its operands to it, which exercises the casts too. Index ranges vary per
# leaf: gidx(5) and gidx(12) in one expression both hold when gidx < 5, so `index_env`
# takes the smallest range.
SIZES = [1, 2, 3, 4, 5, 6, 8, 12, 13]
sizes = st.sampled_from(SIZES)
small_ints = st.integers(-20, 20)
edge_ints = st.sampled_from([2**31 - 1, -2**31, 2**30, -2**30, 65536, 100000, -100000])
float_consts = st.sampled_from([0.0, -0.0, 1.0, -1.0, 0.5, 2.0, 3.0, -3.5, 1e30, -1e-30,
                                math.inf, -math.inf, math.nan])
INT_BINARY = [Op.ADD, Op.SUB, Op.MUL, Op.IDIV, Op.MOD, Op.MIN, Op.MAX]
FLOAT_BINARY = [Op.ADD, Op.SUB, Op.MUL, Op.DIV, Op.IDIV, Op.MOD, Op.MIN, Op.MAX]
FLOAT_UNARY = [Op.NEG, Op.ABS, Op.SQRT, Op.FLOOR, Op.CEIL, Op.ROUND, Op.TRUNC]
BOOL_BINARY = [Op.AND, Op.OR, Op.XOR, Op.MIN, Op.MAX, Op.ADD, Op.MUL]

# Index arithmetic leaves: what lowered views are made of. Big constants and the
# full-range input make sums wrap and dividends go negative now and then.
index_leaves = st.one_of(
    sizes.map(alu.gidx),
    sizes.map(alu.ridx),
    small_ints.map(lambda v: alu.const(dt.int32, v)),
    edge_ints.map(lambda v: alu.const(dt.int32, v)),
    sizes.map(lambda n: alu.load(0, dt.int32, alu.gidx(n))),
)
leaves = st.one_of(
    index_leaves,
    float_consts.map(lambda v: alu.const(dt.float32, v)),
    sizes.map(lambda n: alu.load(1, dt.float32, alu.gidx(n))),
    st.booleans().map(lambda v: alu.const(dt.bool_, v)),
)


def extend(children):
    ints = children.map(lambda e: alu.cast(dt.int32, e))
    floats = children.map(lambda e: alu.cast(dt.float32, e))
    bools = children.map(lambda e: alu.cast(dt.bool_, e))
    return st.one_of(
        # int32: index arithmetic, with division and remainder by small constants
        st.builds(alu.binary, st.sampled_from(INT_BINARY), ints, ints),
        st.builds(lambda a, d, op: alu.binary(op, a, alu.const(dt.int32, d)),
                  ints, st.integers(-3, 12), st.sampled_from([Op.IDIV, Op.MOD])),
        st.builds(lambda a, k: a * k, ints, small_ints),
        st.builds(alu.where, bools, ints, ints),
        ints.map(lambda a: -a),
        # float32
        st.builds(alu.binary, st.sampled_from(FLOAT_BINARY), floats, floats),
        st.builds(alu.unary, st.sampled_from(FLOAT_UNARY), floats),
        st.builds(alu.where, bools, floats, floats),
        # bool
        st.builds(alu.binary, st.sampled_from(BOOL_BINARY), bools, bools),
        st.builds(lambda a, b: a.lt(b), ints, ints),
        st.builds(lambda a, b: a.ne(b), ints, ints),
        st.builds(lambda a, b: a.lt(b), floats, floats),
        st.builds(lambda a, b: a.ne(b), floats, floats),
        bools.map(lambda a: ~a),
    )


expressions = st.recursive(leaves, extend, max_leaves=14)



def extend_index(children):
    factors = small_ints | edge_ints
    divisors = (st.integers(1, 12) | st.sampled_from([65536, 2**30, 2**31 - 1])).map(
        lambda v: alu.const(dt.int32, v))
    return st.one_of(
        st.builds(lambda a, b: a + b, children, children),
        st.builds(lambda a, b: a - b, children, children),
        st.builds(lambda a, k: a * k, children, factors),
        st.builds(lambda a, d: a // d, children, divisors),
        st.builds(lambda a, d: a % d, children, divisors),
        st.builds(lambda op, a, b: alu.binary(op, a, b), st.sampled_from([Op.MIN, Op.MAX]),
                  children, children),
        st.builds(lambda a, b, c, d: alu.where(a.lt(b), c, d), children, children, children,
                  children),
    )


index_expressions = st.recursive(index_leaves, extend_index, max_leaves=24)

# Float arithmetic alone, rich in signed zeros, infinities and NaN.
float_leaves = st.one_of(
    st.sampled_from([0.0, -0.0]).map(lambda v: alu.const(dt.float32, v)),
    float_consts.map(lambda v: alu.const(dt.float32, v)),
    sizes.map(lambda n: alu.load(1, dt.float32, alu.gidx(n))),
)


def extend_float(children):
    return st.one_of(
        st.builds(alu.binary, st.sampled_from(FLOAT_BINARY), children, children),
        st.builds(alu.unary, st.sampled_from(FLOAT_UNARY), children),
        st.builds(lambda a, b, c, d: alu.where(a.lt(b), c, d), children, children, children,
                  children),
    )


float_expressions = st.recursive(float_leaves, extend_float, max_leaves=12)


def index_env(exp: alu.AluExp) -> dict:
    """Every (gidx, ridx) allowed by all the index ranges in `exp`, as a 2-D grid."""
    limits = {"gidx": max(SIZES), "ridx": max(SIZES)}
    for node in exp.toposort():
        if node.op is Op.SPECIAL:
            name, size = node.arg
            limits[name] = min(limits[name], size)
    return {"gidx": np.arange(limits["gidx"], dtype=np.int32)[:, None],
            "ridx": np.arange(limits["ridx"], dtype=np.int32)[None, :]}


def values(exp: alu.AluExp, env: dict) -> np.ndarray:
    return evaluate(exp, env, [INT_INPUT, FLOAT_INPUT])


def assert_same_values(a: np.ndarray, b: np.ndarray) -> None:
    assert a.dtype == b.dtype
    a, b = np.broadcast_arrays(a, b)
    if a.dtype.kind == "f":
        assert (np.isnan(a) == np.isnan(b)).all()
        assert (np.signbit(a) == np.signbit(b))[~np.isnan(a)].all()
        a, b = np.nan_to_num(a), np.nan_to_num(b)
    np.testing.assert_array_equal(a, b)


def check_preserved(exp: alu.AluExp) -> None:
    simplified = exp.simplify()
    assert simplified.dtype is exp.dtype
    env = index_env(exp)  # not of `simplified`: it may have dropped the tightest range
    assert_same_values(values(exp, env), values(simplified, env))


@settings(deadline=None, max_examples=600)
@given(index_expressions)
def test_simplify_preserves_index_values(exp):
    check_preserved(exp)


@settings(deadline=None, max_examples=500)
@given(float_expressions)
def test_simplify_preserves_float_values(exp):
    check_preserved(exp)


@settings(deadline=None, max_examples=600)
@given(expressions, st.sampled_from([dt.int32, dt.float32, dt.bool_]))
def test_simplify_preserves_values_of_mixed_dtypes(exp, dtype):
    check_preserved(alu.cast(dtype, exp))


# -- hand-written rules -----------------------------------------------------------------
i = alu.gidx(24)
x = alu.load(0, dt.int32, alu.gidx(24))  # an int32 with no known range
f = alu.load(1, dt.float32, alu.gidx(24))
TRUE, FALSE = alu.const(dt.bool_, True), alu.const(dt.bool_, False)


@pytest.mark.parametrize("exp, expected", [
    # reshape identities: splitting a flat index into axes and joining it back
    ((i // 12) * 12 + ((i // 4) % 3) * 4 + i % 4, i),
    (((i // 4) % 3) * 4 + i % 4, i % 12),
    ((i // 6) * 6 + i % 6 + 5, i + 5),
    ((i * 4 + 3) // 4, i),
    ((i * 4 + 3) % 4, alu.const(dt.int32, 3)),
    ((i * 6 + 4) // 3, i * 2 + 1),
    ((i // 2) // 3, i // 6),
    ((i % 12) % 4, i % 4),
    (i % 24, i),
    (i // 24, alu.const(dt.int32, 0)),
    ((x // 2) // 3, x // 6),  # truncating division nests for negative x too
    # an offset below the coefficients' common divisor never reaches the next multiple
    ((i * 4 + 3) // 8, i // 2),  # and division nests through the factor 4
    ((i * 4 + 3) % 8, (i % 2) * 4 + 3),
    ((i * 6 + 5) // 4, (i * 6 + 4) // 4),
    ((x * 4 + 3) // 8, (x * 4 + 3) // 8),  # x may be negative: truncation is not floor
    # floor division distributes over a multiple of the divisor (a non-negative rest)
    ((i * 8 + i % 6) // 4, (i % 6) // 4 + i * 2),
    ((i * 8 + i % 6) % 4, (i % 6) % 4),
    # an index split into axes, read through a coarser axis or compared with an axis bound
    (((i // 4) * 8 + i % 4) // 16, i // 8),
    (alu.const(dt.int32, 7).lt((i // 4) * 8 + i % 4), alu.const(dt.int32, 3).lt(i)),
    (((i // 4) * 8 + i % 4).lt(16), i.lt(8)),
    (((i // 4) * 8 + i % 4).lt(15), (i % 4 + (i // 4) * 8).lt(15)),  # depends on i % 4
    # ints fold x * 0; floats do not (NaN * 0 and inf * 0 are NaN)
    (x * 0, alu.const(dt.int32, 0)),
    (f * 0.0, f * 0.0),
    (f + 0.0, f + 0.0),  # -0.0 + 0.0 is 0.0
    (f + -0.0, f),
    (f - 0.0, f),
    (f * 1.0, f),
    # x ^ x and integer x - x are 0 (shader compilers fold them: see the float guards)
    (alu.binary(Op.XOR, x, x), alu.const(dt.int32, 0)),
    (x - x, alu.const(dt.int32, 0)),
    (f - f, f - f),  # inf - inf is NaN
    # x < x is False, and integer x != x (not float: NaN != NaN)
    (i.lt(i), FALSE),
    (f.lt(f), FALSE),
    (alu.compare(Op.CMPNE, x, x), FALSE),
    (alu.compare(Op.CMPNE, f, f), alu.compare(Op.CMPNE, f, f)),
    # ranges decide comparisons
    (i.lt(24), TRUE),
    (i.lt(0), FALSE),
    ((i % 4).lt(4), TRUE),
    ((i // 4).lt(6), TRUE),
    ((i // 4).lt(5), i.lt(20)),  # the mask of an outer axis tests the flat index
    (alu.const(dt.int32, 1).lt(i // 4), alu.const(dt.int32, 7).lt(i)),
    ((i - 3).lt(5), i.lt(8)),
    (alu.const(dt.int32, 2).lt(i + 4), TRUE),
    (alu.const(dt.int32, 6).lt(i + 4), alu.const(dt.int32, 2).lt(i)),
    ((x + 1).lt(5), (x + 1).lt(5)),  # x + 1 may wrap
    (i.ne(-1), TRUE),
    (alu.const(dt.int32, 23).lt(i), FALSE),
    (x.lt(24), x.lt(24)),
    # min and max with ordered ranges
    (alu.binary(Op.MIN, i, alu.const(dt.int32, 30)), i),
    (alu.binary(Op.MAX, i % 4, alu.const(dt.int32, 3)), alu.const(dt.int32, 3)),
    # absorption, integers only (float min/max keep operand order, as above)
    (alu.binary(Op.MAX, x, alu.binary(Op.MAX, x, -x)), alu.binary(Op.MAX, x, -x)),
    (alu.binary(Op.MIN, alu.binary(Op.MIN, x, -x), x), alu.binary(Op.MIN, x, -x)),
    (alu.binary(Op.MAX, x, alu.binary(Op.MIN, x, -x)), alu.binary(Op.MAX, x, alu.binary(Op.MIN, x, -x))),
    (alu.binary(Op.MAX, f, alu.binary(Op.MAX, f, -f)), alu.binary(Op.MAX, f, alu.binary(Op.MAX, f, -f))),
])
def test_rule(exp, expected):
    assert exp.simplify() is expected
    env = {"gidx": np.arange(24, dtype=np.int32)}
    assert_same_values(values(exp, env), values(expected, env))


def test_float_min_max_keep_operand_order():
    # np.minimum(0.0, -0.0) is -0.0 but np.minimum(-0.0, 0.0) is 0.0: no swapping.
    exp = alu.binary(Op.MIN, alu.const(dt.float32, 0.0), f)
    assert exp.simplify() is exp


@pytest.mark.parametrize("exp", [
    # int32 sums wrap: coefficients and constants beyond int32 wrap the same way
    x * 2**30 + x * 2**30 + x * 2**30 + 2**30 + 2**30 + 2**30,
    x * -2**31 + x + -2**31,
    # a * d beyond int32: no single divisor; (-2**31 // 2) // 2**30 is -1
    (x // 2) // 2**30,
    ((x // 2) % 2**30) * 2 + x % 2,
    # -5 % 5 is 0, not -5
    (alu.gidx(10) - 5) % 5,
    (alu.gidx(10) - 4) % 5,
])
def test_edge_cases_keep_values(exp):
    check_preserved(exp)
