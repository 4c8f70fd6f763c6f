"""Dataset summary and the Profiles table builders."""

import polars as pl

from cap_core.schema import PROFILE_SCHEMA
from components.labels import entry_label
from components.tables import dataset_summary, profile_table


def test_dataset_summary_counts_by_hand():
    items = pl.DataFrame({"benchmark": ["b", "b", "b", "c"], "item_id": ["1", "2", "3", "1"],
                          "base_item_id": ["1", "1", "3", "1"]})
    judg = pl.DataFrame({
        "benchmark": ["b"] * 5 + ["c"],
        "judge": ["J", "J", "K", "K", "K", "J"],
        "verdict": ["A", "tie", "unparsed", "B", "tie", "A"],
    })
    s = dataset_summary(items, judg)
    # b: 3 items over 2 base items, judges J and K, 5 verdicts of which 2 ties and 1 unparsed
    assert s.row(0) == ("b", 3, 2, 2, 5, 2, 1)
    assert s.row(1) == ("c", 1, 1, 1, 1, 0, 0)


def test_profile_table_keeps_primary_conditions_in_order():
    base = {k: None for k in PROFILE_SCHEMA}
    rows = []
    for cond, metric, primary in [("C7", "strict", True), ("C1", "pa", True), ("C7", "consistency", False),
                                  ("overall", "pa", True)]:
        rows.append({**base, "judge": "J", "benchmark": "b", "subset": "all", "condition": cond, "metric": metric,
                     "value": 40.46, "primary": primary, "source": "computed"})
    df = pl.DataFrame(rows, schema=PROFILE_SCHEMA).with_columns(pl.lit("J").alias("label"))
    t = profile_table(df)
    assert t["condition"].to_list() == ["C1", "C7"]
    assert t["condition_name"].to_list() == ["Factual Sensitivity", "Position Robustness"]
    assert t["value"].to_list() == [40.5, 40.5]  # rounded to one decimal for display and export


def test_entry_labels():
    assert entry_label("GPT-4/CoT", "all", "computed") == "GPT-4/CoT"
    assert entry_label("GPT-4o", "hard_empirical", "published: CAP Table 3") == "GPT-4o · CAP Table 3 · hard_empirical"


def test_short_labels_cut_at_60_and_stay_distinct():
    from components.labels import short_label, short_labels

    long = "=cmd|" + "a" * 200_000
    assert short_label(long) == long[:59] + "…" and len(short_label(long)) == 60
    assert short_label("GPT-4/CoT") == "GPT-4/CoT"
    assert short_label("two\nlines") == "two lines"
    shown = short_labels([long, long + "b", "GPT-4/CoT", long])
    assert len(shown) == 3 and shown["GPT-4/CoT"] == "GPT-4/CoT"
    assert shown[long] == long[:59] + "…"
    assert shown[long + "b"].endswith(" #2") and len(shown[long + "b"]) == 60
