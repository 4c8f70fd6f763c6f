"""The source-metrics display table: renaming, filtering and rounding, checked by hand."""

from __future__ import annotations

import polars as pl

from cap_core.analyses.source_metrics import SOURCE_METRICS_SCHEMA
from components.source_metrics import source_metrics_summary, source_metrics_view


def _frame() -> pl.DataFrame:
    return pl.DataFrame({
        "judge": ["a", "a", "b"], "benchmark": ["judgebench"] * 3, "subset": ["all"] * 3,
        "metric": ["judgebench_score"] * 3, "value": [65.714285, 50.0, 40.0], "n": [350, 2, 5],
        "rule": ["r"] * 3, "cap_metric": ["pa"] * 3, "cap_value": [72.714285, 50.0, 40.0],
        "reason": ["pairs net positive", "", ""],
    }, schema=SOURCE_METRICS_SCHEMA)


def test_view_rounds_to_two_decimals_and_keeps_differing_rows():
    v = source_metrics_view(_frame(), differing_only=True)
    assert v.height == 1
    assert v.row(0, named=True)["source %"] == 65.71 and v.row(0, named=True)["CAP %"] == 72.71
    assert v.columns == ["judge", "benchmark", "subset", "metric", "source %", "CAP metric", "CAP %", "n",
                         "why they differ", "source rule"]
    assert source_metrics_view(_frame(), judges=["b"]).get_column("judge").to_list() == ["b"]


def test_summary_counts():
    assert source_metrics_summary(_frame()).startswith("3 source figures for 2 judges; 1 differ")
    empty = source_metrics_summary(_frame().head(0))
    assert empty.startswith("No judge of LLMBar, JudgeBench, AlpacaEval") and "Auto-J" in empty  # every source
