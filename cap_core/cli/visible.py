"""Text from data printed on a terminal as what it holds: control characters shown, never obeyed.

A questions file, a model's note or a manifest can hold terminal control characters (``ESC [2J``
clears the screen, ``ESC [31m`` colours what follows, a carriage return overwrites a line, a
right-to-left override reverses it). :func:`visible` is the CLI's one rule for printing such
text: every such character becomes its code point written out (``\\x1b``), so the output shows
it and the terminal does not act on it.
"""

from __future__ import annotations

import contextlib
import re
import sys

from cap_core.figure_text import ACTING_RE

__all__ = ["visible", "VisibleStream", "visible_output"]


def _shown(match: re.Match) -> str:
    code = ord(match[0])
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def visible(text: object) -> str:
    """``str(text)`` with every control character written as its code point.

    Parameters
    ----------
    text : object
        One line of output (shown with ``str``); a line break or tab inside it is data and is
        written out too (``\\n``, ``\\t``).

    Returns
    -------
    str
        The same text where each C0/C1 control (``ESC``, ``CR``, ``BEL``, ``DEL`` ...), line or
        paragraph separator and bidirectional control reads ``\\x1b``, ``\\u202e`` and so on; every
        other character, any script, is kept.
    """
    return ACTING_RE.sub(_shown, str(text))


class VisibleStream:
    """A text stream that writes every acting character as its code point, except line breaks and a
    carriage return that starts a write (the CLI's own progress line redraws itself that way).

    The CLI's last line of defence: whatever a verb prints (a judge's name in a notice, a model's
    answer in a table) reaches the terminal as text. A line break inside a value still breaks the
    line; single-line messages pass their text through :func:`visible` too.
    """

    def __init__(self, raw):
        self.raw = raw

    def write(self, text: str) -> int:
        if ACTING_RE.search(text):
            head = "\r" if text.startswith("\r") else ""
            text = head + "\n".join(map(visible, text[len(head):].split("\n")))
        return self.raw.write(text)

    def __getattr__(self, name):  # flush, isatty, encoding, fileno ... of the stream it wraps
        return getattr(self.raw, name)


@contextlib.contextmanager
def visible_output():
    """Within the block, ``sys.stdout`` and ``sys.stderr`` are :class:`VisibleStream` s over the streams
    they were; put back after."""
    out, err = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = VisibleStream(out), VisibleStream(err)
    try:
        yield
    finally:
        sys.stdout, sys.stderr = out, err
