"""Stress heatmap/bars, Spearman matrix and paired-difference figures on small hand tables."""

import polars as pl
import pytest

from cap_core.analyses.stress import stress_summary
from components.difference_bars import VERDICT_COLOURS, paired_figure
from components.spearman_matrix import spearman_matrix
from components.stress_heatmap import stress_heatmap, stress_mean_bars


def deltas():
    # judge a drops most on C2 (5 > 3), judge b ties C1 and C7 at 4
    return pl.DataFrame({"judge": ["a", "a", "a", "b", "b"], "condition": ["C1", "C2", "C7", "C1", "C7"],
                         "delta": [3.0, 5.0, -1.0, 4.0, 4.0]})


def test_heatmap_marks_dominant_channels_and_leaves_gaps():
    d = deltas()
    per_judge, _ = stress_summary(d)
    h = stress_heatmap(d, per_judge).data[0]
    assert list(h.x) == ["C1", "C2", "C7"] and list(h.y) == ["a", "b"]
    assert list(h.text[0]) == ["+3.0", "+5.0 ★", "-1.0"]
    assert list(h.text[1]) == ["+4.0 ★", "", "+4.0 ★"]  # b has no C2: empty, not zero
    assert h.z[1][1] is None
    assert h.zmin == -5.0 and h.zmax == 5.0  # symmetric around 0 at the largest |δ|


def test_mean_bars_sorted():
    per_judge, _ = stress_summary(deltas())
    bar = stress_mean_bars(per_judge).data[0]
    # a: (3 + 5 - 1) / 3 = 2.33; b: 4
    assert list(bar.y) == ["a", "b"] and list(bar.x) == pytest.approx([7 / 3, 4.0])


def test_spearman_matrix_symmetric_with_marks():
    pairs = pl.DataFrame({"view_a": ["x", "x", "y"], "view_b": ["y", "z", "z"], "rho": [0.9, None, -0.5],
                          "significant": [True, None, False], "status": ["ok", "n/a", "ok"], "n_judges": [7, 2, 5]})
    h = spearman_matrix(pairs, "view_a", "view_b", "t").data[0]
    assert list(h.x) == ["x", "y", "z"]
    assert h.text[0][1] == h.text[1][0] == "0.90*<br>n=7"
    assert h.text[0][2] == "n/a<br>n=2" and h.z[0][2] is None
    assert h.text[1][2] == "-0.50<br>n=5" and h.text[0][0] == "—"


def test_paired_figure_colours_by_verdict():
    rows = pl.DataFrame({"condition": ["overall", "C7"], "diff": [6.0, 1.0], "ci95_low": [2.0, -2.0],
                         "ci95_high": [9.0, 3.0], "ci90_low": [3.0, -1.5], "ci90_high": [8.5, 2.5],
                         "verdict": ["separated", "parity"]})
    fig = paired_figure(rows, "A", "B")
    by_name = {t.name: t for t in fig.data}
    assert by_name["separated"].marker.color == VERDICT_COLOURS["separated"]
    assert list(by_name["separated"].error_x.array) == [3.0] and list(by_name["separated"].error_x.arrayminus) == [4.0]


def test_cost_axis_labels_decades_or_1_2_5_never_every_minor_tick():
    from components.cost_curves import log_ticks

    assert log_ticks(0.03, 40.0) == [0.1, 1.0, 10.0]  # three and more decades: powers of ten
    assert log_ticks(0.15, 3.0) == [0.2, 0.5, 1.0, 2.0]  # a narrow range: 1-2-5 steps
    assert log_ticks(1.2, 1.3) == [1.2, 1.3]  # nothing inside: the ends
