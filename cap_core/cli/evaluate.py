"""``python -m cap_core evaluate``: candidate judges beside a public benchmark's reference judges.

Example::

    python -m cap_core evaluate --benchmark judgebench --source ~/data/judgebench \\
        --model openai/gpt-4o-mini --model choice:openai/qwen2.5-7b --api-base http://localhost:8000/v1 \\
        --limit 50 --out runs/byoj

The cost estimate and the budget are shown before any call (``--dry-run`` stops there);
progress goes to stderr; every finished call is cached, so re-running the command
resumes where it stopped and a finished run costs nothing. The output folder is a
dataset (load it with ``profile --data DIR`` or in the dashboard) holding the
candidates AND the benchmark's published judges on the same items, plus ``usage.csv``
(cost, latency, tokens per judge) and, with the options that ask for them,
``reliability.csv`` (``--repeats K``), ``self_preference.csv`` (response authors known)
and ``augmentation.csv`` (``--augment``). See :mod:`cap_core.judging.candidates`.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from cap_core.cli.judge import _progress, as_option
from cap_core.cli.options import (
    BOOTSTRAP,
    SEED,
    add_call_options,
    cache_folder,
    check_call_options,
    check_model_names,
    input_or_name,
    output_folder,
)
from cap_core.errors import CAPInputError

__all__ = ["register"]

_OPTIONS = {"judges": "--model", "model": "--model", "orders": "--orders", "temperature": "--temperature",
            "max_tokens": "--max-tokens", "concurrency": "--concurrency", "budget_calls": "--budget-calls",
            "budget_usd": "--budget-usd", "repeats": "--repeats", "benchmark": "--benchmark", "source": "--source",
            "only": "--only", "subsets": "--subset", "limit": "--limit", "out_dir": "--out", "cache_dir": "--cache",
            "families": "--families", "template": "--template"}


def register(subparsers) -> None:
    """Add the ``evaluate`` verb."""
    from cap_core.judging.benchmarks import BENCHMARKS

    p = subparsers.add_parser("evaluate", help="judge a public benchmark with your candidate judges, beside its "
                              "published judges (cached, resumable)")
    p.add_argument("--benchmark", required=True, help="one of " + ", ".join(BENCHMARKS))
    p.add_argument("--source", required=True, type=Path, help="your local copy of the benchmark")
    p.add_argument("--model", action="append", required=True,
                   help="litellm model string (repeatable); choice:<model> reads answer-token probabilities; "
                        "smollm/choice is the offline choice judge")
    p.add_argument("--api-base", help="endpoint of an OpenAI-compatible server (vLLM, llama.cpp, Ollama)")
    p.add_argument("--out", required=True, type=output_folder, help="output dataset folder")
    p.add_argument("--only", action="append", help="benchmark id to keep (repeatable; e.g. judgebench)")
    p.add_argument("--subset", action="append", help="native subset to keep (repeatable; e.g. knowledge)")
    p.add_argument("--limit", type=int, help="judge only the first N base items of each benchmark")
    p.add_argument("--orders", default="AB,BA", help="AB, BA or AB,BA (default: both)")
    p.add_argument("--repeats", type=int, default=1, help="judge every item K times (test-retest; needs "
                   "--temperature above 0, default then 0.7)")
    p.add_argument("--temperature", type=float, default=None, help="default 0, or 0.7 with --repeats above 1")
    p.add_argument("--allow-tie", action="store_true", help="choice judges may answer tie")
    p.add_argument("--augment", action="store_true", help="also judge style and length variants of the items")
    p.add_argument("--generator", help="model that writes the variants (default: offline rules)")
    p.add_argument("--families", type=Path, help="model-family table for self-preference (CSV family,pattern)")
    p.add_argument("--template", default="pairwise", type=input_or_name,
                   help="built-in template name or a template file")
    add_call_options(p)
    p.add_argument("--cache", type=cache_folder, default=None, help="judging cache (default: the project cache)")
    p.add_argument("--bootstrap", type=BOOTSTRAP, default=1000, help="resamples of the reliability intervals")
    p.add_argument("--seed", type=SEED, default=0)
    p.add_argument("--dry-run", action="store_true", help="print the cost estimate and stop")
    p.set_defaults(handler=_evaluate)


def _evaluate(args: argparse.Namespace) -> str:
    try:
        return _run(args)
    except CAPInputError as err:
        raise as_option(err, _OPTIONS) from None


def _fmt_usd(x) -> str:
    return "unknown" if x is None else f"${x:.4f}"


def _run(args: argparse.Namespace) -> str:
    from cap_core.config import cache_dir
    from cap_core.judging.benchmarks import load_benchmark
    from cap_core.judging.candidates import evaluate_candidates, select_items
    from cap_core.judging.client import RetryPolicy
    from cap_core.judging.estimate import estimate_run
    from cap_core.judging.run import RunSpec

    check_model_names(model=args.model, generator=args.generator)
    temperature = check_call_options(args)
    spec = RunSpec(judges=args.model, orders=tuple(o.strip().upper() for o in args.orders.split(",") if o.strip()),
                   repeats=args.repeats, allow_tie=args.allow_tie, template=args.template, temperature=temperature,
                   max_tokens=args.max_tokens, api_base=args.api_base, budget_calls=args.budget_calls,
                   budget_usd=args.budget_usd, concurrency=args.concurrency,
                   retry=RetryPolicy(max_retries=args.max_retries, timeout=args.timeout))
    spec.validate()
    if args.families is not None:  # a bad family table stops the verb before the estimate and any call
        from cap_core.analyses.reliability import load_families

        load_families(args.families)
    cache = args.cache or cache_dir()
    bench = load_benchmark(args.benchmark, args.source)
    items = select_items(bench.items, only=args.only, subsets=args.subset, limit=args.limit)
    if args.augment:  # before the estimate and any call
        from cap_core.judging.candidates import check_augmentable

        try:
            check_augmentable(items, args.benchmark)
        except CAPInputError as exc:  # the library names its argument, the CLI its flag
            raise exc.replace(argument="--augment") from None
    est = estimate_run(items, spec, cache)
    print(f"estimate: {est['calls']} calls ({est['cached']} cached, {est['to_send']} to send), "
          f"~{est['prompt_tokens']} prompt tokens, {_fmt_usd(est['usd'])}"
          + (f" (no price for {', '.join(est['unknown_price'])})" if est["unknown_price"] else "")
          + f"; budget: {args.budget_calls if args.budget_calls is not None else 'no'} request limit, "
          f"{_fmt_usd(args.budget_usd) if args.budget_usd is not None else 'no'} dollar limit"
          + (" (augmented variants add their calls)" if args.augment else ""), file=sys.stderr)
    if args.dry_run:
        return f"dry run: nothing sent ({est['to_send']} calls would be sent)"
    from cap_core.outputs import kept

    with kept():  # the run's files stay even if it is refused afterwards: its calls were made and paid for
        res = evaluate_candidates(args.benchmark, args.source, spec, args.out, cache_dir=cache, only=args.only,
                                  subsets=args.subset, limit=args.limit, augment=args.augment,
                                  generator=args.generator, families=args.families, n_resamples=args.bootstrap,
                                  seed=args.seed, on_progress=_progress)
    print(file=sys.stderr)
    s = res.run.stats
    if s.get("halted"):
        print("stopped early: " + "; ".join(s["halted"].values()), file=sys.stderr)
    for r in res.usage.filter(res.usage["mode"] != "reference").iter_rows(named=True):
        lat = "n/a" if r["latency_mean_s"] is None else f"{r['latency_mean_s']:.2f}s mean"
        print(f"  {r['judge']} on {r['benchmark']}: {r['judgments']} judgments, {_fmt_usd(r['cost_usd'])}, "
              f"{lat}, {r['tokens'] or 0} tokens", file=sys.stderr)
    refs = sorted(set(res.dataset.judges) - set(args.model))
    return (f"wrote {res.dataset.judgments.height} judgments of {len(args.model)} candidate(s) beside "
            f"{len(refs)} reference judge(s) to {res.out_dir} ({s['requests']} requests, {s['cache_hits']} cache "
            f"hits, {s['failures']} failed, ${s['spend_usd']:.4f})")
