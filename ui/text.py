"""Text from outside the app shown as text: never as Markdown, links or images.

Streamlit renders the text of ``st.error``, ``st.warning``, ``st.info``, ``st.success``,
``st.caption``, ``st.markdown`` and ``st.write`` as Markdown (GitHub flavour: links,
images, bare URLs that become links, HTML-like tags, LaTeX between ``$``, colour
directives). Text that comes from a link (``?src=[Session expired](http://…)``), an upload
(its file name, its cells), the data's names (judges, benchmarks, subsets) or an error
message that quotes any of these would otherwise draw a clickable link or load a remote
image (``![x](http://…)``).

:func:`plain` is the one rule: it puts a backslash before every ASCII punctuation
character (CommonMark: a backslash before any ASCII punctuation makes it literal) and joins
lines with spaces, so the text renders exactly as written, and a bare ``http://`` or
``www.`` can no longer be recognised as a link. :func:`notice` shows such text in one of
streamlit's message boxes; pages call it for every error and notice they show, and wrap
the foreign parts of their own Markdown with :func:`plain`.
"""

from __future__ import annotations

import re
import string
from typing import Any

import streamlit as st

from cap_core.figure_text import show_acting

__all__ = ["plain", "notice", "KINDS"]

#: The message elements :func:`notice` draws.
KINDS = ("error", "warning", "info", "success", "caption")
_ESCAPE = str.maketrans({c: "\\" + c for c in string.punctuation})
#: An invisible break (ZERO WIDTH SPACE) that keeps a URL-like run from being recognised as a link.
_BREAK = "\u200b"
#: Line breaks and tabs that :func:`plain` keeps (it joins lines with spaces); every other character
#: that acts on the text around it is shown as its code point (:func:`cap_core.figure_text.show_acting`).
_KEEP = "\t\n\r\u2028\u2029"
#: Where a renderer that finds links in text would start one (GitHub-flavoured Markdown's autolinks):
#: the ``:`` of a scheme before ``//`` (``http://``) or of ``mailto:`` / ``xmpp:``, the ``@`` of an
#: address, the dot after ``www``. Nothing else gets a break, so numbers (``0.55``), versions
#: (``Llama-3.1``), times (``12:30``), ``benchmark:subset`` labels and abbreviations (``e.g.``)
#: copy as they read.
_LINKISH = re.compile(r"(?<=[A-Za-z]:)(?=//)|(?i:(?<=\bmailto:)|(?<=\bxmpp:))(?=\S)|(?<=@)(?=\w)|(?i:(?<=\bwww)(?=\.))")


def plain(text: object) -> str:
    """``text`` (any object, shown with ``str``) made to render literally as Markdown.

    Every ASCII punctuation character gets a backslash (no link, image, emphasis, code, HTML
    tag or LaTeX can form), line breaks become spaces (a line of foreign text cannot open a
    heading, a list or a code block), and a zero-width space goes after a ``:`` or ``@`` and
    before a dot inside a word: streamlit's renderer turns bare ``http://…``, ``www.…`` and
    e-mail addresses into links by finding them in the text after the escapes are read, so an
    escape alone does not stop those (seen in chromium: ``tests/test_browser.py``). The text
    reads the same; only a copy of it carries the invisible breaks. Bidirectional controls and
    other control characters (:func:`cap_core.figure_text.acting`) are shown as their code point (``[U+202E]``), so a
    right-to-left override in a link cannot turn the rest of a notice around.
    """
    shown = show_acting(str(text), keep=_KEEP)
    broken = _LINKISH.sub(_BREAK, shown)
    return " ".join(broken.translate(_ESCAPE).splitlines())


def notice(kind: str, text: object, *, where: Any = None) -> None:
    """Show ``text`` as plain text (:func:`plain`) in a message element.

    Parameters
    ----------
    kind : {"error", "warning", "info", "success", "caption"}
        The element: ``st.error`` and so on.
    text : object
        The message, e.g. a :class:`~cap_core.errors.CAPInputError` (its one-line ``str``).
    where : streamlit container, optional
        ``st`` (default), ``st.sidebar``, a column or an ``st.empty()``.
    """
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {', '.join(KINDS)}, got {kind!r}")
    getattr(where if where is not None else st, kind)(plain(text))
