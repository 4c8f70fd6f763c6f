"""Per-slot bars figure."""

from __future__ import annotations

import math

import polars as pl

from cap_core.validity.slots import SLOT_TABLE_SCHEMA
from components.slot_bars import slot_bars_figure

ROWS = [("G", "domain_extension", "T_C", "scope", "R", 1.5, 0.6, 0.4, 0.8, 10, 10, 1),
        ("G", "register", "T_I", "control", "flip rate", 1.5, 0.1, 0.0, 0.2, 10, 10, 1),
        ("H", "domain_extension", "T_C", "scope", "R", 2.5, float("nan"), None, None, 0, 0, 1)]


def test_bars_whiskers_hatching_and_published_markers():
    t = pl.DataFrame(ROWS, schema=SLOT_TABLE_SCHEMA, orient="row")
    pub = pl.DataFrame({"slot": ["domain_extension", "hedging_removal"], "R": [0.445, 0.3]})
    fig = slot_bars_figure(t, pub)
    g, h, p = fig.data
    assert g.name == "G" and [round(x, 9) for x in g.x] == [60.0, 10.0]  # percent
    # whiskers are distances from the bar: 0.8 - 0.6 up, 0.6 - 0.4 down
    assert math.isclose(g.error_x.array[0], 20.0) and math.isclose(g.error_x.arrayminus[0], 20.0)
    assert list(g.marker.pattern.shape) == ["", "/"]  # the control is hatched
    assert list(h.x) == [None]  # no value, no bar
    assert p.name == "published: Validity Table 6" and [round(x, 9) for x in p.x] == [44.5, 30.0]
    # a published slot absent from the computed table still gets a row
    assert list(fig.layout.yaxis.categoryarray) == ["hedging_removal (R)", "register (flip rate)",
                                                    "domain_extension (R)"]
    assert len(slot_bars_figure(t).data) == 2
