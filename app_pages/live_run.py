"""Live run: judge items with litellm models (offline local judges by default), then profile them."""

import streamlit as st

from cap_core.errors import CAPInputError
from cap_core.judging.local_providers import LOCAL_EVALUATORS, LOCAL_JUDGES
from ui.cache import live_run as lrc
from ui.state import kept, kept_upload

st.title("Live run")
st.caption("Judge pairwise items with any litellm model (API keys are read from the environment, never stored) "
           "or the offline local judges. Every finished call is cached, so re-running costs nothing.")

src = st.radio("Items", lrc.ITEM_SOURCES, horizontal=True, key=kept("lr_src"))
try:
    if src == lrc.ITEM_SOURCES[0]:
        items = lrc.testbed_items()
    elif src == lrc.ITEM_SOURCES[1]:
        path = st.text_input("Folder or table with question / response_a / response_b", key=kept("lr_path"))
        items = lrc.items_at(path) if path else None
    else:
        up = kept_upload(st, "Items with texts", key="lr_upload", type=["csv", "tsv", "jsonl", "json", "parquet"])
        items = lrc.items_from(*up) if up else None
except CAPInputError as err:
    st.error(str(err))
    st.stop()
if items is None:
    st.info("Give the items to judge.")
    st.stop()

c1, c2, c3 = st.columns(3)
n_base = items["base_item_id"].n_unique()
limit = c1.number_input("Base items (first N)", 1, n_base,
                        key=kept("lr_limit", min(12, n_base), options=range(1, n_base + 1)))
variants_all = sorted(items["variant"].unique().to_list())
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

run_items = lrc.select_items(items, limit, variants)
try:
    spec = lrc.build_spec(judges, extra, orders, evaluator, evaluator_other, api_base, budget_calls, budget_usd,
                          concurrency)
    est_line = lrc.estimate(run_items, spec)
except CAPInputError as err:
    st.error(str(err))
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
        lrc.run(run_items, spec, show)
    except CAPInputError as err:
        st.error(str(err))
        st.stop()
    est_box.markdown(lrc.estimate(run_items, spec))
last = lrc.last_run()
if last:
    run_dir, s = last
    st.success(f"Run saved to {run_dir}: {s.get('requests', 0)} requests, {s.get('cache_hits', 0)} cache hits, "
               f"{s.get('failures', 0)} failures, ${s.get('spend_usd', 0.0):.4f}.")
    st.button("Show these results on every page", key="lr_use", on_click=lrc.use_results)
    fails = lrc.failures(run_dir)
    if fails is not None:
        st.subheader("Calls per judge and condition")
        st.dataframe(fails, hide_index=True, key="lr_failures")
