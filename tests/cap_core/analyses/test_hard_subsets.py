"""Hard-empirical subsets (CAP App. A.5) on the hand-worked fixture of tests/cap_core/analyses/_qc_fixtures.py."""

import polars as pl
import pytest

from cap_core.analyses.hard_subsets import (
    HARD_WARNING,
    hard_empirical_items,
    hard_empirical_profile,
)
from cap_core.dataset import Dataset
from cap_core.errors import CAPInputError
from tests.cap_core.analyses._qc_fixtures import qc_dataset


def test_items_some_selector_got_wrong_in_ab_order():
    ds = qc_dataset()
    # AB verdicts (gold A): J wrong on i1 and i5; K gives "tie" on i2 (not correct). i1p is a polished
    # variant, not a candidate; BA verdicts never select (J's BA "B" on i2 alone would not).
    hard, n_cand = hard_empirical_items(ds, "toy", ["J", "K"])
    assert n_cand == 6
    assert dict(hard.select("item_id", "n_wrong").rows()) == {"i1": 1, "i2": 1, "i5": 1}
    only_k, _ = hard_empirical_items(ds, "toy", ["K"])
    assert only_k["item_id"].to_list() == ["i2"]


def test_profile_on_the_hard_subset():
    res = hard_empirical_profile(qc_dataset(), "toy", ["J", "K"], n_resamples=50)
    assert res.warning == HARD_WARNING and "Selection bias" in res.warning
    overall = {r["judge"]: r["value"] for r in res.profile.filter(
        (res.profile["condition"] == "overall") & (res.profile["metric"] == "pa")).iter_rows(named=True)}
    # subset = i1, i1p (variant of a hard base), i2, i5
    # J correct judgments: i1 0 + i1p 2 + i2 1 + i5 1 = 4/8; K: 2 + 2 + 1 + 2 = 7/8
    assert overall == pytest.approx({"J": 50.0, "K": 87.5})
    assert set(res.profile["subset"]) == {"hard_empirical"}
    assert res.replicates.shape == (50, res.profile.height)


def test_bad_inputs():
    ds = qc_dataset()
    with pytest.raises(CAPInputError, match="at least one judge"):
        hard_empirical_items(ds, "toy", [])
    with pytest.raises(CAPInputError, match="no verdicts"):
        hard_empirical_items(ds, "toy", ["Z"])
    with pytest.raises(CAPInputError, match="unknown benchmark"):
        hard_empirical_items(ds, "nope", ["J"])
    # K without its one tie (i2 AB) is right on every A/B verdict: nothing to select
    jm = ds.judgments.filter((pl.col("judge") == "K") & ~((pl.col("item_id") == "i2") & (pl.col("order") == "AB")))
    with pytest.raises(CAPInputError, match="no hard item"):
        hard_empirical_profile(Dataset(items=ds.items, judgments=jm), "toy", ["K"], n_resamples=10)
