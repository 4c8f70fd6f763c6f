"""A dashboard people can read (issue 14 §6): glossary help, one table format, one colour per judge,
stress on the loaded data, pages that say what of the sidebar they use (AppTest)."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest
from streamlit.testing.v1 import AppTest

from cap_core.glossary import GLOSSARY, help_text
from tests.cap_core.analyses.test_stress_on_data import hand_rates
from tests.pages.app_pages import assert_clean, open_page
from tests.pages.shown import rendered, shown_text
from ui.display import cell_text, mostly_na

REPO = Path(__file__).resolve().parents[2]
APP = str(REPO / "app.py")
LLMBAR_JUDGES = ["GPT-4/Vanilla_NoRules", "ChatGPT/CoT"]


_open, _clean = open_page, assert_clean


def _shown(el) -> "pandas.DataFrame":  # noqa: F821
    """The text a table displays."""
    return shown_text(el)


def _chart(at: AppTest, key: str) -> dict:
    return json.loads(next(c for c in at.get("plotly_chart") if key in c.proto.id).proto.spec)


def _table_with(at: AppTest, *cols: str):
    return next(d for d in at.dataframe if set(cols) <= set(d.value.columns))


# --- pure helpers ------------------------------------------------------------------------------------------

def test_cell_text_one_decimal_and_a_dash_for_missing():
    assert [cell_text(v) for v in (None, float("nan"), 64.06, 3, "x")] == ["—", "—", "64.1", "3", "x"]
    assert cell_text(0.123456, 3) == "0.123" and cell_text(0.925, None) == "0.925"


def test_mostly_na_says_why_in_one_line():
    pairs = pl.DataFrame({"status": ["ok", "n/a", "n/a"], "reason": ["", "1 shared judge", "1 shared judge"]})
    assert mostly_na(pairs, "pairs") == "2 of 3 pairs are n/a: 1 shared judge (2)."
    assert mostly_na(pairs.head(2), "pairs") is None  # half n/a: the grid is still drawn


# --- glossary ------------------------------------------------------------------------------------------------

def test_glossary_page_lists_every_term_with_its_source():
    at = _open("app_pages/glossary.py")
    lines = rendered(at.markdown[0].value).splitlines()
    assert [ln.split("**")[1] for ln in lines] == [t.name for t in GLOSSARY.values()]
    assert all(ln.endswith(")*") and any(p in ln for p in ("CAP", "Validity", "Jev")) for ln in lines)
    # the paper's definitions, e.g. strict = both presentations correct (CAP Table 1), S / R (Validity Def. 2)
    line = {ln.split("**")[1]: ln for ln in lines}
    assert "both presentations" in line["strict (both correct)"] and "CAP §3.1, Table 1" in line["strict (both correct)"]
    assert "Validity Definition 2" in line["S (invariance)"]


def test_glossary_help_appears_on_widgets_and_table_columns():
    at = _open("app_pages/profiles.py")
    cols = json.loads(_table_with(at, "P(best)", "score").proto.columns)
    assert cols["P(best)"]["help"] == help_text("p_best")
    prof = json.loads(_table_with(at, "condition_name", "ci_low").proto.columns)
    assert prof["ci_low"]["help"] == help_text("ci") and prof["status"]["help"] == help_text("status")
    at.switch_page("app_pages/frontiers.py").run()
    _clean(at)
    assert at.slider(key="fr_min_s").help == help_text("matched_S")
    ops = json.loads(at.dataframe[0].proto.columns)
    assert ops["S"]["help"] == help_text("S") and ops["S"]["label"] == "S (%)"


# --- one format ----------------------------------------------------------------------------------------------

def test_profile_table_shows_one_decimal_and_a_dash_not_none():
    at = _open("app_pages/profiles.py")
    el = _table_with(at, "condition_name", "ci_low")
    raw, shown = el.value, _shown(el)
    unmeasured = raw["value"].isna()
    assert unmeasured.any()  # JudgeBench cannot measure C3-C6 (CAP Table 2)
    assert set(shown.loc[unmeasured, "value"]) == {"—"} and el.proto.placeholder == "—"  # text and grid
    assert not shown.isin(["None", "nan", "NaN", "<NA>"]).any().any()
    measured = shown.loc[~unmeasured, "value"]
    assert all(s == f"{v:.1f}" for s, v in zip(measured, raw.loc[~unmeasured, "value"]))


# --- one colour per judge ----------------------------------------------------------------------------------

def _radar_colours(at: AppTest) -> dict[str, str]:
    return {t["name"]: t["line"]["color"] for t in _chart(at, "prof_radar")["data"]}


def test_same_judge_same_colour_across_selections_and_pages():
    at = _open("app_pages/profiles.py")
    at.selectbox(key="sb_benchmark").set_value("judgebench").run()
    computed = [o for o in at.multiselect(key="sb_entries").options if "·" not in o]
    a, b, c = computed[:3]
    at.multiselect(key="sb_entries").set_value([a, b]).run()
    first = _radar_colours(at)
    at.multiselect(key="sb_entries").set_value([c, b]).run()
    second = _radar_colours(at)
    assert first[b] == second[b] and len(set(first.values())) == 2 and len(set(second.values())) == 2
    # the same judge on another page (Stress, loaded data) has the radar's colour
    at.selectbox(key="sb_benchmark").set_value("llmbar").run()
    at.multiselect(key="sb_entries").set_value(LLMBAR_JUDGES).run()
    radar = _radar_colours(at)
    at.switch_page("app_pages/stress.py").run()
    _clean(at)
    traces = {t["name"]: t["marker"]["color"] for t in _chart(at, "st_d_fig")["data"]}
    assert {j: traces[j] for j in LLMBAR_JUDGES} == {j: radar[j] for j in LLMBAR_JUDGES}


# --- stress on the loaded data --------------------------------------------------------------------------------

def test_stress_on_loaded_subsets_matches_a_hand_count_and_follows_the_widgets():
    at = _open("app_pages/stress.py")
    assert rendered(at.info[0].value).startswith("What this page takes from the sidebar")
    at.selectbox(key="sb_benchmark").set_value("llmbar").run()
    at.multiselect(key="sb_entries").set_value(LLMBAR_JUDGES).run()
    at.selectbox(key="st_d_base").set_value("llmbar").run()
    at.multiselect(key="st_d_base_sub").set_value(["Natural"]).run()
    at.selectbox(key="st_d_str").set_value("llmbar").run()
    at.multiselect(key="st_d_str_sub").set_value(["Neighbor"]).run()
    _clean(at)
    d = pl.from_pandas(_table_with(at, "delta", "ci_low", "n_stressed").value)
    assert set(d["judge"]) == set(LLMBAR_JUDGES)  # the sidebar's judges
    for judge in LLMBAR_JUDGES:
        s_nat, pa_nat, _ = hand_rates(["Natural"], judge)
        s_nb, pa_nb, _ = hand_rates(["Neighbor"], judge)
        got = {r["condition"]: r for r in d.filter(pl.col("judge") == judge).iter_rows(named=True)}
        assert got["C7"]["delta"] == pytest.approx(s_nat - s_nb)
        assert got["overall"]["delta"] == pytest.approx(pa_nat - pa_nb)
        assert got["C7"]["ci_low"] < got["C7"]["delta"] < got["C7"]["ci_high"]
    # another stressed subset: other δ
    at.multiselect(key="st_d_str_sub").set_value(["GPTInst"]).run()
    _clean(at)
    d2 = pl.from_pandas(_table_with(at, "delta", "ci_low", "n_stressed").value)
    s_nat, _, _ = hand_rates(["Natural"])
    s_gi, _, _ = hand_rates(["GPTInst"])
    row = d2.filter((pl.col("judge") == LLMBAR_JUDGES[0]) & (pl.col("condition") == "C7")).row(0, named=True)
    assert row["delta"] == pytest.approx(s_nat - s_gi) and not d2["delta"].equals(d["delta"])
    # the published δ stay on the page, below
    assert any("st_heatmap" in c.proto.id for c in at.get("plotly_chart"))


# --- pages that do not use the sidebar say so ------------------------------------------------------------------

@pytest.mark.parametrize("page,words", [
    ("app_pages/frontiers.py", "does not use the sidebar"),
    ("app_pages/label_audit.py", "does not use the sidebar"),
    ("app_pages/consistency.py", "not its benchmark or judge choice"),
    ("app_pages/stress.py", "It does not use the sidebar's benchmark or weights"),
])
def test_pages_say_what_of_the_sidebar_they_use(page, words):
    at = _open(page)
    assert words in rendered(at.info[0].value)
