import csv
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from cap_core.analyses.stress import stress_deltas, stress_summary
from cap_core.errors import CAPInputError
from tests.cap_core.analyses._fixtures import published_with_pro, toy_profile


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


def _two_benchmarks(n_base=40, n_stress=30, seed=5):
    """Judge J: base items right with prob 0.9, stressed items right with prob 0.5 (both orders alike)."""
    from cap_core import Dataset

    rng = np.random.default_rng(seed)
    items, rows, pa = [], [], {}
    for bench, n, p in (("base", n_base, 0.9), ("stress", n_stress, 0.5)):
        right = rng.random(n) < p
        pa[bench] = right.astype(float)  # the same verdict in both orders -> pa per item is 0 or 1
        for i in range(n):
            items.append({"benchmark": bench, "item_id": f"{bench}{i:03d}", "gold": "A"})
            for order in ("AB", "BA"):
                rows.append({"judge": "J", "benchmark": bench, "item_id": f"{bench}{i:03d}", "order": order,
                             "verdict": "A" if right[i] else "B"})
    return Dataset.build(pl.DataFrame(items), pl.DataFrame(rows)), pa


def test_stress_interval_is_the_bootstrap_of_an_independent_difference():
    from cap_core.analyses.stress import stress_intervals
    from cap_core.bootstrap import benchmark_seed, resample_counts
    from cap_core.profile.conditions import compute_profile

    ds, pa = _two_benchmarks()
    res = compute_profile(ds, n_resamples=400, seed=2)
    out = stress_intervals(res, "base", "stress")
    c7 = out.filter(pl.col("condition") == "C7").row(0, named=True)
    # recompute: each benchmark resampled with its own stream (items sorted by id, one stratum)
    reps = {}
    for bench in ("base", "stress"):
        w = resample_counts(pa[bench].size, 400, benchmark_seed(2, bench)).astype(float)
        reps[bench] = 100 * (w @ pa[bench]) / pa[bench].size
    diff = reps["base"] - reps["stress"]
    assert c7["delta"] == pytest.approx(100 * (pa["base"].mean() - pa["stress"].mean()))
    assert c7["ci_low"] == pytest.approx(np.percentile(diff, 2.5))
    assert c7["ci_high"] == pytest.approx(np.percentile(diff, 97.5))
    assert c7["separated"] == bool(c7["ci_low"] > 0 or c7["ci_high"] < 0)


def test_stress_cli_with_data_gives_intervals(tmp_path):
    from cap_core.cli.main import main
    from cap_core.dataset import save_dataset

    ds, pa = _two_benchmarks()
    save_dataset(ds, tmp_path / "ds")
    out = tmp_path / "stress.csv"
    assert main(["stress", "--data", str(tmp_path / "ds"), "--base", "base", "--stressed", "stress",
                 "--bootstrap", "300", "--out", str(out)]) == 0
    got = pl.read_csv(out)
    overall_gap = 100 * (pa["base"].mean() - pa["stress"].mean())
    row = got.filter(pl.col("condition") == "C7").row(0, named=True)
    assert row["delta"] == pytest.approx(overall_gap)
    assert row["ci_low"] < row["delta"] < row["ci_high"]


def test_stress_intervals_need_replicates():
    from cap_core.analyses.stress import stress_intervals

    with pytest.raises(CAPInputError, match="computed profile"):
        stress_intervals(pl.DataFrame(), "a", "b")
