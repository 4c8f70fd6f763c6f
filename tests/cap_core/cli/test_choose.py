"""``choose``: the leaderboard file recomputes, and the gates exit 0, 1 and 2 with one line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest

from cap_core import load_dataset, save_dataset
from cap_core.choice.exports import recompute_scores
from cap_core.cli.main import main
from cap_core.dataset import Dataset

ROOT = Path(__file__).resolve().parents[3]
JB = "judgebench"
JUDGE = "o1-mini (arena_hard)"


def run(argv: list[str]) -> int:
    try:
        return main(argv)
    except SystemExit as stop:  # a failed gate stops with status 1
        return int(stop.code)


@pytest.fixture(scope="module")
def data(default_data_dir, tmp_path_factory) -> tuple[Path, Path]:
    """judgebench as shipped, and a copy where JUDGE gets a fifth of its right verdicts wrong."""
    root = tmp_path_factory.mktemp("choose")
    ds = load_dataset(default_data_dir).select(benchmarks=[JB])
    good = save_dataset(ds, root / "good")
    gold = ds.items.select("item_id", "gold")
    jm = ds.judgments.join(gold, on="item_id").with_row_index("_r")
    flip = (pl.col("judge") == JUDGE) & (pl.col("verdict") == pl.col("gold")) & (pl.col("_r") % 5 == 0)
    jm = jm.with_columns(pl.when(flip).then(pl.when(pl.col("gold") == "A").then(pl.lit("B")).otherwise(pl.lit("A")))
                         .otherwise(pl.col("verdict")).alias("verdict")).drop("_r", "gold")
    worse = save_dataset(Dataset(ds.items, jm, ds.declarations), root / "worse")
    return good, worse


def test_leaderboard_written_and_recomputed(data, tmp_path, capsys):
    out, prof = tmp_path / "s.csv", tmp_path / "p.csv"
    code = run(["choose", "--data", str(data[0]), "--weights", "C1=1,C7=2", "--min", "C7=40",
                "--out", str(out), "--profile-out", str(prof), "--bootstrap", "200"])
    assert code == 0
    scores = pl.read_csv(out, infer_schema_length=None)
    assert scores["w_requested_C7"][0] == 2.0 and scores["filters"][0] == "C7=40"
    # in force: C1 and C7 measured for every judge here, weighed 1:2 -> shares 1/3 and 2/3, nothing else
    ranked = scores.filter(pl.col("score").is_not_null())
    assert ranked["w_in_force_C1"].to_list() == pytest.approx([1 / 3] * ranked.height)
    assert ranked["w_in_force_C7"].to_list() == pytest.approx([2 / 3] * ranked.height)
    assert all(ranked[f"w_in_force_{c}"].sum() == 0 for c in ("C2", "C3", "C4", "C5", "C6", "C8"))
    assert "Qwen3-8B (rubric)" not in scores["judge"].to_list()  # C7 strict 29.1 < 40
    assert "filtered out: C7 strict 29.1 < 40" in capsys.readouterr().err
    got = recompute_scores(pl.read_csv(prof, infer_schema_length=None), scores).filter(pl.col("score").is_not_null())
    assert (got["recomputed"] - got["score"]).abs().max() < 1e-9


def test_threshold_gates_exit_1_with_one_line(data, tmp_path, capsys):
    base = ["choose", "--data", str(data[0]), "--weights", "C1=1,C7=2", "--out", str(tmp_path / "s.csv"),
            "--bootstrap", "200"]
    assert run(base + ["--fail-below", f"{JUDGE}=50"]) == 0  # its score is 61.5
    capsys.readouterr()
    assert run(base + ["--fail-below", f"{JUDGE}=70"]) == 1
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err.startswith("gate failed: o1-mini (arena_hard) weighted score 61.5 < 70")
    assert (tmp_path / "s.csv").is_file()  # the leaderboard is written before the gate fails
    assert run(base + ["--fail-below", f"{JUDGE}:C7=80"]) == 1
    assert "C7 strict 58.0 < 80" in capsys.readouterr().err


def test_baseline_gate_paired(data, tmp_path, capsys):
    lock = tmp_path / "b.json"
    common = ["--weights", "C1=1,C7=2", "--bootstrap", "300", "--benchmark", JB]
    assert run(["choose", "--data", str(data[0]), *common, "--out", str(tmp_path / "a.csv"), "--lock", str(lock)]) == 0
    doc = json.loads(lock.read_text())
    assert doc["format"] == "cap-choice-baseline/1" and doc["weights"]["C7"] == 2.0 and doc["judgments"]
    # the same data passes against its own baseline; the worse copy fails, paired on the 350 items
    assert run(["choose", "--data", str(data[0]), *common, "--out", str(tmp_path / "b.csv"),
                "--baseline", str(lock)]) == 0
    capsys.readouterr()
    assert run(["choose", "--data", str(data[1]), *common, "--out", str(tmp_path / "c.csv"),
                "--baseline", str(lock), "--gate-judge", JUDGE]) == 1
    line = capsys.readouterr().err.strip().splitlines()[-1]
    assert line.startswith(f"gate failed: significantly below the baseline: {JUDGE}")
    assert "on the 350 shared items (paired difference -" in line
    # other weights than the baseline's: bad input
    assert run(["choose", "--data", str(data[1]), "--weights", "C1=1", "--out", str(tmp_path / "d.csv"),
                "--baseline", str(lock), "--benchmark", JB]) == 2
    # proportional weights (2:4 is 1:2) are the same choice: the gate runs and the same data passes
    capsys.readouterr()
    assert run(["choose", "--data", str(data[0]), "--weights", "C1=2,C7=4", "--bootstrap", "300", "--benchmark", JB,
                "--out", str(tmp_path / "e.csv"), "--baseline", str(lock)]) == 0


@pytest.mark.parametrize("extra, where", [
    (["--weights", "C1=1,C9=2"], "--weights"),
    (["--weights", "C1=-1"], "--weights"),
    (["--preset", "nonsense"], "--preset"),
    (["--min", "C7>60"], "--min"),
    (["--fail-below", "no such judge=50"], "--fail-below"),
    (["--fail-below", "o1-mini=abc"], "--fail-below"),
    (["--fail-below", f"{JUDGE}=nan"], "--fail-below"),  # nan < x is never true: the gate would always pass
    (["--fail-below", f"{JUDGE}:C7=-inf"], "--fail-below"),
    (["--fail-below", f"{JUDGE}=inf"], "--fail-below"),
    (["--benchmark", "nope"], "--benchmark"),
    (["--level", "nan"], "--level"),  # nan != nan: the option was named `level`, not --level
])
def test_bad_input_exits_2_with_one_line(data, tmp_path, capsys, extra, where):
    code = run(["choose", "--data", str(data[0]), "--out", str(tmp_path / "s.csv"), *extra])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2
    assert err[-1].startswith("error:") and where in err[-1]


def test_bad_baseline_file_exits_2(data, tmp_path, capsys):
    bad = tmp_path / "b.json"
    bad.write_text("{not json")
    assert run(["choose", "--data", str(data[0]), "--out", str(tmp_path / "s.csv"), "--baseline", str(bad)]) == 2
    # the one JSON reader of users' files (cap_core.io.parse_json)
    assert "malformed JSON in the baseline file" in capsys.readouterr().err


def test_help_documents_exit_codes_and_process_status(data, tmp_path):
    help_text = subprocess.run([sys.executable, "-m", "cap_core", "choose", "--help"], cwd=ROOT, capture_output=True,
                               text=True).stdout
    assert "exit codes:" in help_text and "1  a gate failed" in help_text and "2  bad input" in help_text
    proc = subprocess.run([sys.executable, "-m", "cap_core", "choose", "--data", str(data[0]), "--weights", "C1=1",
                           "--out", str(tmp_path / "s.csv"), "--fail-below", f"{JUDGE}=99", "--bootstrap", "100"],
                          cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 1 and proc.stderr.strip().splitlines()[-1].startswith("gate failed:")


def test_report_verb_writes_an_offline_html_with_the_leaderboard(data, default_data_dir, tmp_path, capsys):
    out = tmp_path / "r.html"
    assert run(["report", "--data", str(data[0]), "--benchmark", JB, "--preset", "balanced", "--out", str(out),
                "--bootstrap", "100"]) == 0
    text = out.read_text(encoding="utf-8")
    assert 'id="leaderboard"' in text and "<script src=" not in text
    assert text.count("<tr><td>") == 8  # the eight computed JudgeBench judges
    # the wide leaderboard scrolls inside its own box: the page keeps its width (checked in chromium at 1,200 px)
    assert '<div class="wide"><table id="leaderboard">' in text and ".wide{overflow-x:auto}" in text
    # the shipped data hold six benchmarks: a report describes one
    assert run(["report", "--data", str(default_data_dir), "--preset", "balanced", "--out", str(out)]) == 2
    assert "exactly one --benchmark" in capsys.readouterr().err


@pytest.mark.parametrize("option", ["--profile-out", "--html", "--lock"])
def test_a_bad_later_output_path_writes_nothing(data, tmp_path, capsys, option):
    """A directory where a later output file should go is refused before the scores CSV is written."""
    out, folder = tmp_path / "s.csv", tmp_path / "a_folder"
    folder.mkdir()
    code = run(["choose", "--data", str(data[0]), "--benchmark", JB, "--weights", "C1=1", "--out", str(out),
                option, str(folder), "--bootstrap", "100"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and err[-1].startswith("error:") and option in err[-1]
    assert not out.exists()


@pytest.mark.parametrize("verb, out", [("choose", "s.csv"), ("report", "r.html")])
def test_weights_no_judge_can_be_scored_on_exit_2_before_writing(data, tmp_path, capsys, verb, out):
    """JudgeBench measures C1, C2 and C7 (CAP Table 2); legal and policy weighs C4 alone (CAP §5), so
    no judge has a score: an empty leaderboard would pass every gate."""
    code = run([verb, "--data", str(data[0]), "--benchmark", JB, "--preset", "legal and policy",
                "--out", str(tmp_path / out), "--bootstrap", "100"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and not (tmp_path / out).exists()
    assert "weighs C4, which is not measured on judgebench (it measures C1, C2, C7)" in err[0]
    # the preset the dashboard offers: balanced is the only one with a C4 weight (cosine 1/sqrt(8))
    assert "--preset 'balanced'" in err[0] and "argument `--preset`" in err[0]


def test_minimums_that_remove_every_scored_judge_exit_2(data, tmp_path, capsys):
    code = run(["choose", "--data", str(data[0]), "--benchmark", JB, "--weights", "C1=1", "--min", "C1=99",
                "--out", str(tmp_path / "s.csv"), "--bootstrap", "100"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and not (tmp_path / "s.csv").exists()
    assert "filtered out by the condition minimums" in err[-1] and "--min" in err[-1]


def test_a_passing_gate_says_so_naming_threshold_and_baseline(data, tmp_path, capsys):
    common = ["--data", str(data[0]), "--weights", "C1=1,C7=2", "--bootstrap", "200", "--benchmark", JB]
    assert run(["choose", *common, "--out", str(tmp_path / "a.csv"), "--fail-below", f"{JUDGE}=50",
                "--fail-below", f"{JUDGE}:C7=40"]) == 0
    err = capsys.readouterr().err.strip().splitlines()
    # its weighted score is 61.5 and its C7 strict 58.0 (the failing gates above print the same numbers)
    assert err[-1] == (f"gate passed: {JUDGE} weighted score 61.5 >= 50 on {JB}; {JUDGE} C7 strict 58.0 >= 40 "
                       f"on {JB}")
    lock = tmp_path / "b.json"
    assert run(["choose", *common, "--out", str(tmp_path / "b.csv"), "--lock", str(lock)]) == 0
    assert not any(ln.startswith("gate") for ln in capsys.readouterr().err.splitlines())  # no gate, no gate line
    assert run(["choose", *common, "--out", str(tmp_path / "c.csv"), "--baseline", str(lock),
                "--gate-judge", JUDGE]) == 0
    line = capsys.readouterr().err.strip().splitlines()[-1]
    # the same data against its own lock: the same verdicts on all 350 items, a difference of exactly 0
    assert line.startswith(f"gate passed: not significantly below the baseline {lock}: {JUDGE}: weighted score 61.5 "
                           "vs baseline 61.5 on the 350 shared items (paired difference +0.0")


def test_report_draws_each_judge_in_its_dashboard_colour(data, tmp_path):
    # the radar of `report` / `choose --html` uses the judge colour rule of every dashboard page
    # (cap_core.colours): each shipped judge has its fixed colour, whatever its rank in this report
    import re

    from cap_core.colours import KNOWN_COLOURS, judge_key

    out = tmp_path / "colours.html"
    assert run(["report", "--data", str(data[0]), "--benchmark", JB, "--preset", "balanced", "--out", str(out),
                "--bootstrap", "100"]) == 0
    drawn = dict((name, colour) for colour, name in re.findall(
        r'"line":\{"color":"(#[0-9A-Fa-f]{6})"\},"mode":"lines\+markers","name":"([^"]+)"', out.read_text()))
    assert len(drawn) == 8
    assert drawn == {name: KNOWN_COLOURS[judge_key(name)] for name in drawn}
    assert len(set(drawn.values())) == 8  # shipped judges shown together never share a colour


def test_a_minimum_on_an_unmeasured_condition_is_named(data, tmp_path, capsys):
    # JudgeBench measures C1, C2 and C7 (its coverage plan): a minimum on C3 removes every judge, and says why
    out = tmp_path / "s.csv"
    assert run(["choose", "--data", str(data[0]), "--benchmark", JB, "--preset", "balanced",
                "--min", "C3=50,C7=10", "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and not out.exists()
    assert "C3=50 is on a condition not measured" in err and "it measures C1, C2, C7" in err


@pytest.mark.parametrize("option, typo, meant", [("--preset", "balancd", "balanced"),
                                                 ("--benchmark", "judgebnch", JB)])
def test_a_misspelt_preset_or_benchmark_gets_the_closest_name(data, tmp_path, capsys, option, typo, meant):
    argv = ["choose", "--data", str(data[0]), "--out", str(tmp_path / "s.csv"), option, typo]
    if option == "--preset":
        argv += ["--benchmark", JB]
    assert run(argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and f"did you mean {meant!r}?" in err


def test_judge_option_ranks_the_named_judges_as_data_holding_only_them(default_data_dir, tmp_path, capsys):
    # --judge reproduces a dashboard view that selects some judges (Holm is over the judges ranked): ranking
    # three LLMBar judges equals ranking a copy of the data that holds only their judgments
    ds = load_dataset(default_data_dir).select(benchmarks=["llmbar"])
    three = ["GPT-4/Rating", "GPT-4/CoT", "ChatGPT/CoT"]
    only = save_dataset(Dataset(ds.items, ds.judgments.filter(pl.col("judge").is_in(three)), ds.declarations),
                        tmp_path / "only")
    full = save_dataset(ds, tmp_path / "full")
    a, b, c = tmp_path / "a.csv", tmp_path / "b.csv", tmp_path / "c.csv"
    argv = ["choose", "--benchmark", "llmbar", "--preset", "balanced", "--bootstrap", "200"]
    assert run([*argv, "--data", str(full), "--out", str(a), *sum((["--judge", j] for j in three), [])]) == 0
    assert run([*argv, "--data", str(only), "--out", str(b)]) == 0
    assert run([*argv, "--data", str(full), "--out", str(c)]) == 0
    drop = ["fingerprint"]  # the two datasets differ, so do their fingerprints
    got, want, every = (pl.read_csv(x).drop(drop) for x in (a, b, c))
    assert sorted(got["judge"].to_list()) == sorted(three)
    assert got.equals(want)
    assert every.height == 14 and not every.filter(pl.col("judge").is_in(three))["p_holm"].equals(got["p_holm"])
    capsys.readouterr()
    assert run([*argv, "--data", str(full), "--out", str(tmp_path / "d.csv"), "--judge", "GPT-4/Ratng"]) == 2
    assert "did you mean 'GPT-4/Rating'?" in capsys.readouterr().err
