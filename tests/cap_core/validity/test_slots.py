"""Per-slot sensitivity (Validity Table 6 analogue) on a hand-computed graded table."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from cap_core.bootstrap import resample_counts
from cap_core.errors import CAPInputError
from cap_core.validity.slots import MEAN_JUDGE, published_slot_table, slot_sensitivity
from cap_core.validity.sr import validate_grades

COLS = ["judge", "base_item_id", "probe_id", "class", "axis", "slot", "grade_base", "grade_probe"]
# Judge G, scale 1-5, at tau 2.5 (verdict = grade > 2.5; a probe flips when its grades straddle 2.5):
#   b1: i1 register 4->4 no flip, i4 register 4->2 flip, i2 length 4->3 no flip,
#       c1 quantifier 4->2 flip, c2 hedging 4->4 no flip
#   b2: i3 register 3->2 flip, c3 domain 3->1 flip
# register: b1 = mean(0, 1) = 0.5, b2 = 1 -> items equal: (0.5 + 1) / 2 = 0.75 (pooled would be 2/3)
# length 0 (b1 only), quantifier_strengthening 1, hedging_removal 0, domain_extension 1 (b2 only)
# Judge H grades everything 3 -> at tau 2.5 nothing flips: every slot 0.
# Mean over judges: register (0.75 + 0) / 2 = 0.375, quantifier 0.5, domain 0.5, length 0, hedging 0.
G = [("G", "b1", "i1", "T_I", "control", "register", 4, 4), ("G", "b1", "i4", "T_I", "control", "register", 4, 2),
     ("G", "b1", "i2", "T_I", "control", "length", 4, 3),
     ("G", "b1", "c1", "T_C", "scope", "quantifier_strengthening", 4, 2),
     ("G", "b1", "c2", "T_C", "strength", "hedging_removal", 4, 4),
     ("G", "b2", "i3", "T_I", "control", "register", 3, 2),
     ("G", "b2", "c3", "T_C", "scope", "domain_extension", 3, 1)]
H = [("H", *r[1:6], 3, 3) for r in G]


def grades() -> pl.DataFrame:
    df = pl.DataFrame(G + H, schema=COLS, orient="row", schema_overrides={"grade_base": pl.Float64,
                                                                          "grade_probe": pl.Float64})
    return validate_grades(df.with_columns(scale_min=pl.lit(1.0), scale_max=pl.lit(5.0)))


def test_per_slot_values_by_hand():
    t = slot_sensitivity(grades(), {"G": 2.5, "H": 2.5}, n_resamples=200)
    val = {(r["judge"], r["slot"]): r["value"] for r in t.iter_rows(named=True)}
    assert val[("G", "register")] == 0.75 and val[("G", "length")] == 0.0
    assert val[("G", "quantifier_strengthening")] == 1.0 and val[("G", "hedging_removal")] == 0.0
    assert val[("G", "domain_extension")] == 1.0
    assert all(v == 0.0 for (j, _), v in val.items() if j == "H")
    assert val[(MEAN_JUDGE, "register")] == 0.375 and val[(MEAN_JUDGE, "quantifier_strengthening")] == 0.5
    # taxonomy order (Validity Table 8, then the controls), per judge then the mean rows
    g = t.filter(pl.col("judge") == "G")
    assert g["slot"].to_list() == ["domain_extension", "quantifier_strengthening", "hedging_removal", "register",
                                   "length"]
    assert g["measure"].to_list() == ["R", "R", "R", "flip rate", "flip rate"]
    reg = t.filter((pl.col("judge") == "G") & (pl.col("slot") == "register")).row(0, named=True)
    assert (reg["n_items"], reg["n_probes"], reg["tau"]) == (2, 3, 2.5)
    m = t.filter((pl.col("judge") == MEAN_JUDGE) & (pl.col("slot") == "register")).row(0, named=True)
    assert (m["n_judges"], m["n_probes"], m["tau"]) == (2, 6, None)


def test_interval_resamples_base_items():
    t = slot_sensitivity(grades(), {"G": 2.5, "H": 2.5}, n_resamples=500, seed=3)
    # plain loop: units b1, b2 (sorted); register item values 0.5 and 1; a replicate is the count-weighted mean
    counts = resample_counts(2, 500, 3)
    reps = [(c[0] * 0.5 + c[1] * 1.0) / (c[0] + c[1]) for c in counts]
    row = t.filter((pl.col("judge") == "G") & (pl.col("slot") == "register")).row(0, named=True)
    assert row["ci_low"] == pytest.approx(np.percentile(reps, 2.5))
    assert row["ci_high"] == pytest.approx(np.percentile(reps, 97.5))
    # H is 0 in every replicate, so the mean row's replicates are half of G's
    mean = t.filter((pl.col("judge") == MEAN_JUDGE) & (pl.col("slot") == "register")).row(0, named=True)
    assert mean["ci_high"] == pytest.approx(np.percentile(reps, 97.5) / 2)
    # length lives on b1 only: a replicate that misses b1 has no value and is dropped; all others are 0
    length = t.filter((pl.col("judge") == "G") & (pl.col("slot") == "length")).row(0, named=True)
    assert (length["ci_low"], length["ci_high"]) == (0.0, 0.0)


def test_only_requested_judges_and_bad_input():
    t = slot_sensitivity(grades(), {"G": 3.5}, n_resamples=100)
    assert set(t["judge"]) == {"G", MEAN_JUDGE}
    # at 3.5, i2 (4->3), i4 (4->2) and c1 (4->2) straddle: length 1, quantifier 1,
    # register b1 = mean(i1 0, i4 1) = 0.5, b2 (i3 3->2) = 0 -> 0.25
    val = dict(zip(t.filter(pl.col("judge") == "G")["slot"], t.filter(pl.col("judge") == "G")["value"]))
    assert val == {"domain_extension": 0.0, "quantifier_strengthening": 1.0, "hedging_removal": 0.0,
                   "register": 0.25, "length": 1.0}
    with pytest.raises(CAPInputError, match="judge without grades"):
        slot_sensitivity(grades(), {"Z": 2.5})
    with pytest.raises(CAPInputError, match="no threshold"):
        slot_sensitivity(grades(), {})
    with pytest.raises(CAPInputError, match="finite"):
        slot_sensitivity(grades(), {"G": float("nan")})
    with pytest.raises(CAPInputError, match="validated grades"):
        slot_sensitivity(pl.DataFrame({"a": [1]}), {"G": 2.5})


def test_published_tables_six_and_four_side_by_side(shared_dir):
    pub = published_slot_table()
    t6 = pl.read_csv(shared_dir / "published" / "validity_interventions.csv")
    assert pub.height == t6.height == 6
    row = pub.filter(pl.col("slot") == "tense_modality_shift").row(0, named=True)
    # Validity Table 6: n 26, R 0.358; Table 4: human dir. 58%, agreement 0.852
    assert (row["n"], row["R"], row["human_dir_pct"], row["agreement"]) == (26, 0.358, 58.0, 0.852)
    assert pub.filter(pl.col("slot") == "condition_removal")["human_dir_pct"].is_null().all()
    assert set(pub["source"]) == {"published: Validity Tables 6 and 4"}


def test_cli_writes_slots_at_the_matched_tau(tmp_path):
    from cap_core.cli.main import main

    src = tmp_path / "g.csv"
    grades().drop("verdict_only").write_csv(src)
    assert main(["validity", "--grades", str(src), "--out", str(tmp_path / "o.csv"), "--slots",
                 str(tmp_path / "s.csv"), "--bootstrap", "100"]) == 0
    s = pl.read_csv(tmp_path / "s.csv")
    # G's matched tau at S >= 0.90: 1.5 (no control straddles 1.5; c3 3->1 does), so domain_extension 1,
    # every other slot 0; H's only thresholds 2.5 / 3.5 give S = 1 and R = 0, matched tau 2.5
    g = s.filter(pl.col("judge") == "G")
    assert set(g["tau"]) == {1.5} and dict(zip(g["slot"], g["value"]))["domain_extension"] == 1.0
    assert g.filter(pl.col("slot") != "domain_extension")["value"].to_list() == [0.0] * 4
    assert set(s.filter(pl.col("judge") == "H")["tau"]) == {2.5}
