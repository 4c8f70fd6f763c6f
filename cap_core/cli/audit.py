"""CLI verb ``audit`` (registered through ``cap_core.cli.main.EXTENSIONS``).

``audit --labels NAME|PATH [--labels ...] --mode paired|item|both --out FILE.csv
[--permutations 100] [--seed 0] [--shared DIR] [--predictions FILE.csv]``
    Label-set surface audit (:mod:`cap_core.audit.surface`): one CSV row per label set x
    predictor x mode with accuracy (percent), kappa, the permutation null's 95th
    percentile, the p-value and whether the row clears its null. ``--labels`` takes a
    public set's name (``RewardBench``, ``PandaLM``, ... or ``all``) or the path of a
    user's CSV / JSONL label set.
"""

from __future__ import annotations

import argparse
from pathlib import Path

__all__ = ["register"]


#: smallest --permutations for which a row can clear its null at 0.05 (cap_core.audit.surface: p <= alpha with
#: p = (1 + k) / (1 + n); the smallest p, 1 / (1 + n), is <= 0.05 only when n >= 19).
MIN_PERMUTATIONS = 19


def register(sub) -> None:
    """Add the ``audit`` verb to the CLI's subparsers."""
    from cap_core.audit.public_sets import BUILTIN

    p = sub.add_parser("audit", help="label-set surface audit (can labels be recovered without reading?)")
    p.add_argument("--labels", action="append", required=True,
                   help="public label set (" + ", ".join(BUILTIN) + ", or all) or a CSV/JSONL file; repeatable")
    p.add_argument("--mode", choices=["paired", "item", "both"], default="both")
    p.add_argument("--out", type=Path, required=True, help="CSV file to write")
    p.add_argument("--permutations", type=int, default=100,
                   help=f"label permutations for the null (default 100; at least {MIN_PERMUTATIONS})")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--folds", type=int, default=5, help="group-aware cross-validation folds (default 5)")
    p.add_argument("--shared", type=Path, help="shared folder holding data/ (default $CAP_SHARED_DIR or ../shared)")
    p.add_argument("--predictions", type=Path, help="also write the out-of-fold predictions to this CSV")
    p.set_defaults(handler=_audit)


def _audit(args: argparse.Namespace) -> str:
    from cap_core.audit.public_sets import BUILTIN, load_label_set
    from cap_core.audit.surface import audit_label_sets
    from cap_core.cli.main import write_csv
    from cap_core.errors import CAPInputError

    if args.permutations < MIN_PERMUTATIONS:
        raise CAPInputError("too few label permutations for a permutation p-value", argument="--permutations",
                            expected=f"an integer >= {MIN_PERMUTATIONS} (p = (1 + k) / (1 + n) can reach 0.05 "
                            "only when n >= 19)", got=args.permutations,
                            fix="use --permutations 100 (the default) or more")

    names: list[str] = []
    for lab in args.labels:
        names.extend(BUILTIN if lab == "all" else [lab])
    sets = [load_label_set(n, shared=args.shared) for n in names]
    modes = None if args.mode == "both" else (args.mode,)
    res = audit_label_sets(sets, modes=modes, n_permutations=args.permutations, seed=args.seed,
                           n_splits=args.folds)
    write_csv(res.table, args.out)
    if args.predictions is not None:
        write_csv(res.predictions, args.predictions)
    cleared = int(res.table["clears_null"].fill_null(False).sum())
    return (f"wrote {res.table.height} audit rows ({len(sets)} label sets; {cleared} clear their permutation null) "
            f"to {args.out}")
