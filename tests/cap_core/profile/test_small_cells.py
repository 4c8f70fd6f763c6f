"""The small-cell rule: intervals over fewer than 50 base items are called optimistic, said once."""

from __future__ import annotations

import polars as pl
import pytest

from cap_core.errors import CAPInputError
from cap_core.profile.small_cells import (
    SMALL_CELL_BASE_ITEMS,
    small_cell_notice,
    small_cells,
)


def _profile() -> pl.DataFrame:
    # hand-made: J on C5 (30 items), J on C7 (49), K on C7 (50, not small), a published row of 12 items,
    # a non-primary row of 10, and an unmeasured C3 (no value)
    return pl.DataFrame({
        "judge": ["J", "J", "K", "P", "J", "J"],
        "condition": ["C5", "C7", "C7", "C1", "C7", "C3"],
        "value": [80.0, 70.0, 60.0, 40.5, 65.0, None],
        "ci_low": [65.0, 57.0, 46.0, 34.0, 50.0, None],
        "ci_high": [93.0, 82.0, 73.0, 46.0, 80.0, None],
        "n_items": [30, 49, 50, 12, 10, 0],
        "primary": [True, True, True, True, False, True],
        "source": ["computed", "computed", "computed", "published: CAP Table 3", "computed", "computed"],
    })


def test_cells_below_fifty_are_flagged_and_fifty_is_not():
    assert SMALL_CELL_BASE_ITEMS == 50
    flagged = small_cells(_profile())
    assert list(zip(flagged["judge"], flagged["condition"])) == [("J", "C5"), ("J", "C7")]


def test_notice_is_one_sentence_citing_the_measured_coverage():
    text = small_cell_notice(_profile())
    assert text.startswith("2 cells have fewer than 50 base items (J on C5, n = 30; J on C7, n = 49)")
    assert "optimistic" in text and "91–92% at 30 base items" in text and "94% from 100" in text
    assert small_cell_notice(_profile().filter(pl.col("judge") == "K")) is None


def test_bad_input_names_the_argument():
    with pytest.raises(CAPInputError, match="argument `profile`"):
        small_cells(_profile().drop("n_items"))
    with pytest.raises(CAPInputError, match="threshold"):
        small_cells(_profile(), 0)
    with pytest.raises(CAPInputError, match="label"):
        small_cell_notice(_profile(), label="nope")
