"""Display details across pages: empty score charts, quadrant wording, exact Spearman p, rounding, captions."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from scipy import stats
from streamlit.testing.v1 import AppTest

from tests.pages.shown import rendered

REPO = Path(__file__).resolve().parents[2]
APP = str(REPO / "app.py")


def _open(page: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=300).run()
    at.switch_page(page).run()
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [rendered(e.value) for e in at.error]
    return at


def test_profiles_without_any_weighted_condition_draw_no_empty_bar_chart():
    at = _open("app_pages/profiles.py")
    at.selectbox(key="sb_benchmark").set_value("judgebench").run()
    judges = [o for o in at.multiselect(key="sb_entries").options if "·" not in o][:2]
    at.multiselect(key="sb_entries").set_value(judges).run()
    # legal and policy weighs C4 only; JudgeBench cannot measure C4 (CAP Table 2)
    at.selectbox(key="sb_preset").set_value("legal and policy").run()
    assert not at.exception and not at.error
    charts = [c.proto.id for c in at.get("plotly_chart")]
    assert len(charts) == 1 and "prof_radar" in charts[0]
    notes = [rendered(w.value) for w in at.warning]
    assert all(any(n.startswith(j + ":") and "C4" in n for n in notes) for j in judges)
    # the radar's ring scale is said in words (the ring numbers are hidden)
    assert any("Rings at 25, 50, 75 and 100%" in rendered(c.value) for c in at.caption)


def test_frontiers_say_quadrant_not_measured_for_a_judge_without_s():
    at = _open("app_pages/frontiers.py")
    line = next(rendered(m.value) for m in at.markdown if rendered(m.value).startswith("**GPT-4/Rating**"))
    # LLMBar Rating has one grade per output: no S, so no quadrant
    assert "S = not measurable" in line and "quadrant: not measured (no S)" in line
    assert "(not measured)" not in line
    bars = json.loads(next(c for c in at.get("plotly_chart") if "fr_bars" in c.proto.id).proto.spec)["data"]
    ctrl = next(t for t in bars if t["name"].startswith("control flip rate"))
    assert ctrl["text"][ctrl["x"].index("GPT-4/Rating")] == "n/a"


def _published_vector(view: str, condition: str, judges: list[str]) -> list[float]:
    from cap_core.profile.combine import combine_profiles
    from cap_core.profile.published import load_published_profiles
    from cap_core.profile.selection import view_cells

    cells = view_cells(combine_profiles([], load_published_profiles()), view, condition=condition)
    by = dict(cells.select("judge", "value").iter_rows())
    return [by[j] for j in judges]


def test_consistency_uses_the_exact_permutation_p_for_few_judges():
    at = _open("app_pages/consistency.py")
    assert any("exact permutation" in rendered(c.value) for c in at.caption)
    pairs = next(f for f in (pl.from_pandas(d.value) for d in at.dataframe) if "view_a" in f.columns)
    ok = pairs.filter(pl.col("status") == "ok")
    assert ok.height and set(ok.filter(pl.col("n_judges") <= 9)["p_method"]) == {"exact permutation"}
    # recompute one pair with scipy's own exact permutation test (all n! pairings)
    row = ok.row(0, named=True)
    judges = row["judges"].split(";")
    x = _published_vector(row["view_a"], "C7", judges)
    y = _published_vector(row["view_b"], "C7", judges)
    ref = stats.permutation_test((np.array(x),), lambda u: stats.spearmanr(u, y).statistic,
                                 permutation_type="pairings", n_resamples=np.inf, alternative="two-sided")
    assert row["p_value"] == pytest.approx(ref.pvalue, rel=1e-9)


def test_compare_tables_show_one_decimal():
    at = _open("app_pages/compare.py")
    at.selectbox(key="sb_benchmark").set_value("judgebench").run()
    assert not at.exception and not at.error
    for d in at.dataframe:
        f = pl.from_pandas(d.value)
        for c, t in f.schema.items():
            if t == pl.Float64:
                vals = f[c].drop_nulls().drop_nans()
                off = (vals - vals.round(1)).abs().max()
                assert off is None or off < 1e-9, c


def test_label_audit_explains_below_chance_length_only():
    at = _open("app_pages/label_audit.py")
    assert any("held-out groups" in rendered(c.value) and "does not generalise" in rendered(c.value)
               for c in at.caption)
