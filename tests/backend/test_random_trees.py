"""Random AluExp trees: the code generator (CSE, selects, casts, helpers) against NumPy.

Trees mix every integer and bool op with the float ops whose results are exactly
rounded (so any difference is a code generation bug, not an accuracy question):
+ - * min max neg abs floor ceil round trunc fmod, compares, selects and casts.
Leaves are loads of each dtype's input, constants (NaN, inf, -0.0, integer extremes)
and the output index. Transcendental accuracy is covered op by op in test_ops.py.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jaxwg.core import alu
from jaxwg.core import dtypes as dt
from jaxwg.core.alu import Op
from jaxwg.core.kernel import Kernel

from .helpers import assert_equal_values, reference, run_kernel, with_specials

SIZES = (40, 1024)  # 1024: four outputs per thread through vec4 loads on WebGPU
TYPES = (dt.bool_, dt.int8, dt.uint8, dt.int16, dt.uint16, dt.int32, dt.uint32, dt.float16, dt.float32)
ARG = {d: i for i, d in enumerate(TYPES)}
INT_BINARY = [Op.ADD, Op.SUB, Op.MUL, Op.IDIV, Op.MOD, Op.MIN, Op.MAX, Op.AND, Op.OR, Op.XOR, Op.SHL, Op.SHR]
FLOAT_BINARY = [Op.ADD, Op.SUB, Op.MUL, Op.MIN, Op.MAX, Op.MOD]
BOOL_BINARY = [Op.AND, Op.OR, Op.XOR, Op.ADD, Op.MUL]
FLOAT_UNARY = [Op.NEG, Op.ABS, Op.FLOOR, Op.CEIL, Op.ROUND, Op.TRUNC]
INT_UNARY = [Op.NEG, Op.NOT, Op.ABS]


def constants(dtype):
    if dtype.is_bool:
        return st.booleans()
    if dtype.is_float:
        return st.sampled_from([0.0, -0.0, 1.0, -2.5, 3.0, 0.5, np.inf, -np.inf, np.nan, 1e30])
    lo, hi = dt.bounds(dtype)
    return st.one_of(st.integers(lo, hi), st.sampled_from([0, 1, 2, 3, 31, lo, hi]))


@st.composite
def trees(draw, dtype: dt.DType, depth: int, size: int):
    if depth == 0 or draw(st.integers(0, 4)) == 0:
        return draw(leaves(dtype, size))
    sub = lambda d: trees(d, depth - 1, size)  # noqa: E731
    kinds = ["unary", "binary", "where", "cast"] + (["compare"] if dtype.is_bool else [])
    kind = draw(st.sampled_from(kinds))
    if kind == "where":
        return alu.where(draw(sub(dt.bool_)), draw(sub(dtype)), draw(sub(dtype)))
    if kind == "cast":
        return alu.cast(dtype, draw(sub(draw(st.sampled_from(TYPES)))))
    if kind == "compare":
        operand = draw(st.sampled_from(TYPES))
        op = draw(st.sampled_from([Op.CMPLT, Op.CMPNE]))
        return alu.compare(op, draw(sub(operand)), draw(sub(operand)))
    if kind == "unary":
        ops = [Op.NOT] if dtype.is_bool else FLOAT_UNARY if dtype.is_float else INT_UNARY
        return alu.unary(draw(st.sampled_from(ops)), draw(sub(dtype)))
    ops = BOOL_BINARY if dtype.is_bool else FLOAT_BINARY if dtype.is_float else INT_BINARY
    return alu.binary(draw(st.sampled_from(ops)), draw(sub(dtype)), draw(sub(dtype)))


@st.composite
def leaves(draw, dtype: dt.DType, size: int):
    kind = draw(st.sampled_from(["load", "load", "shifted", "const", "index"]))
    gidx = alu.gidx(size)
    if kind == "load":
        return alu.load(ARG[dtype], dtype, gidx)
    if kind == "shifted":  # a load that is not at gidx: keeps that input scalar
        return alu.load(ARG[dtype], dtype, (gidx + 3) % size)
    if kind == "const":
        return alu.const(dtype, draw(constants(dtype)))
    return alu.cast(dtype, gidx)


@st.composite
def inputs(draw, size: int):
    arrays = []
    for d in TYPES:
        if d.is_float:  # small integers and halves keep float results exact
            base = draw(st.lists(st.integers(-40, 40), min_size=40, max_size=40))
            vals = with_specials(np.array(base, d.np) / 2, d)
        elif d.is_bool:
            vals = np.array(draw(st.lists(st.booleans(), min_size=40, max_size=40)))
        else:
            lo, hi = dt.bounds(d)
            vals = with_specials(draw(st.lists(st.integers(lo, hi), min_size=40, max_size=40)), d)
        arrays.append(np.resize(vals, size).astype(d.np))
    return arrays


def check_random_tree(webgpu, cpu, dtype, size, data):
    if not webgpu.supports(dt.float16):
        pytest.skip(f"{webgpu.describe()} lacks float16, which the trees read")
    exp = data.draw(trees(dtype, 4, size))
    arrays = data.draw(inputs(size))
    kernel = Kernel(len(TYPES), size, exp)
    want = reference(kernel, arrays)
    assert_equal_values(run_kernel(cpu, kernel, arrays), want, repr(exp))
    assert_equal_values(run_kernel(webgpu, kernel, arrays), want, repr(exp))


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("dtype", TYPES, ids=str)
@given(data=st.data())
def test_random_tree(webgpu, cpu, dtype, size, data):
    check_random_tree(webgpu, cpu, dtype, size, data)


@pytest.mark.slow
@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("dtype", TYPES, ids=str)
@settings(max_examples=400)
@given(data=st.data())
def test_random_tree_long_search(webgpu, cpu, dtype, size, data):
    check_random_tree(webgpu, cpu, dtype, size, data)


@given(data=st.data())
def test_random_tree_survives_simplify(data):
    """simplify() keeps the value of whole trees (index arithmetic is tested in core)."""
    exp = data.draw(trees(data.draw(st.sampled_from(TYPES)), 4, 40))
    arrays = data.draw(inputs(40))
    kernel = Kernel(len(TYPES), 40, exp)
    assert_equal_values(reference(Kernel(len(TYPES), 40, exp.simplify()), arrays),
                        reference(kernel, arrays), repr(exp))
