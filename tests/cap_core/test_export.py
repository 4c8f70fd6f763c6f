"""Formula-safe CSV / JSON export (cap_core.export)."""

import io
import json

import polars as pl
import pytest

from cap_core.errors import CAPInputError
from cap_core.export import neutralise_formulas, round_floats, to_csv_bytes, to_json_bytes


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


def test_rounding_is_decimal_exact_at_every_magnitude():
    # a requested weight 1e308, a tiny value and 2.5e-12 come back as written; polars' round_sig_figs
    # scales by a power of ten and wrote 1.0000000000000006e+308, 3.299999999999998e-300, 2.5000000000000003e-12
    df = pl.DataFrame({"w": [1e308, 3.3e-300, 2.5e-12, -7.25e33]})
    assert to_csv_bytes(df).decode().splitlines()[1:] == ["1e+308", "3.3e-300", "2.5e-12", "-7.25e+33"]
    assert [r["w"] for r in json.loads(to_json_bytes(df))] == [1e308, 3.3e-300, 2.5e-12, -7.25e33]


def test_an_exact_half_at_the_last_digit_rounds_to_even():
    # 12345678901.25 is exact in binary (…01 + 1/4) and has 13 significant digits: the 13th is an exact
    # half, which decimal rounding sends to the even 12th digit, 12345678901.2 (half away from zero gave .3)
    assert round_floats(pl.DataFrame({"x": [12345678901.25, -12345678901.35]}))["x"].to_list() == [
        12345678901.2, -12345678901.4]  # -…01.35 is -…01.3500003814697… in binary: above the half, it goes up
    assert round_floats(pl.DataFrame({"x": [2.5, 3.5, 0.75]}), 1)["x"].to_list() == [2.0, 4.0, 0.8]


def test_rounding_equals_the_decimal_rule_on_values_of_every_size():
    import numpy as np

    rng = np.random.default_rng(19)
    v = rng.standard_normal(200_000) * 10.0 ** rng.integers(-320, 309, 200_000)
    v[:4] = [0.0, -0.0, np.inf, np.nan]
    for digits in (1, 6, 12, 15):
        got = round_floats(pl.DataFrame({"x": v}), digits)["x"].to_numpy()
        want = np.array([float(format(x, f".{digits}g")) for x in v.tolist()])  # the rule, by definition
        assert np.array_equal(got, want, equal_nan=True), digits
        assert np.signbit(got[1]) and not np.signbit(got[0])


def test_nulls_nan_and_float32_are_kept():
    df = pl.DataFrame({"f": pl.Series([1.00000001, None, float("nan")], dtype=pl.Float32),
                       "g": [None, 0.1 + 0.2, float("-inf")]})
    out = round_floats(df)
    assert out.schema == df.schema
    assert out["f"].is_null().to_list() == [False, True, False] and out["f"].is_nan().to_list()[2]
    assert out["g"].to_list() == [None, 0.3, float("-inf")]
