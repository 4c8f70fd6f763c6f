"""CLI verbs ``cascade``, ``jury``, ``agreement``, ``graded`` and ``confidence`` (registered
through ``cap_core.cli.main.EXTENSIONS``).

``cascade --data DIR --benchmark B --cheap J --fallback J [--fallback J2] --out curve.csv``
    τ curve per fallback (accuracy %, deferral %, $ per 1,000 items); how each cost
    was estimated is printed as a notice on stderr. The success line gives the oracle τ
    (optimistic), the cross-fitted gain (mean ± sd over seeded splits) and the
    bootstrap interval of the gain at the oracle τ.
``jury --data DIR --benchmark B --judge J1 --judge J2 --judge J3 --out jury.csv``
``agreement --data DIR --benchmark B --judge J ... --out matrix.csv [--cheap J --repeated rep.csv]``
``graded (--data DIR | --table FILE) [--judge J ...] [--label gold] --out metrics.csv``
    Graded (ordinal) verdicts against ordinal labels (Jev §3.5, §5.2-5.3): exact and
    within-one accuracy (%), quadratic weighted κ, mean offset and the best constant
    shift (levels) per judge, from ``DIR/graded.parquet`` (e.g. ``data/pandalm``: PandaLM
    on the three-level scale B better -1 < tie 0 < A better +1) or any table with one
    column per judge and a label column. ``--jury J1 --jury J2 --jury J3`` adds the
    median jury of those judges (lower median for an even count; ``--upper-median``).
``confidence --data DIR --benchmark B --judge J [--judge J2] [--method auto] --out FILE.csv [--bands-out FILE]``
    Per judge: the AUROC of its confidence for telling its right items from its wrong
    ones (Jev §6.1), accuracy and the error rate of the top confidence band (App. I);
    ``--bands-out`` writes the error rate of every band.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import polars as pl

from cap_core.cli.options import BOOTSTRAP, SEED, int_between, csv_file
from cap_core.cli.visible import visible

__all__ = ["register"]


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--data", type=Path, required=True, help="dataset directory")
    p.add_argument("--benchmark", required=True)
    p.add_argument("--out", type=csv_file, required=True, help="CSV file to write")


def register(sub) -> None:
    """Add the five verbs to the CLI's subparsers."""
    c = sub.add_parser("cascade", help="replay confidence cascades (cheap judge -> fallback)")
    _common(c)
    c.add_argument("--cheap", required=True, help="cheap judge (needs confidence or scores)")
    c.add_argument("--fallback", action="append", required=True, help="fallback judge (repeatable)")
    c.add_argument("--method", default="auto", help="confidence: auto, recorded, margin, decisive")
    c.add_argument("--splits", type=int_between(1, 10_000), default=50, help="seeded half splits for cross-fitting")
    c.add_argument("--bootstrap", type=BOOTSTRAP, default=1000)
    c.add_argument("--seed", type=SEED, default=0)
    c.add_argument("--prices", type=Path, help="price table CSV (default cap_core/cascades/price_table.csv)")
    c.set_defaults(handler=_cascade)
    j = sub.add_parser("jury", help="majority jury vs the most accurate single judge")
    _common(j)
    j.add_argument("--judge", action="append", required=True, help="juror (repeat, at least 3)")
    j.add_argument("--bootstrap", type=BOOTSTRAP, default=1000)
    j.add_argument("--seed", type=SEED, default=0)
    j.set_defaults(handler=_jury)
    a = sub.add_parser("agreement", help="judge-judge and judge-label agreement (exact, kappa)")
    _common(a)
    a.add_argument("--judge", action="append", required=True)
    a.add_argument("--cheap", help="also count repeats of this judge's errors")
    a.add_argument("--repeated", type=csv_file, help="CSV for the repeated-error table (with --cheap)")
    a.set_defaults(handler=_agreement)
    g = sub.add_parser("graded", help="graded (ordinal) verdicts vs ordinal labels: exact, within-one, QWK, shift")
    src = g.add_mutually_exclusive_group(required=True)
    src.add_argument("--data", type=Path, help="dataset directory holding graded.parquet")
    src.add_argument("--table", type=Path, help="graded table (CSV, TSV, JSON, JSONL or Parquet)")
    g.add_argument("--judge", action="append", help="judge column (repeatable; default every column but "
                                                    "item_id and the label)")
    g.add_argument("--label", default="gold", help="label column (default gold)")
    g.add_argument("--jury", action="append", help="juror column of a median jury (repeat, at least 2)")
    g.add_argument("--upper-median", action="store_true", help="even juries take the upper median (default lower)")
    g.add_argument("--out", type=csv_file, required=True, help="CSV file to write")
    g.set_defaults(handler=_graded)
    cf = sub.add_parser("confidence", help="confidence AUROC and error by confidence band per judge")
    _common(cf)
    cf.add_argument("--judge", action="append", required=True, help="judge with a confidence or scores (repeatable)")
    cf.add_argument("--method", default="auto", help="confidence: auto, recorded, margin, decisive")
    cf.add_argument("--bands-out", type=csv_file, help="CSV of the error rate per confidence band")
    cf.set_defaults(handler=_confidence)


def _write(frame: pl.DataFrame, out: Path) -> None:
    from cap_core.cli.main import write_csv

    write_csv(frame, out)


def _cascade(args) -> str:
    from cap_core.cascades.cascade import (
        cascade_curve,
        cascade_data,
        cross_fit,
        gain_ci,
        oracle,
    )
    from cap_core.cascades.cost import cost_notices, cost_summary, load_prices
    from cap_core.dataset import load_dataset

    ds = load_dataset(args.data)
    prices = load_prices(args.prices)
    d = cascade_data(ds, args.benchmark, args.cheap, args.fallback, method=args.method, prices=prices)  # checks first
    for note in cost_notices(cost_summary(ds, args.benchmark, list(dict.fromkeys([args.cheap, *args.fallback])),
                                          prices)):
        print(visible(f"notice: {note}"), file=sys.stderr)
    curve = pl.concat([cascade_curve(d, fb).with_columns(pl.lit(fb).alias("fallback")) for fb in d.fallbacks])
    _write(curve.select("fallback", "tau", "accuracy", "deferral_pct", "usd_per_1000"), args.out)
    o = oracle(d)
    cf = cross_fit(d, n_splits=args.splits, seed=args.seed)
    g = gain_ci(d, o["tau"], o["fallback"], n_resamples=args.bootstrap, seed=args.seed)
    return (f"wrote {curve.height} curve rows to {args.out}; oracle (optimistic) tau={o['tau']:.3f} via "
            f"{o['fallback']}: {o['accuracy']:.1f}% ({o['deferral_pct']:.0f}% deferred), gain over {g['best_single']} "
            f"{g['gain']:+.1f} [{g['ci_low']:+.1f}, {g['ci_high']:+.1f}]; cross-fitted gain "
            f"{cf['gain'].mean():+.2f} ± {cf['gain'].std():.2f} points over {cf.height} held-out halves")


def _jury(args) -> str:
    from cap_core.cascades.jury import jury_comparison
    from cap_core.dataset import load_dataset

    t = jury_comparison(load_dataset(args.data), args.benchmark, args.judge, n_resamples=args.bootstrap,
                        seed=args.seed)
    _write(t, args.out)
    r = t.row(t.height - 1, named=True)
    return (f"wrote {t.height} rows to {args.out}; {r['entry']}: {r['accuracy']:.1f}%, vs best single "
            f"{r['diff_vs_best']:+.1f} [{r['diff_low']:+.1f}, {r['diff_high']:+.1f}] points")


def _agreement(args) -> str:
    from cap_core.cascades.agreement import agreement_matrix, repeated_errors
    from cap_core.dataset import load_dataset
    from cap_core.errors import CAPInputError

    ds = load_dataset(args.data)
    m = agreement_matrix(ds, args.benchmark, args.judge)
    _write(m, args.out)
    msg = f"wrote {m.height} agreement cells to {args.out}"
    if args.cheap or args.repeated:
        if not (args.cheap and args.repeated):
            raise CAPInputError("--cheap and --repeated go together", expected="both or neither",
                                fix="add --cheap JUDGE --repeated FILE.csv")
        r = repeated_errors(ds, args.benchmark, args.cheap, args.judge)
        _write(r, args.repeated)
        msg += f" and {r.height} repeated-error rows to {args.repeated}"
    return msg


#: The graded table a dataset directory may hold (written by the PandaLM import).
GRADED_FILE = "graded.parquet"


def _graded(args) -> str:
    from cap_core.cascades.graded import graded_table
    from cap_core.errors import CAPInputError
    from cap_core.io import read_table

    path = args.table if args.table is not None else args.data / GRADED_FILE
    if args.table is None and not path.is_file():
        raise CAPInputError("the dataset directory holds no graded table", file=str(path), expected=GRADED_FILE,
                            fix="point --data at a directory with graded.parquet (e.g. data/pandalm) or pass --table")
    frame, _ = read_table(path, kind="graded")
    t = graded_table(frame, args.judge, args.label, file=str(path), jury=args.jury, upper=args.upper_median)
    _write(t, args.out)
    best = t.sort("exact", descending=True).row(0, named=True)
    msg = (f"wrote {t.height} graded rows to {args.out}; best exact accuracy {best['judge']}: "
           f"{best['exact']:.1f}% on {best['n']} labelled items (within one level {best['within_one']:.1f}%)")
    if args.jury:
        r = t.row(t.height - 1, named=True)
        msg += (f"; {r['judge']}: exact {r['exact']:.1f}%, quadratic-weighted kappa {r['qwk']:.3f}, "
                f"offset {r['offset']:+.2f} levels")
    return msg


def _confidence(args) -> str:
    from cap_core.cascades.judge_confidence import confidence_summary
    from cap_core.dataset import load_dataset

    summary, bands = confidence_summary(load_dataset(args.data), args.benchmark, args.judge, method=args.method)
    _write(summary, args.out)
    if args.bands_out is not None:
        _write(bands, args.bands_out)
    parts = [f"{r['judge']} AUROC {r['auroc']:.3f} ({r['method']}, {r['n_items']} items)"
             for r in summary.iter_rows(named=True)]
    return f"wrote {summary.height} confidence rows to {args.out}; " + "; ".join(parts)
