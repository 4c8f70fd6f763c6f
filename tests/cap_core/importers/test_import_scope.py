"""Importers take all there is (every LLMBar strategy, the Processed sets, a fork's files) and refuse what
is wrong (a fork with no judge file, an unknown strategy) in one line."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import polars as pl
import pytest

from cap_core.cli.main import build_parser, main
from cap_core.errors import CAPInputError
from cap_core.importers import import_judgebench, import_llmbar
from cap_core.importers.llmbar import llmbar_strategies

GPT_PAIRS = "dataset=judgebench,response_model=gpt-4o-2024-05-13.jsonl"
O1 = "dataset=judgebench,response_model=gpt-4o-2024-05-13,judge_name=arena_hard,judge_model=o1-mini-2024-09-12.jsonl"


@pytest.fixture(scope="module")
def llmbar_root(shared_dir: Path) -> Path:
    return shared_dir / "data" / "llmbar"


def test_every_strategy_present_is_imported_with_the_processed_sets(llmbar_root):
    ds = import_llmbar(llmbar_root, strategies=None)
    # independent listing: every evaluators/<model>/<strategy>/result.json under Dataset/
    on_disk = {(p.parent.parent.name + "/" + p.parent.name) for p in (llmbar_root / "Dataset").rglob("result.json")}
    assert set(ds.judges) == on_disk
    assert any(j.endswith("/Metrics_Reference") for j in ds.judges)
    processed = ds.judgments.filter(pl.col("benchmark") == "llmbar_mtbench")["judge"].unique().to_list()
    assert set(processed) == {p.parent.parent.name + "/" + p.parent.name
                              for p in (llmbar_root / "Dataset/Processed/MT-Bench").rglob("result.json")}
    assert any("strategies imported: CoT, Metrics_Reference, Rating, Vanilla_NoRules" in n for n in ds.notices)
    assert set(llmbar_strategies(llmbar_root)) == {"CoT", "Metrics_Reference", "Rating", "Vanilla_NoRules"}


def test_a_result_without_both_games_is_skipped_with_a_notice(tmp_path, llmbar_root):
    src = llmbar_root / "Dataset/LLMBar/Natural"
    nat = tmp_path / "Dataset/LLMBar/Natural"
    for strategy in ("CoT", "Vanilla_NoRules"):
        (nat / "evaluators/GPT-4" / strategy).mkdir(parents=True)
        shutil.copy(src / f"evaluators/GPT-4/{strategy}/result.json", nat / f"evaluators/GPT-4/{strategy}/result.json")
    shutil.copy(src / "dataset.json", nat / "dataset.json")
    for sub in ("GPTInst", "GPTOut", "Manual", "Neighbor"):  # the importer needs every LLMBar set
        (tmp_path / f"Dataset/LLMBar/Adversarial/{sub}").mkdir(parents=True)
        shutil.copy(llmbar_root / f"Dataset/LLMBar/Adversarial/{sub}/dataset.json",
                    tmp_path / f"Dataset/LLMBar/Adversarial/{sub}/dataset.json")
    res = json.loads((nat / "evaluators/GPT-4/CoT/result.json").read_text())
    for rec in res:
        del rec["results"][-1]["swap = True"]
    (nat / "evaluators/GPT-4/CoT/result.json").write_text(json.dumps(res))
    ds = import_llmbar(tmp_path, strategies=None)
    assert ds.judges == ["GPT-4/Vanilla_NoRules"]
    assert any("without both games skipped: LLMBar/Natural/GPT-4/CoT" in n for n in ds.notices)


def test_cli_strategies_option(tmp_path, llmbar_root, capsys):
    assert main(["import", "llmbar", str(llmbar_root), "--strategies", "CoT", "--out", str(tmp_path / "d")]) == 0
    judges = pl.read_parquet(tmp_path / "d" / "judgments.parquet")["judge"].unique().to_list()
    assert judges and all(j.endswith("/CoT") for j in judges)
    capsys.readouterr()
    assert main(["import", "llmbar", str(llmbar_root), "--strategies", "CoT,Swap", "--out", str(tmp_path / "e")]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "--strategies" in err and "'Swap'" in err and "Metrics_Reference" in err


def _jb_copy(tmp_path: Path, jb: Path) -> Path:
    root = tmp_path / "jb"
    (root / "data").mkdir(parents=True)
    (root / "outputs").mkdir()
    shutil.copy(jb / "data" / GPT_PAIRS, root / "data" / GPT_PAIRS)
    shutil.copy(jb / "outputs" / O1, root / "outputs" / O1)
    return root


def test_fork_without_judge_files_is_refused_in_one_line(tmp_path, shared_dir, capsys):
    jb = shared_dir / "data" / "judgebench"
    empty = tmp_path / "fork"
    (empty / "outputs").mkdir(parents=True)
    (empty / "outputs" / "notes.jsonl").write_text("{}\n")
    with pytest.raises(CAPInputError, match="no judge output files in the JudgeBench fork"):
        import_judgebench(jb, empty)
    assert main(["import", "judgebench", str(jb), "--fork", str(empty), "--out", str(tmp_path / "d")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: no judge output files") and "\n" not in err and "1 .jsonl files" in err


def test_arena_hard_style_fork_files_are_accepted_and_reported(tmp_path, shared_dir):
    jb = shared_dir / "data" / "judgebench"
    root = _jb_copy(tmp_path, jb)
    fork = tmp_path / "fork"
    fork.mkdir()
    shutil.copy(jb / "outputs" / O1, fork / O1)  # in the fork folder itself, not in outputs/
    ds = import_judgebench(root, fork)
    assert set(ds.judges) == {"o1-mini (arena_hard)", "o1-mini (arena_hard) [fork]"}
    note = next(n for n in ds.notices if n.startswith("JudgeBench fork"))
    assert "1 arena_hard-style (decisions)" in note and "[fork]" in note
    a = ds.judgments.filter(pl.col("judge") == "o1-mini (arena_hard)").sort("item_id", "order")["verdict"]
    b = ds.judgments.filter(pl.col("judge") == "o1-mini (arena_hard) [fork]").sort("item_id", "order")["verdict"]
    assert a.to_list() == b.to_list()


def test_help_says_what_a_fork_may_hold():
    text = " ".join(build_parser()._subparsers._group_actions[0].choices["import"].format_help().split())
    assert "judge_name=rubric" in text and "arena_hard-style" in text and "outputs/" in text
