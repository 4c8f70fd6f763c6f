"""The CLI parser's rules (cap_core/cli/parser.py), found by a breaker pass: no abbreviations (an input
option of one verb abbreviated an output option of another and overwrote the user's file), hints also
when a required option is missing, dash slips, a one-value option given twice, control characters shown."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from cap_core.cli.main import main

PROG = "cap" if Path(sys.argv[0]).name == "cap" else "python -m cap_core"


def _refused(argv: list[str], capsys) -> str:
    with pytest.raises(SystemExit) as stop:
        main(argv)
    err = capsys.readouterr().err
    assert stop.value.code == 2 and err.count("\n") == 1 and err.startswith("error: "), err
    return err.strip()


def test_an_abbreviation_never_names_an_output(default_data_dir, tmp_path, capsys):
    """``--profile`` is an input of spearman/stress/distance; on choose it used to mean --profile-out and
    replaced the file it named."""
    mine = tmp_path / "myprofile.csv"
    mine.write_text("my own profile\n")
    err = _refused(["choose", "--data", str(default_data_dir), "--out", str(tmp_path / "s.csv"), "--profile",
                    str(mine)], capsys)
    assert "unrecognized arguments: --profile" in err and "did you mean --profile-out?" in err
    assert mine.read_text() == "my own profile\n" and not (tmp_path / "s.csv").exists()


def test_a_misspelt_required_option_gets_its_hint(capsys):
    err = _refused(["choose", "--daat", "d", "--out", "s.csv"], capsys)
    assert err == (f"error: the following arguments are required: --data; --daat: did you mean --data? "
                   f"(see `{PROG} choose --help`)")
    err = _refused(["testbed", "build", "--questions=q.csv", "--out", "x"], capsys)
    assert "QUESTIONS is given by position, without --questions" in err


@pytest.mark.parametrize("slip", ["-out", "\u2014out", "\u2013out"])
def test_a_short_or_typographic_dash_gets_the_option(slip, capsys):
    err = _refused(["coverage", "--data", "d", slip, "c.csv"], capsys)
    assert f"{slip}: did you mean --out?" in err


def test_a_positional_is_recognised_by_likeness(capsys):
    err = _refused(["testbed", "build", "q.csv", "--out", "x", "--questons", "y"], capsys)
    assert "QUESTIONS is given by position, without --questons" in err


def test_a_misspelling_given_twice_is_said_once(capsys):
    err = _refused(["choose", "--data", "d", "--out", "s.csv", "--benchmak", "a", "--benchmak", "b"], capsys)
    assert err.count("did you mean --benchmark?") == 1


def test_a_one_value_option_given_twice_is_refused(default_data_dir, tmp_path, capsys):
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    err = _refused(["coverage", "--data", str(default_data_dir), "--out", str(a), f"--out={b}"], capsys)
    assert "argument --out: given 2 times" in err and str(a) in err and str(b) in err
    assert not a.exists() and not b.exists()
    # options that collect (--judge, --benchmark on choose) may repeat
    assert main(["choose", "--data", str(default_data_dir), "--benchmark", "judgebench", "--benchmark",
                 "llmbar", "--bootstrap", "100", "--out", str(a)]) == 0


def test_control_characters_in_the_line_are_written_out(capsys):
    err = _refused(["coverage", "--data", "d", "--out", "s\x1b[2J.xlsx"], capsys)
    assert "\x1b" not in err and "\\x1b[2J" in err
    err = _refused(["coverage", "--data", "d", "--out", "c.csv", "--be\x1b[31mnch", "x"], capsys)
    assert "\x1b" not in err and "\\x1b[31m" in err


@pytest.mark.parametrize("path, says", [("s.csv/", "ends in a slash"), ("~/s.csv", "literal '~'")])
def test_a_file_path_that_is_not_a_file_name_is_refused(path, says, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    err = _refused(["coverage", "--data", "d", "--out", path], capsys)
    assert says in err and not list(tmp_path.iterdir())
