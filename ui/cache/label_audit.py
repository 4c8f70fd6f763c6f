"""Cached calls for the Label audit page.

Public label sets are keyed by their name, the shared folder's path, the number of
permutations and the seed; an upload is keyed by its bytes (streamlit hashes them),
permutations and seed. Nothing here mutates a cached frame.
"""

from __future__ import annotations

import polars as pl
import streamlit as st

from cap_core import config
from cap_core.audit.label_set import LabelSet
from cap_core.audit.public_sets import load_label_set, shared_dir
from cap_core.audit.surface import AuditResult, audit_label_set

PUBLISHED_TABLE7 = config.published_dir() / "validity_labelset_audit.csv"
QUICK_PERMUTATIONS = 20
FULL_PERMUTATIONS = 100


def shared_status() -> tuple[str | None, str | None]:
    """``(path, None)`` when the shared folder is found, else ``(None, message)``."""
    from cap_core.errors import CAPInputError

    try:
        return str(shared_dir()), None
    except CAPInputError as err:
        return None, str(err)


@st.cache_data(max_entries=64, show_spinner="Auditing the label set…")
def audit_public(name: str, shared: str, n_permutations: int, seed: int = 0) -> AuditResult:
    """Audit of one public label set (both modes, all predictors)."""
    return audit_label_set(load_label_set(name, shared=shared), n_permutations=n_permutations, seed=seed)


@st.cache_data(max_entries=8, show_spinner="Reading the uploaded label set…")
def read_upload(file_name: str, data: bytes) -> LabelSet:
    """Parse and validate an uploaded label set (raises CAPInputError on bad input)."""
    from cap_core.audit.user_sets import read_user_label_set

    return read_user_label_set(file_name, data=data)


@st.cache_data(max_entries=8, show_spinner="Auditing your label set…")
def audit_upload(fingerprint: str, _ls: LabelSet, n_permutations: int, seed: int = 0) -> AuditResult:
    """Audit of an uploaded label set, keyed by its content fingerprint."""
    return audit_label_set(_ls, n_permutations=n_permutations, seed=seed)


@st.cache_data(max_entries=1)
def published_table7() -> pl.DataFrame:
    """Validity Table 7 as published (copied from ../shared/published/labelset_audit.csv)."""
    return pl.read_csv(PUBLISHED_TABLE7)
