"""Data behind the Choose a judge page (and the sidebar's measured conditions and the Export files).

One cached call per view: :func:`choose_view` is keyed by the data fingerprint, the
benchmark, the selected entries, the published switch and the published tables' stamp, the
weights and the minimums (the profile itself comes from the cached
:func:`ui.cache.loaders.profile`, so moving a slider never recomputes a profile). What a
weight change does not alter is cached on its own smaller key and reused: the judges' costs
(data, benchmark, judges, price table), the drill-down (the leader and runner-up pair), the
profile CSV (the selected rows) and where each condition is measured (data and published
tables). The scores CSV is written on first use. Results are shared (``st.cache_resource``):
callers must not modify them.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Callable, Protocol

import numpy as np
import polars as pl
import streamlit as st

from cap_core import config
from cap_core.choice.fit import closest_preset
from cap_core.choice.fit import measured_conditions as measured_in
from cap_core.choice.leaderboard import Choice
from cap_core.dataset import Dataset
from cap_core.schema import CONDITION_IDS
from ui.cache import loaders as cache
from ui.cache.keys import path_stamp

__all__ = ["ChooseView", "choose_view", "measured_conditions", "measured_elsewhere", "closest_preset",
           "export_files", "html_file", "html_later", "item_note"]


class Chosen(Protocol):
    """What this module reads of a :class:`ui.sidebar.Selection`."""

    ds: Dataset | None
    fingerprint: str
    benchmark: str | None
    labels: list[str]
    include_published: bool
    weights: dict[str, float]
    filters: tuple
    measured: list[str]
    failures: str
    items: str


@dataclass(frozen=True)
class ChooseView:
    """Everything the Choose page draws: the choice, labelled leaderboard, the drill-down and files."""

    choice: Choice
    rows: pl.DataFrame
    board: pl.DataFrame
    drill: pl.DataFrame | None
    drill_note: str
    runner_up: str | None
    coverage_notes: list[str]
    profile_csv: bytes
    scores: pl.DataFrame
    settings: object = None  # cap_core.choice.pipeline.ChoiceSettings: what the choice was computed with

    @functools.cached_property
    def scores_csv(self) -> bytes:
        """The scores file (:func:`cap_core.choice.exports.scores_export`, formulas neutralised), written
        on first use: a weight change does not write a file nobody downloads."""
        from cap_core.export import to_csv_bytes

        return to_csv_bytes(self.scores)


def _rows(sel: Chosen) -> tuple[pl.DataFrame, np.ndarray]:
    from ui.cache.profiles import selected_rows

    return selected_rows(sel)


def measured_conditions(sel: Chosen) -> list[str]:
    """Conditions (C1..C8 order) for which some selected entry has a primary value on the benchmark."""
    rows, _ = _rows(sel)
    return measured_in(rows)


@st.cache_resource(max_entries=8)
def _measured_where(fingerprint: str, published_stamp: tuple, _ds: Dataset | None) -> dict[str, tuple[str, ...]]:
    out: dict[str, list[str]] = {c: [] for c in CONDITION_IDS}
    for cov, suffix in (((cache.coverage(fingerprint, _ds), "") if _ds is not None else (None, "")),
                        (cache.published_coverage(), " (published)")):
        if cov is None:
            continue
        on = cov.filter(pl.col("status") != "unavailable").select("condition", "benchmark").unique()
        for c in CONDITION_IDS:
            out[c] += [f"{b}{suffix}" for b in on.filter(pl.col("condition") == c)["benchmark"].sort().to_list()]
    return {c: tuple(v) for c, v in out.items()}


def measured_elsewhere(sel: Chosen, condition: str) -> list[str]:
    """Benchmarks whose coverage matrix measures ``condition`` (loaded data, then CAP Table 2, "(published)").

    Read once per data fingerprint and stamp of the published tables (never per slider move)."""
    from ui.cache.keys import path_stamp

    where = _measured_where(sel.fingerprint if sel.ds is not None else "", path_stamp(config.published_dir()), sel.ds)
    return list(where.get(condition, ()))


@st.cache_resource(max_entries=16)
def _item_coverage(fingerprint: str, benchmark: str, judges: tuple[str, ...], failures: str, _ds: Dataset):
    from cap_core.choice.pipeline import item_coverage

    return item_coverage(_ds, benchmark, list(judges), failures)


def item_coverage_of(sel: Chosen):
    """:class:`cap_core.choice.pipeline.ItemCoverage` of the selected computed judges under the sidebar's
    failure rule, or None with fewer than two of them (cached by data, benchmark, judges and rule)."""
    from ui.cache.profiles import with_label

    if sel.ds is None or sel.benchmark not in sel.ds.benchmarks:
        return None
    wanted = set(sel.labels)
    have = sel.ds.judgments.filter(pl.col("benchmark") == sel.benchmark)["judge"].unique().to_list()
    judges = tuple(sorted(j for j in have if with_label(j) in wanted))
    if len(judges) < 2:
        return None
    return _item_coverage(sel.fingerprint, sel.benchmark, judges, sel.failures, sel.ds)


def item_note(sel: Chosen) -> str:
    """The sentence saying how the selected computed judges' item sets differ ('' when they do not),
    for the item set ``sel.items`` (:meth:`cap_core.choice.pipeline.ItemCoverage.sentence`)."""
    cov = item_coverage_of(sel)
    return cov.sentence(sel.items) if cov is not None else ""


@st.cache_resource(max_entries=16, show_spinner=False)
def _drill(fingerprint: str, benchmark: str, leader: str, runner_up: str, _ds: Dataset) -> pl.DataFrame:
    """:func:`cap_core.choice.drilldown.disagreements` of one pair (a weight change that keeps the
    leader and the runner-up reuses it)."""
    from cap_core.choice.drilldown import disagreements

    return disagreements(_ds, benchmark, leader, runner_up)


@st.cache_resource(max_entries=16)
def _profile_csv(key: tuple, _inputs) -> bytes:
    """The profile CSV of the selected rows (weights play no part; keyed like the rows)."""
    from cap_core.choice.exports import profile_export
    from cap_core.export import to_csv_bytes

    s = _inputs.settings
    return to_csv_bytes(profile_export(_inputs.rows, level=s.level, resamples=s.n_resamples, seed=s.seed,
                                       fingerprint=s.fingerprint, failures=s.failures, items=s.items))


@st.cache_resource(max_entries=16, show_spinner=False)
def _names(key: tuple, _rows: pl.DataFrame) -> dict:
    """``(judge, subset, source) -> label`` of the selection ``key`` (shared: do not modify)."""
    return {(j, s or "all", src or "computed"): lab for j, s, src, lab in
            _rows.select("judge", "subset", "source", "label").unique().iter_rows()}


@st.cache_resource(max_entries=32, show_spinner=False)  # a few ms: a spinner (a timer thread) would cost more
def _choice(key: tuple, price_stamp: tuple, weights: tuple[tuple[str, float], ...], filters_text: str,
            _inputs, _rows: pl.DataFrame, _ds: Dataset | None) -> ChooseView:
    from cap_core.choice.filters import parse_filters
    from cap_core.choice.leaderboard import condition_ranges
    from cap_core.choice.pipeline import rank_judges

    fingerprint, benchmark = key[0], key[1]
    rows, filters = _rows, parse_filters(filters_text)
    names = _names(key, rows)
    ranked = rank_judges(_inputs, dict(weights), filters=filters, names=names)
    ch = ranked.choice
    lb = ch.leaderboard
    labels = [names.get(k, k[0]) for k in zip(lb["judge"], lb["subset"], lb["source"])]
    board = lb.with_columns(pl.Series("label", labels, dtype=pl.String))
    scored = board.filter(pl.col("rank").is_not_null())
    drill, note, runner = None, "", None
    if scored.height >= 2:
        lead, run = scored.row(0, named=True), scored.row(1, named=True)
        runner = run["label"]
        if lead["source"] == "computed" and run["source"] == "computed" and _ds is not None:
            drill = _drill(fingerprint, benchmark, lead["judge"], run["judge"], _ds)
        else:
            note = ("The drill-down needs the items of both judges: published judges come from the paper's tables, "
                    "which hold no items.")
    cov_notes = [n for n in _inputs.notices if n.startswith(f"{benchmark}: the judges' item sets differ")]
    if ch.unmeasured:
        cov_notes.append(f"{condition_ranges(ch.unmeasured)}: weighted but not measured for these judges on "
                         f"{benchmark}; the weights are renormalised over the conditions each judge has.")
    board = board.with_columns(pl.Series("note", [_own_note(r, ch) for r in board.iter_rows(named=True)],
                                         dtype=pl.String))
    if board["published"].any():
        cov_notes.append("Published judges: interval and P(best) from a normal approximation of the printed "
                         "intervals (sd = CI width / 3.92); their differences are not paired.")
    prof_csv = _profile_csv(key, _inputs)
    return ChooseView(ch, rows, board, drill, note, runner, cov_notes, prof_csv, ranked.scores, _inputs.settings)


def _own_note(row: dict, ch: Choice) -> str:
    """A row's note without the renormalisation every judge shares (said once in the coverage notes)."""
    used = set(row["conditions_used"] or [])
    own = [c for c, w in ch.weights.items() if w > 0 and c not in used and c not in ch.unmeasured]
    parts = [p for p in (row["note"] or "").split("; ") if p and not p.startswith("lacks ")
             and not p.startswith("weights renormalised")]
    if own and used:
        parts.insert(0, "lacks " + ", ".join(own) + " (renormalised over the rest)")
    return "; ".join(parts)


def choose_view(sel: Chosen) -> ChooseView:
    """The choice for the sidebar's selection, weights in force and minimums (cached).

    Raises
    ------
    CAPInputError
        The weights give no score (all in-force weights zero): the page says so in words.
    """
    from cap_core.cascades.cost import PRICE_TABLE
    from cap_core.choice.filters import format_filters
    from ui.cache.profiles import choice_inputs, selection_key

    inputs, rows = choice_inputs(sel)
    return _choice(selection_key(sel), path_stamp(PRICE_TABLE), tuple(sorted(sel.weights.items())),
                   format_filters(tuple(sel.filters)), inputs, rows, sel.ds)


def _html_bytes(key: tuple, weights: tuple[tuple[str, float], ...], filters_text: str, _view: ChooseView) -> bytes:
    from cap_core.choice.filters import parse_filters
    from cap_core.choice.report import html_report
    from cap_core.colours import judge_colours

    s = _view.settings
    text = html_report(_view.choice, _view.rows.drop("label"), benchmark=key[1], filters=parse_filters(filters_text),
                       coverage_notes=_view.coverage_notes, fingerprint=key[0], level=s.level,
                       resamples=s.n_resamples, seed=s.seed, colours=judge_colours(_view.board["label"].to_list()))
    return text.encode("utf-8")


_html = st.cache_data(max_entries=4, show_spinner="Writing the report…")(_html_bytes)


def html_later(sel: Chosen, view: ChooseView) -> Callable[[], bytes]:
    """:func:`html_file` deferred: a function writing the report when the download button is clicked
    (``st.download_button`` calls it then, on another thread), so a weight change does not write a
    report nobody downloads. The selection is read now; the report is the view's."""
    from cap_core.choice.filters import format_filters
    from ui.cache.profiles import selection_key

    args = (selection_key(sel), tuple(sorted(sel.weights.items())), format_filters(tuple(sel.filters)), view)
    return lambda: _html_bytes(*args)


def html_file(sel: Chosen, view: ChooseView) -> bytes:
    """The self-contained HTML report of ``view`` (cached by the same keys as the view)."""
    from cap_core.choice.filters import format_filters
    from ui.cache.profiles import selection_key

    return _html(selection_key(sel), tuple(sorted(sel.weights.items())), format_filters(tuple(sel.filters)), view)


def export_files(sel: Chosen) -> tuple[bytes, bytes]:
    """``(profile CSV, scores CSV)`` of the selection (:mod:`cap_core.choice.exports`)."""
    view = choose_view(sel)
    return view.profile_csv, view.scores_csv
