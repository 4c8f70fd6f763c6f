"""Label audit: how much of a label set can surface features recover without reading? (Validity Table 7)."""

import polars as pl
import streamlit as st

from cap_core.audit.surface import AuditResult
from cap_core.audit.user_sets import FORMAT_HELP
from cap_core.errors import CAPInputError
from cap_core.glossary import help_text
from cap_core.importers.label_sets import PUBLIC_SETS, QUICK
from components.audit_bars import (
    audit_bars_figure,
    audit_display_table,
    length_drilldown,
    published_vs_computed,
)
from ui.cache import label_audit as ac
from ui.display import show_table
from ui.state import kept, kept_upload
from ui.text import notice

#: Why length_only can score below 50% while "longer is better" holds on many items.
LENGTH_ONLY_NOTE = (
    "Why length_only can fall below 50% even where the longer response often wins: it is not the rule "
    "'pick the longer one' but a classifier fitted on the other folds and scored on held-out groups of items. "
    "It learns from the training folds which way, and how strongly, length points; when that direction does not "
    "hold in the held-out groups, it predicts the wrong side there. Below chance therefore means the length "
    "signal does not generalise across groups, not that shorter responses are better."
)

st.title("Label audit")
st.info("This page does not use the sidebar's dataset, benchmark or judges: it audits label sets, the public "
        "ones chosen below (shipped figures or your local copy) or one you upload here.")
st.caption(
    "Before trusting a label set to validate judges, check how much of it a construct-blind predictor "
    "recovers: response length, digit/punctuation/casing counts, or character n-grams (n ≤ 4), each a "
    "regularised logistic regression with prompt-grouped folds. A row clears its null when it beats "
    "refits on permuted labels (p ≤ 0.05). Paired accuracy has chance 50%; per-item κ has chance 0."
)


def _full() -> None:
    st.session_state["la_sets"] = list(PUBLIC_SETS)
    st.session_state["la_perm"] = ac.FULL_PERMUTATIONS


PERMUTATIONS = [0, ac.QUICK_PERMUTATIONS, ac.FULL_PERMUTATIONS]
local_in = st.text_input("Your local copy of the public data (optional folder)", key=kept("la_local", ""),
                         placeholder="e.g. ~/public-data (holding llmbar/, pandalm/, …)",
                         help="With a local copy of the public label-set files, the public sets are audited here "
                         "from their texts. Without one, the page shows the figures shipped in data/audit.")
local, problem = ac.local_copy_status(local_in)
if problem:
    notice("warning", f"{problem}. Showing the shipped figures instead.")
c1, c2, c3 = st.columns([3, 1, 1])
names = c1.multiselect("Public label sets", list(PUBLIC_SETS), key=kept("la_sets", list(QUICK),
                                                                      options=list(PUBLIC_SETS)))
n_perm = c2.selectbox("Permutations", PERMUTATIONS, key=kept("la_perm", ac.QUICK_PERMUTATIONS, options=PERMUTATIONS),
                      help=help_text("p_value"))
mode = c3.radio("Chart mode", ["paired", "item"], key=kept("la_mode", "paired", options=["paired", "item"]))
st.button("Run the full audit (every public set, 100 permutations; shipped, or a minute or two from a local copy)",
          key="la_full", on_click=_full)
upload = kept_upload(st, "Or upload your own label set", type=["csv", "tsv", "jsonl", "json", "parquet"],
                     key="la_upload", help=FORMAT_HELP)
st.caption(f"Upload format — {FORMAT_HELP}.")

results: list[AuditResult] = []
try:
    public, notes = ac.public_audit(tuple(names), local, n_perm)
    for note in notes:
        notice("info", note)
    if public is not None:
        results.append(public)
    if upload is not None:
        own = ac.read_upload(*upload)
        for note in own.notices:
            notice("info", note)
        results.append(ac.audit_upload(own, n_perm))
except CAPInputError as err:
    notice("error", err)
if not results:
    st.info("Choose at least one public label set or upload your own.")
else:
    table = pl.concat([r.table for r in results])
    preds = pl.concat([r.predictions for r in results])
    st.subheader("Computed audit", help=help_text("paired_accuracy") + " · " + help_text("a_imp"))
    show_table(st, audit_display_table(table), key="la_table")
    weak = table.filter(~pl.col("clears_null").fill_null(False)).height
    st.caption(f"{table.height} rows; {weak} do not clear their permutation null (hatched bars). "
               "Ties are excluded and counted in n_ties.")
    if mode in table["mode"].to_list():
        st.plotly_chart(audit_bars_figure(table, mode), key="la_bars")
    else:
        st.info(f"No {mode}-mode rows: an uploaded set of single responses has no pairs.")

    st.subheader("Which items does length_only get right?")
    drill_sets = table["label_set"].unique(maintain_order=True).to_list()
    drill_set = st.selectbox("Label set", drill_sets, key=kept("la_drill", drill_sets[0], options=drill_sets))
    drill = length_drilldown(preds, drill_set, mode)
    if drill.height:
        right = int(drill["correct"].sum())
        notice("caption", f"{drill_set}, {mode} mode: length alone gets {right} of {drill.height} units right "
                   f"({100 * right / drill.height:.1f}%); the longer response is the better one in "
                   f"{int(drill['longer_is_better'].sum())} of them. Lengths in characters.")
        st.caption(LENGTH_ONLY_NOTE)
        show_table(st, drill, key="la_drill_table")

st.subheader("Published: Validity Table 7")
pub = ac.published_table7()
left, right = st.columns(2)
left.caption("Published (Chen et al., construct-validity paper, Table 7): per-item a_imp, paired κ and accuracy %.")
show_table(left, pub, key="la_published")
comp = published_vs_computed(pub, pl.concat([r.table for r in results]) if results else pl.DataFrame())
right.caption("Computed here (best of the three predictors) beside the published value. Audit RewardBench "
              "or RM-Bench chat to fill this in; our RM-Bench is its chat subset only.")
show_table(right, comp, key="la_compare")
