"""Compare judges: paired differences, family distances, QC sensitivity and the hard-empirical subset."""

import polars as pl
import streamlit as st

from cap_core.analyses.hard_subsets import HARD_WARNING
from cap_core.errors import CAPInputError
from cap_core.glossary import help_text
from components.difference_bars import paired_figure
from ui.cache import compare as cc
from ui.display import round_points, show_table
from ui.cache.loaders import analysis_key
from ui.sidebar import get_selection
from ui.state import kept, remember, remembered
from ui.text import notice, plain

sel = get_selection()
st.title("Compare judges")
bench = sel.benchmark
if not bench:
    st.info("No benchmark available: load a dataset or include the published CAP judges.")
    st.stop()
judges = cc.judges(sel.fingerprint, sel.ds, bench)
a = b = None

st.subheader(f"Paired differences on {plain(bench)}", help=help_text("paired_diff"))
if not judges:
    notice("info", f"{bench} has published values only: a paired comparison needs per-item verdicts of both judges.")
elif len(judges) < 2:
    notice("info", f"Only one judge ({judges[0]}) has verdicts on {bench}: pick a benchmark with two or more judges.")
else:
    c1, c2 = st.columns(2)
    a = c1.selectbox("Judge A", judges, key=kept("cmp_a", judges[0], options=judges))
    others = [j for j in judges if j != a]
    b = c2.selectbox("Judge B", others, key=kept("cmp_b", others[0], options=others))
    try:
        rows = cc.paired(sel.fingerprint, sel.ds, a, b, bench, sel.failures)
    except CAPInputError as err:
        notice("warning", err)
    else:
        from cap_core.analyses.judge_comparison import adjust_separated

        corr = st.radio("Correction for the conditions compared at once", ["none", "holm"], horizontal=True,
                        key=kept("cmp_correction", "none", options=["none", "holm"]),
                        help="holm: Holm step-down on the bootstrap p-values of all rows below; a row stays "
                        "separated only when its 95% interval excludes 0 and its adjusted p < 0.05")
        rows = adjust_separated(rows, corr)
        st.caption("A − B on the items both judges scored, paired bootstrap over base items (1000 resamples). "
                   "separated: 95% interval excludes 0; parity: 90% interval within ±5 points; else inconclusive. "
                   f"Correction in force: {rows['correction'][0] if rows.height else corr}.")
        st.plotly_chart(paired_figure(rows, a, b), key="cmp_paired_fig")
        shown = round_points(rows.drop("judge_a", "judge_b", "benchmark"), keep=("p_value", "p_adjusted"))
        # p-values are not points: three significant digits, as text
        shown = shown.with_columns(pl.col("p_value", "p_adjusted").map_elements(
            lambda v: f"{v:.3g}", return_dtype=pl.String, skip_nulls=True))
        show_table(st, shown, key="cmp_paired_table")

st.subheader("Family distances (L1)", help=help_text("L1"))
try:
    prof = cc.analysis_profile(sel)
except CAPInputError as err:
    notice("info", err)
    prof = None
views = ([v for v in cc.profile_views(analysis_key(sel), sel.include_published, prof) if v.split(":")[0] == bench]
         if prof is not None else [])
if views:
    view = st.selectbox("View", views, key=kept("cmp_view", views[0], options=views))
    in_view = cc.view_judges(analysis_key(sel), sel.include_published, view, prof)
    st.caption("L1 = Σ|CAP_c(j1) − CAP_c(j2)| over the conditions both judges have (points; CAP App. J). "
               "Edit the family column to regroup judges; 'unknown' enters no family average.")
    fam_key = f"cmp_families_{view}"
    start = {**cc.default_families(in_view), **remembered(fam_key, {})}
    fam = st.data_editor(pl.DataFrame({"judge": in_view, "family": [start[j] for j in in_view]}),
                         disabled=["judge"], hide_index=True, key=fam_key)
    overrides = {r["judge"]: (r["family"] or "unknown") for r in pl.DataFrame(fam).iter_rows(named=True)}
    remember(fam_key, overrides)
    try:
        pairs, summary = cc.families(analysis_key(sel), sel.include_published, view, tuple(sorted(overrides.items())),
                                     prof)
    except CAPInputError as err:
        notice("info", err)
    else:
        show_table(st, round_points(summary), key="cmp_family_summary")
        sentence = cc.pair_sentence(pairs, a, b)
        if sentence:
            st.markdown(sentence)
        with st.expander("Every pair"):
            show_table(st, round_points(pairs), key="cmp_family_pairs")

if a is None:
    st.stop()
st.subheader("QC sensitivity", help=help_text("qc_change"))
flags = cc.flags(sel.fingerprint, sel.ds, bench)
if not flags:
    notice("info", f"No item of {bench} carries a flag (items.flags, e.g. low_quality): nothing to leave out.")
else:
    flag = st.selectbox("Exclude items flagged", flags, key=kept("cmp_flag", flags[0], options=flags))
    try:
        qc = cc.qc(sel.fingerprint, sel.ds, bench, flag, (a, b), sel.failures)
    except CAPInputError as err:
        notice("warning", err)
    else:
        st.caption("Change in points when the flagged items and all their variants are excluded; positive = "
                   "the value rises (CAP App. A.6, Table 10).")
        show_table(st, round_points(qc), key="cmp_qc_table")

st.subheader("Hard-empirical subset")
st.warning(HARD_WARNING)
try:
    table, n_hard, n_cand = cc.hard(sel.fingerprint, sel.ds, bench, (a, b), sel.failures)
except CAPInputError as err:
    notice("info", err)
else:
    notice("caption", f"{n_hard} of {n_cand} items: those {a} or {b} got wrong in the A/B order, with their variants.")
    show_table(st, round_points(table), key="cmp_hard_table")
