"""Each source's own published metrics, computed under the source's rules, beside CAP's value.

A practitioner who holds a benchmark's leaderboard next to CAP Studio needs the source's
number, CAP's number, and the rule that makes them differ. The source rules below are
facts read from the sources' own evaluation code; CAP's values come from
:func:`cap_core.profile.conditions.compute_profile` (the one CAP rule), on the derived
verdicts.

LLMBar (Zeng et al., 2024; ``LLMEvaluator/evaluate.py`` of princeton-nlp/LLMBar, which
writes ``statistics.json`` per evaluator and set). It reads the recorded ``winner`` of
the last round in both games (``swap = False`` = CAP order AB, ``swap = True`` = BA):

* ``llmbar_correct_average`` = (#AB winner == label + #BA winner == label) / 2n;
* ``llmbar_correct_both`` = share of items whose two winners both equal the label;
* ``llmbar_equal`` = share of items whose two winners are equal, where two unparsed
  winners (no parsing pattern matched: ``None == None``) count as equal.
* Rating strategies: each output is rated alone; the winner of the first game is output
  1 only when its score is strictly higher, of the second game output 2 only when its
  score is strictly higher. Equal (or unreadable) ratings therefore go to output 2 in
  one game and output 1 in the other: exactly one game correct, never equal.

CAP (Table 1, App. H, App. L) instead records equal ratings as a tie in both orders,
never correct but consistent (``tie``/``tie``), and never counts an unparsed verdict as
consistent. CAP's counterparts: ``pa`` (overall), ``strict`` and ``consistency`` (C7).

JudgeBench (Tan et al., ICLR 2025; ``utils/metrics.py`` of ScalerLab/JudgeBench). With two
games per pair (the second with the responses swapped, its decision flipped back), each
game adds +1 when its decision equals the label, -1 when it is the opposite letter, 0
otherwise (``A=B`` tie or no decision); the pair is correct when the sum is positive:

* ``judgebench_score`` = share of pairs with a positive sum, per category (``mmlu-pro``
  = knowledge, ``livebench-reasoning``, ``livebench-math``, ``livecodebench``) and
  overall. With one game only (``--single_game``), the share of games whose decision
  equals the label. Reward models record ``B>A`` when the two scores are equal. A
  decision is read as CAP's importer reads it (``A>>B`` as A, as JudgeBench's arena-hard
  judge itself rewrites ``>>`` to ``>`` before scoring).

CAP's counterpart is ``pa`` (the mean of the two orders, ties and unparsed not correct),
so a pair with one correct game and one tie counts 1 in JudgeBench and 0.5 in CAP, and a
split pair (one correct, one wrong) 0 in JudgeBench and 0.5 in CAP.

AlpacaEval (Dubois et al., 2024): its leaderboard figures per annotator and ``"<model> vs
<baseline>"`` pair (win rate, discrete win rate, standard error, n_wins, n_wins_base,
n_draws, n_total; the length-controlled win rate where its inputs are present), without gold,
under the rules of :mod:`cap_core.analyses.source_rules.alpacaeval`. They rate the generators,
not the judge: CAP has no counterpart (``cap_value`` null).

FastChat MT-Bench (Zheng et al., 2023) and Arena-Hard-Auto (Li et al., 2024): their rules live in
:mod:`cap_core.analyses.source_rules.fastchat` (win rates of ``show_result.py``, judge-expert
agreement of ``compute_agreement.py``) and :mod:`cap_core.analyses.source_rules.arena_hard` (the
model's score against the baseline, ``>>`` counting three battles), for the ``mtbench`` and
``arena_hard`` benchmarks; each row carries its rule and reason. They rate the models or compare
with every human vote: CAP has no counterpart (``cap_value`` null).

Auto-J (Li et al., 2023): agreement with the human label (a tie prediction right on a tie label) and
consistency across the swapped run, per scenario group, under the rules of
:mod:`cap_core.analyses.source_rules.autoj` (``pairwise_eval.py``), for the ``autoj`` benchmark. The
tie-labelled pairs have no gold in CAP: no CAP counterpart (``cap_value`` null).

RewardBench (Lambert et al., 2024; ``scripts/run_rm.py`` of allenai/reward-bench: ``1 if
chosen > rejected else 0``), for every judge that scores the two responses (``score_a`` /
``score_b``, e.g. reward models):

* ``rewardbench_accuracy`` = share of items whose chosen (gold) response scores strictly above
  the rejected one; equal scores count 0, and so does a missing score. Where a judge scores
  the pair in both orders (position-dependent graders), an item counts the mean of its
  orders. Per subset (the items' subsets) and ``all`` (item-weighted). CAP's counterpart is
  ``pa``: CAP derives the verdict from the scores with equal scores a tie (never correct),
  so the two agree unless the verdict was not the score comparison.
"""

from __future__ import annotations

import polars as pl

from cap_core.analyses.source_rules import alpacaeval, arena_hard, autoj, fastchat
from cap_core.dataset import Dataset
from cap_core.errors import CAPInputError, counted
from cap_core.verdicts import choose_verdicts, verdict_rows

__all__ = ["source_metrics", "source_of", "SOURCE_METRICS_SCHEMA", "SOURCE_RULES", "CAP_COUNTERPART",
           "NO_COUNTERPART", "SOURCES"]

#: The sources whose own metrics :func:`source_metrics` computes, and the benchmarks (or judges) it reads
#: them from: the one list the CLI and the dashboard name when a dataset holds none of them.
SOURCES: dict[str, str] = {
    "LLMBar": "benchmark llmbar or llmbar_*",
    "JudgeBench": "benchmark judgebench*",
    "AlpacaEval": "benchmark alpacaeval",
    "FastChat MT-Bench": "benchmark mtbench",
    "Arena-Hard": "benchmark arena_hard",
    "Auto-J": "benchmark autoj",
    "RewardBench": "judges' scores score_a / score_b on any benchmark",
}

#: Columns of :func:`source_metrics`; ``value`` and ``cap_value`` in percent.
SOURCE_METRICS_SCHEMA: dict[str, pl.DataType] = {
    "judge": pl.String,
    "benchmark": pl.String,
    "subset": pl.String,
    "metric": pl.String,
    "value": pl.Float64,
    "n": pl.Int64,
    "rule": pl.String,
    "cap_metric": pl.String,
    "cap_value": pl.Float64,
    "reason": pl.String,
}

#: The source's rule behind each metric, in one line (the ``rule`` column).
SOURCE_RULES: dict[str, str] = {
    "llmbar_correct_average": "LLMBar statistics.json: recorded winner == label, averaged over the two games",
    "llmbar_correct_both": "LLMBar statistics.json: recorded winners == label in both games",
    "llmbar_equal": "LLMBar statistics.json: the two recorded winners equal (two unparsed count as equal)",
    "judgebench_score": "JudgeBench metrics.py: +1 per game with decision == label, -1 per opposite "
                        "decision; a pair is correct when the sum is positive",
    **alpacaeval.RULES,
    "rewardbench_accuracy": "RewardBench run_rm.py: 1 if the chosen response scores strictly above the "
                            "rejected one, else 0 (equal or missing scores 0)",
    **fastchat.RULES,
    **arena_hard.RULES,
    **autoj.RULES,
}

#: CAP's nearest metric for each source metric: (condition, metric) of the profile.
CAP_COUNTERPART: dict[str, tuple[str, str]] = {
    "llmbar_correct_average": ("overall", "pa"),
    "llmbar_correct_both": ("C7", "strict"),
    "llmbar_equal": ("C7", "consistency"),
    "judgebench_score": ("overall", "pa"),
    "rewardbench_accuracy": ("overall", "pa"),
}
#: Source metrics that rate something other than the judge's accuracy: no CAP counterpart.
NO_COUNTERPART = (*alpacaeval.RULES, *fastchat.RULES, *arena_hard.RULES, *autoj.RULES)
#: Sources whose rules are a module of :mod:`cap_core.analyses.source_rules`: benchmark -> its rows
#: function ``(ds, judges) -> frame`` (judge, benchmark, subset, metric, value, n, rule, reason).
_OWN_RULES = {fastchat.BENCHMARK: fastchat.fastchat_rows, arena_hard.BENCHMARK: arena_hard.arena_hard_rows,
              autoj.BENCHMARK: autoj.autoj_rows}

_ADVERSARIAL = ("GPTInst", "GPTOut", "Manual", "Neighbor")
_TOL = 1e-9


def source_of(benchmark: str) -> str | None:
    """``"llmbar"`` for ``llmbar`` / ``llmbar_*``, ``"judgebench"`` for ``judgebench*``, ``"alpacaeval"``,
    ``"mtbench"``, ``"arena_hard"`` and ``"autoj"`` for the benchmarks of those importers, else None."""
    b = str(benchmark)
    if b == "alpacaeval" or b in _OWN_RULES:
        return b
    if b == "llmbar" or b.startswith("llmbar_"):
        return "llmbar"
    if b.startswith("judgebench"):
        return "judgebench"
    return None


def _pairs(ds: Dataset) -> pl.DataFrame:
    """One row per (judge, benchmark, item): recorded and derived verdicts of both orders."""
    rec = verdict_rows(choose_verdicts(ds, "recorded"))
    der = verdict_rows(ds).select("judge", "benchmark", "item_id", "order", pl.col("verdict").alias("derived"))
    rows = rec.join(der, on=["judge", "benchmark", "item_id", "order"], how="left")
    has_recorded = ("verdict_recorded" in ds.judgments.columns)
    wide = rows.pivot(on="order", index=["judge", "benchmark", "item_id", "gold"], values=["verdict", "derived"])
    for col in ("verdict_AB", "verdict_BA", "derived_AB", "derived_BA"):
        if col not in wide.columns:
            wide = wide.with_columns(pl.lit(None, dtype=pl.String).alias(col))
    subsets = ds.items.select("benchmark", "item_id", "subset")
    out = wide.join(subsets, on=["benchmark", "item_id"], how="left")
    # which judges carry a recorded verdict at all (else the "recorded" ones are the derived)
    if has_recorded:
        src = ds.judgments.group_by("judge", "benchmark").agg(pl.col("verdict_recorded").is_not_null().any()
                                                               .alias("recorded"))
    else:
        src = ds.judgments.select("judge", "benchmark").unique().with_columns(pl.lit(False).alias("recorded"))
    orders = rows.filter(pl.col("verdict").is_not_null() | pl.col("derived").is_not_null()).group_by(
        "judge", "benchmark").agg(pl.col("order").n_unique().alias("n_orders"))
    return out.join(src, on=["judge", "benchmark"], how="left").join(orders, on=["judge", "benchmark"], how="left")


def _llmbar_rows(p: pl.DataFrame) -> pl.DataFrame:
    ab = pl.col("verdict_AB").fill_null("unparsed")
    ba = pl.col("verdict_BA").fill_null("unparsed")
    g = pl.col("gold")
    flagged = p.with_columns(
        ((ab == g).cast(pl.Int64) + (ba == g).cast(pl.Int64)).alias("_c"),
        ((ab == g) & (ba == g)).alias("_both"),
        (ab == ba).alias("_equal"),
        (pl.col("derived_AB") == "tie").alias("_tie_ab"),
        (pl.col("derived_AB") == "unparsed").alias("_unp_ab"),
        ((pl.col("derived_AB") == "unparsed") & (pl.col("derived_BA") == "unparsed")).alias("_unp2"),
        ((pl.col("derived_AB") == "tie") & (pl.col("derived_BA") == "tie")).alias("_tie2"),
        ((pl.col("verdict_AB") != pl.col("derived_AB")) | (pl.col("verdict_BA") != pl.col("derived_BA")))
        .fill_null(False).alias("_differs"),
    )
    keys = ["judge", "benchmark", "subset"]
    agg = flagged.group_by(keys).agg(
        pl.len().alias("n"),
        (pl.col("_c").sum() / 2 / pl.len() * 100).alias("llmbar_correct_average"),
        (pl.col("_both").sum() / pl.len() * 100).alias("llmbar_correct_both"),
        (pl.col("_equal").sum() / pl.len() * 100).alias("llmbar_equal"),
        pl.col("_differs").sum().alias("_k_differs"),
        pl.col("_unp2").sum().alias("_k_unp2"),
        pl.col("_tie2").sum().alias("_k_tie2"),
        pl.col("recorded").first().alias("_recorded"),
    )
    long = agg.unpivot(index=keys + ["n", "_k_differs", "_k_unp2", "_k_tie2", "_recorded"],
                       on=["llmbar_correct_average", "llmbar_correct_both", "llmbar_equal"],
                       variable_name="metric", value_name="value")
    return long


def _judgebench_rows(p: pl.DataFrame) -> pl.DataFrame:
    g = pl.col("gold")
    other = pl.when(g == "A").then(pl.lit("B")).otherwise(pl.lit("A"))

    def game(col: str) -> pl.Expr:
        v = pl.col(col)
        return pl.when(v == g).then(1).when(v == other).then(-1).otherwise(0).fill_null(0)

    one_game = pl.col("n_orders") < 2
    flagged = p.with_columns(
        pl.when(one_game).then(pl.col("verdict_AB").fill_null("") == g)
        .otherwise((game("verdict_AB") + game("verdict_BA")) > 0).alias("_ok"),
        ((game("derived_AB") + game("derived_BA")) == 1).alias("_half"),   # one correct, one tie/unparsed
        ((game("derived_AB") * game("derived_BA")) == -1).alias("_split"),  # one correct, one wrong
        ((pl.col("verdict_AB") != pl.col("derived_AB")) | (pl.col("verdict_BA") != pl.col("derived_BA")))
        .fill_null(False).alias("_differs"),
    )
    keys = ["judge", "benchmark"]

    def agg(frame: pl.DataFrame, by: list[str]) -> pl.DataFrame:
        return frame.group_by(by).agg(
            pl.len().alias("n"),
            (pl.col("_ok").sum() / pl.len() * 100).alias("value"),
            pl.col("_half").sum().alias("_k_half"),
            pl.col("_split").sum().alias("_k_split"),
            pl.col("_differs").sum().alias("_k_differs"),
            pl.col("recorded").first().alias("_recorded"),
            pl.col("n_orders").first().alias("_n_orders"),
        )

    per = agg(flagged, keys + ["subset"])
    overall = agg(flagged, keys).with_columns(pl.lit("all").alias("subset"))
    return pl.concat([per, overall.select(per.columns)]).with_columns(pl.lit("judgebench_score").alias("metric"))


def _rewardbench_rows(ds: Dataset) -> pl.DataFrame:
    """RewardBench-style accuracy of the judges that score both responses (module notes), per subset and all."""
    from cap_core.profile.conditions import MISSING_SUBSET

    j = ds.judgments
    if "score_a" not in j.columns or "score_b" not in j.columns:
        return pl.DataFrame()
    scored = j.filter(pl.col("score_a").is_not_null() | pl.col("score_b").is_not_null()).select(
        "judge", "benchmark").unique()
    if scored.height == 0:
        return pl.DataFrame()
    rows = verdict_rows(ds, carry=("score_a", "score_b"), gold_only=True).join(scored, on=["judge", "benchmark"])
    chosen = pl.when(pl.col("gold") == "A").then(pl.col("score_a")).otherwise(pl.col("score_b"))
    rejected = pl.when(pl.col("gold") == "A").then(pl.col("score_b")).otherwise(pl.col("score_a"))
    rows = rows.with_columns((chosen > rejected).fill_null(False).cast(pl.Float64).alias("_ok"))
    rows = rows.with_columns(((pl.col("_ok") > 0) != pl.col("correct").fill_null(False)).alias("_differs"))
    per_item = rows.group_by("judge", "benchmark", "item_id").agg(pl.col("_ok").mean(), pl.col("_differs").sum())
    subsets = ds.items.select("benchmark", "item_id", pl.col("subset").fill_null(MISSING_SUBSET))
    per_item = per_item.join(subsets, on=["benchmark", "item_id"], how="left")
    has_subsets = per_item.filter(pl.col("subset") != "all").group_by("benchmark").agg(
        (pl.col("subset") != MISSING_SUBSET).any().alias("_real"))
    per_item = per_item.join(has_subsets, on="benchmark", how="left")

    def agg(frame: pl.DataFrame, by: list[str]) -> pl.DataFrame:
        return frame.group_by(by).agg(pl.len().alias("n"), (pl.col("_ok").mean() * 100).alias("value"),
                                      pl.col("_differs").sum().alias("_k_differs"))

    keys = ["judge", "benchmark"]
    per = agg(per_item.filter(pl.col("_real").fill_null(False) & (pl.col("subset") != "all")), keys + ["subset"])
    overall = agg(per_item, keys).with_columns(pl.lit("all").alias("subset"))
    return pl.concat([per.select(overall.columns), overall]).with_columns(
        pl.lit("rewardbench_accuracy").alias("metric"))


def _reason(r: dict) -> str:
    m = r["metric"]
    if r["cap_value"] is None:
        return "CAP has no value here"
    if abs(r["value"] - r["cap_value"]) <= _TOL:
        return ""
    k_diff = r.get("_k_differs") or 0
    used = "recorded" if r.get("_recorded") else "derived (no recorded verdict in the data)"
    if m in ("llmbar_correct_average", "llmbar_correct_both"):
        return (f"LLMBar scores its recorded winner and resolves equal or unreadable ratings by position (output 2, "
                f"then output 1: one game correct); CAP counts equal ratings as a tie, never correct "
                f"({counted(k_diff, 'item')} where the {used} verdict differs from CAP's)")
    if m == "llmbar_equal":
        parts = []
        if r.get("_k_unp2"):
            parts.append(f"{counted(r['_k_unp2'], 'item')} unparsed in both orders "
                         f"{'counts' if r['_k_unp2'] == 1 else 'count'} as equal in LLMBar, never consistent in CAP")
        if r.get("_k_tie2"):
            parts.append(f"{counted(r['_k_tie2'], 'item')} tied in both orders {'is' if r['_k_tie2'] == 1 else 'are'} "
                         "consistent in CAP, unequal in LLMBar "
                         "(position-resolved winners)")
        if not parts:
            parts.append(f"{counted(k_diff, 'item')} where the {used} verdict differs from CAP's")
        return "LLMBar's equal vs CAP's consistency: " + "; ".join(parts)
    if m == "judgebench_score":
        if (r.get("_n_orders") or 2) < 2:
            return "one game only: JudgeBench scores that game's decision; CAP as well (ties not correct)"
        return (f"JudgeBench scores a pair correct when its two games net positive: {r.get('_k_half') or 0} pairs "
                f"with one correct game and one tie/unparsed count 1 (CAP 0.5), {r.get('_k_split') or 0} split pairs "
                f"count 0 (CAP 0.5); {k_diff} pairs where the recorded decision differs from CAP's verdict "
                f"(reward models record B>A on equal scores, CAP a tie)")
    if m == "rewardbench_accuracy":
        return (f"RewardBench compares the two scores (chosen strictly above rejected); CAP reads the judge's verdict, "
                f"which is not the score comparison on {r.get('_k_differs') or 0} judgments")
    return "the source's rule differs from CAP's"


def source_metrics(ds: Dataset, *, judges: list[str] | None = None) -> pl.DataFrame:
    """The metrics LLMBar, JudgeBench, AlpacaEval, RewardBench, FastChat MT-Bench and Arena-Hard publish, per
    judge, under their own rules, beside CAP's.

    Parameters
    ----------
    ds : Dataset
        Validated items and judgments; LLMBar benchmarks (``llmbar``, ``llmbar_*``) and
        JudgeBench ones (``judgebench*``) are scored, AlpacaEval's win rates come from the
        ``alpacaeval`` benchmark, RewardBench-style accuracy from every judge with
        ``score_a`` / ``score_b`` on any benchmark, FastChat's from ``mtbench``, Arena-Hard's
        from ``arena_hard`` and Auto-J's from ``autoj`` (:mod:`cap_core.analyses.source_rules`;
        :data:`SOURCES`); others are ignored. The source metrics
        read ``verdict_recorded`` (the source's own verdict) where present, else
        ``verdict``; CAP's values read ``verdict`` (derived).
    judges : list of str, optional
        Restrict to these judges (default all).

    Returns
    -------
    polars.DataFrame
        :data:`SOURCE_METRICS_SCHEMA`: one row per (judge, benchmark, subset, metric).
        ``value`` (Float64, percent) the source's metric; ``n`` (Int64) items / pairs;
        ``rule`` the source's rule (:data:`SOURCE_RULES`); ``cap_metric`` and
        ``cap_value`` (percent) CAP's counterpart (:data:`CAP_COUNTERPART`) from
        :func:`cap_core.profile.conditions.compute_profile`; ``reason`` a one-line
        reason naming the rule where the two differ (empty where they agree). LLMBar
        subsets are its sets (Natural, GPTInst, GPTOut, Manual, Neighbor; ``all`` for
        the processed sets) plus ``Adversarial``, the mean of the four adversarial
        subsets' values as the LLMBar paper averages them. JudgeBench subsets are the
        categories plus ``all``. AlpacaEval subsets are ``"<model> vs <baseline>"`` pairs
        (``cap_metric`` and ``cap_value`` null; its ``*_n_*`` values are counts, and a value it
        cannot compute is null with the reason naming what is missing); RewardBench ones the items'
        subsets plus ``all``; FastChat's the model (win rates) or the turn (agreement; judge ``human``
        for expert-expert agreement) and Arena-Hard's ``"<category>: <model> vs <baseline>"`` (both
        without a CAP counterpart). Sorted by benchmark, judge, subset, metric. Empty (with the schema) when no
        judge of these sources is present.

    Raises
    ------
    CAPInputError
        ``ds`` not a Dataset, or unknown judge names.
    """
    from cap_core.profile.conditions import compute_profile

    if not isinstance(ds, Dataset):
        raise CAPInputError("source_metrics needs a Dataset", argument="ds", expected="cap_core.dataset.Dataset",
                            got=type(ds).__name__, fix="load one with cap_core.load_dataset")
    if judges is not None:
        unknown = [j for j in judges if j not in ds.judges]
        if unknown:
            raise CAPInputError("unknown judge name", argument="judges", got=unknown[0],
                                expected="one of " + ", ".join(ds.judges), fix="pick judges present in the dataset")
    has_scores = ("score_a" in ds.judgments.columns and "score_b" in ds.judgments.columns)
    scored = sorted(set(ds.judgments.filter(pl.col("score_a").is_not_null() | pl.col("score_b").is_not_null())
                        ["benchmark"].to_list())) if has_scores else []
    benches = [b for b in ds.benchmarks if source_of(b) is not None or b in scored]
    sub = ds.select(benchmarks=benches, judges=judges) if benches else None
    if sub is None or sub.judgments.height == 0:
        return pl.DataFrame(schema=SOURCE_METRICS_SCHEMA)
    extra = ["_k_differs", "_k_unp2", "_k_tie2", "_k_half", "_k_split", "_recorded", "_n_orders"]

    def norm(frame: pl.DataFrame) -> pl.DataFrame:
        for c in extra:
            if c not in frame.columns:
                frame = frame.with_columns(pl.lit(None).alias(c))
        return frame.select("judge", "benchmark", "subset", "metric", pl.col("value").cast(pl.Float64),
                            pl.col("n").cast(pl.Int64),
                            *[pl.col(c).cast(pl.Boolean if c == "_recorded" else pl.Int64)
                              for c in extra])

    parts = []
    paired = [b for b in sub.benchmarks if source_of(b) in ("llmbar", "judgebench")]
    if paired:
        p = _pairs(sub.select(benchmarks=paired))
        lb = p.filter(pl.col("benchmark").map_elements(source_of, return_dtype=pl.String) == "llmbar")
        jb = p.filter(pl.col("benchmark").map_elements(source_of, return_dtype=pl.String) == "judgebench")
        if lb.height:
            parts.append(norm(_llmbar_rows(lb)))
        if jb.height:
            parts.append(norm(_judgebench_rows(jb)))
    rb = _rewardbench_rows(sub)
    if rb.height:
        parts.append(norm(rb))
    # sources whose module gives each row its rule and reason (no CAP counterpart)
    out = [alpacaeval.alpacaeval_rows(sub).with_columns(pl.lit(None, dtype=pl.String).alias("cap_metric"),
                                                        pl.lit(None, dtype=pl.Float64).alias("cap_value"))]
    out += [rows_of(ds.select(benchmarks=[b]), judges).with_columns(
        pl.lit(None, dtype=pl.String).alias("cap_metric"), pl.lit(None, dtype=pl.Float64).alias("cap_value"))
        for b, rows_of in _OWN_RULES.items() if b in sub.benchmarks]
    if parts:
        rows = pl.concat(parts)
        prof = compute_profile(sub, n_resamples=1, seed=0, by_subset=True).profile
        counterpart = pl.DataFrame({"metric": list(CAP_COUNTERPART),
                                    "condition": [c for c, _ in CAP_COUNTERPART.values()],
                                    "cap_metric": [m for _, m in CAP_COUNTERPART.values()]})
        cap = prof.select("judge", "benchmark", "subset", "condition", pl.col("metric").alias("cap_metric"),
                          pl.col("value").alias("cap_value"))
        rows = rows.join(counterpart, on="metric").join(
            cap, on=["judge", "benchmark", "subset", "condition", "cap_metric"], how="left").drop("condition")
        # LLMBar's Adversarial average: the mean of the four adversarial subsets (source and CAP alike)
        adv = rows.filter(pl.col("benchmark") == "llmbar", pl.col("subset").is_in(list(_ADVERSARIAL)),
                          pl.col("metric").str.starts_with("llmbar_"))
        if adv.height:
            full = adv.group_by("judge", "metric").agg(pl.col("subset").n_unique().alias("_k"))
            adv = adv.join(full.filter(pl.col("_k") == len(_ADVERSARIAL)).select("judge", "metric"),
                           on=["judge", "metric"])
            mean = adv.group_by("judge", "benchmark", "metric", "cap_metric").agg(
                pl.col("value").mean(), pl.col("n").sum(), pl.col("cap_value").mean(),
                *[pl.col(c).sum() if c.startswith("_k_") else pl.col(c).first() for c in extra],
            ).with_columns(pl.lit("Adversarial").alias("subset"))
            rows = pl.concat([rows, mean.select(rows.columns)])
        reasons = [_reason(r) for r in rows.iter_rows(named=True)]
        out.append(rows.with_columns(
            pl.col("metric").replace_strict(SOURCE_RULES, return_dtype=pl.String).alias("rule"),
            pl.Series("reason", reasons, dtype=pl.String),
        ))
    return pl.concat([o.select(list(SOURCE_METRICS_SCHEMA)).cast(SOURCE_METRICS_SCHEMA) for o in out]).sort(
        "benchmark", "judge", "subset", "metric")
