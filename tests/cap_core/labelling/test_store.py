"""Labels of your own pairs: presentation, the append-only file, resume, the labelled benchmark."""

from __future__ import annotations

import hashlib
import json

import polars as pl
import pytest

from cap_core.errors import CAPInputError
from cap_core.labelling import store as ls

CSV = ("item_id,question,response_a,response_b\n"
       + "".join(f"q{i},Question {i}?,Answer A{i},Answer B{i}\n" for i in range(1, 9))).encode()


def _pairs():
    return ls.read_pairs("mine.csv", CSV)


def test_read_pairs_defaults_and_errors():
    p = _pairs()
    assert p.columns == ["benchmark", "item_id", "subset", "question", "response_a", "response_b"]
    assert p["benchmark"].unique().to_list() == ["mine"] and p["item_id"].to_list()[:2] == ["q1", "q2"]
    no_id = ls.read_pairs("t.jsonl", b'{"question":"q","response_a":"a","response_b":"b"}\n')
    assert no_id["item_id"].to_list() == ["row-1"]
    with pytest.raises(CAPInputError) as e:
        ls.read_pairs("t.csv", b"question,response_a\nq,a\n")
    assert e.value.column == "response_b"
    with pytest.raises(CAPInputError) as e:
        ls.read_pairs("t.csv", b"question,response_a,response_b\nq,a,b\nq2,,b\n")
    assert e.value.row == 2 and e.value.column == "response_a"
    with pytest.raises(CAPInputError) as e:
        ls.read_pairs("t.csv", b"item_id,question,response_a,response_b\nx,q,a,b\nx,q,a,b\n")
    assert e.value.row == 2 and e.value.column == "item_id"


def test_presentation_is_seeded_and_recorded():
    # independent recomputation of the documented coin: SHA-256 of "<seed>:<benchmark>:<item_id>"
    for seed in (0, 7):
        for i in range(1, 9):
            want = hashlib.sha256(f"{seed}:mine:q{i}".encode()).digest()[0] % 2 == 1
            assert ls.shown_swapped(f"q{i}", seed, "mine") is want
    flips = [ls.shown_swapped(f"x{i}", 0) for i in range(400)]
    assert 160 < sum(flips) < 240  # a fair coin: 200 ± 4 sd
    assert ls.to_original("A", "BA") == "B" and ls.to_original("B", "AB") == "B"
    assert ls.to_original("tie", "BA") == "tie"


def test_append_read_resume(tmp_path):
    sha = ls.items_sha(CSV)
    path = ls.labels_path(tmp_path, "mine", sha)
    assert path == tmp_path / "labels" / f"mine-{sha[:12]}.jsonl"
    st = ls.LabelStore(path, sha)
    p = _pairs()
    assert ls.next_unlabelled(p, st.read()[0]) == 0
    st.append(benchmark="mine", item_id="q1", shown="BA", picked="A", seed=0, note="clearer")
    st.append(benchmark="mine", item_id="q2", shown="AB", picked="tie", seed=0)
    latest, notes = ls.LabelStore(path, sha).read()  # a new reader: nothing held in memory
    assert notes == [] and latest[("mine", "q1")]["label"] == "B" and latest[("mine", "q1")]["note"] == "clearer"
    assert ls.next_unlabelled(p, latest) == 2
    st.append(benchmark="mine", item_id="q1", shown="AB", picked="A", seed=0)  # relabel appends
    assert ls.LabelStore(path, sha).read()[0][("mine", "q1")]["label"] == "A"
    assert len(path.read_text().splitlines()) == 3
    with pytest.raises(CAPInputError):
        st.append(benchmark="mine", item_id="q3", shown="AB", picked="C", seed=0)


def test_cut_last_line_and_foreign_file(tmp_path):
    sha = ls.items_sha(CSV)
    path = tmp_path / "l.jsonl"
    st = ls.LabelStore(path, sha)
    st.append(benchmark="mine", item_id="q1", shown="AB", picked="B", seed=0)
    with open(path, "a") as fh:
        fh.write('{"v": 1, "benchmark": "mine", "item_id": "q2", "sho')  # the process stopped mid-line
    latest, notes = st.read()
    assert list(latest) == [("mine", "q1")] and "cut short" in notes[0]
    with pytest.raises(CAPInputError) as e:
        ls.LabelStore(path, "0" * 64).read()
    assert e.value.column == "items_sha" and e.value.row == 1
    path.write_text("garbage\n" + path.read_text())
    with pytest.raises(CAPInputError) as e:
        st.read()
    assert e.value.row == 1


def test_labelled_items_dataset_and_export(tmp_path):
    from cap_core.judging.items_io import load_run_items

    sha = ls.items_sha(CSV)
    st = ls.LabelStore(tmp_path / "l.jsonl", sha)
    for item, shown, picked in (("q1", "AB", "A"), ("q2", "BA", "A"), ("q3", "AB", "tie"), ("q4", "BA", "B")):
        st.append(benchmark="mine", item_id=item, shown=shown, picked=picked, seed=0)
    items, notes = ls.labelled_items(_pairs(), st.read()[0])
    assert dict(zip(items["item_id"], items["gold"])) == {"q1": "A", "q2": "B", "q4": "A"}
    assert "1 labelled tie are left out" in notes[0]
    judg = pl.DataFrame({"judge": ["j1"] * 4 + ["j2"] * 2, "benchmark": "pilot",
                         "item_id": ["q1", "q1", "q2", "q7", "q1", "q4"], "order": ["AB", "BA", "AB", "AB", "AB", "AB"],
                         "verdict": ["A", "A", "A", "B", "B", "A"]})
    ds = ls.labelled_dataset(items, judg)
    assert ds.judgments.height == 5 and set(ds.judgments["benchmark"]) == {"mine"}  # q7 unlabelled: left out
    j = ds.judgments.join(ds.items.select("item_id", "gold"), on="item_id")
    assert (j["verdict"] == j["gold"]).sum() == 3  # j1 q1 AB, j1 q1 BA, j2 q4
    with pytest.raises(CAPInputError) as e:
        ls.labelled_dataset(items, judg.filter(pl.col("item_id") == "q7"))
    assert e.value.argument == "judgments"
    path = ls.export_benchmark(items, tmp_path / "bench")
    back = load_run_items(path.parent)
    assert back.height == 3 and dict(zip(back["item_id"], back["gold"])) == {"q1": "A", "q2": "B", "q4": "A"}
    assert back.filter(pl.col("item_id") == "q2")["response_a"].to_list() == ["Answer A2"]
    assert json.loads((tmp_path / "l.jsonl").read_text().splitlines()[1])["picked"] == "A"


def test_a_hand_edited_labels_file(tmp_path):
    """A BOM (saved by an editor) is read; a line without item ids or a file that is not UTF-8 is a
    CAPInputError naming the file (was: a single BOM line silently dropped as 'cut short', KeyError,
    UnicodeDecodeError)."""
    sha = ls.items_sha(CSV)
    path = tmp_path / "l.jsonl"
    line = {"v": 1, "benchmark": "mine", "item_id": "q1", "shown": "AB", "picked": "A", "label": "A",
            "items_sha": sha}
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(line).encode() + b"\n")
    latest, notes = ls.LabelStore(path, sha).read()
    assert notes == [] and latest[("mine", "q1")]["label"] == "A"
    no_ids = {k: v for k, v in line.items() if k != "benchmark"}
    path.write_text(json.dumps(no_ids) + "\n" + json.dumps(line) + "\n")
    with pytest.raises(CAPInputError, match="row 1"):
        ls.LabelStore(path, sha).read()
    path.write_bytes(b"\xff\xfe" + json.dumps(line).encode("utf-16-le") + b"\n")
    with pytest.raises(CAPInputError, match="UTF-8"):
        ls.LabelStore(path, sha).read()
