"""Messages on gold-free data and on a file of another format say what is wrong (issue 19, finding 14).

``compare`` on data without gold said "judge has no profile rows", though the judges have rows: every
metric it compares needs gold. ``import --format alpacaeval`` of FastChat's gpt-4_pair.jsonl said
"malformed JSON ... Extra data" (JSON lines read as one JSON document) instead of naming the format the
file is in.
"""

from __future__ import annotations

from pathlib import Path

from cap_core.cli.main import main

MT = Path(__file__).resolve().parents[2] / "fixtures" / "mtbench" / "model_judgment" / "gpt-4_pair.jsonl"


def test_compare_without_gold_says_the_metrics_need_gold(tmp_path, capsys):
    rows = ["judge,benchmark,item_id,order,verdict,gold"]  # two judges, ten items, no gold at all
    rows += [f"{j},b,i{i},{o},{v}," for j in ("j1", "j2") for i in range(10) for o, v in (("AB", "A"), ("BA", "B"))]
    (tmp_path / "joined.csv").write_text("\n".join(rows) + "\n")
    assert main(["import", "table", str(tmp_path / "joined.csv"), "--out", str(tmp_path / "ds")]) == 0
    capsys.readouterr()
    status = main(["compare", "--data", str(tmp_path / "ds"), "--benchmark", "b", "--judge-a", "j1", "--judge-b", "j2",
                   "--bootstrap", "100", "--out", str(tmp_path / "c.csv")])
    err = capsys.readouterr().err.strip()
    assert status == 2 and len(err.splitlines()) == 1
    assert err.startswith("error: the compared metrics need gold") and "no profile rows" not in err
    assert not (tmp_path / "c.csv").exists()


def test_a_file_of_another_format_names_the_format_it_looks_like(tmp_path, capsys):
    assert main(["import", "--format", "alpacaeval", str(MT), "--out", str(tmp_path / "ds")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: the file looks like MT-Bench (FastChat), not AlpacaEval")
    assert "read it as the mtbench format" in err and "Extra data" not in err


def test_an_empty_judgment_file_says_it_holds_no_record(tmp_path, capsys):
    (tmp_path / "gpt-4_pair.jsonl").write_bytes(b"")
    assert main(["import", "--format", "mtbench", str(tmp_path / "gpt-4_pair.jsonl"), "--out",
                 str(tmp_path / "ds")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: no judgment in the MT-Bench files") and "gpt-4_pair.jsonl" in err
    assert "--gold-judge" not in err  # no gold option was given: none is named
