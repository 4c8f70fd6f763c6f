"""Radar figure structure: closed polygons, gaps as None, one axis order for all."""

import polars as pl

from cap_core.schema import CONDITION_IDS
from components.radar import radar_figure


def rows() -> pl.DataFrame:
    # judge P lacks C3 and C8; judge Q has all eight; judge R lacks C1 (the first axis)
    data = []
    for i, c in enumerate(CONDITION_IDS):
        if c not in ("C3", "C8"):
            data.append(("P", c, 10.0 * (i + 1)))
        data.append(("Q", c, 50.0))
        if c != "C1":
            data.append(("R", c, 70.0))
    return pl.DataFrame(data, schema={"label": pl.String, "condition": pl.String, "value": pl.Float64}, orient="row")


def test_one_closed_trace_per_judge_same_axis_order():
    fig = radar_figure(rows())
    assert [t.name for t in fig.data] == ["P", "Q", "R"]
    thetas = [list(t.theta) for t in fig.data]
    assert thetas[0] == thetas[1] == thetas[2]
    assert len(thetas[0]) == 9
    assert [th.split()[0] for th in thetas[0]] == list(CONDITION_IDS) + ["C1"]
    q = fig.data[1]
    assert list(q.r) == [50.0] * 9  # closed: first value repeated at the end


def test_missing_conditions_are_gaps_not_zeros():
    fig = radar_figure(rows())
    p = list(fig.data[0].r)
    # P: C1=10, C2=20, C3 missing, C4=40, ..., C7=70, C8 missing, then C1 again
    assert p == [10.0, 20.0, None, 40.0, 50.0, 60.0, 70.0, None, 10.0]
    assert fig.data[0].connectgaps is False
    r = list(fig.data[2].r)
    assert r[0] is None and r[-1] is None and r[1:8] == [70.0] * 7


def test_axes_fixed_in_percent_and_ignores_overall():
    extra = pl.DataFrame({"label": ["Q"], "condition": ["overall"], "value": [99.0]})
    fig = radar_figure(pl.concat([rows(), extra]))
    assert len(fig.data[1].r) == 9 and 99.0 not in list(fig.data[1].r)
    assert list(fig.layout.polar.radialaxis.range) == [0, 100]
    assert list(fig.layout.polar.angularaxis.categoryarray) == list(fig.data[0].theta)[:8]
