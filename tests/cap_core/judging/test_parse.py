"""Verdict parsing on hand-written completions."""

from __future__ import annotations

import pytest

from cap_core.errors import CAPInputError
from cap_core.judging.evaluate import parse_support
from cap_core.judging.parse import parse_verdict


@pytest.mark.parametrize("text, verdict, conflict", [
    ('{"rationale": "B invents a date.", "winner": "A"}', "A", False),
    ('Sure!\n```json\n{"rationale": "A reverses the cause.", "winner": "B"}\n```\nHope this helps.', "B", False),
    ('My analysis... Final verdict: [[A]]', "A", False),
    ("[[B>>A]]", "B", False),
    ("[[A>B]]", "A", False),
    ("[[A=B]]", "tie", False),
    ("Both are equally good. [[C]]", "tie", False),
    ('{"winner": "tie", "rationale": "no difference"}', "tie", False),
    ('{"winner": "Answer B", "reason": "..."}', "B", False),
    # several tokens: the last well-formed one wins and the conflict is flagged
    ('Initially [[A]] but after checking: {"rationale": "A has a wrong number", "winner": "B"}', "B", True),
    ('{"winner": "B"} ... on second thought [[A]]', "A", True),
    ("[[A]] and again [[A]]", "A", False),
    # a token quoted inside the JSON rationale does not count
    ('{"rationale": "someone might say [[B]] but no", "winner": "A"}', "A", False),
])
def test_verdicts(text, verdict, conflict):
    p = parse_verdict(text)
    assert (p.verdict, p.conflict) == (verdict, conflict)


@pytest.mark.parametrize("text, why", [
    ("", "empty completion"),
    ("I think the first one is better.", "no verdict token"),
    ('{"rationale": "cut off, "winner": ', "no well-formed JSON verdict"),
    ('{"winner": "maybe", "rationale": "unsure"}', "JSON verdict field holds no A/B/tie value"),
    ("[[D]] is my choice", "no verdict token"),
])
def test_unparsed_is_never_a_tie(text, why):
    p = parse_verdict(text)
    assert p.verdict == "unparsed" and why in p.reason


def test_rationale_taken_from_the_winning_json():
    p = parse_verdict('x {"rationale": "first", "winner": "A"} y {"rationale": "second", "winner": "A"}')
    assert p.rationale == "second" and p.n_tokens == 2 and not p.conflict


def test_not_text_is_refused():
    with pytest.raises(CAPInputError):
        parse_verdict(None)


@pytest.mark.parametrize("text, value", [
    ('{"supported": 1, "reason": "names the wrong organ"}', 1),
    ('```json\n{"supported": 0, "reason": "generic"}\n```', 0),
    ('{"rationale_correct": "yes"}', 1),
    ("no json here", None),
    ('{"supported": "perhaps"}', None),
])
def test_evaluator_support(text, value):
    assert parse_support(text) == value
