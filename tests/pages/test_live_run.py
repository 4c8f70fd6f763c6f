"""The Live run page under AppTest: offline local judges end to end, then the profiles of the run."""

from __future__ import annotations

from pathlib import Path

import polars as pl
from streamlit.testing.v1 import AppTest

import ui.cache.live_run as lrc
from tests.pages.shown import rendered

APP = str(Path(__file__).resolve().parents[2] / "app.py")


def _markdown(at: AppTest) -> str:
    return " ".join(rendered(m.value) for m in at.markdown)


def test_live_run_with_local_judges_feeds_the_profiles(tmp_path, monkeypatch):
    monkeypatch.setattr(lrc, "RUNS_DIR", tmp_path)
    at = AppTest.from_file(APP, default_timeout=120).run()
    at.switch_page("app_pages/live_run.py").run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.title[0].value == "Live run"
    at.number_input(key="lr_limit").set_value(2).run()
    # 2 base items x 3 variants x 2 orders x 3 local judges = 36 calls, none cached yet, $0
    assert "36 judging calls on 6 items, 0 already cached, 36 to send" in _markdown(at)
    assert "$0.0000" in _markdown(at)
    at.button(key="lr_start").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [rendered(e.value) for e in at.error]
    run_dir = Path(at.session_state[lrc.LIVE_RUN_KEY])
    assert run_dir.parent == tmp_path
    judg = pl.read_parquet(run_dir / "judgments.parquet")
    assert judg.height == 36 and set(judg["judge"]) == {"local/first", "local/longer", "local/keyword-overlap"}
    # the evaluator (local/rationale-check) sees each correct AB verdict once
    items = pl.read_parquet(run_dir / "items.parquet").select("item_id", "gold")
    ab = judg.filter(pl.col("order") == "AB").join(items, on="item_id")
    correct_ab = ab.filter(pl.col("verdict") == pl.col("gold"))
    assert f"{36 + correct_ab.height} requests, 0 cache hits" in rendered(at.success[0].value)
    assert judg["rationale_supported"].is_not_null().sum() == correct_ab.height
    # right after the run the estimate already counts the 36 finished calls as cached
    assert "36 already cached, 0 to send" in _markdown(at) and "0 already cached" not in _markdown(at)
    # on the next rerun the estimate says everything is cached
    at.run()
    assert "36 already cached, 0 to send" in _markdown(at)
    # one order only: the estimate halves (a widget change changes the output)
    at.multiselect(key="lr_orders").set_value(["AB"]).run()
    assert "18 judging calls" in _markdown(at)
    # the run becomes the data source of every page
    at.button(key="lr_use").click().run()
    assert at.radio(key="sb_source").value == "live run results"
    at.switch_page("app_pages/profiles.py").run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.selectbox(key="sb_benchmark").value == "cap-mini"
    labels = " ".join(at.multiselect(key="sb_entries").options)
    assert "local/first" in labels and "local/longer" in labels


def test_evaluator_among_judges_is_an_error_not_a_traceback(tmp_path, monkeypatch):
    monkeypatch.setattr(lrc, "RUNS_DIR", tmp_path)
    at = AppTest.from_file(APP, default_timeout=120).run()
    at.switch_page("app_pages/live_run.py").run()
    at.text_input(key="lr_eval_other").set_value("local/first").run()
    assert not at.exception
    assert "evaluator is one of the judges" in rendered(at.error[0].value)


def test_run_settings_survive_leaving_the_page(tmp_path, monkeypatch):
    monkeypatch.setattr(lrc, "RUNS_DIR", tmp_path)
    at = AppTest.from_file(APP, default_timeout=120).run()
    at.switch_page("app_pages/live_run.py").run()
    at.number_input(key="lr_limit").set_value(2).run()
    at.multiselect(key="lr_orders").set_value(["AB"]).run()
    at.multiselect(key="lr_judges").set_value(["local/first"]).run()
    at.selectbox(key="lr_eval").set_value("(none)").run()
    # 2 base items x 3 variants x 1 order x 1 judge = 6 calls
    assert "6 judging calls on 6 items" in _markdown(at)
    at.switch_page("app_pages/profiles.py").run()
    at.switch_page("app_pages/live_run.py").run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.number_input(key="lr_limit").value == 2 and at.multiselect(key="lr_orders").value == ["AB"]
    assert at.multiselect(key="lr_judges").value == ["local/first"] and at.selectbox(key="lr_eval").value == "(none)"
    assert "6 judging calls on 6 items" in _markdown(at)


def test_items_read_from_a_path_follow_an_edit_of_the_file(tmp_path, monkeypatch):
    from cap_core.judging.testbed import load_testbed

    monkeypatch.setattr(lrc, "RUNS_DIR", tmp_path / "runs")
    bed = load_testbed()
    table = tmp_path / "items.parquet"
    bed.filter(pl.col("base_item_id").is_in(["health-01", "health-02"])).write_parquet(table)
    at = AppTest.from_file(APP, default_timeout=120).run()
    at.switch_page("app_pages/live_run.py").run()
    at.radio(key="lr_src").set_value("benchmark folder or table (path)").run()
    at.text_input(key="lr_path").set_value(str(table)).run()
    assert not at.exception and not at.error, [rendered(e.value) for e in at.error]
    # 2 base items x 3 variants = 6 items, x 2 orders x 3 local judges = 36 calls
    assert "36 judging calls on 6 items" in _markdown(at)
    bed.filter(pl.col("base_item_id") == "health-01").write_parquet(table)  # the file is edited on disk
    at.run()
    assert "18 judging calls on 3 items" in _markdown(at)
