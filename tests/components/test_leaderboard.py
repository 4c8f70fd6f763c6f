"""The Choose page's table and bars from a hand-made leaderboard."""

from __future__ import annotations

import polars as pl

from cap_core.choice.leaderboard import LEADERBOARD_SCHEMA
from components.leaderboard import (
    leaderboard_figure,
    leaderboard_table,
    weights_caption,
)


def _board():
    base = {c: None for c in LEADERBOARD_SCHEMA}
    rows = [
        {**base, "rank": 1, "judge": "A", "score": 70.04, "ci_low": 65.0, "ci_high": 75.0, "p_best": 0.9,
         "published": False, "diff_vs_leader": 0.0},
        {**base, "rank": 2, "judge": "B", "score": 68.0, "ci_low": 63.0, "ci_high": 73.0, "p_best": 0.1,
         "published": True, "separable": False, "diff_vs_leader": 2.04},
        {**base, "rank": 3, "judge": "C", "score": 40.0, "ci_low": 35.0, "ci_high": 45.0, "p_best": 0.0,
         "published": False, "separable": True, "diff_vs_leader": 30.04},
    ]
    return pl.DataFrame(rows, schema=LEADERBOARD_SCHEMA).with_columns(pl.col("judge").alias("label"))


def test_table_marks_leader_separable_and_published():
    t = leaderboard_table(_board())
    assert t["separable from leader"].to_list() == ["leader", "no", "yes"]
    assert t["score"].to_list() == [70.0, 68.0, 40.0]
    assert t["source"].to_list() == ["computed", "published (normal approx.)", "computed"]


def test_bars_blue_for_the_leader_and_the_inseparable():
    fig = leaderboard_figure(_board())
    bar = fig.data[0]
    assert list(bar.y) == ["C", "B", "A"]  # leader on top
    assert list(bar.marker.color) == ["#b0b0b0", "#1f77b4", "#1f77b4"]


def test_weights_caption_shares_after_renormalisation():
    w = {"C1": 1.0, "C3": 1.0, "C7": 2.0}
    assert weights_caption(w, ["C1", "C7"], "custom") == "Preset custom: C1 1 (33%), C7 2 (67%)."
