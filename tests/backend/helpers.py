"""Running kernels on a backend and comparing float results in ulps."""

import numpy as np

from jaxwg.core import dtypes as dt
from jaxwg.core.alu_eval import evaluate
from jaxwg.core.kernel import Kernel


def run_kernel(backend, kernel: Kernel, inputs: list[np.ndarray], tuning=None, executable=None) -> np.ndarray:
    """Upload `inputs`, run `kernel` (through `executable` when given), return its
    output; frees every slot it made."""
    slots = [backend.upload(a) for a in inputs]
    out = backend.malloc(kernel.size * backend.storage_dtype(kernel.dtype).itemsize)
    try:
        exe = executable or (backend.prepare(kernel) if tuning is None else backend.prepare(kernel, tuning))
        backend.dispatch(exe, slots, [out])
        return backend.download(out, kernel.dtype, kernel.size)
    finally:
        for s in slots + [out]:
            backend.decref(s)


def reference(kernel: Kernel, inputs: list[np.ndarray]) -> np.ndarray:
    """A direct NumPy evaluation of an elementwise kernel."""
    gidx = np.arange(kernel.size, dtype=np.int32)
    return np.broadcast_to(evaluate(kernel.exp, {"gidx": gidx}, inputs), (kernel.size,))


def _ordered(x: np.ndarray) -> np.ndarray:
    """Map floats to integers whose difference counts representable values between."""
    bits = {2: np.int16, 4: np.int32, 8: np.int64}[x.dtype.itemsize]
    i = x.view(bits).astype(np.int64)
    return np.where(i < 0, np.iinfo(bits).min - i, i)


def ulp_distance(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Representable floats between a and b (0 for equal values, +0 vs -0, or two NaNs)."""
    a, b = np.asarray(a), np.asarray(b)
    same = (a == b) | (np.isnan(a) & np.isnan(b))
    dist = np.abs(_ordered(a) - _ordered(b))
    dist = np.where(np.isnan(a) ^ np.isnan(b), np.iinfo(np.int64).max, dist)
    return np.where(same, 0, dist)


def assert_close_ulps(actual, expected, ulps: int, atol: float = 0.0, context: str = "") -> None:
    """Every element within `ulps` units in the last place, or within `atol` absolutely
    (for results near zero, where ulps are meaningless), NaN where NaN is expected.
    Subnormal results may come back as zero."""
    actual, expected = np.asarray(actual), np.asarray(expected)
    assert actual.dtype == expected.dtype, (actual.dtype, expected.dtype)
    dist = ulp_distance(actual, expected)
    tiny = np.finfo(expected.dtype).tiny
    with np.errstate(invalid="ignore"):
        near = np.abs(actual.astype(np.float64) - expected.astype(np.float64)) <= atol
        # GPUs may flush subnormal results to zero (XLA on GPU does too)
        near |= (np.abs(expected) < tiny) & (np.abs(actual) < tiny)
    bad = (dist > ulps) & ~near
    if bad.any():
        i = np.flatnonzero(bad)[:8]
        raise AssertionError(
            f"{context}: {bad.sum()} of {bad.size} elements off by more than {ulps} ulp"
            f" (atol {atol}); worst {dist.max()} ulp\n"
            f"  at {i.tolist()}\n  got      {actual[i].tolist()}\n  expected {expected[i].tolist()}")


def assert_equal_values(actual, expected, context: str = "") -> None:
    """Exact equality, NaN equal to NaN; -0.0 equal to +0.0."""
    actual, expected = np.asarray(actual), np.asarray(expected)
    assert actual.dtype == expected.dtype, (actual.dtype, expected.dtype)
    if actual.dtype.kind == "f":
        ok = (actual == expected) | (np.isnan(actual) & np.isnan(expected))
    else:
        ok = actual == expected
    if not ok.all():
        i = np.flatnonzero(~ok)[:8]
        raise AssertionError(f"{context}: {(~ok).sum()} of {ok.size} elements differ at {i.tolist()}\n"
                             f"  got      {actual[i].tolist()}\n  expected {expected[i].tolist()}")


FLOAT_SPECIALS = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 0.5, 2.0, 3.0, -2.5]


def with_specials(values: np.ndarray, dtype: dt.DType, domain=None) -> np.ndarray:
    """`values` followed by the special values of `dtype` (NaN, inf, -0.0, extremes);
    with a float `domain` (lo, hi), only the finite specials inside it."""
    if dtype.is_float:
        extra = FLOAT_SPECIALS + [float(np.finfo(dtype.np).max), float(np.finfo(dtype.np).tiny)]
        if domain is not None:
            extra = [v for v in extra if not np.isfinite(v) or domain[0] <= v <= domain[1]]
    elif dtype.is_bool:
        extra = [True, False]
    else:
        lo, hi = dt.bounds(dtype)
        extra = [lo, hi, 0, 1, lo + 1, hi - 1] + ([-1, -7] if lo < 0 else [7])
    return np.concatenate([np.asarray(values, dtype.np), np.asarray(extra, dtype.np)])
