"""Text from data drawn in a plotly figure as text, never as markup.

plotly.js reads a small subset of HTML in every text it draws in a figure (axis tick labels,
legend entries, hover boxes, titles, annotations, heatmap cell texts): ``<a href=...>``
becomes a clickable link, ``<b>``, ``<i>``, ``<em>``, ``<s>``, ``<u>``, ``<sub>``, ``<sup>``
and ``<span style=...>`` change the look, ``<br>`` breaks the line, and HTML entities such as
``&lt;`` are decoded (plotly.js ``src/lib/svg_text_utils.js``: the text is split at its tags
first, then the entities of the pieces between tags are decoded, so an entity never forms a
tag). A judge, benchmark, subset, domain, label-set or condition name is data: it comes from
an upload, a tool's log or a link, and a name such as ``<a href="http://…">Session expired</a>``
would otherwise be drawn as a link on the page and in a saved HTML report.

:func:`figure_text` is the one rule: every figure builder (``components/*.py``,
:mod:`cap_core.choice.figures`, the radar of :mod:`cap_core.choice.report`) passes each name
from data through it before the name reaches the figure (as a category, a trace name, a cell
or hover text, or inside a title). Widgets keep the plain name (streamlit shows widget text
literally), and so do tables (:mod:`ui.text` escapes Markdown where it is shown).
"""

from __future__ import annotations

from typing import Iterable

__all__ = ["figure_text", "figure_texts"]

#: Characters plotly.js reads as markup, and the entity it draws as that character.
_ENTITIES = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;"})


def figure_text(text: object) -> str | None:
    """``text`` (shown with ``str``) as plotly draws it literally: ``&``, ``<`` and ``>`` as entities.

    Parameters
    ----------
    text : object
        A name from data (``None`` stays ``None``: a missing category or gap).

    Returns
    -------
    str or None
        E.g. ``'&lt;a href="x"&gt;click&lt;/a&gt;'`` for ``'<a href="x">click</a>'``; plotly
        shows the original characters and forms no tag. Apply it once, to the text as it
        will be shown (after cutting a long name, so an entity is never cut in half).

    Examples
    --------
    >>> figure_text("<b>GPT-4</b> & co")
    '&lt;b&gt;GPT-4&lt;/b&gt; &amp; co'
    """
    if text is None:
        return None
    return str(text).translate(_ENTITIES)


def figure_texts(values: Iterable[object]) -> list[str | None]:
    """:func:`figure_text` of each value, as a list (a category axis, a trace's ``text``)."""
    return [figure_text(v) for v in values]
