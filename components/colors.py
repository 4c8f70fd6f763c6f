"""One colour per judge on every page, in every selection and for every dataset.

A judge's colour is a function of its name alone: a stable hash (SHA-256, not Python's
salted ``hash``) of the judge name picks an entry of :data:`PALETTE`. Adding, removing or
reordering judges never recolours the others, and a judge drawn on Profiles, Stress,
Frontiers or Cascades has the same colour everywhere. Entries of one judge from several
sources (``"GPT-4o · CAP Table 3 · all"``, ``"GPT-4o [math]"``) share its colour: the name
is read with :func:`judge_key`; markers (:data:`components.radar.MARKER_SYMBOLS`) and
legends tell such entries apart, as they do for two judges whose hashes meet.
"""

from __future__ import annotations

import hashlib
from typing import Iterable

__all__ = ["PALETTE", "judge_key", "judge_colour", "judge_colours"]

#: 24 distinguishable colours, dark enough for lines and white text (plotly's Dark24 order).
PALETTE: tuple[str, ...] = (
    "#2E91E5", "#E15F99", "#1CA71C", "#FB0D0D", "#DA16FF", "#222A2A", "#B68100", "#750D86",
    "#EB663B", "#511CFB", "#00A08B", "#FB00D1", "#FC0080", "#B2828D", "#6C7C32", "#778AAE",
    "#862A16", "#A777F1", "#620042", "#1616A7", "#DA60CA", "#6C4516", "#0D2A63", "#AF0038",
)


def judge_key(label: str) -> str:
    """The judge name inside an entry label: text before `` · `` (published entries) or before a
    trailing ``[subset]``, stripped and case-folded.

    >>> judge_key("GPT-4o · CAP Table 3 · all"), judge_key("gpt-4o [math]")
    ('gpt-4o', 'gpt-4o')
    """
    name = str(label).split(" · ", 1)[0]
    if name.endswith("]") and " [" in name:
        name = name[: name.rindex(" [")]
    return name.strip().casefold()


def judge_colour(label: str) -> str:
    """Hex colour of the judge named in ``label`` (see :func:`judge_key`)."""
    digest = hashlib.sha256(judge_key(label).encode("utf-8")).digest()
    return PALETTE[int.from_bytes(digest[:8], "big") % len(PALETTE)]


def judge_colours(labels: Iterable[str]) -> dict[str, str]:
    """``{label: colour}`` for each distinct label."""
    return {label: judge_colour(label) for label in labels}
