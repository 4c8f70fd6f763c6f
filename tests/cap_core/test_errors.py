"""Every user-facing message of the shared model and the importers, asserted with ``match=``.

In the style of scipy's ``test_bootstrap_iv``: each block feeds one bad input through a
real entry point (``read_table``, the schema validators, ``import_table``, ``load_dataset``,
``compute_profile``, the public importers) and matches the whole rendered message:
``<problem> [file F, row R, column C | argument `A`]: expected E, got G. Fix: ...``.
The expected texts are written here by hand, from the issue's wording; none is pasted
from the code's output.
"""

from __future__ import annotations

import re

import polars as pl
import pytest

from cap_core.config import MAX_RESAMPLES
from cap_core.dataset import Dataset, load_dataset, save_dataset
from cap_core.errors import CAPInputError
from cap_core.importers import import_judgebench, import_llmbar, import_table
from cap_core.io import MAX_JSON_DEPTH, read_table
from cap_core.profile.conditions import compute_profile
from cap_core.schema import (
    validate_declarations,
    validate_items,
    validate_judgments,
    validate_profile,
)

ITEMS = "benchmark,item_id,gold\nb,1,A\nb,2,B\n"
JUDGMENTS = "judge,benchmark,item_id,order,verdict\nj,b,1,AB,A\nj,b,2,AB,B\n"


def m(text: str) -> str:
    """A regex matching ``text`` literally, from the start of the message."""
    return "^" + re.escape(text)


def write(tmp_path, name: str, content: str | bytes):
    f = tmp_path / name
    f.write_bytes(content if isinstance(content, bytes) else content.encode())
    return f


def test_message_layout():
    err = CAPInputError("verdict outside the allowed set", file="j.csv", row=3, column="verdict",
                        expected="one of A, B, tie, unparsed", got="maybe", fix="write 'unparsed' for unreadable ones")
    assert str(err) == ("verdict outside the allowed set [file j.csv, row 3, column 'verdict']: "
                        "expected one of A, B, tie, unparsed, got 'maybe'. Fix: write 'unparsed' for unreadable ones")
    err = CAPInputError("bad level", argument="level", expected="a fraction", got=95)
    assert str(err) == "bad level [argument `level`]: expected a fraction, got 95"
    # one line, always; a long value is cut
    err = CAPInputError("two\nlines", got="x" * 500, fix="a\nfix")
    assert "\n" not in str(err) and str(err) == "two lines: got '" + "x" * 116 + ".... Fix: a fix"
    assert err.replace(argument="--bootstrap").argument == "--bootstrap"
    assert err.with_file("f.csv").file == "f.csv"


def test_read_table_iv(tmp_path):
    with pytest.raises(CAPInputError, match=m("no file given [argument `path`]: expected a path or file name, got ''. "
                                              "Fix: pass the path of a CSV, JSONL or Parquet file")):
        read_table("")
    with pytest.raises(CAPInputError, match=m("uploaded content is not bytes [file up.csv, argument `data`]: expected "
                                              "bytes, got 'str'")):
        read_table("up.csv", data="benchmark,item_id,gold")
    with pytest.raises(CAPInputError, match=m("unsupported file type for the items table [file items.pkl]: "
                                              "expected one of .csv, .json, .jsonl, .ndjson, .parquet, .pq, .tab, "
                                              ".tsv, got '.pkl'. Fix: save the table as CSV")):
        read_table(tmp_path / "items.pkl", kind="items")
    with pytest.raises(CAPInputError, match=m(f"items file not found [file {tmp_path / 'nope.csv'}]. Fix: check the path")):
        read_table(tmp_path / "nope.csv", kind="items")
    with pytest.raises(CAPInputError, match=m("the items file is empty [file e.csv]: expected a header row and at "
                                              "least one record, got '0 bytes'. Fix: choose the file")):
        read_table(write(tmp_path, "e.csv", b""), kind="items")
    # binary garbage: one short line
    with pytest.raises(CAPInputError, match=m("the items file is not a text table (it looks like binary data) "
                                              "[file g.csv]. Fix: save it as CSV, TSV, JSONL or Parquet") + "$"):
        read_table(write(tmp_path, "g.csv", bytes(range(256)) * 4), kind="items")
    with pytest.raises(CAPInputError, match=m("the items file is not a text table (it looks like a ZIP archive or "
                                              "Excel workbook) [file x.csv]")):
        read_table(write(tmp_path, "x.csv", b"PK\x03\x04" + bytes(200)), kind="items")
    # a wrong delimiter says so
    with pytest.raises(CAPInputError, match=m("the items file separates its fields with ';' (semicolon), not ',' as a "
                                              "CSV file does [file s.csv, row 0]: expected a header such as "
                                              "benchmark,item_id,gold, got 'benchmark;item_id;gold'. Fix: export it "
                                              "again with commas between fields")):
        read_table(write(tmp_path, "s.csv", ITEMS.replace(",", ";")), kind="items")
    with pytest.raises(CAPInputError, match=m("the items file separates its fields with ',' (comma), not '\\t' as a "
                                              "TSV file does [file c.tsv, row 0]: expected a header such as "
                                              "benchmark<tab>item_id<tab>gold, got 'benchmark,item_id,gold'. "
                                              "Fix: rename the file to .csv")):
        read_table(write(tmp_path, "c.tsv", ITEMS), kind="items")
    with pytest.raises(CAPInputError, match=m("the items file separates its fields with '\\t' (tab), not ',' as a "
                                              "CSV file does [file t.csv, row 0]")) as info:
        read_table(write(tmp_path, "t.csv", ITEMS.replace(",", "\t")), kind="items")
    assert info.value.fix == "rename the file to .tsv"
    # two columns of one name
    with pytest.raises(CAPInputError, match=m("two columns named 'gold' in the items file (columns 3 and 4) "
                                              "[file d.csv, row 0, column 'gold']: expected each column name once. "
                                              "Fix: rename or delete one of the two columns")):
        read_table(write(tmp_path, "d.csv", "benchmark,item_id,gold, gold\nb,1,A,B\n"), kind="items")
    with pytest.raises(CAPInputError, match=m("two fields named 'gold' in one record of the items file "
                                              "[file d.jsonl, row 3, column 'gold']: expected each field once per "
                                              "record. Fix: delete or rename one of the two fields")):
        read_table(write(tmp_path, "d.jsonl", '{"gold": "A"}\n\n{"gold": "A", "gold": "B"}\n'), kind="items")
    # JSON
    with pytest.raises(CAPInputError, match=m("malformed JSON on line 2 of the items file [file bad.jsonl, row 2]: "
                                              "expected one complete JSON object per line, got '{\"a\": '. "
                                              "Fix: repair line 2")):
        read_table(write(tmp_path, "bad.jsonl", '{"a": 1}\n{"a": \n'), kind="items")
    with pytest.raises(CAPInputError, match=m("malformed JSON in the items file [file bad.json, row 1]: "
                                              "expected a JSON list of objects. Fix: repair the JSON")):
        read_table(write(tmp_path, "bad.json", "[{"), kind="items")
    with pytest.raises(CAPInputError, match=m("the items JSON file is not a list of records [file o.json]: expected "
                                              'a list of objects, or {"records": [...]}, got \'dict\'')):
        read_table(write(tmp_path, "o.json", '{"a": 1}'), kind="items")
    with pytest.raises(CAPInputError, match=m("record is not a JSON object in the items table [file l.json, row 2]: "
                                              "expected one object per record")):
        read_table(write(tmp_path, "l.json", '[{"a": 1}, [1]]'), kind="items")
    with pytest.raises(CAPInputError, match=m("a field mixes value types across records in the items table "
                                              "[file mix.json]")):
        read_table(write(tmp_path, "mix.json", '[{"a": 1}, {"a": [1]}]'), kind="items")
    deep = "[" * 3000 + "]" * 3000
    with pytest.raises(CAPInputError, match=m("JSON nested too deeply in the items file [file deep.json]: expected "
                                              f"flat records: strings, numbers or lists nested at most "
                                              f"{MAX_JSON_DEPTH} deep. Fix: write one record per row")):
        read_table(write(tmp_path, "deep.json", deep), kind="items")
    with pytest.raises(CAPInputError, match=m("JSON nested too deeply in the items file [file deep.jsonl, row 2]")):
        read_table(write(tmp_path, "deep.jsonl", '{"a": 1}\n{"a": ' + deep + "}\n"), kind="items")
    nested = "[" * (MAX_JSON_DEPTH + 1) + "]" * (MAX_JSON_DEPTH + 1)
    with pytest.raises(CAPInputError, match=m("JSON nested too deeply in the items file "
                                              "[file n.json, row 2, column 'x']")):
        read_table(write(tmp_path, "n.json", '[{"x": 1}, {"x": ' + nested + "}]"), kind="items")
    ok = "[" * MAX_JSON_DEPTH + "]" * MAX_JSON_DEPTH
    assert read_table(write(tmp_path, "ok.json", '[{"x": ' + ok + "}]"), kind="items")[0].height == 1
    # CSV and Parquet
    with pytest.raises(CAPInputError, match=m("the items file could not be parsed as CSV [file r.csv]") + ".*"
                       + re.escape("Fix: check that every row has as many fields as the header")):
        read_table(write(tmp_path, "r.csv", "a,b\n1,2,3\n"), kind="items")
    with pytest.raises(CAPInputError, match=m("the items file is not readable Parquet [file p.parquet]") + ".*"
                       + re.escape("Fix: re-export the table as Parquet or CSV")):
        read_table(write(tmp_path, "p.parquet", b"PAR1 not really"), kind="items")


def _items(**over) -> pl.DataFrame:
    base = {"benchmark": ["b", "b", "b"], "item_id": ["1", "2", "3"], "gold": ["A", "B", "A"]}
    base.update(over)
    return pl.DataFrame(base)


def _judgments(**over) -> pl.DataFrame:
    base = {"judge": ["j", "j", "j"], "benchmark": ["b", "b", "b"], "item_id": ["1", "1", "2"],
            "order": ["AB", "BA", "AB"], "verdict": ["A", "B", "tie"]}
    base.update(over)
    return pl.DataFrame(base)


def test_items_iv():
    f = "items.csv"
    with pytest.raises(CAPInputError, match=m("the items table is empty [file items.csv]: expected at least one row, "
                                              "got '0 rows'. Fix: check that the file holds items records")):
        validate_items(_items().head(0), file=f)
    with pytest.raises(CAPInputError, match=m("missing column 'item_id' in the items table [file items.csv, column "
                                              "'item_id']: expected columns benchmark, item_id, gold, got ['benchmark', "
                                              "'gold', 'itemid']. Fix: rename column 'itemid' to 'item_id'")):
        validate_items(_items().rename({"item_id": "itemid"}), file=f)
    with pytest.raises(CAPInputError, match=m("empty item_id in the items table (2 rows) [file items.csv, row 2, "
                                              "column 'item_id']: expected a non-empty item_id on every row. "
                                              "Fix: give every item an id")):
        validate_items(_items(item_id=["1", None, " "]), file=f)
    with pytest.raises(CAPInputError, match=m("empty benchmark in the items table (1 row) [file items.csv, row 3, "
                                              "column 'benchmark']: expected a non-empty benchmark on every row, "
                                              "got '  '. Fix: name the benchmark on every row")):
        validate_items(_items(benchmark=["b", "b", "  "]), file=f)
    with pytest.raises(CAPInputError, match=m("gold outside the allowed set in the items table (1 row) [file items.csv, "
                                              "row 2, column 'gold']: expected one of A, B, got 'C'. Fix: gold must say "
                                              "which response is better: A or B")):
        validate_items(_items(gold=["A", "C", "B"]), file=f)
    with pytest.raises(CAPInputError, match=m("failure_type outside the allowed set in the items table (1 row) "
                                              "[file items.csv, row 2, column 'failure_type']: expected one of "
                                              "factual_fabrication, logical_reversal, overclaim, omission")):
        validate_items(_items(failure_type=[None, "typo", None]), file=f)
    with pytest.raises(CAPInputError, match=m("value of the wrong type in the items table [file items.csv, row 3, "
                                              "column 'len_a']: expected Int64, got 'long'. Fix: make every value in "
                                              "'len_a' a Int64 (or leave it empty)")):
        validate_items(_items(len_a=["1", None, "long"]), file=f)
    with pytest.raises(CAPInputError, match=m("len_b below 0 or not a finite number in the items table (1 row) "
                                              "[file items.csv, row 2, column 'len_b']: expected a response length in "
                                              "characters, 0 or more, got -4. Fix: correct the len_b values, or leave "
                                              "a cell empty when the value is unknown")):
        validate_items(_items(len_b=[3, -4, 5]), file=f)
    with pytest.raises(CAPInputError, match=m("unknown variant in the items table (1 row) [file items.csv, row 3, "
                                              "column 'variant']: expected one of original, plain, polished, "
                                              "length_padded, adversarial, got 'Length-Padded'. Fix: did you mean "
                                              "'length_padded'? write a known variant, or name a new one in a "
                                              "declarations row with selector 'variant'")):
        validate_items(_items(variant=["plain", None, "Length-Padded"]), file=f)
    with pytest.raises(CAPInputError, match=m("unknown variant in the items table (1 row) [file items.csv, row 1, "
                                              "column 'variant']: expected one of original, plain, polished, "
                                              "length_padded, adversarial, mine, got 'zzz'. Fix: write a known")):
        validate_items(_items(variant=["zzz", "mine", None]), file=f, variants=["mine"])
    with pytest.raises(CAPInputError, match=m("list values in the gold column of the items table (column type "
                                              "List(String)) [file items.csv, row 1, column 'gold']: expected one "
                                              "value per cell (String), got ['A']. Fix: store one gold per row")):
        validate_items(_items(gold=[["A"], ["B"], ["A"]]), file=f)
    with pytest.raises(CAPInputError, match=m("item_id longer than 500 characters in the items table (1 row) "
                                              "[file items.csv, row 3, column 'item_id']: expected an id of at most "
                                              "500 characters")):
        validate_items(_items(item_id=["1", "2", "i" * 501]), file=f)
    with pytest.raises(CAPInputError, match=m("duplicate key (benchmark, item_id) in the items table: rows 2 and 3 "
                                              "share a key (2 rows repeat some key) [file items.csv, row 2, column "
                                              "'item_id']: expected each key once")):
        validate_items(_items(item_id=["1", "2", "2"]), file=f)
    # rows= names the file's rows (a joined file's items), not the frame's positions
    with pytest.raises(CAPInputError, match=m("gold outside the allowed set in the items table (1 row) "
                                              "[file all.csv, row 9, column 'gold']")):
        validate_items(_items(gold=["A", "B", "X"]), file="all.csv", rows=[1, 5, 9])
    with pytest.raises(CAPInputError, match=m("one file row number per table row is needed [argument `rows`]: "
                                              "expected 3 row numbers, got 2")):
        validate_items(_items(), rows=[1, 2])


def test_judgments_iv():
    f = "judgments.csv"
    items = validate_items(_items())
    with pytest.raises(CAPInputError, match=m("missing column 'verdict' in the judgments table [file judgments.csv, "
                                              "column 'verdict']: expected columns judge, benchmark, item_id, order, "
                                              "verdict")):
        validate_judgments(_judgments().drop("verdict"), file=f)
    with pytest.raises(CAPInputError, match=m("empty judge in the judgments table (1 row) [file judgments.csv, row 2, "
                                              "column 'judge']: expected a non-empty judge on every row. Fix: name "
                                              "the judge on every row")):
        validate_judgments(_judgments(judge=["j", "", "j"]), file=f)
    with pytest.raises(CAPInputError, match=m("order outside the allowed set in the judgments table (1 row) "
                                              "[file judgments.csv, row 2, column 'order']: expected one of AB, BA, "
                                              "got 'swapped'. Fix: AB is the original presentation, BA the swapped "
                                              "one")):
        validate_judgments(_judgments(order=["AB", "swapped", "AB"]), file=f)
    with pytest.raises(CAPInputError, match=m("verdict outside the allowed set in the judgments table (1 row) "
                                              "[file judgments.csv, row 3, column 'verdict']: expected one of A, B, "
                                              "tie, unparsed, got 'maybe'. Fix: map verdicts back to the original "
                                              "responses and write unreadable ones as 'unparsed'")):
        validate_judgments(_judgments(verdict=["A", "B", "maybe"]), file=f)
    with pytest.raises(CAPInputError, match=m("list values in the verdict column of the judgments table (column type "
                                              "List(String)) [file judgments.csv, row 1, column 'verdict']: expected "
                                              "one value per cell (String), got ['A']. Fix: store one verdict per "
                                              "row: explode the list into rows")):
        validate_judgments(_judgments(verdict=[["A"], ["B"], ["tie"]]), file=f)
    with pytest.raises(CAPInputError, match=m("struct values in the verdict column of the judgments table")):
        validate_judgments(_judgments(verdict=[{"v": "A"}] * 3), file=f)
    with pytest.raises(CAPInputError, match=m("rationale_supported outside the allowed set in the judgments table "
                                              "[file judgments.csv, row 2, column 'rationale_supported']: expected "
                                              "0, 1 or empty, got 2")):
        validate_judgments(_judgments(rationale_supported=[1, 2, None]), file=f)
    for col, value, meaning in (("cost_usd", -0.5, "a cost in dollars, 0 or more"),
                                ("latency_s", float("nan"), "a latency in seconds, 0 or more"),
                                ("tokens", -3, "a token count, 0 or more")):
        with pytest.raises(CAPInputError, match=m(f"{col} below 0 or not a finite number in the judgments table "
                                                  f"(1 row) [file judgments.csv, row 3, column '{col}']: expected "
                                                  f"{meaning}, got {value!r}")):
            validate_judgments(_judgments(**{col: [type(value)(1), None, value]}), file=f)
    with pytest.raises(CAPInputError, match=m("duplicate key (judge, benchmark, item_id, order) in the judgments table: "
                                              "rows 1 and 2 share a key")):
        validate_judgments(_judgments(order=["AB", "AB", "BA"]), file=f)
    with pytest.raises(CAPInputError, match=m("judgment for an item that is not in the items table (1 row) "
                                              "[file judgments.csv, row 3, column 'item_id']: expected an item_id "
                                              "listed in items for benchmark 'b', got '99'. Fix: import the items "
                                              "together with the judgments, or correct the item_id")):
        validate_judgments(_judgments(item_id=["1", "1", "99"]), items, file=f)


def test_declarations_and_profile_iv():
    f = "decl.csv"
    decl = {"benchmark": ["b", "b"], "condition": ["C7", "C1"], "status": ["direct", "approximate"],
            "selector": ["order", "subset"], "values": [["AB", "BA"], ["law"]]}
    assert validate_declarations(pl.DataFrame(decl), file=f).height == 2
    with pytest.raises(CAPInputError, match=m("condition outside the allowed set in the declarations table (1 row) "
                                              "[file decl.csv, row 2, column 'condition']: expected one of C1, C2, C3, "
                                              "C4, C5, C6, C7, C8, got 'C9'. Fix: use condition ids C1..C8")):
        validate_declarations(pl.DataFrame({**decl, "condition": ["C7", "C9"]}), file=f)
    with pytest.raises(CAPInputError, match=m("status outside the allowed set in the declarations table (1 row) "
                                              "[file decl.csv, row 1, column 'status']: expected one of direct, "
                                              "approximate, augmented, unavailable, got 'approx'")):
        validate_declarations(pl.DataFrame({**decl, "status": ["approx", "direct"]}), file=f)
    with pytest.raises(CAPInputError, match=m("declaration selector names a column the items table does not have "
                                              "[file decl.csv, row 2, column 'selector']: expected one of subset, "
                                              "failure_type, variant, flags (item columns), order (C7) or rationale "
                                              "(C8), got 'topic'. Fix: copy the 'topic' values into the subset or "
                                              "flags column of the items and select that column")):
        validate_declarations(pl.DataFrame({**decl, "selector": ["order", "topic"]}), file=f)
    with pytest.raises(CAPInputError, match=m("declaration selector names a column the items table does not have "
                                              "[file decl.csv, row 2, column 'selector']") + ".*"
                       + re.escape("got 'failure-type'. Fix: did you mean 'failure_type'?")):
        validate_declarations(pl.DataFrame({**decl, "selector": ["order", "failure-type"]}), file=f)
    with pytest.raises(CAPInputError, match=m("duplicate key (benchmark, condition) in the declarations table")):
        validate_declarations(pl.DataFrame({**decl, "condition": ["C7", "C7"]}), file=f)
    with pytest.raises(CAPInputError, match=m("value of the wrong type in the declarations table [file decl.csv, "
                                              "column 'values']: expected List(String)")):
        validate_declarations(pl.DataFrame({**decl, "values": ["AB", "law"]}), file=f)
    prof = pl.DataFrame({"judge": ["j"], "benchmark": ["b"], "condition": ["C1"], "metric": ["pa"], "value": [107.0]})
    with pytest.raises(CAPInputError, match=m("profile value outside 0-100 percent [file p.csv, row 1, column 'value']: "
                                              "expected a percentage between 0 and 100, got 107.0. Fix: write values "
                                              "in percent, not as proportions")):
        validate_profile(prof, file="p.csv")
    with pytest.raises(CAPInputError, match=m("metric outside the allowed set in the profile table (1 row) "
                                              "[file p.csv, row 1, column 'metric']")):
        validate_profile(prof.with_columns(pl.lit("acc").alias("metric"), pl.lit(50.0).alias("value")), file="p.csv")


def test_import_table_iv(tmp_path):
    items, judg = write(tmp_path, "items.csv", ITEMS), write(tmp_path, "judgments.csv", JUDGMENTS)
    with pytest.raises(CAPInputError, match=m("items_path must be a file path [argument `items_path`]: expected a str "
                                              "or pathlib.Path, got 'int'")):
        import_table(123)
    with pytest.raises(CAPInputError, match=m("judgments_path must be a file path [argument `judgments_path`]")):
        import_table(items, 4.5)
    with pytest.raises(CAPInputError, match=m("a single file must hold judgments with their item columns joined, or "
                                              "upload a judgments table as well: items.csv lacks judge, order, "
                                              "verdict; its columns are benchmark, item_id, gold [file items.csv]")):
        import_table(items)
    joined = write(tmp_path, "all.csv", "judge,benchmark,item_id,order,verdict,gold\n"
                                        "j,b,1,AB,A,A\nj,b,2,AB,B,B\nj,b,1,BA,A,B\n")
    with pytest.raises(CAPInputError, match=m("item '1' has a different gold here than on row 1 of the same file "
                                              "[file all.csv, row 3, column 'gold']: expected the gold of row 1, "
                                              "got 'B'. Fix: give every row of an item the same gold")):
        import_table(joined)
    decl = write(tmp_path, "decl.csv", "benchmark,condition,status,operator,selector,values,reference\n"
                                       "b,C1,approximate,proxy,category,law,\n")
    with pytest.raises(CAPInputError, match=m("declaration selector names a column the items table does not have "
                                              "[file decl.csv, row 1, column 'selector']")):
        import_table(items, judg, decl)
    with pytest.raises(CAPInputError, match=m("verdict outside the allowed set in the judgments table (1 row) "
                                              "[file judgments.csv, row 2, column 'verdict']")):
        import_table(items, write(tmp_path, "judgments.csv", JUDGMENTS.replace("AB,B", "AB,b")))


def test_dataset_iv(tmp_path):
    with pytest.raises(CAPInputError, match=m(f"dataset directory not found [file {tmp_path / 'none'}]: expected a "
                                              "directory holding items.parquet and judgments.parquet")):
        load_dataset(tmp_path / "none")
    ds = Dataset.build(_items(), _judgments())
    root = save_dataset(ds, tmp_path / "ds")
    (root / "notices.txt").write_bytes("first notice\nan accented caf\xe9\n".encode("cp1252"))
    with pytest.raises(CAPInputError, match=m(f"notices file is not UTF-8 text [file {root / 'notices.txt'}, row 2]: "
                                              "expected UTF-8 text, one notice per line, got 'byte 0xe9 (byte 16 of "
                                              "line 2)'. Fix: save notices.txt as UTF-8, or delete it")):
        load_dataset(root)
    (root / "notices.txt").write_text("first notice\nan accented café\n", encoding="utf-8")
    assert load_dataset(root).notices == ("first notice", "an accented café")
    # a table that fails validation names its Parquet file and row
    _items(len_a=[1, -2, 3]).write_parquet(root / "items.parquet")
    with pytest.raises(CAPInputError, match=m("len_a below 0 or not a finite number in the items table (1 row) "
                                              f"[file {root / 'items.parquet'}, row 2, column 'len_a']")):
        load_dataset(root)
    (root / "judgments.parquet").unlink()
    with pytest.raises(CAPInputError, match=m(f"judgments.parquet missing from the dataset directory "
                                              f"[file {root / 'judgments.parquet'}]")):
        load_dataset(root)
    (root / "judgments.parquet").write_bytes(b"not parquet")
    with pytest.raises(CAPInputError, match=m(f"file is not readable Parquet [file {root / 'judgments.parquet'}]")):
        load_dataset(root)
    blocker = write(tmp_path, "file", "x")
    with pytest.raises(CAPInputError, match=m(f"cannot write the dataset directory [file {blocker / 'ds'}]") + ".*"
                       + re.escape("Fix: choose a writable folder for --out")):
        save_dataset(ds, blocker / "ds")


def test_bootstrap_iv():
    ds = Dataset.build(_items(), _judgments())
    with pytest.raises(CAPInputError, match=m("n_resamples must be a positive integer [argument `n_resamples`]: "
                                              "expected an integer >= 1 (CAP uses 1000), got 0")):
        compute_profile(ds, n_resamples=0)
    with pytest.raises(CAPInputError, match=m("too many bootstrap resamples to hold in memory [argument `n_resamples`]: "
                                              f"expected at most {MAX_RESAMPLES:,} (replicates take cells x resamples "
                                              f"x 8 bytes: {MAX_RESAMPLES * 8 / 1e6:.1f} MB per profile cell at the "
                                              f"limit), got {MAX_RESAMPLES + 1}. Fix: use 1000 resamples, as CAP does")):
        compute_profile(ds, n_resamples=MAX_RESAMPLES + 1)
    with pytest.raises(CAPInputError, match=m("seed must be a non-negative integer [argument `seed`]")):
        compute_profile(ds, seed=-1)
    with pytest.raises(CAPInputError, match=m("level must be a confidence level strictly between 0 and 1 "
                                              "[argument `level`]: expected a fraction such as 0.95, got 95")):
        compute_profile(ds, level=95)
    with pytest.raises(CAPInputError, match=m("unknown benchmark name [argument `benchmarks`]: expected one of b, "
                                              "got 'x'")):
        compute_profile(ds, benchmarks=["x"])


def test_public_importers_iv(tmp_path):
    with pytest.raises(CAPInputError, match=m(f"LLMBar folder not found [file {tmp_path / 'no'}]. Fix: point the "
                                              "importer at the downloaded folder")):
        import_llmbar(tmp_path / "no")
    with pytest.raises(CAPInputError, match=m(f"JudgeBench folder not found [file {tmp_path / 'no'}]")):
        import_judgebench(tmp_path / "no")


def test_a_quoted_error_does_not_nest_its_argument_tag():
    # the judge verb quotes a failed call's reason, itself an error naming its argument
    inner = CAPInputError("unknown local model 'firts'", argument="model", expected="one of longer, first",
                          got="local/firts")
    outer = CAPInputError(f"the run produced no judgments (local/firts: {inner})", argument="--model",
                          got="local/firts", fix="check the model name")
    assert str(outer) == ("the run produced no judgments (local/firts: unknown local model 'firts': expected one of "
                          "longer, first, got 'local/firts') [argument `--model`]: got 'local/firts'. "
                          "Fix: check the model name")
    # a tag with a file beside the argument goes as a whole; without an argument of its own the text is kept
    assert str(CAPInputError("x (bad [file f.csv, argument `a`]: got 1)", argument="b")) == "x (bad: got 1) [argument `b`]"
    assert str(CAPInputError("x [argument `a`]")) == "x [argument `a`]"


def test_counted_agrees_in_number():
    from cap_core.errors import counted

    assert [counted(n, "item") for n in (0, 1, 2)] == ["0 items", "1 item", "2 items"]
    assert counted(1, "reference judge") == "1 reference judge" and counted(3, "query", "queries") == "3 queries"
