"""The checks every generated answer passes before it enters a testbed (CAP App. A.6).

A flawed answer is rejected (and regenerated, when the generator can) when it

1. is empty, or equals the correct answer once case, spacing, punctuation and contractions are
   set aside (:func:`normalise`: ``do not`` -> ``don't`` plants nothing): nothing was planted;
2. contains the correct answer verbatim: the error was appended, not planted;
3. leaves the question's subject: it names none of the question's content words that the
   correct answer names, or keeps fewer than :data:`MIN_KEPT` of the correct answer's
   content words, or its length is outside :data:`LENGTH_RATIO` times the correct answer's
   (a planted error changes a detail, not the topic or the size).

An edited correct answer (the review, :func:`correct_problem`) is rejected when it is empty, or
names none of the question's content words and keeps fewer than :data:`MIN_KEPT` of the
built correct answer's: it answers another question.

An expansion of a short reference answer (CAP App. A.1/A.3) is rejected when it is shorter
than :data:`MIN_EXPANSION_CHARS` characters or does not state the reference answer (its text,
or for a longer reference most of its content words). The gold is never generated: it is
the correct answer by construction.

Content words are those of :func:`cap_core.judging.local_providers.content_words`
(lower-cased words of three or more letters that are not stop words), numbers left out (a
factual fabrication may change the only number an answer has).
"""

from __future__ import annotations

import re

from cap_core.judging.local_providers import content_words

__all__ = ["MIN_KEPT", "LENGTH_RATIO", "MIN_EXPANSION_CHARS", "normalise", "flaw_problem", "correct_problem",
           "expansion_problem"]

#: Share of the correct answer's content words a flawed answer must keep.
MIN_KEPT = 1 / 3
#: Lengths (characters) a flawed answer may have, as a multiple of the correct answer's.
LENGTH_RATIO = (0.2, 2.0)
#: CAP App. A.1: an expansion under 50 characters is dropped.
MIN_EXPANSION_CHARS = 50


_CONTRACTIONS = [(re.compile(p, re.I), r) for p, r in (
    (r"\bcan['’]t\b", "cannot"), (r"\bwon['’]t\b", "will not"), (r"\bshan['’]t\b", "shall not"),
    (r"n['’]t\b", " not"), (r"['’]re\b", " are"), (r"['’]ll\b", " will"), (r"['’]ve\b", " have"),
    (r"\bi['’]m\b", "i am"), (r"\bcan not\b", "cannot"))]
_TOKEN = re.compile(r"\d+(?:[.,]\d+)*%?|[^\W\d_]+(?:['’][^\W\d_]+)?")


def normalise(text: str) -> str:
    """The words and numbers of ``text``, lower case, one space apart: contractions written out
    (``don't`` -> ``do not``, ``can't`` -> ``cannot``), punctuation and spacing dropped (a number keeps
    its decimal point and thousands commas). Two texts that normalise alike say the same thing."""
    t = str(text).lower()
    for pat, rep in _CONTRACTIONS:
        t = pat.sub(rep, t)
    return " ".join(_TOKEN.findall(t))


def _words(text: str) -> set[str]:
    """Content words without numbers: a planted error may change every number, never the subject."""
    return {w for w in content_words(text) if not any(c.isdigit() for c in w)}


def flaw_problem(question: str, correct: str, flawed: str | None) -> str | None:
    """Why ``flawed`` cannot stand as the flawed answer of this pair, or None when it can.

    Returns
    -------
    str or None
        One of ``"empty flawed answer"``, ``"unchanged: the flawed answer is the correct
        answer"``, ``"contains the correct answer verbatim"``, ``"off the question: ..."``,
        ``"drifts off the answer: ..."`` (content words or length; module rules), else None.
    """
    if flawed is None or not str(flawed).strip():
        return "empty flawed answer"
    f, c = normalise(flawed), normalise(correct)
    if f == c:
        return "unchanged: the flawed answer is the correct answer"
    if c and f" {c} " in f" {f} ":
        return "contains the correct answer verbatim"
    fw, cw = _words(flawed), _words(correct)
    subject = _words(question) & cw
    if subject and not fw & subject:
        return "off the question: it names none of the question's words the correct answer uses (" + \
            ", ".join(sorted(subject)[:4]) + ")"
    if cw and len(fw & cw) < MIN_KEPT * len(cw):
        return f"drifts off the answer: it keeps {len(fw & cw)} of the correct answer's {len(cw)} content words"
    ratio = len(str(flawed).strip()) / max(1, len(str(correct).strip()))
    if not LENGTH_RATIO[0] <= ratio <= LENGTH_RATIO[1]:
        return (f"drifts off the answer: {ratio:.2f} times the correct answer's length (expected "
                f"{LENGTH_RATIO[0]:g}-{LENGTH_RATIO[1]:g})")
    return None


def correct_problem(question: str, built: str, edited: str | None) -> str | None:
    """Why ``edited`` cannot replace the correct answer ``built`` of this question, or None when it can.

    The flaw checks compare the flawed answer with the correct one; they cannot see a pair
    whose two texts were both moved from another question. This check ties the correct
    answer to the question: it must name one of the question's content words or keep at
    least :data:`MIN_KEPT` of the built correct answer's content words.

    Returns
    -------
    str or None
        ``"empty correct answer"``, ``"off the question: ..."``, or None.
    """
    if edited is None or not str(edited).strip():
        return "empty correct answer"
    ew, qw, bw = content_words(edited), content_words(question), content_words(built)
    if qw & ew or (bw and len(ew & bw) >= MIN_KEPT * len(bw)) or not (qw or bw):
        return None
    return ("off the question: the correct answer names none of the question's words (" + ", ".join(sorted(qw)[:4])
            + ") and keeps " + f"{len(ew & bw)} of the built correct answer's {len(bw)} content words")


def expansion_problem(answer: str, expansion: str | None) -> str | None:
    """Why ``expansion`` cannot replace the short reference ``answer``, or None when it can."""
    if expansion is None or len(expansion.strip()) < MIN_EXPANSION_CHARS:
        return f"expansion shorter than {MIN_EXPANSION_CHARS} characters"
    if normalise(answer) in normalise(expansion):
        return None
    need = content_words(answer)
    if need and len(need & content_words(expansion)) >= 0.6 * len(need):
        return None
    return "the expansion does not state the reference answer"
