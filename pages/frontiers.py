"""Frontiers: validity profiles (invariance S, sensitivity R) of graded judges."""

import polars as pl
import streamlit as st

from cap_core.errors import CAPInputError
from cap_core.export import to_csv_bytes
from cap_core.validity.frontier import quadrant
from components.sensitivity_bars import axis_bars_figure
from components.sr_plane import frontier_figure
from ui import frontier_sections as fs
from ui.cache import frontiers as vc

st.title("Frontiers")
st.caption(
    "Invariance **S** = share of construct-preserving edits (controls) that leave the verdict unchanged; "
    "sensitivity **R** = share of construct-changing edits that move it. Items weigh equally, probes equally "
    "within an item; intervals resample base items. A grade becomes a verdict at threshold τ (grade > τ)."
)
source = st.radio("Graded data", ["public graded outputs (JudgeBench rubric, LLMBar Rating)",
                                  "built-in probe set, graded live", "upload a graded probe table"],
                  key="fr_source", horizontal=True)
gradings, notices = None, []
try:
    if source.startswith("public"):
        grades, sw, gradings, notices = vc.real_data()
        key = "public"
        st.info(
            "**Mapping.** JudgeBench rubric judges grade each response on [0, 1] in both presentation orders: "
            "the same response's grade across the order swap is a control (T_I); the correct vs the incorrect "
            "response in one order is a construct change (T_C, axis *correctness*), so R here is correctness "
            "sensitivity, not scope/strength. LLMBar Rating gives one 0–10 rating per output and no repeat: "
            "only R(τ) is measurable, S is not, so those judges get no point on the plane."
        )
    elif source.startswith("built-in"):
        models = st.text_input("Judges (litellm model strings, comma-separated; localgrade/overlap runs offline)",
                               "localgrade/overlap", key="fr_models")
        judges = tuple(m.strip() for m in models.split(",") if m.strip())
        if judges != ("localgrade/overlap",) and not st.button("Grade (calls are cached; hosted models cost money)",
                                                                key="fr_grade"):
            st.stop()
        grades, sw, notices = vc.builtin_graded(judges)
        key = "builtin:" + ",".join(judges)
        st.info("Each judge grades 1–5 how fully the evidence licenses the claim, for every base claim and every "
                "verified probe; controls (T_I) give S, scope and strength edits (T_C) give R per axis.")
    else:
        up = st.file_uploader("Graded probe table (judge, base_item_id, probe_id, class, axis, slot, grade_base, "
                              "grade_probe, scale_min, scale_max)", type=["csv", "tsv", "jsonl", "json", "parquet"],
                              key="fr_upload")
        if up is None:
            st.stop()
        grades, sw = vc.uploaded(up.name, up.getvalue())
        key = f"upload:{up.name}:{len(up.getvalue())}"
except CAPInputError as err:
    st.error(str(err))
    st.stop()
for n in notices:
    st.caption(f"Note: {n}.")

with st.expander("Settings: matched invariance and quadrant cut-offs"):
    min_s = st.slider("Invariance floor for the matched operating point", 0.5, 1.0, 0.90, 0.01, key="fr_min_s")
    s_high = st.slider("Quadrant cut-off: high S", 0.5, 1.0, 0.90, 0.01, key="fr_s_high")
    r_high = st.slider("Quadrant cut-off: high R", 0.0, 1.0, 0.50, 0.01, key="fr_r_high")
ops = vc.operating(key, min_s, s_high, r_high, grades, sw)

st.subheader("Threshold per judge")
taus = {}
cols = st.columns(2)
for i, judge in enumerate(sorted(sw["judge"].unique().to_list())):
    options = [round(float(t), 6) for t in sw.filter(pl.col("judge") == judge)["tau"].to_list()]
    m = ops.filter(pl.col("judge") == judge)
    default = round(float(m["tau"][0]), 6) if m.height else options[len(options) // 2]
    with cols[i % 2]:
        taus[judge] = st.select_slider(f"τ — {judge}", options=options, value=default, key=f"fr_tau_{judge}",
                                       format_func=lambda t: f"{t:g}")
sel = vc.selected_points(sw, taus)
for r in sel.iter_rows(named=True):
    no_s = r["S"] != r["S"]
    s_txt = "not measurable" if no_s else f"{r['S']:.3f}"
    q = "not measured (no S)" if no_s else quadrant(r["S"], r["R"], s_high, r_high)
    st.markdown(f"**{r['judge']}** at τ = {r['tau']:g}: S = {s_txt}, R = {r['R']:.3f}; quadrant: {q}")

pub_judges, _ = vc.published()
c1, c2 = st.columns(2)
show_pub = c1.toggle("Show published operating points (Validity Table 5)", value=True, key="fr_pub")
zoom = c2.toggle("Zoom the S axis to the judges", value=True, key="fr_zoom")
st.plotly_chart(frontier_figure(sw, ops, sel, pub_judges if show_pub else None, s_high=s_high, r_high=r_high,
                                zoom=zoom), key="fr_plane")
st.caption("Lines join hull vertices (attained thresholds); straight segments are interpolation. Ringed: the "
           f"matched-invariance point (highest R with S ≥ {min_s:.2f}). Diamond: the slider's τ. Dashed: S + R = 1.")

st.subheader("Sensitivity per axis beside the control flip rate (slider τ)")
st.plotly_chart(axis_bars_figure(sel), key="fr_bars")

st.subheader("Operating points: computed and published")
computed = ops.select("judge", "tau", "S", "S_ci_low", "S_ci_high", "R", "R_ci_low", "R_ci_high", "R_scope",
                      "R_strength", "quadrant", "source")
table = pl.concat([computed, pub_judges.select("judge", "tau", "S", "R", "R_scope", "R_strength", "quadrant",
                                                "source")], how="diagonal_relaxed")
st.dataframe(table, hide_index=True, key="fr_ops")
st.download_button("Download operating points (CSV)", to_csv_bytes(table), "operating_points.csv", key="fr_dl_ops")
st.download_button("Download the full threshold sweep (CSV)", to_csv_bytes(sw), "sweep.csv", key="fr_dl_sweep")
fs.slot_section(key, grades, ops)
fs.annotation_section(key, grades, min_s)

st.subheader("Instrument quality")
iq = vc.instrument(key, gradings) if gradings is not None else vc.instrument_of_grades(key, grades)
st.dataframe(iq, hide_index=True, key="fr_iq")
st.download_button("Download instrument quality (CSV)", to_csv_bytes(iq), "instrument_quality.csv", key="fr_dl_iq")
st.caption("usable = grade values used on at least 1% of graded texts; regrade = share of texts given the same "
           "grade twice (public data: both presentation orders of a pointwise grader; empty without repeats).")
st.dataframe(pub_judges.select("judge", "points", "regrade", "source"), hide_index=True, key="fr_iq_pub")

st.subheader("Built-in probe set")
probes, summary, n_domains = vc.probe_set()
st.caption(f"{probes['base_item_id'].n_unique()} base claims written for this project in {n_domains} domains; "
           f"{int((probes['status'] == 'kept').sum())} of {probes.height} rule-generated probes pass the verifier.")
st.dataframe(summary, hide_index=True, key="fr_probe_summary")
