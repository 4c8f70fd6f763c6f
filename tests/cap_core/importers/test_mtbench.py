"""FastChat MT-Bench judgments read the way FastChat reads them (tests/fixtures/mtbench/SOURCE.md).

``gpt-4_pair.jsonl`` is a real FastChat judge file (75 records, GPT-4 with two prompts); every
expected number below is counted here from the fixture's raw records by the small loops of this
file (FastChat's rules written out again) and written down in SOURCE.md, never read back from the
importer. ``human_judgments.json`` is constructed in the release's layout (the release is not
reachable here); its agreement numbers are counted by hand in the comments.
"""

from __future__ import annotations

import json
import shutil
from collections import Counter
from itertools import combinations
from pathlib import Path

import polars as pl
import pytest

from cap_core.analyses.source_metrics import source_metrics
from cap_core.cli.main import main
from cap_core.errors import CAPInputError
from cap_core.importers.mtbench import import_mtbench, judge_of, winner_verdict
from cap_core.profile.conditions import compute_profile

FX = Path(__file__).resolve().parents[2] / "fixtures"
PAIR = FX / "mtbench" / "model_judgment" / "gpt-4_pair.jsonl"
HUMAN = FX / "mtbench" / "human_judgments.json"


def _raw(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _c7(ds, judge: str, metric: str = "consistency") -> dict:
    prof = compute_profile(ds, n_resamples=20, seed=0).profile
    return prof.filter(pl.col("judge") == judge, pl.col("condition") == "C7", pl.col("metric") == metric).row(
        0, named=True)


# ---------------------------------------------------------------- encodings


@pytest.mark.parametrize("winner, want", [
    ("model_1", "first"), ("model_2", "second"), ("tie", "tie"), ("tie (bothbad)", "tie"),
    ("tie (inconsistent)", "tie"), ("error", "unparsed"), (None, "unparsed"), ("model_3", "unparsed"),
])
def test_winner_encoding(winner, want):
    assert winner_verdict(winner, "model_1", "model_2") == want


@pytest.mark.parametrize("judge, want", [
    (["gpt-4", "pair-v2"], ("gpt-4", "pair-v2")), (["gpt-4", "pair-math-v1"], ("gpt-4", "pair-math-v1")),
    ("expert_0", ("expert_0", None)), (["claude-v1"], ("claude-v1", None)),
])
def test_a_prompt_name_is_a_setting_not_a_judge(judge, want):
    assert judge_of(judge) == want


# ---------------------------------------------------------------- the real gpt-4_pair.jsonl


def test_real_pair_file_is_one_judge_with_its_prompts_kept():
    raw = _raw(PAIR)
    ds = import_mtbench(PAIR)
    assert ds.judges == ["gpt-4"]  # not "gpt-4 (pair-v2)" and "gpt-4 (pair-math-v1)"
    assert ds.items.height == len(raw) == 75 and ds.judgments.height == 150
    want = Counter(r["judge"][1] for r in raw for _ in range(2))  # two games per record
    assert want == {"pair-v2": 100, "pair-math-v1": 50}
    assert dict(ds.judgments.group_by("judge_prompt").len().iter_rows()) == dict(want)
    assert any("2 judge prompts" in n and "judge_prompt" in n for n in ds.notices)
    assert ds.items["gold"].null_count() == 75  # no gold in a judge file: preference-only


def test_real_pair_file_pure_consistency_is_the_hand_count():
    """Rule: both games present and parsed, the same winner (the same model, or both ties); FastChat's
    ``error`` is unparsed and never consistent. Hand count 46 of 75 (SOURCE.md)."""
    raw = _raw(PAIR)
    hand = sum(r["g1_winner"] == r["g2_winner"] and r["g1_winner"] != "error" for r in raw)
    assert (hand, len(raw)) == (46, 75)
    row = _c7(import_mtbench(PAIR), "gpt-4")
    assert row["n_items"] == 75 and row["value"] == pytest.approx(100 * 46 / 75)  # 61.33 %
    assert row["status"] == "direct"
    assert _c7(import_mtbench(PAIR), "gpt-4", "strict")["status"] == "needs gold"


def test_verdicts_follow_from_the_judgment_texts():
    """FastChat's rule on each judgment text ([[A]], else [[B]], else [[C]], else error; game 2 shows
    model_2 as A) gives each verdict in the item's letters (A = phi-3, the name that sorts first)."""
    def read(text):
        return next((w for tok, w in (("[[A]]", "A"), ("[[B]]", "B"), ("[[C]]", "tie")) if tok in text), "unparsed")

    flip = {"A": "B", "B": "A", "tie": "tie", "unparsed": "unparsed"}
    want = {}
    for r in _raw(PAIR):
        assert (r["model_1"], r["model_2"]) == ("phi-3", "phi-3-dpo")
        item = f"{r['question_id']}:t{r['turn']}:phi-3|phi-3-dpo"
        want[(item, "AB")] = read(r["g1_judgment"])  # game 1 shows phi-3 (A) first
        want[(item, "BA")] = flip[read(r["g2_judgment"])]  # game 2 shows phi-3-dpo first
    got = {(i, o): v for i, o, v in import_mtbench(PAIR).judgments.select("item_id", "order", "verdict").iter_rows()}
    assert got == want
    assert Counter(want.values()) == {"B": 62, "A": 60, "tie": 25, "unparsed": 3}


def test_fastchat_win_rates_on_the_real_file():
    """show_result.py pairwise: records with an error game dropped; a win needs g1 == g2 naming a model;
    a tie in game 1 or two different winners is a tie. Hand: phi-3 18-20-35, phi-3-dpo 20-18-35."""
    counts = {"phi-3": Counter(), "phi-3-dpo": Counter()}
    for r in _raw(PAIR):
        g1, g2 = r["g1_winner"], r["g2_winner"]
        if "error" in (g1, g2):
            continue
        if g1 == "tie" or g1 != g2:
            counts[r["model_1"]]["tie"] += 1
            counts[r["model_2"]]["tie"] += 1
        else:
            win, loss = (r["model_1"], r["model_2"]) if g1 == "model_1" else (r["model_2"], r["model_1"])
            counts[win]["win"] += 1
            counts[loss]["loss"] += 1
    assert counts["phi-3"] == {"win": 18, "loss": 20, "tie": 35}
    assert counts["phi-3-dpo"] == {"win": 20, "loss": 18, "tie": 35}
    rows = source_metrics(import_mtbench(PAIR))
    got = {(r["subset"], r["metric"]): (r["value"], r["n"]) for r in rows.iter_rows(named=True)}
    assert got[("phi-3", "fastchat_win_rate")] == (pytest.approx(100 * 18 / 73), 73)
    assert got[("phi-3", "fastchat_win_rate_adjusted")] == (pytest.approx(100 * 35.5 / 73), 73)
    assert got[("phi-3-dpo", "fastchat_win_rate")] == (pytest.approx(100 * 20 / 73), 73)
    assert got[("phi-3-dpo", "fastchat_win_rate_adjusted")] == (pytest.approx(100 * 37.5 / 73), 73)
    assert rows["cap_value"].null_count() == rows.height and (rows["rule"].str.contains("show_result")).all()


def test_folder_imports_the_pair_file_and_reports_the_single_grading_file():
    ds = import_mtbench(PAIR.parent)  # gpt-4_pair.jsonl and gpt-4_single.jsonl
    assert ds.judges == ["gpt-4"] and ds.judgments.height == 150
    skipped = [n for n in ds.notices if "skipped" in n]
    assert len(skipped) == 1 and "gpt-4_single.jsonl" in skipped[0] and "single-answer grading" in skipped[0]
    with pytest.raises(CAPInputError, match="single-answer grading") as e:
        import_mtbench(PAIR.parent / "gpt-4_single.jsonl")
    assert e.value.row == 1


def test_single_grading_records_in_a_pair_file_are_their_own_judge(tmp_path):
    """FastChat's pair file of a single-type prompt writes one winner twice and both scores: one verdict,
    judge 'gpt-4 (single)' (grading each answer alone is another method than comparing them)."""
    rec = dict(_raw(PAIR)[0], g1_winner="model_2", g2_winner="model_2", m1_score=7, m2_score=9,
               judge=["gpt-4", "single-v1"])
    p = tmp_path / "gpt-4_pair.jsonl"
    p.write_text(PAIR.read_text() + json.dumps(rec) + "\n")
    ds = import_mtbench(p)
    assert ds.judges == ["gpt-4", "gpt-4 (single)"]
    single = ds.judgments.filter(pl.col("judge") == "gpt-4 (single)")
    assert single.select("order", "verdict", "judge_prompt").rows() == [("AB", "B", "single-v1")]


# ---------------------------------------------------------------- human judgments (constructed layout)


def _fastchat_agreement(records: list[dict]) -> dict:
    """compute_agreement.py written out again on the raw records: votes keyed by (turn, question, sorted
    pair), the winner reverted when model_a sorts second; 'gpt4' = list judges, 'human' = expert_*."""
    data: dict = {}
    for v in records:
        a, b = v["model_a"], v["model_b"]
        w = v["winner"] if a < b else {"model_a": "model_b", "model_b": "model_a"}.get(v["winner"], v["winner"])
        who = "gpt4" if isinstance(v["judge"], list) else ("human" if v["judge"].startswith("expert") else "other")
        data.setdefault((v["turn"], v["question_id"], min(a, b), max(a, b)), {}).setdefault(who, []).append(w)

    def tie(x):
        return "tie" in x

    def equal(x, y):
        return (tie(x) and tie(y)) or x == y

    out = Counter()
    for (turn, *_), votes in data.items():
        hv = votes.get("human", [])
        for ban in (False, True):
            if "gpt4" in votes and not (ban and tie(votes["gpt4"][0])):
                for h in hv:
                    if not (ban and tie(h)):
                        out[("gpt4", turn, ban, "n")] += 1
                        out[("gpt4", turn, ban, "agree")] += equal(votes["gpt4"][0], h)
            for x, y in combinations(hv, 2):
                if not (ban and (tie(x) or tie(y))):
                    out[("human", turn, ban, "n")] += 1
                    out[("human", turn, ban, "agree")] += equal(x, y)
    return out


def test_agreement_follows_compute_agreement():
    """Hand count (human_judgments.json): turn 1, GPT-4 vs experts with ties 4 of 7 (q81: 2/2; q82 GPT-4
    tie vs A, tie, tie: 2/3; q83 A vs B, tie: 0/2), without ties 2 of 3 (q82 skipped, q83's tie vote
    skipped); turn 2 1 of 2 both ways. Expert pairs: turn 1 2 of 5 with ties, 1 of 1 without; turn 2
    0 of 1. author_2 is in neither group."""
    ref = _fastchat_agreement(json.loads(HUMAN.read_text()))
    assert [(ref[(who, t, ban, "agree")], ref[(who, t, ban, "n")]) for who, t, ban in (
        ("gpt4", 1, False), ("gpt4", 1, True), ("gpt4", 2, False), ("gpt4", 2, True),
        ("human", 1, False), ("human", 1, True), ("human", 2, False), ("human", 2, True))] == [
        (4, 7), (2, 3), (1, 2), (1, 2), (2, 5), (1, 1), (0, 1), (0, 1)]
    rows = source_metrics(import_mtbench(HUMAN)).filter(pl.col("metric").str.starts_with("fastchat_agreement"))
    got = {(r["judge"], r["subset"], r["metric"]): (r["value"], r["n"]) for r in rows.iter_rows(named=True)}
    assert got == {
        ("gpt-4", "turn1", "fastchat_agreement"): (pytest.approx(100 * 4 / 7), 7),
        ("gpt-4", "turn1", "fastchat_agreement_no_tie"): (pytest.approx(100 * 2 / 3), 3),
        ("gpt-4", "turn2", "fastchat_agreement"): (50.0, 2),
        ("gpt-4", "turn2", "fastchat_agreement_no_tie"): (50.0, 2),
        ("human", "turn1", "fastchat_agreement"): (40.0, 5),
        ("human", "turn1", "fastchat_agreement_no_tie"): (100.0, 1),
        ("human", "turn2", "fastchat_agreement"): (0.0, 1),
        ("human", "turn2", "fastchat_agreement_no_tie"): (0.0, 1),
    }
    # one judge across its two prompts (pair-v2 on turn 1, pair-v2-multi-turn on turn 2)
    assert "gpt-4 (pair-v2)" not in set(rows["judge"])


def test_expert_votes_as_gold():
    """--gold-judge 'expert_*': q81 t1 B, B -> B; q82 t1 A, tie, tie -> A (ties are no vote); q83 t1 B, tie
    -> B; q81 t2 B, A -> split, no gold. The experts leave the judgments; GPT-4 is then right on q81 t1
    only (tie on q82, A on q83)."""
    ds = import_mtbench(HUMAN, gold_judge="expert_*")
    assert dict(ds.items.select("item_id", "gold").iter_rows()) == {
        "81:t1:alpaca-13b|vicuna-13b-v1.2": "B", "82:t1:gpt-3.5-turbo|llama-13b": "A",
        "83:t1:claude-v1|gpt-4": "B", "81:t2:alpaca-13b|vicuna-13b-v1.2": None}
    assert ds.judges == ["author_2", "gpt-4"]
    g = ds.judgments.filter(pl.col("judge") == "gpt-4").join(ds.items.select("item_id", "gold"), on="item_id")
    assert sorted(g.select("item_id", "verdict", "gold").rows()) == [
        ("81:t1:alpaca-13b|vicuna-13b-v1.2", "B", "B"), ("81:t2:alpaca-13b|vicuna-13b-v1.2", "B", None),
        ("82:t1:gpt-3.5-turbo|llama-13b", "tie", "A"), ("83:t1:claude-v1|gpt-4", "A", "B")]
    with pytest.raises(CAPInputError, match="no judge matches"):
        import_mtbench(HUMAN, gold_judge="annotator_*")


def test_the_gold_notice_counts_in_the_right_number():
    """The counts of test_expert_votes_as_gold: four experts, gold on three items, one split (q81 t2),
    so one of the four items has no gold; GPT-4 used pair-v2 on three records, pair-v2-multi-turn on one."""
    notices = import_mtbench(HUMAN, gold_judge="expert_*").notices
    assert any("gold is the majority verdict of 4 reference judges (expert_0, expert_1, expert_2, expert_3) on 3 "
               "items; 1 item with split votes has no gold;" in n for n in notices)
    assert "MT-Bench: 1 of 4 items has no gold label" in " ".join(notices)
    assert "pair-v2 on 3 records, pair-v2-multi-turn on 1 record)" in " ".join(notices)


def test_a_gold_table_is_matched_by_the_imports_item_ids(tmp_path):
    """Ids of another form matched nothing and the import went on without gold (every accuracy 'needs
    gold'); rows naming no item were dropped without a word."""
    other = tmp_path / "g.csv"
    other.write_text("item_id,gold\n90,A\nzzz,B\n")
    with pytest.raises(CAPInputError) as e:
        import_mtbench(PAIR, gold=other)
    assert e.value.column == "item_id" and e.value.got == "90" and "81:t1:phi-3|phi-3-dpo" in e.value.expected
    some = tmp_path / "g2.csv"
    some.write_text("item_id,gold\n81:t1:phi-3|phi-3-dpo,A\nzzz,B\n")
    notes = " ".join(import_mtbench(PAIR, gold=some).notices)
    assert "gold from g2.csv for 1 item. 1 of its rows names no item of this import (e.g. 'zzz') and was not used" in notes


def test_verdict_totals_count_the_judgments_kept_not_the_repeats(tmp_path):
    """A record repeated in the file is left out; the per-judge totals said 2 more verdicts than were written."""
    import re

    lines = PAIR.read_text().splitlines()
    p = tmp_path / "gpt-4_pair.jsonl"
    p.write_text("\n".join([*lines, lines[0]]) + "\n")

    def totals(ds):
        line = next(n for n in ds.notices if "judge gpt-4:" in n)
        return tuple(int(x) for x in re.search(r"(\d+) A, (\d+) B, (\d+) tie, (\d+) unparsed", line).groups()), line

    (plain, _), (repeated, line) = totals(import_mtbench(PAIR)), totals(import_mtbench(p))
    assert repeated == plain and sum(plain) == 150 and "encodings of the 152 records read" in line


# ---------------------------------------------------------------- bad input


def test_wrong_file():
    with pytest.raises(CAPInputError) as e:
        import_mtbench(FX / "bad" / "mtbench")
    assert e.value.row == 1 and e.value.column == "model_2" and e.value.file.endswith("gpt-4_pair.jsonl")


def test_a_pair_record_cut_short_is_refused_not_read_as_another_judge(tmp_path):
    """A *_pair.jsonl record without g2_winner (and without the single judge's scores) was read as a
    single-answer grade: a made-up judge 'gpt-4 (single)' and the real judge's consistency on 74 items."""
    lines = PAIR.read_text().splitlines()
    rec = json.loads(lines[4])
    del rec["g2_winner"]
    lines[4] = json.dumps(rec)
    p = tmp_path / "gpt-4_pair.jsonl"
    p.write_text("\n".join(lines) + "\n")
    with pytest.raises(CAPInputError) as e:
        import_mtbench(p)
    assert e.value.row == 5 and e.value.column == "g2_winner" and e.value.file.endswith("gpt-4_pair.jsonl")


def test_malformed_line(tmp_path):
    p = tmp_path / "gpt-4_pair.jsonl"
    p.write_text(PAIR.read_text() + "{not json\n")
    with pytest.raises(CAPInputError) as e:
        import_mtbench(p)
    assert e.value.row == 76 and "malformed JSON" in e.value.problem


def test_folder_of_bad_files_only_is_refused(tmp_path):
    shutil.copy(FX / "bad" / "mtbench" / "gpt-4_pair.jsonl", tmp_path / "a_pair.jsonl")
    shutil.copy(PAIR.parent / "gpt-4_single.jsonl", tmp_path / "b_single.jsonl")
    with pytest.raises(CAPInputError) as e:
        import_mtbench(tmp_path)
    assert e.value.file.endswith("a_pair.jsonl") and "1 other file" in e.value.problem


# ---------------------------------------------------------------- CLI


def test_cli_without_and_with_gold(tmp_path, capsys):
    from cap_core.dataset import load_dataset

    assert main(["import", "--format", "mtbench", str(PAIR.parent), "--out", str(tmp_path / "a")]) == 0
    err = capsys.readouterr().err
    assert "skipped gpt-4_single.jsonl" in err and "no gold label" in err
    assert load_dataset(tmp_path / "a").judges == ["gpt-4"]
    assert main(["source-metrics", "--data", str(tmp_path / "a"), "--out", str(tmp_path / "a.csv")]) == 0
    assert "fastchat_win_rate" in (tmp_path / "a.csv").read_text()
    assert main(["import", "--format", "mtbench", str(HUMAN), "--gold-judge", "expert_*",
                 "--out", str(tmp_path / "b")]) == 0
    assert load_dataset(tmp_path / "b").items["gold"].drop_nulls().len() == 3


def test_cli_wrong_file_one_line(tmp_path, capsys):
    rc = main(["import", "--format", "mtbench", str(FX / "bad" / "mtbench"), "--out", str(tmp_path / "o")])
    err = capsys.readouterr().err.strip()
    assert rc == 2 and err.startswith("error: ") and "\n" not in err and "row 1" in err and "Fix:" in err


def test_cli_kind_and_format_disagree(tmp_path, capsys):
    assert main(["import", "mtbench", str(PAIR), "--format", "inspect", "--out", str(tmp_path)]) == 2
    assert "two formats" in capsys.readouterr().err
