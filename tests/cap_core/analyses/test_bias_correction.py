import numpy as np
import polars as pl
import pytest

from cap_core.analyses.bias_correction import (
    bias_corrected,
    correct_accuracy,
    position_parameters,
)
from cap_core.dataset import Dataset
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


def _skewed_dataset(n_right_gold_second: int, n_right_gold_first: int) -> Dataset:
    """10 items (gold alternating A/B), both orders; one judge 'skew'.

    Each item has one judgment with the gold shown first (AB with gold A, BA with gold B)
    and one with it shown second. The judge is right on the first ``n_right_gold_second``
    items' gold-second judgments and on the first ``n_right_gold_first`` items' gold-first
    judgments, wrong elsewhere (verdicts in original letters).
    """
    gold = ["A", "B"] * 5
    items = pl.DataFrame({"benchmark": "toy", "item_id": [f"i{k}" for k in range(10)], "gold": gold})
    rows = []
    for k, g in enumerate(gold):
        other = "B" if g == "A" else "A"
        for order in ("AB", "BA"):
            gold_first = (order == "AB") == (g == "A")
            right = k < (n_right_gold_first if gold_first else n_right_gold_second)
            rows.append(("skew", f"i{k}", order, g if right else other))
    judgments = pl.DataFrame(rows, schema=["judge", "item_id", "order", "verdict"], orient="row").with_columns(
        pl.lit("toy").alias("benchmark"))
    return Dataset.build(items, judgments)


@pytest.mark.parametrize("n0_right, n1_right, raw, unclipped, clipped, side", [
    # q0 = 10/10, q1 = 6/10, raw = 16/20 = 0.8: (0.8 + 1 - 1) / (1 + 0.6 - 1) = 4/3 -> 1, above 1
    (10, 6, 0.8, 4 / 3, 1.0, "above 1"),
    # q0 = 2/10, q1 = 9/10, raw = 11/20 = 0.55: (0.55 + 0.2 - 1) / (0.2 + 0.9 - 1) = -2.5 -> 0, below 0
    (2, 9, 0.55, -2.5, 0.0, "below 0"),
    # q0 = 8/10, q1 = 8/10, raw = 0.8: (0.8 + 0.8 - 1) / 0.6 = 1 -> inside, not saturated
    (8, 8, 0.8, 1.0, 1.0, ""),
])
def test_corrected_is_clipped_to_unit_interval_and_flagged(n0_right, n1_right, raw, unclipped, clipped, side):
    ds = _skewed_dataset(n0_right, n1_right)
    q = position_parameters(ds, "toy").row(0, named=True)
    assert (q["q0"], q["q1"]) == pytest.approx((n0_right / 10, n1_right / 10))
    out = bias_corrected(compute_profile(ds, n_resamples=200), position_parameters(ds, "toy"), benchmark="toy")
    r = out.filter(pl.col("condition") == "overall").row(0, named=True)
    assert r["raw"] == pytest.approx(raw)
    assert r["corrected_unclipped"] == pytest.approx(unclipped)
    assert r["corrected"] == pytest.approx(clipped)
    assert r["saturated"] is bool(side) and r["saturation"] == side
    for col in ("corrected", "ci_low", "ci_high"):
        assert 0.0 <= r[col] <= 1.0
    assert r["ci_low"] <= r["corrected"] <= r["ci_high"]
    if side:
        assert side in r["reason"]


def test_correct_accuracy_clip_helper():
    from cap_core.analyses.bias_correction import clip_unit

    vals, side = clip_unit(np.array([-0.3, 0.0, 0.4, 1.0, 1.2, np.nan]))
    assert np.allclose(vals[:5], [0.0, 0.0, 0.4, 1.0, 1.0]) and np.isnan(vals[5])
    assert side.tolist() == ["below 0", "", "", "", "above 1", ""]


def test_correct_verb_reports_saturation(tmp_path, capsys):
    from cap_core.cli.main import main
    from cap_core.dataset import save_dataset

    data = save_dataset(_skewed_dataset(10, 6), tmp_path / "d")
    out = tmp_path / "c.csv"
    assert main(["correct", "--data", str(data), "--benchmark", "toy", "--bootstrap", "200", "--out", str(out)]) == 0
    assert "1 saturated (1 above 1, 0 below 0)" in capsys.readouterr().out
    r = pl.read_csv(out).filter(pl.col("condition") == "overall").row(0, named=True)
    assert r["corrected"] == pytest.approx(1.0) and r["corrected_unclipped"] == pytest.approx(4 / 3)
