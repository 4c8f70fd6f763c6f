"""``python -m cap_core testbed build|show|replication``: a controlled testbed from your own questions.

Example (offline, deterministic)::

    python -m cap_core testbed build questions.csv --generator rules --out runs/tb
    python -m cap_core judge --items runs/tb --model local/first --model local/longer \\
        --evaluator local/rationale-check --out runs/tb-run
    python -m cap_core profile --data runs/tb-run --out profile.csv

With a model generator the estimate (calls, tokens, dollars) is printed before any call;
``--dry-run`` stops there, ``--budget-usd`` caps the spend, and every finished call is cached,
so running the command again resumes where it stopped. See :mod:`cap_core.testbed.build`.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from cap_core.cli.options import add_call_options, cache_folder, csv_file, output_folder
from cap_core.cli.visible import visible
from cap_core.errors import CAPInputError
from cap_core.testbed.wording import count as _n

__all__ = ["register"]

_OPTIONS = {"generators": "--generator", "subtlety_judge": "--subtlety-judge", "regenerations": "--regenerations",
            "hard": "--hard", "pad_factor": "--pad-factor", "benchmark": "--benchmark", "seed": "--seed",
            "concurrency": "--concurrency", "budget_calls": "--budget-calls", "budget_usd": "--budget-usd",
            "rewriter": "--rewriter", "out_dir": "--out", "cache_dir": "--cache", "testbed": "--testbed",
            "first": "--first", "second": "--second", "judges": "--judge", "cancel": "--out"}


def register(subparsers) -> None:
    """Add the ``testbed`` verb and its ``build``, ``show`` and ``replication`` sub-verbs."""
    p = subparsers.add_parser("testbed", help="build a controlled testbed (all eight conditions) from your questions")
    sub = p.add_subparsers(dest="testbed_verb", required=True)
    b = sub.add_parser("build", help="questions with reference answers -> a testbed folder judges can run on")
    b.add_argument("questions", type=Path, help="CSV/TSV/JSONL/JSON/Parquet: question, answer (optional id, domain, "
                   "context), or question, options, correct (multiple choice)")
    b.add_argument("--out", type=output_folder, required=True, help="testbed folder to write (new, empty, or an earlier "
                   "testbed: rebuilt in place, its review kept)")
    b.add_argument("--generator", action="append", help="'rules' (offline, default) or a litellm model; give a "
                   "second one for the replication slice (CAP App. I)")
    b.add_argument("--subtlety-judge", help="model scoring each flawed answer 1-5; below 4 it is regenerated")
    b.add_argument("--regenerations", type=int, default=3, help="regenerations while the subtlety is below 4 (3)")
    b.add_argument("--hard", type=int, help="pairs to harden for the Hard-Constructed subset (default: a quarter)")
    b.add_argument("--rewriter", help="who writes the polished and padded variants: 'rules' or a model (default: the "
                   "generator)")
    b.add_argument("--pad-factor", type=float, default=1.5, help="length padding of the flawed answer (1.5)")
    b.add_argument("--benchmark", help="benchmark name (default: the questions file's name)")
    b.add_argument("--seed", type=int, default=0, help="base of every request's seed")
    b.add_argument("--api-base", help="endpoint of an OpenAI-compatible server")
    b.add_argument("--cache", type=cache_folder, default=None, help="judging cache (default: the project cache)")
    b.add_argument("--dry-run", action="store_true", help="print the estimate and stop (nothing sent or written)")
    b.add_argument("--skip-unplantable", action="store_true", help="(rules) leave out the questions no error type "
                   "fits instead of refusing the file (dropped.csv and unplantable.csv name them)")
    add_call_options(b, max_tokens=False)  # each stage has its own limit (cap_core.testbed.prompts)
    b.set_defaults(handler=_build)
    s = sub.add_parser("show", help="counts of a testbed by error type, domain, flag and review state")
    s.add_argument("folder", metavar="FOLDER", type=Path, help="a testbed folder")
    s.add_argument("--counts-out", type=csv_file, help="also write the counts as CSV")
    s.set_defaults(handler=_show)
    r = sub.add_parser("replication", help="per-judge change and cross-slice Spearman of two generator slices "
                       "(CAP Table 16)")
    r.add_argument("--data", type=Path, required=True, help="a run of judges on the testbed (judge --items TESTBED)")
    r.add_argument("--testbed", type=Path, help="the testbed folder (names the two slices)")
    r.add_argument("--first", help="first slice benchmark (default: from --testbed)")
    r.add_argument("--second", help="second slice benchmark (default: from --testbed)")
    r.add_argument("--judge", action="append", help="restrict to a judge (repeatable)")
    r.add_argument("--table-out", type=csv_file, required=True, help="CSV in CAP Table 16 form")
    r.set_defaults(handler=_replication)


def _as_option(err: CAPInputError) -> CAPInputError:
    from cap_core.cli.judge import as_option

    return as_option(err, _OPTIONS)


def _progress(stats: dict) -> None:
    from cap_core.cli.judge import _progress as show

    show(dict({"requests": 0, "cache_hits": 0, "failures": 0, "spend_usd": 0.0}, **stats))


def _build(args: argparse.Namespace) -> str:
    try:
        return _run_build(args)
    except CAPInputError as err:
        raise _as_option(err) from None


def _run_build(args: argparse.Namespace) -> str:
    from cap_core.cli.options import check_call_options
    from cap_core.config import cache_dir
    from cap_core.judging.client import RetryPolicy
    from cap_core.testbed.build import BuildSpec, build_testbed
    from cap_core.testbed.cost import estimate_line

    args.repeats, args.temperature = 1, None  # check_call_options reads them
    check_call_options(args)
    from cap_core.cli.options import check_model_names

    check_model_names(generator=[g for g in args.generator or [] if g != "rules"], subtlety_judge=args.subtlety_judge,
                      rewriter=None if args.rewriter == "rules" else args.rewriter)
    spec = BuildSpec(generators=tuple(args.generator or ["rules"]), subtlety_judge=args.subtlety_judge,
                     api_base=args.api_base, benchmark=args.benchmark, hard=args.hard,
                     regenerations=args.regenerations, pad_factor=args.pad_factor, rewriter=args.rewriter,
                     seed=args.seed, budget_calls=args.budget_calls, budget_usd=args.budget_usd,
                     concurrency=args.concurrency, retry=RetryPolicy(max_retries=args.max_retries,
                                                                     timeout=args.timeout),
                     skip_unplantable=args.skip_unplantable)

    def show_estimate(est: dict) -> None:
        budget = (f"; budget: {args.budget_calls if args.budget_calls is not None else 'no'} request limit, "
                  + (f"${args.budget_usd:.4f}" if args.budget_usd is not None else "no") + " dollar limit")
        print(estimate_line(est) + budget, file=sys.stderr, flush=True)

    res = build_testbed(args.questions, spec, out_dir=args.out, cache_dir=args.cache or cache_dir(),
                        dry_run=args.dry_run, on_estimate=show_estimate, on_progress=_progress)
    if args.dry_run:
        m = res.manifest
        for notice in m["notices"]:
            print(visible(f"notice: {notice}"), file=sys.stderr)
        planned = ", ".join(f"{c} {n}" for c, n in m["planned"].items())
        return visible(f"dry run: nothing sent or written ({_n(m['questions'], 'question')}; planned per condition: "
                       f"{planned})")
    if res.estimate["calls_max"]:
        print(file=sys.stderr)
    from cap_core.testbed.layout import thin_notice

    m = res.manifest
    thin = thin_notice(m["conditions"])
    for notice in [*m["notices"], *([thin] if thin else [])]:
        print(visible(f"notice: {notice}"), file=sys.stderr)
    s = m["stats"]
    if s.get("halted"):
        print(visible("stopped early: " + "; ".join(s["halted"].values())), file=sys.stderr)
    failed = s.get("failed_calls") or {}
    if failed:
        print(visible("failed calls: " + "; ".join(f"{k} {n} ({s['failed_reasons'].get(k, '')})"
                                                   for k, n in failed.items())), file=sys.stderr)
    counts = ", ".join(f"{b}: {_n(c['pairs'], 'pair')}" for b, c in sorted(m["counts"].items()))
    conditions = ", ".join(f"{c} {n}" for c, n in m["conditions"].items())
    return visible(f"wrote the testbed to {res.out_dir} ({counts}; {_n(res.items.height, 'item')}; items per "
                   f"condition of "
            f"{m['benchmark']}: {conditions}; {_n(s['requests'], 'request')}, {_n(s['cache_hits'], 'cache hit')}, "
            f"{sum(failed.values())} failed, ${s['spend_usd']:.4f})")




def _show(args: argparse.Namespace) -> str:
    try:
        from cap_core.testbed.layout import load_testbed_dir
        from cap_core.testbed.review import pair_counts, read_review

        tb = load_testbed_dir(args.folder)
        counts = pair_counts(tb)
        _, notes = read_review(tb)
    except CAPInputError as err:
        raise (err.replace(argument="FOLDER") if err.argument == "testbed" else _as_option(err)) from None
    from cap_core.testbed.layout import condition_counts, thin_notice
    from cap_core.testbed.review import reviewed_items

    m = tb.manifest
    conditions = condition_counts(reviewed_items(tb), m["benchmark"])
    thin = thin_notice(conditions, "items after review")
    lines = [f"testbed {m['benchmark']} from {m['input']['file']} ({_n(m['input']['rows'], 'question')}, "
             f"{m['input']['kind']}); generators: " + ", ".join(f"{s['generator']} -> {s['benchmark']}"
                                                                 for s in m["slices"])
             + f"; subtlety judge: {m['settings'].get('subtlety_judge') or 'none'}"]
    for bench in counts["benchmark"].unique(maintain_order=True).to_list():
        lines.append(f"{bench}:")
        sub = counts.filter(counts["benchmark"] == bench)
        for dim in sub["dimension"].unique(maintain_order=True).to_list():
            vals = sub.filter(sub["dimension"] == dim)
            lines.append(f"  {dim}: " + ", ".join(f"{v} {n}" for v, n in vals.select("value", "n").iter_rows()))
    lines.append(f"items per condition of {m['benchmark']} (after review): "
                 + ", ".join(f"{c} {n}" for c, n in conditions.items()))
    s = m["stats"]
    lines.append(f"calls: {_n(s['requests'], 'request')}, {_n(s['cache_hits'], 'cache hit')}, "
                 f"{sum((s.get('failed_calls') or {}).values())} failed, ${s['spend_usd']:.4f}")
    lines += [f"notice: {n}" for n in [*m.get("notices", []), *notes, *([thin] if thin else [])]]
    if args.counts_out is not None:
        from cap_core.export import write_csv
        from cap_core.testbed.layout import check_output

        try:
            check_output(tb, args.counts_out, "--counts-out")
        except CAPInputError as err:
            raise _as_option(err) from None

        write_csv(counts, args.counts_out)
        lines.append(f"wrote the counts to {args.counts_out}")
    return "\n".join(map(visible, lines))  # each line is one line: breaks and escapes from data are shown


def _replication(args: argparse.Namespace) -> str:
    try:
        return _run_replication(args)
    except CAPInputError as err:
        raise _as_option(err) from None


def _run_replication(args: argparse.Namespace) -> str:
    from cap_core.dataset import load_dataset
    from cap_core.export import write_csv
    from cap_core.testbed.replication import replication, table16

    first, second = args.first, args.second
    manifest = None
    if args.testbed is not None:
        from cap_core.testbed.layout import check_output, load_testbed_dir

        tb = load_testbed_dir(args.testbed)
        manifest = tb.manifest
        check_output(tb, args.table_out, "--table-out")
    if manifest is not None and (first is None or second is None):
        slices = [s["benchmark"] for s in manifest["slices"]]
        if len(slices) < 2:
            raise CAPInputError("the testbed has one generator slice", argument="--testbed", got=str(args.testbed),
                                expected="a testbed built with two --generator", fix="rebuild with a second generator")
        first, second = first or slices[0], second or slices[1]
    if first is None or second is None:
        raise CAPInputError("the two slices are not named", argument="--testbed", expected="--testbed DIR, or "
                            "--first and --second", fix="add --testbed with the testbed folder")
    rep = replication(load_dataset(args.data), first, second, judges=args.judge)
    table = table16(rep)
    for notice in rep.notices:
        print(visible(f"notice: {notice}"), file=sys.stderr)
    write_csv(table, args.table_out)
    return visible(f"wrote the replication ({first} -> {second}, {_n(rep.changes['judge'].n_unique(), 'judge')}, "
            f"{_n(rep.base_items, 'question')} on both slices) to {args.table_out}")
