"""Live grading of the built-in probe set through the judging cache (offline grader)."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from cap_core.cli import main
from cap_core.errors import CAPInputError
from cap_core.probe_judging import grade_probes, parse_grade, render

REPO = Path(__file__).resolve().parents[2]
BASES, PROBES = REPO / "data/validity/probe_bases.csv", REPO / "data/validity/probes_builtin.csv"


def test_parse_grade():
    assert parse_grade('{"grade": 4}') == 4.0
    assert parse_grade('Reasoning... {"Grade": 2.5} done') == 2.5
    assert parse_grade("grade: 3") == 3.0
    assert parse_grade('{"grade": 9}') is None and parse_grade("no idea") is None and parse_grade(None) is None


def test_offline_grader_through_the_cache(tmp_path):
    bases = pl.read_csv(BASES).head(2)
    probes = pl.read_csv(PROBES).filter(pl.col("base_item_id").is_in(bases["base_item_id"].to_list()))
    grades, notices = grade_probes(bases, probes, ["localgrade/overlap"], cache_dir=tmp_path)
    kept = probes.filter(pl.col("status") == "kept")
    assert grades.height == kept.height
    assert notices[0].startswith(f"{2 + kept.height} calls: {2 + kept.height} sent, 0 from the cache")
    # the formatting probe adds one content word ("claim") that med01's evidence lacks: the overlap share,
    # and with it the grade, cannot rise
    row = grades.filter(pl.col("probe_id") == "med01:formatting").row(0, named=True)
    assert row["grade_probe"] <= row["grade_base"]
    again, notices = grade_probes(bases, probes, ["localgrade/overlap"], cache_dir=tmp_path)
    assert again.equals(grades) and f"0 sent, {2 + kept.height} from the cache" in notices[0]
    assert "[Claim]\nX\n[End of Claim]" in render("E", "X")


def test_grading_refuses_unverified_probes(tmp_path):
    with pytest.raises(CAPInputError, match="not verified"):
        grade_probes(pl.read_csv(BASES), pl.read_csv(PROBES).drop("status"), ["localgrade/overlap"], cache_dir=tmp_path)
    with pytest.raises(CAPInputError, match="no judge"):
        grade_probes(pl.read_csv(BASES), pl.read_csv(PROBES), [], cache_dir=tmp_path)


def test_cli_grade_then_validity(tmp_path):
    bases = tmp_path / "b.csv"
    pl.read_csv(BASES).head(6).write_csv(bases)
    out, ops = tmp_path / "g.csv", tmp_path / "o.csv"
    assert main(["probes", "grade", "--bases", str(bases), "--probes", str(PROBES), "--judge", "localgrade/overlap",
                 "--cache", str(tmp_path / "c"), "--out", str(out)]) == 2  # probes of other bases: no base
    sub = tmp_path / "p.csv"
    pl.read_csv(PROBES).filter(pl.col("base_item_id").is_in(pl.read_csv(bases)["base_item_id"].to_list())).write_csv(sub)
    assert main(["probes", "grade", "--bases", str(bases), "--probes", str(sub), "--judge", "localgrade/overlap",
                 "--cache", str(tmp_path / "c"), "--out", str(out)]) == 0
    assert main(["validity", "--grades", str(out), "--out", str(ops), "--bootstrap", "200"]) == 0
    row = pl.read_csv(ops).row(0, named=True)
    assert row["judge"] == "localgrade/overlap" and row["S"] >= 0.90
