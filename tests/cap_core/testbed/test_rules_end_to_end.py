"""``testbed build --generator rules`` on 32 questions of our own, judged by two offline judges with an
offline rationale evaluator, then profiled: every condition C1-C8 measured, each profile value equal to
the hand count over the built texts (the judges' documented rules applied here, not the code's output)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import polars as pl
import pytest

from cap_core.cli.main import main

QUESTIONS = Path(__file__).resolve().parents[2] / "fixtures" / "testbed" / "questions.csv"
BENCH = "questions"
TYPES = {"C1": "factual_fabrication", "C2": "logical_reversal", "C3": "overclaim", "C4": "omission"}


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("tb")
    tb, run, cache = root / "tb", root / "run", root / "cache"
    assert main(["testbed", "build", str(QUESTIONS), "--generator", "rules", "--out", str(tb),
                 "--cache", str(cache)]) == 0
    assert main(["judge", "--items", str(tb), "--model", "local/first", "--model", "local/longer",
                 "--evaluator", "local/rationale-check", "--cache", str(cache), "--out", str(run)]) == 0
    prof = root / "profile.csv"
    assert main(["profile", "--data", str(run), "--bootstrap", "200", "--out", str(prof)]) == 0
    return tb, run, pl.read_csv(prof)


def _words(text: str) -> int:  # local/longer counts whitespace-separated words
    return len(text.split())


def _correct(row: dict) -> str:
    return row["response_a"] if row["gold"] == "A" else row["response_b"]


def _flawed(row: dict) -> str:
    return row["response_b"] if row["gold"] == "A" else row["response_a"]


def _value(prof: pl.DataFrame, judge: str, cond: str) -> dict:
    return prof.filter((pl.col("judge") == judge) & (pl.col("benchmark") == BENCH) & (pl.col("condition") == cond)
                       & pl.col("primary") & (pl.col("subset") == "all")).row(0, named=True)


def _tokens(text: str) -> set[str]:
    """The rationale evaluator's content words: 3+ characters of [a-z0-9-], lower case (none of the
    rationale words counted below is a stop word)."""
    return set(re.findall(r"[a-z0-9][a-z0-9\-]{2,}", text.lower()))


def test_the_folder_holds_a_balanced_testbed(built):
    tb, _, _ = built
    items = pl.read_parquet(tb / "run_items.parquet").filter(pl.col("benchmark") == BENCH)
    questions = pl.read_csv(QUESTIONS)
    plain = items.filter(pl.col("variant") == "plain")
    assert plain.height == questions.height == 32
    # every question once, four types x four domains, two each; gold half A, half B per type
    assert plain.group_by("subset", "failure_type").len()["len"].to_list() == [2] * 16
    assert sorted(plain.group_by("failure_type", "gold").len()["len"].to_list()) == [4] * 8
    answers = dict(zip(questions["id"], questions["answer"]))
    for row in plain.iter_rows(named=True):
        assert _correct(row) == answers[row["item_id"]]  # the gold is the correct answer, untouched
        assert _flawed(row) != _correct(row) and row["error_note"]
    # polished: both answers rewritten; padded: the flawed answer only, about 1.5x
    for kind in ("polished", "length_padded"):
        var = items.filter(pl.col("variant") == kind)
        assert var.height == 32 and set(var["base_item_id"]) == set(plain["item_id"])
    by = {r["item_id"]: r for r in plain.iter_rows(named=True)}
    for row in items.filter(pl.col("variant") == "length_padded").iter_rows(named=True):
        base = by[row["base_item_id"]]
        assert _correct(row) == _correct(base)
        assert 1.25 <= len(_flawed(row)) / len(_flawed(base)) <= 1.75
    manifest = json.loads((tb / "testbed.json").read_text())
    assert manifest["slices"] == [{"benchmark": BENCH, "generator": "rules"}]
    assert manifest["stats"]["requests"] == 0 and manifest["settings"]["api_base_set"] is False
    assert pl.read_csv(tb / "variants.csv")["kept"].all()
    for row in items.filter(pl.col("variant") != "plain").iter_rows(named=True):  # no variant is its plain item
        base = plain.filter(pl.col("item_id") == row["base_item_id"]).row(0, named=True)
        assert (row["response_a"], row["response_b"]) != (base["response_a"], base["response_b"])


def test_every_condition_is_measured_directly(built):
    _, _, prof = built
    main_rows = prof.filter((pl.col("benchmark") == BENCH) & pl.col("primary") & (pl.col("condition") != "overall"))
    for judge in ("local/first", "local/longer"):
        rows = main_rows.filter(pl.col("judge") == judge)
        assert sorted(rows["condition"]) == [f"C{k}" for k in range(1, 9)]
        assert set(rows["status"]) == {"direct"} and rows["value"].is_not_null().all()
    for cond in TYPES:
        assert _value(prof, "local/first", cond)["n_items"] >= 5


def test_profile_values_equal_hand_counts(built):
    tb, _, prof = built
    items = pl.read_parquet(tb / "run_items.parquet").filter(pl.col("benchmark") == BENCH)
    rows = list(items.iter_rows(named=True))
    plain = [r for r in rows if r["variant"] == "plain"]
    longer_right = {r["item_id"]: _words(_correct(r)) > _words(_flawed(r)) for r in rows}
    # local/first answers A in the order shown: right in AB on gold A, in BA on gold B -> one of two per item
    for cond, t in TYPES.items():
        of_type = [r for r in plain if r["failure_type"] == t]
        assert _value(prof, "local/first", cond)["value"] == pytest.approx(50.0)
        hand = 100.0 * sum(longer_right[r["item_id"]] for r in of_type) / len(of_type)
        assert _value(prof, "local/longer", cond)["value"] == pytest.approx(hand)
    assert _value(prof, "local/first", "C7")["value"] == 0.0
    assert _value(prof, "local/longer", "C7")["value"] == pytest.approx(100.0 * sum(longer_right.values()) / len(rows))
    # C5 / C6: the base counts when plain and variant are both right (local/longer ignores the order)
    for cond, kind in (("C5", "polished"), ("C6", "length_padded")):
        hand = 100.0 * sum(longer_right[r["item_id"]] and longer_right[f"{r['item_id']}::{kind}"] for r in plain) / 32
        assert _value(prof, "local/longer", cond)["value"] == pytest.approx(hand)
        assert _value(prof, "local/first", cond)["value"] == pytest.approx(50.0)
    # the omission rule shortens the flawed answer: local/longer is always right there, never on the others
    assert _value(prof, "local/longer", "C4")["value"] == 100.0 and _value(prof, "local/longer", "C1")["value"] == 0.0
    # C8: rationales of correct AB verdicts; supported when a word of the rationale is in one answer only
    first_words = {"answer", "taken", "better"}  # "Answer A is taken as the better answer."
    longer_words = {"answer", "has", "words", "longer", "taken", "complete", "one"}
    for judge, words, right_ab in (("local/first", first_words, lambda r: r["gold"] == "A"),
                                   ("local/longer", longer_words, lambda r: longer_right[r["item_id"]])):
        ab_right = [r for r in rows if right_ab(r)]
        supported = [r for r in ab_right if words & (_tokens(r["response_a"]) ^ _tokens(r["response_b"]))]
        got = _value(prof, judge, "C8")
        assert got["n_items"] == len(ab_right)
        assert got["value"] == pytest.approx(100.0 * len(supported) / len(ab_right))


def test_show_counts_and_the_hard_constructed_subset(built, capsys, tmp_path):
    tb, run, _ = built
    assert main(["testbed", "show", str(tb), "--counts-out", str(tmp_path / "counts.csv")]) == 0
    out = capsys.readouterr().out
    assert "error type: factual_fabrication 8, logical_reversal 8, omission 8, overclaim 8" in out
    assert "domain: finance 8, health 8, law 8, science 8" in out and "review: pending 32" in out
    hard = pl.read_csv(tb / "hard_constructed.csv")
    pairs = pl.read_parquet(tb / "pairs.parquet").filter(pl.col("kind") == "hard")
    assert hard["item_id"].to_list() == pairs["base_item_id"].to_list() and hard.height >= 4
    assert set(hard["benchmark"]) == {f"{BENCH}-hard"}
    # the Hard-Constructed subset profiles without a hand list
    prof = tmp_path / "hard.csv"
    assert main(["hard", "--data", str(run), "--benchmark", f"{BENCH}-hard", "--construction",
                 str(tb / "hard_constructed.csv"), "--bootstrap", "100", "--out", str(prof)]) == 0
    said = capsys.readouterr().out
    assert f"hard-constructed ({hard.height} of {hard.height} items)" in said
    # finding 12: the list names the -hard benchmark's items; the originals of the same ids are not hard
    assert main(["hard", "--data", str(run), "--benchmark", BENCH, "--construction", str(tb / "hard_constructed.csv"),
                 "--bootstrap", "100", "--out", str(tmp_path / "wrong.csv")]) == 2
    err = capsys.readouterr().err
    assert f"the construction names items of {BENCH}-hard, not of {BENCH}" in err and "--benchmark" in err
    assert not (tmp_path / "wrong.csv").exists()
    hp = pl.read_csv(prof).filter((pl.col("judge") == "local/first") & (pl.col("condition") == "C7")
                                  & pl.col("primary"))
    assert set(hp["subset"]) == {"hard_constructed"} and hp["value"].to_list() == [0.0]
    # each hardened pair: the correct answer carries a typo, the flawed one gained a true statement
    base = pl.read_parquet(tb / "pairs.parquet").filter(pl.col("kind") == "plain")
    for p in pairs.iter_rows(named=True):
        b = base.filter(pl.col("base_item_id") == p["base_item_id"]).row(0, named=True)
        assert p["correct"] != b["correct"] and p["flawed"].startswith(b["flawed"])
        assert p["a_flaw"].startswith("a typo") and p["flags"] == "hard_constructed"


def test_evaluate_reads_the_testbed_folder_as_a_benchmark(built, tmp_path):
    tb, _, _ = built
    out = tmp_path / "ev"
    assert main(["evaluate", "--benchmark", "testbed", "--source", str(tb), "--model", "local/first", "--limit", "2",
                 "--cache", str(tmp_path / "cache"), "--out", str(out)]) == 0
    judg = pl.read_parquet(out / "judgments.parquet")
    items = pl.read_parquet(tb / "run_items.parquet")
    # the first 2 base items of each benchmark, every variant, both orders; no published judges beside
    first = items.group_by("benchmark", maintain_order=True).agg(pl.col("base_item_id").unique(maintain_order=True)
                                                                  .head(2))
    chosen = items.join(first.explode("base_item_id"), on=["benchmark", "base_item_id"])
    assert judg.height == 2 * chosen.height and set(judg["judge"]) == {"local/first"}
    decl = pl.read_parquet(out / "declarations.parquet")
    assert decl.filter(pl.col("status") == "augmented").height == 0  # the variants are part of the construction


def test_evaluate_refuses_to_augment_a_testbed_before_any_call(built, tmp_path, capsys):
    """Finding 15: the folder's items already have their variants; augmenting made every variant twice (560
    calls, then duplicate ids and a half-written run)."""
    tb, _, _ = built
    out = tmp_path / "ev"
    assert main(["evaluate", "--benchmark", "testbed", "--source", str(tb), "--model", "local/first", "--augment",
                 "--cache", str(tmp_path / "cache"), "--out", str(out)]) == 2
    cap = capsys.readouterr()
    assert "the items already have presentation variants [argument `--augment`]" in cap.err
    assert "length_padded, polished" in cap.err and not cap.err.startswith("estimate")
    assert not out.exists() and not (tmp_path / "cache").exists()  # nothing sent, nothing written
