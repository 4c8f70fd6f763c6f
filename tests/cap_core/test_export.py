"""Formula-safe CSV / JSON export (cap_core.export)."""

import io
import json

import polars as pl
import pytest

from cap_core.errors import CAPInputError
from cap_core.export import neutralise_formulas, to_csv_bytes, to_json_bytes


def shown() -> pl.DataFrame:
    return pl.DataFrame(
        {
            "judge": ["=SUM(A1)", "GPT-4o", "+cmd", "@x", "\tTab", "-neg", "plain", None],
            "value": [-0.4, 64.1, None, 1.0, 2.0, 3.0, 4.0, 5.0],
            "n_items": [1, 2, 3, 4, 5, 6, 7, 8],
            "renormalised": [True, False, True, False, True, False, True, False],
        }
    )


def test_formula_cells_get_a_quote_and_numbers_stay_numbers():
    text = to_csv_bytes(shown()).decode()
    lines = text.splitlines()
    assert lines[0] == "judge,value,n_items,renormalised"
    assert lines[1] == "'=SUM(A1),-0.4,1,true"
    back = pl.read_csv(io.BytesIO(text.encode()))
    assert back.schema["value"] == pl.Float64
    assert back["value"][0] == -0.4
    assert back["judge"].to_list()[:7] == ["'=SUM(A1)", "GPT-4o", "'+cmd", "'@x", "'\tTab", "'-neg", "plain"]


def test_json_keeps_numbers_and_nulls():
    rows = json.loads(to_json_bytes(shown()))
    assert rows[0] == {"judge": "'=SUM(A1)", "value": -0.4, "n_items": 1, "renormalised": True}
    assert rows[2]["value"] is None
    assert rows[7]["judge"] is None


def test_csv_round_trip_equals_neutralised_table():
    df = pl.DataFrame({"judge": ["a", "b"], "condition": ["C1", "C2"], "value": [40.5, -0.4], "n_items": [39, None]})
    back = pl.read_csv(io.BytesIO(to_csv_bytes(df)), schema=df.schema)
    assert back.equals(neutralise_formulas(df))
    assert back.equals(df)  # nothing formula-like here, so the export is the table itself
    assert pl.DataFrame(json.loads(to_json_bytes(df)), schema=df.schema).equals(df)


def test_carriage_return_and_lists():
    df = pl.DataFrame({"t": ["\rx", "ok"], "l": [["=a", "b"], ["c"]]})
    out = neutralise_formulas(df)
    assert out["t"].to_list() == ["'\rx", "ok"]
    assert out["l"].to_list() == ["'=a; b", "c"]


def test_export_iv():
    with pytest.raises(CAPInputError, match="must be a polars DataFrame"):
        to_csv_bytes([{"a": 1}])
    with pytest.raises(CAPInputError, match="must be a polars DataFrame"):
        to_json_bytes(None)
