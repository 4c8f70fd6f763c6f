"""Live grading of the built-in probe set through the judging cache (offline grader)."""

from __future__ import annotations

import csv
from pathlib import Path

import polars as pl
import pytest

from cap_core.cli.main import main
from cap_core.errors import CAPInputError
from cap_core.validity.probes.grade import grade_probes, parse_grade, render

REPO = Path(__file__).resolve().parents[4]
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
    # localgrade/overlap: grade = 1 + 4 x (share of the claim's content words, stop words dropped, found in
    # the evidence), rounded to halves. med01's claim has 14 content words: 2022 trial drug probably reduced
    # systolic blood pressure slightly adults mild hypertension taken food; its evidence holds 7 of them
    # (2022 trial systolic pressure adults mild hypertension; "probable", "took", "meals" are other words):
    # 1 + 4 x 7/14 = 3.0. The formatting probe "**Claim:** ..." adds "claim", absent from the evidence:
    # 1 + 4 x 7/15 = 2.87 -> 3.0 after rounding to halves. Population widening drops "mild hypertension":
    # 1 + 4 x 5/12 = 2.67 -> 2.5.
    row = grades.filter(pl.col("probe_id") == "med01:formatting").row(0, named=True)
    assert (row["grade_base"], row["grade_probe"]) == (3.0, 3.0)
    row = grades.filter(pl.col("probe_id") == "med01:population_widening").row(0, named=True)
    assert (row["grade_base"], row["grade_probe"]) == (3.0, 2.5)
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
    assert row["judge"] == "localgrade/overlap"
    # independent recomputation from the written grades CSV: at each threshold (between and beyond the
    # distinct grades) a probe flips when its base and probe grades fall on different sides; per base item
    # the flip share of its T_I probes (S = 1 - mean) and of its T_C probes (R = mean), items weigh the same.
    with open(out, newline="") as fh:
        rows = list(csv.DictReader(fh))
    levels = sorted({float(r[k]) for r in rows for k in ("grade_base", "grade_probe")})
    taus = [levels[0] - 0.25] + [(a + b) / 2 for a, b in zip(levels, levels[1:])] + [levels[-1] + 0.25]

    def s_r(tau):
        flips = {}
        for r in rows:
            flip = (float(r["grade_base"]) > tau) != (float(r["grade_probe"]) > tau)
            flips.setdefault((r["class"], r["base_item_id"]), []).append(flip)
        per = {c: [sum(f) / len(f) for (k, _), f in flips.items() if k == c] for c in ("T_I", "T_C")}
        return 1 - sum(per["T_I"]) / len(per["T_I"]), sum(per["T_C"]) / len(per["T_C"])

    # matched-invariance point: highest R with S >= 0.90 (ties: higher S, then lower tau)
    tau, s, r = max(((t, *s_r(t)) for t in taus if s_r(t)[0] >= 0.90), key=lambda p: (p[2], p[1], -p[0]))
    assert (row["tau"], row["S"], row["R"]) == pytest.approx((tau, s, r), rel=1e-9)
