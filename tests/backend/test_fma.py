"""`alu.fma`, the fused multiply-add: rounded once on both backends. The NumPy reference
rounds the exact float64 product plus the addend to odd, then to float32; WebGPU uses
the adapter's fma where it fuses (native_math) and otherwise builds the fused result
(`fma_f32` in builtins), which these tests check on any adapter."""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from jaxwg.backend.webgpu import native_math
from jaxwg.core import alu
from jaxwg.core import dtypes as dt
from jaxwg.core.alu_eval import fma_array
from jaxwg.core.kernel import Kernel

from .helpers import run_kernel

N = 64
FINITE = st.floats(-2.0 ** 50, 2.0 ** 50, allow_subnormal=False, width=32)


def _rounded(value: Fraction) -> np.float32:
    """The float32 nearest to `value` (ties to even), decided exactly."""
    guess = np.float32(float(value))
    below, above = np.nextafter(guess, np.float32(-np.inf)), np.nextafter(guess, np.float32(np.inf))
    best = min((below, guess, above), key=lambda c: (abs(Fraction(float(c)) - value),
                                                    int(np.float32(c).view(np.uint32)) & 1))
    return np.float32(best)


def _exact(a, b, c) -> np.ndarray:
    return np.array([_rounded(Fraction(float(x)) * Fraction(float(y)) + Fraction(float(z)))
                     for x, y, z in zip(a, b, c)], np.float32)


def _triples(data) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Factors, and addends that nearly cancel their product (half of them), where one
    rounding and two differ most."""
    a = data.draw(arrays(np.float32, N, elements=FINITE))
    b = data.draw(arrays(np.float32, N, elements=FINITE))
    c = data.draw(arrays(np.float32, N, elements=FINITE))
    with np.errstate(over="ignore"):
        near = -(a * b)
    c[::2] = np.where(np.isfinite(near[::2]), near[::2], c[::2])
    return a, b, c


@given(data=st.data())
def test_the_reference_rounds_once(data):
    a, b, c = _triples(data)
    np.testing.assert_array_equal(fma_array(a, b, c, dt.float32), _exact(a, b, c))


@given(data=st.data())
def test_fma_kernels_round_once(backend, data):
    a, b, c = _triples(data)
    loads = [alu.load(i, dt.float32, alu.gidx(N)) for i in range(3)]
    out = run_kernel(backend, Kernel(3, N, alu.fma(*loads)), [a, b, c])
    want = _exact(a, b, c)
    flushed = (np.abs(want) < np.finfo(np.float32).tiny) & (out == 0)  # GPUs flush subnormals
    np.testing.assert_array_equal(np.where(flushed, want, out), want)


def test_fma_kernels_round_once_at_ties(backend):
    """Products that are float32 midpoints (odd 24-bit significands times 1.5 and the
    like) plus addends far below their ulp: the unfused sum lands on the tie, and so
    did the built fma before its last step rounded to odd (2158 of 81920 wrong on
    lavapipe), and the NumPy reference where it stepped toward p + c + err, which
    rounded back to p + c (164 of 8192)."""
    rng = np.random.default_rng(1)
    n = 8192
    a = np.ldexp((rng.integers(1 << 23, 1 << 24, n) | 1).astype(np.float64),
                 rng.integers(-30, 30, n)).astype(np.float32)
    b = rng.choice(np.array([1.5, 0.75, 3.0, 1.25, 2.5], np.float32), n)
    ulp = np.spacing((a.astype(np.float64) * b).astype(np.float32)).astype(np.float64)
    c = (ulp * rng.choice([2.0 ** -24, 3 * 2.0 ** -26, 2.0 ** -30, 5 * 2.0 ** -27], n)
         * rng.choice([-1, 1], n)).astype(np.float32)
    loads = [alu.load(i, dt.float32, alu.gidx(n)) for i in range(3)]
    out = run_kernel(backend, Kernel(3, n, alu.fma(*loads)), [a, b, c])
    np.testing.assert_array_equal(out, _exact(a, b, c))


def test_fma_kernels_round_once_for_tiny_products(backend):
    """Products below 1e-30, whose halves' products would be subnormal: a fresh-clone CI
    run drew 1.849e-33 * -1.75 + 1.849e-33, rounded twice by the built fma on lavapipe
    (1 ulp off). Either factor may be the smaller one, and addends from tiny to 1e20.
    Results below float32's smallest normal are left out: the built fma promises them
    to no adapter (scaled back, they round a second time, or flush)."""
    rng = np.random.default_rng(2)
    n = 4096
    a = np.ldexp(rng.uniform(1, 2, n), rng.integers(-110, -20, n)) * rng.choice([-1, 1], n)
    b = np.ldexp(rng.uniform(1, 2, n), rng.integers(-60, 10, n)) * rng.choice([-1, 1], n)
    a, b = a.astype(np.float32), b.astype(np.float32)
    b[::3], a[::3] = a[::3], b[::3]  # the smaller factor second
    c = (-(a.astype(np.float64) * b) * rng.choice([0.75, 1.0, 1.5, 3.0, 1e10, 1e-10], n)).astype(np.float32)
    c[::5] = np.ldexp(1.0, rng.integers(40, 67, c[::5].size)).astype(np.float32)  # 1e12 .. 1e20
    a[0], b[0], c[0] = np.float32(1.8491757e-33), np.float32(-1.75), np.float32(1.8491757e-33)
    want = _exact(a, b, c)
    normal = (np.abs(want) >= np.finfo(np.float32).tiny) | (want == 0)
    assert normal.sum() > n * 3 // 4
    a, b, c, want = a[normal], b[normal], c[normal], want[normal]
    loads = [alu.load(i, dt.float32, alu.gidx(a.size)) for i in range(3)]
    out = run_kernel(backend, Kernel(3, a.size, alu.fma(*loads)), [a, b, c])
    np.testing.assert_array_equal(out, want)


def test_the_built_fma_is_exact_on_any_adapter(webgpu):
    """The helper, not the adapter's fma: exact on the measuring sample and on products
    that need all 48 bits."""
    candidate = next(c for c in native_math.CANDIDATES if c.variant == "fma_native_f32")
    x = np.concatenate([candidate.samples(np.random.default_rng(2)),
                        np.random.default_rng(3).uniform(-4, 4, 4096).astype(np.float32)])
    got = webgpu._run_with_natives(candidate.kernel(x.size), x, frozenset())
    np.testing.assert_array_equal(got, candidate.reference(x.astype(np.float64)).astype(np.float32))


def test_the_float64_fma_is_exact_where_the_adapter_has_float64(webgpu):
    """`fma_wide_f32` (float64 product, sum rounded to odd): exact on random operands of
    all magnitudes, on products that need all 48 bits, and at the edges (infinities,
    NaN, overflow of the product that the addend does not bring back, zeros' signs)."""
    if "shader-f64" not in webgpu.device.features:
        pytest.skip(f"{webgpu.describe()} has no float64")
    rng = np.random.default_rng(4)
    n = 1 << 14
    a = (rng.standard_normal(n) * np.exp2(rng.integers(-60, 60, n))).astype(np.float32)
    b = (rng.standard_normal(n) * np.exp2(rng.integers(-60, 60, n))).astype(np.float32)
    c = (-(a.astype(np.float64) * b) * (1 + rng.standard_normal(n) * 2.0 ** -rng.integers(1, 30, n))
         ).astype(np.float32)  # near -a*b: the sums cancel, where two roundings go wrong
    edges = np.float32([[np.inf, 1, 1], [np.nan, 1, 1], [0, np.inf, 1], [1, 1, -np.inf], [3e38, 10, -1],
                        [3e38, 10, -3e38], [0.0, -1.0, 0.0], [-0.0, 1.0, -0.0], [1e-30, 1e-30, 0.0]]).T
    # Sums the float64 rounds onto a float32 midpoint, the exact value just below
    # (1 + 2^-23 + 2^-24 - 2^-64: down to the odd 1 + 2^-23) or just above (1 + 2^-24 +
    # 2^-64: up from the even 1.0); each also negated.
    u, near = 2.0 ** -23, (1 + 2.0 ** -20) * 2.0 ** -24
    midpoints = np.float32([[near, 1 - 2.0 ** -20, 1 + u], [-near, 1 - 2.0 ** -20, 1 + u]])
    midpoints = np.concatenate([midpoints, midpoints * np.float32([-1, 1, -1])]).T
    a, b, c = (np.concatenate([v, e, m]) for v, e, m in zip((a, b, c), edges, midpoints))
    want = fma_array(a, b, c, dt.float32)
    np.testing.assert_array_equal(want[-4:], np.float32([1 + u, 1 + u, -1 - u, -1 - u]))
    loads = [alu.load(i, dt.float32, alu.gidx(a.size)) for i in range(3)]
    exe = webgpu._plan_and_compile(Kernel(3, a.size, alu.fma(*loads)), None, False, frozenset({"fma_wide_f32"}))
    assert "fma_wide_f32(" in exe.shader_sources()[0]
    slots = [webgpu.upload(v) for v in (a, b, c)]
    out = webgpu.malloc(4 * a.size)
    try:
        webgpu.dispatch(exe, slots, [out])
        got = webgpu.download(out, dt.float32, a.size)
    finally:
        for s in [*slots, out]:
            webgpu.decref(s)
    np.testing.assert_array_equal(got, want)
    zeros = want == 0  # their signs (a NaN's is the device's)
    np.testing.assert_array_equal(np.signbit(got[zeros]), np.signbit(want[zeros]))


@pytest.mark.parametrize("a, b, c", [
    (np.inf, 1.0, 1.0), (np.nan, 1.0, 1.0), (0.0, np.inf, 1.0), (1.0, 1.0, -np.inf),
    (2.0, 3.0, np.nan), (1e30, 1e30, 1.0), (-1e30, 1e30, 1.0), (1e-30, 1e-30, 0.0), (0.0, -1.0, 0.0),
], ids=str)
def test_fma_edges_as_ieee(backend, a, b, c):
    ins = [np.full(4, v, np.float32) for v in (a, b, c)]
    loads = [alu.load(i, dt.float32, alu.gidx(4)) for i in range(3)]
    out = run_kernel(backend, Kernel(3, 4, alu.fma(*loads)), ins)
    want = fma_array(*ins, dt.float32)
    np.testing.assert_array_equal(out, want)
    assert np.array_equal(np.signbit(out), np.signbit(want)) or np.isnan(want).all()


def test_fma_needs_floats_of_one_dtype():
    x = alu.load(0, dt.float32, alu.gidx(2))
    with pytest.raises(TypeError, match="fma needs float operands"):
        alu.fma(x, x, alu.const(dt.float16, 1.0))
    with pytest.raises(TypeError, match="fma needs float operands"):
        alu.fma(alu.gidx(2), alu.gidx(2), alu.gidx(2))
