import numpy as np
import polars as pl
import pytest

from cap_core.analyses.bias_correction import (
    bias_corrected,
    correct_accuracy,
    position_parameters,
)
from cap_core.profile.conditions import compute_profile
from tests.cap_core.analyses.test_judge_comparison import toy_dataset


def test_formula_hand():
    # raw 0.79, q0 0.85, q1 0.80: (0.79 + 0.85 - 1) / (0.85 + 0.80 - 1) = 0.64 / 0.65
    assert correct_accuracy(0.79, 0.85, 0.80) == pytest.approx(0.64 / 0.65)
    assert np.isnan(correct_accuracy(0.6, 0.5, 0.5))  # q0 + q1 = 1: not identifiable


def test_position_parameters_hand():
    q = {r["judge"]: r for r in position_parameters(toy_dataset(), "toy").iter_rows(named=True)}
    # 'first': right on all 8 judgments whose gold is shown first, wrong on the 8 with gold shown second
    assert (q["first"]["q1"], q["first"]["q0"], q["first"]["n1"], q["first"]["n0"]) == (1.0, 0.0, 8, 8)
    assert q["oracle"]["q0"] == q["oracle"]["q1"] == 1.0 and q["oracle"]["se_q0"] == 0.0


def test_not_identifiable_and_table():
    ds = toy_dataset()
    out = bias_corrected(compute_profile(ds, n_resamples=50), position_parameters(ds, "toy"), benchmark="toy")
    first = out.filter((pl.col("judge") == "first") & (pl.col("condition") == "overall")).row(0, named=True)
    assert first["status"] == "not identifiable" and first["corrected"] is None and "q0 + q1" in first["reason"]
    oracle = out.filter(pl.col("judge") == "oracle").row(0, named=True)
    # raw 1, q0 = q1 = 1 with SE 0: corrected (1 + 1 - 1) / (1 + 1 - 1) = 1, CI [1, 1], not saturated
    assert oracle["corrected"] == pytest.approx(1.0) and oracle["ci_low"] == pytest.approx(1.0)
    assert oracle["saturated"] is False
