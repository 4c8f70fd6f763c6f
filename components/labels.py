"""How one profile entry (judge, subset, source) is named in the dashboard."""

from __future__ import annotations

import polars as pl

__all__ = ["entry_label", "with_labels"]


def entry_label(judge: str, subset: str | None, source: str | None) -> str:
    """Display name of a profile entry.

    Computed entries are shown by judge id (plus ``[subset]`` when not ``all``);
    published ones carry their table and subset, e.g.
    ``"GPT-4o · CAP Table 3 · hard_empirical"``.
    """
    source = source or "computed"
    if source == "computed":
        return judge if subset in (None, "", "all") else f"{judge} [{subset}]"
    table = source.split(":", 1)[1].strip() if ":" in source else source
    return f"{judge} · {table} · {subset or 'all'}"


def with_labels(profile: pl.DataFrame) -> pl.DataFrame:
    """Add a ``label`` String column (see :func:`entry_label`) to a profile frame."""
    if profile.height == 0:
        return profile.with_columns(pl.lit(None, dtype=pl.String).alias("label"))
    labels = [
        entry_label(j, s, src)
        for j, s, src in zip(profile["judge"], profile["subset"], profile["source"])
    ]
    return profile.with_columns(pl.Series("label", labels, dtype=pl.String))
