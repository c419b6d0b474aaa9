"""Constants of the math helpers, computed at import from integer arithmetic: the words of
2/pi's binary expansion (Payne and Hanek's argument reduction), and pi/2, pi, atan(k/8),
ln 2, log2 e, 2/3, 1/sqrt(pi) and erfc(x) e^(x^2) at eighths as float64 pairs hi + lo
(their sum within 2^-106 of the value).

Nothing here is a copied table: pi comes from Machin's formula, atan(k/8) from its
Taylor series, each in fixed point with guard bits, and the tests check the results
against NumPy's pi and arctan.

>>> hex(two_over_pi_words(2)[0]), hex(two_over_pi_words(2)[1])
('0xa2f9836e', '0x4e441529')
>>> PIO2[0] == 1.5707963267948966
True
"""

from __future__ import annotations

import math
from fractions import Fraction

_BITS = 1300  # fixed-point fraction bits: 2/pi to 37 words, with guard bits


def _atan_fixed(x: Fraction, one: int) -> int:
    """atan(x) * one for 0 <= x <= 1/2 (x = p / q), by its Taylor series."""
    p, q = x.numerator, x.denominator
    total, n, power = 0, 0, one * p // q  # power: x^(2n+1) * one
    while power:
        term = power // (2 * n + 1)
        total += -term if n % 2 else term
        power = power * p * p // (q * q)
        n += 1
    return total


def _pi_fixed(one: int) -> int:
    """pi * one by Machin's formula, pi = 16 atan(1/5) - 4 atan(1/239)."""
    return 16 * _atan_fixed(Fraction(1, 5), one) - 4 * _atan_fixed(Fraction(1, 239), one)


_ONE = 1 << _BITS
_PI = _pi_fixed(_ONE)


def two_over_pi_words(n: int) -> tuple[int, ...]:
    """The first `n` 32-bit words of 2/pi's binary fraction (2/pi = 0.a2f9836e... in hex)."""
    scaled = (2 << (32 * n)) * _ONE // _PI  # floor(2/pi * 2^(32 n)), 32 n < _BITS - 64
    return tuple((scaled >> (32 * (n - 1 - i))) & 0xFFFFFFFF for i in range(n))


def _pair(fixed: int, one: int = _ONE) -> tuple[float, float]:
    """A fixed-point value (over `one`) as float64 hi + lo, hi rounded to nearest."""
    value = Fraction(fixed, one)
    hi = float(value)
    return hi, float(value - Fraction(hi))


def _atan(k: int) -> int:
    """atan(k / 8) * _ONE for k = 0..8: atan(x) = 2 atan(x / (1 + sqrt(1 + x^2))) is
    avoided by atan(x) = pi/4 - atan((1 - x) / (1 + x)) above 1/2."""
    x = Fraction(k, 8)
    if x <= Fraction(1, 2):
        return _atan_fixed(x, _ONE)
    return _PI // 4 - _atan_fixed((1 - x) / (1 + x), _ONE)


def _ln2() -> int:
    """ln 2 * _ONE = 2 atanh(1/3) * _ONE, by atanh's Taylor series."""
    total, n, power = 0, 0, _ONE // 3
    while power:
        total += power // (2 * n + 1)
        power //= 9
        n += 1
    return 2 * total


_LN2 = _ln2()
LN2 = _pair(_LN2)
LOG2E = _pair(_ONE * _ONE // _LN2)
TWO_THIRDS = _pair(2 * _ONE // 3)
def _erfcx_at(x: Fraction, one: int, sqrt_pi: int) -> int:
    """erfc(x) e^(x^2) * one, from erf's and exp's Taylor series (x small: the terms
    alternate in erf, and `one` has the guard bits for 1 - erf); sqrt_pi is sqrt(pi) * one."""
    x2 = x * x
    erf_sum, exp_sum, n = 0, 0, 0
    power = one * x.numerator // x.denominator  # x^(2n+1) / n! * one
    exp_term = one  # x^(2n) / n! * one
    while power or exp_term:
        erf_sum += (-1) ** n * (power // (2 * n + 1))
        exp_sum += exp_term
        n += 1
        power = power * x2.numerator // (x2.denominator * n)
        exp_term = exp_term * x2.numerator // (x2.denominator * n)
    erfc = one - 2 * erf_sum * one // sqrt_pi
    return erfc * exp_sum // one


_ERF_ONE = 1 << 256
_SQRT_PI = math.isqrt(_pi_fixed(_ERF_ONE) * _ERF_ONE)  # sqrt(pi) * _ERF_ONE
# erfcx(x) = erfc(x) e^(x^2) at x = 1/2 + k/8, k = 0..16 (float64 erfc's Taylor centers),
# and 1 / sqrt(pi)
ERFCX_EIGHTHS = tuple(_pair(_erfcx_at(Fraction(4 + k, 8), _ERF_ONE, _SQRT_PI), _ERF_ONE)
                      for k in range(17))
RSQRT_PI = _pair(_ERF_ONE * _ERF_ONE // _SQRT_PI, _ERF_ONE)
PIO2 = _pair(_PI // 2)
PI = _pair(_PI)
ATAN_EIGHTHS = tuple(_pair(_atan(k)) for k in range(9))  # atan(k/8), k = 0..8
