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
    with pytest.raises(CAPInputError, match="different item columns"):
        import_table(_write(tmp_path, "all.jsonl", "\n".join(lines)))


def test_bad_path_type():
    with pytest.raises(CAPInputError):
        import_table(123)
