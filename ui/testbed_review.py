"""The testbed review section of the Labelling page: each generated pair with its planted error type,
subtlety and attempts; accept, reject or edit, saved at once (:mod:`cap_core.testbed.review`)."""

from __future__ import annotations

import polars as pl
import streamlit as st

from cap_core.errors import CAPInputError
from cap_core.testbed.taxonomy import ERROR_TYPES, TYPE_LABELS
from ui.cache import testbed as tbc
from ui.display import show_table
from ui.state import kept
from ui.text import notice, plain


def review_if_chosen() -> None:
    """Draw the Labelling page's choice of what to label; for a built testbed, draw its review and stop the page."""
    if st.radio("What to label", tbc.MODES, horizontal=True, key=kept("lab_mode")) == tbc.MODES[1]:
        render_review()
        st.stop()


def render_review() -> None:
    """Draw the review of the testbed folder typed in ``lab_tb_path`` (stops the page when there is none)."""
    path = st.text_input("Testbed folder (written by Build a testbed or `testbed build`)", key=kept("lab_tb_path"))
    if not path:
        st.info("Give the folder of a built testbed. Rejected pairs leave it; edits replace the pair's texts.")
        st.stop()
    try:
        view = tbc.review(path)
    except CAPInputError as err:
        notice("error", err)
        st.stop()
    pairs = view.pairs
    for n in view.notes:
        notice("warning", n)
    done = int((pairs["state"] != "pending").sum())
    st.progress(done / max(1, pairs.height), text=f"{done} of {pairs.height} pairs reviewed")
    order = pairs.with_row_index("_r").sort(pl.col("state") != "pending", "_r")
    labels = [f"{b} / {i} — {s}" for b, i, s in order.select("benchmark", "base_item_id", "state").iter_rows()]
    first = labels[0]
    pick = st.selectbox("Pair", labels, key=kept("lab_tb_pair", first, options=labels, follows=first))
    row = order.row(labels.index(pick), named=True)
    if tbc.ERROR_KEY in st.session_state:
        notice("error", st.session_state.pop(tbc.ERROR_KEY))
    # the domain and flags come from the user's file: shown as text, never as Markdown (links, images)
    st.markdown(f"**{plain(TYPE_LABELS.get(row['failure_type'], row['failure_type']))}** · domain "
                f"{plain(row['domain'])} · subtlety {row['subtlety'] if row['subtlety'] is not None else '—'} · "
                f"attempts {row['attempts']} · flags {plain(row['flags'] or 'none')} · state **{row['state']}**")
    with st.container(border=True):
        st.markdown("**Question**")
        st.text(row["question"])
    ca, cb = st.columns(2)
    with ca.container(border=True):
        st.markdown("**Correct answer (the gold)**")
        st.text(row["correct"])
    with cb.container(border=True):
        st.markdown("**Flawed answer**")
        st.text(row["flawed"])
        notice("caption", f"Planted: {row['error_note']}")  # a model's note: text, never Markdown
    args = (path, row["benchmark"], row["base_item_id"])
    b1, b2 = st.columns(2)
    b1.button("Accept", key="lab_tb_accept", on_click=tbc.decide, args=(*args, "accept"), width="stretch")
    b2.button("Reject", key="lab_tb_reject", on_click=tbc.decide, args=(*args, "reject"), width="stretch")
    with st.expander("Edit the pair"):
        token = (row["benchmark"], row["base_item_id"])
        st.text_area("Correct answer", key=kept("lab_tb_correct", row["correct"], follows=token))
        st.text_area("Flawed answer", key=kept("lab_tb_flawed", row["flawed"], follows=token))
        st.text_area("Planted error (what the flawed answer gets wrong; the rationale evaluator reads it)",
                     key=kept("lab_tb_note", row["error_note"] or "", follows=token))
        st.selectbox("Planted error type", ERROR_TYPES, format_func=TYPE_LABELS.get,
                     key=kept("lab_tb_type", row["failure_type"], options=ERROR_TYPES, follows=token))
        st.button("Save the edit", key="lab_tb_edit", on_click=tbc.decide, args=(*args, "edit"))
    att = view.attempts.filter((pl.col("benchmark") == row["benchmark"]) &
                               (pl.col("base_item_id") == row["base_item_id"]))
    if att.height:
        st.markdown("**Attempts**")
        show_table(st, att.select("stage", "attempt", "status", "subtlety", "reason", "text", "cost_usd"),
                   key="lab_tb_attempts")
