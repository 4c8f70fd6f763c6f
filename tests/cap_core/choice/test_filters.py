"""One reading of the numbers in --weights, --min and a link's w / min (cap_core.choice.filters.plain_number)."""

import math

import pytest

from cap_core.choice.filters import Filter, parse_filters, parse_weights, plain_number
from cap_core.errors import CAPInputError


@pytest.mark.parametrize("text, value", [("60", 60.0), (" 0.5 ", 0.5), (".5", 0.5), ("5.", 5.0), ("1e3", 1000.0),
                                         ("+2", 2.0), ("-1.5E-2", -0.015), ("1e309", math.inf)])
def test_decimal_numbers_are_read(text, value):
    assert plain_number(text) == value


# float() takes every one of these: digit grouping, words, fullwidth and Arabic-Indic digits, hex-like text
@pytest.mark.parametrize("text", ["1_000", "inf", "-infinity", "nan", "NaN", "\uff11", "\u0661\u0660", "0x10", "",
                                  "1e", "1.2.3", "1 000"])
def test_anything_else_is_not_a_number(text):
    assert math.isnan(plain_number(text))


def test_float_alone_takes_grouping_words_and_other_digits():
    # the gap plain_number closes: float() read C7=1_000 as 1000 and C7=inf as infinity
    assert [float(t) for t in ("1_000", "inf", "\uff11", "\u0661\u0660")] == [1000.0, math.inf, 1.0, 10.0]


def test_a_grouped_weight_is_refused_naming_the_argument():
    with pytest.raises(CAPInputError) as err:
        parse_weights("C1=1,C7=1_000")
    assert err.value.argument == "weights"
    assert "C7=1_000" in str(err.value) and "no _ or inf" in str(err.value)
    # the same weight in digits is taken as written
    weights = parse_weights("C1=1,C7=1000")
    assert (weights["C1"], weights["C7"], sum(weights.values())) == (1.0, 1000.0, 1001.0)


@pytest.mark.parametrize("bad", ["C7=6_0", "C7=nan", "C7.low=inf", "C7=\uff16\uff10"])
def test_a_minimum_not_in_digits_is_refused(bad):
    with pytest.raises(CAPInputError) as err:
        parse_filters(bad, argument="--min")
    assert err.value.argument == "--min" and bad in str(err.value)


def test_minimums_in_digits_are_read():
    assert parse_filters("C7=6e1,C1.low=50.5") == (Filter("C7", 60.0, "value"), Filter("C1", 50.5, "low"))
