"""The labelling planner: items to separate two candidates or show parity, from their disagreement."""

from __future__ import annotations

import math

import polars as pl
import pytest
from scipy.stats import norm

from cap_core.errors import CAPInputError
from cap_core.labelling.plan import (
    disagreement_rate,
    per_item_variance_from_disagreement,
)

pytest.importorskip("cap_core.choice.sample_size")  # the shared formulas (branch choose) -- merged by the lead

from cap_core.labelling.plan import plan_labels  # noqa: E402


def test_disagreement_rate_by_hand():
    j = pl.DataFrame({"judge": ["a"] * 4 + ["b"] * 5, "item_id": ["1", "1", "2", "3", "1", "1", "2", "3", "4"],
                      "order": ["AB", "BA", "AB", "AB", "AB", "BA", "AB", "AB", "AB"],
                      "verdict": ["A", "B", "tie", "B", "A", "A", "tie", "unparsed", "A"]})
    # shared units: 1/AB agree, 1/BA differ, 2/AB tie=tie agree, 3/AB B vs unparsed differ -> 2 of 4
    assert disagreement_rate(j, "a", "b") == (0.5, 4)
    with pytest.raises(CAPInputError):
        disagreement_rate(j, "a", "c")
    with pytest.raises(CAPInputError):
        disagreement_rate(j, "a", "a")


def test_plan_matches_the_normal_formulas():
    # delta = 0.2: Var(d) = 1e4 (0.2 - 0.05^2) = 1975 points^2 to separate 5 points,
    # 1e4 * 0.2 = 2000 for parity (true difference 0)
    assert per_item_variance_from_disagreement(0.2, 5) == pytest.approx(1975.0)
    p = plan_labels(0.2, effect=5, margin=5)
    z_sep = norm.ppf(0.975) + norm.ppf(0.8)
    assert p.separate == math.ceil(z_sep ** 2 * 1975 / 25)  # 621
    z_par = norm.ppf(0.95) + norm.ppf(0.9)
    assert p.parity == math.ceil(z_par ** 2 * 2000 / 25)  # 686
    assert (p.separate, p.parity) == (621, 686)
    assert plan_labels(0.0, effect=5).parity == 0  # judges that never disagree are on par at once
    assert plan_labels(0.03, effect=5).separate == math.inf  # disagreeing on 3% they cannot differ by 5 points
    with pytest.raises(CAPInputError) as e:
        plan_labels(1.5)
    assert e.value.argument == "rate"
