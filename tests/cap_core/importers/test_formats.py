"""The import registry: one list of kinds for the CLI, the notebook API and the dashboard; one option check."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import cap_core
from cap_core.cli.main import build_parser, main
from cap_core.errors import CAPInputError, capped
from cap_core.importers.formats import FORMATS, KINDS, OPTIONS, check_options, detect, read
from cap_core.importers.uploads import read_uploads, write_uploads
from cap_core.schema import SWAP, VERDICTS, unswap

REPO = Path(__file__).resolve().parents[3]
FX = REPO / "tests" / "fixtures"


def test_every_kind_of_the_issue_is_registered():
    assert set(KINDS) == {"table", "llmbar", "judgebench", "alpacaeval", "mtbench", "arena-hard", "inspect",
                          "pandalm", "autoj", "rewardbench"}
    assert KINDS[0] == "table"
    for f in FORMATS.values():
        assert f.description and f.path and set(f.options) <= set(OPTIONS)
        assert callable(f.function())


def test_cli_api_and_dashboard_read_the_same_list():
    imp = build_parser()._subparsers._group_actions[0].choices["import"]
    by_dest = {a.dest: a for a in imp._actions}
    assert tuple(by_dest["kind"].choices) == KINDS and tuple(by_dest["format"].choices) == KINDS
    assert {a.dest for a in imp._actions} >= set(OPTIONS)  # one CLI option per registry option
    # the notebook API and the dashboard take their kinds from the registry, not from a list of their own
    api = ast.parse((REPO / "cap_core" / "api.py").read_text())
    fn = next(n for n in api.body if isinstance(n, ast.FunctionDef) and n.name == "import_source")
    assert "from cap_core.importers.formats import read" in ast.unparse(fn)
    side = (REPO / "ui" / "sidebar.py").read_text()
    assert "from cap_core.importers.formats import FORMATS, KINDS" in side
    with pytest.raises(CAPInputError) as e:
        cap_core.import_source("nope", FX)
    assert e.value.argument == "kind" and e.value.expected == "one of " + ", ".join(KINDS)
    doc = (REPO / "docs" / "notebook.md").read_text()
    assert all(f"`{k}`" in doc for k in KINDS)


def test_an_option_the_format_does_not_take_is_refused_naming_it(tmp_path, capsys):
    with pytest.raises(CAPInputError) as e:
        cap_core.import_source("mtbench", FX / "mtbench", baseline="gpt-4-0314")
    assert e.value.argument == "baseline" and "options of mtbench: gold_judge, gold" in str(e.value)
    with pytest.raises(CAPInputError) as e:
        check_options("pandalm", {"gold_judge": "x"})
    assert e.value.argument == "gold_judge" and "options of pandalm: none" in str(e.value)
    with pytest.raises(CAPInputError) as e:
        check_options("alpacaeval", {"colour": "red"})
    assert e.value.problem == "unknown option" and e.value.argument == "colour"
    assert check_options("arena-hard", {"baseline": None, "gold_judge": "g"}) == {"gold_judge": "g"}
    rc = main(["import", "mtbench", str(FX / "mtbench"), "--baseline", "x", "--out", str(tmp_path / "o")])
    err = capsys.readouterr().err
    assert rc == 2 and err.count("\n") == 1 and "argument `--baseline`" in err and "options of mtbench" in err


def test_cli_reads_a_new_kind(tmp_path, capsys):
    assert main(["import", "autoj", str(FX / "autoj"), "--out", str(tmp_path / "aj")]) == 0
    out = capsys.readouterr().out
    # 1,392 pairs of the source; two orders of one judge
    assert "wrote 1392 items and 2784 judgments" in out


def test_detection_names_one_kind_or_none():
    assert detect(FX / "mtbench" / "model_judgment" / "gpt-4_pair.jsonl") == "mtbench"
    assert detect(FX / "arena_hard") == "arena-hard"
    assert detect(FX / "alpacaeval") == "alpacaeval"
    assert detect(FX / "inspect") == "inspect"
    assert detect(FX / "autoj") == "autoj"
    assert detect(FX / "rewardbench") == "rewardbench"
    assert detect(FX) is None  # several tools' files: ambiguous


def test_detection_never_raises_on_bad_json(tmp_path):
    (tmp_path / "deep.json").write_text("[" * 5000 + "]" * 5000)
    (tmp_path / "bad.jsonl").write_bytes(b"\xff\x00{not json")
    assert detect(tmp_path / "deep.json") is None and detect(tmp_path) is None


def test_uploads_land_in_a_folder_named_by_their_content(tmp_path):
    data = (FX / "mtbench" / "model_judgment" / "gpt-4_pair.jsonl").read_bytes()
    a = write_uploads([("gpt-4_pair.jsonl", data)], tmp_path)
    b = write_uploads([("gpt-4_pair.jsonl", data)], tmp_path)
    c = write_uploads([("gpt-4_pair.jsonl", data + b"\n")], tmp_path)
    assert a == b != c and (a / "gpt-4_pair.jsonl").read_bytes() == data
    with pytest.raises(CAPInputError, match="same name"):
        write_uploads([("x.json", b"1"), ("x.json", b"2")], tmp_path)
    import io
    import zipfile

    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("../escape.txt", "x")
    with pytest.raises(CAPInputError, match="outside the archive"):
        write_uploads([("evil.zip", buf.getvalue())], tmp_path)
    ds = read_uploads("mtbench", [("gpt-4_pair.jsonl", data)], {"gold_judge": ""}, root=tmp_path)
    assert sorted(ds.judgments["judge"].unique()) == ["gpt-4"]  # one judge; its prompts are a setting


def _zip(path_in_zip: str, content: bytes) -> bytes:
    import io
    import zipfile

    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr(path_in_zip, content)
    return buf.getvalue()


def test_two_uploads_that_hold_one_path_are_refused_not_merged(tmp_path):
    """Two zips of one tool's folder (or a loose file beside a zip holding its name) were unpacked into
    one folder: the second replaced the first's file and its 150 judgments were gone without a word."""
    pair = (FX / "mtbench" / "model_judgment" / "gpt-4_pair.jsonl").read_bytes()
    short = b"\n".join(pair.splitlines()[:10]) + b"\n"
    member = "model_judgment/gpt-4_pair.jsonl"
    for files, said in (([("run1.zip", _zip(member, pair)), ("run2.zip", _zip(member, short))],
                         "in run1.zip and in run2.zip"),
                        ([("gpt-4_pair.jsonl", pair), ("x.zip", _zip("gpt-4_pair.jsonl", short))],
                         "in gpt-4_pair.jsonl and in x.zip")):
        with pytest.raises(CAPInputError) as e:
            read_uploads("mtbench", files, root=tmp_path)
        assert e.value.problem == "two uploads hold a file of the same path" and e.value.got == said
    # apart, each reads whole: 75 records x 2 games
    assert read_uploads("mtbench", [("run1.zip", _zip(member, pair))], root=tmp_path).judgments.height == 150


def test_pandalm_kind_reads_the_published_label_distribution(shared_dir):
    ds = read("pandalm", shared_dir / "data" / "pandalm")
    # PandaLM's README: label distribution of the test set 0 (tie): 105, 1: 422, 2: 472 (human majority);
    # the A/B dataset keeps the 422 + 472 items with a response-1 or response-2 majority
    gold = ds.items["gold"].value_counts().sort("gold").rows()
    assert gold == [("A", 422), ("B", 472)]
    assert "105 items with a tie human majority" in ds.notices[0]


def test_one_swap_map():
    assert set(SWAP) == set(VERDICTS) and all(SWAP[SWAP[v]] == v for v in VERDICTS)
    assert [unswap(v, "BA") for v in ("A", "B", "tie", "unparsed")] == ["B", "A", "tie", "unparsed"]
    assert unswap("A", "AB") == "A"
    # no module keeps a letter-swap table of its own
    for path in (REPO / "cap_core").rglob("*.py"):
        text = path.read_text()
        if path.name != "schema.py":
            assert '{"A": "B", "B": "A"' not in text, path


def test_capped_lists_say_how_many_more():
    assert capped(["a", "b"]) == "a, b"
    assert capped(range(45)) == "0, 1, 2, 3, 4, 5, 6, 7 … and 37 more"
    assert capped(range(5), 2, sep="; ") == "0; 1 … and 3 more"
    assert capped([]) == ""


def test_weighted_annotator_notice_is_short():
    from cap_core.importers._tools import Tally

    t = Tally("AlpacaEval")
    for k in range(40):  # 40 distinct weighted preferences, as a weighted annotator writes them
        t.add("weighted", 1 + k / 40, "A" if k < 20 else "B")
    (line,) = t.notices()
    assert line.startswith("AlpacaEval: judge weighted: 20 A, 20 B, 0 tie, 0 unparsed")
    assert "… and 32 more" in line and len(line) < 400
