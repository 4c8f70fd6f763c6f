"""Two sections of the Frontiers page: sensitivity per slot and human direction annotation.

Sources: Validity Table 6 and Fig. 6 (per-intervention sensitivity at matched
invariance), Table 3/4 and Protocol 1 (direction annotation, slot exclusion below an
agreement bar of 0.75). Core logic lives in :mod:`cap_core.validity.slots` and
:mod:`cap_core.validity.annotation`; this module only caches and draws.
"""

from __future__ import annotations

import polars as pl
import streamlit as st

from cap_core.errors import CAPInputError
from cap_core.export import to_csv_bytes
from cap_core.validity.annotation import DEFAULT_MIN_AGREEMENT
from components.slot_bars import slot_bars_figure
from ui.display import download, show_table
from ui.state import kept, kept_upload
from ui.text import notice

N_RESAMPLES = 1000
#: 0–1 columns of these tables, shown in percent like every rate on the pages.
RATES = ("value", "ci_low", "ci_high", "R", "S", "R_scope", "R_strength", "agreement", "agree", "flip_rate",
         "mean_agreement")


@st.cache_data(max_entries=8, show_spinner="Sensitivity per slot (bootstrap over base items)…")
def slot_table(key: str, taus: tuple[tuple[str, float], ...], _grades: pl.DataFrame) -> pl.DataFrame:
    """:func:`cap_core.validity.slots.slot_sensitivity` at the given thresholds."""
    from cap_core.validity.slots import slot_sensitivity

    return slot_sensitivity(_grades, dict(taus), n_resamples=N_RESAMPLES, seed=0)


@st.cache_data(max_entries=1)
def published_slots() -> pl.DataFrame:
    """Validity Tables 6 and 4 as shipped in data/published."""
    from cap_core.validity.slots import published_slot_table

    return published_slot_table()


@st.cache_data(max_entries=8)
def annotated(name: str, data: bytes, min_agreement: float, min_s: float, grades_key: str, _grades: pl.DataFrame
              ) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame, pl.DataFrame | None]:
    """(kept probes, per-slot report, per-probe status, matched-invariance points on the kept probes)
    for an uploaded annotation file; the points are None when the kept probes hold no control."""
    from cap_core.io import read_table
    from cap_core.validity.annotation import apply_annotations
    from cap_core.validity.frontier import operating_point, sweep

    probes = _grades.select("probe_id", "class", "axis", "slot").unique("probe_id", maintain_order=True)
    ann, _ = read_table(name, kind="annotations", data=data)
    try:
        kept_probes, report = apply_annotations(probes, ann, min_agreement=min_agreement)
    except CAPInputError as err:
        raise err.with_file(name) from None
    excluded = report.filter(pl.col("excluded"))["slot"].to_list()
    labelled = ann["probe_id"].cast(pl.Utf8).unique().to_list()
    status = probes.filter(pl.col("probe_id").is_in(labelled)).with_columns(
        status=pl.when(pl.col("probe_id").is_in(kept_probes["probe_id"].to_list())).then(pl.lit("kept"))
        .when(pl.col("slot").is_in(excluded)).then(pl.lit("dropped: slot excluded"))
        .otherwise(pl.lit("dropped: majority label not the intended direction")))
    sub = _grades.filter(pl.col("probe_id").is_in(kept_probes["probe_id"].to_list()))
    ops = None
    if sub.height and (sub["class"] == "T_I").any():
        ops = operating_point(sweep(sub), min_s).select("judge", "tau", "S", "R", "R_scope", "R_strength")
    return kept_probes, report, status, ops


def slot_section(key: str, grades: pl.DataFrame, ops: pl.DataFrame) -> None:
    """Per-slot R and control flip rate at each judge's matched τ, with the published Table 6 beside."""
    st.subheader("Sensitivity per slot at the matched τ (Validity Table 6 analogue)")
    if ops.height == 0:
        st.caption("No judge here has a control arm, so there is no matched-invariance τ to read slots at.")
        return
    table = slot_table(key, tuple(zip(ops["judge"].to_list(), ops["tau"].to_list())), grades)
    pub = published_slots()
    show = st.toggle("Show the published per-intervention R (Validity Table 6)", key=kept("fr_slot_pub", True))
    st.plotly_chart(slot_bars_figure(table, pub if show else None), key="fr_slot_bars")
    st.caption("R of each construct edit type and flip rate of each control (hatched), at each judge's matched τ; "
               "base items weigh equally within a slot; whiskers: 95% bootstrap over base items. The mean row "
               "averages the judges, as Table 6 does over its 7 judges.")
    show_table(st, table, key="fr_slots", fractions=RATES)
    download(st, "Download sensitivity per slot (CSV)", to_csv_bytes(table), "slot_sensitivity.csv", key="fr_dl_slots")
    st.caption("Published: Validity Table 6 (R, mean over 7 judges) with Table 4 (human direction, agreement, "
               "flip rate; printed for the scope slots only).")
    show_table(st, pub, key="fr_slots_published", fractions=RATES)


def annotation_section(key: str, grades: pl.DataFrame, min_s: float) -> None:
    """Upload per-probe annotator labels; show kept / dropped probes and excluded slots."""
    st.subheader("Human direction annotation")
    bar_pct = st.slider("Slot agreement bar (mean pairwise agreement, %; slots below it are excluded)", 0, 100,
                        key=kept("fr_min_agree", round(100 * DEFAULT_MIN_AGREEMENT)))
    bar = bar_pct / 100  # the annotation code takes a proportion
    up = kept_upload(st, "Annotation table: probe_id, annotator, label (changed / unchanged), one row per "
                     "annotator and probe", key="fr_ann_upload", type=["csv", "tsv", "jsonl", "json", "parquet"])
    if up is None:
        st.caption("A probe is kept when most of its annotators give the intended label (changed for construct "
                   "edits, unchanged for controls); a slot whose agreement is below the bar is excluded whole.")
        return
    try:
        kept_probes, report, status, ops = annotated(*up, bar, min_s, key, grades)
    except CAPInputError as err:
        notice("error", err)
        return
    excluded = report.filter(pl.col("excluded"))
    if excluded.height:
        notice("warning", "Excluded slots: " + "; ".join(f"{r['slot']} ({r['reason']})"
                                                         for r in excluded.iter_rows(named=True)))
    else:
        st.success(f"No slot excluded: every annotated slot reaches the bar of {bar_pct}%.")
    st.markdown(f"**{kept_probes.height}** of {status.height} annotated probes kept.")
    show_table(st, report, key="fr_ann_report", fractions=RATES)
    show_table(st, status, key="fr_ann_status")
    download(st, "Download probe status (CSV)", to_csv_bytes(status), "annotation_status.csv", key="fr_dl_ann")
    if ops is None:
        st.caption("The kept probes hold no control arm: S cannot be measured on them.")
        return
    st.caption(f"Matched-invariance points (S ≥ {100 * min_s:.0f}%) on the kept probes only (no intervals):")
    show_table(st, ops, key="fr_ann_ops", fractions=RATES)
