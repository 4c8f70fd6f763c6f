"""The offline generator: deterministic rules that plant one error of each type (``--generator rules``).

Every rule edits the correct answer in one place and says what it changed (the
``error_note`` the Form A rationale evaluator reads):

``factual_fabrication``  the last number of the answer that the question does not contain
                         is changed (:func:`other_number`), else a number word, else a unit
                         is swapped for another (Celsius -> Fahrenheit, miles -> kilometres)
``logical_reversal``     the first causal or comparative word is reversed (:data:`REVERSALS`:
                         increases -> decreases, before -> after, necessary -> sufficient)
``overclaim``            the first hedge or qualifier is made absolute (:data:`ABSOLUTES`:
                         usually -> always, may -> will, some -> all)
``omission``             the first limiting condition is removed: a clause opened by
                         *unless*, *except*, *only if*, *provided*, ... after a comma, else
                         such a clause opening a sentence, else a later sentence that states
                         a limit (*only*, *however*, *but*, *unless*, ...); a clause after a comma
                         runs to the end of its sentence (*although*, *but* clauses included)

A rule that finds nothing to edit returns its reason instead (:func:`plant`); a question no
rule fits is refused before anything is written. A multiple-choice answer is stated as a
sentence (:func:`state_option`); the rules write no explanations.

Hardening (CAP App. A.5, :func:`harden`): a minor, non-disqualifying flaw in the correct
answer (two adjacent letters swapped in its longest word that the question does not use and
that is no number, negation or hedge) and one correct supplementary statement added to the
flawed answer (the first sentence of the question's ``context`` it lacks, else a
restatement of a sentence it shares with the correct answer). The planted error is untouched.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from cap_core.judging.augment import KEPT_WORDS, invariants_kept
from cap_core.judging.local_providers import content_words

__all__ = ["RULES_VERSION", "Plant", "plant", "plant_all", "other_number", "REVERSALS", "ABSOLUTES",
           "state_option", "harden"]

#: Part of every rules-made attempt's provenance (bump when a rule's output changes).
RULES_VERSION = "rules-1"


@dataclass(frozen=True)
class Plant:
    """A planted error: the flawed ``text`` and the ``note`` saying what was changed."""

    text: str
    note: str


_NUM = re.compile(r"(?<![\w.,])(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(?![\w]|[.,]\d)")
_NUMBER_WORDS = {"two": "three", "three": "four", "four": "five", "five": "six", "six": "seven", "seven": "eight",
                 "eight": "nine", "nine": "ten", "ten": "twelve", "eleven": "twelve", "twelve": "fifteen",
                 "twenty": "thirty", "hundred": "thousand", "thousand": "million", "million": "billion",
                 "billion": "trillion", "twice": "three times", "double": "triple", "half": "a third"}
_UNITS = [("celsius", "fahrenheit"), ("kilometres", "miles"), ("kilometers", "miles"), ("kilograms", "pounds"),
          ("metres", "feet"), ("meters", "feet"), ("litres", "gallons"), ("liters", "gallons"),
          ("grams", "ounces"), ("centimetres", "inches"), ("hours", "minutes"), ("minutes", "seconds"),
          ("days", "weeks"), ("weeks", "months"), ("months", "years")]
_UNIT_SWAP = {**{a: b for a, b in _UNITS}, **{b: a for a, b in _UNITS if b not in dict(_UNITS)}}

#: Causal and comparative words and their reversal (both directions listed where they pair).
REVERSALS: dict[str, str] = {}
for _a, _b in [("increases", "decreases"), ("increase", "decrease"), ("increased", "decreased"),
               ("increasing", "decreasing"), ("raises", "lowers"), ("raise", "lower"), ("raised", "lowered"),
               ("higher", "lower"), ("more", "less"), ("fewer", "more"), ("larger", "smaller"),
               ("bigger", "smaller"), ("greater", "smaller"), ("faster", "slower"), ("stronger", "weaker"),
               ("above", "below"), ("before", "after"), ("earlier", "later"), ("longer", "shorter"),
               ("older", "younger"), ("rises", "falls"), ("rise", "fall"), ("expands", "shrinks"),
               ("expand", "shrink"), ("gains", "loses"), ("heats", "cools"), ("warmer", "cooler"),
               ("strengthens", "weakens"), ("reduces", "increases"), ("reduce", "increase"),
               ("reduced", "increased"), ("necessary", "sufficient"), ("inversely", "directly"),
               ("positively", "negatively"), ("attracts", "repels"), ("absorbs", "releases"),
               ("inhibits", "stimulates"), ("promotes", "suppresses"), ("accelerates", "slows"),
               ("speeds", "slows"), ("widens", "narrows"), ("add", "subtract"), ("adds", "removes"),
               ("cheaper", "dearer"), ("lowest", "highest"), ("maximum", "minimum")]:
    REVERSALS.setdefault(_a, _b)
    REVERSALS.setdefault(_b, _a)
REVERSALS["lower"] = "higher"  # as an adjective ("a lower rate") more often than a verb

#: Hedges and qualifiers and the absolute claims they become (multi-word ones are tried first).
ABSOLUTES: dict[str, str] = {
    "in most cases": "in all cases", "in some cases": "in all cases", "in many cases": "in all cases",
    "usually": "always", "often": "always", "generally": "always", "typically": "always", "frequently": "always",
    "commonly": "always", "sometimes": "always", "occasionally": "always", "mostly": "entirely",
    "largely": "entirely", "partly": "entirely", "may": "will", "might": "will", "could": "will", "can": "will",
    "likely": "certain", "unlikely": "impossible", "probably": "certainly", "possibly": "certainly",
    "rarely": "never", "seldom": "never", "some": "all", "many": "all", "most": "all", "several": "all",
    "approximately": "exactly", "roughly": "exactly",
}
_GUARDS = {"can": r"(?!['’]|\s+not\b)", "most": r"(?!\s+likely\b)", "may": r"(?!\s+not\b)",
           "might": r"(?!\s+not\b)", "could": r"(?!\s+not\b)"}
_BEFORE_GUARDS = {"most": r"(?<!\bthe )(?<!\bThe )", "some": r"(?<!\bfor )"}

_CLAUSE = re.compile(r",\s*(?:unless|except(?:\s+(?:when|if|for|in|where))?|provided(?:\s+that)?|as long as|"
                     r"but only|only (?:if|when|after|for|in|where|with)|if|when|so long as|although|though|but)\b"
                     r"[^.;:!?]*", re.I)
_LEAD = re.compile(r"(?:(?<=^)|(?<=[.!?]\s))(?:unless|except|if|when|provided|as long as|only)\b[^,.;:!?]*,\s*", re.I)
_LIMIT = re.compile(r"\b(?:unless|except|exceptions?|only|however|but|although|though|provided|excluding|"
                    r"apart from|limited to|restricted to|does not apply|do not apply)\b", re.I)


def _case(src: str, rep: str) -> str:
    """``rep`` in the capitalisation of ``src`` (Title, UPPER or lower)."""
    if src.isupper() and len(src) > 1:
        return rep.upper()
    if src[:1].isupper():
        return rep[:1].upper() + rep[1:]
    return rep


def _tidy(text: str) -> str:
    text = re.sub(r"\s+([,.;:!?])", r"\1", re.sub(r"[ \t]+", " ", text))
    text = re.sub(r"([.!?])\s*([.!?])", r"\1", text)
    return text.strip()


def other_number(token: str) -> str:
    """A different, plausible value for the number ``token`` (digits, optional thousands commas and decimals).

    Years (1000-2100) move by 7; 0 becomes 1; 1-12 go up by one; below 100 by a fifth (at
    least 2); larger values by a quarter; decimals are multiplied by 1.5 at the same
    number of decimals. Thousands separators are kept.
    """
    commas = "," in token
    raw = token.replace(",", "")
    if "." in raw:
        places = len(raw.split(".")[1])
        new = f"{float(raw) * 1.5:.{places}f}"
        if new == raw:
            new = f"{float(raw) + 10 ** -places:.{places}f}"
        return new
    n = int(raw)
    if 1000 <= n <= 2100 and not commas:
        m = n + 7
    elif n == 0:
        m = 1
    elif n <= 12:
        m = n + 1
    elif n < 100:
        m = n + max(2, n // 5)
    else:
        m = round(n * 1.25)
    return f"{m:,}" if commas else str(m)


def _factual(question: str, answer: str) -> Plant | str:
    in_question = {m.group(0) for m in _NUM.finditer(question)}
    nums = [m for m in _NUM.finditer(answer) if m.group(0) not in in_question]
    if nums:
        m = nums[-1]
        new = other_number(m.group(0))
        return Plant(_tidy(answer[:m.start()] + new + answer[m.end():]),
                     f"states {new} where the correct answer has {m.group(0)}")
    for pattern, table, what in ((r"\b(" + "|".join(_NUMBER_WORDS) + r")\b", _NUMBER_WORDS, "number"),
                                 (r"\b(" + "|".join(_UNIT_SWAP) + r")\b", _UNIT_SWAP, "unit")):
        m = re.search(pattern, answer, re.I)
        if m and m.group(0).lower() not in question.lower():
            new = _case(m.group(0), table[m.group(0).lower()])
            return Plant(_tidy(answer[:m.start()] + new + answer[m.end():]),
                         f"gives the {what} {new!r} where the correct answer has {m.group(0)!r}")
    return "no number, number word or unit to change"


def _first(answer: str, table: dict[str, str], guards: dict[str, str], before: dict[str, str]):
    best = None
    for word in sorted(table, key=lambda w: -len(w)):
        pat = before.get(word, "") + r"\b" + re.escape(word).replace(r"\ ", r"\s+") + r"\b" + guards.get(word, "")
        m = re.search(pat, answer, re.I)
        if m and (best is None or m.start() < best.start()):
            best = m
    return best


def _reversal(question: str, answer: str) -> Plant | str:
    m = _first(answer, REVERSALS, {}, {})
    if m is None:
        return "no causal or comparative word to reverse"
    new = _case(m.group(0), REVERSALS[m.group(0).lower()])
    return Plant(_tidy(answer[:m.start()] + new + answer[m.end():]),
                 f"reverses the relation: {new!r} where the correct answer has {m.group(0)!r}")


def _overclaim(question: str, answer: str) -> Plant | str:
    m = _first(answer, ABSOLUTES, _GUARDS, _BEFORE_GUARDS)
    if m is None:
        return "no hedge or qualifier to make absolute"
    key = re.sub(r"\s+", " ", m.group(0).lower())
    new = _case(m.group(0), ABSOLUTES[key])
    return Plant(_tidy(answer[:m.start()] + new + answer[m.end():]),
                 f"overclaims: the qualified {m.group(0)!r} becomes the absolute {new!r}")


def _sentences(text: str) -> list[str]:
    return [s for s in re.split(r"(?<=[.!?])\s+", text.strip()) if s]


def _omission(question: str, answer: str) -> Plant | str:
    m = _CLAUSE.search(answer)
    if m:
        gone = m.group(0).strip(" ,")
        return Plant(_tidy(answer[:m.start()] + answer[m.end():]), f"leaves out the condition {gone!r}")
    m = _LEAD.search(answer)
    if m:
        rest = answer[m.end():]
        return Plant(_tidy(answer[:m.start()] + rest[:1].upper() + rest[1:]),
                     f"leaves out the condition {m.group(0).strip(' ,')!r}")
    sents = _sentences(answer)
    for k, s in enumerate(sents[1:], start=1):
        if _LIMIT.search(s):
            return Plant(_tidy(" ".join(sents[:k] + sents[k + 1:])), f"leaves out the limiting statement {s!r}")
    return "no limiting clause or sentence to leave out"


_RULES = {"factual_fabrication": _factual, "logical_reversal": _reversal, "overclaim": _overclaim,
          "omission": _omission}


def plant(question: str, answer: str, error_type: str) -> Plant | str:
    """The correct ``answer`` with one error of ``error_type`` planted, or the reason none can be.

    Raises
    ------
    KeyError
        ``error_type`` is not one of :data:`cap_core.testbed.taxonomy.ERROR_TYPES`.
    """
    return _RULES[error_type](question, answer)


def plant_all(question: str, answer: str) -> dict[str, Plant | str]:
    """:func:`plant` for every type (condition order): a :class:`Plant` or the reason."""
    from cap_core.testbed.taxonomy import ERROR_TYPES

    return {t: plant(question, answer, t) for t in ERROR_TYPES}


def state_option(option: str) -> str:
    """A multiple-choice answer stated as a sentence: ``"The answer is <option>."``."""
    text = option.strip().rstrip(".")
    return f"The answer is {text}."


def _typo(question: str, text: str) -> tuple[str, str] | None:
    avoid = content_words(question) | {w.lower() for w in KEPT_WORDS.findall(text)}
    words = [m for m in re.finditer(r"[A-Za-z]{7,}", text) if m.group(0).lower() not in avoid]
    for m in sorted(words, key=lambda m: (-len(m.group(0)), m.start())):
        w = m.group(0)
        for k in range(len(w) // 2 - 1, len(w) - 2):
            if w[k] != w[k + 1]:
                bad = w[:k] + w[k + 1] + w[k] + w[k + 2:]
                return text[:m.start()] + bad + text[m.end():], f"a typo: {bad!r} for {w!r}"
    return None


def harden(question: str, correct: str, flawed: str, context: str | None = None) -> tuple[str, str, str, str] | str:
    """The hardened pair (module doc) as ``(correct', flawed', a_flaw, b_added)``, or the reason it fails."""
    typo = _typo(question, correct)
    if typo is None:
        return "no word of seven letters or more to misspell in the correct answer"
    new_a, a_flaw = typo
    have = {re.sub(r"\s+", " ", s).lower() for s in _sentences(flawed)}
    added = next((s for s in _sentences(context or "") if s.lower() not in have and len(s) > 20), None)
    if added is None:
        shared = [s for s in _sentences(flawed) if s in _sentences(correct)]
        if not shared:
            return ("no correct statement to add to the flawed answer (no context, no sentence shared with the "
                    "correct one)")
        s = max(shared, key=len)
        added = "In other words, " + (s[0].lower() + s[1:] if s[1:2].islower() else s)
    new_b = _tidy(flawed + " " + added)
    if not invariants_kept(flawed, new_b):
        return "the supplement would change a number, negation or hedge of the flawed answer"
    return new_a, new_b, a_flaw, f"adds {added!r}"
