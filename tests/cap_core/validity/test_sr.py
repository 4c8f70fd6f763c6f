"""Validity profiles and frontiers on small hand-computed graded tables."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from scipy import stats

from cap_core.bootstrap import resample_counts
from cap_core.errors import CAPInputError
from cap_core.validity.frontier import (
    candidate_taus,
    hull,
    operating_point,
    point_at,
    quadrant,
    sweep,
)
from cap_core.validity.sr import validate_grades, validity_at, validity_intervals

COLS = ["judge", "base_item_id", "probe_id", "class", "axis", "slot", "grade_base", "grade_probe"]
# Judge G (scale 1-5), two base items; verdict = grade > tau.
#   b1: i1 T_I 4->4 (tie, never flips), i2 T_I 4->3 (flips at tau 3.5),
#       c1 T_C scope 4->2 (flips at 2.5, 3.5), c2 T_C strength 4->4 (tie, never flips)
#   b2: i3 T_I 3->2 (flips at 2.5), c3 T_C scope 3->1 (flips at 1.5, 2.5)
# Distinct grades 1,2,3,4 -> taus 0.5, 1.5, 2.5, 3.5, 4.5. Items weigh equally, probes equally within an item:
#   tau 0.5: S 1, R 0                         tau 1.5: S 1, R (0 + 1)/2 = 0.5, R_scope (0+1)/2 = 0.5
#   tau 2.5: S 1 - (0 + 1)/2 = 0.5, R ((1+0)/2 + 1)/2 = 0.75, R_scope 1
#   tau 3.5: S 1 - (1/2 + 0)/2 = 0.75, R (1/2 + 0)/2 = 0.25, R_scope 0.5
#   tau 4.5: S 1, R 0.  R_strength (only b1's c2) is 0 everywhere.
# Hull (best R at that S or stricter): (1, 0.5) at tau 1.5 and (0.5, 0.75) at tau 2.5; (0.75, 0.25) is
# dominated by (1, 0.5). Matched point at S >= 0.90: tau 1.5; at S >= 0.5: tau 2.5.
G = [("G", "b1", "i1", "T_I", "control", "register", 4, 4), ("G", "b1", "i2", "T_I", "control", "length", 4, 3),
     ("G", "b1", "c1", "T_C", "scope", "quantifier_strengthening", 4, 2),
     ("G", "b1", "c2", "T_C", "strength", "hedging_removal", 4, 4),
     ("G", "b2", "i3", "T_I", "control", "register", 3, 2),
     ("G", "b2", "c3", "T_C", "scope", "domain_extension", 3, 1)]
# Judge H gives every text the grade 3: taus 2.5 and 3.5, both (1, 0); one hull vertex.
H = [("H", *r[1:6], 3, 3) for r in G]


def table(rows, lo=1.0, hi=5.0, **extra):
    df = pl.DataFrame(rows, schema=COLS, orient="row").with_columns(scale_min=pl.lit(lo), scale_max=pl.lit(hi))
    return df.with_columns(**{k: pl.lit(v) for k, v in extra.items()})


def test_sweep_by_hand_with_ties_and_a_single_grade_judge():
    sw = sweep(validate_grades(table(G + H)))
    g = sw.filter(pl.col("judge") == "G")
    assert g["tau"].to_list() == [0.5, 1.5, 2.5, 3.5, 4.5]
    assert g["S"].to_list() == [1.0, 1.0, 0.5, 0.75, 1.0]
    assert g["R"].to_list() == [0.0, 0.5, 0.75, 0.25, 0.0]
    assert g["R_scope"].to_list() == [0.0, 0.5, 1.0, 0.5, 0.0]
    assert g["R_strength"].to_list() == [0.0] * 5
    assert g["on_hull"].to_list() == [False, True, True, False, False]
    h = sw.filter(pl.col("judge") == "H")
    assert h["tau"].to_list() == [2.5, 3.5] and h["S"].to_list() == [1.0, 1.0] and h["R"].to_list() == [0.0, 0.0]
    assert h["on_hull"].to_list() == [True, False]
    v = hull(sw).filter(pl.col("judge") == "G")
    assert list(zip(v["S"], v["R"])) == [(1.0, 0.5), (0.5, 0.75)]


def test_matched_invariance_point_and_configurable_floor():
    sw = sweep(validate_grades(table(G + H)))
    op = operating_point(sw)
    assert op.filter(pl.col("judge") == "G")["tau"].item() == 1.5
    assert op.filter(pl.col("judge") == "H")["R"].item() == 0.0
    assert operating_point(sw, 0.5).filter(pl.col("judge") == "G")["tau"].item() == 2.5
    with pytest.raises(CAPInputError, match="min_s"):
        operating_point(sw, 90)


def test_slider_value_maps_to_the_nearest_threshold():
    sw = sweep(validate_grades(table(G)))
    assert point_at(sw, "G", 2.4)["R"] == 0.75  # same verdicts as tau 2.5
    with pytest.raises(CAPInputError, match="unknown judge"):
        point_at(sw, "nobody", 1.0)


def test_degenerate_instruments_sit_at_the_corners():
    # never moves: every probe graded like its base -> (1, 0) at every tau
    never = [("N", *r[1:6], 4, 4) for r in G]
    # always moves: base 5, probe 1 on every probe -> (0, 1) at any tau in (1, 5)
    always = [("A", *r[1:6], 5, 1) for r in G]
    sw = sweep(validate_grades(table(never + always)))
    n = sw.filter(pl.col("judge") == "N")
    assert set(zip(n["S"], n["R"])) == {(1.0, 0.0)}
    a = sw.filter(pl.col("judge") == "A")
    assert (0.0, 1.0) in set(zip(a["S"], a["R"]))
    assert set(zip(*hull(a).select("S", "R").to_dict(as_series=False).values())) == {(1.0, 0.0), (0.0, 1.0)}
    assert quadrant(1.0, 0.0) == "insensitive" and quadrant(0.0, 1.0) == "unstable"
    assert quadrant(0.95, 0.6) == "valid" and quadrant(0.5, 0.1) == "invalid"


def test_verdict_only_judge_is_one_point():
    rows = [("V", *r[1:6], 1, 0 if r[3] == "T_C" else 1) for r in G]
    sw = sweep(validate_grades(table(rows, 0.0, 1.0, verdict_only=True)))
    assert sw.height == 1 and sw["tau"].item() == 0.5
    assert (sw["S"].item(), sw["R"].item()) == (1.0, 1.0)


def test_per_axis_sensitivity_weights_items_then_probes():
    # item x: two scope probes (one flips) and one strength probe (flips); item y: one scope probe (no flip)
    # R_scope = (1/2 + 0)/2 = 0.25; R_strength = 1 (only item x); R = ((1+0+1)/3 + 0)/2 = 1/3
    rows = [("J", "x", "p1", "T_C", "scope", "population_widening", 5, 1),
            ("J", "x", "p2", "T_C", "scope", "tense_modality_shift", 5, 5),
            ("J", "x", "p3", "T_C", "strength", "condition_removal", 5, 1),
            ("J", "y", "p4", "T_C", "scope", "domain_extension", 5, 5),
            ("J", "y", "p5", "T_I", "control", "formatting", 5, 5)]
    out = validity_at(validate_grades(table(rows)), np.array([3.0]))
    assert out["R_scope"][0] == pytest.approx(0.25)
    assert out["R_strength"][0] == pytest.approx(1.0)
    assert out["R"][0] == pytest.approx(1 / 3)
    assert out["S"][0] == 1.0


def test_candidate_thresholds():
    assert candidate_taus(np.array([0.0, 0.5, 1.0, 0.5])).tolist() == [-0.25, 0.25, 0.75, 1.25]
    assert candidate_taus(np.array([3.0])).tolist() == [2.5, 3.5]


def _many_items(n=60, seed=3):
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n):
        k = int(rng.integers(1, 4))  # 1-3 construct probes per item, 1 control
        for p in range(k):
            rows.append(("J", f"b{i}", f"b{i}c{p}", "T_C", "scope", "s", 5, int(rng.integers(1, 6))))
        rows.append(("J", f"b{i}", f"b{i}i", "T_I", "control", "c", 5, int(rng.choice([5, 5, 5, 2]))))
    return table(rows)


def test_bootstrap_resamples_base_items_like_scipy():
    g = validate_grades(_many_items())
    iv = validity_intervals(g, 3.5, n_resamples=4000, seed=7).filter(pl.col("measure") == "R").row(0, named=True)
    per_item = (g.filter(pl.col("class") == "T_C").with_columns(f=(pl.min_horizontal("grade_base", "grade_probe") <= 3.5)
                & (pl.max_horizontal("grade_base", "grade_probe") > 3.5))
                .group_by("base_item_id").agg(pl.col("f").mean()).sort("base_item_id")["f"].to_numpy())
    assert iv["value"] == pytest.approx(per_item.mean())
    ref = stats.bootstrap((per_item,), np.mean, n_resamples=4000, method="percentile", random_state=11)
    assert iv["ci_low"] == pytest.approx(ref.confidence_interval.low, abs=0.02)
    assert iv["ci_high"] == pytest.approx(ref.confidence_interval.high, abs=0.02)
    # exact: a plain loop over the same multinomial counts (items in sorted-id order)
    counts = resample_counts(per_item.size, 4000, 7)
    reps = [(c * per_item).sum() / c.sum() for c in counts]
    assert iv["ci_low"] == pytest.approx(np.percentile(reps, 2.5))
    assert iv["ci_high"] == pytest.approx(np.percentile(reps, 97.5))


def test_bad_inputs_give_clear_errors():
    bad = table(G).with_columns(base_item_id=pl.when(pl.col("probe_id") == "c1").then(None)
                                .otherwise(pl.col("base_item_id")))
    with pytest.raises(CAPInputError, match="probe without a base item") as e:
        validate_grades(bad, file="g.csv")
    assert e.value.row == 3 and e.value.file == "g.csv"
    with pytest.raises(CAPInputError, match="grade outside the declared scale") as e:
        validate_grades(table(G).with_columns(grade_probe=pl.when(pl.col("probe_id") == "i3").then(7)
                                              .otherwise(pl.col("grade_probe"))))
    assert e.value.row == 5 and e.value.column == "grade_probe" and "[1, 5]" in str(e.value)
    with pytest.raises(CAPInputError, match="probe without a base grade"):
        validate_grades(table(G).with_columns(grade_base=pl.when(pl.col("probe_id") == "i1").then(None)
                                              .otherwise(pl.col("grade_base"))))
    with pytest.raises(CAPInputError, match="unknown probe class"):
        validate_grades(table(G).with_columns(**{"class": pl.lit("TC")}))
    with pytest.raises(CAPInputError, match="lacks required columns"):
        validate_grades(table(G).drop("slot"))
