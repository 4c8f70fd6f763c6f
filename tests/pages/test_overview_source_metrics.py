"""Overview shows the sources' own metrics beside CAP's, with the reason where they differ."""

from __future__ import annotations

from pathlib import Path

import polars as pl
from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parents[2] / "app.py")


def test_overview_shows_source_metrics_with_reasons():
    at = AppTest.from_file(APP, default_timeout=120).run()
    assert not at.exception and not at.error
    assert "The sources' own metrics, beside CAP's" in [s.value for s in at.subheader]
    table = pl.from_pandas(next(d.value for d in at.dataframe if "why they differ" in d.value.columns))
    o1 = table.filter(pl.col("judge") == "o1-mini (arena_hard)", pl.col("subset") == "all").row(0, named=True)
    assert o1["source %"] == 65.71  # JudgeBench Table 2
    assert "net positive" in o1["why they differ"]
    at.toggle(key="ov_source_differ").set_value(False).run()
    table = pl.from_pandas(next(d.value for d in at.dataframe if "why they differ" in d.value.columns))
    assert (table["why they differ"] == "").any()  # rows where CAP agrees appear too
