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

import re
from typing import Iterable

__all__ = ["figure_text", "figure_texts", "acting", "show_acting", "ACTING_RE"]

#: Characters that act on the text around them instead of being seen, besides the C0/C1 controls
#: (Unicode category Cc): the line and paragraph separators and the bidirectional marks,
#: embeddings, overrides and isolates (Unicode TR9: a right-to-left override makes ``exe.txt``
#: read ``txt.exe``).
_ACTING = frozenset("\u2028\u2029\u200e\u200f\u061c" + "".join(map(chr, range(0x202A, 0x202F)))
                    + "".join(map(chr, range(0x2066, 0x206A))))


#: The characters that act on text (the one rule for the dashboard's text, its figures and the CLI's
#: output): :data:`_ACTING` and Unicode category Cc, which is exactly U+0000-U+001F and U+007F-U+009F.
ACTING_RE = re.compile("[\x00-\x1f\x7f-\x9f" + "".join(sorted(re.escape(c) for c in _ACTING)) + "]")


def acting(ch: str) -> bool:
    """Whether the character ``ch`` acts on the text around it instead of being seen (:data:`ACTING_RE`)."""
    return ACTING_RE.fullmatch(ch) is not None


def show_acting(text: str, *, keep: str = "", form: str = "[U+{:04X}]") -> str:
    """``text`` with every :func:`acting` character (other than those in ``keep``) written as its code
    point in ``form`` (``[U+202E]`` by default)."""
    return ACTING_RE.sub(lambda m: m[0] if m[0] in keep else form.format(ord(m[0])), text)

#: Characters plotly.js reads as markup, and the entity it draws as that character.
_ENTITIES = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;"})


def figure_text(text: object) -> str | None:
    """``text`` (shown with ``str``) as plotly draws it literally: ``&``, ``<`` and ``>`` as entities,
    control and bidirectional characters as their code point (:func:`show_acting`).

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
    return show_acting(str(text)).translate(_ENTITIES)


def figure_texts(values: Iterable[object]) -> list[str | None]:
    """:func:`figure_text` of each value, as a list (a category axis, a trace's ``text``)."""
    return [figure_text(v) for v in values]
