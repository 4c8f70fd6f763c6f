"""Choice-probability judges: one answer token, its probabilities, a verdict and a confidence.

The typed classifier of the cascade paper (Jev §3, the judge as a classifier over the
permitted answers, no generated text): the judge is asked for a single answer token --
``A`` or ``B`` (and ``tie`` when ties are allowed) -- and the probabilities the model puts
on those tokens at the first position are read instead of a sampled text:

    P(x) = exp(logprob(x)) / sum over permitted y of exp(logprob(y))

(renormalised over the permitted answers; a token's spellings `` A``, ``a`` ... are
summed). The verdict is the most probable answer and the confidence its probability,
the input the cascades need (:mod:`cap_core.cascades.judge_confidence`).

Judges: ``choice:<litellm model>`` for any model that returns token log-probabilities
(OpenAI-compatible servers such as vLLM or llama.cpp's server, OpenAI): the request asks
for ``max_tokens=1``, ``logprobs`` and ``top_logprobs``; and ``smollm/choice``, the
packaged SmolLM2-135M read offline through llama.cpp (:mod:`cap_core.judging.smollm`).

Both store the same completion text in the cache: a JSON object ``{"winner", "p_a",
"p_b", "p_tie"}`` in the letters of the PRESENTED order (``p_tie`` null when ties are
not allowed); ``winner`` is ``unparsed`` when no permitted token is among the returned
candidates.
"""

from __future__ import annotations

import json
import math

__all__ = ["PREFIX", "SMOLLM_CHOICE", "TOP_LOGPROBS", "is_choice", "model_of", "choices_line", "from_logprobs",
           "completion_text", "read_choice"]

PREFIX = "choice:"
SMOLLM_CHOICE = "smollm/choice"
#: Candidate tokens asked for at the answer position.
TOP_LOGPROBS = 10
_TIE_WORDS = ("tie",)


def is_choice(judge: str) -> bool:
    """True for a choice-probability judge (``choice:<model>`` or ``smollm/choice``)."""
    return judge.startswith(PREFIX) or judge == SMOLLM_CHOICE


def model_of(judge: str) -> str:
    """The litellm model string of a judge (``choice:openai/x`` -> ``openai/x``)."""
    return judge[len(PREFIX):] if judge.startswith(PREFIX) else judge


def choices_line(allow_tie: bool) -> str:
    """The last line of the choice prompt: which single token to answer with."""
    if allow_tie:
        return "Answer with exactly one word: A, B, or tie if neither is better."
    return "Answer with exactly one letter: A or B."


def _answer(token: str) -> str | None:
    t = token.strip().strip(".:*\"'`").lower()
    if t in ("a", "b"):
        return t.upper()
    return "tie" if t in _TIE_WORDS else None


def from_logprobs(candidates: list[tuple[str, float]], allow_tie: bool) -> dict:
    """Probabilities of the permitted answers from ``(token, natural-log probability)`` candidates.

    Returns
    -------
    dict
        ``winner`` (``A`` / ``B`` / ``tie`` / ``unparsed``), ``p_a``, ``p_b``, ``p_tie``
        (floats summing to 1 over the permitted answers; ``p_tie`` None when ties are not
        allowed; all None when no permitted token is among the candidates).
    """
    mass = {"A": 0.0, "B": 0.0, "tie": 0.0}
    seen = False
    for token, lp in candidates:
        ans = _answer(str(token))
        if ans is None or (ans == "tie" and not allow_tie) or lp is None or not math.isfinite(float(lp)):
            continue
        mass[ans] += math.exp(float(lp))
        seen = True
    total = mass["A"] + mass["B"] + (mass["tie"] if allow_tie else 0.0)
    if not seen or total <= 0:
        return {"winner": "unparsed", "p_a": None, "p_b": None, "p_tie": None}
    p = {k: v / total for k, v in mass.items()}
    ranked = sorted((("A", p["A"]), ("B", p["B"]), *((("tie", p["tie"]),) if allow_tie else ())),
                    key=lambda kv: -kv[1])
    winner = ranked[0][0] if ranked[0][1] > ranked[1][1] else "tie"
    return {"winner": winner, "p_a": round(p["A"], 6), "p_b": round(p["B"], 6),
            "p_tie": round(p["tie"], 6) if allow_tie else None}


def completion_text(resp, allow_tie: bool) -> str | None:
    """The choice completion (JSON text) of a litellm response that carries logprobs, else None."""
    try:
        content = resp.choices[0].logprobs.content
    except (AttributeError, IndexError, TypeError):
        content = None
    if content is None:
        try:
            content = resp.choices[0].logprobs["content"]
        except (AttributeError, IndexError, KeyError, TypeError):
            return None
    if not content:
        return None
    first = content[0]
    get = (lambda o, k: o.get(k)) if isinstance(first, dict) else (lambda o, k: getattr(o, k, None))
    cands = [(get(t, "token"), get(t, "logprob")) for t in (get(first, "top_logprobs") or [])]
    cands.append((get(first, "token"), get(first, "logprob")))
    seen, unique = set(), []
    for tok, lp in cands:  # the sampled token is usually among the top candidates too
        if tok in seen:
            continue
        seen.add(tok)
        unique.append((tok, lp))
    return json.dumps(from_logprobs(unique, allow_tie))


def read_choice(text: str | None) -> dict | None:
    """The choice object of a stored completion (None when it is not one)."""
    try:
        obj = json.loads(text or "")
    except (ValueError, RecursionError):
        return None
    if not isinstance(obj, dict) or "winner" not in obj or "p_a" not in obj:
        return None
    return obj
