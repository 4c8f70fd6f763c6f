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
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from bench.common import result  # noqa: E402

HEAVY = ("litellm", "sklearn", "cap_core.audit.surface", "dask", "llama_cpp")


def cold_start() -> tuple[float, float, list[str]]:
    """(import seconds, first Overview run seconds, heavy modules imported) in a fresh process."""
    code = ("import time, sys; t=time.perf_counter()\n"
            "from streamlit.testing.v1 import AppTest\n"
            "import streamlit, polars, numpy, plotly\n"
            "t1=time.perf_counter()\n"
            f"at = AppTest.from_file({str(ROOT / 'app.py')!r}, default_timeout=300).run()\n"
            "t2=time.perf_counter()\n"
            "assert not at.exception, at.exception\n"
            f"print('COLD', t1-t, t2-t1, ','.join(m for m in {HEAVY!r} if m in sys.modules))\n")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    line = next(x for x in out.stdout.splitlines() if x.startswith("COLD"))
    _, a, b, heavy = (line.split(" ") + [""])[:4]
    return float(a), float(b), [h for h in heavy.split(",") if h]


def main() -> None:
    from streamlit.testing.v1 import AppTest

    from tests.pages.app_pages import pages_in_app

    imp, first, heavy = cold_start()
    print(f"cold process: imports {imp:.2f} s, first Overview run {first:.2f} s; heavy modules on the start path: "
          f"{heavy or 'none'}")
    result("first chart after server start (server side)", imp + first, "s", "<= 3 s", imp + first <= 3.0,
           note=f"imports {imp:.2f} s + first Overview run {first:.2f} s; heavy on start path: {heavy or 'none'}")

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

    at = AppTest.from_file(app, default_timeout=600).run()
    at.switch_page("app_pages/profiles.py").run()
    runs = []
    for v in (0.3, 0.7, 0.4):
        t = time.perf_counter()
        at.slider(key="sb_w_C5").set_value(v).run()
        runs.append(time.perf_counter() - t)
        assert not at.exception, at.exception
    med = sorted(runs)[1]
    print(f"weight slider change (Profiles page rerun): {', '.join(f'{x * 1000:.0f}' for x in runs)} ms")
    result("weight-slider change, server time", med * 1000, "ms", "<= 50 ms", med <= 0.05,
           note="whole page rerun under AppTest (includes script time, not the browser)")


if __name__ == "__main__":
    main()
