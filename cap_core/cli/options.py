"""Argument types shared by the verbs: bounded integers, so a bad count or seed is refused by
the parser (one line, exit status 2) before any work starts."""

from __future__ import annotations

import argparse

__all__ = ["int_between", "SEED"]


def int_between(low: int, high: int):
    """An ``argparse`` type accepting integers in ``[low, high]``; the message states the range."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer from {low:,} to {high:,}, got {text!r}") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"expected an integer from {low:,} to {high:,}, got {value:,}")
        return value

    parse.__name__ = "integer"
    return parse


#: Seeds of numpy's and scikit-learn's generators: 0 to 2**32 - 1.
SEED = int_between(0, 2**32 - 1)
