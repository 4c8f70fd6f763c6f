"""Probe generation by a language model, checked by the same verifier as the rule-based generator.

For each base claim and each requested slot (a T_C construct edit on the scope or
strength axis, or a T_I control; Validity Table 8 and Fig. 2) a generator model is asked
for the edited claim through the cached :class:`cap_core.judging.client.JudgeClient`
(any litellm model string). Every answer goes through
:func:`cap_core.validity.probes.generate.verify_probes`; a rejected answer is sent back with the verifier's
reason and a fresh request is made, up to ``max_attempts`` times per slot. Every attempt,
kept or rejected, is logged with its reason, so the pipeline discard can be reported per
slot (the Validity paper reports it only in aggregate, Table 4 note).

Requests are deterministic (temperature 0, the attempt number as seed, the rejection
feedback in the prompt), so a rerun is served entirely from the cache.

Offline default: ``localgen/rules``, a litellm custom provider registered here, answers
with the project's own rule for the slot (:mod:`cap_core.validity.probes.rules`), reading the
claim and the declared spans from the prompt. It runs the whole model path (prompt,
cache, parsing, verifier, regeneration) with no network and no key.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import polars as pl

from cap_core.errors import CAPInputError
from cap_core.judging.templates import load_template
from cap_core.validity.probes.rules import RULES, SLOTS

__all__ = ["DEFAULT_GENERATOR", "SLOT_INSTRUCTIONS", "TEMPLATE_VERSION", "ATTEMPTS_SCHEMA", "render",
           "parse_edit", "generate_probes_llm", "attempt_summary"]

DEFAULT_GENERATOR = "localgen/rules"
#: What each slot asks of the generator (own wording of Validity Table 8 and the five controls).
SLOT_INSTRUCTIONS: dict[str, str] = {
    "domain_extension": "Extend what the claim is about to the adjacent domain given below; change nothing else.",
    "population_widening": "Widen who or what the claim covers to the wider population given below; "
                           "change nothing else.",
    "quantifier_strengthening": "Make one quantifier stronger (for example some -> all, often -> always); "
                                "keep every hedge and condition.",
    "tense_modality_shift": "Restate the one-time observation as a standing property (past -> present); "
                            "keep every hedge and condition.",
    "condition_removal": "Drop the clause giving the circumstances under which the result held; change nothing else.",
    "hedging_removal": "Remove one hedge word (probably, possibly, perhaps, ...); change nothing else.",
    "intensifier_addition": "Make the reported effect sound larger with one intensifier; change nothing else.",
    "register": "Rewrite in a plainer or more formal register without changing what is claimed.",
    "restatement": "Restate with synonyms for neutral words without changing what is claimed.",
    "clause_order": "Move the condition clause to the other end of the sentence without changing what is claimed.",
    "length": "Add one neutral sentence that adds no information, without changing what is claimed.",
    "formatting": "Change only the formatting (for example a label or bold), not the words of the claim.",
}
assert set(SLOT_INSTRUCTIONS) == set(SLOTS)
#: The edit request and the feedback turn after a rejection: the built-in templates ``probe_edit``
#: and ``probe_feedback`` (cap_core/judging/prompts/).
TEMPLATE = load_template("probe_edit")
FEEDBACK = load_template("probe_feedback")
#: Both templates' versions (declared version + hash of the text), part of every request's cache key.
TEMPLATE_VERSION = f"{TEMPLATE.version}|{FEEDBACK.version}"
_SPAN_LINES = (("population_span", "wider_population", "Population"), ("domain_span", "adjacent_domain", "Domain"))
ATTEMPTS_SCHEMA: dict[str, pl.DataType] = {
    "base_item_id": pl.Utf8, "slot": pl.Utf8, "attempt": pl.Int64, "text": pl.Utf8, "status": pl.Utf8,
    "reason": pl.Utf8, "cache_hit": pl.Boolean,
}


def render(base: dict, slot: str) -> str:
    """The generator prompt for one base claim (a row of the bases table) and one slot."""
    spans = "".join(f"{name}: replace \"{base[a]}\" with \"{base[b]}\"\n" for a, b, name in _SPAN_LINES
                    if base.get(a) and base.get(b))
    return TEMPLATE.render(slot=slot, instruction=SLOT_INSTRUCTIONS[slot], spans=spans,
                           evidence=base["evidence"].strip(), claim=base["claim"].strip())


def parse_edit(text: str | None) -> str | None:
    """The edited claim in a completion: JSON ``{"claim": ...}`` (fenced or not), else the bare text."""
    if not isinstance(text, str) or not text.strip():
        return None
    for m in re.finditer(r"\{.*\}", text, re.S):
        try:
            obj = json.loads(m.group(0))
        except (json.JSONDecodeError, RecursionError):
            continue
        val = obj.get("claim") if isinstance(obj, dict) else None
        return (val.strip() or None) if isinstance(val, str) else None
    bare = re.sub(r"^```\w*|```$", "", text.strip()).strip().strip('"').strip()
    return bare or None


def _local_answer(prompt: str) -> str:
    """``localgen/rules``: the rule-based edit for the slot named in the prompt."""
    slot = re.search(r"^Instruction \((\w+)\)", prompt, re.M)
    claim = re.search(r"\[Claim\]\n(.*?)\n\[End of Claim\]", prompt, re.S)
    if not slot or slot.group(1) not in RULES or not claim:
        return "I cannot find the slot or the claim."
    spans = {}
    for a, b, name in _SPAN_LINES:
        m = re.search(rf'^{name}: replace "(.*)" with "(.*)"$', prompt, re.M)
        if m:
            spans[a], spans[b] = m.group(1), m.group(2)
    edited = RULES[slot.group(1)](claim.group(1), spans)
    return json.dumps({"claim": edited if edited is not None else claim.group(1)})


def _register_offline() -> None:
    from cap_core.judging.client import import_litellm
    from cap_core.judging.local_providers import register_offline_provider

    import_litellm()  # quiet settings, local cost map

    # the edit request is the first message; feedback turns are ignored
    register_offline_provider("localgen", lambda _name, messages: _local_answer(str(messages[0].get("content", ""))))


def _iv(generator: object, slots: object, max_attempts: object) -> list[str]:
    if not isinstance(generator, str) or not generator.strip():
        raise CAPInputError("no generator model", argument="generator", got=generator,
                            expected="a litellm model string", fix=f"e.g. {DEFAULT_GENERATOR} or openai/gpt-4o-mini")
    if isinstance(max_attempts, bool) or not isinstance(max_attempts, int) or not 1 <= max_attempts <= 10:
        raise CAPInputError("max_attempts must be an integer from 1 to 10", argument="max_attempts",
                            expected="1 to 10 requests per slot", got=max_attempts)
    chosen = list(SLOTS) if slots is None else list(slots)
    unknown = [s for s in chosen if s not in SLOTS]
    if unknown or not chosen:
        raise CAPInputError("unknown probe slot", argument="slots", got=unknown or chosen, expected=", ".join(SLOTS))
    return chosen


def generate_probes_llm(bases: pl.DataFrame, generator: str = DEFAULT_GENERATOR, *, cache_dir: str | Path,
                        slots: list[str] | None = None, max_attempts: int = 3, api_base: str | None = None,
                        max_calls: int | None = None, concurrency: int = 2,
                        max_length_change: float | None = None) -> tuple[pl.DataFrame, pl.DataFrame, list[str]]:
    """Ask ``generator`` for every (base claim, slot) edit; verify; regenerate on rejection.

    Parameters
    ----------
    bases : polars.DataFrame
        Base claims (:data:`cap_core.validity.probes.generate.BASES_SCHEMA`; validated here).
    generator : str
        litellm model string; default ``localgen/rules`` (offline).
    cache_dir : str or Path
        Judging cache; a rerun sends no request.
    slots : list of str, optional
        Slots to generate (default: all twelve of :data:`cap_core.validity.probes.rules.SLOTS`).
    max_attempts : int
        Requests per (base, slot) at most, the first included (1-10, default 3).
    api_base, max_calls, concurrency
        Endpoint of an OpenAI-compatible server, request budget, threads.
    max_length_change : float, optional
        Passed to the verifier (fraction).

    Returns
    -------
    probes : polars.DataFrame
        One row per (base, slot) that got an answer: :data:`cap_core.validity.probes.generate.PROBES_SCHEMA`
        plus ``axes_moved``, ``reason``, ``status`` as in
        :func:`cap_core.validity.probes.generate.verify_probes`: the first kept attempt, else the last
        rejected one.
    attempts : polars.DataFrame
        :data:`ATTEMPTS_SCHEMA`, every attempt: status "kept", "rejected" (verifier
        reason or "no edited claim in the answer") or "failed" (the call failed).
    notices : list of str
        Call totals and the number of verifier rejections.

    Raises
    ------
    CAPInputError
        Bad bases, an unknown slot (argument ``slots``), a bad ``max_attempts``,
        ``max_calls`` or ``cache_dir``, or an empty ``generator``; every request to the
        generator failed (argument ``generator``, the first reason in the fix).
    """
    from cap_core.judging.cache import JudgeCache
    from cap_core.judging.client import Budget, JudgeClient
    from cap_core.judging.request import JudgeRequest
    from cap_core.validity.probes.generate import validate_bases, verify_probes

    chosen = _iv(generator, slots, max_attempts)
    bases = validate_bases(bases)
    by_id = {b["base_item_id"]: b for b in bases.iter_rows(named=True)}
    if generator.startswith("localgen/"):
        _register_offline()
    client = JudgeClient(cache=JudgeCache(cache_dir), budget=Budget(max_calls=max_calls), concurrency=concurrency)
    pending = {(b, s): () for b in by_id for s in chosen}  # (base, slot) -> feedback messages so far
    final: dict[tuple[str, str], dict] = {}
    log: list[tuple] = []
    for attempt in range(1, max_attempts + 1):
        if not pending:
            break
        keys = list(pending)
        reqs = [JudgeRequest(model=generator, messages=(("user", render(by_id[b], s)), *pending[(b, s)]),
                             template_version=TEMPLATE_VERSION, api_base=api_base, max_tokens=256,
                             seed=attempt) for b, s in keys]
        records = client.map(reqs)
        answered = []
        for (b, s), rec in zip(keys, records):
            text = parse_edit(rec.completion) if rec.status == "ok" else None
            if rec.status != "ok":
                log.append((b, s, attempt, None, "failed", rec.error or rec.status, rec.cache_hit))
                del pending[(b, s)]
            elif text is None:
                log.append((b, s, attempt, rec.completion, "rejected", "no edited claim in the answer", rec.cache_hit))
                pending[(b, s)] += (("assistant", rec.completion or ""), ("user", FEEDBACK.render(
                    reason="no edited claim in the answer", previous=rec.completion or "")))
            else:
                answered.append((b, s, text, rec))
        if not answered:
            continue
        claim = {b: by_id[b]["claim"] for b, *_ in answered}
        frame = pl.DataFrame([(f"{b}:{s}", b, *SLOTS[s], s, t, 100.0 * abs(len(t) - len(claim[b])) / len(claim[b]))
                              for b, s, t, _ in answered], orient="row",
                             schema={"probe_id": pl.Utf8, "base_item_id": pl.Utf8, "class": pl.Utf8, "axis": pl.Utf8,
                                     "slot": pl.Utf8, "text": pl.Utf8, "delta_length_pct": pl.Float64})
        verified = verify_probes(bases, frame, max_length_change=max_length_change)
        for (b, s, t, rec), row in zip(answered, verified.iter_rows(named=True)):
            log.append((b, s, attempt, t, row["status"], row["reason"], rec.cache_hit))
            final[(b, s)] = row
            if row["status"] == "kept":
                del pending[(b, s)]
            else:
                pending[(b, s)] += (("assistant", rec.completion), ("user", FEEDBACK.render(
                    reason=row["reason"], previous=t)))
    attempts = pl.DataFrame(log, schema=ATTEMPTS_SCHEMA, orient="row")
    if attempts.height and (attempts["status"] == "failed").all():
        from cap_core.judging.client import one_line

        raise CAPInputError(f"every request to the generator failed ({attempts.height} of {attempts.height})",
                            argument="generator", got=generator, expected="a model that answers",
                            fix="check the model name, its key and --api-base; first reason: "
                                + one_line(attempts["reason"][0], 200))
    pos_b, pos_s = {b: i for i, b in enumerate(by_id)}, {s: i for i, s in enumerate(SLOTS)}
    rows = [final[k] for k in sorted(final, key=lambda k: (pos_b[k[0]], pos_s[k[1]]))]
    from cap_core.validity.probes.generate import PROBES_SCHEMA

    schema = dict(PROBES_SCHEMA, axes_moved=pl.Utf8, reason=pl.Utf8, status=pl.Utf8)
    probes = pl.DataFrame(rows, schema=schema) if rows else pl.DataFrame(schema=schema)
    n_rej = int((attempts["status"] == "rejected").sum())
    n_fail = int((attempts["status"] == "failed").sum())
    notices = [f"{attempts.height} requests: {client.stats['requests']} sent, {client.stats['cache_hits']} from "
               f"the cache, {client.stats['failures']} failed",
               f"{n_rej} answer(s) rejected by the verifier; {int((probes['status'] == 'kept').sum())} of "
               f"{len(by_id) * len(chosen)} slots kept" + (f"; {n_fail} call(s) failed" if n_fail else "")]
    return probes, attempts, notices


def attempt_summary(attempts: pl.DataFrame) -> pl.DataFrame:
    """Per slot: attempts, rejected, kept and the rejection reasons with counts.

    Columns slot (Utf8), attempts, rejected, kept, failed (Int64), reasons (Utf8,
    "reason (count); ..."), slots in taxonomy order (only slots with attempts).
    """
    if not isinstance(attempts, pl.DataFrame) or not set(ATTEMPTS_SCHEMA) <= set(attempts.columns):
        raise CAPInputError("not an attempts table", expected=", ".join(ATTEMPTS_SCHEMA))
    rows = []
    for slot in SLOTS:
        a = attempts.filter(pl.col("slot") == slot)
        if a.height == 0:
            continue
        rej = a.filter(pl.col("status") == "rejected")
        why = rej.group_by("reason").len().sort(["len", "reason"], descending=[True, False])
        rows.append((slot, a.height, rej.height, int((a["status"] == "kept").sum()),
                     int((a["status"] == "failed").sum()), "; ".join(f"{r} ({n})" for r, n in why.iter_rows())))
    return pl.DataFrame(rows, orient="row", schema={"slot": pl.Utf8, "attempts": pl.Int64, "rejected": pl.Int64,
                                                    "kept": pl.Int64, "failed": pl.Int64, "reasons": pl.Utf8})
