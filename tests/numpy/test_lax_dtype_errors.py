"""`jax.lax`'s dtype and shape errors for its elementwise operations and reductions,
against JAX live: the same exception type and message, checked in JAX's order (shapes,
then each operand's kind of dtype, then equal dtypes), with its tips naming the
`jax.numpy` function that promotes."""

import numpy as np
import pytest

from jaxwg import lax

from .helpers import jax

F32, F16, I32, U32 = (np.ones(3, d) for d in (np.float32, np.float16, np.int32, np.uint32))
BOOL, C64 = np.ones(3, bool), np.ones(3, np.complex64)
# Operand pairs that one op or another refuses.
PAIRS = [(I32, F32), (F32, I32), (I32, U32), (F32, F16), (BOOL, I32), (I32, BOOL), (F32, C64), (BOOL, BOOL),
         (F32, F32), (I32, I32), (C64, C64), (F32, np.ones(2, np.float32)), (I32, np.ones((2, 3), np.float32))]
BINARY = ["add", "sub", "mul", "div", "rem", "pow", "max", "min", "nextafter", "bitwise_and", "bitwise_or",
          "bitwise_xor", "eq", "ne", "lt", "le", "gt", "ge", "shift_left", "shift_right_logical",
          "shift_right_arithmetic", "complex"]
UNARY = ["neg", "sign", "abs", "bitwise_not", "floor", "round", "is_finite", "exp", "sin", "sqrt", "cbrt",
         "erf", "square"]


def _outcome(fn, *args):
    try:
        fn(*args)
    except (TypeError, ValueError) as e:
        return type(e).__name__, str(e)
    return "ok"


def _same_outcome(name, *args, **static):
    # JAX's side abstractly (eval_shape: the same checks, nothing compiled)
    theirs = _outcome(lambda *a: jax.eval_shape(lambda *b: getattr(jax.lax, name)(*b, **static), *a), *args)
    if theirs == "ok":
        return  # JAX computes it (a complex pow or atan2 jaxwg may lack): not an error case
    assert _outcome(lambda *a: getattr(lax, name)(*a, **static), *args) == theirs, \
        (name, [getattr(a, "dtype", a) for a in args])


@pytest.mark.parametrize("name", BINARY)
def test_binary_dtype_errors_match_jax(name):
    for x, y in PAIRS:
        _same_outcome(name, x, y)


@pytest.mark.parametrize("name", UNARY)
def test_unary_dtype_errors_match_jax(name):
    for x in (F32, F16, I32, U32, BOOL, C64):
        _same_outcome(name, x)


def test_other_dtype_errors_match_jax():
    for name, x in [("reduce_sum", BOOL), ("reduce_prod", BOOL), ("reduce_and", F32), ("reduce_or", C64)]:
        _same_outcome(name, x, axes=(0,))
    _same_outcome("pad", F32, np.int32(0), padding_config=[(1, 1, 0)])
    _same_outcome("select", BOOL, F32, I32)
    _same_outcome("clamp", np.float32(0), I32, np.float32(1))
    _same_outcome("complex", F16, F16)
    with pytest.raises(TypeError) as ours:
        lax.concatenate([F32, I32], 0)
    with pytest.raises(TypeError) as theirs:
        jax.lax.concatenate([F32, I32], 0)
    assert str(ours.value) == str(theirs.value)


# A Python scalar whose value the operand's dtype would change: JAX's error, never a rounded
# result (jaxwg takes the operand's dtype for the scalars that fit, where JAX 0.10 refuses
# all but its own default dtypes).
LOSSY_SCALARS = [("add", I32, 1.5), ("mul", 1.5, I32), ("sub", U32, -1), ("add", F32, 1j),
                 ("max", F16, 2j), ("bitwise_and", BOOL, 2), ("eq", I32, 0.5),
                 ("clamp", 0.5, I32, 2), ("nextafter", I32, 0.5)]


@pytest.mark.parametrize("case", LOSSY_SCALARS, ids=lambda c: f"{c[0]}-{c[-1]}")
def test_lossy_python_scalars_raise_as_jax(case):
    name, *args = case
    _same_outcome(name, *args)
    assert _outcome(getattr(lax, name), *args) != "ok", case
