"""The rules' edits: one span replaced and every other byte kept (finding 3), each edit a sentence that says
something else (finding 4), and the rules' coverage and messages (finding 13). Expectations written by hand."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import polars as pl
import pytest

from cap_core.testbed import rules
from cap_core.testbed.checks import flaw_problem, normalise
from cap_core.testbed.taxonomy import ERROR_TYPES, assign_types

QUESTIONS = Path(__file__).resolve().parents[2] / "fixtures" / "testbed" / "questions.csv"
_QUOTED = re.compile(r"(?:has|is|qualified|condition|statement) (['\"])(.*?)\1(?: |$)")


def _changed(a: str, b: str) -> tuple[int, str, str]:
    """Where ``a`` and ``b`` differ: (offset, the part of ``a``, the part of ``b``) after their common
    prefix and common suffix."""
    i = 0
    while i < min(len(a), len(b)) and a[i] == b[i]:
        i += 1
    j = 0
    while j < min(len(a), len(b)) - i and a[-1 - j] == b[-1 - j]:
        j += 1
    return i, a[i:len(a) - j], b[i:len(b) - j]


def _old_words(p: rules.Plant) -> str:
    m = _QUOTED.search(p.note)
    if m:
        return m.group(2)
    return re.search(r"where the correct answer has (\S+)$", p.note).group(1)


def test_every_edit_on_the_fixture_replaces_only_its_span():
    """Over all 32 questions and four types: outside the words the note names, the flawed answer is the
    correct answer byte for byte."""
    frame = pl.read_csv(QUESTIONS)
    n = 0
    for q, a in zip(frame["question"], frame["answer"]):
        for t, p in rules.plant_all(q, a).items():
            if isinstance(p, str):
                continue
            n += 1
            at, old, new = _changed(a, p.text)
            named = _old_words(p)
            where = a.find(named)
            assert where >= 0, (p.note, a)
            if t == "omission":  # the condition with the comma or space before it (or, opening a sentence, the
                # comma and space after it and the next letter, written in upper case), and nothing else
                assert named in old and len(old) - len(named) <= 3 and new in ("", old[-1].upper()), (old, new)
            else:  # inside the named word (an article before it may change with it)
                assert where - 3 <= at and at + len(old) <= where + len(named), (t, a, p.text)
            assert p.text == a[:p.start] + p.text[p.start:len(p.text) - (len(a) - p.end)] + a[p.end:]
    assert n >= 64  # the fixture gives most questions material for several types (SOURCE.md)


@pytest.mark.parametrize("error_type,answer,expected", [
    # the tester's cases: spacing before punctuation, French spacing, tabs and an ellipsis stay as written
    ("factual_fabrication", "To add an item, call .append(x) on the list; it takes about 2 steps.",
     "To add an item, call .append(x) on the list; it takes about 3 steps."),
    ("omission", "Run ls -la . to see 12 hidden files, unless the folder is empty.",
     "Run ls -la . to see 12 hidden files."),
    ("factual_fabrication", "Un bail vide dure généralement 3 ans ; il peut être renouvelé !",
     "Un bail vide dure généralement 4 ans ; il peut être renouvelé !"),
    ("factual_fabrication", "Boil\t2 litres of water.\tThen wait 5 minutes.",
     "Boil\t2 litres of water.\tThen wait 6 minutes."),
    ("factual_fabrication", "Prices rise... and rise again by 10%...", "Prices rise... and rise again by 11%..."),
    ("omission", "Wash for 20 seconds.\n\nSanitiser works only without soap.", "Wash for 20 seconds."),
    ("omission", "Wash for 20  seconds. Sanitiser works only without soap.  Rinse well.",
     "Wash for 20  seconds.  Rinse well."),
])
def test_the_rest_of_the_answer_is_kept_byte_for_byte(error_type, answer, expected):
    assert rules.plant("Q?", answer, error_type).text == expected


def test_hardening_keeps_the_flawed_answer_and_appends():
    flawed = "Take 2 tablets .\tThen rest ..."
    got = rules.harden("Q?", "Take 3 tablets daily.\tThen rest afterwards.", flawed,
                       "Resting after a dose lowers the risk of dizziness.")
    assert got[1] == flawed + " Resting after a dose lowers the risk of dizziness."
    got = rules.harden("Q?", "Take 3 tablets daily", "Take 2 tablets daily", "Resting after a dose helps a lot.")
    assert got[1] == "Take 2 tablets daily. Resting after a dose helps a lot."  # a full stop where none was


@pytest.mark.parametrize("error_type,answer,expected", [
    # the tester's bad edits, each now a sentence that says something else, or no edit at all
    ("overclaim", "Adults may take at most 4 g a day.", "Adults will take at most 4 g a day."),
    ("overclaim", "Take at most 4 g a day.", "no hedge or qualifier to make absolute"),
    ("overclaim", "The rule took effect on 25 May 2018 and may change.",
     "The rule took effect on 25 May 2018 and will change."),
    ("overclaim", "In May the shop is closed.", "no hedge or qualifier to make absolute"),
    ("logical_reversal", "It costs more or less 5 euros and rises in winter.",
     "It costs more or less 5 euros and falls in winter."),
    ("logical_reversal", "Radio signals travel at speeds of light.", "no causal or comparative word to reverse"),
    ("logical_reversal", "Exercise speeds up the heart.", "Exercise slows down the heart."),
    ("overclaim", "It was most likely drafted by Langton.", "It was certainly drafted by Langton."),
    ("overclaim", "Two equal lists are usually not the same object.", "Two equal lists are never the same object."),
    ("overclaim", "Usually the test is free.", "In every case the test is free."),
    ("overclaim", "It happens more often in winter and in some towns.", "It happens more often in winter and in all "
                                                                        "towns."),
    ("overclaim", "How many people can apply?", "How many people will apply?"),
    ("overclaim", "This is the most likely cause.", "no hedge or qualifier to make absolute"),
    ("logical_reversal", "It is no longer used, and costs more.", "It is no longer used, and costs less."),
    ("logical_reversal", "Heat can give rise to storms.", "no causal or comparative word to reverse"),
    ("logical_reversal", "Statins lower the risk of a stroke.", "Statins raise the risk of a stroke."),
    ("logical_reversal", "It caused an increase in prices.", "It caused a decrease in prices."),
    ("logical_reversal", "A shorter wash removes a smaller share.", "A longer wash removes a smaller share."),
    # finding 13: causal words are reversed (since is not: it marks time as often as cause)
    ("logical_reversal", "Ice floats because it is less dense.", "Ice floats although it is less dense."),
    ("logical_reversal", "Aspirin blocks platelets, therefore bleeding may last longer.",
     "Aspirin blocks platelets, nevertheless bleeding may last longer."),
    ("logical_reversal", "Flights were cancelled because of the storm.", "Flights were cancelled despite the storm."),
    ("logical_reversal", "It has rained since 1990.", "no causal or comparative word to reverse"),
    # digits next to letters of other scripts
    ("factual_fabrication", "柏林墙于1989年11月9日倒塌。", "柏林墙于1989年11月10日倒塌。"),
    ("factual_fabrication", "成人の安静時心拍数は毎分60〜100回です。", "成人の安静時心拍数は毎分60〜125回です。"),
])
def test_guarded_edits(error_type, answer, expected):
    got = rules.plant("Q?", answer, error_type)
    assert (got.text if isinstance(got, rules.Plant) else got) == expected


def test_no_known_bad_edit_on_any_answer_the_tester_tried():
    """Every edit of the fixture and of the tester's answers is free of the bad patterns found."""
    bad = re.compile(r"\bat all \d|\b\d+ Will \d|\bless or less\b|\bslows of\b|\bmost certain\b|\balways not\b|"
                     r"\bwithout require\b|\b(\w+) \1\b|\ban [bcdfgjklmnpqrstvwxz]", re.I)
    answers = list(pl.read_csv(QUESTIONS)["answer"]) + [
        "Adults usually take 500 mg to 1 g every 4 to 6 hours, with no more than 4 g in 24 hours, at most 4 g.",
        "The treaty was signed on 25 May 2018.", "It costs more or less the same, and more in winter.",
        "Energy usually equals mass times 2 squared speeds of light, but only in the rest frame.",
        "The Magna Carta was drafted, most likely with Archbishop Stephen Langton, in 1215.",
        "== compares values while is compares identity; two equal lists are usually not the same object."]
    for a in answers:
        for t, p in rules.plant_all("Q?", a).items():
            if isinstance(p, rules.Plant):
                assert not bad.search(p.text) or bad.search(a), (t, p.text)


def test_a_contraction_plants_nothing():
    """Finding 4 (smollm): 'do not' -> 'don't' is the same statement, so it is no planted error."""
    q, a = "Do colds need antibiotics?", "You do not need antibiotics for a cold, and they cannot cure it."
    assert flaw_problem(q, a, "You don't need antibiotics for a cold, and they can't cure it.") == \
        "unchanged: the flawed answer is the correct answer"
    assert flaw_problem(q, a, "You do not need antibiotics for a cold; and they cannot cure it!") == \
        "unchanged: the flawed answer is the correct answer"
    assert normalise("It's 9.5% -- not 95%.") == "it's 9.5% not 95%"


def test_multiple_choice_states_a_given_wrong_option():
    got = rules.plant("How many chambers has the heart?", "The answer is 4.", "factual_fabrication", ["3", "4", "5"])
    assert (got.text, got.note) == ("The answer is 5.", "gives the option '5' where the correct answer is '4'")
    last = rules.plant("Capital of France?", "The answer is Paris.", "factual_fabrication", ["Lyon", "Paris"])
    assert last.text == "The answer is Lyon."  # the next wrong option, cyclically


def test_english_only_is_said():
    assert rules.looks_english("Most healthy adults need about 2 litres a day.")
    assert not rules.looks_english("Ein gesunder Erwachsener braucht meistens etwa 2 Liter Wasser pro Tag.")
    assert not rules.looks_english("柏林墙于1989年11月9日倒塌。")
    assert rules.looks_english("Paris.")  # too short to tell


def test_types_even_out_when_the_greedy_pass_blocks_one():
    # the law domain of the fixture: a greedy pass alone gave 3 overclaims and 1 logical reversal
    f, lr, o, om = ERROR_TYPES
    feas = [{f, lr, o}, {f, o}, {o, om}, {lr, o}, {f, o, om}, {f, lr, o}, {f, o, om}, {o, om}]
    assert Counter(assign_types(["law"] * 8, feas)) == {t: 2 for t in ERROR_TYPES}
    fixture = pl.read_csv(QUESTIONS)
    from cap_core.testbed.build import BuildSpec, plan_build
    from cap_core.testbed.questions import read_questions

    plan = plan_build(read_questions(QUESTIONS), BuildSpec())
    assert Counter(zip(fixture["domain"], plan.types)) == {(d, t): 2 for d in set(fixture["domain"])
                                                          for t in ERROR_TYPES}
