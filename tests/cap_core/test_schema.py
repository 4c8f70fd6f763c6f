"""Validation of the three tables: every bad-input case names row, column, expected value and fix."""

from __future__ import annotations

import polars as pl
import pytest

from cap_core.dataset import Dataset
from cap_core.errors import CAPInputError
from cap_core.schema import (
    validate_declarations,
    validate_items,
    validate_judgments,
    validate_profile,
)


def items(**over):
    base = {"benchmark": ["b", "b", "b"], "item_id": ["1", "2", "3"], "gold": ["A", "B", "A"]}
    base.update(over)
    return pl.DataFrame(base)


def judgments(**over):
    base = {
        "judge": ["j", "j", "j"],
        "benchmark": ["b", "b", "b"],
        "item_id": ["1", "1", "2"],
        "order": ["AB", "BA", "AB"],
        "verdict": ["A", "B", "tie"],
    }
    base.update(over)
    return pl.DataFrame(base)


def raised(fn, *args, **kw) -> CAPInputError:
    with pytest.raises(CAPInputError) as info:
        fn(*args, **kw)
    return info.value


def test_defaults_filled():
    out = validate_items(items())
    assert out["base_item_id"].to_list() == ["1", "2", "3"]
    assert out["subset"].to_list() == ["all"] * 3
    assert out["variant"].to_list() == ["original"] * 3
    assert out.schema["len_a"] == pl.Int64


def test_gold_outside_set_names_row_and_fix():
    err = raised(validate_items, items(gold=["A", "C", "B"]), file="items.csv")
    assert (err.file, err.row, err.column, err.got) == ("items.csv", 2, "gold", "C")
    assert "one of A, B" in str(err) and "Fix:" in str(err)


def test_misspelled_column_gets_rename_hint():
    df = items().rename({"item_id": "itemid"})
    err = raised(validate_items, df)
    assert err.column == "item_id"
    assert "rename column 'itemid' to 'item_id'" in str(err)


def test_missing_column_without_near_miss():
    err = raised(validate_items, items().drop("gold"))
    assert err.column == "gold" and "add a 'gold' column" in str(err)


def test_unknown_failure_type():
    err = raised(validate_items, items(failure_type=[None, "typo", None]))
    assert (err.row, err.column, err.got) == (2, "failure_type", "typo")


def test_empty_tables():
    err = raised(validate_items, items().head(0))
    assert "items table is empty" in str(err)
    err = raised(validate_judgments, judgments().head(0))
    assert "judgments table is empty" in str(err)


def test_verdict_outside_set():
    err = raised(validate_judgments, judgments(verdict=["A", "maybe", "B"]))
    assert (err.row, err.column, err.got) == (2, "verdict", "maybe")
    assert "A, B, tie, unparsed" in str(err)


def test_order_outside_set():
    err = raised(validate_judgments, judgments(order=["AB", "swapped", "AB"]))
    assert (err.row, err.column) == (2, "order")


def test_duplicate_judgment_key():
    err = raised(validate_judgments, judgments(order=["AB", "AB", "AB"]))
    # rows 1 and 2 are both (j, b, 1, AB)
    assert "duplicate key" in str(err) and err.row == 1 and "rows 1 and 2" in str(err)


def test_duplicate_key_names_the_first_row_and_its_repeat():
    ids = [str(i) for i in range(1, 32)]
    ids[30] = "3"  # data row 31 repeats the key of data row 3
    err = raised(validate_items, items(benchmark=["b"] * 31, item_id=ids, gold=["A"] * 31))
    assert err.row == 3 and "rows 3 and 31" in str(err) and "remove row 31" in err.fix
    # an earlier, different duplicate pair is reported by its own rows, not mixed with a later key
    ids2 = ["x", "y", "z", "y", "x"]  # x: rows 1 and 5; y: rows 2 and 4
    err = raised(validate_items, items(benchmark=["b"] * 5, item_id=ids2, gold=["A"] * 5))
    assert "rows 1 and 5" in str(err)


def test_duplicate_item_key():
    err = raised(validate_items, items(item_id=["1", "1", "3"]))
    assert "duplicate key" in str(err)


def test_judgment_without_item():
    its = validate_items(items())
    err = raised(validate_judgments, judgments(item_id=["1", "1", "99"]), its)
    assert (err.row, err.column, err.got) == (3, "item_id", "99")


def test_uncastable_value():
    err = raised(validate_judgments, judgments(cost_usd=["0.1", "cheap", "0.2"]))
    assert (err.row, err.column, err.got) == (2, "cost_usd", "cheap")


def test_rationale_supported_must_be_binary():
    err = raised(validate_judgments, judgments(rationale_supported=[1, 2, None]))
    assert (err.row, err.column, err.got) == (2, "rationale_supported", 2)


def test_dataset_build_validates_join():
    with pytest.raises(CAPInputError, match="not in the items table"):
        Dataset.build(items(), judgments(item_id=["1", "1", "7"]))


def test_declaration_status_checked():
    decl = pl.DataFrame({"benchmark": ["b"], "condition": ["C1"], "status": ["approx"]})
    err = raised(validate_declarations, decl)
    assert err.column == "status" and "direct, approximate, augmented, unavailable" in str(err)


def test_profile_percent_range():
    prof = pl.DataFrame({"judge": ["j"], "benchmark": ["b"], "condition": ["C1"], "metric": ["pa"], "value": [0.79]})
    assert validate_profile(prof)["value"][0] == 0.79  # a small percent is legal
    err = raised(validate_profile, prof.with_columns(pl.lit(107.0).alias("value")))
    assert "percent" in str(err) and err.column == "value"
    gap = prof.with_columns(pl.lit("C5").alias("condition"), pl.lit("surface_gap").alias("metric"), pl.lit(-4.0).alias("value"))
    assert validate_profile(gap)["value"][0] == -4.0


def test_absurdly_long_ids_are_rejected_with_row_and_column():
    huge = "=cmd|" + "x" * 200_000
    err = raised(validate_judgments, judgments(judge=["j", huge, "j"]))
    assert (err.row, err.column) == (2, "judge") and "longer than 500 characters" in str(err)
    assert "200005 characters" in str(err) and err.fix
    assert len(str(err)) < 800  # the message itself stays readable
    err = raised(validate_items, items(item_id=["1", "2", "i" * 501]))
    assert (err.row, err.column) == (3, "item_id")
    ok = validate_items(items(item_id=["1", "2", "i" * 500]))  # exactly 500 is accepted
    assert ok.height == 3


def test_profile_written_as_csv_reads_back():
    # a profile CSV holds "true"/"false" text in `primary`; reading it back must give booleans
    prof = pl.DataFrame(
        {"judge": ["j", "j"], "benchmark": ["b", "b"], "condition": ["C7", "C7"], "metric": ["strict", "consistency"],
         "value": [60.0, 80.0], "primary": ["true", "False"]}
    )
    out = validate_profile(prof)
    assert out["primary"].to_list() == [True, False]
    err = raised(validate_profile, prof.with_columns(pl.lit("maybe").alias("primary")))
    assert (err.row, err.column, err.got) == (1, "primary", "maybe")


def test_validated_tables_carry_no_helper_column():
    # the file-row bookkeeping must not leak into the tables every page reads
    from cap_core.schema import ITEMS_SCHEMA, JUDGMENTS_SCHEMA

    its = validate_items(items(), rows=[2, 4, 6])
    assert its.columns == list(ITEMS_SCHEMA)
    assert validate_judgments(judgments(), its).columns == list(JUDGMENTS_SCHEMA)
    assert validate_declarations(pl.DataFrame({"benchmark": ["b"], "condition": ["C7"], "status": ["direct"]})).columns \
        == ["benchmark", "condition", "status", "operator", "selector", "values", "reference"]


def test_declared_variants_are_known_to_the_items_check():
    from cap_core.schema import declared_variants

    decl = pl.DataFrame({"benchmark": ["b", "b"], "condition": ["C5", "C7"], "status": ["augmented", "direct"],
                         "selector": ["variant", "order"], "values": [["paraphrased"], ["AB", "BA"]],
                         "reference": [["plain"], []]})
    assert declared_variants(validate_declarations(decl)) == ("paraphrased", "plain")
    its = items(base_item_id=["1", "1", "3"], variant=["plain", "paraphrased", None])
    ds = Dataset.build(its, judgments(), decl)
    assert ds.items["variant"].to_list() == ["plain", "paraphrased", "original"]
    err = raised(Dataset.build, its, judgments())  # without the declaration the name is unknown
    assert (err.row, err.column, err.got) == (2, "variant", "paraphrased")


def test_zero_lengths_and_costs_are_legal():
    its = validate_items(items(len_a=[0, None, 5], len_b=[0, 0, 0]))
    assert its["len_a"].to_list() == [0, None, 5]
    jd = validate_judgments(judgments(cost_usd=[0.0, None, 0.5], latency_s=[0.0, 1.0, None], tokens=[0, 10, None]))
    assert jd["cost_usd"].to_list() == [0.0, None, 0.5]
