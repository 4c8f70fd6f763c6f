"""Synthetic CAP data at production scale: ``n_items`` pairs x ``n_judges`` judges x 2 orders.

One benchmark ("prod") of single-presentation items in four native subsets, every judge
on every item in both orders (``10M = 100k items x 50 judges x 2``), a few ties,
unparsed and missing verdicts, evaluated rationales on AB-correct verdicts. Built with
polars expressions (no Python loop over rows), deterministic for a seed. Also writes
the same data as a Parquet dataset directory, in row groups, for the out-of-core and
Dask benchmarks (:func:`write_parquet_dataset`).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl

SUBSETS = ["chat", "chat-hard", "reasoning", "safety"]


def items_frame(n_items: int, seed: int = 0) -> pl.DataFrame:
    """Items ``(n_items,)`` in :data:`cap_core.schema.ITEMS_SCHEMA` column names."""
    rng = np.random.default_rng(seed)
    ids = pl.int_range(n_items, eager=True).cast(pl.String)
    return pl.DataFrame({
        "benchmark": pl.repeat("prod", n_items, eager=True),
        "item_id": "p" + ids, "base_item_id": "p" + ids,
        "subset": pl.Series(np.array(SUBSETS)[rng.integers(0, 4, n_items)]),
        "gold": pl.Series(np.where(rng.random(n_items) < 0.5, "A", "B")),
    })


def judgments_frame(items: pl.DataFrame, n_judges: int, seed: int = 0, judge_offset: int = 0) -> pl.DataFrame:
    """Judgments of judges ``judge_offset .. judge_offset + n_judges - 1`` on every item, both orders."""
    n = items.height
    rng = np.random.default_rng(seed + 1 + judge_offset)
    reps = n_judges * 2
    judge = np.repeat(np.arange(judge_offset, judge_offset + n_judges), 2 * n)
    order_ba = np.tile(np.repeat([False, True], n), n_judges)
    skill = 0.6 + 0.3 * (judge % 17) / 16.0 - 0.05 * order_ba
    u = rng.random(n * reps)
    correct = u < skill
    gold_a = np.tile(items["gold"].to_numpy() == "A", reps)
    odd = rng.random(n * reps)
    verdict = np.where(odd < 0.01, "tie", np.where(odd < 0.015, "unparsed", np.where(correct == gold_a, "A", "B")))
    keep = odd < 0.998
    rs = np.where(rng.random(n * reps) < 0.85, 1, 0).astype(np.int8)
    evaluated = (~order_ba) & correct & (rng.random(n * reps) < 0.4)
    frame = pl.DataFrame({
        "judge": "judge-" + pl.Series(judge).cast(pl.String).str.pad_start(3, "0"),
        "benchmark": pl.repeat("prod", n * reps, eager=True),
        "item_id": pl.concat([items["item_id"]] * reps),
        "order": pl.Series(np.where(order_ba, "BA", "AB")),
        "verdict": pl.Series(verdict),
        "rationale_supported": pl.Series(rs).set(pl.Series(~evaluated), None),
    })
    return frame.filter(pl.Series(keep))


def make_large(n_items: int = 100_000, n_judges: int = 50, seed: int = 0) -> tuple[pl.DataFrame, pl.DataFrame]:
    """(items, judgments) frames of about ``n_items * n_judges * 2`` verdicts."""
    items = items_frame(n_items, seed)
    return items, judgments_frame(items, n_judges, seed)


def write_parquet_dataset(out: Path, n_items: int, n_judges: int, seed: int = 0, judges_per_file: int = 5) -> Path:
    """Write ``items.parquet`` and ``judgments/part-*.parquet`` (``judges_per_file`` judges each) under ``out``.

    Memory stays near one file's worth: judges are generated ``judges_per_file`` at a
    time. Returns ``out``.
    """
    out = Path(out)
    (out / "judgments").mkdir(parents=True, exist_ok=True)
    items = items_frame(n_items, seed)
    items.write_parquet(out / "items.parquet")
    for k, first in enumerate(range(0, n_judges, judges_per_file)):
        part = judgments_frame(items, min(judges_per_file, n_judges - first), seed, judge_offset=first)
        part.write_parquet(out / "judgments" / f"part-{k:04d}.parquet", row_group_size=1_000_000)
        del part
    return out
