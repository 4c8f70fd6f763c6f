"""How one profile entry (judge, subset, source) is named in the dashboard.

Widgets and tables show a label as it is; a figure shows it through :func:`figure_text` (the one
rule, :mod:`cap_core.figure_text`, re-exported here for the figure builders), so a name holding
plotly's markup (``<a href=…>``) is drawn as text.
"""

from __future__ import annotations

from typing import Iterable

import polars as pl

from cap_core.figure_text import figure_text, figure_texts

__all__ = ["LABEL_WIDTH", "entry_label", "with_labels", "short_label", "short_labels", "figure_text", "figure_texts"]

#: Longest label drawn in a legend, hover box, axis or widget option (characters).
LABEL_WIDTH = 60


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


def short_label(text: str, width: int = LABEL_WIDTH) -> str:
    """``text`` cut to at most ``width`` characters, ending in ``…`` when cut.

    Line breaks and tabs become spaces so a label stays on one line.
    """
    text = str(text)
    if len(text) > width:
        text = text[: width - 1] + "…"
    return text.replace("\r", " ").replace("\n", " ").replace("\t", " ")


def short_labels(labels: Iterable[str], width: int = LABEL_WIDTH) -> dict[str, str]:
    """Map each distinct label to a short display label, distinct ones staying distinct.

    Two long labels that share their first ``width`` characters get `` #2``, `` #3``...
    appended (still within ``width`` characters) so legends and bar axes never merge
    two entries.
    """
    out: dict[str, str] = {}
    taken: set[str] = set()
    for label in labels:
        if label in out:
            continue
        short = short_label(label, width)
        n = 1
        while short in taken:
            n += 1
            tag = f" #{n}"
            short = short_label(label, width - len(tag)) + tag
        out[label] = short
        taken.add(short)
    return out
