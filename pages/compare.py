"""Compare judges: paired differences, family distances, QC sensitivity and the hard-empirical subset."""

import polars as pl
import streamlit as st

from cap_core.analyses.family_distance import family_l1_summary, family_of, pairwise_l1
from cap_core.analyses.hard_subsets import HARD_WARNING
from cap_core.analyses.qc_sensitivity import available_flags
from cap_core.errors import CAPInputError
from cap_core.profile.selection import list_views, view_cells
from components.difference_bars import paired_figure
from ui.cache import analyses as ac
from ui.cache import loaders as cache
from ui.display import round_points
from ui.sidebar import get_selection

sel = get_selection()
ss = st.session_state
st.title("Compare judges")
bench = sel.benchmark
if not bench:
    st.info("No benchmark available: load a dataset or include the published CAP judges.")
    st.stop()
judges = sorted(sel.ds.judgments.filter(pl.col("benchmark") == bench)["judge"].unique().to_list()) \
    if sel.ds is not None and bench in sel.ds.benchmarks else []
a = b = None

st.subheader(f"Paired differences on {bench}")
if not judges:
    st.info(f"{bench} has published values only: a paired comparison needs per-item verdicts of both judges.")
elif len(judges) < 2:
    st.info(f"Only one judge ({judges[0]}) has verdicts on {bench}: pick a benchmark with two or more judges.")
else:
    if ss.get("cmp_a") not in judges:
        ss["cmp_a"] = judges[0]
    c1, c2 = st.columns(2)
    a = c1.selectbox("Judge A", judges, key="cmp_a")
    others = [j for j in judges if j != a]
    if ss.get("cmp_b") not in others:
        ss["cmp_b"] = others[0]
    b = c2.selectbox("Judge B", others, key="cmp_b")
    try:
        rows = ac.paired(sel.fingerprint, sel.ds, a, b, bench)
    except CAPInputError as err:
        st.warning(str(err))
    else:
        st.caption("A − B on the items both judges scored, paired bootstrap over base items (1000 resamples). "
                   "separated: 95% interval excludes 0; parity: 90% interval within ±5 points; else inconclusive.")
        st.plotly_chart(paired_figure(rows, a, b), key="cmp_paired_fig")
        st.dataframe(round_points(rows.drop("judge_a", "judge_b", "benchmark")), hide_index=True, key="cmp_paired_table")

st.subheader("Family distances (L1)")
try:
    prof = ac.analysis_profile(sel)
except CAPInputError as err:
    st.info(str(err))
    prof = None
views = [v for v in list_views(prof) if v.split(":")[0] == bench] if prof is not None else []
if views:
    if ss.get("cmp_view") not in views:
        ss["cmp_view"] = views[0]
    view = st.selectbox("View", views, key="cmp_view")
    in_view = sorted(view_cells(prof, view)["judge"].unique().to_list())
    st.caption("L1 = Σ|CAP_c(j1) − CAP_c(j2)| over the conditions both judges have (points; CAP App. J). "
               "Edit the family column to regroup judges; 'unknown' enters no family average.")
    fam = st.data_editor(pl.DataFrame({"judge": in_view, "family": [family_of(j) for j in in_view]}),
                         disabled=["judge"], hide_index=True, key=f"cmp_families_{view}")
    overrides = {r["judge"]: (r["family"] or "unknown") for r in pl.DataFrame(fam).iter_rows(named=True)}
    try:
        pairs = pairwise_l1(prof, view, overrides=overrides)
    except CAPInputError as err:
        st.info(str(err))
    else:
        st.dataframe(round_points(family_l1_summary(pairs)), hide_index=True, key="cmp_family_summary")
        mine = pairs.filter(pl.col("judge_a").is_in([a, b]) & pl.col("judge_b").is_in([a, b]))
        if mine.height:
            r = mine.row(0, named=True)
            st.markdown(f"**{a} vs {b}**: L1 {r['l1']:.1f} points over {r['n_conditions']} condition(s)"
                        + (f"; missing {r['missing_conditions']}" if r["missing_conditions"] else "") + ".")
        with st.expander("Every pair"):
            st.dataframe(round_points(pairs), hide_index=True, key="cmp_family_pairs")

if a is None:
    st.stop()
st.subheader("QC sensitivity")
flags = available_flags(sel.ds.select(benchmarks=[bench]))
if not flags:
    st.info(f"No item of {bench} carries a flag (items.flags, e.g. low_quality): nothing to leave out.")
else:
    flag = st.selectbox("Exclude items flagged", flags, key="cmp_flag")
    try:
        qc = ac.qc(sel.fingerprint, sel.ds, bench, flag, (a, b))
    except CAPInputError as err:
        st.warning(str(err))
    else:
        st.caption("Change in points when the flagged items and all their variants are excluded; positive = "
                   "the value rises (CAP App. A.6, Table 10).")
        st.dataframe(round_points(qc.filter(pl.col("primary")).drop("primary")), hide_index=True, key="cmp_qc_table")

st.subheader("Hard-empirical subset")
st.warning(HARD_WARNING)
try:
    hard, n_hard, n_cand = ac.hard(sel.fingerprint, sel.ds, bench, (a, b))
except CAPInputError as err:
    st.info(str(err))
else:
    full = view_cells(cache.profile(sel.fingerprint, sel.ds, bench)[0], f"{bench}:all", include_overall=True)
    hv = hard.filter(pl.col("primary") & pl.col("judge").is_in([a, b]) & pl.col("value").is_not_null())
    table = hv.select("judge", "condition", "metric", pl.col("value").alias("hard"), "n_items").join(
        full.select("judge", "condition", pl.col("value").alias("all items")), on=["judge", "condition"], how="left")
    st.caption(f"{n_hard} of {n_cand} items: those {a} or {b} got wrong in the A/B order, with their variants.")
    st.dataframe(round_points(table.sort("condition", "judge")), hide_index=True, key="cmp_hard_table")
