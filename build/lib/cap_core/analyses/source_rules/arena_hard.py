"""Arena-Hard-Auto's own score: the model's win rate against the baseline, ``>>`` weighted.

Read from lmarena/arena-hard-auto (commit 196f6b8, June 2025, and its v0.1 ``show_result.py`` of
September 2024; facts only, none of its code), for the ``arena_hard`` benchmark of
:func:`cap_core.importers.arena_hard.import_arena_hard` (an item is one question and one
(baseline, model) pair, the baseline as A; game 1 is order AB, game 2 order BA):

* **Battles** (``show_result.py``, ``load_judgments``): a record whose game is null or has no
  label is dropped whole (a label outside its table stops the v2 script; it is dropped here
  too). Each game gives the model a score: 1 when the model's answer is better, 0 when the
  baseline's is, 0.5 for a tie; a significantly-better label (``A>>B``, ``B>>A``, and
  ``<<``) counts three times (``weight=3``), so a record adds 2 to 6 battles. Labels are read
  by :data:`cap_core.schema.ARENA_LABELS`; in a CAP dataset the score is the game's verdict
  (B = model) and the weight its ``verdict_strength`` (2: three battles).
* **Score** = the mean of the model's battles, in percent, per judge, category and (model,
  baseline). v2 prints the mean over 100 bootstrap resamples of those battles (the same up
  to resampling noise); v0.1 fitted a Bradley-Terry model to battles against the baseline only
  (ties half a win each way, ``>>`` three battles, labels other than its five dropped per
  game), whose win rate against the baseline is the same weighted mean. Its leaderboards are
  over every question of the benchmark (500 for arena-hard-v0.1; 750 for v2.0: 500 hard
  prompts with baseline o3-mini and 250 creative-writing prompts with baseline
  gemini-2.0-flash): a file with fewer records gives a partial score, and the reason says how
  many records were read and dropped.

It rates the model, not the judge: CAP has no counterpart (``cap_value`` null).
"""

from __future__ import annotations

from collections import defaultdict

import polars as pl

from cap_core.dataset import Dataset

__all__ = ["BENCHMARK", "RULES", "QUESTIONS", "WEIGHT", "pair_of", "model_score", "arena_hard_rows"]

#: Benchmark id of Arena-Hard items (:mod:`cap_core.importers.arena_hard`).
BENCHMARK = "arena_hard"
#: Battles a significantly-better label counts for (``show_result.py`` ``weight``).
WEIGHT = 3
#: Questions per category in Arena-Hard's own leaderboards (v0.1 and v2.0 question files).
QUESTIONS: dict[str, int] = {"arena-hard-v0.1": 500, "hard_prompt": 500, "creative_writing": 250}

RULES: dict[str, str] = {
    "arena_hard_score": "Arena-Hard show_result.py: mean over the model's battles against the baseline (model "
                        "better 1, tie 0.5, worse 0; a >> label counts 3 battles); records with a failed game "
                        "dropped",
}


def pair_of(item_id: str) -> tuple[str, str] | None:
    """``(baseline, model)`` of an Arena-Hard item id ``<uid>:<baseline>|<model>``, or None."""
    _, sep, pair = str(item_id).partition(":")
    base, bar, model = pair.partition("|")
    return (base, model) if sep and bar and base and model else None


def model_score(verdict: str, strength: int | None) -> list[float] | None:
    """One game's battles for the model: ``verdict`` in the item's letters (B = model).

    None when the game has no verdict (``unparsed`` or missing: the record is dropped).
    """
    if verdict not in ("A", "B", "tie"):
        return None
    s = {"A": 0.0, "B": 1.0, "tie": 0.5}[verdict]
    return [s] * (WEIGHT if strength == 2 else 1)


def arena_hard_rows(ds: Dataset, judges: list[str] | None = None) -> pl.DataFrame:
    """Arena-Hard's score per judge, category and (model, baseline) on the ``arena_hard`` benchmark.

    Parameters
    ----------
    ds : Dataset
        Validated tables; only the ``arena_hard`` benchmark is read (``verdict`` and
        ``verdict_strength`` of both orders).
    judges : list of str, optional
        Keep these judges (default all).

    Returns
    -------
    polars.DataFrame
        ``judge``, ``benchmark``, ``subset`` (``"<category>: <model> vs <baseline>"``), ``metric``
        (``arena_hard_score``), ``value`` (Float64, percent), ``n`` (Int64, records kept),
        ``rule``, ``reason`` (records read and dropped, and the questions its leaderboards
        use); sorted by judge and subset. Empty (these columns) without ``arena_hard``
        judgments.
    """
    schema = {"judge": pl.String, "benchmark": pl.String, "subset": pl.String, "metric": pl.String,
              "value": pl.Float64, "n": pl.Int64, "rule": pl.String, "reason": pl.String}
    if BENCHMARK not in ds.benchmarks:
        return pl.DataFrame(schema=schema)
    j = ds.judgments.filter(pl.col("benchmark") == BENCHMARK)
    if judges is not None:
        j = j.filter(pl.col("judge").is_in(judges))
    cats = ds.items.filter(pl.col("benchmark") == BENCHMARK).select("item_id", "subset")
    per = j.group_by("judge", "item_id").agg("order", "verdict", "verdict_strength").join(cats, on="item_id")
    battles: dict[tuple[str, str, str, str], list[float]] = defaultdict(list)
    read: dict[tuple[str, str, str, str], list[int]] = defaultdict(lambda: [0, 0])  # records, dropped
    for judge, item, orders, verdicts, strengths, cat in per.iter_rows():
        pair = pair_of(item)
        if pair is None:
            continue
        key = (judge, cat, *pair)
        read[key][0] += 1
        games = dict(zip(orders, zip(verdicts, strengths)))
        scores = [model_score(*games[o]) if o in games else None for o in ("AB", "BA")]
        if any(s is None for s in scores):
            read[key][1] += 1
            continue
        battles[key] += scores[0] + scores[1]
    rows = []
    for key, (n_read, n_dropped) in sorted(read.items()):
        judge, cat, base, model = key
        b = battles.get(key, [])
        full = QUESTIONS.get(cat)
        reason = (f"rates the model, not the judge: CAP has no counterpart; {n_read} records read, {n_dropped} "
                  "dropped (a game without a label)")
        if full is not None and n_read < full:
            reason += f"; Arena-Hard's leaderboard uses all {full} questions of {cat}: this score is partial"
        rows.append({"judge": judge, "benchmark": BENCHMARK, "subset": f"{cat}: {model} vs {base}",
                     "metric": "arena_hard_score", "value": 100.0 * sum(b) / len(b) if b else None,
                     "n": n_read - n_dropped, "rule": RULES["arena_hard_score"], "reason": reason})
    return pl.DataFrame(rows, schema=schema).sort("judge", "subset")
