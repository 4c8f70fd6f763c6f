"""FastChat's own MT-Bench metrics: its pairwise win rates and its agreement between judges.

Read from lm-sys/FastChat, ``fastchat/llm_judge`` (commit 0e6d3e4, April 2025; facts only,
none of its code), for the ``mtbench`` benchmark of :func:`cap_core.importers.mtbench.import_mtbench`
(an item is one question, one turn and one pair of models; judge files give two games):

* **A judge's vote on an item** (:func:`fastchat_vote`). ``show_result.py``
  (``display_result_pairwise``) first drops every record with a game whose winner is
  ``error`` (no ``[[A]]``/``[[B]]``/``[[C]]`` found), then counts a win only when both games
  name the same model; a tie in game 1, or two games that disagree, count as a tie (the
  MT-Bench paper's conservative rule for position bias; ``common.load_pairwise_model_judgments``
  calls such a pair ``inconsistent``). The same vote stands for the judge in the agreement
  below. A record of one vote (the human judgments) is its winner. In CAP letters: ``A``,
  ``B``, ``tie``, or none when a game is unparsed or missing.
* **Win rates** (``show_result.py --mode pairwise-all``), per judge and model, over the judge's
  kept records of that model (both turns pooled; every prompt of the judge pooled, as its file
  holds them): ``win_rate`` = win / (win + loss + tie), ``win_rate_adjusted`` = (win + tie / 2)
  / (win + loss + tie), in percent. ``--mode pairwise-baseline`` keeps only the records with
  the baseline and drops the baseline's own row; pairwise-all is given here (the files do not
  name a baseline; with one baseline the model's rows are the same).
* **Agreement** (``compute_agreement.py``, per turn): the human group is every judge whose
  name starts with ``expert`` (its ``get_judge_name``; ``author_*`` votes form another group,
  not compared). For a judge and an item the judge voted on, each human vote is one
  comparison, agreeing when the two votes are equal (any two ties agree). Without ties
  (``ban=["tie"]``), an item whose judge vote is a tie is skipped, and so is each human tie
  vote. Human-human agreement compares every pair of human votes on an item (both ties: the
  pair is skipped when either is a tie); its rows have judge ``human``. The human votes must be
  in the dataset as judges: import the human judgments without ``--gold-judge`` (with it their
  majority becomes gold and their rows leave the judgments).

FastChat publishes these for its own files (the MT-Bench paper's agreement table is over the
3.3K released human votes); the win rates rate the models, not the judge, and the agreement
compares each human vote, not a majority gold: CAP has no counterpart (``cap_value`` null).
"""

from __future__ import annotations

from collections import defaultdict
from itertools import combinations

import polars as pl

from cap_core.dataset import Dataset

__all__ = ["BENCHMARK", "RULES", "HUMAN_PREFIX", "OTHER_GROUP_PREFIX", "HUMAN_GROUP", "fastchat_vote", "pair_of",
           "fastchat_rows"]

#: Benchmark id of MT-Bench items (:mod:`cap_core.importers.mtbench`).
BENCHMARK = "mtbench"
#: Judges of FastChat's human group: names starting with this (``compute_agreement.get_judge_name``).
HUMAN_PREFIX = "expert"
#: Judges FastChat keeps apart from both groups (the paper's authors' votes).
OTHER_GROUP_PREFIX = "author"
#: The ``judge`` of the human-human agreement rows.
HUMAN_GROUP = "human"

#: The source's rule behind each metric (the ``rule`` column of
#: :func:`cap_core.analyses.source_metrics.source_metrics`), values in percent.
RULES: dict[str, str] = {
    "fastchat_win_rate": "FastChat show_result.py (pairwise-all): a win needs both games to name the model; a tie "
                         "or two disagreeing games are a tie; records with an error game dropped; "
                         "win / (win + loss + tie)",
    "fastchat_win_rate_adjusted": "FastChat show_result.py: (win + tie / 2) / (win + loss + tie), same counting",
    "fastchat_agreement": "FastChat compute_agreement.py, with ties: share of (judge vote, expert vote) pairs on the "
                          "same question, turn and model pair that are equal (two ties agree); the judge's vote "
                          "needs both games to agree, else it is a tie",
    "fastchat_agreement_no_tie": "FastChat compute_agreement.py, ban=['tie']: the same without the items whose "
                                 "judge vote is a tie and without expert tie votes",
}

_REASONS = {
    "fastchat_win_rate": "a win rate of the model (not of the judge) under FastChat's rule: CAP has no counterpart",
    "fastchat_win_rate_adjusted": "a win rate of the model (not of the judge) under FastChat's rule: CAP has no "
                                  "counterpart",
    "fastchat_agreement": "FastChat compares the judge with every expert vote; CAP scores it against one gold per "
                          "item (import with --gold-judge 'expert_*': their majority): no counterpart",
    "fastchat_agreement_no_tie": "FastChat compares the judge with every expert vote; CAP scores it against one gold "
                                 "per item (import with --gold-judge 'expert_*': their majority): no counterpart",
}


def fastchat_vote(verdicts: list[str | None]) -> str | None:
    """A judge's vote on an item from its verdicts (CAP letters, one per game): module notes.

    None when a game is unparsed or missing (FastChat drops the record); else the letter
    when every game names it, else ``tie``.
    """
    if not verdicts or any(v not in ("A", "B", "tie") for v in verdicts):
        return None
    first = verdicts[0]
    return first if first != "tie" and all(v == first for v in verdicts) else "tie"


def pair_of(item_id: str) -> tuple[str, str, str] | None:
    """``(question id, model A, model B)`` of an MT-Bench item id ``<qid>:t<turn>:<A>|<B>``, or None."""
    qid, sep, rest = str(item_id).partition(":")
    _, sep2, pair = rest.partition(":")
    a, bar, b = pair.partition("|")
    return (qid, a, b) if sep and sep2 and bar and a and b else None


def _votes(ds: Dataset) -> pl.DataFrame:
    """One row per (judge, item): ``vote`` (A / B / tie / null), ``subset`` (the turn)."""
    j = ds.judgments.filter(pl.col("benchmark") == BENCHMARK)
    per = j.group_by("judge", "item_id").agg(pl.col("order"), pl.col("verdict"))
    votes = [fastchat_vote([v for _, v in sorted(zip(o, v))]) for o, v in per.select("order", "verdict").iter_rows()]
    per = per.select("judge", "item_id").with_columns(pl.Series("vote", votes, dtype=pl.String))
    subsets = ds.items.filter(pl.col("benchmark") == BENCHMARK).select("item_id", "subset")
    return per.join(subsets, on="item_id", how="left").sort("judge", "item_id")


def _is_human(judge: str) -> bool:
    return judge.startswith(HUMAN_PREFIX)


def _apart(judge: str) -> bool:
    return judge.startswith(HUMAN_PREFIX) or judge.startswith(OTHER_GROUP_PREFIX)


def _win_rates(votes: pl.DataFrame) -> list[dict]:
    counts: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0, 0])  # win, loss, tie
    for judge, item, vote in votes.select("judge", "item_id", "vote").iter_rows():
        pair = pair_of(item)
        if _apart(judge) or vote is None or pair is None:
            continue
        _, a, b = pair
        if vote == "tie":
            counts[(judge, a)][2] += 1
            counts[(judge, b)][2] += 1
        else:
            win, loss = (a, b) if vote == "A" else (b, a)
            counts[(judge, win)][0] += 1
            counts[(judge, loss)][1] += 1
    rows = []
    for (judge, model), (w, lo, t) in counts.items():
        n = w + lo + t
        rows.append({"judge": judge, "subset": model, "metric": "fastchat_win_rate", "value": 100.0 * w / n, "n": n})
        rows.append({"judge": judge, "subset": model, "metric": "fastchat_win_rate_adjusted",
                     "value": 100.0 * (w + 0.5 * t) / n, "n": n})
    return rows


def _agreement(votes: pl.DataFrame) -> list[dict]:
    human: dict[str, list[str]] = defaultdict(list)  # item -> expert votes (by judge name)
    turn: dict[str, str] = {}
    for judge, item, vote, subset in votes.iter_rows():
        turn[item] = subset
        if _is_human(judge) and vote is not None:
            human[item].append(vote)
    stats: dict[tuple[str, str, bool], list[int]] = defaultdict(lambda: [0, 0])  # agree, total
    for judge, item, vote, subset in votes.iter_rows():
        if _apart(judge) or vote is None or item not in human:
            continue
        for ban in (False, True):
            if ban and vote == "tie":
                continue
            for h in human[item]:
                if ban and h == "tie":
                    continue
                s = stats[(judge, subset, ban)]
                s[0] += vote == h
                s[1] += 1
    for item, hv in human.items():
        for x, y in combinations(hv, 2):
            for ban in (False, True):
                if ban and "tie" in (x, y):
                    continue
                s = stats[(HUMAN_GROUP, turn[item], ban)]
                s[0] += x == y
                s[1] += 1
    return [{"judge": judge, "subset": subset, "metric": "fastchat_agreement_no_tie" if ban else "fastchat_agreement",
             "value": 100.0 * agree / total, "n": total}
            for (judge, subset, ban), (agree, total) in stats.items() if total]


def fastchat_rows(ds: Dataset, judges: list[str] | None = None) -> pl.DataFrame:
    """FastChat's win rates and agreement on the ``mtbench`` benchmark of ``ds`` (module notes).

    Parameters
    ----------
    ds : Dataset
        Validated tables; only the ``mtbench`` benchmark is read. The human votes (judges
        ``expert_*``) are read from the judgments, whatever ``judges`` says.
    judges : list of str, optional
        Keep the rows of these judges (default all, and the human-human rows, judge
        :data:`HUMAN_GROUP`; with a list, the human-human rows are kept when it names it).

    Returns
    -------
    polars.DataFrame
        ``judge``, ``benchmark``, ``subset`` (the model for win rates, ``turn1`` / ``turn2`` for
        agreement), ``metric`` (the keys of :data:`RULES`), ``value`` (Float64, percent), ``n``
        (Int64: records for win rates, compared vote pairs for agreement), ``rule``,
        ``reason``; sorted by judge, subset, metric. Empty (these columns) without ``mtbench``
        judgments.
    """
    schema = {"judge": pl.String, "benchmark": pl.String, "subset": pl.String, "metric": pl.String,
              "value": pl.Float64, "n": pl.Int64, "rule": pl.String, "reason": pl.String}
    if BENCHMARK not in ds.benchmarks:
        return pl.DataFrame(schema=schema)
    votes = _votes(ds)
    rows = _win_rates(votes) + _agreement(votes)
    if judges is not None:
        keep = set(judges)
        rows = [r for r in rows if r["judge"] in keep]
    for r in rows:
        r.update(benchmark=BENCHMARK, rule=RULES[r["metric"]], reason=_REASONS[r["metric"]])
    return pl.DataFrame(rows, schema=schema).select(list(schema)).sort("judge", "subset", "metric")
