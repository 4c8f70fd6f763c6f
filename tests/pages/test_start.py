"""A fresh server behaves like a warm one: our navigation only, the router on the first run, nothing
heavy on the start path, no tracebacks for users (see app.py for streamlit's legacy pages path)."""

from __future__ import annotations

import ast
import subprocess
import sys
import tomllib

from streamlit.runtime.pages_manager import PagesManager
from streamlit.testing.v1 import AppTest

from tests.pages.app_pages import APP_PY, pages_in_app

REPO = APP_PY.parent
HEAVY = ("pandas", "pyarrow", "plotly", "scipy", "sklearn")


def test_config_hides_streamlit_navigation_and_error_details():
    client = tomllib.loads((REPO / ".streamlit" / "config.toml").read_text())["client"]
    assert client["showSidebarNavigation"] is False  # the legacy list of file stems is never shown
    assert client["showErrorDetails"] == "none"  # a generic message, never a traceback


def test_the_first_run_is_the_router_with_its_own_links():
    # AppTest resets PagesManager.uses_pages_directory before its first run, as a fresh server process
    # starts: that run goes through streamlit's legacy pages/ path and must still be the router's
    at = AppTest.from_file(str(APP_PY), default_timeout=120).run()
    assert not at.exception, [e.value for e in at.exception]
    assert PagesManager.uses_pages_directory is False  # the router's st.navigation ended the legacy path
    assert [link.proto.label for link in at.sidebar.page_link] == [title for _, title in pages_in_app()]
    assert at.title[0].value == "CAP Studio" and at.sidebar.radio(key="sb_source").value


def test_st_navigation_comes_before_every_import_but_streamlit():
    body = ast.parse(APP_PY.read_text()).body
    nav = next(i for i, node in enumerate(body) if isinstance(node, ast.Assign)
               and ast.unparse(node.value).startswith("st.navigation("))
    imports = [(i, alias.name if isinstance(node, ast.Import) else node.module)
               for i, node in enumerate(body) if isinstance(node, (ast.Import, ast.ImportFrom))
               for alias in (node.names if isinstance(node, ast.Import) else [node])]
    assert [m for i, m in imports if i < nav] == ["streamlit"]


def test_the_start_path_imports_nothing_heavy():
    body = ast.parse(APP_PY.read_text()).body
    modules = [f"{node.module}.{a.name}" if isinstance(node, ast.ImportFrom) else a.name
               for node in body if isinstance(node, (ast.Import, ast.ImportFrom)) for a in node.names]
    code = ("import importlib, sys\n"
            f"for m in {modules!r}:\n"
            "    try:\n        importlib.import_module(m)\n"
            "    except ModuleNotFoundError:\n        importlib.import_module(m.rsplit('.', 1)[0])\n"
            f"print(sorted(h for h in {HEAVY!r} if h in sys.modules))")
    # streamlit itself imports plotly when it is installed; what the router adds must be nothing heavy
    bare = subprocess.run([sys.executable, "-c", f"import sys, streamlit; print(sorted(h for h in {HEAVY!r} "
                           "if h in sys.modules))"], cwd=REPO, capture_output=True, text=True, timeout=120)
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == bare.stdout.strip()
    assert "pandas" not in out.stdout and "sklearn" not in out.stdout


def test_no_folder_named_pages_beside_the_router():
    # streamlit switches a process to its legacy multipage mode when a folder named exactly
    # "pages" lies beside the main script (PagesManager); the page scripts live in app_pages/
    assert not (APP_PY.parent / "pages").exists()
    assert (APP_PY.parent / "app_pages" / "overview.py").is_file()


def test_the_first_element_of_a_process_walks_no_stack(monkeypatch):
    # streamlit's "run me with `streamlit run`" check calls inspect.stack() on a process's first element:
    # ~12,000 lstat calls (0.3-0.4 s) on the first page view after a server start. The router's preload
    # marks it done; if a streamlit upgrade renames the flag, this fails and says so.
    from streamlit import delta_generator, env_util

    from ui.preload import _skip_direct_run_check

    def stack_walk():
        raise AssertionError("streamlit walked the caller's stack (inspect.stack) on the first element")

    monkeypatch.setattr(delta_generator, "_use_warning_has_been_displayed", False)
    monkeypatch.setattr(env_util, "is_repl", stack_walk)
    _skip_direct_run_check()
    delta_generator._maybe_print_use_warning()  # the function streamlit calls when an element is sent
    monkeypatch.setattr(delta_generator, "_use_warning_has_been_displayed", False)
    try:
        delta_generator._maybe_print_use_warning()
    except AssertionError:
        pass  # without the flag the stack is walked: the check above is not vacuous
    else:
        raise AssertionError("streamlit no longer walks the stack here: the flag can go")
