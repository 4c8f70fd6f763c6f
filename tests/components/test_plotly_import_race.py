"""Two sessions on a fresh server: one imports pandas (streamlit's st.dataframe does so lazily) while
the other builds a figure. plotly's validators look pandas up in sys.modules without the import lock
(``_plotly_utils.basevalidators``: ``get_module("pandas", should_load=False)``), so a figure built
during that import met a partially initialised pandas ("partially initialized module 'pandas' has no
attribute 'Series'"). Every figure module must therefore hold a complete pandas before plotly runs."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
FIGURES = sorted(p.stem for p in (REPO / "components").glob("*.py")
                 if "go.Figure" in p.read_text() and p.stem != "plotting")

RACE = textwrap.dedent("""
    import importlib, sys, threading
    import numpy, polars, plotly.graph_objects  # already loaded on a running server; pandas is not
    import cap_core.schema, cap_core.errors
    assert "pandas" not in sys.modules
    errors, pandas_done = [], threading.Event()

    def other_session():  # e.g. the Overview page: st.dataframe -> import pandas
        import pandas  # noqa: F401
        pandas_done.set()

    def this_session(name):  # e.g. the Profiles page: import the figure module, then build figures
        try:
            mod = importlib.import_module("components." + name)
            go = mod.go
            while not pandas_done.is_set():
                go.Figure(go.Scatterpolar(r=[1.0, 2.0, 3.0], theta=["a", "b", "c"]))
            go.Figure(go.Scatterpolar(r=[1.0, 2.0, 3.0], theta=["a", "b", "c"]))
        except Exception as err:  # what the user saw as a traceback
            errors.append(f"{name}: {type(err).__name__}: {err}")

    # every figure module in a session of its own, all started before pandas is complete
    threads = [threading.Thread(target=this_session, args=(m,)) for m in sys.argv[1:]]
    threads.append(threading.Thread(target=other_session))
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print(errors[0] if errors else "ok")
""")


def test_a_figure_built_while_another_session_imports_pandas_is_fine():
    # one fresh process per try holds a session per figure module; the race needs no luck once the figure
    # modules hold pandas, and three tries catch a module that does not
    for _ in range(3):
        out = subprocess.run([sys.executable, "-c", RACE, *FIGURES], cwd=REPO, capture_output=True, text=True,
                             timeout=120)
        assert out.returncode == 0, out.stderr[-2000:]
        assert out.stdout.strip() == "ok", out.stdout


def test_figure_modules_found():
    assert "radar" in FIGURES and "score_bars" in FIGURES and len(FIGURES) >= 10
