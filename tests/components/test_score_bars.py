"""Weighted-score bars: order, asymmetric CI error bars."""

import polars as pl

from components.score_bars import score_bars_figure


def test_bars_sorted_with_asymmetric_errors():
    s = pl.DataFrame(
        {
            "label": ["A", "B", "C"],
            "score": [60.0, 80.0, None],
            "ci_low": [50.0, 75.0, None],
            "ci_high": [62.0, 90.0, None],
            "p_best": [0.1, 0.9, None],
            "method": ["bootstrap"] * 3,
        }
    )
    fig = score_bars_figure(s)
    bar = fig.data[0]
    assert list(bar.y) == ["A", "B"]  # ascending x: best ends on top; C has no score
    assert list(bar.x) == [60.0, 80.0]
    assert list(bar.error_x.array) == [2.0, 10.0]  # 62-60, 90-80
    assert list(bar.error_x.arrayminus) == [10.0, 5.0]  # 60-50, 80-75
    # P(best) is written right of each interval's upper end, never on the bar or its whisker
    notes = {a.text: a for a in fig.layout.annotations}
    assert set(notes) == {"P(best) 0.10", "P(best) 0.90"}
    assert notes["P(best) 0.90"].x == 90.0 and notes["P(best) 0.90"].y == "B"
    assert notes["P(best) 0.10"].x == 62.0 and all(a.xanchor == "left" and a.xshift > 0 for a in notes.values())
    assert not bar.text  # nothing drawn inside the bars


def test_long_names_are_cut_and_not_merged():
    long = "=cmd|" + "z" * 200_000
    s = pl.DataFrame({"label": [long, long + "2"], "score": [10.0, 20.0], "ci_low": [5.0, 15.0],
                      "ci_high": [15.0, 25.0], "p_best": [0.0, 1.0], "method": ["bootstrap"] * 2})
    y = list(score_bars_figure(s).data[0].y)
    assert len(y) == 2 and len(set(y)) == 2  # two bars, not one merged category
    assert all(len(v) <= 60 for v in y)
