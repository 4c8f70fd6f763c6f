"""Leftovers of issues 12 and 14 on the pages (AppTest): Export tables in the one table format, the
Choose page's source metrics, the small-cell notice, distinct judge labels in the sidebar."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

from tests.pages.app_pages import assert_clean, open_page
from tests.pages.shown import rendered, shown_text

REPO = Path(__file__).resolve().parents[2]
APP = str(REPO / "app.py")
BAD = ["None", "nan", "NaN", "<NA>", "null"]


_open, _clean = open_page, assert_clean


def _shown(el):
    """The text a table displays; fails on a table not drawn by ui.display.show_table."""
    return shown_text(el)


def test_export_tables_show_one_decimal_and_a_dash_not_none():
    at = _open("app_pages/export.py")
    prof = next(d for d in at.dataframe if {"condition", "value"} <= set(d.value.columns))
    raw, shown = prof.value, _shown(prof)
    missing = raw["value"].isna()
    assert missing.any()  # JudgeBench cannot measure C3-C6 (CAP Table 2)
    assert set(shown.loc[missing, "value"]) == {"—"}
    assert all(s == f"{v:.1f}" for s, v in zip(shown.loc[~missing, "value"], raw.loc[~missing, "value"]))
    scores = next(d for d in at.dataframe if {"rank", "score"} <= set(d.value.columns))
    text = _shown(scores)
    assert not text.isin(BAD).any().any()
    assert (text["separable from leader"] == "leader").sum() == 1
    assert all(s == f"{v:.1f}" for s, v in zip(text["score"], scores.value["score"]))


def test_choose_shows_the_sources_own_metrics_for_the_leaderboard_judges():
    import polars as pl

    at = AppTest.from_file(APP, default_timeout=300).run()
    at.switch_page("app_pages/choose.py").run()
    at.multiselect(key="sb_entries").set_value(["o1-mini (arena_hard)", "Qwen3-8B (rubric)",
                                                "GPT-4o · CAP Table 5 · all"]).run()
    _clean(at)
    at.session_state["cho_source_open"] = True  # the section is computed once opened (a user's click)
    at.run()
    at.toggle(key="cho_source_differ").set_value(False).run()
    _clean(at)
    section = next(e for e in at.expander if e.label == "The sources' own metrics for these judges")
    table = pl.from_pandas(next(d.value for d in section.dataframe if "why they differ" in d.value.columns))
    board = pl.from_pandas(next(d.value for d in at.dataframe if {"rank", "score"} <= set(d.value.columns)))
    computed = set(board.filter(pl.col("source") == "computed")["judge"].to_list())
    assert computed == {"o1-mini (arena_hard)", "Qwen3-8B (rubric)"}
    assert set(table["judge"].to_list()) == computed  # the leaderboard's judges, not the whole dataset
    o1 = table.filter(pl.col("judge") == "o1-mini (arena_hard)", pl.col("subset") == "all")
    assert o1["source %"].to_list() == [65.71]  # JudgeBench Table 2


def _small_upload(at: AppTest) -> None:
    # 20 base items, two judges: every cell is far below 50 base items
    rows = ["benchmark,item_id,gold,judge,order,verdict"]
    for i in range(20):
        gold = "AB"[i % 2]
        wrong = "BA"[i % 2]
        for judge, right in (("J1", True), ("J2", i % 3 != 0)):
            v = gold if right else wrong
            rows += [f"tiny,{i},{gold},{judge},AB,{v}", f"tiny,{i},{gold},{judge},BA,{v}"]
    at.radio(key="sb_source").set_value("upload").run()
    at.file_uploader(key="sb_items_file").upload("tiny.csv", "\n".join(rows).encode(), "text/csv").run()


def test_small_cells_are_called_optimistic_once_on_profiles_and_choose():
    at = AppTest.from_file(APP, default_timeout=300).run()
    at.switch_page("app_pages/profiles.py").run()
    _small_upload(at)
    _clean(at)
    assert at.selectbox(key="sb_benchmark").value == "tiny"
    notes = [rendered(i.value) for i in at.info if "optimistic" in rendered(i.value)]
    assert len(notes) == 1 and "fewer than 50 base items" in notes[0] and "91–92% at 30" in notes[0]
    assert "n = 20" in notes[0]
    at.switch_page("app_pages/choose.py").run()
    _clean(at)
    notes = [rendered(i.value) for i in at.info if "optimistic" in rendered(i.value)]
    assert len(notes) == 1 and "n = 20" in notes[0]


def test_default_data_has_no_small_cell_notice():
    at = _open("app_pages/profiles.py")
    assert not [rendered(i.value) for i in at.info if "optimistic" in rendered(i.value)]
