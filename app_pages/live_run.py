"""Live run: judge items with litellm models (offline local judges by default), then profile them.

With a public benchmark from the user's local copy, the candidates are judged beside the
benchmark's published judges on the same items (one dataset for every page)."""

from pathlib import Path

import polars as pl
import streamlit as st

from cap_core.errors import CAPInputError
from cap_core.judging.local_providers import LOCAL_EVALUATORS, LOCAL_JUDGES
from ui.cache import live_run as lrc
from ui.state import kept, kept_upload
from ui.text import notice

st.title("Live run")
st.caption("Judge pairwise items with any litellm model (API keys are read from the environment, never stored) "
           "or the offline local judges. Every finished call is cached, so re-running costs nothing.")

src = st.radio("Items", lrc.ITEM_SOURCES, horizontal=True, key=kept("lr_src", options=lrc.ITEM_SOURCES))
bench_mode = src == lrc.ITEM_SOURCES[3]
references: list[str] = []
try:
    if bench_mode:
        from cap_core.judging.benchmarks import BENCHMARKS

        names = list(BENCHMARKS)
        b1, b2 = st.columns([1, 3])
        bench_name = b1.selectbox("Benchmark", names, key=kept("lr_bench", names[0], options=names))
        bench_path = b2.text_input(f"Folder: {BENCHMARKS[bench_name][1]}", key=kept("lr_bench_path"))
        items, references = lrc.benchmark_items(bench_name, bench_path) if bench_path else (None, [])
    elif src == lrc.ITEM_SOURCES[0]:
        items = lrc.testbed_items()
    elif src == lrc.ITEM_SOURCES[1]:
        path = st.text_input("Folder or table with question / response_a / response_b", key=kept("lr_path"))
        items = lrc.items_at(path) if path else None
    else:
        up = kept_upload(st, "Items with texts", key="lr_upload", type=["csv", "tsv", "jsonl", "json", "parquet"])
        items = lrc.items_from(*up) if up else None
except CAPInputError as err:
    notice("error", err)
    st.stop()
if items is None:
    st.info("Give the items to judge.")
    st.stop()

only = subsets = None
augment = False
if bench_mode:
    if references:
        notice("caption", "Published judges on these items: " + ", ".join(references) + ". Your candidates join them.")
    parts = sorted(items["benchmark"].unique().to_list())
    subs_all = sorted(items["subset"].unique().to_list())
    p1, p2 = st.columns(2)
    only = p1.multiselect("Benchmarks", parts, key=kept("lr_only", parts[:1], options=parts))
    subsets = p2.multiselect("Subsets (none = all)", subs_all, key=kept("lr_subsets", [], options=subs_all))
    if only:
        items = items.filter(pl.col("benchmark").is_in(only))
    if subsets:
        items = items.filter(pl.col("subset").is_in(subsets))
    if items.height == 0:
        st.info("Choose at least one benchmark.")
        st.stop()
c1, c2, c3 = st.columns(3)
n_base = int(items.group_by("benchmark").agg(pl.col("base_item_id").n_unique())["base_item_id"].max())
limit = c1.number_input("Base items (first N" + (" per benchmark)" if bench_mode else ")"), 1, n_base,
                        key=kept("lr_limit", min(12, n_base), options=range(1, n_base + 1)))
variants_all = sorted(items["variant"].unique().to_list())
if bench_mode:
    augment = c2.checkbox("Add style and length variants", key=kept("lr_augment", False),
                          help="Polished and length-padded copies of the items, each checked for label "
                               "preservation, judged as the benchmark <name>_augmented (C5/C6).")
    variants = variants_all
else:
    variants = c2.multiselect("Variants", variants_all, key=kept("lr_variants", variants_all, options=variants_all))
orders = c3.multiselect("Orders", ["AB", "BA"], key=kept("lr_orders", ["AB", "BA"], options=["AB", "BA"]))
judges = st.multiselect("Judges", list(LOCAL_JUDGES), key=kept("lr_judges", list(LOCAL_JUDGES),
                                                                options=list(LOCAL_JUDGES)))
extra = st.text_input("More judges (litellm model strings, comma-separated)", key=kept("lr_extra"),
                      placeholder="openai/gpt-4o-mini, anthropic/claude-haiku-4-5")
api_base = st.text_input("API base (OpenAI-compatible server, optional)", key=kept("lr_api_base"))
evaluators = ["(none)", *LOCAL_EVALUATORS]
evaluator = st.selectbox("Rationale evaluator (C8)", evaluators,
                         key=kept("lr_eval", evaluators[1], options=evaluators))
evaluator_other = st.text_input("…or another evaluator model", key=kept("lr_eval_other"))
b1, b2, b3 = st.columns(3)
budget_calls = b1.number_input("Budget: requests", 0, 1_000_000, key=kept("lr_budget_calls", 5000))
budget_usd = b2.number_input("Budget: dollars", 0.0, 10_000.0, step=0.5, key=kept("lr_budget_usd", 1.0))
concurrency = b3.number_input("Concurrency", 1, 32, key=kept("lr_conc", 4))
r1, r2 = st.columns(2)
repeats = r1.number_input("Repeats (test–retest; above 1 samples at temperature 0.7)", 1, 20,
                          key=kept("lr_repeats", 1))
allow_tie = r2.checkbox("Choice judges may answer tie", key=kept("lr_allow_tie", False),
                        help="For choice:<model> and smollm/choice judges, which read the answer-token probabilities.")

try:
    if bench_mode:
        from cap_core.judging.candidates import select_items as select_bench_items

        run_items = select_bench_items(items, limit=int(limit))
    else:
        run_items = lrc.select_items(items, limit, variants)
    spec = lrc.build_spec(judges, extra, orders, evaluator, evaluator_other, api_base, budget_calls, budget_usd,
                          concurrency, repeats=int(repeats), allow_tie=allow_tie)
    est_line = lrc.estimate(run_items, spec) + (" Augmented variants add their calls." if augment else "")
except CAPInputError as err:
    notice("error", err)
    st.stop()
est_box = st.empty()  # rewritten after a run: the calls just made are cached now
est_box.markdown(est_line)

go, stop = st.columns(2)
start = go.button("Start run", type="primary", key="lr_start")
stop.button("Cancel", key="lr_cancel", help="Stops the run; finished calls stay in the cache.")
if start:
    bar, line = st.progress(0.0, text="starting…"), st.empty()

    def show(s: dict) -> None:
        bar.progress(min(1.0, s["done"] / max(1, s["total"])), text=f"{s['phase']}: {s['done']}/{s['total']}")
        line.caption(f"requests {s['requests']} · cache hits {s['cache_hits']} · failures {s['failures']} · "
                     f"spend ${s['spend_usd']:.4f}")

    try:
        if bench_mode:
            lrc.evaluate_run(bench_name, bench_path, spec, only=only, subsets=subsets, limit=int(limit),
                             augment=augment, on_progress=show)
        else:
            lrc.run(run_items, spec, show)
    except CAPInputError as err:
        notice("error", err)
        st.stop()
    est_box.markdown(lrc.estimate(run_items, spec))
last = lrc.last_run()
if last:
    run_dir, s = last
    notice("success", f"Run saved to {run_dir}: {s.get('requests', 0)} requests, {s.get('cache_hits', 0)} cache "
           f"hits, {s.get('failures', 0)} failures, ${s.get('spend_usd', 0.0):.4f}.")
    st.button("Show these results on every page", key="lr_use", on_click=lrc.use_results)
    for heading, table in lrc.run_tables(run_dir).items():
        st.subheader(heading)
        st.dataframe(table, hide_index=True)
    fails = lrc.failures(run_dir)
    if fails is None:  # a public-benchmark run keeps its judging run in run/
        fails = lrc.failures(str(Path(run_dir) / "run"))
    if fails is not None:
        st.subheader("Calls per judge and condition")
        st.dataframe(fails, hide_index=True, key="lr_failures")
