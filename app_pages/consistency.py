"""Consistency: rank stability across benchmarks and conditions; strict vs pure consistency; C8 two ways."""

import polars as pl
import streamlit as st

from cap_core.errors import CAPInputError, counted
from cap_core.glossary import help_text
from cap_core.schema import CONDITION_IDS
from components.spearman_matrix import ranked_blocks, spearman_matrix
from ui.cache import consistency as cc
from ui.display import mostly_na, show_table
from ui.cache.loaders import analysis_key
from ui.sidebar import get_selection
from ui.state import kept
from ui.text import notice

sel = get_selection()
st.title("Consistency")
st.info(
    "Uses the sidebar's data source (the loaded dataset, plus the published CAP tables when included), but "
    "not its benchmark or judge choice: every benchmark and judge of those profiles enters the rankings."
)
try:
    prof = cc.analysis_profile(sel)
except CAPInputError as err:
    notice("info", err)
    st.stop()
views = cc.profile_views(analysis_key(sel), sel.include_published, prof)
if not views:
    st.info("No benchmark to rank judges on: load a dataset or include the published CAP judges.")
    st.stop()
st.caption(
    "Spearman ρ of judge orderings over the judges present on both sides; * marks p < 0.05, two-sided: the "
    "exact permutation p over every pairing when at most 9 judges are shared (the t-approximation is far off "
    "for so few: with 4 judges ρ = 1 has exact p = 2/24 ≈ 0.08), else the t-approximation "
    "(scipy.stats.spearmanr); the Pairs table names the method (p_method). Fewer than 3 shared judges, or all "
    "judges tied, gives n/a."
)

st.subheader("Across benchmarks (one condition)")
conditions = list(CONDITION_IDS) + ["overall"]
cond = st.selectbox("Condition", conditions, key=kept("cs_condition", conditions[6], options=conditions),
                    help=help_text("rho"))
try:
    pairs = cc.spearman_benchmarks(analysis_key(sel), sel.include_published, cond, prof)
except CAPInputError as err:
    notice("warning", f"No cross-benchmark ranking for {cond}: {err}")
else:
    # one grid per group of benchmarks that share judges: the loaded data and the published tables judge
    # different judges, and one grid over both would be mostly n/a
    blocks, alone = ranked_blocks(pairs, "view_a", "view_b")
    if alone:
        notice("caption", f"Not in a grid ({len(alone)}): " + ", ".join(alone) + " — each shares fewer than 3 judges "
               "with every other benchmark on " + cond + ", so no ρ exists.")
    if not blocks:
        why = mostly_na(pairs, "benchmark pairs", share=0.0) or "no benchmark pair."
        notice("info", f"No matrix for {cond}: {why}")
    for i, block in enumerate(blocks):
        sub = pairs.filter(pl.col("view_a").is_in(block) & pl.col("view_b").is_in(block))
        why = mostly_na(sub, "benchmark pairs")
        if why:
            notice("info", f"No matrix for {cond} on {', '.join(block)}: {why}")
            continue
        st.plotly_chart(spearman_matrix(sub, "view_a", "view_b", f"{cond}: ρ between benchmarks"
                                        + (f" (group {i + 1})" if len(blocks) > 1 else "")),
                        key="cs_bench_fig" if i == 0 else f"cs_bench_fig_{i + 1}")
    ok = pairs.filter(pl.col("status") == "ok")
    if ok.height:
        st.caption(f"Mean ρ over {ok.height} of {counted(pairs.height, 'pair')}: {ok['rho'].mean():.2f}.")
    missing = pairs.filter(pl.col("status") != "ok")
    if missing.height:  # every pair without a ρ, by name, with the reason
        st.caption(f"No ρ for {counted(missing.height, 'pair')}: " + "; ".join(
            f"{r['view_a']} – {r['view_b']} ({r['reason'] or r['status']})" for r in missing.iter_rows(named=True))
            + ".")
    with st.expander("Pairs"):
        show_table(st, pairs, key="cs_bench_table")

st.subheader("Across conditions (one benchmark)")
view = st.selectbox("Benchmark", views, key=kept("cs_view", cc.first_view_with_matrix(sel, views, prof),
                                                 options=views))
try:
    cpairs, s = cc.spearman_conditions(analysis_key(sel), sel.include_published, view, prof)
except CAPInputError as err:
    notice("warning", f"No cross-condition ranking on {view}: {err}")
else:
    why = mostly_na(cpairs, "condition pairs")
    if why:
        notice("info", f"No matrix for {view}: {why} Pick a benchmark where three or more judges share conditions.")
        with st.expander("Pairs"):
            show_table(st, cpairs, key="cs_cond_table")
    else:
        st.plotly_chart(spearman_matrix(cpairs, "condition_a", "condition_b", f"{view}: ρ between conditions"),
                        key="cs_cond_fig")
    mean = "n/a" if s["mean_abs_rho"] is None else f"{s['mean_abs_rho']:.2f}"
    st.caption(f"Mean |ρ| {mean} over {counted(s['n_pairs'], 'pair')}; {s['n_negative']} negative; {s['n_na']} n/a.")

st.subheader("Strict vs pure consistency (C5–C7)", help=help_text("strict") + " · " + help_text("consistency"))
st.caption(
    "Strict: correct under both presentations. Pure consistency: the same verdict under both, correctness "
    "ignored. Stable-but-wrong = consistency − strict (points; CAP App. H)."
)
svc, c8 = cc.strict_and_c8(analysis_key(sel), sel.include_published, prof)
if svc.height:
    show_table(st, svc, key="cs_strict_table")
else:
    st.info("No profile here stores both strict and pure consistency for C5–C7.")

st.subheader("C8: conditional vs unconditional", help=help_text("supported") + " · " + help_text("supported_correct"))
st.caption(
    "Conditional C8 = supported rationales among correct verdicts; unconditional = overall accuracy × C8 "
    "(CAP §4.1), the share of all items judged correctly with a supporting rationale."
)
if c8.height:
    show_table(st, c8, key="cs_c8_table")
else:
    st.info("No C8 (rationale quality) values in the loaded profiles.")
