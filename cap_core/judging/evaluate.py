"""Rationale evaluation for C8 Rationale Quality (CAP §3.3, App. B.4 and C).

Only rationales of correct verdicts in the ORIGINAL order (``AB``) are evaluated, so
"Answer A" in a rationale means what the evaluator sees. Form A is used when the item
carries a planted-error note (``error_note``), Form B otherwise. The evaluator must not
be one of the judges under test; such a request is refused. The result is
``rationale_supported`` (1 supported, 0 not, null when not evaluated or the evaluator's
reply could not be read) on those AB rows.
"""

from __future__ import annotations

import json
from typing import Callable

import polars as pl

from cap_core.errors import CAPInputError
from cap_core.judging.parse import extract_json_objects
from cap_core.judging.request import JudgeRequest
from cap_core.judging.templates import load_template

__all__ = ["evaluate_rationales", "parse_support", "evaluator_request"]

_KEYS = ("supported", "rationale_correct", "support", "verdict")
_YES, _NO = {"1", "yes", "true", "supported"}, {"0", "no", "false", "not supported", "unsupported"}


def parse_support(text: str) -> int | None:
    """1 / 0 from the evaluator's JSON (last object with a support field wins); None if unreadable."""
    value = None
    for _s, _e, obj in extract_json_objects(text or ""):
        key = next((k for k in obj if k.lower() in _KEYS), None)
        if key is None:
            continue
        v = str(obj[key]).strip().lower()
        value = 1 if v in _YES else 0 if v in _NO else value
    return value


def evaluator_request(item: dict, rationale: str, evaluator: str) -> JudgeRequest:
    """The Form A / Form B request for one correct AB verdict of ``item``."""
    gold = item["gold"]
    bad = "B" if gold == "A" else "A"
    fields = {"question": item["question"], "correct_letter": gold, "flawed_letter": bad,
              "correct_answer": item[f"response_{gold.lower()}"], "flawed_answer": item[f"response_{bad.lower()}"],
              "rationale": rationale or "(no explanation given)"}
    note = item.get("error_note")
    if note:
        tpl = load_template("evaluator_form_a")
        fields.update(error_type=(item.get("failure_type") or "planted error").replace("_", " "), error_note=note)
    else:
        tpl = load_template("evaluator_form_b")
    return JudgeRequest(evaluator, (("user", tpl.render(**fields)),), 0.0, None, 512, None, None, tpl.version)


def evaluate_rationales(items: pl.DataFrame, calls: pl.DataFrame, evaluator: str, client,
                        on_progress: Callable[[dict], None] | None = None, log=None) -> pl.DataFrame:
    """Add ``rationale_supported`` (Int8) and ``evaluator_completion`` to ``calls``.

    Parameters
    ----------
    items : polars.DataFrame
        Run items with texts (``gold``, ``question``, ``response_a``, ``response_b``,
        optional ``error_note`` / ``failure_type``).
    calls : polars.DataFrame
        Call rows of :func:`cap_core.judging.run.run_judging` (``judge``, ``item_id``,
        ``order``, ``verdict`` in original letters, ``rationale``).
    evaluator : str
        litellm model string of the evaluator.
    client : JudgeClient
        Shared cache, retries and budget.

    Raises
    ------
    CAPInputError
        The evaluator is one of the judges in ``calls`` (argument ``evaluator``).
    """
    judges = set(calls["judge"].unique().to_list())
    if evaluator in judges:
        raise CAPInputError("the rationale evaluator is one of the judges under test", argument="evaluator",
                            got=evaluator, fix="choose an evaluator model that is not judged in this run")
    # keyed by (benchmark, item_id): item ids are unique within a benchmark only (a testbed folder holds
    # its main, hard and replication slices under the same question ids)
    by_id = {(r["benchmark"], r["item_id"]): r for r in items.iter_rows(named=True)}
    from cap_core.judging.choice import is_choice

    # choice judges write no rationale; test-retest repeats after the first are not evaluated
    todo = [(k, r) for k, r in enumerate(calls.iter_rows(named=True))
            if r["order"] == "AB" and r["verdict"] is not None
            and r["verdict"] == by_id[r["benchmark"], r["item_id"]]["gold"]
            and not is_choice(r["judge"]) and not r.get("repeat")]
    reqs = [evaluator_request(by_id[r["benchmark"], r["item_id"]], r["rationale"], evaluator) for _, r in todo]
    supported: list[int | None] = [None] * calls.height
    texts: list[str | None] = [None] * calls.height
    finished = [0]

    def done(i: int, rec) -> None:
        k, row = todo[i]
        texts[k] = rec.completion
        supported[k] = parse_support(rec.completion) if rec.status == "ok" else None
        if log is not None:
            log.write(json.dumps({"evaluator": evaluator, "judge": row["judge"], "item_id": row["item_id"],
                                  "order": "AB", "status": rec.status, "supported": supported[k],
                                  "cache_hit": rec.cache_hit, "cost_usd": rec.cost_usd, "error": rec.error,
                                  "completion": rec.completion}, ensure_ascii=False) + "\n")
            log.flush()
        finished[0] += 1
        if on_progress:
            on_progress(dict(client.stats, done=finished[0], total=len(reqs), phase="rationale evaluation"))

    client.map(reqs, done)
    return calls.with_columns(pl.Series("rationale_supported", supported, dtype=pl.Int8),
                              pl.Series("evaluator_completion", texts, dtype=pl.String))
