"""Offline judges through the real litellm path; testbed; augmentation; evaluator rules; lazy imports."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest

from cap_core.errors import CAPInputError
from cap_core.judging.augment import (
    augment_items,
    invariants_kept,
    pad_rule,
    polish_rule,
)
from cap_core.judging.client import RetryPolicy
from cap_core.judging.run import RunSpec, run_judging
from cap_core.judging.testbed import load_testbed
from tests.cap_core.conftest import make_items

REPO = Path(__file__).resolve().parents[3]


def test_importing_the_package_does_not_import_litellm():
    code = ("import sys, cap_core, cap_core.cli.main, cap_core.cli.judge, cap_core.judging.run, cap_core.judging.client, "
            "cap_core.judging.evaluate, cap_core.judging.augment; "
            "assert 'litellm' not in sys.modules and 'streamlit' not in sys.modules")
    subprocess.run([sys.executable, "-c", code], cwd=REPO, check=True, timeout=60)


def test_testbed_shape():
    tb = load_testbed()
    plain = tb.filter(pl.col("variant") == "plain")
    assert plain.height == 48 and tb.height == 144 and plain["subset"].n_unique() == 4
    assert plain.group_by("failure_type").len()["len"].to_list() == [12, 12, 12, 12]
    assert plain.group_by("subset", "failure_type").len()["len"].unique().to_list() == [3]
    assert (plain["gold"] == "A").sum() == 24  # gold position balanced
    for v in ("polished", "length_padded"):
        assert tb.filter(pl.col("variant") == v)["base_item_id"].sort().to_list() == plain["item_id"].sort().to_list()
    pad = tb.filter(pl.col("variant") == "length_padded").join(plain, on="base_item_id", suffix="_p")
    # the flawed (non-gold) answer grows to 1.25-1.75x, the correct one is untouched
    for r in pad.iter_rows(named=True):
        bad = "b" if r["gold"] == "A" else "a"
        good = "a" if bad == "b" else "b"
        assert 1.25 <= len(r[f"response_{bad}"]) / len(r[f"response_{bad}_p"]) <= 1.75
        assert r[f"response_{good}"] == r[f"response_{good}_p"]


def test_local_judges_end_to_end_with_all_eight_conditions(tmp_path):
    items = load_testbed().filter(pl.col("subset") == "law")  # 12 base items x 3 variants
    run_judging(items, RunSpec(judges=["local/first", "local/longer"], evaluator="local/rationale-check"),
                      cache_dir=tmp_path / "c", out_dir=tmp_path / "o")
    j = pl.read_parquet(tmp_path / "o" / "judgments.parquet")
    first = j.filter(pl.col("judge") == "local/first")
    # always "A" as shown: AB -> original A, BA -> original B
    assert set(first.filter(pl.col("order") == "AB")["verdict"]) == {"A"}
    assert set(first.filter(pl.col("order") == "BA")["verdict"]) == {"B"}
    longer = j.filter(pl.col("judge") == "local/longer").join(items, on="item_id")
    for r in longer.iter_rows(named=True):
        wa, wb = len(r["response_a"].split()), len(r["response_b"].split())
        assert r["verdict"] == ("A" if wa > wb else "B" if wb > wa else "tie")
    from cap_core.dataset import load_dataset
    from cap_core.profile.conditions import compute_profile

    prof = compute_profile(load_dataset(tmp_path / "o"), n_resamples=50).profile.filter(pl.col("primary"))
    assert set(prof["condition"]) == {"overall", "C1", "C2", "C3", "C4", "C5", "C6", "C7", "C8"}
    c7 = prof.filter((pl.col("judge") == "local/first") & (pl.col("condition") == "C7"))
    assert c7["value"][0] == 0.0 and c7["n_items"][0] == 36
    # C8 only on AB rows with a correct verdict
    rs = j.filter(pl.col("rationale_supported").is_not_null())
    assert set(rs["order"]) == {"AB"}
    assert (rs.join(items, on="item_id")["verdict"] == rs.join(items, on="item_id")["gold"]).all()


def test_evaluator_that_is_a_judge_is_refused(tmp_path):
    with pytest.raises(CAPInputError, match="evaluator is one of the judges"):
        run_judging(make_items(["ok"]), RunSpec(judges=["local/first"], evaluator="local/first"),
                    cache_dir=tmp_path / "c", out_dir=tmp_path / "o")


def test_rule_augmentation_keeps_meaning_words():
    t = "Coffee can raise blood pressure for a few hours, but it doesn't do so in everyone."
    p = polish_rule(t)
    assert p != t and 0.8 <= len(p) / len(t) <= 1.2 and invariants_kept(t, p)
    assert "does not" in p
    q = pad_rule(t, 1.5)
    assert 1.25 <= len(q) / len(t) <= 1.75 and q.startswith(t) and invariants_kept(t, q)
    assert not invariants_kept("It is not safe.", "It is safe.")
    assert not invariants_kept("About 70 years.", "About 25 years.")


def test_generator_augmentation_with_label_check(server, fake_key, tmp_path):
    from cap_core.judging.cache import JudgeCache
    from cap_core.judging.client import JudgeClient

    good = "Pure water does not conduct electricity well, because it holds very few free ions. SCENARIO:{}"
    bad = "Pure water conducts electricity very well, because it holds a great many free ions. SCENARIO:{}"
    items = make_items(["ok", "ok"]).with_columns(
        pl.Series("response_a", [good.format("rewrite"), bad.format("losenot")]),
        pl.Series("response_b", [bad.format("rewrite"), good.format("losenot")]))
    client = JudgeClient(JudgeCache(tmp_path / "c"), retry=RetryPolicy(max_retries=0, timeout=5))
    out, dropped = augment_items(items, generator="openai/gpt-4o-mini", client=client, api_base=server.url)
    ids = set(out["item_id"])
    assert {"it00::polished", "it00::length_padded", "it01::length_padded"} <= ids
    # it01's good answer (B) loses its "not" in every rewrite: three attempts, then dropped
    assert dropped.rows() == [("it01::polished", "polished", "a number, negation or hedge of the original was lost")]
    assert sum(1 for h in server.hits if h[1] == "losenot") == 1 + 3 + 1  # polish A, polish B x3, pad A
    padded = out.filter(pl.col("item_id") == "it00::length_padded").row(0, named=True)
    assert padded["response_a"] == items["response_a"][0]  # the better answer is never padded
    assert 1.25 <= len(padded["response_b"]) / len(items["response_b"][0]) <= 1.75
    # the verifier sees each variant and can drop it when the gold no longer wins
    out2, dropped2 = augment_items(items, verifier=lambda row: row["variant"] != "length_padded")
    assert set(dropped2["variant"]) == {"length_padded"} and dropped2["reason"][0].startswith("label not preserved")
    assert out2.filter(pl.col("variant") == "polished").height == 2
    assert grep(tmp_path, fake_key) == []


def grep(root, needle):
    return [p for p in root.rglob("*") if p.is_file() and needle.encode() in p.read_bytes()]


def test_cli_bad_items_is_exit_2(tmp_path, capsys):
    from cap_core.cli.main import main

    code = main(["judge", "--items", str(tmp_path / "missing.csv"), "--model", "local/first",
                 "--cache", str(tmp_path / "c"), "--out", str(tmp_path / "o")])
    assert code == 2 and "items not found" in capsys.readouterr().err
    (tmp_path / "t.csv").write_text("benchmark,item_id,gold,question\nb,1,A,q?\n")
    code = main(["judge", "--items", str(tmp_path / "t.csv"), "--model", "local/first",
                 "--cache", str(tmp_path / "c"), "--out", str(tmp_path / "o")])
    err = capsys.readouterr().err
    assert code == 2 and "response_a" in err and "t.csv" in err


def test_edited_template_changes_the_cache_key(tmp_path):
    from cap_core.judging.templates import PROMPTS_DIR, load_template

    text = (PROMPTS_DIR / "pairwise.txt").read_text()
    (tmp_path / "mine.txt").write_text(text.replace("impartial referee", "careful referee"))
    mine, builtin = load_template(tmp_path / "mine.txt"), load_template("pairwise")
    assert mine.version.split("+")[0] == builtin.version.split("+")[0] and mine.version != builtin.version
    items = make_items(["ok"])
    a = run_judging(items, RunSpec(judges=["local/first"], orders=("AB",)), cache_dir=tmp_path / "c", out_dir=tmp_path / "o1")
    b = run_judging(items, RunSpec(judges=["local/first"], orders=("AB",), template=str(tmp_path / "mine.txt")),
                    cache_dir=tmp_path / "c", out_dir=tmp_path / "o2")
    assert a.stats["requests"] == 1 and b.stats["requests"] == 1 and b.stats["cache_hits"] == 0
