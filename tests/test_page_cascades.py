"""The Cascades page under streamlit's AppTest on the embedded default data and on PandaLM."""

from __future__ import annotations

from pathlib import Path

import polars as pl
from streamlit.testing.v1 import AppTest

from components.cascade_plots import pareto_front

APP = str(Path(__file__).resolve().parents[1] / "app.py")


def _open() -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120).run()
    at.selectbox(key="sb_benchmark").set_value("judgebench").run()
    at.switch_page("pages/cascades.py").run()
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    return at


def _point(at: AppTest):
    fig = at.get("plotly_chart")[0].proto.spec
    import json

    data = json.loads(fig)["data"]
    star = [t for t in data if t.get("name") == "current τ"][0]
    return star["x"][0], star["y"][0]


def test_page_renders_and_moving_tau_moves_the_point():
    at = _open()
    assert at.title[0].value == "Cascades"
    assert at.selectbox(key="cas_cheap").value.endswith("(RM)")
    assert at.multiselect(key="cas_fb").value == ["o1-mini (arena_hard)"]
    at.slider(key="cas_tau").set_value(0.0).run()
    x0, y0 = _point(at)
    acc0 = at.metric[0].value
    at.slider(key="cas_tau").set_value(0.8).run()
    assert not at.exception
    x1, y1 = _point(at)
    assert x1 > x0 and acc0 != at.metric[0].value  # deferring more costs more and changes accuracy
    assert len(at.get("plotly_chart")) == 3
    rep = at.dataframe[0].value
    assert {"repeated_share", "baseline_share"} <= set(rep.columns)


def test_pandalm_without_confidence_falls_back_to_decisive():
    at = _open()
    at.radio(key="cas_src").set_value("PandaLM test set (data/pandalm)").run()
    assert not at.exception
    assert any("decisive" in w.value for w in at.warning)
    assert at.title[0].value == "Cascades" and len(at.get("plotly_chart")) == 3


def test_pareto_front_by_hand():
    pts = pl.DataFrame({"entry": ["a", "b", "c", "d"], "kind": "x", "accuracy": [60.0, 70.0, 65.0, 70.0],
                        "usd_per_1000": [1.0, 50.0, 60.0, 40.0]})
    # b is dominated by d (same accuracy, cheaper); c by d
    assert pareto_front(pts)["entry"].to_list() == ["a", "d"]
