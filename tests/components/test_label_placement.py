"""Labels that must not sit on bars: the "chance" line label of the label-set audit."""

from __future__ import annotations

import polars as pl

from components.audit_bars import audit_bars_figure


def test_chance_label_sits_right_of_the_plot_area():
    table = pl.DataFrame({"label_set": ["s1", "s2"], "predictor": ["length_only"] * 2, "mode": ["paired"] * 2,
                          "score": [55.0, 95.0], "null_mean": [50.0, 50.0], "null_p95": [57.0, 58.0],
                          "clears_null": [False, True], "p_value": [0.3, 0.01], "verdict": ["a", "b"]})
    fig = audit_bars_figure(table, "paired")
    (note,) = [a for a in fig.layout.annotations if a.text.startswith("chance")]
    # right of the plot area (domain x = 1, anchored on its left), at the chance level: never over a bar
    assert note.xref in ("paper", "x domain") and note.x == 1 and note.xanchor == "left" and note.y == 50.0
    assert fig.layout.margin.r >= 60
