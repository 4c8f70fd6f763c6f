"""inspect_ai logs: only pairwise judging logs are read (tests/fixtures/inspect/SOURCE.md).

``other_tasks/mmlu-summary-choices.eval`` is a real multiple-choice MMLU log from inspect_ai's own
tests and must be refused; the two pairwise logs are constructed in inspect's log format (no public
pairwise log exists). Expected verdicts are worked out by hand from the samples' answers.
"""

from __future__ import annotations

import json
import shutil
import struct
import zipfile
from pathlib import Path

import pytest

from cap_core.cli.main import main
from cap_core.errors import CAPInputError
from cap_core.importers.inspect_logs import PAIRWISE_NEEDS, answer_verdict, import_inspect

FX = Path(__file__).resolve().parents[2] / "fixtures"
LOGS = FX / "inspect"
MMLU = LOGS / "other_tasks" / "mmlu-summary-choices.eval"
GPT = LOGS / "2026-11-30T10-00-00_pairwise-judge_gpt.json"
QWEN = LOGS / "2026-11-30T11-00-00_pairwise-judge_qwen.eval"


def _verdicts(ds, judge):
    j = ds.judgments.filter(ds.judgments["judge"] == judge).join(ds.items.select("item_id", "gold"), on="item_id")
    return {(r["item_id"], r["order"]): (r["verdict"], r["gold"]) for r in j.iter_rows(named=True)}


@pytest.mark.parametrize("text, want", [
    ("A", "A"), ("b", "B"), ("[[B]]", "B"), ("Response A", "A"), ("(A).", "A"), ("tie", "tie"), ("A=B", "tie"),
    ("C", "unparsed"), ("[[C]]", "unparsed"), ("D", "unparsed"), ("The better one is A", "unparsed"),
    (None, "unparsed"), ("", "unparsed"),
])
def test_answers(text, want):
    assert answer_verdict(text) == want


def test_pairwise_json_and_eval_logs():
    ds = import_inspect(GPT.parent)  # the folder: both pairwise logs, the MMLU log skipped
    assert ds.judges == ["ollama/qwen2.5:7b", "openai/gpt-4o-mini"]
    assert dict(ds.items.select("item_id", "gold").iter_rows()) == {"p1": "A", "p2": "B", "p3": "A"}
    # BA samples: the prompt's letters are swapped back (prompt B = original A); targets likewise
    assert _verdicts(ds, "openai/gpt-4o-mini") == {
        ("p1", "AB"): ("A", "A"), ("p1", "BA"): ("A", "A"), ("p2", "AB"): ("B", "B"), ("p2", "BA"): ("A", "B"),
        ("p3", "AB"): ("tie", "A"), ("p3", "BA"): ("unparsed", "A")}
    assert _verdicts(ds, "ollama/qwen2.5:7b") == {  # read from the .eval ZIP
        ("p1", "AB"): ("A", "A"), ("p1", "BA"): ("B", "A"), ("p2", "AB"): ("B", "B"), ("p2", "BA"): ("B", "B"),
        ("p3", "AB"): ("A", "A"), ("p3", "BA"): ("A", "A")}
    assert ds.judgments["tokens"].unique().to_list() == [100]
    assert any("1 repeated judgments" in n for n in ds.notices)  # epoch 2 of p1-AB
    assert ds.items["benchmark"].unique().to_list() == ["pairwise_judge"]


def test_a_real_mmlu_log_is_refused():
    """The MMLU sample has four choices, target A and answer C: never a tie of a pairwise judge."""
    with pytest.raises(CAPInputError) as e:
        import_inspect(MMLU)
    err = e.value
    assert err.problem == "not a pairwise judging log (task mmlu_0_shot)" and err.row == 1
    assert err.column.endswith("choices") and err.got == "4 choices" and err.expected == PAIRWISE_NEEDS
    assert "metadata.order" in str(err) and "target A or B" in str(err)


def test_folder_imports_the_good_logs_and_reports_each_bad_one(tmp_path):
    shutil.copytree(LOGS, tmp_path / "logs")
    (tmp_path / "logs" / "broken.eval").write_bytes(b"not a zip")
    ds = import_inspect(tmp_path / "logs")
    assert ds.judges == ["ollama/qwen2.5:7b", "openai/gpt-4o-mini"]
    skipped = [n for n in ds.notices if "skipped" in n]
    assert len(skipped) == 2
    assert any("mmlu-summary-choices.eval" in n and "not a pairwise judging log" in n for n in skipped)
    assert any("broken.eval" in n and "not an inspect .eval log" in n for n in skipped)


def test_folder_without_a_good_log_is_refused(tmp_path, capsys):
    shutil.copy(MMLU, tmp_path / "mmlu.eval")
    (tmp_path / "broken.eval").write_bytes(b"not a zip")
    with pytest.raises(CAPInputError) as e:
        import_inspect(tmp_path)
    assert "1 other file" in e.value.problem
    rc = main(["import", "--format", "inspect", str(tmp_path), "--out", str(tmp_path / "o")])
    err = capsys.readouterr().err.strip()
    assert rc == 2 and err.startswith("error: ") and "\n" not in err


@pytest.mark.parametrize("change, column, got", [
    (lambda s: s["metadata"].pop("order"), "samples[0].metadata.order", None),
    (lambda s: s.update(target="C"), "samples[0].target", "C"),
    (lambda s: s.update(choices=["x", "y", "z"]), "samples[0].choices", "3 choices"),
])
def test_what_a_pairwise_log_needs(tmp_path, change, column, got):
    log = json.loads(GPT.read_text())
    change(log["samples"][0])
    p = tmp_path / "log.json"
    p.write_text(json.dumps(log))
    with pytest.raises(CAPInputError) as e:
        import_inspect(p)
    assert e.value.column == column and e.value.got == got and e.value.row == 1


def test_two_choices_are_a_pair(tmp_path):
    log = json.loads(GPT.read_text())
    for s in log["samples"]:
        s["choices"] = ["the original response A", "the original response B"]
    p = tmp_path / "log.json"
    p.write_text(json.dumps(log))
    assert import_inspect(p).judgments.height == 6


def test_no_scores():
    with pytest.raises(CAPInputError) as e:
        import_inspect(FX / "bad" / "inspect")
    assert e.value.row == 1 and e.value.column == "samples[0].scores" and e.value.file.endswith("no_scores.json")


def test_not_a_log(tmp_path):
    p = tmp_path / "x.eval"
    p.write_bytes(b"not a zip")
    with pytest.raises(CAPInputError, match="not an inspect .eval log"):
        import_inspect(p)


def test_zstd_log_without_zstandard(tmp_path):
    """A Zstandard member (inspect >= 0.3.206) is refused with the conversion command when the
    zstandard package is absent (method id 93 patched into a stored archive)."""
    try:
        import zstandard  # noqa: F401
        pytest.skip("zstandard installed: the member would be decompressed")
    except ImportError:
        pass
    p = tmp_path / "z.eval"
    with zipfile.ZipFile(QWEN) as zin, zipfile.ZipFile(p, "w", zipfile.ZIP_STORED) as zout:
        for n in zin.namelist():
            zout.writestr(n, zin.read(n))
    data = bytearray(p.read_bytes())
    i = 0
    while (i := data.find(b"PK\x01\x02", i)) >= 0:  # central directory: method at +10
        data[i + 10:i + 12] = struct.pack("<H", 93)
        i += 4
    p.write_bytes(bytes(data))
    with pytest.raises(CAPInputError) as e:
        import_inspect(p)
    assert "Zstandard" in e.value.problem and "inspect log convert" in e.value.fix


def test_cli_gold_from_targets_or_a_table(tmp_path, capsys):
    from cap_core.dataset import load_dataset

    assert main(["import", "--format", "inspect", str(LOGS), "--out", str(tmp_path / "a")]) == 0
    err = capsys.readouterr().err
    assert "skipped mmlu-summary-choices.eval" in err and "unparsed" in err
    assert load_dataset(tmp_path / "a").items["gold"].to_list() == ["A", "B", "A"]
    table = tmp_path / "gold.csv"
    table.write_text("item_id,gold\np1,B\n")
    assert main(["import", "--format", "inspect", str(LOGS), "--gold", str(table), "--out", str(tmp_path / "b")]) == 0
    assert load_dataset(tmp_path / "b").items.sort("item_id")["gold"].to_list() == ["B", None, None]


def test_cli_mmlu_log_one_line(tmp_path, capsys):
    rc = main(["import", "--format", "inspect", str(MMLU), "--out", str(tmp_path / "o")])
    err = capsys.readouterr().err.strip()
    assert rc == 2 and err.startswith("error: not a pairwise judging log") and "\n" not in err
    assert "metadata.order AB or BA" in err
