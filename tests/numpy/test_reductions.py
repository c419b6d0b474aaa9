"""Reductions of `jaxwg.numpy` against NumPy (values) and JAX (dtypes, errors).

A table says, for every reduction, its NumPy reference, the dtypes it takes and which of
`axis`/`keepdims`/`dtype`/`initial`/`where` it has; each case runs on both platforms,
eagerly and under `jit`. Sums and means use integer-valued data, so that every order of
summation gives the same float32 result and they compare exactly; var/std use random
normals with a tolerance. Special tests cover NaN propagation (max/min propagate NaN,
argmax/argmin return the first NaN), empty reductions (identities, NaN means, errors
where JAX raises), int32 sums that wrap, the result dtypes, and fusion: a reduction with
its elementwise producers and consumers is one kernel.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import warnings
import zlib
from collections.abc import Callable

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import jaxwg
import jaxwg.numpy as jnp
from jaxwg.core import dtypes as kdt

from .helpers import assert_array, exact_rtol, jax, jax_numpy, kernels_for

BOOL, I32, U32, F16, F32 = (np.dtype(n) for n in ("bool", "int32", "uint32", "float16", "float32"))
SHAPE = (3, 4, 5)
WHERE = np.array([[True, False, True, True, False]] * 3 + [[False] * 5])  # (4, 5): broadcasts


def supports(platform: str, dtype) -> bool:
    return jaxwg.devices(platform)[0].backend.supports(kdt.from_numpy(np.dtype(dtype)))


def rng_for(*key) -> np.random.Generator:
    return np.random.default_rng(zlib.crc32(repr(key).encode()))


def data(kind: str, dtype, shape=SHAPE, key=()):
    """Test data: "small" integer values (exact sums and means in any order), "prod"
    powers of two (exact products), "normal" floats, "full" the whole integer range."""
    r = rng_for(kind, dtype.name, shape, key)
    if dtype == BOOL:
        return r.random(shape) < 0.5
    if kind == "prod":
        return r.choice([-2.0, -1.0, 0.5, 1.0, 2.0], shape).astype(dtype) if dtype.kind == "f" \
            else r.choice([-2, -1, 1, 2, 3], shape).astype(dtype) if dtype == I32 \
            else r.choice([1, 2, 3], shape).astype(dtype)
    if kind == "full" and dtype.kind in "iu":
        info = np.iinfo(dtype)
        return r.integers(info.min, info.max, shape, endpoint=True, dtype=np.int64).astype(dtype)
    if kind == "normal" and dtype.kind == "f":
        return r.normal(size=shape).astype(dtype)
    lo = 0 if dtype == U32 else -20
    return r.integers(lo, 21, shape).astype(dtype)


@dataclasses.dataclass(frozen=True)
class Red:
    """One reduction: `ref(x, **kwargs)` in NumPy, the dtypes, the data kind, the keyword
    arguments it takes, float32 `rtol` (float16: 2e-3) and how JAX names its result dtype
    (`out`: "same", "sum" (bool -> int32), "float" (ints -> float32), "bool", "int32")."""

    name: str
    ref: Callable
    dtypes: tuple
    kind: str
    kwargs: tuple
    out: str
    rtol: float = 0.0

    def __str__(self):
        return self.name


def _np_arg(fn):
    def ref(x, axis=None, keepdims=False):
        if axis is None:
            out = fn(x.reshape(-1), axis=0)
            return out.reshape((1,) * x.ndim) if keepdims else out
        return fn(x, axis=axis, keepdims=keepdims)
    return ref


def _np_ptp(x, axis=None, keepdims=False):
    with np.errstate(over="ignore"):
        return (np.max(x, axis=axis, keepdims=keepdims)
                - np.min(x, axis=axis, keepdims=keepdims)).astype(x.dtype)


REDUCTIONS = [
    Red("sum", np.sum, (BOOL, I32, U32, F32, F16), "small",
        ("axis", "keepdims", "dtype", "initial", "where"), "sum"),
    Red("prod", np.prod, (BOOL, I32, U32, F32, F16), "prod",
        ("axis", "keepdims", "initial", "where"), "sum"),
    Red("max", np.max, (BOOL, I32, U32, F32, F16), "full", ("axis", "keepdims", "initial",
                                                            "where"), "same"),
    Red("min", np.min, (BOOL, I32, U32, F32, F16), "full", ("axis", "keepdims", "initial",
                                                            "where"), "same"),
    Red("mean", np.mean, (BOOL, I32, U32, F32, F16), "small", ("axis", "keepdims", "dtype",
                                                               "where"), "float"),
    Red("var", np.var, (I32, F32, F16), "normal", ("axis", "keepdims", "ddof", "where"),
        "float", 2e-6),
    Red("std", np.std, (I32, F32, F16), "normal", ("axis", "keepdims", "ddof", "where"),
        "float", 2e-6),
    Red("argmax", _np_arg(np.argmax), (BOOL, I32, U32, F32, F16), "small", ("axis1",
                                                                           "keepdims"), "int32"),
    Red("argmin", _np_arg(np.argmin), (BOOL, I32, U32, F32, F16), "small", ("axis1",
                                                                           "keepdims"), "int32"),
    Red("any", np.any, (BOOL, I32, F32), "small", ("axis", "keepdims", "where"), "bool"),
    Red("all", np.all, (BOOL, I32, F32), "small", ("axis", "keepdims", "where"), "bool"),
    Red("count_nonzero", np.count_nonzero, (BOOL, I32, F32), "small", ("axis", "keepdims"),
        "int32"),
    Red("ptp", _np_ptp, (I32, U32, F32), "full", ("axis", "keepdims"), "same"),
    Red("nansum", np.nansum, (I32, F32, F16), "small", ("axis", "keepdims", "where"), "sum"),
]

AXES = [None, 0, 1, -1, (0, 2), (1, 2), (0, 1, 2), ()]


def kwarg_cases(red: Red, dtype):
    """The keyword-argument combinations to test for `red` at `dtype`."""
    cases = []
    if "axis1" in red.kwargs:  # argmax/argmin: one axis or None
        cases += [{"axis": a} for a in (None, 0, 1, -1)]
        cases += [{"axis": 1, "keepdims": True}, {"axis": None, "keepdims": True}]
        return cases
    cases += [{"axis": a} for a in AXES if a != () or red.name not in ("count_nonzero",)]
    cases += [{"axis": (0, 2), "keepdims": True}, {"axis": None, "keepdims": True}]
    if "dtype" in red.kwargs:
        cases += [{"dtype": np.float32}, {"axis": 1, "dtype": np.int32 if red.name == "sum"
                                          else np.float32}]
    if "initial" in red.kwargs:
        initial = {"sum": 5, "prod": 2}.get(red.name, 7 if dtype != BOOL else True)
        cases += [{"initial": initial}, {"axis": 1, "initial": initial}]
    if "where" in red.kwargs:
        extra = {"initial": 7 if dtype != BOOL else False} if red.name in ("max", "min") else {}
        cases += [{"where": WHERE, **extra}, {"axis": (0, 2), "where": WHERE, **extra}]
    if "ddof" in red.kwargs:
        cases += [{"ddof": 1}, {"axis": 0, "ddof": 2}]
    return cases


def expected_dtype(red: Red, dtype, kwargs):
    if "dtype" in kwargs:
        return np.dtype(kwargs["dtype"])
    if red.out == "same":
        return dtype
    if red.out == "sum":
        return I32 if dtype == BOOL else dtype
    if red.out == "float":
        return dtype if dtype.kind == "f" else F32
    return BOOL if red.out == "bool" else I32


def reference(red: Red, x, kwargs):
    """NumPy's answer, computed in float64 (or int64) and rounded once."""
    kw = dict(kwargs)
    kw.pop("dtype", None)
    if red.name in ("sum", "prod", "mean", "var", "std", "nansum") and x.dtype != BOOL:
        x = x.astype(np.float64 if x.dtype.kind == "f" or red.name in (
            "mean", "var", "std") else np.int64)
    if red.name in ("mean", "var", "std") and x.dtype == BOOL:
        x = x.astype(np.float64)
    if "dtype" in kwargs and red.name == "mean" and np.dtype(kwargs["dtype"]).kind == "f":
        x = x.astype(np.float64)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return np.asarray(red.ref(x, **kw))


def _cases():
    out = []
    for red in REDUCTIONS:
        for dtype in red.dtypes:
            for i, kw in enumerate(kwarg_cases(red, dtype)):
                name = ",".join(f"{k}={'mask' if k == 'where' else v}" for k, v in kw.items())
                out.append(pytest.param(red, dtype, kw, id=f"{red.name}-{dtype.name}-{name}"))
    return out


def check_values(red: Red, got, x, kwargs):
    want_dtype = expected_dtype(red, x.dtype, kwargs)
    want = reference(red, x, kwargs)
    with np.errstate(all="ignore"):
        want = want.astype(want_dtype)
    if want_dtype.kind == "f":
        rtol = red.rtol if want_dtype == F32 or red.rtol == 0 else 2e-3
        if x.dtype == F16 or want_dtype == F16:
            rtol = max(rtol, 2e-3)
        assert_array(got, want, rtol=exact_rtol(rtol), atol=1e-6 if red.rtol else 0.0)
    else:
        assert_array(got, want)


@pytest.mark.parametrize("red,dtype,kwargs", _cases())
def test_reduction_values(run, red, dtype, kwargs):
    if not supports(run.platform, dtype):
        pytest.skip(f"{dtype} is not supported by this adapter")
    x = data(red.kind, dtype)
    static = {k: v for k, v in kwargs.items() if k != "where"}
    if "where" in kwargs:
        got = run(lambda a, w: getattr(jnp, red.name)(a, where=w, **static), jnp.asarray(x),
                  jnp.asarray(kwargs["where"]))
    else:
        got = run(getattr(jnp, red.name), jnp.asarray(x), **static)
    check_values(red, got, x, kwargs)


_HYP_REDUCTIONS = [r for r in REDUCTIONS if r.name not in ("ptp",)]


@given(st.data())
def test_random_shapes_and_axes(run, draw):
    """Random shapes (0-d, sizes 1 and empty included), axes and keepdims."""
    red = draw.draw(st.sampled_from(_HYP_REDUCTIONS), label="reduction")
    dtype = draw.draw(st.sampled_from([d for d in red.dtypes if d != F16]), label="dtype")
    shape = draw.draw(hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=4),
                      label="shape")
    ndim = len(shape)
    if "axis1" in red.kwargs:
        axis = draw.draw(st.sampled_from([None] + list(range(-ndim, ndim))), label="axis")
        reduced = range(ndim) if axis is None else [axis % ndim]
        if any(shape[i] == 0 for i in reduced) or (axis is None and 0 in shape):
            with pytest.raises(ValueError):
                getattr(jnp, red.name)(jnp.zeros(shape, dtype), axis=axis)
            return
    else:
        axis = draw.draw(st.one_of(st.none(), st.sampled_from(list(range(-ndim, ndim)) or [None]),
                                   st.lists(st.integers(0, max(ndim - 1, 0)), unique=True,
                                            max_size=ndim).map(tuple)), label="axis")
        if ndim == 0 and axis not in (None, ()):
            axis = None
        if red.name in ("max", "min"):
            reduced = range(ndim) if axis is None else [a % ndim for a in (
                axis if isinstance(axis, tuple) else (axis,))]
            if any(shape[i] == 0 for i in reduced):
                with pytest.raises(ValueError):
                    getattr(jnp, red.name)(jnp.zeros(shape, dtype), axis=axis)
                return
    keepdims = draw.draw(st.booleans(), label="keepdims")
    x = data(red.kind, dtype, shape, key=draw.draw(st.integers(0, 3)))
    got = run(getattr(jnp, red.name), jnp.asarray(x), axis=axis, keepdims=keepdims)
    check_values(red, got, x, {"axis": axis, "keepdims": keepdims})


# -- special values and edge cases ---------------------------------------------------------


def test_nan_propagation_and_first_nan(run):
    nan = np.nan
    x = np.array([[1.0, nan, 3.0, nan], [2.0, 0.5, -1.0, 4.0], [nan, 9.0, 9.0, -nan]],
                 np.float32)
    got = run(lambda a: (jnp.max(a, axis=1), jnp.min(a, axis=1), jnp.max(a), jnp.min(a, axis=0),
                         jnp.argmax(a, axis=1), jnp.argmin(a, axis=1), jnp.argmax(a),
                         jnp.argmin(a, axis=0), jnp.nansum(a, axis=1), jnp.sum(a, axis=1),
                         jnp.ptp(a, axis=1), jnp.mean(a, axis=0)), jnp.asarray(x))
    with np.errstate(invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        wants = (np.max(x, axis=1), np.min(x, axis=1), np.max(x), np.min(x, axis=0),
                 np.argmax(x, axis=1).astype(np.int32), np.argmin(x, axis=1).astype(np.int32),
                 np.int32(np.argmax(x)), np.argmin(x, axis=0).astype(np.int32),
                 np.nansum(x, axis=1), np.sum(x, axis=1), np.ptp(x, axis=1),
                 np.mean(x, axis=0))
    for g, w in zip(got, wants):
        assert_array(g, w)
    # argmax of NaN: the first NaN, also with infinities and ties around it.
    y = np.array([-np.inf, np.inf, np.inf, nan, np.inf, nan], np.float32)
    got = run(lambda a: (jnp.argmax(a), jnp.argmin(a), jnp.max(a), jnp.argmax(a[:3]),
                         jnp.argmin(a[:3])), jnp.asarray(y))
    for g, w in zip(got, (3, 3, nan, 1, 0)):
        assert_array(g, np.asarray(w, g.dtype))


@pytest.mark.parametrize("shape,axis", [((3, 1), 1), ((3, 2), 1), ((5,), 0), ((3, 1000), 1),
                                        ((1000, 3), 0), ((70_000,), 0), ((2, 1, 1), (1, 2))])
def test_sums_of_negative_zeros_as_jax(run, shape, axis):
    """0.0 + -0.0 is +0.0, so a sum of two or more negative zeros is +0.0 (JAX and NumPy),
    and JAX keeps -0.0 for one term. Compilers that ignore the sign of zero drop the 0.0
    a sum starts from; every template (plain, grouped, split) must put it back."""
    for dtype in (F32, F16):
        if not supports(run.platform, dtype):
            continue
        x = np.full(shape, -0.0, dtype)
        got = np.asarray(run(lambda a: jnp.sum(a, axis=axis), jnp.asarray(x)))
        want = np.asarray(jax_numpy.sum(jax_numpy.asarray(x), axis=axis))
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(np.signbit(got), np.signbit(want), f"sign, {dtype}")


@pytest.mark.parametrize("shape,axis", [((4, 3), 1), ((4, 3), 0), ((3, 1000), 1), ((1000, 3), 0)])
def test_max_and_min_of_zeros_of_both_signs_as_jax(run, shape, axis):
    """-0.0 is below +0.0 in max and min (XLA's order; NumPy's follows the order met).
    (JAX's CPU keeps it in these; its vectorized reductions of long rows do not.)"""
    rng = np.random.default_rng(3)
    for dtype in (F32, F16):
        if not supports(run.platform, dtype):
            continue
        x = np.where(rng.random(shape) < 0.5, -0.0, 0.0).astype(dtype)
        x.reshape(-1)[::7] = -0.0  # rows of -0.0 only, too, in the smaller shapes
        for name in ("max", "min"):
            got = np.asarray(run(lambda a: getattr(jnp, name)(a, axis=axis), jnp.asarray(x)))
            want = np.asarray(getattr(jax_numpy, name)(jax_numpy.asarray(x), axis=axis))
            np.testing.assert_array_equal(np.signbit(got), np.signbit(want), f"{name}, {dtype}")


def test_integer_extremes_and_wrapping(run):
    imax, imin = 2 ** 31 - 1, -2 ** 31
    x = np.array([[imax, 1, 5], [imin, -1, 7]], np.int32)
    got = run(lambda a: (jnp.sum(a, axis=1), jnp.sum(a), jnp.prod(a, axis=0), jnp.max(a, axis=1),
                         jnp.min(a, axis=1), jnp.ptp(a, axis=0), jnp.argmax(a), jnp.argmin(a)),
              jnp.asarray(x))
    wants = (np.array([imin + 5, imin + 6], np.int32), np.int32(11),
             np.array([imin, -1, 35], np.int32), np.array([imax, 7], np.int32),
             np.array([1, imin], np.int32), np.array([-1, 2, 2], np.int32),
             np.int32(0), np.int32(3))
    for g, w in zip(got, wants):
        assert_array(g, w)
    u = np.array([2 ** 32 - 1, 1, 2 ** 31], np.uint32)
    got = run(lambda a: (jnp.sum(a), jnp.max(a), jnp.min(a), jnp.argmax(a), jnp.mean(a)),
              jnp.asarray(u))
    for g, w in zip(got, (np.uint32(2 ** 31), np.uint32(2 ** 32 - 1), np.uint32(1), np.int32(0),
                          np.float32(u.astype(np.float64).mean()))):
        assert_array(g, w)


def test_result_dtypes(run):
    b = np.array([[True, False, True], [True, True, False]])
    i = np.arange(6, dtype=np.int32).reshape(2, 3)
    got = run(lambda bb, ii: (jnp.sum(bb), jnp.prod(bb, axis=0), jnp.mean(bb), jnp.mean(ii),
                              jnp.var(ii), jnp.sum(ii, dtype=jnp.float32), jnp.max(bb),
                              jnp.count_nonzero(ii, axis=1), jnp.mean(ii, dtype=jnp.int32),
                              jnp.sum(bb, dtype=jnp.bool_)), jnp.asarray(b), jnp.asarray(i))
    wants = (np.int32(4), np.array([1, 0, 0], np.int32), np.float32(4 / 6), np.float32(2.5),
             np.float32(np.var(np.arange(6))), np.float32(15), np.True_,
             np.array([2, 3], np.int32), np.int32(2), np.True_)
    for g, w in zip(got, wants):
        assert_array(g, w)


def test_empty_reductions(run):
    e = np.zeros((0, 3), np.float32)
    got = run(lambda a: (jnp.sum(a), jnp.prod(a), jnp.mean(a), jnp.var(a), jnp.any(a),
                         jnp.all(a), jnp.count_nonzero(a), jnp.nansum(a), jnp.sum(a, axis=0),
                         jnp.sum(a, axis=1), jnp.max(a, axis=1), jnp.argmax(a, axis=1),
                         jnp.max(a, initial=-2.0), jnp.mean(a, axis=0),
                         jnp.sum(a.astype(jnp.int32), axis=(0, 1), keepdims=True),
                         jnp.count_nonzero(a.astype(jnp.int32), axis=1)), jnp.asarray(e))
    nan = np.float32(np.nan)
    wants = (np.float32(0), np.float32(1), nan, nan, np.False_, np.True_, np.int32(0),
             np.float32(0), np.zeros(3, np.float32), np.zeros(0, np.float32),
             np.zeros(0, np.float32), np.zeros(0, np.int32), np.float32(-2.0),
             np.full(3, nan), np.zeros((1, 1), np.int32), np.zeros(0, np.int32))
    for g, w in zip(got, wants):
        assert_array(g, w)
    for fn in (jnp.max, jnp.min, jnp.argmax, jnp.argmin, jnp.ptp):
        with pytest.raises(ValueError):
            fn(jnp.asarray(e))
        with pytest.raises(ValueError):
            fn(jnp.asarray(e), axis=0)


def test_scalar_reductions(run):
    got = run(lambda a: (jnp.sum(a), jnp.max(a, keepdims=True), jnp.argmax(a), jnp.mean(a),
                         jnp.all(a), jnp.var(a)), jnp.asarray(np.float32(2.5)))
    for g, w in zip(got, (np.float32(2.5), np.float32(2.5), np.int32(0), np.float32(2.5),
                          np.True_, np.float32(0))):
        assert_array(g, w)


def test_where_counts_and_identities(run):
    x = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], np.float32)
    w = np.array([[True, False, True], [False, False, False]])
    got = run(lambda a, m: (jnp.mean(a, axis=1, where=m), jnp.var(a, axis=1, where=m),
                            jnp.sum(a, where=m), jnp.prod(a, axis=0, where=m),
                            jnp.max(a, axis=1, where=m, initial=-1.0),
                            jnp.any(a > 1, axis=1, where=m), jnp.all(a > 1, axis=1, where=m)),
              jnp.asarray(x), jnp.asarray(w))
    nan = np.nan
    wants = (np.array([2.0, nan], np.float32), np.array([1.0, nan], np.float32),
             np.float32(4.0), np.array([1.0, 1.0, 3.0], np.float32),
             np.array([3.0, -1.0], np.float32), np.array([True, False]), np.array([False, True]))
    for g, want in zip(got, wants):
        assert_array(g, want)
    with pytest.raises(ValueError):
        jnp.max(jnp.asarray(x), where=jnp.asarray(w))


@pytest.mark.parametrize("dtype", [F32, F16])
def test_sums_of_floats_are_accurate(run, dtype):
    """Random (non-integer) data: the accumulation error stays near float32's (float16
    sums accumulate in float32, as in JAX), also over a long axis."""
    if not supports(run.platform, dtype):
        pytest.skip(f"{dtype} is not supported by this adapter")
    x = rng_for("long", dtype.name).normal(size=(3, 4099)).astype(dtype)
    got = run(lambda a: (jnp.sum(a, axis=1), jnp.mean(a, axis=1), jnp.std(a, axis=1),
                         jnp.sum(a, axis=0, initial=0.25)), jnp.asarray(x))
    x64 = x.astype(np.float64)
    wants = (x64.sum(1), x64.mean(1), x64.std(1), x64.sum(0) + 0.25)
    for g, w in zip(got, wants):
        scale = np.abs(x64).sum(axis=1 if g.shape == (3,) else 0).max()
        tol = 1e-6 if dtype == F32 else 1e-3
        assert_array(g, w.astype(dtype), rtol=tol, atol=tol * scale / (4099 if g is got[2] or
                                                                       g is got[1] else 1))


def test_bad_axes_raise():
    x = jnp.ones((2, 3))
    for fn, kw, exc in [(jnp.sum, {"axis": 2}, ValueError), (jnp.sum, {"axis": -3}, ValueError),
                        (jnp.sum, {"axis": (0, 0)}, ValueError),
                        (jnp.max, {"axis": (1, -1)}, ValueError),
                        (jnp.argmax, {"axis": 2}, (ValueError, IndexError)),
                        (jnp.any, {"axis": 5}, ValueError)]:
        with pytest.raises(exc):
            fn(x, **kw)


# -- result dtypes against JAX (abstractly: nothing is computed) ------------------------------

_TYPE_ARGS = {
    "f32": np.ones((2, 3), np.float32), "f16": np.ones((2, 3), np.float16),
    "i32": np.ones((2, 3), np.int32), "u32": np.ones((2, 3), np.uint32),
    "bool": np.ones((2, 3), bool), "weak": 2.5, "int": 3,
}
_TYPE_KWARGS = [{}, {"axis": 1}, {"axis": 0, "keepdims": True}, {"dtype": np.float32},
                {"dtype": np.int32}, {"initial": 2}, {"where": np.array([True, False, True])},
                {"ddof": 1}]


@pytest.mark.parametrize("name", [r.name for r in REDUCTIONS] + ["amax", "amin"])
def test_result_types_match_jax(name):
    mismatches = []
    for (k, x), kw in itertools.product(_TYPE_ARGS.items(), _TYPE_KWARGS):
        if "where" in kw and not isinstance(x, np.ndarray):
            continue  # JAX broadcasts a scalar up to the mask's shape; NumPy and we raise
        outcomes = []
        for mod in (jnp, jax_numpy):
            arg = mod.asarray(x) if isinstance(x, np.ndarray) else x
            kws = {a: (mod.asarray(v) if isinstance(v, np.ndarray) else v) for a, v in kw.items()}
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    if mod is jnp:
                        out = getattr(mod, name)(arg, **kws)
                    else:
                        out = jax.eval_shape(functools.partial(getattr(mod, name), arg, **kws))
                outcomes.append((np.dtype(out.dtype), bool(out.weak_type), tuple(out.shape)))
            except Exception as e:  # noqa: BLE001 - the exception type is compared
                outcomes.append(type(e).__name__)
        ours, theirs = outcomes
        if ours != theirs and not (isinstance(ours, str) and isinstance(theirs, str)):
            mismatches.append(f"{name}({k}, {kw}): {ours} != JAX {theirs}")
    assert not mismatches, "\n".join(mismatches)


# -- fusion: a reduction and its elementwise neighbours are one kernel -------------------------


def _chain8(a):
    for op in (jnp.exp, lambda v: v * 2.0, jnp.sin, lambda v: v + 1.0, jnp.tanh,
               lambda v: v - 0.5, jnp.abs, jnp.sqrt):
        a = op(a)
    return a


@pytest.mark.parametrize("case", ["sum_exp", "mean_exp_axis", "chain8", "max_minus"])
def test_fusion_kernel_counts(platform, mode, case):
    x = jnp.asarray(np.linspace(-1, 1, 24, dtype=np.float32).reshape(4, 6))
    fn, want = {
        "sum_exp": (lambda a: jnp.sum(jnp.exp(a) * 2 + 1),
                    lambda v: np.sum(np.exp(v) * 2 + 1)),
        "mean_exp_axis": (lambda a: jnp.mean(jnp.exp(a), axis=1),
                          lambda v: np.mean(np.exp(v), axis=1)),
        "chain8": (_chain8, lambda v: np.sqrt(np.abs(np.tanh(np.sin(np.exp(v) * 2) + 1) - 0.5))),
        "max_minus": (lambda a: jnp.max(jnp.abs(a - 0.25), axis=0) * 3,
                      lambda v: np.max(np.abs(v - 0.25), axis=0) * 3),
    }[case]
    n, out = kernels_for(fn, x, mode=mode)
    assert n == 1, f"{case}: {n} kernels"
    v = np.linspace(-1, 1, 24, dtype=np.float32).reshape(4, 6).astype(np.float64)
    assert_array(out, want(v).astype(np.float32), rtol=2e-6)


@pytest.mark.parametrize("fn, initial", [("max", -np.inf), ("max", np.nan), ("min", np.inf), ("sum", 2.7),
                                         ("sum", -3.9), ("max", 1e12), ("min", -1e12)])
def test_float_initials_of_integer_reductions_saturate_as_jax(fn, initial):
    """A float `initial` converts into the integer type as JAX's does (truncated,
    saturated, NaN to 0), without NumPy's cast warnings."""
    x = np.array([1, -2, 7], np.int32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = getattr(jnp, fn)(jnp.asarray(x), initial=initial)
    want = getattr(jax_numpy, fn)(x, initial=initial)
    assert_array(got, np.asarray(want))


# -- var and std: `mean=`, `correction=`, dtypes, against JAX --------------------------------


def _outcome(fn, mod, *args, **kw):
    """What `fn` of module `mod` gives: (dtype, weak type, shape, values) or the error's
    type and message (first line: JAX's jit errors add advice below it)."""
    args = [mod.asarray(a) if isinstance(a, np.ndarray) else a for a in args]
    kw = {k: (mod.asarray(v) if isinstance(v, np.ndarray) else v) for k, v in kw.items()}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = getattr(mod, fn)(*args, **kw)
    except Exception as e:  # noqa: BLE001 - the exception is compared
        message = str(e).splitlines()[0]
        # a primitive's dtype check words its message its own way: the type is compared
        return type(e).__name__, "" if " does not accept dtype " in message else message
    return np.dtype(out.dtype), bool(out.weak_type), np.asarray(out)


def _assert_same_outcome(fn, *args, rtol=2e-6, **kw):
    ours, theirs = _outcome(fn, jnp, *args, **kw), _outcome(fn, jax_numpy, *args, **kw)
    where = f"{fn}({', '.join(map(repr, args))}, **{kw})"
    assert ours[:2] == theirs[:2], f"{where}: {ours[:2]} != JAX {theirs[:2]}"
    if len(ours) == 3:
        np.testing.assert_allclose(ours[2], theirs[2], rtol=rtol, atol=1e-6, err_msg=where)


_VAR_INPUTS = {"f32": np.float32, "f16": np.float16, "i32": np.int32, "bool": np.bool_,
               "c64": np.complex64}


@given(fn=st.sampled_from(["var", "std", "nanvar", "nanstd"]),
       kind=st.sampled_from(sorted(_VAR_INPUTS)), data=st.data())
def test_var_and_std_match_jax(fn, kind, data):
    """Every keyword of var/std/nanvar/nanstd at once: a precomputed `mean` (kept dims, a
    scalar, or a rank JAX refuses), `ddof` and `correction` (both: an error), `dtype`
    (complex input with a real one: an error), `where`, and NaN for N - ddof <= 0."""
    shape = (3, 4)
    x = rng_for("var", kind).normal(size=shape) * 3
    if kind == "c64":
        x = x + 1j * rng_for("var-imag").normal(size=shape)
    x = x.astype(_VAR_INPUTS[kind])
    if kind in ("f32", "c64") and data.draw(st.booleans(), label="nan"):
        x[1, 2] = np.nan
    axis = data.draw(st.sampled_from([None, 0, 1, -1]), label="axis")
    kw = {"axis": axis, "keepdims": data.draw(st.booleans(), label="keepdims")}
    ddof = data.draw(st.sampled_from([0, 1, 3, 4, 1.5]), label="ddof")
    if fn in ("var", "std") and data.draw(st.booleans(), label="as correction"):
        kw["correction"] = ddof
        if data.draw(st.booleans(), label="ddof too"):
            kw["ddof"] = data.draw(st.sampled_from([0, 0.0, 1, False]), label="ddof")
    else:
        kw["ddof"] = ddof
    kw["dtype"] = data.draw(st.sampled_from([None, np.float32, np.int32, np.complex64,
                                             np.float16]), label="dtype")
    if data.draw(st.booleans(), label="where"):
        kw["where"] = np.array([[True, False, True, True]] * 2 + [[False] * 4])
    mean = data.draw(st.sampled_from(["none", "keepdims", "scalar", "reduced"]), label="mean")
    if mean != "none":
        m = x.mean(axis=axis, keepdims=mean == "keepdims") if mean != "scalar" else 0.5
        kw["mean"] = np.asarray(m, x.dtype if kind != "bool" else np.float32)
    _assert_same_outcome(fn, x, rtol=2e-3 if np.float16 in (x.dtype, kw["dtype"]) else 2e-6,
                         **kw)


def test_var_mean_must_be_arraylike():
    x = np.arange(4.0, dtype=np.float32)
    for fn in ("var", "std", "nanvar", "nanstd"):
        _assert_same_outcome(fn, x, mean=[1.0, 2.0, 3.0, 4.0])
        _assert_same_outcome(fn, x, mean=1.5)
        _assert_same_outcome(fn, x, mean=np.float32(1.5))


@pytest.mark.parametrize("name", ["nanmax", "nanmin", "nansum", "nanprod"])
def test_nan_reductions_with_initial_as_jax(name):
    """With `initial`, a slice of NaNs only (or one `where` masks out) reduces to
    `initial`, not NaN, as in JAX; without it nanmax and nanmin give NaN there."""
    x = np.array([[1.0, np.nan, -2.0], [np.nan, np.nan, np.nan], [np.nan, 4.0, np.nan]], np.float32)
    mask = np.array([[True, True, False], [True, False, True], [False, False, True]])
    for kw in ({}, {"initial": 3.0}, {"initial": -7.0, "where": mask}, {"initial": 0.5, "keepdims": True}):
        for axis in (None, 0, 1):
            _assert_same_outcome(name, x, axis=axis, **kw)


def test_nanmean_of_float16_counts_in_float16_as_jax():
    """JAX sums nanmean's count in the result dtype: 5000 float16 ones count as 5000,
    one NaN among 3000 values is left out."""
    x = np.ones(5000, np.float16)
    x[7] = np.nan
    _assert_same_outcome("nanmean", x)
    _assert_same_outcome("nanmean", x.reshape(50, 100), axis=1, dtype=np.float32)


_WHERE_NAMES = ["sum", "prod", "max", "min", "amax", "all", "any", "mean", "var", "std",
                "nansum", "nanprod", "nanmax", "nanmin", "nanmean", "nanvar", "nanstd"]


@pytest.mark.parametrize("name", _WHERE_NAMES)
def test_where_must_be_boolean_as_jax(name):
    """A `where` of ints or floats (even a Python 1) is JAX's ValueError naming the
    function; a list, its TypeError under the function's own name (nanstd, not nanvar);
    a Python bool is a mask."""
    kw = {"initial": 0} if name in ("max", "min", "amax", "nanmax", "nanmin") else {}
    for x in (np.arange(3.0, dtype=np.float32), np.arange(3, dtype=np.int32)):
        for where in (np.array([1, 0, 1]), np.array([1.0, 0.0, 1.0]), 1, [True, False, True],
                      True, np.array([True, False, True])):
            _assert_same_outcome(name, x, where=where, **kw)
