"""Cost per verdict: recorded dollars, or token counts × a user-editable price table.

Prices (``cap_core/cascades/price_table.csv``) are **list prices at one date, editable**: US
dollars per 1M tokens, matched to a judge id by the first row whose ``pattern`` (a
case-insensitive regular expression) occurs in it. Reward-model and self-hosted rows are
assumptions stated in their ``source`` column. Costs follow Jev paper §4.2 and App. B
(token usage × price); they are estimates, not bills.

Token basis for one call, first available wins (the ``basis`` column says which):

``recorded``  ``cost_usd`` of the judgment (dollars, used as is);
``texts``     characters / 4 of the prompt texts in the public data folder (JudgeBench:
              question + both responses; judge outputs' text for the output side);
``tokens``    the ``tokens`` column (all billed at the input price);
``lengths``   characters / 4 of ``len_a + len_b`` of the item (responses only).
Every call adds the row's ``prompt_overhead_tokens`` (judge template) to the input and
``extra_output_tokens`` (e.g. hidden reasoning) to the output. A judge billed
``per_order`` pays one call per recorded order, ``per_item`` one call per item.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from pathlib import Path

import polars as pl

from cap_core.dataset import Dataset
from cap_core.errors import CAPInputError

__all__ = ["PRICE_TABLE", "load_prices", "price_for", "item_costs", "cost_summary", "judgebench_text_tokens"]

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
    df = pl.read_csv(p, infer_schema_length=0)
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
        raise CAPInputError("unknown billing", file=str(p), row=int(bad["r"][0]) + 2, column="billing",
                            expected="per_order or per_item", got=bad["billing"][0])
    return df.select(list(_COLS))


def price_for(judge: str, prices: pl.DataFrame) -> dict | None:
    """The first price row whose pattern occurs in ``judge`` (case-insensitive), or None."""
    for row in prices.iter_rows(named=True):
        if re.search(row["pattern"], judge, flags=re.IGNORECASE):
            return row
    return None


@lru_cache(maxsize=4)
def _judgebench_texts(shared: str) -> tuple[dict[str, int], dict[tuple[str, str, str], int]]:
    root = Path(shared) / "data" / "judgebench"
    prompt: dict[str, int] = {}
    output: dict[tuple[str, str, str], int] = {}
    for f in sorted((root / "data").glob("*gpt-4o*.jsonl")):
        for line in f.read_text(encoding="utf-8").splitlines():
            r = json.loads(line)
            prompt[str(r["pair_id"])] = sum(len(str(r.get(k) or "")) for k in ("question", "response_A", "response_B"))
    for f in sorted((root / "outputs").glob("*gpt-4o*judge_name=arena_hard*.jsonl")):
        model = _DATE.sub("", f.stem.split("judge_model=")[-1])
        for line in f.read_text(encoding="utf-8").splitlines():
            r = json.loads(line)
            for order, j in zip(("AB", "BA"), r.get("judgments") or []):
                out = j.get("judgment")
                text = out.get("response") if isinstance(out, dict) else out
                output[(f"{model} (arena_hard)", str(r["pair_id"]), order)] = len(str(text or ""))
    return prompt, output


def judgebench_text_tokens(shared: str | Path) -> tuple[dict[str, int], dict[tuple[str, str, str], int]]:
    """Characters of JudgeBench (GPT-4o set) prompts per pair id, and of arena-hard judge outputs per
    (judge, pair id, order), read from ``<shared>/data/judgebench``; empty dicts when absent."""
    if not (Path(shared) / "data" / "judgebench" / "data").is_dir():
        return {}, {}
    return _judgebench_texts(str(Path(shared).resolve()))


def item_costs(ds: Dataset, benchmark: str, judge: str, prices: pl.DataFrame | None = None,
               shared: str | Path | None = None) -> pl.DataFrame:
    """Estimated cost of one judge's verdict on every item it saw.

    Returns
    -------
    polars.DataFrame
        ``item_id``, ``cost_usd`` (Float64, dollars per item verdict, all its calls),
        ``basis`` (String: recorded / texts / tokens / lengths).

    Raises
    ------
    CAPInputError
        No recorded cost and no price row matching the judge.
    """
    rows = ds.judgments.filter((pl.col("benchmark") == benchmark) & (pl.col("judge") == judge))
    if rows.height == 0:
        raise CAPInputError(f"judge {judge!r} has no verdicts on {benchmark!r}", argument="judge", got=judge,
                            fix="pick a judge listed for this benchmark")
    if rows["cost_usd"].null_count() == 0:
        return (rows.group_by("item_id").agg(pl.col("cost_usd").sum()).with_columns(pl.lit("recorded").alias("basis"))
                .sort("item_id"))
    prices = load_prices() if prices is None else prices
    price = price_for(judge, prices)
    if price is None:
        raise CAPInputError(f"no price for judge {judge!r}", column="pattern", expected="a price-table row matching it",
                            got=judge, fix="add a row to the price table (pattern, dollars per 1M tokens, billing)")
    items = ds.items.filter(pl.col("benchmark") == benchmark).select("item_id", "len_a", "len_b")
    rows = rows.join(items, on="item_id", how="left")
    prompt, output = judgebench_text_tokens(shared) if shared is not None and benchmark == "judgebench" else ({}, {})
    if prompt:
        basis = "texts"
        tin = [prompt.get(i, 0) / 4 for i in rows["item_id"]]
        tout = [output.get((judge, i, o), 0) / 4 for i, o in zip(rows["item_id"], rows["order"])]
    elif rows["tokens"].null_count() == 0:
        basis, tin, tout = "tokens", rows["tokens"].cast(pl.Float64).to_list(), [0.0] * rows.height
    else:
        basis = "lengths"
        tin = ((rows["len_a"].fill_null(0) + rows["len_b"].fill_null(0)) / 4).to_list()
        tout = [0.0] * rows.height
    per_call = [((a + price["prompt_overhead_tokens"]) * price["input_usd_per_1m"]
                 + (b + price["extra_output_tokens"]) * price["output_usd_per_1m"]) / 1e6 for a, b in zip(tin, tout)]
    calls = rows.select("item_id").with_columns(pl.Series("cost_usd", per_call, dtype=pl.Float64))
    agg = pl.col("cost_usd").mean() if price["billing"] == "per_item" else pl.col("cost_usd").sum()
    return calls.group_by("item_id").agg(agg).with_columns(pl.lit(basis).alias("basis")).sort("item_id")


def cost_summary(ds: Dataset, benchmark: str, judges: list[str], prices: pl.DataFrame | None = None,
                 shared: str | Path | None = None) -> pl.DataFrame:
    """Mean cost per verdict and per 1,000 verdicts of each judge (dollars).

    Returns
    -------
    polars.DataFrame
        ``judge``, ``n_items`` (Int64), ``usd_per_verdict``, ``usd_per_1000`` (Float64,
        null when no price matches), ``basis``, ``price_source`` (String).
    """
    prices = load_prices() if prices is None else prices
    out = []
    for j in judges:
        try:
            c = item_costs(ds, benchmark, j, prices, shared)
            mean, basis, n = float(c["cost_usd"].mean()), c["basis"][0], c.height
            src = "recorded" if basis == "recorded" else price_for(j, prices)["source"]
        except CAPInputError as err:
            mean, basis, n, src = None, "no price", 0, str(err).split(".")[0]
        out.append({"judge": j, "n_items": n, "usd_per_verdict": mean,
                    "usd_per_1000": None if mean is None else 1000 * mean, "basis": basis, "price_source": src})
    return pl.DataFrame(out, schema={"judge": pl.String, "n_items": pl.Int64, "usd_per_verdict": pl.Float64,
                                     "usd_per_1000": pl.Float64, "basis": pl.String, "price_source": pl.String})
