"""The generation loop: expansion, flawing with the subtlety gate, hardening (CAP App. A.3, A.5, A.6).

All three stages run in rounds: every pending job of a round goes out in one batch (the
generator's batch call), so a model generator sends them concurrently through the cache.
Every attempt is logged (:data:`ATTEMPTS_SCHEMA`) with its text, note, status, reason,
subtlety, cost, tokens and cache hit.

**Expansion** (model generators; short answers only, :data:`EXPAND_BELOW` characters):
up to :data:`EXPANSION_ATTEMPTS` attempts; an attempt that fails
:func:`cap_core.testbed.checks.expansion_problem` is rejected. A question whose every
attempt fails is dropped (reason kept).

**Flawing and the subtlety gate** (the rule is exact): attempt 1 is generated; an attempt is
``rejected`` when :func:`cap_core.testbed.checks.flaw_problem` finds a problem, ``failed``
when its call failed; otherwise, with a subtlety judge, it is scored 1-5. An attempt scoring
at least :data:`cap_core.testbed.prompts.SUBTLETY_MIN` (4) ends the item. Otherwise, if the
generator can regenerate, a new attempt is made, up to ``regenerations`` times (CAP: three,
so at most four generations). The kept attempt is the one with the highest score among the
attempts that passed the checks (the earliest among equals; an unreadable score counts as
below 1); the item is flagged ``low_quality`` exactly when that score is below 4 or could
not be read. Without a subtlety judge the first attempt that passes the checks is kept and
no score or flag is given. An item none of whose attempts passed the checks is dropped.

**Hardening**: one attempt per chosen pair; the hardened correct answer must differ from the
original and the hardened pair must pass the flaw checks, keep every number, negation and
hedge of the flawed answer (the planted error), and, with a subtlety judge, be rated
:data:`cap_core.testbed.prompts.HARD_SUBTLETY` (5). A pair that fails stays out of the
hard subset (reason kept), as in CAP (139 of 288 attempts succeeded).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import polars as pl

from cap_core.judging.augment import invariants_kept
from cap_core.testbed.checks import expansion_problem, flaw_problem, normalise
from cap_core.testbed.prompts import HARD_SUBTLETY, SUBTLETY_MIN, Reply
from cap_core.testbed.wording import count

__all__ = ["ATTEMPTS_SCHEMA", "EXPAND_BELOW", "EXPANSION_ATTEMPTS", "FlawResult", "AttemptLog", "expand_answers",
           "flaw_items", "harden_pairs", "needs_expansion"]

#: Every attempt of every stage.
ATTEMPTS_SCHEMA: dict[str, pl.DataType] = {
    "benchmark": pl.String, "base_item_id": pl.String, "stage": pl.String, "attempt": pl.Int64,
    "model": pl.String, "template_version": pl.String, "temperature": pl.Float64, "seed": pl.Int64,
    "text": pl.String, "note": pl.String, "status": pl.String, "reason": pl.String, "subtlety": pl.Int64,
    "subtlety_model": pl.String, "subtlety_reason": pl.String, "cost_usd": pl.Float64, "tokens": pl.Int64,
    "cache_hit": pl.Boolean,
}
#: A reference answer shorter than this (characters) is expanded by a model generator (CAP App. A.1).
EXPAND_BELOW = 80
#: Attempts at one expansion.
EXPANSION_ATTEMPTS = 3


def needs_expansion(answer: str, mcq: bool) -> bool:
    """Multiple-choice answers always; other answers shorter than :data:`EXPAND_BELOW` characters."""
    return bool(mcq) or len(answer.strip()) < EXPAND_BELOW


def _add(a: float | None, b: float | None) -> float | None:
    return None if a is None and b is None else (a or 0.0) + (b or 0.0)


class AttemptLog:
    """The attempts of a build, as rows of :data:`ATTEMPTS_SCHEMA`."""

    def __init__(self) -> None:
        self.rows: list[dict] = []

    def add(self, benchmark: str, base: str, stage: str, attempt: int, rep: Reply, status: str, reason: str = "",
            score: Reply | None = None) -> dict:
        row = {"benchmark": benchmark, "base_item_id": base, "stage": stage, "attempt": attempt,
               "model": rep.model, "template_version": rep.template_version, "temperature": rep.temperature,
               "seed": rep.seed, "text": rep.text, "note": rep.extra.get("note") or rep.extra.get("a_flaw"),
               "status": status, "reason": reason, "subtlety": None, "subtlety_model": None,
               "subtlety_reason": None, "cost_usd": rep.cost_usd, "tokens": rep.tokens, "cache_hit": rep.cache_hit}
        if score is not None:
            row.update(subtlety=score.score, subtlety_model=score.model,
                       subtlety_reason=score.text if score.status == "ok" else score.reason,
                       cost_usd=_add(rep.cost_usd, score.cost_usd),
                       tokens=None if rep.tokens is None and score.tokens is None else
                       (rep.tokens or 0) + (score.tokens or 0))
        self.rows.append(row)
        return row

    def frame(self) -> pl.DataFrame:
        return pl.DataFrame(self.rows, schema=ATTEMPTS_SCHEMA)


def expand_answers(jobs: list[dict], generator, log: AttemptLog, benchmark: str,
                   expand: Callable[[dict], bool]) -> tuple[dict[str, str], dict[str, str]]:
    """The correct answer of each job (``id``, ``question``, ``answer``, ``context``, ``mcq``).

    Returns ``(correct, dropped)``: id -> correct answer (expanded where ``expand(job)`` and
    the generator is a model; stated as a sentence for multiple choice by the rules), and
    id -> reason for the jobs whose expansion failed every attempt.
    """
    correct: dict[str, str] = {}
    dropped: dict[str, str] = {}
    todo = []
    for j in jobs:
        if not expand(j):
            correct[j["id"]] = j["answer"]
        else:
            todo.append(j)
    if not getattr(generator, "regenerates", False):  # the rules: one deterministic statement
        for j, rep in zip(todo, generator.expand(todo, 1)):
            correct[j["id"]] = rep.text
        return correct, dropped
    for attempt in range(1, EXPANSION_ATTEMPTS + 1):
        if not todo:
            break
        left = []
        for j, rep in zip(todo, generator.expand(todo, attempt)):
            why = rep.reason if rep.status != "ok" else expansion_problem(j["answer"], rep.text)
            status = "failed" if rep.status == "failed" else "rejected" if why else "kept"
            log.add(benchmark, j["id"], "expand", attempt, rep, status, why or "")
            if why:
                left.append(j)
                dropped[j["id"]] = f"expansion failed {count(attempt, 'time')}: {why}"
            else:
                correct[j["id"]] = rep.text
                dropped.pop(j["id"], None)
        todo = left
    return correct, dropped


@dataclass(frozen=True)
class FlawResult:
    """The kept flawed answer of one item and its provenance."""

    flawed: str
    note: str
    subtlety: int | None
    attempts: int
    kept_attempt: int
    low_quality: bool
    model: str
    template_version: str
    temperature: float | None
    seed: int | None
    cost_usd: float | None


def flaw_items(jobs: list[dict], generator, judge, log: AttemptLog, benchmark: str, *, regenerations: int = 3,
               ) -> tuple[dict[str, FlawResult], dict[str, str]]:
    """Flawed answers for ``jobs`` (``id``, ``question``, ``correct``, ``context``, ``error_type``) by the
    module's rule. Returns ``(results, dropped)``: id -> :class:`FlawResult`, id -> reason."""
    max_attempts = 1 + (regenerations if getattr(generator, "regenerates", False) else 0)
    passed: dict[str, list[tuple[int, dict, Reply]]] = {j["id"]: [] for j in jobs}
    made: dict[str, int] = {j["id"]: 0 for j in jobs}  # attempts logged per item (counted, never searched for)
    reasons: dict[str, str] = {}
    cost: dict[str, float | None] = {j["id"]: None for j in jobs}
    todo = list(jobs)
    for attempt in range(1, max_attempts + 1):
        if not todo:
            break
        replies = generator.flaw(todo, attempt)
        ok, again = [], set()
        for j, rep in zip(todo, replies):
            made[j["id"]] += 1
            cost[j["id"]] = _add(cost[j["id"]], rep.cost_usd)
            why = rep.reason if rep.status != "ok" else flaw_problem(j["question"], j["correct"], rep.text)
            if why:
                log.add(benchmark, j["id"], "flaw", attempt, rep, "failed" if rep.status == "failed" else "rejected",
                        why)
                reasons[j["id"]] = why
                again.add(j["id"])
            else:
                ok.append((j, rep))
        scores = judge.score([{**j, "flawed": rep.text, "note": rep.extra["note"]} for j, rep in ok]) if (
            judge is not None and ok) else [None] * len(ok)
        for (j, rep), sc in zip(ok, scores):
            if sc is not None:
                cost[j["id"]] = _add(cost[j["id"]], sc.cost_usd)
            row = log.add(benchmark, j["id"], "flaw", attempt, rep, "passed", "", sc)
            passed[j["id"]].append((attempt, row, rep))
            if sc is not None and (sc.score is None or sc.score < SUBTLETY_MIN):
                again.add(j["id"])
        todo = [j for j in jobs if j["id"] in again]
    results: dict[str, FlawResult] = {}
    dropped: dict[str, str] = {}
    for j in jobs:
        got = passed[j["id"]]
        n = made[j["id"]]
        if not got:
            dropped[j["id"]] = f"no flawed answer passed the checks in {count(n, 'attempt')}: {reasons.get(j['id'], '')}"
            continue
        judged = judge is not None
        attempt, row, rep = max(got, key=lambda g: (g[1]["subtlety"] if g[1]["subtlety"] is not None else 0,
                                                    -g[0]))
        row["status"] = "kept"
        score = row["subtlety"]
        results[j["id"]] = FlawResult(rep.text, rep.extra["note"], score, n, attempt,
                                      judged and (score is None or score < SUBTLETY_MIN), rep.model,
                                      rep.template_version, rep.temperature, rep.seed, cost[j["id"]])
    return results, dropped


def harden_pairs(jobs: list[dict], generator, judge, log: AttemptLog, benchmark: str
                 ) -> tuple[dict[str, dict], dict[str, str]]:
    """Hardened pairs for ``jobs`` (``id``, ``question``, ``correct``, ``flawed``, ``error_type``, ``note``,
    ``context``): id -> ``{correct, flawed, a_flaw, b_added, subtlety, reply}``, and id -> reason."""
    out: dict[str, dict] = {}
    dropped: dict[str, str] = {}
    if not jobs:
        return out, dropped
    replies = generator.harden(jobs, 1)
    ok = []
    for j, rep in zip(jobs, replies):
        why = rep.reason if rep.status != "ok" else None
        if why is None:
            new_a, new_b = rep.text, rep.extra["answer_b"]
            if normalise(new_a) == normalise(j["correct"]):
                why = "the correct answer was not changed"
            elif not invariants_kept(j["flawed"], new_b):
                why = "the planted error did not survive: a number, negation or hedge of the flawed answer is gone"
            else:
                why = flaw_problem(j["question"], new_a, new_b)
        if why:
            log.add(benchmark, j["id"], "harden", 1, rep, "failed" if rep.status == "failed" else "rejected", why)
            dropped[j["id"]] = why
        else:
            ok.append((j, rep))
    scores = judge.score([{**j, "correct": rep.text, "flawed": rep.extra["answer_b"]} for j, rep in ok]) if (
        judge is not None and ok) else [None] * len(ok)
    for (j, rep), sc in zip(ok, scores):
        if sc is not None and (sc.score is None or sc.score < HARD_SUBTLETY):
            why = (f"rated {sc.score}, below {HARD_SUBTLETY}" if sc.score is not None
                   else f"no subtlety: {sc.reason}")
            log.add(benchmark, j["id"], "harden", 1, rep, "rejected", why, sc)
            dropped[j["id"]] = why
            continue
        log.add(benchmark, j["id"], "harden", 1, rep, "kept", "", sc)
        out[j["id"]] = {"correct": rep.text, "flawed": rep.extra["answer_b"], "a_flaw": rep.extra.get("a_flaw", ""),
                        "b_added": rep.extra.get("b_added", ""), "subtlety": None if sc is None else sc.score,
                        "reply": rep, "cost_usd": _add(rep.cost_usd, None if sc is None else sc.cost_usd)}
    return out, dropped
