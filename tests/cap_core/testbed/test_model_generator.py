"""The model generator and the subtlety judge against a local OpenAI-compatible server whose replies are
scripted: rows, regeneration counts and ``low_quality`` flags as derived by hand from the script."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import polars as pl
import pytest

from cap_core.cli.main import main
from tests.cap_core.testbed.scripted_server import ScriptedServer

GEN, JUDGE = "openai/gen-model", "openai/judge-model"

Q1, A1 = ("How long should adults sleep each night?",
          "Most adults need seven to nine hours of sleep each night, and regular short sleep raises the risk of "
          "heart disease.")
Q2, A2 = ("Why is the sky blue?",
          "The sky looks blue because air molecules scatter short blue wavelengths of sunlight much more strongly "
          "than long red ones.")
Q3, A3 = ("What does the liver do?",
          "The liver filters toxins from the blood, stores glycogen and makes bile, which helps the body digest fats.")
Q4, A4 = ("How do vaccines work?",
          "Vaccines train the immune system to recognise a germ by showing it a harmless piece or weakened form, so "
          "it can respond faster later.")
Q5, A5 = ("What is the boiling point of water at sea level?",
          "At sea level pure water boils at 100 degrees Celsius, and at higher altitudes it boils at a lower "
          "temperature.")

# per question, the flawed answer of attempt 1, 2, 3, 4 (seed = attempt) and the subtlety of each
F1 = [A1.replace("seven to nine", x) for x in ("four to five", "five to six", "three to four", "ten to twelve")]
F2 = [A2.replace("short blue", "long red").replace("than long red", "than short blue")]
F3 = [A3, "Bananas are rich in potassium and grow best in warm tropical climates.",
      A3 + " It also pumps blood around the body.", A3.replace("makes bile", "makes insulin")]
F5 = [A5.replace("100", "90"), A5.replace("100", "110")]
SCORES = {F1[0]: 2, F1[1]: 3, F1[2]: 3, F1[3]: 1, F2[0]: 5, F3[3]: 4, F5[0]: 3, F5[1]: 4}


def _write_questions(path: Path, rows: list[tuple[str, str]], domain: str = "general") -> Path:
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["id", "domain", "question", "answer"])
        for k, (q, a) in enumerate(rows, start=1):
            w.writerow([f"q{k}", domain, q, a])
    return path


@pytest.fixture
def gate_server():
    flaws = {Q1: F1, Q2: [("fenced", "Here it is:\n```json\n" + json.dumps({"flawed_answer": F2[0], "error_note":
                                                                           "reverses which colours scatter more"})
                            + "\n```")], Q3: F3, Q4: [A4] * 4, Q5: F5}
    srv = ScriptedServer(flaws=flaws, scores=SCORES)
    yield srv
    srv.close()


def test_gate_regenerations_checks_and_low_quality_exactly(gate_server, tmp_path, capsys, fake_key):
    srv = gate_server
    src = _write_questions(tmp_path / "q.csv", [(Q1, A1), (Q2, A2), (Q3, A3), (Q4, A4), (Q5, A5)])
    out, cache = tmp_path / "tb", tmp_path / "cache"
    args = ["testbed", "build", str(src), "--generator", GEN, "--subtlety-judge", JUDGE, "--api-base", srv.url,
            "--hard", "0", "--rewriter", "rules", "--cache", str(cache), "--out", str(out)]
    assert main(args) == 0
    err = capsys.readouterr().err
    # flawing: Q1 4 attempts, Q2 1, Q3 4, Q4 4, Q5 2 = 15; scoring: Q1 4, Q2 1, Q3 1 (3 rejected), Q4 0, Q5 2 = 8
    assert len(srv.stages("flaw")) == 15 and len(srv.stages("subtlety")) == 8 and srv.count() == 23
    assert err.startswith("estimate: 10-40 calls (0 of the first round cached)")  # printed before any call
    assert {s[3] for s in srv.stages("flaw")} == {1.0} and {s[3] for s in srv.stages("subtlety")} == {0.0}
    assert [s[4] for s in srv.stages("flaw") if s[1] == Q1] == [1, 2, 3, 4]  # each regeneration a new request
    pairs = pl.read_parquet(out / "pairs.parquet").sort("base_item_id")
    got = {r["base_item_id"]: r for r in pairs.iter_rows(named=True)}
    assert sorted(got) == ["q1", "q2", "q3", "q5"]  # q4 never got past the checks
    # types dealt in order (one domain): q1 factual, q2 logical, q3 overclaim, q4 omission, q5 factual;
    # gold alternates per type over the kept pairs: q1 A, q5 B, q2 A, q3 A
    expect = {  # flawed, subtlety, attempts, kept attempt, low_quality, type, gold
        "q1": (F1[1], 3, 4, 2, True, "factual_fabrication", "A"),
        "q2": (F2[0], 5, 1, 1, False, "logical_reversal", "A"),
        "q3": (F3[3], 4, 4, 4, False, "overclaim", "A"),
        "q5": (F5[1], 4, 2, 2, False, "factual_fabrication", "B"),
    }
    for i, (flawed, sub, n, kept, low, ftype, gold) in expect.items():
        r = got[i]
        assert (r["flawed"], r["subtlety"], r["attempts"], r["kept_attempt"]) == (flawed, sub, n, kept), i
        assert (r["flags"] == "low_quality") is low and r["failure_type"] == ftype and r["gold"] == gold
        assert r["generator"] == GEN and r["temperature"] == 1.0 and r["seed"] == kept
        assert r["template_version"].startswith(f"testbed-flaw-{ftype.split('_')[0]}-1+")
        assert r["correct"] == {"q1": A1, "q2": A2, "q3": A3, "q5": A5}[i] and not r["expanded"]
    assert got["q2"]["error_note"] == "reverses which colours scatter more"  # read from the fenced JSON
    att = pl.read_parquet(out / "attempts.parquet").filter(pl.col("stage") == "flaw")
    q1 = att.filter(pl.col("base_item_id") == "q1").sort("attempt")
    assert q1["status"].to_list() == ["passed", "kept", "passed", "passed"] and q1["subtlety"].to_list() == [2, 3, 3, 1]
    q3 = att.filter(pl.col("base_item_id") == "q3").sort("attempt")
    assert q3["status"].to_list() == ["rejected", "rejected", "rejected", "kept"]
    reasons = q3["reason"].to_list()
    assert reasons[0] == "unchanged: the flawed answer is the correct answer"
    assert reasons[1].startswith("off the question") and reasons[2] == "contains the correct answer verbatim"
    dropped = pl.read_csv(out / "dropped.csv")
    assert dropped.select("base_item_id", "stage").rows() == [("q4", "flaw")]
    assert dropped["reason"][0] == ("no flawed answer passed the checks in 4 attempts: unchanged: the flawed "
                                    "answer is the correct answer")
    # every attempt's cost is kept: 1000 + 100 tokens per call, subtlety added to the scored attempts
    assert att.filter(pl.col("subtlety").is_not_null())["tokens"].to_list() == [2200] * 8
    # the run is resumable: the same command again sends nothing and builds the same pairs
    assert main(args) == 0
    assert srv.count() == 23
    again = pl.read_parquet(out / "pairs.parquet").sort("base_item_id")
    assert again.drop("cost_usd").equals(pairs.drop("cost_usd"))
    # the key and the endpoint are in no file of the testbed or the cache
    for root in (out, cache):
        for f in root.rglob("*"):
            if f.is_file():
                data = f.read_bytes()
                assert fake_key.encode() not in data and srv.url.split("//")[1].encode() not in data, f


def test_expansion_hardening_variants_and_temperatures(tmp_path, capsys):
    short_q, short_a = "What vitamin deficiency causes scurvy?", "Vitamin C"
    expansion = ("Scurvy is caused by a lack of vitamin C, which the body needs to make collagen for skin, gums "
                 "and blood vessels.")
    flawed_short = expansion.replace("collagen", "keratin")
    flawed_2 = A5.replace("100", "90")
    hardened_a = expansion.replace("blood vessels", "blod vessels")
    srv = ScriptedServer(
        expansions={short_q: ["Vitamin C.", expansion]},
        flaws={short_q: [flawed_short], Q5: [flawed_2]},
        hardens={short_q: {"answer_a": hardened_a, "answer_b": flawed_short + " Citrus fruit is rich in vitamin C.",
                           "a_flaw": "a typo in 'blood'", "b_added": "citrus fruit sentence"},
                 Q5: {"answer_a": A5.replace("Celsius", "Celcius"), "answer_b": "At sea level water boils at a lower "
                      "temperature than at altitude.", "a_flaw": "typo", "b_added": "none"}},
        scores={flawed_short: 5, flawed_2: 5, flawed_short + " Citrus fruit is rich in vitamin C.": 5})
    try:
        src = _write_questions(tmp_path / "q.csv", [(short_q, short_a), (Q5, A5)])
        out = tmp_path / "tb"
        assert main(["testbed", "build", str(src), "--generator", GEN, "--subtlety-judge", JUDGE, "--api-base",
                     srv.url, "--hard", "2", "--cache", str(tmp_path / "c"), "--out", str(out)]) == 0
        temps = {stage: {s[3] for s in srv.seen if s[0] == stage} for stage in ("expand", "flaw", "subtlety",
                                                                                 "harden", "rewrite")}
        # CAP App. A.3 / A.5: expansion 0.7, flawing 1.0, scoring 0, hardening 0.8; variants as augmentation (0.3)
        assert temps == {"expand": {0.7}, "flaw": {1.0}, "subtlety": {0.0}, "harden": {0.8}, "rewrite": {0.3}}
        # the short answer needed two expansion attempts (the first is under 50 characters); Q5 none
        assert [s[4] for s in srv.stages("expand")] == [1, 2] and {s[1] for s in srv.stages("expand")} == {short_q}
        pairs = pl.read_parquet(out / "pairs.parquet")
        plain = {r["base_item_id"]: r for r in pairs.filter(pl.col("kind") == "plain").iter_rows(named=True)}
        assert plain["q1"]["correct"] == expansion and plain["q1"]["expanded"] and plain["q1"]["answer_given"] == \
            short_a
        att = pl.read_parquet(out / "attempts.parquet").filter(pl.col("stage") == "expand").sort("attempt")
        assert att["status"].to_list() == ["rejected", "kept"]
        assert att["reason"][0] == "expansion shorter than 50 characters"
        # hardening: q1 kept (rated 5); q2's answer B lost the planted 90, so it is not hard
        hard = pairs.filter(pl.col("kind") == "hard")
        assert hard["base_item_id"].to_list() == ["q1"] and hard["correct"][0] == hardened_a
        assert hard["subtlety"][0] == 5 and hard["flags"][0] == "hard_constructed"
        drop = pl.read_csv(out / "dropped.csv")
        assert drop.select("base_item_id", "stage").rows() == [("q2", "harden")]
        assert drop["reason"][0].startswith("the planted error did not survive")
        # variants by the generator model, checked for label preservation
        items = pl.read_parquet(out / "run_items.parquet")
        assert sorted(items.filter(pl.col("benchmark") == "q")["variant"].to_list()) == \
            ["length_padded", "length_padded", "plain", "plain", "polished", "polished"]
        assert len(srv.stages("rewrite")) == 6  # 2 polished answers + 1 padded answer per pair
    finally:
        srv.close()


def test_dry_run_and_budgets_count_every_failed_call(tmp_path, capsys):
    srv = ScriptedServer()
    try:
        src = _write_questions(tmp_path / "q.csv", [(Q1, A1), (Q2, A2), (Q3, A3), (Q4, A4), (Q5, A5)])
        out = tmp_path / "tb"
        base = ["testbed", "build", str(src), "--generator", "openai/gpt-4o-mini", "--subtlety-judge",
                "openai/gpt-4o-mini", "--api-base", srv.url, "--hard", "0", "--rewriter", "rules",
                "--cache", str(tmp_path / "c"), "--out", str(out), "--concurrency", "1"]
        assert main([*base, "--dry-run"]) == 0
        cap = capsys.readouterr()
        assert cap.err.startswith("estimate: 10-40 calls") and "$" in cap.err
        assert cap.out.startswith("dry run: nothing sent or written") and srv.count() == 0 and not out.exists()
        # a dollar budget below the fewest calls' cost is refused before any call
        assert main([*base, "--budget-usd", "0.000001"]) == 2
        err = capsys.readouterr().err
        assert "the estimate exceeds the dollar budget" in err and "argument `--budget-usd`" in err
        assert srv.count() == 0 and not out.exists()
        # three requests allowed: the rest fail for the budget, and every one of them is counted
        assert main([*base, "--budget-calls", "3"]) == 0
        err = capsys.readouterr().err
        assert srv.count() == 3
        manifest = json.loads((out / "testbed.json").read_text())
        failed = manifest["stats"]["failed_calls"]
        att = pl.read_parquet(out / "attempts.parquet")
        n_gen_failed = int((att["status"] == "failed").sum())
        n_score_failed = int((att["subtlety"].is_null() & att["status"].is_in(["passed", "kept"])).sum())
        assert failed == {"flaw": n_gen_failed, "subtlety": n_score_failed} and n_gen_failed + n_score_failed > 0
        assert "call budget of 3 exhausted" in manifest["stats"]["failed_reasons"]["flaw"]
        assert f"failed calls: flaw {n_gen_failed}" in err
        # the three answered flaws were never scored: kept, flagged low_quality (subtlety unknown)
        pairs = pl.read_parquet(out / "pairs.parquet")
        assert pairs.height == 3 and (pairs["flags"] == "low_quality").all() and pairs["subtlety"].is_null().all()
        assert set(pl.read_csv(out / "dropped.csv")["base_item_id"]) == {"q4", "q5"}
    finally:
        srv.close()
