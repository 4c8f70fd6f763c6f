"""CLI verbs ``choose`` and ``report``: the leaderboard for given weights, and gates for CI pipelines.

``report --data DIR --benchmark B (--weights ... | --preset NAME) [--min ...] --out report.html``
    The same choice as one self-contained HTML file (plotly embedded).
``choose --data DIR [--benchmark B] (--weights C1=1,C7=2 | --preset NAME) [--min C7=60]
[--published] [--bootstrap 1000] [--seed 0] [--level 0.95] --out scores.csv
[--profile-out profile.csv] [--html report.html] [--lock baseline.json]
[--fail-below JUDGE=60] [--fail-below JUDGE:C7=60] [--baseline baseline.json [--gate-judge JUDGE]]``

Writes the leaderboard of each benchmark (:func:`cap_core.choice.leaderboard.choose`) as
the scores CSV of :mod:`cap_core.choice.exports` (weights, minimums and provenance on every
row; formulas neutralised). Gates are checked after every file is written.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import polars as pl

from cap_core.cli.options import (
    BOOTSTRAP,
    LEVEL,
    SEED,
    add_failures,
    add_items,
    check_outputs,
    csv_file,
    html_file,
    json_file,
)
from cap_core.cli.visible import visible
from cap_core.errors import CAPInputError

__all__ = ["register", "EXIT_CODES"]

EXIT_CODES = """exit codes:
  0  the leaderboard was written and every gate passed (a gate that ran prints "gate passed: ..."
     on stderr, naming the judge, its score and the threshold or baseline)
  1  a gate failed: a named judge's weighted score (--fail-below JUDGE=N) or condition value
     (--fail-below JUDGE:C7=N) is below N, or a judge is significantly below its locked
     baseline (--baseline; paired on the shared items, else unpaired); one line on stderr
  2  bad input (unknown condition, judge, preset or benchmark, bad weights, unreadable file, weights
     or minimums under which no judge has a score): one line on stderr naming the option or file and
     the fix (for weights: the conditions the benchmark measures and a preset that fits), nothing written"""


def register(sub) -> None:
    """Add the ``choose`` verb to the CLI's subparsers."""
    from cap_core.profile.presets import PRESETS

    p = sub.add_parser("choose", help="leaderboard of judges under condition weights, with pipeline gates",
                       description="Rank judges under condition weights (CAP §5) with paired bootstrap "
                       "differences from the leader (Holm-corrected) and write the scores CSV.",
                       epilog=EXIT_CODES, formatter_class=argparse.RawDescriptionHelpFormatter)
    _inputs(p, PRESETS)
    p.add_argument("--out", type=csv_file, required=True, help="scores CSV to write")
    p.add_argument("--profile-out", type=csv_file, help="also write the full profile CSV")
    p.add_argument("--html", type=html_file, help="also write a self-contained HTML report (one benchmark)")
    p.add_argument("--lock", type=json_file,
                   help="also write a baseline file (JSON) for later --baseline gates (one benchmark)")
    p.add_argument("--fail-below", action="append", default=[], metavar="JUDGE=N",
                   help="gate: exit 1 when JUDGE's weighted score (JUDGE=N) or condition (JUDGE:C7=N) is below N")
    p.add_argument("--baseline", type=Path, help="gate: exit 1 when a judge is significantly below this locked baseline")
    p.add_argument("--gate-judge", action="append", help="judges checked against --baseline (default: all in it)")
    p.set_defaults(handler=_choose)
    r = sub.add_parser("report", help="self-contained HTML report of the judge choice (opens offline)",
                       description="Write the choice of one benchmark (leaderboard, sentence, radar, weights, "
                       "coverage notes, provenance) as one HTML file with plotly embedded.",
                       epilog="exit codes:\n  0  the report was written\n  2  bad input, or no judge has a score under the "
                       "weights (one line on stderr)",
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    _inputs(r, PRESETS)
    r.add_argument("--out", type=html_file, required=True, help="HTML file to write")
    r.set_defaults(handler=_report)


def _inputs(p: argparse.ArgumentParser, presets) -> None:
    p.add_argument("--data", type=Path, required=True, help="dataset directory")
    p.add_argument("--benchmark", action="append", help="restrict to a benchmark (repeatable; default all)")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--weights", help="condition weights, e.g. C1=1,C7=2 (absent conditions weigh 0)")
    g.add_argument("--preset", help="a weight preset: " + ", ".join(repr(k) for k in presets) + " (default balanced)")
    p.add_argument("--min", action="append", default=[], metavar="C=PCT",
                   help="minimum per condition: C7=60 on the value, C7.low=60 on the interval's lower bound "
                   "(repeatable or comma-separated); judges below are filtered out and listed")
    p.add_argument("--published", action="store_true", help="include the published CAP judges of the benchmark")
    p.add_argument("--judge", action="append", metavar="NAME",
                   help="rank only these judges of the data (repeatable; default every judge of the benchmark). "
                        "Holm's correction is over the judges ranked, so this reproduces a dashboard view that "
                        "selects some of them (its scores CSV lists them)")
    p.add_argument("--bootstrap", type=BOOTSTRAP, default=1000, help="resamples (default 1000)")
    p.add_argument("--seed", type=SEED, default=0)
    p.add_argument("--level", type=LEVEL, default=0.95, help="interval level and 1 - alpha of the Holm correction")
    add_failures(p)
    add_items(p)


def _report(args: argparse.Namespace) -> str:
    html = args.out
    check_outputs(out=html)
    args.out, args.html, args.profile_out, args.lock, args.fail_below, args.baseline = None, html, None, None, [], None
    _choose(args)
    return f"wrote the HTML report to {html}"


def _gates(specs: list[str]) -> list[tuple[str, str | None, float]]:
    from cap_core.schema import CONDITION_IDS

    out = []
    for spec in specs:
        name, sep, num = spec.rpartition("=")
        try:
            thr = float(num)
        except ValueError:
            sep = ""
        else:
            if not 0 <= thr <= 100:  # nan, inf and values off the percent scale: a gate that can never decide
                sep = ""
        judge, cond = name, None
        head, colon, tail = name.rpartition(":")
        if colon and tail.strip().upper() in CONDITION_IDS:
            judge, cond = head, tail.strip().upper()
        if not sep or not judge.strip():
            raise CAPInputError("a gate must read JUDGE=NUMBER or JUDGE:CONDITION=NUMBER", argument="--fail-below",
                                got=spec, expected="e.g. 'GPT-4/CoT=60' or 'GPT-4/CoT:C7=55' (a number from 0 to 100)",
                                fix="quote the judge name and give a number in percent")
        out.append((judge.strip(), cond, thr))
    return out


def _choose(args: argparse.Namespace) -> str:
    from cap_core.bootstrap import check_bootstrap_args
    from cap_core.choice.baseline import (
        check_baseline_items,
        check_baseline_weights,
        compare_to_baseline,
        lock_baseline,
        read_baseline,
    )
    from cap_core.choice.filters import format_filters, parse_filters, parse_weights
    from cap_core.choice.pipeline import run_choice
    from cap_core.dataset import load_dataset
    from cap_core.export import write_csv
    from cap_core.outputs import write_file
    from cap_core.profile.weights import PRESETS

    check_bootstrap_args(args.bootstrap, args.seed, args.level)
    check_outputs(out=args.out, profile_out=args.profile_out, html=args.html, lock=args.lock)
    if args.weights is not None:
        weights = parse_weights(args.weights, argument="--weights")
    else:
        name = "balanced" if args.preset is None else args.preset  # '' is a misspelt preset, not the default
        if name not in PRESETS:
            from cap_core.schema import did_you_mean

            raise CAPInputError("unknown preset", argument="--preset", got=name, expected="one of " + ", ".join(PRESETS),
                                fix=did_you_mean(name, PRESETS, "pick a preset or pass --weights"))
        weights = dict(PRESETS[name])
    filters = parse_filters(args.min, argument="--min")
    gates = _gates(args.fail_below)
    baseline = read_baseline(args.baseline) if args.baseline else None
    ds = load_dataset(args.data)
    benches = args.benchmark or ds.benchmarks
    unknown = [b for b in benches if b not in ds.benchmarks]
    if unknown:
        from cap_core.schema import did_you_mean

        raise CAPInputError("unknown benchmark", argument="--benchmark", got=unknown[0],
                            expected="one of " + ", ".join(ds.benchmarks),
                            fix=did_you_mean(unknown[0], ds.benchmarks, "name a benchmark of the dataset"))
    if baseline is not None:  # everything about the baseline is checked before the estimate
        if baseline["benchmark"] not in benches:
            raise CAPInputError("the baseline's benchmark was not ranked", argument="--baseline",
                                got=baseline["benchmark"], expected="one of " + ", ".join(benches),
                                fix=f"add --benchmark {baseline['benchmark']}")
        check_baseline_weights(baseline, weights)
        check_baseline_items(baseline, ds, args.baseline)
        locked = {s["judge"] for s in baseline["scores"]}
        for judge in args.gate_judge or []:
            if judge not in locked:
                raise CAPInputError("a gated judge is not in the baseline", argument="--gate-judge", got=judge,
                                    expected="one of " + ", ".join(sorted(locked)),
                                    fix="name a judge the baseline was locked with")
    if (args.html or args.lock) and len(benches) != 1:
        raise CAPInputError("an HTML report (report, or choose --html) and a lock (--lock) describe one benchmark",
                            argument="--benchmark", got=benches,
                            expected="exactly one --benchmark", fix="add --benchmark NAME")
    published = None
    if args.published:
        from cap_core.profile.published import load_published_profiles

        published = load_published_profiles()
    own = {bench: set(ds.judgments.filter(pl.col("benchmark") == bench)["judge"].unique().to_list())
           for bench in benches}  # the data's judges of each benchmark
    judged = set().union(*own.values())
    if published is not None:
        judged |= set(published.filter(pl.col("benchmark").is_in(benches))["judge"].unique().to_list())
    for judge, _, _ in gates:  # a name no judge of these benchmarks has: refused before the estimate
        if judge not in judged:
            raise CAPInputError("a gated judge is not a judge of the benchmark", argument="--fail-below", got=judge,
                                expected="one of " + ", ".join(sorted(judged)), fix="name a judge of the benchmark")
    for judge in args.judge or []:  # a name no judge of these benchmarks has: refused before the estimate
        if not any(judge in names for names in own.values()):
            from cap_core.schema import did_you_mean

            known = sorted(set().union(*own.values()))
            raise CAPInputError("not a judge of the data on the benchmark", argument="--judge", got=judge,
                                expected="one of " + ", ".join(known),
                                fix=did_you_mean(judge, known, "name a judge of the data"))
    fp = ds.fingerprint()
    results = {bench: run_choice(ds, bench, weights, filters=filters, published=published, items=args.items,
                                 judges=None if not args.judge else [j for j in dict.fromkeys(args.judge)
                                                                     if j in own[bench]],
                                 failures=args.failures, n_resamples=args.bootstrap, seed=args.seed, level=args.level)
               for bench in benches}
    if not any(got.choice.leaderboard["score"].is_not_null().any() for got in results.values()):
        # an empty leaderboard would pass every gate: refused before anything is written or said
        from cap_core.choice.fit import unscored_error

        raise unscored_error(", ".join(benches), pl.concat([got.inputs.rows for got in results.values()]),
                             weights, preset=None if args.weights is not None else (args.preset or "balanced"),
                             argument="--weights" if args.weights is not None else "--preset", filters=filters)
    boards, profiles, choices = [], [], {}
    for bench, got in results.items():
        ch, rows = got.choice, got.inputs.rows
        choices[bench] = (ch, rows)
        for notice in got.inputs.notices:
            print(visible(f"notice: {notice}"), file=sys.stderr)
        for r in ch.filtered.iter_rows(named=True):
            print(visible(f"notice: {bench}: {r['judge']} filtered out: {r['reason']}"), file=sys.stderr)
        print(visible(f"{bench}: {ch.sentence}"), file=sys.stderr)
        boards.append(got.scores)
        profiles.append(got.profile_table)
    board = pl.concat(boards, how="vertical_relaxed")
    for judge, cond, _ in gates:  # bad names are input errors: refuse before writing anything
        if judge not in set(board["judge"].to_list()):
            raise CAPInputError("a gated judge is not on the leaderboard", argument="--fail-below", got=judge,
                                expected="one of " + ", ".join(sorted(set(board["judge"].to_list()))),
                                fix="name a judge of the benchmark (filtered-out judges are not ranked)")
    if args.out is not None:
        write_csv(board, args.out)
    if args.profile_out:
        write_csv(pl.concat(profiles, how="vertical_relaxed"), args.profile_out)
    if args.html or args.lock:
        bench = benches[0]
        ch, rows = choices[bench]
        if args.html:
            from cap_core.choice.report import html_report

            write_file(args.html, html_report(ch, rows, benchmark=bench, filters=filters, fingerprint=fp,
                                              level=args.level, resamples=args.bootstrap, seed=args.seed))
        if args.lock:
            doc = lock_baseline(ds, bench, ch.leaderboard, ch.weights, filters=format_filters(filters),
                                level=args.level, resamples=args.bootstrap, seed=args.seed, fingerprint=fp)
            write_file(args.lock, json.dumps(doc))
    failures, passed = _check_gates(gates, board, choices)
    if baseline is not None:
        bench = baseline["benchmark"]
        if bench not in choices:
            raise CAPInputError("the baseline's benchmark was not ranked", argument="--baseline", got=bench,
                                expected="one of " + ", ".join(choices), fix=f"add --benchmark {bench}")
        ch, _ = choices[bench]
        ranked = set(ch.leaderboard.filter(pl.col("score").is_not_null())["judge"].to_list())
        names = args.gate_judge or [s["judge"] for s in baseline["scores"]
                                    if s.get("score") is not None and s["judge"] in ranked]
        if not names:
            raise CAPInputError("no judge of the baseline is ranked now", argument="--baseline",
                                got=sorted({s["judge"] for s in baseline["scores"]}),
                                expected="judges ranked on " + bench, fix="pass --gate-judge or lock a new baseline")
        for judge in names:
            mine = ch.leaderboard.filter((pl.col("judge") == judge) & pl.col("score").is_not_null())
            if mine.height == 0:
                raise CAPInputError("a gated judge has no score now", argument="--gate-judge", got=judge,
                                    expected="a judge ranked on " + bench, fix="check the judge name and filters")
            res = compare_to_baseline(ds, bench, judge, mine.row(0, named=True), baseline, ch.weights,
                                      level=args.level, n_resamples=args.bootstrap, seed=args.seed,
                                      failures=args.failures)
            if res.below:
                failures.append("significantly below the baseline: " + res.message)
            else:
                passed.append(f"not significantly below the baseline {args.baseline}: " + res.message)
    if failures:
        print(f"gate failed: {failures[0]}" + (f" (and {len(failures) - 1} more)" if len(failures) > 1 else ""),
              file=sys.stderr)
        sys.stdout.write(f"wrote {board.height} leaderboard rows to {args.out}\n")
        raise SystemExit(1)
    if passed:  # a gate that ran says so: a silent pass cannot be told from a gate that was never set
        from cap_core.errors import capped

        print(f"gate passed: {capped(passed, 4, sep='; ')}", file=sys.stderr)
    return f"wrote {board.height} leaderboard rows to {args.out}"


def _check_gates(gates, board: pl.DataFrame, choices) -> tuple[list[str], list[str]]:
    """(failed, passed): one sentence per threshold gate and leaderboard row of its judge."""
    out, ok = [], []
    for judge, cond, thr in gates:
        mine = board.filter(pl.col("judge") == judge)
        for r in mine.iter_rows(named=True):
            where = r["benchmark"] + ("" if r["subset"] in (None, "all") else f":{r['subset']}")
            if cond is None:
                if r["score"] is None:
                    out.append(f"{judge} has no weighted score on {where} (threshold {thr:g})")
                elif r["score"] < thr:
                    out.append(f"{judge} weighted score {r['score']:.1f} < {thr:g} on {where}")
                else:
                    ok.append(f"{judge} weighted score {r['score']:.1f} >= {thr:g} on {where}")
                continue
            _, rows = choices[r["benchmark"]]
            cell = rows.filter((pl.col("judge") == judge) & (pl.col("condition") == cond) & pl.col("primary")
                               & (pl.col("source") == r["source"]) & (pl.col("subset") == r["subset"]))
            v = cell["value"][0] if cell.height else None
            if v is None:
                out.append(f"{judge} {cond} is not measured on {where} (threshold {thr:g})")
            elif v < thr:
                out.append(f"{judge} {cond} {cell['metric'][0]} {v:.1f} < {thr:g} on {where}")
            else:
                ok.append(f"{judge} {cond} {cell['metric'][0]} {v:.1f} >= {thr:g} on {where}")
    return out, ok
