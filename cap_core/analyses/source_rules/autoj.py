"""Auto-J's own pairwise metrics: agreement with the human label and consistency across the swap.

Read from GAIR-NLP/auto-j (commit 2ae17a3; ``codes/leaderboard/pairwise_eval.py`` and the
``scenario_group`` table of ``codes/leaderboard/utils_constants.py``; facts only, none of its code).
A pair's human ``label`` is 0 (response 1 better), 1 (response 2 better) or 2 (tie); a judge's
prediction uses the same numbers, its prediction on the swapped pair (the "exchange" file) is read
back into the original numbering.

* **pairwise** (both files): *agreement* is the share of pairs whose prediction and read-back
  exchange prediction both equal the label (so a tie label is matched by two tie predictions);
  *consistency* the share of pairs whose two predictions are equal.
* **single** (no exchange file): *agreement* is the share of predictions equal to the label.
* Per scenario group (:data:`GROUPS`, in its order) and ``Overall``. A prediction Auto-J's
  parser cannot read (its ``-1``) never equals a label and never agrees (the script would stop).

In a CAP dataset (benchmark ``autoj`` of :func:`cap_core.importers.autoj.import_autoj`) the label
is the item's gold (A = 0, B = 1) and a null gold is the annotators' tie (the importer gives a null
gold to tie-labelled pairs only); the prediction is the ``AB`` verdict and the read-back exchange
prediction the ``BA`` verdict (stored de-swapped). The scenario is the item's ``subset``.
"""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from cap_core.dataset import Dataset

__all__ = ["BENCHMARK", "GROUPS", "RULES", "group_of", "autoj_table", "autoj_rows"]

#: Benchmark id of Auto-J items (:mod:`cap_core.importers.autoj`).
BENCHMARK = "autoj"
#: Auto-J's scenario groups (``scenario_group`` of ``codes/leaderboard/utils_constants.py``).
GROUPS: dict[str, tuple[str, ...]] = {
    "Summarization": ("post_summarization", "text_summarization", "note_summarization"),
    "Exam Questions": ("math_reasoning", "solving_exam_question_with_math", "solving_exam_question_without_math"),
    "Code": ("code_simplification", "code_generation", "explaining_code", "code_correction_rewriting",
             "code_to_code_translation"),
    "Rewriting": ("text_simplification", "language_polishing", "instructional_rewriting", "text_correction",
                  "paraphrasing"),
    "Creative Writing": ("writing_song_lyrics", "writing_social_media_post", "writing_blog_post",
                         "writing_personal_essay", "creative_writing", "writing_advertisement",
                         "writing_marketing_materials", "writing_presentation_script", "counterfactual"),
    "Functional Writing": ("writing_product_description", "writing_job_application", "writing_news_article",
                           "writing_biography", "writing_email", "writing_legal_document",
                           "writing_technical_document", "writing_scientific_paper", "functional_writing",
                           "writing_cooking_recipe"),
    "General Communication": ("asking_how_to_question", "open_question", "analyzing_general", "explaining_general",
                              "seeking_advice", "recommendation", "value_judgement", "verifying_fact", "chitchat",
                              "roleplay", "planning", "brainstorming"),
    "NLP Tasks": ("ranking", "text_to_text_translation", "data_analysis", "classification_identification",
                  "title_generation", "question_generation", "reading_comprehension", "keywords_extraction",
                  "information_extraction", "topic_modeling", "others"),
}
_GROUP_OF = {s: g for g, scenarios in GROUPS.items() for s in scenarios}
RULES: dict[str, str] = {
    "autoj_agreement": "Auto-J pairwise_eval.py: prediction == human label (0, 1 or 2 = tie), in both orders "
                       "when the exchange run is present (type pairwise), else in the one order (single)",
    "autoj_consistency": "Auto-J pairwise_eval.py: the prediction and the read-back exchange prediction are "
                         "equal (an unreadable prediction never agrees)",
}
_TABLE = {"judge": pl.String, "type": pl.String, "group": pl.String, "n": pl.Int64, "agreement": pl.Float64,
          "consistency": pl.Float64}
_ROWS = {"judge": pl.String, "benchmark": pl.String, "subset": pl.String, "metric": pl.String, "value": pl.Float64,
         "n": pl.Int64, "rule": pl.String, "reason": pl.String}


def group_of(scenario: str) -> str | None:
    """Auto-J's scenario group of ``scenario`` (None outside its 58 scenarios)."""
    return _GROUP_OF.get(scenario)


def autoj_table(labels: Sequence[str], scenarios: Sequence[str],
                runs: Sequence[tuple[str, Sequence[str], Sequence[str] | None]]) -> pl.DataFrame:
    """Auto-J's agreement and consistency per judge and scenario group.

    Parameters
    ----------
    labels : sequence of str
        Per pair, the human label as ``A`` / ``B`` / ``tie`` (Auto-J's 0 / 1 / 2).
    scenarios : sequence of str
        Per pair, its scenario (each in :data:`GROUPS`; check with :func:`group_of` first).
    runs : sequence of (judge, predictions, exchange predictions or None)
        Predictions per pair as ``A`` / ``B`` / ``tie`` / ``unparsed``, the exchange ones read back
        into the original letters.

    Returns
    -------
    polars.DataFrame
        ``judge``, ``type`` (``pairwise`` / ``single``), ``group`` (the groups in order, then
        ``Overall``; groups without pairs left out), ``n`` (Int64 pairs), ``agreement`` and
        ``consistency`` (Float64 percent, unrounded; consistency null for ``single``).
    """
    rows = []
    for judge, ab, ba in runs:
        pairwise = ba is not None
        per: dict[str, list[int]] = {g: [0, 0, 0] for g in (*GROUPS, "Overall")}  # n, right, agree
        for k, (label, scenario) in enumerate(zip(labels, scenarios)):
            a, b = ab[k], (ba[k] if pairwise else None)
            right = (a == label and b == label) if pairwise else a == label
            agree = pairwise and a == b and a != "unparsed"
            for g in (_GROUP_OF[scenario], "Overall"):
                per[g][0] += 1
                per[g][1] += right
                per[g][2] += agree
        for g, (n, right, agree) in per.items():
            if n:
                rows.append({"judge": judge, "type": "pairwise" if pairwise else "single", "group": g, "n": n,
                             "agreement": 100 * right / n, "consistency": 100 * agree / n if pairwise else None})
    return pl.DataFrame(rows, schema=_TABLE)


def autoj_rows(ds: Dataset, judges: list[str] | None = None) -> pl.DataFrame:
    """Auto-J's metrics from a dataset's ``autoj`` benchmark, as :func:`cap_core.analyses.source_metrics` rows.

    Parameters
    ----------
    ds : Dataset
        Validated tables; only the ``autoj`` benchmark is read (items' gold and subset, the
        ``AB`` and ``BA`` verdicts).
    judges : list of str, optional
        Keep these judges (default all).

    Returns
    -------
    polars.DataFrame
        ``judge``, ``benchmark`` (``autoj``), ``subset`` (a scenario group or ``Overall``),
        ``metric`` (``autoj_agreement``; ``autoj_consistency`` with both orders), ``value``
        (Float64, percent), ``n`` (Int64 pairs), ``rule``, ``reason``. A judge without a
        verdict on every pair, or items outside Auto-J's scenarios (not Auto-J's test set), give
        one row with a null value and the reason. Empty (these columns) without ``autoj``
        judgments.
    """
    if BENCHMARK not in ds.benchmarks:
        return pl.DataFrame(schema=_ROWS)
    items = ds.items.filter(pl.col("benchmark") == BENCHMARK).select("item_id", "subset", "gold")
    j = ds.judgments.filter(pl.col("benchmark") == BENCHMARK)
    if judges is not None:
        j = j.filter(pl.col("judge").is_in(judges))
    ids = items["item_id"].to_list()
    labels = [g if g in ("A", "B") else "tie" for g in items["gold"].to_list()]  # null gold: the human tie
    scenarios = items["subset"].to_list()
    outside = sorted({s for s in scenarios if group_of(s) is None}, key=str)
    rows, runs = [], []
    for judge in sorted(j["judge"].unique().to_list()):
        mine = j.filter(pl.col("judge") == judge)
        by_order = {o: dict(zip(part["item_id"], part["verdict"]))
                    for (o,), part in mine.group_by("order", maintain_order=True)}
        ab, ba = by_order.get("AB", {}), by_order.get("BA")
        missing = sum(1 for i in ids if i not in ab) + (sum(1 for i in ids if i not in ba) if ba else 0)
        why = None
        if outside:
            why = (f"{len(outside)} subsets are not Auto-J scenarios (e.g. {outside[0]}): not Auto-J's test set, "
                   "so its groups cannot be formed")
        elif missing:
            why = f"{missing} of the pairs' predictions are missing: Auto-J scores every pair of its test file"
        if why is not None:
            rows.append({"judge": judge, "benchmark": BENCHMARK, "subset": "Overall", "metric": "autoj_agreement",
                         "value": None, "n": len(ids), "rule": RULES["autoj_agreement"], "reason": why})
            continue
        runs.append((judge, [ab[i] for i in ids], [ba[i] for i in ids] if ba else None))
    ties = labels.count("tie")
    reason = (f"rates agreement with the human label: a tie prediction is right on the {ties} tie-labelled pairs, "
              "which have no gold in CAP (CAP's pa and strict count only the pairs with an A/B gold)")
    for r in autoj_table(labels, scenarios, runs).iter_rows(named=True):
        for metric in ("autoj_agreement", "autoj_consistency"):
            value = r[metric.removeprefix("autoj_")]
            if value is None:
                continue
            rows.append({"judge": r["judge"], "benchmark": BENCHMARK, "subset": r["group"], "metric": metric,
                         "value": value, "n": r["n"], "rule": RULES[metric] + f" (type {r['type']})",
                         "reason": reason if metric == "autoj_agreement" else
                         "Auto-J's scenario groups (CAP's subsets are the scenarios); compare with CAP's C7 pure "
                         "consistency, which also reads the two orders' verdicts without gold"})
    return pl.DataFrame(rows, schema=_ROWS).sort("judge", "subset", "metric")
