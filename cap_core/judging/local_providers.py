"""Deterministic offline judges registered as a litellm custom provider ``local``.

They run through exactly the same path as hosted models (``litellm.completion``), so
the whole pipeline, the CLI and the dashboard work with no network and no key:

``local/longer``           prefers the longer answer (a pure length heuristic; C6 exposes it)
``local/first``            always answers ``A`` (a pure position bias; C7 strict is 0)
``local/keyword-overlap``  prefers the answer sharing more content words with the question
``local/rationale-check``  a rationale evaluator: supported when the explanation names a
                           content word that distinguishes the two answers
``local/rewriter``         rule-based polish / padding for :mod:`cap_core.judging.augment`

They read the sections of the built-in templates (``[Answer A]`` ... ``[End of Answer A]``)
and answer in the JSON the templates ask for. Usage is counted in whitespace tokens and
costs $0. :func:`register` is idempotent and imports litellm.
"""

from __future__ import annotations

import json
import os
import re

from cap_core.errors import CAPInputError

__all__ = ["register", "LOCAL_JUDGES", "LOCAL_EVALUATORS", "LOCAL_MODELS", "section",
           "content_words"]

LOCAL_JUDGES = ("local/longer", "local/first", "local/keyword-overlap")
LOCAL_EVALUATORS = ("local/rationale-check",)
_KNOWN = ("longer", "first", "keyword-overlap", "rationale-check", "rewriter")
#: Every model of the ``local/`` provider by its full name (judges, the evaluator and the rewriter).
LOCAL_MODELS = tuple(f"local/{name}" for name in _KNOWN)
_STOP = set("""a an the of to in on and or for with is are was were be been it its this that these those as at by from
which who whom what when where why how not no do does did can could may might should would will shall than then
there their they them he she his her you your we our i if but so such also into about over under more most less""".split())


def section(text: str, name: str) -> str | None:
    """Text between ``[name]`` and ``[End of name]`` (None when absent)."""
    m = re.search(r"\[" + re.escape(name) + r"[^\]]*\]\n(.*?)\n\[End of " + re.escape(name), text, re.S | re.I)
    return m.group(1).strip() if m else None


def content_words(text: str) -> set[str]:
    """Lower-cased words of three or more letters that are not stop words."""
    return {w for w in re.findall(r"[a-z0-9][a-z0-9\-]{2,}", text.lower()) if w not in _STOP}


def _judge(model: str, prompt: str) -> str:
    q, a, b = section(prompt, "Question"), section(prompt, "Answer A"), section(prompt, "Answer B")
    if a is None or b is None:
        return "I could not find two answers to compare."
    if model == "first":
        return json.dumps({"rationale": "Answer A is taken as the better answer.", "winner": "A"})
    if model == "longer":
        la, lb = len(a.split()), len(b.split())
        win = "A" if la > lb else "B" if lb > la else "tie"
        return json.dumps({"rationale": f"Answer A has {la} words and Answer B has {lb}; the longer answer is "
                                        "taken as the more complete one.", "winner": win})
    qw = content_words(q or "")
    sa, sb = content_words(a) & qw, content_words(b) & qw
    ra = len(sa) / max(1, len(content_words(a))) ** 0.5
    rb = len(sb) / max(1, len(content_words(b))) ** 0.5
    win = "A" if ra > rb else "B" if rb > ra else "tie"
    only = sorted((sa - sb) if win == "A" else (sb - sa))[:3]
    why = f" It alone mentions {', '.join(only)}." if only else ""
    return json.dumps({"rationale": f"Answer {win if win != 'tie' else 'A'} stays closer to the terms of the "
                                    f"question.{why}", "winner": win})


def _rationale_check(prompt: str) -> str:
    good = section(prompt, "Correct answer") or section(prompt, "Preferred answer") or ""
    bad = section(prompt, "Flawed answer") or section(prompt, "Rejected answer") or ""
    rat = section(prompt, "Judge's explanation") or ""
    distinct = content_words(good) ^ content_words(bad)
    hit = sorted(content_words(rat) & distinct)
    reason = f"names {', '.join(hit[:3])}" if hit else "names no content that separates the answers"
    return json.dumps({"supported": 1 if hit else 0, "reason": f"The explanation {reason}."})


def _rewrite(prompt: str) -> str:
    from cap_core.judging.augment import pad_rule, polish_rule

    text = section(prompt, "Text") or ""
    m = re.search(r"about ([0-9.]+) times as long", prompt)
    return pad_rule(text, float(m.group(1))) if m else polish_rule(text)


def respond(model: str, prompt: str) -> str:
    """The deterministic completion of local model ``model`` (without ``local/``) for ``prompt``.

    Raises
    ------
    CAPInputError
        ``model`` is not one of the local models (argument ``model``).
    """
    if model in ("longer", "first", "keyword-overlap"):
        return _judge(model, prompt)
    if model == "rationale-check":
        return _rationale_check(prompt)
    if model == "rewriter":
        return _rewrite(prompt)
    raise CAPInputError(f"unknown local model {model!r}", argument="model", expected="one of " + ", ".join(_KNOWN),
                        got=f"local/{model}", fix="e.g. --model local/longer")


def register_offline_provider(provider: str, answer) -> None:
    """Register a deterministic offline litellm provider ``provider`` (idempotent).

    ``answer(model_name, messages) -> str`` gives the completion text; it may raise
    :class:`~cap_core.errors.CAPInputError` (or ``LookupError``) for an unknown model
    name, which reaches litellm's callers as a ``NotFoundError`` carrying the message (a
    404: not retried, like a hosted model's). Token counts are word counts of the prompt
    and the answer.
    """
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # as in client.import_litellm
    import litellm
    from litellm import CustomLLM

    if any(p.get("provider") == provider for p in litellm.custom_provider_map):
        return

    class _Offline(CustomLLM):
        def completion(self, model, messages, *args, **kwargs):
            name = model.split("/", 1)[1] if model.startswith(provider + "/") else model
            try:
                text = answer(name, messages)
            except (CAPInputError, LookupError) as exc:
                raise litellm.NotFoundError(message=str(exc), model=f"{provider}/{name}",
                                            llm_provider=provider) from None
            n_in = len("\n".join(str(m.get("content", "")) for m in messages).split())
            n_out = len(text.split())
            return litellm.ModelResponse(
                model=f"{provider}/{name}",
                choices=[{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
                usage={"prompt_tokens": n_in, "completion_tokens": n_out, "total_tokens": n_in + n_out},
            )

    litellm.custom_provider_map = [*litellm.custom_provider_map, {"provider": provider, "custom_handler": _Offline()}]
    from litellm.utils import custom_llm_setup

    custom_llm_setup()


def register() -> None:
    """Register the ``local`` provider with litellm (idempotent)."""
    register_offline_provider(
        "local", lambda name, messages: respond(name, "\n".join(str(m.get("content", "")) for m in messages))
    )
