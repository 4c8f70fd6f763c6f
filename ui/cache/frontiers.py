"""Cached calls behind the Frontiers page (validity profiles).

A set of grades travels as a :class:`Graded` whose ``key`` names it in every cache:
``"public"``, ``"builtin:<judges>"`` or ``"upload:<name>:<sha256 of the bytes>"`` (never the file
name and size, which two different files can share). Frames are passed unhashed as
``_name`` beside that key. Moving a τ slider only reads the cached sweep.
"""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl
import streamlit as st

from cap_core import config
from cap_core.errors import CAPInputError
from cap_core.validity.frontier import point_at, quadrant, sweep
from cap_core.validity.public_gradings import REAL_GRADINGS
from cap_core.validity.sr import validate_grades
from ui.cache.keys import content_key, path_stamp

N_RESAMPLES = config.N_RESAMPLES
SEED = config.SEED
#: The page's sources of graded data.
SOURCES = ("public graded outputs (JudgeBench rubric, LLMBar Rating)", "built-in probe set, graded live",
           "upload a graded probe table")
#: The offline grader of the built-in probe set (no API key, no cost).
OFFLINE_GRADER = "localgrade/overlap"


@dataclass(frozen=True)
class Graded:
    """One set of graded probes: ``grades`` (validated, see :func:`cap_core.validity.sr.validate_grades`),
    ``sw`` its threshold sweep, the raw public ``gradings`` (regrades; None for other sources),
    ``notices`` for the user, and the cache ``key`` of all three."""

    key: str
    grades: pl.DataFrame
    sw: pl.DataFrame
    gradings: pl.DataFrame | None
    notices: list[str]


@st.cache_data(max_entries=1, show_spinner="Mapping the graded public data onto (S, R)…")
def _real_data(stamp: tuple) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame, list[str]]:
    """JudgeBench rubric + LLMBar Rating: (grades, sweep, gradings, notices)."""
    from cap_core.validity.public_gradings import gradings_to_grades

    gradings = pl.read_parquet(REAL_GRADINGS)
    grades, notices = gradings_to_grades(gradings)
    grades = validate_grades(grades, file=REAL_GRADINGS.name)
    return grades, sweep(grades), gradings, notices


def real_data() -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame, list[str]]:
    """JudgeBench rubric + LLMBar Rating: (grades, sweep, gradings, notices); cached, keyed by the stamps of the
    files it reads, so a rebuild of data/ reaches the page without a restart."""
    return _real_data(path_stamp(REAL_GRADINGS))


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
def _published(stamp: tuple) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Validity Tables 5 and 6 as shipped in data/published."""
    from cap_core.validity.report import (
        load_published_interventions,
        load_published_judges,
    )

    return load_published_judges(), load_published_interventions()


def published() -> tuple[pl.DataFrame, pl.DataFrame]:
    """Validity Tables 5 and 6 as shipped; cached, keyed by the stamps of the
    files it reads, so a rebuild of data/ reaches the page without a restart."""
    return _published(path_stamp(config.published_dir()))


@st.cache_data(max_entries=1)
def _probe_set(stamp: tuple) -> tuple[pl.DataFrame, str]:
    """The built-in probe set: (rejection summary per slot, one sentence of counts)."""
    from cap_core.validity.probes.generate import rejection_summary

    verified = pl.read_csv(REAL_GRADINGS.parent / "probes_builtin.csv")
    domains = pl.read_csv(REAL_GRADINGS.parent / "probe_bases.csv")["domain"].n_unique()
    text = (f"{verified['base_item_id'].n_unique()} base claims written for this project in {domains} domains; "
            f"{int((verified['status'] == 'kept').sum())} of {verified.height} rule-generated probes pass the "
            "verifier.")
    return rejection_summary(verified), text


def probe_set() -> tuple[pl.DataFrame, str]:
    """The built-in probe set: (rejection summary per slot, counts); cached, keyed by the stamps of the
    files it reads, so a rebuild of data/ reaches the page without a restart."""
    return _probe_set(path_stamp(REAL_GRADINGS.parent))


def selected_points(sw: pl.DataFrame, taus: dict[str, float]) -> pl.DataFrame:
    """Sweep rows at each judge's slider tau (one row per judge)."""
    try:
        rows = [point_at(sw, j, t) for j, t in taus.items()]
    except CAPInputError:
        rows = []
    return pl.DataFrame(rows, schema=sw.schema) if rows else sw.clear()


def public() -> Graded:
    """The public graded outputs (JudgeBench rubric + LLMBar Rating). Raises CAPInputError."""
    grades, sw, gradings, notices = real_data()
    return Graded("public", grades, sw, gradings, notices)


def parse_models(text: str) -> tuple[str, ...]:
    """litellm model strings from a comma-separated field (blanks dropped)."""
    return tuple(m.strip() for m in text.split(",") if m.strip())


def builtin(judges: tuple[str, ...]) -> Graded:
    """The built-in probe set graded by ``judges`` (cached calls first). Raises CAPInputError."""
    grades, sw, notices = builtin_graded(judges)
    return Graded("builtin:" + ",".join(judges), grades, sw, None, notices)


def upload(name: str, data: bytes) -> Graded:
    """A graded probe table uploaded by the user, keyed by a hash of its bytes. Raises CAPInputError."""
    grades, sw = uploaded(name, data)
    return Graded(f"upload:{name}:{content_key(data)}", grades, sw, None, [])


def tau_options(sw: pl.DataFrame, ops: pl.DataFrame) -> list[tuple[str, list[float], float]]:
    """``(judge, attained thresholds, default)`` per judge, sorted by judge; the default is the
    matched-invariance τ of ``ops`` (else the middle threshold)."""
    out = []
    for judge in sorted(sw["judge"].unique().to_list()):
        options = [round(float(t), 6) for t in sw.filter(pl.col("judge") == judge)["tau"].to_list()]
        m = ops.filter(pl.col("judge") == judge)
        out.append((judge, options, round(float(m["tau"][0]), 6) if m.height else options[len(options) // 2]))
    return out


def points(sw: pl.DataFrame, taus: dict[str, float], s_high: float, r_high: float) -> tuple[pl.DataFrame, list[str]]:
    """Sweep rows at each judge's slider τ and one markdown line per judge (S, R, quadrant; the name as
    plain text, :func:`ui.text.plain`)."""
    from ui.text import plain

    sel = selected_points(sw, taus)
    lines = []
    for r in sel.iter_rows(named=True):
        no_s = r["S"] != r["S"]
        s_txt = "not measurable" if no_s else f"{100 * r['S']:.1f}%"
        q = "not measured (no S)" if no_s else quadrant(r["S"], r["R"], s_high, r_high)
        lines.append(f"**{plain(r['judge'])}** at τ = {r['tau']:g}: S = {s_txt}, R = {100 * r['R']:.1f}%; "
                     f"quadrant: {q}")
    return sel, lines


def operating_points(ops: pl.DataFrame, pub_judges: pl.DataFrame) -> pl.DataFrame:
    """Computed operating points (with intervals) above the published Validity Table 5 rows."""
    computed = ops.select("judge", "tau", "S", "S_ci_low", "S_ci_high", "R", "R_ci_low", "R_ci_high", "R_scope",
                          "R_strength", "quadrant", "source")
    return pl.concat([computed, pub_judges.select("judge", "tau", "S", "R", "R_scope", "R_strength", "quadrant",
                                                  "source")], how="diagonal_relaxed")


def instrument_table(g: Graded) -> pl.DataFrame:
    """Instrument quality of ``g``: with regrades for the public data, each text once otherwise."""
    return instrument(g.key, g.gradings) if g.gradings is not None else instrument_of_grades(g.key, g.grades)
