"""CLI verbs for the cross-benchmark analyses: spearman, stress, distance, correct, compare, qc, hard,
robustness.

``spearman (--profile F | --published) --condition C7 [--view V ...] [--source S ...] [--exact] --out F``
    Cross-benchmark Spearman ρ (CAP App. F); with ``--across-conditions --view V``
    the cross-condition ρ on one view (App. G).
``stress (--profile F | --published | --data DIR) [--base V --stressed V] --out F [--summary-out F]``
    δ = base − stressed per judge and condition (CAP Table 6); default JudgeBench →
    JudgeBench-Pro.
``distance (--profile F | --published) [--view V ...] [--family-map CSV] --out F [--pairs-out F]``
    Within- vs cross-family L1 distances (CAP Table 17).
``correct --data DIR --benchmark B [--judge J ...] --out F``
    App. K bias-corrected accuracy (needs per-item data).
``compare --data DIR --benchmark B (--judge-a J --judge-b J | --judge J --judge K ...) [--correction holm|none] --out F``
    Paired judge comparison (Jev §3.5; needs per-item data); several judges: every pair,
    Holm-corrected across all rows by default (the ``correction`` column says which).
``qc --data DIR [--flag low_quality] [--benchmark B ...] [--judge J ...] --out F``
    Change per judge and condition when flagged items are excluded (CAP App. A.6, Table 10).
``hard --data DIR --benchmark B --selector J [--selector J ...] [--judge J ...] --out F``
    Profiles on the hard-empirical subset chosen by the selectors' A/B errors (CAP App. A.5).
``robustness (--profile F | --published) --out F [--c8-out F]``
    Strict vs pure consistency (CAP App. H) and C8 conditional vs unconditional (§4.1).

``--published`` reads ``data/published/cap_profiles.csv`` and adds the JudgeBench-Pro
cells implied by Table 6 (JB − δ); cells the paper prints twice are resolved by
:func:`cap_core.profile.combine.combine_profiles` (Table 15 kept over Table 19), so the
defaults run without ``--source``.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import polars as pl

from cap_core.cli.options import BOOTSTRAP, SEED, add_failures, finite_between, csv_file
from cap_core.errors import CAPInputError

__all__ = ["register", "VERBS"]


def _source_args(p: argparse.ArgumentParser, data: bool = False) -> None:
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--profile", type=Path, help="profile CSV written by `python -m cap_core profile`")
    g.add_argument("--published", action="store_true", help="use the published CAP tables")
    if data:
        g.add_argument("--data", type=Path, help="dataset directory: per-item data, so δ gets a bootstrap CI")
        p.add_argument("--bootstrap", type=BOOTSTRAP, default=1000, help="resamples with --data (default 1000)")
        p.add_argument("--seed", type=SEED, default=0)
        add_failures(p)
    p.add_argument("--source", action="append", help="keep only rows of this source (repeatable)")
    p.add_argument("--out", type=csv_file, required=True)


def register(subparsers) -> None:
    """Add the analysis verbs to an ``argparse`` subparsers object."""
    sp = subparsers.add_parser("spearman", help="rank stability across benchmarks or conditions")
    _source_args(sp)
    sp.add_argument("--condition", default="C7")
    sp.add_argument("--view", action="append", help="benchmark or benchmark:subset (repeatable)")
    sp.add_argument("--across-conditions", action="store_true", help="conditions on one --view instead")
    sp.add_argument("--exact", action="store_true", help="exact permutation p-values for n <= 9")
    st = subparsers.add_parser("stress", help="stress degradation between two benchmarks")
    _source_args(st, data=True)
    st.add_argument("--base", help="base view BENCHMARK[:SUBSET] (default: JudgeBench when JudgeBench-Pro is "
                    "present, else the first pair of views that share a judge)")
    st.add_argument("--stressed", help="stressed view BENCHMARK[:SUBSET] (default: see --base)")
    st.add_argument("--summary-out", type=csv_file, help="per-judge means and dominant channels")
    ds = subparsers.add_parser("distance", help="within- and cross-family L1 profile distances")
    _source_args(ds)
    ds.add_argument("--view", action="append")
    ds.add_argument("--family-map", type=Path, help="CSV with columns judge, family (overrides name patterns)")
    ds.add_argument("--pairs-out", type=csv_file, help="every judge pair")
    co = subparsers.add_parser("correct", help="App. K bias-corrected accuracy (clipped to [0, 1]; "
                               "saturated cells flagged)")
    co.add_argument("--data", type=Path, required=True)
    co.add_argument("--benchmark", required=True)
    co.add_argument("--judge", action="append")
    co.add_argument("--bootstrap", type=BOOTSTRAP, default=1000)
    co.add_argument("--seed", type=SEED, default=0)
    add_failures(co)
    co.add_argument("--out", type=csv_file, required=True)
    cp = subparsers.add_parser("compare", help="paired comparison of two judges")
    cp.add_argument("--data", type=Path, required=True)
    cp.add_argument("--benchmark", required=True)
    cp.add_argument("--judge-a", help="first judge of a pair")
    cp.add_argument("--judge-b", help="second judge of a pair")
    cp.add_argument("--judge", action="append", help="several judges compared at once, every pair (repeatable; "
                    "instead of --judge-a/--judge-b)")
    cp.add_argument("--correction", choices=["none", "holm"],
                    help="multiple-comparison correction of the 'separated' verdicts across all rows written: holm "
                    "(Holm step-down on bootstrap p-values; default with --judge) or none (default for one pair)")
    cp.add_argument("--bootstrap", type=BOOTSTRAP, default=1000)
    cp.add_argument("--seed", type=SEED, default=0)
    cp.add_argument("--margin", type=finite_between(0, 100), default=5.0, help="parity margin in points")
    add_failures(cp)
    cp.add_argument("--out", type=csv_file, required=True)
    qc = subparsers.add_parser("qc", help="QC sensitivity: profile change without flagged items")
    qc.add_argument("--data", type=Path, required=True)
    qc.add_argument("--flag", default="low_quality")
    qc.add_argument("--benchmark", action="append")
    qc.add_argument("--judge", action="append")
    qc.add_argument("--bootstrap", type=BOOTSTRAP, default=200)
    qc.add_argument("--seed", type=SEED, default=0)
    add_failures(qc)
    qc.add_argument("--out", type=csv_file, required=True)
    hd = subparsers.add_parser("hard", help="profiles on the hard-empirical and/or a hard-constructed subset")
    hd.add_argument("--data", type=Path, required=True)
    hd.add_argument("--benchmark", required=True)
    hd.add_argument("--selector", action="append", help="judge whose A/B errors select items (hard-empirical)")
    hd.add_argument("--construction", type=Path, help="table with an item_id column: your judge-independent "
                    "hard construction (hard-constructed, CAP App. A.5)")
    hd.add_argument("--types-out", type=csv_file,
                    help="CSV of the error-type distribution of each subset (CAP Table 9)")
    hd.add_argument("--judge", action="append", help="judges to profile (default all)")
    hd.add_argument("--bootstrap", type=BOOTSTRAP, default=1000)
    hd.add_argument("--seed", type=SEED, default=0)
    add_failures(hd)
    hd.add_argument("--out", type=csv_file, required=True)
    rb = subparsers.add_parser("robustness", help="strict vs pure consistency; C8 conditional vs unconditional")
    _source_args(rb)
    rb.add_argument("--c8-out", type=csv_file, help="C8 conditional vs unconditional table")
    for verb, parser in (("spearman", sp), ("stress", st), ("distance", ds), ("correct", co), ("compare", cp),
                         ("qc", qc), ("hard", hd), ("robustness", rb)):
        parser.set_defaults(handler=VERBS[verb])


def _profile(args) -> pl.DataFrame:
    from cap_core.io import read_table
    from cap_core.schema import validate_profile

    if args.published:
        from cap_core.profile.combine import combine_profiles
        from cap_core.profile.published import load_published_profiles

        # one row per cell: cells printed twice (Table 15 and Table 19) keep Table 15
        return combine_profiles([], load_published_profiles())
    if not args.profile.is_file():
        raise CAPInputError("profile file not found", file=str(args.profile),
                            fix="write one with `python -m cap_core profile ... --out FILE.csv`")
    frame, _ = read_table(args.profile, kind="profile")
    return validate_profile(frame, file=args.profile.name)


def _write(frame, out: Path) -> None:
    from cap_core.cli.main import write_csv

    write_csv(frame, out)


def _spearman(args) -> str:
    from cap_core.analyses import rank_stability as rs

    prof = _profile(args)
    if args.across_conditions:
        if not args.view or len(args.view) != 1:
            raise CAPInputError("--across-conditions needs exactly one --view", argument="--view", got=args.view)
        out = rs.cross_condition_spearman(prof, args.view[0], sources=args.source, exact=args.exact)
        s = rs.redundancy_summary(out)
        tail = f"; mean |rho| {s['mean_abs_rho']}, {s['n_negative']} negative pair(s)"
    else:
        out = rs.cross_benchmark_spearman(prof, args.condition, args.view, sources=args.source, exact=args.exact)
        tail = ""
    _write(out, args.out)
    return f"wrote {out.height} Spearman pairs to {args.out}{tail}"


def _stress(args) -> str:
    from cap_core.analyses.stress import default_pair, stress_deltas, stress_summary
    from cap_core.errors import CAPInputError

    if (args.base is None) != (args.stressed is None):
        raise CAPInputError("--base and --stressed go together", argument="--base/--stressed",
                            got=args.base or args.stressed, fix="name both views, or neither for the default pair")
    if getattr(args, "data", None) is not None:
        from cap_core.analyses.stress import stress_intervals
        from cap_core.dataset import load_dataset
        from cap_core.profile.conditions import compute_profile

        ds = load_dataset(args.data)
        if args.base is None:  # the default pair needs only who judged which benchmark
            import polars as pl

            who = ds.judgments.select("judge", "benchmark").unique().with_columns(subset=pl.lit("all"))
            args.base, args.stressed = default_pair(who)
        res = compute_profile(ds, n_resamples=args.bootstrap, seed=args.seed,
                              benchmarks=[args.base.split(":")[0], args.stressed.split(":")[0]], failures=args.failures)
        d = stress_intervals(res, args.base, args.stressed)
    else:
        prof = _profile(args)
        if args.base is None:
            args.base, args.stressed = default_pair(prof)
        d = stress_deltas(prof, args.base, args.stressed, sources=args.source)
    _write(d, args.out)
    if args.summary_out:
        per_judge, _ = stress_summary(d)
        _write(per_judge, args.summary_out)
    return f"wrote {d.height} stress deltas ({args.base} -> {args.stressed}) to {args.out}"


def _distance(args) -> str:
    from cap_core.analyses.family_distance import family_l1_summary, pairwise_l1
    from cap_core.io import read_table
    from cap_core.profile.selection import list_views

    prof = _profile(args)
    overrides = None
    if args.family_map:
        fm, _ = read_table(args.family_map, kind="family map")
        if not {"judge", "family"} <= set(fm.columns):
            raise CAPInputError("family map lacks columns", file=str(args.family_map), expected="judge, family",
                                got=fm.columns)
        overrides = dict(fm.select("judge", "family").iter_rows())
    views = args.view or list_views(prof)
    pairs = pl.concat([pairwise_l1(prof, v, sources=args.source, overrides=overrides) for v in views])
    _write(family_l1_summary(pairs), args.out)
    if args.pairs_out:
        _write(pairs, args.pairs_out)
    return f"wrote family distances for {len(views)} view(s) to {args.out}"


def _correct(args) -> str:
    from cap_core.analyses.bias_correction import bias_corrected, position_parameters
    from cap_core.dataset import load_dataset
    from cap_core.profile.conditions import compute_profile

    ds = load_dataset(args.data)
    res = compute_profile(ds, n_resamples=args.bootstrap, seed=args.seed, benchmarks=[args.benchmark],
                          judges=args.judge, failures=args.failures)
    out = bias_corrected(res, position_parameters(ds, args.benchmark, args.judge), benchmark=args.benchmark,
                         seed=args.seed)
    _write(out, args.out)
    sat = out.filter(pl.col("saturated").fill_null(False))
    above, below = (int((sat["saturation"] == side).sum()) for side in ("above 1", "below 0"))
    tail = (f"; {sat.height} saturated ({above} above 1, {below} below 0), reported clipped to [0, 1] with the "
            "unclipped value in corrected_unclipped") if sat.height else ""
    return f"wrote {out.height} corrected cells to {args.out}{tail}"


def _compare(args) -> str:
    from cap_core.analyses.judge_comparison import (
        adjust_separated,
        compare_judges,
        compare_many,
    )
    from cap_core.dataset import load_dataset

    pair = args.judge_a is not None or args.judge_b is not None
    if pair == bool(args.judge) or (pair and (args.judge_a is None or args.judge_b is None)):
        raise CAPInputError("name one pair (--judge-a and --judge-b) or several judges (--judge, repeated)",
                            argument="--judge", expected="--judge-a J --judge-b K, or --judge J --judge K ...",
                            got=args.judge or [args.judge_a, args.judge_b], fix="use one of the two forms")
    ds = load_dataset(args.data)
    if pair:
        out = compare_judges(ds, args.judge_a, args.judge_b, args.benchmark,
                             n_resamples=args.bootstrap, seed=args.seed, margin=args.margin, failures=args.failures)
        out = adjust_separated(out, args.correction or "none", margin=args.margin)
    else:
        out = compare_many(ds, args.judge, args.benchmark, correction=args.correction or "holm",
                           n_resamples=args.bootstrap, seed=args.seed, margin=args.margin, failures=args.failures)
    _write(out, args.out)
    in_force = out.get_column("correction")[0] if out.height else (args.correction or "none")
    return f"wrote {out.height} paired comparisons to {args.out} (correction: {in_force})"


def _qc(args) -> str:
    from cap_core.analyses.qc_sensitivity import qc_sensitivity
    from cap_core.dataset import load_dataset

    out = qc_sensitivity(load_dataset(args.data), args.flag, benchmarks=args.benchmark, judges=args.judge,
                         n_resamples=args.bootstrap, seed=args.seed, failures=args.failures)
    _write(out, args.out)
    return f"wrote {out.height} QC changes (points, excluded minus all) to {args.out}"


def _hard(args) -> str:
    from cap_core.analyses.hard_subsets import (
        hard_constructed_profile,
        hard_empirical_profile,
    )
    from cap_core.dataset import load_dataset
    from cap_core.errors import CAPInputError
    from cap_core.io import read_table

    if not args.selector and args.construction is None:
        raise CAPInputError("choose a hard subset", argument="--selector",
                            expected="--selector JUDGE (hard-empirical) and/or --construction FILE (hard-constructed)",
                            fix="add --selector for each judge whose errors select items, or --construction FILE")
    construction = None
    if args.construction is not None:  # read before any work, so a bad file stops the verb at once
        construction, _ = read_table(args.construction, kind="hard construction")
        if "item_id" not in construction.columns:
            raise CAPInputError("the construction file lacks an item_id column", file=str(args.construction),
                                column="item_id", got=construction.columns,
                                fix="write one item id per row under a header item_id")
    ds = load_dataset(args.data)
    results, said = [], []
    if args.selector:
        res = hard_empirical_profile(ds, args.benchmark, args.selector, judges=args.judge,
                                     n_resamples=args.bootstrap, seed=args.seed, failures=args.failures)
        results.append(("hard_empirical", res))
        said.append(f"hard-empirical ({res.items.height} of {res.n_candidates} items). {res.warning}")
    if construction is not None:
        try:
            res = hard_constructed_profile(ds, args.benchmark, construction, judges=args.judge,
                                           n_resamples=args.bootstrap, seed=args.seed, failures=args.failures)
        except CAPInputError as err:
            raise (err.replace(file=str(args.construction)) if err.row is not None else err) from None
        results.append(("hard_constructed", res))
        said.append(f"hard-constructed ({res.items.height} of {res.n_candidates} items). {res.warning}")
    _write(pl.concat([r.profile for _, r in results]), args.out)
    if args.types_out is not None:
        _write(pl.concat([r.types.select(pl.lit(name).alias("subset"), "failure_type", "n", "pct")
                          for name, r in results]), args.types_out)
    return f"wrote the profile on {' and '.join(n for n, _ in results)} to {args.out}: " + " ".join(said)


def _robustness(args) -> str:
    from cap_core.analyses.consistency import (
        c8_conditional_unconditional,
        strict_vs_consistency,
    )

    prof = _profile(args)
    if args.source:
        prof = prof.filter(pl.col("source").is_in(args.source))
    out = strict_vs_consistency(prof)
    _write(out, args.out)
    if args.c8_out:
        _write(c8_conditional_unconditional(prof), args.c8_out)
    return f"wrote {out.height} strict vs consistency rows to {args.out}"


#: verb -> handler(args) -> message; merged into the CLI's dispatch table.
VERBS = {"spearman": _spearman, "stress": _stress, "distance": _distance, "correct": _correct, "compare": _compare,
         "qc": _qc, "hard": _hard, "robustness": _robustness}
