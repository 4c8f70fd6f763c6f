"""Per-subset profile rows: items without a subset, micro and macro overall (hand fixture)."""

from __future__ import annotations

import polars as pl
import pytest

from cap_core.dataset import Dataset
from cap_core.profile.conditions import MISSING_SUBSET, compute_profile


def _dataset() -> Dataset:
    """6 items, one order (AB), one judge J.

    subset x: i0, i1, i2, i3 -- J right on i0, i1, i2, wrong on i3  -> 3/4 = 75 %
    subset y: i4             -- J right                              -> 1/1 = 100 %
    no subset: i5            -- J wrong                              -> 0/1 = 0 %
    micro (item-weighted) overall: 4/6 = 66.67 %; macro over the named subsets x, y: (75 + 100) / 2 = 87.5 %,
    with the (missing) row shown beside it, not averaged in.
    """
    items = pl.DataFrame({"benchmark": "b", "item_id": [f"i{k}" for k in range(6)], "gold": "A",
                          "subset": ["x", "x", "x", "x", "y", None]})
    verdicts = ["A", "A", "A", "B", "A", "B"]
    judgments = pl.DataFrame({"judge": "J", "benchmark": "b", "item_id": [f"i{k}" for k in range(6)],
                              "order": "AB", "verdict": verdicts})
    return Dataset.build(items, judgments)


def _overall(res):
    return {(r["subset"], r["metric"]): r for r in
            res.profile.filter(pl.col("condition") == "overall").iter_rows(named=True)}


def test_missing_subset_row_and_notice():
    res = compute_profile(_dataset(), n_resamples=200, by_subset=True)
    got = _overall(res)
    assert got[("x", "pa")]["value"] == pytest.approx(75.0)
    assert got[("y", "pa")]["value"] == pytest.approx(100.0)
    assert got[(MISSING_SUBSET, "pa")]["value"] == pytest.approx(0.0)
    assert got[(MISSING_SUBSET, "pa")]["n_items"] == 1
    assert any("1 of 6 items" in n and MISSING_SUBSET in n for n in res.notices)


def test_micro_labelled_and_macro_beside_it():
    res = compute_profile(_dataset(), n_resamples=200, by_subset=True)
    got = _overall(res)
    micro, macro = got[("all", "pa")], got[("all", "macro_pa")]
    assert micro["value"] == pytest.approx(400 / 6)
    assert "micro" in micro["operator"] and "item-weighted" in micro["operator"]
    assert macro["value"] == pytest.approx((75 + 100) / 2)
    assert macro["primary"] is False and "macro" in macro["operator"] and "named subsets" in macro["operator"]
    assert f"the {MISSING_SUBSET} subset is shown beside it" in macro["operator"]
    assert macro["ci_low"] <= macro["value"] <= macro["ci_high"]
    # the macro replicates are the mean of the two named subsets' replicates, resample by resample
    k = {(r["subset"], r["metric"]): i for i, r in enumerate(res.profile.iter_rows(named=True))
         if r["condition"] == "overall"}
    reps = res.replicates
    mean = (reps[:, k[("x", "pa")]] + reps[:, k[("y", "pa")]]) / 2
    assert reps[:, k[("all", "macro_pa")]] == pytest.approx(mean)


def test_without_by_subset_nothing_changes():
    res = compute_profile(_dataset(), n_resamples=200)
    got = _overall(res)
    assert set(got) == {("all", "pa")} and not res.notices
    assert "micro" not in got[("all", "pa")]["operator"]


def test_no_named_subsets_no_missing_row():
    ds = _dataset()
    ds = Dataset.build(ds.items.with_columns(pl.lit("all").alias("subset")), ds.judgments)
    res = compute_profile(ds, n_resamples=200, by_subset=True)
    assert set(_overall(res)) == {("all", "pa")} and not res.notices


def test_cli_prints_the_notice(tmp_path, capsys):
    from cap_core.cli.main import main
    from cap_core.dataset import save_dataset

    data = save_dataset(_dataset(), tmp_path / "d")
    out = tmp_path / "p.csv"
    assert main(["profile", "--data", str(data), "--by-subset", "--bootstrap", "200", "--out", str(out)]) == 0
    assert "notice: b: 1 of 6 items carries no subset" in capsys.readouterr().err
    got = pl.read_csv(out).filter((pl.col("condition") == "overall") & (pl.col("metric") == "macro_pa"))
    assert got["value"][0] == pytest.approx(175 / 2)  # x 75, y 100; (missing) beside it
