"""The pages that app.py registers, read from its source (shared by the UI tests)."""

from __future__ import annotations

import ast
from pathlib import Path

APP_PY = Path(__file__).resolve().parents[2] / "app.py"


def pages_in_app() -> list[tuple[str, str]]:
    """``(file, title)`` of every ``st.Page`` call in app.py, in source order."""
    tree = ast.parse(APP_PY.read_text())
    calls = [
        node for node in ast.walk(tree) if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "Page"
        and node.args and isinstance(node.args[0], ast.Constant)  # page files; not the old-path redirects
    ]
    calls.sort(key=lambda n: (n.lineno, n.col_offset))
    return [(n.args[0].value, next(k.value.value for k in n.keywords if k.arg == "title")) for n in calls]


def assert_clean(at) -> None:
    """No exception and no error message on the page an AppTest ran."""
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]


def open_page(page: str):
    """A fresh AppTest of app.py switched to ``page`` (e.g. ``"app_pages/export.py"``), checked clean."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(APP_PY), default_timeout=300).run()
    at.switch_page(page).run()
    assert_clean(at)
    return at
