"""Bad questions files and bad output paths: one line on stderr, exit 2, nothing written."""

from __future__ import annotations

from pathlib import Path

import pytest

from cap_core.cli.main import main

GOOD = ("id,domain,question,answer\n"
        "q1,health,How much fluid do adults need?,\"Most adults need about 2 litres a day, unless a doctor advises "
        "otherwise.\"\n")


def _run(capsys, args: list[str]) -> tuple[int, str, str]:
    try:
        rc = main(["testbed", "build", *args])
    except SystemExit as stop:  # the parser refuses a bad number itself (exit 2, one line)
        rc = stop.code
    cap = capsys.readouterr()
    return rc, cap.out, cap.err


def _refused(capsys, tmp_path: Path, name: str, content: bytes | str, *words: str) -> str:
    src = tmp_path / name
    src.write_bytes(content if isinstance(content, bytes) else content.encode())
    out = tmp_path / "tb"
    rc, stdout, err = _run(capsys, [str(src), "--out", str(out)])
    assert rc == 2 and stdout == ""
    assert err.startswith("error: ") and err.count("\n") == 1, err
    for w in words:
        assert w in err, err
    assert not out.exists()  # nothing written
    return err


@pytest.mark.parametrize("name,content,words", [
    ("empty.csv", b"", ("empty",)),
    ("header.csv", "id,question,answer\n", ("no questions in the file", "row 1")),
    ("noanswer.csv", "id,question,reply\nq1,Why?,Because.\n",
     ("no answer column", "column 'answer'", "got ['id', 'question', 'reply']")),
    ("noquestion.jsonl", '{"prompt": "Why?", "answer": "Because."}\n', ("no question column", "column 'question'")),
    ("dup.csv", GOOD + GOOD.splitlines()[1] + "\n", ("repeated id", "row 2", "column 'id'", "row 1 has the same one")),
    ("blank.tsv", "question\tanswer\nWhy?\t \n", ("empty answer", "row 1", "column 'answer'")),
    ("colons.csv", "id,question,answer\na::b,Why?,Because it is 2.\n", ("cannot name an item", "column 'id'")),
    ("mcq.csv", "question,options,correct\nCapital of France?,A) Paris | B) Lyon,C\n",
     ("correct option is not among the options", "row 1", "column 'correct'", "A-B")),
])
def test_bad_questions_are_one_line_exit_2_nothing_written(capsys, tmp_path, name, content, words):
    _refused(capsys, tmp_path, name, content, *words)


def test_a_question_no_type_can_be_planted_in_names_its_row(capsys, tmp_path):
    text = GOOD + "q2,geography,What is the capital of France?,Paris is the capital of France.\n"
    err = _refused(capsys, tmp_path, "q.csv", text, "no planted error type fits 1 of the 2 questions (rows 2)",
                   "row 2",
                   "column 'answer'", "factual_fabrication: no number, number word or unit to change",
                   "use a model generator")
    assert "q.csv" in err


def test_an_mcq_question_no_type_fits_names_the_options_column(capsys, tmp_path):
    """An MCQ file has no answer column: the text to reword is its correct option."""
    text = ("question,options,correct\n"
            "How many legs does a spider have?,A) Eight legs | B) Six legs,A\n"
            "Which holds?,A) It is | B) It is not,A\n")
    _refused(capsys, tmp_path, "mcq.csv", text, "no planted error type fits 1 of the 2 questions (rows 2)",
             "column 'options'")


def test_output_paths_that_are_inputs_or_other_data_are_refused(capsys, tmp_path):
    # the CLI's path check (cap_core.cli.options.check_paths) refuses these before anything is read
    src = tmp_path / "q.csv"
    src.write_text(GOOD)
    before = src.read_bytes()
    for out, words in ((src, "an output folder is an existing file"),
                       (tmp_path, "the output folder holds the input of QUESTIONS")):
        rc, _, err = _run(capsys, [str(src), "--out", str(out)])
        assert rc == 2 and "argument `--out`" in err and words in err, err
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("mine")
    rc, _, err = _run(capsys, [str(src), "--out", str(other)])
    assert rc == 2 and "holds other files" in err and sorted(p.name for p in other.iterdir()) == ["notes.txt"]
    afile = tmp_path / "file.txt"
    afile.write_text("x")
    rc, _, err = _run(capsys, [str(src), "--out", str(afile)])
    assert rc == 2 and "is an existing file" in err and afile.read_text() == "x"
    assert src.read_bytes() == before
    # the library refuses the same without the CLI (the dashboard builds through it)
    from cap_core.errors import CAPInputError
    from cap_core.testbed.build import BuildSpec, build_testbed

    with pytest.raises(CAPInputError, match="is, or holds, the input file"):
        build_testbed(src, BuildSpec(), out_dir=tmp_path, cache_dir=tmp_path / "cache")


@pytest.mark.parametrize("extra,words", [
    (["--regenerations", "-1"], ("regenerations out of range", "argument `--regenerations`")),
    (["--pad-factor", "9"], ("pad_factor out of range", "argument `--pad-factor`")),
    (["--hard", "-2"], ("hard must be a number of pairs", "argument `--hard`")),
    (["--generator", "rules", "--generator", "rules"], ("second, different generator", "argument `--generator`")),
    (["--benchmark", "bad name!"], ("bad benchmark name", "argument `--benchmark`")),
])
def test_bad_options_name_the_option(capsys, tmp_path, extra, words):
    src = tmp_path / "q.csv"
    src.write_text(GOOD)
    out = tmp_path / "tb"
    rc, _, err = _run(capsys, [str(src), "--out", str(out), *extra])
    assert rc == 2 and err.count("\n") == 1
    for w in words:
        assert w in err, err
    assert not out.exists()


def test_multiple_choice_rows_state_the_right_option(tmp_path):
    from cap_core.testbed.questions import parse_options, read_questions

    src = tmp_path / "mcq.jsonl"
    src.write_text('{"question": "How many chambers has the human heart?", "options": ["3", "4", "5"], '
                   '"correct": "B", "domain": "health"}\n'
                   '{"question": "How many legs has a spider?", "options": ["6", "8"], "correct": "2"}\n')
    q = read_questions(src)
    assert q.frame["answer"].to_list() == ["4", "8"] and q.frame["mcq"].all()
    assert q.frame["id"].to_list() == ["q01", "q02"] and q.frame["domain"].to_list() == ["health", "general"]
    csv = tmp_path / "mcq.csv"
    csv.write_text("question,options,correct\nHow many legs has a spider?,A) 6 | B) 8,b\n")
    assert read_questions(csv).frame["answer"].to_list() == ["8"]
    assert parse_options('["(A) one", "B. two"]') == ["one", "two"]


def test_a_negative_dollar_budget_is_refused_by_the_parser(capsys, tmp_path):
    src = tmp_path / "q.csv"
    src.write_text(GOOD)
    with pytest.raises(SystemExit) as exc:
        main(["testbed", "build", str(src), "--out", str(tmp_path / "tb"), "--budget-usd", "-1"])
    err = capsys.readouterr().err
    assert exc.value.code == 2 and "argument --budget-usd: expected a finite number from 0" in err
    assert not (tmp_path / "tb").exists()


# the tester's files (findings 8 and 17), rebuilt here with the same columns and values
TYPED = {
    "listq.parquet": ({"question": [["a", "b"], ["c"]], "answer": ["Spiders usually have 8 legs.", "It is usually 4."]},
                      ("the question column does not hold text", "row 1", "column 'question'", "lists")),
    "structans.parquet": ({"question": ["How many legs?"], "answer": [{"text": "Usually 8 legs", "n": 8}]},
                          ("the answer column does not hold text", "structures")),
    "nanans.parquet": ({"question": ["How many legs?", "How many wings?"], "answer": [8.0, float("nan")]},
                       ("empty answer", "row 2", "column 'answer'")),
    "listdom.parquet": ({"question": ["How many legs?"], "answer": ["Usually 8 legs"], "domain": [["a", "b"]]},
                        ("the domain column does not hold text", "column 'domain'")),
    "binans.parquet": ({"question": ["How many legs?"], "answer": [b"Usually 8 legs"]}, ("bytes",)),
    "boolans.parquet": ({"question": ["How many legs?", "How many wings?"], "answer": [True, False]},
                        ("true/false values",)),
}


@pytest.mark.parametrize("name", sorted(TYPED))
def test_columns_that_do_not_hold_text_are_refused_not_coerced(capsys, tmp_path, name):
    import polars as pl

    data, words = TYPED[name]
    src = tmp_path / name
    pl.DataFrame(data).write_parquet(src)
    out = tmp_path / "tb"
    rc, _, err = _run(capsys, [str(src), "--out", str(out)])
    assert rc == 2 and err.count("\n") == 1 and not out.exists(), err
    for w in words:
        assert w in err, err


@pytest.mark.parametrize("name,content,words", [
    ("objans.jsonl", '{"question": "How many legs?", "answer": {"text": "Usually 8 legs"}}\n',
     ("the answer column does not hold text", "structures")),
    ("sameqa.csv", "question,answer\nSpiders usually have 8 legs.,Spiders usually have 8 legs.\n",
     ("the answer repeats the question", "row 1", "column 'answer'")),
    ("semi.csv", 'question;answer\n"How many legs?";"Usually 8 legs."\n',
     ("separates its fields with ';'", "expected a header such as question,answer")),
    ("twice.csv", "question,Question,answer\nA?,B?,C.\n", ("two columns are read as 'question'",)),
])
def test_more_bad_questions_files(capsys, tmp_path, name, content, words):
    _refused(capsys, tmp_path, name, content, *words)


def test_numbers_read_as_text_and_headers_of_any_case(capsys, tmp_path):
    import polars as pl

    from cap_core.testbed.questions import read_questions

    src = tmp_path / "caps.csv"
    src.write_text("Question, ANSWER \nHow many legs does a spider have?,Spiders usually have 8 legs.\n")
    assert read_questions(src).frame.select("question", "answer").row(0) == (
        "How many legs does a spider have?", "Spiders usually have 8 legs.")
    num = tmp_path / "num.parquet"
    pl.DataFrame({"id": [7, 8], "question": ["How many legs?", "How many wings?"], "answer": [8, 4]}).write_parquet(num)
    q = read_questions(num).frame
    assert q["id"].to_list() == ["7", "8"] and q["answer"].to_list() == ["8", "4"]


def test_a_folder_or_a_pipe_is_named_for_what_it_is(capsys, tmp_path):
    import os

    folder = tmp_path / "afolder.csv"
    folder.mkdir()
    rc, _, err = _run(capsys, [str(folder), "--out", str(tmp_path / "tb")])
    assert rc == 2 and "the questions path is a folder, not a file" in err
    fifo = tmp_path / "fifo.csv"
    os.mkfifo(fifo)
    rc, _, err = _run(capsys, [str(fifo), "--out", str(tmp_path / "tb")])  # never opened: it would block
    assert rc == 2 and "not a regular file (a pipe, device or socket)" in err
