"""Output files whole or not at all (cap_core.outputs), and a refused CLI run leaves none (issue 21, item 4)."""

from __future__ import annotations

import polars as pl
import pytest

from cap_core.errors import CAPInputError
from cap_core.outputs import all_or_nothing, check_suffix, kept, make_dirs, remove_file, write_file


def _names(folder):
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*"))


def test_write_file_takes_bytes_text_or_a_writer(tmp_path):
    write_file(tmp_path / "a" / "b.txt", "héllo")
    write_file(tmp_path / "c.bin", b"\x00\x01")
    write_file(tmp_path / "d.parquet", pl.DataFrame({"x": [1, 2]}).write_parquet)
    assert (tmp_path / "a" / "b.txt").read_text(encoding="utf-8") == "héllo"
    assert (tmp_path / "c.bin").read_bytes() == b"\x00\x01"
    assert pl.read_parquet(tmp_path / "d.parquet")["x"].to_list() == [1, 2]
    assert _names(tmp_path) == ["a", "a/b.txt", "c.bin", "d.parquet"]  # no temporary file left


def test_a_write_that_fails_leaves_the_old_file_and_no_part(tmp_path):
    target = tmp_path / "t.csv"
    target.write_text("old")

    def half(path):
        path.write_text("half a fi")
        raise OSError(28, "No space left on device")

    with pytest.raises(OSError) as info:
        write_file(target, half)
    assert info.value.filename == str(target)  # the file asked for is named, not the temporary one
    assert target.read_text() == "old" and _names(tmp_path) == ["t.csv"]


def test_a_failing_block_undoes_its_files_and_folders(tmp_path):
    (tmp_path / "keep.csv").write_text("old content")
    (tmp_path / "gone.txt").write_text("was here")
    with pytest.raises(CAPInputError):
        with all_or_nothing():
            write_file(tmp_path / "keep.csv", "new content")
            write_file(tmp_path / "keep.csv", "newer content")  # twice: the first original is what comes back
            write_file(tmp_path / "new" / "deep" / "x.csv", "x")
            remove_file(tmp_path / "gone.txt")
            assert (tmp_path / "keep.csv").read_text() == "newer content"  # visible inside the block
            raise CAPInputError("refused half-way")
    assert (tmp_path / "keep.csv").read_text() == "old content"
    assert (tmp_path / "gone.txt").read_text() == "was here"
    assert _names(tmp_path) == ["gone.txt", "keep.csv"]  # created folders removed, no aside copies


def test_a_block_that_ends_or_exits_keeps_its_files(tmp_path):
    (tmp_path / "a.csv").write_text("old")
    with all_or_nothing():
        write_file(tmp_path / "a.csv", "new")
        make_dirs(tmp_path / "made")
    assert (tmp_path / "a.csv").read_text() == "new" and _names(tmp_path) == ["a.csv", "made"]
    with pytest.raises(SystemExit):
        with all_or_nothing():  # a verb that decided its exit status (a failed gate) keeps what it wrote
            write_file(tmp_path / "b.csv", "b")
            raise SystemExit(1)
    assert (tmp_path / "b.csv").read_text() == "b"


def test_kept_writes_survive_a_failing_block(tmp_path):
    with pytest.raises(RuntimeError):
        with all_or_nothing():
            write_file(tmp_path / "undone.csv", "u")
            with kept():
                write_file(tmp_path / "run" / "calls.csv", "paid for")
            raise RuntimeError("later failure")
    assert _names(tmp_path) == ["run", "run/calls.csv"]


def test_a_choose_refused_after_its_first_files_leaves_the_disk_as_it_was(default_data_dir, tmp_path,
                                                                          monkeypatch, capsys):
    """The scores CSV and profile CSV are written, then the HTML report fails: both are undone and
    an earlier scores file is back byte for byte."""
    from cap_core.choice import report
    from cap_core.cli.main import main

    def broken(*args, **kwargs):
        raise CAPInputError("the report cannot be drawn", argument="--html")

    monkeypatch.setattr(report, "html_report", broken)
    out, prof, html = tmp_path / "s.csv", tmp_path / "sub" / "p.csv", tmp_path / "r.html"
    out.write_text("earlier scores\n")
    code = main(["choose", "--data", str(default_data_dir), "--benchmark", "judgebench", "--bootstrap", "100",
                 "--out", str(out), "--profile-out", str(prof), "--html", str(html)])
    assert code == 2 and "the report cannot be drawn" in capsys.readouterr().err
    assert out.read_text() == "earlier scores\n"
    assert _names(tmp_path) == ["s.csv"]


@pytest.mark.parametrize("name", ["s.csv", "S.CSV", "s.txt", "s.out", "scores", "v1.2.csv"])
def test_a_csv_may_be_named_csv_or_for_nothing_else(name):
    check_suffix(name, "CSV")  # no error


@pytest.mark.parametrize("name, says, fix", [
    ("s.xlsx", "Excel", "name it s.csv"), ("s.parquet", "Parquet", "name it s.csv"),
    ("s.json", "JSON", "name it s.csv"), ("s.tsv", "tab-separated", "name it s.csv"),
    ("s.csv.gz", "gzip-compressed", "name it s.csv"), ("s.ZIP", "zip archive", "name it s.csv"),
])
def test_a_csv_named_for_another_format_is_refused_with_the_name_to_use(name, says, fix):
    with pytest.raises(CAPInputError) as info:
        check_suffix(name, "CSV")
    msg = str(info.value)
    assert says in msg and name in msg and fix in msg and ".csv.csv" not in msg, msg


def test_html_and_json_outputs_take_their_own_endings():
    check_suffix("r.html", "HTML")
    check_suffix("r.HTM", "HTML")
    check_suffix("b.json", "JSON")
    for name, fmt in (("r.csv", "HTML"), ("b.csv", "JSON"), ("b.jsonl", "JSON")):
        with pytest.raises(CAPInputError, match="ending in"):
            check_suffix(name, fmt)


def test_the_csv_writer_refuses_a_parquet_name_and_writes_nothing(tmp_path):
    from cap_core.export import write_csv

    with pytest.raises(CAPInputError, match="Parquet"):
        write_csv(pl.DataFrame({"x": [1]}), tmp_path / "t.parquet")
    assert _names(tmp_path) == []
    write_csv(pl.DataFrame({"x": [1]}), tmp_path / "t.csv")
    assert (tmp_path / "t.csv").read_text() == "x\n1\n"


@pytest.mark.parametrize("name, fmt, fix", [
    ("s.xlsx.gz", "CSV", "name it s.csv"), ("s.tar.gz", "CSV", "name it s.csv"),
    ("s.csv.gz.zip", "CSV", "name it s.csv"), ("l.csv.gz", "JSON", "name it l.json"),
    ("r.html.gz", "HTML", "name it r.html"), ("s.xlsx ", "CSV", "name it s.csv"),
    ("s.xlsx\n", "CSV", "name it s.csv"), ("s.xlsx.", "CSV", "name it s.csv"),
    (".xlsx", "CSV", "name it out.csv"), ("s.tgz", "CSV", "name it s.csv"), ("s.xlsb", "CSV", "name it s.csv"),
])
def test_every_known_ending_is_dropped_from_the_name_to_use(name, fmt, fix):
    with pytest.raises(CAPInputError) as info:
        check_suffix(name, fmt)
    assert str(info.value).split("Fix: ")[1].startswith(fix), str(info.value)


def test_the_csv_writer_refuses_what_is_not_a_path(tmp_path):
    from cap_core.export import write_csv

    for bad in (None, 123, b"x.csv"):
        with pytest.raises(CAPInputError, match="not a path"):
            write_csv(pl.DataFrame({"x": [1]}), bad)
