"""Importers of other tools' judge files: FastChat MT-Bench, Arena-Hard, inspect_ai (AlpacaEval: test_alpacaeval.py).

The fixtures under tests/fixtures/<tool>/ were written here in each tool's published format
(see each module's docstring); every expected verdict below is worked out by hand from the
fixture values and the tool's documented encoding, not read back from the importer.
"""

from __future__ import annotations

import json
import shutil
import struct
import zipfile
from pathlib import Path

import polars as pl
import pytest

from cap_core.cli.main import main
from cap_core.errors import CAPInputError
from cap_core.importers.arena_hard import import_arena_hard, score_verdict
from cap_core.importers.inspect_logs import answer_verdict, import_inspect
from cap_core.importers.mtbench import import_mtbench, winner_verdict

FX = Path(__file__).resolve().parents[2] / "fixtures"


def _verdicts(ds, judge):
    j = ds.judgments.filter(pl.col("judge") == judge).join(ds.items.select("item_id", "gold"), on="item_id")
    return {(r["item_id"].split(":")[0] if ":" in r["item_id"] else r["item_id"], r["order"]): (r["verdict"], r["gold"])
            for r in j.iter_rows(named=True)}


# ---------------------------------------------------------------- encodings


@pytest.mark.parametrize("score, want", [
    ("A>>B", "A"), ("A>B", "A"), ("B<A", "A"), ("B<<A", "A"), ("A=B", "tie"), ("B=A", "tie"),
    ("B>A", "B"), ("B>>A", "B"), ("A<B", "B"), ("A<<B", "B"), ("[[a>b]]", "A"), (None, "unparsed"),
    ("A>>>B", "unparsed"), ("C", "unparsed"),
])
def test_arena_hard_labels(score, want):
    assert score_verdict(score) == want


@pytest.mark.parametrize("winner, want", [
    ("model_1", "first"), ("model_2", "second"), ("tie", "tie"), ("tie (bothbad)", "tie"),
    ("tie (inconsistent)", "tie"), ("error", "unparsed"), (None, "unparsed"), ("model_3", "unparsed"),
])
def test_mtbench_winners(winner, want):
    assert winner_verdict(winner, "model_1", "model_2") == want


@pytest.mark.parametrize("text, want", [
    ("A", "A"), ("b", "B"), ("[[B]]", "B"), ("Response A", "A"), ("(A).", "A"), ("tie", "tie"),
    ("[[C]]", "tie"), ("A=B", "tie"), ("The better one is A", "unparsed"), (None, "unparsed"), ("", "unparsed"),
])
def test_inspect_answers(text, want):
    assert answer_verdict(text) == want


# ---------------------------------------------------------------- MT-Bench


def test_mtbench_pair_file_with_expert_gold():
    ds = import_mtbench(FX / "mtbench", gold_judge="expert_*")
    # items oriented by sorted model names; experts: q81 vicuna (B) x2, q82 gpt-3.5-turbo (B),
    # q83 one 'tie (bothbad)' and one gpt-4 (B) -> B
    assert dict(zip([i.split(":")[0] for i in ds.items["item_id"]], ds.items["gold"])) == {
        "81": "B", "82": "B", "83": "B"}
    v = {}
    for judge in ds.judgments["judge"].unique():
        v.update(_verdicts(ds, judge))
    # q81: model_1 = vicuna (canonical B): game 1 shows B first -> BA, winner model_1 -> B;
    #      game 2 shows alpaca (A) first -> AB, winner model_1 -> B
    # q82: model_1 = alpaca (A): g1 AB model_2 -> B; g2 BA tie
    # q83: g1 AB error -> unparsed; g2 BA model_2 (gpt-4) -> B
    assert v == {("81", "BA"): ("B", "B"), ("81", "AB"): ("B", "B"), ("82", "AB"): ("B", "B"),
                 ("82", "BA"): ("tie", "B"), ("83", "AB"): ("unparsed", "B"), ("83", "BA"): ("B", "B")}
    assert set(ds.judgments["judge"]) == {"gpt-4 (pair-v2)", "gpt-4 (pair-v2-multi-turn)"}
    assert ds.declarations.filter(pl.col("condition") == "C7").height == 1
    assert sorted(ds.items["subset"]) == ["turn1", "turn1", "turn2"]


def test_mtbench_wrong_file():
    with pytest.raises(CAPInputError) as e:
        import_mtbench(FX / "bad" / "mtbench", gold_judge="x")
    assert e.value.row == 1 and e.value.column == "model_2" and e.value.file.endswith("gpt-4_pair.jsonl")


def test_mtbench_malformed_line(tmp_path):
    p = tmp_path / "gpt-4_pair.jsonl"
    p.write_text((FX / "mtbench/model_judgment/gpt-4_pair.jsonl").read_text() + "{not json\n")
    with pytest.raises(CAPInputError) as e:
        import_mtbench(p, gold_judge="x")
    assert e.value.row == 4 and "malformed JSON" in e.value.problem


# ---------------------------------------------------------------- Arena-Hard


def test_arena_hard_with_reference_judge():
    ds = import_arena_hard(FX / "arena_hard", gold_judge="gemini-2.5")
    # baseline o3-mini sorts before qwq-32b: canonical A = baseline; game 1 = AB, game 2 = BA
    # with the game's letters flipped. gemini: u1 B,B -> B; u2 A,A -> A; u3 ties -> no gold; u4 B,B -> B
    assert dict(zip([i.split(":")[0] for i in ds.items["item_id"]], ds.items["gold"])) == {
        "u1": "B", "u2": "A", "u4": "B"}
    v = _verdicts(ds, "gpt-4.1")
    # gpt-4.1: u1 B>A -> B (AB), A>B in game 2 = model -> B (BA); u2 A=B tie, B>>A = baseline -> A;
    # u4 A<<B -> B, B<A = game's A = model -> B; u3 (null games) has no gold and is left out
    assert v == {("u1", "AB"): ("B", "B"), ("u1", "BA"): ("B", "B"), ("u2", "AB"): ("tie", "A"),
                 ("u2", "BA"): ("A", "A"), ("u4", "AB"): ("B", "B"), ("u4", "BA"): ("B", "B")}
    note = next(n for n in ds.notices if "judge gpt-4.1" in n)
    assert "2 unparsed" in note and "null game = unparsed x1" in note
    assert dict(zip(ds.items["item_id"].str.split(":").list.first(), ds.items["subset"]))["u4"] == "creative_writing"


def test_arena_hard_v01_without_baseline(tmp_path):
    rec = {"question_id": "q1", "model": "gpt-4-0613", "judge": "gpt-4-1106-preview",
           "games": [{"user_prompt": "...", "judgment": "...", "score": "A>B"},
                     {"user_prompt": "...", "judgment": "...", "score": "A>B"}]}
    p = tmp_path / "gpt-4-0613.jsonl"
    p.write_text(json.dumps(rec) + "\n")
    ref = dict(rec, judge="ref", games=[{"score": "A>>B"}, {"score": "B>>A"}])
    (tmp_path / "ref.jsonl").write_text(json.dumps(ref) + "\n")
    ds = import_arena_hard(tmp_path, gold_judge="ref", baseline="gpt-4-0314")
    # canonical A = gpt-4-0314 (baseline); ref says baseline better in both games -> gold A;
    # the judge: game 1 A>B = baseline -> A; game 2 A>B = model -> B
    assert ds.items["item_id"].to_list() == ["q1:gpt-4-0314|gpt-4-0613"] and ds.items["gold"].to_list() == ["A"]
    assert dict(zip(ds.judgments["order"], ds.judgments["verdict"])) == {"AB": "A", "BA": "B"}


def test_arena_hard_wrong_file():
    with pytest.raises(CAPInputError) as e:
        import_arena_hard(FX / "bad" / "arena_hard", gold_judge="x")
    assert e.value.row == 1 and e.value.column == "games" and e.value.got == 1


# ---------------------------------------------------------------- inspect_ai


def test_inspect_json_and_eval_logs():
    ds = import_inspect(FX / "inspect")
    assert dict(zip(ds.items["item_id"], ds.items["gold"])) == {"p1": "A", "p2": "B", "p3": "A"}
    gpt = _verdicts(ds, "openai/gpt-4o-mini")
    # BA samples: the prompt's letters are swapped back (prompt B = original A)
    assert gpt == {("p1", "AB"): ("A", "A"), ("p1", "BA"): ("A", "A"), ("p2", "AB"): ("B", "B"),
                   ("p2", "BA"): ("A", "B"), ("p3", "AB"): ("tie", "A"), ("p3", "BA"): ("unparsed", "A")}
    qwen = _verdicts(ds, "ollama/qwen2.5:7b")  # read from the .eval ZIP
    assert qwen == {("p1", "AB"): ("A", "A"), ("p1", "BA"): ("B", "A"), ("p2", "AB"): ("B", "B"),
                    ("p2", "BA"): ("B", "B"), ("p3", "AB"): ("A", "A"), ("p3", "BA"): ("A", "A")}
    assert ds.judgments["tokens"].unique().to_list() == [100]
    assert any("1 repeated judgments" in n for n in ds.notices)  # epoch 2 of p1-AB
    assert ds.items["benchmark"].unique().to_list() == ["pairwise_judge"]


def test_inspect_wrong_file():
    with pytest.raises(CAPInputError) as e:
        import_inspect(FX / "bad" / "inspect")
    assert e.value.row == 1 and e.value.column == "samples[0].scores" and e.value.file.endswith("no_scores.json")


def test_inspect_not_a_log(tmp_path):
    p = tmp_path / "x.eval"
    p.write_bytes(b"not a zip")
    with pytest.raises(CAPInputError, match="not an inspect .eval log"):
        import_inspect(p)


def test_inspect_zstd_log_without_zstandard(tmp_path):
    """A Zstandard member (inspect >= 0.3.206) is refused with the conversion command when the
    zstandard package is absent (method id 93 patched into a stored archive)."""
    try:
        import zstandard  # noqa: F401
        pytest.skip("zstandard installed: the member would be decompressed")
    except ImportError:
        pass
    src = FX / "inspect" / "2026-11-30T11-00-00_pairwise-judge_qwen.eval"
    p = tmp_path / "z.eval"
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(p, "w", zipfile.ZIP_STORED) as zout:
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


# ---------------------------------------------------------------- CLI and use downstream


@pytest.mark.parametrize("fmt, path, gold", [
    ("mtbench", "mtbench", ["--gold-judge", "expert_*"]),
    ("arena-hard", "arena_hard", ["--gold-judge", "gemini-2.5"]),
    ("inspect", "inspect", []),
])
def test_cli_import_formats(tmp_path, capsys, fmt, path, gold):
    from cap_core.dataset import load_dataset
    from cap_core.profile.conditions import compute_profile

    out = tmp_path / "ds"
    assert main(["import", "--format", fmt, str(FX / path), *gold, "--out", str(out)]) == 0
    ds = load_dataset(out)
    assert ds.judgments.height > 0
    err = capsys.readouterr().err
    assert " A, " in err and "unparsed" in err  # the counts notice
    prof = compute_profile(ds, n_resamples=50, seed=0).profile  # the dataset profiles like any other
    assert prof.filter(pl.col("condition") == "overall").height > 0


@pytest.mark.parametrize("fmt, path", [("mtbench", "mtbench"),
                                       ("arena-hard", "arena_hard"), ("inspect", "inspect")])
def test_cli_wrong_file_one_line(tmp_path, capsys, fmt, path):
    rc = main(["import", "--format", fmt, str(FX / "bad" / path), "--gold-judge", "x", "--out", str(tmp_path / "o")])
    err = capsys.readouterr().err.strip()
    assert rc == 2 and err.startswith("error: ") and "\n" not in err
    assert ("row 1" in err or "row 2" in err) and "Fix:" in err


def test_cli_kind_and_format_disagree(tmp_path, capsys):
    assert main(["import", "mtbench", str(FX / "mtbench"), "--format", "inspect", "--out", str(tmp_path)]) == 2
    assert "two formats" in capsys.readouterr().err


def test_folder_copy_is_read_the_same(tmp_path):
    """The importer reads a user's copy anywhere (nothing depends on the fixture path)."""
    shutil.copytree(FX / "arena_hard", tmp_path / "ah")
    a = import_arena_hard(tmp_path / "ah", gold_judge="gemini-2.5")
    b = import_arena_hard(FX / "arena_hard", gold_judge="gemini-2.5")
    assert a.judgments.equals(b.judgments)
