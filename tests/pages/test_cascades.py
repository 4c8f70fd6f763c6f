"""The Cascades page under streamlit's AppTest on the embedded default data and on PandaLM."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import polars as pl
import pytest
from streamlit.testing.v1 import AppTest

from components.cost_curves import pareto_front
from tests.pages.shown import rendered

REPO = Path(__file__).resolve().parents[2]
APP = str(REPO / "app.py")


def _open() -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120).run()
    at.selectbox(key="sb_benchmark").set_value("judgebench").run()
    at.switch_page("app_pages/cascades.py").run()
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [rendered(e.value) for e in at.error]
    return at


def _point(at: AppTest):
    fig = at.get("plotly_chart")[0].proto.spec
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
    assert any("decisive" in rendered(w.value) for w in at.warning)
    assert at.title[0].value == "Cascades" and len(at.get("plotly_chart")) == 3


def test_pareto_front_by_hand():
    pts = pl.DataFrame({"entry": ["a", "b", "c", "d"], "kind": "x", "accuracy": [60.0, 70.0, 65.0, 70.0],
                        "usd_per_1000": [1.0, 50.0, 60.0, 40.0]})
    # b is dominated by d (same accuracy, cheaper); c by d
    assert pareto_front(pts)["entry"].to_list() == ["a", "d"]


def test_pandalm_current_point_is_the_curve_row_at_the_same_tau(tmp_path, shared_dir):
    # PandaLM-7B has no confidence: 'decisive' gives 1 to a decisive verdict and 0 to a tie, so any
    # tau in (0, 1] keeps the same items as the curve row tau = 1.0 (the CLI writes that row).
    from cap_core.cli.main import main

    out = tmp_path / "curve.csv"
    assert main(["cascade", "--data", str(REPO / "data" / "pandalm"), "--benchmark", "pandalm", "--cheap", "PandaLM-7B",
                 "--fallback", "gpt-3.5-turbo (PandaLM)", "--method", "decisive", "--splits", "2",
                 "--bootstrap", "100", "--out", str(out)]) == 0
    row = pl.read_csv(out).filter(pl.col("tau") == 1.0).row(0, named=True)
    at = _open()
    at.radio(key="cas_src").set_value("PandaLM test set (data/pandalm)").run()
    at.slider(key="cas_tau").set_value(0.5).run()
    assert not at.exception
    x, y = _point(at)
    assert x == pytest.approx(row["usd_per_1000"]) and y == pytest.approx(row["accuracy"])
    # deferred = PandaLM-7B ties among the items with an A/B human majority, counted in the raw JSON
    # (the plain loop of tests/cap_core/cascades/test_cascade.py::test_real_pandalm_accuracy_and_repeats_match_raw_files)
    raw = shared_dir / "data" / "pandalm" / "data"
    panda = {r["idx"]: {1: "A", 2: "B"}.get(r["pandalm_result"], "tie")
             for r in json.loads((raw / "pandalm-7b-testset-v1.json").read_text())}
    gold = {}
    for t in json.loads((raw / "testset-v1.json").read_text()):
        top, n = Counter([t["annotator1"], t["annotator2"], t["annotator3"]]).most_common(1)[0]
        if n >= 2 and top in (1, 2):
            gold[t["idx"]] = "AB"[top - 1]
    ties = sum(panda[i] == "tie" for i in gold)
    assert row["deferral_pct"] == pytest.approx(100 * ties / len(gold))
    assert at.metric[1].value == f"{100 * ties / len(gold):.0f}%"
    assert at.metric[2].value == f"${row['usd_per_1000']:.4f}"
    assert at.metric[0].value == f"{row['accuracy']:.1f}%"
    # the cheap judge alone (tau = 0) costs less: the fallback's cost on the deferred items is included
    tau0 = pl.read_csv(out).filter(pl.col("tau") == 0.0)["usd_per_1000"][0]
    assert x > tau0


def test_gain_wording_and_the_judge_named_match_the_metric():
    from ui.cascade_text import current_caption, versus

    assert versus(-4.7, "o1-mini") == "trails o1-mini by 4.7 points"
    assert versus(4.66, "o1-mini") == "beats o1-mini by 4.7 points"
    assert versus(-0.04, "o1-mini") == "matches o1-mini"
    g = {"gain": -4.7, "best_single": "local/first", "gain_over_fallback": 1.2, "bound": 3.0,
         "cheap_only_kept": 30.0, "fallback_only_kept": 18.0}
    orc = {"tau": 0.4, "fallback": "local/second", "accuracy": 70.0}
    text = current_caption(0.5, 100, g, "local/second", orc, -1.0, 0.5, 40)
    assert "cascade trails local/first by 4.7 points, the best single judge" in text
    assert "beats local/second by 1.2 points" in text and "by -" not in text


def _accuracy_by_hand(judge: str, benchmark: str = "judgebench") -> dict[str, float]:
    """Per-item correctness of one judge by a plain loop over data/default: the share of its orders whose
    verdict is the gold label (a tie or an unparsed verdict is wrong)."""
    gold = {r["item_id"]: r["gold"] for r in pl.read_parquet(REPO / "data" / "default" / "items.parquet")
            .filter(pl.col("benchmark") == benchmark).iter_rows(named=True)}
    rows = pl.read_parquet(REPO / "data" / "default" / "judgments.parquet").filter(
        (pl.col("benchmark") == benchmark) & (pl.col("judge") == judge)).iter_rows(named=True)
    right, seen = Counter(), Counter()
    for r in rows:
        seen[r["item_id"]] += 1
        right[r["item_id"]] += r["verdict"] == gold[r["item_id"]]
    return {i: right[i] / seen[i] for i in seen}


def _gain_at_tau_0(cheap: str, fallback: str) -> tuple[float, str]:
    """At τ = 0 every cheap verdict is kept: the cascade is the cheap judge, so the gain over the best
    single judge (of the cheap one and the fallback, on their shared items) is cheap − best, in points."""
    c, f = _accuracy_by_hand(cheap), _accuracy_by_hand(fallback)
    shared = sorted(set(c) & set(f))
    acc = {j: 100 * sum(per[i] for i in shared) / len(shared) for j, per in ((cheap, c), (fallback, f))}
    best = max(acc, key=acc.get)
    return acc[cheap] - acc[best], best


GEMMA_2B, QWEN = "GRM-Gemma-2B-rewardmodel-ft (RM)", "Qwen3-8B (rubric)"


def test_switching_the_cheap_judge_changes_the_gain_and_its_caption():
    at = _open()
    at.slider(key="cas_tau").set_value(0.0).run()
    fb = at.multiselect(key="cas_fb").value
    assert fb == ["o1-mini (arena_hard)"]
    shown = {}
    for cheap in (GEMMA_2B, QWEN, GEMMA_2B):
        at.selectbox(key="cas_cheap").set_value(cheap).run()
        assert not at.exception, [e.value for e in at.exception]
        gain, best = _gain_at_tau_0(cheap, fb[0])
        metric = at.metric[3]
        assert rendered(metric.label) == f"Gain over {best}"
        assert metric.value == f"{gain:+.1f} pts"
        caption = next(rendered(c.value) for c in at.caption if rendered(c.value).startswith("Unit: the item"))
        assert f"cascade trails {best} by {-gain:.1f} points" in caption
        shown[cheap] = metric.value
    # by hand: 59.4% vs 39.7% against o1-mini's 72.7% -> -13.3 and -33.0 points
    assert shown[GEMMA_2B] != shown[QWEN]


def test_tau_fallbacks_and_cheap_judge_survive_leaving_the_page():
    at = _open()
    at.selectbox(key="cas_cheap").set_value(QWEN).run()
    at.slider(key="cas_tau").set_value(0.73).run()
    at.multiselect(key="cas_fb").set_value(["o1-mini (arena_hard)", GEMMA_2B]).run()
    before = [m.value for m in at.metric]
    for away in ("app_pages/profiles.py", "app_pages/frontiers.py"):
        at.switch_page(away).run()
        assert not at.exception
        at.switch_page("app_pages/cascades.py").run()
        assert not at.exception, [e.value for e in at.exception]
        assert at.slider(key="cas_tau").value == 0.73
        assert at.selectbox(key="cas_cheap").value == QWEN
        assert at.multiselect(key="cas_fb").value == ["o1-mini (arena_hard)", GEMMA_2B]
        assert [m.value for m in at.metric] == before


def test_an_edited_price_table_reaches_the_page(tmp_path, monkeypatch):
    import cap_core.cascades.cost as cost
    import ui.cache.cascades as cc

    at = _open()
    before = float(at.metric[2].value.lstrip("$"))
    # every cost is tokens x a list price: doubling both price columns doubles the $ per 1,000 items
    table = pl.read_csv(cost.PRICE_TABLE, infer_schema_length=0).with_columns(
        (pl.col(c).cast(pl.Float64) * 2).cast(pl.String) for c in ("input_usd_per_1m", "output_usd_per_1m"))
    edited = tmp_path / "price_table.csv"
    table.write_csv(edited)
    monkeypatch.setattr(cost, "PRICE_TABLE", edited)
    monkeypatch.setattr(cc, "PRICE_TABLE", edited, raising=False)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert float(at.metric[2].value.lstrip("$")) == pytest.approx(2 * before, abs=0.011)


def test_confidence_auroc_and_graded_table_on_the_page():
    from cap_core import load_dataset
    from cap_core.cascades.judge_confidence import (
        confidence_auroc,
        item_confidence,
        item_frame,
    )

    at = _open()
    conf = at.dataframe[1].value  # after the repeated-error table
    cheap = at.selectbox(key="cas_cheap").value
    row = conf[conf["judge"] == cheap].iloc[0]
    # recomputed from the two public functions the page's table is built on
    ds = load_dataset(REPO / "data" / "default")
    per = item_frame(ds, "judgebench", cheap).join(item_confidence(ds, "judgebench", cheap), on="item_id")
    assert row["auroc"] == pytest.approx(confidence_auroc(per["confidence"].to_numpy(), per["correct"].to_numpy()))
    at.radio(key="cas_src").set_value("PandaLM test set (data/pandalm)").run()
    assert not at.exception
    g = at.dataframe[2].value
    assert {"qwk", "offset", "shift"} <= set(g.columns)
    assert g["judge"].iloc[-1].startswith("median of 2")
