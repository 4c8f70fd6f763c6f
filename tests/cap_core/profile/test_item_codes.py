"""Item codes (cap_core.profile.item_codes) answer what the string columns answer.

The bootstrap strata are defined on strings (units.load_units: a base item's stratum is the
set of its items' (subset, failure_type, variant, extra) values). The codes compute them from
integers; here every label is checked against the same rule evaluated directly on the strings
with polars (concatenate, group, dense rank), on tables with the awkward cases: nulls, the
empty string, values holding the separator characters or a control character, base items
with one and with several items.
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from cap_core.bootstrap import base_index
from cap_core.profile.item_codes import benchmark_codes, code_items
from cap_core.profile.units import base_strata

VALUES = [None, "", "a", "a\tb", "a b", "b", "\x00", "Z", "é", "a\x1fb", "ab", "\u2603", "a\x1e", "all"]
COLUMNS = ("subset", "failure_type", "variant", "flags")


def _table(rng, n_base: int, several: bool) -> pl.DataFrame:
    per = rng.integers(1, 4, size=n_base) if several else np.ones(n_base, dtype=int)
    ids = np.repeat([f"b{i:03d}" for i in rng.permutation(n_base)], per)
    k = int(rng.integers(2, len(VALUES) + 1))
    cols = {c: [VALUES[i] for i in rng.integers(0, k, size=ids.size)] for c in COLUMNS}
    return pl.DataFrame({"benchmark": "x", "base_item_id": ids, "gold": "A", **cols},
                        schema={c: pl.String for c in ("benchmark", "base_item_id", "gold", *COLUMNS)})


def _strata_from_strings(items: pl.DataFrame, extra: tuple[str, ...]) -> np.ndarray:
    """The documented rule on the strings themselves."""
    base, n_base = base_index(items["base_item_id"])
    cols = list(dict.fromkeys(("subset", "failure_type", "variant", *extra)))
    key = pl.concat_str([pl.col(c).fill_null("\x00") for c in cols], separator="\x1f")
    items = items.with_columns(pl.Series("base_idx", base))
    if items.height == n_base:
        out = np.empty(n_base, dtype=np.uint32)
        out[base] = items.select(key.rank("dense")).to_series().to_numpy()
        return out
    return (items.group_by("base_idx").agg(key.unique().sort().str.join("\x1e").alias("k"))
            .sort("base_idx").select(pl.col("k").rank("dense")).to_series().to_numpy())


@pytest.mark.parametrize("several", [False, True])
def test_strata_follow_the_string_rule(several):
    rng = np.random.default_rng(11 if several else 12)
    for trial in range(120):
        items = _table(rng, int(rng.integers(1, 40)), several)
        extra = (("flags",), (), ("subset",))[trial % 3]
        want = _strata_from_strings(items, extra)
        got = base_strata(benchmark_codes(items), extra)
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)


def test_keys_that_collide_as_strings_share_a_stratum():
    # ("a\x1fb", "c") and ("a", "b\x1fc") join to the same key string, and a null joins as "\x00"
    items = pl.DataFrame({"benchmark": "x", "base_item_id": ["1", "2", "3", "4"], "gold": "A",
                          "subset": ["a\x1fb", "a", None, "\x00"], "failure_type": ["c", "b\x1fc", "d", "d"],
                          "variant": "v", "flags": None},
                         schema={c: pl.String for c in ("benchmark", "base_item_id", "gold", *COLUMNS)})
    got = base_strata(benchmark_codes(items))
    assert got[0] == got[1] and got[2] == got[3] and len(set(got.tolist())) == 2


def test_codes_answer_the_column_questions():
    rng = np.random.default_rng(3)
    items = pl.concat([_table(rng, 30, True).with_columns(pl.lit(b).alias("benchmark")) for b in ("q", "p")])
    got = code_items(items)
    assert list(got) == ["p", "q"]
    for bench, (rows, codes) in got.items():
        part = items.filter(pl.col("benchmark") == bench)
        np.testing.assert_array_equal(rows, np.flatnonzero(items["benchmark"].to_numpy() == bench))
        np.testing.assert_array_equal(codes.base, base_index(part["base_item_id"])[0])
        for c in COLUMNS:
            for wanted in (["a"], ["", "\x00"], ["all", "Z", "nope"]):
                np.testing.assert_array_equal(codes.mask(c, wanted),
                                              part.select(pl.col(c).is_in(wanted).fill_null(False)).to_series())
            assert codes.present(c) == sorted(part[c].drop_nulls().unique().to_list())
            assert codes.distinct(c) == set(part[c].unique().to_list())
        half = np.arange(0, part.height, 2)
        taken = codes.take(half)
        np.testing.assert_array_equal(taken.mask("variant", ["b"]), codes.mask("variant", ["b"])[half])


def _plan_inputs(items: pl.DataFrame):
    from cap_core.dataset import Dataset
    from cap_core.schema import DECLARATION_SCHEMA

    judgments = pl.DataFrame({"judge": "j", "benchmark": items["benchmark"][0], "item_id": ["i0"], "order": ["AB"],
                              "rationale_supported": pl.Series([None], dtype=pl.Int8)})
    return Dataset(items, judgments, pl.DataFrame(schema=DECLARATION_SCHEMA))


@pytest.mark.parametrize("seed", range(6))
def test_plans_counted_from_codes_or_from_the_table_agree(seed):
    # plan_benchmark counts items through the integer codes (the profile) or through polars queries (the
    # judging commands, which plan without numpy): the same plans, on tables with nulls and paired variants
    from cap_core.profile.coverage import plan_benchmark

    rng = np.random.default_rng(seed)
    items = _table(rng, 40, several=True)
    variants = ["plain", "polished", "length_padded", None]
    items = items.with_columns(
        pl.Series("variant", [variants[i] for i in rng.integers(0, 4, items.height)], dtype=pl.String),
        pl.Series("failure_type", [["factual_fabrication", "logical_reversal", None, "scope_overclaim"][i]
                                   for i in rng.integers(0, 4, items.height)], dtype=pl.String))
    ds = _plan_inputs(items)
    facts = {"orders": ["AB", "BA"], "n8": 0}
    from_table = plan_benchmark(ds, "x", facts)
    from_codes = plan_benchmark(ds, "x", facts, codes=benchmark_codes(items))
    assert from_table == from_codes
    assert {p.kind for p in from_table.values()} >= {"content", "paired", "position"}  # every kind counted


def test_plans_of_the_shipped_data_agree_both_ways(default_data_dir):
    from cap_core.dataset import load_dataset
    from cap_core.profile.coverage import judgment_facts, plan_benchmark

    ds = load_dataset(default_data_dir)
    facts = judgment_facts(ds.judgments)
    for bench in ds.benchmarks:
        items_b = ds.items.filter(pl.col("benchmark") == bench)
        assert plan_benchmark(ds, bench, facts[bench]) == plan_benchmark(ds, bench, facts[bench],
                                                                         codes=benchmark_codes(items_b)), bench
