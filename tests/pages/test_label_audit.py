"""The Label audit page under streamlit's AppTest (quick default: three small LLMBar/EvalBiasBench sets,
from the figures shipped in data/audit, or computed from a local copy of the public data)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import polars as pl
from streamlit.testing.v1 import AppTest

from tests.pages.shown import rendered

REPO = Path(__file__).resolve().parents[2]
APP = str(REPO / "app.py")


def _open() -> AppTest:
    at = AppTest.from_file(APP, default_timeout=300).run()
    at.switch_page("app_pages/label_audit.py").run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _table(at: AppTest) -> pl.DataFrame:
    return pl.from_pandas(at.dataframe[0].value)


def _longer_wins_csv(n: int = 40) -> bytes:
    rng = np.random.default_rng(4)
    lines = ["prompt,response_a,response_b,label"]
    for i in range(n):
        la, lb = rng.choice(np.arange(5, 400), size=2, replace=False)
        lines.append(f"q{i},{'x' * la},{'y' * lb},{'A' if la > lb else 'B'}")
    return "\n".join(lines).encode()


def test_page_renders_quick_audit_with_chart_drilldown_and_published(shared_dir):
    at = _open()
    assert not at.error and at.title[0].value == "Label audit"
    assert any("Shipped figures (data/audit)" in rendered(i.value) for i in at.info)  # no local copy given
    table = _table(at)
    assert table.height == 3 * 3 * 2  # quick sets x predictors x modes
    assert set(table["label_set"]) == {"LLMBar Natural", "LLMBar Neighbor", "EvalBiasBench"}
    # the verdict follows from the shown p-value at alpha = 0.05 (p takes values k / (n_permutations + 1),
    # none within rounding of 0.05); a score below the null mean leaves at least one null value above it,
    # so its p is at least 2 / (n_permutations + 1) and it cannot clear
    below = 0
    for row in table.iter_rows(named=True):
        p = float(row["p_value"])
        assert row["verdict"] == ("recoverable from surface" if p <= 0.05 else "not above its null"), row
        score = row["accuracy %"] if row["mode"] == "paired" else row["kappa"]
        null_mean = float(row["null mean – 95th pct."].split(" – ")[0])
        if score < null_mean:
            below += 1
            assert p > 0.05 and row["verdict"] == "not above its null", row
    assert below >= 1 and table["verdict"].n_unique() == 2  # both branches are exercised on these sets
    assert len(at.get("plotly_chart")) == 1
    # drill-down: one row per pair of LLMBar Natural (100 pairs in the raw file, no ties)
    raw = json.loads((shared_dir / "data/llmbar/Dataset/LLMBar/Natural/dataset.json").read_text())
    drill = at.dataframe[1].value
    assert len(drill) == len(raw) == 100
    right = int(drill["correct"].sum())
    assert any(f"gets {right} of 100 units right" in rendered(c.value) for c in at.caption)
    published = at.dataframe[2].value
    assert list(published["label_set"]) == ["RewardBench", "RewardBench 2", "RM-Bench", "HelpSteer2",
                                            "MT-Bench (human)"]
    assert float(published.loc[0, "paired_accuracy"]) == 62.4  # Validity Table 7
    assert any("Published" in rendered(c.value) for c in at.caption)


def test_widget_changes_change_the_output(shared_dir):
    at = _open()
    shipped = _table(at)
    caption_paired = [rendered(c.value) for c in at.caption if "length alone" in rendered(c.value)][0]
    at.radio(key="la_mode").set_value("item").run()
    assert not at.exception
    caption_item = [rendered(c.value) for c in at.caption if "length alone" in rendered(c.value)][0]
    assert "item mode" in caption_item and "of 200 units" in caption_item and caption_item != caption_paired
    # LLMBar Manual is shipped only in the full audit (100 permutations): at 20 the page says so
    at.multiselect(key="la_sets").set_value(["LLMBar Manual"]).run()
    assert any("No shipped figures for LLMBar Manual at 20 permutations" in rendered(i.value) for i in at.info)
    at.selectbox(key="la_perm").set_value(100).run()
    table = _table(at)
    assert table.height == 6 and set(table["label_set"]) == {"LLMBar Manual"}
    # with a local copy the same sets are computed here from their texts, and agree with the shipped rows
    at.text_input(key="la_local").set_value(str(shared_dir)).run()
    assert any("Computed here from the label-set texts" in rendered(i.value) for i in at.info)
    assert _table(at).equals(table)
    # permutations first, then the sets: the step between is LLMBar Manual at 20 (one set, 20 permutations),
    # not the three quick sets at 100 permutations, which nothing checks and which cost five times more
    at.selectbox(key="la_perm").set_value(20).run()
    at.multiselect(key="la_sets").set_value(["LLMBar Natural", "LLMBar Neighbor", "EvalBiasBench"]).run()
    assert _table(at).equals(shipped)
    assert at.button(key="la_full").disabled is False


def test_uploaded_longer_wins_set_is_fully_recovered_by_length():
    at = _open()
    at.multiselect(key="la_sets").set_value([]).run()
    at.file_uploader(key="la_upload").upload("mine.csv", _longer_wins_csv(), "text/csv").run()
    assert not at.exception and not at.error
    table = _table(at).filter(pl.col("label_set") == "mine.csv")
    row = table.filter((pl.col("predictor") == "length_only") & (pl.col("mode") == "paired")).row(0, named=True)
    assert row["accuracy %"] == 100.0 and row["verdict"] == "recoverable from surface"


def test_bad_upload_shows_file_row_and_column():
    at = _open()
    bad = b"prompt,response_a,response_b,label\nq1,aa,b,A\nq2,c,dd,maybe\n"
    at.file_uploader(key="la_upload").upload("bad.csv", bad, "text/csv").run()
    assert not at.exception
    msg = rendered(at.error[0].value)
    assert "label outside the allowed set" in msg and "bad.csv" in msg and "row 2" in msg and "'label'" in msg


def test_bad_local_copy_is_explained_and_shipped_figures_and_upload_still_work(tmp_path):
    at = _open()
    at.text_input(key="la_local").set_value(str(tmp_path / "absent")).run()
    assert not at.exception
    warning = rendered(at.warning[0].value)
    assert "local copy of the public data was not found" in warning and str(tmp_path / "absent") in warning
    assert "Showing the shipped figures" in warning
    assert _table(at).height == 18  # the shipped quick audit
    assert any("Published" in rendered(c.value) for c in at.caption)  # Table 7 is embedded, still shown
    at.multiselect(key="la_sets").set_value([]).run()
    at.file_uploader(key="la_upload").upload("mine.csv", _longer_wins_csv(30), "text/csv").run()
    assert not at.exception and not at.error
    assert set(_table(at)["label_set"]) == {"mine.csv"}


def test_sets_permutations_mode_and_upload_survive_leaving_the_page():
    at = _open()
    at.multiselect(key="la_sets").set_value(["LLMBar Natural"]).run()
    at.selectbox(key="la_perm").set_value(100).run()
    at.radio(key="la_mode").set_value("item").run()
    at.file_uploader(key="la_upload").upload("mine.csv", _longer_wins_csv(), "text/csv").run()
    before = _table(at)
    assert set(before["label_set"]) == {"LLMBar Natural", "mine.csv"}
    at.switch_page("app_pages/profiles.py").run()
    assert not at.exception
    at.switch_page("app_pages/label_audit.py").run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.multiselect(key="la_sets").value == ["LLMBar Natural"]
    assert at.selectbox(key="la_perm").value == 100
    assert at.radio(key="la_mode").value == "item"
    assert set(_table(at)["label_set"]) == {"LLMBar Natural", "mine.csv"}  # the upload came back too


def test_first_view_of_a_long_audit_shows_progress_and_later_views_are_cached(monkeypatch):
    from cap_core.audit import surface
    from ui.cache import label_audit as ac

    calls, shown = [], []
    real = surface.audit_label_set

    def counted(ls, **kw):
        calls.append(kw.get("progress") is not None)
        return real(ls, **kw)

    def seen(fraction, estimate, elapsed):  # the text of every bar update
        shown.append(fraction)
        return real_left(estimate, elapsed, fraction)

    real_left = ac._left_text
    monkeypatch.setattr(ac, "audit_label_set", counted)
    monkeypatch.setattr(ac, "_left_text", lambda estimate, elapsed, fraction: seen(fraction, estimate, elapsed))
    monkeypatch.setattr(ac, "PROGRESS_AFTER_S", 0.0)  # treat even this small upload as long
    at = _open()
    at.multiselect(key="la_sets").set_value([]).run()
    at.file_uploader(key="la_upload").upload("long.csv", _longer_wins_csv(36), "text/csv").run()
    assert not at.exception and not at.error
    assert calls == [True]  # computed once, with a progress callback
    assert shown and shown == sorted(shown) and shown[-1] == 1.0
    assert not at.get("progress")  # the bar is gone once the audit is done
    assert not ac._HANDOFF
    table = _table(at)
    at.radio(key="la_mode").set_value("item").run()  # a rerun: the audit comes from the cache
    assert calls == [True] and _table(at).equals(table)
