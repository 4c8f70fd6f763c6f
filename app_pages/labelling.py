"""Labelling: label your own pairs (A, B or tie), saved as you go; plan how many first; or review a built testbed."""

import streamlit as st

from cap_core import config
from cap_core.errors import CAPInputError
from cap_core.labelling import store as ls
from ui.cache import labelling as lc
from ui.state import kept, kept_upload
from ui.testbed_review import review_if_chosen
from ui.text import notice, plain

TYPES = ["csv", "tsv", "jsonl", "json", "parquet"]

st.title("Labelling")
st.caption("Label a sample of your own traffic: one pair at a time, the two responses in a seeded random order "
           "(recorded with each label). Every label is appended to a file at once, so you can stop and come back; "
           "the labelled pairs then work as a benchmark on every page.")

review_if_chosen()  # a built testbed instead: accept, reject or edit its pairs (the page stops after it)
src = st.radio("Items to label (question, response_a, response_b)", lc.ITEM_SOURCES, horizontal=True,
               key=kept("lab_src", options=lc.ITEM_SOURCES))
try:
    if src == lc.ITEM_SOURCES[0]:
        path = st.text_input("Table path (CSV, TSV, JSONL, JSON or Parquet)", key=kept("lab_path"))
        up = lc.read_path(path) if path else None
    else:
        up = kept_upload(st, "Items table", key="lab_upload", type=TYPES)
    pairs = lc.pairs(*up) if up else None
except CAPInputError as err:
    notice("error", err)
    st.stop()
if pairs is None:
    st.info("Give a table with a question and two responses per row (item_id optional; no gold needed).")
    st.stop()

name, data = up
bench = pairs["benchmark"][0]
st.session_state[lc.ITEMS_KEY] = up
st.session_state[lc.BENCH_KEY] = bench
seed = int(st.number_input("Seed of the presentation order", 0, 2**31 - 1, key=kept("lab_seed", config.SEED)))
store = lc.store_for(name, data, bench)
try:
    latest, notes = store.read()
except CAPInputError as err:
    notice("error", err)
    st.stop()
for n in notes:
    notice("warning", n)

n_all = pairs.height
done = sum((b, i) in latest for b, i in zip(pairs["benchmark"], pairs["item_id"]))
st.progress(done / n_all, text=f"{done} of {n_all} pairs labelled")
notice("caption", f"Labels file: {store.path}")

tab_label, tab_use, tab_plan = st.tabs(["Label", "Use as a benchmark", "How many labels?"])

with tab_label:
    pos = ls.next_unlabelled(pairs, latest)
    if pos is None:
        st.success(f"All {n_all} pairs are labelled.")
    else:
        row = pairs.row(pos, named=True)
        shown = "BA" if ls.shown_swapped(row["item_id"], seed, bench) else "AB"
        left, right = row["response_a"], row["response_b"]
        if shown == "BA":
            left, right = right, left
        st.markdown(f"**Pair {pos + 1} of {n_all}** · item {plain(row['item_id'])}")
        with st.container(border=True):
            st.markdown("**Question**")
            st.text(row["question"])
        ca, cb = st.columns(2)
        with ca.container(border=True):
            st.markdown("**Response A**")
            st.text(left)
        with cb.container(border=True):
            st.markdown("**Response B**")
            st.text(right)
        st.text_input("Note (optional, saved with the label)", key=kept("lab_note"))
        args = (name, data, bench, row["item_id"], shown)
        b1, b2, b3 = st.columns(3)
        b1.button("A is better", key="lab_pick_A", shortcut="A", on_click=lc.pick, args=(*args, "A", seed),
                  width="stretch")
        b2.button("Tie", key="lab_pick_tie", shortcut="T", on_click=lc.pick, args=(*args, "tie", seed),
                  width="stretch")
        b3.button("B is better", key="lab_pick_B", shortcut="B", on_click=lc.pick, args=(*args, "B", seed),
                  width="stretch")
        st.caption("Keyboard: A, T or B. The keys act only while no text field has the cursor (click the "
                   "question first after typing a path or a note). The letters are those on the screen; the label "
                   "is stored in the items' own letters.")

with tab_use:
    st.markdown("Labelled pairs become CAP items (gold = your label; ties are left out). To see judges on "
                "them, either judge the exported benchmark on the Live run page, or give judgments of these items "
                "(a pilot run, another tool's import) below.")
    if st.button("Export the labelled pairs as a benchmark folder", key="lab_export"):
        try:
            path, k = lc.export(name, data)
            st.success(f"Wrote {k} labelled pairs with their texts to {plain(path)}: give its folder to the Live run "
                       "page (benchmark folder or table path) or to `python -m cap_core judge --items`.")
        except CAPInputError as err:
            notice("error", err)
    jsources = ["none", "table path", "upload"]
    jsrc = st.radio("Judgments of these items", jsources, horizontal=True, key=kept("lab_jsrc", options=jsources))
    judg_up = None
    try:
        if jsrc == "table path":
            jpath = st.text_input("Judgments table path (judge, item_id, order, verdict)", key=kept("lab_jpath"))
            judg_up = lc.read_path(jpath) if jpath else None
        elif jsrc == "upload":
            judg_up = kept_upload(st, "Judgments table", key="lab_jupload", type=TYPES)
        if judg_up:
            lc.judgments_table(*judg_up)  # checked here, so the sidebar gets a valid table
    except CAPInputError as err:
        notice("error", err)
        judg_up = None
    if judg_up:
        st.session_state[lc.JUDGMENTS_KEY] = judg_up
    else:
        st.session_state.pop(lc.JUDGMENTS_KEY, None)
    if judg_up and done:
        st.button("Show the labelled pairs on every page", key="lab_use", on_click=lc.use_labels)

with tab_plan:
    st.markdown("Before labelling, a pilot run of two candidate judges on the *unlabelled* pairs tells how often "
                "they disagree; that alone bounds how many labels separate them, or show they are on par (the "
                "variance of a paired accuracy difference is at most the disagreement rate).")
    judg = lc.judgments_table(*judg_up) if judg_up else None
    if judg is None:
        st.info("Give the pilot judgments under **Use as a benchmark** (judgments of these items, any gold).")
    else:
        names = sorted(judg["judge"].unique().to_list())
        if len(names) < 2:
            st.info("The pilot judgments hold one judge; two candidates are needed.")
        else:
            p1, p2 = st.columns(2)
            ja = p1.selectbox("Candidate 1", names, key=kept("lab_ja", names[0], options=names))
            jb = p2.selectbox("Candidate 2", names, key=kept("lab_jb", names[1], options=names))
            q1, q2 = st.columns(2)
            effect = q1.number_input("Difference to detect (points)", 0.5, 50.0, step=0.5, key=kept("lab_eff", 5.0))
            margin = q2.number_input("Parity margin ± (points)", 0.5, 50.0, step=0.5, key=kept("lab_margin", 5.0))
            try:
                rate, units, pl_ = lc.plan(judg, ja, jb, effect, margin)
                st.markdown(f"Disagreement on the pilot: **{100 * rate:.1f}%** of {units} judged units.")
                fmt = lambda x: "not possible" if x == float("inf") else f"{int(x):,}"  # noqa: E731
                st.markdown(f"- To tell a {effect:g}-point difference from none (two-sided, "
                            f"{100 * pl_.level:.0f}% level, {100 * pl_.power:.0f}% power): "
                            f"**{fmt(pl_.separate)} labelled pairs**\n"
                            f"- To show parity within ±{margin:g} points (TOST, same level and power): "
                            f"**{fmt(pl_.parity)} labelled pairs**")
                st.caption("Normal approximation, planning figures; labels of ties are left out, so label a few more.")
            except (CAPInputError, ImportError) as err:
                notice("error", err)
