"""Cached calls behind the Frontiers page (validity profiles).

Keys are plain values; frames are passed as ``_name`` next to a text key. Moving a
tau slider only reads the cached sweep: nothing is recomputed.
"""

from __future__ import annotations

import polars as pl
import streamlit as st

from cap_core import config
from cap_core.errors import CAPInputError
from cap_core.validity.frontier import point_at, sweep
from cap_core.validity.public_gradings import REAL_GRADINGS
from cap_core.validity.sr import validate_grades

N_RESAMPLES = config.N_RESAMPLES
SEED = config.SEED


@st.cache_data(max_entries=1, show_spinner="Mapping the graded public data onto (S, R)…")
def real_data() -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame, list[str]]:
    """JudgeBench rubric + LLMBar Rating: (grades, sweep, gradings, notices)."""
    from cap_core.validity.public_gradings import gradings_to_grades

    gradings = pl.read_parquet(REAL_GRADINGS)
    grades, notices = gradings_to_grades(gradings)
    grades = validate_grades(grades, file=REAL_GRADINGS.name)
    return grades, sweep(grades), gradings, notices


@st.cache_data(max_entries=4, show_spinner="Reading the graded probe table…")
def uploaded(name: str, data: bytes) -> tuple[pl.DataFrame, pl.DataFrame]:
    """A user's graded probe table: (validated grades, sweep). Raises CAPInputError."""
    from cap_core.io import read_table

    frame, _ = read_table(name, kind="grades", data=data)
    grades = validate_grades(frame, file=name)
    return grades, sweep(grades)


CACHE_DIR = config.cache_dir()


@st.cache_data(max_entries=4, show_spinner="Grading the built-in probe set (cache first)…")
def builtin_graded(judges: tuple[str, ...]) -> tuple[pl.DataFrame, pl.DataFrame, list[str]]:
    """The built-in probe set graded live by ``judges``: (grades, sweep, notices)."""
    from cap_core.validity.probes.grade import grade_probes

    bases = pl.read_csv(REAL_GRADINGS.parent / "probe_bases.csv")
    probes = pl.read_csv(REAL_GRADINGS.parent / "probes_builtin.csv")
    grades, notices = grade_probes(bases, probes, list(judges), cache_dir=CACHE_DIR)
    if grades.height == 0:
        raise CAPInputError("no probe could be graded", expected="readable 1-5 grades", got=notices[-1],
                            fix="check the model string and its API key in the environment")
    grades = validate_grades(grades)
    return grades, sweep(grades), notices


@st.cache_data(max_entries=16, show_spinner="Bootstrapping over base items…")
def operating(key: str, min_s: float, s_high: float, r_high: float, _grades: pl.DataFrame,
              _sw: pl.DataFrame) -> pl.DataFrame:
    """Matched-invariance operating points with intervals (see cap_core.validity.report)."""
    from cap_core.validity.report import operating_table

    return operating_table(_grades, min_s=min_s, n_resamples=N_RESAMPLES, seed=SEED, s_high=s_high,
                           r_high=r_high, sw=_sw)


@st.cache_data(max_entries=2)
def instrument(key: str, _gradings: pl.DataFrame) -> pl.DataFrame:
    """Distinct vs usable grades and regrade consistency of the real graded data."""
    from cap_core.validity.instrument import instrument_quality

    g = _gradings.select("judge", key=pl.col("base_item_id") + ":" + pl.col("response"),
                         attempt="order", grade="grade")
    return instrument_quality(g)


@st.cache_data(max_entries=4)
def instrument_of_grades(key: str, _grades: pl.DataFrame) -> pl.DataFrame:
    """Distinct vs usable grades of a graded probe table (each text once; no regrades)."""
    from cap_core.validity.instrument import instrument_quality

    base = _grades.select("judge", key="base_item_id", grade="grade_base").unique(["judge", "key"])
    probe = _grades.select("judge", key="probe_id", grade="grade_probe")
    return instrument_quality(pl.concat([base, probe]).with_columns(attempt=pl.lit("1")))


@st.cache_data(max_entries=1)
def published() -> tuple[pl.DataFrame, pl.DataFrame]:
    """Validity Tables 5 and 6 as shipped in data/published."""
    from cap_core.validity.report import (
        load_published_interventions,
        load_published_judges,
    )

    return load_published_judges(), load_published_interventions()


@st.cache_data(max_entries=1)
def probe_set() -> tuple[pl.DataFrame, pl.DataFrame, int]:
    """The built-in probe set: (verified probes, rejection summary per slot, number of domains)."""
    from cap_core.validity.probes.generate import rejection_summary

    verified = pl.read_csv(REAL_GRADINGS.parent / "probes_builtin.csv")
    domains = pl.read_csv(REAL_GRADINGS.parent / "probe_bases.csv")["domain"].n_unique()
    return verified, rejection_summary(verified), domains


def selected_points(sw: pl.DataFrame, taus: dict[str, float]) -> pl.DataFrame:
    """Sweep rows at each judge's slider tau (one row per judge)."""
    try:
        rows = [point_at(sw, j, t) for j, t in taus.items()]
    except CAPInputError:
        rows = []
    return pl.DataFrame(rows, schema=sw.schema) if rows else sw.clear()
