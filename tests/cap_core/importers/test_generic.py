"""Generic importer on small hand-written tables in the documented schema."""

from __future__ import annotations

import polars as pl
import pytest

from cap_core.errors import CAPInputError
from cap_core.importers import import_table

ITEMS = "benchmark,item_id,subset,gold,len_a\nmine,q1,law,A,120\nmine,q2,law,B,\nmine,007,med,A,40\n"
JUDGMENTS = (
    "judge,benchmark,item_id,order,verdict,score_a\n"
    "j1,mine,q1,AB,A,0.9\nj1,mine,q1,BA,B,\nj1,mine,q2,AB,B,\nj1,mine,007,BA,tie,\n"
)


def _write(tmp_path, name, text, encoding="utf-8"):
    f = tmp_path / name
    f.write_bytes(text.encode(encoding))
    return f


def test_csv_pair_imports_with_types_and_defaults(tmp_path):
    ds = import_table(_write(tmp_path, "items.csv", ITEMS), _write(tmp_path, "judgments.csv", JUDGMENTS))
    assert ds.items.height == 3 and ds.judgments.height == 4
    assert ds.items.schema["len_a"] == pl.Int64
    row = ds.items.filter(pl.col("item_id") == "007").row(0, named=True)
    assert (row["variant"], row["base_item_id"], row["len_a"]) == ("original", "007", 40)
    assert ds.judgments.filter(pl.col("order") == "AB")["score_a"].to_list()[0] == 0.9
    assert ds.declarations.height == 0


def test_bom_and_cp1252_files(tmp_path):
    items = _write(tmp_path, "items.csv", "\ufeff" + ITEMS.replace("law", "droit-é"))
    judg = _write(tmp_path, "judgments.csv", JUDGMENTS.replace("j1", "jugé"), encoding="cp1252")
    ds = import_table(items, judg)
    assert "droit-é" in ds.items["subset"].to_list()
    assert ds.judges == ["jugé"]
    assert len(ds.notices) == 1 and "judgments.csv" in ds.notices[0] and "cp1252" in ds.notices[0]


def test_bad_verdict_names_the_judgments_file_and_row(tmp_path):
    bad = JUDGMENTS.replace("j1,mine,q2,AB,B,", "j1,mine,q2,AB,first,")
    with pytest.raises(CAPInputError) as err:
        import_table(_write(tmp_path, "items.csv", ITEMS), _write(tmp_path, "my_judgments.csv", bad))
    assert err.value.file == "my_judgments.csv" and err.value.row == 3 and err.value.column == "verdict"


def test_bad_gold_names_the_items_file(tmp_path):
    with pytest.raises(CAPInputError) as err:
        import_table(_write(tmp_path, "it.csv", ITEMS.replace("q2,law,B", "q2,law,C")),
                     _write(tmp_path, "j.csv", JUDGMENTS))
    assert err.value.file == "it.csv" and err.value.row == 2


def test_orphan_judgment_is_rejected(tmp_path):
    extra = JUDGMENTS + "j1,mine,q9,AB,A,\n"
    with pytest.raises(CAPInputError, match="not in the items table"):
        import_table(_write(tmp_path, "items.csv", ITEMS), _write(tmp_path, "j.csv", extra))


def test_single_joined_jsonl_and_declarations(tmp_path):
    lines = [
        '{"benchmark": "b", "item_id": "1", "gold": "A", "subset": "knowledge", "judge": "J", "order": "AB", "verdict": "A"}',
        '{"benchmark": "b", "item_id": "1", "gold": "A", "subset": "knowledge", "judge": "J", "order": "BA", "verdict": "B"}',
        '{"benchmark": "b", "item_id": "2", "gold": "B", "subset": "reasoning", "judge": "J", "order": "AB", "verdict": "B"}',
    ]
    joined = _write(tmp_path, "all.jsonl", "\n".join(lines) + "\n")
    decl = _write(
        tmp_path,
        "decl.csv",
        "benchmark,condition,status,operator,selector,values,reference\n"
        'b,C1,approximate,knowledge proxy,subset,knowledge,\nb,C7,direct,swap,order,"[""AB"", ""BA""]",\n',
    )
    ds = import_table(joined, None, decl)
    assert ds.items.height == 2 and ds.judgments.height == 3
    d = {r["condition"]: r for r in ds.declarations.iter_rows(named=True)}
    assert d["C1"]["values"] == ["knowledge"] and d["C7"]["values"] == ["AB", "BA"]


def test_joined_file_with_conflicting_gold(tmp_path):
    lines = [
        '{"benchmark": "b", "item_id": "1", "gold": "A", "judge": "J", "order": "AB", "verdict": "A"}',
        '{"benchmark": "b", "item_id": "1", "gold": "B", "judge": "J", "order": "BA", "verdict": "A"}',
    ]
    with pytest.raises(CAPInputError, match="has a different gold here than on row 1"):
        import_table(_write(tmp_path, "all.jsonl", "\n".join(lines)))


def test_bad_path_type():
    with pytest.raises(CAPInputError):
        import_table(123)


# ---------------------------------------------------------------------------------------------
# Bad input rejected at import, naming the file, row and column (issue 10, §5 Input)
# ---------------------------------------------------------------------------------------------


def _raised(*paths) -> CAPInputError:
    with pytest.raises(CAPInputError) as info:
        import_table(*paths)
    return info.value


@pytest.mark.parametrize("cell", ["", "   "])
def test_empty_item_id_in_the_items_file(tmp_path, cell):
    bad = ITEMS.replace("mine,q2,law,B,", f"mine,{cell},law,B,")
    err = _raised(_write(tmp_path, "items.csv", bad), _write(tmp_path, "judgments.csv", JUDGMENTS))
    # the empty id is on data row 2 of items.csv; it used to surface as an orphan judgment
    assert (err.file, err.row, err.column) == ("items.csv", 2, "item_id")
    assert "empty item_id" in err.problem


def test_empty_judge_and_benchmark(tmp_path):
    bad = JUDGMENTS.replace("j1,mine,q2,AB,B,", ",mine,q2,AB,B,")
    err = _raised(_write(tmp_path, "items.csv", ITEMS), _write(tmp_path, "judgments.csv", bad))
    assert (err.file, err.row, err.column) == ("judgments.csv", 3, "judge")  # was silently kept
    bad = ITEMS.replace("mine,007,med", ",007,med")
    err = _raised(_write(tmp_path, "items.csv", bad), _write(tmp_path, "judgments.csv", JUDGMENTS))
    assert (err.file, err.row, err.column) == ("items.csv", 3, "benchmark")


def test_two_columns_with_the_same_name(tmp_path):
    bad = ITEMS.replace("len_a\n", "gold\n", 1).replace(",120\n", ",B\n")
    err = _raised(_write(tmp_path, "items.csv", bad), _write(tmp_path, "judgments.csv", JUDGMENTS))
    assert (err.file, err.row, err.column) == ("items.csv", 0, "gold")  # the header is row 0
    assert "two columns named 'gold'" in err.problem
    # the same name once with stray spaces is the same column
    bad = JUDGMENTS.replace("score_a\n", " verdict \n", 1)
    err = _raised(_write(tmp_path, "items.csv", ITEMS), _write(tmp_path, "judgments.csv", bad))
    assert (err.file, err.row, err.column) == ("judgments.csv", 0, "verdict")


def test_json_record_with_a_field_twice(tmp_path):
    lines = ['{"benchmark": "b", "item_id": "1", "gold": "A"}', '{"benchmark": "b", "item_id": "2", "gold": "A", "gold": "B"}']
    err = _raised(_write(tmp_path, "items.jsonl", "\n".join(lines)), _write(tmp_path, "j.csv", JUDGMENTS))
    assert (err.file, err.row, err.column) == ("items.jsonl", 2, "gold")
    err = _raised(_write(tmp_path, "items.json", "[" + ",".join(lines) + "]"), _write(tmp_path, "j.csv", JUDGMENTS))
    assert (err.file, err.row, err.column) == ("items.json", 2, "gold")


def test_parquet_with_two_columns_of_one_name(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.Table.from_arrays([pa.array(["b"]), pa.array(["1"]), pa.array(["A"]), pa.array(["B"])],
                                 names=["benchmark", "item_id", "gold", "gold"])
    pq.write_table(table, tmp_path / "items.parquet")
    err = _raised(tmp_path / "items.parquet", _write(tmp_path, "j.csv", "judge,benchmark,item_id,order,verdict\nj,b,1,AB,A\n"))
    assert (err.file, err.row, err.column) == ("items.parquet", 0, "gold")


@pytest.mark.parametrize(("table", "column", "value"), [
    ("items", "len_a", "-120"), ("items", "len_b", "-1"),
    ("judgments", "cost_usd", "-0.01"), ("judgments", "latency_s", "-2.5"), ("judgments", "tokens", "-7"),
    ("judgments", "latency_s", "nan"), ("judgments", "cost_usd", "inf"),
])
def test_negative_lengths_costs_and_latencies(tmp_path, table, column, value):
    it = "benchmark,item_id,gold,len_a,len_b\nb,1,A,10,12\nb,2,B,5,6\n"
    jd = "judge,benchmark,item_id,order,verdict,cost_usd,latency_s,tokens\nj,b,1,AB,A,0.01,1.5,30\nj,b,2,AB,B,0.02,0.5,40\n"
    if table == "items":
        it = it.replace("b,2,B,5,6", "b,2,B,5,6".replace("5" if column == "len_a" else "6", value))
    else:
        row = jd.splitlines()[2].split(",")
        row[["cost_usd", "latency_s", "tokens"].index(column) + 5] = value
        jd = "\n".join(jd.splitlines()[:2] + [",".join(row)]) + "\n"
    err = _raised(_write(tmp_path, "items.csv", it), _write(tmp_path, "judgments.csv", jd))
    assert (err.file, err.row, err.column) == (f"{table}.csv", 2, column)


def test_unknown_variant_suggests_the_nearest(tmp_path):
    it = "benchmark,item_id,base_item_id,gold,variant\nb,1,1,A,plain\nb,1p,1,A,polishd\n"
    jd = "judge,benchmark,item_id,order,verdict\nj,b,1,AB,A\nj,b,1p,AB,A\n"
    err = _raised(_write(tmp_path, "items.csv", it), _write(tmp_path, "judgments.csv", jd))
    assert (err.file, err.row, err.column, err.got) == ("items.csv", 2, "variant", "polishd")
    assert "did you mean 'polished'" in err.fix


def test_a_declared_variant_is_known(tmp_path):
    it = "benchmark,item_id,base_item_id,gold,variant\nb,1,1,A,plain\nb,1p,1,A,paraphrased\n"
    jd = "judge,benchmark,item_id,order,verdict\nj,b,1,AB,A\nj,b,1p,AB,A\n"
    decl = ("benchmark,condition,status,operator,selector,values,reference\n"
            "b,C5,augmented,paraphrase vs plain,variant,paraphrased,plain\n")
    ds = import_table(_write(tmp_path, "items.csv", it), _write(tmp_path, "judgments.csv", jd),
                      _write(tmp_path, "decl.csv", decl))
    assert sorted(ds.items["variant"].to_list()) == ["paraphrased", "plain"]


def test_declaration_selector_naming_a_missing_column(tmp_path):
    decl = ("benchmark,condition,status,operator,selector,values,reference\n"
            "mine,C7,direct,swap,order,AB;BA,\nmine,C1,approximate,law proxy,subsett,law,\n")
    err = _raised(_write(tmp_path, "items.csv", ITEMS), _write(tmp_path, "judgments.csv", JUDGMENTS),
                  _write(tmp_path, "decl.csv", decl))
    assert (err.file, err.row, err.column, err.got) == ("decl.csv", 2, "selector", "subsett")
    assert "did you mean 'subset'" in err.fix
    decl = decl.replace("subsett", "category")  # was silently kept; C1 then showed nothing
    err = _raised(_write(tmp_path, "items.csv", ITEMS), _write(tmp_path, "judgments.csv", JUDGMENTS),
                  _write(tmp_path, "decl.csv", decl))
    assert (err.row, err.column, err.got) == (2, "selector", "category")


@pytest.mark.parametrize("cell", [["A"], {"v": "A"}])
def test_list_typed_parquet_verdict_column(tmp_path, cell):
    pl.DataFrame({"benchmark": ["b", "b"], "item_id": ["1", "2"], "gold": ["A", "B"]}).write_parquet(tmp_path / "i.parquet")
    pl.DataFrame({"judge": ["j", "j"], "benchmark": ["b", "b"], "item_id": ["1", "2"], "order": ["AB", "AB"],
                  "verdict": [cell, cell]}).write_parquet(tmp_path / "j.parquet")
    err = _raised(tmp_path / "i.parquet", tmp_path / "j.parquet")
    assert (err.file, err.row, err.column) == ("j.parquet", 1, "verdict")
    assert "one value per cell" in err.expected


def test_json_nested_thousands_deep(tmp_path):
    deep = "[" * 5000 + "]" * 5000
    err = _raised(_write(tmp_path, "items.json", deep), _write(tmp_path, "j.csv", JUDGMENTS))
    assert err.file == "items.json" and "nested" in err.problem
    line = '{"benchmark": "mine", "item_id": "q1", "gold": "A", "extra": ' + deep + "}"
    err = _raised(_write(tmp_path, "items.jsonl", '{"benchmark": "mine", "item_id": "q0", "gold": "A"}\n' + line),
                  _write(tmp_path, "j.csv", JUDGMENTS))
    assert (err.file, err.row) == ("items.jsonl", 2) and "nested" in err.problem


def test_json_nested_hundreds_deep_is_rejected_fast(tmp_path):
    # below Python's recursion limit json parses it, but polars needs ~40 s to type it
    import time

    line = '{"benchmark": "mine", "item_id": "q1", "gold": "A", "extra": ' + "[" * 900 + "]" * 900 + "}"
    start = time.perf_counter()
    err = _raised(_write(tmp_path, "items.jsonl", line + "\n"), _write(tmp_path, "j.csv", JUDGMENTS))
    assert time.perf_counter() - start < 5
    assert (err.file, err.row, err.column) == ("items.jsonl", 1, "extra") and "nested" in err.problem


def test_joined_file_item_errors_name_the_file_row(tmp_path):
    rows = ["judge,benchmark,item_id,order,verdict,gold,len_a",
            "J,b,1,AB,A,A,10", "J,b,1,BA,A,A,10", "J,b,2,AB,B,B,20", "J,b,2,BA,B,B,20", "J,b,3,AB,A,C,5"]
    err = _raised(_write(tmp_path, "all.csv", "\n".join(rows) + "\n"))
    assert (err.file, err.row, err.column, err.got) == ("all.csv", 5, "gold", "C")  # item index was 3
    rows[5] = "J,b,3,AB,A,A,-5"
    err = _raised(_write(tmp_path, "all.csv", "\n".join(rows) + "\n"))
    assert (err.row, err.column) == (5, "len_a")
    rows[5] = "J,b,,AB,A,A,5"
    err = _raised(_write(tmp_path, "all.csv", "\n".join(rows) + "\n"))
    assert (err.row, err.column) == (5, "item_id")


def test_joined_file_conflicting_rows_are_named(tmp_path):
    rows = ["judge,benchmark,item_id,order,verdict,gold",
            "J,b,1,AB,A,A", "J,b,2,AB,B,B", "J,b,1,BA,A,A", "J,b,2,BA,B,A"]
    err = _raised(_write(tmp_path, "all.csv", "\n".join(rows) + "\n"))
    assert (err.file, err.row, err.column) == ("all.csv", 4, "gold")
    assert "row 2" in err.problem  # the row it disagrees with


@pytest.mark.parametrize("sep", [";", "\t", "|"])
def test_wrong_delimiter_says_so(tmp_path, sep):
    joined = "benchmark,item_id,gold,judge,order,verdict\nb,1,A,j,AB,A\nb,1,A,j,BA,A\n".replace(",", sep)
    err = _raised(_write(tmp_path, "all.csv", joined))
    assert err.file == "all.csv" and f"{sep!r}" in err.problem
    # one file holding both: named as the joined file it is, with the header a joined file needs
    assert err.problem.startswith("the joined judgments file") and err.expected.endswith("verdict,gold")
    err = _raised(_write(tmp_path, "items.csv", ITEMS.replace(",", sep)), _write(tmp_path, "j.csv", JUDGMENTS))
    assert err.file == "items.csv" and f"{sep!r}" in err.problem


def test_comma_separated_file_named_tsv(tmp_path):
    err = _raised(_write(tmp_path, "items.tsv", ITEMS), _write(tmp_path, "j.csv", JUDGMENTS))
    assert err.file == "items.tsv" and "','" in err.problem


def test_binary_garbage_is_not_a_text_table_in_one_short_line(tmp_path):
    import os

    garbage = tmp_path / "items.csv"
    garbage.write_bytes(os.urandom(4096))
    err = _raised(garbage, _write(tmp_path, "j.csv", JUDGMENTS))
    msg = str(err)
    assert "not a text table" in msg and "items.csv" in msg
    assert "\n" not in msg and len(msg) < 160


def test_dashboard_upload_shows_the_importer_message():
    # the sidebar's upload path: ui/sidebar.py -> ui/cache/loaders.uploaded_dataset -> import_table
    from streamlit.testing.v1 import AppTest

    from tests.conftest import REPO_ROOT

    at = AppTest.from_file(str(REPO_ROOT / "app.py"), default_timeout=120).run()
    at.radio(key="sb_source").set_value("upload").run()
    at.file_uploader(key="sb_items_file").upload("deep.json", ("[" * 5000 + "]" * 5000).encode(),
                                                  "application/json").run()
    from tests.pages.shown import rendered

    assert not at.exception
    assert "nested" in rendered(at.error[0].value) and "deep.json" in rendered(at.error[0].value)
    at.file_uploader(key="sb_items_file").upload("all.csv", b"benchmark;item_id;gold;judge;order;verdict\nb;1;A;j;AB;A\n",
                                                  "text/csv").run()
    assert not at.exception
    assert "';'" in rendered(at.error[0].value) and "all.csv" in rendered(at.error[0].value)


def test_a_misspelled_column_of_a_joined_file_is_named_with_its_fix(tmp_path):
    f = _write(tmp_path, "joined.csv", "judge,benchmark,item_id,ordr,verdict,gold\nj,b,q1,AB,A,A\n")
    with pytest.raises(CAPInputError, match=r"'ordr' looks like a misspelling of it.*row 0, column 'ordr'.*"
                                            r"Fix: rename the column 'ordr' to 'order'"):
        import_table(f)


def test_a_semicolon_joined_table_is_named_as_what_it_is(tmp_path):
    """The README's minimal joined CSV exported with semicolons: the message names the joined judgments
    file and the header a joined file needs (the judgments columns and gold), not an items header."""
    from cap_core.errors import CAPInputError
    from cap_core.importers.generic import import_table

    joined = tmp_path / "joined.csv"
    joined.write_text("judge;benchmark;item_id;order;verdict;gold;subset\n"
                      "my-judge;mybench;q1;AB;A;A;knowledge\nmy-judge;mybench;q1;BA;B;A;knowledge\n")
    with pytest.raises(CAPInputError) as info:
        import_table(joined)
    text = str(info.value)
    assert text.startswith("the joined judgments file separates its fields with ';' (semicolon)")
    assert "expected a header such as judge,benchmark,item_id,order,verdict,gold," in text
    # as the judgments file beside an items file, it is named so, with a judgments header
    items = tmp_path / "items.csv"
    items.write_text("benchmark,item_id,gold\nmybench,q1,A\n")
    with pytest.raises(CAPInputError) as info:
        import_table(items, joined)
    assert str(info.value).startswith("the judgments file separates its fields with ';'")
    assert "expected a header such as judge,benchmark,item_id,order,verdict," in str(info.value)
