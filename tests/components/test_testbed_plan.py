"""The testbed plan heatmap: one row per domain, one column per planted error type, each cell its count."""

from __future__ import annotations

import polars as pl

from components.testbed_plan import plan_heatmap


def test_each_cell_shows_its_count_and_absent_cells_are_zero():
    counts = pl.DataFrame({"domain": ["law", "law", "bio"], "failure_type": ["factual_fabrication",
                                                                             "omission", "logical_reversal"],
                           "n": [3, 2, 4]})
    trace = plan_heatmap(counts).data[0]
    # rows: bio, law (sorted); columns: C1 factual fabrication, C2 logical reversal, C3 overclaim, C4 omission
    assert list(trace.y) == ["bio", "law"]
    assert [list(r) for r in trace.z] == [[0, 4, 0, 0], [3, 0, 0, 2]]
    assert [list(r) for r in trace.text] == [["0", "4", "0", "0"], ["3", "0", "0", "2"]]
    assert trace.texttemplate == "%{text}"
