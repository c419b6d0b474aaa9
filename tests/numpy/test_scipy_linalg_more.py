"""jaxwg.scipy.linalg's special matrices, `qr_multiply`, pivoted QR and the LU of
non-square matrices against JAX: dtypes and weak types from `jax.eval_shape` of JAX's
functions, values from SciPy's (JAX's are SciPy's formulas and LAPACK's calls; compiling
JAX's functions would cost several times this file's time budget), JAX's own values
where they differ from SciPy's (one small compiled program), and JAX's errors. All on
the CPU backend (test_scipy_linalg.py's autouse `cpu`), eager and jitted: the special
matrices are gathers, pads and elementwise ops that the WebGPU suites cover, and the
factorization loops would take several times this file's budget to compile for the
software GPU."""

import numpy as np
import pytest
import scipy.linalg
from hypothesis import given, settings, strategies as st

import jaxwg
import jaxwg.numpy as jnp
from jaxwg.lax import linalg as lax_linalg
from jaxwg.scipy import linalg

from .helpers import jax, jax_numpy
from .test_scipy_linalg import _same, cpu  # noqa: F401  (cpu: autouse, the CPU backend)

jax_linalg = jax.scipy.linalg
jax_lax_linalg = jax.lax.linalg

_RNG = np.random.default_rng(1)
TALL = _RNG.standard_normal((4, 3)).astype(np.float32)
WIDE = _RNG.standard_normal((3, 4)).astype(np.float32)
COMPLEX = (_RNG.standard_normal((3, 3)) + 1j * _RNG.standard_normal((3, 3))).astype(np.complex64)
# equal column norms: pivoting must break the tie as LAPACK (the first of the largest)
TIES = np.array([[1, 1, 2], [1, 1, 0], [0, 1, 1], [1, 0, 1]], np.float32)


def _against_scipy(fn, *args, rtol=1e-5):
    """fn over (linalg module, numpy module): jaxwg's checked against SciPy's values and
    the types of JAX's."""
    _same(fn(linalg, jnp, *args), fn(scipy.linalg, np, *args),
          jax.eval_shape(lambda: fn(jax_linalg, jax_numpy, *args)), rtol=rtol)


# Each case is written once over (scipy.linalg module, numpy module).
SPECIAL = {
    "circulant": lambda m, np_: [m.circulant(np_.asarray([1, 2, 3])),
                                 m.circulant(np_.asarray([[1.0, 2.0], [3.0, -0.0]])), m.circulant(3),
                                 m.circulant(np_.zeros(0)), m.circulant(np_.asarray([1 + 2j, 3j]))],
    "hankel": lambda m, np_: [m.hankel(np_.asarray([1, 2, 3])),
                              m.hankel(np_.asarray([1, 2, 3]), np_.asarray([9.0, 4.0])),
                              m.hankel(np_.zeros(0), np_.ones(2))],
    "leslie": lambda m, np_: [m.leslie(np_.asarray([0.1, 2.0, 1.0]), np_.asarray([0.2, 0.8])),
                              m.leslie(np_.asarray([1, 2]), 0.5),
                              m.leslie(np_.ones((2, 3)), np_.asarray([1, 2]))],
    "companion": lambda m, np_: [m.companion(np_.asarray([1.0, -10.0, 31.0, -30.0])),
                                 m.companion(np_.asarray([2, 4])),
                                 m.companion(np_.asarray([[1.0, 2.0, 3.0], [2.0, 1.0, 1.0]]))],
    "fiedler": lambda m, np_: [m.fiedler(np_.asarray([1, 4, 12, 45])),
                               m.fiedler(np_.asarray([[1.0, -2.0], [3.0, 0.5]])),
                               m.fiedler(np_.asarray([1 + 1j, 2]))],
    "fiedler_companion": lambda m, np_: [m.fiedler_companion(np_.asarray(v, dtype=np_.float32))
                                         for v in ([1, -16, 86, -176, 105], [2, 3], [1, 2, 3, 4, 5, 6, 7])]
    + [m.fiedler_companion(np_.asarray([[1, 2, 3], [4, 5, 6]]))],
    "convolution_matrix": lambda m, np_: [m.convolution_matrix(np_.asarray([-1, 4, -2]), n, mode)
                                          for n in (1, 2, 5) for mode in ("full", "same", "valid")]
    + [m.convolution_matrix(np_.ones((2, 2)), 3), m.convolution_matrix(np_.asarray([2.0]), 2, "same")],
    "sized": lambda m, np_: [m.hilbert(3), m.invhilbert(3), m.pascal(3), m.pascal(3, "upper"),
                             m.pascal(3, "lower"), m.invpascal(3), m.invpascal(3, "upper"),
                             m.invpascal(3, "lower"), m.helmert(1), m.helmert(3), m.helmert(3, full=True),
                             m.hadamard(1), m.hadamard(4),
                             m.hadamard(2, dtype=np.float32), m.hadamard(2, np.uint8), m.dft(1), m.dft(3),
                             m.dft(3, "sqrtn"), m.dft(3, "n")],
}


@pytest.mark.parametrize("case", sorted(SPECIAL))
def test_special_matrices_match_jax(case):
    _against_scipy(SPECIAL[case])


def test_special_matrices_under_jit():
    """The vector-built matrices, batched, as one program."""

    def f(m, c, r, a):
        return [m.toeplitz(c, r), m.hankel(c[0], r), m.circulant(c), m.leslie(c, r[..., :2]), m.companion(c),
                m.fiedler(r), m.fiedler_companion(c), m.convolution_matrix(a, 2, "same")]

    c = np.array([[1.0, -2.0, 3.0], [0.5, 4.0, -1.0]], np.float32)
    r = np.array([7.0, 8.0, 0.0], np.float32)
    a = np.array([1.0, 2.0, 4.0], np.float32)
    _same(jaxwg.jit(lambda c, r, a: f(linalg, c, r, a))(c, r, a), f(scipy.linalg, c, r, a),
          jax.eval_shape(lambda: f(jax_linalg, c, r, a)))


def _lu_cases(m, np_):
    # a zero column: LAPACK leaves it unscaled (no division by the zero pivot)
    zero_column = np.array([[0, 1, 2, 3], [0, 3, 4, 1], [0, 5, 1, 2]], np.float32)
    return [m.lu(TALL), m.lu(WIDE), m.lu(WIDE, permute_l=True), m.lu(TALL.astype(np.int32)),
            m.lu(zero_column), m.lu_factor(TALL), m.lu_factor(WIDE), m.lu_factor(COMPLEX[:, :2])]


def _qr_cases(m, np_):
    return [m.qr(TALL, mode=mode, pivoting=True) for mode in ("full", "economic", "r")] + [
        m.qr(WIDE, pivoting=True), m.qr(TIES, mode="r", pivoting=True),
        m.qr(COMPLEX, pivoting=True), m.qr(np.zeros((4, 3), np.float32), pivoting=True),
        m.qr(TALL.astype(np.int32), mode="r", pivoting=True)]


def _qr_multiply_cases(m, np_):
    return [m.qr_multiply(TALL, WIDE[:, :2], mode="left"), m.qr_multiply(TALL, WIDE, mode="left"),
            m.qr_multiply(TALL, TALL.T), m.qr_multiply(TALL, TALL[:, 0]),
            m.qr_multiply(TALL, TALL[0], mode="left"), m.qr_multiply(WIDE, WIDE[:, :3], pivoting=True),
            m.qr_multiply(COMPLEX, COMPLEX, pivoting=True, conjugate=True),
            m.qr_multiply(COMPLEX, COMPLEX, "left", pivoting=True, conjugate=True)]


FACTORIZATIONS = {"lu": _lu_cases, "qr": _qr_cases, "qr_multiply": _qr_multiply_cases}


@pytest.mark.parametrize("case", sorted(FACTORIZATIONS))
def test_factorizations_match_jax(case):
    _against_scipy(FACTORIZATIONS[case], rtol=2e-5)


def _stacked(results):
    """Per-matrix results (tuples of arrays) stacked along a new leading axis."""
    return [np.stack(parts) for parts in zip(*results)]


def _lax_lu(a):
    """lax.linalg.lu's (lu, pivots, permutation) from SciPy's."""
    factors, pivots = scipy.linalg.lu_factor(a)
    return factors, pivots, scipy.linalg.lu(a, p_indices=True)[0]


def test_batches_and_empty_shapes_match_jax():
    """lax.linalg's batched non-square LU and pivoted QR, qr_multiply's broadcast batch,
    hankel's batch (SciPy ravels it) and the empty factors (SciPy's shapes differ):
    SciPy's values, one matrix at a time."""
    batch = np.stack([TALL, TIES])
    c = np.stack([TALL.T, 2 * TALL.T])
    empty = np.zeros((3, 0), np.float32)

    def f(m, lax_m):
        return [lax_m.lu(batch), lax_m.qr(batch, pivoting=True),
                m.qr_multiply(TALL, c), m.hankel(np.ones((2, 3), np.float32), np.arange(2)), m.lu(empty),
                m.fiedler_companion(np.array([5.0], np.float32))]

    want = [_stacked(_lax_lu(a) for a in batch),
            _stacked(scipy.linalg.qr(a, pivoting=True) for a in batch),
            _stacked(scipy.linalg.qr_multiply(TALL, x) for x in c),
            np.stack([scipy.linalg.hankel(np.ones(3), np.arange(2))] * 2),
            [np.eye(3), empty, np.zeros((0, 0))], np.zeros((0, 0))]
    _same(f(linalg, lax_linalg), want, jax.eval_shape(lambda: f(jax_linalg, jax_lax_linalg)), rtol=2e-5)


def test_jax_specific_results_match_jax():
    """Where JAX differs from SciPy: companion's inf and NaN where a[0] = 0 (SciPy
    raises), dft's dtype argument."""

    def f(m):
        return [m.companion(np.array([0.0, 1.0, 0.0], np.float32)), m.dft(2, dtype=np.complex64)]

    _same(f(linalg), jax.jit(lambda: f(jax_linalg))())


def test_gradients_match_jax():
    """Gradients through the non-square LU, the pivoted QR and `companion` (a quotient),
    under jit: JAX's types, and central differences of SciPy's functions (in float64) as
    values."""
    weights = np.arange(9, dtype=np.float32).reshape(3, 3)

    def loss(m, a, w):
        _, l, u = m.lu(a)
        q, r, _ = m.qr(a, mode="economic", pivoting=True)
        factors = (l * l).sum() + (u * a[:3]).sum() + (r * r[:, :1]).sum() + (q[:3] * a[:3]).sum()
        return factors + (m.companion(w) * weights).sum()

    def central_differences(x, f, h=1e-5):
        x = x.astype(np.float64)
        steps = np.eye(x.size).reshape(x.size, *x.shape) * h
        return np.array([(f(x + e) - f(x - e)) / (2 * h) for e in steps]).reshape(x.shape)

    w = np.array([2.0, -1.0, 3.0, 0.5], np.float32)
    want = [central_differences(TALL, lambda a: loss(scipy.linalg, a, w)),
            central_differences(w, lambda w: loss(scipy.linalg, TALL, w))]
    got = jaxwg.jit(jaxwg.grad(lambda a, w: loss(linalg, a, w), argnums=(0, 1)))(TALL, w)
    _same(got, want, jax.eval_shape(jax.grad(lambda a, w: loss(jax_linalg, a, w), argnums=(0, 1)), TALL, w),
          rtol=1e-3, atol=1e-3)


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 2**31 - 1))
def test_pivoted_qr_random(seed):
    """Random 4 x 3 matrices (one shape: one compile) give LAPACK's pivots and factors."""
    a = np.random.default_rng(seed).standard_normal((4, 3)).astype(np.float32) * np.float32([1, 2, 3])
    _same(linalg.qr(a, pivoting=True), scipy.linalg.qr(a, pivoting=True),
          jax.eval_shape(lambda: jax_linalg.qr(a, pivoting=True)), rtol=1e-4)


ONE, SQUARE = np.ones(3, np.float32), np.ones((3, 3), np.float32)
ERRORS = [
    ("hankel", (2.0,), {}), ("hankel", (ONE, 2.0), {}), ("leslie", (np.ones(1), np.ones(0)), {}),
    ("leslie", (ONE, ONE), {}), ("companion", (np.ones(1),), {}), ("fiedler_companion", (np.ones(0),), {}),
    ("convolution_matrix", (ONE, 0), {}), ("convolution_matrix", (ONE, 2.0), {}),
    ("convolution_matrix", (1.0, 2), {}), ("convolution_matrix", (np.ones(0), 2), {}),
    ("convolution_matrix", (ONE, 2, "middle"), {}), ("pascal", (3, "diag"), {}),
    ("invpascal", (3, "diag"), {}),
    ("helmert", (0,), {}), ("hadamard", (3,), {}), ("hadamard", (0,), {}), ("dft", (3, "m"), {}),
    ("dft", (3,), {"dtype": np.int32}), ("qr", (SQUARE,), {"mode": "x", "pivoting": True}),
    ("qr_multiply", (SQUARE, ONE), {"mode": "up"}), ("qr_multiply", (SQUARE[:, :2], ONE), {"mode": "left"}),
    ("qr_multiply", (SQUARE, np.ones((2, 2))), {}),
] + [(name, ([1, 2],), {}) for name in ("circulant", "hankel", "companion", "fiedler", "fiedler_companion")]


@pytest.mark.parametrize("name,args,kwargs", ERRORS, ids=[f"{e[0]}-{i}" for i, e in enumerate(ERRORS)])
def test_errors_match_jax(name, args, kwargs):
    with pytest.raises(Exception) as want:
        getattr(jax_linalg, name)(*args, **kwargs)
    with pytest.raises(want.type) as got:
        getattr(linalg, name)(*args, **kwargs)
    if isinstance(args[0], list):  # JAX's message names the type as <class 'list'>
        assert f"{name} requires ndarray or scalar arguments" in str(got.value)
    else:
        assert str(got.value) == str(want.value)
