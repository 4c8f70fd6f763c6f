"""CLI round trip on a hand-computed fixture, and bad input through the CLI."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest

from cap_core.cli.main import main

ROOT = Path(__file__).resolve().parents[3]

ITEMS = "benchmark,item_id,gold,subset\nt,1,A,x\nt,2,B,x\nt,3,A,y\n"
# Judge J, verdicts already in the original letters:
#   item 1: AB A (right), BA A (right)        -> pa 1.0, strict 1, consistent
#   item 2: AB B (right), BA A (wrong)        -> pa 0.5, strict 0, inconsistent
#   item 3: AB tie, BA unparsed (never right) -> pa 0.0, strict 0, inconsistent
# overall pa = (1 + 0.5 + 0) / 3 = 50.0 %; C7 strict = 1/3 = 33.33 %;
# C7 pure consistency = 1/3; n_excluded (overall) = 1 (item 3).
JUDGMENTS = (
    "judge,benchmark,item_id,order,verdict\n"
    "J,t,1,AB,A\nJ,t,1,BA,A\nJ,t,2,AB,B\nJ,t,2,BA,A\nJ,t,3,AB,tie\nJ,t,3,BA,unparsed\n"
)


@pytest.fixture()
def tables(tmp_path: Path) -> tuple[Path, Path]:
    items = tmp_path / "items.csv"
    judgments = tmp_path / "judgments.csv"
    items.write_text(ITEMS)
    judgments.write_text(JUDGMENTS)
    return items, judgments


def _cell(profile: pl.DataFrame, condition: str, metric: str) -> pl.DataFrame:
    return profile.filter(
        (pl.col("condition") == condition) & (pl.col("metric") == metric) & (pl.col("subset") == "all")
    )


def test_import_profile_coverage_round_trip(tables, tmp_path):
    items, judgments = tables
    data = tmp_path / "ds"
    assert main(["import", "table", str(items), "--judgments", str(judgments), "--out", str(data)]) == 0
    assert (data / "items.parquet").exists() and (data / "judgments.parquet").exists()

    out = tmp_path / "profile.csv"
    assert main(["profile", "--data", str(data), "--bootstrap", "200", "--seed", "1", "--out", str(out)]) == 0
    prof = pl.read_csv(out)
    overall = _cell(prof, "overall", "pa")
    assert overall.height == 1
    assert overall["value"][0] == pytest.approx(50.0)
    assert overall["n_items"][0] == 3
    assert overall["n_excluded"][0] == 1
    assert overall["ci_low"][0] <= 50.0 <= overall["ci_high"][0]
    assert _cell(prof, "C7", "strict")["value"][0] == pytest.approx(100 / 3)
    assert _cell(prof, "C7", "consistency")["value"][0] == pytest.approx(100 / 3)

    cov_out = tmp_path / "coverage.csv"
    assert main(["coverage", "--data", str(data), "--out", str(cov_out)]) == 0
    cov = pl.read_csv(cov_out)
    assert cov.height == 8  # one benchmark x C1..C8
    status = dict(zip(cov["condition"], cov["status"]))
    assert status["C7"] == "direct"  # both orders of every item are present
    assert status["C1"] == "unavailable"  # no failure types, nothing declared


def test_same_seed_same_profile(tables, tmp_path):
    items, judgments = tables
    data = tmp_path / "ds"
    main(["import", "table", str(items), "--judgments", str(judgments), "--out", str(data)])
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    main(["profile", "--data", str(data), "--bootstrap", "300", "--seed", "7", "--out", str(a)])
    main(["profile", "--data", str(data), "--bootstrap", "300", "--seed", "7", "--out", str(b)])
    assert a.read_bytes() == b.read_bytes()


def _run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "cap_core", *args], cwd=ROOT, capture_output=True, text=True, timeout=120
    )


def test_bad_verdict_exits_nonzero_with_location(tables, tmp_path):
    items, judgments = tables
    judgments.write_text(JUDGMENTS.replace("J,t,2,BA,A", "J,t,2,BA,maybe"))
    res = _run_cli("import", "table", str(items), "--judgments", str(judgments), "--out", str(tmp_path / "x"))
    assert res.returncode == 2
    assert "Traceback" not in res.stderr
    # the fourth data row holds the bad verdict
    assert "row 4" in res.stderr and "'verdict'" in res.stderr and "maybe" in res.stderr
    assert "file judgments.csv" in res.stderr
    assert not (tmp_path / "x").exists()


def test_missing_column_suggests_rename(tables, tmp_path):
    items, judgments = tables
    items.write_text(ITEMS.replace("item_id", "itemid"))
    res = _run_cli("import", "table", str(items), "--judgments", str(judgments), "--out", str(tmp_path / "x"))
    assert res.returncode == 2
    assert "rename column 'itemid' to 'item_id'" in res.stderr


def test_missing_dataset_dir(tmp_path):
    res = _run_cli("profile", "--data", str(tmp_path / "nope"), "--out", str(tmp_path / "p.csv"))
    assert res.returncode == 2
    assert "dataset directory not found" in res.stderr and "Traceback" not in res.stderr


def test_duplicate_judgment_key(tables, tmp_path):
    items, judgments = tables
    judgments.write_text(JUDGMENTS + "J,t,1,AB,B\n")
    res = _run_cli("import", "table", str(items), "--judgments", str(judgments), "--out", str(tmp_path / "x"))
    assert res.returncode == 2
    assert "duplicate key" in res.stderr


def test_single_joined_table(tmp_path):
    # the same fixture as above, as one table: every judgment row carries its item's gold
    gold = {"1": "A", "2": "B", "3": "A"}
    lines = ["judge,benchmark,item_id,order,verdict,gold"]
    for row in JUDGMENTS.splitlines()[1:]:
        lines.append(row + "," + gold[row.split(",")[2]])
    joined = tmp_path / "joined.csv"
    joined.write_text("\n".join(lines) + "\n")
    data = tmp_path / "ds"
    assert main(["import", "table", str(joined), "--out", str(data)]) == 0
    out = tmp_path / "p.csv"
    assert main(["profile", "--data", str(data), "--bootstrap", "200", "--out", str(out)]) == 0
    assert _cell(pl.read_csv(out), "overall", "pa")["value"][0] == pytest.approx(50.0)


def test_too_few_resamples_and_unwritable_out(tables, tmp_path):
    items, judgments = tables
    data = tmp_path / "ds"
    main(["import", "table", str(items), "--judgments", str(judgments), "--out", str(data)])
    res = _run_cli("profile", "--data", str(data), "--bootstrap", "1", "--out", str(tmp_path / "p.csv"))
    assert res.returncode == 2 and "argument --bootstrap: expected an integer from 100" in res.stderr
    # a folder that refuses new files is found before anything is read or written, naming the option
    res = _run_cli("import", "table", str(items), "--judgments", str(judgments), "--out", "/proc/nowhere")
    assert res.returncode == 2 and "cannot be written there" in res.stderr and "argument `--out`" in res.stderr
    assert "Traceback" not in res.stderr


# ---------------------------------------------------------------------------------------------
# Every failure a user can cause exits 2 with one line (issue 10, §4)
# ---------------------------------------------------------------------------------------------


def _one_line_exit_2(res: subprocess.CompletedProcess) -> str:
    assert res.returncode == 2, res.stderr
    assert "Traceback" not in res.stderr
    lines = [line for line in res.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, res.stderr
    return lines[0]


def test_bootstrap_so_large_it_would_exhaust_memory_states_the_limit(tables, tmp_path):
    from cap_core.config import MAX_RESAMPLES

    items, judgments = tables
    data = tmp_path / "ds"
    main(["import", "table", str(items), "--judgments", str(judgments), "--out", str(data)])
    res = _run_cli("profile", "--data", str(data), "--bootstrap", str(10**12), "--out", str(tmp_path / "p.csv"))
    line = _one_line_exit_2(res)
    assert "argument --bootstrap: expected an integer from 100 to" in line and f"{MAX_RESAMPLES:,}" in line
    assert not (tmp_path / "p.csv").exists()


@pytest.mark.parametrize("case", ["semicolons", "binary", "deep_json", "missing_file", "directory_as_items",
                                  "unknown_option", "bad_int", "missing_required"])
def test_user_errors_exit_2_with_one_line(tmp_path, case):
    out = str(tmp_path / "ds")
    if case == "semicolons":
        f = tmp_path / "all.csv"
        f.write_text("benchmark;item_id;gold;judge;order;verdict\nb;1;A;j;AB;A\n")
        args, expect = ("import", "table", str(f), "--out", out), "';'"
    elif case == "binary":
        f = tmp_path / "all.csv"
        f.write_bytes(bytes(range(256)) * 8)
        args, expect = ("import", "table", str(f), "--out", out), "not a text table"
    elif case == "deep_json":
        f = tmp_path / "all.json"
        f.write_text("[" * 50_000 + "]" * 50_000)
        args, expect = ("import", "table", str(f), "--out", out), "nested"
    elif case == "missing_file":
        args, expect = ("import", "table", str(tmp_path / "nope.csv"), "--out", out), "not found"
    elif case == "directory_as_items":
        (tmp_path / "dir.csv").mkdir()
        args, expect = ("import", "table", str(tmp_path / "dir.csv"), "--out", out), "dir.csv"
    elif case == "unknown_option":
        args, expect = ("profile", "--data", out, "--out", "p.csv", "--bootstraps", "9"), "--bootstraps"
    elif case == "bad_int":
        args, expect = ("profile", "--data", out, "--out", "p.csv", "--bootstrap", "1e9"), "--bootstrap"
    else:
        args, expect = ("profile", "--out", "p.csv"), "--data"
    line = _one_line_exit_2(_run_cli(*args))
    assert line.startswith("error: ") and expect in line


def test_an_output_path_the_system_refuses_exits_2(tmp_path):
    # --out inside a regular file: the judging run's folder cannot be made; refused before any call,
    # naming the option and the file in the way (cap_core.cli.options.check_paths)
    blocker = tmp_path / "file.csv"
    blocker.write_text("x\n")
    res = _run_cli("judge", "--items", "testbed", "--model", "local/longer", "--cache", str(tmp_path / "cache"),
                   "--out", str(blocker / "run"), "--limit", "1")
    line = _one_line_exit_2(res)
    assert str(blocker / "run") in line and f"{blocker} is a file" in line and "argument `--out`" in line
    assert not (tmp_path / "cache").exists()


@pytest.mark.parametrize("argv,pattern", [
    (["cascade", "--data", "data/default", "--benchmark", "judgebench", "--cheap", "x", "--fallback", "y",
      "--seed", "-3", "--out", "o.csv"], r"argument --seed: expected an integer from 0 to 4,294,967,295, got -3"),
    (["cascade", "--data", "data/default", "--benchmark", "judgebench", "--cheap", "x", "--fallback", "y",
      "--splits", "1000000000", "--out", "o.csv"], r"argument --splits: expected an integer from 1 to 10,000"),
    (["audit", "--labels", "x.csv", "--permutations", "100000000", "--out", "o.csv"],
     r"too many label permutations \[argument `--permutations`\]: expected at most 100,000"),
    (["audit", "--labels", "x.csv", "--seed", "4294967296", "--out", "o.csv"], r"argument --seed: expected an integer"),
])
def test_counts_and_seeds_are_bounded_by_the_parser(argv, pattern, capsys):
    import subprocess
    import sys

    r = subprocess.run([sys.executable, "-m", "cap_core", *argv], capture_output=True, text=True)
    assert r.returncode == 2
    err = r.stderr
    assert re.search(pattern, err) and err.count("\n") == 1


@pytest.mark.parametrize("argv, option", [
    (["robustness", "--published"], "--c8-out"),
    (["confidence", "--data", "data/default", "--benchmark", "judgebench", "--judge", "o1-mini (arena_hard)"],
     "--bands-out"),
])
def test_a_second_output_that_is_a_folder_writes_nothing(tmp_path, capsys, argv, option):
    """Every ``--*-out`` path that cannot be a file is refused before the first output is written."""
    out, folder = tmp_path / "first.csv", tmp_path / "a_folder"
    folder.mkdir()
    assert main([*argv, "--out", str(out), option, str(folder)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("error:") and option in err[-1]
    assert not out.exists()


@pytest.mark.parametrize("argv, line", [
    # a misspelt option: the verb's help and the closest of that verb's options
    (["choose", "--data", "d", "--benchmak", "judgebench", "--out", "s.csv"],
     "error: unrecognized arguments: --benchmak judgebench; did you mean --benchmark? (see `{prog} choose --help`)"),
    (["choose", "--data", "d", "--out", "s.csv", "--prset=balanced"],
     "error: unrecognized arguments: --prset=balanced; did you mean --preset? (see `{prog} choose --help`)"),
    # a sub-verb's option: that sub-verb's help and options (testbed build, probes verify)
    (["testbed", "build", "q.csv", "--out", "o", "--generatr", "rules"],
     "error: unrecognized arguments: --generatr rules; did you mean --generator? (see `{prog} testbed build --help`)"),
    # a positional typed as an option, and two unknown words: each hint names its word
    (["testbed", "build", "--questions", "q.csv", "--out", "o", "--dryrun"],
     "error: unrecognized arguments: --questions --dryrun; QUESTIONS is given by position, without --questions; "
     "--dryrun: did you mean --dry-run? (see `{prog} testbed build --help`)"),
    # a word that shares letters with an option but is not a slip of it gets no guess (--regen /
    # --regenerations: 0.64 < 0.75); a slip of a positional's name is said as the positional
    (["testbed", "build", "q.csv", "--out", "o", "--regen", "x"],
     "error: unrecognized arguments: --regen x (see `{prog} testbed build --help`)"),
    (["testbed", "build", "q.csv", "--out", "o", "--questionz", "x"],
     "error: unrecognized arguments: --questionz x; QUESTIONS is given by position, without --questionz "
     "(see `{prog} testbed build --help`)"),
    # an invalid choice: the closest allowed value (the formats registry's kinds)
    (["import", "--format", "alpaca", "x", "--out", "o"],
     "error: argument --format: invalid choice: 'alpaca' (choose from 'table', 'llmbar', 'judgebench', 'pandalm', "
     "'alpacaeval', 'mtbench', 'arena-hard', 'inspect', 'autoj', 'rewardbench'); did you mean 'alpacaeval'? "
     "(see `{prog} import --help`)"),
])
def test_a_misspelt_option_or_choice_gets_the_closest_and_the_verbs_help(argv, line, capsys):
    with pytest.raises(SystemExit) as stop:
        main(argv)
    err = capsys.readouterr().err.strip().splitlines()
    prog = "cap" if Path(sys.argv[0]).name == "cap" else "python -m cap_core"
    assert stop.value.code == 2 and err == [line.format(prog=prog)]


def test_an_unknown_option_far_from_every_option_gets_no_guess(capsys):
    with pytest.raises(SystemExit):
        main(["choose", "--data", "d", "--out", "s.csv", "--zzz"])
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: unrecognized arguments: --zzz (see `") and "did you mean" not in err
