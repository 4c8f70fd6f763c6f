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


def test_json_keeps_every_value_exactly():
    rows = json.loads(to_json_bytes(shown()))
    # JSON is read by programs, not spreadsheets: names keep their exact text, no ' prefix
    assert rows[0] == {"judge": "=SUM(A1)", "value": -0.4, "n_items": 1, "renormalised": True}
    assert [r["judge"] for r in rows] == ["=SUM(A1)", "GPT-4o", "+cmd", "@x", "\tTab", "-neg", "plain", None]
    assert rows[2]["value"] is None


def test_json_of_a_plus_name_round_trips():
    df = pl.DataFrame({"judge": ["+judgeB", "=x"], "value": [1.5, None]})
    assert pl.DataFrame(json.loads(to_json_bytes(df)), schema=df.schema).equals(df)


def test_csv_catches_formulas_after_leading_whitespace():
    df = pl.DataFrame({"t": [" =1+1", "\n=cmd|' /C calc'!A0", "  @SUM(A1)", "\t5", "\r", "-5", "+1.5e3", "-2+3",
                             "a=b", " plain", "-"]})
    out = neutralise_formulas(df)["t"].to_list()
    assert out == ["' =1+1", "'\n=cmd|' /C calc'!A0", "'  @SUM(A1)", "'\t5", "'\r",
                   "-5", "+1.5e3",  # text that is just a number is left as it is
                   "'-2+3", "a=b", " plain", "'-"]


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


def test_float_noise_is_removed_in_both_exports():
    # 0.1 + 0.2 = 0.30000000000000004 and 58 * 0.01 * 100 = 57.99999999999999 in binary floating point
    df = pl.DataFrame({"value": [0.1 + 0.2, 0.58 * 100, 5.5114638447971785e-06, -0.4, None, float("nan")],
                       "n": [1, 2, 3, 4, 5, 6]})
    assert df["value"][1] != 58.0  # the noise is really there
    csv_lines = to_csv_bytes(df).decode().splitlines()
    assert csv_lines[1:3] == ["0.3,1", "58.0,2"]
    back = pl.read_csv(io.BytesIO(to_csv_bytes(df)))
    assert back["value"][2] == 5.5114638448e-06  # a small p-value keeps 12 significant digits
    rows = json.loads(to_json_bytes(df))
    assert [r["value"] for r in rows[:4]] == [0.3, 58.0, 5.5114638448e-06, -0.4] and rows[4]["value"] is None
    assert [r["n"] for r in rows] == [1, 2, 3, 4, 5, 6]
