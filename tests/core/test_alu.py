"""The AluExp node type: hash-consing, constants, traversal helpers, checks."""

import math

import numpy as np
import pytest

from jaxwg.core import alu
from jaxwg.core import dtypes as dt
from jaxwg.core.alu import Op
from jaxwg.core.alu_eval import evaluate


def test_structurally_equal_expressions_are_one_object():
    i = alu.gidx(10)
    assert (i * 2 + 1) is (i * 2 + 1)
    assert alu.const(dt.float32, 1.0) is not alu.const(dt.float64, 1.0)
    assert {alu.load(0, dt.float32, i): 1}[alu.load(0, dt.float32, i)] == 1


def test_constants_keep_negative_zero_and_nan_apart():
    assert alu.const(dt.float32, -0.0) is not alu.const(dt.float32, 0.0)
    assert math.copysign(1, alu.const(dt.float32, -0.0).arg) == -1
    assert math.isnan(alu.const(dt.float32, float("nan")).arg)
    assert alu.const(dt.float16, 1e30).arg == math.inf  # rounds like NumPy
    with pytest.raises(OverflowError, match="does not fit in int32"):
        alu.const(dt.int32, 2**31)


def test_nodes_are_immutable():
    with pytest.raises(AttributeError):
        alu.gidx(4).arg = ("ridx", 4)


def test_substitute_rewrite_fold_and_distinct_ops():
    i = alu.gidx(8)
    x = alu.load(0, dt.float32, i)
    e = alu.unary(Op.EXP, x) * alu.variable(dt.float32, "scale")
    assert e.substitute({"scale": alu.const(dt.float32, 2.0)}) is alu.unary(Op.EXP, x) * 2.0
    swapped = e.rewrite(lambda n: alu.unary(Op.LOG, n.src[0]) if n.op is Op.EXP else None)
    assert swapped is alu.unary(Op.LOG, x) * alu.variable(dt.float32, "scale")
    assert e.fold(lambda count, node: count + 1, 0) == len(e.toposort()) == 5
    ops = e.distinct_ops()
    assert ops[Op.LOAD] == {dt.float32} and ops[Op.SPECIAL] == {dt.int32}
    assert set(ops) == {Op.SPECIAL, Op.LOAD, Op.EXP, Op.VARIABLE, Op.MUL}


def test_repr_is_readable():
    i = alu.gidx(8)
    e = alu.where(i.lt(4), alu.load(0, dt.float32, i), alu.const(dt.float32, 0.0))
    assert repr(e) == "where((gidx < 4), in0[gidx], 0.0)"
    assert repr(alu.cast(dt.uint32, i) + 1) == "(cast<uint32>(gidx) + 1u)"


def test_deep_expressions_do_not_hit_the_recursion_limit():
    e = alu.load(0, dt.float32, alu.gidx(3))
    for _ in range(5000):
        e = e + 1.0
    out = evaluate(e, {"gidx": np.arange(3, dtype=np.int32)}, [np.zeros(3, np.float32)])
    assert (out == 5000).all()
    assert repr(e).endswith("+ 1.0)")


@pytest.mark.parametrize("build, message", [
    (lambda: alu.binary(Op.ADD, alu.gidx(2), alu.const(dt.float32, 1.0)), "operand dtypes differ"),
    (lambda: alu.unary(Op.EXP, alu.gidx(2)), "exp needs a float operand"),
    (lambda: alu.binary(Op.AND, alu.const(dt.float32, 1.0), alu.const(dt.float32, 1.0)), "integer or bool"),
    (lambda: alu.binary(Op.SHL, alu.const(dt.bool_, True), alu.const(dt.bool_, True)), "needs an integer"),
    (lambda: alu.bitcast(dt.int16, alu.gidx(2)), "cannot reinterpret int32 as int16"),
    (lambda: alu.bitcast(dt.float16, alu.const(dt.float32, 1.0)), "cannot reinterpret float32 as float16"),
    (lambda: alu.where(alu.gidx(2), alu.gidx(2), alu.gidx(2)), "condition must be bool"),
    (lambda: alu.load(0, dt.float32, alu.const(dt.float32, 0.0)), "index must be int32"),
])
def test_ill_typed_nodes_are_rejected(build, message):
    with pytest.raises(TypeError, match=message):
        build()
