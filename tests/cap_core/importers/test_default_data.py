"""The embedded default data: up to date with the importers, compact, no benchmark text."""

from __future__ import annotations

import filecmp

import polars as pl

from cap_core.dataset import load_dataset
from cap_core.importers.default_data import build_default


def test_default_data_matches_a_fresh_build(tmp_path, shared_dir, default_data_dir):
    build_default(shared_dir, tmp_path)
    fresh = load_dataset(tmp_path / "default")
    shipped = load_dataset(default_data_dir)
    assert fresh.fingerprint() == shipped.fingerprint(), "data/default is stale: run `make data`"
    for name in ("cap_profiles.csv", "cap_coverage.csv"):
        assert filecmp.cmp(tmp_path / "published" / name, shared_dir / "published" / name, shallow=False)


def test_default_contents(default_data_dir):
    ds = load_dataset(default_data_dir)
    assert ds.benchmarks == [
        "judgebench", "judgebench_claude", "llmbar", "llmbar_faireval", "llmbar_llmeval2", "llmbar_mtbench"]
    # 419 + 200 + 66 + 200 LLMBar items, 350 + 270 JudgeBench pairs
    assert ds.items.height == 419 + 200 + 66 + 200 + 350 + 270
    # every judge has both orders of every item of its benchmark
    per = ds.judgments.group_by("judge", "benchmark").len().join(
        ds.items.group_by("benchmark").len().rename({"len": "n_items"}), on="benchmark")
    assert (per["len"] == 2 * per["n_items"]).all()
    # only ids, labels, categories, verdicts, scores and lengths: no free-text columns
    assert set(ds.items.columns) | set(ds.judgments.columns) <= {
        "benchmark", "item_id", "base_item_id", "subset", "failure_type", "variant", "gold", "flags", "len_a",
        "len_b", "judge", "order", "verdict", "confidence", "score_a", "score_b", "rationale_supported",
        "cost_usd", "latency_s", "tokens"}
    size = sum(f.stat().st_size for f in default_data_dir.iterdir())
    assert size < 2_000_000
    assert ds.items.filter(pl.col("benchmark") == "llmbar")["subset"].n_unique() == 5
