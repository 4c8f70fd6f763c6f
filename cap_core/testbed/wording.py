"""How the testbed's messages count things: ``1 question``, ``2 questions`` (never ``1 questions`` or
``question(s)``)."""

from __future__ import annotations

__all__ = ["count"]


def count(k: int, noun: str, plural: str | None = None) -> str:
    """``k`` followed by ``noun``, or by its plural (``plural``, default ``noun + "s"``) unless ``k`` is 1.

    Examples: ``count(1, "pair") == "1 pair"``, ``count(0, "pair") == "0 pairs"``,
    ``count(2, "time") == "2 times"``.
    """
    return f"{k} {noun if k == 1 else (plural or noun + 's')}"
