"""Separation is never limited by the number of resamples: a bootstrap p-value resolves past 2/(B+1)."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from scipy import stats

from cap_core.analyses.judge_comparison import bootstrap_p, holm
from cap_core.cli.main import main


def test_p_value_past_the_floor_is_the_normal_tail_of_the_replicates():
    d = np.random.default_rng(0).normal(10.0, 1.0, size=200)  # no replicate at or below 0
    want = 2 * stats.norm.sf(abs(d.mean()) / d.std(ddof=1))
    assert bootstrap_p(d) == pytest.approx(want, rel=1e-9)
    assert bootstrap_p(d) < 2 / 201
    # Holm over 7 such comparisons still rejects at 0.05 (the counts alone would give 7 * 2/201 = 0.0697)
    assert all(holm([bootstrap_p(d)] * 7, 0.05)[1])


def test_p_value_inside_the_floor_is_the_count():
    d = np.r_[np.full(10, -1.0), np.full(190, 1.0)]  # 10 of 200 at or below 0: p = 2 * 11 / 201
    assert bootstrap_p(d) == pytest.approx(22 / 201)


def test_lowest_judgebench_judge_is_separable_at_200_resamples(default_data_dir, tmp_path):
    out = tmp_path / "s.csv"
    assert main(["choose", "--data", str(default_data_dir), "--benchmark", "judgebench", "--preset", "balanced",
                 "--bootstrap", "200", "--out", str(out)]) == 0
    board = pl.read_csv(out).filter(pl.col("rank").is_not_null()).sort("rank")
    last = board.row(-1, named=True)
    assert last["diff_ci_low"] > 20 and last["separable"] is True


def test_p_values_of_many_columns_follow_the_rule_column_by_column():
    # the leaderboard tests every pair at once: each column by the rule, by hand (counts, or the
    # replicates' normal tail past the floor), NaN replicates dropped from their own column only
    from cap_core.analyses.judge_comparison import bootstrap_p_columns

    rng = np.random.default_rng(3)
    cols = [rng.normal(0.2, 1.0, 300), rng.normal(9.0, 1.0, 300), np.r_[np.full(30, -1.0), np.full(270, 2.0)],
            np.r_[rng.normal(8.0, 2.0, 290), np.full(10, np.nan)], np.full(300, np.nan), np.full(300, 3.0)]
    got = bootstrap_p_columns(np.column_stack(cols))
    for col, p in zip(cols, got):
        d = col[np.isfinite(col)]
        if d.size == 0:
            assert np.isnan(p)
            continue
        least = min((d <= 0).sum(), (d >= 0).sum())
        want = min(1.0, 2 * (least + 1) / (d.size + 1))
        if least == 0:
            sd = d.std(ddof=1)
            want = min(want, 2 * stats.norm.sf(abs(d.mean()) / sd) if sd > 0 else 0.0)
        assert p == pytest.approx(want, rel=1e-9, abs=1e-300)
    assert got[2] == pytest.approx(2 * 31 / 301) and got[5] == 0.0
