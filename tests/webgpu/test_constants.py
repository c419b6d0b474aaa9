"""The math helpers' constants (`constants.py`) against independent values."""

import math
from fractions import Fraction

import numpy as np

from jaxwg.backend.webgpu import constants


def test_pi_agrees_with_a_second_formula():
    # Machin's formula against pi/4 = atan(1/2) + atan(1/3), both at 1300 bits
    one = 1 << 1300
    euler = 4 * (constants._atan_fixed(Fraction(1, 2), one) + constants._atan_fixed(Fraction(1, 3), one))
    assert abs(euler - constants._pi_fixed(one)) < 1 << 16


def test_two_over_pi_words_times_pi_give_two():
    words = constants.two_over_pi_words(37)
    assert words[:2] == (0xA2F9836E, 0x4E441529)  # 2/pi = 0.a2f9836e4e441529... in hex
    value = sum(Fraction(w, 1 << (32 * (i + 1))) for i, w in enumerate(words))
    pi = Fraction(constants._pi_fixed(1 << 1300), 1 << 1300)
    assert abs(value * pi - 2) < Fraction(1, 1 << 1180)


def test_pairs_round_to_numpy_and_carry_the_rest():
    assert constants.PIO2 == (np.pi / 2, 6.123233995736766e-17)  # the known float64 pair
    assert constants.PI[0] == np.pi and constants.PI[1] == 2 * constants.PIO2[1]
    assert constants.LN2 == (np.log(2), 2.3190468138462996e-17)  # the known pairs
    assert constants.LOG2E == (1 / np.log(2), 2.0355273740931033e-17)
    assert abs(sum(map(Fraction, constants.TWO_THIRDS)) - Fraction(2, 3)) < 2.0 ** -106
    for k, (hi, lo) in enumerate(constants.ATAN_EIGHTHS):
        assert hi == np.arctan(k / 8)
        assert abs(lo) <= math.ulp(hi) / 2


def test_erfcx_at_eighths_agree_with_scipy():
    from scipy.special import erfcx

    for k, (hi, lo) in enumerate(constants.ERFCX_EIGHTHS):
        assert abs(hi - erfcx(0.5 + k / 8)) <= 2 * math.ulp(hi) and abs(lo) <= math.ulp(hi) / 2
    assert constants.RSQRT_PI[0] == 1 / math.sqrt(math.pi)
