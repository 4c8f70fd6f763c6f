"""Arena-Hard-Auto judgments read the way Arena-Hard reads them (tests/fixtures/arena_hard/SOURCE.md).

The fixtures are real records of Arena-Hard's v0.1 judge files (12 records of gpt-4-1106-preview
judging gpt-4-0613 and gpt-3.5-turbo-0125 against gpt-4-0314) and one record of the 2024 layout.
Every expected number is counted here from the raw records by the loops of this file (Arena's
rules written out again) and tabulated in SOURCE.md, never read back from the importer.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import polars as pl
import pytest

from cap_core.analyses.source_metrics import source_metrics
from cap_core.cli.main import main
from cap_core.errors import CAPInputError
from cap_core.importers.arena_hard import import_arena_hard
from cap_core.profile.conditions import compute_profile
from cap_core.schema import ARENA_LABELS, arena_label

FX = Path(__file__).resolve().parents[2] / "fixtures"
V01 = FX / "arena_hard" / "arena-hard-v0.1" / "model_judgment"
OLD = FX / "arena_hard" / "v0.1-layout" / "model_judgment"
ROOT = Path(__file__).resolve().parents[3]

# which side a label prefers, in the game's letters, and whether it is "significantly" (show_result.py)
_SIDE = {"A>>B": ("A", 3), "A>B": ("A", 1), "A=B": (None, 1), "B>A": ("B", 1), "B>>A": ("B", 3)}


def _records() -> list[dict]:
    return [json.loads(line) for f in sorted(V01.rglob("*.jsonl")) for line in f.read_text().splitlines()]


def _winner(game: int, label: str) -> str:
    """The winning model of one game: game 1 shows the baseline as A, game 2 the model as A."""
    side, _ = _SIDE[label]
    if side is None:
        return "tie"
    return ("baseline" if side == "A" else "model") if game == 1 else ("model" if side == "A" else "baseline")


# ---------------------------------------------------------------- the one label table


@pytest.mark.parametrize("label, want", [
    ("A>>B", ("A", 2)), ("A>B", ("A", 1)), ("A=B", ("tie", 0)), ("B>A", ("B", 1)), ("B>>A", ("B", 2)),
    ("B<<A", ("A", 2)), ("B<A", ("A", 1)), ("B=A", ("tie", 0)), ("A<B", ("B", 1)), ("A<<B", ("B", 2)),
    ("[[a>>b]]", ("A", 2)), (" B > A ", ("B", 1)), ("A>>>B", ("unparsed", None)), ("AB", ("unparsed", None)),
    ("C", ("unparsed", None)), (None, ("unparsed", None)), (3, ("unparsed", None)),
])
def test_arena_labels(label, want):
    assert arena_label(label) == want


def test_every_reader_uses_the_one_table():
    """The importer, JudgeBench's arena_hard decisions and the live parse read B=A (and A<<B) alike, and no
    module but cap_core/schema.py spells out a label table."""
    from cap_core.importers.judgebench import _one
    from cap_core.judging.parse import parse_verdict

    assert len(ARENA_LABELS) == 10
    for label, (letter, _) in ARENA_LABELS.items():
        assert parse_verdict(f"My final verdict is: [[{label}]]").verdict == letter
        assert _one("arena_hard", {"decision": label}, "AB")["verdict"] == letter
        assert _one("arena_hard", {"decision": label}, "AB")["verdict_recorded"] == letter
    assert parse_verdict("[[A>A]]").verdict == "unparsed"  # not a label: names no winner
    tables = [p.relative_to(ROOT).as_posix() for p in (ROOT / "cap_core").rglob("*.py")
              if re.search(r"""["']A>>B["']\s*:""", p.read_text())]
    assert tables == ["cap_core/schema.py"]


# ---------------------------------------------------------------- real records


def test_real_records_pure_consistency_is_the_hand_count():
    """Rule: both games labelled, the same model wins both games or both are ties (strength ignored).
    Hand count 7 of 12 (5 of 8 gpt-4-0613, 2 of 4 gpt-3.5-turbo-0125; SOURCE.md)."""
    recs = _records()
    hand = [_winner(1, r["games"][0]["score"]) == _winner(2, r["games"][1]["score"]) for r in recs]
    assert (sum(hand), len(hand)) == (7, 12)
    ds = import_arena_hard(V01)
    assert ds.judges == ["gpt-4-1106-preview"] and ds.items.height == 12
    prof = compute_profile(ds, n_resamples=20, seed=0).profile
    row = prof.filter(pl.col("condition") == "C7", pl.col("metric") == "consistency").row(0, named=True)
    assert row["n_items"] == 12 and row["value"] == pytest.approx(100 * 7 / 12)  # not 50 %


def test_verdicts_keep_their_strength():
    """Item letters: A = the baseline, B = the model; game 1 is AB, game 2 BA. The strength of each label
    is kept beside the verdict (2 = >>): four games say 'significantly' (15f3 game 2, 3850 game 2, 4f8b
    both), every one for the baseline."""
    ds = import_arena_hard(V01)
    want = {}
    for r in _records():
        item = f"{r['uid']}:{r['baseline']}|{r['model']}"
        for g, order in ((1, "AB"), (2, "BA")):
            label = r["games"][g - 1]["score"]
            w = _winner(g, label)
            want[(item, order)] = ({"baseline": "A", "model": "B", "tie": "tie"}[w],
                                   {1: 1, 3: 2}[_SIDE[label][1]] if w != "tie" else 0)
    got = {(i, o): (v, s) for i, o, v, s in
           ds.judgments.select("item_id", "order", "verdict", "verdict_strength").iter_rows()}
    assert got == want
    strong = ds.judgments.filter(pl.col("verdict_strength") == 2)
    assert strong.height == 4 and set(strong["verdict"]) == {"A"}
    assert set(ds.judgments["verdict"]) <= {"A", "B", "tie"}
    note = next(n for n in ds.notices if "judge gpt-4-1106-preview" in n)
    # each label named with its game (A is the baseline in game 1, the model in game 2), so that A>>B and
    # B>>A both meaning "baseline better" do not read as a contradiction
    assert "game 2 (swapped): B>>A = baseline better (strongly) x3" in note
    assert "game 1: A>>B = baseline better (strongly) x1" in note


def test_arena_hard_score_is_the_hand_count():
    """show_result.py: per record, game 2's label scores the model (its A), game 1's label scores the
    baseline (its A) and the model gets 1 minus it; a >> label is three battles. Hand: gpt-4-0613 4.5 of
    20 battles = 22.5 %, gpt-3.5-turbo-0125 2 of 12 = 16.67 % (SOURCE.md)."""
    a_score = {"A>B": 1.0, "A>>B": 1.0, "A=B": 0.5, "B>A": 0.0, "B>>A": 0.0}
    battles: dict[str, list[float]] = {}
    for r in _records():
        g1, g2 = r["games"][0]["score"], r["games"][1]["score"]
        b = battles.setdefault(r["model"], [])
        b += [a_score[g2]] * _SIDE[g2][1] + [1.0 - a_score[g1]] * _SIDE[g1][1]
    assert {m: (sum(b), len(b)) for m, b in battles.items()} == {"gpt-4-0613": (4.5, 20),
                                                                "gpt-3.5-turbo-0125": (2.0, 12)}
    rows = source_metrics(import_arena_hard(V01))
    got = {r["subset"]: (r["value"], r["n"]) for r in rows.iter_rows(named=True)}
    assert got == {"arena-hard-v0.1: gpt-4-0613 vs gpt-4-0314": (22.5, 8),
                   "arena-hard-v0.1: gpt-3.5-turbo-0125 vs gpt-4-0314": (pytest.approx(100 * 2 / 12), 4)}
    assert rows["metric"].unique().to_list() == ["arena_hard_score"] and rows["cap_value"].null_count() == 2
    assert rows["reason"].str.contains("500 questions").all()  # the published 37.9 / 23.34 need all 500


def test_a_failed_game_is_unparsed_and_drops_the_record_from_the_score(tmp_path):
    recs = [json.loads(line) for line in (V01 / "gpt-4-1106-preview" / "gpt-4-0613.jsonl").read_text().splitlines()]
    recs[6]["games"][1] = None  # e5db: the model's one win (B>A, A>B) loses its second game
    p = tmp_path / "gpt-4-1106-preview" / "gpt-4-0613.jsonl"
    p.parent.mkdir()
    p.write_text("".join(json.dumps(r) + "\n" for r in recs))
    ds = import_arena_hard(p)
    assert ds.judgments.filter(pl.col("verdict") == "unparsed").height == 1
    row = source_metrics(ds).row(0, named=True)
    # 7 records left: 20 - 2 battles, 4.5 - 2 points
    assert row["n"] == 7 and row["value"] == pytest.approx(100 * 2.5 / 18) and "1 dropped" in row["reason"]


def test_v01_layout_needs_its_baseline_named():
    ds = import_arena_hard(OLD, baseline="gpt-4-0314")
    assert ds.items["item_id"].to_list() == ["93c9b4bb32f4422f954c7af9ea2bdfcd:gpt-4-0314|qwen2.5-32b-instruct"]
    # game 1 B>A (the model, shown second), game 2 A>B (the model, shown first): B in both orders
    assert dict(ds.judgments.select("order", "verdict").iter_rows()) == {"AB": "B", "BA": "B"}
    unnamed = import_arena_hard(OLD)
    assert any("--baseline" in n for n in unnamed.notices)


def test_a_gold_table_gives_accuracy(tmp_path):
    """A user's gold labels for two items (the model better on e5db, the baseline on b4b1): the judge is
    right in both games of both (e5db: model, model; b4b1: baseline, baseline): pa 100 over 2 items."""
    table = tmp_path / "gold.csv"
    table.write_text("item_id,gold\ne5dbb699f7dc4e3583137b3b6f7414ba:gpt-4-0314|gpt-4-0613,B\n"
                     "b4b1c3f799f6459b8cfb15fa27e399e7:gpt-4-0314|gpt-4-0613,A\n")
    ds = import_arena_hard(V01, gold=table)
    prof = compute_profile(ds, n_resamples=20, seed=0).profile
    pa = prof.filter(pl.col("condition") == "overall", pl.col("metric") == "pa").row(0, named=True)
    assert (pa["value"], pa["n_items"]) == (100.0, 2)


# ---------------------------------------------------------------- bad input and the CLI


def test_wrong_file():
    with pytest.raises(CAPInputError) as e:
        import_arena_hard(FX / "bad" / "arena_hard")
    assert e.value.row == 1 and e.value.column == "games" and e.value.got == 1


def test_folder_keeps_the_good_files(tmp_path):
    shutil.copytree(V01, tmp_path / "mj")
    shutil.copy(FX / "bad" / "arena_hard" / "qwq-32b.jsonl", tmp_path / "mj" / "gpt-4-1106-preview" / "qwq-32b.jsonl")
    ds = import_arena_hard(tmp_path / "mj")
    assert ds.items.height == 12
    assert [n for n in ds.notices if "skipped" in n] == [n for n in ds.notices if "qwq-32b.jsonl" in n]
    assert len([n for n in ds.notices if "skipped qwq-32b.jsonl" in n]) == 1
    b = import_arena_hard(V01)
    assert ds.judgments.sort("item_id", "order").equals(b.judgments.sort("item_id", "order"))


def test_cli_without_and_with_gold(tmp_path, capsys):
    from cap_core.dataset import load_dataset

    assert main(["import", "--format", "arena-hard", str(V01), "--out", str(tmp_path / "a")]) == 0
    assert "no gold label" in capsys.readouterr().err
    assert load_dataset(tmp_path / "a").judgments["verdict_strength"].to_list().count(2) == 4
    table = tmp_path / "gold.csv"
    table.write_text("item_id,gold\ne5dbb699f7dc4e3583137b3b6f7414ba:gpt-4-0314|gpt-4-0613,B\n")
    assert main(["import", "--format", "arena-hard", str(V01), "--gold", str(table), "--out", str(tmp_path / "b")]) == 0
    assert load_dataset(tmp_path / "b").items["gold"].drop_nulls().to_list() == ["B"]
    assert main(["import", "--format", "arena-hard", str(OLD), "--baseline", "gpt-4-0314",
                 "--out", str(tmp_path / "c")]) == 0


def test_cli_wrong_file_one_line(tmp_path, capsys):
    rc = main(["import", "--format", "arena-hard", str(FX / "bad" / "arena_hard"), "--out", str(tmp_path / "o")])
    err = capsys.readouterr().err.strip()
    assert rc == 2 and err.startswith("error: ") and "\n" not in err and "row 1" in err and "Fix:" in err


def test_verdict_strength_outside_its_set_is_refused():
    from cap_core.schema import validate_judgments

    frame = pl.DataFrame({"judge": ["j"], "benchmark": ["b"], "item_id": ["i"], "order": ["AB"], "verdict": ["A"],
                          "verdict_strength": [3]})
    with pytest.raises(CAPInputError) as e:
        validate_judgments(frame)
    assert e.value.column == "verdict_strength" and e.value.row == 1
