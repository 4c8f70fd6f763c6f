"""The offline planting rules, the type assignment and the gold balance, checked against hand-made cases."""

from __future__ import annotations

from collections import Counter

import pytest

from cap_core.errors import CAPInputError
from cap_core.testbed import rules
from cap_core.testbed.checks import expansion_problem, flaw_problem
from cap_core.testbed.taxonomy import ERROR_TYPES, assign_types, balanced_gold, stratified_pick

Q = "How much fluid does a healthy adult need each day?"
A = ("Most healthy adults need about 2 litres of fluid a day, and more in hot weather or during exercise, "
     "unless a doctor has advised a fluid restriction.")


def test_each_rule_edits_one_place_and_says_what():
    got = rules.plant_all(Q, A)
    assert got["factual_fabrication"] == rules.Plant(A.replace("about 2 litres", "about 3 litres"),
                                                     "states 3 where the correct answer has 2")
    assert got["logical_reversal"] == rules.Plant(A.replace("and more in", "and less in"),
                                                  "reverses the relation: 'less' where the correct answer has 'more'")
    assert got["overclaim"] == rules.Plant(A.replace("Most healthy", "All healthy"),
                                           "overclaims: the qualified 'Most' becomes the absolute 'All'")
    assert got["omission"].text == ("Most healthy adults need about 2 litres of fluid a day, and more in hot weather "
                                    "or during exercise.")
    assert got["omission"].note == "leaves out the condition 'unless a doctor has advised a fluid restriction'"
    for t in ERROR_TYPES:  # every planted answer passes the checks
        assert flaw_problem(Q, A, got[t].text) is None


def test_numbers_change_plausibly_and_the_question_number_stays():
    assert [rules.other_number(x) for x in ("0", "4", "12", "37", "100", "1969", "85,000", "9.8", "0.5")] == \
        ["1", "5", "13", "44", "125", "1976", "106,250", "14.7", "0.8"]
    # the 2 of "type 2 diabetes" is in the question: the number word changes instead
    got = rules.plant("How is type 2 diabetes treated?", "Type 2 diabetes is treated after three months.",
                      "factual_fabrication")
    assert got.text == "Type 2 diabetes is treated after four months."
    unit = rules.plant("At what temperature?", "It is measured in Celsius.", "factual_fabrication")
    assert unit.text == "It is measured in Fahrenheit."


def test_omission_forms_and_reasons_when_nothing_fits():
    lead = rules.plant("Q?", "If the bond is held to maturity, it repays its face value.", "omission")
    assert lead.text == "It repays its face value."
    later = rules.plant("Q?", "Wash for 20 seconds. Sanitiser works only without soap.", "omission")
    assert later.text == "Wash for 20 seconds."
    plain = "Paris is the capital of France."
    assert rules.plant_all("What is the capital of France?", plain) == {
        "factual_fabrication": "no number, number word or unit to change",
        "logical_reversal": "no causal or comparative word to reverse",
        "overclaim": "no hedge or qualifier to make absolute",
        "omission": "no limiting clause or sentence to leave out"}


def test_guards_keep_grammar():
    assert isinstance(rules.plant("Q?", "You cannot skip it; the most common cause is rain.", "overclaim"), str)
    assert rules.plant("Q?", "It can't rain, but it may snow.", "overclaim").text == "It can't rain, but it will snow."


def test_checks_reject_what_is_not_a_planted_error():
    assert flaw_problem(Q, A, "  " + A.upper() + " ") == "unchanged: the flawed answer is the correct answer"
    assert flaw_problem(Q, A, A + " Also drink tea.") == "contains the correct answer verbatim"
    assert flaw_problem(Q, A, "Bananas grow in tropical climates.").startswith("off the question")
    # keeps the subject word but little of the answer
    assert flaw_problem(Q, A, "Fluid is wet and clear.").startswith("drifts off the answer: it keeps 1 of")
    assert flaw_problem(Q, A, None) == "empty flawed answer"
    assert flaw_problem(Q, A, " ".join([A.replace("2 litres", "3 litres")] * 3)) == \
        "drifts off the answer: 3.01 times the correct answer's length (expected 0.2-2)"
    assert expansion_problem("Scurvy", "Scurvy.") == "expansion shorter than 50 characters"
    assert expansion_problem("Scurvy", "A long lack of vitamin C causes bleeding gums and poor healing.") == \
        "the expansion does not state the reference answer"
    assert expansion_problem("Scurvy", "Scurvy is caused by a long lack of vitamin C in the diet.") is None


def test_types_are_balanced_within_domains_and_constrained_questions_first():
    domains = ["a"] * 8 + ["b"] * 4
    every = [set(ERROR_TYPES)] * 12
    types = assign_types(domains, every)
    assert Counter(zip(domains, types)) == {("a", t): 2 for t in ERROR_TYPES} | {("b", t): 1 for t in ERROR_TYPES}
    # question 1 can only carry an omission; the others are dealt around it
    feas = [set(ERROR_TYPES), {"omission"}, set(ERROR_TYPES), set(ERROR_TYPES), set()]
    assert assign_types(["x"] * 5, feas) == ["factual_fabrication", "omission", "logical_reversal", "overclaim", None]
    with pytest.raises(CAPInputError, match="unknown error type"):
        assign_types(["x"], [{"typo"}])


def test_gold_alternates_per_type_and_the_hard_sample_spreads():
    assert balanced_gold(["f", "f", "o", "f", "o"]) == ["A", "B", "A", "A", "B"]
    types = [t for t in ERROR_TYPES for _ in range(4)]
    domains = ["d1", "d2", "d3", "d4"] * 4
    picks = stratified_pick(types, domains, 8)
    assert Counter(types[i] for i in picks) == {t: 2 for t in ERROR_TYPES}
    assert Counter(domains[i] for i in picks) == {d: 2 for d in ("d1", "d2", "d3", "d4")}
    assert stratified_pick(types, domains, 0) == [] and len(stratified_pick(types, domains, 99)) == 16


def test_hardening_adds_a_true_statement_and_a_typo():
    got = rules.harden(Q, A, A.replace("2 litres", "3 litres"), "Food supplies a fifth of daily water intake.")
    new_a, new_b, a_flaw, b_added = got
    assert a_flaw == "a typo: 'restirction' for 'restriction'" and new_a == A.replace("restriction", "restirction")
    assert new_b == A.replace("2 litres", "3 litres") + " Food supplies a fifth of daily water intake."
    assert rules.harden("Q?", "Short.", "Shorter.") == \
        "no word of seven letters or more to misspell in the correct answer"
