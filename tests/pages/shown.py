"""The text a table drawn by ``ui.display.show_table`` shows, read from what the page sends the grid.

The grid formats each cell itself: a float column by its printf format (``%.1f``, ``%.2f``
or ``%g``) from the column configuration, a missing cell as the table's placeholder, and
anything else as its text. This helper applies those rules to the element's data, so a test
can assert the words and digits a reader sees.
"""

from __future__ import annotations

import json
import math
import re

import pandas as pd

_FIXED = re.compile(r"^%\.(\d+)f$")


def _cell(value, fmt: str | None, placeholder: str) -> str:
    if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)):
        return placeholder
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, float) and fmt:
        m = _FIXED.match(fmt)
        if m:
            return f"{value:.{int(m.group(1))}f}"
        if fmt == "%g":
            return f"{value:g}"
        raise AssertionError(f"unexpected number format {fmt!r}")
    if isinstance(value, float) and value.is_integer():  # an integer column holding nulls arrives as floats
        return str(int(value))
    return str(value)


def shown_text(el) -> pd.DataFrame:
    """The displayed text of an AppTest dataframe element, one string per cell.

    Fails when the table was not drawn through ``show_table`` (no placeholder configured).
    """
    assert el.proto.placeholder, f"table {list(el.value.columns)[:3]} is not drawn by ui.display.show_table"
    config = json.loads(el.proto.columns or "{}")
    raw = el.value
    out = {}
    for col in raw.columns:
        fmt = (config.get(col, {}).get("type_config") or {}).get("format")
        out[col] = [_cell(v, fmt, el.proto.placeholder) for v in raw[col].astype(object)]
    return pd.DataFrame(out, index=raw.index)


def rendered(markdown: str) -> str:
    """The text a reader sees in a message box whose Markdown source is ``markdown``, as far as the
    app's plain-text rule goes (:func:`ui.text.plain`): every backslash-escaped ASCII punctuation
    character shown as itself (CommonMark's backslash escapes)."""
    return re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", markdown)
