"""The meaning of every AluExp op, written once in NumPy.

`evaluate` computes an expression for many index values at once: specials and
variables are bound to arrays, loads gather from input arrays, and each op is one
vectorized NumPy call from the `IMPLS` table. The CPU backend runs kernels with it,
`simplify` folds constants with it, and the tests use it as the oracle that the
WGSL code generator must match. The edge cases (division by zero, saturating
casts, NaN in min/max) follow the rules in the docstring of `jaxwg.core.alu`.

>>> import numpy as np
>>> from jaxwg.core import alu, dtypes as dt
>>> e = alu.load(0, dt.int32, alu.gidx(4)) // 0
>>> evaluate(e, {"gidx": np.arange(4, dtype=np.int32)}, [np.array([7, -7, 3, 0], np.int32)])
array([ 7, -7,  3,  0], dtype=int32)
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from .alu import AluExp, Op
from . import dtypes as dt
from .dtypes import DType


def _trunc_divmod(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Integer quotient and remainder rounded toward zero, in int64 (no overflow)."""
    a64, b64 = a.astype(np.int64), b.astype(np.int64)
    safe_b = np.where(b64 == 0, 1, b64)
    q = np.abs(a64) // np.abs(safe_b) * np.sign(a64) * np.sign(safe_b)
    return q, a64 - q * safe_b


def _idiv(a, b, dtype: DType):
    if dtype.is_float:
        return np.trunc(a / b)
    q, _ = _trunc_divmod(a, b)
    return np.where(b == 0, a, q).astype(dtype.np)


def _mod(a, b, dtype: DType):
    if dtype.is_float:
        return np.fmod(a, b)
    _, r = _trunc_divmod(a, b)
    return np.where(b == 0, 0, r).astype(dtype.np)


def _shift(fn):
    def shift(a, b, dtype: DType):
        return fn(a, (b & (dtype.bits - 1)).astype(a.dtype))

    return shift


def _min(a, b, dtype: DType):
    if dtype.is_bool:
        return np.logical_and(a, b)
    return _zero_signs(np.minimum(a, b), a, b, np.logical_or) if dtype.is_float else np.minimum(a, b)


def _max(a, b, dtype: DType):
    if dtype.is_bool:
        return np.logical_or(a, b)
    return _zero_signs(np.maximum(a, b), a, b, np.logical_and) if dtype.is_float else np.maximum(a, b)


def _zero_signs(result, a, b, negative):
    """XLA's max and min of zeros of both signs (-0.0 is below +0.0; NumPy's sign
    follows the argument order): -0.0 where `negative(sign of a, sign of b)`."""
    zeros = (a == 0) & (b == 0)
    if not np.any(zeros):
        return result
    signed = np.where(negative(np.signbit(a), np.signbit(b)), -0.0, 0.0)
    return np.where(zeros, signed, result).astype(np.result_type(result), copy=False)


def _via_float64(fn) -> Callable:
    """Apply a scalar `math` function elementwise in float64 (erf has no NumPy ufunc)."""
    ufunc = np.frompyfunc(fn, 1, 1)

    def apply(a, dtype: DType):  # `a` may be a NumPy scalar or a Python float (folding)
        return np.asarray(ufunc(np.asarray(a, np.float64)), np.float64)

    return apply


def cast_array(a: np.ndarray, dtype: DType) -> np.ndarray:
    """Value conversion with jaxwg's rules: float-to-int truncates, saturates and sends
    NaN to 0; anything-to-bool is `!= 0`; integers wrap to the target's width.

    >>> from jaxwg.core import dtypes as dt
    >>> cast_array(np.array([np.nan, 3e9, -2.7], np.float32), dt.int32)
    array([         0, 2147483647,         -2], dtype=int32)
    """
    if dtype.is_bool:
        return a != 0
    if dtype.is_int and a.dtype.kind == "f":
        info = np.iinfo(dtype.np)
        clipped = np.clip(np.trunc(a.astype(np.float64)), info.min, info.max)
        return np.where(np.isnan(clipped), 0, clipped).astype(dtype.np)
    return a.astype(dtype.np)


def _rotl(x: np.ndarray, r: int) -> np.ndarray:
    return (x << np.uint32(r)) | (x >> np.uint32(32 - r))


THREEFRY_ROTATIONS = ((13, 15, 26, 6), (17, 29, 16, 24))


def threefry2x32(k0, k1, x0, x1) -> tuple[np.ndarray, np.ndarray]:
    """Threefry-2x32 with 20 rounds (the Random123 and JAX definition).

    >>> [hex(int(v)) for v in threefry2x32(*(np.uint32(0),) * 4)]
    ['0x6b200159', '0x99ba4efe']
    """
    u = np.uint32
    ks = (u(k0), u(k1), u(k0) ^ u(k1) ^ u(0x1BD11BDA))
    with np.errstate(over="ignore"):  # uint32 addition wraps by design
        x0 = np.asarray(x0, np.uint32) + ks[0]
        x1 = np.asarray(x1, np.uint32) + ks[1]
        for block in range(5):
            for r in THREEFRY_ROTATIONS[block % 2]:
                x0 = x0 + x1
                x1 = _rotl(x1, r) ^ x0
            x0 = x0 + ks[(block + 1) % 3]
            x1 = x1 + ks[(block + 2) % 3] + u(block + 1)
    return np.asarray(x0, np.uint32), np.asarray(x1, np.uint32)


IMPLS: dict[Op, Callable] = {
    Op.ADD: lambda a, b, d: np.logical_or(a, b) if d.is_bool else a + b,
    Op.SUB: lambda a, b, d: a - b,
    Op.MUL: lambda a, b, d: np.logical_and(a, b) if d.is_bool else a * b,
    Op.DIV: lambda a, b, d: a / b,
    Op.IDIV: _idiv,
    Op.MOD: _mod,
    Op.MIN: _min,
    Op.MAX: _max,
    Op.ATAN2: lambda a, b, d: np.arctan2(a, b),
    Op.POW: lambda a, b, d: np.power(a, b),
    Op.AND: lambda a, b, d: a & b,
    Op.OR: lambda a, b, d: a | b,
    Op.XOR: lambda a, b, d: a ^ b,
    Op.SHL: _shift(np.left_shift),
    Op.SHR: _shift(np.right_shift),
    Op.CMPLT: lambda a, b, d: a < b,
    Op.CMPNE: lambda a, b, d: a != b,
    Op.NEG: lambda a, d: -a,
    Op.NOT: lambda a, d: ~a,
    Op.ABS: lambda a, d: np.abs(a),
    Op.EXP: lambda a, d: np.exp(a),
    Op.EXP2: lambda a, d: np.exp2(a),
    Op.LOG: lambda a, d: np.log(a),
    Op.LOG2: lambda a, d: np.log2(a),
    Op.SIN: lambda a, d: np.sin(a),
    Op.COS: lambda a, d: np.cos(a),
    Op.TAN: lambda a, d: np.tan(a),
    Op.ASIN: lambda a, d: np.arcsin(a),
    Op.ACOS: lambda a, d: np.arccos(a),
    Op.ATAN: lambda a, d: np.arctan(a),
    Op.TANH: lambda a, d: np.tanh(a),
    Op.SQRT: lambda a, d: np.sqrt(a),
    Op.RECIPROCAL: lambda a, d: np.reciprocal(a),
    Op.FLOOR: lambda a, d: np.floor(a),
    Op.CEIL: lambda a, d: np.ceil(a),
    Op.ROUND: lambda a, d: np.rint(a),
    Op.TRUNC: lambda a, d: np.trunc(a),
    Op.ERF: _via_float64(math.erf),
    Op.ERFC: _via_float64(math.erfc),
    Op.FMA: lambda a, b, c, d: fma_array(a, b, c, d),
    Op.WHERE: lambda c, a, b, d: np.where(c, a, b),
    Op.CAST: lambda a, d: cast_array(a, d),
    Op.BITCAST: lambda a, d: _bitcast(np.ascontiguousarray(a), d),
}


def fma_array(a, b, c, d: DType) -> np.ndarray:
    """a * b + c rounded once to `d`. For float16 and float32 the product is exact in
    float64 and the sum is rounded to odd there (its inexact results get an odd last bit),
    which makes the rounding to the narrower type the correctly rounded one. float64
    rounds twice (NumPy has no fused multiply-add)."""
    if d is dt.float64:
        return np.asarray(np.multiply(a, b, dtype=np.float64) + c, np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        p = np.multiply(np.asarray(a, np.float64), np.asarray(b, np.float64))
        c = np.asarray(c, np.float64)
        s = p + c
        v = s - p  # TwoSum: the error of p + c, exactly
        err = (p - (s - v)) + (c - v)
        even = (np.asarray(s).view(np.uint64) & 1) == 0
        # toward the error's sign (not toward s + err, which can round back to s)
        s = np.where(np.isfinite(s) & (err != 0) & even, np.nextafter(s, np.copysign(np.inf, err)), s)
        return s.astype(d.np)


def _bitcast(a: np.ndarray, d: DType) -> np.ndarray:
    """`a`'s bits as `d`; between float16 and a 32-bit integer, the integer's low 16 bits
    (`alu.bitcast`)."""
    if a.dtype.itemsize == d.itemsize:
        return a.view(d.np)
    if d is dt.float16:
        return a.astype(np.uint32).astype(np.uint16).view(np.float16)
    return a.view(np.uint16).astype(d.np)


def _load(buffer: np.ndarray, index: np.ndarray, dtype: DType) -> np.ndarray:
    # Masked-out lanes may carry any index (the where() around them discards the
    # value), so out-of-range indices are clamped rather than raising.
    if buffer.size == 0:
        return np.zeros(np.shape(index), dtype.np)
    return np.take(buffer.reshape(-1), index, mode="clip").astype(dtype.np, copy=False)


def evaluate(exp: AluExp, env: dict[str, object], inputs: list[np.ndarray] = ()) -> np.ndarray:
    """Compute `exp` with specials and variables bound by `env` (names to arrays or
    scalars) and loads reading `inputs[arg]`; results broadcast like NumPy."""
    values: dict[AluExp, np.ndarray] = {}
    with np.errstate(all="ignore"):
        for node in exp.toposort():
            values[node] = _evaluate_node(node, [values[s] for s in node.src], env, inputs)
    return values[exp]


def _evaluate_node(node: AluExp, src: list, env, inputs) -> np.ndarray:
    op, dtype = node.op, node.dtype
    if op is Op.CONST:
        return np.array(node.arg, dtype.np)
    if op in (Op.SPECIAL, Op.VARIABLE):
        name = node.arg[0] if op is Op.SPECIAL else node.arg
        if name not in env:
            raise KeyError(f"evaluate: no value bound for {name!r}")
        return np.asarray(env[name], dtype.np)
    if op is Op.LOAD:
        if node.arg >= len(inputs):
            raise IndexError(f"evaluate: load from input {node.arg} but only {len(inputs)} given")
        return _load(inputs[node.arg], src[0], dtype)
    if op is Op.THREEFRY2X32:
        return threefry2x32(*src)[node.arg]
    result = IMPLS[op](*src, dtype)
    return np.asarray(result).astype(dtype.np, copy=False)


def evaluate_scalar(exp: AluExp):
    """The Python value of an expression with no specials, variables or loads."""
    return evaluate(exp, {}).item()
