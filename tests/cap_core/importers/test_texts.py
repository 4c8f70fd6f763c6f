"""Importers keep the texts (and response authors) when pointed at a local copy; data/default stays text-free."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

from cap_core.importers import judgebench, llmbar, pandalm
from cap_core.importers.label_sets import label_set_items
from cap_core.schema import ITEM_TEXT_SCHEMA

SHARED = Path(__file__).resolve().parents[3].parent / "shared" / "data"
REPO = Path(__file__).resolve().parents[3]
pytestmark = pytest.mark.skipif(not SHARED.is_dir(), reason="needs ../shared/data")


def test_judgebench_texts_match_the_pair_file_and_name_the_response_model():
    texts = judgebench.read_texts(SHARED / "judgebench")
    f = SHARED / "judgebench/data/dataset=judgebench,response_model=gpt-4o-2024-05-13.jsonl"
    first = json.loads(f.read_text().splitlines()[0])
    row = texts.filter(pl.col("item_id") == first["pair_id"]).row(0, named=True)
    assert row["benchmark"] == "judgebench"
    assert (row["question"], row["response_a"], row["response_b"]) == (first["question"], first["response_A"],
                                                                       first["response_B"])
    assert row["author_a"] == row["author_b"] == "gpt-4o-2024-05-13"
    # 350 + 270 lines in the two pair files, every label A>B or B>A
    assert texts.height == 620
    assert set(ITEM_TEXT_SCHEMA) <= set(texts.columns)
    # the same ids as the importer's items, so the texts join the reference judgments
    ds = judgebench.import_judgebench(SHARED / "judgebench")
    assert texts.select("benchmark", "item_id").sort(pl.all()).equals(
        ds.items.select("benchmark", "item_id").sort(pl.all()))


def test_llmbar_texts_line_up_with_the_importer_ids():
    texts = llmbar.read_texts(SHARED / "llmbar")
    raw = json.loads((SHARED / "llmbar/Dataset/LLMBar/Adversarial/Neighbor/dataset.json").read_text())
    row = texts.filter(pl.col("item_id") == "Neighbor-3").row(0, named=True)
    assert (row["question"], row["response_a"], row["response_b"]) == (raw[3]["input"], raw[3]["output_1"],
                                                                       raw[3]["output_2"])
    assert row["author_a"] is None
    assert texts.height == 419 + 200 + 66 + 200


def test_pandalm_authors_come_from_cmp_key():
    texts = pandalm.read_texts(SHARED / "pandalm")
    raw = json.loads((SHARED / "pandalm/data/testset-v1.json").read_text())
    rec = next(r for r in raw if r["cmp_key"] == "bloom-7b_llama-7b")
    row = texts.filter(pl.col("item_id") == str(rec["idx"]))
    if row.height:  # kept only with an A/B majority
        assert row.row(0, named=True)["author_a"] == "bloom-7b"
        assert row.row(0, named=True)["author_b"] == "llama-7b"
    assert pandalm.authors_of({"cmp_key": "a_b_c"}) == (None, None)


@pytest.mark.parametrize("name", ["RewardBench", "RM-Bench chat", "EvalBiasBench", "Auto-J", "PandaLM"])
def test_label_sets_become_items_with_texts(name):
    items, _notices = label_set_items(name, SHARED)
    assert items.height > 0
    assert items.select(pl.col("question", "response_a", "response_b").is_null().any()).row(0) == (False,) * 3
    assert set(items["gold"].unique()) <= {"A", "B"}


def test_rewardbench_authors_are_chosen_and_rejected_models():
    items, _ = label_set_items("RewardBench", SHARED)
    raw = pl.read_parquet(SHARED / "rewardbench_via_biasscope/data/rewardbench/rewardbench_filtered.parquet")
    assert items["author_a"].to_list() == raw["chosen_model"].to_list()
    assert items["author_b"].to_list() == raw["rejected_model"].to_list()


def test_auto_j_ties_are_left_out_and_counted():
    items, notices = label_set_items("Auto-J", SHARED)
    lines = (SHARED / "autoj/data/test/testdata_pairwise.jsonl").read_text().splitlines()
    ties = sum(1 for ln in lines if ln.strip() and str(json.loads(ln)["label"]) == "2")
    assert items.height == len([ln for ln in lines if ln.strip()]) - ties
    assert any(f"{ties} of" in n for n in notices)


def test_default_data_holds_no_texts():
    items = pl.read_parquet(REPO / "data" / "default" / "items.parquet")
    assert not set(ITEM_TEXT_SCHEMA) & set(items.columns)
