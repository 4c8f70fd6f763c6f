"""Start loading the browser's chart library while the server computes the first page.

Streamlit's frontend fetches and evaluates the code of an element type (plotly.js: a 4.7 MB
module, about a second of the browser's main thread) only when the first element of that
type arrives, i.e. after the server has computed everything above the first chart. The
router sends, as the first element of a session, a small script that imports those modules
at once (:func:`preload`); when the chart arrives its code is already there. Nothing is
drawn: the element sits in a container hidden by its own CSS.

The module files are Streamlit's own build (``streamlit/static/static/js/<Name>.<hash>.js``),
found in the installed package, so the names follow the Streamlit version; when none is
found (another layout of the package), nothing is sent.
"""

from __future__ import annotations

import functools
import json
import threading
from pathlib import Path

import streamlit as st

__all__ = ["preload", "module_names"]

#: Frontend modules imported ahead: the chart library, the long pole of a first chart (the table
#: module is not: it arrives with the table, after the chart, and evaluating it early would hold
#: the browser's main thread while the chart is drawn).
MODULES = ("PlotlyChart",)
_KEY = "cap_preload"
_SENT = "_cap_preloaded"


@functools.cache
def module_names() -> tuple[str, ...]:
    """File names of :data:`MODULES` in the installed Streamlit's static folder (empty when absent)."""
    folder = Path(st.__file__).parent / "static" / "static" / "js"
    names = []
    for stem in MODULES:
        found = sorted(p.name for p in folder.glob(f"{stem}.*.js"))
        if len(found) == 1:
            names.append(found[0])
    return tuple(names)


def _script(names: tuple[str, ...]) -> str:
    # the frontend's own entry module gives the folder the modules are served from (any base URL path);
    # the imports run one after the other, so the chart library comes first
    return (f"<style>.st-key-{_KEY}, [data-testid=\"stLayoutWrapper\"]:has(> .st-key-{_KEY}) {{display: none;}}"
            "</style><script>(async () => {"
            "const entry = document.querySelector('script[type=\"module\"][src*=\"/static/js/index.\"]');"
            "if (!entry) return; const base = entry.src.slice(0, entry.src.lastIndexOf('/') + 1);"
            f"for (const name of {json.dumps(list(names))}) {{ try {{ await import(base + name); }} "
            "catch (e) {} }})();</script>")


_PANDAS: list = []


def _import_pandas_aside() -> None:
    """Import pandas on a thread of its own, once per process (the first run of the first session).

    The figure modules wait for a complete pandas before building a figure
    (:mod:`components.plotting`); begun here, its import overlaps the first page's
    computations (their polars and numpy work leaves the interpreter free) instead of
    following them. Nothing waits for this thread; an import that fails here fails again
    where pandas is needed, with its message.
    """
    if _PANDAS:
        return
    _PANDAS.append(True)

    def run() -> None:
        try:
            import pandas  # noqa: F401
        except Exception:  # pragma: no cover - reported by the import that needs it
            pass

    threading.Thread(target=run, name="cap-import-pandas", daemon=True).start()


def _skip_direct_run_check() -> None:
    """Tell Streamlit its "run me with `streamlit run`" check is done (this app is always run that way).

    Streamlit makes that check when a process sends its first element: it asks
    :func:`inspect.stack` for the caller's frames, which resolves the real path of every
    loaded module's file (one ``lstat`` per path component, ~12,000 here, 0.3-0.4 s of the
    first page view after a server start, while the pandas import aside adds modules). The
    check can only print a warning to the console, and only when the script is not run by
    ``streamlit run``. Setting Streamlit's flag that the warning was shown skips it; a
    Streamlit that no longer has the flag ignores the attribute.
    """
    from streamlit import delta_generator

    delta_generator._use_warning_has_been_displayed = True


def preload() -> None:
    """Send the import script once per session, as early in the run as it is called (and, once per
    process, start importing pandas aside: :func:`_import_pandas_aside`)."""
    _skip_direct_run_check()
    _import_pandas_aside()
    names = module_names()
    if not names or st.session_state.get(_SENT):
        return
    st.session_state[_SENT] = True
    with st.sidebar.container(key=_KEY):
        st.html(_script(names), unsafe_allow_javascript=True)
