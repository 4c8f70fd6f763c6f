"""CLI verb ``audit`` (registered through ``cap_core.cli.main.EXTENSIONS``).

``audit --labels NAME|PATH [--labels ...] --mode paired|item|both --out FILE.csv
[--permutations 100] [--seed 0] [--public-data DIR] [--predictions FILE.csv]``
    Label-set surface audit (:mod:`cap_core.audit.surface`): one CSV row per label set x
    predictor x mode with accuracy (percent), kappa, the permutation null's 95th
    percentile, the p-value and whether the row clears its null. ``--labels`` takes a
    public set's name (``RewardBench``, ``PandaLM``, ... or ``all``) or the path of a
    user's CSV / JSONL label set. A public set is audited from its texts in the user's
    local copy of the public data (``--public-data``); without one, its rows come from the
    figures the default-data build ships in ``data/audit`` (:mod:`cap_core.audit.shipped`),
    when they exist for the settings asked (else a CAPInputError says what is shipped).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from cap_core.cli.options import SEED, input_or_name, int_between, csv_file
from cap_core.cli.visible import visible

__all__ = ["register"]


#: largest --permutations (each permutation refits every predictor on every fold)
MAX_PERMUTATIONS = 100_000

#: smallest --permutations for which a row can clear its null at 0.05 (cap_core.audit.surface: p <= alpha with
#: p = (1 + k) / (1 + n); the smallest p, 1 / (1 + n), is <= 0.05 only when n >= 19).
MIN_PERMUTATIONS = 19


def register(sub) -> None:
    """Add the ``audit`` verb to the CLI's subparsers."""
    from cap_core.importers.label_sets import PUBLIC_SETS

    p = sub.add_parser("audit", help="label-set surface audit (can labels be recovered without reading?)")
    p.add_argument("--labels", action="append", required=True, type=input_or_name,
                   help="public label set (" + ", ".join(PUBLIC_SETS) + ", or all) or a CSV/JSONL file; repeatable")
    p.add_argument("--mode", choices=["paired", "item", "both"], default="both")
    p.add_argument("--out", type=csv_file, required=True, help="CSV file to write")
    p.add_argument("--permutations", type=int, default=100,
                   help=f"label permutations for the null (default 100; at least {MIN_PERMUTATIONS})")
    p.add_argument("--seed", type=SEED, default=0)
    p.add_argument("--folds", type=int_between(2, 100), default=5,
                   help="group-aware cross-validation folds (default 5)")
    p.add_argument("--public-data", "--shared", dest="public_data", type=Path,
                   help="your local copy of the public data (the folder holding llmbar/, pandalm/, ... or its "
                   "parent holding data/); without it public sets come from the figures shipped in data/audit")
    p.add_argument("--predictions", type=csv_file, help="also write the out-of-fold predictions to this CSV "
                   "(needs --public-data for public sets)")
    p.set_defaults(handler=_audit)


def _shipped_rows(names: list[str], args: argparse.Namespace):
    """Shipped figures of the public ``names`` for the settings asked, or a CAPInputError saying what is shipped."""
    from cap_core.audit.shipped import read_shipped_audit, shipped_audit
    from cap_core.errors import CAPInputError

    got = read_shipped_audit()
    res, missing = shipped_audit(names, args.permutations, seed=args.seed)
    n_splits = got[1].get("n_splits") if got else None
    if got is None or missing or args.folds != n_splits or args.predictions is not None:
        if got is None:
            have = "no audit figures are shipped (data/audit is empty)"
        else:
            runs = {}
            for name, meta in got[1]["sets"].items():
                for n in meta["permutations"]:
                    runs.setdefault(n, []).append(name)
            have = "shipped: " + "; ".join(f"{', '.join(v)} at {n} permutations" for n, v in sorted(runs.items()))
            have += f" (seed {got[1].get('seed')}, {n_splits} folds, no predictions file)"
        raise CAPInputError(f"the public label set(s) {', '.join(missing or names)} need their texts for these "
                            "settings", argument="--public-data", expected="your local copy of the public data",
                            got="none", fix=f"pass --public-data DIR, or ask for shipped settings ({have})")
    return res


def _audit(args: argparse.Namespace) -> str:
    import polars as pl

    from cap_core.audit.surface import audit_label_set
    from cap_core.cli.main import write_csv
    from cap_core.errors import CAPInputError
    from cap_core.importers.label_sets import PUBLIC_SETS, load_label_set

    if args.permutations < MIN_PERMUTATIONS:
        raise CAPInputError("too few label permutations for a permutation p-value", argument="--permutations",
                            expected=f"an integer >= {MIN_PERMUTATIONS} (p = (1 + k) / (1 + n) can reach 0.05 "
                            "only when n >= 19)", got=args.permutations,
                            fix="use --permutations 100 (the default) or more")
    if args.permutations > MAX_PERMUTATIONS:
        raise CAPInputError("too many label permutations", argument="--permutations",
                            expected=f"at most {MAX_PERMUTATIONS:,} (each refits three predictors; 100 already "
                            "resolves p = 0.01)", got=args.permutations, fix="use --permutations 100 (the default)")

    names: list[str] = []
    for lab in args.labels:
        names.extend(PUBLIC_SETS if lab == "all" else [lab])
    from_shipped = [n for n in names if n in PUBLIC_SETS] if args.public_data is None else []
    shipped = _shipped_rows(from_shipped, args) if from_shipped else None
    # read every file first, so a bad one stops the verb before any audit runs
    sets = {n: load_label_set(n, public_data=args.public_data) for n in names if n not in from_shipped}
    modes = None if args.mode == "both" else (args.mode,)
    tables, preds = [], []
    for name in names:
        if name in from_shipped:
            t = shipped.table.filter(pl.col("label_set") == name)
            tables.append(t if modes is None else t.filter(pl.col("mode").is_in(list(modes))))
            continue
        res = audit_label_set(sets[name], modes=modes, n_permutations=args.permutations, seed=args.seed,
                              n_splits=args.folds)
        tables.append(res.table)
        preds.append(res.predictions)
        for note in dict.fromkeys([*sets[name].notices, *res.notices]):
            print(visible(f"notice: {note}"), file=sys.stderr)
    table = pl.concat(tables)
    write_csv(table, args.out)
    if args.predictions is not None:
        write_csv(pl.concat(preds), args.predictions)
    cleared = int(table["clears_null"].fill_null(False).sum())
    where = f"; {len(from_shipped)} from the figures shipped in data/audit" if from_shipped else ""
    return (f"wrote {table.height} audit rows ({len(names)} label sets{where}; {cleared} clear their permutation "
            f"null) to {args.out}")
