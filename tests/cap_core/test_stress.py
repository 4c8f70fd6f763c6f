import csv
from pathlib import Path

import pytest

from cap_core.errors import CAPInputError
from cap_core.stress import stress_deltas, stress_summary
from tests.cap_core._analysis_fixtures import published_with_pro, toy_profile


def test_table6_mean_column(shared_dir: Path):
    deltas = stress_deltas(published_with_pro(), "judgebench", "judgebench_pro")
    per_judge, per_cond = stress_summary(deltas)
    printed = {r["judge"]: float(r["delta"]) for r in csv.DictReader(open(shared_dir / "published" / "cap_stress.csv"))
               if r["condition"] == "mean"}
    got = dict(per_judge.select("judge", "mean_delta").iter_rows())
    assert set(got) == set(printed)
    for judge, mean in printed.items():
        assert round(got[judge], 1) == pytest.approx(mean), judge
    # §4.3: C7 has the largest mean drop among the shared conditions; C2 mean 25.1
    c = dict(per_cond.select("condition", "mean_delta").iter_rows())
    assert max(c, key=c.get) == "C7" and round(c["C2"], 1) == 25.1


def test_dominant_channel_hand():
    prof = toy_profile([("a", "x", "C1", 80), ("a", "x", "C7", 90), ("a", "y", "C1", 70), ("a", "y", "C7", 60)])
    per_judge, _ = stress_summary(stress_deltas(prof, "x", "y"))
    row = per_judge.row(0, named=True)
    assert row["dominant_condition"] == "C7" and row["dominant_delta"] == 30 and row["mean_delta"] == 20


def test_no_shared_judges():
    prof = toy_profile([("a", "x", "C1", 80), ("b", "y", "C1", 70)])
    with pytest.raises(CAPInputError, match="no judge and condition"):
        stress_deltas(prof, "x", "y")
