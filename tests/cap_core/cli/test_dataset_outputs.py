"""An output inside an input dataset folder is refused when the folder is read from that name (issue 19,
finding 11).

The tester ran ``summary --data DS --out DS/texts.parquet`` (no texts yet): it was accepted and wrote CSV
there, and every later command on DS exited 2 (``texts.parquet`` is not Parquet). With ``--data`` given as
a symbolic link to DS, ``--out DS/notices.txt`` replaced the dataset's notes. The names a dataset folder is
read from are written out here by hand from the dataset format (README "Data model", the loader's
docstring): the three tables, the optional texts and notes, and the ``judgments/`` folder of parts.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from cap_core.cli.main import main
from cap_core.dataset import load_dataset

#: Where a dataset folder is read from: name inside DS.
READ_FROM = ("items.parquet", "judgments.parquet", "declarations.parquet", "texts.parquet", "notices.txt",
             "judgments/part-0.parquet")
VERBS = (("summary", []), ("source-metrics", []), ("profile", ["--bootstrap", "100"]))


@pytest.fixture
def ds(tmp_path) -> Path:
    """A dataset folder without texts (an imported joined table), and a symbolic link to it."""
    rows = ["judge,benchmark,item_id,order,verdict,gold"]
    rows += [f"{j},b,{i},{o},{v},A" for j in ("j1", "j2") for i in range(6) for o, v in (("AB", "A"), ("BA", "B"))]
    (tmp_path / "joined.csv").write_text("\n".join(rows) + "\n")
    assert main(["import", "table", str(tmp_path / "joined.csv"), "--out", str(tmp_path / "DS")]) == 0
    (tmp_path / "link").symlink_to(tmp_path / "DS")
    assert not (tmp_path / "DS" / "texts.parquet").exists()
    return tmp_path / "DS"


def _main(argv: list[str]) -> int:
    """The CLI's exit status, whether a verb returned it or the parser stopped (a refused option value)."""
    try:
        return main(argv)
    except SystemExit as stop:
        return stop.code


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("name", READ_FROM)
@pytest.mark.parametrize("verb, extra", VERBS, ids=[v for v, _ in VERBS])
@pytest.mark.parametrize("via", ["direct", "data-link", "out-link"])
def test_output_at_a_name_the_dataset_is_read_from_is_refused(ds, capsys, name, verb, extra, via):
    link = ds.parent / "link"
    data = link if via == "data-link" else ds
    out = (link if via == "out-link" else ds) / name
    before = _snapshot(ds)
    status = _main([verb, "--data", str(data), *extra, "--out", str(out)])
    err = capsys.readouterr().err.strip()
    assert status == 2, err
    # a Parquet name is refused by its ending already (a CSV is written there); notices.txt by the path rule
    why = "the output's name says Parquet" if name.endswith(".parquet") else "the output would"
    assert err.startswith(f"error: {why}") or err.startswith(f"error: argument --out: {why}"), err
    assert "--out" in err and len(err.splitlines()) == 1
    assert _snapshot(ds) == before  # nothing written, nothing replaced
    load_dataset(ds)  # every later command still reads it


def test_the_testers_case_then_later_commands_still_work(ds, tmp_path, capsys):
    assert _main(["summary", "--data", str(ds), "--out", str(ds / "texts.parquet")]) == 2
    assert "texts.parquet" in capsys.readouterr().err
    assert not (ds / "texts.parquet").exists()
    assert main(["profile", "--data", str(ds), "--bootstrap", "100", "--out", str(tmp_path / "p.csv")]) == 0


def test_an_output_under_another_name_in_the_dataset_folder_is_written(ds, capsys):
    """A name the folder is not read from stays allowed: the dataset is read as before."""
    assert main(["summary", "--data", str(ds.parent / "link"), "--out", str(ds / "summary.csv")]) == 0
    assert (ds / "summary.csv").read_text().startswith("benchmark,judge,")
    load_dataset(ds)


def test_an_import_into_a_folder_with_other_files_is_refused(tmp_path, capsys):
    """A run folder (calls, run.json, ...) imported over came out mixed: new tables beside the old run's."""
    run = tmp_path / "run"
    run.mkdir()
    (run / "calls.parquet").write_bytes(b"old run")
    (run / "run.json").write_text("{}")
    (tmp_path / "j.csv").write_text("judge,benchmark,item_id,order,verdict,gold\nj1,b,1,AB,A,A\nj1,b,1,BA,B,A\n")
    before = _snapshot(run)
    assert _main(["import", "table", str(tmp_path / "j.csv"), "--out", str(run)]) == 2
    err = capsys.readouterr().err
    assert "holds files that are not a dataset's" in err and "calls.parquet, run.json" in err and "--out" in err
    assert _snapshot(run) == before


def test_an_import_over_an_earlier_dataset_keeps_none_of_its_notes(ds, tmp_path, capsys):
    (ds / "notices.txt").write_text("a remark about the data this folder held before\n")
    (tmp_path / "j.csv").write_text("judge,benchmark,item_id,order,verdict,gold\nj9,b,1,AB,A,A\nj9,b,1,BA,B,A\n")
    assert _main(["import", "table", str(tmp_path / "j.csv"), "--out", str(ds)]) == 0
    assert not (ds / "notices.txt").exists() and load_dataset(ds).judges == ["j9"]
