"""One item-level core: verdict_rows' flags by hand and from the raw JudgeBench files, every analysis
agreeing with them, and a changed tie rule reaching every analysis from one place."""

from __future__ import annotations

import json

import numpy as np
import polars as pl
import pytest

from cap_core import load_dataset, verdicts
from cap_core.analyses.bias_correction import position_parameters
from cap_core.analyses.hard_subsets import hard_empirical_items
from cap_core.cascades.agreement import LABEL, agreement_matrix, repeated_errors
from cap_core.cascades.judge_confidence import item_frame
from cap_core.cascades.jury import jury_comparison
from cap_core.dataset import Dataset
from cap_core.errors import CAPInputError
from cap_core.profile.conditions import compute_profile
from cap_core.verdicts import FLAGS, VERDICT_ROWS_SCHEMA, verdict_rows

GOLD = {"i1": "A", "i2": "B", "i3": "A", "i4": "B"}
# Verdicts in the ORIGINAL letters (a BA verdict "A" = the judge preferred the response first shown as A).
# None = no judgment row (J3 was never asked i1 in the BA order).
V = {
    "J1": {"AB": ["A", "tie", "A", "B"], "BA": ["A", "B", "tie", "unparsed"]},
    "J2": {"AB": ["B", "B", "A", "tie"], "BA": ["A", "B", "B", "B"]},
    "J3": {"AB": ["A", "A", "tie", "B"], "BA": [None, "B", "A", "A"]},
}


def _ds(verdict_map=V) -> Dataset:
    items = pl.DataFrame({"benchmark": "t", "item_id": list(GOLD), "gold": list(GOLD.values())})
    rows = [{"judge": j, "benchmark": "t", "item_id": i, "order": o, "verdict": v}
            for j, by in verdict_map.items() for o, vs in by.items() for i, v in zip(GOLD, vs) if v is not None]
    return Dataset.build(items, pl.DataFrame(rows))


def test_flags_by_hand():
    rows = verdict_rows(_ds())
    assert rows.schema == pl.Schema(VERDICT_ROWS_SCHEMA)
    # 3 judges x 4 items x 2 orders: J3's absent (i1, BA) is a row, flagged missing
    assert rows.height == 24
    got = {(r["judge"], r["item_id"], r["order"]): tuple(r[f] for f in FLAGS) for r in rows.iter_rows(named=True)}
    #                        correct tie    unparsed missing excluded
    assert got[("J1", "i1", "BA")] == (True, False, False, False, False)   # BA "A", gold A: original letters
    assert got[("J1", "i2", "AB")] == (False, True, False, False, True)    # a tie is never correct
    assert got[("J1", "i4", "BA")] == (False, False, True, False, True)    # unparsed
    assert got[("J2", "i1", "AB")] == (False, False, False, False, False)  # wrong letter: not excluded
    assert got[("J3", "i1", "BA")] == (False, False, False, True, True)    # missing
    assert rows.filter(pl.col("missing"))["verdict"].to_list() == [None]
    # correct: J1 3 (AB) + 2 (BA), J2 2 + 3, J3 2 + 2
    assert rows["correct"].sum() == 14 and rows["tie"].sum() == 4 and rows["unparsed"].sum() == 1
    # exactly one of: correct, tie, unparsed, missing, a wrong A/B letter
    wrong = rows["verdict"].is_in(["A", "B"]).fill_null(False) & ~rows["correct"]
    assert (rows.select(pl.sum_horizontal(["correct", "tie", "unparsed", "missing"])).to_series()
            + wrong.cast(pl.UInt32)).to_list() == [1] * 24
    assert rows.select("judge", "item_id", "order").rows() == sorted(rows.select("judge", "item_id", "order").rows())


def test_expected_orders_follow_the_requested_judges():
    only_ab = {"K": {"AB": ["A", "A", "A", "A"]}, "J1": V["J1"]}
    ds = _ds(only_ab)
    # alone, K is held to its own (AB) order; next to J1 its BA verdicts are missing
    assert verdict_rows(ds, judges=["K"])["order"].unique().to_list() == ["AB"]
    both = verdict_rows(ds).filter(pl.col("judge") == "K")
    assert both.height == 8 and both.filter(pl.col("order") == "BA")["missing"].all()
    rs = verdict_rows(ds, judges=["K"], carry=("confidence",))
    assert rs.columns[-1] == "confidence" and rs["confidence"].null_count() == 4


def test_bad_arguments_name_the_argument():
    with pytest.raises(CAPInputError, match="unknown judge") as e:
        verdict_rows(_ds(), judges=["nobody"])
    assert e.value.argument == "judges"
    with pytest.raises(CAPInputError, match="unknown benchmark"):
        verdict_rows(_ds(), benchmarks=["x"])
    with pytest.raises(CAPInputError, match="cannot carry"):
        verdict_rows(_ds(), carry=("verdict",))
    with pytest.raises(CAPInputError, match="needs a Dataset"):
        verdict_rows("data/default")


def test_every_analysis_uses_the_rule_by_hand():
    ds = _ds()
    prof = compute_profile(ds, n_resamples=50, seed=0).profile.filter(pl.col("condition") == "overall")
    pa = dict(zip(prof["judge"], prof["value"]))
    ex = dict(zip(prof["judge"], prof["n_excluded"]))
    # per-item pa: J1 1, .5, .5, .5; J2 .5, 1, .5, .5; J3 (i1 BA missing) .5 each
    assert pa == pytest.approx({"J1": 62.5, "J2": 62.5, "J3": 50.0})
    assert ex == {"J1": 3, "J2": 1, "J3": 2}
    assert item_frame(ds, "t", "J1")["correct"].to_list() == [1.0, 0.5, 0.5, 0.5]
    q = position_parameters(ds, "t").row(0, named=True)  # J1: gold first i1 AB, i3 AB, i2 BA, i4 BA
    assert (q["q1"], q["q0"]) == (0.75, 0.5)
    hard = hard_empirical_items(ds, "t", ["J1", "J2"])[0]
    assert hard["item_id"].to_list() == ["i1", "i2", "i4"]  # J1 tie on i2; J2 wrong on i1, tie on i4
    cell = agreement_matrix(ds, "t", ["J1"]).filter((pl.col("row") == "J1") & (pl.col("col") == LABEL))
    assert cell["agreement"].item() == pytest.approx(100 * 5 / 8)
    jury = jury_comparison(ds, "t", ["J1", "J2", "J3"], n_resamples=50)
    # units: i2..i4 in both orders (J3 lacks i1 BA); majority tie on i2 AB, i3 BA, i4 BA -> 3 of 6
    assert dict(zip(jury["entry"], jury["accuracy"])) == pytest.approx(
        {"J1": 50.0, "J2": 100 * 4 / 6, "J3": 50.0, "majority of 3": 50.0})


def _tie_is_correct(original):
    def rule(verdict="verdict", gold="gold"):
        f = {e.meta.output_name(): e for e in original(verdict, gold)}
        return [(f["correct"] | f["tie"]).alias("correct"), f["tie"], f["unparsed"], f["missing"],
                (f["excluded"] & ~f["tie"]).alias("excluded")]
    return rule


def test_changing_the_tie_rule_in_one_place_moves_every_analysis(monkeypatch):
    """The hand values above, recomputed under a hypothetical rule "a tie is correct" patched into
    cap_core.verdicts only: every analysis follows, so the rule has one home."""
    monkeypatch.setattr(verdicts, "verdict_flags", _tie_is_correct(verdicts.verdict_flags))
    ds = _ds()
    prof = compute_profile(ds, n_resamples=50, seed=0).profile.filter(pl.col("condition") == "overall")
    # J1 1, 1, 1, .5; J2 .5, 1, .5, 1; J3 .5, .5, 1, .5
    assert dict(zip(prof["judge"], prof["value"])) == pytest.approx({"J1": 87.5, "J2": 75.0, "J3": 62.5})
    assert dict(zip(prof["judge"], prof["n_excluded"])) == {"J1": 1, "J2": 0, "J3": 1}
    assert item_frame(ds, "t", "J1")["correct"].to_list() == [1.0, 1.0, 1.0, 0.5]
    q = position_parameters(ds, "t").row(0, named=True)
    assert (q["q1"], q["q0"]) == (0.75, 1.0)
    assert hard_empirical_items(ds, "t", ["J1", "J2"])[0]["item_id"].to_list() == ["i1"]
    cell = agreement_matrix(ds, "t", ["J1"]).filter((pl.col("row") == "J1") & (pl.col("col") == LABEL))
    assert cell["agreement"].item() == pytest.approx(100 * 7 / 8)
    jury = jury_comparison(ds, "t", ["J1", "J2", "J3"], n_resamples=50)
    # the jury's own tie verdicts are scored by the patched rule too
    assert dict(zip(jury["entry"], jury["accuracy"])) == pytest.approx(
        {"J1": 100 * 5 / 6, "J2": 100 * 5 / 6, "J3": 100 * 4 / 6, "majority of 3": 100.0})


# ---- real JudgeBench data: the flags from a plain loop over the raw files, and every analysis agreeing

_DECISION = {"A>>B": "A", "A>B": "A", "A=B": "tie", "B>A": "B", "B>>A": "B"}
_SWAP = {"A": "B", "B": "A", "tie": "tie", "unparsed": "unparsed"}


def _raw_verdicts(path, rubric: bool) -> dict[tuple[str, str], str]:
    """(pair_id, order) -> verdict in the original letters, read with a plain loop."""
    out = {}
    for line in open(path):
        rec = json.loads(line)
        for order, entry in zip(("AB", "BA"), rec["judgments"]):
            j = entry.get("judgment") or {}
            sa, sb = j.get("score_A"), j.get("score_B")
            if rubric and not (sa is None and sb is None):
                ok = all(isinstance(s, (int, float)) and s >= 0 for s in (sa, sb))
                v = "unparsed" if not ok else ("A" if sa > sb else "B" if sb > sa else "tie")
            else:
                v = _DECISION.get(str(entry.get("decision")), "unparsed")
            out[(rec["pair_id"], order)] = v if order == "AB" else _SWAP[v]
    return out


@pytest.fixture(scope="module")
def jb(default_data_dir):
    return load_dataset(default_data_dir).select(benchmarks=["judgebench"])


def test_flags_match_the_raw_judgebench_files(shared_dir, jb):
    root = shared_dir / "data" / "judgebench"
    gold = {}
    for line in open(next((root / "data").glob("*gpt-4o*.jsonl"))):
        r = json.loads(line)
        gold[r["pair_id"]] = {"A>B": "A", "B>A": "B"}[r["label"]]
    files = {"o1-mini (arena_hard)": (next((root / "outputs").glob("*o1-mini*.jsonl")), False),
             "Qwen3-8B (rubric)": (next((shared_dir / "data" / "judgebench_fork_stellalisy" / "outputs")
                                        .glob("*judge_model=Qwen-Qwen3-8B.jsonl")), True)}
    for judge, (path, rubric) in files.items():
        raw = _raw_verdicts(path, rubric)
        rows = verdict_rows(jb, judges=[judge])
        assert rows.height == len(raw) == 2 * len(gold)
        for r in rows.iter_rows(named=True):
            v = raw[(r["item_id"], r["order"])]
            assert r["verdict"] == v
            assert (r["correct"], r["tie"], r["unparsed"], r["missing"]) == (
                v == gold[r["item_id"]], v == "tie", v == "unparsed", False)
    qwen = verdict_rows(jb, judges=["Qwen3-8B (rubric)"])
    assert qwen["tie"].sum() > 100 and qwen["unparsed"].sum() > 10  # the rules are exercised


def test_judge_confidence_correctness_equals_the_flags_on_real_judgebench(jb):
    rows = verdict_rows(jb)
    for judge in jb.judges:
        own = verdict_rows(jb, judges=[judge])
        want = own.group_by("item_id").agg(pl.col("correct").mean()).sort("item_id")
        got = item_frame(jb, "judgebench", judge)
        assert got["item_id"].to_list() == want["item_id"].to_list()
        assert got["correct"].to_list() == want["correct"].to_list()
    # the profile's overall pa and n_excluded are the same flags, averaged over items and orders
    prof = compute_profile(jb, n_resamples=20, seed=0).profile.filter(pl.col("condition") == "overall")
    per = rows.group_by("judge").agg((100 * pl.col("correct").mean()).alias("pa"))
    excl = rows.group_by("judge", "item_id").agg(pl.col("excluded").any()).group_by("judge").agg(
        pl.col("excluded").sum().alias("n"))
    assert dict(zip(prof["judge"], prof["value"])) == pytest.approx(dict(per.iter_rows()))
    assert dict(zip(prof["judge"], prof["n_excluded"])) == dict(excl.iter_rows())


def test_other_analyses_agree_with_the_flags_on_real_judgebench(jb):
    rows = verdict_rows(jb)
    judges = ["Qwen3-8B (rubric)", "Llama-3.1-8B-Instruct (rubric)", "o1-mini (arena_hard)"]
    # bias correction: q over the given judgments
    q = position_parameters(jb, "judgebench").filter(pl.col("judge") == judges[0]).row(0, named=True)
    r = rows.filter((pl.col("judge") == judges[0]) & ~pl.col("missing"))
    first = ((r["order"] == "AB") & (r["gold"] == "A")) | ((r["order"] == "BA") & (r["gold"] == "B"))
    assert q["q1"] == pytest.approx(r["correct"].filter(first).mean())
    assert q["q0"] == pytest.approx(r["correct"].filter(~first).mean())
    # hard subset: items some selector's AB verdict is not correct on
    hard = hard_empirical_items(jb, "judgebench", judges[:2])[0]
    want = sorted(set(rows.filter(pl.col("judge").is_in(judges[:2]) & (pl.col("order") == "AB")
                                  & ~pl.col("correct"))["item_id"].to_list()))
    assert hard["item_id"].to_list() == want
    # jury: every juror's accuracy on the shared units is the mean of its flags
    jury = jury_comparison(jb, "judgebench", judges, n_resamples=20)
    for j in judges:
        assert jury.filter(pl.col("entry") == j)["accuracy"].item() == pytest.approx(
            100 * rows.filter(pl.col("judge") == j)["correct"].mean())
    # agreement with the label and repeated errors count the same wrong verdicts
    m = agreement_matrix(jb, "judgebench", judges[:1])
    assert m.filter(pl.col("col") == LABEL)["agreement"].item() == pytest.approx(
        100 * rows.filter(pl.col("judge") == judges[0])["correct"].mean())
    rep = repeated_errors(jb, "judgebench", judges[0], judges[1:2]).filter(pl.col("errors") == "all")
    assert rep["n_errors"].item() == int((~rows.filter(pl.col("judge") == judges[0])["correct"]).sum())


def test_profile_units_take_their_flags_from_verdict_rows(jb):
    from cap_core.profile.units import load_units, prepare

    items, coded = prepare(jb, jb.judges)
    u, judges, orders = load_units(items[("judgebench",)], coded[("judgebench",)], jb.judges)
    rows = verdict_rows(jb)
    idx = dict(zip(u.items["item_id"], u.items["idx"]))
    for o in orders:
        for k, j in enumerate(judges):
            r = rows.filter((pl.col("judge") == j) & (pl.col("order") == o))
            pos = np.array([idx[i] for i in r["item_id"]])
            assert np.array_equal(u.ok[o][k, pos], r["correct"].to_numpy())
            assert np.array_equal(u.bad[o][k, pos], r["excluded"].to_numpy())
