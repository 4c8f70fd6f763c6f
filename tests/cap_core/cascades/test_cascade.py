"""Cascades, confidence, juries, repeated errors, agreement and graded metrics on hand-computed
fixtures, plus real JudgeBench and PandaLM runs recomputed from the raw files."""

from __future__ import annotations

import json
from bisect import bisect_left, bisect_right
from collections import Counter

import numpy as np
import polars as pl
import pytest

import cap_core.cascades.cascade as cascade
from cap_core.cascades.agreement import LABEL, agreement_matrix, repeated_errors
from cap_core.cascades.graded import best_shift, graded_metrics
from cap_core.cascades.judge_confidence import (
    confidence_auroc,
    error_by_band,
    item_confidence,
    item_frame,
)
from cap_core.cascades.jury import jury_comparison, majority_verdicts, median_levels
from cap_core.dataset import Dataset, load_dataset
from cap_core.errors import CAPInputError

GOLD = {"i1": "A", "i2": "A", "i3": "B", "i4": "B"}
# cheap judge C: scores -> margins 2, 0.5, 4, 1; verdicts A, B, B, A (right, wrong, right, wrong)
C = {"i1": (3.0, 1.0), "i2": (1.0, 1.5), "i3": (0.0, 4.0), "i4": (2.0, 1.0)}
F = {"i1": "B", "i2": "A", "i3": "A", "i4": "B"}  # fallback: wrong, right, wrong, right


def _ds(extra: list[dict] | None = None, items: dict | None = None) -> Dataset:
    items = items or GOLD
    it = pl.DataFrame({"benchmark": "t", "item_id": list(items), "gold": list(items.values())})
    rows = [{"judge": "C", "benchmark": "t", "item_id": i, "order": "AB", "verdict": "A" if a > b else "B",
             "score_a": a, "score_b": b} for i, (a, b) in C.items()]
    rows += [{"judge": "F", "benchmark": "t", "item_id": i, "order": "AB", "verdict": v} for i, v in F.items()]
    rows += extra or []
    return Dataset.build(it, pl.DataFrame(rows))


def _data(ds: Dataset, fb: str = "F") -> cascade.CascadeData:
    return cascade.cascade_data(ds, "t", "C", [fb])


def test_margin_confidence_is_the_mid_rank_on_a_unit_scale():
    conf = dict(item_confidence(_ds(), "t", "C").select("item_id", "confidence").iter_rows())
    # sorted margins 0.5, 1, 2, 4 -> (number smaller + 1/2) / 4
    assert conf == pytest.approx({"i1": 2.5 / 4, "i2": 0.5 / 4, "i3": 3.5 / 4, "i4": 1.5 / 4})


def test_cascade_degenerate_thresholds_equal_the_single_judges_and_midpoints_by_hand():
    d = _data(_ds())
    curve = cascade.cascade_curve(d, taus=np.array([0.0, 0.3, 0.5, 1.0]))
    # tau 0: C alone (1,0,1,0) 50%; tau 1 > max confidence: F alone (0,1,0,1) 50%
    # tau .3 keeps i1,i3,i4 -> 1, F(i2)=1, 1, 0 = 75%; tau .5 keeps i1,i3 -> all right
    assert curve["accuracy"].to_list() == pytest.approx([50.0, 75.0, 100.0, 50.0])
    assert curve["deferral_pct"].to_list() == pytest.approx([0.0, 25.0, 50.0, 100.0])
    full = cascade.cascade_curve(d)
    assert full["tau"][0] == 0 and full["tau"][-1] > d.conf.max()
    assert full["accuracy"][0] == pytest.approx(50.0) and full["deferral_pct"][-1] == 100.0


def test_cascade_point_between_curve_taus_matches_by_hand():
    d = _data(_ds())
    # confidences 0.625, 0.125, 0.875, 0.375; tau 0.2 (between curve taus) keeps i1, i3, i4 as tau 0.3 did
    p = cascade.cascade_point(d, 0.2)
    assert p["accuracy"] == pytest.approx(75.0) and p["deferral_pct"] == pytest.approx(25.0) and p["n_kept"] == 3
    with pytest.raises(CAPInputError):
        cascade.cascade_point(d, 0.2, "nobody")


def test_decomposition_bound_and_oracle():
    d = _data(_ds())
    dec = cascade.decomposition(d, 0.5)
    # kept i1, i3: only C right on both -> bound 2/4 = 50 points = cascade 100 - fallback 50
    assert dec["n_kept"] == 2 and dec["cheap_only_kept"] == 2 and dec["fallback_only_kept"] == 0
    assert dec["gain_over_fallback"] == pytest.approx(50.0) == dec["bound"]
    assert dec["cascade"] - dec["fallback"] == pytest.approx(dec["gain_over_fallback"])
    o = cascade.oracle(d)
    assert o["optimistic"] and o["accuracy"] == pytest.approx(100.0) and 0.375 < o["tau"] <= 0.625


def test_fallback_identical_to_the_cheap_judge_gives_zero_gain():
    same = [{"judge": "C2", "benchmark": "t", "item_id": i, "order": "AB", "verdict": "A" if a > b else "B"}
            for i, (a, b) in C.items()]
    d = _data(_ds(same), "C2")
    assert set(cascade.cascade_curve(d)["accuracy"].to_list()) == {50.0}
    g = cascade.gain_ci(d, 0.5, n_resamples=200)
    assert g["gain"] == 0.0 and g["ci_low"] == 0.0 and g["ci_high"] == 0.0


def test_gain_ci_brackets_the_point_estimate():
    g = cascade.gain_ci(_data(_ds()), 0.5, n_resamples=300)
    assert g["best_single"] == "C" and g["gain"] == pytest.approx(50.0)
    assert g["ci_low"] <= 50.0 <= g["ci_high"]


def test_cross_fitting_never_scores_on_the_half_it_chose_on(monkeypatch):
    rng = np.random.default_rng(1)
    n = 40
    gold = {f"x{k}": "AB"[k % 2] for k in range(n)}
    rows = []
    for k, (i, g) in enumerate(gold.items()):
        sa, sb = rng.normal(), rng.normal()
        rows.append({"judge": "C", "benchmark": "t", "item_id": i, "order": "AB", "verdict": "A" if sa > sb else "B",
                     "score_a": sa, "score_b": sb})
        rows.append({"judge": "F", "benchmark": "t", "item_id": i, "order": "AB",
                     "verdict": g if rng.random() < 0.7 else "AB"[(k + 1) % 2]})
    ds = Dataset.build(pl.DataFrame({"benchmark": "t", "item_id": list(gold), "gold": list(gold.values())}),
                       pl.DataFrame(rows))
    d = cascade.cascade_data(ds, "t", "C", ["F"])
    calls = []
    real_choose, real_eval = cascade._choose_on, cascade._evaluate_on

    def choose(dd, idx):
        calls.append(("choose", set(idx.tolist())))
        return real_choose(dd, idx)

    def evaluate(dd, idx, fb, tau):
        calls.append(("score", set(idx.tolist())))
        return real_eval(dd, idx, fb, tau)

    monkeypatch.setattr(cascade, "_choose_on", choose)
    monkeypatch.setattr(cascade, "_evaluate_on", evaluate)
    res = cascade.cross_fit(d, n_splits=5, seed=3)
    assert res.height == 10 and len(calls) == 20
    for (k1, chosen), (k2, scored) in zip(calls[::2], calls[1::2]):
        assert (k1, k2) == ("choose", "score")
        assert chosen and scored and not (chosen & scored)
        assert len(chosen | scored) == n
    # the held-out accuracy is recomputed here from the chosen tau on the scored half
    last = res.row(-1, named=True)
    idx = np.array(sorted(calls[-1][1]))
    keep = d.conf[idx] >= last["tau"]
    want = 100 * np.where(keep, d.correct["C"][idx], d.correct["F"][idx]).mean()
    assert last["accuracy"] == pytest.approx(want)


def test_confidence_errors_are_clear():
    ds = _ds()
    with pytest.raises(CAPInputError, match="no confidence"):
        cascade.cascade_data(ds, "t", "F", ["C"])
    other = Dataset.build(
        pl.DataFrame({"benchmark": "t", "item_id": ["i1", "i2", "i3", "i4", "z"], "gold": ["A", "A", "B", "B", "A"]}),
        pl.concat([_ds().judgments.filter(pl.col("judge") == "C"),
                   pl.DataFrame({"judge": ["G"], "benchmark": ["t"], "item_id": ["z"], "order": ["AB"],
                                 "verdict": ["A"]})], how="diagonal_relaxed"))
    with pytest.raises(CAPInputError, match="share no item"):
        cascade.cascade_data(other, "t", "C", ["G"])
    with pytest.raises(CAPInputError, match="no verdicts"):
        cascade.cascade_data(ds, "t", "C", ["nobody"])


def test_auroc_against_pair_counting_and_bands():
    rng = np.random.default_rng(0)
    conf = rng.integers(0, 6, 60) / 5
    correct = rng.choice([0.0, 0.5, 1.0], 60)
    # independent: every (correct case, error case) pair with weights, ties count 1/2
    num = den = 0.0
    for i in range(60):
        for j in range(60):
            w = correct[i] * (1 - correct[j])
            num += w * (1.0 if conf[i] > conf[j] else 0.5 if conf[i] == conf[j] else 0.0)
            den += w
    assert confidence_auroc(conf, correct) == pytest.approx(num / den)
    bands = error_by_band(np.array([0.1, 0.2, 0.6, 0.9, 1.0]), np.array([0, 1, 1, 0, 1.0]))
    assert bands["n_items"].to_list() == [2, 0, 1, 2]
    assert bands["error_rate"].to_list() == [50.0, None, 0.0, 50.0]


def test_jury_majority_by_hand():
    # columns: (A,B,A) -> A; (A,A,B) -> A; (tie,B,A) -> one each -> tie
    assert majority_verdicts(np.array([["A", "A", "tie"], ["B", "A", "B"], ["A", "B", "A"]])).tolist() == [
        "A", "A", "tie"]
    assert median_levels(np.array([[1, 2, 3], [3, 2, 1], [2, 2, 2]])).tolist() == [2, 2, 2]
    assert median_levels(np.array([[1, 4], [3, 2]])).tolist() == [1, 2]
    assert median_levels(np.array([[1, 4], [3, 2]]), upper=True).tolist() == [3, 4]
    gold = {"i1": "A", "i2": "A", "i3": "B"}
    votes = {"J1": "ABB", "J2": "AAA", "J3": "BAB"}  # each 2/3; majority A, A, B = 3/3
    rows = [{"judge": j, "benchmark": "t", "item_id": i, "order": "AB", "verdict": v[k]}
            for j, v in votes.items() for k, i in enumerate(gold)]
    ds = Dataset.build(pl.DataFrame({"benchmark": "t", "item_id": list(gold), "gold": list(gold.values())}),
                       pl.DataFrame(rows))
    t = jury_comparison(ds, "t", list(votes), n_resamples=200)
    acc = dict(zip(t["entry"], t["accuracy"]))
    assert acc["majority of 3"] == pytest.approx(100.0) and acc["J1"] == pytest.approx(200 / 3)
    assert t.filter(pl.col("entry") == "majority of 3")["diff_vs_best"][0] == pytest.approx(100 / 3)
    with pytest.raises(CAPInputError, match="at least three"):
        jury_comparison(ds, "t", ["J1", "J2"])


def test_repeated_errors_and_agreement_by_hand():
    o = [{"judge": "O", "benchmark": "t", "item_id": i, "order": "AB", "verdict": v}
         for i, v in zip(GOLD, "BAAB")]
    ds = _ds(o)
    # C wrong on i2 (said B, gold A) and i4 (said A, gold B); O says B on i2? no: O = B,A,A,B
    # O repeats neither (A on i2, B on i4); baseline P(O=B|gold A) = 1/2, P(O=A|gold B) = 1/2
    r = repeated_errors(ds, "t", "C", ["O"]).filter(pl.col("errors") == "all").row(0, named=True)
    assert (r["n_errors"], r["repeated"], r["repeated_share"], r["baseline_share"]) == (2, 0, 0.0, 50.0)
    # top band (confidence >= .75): only i3, which C gets right -> no errors
    top = repeated_errors(ds, "t", "C", ["O"]).filter(pl.col("errors") == "top band").row(0, named=True)
    assert top["n_errors"] == 0 and top["repeated_share"] is None
    m = agreement_matrix(ds, "t", ["C", "O"])
    cell = m.filter((pl.col("row") == "O") & (pl.col("col") == LABEL)).row(0, named=True)
    # O = B,A,A,B vs gold A,A,B,B: agreement 2/4; p_e = .5*.5 + .5*.5 -> kappa 0
    assert cell["agreement"] == 50.0 and cell["kappa"] == pytest.approx(0.0)
    cc = m.filter((pl.col("row") == "C") & (pl.col("col") == "O")).row(0, named=True)
    # C = A,B,B,A vs O = B,A,A,B: never agree -> kappa (0 - .5) / .5 = -1
    assert cc["agreement"] == 0.0 and cc["kappa"] == pytest.approx(-1.0) and cc["kind"] == "judge-judge"


def test_graded_metrics_by_hand():
    pred, label = np.array([1, 2, 3, 3]), np.array([2, 3, 3, 4])
    m = graded_metrics(pred, label)
    assert (m["exact"], m["within_one"], m["offset"]) == (25.0, 100.0, -0.75)
    # quadratic weighted kappa from its definition over levels 1..4
    lv = [1, 2, 3, 4]
    obs = np.zeros((4, 4))
    for p, y in zip(pred, label):
        obs[lv.index(y), lv.index(p)] += 1
    exp = np.outer(obs.sum(1), obs.sum(0)) / obs.sum()
    w = np.array([[(a - b) ** 2 for b in range(4)] for a in range(4)])
    assert m["qwk"] == pytest.approx(1 - (w * obs).sum() / (w * exp).sum())
    s = best_shift(pred, label)
    assert (s["shift"], s["exact"], s["gain"]) == (1, 75.0, 50.0)


def _raw_pa(path, gold):
    flip = {"A>B": "B", "A>>B": "B", "B>A": "A", "B>>A": "A"}
    keep = {"A>B": "A", "A>>B": "A", "B>A": "B", "B>>A": "B"}
    out = {}
    for line in open(path):
        r = json.loads(line)
        if r["pair_id"] not in gold:
            continue
        first, second = (j["decision"] for j in r["judgments"])
        ok = (keep.get(first) == gold[r["pair_id"]]) + (flip.get(second) == gold[r["pair_id"]])
        out[r["pair_id"]] = ok / 2
    return out


def test_real_judgebench_cascade_endpoints_match_raw_files(shared_dir, default_data_dir, monkeypatch):
    ds = load_dataset(default_data_dir).select(benchmarks=["judgebench"])
    root = shared_dir / "data" / "judgebench"
    gold = {}
    for line in open(next((root / "data").glob("*gpt-4o*.jsonl"))):
        r = json.loads(line)
        gold[r["pair_id"]] = {"A>B": "A", "B>A": "B"}[r["label"]]
    rm = _raw_pa(next((root / "outputs").glob("*internlm2-20b*.jsonl")), gold)
    o1 = _raw_pa(next((root / "outputs").glob("*o1-mini*.jsonl")), gold)
    d = cascade.cascade_data(ds, "judgebench", "internlm2-20b-reward (RM)", ["o1-mini (arena_hard)"])
    curve = cascade.cascade_curve(d)
    assert curve["accuracy"][0] == pytest.approx(100 * np.mean(list(rm.values())))
    assert curve["accuracy"][-1] == pytest.approx(100 * np.mean(list(o1.values())))
    # costs from cap_core/cascades/price_table.csv and the data model's response lengths (no texts at run
    # time): P = (characters of response A + response B) / 4, counted here from the raw pair file; the
    # question and the judge's written output are not in the data model and are not counted.
    # internlm2-20b-reward matches "(20b|27B).*\(RM\)": $0.80 per 1M input tokens, one pass per item, no
    # overhead -> P x 0.80e-6 per item (mean P ~ 1043 -> ~$0.83 per 1000);
    # o1-mini: $3 in / $12 out per 1M, 600 prompt-overhead and 1000 hidden-reasoning tokens, billed per order
    # (2 calls) -> 2 x [(P + 600) x 3 + 1000 x 12] / 1e6: ~$34 per 1000 more, so deferring everything costs
    # ~42x the cheap judge alone (> 2 x 3 / 0.8 = 7.5x from the input price alone)
    prompt = {}
    for line in open(next((root / "data").glob("*gpt-4o*.jsonl"))):
        r = json.loads(line)
        prompt[r["pair_id"]] = sum(len(r[k] or "") for k in ("response_A", "response_B")) / 4
    cost_rm = {i: p * 0.80 / 1e6 for i, p in prompt.items()}
    cost_o1 = {i: 2 * ((prompt[i] + 600) * 3.00 + 1000 * 12.00) / 1e6 for i in prompt}
    assert list(d.item_id) == sorted(prompt)  # item ids are the pair ids
    assert curve["usd_per_1000"][0] == pytest.approx(1000 * np.mean(list(cost_rm.values())))
    assert curve["usd_per_1000"][-1] == pytest.approx(1000 * np.mean([cost_rm[i] + cost_o1[i] for i in prompt]))
    assert 40 < curve["usd_per_1000"][-1] / curve["usd_per_1000"][0] < 45
    # AUROC of raw score margins (plain pair counting) equals the module's on mid-ranks
    margin, ok = {}, {}
    for line in open(next((root / "outputs").glob("*internlm2-20b*.jsonl"))):
        r = json.loads(line)
        s = r["judgments"][0]["judgment"]["scores"]
        margin[r["pair_id"]], ok[r["pair_id"]] = abs(s[0] - s[1]), rm[r["pair_id"]]
    ids = list(margin)
    right = [margin[i] for i in ids if ok[i] == 1]
    wrong = [margin[i] for i in ids if ok[i] == 0]
    want = np.mean([(a > b) + 0.5 * (a == b) for a in right for b in wrong])
    got = confidence_auroc(d.conf, d.correct[d.cheap])
    assert got == pytest.approx(want)
    scored = []
    real_eval = cascade._evaluate_on

    def evaluate(dd, idx, fb, tau):
        scored.append(idx.copy())
        return real_eval(dd, idx, fb, tau)

    monkeypatch.setattr(cascade, "_evaluate_on", evaluate)
    cf = cascade.cross_fit(d, n_splits=10, seed=0)
    assert cf.height == 20 and len(scored) == 20 and cf["gain"].is_finite().all()
    # held-out half of the last fold, recomputed from the raw files: confidence = mid-rank of the score
    # margin on a unit scale, kept items scored by the reward model, the rest by o1-mini
    ranked = sorted(margin.values())
    conf = {i: (bisect_left(ranked, m) + 0.5 * (bisect_right(ranked, m) - bisect_left(ranked, m))) / len(ranked)
            for i, m in margin.items()}
    last, ids = cf.row(-1, named=True), [str(x) for x in d.item_id[scored[-1]]]
    assert len(ids) in (175, 176) and not set(ids) & set(str(x) for x in d.item_id[scored[-2]])  # the two halves
    keep = {i: conf[i] >= last["tau"] for i in ids}
    assert last["accuracy"] == pytest.approx(100 * np.mean([rm[i] if keep[i] else o1[i] for i in ids]))
    assert last["deferral_pct"] == pytest.approx(100 * np.mean([not keep[i] for i in ids]))
    assert last["usd_per_1000"] == pytest.approx(1000 * np.mean([cost_rm[i] + (0 if keep[i] else cost_o1[i])
                                                                 for i in ids]))


def test_real_pandalm_accuracy_and_repeats_match_raw_files(shared_dir):
    from cap_core.importers.pandalm import import_pandalm

    data = shared_dir / "data" / "pandalm" / "data"
    ds = import_pandalm(shared_dir / "data" / "pandalm")
    test = json.load(open(data / "testset-v1.json"))
    panda = {r["idx"]: {1: "A", 2: "B"}.get(r["pandalm_result"], "tie") for r in json.load(
        open(data / "pandalm-7b-testset-v1.json"))}
    gpt = {r["idx"]: {"1": "A", "2": "B", "Tie": "tie"}.get(r["gpt_result"], "unparsed") for r in json.load(
        open(data / "gpt-3.5-turbo-testset-v1.json"))}
    gold = {}
    for t in test:
        top, n = Counter([t["annotator1"], t["annotator2"], t["annotator3"]]).most_common(1)[0]
        if n >= 2 and top in (1, 2):
            gold[t["idx"]] = "AB"[top - 1]
    assert ds.items.height == len(gold)
    right = sum(panda[i] == g for i, g in gold.items())
    assert 100 * item_frame(ds, "pandalm", "PandaLM-7B")["correct"].mean() == pytest.approx(100 * right / len(gold))
    errors = [i for i, g in gold.items() if panda[i] != g]
    repeats = sum(gpt[i] == panda[i] for i in errors)
    r = repeated_errors(ds, "pandalm", "PandaLM-7B", ["gpt-3.5-turbo (PandaLM)"]).row(0, named=True)
    assert (r["n_errors"], r["repeated"]) == (len(errors), repeats)
    assert r["repeated_share"] > r["baseline_share"]  # errors are shared more than independence predicts


def test_cli_verbs_write_csv_and_exit_2_on_bad_input(tmp_path, capsys):
    from cap_core.cli.main import main
    from cap_core.dataset import save_dataset

    save_dataset(_ds(), tmp_path / "d")
    assert main(["cascade", "--data", str(tmp_path / "d"), "--benchmark", "t", "--cheap", "C", "--fallback", "F",
                 "--splits", "3", "--bootstrap", "100", "--out", str(tmp_path / "c.csv")]) == 0
    curve = pl.read_csv(tmp_path / "c.csv")
    assert curve["accuracy"][0] == pytest.approx(50.0) and curve["deferral_pct"][-1] == 100.0
    assert main(["agreement", "--data", str(tmp_path / "d"), "--benchmark", "t", "--judge", "C", "--judge", "F",
                 "--out", str(tmp_path / "a.csv")]) == 0
    assert pl.read_csv(tmp_path / "a.csv").height == 8  # 3 x 3 ordered pairs, label x label left out
    assert main(["cascade", "--data", str(tmp_path / "d"), "--benchmark", "t", "--cheap", "F", "--fallback", "C",
                 "--out", str(tmp_path / "x.csv")]) == 2
    assert "no confidence" in capsys.readouterr().err


def _fresh_ids(n: int) -> list[str]:
    """Ids never seen before in this process, sorted (polars keeps one global category table)."""
    import uuid

    tag = uuid.uuid4().hex
    return [f"{tag}-{k:03d}" for k in range(n)]


def _percentiles_by_loop(counts, values):
    reps = [100 * (c * values).sum() / c.sum() for c in counts]
    return np.percentile(reps, 2.5), np.percentile(reps, 97.5)


def test_jury_and_cascade_intervals_do_not_depend_on_what_ran_before():
    """Column i of the resample counts is the i-th base id in sorted order, always. Before the fix the
    base codes were polars Categorical codes, which are process-wide while any categorical holding the
    ids is alive: the same ids cast earlier in another order (a cached frame of another page or
    analysis) changed which base item got which count, so the same data and seed gave another
    interval."""
    from cap_core.bootstrap import resample_counts

    ids = _fresh_ids(30)
    earlier = pl.Series(list(reversed(ids))).cast(pl.Categorical)  # alive elsewhere, in another order
    gold = ["A"] * 30
    right = {"J1": 10, "J2": 20, "J3": 25}  # J1 right on the first 10 items only, and so on
    rows = [{"judge": j, "benchmark": "t", "item_id": i, "order": "AB", "verdict": "A" if k < n else "B",
             "score_a": float(k), "score_b": 0.0}
            for j, n in right.items() for k, i in enumerate(ids)]
    ds = Dataset.build(pl.DataFrame({"benchmark": "t", "item_id": ids, "gold": gold}), pl.DataFrame(rows))
    counts = resample_counts(30, 400, 5)  # items in sorted-id order
    ok1 = np.array([1.0] * 10 + [0.0] * 20)
    t = jury_comparison(ds, "t", ["J1", "J2", "J3"], n_resamples=400, seed=5)
    r = t.filter(pl.col("entry") == "J1").row(0, named=True)
    assert (r["ci_low"], r["ci_high"]) == pytest.approx(_percentiles_by_loop(counts, ok1))
    d = cascade.cascade_data(ds, "t", "J1", ["J2"])
    ok2 = np.array([1.0] * 20 + [0.0] * 10)
    g = cascade.gain_ci(d, 2.0, n_resamples=400, seed=5)  # keeps J1 where its confidence rank >= 2
    keep = d.conf >= 2.0
    casc = np.where(keep, ok1, ok2)
    best = ok2 if ok2.mean() >= ok1.mean() else ok1
    assert g["best_single"] == "J2"
    assert (g["ci_low"], g["ci_high"]) == pytest.approx(_percentiles_by_loop(counts, casc - best))
    assert earlier.len() == 30
