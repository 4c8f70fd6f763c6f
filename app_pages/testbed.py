"""Build a testbed: your questions with reference answers -> pairs with planted errors, all eight conditions."""

from pathlib import Path

import streamlit as st

from cap_core.errors import CAPInputError
from components.testbed_plan import plan_heatmap
from ui.cache import testbed as tbc
from ui.display import show_table
from ui.state import kept, kept_upload
from ui.text import notice, plain

st.title("Build a testbed")
st.caption("Your questions with their correct answers become pairwise items: the correct answer against one "
           "with a planted error of a known type (factual, logical, overclaim, omission), in plain, polished and "
           "length-padded form, so judges run on them show all eight conditions (CAP §3.2). It does not use the "
           "sidebar; judge the folder on the Live run page.")

src = st.radio("Questions (question, answer; optional id, domain, context)", tbc.ITEM_SOURCES, horizontal=True,
               key=kept("tb_src"))
try:
    if src == tbc.ITEM_SOURCES[0]:
        path = st.text_input("Table path (CSV, TSV, JSONL, JSON or Parquet)", key=kept("tb_path"))
        up = tbc.read_path(path) if path else None
    else:
        up = kept_upload(st, "Questions table", key="tb_upload", type=["csv", "tsv", "jsonl", "json", "parquet"])
except CAPInputError as err:
    notice("error", err)
    st.stop()
if up is None:
    st.info("Give a table of questions with their correct answers (or multiple-choice rows: question, options, "
            "correct).")
    st.stop()
name, data = up

g1, g2, g3 = st.columns(3)
generator = g1.text_input("Generator ('rules' offline, or a litellm model)", key=kept("tb_gen", "rules"))
judge = g2.text_input("Subtlety judge (model; empty: no gate)", key=kept("tb_judge", ""))
generator2 = g3.text_input("Second generator (replication, optional)", key=kept("tb_gen2", ""))
api_base = st.text_input("API base (OpenAI-compatible server, optional)", key=kept("tb_api_base", ""))
n1, n2, n3, n4 = st.columns(4)
hard = n1.text_input("Pairs to harden (Hard-Constructed)", key=kept("tb_hard", ""), placeholder="a quarter",
                     help="A number of pairs; empty: a quarter of the questions (as on the command line)")
regen = n2.number_input("Regenerations below subtlety 4", 0, 10, key=kept("tb_regen", 3))
pad = n3.number_input("Padding of the flawed answer (×)", 1.1, 4.0, step=0.1, key=kept("tb_pad", 1.5))
budget = n4.number_input("Budget: dollars (0 = none)", 0.0, 10_000.0, step=0.5, key=kept("tb_budget", 1.0))
out_dir = st.text_input("Testbed folder to write", key=kept("tb_out", tbc.default_out(name), follows=name))
skip = st.checkbox("Leave out questions no type fits", key=kept("tb_skip", False),
                   help="With the rules: build from the others (unplantable.csv names each one left out and why)")

try:
    spec = tbc.spec(generator, generator2, judge, api_base, hard, regen, pad, budget, skip)
    plan = tbc.plan(name, data, spec)
except CAPInputError as err:
    notice("error", err)
    st.stop()
# the benchmark comes from the file's name, the estimate names the models typed: text, never Markdown
st.markdown(f"**Plan:** {plan.n} {'question' if plan.n == 1 else 'questions'} → benchmark {plain(plan.benchmark)}, "
            f"{plan.n_hard} {'pair' if plan.n_hard == 1 else 'pairs'} to harden. "
            f"**{plain(plan.estimate[0].upper() + plan.estimate[1:])}.**")
st.plotly_chart(plan_heatmap(plan.counts, title="Questions per domain and planted error type"), key="tb_plan")
if plan.unplantable.height:
    with st.expander(f"Types the rules could not plant ({plan.unplantable.height})"):
        show_table(st, plan.unplantable, key="tb_unplantable")

go, stop = st.columns(2)
stop.button("Cancel", key="tb_cancel", help="Stops the build; finished calls stay in the cache.")
if go.button("Build the testbed", type="primary", key="tb_build"):
    bar = st.progress(0.0, text="starting…")

    def show(s: dict) -> None:
        bar.progress(min(1.0, s["done"] / max(1, s["total"])), text=f"{s['phase']}: {s['done']} calls")

    try:
        res = tbc.build(name, data, src == tbc.ITEM_SOURCES[0], spec, out_dir, show)
        bar.progress(1.0, text="done")
    except CAPInputError as err:
        notice("error", err)
        st.stop()
last = st.session_state.get(tbc.LAST_KEY)
if last and Path(last).is_dir():
    counts, manifest, notes = tbc.counts(last)
    s = manifest["stats"]
    notice("success", f"Testbed written to {last}: {s['requests']} requests, {s['cache_hits']} cache hits, "
                      f"{sum((s.get('failed_calls') or {}).values())} failed, ${s['spend_usd']:.4f}.")
    for note in [*manifest.get("notices", []), *notes]:  # they quote the data's domains and ids
        notice("caption", note)
    show_table(st, counts, key="tb_counts")
    b1, b2 = st.columns(2)
    if b1.button("Judge it on the Live run page", key="tb_to_live", on_click=tbc.open_in_live_run, args=(last,)):
        st.switch_page("app_pages/live_run.py")
    if b2.button("Review the pairs on the Labelling page", key="tb_to_review", on_click=tbc.open_in_review,
                 args=(last,)):
        st.switch_page("app_pages/labelling.py")
