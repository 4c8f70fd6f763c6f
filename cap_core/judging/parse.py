"""Turn a judge's raw completion into a verdict (in the letters the judge was shown).

This is the one parse rule of the project: live judging (:mod:`cap_core.judging.run`) and
everything that re-parses stored completions call :func:`parse_verdict`.

Rules (applied to the whole text, so parsing can be re-run on stored completions):

1. Verdict tokens are collected with their positions. Accepted formats (the final-verdict
   conventions of the judge prompts in common use):

   * JSON objects anywhere in the text (bare, inside ``` fences, or wrapped in prose)
     holding a ``winner`` / ``verdict`` / ``better`` / ``choice`` / ``preferred`` /
     ``preference`` field whose value is ``A`` or ``B`` (optionally prefixed
     ``Answer`` / ``Response`` / ``Output`` / ``Assistant`` / ``Model``, or written
     ``(a)`` / ``(b)``), a comparison ``A>B`` / ``A=B`` ..., or a tie word;
   * MT-Bench bracket tokens ``[[A]]``, ``[[B]]``, ``[[C]]`` (tie) / ``[[tie]]`` and the
     Arena-Hard comparisons ``[[A>>B]]``, ``[[A>B]]``, ``[[A=B]]``, ``[[B>A]]``, ``[[B>>A]]``;
   * the Prometheus pairwise ending ``[RESULT] A`` / ``[RESULT] B`` (an integer after
     ``[RESULT]`` is an absolute score, not a pairwise verdict);
   * LLMBar: a reply that is only ``Output (a)`` / ``Output (b)``, or the CoT ending
     ``Output (b) is better``;
   * a final-verdict line: ``Final verdict: B``, ``My final verdict is tie``,
     ``**Final Verdict:** Answer B``, ``Verdict: A``, and Auto-J's
     ``the final decision is Response 2`` (``Response 1`` / ``Response 2`` are the
     first / second shown, i.e. A / B). A bare letter must be upper case (``a`` is an
     article), the parenthesised ``(a)`` / ``(b)`` may be lower case.

   Tokens inside a JSON object (e.g. quoted in its rationale) do not count.
2. Ties are explicit only: the words ``tie``, ``equal``, ``draw``, ``same``, an
   ``A=B``-style comparison, or MT-Bench's ``[[C]]``. ``both``, ``neither``, ``none``
   (and a JSON ``C``) are NOT ties: they name no winner, so the reply is ``unparsed``
   (with the reason) unless another token decides.
3. No token: ``unparsed`` (reason given) -- never silently a tie.
4. One or more tokens: the LAST one wins; if the tokens disagree the result is flagged
   ``conflict=True`` (the run log keeps the flag).
5. The rationale is the ``rationale`` / ``reason`` / ``explanation`` field of the JSON
   object that gave the verdict, else the text with the verdict tokens removed.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from cap_core.errors import CAPInputError
from cap_core.schema import arena_label

__all__ = ["ParsedVerdict", "parse_verdict", "extract_json_objects", "TIE_WORDS", "NO_WINNER_WORDS"]

_VERDICT_KEYS = ("winner", "verdict", "better", "choice", "preferred", "preference")
_RATIONALE_KEYS = ("rationale", "reason", "reasoning", "explanation", "brief_reason", "feedback")
#: The explicit tie words (rule 2).
TIE_WORDS = frozenset({"tie", "equal", "draw", "same"})
#: Words that name no winner and are NOT ties (rule 2).
NO_WINNER_WORDS = frozenset({"both", "neither", "none"})
_PREFIXES = ("answer", "response", "output", "assistant", "model")
_BRACKET = re.compile(r"\[\[\s*([^\[\]]{1,12}?)\s*\]\]")
_COMPARE = re.compile(r"^(A|B)\s*(>>|>|=|<<|<)\s*(A|B)$", re.IGNORECASE)
_RESULT = re.compile(r"\[RESULT\]\s*:?\s*(?:\(\s*([AB])\s*\)|([AB])\b|(\d+(?:\.\d+)?))")
_LLMBAR_ONLY = re.compile(r"^\W*output\s*\(\s*([ab])\s*\)\W*$", re.IGNORECASE)
_LLMBAR_BETTER = re.compile(r"\boutput\s*\(\s*([ab])\s*\)\s+is\s+(?:the\s+)?better\b", re.IGNORECASE)
_FINAL = re.compile(
    r"\b(?:final\s+(?:verdict|decision|judge?ment)|verdict)\**\s*(?:is\b)?\s*[:：\-]?\s*\**\s*"
    r"(?:(?P<pre>assistant|answer|response|output|model)\s*)?"
    r"(?:a\s+(?=tie\b))?(?P<c>\(\s*[ab]\s*\)|[ab](?![\w])|[12](?!\w)(?!\.\d)|tie\b|draw\b|equal\b)",
    re.IGNORECASE)


_DECODER = json.JSONDecoder()


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
    """A JSON or bracket value as ``A`` / ``B`` / ``tie``; None when it names no verdict."""
    if not isinstance(value, str):
        return None
    v = value.strip().strip(".\"'*` ").lower()
    for prefix in _PREFIXES:
        if v.startswith(prefix + " ") or v.startswith(prefix + "("):
            v = v[len(prefix):].strip()
            if v in ("1", "2"):  # "Response 1" / "Response 2": first / second shown
                return "A" if v == "1" else "B"
    v = v.strip("() ")
    if v in ("a", "b"):
        return v.upper()
    if v in TIE_WORDS:
        return "tie"
    m = _COMPARE.match(v)
    if m:
        return _compare_choice(m)
    return None


def _compare_choice(m: re.Match) -> str | None:
    """An ``A>B``-style comparison by the Arena label table (:func:`cap_core.schema.arena_label`);
    None for a comparison the table does not list (``A>A``): it names no verdict."""
    verdict, _ = arena_label(m.group(0))
    return None if verdict == "unparsed" else verdict


def _bracket_choice(inner: str) -> str | None:
    m = _COMPARE.match(inner.strip())
    if m:
        return _compare_choice(m)
    if inner.strip().upper() == "C":  # MT-Bench: [[C]] is a tie
        return "tie"
    return _norm_choice(inner)


def _final_choice(m: re.Match) -> str | None:
    c = re.sub(r"\s", "", m.group("c"))
    if c.isdigit():  # only "Response 1" / "Output 2": a bare number is no verdict
        return None if m.group("pre") is None else ("A" if c == "1" else "B")
    if len(c) == 1 and c.islower():  # "a" is an article, not a letter
        return None
    return _norm_choice(c)


def extract_json_objects(text: str) -> list[tuple[int, int, dict]]:
    """Every JSON object embedded in ``text`` as ``(start, end, object)`` (fences and prose allowed)."""
    if not isinstance(text, str):
        raise CAPInputError("completion must be text", expected="str", got=type(text).__name__)
    found, dec, i = [], _DECODER, 0
    while True:
        i = text.find("{", i)
        if i < 0:
            return found
        try:
            obj, end = dec.raw_decode(text, i)
        except ValueError:
            i += 1
            continue
        except RecursionError:  # nested past Python's limit: no verdict object is that deep; stop looking
            return found
        if isinstance(obj, dict):
            found.append((i, end, obj))
        i = end


def _text_tokens(text: str) -> list[tuple[int, int, str | None]]:
    """``(start, end, choice)`` for every text-format token (choice None: token that names no verdict)."""
    out: list[tuple[int, int, str | None]] = []
    for m in _BRACKET.finditer(text):
        out.append((m.start(), m.end(), _bracket_choice(m.group(1))))
    for m in _RESULT.finditer(text):
        letter = m.group(1) or m.group(2)
        out.append((m.start(), m.end(), letter if letter else None))
    m = _LLMBAR_ONLY.match(text)
    if m:
        out.append((m.start(1), m.end(), m.group(1).upper()))
    for m in _LLMBAR_BETTER.finditer(text):
        out.append((m.start(), m.end(), m.group(1).upper()))
    for m in _FINAL.finditer(text):
        choice = _final_choice(m)
        if choice is not None:
            out.append((m.start(), m.end(), choice))
    return out


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
    bad_json: str | None = None
    objects = extract_json_objects(text)
    for pos, _end, obj in objects:
        key = next((k for k in obj if k.lower() in _VERDICT_KEYS), None)
        if key is None:
            continue
        choice = _norm_choice(obj[key])
        if choice is None:
            word = str(obj[key]).strip().lower()
            bad_json = (f"JSON verdict {obj[key]!r} names no winner and is not a tie (only tie, equal, draw, "
                        "same or A=B are ties)") if word in NO_WINNER_WORDS else \
                "JSON verdict field holds no A/B/tie value"
            continue
        rat = next((obj[k] for k in obj if k.lower() in _RATIONALE_KEYS and isinstance(obj[k], str)), "")
        tokens.append((pos, choice, rat))
    spans = []
    score_only = False
    for start, end, choice in _text_tokens(text):
        if any(s <= start < e for s, e, _ in objects):
            continue  # a token quoted inside a JSON string is not a verdict
        if choice is None:
            score_only = score_only or text[start:end].startswith("[RESULT]")
            continue
        tokens.append((start, choice, ""))
        spans.append((start, end))
    if not tokens:
        if bad_json:
            reason = bad_json
        elif not text.strip():
            reason = "empty completion"
        elif score_only:
            reason = "no verdict token ([RESULT] holds an absolute score, not A or B)"
        elif "{" in text:
            reason = "no well-formed JSON verdict or [[A]]/[[B]] token"
        else:
            reason = "no verdict token"
        return ParsedVerdict("unparsed", text.strip()[:2000], False, 0, reason)
    tokens.sort(key=lambda t: t[0])
    _, verdict, rationale = tokens[-1]
    if not rationale:
        kept, last = [], 0
        for s, e in sorted(spans):
            if s >= last:
                kept.append(text[last:s])
                last = e
        kept.append(text[last:])
        rationale = "".join(kept).strip()
    conflict = len({t[1] for t in tokens}) > 1
    return ParsedVerdict(verdict, rationale, conflict, len(tokens), "")
