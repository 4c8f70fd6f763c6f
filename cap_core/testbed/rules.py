"""The offline generator: deterministic rules that plant one error of each type (``--generator rules``).

The rules read **English** only: their words (relation words, hedges, limiting clauses, number
words, units) are English words, so in an answer in another language only a number written
in digits can be changed (:func:`looks_english` says which answers these are; the build names
them).

Every rule replaces one span of the correct answer and nothing else: the flawed answer is the
correct answer with that span replaced, byte for byte the same elsewhere (spacing,
punctuation, tabs and line breaks kept), and the rule says what it changed (the
``error_note`` the Form A rationale evaluator reads; :class:`Plant` keeps the span):

``factual_fabrication``  for a multiple-choice row, the stated option is replaced by the next
                         wrong option of the row; else the last number of the answer that the
                         question does not contain is changed (:func:`other_number`; digits
                         count next to any script, e.g. ``1989年``), else a number word, else a
                         unit is swapped for another (Celsius -> Fahrenheit, miles -> kilometres)
``logical_reversal``     the first causal or comparative word is reversed (:data:`REVERSALS`:
                         increases -> decreases, before -> after, because -> although,
                         therefore -> nevertheless)
``overclaim``            the first hedge or qualifier is made absolute (:data:`ABSOLUTES`:
                         usually -> always, may -> will, some -> all, usually not -> never)
``omission``             the first limiting condition is removed: a clause opened by
                         *unless*, *except*, *only if*, *provided*, ... after a comma, else
                         such a clause opening a sentence, else a later sentence that states
                         a limit (*only*, *however*, *but*, *unless*, ...); a clause after a comma
                         runs to the end of its sentence (*although*, *but* clauses included)

Guards keep each edit a grammatical sentence that says something else (rule-version
``rules-2``): a word is left alone inside a fixed phrase where changing it makes nonsense
(*more or less*, *no longer*, *give rise to*, *at most*, *the most*), where it is another part
of speech (*May* the month next to a number or mid-sentence, *a can*, *speeds of light*),
where a degree word governs it (*more often*, *how many*, *very likely*), and before *not*
(*usually not* becomes *never*, never *always not*); *a*/*an* before the edit follows the new
word; and an edit that would create a doubled word (*less or less*, *all all*) or an absolute
before *not* is not made. *since* is not reversed: it marks time as often as cause.

A rule that finds nothing to edit returns its reason instead (:func:`plant`); which types
each question could not carry, and why, is reported by the build (``unplantable.csv`` and the
manifest). A multiple-choice answer is stated as a sentence (:func:`state_option`); the rules
write no explanations.

Hardening (CAP App. A.5, :func:`harden`): a minor, non-disqualifying flaw in the correct
answer (two adjacent letters swapped in its longest word that the question does not use and
that is no number, negation or hedge) and one correct supplementary statement added at the
end of the flawed answer (the first sentence of the question's ``context`` it lacks, else a
restatement of a sentence it shares with the correct answer). The planted error is untouched.
A single-sentence answer without context has no statement the rules can add: give a
``context`` column (or use a model generator) to harden such questions.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from cap_core.judging.augment import KEPT_WORDS, invariants_kept
from cap_core.judging.local_providers import content_words

__all__ = ["RULES_VERSION", "Plant", "plant", "plant_all", "other_number", "REVERSALS", "ABSOLUTES",
           "state_option", "harden", "looks_english"]

#: Part of every rules-made attempt's provenance (bump when a rule's output changes).
RULES_VERSION = "rules-2"


@dataclass(frozen=True)
class Plant:
    """A planted error: the flawed ``text`` and the ``note`` saying what was changed.

    ``start`` and ``end`` delimit the span of the correct answer that was replaced (the
    flawed text is ``answer[:start] + <new> + answer[end:]``); they take no part in equality.
    """

    text: str
    note: str
    start: int = field(default=0, compare=False)
    end: int = field(default=0, compare=False)


def _edit(answer: str, start: int, end: int, new: str, note: str) -> Plant:
    return Plant(answer[:start] + new + answer[end:], note, start, end)


# -- shared helpers -------------------------------------------------------------------------------

def _case(src: str, rep: str) -> str:
    """``rep`` in the capitalisation of ``src`` (Title, UPPER or lower)."""
    if src.isupper() and len(src) > 1:
        return rep.upper()
    if src[:1].isupper():
        return rep[:1].upper() + rep[1:]
    return rep


_ARTICLE = re.compile(r"\b(an?)(\s+)$", re.I)


def _with_article(answer: str, start: int, new: str) -> tuple[int, str]:
    """Extend an edit at ``start`` to the article before it when the new word needs the other one."""
    m = _ARTICLE.search(answer[max(0, start - 4):start])
    if m is None:
        return start, new
    want = "an" if new[:1].lower() in "aeiou" else "a"
    if m.group(1).lower() == want:
        return start, new
    begin = max(0, start - 4) + m.start()
    return begin, _case(m.group(1), want) + m.group(2) + new


#: Patterns no edit may add: a doubled word (``less or less``, ``all all``), an absolute before
#: ``not`` (``always not``), two articles in a row.
_BAD = [re.compile(p, re.I) for p in (r"\b(\w+)\s+(?:or|and)\s+\1\b", r"\b(\w+)\s+\1\b",
                                       r"\b(?:always|never|all|entirely|certainly|certain|exactly)\s+not\b",
                                       r"\b(?:a|an|the)\s+(?:a|an|the)\b")]


def _reads_badly(before: str, after: str) -> bool:
    return any(len(p.findall(after)) > len(p.findall(before)) for p in _BAD)


def _sentence_start(text: str, pos: int) -> bool:
    return not text[:pos].strip() or bool(re.search(r"[.!?]\s+$", text[:pos]))


_DEGREE = ("more", "less", "most", "least", "how", "as", "so", "too", "very", "quite", "fairly", "rather",
           "highly", "equally", "not", "far", "much")


def _after_degree(text: str, pos: int) -> bool:
    m = re.search(r"(\w+)\s+$", text[:pos])
    return bool(m) and m.group(1).lower() in _DEGREE


def _find(answer: str, pattern: re.Pattern, accept) -> tuple[re.Match, str] | None:
    """The first match of ``pattern`` for which ``accept(match)`` gives a replacement (None: skip it)."""
    for m in pattern.finditer(answer):
        new = accept(m)
        if new is not None:
            return m, new
    return None


def _alternation(words) -> re.Pattern:
    alts = sorted(words, key=lambda w: -len(w))
    return re.compile(r"\b(?:" + "|".join(re.escape(w).replace(r"\ ", r"\s+") for w in alts) + r")\b", re.I)


def _key(text: str) -> str:
    return re.sub(r"\s+", " ", text.lower())


# -- factual fabrication --------------------------------------------------------------------------

#: A number in digits: its neighbours may be letters of any script but not Latin letters, digits,
#: ``_``, or a separator that would make it part of a longer number.
_NUM = re.compile(r"(?<![0-9A-Za-z_.,])(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(?![0-9A-Za-z_]|[.,]\d)")
_NUMBER_WORDS = {"two": "three", "three": "four", "four": "five", "five": "six", "six": "seven", "seven": "eight",
                 "eight": "nine", "nine": "ten", "ten": "twelve", "eleven": "twelve", "twelve": "fifteen",
                 "twenty": "thirty", "hundred": "thousand", "thousand": "million", "million": "billion",
                 "billion": "trillion", "twice": "three times", "double": "triple", "half": "a third"}
_UNITS = [("celsius", "fahrenheit"), ("kilometres", "miles"), ("kilometers", "miles"), ("kilograms", "pounds"),
          ("metres", "feet"), ("meters", "feet"), ("litres", "gallons"), ("liters", "gallons"),
          ("grams", "ounces"), ("centimetres", "inches"), ("hours", "minutes"), ("minutes", "seconds"),
          ("days", "weeks"), ("weeks", "months"), ("months", "years")]
_UNIT_SWAP = {**{a: b for a, b in _UNITS}, **{b: a for a, b in _UNITS if b not in dict(_UNITS)}}
_NUMBER_WORD_RE = _alternation(_NUMBER_WORDS)
_UNIT_RE = _alternation(_UNIT_SWAP)


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


def _wrong_option(answer: str, options: list[str] | None) -> Plant | None:
    """A multiple-choice answer with the stated option replaced by the next wrong option of the row."""
    if not options or len(options) < 2:
        return None
    found = [(answer.find(o), o) for o in options if o and answer.find(o) >= 0]
    if not found:
        return None
    start, right = max(found, key=lambda f: (len(f[1]), -f[0]))
    k = options.index(right)
    wrong = next((o for o in options[k + 1:] + options[:k] if o and o != right), None)
    if wrong is None:
        return None
    return _edit(answer, start, start + len(right), wrong,
                 f"gives the option {wrong!r} where the correct answer is {right!r}")


def _factual(question: str, answer: str, options: list[str] | None = None) -> Plant | str:
    got = _wrong_option(answer, options)
    if got is not None:
        return got
    in_question = {m.group(0) for m in _NUM.finditer(question)}
    nums = [m for m in _NUM.finditer(answer) if m.group(0) not in in_question]
    if nums:
        m = nums[-1]
        new = other_number(m.group(0))
        return _edit(answer, m.start(), m.end(), new, f"states {new} where the correct answer has {m.group(0)}")
    for pattern, table, what in ((_NUMBER_WORD_RE, _NUMBER_WORDS, "number"), (_UNIT_RE, _UNIT_SWAP, "unit")):
        def accept(m, table=table):
            if m.group(0).lower() in question.lower():
                return None
            new = _case(m.group(0), table[m.group(0).lower()])
            return None if _reads_badly(answer, answer[:m.start()] + new + answer[m.end():]) else new
        hit = _find(answer, pattern, accept)
        if hit is not None:
            m, new = hit
            start, rep = _with_article(answer, m.start(), new)
            return _edit(answer, start, m.end(), rep, f"gives the {what} {new!r} where the correct answer has "
                                                      f"{m.group(0)!r}")
    return "no number, number word or unit to change"


# -- logical reversal -----------------------------------------------------------------------------

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
               ("speeds up", "slows down"), ("widens", "narrows"), ("cheaper", "dearer"), ("lowest", "highest"),
               ("maximum", "minimum"), ("because of", "despite"), ("because", "although"),
               ("therefore", "nevertheless"), ("hence", "nevertheless")]:
    REVERSALS.setdefault(_a, _b)
    REVERSALS.setdefault(_b, _a)
REVERSALS["lower"] = "higher"  # as an adjective ("a lower rate"); before a determiner it is the verb (raise)
_REVERSAL_RE = _alternation(REVERSALS)
#: Fixed phrases whose words are not relations (a reversal inside them makes nonsense).
_IDIOMS = re.compile(r"\b(?:more or less|less or more|more and more|less and less|sooner or later|no longer|"
                     r"any longer|after all|before long|once more|any more|all the more|more often than not|"
                     r"later on|at the latest|at the earliest|giv(?:e|es|en|ing) rise|gave rise|on the rise|"
                     r"more than ever|the day before|the day after|all the same)\b", re.I)
_DETERMINERS = ("the", "a", "an", "its", "their", "your", "his", "her", "our", "this", "that", "these", "those",
                "blood", "body")


def _reversal(question: str, answer: str, options=None) -> Plant | str:
    idioms = [(m.start(), m.end()) for m in _IDIOMS.finditer(answer)]

    def accept(m):
        if any(s < m.end() and m.start() < e for s, e in idioms):
            return None
        word = _key(m.group(0))
        new = REVERSALS[word]
        if word == "lower":
            nxt = re.match(r"\s+(\w+)", answer[m.end():])
            if nxt and nxt.group(1).lower() in _DETERMINERS:
                new = "raise"  # the verb: "lower the rate"
        new = _case(m.group(0), new)
        return None if _reads_badly(answer, answer[:m.start()] + new + answer[m.end():]) else new

    hit = _find(answer, _REVERSAL_RE, accept)
    if hit is None:
        return "no causal or comparative word to reverse"
    m, new = hit
    start, rep = _with_article(answer, m.start(), new)
    return _edit(answer, start, m.end(), rep,
                 f"reverses the relation: {new!r} where the correct answer has {m.group(0)!r}")


# -- overclaim ------------------------------------------------------------------------------------

#: Hedges and qualifiers and the absolute claims they become (multi-word ones are tried first).
ABSOLUTES: dict[str, str] = {
    "in most cases": "in all cases", "in some cases": "in all cases", "in many cases": "in all cases",
    "most likely": "certainly", "unlikely to": "certain not to",
    "usually not": "never", "generally not": "never", "typically not": "never", "often not": "never",
    "frequently not": "never", "commonly not": "never",
    "usually": "always", "often": "always", "generally": "always", "typically": "always", "frequently": "always",
    "commonly": "always", "sometimes": "always", "occasionally": "always", "mostly": "entirely",
    "largely": "entirely", "partly": "entirely", "may": "will", "might": "will", "could": "will", "can": "will",
    "likely": "certain", "unlikely": "impossible", "probably": "certainly", "possibly": "certainly",
    "rarely": "never", "seldom": "never", "some": "all", "many": "all", "most": "all",
    "approximately": "exactly", "roughly": "exactly",
}
_ABSOLUTE_RE = _alternation(ABSOLUTES)
_MODALS = ("may", "might", "could", "can")
_ADVERBS = ("usually", "often", "generally", "typically", "frequently", "commonly", "sometimes", "occasionally",
            "mostly", "largely", "partly", "rarely", "seldom", "likely", "unlikely", "probably", "possibly",
            "approximately", "roughly", "many")
_MONTH_NEIGHBOUR = re.compile(r"\d")


def _overclaim_ok(answer: str, m: re.Match) -> bool:
    word, before, after = _key(m.group(0)), answer[:m.start()], answer[m.end():]
    prev = re.search(r"(\w+)\s+$", before)
    prev = prev.group(1).lower() if prev else ""
    nxt = re.match(r"\s*(\S+)", after)
    nxt = nxt.group(1).lower() if nxt else ""
    if word in _MODALS:
        if nxt.startswith(("not", "n't", "'t", "’t", "have")) or after[:1] in "'’":
            return False  # "may not", "can't", "could have": another meaning
        if prev in ("a", "the", "this", "that"):
            return False  # "a can of"
        if word == "may" and (m.group(0)[0].isupper() and not _sentence_start(answer, m.start())
                              or _MONTH_NEIGHBOUR.search(before[-3:] + after[:3])):
            return False  # the month: "25 May 2018", "in May"
    if word in _ADVERBS and _after_degree(answer, m.start()):
        return False  # "more often", "how many", "very likely"
    if word == "most likely" and prev in ("the", "a", "an"):
        return False  # "the most likely cause": a superlative
    if word == "most" and (prev in ("the", "at", "is", "are", "was", "were", "be", "been") or nxt == "likely"):
        return False  # "the most", "at most" (a limit), "is most common" (a superlative)
    if word == "some" and (prev in ("for",) or re.match(r"\s+\d", after)):
        return False  # "for some", "some 20 people" (about 20)
    if word == "many" and re.match(r"\s+(?:more|fewer|less|times)\b", after, re.I):
        return False
    return True


def _overclaim(question: str, answer: str, options=None) -> Plant | str:
    def accept(m):
        if not _overclaim_ok(answer, m):
            return None
        key = _key(m.group(0))
        new = ABSOLUTES[key]
        if new == "always" and _sentence_start(answer, m.start()):
            new = "in every case"  # "Generally you have ..." -> "In every case you have ..."
        new = _case(m.group(0), new)
        return None if _reads_badly(answer, answer[:m.start()] + new + answer[m.end():]) else new

    hit = _find(answer, _ABSOLUTE_RE, accept)
    if hit is None:
        return "no hedge or qualifier to make absolute"
    m, new = hit
    start, rep = _with_article(answer, m.start(), new)
    return _edit(answer, start, m.end(), rep,
                 f"overclaims: the qualified {m.group(0)!r} becomes the absolute {new!r}")


# -- omission -------------------------------------------------------------------------------------

_CLAUSE = re.compile(r",\s*(?:unless|except(?:\s+(?:when|if|for|in|where))?|provided(?:\s+that)?|as long as|"
                     r"but only|only (?:if|when|after|for|in|where|with)|if|when|so long as|although|though|but)\b"
                     r"[^.;:!?\n]*", re.I)
_LEAD = re.compile(r"(?:(?<=^)|(?<=[.!?]\s))(?:unless|except|if|when|provided|as long as|only)\b[^,.;:!?\n]*,[ \t]*",
                   re.I)
_LIMIT = re.compile(r"\b(?:unless|except|exceptions?|only|however|but|although|though|provided|excluding|"
                    r"apart from|limited to|restricted to|does not apply|do not apply)\b", re.I)


def _sentence_spans(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of each sentence: split after ``.``, ``!`` or ``?`` followed by white space."""
    spans, start = [], None
    for m in re.finditer(r"\S+(?:\s+|$)", text):
        if start is None:
            start = m.start()
        word = m.group(0)
        if re.search(r"[.!?]\s+$", word) or m.end() == len(text):
            spans.append((start, m.start() + len(word.rstrip())))
            start = None
    return spans


def _omission(question: str, answer: str, options=None) -> Plant | str:
    m = _CLAUSE.search(answer)
    if m:
        gone = m.group(0).strip(" ,")
        end = m.end() - (len(m.group(0)) - len(m.group(0).rstrip()))  # spaces before the next mark stay
        return _edit(answer, m.start(), end, "", f"leaves out the condition {gone!r}")
    m = _LEAD.search(answer)
    if m and m.end() < len(answer):
        nxt = answer[m.end()]
        return _edit(answer, m.start(), m.end() + 1, nxt.upper(),
                     f"leaves out the condition {m.group(0).strip(' ,')!r}")
    spans = _sentence_spans(answer)
    for k in range(1, len(spans)):
        s, e = spans[k]
        if _LIMIT.search(answer[s:e]):
            return _edit(answer, spans[k - 1][1], e, "", f"leaves out the limiting statement {answer[s:e]!r}")
    return "no limiting clause or sentence to leave out"


_RULES = {"factual_fabrication": _factual, "logical_reversal": _reversal, "overclaim": _overclaim,
          "omission": _omission}


def plant(question: str, answer: str, error_type: str, options: list[str] | None = None) -> Plant | str:
    """The correct ``answer`` with one error of ``error_type`` planted, or the reason none can be.

    Parameters
    ----------
    question, answer : str
    error_type : str
        One of :data:`cap_core.testbed.taxonomy.ERROR_TYPES`.
    options : list of str, optional
        A multiple-choice row's options: factual fabrication states a wrong one.

    Raises
    ------
    KeyError
        ``error_type`` is not one of :data:`cap_core.testbed.taxonomy.ERROR_TYPES`.
    """
    return _RULES[error_type](question, answer, options)


def plant_all(question: str, answer: str, options: list[str] | None = None) -> dict[str, Plant | str]:
    """:func:`plant` for every type (condition order): a :class:`Plant` or the reason."""
    from cap_core.testbed.taxonomy import ERROR_TYPES

    return {t: plant(question, answer, t, options) for t in ERROR_TYPES}


def state_option(option: str) -> str:
    """A multiple-choice answer stated as a sentence: ``"The answer is <option>."``."""
    text = option.strip().rstrip(".")
    return f"The answer is {text}."


_ENGLISH = frozenset("""the a an of to in is are was were be and or for with that this it not on by as at from
has have can may will which when if than their its they there these those do does""".split())


def looks_english(text: str) -> bool:
    """True unless ``text`` looks like another language than English: most of its letters are not
    Latin, or it has five words or more and none of the commonest English words (``the``, ``is``,
    ``of`` ...). The rules can only change numbers in such a text."""
    letters = [c for c in text if c.isalpha()]
    if letters and sum(c.isascii() for c in letters) < 0.5 * len(letters):
        return False
    words = re.findall(r"[A-Za-z']+", text.lower())
    return len(words) < 5 or any(w in _ENGLISH for w in words)


def _sentences(text: str) -> list[str]:
    return [text[s:e] for s, e in _sentence_spans(text)]


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
            return ("no correct statement to add to the flawed answer: the question has no context and the "
                    "answer no sentence apart from the one with the planted error (add a context column)")
        s = max(shared, key=len)
        added = "In other words, " + (s[0].lower() + s[1:] if s[1:2].islower() else s)
    body = flawed.rstrip()
    new_b = body + (" " if body[-1:] in ".!?" else ". ") + added
    if not invariants_kept(flawed, new_b):
        return "the supplement would change a number, negation or hedge of the flawed answer"
    return new_a, new_b, a_flaw, f"adds {added!r}"
