"""Streamlit glue of the Labelling page: the pairs, the labels file, the pilot plan, the labelled dataset.

Every rule lives in :mod:`cap_core.labelling` (no streamlit there); this module only caches,
keeps session keys and hands the page what it draws.

Session keys (documented for the sidebar and other pages):

``lab_items``      ``(name, bytes)`` of the items file being labelled.
``lab_judgments``  ``(name, bytes)`` of a judgments table of those items (a pilot run, or
                   judges run on the exported benchmark), or absent.
``lab_benchmark``  the benchmark name of the labelled items.

The sidebar's data source ``"labelled items"`` calls :func:`labelled_dataset_for_sidebar`.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl
import streamlit as st

from cap_core import config
from cap_core.dataset import Dataset
from cap_core.errors import CAPInputError
from cap_core.labelling import store as ls
from ui.cache.keys import content_key, path_stamp

ITEMS_KEY = "lab_items"
JUDGMENTS_KEY = "lab_judgments"
BENCH_KEY = "lab_benchmark"
SOURCE_NAME = "labelled items"  # the sidebar's name for this data source
ITEM_SOURCES = ("table path", "upload")


def runs_dir() -> Path:
    """Where labels files and exported benchmarks go (:func:`cap_core.config.runs_dir`, read now)."""
    return config.runs_dir()


def read_path(path: str) -> tuple[str, bytes]:
    """``(file name, bytes)`` of a table on disk. Raises CAPInputError when it is not a file."""
    p = Path(path).expanduser()
    if not p.is_file():
        raise CAPInputError("items file not found", file=str(p), expected="a CSV, TSV, JSONL, JSON or Parquet file",
                            fix="type the path of the table with question, response_a and response_b")
    return p.name, p.read_bytes()


@st.cache_data(max_entries=8, show_spinner="Reading the pairs…")
def pairs(name: str, data: bytes) -> pl.DataFrame:
    """The pairs to label (:func:`cap_core.labelling.store.read_pairs`; streamlit hashes the bytes)."""
    return ls.read_pairs(name, data)


def store_for(name: str, data: bytes, benchmark: str) -> ls.LabelStore:
    """The labels file of exactly these items (named by their content hash) under :func:`runs_dir`."""
    sha = ls.items_sha(data)
    return ls.LabelStore(ls.labels_path(runs_dir(), benchmark, sha), sha)


def pick(name: str, data: bytes, benchmark: str, item_id: str, shown: str, picked: str, seed: int) -> None:
    """Button callback: append the label (with the note typed) and clear the note field."""
    note = st.session_state.get("lab_note", "") or ""
    store_for(name, data, benchmark).append(benchmark=benchmark, item_id=item_id, shown=shown, picked=picked,
                                            seed=seed, note=note)
    st.session_state["lab_note"] = ""


def use_labels() -> None:
    """Button callback: make the labelled items the sidebar's data source (and their benchmark)."""
    st.session_state.update(sb_source=SOURCE_NAME, sb_benchmark=st.session_state.get(BENCH_KEY))


@st.cache_data(max_entries=4, show_spinner="Reading the judgments…")
def judgments_table(name: str, data: bytes) -> pl.DataFrame:
    """A judgments table (judge, item_id, order, verdict, ...) read and checked without its items."""
    import tempfile

    from cap_core.io import read_table
    from cap_core.schema import validate_judgments

    with tempfile.TemporaryDirectory() as tmp:
        p = Path(tmp) / Path(name).name
        p.write_bytes(data)
        frame, _ = read_table(p, kind="judgments")
    if "benchmark" not in frame.columns:
        frame = frame.with_columns(pl.lit("mine").alias("benchmark"))
    return validate_judgments(frame, file=name)


def plan(judg: pl.DataFrame, judge_a: str, judge_b: str, effect: float, margin: float):
    """``(disagreement rate, units, LabelPlan)`` for two candidates (:mod:`cap_core.labelling.plan`)."""
    from cap_core.labelling.plan import disagreement_rate, plan_labels

    rate, units = disagreement_rate(judg, judge_a, judge_b)
    return rate, units, plan_labels(rate, effect=effect, margin=margin, level=config.LEVEL)


@st.cache_resource(max_entries=4, show_spinner="Building the labelled benchmark…")
def _dataset(items_name: str, items_key: str, labels_stamp: tuple, judg_key: str, _items: bytes,
             _judg: tuple[str, bytes]) -> tuple[Dataset, str]:
    frame = ls.read_pairs(items_name, _items)
    store = store_for(items_name, _items, frame["benchmark"][0])
    latest, notes = store.read()
    items, more = ls.labelled_items(frame, latest)
    ds = ls.labelled_dataset(items, judgments_table(*_judg), notes + more)
    return ds, ds.fingerprint()


def labelled_dataset_for_sidebar() -> tuple[Dataset | None, str]:
    """The labelled items with the judgments given on the Labelling page, or ``(None, "")``.

    Keyed by the items' content hash, the labels file's stamp and the judgments' content hash,
    so every new label reaches the pages. Raises CAPInputError (shown by the sidebar) when the
    judgments cover no labelled item.
    """
    ss = st.session_state
    items, judg = ss.get(ITEMS_KEY), ss.get(JUDGMENTS_KEY)
    if not items or not judg:
        return None, ""
    name, data = items
    frame = pairs(name, data)
    path = store_for(name, data, frame["benchmark"][0]).path
    return _dataset(name, content_key(data), path_stamp(path), content_key(judg[1]), data, judg)


def export(name: str, data: bytes) -> tuple[Path, int]:
    """Write the labelled items (A/B) with texts as a benchmark folder; returns (its items file, count)."""
    frame = pairs(name, data)
    store = store_for(name, data, frame["benchmark"][0])
    latest, _ = store.read()
    items, _ = ls.labelled_items(frame, latest)
    if items.height == 0:
        raise CAPInputError("no pair labelled A or B yet", argument="labels", fix="label some pairs first")
    return ls.export_benchmark(items, store.path.with_suffix("")), items.height
