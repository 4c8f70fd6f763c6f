"""A dataset's optional texts table: kept from an upload, saved and loaded, in the fingerprint,
refused when it names an item the dataset lacks, never in the embedded default data."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from cap_core.dataset import Dataset, load_dataset, save_dataset
from cap_core.errors import CAPInputError
from cap_core.importers.generic import import_table

ROOT = Path(__file__).resolve().parents[2]

JOINED = """judge,benchmark,item_id,order,verdict,gold,question,response_a,response_b
j1,b,i1,AB,A,A,What is 2+2?,4,5
j1,b,i1,BA,A,A,What is 2+2?,4,5
j1,b,i2,AB,B,B,Capital of France?,Lyon,Paris
j1,b,i2,BA,A,B,Capital of France?,Lyon,Paris
"""


def _joined(tmp_path: Path, text: str = JOINED) -> Path:
    p = tmp_path / "joined.csv"
    p.write_text(text, encoding="utf-8")
    return p


def test_upload_keeps_its_texts_one_row_per_item(tmp_path):
    ds = import_table(_joined(tmp_path))
    assert ds.texts is not None
    got = {r["item_id"]: (r["question"], r["response_a"], r["response_b"]) for r in ds.texts.iter_rows(named=True)}
    assert got == {"i1": ("What is 2+2?", "4", "5"), "i2": ("Capital of France?", "Lyon", "Paris")}
    assert ds.texts["author_a"].null_count() == 2  # absent text columns are nulls


def test_texts_change_the_fingerprint_but_text_free_data_keep_theirs(tmp_path):
    with_texts = import_table(_joined(tmp_path))
    without = Dataset(with_texts.items, with_texts.judgments, with_texts.declarations)
    assert with_texts.fingerprint() != without.fingerprint()
    same = Dataset.build(without.items, without.judgments, without.declarations)
    assert same.fingerprint() == without.fingerprint()


def test_save_and_load_keep_texts_and_a_reused_folder_drops_stale_ones(tmp_path):
    ds = import_table(_joined(tmp_path))
    out = save_dataset(ds, tmp_path / "d")
    back = load_dataset(out)
    assert back.texts is not None and back.texts.equals(ds.texts)
    assert back.fingerprint() == ds.fingerprint()
    save_dataset(Dataset(ds.items, ds.judgments, ds.declarations), out)
    assert not (out / "texts.parquet").exists() and load_dataset(out).texts is None


def test_select_keeps_the_texts_of_the_kept_benchmarks(tmp_path):
    ds = import_table(_joined(tmp_path))
    assert ds.select(benchmarks=["b"]).texts.height == 2
    assert ds.select(benchmarks=["other"]).texts.height == 0


def test_a_text_row_of_an_unknown_item_names_its_row_and_column(tmp_path):
    ds = import_table(_joined(tmp_path))
    bad = pl.DataFrame({"benchmark": ["b", "b"], "item_id": ["i1", "i9"], "question": ["q", "q"]})
    with pytest.raises(CAPInputError) as e:
        Dataset.build(ds.items, ds.judgments, texts=bad)
    msg = str(e.value)
    assert "i9" in msg and "row 2" in msg and "item_id" in msg


def test_embedded_default_data_is_text_free():
    assert not (ROOT / "data" / "default" / "texts.parquet").exists()
    assert load_dataset(ROOT / "data" / "default").texts is None
