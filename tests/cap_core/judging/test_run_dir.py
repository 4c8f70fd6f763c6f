"""The run directory: failures.csv with a fixed schema, the profile's condition membership, and
formula-safe CSV."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl

from cap_core.cli.main import main
from cap_core.judging.run import RunSpec, run_judging
from cap_core.judging.testbed import load_testbed
from tests.cap_core.conftest import make_items


def test_a_first_failure_after_many_rows_still_writes_every_output(server, fake_key, tmp_path):
    # 60 good items, then one that fails: with one worker the failure is the last of 122 calls,
    # so the failure table has well over 100 rows without a reason before the first reason
    items = tmp_path / "items.parquet"
    make_items(["ok"] * 60 + ["auth"]).write_parquet(items)
    code = main(["judge", "--items", str(items), "--model", "openai/gpt-4o-mini", "--api-base", server.url,
                 "--concurrency", "1", "--cache", str(tmp_path / "c"), "--out", str(tmp_path / "o")])
    assert code == 0
    table = pl.read_csv(tmp_path / "o" / "failures.csv")
    c7 = table.filter(pl.col("condition") == "C7").row(0, named=True)
    assert (c7["calls"], c7["ok"], c7["failed"]) == (122, 120, 2)
    assert "Authentication" in c7["example_reason"]
    stats = json.loads((tmp_path / "o" / "run.json").read_text())["stats"]
    assert stats["requests"] == 122


def _conditions(out: Path) -> dict[str, int]:
    t = pl.read_csv(out / "failures.csv")
    return dict(zip(t["condition"], t["calls"]))


def test_failure_table_conditions_are_those_the_profile_measures(tmp_path):
    from cap_core.dataset import load_dataset
    from cap_core.profile.coverage import coverage_matrix

    # the law domain of the testbed: 12 base items x 3 variants, 3 items per planted error type
    items = load_testbed().filter(pl.col("subset") == "law")
    run_judging(items, RunSpec(judges=["local/first"], evaluator="local/rationale-check"),
                cache_dir=tmp_path / "c", out_dir=tmp_path / "o")
    # calls per condition, counted by hand: C1-C4 = 3 plain items x 2 orders; C5 = 12 plain + 12 polished
    # items x 2 orders (C6 likewise with the padded items); C7 = all 36 items x 2; C8 = 36 items in order AB
    assert _conditions(tmp_path / "o") == {"C1": 6, "C2": 6, "C3": 6, "C4": 6, "C5": 48, "C6": 48, "C7": 72, "C8": 36}

    # plain items only, no planted error, no evaluator: the profile can measure C7 alone, and the
    # failure table lists the same conditions (C5, C6 and C8 have no units here)
    run_judging(make_items(["x"] * 4), RunSpec(judges=["local/first"]), cache_dir=tmp_path / "c",
                out_dir=tmp_path / "o2")
    cov = coverage_matrix(load_dataset(tmp_path / "o2"))
    assert set(cov.filter(pl.col("status") != "unavailable")["condition"]) == {"C7"}
    assert _conditions(tmp_path / "o2") == {"C7": 8}

    # one order only: no C7 (it needs both orders), C8 when the rationales are evaluated
    run_judging(make_items(["x"] * 4), RunSpec(judges=["local/first"], orders=("AB",),
                                               evaluator="local/rationale-check"),
                cache_dir=tmp_path / "c", out_dir=tmp_path / "o3")
    assert _conditions(tmp_path / "o3") == {"C8": 4}


def test_failure_table_counts_failed_calls_of_every_condition(tmp_path):
    # a judge that never answers still gets its per-condition counts (all failed), from the run's design
    items = load_testbed().filter(pl.col("subset") == "law")
    run_judging(items, RunSpec(judges=["local/nosuch"], stop_after=0, orders=("AB", "BA")),
                cache_dir=tmp_path / "c", out_dir=tmp_path / "o")
    t = pl.read_csv(tmp_path / "o" / "failures.csv")
    assert dict(zip(t["condition"], t["failed"])) == {"C1": 6, "C2": 6, "C3": 6, "C4": 6, "C5": 48, "C6": 48, "C7": 72}
    assert (t["ok"] == 0).all()


def test_failures_csv_neutralises_formulas(tmp_path):
    from cap_core.judging.client import CallRecord
    from cap_core.judging.run import _call_row
    from cap_core.judging.run_dir import write_run

    items = make_items(["x", "y"])
    reasons = iter(["=HYPERLINK(\"http://x\",\"y\")", "  @SUM(1+1)", "+1+1", "-2+3"])
    rows = [_call_row(r, "=cmd|' /C calc'!A0", order, CallRecord(f"k{r['item_id']}{order}", "m", "failed",
                                                                  error=next(reasons)))
            for r in items.iter_rows(named=True) for order in ("AB", "BA")]
    calls = pl.DataFrame(rows, infer_schema_length=None)
    write_run(tmp_path, items, calls, {}, {})
    text = (tmp_path / "failures.csv").read_text(encoding="utf-8")
    table = pl.read_csv(tmp_path / "failures.csv")
    assert table.height >= 1 and set(table["judge"]) == {"'=cmd|' /C calc'!A0"}
    assert all(r.startswith("'=HYPERLINK") for r in table["example_reason"])
    assert "\n=" not in text and ",=" not in text and ",+" not in text
