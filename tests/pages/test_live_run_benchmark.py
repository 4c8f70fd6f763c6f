"""Live run page with a public benchmark: candidates beside the published judges, then every page on that dataset."""

from __future__ import annotations

import os
from pathlib import Path

import polars as pl
import pytest
from streamlit.testing.v1 import AppTest

import ui.cache.live_run as lrc
from cap_core.cli.main import main
from tests.cap_core.judging.tiny_server import TinyServer
from tests.pages.app_pages import pages_in_app
from tests.pages.shown import rendered

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
REPO = Path(__file__).resolve().parents[2]
APP = str(REPO / "app.py")
JB = REPO.parent / "shared" / "data" / "judgebench"
O1 = "o1-mini (arena_hard)"
pytestmark = pytest.mark.skipif(not JB.is_dir(), reason="needs ../shared/data")


def _ok(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [rendered(e.value) for e in at.error]


def test_page_judges_a_public_benchmark_beside_its_published_judges(tmp_path, monkeypatch):
    monkeypatch.setattr(lrc, "RUNS_DIR", tmp_path)
    monkeypatch.setenv("CAP_CACHE_DIR", str(tmp_path / "cache"))
    at = AppTest.from_file(APP, default_timeout=180).run()
    at.switch_page("app_pages/live_run.py").run()
    at.radio(key="lr_src").set_value(lrc.ITEM_SOURCES[3]).run()
    at.text_input(key="lr_bench_path").set_value(str(JB)).run()
    _ok(at)
    assert any(O1 in rendered(c.value) for c in at.caption)
    at.number_input(key="lr_limit").set_value(2).run()
    at.multiselect(key="lr_judges").set_value(["local/longer"]).run()
    at.selectbox(key="lr_eval").set_value("(none)").run()
    # 2 items of judgebench x 2 orders x 1 judge
    assert "4 judging calls on 2 items" in " ".join(rendered(m.value) for m in at.markdown)
    at.button(key="lr_start").click().run()
    _ok(at)
    run_dir = Path(at.session_state[lrc.LIVE_RUN_KEY])
    judg = pl.read_parquet(run_dir / "judgments.parquet")
    assert {O1, "local/longer"} <= set(judg["judge"])
    assert set(judg.filter(pl.col("judge") == O1)["item_id"]) == set(
        judg.filter(pl.col("judge") == "local/longer")["item_id"])
    headings = [h.value for h in at.subheader]
    assert lrc.RUN_TABLES["usage.csv"] in headings


@pytest.fixture(scope="module")
def evaluated(tmp_path_factory):
    server = TinyServer()
    out = tmp_path_factory.mktemp("pages") / "eval"
    try:
        assert main(["evaluate", "--benchmark", "judgebench", "--source", str(JB), "--only", "judgebench",
                     "--limit", "4", "--model", "local/longer", "--model", "openai/tiny-judge",
                     "--api-base", server.url, "--out", str(out),
                     "--cache", str(tmp_path_factory.mktemp("c")), "--bootstrap", "100"]) == 0
    finally:
        server.close()
    return out


@pytest.mark.parametrize("page", [f for f, _ in pages_in_app()])
def test_every_page_shows_the_candidates_beside_o1_mini(evaluated, page):
    at = AppTest.from_file(APP, default_timeout=180)
    at.session_state[lrc.LIVE_RUN_KEY] = str(evaluated)
    at.session_state[lrc.BENCH_KEY] = "judgebench"
    at.run()
    at.session_state["sb_source"] = "live run results"
    at.session_state["sb_benchmark"] = "judgebench"
    at.run()
    at.switch_page(page).run()
    _ok(at)
    if page == "app_pages/compare.py":
        options = at.selectbox(key="cmp_a").options
        assert {"local/longer", "openai/tiny-judge", O1} <= set(options)
        at.selectbox(key="cmp_a").set_value("openai/tiny-judge").run()
        at.selectbox(key="cmp_b").set_value(O1).run()
        _ok(at)
        table = at.dataframe[0].value  # the paired table comes first on the page
        assert "overall" in set(table["condition"]) and "diff" in table.columns
    if page == "app_pages/profiles.py":
        options = at.multiselect(key="sb_entries").options
        labels = " ".join(options)
        assert "local/longer" in labels and "openai/tiny-judge" in labels and "o1-mini" in labels
        want = [o for o in options if any(n in o for n in ("local/longer", "openai/tiny-judge", "o1-mini"))]
        at.multiselect(key="sb_entries").set_value(want).run()
        _ok(at)
        scores = next(d.value for d in at.dataframe if "P(best)" in d.value.columns)  # the weighted-score leaderboard
        assert {"local/longer", "openai/tiny-judge", O1} <= set(scores["judge"])
        assert abs(scores["P(best)"].sum() - 1) < 1e-6
