"""User JSON is read by the project's one JSON reader, ``cap_core.io.parse_json`` (issue 19, finding 10).

``import rewardbench`` on JSON nested 100,000 deep (its own reader, a ``raw_decode`` loop) and
``testbed build`` on a CSV whose ``options`` cell is ``[[[…`` (``json.loads``) ended in a
RecursionError (exit 1), and the dashboard's upload took the same path. Every other user-JSON reader
of ``cap_core`` goes through ``parse_json`` too; the few ``json.loads`` left read what CAP Studio or a
model wrote (listed below with the reason).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from cap_core.cli.main import main
from cap_core.errors import CAPInputError
from cap_core.importers.uploads import read_uploads
from cap_core.io import parse_json

ROOT = Path(__file__).resolve().parents[2]
DEEP = 100_000
NESTED = "[" * DEEP + "]" * DEEP

#: ``json.loads`` outside cap_core/io.py, each reading text that is not a user's file.
NOT_USER_JSON = {
    "cap_core/judging/cache.py": "the judging cache's own values",
    "cap_core/judging/choice.py": "a choice object CAP Studio stored (and guards RecursionError itself)",
    "cap_core/judging/parse.py": "JSON objects inside a model's completion (guards RecursionError itself)",
    "cap_core/judging/testbed.py": "the shipped testbed_items.jsonl",
    "cap_core/validity/probes/generate_llm.py": "a model's completion (guards RecursionError itself)",
    "cap_core/validity/probes/grade.py": "a model's completion, braces without nesting only",
    "cap_core/testbed/review.py": "the decisions file the review page writes",
}


def test_user_json_goes_through_parse_json():
    found = {}
    for f in sorted((ROOT / "cap_core").rglob("*.py")):
        rel = f.relative_to(ROOT).as_posix()
        if rel != "cap_core/io.py" and re.search(r"\bjson\.loads?\(|JSONDecoder\(", f.read_text(encoding="utf-8")):
            found[rel] = True
    assert sorted(found) == sorted(NOT_USER_JSON), sorted(set(found) ^ set(NOT_USER_JSON))


def test_values_written_one_after_another():
    assert parse_json('{"a": 1}\n{"a": 2} [3]', many=True) == [{"a": 1}, {"a": 2}, [3]]
    assert parse_json("  \n", many=True) == []
    with pytest.raises(CAPInputError, match="nested too deeply") as err:
        parse_json("{}\n" + NESTED, file="m.json", many=True)
    assert err.value.file == "m.json"
    with pytest.raises(CAPInputError, match="malformed JSON") as err:
        parse_json('{"a": 1}\n{"a": ', file="m.json", many=True)
    assert err.value.row == 2


def test_rewardbench_upload_nested_deep_is_a_clear_error(tmp_path):
    """The dashboard's upload of a RewardBench scores file (the same reader as ``import rewardbench``)."""
    with pytest.raises(CAPInputError, match="nested too deeply") as err:
        read_uploads("rewardbench", [("model.json", NESTED.encode())], root=tmp_path)
    assert err.value.file == "model.json"


def test_testbed_options_cell_nested_deep_exits_2_naming_the_cell(tmp_path, capsys):
    """The tester's ``mc.csv``: one multiple-choice row whose options cell opens 100,000 lists (never closed)."""
    questions = tmp_path / "mc.csv"
    questions.write_text("question,options,correct\nWhat is 2+2?," + "[" * DEEP + ",A\n")
    status = main(["testbed", "build", str(questions), "--out", str(tmp_path / "tb"), "--dry-run"])
    err = capsys.readouterr().err.strip()
    assert status == 2, err
    assert err.startswith("error: JSON nested too deeply in the options cell") and len(err.splitlines()) == 1
    assert f"file {questions}, row 1, column 'options'" in err
    assert not (tmp_path / "tb").exists()


def test_options_that_are_not_json_are_still_split_at_the_bar():
    from cap_core.testbed.questions import parse_options

    assert parse_options('["Paris", "Lyon"]') == ["Paris", "Lyon"]
    assert parse_options("[A] Paris | [B] Lyon") == ["[A] Paris", "[B] Lyon"]  # starts with [ but is no JSON
