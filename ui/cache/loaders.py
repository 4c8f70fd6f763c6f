"""Cached calls into :mod:`cap_core`.

Every cached function takes plain, hashable arguments; a :class:`Dataset` is passed
as ``_ds`` (not hashed) next to its ``fingerprint``, which is the cache key. Data read
from disk is keyed by its files' stamps (:func:`ui.cache.keys.path_stamp`). Caches are
bounded by ``max_entries``. Weighting is cheap and depends only on the cached profile,
so moving a weight slider never recomputes a profile.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np
import polars as pl
import streamlit as st

from cap_core import config
from cap_core.dataset import Dataset, load_dataset
from ui.cache.keys import path_stamp

DEFAULT_DATA = config.default_data_dir()
N_RESAMPLES = config.N_RESAMPLES
SEED = config.SEED


@st.cache_resource(max_entries=1, show_spinner="Loading the embedded default data…")
def _default_dataset(stamp: tuple) -> tuple[Dataset, str]:
    ds = load_dataset(DEFAULT_DATA)
    return ds, ds.fingerprint()


def default_dataset() -> tuple[Dataset, str]:
    """The embedded default dataset and its fingerprint (never mutated), keyed by the stamps of
    its files: a rebuild of data/default (``make data``) is read without a restart."""
    return _default_dataset(path_stamp(DEFAULT_DATA))


@st.cache_data(max_entries=4, show_spinner="Reading the upload…")
def uploaded_dataset(
    items_name: str, items_bytes: bytes, judgments_name: str | None = None, judgments_bytes: bytes | None = None,
    declarations_name: str | None = None, declarations_bytes: bytes | None = None,
) -> tuple[Dataset, str]:
    """Uploaded tables in CAP's schema: the registry's ``table`` format (:func:`uploaded_format_dataset`)."""
    extra = {"judgments": (judgments_name, judgments_bytes) if judgments_name and judgments_bytes is not None else None,
             "declarations": (declarations_name, declarations_bytes)
             if declarations_name and declarations_bytes is not None else None}
    return uploaded_format_dataset("table", ((items_name, items_bytes),), (), tuple(extra.items()))


@st.cache_data(max_entries=4, show_spinner="Reading the upload…")
def uploaded_format_dataset(kind: str, files: tuple[tuple[str, bytes], ...], options: tuple[tuple[str, str], ...] = (),
                            option_files: tuple[tuple[str, tuple[str, bytes] | None], ...] = ()) -> tuple[Dataset, str]:
    """Uploads of any format of the import registry, read by its reader
    (:func:`cap_core.importers.uploads.read_uploads`: written once to a folder named by their
    content hash, .zip archives unpacked). Keyed by the format, the files' names and bytes and
    the options; raises CAPInputError (shown as a message), never another error for a bad file."""
    import zipfile

    from cap_core.errors import CAPInputError
    from cap_core.importers.uploads import read_uploads

    try:
        ds = read_uploads(kind, files, dict(options), dict(option_files))
    except (OSError, zipfile.BadZipFile, UnicodeError) as exc:
        raise CAPInputError("the upload could not be read", file=files[0][0] if files else None,
                            got=f"{type(exc).__name__}: {exc}"[:120],
                            fix="check that the files are the tool's own output (or a .zip of its folder)") from None
    return ds, ds.fingerprint()


@st.cache_data(max_entries=8, show_spinner=False)
def detected_format(files: tuple[tuple[str, bytes], ...]) -> str | None:
    """The import kind the uploaded files show unambiguously (None: none, or several fit)."""
    from cap_core.errors import CAPInputError
    from cap_core.importers.uploads import detect_upload

    try:
        return detect_upload(files)
    except CAPInputError:
        return None


@st.cache_data(max_entries=16, show_spinner="Computing the profile (bootstrap)…")
def profile(fingerprint: str, _ds: Dataset, benchmark: str, failures: str = "count") -> tuple[pl.DataFrame, np.ndarray]:
    """Profile of every judge on one benchmark (each on its own items) and its bootstrap replicates,
    under the failure rule ``failures`` (:data:`cap_core.verdicts.FAILURE_RULES`)."""
    from cap_core.profile.conditions import compute_profile

    res = compute_profile(_ds, n_resamples=N_RESAMPLES, seed=SEED, benchmarks=[benchmark], failures=failures)
    return res.profile, res.replicates


@st.cache_data(max_entries=8)
def coverage(fingerprint: str, _ds: Dataset) -> pl.DataFrame:
    """Computed coverage matrix of the dataset."""
    from cap_core.profile.coverage import coverage_matrix

    return coverage_matrix(_ds)


@st.cache_data(max_entries=1)
def _published(stamp: tuple) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The published CAP profiles (percent) and the Table 2 coverage matrix, read once per
    ``stamp`` (the files of data/published)."""
    from cap_core.profile.published import (
        load_published_coverage,
        load_published_profiles,
    )

    return load_published_profiles(), load_published_coverage()


def published_profiles() -> pl.DataFrame:
    """Published CAP profiles (percent); keyed by the stamps of data/published, so a rebuild
    of data/ reaches the page without a restart."""
    return _published(path_stamp(config.published_dir()))[0]


def published_coverage() -> pl.DataFrame:
    """Published CAP Table 2 coverage matrix; keyed like :func:`published_profiles`."""
    return _published(path_stamp(config.published_dir()))[1]


@st.cache_data(max_entries=64)
def weighted(fingerprint: str, benchmark: str, labels: tuple[str, ...], include_published: bool,
             weights: tuple[tuple[str, float], ...], _rows: pl.DataFrame, _reps: np.ndarray) -> pl.DataFrame:
    """Weighted scores of the selected entries (keyed on the selection and the weights)."""
    from cap_core.profile.weights import weighted_scores

    return weighted_scores(_rows, _reps, dict(weights), seed=SEED)


def combined_profiles(fingerprint: str, _ds: Dataset | None, include_published: bool,
                      failures: str = "count") -> pl.DataFrame:
    """:func:`_combined_profiles`, keyed also by the stamps of the published tables."""
    return _combined_profiles(fingerprint, _ds, include_published,
                              path_stamp(config.published_dir()) if include_published else (), failures)


@st.cache_data(max_entries=8, show_spinner="Assembling profiles…")
def _combined_profiles(fingerprint: str, _ds: Dataset | None, include_published: bool,
                       published_stamp: tuple, failures: str = "count") -> pl.DataFrame:
    """Computed profiles of every benchmark of the dataset (reusing :func:`profile`), plus the
    published CAP tables when ``include_published``."""
    from cap_core.profile.combine import combine_profiles

    computed = [profile(fingerprint, _ds, b, failures)[0] for b in (_ds.benchmarks if _ds is not None else [])]
    return combine_profiles(computed, published_profiles() if include_published else None)


class Chosen(Protocol):
    """What :func:`analysis_profile` reads of a :class:`ui.sidebar.Selection`."""

    fingerprint: str
    ds: Dataset | None
    include_published: bool
    failures: str


def analysis_key(sel: Chosen) -> str:
    """The key of everything computed from :func:`analysis_profile`: the data fingerprint and the failure
    rule (the published switch is passed beside it)."""
    return f"{sel.fingerprint}|{sel.failures}"


def analysis_profile(sel: Chosen) -> pl.DataFrame:
    """The profile the Stress, Consistency and Compare judges pages analyse (see
    :func:`combined_profiles`), under the sidebar's failure rule. Raises CAPInputError when
    there is nothing to analyse."""
    return combined_profiles(sel.fingerprint, sel.ds, sel.include_published, sel.failures)


@st.cache_data(max_entries=8)
def profile_views(fingerprint: str, include_published: bool, _prof: pl.DataFrame) -> list[str]:
    """Every ``benchmark:subset`` view of the combined profile ``_prof`` (of these two keys)."""
    from cap_core.profile.selection import list_views

    return list_views(_prof)


@st.cache_data(max_entries=8)
def overview_tables(fingerprint: str, _ds: Dataset) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The Overview page's tables: counts per benchmark (:func:`components.tables.dataset_summary`)
    and, per judge, what it received and its tie and unparsed rates
    (:func:`cap_core.analyses.verdict_summary.verdict_summary`; names cut to the label width)."""
    from cap_core.analyses.verdict_summary import verdict_summary
    from components.labels import LABEL_WIDTH
    from components.tables import dataset_summary

    j = pl.col("judge")
    cut = pl.when(j.str.len_chars() > LABEL_WIDTH).then(j.str.slice(0, LABEL_WIDTH - 1) + "…").otherwise(j)
    judges = verdict_summary(_ds).with_columns(cut.alias("judge"), pl.col("tie_pct", "unparsed_pct").round(1))
    return dataset_summary(_ds.items, _ds.judgments), judges
