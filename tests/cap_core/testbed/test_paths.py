"""Outputs of the testbed verbs never replace their inputs (finding 1) and a folder is a testbed only when its
manifest says so (finding 2): the tester's cases, each refused with one line, exit 2, every file unchanged."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from cap_core.cli.main import main

QUESTIONS = Path(__file__).resolve().parents[2] / "fixtures" / "testbed" / "questions.csv"


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    """A copy of the questions, the rules testbed built from it and a run of one offline judge on it."""
    root = tmp_path_factory.mktemp("paths")
    questions = root / "in" / "own.csv"
    questions.parent.mkdir()
    shutil.copy(QUESTIONS, questions)
    tb, run, cache = root / "tb", root / "run", root / "cache"
    assert main(["testbed", "build", str(questions), "--out", str(tb), "--cache", str(cache)]) == 0
    assert main(["judge", "--items", str(tb), "--model", "local/first", "--cache", str(cache), "--out", str(run)]) == 0
    return questions, tb, run


def _snapshot(*folders: Path) -> dict[Path, bytes]:
    return {f: f.read_bytes() for d in folders for f in sorted(d.rglob("*")) if f.is_file()}


def _refused(capsys, argv: list[str], *words: str) -> str:
    try:
        rc = main(argv)
    except SystemExit as stop:  # refused by the option's own type (a name for another format)
        rc = stop.code
    cap = capsys.readouterr()
    assert rc == 2 and cap.out == "" and cap.err.startswith("error: ") and cap.err.count("\n") == 1, cap.err
    for w in words:
        assert w in cap.err, cap.err
    return cap.err


def test_replication_table_never_replaces_the_questions_file_or_the_run(setup, capsys):
    questions, tb, run = setup
    before = _snapshot(questions.parent, tb, run)
    # the tester's first case: the questions file the testbed was built from (not an input of this verb:
    # recognised by the SHA-256 the manifest keeps)
    _refused(capsys, ["testbed", "replication", "--data", str(run), "--testbed", str(tb), "--table-out",
                      str(questions)], "the output file is the questions file this testbed was built from",
             "argument `--table-out`")
    _refused(capsys, ["testbed", "replication", "--data", str(run), "--testbed", str(tb), "--table-out",
                      str(run / "notices.txt")], "a file the input folder of --data is read from",
             "argument `--table-out`")
    _refused(capsys, ["testbed", "replication", "--data", str(run), "--testbed", str(tb), "--table-out",
                      str(tb / "variants.csv")], "input folder of --testbed")
    # names of the run's and the testbed's own tables are refused by their endings already (a CSV is written)
    for out in (run / "judgments.parquet", tb / "testbed.json"):
        _refused(capsys, ["testbed", "replication", "--data", str(run), "--testbed", str(tb), "--table-out",
                          str(out)], "argument --table-out: the output's name says", out.name)
    assert _snapshot(questions.parent, tb, run) == before


def test_show_counts_never_replace_the_testbed(setup, capsys, tmp_path):
    questions, tb, _ = setup
    before = _snapshot(questions.parent, tb)
    _refused(capsys, ["testbed", "show", str(tb), "--counts-out", str(tb / "variants.csv")],
             "the output would replace variants.csv, a file the input folder of FOLDER is read from",
             "argument `--counts-out`")
    for name in ("pairs.parquet", "testbed.json", "review.jsonl"):  # refused by their endings already
        _refused(capsys, ["testbed", "show", str(tb), "--counts-out", str(tb / name)],
                 "argument --counts-out: the output's name says", name)
    _refused(capsys, ["testbed", "show", str(tb), "--counts-out", str(questions)],
             "the questions file this testbed was built from")
    assert _snapshot(questions.parent, tb) == before
    # a new file is written
    assert main(["testbed", "show", str(tb), "--counts-out", str(tmp_path / "counts.csv")]) == 0
    assert (tmp_path / "counts.csv").read_text().startswith("benchmark,dimension,value,n")


def test_a_folder_with_someone_elses_testbed_json_is_not_rebuilt(setup, capsys, tmp_path):
    questions, _, _ = setup
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "testbed.json").write_text(json.dumps({"my": "precious config"}))
    (mine / "variants.csv").write_text("my,own\n1,2\n")
    before = _snapshot(mine)
    _refused(capsys, ["testbed", "build", str(questions), "--out", str(mine)],
             "holds a testbed.json that is not a testbed manifest", "argument `--out`")
    assert _snapshot(mine) == before
    # nor is it read as one
    _refused(capsys, ["testbed", "show", str(mine)], "a testbed manifest of another format")
    # an unreadable manifest is refused the same way, never a traceback
    (mine / "testbed.json").write_text("{not json")
    _refused(capsys, ["testbed", "build", str(questions), "--out", str(mine)], "not a testbed manifest")
    _refused(capsys, ["testbed", "show", str(mine)], "malformed JSON")
