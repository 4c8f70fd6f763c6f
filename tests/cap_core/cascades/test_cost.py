"""Cost per verdict from the data model's figures (recorded dollars, tokens, response lengths), by hand."""

from __future__ import annotations

import polars as pl
import pytest

from cap_core.cascades.cost import (
    cost_notices,
    cost_summary,
    item_costs,
    load_prices,
    token_basis,
)
from cap_core.dataset import Dataset, load_dataset
from cap_core.errors import CAPInputError

# one price row: $2 in / $10 out per 1M tokens, billed per order, 100 template tokens, 50 extra output tokens
PRICES = pl.DataFrame({"pattern": ["^J"], "model": ["j"], "input_usd_per_1m": [2.0], "output_usd_per_1m": [10.0],
                       "billing": ["per_order"], "prompt_overhead_tokens": [100], "extra_output_tokens": [50],
                       "source": ["test row"]})


def _ds(len_a=(400, 800), len_b=(400, None), tokens=None, cost=None, judge="J1") -> Dataset:
    items = pl.DataFrame({"benchmark": "t", "item_id": ["i1", "i2"], "gold": ["A", "B"],
                          "len_a": list(len_a), "len_b": list(len_b)}, schema_overrides={"len_b": pl.Int64})
    rows = []
    for k, (i, o) in enumerate([("i1", "AB"), ("i1", "BA"), ("i2", "AB"), ("i2", "BA")]):
        rows.append({"judge": judge, "benchmark": "t", "item_id": i, "order": o, "verdict": "A",
                     "tokens": None if tokens is None else tokens[k], "cost_usd": None if cost is None else cost[k]})
    return Dataset.build(items, pl.DataFrame(rows, schema_overrides={"tokens": pl.Int64, "cost_usd": pl.Float64}))


def test_lengths_basis_by_hand():
    ds = _ds(len_b=(400, 400))
    c = dict(item_costs(ds, "t", "J1", PRICES).select("item_id", "cost_usd").iter_rows())
    # i1: (400 + 400) / 4 = 200 tokens; per call (200 + 100) x 2 + 50 x 10 = 1100 micro-dollars; two orders
    # i2: (800 + 400) / 4 = 300 tokens; per call (300 + 100) x 2 + 500 = 1300; two orders
    assert c == pytest.approx({"i1": 2 * 1100e-6, "i2": 2 * 1300e-6})
    assert token_basis(ds, "t", "J1") == "lengths"


def test_lengths_past_int64_are_added_as_floats():
    """len_a + len_b was added in Int64 before the cast: 2**62 + 2**62 wrapped to a negative number."""
    big = 2**62
    ds = _ds(len_a=(big, big), len_b=(big, big))
    c = dict(item_costs(ds, "t", "J1", PRICES).select("item_id", "cost_usd").iter_rows())
    per_call = ((2.0 * big / 4 + 100) * 2 + 50 * 10) / 1e6  # (2 x 2**62) / 4 tokens at $2 per 1M, + output
    assert c == pytest.approx({"i1": 2 * per_call, "i2": 2 * per_call}) and per_call > 0


def test_tokens_then_recorded_take_precedence():
    ds = _ds(tokens=[1000, 1000, 0, 500])
    c = dict(item_costs(ds, "t", "J1", PRICES).select("item_id", "cost_usd").iter_rows())
    # tokens billed at the input price: i1 2 x [(1000 + 100) x 2 + 500]; i2 (100 x 2 + 500) + (600 x 2 + 500)
    assert c == pytest.approx({"i1": 2 * 2700e-6, "i2": 700e-6 + 1700e-6})
    ds = _ds(tokens=[1000, 1000, 0, 500], cost=[0.5, 0.25, 0.125, 1.0])
    got = item_costs(ds, "t", "J1", PRICES)
    assert dict(got.select("item_id", "cost_usd").iter_rows()) == pytest.approx({"i1": 0.75, "i2": 1.125})
    assert got["basis"].unique().to_list() == ["recorded"]


def test_missing_lengths_are_reported_not_filled_with_zero():
    # i2 lacks len_b and no verdict has tokens or a recorded cost: no estimate, and the summary says why
    ds = _ds(len_b=(400, None))
    with pytest.raises(CAPInputError, match="no cost, token or length figures") as err:
        item_costs(ds, "t", "J1", PRICES)
    assert err.value.got == "2 of 4 verdicts without any"
    summary = cost_summary(ds, "t", ["J1"], PRICES)
    row = summary.row(0, named=True)
    assert row["basis"] == "no figures" and row["usd_per_1000"] is None
    notes = cost_notices(summary)
    assert notes == ["Cost of J1: no estimate: the dataset has no cost_usd, tokens or len_a / len_b for their "
                     "verdicts."]


def test_no_price_and_notices_per_basis():
    ds = _ds(len_b=(400, 400), judge="K")
    summary = cost_summary(ds, "t", ["K"], PRICES)
    assert summary.row(0, named=True)["basis"] == "no price"
    assert "no row of the price table matches" in cost_notices(summary)[0]


def test_default_data_estimates_from_lengths_and_says_so(default_data_dir):
    ds = load_dataset(default_data_dir)
    summary = cost_summary(ds, "judgebench", ["o1-mini (arena_hard)", "internlm2-20b-reward (RM)"], load_prices())
    assert summary["basis"].to_list() == ["lengths", "lengths"]
    (note,) = cost_notices(summary)
    assert "response lengths only" in note and "question" in note


def _price_file(tmp_path, replace: tuple[str, str] | None = None, data: bytes | None = None):
    from cap_core.cascades.cost import PRICE_TABLE

    f = tmp_path / "prices.csv"
    if data is not None:
        f.write_bytes(data)
    else:
        head, first = PRICE_TABLE.read_text().splitlines()[:2]
        f.write_text(head + "\n" + first.replace(*replace) + "\n")
    return f


def test_bad_price_tables_are_refused_with_file_row_and_column(tmp_path):
    from cap_core.cascades.cost import load_prices
    from cap_core.errors import CAPInputError

    with pytest.raises(CAPInputError, match=r"not a text table"):
        load_prices(_price_file(tmp_path, data=b"\x00\x01\x02junk\xff"))
    with pytest.raises(CAPInputError, match=r"out of range \[file .*prices.csv, row 1, column 'input_usd_per_1m'\]"):
        load_prices(_price_file(tmp_path, ("o1-mini,o1-mini,3.00,", "o1-mini,o1-mini,-3.00,")))
    with pytest.raises(CAPInputError, match=r"out of range .*column 'input_usd_per_1m'\].*got nan"):
        load_prices(_price_file(tmp_path, ("o1-mini,o1-mini,3.00,", "o1-mini,o1-mini,nan,")))
    with pytest.raises(CAPInputError, match=r"not a regular expression \[file .*prices.csv, row 1, column 'pattern'\]"):
        load_prices(_price_file(tmp_path, ("o1-mini,o1-mini,", "o1-mini(,o1-mini,")))
