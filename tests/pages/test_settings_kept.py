"""Every page setting goes through ui.state (kept / kept_upload), so none resets when the user visits
another page: streamlit drops the state of a widget that is not drawn in a run."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SETTINGS = {"selectbox", "multiselect", "slider", "select_slider", "radio", "toggle", "checkbox", "text_input",
            "number_input", "text_area", "date_input", "color_picker", "segmented_control", "pills"}
FILES = sorted((REPO / "app_pages").glob("*.py")) + [
    REPO / "ui" / "frontier_sections.py"]


def _widget_calls(path: Path):
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            yield node.func.attr, node


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_settings_are_kept_and_uploads_too(path):
    for name, call in _widget_calls(path):
        if name in SETTINGS:
            key = next((k.value for k in call.keywords if k.arg == "key"), None)
            assert isinstance(key, ast.Call) and getattr(key.func, "id", "") == "kept", (
                f"{path.name}:{call.lineno} {name} without key=kept(...)")
            assert not {"value", "index", "default"} & {k.arg for k in call.keywords}, (
                f"{path.name}:{call.lineno} {name}: give the default to kept(), not to the widget")
        assert name != "file_uploader", f"{path.name}:{call.lineno}: use ui.state.kept_upload"
        assert name != "download_button", f"{path.name}:{call.lineno}: use ui.display.download (no rerun)"
