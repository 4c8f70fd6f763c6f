"""Page timings under streamlit's AppTest (server-side script time; no browser): issue 13.

Run: ``.venv/bin/python bench/bench_pages.py`` (not part of the test suite).

* cold start: ``python -X importtime``-free wall time of a fresh process importing app.py's
  modules, and the first run of the default page (Overview, its chart included) in that
  process: the server-side part of "first chart after server start".
* warm first views: each page once more after every page has been visited once in
  another session of the same process (streamlit's caches warm, as on a running server),
  then a first visit in a new session.
* weight slider: five moves of the first enabled weight slider on the Profiles and the Choose
  a judge pages. A move reruns only the sidebar's weight fragments and the page's weighted section
  (:func:`ui.sidebar.weighted_section`); AppTest runs that keyed fragment rerun as a server does.
  Under AppTest the time is the whole ``run()`` (script thread, no browser); on a real server
  (``streamlit run`` on 127.0.0.1, moved with the keyboard in Debian's chromium through Playwright)
  it is the script runner's wall and CPU time of each run a move causes, logged by a wrapper
  around ``ScriptRunner._run_script`` in the server process (skipped without Playwright).

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

from bench.common import TIMED_SERVER, result  # noqa: E402

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




def _process_cpu(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` so far, all its threads (Linux ``/proc/<pid>/stat``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _server_slider_ms(paths: tuple[str, ...] = ("profiles", "choose"), moves: int = 6) -> dict[str, tuple]:
    """``{url path: (wall ms, cpu ms)}`` medians over the script runs of ``moves`` keyboard moves of the
    C1 slider on a real server, or ``{}`` without Playwright or chromium."""
    import json
    import socket
    import urllib.request

    try:
        from playwright.sync_api import expect, sync_playwright
    except ImportError:
        return {}
    if not Path("/usr/bin/chromium").exists():
        return {}
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    log = Path(tempfile.mkdtemp(prefix="cap-bench-runs-")) / "runs.jsonl"
    log.touch()
    proc = subprocess.Popen([sys.executable, "-c", TIMED_SERVER, "run", "app.py", "--server.port", str(port),
                             "--server.address", "127.0.0.1", "--server.headless", "true"], cwd=ROOT,
                            env={**os.environ, "CAP_RUN_LOG": str(log)}, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    url, idle = f"http://127.0.0.1:{port}", '[data-testid="stApp"][data-test-script-state="notRunning"]'
    out = {}
    try:
        for _ in range(900):
            try:
                urllib.request.urlopen(url + "/_stcore/health", timeout=2)
                break
            except OSError:
                time.sleep(0.2)
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox", "--disable-gpu"])
            for path in paths:
                page = browser.new_page(viewport={"width": 1400, "height": 1000})
                page.goto(f"{url}/{path}")
                thumb = page.locator(".st-key-sb_w_C1 input[type=range]").first
                expect(thumb).to_be_attached(timeout=600_000)
                expect(page.locator(idle)).to_have_count(1, timeout=600_000)
                time.sleep(1.0)
                before = len(log.read_text().splitlines())
                cpu0 = _process_cpu(proc.pid)
                for i in range(moves):
                    thumb.focus()
                    page.keyboard.press("ArrowLeft")  # 1.0 -> 0.9 -> ...: a new weight each move (no cached result)
                    page.wait_for_timeout(50)
                    expect(page.locator(idle)).to_have_count(1, timeout=600_000)
                    time.sleep(0.5)
                runs = [json.loads(x) for x in log.read_text().splitlines()[before:]]
                proc_cpu = (_process_cpu(proc.pid) - cpu0) / moves * 1000
                assert page.locator('[data-testid="stException"]').count() == 0, path
                assert "w=" in page.url, page.url  # the URL holds the weights after the fragment reruns
                # one move = the widget's run (its callback asks for the fragment rerun) + that rerun
                per_move = len(runs) / moves
                out[path] = (statistics.median(r["wall_ms"] for r in runs) * per_move,
                             statistics.median(r["cpu_ms"] for r in runs) * per_move, proc_cpu)
                page.close()
            browser.close()
    finally:
        proc.terminate()
        proc.wait(30)
    return out


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
               note="median of 5 moves under AppTest: the sidebar's weight fragments and the page's weighted "
                    "section (script time, not the browser)")
    for path, (wall, cpu, proc_cpu) in _server_slider_ms(moves=8).items():
        print(f"weight slider change (real server, /{path}): script runs {wall:.0f} ms wall, {cpu:.0f} ms CPU per move "
              f"(server process CPU {proc_cpu:.0f} ms per move)")
        result(f"weight slider, server script time ({path})", wall, "ms", "<= 50 ms", wall <= 50,
               note=f"median script-run wall time per keyboard move in chromium, a new weight each move (script "
                    f"thread CPU {cpu:.0f} ms, whole server process {proc_cpu:.0f} ms per move); streamlit run on "
                    "127.0.0.1")

if __name__ == "__main__":
    main()
