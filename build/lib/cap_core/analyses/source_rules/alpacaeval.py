"""AlpacaEval's rules: its preference encoding, how an item names its pair, and its leaderboard metrics.

Read from tatsu-lab/alpaca_eval (commit cd543a1, August 2025; facts only, none of its code):

* ``annotators/pairwise_evaluator.py``: an annotation compares ``output_1`` of ``generator_1``
  (the baseline) with ``output_2`` of ``generator_2`` (the model). ``preference`` is 1 when
  output_1 is preferred, 2 when output_2 is, 1.5 for a draw (0 in older files); weighted
  annotators (``weighted_alpaca_eval_gpt4_turbo``) write 1 + P(output_2 preferred), a number
  in [1, 2]. Two identical outputs get 1.5 without the annotator being asked, so the
  baseline's own results folder (``results/<baseline>/<annotator>/``, generator_1 ==
  generator_2) holds 805 draws. Its pipeline asserts every stored value is in [1, 2] or missing.
  The outputs are shuffled before the annotator sees them and put back afterwards; the order
  shown is not stored.
* ``metrics/helpers.py`` (``BaseScoringRule.describe_head2head``) and ``metrics/winrate.py``
  (``get_winrate``) give the leaderboard columns, per results folder (one annotator, one model
  against one baseline): 0 is read as 1.5, values outside [1, 2] and missing ones are dropped;
  with ``x = preference - 1``, ``win_rate`` = mean x, ``standard_error`` = the standard error
  of that mean (sample standard deviation, n - 1), both in percent; ``n_wins`` = #(x > 0.5),
  ``n_wins_base`` = #(x < 0.5), ``n_draws`` = #(preference 1.5 or 0), ``n_total`` = #kept;
  ``discrete_win_rate`` = the same mean after rounding each preference to 1, 1.5 or 2 (above
  1.5 a win, below a loss, exactly 1.5 a draw worth half).
* ``metrics/glm_winrate.py`` (``length_controlled_v1``): ``length_controlled_winrate`` is the
  mean prediction, at zero length difference, of a logistic GLM of x on tanh of the
  standardised length difference (``len(output_1) - len(output_2)``, characters), the
  instruction's difficulty and a not-gamed-baseline term, regularised towards the annotations
  of two length-gamed baselines; the baseline against itself is 50 by construction. The
  instruction difficulties and the gamed baselines' annotations are downloaded from the Hugging
  Face dataset ``tatsu-lab/alpaca_eval`` (``instruction_difficulty.csv``, ``df_gamed.csv``):
  they are not in ``annotations.json``, so here the value is given for the baseline against
  itself only and every other row names what is missing (:data:`LC_MISSING`).

In a CAP dataset an AlpacaEval item is one instruction and one (baseline, model) pair, stored
in the file's own orientation (A = output_1 = the baseline, B = output_2 = the model, order
``AB``), id :func:`item_id`. The preference becomes the verdict and its confidence
(:func:`preference_verdict`) and :func:`model_win` reads ``preference - 1`` back exactly (for p
in [1, 2], ``p - 1`` and ``2 - p`` are exact in floating point).
"""

from __future__ import annotations

import hashlib
import math
import re

import numpy as np
import polars as pl

from cap_core.dataset import Dataset

__all__ = ["BENCHMARK", "RULES", "LC_MISSING", "preference_verdict", "model_win", "item_id", "pair_of",
           "alpacaeval_rows"]

#: Benchmark id of AlpacaEval items (:mod:`cap_core.importers.alpacaeval`).
BENCHMARK = "alpacaeval"

_LC = "alpacaeval_length_controlled_winrate"

#: The source's rule behind each metric (the ``rule`` column of
#: :func:`cap_core.analyses.source_metrics.source_metrics`). Rates are percent; ``*_n_*`` are counts.
RULES: dict[str, str] = {
    "alpacaeval_win_rate": "AlpacaEval win_rate (metrics/helpers.py): mean of (preference - 1) over the preferences "
                           "in [1, 2], percent; a draw (1.5, or 0 in older files) counts half a win, a weighted "
                           "preference its probability; missing or out-of-range values are dropped",
    "alpacaeval_standard_error": "AlpacaEval standard_error: standard error of that mean (sample standard deviation "
                                 "with n - 1, over the square root of n), percent",
    "alpacaeval_discrete_win_rate": "AlpacaEval discrete_win_rate: each preference rounded to a win (> 1.5), a loss "
                                    "(< 1.5) or a draw (1.5 or 0, half a win), then averaged, percent",
    "alpacaeval_n_wins": "AlpacaEval n_wins: a count (not a percent) of preferences above 1.5 (output_2, the model, "
                         "preferred)",
    "alpacaeval_n_wins_base": "AlpacaEval n_wins_base: a count of preferences below 1.5 (output_1, the baseline, "
                              "preferred)",
    "alpacaeval_n_draws": "AlpacaEval n_draws: a count of preferences exactly 1.5 or 0 (draws; identical outputs "
                          "are scored 1.5 without asking the annotator)",
    "alpacaeval_n_total": "AlpacaEval n_total: a count of the preferences kept (in [1, 2])",
    _LC: "AlpacaEval length_controlled_winrate (metrics/glm_winrate.py, length_controlled_v1): mean prediction at "
         "zero length difference of a logistic GLM on the length difference, instruction difficulty and a "
         "not-gamed-baseline term, regularised towards two length-gamed baselines, percent; 50 for the baseline "
         "against itself",
}

#: What the length-controlled win rate needs that AlpacaEval's annotation files do not hold.
LC_MISSING = ("not computed: AlpacaEval's length_controlled_v1 GLM also needs each instruction's difficulty "
              "(instruction_difficulty.csv) and the annotations of the two length-gamed baselines it is regularised "
              "towards (df_gamed.csv), which alpaca_eval downloads from the Hugging Face dataset "
              "tatsu-lab/alpaca_eval; neither is in annotations.json")

_NO_COUNTERPART = ("AlpacaEval's figure for the model (output_2) against the baseline (output_1); it rates the "
                   "generators, not the judge, so CAP has no counterpart")
_SELF = ("; the baseline against itself: AlpacaEval scores identical outputs a draw (1.5) without asking the "
         "annotator")


def preference_verdict(pref: object) -> tuple[str, float | None]:
    """AlpacaEval ``preference`` -> (verdict in output_1 = A / output_2 = B letters, confidence).

    ``1`` -> A, ``2`` -> B, ``1.5`` or ``0`` -> tie (confidence None); a weighted value ``p``
    strictly between 1 and 2 -> A when ``p < 1.5`` (confidence ``2 - p``, the probability of
    output_1), B when ``p > 1.5`` (confidence ``p - 1``); a number written as text is read as
    that number (as pandas' ``astype(float)`` in alpaca_eval does). Anything else (missing,
    NaN, outside [1, 2] other than 0, other text, a boolean) -> unparsed: AlpacaEval drops it
    from every leaderboard figure.
    """
    if isinstance(pref, bool):
        return "unparsed", None
    if isinstance(pref, str):
        try:
            pref = float(pref.strip())
        except ValueError:
            return "unparsed", None
    if not isinstance(pref, (int, float)) or not math.isfinite(pref):
        return "unparsed", None
    p = float(pref)
    if p in (0.0, 1.5):
        return "tie", None
    if p == 1.0:
        return "A", 1.0
    if p == 2.0:
        return "B", 1.0
    if 1.0 < p < 1.5:
        return "A", 2.0 - p
    if 1.5 < p < 2.0:
        return "B", p - 1.0
    return "unparsed", None


def model_win(verdict: str = "verdict", confidence: str = "confidence") -> pl.Expr:
    """``preference - 1`` (the model's share of the win, 0..1) from the columns named: the inverse
    of :func:`preference_verdict`.

    A tie is 0.5; B is its confidence (1 when null), A one minus it; unparsed or missing is null
    (dropped, as AlpacaEval drops values that are not preferences).
    """
    v, c = pl.col(verdict), pl.col(confidence).fill_null(1.0)
    return pl.when(v == "tie").then(0.5).when(v == "B").then(c).when(v == "A").then(1.0 - c).otherwise(None)


def _escape(name: str) -> str:
    return str(name).replace("%", "%25").replace("|", "%7C")


def _unescape(text: str) -> str:
    return re.sub("%(25|7C)", lambda m: "%" if m.group(1) == "25" else "|", text)


def item_id(instruction: str, generator_1: str, generator_2: str) -> str:
    """``<sha1(instruction)[:12]>:<generator_1>|<generator_2>``, unique per instruction and pair
    (``%`` and ``|`` in a name are written ``%25`` and ``%7C``)."""
    digest = hashlib.sha1(str(instruction).encode("utf-8")).hexdigest()[:12]
    return f"{digest}:{_escape(generator_1)}|{_escape(generator_2)}"


def pair_of(item: str) -> tuple[str, str] | None:
    """``(baseline, model)`` = ``(generator_1, generator_2)`` of an :func:`item_id`, or None for
    another id."""
    _, sep, pair = str(item).partition(":")
    parts = pair.split("|")
    if not sep or len(parts) != 2 or not all(parts):
        return None
    return _unescape(parts[0]), _unescape(parts[1])


def _describe(x: np.ndarray) -> dict[str, float | None]:
    """The leaderboard figures of one folder from its kept ``preference - 1`` values."""
    from scipy import stats  # loaded on use: the importer shares this module and needs no scipy

    n = len(x)
    if n == 0:
        return {m: None for m in RULES} | {"alpacaeval_n_total": 0.0}
    discrete = np.where(x > 0.5, 1.0, np.where(x < 0.5, 0.0, 0.5))
    return {
        "alpacaeval_win_rate": float(x.mean()) * 100,
        "alpacaeval_standard_error": float(stats.sem(x, ddof=1)) * 100 if n > 1 else None,
        "alpacaeval_discrete_win_rate": float(discrete.mean()) * 100,
        "alpacaeval_n_wins": float((x > 0.5).sum()),
        "alpacaeval_n_wins_base": float((x < 0.5).sum()),
        "alpacaeval_n_total": float(n),
    }


def alpacaeval_rows(ds: Dataset) -> pl.DataFrame:
    """AlpacaEval's leaderboard figures per (annotator, model vs baseline), without gold.

    Parameters
    ----------
    ds : Dataset
        Its ``alpacaeval`` judgments (:mod:`cap_core.importers.alpacaeval`) are read: the
        verdict and confidence of each item, the pair from the item id (:func:`pair_of`);
        items of other ids are left out. Gold is not read.

    Returns
    -------
    polars.DataFrame
        Columns ``judge`` (the annotator), ``benchmark``, ``subset`` (``"<model> vs
        <baseline>"``), ``metric`` (the keys of :data:`RULES`), ``value`` (Float64: percent for
        rates, a count for ``*_n_*``; null where not computed), ``n`` (Int64, the preferences
        kept: ``n_total``), ``rule`` and ``reason`` (String): one row per metric and pair, in
        the order read. Empty when ``ds`` holds no AlpacaEval judgment.

    Notes
    -----
    ``alpacaeval_length_controlled_winrate`` is 50 for the baseline against itself (as
    AlpacaEval sets it) and otherwise null with :data:`LC_MISSING` as its reason.
    """
    cols = {"judge": pl.String, "benchmark": pl.String, "subset": pl.String, "metric": pl.String,
            "value": pl.Float64, "n": pl.Int64, "rule": pl.String, "reason": pl.String}
    j = ds.judgments.filter(pl.col("benchmark") == BENCHMARK)
    if j.height == 0:
        return pl.DataFrame(schema=cols)
    if "confidence" not in j.columns:
        j = j.with_columns(pl.lit(None, dtype=pl.Float64).alias("confidence"))
    ids = j.get_column("item_id").unique().to_list()
    pairs = [(i, *p) for i in ids if (p := pair_of(i)) is not None]
    pair_frame = pl.DataFrame(pairs, schema={"item_id": pl.String, "baseline": pl.String, "model": pl.String},
                              orient="row")
    rows = j.join(pair_frame, on="item_id").select(
        "judge", "benchmark", "baseline", "model", model_win().alias("x"), (pl.col("verdict") == "tie").alias("tie"))
    groups = rows.group_by("judge", "benchmark", "baseline", "model", maintain_order=True).agg(
        pl.col("x").drop_nulls(), pl.col("tie").sum().alias("n_draws"))
    recs = []
    for judge, bench, base, model, x, n_draws in groups.iter_rows():
        figures = _describe(np.asarray(x, dtype=float))
        figures["alpacaeval_n_draws"] = float(n_draws)
        self_pair = base == model
        figures[_LC] = 50.0 if self_pair else None
        for metric, rule in RULES.items():
            reason = _NO_COUNTERPART + (_SELF if self_pair else "")
            if metric == _LC and not self_pair:
                reason = LC_MISSING
            elif figures[metric] is None:
                reason = "no preference in [1, 2] for this pair: nothing to average"
            recs.append({"judge": judge, "benchmark": bench, "subset": f"{model} vs {base}", "metric": metric,
                         "value": figures[metric], "n": len(x), "rule": rule, "reason": reason})
    return pl.DataFrame(recs, schema=cols)
