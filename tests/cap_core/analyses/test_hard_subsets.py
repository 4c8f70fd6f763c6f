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


def test_constructed_subset_from_a_users_construction():
    from cap_core.analyses.hard_subsets import (
        CONSTRUCTED_NOTE,
        hard_constructed_profile,
    )

    # the user's construction names i0, i4 and i1 (i1p is the polished variant of i1 and comes along)
    res = hard_constructed_profile(qc_dataset(), "toy", ["i0", "i4", "i1"], n_resamples=50)
    overall = {r["judge"]: r["value"] for r in res.profile.filter(
        (pl.col("condition") == "overall") & (pl.col("metric") == "pa")).iter_rows(named=True)}
    # J: i0 2 + i4 2 + i1 0 + i1p 2 = 6/8; K: 2 + 2 + 2 + 2 = 8/8
    assert overall == pytest.approx({"J": 75.0, "K": 100.0})
    assert set(res.profile["subset"]) == {"hard_constructed"}
    assert res.warning == CONSTRUCTED_NOTE and "judge-independent" in res.warning
    assert res.n_candidates == 6 and res.items["item_id"].to_list() == ["i0", "i1", "i4"]
    # CAP Table 9 style: error types of the constructed plain items
    types = dict(res.types.select("failure_type", "n").rows())
    assert types == {"factual_fabrication": 2, "logical_reversal": 1}


def test_constructed_subset_refuses_unknown_items():
    from cap_core.analyses.hard_subsets import hard_constructed_profile

    with pytest.raises(CAPInputError, match="not an item of") as err:
        hard_constructed_profile(qc_dataset(), "toy", ["i0", "zz"], n_resamples=10)
    assert err.value.row == 2 and err.value.column == "item_id"
    with pytest.raises(CAPInputError, match="at least one item"):
        hard_constructed_profile(qc_dataset(), "toy", [], n_resamples=10)


def test_empirical_result_has_type_counts():
    res = hard_empirical_profile(qc_dataset(), "toy", ["J", "K"], n_resamples=20)
    # hard plain items i1, i2 (factual), i5 (logical)
    assert dict(res.types.select("failure_type", "n").rows()) == {"factual_fabrication": 2, "logical_reversal": 1}


def test_constructed_items_without_a_plain_presentation_count_as_themselves():
    from cap_core.analyses.hard_subsets import hard_constructed_items

    ds = qc_dataset()
    extra = pl.DataFrame({"item_id": ["h0"], "base_item_id": ["h0"], "variant": ["polished"],
                          "failure_type": ["omission"], "flags": [None], "benchmark": ["toy"], "gold": ["A"]})
    items = pl.concat([ds.items.select(extra.columns), extra])
    ds2 = Dataset.build(items, ds.judgments)
    chosen, n_cand = hard_constructed_items(ds2, "toy", ["h0", "i1p"])
    assert chosen["item_id"].to_list() == ["h0", "i1"] and n_cand == 6
