"""Auto-J: its pairwise outputs read as Auto-J reads them; its published agreement and consistency."""

from __future__ import annotations

import shutil
from pathlib import Path

import polars as pl
import pytest

from cap_core.errors import CAPInputError
from cap_core.importers.autoj import autoj_agreement, autoj_verdict, import_autoj

FX = Path(__file__).resolve().parents[2] / "fixtures" / "autoj"

#: codes/leaderboard/README.md of GAIR-NLP/auto-j (2ae17a3): pairwise_eval.py on the two example files
PUBLISHED_PAIRWISE = {
    "Summarization": (45.83, 73.61), "Exam Questions": (38.89, 69.44), "Code": (47.5, 75.83),
    "Rewriting": (49.17, 74.17), "Creative Writing": (59.72, 87.04), "Functional Writing": (61.67, 81.67),
    "General Communication": (55.21, 92.36), "NLP Tasks": (57.58, 86.36), "Overall": (54.96, 83.41),
}
PUBLISHED_SINGLE = {"Summarization": 56.94, "Exam Questions": 41.67, "Code": 54.17, "Rewriting": 57.5,
                    "Creative Writing": 63.43, "Functional Writing": 68.33, "General Communication": 57.29,
                    "NLP Tasks": 62.12, "Overall": 59.99}


def test_pairwise_agreement_and_consistency_are_autoj_published_numbers():
    res = autoj_agreement(FX)
    assert res["type"].unique().to_list() == ["pairwise"]
    got = {r["group"]: (round(r["agreement"], 2), round(r["consistency"], 2)) for r in res.iter_rows(named=True)}
    assert got == PUBLISHED_PAIRWISE


def test_single_agreement_is_autoj_published_number(tmp_path):
    for name in ("testdata_pairwise.jsonl", "pairwise_example_output.jsonl"):
        shutil.copy(FX / name, tmp_path / name)
    res = autoj_agreement(tmp_path)
    assert {r["group"]: round(r["agreement"], 2) for r in res.iter_rows(named=True)} == PUBLISHED_SINGLE
    assert res["consistency"].null_count() == res.height


def test_dataset_orders_gold_and_deswap():
    ds = import_autoj(FX)
    # 1,392 pairs; labels 520 x 0 (response 1), 499 x 1, 373 x 2 (tie: no A/B gold)
    assert ds.items.height == 1392
    assert ds.items["gold"].value_counts().sort("gold", nulls_last=True).rows() == [("A", 520), ("B", 499),
                                                                                    (None, 373)]
    assert ds.judgments.group_by("order").len().sort("order").rows() == [("AB", 1392), ("BA", 1392)]
    assert ds.declarations.filter(pl.col("condition") == "C7").height == 1
    # line 1: {"output": 0} (response 1 = A) and, in the exchange file, {"output": 1}: response 2 of the
    # swapped pair, which is the original response 1 (A) again; line 3 of the exchange file is 0 -> B
    first = ds.judgments.filter(pl.col("item_id") == "1").sort("order")
    assert first["verdict"].to_list() == ["A", "A"]
    ex3 = (FX / "pairwise_exchange_example_output.jsonl").read_text().splitlines()[2]
    third = ds.judgments.filter((pl.col("item_id") == "3") & (pl.col("order") == "BA"))["verdict"].item()
    assert third == {'{"output": 0}': "B", '{"output": 1}': "A", '{"output": 2}': "tie"}[ex3]
    # Auto-J's consistency counts both orders equal: 83.41% of 1,392 = 1161 pairs (the README's figure)
    wide = ds.judgments.pivot(on="order", index="item_id", values="verdict")
    assert wide.filter(pl.col("AB") == pl.col("BA")).height == round(0.8341 * 1392)
    assert any("373 of 1392 pairs are labelled a tie" in n for n in ds.notices)


def test_autoj_text_outputs_are_read_like_autoj():
    assert autoj_verdict("... So, the final decision is Response 2.") == "B"
    assert autoj_verdict("final decision is Response 1 ... final decision is tie") == "tie"  # the last one
    assert autoj_verdict("Final decision: Response 1") == "unparsed"  # Auto-J matches the phrase as written
    assert [autoj_verdict(v) for v in (0, 1, 2, "1", 3, True, None)] == ["A", "B", "tie", "B", "unparsed",
                                                                         "unparsed", "unparsed"]


def test_a_prediction_file_that_does_not_line_up_is_refused(tmp_path):
    shutil.copy(FX / "testdata_pairwise.jsonl", tmp_path)
    lines = (FX / "pairwise_example_output.jsonl").read_text().splitlines()
    (tmp_path / "short_output.jsonl").write_text("\n".join(lines[:-1]) + "\n")
    with pytest.raises(CAPInputError) as e:
        import_autoj(tmp_path)
    assert e.value.file == "short_output.jsonl" and "1392 lines" in e.value.expected and e.value.got == 1391


def _cli_metrics(folder: Path, tmp_path: Path) -> dict[tuple[str, str], float]:
    """``import --format autoj`` then ``source-metrics`` on the dataset, as a user runs them (issue 19,
    finding 12: Auto-J's own numbers were reachable from Python only)."""
    from cap_core.cli.main import main

    assert main(["import", "--format", "autoj", str(folder), "--out", str(tmp_path / "ds")]) == 0
    assert main(["source-metrics", "--data", str(tmp_path / "ds"), "--out", str(tmp_path / "m.csv")]) == 0
    rows = pl.read_csv(tmp_path / "m.csv").filter(pl.col("benchmark") == "autoj")
    assert rows["cap_value"].null_count() == rows.height  # the tie-labelled pairs have no gold: no counterpart
    return {(r["subset"], r["metric"]): round(r["value"], 2) for r in rows.iter_rows(named=True)}


def test_source_metrics_gives_autoj_published_pairwise_numbers(tmp_path):
    got = _cli_metrics(FX, tmp_path)
    assert {g: (got[(g, "autoj_agreement")], got[(g, "autoj_consistency")]) for g in PUBLISHED_PAIRWISE} \
        == PUBLISHED_PAIRWISE
    assert len(got) == 2 * len(PUBLISHED_PAIRWISE)


def test_source_metrics_gives_autoj_published_single_numbers(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    for name in ("testdata_pairwise.jsonl", "pairwise_example_output.jsonl"):
        shutil.copy(FX / name, src / name)
    got = _cli_metrics(src, tmp_path)
    assert got == {(g, "autoj_agreement"): v for g, v in PUBLISHED_SINGLE.items()}  # no consistency: one order


def test_source_metrics_on_data_without_a_source_names_the_sources_it_computes(tmp_path, capsys):
    """PandaLM (the embedded data) has no metric of its own here: the line names every source that has one,
    Auto-J included, instead of the stale "no LLMBar or JudgeBench judgments"."""
    from cap_core.cli.main import main
    from cap_core.config import pandalm_data_dir

    assert main(["source-metrics", "--data", str(pandalm_data_dir())]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "no LLMBar or JudgeBench" not in err
    for source in ("LLMBar", "JudgeBench", "AlpacaEval", "MT-Bench", "Arena-Hard", "Auto-J", "RewardBench"):
        assert source in err
    assert "got 'pandalm'" in err
