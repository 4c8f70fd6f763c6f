"""Items without gold, judges that received few items and failed verdicts, through every analysis that
scores verdicts: the counts below are hand counts on the small fixtures, not read from the code."""

from __future__ import annotations

import polars as pl
import pytest

from cap_core.analyses.hard_subsets import hard_empirical_items
from cap_core.analyses.judge_comparison import compare_judges
from cap_core.cascades.agreement import agreement_matrix
from cap_core.cascades.judge_confidence import item_frame
from cap_core.cascades.jury import jury_comparison
from cap_core.choice.pipeline import run_choice
from cap_core.dataset import Dataset
from cap_core.errors import CAPInputError
from cap_core.profile.conditions import compute_profile


def _ds(gold: dict, rows: list[tuple]) -> Dataset:
    items = pl.DataFrame({"benchmark": "t", "item_id": list(gold), "gold": list(gold.values())},
                         schema={"benchmark": pl.String, "item_id": pl.String, "gold": pl.String})
    jm = pl.DataFrame(rows, schema=["judge", "item_id", "order", "verdict"], orient="row").with_columns(
        benchmark=pl.lit("t"))
    return Dataset.build(items, jm)


# 8 items: i0..i3 with gold A, i4..i7 without gold. "perfect" says A on every item in both orders.
GOLD8 = {f"i{k}": ("A" if k < 4 else None) for k in range(8)}
PERFECT = [("perfect", f"i{k}", o, "A") for k in range(8) for o in ("AB", "BA")]
# "half" right on i0, i1, wrong (B) on i2, i3, and says A/B on the gold-free ones
HALF = [("half", f"i{k}", o, "A" if k in (0, 1) else "B") for k in range(8) for o in ("AB", "BA")]
MID = [("mid", f"i{k}", o, "A" if k != 3 else "B") for k in range(8) for o in ("AB", "BA")]


def test_gold_free_items_are_never_scored_wrong():
    ds = _ds(GOLD8, PERFECT + HALF + MID)
    # item-level accuracy: only the four items with gold count
    assert item_frame(ds, "t", "perfect").height == 4
    jury = {r["entry"]: r for r in jury_comparison(ds, "t", ["perfect", "half", "mid"], n_resamples=100).iter_rows(
        named=True)}
    # per item: perfect 1; half 1,1,0,0; mid 1,1,1,0 -> majority A on i0,i1,i2 (2 of 3), B on i3 -> 3/4
    assert (jury["perfect"]["accuracy"], jury["perfect"]["n_items"]) == (100.0, 4)
    assert jury["majority of 3"]["accuracy"] == pytest.approx(75.0)
    # hard-empirical: an item is hard when a selector is wrong on it; gold-free items never are
    hard, n_cand = hard_empirical_items(ds, "t", ["half"])
    assert n_cand == 4 and sorted(hard["item_id"].to_list()) == ["i2", "i3"]
    agree = agreement_matrix(ds, "t", ["perfect", "half"]).filter(pl.col("kind") == "judge-label")
    assert set(agree["n_units"].to_list()) == {8}  # 4 items x 2 orders with gold


def test_gold_free_benchmark_says_it_needs_gold():
    ds = _ds({"a": None, "b": None}, [("x", "a", "AB", "A"), ("x", "b", "AB", "B"), ("y", "a", "AB", "A"),
                                       ("y", "b", "AB", "A"), ("z", "a", "AB", "B"), ("z", "b", "AB", "B")])
    with pytest.raises(CAPInputError, match="needs gold"):
        item_frame(ds, "t", "x")
    with pytest.raises(CAPInputError, match="needs gold"):
        agreement_matrix(ds, "t", ["x", "y"])


def test_stable_but_wrong_uses_the_items_with_gold():
    # "cheap" on 4 gold items: A/A on i0 (right), B/B on i1 (stable but wrong), A/B on i2, i3 (inconsistent)
    # and A/A on the four gold-free items (consistent, but cannot be right or wrong)
    rows = ([("cheap", "i0", o, "A") for o in ("AB", "BA")] + [("cheap", "i1", o, "B") for o in ("AB", "BA")]
            + [("cheap", f"i{k}", "AB", "A") for k in (2, 3)] + [("cheap", f"i{k}", "BA", "B") for k in (2, 3)]
            + [("cheap", f"i{k}", o, "A") for k in range(4, 8) for o in ("AB", "BA")])
    prof = compute_profile(_ds(GOLD8, rows), n_resamples=100).profile.filter(pl.col("condition") == "C7")
    got = {r["metric"]: r for r in prof.iter_rows(named=True)}
    # strict 1 of 4 gold items; consistency 6 of 8 items; stable-but-wrong on the gold items: (2 - 1) of 4
    assert got["strict"]["value"] == pytest.approx(25.0) and got["consistency"]["value"] == pytest.approx(75.0)
    assert got["stable_but_wrong"]["value"] == pytest.approx(25.0) and got["stable_but_wrong"]["n_items"] == 4


def test_jury_uses_the_items_every_juror_received():
    gold = {f"i{k}": "A" for k in range(10)}
    good = [("good", f"i{k}", o, "A") for k in range(10) for o in ("AB", "BA")]
    mid = [("mid", f"i{k}", o, "A" if k < 7 else "B") for k in range(10) for o in ("AB", "BA")]
    partial = [("partial", f"i{k}", o, "B") for k in range(3) for o in ("AB", "BA")]  # 3 items, all wrong
    jury = {r["entry"]: r for r in jury_comparison(_ds(gold, good + mid + partial), "t", ["good", "mid", "partial"],
                                                   n_resamples=100).iter_rows(named=True)}
    # only i0..i2 were judged by all three: majority (A, A, B) = A, right on 3 of 3; partial 0 of 3
    assert {e: (r["accuracy"], r["n_items"]) for e, r in jury.items()} == {
        "good": (100.0, 3), "mid": (100.0, 3), "partial": (0.0, 3), "majority of 3": (100.0, 3)}


def test_failures_excluded_are_not_shared():
    # j: unparsed on the 5 items where k is wrong; both right on the other 5
    gold = {f"i{k}": "A" for k in range(10)}
    j = [("j", f"i{k}", o, "A" if k < 5 else "unparsed") for k in range(10) for o in ("AB", "BA")]
    k = [("k", f"i{n}", o, "A" if n < 5 else "B") for n in range(10) for o in ("AB", "BA")]
    ds = _ds(gold, j + k)
    got = run_choice(ds, "t", {"C7": 1}, failures="exclude", n_resamples=200)
    board = {r["judge"]: r for r in got.choice.leaderboard.iter_rows(named=True)}
    # compared on the 5 items both judged without a failure: both 100 on n = 5, not separable
    assert (board["j"]["score"], board["j"]["n_items"], board["k"]["score"], board["k"]["n_items"]) == \
        (100.0, 5, 100.0, 5)
    assert not any(r["separable"] for r in board.values() if r["separable"] is not None)
    assert any("judged without a failed verdict" in n for n in got.inputs.notices)
    pair = compare_judges(ds, "j", "k", "t", n_resamples=200, failures="exclude")
    overall = pair.filter(pl.col("condition") == "overall").row(0, named=True)
    assert (overall["diff"], overall["n_items"]) == (0.0, 5)
