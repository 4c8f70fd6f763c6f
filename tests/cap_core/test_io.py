"""read_table: formats, encodings and error messages on small hand-written files."""

from __future__ import annotations

import pickle

import polars as pl
import pytest

from cap_core.errors import CAPInputError
from cap_core.io import read_table


def test_csv_with_bom_has_clean_header_and_no_notice(tmp_path):
    f = tmp_path / "items.csv"
    f.write_bytes(b"\xef\xbb\xbfbenchmark,item_id,gold\nb1,007,A\nb1,008,B\n")
    frame, notices = read_table(f, kind="items")
    assert frame.columns == ["benchmark", "item_id", "gold"]
    assert notices == []
    # ids keep their leading zeros because CSV cells arrive as text
    assert frame["item_id"].to_list() == ["007", "008"]


def test_cp1252_file_is_decoded_with_a_notice(tmp_path):
    f = tmp_path / "items.csv"
    f.write_bytes("benchmark,item_id,gold,subset\nb,1,A,café – naïve\n".encode("cp1252"))
    frame, notices = read_table(f, kind="items")
    assert frame["subset"][0] == "café – naïve"
    assert len(notices) == 1
    assert "cp1252" in notices[0] and "items.csv" in notices[0]
    # the first non-UTF-8 byte is on line 2
    assert "line 2" in notices[0]


def test_malformed_jsonl_line_names_file_and_row(tmp_path):
    f = tmp_path / "judgments.jsonl"
    f.write_text('{"judge": "j", "verdict": "A"}\n{"judge": "j", "verdict": \n{"judge": "k"}\n')
    with pytest.raises(CAPInputError) as err:
        read_table(f, kind="judgments")
    assert err.value.row == 2
    assert err.value.file == "judgments.jsonl"
    assert "judgments.jsonl" in str(err.value) and "row 2" in str(err.value)


def test_jsonl_non_object_line_is_rejected(tmp_path):
    f = tmp_path / "x.jsonl"
    f.write_text('{"a": 1}\n[1, 2]\n')
    with pytest.raises(CAPInputError) as err:
        read_table(f)
    assert err.value.row == 2


def test_pickle_is_never_read(tmp_path):
    f = tmp_path / "items.pkl"
    f.write_bytes(pickle.dumps({"benchmark": ["b"]}))
    with pytest.raises(CAPInputError) as err:
        read_table(f, kind="items")
    assert ".pkl" in str(err.value) and ".csv" in str(err.value)


def test_missing_file(tmp_path):
    with pytest.raises(CAPInputError, match="not found"):
        read_table(tmp_path / "nope.csv", kind="items")


def test_tsv_json_parquet_and_uploaded_bytes(tmp_path):
    tsv = tmp_path / "t.tsv"
    tsv.write_text("a\tb\n1\tx\n")
    frame, _ = read_table(tsv)
    assert frame.to_dicts() == [{"a": "1", "b": "x"}]

    js = tmp_path / "t.json"
    js.write_text('[{"a": 1, "b": "x"}, {"a": 2, "b": null}]')
    frame, _ = read_table(js)
    assert frame["a"].to_list() == [1, 2] and frame["b"].to_list() == ["x", None]

    pq = tmp_path / "t.parquet"
    pl.DataFrame({"a": [3, 4]}).write_parquet(pq)
    frame, _ = read_table(pq)
    assert frame["a"].to_list() == [3, 4]

    frame, notices = read_table("upload.jsonl", data=b'{"a": 5}\n\n{"a": 6}\n')
    assert frame["a"].to_list() == [5, 6] and notices == []


def test_json_that_is_not_a_list_and_bad_parquet(tmp_path):
    js = tmp_path / "t.json"
    js.write_text('{"a": 1}')
    with pytest.raises(CAPInputError, match="not a list"):
        read_table(js)
    pq = tmp_path / "t.parquet"
    pq.write_bytes(b"not parquet at all")
    with pytest.raises(CAPInputError, match="Parquet"):
        read_table(pq)


def test_ragged_csv_is_a_clear_error(tmp_path):
    f = tmp_path / "r.csv"
    f.write_text("a,b\n1,2,3\n")
    with pytest.raises(CAPInputError, match="could not be parsed"):
        read_table(f)


def test_pickle_renamed_to_csv_is_called_binary_not_empty(tmp_path):
    f = tmp_path / "items.csv"
    f.write_bytes(pickle.dumps({"benchmark": ["b"], "item_id": ["1"], "gold": ["A"]}))
    with pytest.raises(CAPInputError) as info:
        read_table(f, kind="items")
    msg = str(info.value)
    assert "not a text table" in msg and "pickle" in msg and "items.csv" in msg
    assert "empty" not in msg and "0 rows" not in msg


def test_binary_without_known_signature_and_utf16(tmp_path):
    f = tmp_path / "judgments.tsv"
    f.write_bytes(bytes(range(256)) * 4)  # NUL and control bytes throughout
    with pytest.raises(CAPInputError, match=r"not a text table \(it looks like binary data\)"):
        read_table(f, kind="judgments")
    g = tmp_path / "items.csv"
    g.write_bytes("benchmark,item_id,gold\nb,1,A\n".encode("utf-16"))
    with pytest.raises(CAPInputError, match="UTF-16"):
        read_table(g, kind="items")


@pytest.mark.parametrize("content", [b"", b"   \n\n", b"\xef\xbb\xbf\n"])
@pytest.mark.parametrize("name", ["items.csv", "items.jsonl", "items.json", "items.parquet"])
def test_empty_file_is_called_empty(tmp_path, name, content):
    f = tmp_path / name
    f.write_bytes(content)
    with pytest.raises(CAPInputError) as info:
        read_table(f, kind="items")
    err = info.value
    assert err.problem == "the items file is empty" and err.file == name
    assert "quote" not in str(err)


def test_cp1252_text_is_not_mistaken_for_binary(tmp_path):
    f = tmp_path / "items.csv"
    f.write_bytes(("benchmark,item_id,gold,subset\n" + "b,1,A,Zürich – “quoted” café\n" * 50).encode("cp1252"))
    frame, notices = read_table(f, kind="items")
    assert frame.height == 50 and "cp1252" in notices[0]


def test_json_fields_given_twice_are_found_beside_nested_objects(tmp_path):
    # records holding objects take the slower path of the check; a repeat inside a value is no column
    f = tmp_path / "t.json"
    f.write_text('[{"a": {"x": 1, "x": 2}, "b": "1"}, {"a": {"x": 3}, "b": "2"}]')
    frame, _ = read_table(f)
    assert frame["b"].to_list() == ["1", "2"]
    f.write_text('[{"a": {"x": 1}, "b": "1"}, {"a": {"x": 3}, "b": "2", "b": "3"}]')
    with pytest.raises(CAPInputError) as info:
        read_table(f)
    assert (info.value.row, info.value.column) == (2, "b")
    # a colon or bracket inside a string is text, not structure
    g = tmp_path / "t.jsonl"
    g.write_text('{"q": "a: [b] {c}", "r": "\\"x: y\\""}\n{"q": "[[[[[[[[[[[[[[[[[[[[", "r": ":"}\n')
    frame, _ = read_table(g)
    assert frame["q"].to_list() == ["a: [b] {c}", "[[[[[[[[[[[[[[[[[[[["]
