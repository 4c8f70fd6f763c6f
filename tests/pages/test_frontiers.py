"""The Frontiers page under streamlit's AppTest."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest
from streamlit.testing.v1 import AppTest

from cap_core.validity.frontier import operating_point, point_at, sweep
from cap_core.validity.public_gradings import REAL_GRADINGS, gradings_to_grades
from cap_core.validity.sr import validate_grades
from tests.cap_core.validity._loops import raw_rubric, rubric_s_r
from tests.pages.shown import rendered, shown_text

APP = str(Path(__file__).resolve().parents[2] / "app.py")
QWEN = "τ — Qwen/Qwen3-8B"


def display_values(at: AppTest, index: int):
    """The text table ``index`` of the page shows, as a frame of strings."""
    return shown_text(at.dataframe[index])


def _sweep() -> pl.DataFrame:
    # core values are checked against a plain loop over the raw files in tests/cap_core/validity/test_public_gradings.py;
    # here the page must show exactly those values
    return sweep(validate_grades(gradings_to_grades(pl.read_parquet(REAL_GRADINGS))[0]))


def _shown(row: dict) -> str:
    return f"τ = {row['tau']:g}: S = {100 * row['S']:.1f}%, R = {100 * row['R']:.1f}%"  # percent on the page


def _page() -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120).run()
    at.switch_page("app_pages/frontiers.py").run()
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [rendered(e.value) for e in at.error]
    return at


def _line(at: AppTest, judge: str) -> str:
    return next(rendered(m.value) for m in at.markdown if rendered(m.value).startswith(f"**{judge}**"))


def test_page_renders_plane_bars_and_tables():
    at = _page()
    assert at.title[0].value == "Frontiers"
    assert len(at.get("plotly_chart")) == 3  # plane, per-axis bars, per-slot bars
    ops = at.dataframe[0].value
    assert set(ops["source"]) == {"computed", "published: Validity Table 5"}
    # the matched-invariance point is the slider's default
    op = operating_point(_sweep()).filter(pl.col("judge") == "Qwen/Qwen3-8B").row(0, named=True)
    assert op["S"] >= 0.90 and _shown(op) in _line(at, "Qwen/Qwen3-8B")
    assert "S = not measurable" in _line(at, "GPT-4/Rating")


def test_moving_the_slider_moves_the_operating_point():
    at = _page()
    before = _line(at, "Qwen/Qwen3-8B")
    slider = next(s for s in at.select_slider if rendered(s.label) == QWEN)
    slider.set_value(0.025).run()
    after = _line(at, "Qwen/Qwen3-8B")
    assert after != before and "τ = 0.025" in after
    assert _shown(point_at(_sweep(), "Qwen/Qwen3-8B", 0.025)) in after
    fig = at.get("plotly_chart")[0].proto.spec
    assert "0.025" in fig


def test_raising_the_invariance_floor_moves_the_matched_point(shared_dir):
    at = _page()
    at.slider(key="fr_min_s").set_value(95).run()  # percent, like every rate on the pages
    ops = at.dataframe[0].value
    qwen = ops[(ops["judge"] == "Qwen/Qwen3-8B") & (ops["source"] == "computed")].iloc[0]
    op = operating_point(_sweep(), 0.95).filter(pl.col("judge") == "Qwen/Qwen3-8B").row(0, named=True)
    # independent choice: S and R by the plain loop over the raw Qwen3-8B file at every threshold between
    # (and beyond) its distinct grades; the point is the highest R with S >= 0.95 (ties: higher S, lower tau)
    records = raw_rubric(shared_dir)
    grades = sorted({e["judgment"][k] for r in records for e in r["judgments"] for k in ("score_A", "score_B")
                     if e["judgment"][k] >= 0})
    taus = [grades[0] - 0.01] + [(lo + hi) / 2 for lo, hi in zip(grades, grades[1:])] + [grades[-1] + 0.01]
    points = [(tau, *rubric_s_r(records, tau)) for tau in taus]
    tau, s_plain, r_plain = max((p for p in points if p[1] >= 0.95), key=lambda p: (p[2], p[1], -p[0]))
    assert op["tau"] == pytest.approx(tau)
    assert op["S"] == pytest.approx(s_plain) and op["R"] == pytest.approx(r_plain)
    # the page shows percent: 100 x the proportions of the plain loop
    assert (qwen["tau"], qwen["S"], qwen["R"]) == pytest.approx((tau, 100 * s_plain, 100 * r_plain), abs=5e-2)
    shown = display_values(at, 0)  # the operating points
    row = shown[(shown["judge"] == "Qwen/Qwen3-8B") & (shown["source"] == "computed")].iloc[0]
    assert row["S"] == f"{100 * s_plain:.1f}" and row["R_scope"] == "—"  # one decimal; a missing value is a dash


def test_builtin_probe_set_graded_offline():
    at = _page()
    at.radio(key="fr_source").set_value("built-in probe set, graded live").run()
    assert not at.exception and not at.error, [rendered(e.value) for e in at.error]
    line = _line(at, "localgrade/overlap")
    assert "S = " in line and "not measurable" not in line
    assert any("calls:" in rendered(c.value) for c in at.caption)
