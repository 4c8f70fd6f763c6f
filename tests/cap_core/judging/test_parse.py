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


# --- Replies in the styles real judges write, each with the verdict read off by hand -------------------------
# Formats: MT-Bench pair prompts ("[[A]]", "[[B]]", "[[C]]" for a tie); Arena-Hard ("[[A>>B]]" ... "[[B>>A]]",
# "My final verdict is ..."); Prometheus pairwise ("[RESULT] A"); LLMBar ("Output (a)", and its CoT ending
# "Therefore, Output (b) is better."); Auto-J ("So, the final decision is Response 2"); free "Final verdict: ..."
# lines; JSON objects with winner / preference fields. Verdicts are in the letters the judge was shown.
REAL_STYLE = [
    # MT-Bench
    ("Assistant A gives the correct boiling point and explains the pressure effect, while Assistant B confuses "
     "Celsius with Fahrenheit. Assistant A is more accurate.\n\n[[A]]", "A"),
    ("Both assistants list the same three causes with similar depth; neither is clearly better.\n\n[[C]]", "tie"),
    ("Assistant B follows the requested haiku form; Assistant A writes a limerick.\n\nFinal verdict: [[B]]", "B"),
    # Arena-Hard
    ("My own answer: the integral is 1/3.\n\nAssistant A arrives at 1/3 with correct steps. Assistant B drops a "
     "factor of x.\n\nMy final verdict is: Assistant A is significantly better: [[A>>B]]", "A"),
    ("Both are correct and equally concise.\n\nMy final verdict is tie: [[A=B]]", "tie"),
    ("Assistant B's code handles the empty list.\n\nMy final verdict is Assistant B is slightly better: [[B>A]]", "B"),
    ("**[[B>>A]]**", "B"),
    ("Assistant A is a bit more complete.\n\n[[A>B]]", "A"),
    # Prometheus (pairwise relative grading)
    ("Response A mentions the treaty but not its limits, whereas Response B explains both the treaty and its gaps. "
     "Model B better meets the rubric.\n\n[RESULT] B", "B"),
    ("Feedback: Model A structures the argument around the three laws with examples. [RESULT] A", "A"),
    # LLMBar
    ("Output (a)", "A"),
    ("Output (b)", "B"),
    ("Output (a) ignores the word limit, while Output (b) stays within it and answers the question. "
     "Therefore, Output (b) is better.", "B"),
    # Auto-J
    ("Response 1 answers the question but Response 2 also adds the safety caveat the user needs.\n\n"
     "So, the final decision is Response 2.", "B"),
    ("Both responses are equally relevant and accurate. So, the final decision is Tie.", "tie"),
    # free "final verdict" lines
    ("Answer A cites a retracted study. Answer B is sound.\n\n**Final Verdict:** Answer B", "B"),
    ("Neither answer makes an error and both are complete.\nFinal verdict: Tie", "tie"),
    ("Final verdict: A", "A"),
    ("Both are complete and correct. My final verdict: a tie.", "tie"),
    ("Verdict: B\nReason: A miscounts the items.", "B"),
    # JSON
    ('{"preference": "B", "reason": "A gives the wrong year"}', "B"),
    ('```json\n{"verdict": "equal", "explanation": "same facts, same length"}\n```', "tie"),
    ('{"winner": "Response A", "rationale": "B misreads the question."}', "A"),
    ('{"preference": "Output (b)"}', "B"),
    ('Here is my judgment: {"winner": "tie", "rationale": "both correct"}', "tie"),
    # JSON values that are not a verdict: both / neither / none are not ties
    ('{"winner": "both", "rationale": "each is fine"}', "unparsed"),
    ('{"winner": "neither", "rationale": "both are wrong"}', "unparsed"),
    ('{"winner": "none"}', "unparsed"),
    ('{"winner": "C"}', "unparsed"),  # "C" is a tie only in the MT-Bench bracket format [[C]]
    # not a pairwise verdict at all
    ("Feedback: The response is detailed and well grounded. [RESULT] 4", "unparsed"),
    ("Rating: [[8]]", "unparsed"),
    ("Output (a) and Output (b) both answer the question; it is hard to choose.", "unparsed"),
    ("Final verdict: both are good.", "unparsed"),
    # quoted tokens inside a JSON string do not count
    ('{"rationale": "one could say Output (a) is better, or [RESULT] A, but no", "winner": "B"}', "B"),
]


@pytest.mark.parametrize("text, verdict", REAL_STYLE)
def test_real_judge_styles(text, verdict):
    assert parse_verdict(text).verdict == verdict


def test_table_is_big_enough():
    assert len(REAL_STYLE) >= 25


@pytest.mark.parametrize("text, why", [
    ('{"winner": "both"}', "not a tie"),
    ('{"winner": "neither"}', "not a tie"),
    ('{"winner": "none"}', "not a tie"),
])
def test_both_neither_none_are_unparsed_with_reason(text, why):
    p = parse_verdict(text)
    assert p.verdict == "unparsed" and why in p.reason


def test_final_line_overrides_and_flags_conflict():
    p = parse_verdict("At first [[A]] looked right, but A has a sign error.\nFinal verdict: B")
    assert (p.verdict, p.conflict, p.n_tokens) == ("B", True, 2)


def test_same_verdict_twice_is_no_conflict():
    p = parse_verdict("My final verdict is tie: [[A=B]]")
    assert (p.verdict, p.conflict) == ("tie", False)


def test_real_judgebench_arena_hard_replies_match_the_recorded_decisions(shared_dir):
    """Every o1-mini and Claude-3-Haiku reply of JudgeBench (arena_hard prompt) parses to the decision
    JudgeBench recorded, except where JudgeBench records null because the reply holds two different
    [[...]] tokens (its rule); there CAP takes the last token (rule 3)."""
    import ast
    import json
    import re

    to_cap = {"A>B": "A", "B>A": "B", "A=B": "tie", None: "unparsed"}
    files = sorted((shared_dir / "data" / "judgebench" / "outputs").glob("*judge_name=arena_hard*.jsonl"))
    assert len(files) == 2
    n = differ = 0
    for f in files:
        for line in f.read_text(encoding="utf-8").splitlines():
            for g in json.loads(line)["judgments"]:
                j = g["judgment"]
                text = (ast.literal_eval(j) if isinstance(j, str) else j)["response"]
                got, want = parse_verdict(text).verdict, to_cap[g["decision"]]
                n += 1
                if got != want:
                    differ += 1
                    assert want == "unparsed" and len(set(re.findall(r"\[\[([AB<>=]+)\]\]", text))) > 1, text[-300:]
    assert n == 2 * (350 + 270) and differ == 13
