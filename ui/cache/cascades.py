"""Cached calls for the Cascades page.

Every cached function is keyed by all it reads: the dataset ``fingerprint`` (the Dataset
travels unhashed as ``_ds``), the benchmark, the cheap judge, the fallbacks, the confidence
method, τ, and ``prices`` (a stamp of ``cap_core/cascades/price_table.csv``, which users may
edit while the server runs). The page calls :func:`choices` for its widget options and
:func:`view` for everything it draws.
"""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl
import streamlit as st

from cap_core import config
from cap_core.cascades.cascade import CascadeData, cascade_point
from cap_core.cascades.cost import PRICE_TABLE
from cap_core.dataset import Dataset, load_dataset
from ui.cache.keys import path_stamp
from ui.cascade_text import current_caption
from ui.sidebar import Selection

PANDALM = config.pandalm_data_dir()
#: The page's data sources: the sidebar's dataset, or the PandaLM test set shipped in data/pandalm.
SOURCES = ("sidebar dataset", "PandaLM test set (data/pandalm)")
Stamp = tuple[tuple[str, int, int], ...]


@st.cache_resource(max_entries=1)
def _pandalm_dataset(stamp: Stamp) -> tuple[Dataset, str]:
    ds = load_dataset(PANDALM)
    return ds, ds.fingerprint()


def pandalm_dataset() -> tuple[Dataset, str]:
    """The PandaLM dataset shipped in data/pandalm and its fingerprint (keyed by its files' stamps)."""
    return _pandalm_dataset(path_stamp(PANDALM))


def data_for(source: str, sel: Selection) -> tuple[Dataset | None, str, str | None]:
    """``(dataset, fingerprint, benchmark)`` of the chosen source (:data:`SOURCES`)."""
    if source == SOURCES[1]:
        ds, fp = pandalm_dataset()
        return ds, fp, "pandalm"
    return sel.ds, sel.fingerprint, sel.benchmark


def prices_stamp() -> Stamp:
    """Stamp of the price table (a cache key: an edit of the CSV reaches the page)."""
    return path_stamp(PRICE_TABLE)


@dataclass(frozen=True)
class Choices:
    """Widget options of one benchmark.

    ``judges`` every judge with verdicts; ``scored`` the possible cheap judges (those with a
    confidence or scores, else every judge); ``method`` ``"auto"``, or ``"decisive"`` when no
    judge carries a confidence (a tie is then the least confident verdict).
    """

    judges: tuple[str, ...]
    scored: tuple[str, ...]
    method: str

    def fallback_options(self, cheap: str) -> list[str]:
        """Every judge but the cheap one."""
        return [j for j in self.judges if j != cheap]

    def default_fallbacks(self, cheap: str) -> list[str]:
        """The first judge without confidence (an LLM judge), else the first other judge."""
        rest = self.fallback_options(cheap)
        return [j for j in rest if j not in self.scored][:1] or rest[:1]


@st.cache_data(max_entries=16)
def choices(fingerprint: str, _ds: Dataset, benchmark: str) -> Choices:
    """Judges of a benchmark and those that carry a confidence or scores (possible cheap judges)."""
    j = _ds.judgments.filter(pl.col("benchmark") == benchmark)
    judges = tuple(sorted(j["judge"].unique().to_list()))
    has = (pl.col("confidence").is_not_null() | pl.col("score_a").is_not_null()).any().alias("has")
    scored = tuple(sorted(j.group_by("judge").agg(has).filter(pl.col("has"))["judge"].to_list()))
    return Choices(judges, scored, "auto") if scored else Choices(judges, judges, "decisive")


@st.cache_data(max_entries=16, show_spinner="Replaying the cascade…")
def cascade_bundle(fingerprint: str, _ds: Dataset, benchmark: str, cheap: str, fallbacks: tuple[str, ...],
                   method: str = "auto", prices: Stamp = ()):
    """Cascade data, curves per fallback, oracle and cross-fitted summary (``prices`` is only a key)."""
    from cap_core.cascades.cascade import cascade_curve, cascade_data, cross_fit, oracle

    d = cascade_data(_ds, benchmark, cheap, list(fallbacks), method=method)
    curves = {fb: cascade_curve(d, fb) for fb in d.fallbacks}
    return d, curves, oracle(d), cross_fit(d, n_splits=20, seed=0)


@st.cache_data(max_entries=32)
def gain(fingerprint: str, _ds: Dataset, benchmark: str, cheap: str, fallbacks: tuple[str, ...], method: str,
         prices: Stamp, tau: float) -> dict:
    """Paired bootstrap gain over the best single judge at one τ, via the first fallback, with
    the decomposition against that fallback (Jev paper App. K). Keyed by everything the cascade
    reads, so switching the cheap judge or a fallback never shows another cascade's gain."""
    from cap_core.cascades.cascade import decomposition, gain_ci

    d = cascade_bundle(fingerprint, _ds, benchmark, cheap, fallbacks, method, prices)[0]
    fb = fallbacks[0]
    return {**gain_ci(d, tau, fb, n_resamples=500, seed=0), **decomposition(d, tau, fb)}


@st.cache_data(max_entries=16)
def singles_and_juries(fingerprint: str, _ds: Dataset, benchmark: str, judges: tuple[str, ...],
                       prices: Stamp = ()) -> pl.DataFrame:
    """Accuracy (percent) and $ per 1,000 items of each judge and of the majority jury."""
    from cap_core.cascades.cost import cost_summary
    from cap_core.cascades.judge_confidence import item_frame
    from cap_core.cascades.jury import jury_comparison
    from cap_core.errors import CAPInputError

    cost = dict(cost_summary(_ds, benchmark, list(judges)).select("judge", "usd_per_1000").iter_rows())
    rows = [{"entry": j, "kind": "single judge", "accuracy": 100 * item_frame(_ds, benchmark, j)["correct"].mean(),
             "usd_per_1000": cost[j]} for j in judges]
    if len(judges) >= 3:
        try:
            t = jury_comparison(_ds, benchmark, list(judges), n_resamples=200)
            r = t.row(t.height - 1, named=True)
            usd = None if any(cost[j] is None for j in judges) else sum(cost[j] for j in judges)
            rows.append({"entry": r["entry"], "kind": "jury", "accuracy": r["accuracy"], "usd_per_1000": usd})
        except CAPInputError:
            pass
    return pl.DataFrame(rows, schema={"entry": pl.String, "kind": pl.String, "accuracy": pl.Float64,
                                      "usd_per_1000": pl.Float64})


@st.cache_data(max_entries=16)
def cost_notes(fingerprint: str, _ds: Dataset, benchmark: str, judges: tuple[str, ...],
               prices: Stamp = ()) -> list[str]:
    """How each judge's cost was obtained (recorded, tokens, lengths) or why it has none (``prices`` is a key)."""
    from cap_core.cascades.cost import cost_notices, cost_summary

    return cost_notices(cost_summary(_ds, benchmark, list(judges)))


@st.cache_data(max_entries=16)
def shared_errors(fingerprint: str, _ds: Dataset, benchmark: str, cheap: str, judges: tuple[str, ...]):
    """Repeated-error table and agreement matrix (judges sharing no verdict unit with the cheap one left out)."""
    from cap_core.cascades.agreement import agreement_matrix, repeated_errors

    return repeated_errors(_ds, benchmark, cheap, list(judges)), agreement_matrix(_ds, benchmark, [cheap, *judges])


@dataclass(frozen=True)
class CascadeView:
    """Everything the Cascades page draws for one choice of judges and τ.

    ``point`` the cascade at τ via the first fallback (:func:`cap_core.cascades.cascade.cascade_point`);
    ``gain`` :func:`gain`; ``caption`` the sentence under the metrics; ``curves`` fallback ->
    curve; ``pareto`` single judges, the jury and every cascade row (``entry``, ``kind``,
    ``accuracy`` percent, ``usd_per_1000``); ``repeated`` and ``agreement`` the repeated-error
    table and the Cohen's κ matrix; ``cost_notes`` how each judge's cost was estimated.
    """

    data: CascadeData
    point: dict
    gain: dict
    caption: str
    curves: dict[str, pl.DataFrame]
    pareto: pl.DataFrame
    repeated: pl.DataFrame
    agreement: pl.DataFrame
    cost_notes: list[str]


def view(fingerprint: str, ds: Dataset, benchmark: str, ch: Choices, cheap: str, fallbacks: tuple[str, ...],
         tau: float) -> CascadeView:
    """The page's content (cached parts: :func:`cascade_bundle`, :func:`gain`,
    :func:`singles_and_juries`, :func:`shared_errors`, :func:`cost_notes`). Raises CAPInputError."""
    prices, tau = prices_stamp(), float(tau)
    d, curves, orc, cf = cascade_bundle(fingerprint, ds, benchmark, cheap, fallbacks, ch.method, prices)
    fb = fallbacks[0]
    cur = cascade_point(d, tau, fb)  # the same computation as every row of the curve
    g = gain(fingerprint, ds, benchmark, cheap, fallbacks, ch.method, prices, tau)
    caption = current_caption(tau, d.n, g, fb, orc, cf["gain"].mean(), cf["gain"].std(), cf.height)
    pts = singles_and_juries(fingerprint, ds, benchmark, ch.judges, prices)
    casc = pl.concat([c.with_columns(pl.format("cascade τ={} via {}", pl.col("tau").round(2), pl.lit(f)).alias("entry"))
                      for f, c in curves.items()]).select("entry", pl.lit("cascade").alias("kind"), "accuracy",
                                                         "usd_per_1000")
    rep, mat = shared_errors(fingerprint, ds, benchmark, cheap, tuple(ch.fallback_options(cheap)))
    notes = cost_notes(fingerprint, ds, benchmark, ch.judges, prices)
    return CascadeView(d, cur, g, caption, curves, pl.concat([pts, casc]), rep, mat, notes)


@st.cache_data(max_entries=16)
def confidence_table(fingerprint: str, _ds: Dataset, benchmark: str, judges: tuple[str, ...],
                     method: str = "auto") -> tuple[pl.DataFrame, list[str]]:
    """AUROC of each judge's confidence for its right vs wrong items, and notes on judges left out
    (:func:`cap_core.cascades.judge_confidence.confidence_summary`; accuracy and error in percent)."""
    from cap_core.cascades.judge_confidence import confidence_summary
    from cap_core.errors import CAPInputError

    parts, notes = [], []
    for j in judges:
        try:
            parts.append(confidence_summary(_ds, benchmark, [j], method=method)[0])
        except CAPInputError as err:
            notes.append(f"{j}: {err.problem}")
    frame = pl.concat(parts) if parts else pl.DataFrame()
    return frame, notes


@st.cache_data(max_entries=2)
def graded_view(stamp: Stamp) -> pl.DataFrame:
    """PandaLM's three-level graded table (data/pandalm/graded.parquet): exact, within-one, QWK,
    offset and best shift per judge, then the median jury of all its judges (``stamp`` is a key)."""
    from cap_core.cascades.graded import graded_table
    from cap_core.io import read_table

    frame, _ = read_table(PANDALM / "graded.parquet", kind="graded")
    judges = [c for c in frame.columns if c not in ("item_id", "gold")]
    return graded_table(frame, judges, "gold", file="graded.parquet", jury=judges if len(judges) >= 2 else None)


def pandalm_stamp() -> Stamp:
    """Stamp of data/pandalm (a cache key for :func:`graded_view`)."""
    return path_stamp(PANDALM)
