"""The denominator rule by hand: a judge is scored on the items it received; failures counted or excluded;
items without gold only in the metrics that need none. Every expected value below is counted by hand in
the comments beside the fixture, not read from the code."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from cap_core import save_dataset
from cap_core.dataset import Dataset
from cap_core.errors import CAPInputError
from cap_core.profile.conditions import NEEDS_GOLD, compute_profile, profile_from_stats
from cap_core.profile.engine_stream import stream_stats
from cap_core.verdicts import counted, shared_items, verdict_rows

FLIP = {"A": "B", "B": "A"}


def _ds(gold: dict, verdicts: dict) -> Dataset:
    """``verdicts``: judge -> {(item, order): verdict}; an absent key is no judgment row."""
    items = pl.DataFrame({"benchmark": "t", "item_id": list(gold), "gold": list(gold.values())},
                         schema={"benchmark": pl.String, "item_id": pl.String, "gold": pl.String})
    rows = [{"judge": j, "benchmark": "t", "item_id": i, "order": o, "verdict": v}
            for j, by in verdicts.items() for (i, o), v in by.items()]
    return Dataset.build(items, pl.DataFrame(rows))


def _row(prof: pl.DataFrame, judge: str, cond: str, metric: str) -> dict:
    got = prof.filter((pl.col("judge") == judge) & (pl.col("condition") == cond) & (pl.col("metric") == metric)
                      & (pl.col("subset") == "all"))
    assert got.height == 1
    return got.row(0, named=True)


# 20 items, gold alternating A / B. P judged i00..i09 in both orders, all correct, and nothing else.
# C judged all 20 in both orders: correct in AB everywhere, correct in BA on i00..i14, wrong on i15..i19.
GOLD20 = {f"i{k:02d}": "AB"[k % 2] for k in range(20)}
P = {(i, o): g for i, g in list(GOLD20.items())[:10] for o in ("AB", "BA")}
C = {(i, "AB"): g for i, g in GOLD20.items()} | {(i, "BA"): (g if k < 15 else FLIP[g])
                                                 for k, (i, g) in enumerate(GOLD20.items())}


def test_partial_judge_is_scored_on_what_it_judged():
    prof = compute_profile(_ds(GOLD20, {"P": P, "C": C}), n_resamples=200, seed=0).profile
    p = _row(prof, "P", "overall", "pa")
    # 10 items received, 20 verdicts all correct: 100% on n = 10; the other 10 items were never received
    assert (p["value"], p["n_items"], p["n_excluded"], p["n_not_received"]) == (100.0, 10, 0, 10)
    assert (p["ci_low"], p["ci_high"]) == (100.0, 100.0)
    s = _row(prof, "P", "C7", "strict")
    assert (s["value"], s["n_items"], s["n_not_received"]) == (100.0, 10, 10)
    # C: pa = (20 AB + 15 BA correct) / 40 = 87.5%; strict = 15/20; consistency = 15/20 (5 flipped letters)
    c = _row(prof, "C", "overall", "pa")
    assert (c["value"], c["n_items"], c["n_not_received"]) == (87.5, 20, 0)
    assert _row(prof, "C", "C7", "strict")["value"] == 75.0
    assert _row(prof, "C", "C7", "consistency")["value"] == 75.0


def test_complete_judge_is_unchanged_by_a_partial_one_beside_it():
    both = compute_profile(_ds(GOLD20, {"P": P, "C": C}), n_resamples=300, seed=4).profile
    alone = compute_profile(_ds(GOLD20, {"C": C}), n_resamples=300, seed=4).profile
    cols = ["condition", "metric", "value", "ci_low", "ci_high", "n_items", "n_excluded", "n_not_received"]
    assert both.filter(pl.col("judge") == "C").select(cols).equals(alone.select(cols))


# Four items, gold A. X: i1 A/A; i2 A/unparsed; i3 tie/A; i4 B in AB and no BA row (missing).
# Y: no row on i1; correct on i2..i4 in both orders.
GOLD4 = {"i1": "A", "i2": "A", "i3": "A", "i4": "A"}
X = {("i1", "AB"): "A", ("i1", "BA"): "A", ("i2", "AB"): "A", ("i2", "BA"): "unparsed",
     ("i3", "AB"): "tie", ("i3", "BA"): "A", ("i4", "AB"): "B"}
Y = {(i, o): "A" for i in ("i2", "i3", "i4") for o in ("AB", "BA")}


def test_failures_counted_by_default():
    prof = compute_profile(_ds(GOLD4, {"X": X, "Y": Y}), n_resamples=100, seed=0).profile
    # per-item pa: i1 1, i2 .5, i3 .5, i4 0 -> 2/4 = 50%; units with a tie/unparsed/missing: i2, i3, i4
    pa = _row(prof, "X", "overall", "pa")
    assert (pa["value"], pa["n_items"], pa["n_excluded"], pa["n_not_received"]) == (50.0, 4, 3, 0)
    # strict: only i1 both correct -> 1/4; consistency: only i1 the same verdict twice -> 1/4
    assert (_row(prof, "X", "C7", "strict")["value"], _row(prof, "X", "C7", "consistency")["value"]) == (25.0, 25.0)
    y = _row(prof, "Y", "overall", "pa")
    assert (y["value"], y["n_items"], y["n_excluded"], y["n_not_received"]) == (100.0, 3, 0, 1)


def test_failures_excluded_lower_n():
    prof = compute_profile(_ds(GOLD4, {"X": X, "Y": Y}), n_resamples=100, seed=0, failures="exclude").profile
    # unparsed (i2) and missing (i4) are API/parse failures: those units leave n; the tie (i3) stays, not correct
    # pa = (i1 1 + i3 .5) / 2 = 75%; strict: i1 of {i1, i3} = 50%; consistency: i1 of {i1, i3} = 50%
    pa = _row(prof, "X", "overall", "pa")
    assert (pa["value"], pa["n_items"], pa["n_excluded"], pa["n_not_received"]) == (75.0, 2, 2, 0)
    assert (_row(prof, "X", "C7", "strict")["value"], _row(prof, "X", "C7", "consistency")["value"]) == (50.0, 50.0)
    assert _row(prof, "X", "C7", "strict")["n_items"] == 2
    # Y had no failure: the same under either rule
    assert _row(prof, "Y", "overall", "pa")["value"] == 100.0


def test_unknown_failure_rule_is_refused():
    with pytest.raises(CAPInputError, match="failures"):
        compute_profile(_ds(GOLD4, {"X": X}), n_resamples=100, failures="drop")


def test_items_without_gold_count_only_where_no_gold_is_needed():
    # Z: i1 A/A, i2 A/B, i3 tie/tie on three items without gold; i4 (gold A) A/A
    gold = {"i1": None, "i2": None, "i3": None, "i4": "A"}
    z = {("i1", "AB"): "A", ("i1", "BA"): "A", ("i2", "AB"): "A", ("i2", "BA"): "B",
         ("i3", "AB"): "tie", ("i3", "BA"): "tie", ("i4", "AB"): "A", ("i4", "BA"): "A"}
    prof = compute_profile(_ds(gold, {"Z": z}), n_resamples=100, seed=0).profile
    # accuracy over the one item with gold: 100% on n = 1; consistency over all four: i1, i3 (tie/tie), i4 -> 3/4
    assert (_row(prof, "Z", "overall", "pa")["value"], _row(prof, "Z", "overall", "pa")["n_items"]) == (100.0, 1)
    cons = _row(prof, "Z", "C7", "consistency")
    assert (cons["value"], cons["n_items"]) == (75.0, 4)
    # no gold at all: accuracy rows are null and say why; consistency is 2/3
    only = {k: v for k, v in z.items() if k[0] != "i4"}
    prof = compute_profile(_ds({"i1": None, "i2": None, "i3": None}, {"Z": only}), n_resamples=100).profile
    pa = _row(prof, "Z", "overall", "pa")
    assert pa["value"] is None and pa["status"] == NEEDS_GOLD
    assert _row(prof, "Z", "C7", "strict")["status"] == NEEDS_GOLD
    assert _row(prof, "Z", "C7", "consistency")["value"] == pytest.approx(200 / 3, abs=1e-12)


def test_verdict_rows_hold_only_received_items():
    rows = verdict_rows(_ds(GOLD4, {"X": X, "Y": Y}))
    # Y: 3 received items x 2 orders; X: 4 x 2, its absent i4 BA a missing row
    assert rows.filter(pl.col("judge") == "Y").height == 6
    assert rows.filter(pl.col("judge") == "X").height == 8
    assert rows.filter(pl.col("missing"))[["judge", "item_id", "order"]].rows() == [("X", "i4", "BA")]


def test_shared_items_are_those_every_judge_received():
    got = shared_items(_ds(GOLD4, {"X": X, "Y": Y}))
    assert got["item_id"].to_list() == ["i2", "i3", "i4"]
    assert shared_items(_ds(GOLD4, {"X": X, "Y": Y}), judges=["X"])["item_id"].to_list() == ["i1", "i2", "i3", "i4"]


def test_counted_is_the_rule_on_arrays():
    recv = np.array([True, True, True, False])
    gold = np.array([True, False, True, True])
    failed = np.array([False, False, True, False])
    assert counted(recv, gold, failed).tolist() == [True, False, True, False]
    assert counted(recv, gold, failed, failures="exclude").tolist() == [True, False, False, False]
    assert counted(recv, gold, failed, needs_gold=False).tolist() == [True, True, True, False]


def test_streamed_engine_gives_the_same_partial_profile(tmp_path):
    # four buckets of base items (rank modulo 4): Q judged only bucket 0's items, so bucket 0 holds a partial
    # judge and buckets 1-3 complete data; the pieces must stack to the in-memory numbers
    q = {(i, o): g for k, (i, g) in enumerate(GOLD20.items()) if k % 4 == 0 for o in ("AB", "BA")}
    ds = _ds(GOLD20, {"Q": q, "C": C})
    save_dataset(ds, tmp_path)
    for failures in ("count", "exclude"):
        want = compute_profile(ds, n_resamples=150, seed=2, failures=failures)
        got = profile_from_stats(stream_stats(tmp_path, n_buckets=4, failures=failures), 150, 2, 0.95)
        assert want.profile.equals(got.profile)
        np.testing.assert_array_equal(want.replicates, got.replicates)
