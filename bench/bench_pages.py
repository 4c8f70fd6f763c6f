"""Page timings under streamlit's AppTest (server-side script time; no browser): issue 13.

Run: ``.venv/bin/python bench/bench_pages.py`` (not part of the test suite).

* cold start: ``python -X importtime``-free wall time of a fresh process importing app.py's
  modules, and the first run of the default page (Overview, its chart included) in that
  process: the server-side part of "first chart after server start".
* warm first views: each page once more after every page has been visited once in
  another session of the same process (streamlit's caches warm, as on a running server),
  then a first visit in a new session.
* weight slider: one C5 weight change on the Profiles page, rerun time (weighted scores
  from the cached replicates).

Heavy modules that must stay off the start path are listed with whether they were imported.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from bench.common import result  # noqa: E402

HEAVY = ("litellm", "sklearn", "scipy.stats", "cap_core.audit.surface", "dask", "statsmodels", "huggingface_hub",
         "llama_cpp")


def cold_start(page: str | None = None, env: dict | None = None) -> tuple[float, float, float, list[str]]:
    """(import seconds, first Overview run seconds, first run of ``page`` after it, heavy modules
    imported by then) in a fresh process."""
    code = ("import time, sys; t=time.perf_counter()\n"
            "from streamlit.testing.v1 import AppTest\n"
            "import streamlit, polars, numpy, plotly\n"
            "t1=time.perf_counter()\n"
            f"at = AppTest.from_file({str(ROOT / 'app.py')!r}, default_timeout=300).run()\n"
            "t2=time.perf_counter()\n"
            "assert not at.exception, at.exception\n"
            f"heavy = ','.join(m for m in {HEAVY!r} if m in sys.modules)\n"
            + (f"at.switch_page({page!r}).run()\nassert not at.exception, at.exception\n" if page else "")
            + "t3=time.perf_counter()\n"
            "print('COLD', t1-t, t2-t1, t3-t2, heavy)\n")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, env=env)
    line = next((x for x in out.stdout.splitlines() if x.startswith("COLD")), None)
    if line is None:
        raise RuntimeError(out.stderr[-2000:])
    _, a, b, c, heavy = (line.split(" ") + [""])[:5]
    return float(a), float(b), float(c), [h for h in heavy.split(",") if h]


def _slider_ms(app: str, page: str) -> list[float]:
    """Rerun times (ms) of five changes of the first weight slider that is not disabled on ``page``."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(app, default_timeout=600).run()
    at.switch_page(page).run()
    key = next(w.key for w in at.slider if (w.key or "").startswith("sb_w_") and not w.disabled)
    runs = []
    for v in (0.3, 0.7, 0.4, 0.6, 0.5):
        t = time.perf_counter()
        at.slider(key=key).set_value(v).run()
        runs.append((time.perf_counter() - t) * 1000)
        assert not at.exception, at.exception
    return runs


def main() -> None:
    from streamlit.testing.v1 import AppTest

    from tests.pages.app_pages import pages_in_app

    # a server runs from compiled bytecode after its first start: compile once into a private
    # folder (not the source tree), then time fresh processes; medians of three
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = tempfile.mkdtemp(prefix="cap-bench-pyc-")
    cold_start("app_pages/choose.py", env)
    runs = [cold_start("app_pages/choose.py", env) for _ in range(3)]
    imp, first, choose_first = (statistics.median(r[i] for r in runs) for i in range(3))
    heavy = runs[-1][3]
    print(f"cold process: imports {imp:.2f} s, first Overview run {first:.2f} s, then the first Choose page "
          f"{choose_first:.2f} s; heavy modules on the start path: {heavy or 'none'} (medians of 3)")
    result("first chart after server start (server side)", imp + first, "s", "<= 3 s", imp + first <= 3.0,
           baseline=imp, ratio=(imp + first) / imp,
           note=f"imports {imp:.2f} s + first Overview run {first:.2f} s; baseline = importing streamlit, polars, "
                f"numpy, plotly; first Choose page after it {choose_first:.2f} s; heavy on start path: "
                f"{heavy or 'none'}")

    app = str(ROOT / "app.py")
    pages = [f for f, _ in pages_in_app()]
    warmup = AppTest.from_file(app, default_timeout=600).run()
    for p in pages:
        warmup.switch_page(p).run()
    times = {}
    for p in pages:
        at = AppTest.from_file(app, default_timeout=600).run()
        t = time.perf_counter()
        at.switch_page(p).run()
        times[p] = time.perf_counter() - t
        assert not at.exception, (p, at.exception)
    for p, s in times.items():
        print(f"  warm first view {p:32s} {s:6.2f} s")
    worst = max(times, key=times.get)
    result("every page's first view, warm server", times[worst], "s", "<= 2 s (or a progress bar)",
           times[worst] <= 2.0, note=f"slowest {worst}")

    for page in ("app_pages/profiles.py", "app_pages/choose.py"):
        runs = _slider_ms(app, page)
        med = statistics.median(runs)
        print(f"weight slider change ({page} rerun): {', '.join(f'{x:.0f}' for x in runs)} ms")
        result(f"weight-slider change, server time ({Path(page).stem})", med, "ms", "<= 50 ms", med <= 50,
               note="median of 5; whole page rerun under AppTest (script time, not the browser)")

if __name__ == "__main__":
    main()
