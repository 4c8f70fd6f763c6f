"""The sidebar shared by every page: data source, benchmark, judges, condition weights.

Rendered once per run from ``app.py`` so its widgets (keys prefixed ``sb_``) keep their
state across pages. The result is a :class:`Selection` stored in
``st.session_state["selection"]`` for the pages to read.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import polars as pl
import streamlit as st

from cap_core.dataset import Dataset
from cap_core.errors import CAPInputError
from cap_core.profile.weights import PRESETS
from cap_core.schema import CONDITION_IDS, CONDITIONS
from components.labels import entry_label, short_label
from ui.cache import loaders as cache

SOURCES = ("embedded default data", "upload", "live run results", "labelled items")  # see ui/cache/live_run.py, ui/cache/labelling.py
CUSTOM = "custom"
UPLOAD_TYPES = ["csv", "tsv", "jsonl", "json", "parquet"]


@dataclass
class Selection:
    """What the user has chosen; ``error`` holds a CAPInputError message if loading failed."""

    ds: Dataset | None = None
    fingerprint: str = ""
    source: str = SOURCES[0]
    benchmark: str | None = None
    labels: list[str] = field(default_factory=list)
    include_published: bool = True
    weights: dict[str, float] = field(default_factory=dict)
    error: str | None = None


def init_defaults() -> None:
    """Session defaults for every sidebar widget (set once per session)."""
    ss = st.session_state
    ss.setdefault("sb_source", SOURCES[0])
    ss.setdefault("sb_published", True)
    ss.setdefault("sb_preset", "balanced")
    for c in CONDITION_IDS:
        ss.setdefault(f"sb_w_{c}", PRESETS["balanced"][c])


def _apply_preset() -> None:
    name = st.session_state["sb_preset"]
    if name in PRESETS:
        for c in CONDITION_IDS:
            st.session_state[f"sb_w_{c}"] = PRESETS[name][c]


def _mark_custom() -> None:
    st.session_state["sb_preset"] = CUSTOM


def _load(sel: Selection) -> None:
    if sel.source == SOURCES[0]:
        sel.ds, sel.fingerprint = cache.default_dataset()
        return
    if sel.source == SOURCES[2]:
        from ui.cache.live_run import live_run_dataset

        sel.ds, sel.fingerprint = live_run_dataset()
        if sel.ds is None:
            st.sidebar.info("No live run in this session yet: start one on the Live run page.")
        return
    if sel.source == SOURCES[3]:
        from ui.cache.labelling import labelled_dataset_for_sidebar

        sel.ds, sel.fingerprint = labelled_dataset_for_sidebar()
        if sel.ds is None:
            st.sidebar.info("No labelled pairs with judgments yet: see the Labelling page.")
        return
    items = st.sidebar.file_uploader("Items table (or one joined table)", type=UPLOAD_TYPES, key="sb_items_file")
    judg = st.sidebar.file_uploader("Judgments table (optional)", type=UPLOAD_TYPES, key="sb_judgments_file")
    decl = st.sidebar.file_uploader("Coverage declarations (optional)", type=UPLOAD_TYPES, key="sb_decl_file")
    if items is None:
        st.sidebar.info(
            "Upload items and judgments in the documented schema (CSV, TSV, JSONL, JSON or Parquet), "
            "or one table holding judgments joined with their item columns."
        )
        return
    sel.ds, sel.fingerprint = cache.uploaded_dataset(
        items.name, items.getvalue(),
        judg.name if judg else None, judg.getvalue() if judg else None,
        decl.name if decl else None, decl.getvalue() if decl else None,
    )


def _entries(sel: Selection) -> list[str]:
    labels: list[str] = []
    if sel.ds is not None:
        j = sel.ds.judgments.filter(pl.col("benchmark") == sel.benchmark)
        labels += [entry_label(x, "all", "computed") for x in sorted(j["judge"].unique().to_list())]
    if sel.include_published:
        pub = cache.published_profiles().filter(
            (pl.col("benchmark") == sel.benchmark) & pl.col("primary") & pl.col("condition").is_in(list(CONDITION_IDS))
        )
        keys = pub.select("judge", "subset", "source").unique(maintain_order=True)
        labels += [entry_label(*r) for r in keys.iter_rows()]
    return labels


def _keep_valid(key: str, options: list[str], default: list[str]) -> None:
    current = [v for v in st.session_state.get(key, []) if v in options]
    st.session_state[key] = current or default


def _follow_new_data(sel: Selection) -> None:
    """After a new upload or a switch of data source, select the loaded data's first benchmark."""
    ss = st.session_state
    if ss.get("_sb_data_fingerprint") == sel.fingerprint:
        return
    ss["_sb_data_fingerprint"] = sel.fingerprint
    if sel.ds is not None and sel.ds.benchmarks:
        ss["sb_benchmark"] = sel.ds.benchmarks[0]


def data_location(sel: Selection) -> str:
    """One sentence saying where the selected benchmark's data comes from."""
    bench = short_label(sel.benchmark or "")
    if sel.ds is not None and sel.benchmark in sel.ds.benchmarks:
        where = "Your data" if sel.source == "upload" else sel.source[:1].upper() + sel.source[1:]
        return f"{where}: benchmark {bench}"
    return f"Published CAP tables only: benchmark {bench} is not in the loaded data"


def render() -> Selection:
    """Draw the sidebar and return (and store) the current :class:`Selection`."""
    init_defaults()
    sb = st.sidebar
    sel = Selection()
    sel.source = sb.radio("Dataset", SOURCES, key="sb_source")
    try:
        _load(sel)
    except CAPInputError as err:
        sel.error = str(err)
    sel.include_published = sb.toggle("Include published CAP judges", key="sb_published")
    benches = list(sel.ds.benchmarks) if sel.ds is not None else []
    if sel.include_published:
        benches += [b for b in cache.published_profiles()["benchmark"].unique().sort().to_list() if b not in benches]
    if benches:
        _follow_new_data(sel)
        if st.session_state.get("sb_benchmark") not in benches:
            st.session_state["sb_benchmark"] = benches[0]
        sel.benchmark = sb.selectbox("Benchmark", benches, key="sb_benchmark", format_func=short_label)
        sb.caption(data_location(sel))
        options = _entries(sel)
        _keep_valid("sb_entries", options, options[:4])
        sel.labels = sb.multiselect("Judges", options, key="sb_entries", format_func=short_label)
    sb.markdown("**Condition weights**")
    sb.selectbox("Preset (CAP §5)", list(PRESETS) + [CUSTOM], key="sb_preset", on_change=_apply_preset)
    for c in CONDITION_IDS:
        sel.weights[c] = sb.slider(
            f"{c} {CONDITIONS[c][0]}", 0.0, 1.0, step=0.1, key=f"sb_w_{c}", on_change=_mark_custom
        )
    st.session_state["selection"] = sel
    return sel


def get_selection() -> Selection:
    """The selection stored by :func:`render`; stops the page with the error if loading failed."""
    sel = st.session_state.get("selection") or Selection(error="the sidebar has not been drawn yet")
    if sel.error:
        st.error(sel.error)
        st.stop()
    return sel
