"""A small judgerEva-like benchmark for the QC and hard-subset tests (values worked by hand there)."""

import polars as pl

from cap_core.dataset import Dataset

# item, base, variant, failure_type, flags ; gold is always A
ITEMS = [
    ("i0", "i0", "plain", "factual_fabrication", None),
    ("i1", "i1", "plain", "factual_fabrication", "low_quality"),
    ("i2", "i2", "plain", "factual_fabrication", None),
    ("i3", "i3", "plain", "factual_fabrication", ""),
    ("i4", "i4", "plain", "logical_reversal", "other;low_quality"),
    ("i5", "i5", "plain", "logical_reversal", "other"),
    ("i1p", "i1", "polished", "factual_fabrication", None),  # variant of a flagged item, itself unflagged
]
# judge -> item -> (AB verdict, BA verdict), original letters
VERDICTS = {
    "J": {"i0": ("A", "A"), "i1": ("B", "B"), "i2": ("A", "B"), "i3": ("A", "A"), "i4": ("A", "A"),
          "i5": ("B", "A"), "i1p": ("A", "A")},
    "K": {"i0": ("A", "A"), "i1": ("A", "A"), "i2": ("tie", "A"), "i3": ("A", "A"), "i4": ("A", "A"),
          "i5": ("A", "A"), "i1p": ("A", "A")},
}


def qc_dataset() -> Dataset:
    items = pl.DataFrame(ITEMS, schema=["item_id", "base_item_id", "variant", "failure_type", "flags"],
                         orient="row").with_columns(pl.lit("toy").alias("benchmark"), pl.lit("A").alias("gold"))
    rows = [(j, i, o, v) for j, per in VERDICTS.items() for i, (ab, ba) in per.items()
            for o, v in (("AB", ab), ("BA", ba))]
    judg = pl.DataFrame(rows, schema=["judge", "item_id", "order", "verdict"], orient="row").with_columns(
        pl.lit("toy").alias("benchmark"))
    return Dataset.build(items, judg)
