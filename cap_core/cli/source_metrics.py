"""CLI verb ``source-metrics``: each source's own published metrics beside CAP's.

``source-metrics --data DIR [--judge J ...] [--out FILE.csv]``
    Per judge, the metrics LLMBar (``llmbar_correct_average``, ``llmbar_correct_both``,
    ``llmbar_equal``), JudgeBench (``judgebench_score``), AlpacaEval (``alpacaeval_win_rate``,
    ``alpacaeval_discrete_win_rate``, ``alpacaeval_standard_error``, the counts ``alpacaeval_n_*``
    and the length-controlled win rate, per annotator and model vs baseline), RewardBench
    (``rewardbench_accuracy``, for judges with ``score_a``/``score_b``), FastChat MT-Bench
    (``fastchat_win_rate``, ``fastchat_win_rate_adjusted``, ``fastchat_agreement``,
    ``fastchat_agreement_no_tie``), Arena-Hard (``arena_hard_score``) and Auto-J (``autoj_agreement``,
    ``autoj_consistency``, per scenario group) publish, computed under
    their own rules from the sources' recorded verdicts
    (:func:`cap_core.analyses.source_metrics.source_metrics`). Columns ``judge,
    benchmark, subset, metric, value, n, rule`` (value in percent), then CAP's
    counterpart ``cap_metric, cap_value`` and a one-line ``reason`` where they differ.
    Without ``--out`` the CSV is printed. A dataset without any of these sources exits 2 naming
    the sources and the benchmarks they are read from (:data:`~cap_core.analyses.source_metrics.SOURCES`).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from cap_core.cli.options import csv_file

__all__ = ["register"]


def _source_metrics(args: argparse.Namespace) -> str:
    from cap_core.analyses.source_metrics import source_metrics
    from cap_core.cli.main import write_csv
    from cap_core.dataset import load_dataset
    from cap_core.errors import CAPInputError, capped

    from cap_core.analyses.source_metrics import SOURCES

    ds = load_dataset(args.data)
    out = source_metrics(ds, judges=args.judge)
    if out.height == 0:
        raise CAPInputError(
            "no judgments of a source whose own metrics CAP Studio computes",
            file=str(args.data),
            expected="judgments of " + "; ".join(f"{s} ({b})" for s, b in SOURCES.items()),
            got=capped(ds.benchmarks),
            fix="import one of these sources (`import --format ...`); the other benchmarks' judges are profiled "
                "by `profile` and summarised by `summary`",
        )
    if args.out is None:
        from cap_core.export import to_csv_bytes

        return to_csv_bytes(out).decode("utf-8").rstrip("\n")
    write_csv(out, args.out)
    differ = out.filter(out["reason"] != "").height
    return f"wrote {out.height} source-metric rows to {args.out} ({differ} differ from CAP's value; see reason)"


def register(subparsers) -> None:
    """Add ``source-metrics`` to an ``argparse`` subparsers object."""
    p = subparsers.add_parser(
        "source-metrics",
        help="the sources' own metrics (LLMBar, JudgeBench, AlpacaEval, RewardBench, MT-Bench, Arena-Hard, Auto-J) "
             "beside CAP's",
        description="Each source's published metrics under its own rules (LLMBar: correct_average, correct_both, "
        "equal from the recorded winners; JudgeBench: the pair-level two-game score; AlpacaEval: the model's win "
        "rate over the baseline, a draw half a win; RewardBench: chosen scored strictly above rejected), with "
        "FastChat MT-Bench: show_result.py win rates and compute_agreement.py judge-expert agreement; Arena-Hard: "
        "the model's score against the baseline, >> counting three battles; Auto-J: agreement with the human "
        "label, a tie included, and consistency across the swapped run, per scenario group), with "
        "CAP's counterpart and the reason where they differ. Values in percent.",
    )
    p.add_argument("--data", type=Path, required=True, help="dataset directory (from `import llmbar|judgebench|alpacaeval|...`)")
    p.add_argument("--judge", action="append", help="restrict to a judge (repeatable)")
    p.add_argument("--out", type=csv_file, help="CSV to write (default: print it)")
    p.set_defaults(handler=_source_metrics)
