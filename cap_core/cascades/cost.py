"""Cost per verdict: recorded dollars, or token counts × a user-editable price table.

Prices (``cap_core/cascades/price_table.csv``) are **list prices at one date, editable**: US
dollars per 1M tokens, matched to a judge id by the first row whose ``pattern`` (a
case-insensitive regular expression) occurs in it. Reward-model and self-hosted rows are
assumptions stated in their ``source`` column. Costs follow Jev paper §4.2 and App. B
(token usage × price); they are estimates, not bills.

Only the data model is read (no benchmark text). Token basis of a judge on a benchmark,
the first one complete for all its verdicts wins (the ``basis`` column says which):

``recorded``  ``cost_usd`` of the judgment (dollars, used as is);
``tokens``    the judgment's ``tokens`` column (all billed at the input price);
``lengths``   characters / 4 of the item's ``len_a + len_b`` (the two responses only: the
              question and the judge's written output are not counted).
With none of them complete there is no estimate (basis ``no figures``); with no price
row matching the judge, none either (``no price``). :func:`cost_notices` says which
basis each judge got, in words. Every estimated call adds the price row's
``prompt_overhead_tokens`` (judge template) to the input and ``extra_output_tokens``
(e.g. hidden reasoning) to the output. A judge billed ``per_order`` pays one call per
recorded order, ``per_item`` one call per item.
"""

from __future__ import annotations

import re
from pathlib import Path

import polars as pl

from cap_core.dataset import Dataset
from cap_core.errors import CAPInputError

__all__ = ["PRICE_TABLE", "load_prices", "price_for", "token_basis", "item_costs", "cost_summary", "cost_notices"]

PRICE_TABLE = Path(__file__).with_name("price_table.csv")
_COLS = {"pattern": pl.String, "model": pl.String, "input_usd_per_1m": pl.Float64, "output_usd_per_1m": pl.Float64,
         "billing": pl.String, "prompt_overhead_tokens": pl.Int64, "extra_output_tokens": pl.Int64,
         "source": pl.String}
_DATE = re.compile(r"-(\d{4}-\d{2}-\d{2}|\d{8})$")


def load_prices(path: str | Path | None = None) -> pl.DataFrame:
    """Read a price table (CSV with the columns of ``cap_core/cascades/price_table.csv``).

    Raises
    ------
    CAPInputError
        Missing file or column, non-numeric price, billing not per_order / per_item.
    """
    p = Path(path) if path is not None else PRICE_TABLE
    if not p.is_file():
        raise CAPInputError("price table not found", file=str(p), fix="pass a CSV like cap_core/cascades/price_table.csv")
    from cap_core.io import read_table

    df, _ = read_table(p, kind="price table")  # bad bytes, encodings, quoting: one reader, one message
    df = df.with_columns(pl.col(c).cast(pl.String) for c in df.columns)
    for col, dtype in _COLS.items():
        if col not in df.columns:
            raise CAPInputError("price table lacks a column", file=str(p), column=col,
                                expected=", ".join(_COLS), got=df.columns, fix=f"add a {col!r} column")
        try:
            df = df.with_columns(pl.col(col).cast(dtype, strict=True))
        except Exception:
            raise CAPInputError("price table value of the wrong type", file=str(p), column=col,
                                expected=str(dtype), fix="write plain numbers (dollars per 1M tokens)") from None
    bad = df.with_row_index("r").filter(~pl.col("billing").is_in(["per_order", "per_item"]))
    if bad.height:
        raise CAPInputError("unknown billing", file=str(p), row=int(bad["r"][0]) + 1, column="billing",
                            expected="per_order or per_item", got=bad["billing"][0])
    for col in ("input_usd_per_1m", "output_usd_per_1m", "prompt_overhead_tokens", "extra_output_tokens"):
        wrong = df.with_row_index("r").filter(~(pl.col(col).is_finite() & (pl.col(col) >= 0)).fill_null(True))
        if wrong.height:
            raise CAPInputError("price table value out of range", file=str(p), row=int(wrong["r"][0]) + 1,
                                column=col, expected="a finite number >= 0", got=wrong[col][0],
                                fix="write dollars per 1M tokens (or token counts) as plain non-negative numbers")
    for i, pattern in enumerate(df["pattern"].to_list()):
        try:
            re.compile(pattern or "")
        except re.error as err:
            raise CAPInputError("price table pattern is not a regular expression", file=str(p), row=i + 1,
                                column="pattern", got=pattern, expected=f"a Python regular expression ({err})",
                                fix="escape special characters, e.g. gpt-4o\\(mini\\) or write a plain name")
    return df.select(list(_COLS))


def price_for(judge: str, prices: pl.DataFrame) -> dict | None:
    """The first price row whose pattern occurs in ``judge`` (case-insensitive), or None."""
    for row in prices.iter_rows(named=True):
        if re.search(row["pattern"], judge, flags=re.IGNORECASE):
            return row
    return None


def _verdict_rows(ds: Dataset, benchmark: str, judge: str) -> pl.DataFrame:
    rows = ds.judgments.filter((pl.col("benchmark") == benchmark) & (pl.col("judge") == judge))
    if rows.height == 0:
        raise CAPInputError(f"judge {judge!r} has no verdicts on {benchmark!r}", argument="judge", got=judge,
                            fix="pick a judge listed for this benchmark")
    items = ds.items.filter(pl.col("benchmark") == benchmark).select("item_id", "len_a", "len_b")
    return rows.join(items, on="item_id", how="left")


def _basis(rows: pl.DataFrame) -> str:
    if rows["cost_usd"].null_count() == 0:
        return "recorded"
    if rows["tokens"].null_count() == 0:
        return "tokens"
    if rows["len_a"].null_count() == 0 and rows["len_b"].null_count() == 0:
        return "lengths"
    return "no figures"


def token_basis(ds: Dataset, benchmark: str, judge: str) -> str:
    """Which figures a judge's cost comes from: ``recorded``, ``tokens``, ``lengths`` or ``no figures``.

    Raises
    ------
    CAPInputError
        The judge has no verdicts on the benchmark.
    """
    return _basis(_verdict_rows(ds, benchmark, judge))


def item_costs(ds: Dataset, benchmark: str, judge: str, prices: pl.DataFrame | None = None) -> pl.DataFrame:
    """Estimated cost of one judge's verdict on every item it saw, from the data model's figures.

    Returns
    -------
    polars.DataFrame
        ``item_id``, ``cost_usd`` (Float64, dollars per item verdict, all its calls),
        ``basis`` (String: recorded / tokens / lengths; see the module docstring).

    Raises
    ------
    CAPInputError
        No verdicts; no recorded cost, token count or response lengths on every verdict
        (basis ``no figures``: nothing is guessed); or no price row matching the judge.
    """
    rows = _verdict_rows(ds, benchmark, judge)
    basis = _basis(rows)
    if basis == "recorded":
        return (rows.group_by("item_id").agg(pl.col("cost_usd").sum()).with_columns(pl.lit("recorded").alias("basis"))
                .sort("item_id"))
    if basis == "no figures":
        lacking = rows.filter(pl.col("tokens").is_null() & (pl.col("len_a").is_null() | pl.col("len_b").is_null()))
        raise CAPInputError(f"no cost, token or length figures for judge {judge!r} on {benchmark!r}",
                            column="len_a", expected="cost_usd or tokens on every verdict, or len_a and len_b on "
                            "every item", got=f"{lacking.height} of {rows.height} verdicts without any",
                            fix="import the items with len_a / len_b (response characters) or the judgments "
                            "with tokens or cost_usd")
    prices = load_prices() if prices is None else prices
    price = price_for(judge, prices)
    if price is None:
        raise CAPInputError(f"no price for judge {judge!r}", column="pattern", expected="a price-table row matching it",
                            got=judge, fix="add a row to the price table (pattern, dollars per 1M tokens, billing)")
    if basis == "tokens":
        tin = rows["tokens"].cast(pl.Float64)
    else:
        tin = (rows["len_a"].cast(pl.Float64) + rows["len_b"].cast(pl.Float64)) / 4  # in floats: no Int64 wrap
    per_call = ((tin + price["prompt_overhead_tokens"]) * price["input_usd_per_1m"]
                + price["extra_output_tokens"] * price["output_usd_per_1m"]) / 1e6
    calls = rows.select("item_id").with_columns(per_call.alias("cost_usd"))
    agg = pl.col("cost_usd").mean() if price["billing"] == "per_item" else pl.col("cost_usd").sum()
    return calls.group_by("item_id").agg(agg).with_columns(pl.lit(basis).alias("basis")).sort("item_id")


def cost_summary(ds: Dataset, benchmark: str, judges: list[str], prices: pl.DataFrame | None = None) -> pl.DataFrame:
    """Mean cost per item (every order the judge ran) and per 1,000 items of each judge (dollars).

    Returns
    -------
    polars.DataFrame
        ``judge``, ``n_items`` (Int64), ``usd_per_verdict``, ``usd_per_1000`` (Float64,
        null without an estimate), ``basis`` (recorded / tokens / lengths, or ``no figures``
        / ``no price`` / ``no verdicts`` without an estimate), ``price_source`` (String: the
        price row's source, or why there is no estimate).
    """
    prices = load_prices() if prices is None else prices
    out = []
    for j in judges:
        try:
            c = item_costs(ds, benchmark, j, prices)
            mean, basis, n = float(c["cost_usd"].mean()), c["basis"][0], c.height
            src = "recorded" if basis == "recorded" else price_for(j, prices)["source"]
        except CAPInputError as err:
            try:
                basis = "no price" if token_basis(ds, benchmark, j) != "no figures" else "no figures"
            except CAPInputError:
                basis = "no verdicts"
            mean, n, src = None, 0, str(err).split(" [")[0].split(".")[0]
        out.append({"judge": j, "n_items": n, "usd_per_verdict": mean,
                    "usd_per_1000": None if mean is None else 1000 * mean, "basis": basis, "price_source": src})
    return pl.DataFrame(out, schema={"judge": pl.String, "n_items": pl.Int64, "usd_per_verdict": pl.Float64,
                                     "usd_per_1000": pl.Float64, "basis": pl.String, "price_source": pl.String})


def cost_notices(summary: pl.DataFrame) -> list[str]:
    """Plain-language notes on how each judge's cost was obtained, from :func:`cost_summary`'s table.

    One line per basis present: recorded dollars; token counts billed at the input price;
    response lengths only (the question and the judge's written output are not in the data
    model, so they are not counted); or no estimate (no figures / no price), naming the judges.
    """
    words = {
        "recorded": "recorded dollars (cost_usd)",
        "tokens": "the tokens column, all billed at the input price, plus the price table's template and "
                  "output allowances",
        "lengths": "response lengths only: (len_a + len_b) characters / 4 input tokens plus the price table's "
                   "template and output allowances; the dataset records no cost or token counts, and the question "
                   "and the judge's written output are not counted",
        "no figures": "no estimate: the dataset has no cost_usd, tokens or len_a / len_b for their verdicts",
        "no price": "no estimate: no row of the price table matches them",
        "no verdicts": "no estimate: no verdicts on this benchmark",
    }
    out = []
    for basis, text in words.items():
        judges = summary.filter(pl.col("basis") == basis)["judge"].to_list()
        if judges:
            out.append(f"Cost of {', '.join(judges)}: {text}.")
    return out
