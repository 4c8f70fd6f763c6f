"""The practitioner flow of issue 14 under AppTest: preset -> the leaderboard reorders -> the slider of an
unmeasured condition says it is not measured -> the URL holds the state -> a fresh run opened with those parameters shows
the same leaderboard -> the downloaded CSVs recompute every score to 1e-9 -> the HTML report parses with the
leaderboard rows. Plus: a bad or stale link parameter is ignored with a notice; old page paths still work."""

from __future__ import annotations

import io
from html.parser import HTMLParser
from pathlib import Path

import polars as pl
import pytest
import streamlit.testing.v1.app_test as app_test_module
from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage
from streamlit.testing.v1 import AppTest

from cap_core.choice.exports import recompute_scores
from tests.pages.shown import rendered

REPO = Path(__file__).resolve().parents[2]
APP = str(REPO / "app.py")
PAGE = "app_pages/choose.py"
JUDGES = ["o1-mini (arena_hard)", "internlm2-20b-reward (RM)", "Skywork-Reward-Gemma-2-27B (RM)"]


class _Recording(MemoryMediaFileStorage):
    files: dict[str, bytes] = {}

    def load_and_get_id(self, path_or_data, mimetype, kind, filename=None):
        file_id = super().load_and_get_id(path_or_data, mimetype, kind, filename)
        _Recording.files[filename] = path_or_data
        return file_id


def _ok(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [rendered(e.value) for e in at.error]


def _board(at: AppTest) -> pl.DataFrame:
    return pl.from_pandas(next(d.value for d in at.dataframe if "P(best)" in d.value.columns))


def _c7_strict_by_hand(judge: str) -> float:
    items = pl.read_parquet(REPO / "data" / "default" / "items.parquet").filter(pl.col("benchmark") == "judgebench")
    j = pl.read_parquet(REPO / "data" / "default" / "judgments.parquet").filter(
        (pl.col("benchmark") == "judgebench") & (pl.col("judge") == judge))
    w = j.pivot(on="order", index="item_id", values="verdict").join(items.select("item_id", "gold"), on="item_id")
    return 100.0 * ((w["AB"] == w["gold"]) & (w["BA"] == w["gold"])).sum() / items.height


class _Table(HTMLParser):
    def __init__(self):
        super().__init__()
        self.inside, self.rows, self.cell = False, [], None

    def handle_starttag(self, tag, attrs):
        if tag == "table":
            self.inside = dict(attrs).get("id") == "leaderboard"
        elif self.inside and tag == "tr":
            self.rows.append([])
        elif self.inside and tag == "td":
            self.cell = ""

    def handle_data(self, data):
        if self.cell is not None:
            self.cell += data

    def handle_endtag(self, tag):
        if tag == "td" and self.cell is not None:
            self.rows[-1].append(self.cell)
            self.cell = None
        elif tag == "table":
            self.inside = False


def test_practitioner_flow(monkeypatch):
    import ui.display as display

    monkeypatch.setattr(app_test_module, "MemoryMediaFileStorage", _Recording)
    real_download = display.download

    def download(where, label, data, file_name, *args, **kwargs):
        # a deferred file (the HTML report) is written when its button is clicked: write it here as a click would
        if callable(data):
            _Recording.files[file_name] = data()
        return real_download(where, label, data, file_name, *args, **kwargs)

    monkeypatch.setattr(display, "download", download)
    at = AppTest.from_file(APP, default_timeout=180).run()
    at.switch_page(PAGE).run()
    at.selectbox(key="sb_benchmark").set_value("judgebench").run()
    at.multiselect(key="sb_entries").set_value(JUDGES).run()
    _ok(at)
    assert at.title[0].value == "Choose a judge"
    # balanced: o1-mini leads on C1, C2, C7
    assert _board(at)["judge"][0] == "o1-mini (arena_hard)"
    # preset -> the leaderboard reorders; adversarial traffic weighs C5-C7 and only C7 is measured, so the
    # leader's score is its C7 strict accuracy, counted by hand from the parquet files
    at.selectbox(key="sb_preset").set_value("adversarial traffic").run()
    _ok(at)
    board = _board(at)
    assert board["judge"].to_list() == ["Skywork-Reward-Gemma-2-27B (RM)", "internlm2-20b-reward (RM)",
                                        "o1-mini (arena_hard)"]
    assert board["score"][0] == pytest.approx(round(_c7_strict_by_hand(JUDGES[2]), 1))
    assert any("Preset adversarial traffic: C7 1 (100%)" in rendered(c.value) for c in at.caption)
    sentence = next(rendered(m.value) for m in at.markdown if rendered(m.value).startswith("**For these weights"))
    assert "Holm" in sentence and "C5, C6 are not measured on this benchmark" in sentence
    # the slider of a condition no selected judge has says so and where it is measured (it can still be moved)
    c3 = at.slider(key="sb_w_C3")
    assert "(not measured here)" in c3.label and "judgereva (published)" in c3.proto.help
    assert "(not measured here)" not in at.slider(key="sb_w_C7").label
    # renormalisation said once (sidebar), not once per judge
    assert sum("renormalised" in rendered(c.value) for c in at.sidebar.caption) == 1
    # the URL holds the state
    qp = dict(at.query_params)
    assert qp["bench"] == ["judgebench"] or qp["bench"] == "judgebench"
    assert qp["preset"] in ("adversarial traffic", ["adversarial traffic"])
    assert sorted(qp["judge"]) == sorted(JUDGES)
    # the downloads recompute every score to 1e-9
    at.run()
    files = _Recording.files
    prof = pl.read_csv(io.BytesIO(files["cap_choice_judgebench_profile.csv"]), infer_schema_length=None)
    scores = pl.read_csv(io.BytesIO(files["cap_choice_judgebench_scores.csv"]), infer_schema_length=None)
    got = recompute_scores(prof, scores).filter(pl.col("score").is_not_null())
    assert got.height == 3 and (got["recomputed"] - got["score"]).abs().max() < 1e-9
    assert scores["w_requested_C7"][0] == 1.0 and scores["w_requested_C1"][0] == 0.0
    # the weights in force sum to 1 per ranked row and are 0 on conditions judgebench does not measure
    ranked = scores.filter(pl.col("score").is_not_null())
    total = sum(ranked[f"w_in_force_{c}"] for c in ("C1", "C2", "C3", "C4", "C5", "C6", "C7", "C8"))
    assert (total - 1).abs().max() < 1e-12
    assert all(ranked[f"w_in_force_{c}"].sum() == 0 for c in ("C3", "C4", "C5", "C6", "C8"))
    # the HTML report parses and holds the leaderboard rows
    parser = _Table()
    parser.feed(files["cap_choice_judgebench.html"].decode("utf-8"))
    rows = [r for r in parser.rows if r]
    assert [r[1] for r in rows] == board["judge"].to_list()
    # a fresh app run opened with those parameters shows the same leaderboard
    fresh = AppTest.from_file(APP, default_timeout=180)
    for k, v in qp.items():
        fresh.query_params[k] = v
    fresh.run()
    fresh.switch_page(PAGE).run()
    _ok(fresh)
    assert not fresh.warning
    again = _board(fresh)
    assert again.equals(board)


def test_a_preset_with_nothing_measurable_offers_the_closest_that_works():
    at = AppTest.from_file(APP, default_timeout=180).run()
    at.switch_page(PAGE).run()
    at.selectbox(key="sb_benchmark").set_value("judgebench").run()
    at.multiselect(key="sb_entries").set_value(JUDGES).run()
    at.selectbox(key="sb_preset").set_value("legal and policy").run()  # C4 only: not on JudgeBench
    _ok(at)
    warning = next(rendered(w.value) for w in at.sidebar.warning)
    assert "weighs only conditions these judges lack" in warning and "'balanced'" in warning
    assert "closest preset that works is 'balanced'" in at.main.warning[0].value
    at.sidebar.button(key="sb_use_closest").click().run()
    assert at.selectbox(key="sb_preset").value == "balanced"
    assert _board(at)["judge"][0] == "o1-mini (arena_hard)"


def test_minimums_filter_and_name_the_judges():
    at = AppTest.from_file(APP, default_timeout=180).run()
    at.switch_page(PAGE).run()
    at.selectbox(key="sb_benchmark").set_value("judgebench").run()
    at.multiselect(key="sb_entries").set_value(JUDGES).run()
    at.text_input(key="sb_min").input("C7.low=55").run()
    _ok(at)
    # o1-mini's C7 strict is 58.0 with its interval's lower bound below 55
    assert "o1-mini (arena_hard)" not in _board(at)["judge"].to_list()
    assert any(rendered(c.value).startswith("Filtered out: o1-mini (arena_hard) (C7 strict lower bound")
               for c in at.caption)
    assert dict(at.query_params)["min"] in ("C7.low=55", ["C7.low=55"])


def test_bad_and_stale_link_parameters_are_ignored_with_a_notice():
    at = AppTest.from_file(APP, default_timeout=180)
    at.query_params.update({"bench": "judgebench", "judge": ["o1-mini (arena_hard)", "gone judge"],
                            "w": "C1=7", "min": "C7>3", "zz": "1", "s.cho_cond": "not json"})
    at.run()
    _ok(at)
    note = rendered(at.warning[0].value)
    for part in ("gone judge", "weights 'C1=7'", "minimums 'C7>3'", "unknown parameter 'zz'", "cho_cond"):
        assert part in note, part
    assert at.multiselect(key="sb_entries").value == ["o1-mini (arena_hard)"]
    assert at.selectbox(key="sb_benchmark").value == "judgebench"


def test_link_weights_naming_a_condition_twice_are_ignored_saying_so():
    # ?w=C7%3D5%2CC7%3D0.1 (the query string decoded): which C7 was meant is not for the page to guess
    at = AppTest.from_file(APP, default_timeout=180)
    at.query_params.update({"w": "C7=5,C7=0.1"})
    at.run()
    _ok(at)
    note = rendered(at.warning[0].value)
    assert "weights 'C7=5,C7=0.1'" in note and "C7 is named twice" in note, note
    assert at.slider(key="sb_w_C7").value not in (5.0, 0.1)


def test_old_page_paths_switch_to_the_new_ones():
    import streamlit as st

    at = AppTest.from_file(APP, default_timeout=180).run()
    pages = {info.get("url_pathname") for info in at._registered_pages.values()}
    assert {"profiles", "choose", "compare-judges", "export", "coverage-matrix", "judge-profiles", "download"} <= pages
    del st


def test_minimums_that_remove_every_judge_do_not_blame_the_weights():
    at = AppTest.from_file(APP, default_timeout=180).run()
    at.switch_page(PAGE).run()
    at.selectbox(key="sb_benchmark").set_value("judgebench").run()
    at.multiselect(key="sb_entries").set_value(JUDGES).run()
    at.text_input(key="sb_min").input("C1=99").run()  # no judge reaches 99 on C1
    _ok(at)
    assert "filtered out by the condition minimums" in rendered(at.markdown[0].value) or any(
        "Every judge was filtered out" in rendered(m.value) for m in at.markdown)
    assert not any("closest preset" in w.value or "not measured" in w.value for w in at.main.warning)
    assert any(rendered(c.value).startswith("Filtered out: ") for c in at.caption)


def test_a_parameter_given_twice_is_said_and_the_last_used():
    at = AppTest.from_file(APP, default_timeout=180)
    at.query_params.update({"bench": "judgebench", "w": ["C1=1", "C7=2"]})
    at.run()
    _ok(at)
    note = " ".join(rendered(w.value) for w in at.warning)
    assert "The link gives 'w' 2 times; only the last ('C7=2') is used." in note
    assert at.slider(key="sb_w_C7").value == 2.0 and at.slider(key="sb_w_C1").value == 0.0
