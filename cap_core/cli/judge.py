"""``python -m cap_core judge``: run LLM judges on items and write a dataset directory.

Example::

    python -m cap_core judge --items testbed --model local/longer --model local/first \\
        --orders AB,BA --evaluator local/rationale-check --out runs/mini

The output directory holds items/judgments/declarations (load it with ``profile
--data DIR`` or in the dashboard), the per-call table, the run log and the failure
counts (see :mod:`cap_core.judging.run`). Re-running the same command costs no calls:
every finished call is served from the judging cache (``--cache``, by default
:func:`cap_core.config.cache_dir`). API keys are read from the
environment by litellm and are never written anywhere.
"""

from __future__ import annotations

import argparse
import sys

from cap_core.cli.options import (
    add_call_options,
    cache_folder,
    check_call_options,
    check_model_names,
    input_or_name,
    output_folder,
)
from cap_core.errors import CAPInputError

__all__ = ["register"]


def register(subparsers) -> None:
    """Add the ``judge`` verb."""
    p = subparsers.add_parser("judge", help="run LLM judges (litellm) on items; cached, resumable")
    p.add_argument("--items", required=True, type=input_or_name,
                   help="'testbed', a directory or a table with question/response_a/response_b")
    p.add_argument("--model", action="append", required=True, help="litellm model string (repeatable)")
    p.add_argument("--orders", default="AB,BA", help="AB, BA or AB,BA (default)")
    p.add_argument("--variants", help="comma-separated variants to judge (default all)")
    p.add_argument("--limit", type=int, help="judge only the first N base items")
    p.add_argument("--evaluator", help="rationale evaluator model for C8 (not one of the judges)")
    p.add_argument("--cache", type=cache_folder, default=None,
                   help="judging cache directory (created; default: the project cache, $CAP_CACHE_DIR)")
    p.add_argument("--out", type=output_folder, required=True, help="run/dataset directory to write")
    p.add_argument("--api-base", help="endpoint of an OpenAI-compatible server")
    p.add_argument("--template", default="pairwise", type=input_or_name,
                   help="built-in template name or a template file")
    p.add_argument("--temperature", type=float, default=None, help="default 0, or 0.7 with --repeats above 1")
    p.add_argument("--repeats", type=int, default=1, help="judge every item K times (test-retest: writes "
                   "repeats.parquet and reliability.csv)")
    p.add_argument("--allow-tie", action="store_true", help="choice judges (choice:<model>) may answer tie")
    add_call_options(p)
    p.set_defaults(handler=_judge)


_LAST = [0.0]


def _progress(stats: dict) -> None:
    import time

    now = time.monotonic()
    if now - _LAST[0] < 0.25 and stats["done"] < stats["total"]:
        return
    _LAST[0] = now
    line = (f"\r{stats['phase']} {stats['done']}/{stats['total']} | requests {stats['requests']} | "
            f"cache hits {stats['cache_hits']} | failed {stats['failures']} | ${stats['spend_usd']:.4f}")
    print(line, end="", file=sys.stderr, flush=True)


def _why_none(res) -> str:
    """One line naming each judge and the first reason its calls gave no verdict."""
    from cap_core.judging.client import one_line

    halted, parts = res.stats.get("halted") or {}, []
    calls = res.calls
    for judge in dict.fromkeys(calls["judge"].to_list() if calls.height else []):
        if judge in halted:
            parts.append(halted[judge])
            continue
        reasons = [r for r in calls.filter(calls["judge"] == judge)["reason"].to_list() if r]
        parts.append(f"{judge}: {one_line(reasons[0], 200) if reasons else 'no verdict returned'}")
    return "; ".join(parts) or "no call finished"


#: Function arguments of the judging API -> the option of this verb that sets them.
_OPTIONS = {"judges": "--model", "model": "--model", "orders": "--orders", "evaluator": "--evaluator",
            "temperature": "--temperature", "max_tokens": "--max-tokens", "concurrency": "--concurrency",
            "budget_calls": "--budget-calls", "budget_usd": "--budget-usd", "template": "--template",
            "items": "--items", "out_dir": "--out", "cache_dir": "--cache", "repeats": "--repeats"}


def as_option(err: CAPInputError, options: dict[str, str]) -> CAPInputError:
    """``err`` naming the command-line option instead of the function argument it sets."""
    if err.argument not in options:
        return err
    return CAPInputError(err.problem, file=err.file, row=err.row, column=err.column, argument=options[err.argument],
                         expected=err.expected, got=err.got, fix=err.fix)


def _judge(args: argparse.Namespace) -> str:
    try:
        return _run(args)
    except CAPInputError as err:
        raise as_option(err, _OPTIONS) from None


def _run(args: argparse.Namespace) -> str:
    from cap_core.judging.client import RetryPolicy
    from cap_core.judging.items_io import load_run_items
    from cap_core.judging.run import RunSpec, run_judging

    check_model_names(model=args.model, evaluator=args.evaluator)
    orders = tuple(o.strip().upper() for o in args.orders.split(",") if o.strip())
    temperature = check_call_options(args)
    spec = RunSpec(judges=args.model, orders=orders,
                   variants=tuple(v.strip() for v in args.variants.split(",")) if args.variants else None,
                   template=args.template, max_tokens=args.max_tokens, repeats=args.repeats, allow_tie=args.allow_tie,
                   temperature=temperature,
                   api_base=args.api_base, evaluator=args.evaluator, budget_calls=args.budget_calls,
                   budget_usd=args.budget_usd, concurrency=args.concurrency,
                   retry=RetryPolicy(max_retries=args.max_retries, timeout=args.timeout))
    spec.validate()
    items = load_run_items(args.items)
    if args.limit is not None:
        if args.limit < 1:
            raise CAPInputError("--limit must be at least 1", argument="--limit", expected="a number of base items >= 1",
                                got=args.limit)
        import polars as pl

        keep = items["base_item_id"].unique(maintain_order=True).head(args.limit).to_list()
        items = items.filter(pl.col("base_item_id").is_in(keep))
    from cap_core.config import cache_dir

    from cap_core.outputs import kept

    with kept():  # the run's files stay even if it is refused afterwards: its calls were made and paid for
        res = run_judging(items, spec, cache_dir=args.cache or cache_dir(), out_dir=args.out, on_progress=_progress)
    print(file=sys.stderr)
    s = res.stats
    if res.judgments.height == 0:
        raise CAPInputError(f"the run produced no judgments ({_why_none(res)})", argument="--model",
                            got=", ".join(args.model),
                            fix=f"check the model name and its key; per-call reasons in {res.out_dir}/failures.csv")
    if s.get("halted"):
        print("stopped early: " + "; ".join(s["halted"].values()), file=sys.stderr)
    if args.repeats > 1 and (res.out_dir / "repeats.parquet").is_file():
        import polars as pl

        from cap_core.analyses.reliability import test_retest
        from cap_core.dataset import load_dataset
        from cap_core.export import write_csv

        write_csv(test_retest(load_dataset(res.out_dir), pl.read_parquet(res.out_dir / "repeats.parquet")),
                  res.out_dir / "reliability.csv")
    return (f"wrote {res.judgments.height} judgments to {res.out_dir} ({s['requests']} requests, "
            f"{s['cache_hits']} cache hits, {s['failures']} failed, ${s['spend_usd']:.4f})")
