"""Human direction annotation (slot exclusion) and instrument quality, by hand."""

from __future__ import annotations

import math

import polars as pl
import pytest

from cap_core.errors import CAPInputError
from cap_core.validity.annotation import apply_annotations
from cap_core.validity.instrument import instrument_quality

PROBES = pl.DataFrame({
    "probe_id": ["q1", "q2", "t1", "t2", "r1"],
    "class": ["T_C", "T_C", "T_C", "T_C", "T_I"],
    "axis": ["scope", "scope", "scope", "scope", "control"],
    "slot": ["quantifier_strengthening"] * 2 + ["tense_modality_shift"] * 2 + ["register"],
})
C, U = "changed", "unchanged"
# q1: C C C -> agreement 1, majority C (usable); q2: C C U -> agreement 1/3, majority C (usable)
#   quantifier slot: mean agreement (1 + 1/3)/2 = 0.667 -> excluded at 0.75, kept at 0.6
# t1: U U U -> agreement 1, majority U (not usable, a T_C edit humans read as no change)
# t2: C C U -> 1/3, usable -> tense slot mean 0.667 too
# r1: U U (two annotators) -> agreement 1, usable control
LABELS = {"q1": [C, C, C], "q2": [C, C, U], "t1": [U, U, U], "t2": [C, C, U], "r1": [U, U]}
ANN = pl.DataFrame([(p, f"a{i}", lab) for p, labs in LABELS.items() for i, lab in enumerate(labs)],
                   schema=["probe_id", "annotator", "label"], orient="row")


def test_slot_exclusion_by_agreement_is_reported():
    kept, report = apply_annotations(PROBES, ANN)
    rep = {r["slot"]: r for r in report.iter_rows(named=True)}
    assert rep["quantifier_strengthening"]["agree"] == pytest.approx(2 / 3)
    assert rep["quantifier_strengthening"]["excluded"] and "below the bar 0.75" in rep["quantifier_strengthening"]["reason"]
    assert rep["tense_modality_shift"]["usable"] == 1 and rep["tense_modality_shift"]["human_dir_pct"] == 50.0
    assert rep["register"]["agree"] == 1.0 and not rep["register"]["excluded"]
    assert kept["probe_id"].to_list() == ["r1"]
    kept, report = apply_annotations(PROBES, ANN, min_agreement=0.6)
    assert sorted(kept["probe_id"].to_list()) == ["q1", "q2", "r1", "t2"]
    assert not report["excluded"].any()


def test_cli_annotate_reports_excluded_slots(tmp_path, capsys):
    from cap_core.cli.main import main

    probes, ann, out = tmp_path / "p.csv", tmp_path / "a.csv", tmp_path / "k.csv"
    PROBES.write_csv(probes)
    ANN.write_csv(ann)
    assert main(["probes", "annotate", "--probes", str(probes), "--annotations", str(ann), "--out", str(out)]) == 0
    said = capsys.readouterr().out
    assert "excluded slot quantifier_strengthening: mean pairwise agreement 0.667 below the bar 0.75" in said
    assert pl.read_csv(out)["probe_id"].to_list() == ["r1"]


def test_annotation_bad_inputs():
    with pytest.raises(CAPInputError, match="unknown annotation label"):
        apply_annotations(PROBES, ANN.with_columns(label=pl.lit("maybe")))
    with pytest.raises(CAPInputError, match="unknown probe"):
        apply_annotations(PROBES, ANN.with_columns(probe_id=pl.lit("zz")))
    with pytest.raises(CAPInputError, match="min_agreement"):
        apply_annotations(PROBES, ANN, min_agreement=75)


def test_instrument_quality_by_hand():
    # judge K grades 200 texts once: grade 1 on 150, grade 2 on 48, grade 3 on 1, grade 4 on 1.
    #   distinct 4; with the ten regrades below there are 210 rows: usable at 1% of 210 = 2.1 rows -> grades 1
#   (157 rows) and 2 (51 rows) only -> 2.
    # ten texts are graded a second time: 7 identical, 3 different -> regrade 0.7.
    rows = [("K", f"t{i}", "1", 1.0 if i < 150 else 2.0 if i < 198 else 3.0 if i == 198 else 4.0) for i in range(200)]
    rows += [("K", f"t{i}", "2", 1.0 if i < 7 else 2.0) for i in range(10)]
    rows += [("L", "u1", "1", 5.0)]
    g = pl.DataFrame(rows, schema=["judge", "key", "attempt", "grade"], orient="row")
    iq = instrument_quality(g)
    k = iq.filter(pl.col("judge") == "K").row(0, named=True)
    assert (k["n_graded"], k["distinct"], k["usable"], k["n_regraded"]) == (210, 4, 2, 10)
    assert k["regrade"] == pytest.approx(0.7)
    assert math.isnan(iq.filter(pl.col("judge") == "L")["regrade"].item())
    with pytest.raises(CAPInputError, match="min_share"):
        instrument_quality(g, min_share=1)
