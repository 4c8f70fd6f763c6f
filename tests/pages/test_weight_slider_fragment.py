"""Issue 13: a weight-slider move reruns only the sidebar's weights and the page's weighted section
(streamlit fragments, ``ui.sidebar.weighted_section``), and still changes the scores and the URL.

Expected scores are CAP Table 3 (judgereva, hard_empirical) averaged by hand: GPT-4o C1 40.5, C4 64.1;
Claude Sonnet 4.5 C1 92.4, C4 59.2. AppTest keeps only the elements of the fragments that reran, so the
absence of the page title after a move shows that the rest of the page (and the router) did not run.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest
from streamlit.testing.v1 import AppTest

from tests.pages.shown import rendered

APP = str(Path(__file__).resolve().parents[2] / "app.py")
T3 = "{} · CAP Table 3 · hard_empirical"
GPT, SONNET = T3.format("GPT-4o"), T3.format("Claude Sonnet 4.5")


def _open(page: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=180).run()
    at.switch_page(page).run()
    at.selectbox(key="sb_benchmark").set_value("judgereva").run()
    at.multiselect(key="sb_entries").set_value([GPT, SONNET]).run()
    at.selectbox(key="sb_preset").set_value("legal and policy").run()  # C4 only
    assert not at.exception and not at.error
    return at


def _qp(at: AppTest, name: str):
    v = at.query_params.get(name)
    return v[0] if isinstance(v, list) and len(v) == 1 else v


def _profiles_scores(at: AppTest) -> dict[str, float]:
    t = pl.from_pandas(at.dataframe[0].value)
    return dict(zip(t["judge"], t["score"]))


def _board(at: AppTest) -> pl.DataFrame:
    return pl.from_pandas(next(d for d in at.dataframe if "rank" in d.value.columns).value)


def test_profiles_slider_move_reruns_the_weighted_section_only_and_updates_the_url():
    at = _open("app_pages/profiles.py")
    assert _profiles_scores(at) == {GPT: 64.1, SONNET: 59.2}
    assert _qp(at, "preset") == "legal and policy"
    at.slider(key="sb_w_C1").set_value(1.0).run()
    assert not at.exception and not at.error
    assert not at.title  # the page outside its weighted section did not rerun
    assert _profiles_scores(at) == pytest.approx({SONNET: (92.4 + 59.2) / 2, GPT: (40.5 + 64.1) / 2}, abs=0.051)
    assert [c.proto.id for c in at.get("plotly_chart")] and "prof_radar" not in at.get("plotly_chart")[0].proto.id
    assert at.selectbox(key="sb_preset").value == "custom"  # the preset box reran with the sliders
    assert _qp(at, "w") == "C1=1,C4=1" and _qp(at, "preset") is None
    # a full run draws the same scores and the weight-independent parts
    at.run()
    assert at.title[0].value == "Profiles"
    assert _profiles_scores(at) == pytest.approx({SONNET: 75.8, GPT: 52.3}, abs=0.051)
    assert any("prof_radar" in c.proto.id for c in at.get("plotly_chart"))


def test_choose_slider_move_reorders_the_leaderboard_and_updates_the_url():
    at = _open("app_pages/choose.py")
    board = _board(at)
    assert board["judge"].to_list() == [GPT, SONNET] and board["score"].to_list() == [64.1, 59.2]
    at.slider(key="sb_w_C1").set_value(1.0).run()
    assert not at.exception and not at.error
    assert not at.title
    board = _board(at)
    assert board["judge"].to_list() == [SONNET, GPT]
    assert board["score"].to_list() == pytest.approx([75.8, 52.3], abs=0.051)
    assert _qp(at, "w") == "C1=1,C4=1"
    # the weights caption of the section follows (C1 and C4 at 50% each)
    assert any("C1 1 (50%), C4 1 (50%)" in rendered(c.value) for c in at.caption)
    # two moves in a row: each reruns the section from the current sliders
    at.slider(key="sb_w_C4").set_value(0.0).run()
    board = _board(at)
    assert board["judge"].to_list() == [SONNET, GPT] and board["score"].to_list() == [92.4, 40.5]
    assert _qp(at, "w") == "C1=1"


def test_weights_survive_leaving_the_page_and_coming_back():
    at = _open("app_pages/choose.py")
    at.slider(key="sb_w_C1").set_value(1.0).run()
    at.switch_page("app_pages/export.py").run()
    assert not at.exception and not at.error
    assert at.slider(key="sb_w_C1").value == 1.0 and at.selectbox(key="sb_preset").value == "custom"
    assert _qp(at, "w") == "C1=1,C4=1"
    exported = pl.from_pandas(at.dataframe[1].value)  # the Export page's weighted scores, same weights
    assert exported["judge"].to_list() == [SONNET, GPT]
    at.switch_page("app_pages/profiles.py").run()
    assert at.slider(key="sb_w_C1").value == 1.0
    assert _profiles_scores(at) == pytest.approx({SONNET: 75.8, GPT: 52.3}, abs=0.051)


def test_a_page_without_a_weighted_section_reruns_whole_on_a_slider_move():
    at = _open("app_pages/export.py")
    assert pl.from_pandas(at.dataframe[1].value)["judge"].to_list() == [GPT, SONNET]
    at.slider(key="sb_w_C1").set_value(1.0).run()
    assert not at.exception and not at.error
    assert at.title[0].value == "Export"  # the whole page ran
    assert pl.from_pandas(at.dataframe[1].value)["judge"].to_list() == [SONNET, GPT]
    assert at.selectbox(key="sb_preset").value == "custom" and _qp(at, "w") == "C1=1,C4=1"
