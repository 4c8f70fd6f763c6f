"""Text from data printed on a terminal as what it holds: control characters shown, never obeyed.

A questions file, a model's note or a manifest can hold terminal control characters (``ESC [2J``
clears the screen, ``ESC [31m`` colours what follows, a carriage return overwrites a line, a
right-to-left override reverses it). :func:`visible` is the CLI's one rule for printing such
text: every such character becomes its code point written out (``\\x1b``), so the output shows
it and the terminal does not act on it.
"""

from __future__ import annotations

from cap_core.figure_text import acting

__all__ = ["visible"]


def _shown(ch: str) -> str:
    if not acting(ch):
        return ch
    code = ord(ch)
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
    return "".join(map(_shown, str(text)))
