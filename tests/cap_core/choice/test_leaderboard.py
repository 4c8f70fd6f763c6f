"""The leaderboard by hand: a three-judge profile with five hand-written bootstrap replicates."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest

from cap_core.choice.filters import parse_filters
from cap_core.choice.leaderboard import LEADERBOARD_SCHEMA, choose, condition_ranges
from cap_core.errors import CAPInputError
from cap_core.schema import PROFILE_SCHEMA

# judge -> (C1 value, C7 value); replicates below (5 resamples, one column per row)
V = {"A": (80.0, 70.0), "B": (60.0, 75.0), "C": (40.0, 50.0)}
REPS = {
    ("A", "C1"): [80, 82, 78, 84, 76], ("A", "C7"): [70, 69, 71, 72, 68],
    ("B", "C1"): [60, 61, 59, 63, 57], ("B", "C7"): [75, 76, 74, 77, 73],
    ("C", "C1"): [40, 41, 39, 42, 38], ("C", "C7"): [50, 52, 48, 51, 49],
}


def _row(judge, cond, value, n=100, lo=None, hi=None, source="computed"):
    return {"judge": judge, "benchmark": "t", "subset": "all", "condition": cond,
            "metric": "pa" if cond == "C1" else "strict", "value": value, "ci_low": lo if lo is not None else value - 5,
            "ci_high": hi if hi is not None else value + 5, "n_items": n, "n_excluded": 0, "n_not_received": 0, "status": "direct",
            "operator": "", "primary": True, "source": source}


def _profile():
    rows = [_row(j, c, v[k]) for j, v in V.items() for k, c in enumerate(("C1", "C7"))]
    reps = np.array([REPS[(r["judge"], r["condition"])] for r in rows], dtype=float).T
    return pl.DataFrame(rows, schema=PROFILE_SCHEMA), reps


def test_scores_intervals_and_p_best_by_hand():
    prof, reps = _profile()
    ch = choose(prof, reps, {"C1": 1, "C7": 2})
    b = ch.leaderboard
    assert b.schema == pl.Schema(LEADERBOARD_SCHEMA)
    # score = (1 * C1 + 2 * C7) / 3
    assert b["judge"].to_list() == ["A", "B", "C"]
    assert b["rank"].to_list() == [1, 2, 3]
    assert b["score"].to_list() == pytest.approx([220 / 3, 210 / 3, 140 / 3])
    draws_a = (np.array(REPS[("A", "C1")]) + 2 * np.array(REPS[("A", "C7")])) / 3  # 73.33 73.33 73.33 76 70.67
    draws_b = (np.array(REPS[("B", "C1")]) + 2 * np.array(REPS[("B", "C7")])) / 3  # 70 71 69 72.33 67.67
    assert b["ci_low"][0] == pytest.approx(np.percentile(draws_a, 2.5))
    assert b["ci_high"][1] == pytest.approx(np.percentile(draws_b, 97.5))
    # A beats B in every replicate, C never best: P(best) 1, 0, 0
    assert b["p_best"].to_list() == pytest.approx([1.0, 0.0, 0.0])
    # paired difference A - B replicate by replicate: 3.33 2.33 4.33 3.67 3.0 -> all > 0
    d = draws_a - draws_b
    assert b["diff_vs_leader"][1] == pytest.approx(10 / 3)
    assert b["diff_ci_low"][1] == pytest.approx(np.percentile(d, 2.5))
    # every replicate difference is above 0, so the counts give only p <= 2 / (5 + 1); past that floor p is the
    # replicates' normal tail, 2 * sf(|mean| / sd) (scipy here); Holm: sorted p x (2, 1), running max
    from scipy import stats

    d_c = draws_a - (np.array(REPS[("C", "C1")]) + 2 * np.array(REPS[("C", "C7")])) / 3
    p = [2 * stats.norm.sf(abs(x.mean()) / x.std(ddof=1)) for x in (d, d_c)]
    assert b["p_value"][1:].to_list() == pytest.approx(p, rel=1e-9)
    lo, hi = sorted(p)
    assert sorted(b["p_holm"][1:].to_list()) == pytest.approx([2 * lo, max(2 * lo, hi)], rel=1e-9)
    assert b["separable"][1:].to_list() == [True, True]
    assert ch.not_separable == [] and "A leads" in ch.sentence and "Holm" in ch.sentence


def test_judges_not_separable_are_named():
    # B's replicates straddle A's: differences A - B of 3, -2, 4, -1, 1 (some below 0): p = 2 * (2 + 1) / 6 = 1
    reps = {("A", "C1"): [80, 80, 80, 80, 80], ("B", "C1"): [77, 82, 76, 81, 79]}
    rows = [_row(j, "C1", v) for j, v in (("A", 80.0), ("B", 79.0))]
    prof = pl.DataFrame(rows, schema=PROFILE_SCHEMA)
    ch = choose(prof, np.array([reps[(r["judge"], "C1")] for r in rows], dtype=float).T, {"C1": 1})
    assert ch.leaderboard["p_value"][1] == pytest.approx(1.0)
    assert ch.leaderboard["separable"][1] is False
    assert ch.not_separable == [("B", "all", "computed")]
    assert "B is not separable" in ch.sentence and "on these 100 items" in ch.sentence
    assert "leads" not in ch.sentence and "Holm" in ch.sentence


def _p_by_hand(d: np.ndarray) -> float:
    """The documented two-sided bootstrap p: counts, past the 2/(R+1) floor the normal tail (scipy)."""
    from scipy import stats

    low, high = int((d <= 0).sum()), int((d >= 0).sum())
    p = min(1.0, 2 * (min(low, high) + 1) / (d.size + 1))
    if min(low, high) == 0:
        p = min(p, 2 * stats.norm.sf(abs(d.mean()) / d.std(ddof=1)))
    return p


def test_holm_over_all_pairs_matches_statsmodels_and_gives_rank_ranges():
    from statsmodels.stats.multitest import multipletests

    rng = np.random.default_rng(3)
    judges = [f"J{i}" for i in range(5)]
    rows, cols = [], []
    base = rng.normal(0, 1, size=2000)
    for k, j in enumerate(judges):
        rows.append(_row(j, "C1", 70.0 - 1.5 * k))
        cols.append(70.0 - 1.5 * k + 2.0 * base + rng.normal(0, 1.2, size=2000))
    prof = pl.DataFrame(rows, schema=PROFILE_SCHEMA)
    b = choose(prof, np.column_stack(cols), {"C1": 1}).leaderboard
    assert b["judge"].to_list() == judges  # scores 70, 68.5, ... in that order
    draws = np.column_stack(cols)
    pairs = [(a, c) for a in range(5) for c in range(a + 1, 5)]
    p = np.array([_p_by_hand(draws[:, a] - draws[:, c]) for a, c in pairs])
    rej, adj = multipletests(p, alpha=0.05, method="holm")[:2]
    # the leader's four comparisons are the pairs (0, c)
    lead = [k for k, (a, _) in enumerate(pairs) if a == 0]
    assert b["p_value"][1:].to_numpy() == pytest.approx(p[lead])
    assert b["p_holm"][1:].to_numpy() == pytest.approx(adj[lead])
    assert b["separable"][1:].to_list() == [bool(x) for x in rej[lead]]
    # rank range: 1 + judges separably above, 5 - judges separably below
    best = [1 + sum(1 for (a, c), r in zip(pairs, rej) if r and c == i) for i in range(5)]
    worst = [5 - sum(1 for (a, c), r in zip(pairs, rej) if r and a == i) for i in range(5)]
    assert b["rank_best"].to_list() == best and b["rank_worst"].to_list() == worst
    assert best[0] == 1 and worst[-1] == 5


def test_judges_that_cannot_be_told_apart_share_a_rank_range():
    prof, reps = _profile()
    # A and B differ in every replicate (separable); C below both: ranges 1-1, 2-2, 3-3
    b = choose(prof, reps, {"C1": 1, "C7": 2}).leaderboard
    assert list(zip(b["rank_best"], b["rank_worst"])) == [(1, 1), (2, 2), (3, 3)]
    reps2 = {("A", "C1"): [80, 80, 80, 80, 80], ("B", "C1"): [77, 82, 76, 81, 79], ("C", "C1"): [78, 81, 77, 80, 79]}
    rows = [_row(j, "C1", v) for j, v in (("A", 80.0), ("B", 79.0), ("C", 79.0))]
    b = choose(pl.DataFrame(rows, schema=PROFILE_SCHEMA),
               np.array([reps2[(r["judge"], "C1")] for r in rows], dtype=float).T, {"C1": 1}).leaderboard
    # no pair separable: every judge ranges over 1-3
    assert list(zip(b["rank_best"], b["rank_worst"])) == [(1, 3), (1, 3), (1, 3)]


def test_filters_remove_and_name_judges():
    prof, reps = _profile()
    ch = choose(prof, reps, {"C1": 1, "C7": 2}, filters=parse_filters("C7=60"))
    assert ch.leaderboard["judge"].to_list() == ["A", "B"]
    assert ch.filtered.rows() == [("C", "all", "computed", "C7", "C7 strict 50.0 < 60")]
    assert "1 judge filtered out" in ch.sentence
    # on the lower bound: A's C7 interval is 65-75, B's 70-80
    ch = choose(prof, reps, {"C1": 1}, filters=parse_filters("C7.low=68"))
    assert ch.leaderboard["judge"].to_list() == ["B"]
    assert set(ch.filtered["judge"]) == {"A", "C"}
    # a filter on a condition nobody measured removes every judge, with the reason
    ch = choose(prof, reps, {"C1": 1}, filters=parse_filters("C3=10"))
    assert ch.leaderboard.height == 0 and ch.filtered["reason"][0].startswith("C3 not measured")


@pytest.mark.parametrize("bad", ["C9=60", "C7>60", "C7=abc", "C7=160", "C7.high=60", "C7=60,C7=70"])
def test_bad_filters_name_the_option(bad):
    with pytest.raises(CAPInputError) as err:
        parse_filters(bad, argument="--min")
    assert err.value.argument == "--min"


def test_unmeasured_and_renormalised_conditions_in_the_sentence():
    prof, reps = _profile()
    ch = choose(prof, reps, {"C1": 1, "C3": 1, "C4": 1, "C5": 1, "C6": 1})
    assert ch.unmeasured == ["C3", "C4", "C5", "C6"]
    assert "C3–C6 are not measured on this benchmark" in ch.sentence
    assert condition_ranges(["C1", "C2", "C5", "C7", "C8"]) == "C1, C2, C5, C7, C8"


def test_a_leader_separable_from_all_is_said_to_lead():
    rows = [_row("A", "C1", 90.0), _row("B", "C1", 50.0)]
    reps = np.column_stack([np.linspace(88, 92, 400), np.linspace(48, 52, 400)[::-1]])
    ch = choose(pl.DataFrame(rows, schema=PROFILE_SCHEMA), reps, {"C1": 1})
    assert ch.leaderboard["separable"][1] is True
    assert "A leads (P(best) 1.00) and is ahead of every other judge" in ch.sentence


def test_published_judges_stay_marked():
    prof, reps = _profile()
    pub = pl.DataFrame([_row("P", "C1", 85.0, n=None, lo=80.0, hi=90.0, source="published: CAP Table 5")],
                       schema=PROFILE_SCHEMA)
    ch = choose(pl.concat([prof, pub]), np.column_stack([reps, np.full(5, np.nan)]), {"C1": 1})
    row = ch.leaderboard.filter(pl.col("judge") == "P").row(0, named=True)
    assert row["published"] is True and row["method"].startswith("normal approximation")
    assert "normal approximation for published judges" in ch.sentence


def test_several_benchmarks_are_refused():
    prof, reps = _profile()
    two = pl.concat([prof, prof.with_columns(pl.lit("u").alias("benchmark"))])
    with pytest.raises(CAPInputError):
        choose(two, np.column_stack([reps, reps]), {"C1": 1})


def test_costs_join_on_computed_judges():
    prof, reps = _profile()
    costs = pl.DataFrame({"judge": ["A"], "usd_per_1000": [1.5], "cost_basis": ["recorded"], "median_latency_s": [0.4]})
    b = choose(prof, reps, {"C1": 1}, costs=costs).leaderboard
    a = b.filter(pl.col("judge") == "A").row(0, named=True)
    assert (a["usd_per_1000"], a["cost_basis"], a["median_latency_s"]) == (1.5, "recorded", 0.4)
    assert b.filter(pl.col("judge") == "B")["usd_per_1000"][0] is None
    assert not math.isnan(b["score"][0])


@pytest.mark.parametrize("p", [
    [0.01, 0.2, 0.03, 0.04], [0.001, 0.002, 0.003], [0.5, 0.9, 0.7], [0.02, 0.02, 0.01, 0.3],
    [0.04, float("nan"), 0.001], [0.3], list(np.random.default_rng(5).uniform(0, 0.2, 40)),
])
def test_the_holm_step_equals_statsmodels_value_for_value(p):
    from statsmodels.stats.multitest import multipletests

    from cap_core.analyses.judge_comparison import holm as _holm

    reject, adj, _, _ = multipletests(np.asarray(p, dtype=float), alpha=0.05, method="holm")
    ours_adj, ours_reject = _holm(p, 0.05)
    np.testing.assert_array_equal(np.array(ours_adj), adj)  # exact, NaN in the same places
    assert ours_reject == [bool(x) for x in reject]


def test_choosing_does_not_force_a_garbage_collection(monkeypatch):
    import gc

    calls = []
    monkeypatch.setattr(gc, "collect", lambda *a: calls.append(a) or 0)
    rows = [_row(j, "C1", v) for j, v in (("A", 80.0), ("B", 70.0), ("C", 60.0))]
    reps = np.random.default_rng(0).normal([80.0, 70.0, 60.0], 2.0, size=(500, 3))
    choose(pl.DataFrame(rows, schema=PROFILE_SCHEMA), reps, {"C1": 1})
    assert calls == []  # statsmodels' multipletests collects on every call (0.3-1 s in a dashboard process)


def test_a_kept_ranking_gives_what_a_fresh_choice_gives_for_every_weight(default_data_dir):
    # a weight move reuses the weight-independent part (Ranking); moving back and forth must give, value
    # for value, what choose() computes from scratch (nothing of one ranking leaks into the next)
    from cap_core.choice.leaderboard import Ranking
    from cap_core.dataset import load_dataset
    from cap_core.profile.conditions import compute_profile
    from cap_core.profile.published import load_published_profiles

    ds = load_dataset(default_data_dir)
    res = compute_profile(ds, n_resamples=200, seed=0, benchmarks=["judgebench"])
    pub = load_published_profiles().filter(pl.col("benchmark") == "judgebench")
    rows = pl.concat([res.profile, pub.select(res.profile.columns)])
    reps = np.concatenate([res.replicates, np.full((200, pub.height), np.nan)], axis=1)
    kept = Ranking(rows, reps, seed=5)
    for w in ({"C1": 1.0, "C7": 0.5}, {"C7": 1.0}, {"C1": 1.0, "C7": 0.5}, {"C2": 2.0, "C8": 1.0}):
        fresh = choose(rows, reps, w, seed=5)
        again = kept.rank(w)
        assert again.leaderboard.equals(fresh.leaderboard, null_equal=True)
        assert again.sentence == fresh.sentence and again.sample_size.keys() == fresh.sample_size.keys()
