"""jaxwg.image (resize, scale_and_translate), jaxwg.scipy.ndimage.map_coordinates,
jaxwg.scipy.interpolate.RegularGridInterpolator, jaxwg.scipy.cluster.vq.vq and
jaxwg.scipy.stats.gaussian_kde against JAX: values, dtypes and weak types, errors.

JAX's answers are computed once per test module, each group in one `jax.jit` (JAX
compiles every eager operation, and most of this file's time is JAX compiling); dtypes
of further cases come from `jax.eval_shape`, which only traces."""

import functools

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import jaxwg
import jaxwg.numpy as jnp
from jaxwg import image
from jaxwg.scipy import ndimage
from jaxwg.scipy.cluster.vq import vq
from jaxwg.scipy.interpolate import RegularGridInterpolator
from jaxwg.scipy.stats import gaussian_kde

from .helpers import jax

import jax.image
import jax.scipy.cluster.vq
import jax.scipy.interpolate
import jax.scipy.ndimage
import jax.scipy.stats


def _same(got, want, rtol=1e-5, atol=1e-5):
    """dtype, weak type, shape and values (within float32 roundings of sums taken in
    another order than XLA's) of `got` equal JAX's `want`."""
    assert isinstance(got, jaxwg.Array), type(got)
    assert (got.dtype, got.weak_type, got.shape) == (want.dtype, want.weak_type, want.shape), (
        got.dtype, got.weak_type, got.shape, want.dtype, want.weak_type, want.shape)
    got, want = np.asarray(got), np.asarray(want)
    if got.dtype.kind == "f":
        np.testing.assert_allclose(got.astype(np.float32), want.astype(np.float32), rtol=rtol,
                                   atol=atol, equal_nan=True)
    else:
        np.testing.assert_array_equal(got, want)


def _same_type(got, fn, *args):
    """`got` has the dtype, weak type and shape of JAX's `fn(*args)` (traced, not run)."""
    want = jax.eval_shape(fn, *args)
    assert (got.dtype, got.weak_type, got.shape) == (want.dtype, want.weak_type, want.shape), (
        got.dtype, got.weak_type, got.shape, want)


def _raises_as_jax(error, match, ours, theirs):
    with pytest.raises(error):
        theirs()
    with pytest.raises(error, match=match):
        ours()


IMAGE = np.random.default_rng(0).normal(size=(5, 7, 2)).astype(np.float32)
SHAPE = (3, 12, 2)  # downsampled along axis 0 (antialiased), upsampled along axis 1
# These cover the kernels' code paths (nearest, antialiasing, PyTorch's cubic with edge
# padding, the area kernel with a translation); Keys' cubic and the Lanczos kernels are
# checked on one upsampled axis (so over the kernel's whole range), which costs JAX less
# to compile.
RESIZES = [("nearest", True), ("linear", True), ("cubic-pytorch", False)]
SCALE, TRANSLATION = np.array([0.7, 1.6], np.float32), np.array([0.3, -1.2], np.float32)
ROW = np.array([1.0, -2.0, 0.5, 3.0], np.float32)
KERNELS = ["cubic", "lanczos3", "lanczos5"]


def _translate(lib, x, s, t):
    return lib.image.scale_and_translate(x, (4, 9, 2), (0, 1), s, t, "area")


@functools.cache
def _jax_images():
    def fn(x, s, t, row):
        return ([jax.image.resize(x, SHAPE, m, antialias=a) for m, a in RESIZES],
                _translate(jax, x, s, t), [jax.image.resize(row, (11,), m) for m in KERNELS])

    return jax.jit(fn)(IMAGE, SCALE, TRANSLATION, ROW)


def test_resize_and_scale_and_translate_match_jax(run):
    resized, translated, _ = _jax_images()
    for (method, antialias), w in zip(RESIZES, resized):
        got = run(image.resize, jnp.asarray(IMAGE), shape=SHAPE, method=method,
                  antialias=antialias)
        _same(got, w)
    got = run(functools.partial(_translate, jaxwg), jnp.asarray(IMAGE), jnp.asarray(SCALE),
              jnp.asarray(TRANSLATION))
    _same(got, translated)


def test_kernel_values_match_jax():
    for method, w in zip(KERNELS, _jax_images()[2], strict=True):
        _same(image.resize(jnp.asarray(ROW), (11,), image.ResizeMethod.from_string(method)), w)


def test_resize_dtypes_edges_and_errors():
    x = np.arange(6).reshape(2, 3)
    for dtype, method in [("uint8", "nearest"), ("bool", "nearest"), ("int32", "linear"),
                          ("float16", "cubic")]:
        got = image.resize(jnp.asarray(x.astype(dtype)), (3, 5), method)
        _same_type(got, lambda a: jax.image.resize(a, (3, 5), method), x.astype(dtype))
    for shape in [(0, 3), (2, 3)]:  # empty; unchanged
        got = image.resize(jnp.asarray(x), shape, "lanczos3")
        _same_type(got, lambda a: jax.image.resize(a, shape, "lanczos3"), x)
        np.testing.assert_array_equal(got, x[:shape[0]].astype(np.float32))
    # no spatial axes: the image, promoted to float, whatever the shape says
    got = image.scale_and_translate(jnp.arange(4), (3,), (), jnp.zeros(0), jnp.zeros(0), "linear")
    _same_type(got, lambda a: jax.image.scale_and_translate(a, (3,), (), np.zeros(0, np.float32),
                                                            np.zeros(0, np.float32), "linear"),
               np.arange(4, dtype=np.int32))
    assert got.tolist() == [0.0, 1.0, 2.0, 3.0]
    ones = np.ones((2, 3), np.float32)
    _raises_as_jax(ValueError, "shape must have length",
                   lambda: image.resize(jnp.asarray(ones), (4,), "linear"),
                   lambda: jax.image.resize(ones, (4,), "linear"))
    _raises_as_jax(ValueError, 'Unknown resize method "foo"',
                   lambda: image.resize(jnp.asarray(ones), (4, 4), "foo"),
                   lambda: jax.image.resize(ones, (4, 4), "foo"))
    _raises_as_jax(ValueError, "Nearest neighbor resampling is not currently supported",
                   lambda: image.scale_and_translate(jnp.asarray(ones), (2, 3), (0,),
                                                     jnp.ones(1), jnp.zeros(1), "nearest"),
                   lambda: jax.image.scale_and_translate(ones, (2, 3), (0,), np.ones(1),
                                                         np.zeros(1), "nearest"))
    assert [(m.name, m.value) for m in image.ResizeMethod] == [
        (m.name, m.value) for m in jax.image.ResizeMethod]
    for name in ["bilinear", "tricubic", "bicubic-pytorch", "area", "lanczos5", "triangle"]:
        assert (image.ResizeMethod.from_string(name).name
                == jax.image.ResizeMethod.from_string(name).name)


MODES = ["constant", "nearest", "wrap", "mirror", "reflect"]
# order 1 in every mode, order 0 where rounding meets the index fixing
ORDERS_MODES = [(1, mode) for mode in MODES] + [(0, "constant"), (0, "mirror")]
INPUT = np.array([[0.0, 1.0, 2.0, 3.0, 4.0], [5.0, np.nan, 7.0, 8.0, 9.0],
                  [1.5, -2.0, 0.0, 4.0, np.inf]], np.float32)
ROWS = np.array([-1.7, -0.5, 0.0, 0.5, 1.25, 2.0, 2.5, 3.6, 7.1], np.float32)
COLS = np.array([-3.2, 4.5, 0.25, -0.0, 4.0, 5.5, 1.5, 2.5, 9.9], np.float32)


@jax.jit
def _jax_map_coordinates(rows, cols):
    return [jax.scipy.ndimage.map_coordinates(INPUT, [rows, cols], order, mode=mode, cval=-1.5)
            for order, mode in ORDERS_MODES]


def _map_coordinates(x, rows, cols, order, mode):
    return ndimage.map_coordinates(x, [rows, cols], order, mode=mode, cval=-1.5)


def test_map_coordinates_matches_jax(run):
    want = _jax_map_coordinates(ROWS, COLS)
    for (order, mode), w in zip(ORDERS_MODES, want):
        got = run(_map_coordinates, jnp.asarray(INPUT), jnp.asarray(ROWS), jnp.asarray(COLS),
                  order=order, mode=mode)
        _same(got, w)


@jaxwg.jit
def _all_map_coordinates(rows, cols):
    return [_map_coordinates(jnp.asarray(INPUT), rows, cols, order, mode)
            for order, mode in ORDERS_MODES]


@settings(max_examples=8, deadline=None)
@given(st.lists(st.floats(-12, 12, width=32, allow_subnormal=False), min_size=18, max_size=18))
def test_map_coordinates_at_any_points(coordinates):
    rows, cols = np.array(coordinates, np.float32).reshape(2, 9)
    for got, w in zip(_all_map_coordinates(jnp.asarray(rows), jnp.asarray(cols)),
                      _jax_map_coordinates(rows, cols)):
        _same(got, w)


FINITE = np.nan_to_num(INPUT, nan=-1.0, posinf=2.0)
COORDS = np.array([-1.5, 0.5, 1.5, 2.5, 4.5, 8.0, 8.5], np.float32)
MAP_EDGES = [(np.arange(-3, 6, dtype=np.int32), COORDS, "reflect"),  # round half away from 0
             (INPUT[0], np.arange(-3, 8), "wrap"),  # integer coordinates
             (np.ones(1, np.float32), COORDS, "mirror"),  # one sample
             (np.arange(4, dtype=np.float16), COORDS, "constant")]


@functools.cache
def _jax_map_edges():
    def gradient(x, r):
        loss = lambda x, r: jax.scipy.ndimage.map_coordinates(x, [r, 1.5 + r], 1, mode="reflect").sum()
        return jax.grad(loss, argnums=(0, 1))(x, r)

    return jax.jit(lambda: ([jax.scipy.ndimage.map_coordinates(x, [c], 1, mode=m, cval=2.5)
                             for x, c, m in MAP_EDGES],
                            gradient(FINITE, ROWS)))()


def test_map_coordinates_dtypes_edges_gradient_and_errors():
    want, want_grad = _jax_map_edges()
    for (x, c, mode), w in zip(MAP_EDGES, want):
        _same(ndimage.map_coordinates(jnp.asarray(x), [jnp.asarray(c)], 1, mode=mode, cval=2.5), w)
    got = jaxwg.grad(lambda x, r: ndimage.map_coordinates(x, [r, 1.5 + r], 1, mode="reflect").sum(),
                     argnums=(0, 1))(jnp.asarray(FINITE), jnp.asarray(ROWS))
    for g, w in zip(got, want_grad):
        _same(g, w)
    _same_type(ndimage.map_coordinates(np.arange(5.0), [[0.5, 3.25]], 1),
               lambda: jax.scipy.ndimage.map_coordinates(np.arange(5.0), [[0.5, 3.25]], 1))
    x = jnp.arange(5.0)
    _raises_as_jax(ValueError, "coordinates must be a sequence of length input.ndim",
                   lambda: ndimage.map_coordinates(x, [x, x], 1),
                   lambda: jax.scipy.ndimage.map_coordinates(np.ones(5), [np.ones(5)] * 2, 1))
    _raises_as_jax(NotImplementedError, "does not yet support mode grid-wrap",
                   lambda: ndimage.map_coordinates(x, [x], 1, mode="grid-wrap"),
                   lambda: jax.scipy.ndimage.map_coordinates(np.ones(5), [np.ones(5)], 1,
                                                             mode="grid-wrap"))
    _raises_as_jax(NotImplementedError, "requires order<=1",
                   lambda: ndimage.map_coordinates(x, [x], 3),
                   lambda: jax.scipy.ndimage.map_coordinates(np.ones(5), [np.ones(5)], 3))


GRID = (np.array([0.0, 1.0, 3.0], np.float32), np.array([1.0, 2.0, 2.5, 4.0], np.float32))
VALUES = np.arange(12.0, dtype=np.float32).reshape(3, 4) ** 1.5
QUERY = np.array([[0.5, 1.5], [4.0, 1.0], [2.0, 2.0], [-0.0, 4.0], [2.9, 2.25],
                  [np.nan, 1.5], [1.0, -np.inf]], np.float32)


@functools.cache
def _jax_interpolations():
    theirs = jax.scipy.interpolate.RegularGridInterpolator
    return jax.jit(lambda q: (
        theirs(GRID, VALUES, fill_value=None)((q[:, 0], q[:, 1])),  # one array per axis
        theirs(GRID, VALUES, method="nearest", fill_value=-1.0)(q),
        theirs(GRID[:1], VALUES)(q[:3, 0]),  # trailing axes of values; 4.0 lies outside
    ))(QUERY)


def test_regular_grid_interpolator_matches_jax(platform):
    linear, nearest, trailing = _jax_interpolations()
    grid, values, query = tuple(map(jnp.asarray, GRID)), jnp.asarray(VALUES), jnp.asarray(QUERY)
    f = RegularGridInterpolator(grid, values, fill_value=None)
    _same(f((query[:, 0], query[:, 1])), linear)
    f = RegularGridInterpolator(grid, values, method="nearest", fill_value=-1.0)
    _same(f(query), nearest)
    # a pytree: jit takes the interpolator
    _same(jaxwg.jit(lambda f, q: f(q))(f, query), nearest)
    _same(RegularGridInterpolator(grid[:1], values)(query[:3, 0]), trailing)


def test_regular_grid_interpolator_dtypes_and_errors():
    theirs = jax.scipy.interpolate.RegularGridInterpolator
    for values in (np.arange(12).reshape(3, 4), VALUES.astype(np.float16)):
        _same_type(RegularGridInterpolator(GRID, jnp.asarray(values))(jnp.asarray(QUERY[:3])),
                   lambda: theirs(GRID, values)(QUERY[:3]))
    ours = RegularGridInterpolator
    v = jnp.asarray(VALUES)
    _raises_as_jax(ValueError, "method 'cubic' is not defined",
                   lambda: ours(GRID, v, method="cubic"), lambda: theirs(GRID, VALUES, "cubic"))
    _raises_as_jax(NotImplementedError, "bounds_error",
                   lambda: ours(GRID, v, bounds_error=True),
                   lambda: theirs(GRID, VALUES, bounds_error=True))
    _raises_as_jax(ValueError, "fill_value must be either 'None' or of a type compatible",
                   lambda: ours(GRID, v, fill_value=1j), lambda: theirs(GRID, VALUES, fill_value=1j))
    _raises_as_jax(ValueError, "there are 3 point arrays, but values has 2 dimensions",
                   lambda: ours(GRID + GRID[:1], v), lambda: theirs(GRID + GRID[:1], VALUES))
    _raises_as_jax(TypeError, "RegularGridInterpolator requires ndarray",
                   lambda: ours(GRID, [[1.0]]), lambda: theirs(GRID, [[1.0]]))
    _raises_as_jax(ValueError, "sample points xi have dimension 3",
                   lambda: ours(GRID, v)(jnp.ones((1, 3))),
                   lambda: theirs(GRID, VALUES)(np.ones((1, 3))))
    _raises_as_jax(ValueError, "method 'foo' is not defined",
                   lambda: ours(GRID, v)(jnp.ones((1, 2)), method="foo"),
                   lambda: theirs(GRID, VALUES)(np.ones((1, 2)), method="foo"))


OBS = np.array([[1.1, 2.1, 3.1], [5.9, 4.8, 6.2], [2.5, 3.5, 4.5], [np.nan, 0.0, 0.0]],
               np.float32)
BOOK = np.array([[1.0, 2.0, 3.0], [2.0, 3.0, 4.0], [3.0, 4.0, 5.0], [4.0, 5.0, 6.0]],
                np.float32)
# 2-d (and a NaN), 1-d (ties: the first) and NaN codes; then integers, no observations
VQ_CASES = [(OBS, BOOK), (OBS[:, 0], BOOK[:, 0]),
            (np.array([1.0, np.nan], np.float32), np.array([0.0, np.nan], np.float32))]
VQ_TYPES = [(np.array([1, 5, 2]), np.array([0, 3])),
            (np.zeros((0, 2), np.float32), np.ones((3, 2), np.float32))]


@functools.cache
def _jax_vq():
    return jax.jit(lambda: [jax.scipy.cluster.vq.vq(o, b) for o, b in VQ_CASES])()


def test_vq_matches_jax(platform):
    for (o, b), want in zip(VQ_CASES, _jax_vq(), strict=True):
        for got, w in zip(vq(jnp.asarray(o), jnp.asarray(b)), want):
            _same(got, w)
    for o, b in VQ_TYPES:
        want = jax.eval_shape(jax.scipy.cluster.vq.vq, o, b)
        for got, w in zip(vq(jnp.asarray(o), jnp.asarray(b)), want):
            assert (got.dtype, got.weak_type, got.shape) == (w.dtype, w.weak_type, w.shape)
    assert vq(jnp.array([1, 5, 2]), jnp.array([0, 3]))[0].tolist() == [0, 1, 1]
    _raises_as_jax(ValueError, "should have the same rank",
                   lambda: vq(jnp.ones((2, 3)), jnp.ones(3)),
                   lambda: jax.scipy.cluster.vq.vq(np.ones((2, 3)), np.ones(3)))
    _raises_as_jax(ValueError, "ndim different than 1 or 2",
                   lambda: vq(jnp.ones((1, 2, 2)), jnp.ones((1, 2, 2))),
                   lambda: jax.scipy.cluster.vq.vq(np.ones((1, 2, 2)), np.ones((1, 2, 2))))
    _raises_as_jax(TypeError, "scipy.cluster.vq.vq requires ndarray",
                   lambda: vq([1.0], jnp.ones(1)),
                   lambda: jax.scipy.cluster.vq.vq([1.0], np.ones(1)))


DATA = np.random.default_rng(1).normal(size=(2, 12)).astype(np.float32)
WEIGHTS = np.random.default_rng(2).uniform(0.5, 2.0, size=12).astype(np.float32)
POINTS = np.array([[0.0, 0.5, -1.0, 30.0], [0.0, -0.5, 2.0, 0.0]], np.float32)
# (data, bw_method, weights): Scott's rule, a scalar, Silverman's rule, a function
KDES = [(DATA, None, WEIGHTS), (DATA[0], 0.4, None), (DATA[:, :5], "silverman", None),
        (DATA[1], lambda k: 0.5 * k.neff ** -0.2, WEIGHTS)]


def _kde_results(make):
    """The fields of the estimators of KDES (made by `make`); the methods of the first two
    (2-d and 1-d) on fixed points (each costs JAX a compile); those two."""
    kdes = [make(*k) for k in KDES]
    two, one, small = kdes[:3]
    fields = [[kde.neff, kde.dataset, kde.weights, kde.covariance, kde.inv_cov] for kde in kdes]
    methods = [two.logpdf(POINTS), one.evaluate(POINTS[0]),
               two.integrate_gaussian(np.full(2, 0.25, np.float32), np.eye(2, dtype=np.float32)),
               two.integrate_kde(small), one.integrate_box_1d(-0.5, np.inf)]
    return fields, methods, (two, one)


@functools.cache
def _jax_kdes():
    return jax.jit(lambda: _kde_results(jax.scipy.stats.gaussian_kde))()


def _ours(data, bw_method, weights):
    return gaussian_kde(jnp.asarray(data), bw_method,
                        None if weights is None else jnp.asarray(weights))


# On the CPU backend only: on a software GPU, the estimators' shader compiles (Cholesky
# and inverse of each size, covariances) take seconds, and those build on linear algebra
# tested on both backends elsewhere.
@pytest.mark.parametrize("platform", ["cpu"], indirect=True)
def test_gaussian_kde_matches_jax(platform):
    fields, methods, _ = _jax_kdes()
    got_fields, got_methods, (two, one) = _kde_results(_ours)
    for g_row, w_row in zip(got_fields, fields, strict=True):
        for g, w in zip(g_row, w_row, strict=True):
            _same(g, w, rtol=2e-5)
    for g, w in zip(got_methods, methods, strict=True):
        _same(g, w, rtol=2e-5)
    logpdf_two, evaluate_one = methods[:2]
    density = jax.numpy.exp(logpdf_two)
    for method in (two.evaluate, two.pdf, two):
        _same(method(jnp.asarray(POINTS)), density, rtol=1e-5, atol=0)
    _same(one.pdf(POINTS[0].tolist()[2]), evaluate_one[2:3], rtol=2e-5)  # a scalar point
    # a pytree: jit takes the estimator
    _same(jaxwg.jit(lambda k, x: k.logpdf(x))(two, jnp.asarray(POINTS)), logpdf_two, rtol=2e-5)
    # resample: JAX's draws for the same key (weighted choice plus correlated normals)
    for ours, args in ((two, KDES[0]), (one, KDES[1])):
        want = jax.scipy.stats.gaussian_kde(*args).resample(jax.random.key(3), (4,))
        _same(ours.resample(jaxwg.random.key(3), (4,)), want, rtol=1e-5, atol=1e-6)


def test_gaussian_kde_errors():
    theirs = jax.scipy.stats.gaussian_kde
    constructions = [
        (NotImplementedError, "does not support complex data", (np.array([1j, 2.0]),)),
        (ValueError, "should have multiple elements", (np.ones(1),)),
        (ValueError, "`weights` input should be of length n", (DATA, None, WEIGHTS[:3])),
        (ValueError, "`weights` input should be one-dimensional", (DATA, None, np.ones((12, 1)))),
        (ValueError, "`bw_method` should be 'scott', 'silverman'", (DATA, "foo")),
        (TypeError, "requires ndarray", ([1.0, 2.0],)),
    ]
    for error, match, args in constructions:
        # JAX's under jit, which traces without compiling
        _raises_as_jax(error, match, lambda: gaussian_kde(*args),
                       lambda: jax.jit(lambda: theirs(*args))())
    calls = [
        (ValueError, "points have dimension 3, dataset has dimension 2",
         lambda two, one: two.evaluate(np.ones((3, 2)))),
        (NotImplementedError, "does not support complex coordinates",
         lambda two, one: two.logpdf(np.ones((2, 2), np.complex64))),
        (ValueError, "mean does not have dimension 2",
         lambda two, one: two.integrate_gaussian(np.ones(3), np.eye(2))),
        (ValueError, "covariance does not have dimension 2",
         lambda two, one: two.integrate_gaussian(np.ones(2), np.eye(3))),
        (ValueError, r"integrate_box_1d\(\) only handles 1D pdfs",
         lambda two, one: two.integrate_box_1d(0.0, 1.0)),
        (ValueError, "limits of integration in integrate_box_1d must be scalars",
         lambda two, one: one.integrate_box_1d(np.zeros(2), 1.0)),
        (ValueError, "KDEs are not the same dimensionality", lambda two, one: two.integrate_kde(one)),
        (NotImplementedError, "only 1D box integrations are supported",
         lambda two, one: two.integrate_box(np.zeros(2), np.ones(2))),
        (NotImplementedError, "dynamically changing the bandwidth",
         lambda two, one: two.set_bandwidth("scott")),
    ]
    ours = _ours(*KDES[0]), _ours(*KDES[1])
    for error, match, call in calls:
        _raises_as_jax(error, match, lambda: call(*ours), lambda: call(*_jax_kdes()[2]))
