"""The result dtype of binary operations: JAX's promotion table, weak types included.

`TABLE` is JAX's documented type-promotion table ("Type promotion semantics" in the
JAX docs, `jax_enable_x64` off) restricted to the dtypes jaxwg kernels have, plus the
weak types of Python scalars (`i*`: int, `f*`: float). A trailing `*` marks a weakly
typed result. Where JAX is installed the table itself is checked against it too.
"""

import numpy as np
import pytest

import jaxwg
import jaxwg.numpy as jnp

from .helpers import jax, jax_numpy

KINDS = ["b", "u32", "i32", "f16", "f32", "i*", "f*"]
TABLE = """
       b     u32   i32   f16   f32   i*    f*
b      b     u32   i32   f16   f32   i32*  f32*
u32    u32   u32   i32   f16   f32   u32   f32*
i32    i32   i32   i32   f16   f32   i32   f32*
f16    f16   f16   f16   f16   f32   f16   f16
f32    f32   f32   f32   f32   f32   f32   f32
i*     i32*  u32   i32   f16   f32   i32*  f32*
f*     f32*  f32*  f32*  f16   f32   f32*  f32*
"""
NAMES = {"b": "bool", "u32": "uint32", "i32": "int32", "f16": "float16", "f32": "float32"}


def _parse():
    rows = [line.split() for line in TABLE.strip().splitlines()]
    header = rows[0]
    return {(row[0], col): entry for row in rows[1:] for col, entry in zip(header, row[1:])}


EXPECTED = _parse()


def _operand(kind, module, value=1):
    if kind == "i*":
        return int(value)
    if kind == "f*":
        return float(value)
    return module.asarray(np.full(3, value, NAMES[kind]))


def _expected(entry):
    weak = entry.endswith("*")
    return np.dtype(NAMES[entry.rstrip("*")]), weak


@pytest.mark.parametrize("a", KINDS)
@pytest.mark.parametrize("b", KINDS)
def test_add_follows_the_table(a, b):
    want_dtype, want_weak = _expected(EXPECTED[a, b])
    out = jnp.add(_operand(a, jnp), _operand(b, jnp))
    assert (out.dtype, out.weak_type) == (want_dtype, want_weak)


@pytest.mark.parametrize("a", KINDS)
@pytest.mark.parametrize("b", KINDS)
def test_table_is_jax(a, b):
    assert _jax_result("add", a, b) == _expected(EXPECTED[a, b])


# Binary operations and the kinds they accept; the result dtype is the table's (made
# inexact for true division, bool for comparisons).
BINARY = {
    "add": "all", "subtract": "numeric", "multiply": "all", "true_divide": "all",
    "floor_divide": "numeric", "remainder": "numeric", "power": "numeric", "maximum": "all",
    "minimum": "all", "less": "all", "equal": "all", "arctan2": "all",
    "bitwise_and": "integer", "bitwise_or": "integer", "left_shift": "integer",
}
_ACCEPTS = {"all": KINDS, "numeric": [k for k in KINDS if k != "b"],
            "integer": ["b", "u32", "i32", "i*"]}


def _result_for(name, entry, a, b):
    dtype, weak = _expected(entry)
    if name in ("less", "equal"):
        return np.dtype(bool), weak  # weak when both operands are
    if name == "power" and (b in ("u32", "i32") or (a, b) == ("i*", "i*")):
        return dtype, False  # JAX's power by a traced integer is strongly typed
    if name in ("true_divide", "arctan2") and dtype.kind != "f":
        return np.dtype("float32"), weak
    return dtype, weak


def _jax_result(name, a, b):
    """JAX's result (dtype, weak_type), by abstract evaluation (nothing is compiled)."""
    out = jax.eval_shape(getattr(jax_numpy, name), _operand(a, jax_numpy, 2),
                         _operand(b, jax_numpy, 2))
    return out.dtype, out.weak_type


def _traced_result(name, a, b):
    """jaxwg's result when both operands are traced arguments (what `eval_shape` sees:
    Python scalars become weakly typed tracers)."""
    closed = jaxwg.make_jaxpr(getattr(jnp, name))(_operand(a, jnp, 2), _operand(b, jnp, 2))
    out = closed.out_avals[0]
    return out.dtype.np, out.weak_type


@pytest.mark.parametrize("name", sorted(BINARY))
def test_every_binary_op_promotes_like_jax(name):
    kinds = _ACCEPTS[BINARY[name]]  # nothing runs: float16 needs no device support
    for a in kinds:
        for b in kinds:
            if name == "left_shift" and "b" in (a, b):
                continue  # shifts take integers only
            want = _result_for(name, EXPECTED[a, b], a, b)
            assert want == _jax_result(name, a, b), ("table", name, a, b)
            assert _traced_result(name, a, b) == want, (name, a, b)
