"""Turn a judge's raw completion into a verdict (in the letters the judge was shown).

Rules (applied to the whole text, so parsing can be re-run on stored completions):

1. Verdict tokens are collected with their positions:
   * JSON objects anywhere in the text (bare, inside ``` fences, or wrapped in prose)
     holding a ``winner`` / ``verdict`` / ``better`` / ``choice`` field whose value is
     ``A``, ``B`` or a tie word (``tie``, ``equal``, ``both``, ``neither``, ``C``);
   * bracket tokens ``[[A]]``, ``[[B]]``, ``[[C]]`` / ``[[tie]]`` and comparisons
     ``[[A>>B]]``, ``[[A>B]]``, ``[[B>A]]``, ``[[A=B]]`` ...
2. No token: ``unparsed`` (reason given) -- never silently a tie.
3. One or more tokens: the LAST well-formed one wins; if the tokens disagree the
   result is flagged ``conflict=True`` (the run log keeps the flag).
4. The rationale is the ``rationale`` / ``reason`` / ``explanation`` field of the JSON
   object that gave the verdict, else the text with verdict tokens removed.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from cap_core.errors import CAPInputError

__all__ = ["ParsedVerdict", "parse_verdict", "extract_json_objects"]

_VERDICT_KEYS = ("winner", "verdict", "better", "choice", "preferred")
_RATIONALE_KEYS = ("rationale", "reason", "reasoning", "explanation", "brief_reason")
_TIE_WORDS = {"tie", "equal", "both", "neither", "c", "same", "draw"}
_BRACKET = re.compile(r"\[\[\s*([^\[\]]{1,12}?)\s*\]\]")
_COMPARE = re.compile(r"^(A|B)\s*(>>|>|=|<<|<)\s*(A|B)$", re.IGNORECASE)


@dataclass(frozen=True)
class ParsedVerdict:
    """Result of :func:`parse_verdict`.

    ``verdict``: ``A`` / ``B`` / ``tie`` / ``unparsed`` in the PRESENTED letters;
    ``rationale``: text or ``""``; ``conflict``: several tokens disagreed;
    ``n_tokens``: verdict tokens found; ``reason``: why unparsed (else ``""``).
    """

    verdict: str
    rationale: str = ""
    conflict: bool = False
    n_tokens: int = 0
    reason: str = ""


def _norm_choice(value: object) -> str | None:
    if not isinstance(value, str):
        return None
    v = value.strip().strip(".\"'*` ").lower()
    for prefix in ("answer ", "response ", "output ", "assistant "):
        if v.startswith(prefix):
            v = v[len(prefix):].strip()
    if v in ("a", "b"):
        return v.upper()
    if v in _TIE_WORDS:
        return "tie"
    return None


def _bracket_choice(inner: str) -> str | None:
    m = _COMPARE.match(inner.strip())
    if m:
        left, op, right = m.group(1).upper(), m.group(2), m.group(3).upper()
        if op == "=" or left == right:
            return "tie"
        return left if op.startswith(">") else right
    return _norm_choice(inner)


def extract_json_objects(text: str) -> list[tuple[int, int, dict]]:
    """Every JSON object embedded in ``text`` as ``(start, end, object)`` (fences and prose allowed)."""
    if not isinstance(text, str):
        raise CAPInputError("completion must be text", expected="str", got=type(text).__name__)
    found, dec, i = [], json.JSONDecoder(), 0
    while True:
        i = text.find("{", i)
        if i < 0:
            return found
        try:
            obj, end = dec.raw_decode(text, i)
        except ValueError:
            i += 1
            continue
        if isinstance(obj, dict):
            found.append((i, end, obj))
        i = end


def parse_verdict(text: str) -> ParsedVerdict:
    """Parse a raw completion (rules in the module docstring).

    Parameters
    ----------
    text : str
        The completion exactly as returned.

    Returns
    -------
    ParsedVerdict

    Raises
    ------
    CAPInputError
        ``text`` is not a string.
    """
    if not isinstance(text, str):
        raise CAPInputError("completion must be text", expected="str", got=type(text).__name__)
    tokens: list[tuple[int, str, str]] = []  # (position, verdict, rationale)
    bad_json = False
    objects = extract_json_objects(text)
    for pos, _end, obj in objects:
        key = next((k for k in obj if k.lower() in _VERDICT_KEYS), None)
        if key is None:
            continue
        choice = _norm_choice(obj[key])
        if choice is None:
            bad_json = True
            continue
        rat = next((obj[k] for k in obj if k.lower() in _RATIONALE_KEYS and isinstance(obj[k], str)), "")
        tokens.append((pos, choice, rat))
    for m in _BRACKET.finditer(text):
        if any(s <= m.start() < e for s, e, _ in objects):
            continue  # a token quoted inside a JSON string is not a verdict
        choice = _bracket_choice(m.group(1))
        if choice is not None:
            tokens.append((m.start(), choice, ""))
    if not tokens:
        if bad_json:
            reason = "JSON verdict field holds no A/B/tie value"
        elif not text.strip():
            reason = "empty completion"
        elif "{" in text:
            reason = "no well-formed JSON verdict or [[A]]/[[B]] token"
        else:
            reason = "no verdict token"
        return ParsedVerdict("unparsed", text.strip()[:2000], False, 0, reason)
    tokens.sort(key=lambda t: t[0])
    _, verdict, rationale = tokens[-1]
    if not rationale:
        rationale = _BRACKET.sub("", text).strip()
    conflict = len({t[1] for t in tokens}) > 1
    return ParsedVerdict(verdict, rationale, conflict, len(tokens), "")
