"""Sample-size formulas against numbers worked by hand (z values from a normal table)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from cap_core.choice.sample_size import (
    items_for_parity,
    items_to_separate,
    more_items,
    per_item_variance,
)
from cap_core.errors import CAPInputError

Z975, Z80, Z95, Z90 = 1.959964, 0.841621, 1.644854, 1.281552


def test_separation_by_hand():
    # sigma^2 = 100 points^2, effect 2 points: (1.959964 + 0.841621)^2 * 100 / 4 = 196.22
    assert items_to_separate(100.0, 2.0, 0.95, 0.8) == pytest.approx((Z975 + Z80) ** 2 * 100 / 4, rel=1e-5)
    assert items_to_separate(100.0, -2.0) == items_to_separate(100.0, 2.0)
    assert items_to_separate(100.0, 0.0) == math.inf


def test_parity_by_hand():
    # TOST, true difference 0: (z_0.95 + z_0.90)^2 * 100 / 25 = 34.26
    assert items_for_parity(100.0, 5.0, 0.95, 0.8) == pytest.approx((Z95 + Z90) ** 2 * 100 / 25, rel=1e-5)
    # true difference 1: (z_0.95 + z_0.80)^2 * 100 / 16
    assert items_for_parity(100.0, 5.0, 0.95, 0.8, true_diff=1.0) == pytest.approx((Z95 + Z80) ** 2 * 100 / 16,
                                                                                   rel=1e-5)
    assert items_for_parity(100.0, 5.0, true_diff=6.0) == math.inf


def test_per_item_variance_and_more_items():
    d = np.array([1.0, 2.0, 3.0, 4.0])  # sample variance 5/3
    assert per_item_variance(d, 30) == pytest.approx(30 * 5 / 3)
    assert more_items(196.2, 150) == 47 and more_items(10.0, 150) == 0 and more_items(math.inf, 5) == math.inf


@pytest.mark.parametrize("args", [(-1.0, 2.0), (math.nan, 2.0)])
def test_bad_variance_refused(args):
    with pytest.raises(CAPInputError):
        items_to_separate(*args)


def test_bad_level_refused():
    with pytest.raises(CAPInputError):
        items_for_parity(1.0, 5.0, level=1.5)
