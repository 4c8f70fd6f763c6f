"""Pure figure builders of the Frontiers page, on the hand-computed table of test_validity."""

from __future__ import annotations

import math

import polars as pl

from cap_core.validity.frontier import operating_point, point_at, sweep
from cap_core.validity.sr import validate_grades
from components.sensitivity_bars import axis_bars_figure
from components.sr_plane import frontier_figure
from tests.cap_core.validity.test_sr import G, table


def test_plane_draws_hull_ringed_matched_point_and_slider_point():
    sw = sweep(validate_grades(table(G)))
    ops = operating_point(sw)
    sel = pl.DataFrame([point_at(sw, "G", 2.5)], schema=sw.schema)
    fig = frontier_figure(sw, ops, sel, pl.DataFrame({"judge": ["x/p"], "S": [0.9], "R": [0.4]}))
    by_name = {t.name: t for t in fig.data}
    # the figure is in percent (one unit on every page); the frames hold proportions
    assert list(by_name["G frontier"].x) == [100.0, 50.0] and list(by_name["G frontier"].y) == [50.0, 75.0]
    assert by_name["G matched S"].marker.symbol == "circle-open" and tuple(by_name["G matched S"].y) == (50.0,)
    assert tuple(by_name["G slider τ"].x) == (50.0,) and tuple(by_name["G slider τ"].y) == (75.0,)
    assert tuple(pub.x) == (90.0,) if (pub := by_name["published (Validity Table 5)"]) else False
    assert "%" in fig.layout.xaxis.title.text and fig.layout.yaxis.range[1] > 100
    pub = by_name["published (Validity Table 5)"]
    assert tuple(pub.text) == ("p",) and pub.mode == "markers" and "%{text}" in pub.hovertemplate
    assert len(fig.layout.shapes) == 5  # four quadrants and the S + R = 1 diagonal


def test_bars_show_control_flip_rate_as_one_minus_s():
    pts = pl.DataFrame({"judge": ["a", "b"], "S": [0.9, 0.75], "R": [0.4, 0.2], "R_scope": [0.5, float("nan")],
                        "R_strength": [0.3, float("nan")]})
    fig = axis_bars_figure(pts)
    by_name = {t.name: t for t in fig.data}
    ctrl = by_name["control flip rate (1 − S)"].y
    assert math.isclose(ctrl[0], 10.0) and math.isclose(ctrl[1], 25.0)  # percent
    assert by_name["R scope"].y[1] is None


def test_control_bar_says_n_a_for_a_judge_without_s():
    # judge b has no S (LLMBar Rating: one grade per output, no repeat): no flip rate of 0, an "n/a"
    pts = pl.DataFrame({"judge": ["a", "b"], "S": [0.8, float("nan")], "R": [0.4, 0.2],
                        "R_scope": [float("nan")] * 2, "R_strength": [float("nan")] * 2})
    ctrl = {t.name: t for t in axis_bars_figure(pts).data}["control flip rate (1 − S)"]
    assert math.isclose(ctrl.y[0], 20.0) and ctrl.y[1] == 0.0
    assert tuple(ctrl.text) == ("", "n/a") and ctrl.hovertext[1].startswith("n/a")
