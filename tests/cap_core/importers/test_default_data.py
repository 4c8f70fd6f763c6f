"""The embedded data: up to date with the importers and the audit, compact, no benchmark text."""

from __future__ import annotations

import filecmp
import json

import polars as pl
import pytest

from cap_core import config
from cap_core.audit.shipped import read_shipped_audit
from cap_core.audit.surface import AUDIT_SCHEMA
from cap_core.dataset import load_dataset
from cap_core.importers.default_data import (
    PUBLISHED_FILES,
    build_audit_figures,
    build_default,
)


def test_embedded_data_matches_a_fresh_build(tmp_path, shared_dir, default_data_dir):
    build_default(shared_dir, tmp_path, audit=False)
    fresh = load_dataset(tmp_path / "default")
    shipped = load_dataset(default_data_dir)
    assert fresh.fingerprint() == shipped.fingerprint(), "data/default is stale: run `make data`"
    assert load_dataset(tmp_path / "pandalm").fingerprint() == load_dataset(config.pandalm_data_dir()).fingerprint()
    assert pl.read_parquet(tmp_path / "pandalm" / "graded.parquet").equals(
        pl.read_parquet(config.pandalm_data_dir() / "graded.parquet"))
    assert filecmp.cmp(tmp_path / "validity" / "real_gradings.parquet",
                       config.validity_data_dir() / "real_gradings.parquet", shallow=False)
    for name, source in PUBLISHED_FILES.items():
        assert filecmp.cmp(tmp_path / "published" / name, shared_dir / "published" / source, shallow=False)
        assert filecmp.cmp(tmp_path / "published" / name, config.published_dir() / name, shallow=False)
    assert not (tmp_path / "audit").exists()  # audit=False skips the slow part


def _shipped():
    got = read_shipped_audit()
    assert got is not None, "data/audit missing: run `make data`"
    return got


def test_shipped_audit_figures_match_a_fresh_audit(tmp_path, shared_dir):
    # the quick default (three sets, 20 permutations) and one set of the full audit (100 permutations),
    # recomputed from the texts; every other shipped row comes from the same function and settings
    build_audit_figures(shared_dir, tmp_path, ((("LLMBar Natural", "LLMBar Neighbor", "EvalBiasBench"), 20),
                                               (("LLMBar Manual",), 100)))
    fresh, manifest = read_shipped_audit(tmp_path)
    shipped, shipped_manifest = _shipped()
    for (name, n), part in fresh.table.group_by("label_set", "n_permutations", maintain_order=True):
        mine = shipped.table.filter((pl.col("label_set") == name) & (pl.col("n_permutations") == n))
        assert mine.equals(part), f"data/audit is stale for {name} at {n} permutations: run `make data`"
    for (name,), part in fresh.predictions.group_by("label_set", maintain_order=True):
        assert shipped.predictions.filter(pl.col("label_set") == name).equals(part)
    assert {k: v["source"] for k, v in manifest["sets"].items()} == {
        k: shipped_manifest["sets"][k]["source"] for k in manifest["sets"]}


def test_shipped_audit_covers_the_pages_runs_with_figures_only():
    shipped, manifest = _shipped()
    from cap_core.importers.label_sets import PUBLIC_SETS, QUICK

    runs = {(n, k) for n, k in shipped.table.select("label_set", "n_permutations").unique().iter_rows()}
    assert {(n, 20) for n in QUICK} | {(n, 100) for n in PUBLIC_SETS} == runs
    assert shipped.table.height == 3 * 2 * (len(QUICK) + len(PUBLIC_SETS))  # predictors x modes x runs
    assert shipped.table.columns == list(AUDIT_SCHEMA)
    assert set(shipped.predictions["predictor"]) == {"length_only"} == set(manifest["predictions_of"])
    # no text: the only string columns are names, ids, categories and settings, all short
    for frame in (shipped.table, shipped.predictions):
        for col, dtype in frame.schema.items():
            if dtype == pl.String:
                assert frame[col].str.len_chars().max() <= 80, col
    size = sum(f.stat().st_size for f in config.audit_data_dir().iterdir())
    assert size < 400_000
    assert json.loads((config.audit_data_dir() / "manifest.json").read_text())["seed"] == 0


@pytest.mark.parametrize("name, expected", [("LLMBar Natural", 100), ("EvalBiasBench", 80)])
def test_shipped_quick_sets_count_the_raw_pairs(shared_dir, name, expected):
    shipped, _ = _shipped()
    rows = shipped.table.filter((pl.col("label_set") == name) & (pl.col("mode") == "paired"))
    assert rows["n_units"].to_list() == [expected] * 6  # 3 predictors x 2 permutation counts


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
        "cost_usd", "latency_s", "tokens", "verdict_recorded", "verdict_rule", "verdict_strength", "judge_prompt"}
    size = sum(f.stat().st_size for f in default_data_dir.iterdir())
    assert size < 2_000_000
    assert ds.items.filter(pl.col("benchmark") == "llmbar")["subset"].n_unique() == 5
