"""Data behind the Profiles and Export pages, built the same way for both."""

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


def selected_rows(sel: Selection) -> tuple[pl.DataFrame, np.ndarray]:
    """Profile rows of the selected entries on the selected benchmark, and matching replicates.

    Published rows get NaN replicate columns (they are drawn from their CIs instead).
    """
    wanted = set(sel.labels)
    parts, reps = [], []
    if sel.ds is not None and sel.benchmark in sel.ds.benchmarks:
        prof, rep = cache.profile(sel.fingerprint, sel.ds, sel.benchmark)
        comp = with_labels(prof).with_row_index("_i").filter(pl.col("label").is_in(wanted))
        parts.append(comp.select(_COLS))
        reps.append(rep[:, comp["_i"].to_numpy()])
    if sel.include_published:
        pub = with_labels(cache.published_profiles().filter(pl.col("benchmark") == sel.benchmark))
        pub = pub.filter(pl.col("label").is_in(wanted)).select(_COLS)
        parts.append(pub)
        n = reps[0].shape[0] if reps else 1
        reps.append(np.full((n, pub.height), np.nan))
    if not parts:
        return pl.DataFrame(schema={**PROFILE_SCHEMA, "label": pl.String}), np.empty((1, 0))
    return pl.concat(parts, how="vertical"), np.concatenate(reps, axis=1)


@st.cache_resource(max_entries=16)
def _radar(fingerprint: str, benchmark: str, labels: tuple[str, ...], include_published: bool, stamp: tuple,
           _rows: pl.DataFrame):
    from components.radar import radar_figure

    return radar_figure(_rows)


def radar(sel: Selection, rows: pl.DataFrame):
    """The Profiles page's radar of ``rows`` (:func:`profiles_view`), built once per selection: it
    does not depend on the weights, so a slider change reuses it. Keyed by what the rows are
    read from (data fingerprint, benchmark, entries, published tables and their stamps); the
    figure is shared, so callers must not modify it (``st.plotly_chart`` does not)."""
    stamp = path_stamp(config.published_dir()) if sel.include_published else ()
    return _radar(sel.fingerprint, sel.benchmark or "", tuple(sorted(sel.labels)), sel.include_published, stamp, rows)


def profiles_view(sel: Selection) -> ProfilesView:
    """Everything the Profiles page draws for ``sel``.

    The profile rows and table never depend on the weights; the weighted scores are
    left empty, with ``weights_problem`` saying why, when the weights give no score.
    """
    rows, reps = selected_rows(sel)
    table = profile_table(rows)
    problem = None
    if not any(w > 0 for w in sel.weights.values()):
        problem = ZERO_WEIGHTS
    else:
        try:
            scores = cache.weighted(
                sel.fingerprint, sel.benchmark or "", tuple(sorted(sel.labels)), sel.include_published,
                tuple(sorted(sel.weights.items())), rows, reps,
            )
        except CAPInputError as err:  # not reachable from the sliders; said in words all the same
            problem = f"No weighted score: {err.problem}"
    if problem:
        scores = pl.DataFrame(schema=WEIGHTED_SCHEMA)
    label_of = rows.select("judge", "subset", "source", "label").unique()
    scores = scores.join(label_of, on=["judge", "subset", "source"], how="left").sort(
        "score", descending=True, nulls_last=True
    )
    return ProfilesView(rows, reps, scores, table, scores_table(scores), problem,
                        renormalisation_line(scores, sel.weights))


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
        used = {c.strip() for c in (r["conditions_used"] or "").split(",") if c.strip()}
        lacking = tuple(c for c in weighted if c not in used)
        groups.setdefault(lacking, []).append(names[r["label"]])
    n_scored = int(scores["score"].is_not_null().sum())
    parts = []
    for lacking, who in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        whom = f"all {len(who)} judges" if len(who) == n_scored and len(who) > 1 else ", ".join(who)
        parts.append(f"without {condition_ranges(list(lacking))} for {whom}")
    return "Weights renormalised over each judge's measured conditions: " + "; ".join(parts) + "."
