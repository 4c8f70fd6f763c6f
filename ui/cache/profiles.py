"""Data behind the Profiles and Export pages, built the same way for both.

The selected rows and the profile table are built once per :func:`selection_key` (what they are
read from); the weighted part once per key and weights, so a slider move only weighs the kept
replicates again. Results are shared (``st.cache_resource``): callers must not modify them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np
import polars as pl
import streamlit as st

from cap_core import config
from cap_core.dataset import Dataset
from cap_core.errors import CAPInputError
from cap_core.profile.weights import WEIGHTED_SCHEMA
from cap_core.schema import PROFILE_SCHEMA
from components.labels import short_labels, with_labels
from components.tables import profile_table, scores_table
from ui.cache import loaders as cache
from ui.cache.keys import path_stamp


class Selection(Protocol):
    """What this module reads of a :class:`ui.sidebar.Selection` (no import: the sidebar uses this module)."""

    ds: Dataset | None
    fingerprint: str
    benchmark: str | None
    labels: list[str]
    include_published: bool
    weights: dict[str, float]
    failures: str
    items: str

_COLS = list(PROFILE_SCHEMA) + ["label"]
#: Shown in place of the weighted score when every slider is at 0.
ZERO_WEIGHTS = "All condition weights are zero: move a slider or choose a preset"


@dataclass(frozen=True)
class ProfilesView:
    """Selected profile rows (labelled), their replicates, weighted scores and display tables.

    ``weights_problem`` is a sentence for the user when no weighted score can be given
    (all weights zero); ``scores`` and ``score_table`` are then empty, while ``rows``
    and ``table`` (which do not depend on the weights) are complete. ``renormalisation``
    is the one line saying which weighted conditions were dropped for which judges
    (see :func:`renormalisation_line`), or None when no score was renormalised.
    """

    rows: pl.DataFrame
    replicates: np.ndarray
    scores: pl.DataFrame
    table: pl.DataFrame
    score_table: pl.DataFrame
    weights_problem: str | None = None
    renormalisation: str | None = None


def published_stamp(sel: Selection) -> tuple:
    """The stamps of the published tables when ``sel`` includes them (part of every key that reads them)."""
    return path_stamp(config.published_dir()) if sel.include_published else ()


def selection_key(sel: Selection) -> tuple:
    """What the selected profile rows are read from, as one hashable key: data fingerprint, benchmark,
    entries (sorted: the rows do not depend on their order), the published switch, the published tables'
    stamps, the failure rule and the item set the judges are compared on."""
    return (sel.fingerprint, sel.benchmark or "", tuple(sorted(sel.labels)), sel.include_published,
            published_stamp(sel), sel.failures, sel.items)


@st.cache_resource(max_entries=16, show_spinner="Computing the profile (bootstrap)…")
def _inputs(key: tuple, _ds: Dataset | None):
    """:func:`cap_core.choice.pipeline.prepare_choice` of the selection ``key`` (its judges, published
    entries, failure rule and item set), rows labelled; shared, do not modify."""
    from cap_core.choice.pipeline import prepare_choice

    fingerprint, benchmark, labels, include_published, _, failures, items = key
    wanted = set(labels)
    judges = None
    if _ds is not None and benchmark in _ds.benchmarks:
        have = _ds.judgments.filter(pl.col("benchmark") == benchmark)["judge"].unique().to_list()
        judges = sorted(j for j in have if with_label(j) in wanted)
    pub = None
    if include_published:
        pub = with_labels(cache.published_profiles().filter(pl.col("benchmark") == benchmark))
        pub = pub.filter(pl.col("label").is_in(wanted)).drop("label")
    inputs = prepare_choice(_ds if judges else None, benchmark, judges=judges, published=pub, items=items,
                            failures=failures, n_resamples=cache.N_RESAMPLES, seed=cache.SEED, level=config.LEVEL)
    rows = with_labels(inputs.rows).select(_COLS)
    inputs.replicates.setflags(write=False)  # shared by every caller (cache_resource): a write would raise
    return inputs, rows


def with_label(judge: str) -> str:
    """The sidebar label of a computed judge (:func:`components.labels.entry_label`)."""
    from components.labels import entry_label

    return entry_label(judge, "all", "computed")


def choice_inputs(sel: Selection):
    """``(ChoiceInputs, labelled rows)`` of the selection: the weight-independent part of the choice
    (:func:`cap_core.choice.pipeline.prepare_choice`), built once per :func:`selection_key`."""
    return _inputs(selection_key(sel), sel.ds)


def selected_rows(sel: Selection) -> tuple[pl.DataFrame, np.ndarray]:
    """Profile rows of the selected entries on the selected benchmark, and matching replicates.

    Published rows get NaN replicate columns (they are drawn from their CIs instead). The computed
    judges are profiled by the choice pipeline (on the items all of them received unless the
    sidebar says 'own items', under its failure rule). Built once per :func:`selection_key` (a
    weight change reuses them); the frame and the read-only array are shared, so callers must not
    modify them.
    """
    inputs, rows = choice_inputs(sel)
    return rows, inputs.replicates


@st.cache_resource(max_entries=16)
def _radar(key: tuple, _rows: pl.DataFrame):
    from components.radar import radar_figure

    return radar_figure(_rows)


def radar(sel: Selection, rows: pl.DataFrame):
    """The Profiles page's radar of ``rows`` (:func:`profiles_view`), built once per selection: it
    does not depend on the weights, so a slider change reuses it. Keyed by what the rows are
    read from (data fingerprint, benchmark, entries, published tables and their stamps); the
    figure is shared, so callers must not modify it (``st.plotly_chart`` does not)."""
    return _radar(selection_key(sel), rows)


@dataclass(frozen=True)
class WeightedPart:
    """The part of :class:`ProfilesView` that depends on the weights (see there)."""

    scores: pl.DataFrame
    score_table: pl.DataFrame
    weights_problem: str | None = None
    renormalisation: str | None = None


@st.cache_resource(max_entries=16, show_spinner=False)
def _labels(key: tuple, _rows: pl.DataFrame) -> dict:
    """``(judge, subset, source) -> label`` of the selection ``key`` (shared: do not modify)."""
    return {k[:3]: k[3] for k in _rows.select("judge", "subset", "source", "label").unique().iter_rows()}


@st.cache_resource(max_entries=16, show_spinner=False)
def _score_basis(key: tuple, _rows: pl.DataFrame, _reps: np.ndarray):
    """:class:`cap_core.profile.weights.ScoreBasis` of the selection ``key`` (its rows and replicates):
    what every weighted score reads, gathered once, so a weight change only weighs."""
    from cap_core.profile.weights import ScoreBasis

    return ScoreBasis(_rows, _reps)


@st.cache_resource(max_entries=64, show_spinner=False)  # a few ms: no spinner thread per weight change
def _weighted_part(key: tuple, weights: tuple[tuple[str, float], ...], _rows: pl.DataFrame,
                   _reps: np.ndarray) -> WeightedPart:
    problem = None
    if not any(w > 0 for _, w in weights):
        problem = ZERO_WEIGHTS
    else:
        try:  # weighted_scores(_rows, _reps, weights, seed=SEED), the rows' part kept per selection
            scores = _score_basis(key, _rows, _reps).draws(dict(weights), seed=cache.SEED)[0]
        except CAPInputError as err:  # not reachable from the sliders; said in words all the same
            problem = f"No weighted score: {err.problem}"
    if problem:
        scores = pl.DataFrame(schema=WEIGHTED_SCHEMA)
    label_of = _labels(key, _rows)
    scores = scores.with_columns(pl.Series("label", [label_of.get(k) for k in zip(
        scores["judge"], scores["subset"], scores["source"])], dtype=pl.String)).sort(
        "score", descending=True, nulls_last=True, maintain_order=True)
    return WeightedPart(scores, scores_table(scores), problem, renormalisation_line(scores, dict(weights)))


def weighted_part(sel: Selection, rows: pl.DataFrame | None = None, reps: np.ndarray | None = None) -> WeightedPart:
    """The weighted scores of ``sel`` under its weights (CAP §5), their table and the notes.

    ``rows``/``reps`` are :func:`selected_rows` of ``sel`` (read again when not given). Cached
    by :func:`selection_key` and the slider weights (every input of the scores: the rows are read
    from exactly that key, the seed is :data:`cap_core.config.SEED`); the result is shared, so
    callers must not modify it.
    """
    if rows is None or reps is None:
        rows, reps = selected_rows(sel)
    return _weighted_part(selection_key(sel), tuple(sorted(sel.weights.items())), rows, reps)


@st.cache_resource(max_entries=16)
def _table(key: tuple, _rows: pl.DataFrame) -> pl.DataFrame:
    return profile_table(_rows)


def profile_part(sel: Selection) -> tuple[pl.DataFrame, np.ndarray, pl.DataFrame]:
    """``(rows, replicates, profile table)`` of ``sel``: what the Profiles page shows whatever the
    weights (built once per :func:`selection_key`, shared: do not modify)."""
    rows, reps = selected_rows(sel)
    return rows, reps, _table(selection_key(sel), rows)


def profiles_view(sel: Selection) -> ProfilesView:
    """Everything the Profiles page draws for ``sel`` (the Export page uses it whole).

    The profile rows and table never depend on the weights (:func:`profile_part`); the
    weighted scores (:func:`weighted_part`) are left empty, with ``weights_problem`` saying
    why, when the weights give no score.
    """
    rows, reps, table = profile_part(sel)
    w = weighted_part(sel, rows, reps)
    return ProfilesView(rows, reps, w.scores, table, w.score_table, w.weights_problem, w.renormalisation)


def renormalisation_line(scores: pl.DataFrame, weights: dict[str, float]) -> str | None:
    """One line naming, for the renormalised scores, which weighted conditions each judge lacks.

    ``scores`` has the :data:`WEIGHTED_SCHEMA` columns plus ``label``; judges lacking
    the same conditions are named together, e.g. ``"Weights renormalised over each
    judge's measured conditions: without C3, C4 for all 2 judges; without C5 also
    for X."``. None when no row is renormalised (CAP §5: a missing condition is
    dropped and the rest renormalised, never read as zero).
    """
    from cap_core.choice.leaderboard import condition_ranges

    weighted = [c for c, w in weights.items() if w > 0]
    groups: dict[tuple[str, ...], list[str]] = {}
    rows = [r for r in scores.iter_rows(named=True) if r["renormalised"]]
    if not rows:
        return None
    names = short_labels(r["label"] for r in rows)
    for r in rows:
        used = set(r["conditions_used"] or [])
        lacking = tuple(c for c in weighted if c not in used)
        groups.setdefault(lacking, []).append(names[r["label"]])
    n_scored = int(scores["score"].is_not_null().sum())
    parts = []
    for lacking, who in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        whom = f"all {len(who)} judges" if len(who) == n_scored and len(who) > 1 else ", ".join(who)
        parts.append(f"without {condition_ranges(list(lacking))} for {whom}")
    return "Weights renormalised over each judge's measured conditions: " + "; ".join(parts) + "."
