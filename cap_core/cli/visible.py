"""Text from data printed on a terminal as what it holds: control characters shown, never obeyed.

A questions file, a model's note or a manifest can hold terminal control characters (``ESC [2J``
clears the screen, ``ESC [31m`` colours what follows, a carriage return overwrites a line, a
right-to-left override reverses it). :func:`visible` is the CLI's one rule for printing such
text: every such character becomes its code point written out (``\\x1b``), so the output shows
it and the terminal does not act on it.
"""

from __future__ import annotations

import unicodedata

__all__ = ["visible"]

#: Characters a terminal or a bidirectional renderer acts on besides the C0/C1 controls (Unicode
#: category Cc): the line and paragraph separators and the bidirectional embeddings, overrides and
#: isolates (Unicode TR9), which reorder the text around them.
_ACTING = frozenset("\u2028\u2029\u200e\u200f\u061c" + "".join(map(chr, range(0x202A, 0x202F)))
                    + "".join(map(chr, range(0x2066, 0x206A))))


def _shown(ch: str) -> str:
    if ch not in _ACTING and unicodedata.category(ch) != "Cc":
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
