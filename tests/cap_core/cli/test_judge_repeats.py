"""``judge --repeats``: repeats.parquet and reliability.csv beside the run."""

from __future__ import annotations

import os

import polars as pl

from cap_core.cli.main import main

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")


def test_judge_with_repeats_writes_reliability(tmp_path):
    out = tmp_path / "run"
    assert main(["judge", "--items", "testbed", "--model", "local/first", "--limit", "1", "--repeats", "2",
                 "--orders", "AB", "--out", str(out), "--cache", str(tmp_path / "c")]) == 0
    reps = pl.read_parquet(out / "repeats.parquet")
    n_items = pl.read_parquet(out / "items.parquet").height
    assert reps.height == 2 * n_items
    rel = pl.read_csv(out / "reliability.csv")
    # local/first answers A every time: nothing ever flips
    assert rel.filter(pl.col("condition") == "overall")["flip_rate"].to_list() == [0.0]
