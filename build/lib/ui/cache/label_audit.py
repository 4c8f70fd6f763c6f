"""Cached calls for the Label audit page.

Two sources for the public label sets: the figures shipped in ``data/audit`` (keyed by the
names, the permutation count and the shipped files' size and modification time), or the
user's local copy of the public data (a set's texts keyed by its name, the folder and
the file's size and modification time; its audit by the texts' content hash). An upload
is keyed by its bytes (streamlit hashes them), its audit by its content hash. Nothing
here mutates a cached frame.

The first view of an audit that is estimated to take at least :data:`PROGRESS_AFTER_S`
seconds (:func:`cap_core.audit.surface.estimate_seconds`) shows a progress bar with the
time left: the audit runs outside the cached function (a cached function may not draw
into an element made outside it) and its result is then handed to the cache, so later
views are cache hits that draw nothing.
"""

from __future__ import annotations

import time

import polars as pl
import streamlit as st

from cap_core import config
from cap_core.audit.label_set import LabelSet
from cap_core.audit.shipped import MANIFEST_FILE, PREDICTIONS_FILE, TABLE_FILE
from cap_core.audit.surface import AuditResult, audit_label_set, estimate_seconds
from cap_core.errors import CAPInputError
from cap_core.importers.label_sets import (
    FULL_PERMUTATIONS,
    PUBLIC_SETS,
    QUICK_PERMUTATIONS,
    public_data_dir,
    read_public_label_set,
)
from ui.cache.keys import path_stamp

__all__ = ["QUICK_PERMUTATIONS", "FULL_PERMUTATIONS", "PROGRESS_AFTER_S", "local_copy_status", "public_audit",
           "read_upload", "audit_upload", "published_table7"]

#: Audits estimated to take at least this many seconds show a progress bar on their first view.
PROGRESS_AFTER_S = 2.0
#: Keys (fingerprint, permutations, seed) this server process has audited, i.e. held by ``_audit``'s cache.
_AUDITED: set[tuple] = set()
#: Audits computed with a progress bar, waiting for ``_audit`` to take them into its cache.
_HANDOFF: dict[tuple, AuditResult] = {}

PUBLISHED_TABLE7 = config.published_dir() / "validity_labelset_audit.csv"


def _stamp(*paths) -> tuple:
    """The :func:`ui.cache.keys.path_stamp` of each file, with its full path: part of a cache key."""
    return tuple((str(p), path_stamp(p)) for p in paths)


def local_copy_status(folder: str | None) -> tuple[str | None, str | None]:
    """``(resolved folder, None)`` for a usable local copy, ``(None, message)`` for a bad one, ``(None, None)`` for none."""
    if not folder or not folder.strip():
        return None, None
    try:
        return str(public_data_dir(folder.strip())), None
    except CAPInputError as err:
        return None, str(err)


@st.cache_data(max_entries=32, show_spinner="Reading the label set…")
def _read_public(name: str, folder: str, stamp: tuple) -> LabelSet:
    return read_public_label_set(name, folder)


@st.cache_data(max_entries=64, show_spinner="Auditing the label set…")
def _audit(fingerprint: str, _ls: LabelSet, n_permutations: int, seed: int) -> AuditResult:
    handed = _HANDOFF.pop((fingerprint, n_permutations, seed), None)
    return handed if handed is not None else audit_label_set(_ls, n_permutations=n_permutations, seed=seed)


def _left_text(estimate: float, elapsed: float, fraction: float) -> str:
    """Time left: from the cost model until a tenth is done, then from the pace so far."""
    left = max(estimate - elapsed, 1.0) if fraction < 0.1 else elapsed * (1.0 - fraction) / fraction
    return f"about {left:.0f} s left" if left >= 1.5 else "almost done"


def _audit_with_progress(ls: LabelSet, n_permutations: int, seed: int, estimate: float) -> AuditResult:
    """Run the audit here with a progress bar and the estimated time left (the bar is removed at the end)."""
    head = f"Auditing {ls.name} ({n_permutations} permutations; estimated {estimate:.0f} s on two cores)"
    bar = st.progress(0.0, text=f"{head}: starting")
    start = time.monotonic()

    def update(fraction: float, running: str) -> None:
        elapsed = time.monotonic() - start
        bar.progress(min(max(fraction, 0.0), 1.0),
                     text=f"{head}: {fraction:.0%} done, {_left_text(estimate, elapsed, fraction)} (running: {running})")

    try:
        return audit_label_set(ls, n_permutations=n_permutations, seed=seed, progress=update)
    finally:
        bar.empty()


def _audited(ls: LabelSet, n_permutations: int, seed: int) -> AuditResult:
    """The cached audit of ``ls``; its first view shows a progress bar when it is estimated to be long."""
    key = (ls.fingerprint(), n_permutations, seed)
    if key not in _AUDITED and estimate_seconds(ls, n_permutations=n_permutations) >= PROGRESS_AFTER_S:
        _HANDOFF[key] = _audit_with_progress(ls, n_permutations, seed,
                                             estimate_seconds(ls, n_permutations=n_permutations))
    try:
        res = _audit(key[0], ls, n_permutations, seed)
    finally:
        _HANDOFF.pop(key, None)  # the cache already held it: nothing to hand over
    _AUDITED.add(key)
    return res


@st.cache_data(max_entries=8)
def _shipped(names: tuple[str, ...], n_permutations: int, seed: int, stamp: tuple):
    from cap_core.audit.shipped import read_shipped_audit, shipped_audit

    res, missing = shipped_audit(list(names), n_permutations, seed=seed)
    got = read_shipped_audit()
    runs: dict[int, list[str]] = {}
    for name, meta in (got[1]["sets"].items() if got else []):
        for n in meta["permutations"]:
            runs.setdefault(n, []).append(name)
    return res, missing, runs, (got[1].get("n_splits") if got else None)


def public_audit(names: tuple[str, ...], local: str | None, n_permutations: int,
                 seed: int = 0) -> tuple[AuditResult | None, list[str]]:
    """Audit of the chosen public sets and what the page should say about it.

    With a local copy (``local``, resolved): every set read from its texts and audited here.
    Without: the shipped figures (``data/audit``) of the sets shipped at these settings.

    Returns
    -------
    (AuditResult or None, list of str)
        The stacked audit (None when nothing could be shown) and notices: where the
        figures come from, tie counts, and the sets without shipped figures.

    Raises
    ------
    CAPInputError
        A set's file is missing from the local copy or malformed.
    """
    if not names:
        return None, []
    if local:
        parts, notes = [], [f"Computed here from the label-set texts in your local copy ({local})."]
        for name in names:
            ls = _read_public(name, local, _stamp(public_data_dir(local) / PUBLIC_SETS[name][0]))
            notes += ls.notices
            parts.append(_audited(ls, n_permutations, seed))
        return AuditResult(pl.concat([r.table for r in parts]), pl.concat([r.predictions for r in parts])), notes
    folder = config.audit_data_dir()
    res, missing, runs, n_splits = _shipped(tuple(names), n_permutations, seed,
                                  _stamp(*(folder / f for f in (TABLE_FILE, PREDICTIONS_FILE, MANIFEST_FILE))))
    notes = []
    if res is not None:
        notes.append("Shipped figures (data/audit): computed by the default-data build from the public texts, "
                     f"seed {seed}, {n_splits} prompt-grouped folds; no label-set text is on this machine. Point at your "
                     "local copy of the public data above to recompute them here.")
    if missing:
        have = "; ".join(f"{len(v)} set(s) at {n} permutations" for n, v in sorted(runs.items())) or "none"
        notes.append(f"No shipped figures for {', '.join(missing)} at {n_permutations} permutations (shipped: "
                     f"{have}). Point at your local copy of the public data above to audit them here.")
    return res, notes


@st.cache_data(max_entries=8, show_spinner="Reading the uploaded label set…")
def read_upload(file_name: str, data: bytes) -> LabelSet:
    """Parse and validate an uploaded label set (raises CAPInputError on bad input)."""
    from cap_core.audit.user_sets import read_user_label_set

    return read_user_label_set(file_name, data=data)


def audit_upload(ls: LabelSet, n_permutations: int, seed: int = 0) -> AuditResult:
    """Audit of an uploaded label set, cached by its content fingerprint (a progress bar on a long first view)."""
    return _audited(ls, n_permutations, seed)


@st.cache_data(max_entries=1)
def _published_table7(stamp: tuple) -> pl.DataFrame:
    """Validity Table 7 as published (``data/published/validity_labelset_audit.csv``)."""
    return pl.read_csv(PUBLISHED_TABLE7)



def published_table7() -> pl.DataFrame:
    """Validity Table 7 as published; cached, keyed by the stamps of the
    files it reads, so a rebuild of data/ reaches the page without a restart."""
    return _published_table7(path_stamp(PUBLISHED_TABLE7))