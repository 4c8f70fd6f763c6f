"""Frontiers: validity profiles (invariance S, sensitivity R) of graded judges."""

import streamlit as st

from cap_core.errors import CAPInputError
from cap_core.export import to_csv_bytes
from cap_core.glossary import help_text
from components.sensitivity_bars import axis_bars_figure
from components.sr_plane import frontier_figure
from ui import frontier_sections as fs
from ui.cache import frontiers as vc
from ui.display import download, show_table
from ui.state import kept, kept_upload
from ui.text import notice, plain

#: 0–1 columns of the Frontiers tables, shown in percent (one unit on every page).
RATE_COLUMNS = ("S", "S_ci_low", "S_ci_high", "R", "R_ci_low", "R_ci_high", "R_scope", "R_strength", "value",
                "ci_low", "ci_high", "agreement", "flip_rate", "regrade", "mean_agreement")

st.title("Frontiers")
st.info("This page does not use the sidebar's dataset, benchmark or judges: it reads graded probe data, chosen "
        "below (the public JudgeBench / LLMBar gradings, the built-in probe set, or your own upload).")
st.caption(
    "Invariance **S** = share of construct-preserving edits (controls) that leave the verdict unchanged; "
    "sensitivity **R** = share of construct-changing edits that move it; both in percent. Items weigh equally, "
    "probes equally within an item; intervals resample base items. A grade becomes a verdict at threshold τ "
    "(grade > τ, on the judge's grade scale)."
)
source = st.radio("Graded data", vc.SOURCES, key=kept("fr_source", options=vc.SOURCES), horizontal=True)
try:
    if source == vc.SOURCES[0]:
        g = vc.public()
        st.info(
            "**Mapping.** JudgeBench rubric judges grade each response on [0, 1] in both presentation orders: "
            "the same response's grade across the order swap is a control (T_I); the correct vs the incorrect "
            "response in one order is a construct change (T_C, axis *correctness*), so R here is correctness "
            "sensitivity, not scope/strength. LLMBar Rating gives one 0–10 rating per output and no repeat: "
            "only R(τ) is measurable, S is not, so those judges get no point on the plane."
        )
    elif source == vc.SOURCES[1]:
        judges = vc.parse_models(st.text_input(
            "Judges (litellm model strings, comma-separated; localgrade/overlap runs offline)",
            key=kept("fr_models", vc.OFFLINE_GRADER)))
        graded = st.session_state.setdefault("fr_graded", [])  # hosted judge sets graded in this session
        if judges != (vc.OFFLINE_GRADER,) and judges not in graded:
            if not st.button("Grade (calls are cached; hosted models cost money)", key="fr_grade"):
                st.stop()
            graded.append(judges)
        g = vc.builtin(judges)
        st.info("Each judge grades 1–5 how fully the evidence licenses the claim, for every base claim and every "
                "verified probe; controls (T_I) give S, scope and strength edits (T_C) give R per axis.")
    else:
        up = kept_upload(st, "Graded probe table (judge, base_item_id, probe_id, class, axis, slot, grade_base, "
                         "grade_probe, scale_min, scale_max)", key="fr_upload",
                         type=["csv", "tsv", "jsonl", "json", "parquet"])
        if up is None:
            st.stop()
        g = vc.upload(*up)
except CAPInputError as err:
    notice("error", err)
    st.stop()
for n in g.notices:
    notice("caption", f"Note: {n}.")

with st.expander("Settings: matched invariance and quadrant cut-offs"):
    min_s_pct = st.slider("Invariance floor for the matched operating point (S, %)", 50, 100,
                          key=kept("fr_min_s", 90), help=help_text("matched_S"))
    s_high_pct = st.slider("Quadrant cut-off: high S (%)", 50, 100, key=kept("fr_s_high", 90), help=help_text("S"))
    r_high_pct = st.slider("Quadrant cut-off: high R (%)", 0, 100, key=kept("fr_r_high", 50), help=help_text("R"))
min_s, s_high, r_high = min_s_pct / 100, s_high_pct / 100, r_high_pct / 100  # the validity code takes proportions
ops = vc.operating(g.key, min_s, s_high, r_high, g.grades, g.sw)

st.subheader("Threshold per judge")
taus = {}
cols = st.columns(2)
for i, (judge, options, default) in enumerate(vc.tau_options(g.sw, ops)):
    with cols[i % 2]:
        taus[judge] = st.select_slider(f"τ — {plain(judge)}", options=options, format_func=lambda t: f"{t:g}",
                                       key=kept(f"fr_tau_{judge}", default, options=options, follows=default),
                                       help=help_text("tau"))
sel, lines = vc.points(g.sw, taus, s_high, r_high)
for line in lines:
    st.markdown(line)

pub_judges, _ = vc.published()
c1, c2 = st.columns(2)
show_pub = c1.toggle("Show published operating points (Validity Table 5)", key=kept("fr_pub", True))
zoom = c2.toggle("Zoom the S axis to the judges", key=kept("fr_zoom", True))
st.plotly_chart(frontier_figure(g.sw, ops, sel, pub_judges if show_pub else None, s_high=s_high, r_high=r_high,
                                zoom=zoom), key="fr_plane")
st.caption("Lines join hull vertices (attained thresholds); straight segments are interpolation. Ringed: the "
           f"matched-invariance point (highest R with S ≥ {min_s_pct}%). Diamond: the slider's τ. Dashed: S + R = 1.")

st.subheader("Sensitivity per axis beside the control flip rate (slider τ)")
st.plotly_chart(axis_bars_figure(sel), key="fr_bars")

st.subheader("Operating points: computed and published", help=help_text("S") + " · " + help_text("R"))
table = vc.operating_points(ops, pub_judges)
show_table(st, table, key="fr_ops", fractions=RATE_COLUMNS)
download(st, "Download operating points (CSV)", to_csv_bytes(table), "operating_points.csv", key="fr_dl_ops")
download(st, "Download the full threshold sweep (CSV)", to_csv_bytes(g.sw), "sweep.csv", key="fr_dl_sweep")
fs.slot_section(g.key, g.grades, ops)
fs.annotation_section(g.key, g.grades, min_s)

st.subheader("Instrument quality")
iq = vc.instrument_table(g)
show_table(st, iq, key="fr_iq", fractions=RATE_COLUMNS)
download(st, "Download instrument quality (CSV)", to_csv_bytes(iq), "instrument_quality.csv", key="fr_dl_iq")
st.caption("usable = grade values used on at least 1% of graded texts; regrade = share of texts (%) given the same "
           "grade twice (public data: both presentation orders of a pointwise grader; empty without repeats).")
show_table(st, pub_judges.select("judge", "points", "regrade", "source"), key="fr_iq_pub", fractions=RATE_COLUMNS)

st.subheader("Built-in probe set")
summary, counts = vc.probe_set()
st.caption(counts)
show_table(st, summary, key="fr_probe_summary")
