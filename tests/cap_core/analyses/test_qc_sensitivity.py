"""QC sensitivity (CAP App. A.6, Table 10) on a hand-worked fixture (tests/cap_core/analyses/_qc_fixtures.py)."""

import polars as pl
import pytest

from cap_core.analyses.qc_sensitivity import (
    available_flags,
    exclude_flagged,
    flagged_base_items,
    qc_sensitivity,
)
from cap_core.errors import CAPInputError
from tests.cap_core.analyses._qc_fixtures import qc_dataset


def cells(frame):
    return {(r["judge"], r["condition"], r["metric"]): r for r in frame.iter_rows(named=True)}


def test_flag_removes_the_whole_base_item():
    ds = qc_dataset()
    bases = flagged_base_items(ds)
    # i1 (plus its polished variant i1p) and i4 ("other;low_quality"); i5 has only "other"
    assert bases.select("base_item_id", "n_items").rows() == [("i1", 2), ("i4", 1)]
    kept = exclude_flagged(ds)
    assert sorted(kept.items["item_id"]) == ["i0", "i2", "i3", "i5"]
    assert set(kept.judgments["item_id"]) == {"i0", "i2", "i3", "i5"}
    assert available_flags(ds) == ["low_quality", "other"]


def test_changes_match_a_hand_computation():
    out = cells(qc_sensitivity(qc_dataset(), n_resamples=20))
    # J correct judgments per item (AB, BA): i0 2, i1 0, i2 1, i3 2, i4 2, i5 1, i1p 2
    # overall pa: all 10/14; without i1, i1p, i4: 6/8 -> change 75 - 71.43 = +3.57
    assert out[("J", "overall", "pa")]["value_all"] == pytest.approx(100 * 10 / 14)
    assert out[("J", "overall", "pa")]["change"] == pytest.approx(75.0 - 100 * 10 / 14)
    # C1 (plain factual items i0-i3): 5/8 -> i0,i2,i3 5/6: +20.83
    assert out[("J", "C1", "pa")]["change"] == pytest.approx(100 * 5 / 6 - 62.5)
    # C2 (i4, i5): 3/4 -> i5 1/2: -25
    assert out[("J", "C2", "pa")]["change"] == pytest.approx(-25.0)
    # C7 strict over all 7 items: i0,i3,i4,i1p both right 4/7 -> i0,i3 of 4: 50
    assert out[("J", "C7", "strict")]["change"] == pytest.approx(50.0 - 100 * 4 / 7)
    # C7 consistency: same verdict on i0,i1,i3,i4,i1p 5/7 -> i0,i3 of 4
    assert out[("J", "C7", "consistency")]["change"] == pytest.approx(50.0 - 100 * 5 / 7)
    # K: tie on i2 AB only. C1 7/8 -> 5/6 (a fall: negative change)
    assert out[("K", "C1", "pa")]["change"] == pytest.approx(100 * 5 / 6 - 87.5)
    assert out[("K", "C2", "pa")]["change"] == pytest.approx(0.0)


def test_a_cell_with_no_unit_left_is_null_not_zero():
    out = cells(qc_sensitivity(qc_dataset(), n_resamples=20))
    c5 = out[("J", "C5", "strict")]  # the only plain/polished pair is the flagged base i1
    assert c5["n_all"] == 1 and c5["n_left"] == 0
    assert c5["value_excluded"] is None and c5["change"] is None


def test_missing_flag_and_bad_arguments():
    ds = qc_dataset()
    with pytest.raises(CAPInputError, match="no item carries the flag 'nope'") as err:
        qc_sensitivity(ds, "nope")
    assert "low_quality, other" in str(err.value)
    with pytest.raises(CAPInputError, match="one tag"):
        qc_sensitivity(ds, "a;b")
    with pytest.raises(CAPInputError, match="Dataset"):
        qc_sensitivity(pl.DataFrame(), "low_quality")
    with pytest.raises(CAPInputError, match="no item flagged"):
        qc_sensitivity(ds, benchmarks=["other_bench"])
