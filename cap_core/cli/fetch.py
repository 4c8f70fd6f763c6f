"""``python -m cap_core fetch NAME --out DIR``: download a public benchmark from the Hugging Face Hub.

Example::

    python -m cap_core fetch judgebench --out ~/data/judgebench
    HF_HUB_OFFLINE=1 python -m cap_core fetch judgebench --out DIR   # a cached copy only

The names and what reads each fetched folder are in :data:`cap_core.importers.hub.REGISTRY`
(``fetch --list`` prints them). Without a network and without a cached copy the verb
exits 2 with one line saying so.
"""

from __future__ import annotations

import argparse
import sys

from cap_core.cli.options import cache_folder, output_folder
from cap_core.cli.visible import visible

__all__ = ["register"]


def register(subparsers) -> None:
    """Add the ``fetch`` verb."""
    p = subparsers.add_parser("fetch", help="download a public benchmark from the Hugging Face Hub into a folder")
    p.add_argument("name", nargs="?", help="benchmark name (see --list)")
    p.add_argument("--out", type=output_folder, help="folder to fill (new or empty)")
    p.add_argument("--list", action="store_true", help="list the fetchable benchmarks and exit")
    p.add_argument("--revision", help="Hub branch, tag or commit (default: the default branch)")
    p.add_argument("--cache-dir", type=cache_folder, help="huggingface_hub cache folder (default: the library's)")
    p.add_argument("--offline", action="store_true", help="use only a cached copy (as HF_HUB_OFFLINE=1)")
    p.add_argument("--force", action="store_true", help="fill a non-empty --out folder")
    p.set_defaults(handler=_fetch)


def _fetch(args: argparse.Namespace) -> str:
    from cap_core.errors import CAPInputError
    from cap_core.importers import hub

    if args.list:
        return "\n".join(f"{s.name}: {s.repo_id or '(not on the Hub)'} -- read with {s.reads_with}. {s.note}"
                         for s in (hub.REGISTRY[n] for n in hub.names()))
    if not args.name:
        raise CAPInputError("no benchmark named", argument="NAME", expected="one of " + ", ".join(hub.names()),
                            fix="e.g. `python -m cap_core fetch judgebench --out DIR`")
    if args.out is None:
        raise CAPInputError("no output folder", argument="--out", expected="a new or empty folder",
                            fix=f"e.g. `python -m cap_core fetch {args.name} --out data/{args.name}`")
    out, notes = hub.fetch(args.name, args.out, revision=args.revision, cache_dir=args.cache_dir,
                           offline=True if args.offline else None, force=args.force)
    for n in notes:
        print(visible(f"notice: {n}"), file=sys.stderr)
    return f"fetched {args.name} into {out}"
