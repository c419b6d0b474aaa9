"""`jaxwg.scipy.special`'s Bessel functions of the first kind of integer order
(`bessel_jn`), Owen's T function (`owens_t`), the Faddeeva function (`wofz`) and the
spherical harmonics (`sph_harm_y`), by JAX's methods: Miller's backward recurrence (Zhang
and Jin, Computation of Special Functions, 1996), 13-point quadrature (Patefield and
Tandy 2000, method T5), Weideman's (1994) rational approximation and the recurrences of
the normalized associated Legendre functions."""

from __future__ import annotations

import operator

import numpy as np

from .. import lax
from .. import numpy as jnp
from ..transforms.custom import custom_jvp
from .special import _horner, _inexact


def bessel_jn(z, *, v, n_iter=50):
    """J_0(z) ... J_v(z), the Bessel functions of the first kind of orders 0 to `v`, as
    an array of shape (v + 1, *z.shape) (real z; `n_iter` steps of the backward
    recurrence J_{k-1} = 2k / z J_k - J_{k+1}, normalized by 1 = J_0 + 2 J_2 + 2 J_4 + ...;
    in float32 it overflows to NaN for small |z| unless `n_iter` is smaller, as JAX's).

    >>> from jaxwg.scipy.special import bessel_jn
    >>> [round(j, 5) for j in bessel_jn(10.0, v=2).tolist()]
    [-0.24594, 0.04347, 0.25463]
    """
    (z,) = _inexact(z)
    if jnp.iscomplexobj(z):
        raise TypeError(f"bessel_jn does not accept dtype {z.dtype}: complex input not supported.")
    v = operator.index(v)
    n_iter = int(n_iter)
    z = lax.convert_element_type(z, z.dtype, weak_type=False)

    def step(carry, k):
        previous, current, norm = carry
        value = 2.0 * (k + 1.0) * current / z - previous
        norm = jnp.where(jnp.fmod(k, 2.0) == 0, norm + 2.0 * value, norm)
        return (current, value, norm), value

    start = (jnp.zeros_like(z), jnp.full_like(z, 1e-16), jnp.zeros_like(z))
    (_, _, norm), values = lax.scan(step, start, jnp.arange(n_iter + 1, dtype=z.dtype),
                                    reverse=True)
    return values[:v + 1] / (norm - values[0])


# Owen's T by T(h, a) = a sum_i w_i exp(-h^2 (1 + a^2 t_i) / 2) / (1 + a^2 t_i) for |a| <= 1
# (u^2 = a^2 t in T's integral, 1 / 2 pi and the Jacobian in the weights), and for |a| > 1
# through T(h, a) = (Phi(h) + Phi(ah)) / 2 - Phi(h) Phi(ah) - T(ah, 1 / a) (in erf/erfc)
_OWENS_T_POINTS = (0.0035082039676451715, 0.031279042338030754, 0.085266826283219451,
                   0.16245071730812277, 0.25851196049125435, 0.36807553840697534,
                   0.48501092905604697, 0.60277514152618577, 0.71477884217753227,
                   0.81475510988760099, 0.89711029755948966, 0.95723808085944262,
                   0.99178832974629704)
_OWENS_T_WEIGHTS = (0.018831438115323503, 0.018567086243977649, 0.018042093461223386,
                    0.017263829606398753, 0.016243219975989857, 0.014994592034116705,
                    0.013535474469662088, 0.011886351605820165, 0.010070377242777432,
                    0.0081130545742299587, 0.0060419009528470239, 0.0038862217010742058,
                    0.0016793031084546090)
_ROOT_2 = float(np.sqrt(2.0))


@custom_jvp
def _owens_t(h, a):
    h, abs_a = jnp.abs(h), jnp.abs(a)
    inside = abs_a <= 1.0
    small_a = jnp.where(inside, abs_a, 1.0 / abs_a)
    scaled_h = jnp.where(inside, h, abs_a * h)
    r = jnp.square(small_a)[..., None] * jnp.asarray(np.array(_OWENS_T_POINTS))
    integrand = jnp.exp(-0.5 * jnp.square(scaled_h)[..., None] * (1.0 + r)) / (1.0 + r)
    value = small_a * (integrand @ jnp.asarray(np.array(_OWENS_T_WEIGHTS)))
    # exact at h = 0 (arctan(a) / 2 pi) and at a = 1 (Phi(h) (1 - Phi(h)) / 2)
    value = jnp.where(scaled_h == 0.0, jnp.arctan(small_a) / float(2 * np.pi), value)
    value = jnp.where(small_a == 1.0, 0.125 * lax.erfc(-scaled_h / _ROOT_2)
                      * lax.erfc(scaled_h / _ROOT_2), value)
    h_over_root_2 = h / _ROOT_2
    erfc_h, erfc_ah = lax.erfc(h_over_root_2), lax.erfc(abs_a * h_over_root_2)
    outside = jnp.where(abs_a * h <= 0.67,
                        0.25 - 0.25 * lax.erf(h_over_root_2) * lax.erf(abs_a * h_over_root_2),
                        0.25 * (erfc_h + erfc_ah - erfc_h * erfc_ah)) - value
    value = jnp.sign(a) * jnp.where(inside, value, outside)
    return jnp.where(jnp.isnan(a) | jnp.isnan(h), jnp.nan, value).astype(value.dtype)


@_owens_t.defjvp
def _owens_t_jvp(primals, tangents):
    (h, a), (dh, da) = primals, tangents
    out = _owens_t(h, a)
    # dT/dh = -exp(-h^2 / 2) erf(a h / sqrt 2) / (2 sqrt(2 pi)),
    # dT/da = exp(-(1 + a^2) h^2 / 2) / (2 pi (1 + a^2))
    dh_rule = (-jnp.exp(-0.5 * jnp.square(h)) * lax.erf(a * h / _ROOT_2)
               / float(2 * np.sqrt(2 * np.pi)))
    da_rule = jnp.exp(-0.5 * (jnp.square(a) + 1.0) * jnp.square(h)) / (
        float(2 * np.pi) * (jnp.square(a) + 1.0))
    return out, (dh_rule * dh + da_rule * da).astype(out.dtype)


def owens_t(h, a):
    """Owen's T function T(h, a) = int_0^a exp(-h^2 (1 + x^2) / 2) / (2 pi (1 + x^2)) dx
    (a 13-point quadrature, as JAX's; float16 operands give float32 as JAX's).

    >>> from jaxwg.scipy.special import owens_t
    >>> round(owens_t(0.0, 1.0).item(), 5)
    0.125
    """
    h, a = _inexact(h, a)
    h, a = jnp.broadcast_arrays(*[lax.convert_element_type(x, x.dtype, weak_type=False)
                                  for x in (h, a)])
    return _owens_t(h, a)


# Weideman's (1994) rational approximation of the Faddeeva function with N = 32 (as JAX's):
# w(z) = 2 P(Z) / (L - iz)^2 + 1 / (sqrt(pi) (L - iz)) with Z = (L + iz) / (L - iz) for
# Im z >= 0 (P's coefficients highest degree first), and w(z) = 2 exp(-z^2) - w(-z) below
_WOFZ_L = 4.7568284600108841
_WOFZ_P = (
    -1.3034426067909105e-12, 3.7411838373738471e-12, 8.030427700497756e-12,
    -2.1543593557490879e-11, -5.5442449963237932e-11, 1.165824698850374e-10,
    4.1537441121999766e-10, -5.2310202114920615e-10, -3.2080151339721323e-09,
    8.1248864216535907e-10, 2.3797556530014025e-08, 2.2930438438915445e-08,
    -1.4813078929137642e-07, -4.1840763750512053e-07, 4.2558331397138446e-07,
    4.4015317312832251e-06, 6.8210319443575151e-06, -2.1409619201999998e-05,
    -0.00013075449254579421, -0.00024532980270038237, 0.00039259136070109705,
    0.0045195411053493093, 0.019006155784845501, 0.057304403529837282, 0.14060716226893755,
    0.29544451071508743, 0.54601397206393376, 0.9019254893648001, 1.3455441692345449,
    1.8256696296324815, 2.2635372999002676, 2.5722534081245696)


def _wofz_upper(z):
    iz = lax.complex(-lax.imag(z), lax.real(z))
    denominator = _WOFZ_L - iz
    big_z = (_WOFZ_L + iz) / denominator
    return (2.0 * _horner(_WOFZ_P, big_z) / (denominator * denominator)
            + float(1 / np.sqrt(np.pi)) / denominator)


@custom_jvp
def _wofz(z):
    upper = lax.imag(z) >= 0
    w_upper = _wofz_upper(jnp.where(upper, z, -z))
    return jnp.where(upper, w_upper, 2.0 * jnp.exp(-z * z) - w_upper)


_wofz.defjvps(lambda t, ans, z: t * (-2.0 * z * ans + complex(0.0, 2 / np.sqrt(np.pi))))


def wofz(z):
    """The Faddeeva function w(z) = exp(-z^2) erfc(-iz), complex (real operands become
    complex64, or complex128 from float64).

    >>> from jaxwg.scipy.special import wofz
    >>> w = wofz(1.0)
    >>> round(w.real.item(), 5), round(w.imag.item(), 5)
    (0.36788, 0.60716)
    """
    (z,) = _inexact(z)
    wide = z.dtype in (jnp.float64, jnp.complex128)
    return _wofz(lax.convert_element_type(z, jnp.complex128 if wide else jnp.complex64,
                                          weak_type=False))


# -- spherical harmonics ---------------------------------------------------------------------


def _normalized_legendre(n_max, x):
    """The normalized associated Legendre functions P[m, l] (l, m <= n_max; 0 where
    m > l) at x, with N_l^m of the spherical harmonics folded in: P[0, 0] = 1 / (2 sqrt pi),
    P[m, m] = -sqrt(1 + 1 / 2m) sqrt(1 - x^2) P[m-1, m-1], P[m, m+1] = sqrt(2m + 3) x P[m, m],
    P[m, l] = d0 x P[m, l-1] - d1 P[m, l-2] (as JAX's three recurrences)."""
    zero = jnp.zeros_like(x)
    sine = jnp.sqrt(1.0 - x * x)
    rows = []
    diagonal = jnp.full_like(x, 0.5 / np.sqrt(np.pi))
    for m in range(n_max + 1):
        if m > 0:
            diagonal = -float(np.sqrt(1.0 + 0.5 / m)) * sine * diagonal
        row = [zero] * m + [diagonal]
        if m < n_max:
            row.append(float(np.sqrt(2.0 * m + 3.0)) * x * diagonal)
        for l in range(m + 2, n_max + 1):
            d0 = np.sqrt((4.0 * l * l - 1.0) / (l * l - m * m))
            d1 = np.sqrt((2.0 * l + 1.0) * ((l - 1.0) ** 2 - m * m)
                         / ((2.0 * l - 3.0) * (l * l - m * m)))
            row.append(float(d0) * x * row[l - 1] - float(d1) * row[l - 2])
        rows.append(jnp.stack(row))
    return jnp.stack(rows)


def sph_harm_y(n, m, theta, phi, diff_n=None, n_max=None):
    """The spherical harmonics Y_n^m(theta, phi) = N_n^m P_n^m(cos theta) exp(i m phi) at
    each (n[k], m[k], theta[k], phi[k]), for 0 <= |m| <= n (degrees and orders clipped to
    `n_max`, a concrete int, max(n) by default, as JAX's).

    >>> from jaxwg.scipy.special import sph_harm_y
    >>> import jaxwg.numpy as jnp
    >>> round(sph_harm_y(jnp.array([0]), jnp.array([0]), 0.3, 0.0)[0].real.item(), 5)
    0.28209
    """
    if diff_n is not None:
        raise NotImplementedError(
            "The 'diff_n' argument to jax.scipy.special.sph_harm_y is not supported.")
    if jnp.isscalar(theta):
        theta = jnp.array([theta])
    n_max = int(np.max(np.asarray(n)) if n_max is None else n_max)
    n, m = jnp.asarray(n), jnp.asarray(m)
    x = jnp.cos(theta)
    legendre = _normalized_legendre(n_max, x)
    values = legendre[jnp.clip(jnp.abs(m), 0, n_max), jnp.clip(n, 0, n_max), jnp.arange(len(n))]
    angle = jnp.abs(m) * phi
    harmonics = lax.complex(values * jnp.cos(angle), values * jnp.sin(angle))
    sign = jnp.where(jnp.remainder(jnp.abs(m), 2) == 1, -1.0, 1.0)
    return jnp.where(m < 0, sign * jnp.conj(harmonics), harmonics)
