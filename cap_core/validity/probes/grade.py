"""Live grading of a probe set through :mod:`cap_core.judging` (cache first, then litellm).

Each judge grades, on a 1–5 scale, how fully the evidence licenses a claim: once for
every base claim and once for every verified probe. The result is a graded probe table
(:data:`cap_core.validity.sr.GRADES_SCHEMA`) that the frontier code reads. Any litellm
model string works (hosted models read their keys from the environment); for runs
with no network there is one offline grader, registered as the litellm custom provider
``localgrade``:

``localgrade/overlap``  grade = 1 + 4 x (share of the claim's content words found in
                        the evidence), rounded to halves. A bag-of-words instrument: it
                        reacts to new words, not to what a quantifier or hedge commits to.

A completion whose grade cannot be read (or lies outside 1–5) is a parse failure: the
probes needing it are left out and counted in the notices.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import polars as pl

from cap_core.errors import CAPInputError
from cap_core.judging.templates import load_template

__all__ = ["TEMPLATE", "TEMPLATE_VERSION", "OFFLINE_GRADERS", "render", "parse_grade", "grade_probes"]

SCALE = (1.0, 5.0)
OFFLINE_GRADERS = ("localgrade/overlap",)
#: The grading prompt: the built-in template ``claim_grade`` (cap_core/judging/prompts/claim_grade.txt).
TEMPLATE = load_template("claim_grade")
#: Its version (declared version + hash of the text), part of every grading request's cache key.
TEMPLATE_VERSION = TEMPLATE.version
_STOP = set("""a an the of to in on and or for with is are was were be been it its this that these those as at by
from which who when while if than then there their they them not no do does did can could may might so such also
into about over under more most less all some many any each every""".split())


def render(evidence: str, claim: str) -> str:
    """The grading prompt for one claim (:data:`TEMPLATE` with the stripped texts)."""
    return TEMPLATE.render(evidence=evidence.strip(), claim=claim.strip())


def parse_grade(text: str) -> float | None:
    """The grade in a completion: ``{"grade": n}`` (or ``grade: n``) with 1 <= n <= 5, else None."""
    if not isinstance(text, str):
        return None
    for m in re.finditer(r"\{[^{}]*\}", text):
        try:
            obj = json.loads(m.group(0))
        except json.JSONDecodeError:
            continue
        val = next((v for k, v in obj.items() if str(k).lower() == "grade"), None) if isinstance(obj, dict) else None
        if isinstance(val, (int, float)) and not isinstance(val, bool) and SCALE[0] <= val <= SCALE[1]:
            return float(val)
    m = re.search(r"grade\W{0,3}([0-9](?:\.[0-9]+)?)", text, re.I)
    return float(m.group(1)) if m and SCALE[0] <= float(m.group(1)) <= SCALE[1] else None


def _words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9][a-z0-9\-]+", text.lower()) if w not in _STOP}


def _section(prompt: str, name: str) -> str:
    m = re.search(rf"\[{name}\]\n(.*?)\n\[End of {name}\]", prompt, re.S)
    return m.group(1) if m else ""


def _overlap_grade(prompt: str) -> str:
    claim, evidence = _words(_section(prompt, "Claim")), _words(_section(prompt, "Evidence"))
    share = len(claim & evidence) / len(claim) if claim else 0.0
    return json.dumps({"grade": round(2 * (1 + 4 * share)) / 2})


def _register_offline() -> None:
    from cap_core.judging.client import import_litellm
    from cap_core.judging.local_providers import register_offline_provider

    import_litellm()  # quiet settings, local cost map

    register_offline_provider(
        "localgrade", lambda _name, messages: _overlap_grade("\n".join(str(m.get("content", "")) for m in messages))
    )


def grade_probes(bases: pl.DataFrame, probes: pl.DataFrame, judges: list[str], *, cache_dir: str | Path,
                 max_calls: int | None = None, api_base: str | None = None, concurrency: int = 2
                 ) -> tuple[pl.DataFrame, list[str]]:
    """Grade every base claim and every kept probe with every judge.

    Parameters
    ----------
    bases, probes : polars.DataFrame
        Base claims and verified probes (``status`` column; only "kept" probes are graded).
    judges : list of str
        litellm model strings (e.g. ``localgrade/overlap``, ``openai/gpt-4o-mini``).
    cache_dir : str or Path
        Judging cache; a rerun is served from it (0 requests).
    max_calls : int, optional
        Request budget across the run.

    Returns
    -------
    grades : polars.DataFrame
        :data:`cap_core.validity.sr.GRADES_SCHEMA` rows (scale 1–5).
    notices : list of str
        Call totals and parse / failure counts per judge.

    Raises
    ------
    CAPInputError
        No judge given (argument ``judges``); probes without a ``status`` column; a bad
        ``max_calls`` or unusable ``cache_dir``; bad bases or probes (see
        :func:`cap_core.validity.probes.generate.validate_bases`, e.g. a probe without base);
        every grading request failed (argument ``judges``, the first reason in the fix).
    """
    from cap_core.judging.cache import JudgeCache
    from cap_core.judging.client import Budget, JudgeClient
    from cap_core.judging.request import JudgeRequest
    from cap_core.validity.probes.generate import validate_bases, validate_probes

    if not judges or not all(isinstance(j, str) and j.strip() for j in judges):
        raise CAPInputError("no judge to grade with", argument="judges", expected="litellm model strings",
                            got=judges, fix="pass e.g. localgrade/overlap or openai/gpt-4o-mini")
    if "status" not in probes.columns:
        raise CAPInputError("the probes are not verified", column="status", argument="probes",
                            expected="a verified probe table",
                            fix="run `python -m cap_core probes verify` first")
    bases = validate_bases(bases)
    validate_probes(probes, bases)
    kept = probes.filter(pl.col("status") == "kept")
    evidence = dict(zip(bases["base_item_id"], bases["evidence"]))
    texts = dict(zip(bases["base_item_id"], bases["claim"]))
    units = [(b, "", texts[b]) for b in bases["base_item_id"]] + list(
        zip(kept["base_item_id"], kept["probe_id"], kept["text"]))
    if any(j.startswith("localgrade/") for j in judges):
        _register_offline()
    client = JudgeClient(cache=JudgeCache(cache_dir), budget=Budget(max_calls=max_calls), concurrency=concurrency)
    reqs = [JudgeRequest(model=j, messages=(("user", render(evidence[b], t)),), template_version=TEMPLATE_VERSION,
                         api_base=api_base, max_tokens=64) for j in judges for b, _, t in units]
    records = client.map(reqs)
    if records and not any(r.status == "ok" for r in records):
        from cap_core.judging.client import one_line

        raise CAPInputError(f"every grading request failed ({len(records)} of {len(records)})", argument="judges",
                            got=", ".join(judges), expected="judges that answer",
                            fix="check the model names, their keys and --api-base; first reason: "
                                + one_line(records[0].error or records[0].status, 200))
    grade = {(j, b, p): parse_grade(r.completion) if r.status == "ok" else None
             for (j, (b, p, _)), r in zip(((j, u) for j in judges for u in units), records)}
    rows, notices = [], [f"{len(reqs)} calls: {client.stats['requests']} sent, {client.stats['cache_hits']} "
                         f"from the cache, {client.stats['failures']} failed"]
    for j in judges:
        missing = 0
        for p in kept.iter_rows(named=True):
            gb, gp = grade[(j, p["base_item_id"], "")], grade[(j, p["base_item_id"], p["probe_id"])]
            if gb is None or gp is None:
                missing += 1
                continue
            rows.append((j, p["base_item_id"], p["probe_id"], p["class"], p["axis"], p["slot"], gb, gp, *SCALE))
        if missing:
            notices.append(f"{j}: {missing} probe(s) left out (no readable grade for the probe or its base)")
    from cap_core.validity.sr import GRADES_SCHEMA

    return pl.DataFrame(rows, schema=GRADES_SCHEMA, orient="row"), notices
