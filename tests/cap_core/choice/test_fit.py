"""Which presets fit a benchmark (cap_core.choice.fit): the rule the dashboard and the CLI share.

Expectations worked by hand from the preset table (CAP §5): balanced weighs C1..C8 equally,
scientific review C1 and C8, long-form C6, legal and policy C4, adversarial traffic C5, C6, C7.
"""

from __future__ import annotations

import polars as pl

from cap_core.choice.fit import closest_preset, fitting_presets, measured_conditions, unscored_error


def test_fitting_presets_are_those_weighing_a_measured_condition():
    # JudgeBench as shipped measures C1, C2, C7: legal and policy (C4) and long-form (C6) weigh none of them
    assert fitting_presets(["C1", "C2", "C7"]) == ["balanced", "scientific review", "adversarial traffic"]
    assert fitting_presets(["C7"]) == ["balanced", "adversarial traffic"]
    assert fitting_presets([]) == []


def test_closest_preset_by_cosine_of_the_weights():
    # long-form (C6) against C5,C7: balanced 1/sqrt(8) = 0.35, adversarial traffic 1/sqrt(3) = 0.58
    assert closest_preset("long-form", ["C5", "C7"]) == "adversarial traffic"
    # legal and policy (C4) against C1,C2,C7: balanced 0.35, scientific review 0, adversarial traffic 0
    assert closest_preset("legal and policy", ["C1", "C2", "C7"]) == "balanced"
    # hand-set weights on C5 only against C7: adversarial traffic 1/sqrt(3) beats balanced 1/sqrt(8)
    assert closest_preset({"C5": 2.0}, ["C7"]) == "adversarial traffic"
    assert closest_preset("balanced", []) is None


def test_measured_conditions_reads_primary_values_only():
    rows = pl.DataFrame({"condition": ["C7", "C1", "C4", "overall", "C2"], "primary": [True, True, False, True, True],
                         "value": [50.0, 60.0, 70.0, 55.0, None]})
    assert measured_conditions(rows) == ["C1", "C7"]  # C4 not primary, C2 null, overall no condition id


def test_unscored_error_names_what_is_missing_what_is_measured_and_a_fix():
    rows = pl.DataFrame({"condition": ["C1", "C2", "C7"], "primary": [True] * 3, "value": [60.0, 50.0, 40.0]})
    err = unscored_error("judgebench", rows, {"C4": 1.0}, preset="legal and policy", argument="--preset")
    text = str(err)
    assert "weighs C4, which is not measured on judgebench (it measures C1, C2, C7)" in text
    assert "argument `--preset`" in text and "--preset 'balanced'" in text and "--weights C1=1,C2=1,C7=1" in text
