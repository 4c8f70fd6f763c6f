"""Weighted judge scores (cap_core.profile.weights) checked by hand and against scipy."""

from pathlib import Path

import numpy as np
import polars as pl
import pytest
from scipy import stats

from cap_core.errors import CAPInputError
from cap_core.profile.weights import (
    METHOD_BOOTSTRAP,
    METHOD_NORMAL,
    PRESETS,
    check_weights,
    weighted_scores,
)
from cap_core.schema import CONDITION_IDS, PROFILE_SCHEMA

PUBLISHED = Path(__file__).resolve().parents[3] / ".." / "shared" / "published" / "cap_profiles.csv"


def table3() -> pl.DataFrame:
    """CAP Table 3 (judgerEva hard_empirical) read straight from the published CSV."""
    raw = pl.read_csv(PUBLISHED, infer_schema=False).filter(pl.col("table") == "3")
    return raw.select(
        "judge", "benchmark", "subset", "condition",
        pl.lit("pa").alias("metric"),
        pl.col("value", "ci_low", "ci_high").cast(pl.Float64),
        pl.lit(None, dtype=pl.Int64).alias("n_items"),
        pl.lit(None, dtype=pl.Int64).alias("n_excluded"),
        "status",
        pl.lit("").alias("operator"),
        pl.lit(True).alias("primary"),
        pl.lit("published: CAP Table 3").alias("source"),
    )


def hand_profile(rows: list[tuple[str, str, float]]) -> pl.DataFrame:
    """Computed-style profile rows (judge, condition, value) on one benchmark."""
    return pl.DataFrame(
        {
            "judge": [r[0] for r in rows], "benchmark": ["b"] * len(rows), "subset": ["all"] * len(rows),
            "condition": [r[1] for r in rows], "metric": ["pa"] * len(rows), "value": [r[2] for r in rows],
            "ci_low": [None] * len(rows), "ci_high": [None] * len(rows), "n_items": [10] * len(rows),
            "n_excluded": [0] * len(rows), "n_not_received": [0] * len(rows), "status": ["direct"] * len(rows), "operator": [""] * len(rows),
            "primary": [True] * len(rows), "source": ["computed"] * len(rows),
        },
        schema=PROFILE_SCHEMA,
    )


def score_of(frame: pl.DataFrame, judge: str) -> dict:
    return frame.filter(pl.col("judge") == judge).row(0, named=True)


def test_balanced_is_mean_of_table3_values():
    out = weighted_scores(table3(), None, PRESETS["balanced"])
    # GPT-4o, CAP Table 3: 40.5 + 53.1 + 63.2 + 64.1 + 36.7 + 20.4 + 25.2 + 66.7 = 369.9; / 8 = 46.2375
    gpt = score_of(out, "GPT-4o")
    assert gpt["score"] == pytest.approx(46.2375)
    assert gpt["conditions_used"] == ["C1", "C2", "C3", "C4", "C5", "C6", "C7", "C8"]
    assert gpt["renormalised"] is False and gpt["method"] == METHOD_NORMAL
    # Claude Sonnet 4.5: 92.4 + 86.7 + 89.5 + 59.2 + 84.7 + 84.7 + 86.0 + 85.7 = 668.9; / 8 = 83.6125
    assert score_of(out, "Claude Sonnet 4.5")["score"] == pytest.approx(83.6125)
    assert out["p_best"].sum() == pytest.approx(1.0)


def test_presets_reorder_gpt4o_and_sonnet():
    prof = table3().filter(pl.col("judge").is_in(["GPT-4o", "Claude Sonnet 4.5"]))
    legal = weighted_scores(prof, None, PRESETS["legal and policy"])
    # C4 only: GPT-4o 64.1 > Sonnet 59.2
    assert legal["judge"].to_list() == ["GPT-4o", "Claude Sonnet 4.5"]
    assert score_of(legal, "GPT-4o")["score"] == pytest.approx(64.1)
    sci = weighted_scores(prof, None, PRESETS["scientific review"])
    # C1 + C8: GPT-4o (40.5 + 66.7) / 2 = 53.6; Sonnet (92.4 + 85.7) / 2 = 89.05
    assert sci["judge"].to_list() == ["Claude Sonnet 4.5", "GPT-4o"]
    assert score_of(sci, "Claude Sonnet 4.5")["score"] == pytest.approx(89.05)


def test_unequal_weights_by_hand():
    out = weighted_scores(table3(), None, {"C1": 2.0, "C4": 1.0})
    # GPT-4o: (2 * 40.5 + 64.1) / 3 = 145.1 / 3
    assert score_of(out, "GPT-4o")["score"] == pytest.approx(145.1 / 3)


def test_missing_condition_renormalises_not_zero():
    prof = table3().filter(~((pl.col("judge") == "GPT-4o") & (pl.col("condition") == "C8")))
    out = weighted_scores(prof, None, PRESETS["scientific review"])
    gpt = score_of(out, "GPT-4o")
    # only C1 remains: 40.5 (a zero for C8 would give 20.25)
    assert gpt["score"] == pytest.approx(40.5)
    assert gpt["renormalised"] is True
    assert gpt["conditions_used"] == ["C1"]
    assert "C8" in gpt["note"]
    assert score_of(out, "Claude Sonnet 4.5")["renormalised"] is False


def test_judge_without_any_weighted_condition_has_no_score():
    prof = table3().filter(~((pl.col("judge") == "GPT-4o") & (pl.col("condition") == "C4")))
    out = weighted_scores(prof, None, PRESETS["legal and policy"])
    gpt = score_of(out, "GPT-4o")
    assert gpt["score"] is None and gpt["p_best"] is None
    assert out["p_best"].drop_nulls().sum() == pytest.approx(1.0)


def test_bootstrap_p_best_by_hand_with_ties():
    prof = hand_profile([("X", "C1", 65.0), ("Y", "C1", 55.0)])
    reps = np.array([[50, 55], [60, 55], [70, 75], [80, 75], [60, 60], [90, 10]], dtype=float)
    out = weighted_scores(prof, reps, {"C1": 1.0})
    # X wins replicates 1, 3, 5 and ties 4: (3 + 0.5) / 6; Y wins 0, 2 and ties 4: 2.5 / 6
    assert score_of(out, "X")["p_best"] == pytest.approx(3.5 / 6)
    assert score_of(out, "Y")["p_best"] == pytest.approx(2.5 / 6)
    assert score_of(out, "X")["method"] == METHOD_BOOTSTRAP


def test_bootstrap_interval_is_percentile_of_weighted_replicates():
    prof = hand_profile([("X", "C1", 60.0), ("X", "C2", 40.0)])
    c1 = np.array([50.0, 55, 60, 65, 70, 75, 80, 85, 90, 95])
    c2 = np.array([10.0, 20, 30, 40, 50, 60, 70, 80, 90, 100])
    out = weighted_scores(prof, np.column_stack([c1, c2]), {"C1": 3.0, "C2": 1.0}, level=0.8)
    # replicate scores (3*c1 + c2) / 4 = 40, 46.25, 52.5, ..., 96.25 (step 6.25); 10%/90% quantiles
    # with linear interpolation: 40 + 0.9 * 6.25 = 45.625 and 96.25 - 0.9 * 6.25 = 90.625
    row = score_of(out, "X")
    assert row["score"] == pytest.approx((3 * 60 + 40) / 4)
    assert row["ci_low"] == pytest.approx(45.625)
    assert row["ci_high"] == pytest.approx(90.625)


def test_normal_approximation_matches_scipy():
    prof = table3().filter(pl.col("judge").is_in(["GPT-4o", "Claude Sonnet 4.5"]))
    out = weighted_scores(prof, None, PRESETS["legal and policy"], n_draws=40000, seed=3)
    sd_g, sd_s = (74 - 53) / (2 * 1.959964), (72 - 46) / (2 * 1.959964)
    gpt = score_of(out, "GPT-4o")
    assert gpt["ci_low"] == pytest.approx(stats.norm.ppf(0.025, 64.1, sd_g), abs=0.3)
    assert gpt["ci_high"] == pytest.approx(stats.norm.ppf(0.975, 64.1, sd_g), abs=0.3)
    p = stats.norm.cdf((64.1 - 59.2) / np.hypot(sd_g, sd_s))  # about 0.717
    assert gpt["p_best"] == pytest.approx(p, abs=0.015)


def test_p_best_sums_to_one_per_benchmark():
    a = table3()
    b = a.with_columns(pl.lit("other").alias("benchmark"))
    out = weighted_scores(pl.concat([a, b]), None, PRESETS["adversarial traffic"])
    sums = out.group_by("benchmark").agg(pl.col("p_best").sum())
    assert sums["p_best"].to_list() == pytest.approx([1.0, 1.0])


def test_presets_cover_all_conditions():
    for name, w in PRESETS.items():
        assert list(w) == list(CONDITION_IDS), name
    assert {c for c, v in PRESETS["adversarial traffic"].items() if v > 0} == {"C5", "C6", "C7"}
    assert {c for c, v in PRESETS["scientific review"].items() if v > 0} == {"C1", "C8"}


def test_weighted_scores_iv():
    prof = table3()
    with pytest.raises(CAPInputError, match="unknown condition id"):
        weighted_scores(prof, None, {"C9": 1.0})
    with pytest.raises(CAPInputError, match="must be a finite non-negative number"):
        weighted_scores(prof, None, {"C1": -1.0})
    with pytest.raises(CAPInputError, match="must be a finite non-negative number"):
        weighted_scores(prof, None, {"C1": float("nan")})
    with pytest.raises(CAPInputError, match="all condition weights in `weights` are zero"):
        weighted_scores(prof, None, {"C1": 0.0})
    with pytest.raises(CAPInputError, match="must be a mapping"):
        check_weights([1.0])
    with pytest.raises(CAPInputError, match="shape"):
        weighted_scores(prof, np.zeros((5, 3)), {"C1": 1.0})
    with pytest.raises(CAPInputError, match="lacks profile columns"):
        weighted_scores(prof.drop("primary"), None, {"C1": 1.0})
    with pytest.raises(CAPInputError, match="must be a polars DataFrame"):
        weighted_scores({"judge": []}, None, {"C1": 1.0})
    with pytest.raises(CAPInputError, match="`level`"):
        weighted_scores(prof, None, {"C1": 1.0}, level=95)


def test_argument_errors_name_the_argument_not_a_table_column():
    prof = table3()
    for bad in ({"C1": 0.0}, {"C9": 1.0}, {"C1": -1.0}, [1.0]):
        with pytest.raises(CAPInputError) as info:
            weighted_scores(prof, None, bad)
        err = info.value
        assert err.column is None and err.argument == "weights"
        assert "column" not in str(err) and "`weights`" in str(err)
    with pytest.raises(CAPInputError) as info:
        weighted_scores(prof, np.zeros((5, 3)), {"C1": 1.0})
    assert info.value.column is None and info.value.argument == "replicates"
    with pytest.raises(CAPInputError) as info:
        check_weights({c: 0 for c in PRESETS["balanced"]})
    assert "{" not in str(info.value) and "C1 0" in str(info.value)  # readable, not a Python dict


# ---------------------------------------------------------------------------------------------
# Weights are relative: any finite scale gives the scores of the ratios (issue 21, item 6)
# ---------------------------------------------------------------------------------------------


def test_huge_weights_give_the_scores_of_their_ratios(default_data_dir):
    """``C1=1e308,C7=1e308`` summed to inf and scored every judge 0; it is 1:1."""
    from cap_core.dataset import load_dataset
    from cap_core.profile.conditions import compute_profile
    from cap_core.profile.weights import weighted_scores

    res = compute_profile(load_dataset(default_data_dir), n_resamples=200, seed=0, benchmarks=["judgebench"])
    one = weighted_scores(res.profile, res.replicates, {"C1": 1, "C7": 1}, seed=0)
    huge = weighted_scores(res.profile, res.replicates, {"C1": 1e308, "C7": 1e308}, seed=0)
    assert one.height == 8 and huge["judge"].to_list() == one["judge"].to_list()
    for col in ("score", "ci_low", "ci_high", "p_best"):
        assert (huge[col] - one[col]).abs().max() < 1e-9, col
    # 1:1 is the plain mean of the two primary values (by hand, from the profile rows)
    prim = res.profile.filter(pl.col("primary") & pl.col("condition").is_in(["C1", "C7"]))
    by_hand = prim.group_by("judge").agg(pl.col("value").mean().alias("mean"))
    got = one.join(by_hand, on="judge")
    assert (got["score"] - got["mean"]).abs().max() < 1e-9
    # unequal huge weights are their ratio: 2e307 : 1e308 is 1 : 5
    ratio = weighted_scores(res.profile, res.replicates, {"C1": 2e307, "C7": 1e308}, seed=0)
    small = weighted_scores(res.profile, res.replicates, {"C1": 0.2, "C7": 1.0}, seed=0)
    assert (ratio["score"] - small["score"]).abs().max() < 1e-9
