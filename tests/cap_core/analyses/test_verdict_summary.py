"""Gold-free per-judge figures by hand: items received, tie and unparsed rates."""

from __future__ import annotations

import polars as pl
import pytest

from cap_core.analyses.verdict_summary import verdict_summary
from cap_core.dataset import Dataset


def test_counts_and_rates_by_hand():
    items = pl.DataFrame({"benchmark": "t", "item_id": ["a", "b", "c", "d"], "gold": ["A", None, None, "B"]},
                         schema={"benchmark": pl.String, "item_id": pl.String, "gold": pl.String})
    # X: a A/tie, b unparsed/B, c tie/tie -> 6 verdicts, 3 ties (50%), 1 unparsed; received a, b, c (gold on a)
    # Y: d only, B/B -> 2 verdicts, no tie, no unparsed; received d (gold)
    rows = [("X", "a", "AB", "A"), ("X", "a", "BA", "tie"), ("X", "b", "AB", "unparsed"), ("X", "b", "BA", "B"),
            ("X", "c", "AB", "tie"), ("X", "c", "BA", "tie"), ("Y", "d", "AB", "B"), ("Y", "d", "BA", "B")]
    jm = pl.DataFrame(rows, schema=["judge", "item_id", "order", "verdict"], orient="row").with_columns(
        benchmark=pl.lit("t"))
    got = {r["judge"]: r for r in verdict_summary(Dataset.build(items, jm)).iter_rows(named=True)}
    assert (got["X"]["items"], got["X"]["items_received"], got["X"]["items_with_gold"], got["X"]["verdicts"]) == \
        (4, 3, 1, 6)
    assert got["X"]["tie_pct"] == pytest.approx(50.0) and got["X"]["unparsed_pct"] == pytest.approx(100 / 6)
    assert (got["Y"]["items_received"], got["Y"]["items_with_gold"], got["Y"]["tie_pct"]) == (1, 1, 0.0)


def test_cli_summary_of_a_gold_free_import(tmp_path, capsys):
    import json
    from pathlib import Path

    from cap_core.cli.main import main

    fx = Path(__file__).resolve().parents[2] / "fixtures" / "mtbench" / "model_judgment" / "gpt-4_pair.jsonl"
    assert main(["import", "--format", "mtbench", str(fx), "--out", str(tmp_path / "d")]) == 0
    assert main(["summary", "--data", str(tmp_path / "d"), "--out", str(tmp_path / "s.csv")]) == 0
    row = pl.read_csv(tmp_path / "s.csv").row(0, named=True)
    # counted from the raw file: every g1/g2 winner; "tie..." winners are ties, "error" unparsed
    recs = [json.loads(line) for line in fx.read_text().splitlines() if line.strip()]
    winners = [r[g] for r in recs for g in ("g1_winner", "g2_winner")]
    assert row["judge"] == "gpt-4" and row["verdicts"] == len(winners) and row["items_with_gold"] == 0
    assert row["tie_pct"] == pytest.approx(100 * sum(w.startswith("tie") for w in winners) / len(winners))
    assert row["unparsed_pct"] == pytest.approx(100 * sum(w == "error" for w in winners) / len(winners))
