"""Printing AluExp DAGs: shared nodes once, as bindings, so text grows with the DAG's size."""

import time

from jaxwg.core import alu
from jaxwg.core import dtypes as dt
from jaxwg.core.alu import Op


def _sin_plus_self(steps: int) -> alu.AluExp:
    """`x = sin(x) + x`, `steps` times: 2**steps paths through 2 * steps + 2 nodes."""
    x = alu.load(0, dt.float32, alu.gidx(8))
    for _ in range(steps):
        x = alu.unary(Op.SIN, x) + x
    return x


def test_shared_nodes_print_once():
    assert repr(_sin_plus_self(2)) == ("let t0 = (sin(in0[gidx]) + in0[gidx]) "
                                       "in (sin(t0) + t0)")
    assert len(repr(_sin_plus_self(20))) < 1000  # 20 MB when every path is printed


def test_text_is_linear_in_the_dag():
    start = time.perf_counter()
    text = repr(_sin_plus_self(2000))
    assert time.perf_counter() - start < 1.0
    assert len(text) < 2000 * 40


def test_trees_and_short_shared_nodes_print_in_place():
    x = alu.load(0, dt.float32, alu.gidx(8))
    assert repr(alu.unary(Op.EXP, x) * 2.0 + 1.0) == "((exp(in0[gidx]) * 2.0) + 1.0)"
    inside = alu.gidx(3).lt(2)  # short: repeated rather than named
    index = alu.where(inside, alu.gidx(3), alu.const(dt.int32, 0))
    padded = alu.where(inside, alu.load(0, dt.float32, index), alu.const(dt.float32, 0.0))
    assert repr(padded) == "where((gidx < 2), in0[where((gidx < 2), gidx, 0)], 0.0)"
    big = alu.const(dt.float64, 0.1 + 0.2)  # leaves are never bound, however long
    assert repr(big * big) == "(0.30000000000000004:float64 * 0.30000000000000004:float64)"
