"""The sources' recorded verdicts kept beside CAP's derived ones (raw files read with plain json loops)."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

from cap_core.importers import import_judgebench, import_llmbar
from cap_core.schema import VERDICT_RULES

LETTER = {"1": "A", "2": "B"}


@pytest.fixture(scope="module")
def llmbar(shared_dir: Path):
    return import_llmbar(shared_dir / "data" / "llmbar")


@pytest.fixture(scope="module")
def judgebench(shared_dir: Path):
    data = shared_dir / "data"
    return import_judgebench(data / "judgebench", data / "judgebench_fork_stellalisy")


def _get(ds, judge, item_id, order):
    return ds.judgments.filter(pl.col("judge") == judge, pl.col("item_id") == item_id,
                               pl.col("order") == order).row(0, named=True)


def test_llmbar_recorded_winner_is_the_raw_winner_for_every_rating_row(llmbar, shared_dir):
    raw = json.loads((shared_dir / "data/llmbar/Dataset/LLMBar/Natural/evaluators/GPT-4/Rating/result.json")
                     .read_text())
    ties = 0
    for i, rec in enumerate(raw):
        rnd = rec["results"][-1]
        s1, s2 = int(rnd["score_1"][0]), int(rnd["score_2"][0])
        ab = _get(llmbar, "GPT-4/Rating", f"Natural-{i}", "AB")
        ba = _get(llmbar, "GPT-4/Rating", f"Natural-{i}", "BA")
        assert ab["verdict_recorded"] == LETTER[rnd["swap = False"]["winner"]]
        assert ba["verdict_recorded"] == LETTER[rnd["swap = True"]["winner"]]
        if s1 == s2:
            ties += 1
            # CAP: a tie in both orders; LLMBar: output 2 first, output 1 in the swapped game
            assert (ab["verdict"], ba["verdict"]) == ("tie", "tie")
            assert (ab["verdict_recorded"], ba["verdict_recorded"]) == ("B", "A")
            assert ab["verdict_rule"] == ba["verdict_rule"] == "scores_equal_tie"
        else:
            assert ab["verdict_rule"] == "scores"
            assert ab["verdict"] == ab["verdict_recorded"] == ("A" if s1 > s2 else "B")
    assert ties > 0  # the Natural set has equal GPT-4 ratings


def test_llmbar_comparison_strategies_record_what_they_derive(llmbar):
    cot = llmbar.judgments.filter(pl.col("judge").str.ends_with("/CoT"))
    assert cot.height > 0
    assert (cot["verdict"] == cot["verdict_recorded"]).all()
    assert (cot["verdict_rule"] == "written").all()


def test_judgebench_reward_model_and_rubric_rules(judgebench, shared_dir):
    out = shared_dir / "data/judgebench_fork_stellalisy/outputs"
    f = next(out.glob("*judge_model=Qwen-Qwen3-8B.jsonl"))
    minus_one = 0
    for line in f.read_text().splitlines():
        rec = json.loads(line)
        j = rec["judgments"][0]
        sa, sb = j["judgment"].get("score_A"), j["judgment"].get("score_B")
        row = _get(judgebench, "Qwen3-8B (rubric)", rec["pair_id"], "AB")
        if sa == -1 or sb == -1:
            minus_one += 1
            assert row["verdict"] == "unparsed" and row["verdict_rule"] == "score_missing_unparsed"
        elif sa == sb:
            assert row["verdict"] == "tie" and row["verdict_rule"] == "scores_equal_tie"
        # the fork's own decision, kept as written
        want = {"A>B": "A", "A>>B": "A", "B>A": "B", "B>>A": "B", "A=B": "tie"}.get(str(j["decision"]), "unparsed")
        assert row["verdict_recorded"] == want
    assert minus_one > 0
    rm = judgebench.judgments.filter(pl.col("judge").str.ends_with("(RM)"))
    assert set(rm["verdict_rule"].unique()) <= {"scores", "scores_equal_tie"}
    assert set(judgebench.judgments["verdict_rule"].unique()) <= set(VERDICT_RULES)


def test_judgebench_recorded_decision_is_deswapped(judgebench, shared_dir):
    f = next((shared_dir / "data/judgebench/outputs").glob("*o1-mini*.jsonl"))
    rec = json.loads(f.read_text().splitlines()[0])
    second = rec["judgments"][1]["decision"]  # written in the swapped presentation's letters
    want = {"A>B": "B", "B>A": "A", "A=B": "tie"}.get(second, "unparsed")
    assert _get(judgebench, "o1-mini (arena_hard)", rec["pair_id"], "BA")["verdict_recorded"] == want


def test_notices_name_the_rule_behind_reward_model_ties(judgebench, shared_dir):
    f = next((shared_dir / "data/judgebench/outputs").glob("*Skywork-Reward-Gemma-2-27B.jsonl"))
    equal = differ = 0
    for line in f.read_text().splitlines():
        for j in json.loads(line)["judgments"]:
            s = j["judgment"]["scores"]
            if s[0] == s[1]:
                equal += 1
                differ += j["decision"] != "A=B"  # JudgeBench's reward models write B>A on equal scores
    note = next(n for n in judgebench.notices if "Skywork-Reward-Gemma-2-27B (RM)" in n and "equal scores" in n)
    assert f": {equal} ties from equal scores" in note and f"different verdict on {differ} of them" in note
    assert equal > 0
