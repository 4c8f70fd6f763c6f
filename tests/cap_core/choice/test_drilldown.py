"""Drill-down by hand: four items in both orders, two judges, C7 (both orders correct) and texts."""

from __future__ import annotations

import polars as pl

from cap_core.choice.drilldown import LEADER_WRONG, RUNNER_WRONG, disagreements
from cap_core.dataset import Dataset

GOLD = {"i1": "A", "i2": "B", "i3": "A", "i4": "B"}
V = {  # verdicts in the original letters
    "L": {"AB": ["A", "A", "A", "B"], "BA": ["A", "B", "B", "B"]},   # right (both orders) on i1, i4
    "R": {"AB": ["A", "B", "A", "A"], "BA": ["A", "B", "A", "B"]},   # right on i1, i2, i3
}


def _ds(texts: bool) -> Dataset:
    items = {"benchmark": "t", "item_id": list(GOLD), "gold": list(GOLD.values())}
    rows = [{"judge": j, "benchmark": "t", "item_id": i, "order": o, "verdict": v}
            for j, by in V.items() for o, vs in by.items() for i, v in zip(GOLD, vs)]
    text_table = None
    if texts:  # the dataset's texts table (question and responses per item)
        text_table = pl.DataFrame({"benchmark": "t", "item_id": list(GOLD), "question": [f"q{i}" for i in range(4)],
                                   "response_a": "a", "response_b": "b"})
    return Dataset.build(pl.DataFrame(items), pl.DataFrame(rows), texts=text_table)


def test_c7_items_by_hand():
    d = disagreements(_ds(False), "t", "L", "R")
    c7 = d.filter(pl.col("condition") == "C7")
    got = {(r["unit"], r["direction"]) for r in c7.iter_rows(named=True)}
    # i2, i3: L wrong in one order, R right in both; i4: L right in both, R wrong in AB
    assert got == {("i2", LEADER_WRONG), ("i3", LEADER_WRONG), ("i4", RUNNER_WRONG)}
    row = c7.filter(pl.col("unit") == "i3").row(0, named=True)
    assert row["leader_verdicts"] == "AB:A BA:B" and row["runner_up_verdicts"] == "AB:A BA:A"
    assert "question" not in d.columns


def test_texts_when_the_items_have_them():
    d = disagreements(_ds(True), "t", "L", "R")
    assert {"question", "response_a", "response_b"} <= set(d.columns)
    assert d.filter(pl.col("unit") == "i2")["question"][0] == "q1"
