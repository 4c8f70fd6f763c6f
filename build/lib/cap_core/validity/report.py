"""Per-judge validity report: operating points with intervals, quadrants, published rows.

Joins the pieces of :mod:`cap_core.validity.sr` and :mod:`cap_core.validity.frontier` into the table
the Frontiers page and ``python -m cap_core validity`` show, and loads the published
per-judge operating points (Validity Table 5) and per-intervention sensitivities
(Table 6) for display beside computed ones. All S and R are proportions.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

from cap_core import config
from cap_core.errors import CAPInputError
from cap_core.validity.frontier import (
    DEFAULT_MIN_S,
    DEFAULT_R_HIGH,
    DEFAULT_S_HIGH,
    operating_point,
    quadrant,
    sweep,
)
from cap_core.validity.sr import validity_intervals

__all__ = ["operating_table", "load_published_judges", "load_published_interventions", "PUBLISHED_DIR"]

PUBLISHED_DIR = config.published_dir()
_MEASURES = ("S", "R", "R_scope", "R_strength")


def operating_table(grades: pl.DataFrame, *, min_s: float = DEFAULT_MIN_S, n_resamples: int = 1000,
                    seed: int = 0, level: float = 0.95, s_high: float = DEFAULT_S_HIGH,
                    r_high: float = DEFAULT_R_HIGH, sw: pl.DataFrame | None = None) -> pl.DataFrame:
    """Matched-invariance operating point of every judge with bootstrap intervals and quadrant.

    Parameters
    ----------
    grades : polars.DataFrame
        Validated grades (:func:`cap_core.validity.sr.validate_grades`).
    min_s : float
        Invariance floor of the operating point (proportion, default 0.90).
    n_resamples, seed, level
        Bootstrap over base items (:func:`cap_core.validity.sr.validity_intervals`).
    s_high, r_high : float
        Quadrant cut-offs (Validity Table 1).
    sw : polars.DataFrame, optional
        A precomputed :func:`cap_core.validity.frontier.sweep` of ``grades``.

    Returns
    -------
    polars.DataFrame
        One row per judge: judge, tau, then for each of S, R, R_scope, R_strength the
        value and ``<m>_ci_low`` / ``<m>_ci_high`` (Float64 proportions), n_items (Int64
        base items), verdict_only (Boolean), quadrant (Utf8), source ("computed").
        Judges with no control arm (S not measurable) get no row.
    """
    sw = sweep(grades) if sw is None else sw
    ops = operating_point(sw, min_s)
    rows = []
    for op in ops.iter_rows(named=True):
        iv = validity_intervals(grades.filter(pl.col("judge") == op["judge"]), op["tau"],
                                n_resamples=n_resamples, seed=seed, level=level)
        row = {"judge": op["judge"], "tau": op["tau"]}
        for m in iv.iter_rows(named=True):
            row.update({m["measure"]: m["value"], f"{m['measure']}_ci_low": m["ci_low"],
                        f"{m['measure']}_ci_high": m["ci_high"]})
        row.update(n_items=int(iv["n_items"].max()), verdict_only=op["verdict_only"],
                   quadrant=quadrant(row["S"], row["R"], s_high, r_high), source="computed")
        rows.append(row)
    cols = ["judge", "tau"] + [c for m in _MEASURES for c in (m, f"{m}_ci_low", f"{m}_ci_high")]
    schema = {c: (pl.Utf8 if c == "judge" else pl.Float64) for c in cols}
    schema.update(n_items=pl.Int64, verdict_only=pl.Boolean, quadrant=pl.Utf8, source=pl.Utf8)
    return pl.DataFrame(rows, schema=schema) if rows else pl.DataFrame(schema=schema)


def _load(path: Path | str | None, name: str, cols: tuple[str, ...]) -> pl.DataFrame:
    p = Path(path) if path is not None else PUBLISHED_DIR / name
    if not p.is_file():
        raise CAPInputError("published validity table not found", file=str(p), expected=f"{name}",
                            fix="rebuild data/ with `make data` (the default-data build writes data/published)")
    df = pl.read_csv(p)
    missing = [c for c in cols if c not in df.columns]
    if missing:
        raise CAPInputError("published validity table lacks a column", file=str(p), column=missing[0],
                            expected=", ".join(cols), got=df.columns)
    return df


def load_published_judges(path: Path | str | None = None) -> pl.DataFrame:
    """Validity Table 5 (6 judges printed): judge, tau, S, R, R_scope, R_strength (proportions),
    points (usable grade points), regrade, plus ``quadrant`` (default cut-offs) and
    ``source`` = "published: Validity Table 5"."""
    df = _load(path, "validity_judges.csv", ("judge", "tau", "S", "R", "R_scope", "R_strength", "points", "regrade"))
    return df.with_columns(
        quadrant=pl.struct("S", "R").map_elements(lambda x: quadrant(x["S"], x["R"]), return_dtype=pl.Utf8),
        source=pl.lit("published: Validity Table 5"))


def load_published_interventions(path: Path | str | None = None) -> pl.DataFrame:
    """Validity Table 6: intervention, axis, n, R (proportion, mean over judges at matched S),
    median_abs_delta_length (percent), source = "published: Validity Table 6"."""
    df = _load(path, "validity_interventions.csv", ("intervention", "axis", "n", "R", "median_abs_delta_length"))
    return df.with_columns(source=pl.lit("published: Validity Table 6"))
