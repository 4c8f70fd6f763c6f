"""`python -m cap_core source-metrics` on the embedded default data."""

from __future__ import annotations

import polars as pl

from cap_core.cli.main import main


def test_writes_the_documented_columns_and_published_figures(tmp_path, default_data_dir, capsys):
    out = tmp_path / "sm.csv"
    assert main(["source-metrics", "--data", str(default_data_dir), "--out", str(out)]) == 0
    frame = pl.read_csv(out)
    assert frame.columns[:7] == ["judge", "benchmark", "subset", "metric", "value", "n", "rule"]
    o1 = frame.filter(pl.col("judge") == "o1-mini (arena_hard)", pl.col("subset") == "all")
    assert round(o1["value"].item(), 2) == 65.71  # JudgeBench Table 2
    nat = frame.filter(pl.col("judge") == "GPT-4/Rating", pl.col("subset") == "Natural",
                       pl.col("metric") == "llmbar_equal")
    assert nat["value"].item() == 90.0  # LLMBar statistics.json: 90 / 100
    assert "differ from CAP" in capsys.readouterr().out


def test_dataset_without_a_known_source_is_one_line_exit_2(tmp_path, default_data_dir, capsys):
    pandalm = default_data_dir.parent / "pandalm"
    assert main(["source-metrics", "--data", str(pandalm), "--out", str(tmp_path / "x.csv")]) == 2
    err = capsys.readouterr().err.strip()
    # the line names the sources it computes (issue 19 finding 12: it named two of seven)
    assert err.startswith("error: no judgments of a source whose own metrics CAP Studio computes") and "\n" not in err
