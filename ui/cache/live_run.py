"""Streamlit glue of the Live run page: where runs go, items, the run spec, the estimate, the
run itself (with its cancel event), the run's files and the run dataset.

The page only reads widgets and draws; every thread, disk read and import of the judging
core happens here, with the same core calls as before (:func:`cap_core.judging.run.run_judging`,
:func:`cap_core.judging.estimate.estimate_run`, :func:`cap_core.judging.items_io.load_run_items`).

Session keys (documented for the sidebar and other pages):

``live_run_dir``  str path of the latest finished live run (a dataset directory). The
                  sidebar's data source "live run results" loads it.
``lr_last_stats`` dict of that run's counters (requests, cache_hits, failures, spend_usd).
``lr_last_bench`` str benchmark of that run.

A *public benchmark* run (:func:`evaluate_run`) judges a benchmark read from the user's
local copy beside its published judges (:func:`cap_core.judging.candidates.evaluate_candidates`)
and writes the joined dataset; the page then shows the tables of :data:`RUN_TABLES`.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Callable

import polars as pl
import streamlit as st

from cap_core import config
from cap_core.dataset import Dataset, load_dataset
from cap_core.errors import CAPInputError
from ui.cache.keys import path_stamp

if TYPE_CHECKING:
    from cap_core.judging.run import RunSpec

#: Runs live here (override with CAP_RUNS_DIR); the judging cache is config.cache_dir().
RUNS_DIR = config.runs_dir()
LIVE_RUN_KEY = "live_run_dir"
STATS_KEY = "lr_last_stats"
BENCH_KEY = "lr_last_bench"
#: Where the page's items come from.
ITEM_SOURCES = ("mini testbed", "benchmark folder or table (path)", "upload",
                "public benchmark (your local copy)")
#: Tables an evaluate run writes beside its dataset, with their headings on the page.
RUN_TABLES = {"usage.csv": "Cost, latency and tokens per judge", "reliability.csv": "Test–retest: flip rate and α",
              "self_preference.csv": "Self-preference", "augmentation.csv": "Augmentation: label preservation per item"}


def cache_dir() -> Path:
    """The persistent judging cache shared by every live run (the project's one cache)."""
    return config.cache_dir()


@st.cache_data(max_entries=2, show_spinner="Building the mini testbed…")
def testbed_items() -> pl.DataFrame:
    """The built-in mini testbed (144 items with texts)."""
    from cap_core.judging.testbed import load_testbed

    return load_testbed()


@st.cache_data(max_entries=4, show_spinner="Reading the items…")
def items_from(source: str, data: bytes | None = None, stamp: tuple = ()) -> pl.DataFrame:
    """Items with texts from an upload (``source`` its name, ``data`` its bytes: streamlit hashes
    them) or from a folder or table on disk (``stamp`` = :func:`ui.cache.keys.path_stamp`, so an
    edit on disk is read again)."""
    from cap_core.judging.items_io import load_run_items

    return load_run_items(source, data)


def items_at(path: str) -> pl.DataFrame:
    """Items with texts from a folder or table path, keyed by its files' stamps. Raises CAPInputError."""
    return items_from(path, None, path_stamp(path))


def select_items(items: pl.DataFrame, limit: int, variants: list[str]) -> pl.DataFrame:
    """The first ``limit`` base items (in file order), only the chosen variants."""
    keep = items["base_item_id"].unique(maintain_order=True).head(int(limit)).to_list()
    return items.filter(pl.col("base_item_id").is_in(keep) & pl.col("variant").is_in(variants))


def build_spec(judges: list[str], extra: str, orders: list[str], evaluator: str | None, evaluator_other: str,
               api_base: str | None, budget_calls: int, budget_usd: float, concurrency: int, *, repeats: int = 1,
               temperature: float | None = None, allow_tie: bool = False) -> RunSpec:
    """The run's :class:`cap_core.judging.run.RunSpec` from the widgets, validated.

    ``extra`` is a comma-separated list of more litellm model strings; ``evaluator_other``
    (if not blank) replaces ``evaluator`` (``"(none)"`` = no rationale evaluation).
    ``repeats`` > 1 judges every call again (test-retest) at ``temperature`` (default 0,
    or 0.7 with repeats). Raises CAPInputError (e.g. the evaluator among the judges).
    """
    from cap_core.judging.run import RunSpec

    temp = temperature if temperature is not None else (0.7 if repeats > 1 else 0.0)

    spec = RunSpec(judges=judges + [m.strip() for m in extra.split(",") if m.strip()],
                   orders=tuple(o for o in ("AB", "BA") if o in orders),
                   evaluator=evaluator_other.strip() or (None if evaluator in (None, "(none)") else evaluator),
                   api_base=api_base or None, budget_calls=int(budget_calls), budget_usd=float(budget_usd),
                   concurrency=int(concurrency), repeats=int(repeats), temperature=temp, allow_tie=bool(allow_tie))
    spec.validate()
    return spec


def estimate(run_items: pl.DataFrame, spec: RunSpec) -> str:
    """One markdown line: calls, how many are cached, how many to send and the cost. Reads the
    judging cache on every call (it changes as runs finish). Raises CAPInputError."""
    from cap_core.judging.estimate import estimate_run

    if run_items.height == 0:
        raise CAPInputError("no items selected", expected="at least one variant", fix="choose variants")
    est = estimate_run(run_items, spec, cache_dir())
    from ui.text import plain

    usd = ("unknown price for " + plain(", ".join(est["unknown_price"])) if est["usd"] is None
           else f"≈ ${est['usd']:.4f}")
    return (f"**Estimate:** {est['calls']} judging calls on {run_items.height} items, {est['cached']} already "
            f"cached, {est['to_send']} to send (+ up to {est['evaluator_calls']} evaluator calls); cost {usd}.")


def run(run_items: pl.DataFrame, spec: RunSpec, on_progress: Callable[[dict], None]) -> None:
    """Judge ``run_items`` into a new run folder under :data:`RUNS_DIR` and record it in the
    session (:data:`LIVE_RUN_KEY`, :data:`STATS_KEY`, :data:`BENCH_KEY`).

    The judging threads stop when the run ends in any way: a Cancel click (streamlit then
    stops the script inside ``on_progress``) sets the cancel event in ``finally``; finished
    calls stay in the cache. Raises CAPInputError.
    """
    from cap_core.judging.run import run_judging

    out = RUNS_DIR / time.strftime("run-%Y%m%d-%H%M%S")
    cancel = threading.Event()
    try:
        res = run_judging(run_items, spec, cache_dir=cache_dir(), out_dir=out, on_progress=on_progress,
                          cancel=cancel)
    finally:
        cancel.set()
    st.session_state[LIVE_RUN_KEY] = str(out)
    st.session_state[STATS_KEY] = dict(res.stats)
    st.session_state[BENCH_KEY] = run_items["benchmark"][0]


def last_run() -> tuple[str, dict] | None:
    """``(run folder, counters)`` of this session's latest run, or None."""
    path = st.session_state.get(LIVE_RUN_KEY)
    return (path, st.session_state.get(STATS_KEY, {})) if path else None


def use_results() -> None:
    """Button callback: make the latest run the sidebar's data source (and its benchmark)."""
    st.session_state.update(sb_source="live run results", sb_benchmark=st.session_state.get(BENCH_KEY))


@st.cache_data(max_entries=4)
def _read_failures(path: str, stamp: tuple) -> pl.DataFrame:
    return pl.read_csv(path)


def failures(run_dir: str) -> pl.DataFrame | None:
    """The run's calls per judge and condition (``failures.csv``), or None when it has none."""
    p = Path(run_dir) / "failures.csv"
    return _read_failures(str(p), path_stamp(p)) if p.is_file() else None


@st.cache_resource(max_entries=4, show_spinner="Loading the live run results…")
def _run_dataset(path: str, stamp: tuple) -> tuple[Dataset, str]:
    ds = load_dataset(path)
    return ds, ds.fingerprint()


def live_run_dataset() -> tuple[Dataset | None, str]:
    """The dataset of the latest live run in this session, or ``(None, "")``."""
    path = st.session_state.get(LIVE_RUN_KEY)
    if not path or not (Path(path) / "judgments.parquet").exists():
        return None, ""
    return _run_dataset(path, path_stamp(path))


@st.cache_data(max_entries=4, show_spinner="Reading the benchmark and its texts…")
def _benchmark(name: str, path: str, stamp: tuple) -> tuple[pl.DataFrame, list[str]]:
    from cap_core.judging.benchmarks import load_benchmark

    b = load_benchmark(name, path)
    return b.items, (b.reference.judges if b.reference is not None else [])


def benchmark_items(name: str, path: str) -> tuple[pl.DataFrame, list[str]]:
    """(items with texts, published judges) of public benchmark ``name`` in the folder ``path``,
    keyed by the folder's file stamps. Raises CAPInputError."""
    return _benchmark(name, path, path_stamp(path))


def evaluate_run(name: str, path: str, spec: RunSpec, *, only: list[str] | None, subsets: list[str] | None,
                 limit: int, augment: bool, on_progress: Callable[[dict], None]) -> None:
    """Judge a public benchmark with the candidates of ``spec`` beside its published judges into a
    new folder under :data:`RUNS_DIR`, and record it in the session like :func:`run`."""
    from cap_core.judging.candidates import evaluate_candidates

    out = RUNS_DIR / time.strftime("eval-%Y%m%d-%H%M%S")
    cancel = threading.Event()
    try:
        res = evaluate_candidates(name, path, spec, out, cache_dir=cache_dir(), only=only or None,
                                  subsets=subsets or None, limit=int(limit), augment=augment,
                                  on_progress=on_progress, cancel=cancel)
    finally:
        cancel.set()
    st.session_state[LIVE_RUN_KEY] = str(out)
    st.session_state[STATS_KEY] = dict(res.run.stats)
    st.session_state[BENCH_KEY] = res.dataset.benchmarks[0]


@st.cache_data(max_entries=8)
def _read_table(path: str, stamp: tuple) -> pl.DataFrame:
    return pl.read_csv(path)


def run_tables(run_dir: str) -> dict[str, pl.DataFrame]:
    """Heading -> table for every table of :data:`RUN_TABLES` the run wrote. A plain judging run
    gets its cost, latency and tokens per judge from its judgments
    (:func:`cap_core.judging.usage.usage_summary`)."""
    out = {}
    for name, heading in RUN_TABLES.items():
        p = Path(run_dir) / name
        if p.is_file():
            out[heading] = _read_table(str(p), path_stamp(p))
    j = Path(run_dir) / "judgments.parquet"
    if RUN_TABLES["usage.csv"] not in out and j.is_file():
        from cap_core.judging.usage import usage_summary

        judg = _run_dataset(str(run_dir), path_stamp(str(run_dir)))[0].judgments
        out = {RUN_TABLES["usage.csv"]: usage_summary(judg, judg["judge"].unique().to_list()), **out}
    return out
