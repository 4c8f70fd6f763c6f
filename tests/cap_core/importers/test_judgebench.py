"""JudgeBench importer against the raw JudgeBench files (plain json loops, hand-read rows)."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

import polars as pl
import pytest

from cap_core.errors import CAPInputError
from cap_core.importers import import_judgebench

GPT_PAIRS = "dataset=judgebench,response_model=gpt-4o-2024-05-13.jsonl"
O1 = "dataset=judgebench,response_model=gpt-4o-2024-05-13,judge_name=arena_hard,judge_model=o1-mini-2024-09-12.jsonl"


@pytest.fixture(scope="module")
def jb(shared_dir: Path) -> Path:
    return shared_dir / "data" / "judgebench"


@pytest.fixture(scope="module")
def ds(shared_dir: Path, jb: Path):
    return import_judgebench(jb, shared_dir / "data" / "judgebench_fork_stellalisy")


def _rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _row(ds, judge, item_id, order):
    r = ds.judgments.filter((pl.col("judge") == judge) & (pl.col("item_id") == item_id) & (pl.col("order") == order))
    assert r.height == 1
    return r.row(0, named=True)


def test_items_per_benchmark_and_subset(ds, jb):
    expected = Counter()
    for f in (jb / "data").glob("*.jsonl"):
        for r in _rows(f):
            bench = "judgebench" if r["response_model"].startswith("gpt-4o") else "judgebench_claude"
            s = r["source"]
            sub = "knowledge" if s.startswith("mmlu-pro") else {
                "livebench-reasoning": "reasoning", "livebench-math": "math", "livecodebench": "coding"}[s]
            expected[(bench, sub)] += 1
    got = Counter({(b, s): n for b, s, n in ds.items.group_by("benchmark", "subset").len().iter_rows()})
    assert got == expected
    # CAP Table 12 gives the JudgeBench Knowledge subset n=154 and Reasoning n=98
    assert (expected[("judgebench", "knowledge")], expected[("judgebench", "reasoning")]) == (154, 98)
    assert sum(n for (b, _), n in expected.items() if b == "judgebench") == 350


def test_judgment_counts_and_judge_names(ds, jb, shared_dir):
    # one judge per output file: GPT-4o-response files of JudgeBench plus the rubric fork's, Claude-response files
    files = list((jb / "outputs").glob("*.jsonl")) + list(
        (shared_dir / "data" / "judgebench_fork_stellalisy" / "outputs").glob("*.jsonl"))
    gpt = {f.name for f in files if "response_model=gpt-4o" in f.name}
    claude = {f.name for f in files if "response_model=claude" in f.name}
    assert len(gpt) + len(claude) == len(files)  # no file counted twice, none left out
    per = dict(ds.judgments.group_by("benchmark").agg(pl.col("judge").n_unique()).iter_rows())
    assert per == {"judgebench": len(gpt), "judgebench_claude": len(claude)}
    # every record of every output file gives one judgment per order (2 orders)
    records = sum(len(_rows(f)) for f in files)
    assert ds.judgments.height == 2 * records
    assert {"o1-mini (arena_hard)", "claude-3-haiku (arena_hard)", "Skywork-Reward-Llama-3.1-8B (RM)",
            "Qwen3-8B (rubric)", "Llama-3.1-8B-Instruct (rubric)"} <= set(ds.judges)


def test_swapped_decision_is_mapped_back(ds):
    # o1-mini on pair 01fb6121 (label A>B): decisions "A>B" then "A>B". In the second,
    # swapped presentation "A" is the original B, so the BA verdict is B.
    pid = "01fb6121-e025-5251-a55f-f903c79e4ec6"
    assert _row(ds, "o1-mini (arena_hard)", pid, "AB")["verdict"] == "A"
    assert _row(ds, "o1-mini (arena_hard)", pid, "BA")["verdict"] == "B"
    # pair 9fbc9238: "A=B" then "B>A" -> tie, then swapped B = original A
    pid = "9fbc9238-47af-5656-ac85-cf5b0c00fd8f"
    assert _row(ds, "o1-mini (arena_hard)", pid, "AB")["verdict"] == "tie"
    assert _row(ds, "o1-mini (arena_hard)", pid, "BA")["verdict"] == "A"
    # claude-3-haiku on pair 663eb019: "A=B" then null -> tie, unparsed
    pid = "663eb019-69ba-570f-bf87-f210f58e8cec"
    assert _row(ds, "claude-3-haiku (arena_hard)", pid, "AB")["verdict"] == "tie"
    assert _row(ds, "claude-3-haiku (arena_hard)", pid, "BA")["verdict"] == "unparsed"


def test_all_arena_hard_verdicts_match_an_independent_mapping(ds, jb):
    to_orig = {"A>>B": "A", "A>B": "A", "A=B": "tie", "B>A": "B", "B>>A": "B"}
    flip = {"A": "B", "B": "A", "tie": "tie"}
    expected = {}
    for r in _rows(jb / "outputs" / O1):
        d1, d2 = (j["decision"] for j in r["judgments"])
        expected[(r["pair_id"], "AB")] = to_orig.get(d1, "unparsed")
        expected[(r["pair_id"], "BA")] = flip[to_orig[d2]] if d2 in to_orig else "unparsed"
    got = ds.judgments.filter(pl.col("judge") == "o1-mini (arena_hard)")
    assert {(i, o): v for i, o, v in got.select("item_id", "order", "verdict").iter_rows()} == expected
    ties = sum(v == "tie" for v in expected.values())
    assert Counter(got["verdict"])["tie"] == ties


def test_reward_model_scores_follow_the_responses(ds, jb):
    # first pair of the file: scores [5.625, 14.625] in the original order, [14.625, 5.625] swapped
    pid = "e302b0a0-28d5-5a3c-b1af-fedcf5543e72"
    for order in ("AB", "BA"):
        r = _row(ds, "Skywork-Reward-Llama-3.1-8B (RM)", pid, order)
        assert (r["score_a"], r["score_b"], r["verdict"]) == (5.625, 14.625, "B")
    # equal reward scores are ties: Skywork-Gemma-27B gives equal scores on 3 pairs (both orders)
    f = next((jb / "outputs").glob("*Skywork-Reward-Gemma-2-27B*"))
    equal = sum(j["judgment"]["scores"][0] == j["judgment"]["scores"][1] for r in _rows(f) for j in r["judgments"])
    got = Counter(ds.judgments.filter(pl.col("judge") == "Skywork-Reward-Gemma-2-27B (RM)")["verdict"])
    assert got["tie"] == equal == 6


def test_rubric_parse_failures_are_unparsed(ds, shared_dir):
    f = next((shared_dir / "data" / "judgebench_fork_stellalisy" / "outputs").glob("*Qwen-Qwen3-8B*"))
    fails = ties = 0
    for r in _rows(f):
        for j in r["judgments"]:
            a, b = j["judgment"]["score_A"], j["judgment"]["score_B"]
            fails += a == -1 or b == -1
            ties += a == b and a != -1
    got = Counter(ds.judgments.filter(pl.col("judge") == "Qwen3-8B (rubric)")["verdict"])
    assert (got["unparsed"], got["tie"]) == (fails, ties)


def test_declarations(ds):
    d = {(r["benchmark"], r["condition"]): r for r in ds.declarations.iter_rows(named=True)}
    for bench in ("judgebench", "judgebench_claude"):
        assert (d[(bench, "C1")]["status"], d[(bench, "C1")]["values"]) == ("approximate", ["knowledge"])
        assert (d[(bench, "C2")]["status"], d[(bench, "C2")]["values"]) == ("approximate", ["reasoning"])
        assert (d[(bench, "C7")]["status"], d[(bench, "C7")]["selector"]) == ("direct", "order")
    assert len(d) == 6


def test_partial_output_file_gives_notices_not_a_crash(tmp_path, jb):
    (tmp_path / "data").mkdir()
    (tmp_path / "outputs").mkdir()
    shutil.copy(jb / "data" / GPT_PAIRS, tmp_path / "data" / GPT_PAIRS)
    rows = _rows(jb / "outputs" / O1)[:3]
    del rows[1]["judgments"]
    rows[2]["judgments"] = rows[2]["judgments"][:1]
    rows.append({"pair_id": "not-a-pair", "judgments": []})
    (tmp_path / "outputs" / O1).write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    ds = import_judgebench(tmp_path)
    assert ds.judgments.height == 2 + 1
    assert any("2 rows" in n and "skipped" in n for n in ds.notices)
    assert any("missing order" in n for n in ds.notices)


def test_pair_without_label_names_file_and_row(tmp_path, jb):
    (tmp_path / "data").mkdir()
    rows = _rows(jb / "data" / GPT_PAIRS)[:2]
    del rows[1]["label"]
    (tmp_path / "data" / GPT_PAIRS).write_text("\n".join(json.dumps(r) for r in rows))
    with pytest.raises(CAPInputError) as err:
        import_judgebench(tmp_path)
    assert err.value.row == 2 and err.value.column == "label" and GPT_PAIRS in str(err.value)


def test_survey_failure_extracts_are_refused_clearly(shared_dir):
    # the survey folder holds only failing rows in another layout (no data/ pair files)
    with pytest.raises(CAPInputError, match="no JudgeBench pair files"):
        import_judgebench(shared_dir / "data" / "judgebench_survey_gozcam")
