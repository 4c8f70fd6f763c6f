"""Argument types shared by the verbs: bounded integers, so a bad count or seed is refused by
the parser (one line, exit status 2) before any work starts."""

from __future__ import annotations

import argparse
from pathlib import Path

from cap_core.errors import CAPInputError

__all__ = ["int_between", "SEED", "check_outputs", "add_call_options", "check_call_options", "add_failures",
           "add_items"]


def int_between(low: int, high: int):
    """An ``argparse`` type accepting integers in ``[low, high]``; the message states the range."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer from {low:,} to {high:,}, got {text!r}") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"expected an integer from {low:,} to {high:,}, got {value:,}")
        return value

    parse.__name__ = "integer"
    return parse


#: Seeds of numpy's and scikit-learn's generators: 0 to 2**32 - 1.
SEED = int_between(0, 2**32 - 1)


def check_outputs(**paths: Path | None) -> None:
    """Refuse output paths that cannot be files before anything is computed or written.

    ``paths`` maps an option name with underscores (``profile_out``) to its path (``None``:
    not given). A path that is an existing directory, or whose parent is an existing file,
    raises :class:`CAPInputError` naming the option (``--profile-out``), so a verb never
    leaves its first files behind when a later one cannot be written.
    """
    for name, path in paths.items():
        if path is None:
            continue
        path = Path(path)
        bad = "is a directory" if path.is_dir() else next(
            (f"{p} is a file" for p in path.parents if p.exists() and not p.is_dir()), None)
        if bad:
            raise CAPInputError("an output path cannot be written as a file", argument="--" + name.replace("_", "-"),
                                got=f"{path} ({bad})", expected="a file path in a folder",
                                fix="name a file, e.g. out/scores.csv")


def add_failures(p: argparse.ArgumentParser) -> None:
    """``--failures count|exclude``: the rule for failed judgments of every verb that computes a profile
    (:data:`cap_core.verdicts.FAILURE_RULES`)."""
    p.add_argument("--failures", choices=("count", "exclude"), default="count",
                   help="failed judgments (unparsed verdicts, missing orders): count (default: they stay in n, "
                        "never correct) or exclude (CAP App. L: API and parse failures lower n; ties stay)")


def add_items(p: argparse.ArgumentParser) -> None:
    """``--items shared|own``: which items judges are compared on (:data:`cap_core.choice.pipeline.ITEM_SETS`)."""
    p.add_argument("--items", choices=("shared", "own"), default="shared",
                   help="when judges covered different items: shared (default: compare them on the items all of "
                        "them judged) or own (each on everything it judged)")


def add_call_options(p: argparse.ArgumentParser) -> None:
    """The request options every judging verb takes (``judge``, ``evaluate``): tokens, budgets,
    concurrency, retries and timeout, with one set of defaults."""
    p.add_argument("--max-tokens", type=int, default=1024)
    p.add_argument("--budget-calls", type=int, help="at most this many requests (retries count)")
    p.add_argument("--budget-usd", type=float, help="stop sending once this many dollars are spent")
    p.add_argument("--concurrency", type=int, default=4)
    p.add_argument("--max-retries", type=int, default=4)
    p.add_argument("--timeout", type=float, default=60.0, help="seconds per request")


def check_call_options(args: argparse.Namespace) -> float:
    """Refuse bad ``--max-retries`` / ``--timeout`` (CAPInputError naming the option) and return
    the temperature in force: ``--temperature``, else 0.7 with ``--repeats`` above 1, else 0."""
    if args.max_retries < 0:
        raise CAPInputError("retries must be a non-negative integer", argument="--max-retries",
                            expected="0 or more retries per call", got=args.max_retries, fix="e.g. --max-retries 4")
    if not args.timeout > 0:
        raise CAPInputError("timeout must be a positive number of seconds", argument="--timeout",
                            expected="seconds > 0", got=args.timeout, fix="e.g. --timeout 60")
    return args.temperature if args.temperature is not None else (0.7 if args.repeats > 1 else 0.0)
