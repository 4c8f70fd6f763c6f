"""The two generators behind one interface, and the subtlety judge (CAP App. A.3, A.5).

A generator answers three kinds of request in batches, one :class:`Reply` per job:

``expand``  a short reference answer written out as an explanation (temperature 0.7)
``flaw``    the correct answer with one planted error of the job's type (temperature 1.0),
            one prompt per type (``testbed_flaw_<type>`` templates)
``harden``  the Hard-Constructed rewrite of a pair (temperature 0.8)

:class:`RulesGenerator` (``--generator rules``) answers from :mod:`cap_core.testbed.rules`,
offline and deterministically; it cannot regenerate (the same rule gives the same text).
:class:`ModelGenerator` sends the built-in templates through the cached
:class:`~cap_core.judging.client.JudgeClient` to any litellm model (``--api-base`` for an
OpenAI-compatible server, ``smollm/chat`` on the CPU); attempt ``k`` of a job is sent with
seed ``100 * seed + k``, so a rerun is served from the cache and a regeneration is a new
request; ``on_done(stage, record)`` is called after every call (progress, failure counts).
:class:`SubtletyJudge` rates each flawed answer 1-5 at temperature 0 (5 = needs
domain expertise to detect). Temperatures are those of CAP App. A.3 and A.5
(:data:`TEMPERATURES`).

Replies are read leniently: the JSON object the template asks for (in a code fence or with
prose around it), else, for the expansion and the flawed answer, the bare text. A failed
call gives status ``failed`` with its one-line reason; an answer without the fields needed
gives ``unreadable``. Costs, tokens and cache hits come from the call records.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable

from cap_core.judging.parse import extract_json_objects
from cap_core.judging.templates import load_template
from cap_core.testbed import rules
from cap_core.testbed.taxonomy import TYPE_LABELS

__all__ = ["TEMPERATURES", "SUBTLETY_MIN", "HARD_SUBTLETY", "Reply", "RulesGenerator", "ModelGenerator",
           "SubtletyJudge", "make_generator", "flaw_template"]

#: CAP App. A.3 (expansion 0.7, flawing 1.0, subtlety scoring 0.0) and A.5 (hardening 0.8).
TEMPERATURES: dict[str, float] = {"expand": 0.7, "flaw": 1.0, "subtlety": 0.0, "harden": 0.8}
#: CAP App. A.3/A.6: a flawed answer scoring below this is regenerated; the best attempt still
#: below it is flagged ``low_quality``.
SUBTLETY_MIN = 4
#: A hardened pair counts as hard when the subtlety judge rates it this high (App. A.5 branch).
HARD_SUBTLETY = 5
_MAX_TOKENS = {"expand": 600, "flaw": 900, "subtlety": 200, "harden": 1400}


def flaw_template(error_type: str) -> str:
    """The built-in template name of the flawing prompt for ``error_type``."""
    return f"testbed_flaw_{error_type}"


@dataclass
class Reply:
    """One answer of a generator or judge to one job.

    ``text``: the expansion, flawed answer or hardened correct answer (None unless
    ``status`` is ``ok``); ``extra``: further fields (``note``; ``answer_b``, ``a_flaw``,
    ``b_added`` for hardening); ``score``: the subtlety (judge replies); ``status``: ``ok`` |
    ``failed`` (the call failed: budget, error, cancel) | ``unreadable``; ``reason``: why not ok.
    """

    text: str | None = None
    extra: dict = field(default_factory=dict)
    status: str = "ok"
    reason: str = ""
    model: str = ""
    template_version: str = ""
    temperature: float | None = None
    seed: int | None = None
    cost_usd: float | None = None
    tokens: int | None = None
    cache_hit: bool = False
    score: int | None = None


def _bare(text: str) -> str:
    """A completion without code fences, surrounding quotes or a leading label line."""
    t = re.sub(r"^```\w*\s*|\s*```$", "", text.strip()).strip()
    t = re.sub(r"^(?:flawed answer|answer|explanation)\s*:\s*", "", t, flags=re.I)
    return t.strip().strip('"').strip()


def _json(text: str | None) -> dict | None:
    if not text:
        return None
    found = extract_json_objects(text)
    return found[-1][2] if found else None


class RulesGenerator:
    """The offline rules (:mod:`cap_core.testbed.rules`) as a generator: no calls, cost 0."""

    name = "rules"
    regenerates = False

    def _reply(self, text, extra=None, reason="") -> Reply:
        ok = text is not None
        return Reply(text if ok else None, extra or {}, "ok" if ok else "unreadable", reason, "rules",
                     rules.RULES_VERSION, None, None, 0.0, 0, False)

    def expand(self, jobs: list[dict], attempt: int) -> list[Reply]:
        """A multiple-choice option stated as a sentence; any other answer as it is."""
        return [self._reply(rules.state_option(j["answer"]) if j.get("mcq") else j["answer"]) for j in jobs]

    def flaw(self, jobs: list[dict], attempt: int) -> list[Reply]:
        out = []
        for j in jobs:
            got = rules.plant(j["question"], j["correct"], j["error_type"], j.get("options"))
            out.append(self._reply(got.text, {"note": got.note}) if isinstance(got, rules.Plant)
                       else self._reply(None, reason=got))
        return out

    def harden(self, jobs: list[dict], attempt: int) -> list[Reply]:
        out = []
        for j in jobs:
            got = rules.harden(j["question"], j["correct"], j["flawed"], j.get("context"))
            if isinstance(got, str):
                out.append(self._reply(None, reason=got))
            else:
                a, b, a_flaw, b_added = got
                out.append(self._reply(a, {"answer_b": b, "a_flaw": a_flaw, "b_added": b_added}))
        return out


class _Caller:
    """Shared sending: templates rendered, requests made, records turned into replies."""

    def __init__(self, model: str, client, api_base: str | None, seed: int = 0,
                 on_done: Callable[[str, object], None] | None = None) -> None:
        self.name, self.client, self.api_base, self.seed, self.on_done = model, client, api_base, seed, on_done

    def _send(self, stage: str, template: str, fields: list[dict], attempt: int) -> list[tuple[Reply, object]]:
        from cap_core.judging.request import JudgeRequest

        tpls = {}
        reqs = []
        seed = 100 * self.seed + attempt if stage != "subtlety" else None
        for f in fields:
            name = template if template != "flaw" else flaw_template(f.pop("_type"))
            tpl = tpls.get(name) or tpls.setdefault(name, load_template(name))
            reqs.append(JudgeRequest(self.name, (("user", tpl.render(**f)),), TEMPERATURES[stage], None,
                                     _MAX_TOKENS[stage], seed, None, tpl.version, self.api_base))
        done = (lambda i, rec: self.on_done(stage, rec)) if self.on_done else None
        records = self.client.map(reqs, done)
        out = []
        for req, rec in zip(reqs, records):
            tokens = None if rec.tokens_in is None and rec.tokens_out is None else \
                (rec.tokens_in or 0) + (rec.tokens_out or 0)
            base = Reply(None, {}, "ok", "", self.name, req.template_version, req.temperature, req.seed,
                         rec.cost_usd, tokens, rec.cache_hit)
            if rec.status != "ok":
                base.status, base.reason = "failed", rec.error or rec.status
            out.append((base, rec.completion if rec.status == "ok" else None))
        return out


def _context(job: dict) -> str:
    return (job.get("context") or "").strip() or "(none)"


class ModelGenerator(_Caller):
    """A litellm model as the generator (module doc); ``client`` is a JudgeClient."""

    regenerates = True

    def expand(self, jobs: list[dict], attempt: int) -> list[Reply]:
        fields = [{"question": j["question"], "context": _context(j), "answer": j["answer"]} for j in jobs]
        out = []
        for rep, text in self._send("expand", "testbed_expand", fields, attempt):
            if text is not None:
                rep.text = _bare(text)
            out.append(rep)
        return out

    def flaw(self, jobs: list[dict], attempt: int) -> list[Reply]:
        fields = [{"question": j["question"], "context": _context(j), "answer": j["correct"],
                   "_type": j["error_type"]} for j in jobs]
        out = []
        for j, (rep, text) in zip(jobs, self._send("flaw", "flaw", fields, attempt)):
            if text is not None:
                obj = _json(text)
                if obj is not None:
                    val = next((obj[k] for k in ("flawed_answer", "flawed", "answer") if isinstance(obj.get(k), str)),
                               None)
                    note = obj.get("error_note") if isinstance(obj.get("error_note"), str) else None
                else:
                    val, note = _bare(text), None
                if val and val.strip():
                    rep.text = val.strip()
                    rep.extra["note"] = (note or "").strip() or \
                        f"{TYPE_LABELS[j['error_type']]} planted by {self.name} (no note given)"
                else:
                    rep.status, rep.reason = "unreadable", "no flawed answer in the reply"
            out.append(rep)
        return out

    def harden(self, jobs: list[dict], attempt: int) -> list[Reply]:
        fields = [{"question": j["question"], "correct": j["correct"], "flawed": j["flawed"],
                   "error_type": TYPE_LABELS[j["error_type"]], "error_note": j["note"]} for j in jobs]
        out = []
        for rep, text in self._send("harden", "testbed_harden", fields, attempt):
            if text is not None:
                obj = _json(text) or {}
                a, b = obj.get("answer_a"), obj.get("answer_b")
                if isinstance(a, str) and isinstance(b, str) and a.strip() and b.strip():
                    rep.text = a.strip()
                    rep.extra = {"answer_b": b.strip(), "a_flaw": str(obj.get("a_flaw") or ""),
                                 "b_added": str(obj.get("b_added") or "")}
                else:
                    rep.status, rep.reason = "unreadable", "no answer_a and answer_b in the reply"
            out.append(rep)
        return out


class SubtletyJudge(_Caller):
    """An independent model rating each flawed answer 1-5 (``testbed_subtlety``, temperature 0)."""

    def score(self, jobs: list[dict]) -> list[Reply]:
        """One reply per job (``question``, ``correct``, ``flawed``, ``error_type``, ``note``); ``score``
        is an int 1-5, or None with status ``unreadable`` / ``failed``."""
        fields = [{"question": j["question"], "correct": j["correct"], "flawed": j["flawed"],
                   "error_type": TYPE_LABELS[j["error_type"]], "error_note": j["note"]} for j in jobs]
        out = []
        for rep, text in self._send("subtlety", "testbed_subtlety", fields, 0):
            if text is not None:
                obj = _json(text) or {}
                raw = obj.get("subtlety", obj.get("score"))
                try:
                    val = float(raw)
                except (TypeError, ValueError):
                    val = None
                if val is not None and 1 <= val <= 5 and val == int(val):
                    rep.score = int(val)
                    rep.text = str(obj.get("reason") or "")
                else:
                    rep.status, rep.reason = "unreadable", "no subtlety from 1 to 5 in the reply"
            out.append(rep)
        return out


def make_generator(name: str, client=None, api_base: str | None = None, seed: int = 0,
                   on_done: Callable[[str, object], None] | None = None):
    """``rules`` -> :class:`RulesGenerator`; any other name -> :class:`ModelGenerator` (needs ``client``)."""
    if name == "rules":
        return RulesGenerator()
    return ModelGenerator(name, client, api_base, seed, on_done)
