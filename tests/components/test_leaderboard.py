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


def test_sample_size_sentence_fits_each_case():
    from components.leaderboard import sample_size_text

    base = {"diff": 4.0, "n_items": 350, "level": 0.95, "power": 0.8, "margin": 5.0}
    clear = sample_size_text({**base, "diff": 30.0, "more_to_separate": 0.0, "more_for_parity": float("inf")}, "B", "A")
    assert "already enough to separate" in clear and "not expected" in clear
    assert "about 0" not in clear and "no number of items" not in clear
    open_ = sample_size_text({**base, "more_to_separate": 812.0, "more_for_parity": 1200.0}, "B", "A")
    assert "about 812 more items" in open_ and "about 1,200 more" in open_ and "close to the ±5 margin" in open_
    same = sample_size_text({**base, "diff": 0.0, "more_to_separate": float("inf"), "more_for_parity": 0.0}, "B", "A")
    assert "observed difference is zero" in same and "already enough to show parity" in same
