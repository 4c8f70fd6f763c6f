"""Pure audit figure and tables on hand-made frames."""

from __future__ import annotations

import polars as pl

from cap_core.audit.surface import AUDIT_SCHEMA, PRED_SCHEMA
from components.audit_bars import (
    audit_bars_figure,
    audit_display_table,
    length_drilldown,
    published_vs_computed,
)


def _table() -> pl.DataFrame:
    rows = [
        ("RewardBench", "length_only", "paired", 10, 0, 10, 60.0, 0.2, "accuracy", 60.0, 50.0, 53.0, 0.01, True,
         "recoverable from surface", 100, "pair roles swapped at random", "g", 0),
        ("RewardBench", "surface_ngram", "paired", 10, 0, 10, 66.0, 0.32, "accuracy", 66.0, 50.0, 52.0, 0.01, True,
         "recoverable from surface", 100, "pair roles swapped at random", "g", 0),
        ("RewardBench", "surface_ngram", "item", 20, 0, 10, 62.0, 0.24, "kappa", 0.24, 0.0, 0.02, 0.01, True,
         "recoverable from surface", 100, "permuted within groups", "g", 0),
        ("Mine", "length_only", "paired", 10, 2, 10, 51.0, 0.02, "accuracy", 51.0, 50.0, 56.0, 0.4, False,
         "not above its null", 100, "pair roles swapped at random", "g", 0),
    ]
    return pl.DataFrame(rows, schema=AUDIT_SCHEMA, orient="row")


def test_bars_have_null_band_and_hatch_rows_that_fail_their_null():
    fig = audit_bars_figure(_table(), "paired")
    bars = [t for t in fig.data if t.type == "bar"]
    band = [t for t in bars if t.name.startswith("null band")]
    assert len(band) == 2  # one band trace per predictor
    lo = [t for t in band if t.offsetgroup == "length_only"][0]
    assert list(lo.base) == [50.0, 50.0] and list(lo.y) == [3.0, 6.0]  # mean 50 to p95 53 / 56
    score = [t for t in bars if t.name == "length_only"][0]
    assert list(score.marker.pattern.shape) == ["", "/"]  # Mine does not clear its null
    assert fig.layout.yaxis.title.text.startswith("paired accuracy")


def test_display_table_formats_the_band_in_each_unit():
    shown = audit_display_table(_table())
    assert shown["null mean – 95th pct."].to_list()[:3] == ["50.0 – 53.0 %", "50.0 – 52.0 %", "0.0 – 0.02"]


def test_length_drilldown_by_hand():
    preds = pl.DataFrame([
        ("S", "length_only", "paired", "p1", "p1", "x", 1, 1, True, 300, 100, 0),   # left better and longer
        ("S", "length_only", "paired", "p2", "p2", "x", 0, 1, False, 50, 20, 0),    # right better, shorter
        ("S", "surface_ngram", "paired", "p1", "p1", "x", 1, 0, False, 300, 100, 0),
    ], schema=PRED_SCHEMA, orient="row")
    d = length_drilldown(preds, "S", "paired")
    assert d.rows() == [("p1", "x", 300, 100, True, True), ("p2", "x", 20, 50, False, False)]


def test_published_vs_computed_takes_the_best_predictor():
    pub = pl.DataFrame({"label_set": ["RewardBench"], "a_imp": [0.303], "kappa": [0.249], "paired_accuracy": [62.4]})
    comp = published_vs_computed(pub, _table())
    paired = comp.filter(pl.col("mode") == "paired").row(0, named=True)
    assert paired["computed (best predictor)"] == 66.0 and paired["predictor"] == "surface_ngram"
    assert paired["published: Validity Table 7"] == 62.4
    item = comp.filter(pl.col("mode") == "item").row(0, named=True)
    assert item["computed (best predictor)"] == 0.24 and item["published: Validity Table 7"] == 0.303
    assert published_vs_computed(pub, pl.DataFrame()).height == 0
